"""numpy references for MXNet's elementwise operators (forward, inference).

Semantics from MXNet 1.9.1: src/operator/mshadow_op.h (the scalar functions),
src/operator/tensor/elemwise_*_op*.{h,cc}, elemwise_binary_scalar_op.h
(NumpyBinaryScalarType and BinaryScalarOp::Compute), leaky_relu-inl.h,
dropout-inl.h, control_flow_op.h, matrix_op-inl.h (clip).

Integer results follow C++ as MXNet computes them (truncating conversions,
wrap-around); integer division by zero, which crashes MXNet, gives 0 here
(NumPy's value). The hidden outputs MXNet leaves unwritten in inference are
given fixed values: Dropout's mask is ones, rrelu's mask the slope used.
"""
import math

import numpy as np

from . import attr_bool, attr_float, attr_str, register

# MXNet dtype names -> numpy (bfloat16 has no numpy type).
DTYPES = {
    "float32": np.float32, "float64": np.float64, "float16": np.float16,
    "uint8": np.uint8, "int8": np.int8, "int32": np.int32, "int64": np.int64,
    "bool": np.bool_,
}


def np_dtype(name):
    if name not in DTYPES:
        raise NotImplementedError(f"dtype {name!r} has no numpy reference")
    return DTYPES[name]


def _is_int(dt):
    return np.issubdtype(dt, np.integer)


def _const(value, dt):
    """C++'s DType(value): integers truncate toward zero (and wrap)."""
    dt = np.dtype(dt)
    if _is_int(dt):
        bits = dt.itemsize * 8
        v = int(value) % (1 << bits)  # int() truncates toward zero
        if np.issubdtype(dt, np.signedinteger) and v >= 1 << (bits - 1):
            v -= 1 << bits
        return dt.type(v)
    return dt.type(value)


def _int_div(a, b):
    """C++ integer division (toward zero); x / 0 gives 0."""
    safe = np.where(b == 0, 1, b)
    q = np.abs(a.astype(np.int64)) // np.abs(safe.astype(np.int64))
    q = np.where((a < 0) != (safe < 0), -q, q)
    return np.where(b == 0, 0, q).astype(a.dtype)


def _pow(a, b):
    """MXNet's math::pow: double pow for f64, powf (float) otherwise."""
    if a.dtype == np.float64:
        return np.power(a, b)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        p = np.power(a.astype(np.float32), b.astype(np.float32))
    if _is_int(a.dtype):
        # C++ float -> int conversion truncates; out-of-range is undefined.
        return np.trunc(np.nan_to_num(p)).astype(np.int64).astype(a.dtype)
    return p.astype(a.dtype)


def _maximum(a, b):
    return np.maximum(a, b)  # NaN-propagating, as mshadow_op::maximum


def _minimum(a, b):
    return np.minimum(a, b)


def _cmp(fn):
    return lambda a, b: fn(a, b).astype(a.dtype)


_BINARY = {
    "add": lambda a, b: (a + b).astype(a.dtype),
    "sub": lambda a, b: (a - b).astype(a.dtype),
    "mul": lambda a, b: (a * b).astype(a.dtype),
    "div": lambda a, b: _int_div(a, b) if _is_int(a.dtype) else (a / b).astype(a.dtype),
    "maximum": _maximum,
    "minimum": _minimum,
    "power": _pow,
    "equal": _cmp(np.equal),
    "logical_and": _cmp(np.logical_and),
    "logical_or": _cmp(np.logical_or),
    "logical_xor": _cmp(np.logical_xor),
    "not_equal": _cmp(np.not_equal),
    "greater": _cmp(np.greater),
    "greater_equal": _cmp(np.greater_equal),
    "lesser": _cmp(np.less),
    "lesser_equal": _cmp(np.less_equal),
    # math::hypot: C's hypot on the element type (integers through double,
    # truncated back)
    "hypot": lambda a, b: (np.trunc(np.hypot(a.astype(np.float64), b.astype(np.float64)))
                           if _is_int(a.dtype)
                           else np.hypot(a.astype(np.float64), b)).astype(a.dtype),
    "mod": lambda a, b: _mod(a, b),
}


def _mod(a, b):
    """mshadow_op::mod: in double, the remainder with the divisor's sign
    (Python's %), 0 where the divisor is 0."""
    x, y = a.astype(np.float64), np.broadcast_to(np.asarray(b, np.float64), np.shape(a))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(y == 0, 0.0, np.mod(x, np.where(y == 0, 1.0, y)))
    return r.astype(a.dtype)


def _relu(x):
    if _is_int(x.dtype):
        return np.maximum(x, 0).astype(x.dtype)
    return np.where(np.isnan(x) | (x > 0), x, 0).astype(x.dtype)


def _sigmoid(x):
    return (1.0 / (1.0 + np.exp(-x.astype(np.float64)))).astype(x.dtype)


def _softrelu(x):
    x64 = x.astype(np.float64)
    with np.errstate(over="ignore"):
        soft = np.log1p(np.exp(x64))
    return np.where(x64 > 20.0, x64, soft).astype(x.dtype)


def _softsign(x):
    return (x / (1 + np.abs(x))).astype(x.dtype)


def _round_half_away(x):
    # C's round (MXNet's mshadow_op::round): halves away from zero; numpy's
    # np.round rounds them to even. In float64, x + 0.5 is exact for f32 / f16.
    x64 = x.astype(np.float64)
    return np.where(x64 >= 0, np.floor(x64 + 0.5), np.ceil(x64 - 0.5)).astype(x.dtype)


def _map_f64(fn, x):
    """fn (Python's math module, double precision) of every element."""
    return np.vectorize(fn, otypes=[np.float64])(x.astype(np.float64)).astype(x.dtype)


def _erfinv(y):
    """erf^-1 by bisection on math.erf (60 halvings: double precision)."""
    if y <= -1 or y >= 1:
        return math.copysign(math.inf, y) if abs(y) == 1 else math.nan
    lo, hi = -6.0, 6.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if math.erf(mid) < y:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _negative(x):
    return (-x).astype(x.dtype)


def _abs(x):
    return np.abs(x).astype(x.dtype)


_UNARY = {
    "negative": _negative,
    "abs": _abs,
    "square": lambda x: (x * x).astype(x.dtype),
    "sqrt": lambda x: np.sqrt(x).astype(x.dtype),
    "exp": lambda x: np.exp(x).astype(x.dtype),
    "log": lambda x: np.log(x).astype(x.dtype),
    "relu": _relu,
    "sigmoid": _sigmoid,
    "tanh": lambda x: np.tanh(x).astype(x.dtype),
    "sign": lambda x: np.sign(x).astype(x.dtype),
    "round": lambda x: _round_half_away(x),
    "rint": lambda x: np.rint(x).astype(x.dtype),
    "floor": lambda x: np.floor(x).astype(x.dtype),
    "ceil": lambda x: np.ceil(x).astype(x.dtype),
    "trunc": lambda x: np.trunc(x).astype(x.dtype),
    "fix": lambda x: np.fix(x).astype(x.dtype),
    "reciprocal": lambda x: (1.0 / x.astype(np.float64)).astype(x.dtype),
    "rsqrt": lambda x: (1.0 / np.sqrt(x.astype(np.float64))).astype(x.dtype),
    "log1p": lambda x: np.log1p(x.astype(np.float64)).astype(x.dtype),
    "expm1": lambda x: np.expm1(x.astype(np.float64)).astype(x.dtype),
    "log2": lambda x: np.log2(x.astype(np.float64)).astype(x.dtype),
    "log10": lambda x: np.log10(x.astype(np.float64)).astype(x.dtype),
    "sin": lambda x: np.sin(x.astype(np.float64)).astype(x.dtype),
    "cos": lambda x: np.cos(x.astype(np.float64)).astype(x.dtype),
    "tan": lambda x: np.tan(x.astype(np.float64)).astype(x.dtype),
    "arcsin": lambda x: np.arcsin(x.astype(np.float64)).astype(x.dtype),
    "arccos": lambda x: np.arccos(x.astype(np.float64)).astype(x.dtype),
    "arctan": lambda x: np.arctan(x.astype(np.float64)).astype(x.dtype),
    "sinh": lambda x: np.sinh(x.astype(np.float64)).astype(x.dtype),
    "cosh": lambda x: np.cosh(x.astype(np.float64)).astype(x.dtype),
    "arcsinh": lambda x: np.arcsinh(x.astype(np.float64)).astype(x.dtype),
    "arccosh": lambda x: np.arccosh(x.astype(np.float64)).astype(x.dtype),
    "arctanh": lambda x: np.arctanh(x.astype(np.float64)).astype(x.dtype),
    "degrees": lambda x: np.degrees(x.astype(np.float64)).astype(x.dtype),
    "radians": lambda x: np.radians(x.astype(np.float64)).astype(x.dtype),
    "cbrt": lambda x: np.cbrt(x.astype(np.float64)).astype(x.dtype),
    "rcbrt": lambda x: (1.0 / np.cbrt(x.astype(np.float64))).astype(x.dtype),
    "softsign": lambda x: (x.astype(np.float64) / (1 + np.abs(x.astype(np.float64)))).astype(x.dtype),
    "gamma": lambda x: _map_f64(math.gamma, x),
    "gammaln": lambda x: _map_f64(math.lgamma, x),
    "erf": lambda x: _map_f64(math.erf, x),
    "erfinv": lambda x: _map_f64(_erfinv, x),
}

_UNARY_ALIASES = {
    "negative": ["_sparse_negative"], "abs": ["_sparse_abs"],
    "square": ["_sparse_square"], "sqrt": ["_sparse_sqrt"],
    "exp": ["_sparse_exp"], "log": ["_sparse_log"], "relu": ["_sparse_relu"],
    "sigmoid": ["_sparse_sigmoid"], "tanh": ["_sparse_tanh"],
    "sign": ["_sparse_sign"], "round": ["_sparse_round"], "rint": ["_sparse_rint"],
    "floor": ["_sparse_floor"], "ceil": ["_sparse_ceil"], "trunc": ["_sparse_trunc"],
    "fix": ["_sparse_fix"], "reciprocal": [], "rsqrt": ["_sparse_rsqrt"],
    "log1p": ["_sparse_log1p"], "expm1": ["_sparse_expm1"], "log2": ["_sparse_log2"],
    "log10": ["_sparse_log10"], "sin": ["_sparse_sin"], "cos": ["_sparse_cos"],
    "tan": ["_sparse_tan"], "arcsin": ["_sparse_arcsin"], "arccos": [],
    "arctan": ["_sparse_arctan"], "sinh": ["_sparse_sinh"], "cosh": [],
    "arcsinh": ["_sparse_arcsinh"], "arccosh": [], "arctanh": ["_sparse_arctanh"],
    "degrees": ["_sparse_degrees"], "radians": ["_sparse_radians"],
    "cbrt": ["_sparse_cbrt"], "rcbrt": [], "softsign": [],
    "gamma": [], "gammaln": [], "erf": [], "erfinv": [],
}


def _register_unary(name, fn):
    @register(name, *_UNARY_ALIASES[name])
    def ref(inputs, attrs):
        return [fn(inputs[0])]


for _name, _fn in _UNARY.items():
    _register_unary(_name, _fn)


# elemwise_*: equal shapes, no broadcasting.
_ELEMWISE = {
    "elemwise_add": ("add", ["_Plus", "_add", "_plus", "_sparse_elemwise_add"]),
    "elemwise_sub": ("sub", ["_Minus", "_minus", "_sparse_elemwise_sub", "_sub"]),
    "elemwise_mul": ("mul", ["_Mul", "_mul", "_sparse_elemwise_mul"]),
    "elemwise_div": ("div", ["_Div", "_div", "_sparse_elemwise_div"]),
}


def _register_elemwise(name, fn_name, aliases):
    @register(name, *aliases)
    def ref(inputs, attrs):
        a, b = inputs
        if a.shape != b.shape:
            raise ValueError(f"{name}: shapes {a.shape} and {b.shape} differ")
        return [_BINARY[fn_name](a, b)]


for _name, (_fn_name, _aliases) in _ELEMWISE.items():
    _register_elemwise(_name, _fn_name, _aliases)
_register_elemwise("_hypot", "hypot", ["_Hypot"])
_register_elemwise("_mod", "mod", ["_Mod"])


@register("hard_sigmoid")
def hard_sigmoid(inputs, attrs):
    """max(0, min(1, alpha * x + beta)) (HardSigmoidForward)."""
    x = inputs[0]
    alpha, beta = attr_float(attrs, "alpha", 0.2), attr_float(attrs, "beta", 0.5)
    return [np.clip(alpha * x.astype(np.float64) + beta, 0.0, 1.0).astype(x.dtype)]


@register("smooth_l1", "_npx_smooth_l1")
def smooth_l1(inputs, attrs):
    """mshadow_op::smooth_l1_loss with sigma = scalar."""
    x = inputs[0].astype(np.float64)
    bsq = attr_float(attrs, "scalar", 1.0) ** 2
    ax = np.abs(x)
    return [np.where(ax > 1.0 / bsq, ax - 0.5 / bsq, 0.5 * bsq * x * x).astype(inputs[0].dtype)]


# broadcast_*: NumPy broadcasting (MXNet's BinaryBroadcastShape).
_BROADCAST = {
    "broadcast_add": ("add", ["_sparse_broadcast_add", "_sparse_broadcast_plus", "broadcast_plus"]),
    "broadcast_sub": ("sub", ["_sparse_broadcast_minus", "_sparse_broadcast_sub", "broadcast_minus"]),
    "broadcast_mul": ("mul", ["_sparse_broadcast_mul"]),
    "broadcast_div": ("div", ["_sparse_broadcast_div"]),
    "broadcast_maximum": ("maximum", ["_npi_maximum"]),
    "broadcast_minimum": ("minimum", ["_npi_minimum"]),
    "broadcast_power": ("power", []),
    "broadcast_equal": ("equal", []),
    "broadcast_not_equal": ("not_equal", []),
    "broadcast_greater": ("greater", []),
    "broadcast_greater_equal": ("greater_equal", []),
    "broadcast_lesser": ("lesser", []),
    "broadcast_lesser_equal": ("lesser_equal", []),
    "broadcast_hypot": ("hypot", []),
    "broadcast_mod": ("mod", []),
    "broadcast_logical_and": ("logical_and", []),
    "broadcast_logical_or": ("logical_or", []),
    "broadcast_logical_xor": ("logical_xor", []),
}


def _register_broadcast(name, fn_name, aliases):
    @register(name, *aliases)
    def ref(inputs, attrs):
        a, b = inputs
        shape = np.broadcast_shapes(a.shape, b.shape)
        return [_BINARY[fn_name](np.broadcast_to(a, shape), np.broadcast_to(b, shape))]


for _name, (_fn_name, _aliases) in _BROADCAST.items():
    _register_broadcast(_name, _fn_name, _aliases)


# _*_scalar: NumpyBinaryScalarType picks the result type; the input is cast
# to it and the scalar is DType(scalar).
_SCALAR = {
    "_plus_scalar": ("add", False, ["_PlusScalar"]),
    "_minus_scalar": ("sub", False, ["_MinusScalar"]),
    "_rminus_scalar": ("sub", True, ["_RMinusScalar"]),
    "_mul_scalar": ("mul", False, ["_MulScalar"]),
    "_div_scalar": ("div", False, ["_DivScalar"]),
    "_rdiv_scalar": ("div", True, ["_RDivScalar"]),
    "_power_scalar": ("power", False, ["_PowerScalar"]),
    "_rpower_scalar": ("power", True, ["_RPowerScalar"]),
    "_maximum_scalar": ("maximum", False, ["_MaximumScalar", "_npi_maximum_scalar"]),
    "_minimum_scalar": ("minimum", False, ["_MinimumScalar", "_npi_minimum_scalar"]),
    "_equal_scalar": ("equal", False, ["_EqualScalar"]),
    "_not_equal_scalar": ("not_equal", False, ["_NotEqualScalar"]),
    "_greater_scalar": ("greater", False, ["_GreaterScalar"]),
    "_greater_equal_scalar": ("greater_equal", False, ["_GreaterEqualScalar"]),
    "_lesser_scalar": ("lesser", False, ["_LesserScalar"]),
    "_lesser_equal_scalar": ("lesser_equal", False, ["_LesserEqualScalar"]),
    "_hypot_scalar": ("hypot", False, ["_HypotScalar", "_npi_hypot_scalar"]),
    "_mod_scalar": ("mod", False, ["_ModScalar"]),
    "_rmod_scalar": ("mod", True, ["_RModScalar"]),
    "_logical_and_scalar": ("logical_and", False, ["_LogicalAndScalar"]),
    "_logical_or_scalar": ("logical_or", False, ["_LogicalOrScalar"]),
    "_logical_xor_scalar": ("logical_xor", False, ["_LogicalXorScalar"]),
}


def scalar_result_dtype(in_dtype, is_int):
    """MXNet's NumpyBinaryScalarType."""
    if in_dtype == np.bool_:
        return np.dtype(np.int64 if is_int else np.float64)
    if _is_int(in_dtype) and not is_int:
        return np.dtype(np.float64)
    return np.dtype(in_dtype)


def _register_scalar(name, fn_name, reverse, aliases):
    @register(name, *aliases)
    def ref(inputs, attrs):
        x = inputs[0]
        scalar = attr_float(attrs, "scalar", 1.0)
        out = scalar_result_dtype(x.dtype, attr_bool(attrs, "is_int", True))
        xs = x.astype(out)
        s = np.full(x.shape, _const(scalar, out), dtype=out)
        return [_BINARY[fn_name](s, xs) if reverse else _BINARY[fn_name](xs, s)]


for _name, (_fn_name, _reverse, _aliases) in _SCALAR.items():
    _register_scalar(_name, _fn_name, _reverse, _aliases)


@register("Activation", "_npx_activation")
def activation(inputs, attrs):
    x = inputs[0]
    act = attr_str(attrs, "act_type")
    fn = {"relu": _relu, "sigmoid": _sigmoid, "tanh": _UNARY["tanh"],
          "softrelu": _softrelu, "softsign": _softsign}[act]
    return [fn(x)]


SELU_ALPHA = float(np.float32(1.6732632423543772848170429916717))
SELU_LAMBDA = float(np.float32(1.0507009873554804934193349852946))


def _xelu(x, slope):
    return np.where(x > 0, x, x * slope).astype(x.dtype)


def prelu_gamma_shape(gshape, dshape):
    """MXNet's expand_shape (leaky_relu-inl.h): gamma's extents, right-
    aligned, match data axes 0 and 1 (equal or 1); other axes get 1."""
    result = [1] * len(dshape)
    s = len(gshape) - 1
    for i in range(len(dshape) - 1, -1, -1):
        if s >= 0 and i <= 1 and (dshape[i] == gshape[s] or gshape[s] == 1):
            result[i] = gshape[s]
            s -= 1
    if s != -1:
        raise ValueError(f"cannot broadcast gamma {gshape} to data {dshape}")
    return tuple(result)


_erf = np.vectorize(math.erf, otypes=[np.float64])


@register("LeakyReLU", "_npx_leaky_relu")
def leaky_relu(inputs, attrs):
    x = inputs[0]
    act = attr_str(attrs, "act_type", "leaky")
    slope = attr_float(attrs, "slope", 0.25)
    if act == "leaky":
        return [_xelu(x, x.dtype.type(slope))]
    if act == "prelu":
        gamma = inputs[1].reshape(prelu_gamma_shape(inputs[1].shape, x.shape))
        return [_xelu(x, gamma)]
    if act == "rrelu":
        # Inference: the mean slope, computed in float as MXNet does. MXNet
        # leaves the mask unwritten then; the reference gives the slope.
        lo = np.float32(attr_float(attrs, "lower_bound", 0.125))
        hi = np.float32(attr_float(attrs, "upper_bound", 0.334))
        mean = x.dtype.type((lo + hi) / np.float32(2))
        return [_xelu(x, mean), np.full(x.shape, mean, dtype=x.dtype)]
    x64 = x.astype(np.float64)
    if act == "elu":
        return [np.where(x64 > 0, x64, slope * np.expm1(x64)).astype(x.dtype)]
    if act == "selu":
        return [(SELU_LAMBDA * np.where(x64 > 0, x64, SELU_ALPHA * np.expm1(x64))).astype(x.dtype)]
    if act == "gelu":
        return [(0.5 * x64 * (1.0 + _erf(x64 / math.sqrt(2.0)))).astype(x.dtype)]
    raise ValueError(f"LeakyReLU: unknown act_type {act!r}")


@register("clip", "_npi_clip", "_sparse_clip")
def clip(inputs, attrs):
    x = inputs[0]
    lo = _const(attr_float(attrs, "a_min"), x.dtype)
    hi = _const(attr_float(attrs, "a_max"), x.dtype)
    # x > hi ? hi : (x < lo ? lo : x); NaN passes through.
    return [np.where(x > hi, hi, np.where(x < lo, lo, x)).astype(x.dtype)]


@register("where", "_sparse_where")
def where(inputs, attrs):
    cond, x, y = inputs
    nz = cond != 0
    if cond.shape != x.shape:
        # 1-D condition: one entry per row (axis 0).
        nz = nz.reshape((x.shape[0],) + (1,) * (x.ndim - 1))
    return [np.where(nz, x, y).astype(x.dtype)]


@register("zeros_like", "_sparse_zeros_like")
def zeros_like(inputs, attrs):
    return [np.zeros_like(inputs[0])]


@register("ones_like")
def ones_like(inputs, attrs):
    return [np.ones_like(inputs[0])]


def cast_array(x, dt):
    """static_cast<To> elementwise: floats truncate into integers, bool(x) is
    x != 0, out-of-range values wrap through int64."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return x != 0
    if _is_int(dt) and np.issubdtype(x.dtype, np.floating):
        return np.trunc(x).astype(np.int64).astype(dt)
    return x.astype(dt)


@register("Cast", "_npi_cast", "_npx_cast", "cast")
def cast(inputs, attrs):
    return [cast_array(inputs[0], np_dtype(attr_str(attrs, "dtype")))]


@register("amp_cast")
def amp_cast(inputs, attrs):
    # AMPCastType: float32 / float16 / bfloat16 take dtype, the rest passes through
    x = inputs[0]
    if x.dtype in (np.float32, np.float16) or x.dtype.name == "bfloat16":
        return [cast_array(x, np_dtype(attr_str(attrs, "dtype")))]
    return [x.copy()]


@register("amp_multicast")
def amp_multicast(inputs, attrs):
    # AMPMultiCastType: the f32 / f16 / bf16 inputs take float32 if one is
    # float32, else the first input's type (cast_narrow: the last f16 / bf16
    # input's type, else float32); the others pass through
    def low(x):
        return x.dtype in (np.float32, np.float16) or x.dtype.name == "bfloat16"
    narrow = attr_bool(attrs, "cast_narrow", False)
    common = np.dtype(np.float32) if narrow else inputs[0].dtype
    for x in inputs:
        if not narrow and x.dtype == np.float32:
            common = x.dtype
        elif narrow and low(x) and x.dtype != np.float32:
            common = x.dtype
    return [cast_array(x, common) if low(x) else x.copy() for x in inputs]


@register("_identity_with_attr_like_rhs")
def identity_with_attr_like_rhs(inputs, attrs):
    # the lhs; the rhs only constrains shape inference
    assert inputs[0].shape == inputs[1].shape
    return [inputs[0].copy()]


@register("_copy", "identity")
def identity(inputs, attrs):
    return [inputs[0].copy()]


@register("BlockGrad", "_sparse_stop_gradient", "stop_gradient")
def block_grad(inputs, attrs):
    return [inputs[0].copy()]


@register("Dropout", "_npx_dropout")
def dropout(inputs, attrs):
    # Inference: the identity. mode 'always' would drop at random; there is
    # no deterministic reference for it unless p is 0.
    x = inputs[0]
    if attr_str(attrs, "mode", "training") == "always" and attr_float(attrs, "p", 0.5) != 0:
        raise NotImplementedError("Dropout mode 'always' is random")
    return [x.copy(), np.ones_like(x)]


# --- random_pdf_* (src/operator/random/pdf_op.h), in float64 ---------------

_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])


def _pdf_params(inputs, vector=False):
    """The samples and the parameters in float64, the parameters reshaped to
    broadcast along the samples' trailing axes (vector samples: before the
    last axis)."""
    x = np.asarray(inputs[0], np.float64)
    params = []
    for p in inputs[1:]:
        p = np.asarray(p, np.float64)
        if vector:
            shape = p.shape[:-1] + (1,) * (x.ndim - p.ndim) + p.shape[-1:]
        else:
            shape = p.shape + (1,) * (x.ndim - p.ndim)
        params.append(p.reshape(shape))
    return x, params


def _neg_binomial_lpdf(x, k, p):
    return _lgamma(x + k) - _lgamma(x + 1) - _lgamma(k) + k * np.log(p) + x * np.log(1 - p)


_LPDF = {
    "uniform": lambda x, lo, hi: np.broadcast_to(-np.log(hi - lo), x.shape),
    "normal": lambda x, mu, sigma: -0.5 * (x - mu) ** 2 / sigma ** 2
    - np.log(np.sqrt(2 * np.pi) * sigma),
    "gamma": lambda x, a, b: a * np.log(b) + (a - 1) * np.log(x) - b * x - _lgamma(a),
    "exponential": lambda x, lam: np.log(lam) - lam * x,
    "poisson": lambda x, lam: x * np.log(lam) - _lgamma(x + 1) - lam,
    "negative_binomial": _neg_binomial_lpdf,
    "generalized_negative_binomial":
        lambda x, mu, alpha: _neg_binomial_lpdf(x, 1 / alpha, 1 / (mu * alpha + 1)),
    "dirichlet": lambda x, a: ((a - 1) * np.log(x)).sum(axis=-1)
    + _lgamma(a.sum(axis=-1)) - _lgamma(a).sum(axis=-1),
}


def _pdf_ref(distr):
    def ref(inputs, attrs):
        vector = distr == "dirichlet"
        x, params = _pdf_params(inputs, vector)
        lp = _LPDF[distr](x, *params)
        out = lp if attr_bool(attrs, "is_log") else np.exp(lp)
        if vector and out.ndim == 0:
            out = out.reshape(1)
        return [np.asarray(out).astype(inputs[0].dtype)]
    return ref


for _distr in _LPDF:
    register("_random_pdf_" + _distr)(_pdf_ref(_distr))


# straight-through estimators: round / sign forward (stes_op.cc)
register("_contrib_round_ste")(lambda inputs, attrs: [_round_half_away(inputs[0])])
register("_contrib_sign_ste")(lambda inputs, attrs: [np.sign(inputs[0]).astype(inputs[0].dtype)])


@register("khatri_rao")
def khatri_rao(inputs, attrs):
    """krprod.h: column-wise Kronecker products, the last input fastest."""
    out = inputs[0]
    for b in inputs[1:]:
        out = (out[:, None, :] * b[None, :, :]).reshape(-1, out.shape[1])
    return [out.astype(inputs[0].dtype)]
