"""Gradients of the tensor ops (MXGradientsTensor.cpp, mx-autodiff) against
central finite differences of the training-mode forward pass, in float64
(gradcheck.py: random directions and sampled coordinates, error relative to
the gradient's norm). Ops whose gradient is not a derivative of their
forward pass (SoftmaxOutput, BlockGrad) and BatchNorm's running statistics
are checked against numpy formulas instead."""
import numpy as np
import pytest

from gradcheck import check_gradients, run_training_step
from mxc_testing import one_op_graph

RNG_SEED = 1234


def rand(shape, lo=-1.0, hi=1.0, away=0.0, seed=0):
    """Uniform float64 in [lo, hi), values within `away` of 0 pushed out."""
    rng = np.random.default_rng(RNG_SEED + seed)
    x = rng.uniform(lo, hi, size=shape)
    if away:
        x = np.where(np.abs(x) < away, np.sign(x + 1e-300) * away + x, x)
    return x


def check_op(op, attrs, inputs, params=None, wrt=None, exclude=(), **kw):
    g = one_op_graph(op, attrs, list(inputs) + list(params or {}))
    return check_gradients(g, inputs, params, wrt=wrt, exclude=exclude, **kw)


# --- unary -------------------------------------------------------------------

UNARY = [
    ("negative", {}, {}), ("abs", {}, {"away": 0.05}), ("square", {}, {}),
    ("sqrt", {}, {"lo": 0.2, "hi": 2.0}), ("exp", {}, {}),
    ("log", {}, {"lo": 0.2, "hi": 2.0}), ("relu", {}, {"away": 0.05}),
    ("sigmoid", {}, {}), ("tanh", {}, {}),
    # Rounding: zero gradients, inputs away from the jumps.
    ("sign", {}, {"away": 0.05}), ("round", {}, {"lo": 0.55, "hi": 1.45}),
    ("rint", {}, {"lo": 0.55, "hi": 1.45}), ("floor", {}, {"lo": 0.1, "hi": 0.9}),
    ("ceil", {}, {"lo": 0.1, "hi": 0.9}), ("trunc", {}, {"lo": 0.1, "hi": 0.9}),
    ("fix", {}, {"lo": -0.9, "hi": -0.1}),
    ("reciprocal", {}, {"lo": 0.3, "hi": 2.0}), ("rsqrt", {}, {"lo": 0.3, "hi": 2.0}),
    ("log1p", {}, {"lo": -0.5, "hi": 2.0}), ("expm1", {}, {}),
    ("log2", {}, {"lo": 0.2, "hi": 2.0}), ("log10", {}, {"lo": 0.2, "hi": 2.0}),
    ("sin", {}, {}), ("cos", {}, {}),
    ("tan", {}, {}), ("arcsin", {}, {"lo": -0.9, "hi": 0.9}),
    ("arccos", {}, {"lo": -0.9, "hi": 0.9}), ("arctan", {}, {"lo": -3.0, "hi": 3.0}),
    ("sinh", {}, {}), ("cosh", {}, {}), ("arcsinh", {}, {"lo": -3.0, "hi": 3.0}),
    ("arccosh", {}, {"lo": 1.2, "hi": 4.0}), ("arctanh", {}, {"lo": -0.9, "hi": 0.9}),
    ("degrees", {}, {}), ("radians", {}, {}), ("cbrt", {}, {"away": 0.2}),
    ("softsign", {}, {"away": 0.05}),
    ("rcbrt", {}, {"lo": 0.3, "hi": 3.0}),
    # digamma by its series (x >= 1/2) and the reflection formula (below)
    ("gamma", {}, {"lo": 0.05, "hi": 4.0}), ("gamma", {}, {"lo": -2.9, "hi": -2.1}),
    ("gammaln", {}, {"lo": 0.05, "hi": 20.0}), ("gammaln", {}, {"lo": -0.9, "hi": -0.1}),
    ("erf", {}, {"lo": -2.0, "hi": 2.0}), ("erfinv", {}, {"lo": -0.9, "hi": 0.9}),
    ("hard_sigmoid", {}, {}), ("hard_sigmoid", {"alpha": 0.7, "beta": 0.3}, {}),
    ("smooth_l1", {"scalar": 1.0}, {"lo": -2.0, "hi": 2.0}),
    ("smooth_l1", {"scalar": 2.0}, {"lo": -1.0, "hi": 1.0}),
    ("Activation", {"act_type": "relu"}, {"away": 0.05}),
    ("Activation", {"act_type": "sigmoid"}, {}),
    ("Activation", {"act_type": "tanh"}, {}),
    ("Activation", {"act_type": "softrelu"}, {}),
    ("Activation", {"act_type": "softsign"}, {"away": 0.05}),
    ("LeakyReLU", {"act_type": "leaky", "slope": 0.1}, {"away": 0.05}),
    ("LeakyReLU", {"act_type": "elu", "slope": 0.7}, {"away": 0.05}),
    ("LeakyReLU", {"act_type": "selu"}, {"away": 0.05}),
    ("LeakyReLU", {"act_type": "gelu"}, {"lo": -3.0, "hi": 3.0}),
    ("clip", {"a_min": -0.5, "a_max": 0.4}, {"away": 0.0}),
    ("identity", {}, {}), ("Flatten", {}, {}),
    ("Reshape", {"shape": (0, -1)}, {}), ("Reshape", {"shape": (-1,)}, {}),
    ("expand_dims", {"axis": 1}, {}), ("expand_dims", {"axis": -1}, {}),
    ("squeeze", {}, {}),
    ("reverse", {"axis": (1,)}, {}), ("reverse", {"axis": (0, -1)}, {}),
    ("prod", {}, {"lo": 0.5, "hi": 1.5}), ("prod", {"axis": 1, "keepdims": True}, {"away": 0.2}),
    ("nansum", {"axis": (0, 2)}, {}), ("nanprod", {"axis": 2}, {"lo": 0.5, "hi": 1.5}),
    ("transpose", {}, {}), ("transpose", {"axes": (0, 2, 1)}, {}),
    ("SwapAxis", {"dim1": 0, "dim2": -1}, {}),
    ("repeat", {"repeats": 2, "axis": 1}, {}), ("repeat", {"repeats": 3}, {}),
    ("tile", {"reps": (2, 1, 2)}, {}), ("tile", {"reps": (2, 1, 1, 2)}, {}),
    ("slice_axis", {"axis": 1, "begin": 1, "end": 3}, {}),
    ("slice_axis", {"axis": -1, "begin": -3, "end": "None"}, {}),
    ("slice_axis", {"axis": 0, "begin": 0, "end": 1}, {}),
    ("softmax", {}, {}), ("softmax", {"axis": 0}, {}),
    ("softmax", {"axis": 1, "temperature": 2.0}, {}),
    ("log_softmax", {}, {}), ("log_softmax", {"axis": 1, "temperature": 0.5}, {}),
]


@pytest.mark.parametrize("op,attrs,fill", UNARY,
                         ids=["%s-%s" % (o, "-".join("%s=%s" % kv for kv in a.items()))
                              for o, a, _ in UNARY])
def test_unary(op, attrs, fill):
    x = rand((2, 4, 3), **fill)
    if op == "hard_sigmoid":  # keep away from the kinks at alpha x + beta = 0 or 1
        t = attrs.get("alpha", 0.2) * x + attrs.get("beta", 0.5)
        x = np.where((np.abs(t) < 0.02) | (np.abs(t - 1) < 0.02), x + 0.1, x)
    if op == "clip":  # keep away from the bounds
        x = np.where(np.abs(x + 0.5) < 0.02, x + 0.05, x)
        x = np.where(np.abs(x - 0.4) < 0.02, x + 0.05, x)
    check_op(op, attrs, {"data": x})


@pytest.mark.parametrize("shape,target", [((1, 3, 1), (2, 3, 4)), ((2, 1, 3), (0, 5, 0))])
def test_broadcast_to(shape, target):
    check_op("broadcast_to", {"shape": target}, {"data": rand(shape)})


@pytest.mark.parametrize("op,shape", [("depth_to_space", (1, 8, 2, 3)),
                                      ("space_to_depth", (2, 2, 4, 2))])
def test_depth_space(op, shape):
    check_op(op, {"block_size": 2}, {"data": rand(shape)})


@pytest.mark.parametrize("attrs", [{}, {"axes": (1,)}, {"axes": (0, -1)}], ids=str)
def test_slice_like(attrs):
    # the gradient is padded with zeros; shape_like gets none
    check_op("slice_like", attrs, {"data": rand((4, 5, 3)), "shape_like": rand((2, 3, 2))},
             wrt=["data"])


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect"])
@pytest.mark.parametrize("shape,width", [((1, 2, 3, 4), (0, 0, 0, 0, 1, 2, 2, 3)),
                                         ((1, 1, 3, 3, 3), (0, 0, 0, 0, 0, 2, 1, 0, 2, 2))],
                         ids=str)
def test_pad(mode, shape, width):
    # edge / reflect: border gradients added where the elements were read
    check_op("Pad", {"mode": mode, "pad_width": width, "constant_value": 0.5},
             {"data": rand(shape)})


@pytest.mark.parametrize("attrs", [{"begin": (1, None), "end": (3, None)},
                                   {"begin": (None, 2, -1), "end": (None, 0, None),
                                    "step": (2, -1, -2)}], ids=str)
def test_slice_family(attrs):
    # slice: dy scattered into zeros; _slice_assign: dy outside the region for
    # lhs, dy's region for rhs; _slice_assign_scalar: dy outside the region
    check_op("slice", attrs, {"data": rand((4, 3, 5))})
    part = rand((4, 3, 5))[tuple(slice(b, e, s) for b, e, s in zip(
        attrs["begin"], attrs["end"], attrs.get("step", (1, 1, 1))))]
    check_op("_slice_assign", attrs, {"lhs": rand((4, 3, 5)), "rhs": rand(part.shape, seed=3)})
    check_op("_slice_assign_scalar", dict(attrs, scalar=1.5), {"data": rand((4, 3, 5))})


@pytest.mark.parametrize("shape,attrs", [
    # spatial axes of 4-D / 5-D data, step 1: the gradient is Pad's border
    ((3, 2, 5, 4), {"begin": (None, None, 1, -3), "end": (None, None, 4, None)}),
    ((2, 2, 3, 4, 5), {"begin": (None, None, 0, 1, 2), "end": (None, None, 2, 3, 5)}),
    # a channel slice or a step: into zeros as before
    ((3, 4, 5, 4), {"begin": (None, 1, 1, 0), "end": (None, 3, 4, 4)}),
    ((3, 2, 5, 4), {"begin": (None, None, 0, 1), "end": (None, None, 5, 4), "step": (1, 1, 2, 1)}),
], ids=str)
def test_slice_spatial(shape, attrs):
    check_op("slice", attrs, {"data": rand(shape)})


def test_broadcast_like():
    # rhs (only its shape is read) gets none
    check_op("broadcast_like", {}, {"lhs": rand((1, 3, 1)), "rhs": rand((2, 3, 4), seed=2)},
             wrt=["lhs"])


def test_broadcast_axis():
    check_op("broadcast_axis", {"axis": (0, 2), "size": (3, 4)}, {"data": rand((1, 2, 1))})


def test_reshape_like():
    # lhs gets the gradient reshaped back; rhs (only its shape is read) none.
    check_op("reshape_like", {"lhs_begin": 0, "lhs_end": 1, "rhs_begin": 0, "rhs_end": 2},
             {"lhs": rand((6, 2)), "rhs": rand((3, 2, 5))}, wrt=["lhs"])


@pytest.mark.parametrize("axis,keepdims", [(1, False), (0, True), (-1, False)])
def test_pick(axis, keepdims):
    # the gradient goes to the picked elements (indices fixed, in range and
    # clipped); the index gets none
    data = rand((3, 4))
    n = data.shape[axis]
    index = np.array([0, n - 1, n + 3, -2][:data.shape[1 - axis % 2]], np.float64)
    check_op("pick", {"axis": axis, "keepdims": keepdims}, {"data": data, "index": index},
             wrt=["data"])


@pytest.mark.parametrize("shape,index,attrs", [
    ((5, 3), [[0, 4, 4], [2, 7, -1]], {}),                    # repeats, clipped
    ((2, 6, 3), [1, -2, 8, 1], {"axis": 1, "mode": "wrap"}),   # wrapped
    ((2, 3, 4), [[3, 0], [3, 2]], {"axis": -1}),
    ((4,), [2, 2, 0], {}),
], ids=str)
def test_take(shape, index, attrs):
    # the gradient is summed over repeated indices; the index gets none
    check_op("take", attrs, {"a": rand(shape), "indices": np.array(index, np.float64)},
             wrt=["a"])


def test_gather_nd():
    # repeated and negative indices: the gradient adds up at each position
    idx = np.array([[0, 2, -1, 0], [3, 1, 0, 3]], np.float64)
    check_op("gather_nd", {}, {"data": rand((3, 4, 2)), "indices": idx}, wrt=["data"])


def test_index_copy():
    # old's replaced rows get no gradient, new's rows read theirs
    check_op("_contrib_index_copy", {},
             {"old_tensor": rand((5, 3)), "index_vector": np.array([0, 4, 2], np.float64),
              "new_tensor": rand((3, 3), seed=2)}, wrt=["old_tensor", "new_tensor"])


@pytest.mark.parametrize("op,shapes,attrs", [
    ("_linalg_gemm", [(2, 3), (3, 4), (2, 4)], {"alpha": 2.0, "beta": 0.5}),
    ("_linalg_gemm", [(3, 2, 4), (5, 2, 3), (4, 2, 5)],
     {"transpose_a": True, "transpose_b": True, "axis": 0, "beta": -1.0}),
    ("_linalg_gemm2", [(2, 3, 4), (2, 4, 3)], {"alpha": 1.5}),
    ("_linalg_gemm2", [(2, 3, 4), (2, 5, 4)], {"transpose_b": True, "axis": -2})], ids=str)
def test_linalg_gemm(op, shapes, attrs):
    names = ["A", "B", "C"][:len(shapes)]
    check_op(op, attrs, {n: rand(s, seed=i) for i, (n, s) in enumerate(zip(names, shapes))})


def test_embedding():
    data = np.array([[0, 3, 3], [5, 1, -1]], np.float64)   # repeats and clipped ones
    check_op("Embedding", {"input_dim": 5, "output_dim": 4}, {"data": data},
             {"weight": rand((5, 4))}, wrt=["weight"])


def test_squeeze_axis():
    check_op("squeeze", {"axis": (0, 2)}, {"data": rand((1, 3, 1, 2))})


@pytest.mark.parametrize("xshape,gshape", [((2, 3, 2, 2), (3,)), ((2, 3), (1,)),
                                           ((3, 4), (3, 4)), ((3, 4, 2, 2), (3, 4))],
                         ids=str)
def test_prelu(xshape, gshape):
    # gamma broadcast by MXNet's expand_shape: right-aligned on axes 0 and 1
    x = rand(xshape, away=0.05)
    gamma = rand(gshape, 0.1, 0.5, seed=1)
    check_op("LeakyReLU", {"act_type": "prelu"}, {"data": x}, {"gamma": gamma})


# --- binary ------------------------------------------------------------------

BINARY_SHAPES = [((2, 3, 4), (2, 3, 4)), ((2, 3, 4), (3, 1)), ((1, 3, 4), (2, 1, 1)),
                 ((2, 3), (3,))]


@pytest.mark.parametrize("op", ["elemwise_add", "elemwise_sub", "elemwise_mul",
                                "elemwise_div"])
def test_elemwise(op):
    a = rand((2, 3, 4))
    b = rand((2, 3, 4), 0.5, 2.0, seed=1)
    check_op(op, {}, {"lhs": a, "rhs": b})


@pytest.mark.parametrize("op,shapes", [("_hypot", ((2, 3, 4), (2, 3, 4))),
                                       ("broadcast_hypot", ((2, 3, 4), (3, 1)))])
def test_hypot(op, shapes):
    check_op(op, {}, {"lhs": rand(shapes[0], away=0.1), "rhs": rand(shapes[1], seed=1)})


@pytest.mark.parametrize("op,shapes", [("_mod", ((2, 3, 4), (2, 3, 4))),
                                       ("broadcast_mod", ((2, 3, 4), (3, 1)))])
def test_mod(op, shapes):
    # lhs / rhs in (2.19, 2.7) and (-2.7, -2.19): away from the jumps; the
    # divisor's gradient is -floor(lhs / rhs)
    a = rand(shapes[0], 2.3, 2.7) * np.where(rand(shapes[0], seed=2) > 0, 1, -1)
    check_op(op, {}, {"lhs": a, "rhs": rand(shapes[1], 1.0, 1.05, seed=1)})


@pytest.mark.parametrize("shapes", BINARY_SHAPES, ids=str)
@pytest.mark.parametrize("op", ["broadcast_add", "broadcast_sub", "broadcast_mul",
                                "broadcast_div", "broadcast_maximum",
                                "broadcast_minimum", "broadcast_power"])
def test_broadcast(op, shapes):
    sa, sb = shapes
    if op == "broadcast_power":
        a, b = rand(sa, 0.5, 2.0), rand(sb, -1.5, 1.5, seed=1)
    elif op == "broadcast_div":
        a, b = rand(sa), rand(sb, 0.5, 2.0, seed=1)
    else:
        a, b = rand(sa), rand(sb, seed=1)
        if op in ("broadcast_maximum", "broadcast_minimum"):
            b = b + 0.013  # no ties
    check_op(op, {}, {"lhs": a, "rhs": b})


SCALAR = [("_plus_scalar", 1.5, {}), ("_minus_scalar", 0.5, {}),
          ("_rminus_scalar", 2.0, {}), ("_mul_scalar", -3.0, {}),
          ("_div_scalar", 4.0, {}), ("_rdiv_scalar", 2.0, {"lo": 0.5, "hi": 2.0}),
          ("_power_scalar", 2.5, {"lo": 0.5, "hi": 2.0}),
          ("_power_scalar", 3.0, {}), ("_rpower_scalar", 1.7, {}),
          ("_maximum_scalar", 0.1, {}), ("_minimum_scalar", -0.2, {}),
          ("_hypot_scalar", 0.7, {}), ("_mod_scalar", -1.0, {"lo": 2.2, "hi": 2.8}),
          ("_rmod_scalar", 2.5, {"lo": 1.0, "hi": 1.1})]


@pytest.mark.parametrize("op,scalar,fill", SCALAR, ids=["%s-%g" % (o, s) for o, s, _ in SCALAR])
def test_scalar(op, scalar, fill):
    x = rand((3, 5), **fill)
    if "imum" in op:
        x = np.where(np.abs(x - scalar) < 0.02, x + 0.05, x)
    check_op(op, {"scalar": scalar}, {"data": x})


# --- reductions --------------------------------------------------------------

REDUCE_ATTRS = [{}, {"axis": 1}, {"axis": (0, 2), "keepdims": True},
                {"axis": 1, "exclude": True}, {"axis": -1, "keepdims": True}]


@pytest.mark.parametrize("attrs", REDUCE_ATTRS, ids=str)
@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
def test_reduce(op, attrs):
    # distinct values: no ties for max / min
    x = np.random.default_rng(3).permutation(24).reshape(2, 3, 4) / 7.0 - 1.5
    check_op(op, attrs, {"data": x})


# --- linear algebra ----------------------------------------------------------

DOT = [((3, 4), (4, 5), {}), ((4, 3), (4, 5), {"transpose_a": True}),
       ((3, 4), (5, 4), {"transpose_b": True}),
       ((4, 3), (5, 4), {"transpose_a": True, "transpose_b": True}),
       ((4,), (4,), {}), ((4,), (4, 3), {}), ((2, 3, 4), (4, 5), {}),
       ((3, 4), (4, 2, 2), {}),
       # N-D with transposes: MXNet's 2-D views (lhs (first, rest), rhs (rest, last))
       ((4, 2, 3), (4, 5), {"transpose_a": True}),
       ((3, 4), (2, 5, 4), {"transpose_b": True}),
       ((4, 2, 3), (2, 5, 4), {"transpose_a": True, "transpose_b": True})]


@pytest.mark.parametrize("sa,sb,attrs", DOT, ids=[str(d) for d in DOT])
def test_dot(sa, sb, attrs):
    check_op("dot", attrs, {"lhs": rand(sa), "rhs": rand(sb, seed=1)})


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_batch_dot(ta, tb):
    sa = (2, 4, 3) if ta else (2, 3, 4)
    sb = (2, 5, 4) if tb else (2, 4, 5)
    check_op("batch_dot", {"transpose_a": ta, "transpose_b": tb},
             {"lhs": rand(sa), "rhs": rand(sb, seed=1)})


# --- data movement -----------------------------------------------------------

@pytest.mark.parametrize("dim", [1, 0, -1])
def test_concat(dim):
    shapes = {1: [(2, 1, 3), (2, 2, 3), (2, 3, 3)], 0: [(1, 2, 3), (2, 2, 3), (1, 2, 3)],
              -1: [(2, 2, 1), (2, 2, 2), (2, 2, 3)]}[dim]
    inputs = {"in%d" % i: rand(s, seed=i) for i, s in enumerate(shapes)}
    check_op("Concat", {"num_args": 3, "dim": dim}, inputs)


@pytest.mark.parametrize("cond_shape", [(3, 4), (3,)])
def test_where(cond_shape):
    cond = (np.random.default_rng(5).uniform(size=cond_shape) > 0.5).astype(np.float64)
    check_op("where", {}, {"condition": cond, "x": rand((3, 4)), "y": rand((3, 4), seed=1)},
             wrt=["x", "y"])


def test_cast():
    # float64 -> float32 -> (graph output f32): finite differences in f32
    check_op("Cast", {"dtype": "float32"}, {"data": rand((3, 4))}, h=1e-2, rtol=1e-4,
             atol=1e-6)


def test_amp_cast():
    # float64 passes through amp_cast (only f32 / f16 / bf16 are cast): the
    # identity's gradient in f64
    check_op("amp_cast", {"dtype": "float16"}, {"data": rand((3, 4))})


def test_amp_multicast():
    # float64 passes through (only f32 / f16 / bf16 are cast): identities
    check_op("amp_multicast", {"num_outputs": 2},
             {"data0": rand((3, 4)), "data1": rand((2,))})


@pytest.mark.parametrize("op,shape", [("_contrib_fft", (2, 5)), ("_contrib_ifft", (1, 2, 3, 8))])
def test_fourier_transforms(op, shape):
    # the adjoint transform (MXNet's backward: d times the other transform's
    # real part)
    check_op(op, {}, {"data": rand(shape)})


def test_count_sketch():
    # the data's gradient (MXNet's: out_grad[..., h[i]] * s[i]); h is an index
    h = np.array([[2, 0, 2, 1, 0]], np.float64)
    s = np.array([[1, -1, -1, 1, 1]], np.float64)
    check_op("_contrib_count_sketch", {"out_dim": 3}, {"data": rand((4, 5))},
             params={"h": h, "s": s}, wrt=["data"])


def test_block_grad_is_zero():
    x = rand((2, 3))
    g = one_op_graph("BlockGrad", {}, ["data"])
    heads, grads, _ = run_training_step(g, {"data": x}, wrt=["data"])
    np.testing.assert_array_equal(heads["blockgrad_output"], x)
    np.testing.assert_array_equal(grads["data"], np.zeros_like(x))


# --- training forms: Dropout, BatchNorm -------------------------------------

@pytest.mark.parametrize("attrs", [{"p": 0.5}, {"p": 0.3, "axes": (1,)}], ids=str)
def test_dropout(attrs):
    x = rand((4, 6, 3))
    r = check_op("Dropout", attrs, {"data": x})
    # the mask is the forward's: y = x * mask with mask in {0, 1/(1-p)}
    y = r["outputs"]["dropout_output"]
    p = attrs["p"]
    ratio = y / x
    assert np.all(np.isclose(ratio, 0) | np.isclose(ratio, 1 / (1 - p)))
    assert 0 < np.mean(np.isclose(ratio, 0)) < 1
    if "axes" in attrs:  # one draw per (n, :, k)
        np.testing.assert_allclose(ratio, np.broadcast_to(ratio[:, :1, :], ratio.shape))
    # backward: grad = head_grad * the same mask
    head = rand(x.shape, seed=9)
    _, grads, _ = run_training_step(one_op_graph("Dropout", attrs, ["data"]),
                                    {"data": x}, wrt=["data"],
                                    head_grads={"dropout_output": head})
    np.testing.assert_allclose(grads["data"], head * ratio, rtol=1e-12)


def test_dropout_mask_statistics_and_seed():
    """About p of the elements dropped; the mask depends on --seed only."""
    x = np.ones((100, 100))
    g = one_op_graph("Dropout", {"p": 0.3}, ["data"])
    runs = [run_training_step(g, {"data": x}, wrt=["data"], extra_args=["--seed", s])[0]
            ["dropout_output"] for s in ("1", "1", "2")]
    dropped = np.mean(runs[0] == 0)
    assert abs(dropped - 0.3) < 0.02, dropped
    np.testing.assert_allclose(runs[0][runs[0] != 0], 1 / 0.7)
    np.testing.assert_array_equal(runs[0], runs[1])
    assert np.mean(runs[0] != runs[2]) > 0.2


BN = [{"fix_gamma": False}, {"fix_gamma": True}, {"fix_gamma": False, "axis": -1},
      {"fix_gamma": False, "use_global_stats": True}]


def bn_graph(attrs):
    return one_op_graph("BatchNorm", attrs, ["data", "gamma", "beta", "moving_mean",
                                             "moving_var"])


@pytest.mark.parametrize("attrs", BN, ids=str)
def test_batchnorm_gradients(attrs):
    x = rand((3, 4, 2, 2)) * 2 + 0.3
    c = x.shape[attrs.get("axis", 1)]
    params = {"gamma": rand((c,), 0.5, 1.5, seed=1), "beta": rand((c,), seed=2),
              "moving_mean": rand((c,), seed=3), "moving_var": rand((c,), 0.5, 1.5, seed=4)}
    r = check_gradients(bn_graph(attrs), {"data": x}, params,
                        wrt=["data", "gamma", "beta"])
    if attrs.get("fix_gamma"):
        np.testing.assert_array_equal(r["grads"]["gamma"], np.zeros(c))


@pytest.mark.parametrize("momentum", [0.9, 0.5])
def test_batchnorm_running_stats(momentum):
    x = rand((3, 4, 2, 2)) * 2 + 0.3
    mm, mv = rand((4,), seed=3), rand((4,), 0.5, 1.5, seed=4)
    params = {"gamma": rand((4,), 0.5, 1.5, seed=1), "beta": rand((4,), seed=2),
              "moving_mean": mm, "moving_var": mv}
    attrs = {"fix_gamma": False, "momentum": momentum, "eps": 1e-3}
    heads, grads, aux = run_training_step(bn_graph(attrs), {"data": x}, params)
    mean = x.mean(axis=(0, 2, 3))
    var = x.var(axis=(0, 2, 3))  # biased, as MXNet's batch_norm.cc
    np.testing.assert_allclose(aux["moving_mean"], mm * momentum + mean * (1 - momentum),
                               rtol=1e-12)
    np.testing.assert_allclose(aux["moving_var"], mv * momentum + var * (1 - momentum),
                               rtol=1e-12)
    v = lambda a: a.reshape(1, 4, 1, 1)
    y = (x - v(mean)) / np.sqrt(v(var) + 1e-3) * v(params["gamma"]) + v(params["beta"])
    np.testing.assert_allclose(heads["batchnorm_output"], y, rtol=1e-10, atol=1e-12)
    # default wrt: the parameters (gamma, beta), not the aux states
    assert sorted(grads) == ["beta", "gamma"]


def test_batchnorm_global_stats_no_update():
    x = rand((3, 4, 2, 2))
    params = {"gamma": rand((4,), 0.5, 1.5, seed=1), "beta": rand((4,), seed=2),
              "moving_mean": rand((4,), seed=3), "moving_var": rand((4,), 0.5, 1.5, seed=4)}
    _, _, aux = run_training_step(bn_graph({"use_global_stats": True}), {"data": x}, params)
    assert aux == {}


# --- SoftmaxOutput: MXNet's built-in gradient ---------------------------------

def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


SMO = [{}, {"grad_scale": 2.5}, {"normalization": "batch"},
       {"normalization": "valid", "use_ignore": True, "ignore_label": 2},
       {"use_ignore": True, "ignore_label": 1}, {"smooth_alpha": 0.1},
       {"normalization": "valid"}]


@pytest.mark.parametrize("attrs", SMO, ids=str)
def test_softmax_output(attrs):
    n, k = 5, 4
    x = rand((n, k))
    label = np.array([0, 2, 1, 2, 3], dtype=np.float64)
    head = rand((n, k), seed=7)  # ignored by the built-in gradient
    g = one_op_graph("SoftmaxOutput", attrs, ["data", "label"])
    heads, grads, _ = run_training_step(g, {"data": x, "label": label}, wrt=["data"],
                                        head_grads={"softmaxoutput_output": head})
    p = softmax(x, 1)
    np.testing.assert_allclose(heads["softmaxoutput_output"], p, rtol=1e-12)
    alpha = attrs.get("smooth_alpha", 0.0)
    onehot = np.full((n, k), alpha / (k - 1))
    onehot[np.arange(n), label.astype(int)] = 1 - alpha
    grad = p - onehot
    ignore = attrs.get("ignore_label", -1)
    if attrs.get("use_ignore"):
        grad[label == ignore] = 0
    norm = attrs.get("normalization", "null")
    scale = attrs.get("grad_scale", 1.0)
    if norm == "batch":
        scale /= n
    elif norm == "valid":
        scale /= max(int(np.sum(label != ignore)), 1)
    np.testing.assert_allclose(grads["data"], grad * scale, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("op", ["LinearRegressionOutput", "MAERegressionOutput",
                                "LogisticRegressionOutput"])
@pytest.mark.parametrize("dshape,lshape,attrs", [((5, 3), (5, 3), {}),
                                                 ((4, 1), (4,), {"grad_scale": 2.5}),
                                                 ((2, 3, 2), (2, 6), {"grad_scale": 0.5})],
                         ids=str)
def test_regression_output(op, dshape, lshape, attrs):
    # MXNet's RegressionBackward: (out - label) (its sign for MAE) times
    # grad_scale / (label elements per sample); the head gradient is ignored
    x = rand(dshape)
    label = rand(lshape, seed=3)
    head = rand(dshape, seed=7)
    g = one_op_graph(op, attrs, ["data", "label"])
    out_name = op.lower() + "_output"
    heads, grads, _ = run_training_step(g, {"data": x, "label": label}, wrt=["data"],
                                        head_grads={out_name: head})
    y = 1 / (1 + np.exp(-x)) if op == "LogisticRegressionOutput" else x
    np.testing.assert_allclose(heads[out_name], y, rtol=1e-12)
    d = y - label.reshape(dshape)
    if op == "MAERegressionOutput":
        d = np.sign(d)
    scale = attrs.get("grad_scale", 1.0) / (label.size / label.shape[0])
    np.testing.assert_allclose(grads["data"], d * scale, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("use_linear", [True, False])
@pytest.mark.parametrize("dshape", [(6, 4), (2, 3, 5)], ids=str)
def test_svm_output(use_linear, dshape):
    # MXNet's svm_output.cc L1_SVM / L2_SVM by explicit loops over the rows
    # of data's last axis; the head gradient is ignored
    x = rand(dshape)
    rows, cols = int(np.prod(dshape[:-1])), dshape[-1]
    label = np.random.default_rng(5).integers(0, cols, dshape[:-1]).astype(np.float64)
    head = rand(dshape, seed=7)
    attrs = {"margin": 0.7, "regularization_coefficient": 1.5, "use_linear": use_linear}
    g = one_op_graph("SVMOutput", attrs, ["data", "label"])
    heads, grads, _ = run_training_step(g, {"data": x, "label": label}, wrt=["data"],
                                        head_grads={"svmoutput_output": head})
    np.testing.assert_allclose(heads["svmoutput_output"], x, rtol=1e-12)
    src, lab = x.reshape(rows, cols), label.reshape(rows)
    want = np.zeros((rows, cols))
    margin, coef = 0.7, 1.5
    for y in range(rows):
        k = int(lab[y])
        for c in range(cols):
            if use_linear:
                want[y, c] = (-float(margin > src[y, c]) if c == k
                              else float(margin > -src[y, c])) * coef
            elif c == k:
                want[y, c] = -coef * (2 * (margin - src[y, c]) if margin > src[y, c] else 0.0)
            else:
                want[y, c] = -coef * (-2 * (margin + src[y, c]) if margin > -src[y, c] else 0.0)
    np.testing.assert_allclose(grads["data"], want.reshape(dshape), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("norm", ["null", "batch", "valid"])
def test_softmax_output_multi_output(norm):
    n, k, s = 2, 3, 4
    x = rand((n, k, s))
    label = np.array([[0, 1, 2, 1], [2, 2, 0, 1]], dtype=np.float64)
    attrs = {"multi_output": True, "normalization": norm, "use_ignore": True,
             "ignore_label": 1}
    g = one_op_graph("SoftmaxOutput", attrs, ["data", "label"])
    _, grads, _ = run_training_step(g, {"data": x, "label": label}, wrt=["data"])
    p = softmax(x, 1)
    onehot = np.zeros((n, k, s))
    for i in range(n):
        for j in range(s):
            onehot[i, int(label[i, j]), j] = 1
    grad = (p - onehot) * (label != 1)[:, None, :]
    if norm == "valid":
        grad /= max(int(np.sum(label != 1)), 1)
    else:  # MXNet divides by the spatial size unless normalization is valid
        grad /= s * (n if norm == "batch" else 1)
    np.testing.assert_allclose(grads["data"], grad, rtol=1e-12, atol=1e-15)


def test_softmax_output_probability_label():
    x = rand((3, 4))
    label = softmax(rand((3, 4), seed=2), 1)
    g = one_op_graph("SoftmaxOutput", {"grad_scale": 0.5}, ["data", "label"])
    _, grads, _ = run_training_step(g, {"data": x, "label": label}, wrt=["data"])
    np.testing.assert_allclose(grads["data"], (softmax(x, 1) - label) * 0.5, rtol=1e-12)


def test_softmax_output_preserve_shape():
    """3-D data with preserve_shape: softmax over the last axis, one label per
    row of the flattened leading axes. (Without preserve_shape MXNet's shape
    rule wants a (2, 3) label for (2, 3, 4) data but its backward reads the
    label as one per batch row; mxc reports no gradient for that mismatch.)"""
    x = rand((2, 3, 4))
    label = np.array([[0, 3, 1], [2, 2, 0]], dtype=np.float64)
    p = softmax(x, 2).reshape(6, 4)
    attrs = {"preserve_shape": True, "normalization": "batch"}
    g = one_op_graph("SoftmaxOutput", attrs, ["data", "label"])
    heads, grads, _ = run_training_step(g, {"data": x, "label": label}, wrt=["data"])
    np.testing.assert_allclose(heads["softmaxoutput_output"], p.reshape(x.shape), rtol=1e-12)
    onehot = np.zeros_like(p)
    onehot[np.arange(6), label.reshape(-1).astype(int)] = 1
    # batch: MXNet divides by the number of labels (the flattened label's size)
    np.testing.assert_allclose(grads["data"], ((p - onehot) / 6).reshape(x.shape),
                               rtol=1e-12, atol=1e-15)


def test_softmax_use_length():
    x = rand((3, 5))
    length = np.array([5, 2, 1], dtype=np.float64)
    g = one_op_graph("softmax", {"axis": -1, "use_length": True}, ["data", "length"])
    r = check_gradients(g, {"data": x, "length": length}, wrt=["data"])
    assert np.all(r["grads"]["data"][1, 2:] == 0) and np.all(r["grads"]["data"][2, 1:] == 0)


def test_rrelu_training():
    """rrelu in training: slopes drawn in [lower_bound, upper_bound) per
    element (fixed by --seed), y = x > 0 ? x : slope * x, and the gradient
    uses the same slopes."""
    x = rand((6, 7), away=0.05)
    attrs = {"act_type": "rrelu", "lower_bound": 0.1, "upper_bound": 0.3}
    r = check_op("LeakyReLU", attrs, {"data": x})
    y = r["outputs"]["leakyrelu_output"]
    np.testing.assert_array_equal(y[x > 0], x[x > 0])
    slope = y[x < 0] / x[x < 0]
    assert np.all((slope >= 0.1 - 1e-12) & (slope < 0.3 + 1e-12)), slope
    assert np.std(slope) > 0.02  # random, not the mean slope


@pytest.mark.parametrize("op,attrs", [
    ("topk", {"k": 2, "ret_typ": "value", "axis": 1}),
    ("topk", {"k": 3, "ret_typ": "value", "axis": None, "is_ascend": True}),
    ("topk", {"k": 2, "ret_typ": "both", "axis": 0}),
    ("sort", {"axis": 1}),
    ("sort", {"axis": None, "is_ascend": False}),
], ids=str)
def test_topk_sort(op, attrs):
    # The values' gradient goes back to the positions they came from (inputs
    # far enough apart that the finite differences keep the order).
    x = np.random.default_rng(7).permutation(24).reshape(2, 3, 4) * 0.1
    check_op(op, attrs, {"data": x})


@pytest.mark.parametrize("attrs", [{"k": 2}, {"k": 2, "ret_typ": "mask"}], ids=str)
def test_topk_indices_have_no_gradient(attrs):
    # MXNet's _backward_topk: zero for indices and masks.
    x = np.random.default_rng(8).permutation(12).reshape(3, 4) * 0.1
    check_op("topk", attrs, {"data": x})


@pytest.mark.parametrize("op,attrs,inputs,wrt", [
    ("_contrib_quadratic", {"a": 0.7, "b": -1.2, "c": 3.0}, {"data": rand((3, 4))}, None),
    ("_contrib_div_sqrt_dim", {}, {"data": rand((2, 3, 5))}, None),
    ("diag", {"k": 1}, {"data": rand((4, 5))}, None),
    ("diag", {"k": -1}, {"data": rand((4,))}, None),
    ("diag", {"k": 0, "axis1": 3, "axis2": 0}, {"data": rand((3, 2, 4, 3))}, None),
    ("_contrib_AdaptiveAvgPooling2D", {"output_size": (3, 2)}, {"data": rand((2, 2, 7, 5))}, None),
    ("_contrib_AdaptiveAvgPooling2D", {"output_size": (4, 6)}, {"data": rand((1, 2, 3, 4))}, None),
    ("_contrib_BilinearResize2D", {"height": 5, "width": 7}, {"data": rand((1, 2, 3, 4))}, None),
    ("_contrib_BilinearResize2D", {"height": 2, "width": 3, "align_corners": False},
     {"data": rand((2, 1, 5, 7))}, None),
    ("_linalg_extractdiag", {"offset": 1}, {"A": rand((2, 3, 3))}, None),
    ("_linalg_makediag", {"offset": -2}, {"A": rand((2, 3))}, None),
    ("_linalg_extracttrian", {"offset": 0, "lower": False}, {"A": rand((3, 3))}, None),
    ("_linalg_maketrian", {"offset": -1}, {"A": rand((2, 3))}, None),
    ("_linalg_trmm", {"transpose": True, "alpha": 1.5},
     {"A": rand((2, 3, 3)), "B": rand((2, 3, 4), seed=1)}, None),
    ("_linalg_trmm", {"rightside": True, "lower": False},
     {"A": rand((3, 3)), "B": rand((4, 3), seed=1)}, None),
    ("_linalg_trsm", {"alpha": -2.0}, {"A": rand((2, 3, 3)) + 3 * np.eye(3),
                                       "B": rand((2, 3, 2), seed=1)}, None),
    ("_linalg_trsm", {"rightside": True, "transpose": True, "lower": False},
     {"A": rand((3, 3)) + 3 * np.eye(3), "B": rand((2, 3), seed=1)}, None),
    ("_linalg_potri", {}, {"A": rand((2, 3, 3)) + 3 * np.eye(3)}, None),
    ("_linalg_potri", {"lower": False}, {"A": rand((3, 3)) + 3 * np.eye(3)}, None),
    ("_linalg_sumlogdiag", {}, {"A": rand((2, 3, 3), lo=0.5, hi=2.0)}, None),
    ("_linalg_inverse", {}, {"A": rand((2, 3, 3)) + 2 * np.eye(3)}, None),
    ("_linalg_det", {}, {"A": rand((2, 3, 3))}, None),
    ("_linalg_syrk", {"alpha": 0.5}, {"A": rand((2, 3, 4))}, None),
    ("_linalg_syrk", {"transpose": True}, {"A": rand((3, 4))}, None),
    # box_nms: each kept record's gradient back at its source row (boxes
    # far from the thresholds, so that the finite differences keep the
    # selection)
    ("_contrib_box_nms", {"overlap_thresh": 0.3, "force_suppress": True},
     {"data": np.array([[[0, 0.9, 0, 0, 2, 2], [0, 0.8, 0.1, 0.1, 2.1, 2.1],
                         [1, 0.7, 3, 3, 4, 4], [1, 0.05, 5, 5, 6, 6]],
                        [[0, 0.2, 0, 0, 1, 1], [0, 0.6, 2, 2, 3, 3],
                         [1, 0.4, 0, 0, 1.1, 1.1], [1, 0.3, 5, 5, 6, 6]]])}, None),
    ("Correlation", {"kernel_size": 3, "max_displacement": 1, "stride1": 2, "pad_size": 2},
     {"data1": rand((2, 2, 5, 4)), "data2": rand((2, 2, 5, 4), seed=1)}, None),
    ("Correlation", {"max_displacement": 2, "stride2": 2, "pad_size": 1, "is_multiply": False},
     {"data1": rand((1, 2, 4, 4)), "data2": rand((1, 2, 4, 4), seed=1)}, None),
    # random_pdf_*: densities and log-densities; the discrete ones' samples
    # get no gradient (MXNet's)
    ("_random_pdf_normal", {}, {"sample": rand((2, 3, 4)), "mu": rand((2, 3), seed=1),
                                "sigma": rand((2, 3), 0.5, 2.0, seed=2)}, None),
    ("_random_pdf_uniform", {"is_log": True}, {"sample": rand((2, 4), 0.1, 0.9),
                                               "low": rand((2,), -1.0, 0.0, seed=1),
                                               "high": rand((2,), 1.0, 2.0, seed=2)}, None),
    ("_random_pdf_gamma", {"is_log": True}, {"sample": rand((2, 4), 0.2, 3.0),
                                             "alpha": rand((2,), 0.5, 3.0, seed=1),
                                             "beta": rand((2,), 0.5, 2.0, seed=2)}, None),
    ("_random_pdf_exponential", {}, {"sample": rand((3, 4), 0.1, 2.0),
                                     "lam": rand((3,), 0.5, 2.0, seed=1)}, None),
    ("_random_pdf_poisson", {}, {"sample": np.array([[0., 1., 3.], [2., 5., 0.]]),
                                 "lam": rand((2,), 0.5, 4.0, seed=1)}, ["lam"]),
    ("_random_pdf_negative_binomial", {"is_log": True},
     {"sample": np.array([[0., 1., 3.], [2., 5., 0.]]), "k": rand((2,), 1.0, 4.0, seed=1),
      "p": rand((2,), 0.2, 0.8, seed=2)}, ["k", "p"]),
    ("_random_pdf_generalized_negative_binomial", {},
     {"sample": np.array([[0., 1., 3.], [2., 5., 0.]]), "mu": rand((2,), 1.0, 4.0, seed=1),
      "alpha": rand((2,), 0.3, 2.0, seed=2)}, ["mu", "alpha"]),
    ("_random_pdf_dirichlet", {"is_log": True},
     {"sample": (lambda v: v / v.sum(axis=-1, keepdims=True))(rand((2, 4, 3), 0.2, 1.0)),
      "alpha": rand((2, 3), 0.5, 2.0, seed=1)}, None),
    # bilinear sampling: the data through the four corners, the grid through
    # the weights (points inside and past the image's edges)
    ("BilinearSampler", {}, {"data": rand((2, 2, 4, 5)), "grid": rand((2, 2, 3, 3), -1.2, 1.2,
                                                                       seed=1)}, None),
    ("SpatialTransformer", {"target_shape": (3, 4), "transform_type": "affine",
                            "sampler_type": "bilinear"},
     # every sampling point at least 0.08 pixels from a pixel row / column
     # (the finite differences would straddle the kinks there)
     {"data": rand((2, 2, 5, 5)), "loc": np.array([[1.0, -0.16, 0.12, -0.02, 0.62, -0.27],
                                                   [0.78, -0.24, 0.11, -0.02, 0.99, 0.1]])},
     None),
    # GridGenerator: linear in the matrices (affine) and in the flow (warp)
    ("GridGenerator", {"transform_type": "affine", "target_shape": (3, 4)},
     {"data": rand((2, 6))}, None),
    ("GridGenerator", {"transform_type": "warp"}, {"data": rand((2, 2, 3, 4))}, None),
    # im2col / col2im: each other's adjoint (strided, dilated, padded; 1-D)
    ("im2col", {"kernel": (3, 2), "stride": (2, 1), "dilate": (1, 2), "pad": (1, 1)},
     {"data": rand((2, 2, 5, 6))}, None),
    ("col2im", {"output_size": (5, 6), "kernel": (3, 2), "stride": (2, 1), "pad": (1, 1)},
     {"data": rand((1, 12, 21))}, None),
    ("im2col", {"kernel": (3,), "stride": (2,)}, {"data": rand((2, 2, 7))}, None),
    # the interleaved attention products: both operands get gradients
    ("_contrib_interleaved_matmul_selfatt_qk", {"heads": 2}, {"queries_keys_values":
                                                             rand((3, 2, 12))}, None),
    ("_contrib_interleaved_matmul_selfatt_valatt", {"heads": 2},
     {"queries_keys_values": rand((3, 2, 12)), "attention": rand((4, 3, 3), seed=1)}, None),
    ("_contrib_interleaved_matmul_encdec_qk", {"heads": 2},
     {"queries": rand((3, 2, 4)), "keys_values": rand((5, 2, 8), seed=1)}, None),
    ("_contrib_interleaved_matmul_encdec_valatt", {"heads": 2},
     {"keys_values": rand((5, 2, 8)), "attention": rand((4, 3, 5), seed=1)}, None),
    # scatter_nd: the data gets gather_nd of the head gradient, the indices none
    ("scatter_nd", {"shape": (3, 4, 2)},
     {"data": rand((2, 2, 2)), "indices": np.array([[[0, 2], [1, 0]], [[3, 1], [0, 2]]])},
     ["data"]),
    # bipartite_matching: a zero gradient (MXNet's), piecewise constant
    ("_contrib_bipartite_matching", {"threshold": 0.2}, {"data": rand((2, 3, 4))}, None),
    # the maxima get the gradient, the regions none (values apart: no ties)
    ("ROIPooling", {"pooled_size": (2, 2), "spatial_scale": 0.5},
     {"data": np.random.default_rng(5).permutation(2 * 2 * 6 * 6).reshape(2, 2, 6, 6) * 0.01,
      "rois": np.array([[0, 1.0, 2.0, 9.0, 10.0], [1, 0.0, 0.0, 5.0, 3.0]])}, ["data"]),
    # bilinear sample weights (adaptive and fixed grids, position-sensitive)
    # and bin masks: the gradient reaches data, the regions get none
    ("_contrib_ROIAlign", {"pooled_size": (2, 2), "spatial_scale": 1.0},
     {"data": rand((2, 2, 7, 6)),
      "rois": np.array([[0, 1.1, 1.2, 5.3, 6.0], [1, -0.7, 2.2, 3.1, 3.9]])}, ["data"]),
    ("_contrib_ROIAlign", {"pooled_size": (1, 2), "spatial_scale": 0.5, "sample_ratio": 2,
                           "position_sensitive": True, "aligned": True},
     {"data": rand((1, 4, 5, 5)), "rois": np.array([[0, 0.5, 1.5, 7.3, 6.1]])}, ["data"]),
    ("_contrib_PSROIPooling", {"pooled_size": 2, "output_dim": 2, "spatial_scale": 0.5},
     {"data": rand((2, 8, 6, 6)),
      "rois": np.array([[0, 1.0, 2.0, 9.0, 10.0], [1, 0.0, 0.0, 5.0, 3.0]])}, ["data"]),
    # deformable convolutions: offsets with fractional parts in (0.1, 0.9)
    # (away from the corners' switch points), some taps outside the map
    ("_contrib_DeformableConvolution",
     {"kernel": (3, 3), "pad": (1, 1), "num_filter": 2, "num_deformable_group": 2},
     {"data": rand((1, 4, 4, 5)),
      "offset": np.random.default_rng(3).uniform(0.1, 0.9, (1, 36, 4, 5)),
      "weight": rand((2, 4, 3, 3), seed=1), "bias": rand((2,), seed=2)}, None),
    ("_contrib_ModulatedDeformableConvolution",
     {"kernel": (2, 2), "stride": (2, 1), "num_filter": 4, "num_group": 2, "no_bias": True},
     {"data": rand((2, 2, 5, 4)),
      "offset": np.random.default_rng(4).uniform(0.1, 0.9, (2, 8, 2, 3)) - 1.0,
      "mask": np.random.default_rng(5).uniform(0.2, 1.0, (2, 4, 2, 3)),
      "weight": rand((4, 1, 2, 2), seed=1)}, None),
    # khatri_rao: products of reshaped pairs (MXNet registers no gradient)
    ("khatri_rao", {"num_args": 3},
     {"arg0": rand((3, 2)), "arg1": rand((2, 2), seed=1), "arg2": rand((2, 2), seed=2)}, None),
    # image operators: per-channel affine maps, reversals, windows (to_tensor
    # and adjust_lighting compute in float32: test_ops_nn's
    # test_image_float32_gradients)
    ("_image_normalize", {"mean": (0.1, -0.2, 0.3), "std": (0.5, 2.0, 1.5)},
     {"data": rand((2, 3, 3, 4))}, None),
    ("_image_normalize", {"mean": 0.2, "std": 0.7}, {"data": rand((1, 3, 4))}, None),
    ("_image_flip_left_right", {}, {"data": rand((3, 5, 3))}, None),
    ("_image_flip_top_bottom", {}, {"data": rand((5, 2, 1))}, None),
    ("_image_crop", {"x": 1, "y": 2, "width": 2, "height": 3}, {"data": rand((2, 6, 4, 3))},
     None),
    # mode like: the second input only gives the size (no gradient)
    ("_contrib_BilinearResize2D", {"mode": "like"},
     {"data": rand((1, 2, 3, 4)), "like": rand((1, 1, 6, 2))}, ["data"]),
    # the label (class indices) gets no gradient
    ("softmax_cross_entropy", {}, {"data": rand((4, 6)), "label": np.array([5., 0., 2., 2.])},
     ["data"]),
], ids=lambda v: v if isinstance(v, str) else None)
def test_small_composites(op, attrs, inputs, wrt):
    check_op(op, attrs, inputs, wrt=wrt)


@pytest.mark.parametrize("lower", [True, False])
def test_linalg_potrf_symmetric_gradient(lower):
    # MXNet's potrf gradient is symmetric ((G + G^T) / 2 of the triangle's
    # gradient G): the derivative along symmetric perturbations, which is
    # what potrf of 0.5 (X + X^T) checks by finite differences.
    import json
    import mxc as mx
    x = mx.sym.var("x")
    sym = mx.sym.linalg.potrf(0.5 * (x + mx.sym.swapaxes(x, dim1=1, dim2=2)), lower=lower)
    a = rand((2, 3, 3))
    check_gradients(json.loads(sym.tojson()), {"x": a @ np.swapaxes(a, 1, 2) + 3 * np.eye(3)})


def test_linalg_gelqf_gradient():
    # Both outputs (Q and L) are heads: the gradient of the Householder
    # composite reaches A through both.
    import json
    import mxc as mx
    x = mx.sym.var("x")
    q, l = mx.sym.linalg.gelqf(x)
    check_gradients(json.loads(mx.sym.Group([q, l]).tojson()), {"x": rand((2, 3, 5))})


@pytest.mark.parametrize("which", [0, 1])
def test_linalg_syevd_gradient(which):
    # MXNet's syevd_backward along symmetric perturbations (syevd of
    # 0.5 (X + X^T), as MXNet's test_laop_3), for U and for the eigenvalues.
    import json
    import mxc as mx
    x = mx.sym.var("x")
    out = mx.sym.linalg.syevd(0.5 * (x + mx.sym.swapaxes(x, dim1=1, dim2=2)))[which]
    a = rand((2, 4, 4))
    check_gradients(json.loads(out.tojson()), {"x": a + np.swapaxes(a, 1, 2)})


def test_linalg_slogdet_gradient():
    # log|det A|'s gradient, A^-T (MXNet's slogdet_backward); the sign has none
    import json
    import mxc as mx
    x = mx.sym.var("x")
    check_gradients(json.loads(mx.sym.linalg.slogdet(x)[1].tojson()),
                    {"x": rand((2, 3, 3)) + 2 * np.eye(3)})
