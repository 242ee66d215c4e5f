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


# The same construction code, run by MXNet and by mxc: their tojson() must be
# byte-identical (operator names, attribute spellings, auto-created inputs,
# hidden attributes, node order).
GRAPH_SRC = textwrap.dedent("""
    data = mx.sym.Variable('data', shape=(2, 3, 8, 8), lr_mult=0.5, wd_mult=2, dtype='float32')
    c = mx.sym.Convolution(data, kernel=(3, 3), num_filter=8, pad=(1, 1), stride=(1, 1),
                           no_bias=True, name='c1')
    b = mx.sym.BatchNorm(c, fix_gamma=False, eps=1e-3, momentum=0.8, name='bn1')
    r = mx.sym.LeakyReLU(b, act_type='leaky', slope=0.2)
    l = mx.sym.LRN(r, nsize=3, alpha=1e-4, beta=0.75)
    # (avg: the oneDNN build of MXNet gives max pooling a hidden workspace output)
    p = mx.sym.Pooling(l, kernel=(2, 2), stride=(2, 2), pool_type='avg', pooling_convention='full')
    d = mx.sym.Dropout(p, p=0.25)
    t = mx.sym.transpose(d, axes=(0, 2, 3, 1))
    e = mx.sym.expand_dims(mx.sym.sum(t, axis=(1, 2), keepdims=False), axis=1)
    s = mx.sym.slice_axis(mx.sym.Reshape(e, shape=(0, -1)), axis=1, begin=0, end=None)
    h = mx.sym.Activation(mx.sym.FullyConnected(mx.sym.Flatten(p), num_hidden=5, flatten=True),
                          act_type='tanh')
    k = mx.sym.Concat(s, h, dim=1)
    w = mx.sym.where(k > 0, mx.sym.clip(k, a_min=-1, a_max=1), mx.sym.zeros_like(k))
    o = mx.sym.one_hot(mx.sym.argmax(w, axis=1), depth=13, on_value=2.0, dtype='float16')
    z = mx.sym.Cast(o, dtype='float32') * 0.5 + mx.sym.broadcast_mul(w, mx.sym.mean(w, axis=1, keepdims=True))
    out = mx.sym.Group([mx.sym.SoftmaxOutput(z, name='softmax', normalization='valid'),
                        mx.sym.log_softmax(w, axis=-1, temperature=2.0), 2 ** mx.sym.exp(-w) / 3])
    RESULT = out.tojson()
""")


def test_construction_matches_mxnet_byte_for_byte(tmp_path):
    script = ("import mxnet as mx\nwith mx.name.NameManager():\n"
              + textwrap.indent(GRAPH_SRC, "    ")
              + "\nopen(%r, 'w').write(RESULT)\n" % str(tmp_path / "mxnet.json"))
    subprocess.run([MXNET_PY, "-c", script], check=True, cwd=str(tmp_path),
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    scope = {"mx": mx}
    with mx.NameManager():
        exec(GRAPH_SRC, scope)
    with open(tmp_path / "mxnet.json") as f:
        assert scope["RESULT"] == f.read()


GRAD_SCRIPT = textwrap.dedent("""
    import sys, numpy as np, mxnet as mx
    d = sys.argv[1]
    sym = mx.sym.load(d + '/net-symbol.json')
    params = mx.nd.load(d + '/net-0000.params')
    x = np.load(d + '/x.npy'); label = np.load(d + '/label.npy')
    exe = sym.simple_bind(mx.cpu(), data=x.shape, grad_req='write')
    exe.copy_params_from({k[4:]: v for k, v in params.items() if k.startswith('arg:')},
                         {k[4:]: v for k, v in params.items() if k.startswith('aux:')})
    out = exe.forward(is_train=True, data=mx.nd.array(x), softmax_label=mx.nd.array(label))
    exe.backward()
    res = {'out': out[0]}
    res.update({'grad:' + k: v for k, v in exe.grad_dict.items()})
    res.update({'aux:' + k: v for k, v in exe.aux_dict.items()})
    mx.nd.save(d + '/mxnet_train.params', res)
""")


def test_training_step_matches_mxnet(tmp_path):
    """forward(is_train=True) + backward() of a conv/BatchNorm/FC net: outputs,
    every gradient and the updated moving statistics, as MXNet computes them."""
    d = str(tmp_path)
    rng = np.random.default_rng(11)
    x = rng.standard_normal((4, 1, 8, 8)).astype(np.float32)
    label = np.array([0, 5, 2, 3], np.float32)
    np.save(d + "/x.npy", x)
    np.save(d + "/label.npy", label)
    with mx.NameManager():
        net = lenet_like()
    exe = net.simple_bind(mx.cpu(), data=x.shape)
    for name, a in list(exe.arg_dict.items()) + list(exe.aux_dict.items()):
        if name not in ("data", "softmax_label"):
            lo = 0.5 if "var" in name else -0.5
            a[:] = rng.uniform(lo, lo + 1, a.shape).astype(np.float32)
    net.save(d + "/net-symbol.json")
    params = {"arg:" + k: v.copy() for k, v in exe.arg_dict.items() if k not in ("data", "softmax_label")}
    params.update({"aux:" + k: v.copy() for k, v in exe.aux_dict.items()})
    mx.nd.save(d + "/net-0000.params", params)

    subprocess.run([MXNET_PY, "-c", GRAD_SCRIPT, d], check=True, cwd=d,
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    want = mx.nd.load(d + "/mxnet_train.params")

    out = exe.forward(is_train=True, data=mx.nd.array(x), softmax_label=mx.nd.array(label))
    exe.backward()
    np.testing.assert_allclose(out[0].asnumpy(), want["out"].asnumpy(), rtol=1e-4, atol=1e-5)
    for name, g in exe.grad_dict.items():
        np.testing.assert_allclose(g.asnumpy(), want["grad:" + name].asnumpy(), rtol=1e-3,
                                   atol=1e-5, err_msg=name)
    for name, a in exe.aux_dict.items():
        np.testing.assert_allclose(a.asnumpy(), want["aux:" + name].asnumpy(), rtol=1e-4,
                                   atol=1e-6, err_msg=name)
