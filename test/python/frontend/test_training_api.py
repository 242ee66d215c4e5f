"""The training API of `import mxc as mx`: mx.init, mx.optimizer,
mx.lr_scheduler, mx.metric, mx.io, mx.callback, mx.model checkpoints and
mx.mod.Module, against numpy (MXNet 1.x's formulas written out here)."""
import logging
import os
import subprocess
import sys

import numpy as np
import pytest

import mxc as mx

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from mxc_testing import mxc_binary  # noqa: E402


# -- mx.optimizer ----------------------------------------------------------------------

def _steps(rng, n, shape):
    return [rng.standard_normal(shape).astype(np.float32) for _ in range(n)]


@pytest.mark.parametrize("momentum,wd,clip", [(0.0, 0.0, None), (0.9, 1e-3, None),
                                              (0.9, 1e-2, 0.5)])
def test_sgd_update_formula(momentum, wd, clip):
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((4, 3)).astype(np.float32)
    grads = _steps(rng, 5, (4, 3))
    opt = mx.optimizer.create("sgd", learning_rate=0.1, momentum=momentum, wd=wd,
                              rescale_grad=0.25, clip_gradient=clip,
                              param_idx2name={0: "fc_weight"})
    upd = mx.optimizer.get_updater(opt)
    w = mx.nd.array(w0)
    ref, mom = w0.astype(np.float64), np.zeros_like(w0, dtype=np.float64)
    for g in grads:
        upd(0, mx.nd.array(g), w)
        gg = 0.25 * g.astype(np.float64)
        if clip is not None:
            gg = np.clip(gg, -clip, clip)
        # MXNet's sgd_mom_update: mom = momentum*mom - lr*(g + wd*w); w += mom
        mom = momentum * mom - 0.1 * (gg + wd * ref)
        ref = ref + mom
    np.testing.assert_allclose(w.asnumpy(), ref, rtol=1e-5, atol=1e-6)
    assert opt.num_update == 5


def test_sgd_wd_mult_and_lr_mult():
    # wd_mult is 0 for names not ending in _weight/_gamma; __lr_mult__ from the symbol
    data = mx.sym.var("data")
    wvar = mx.sym.var("fc_weight", lr_mult=0.5)
    net = mx.sym.FullyConnected(data, weight=wvar, num_hidden=2, name="fc")
    opt = mx.optimizer.SGD(learning_rate=1.0, wd=0.1, sym=net,
                           param_idx2name={0: "fc_weight", 1: "fc_bias"})
    assert opt._get_lr(0) == 0.5 and opt._get_lr(1) == 1.0
    assert opt._get_wd(0) == pytest.approx(0.1) and opt._get_wd(1) == 0.0
    b = mx.nd.ones((2,))
    opt.update(1, b, mx.nd.zeros((2,)), None)   # zero grad, no decay on a bias
    np.testing.assert_array_equal(b.asnumpy(), np.ones(2))


def test_adam_update_formula():
    rng = np.random.default_rng(1)
    w0 = rng.standard_normal((5,)).astype(np.float32)
    grads = _steps(rng, 6, (5,))
    opt = mx.optimizer.Optimizer.create_optimizer("Adam", learning_rate=0.01, wd=1e-2,
                                                  rescale_grad=0.5,
                                                  param_idx2name={3: "x_weight"})
    upd = mx.optimizer.get_updater(opt)
    w = mx.nd.array(w0)
    ref = w0.astype(np.float64)
    m = np.zeros(5)
    v = np.zeros(5)
    for t, g in enumerate(grads, 1):
        upd(3, mx.nd.array(g), w)
        lr = 0.01 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        gg = 0.5 * g + 1e-2 * ref
        m = 0.9 * m + 0.1 * gg
        v = 0.999 * v + 0.001 * gg * gg
        ref = ref - lr * m / (np.sqrt(v) + 1e-8)
    np.testing.assert_allclose(w.asnumpy(), ref, rtol=1e-5, atol=1e-6)


# The update operators with compiled kernels (mxc._update_ops.COMPILED):
# (mx.nd op, number of states, hyper-parameters, states non-negative).
COMPILED_UPDATES = [
    ("signsgd_update", 0, {"lr": 0.05, "wd": 0.01}, False),
    ("signum_update", 1, {"lr": 0.05, "momentum": 0.9, "wd": 0.01, "rescale_grad": 0.5,
                          "clip_gradient": 0.7, "wd_lh": 0.02}, False),
    ("nag_mom_update", 1, {"lr": 0.05, "momentum": 0.9, "wd": 0.1, "rescale_grad": 0.5,
                           "clip_gradient": 0.7}, False),
    ("rmsprop_update", 1, {"lr": 0.05, "gamma1": 0.9, "wd": 0.01, "rescale_grad": 0.5,
                           "clip_gradient": 0.7, "clip_weights": 0.9}, True),
    ("rmspropalex_update", 3, {"lr": 0.05, "gamma1": 0.9, "gamma2": 0.8, "wd": 0.01,
                               "clip_weights": 0.9}, True),
    ("ftrl_update", 2, {"lr": 0.1, "lamda1": 0.05, "beta": 1.5, "wd": 0.01,
                        "rescale_grad": 0.5}, True),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op,n_states,kw,positive", COMPILED_UPDATES,
                         ids=[c[0] for c in COMPILED_UPDATES])
def test_compiled_update_ops_are_the_numpy_formulas(op, n_states, kw, positive, dtype):
    """mx.nd's signsgd / signum / nag_mom / rmsprop / rmspropalex / ftrl
    updates on runtime arrays are compiled kernels pushed on the engine (no
    wait for the arrays' pending work); their results are _update_ops'
    numpy formulas bit for bit, in place (out=weight: nag_mom's decay term
    reads the new weight) and not (out=None: a new array, the weight as it
    was, as MXNet's)."""
    from mxc import _update_ops as uo
    from mxc import ndarray as nd
    rng = np.random.default_rng(5)
    kernel = {"signsgd_update": uo.signsgd, "signum_update": uo.signum,
              "nag_mom_update": uo.nag_mom, "rmsprop_update": uo.rmsprop,
              "rmspropalex_update": uo.rmspropalex, "ftrl_update": uo.ftrl}[op]
    w0 = rng.standard_normal((6, 7)).astype(dtype)
    states0 = [rng.standard_normal((6, 7)).astype(dtype) for _ in range(n_states)]
    if positive:  # accumulated squares (rmspropalex: n >= g^2 too)
        states0 = [np.abs(x) + 2.0 if i == 0 else np.abs(x) * 0.3 for i, x in enumerate(states0)]
    for in_place in (True, False):
        w = mx.nd.array(w0, dtype=dtype)
        states = [mx.nd.array(x, dtype=dtype) for x in states0]
        ref_w, ref_states = w0.copy(), [x.copy() for x in states0]
        for step in range(3):
            g = (rng.standard_normal((6, 7)) * 2).astype(dtype)
            params = {k: v for k, v in kw.items() if k != "lr"}
            if op == "nag_mom_update":
                params["inplace"] = in_place
            new = kernel(ref_w, g, *ref_states, kw["lr"], **params)
            out = getattr(mx.nd, op)(w, mx.nd.array(g, dtype=dtype), *states,
                                     out=w if in_place else None, **kw)
            assert out.dtype == dtype and any(  # (the compiled kernel ran)
                k[0] == uo.COMPILED[op] and k[2] == np.dtype(dtype).str and k[5] == in_place
                for k in nd._update_cache), op
            if in_place:
                assert out is w
                ref_w = new
            else:
                assert out is not w
                np.testing.assert_array_equal(w.asnumpy(), ref_w, err_msg="%s: weight" % op)
                np.testing.assert_array_equal(out.asnumpy(), new, err_msg="%s: out" % op)
        np.testing.assert_array_equal(w.asnumpy(), ref_w, err_msg=op)
        for i, (a, b) in enumerate(zip(states, ref_states)):
            np.testing.assert_array_equal(a.asnumpy(), b, err_msg="%s: state %d" % (op, i))


# Optimizers whose update is a compiled kernel on runtime arrays (its numpy
# rule on numpy-backed ones), with the update kind it compiles.
COMPILED_OPTIMIZERS = [
    ("sgd", {"momentum": 0.9}, "sgd_mom"), ("adam", {}, "adam"), ("nag", {"momentum": 0.9},
                                                                    "nag_mom"),
    ("rmsprop", {"centered": True}, "rmspropalex"), ("rmsprop", {}, "rmsprop"),
    ("signum", {"momentum": 0.9}, "signum"), ("ftrl", {}, "ftrl"), ("ftml", {}, "ftml"),
    ("adagrad", {}, "adagrad"), ("adadelta", {}, "adadelta"), ("adamax", {}, "adamax"),
    ("nadam", {}, "nadam"), ("dcasgd", {"momentum": 0.9}, "dcasgd_mom"),
    ("dcasgd", {}, "dcasgd"),
    # a negative momentum: MXNet passes momentum only when positive
    ("sgd", {"momentum": -0.5}, "sgd_mom"), ("nag", {"momentum": -0.5}, "nag_mom"),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,extra,kind", COMPILED_OPTIMIZERS,
                         ids=["%s%s" % (c[0], "".join("-%s%s" % (k, "-neg" if v == -0.5 else "")
                                                     for k, v in c[1].items()))
                              for c in COMPILED_OPTIMIZERS])
def test_compiled_optimizers_are_the_numpy_rules(name, extra, kind, dtype):
    """Each optimizer's update on runtime arrays (a compiled kernel pushed on
    the engine: optimizer._pushed / the mx.nd update ops) gives its numpy
    rule's values (numpy-backed arrays) bit for bit, over steps with weight
    decay, rescaling and clipping; AdaGrad and AdaDelta, whose states are
    float32 whatever the weight, compile for float32 weights only."""
    from mxc import ndarray as nd
    from mxc.ndarray import NDArray
    rng = np.random.default_rng(6)
    w0 = rng.standard_normal((3, 5))
    grads = [rng.standard_normal((3, 5)) * 3 for _ in range(3)]
    compiles = name not in ("adagrad", "adadelta") or dtype == np.float32
    got = []
    for make in (lambda a: mx.nd.array(a, dtype=dtype), lambda a: NDArray(a.astype(dtype))):
        nd._update_cache.clear()
        opt = mx.optimizer.create(name, learning_rate=0.1, wd=0.01, clip_gradient=1.0,
                                  rescale_grad=0.5, **extra)
        upd = mx.optimizer.get_updater(opt)
        w = make(w0)
        for g in grads:
            upd(0, make(g), w)
        assert w.dtype == dtype
        got.append(w.asnumpy())
        ran = {k[0] for k in nd._update_cache}
        assert ran == ({kind} if compiles and w._rt is not None else set()), (ran, w._rt)
    np.testing.assert_array_equal(got[0], got[1])
    assert not np.allclose(got[0], w0)


# Optimizers whose step has a reduction (LAMB's and LARS's norms,
# GroupAdaGrad's row means) or noise (SGLD): (name, hyper-parameters, the
# update kinds compiled, whether bit for bit with the numpy rule).
REDUCING_OPTIMIZERS = [
    ("lamb", {"wd": 0.01, "clip_gradient": 1.0}, {"lamb_phase1", "lamb_phase2"}, False),
    ("lamb", {"bias_correction": False, "lower_bound": 0.5, "upper_bound": 1.5},
     {"lamb_phase1_nbc", "lamb_phase2"}, False),
    ("lars", {"momentum": 0.9, "wd": 0.01, "eta": 0.5, "eps": 1e-3, "clip_gradient": 1.0},
     {"lars_mom"}, False),
    ("lars", {"wd": 0.01, "eta": 0.5}, {"lars"}, False),
    ("groupadagrad", {"clip_gradient": 1.0}, {"group_adagrad"}, False),
    ("sgld", {"wd": 0.01, "clip_gradient": 1.0}, {"sgld"}, True),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,extra,kinds,exact", REDUCING_OPTIMIZERS,
                         ids=["%s-%d" % (c[0], i) for i, c in enumerate(REDUCING_OPTIMIZERS)])
def test_reducing_optimizers_are_compiled(name, extra, kinds, exact, dtype):
    """LAMB, LARS, GroupAdaGrad and SGLD on runtime arrays are compiled
    kernels pushed on the engine (norms and row means reductions on the
    weight's device; SGLD's noise drawn by mx.random as for the numpy rule):
    their numpy rules' values, to the reductions' summation order (SGLD: bit
    for bit; LAMB's float64 norms are float64 on both paths, as MXNet's
    norm()), LARS with a parameter that takes no trust ratio (a bias) too."""
    from mxc import ndarray as nd
    from mxc.ndarray import NDArray
    rng = np.random.default_rng(8)
    w0 = rng.standard_normal((4, 6))
    grads = [rng.standard_normal((4, 6)) * 3 for _ in range(3)]
    for index, pname in ((0, "fc_weight"), (1, "fc_bias")):
        if pname == "fc_bias" and name != "lars":
            continue
        got = []
        for make in (lambda a: mx.nd.array(a, dtype=dtype), lambda a: NDArray(a.astype(dtype))):
            nd._update_cache.clear()
            mx.random.seed(3)
            opt = mx.optimizer.create(name, learning_rate=0.1, rescale_grad=0.5,
                                      param_idx2name={index: pname}, **extra)
            upd = mx.optimizer.get_updater(opt)
            w = make(w0)
            for k, g in enumerate(grads):
                upd(index, make(g), w)
                if k == 1:  # (the states through a save and a load)
                    upd.set_states(upd.get_states())
            assert w.dtype == dtype
            got.append(w.asnumpy())
            ran = {key[0] for key in nd._update_cache}
            assert ran == (kinds if w._rt is not None else set()), (ran, name)
            # (loaded states became runtime arrays again at the next update:
            # the compiled kernels kept running after the load)
            states = upd.states[index]
            states = states if isinstance(states, tuple) else (states,)
            assert all((s._rt is not None) == (w._rt is not None) for s in states
                       if s is not None), name
        if exact:
            np.testing.assert_array_equal(got[0], got[1])
        elif dtype == np.float64 and name != "lars":  # (LARS's norms are float32)
            np.testing.assert_allclose(got[0], got[1], rtol=1e-12, atol=1e-14)
        else:
            np.testing.assert_allclose(got[0], got[1], rtol=1e-5, atol=1e-6)
        assert not np.allclose(got[0], w0)


def test_compiled_lamb_phases_are_the_numpy_formulas():
    """mx.nd.lamb_update_phase1 / lamb_update_phase2 on runtime arrays are
    compiled kernels (phase 1's bias-corrected mean in double, as MXNet's
    kernel); given the same norms, bit for bit _update_ops' formulas, with
    out= the weight (phase 1: the result written over it, as MXNet) and
    not, r1 / r2 of shape (1,) and () with a 0 norm (ratio 1)."""
    from mxc import _update_ops as uo
    from mxc import ndarray as nd
    rng = np.random.default_rng(9)
    for dtype in (np.float32, np.float64):
        w0, g0 = rng.standard_normal((3, 5)).astype(dtype), rng.standard_normal((3, 5))
        m0, v0 = rng.standard_normal((3, 5)).astype(dtype), np.abs(rng.standard_normal((3, 5)))
        for bc in (True, False):
            kw = dict(t=3, wd=0.01, rescale_grad=0.5, clip_gradient=0.8, bias_correction=bc)
            mean, var = m0.copy(), v0.astype(dtype)
            want = uo.lamb_phase1(w0, g0.astype(dtype), mean, var, **kw)
            a = [mx.nd.array(x, dtype=dtype) for x in (w0, g0, m0, v0)]
            r = mx.nd.lamb_update_phase1(*a, **kw)
            np.testing.assert_array_equal(r.asnumpy(), want)
            np.testing.assert_array_equal(a[0].asnumpy(), w0)  # (not written)
            np.testing.assert_array_equal(a[2].asnumpy(), mean)
            np.testing.assert_array_equal(a[3].asnumpy(), var)
            b = [mx.nd.array(x, dtype=dtype) for x in (w0, g0, m0, v0)]
            mx.nd.lamb_update_phase1(*b, out=b[0], **kw)
            np.testing.assert_array_equal(b[0].asnumpy(), want)
            assert ("lamb_phase1" if bc else "lamb_phase1_nbc") in \
                {key[0] for key in nd._update_cache}
        for r1, r2 in ((1.5, 2.5), (0.0, 2.0), (3.0, 0.0)):
            for shape in ((1,), ()):
                for bounds in ({}, {"lower_bound": 2.0, "upper_bound": 2.2}):
                    want = uo.lamb_phase2(w0, g0.astype(dtype), r1, r2, 0.1, **bounds)
                    w = mx.nd.array(w0, dtype=dtype)
                    a1 = mx.nd.array(np.full(shape, r1), dtype=dtype)
                    a2 = mx.nd.array(np.full(shape, r2), dtype=dtype)
                    out = mx.nd.lamb_update_phase2(w, mx.nd.array(g0, dtype=dtype), a1, a2,
                                                   lr=0.1, out=w, **bounds)
                    assert out is w
                    np.testing.assert_array_equal(w.asnumpy(), want, err_msg=(r1, r2, bounds))
        assert "lamb_phase2" in {key[0] for key in nd._update_cache}


def test_compiled_updates_of_0d_weights():
    """Under mx.np_shape() a weight can be 0-d: the compiled updates give a
    0-d result (the learning rate input was (1,), a shape error)."""
    with mx.np_shape(True):
        w, g = mx.nd.array(np.float32(2.0)), mx.nd.array(np.float32(1.0))
        mom = mx.nd.array(np.float32(0.0))
        mx.nd.sgd_mom_update(w, g, mom, lr=0.1, momentum=0.9, out=w)
        assert w.shape == () and mom.shape == ()
        np.testing.assert_allclose([w.asnumpy(), mom.asnumpy()], [1.9, -0.1], rtol=1e-6)
        upd = mx.optimizer.get_updater(mx.optimizer.create("rmsprop", learning_rate=0.1))
        upd(0, g, w)
        n = np.float32(0.1)  # (1 - gamma1) * g^2
        want = np.float32(1.9) - np.float32(0.1) * (np.float32(1) / np.sqrt(n + np.float32(1e-8)))
        assert w.shape == ()
        np.testing.assert_allclose(w.asnumpy(), want, rtol=1e-6)


def test_sign_updates_take_nan_as_mxnet():
    """signsgd / signum: sign(NaN) is 0 (MXNet's mshadow sign), in the
    compiled kernel and the numpy formula alike."""
    from mxc import _update_ops as uo
    w, g = np.ones(3, np.float32), np.array([np.nan, 1.0, -1.0], np.float32)
    want = (1 - np.float32(0.1) * np.float32(0.01)) * w - np.float32(0.1) * np.array(
        [0, 1, -1], np.float32)
    np.testing.assert_array_equal(uo.signsgd(w, g, 0.1, wd=0.01), want)
    out = mx.nd.signsgd_update(mx.nd.array(w), mx.nd.array(g), lr=0.1, wd=0.01)
    np.testing.assert_array_equal(out.asnumpy(), want)


@pytest.mark.parametrize("name", ["sgd", "adam"])
def test_a_clip_gradient_of_zero_does_not_clip(name):
    """As MXNet's Python, which passes clip_gradient to its kernels only when
    it is truthy: 0 is no clipping (it zeroed the gradients), on runtime
    arrays (compiled) and numpy-backed ones."""
    from mxc.ndarray import NDArray
    rng = np.random.default_rng(2)
    w0, g = rng.standard_normal(5).astype(np.float32), rng.standard_normal(5).astype(np.float32)
    got = []
    for clip in (0.0, None):
        for make in (mx.nd.array, lambda a: NDArray(a.copy())):
            opt = mx.optimizer.create(name, learning_rate=0.1, momentum=0.9, clip_gradient=clip) \
                if name == "sgd" else mx.optimizer.create(name, learning_rate=0.1,
                                                           clip_gradient=clip)
            upd = mx.optimizer.get_updater(opt)
            w = make(w0)
            upd(0, make(g), w)
            got.append(w.asnumpy())
    for k in range(1, 4):
        np.testing.assert_allclose(got[k], got[0], rtol=1e-6, err_msg=str(k))
    assert not np.allclose(got[0], w0)


def test_sgd_and_adam_update_ops_leave_the_weight_without_out():
    """mx.nd.sgd_update / sgd_mom_update / adam_update without out= return
    a new array and leave the weight as it was (the states are updated), as
    MXNet 1.9.1's."""
    w, g = mx.nd.ones((2, 3)), mx.nd.ones((2, 3))
    mom, mean, var = mx.nd.zeros((2, 3)), mx.nd.zeros((2, 3)), mx.nd.zeros((2, 3))
    outs = [mx.nd.sgd_update(w, g, lr=0.1), mx.nd.sgd_mom_update(w, g, mom, lr=0.1, momentum=0.9),
            mx.nd.adam_update(w, g, mean, var, lr=0.1)]
    np.testing.assert_array_equal(w.asnumpy(), np.ones((2, 3)))
    for o in outs:
        assert o is not w and (o.asnumpy() < 1).all()
    np.testing.assert_allclose(mom.asnumpy(), -0.1)
    assert (mean.asnumpy() > 0).all() and (var.asnumpy() > 0).all()


def test_unknown_optimizer():
    with pytest.raises(mx.MXNetError, match="Cannot find optimizer"):
        mx.optimizer.create("nosuch")


def test_updater_states_round_trip():
    opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9)
    upd = mx.optimizer.get_updater(opt)
    w = mx.nd.ones((3,))
    upd(0, mx.nd.ones((3,)), w)
    blob = upd.get_states()
    upd2 = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    upd2.set_states(blob)
    np.testing.assert_allclose(upd2.states[0].asnumpy(), upd.states[0].asnumpy())


# -- mx.lr_scheduler ---------------------------------------------------------------------

def test_factor_scheduler():
    s = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, stop_factor_lr=0.2, base_lr=1.0)
    # MXNet: the rate drops once num_update exceeds each multiple of step
    assert [s(n) for n in range(1, 9)] == [1.0, 1.0, 0.5, 0.5, 0.25, 0.25, 0.2, 0.2]


def test_scheduler_drives_the_optimizer():
    sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5)
    opt = mx.optimizer.SGD(learning_rate=1.0, lr_scheduler=sched)
    assert sched.base_lr == 1.0
    w = mx.nd.zeros((1,))
    lrs = []
    for _ in range(3):
        before = w.asnumpy()[0]
        opt.update(0, w, mx.nd.ones((1,)), None)
        lrs.append(before - w.asnumpy()[0])
    np.testing.assert_allclose(lrs, [1.0, 0.5, 0.25])


def test_multifactor_scheduler():
    s = mx.lr_scheduler.MultiFactorScheduler(step=[2, 4], factor=0.1, base_lr=1.0)
    np.testing.assert_allclose([s(n) for n in range(1, 7)], [1, 1, 0.1, 0.1, 0.01, 0.01])


# -- mx.metric -------------------------------------------------------------------------------

def test_metrics_against_numpy():
    rng = np.random.default_rng(2)
    logits = rng.standard_normal((20, 5))
    probs = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    labels = rng.integers(0, 5, 20).astype(np.float32)
    acc = mx.metric.create("acc")
    ce = mx.metric.create("ce")
    top3 = mx.metric.create("top_k_accuracy", top_k=3)
    for m in (acc, ce, top3):
        m.update([mx.nd.array(labels[:12])], [mx.nd.array(probs[:12])])
        m.update([mx.nd.array(labels[12:])], [mx.nd.array(probs[12:])])
    li = labels.astype(int)
    assert acc.get() == ("accuracy", pytest.approx((probs.argmax(1) == li).mean()))
    assert ce.get()[1] == pytest.approx(-np.log(probs[np.arange(20), li]).mean(), rel=1e-5)
    top = np.argsort(-probs, axis=1)[:, :3]
    assert top3.get() == ("top_k_accuracy_3", pytest.approx((top == li[:, None]).any(1).mean()))
    comp = mx.metric.create(["acc", "ce"])
    comp.update([mx.nd.array(labels)], [mx.nd.array(probs)])
    names, values = comp.get()
    assert names == ["accuracy", "cross-entropy"]
    assert values[0] == pytest.approx(acc.get()[1])
    acc.reset()
    assert np.isnan(acc.get()[1])
    with pytest.raises(mx.MXNetError, match="unknown metric"):
        mx.metric.create("nosuch")


def test_accuracy_local_and_global():
    acc = mx.metric.Accuracy()
    acc.update([mx.nd.array([1, 0])], [mx.nd.array([[0, 1], [0, 1]])])
    acc.reset_local()
    acc.update([mx.nd.array([1, 1])], [mx.nd.array([[0, 1], [0, 1]])])
    assert acc.get()[1] == 1.0 and acc.get_global()[1] == 0.75


# -- mx.io -------------------------------------------------------------------------------------

def _batches(it):
    return [(b.data[0].asnumpy(), b.label[0].asnumpy(), b.pad) for b in it]


def test_ndarrayiter_pad_discard_roll_over():
    x = np.arange(10, dtype=np.float32).reshape(10, 1)
    y = np.arange(10, dtype=np.float32)
    pad = _batches(mx.io.NDArrayIter(x, y, batch_size=4))
    assert [p for _, _, p in pad] == [0, 0, 2]
    np.testing.assert_array_equal(pad[2][0].ravel(), [8, 9, 0, 1])
    it = mx.io.NDArrayIter(x, y, batch_size=4, last_batch_handle="discard")
    assert [b[0].ravel().tolist() for b in _batches(it)] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert len(it) == 2
    it = mx.io.NDArrayIter(x, y, batch_size=4, last_batch_handle="roll_over")
    first = _batches(it)
    assert [b[0].ravel().tolist() for b in first] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    it.reset()
    second = _batches(it)
    # the two left-over samples open the next epoch
    assert [b[0].ravel().tolist() for b in second] == [[8, 9, 0, 1], [2, 3, 4, 5],
                                                       [6, 7, 8, 9]]
    it.reset()
    assert [b[0].ravel().tolist() for b in _batches(it)] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert it.provide_data[0].name == "data" and it.provide_data[0].shape == (4, 1)
    assert it.provide_label[0].name == "softmax_label"


def test_ndarrayiter_shuffle_keeps_pairs_and_is_seeded():
    x = np.arange(12, dtype=np.float32).reshape(12, 1) * 10
    y = np.arange(12, dtype=np.float32)

    def epoch(seed):
        np.random.seed(seed)
        it = mx.io.NDArrayIter(x, y, batch_size=4, shuffle=True)
        return _batches(it)
    a, b, c = epoch(3), epoch(3), epoch(4)
    order = np.concatenate([d.ravel() for d, _, _ in a])
    assert sorted(order.tolist()) == (np.arange(12) * 10).tolist()
    assert order.tolist() != (np.arange(12) * 10).tolist()
    for d, l, _ in a:
        np.testing.assert_array_equal(d.ravel(), l * 10)
    assert all((p[0] == q[0]).all() for p, q in zip(a, b))
    assert any((p[0] != q[0]).any() for p, q in zip(a, c))


def test_ndarrayiter_dict_and_list_names():
    it = mx.io.NDArrayIter({"a": np.zeros((4, 2)), "b": np.ones((4, 3))}, batch_size=2)
    assert [d.name for d in it.provide_data] == ["a", "b"]
    it = mx.io.NDArrayIter([np.zeros((4, 2)), np.ones((4, 3))], batch_size=2)
    assert [d.name for d in it.provide_data] == ["_0_data", "_1_data"]
    with pytest.raises(mx.MXNetError):
        mx.io.NDArrayIter(np.zeros((4, 2)), np.zeros(3), batch_size=2)


# -- mx.init -------------------------------------------------------------------------------

@pytest.mark.parametrize("rnd_type,factor_type,magnitude", [
    ("uniform", "avg", 3), ("gaussian", "in", 2), ("uniform", "out", 1)])
def test_xavier_statistics(rnd_type, factor_type, magnitude):
    mx.random.seed(5)
    shape = (64, 32, 3, 3)
    arr = mx.nd.zeros(shape)
    mx.init.Xavier(rnd_type, factor_type, magnitude)(mx.init.InitDesc("c_weight"), arr)
    a = arr.asnumpy()
    fan_in, fan_out = 32 * 9, 64 * 9
    factor = {"avg": (fan_in + fan_out) / 2, "in": fan_in, "out": fan_out}[factor_type]
    scale = np.sqrt(magnitude / factor)
    if rnd_type == "uniform":
        assert np.abs(a).max() <= scale
        assert a.std() == pytest.approx(scale / np.sqrt(3), rel=0.03)
    else:
        assert a.std() == pytest.approx(scale, rel=0.03)
    assert abs(a.mean()) < 0.01 * scale * 10


def test_initializers_and_name_defaults():
    mx.random.seed(6)
    w = mx.nd.zeros((200, 100))
    mx.init.Uniform(0.2)(mx.init.InitDesc("fc_weight"), w)
    assert np.abs(w.asnumpy()).max() <= 0.2 and w.asnumpy().std() == pytest.approx(
        0.2 / np.sqrt(3), rel=0.03)
    mx.init.Normal(0.5)(mx.init.InitDesc("fc_weight"), w)
    assert w.asnumpy().std() == pytest.approx(0.5, rel=0.03)
    for init, value in ((mx.init.Zero(), 0.0), (mx.init.One(), 1.0), (mx.init.Constant(2.5), 2.5)):
        init("x_weight", w)
        assert (w.asnumpy() == value).all()
    # names decide: biases/beta/moving_mean 0, gamma/moving_var 1, whatever the initializer
    for name, value in (("fc_bias", 0), ("bn_beta", 0), ("bn_gamma", 1), ("bn_moving_mean", 0),
                        ("bn_moving_var", 1)):
        b = mx.nd.full((3,), 7.0)
        mx.init.Xavier()(mx.init.InitDesc(name), b)
        assert (b.asnumpy() == value).all(), name
    with pytest.raises(mx.MXNetError, match="Unknown initialization pattern"):
        mx.init.Uniform()(mx.init.InitDesc("mystery"), b)
    with pytest.raises(mx.MXNetError, match="at least 2D"):
        mx.init.Xavier()(mx.init.InitDesc("v_weight"), mx.nd.zeros((4,)))
    # the __init__ attribute wins (MXNet's JSON form)
    c = mx.nd.zeros((2, 2))
    mx.init.Uniform()(mx.init.InitDesc("p_weight", {"__init__": mx.init.Constant(3).dumps()}), c)
    assert (c.asnumpy() == 3).all()
    assert isinstance(mx.init.create('["xavier", {"magnitude": 2}]'), mx.init.Xavier)


def test_module_init_params_uses_names_and_batchnorm_init():
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(data, num_hidden=4, name="fc")
    net = mx.sym.BatchNorm(net, name="bn")
    mod = mx.mod.Module(net, label_names=None)
    mod.bind(data_shapes=[("data", (2, 3))], for_training=False)
    mod.init_params(mx.init.Normal(1.0))
    args, aux = mod.get_params()
    assert (args["fc_bias"].asnumpy() == 0).all() and (args["bn_gamma"].asnumpy() == 1).all()
    assert (args["bn_beta"].asnumpy() == 0).all() and args["fc_weight"].asnumpy().std() > 0.3
    assert (aux["bn_moving_mean"].asnumpy() == 0).all()
    assert (aux["bn_moving_var"].asnumpy() == 1).all()


# -- Module, checkpoints --------------------------------------------------------------------

def _blobs(n=600, seed=0):
    rng = np.random.default_rng(seed)
    centers = np.array([[2, 2, 0, 0], [-2, 2, 0, 0], [0, -2, 2, 0]], dtype=np.float32)
    y = rng.integers(0, 3, n)
    x = centers[y] + rng.standard_normal((n, 4)).astype(np.float32) * 0.6
    return x.astype(np.float32), y.astype(np.float32)


def _mlp():
    data = mx.sym.var("data")
    h = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=16, name="fc1"),
                          act_type="relu", name="relu1")
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=3, name="fc2"),
                                name="softmax")


def test_module_fit_score_predict_and_checkpoint(tmp_path):
    mx.random.seed(0)
    np.random.seed(0)
    x, y = _blobs()
    train = mx.io.NDArrayIter(x[:500], y[:500], batch_size=25, shuffle=True)
    val = mx.io.NDArrayIter(x[500:], y[500:], batch_size=25)
    mod = mx.mod.Module(_mlp())
    seen_batches, seen_epochs = [], []
    prefix = str(tmp_path / "mlp")
    mod.fit(train, eval_data=val, eval_metric="acc", num_epoch=4, optimizer="sgd",
            optimizer_params={"learning_rate": 0.1, "momentum": 0.9},
            initializer=mx.init.Xavier(),
            batch_end_callback=[lambda p: seen_batches.append((p.epoch, p.nbatch)),
                                mx.callback.Speedometer(25, 5)],
            epoch_end_callback=[lambda e, s, a, x_: seen_epochs.append(e),
                                mx.callback.do_checkpoint(prefix, period=2)])
    assert seen_epochs == [0, 1, 2, 3] and len(seen_batches) == 4 * 20
    name, acc = mod.score(val, "acc")[0]
    assert name == "accuracy" and acc > 0.95
    probs = mod.predict(val).asnumpy()
    assert probs.shape == (100, 3)
    np.testing.assert_allclose(probs.sum(1), 1, rtol=1e-5)
    assert (probs.argmax(1) == y[500:]).mean() > 0.95
    # the same numbers by numpy from the parameters
    args, _ = mod.get_params()
    h = np.maximum(x[500:] @ args["fc1_weight"].asnumpy().T + args["fc1_bias"].asnumpy(), 0)
    z = h @ args["fc2_weight"].asnumpy().T + args["fc2_bias"].asnumpy()
    ref = np.exp(z - z.max(1, keepdims=True))
    np.testing.assert_allclose(probs, ref / ref.sum(1, keepdims=True), rtol=1e-4, atol=1e-6)

    # do_checkpoint wrote epochs 2 and 4 in MXNet's layout
    assert sorted(os.listdir(tmp_path)) == ["mlp-0002.params", "mlp-0004.params",
                                            "mlp-symbol.json"]
    sym, arg_params, aux_params = mx.model.load_checkpoint(prefix, 4)
    assert sym.tojson() == mod.symbol.tojson() and aux_params == {}
    for k, v in args.items():
        np.testing.assert_array_equal(arg_params[k].asnumpy(), v.asnumpy())
    # read back by the compiler's own readers: arg: names, the graph's arguments
    records = mx._mxc.load_params(prefix + "-0004.params")
    assert sorted(r[0] for r in records) == sorted("arg:" + k for k in args)
    lists = mx._mxc.graph_lists(open(prefix + "-symbol.json").read())
    assert lists["arguments"] == ["data", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias",
                                  "softmax_label"]
    # ... and by `mxc run`: the same outputs as Module.predict
    np.save(str(tmp_path / "x.npy"), x[500:525])
    p = subprocess.run([mxc_binary(), "run", prefix + "-symbol.json", "--params",
                        prefix + "-0004.params", "--shape", "data=25,4", "--input",
                        "data=%s" % (tmp_path / "x.npy"), "--output-dir", str(tmp_path / "out")],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    np.testing.assert_allclose(np.load(str(tmp_path / "out" / "softmax_output.npy")),
                               probs[:25], rtol=1e-4, atol=1e-6)

    # Module.load + predict gives the same outputs; save_checkpoint with states
    mod2 = mx.mod.Module.load(prefix, 4)
    mod2.bind(data_shapes=val.provide_data, for_training=False)
    np.testing.assert_allclose(mod2.predict(val).asnumpy(), probs, rtol=1e-6)
    mod.save_checkpoint(str(tmp_path / "again"), 7, save_optimizer_states=True)
    assert os.path.exists(str(tmp_path / "again-0007.states"))
    mod3 = mx.mod.Module.load(str(tmp_path / "again"), 7, load_optimizer_states=True)
    mod3.bind(data_shapes=train.provide_data, label_shapes=train.provide_label)
    mod3.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    for i in mod._updater.states:
        np.testing.assert_allclose(mod3._updater.states[i].asnumpy(),
                                   mod._updater.states[i].asnumpy())


def test_module_step_is_sgd_on_the_executor_gradients():
    mx.random.seed(1)
    x, y = _blobs(40, seed=3)
    mod = mx.mod.Module(_mlp())
    mod.bind(data_shapes=[mx.io.DataDesc("data", (40, 4))],
             label_shapes=[mx.io.DataDesc("softmax_label", (40,))])
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer="sgd", optimizer_params=(("learning_rate", 0.5),))
    before, _ = mod.get_params()
    batch = mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)])
    mod.forward(batch, is_train=True)
    mod.backward()
    # SoftmaxOutput's gradient: (p - onehot(y)) per sample, summed; rescale_grad = 1/40
    p = mod.get_outputs()[0].asnumpy()
    w1, b1 = before["fc1_weight"].asnumpy(), before["fc1_bias"].asnumpy()
    h = np.maximum(x @ w1.T + b1, 0)
    dz = p - np.eye(3)[y.astype(int)]
    mod.update()
    after, _ = mod.get_params()
    np.testing.assert_allclose(after["fc2_weight"].asnumpy(),
                               before["fc2_weight"].asnumpy() - 0.5 / 40 * dz.T @ h,
                               rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(after["fc2_bias"].asnumpy(),
                               before["fc2_bias"].asnumpy() - 0.5 / 40 * dz.sum(0),
                               rtol=1e-4, atol=1e-6)
    assert mod.output_shapes == [("softmax_output", (40, 3))]


def test_module_without_a_store_trains_each_device_on_its_slice():
    # MXNet's Module over several contexts with kvstore=None: each device's
    # parameters are updated with its own slice's gradient (updater index
    # i * num_device + k, idx2name to match: wd on weights only), nothing is
    # summed, and get_params averages the devices' copies. CPUs, which share
    # one set of parameters with a store, get copies of their own.
    rng = np.random.default_rng(5)
    x = rng.standard_normal((8, 3)).astype(np.float32)
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1], np.float32)
    w0 = rng.standard_normal((2, 3)).astype(np.float32)
    sym = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2,
                                                     name="fc"), name="softmax")
    mod = mx.mod.Module(sym, context=[mx.cpu(0), mx.cpu(1)])
    mod.bind(data_shapes=[("data", (8, 3))], label_shapes=[("softmax_label", (8,))])
    mod.init_params(arg_params={"fc_weight": mx.nd.array(w0), "fc_bias": mx.nd.zeros((2,))})
    mod.init_optimizer(kvstore=None, optimizer="sgd",
                       optimizer_params={"learning_rate": 0.1, "momentum": 0.9, "wd": 0.1})
    batch = mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)])
    for _ in range(3):
        mod.forward_backward(batch)
        mod.update()
    want = []
    for rows in (slice(0, 4), slice(4, 8)):
        w, b = w0.astype(np.float64), np.zeros(2)
        mw, mb = np.zeros_like(w), np.zeros_like(b)
        for _ in range(3):
            z = x[rows] @ w.T + b
            p = np.exp(z - z.max(1, keepdims=True))
            p /= p.sum(1, keepdims=True)
            dz = p - np.eye(2)[y[rows].astype(int)]
            gw, gb = dz.T @ x[rows] / 8, dz.sum(0) / 8  # rescale_grad = 1 / batch
            mw = 0.9 * mw - 0.1 * (gw + 0.1 * w)  # wd on the weight only
            mb = 0.9 * mb - 0.1 * gb
            w, b = w + mw, b + mb
        want.append((w, b))
    for k, ex in enumerate(mod._exec_group.execs):
        np.testing.assert_allclose(ex.arg_dict["fc_weight"].asnumpy(), want[k][0], rtol=1e-5,
                                   atol=1e-6, err_msg="device %d" % k)
        np.testing.assert_allclose(ex.arg_dict["fc_bias"].asnumpy(), want[k][1], rtol=1e-5,
                                   atol=1e-6, err_msg="device %d" % k)
    assert not np.allclose(want[0][0], want[1][0])
    args, _ = mod.get_params()
    np.testing.assert_allclose(args["fc_weight"].asnumpy(), (want[0][0] + want[1][0]) / 2,
                               rtol=1e-5, atol=1e-6)
    # another batch size: each device keeps its own copy
    mod.reshape(data_shapes=[("data", (6, 3))], label_shapes=[("softmax_label", (6,))])
    ex0, ex1 = mod._exec_group.execs
    assert ex0.arg_dict["fc_weight"] is not ex1.arg_dict["fc_weight"]
    for k, ex in enumerate((ex0, ex1)):
        np.testing.assert_allclose(ex.arg_dict["fc_weight"].asnumpy(), want[k][0], rtol=1e-5,
                                   atol=1e-6, err_msg="device %d after reshape" % k)


def test_bucketing_without_a_store_shares_each_devices_copy():
    # BucketingModule over two CPUs without a store: every bucket's device k
    # reads the default bucket's copy k -- a bucket bound before the split
    # (init_optimizer) is pointed at them when it borrows the optimizer, one
    # bound after borrows it at bind (as MXNet's Module.bind) -- so an
    # update in any bucket trains that device's copy once.
    def sym_gen(key):
        fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
        return mx.sym.SoftmaxOutput(fc, name="softmax"), ("data",), ("softmax_label",)

    def batch(n):
        return mx.io.DataBatch([mx.nd.array(np.arange(3 * n).reshape(n, 3) / 10)],
                               [mx.nd.array(np.arange(n) % 2)], bucket_key=n,
                               provide_data=[mx.io.DataDesc("data", (n, 3))],
                               provide_label=[mx.io.DataDesc("softmax_label", (n,))])
    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=8, context=[mx.cpu(0), mx.cpu(1)])
    mod.bind(data_shapes=[("data", (8, 3))], label_shapes=[("softmax_label", (8,))])
    mod.init_params(mx.init.Constant(0.1))
    mod.switch_bucket(4, [("data", (4, 3))], [("softmax_label", (4,))])
    mod.switch_bucket(8, [("data", (8, 3))], [("softmax_label", (8,))])
    mod.init_optimizer(kvstore=None, optimizer="sgd", optimizer_params={"learning_rate": 0.1})
    for n in (4, 6, 8):
        mod.forward_backward(batch(n))
        mod.update()
    default = mod._buckets[8]._exec_group.execs
    assert default[0].arg_dict["fc_weight"] is not default[1].arg_dict["fc_weight"]
    for n in (4, 6):
        execs = mod._buckets[n]._exec_group.execs
        for k in (0, 1):
            assert execs[k].arg_dict["fc_weight"] is default[k].arg_dict["fc_weight"], (n, k)
    w0, w1 = (e.arg_dict["fc_weight"].asnumpy() for e in default)
    assert not np.allclose(w0, w1) and not np.allclose(w0, 0.1)


def test_module_adam_fit_and_errors():
    mx.random.seed(2)
    np.random.seed(2)
    x, y = _blobs(300, seed=4)
    it = mx.io.NDArrayIter(x, y, batch_size=30, shuffle=True, last_batch_handle="discard")
    mod = mx.mod.Module(_mlp())
    with pytest.raises(mx.MXNetError, match="number of epochs"):
        mod.fit(it)
    mod.fit(it, num_epoch=3, optimizer="adam", optimizer_params={"learning_rate": 0.05},
            initializer=mx.init.Xavier())
    assert mod.score(it, mx.metric.Accuracy())[0][1] > 0.95
    with pytest.raises(mx.MXNetError, match="data name 'nope'"):
        mx.mod.Module(_mlp(), data_names=["nope"])


# -- against MXNet 1.9.1 itself (the side venv .venv-mxnet, skipped without it) --------------

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MXNET_PY = os.path.join(ROOT, ".venv-mxnet", "bin", "python")

MXNET_TRAINING = r"""
import sys, numpy as np, mxnet as mx
d = sys.argv[1]
z = np.load(d + '/in.npz')
out = {}
for name, kw in (('sgd', dict(learning_rate=0.1, momentum=0.9, wd=1e-2, rescale_grad=0.25,
                             clip_gradient=0.5)),
                 ('adam', dict(learning_rate=0.01, wd=1e-2, rescale_grad=0.5)),
                 ('sched', dict(learning_rate=1.0, momentum=0.5,
                                lr_scheduler=mx.lr_scheduler.FactorScheduler(2, 0.5)))):
    opt = mx.optimizer.create(name.replace('sched', 'sgd'), param_idx2name={0: 'fc_weight'}, **kw)
    upd = mx.optimizer.get_updater(opt)
    w = mx.nd.array(z['w0'])
    for g in z['grads']:
        upd(0, mx.nd.array(g), w)
    out[name] = w.asnumpy()
x = np.arange(10, dtype=np.float32).reshape(10, 1)
for h in ('pad', 'discard', 'roll_over'):
    it = mx.io.NDArrayIter(x, np.arange(10, dtype=np.float32), batch_size=4, last_batch_handle=h)
    rows = []
    for epoch in range(3):
        for b in it:
            rows.append(list(b.data[0].asnumpy().ravel()) + [b.pad])
        it.reset()
    out['iter_' + h] = np.array(rows)
np.savez(d + '/out.npz', **out)
"""


@pytest.mark.skipif(not os.path.exists(MXNET_PY), reason="no .venv-mxnet (mxnet==1.9.1) here")
def test_against_mxnet_optimizers_schedulers_iterators(tmp_path):
    rng = np.random.default_rng(9)
    w0 = rng.standard_normal((4, 3)).astype(np.float32)
    grads = np.stack(_steps(rng, 6, (4, 3)))
    np.savez(str(tmp_path / "in.npz"), w0=w0, grads=grads)
    p = subprocess.run([MXNET_PY, "-c", MXNET_TRAINING, str(tmp_path)], capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    ref = np.load(str(tmp_path / "out.npz"))
    for name, kw in (("sgd", dict(learning_rate=0.1, momentum=0.9, wd=1e-2, rescale_grad=0.25,
                                  clip_gradient=0.5)),
                     ("adam", dict(learning_rate=0.01, wd=1e-2, rescale_grad=0.5)),
                     ("sched", dict(learning_rate=1.0, momentum=0.5,
                                    lr_scheduler=mx.lr_scheduler.FactorScheduler(2, 0.5)))):
        opt = mx.optimizer.create(name.replace("sched", "sgd"), param_idx2name={0: "fc_weight"},
                                  **kw)
        upd = mx.optimizer.get_updater(opt)
        w = mx.nd.array(w0)
        for g in grads:
            upd(0, mx.nd.array(g), w)
        np.testing.assert_allclose(w.asnumpy(), ref[name], rtol=1e-5, atol=1e-6, err_msg=name)
    x = np.arange(10, dtype=np.float32).reshape(10, 1)
    for h in ("pad", "discard", "roll_over"):
        it = mx.io.NDArrayIter(x, np.arange(10, dtype=np.float32), batch_size=4,
                               last_batch_handle=h)
        rows = []
        for _ in range(3):
            for b in it:
                rows.append(list(b.data[0].asnumpy().ravel()) + [b.pad])
            it.reset()
        np.testing.assert_array_equal(np.array(rows), ref["iter_" + h], err_msg=h)


MXNET_FIT = r"""
import sys, numpy as np, mxnet as mx
d = sys.argv[1]
z = np.load(d + '/in.npz')
data = mx.sym.var('data')
h = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=16, name='fc1'), act_type='relu',
                      name='relu1')
net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=3, name='fc2'), name='softmax')
it = mx.io.NDArrayIter(z['x'], z['y'], batch_size=25, last_batch_handle='pad')
mod = mx.mod.Module(net)
args = {k[4:]: mx.nd.array(z[k]) for k in z.files if k.startswith('arg_')}
mod.fit(it, num_epoch=2, optimizer='sgd',
        optimizer_params={'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-3},
        arg_params=args, eval_metric='acc')
a, _ = mod.get_params()
np.savez(d + '/out.npz', **{k: v.asnumpy() for k, v in a.items()})
"""


@pytest.mark.skipif(not os.path.exists(MXNET_PY), reason="no .venv-mxnet (mxnet==1.9.1) here")
def test_module_fit_against_mxnet(tmp_path):
    # the same data, initial weights and hyper-parameters: MXNet's Module.fit and
    # mxc's end at the same weights (rescale_grad, momentum, wd on weights only, pad)
    x, y = _blobs(110, seed=7)
    mx.random.seed(3)
    mod = mx.mod.Module(_mlp())
    it = mx.io.NDArrayIter(x, y, batch_size=25, last_batch_handle="pad")
    mod.bind(it.provide_data, it.provide_label)
    mod.init_params(mx.init.Xavier())
    init, _ = mod.get_params()
    np.savez(str(tmp_path / "in.npz"), x=x, y=y,
             **{"arg_" + k: v.asnumpy() for k, v in init.items()})
    p = subprocess.run([MXNET_PY, "-c", MXNET_FIT, str(tmp_path)], capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    ref = np.load(str(tmp_path / "out.npz"))
    mod.fit(it, num_epoch=2, optimizer="sgd",
            optimizer_params={"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-3})
    got, _ = mod.get_params()
    for k in init:
        assert not np.allclose(init[k].asnumpy(), ref[k]) or k.endswith("bias"), k
        np.testing.assert_allclose(got[k].asnumpy(), ref[k], rtol=1e-4, atol=1e-5, err_msg=k)


def test_module_bind_grad_req_forms():
    # MXNet's executor group: a string by role, a list per argument in order,
    # a dict over the role defaults ('write' for what is trained)
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=2, name="fc")
    shapes = [("data", (3, 4))]
    for grad_req, want in [
            ("add", {"data": "null", "fc_weight": "add", "fc_bias": "add"}),
            ({"data": "add", "fc_bias": "null"},
             {"data": "add", "fc_weight": "write", "fc_bias": "null"}),
            (["null", "write", "add"], {"data": "null", "fc_weight": "write", "fc_bias": "add"})]:
        mod = mx.mod.Module(net, data_names=["data"], label_names=None)
        mod.bind(data_shapes=shapes, grad_req=grad_req)
        assert mod._grad_reqs == want, grad_req
    mod = mx.mod.Module(net, data_names=["data"], label_names=None)
    with pytest.raises(mx.base.MXNetError, match="grad_req has 1 entries for 3 arguments"):
        mod.bind(data_shapes=shapes, grad_req=["write"])


def test_module_set_params_missing_and_extra():
    # MXNet: a missing parameter is a RuntimeError (checked first), an extra
    # one a ValueError, unless allow_missing / allow_extra
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2, name="fc")
    mod = mx.mod.Module(net, data_names=["data"], label_names=None)
    mod.bind(data_shapes=[("data", (3, 4))])
    w, b = mx.nd.ones((2, 4)), mx.nd.zeros((2,))
    mod.set_params({"fc_weight": w, "fc_bias": b}, {}, force_init=True)
    with pytest.raises(RuntimeError, match="fc_bias is not presented"):
        mod.set_params({"fc_weight": w, "x": w}, {}, force_init=True)
    with pytest.raises(ValueError, match=r"\['x'\] are not parameters"):
        mod.set_params({"fc_weight": w, "fc_bias": b, "x": w}, {}, force_init=True)
    mod.set_params({"fc_weight": w, "x": w}, {}, force_init=True, allow_missing=True,
                   allow_extra=True)
    assert (mod.get_params()[0]["fc_weight"].asnumpy() == 1).all()


def test_monitor_reports_forward_backward_and_arguments():
    # mx.mon.Monitor on a Module: each operator's output in the forward,
    # each backward node's outputs ('<node>_backward_<j>', the gradient it
    # passes to input j) in the backward, and the arguments at toc(); the
    # backward values are the gradients the executor computes.
    data = mx.sym.Variable("data")
    x = mx.sym.FullyConnected(data, num_hidden=3, name="fc_0")
    x = mx.sym.Activation(x, act_type="tanh", name="act_0")
    x = mx.sym.FullyConnected(x, num_hidden=2, name="fc_1")
    x = mx.sym.LinearRegressionOutput(x, name="out")
    it = mx.io.NDArrayIter(np.array([[0.5, -1.0], [0.25, 2.0]], np.float32),
                           np.array([[0.1, 0.9], [0.3, -0.2]], np.float32), batch_size=2,
                           label_name="out_label")
    stats = []
    mon = mx.mon.Monitor(1, stat_func=lambda a: a.copy(), pattern=".*")
    mod = mx.mod.Module(x, label_names=["out_label"])
    mod.bind(it.provide_data, it.provide_label, for_training=True)
    mod.init_params(mx.init.Uniform(0.5))
    mod.install_monitor(mon)
    batch = next(iter(it))
    mon.tic()
    mod.forward_backward(batch)
    queue = list(mon.queue)
    res = mon.toc()
    names = [k for _, k, _ in res]
    assert names[:4] == ["fc_0_output", "act_0_output", "fc_1_output", "out_output"]
    assert names[4:13] == ["out_backward_0", "out_backward_1", "fc_1_backward_0",
                           "fc_1_backward_1", "fc_1_backward_2", "act_0_backward_0",
                           "fc_0_backward_0", "fc_0_backward_1", "fc_0_backward_2"]
    assert names[13:] == ["data", "fc_0_weight", "fc_0_bias", "fc_1_weight", "fc_1_bias",
                          "out_label"]
    values = {k: v for _, k, v in queue}
    grads = mod._exec_group.execs[0].grad_dict
    for name, node_input in [("fc_0_weight", "fc_0_backward_1"), ("fc_0_bias", "fc_0_backward_2"),
                             ("fc_1_weight", "fc_1_backward_1"), ("fc_1_bias", "fc_1_backward_2")]:
        np.testing.assert_allclose(values[node_input].asnumpy(), grads[name].asnumpy(),
                                   rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(values["act_0_output"].asnumpy(),
                               np.tanh(values["fc_0_output"].asnumpy()), rtol=1e-6)
