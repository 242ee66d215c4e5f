"""Elementwise operators through `mxc run`, against the numpy references.

Unary, elemwise_*, broadcast_* (every broadcastable shape pattern: same,
scalar-like, leading-1, trailing-1, rank-padded, both sides), _*_scalar,
Activation, LeakyReLU, clip, where, zeros_like / ones_like, Cast, identity,
BlockGrad and Dropout (inference). f32 with random inputs and rtol 1e-4; a
few f64 / f16 / integer cases where MXNet allows them.
"""
import numpy as np
import pytest

from mxc_testing import assert_close, one_op_graph, run_graph
from mxnet_ref import REF

RTOL = 1e-4


def check(op, attrs, inputs, num_outputs=1, rtol=RTOL, atol=1e-6):
    """Runs one `op` node on `inputs` (graph inputs in0, in1, ...) and
    compares its first `num_outputs` outputs with the reference."""
    names = ["in%d" % i for i in range(len(inputs))]
    graph = one_op_graph(op, attrs, names, name="node", num_outputs=num_outputs)
    expected = REF[op](list(inputs), graph["nodes"][-1].get("attrs", {}))
    got = list(run_graph(graph, dict(zip(names, inputs))).values())
    assert len(got) == num_outputs
    for i in range(num_outputs):
        assert_close(got[i], expected[i], rtol=rtol, atol=atol,
                     name="%s output %d" % (op, i))


def _rand(rng, shape, dtype=np.float32, low=-2.0, high=2.0):
    return rng.uniform(low, high, size=shape).astype(dtype)


def _ints(rng, shape, dtype=np.int32, low=-9, high=10):
    return rng.integers(low, high, size=shape).astype(dtype)


# --- unary ---------------------------------------------------------------

# Ops with their input domain (low, high).
UNARY = {
    "negative": (-3, 3), "abs": (-3, 3), "square": (-3, 3), "sqrt": (0.01, 4),
    "exp": (-4, 4), "log": (0.01, 5), "relu": (-3, 3), "sigmoid": (-6, 6),
    "tanh": (-3, 3), "sign": (-3, 3), "round": (-4, 4), "rint": (-4, 4),
    "floor": (-4, 4), "ceil": (-4, 4), "trunc": (-4, 4), "fix": (-4, 4),
    "reciprocal": (0.1, 4), "rsqrt": (0.05, 4), "log1p": (-0.9, 4), "expm1": (-3, 3),
    "log2": (0.01, 8), "log10": (0.01, 8), "sin": (-6, 6), "cos": (-6, 6),
    "tan": (-1.4, 1.4), "arcsin": (-0.99, 0.99), "arccos": (-0.99, 0.99), "arctan": (-5, 5),
    "sinh": (-3, 3), "cosh": (-3, 3), "arcsinh": (-5, 5), "arccosh": (1.01, 6),
    "arctanh": (-0.95, 0.95), "degrees": (-7, 7), "radians": (-400, 400),
    "cbrt": (-10, 10), "rcbrt": (0.05, 10), "softsign": (-5, 5),
    "gamma": (-3.9, 5), "gammaln": (-3.9, 25), "erf": (-3, 3), "erfinv": (-0.999, 0.999),
}


@pytest.mark.parametrize("op", ["round", "rint", "floor", "ceil", "trunc", "fix", "sign"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_rounding_at_ties_and_zero(op, dtype):
    # Halves (round: away from zero, rint: to even), integers, signed zeros.
    x = np.array([-2.5, -1.5, -0.5, -0.0, 0.0, 0.5, 1.5, 2.5, 3.0, -3.0, 0.49, -0.51],
                 dtype=dtype)
    check(op, {}, [x], rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8])
def test_sign_int(dtype):
    rng = np.random.default_rng(14)
    low = 0 if dtype == np.uint8 else -9
    check("sign", {}, [_ints(rng, (3, 5), dtype, low=low)])


@pytest.mark.parametrize("op", sorted(UNARY))
@pytest.mark.parametrize("shape", [(7,), (3, 4, 5)])
def test_unary_f32(op, shape):
    rng = np.random.default_rng(10)
    low, high = UNARY[op]
    check(op, {}, [_rand(rng, shape, low=low, high=high)])


@pytest.mark.parametrize("op", ["exp", "sqrt", "tanh", "sigmoid", "log", "tan", "arcsinh",
                                "cbrt", "arccos", "gamma", "gammaln", "erf", "erfinv"])
def test_unary_f64(op):
    rng = np.random.default_rng(11)
    low, high = UNARY[op]
    check(op, {}, [_rand(rng, (4, 6), np.float64, low, high)])


@pytest.mark.parametrize("op", ["exp", "relu", "negative", "abs", "arctan", "cosh", "degrees"])
def test_unary_f16(op):
    rng = np.random.default_rng(12)
    check(op, {}, [_rand(rng, (4, 6), np.float16, -2, 2)], rtol=2e-3, atol=1e-3)


@pytest.mark.parametrize("op", ["negative", "abs", "square", "relu"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.int8])
def test_unary_int(op, dtype):
    rng = np.random.default_rng(13)
    check(op, {}, [_ints(rng, (3, 5), dtype)])


def test_relu_keeps_nan():
    x = np.array([np.nan, -1.0, 0.0, 2.0], dtype=np.float32)
    graph = one_op_graph("relu", {}, ["in0"], name="node")
    got = list(run_graph(graph, {"in0": x}).values())[0]
    assert np.isnan(got[0]) and list(got[1:]) == [0.0, 0.0, 2.0]


# --- elemwise_* ----------------------------------------------------------

ELEMWISE = ["elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div"]


@pytest.mark.parametrize("op", ELEMWISE)
@pytest.mark.parametrize("shape", [(5,), (2, 3, 4), (2, 1, 3, 2)])
def test_elemwise_f32(op, shape):
    rng = np.random.default_rng(20)
    rhs = _rand(rng, shape)
    if op == "elemwise_div":
        rhs = np.where(np.abs(rhs) < 0.2, 0.5, rhs).astype(np.float32)
    check(op, {}, [_rand(rng, shape), rhs])


@pytest.mark.parametrize("op", ELEMWISE)
def test_elemwise_int(op):
    rng = np.random.default_rng(21)
    check(op, {}, [_ints(rng, (4, 5)), _ints(rng, (4, 5))])  # x / 0 gives 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_hypot(dtype):
    rng = np.random.default_rng(22)
    check("_hypot", {}, [_rand(rng, (3, 4), dtype), _rand(rng, (3, 4), dtype)])
    # no overflow where a square would overflow; zeros give 0
    big = np.array([3e30, -4e30, 0.0, 0.0, 1e-30], dtype=np.float32)
    other = np.array([4e30, 3e30, 0.0, -2.0, 1e-30], dtype=np.float32)
    check("_hypot", {}, [big, other], rtol=1e-6, atol=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_mod(dtype):
    # every sign combination, exact multiples, and zero divisors (0, as MXNet)
    x = np.array([-7.5, -3, 0, 2.5, 7, 5.25, -6, 6, 3], np.float64).astype(dtype)
    y = np.array([2, -2, 3, 0, -2.5, 1.5, -3, 2, -0.5], np.float64)
    y = (np.where(y == -0.5, 4, np.round(y)) if np.issubdtype(dtype, np.integer) else y).astype(dtype)
    check("_mod", {}, [x, y])
    check("_mod_scalar", {"scalar": -2.0}, [x])
    check("_rmod_scalar", {"scalar": 7.0}, [y])


@pytest.mark.parametrize("attrs", [{}, {"alpha": 0.5, "beta": 0.25}, {"alpha": -1.0, "beta": 0.0}])
def test_hard_sigmoid(attrs):
    rng = np.random.default_rng(23)
    check("hard_sigmoid", attrs, [_rand(rng, (4, 7), low=-5, high=5)])


@pytest.mark.parametrize("scalar", [1.0, 2.0, 0.5])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_smooth_l1(scalar, dtype):
    rng = np.random.default_rng(24)
    x = _rand(rng, (5, 6), dtype, -4, 4)
    # both sides of the boundary |x| = 1 / sigma^2
    x[0, :4] = np.array([1, -1, 1.001, -0.999]) / scalar ** 2
    check("smooth_l1", {"scalar": scalar, "is_int": False}, [x])


# --- broadcast_* ---------------------------------------------------------

BROADCAST = [
    "broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div",
    "broadcast_maximum", "broadcast_minimum", "broadcast_power",
    "broadcast_equal", "broadcast_not_equal", "broadcast_greater",
    "broadcast_greater_equal", "broadcast_lesser", "broadcast_lesser_equal",
    "broadcast_hypot", "broadcast_mod",
]
COMPARISONS = {op for op in BROADCAST if "equal" in op or "greater" in op or "lesser" in op}

# Every broadcastable pattern of (lhs shape, rhs shape).
SHAPE_PAIRS = {
    "same": ((2, 3, 4), (2, 3, 4)),
    "scalar_like_rhs": ((2, 3, 4), (1,)),
    "scalar_like_lhs": ((1, 1, 1), (2, 3, 4)),
    "leading_1": ((1, 3, 4), (2, 3, 4)),
    "trailing_1": ((2, 3, 4), (2, 3, 1)),
    "middle_1": ((2, 1, 4), (2, 3, 4)),
    "rank_padded_rhs": ((2, 3, 4), (4,)),
    "rank_padded_lhs": ((3, 4), (2, 3, 4)),
    "rank_padded_and_1": ((2, 3, 4), (3, 1)),
    "both_sides": ((2, 1, 4), (1, 3, 1)),
    "both_sides_rank": ((5, 1), (1, 6)),
    "both_sides_padded": ((4, 1, 3), (2, 1)),
}


def _broadcast_inputs(op, lshape, rshape, rng, dtype=np.float32):
    if op in COMPARISONS:
        # A small set of values, so that ties occur.
        return [rng.integers(-2, 3, size=lshape).astype(dtype),
                rng.integers(-2, 3, size=rshape).astype(dtype)]
    if op == "broadcast_power":
        return [_rand(rng, lshape, dtype, 0.1, 2.0), _rand(rng, rshape, dtype, -2.0, 2.0)]
    lhs, rhs = _rand(rng, lshape, dtype), _rand(rng, rshape, dtype)
    if op == "broadcast_div":
        rhs = np.where(np.abs(rhs) < 0.2, 0.5, rhs).astype(dtype)
    return [lhs, rhs]


@pytest.mark.parametrize("pattern", sorted(SHAPE_PAIRS))
@pytest.mark.parametrize("op", BROADCAST)
def test_broadcast_f32(op, pattern):
    rng = np.random.default_rng(30)
    lshape, rshape = SHAPE_PAIRS[pattern]
    check(op, {}, _broadcast_inputs(op, lshape, rshape, rng))


@pytest.mark.parametrize("op", ["broadcast_add", "broadcast_div", "broadcast_maximum",
                                "broadcast_power", "broadcast_greater_equal"])
def test_broadcast_int(op):
    rng = np.random.default_rng(31)
    if op == "broadcast_power":
        ins = [_ints(rng, (3, 4), low=-4, high=5), _ints(rng, (4,), low=0, high=4)]
    else:
        ins = [_ints(rng, (3, 4)), _ints(rng, (3, 1))]
    check(op, {}, ins)


@pytest.mark.parametrize("op", ["broadcast_mul", "broadcast_lesser"])
def test_broadcast_f64(op):
    rng = np.random.default_rng(32)
    check(op, {}, _broadcast_inputs(op, (2, 1, 3), (4, 1), rng, np.float64))


def test_broadcast_maximum_nan():
    a = np.array([np.nan, 1.0, 2.0], dtype=np.float32)
    b = np.array([0.0, np.nan, 1.0], dtype=np.float32)
    graph = one_op_graph("broadcast_maximum", {}, ["in0", "in1"], name="node")
    got = list(run_graph(graph, {"in0": a, "in1": b}).values())[0]
    assert np.isnan(got[0]) and np.isnan(got[1]) and got[2] == 2.0


# --- _*_scalar -----------------------------------------------------------

SCALAR = [
    "_plus_scalar", "_minus_scalar", "_rminus_scalar", "_mul_scalar",
    "_div_scalar", "_rdiv_scalar", "_power_scalar", "_rpower_scalar",
    "_maximum_scalar", "_minimum_scalar", "_equal_scalar",
    "_not_equal_scalar", "_greater_scalar", "_greater_equal_scalar",
    "_lesser_scalar", "_lesser_equal_scalar", "_hypot_scalar", "_mod_scalar", "_rmod_scalar",
]


def _scalar_input(op, rng, shape=(3, 4), dtype=np.float32):
    if "equal" in op or "greater" in op or "lesser" in op:
        return rng.integers(-2, 3, size=shape).astype(dtype) * 0.5
    if op in ("_power_scalar", "_rdiv_scalar"):
        return _rand(rng, shape, dtype, 0.3, 2.0)
    return _rand(rng, shape, dtype)


@pytest.mark.parametrize("scalar", [0.5, -1.5, 2.0])
@pytest.mark.parametrize("op", SCALAR)
def test_scalar_f32(op, scalar):
    rng = np.random.default_rng(40)
    if op == "_power_scalar" and scalar < 0:
        scalar = -scalar
    check(op, {"scalar": scalar, "is_int": float(scalar).is_integer()},
          [_scalar_input(op, rng)])


@pytest.mark.parametrize("op", ["_plus_scalar", "_rminus_scalar", "_mul_scalar", "_div_scalar",
                                "_rdiv_scalar", "_power_scalar", "_maximum_scalar",
                                "_greater_scalar", "_not_equal_scalar", "_hypot_scalar",
                                "_mod_scalar", "_rmod_scalar"])
def test_scalar_int(op):
    """Integer tensor with an integer scalar (stays int32) and with a
    non-integer one (computed in float64, MXNet's NumpyBinaryScalarType)."""
    rng = np.random.default_rng(41)
    low = 1 if op in ("_rdiv_scalar", "_power_scalar") else -5
    x = _ints(rng, (3, 4), low=low, high=6)
    check(op, {"scalar": 2, "is_int": True}, [x])
    check(op, {"scalar": 2.5, "is_int": False}, [x])


# --- Activation, LeakyReLU -----------------------------------------------

@pytest.mark.parametrize("act", ["relu", "sigmoid", "tanh", "softrelu", "softsign"])
@pytest.mark.parametrize("scale", [1.0, 15.0])
def test_activation(act, scale):
    rng = np.random.default_rng(50)
    check("Activation", {"act_type": act}, [_rand(rng, (2, 5, 6), low=-scale, high=scale)])


def test_activation_f64():
    rng = np.random.default_rng(51)
    check("Activation", {"act_type": "softrelu"}, [_rand(rng, (3, 7), np.float64, -30, 30)])


@pytest.mark.parametrize("attrs", [
    {"act_type": "leaky"},
    {"act_type": "leaky", "slope": 0.1},
    {"act_type": "elu"},
    {"act_type": "elu", "slope": 1.0},
    {"act_type": "selu"},
    {"act_type": "gelu"},
])
def test_leaky_relu(attrs):
    rng = np.random.default_rng(52)
    check("LeakyReLU", attrs, [_rand(rng, (2, 3, 5), low=-3, high=3)])


@pytest.mark.parametrize("attrs", [{"act_type": "rrelu"},
                                   {"act_type": "rrelu", "lower_bound": 0.2, "upper_bound": 0.5}])
def test_leaky_relu_rrelu(attrs):
    """Inference: leaky with the mean slope; the mask holds that slope."""
    rng = np.random.default_rng(53)
    check("LeakyReLU", attrs, [_rand(rng, (2, 3, 5))], num_outputs=2)


@pytest.mark.parametrize("dshape,gshape", [
    ((2, 4, 3, 3), (4,)),    # one slope per channel
    ((2, 4, 3, 3), (1,)),    # one shared slope
    ((5, 6), (6,)),
    ((3, 4, 7), (3, 4)),     # gamma over axes 0 and 1
])
def test_leaky_relu_prelu(dshape, gshape):
    rng = np.random.default_rng(54)
    check("LeakyReLU", {"act_type": "prelu"},
          [_rand(rng, dshape), _rand(rng, gshape, low=0.0, high=0.5)])


# --- clip, where, fills ----------------------------------------------------

@pytest.mark.parametrize("bounds", [(-0.5, 0.5), (0.0, 6.0), (-3.0, -1.0)])
def test_clip(bounds):
    rng = np.random.default_rng(60)
    check("clip", {"a_min": bounds[0], "a_max": bounds[1]}, [_rand(rng, (3, 4, 5), low=-4, high=8)])


def test_clip_int():
    rng = np.random.default_rng(61)
    check("clip", {"a_min": -2.5, "a_max": 3.7}, [_ints(rng, (4, 6))])


@pytest.mark.parametrize("cond_kind", ["same_f32", "same_i32", "rows"])
def test_where(cond_kind):
    rng = np.random.default_rng(62)
    x, y = _rand(rng, (4, 3, 2)), _rand(rng, (4, 3, 2))
    if cond_kind == "same_f32":
        cond = rng.integers(0, 2, size=(4, 3, 2)).astype(np.float32) * _rand(rng, (4, 3, 2))
    elif cond_kind == "same_i32":
        cond = _ints(rng, (4, 3, 2), low=-1, high=2)
    else:
        cond = np.array([1, 0, -2, 0], dtype=np.float32)
    check("where", {}, [cond, x, y])


@pytest.mark.parametrize("op", ["zeros_like", "ones_like"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64])
def test_fill_like(op, dtype):
    rng = np.random.default_rng(63)
    check(op, {}, [_rand(rng, (2, 3, 4)).astype(dtype)])


# --- Cast, pass-throughs ---------------------------------------------------

@pytest.mark.parametrize("src,dst", [
    (np.float32, "float64"), (np.float32, "float16"), (np.float32, "int32"),
    (np.float32, "int8"), (np.float32, "uint8"), (np.float32, "int64"),
    (np.float32, "bool"), (np.float64, "float32"), (np.int32, "float32"),
    (np.uint8, "float32"), (np.uint8, "int32"), (np.int8, "int64"),
    (np.int64, "int32"), (np.int32, "uint8"), (np.float16, "float32"),
])
def test_cast(src, dst):
    rng = np.random.default_rng(70)
    if np.issubdtype(src, np.floating):
        # Values that every destination represents (uint8 takes 0..255).
        low = 0.0 if dst == "uint8" else -100.0
        x = _rand(rng, (3, 5), src, low, 100.0)
        x[0, 0] = 0
    elif src == np.uint8:
        x = rng.integers(0, 256, size=(3, 5)).astype(src)
    else:
        x = _ints(rng, (3, 5), src, 0 if dst == "uint8" else -100, 100)
    check("Cast", {"dtype": dst}, [x])


@pytest.mark.parametrize("src,dst", [
    (np.float32, "float16"), (np.float16, "float32"), (np.float32, "float32"),
    # AMPCastType: other types pass through unchanged
    (np.float64, "float16"), (np.int32, "float16"), (np.uint8, "float32"),
])
def test_amp_cast(src, dst):
    rng = np.random.default_rng(72)
    if np.issubdtype(src, np.floating):
        x = _rand(rng, (3, 5), src, -100.0, 100.0)
    else:
        x = rng.integers(0, 100, size=(3, 5)).astype(src)
    check("amp_cast", {"dtype": dst}, [x])


@pytest.mark.parametrize("dtypes,narrow", [
    ((np.float16, np.float32, np.float16), False),   # widest: float32
    ((np.float16, np.float32, np.float16), True),    # narrowest: float16
    ((np.float16, np.float64, np.int32), False),     # the first input's type; others pass
    ((np.float64, np.float16, np.float16), False),   # a float64 first input widens the f16s
    ((np.float64, np.float16, np.float16), True),
    ((np.float32, np.uint8), True),                  # no low-precision input: float32
])
def test_amp_multicast(dtypes, narrow):
    rng = np.random.default_rng(73)
    xs = [_rand(rng, (2 + k, 3), t, -100.0, 100.0) if np.issubdtype(t, np.floating)
          else rng.integers(0, 100, size=(2 + k, 3)).astype(t) for k, t in enumerate(dtypes)]
    check("amp_multicast", {"num_outputs": len(xs), "cast_narrow": narrow}, xs,
          num_outputs=len(xs))


@pytest.mark.parametrize("op", ["_copy", "BlockGrad"])
def test_pass_through(op):
    rng = np.random.default_rng(71)
    check(op, {}, [_rand(rng, (3, 4))])


@pytest.mark.parametrize("p", [0.0, 0.5])
def test_dropout_inference(p):
    rng = np.random.default_rng(72)
    check("Dropout", {"p": p}, [_rand(rng, (4, 6))], num_outputs=2)


# --- random_pdf_* -----------------------------------------------------------

def _pdf_inputs(distr, rng, dtype):
    """Samples (2, 3, 5) and parameters (2, 3) inside each support."""
    u = lambda lo, hi, shape=(2, 3): _rand(rng, shape, dtype, lo, hi)
    counts = _ints(rng, (2, 3, 5), dtype, 0, 9)
    return {
        "uniform": [u(0.1, 0.9, (2, 3, 5)), u(-1.0, 0.0), u(1.0, 2.0)],
        "normal": [u(-2.0, 2.0, (2, 3, 5)), u(-1.0, 1.0), u(0.5, 2.0)],
        "gamma": [u(0.1, 4.0, (2, 3, 5)), u(0.5, 3.0), u(0.5, 2.0)],
        "exponential": [u(0.0, 3.0, (2, 3, 5)), u(0.5, 2.0)],
        "poisson": [counts, u(0.5, 5.0)],
        "negative_binomial": [counts, u(1.0, 5.0), u(0.2, 0.8)],
        "generalized_negative_binomial": [counts, u(1.0, 5.0), u(0.2, 2.0)],
        # (2, 3, 5) vectors of 4 with alpha (2, 3, 4); one vector alone
        "dirichlet": [(lambda v: (v / v.sum(axis=-1, keepdims=True)).astype(dtype))(
            u(0.1, 1.0, (2, 3, 5, 4))), u(0.5, 2.0, (2, 3, 4))],
    }[distr]


PDFS = ["uniform", "normal", "gamma", "exponential", "poisson", "negative_binomial",
        "generalized_negative_binomial", "dirichlet"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("is_log", [False, True])
@pytest.mark.parametrize("distr", PDFS)
def test_random_pdf(distr, is_log, dtype):
    inputs = _pdf_inputs(distr, np.random.default_rng(80), dtype)
    check("_random_pdf_" + distr, {"is_log": is_log}, inputs, rtol=1e-4, atol=1e-6)


def test_random_pdf_dirichlet_single_vector():
    # one vector sample: the result is (1,), as MXNet's PdfOpShape
    check("_random_pdf_dirichlet", {"is_log": True},
          [np.array([0.2, 0.5, 0.3], np.float32), np.array([1.5, 0.7, 2.0], np.float32)])


def test_straight_through_estimators():
    # round_ste / sign_ste: round / sign forward, the head gradient backward
    import mxc as mx
    x = mx.nd.array([[-2.5, -0.4, 0.0, 0.6, 1.5]])
    og = np.array([[1.0, 2.0, 3.0, 4.0, 5.0]], np.float32)
    for op, fwd in ((mx.nd.contrib.round_ste, [[-3, -0, 0, 1, 2]]),
                    (mx.nd.contrib.sign_ste, [[-1, -1, 0, 1, 1]])):
        x.attach_grad()
        with mx.autograd.record():
            y = op(x)
        y.backward(mx.nd.array(og))
        np.testing.assert_array_equal(y.asnumpy(), np.array(fwd, np.float32))
        np.testing.assert_array_equal(x.grad.asnumpy(), og)
