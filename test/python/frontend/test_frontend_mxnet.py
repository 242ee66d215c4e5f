"""Against MXNet 1.9.1 itself, when the side venv .venv-mxnet (mxnet==1.9.1,
git-ignored; see test/Inputs/mxnet-params/README.md) exists; skipped
otherwise (CI has no MXNet).

A checkpoint saved by mxc loads in MXNet and gives the same forward output,
and one saved by MXNet loads in mxc and does too.
"""
import os
import subprocess
import textwrap

import numpy as np
import pytest

import mxc as mx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MXNET_PY = os.path.join(ROOT, ".venv-mxnet", "bin", "python")

pytestmark = pytest.mark.skipif(not os.path.exists(MXNET_PY),
                                reason="no .venv-mxnet (mxnet==1.9.1) here")

MXNET_SCRIPT = textwrap.dedent("""
    import sys, numpy as np, mxnet as mx
    d = sys.argv[1]
    x = np.load(d + '/x.npy')
    # 1. mxc's checkpoint, run by MXNet.
    sym, arg, aux = mx.model.load_checkpoint(d + '/mxc', 0)
    exe = sym.simple_bind(mx.cpu(), data=x.shape, grad_req='null')
    exe.copy_params_from(arg, aux)
    np.save(d + '/mxnet_out.npy', exe.forward(is_train=False, data=mx.nd.array(x))[0].asnumpy())
    # 2. MXNet's checkpoint, for mxc.
    mx.random.seed(7)
    data = mx.sym.var('data')
    c = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, pad=(1, 1), name='c1')
    b = mx.sym.BatchNorm(c, fix_gamma=False, name='bn1')
    r = mx.sym.Activation(b, act_type='relu', name='r1')
    p = mx.sym.Pooling(r, kernel=(2, 2), stride=(2, 2), pool_type='avg', name='p1')
    f = mx.sym.FullyConnected(mx.sym.Flatten(p), num_hidden=5, name='f1')
    net = mx.sym.softmax(f, axis=1, name='sm')
    exe = net.simple_bind(mx.cpu(), data=x.shape, grad_req='null')
    for name, a in list(exe.arg_dict.items()) + list(exe.aux_dict.items()):
        if name != 'data':
            a[:] = mx.nd.random.uniform(0.5, 1.5, shape=a.shape) if 'var' in name \\
                else mx.nd.random.normal(0, 0.5, shape=a.shape)
    out = exe.forward(is_train=False, data=mx.nd.array(x))[0].asnumpy()
    arg = {k: v for k, v in exe.arg_dict.items() if k != 'data'}
    mx.model.save_checkpoint(d + '/mxnet', 0, net, arg, exe.aux_dict)
    np.save(d + '/mxnet_own_out.npy', out)
""")


def lenet_like():
    data = mx.sym.var("data")
    c = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, name="conv1")
    b = mx.sym.BatchNorm(c, fix_gamma=False, name="bn1")
    a = mx.sym.Activation(b, act_type="tanh", name="act1")
    p = mx.sym.Pooling(a, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
    f = mx.sym.FullyConnected(mx.sym.Flatten(p), num_hidden=6, name="fc1")
    return mx.sym.SoftmaxOutput(f, name="softmax")


def test_checkpoints_both_ways(tmp_path):
    d = str(tmp_path)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 1, 8, 8)).astype(np.float32)
    np.save(d + "/x.npy", x)
    with mx.NameManager():
        net = lenet_like()
    exe = net.simple_bind(mx.cpu(), data=x.shape)
    for name, a in list(exe.arg_dict.items()) + list(exe.aux_dict.items()):
        if name in ("data", "softmax_label"):
            continue
        lo = 0.5 if "var" in name else -0.5
        a[:] = rng.uniform(lo, lo + 1, a.shape).astype(np.float32)
    ours = exe.forward(data=mx.nd.array(x))[0].asnumpy()
    net.save(d + "/mxc-symbol.json")
    params = {"arg:" + k: v for k, v in exe.arg_dict.items() if k not in ("data", "softmax_label")}
    params.update({"aux:" + k: v for k, v in exe.aux_dict.items()})
    mx.nd.save(d + "/mxc-0000.params", params)

    subprocess.run([MXNET_PY, "-c", MXNET_SCRIPT, d], check=True, cwd=d,
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    np.testing.assert_allclose(np.load(d + "/mxnet_out.npy"), ours, rtol=1e-5, atol=1e-6)

    sym = mx.sym.load(d + "/mxnet-symbol.json")
    loaded = mx.nd.load(d + "/mxnet-0000.params")
    arg = {k[4:]: v for k, v in loaded.items() if k.startswith("arg:")}
    aux = {k[4:]: v for k, v in loaded.items() if k.startswith("aux:")}
    exe2 = sym.simple_bind(mx.cpu(), data=x.shape)
    exe2.copy_params_from(arg, aux)
    got = exe2.forward(data=mx.nd.array(x))[0].asnumpy()
    np.testing.assert_allclose(got, np.load(d + "/mxnet_own_out.npy"), rtol=1e-5, atol=1e-6)
    # And mxc writes MXNet's symbol file back byte for byte.
    with open(d + "/mxnet-symbol.json") as f:
        assert sym.tojson() == f.read()
