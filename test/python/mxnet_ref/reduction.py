"""numpy references for MXNet's reductions and softmax (forward, inference).

Semantics from MXNet 1.9.1: src/operator/tensor/broadcast_reduce_op.h
(ReduceAxesShapeImpl, ReduceAxisShapeImpl, SearchAxisCompute),
src/operator/nn/softmax-inl.h (Softmax with temperature and length),
src/operator/softmax_output-inl.h (SoftmaxOutputOp::Forward).

Float results are computed in float64 and rounded to the output type, so
the reference is at least as accurate as MXNet's float32 accumulation.
"""
import numpy as np

from . import attr_bool, attr_float, attr_int, attr_str, attr_tuple, register
from .elementwise import np_dtype


def _is_int(dt):
    return np.issubdtype(dt, np.integer)


def reduced_axes(attrs, ndim):
    """The axes sum/mean/max/min reduce: `axis` (negative from the end), all
    when absent or empty (even with exclude); `exclude` takes the others."""
    axis = attrs.get("axis")
    if axis is None or axis.strip() in ("None", "()", "[]"):
        return tuple(range(ndim))
    axes = {a % ndim for a in attr_tuple(attrs, "axis")}
    if attr_bool(attrs, "exclude"):
        axes = set(range(ndim)) - axes
    return tuple(sorted(axes))


def _reduce(inputs, attrs, fn):
    x = inputs[0]
    axes = reduced_axes(attrs, x.ndim)
    keepdims = attr_bool(attrs, "keepdims")
    out = fn(x, axes)
    if keepdims:
        shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    else:
        shape = tuple(d for i, d in enumerate(x.shape) if i not in axes) or (1,)
    return [np.asarray(out).reshape(shape)]


def _sum(x, axes):
    if _is_int(x.dtype):
        return np.sum(x, axis=axes, dtype=x.dtype)  # wraps like MXNet's DType
    return np.sum(x.astype(np.float64), axis=axes).astype(x.dtype)


def _mean(x, axes):
    count = int(np.prod([x.shape[a] for a in axes]))
    if _is_int(x.dtype):
        s = np.sum(x, axis=axes, dtype=x.dtype).astype(np.int64)
        # DType division: C++ truncation toward zero.
        q = np.abs(s) // count
        return np.where(s < 0, -q, q).astype(x.dtype)
    return np.mean(x.astype(np.float64), axis=axes).astype(x.dtype)


@register("sum", "_sparse_sum", "sum_axis")
def sum_(inputs, attrs):
    return _reduce(inputs, attrs, _sum)


@register("mean", "_sparse_mean")
def mean(inputs, attrs):
    return _reduce(inputs, attrs, _mean)


def _prod_like(fn):
    def f(x, axes):
        if _is_int(x.dtype):
            return fn(x, axis=axes, dtype=x.dtype)   # wraps like MXNet's DType
        return fn(x.astype(np.float64), axis=axes).astype(x.dtype)
    return f


@register("prod")
def prod(inputs, attrs):
    return _reduce(inputs, attrs, _prod_like(np.prod))


@register("nansum")
def nansum(inputs, attrs):
    return _reduce(inputs, attrs, _prod_like(np.nansum))


@register("nanprod")
def nanprod(inputs, attrs):
    return _reduce(inputs, attrs, _prod_like(np.nanprod))


@register("max", "max_axis")
def max_(inputs, attrs):
    return _reduce(inputs, attrs, lambda x, a: np.max(x, axis=a))


@register("min", "min_axis")
def min_(inputs, attrs):
    return _reduce(inputs, attrs, lambda x, a: np.min(x, axis=a))


@register("argmax")
def argmax(inputs, attrs):
    """Index of the first maximum (or first NaN), in the input's type. No
    axis: over the flattened input, shape (1,) (all ones with keepdims); a
    1-D input reduced along its axis gives (1,) too."""
    x = inputs[0]
    axis = attr_int(attrs, "axis")
    keepdims = attr_bool(attrs, "keepdims")
    if axis is None:
        idx = np.argmax(x.reshape(-1))
        shape = (1,) * x.ndim if keepdims else (1,)
        return [np.full(shape, idx, dtype=x.dtype)]
    axis %= x.ndim
    idx = np.argmax(x, axis=axis)
    if keepdims:
        idx = np.expand_dims(idx, axis)
    return [np.asarray(idx).reshape(idx.shape or (1,)).astype(x.dtype)]


def _softmax(x, axes, temperature=1.0, log=False, length=None, length_axis=None):
    """exp((x - max) / t) / sum over `axes` (or its log), in float64. With
    `length`, only the first length[row] positions along `length_axis`
    take part; the others are 0."""
    x64 = x.astype(np.float64)
    if length is not None:
        pos = np.arange(x.shape[length_axis]).reshape(
            [-1 if i == length_axis else 1 for i in range(x.ndim)])
        valid = pos < np.expand_dims(length.astype(np.int64), length_axis)
        masked = np.where(valid, x64, -np.inf)
    else:
        valid = None
        masked = x64
    m = np.max(masked, axis=axes, keepdims=True)
    if valid is not None:
        m = np.where(np.isfinite(m), m, 0.0)  # rows of length 0
    d = (x64 - m) / temperature
    e = np.exp(d)
    if valid is not None:
        e = np.where(valid, e, 0.0)
    s = np.sum(e, axis=axes, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = d - np.log(s) if log else e / s
    if valid is not None:
        out = np.where(valid, out, 0.0)
    return out


def _softmax_op(inputs, attrs, log):
    x = inputs[0]
    axis = attr_int(attrs, "axis", -1) % x.ndim
    t = attr_float(attrs, "temperature", 1.0)
    dtype = attr_str(attrs, "dtype")
    out_dt = np_dtype(dtype) if dtype not in (None, "None") else x.dtype
    length = None
    if attr_bool(attrs, "use_length"):
        length = inputs[1]
    out = _softmax(x, (axis,), t, log, length, axis if length is not None else None)
    return [out.astype(out_dt)]


@register("softmax", "_npx_softmax")
def softmax(inputs, attrs):
    return _softmax_op(inputs, attrs, log=False)


@register("log_softmax", "_npx_log_softmax")
def log_softmax(inputs, attrs):
    return _softmax_op(inputs, attrs, log=True)


@register("SoftmaxOutput", "Softmax")
def softmax_output(inputs, attrs):
    """Forward: softmax over axis 1 (multi_output, as a (n, k, rest) view),
    the last axis (preserve_shape) or all axes but the first (the data seen
    as (n, size / n)). The label only shapes the gradient."""
    x = inputs[0]
    if attr_bool(attrs, "multi_output"):
        axes = (1,)
    elif attr_bool(attrs, "preserve_shape"):
        axes = (x.ndim - 1,)
    else:
        axes = tuple(range(1, x.ndim))
    return [_softmax(x, axes).astype(x.dtype)]


@register("LinearRegressionOutput", "MAERegressionOutput")
def regression_output(inputs, attrs):
    # forward: the identity (regression_output.cc, mshadow_op::identity)
    return [inputs[0].copy()]


@register("SoftmaxActivation")
def softmax_activation(inputs, attrs):
    """MXNet's SoftmaxActivation: over each instance's elements (mode
    instance) or along axis 1 (mode channel), in float64."""
    x = inputs[0].astype(np.float64)
    if attr_str(attrs, "mode", "instance") == "channel" and x.ndim >= 3:
        e = np.exp(x - x.max(axis=1, keepdims=True))
        y = e / e.sum(axis=1, keepdims=True)
    else:
        flat = x.reshape(x.shape[0], -1)
        e = np.exp(flat - flat.max(axis=1, keepdims=True))
        y = (e / e.sum(axis=1, keepdims=True)).reshape(x.shape)
    return [y.astype(inputs[0].dtype)]


@register("SVMOutput")
def svm_output(inputs, attrs):
    # forward: the identity (svm_output-inl.h Forward copies data)
    return [inputs[0].copy()]


@register("LogisticRegressionOutput")
def logistic_regression_output(inputs, attrs):
    x = inputs[0]
    return [(1.0 / (1.0 + np.exp(-x.astype(np.float64)))).astype(x.dtype)]


@register("argmax_channel")
def argmax_channel(inputs, attrs):
    """argmax along axis 1, keepdims false (MXNet's parser)."""
    return argmax(inputs, {"axis": "1", "keepdims": "False"})


@register("moments", "_npx_moments")
def moments(inputs, attrs):
    x = inputs[0].astype(np.float64)
    axes = attr_tuple(attrs, "axes") or tuple(range(x.ndim))
    keepdims = attr_bool(attrs, "keepdims")
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    if not keepdims:
        shape = [d for i, d in enumerate(x.shape) if i not in [a % x.ndim for a in axes]] or [1]
        mean, var = mean.reshape(shape), var.reshape(shape)
    return [mean.astype(inputs[0].dtype), var.astype(inputs[0].dtype)]



def _ordered(x, attrs, ascend_default):
    """(rows, positions, view): x as (outer, n, inner) rows along the axis
    (the flattened input when axis is None; MXNet's default axis is -1), and
    each row's positions in MXNet's order: by value (descending unless
    is_ascend), equal values by position (a stable sort)."""
    axis = attrs.get("axis", "-1")
    is_ascend = attr_bool(attrs, "is_ascend") if "is_ascend" in attrs else ascend_default
    if axis.strip() == "None":
        v = x.reshape(1, -1, 1)
        ax = None
    else:
        ax = int(axis) % x.ndim
        v = x.reshape(int(np.prod(x.shape[:ax])), x.shape[ax], -1)
    key = v if is_ascend else -v.astype(np.float64)
    pos = np.argsort(key, axis=1, kind="stable")
    return v, pos, ax


def _place(rows, x, ax, k):
    """(outer, k, inner) rows back in MXNet's result shape."""
    if ax is None:
        return rows.reshape(k)
    shape = list(x.shape)
    shape[ax] = k
    return rows.reshape(shape)


@register("topk", "_npx_topk")
def topk(inputs, attrs):
    """MXNet's topk (ordering_op-inl.h): value / indices / both / mask of the
    first k positions (k < 1: all); indices of type dtype (float32)."""
    x = inputs[0]
    v, pos, ax = _ordered(x, attrs, ascend_default=False)
    n = v.shape[1]
    k = attr_int(attrs, "k")
    k = 1 if k is None else k
    k = n if k < 1 else k
    ret = attr_str(attrs, "ret_typ") or "indices"
    dtype = np_dtype(attr_str(attrs, "dtype") or "float32")
    sel = pos[:, :k, :]
    values = _place(np.take_along_axis(v, sel, axis=1), x, ax, k).astype(x.dtype)
    indices = _place(sel, x, ax, k).astype(dtype)
    if ret == "value":
        return [values]
    if ret == "both":
        return [values, indices]
    if ret == "indices":
        return [indices]
    mask = np.zeros(v.shape, x.dtype)
    np.put_along_axis(mask, sel, 1, axis=1)
    return [mask.reshape(x.shape)]


@register("sort", "_npi_sort")
def sort(inputs, attrs):
    x = inputs[0]
    v, pos, ax = _ordered(x, attrs, ascend_default=True)
    return [_place(np.take_along_axis(v, pos, axis=1), x, ax, v.shape[1]).astype(x.dtype)]


@register("argsort", "_npx_argsort")
def argsort(inputs, attrs):
    x = inputs[0]
    v, pos, ax = _ordered(x, attrs, ascend_default=True)
    dtype = np_dtype(attr_str(attrs, "dtype") or "float32")
    return [_place(pos, x, ax, v.shape[1]).astype(dtype)]


@register("_contrib_quadratic")
def quadratic(inputs, attrs):
    x = inputs[0].astype(np.float64)
    a, b, c = (attr_float(attrs, k, 0.0) for k in "abc")
    return [(a * x * x + b * x + c).astype(inputs[0].dtype)]


@register("_contrib_div_sqrt_dim")
def div_sqrt_dim(inputs, attrs):
    x = inputs[0]
    return [(x.astype(np.float64) / np.sqrt(x.shape[-1])).astype(x.dtype)]


@register("softmax_cross_entropy")
def softmax_cross_entropy(inputs, attrs):
    """-sum_i log(softmax(data_i))[label_i], shape (1,) (loss_binary_op-inl.h)."""
    x = inputs[0].astype(np.float64)
    label = inputs[1].astype(np.int64)
    z = x - x.max(axis=1, keepdims=True)
    lsm = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return [np.array([-lsm[np.arange(len(label)), label].sum()], inputs[0].dtype)]


@register("all_finite")
def all_finite(inputs, attrs):
    return [np.array([float(np.isfinite(inputs[0]).all())], np.float32)]


@register("multi_all_finite")
def multi_all_finite(inputs, attrs):
    return [np.array([float(all(np.isfinite(x).all() for x in inputs))], np.float32)]
