"""Full-model gradients of the training step (mxc run --train, float64)
against central finite differences of the training-mode forward pass, for
the zoo's MLP, LeNet and ResNet-18 (tools/zoo/mxnet_zoo.py) at small sizes.

The models end in SoftmaxOutput, whose built-in gradient is that of the
cross-entropy -sum(log p[label]); the finite differences are taken of that
loss computed from the forward output (gradcheck.cross_entropy). Every
parameter gets a random-direction probe and sampled single coordinates;
BatchNorm runs in training mode (batch statistics) in both passes."""
import os
import sys

import numpy as np
import pytest

from gradcheck import check_gradients, cross_entropy

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "zoo"))
import mxnet_zoo  # noqa: E402


def model_values(g, data_shape, seed=0):
    """Seeded float64 parameters (uniform +-sqrt(3/fan_in) for weights),
    BatchNorm gamma in [0.5, 1.5), moving variances in [0.5, 1.5)."""
    rng = np.random.default_rng(seed)
    args, aux, _ = mxnet_zoo.infer_shapes(g, data_shape)
    params = {}
    for name, shape in args:
        if name in ("data", "softmax_label"):
            continue
        if name.endswith("_gamma"):
            params[name] = rng.uniform(0.5, 1.5, shape)
        elif len(shape) >= 2:
            a = np.sqrt(3.0 / np.prod(shape[1:]))
            params[name] = rng.uniform(-a, a, shape)
        else:
            params[name] = rng.uniform(-0.5, 0.5, shape)
    for name, shape in aux:
        params[name] = (rng.uniform(0.5, 1.5, shape) if name.endswith("_var")
                        else rng.uniform(-0.5, 0.5, shape))
    return params, [n for n, _ in aux]


def check_model(g, data_shape, classes, coords=2, directions=1, seed=0, h=1e-5):
    rng = np.random.default_rng(seed + 100)
    params, aux = model_values(g, data_shape, seed)
    data = rng.uniform(-1, 1, data_shape)
    label = rng.integers(0, classes, data_shape[0]).astype(np.float64)
    r = check_gradients(g, {"data": data, "softmax_label": label}, params,
                        exclude=["data", "softmax_label"] + aux,
                        loss=cross_entropy(label), directions=directions,
                        coords=coords, coord_limit=10 ** 9, seed=seed, h=h)
    assert set(r["grads"]) == set(params) - set(aux)
    return r


def test_mlp():
    g = mxnet_zoo.to_graph(mxnet_zoo.mlp(10))
    check_model(g, (2, 1, 28, 28), 10, coords=3, directions=2)


def test_lenet():
    g = mxnet_zoo.to_graph(mxnet_zoo.lenet(10))
    check_model(g, (2, 1, 28, 28), 10)


def test_resnet18():
    g = mxnet_zoo.to_graph(mxnet_zoo.resnet(18, 10, (3, 32, 32)))
    # BatchNorm over 2 values at stage 4 (1x1 maps, batch 2) is strongly
    # curved: a smaller step keeps the central difference's error down.
    r = check_model(g, (2, 3, 32, 32), 10, coords=1, h=1e-7)
    # BatchNorm running statistics are returned for every BatchNorm
    assert len(r["aux"]) == 2 * sum(1 for n in g["nodes"] if n["op"] == "BatchNorm")
