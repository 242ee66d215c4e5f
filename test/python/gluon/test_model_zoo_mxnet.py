"""gluon.model_zoo.vision against MXNet 1.9.1's zoo (skipped where
.venv-mxnet is absent, as in CI).

MXNet builds each of the 34 networks, records its parameter names and shapes
(full names and the structural names of save_parameters, before and after
shape inference), gives it random weights (He-scaled, BatchNorm statistics
away from 0 / 1), writes them with save_parameters and runs an inference
forward; for five networks without Dropout also a training-mode forward and
backward in float64 (batch statistics, gradients, moving statistics). mxc
builds the same network, must have the same names and shapes, loads MXNet's
file and must give the same outputs (imperative and hybridized) and
gradients. MXC_ZOO_NETS=name,name,... runs only those networks.
"""
import json
import os
import textwrap

import numpy as np
import pytest

from mxnet_side import needs_mxnet, run_mxnet

pytestmark = needs_mxnet

# (zoo name, batch, image side): 224 (299 for Inception) but where the
# network does not need it (VGG's first Dense grows with the input).
NETS = [(n, 1, 224) for n in ("resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1",
                              "resnet152_v1", "resnet18_v2", "resnet34_v2", "resnet50_v2",
                              "resnet101_v2", "resnet152_v2")]
NETS += [(n, 2, 64) for n in ("vgg11", "vgg13", "vgg16", "vgg19",
                              "vgg11_bn", "vgg13_bn", "vgg16_bn", "vgg19_bn")]
NETS += [("alexnet", 1, 224), ("inceptionv3", 1, 299)]
NETS += [(n, 1, 224) for n in ("densenet121", "densenet161", "densenet169", "densenet201")]
NETS += [(n, 2, 224) for n in ("squeezenet1.0", "squeezenet1.1")]
NETS += [(n, 1, 224) for n in ("mobilenet1.0", "mobilenet0.75", "mobilenet0.5",
                               "mobilenet0.25", "mobilenetv2_1.0", "mobilenetv2_0.75",
                               "mobilenetv2_0.5", "mobilenetv2_0.25")]
if os.environ.get("MXC_ZOO_NETS"):
    NETS = [n for n in NETS if n[0] in os.environ["MXC_ZOO_NETS"].split(",")]
# trained-mode forward + backward compared as well (no Dropout in these)
WITH_GRADIENTS = {"resnet18_v1", "resnet50_v2", "densenet121", "mobilenet0.25",
                  "mobilenetv2_0.25"}
CLASSES = 10

# Run by MXNet: argv = out_dir, json [[name, batch, side], ...], json [names with gradients]
MXNET_SIDE = textwrap.dedent("""
    import json, sys
    import numpy as np
    import mxnet as mx
    from mxnet.gluon.model_zoo import vision

    out_dir, nets, with_grad = sys.argv[1], json.loads(sys.argv[2]), set(json.loads(sys.argv[3]))

    def listing(params):
        return [[k, list(p.shape)] for k, p in params.items()]

    def random_weights(net, rng):
        for name, p in sorted(net.collect_params().items()):
            shape = p.shape
            if p.grad_req == "null" and not name.endswith(("running_mean", "running_var")):
                continue    # a BatchNorm's fixed gamma (scale=False) stays 1
            if name.endswith(("gamma", "running_var")):
                value = rng.uniform(0.5, 1.5, shape)
            elif name.endswith(("beta", "bias", "running_mean")):
                value = rng.normal(0, 0.1, shape)
            else:
                value = rng.normal(0, np.sqrt(2.0 / np.prod(shape[1:])), shape)
            p.set_data(mx.nd.array(value))

    for i, (name, batch, side) in enumerate(nets):
        rng = np.random.RandomState(i)
        with mx.name.NameManager():     # prefixes counted from 0 (resnetv10_)
            net = vision.get_model(name, classes=%(classes)d)
        info = {"names": listing(net.collect_params()),
                "structural": listing(net._collect_params_with_prefix())}
        x = rng.uniform(-1, 1, (batch, 3, side, side)).astype(np.float32)
        net.initialize()
        net(mx.nd.array(x))
        info["inferred"] = listing(net.collect_params())
        random_weights(net, rng)
        net.save_parameters("%%s/%%s.params" %% (out_dir, name))
        arrays = {"x": x, "y": net(mx.nd.array(x)).asnumpy()}
        if name in with_grad:
            # in float64: float32 gradients of these random networks in training
            # mode differ by up to 5%% between MXNet's own CPU kernels (oneDNN
            # or not), float64 ones agree
            net.cast("float64")
            head = rng.normal(0, 1, arrays["y"].shape)
            xs = mx.nd.array(x, dtype="float64")
            with mx.autograd.record():
                y = net(xs)
            y.backward(mx.nd.array(head, dtype="float64"))
            arrays["head"] = head
            arrays["y_train"] = y.asnumpy()
            for k, p in net.collect_params().items():
                if p.grad_req != "null":
                    arrays["grad:" + k] = p.grad().asnumpy()
                else:
                    arrays["aux:" + k] = p.data().asnumpy()
        np.savez("%%s/%%s.npz" %% (out_dir, name), **arrays)
        with open("%%s/%%s.json" %% (out_dir, name), "w") as f:
            json.dump(info, f)
""") % {"classes": CLASSES}


@pytest.fixture(scope="module")
def mxnet_results(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("zoo"))
    run_mxnet(MXNET_SIDE, d, json.dumps(NETS), json.dumps(sorted(WITH_GRADIENTS)),
              timeout=3600)
    return d


def _listing(params):
    return [[k, list(p.shape)] for k, p in params.items()]


def _close(got, ref, what, eps=1e-4):
    # float32 through up to 150 layers, summed in another order: eps relative
    # to the largest value of the reference (1e-9 for the float64 gradients)
    scale = max(1.0, float(np.abs(ref).max()))
    np.testing.assert_allclose(got, ref, rtol=10 * eps, atol=eps * scale, err_msg=what)


@pytest.mark.parametrize("name,batch,side", NETS, ids=[n[0] for n in NETS])
def test_zoo_network_matches_mxnet(mxnet_results, name, batch, side):
    import mxc as mx
    from mxc.gluon.model_zoo import vision

    with open(os.path.join(mxnet_results, name + ".json")) as f:
        info = json.load(f)
    ref = np.load(os.path.join(mxnet_results, name + ".npz"))
    with mx.name.NameManager():
        net = vision.get_model(name, classes=CLASSES)
    assert _listing(net.collect_params()) == info["names"]
    assert _listing(net._collect_params_with_prefix()) == info["structural"]
    net.load_parameters(os.path.join(mxnet_results, name + ".params"))
    assert _listing(net.collect_params()) == info["inferred"]

    x = mx.nd.array(ref["x"])
    _close(net(x).asnumpy(), ref["y"], name + " imperative")
    net.hybridize()
    _close(net(x).asnumpy(), ref["y"], name + " hybridized")

    if name in WITH_GRADIENTS:
        net.cast("float64")
        with mx.autograd.record():
            y = net(mx.nd.array(ref["x"], dtype="float64"))
        y.backward(mx.nd.array(ref["head"], dtype="float64"))
        assert y.dtype == np.float64
        _close(y.asnumpy(), ref["y_train"], name + " training forward", 1e-9)
        checked = 0
        for k, p in net.collect_params().items():
            if p.grad_req != "null":
                _close(p.grad().asnumpy(), ref["grad:" + k], name + " gradient " + k, 1e-9)
            elif k.startswith("resnetv20_batchnorm0_running"):
                # ResNet v2's input BatchNorm: MXNet updates moving statistics in
                # BatchNorm's backward, which does not run for this layer (no
                # gradient of the data, gamma and beta fixed); mxc updates them
                # in the forward (docs/gluon.md)
                old = mx.nd.load(os.path.join(mxnet_results, name + ".params"))[
                    "features.0." + k.split("_", 2)[2]].asnumpy()
                np.testing.assert_array_equal(ref["aux:" + k], old)
                x64 = ref["x"].astype(np.float64)
                batch = x64.mean(axis=(0, 2, 3)) if k.endswith("mean") else \
                    x64.var(axis=(0, 2, 3))
                _close(p.data().asnumpy(), 0.9 * old + 0.1 * batch, k, 1e-6)
            else:
                # MXNet keeps the momentum (0.9) in float32
                _close(p.data().asnumpy(), ref["aux:" + k], name + " moving statistic " + k,
                       1e-6)
            checked += 1
        assert checked == len(info["names"])
