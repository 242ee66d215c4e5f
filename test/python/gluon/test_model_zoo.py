"""gluon.model_zoo.vision without MXNet (runs in CI): the zoo's names and
constructors, parameter names and shapes against a digest recorded from
MXNet 1.9.1, the pretrained refusal, and for three small networks forward,
hybridize, save / load and export + SymbolBlock.imports. The comparison of
every network's outputs with MXNet's is test_model_zoo_mxnet.py."""
import hashlib
import json
import os

import numpy as np
import pytest

import mxc as mx
from mxc import gluon
from mxc.gluon.model_zoo import vision

# sha1 (first 16 hex digits) of json.dumps(full listing + structural listing)
# of get_model(name, classes=7) before initialisation (built in a fresh
# mx.name.NameManager: prefixes counted from 0), each listing a list
# of [name, shape] in collect_params() / _collect_params_with_prefix()
# order, as MXNet 1.9.1 gives them (.venv-mxnet, 2026-12-01).
MXNET_DIGESTS = {
    "resnet18_v1": "bbae4c25b42002d3", "resnet34_v1": "a604eefd63c0bb81",
    "resnet50_v1": "b899d3427f98b395", "resnet101_v1": "e0583ec20a6c5288",
    "resnet152_v1": "159073b1a21d7f88", "resnet18_v2": "0933d679e7b4b532",
    "resnet34_v2": "8ec00209bb2bea90", "resnet50_v2": "7570fc223db0824f",
    "resnet101_v2": "d260df8022185e8b", "resnet152_v2": "37669e46be4144d3",
    "vgg11": "c547e749093d34c2", "vgg13": "c03db7f907272a4f",
    "vgg16": "da9b355707e65402", "vgg19": "9c67644dd6846544",
    "vgg11_bn": "9a3904e8207a21dd", "vgg13_bn": "ccb9458533dc2691",
    "vgg16_bn": "6bf3b019a1fee644", "vgg19_bn": "e365c7eab004c354",
    "alexnet": "a8e2a3e1ad96e504", "inceptionv3": "de07a1d273658104",
    "densenet121": "7657cf6619f3887a", "densenet161": "f3695675681f46de",
    "densenet169": "d9a623cbaa890221", "densenet201": "989a4578707181dc",
    "squeezenet1.0": "5d078d733eea83e0", "squeezenet1.1": "6cbef665a4871e83",
    "mobilenet1.0": "0aacc99d079a2fe9", "mobilenet0.75": "36d72e3d0a7dc6f9",
    "mobilenet0.5": "a85cbea848e7ab5f", "mobilenet0.25": "fb294477c35c1c6d",
    "mobilenetv2_1.0": "8f1587f4812bae35", "mobilenetv2_0.75": "14220a654e1ef3d3",
    "mobilenetv2_0.5": "f45d9d5ec53323ae", "mobilenetv2_0.25": "10af5dddeb1faf04",
}

# zoo name -> MXNet's constructor function name
CONSTRUCTORS = {n: n for n in MXNET_DIGESTS}
CONSTRUCTORS.update({
    "squeezenet1.0": "squeezenet1_0", "squeezenet1.1": "squeezenet1_1",
    "inceptionv3": "inception_v3", "mobilenet1.0": "mobilenet1_0",
    "mobilenet0.75": "mobilenet0_75", "mobilenet0.5": "mobilenet0_5",
    "mobilenet0.25": "mobilenet0_25", "mobilenetv2_1.0": "mobilenet_v2_1_0",
    "mobilenetv2_0.75": "mobilenet_v2_0_75", "mobilenetv2_0.5": "mobilenet_v2_0_5",
    "mobilenetv2_0.25": "mobilenet_v2_0_25"})


def _fresh(make, *args, **kwargs):
    """Builds a network with the prefix counters at 0 (resnetv10_, not
    resnetv11_ for the second ResNet of the process), as a new process would."""
    with mx.name.NameManager():
        return make(*args, **kwargs)


def _digest(net):
    listing = [[k, list(p.shape)] for k, p in net.collect_params().items()]
    listing += [[k, list(p.shape)] for k, p in net._collect_params_with_prefix().items()]
    return hashlib.sha1(json.dumps(listing).encode()).hexdigest()[:16]


def test_names_and_constructors():
    assert vision.list_models() == sorted(MXNET_DIGESTS)
    for zoo_name, fn_name in CONSTRUCTORS.items():
        fn = getattr(vision, fn_name)
        assert fn.__name__ == fn_name
        assert type(fn(classes=3)) is type(vision.get_model(zoo_name.upper(), classes=3))
    with pytest.raises(ValueError, match="resnet18_v1"):
        vision.get_model("resnet19_v1")
    with pytest.raises(mx.MXNetError, match="no 19-layer network"):
        vision.get_resnet(1, 19)


@pytest.mark.parametrize("name", sorted(MXNET_DIGESTS))
def test_parameter_names_and_shapes_digest(name):
    net = _fresh(vision.get_model, name, classes=7)
    assert _digest(net) == MXNET_DIGESTS[name]


def test_some_names_spelled_out():
    # a few of the digests' contents, readable
    net = _fresh(vision.resnet18_v1)
    names = list(net.collect_params())
    assert names[:3] == ["resnetv10_conv0_weight", "resnetv10_batchnorm0_gamma",
                         "resnetv10_batchnorm0_beta"]
    assert "resnetv10_stage2_conv2_weight" in names      # stage 2's projection
    assert names[-2:] == ["resnetv10_dense0_weight", "resnetv10_dense0_bias"]
    assert net.collect_params()["resnetv10_dense0_weight"].shape == (1000, 512)
    v2 = _fresh(vision.mobilenet_v2_0_25, classes=5)
    assert list(v2.collect_params())[-1] == "mobilenetv20_output_pred_weight"
    assert "mobilenetv20_features_linearbottleneck16_conv2_weight" in v2.collect_params()
    inc = _fresh(vision.inception_v3)
    assert "inception30_E2_conv8_weight" in inc.collect_params()
    structural = list(_fresh(vision.densenet121)._collect_params_with_prefix())
    assert structural[5] == "features.4.0.1.0.gamma"    # stage 1, layer 0, new features, BN


def test_pretrained_is_a_clear_error(tmp_path):
    for make in (lambda: vision.get_model("resnet18_v1", pretrained=True),
                 lambda: vision.squeezenet1_1(pretrained=True, root=str(tmp_path)),
                 lambda: vision.get_model("mobilenetv2_0.25", pretrained=True,
                                          ctx=mx.cpu())):
        with pytest.raises(mx.MXNetError, match="cannot download.*load_parameters"):
            make()
    # ctx and root are accepted without pretrained weights
    net = vision.get_model("alexnet", pretrained=False, ctx=mx.cpu(), root=str(tmp_path),
                           classes=4)
    assert net.output.weight.shape == (4, 0)


@pytest.mark.parametrize("name,side", [("resnet18_v1", 32), ("mobilenet0.25", 32),
                                       ("squeezenet1.1", 224)])
def test_forward_hybridize_export_imports(tmp_path, name, side):
    net = vision.get_model(name, classes=6)
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (2, 3, side, side)))
    y = net(x).asnumpy()
    assert y.shape == (2, 6) and np.isfinite(y).all()

    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), y, rtol=1e-4, atol=1e-5)

    # the structural-name file round trip into a fresh network
    params = str(tmp_path / "net.params")
    net.save_parameters(params)
    other = vision.get_model(name, classes=6)
    other.load_parameters(params)
    np.testing.assert_allclose(other(x).asnumpy(), y, rtol=1e-4, atol=1e-5)

    # export -> SymbolBlock.imports gives the same network
    prefix = str(tmp_path / name)
    net.export(prefix, epoch=3)
    assert os.path.exists(prefix + "-symbol.json") and os.path.exists(prefix + "-0003.params")
    imported = gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"],
                                         prefix + "-0003.params")
    np.testing.assert_allclose(imported(x).asnumpy(), y, rtol=1e-4, atol=1e-5)
    names = set(imported.collect_params())
    assert names == set(net.collect_params())


def test_resnet_thumbnail_and_training_step():
    # the CIFAR-sized stem (3x3 conv, no pool) and one SGD step that moves
    # every weight of a hybridized ResNet (a narrow two-stage one: CI time)
    net = _fresh(vision.ResNetV2, vision.BasicBlockV2, [1, 1], [8, 8, 16], classes=10,
                 thumbnail=True)
    assert net.collect_params()["resnetv20_conv0_weight"].shape == (8, 0, 3, 3)
    assert "resnetv20_stage2_conv2_weight" in net.collect_params()   # the projection
    net.initialize(mx.init.Xavier())
    net.hybridize()
    x = mx.nd.array(np.random.RandomState(1).uniform(-1, 1, (4, 3, 16, 16)))
    assert net(x).shape == (4, 10)
    label = mx.nd.array([1, 2, 3, 4])
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    before = {k: p.data().asnumpy().copy() for k, p in net.collect_params().items()}
    with mx.autograd.record():
        loss = loss_fn(net(x), label)
    loss.backward()
    trainer.step(4)
    moved = [k for k, p in net.collect_params().items()
             if p.grad_req != "null" and not np.array_equal(p.data().asnumpy(), before[k])]
    trainable = [k for k, p in net.collect_params().items() if p.grad_req != "null"]
    assert moved == trainable
    # the input BatchNorm of v2 has neither scale nor shift: gamma fixed at 1
    gamma = net.collect_params()["resnetv20_batchnorm0_gamma"]
    assert gamma.grad_req == "null"
