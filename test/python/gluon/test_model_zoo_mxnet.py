"""model_zoo.vision against MXNet 1.9.1 (skipped where .venv-mxnet is
absent): every network has MXNet's parameter names (in order) and shapes,
and with MXNet's weights (loaded from MXNet's save_parameters file) gives
MXNet's output. Inputs are the smallest sizes the networks take (32x32;
AlexNet 64; DenseNet / SqueezeNet 224; Inception-v3 299)."""
import json
import os
import textwrap

import numpy as np
import pytest

from mxnet_side import needs_mxnet, run_mxnet, run_mxc

pytestmark = needs_mxnet

NAMES = ["resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1",
         "resnet18_v2", "resnet34_v2", "resnet50_v2", "resnet101_v2", "resnet152_v2",
         "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn", "vgg16_bn", "vgg19_bn",
         "alexnet", "densenet121", "densenet161", "densenet169", "densenet201",
         "squeezenet1.0", "squeezenet1.1", "inceptionv3",
         "mobilenet1.0", "mobilenet0.75", "mobilenet0.5", "mobilenet0.25",
         "mobilenetv2_1.0", "mobilenetv2_0.75", "mobilenetv2_0.5", "mobilenetv2_0.25"]

# Runs under both: MXNet writes the weights, mxc reads them back.
ZOO = textwrap.dedent("""
    import sys, json, importlib, numpy as np
    mx = importlib.import_module(sys.argv[1])
    d, names = sys.argv[2], sys.argv[3].split(',')
    from_mxnet = sys.argv[1] == 'mxnet'
    vision = mx.gluon.model_zoo.vision
    def size(n):
        if n == 'inceptionv3': return 299
        if n.startswith(('densenet', 'squeezenet')): return 224
        if n == 'alexnet': return 64
        return 32
    report = {}
    for n in names:
        net = vision.get_model(n, classes=7)
        net.initialize(mx.init.Xavier())
        x = np.random.RandomState(1).uniform(-1, 1, (1, 3, size(n), size(n))).astype('float32')
        f = '%s/%s.params' % (d, n)
        if from_mxnet:
            net(mx.nd.array(x))
            rng = np.random.RandomState(2)
            for k, p in sorted(net._collect_params_with_prefix().items()):
                if k.endswith('running_var'):
                    p.set_data(mx.nd.array(rng.uniform(0.5, 1.5, p.shape)))
                elif k.endswith(('running_mean', 'beta', 'bias')):
                    p.set_data(mx.nd.array(rng.normal(0, 0.1, p.shape)))
            net.save_parameters(f)
        else:
            net.load_parameters(f)
        net.hybridize()
        out = net(mx.nd.array(x)).asnumpy()
        np.save('%s/%s-%s.npy' % (d, n, sys.argv[1]), out)
        report[n] = [[p.name, list(p.shape)] for p in net.collect_params().values()]
    json.dump(report, open('%s/%s.json' % (d, sys.argv[1]), 'w'))
""")


def _check(tmp_path, names):
    d = str(tmp_path)
    run_mxnet(ZOO, "mxnet", d, ",".join(names), timeout=1800)
    run_mxc(ZOO, "mxc", d, ",".join(names), timeout=1800)
    ref = json.load(open(os.path.join(d, "mxnet.json")))
    got = json.load(open(os.path.join(d, "mxc.json")))
    for n in names:
        assert got[n] == ref[n], n
        a = np.load(os.path.join(d, "%s-mxnet.npy" % n))
        b = np.load(os.path.join(d, "%s-mxc.npy" % n))
        assert a.shape == (1, 7)
        scale = float(np.abs(a).max())
        np.testing.assert_allclose(b, a, rtol=1e-3, atol=1e-4 * max(scale, 1.0), err_msg=n)


@pytest.mark.parametrize("family", ["resnet", "vgg", "alexnet", "densenet", "squeezenet",
                                    "mobilenet", "inception"])
def test_model_zoo_matches_mxnet(tmp_path, family):
    names = [n for n in NAMES if n.startswith(family)]
    _check(tmp_path, names)
