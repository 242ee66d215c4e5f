"""Gradients of the layer ops (Convolution, Pooling, LRN, FullyConnected)
against central finite differences, in float64.

Each case goes through gradcheck.check_gradients (two `mxc run` processes:
the analytic gradients of every argument under a random head gradient, and
finite differences of mxc's own forward along random directions and sampled
coordinates). The same gradients are then compared, coordinate by
coordinate, with central differences of the numpy reference forward
(mxnet_ref, which must agree with mxc's forward output) of the loss
sum(head_grad * output): every coordinate of small arguments, a fixed random
sample of larger ones. The reference check needs no further mxc process.
"""
import json
import os
import sys
import tempfile

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gradcheck import check_gradients  # noqa: E402
from mxc_testing import assert_close, one_op_graph, run_graph  # noqa: E402
from mxnet_ref.graph import run_graph_ref  # noqa: E402

EPS = 1e-6
RTOL = 1e-5
ATOL = 1e-7
MAX_COORDS = 160  # per argument; beyond that a fixed random sample


def _check(graph, data, params, out_name, seed=0, positive=False):
    """check_gradients on the graph, then every (sampled) coordinate of each
    gradient against finite differences of the reference forward."""
    rng = np.random.default_rng(seed)
    if positive:  # lp pooling: away from the kink of |x| at 0
        data = {k: np.abs(v) + 0.5 for k, v in data.items()}
        params = {k: np.abs(v) + 0.5 for k, v in params.items()}
    values = dict(data)
    values.update(params)
    ref = run_graph_ref(graph, values)[out_name]
    head = rng.standard_normal(ref.shape)
    res = check_gradients(graph, inputs=data, params=params,
                          head_grads={out_name: head}, seed=seed)
    assert_close(res["outputs"][out_name], ref, rtol=1e-10, atol=1e-12, name=out_name)

    def loss(vals):
        return float(np.sum(head * run_graph_ref(graph, vals)[out_name]))

    for name, v in values.items():
        grad = res["grads"][name]
        assert grad.shape == v.shape and grad.dtype == np.float64, name
        flat = v.reshape(-1)
        idx = np.arange(flat.size)
        if flat.size > MAX_COORDS:
            idx = np.sort(rng.choice(flat.size, MAX_COORDS, replace=False))
        fd = np.empty(len(idx))
        for j, i in enumerate(idx):
            plus, minus = dict(values), dict(values)
            p, m = flat.copy(), flat.copy()
            p[i] += EPS
            m[i] -= EPS
            plus[name], minus[name] = p.reshape(v.shape), m.reshape(v.shape)
            fd[j] = (loss(plus) - loss(minus)) / (2 * EPS)
        got = grad.reshape(-1)[idx]
        err = np.abs(got - fd)
        bad = err > ATOL + RTOL * np.abs(fd)
        w = int(np.argmax(err))
        assert not bad.any(), "%s.grad: %d of %d coordinates differ; worst at %d: %r vs fd %r" % (
            name, int(bad.sum()), len(idx), int(idx[w]), got[w], fd[w])


def _rand(rng, *shape):
    return rng.standard_normal(shape)


# --------------------------------------------------------------------------
# Convolution: data, weight and bias gradients.
# --------------------------------------------------------------------------

CONV_CASES = [
    # id, data shape, attrs
    ("2d_stride_pad", (2, 3, 7, 6), dict(kernel=(3, 3), num_filter=4, stride=(2, 2), pad=(1, 1))),
    ("2d_dilate_groups_no_bias", (1, 4, 7, 7),
     dict(kernel=(3, 3), num_filter=6, num_group=2, dilate=(2, 2), pad=(1, 0), no_bias=True)),
    ("2d_depthwise", (2, 3, 5, 5), dict(kernel=(3, 3), num_filter=3, num_group=3, stride=(2, 1))),
    ("2d_pointwise", (2, 4, 3, 3), dict(kernel=(1, 1), num_filter=3)),
    # one output position whose window holds the whole input: the training
    # graph computes it as FullyConnected over the taps on the input
    ("2d_window_holds_1x1_input", (3, 5, 1, 1), dict(kernel=(3, 3), num_filter=4, pad=(1, 1))),
    ("2d_window_holds_2x2_input_no_bias", (2, 3, 2, 2),
     dict(kernel=(3, 3), num_filter=4, stride=(2, 2), pad=(1, 1), no_bias=True)),
    ("2d_window_holds_input_uneven", (2, 2, 1, 3),
     dict(kernel=(3, 4), num_filter=3, stride=(1, 2), pad=(1, 1))),
    ("1d_stride_pad_dilate", (2, 3, 11), dict(kernel=(3,), num_filter=2, stride=(2,), pad=(2,), dilate=(2,))),
    ("3d", (1, 2, 4, 5, 4), dict(kernel=(2, 3, 2), num_filter=3, stride=(1, 2, 1), pad=(1, 0, 1))),
]


@pytest.mark.parametrize("case", CONV_CASES, ids=[c[0] for c in CONV_CASES])
def test_convolution_grad(case):
    _, dshape, attrs = case
    no_bias = attrs.get("no_bias", False)
    inputs = ["data", "weight"] + ([] if no_bias else ["bias"])
    g = one_op_graph("Convolution", attrs, inputs)
    rng = np.random.default_rng(1)
    groups = attrs.get("num_group", 1)
    params = {"weight": _rand(rng, attrs["num_filter"], dshape[1] // groups, *attrs["kernel"])}
    if not no_bias:
        params["bias"] = _rand(rng, attrs["num_filter"])
    _check(g, {"data": _rand(rng, *dshape)}, params, "convolution_output")


# --------------------------------------------------------------------------
# Deconvolution: data, weight and bias gradients (Convolution of dy; the
# weight gradient with the roles of data and dy swapped).
# --------------------------------------------------------------------------

DECONV_CASES = [
    ("2d_stride_pad_adj_bias", (2, 3, 4, 3),
     dict(kernel=(3, 3), num_filter=4, stride=(2, 2), pad=(1, 1), adj=(1, 0), no_bias=False)),
    ("2d_groups_dilate", (1, 4, 4, 4), dict(kernel=(3, 3), num_filter=6, num_group=2, dilate=(2, 1))),
    ("2d_target_shape", (2, 2, 3, 3), dict(kernel=(4, 4), num_filter=3, stride=(2, 2),
                                           target_shape=(6, 5))),
    ("1d", (2, 3, 5), dict(kernel=(3,), num_filter=2, stride=(2,), pad=(1,), no_bias=False)),
    ("3d", (1, 2, 3, 2, 3), dict(kernel=(2, 2, 3), num_filter=2, stride=(1, 2, 1), pad=(0, 1, 1))),
]


@pytest.mark.parametrize("case", DECONV_CASES, ids=[c[0] for c in DECONV_CASES])
def test_deconvolution_grad(case):
    _, dshape, attrs = case
    no_bias = attrs.get("no_bias", True)
    inputs = ["data", "weight"] + ([] if no_bias else ["bias"])
    g = one_op_graph("Deconvolution", attrs, inputs)
    rng = np.random.default_rng(2)
    groups = attrs.get("num_group", 1)
    params = {"weight": _rand(rng, dshape[1], attrs["num_filter"] // groups, *attrs["kernel"])}
    if not no_bias:
        params["bias"] = _rand(rng, attrs["num_filter"])
    _check(g, {"data": _rand(rng, *dshape)}, params, "deconvolution_output")


# --------------------------------------------------------------------------
# Pooling: max / avg / sum x valid / full, global, 1-D / 2-D / 3-D, lp.
# --------------------------------------------------------------------------

POOL_CASES = []
for ptype in ("max", "avg", "sum"):
    for conv in ("valid", "full"):
        POOL_CASES.append(("2d_%s_%s" % (ptype, conv), (2, 2, 7, 6),
                           dict(kernel=(3, 3), pool_type=ptype, stride=(2, 2), pad=(1, 1),
                                pooling_convention=conv)))
    POOL_CASES.append(("2d_%s_global" % ptype, (2, 3, 4, 5),
                       dict(kernel=(1, 1), pool_type=ptype, global_pool=True)))
POOL_CASES += [
    ("2d_avg_no_count_pad_full", (1, 2, 6, 7),
     dict(kernel=(2, 3), pool_type="avg", stride=(3, 2), pad=(1, 1), pooling_convention="full",
          count_include_pad=False)),
    ("1d_max_full", (2, 3, 9), dict(kernel=(3,), pool_type="max", stride=(2,), pad=(1,),
                                    pooling_convention="full")),
    ("1d_avg_valid", (2, 3, 9), dict(kernel=(2,), pool_type="avg", stride=(2,), pad=(1,))),
    ("1d_sum_global", (2, 3, 5), dict(kernel=(1,), pool_type="sum", global_pool=True)),
    ("1d_max_same", (2, 3, 9), dict(kernel=(3,), pool_type="max", stride=(2,),
                                    pooling_convention="same")),
    ("1d_avg_same", (1, 2, 8), dict(kernel=(3,), pool_type="avg", stride=(3,),
                                    pooling_convention="same")),
    ("3d_avg", (1, 2, 4, 4, 5), dict(kernel=(2, 2, 3), pool_type="avg", stride=(2, 1, 2), pad=(1, 0, 1))),
    ("2d_lp2", (1, 2, 5, 6), dict(kernel=(2, 2), pool_type="lp", p_value=2, stride=(2, 2))),
]


@pytest.mark.parametrize("case", POOL_CASES, ids=[c[0] for c in POOL_CASES])
def test_pooling_grad(case):
    _, dshape, attrs = case
    g = one_op_graph("Pooling", attrs, ["data"])
    rng = np.random.default_rng(2)
    _check(g, {"data": _rand(rng, *dshape)}, {}, "pooling_output",
           positive=attrs["pool_type"] == "lp")


def test_max_pooling_routes_ties_to_first_maximum():
    """MXNet's max pooling backward gives the whole gradient to the first
    maximal element of each window in row-major window order (finite
    differences cannot see ties)."""
    g = one_op_graph("Pooling", dict(kernel=(2, 2), pool_type="max", stride=(2, 2)), ["data"])
    x = np.zeros((1, 1, 4, 4))
    x[0, 0, 2:, 2:] = [[1.0, 2.0], [2.0, 2.0]]   # ties at (2,3), (3,2), (3,3)
    x[0, 0, 2, 0] = -1.0                         # window (1, 0): ties at 0 after it
    with tempfile.TemporaryDirectory(prefix="mxc-grad-") as tmp:
        head = np.arange(1.0, 5.0).reshape(1, 1, 2, 2)
        hpath = os.path.join(tmp, "head.npy")
        np.save(hpath, head)
        out = run_graph(json.dumps(g), {"data": x},
                        extra_args=["--train", "--wrt", "data",
                                    "--head-grad", "pooling_output=%s" % hpath])
    expected = np.zeros((1, 1, 4, 4))
    expected[0, 0, 0, 0] = 1.0  # all zeros: the first element
    expected[0, 0, 0, 2] = 2.0
    expected[0, 0, 2, 1] = 3.0  # -1, 0, 0, 0: the first zero
    expected[0, 0, 2, 3] = 4.0  # 1, 2, 2, 2: the first 2
    np.testing.assert_array_equal(out["data.grad"], expected)


def test_float32_gradients_match_float64():
    """The f32 kernels (what real training runs) against the f64 ones on a
    Convolution -> Pooling(max) -> LRN chain, through one graph."""
    nodes = [
        {"op": "null", "name": "data", "inputs": []},
        {"op": "null", "name": "conv_weight", "inputs": []},
        {"op": "null", "name": "conv_bias", "inputs": []},
        {"op": "Convolution", "name": "conv", "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]],
         "attrs": {"kernel": "(3, 3)", "num_filter": "6", "num_group": "2", "pad": "(1, 1)",
                   "stride": "(2, 2)"}},
        {"op": "Pooling", "name": "pool", "inputs": [[3, 0, 0]],
         "attrs": {"kernel": "(3, 3)", "stride": "(2, 2)", "pool_type": "max",
                   "pooling_convention": "full"}},
        {"op": "LRN", "name": "lrn", "inputs": [[4, 0, 0]], "attrs": {"nsize": "3", "alpha": "0.5"}},
    ]
    g = json.dumps({"nodes": nodes, "arg_nodes": [0, 1, 2], "heads": [[5, 0, 0]],
                    "attrs": {"mxnet_version": ["int", 10901]}})
    rng = np.random.default_rng(6)
    vals = {"data": rng.standard_normal((2, 4, 9, 9)),
            "conv_weight": rng.standard_normal((6, 2, 3, 3)),
            "conv_bias": rng.standard_normal(6)}
    grads = {}
    for dt in (np.float64, np.float32):
        v = {k: a.astype(dt) for k, a in vals.items()}
        grads[dt] = run_graph(g, {"data": v["data"]},
                              params={k: v[k] for k in ("conv_weight", "conv_bias")},
                              extra_args=["--train", "--wrt", "data,conv_weight,conv_bias"])
    for name in ("data", "conv_weight", "conv_bias"):
        assert_close(grads[np.float32][name + ".grad"],
                     grads[np.float64][name + ".grad"].astype(np.float32),
                     rtol=1e-4, atol=1e-5, name=name + ".grad")


# --------------------------------------------------------------------------
# LRN and FullyConnected.
# --------------------------------------------------------------------------

# alpha / nsize exact in float32 (the reference computes its constants in
# float32 as MXNet does).
@pytest.mark.parametrize("nsize,alpha,beta,knorm", [(3, 0.375, 0.75, 1.5), (5, 0.625, 0.5, 2.0)])
def test_lrn_grad(nsize, alpha, beta, knorm):
    g = one_op_graph("LRN", dict(nsize=nsize, alpha=alpha, beta=beta, knorm=knorm), ["data"])
    rng = np.random.default_rng(3)
    _check(g, {"data": _rand(rng, 2, 6, 3, 2)}, {}, "lrn_output")


FC_CASES = [
    ("flatten", (3, 2, 2, 3), dict(num_hidden=5)),
    ("flatten_no_bias", (4, 6), dict(num_hidden=3, no_bias=True)),
    ("no_flatten", (2, 3, 4), dict(num_hidden=5, flatten=False)),
]


@pytest.mark.parametrize("case", FC_CASES, ids=[c[0] for c in FC_CASES])
def test_fully_connected_grad(case):
    _, dshape, attrs = case
    no_bias = attrs.get("no_bias", False)
    inputs = ["data", "weight"] + ([] if no_bias else ["bias"])
    g = one_op_graph("FullyConnected", attrs, inputs, name="fc")
    rng = np.random.default_rng(4)
    k = int(np.prod(dshape[1:])) if attrs.get("flatten", True) else dshape[-1]
    params = {"weight": _rand(rng, attrs["num_hidden"], k)}
    if not no_bias:
        params["bias"] = _rand(rng, attrs["num_hidden"])
    _check(g, {"data": _rand(rng, *dshape)}, params, "fc_output")


# --------------------------------------------------------------------------
# A whole network: LeNet (tools/zoo) differentiates end to end.
# --------------------------------------------------------------------------

def test_lenet_grad():
    """`mxc run --train` on the zoo's LeNet in float64: SoftmaxOutput's
    built-in gradient is that of the summed cross-entropy, so every
    parameter gradient must match finite differences of
    -sum(log p[label]) computed with the reference forward (a sample of
    coordinates per parameter)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))), "tools", "zoo"))
    import mxnet_zoo
    graph = json.loads(mxnet_zoo.symbol_json("lenet"))
    shapes = {"convolution0_weight": (20, 1, 5, 5), "convolution0_bias": (20,),
              "convolution1_weight": (50, 20, 5, 5), "convolution1_bias": (50,),
              "fullyconnected0_weight": (500, 800), "fullyconnected0_bias": (500,),
              "fullyconnected1_weight": (10, 500), "fullyconnected1_bias": (10,)}
    rng = np.random.default_rng(5)
    params = {k: rng.standard_normal(s) * (0.2 if len(s) > 1 else 0.1) for k, s in shapes.items()}
    x = rng.standard_normal((2, 1, 28, 28))
    label = np.array([3.0, 7.0])
    out = run_graph(json.dumps(graph), {"data": x, "softmax_label": label}, params=params,
                    extra_args=["--train"])
    values = dict(params, data=x, softmax_label=label)
    p_ref = run_graph_ref(graph, values)["softmax_output"]
    assert_close(out["softmax_output"], p_ref, rtol=1e-10, atol=1e-12)

    def loss(vals):
        p = run_graph_ref(graph, vals)["softmax_output"]
        return -float(np.sum(np.log(p[np.arange(2), label.astype(int)])))

    for name, v in params.items():
        grad = out[name + ".grad"]
        assert grad.shape == v.shape, name
        flat = v.reshape(-1)
        for i in rng.choice(flat.size, 4, replace=False):
            plus, minus = dict(values), dict(values)
            p, m = flat.copy(), flat.copy()
            p[i] += EPS
            m[i] -= EPS
            plus[name], minus[name] = p.reshape(v.shape), m.reshape(v.shape)
            fd = (loss(plus) - loss(minus)) / (2 * EPS)
            g = grad.reshape(-1)[i]
            assert abs(g - fd) <= 1e-6 + 1e-5 * abs(fd), "%s.grad[%d] = %r, fd %r" % (
                name, i, g, fd)


# --------------------------------------------------------------------------
# The composites (mx-decompose): gradients of their primitive operators.
# --------------------------------------------------------------------------

NORM_CASES = [
    ("layernorm_last", "LayerNorm", (3, 5), dict(eps=1e-3), (5,)),
    ("layernorm_axis1", "LayerNorm", (2, 3, 4), dict(axis=1), (3,)),
    ("instancenorm", "InstanceNorm", (2, 3, 4), dict(), (3,)),
    ("groupnorm", "GroupNorm", (2, 4, 3), dict(num_groups=2), (2,)),
]


@pytest.mark.parametrize("case", NORM_CASES, ids=[c[0] for c in NORM_CASES])
def test_normalization_grad(case):
    _, op, dshape, attrs, pshape = case
    g = one_op_graph(op, attrs, ["data", "gamma", "beta"])
    rng = np.random.default_rng(3)
    params = {"gamma": _rand(rng, *pshape), "beta": _rand(rng, *pshape)}
    _check(g, {"data": _rand(rng, *dshape)}, params, op.lower() + "_output")


@pytest.mark.parametrize("mode", ["instance", "channel", "spatial"])
def test_l2_normalization_grad(mode):
    g = one_op_graph("L2Normalization", dict(mode=mode), ["data"])
    rng = np.random.default_rng(4)
    _check(g, {"data": _rand(rng, 2, 3, 2, 2)}, {}, "l2normalization_output")


@pytest.mark.parametrize("mode", ["instance", "channel"])
def test_softmax_activation_grad(mode):
    g = one_op_graph("SoftmaxActivation", dict(mode=mode), ["data"])
    rng = np.random.default_rng(5)
    _check(g, {"data": _rand(rng, 2, 3, 2, 2)}, {}, "softmaxactivation_output")



# --------------------------------------------------------------------------
# RNN: gradients of data, parameters and the initial states through the
# unrolled composite (mx-decompose, then mx-autodiff of the primitives).
# --------------------------------------------------------------------------

@pytest.mark.parametrize("mode,bidirectional", [("lstm", True), ("gru", False),
                                                ("rnn_tanh", False)])
def test_rnn_grad(mode, bidirectional):
    T, N, I, H = 3, 2, 2, 2
    D = 2 if bidirectional else 1
    G = {"lstm": 4, "gru": 3}.get(mode, 1)
    inputs = ["data", "parameters", "state"] + (["state_cell"] if mode == "lstm" else [])
    g = one_op_graph("RNN", dict(mode=mode, state_size=H, num_layers=1,
                                 bidirectional=bidirectional), inputs)
    rng = np.random.default_rng(5)
    params = {"parameters": 0.5 * _rand(rng, (I + H + 2) * G * H * D),
              "state": _rand(rng, D, N, H)}
    if mode == "lstm":
        params["state_cell"] = _rand(rng, D, N, H)
    _check(g, {"data": _rand(rng, T, N, I)}, params, "rnn_output")


def test_ctc_loss_grad():
    """CTCLoss's data gradient (mx-autodiff of the unrolled log-space
    recursion) against finite differences."""
    g = one_op_graph("CTCLoss", dict(blank_label="last", use_data_lengths=True),
                     ["data", "label", "data_lengths"])
    rng = np.random.default_rng(6)
    params = {"label": np.array([[0.0, 1.0, -1.0], [2.0, 2.0, 1.0]]),
              "data_lengths": np.array([5.0, 4.0])}
    x = _rand(rng, 5, 2, 4)
    res = check_gradients(g, inputs={"data": x}, params=params,
                          exclude=("label", "data_lengths"),
                          head_grads={"ctcloss_output": rng.standard_normal(2)}, seed=6)
    ref = run_graph_ref(g, dict(params, data=x))["ctcloss_output"]
    assert_close(res["outputs"]["ctcloss_output"], ref, rtol=1e-10, atol=1e-12, name="ctc")


@pytest.mark.parametrize("op,axis", [("SequenceMask", 0), ("SequenceMask", 1),
                                     ("SequenceLast", 0), ("SequenceLast", 1),
                                     ("SequenceReverse", 0)])
def test_sequence_ops_grad(op, axis):
    """SequenceMask / SequenceLast (composites of where and a length mask)
    and SequenceReverse (a take of rows): the data gradient against finite
    differences (0 past the lengths for the mask)."""
    attrs = dict(use_sequence_length=True, axis=axis)
    g = one_op_graph(op, attrs, ["data", "sequence_length"])
    rng = np.random.default_rng(7)
    params = {"sequence_length": np.array([2.0, 4.0, 1.0])}
    x = _rand(rng, 4, 3, 2) if axis == 0 else _rand(rng, 3, 4, 2)
    out = op.lower() + "_output"
    shape = (4, 3, 2) if op in ("SequenceMask", "SequenceReverse") else (3, 2)
    if op == "SequenceMask" and axis == 1:
        shape = (3, 4, 2)
    res = check_gradients(g, inputs={"data": x}, params=params, exclude=("sequence_length",),
                          head_grads={out: rng.standard_normal(shape)}, seed=7)
    ref = run_graph_ref(g, dict(params, data=x))[out]
    assert_close(res["outputs"][out], ref, rtol=1e-10, atol=1e-12, name=op)
