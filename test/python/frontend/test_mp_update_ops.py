"""The multi-precision and multi-tensor update operators (mp_sgd_update,
mp_sgd_mom_update, mp_nag_mom_update, multi_(mp_)sgd(_mom)_update and their
preloaded_ forms, multi_sum_sq, multi_lars, mp_lamb_update_phase1/2; numpy on
the host, mxc._update_ops) and the LARS optimizer: MXNet's formulas, and
MXNet 1.9.1 itself on the same script where the side venv exists."""
import json
import os
import subprocess

import numpy as np
import pytest

import mxc as mx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MXNET_PY = os.path.join(ROOT, ".venv-mxnet", "bin", "python")

# One script, run by mxc here and by MXNet 1.9.1 in the side venv: every
# operator on the same arrays; it prints every array it changed.
SCRIPT = r'''
import json, sys
import numpy as np
import importlib
mx = importlib.import_module(sys.argv[1])
R = np.random.RandomState(3)
def arr(shape=(3, 4), dtype="float32", lo=-1.0):
    return mx.nd.array(R.uniform(lo, 1, shape), dtype=dtype)
res = {}
def keep(name, *arrays):
    res[name] = [a.asnumpy().astype("float64").ravel().tolist() for a in arrays]
kw = dict(lr=0.1, wd=0.01, rescale_grad=0.5)
for clip in (-1.0, 0.2):
    w16, g16 = arr(dtype="float16"), arr(dtype="float16")
    w32, mom = w16.astype("float32"), arr(lo=0.0)
    mx.nd.mp_sgd_update(w16, g16, w32, clip_gradient=clip, out=w16, **kw)
    keep("mp_sgd %s" % clip, w16, w32)
    mx.nd.mp_sgd_mom_update(w16, g16, mom, w32, momentum=0.9, clip_gradient=clip, out=w16, **kw)
    keep("mp_sgd_mom %s" % clip, w16, mom, w32)
    mx.nd.mp_nag_mom_update(w16, g16, mom, w32, momentum=0.9, clip_gradient=clip, out=w16, **kw)
    keep("mp_nag_mom %s" % clip, w16, mom, w32)
ws, gs, ms = [arr() for _ in range(2)], [arr() for _ in range(2)], [arr(lo=0.0) for _ in range(2)]
mx.nd.multi_sgd_update(ws[0], gs[0], ws[1], gs[1], lrs=(0.1, 0.2), wds=(0.0, 0.01),
                       num_weights=2, out=ws, rescale_grad=0.5)
keep("multi_sgd", *ws)
mx.nd.multi_sgd_mom_update(ws[0], gs[0], ms[0], ws[1], gs[1], ms[1], lrs=(0.1, 0.2),
                           wds=(0.0, 0.01), momentum=0.9, num_weights=2, out=ws)
keep("multi_sgd_mom", *(ws + ms))
w16s = [arr(dtype="float16") for _ in range(2)]
w32s = [w.astype("float32") for w in w16s]
g16s = [arr(dtype="float16") for _ in range(2)]
mx.nd.multi_mp_sgd_mom_update(w16s[0], g16s[0], ms[0], w32s[0], w16s[1], g16s[1], ms[1],
                              w32s[1], lrs=(0.1, 0.2), wds=(0.0, 0.01), momentum=0.9,
                              num_weights=2, out=w16s, clip_gradient=0.3)
keep("multi_mp_sgd_mom", *(w16s + w32s + ms))
mx.nd.preloaded_multi_sgd_update(ws[0], gs[0], ws[1], gs[1], mx.nd.array([0.1, 0.2]),
                                 mx.nd.array([0.0, 0.01]), num_weights=2, out=ws)
keep("preloaded_multi_sgd", *ws)
mx.nd.preloaded_multi_mp_sgd_update(w16s[0], g16s[0], w32s[0], w16s[1], g16s[1], w32s[1],
                                    mx.nd.array([0.1, 0.2]), mx.nd.array([0.0, 0.01]),
                                    num_weights=2, out=w16s)
keep("preloaded_multi_mp_sgd", *(w16s + w32s))
ssq = mx.nd.multi_sum_sq(ws[0], gs[1], num_arrays=2)
keep("multi_sum_sq", ssq)
lrs = mx.nd.multi_lars(mx.nd.array([0.1, 0.2]), ssq, mx.nd.array([4.0, 0.0]),
                       mx.nd.array([0.01, 0.0]), eta=0.02, eps=1e-8, rescale_grad=0.5)
keep("multi_lars", lrs)
w16, g16 = arr(dtype="float16"), arr(dtype="float16")
w32, mean, var = w16.astype("float32"), arr(lo=0.0), arr(lo=0.0)
g = mx.nd.mp_lamb_update_phase1(w16, g16, mean, var, w32, t=3, wd=0.01, rescale_grad=0.5)
keep("mp_lamb1", g, mean, var)
r1, r2 = mx.nd.norm(w32), mx.nd.norm(g)
mx.nd.mp_lamb_update_phase2(w16, g, r1, r2, w32, lr=0.1, out=w16)
keep("mp_lamb2", w16, w32)
opt = mx.optimizer.LARS(learning_rate=0.1, momentum=0.9, eta=0.05, wd=0.01, rescale_grad=0.5,
                        param_idx2name={0: "fc_weight", 1: "fc_bias"})
upd = mx.optimizer.get_updater(opt)
pw, pb = arr(), arr((3,))
for step in range(3):
    upd(0, arr(), pw)
    upd(1, arr((3,)), pb)
keep("lars", pw, pb)
# (MXNet 1.9.1's DCASGD with momentum fails: `if mom:` on an NDArray)
for name, kw in (("dcasgd", dict(lamda=0.1)), ("ccsgd", dict(momentum=0.9))):
    opt = mx.optimizer.create(name, learning_rate=0.1, wd=0.01, rescale_grad=0.5, **kw)
    w = arr()
    st = opt.create_state(0, w)
    for _ in range(3):
        opt.update(0, w, arr(), st)
    keep(name, w)
print(json.dumps(res))
'''


def run_script(module, python=None):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if python is None:  # mxc, from where this process imported it
        python = os.sys.executable
        env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(mx.__file__)))
    out = subprocess.run([python, "-c", SCRIPT, module], env=env, cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert out.returncode == 0, out.stderr.decode()[-3000:]
    return json.loads(out.stdout.decode().strip().splitlines()[-1])


def test_mp_sgd_formulas():
    f = np.float32
    w16 = mx.nd.array([0.5, -0.25, 1.0], dtype="float16")
    g16 = mx.nd.array([1.0, -2.0, 0.5], dtype="float16")
    w32 = w16.astype("float32")
    mom = mx.nd.array([0.1, 0.0, -0.2])
    want32 = w32.asnumpy().copy()
    want_mom = f(0.9) * mom.asnumpy() - f(0.1) * f(0.01) * want32 - \
        f(0.1) * np.clip(f(0.5) * g16.asnumpy().astype(f), -0.3, 0.3)
    want32 = want32 + want_mom
    mx.nd.mp_sgd_mom_update(w16, g16, mom, w32, lr=0.1, momentum=0.9, wd=0.01, rescale_grad=0.5,
                            clip_gradient=0.3, out=w16)
    np.testing.assert_allclose(mom.asnumpy(), want_mom, rtol=1e-6)
    np.testing.assert_allclose(w32.asnumpy(), want32, rtol=1e-6)
    assert w16.dtype == np.float16
    np.testing.assert_array_equal(w16.asnumpy(), want32.astype(np.float16))
    with pytest.raises(mx.MXNetError, match="num_weights=2"):
        mx.nd.multi_sgd_update(w32, mom, w32, lrs=(0.1, 0.1), wds=(0, 0), num_weights=2)


def test_multi_sgd_in_the_weights_type():
    # without master copies the step runs in the weight's own type (float64
    # keeps its precision)
    w = mx.nd.array([1.0 + 1e-12, 2.0], dtype="float64")
    g = mx.nd.array([1e-13, 0.0], dtype="float64")
    mx.nd.multi_sgd_update(w, g, lrs=(1.0,), wds=(0.0,), num_weights=1, out=[w])
    assert w.dtype == np.float64
    np.testing.assert_array_equal(w.asnumpy(), [1.0 + 1e-12 - 1e-13, 2.0])


def test_lars_scales_lr_by_trust_ratio():
    # plain SGD with lr * eta ||w|| / (||rescale g|| + wd ||w||) on a weight;
    # a bias keeps lr
    opt = mx.optimizer.LARS(learning_rate=0.1, eta=0.5, wd=0.0, rescale_grad=1.0,
                            param_idx2name={0: "w_weight", 1: "w_bias"})
    w, b = mx.nd.array([3.0, 4.0]), mx.nd.array([1.0, 1.0])
    g = mx.nd.array([0.6, 0.8])
    opt.update(0, w, g, opt.create_state(0, w))
    opt.update(1, b, g, opt.create_state(1, b))
    lr = 0.1 * 0.5 * 5.0 / 1.0
    np.testing.assert_allclose(w.asnumpy(), [3.0 - lr * 0.6, 4.0 - lr * 0.8], rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), [1.0 - 0.1 * 0.6, 1.0 - 0.1 * 0.8], rtol=1e-6)


def test_dcasgd_with_momentum():
    opt = mx.optimizer.DCASGD(learning_rate=0.1, momentum=0.5, lamda=0.2)
    w = mx.nd.array([1.0, -2.0])
    st = opt.create_state(0, w)
    w_prev, mom = np.array([1.0, -2.0], np.float32), np.zeros(2, np.float32)
    for g in ([0.5, 1.0], [-1.0, 0.25]):
        wn = w.asnumpy()
        g = np.array(g, np.float32)
        mom = 0.5 * mom - 0.1 * (g + 0.2 * g * g * (wn - w_prev))
        w_prev = wn
        opt.update(0, w, mx.nd.array(g), st)
        np.testing.assert_allclose(w.asnumpy(), wn + mom, rtol=1e-6)


def test_script_runs_on_mxc():
    res = run_script("mxc")
    assert len(res) == 18


@pytest.mark.skipif(not os.path.exists(MXNET_PY), reason="no .venv-mxnet (mxnet==1.9.1) here")
def test_same_results_as_mxnet():
    ours, theirs = run_script("mxc"), run_script("mxnet", MXNET_PY)
    assert sorted(ours) == sorted(theirs)
    for name in ours:
        for k, (a, b) in enumerate(zip(ours[name], theirs[name])):
            np.testing.assert_allclose(a, b, rtol=2e-3, atol=1e-4, err_msg="%s[%d]" % (name, k))
