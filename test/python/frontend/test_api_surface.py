"""MXNet 1.9.1's pure-Python API surface on mxc (issue 15, item 2):
mx.AttrScope, mx.name, mx.base's helpers, the optimizers NAG, RMSProp
(plain and centered), AdaGrad, AdaDelta, Ftrl, Adamax, Nadam, Signum
(signSGD and Signum) and LAMB.

The optimizers are checked against their update formulas written out here
element by element in float64 (always), and against MXNet 1.9.1 itself when
the side venv .venv-mxnet exists (skipped otherwise: CI has no MXNet).
"""
import json
import math
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mxc as mx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MXNET_PY = os.path.join(ROOT, ".venv-mxnet", "bin", "python")


# -- AttrScope, name --------------------------------------------------------------------

def test_attr_scope_variables_and_operators():
    with mx.AttrScope(group="4", data="great"):
        data = mx.sym.Variable("data", attr={"dtype": "data", "group": "1",
                                             "force_mirroring": "True"}, lr_mult=1)
        gdata = mx.sym.Variable("data2")
        with mx.AttrScope(__init_bias__="0.0"):
            fc = mx.sym.FullyConnected(data, num_hidden=10, name="fc")
    plain = mx.sym.Variable("plain")
    assert gdata.attr("group") == "4" and data.attr("group") == "1"
    assert data.attr("lr_mult") == "1" and data.attr("__lr_mult__") == "1"
    assert data.attr("force_mirroring") == "True"
    assert data.attr("__force_mirroring__") == "True"
    assert fc.attr("data") == "great" and fc.attr("__init_bias__") == "0.0"
    assert plain.attr("group") is None     # the scope ended
    # the weight variable made for fc copies the node's attributes (as MXNet)
    assert fc.attr_dict()["fc_weight"]["__init_bias__"] == "0.0"
    assert pickle.loads(pickle.dumps(fc)).tojson() == fc.tojson()
    with pytest.raises(ValueError):
        mx.AttrScope(group=4)


def test_operator_hidden_keywords():
    data = mx.sym.Variable("data")
    op = mx.sym.Convolution(data=data, name="conv", kernel=(1, 1), num_filter=1,
                            attr={"__mood__": "so so", "wd_mult": "0.5"}, lr_mult=1)
    attrs = op.list_attr()
    assert attrs["__lr_mult__"] == "1" and attrs["lr_mult"] == "1"
    assert attrs["__wd_mult__"] == "0.5" and attrs["wd_mult"] == "0.5"
    assert attrs["__mood__"] == "so so" and attrs["kernel"] == "(1, 1)"
    # the hidden attributes reach the optimizer's lr_mult table
    opt = mx.optimizer.SGD(sym=op, param_idx2name={0: "conv_weight"})
    assert opt.lr_mult["conv_weight"] == 1.0 and opt.wd_mult["conv_weight"] == 0.5
    with pytest.raises(mx.MXNetError):
        mx.sym.Convolution(data=data, kernel=(1, 1), num_filter=1, no_such_param=3)


def test_name_manager_and_prefix():
    with mx.name.NameManager():
        a = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=2)
        b = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=2)
    assert (a.name, b.name) == ("fullyconnected0", "fullyconnected1")
    with mx.name.Prefix("net_"):
        c = mx.sym.Activation(mx.sym.var("x"), act_type="relu")
    assert c.name == "net_activation0"
    assert mx.name.NameManager is mx.NameManager


def test_base_helpers():
    assert mx.base.py_str(b"ab") == "ab" and mx.base._as_list(3) == [3]
    assert mx.base._as_list((1, 2)) == (1, 2)
    assert isinstance(np.float32(1), mx.base.numeric_types)
    err = mx.base.NotImplementedForSymbol(test_base_helpers, "x")
    assert isinstance(err, mx.MXNetError) and "not implemented for Symbol" in str(err)


# -- optimizers against their formulas ----------------------------------------------------

def _ref_step(name, p, w, g, s, t, m_sched):
    """One step of `name`'s rule for one element in float64 (s: state dict)."""
    lr, wd, rg, cg = p["learning_rate"], p.get("wd", 0.0), p.get("rescale_grad", 1.0), \
        p.get("clip_gradient")
    clip = (lambda x: max(-cg, min(cg, x))) if cg is not None else (lambda x: x)
    if name == "nag":
        gg = clip(rg * g) + wd * w
        s["m"] = p["momentum"] * s["m"]
        w = w - s["m"] + (p["momentum"] + 1) * (s["m"] - lr * gg)
        s["m"] -= lr * (clip(rg * g) + wd * w)   # MXNet's in-place kernel: the new w
    elif name == "rmsprop":
        gg = clip(rg * g + wd * w)
        s["n"] = 0.1 * gg * gg + 0.9 * s["n"]
        if p.get("centered"):
            s["g"] = 0.1 * gg + 0.9 * s["g"]
            s["d"] = 0.9 * s["d"] - lr * gg / math.sqrt(s["n"] - s["g"] ** 2 + 1e-8)
            w = w + s["d"]
        else:
            w = w - lr * gg / math.sqrt(s["n"] + 1e-8)
    elif name == "adagrad":
        gg = clip(rg * g)
        s["h"] += gg * gg
        w = w - lr * (gg / math.sqrt(s["h"] + 1e-7) + wd * w)
    elif name == "adadelta":
        gg = clip(rg * g)
        s["ag"] = 0.9 * s["ag"] + 0.1 * gg * gg
        d = math.sqrt(s["ad"] + 1e-5) / math.sqrt(s["ag"] + 1e-5) * gg
        s["ad"] = 0.9 * s["ad"] + 0.1 * d * d
        w = w - d - wd * w
    elif name == "ftrl":
        gg = clip(rg * g)
        s["z"] += gg - (math.sqrt(s["n"] + gg * gg) - math.sqrt(s["n"])) * w / lr
        s["n"] += gg * gg
        z = s["z"]
        w = 0.0 if abs(z) <= 0.01 else (math.copysign(0.01, z) - z) / ((1 + math.sqrt(s["n"])) / lr + wd)
    elif name == "adamax":
        gg = clip(rg * g + wd * w)
        s["m"] = 0.9 * s["m"] + 0.1 * gg
        s["u"] = max(0.999 * s["u"], abs(gg))
        w = w - lr / (1 - 0.9 ** t) * s["m"] / s["u"]
    elif name == "nadam":
        gg = clip(rg * g + wd * w)
        mt = 0.9 * (1 - 0.5 * 0.96 ** (t * 0.004))
        mt1 = 0.9 * (1 - 0.5 * 0.96 ** ((t + 1) * 0.004))
        m_sched[0] *= mt
        s["m"] = 0.9 * s["m"] + 0.1 * gg
        s["v"] = 0.999 * s["v"] + 0.001 * gg * gg
        mbar = (1 - mt) * gg / (1 - m_sched[0]) + mt1 * s["m"] / (1 - m_sched[0] * mt1)
        w = w - lr * mbar / (math.sqrt(s["v"] / (1 - 0.999 ** t)) + 1e-8)
    elif name == "signum":
        mo = p["momentum"]
        s["m"] = mo * s["m"] - (1 - mo) * (wd * w + clip(rg * g))
        w = w + lr * (1 if s["m"] > 0 else -1 if s["m"] < 0 else 0)
    elif name == "signsgd":
        w = (1 - lr * wd) * w - lr * (1 if g > 0 else -1 if g < 0 else 0)
    return w


CASES = [
    ("nag", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01, "rescale_grad": 0.5}),
    ("nag", {"learning_rate": 0.1, "momentum": 0.0, "wd": 0.01}),
    ("rmsprop", {"learning_rate": 0.01, "wd": 0.01, "clip_gradient": 1.5}),
    ("rmsprop", {"learning_rate": 0.01, "centered": True, "rescale_grad": 0.5}),
    ("adagrad", {"learning_rate": 0.1, "wd": 0.01, "clip_gradient": 2.0}),
    ("adadelta", {"learning_rate": 1.0, "wd": 0.01}),
    ("ftrl", {"learning_rate": 0.1, "wd": 0.01}),
    ("adamax", {"learning_rate": 0.01, "wd": 0.01, "rescale_grad": 0.5}),
    ("nadam", {"learning_rate": 0.01, "wd": 0.01}),
    ("signum", {"learning_rate": 0.01, "momentum": 0.9, "wd": 0.01, "clip_gradient": 1.0}),
    ("signsgd", {"learning_rate": 0.01, "momentum": 0.0, "wd": 0.01}),
]
STATE0 = {"nag": ["m"], "rmsprop": ["n", "g", "d"], "adagrad": ["h"], "adadelta": ["ag", "ad"],
          "ftrl": ["z", "n"], "adamax": ["m", "u"], "nadam": ["m", "v"], "signum": ["m"],
          "signsgd": []}


@pytest.mark.parametrize("name,params", CASES, ids=["%s-%d" % (c[0], i) for i, c in enumerate(CASES)])
def test_optimizer_against_formula(name, params):
    rng = np.random.RandomState(3)
    w0 = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    grads = [rng.uniform(-2, 2, (4, 3)).astype(np.float32) for _ in range(4)]
    opt = mx.optimizer.create("signum" if name == "signsgd" else name, **params)
    weight = mx.nd.array(w0)
    state = opt.create_state_multi_precision(0, weight)
    ref = w0.astype(np.float64).ravel().tolist()
    states = [dict.fromkeys(STATE0[name], 0.0) for _ in ref]
    m_sched = [[1.0] for _ in ref]
    for t, g in enumerate(grads, start=1):
        opt.update_multi_precision(0, weight, mx.nd.array(g), state)
        ref = [_ref_step(name, params, w, gi, s, t, ms)
               for w, gi, s, ms in zip(ref, g.ravel().tolist(), states, m_sched)]
    np.testing.assert_allclose(weight.asnumpy().ravel(), ref, rtol=2e-5, atol=2e-6)


def test_lamb_against_formula():
    rng = np.random.RandomState(5)
    w = rng.uniform(-1, 1, (5, 2)).astype(np.float64)
    opt = mx.optimizer.create("lamb", learning_rate=0.01, wd=0.1, upper_bound=2.0)
    weight = mx.nd.array(w.astype(np.float32))
    state = opt.create_state(0, weight)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t in range(1, 4):
        g = rng.uniform(-1, 1, w.shape)
        opt.update(0, weight, mx.nd.array(g.astype(np.float32)), state)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        r = (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-6) + 0.1 * w
        r1 = min(np.linalg.norm(w), 2.0)
        w = w - 0.01 * r1 / np.linalg.norm(r) * r
    np.testing.assert_allclose(weight.asnumpy(), w, rtol=1e-5, atol=1e-6)


def test_optimizers_registered_by_mxnet_names():
    for n in ("sgd", "nag", "rmsprop", "adagrad", "adadelta", "ftrl", "adamax", "nadam",
              "signum", "lamb", "ftml", "sgld", "adam", "test"):
        assert mx.optimizer.create(n).__class__.__name__.lower() == n
    with pytest.raises(mx.MXNetError):
        mx.optimizer.create("no-such-optimizer")


def test_optimizer_states_pickle_through_updater():
    opt = mx.optimizer.create("rmsprop", centered=True, learning_rate=0.01)
    up = mx.optimizer.get_updater(opt)
    w = mx.nd.array(np.ones((3,), np.float32))
    up(0, mx.nd.array([1.0, -1.0, 2.0]), w)
    up2 = mx.optimizer.get_updater(mx.optimizer.create("rmsprop", centered=True,
                                                       learning_rate=0.01))
    up2.set_states(up.get_states())
    w2 = w.copy()
    g = mx.nd.array([0.5, 0.5, -1.0])
    up(0, g, w)
    up2(0, g, w2)
    np.testing.assert_array_equal(w.asnumpy(), w2.asnumpy())


# -- against MXNet 1.9.1 ------------------------------------------------------------------

MXNET_OPT = textwrap.dedent("""
    import sys, json, numpy as np, mxnet as mx
    d = sys.argv[1]
    cases = json.load(open(d + '/cases.json'))
    z = np.load(d + '/in.npz')
    out = {}
    for i, (name, params) in enumerate(cases):
        opt = mx.optimizer.create(name, **params)
        w = mx.nd.array(z['w0'])
        s = opt.create_state_multi_precision(0, w)
        for g in z['grads']:
            opt.update_multi_precision(0, w, mx.nd.array(g), s)
        out[str(i)] = w.asnumpy()
    np.savez(d + '/out.npz', **out)
""")

MXNET_CASES = [(n if n != "signsgd" else "signum", p) for n, p in CASES] + [
    ("lamb", {"learning_rate": 0.01, "wd": 0.1}),
    ("lamb", {"learning_rate": 0.01, "bias_correction": False, "lower_bound": 0.1,
              "upper_bound": 1.0, "clip_gradient": 0.5}),
    ("rmsprop", {"learning_rate": 0.01, "centered": True, "clip_weights": 0.3}),
    ("ftrl", {"learning_rate": 0.1, "lamda1": 0.5, "beta": 2.0, "clip_gradient": 0.7}),
    ("signum", {"learning_rate": 0.01, "momentum": 0.5, "wd_lh": 0.1}),
    ("ftml", {"learning_rate": 0.05, "wd": 0.01, "clip_gradient": 1.0}),
    ("ftml", {"learning_rate": 0.05, "beta1": 0.9, "rescale_grad": 0.5}),
    ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01}),
    # a negative momentum: MXNet passes it to its kernels only when positive
    ("sgd", {"learning_rate": 0.1, "momentum": -0.5, "wd": 0.01}),
    ("nag", {"learning_rate": 0.1, "momentum": -0.5, "wd": 0.01}),
    ("lars", {"learning_rate": 0.1, "momentum": -0.5, "wd": 0.01}),
]


@pytest.mark.skipif(not os.path.exists(MXNET_PY), reason="no .venv-mxnet (mxnet==1.9.1) here")
def test_optimizers_match_mxnet(tmp_path):
    rng = np.random.RandomState(11)
    w0 = rng.uniform(-1, 1, (6, 5)).astype(np.float32)
    grads = rng.uniform(-2, 2, (5, 6, 5)).astype(np.float32)
    with open(tmp_path / "cases.json", "w") as f:
        json.dump(MXNET_CASES, f)
    np.savez(str(tmp_path / "in.npz"), w0=w0, grads=grads)
    p = subprocess.run([MXNET_PY, "-c", MXNET_OPT, str(tmp_path)], capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    ref = np.load(str(tmp_path / "out.npz"))
    diffs = []
    for i, (name, params) in enumerate(MXNET_CASES):
        opt = mx.optimizer.create(name, **params)
        w = mx.nd.array(w0)
        s = opt.create_state_multi_precision(0, w)
        for g in grads:
            opt.update_multi_precision(0, w, mx.nd.array(g), s)
        diffs.append((float(np.max(np.abs(w.asnumpy() - ref[str(i)]))), name, params))
    bad = [d for d in diffs if d[0] > 2e-6]
    assert not bad, bad


def test_poly_scheduler_with_warmup():
    s = mx.lr_scheduler.PolyScheduler(max_update=10, base_lr=1.0, pwr=2, final_lr=0.1,
                                      warmup_steps=2, warmup_begin_lr=0.5)
    got = [s(n) for n in range(14)]
    want = [0.5 + 0.5 * n / 2 for n in range(2)] + \
        [0.1 + 0.9 * (1 - (n - 2) / 8.0) ** 2 for n in range(2, 11)] + [0.1] * 3
    np.testing.assert_allclose(got, want, rtol=1e-12)
    with pytest.raises(mx.MXNetError):
        mx.lr_scheduler.PolyScheduler(max_update=0)


def test_mae_rmse_by_name():
    labels = [mx.nd.array([1.0, 2.0, 3.0]), mx.nd.array([0.0, 0.0])]
    preds = [mx.nd.array([1.5, 2.0, 1.0]), mx.nd.array([1.0, -3.0])]
    mae, rmse = mx.metric.create("mae"), mx.metric.create("rmse")
    for m in (mae, rmse):
        for lab, pred in zip(labels, preds):
            m.update([lab], [pred])
    # averaged over the two batches (MXNet's num_inst counts batches here)
    assert mae.get() == ("mae", pytest.approx(((0.5 + 0 + 2) / 3 + (1 + 3) / 2) / 2))
    assert rmse.get() == ("rmse", pytest.approx((math.sqrt((0.25 + 4) / 3) + math.sqrt(5)) / 2))


# -- metrics against MXNet 1.9.1 ----------------------------------------------------------

METRIC_CASES = [("f1", {}), ("f1", {"average": "micro"}), ("mcc", {}), ("mcc", {"average": "micro"}),
                ("pcc", {}), ("pearsonr", {}), ("pearsonr", {"average": "micro"}),
                ("perplexity", {"ignore_label": None}), ("perplexity", {"ignore_label": 1}),
                ("mae", {}), ("rmse", {}), ("mse", {}), ("acc", {}), ("ce", {})]


def _metric_batches():
    rng = np.random.RandomState(2)
    out = []
    for _ in range(3):
        pred = rng.dirichlet(np.ones(2), size=8).astype(np.float32)
        label = rng.randint(0, 2, size=8).astype(np.float32)
        out.append((label, pred))
    return out


def _metric_inputs(name, label, pred):
    if name in ("pearsonr", "mae", "rmse", "mse"):
        return label, pred[:, 1].copy()
    return label, pred


def test_metric_formulas_by_hand():
    f1 = mx.metric.create("f1")
    label = mx.nd.array([0, 1, 1, 1])
    pred = mx.nd.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7]])
    f1.update([label], [pred])        # tp 2, fp 0, fn 1: precision 1, recall 2/3
    assert f1.get()[1] == pytest.approx(2 * (2 / 3) / (1 + 2 / 3))
    ppl = mx.metric.create("perplexity", ignore_label=None)
    ppl.update([label], [pred])
    assert ppl.get()[1] == pytest.approx(math.exp(-np.log([0.9, 0.8, 0.4, 0.7]).mean()), rel=1e-6)
    # a get_config() JSON creates the metric again (MXNet's registry; like
    # MXNet, F1's config does not carry `average`)
    cfg = mx.metric.create("perplexity", ignore_label=3, name="ppl").get_config()
    again = mx.metric.create(json.dumps(cfg))
    assert isinstance(again, mx.metric.Perplexity) and again.ignore_label == 3
    assert again.name == "ppl"


MXNET_METRICS = textwrap.dedent("""
    import sys, json, numpy as np, mxnet as mx
    d = sys.argv[1]
    cases = json.load(open(d + '/cases.json'))
    z = np.load(d + '/in.npz')
    out = {}
    for i, (name, kw) in enumerate(cases):
        m = mx.metric.create(name, **kw)
        for b in range(3):
            m.update([mx.nd.array(z['l%d_%d' % (i, b)])], [mx.nd.array(z['p%d_%d' % (i, b)])])
            if b == 1:
                m.reset_local()
        out[str(i)] = [m.get()[1], m.get_global()[1]]
    json.dump(out, open(d + '/out.json', 'w'))
""")


@pytest.mark.skipif(not os.path.exists(MXNET_PY), reason="no .venv-mxnet (mxnet==1.9.1) here")
def test_metrics_match_mxnet(tmp_path):
    arrays = {}
    for i, (name, _) in enumerate(METRIC_CASES):
        for b, (label, pred) in enumerate(_metric_batches()):
            arrays["l%d_%d" % (i, b)], arrays["p%d_%d" % (i, b)] = _metric_inputs(name, label, pred)
    np.savez(str(tmp_path / "in.npz"), **arrays)
    with open(tmp_path / "cases.json", "w") as f:
        json.dump(METRIC_CASES, f)
    p = subprocess.run([MXNET_PY, "-c", MXNET_METRICS, str(tmp_path)], capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    ref = json.loads((tmp_path / "out.json").read_text())
    for i, (name, kw) in enumerate(METRIC_CASES):
        m = mx.metric.create(name, **kw)
        for b in range(3):
            m.update([mx.nd.array(arrays["l%d_%d" % (i, b)])], [mx.nd.array(arrays["p%d_%d" % (i, b)])])
            if b == 1:
                m.reset_local()
        np.testing.assert_allclose([m.get()[1], m.get_global()[1]], ref[str(i)], rtol=1e-5,
                                   err_msg="%s %s" % (name, kw))


# -- initializers, sampler aliases, sparse storage ------------------------------------------

def test_bilinear_and_lstm_bias_initializers():
    arr = mx.nd.zeros((2, 1, 4, 3))
    mx.init.Bilinear()("up_weight", arr)
    shape = arr.shape
    f = np.ceil(shape[3] / 2.)
    c = (2 * f - 1 - f % 2) / (2. * f)
    want = np.zeros(int(np.prod(shape)), dtype=np.float32)
    for i in range(int(np.prod(shape))):       # MXNet 1.9.1's loop
        x = i % shape[3]
        y = (i // shape[3]) % shape[2]
        want[i] = (1 - abs(x / f - c)) * (1 - abs(y / f - c))
    np.testing.assert_allclose(arr.asnumpy(), want.reshape(shape), rtol=1e-6)
    bias = mx.nd.ones((8,))
    mx.init.LSTMBias(forget_bias=2.0)._init_weight("lstm_i2h_bias", bias)
    np.testing.assert_array_equal(bias.asnumpy(), [0, 0, 2, 2, 0, 0, 0, 0])
    assert mx.init.create('["bilinear", {}]').__class__ is mx.init.Bilinear


def test_sampler_aliases():
    mx.random.seed(5)
    a = mx.nd.uniform(low=-1, high=1, shape=(200,))
    mx.random.seed(5)
    b = mx.nd.random.uniform(-1, 1, shape=(200,))
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert -1 <= a.asnumpy().min() and a.asnumpy().max() < 1
    n = mx.nd.random_normal(loc=3.0, scale=0.5, shape=(4000,)).asnumpy()
    assert abs(n.mean() - 3.0) < 0.05 and abs(n.std() - 0.5) < 0.05
    assert mx.nd.normal is not None and mx.nd.random_uniform(shape=(2, 2)).shape == (2, 2)


def test_sparse_storage_is_a_clear_error():
    for call in (lambda: mx.nd.zeros((2, 2), stype="csr"),
                 lambda: mx.nd.ones((2,), stype="row_sparse"),
                 lambda: mx.nd.ones((2, 2)).tostype("csr"),
                 lambda: mx.nd.ones((2, 2)).attach_grad(stype="row_sparse"),
                 lambda: mx.nd.sparse.csr_matrix(([1.0], [0], [0, 1]), shape=(1, 2)),
                 lambda: mx.sym.sparse.dot(mx.sym.var("a"), mx.sym.var("b")),
                 lambda: mx.sym.var("x", stype="csr")):
        with pytest.raises(mx.MXNetError, match="sparse storage.*not supported by mxc"):
            call()
    assert mx.nd.zeros((2,), stype="default").stype == "default"


# -- compositions of compiled operators --------------------------------------------------

def test_split_values_and_gradient():
    """split / SliceChannel: the table operator (a composite of slice_axis)."""
    x = np.arange(24, dtype=np.float32).reshape(2, 6, 2)
    parts = mx.nd.split(mx.nd.array(x), num_outputs=3, axis=1)
    for got, want in zip(parts, np.split(x, 3, axis=1)):
        np.testing.assert_array_equal(got.asnumpy(), want)
    sq = mx.nd.split(mx.nd.array(x), num_outputs=2, axis=0, squeeze_axis=True)
    assert [p.shape for p in sq] == [(6, 2), (6, 2)]
    assert mx.nd.array(x).split(num_outputs=1, axis=-1).shape == (2, 6, 2)
    a = mx.nd.array(x)
    a.attach_grad()
    with mx.autograd.record():
        p0, p1 = mx.nd.SliceChannel(a, num_outputs=2, axis=2)
        loss = mx.nd.sum(p0 * 2.0) + mx.nd.sum(p1 * 3.0)
    loss.backward()
    want = np.zeros_like(x)
    want[..., 0] = 2.0
    want[..., 1] = 3.0
    np.testing.assert_array_equal(a.grad.asnumpy(), want)
    with pytest.raises(mx.MXNetError, match="4 does not evenly divide 6"):
        mx.nd.split(mx.nd.array(x), num_outputs=4, axis=1)
    with pytest.raises(mx.MXNetError, match="must be the same as num_outputs"):
        mx.nd.split(mx.nd.array(x), num_outputs=3, axis=1, squeeze_axis=True)


def test_norm():
    x = np.random.RandomState(0).uniform(-2, 2, (3, 4, 5)).astype(np.float32)
    a = mx.nd.array(x)
    np.testing.assert_allclose(mx.nd.norm(a).asnumpy(), [np.linalg.norm(x.ravel())], rtol=1e-6)
    np.testing.assert_allclose(a.norm(ord=1, axis=1).asnumpy(), np.abs(x).sum(axis=1), rtol=1e-6)
    np.testing.assert_allclose(mx.nd.norm(a, axis=(0, 2), keepdims=True).asnumpy(),
                               np.sqrt((x * x).sum(axis=(0, 2), keepdims=True)), rtol=1e-6)
    with pytest.raises(mx.MXNetError):
        mx.nd.norm(a, ord=3)


MXNET_UPDATE_OPS = textwrap.dedent("""
    import sys, json, numpy as np, mxnet as mx
    d = sys.argv[1]
    cases = json.load(open(d + '/cases.json'))
    z = np.load(d + '/in.npz')
    out = {}
    for i, (op, n_states, kw) in enumerate(cases):
        arrays = [mx.nd.array(z['a%d_%d' % (i, k)]) for k in range(2 + n_states)]
        res = getattr(mx.nd, op)(*arrays, out=arrays[0], **kw)
        fresh = [mx.nd.array(z['a%d_%d' % (i, k)]) for k in range(2 + n_states)]
        new = getattr(mx.nd, op)(*fresh, **kw)
        out[str(i)] = [a.asnumpy().tolist() for a in arrays] + [new.asnumpy().tolist(),
                                                               fresh[0].asnumpy().tolist()]
    json.dump(out, open(d + '/out.json', 'w'))
""")

UPDATE_OP_CASES = [
    ("signsgd_update", 0, {"lr": 0.01, "wd": 1e-3, "rescale_grad": 0.1, "clip_gradient": 1e-3}),
    ("signum_update", 1, {"lr": 0.01, "wd": 1e-3, "momentum": 0.5, "wd_lh": 1e-3,
                          "clip_gradient": 0.3}),
    ("nag_mom_update", 1, {"lr": 0.01, "wd": 0.1, "momentum": 0.9, "rescale_grad": 0.5}),
    ("ftml_update", 3, {"lr": 0.01, "t": 3, "wd": 1e-3, "clip_grad": 0.5}),
    ("ftrl_update", 2, {"lr": 0.1, "wd": 1e-3, "lamda1": 0.2}),
    ("rmsprop_update", 1, {"lr": 0.01, "wd": 1e-3, "clip_weights": 0.8}),
    ("rmspropalex_update", 3, {"lr": 0.01, "gamma2": 0.5}),
    ("lamb_update_phase1", 2, {"t": 2, "wd": 0.01, "rescale_grad": 0.5}),
]


@pytest.mark.skipif(not os.path.exists(MXNET_PY), reason="no .venv-mxnet (mxnet==1.9.1) here")
def test_nd_update_ops_match_mxnet(tmp_path):
    rng = np.random.RandomState(4)
    arrays = {}
    for i, (op, n_states, _) in enumerate(UPDATE_OP_CASES):
        for k in range(2 + n_states):
            a = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
            if op.startswith(("ftrl", "rmsprop", "ftml", "lamb")) and k >= 2:
                a = np.abs(a)          # accumulated squares are non-negative
            arrays["a%d_%d" % (i, k)] = a
    np.savez(str(tmp_path / "in.npz"), **arrays)
    with open(tmp_path / "cases.json", "w") as f:
        json.dump(UPDATE_OP_CASES, f)
    p = subprocess.run([MXNET_PY, "-c", MXNET_UPDATE_OPS, str(tmp_path)], capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    ref = json.loads((tmp_path / "out.json").read_text())
    for i, (op, n_states, kw) in enumerate(UPDATE_OP_CASES):
        a = [mx.nd.array(arrays["a%d_%d" % (i, k)]) for k in range(2 + n_states)]
        getattr(mx.nd, op)(*a, out=a[0], **kw)
        fresh = [mx.nd.array(arrays["a%d_%d" % (i, k)]) for k in range(2 + n_states)]
        new = getattr(mx.nd, op)(*fresh, **kw)
        got = [x.asnumpy() for x in a] + [new.asnumpy(), fresh[0].asnumpy()]
        for g, r in zip(got, ref[str(i)]):
            np.testing.assert_allclose(g, np.array(r, dtype=np.float32), rtol=1e-5, atol=1e-6,
                                       err_msg=op)


def test_sgld_noise_scale():
    mx.random.seed(1)
    opt = mx.optimizer.create("sgld", learning_rate=0.04)
    w = mx.nd.zeros((20000,))
    opt.update(0, w, mx.nd.zeros((20000,)), None)
    v = w.asnumpy()
    assert abs(v.mean()) < 0.01 and abs(v.std() - 0.2) < 0.01   # normal(0, sqrt(lr))


# -- mx.io.CSVIter ----------------------------------------------------------------------

CSV_PROBE = textwrap.dedent("""
    import sys, json
    mx = __import__(sys.argv[1])
    d = sys.argv[2]
    out = []
    for rb in (True, False):
        it = mx.io.CSVIter(data_csv=d + '/d.csv', data_shape=(3,), label_csv=d + '/l.csv',
                           batch_size=4, round_batch=rb)
        out.append([str(it.provide_data), str(it.provide_label)])
        for ep in range(3):
            for b in it:
                out.append([rb, ep, b.pad, b.index.tolist(), b.data[0].asnumpy().tolist(),
                            b.label[0].asnumpy().tolist()])
            it.reset()
    it = mx.io.CSVIter(data_csv=d + '/d.csv', data_shape=(1, 3), label_csv=d + '/l2.csv',
                       label_shape=(2,), batch_size=3, dtype='int32')
    b = it.next()
    out.append([str(it.provide_data), str(it.provide_label), b.data[0].asnumpy().tolist(),
                b.label[0].asnumpy().tolist(), str(b.data[0].dtype)])
    it = mx.io.CSVIter(data_csv=d + '/big.csv', data_shape=(2,), batch_size=2, dtype='int64')
    out.append(it.next().data[0].asnumpy().tolist())
    with open(d + '/out-%s.json' % sys.argv[1], 'w') as f:
        json.dump(out, f)
    # MXNet 1.9.1's iterator threads can deadlock its interpreter exit: leave
    # at once (the results are written).
    import os
    os._exit(0)
""")


def _csv_files(d):
    with open(d / "d.csv", "w") as f:
        f.write("".join("%d,%d,%d\n" % (3 * i, 3 * i + 1, 3 * i + 2) for i in range(10)))
    with open(d / "l.csv", "w") as f:
        f.write("".join("%d\n" % (10 * i) for i in range(10)))
    with open(d / "l2.csv", "w") as f:
        f.write("".join("%d,%d\n" % (i, -i) for i in range(10)))
    with open(d / "big.csv", "w") as f:
        f.write("2147483648,200000001\n9007199254740993,-5\n")


def _run_csv_probe(python, module, d, env=None):
    p = subprocess.run([python, "-c", CSV_PROBE, module, str(d)], capture_output=True, text=True,
                       timeout=300, env=env)
    assert p.returncode == 0, p.stderr[-2000:]
    return json.loads((d / ("out-%s.json" % module)).read_text())


def test_csv_iter_batches(tmp_path):
    _csv_files(tmp_path)
    it = mx.io.CSVIter(data_csv=str(tmp_path / "d.csv"), data_shape=(3,),
                       label_csv=str(tmp_path / "l.csv"), batch_size=4)
    got = [(b.pad, b.index.tolist()) for b in it]
    # round_batch: the last batch wraps to the start; the next epoch starts after it
    assert got == [(0, [0, 1, 2, 3]), (0, [4, 5, 6, 7]), (2, [8, 9, 0, 1])]
    it.reset()
    assert [b.index.tolist()[0] for b in it] == [2, 6]
    it = mx.io.CSVIter(data_csv=str(tmp_path / "d.csv"), data_shape=(3,), batch_size=4,
                       round_batch=False)
    last = list(it)[-1]
    assert last.pad == 2 and last.index.tolist() == [8, 9, 6, 7]    # previous batch's rows stay
    np.testing.assert_array_equal(last.data[0].asnumpy()[:2], [[24, 25, 26], [27, 28, 29]])
    assert last.label[0].shape == (4,) and not last.label[0].asnumpy().any()
    big = mx.io.CSVIter(data_csv=str(tmp_path / "big.csv"), data_shape=(2,), batch_size=2,
                        dtype="int64").next().data[0]
    assert big.asnumpy().tolist() == [[2147483648, 200000001], [9007199254740993, -5]]
    with pytest.raises(mx.MXNetError, match="needs 4"):
        mx.io.CSVIter(data_csv=str(tmp_path / "d.csv"), data_shape=(4,), batch_size=2)


@pytest.mark.skipif(not os.path.exists(MXNET_PY), reason="no .venv-mxnet (mxnet==1.9.1) here")
def test_csv_iter_matches_mxnet(tmp_path):
    _csv_files(tmp_path)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(mx.__file__)))
    mine = _run_csv_probe(sys.executable, "mxc", tmp_path, env)
    theirs = _run_csv_probe(MXNET_PY, "mxnet", tmp_path)
    assert mine == theirs


def test_current_scopes_are_thread_local_class_properties():
    import threading
    from mxc.attribute import AttrScope
    from mxc.name import NameManager
    old_scope, old_names = AttrScope.current, NameManager.current
    try:
        AttrScope.current = AttrScope(y="hi")            # MXNet's assignable class property
        NameManager.current = NameManager()
        NameManager.current.get(None, "main_thread")
        seen = {}

        def spawned():
            seen["attr"] = dict(AttrScope.current._attr)
            seen["names"] = dict(NameManager.current._counter)
            with mx.AttrScope(x="hello"):
                seen["in_with"] = dict(AttrScope.current._attr)
        t = threading.Thread(target=spawned)
        t.start()
        t.join()
        assert seen == {"attr": {}, "names": {}, "in_with": {"x": "hello"}}
        assert AttrScope.current._attr == {"y": "hi"} and "main_thread" in NameManager.current._counter
        assert NameManager.current() is NameManager.current   # calling it: the same manager
        assert mx.sym.var("v").attr("y") == "hi"
    finally:
        AttrScope.current, NameManager.current = old_scope, old_names


def test_symbol_fluent_methods():
    x = mx.sym.var("x")
    y = x.flatten().square().sum(axis=1).sqrt()
    assert y.list_arguments() == ["x"]
    exe = y.simple_bind(mx.cpu(), x=(2, 3, 2), grad_req="null")
    v = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    out = exe.forward(is_train=False, x=mx.nd.array(v))[0].asnumpy()
    np.testing.assert_allclose(out, np.sqrt((v.reshape(2, 6) ** 2).sum(axis=1)), rtol=1e-6)
    assert json.loads(x.abs().tojson())["nodes"][-1]["op"] == "abs"
    assert json.loads(x.sum(axis=0).tojson())["nodes"][-1]["attrs"] == {"axis": "0"}


ITER_PROBE = textwrap.dedent("""
    import sys, json
    import numpy as np
    mx = __import__(sys.argv[1])
    x = np.arange(40, dtype=np.float32).reshape(10, 4)
    y = np.arange(10, dtype=np.float32)
    out = []
    it = mx.io.ResizeIter(mx.io.NDArrayIter(x, y, batch_size=3), 5)
    for ep in range(2):
        out.append([[b.pad, b.data[0].asnumpy()[:, 0].tolist(), b.label[0].asnumpy().tolist()]
                    for b in it])
        it.reset()
    a = mx.io.NDArrayIter(x, y, batch_size=4, data_name='a', label_name='la')
    b = mx.io.NDArrayIter(x * 2, y * 2, batch_size=4, data_name='b', label_name='lb')
    it = mx.io.PrefetchingIter([a, b], rename_data=[{'a': 'A'}, {'b': 'B'}])
    out.append([[d.name, list(d.shape)] for d in it.provide_data])
    out.append([[d.name, list(d.shape)] for d in it.provide_label])
    for ep in range(2):
        out.append([[bt.pad, [d.asnumpy()[:, 0].tolist() for d in bt.data],
                     [l.asnumpy().tolist() for l in bt.label]] for bt in it])
        it.reset()
    with open(sys.argv[2], 'w') as f:
        json.dump(out, f)
    # MXNet 1.9.1's iterator threads can deadlock its interpreter exit: leave
    # at once (the results are written).
    import os
    os._exit(0)
""")


@pytest.mark.skipif(not os.path.exists(MXNET_PY), reason="no .venv-mxnet (mxnet==1.9.1) here")
def test_resize_and_prefetching_iter_match_mxnet(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(mx.__file__)))
    res = {}
    for python, module in ((sys.executable, "mxc"), (MXNET_PY, "mxnet")):
        f = tmp_path / (module + ".json")
        p = subprocess.run([python, "-c", ITER_PROBE, module, str(f)], capture_output=True,
                           text=True, timeout=300, env=env if module == "mxc" else None)
        assert p.returncode == 0, p.stderr[-2000:]
        res[module] = json.loads(f.read_text())
    assert res["mxc"] == res["mxnet"]


def test_resize_and_prefetching_iter():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    it = mx.io.ResizeIter(mx.io.NDArrayIter(x, batch_size=4), 4)   # 3 batches an epoch inside
    firsts = [b.data[0].asnumpy()[0, 0] for b in it]
    assert firsts == [0.0, 8.0, 16.0, 0.0]                         # wraps to the start
    pre = mx.io.PrefetchingIter(mx.io.NDArrayIter(x, batch_size=5))
    assert [b.data[0].asnumpy()[:, 0].tolist() for b in pre] == [[0, 2, 4, 6, 8],
                                                                 [10, 12, 14, 16, 18]]
    pre.reset()
    assert len(list(pre)) == 2


# -- mx.io.MNISTIter ------------------------------------------------------------------------

def _idx_files(d, n=10, rows=4, cols=3, gz=False):
    import gzip
    import struct
    rng = np.random.RandomState(0)
    imgs = rng.randint(0, 256, size=(n, rows, cols)).astype(np.uint8)
    labs = rng.randint(0, 10, size=n).astype(np.uint8)
    op = gzip.open if gz else open
    with op(str(d / "img"), "wb") as f:
        f.write(struct.pack(">iiii", 2051, n, rows, cols) + imgs.tobytes())
    with op(str(d / "lab"), "wb") as f:
        f.write(struct.pack(">ii", 2049, n) + labs.tobytes())
    return imgs, labs


def test_mnist_iter(tmp_path):
    imgs, labs = _idx_files(tmp_path, gz=True)
    it = mx.io.MNISTIter(image=str(tmp_path / "img"), label=str(tmp_path / "lab"), batch_size=3,
                         shuffle=False, silent=True)
    batches = list(it)
    assert len(batches) == 3                                   # 10 samples: full batches only
    np.testing.assert_array_equal(batches[1].data[0].asnumpy(),
                                  imgs[3:6].reshape(3, 1, 4, 3).astype(np.float32) / 256)
    np.testing.assert_array_equal(batches[2].label[0].asnumpy(), labs[6:9])
    it = mx.io.MNISTIter(image=str(tmp_path / "img"), label=str(tmp_path / "lab"), batch_size=2,
                         shuffle=True, seed=1, flat=True, num_parts=2, part_index=1, silent=True)
    got = np.concatenate([b.label[0].asnumpy() for b in it])   # part 1 of 2: samples 5..9
    assert len(got) == 4 and it.provide_data[0].shape == (2, 12)
    pool = labs[5:10].tolist()
    for v in got.tolist():
        pool.remove(v)                              # each label comes from that part


@pytest.mark.skipif(not os.path.exists(MXNET_PY), reason="no .venv-mxnet (mxnet==1.9.1) here")
def test_mnist_iter_matches_mxnet(tmp_path):
    _idx_files(tmp_path, n=11, rows=5, cols=2)
    probe = textwrap.dedent("""
        import sys, json
        mx = __import__(sys.argv[1]); d = sys.argv[2]
        out = []
        for kw in ({}, {'flat': True}, {'num_parts': 3, 'part_index': 2}):
            it = mx.io.MNISTIter(image=d + '/img', label=d + '/lab', batch_size=3, shuffle=False,
                                 silent=True, **kw)
            out.append([str(it.provide_data), str(it.provide_label)])
            for ep in range(2):
                out += [[b.pad, b.index.tolist(), b.data[0].asnumpy().tolist(),
                         b.label[0].asnumpy().tolist()] for b in it]
                it.reset()
        json.dump(out, open(d + '/' + sys.argv[1] + '.json', 'w'))
    """)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(mx.__file__)))
    for python, module in ((sys.executable, "mxc"), (MXNET_PY, "mxnet")):
        p = subprocess.run([python, "-c", probe, module, str(tmp_path)], capture_output=True,
                           text=True, timeout=300, env=env if module == "mxc" else None)
        assert p.returncode == 0, p.stderr[-2000:]
    assert (tmp_path / "mxc.json").read_text() == (tmp_path / "mxnet.json").read_text()


def test_add_n():
    rng = np.random.RandomState(1)
    xs = [rng.uniform(-1, 1, (3, 4)).astype(np.float32) for _ in range(4)]
    got = mx.nd.add_n(*[mx.nd.array(x) for x in xs]).asnumpy()
    want = ((xs[0] + xs[1]) + xs[2]) + xs[3]
    np.testing.assert_array_equal(got, want)
    out = mx.nd.zeros((3, 4))
    mx.nd.ElementWiseSum([mx.nd.array(x) for x in xs[:2]], out=out)
    np.testing.assert_array_equal(out.asnumpy(), xs[0] + xs[1])
    with pytest.raises(mx.MXNetError):
        mx.nd.add_n(mx.nd.ones((2,)), mx.nd.ones((3,)))


def test_symbol_has_no_truth_value():
    with pytest.raises(mx.base.NotImplementedForSymbol):
        bool(mx.sym.var("x"))
    assert len(mx.sym.Group([mx.sym.var("a"), mx.sym.var("b")])) == 2


def test_nd_and_sym_binary_functions():
    a = np.array([1.0, 5.0, 3.0], dtype=np.float32)
    b = np.array([[2.0], [4.0]], dtype=np.float32)
    A, B = mx.nd.array(a), mx.nd.array(b)
    np.testing.assert_array_equal(mx.nd.maximum(A, B).asnumpy(), np.maximum(a, b))
    np.testing.assert_array_equal(mx.nd.minimum(2, A).asnumpy(), np.minimum(2, a))
    np.testing.assert_array_equal(mx.nd.subtract(2, A).asnumpy(), 2 - a)
    np.testing.assert_allclose(mx.nd.divide(1, A).asnumpy(), 1 / a, rtol=1e-7)
    np.testing.assert_array_equal(mx.nd.power(A, 2).asnumpy(), a ** 2)
    np.testing.assert_array_equal(mx.nd.greater(2, A).asnumpy(), (2 > a).astype(np.float32))
    np.testing.assert_array_equal(mx.nd.lesser_equal(A, B).asnumpy(), (a <= b).astype(np.float32))
    assert mx.nd.maximum(2, 3) == 3 and mx.nd.add(1, 2) == 3
    x, y = mx.sym.var("x"), mx.sym.var("y")
    for expr, want in ((mx.sym.maximum(x, y), np.maximum(a, a[::-1])),
                       (mx.sym.minimum(x, 2.0), np.minimum(a, 2.0)),
                       (mx.sym.pow(2.0, x), 2.0 ** a), (mx.sym.power(x, y), a ** a[::-1])):
        args = [n for n in expr.list_arguments()]
        feed = {"x": mx.nd.array(a), "y": mx.nd.array(a[::-1].copy())}
        out = expr.bind(mx.cpu(), {n: feed[n] for n in args}).forward()[0].asnumpy()
        np.testing.assert_allclose(out, want, rtol=1e-6)
    assert json.loads(mx.sym.minimum(x, 2.0).tojson())["nodes"][-1]["op"] == "_minimum_scalar"


def test_positional_attributes_after_inputs():
    x = mx.nd.array([-2.0, 0.5, 3.0])
    np.testing.assert_array_equal(mx.nd.clip(x, -1, 1).asnumpy(), [-1.0, 0.5, 1.0])
    np.testing.assert_array_equal(mx.nd.sum(mx.nd.ones((2, 3)), 1).asnumpy(), [3.0, 3.0])
    np.testing.assert_array_equal(mx.nd.one_hot(mx.nd.array([1, 0]), 3).asnumpy(),
                                  [[0, 1, 0], [1, 0, 0]])
    s = mx.sym.clip(mx.sym.var("x"), 0.0, 1.0)
    assert json.loads(s.tojson())["nodes"][-1]["attrs"] == {"a_max": "1.0", "a_min": "0.0"}
    with pytest.raises(mx.MXNetError, match="given twice"):
        mx.nd.clip(x, -1, 1, a_min=0)
    with pytest.raises(mx.MXNetError, match="positional attributes"):
        mx.nd.clip(x, -1, 1, 2)
