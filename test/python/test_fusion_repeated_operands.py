"""mx-fuse-elementwise + the mx.fused lowering on graphs where one op reads
the same value twice (broadcast_mul(x, x)), values have several users (also
heads), and training-mode BatchNorm feeds an elementwise tail.

Regression for a crash in convert-mx-to-linalg: BatchNorm (training) ->
broadcast_mul(out, out) -> sum, run with --train, freed an invalid pointer
while lowering the mx.fused group (the fused linalg.generic was made to read
its own result). Each graph runs fused and with --no-graph-fusion, in
inference and in a training step; outputs, gradients and updated auxiliary
states must agree. The reported graph is also checked against finite
differences (gradcheck.py).
"""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gradcheck import check_gradients, run_training_step  # noqa: E402
from mxc_testing import assert_close, run_graph  # noqa: E402


class _Graph:
    """A tiny MXNet symbol builder: var(name), op(op, inputs, attrs)."""

    def __init__(self):
        self.nodes, self.args = [], []

    def var(self, name):
        self.nodes.append({"op": "null", "name": name, "inputs": []})
        self.args.append(len(self.nodes) - 1)
        return len(self.nodes) - 1

    def op(self, op, inputs, attrs=None, name=None):
        node = {"op": op, "name": name or "n%d" % len(self.nodes),
                "inputs": [[i, 0, 0] for i in inputs]}
        if attrs:
            node["attrs"] = attrs
        self.nodes.append(node)
        return len(self.nodes) - 1

    def symbol(self, heads):
        return {"nodes": self.nodes, "arg_nodes": self.args,
                "heads": [[i, 0, 0] for i in heads],
                "attrs": {"mxnet_version": ["int", 10901]}}


def _batchnorm(g, x, prefix, attrs=None):
    vs = [g.var(prefix + "_" + s) for s in ("gamma", "beta", "moving_mean", "moving_var")]
    return g.op("BatchNorm", [x] + vs, dict(attrs or {"fix_gamma": "False"}), name=prefix)


def _bn_params(rng, prefix, c):
    return {prefix + "_gamma": rng.uniform(0.5, 1.5, c), prefix + "_beta": rng.standard_normal(c),
            prefix + "_moving_mean": rng.standard_normal(c),
            prefix + "_moving_var": rng.uniform(0.5, 1.5, c)}


def bn_square_sum():
    """The reported graph: BatchNorm -> broadcast_mul(bn, bn) -> sum."""
    g = _Graph()
    bn = _batchnorm(g, g.var("data"), "bn")
    return g.symbol([g.op("sum", [g.op("broadcast_mul", [bn, bn], name="m")], name="s")]), ["bn"], []


def bn_tail_multi_use():
    """BatchNorm -> relu; relu * relu, relu + p (per channel), both heads,
    and the BatchNorm output itself is a head (a value yielded by the group
    and read twice inside it)."""
    g = _Graph()
    bn = _batchnorm(g, g.var("data"), "bn")
    r = g.op("Activation", [bn], {"act_type": "tanh"})
    sq = g.op("elemwise_mul", [r, r])
    t = g.op("broadcast_add", [r, g.var("p0")])
    u = g.op("broadcast_mul", [t, sq])
    return g.symbol([g.op("sum", [u]), bn, sq]), ["bn"], ["p0"]


def diamond_repeated():
    """q = data * p0; e = exp(q) * q; f = (e + e) * (q - e): q and e are
    read twice by one op and also by other ops; q is a head."""
    g = _Graph()
    q = g.op("broadcast_mul", [g.var("data"), g.var("p0")])
    e = g.op("elemwise_mul", [g.op("_mul_scalar", [q], {"scalar": "0.25"}), q])
    f = g.op("elemwise_mul", [g.op("elemwise_add", [e, e]), g.op("elemwise_sub", [q, e])])
    m = g.op("broadcast_maximum", [f, f])
    return g.symbol([g.op("sum", [m]), q]), [], ["p0"]


def bn_chain_square():
    """Two BatchNorms (training, then global statistics) with squares by
    broadcast_mul between them and a sigmoid tail."""
    g = _Graph()
    b0 = _batchnorm(g, g.var("data"), "bn0")
    s0 = g.op("broadcast_mul", [b0, b0])
    b1 = _batchnorm(g, s0, "bn1", {"fix_gamma": "False", "use_global_stats": "True"})
    s1 = g.op("sigmoid", [g.op("broadcast_mul", [b1, b1])])
    return g.symbol([g.op("sum", [g.op("elemwise_mul", [s1, s0])])]), ["bn0", "bn1"], []


GRAPHS = [bn_square_sum, bn_tail_multi_use, diamond_repeated, bn_chain_square]
SHAPES = [(2, 3, 4, 4), (4, 2, 3, 1)]


def _case(build, shape, dtype, seed=0):
    sym, bns, chans = build()
    rng = np.random.default_rng(seed)
    c = shape[1]
    params = {}
    for prefix in bns:
        params.update(_bn_params(rng, prefix, c))
    for name in chans:
        params[name] = rng.standard_normal((1, c) + (1,) * (len(shape) - 2))
    params = {k: v.astype(dtype) for k, v in params.items()}
    inputs = {"data": rng.standard_normal(shape).astype(dtype)}
    wrt = ["data"] + [k for k in params if "moving" not in k]
    return sym, inputs, params, wrt


def _assert_same(a, b, rtol, atol):
    assert sorted(a) == sorted(b)
    for k in a:
        assert_close(a[k], b[k], rtol=rtol, atol=atol, name=k)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("build", GRAPHS, ids=lambda f: f.__name__)
def test_fused_matches_unfused(build, shape):
    sym, inputs, params, wrt = _case(build, shape, np.float64)
    for extra in ([], ["--train", "--wrt", ",".join(wrt)]):
        fused = run_graph(sym, inputs, params, extra_args=extra)
        plain = run_graph(sym, inputs, params, extra_args=extra + ["--no-graph-fusion"])
        _assert_same(fused, plain, rtol=1e-10, atol=1e-12)
        if extra:
            assert sorted(k for k in fused if k.endswith(".grad")) == sorted(
                w + ".grad" for w in wrt)


def test_reported_graph_float32():
    """The report's exact setting: float32, `--train --wrt` the data and
    BatchNorm's parameters; also the running statistics."""
    sym, inputs, params, wrt = _case(bn_square_sum, (2, 3, 4, 4), np.float32)
    heads, grads, aux = run_training_step(sym, inputs, params, wrt=wrt)
    heads0, grads0, aux0 = run_training_step(sym, inputs, params, wrt=wrt,
                                             extra_args=["--no-graph-fusion"])
    assert sorted(grads) == sorted(wrt) and sorted(aux) == ["bn_moving_mean", "bn_moving_var"]
    _assert_same(heads, heads0, rtol=1e-5, atol=1e-5)
    _assert_same(grads, grads0, rtol=1e-4, atol=1e-4)
    _assert_same(aux, aux0, rtol=1e-6, atol=1e-7)
    # sum(y^2) with y = gamma * xhat + beta: d/dbeta = 2 * sum(y) per channel
    # = 2 * N * beta (xhat sums to zero), d/dgamma = 2 * gamma * sum(xhat^2).
    x = inputs["data"].astype(np.float64)
    n = x.size / x.shape[1]
    xhat = (x - x.mean(axis=(0, 2, 3), keepdims=True)) / np.sqrt(
        x.var(axis=(0, 2, 3), keepdims=True) + 1e-3)
    np.testing.assert_allclose(grads["bn_beta"], 2 * n * params["bn_beta"], rtol=1e-4)
    np.testing.assert_allclose(grads["bn_gamma"],
                               2 * params["bn_gamma"] * (xhat ** 2).sum(axis=(0, 2, 3)),
                               rtol=1e-4)


def test_reported_graph_finite_differences():
    sym, inputs, params, wrt = _case(bn_square_sum, (2, 3, 2, 2), np.float64, seed=3)
    check_gradients(sym, inputs=inputs, params=params, wrt=wrt)
