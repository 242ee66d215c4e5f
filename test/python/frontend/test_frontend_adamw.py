"""mx.nd.contrib's AdamW updates (numpy on the host, mxc._update_ops) and
mx.optimizer.contrib.GroupAdaGrad: MXNet's formulas, the skipped update
for a non-finite or zero rescale_grad, and MXNet 1.9.1 itself where the
side venv exists."""
import json
import os
import subprocess
import textwrap

import numpy as np
import pytest

import mxc as mx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MXNET_PY = os.path.join(ROOT, ".venv-mxnet", "bin", "python")
R = np.random.default_rng(5)


@pytest.fixture(autouse=True)
def _fresh_rng():
    """Each test draws the same arrays whichever tests run before it (CI
    has no side venv, so the MXNet comparison is skipped there)."""
    global R
    R = np.random.default_rng(5)
KW = dict(lr=0.9, eta=0.8, wd=0.05, epsilon=1e-8, beta1=0.9, beta2=0.999, clip_gradient=3.0)


def arrays(shape=(3, 4)):
    return [R.uniform(lo, 1, shape).astype(np.float32) for lo in (-1, -1, 0, 0)]


def reference(w, g, m, v, rescale, lr, eta, wd, epsilon, beta1, beta2, clip_gradient,
              multi=False):
    """MXNet's step; `multi`: the multi-tensor kernel's beta * (m - g) + g
    form, which rounds differently in float32 where v is close to g * g."""
    g = np.clip(rescale * g, -clip_gradient, clip_gradient)
    if multi:
        m = beta1 * (m - g) + g
        v = beta2 * (v - g * g) + g * g
    else:
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
    return w - eta * (lr * m / (np.sqrt(v) + epsilon) + wd * w), m, v


def test_adamw_update():
    w, g, m, v = arrays()
    nd = [mx.nd.array(a) for a in (w, g, m, v)]
    mx.nd.contrib.adamw_update(*nd, mx.nd.array([2.0]), out=nd[0], **KW)
    for got, want in zip((nd[0], nd[2], nd[3]), reference(w, g, m, v, 2.0, **KW)):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    for bad in (np.nan, np.inf, 0.0):    # skipped: nothing changes
        before = [a.asnumpy().copy() for a in nd]
        mx.nd.contrib.adamw_update(*nd, mx.nd.array([bad]), out=nd[0], **KW)
        for a, b in zip(nd, before):
            np.testing.assert_array_equal(a.asnumpy(), b)


def test_mp_and_multi_adamw_update():
    w, g, m, v = arrays()
    w16, g16 = mx.nd.array(w).astype("float16"), mx.nd.array(g).astype("float16")
    w32, mm, vv = mx.nd.array(w16.asnumpy().astype(np.float32)), mx.nd.array(m), mx.nd.array(v)
    want = reference(w16.asnumpy().astype(np.float32), g16.asnumpy().astype(np.float32), m, v,
                     1.5, **KW)
    mx.nd.contrib.mp_adamw_update(w16, g16, mm, vv, w32, 1.5, out=w16, **KW)
    np.testing.assert_allclose(w32.asnumpy(), want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w16.asnumpy(), want[0].astype(np.float16), rtol=1e-3)
    sets = [arrays((2, 3)), arrays((4,))]
    nds = [[mx.nd.array(a) for a in s] for s in sets]
    kw = {k: v for k, v in KW.items() if k not in ("lr", "eta", "wd")}
    mx.nd.contrib.multi_adamw_update([s[0] for s in nds], [s[1] for s in nds],
                                     [s[2] for s in nds], [s[3] for s in nds],
                                     mx.nd.array([1.0]), lrs=[0.5, 0.7], wds=[0.0, 0.1],
                                     etas=[1.0, 0.9], out=[s[0] for s in nds], **kw)
    for s, a, (lr, wd, eta) in zip(nds, sets, ((0.5, 0.0, 1.0), (0.7, 0.1, 0.9))):
        want = reference(*a, 1.0, lr=lr, eta=eta, wd=wd, multi=True, **kw)
        np.testing.assert_allclose(s[0].asnumpy(), want[0], rtol=1e-5, atol=1e-6)


def test_group_adagrad():
    w, g = arrays()[:2]
    opt = mx.optimizer.contrib.GroupAdaGrad(learning_rate=0.1, eps=1e-6, rescale_grad=0.5)
    weight = mx.nd.array(w)
    state = opt.create_state(0, weight)
    assert state.shape == (3, 1)
    opt.update(0, weight, mx.nd.array(g), state)
    hist = np.mean((0.5 * g) ** 2, axis=1, keepdims=True)
    np.testing.assert_allclose(state.asnumpy(), hist, rtol=1e-6)
    np.testing.assert_allclose(weight.asnumpy(), w - 0.1 * 0.5 * g / np.sqrt(hist + 1e-6),
                               rtol=1e-5)
    with pytest.raises(mx.MXNetError, match="weight decay"):
        mx.optimizer.contrib.GroupAdaGrad(wd=0.1).update(0, weight, mx.nd.array(g), state)


MXNET_SCRIPT = textwrap.dedent("""
    import sys, json, numpy as np, mxnet as mx
    z = np.load(sys.argv[1])
    kw = json.loads(sys.argv[2])
    a = [mx.nd.array(z['a%d' % i]) for i in range(4)]
    mx.nd.contrib.adamw_update(*a, mx.nd.array([2.0]), out=a[0], **kw)
    np.save(sys.argv[3], np.stack([x.asnumpy() for x in (a[0], a[2], a[3])]))
""")


@pytest.mark.skipif(not os.path.exists(MXNET_PY), reason="no .venv-mxnet (mxnet==1.9.1) here")
def test_adamw_matches_mxnet(tmp_path):
    ins = arrays()
    np.savez(str(tmp_path / "in.npz"), **{"a%d" % i: a for i, a in enumerate(ins)})
    p = subprocess.run([MXNET_PY, "-c", MXNET_SCRIPT, str(tmp_path / "in.npz"), json.dumps(KW),
                        str(tmp_path / "out.npy")], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    ref = np.load(str(tmp_path / "out.npy"))
    nd = [mx.nd.array(a) for a in ins]
    mx.nd.contrib.adamw_update(*nd, mx.nd.array([2.0]), out=nd[0], **KW)
    for got, want in zip((nd[0], nd[2], nd[3]), ref):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6, atol=1e-7)


def test_multi_adamw_without_out_leaves_the_weights():
    s = arrays((2, 3))
    nd = [mx.nd.array(a) for a in s]
    kw = {k: v for k, v in KW.items() if k not in ("lr", "eta", "wd")}
    new = mx.nd.contrib.multi_adamw_update([nd[0]], [nd[1]], [nd[2]], [nd[3]], 1.0, lrs=[0.5],
                                           wds=[0.0], etas=[1.0], **kw)
    np.testing.assert_array_equal(nd[0].asnumpy(), s[0])          # unchanged
    want = reference(*s, 1.0, lr=0.5, eta=1.0, wd=0.0, multi=True, **kw)
    np.testing.assert_allclose(new[0].asnumpy(), want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(nd[2].asnumpy(), want[1], rtol=1e-5, atol=1e-6)  # mean in place
