"""Layer operators through `mxc run`, against the numpy references.

FullyConnected, dot, batch_dot, Convolution, Pooling, BatchNorm and LRN, f32
(a few f64), random inputs, several attribute combinations each; rtol 1e-4.
GEMM-class ops run the runtime's OpenBLAS kernels; their shapes here cover
both convolution paths (per image and batched im2col) and 1x1 convolutions.
"""
import numpy as np
import pytest

from mxc_testing import assert_close, one_op_graph, run_graph
from mxnet_ref import REF

RTOL = 1e-4


def _rand(rng, shape, dtype=np.float32, low=-1.0, high=1.0):
    return rng.uniform(low, high, size=shape).astype(dtype)


def check(op, attrs, data, params=(), num_outputs=1, rtol=RTOL, atol=1e-6):
    """Runs one `op` node with `data` as the graph input and `params` (name,
    array) as its other inputs, and compares the first `num_outputs` outputs
    with the reference."""
    params = list(params)
    names = ["data"] + [n for n, _ in params]
    graph = one_op_graph(op, attrs, names, name="node", num_outputs=num_outputs)
    str_attrs = graph["nodes"][-1].get("attrs", {})
    expected = REF[op]([data] + [a for _, a in params], str_attrs)
    got = run_graph(graph, {"data": data}, params=dict(params))
    got = list(got.values())
    assert len(got) == num_outputs
    for i in range(num_outputs):
        assert_close(got[i], expected[i], rtol=rtol, atol=atol, name="%s output %d" % (op, i))


# --- FullyConnected, dot, batch_dot -------------------------------------

@pytest.mark.parametrize("shape,flatten,no_bias", [
    ((4, 3, 5, 5), True, False),
    ((4, 3, 5, 5), True, True),
    ((2, 3, 7), False, False),
    ((2, 3, 7), False, True),
    ((6, 1), True, False),
    ((33, 300), True, False),
])
def test_fully_connected(shape, flatten, no_bias):
    rng = np.random.default_rng(1)
    hidden = 17
    k = int(np.prod(shape[1:])) if flatten else shape[-1]
    params = [("weight", _rand(rng, (hidden, k)))]
    if not no_bias:
        params.append(("bias", _rand(rng, (hidden,))))
    check("FullyConnected", {"num_hidden": hidden, "flatten": flatten, "no_bias": no_bias},
          _rand(rng, shape), params)


def test_fully_connected_f64():
    rng = np.random.default_rng(2)
    check("FullyConnected", {"num_hidden": 5}, _rand(rng, (3, 8), np.float64),
          [("weight", _rand(rng, (5, 8), np.float64)), ("bias", _rand(rng, (5,), np.float64))])


@pytest.mark.parametrize("a,b,ta,tb", [
    ((3, 4), (4, 5), False, False),
    ((4, 3), (4, 5), True, False),
    ((3, 4), (5, 4), False, True),
    ((4, 2, 3), (5, 4), True, True),
    ((2, 3, 4), (4, 5, 2), False, False),
    ((7,), (7,), False, False),
    ((7,), (7, 3), False, False),
    ((64, 128), (128, 96), False, False),
])
def test_dot(a, b, ta, tb):
    rng = np.random.default_rng(3)
    check("dot", {"transpose_a": ta, "transpose_b": tb}, _rand(rng, a), [("rhs", _rand(rng, b))])


@pytest.mark.parametrize("a,b,ta,tb", [
    ((3, 2, 4), (3, 4, 5), False, False),
    ((3, 4, 2), (3, 4, 5), True, False),
    ((3, 2, 4), (3, 5, 4), False, True),
    ((2, 3, 4, 2), (2, 3, 5, 4), True, True),
])
def test_batch_dot(a, b, ta, tb):
    rng = np.random.default_rng(4)
    check("batch_dot", {"transpose_a": ta, "transpose_b": tb}, _rand(rng, a), [("rhs", _rand(rng, b))])


# --- Convolution -------------------------------------------------------------

CONV_CASES = [
    # (data shape, num_filter, attrs)
    ((2, 3, 9, 9), 5, {"kernel": (3, 3), "pad": (1, 1)}),
    ((1, 2, 9, 8), 4, {"kernel": (3, 2), "stride": (2, 1), "dilate": (2, 2), "pad": (1, 2), "no_bias": True}),
    ((2, 6, 8, 8), 6, {"kernel": (3, 3), "num_group": 3, "stride": (2, 2)}),
    ((2, 4, 7, 7), 4, {"kernel": (3, 3), "num_group": 4, "pad": (1, 1)}),        # depthwise
    ((3, 4, 5, 5), 6, {"kernel": (1, 1)}),                                      # 1x1, batched GEMM
    ((1, 4, 5, 5), 6, {"kernel": (1, 1), "num_group": 2, "no_bias": True}),
    ((4, 5, 9, 9), 8, {"kernel": (3, 3), "pad": (1, 1), "stride": (2, 2)}),     # batched im2col
    ((5, 3, 30, 30), 4, {"kernel": (3, 3), "pad": (1, 1)}),                     # batch in chunks 3 + 2
    ((2, 3, 40, 40), 4, {"kernel": (5, 5), "pad": (2, 2)}),                     # per-image im2col
    ((2, 3, 11), 4, {"kernel": (3,), "pad": (2,), "dilate": (2,), "stride": (2,)}),
    ((2, 4, 4, 6, 6), 4, {"kernel": (2, 3, 3), "pad": (1, 1, 1), "stride": (1, 2, 2), "num_group": 2}),
    ((1, 2, 5, 5, 5), 3, {"kernel": (3, 3, 3), "dilate": (1, 2, 2), "pad": (1, 2, 2), "no_bias": True}),
]


@pytest.mark.parametrize("shape,filters,attrs", CONV_CASES)
def test_convolution(shape, filters, attrs):
    rng = np.random.default_rng(5)
    attrs = dict(attrs, num_filter=filters)
    groups = attrs.get("num_group", 1)
    wshape = (filters, shape[1] // groups) + tuple(attrs["kernel"])
    params = [("weight", _rand(rng, wshape))]
    if not attrs.get("no_bias", False):
        params.append(("bias", _rand(rng, (filters,))))
    check("Convolution", attrs, _rand(rng, shape), params)


def test_convolution_f64():
    rng = np.random.default_rng(6)
    check("Convolution", {"kernel": (3, 3), "num_filter": 3, "pad": (1, 1), "stride": (2, 2)},
          _rand(rng, (2, 2, 7, 7), np.float64),
          [("weight", _rand(rng, (3, 2, 3, 3), np.float64)), ("bias", _rand(rng, (3,), np.float64))])


@pytest.mark.parametrize("attrs", [
    {"kernel": (3, 3), "pad": (1, 1)},
    {"kernel": (3, 3), "pad": (1, 1), "stride": (2, 2), "no_bias": True},
    {"kernel": (5, 3), "pad": (2, 0), "dilate": (1, 2), "stride": (1, 3)},
    {"kernel": (3,), "pad": (1,), "stride": (2,)},
])
@pytest.mark.parametrize("impl", ["default", "im2col"])
def test_convolution_depthwise_direct(attrs, impl, monkeypatch):
    # One filter per channel: the runtime's direct NCHW kernel (depthwise.h)
    # for f64, and for f32 where oneDNN is not used (MXC_CONV_IMPL=im2col,
    # as on aarch64); oneDNN's for f32 otherwise.
    if impl == "im2col":
        monkeypatch.setenv("MXC_CONV_IMPL", "im2col")
    rng = np.random.default_rng(7)
    spatial = (9, 11) if len(attrs["kernel"]) == 2 else (13,)
    for dtype in (np.float32, np.float64):
        params = [("weight", _rand(rng, (6, 1) + attrs["kernel"], dtype))]
        if not attrs.get("no_bias"):
            params.append(("bias", _rand(rng, (6,), dtype)))
        check("Convolution", dict(attrs, num_filter=6, num_group=6),
              _rand(rng, (2, 6) + spatial, dtype), params)


# --- Deconvolution -----------------------------------------------------------

DECONV_CASES = [
    # (data shape, num_filter, attrs); MXNet's default is no_bias=True
    ((2, 3, 5, 5), 4, {"kernel": (3, 3), "no_bias": False}),
    ((1, 4, 4, 4), 3, {"kernel": (4, 4), "stride": (2, 2), "pad": (1, 1)}),
    ((2, 4, 5, 6), 6, {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1), "adj": (1, 1),
                        "num_group": 2, "no_bias": False}),
    ((1, 2, 5, 5), 2, {"kernel": (3, 3), "stride": (3, 2), "dilate": (2, 2), "pad": (2, 1),
                        "adj": (2, 0)}),
    ((2, 3, 4, 4), 2, {"kernel": (3, 3), "stride": (2, 2), "target_shape": (8, 7)}),
    ((2, 4, 3, 3), 4, {"kernel": (1, 1), "num_group": 4}),                       # pointwise
    ((2, 3, 7), 4, {"kernel": (3,), "stride": (2,), "pad": (1,), "no_bias": False}),
    ((1, 2, 3, 4, 3), 3, {"kernel": (2, 3, 2), "stride": (2, 1, 2), "pad": (0, 1, 1)}),
]


@pytest.mark.parametrize("shape,filters,attrs", DECONV_CASES)
def test_deconvolution(shape, filters, attrs):
    rng = np.random.default_rng(15)
    attrs = dict(attrs, num_filter=filters)
    groups = attrs.get("num_group", 1)
    wshape = (shape[1], filters // groups) + tuple(attrs["kernel"])
    params = [("weight", _rand(rng, wshape))]
    if not attrs.get("no_bias", True):
        params.append(("bias", _rand(rng, (filters,))))
    check("Deconvolution", attrs, _rand(rng, shape), params)


def test_deconvolution_f64():
    rng = np.random.default_rng(16)
    check("Deconvolution", {"kernel": (3, 3), "num_filter": 3, "pad": (1, 1), "stride": (2, 2),
                            "adj": (1, 1), "no_bias": False},
          _rand(rng, (2, 2, 4, 4), np.float64),
          [("weight", _rand(rng, (2, 3, 3, 3), np.float64)), ("bias", _rand(rng, (3,), np.float64))])


# --- Pooling -----------------------------------------------------------------

@pytest.mark.parametrize("pool_type", ["max", "avg", "sum"])
@pytest.mark.parametrize("convention", ["valid", "full"])
@pytest.mark.parametrize("kernel,stride,pad", [
    ((3, 3), (2, 2), (1, 1)),
    ((2, 2), (2, 2), (0, 0)),
    ((3, 2), (2, 3), (1, 0)),
])
def test_pooling(pool_type, convention, kernel, stride, pad):
    rng = np.random.default_rng(7)
    check("Pooling", {"kernel": kernel, "pool_type": pool_type, "stride": stride, "pad": pad,
                      "pooling_convention": convention}, _rand(rng, (2, 3, 9, 8)))


@pytest.mark.parametrize("pool_type", ["max", "avg", "sum"])
@pytest.mark.parametrize("shape", [(2, 3, 5, 6), (2, 3, 7), (1, 2, 3, 4, 5)])
def test_pooling_global(pool_type, shape):
    rng = np.random.default_rng(8)
    kernel = (2,) * (len(shape) - 2)
    check("Pooling", {"kernel": kernel, "pool_type": pool_type, "global_pool": True},
          _rand(rng, shape))


@pytest.mark.parametrize("convention", ["valid", "full"])
def test_pooling_avg_exclude_pad(convention):
    rng = np.random.default_rng(9)
    check("Pooling", {"kernel": (3, 3), "pool_type": "avg", "stride": (2, 2), "pad": (1, 1),
                      "pooling_convention": convention, "count_include_pad": False},
          _rand(rng, (1, 2, 8, 8)))


@pytest.mark.parametrize("pool_type", ["max", "avg"])
def test_pooling_same(pool_type):
    rng = np.random.default_rng(10)
    check("Pooling", {"kernel": (3,), "pool_type": pool_type, "stride": (2,),
                      "pooling_convention": "same"}, _rand(rng, (2, 3, 8)))


def test_pooling_3d():
    rng = np.random.default_rng(11)
    check("Pooling", {"kernel": (2, 2, 2), "pool_type": "avg", "stride": (2, 2, 2),
                      "pooling_convention": "full"}, _rand(rng, (1, 2, 5, 5, 5)))


@pytest.mark.parametrize("p", [1, 2, 3])
def test_pooling_lp(p):
    rng = np.random.default_rng(12)
    check("Pooling", {"kernel": (2, 2), "pool_type": "lp", "p_value": p, "stride": (2, 2)},
          _rand(rng, (1, 2, 6, 6), low=0.1, high=1.0))


# --- BatchNorm, LRN ------------------------------------------------------------

@pytest.mark.parametrize("use_global_stats", [False, True])
@pytest.mark.parametrize("fix_gamma", [False, True])
@pytest.mark.parametrize("shape,axis", [((2, 4, 3, 3), 1), ((2, 3, 5), -1), ((3, 6), 1)])
def test_batch_norm(use_global_stats, fix_gamma, shape, axis):
    rng = np.random.default_rng(13)
    c = shape[axis]
    params = [("gamma", _rand(rng, (c,))), ("beta", _rand(rng, (c,))),
              ("moving_mean", _rand(rng, (c,))), ("moving_var", _rand(rng, (c,), low=0.5, high=2.0))]
    check("BatchNorm", {"use_global_stats": use_global_stats, "fix_gamma": fix_gamma,
                        "axis": axis, "eps": 1e-5}, _rand(rng, shape), params)


def test_batch_norm_mean_var_outputs():
    # output_mean_var exposes MXNet's hidden outputs: in inference the moving
    # mean and the inverse standard deviation 1 / sqrt(moving_var + eps).
    rng = np.random.default_rng(14)
    params = [("gamma", _rand(rng, (4,))), ("beta", _rand(rng, (4,))),
              ("moving_mean", _rand(rng, (4,))), ("moving_var", _rand(rng, (4,), low=0.5, high=2.0))]
    check("BatchNorm", {"fix_gamma": False, "output_mean_var": True}, _rand(rng, (2, 4, 3, 3)),
          params, num_outputs=3)


@pytest.mark.parametrize("attrs", [
    {"nsize": 5},
    {"nsize": 3, "alpha": 0.01, "beta": 0.5, "knorm": 1.0},
    {"nsize": 1},
])
def test_lrn(attrs):
    rng = np.random.default_rng(15)
    check("LRN", attrs, _rand(rng, (2, 8, 3, 3), low=-2.0, high=2.0))


@pytest.mark.parametrize("attrs,shape", [
    # the runtime's kernel: rows longer than its 256-element chunks, each
    # exponent it treats apart (0.75, 0.5, 1, other), a window wider than
    # the 64 channels it sums at once
    ({"nsize": 5}, (2, 7, 17, 19)),
    ({"nsize": 3, "beta": 0.5, "knorm": 1.0}, (1, 4, 15, 20)),
    ({"nsize": 7, "beta": 1.0, "alpha": 0.01}, (2, 9, 5, 5)),
    ({"nsize": 5, "beta": 0.6, "knorm": 0.5}, (2, 6, 4, 4)),
    ({"nsize": 67, "alpha": 0.1}, (1, 70, 3, 3)),
], ids=str)
def test_lrn_kernel(attrs, shape):
    rng = np.random.default_rng(16)
    check("LRN", attrs, _rand(rng, shape, low=-2.0, high=2.0))


# --- LayerNorm, InstanceNorm, GroupNorm, L2Normalization (composites) --------

@pytest.mark.parametrize("shape,axis", [((2, 5), -1), ((3, 4, 5), 1), ((2, 3, 4), 0)])
def test_layer_norm(shape, axis):
    rng = np.random.default_rng(40)
    c = shape[axis]
    check("LayerNorm", {"axis": axis, "eps": 1e-3, "output_mean_var": True},
          _rand(rng, shape), [("gamma", _rand(rng, (c,))), ("beta", _rand(rng, (c,)))],
          num_outputs=3, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 3, 4, 4)])
def test_instance_norm(shape):
    rng = np.random.default_rng(41)
    check("InstanceNorm", {}, _rand(rng, shape),
          [("gamma", _rand(rng, (shape[1],))), ("beta", _rand(rng, (shape[1],)))],
          rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape,groups", [((2, 4, 3), 2), ((2, 6, 2, 2), 3), ((1, 3, 4), 1)])
def test_group_norm(shape, groups):
    rng = np.random.default_rng(42)
    check("GroupNorm", {"num_groups": groups, "output_mean_var": True}, _rand(rng, shape),
          [("gamma", _rand(rng, (groups,))), ("beta", _rand(rng, (groups,)))],
          num_outputs=3, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode,shape", [("instance", (3, 4)), ("instance", (2, 3, 4)),
                                        ("channel", (2, 3, 4)), ("spatial", (2, 3, 2, 2))])
def test_l2_normalization(mode, shape):
    rng = np.random.default_rng(43)
    check("L2Normalization", {"mode": mode}, _rand(rng, shape), rtol=1e-5, atol=1e-6)



# --- RNN (the fused recurrent operator, unrolled by mx-decompose) ---------

@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
@pytest.mark.parametrize("layers,bidirectional", [(1, False), (2, True)])
def test_rnn(mode, layers, bidirectional):
    rng = np.random.default_rng(7)
    T, N, I, H = 4, 3, 5, 6
    D = 2 if bidirectional else 1
    G = {"lstm": 4, "gru": 3}.get(mode, 1)
    size = (I + H + 2) * G * H * D + (layers - 1) * (D * H + H + 2) * G * H * D
    params = [("parameters", _rand(rng, (size,), low=-0.5, high=0.5)),
              ("state", _rand(rng, (layers * D, N, H)))]
    if mode == "lstm":
        params.append(("state_cell", _rand(rng, (layers * D, N, H))))
    check("RNN", {"mode": mode, "state_size": H, "num_layers": layers,
                  "bidirectional": bidirectional, "state_outputs": True},
          _rand(rng, (T, N, I)), params, num_outputs=3 if mode == "lstm" else 2, rtol=1e-4)


def test_rnn_errors():
    rng = np.random.default_rng(8)
    x = _rand(rng, (2, 1, 3))
    graph = one_op_graph("RNN", {"mode": "gru", "state_size": 2, "num_layers": 1},
                         ["data", "parameters", "state"], name="node")
    with pytest.raises(Exception, match="parameters has shape \\(10,\\), expected \\(42,\\)"):
        run_graph(graph, {"data": x}, params={"parameters": _rand(rng, (10,)),
                                              "state": _rand(rng, (1, 1, 2))})
    graph = one_op_graph("RNN", {"mode": "lstm", "state_size": 2, "num_layers": 1,
                                 "use_sequence_length": True},
                         ["data", "parameters", "state", "state_cell", "sequence_length"],
                         name="node")
    with pytest.raises(Exception, match="use_sequence_length=True .* not supported"):
        run_graph(graph, {"data": x}, params={"parameters": _rand(rng, (72,)),
                                              "state": _rand(rng, (1, 1, 2)),
                                              "state_cell": _rand(rng, (1, 1, 2)),
                                              "sequence_length": _rand(rng, (1,))})


# --- CTCLoss (a composite: the alpha recursion unrolled over T) ----------

@pytest.mark.parametrize("blank,lengths", [("first", False), ("last", False), ("last", True),
                                           ("first", True)])
def test_ctc_loss(blank, lengths):
    rng = np.random.default_rng(9)
    T, N, A, L = 7, 3, 5, 3
    if blank == "first":   # classes 1..A-1, padding 0
        label = np.array([[1, 2, 2], [3, 0, 0], [4, 1, 0]], np.float32)
    else:                  # classes 0..A-2, padding -1
        label = np.array([[0, 2, 2], [3, -1, -1], [1, 0, -1]], np.float32)
    params = [("label", label)]
    attrs = {"blank_label": blank}
    if lengths:   # explicit lengths override the padding
        params += [("data_lengths", np.array([7, 5, 6], np.float32)),
                   ("label_lengths", np.array([3, 1, 1], np.float32))]
        attrs.update(use_data_lengths=True, use_label_lengths=True)
    check("CTCLoss", attrs, _rand(rng, (T, N, A), low=-2, high=2), params, rtol=1e-5)



# --- SequenceMask / SequenceLast (composites) -----------------------------

@pytest.mark.parametrize("op", ["SequenceMask", "SequenceLast"])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("lengths", [None, [1, 4, 0], [3, 2, 9]])
def test_sequence_ops(op, axis, lengths):
    rng = np.random.default_rng(3)
    data = _rand(rng, (4, 3, 2, 5) if axis == 0 else (3, 4, 2, 5))
    if lengths is not None:   # NaN past the lengths: never read
        for n, length in enumerate(lengths):
            for t in range(max(length, 1) if op == "SequenceLast" else length, 4):
                if axis == 0:
                    data[t, n] = np.nan
                else:
                    data[n, t] = np.nan
    attrs = {"axis": axis}
    if op == "SequenceMask":
        attrs["value"] = -2.5
    params = []
    if lengths is not None:
        attrs["use_sequence_length"] = True
        params = [("sequence_length", np.array(lengths, np.float32))]
    check(op, attrs, data, params)


def test_sequence_ops_errors():
    rng = np.random.default_rng(4)
    g = one_op_graph("SequenceMask", {"use_sequence_length": True},
                     ["data", "sequence_length"], name="mask")
    with pytest.raises(Exception, match="mask.*sequence_length must be \\(3\\), got \\(4,\\)"):
        run_graph(g, {"data": _rand(rng, (4, 3))},
                  params={"sequence_length": np.ones(4, np.float32)})
    g = one_op_graph("SequenceLast", {"axis": 2}, ["data"], name="last")
    with pytest.raises(Exception, match="last.*axis must be 0 or 1"):
        run_graph(g, {"data": _rand(rng, (4, 3, 2))})


# --- im2col / col2im ------------------------------------------------------

SLIDING = [
    ((2, 3, 7, 6), {"kernel": (3, 3)}),
    ((2, 3, 7, 6), {"kernel": (3, 3), "stride": (2, 2)}),
    ((2, 3, 7, 6), {"kernel": (3, 2), "stride": (2, 1), "dilate": (2, 2), "pad": (1, 2)}),
    ((1, 2, 5, 5), {"kernel": (1, 1)}),
    ((2, 2, 9), {"kernel": (3,), "stride": (2,), "pad": (1,)}),
    ((1, 2, 4, 5, 4), {"kernel": (2, 2, 2), "dilate": (1, 2, 1), "pad": (1, 0, 1)}),
]


@pytest.mark.parametrize("shape,attrs", SLIDING)
def test_im2col(shape, attrs):
    check("im2col", attrs, _rand(np.random.default_rng(40), shape))


@pytest.mark.parametrize("shape,attrs", SLIDING)
def test_col2im(shape, attrs):
    col_shape = REF["im2col"]([np.zeros(shape, np.float32)],
                              one_op_graph("im2col", attrs, ["data"])["nodes"][-1]["attrs"])[0].shape
    check("col2im", dict(attrs, output_size=shape[2:]),
          _rand(np.random.default_rng(41), col_shape), rtol=1e-5)


# --- interleaved_matmul_* (the transformer's attention products) -----------

@pytest.mark.parametrize("heads", [1, 3])
def test_interleaved_matmul_selfatt(heads):
    rng = np.random.default_rng(42)
    qkv = _rand(rng, (6, 2, 3 * 4 * heads))
    check("_contrib_interleaved_matmul_selfatt_qk", {"heads": heads}, qkv)
    check("_contrib_interleaved_matmul_selfatt_valatt", {"heads": heads}, qkv,
          [("attention", _rand(rng, (2 * heads, 6, 6)))])


@pytest.mark.parametrize("heads", [1, 3])
def test_interleaved_matmul_encdec(heads):
    rng = np.random.default_rng(43)
    kv = _rand(rng, (7, 2, 2 * 4 * heads))
    check("_contrib_interleaved_matmul_encdec_qk", {"heads": heads},
          _rand(rng, (5, 2, 4 * heads)), [("keys_values", kv)])
    check("_contrib_interleaved_matmul_encdec_valatt", {"heads": heads}, kv,
          [("attention", _rand(rng, (2 * heads, 5, 7)))])


# --- GridGenerator ----------------------------------------------------------

@pytest.mark.parametrize("attrs,shape", [
    ({"transform_type": "affine", "target_shape": (5, 7)}, (3, 6)),
    ({"transform_type": "affine", "target_shape": (2, 2)}, (1, 6)),
    ({"transform_type": "warp"}, (2, 2, 4, 6)),
])
def test_grid_generator(attrs, shape):
    check("GridGenerator", attrs, _rand(np.random.default_rng(44), shape), num_outputs=2,
          rtol=1e-5)


# --- BilinearSampler, SpatialTransformer -------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bilinear_sampler(dtype):
    # grid points inside, on and past every edge of the image
    rng = np.random.default_rng(45)
    grid = _rand(rng, (2, 2, 5, 7), dtype, -1.4, 1.4)
    grid[0, :, 0, 0] = [-1.0, -1.0]
    grid[0, :, 0, 1] = [1.0, 1.0]
    check("BilinearSampler", {}, _rand(rng, (2, 3, 6, 8), dtype), [("grid", grid)],
          num_outputs=2, rtol=1e-5)


def test_spatial_transformer():
    rng = np.random.default_rng(46)
    loc = np.array([[0.9, 0.1, 0.05, -0.2, 1.1, 0.03], [1.3, -0.4, 0.2, 0.25, 0.7, -0.1]],
                   np.float32)
    check("SpatialTransformer", {"target_shape": (5, 6), "transform_type": "affine",
                                 "sampler_type": "bilinear"},
          _rand(rng, (2, 3, 7, 9)), [("loc", loc)], num_outputs=3, rtol=1e-5)


# --- contrib quantize / dequantize (MXNet 1.9.1's PyPI build: oneDNN's) ------

@pytest.mark.parametrize("out_type", ["int8", "uint8"])
def test_quantize_dequantize(out_type):
    rng = np.random.default_rng(47)
    x = _rand(rng, (4, 6), low=-1.5, high=2.0)
    # ties (x * scale = k + 0.5 round to even) and values past the range
    x[0, :4] = np.array([0.5, 1.5, 2.5, 4.0], np.float32) / (127 if out_type == "int8" else 255)
    lo, hi = np.array([-0.5], np.float32), np.array([1.0], np.float32)
    check("_contrib_quantize", {"out_type": out_type}, x,
          [("min_range", lo), ("max_range", hi)], num_outputs=3, rtol=0, atol=0)
    q = REF["_contrib_quantize"]([x, lo, hi], {"out_type": out_type})[0]
    check("_contrib_dequantize", {}, q, [("min_range", lo), ("max_range", hi)], rtol=1e-6)


# --- region ops: ROIAlign, PSROIPooling (composites) ---------------------

_ROIS = np.array([[0, 1.1, 1.1, 6.2, 6.2], [1, 6.1, 2.1, 8.2, 11.2], [1, -4.0, -3.0, 30.0, 25.0],
                  [0, 2.0, 3.0, 2.3, 3.1], [-1, 1.0, 1.0, 4.0, 4.0],
                  # inverted (x2 < x1, y2 < y1): with aligned, negative bins
                  [0, 7.0, 9.0, 3.0, 2.0]], np.float32)


@pytest.mark.parametrize("attrs", [{"sample_ratio": -1}, {"sample_ratio": 2},
                                   {"sample_ratio": 0, "aligned": True},
                                   {"sample_ratio": 2, "aligned": True},
                                   {"sample_ratio": 3, "position_sensitive": True}],
                         ids=["adaptive", "fixed", "aligned", "aligned-fixed", "ps"])
def test_roi_align(attrs):
    # against MXNet's loops (mxnet_ref, checked against MXNet 1.9.1 except
    # for the negative batch index and the inverted aligned region, where
    # MXNet's kernel zeroes one element of another region / divides by 0)
    rng = np.random.default_rng(0)
    c = 12 if attrs.get("position_sensitive") else 3
    check("_contrib_ROIAlign", dict(attrs, pooled_size=(2, 3), spatial_scale=0.75),
          _rand(rng, (2, c, 12, 11)), [("rois", _ROIS)], rtol=1e-5, atol=1e-5)


# --- rotated regions, RPN proposals (runtime kernels) --------------------

_RROIS = np.array([[0, 5.0, 6.0, 4.0, 3.0, 0.0], [1, 7.5, 4.2, 9.0, 5.5, 30.0],
                   [1, 2.0, 9.0, 14.0, 20.0, 135.0], [0, 11.0, 1.0, 0.5, 2.5, -60.0],
                   [0, -3.0, 4.0, 6.0, 6.0, 250.0],
                   # batch indices outside [0, N) (one past int32), a NaN
                   # field: the region reads 0
                   [2, 5.0, 5.0, 4.0, 4.0, 10.0], [-1, 5.0, 5.0, 4.0, 4.0, 10.0],
                   [3e9, 5.0, 5.0, 4.0, 4.0, 10.0], [0, 5.0, np.nan, 4.0, 4.0, 10.0],
                   # a batch index in (-1, 0) truncates to image 0, as MXNet's
                   [-0.5, 6.0, 4.0, 3.0, 5.0, 45.0]], np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ratio", [-1, 2])
def test_rroi_align(ratio, dtype):
    # against MXNet's loops (mxnet_ref, checked against MXNet 1.9.1 on the
    # regions with valid batch indices)
    rng = np.random.default_rng(3)
    check("_contrib_RROIAlign", {"sampling_ratio": ratio, "pooled_size": (2, 3),
                                 "spatial_scale": 0.75},
          _rand(rng, (2, 3, 10, 12), dtype), [("rois", _RROIS.astype(dtype))],
          rtol=1e-5, atol=1e-5)


_PROPOSAL_INFO = np.array([[70, 90, 1.0], [60, 100, 0.6], [80, 96, 1.5]], np.float32)


@pytest.mark.parametrize("attrs", [
    {"rpn_pre_nms_top_n": 50, "rpn_post_nms_top_n": 20, "threshold": 0.5},
    # every box taken, most of them under rpn_min_size (score -1, ties in
    # the stable sort), the kept ones repeated to fill 150 rows
    {"rpn_pre_nms_top_n": -1, "rpn_post_nms_top_n": 150, "threshold": 0.9, "rpn_min_size": 40},
    {"rpn_pre_nms_top_n": 30, "rpn_post_nms_top_n": 40, "threshold": 0.3, "iou_loss": True}],
    ids=["nms", "filtered", "iou-loss"])
@pytest.mark.parametrize("op", ["_contrib_MultiProposal", "_contrib_Proposal"])
def test_proposal(op, attrs):
    # against MXNet's loops (mxnet_ref, checked against MXNet 1.9.1): 6
    # anchors on a 5 x 6 map, images smaller than the map (masked positions)
    rng = np.random.default_rng(4)
    n = 3 if op == "_contrib_MultiProposal" else 1
    attrs = dict(attrs, feature_stride=16, scales=(2.0, 4.0), ratios=(0.5, 1.0, 2.0),
                 output_score=True)
    check(op, attrs, _rand(rng, (n, 12, 5, 6), low=0.0), [
        ("bbox_pred", _rand(rng, (n, 24, 5, 6), low=-0.4, high=0.4)),
        ("im_info", _PROPOSAL_INFO[:n])], num_outputs=2, rtol=1e-5, atol=1e-4)


# --- image operators (composites) ----------------------------------------

_IMAGE_CASES = [
    ("_image_to_tensor", {}, (5, 7, 3), np.uint8),
    ("_image_to_tensor", {}, (2, 5, 7, 1), np.float64),
    ("_image_normalize", {"mean": (0.1, 0.5, 2.0), "std": (3.0, 0.7, 1.3)}, (3, 4, 5), np.float32),
    ("_image_normalize", {"mean": 0.4, "std": 1.7}, (2, 1, 4, 5), np.float32),
    ("_image_normalize", {"mean": (0.1, 0.5, 2.0), "std": 0.9}, (2, 3, 4, 5), np.float64),
    ("_image_flip_left_right", {}, (5, 7, 3), np.uint8),
    ("_image_flip_top_bottom", {}, (5, 6, 1), np.float32),
    ("_image_crop", {"x": 1, "y": 2, "width": 4, "height": 3}, (5, 7, 3), np.uint8),
    ("_image_crop", {"x": 0, "y": 1, "width": 7, "height": 2}, (2, 5, 7, 3), np.float32),
    # uint8 clamped at 0 and 255 (large alphas), float not
    ("_image_adjust_lighting", {"alpha": (2.0, -4.0, 1.0)}, (4, 6, 3), np.uint8),
    ("_image_adjust_lighting", {"alpha": (0.1, -0.3, 0.5)}, (4, 6, 3), np.float64),
    ("_image_adjust_lighting", {"alpha": (0.1, -0.3, 0.5)}, (4, 6, 1), np.float32),
]


@pytest.mark.parametrize("op,attrs,shape,dtype", _IMAGE_CASES)
def test_image_ops(op, attrs, shape, dtype):
    # against MXNet's kernels (mxnet_ref, checked against MXNet 1.9.1 on
    # even extents for the flips: see there)
    rng = np.random.default_rng(5)
    if dtype == np.uint8:
        x = rng.integers(0, 256, shape).astype(np.uint8)
    else:
        x = _rand(rng, shape, dtype, 0.0, 255.0 if "lighting" in op else 1.0)
    check(op, attrs, x, rtol=1e-6, atol=1e-6)


def test_image_float32_gradients():
    # to_tensor and adjust_lighting compute in float32 (MXNet's kernels), too
    # coarse for the float64 finite differences of test_grad_ops: their
    # gradients exactly (to_tensor: transposed back, / 255; adjust_lighting:
    # the head gradient, MXNet's _copy)
    import mxc as mx
    rng = np.random.default_rng(6)
    x = mx.nd.array(_rand(rng, (2, 4, 5, 3)))
    og = _rand(rng, (2, 3, 4, 5))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.image.to_tensor(x)
    y.backward(mx.nd.array(og))
    np.testing.assert_allclose(x.grad.asnumpy(), og.transpose(0, 2, 3, 1) / np.float32(255),
                               rtol=1e-6)
    z = mx.nd.array(_rand(rng, (4, 5, 3)))
    og = _rand(rng, (4, 5, 3))
    z.attach_grad()
    with mx.autograd.record():
        w = mx.nd.image.adjust_lighting(z, alpha=(0.1, -0.2, 0.3))
    w.backward(mx.nd.array(og))
    np.testing.assert_array_equal(z.grad.asnumpy(), og)


@pytest.mark.parametrize("op", ["_contrib_fft", "_contrib_ifft"])
@pytest.mark.parametrize("shape", [(3, 8), (2, 3, 2, 10), (1, 2), (4, 66)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fourier_transforms(op, shape, dtype):
    # MXNet's contrib.fft / ifft (cuFFT in MXNet, GPU only): numpy's FFT
    x = np.random.default_rng(17).standard_normal(shape).astype(dtype)
    check(op, {"compute_size": 128}, x, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)


@pytest.mark.parametrize("shape,out_dim", [((5, 12), 7), ((2, 3, 2, 9), 4), ((1, 1), 1)])
def test_count_sketch(shape, out_dim):
    # MXNet's contrib.count_sketch (GPU only in MXNet): out[..., h[i]] += s[i] * x[..., i]
    r = np.random.default_rng(18)
    x = r.uniform(-10, 10, shape).astype(np.float32)
    h = r.integers(0, out_dim, (1, shape[-1])).astype(np.float32)
    s = (r.integers(0, 2, (1, shape[-1])) * 2 - 1).astype(np.float32)
    check("_contrib_count_sketch", {"out_dim": out_dim}, x, params=[("h", h), ("s", s)])
