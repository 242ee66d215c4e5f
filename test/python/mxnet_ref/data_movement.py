"""numpy references for MXNet's data-movement operators (forward).

Semantics from MXNet 1.9.1: src/operator/tensor/matrix_op-inl.h
(InferReshapeShape and ReshapeShape with the deprecated target_shape,
TransposeParam, ExpandDimParam, SliceAxisParam), src/operator/nn/concat-inl.h
and src/operator/tensor/indexing_op.h (the one_hot kernel).
"""
import ast

import numpy as np

from . import attr_bool, attr_float, attr_int, attr_str, attr_tuple, register
from .elementwise import np_dtype


def infer_reshape_shape(shape, dshape, reverse=False):
    """MXNet's InferReshapeShape: 0 copies, -1 infers, -2 copies the rest,
    -3 merges two, -4 splits one into the next two values."""
    src = list(dshape)
    param = list(shape)
    if reverse:
        src.reverse()
        param.reverse()
    tmp = []
    src_idx = 0
    inf_idx = -1
    i = 0
    while i < len(param):
        p = param[i]
        if p == 0:
            tmp.append(src[src_idx])
            src_idx += 1
        elif p == -1:
            if inf_idx >= 0:
                raise ValueError("one and only one dim can be inferred")
            inf_idx = i  # MXNet indexes tmp with the parameter position
            tmp.append(1)
            src_idx += 1
        elif p == -2:
            tmp.extend(src[src_idx:])
            src_idx = len(src)
        elif p == -3:
            tmp.append(src[src_idx] * src[src_idx + 1])
            src_idx += 2
        elif p == -4:
            d0 = src[src_idx]
            src_idx += 1
            d1, d2 = param[i + 1], param[i + 2]
            i += 2
            if d1 == -1:
                d1 = d0 // d2
            if d2 == -1:
                d2 = d0 // d1
            if d1 * d2 != d0:
                raise ValueError(f"split dims {d1}, {d2} do not divide {d0}")
            tmp.extend([d1, d2])
        else:
            tmp.append(p)
            src_idx += 1
        i += 1
    if inf_idx >= 0:
        if inf_idx >= len(tmp):
            raise ValueError("inferred extent falls outside the new shape")
        tmp[inf_idx] = int(np.prod(dshape)) // int(np.prod(tmp))
    if reverse:
        tmp.reverse()
    return tuple(int(d) for d in tmp)


@register("Reshape", "reshape")
def reshape(inputs, attrs):
    x = inputs[0]
    shape = attr_tuple(attrs, "shape")
    if shape:
        oshape = infer_reshape_shape(shape, x.shape, attr_bool(attrs, "reverse"))
    else:
        # Deprecated target_shape: 0 marks the one inferred extent.
        oshape = list(attr_tuple(attrs, "target_shape"))
        start = 0
        if attr_bool(attrs, "keep_highest"):
            oshape[0] = x.shape[0]
            start = 1
        zeros = [i for i in range(start, len(oshape)) if oshape[i] == 0]
        if len(zeros) == 1:
            oshape[zeros[0]] = 1
            oshape[zeros[0]] = x.size // int(np.prod(oshape))
        oshape = tuple(oshape)
    return [x.reshape(oshape)]


@register("Flatten", "_npx_batch_flatten", "flatten")
def flatten(inputs, attrs):
    x = inputs[0]
    return [x.reshape(x.shape[0], -1) if x.ndim else x.reshape(1, 1)]


@register("transpose")
def transpose(inputs, attrs):
    axes = attr_tuple(attrs, "axes")
    return [np.ascontiguousarray(np.transpose(inputs[0], axes or None))]


@register("expand_dims", "_npi_expand_dims")
def expand_dims(inputs, attrs):
    return [np.expand_dims(inputs[0], attr_int(attrs, "axis"))]


@register("squeeze")
def squeeze(inputs, attrs):
    # MXNet's SqueezeShape: every axis of extent 1 when `axis` is absent;
    # squeezing everything gives (1,), where numpy gives a scalar.
    x = inputs[0]
    # axis = () squeezes nothing (MXNet checks has_value(), not emptiness).
    axis = tuple(attr_tuple(attrs, "axis")) if attrs.get("axis", "None") != "None" else None
    out = np.squeeze(x, axis=axis)
    return [out.reshape(1) if out.ndim == 0 else out]


@register("broadcast_to")
def broadcast_to(inputs, attrs):
    x = inputs[0]
    shape = [s if s != 0 else d for s, d in zip(attr_tuple(attrs, "shape"), x.shape)]
    return [np.ascontiguousarray(np.broadcast_to(x, shape))]


@register("pick", "choose_element_0index", "_npx_pick")
def pick(inputs, attrs):
    # MXNet's pick kernel: static_cast<int>(index), clipped or wrapped.
    data, index = inputs
    axis = attr_int(attrs, "axis", -1) % data.ndim
    keepdims = attrs.get("keepdims", "False") in ("True", "true", "1")
    n = data.shape[axis]
    idx = np.trunc(index).astype(np.int64)
    idx = np.mod(idx, n) if attrs.get("mode", "clip") == "wrap" else np.clip(idx, 0, n - 1)
    if idx.ndim == data.ndim - 1 or data.ndim == 1:
        idx = np.expand_dims(idx.reshape([d for i, d in enumerate(data.shape) if i != axis]), axis)
    out = np.take_along_axis(data, idx.reshape([1 if i == axis else d for i, d in enumerate(data.shape)]), axis)
    return [out if keepdims else (out.reshape(-1) if data.ndim == 1 else np.squeeze(out, axis))]


def _gather_index(index, n, wrap):
    # MXNet's take / Embedding kernels: static_cast<int>(index), then
    # clipped into [0, n) or wrapped (Python's modulo)
    idx = np.trunc(np.asarray(index, np.float64)).astype(np.int64)
    return np.mod(idx, n) if wrap else np.clip(idx, 0, n - 1)


@register("take", "_npi_take")
def take(inputs, attrs):
    a, index = inputs
    axis = attr_int(attrs, "axis", 0) % a.ndim
    mode = attrs.get("mode", "clip")
    if mode == "raise":
        raise ValueError("take: mode='raise' has no reference here")
    return [np.take(a, _gather_index(index, a.shape[axis], mode == "wrap"), axis=axis)]


@register("Embedding", "_npx_embedding", "_sparse_Embedding")
def embedding(inputs, attrs):
    data, weight = inputs
    if weight.shape != (attr_int(attrs, "input_dim"), attr_int(attrs, "output_dim")):
        raise ValueError("Embedding: weight shape %s" % (weight.shape,))
    return [weight[_gather_index(data, weight.shape[0], False)]]


@register("reshape_like", "_npx_reshape_like")
def reshape_like(inputs, attrs):
    # MXNet's ReshapeLikeShapeCompute: lhs axes [lhs_begin, lhs_end) become
    # rhs axes [rhs_begin, rhs_end); absent bounds are 0 and the rank.
    lhs, rhs = inputs

    def bound(name, default, ndim):
        v = attrs.get(name, "None")
        v = default if v in (None, "None") else int(v)
        return v + ndim if v < 0 else v

    lb, le = bound("lhs_begin", 0, lhs.ndim), bound("lhs_end", lhs.ndim, lhs.ndim)
    rb, re = bound("rhs_begin", 0, rhs.ndim), bound("rhs_end", rhs.ndim, rhs.ndim)
    shape = lhs.shape[:lb] + rhs.shape[rb:re] + lhs.shape[le:]
    return [lhs.reshape(shape)]


@register("slice_axis")
def slice_axis(inputs, attrs):
    x = inputs[0]
    axis = attr_int(attrs, "axis") % x.ndim
    n = x.shape[axis]
    begin = attr_int(attrs, "begin")
    end = attr_int(attrs, "end")
    if begin < 0:
        begin += n
    if end is None:
        end = n
    elif end < 0:
        end += n
    index = [slice(None)] * x.ndim
    index[axis] = slice(begin, end)
    return [np.ascontiguousarray(x[tuple(index)])]


@register("Concat", "_sparse_concat", "concat")
def concat(inputs, attrs):
    return [np.concatenate(inputs, axis=attr_int(attrs, "dim", 1))]


@register("one_hot", "_npx_one_hot")
def one_hot(inputs, attrs):
    """out[..., j] = on_value where j == int(index) (C++ truncation), else
    off_value; indices outside [0, depth) give a row of off_value."""
    idx = inputs[0]
    depth = attr_int(attrs, "depth")
    on = attr_float(attrs, "on_value", 1.0)
    off = attr_float(attrs, "off_value", 0.0)
    dt = np.dtype(np_dtype(attr_str(attrs, "dtype", "float32")))
    if np.issubdtype(idx.dtype, np.floating):
        j = np.trunc(idx).astype(np.int64)
    else:
        j = idx.astype(np.int64)
    hit = j[..., None] == np.arange(depth)
    # DType(value): on/off truncate into integer types.
    on_v = dt.type(int(on)) if np.issubdtype(dt, np.integer) else dt.type(on)
    off_v = dt.type(int(off)) if np.issubdtype(dt, np.integer) else dt.type(off)
    return [np.where(hit, on_v, off_v).astype(dt)]


@register("reverse", "flip")
def reverse(inputs, attrs):
    # MXNet's reverse kernel: each listed axis reversed (twice: unchanged)
    x = inputs[0]
    for a in attr_tuple(attrs, "axis"):
        x = np.flip(x, axis=a % x.ndim)
    return [np.ascontiguousarray(x)]


@register("broadcast_axis", "broadcast_axes")
def broadcast_axis(inputs, attrs):
    x = inputs[0]
    shape = list(x.shape)
    for a, n in zip(attr_tuple(attrs, "axis"), attr_tuple(attrs, "size")):
        if shape[a % x.ndim] != 1:
            raise ValueError("Broadcasting axis must have size 1")
        shape[a % x.ndim] = n
    return [np.ascontiguousarray(np.broadcast_to(x, shape))]


@register("shape_array", "_npx_shape_array")
def shape_array(inputs, attrs):
    return [np.array(inputs[0].shape, np.int64)]


@register("size_array")
def size_array(inputs, attrs):
    return [np.array([inputs[0].size], np.int64)]


@register("slice_like")
def slice_like(inputs, attrs):
    x, like = inputs
    axes = attr_tuple(attrs, "axes") or tuple(range(x.ndim))
    index = [slice(None)] * x.ndim
    for a in axes:
        index[a % x.ndim] = slice(0, like.shape[a % x.ndim])
    return [np.ascontiguousarray(x[tuple(index)])]


@register("depth_to_space")
def depth_to_space(inputs, attrs):
    # MXNet's documented reshape / transpose / reshape (DCR)
    x, b = inputs[0], attr_int(attrs, "block_size")
    n, c, h, w = x.shape
    y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    return [np.ascontiguousarray(y.reshape(n, c // (b * b), h * b, w * b))]


@register("space_to_depth")
def space_to_depth(inputs, attrs):
    x, b = inputs[0], attr_int(attrs, "block_size")
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return [np.ascontiguousarray(y.reshape(n, c * b * b, h // b, w // b))]


@register("Pad", "pad")
def pad(inputs, attrs):
    # numpy's pad modes are MXNet's: constant, edge, reflect (no repeat)
    x = inputs[0]
    w = attr_tuple(attrs, "pad_width")
    mode = attrs["mode"]
    widths = [(w[2 * i], w[2 * i + 1]) for i in range(x.ndim)]
    if mode == "constant":
        return [np.pad(x, widths, mode="constant",
                       constant_values=x.dtype.type(float(attrs.get("constant_value", 0))))]
    return [np.pad(x, widths, mode=mode)]


@register("broadcast_like")
def broadcast_like(inputs, attrs):
    lhs, rhs = inputs
    if attrs.get("lhs_axes", "None") in ("None", None):
        return [np.ascontiguousarray(np.broadcast_to(lhs, rhs.shape))]
    shape = list(lhs.shape)
    for la, ra in zip(attr_tuple(attrs, "lhs_axes"), attr_tuple(attrs, "rhs_axes")):
        shape[la % lhs.ndim] = rhs.shape[ra % rhs.ndim]
    return [np.ascontiguousarray(np.broadcast_to(lhs, shape))]


def _opt_tuple(attrs, key):
    """A tuple of optional ints as MXNet writes it: "(0, None)"."""
    import ast
    v = attrs.get(key)
    if v is None:
        return ()
    v = v.strip()
    if v in ("()", "[]", ""):
        return ()
    val = ast.literal_eval(v)
    return tuple(val) if isinstance(val, (tuple, list)) else (val,)


def _slice_key(shape, attrs):
    """The numpy index of MXNet's slice: Python's slice semantics per axis
    (MXNet's GetIndexRange clips the same way), None = default."""
    begin, end, step = _opt_tuple(attrs, "begin"), _opt_tuple(attrs, "end"), _opt_tuple(attrs, "step")
    key = []
    for i in range(len(shape)):
        if i >= len(begin):
            key.append(slice(None))
            continue
        s = step[i] if i < len(step) and step[i] is not None else 1
        key.append(slice(begin[i], end[i], s))
    return tuple(key)


@register("slice", "crop")
def slice_op(inputs, attrs):
    x = inputs[0]
    return [np.ascontiguousarray(x[_slice_key(x.shape, attrs)])]


@register("_slice_assign", "_crop_assign")
def slice_assign(inputs, attrs):
    out = inputs[0].copy()
    out[_slice_key(out.shape, attrs)] = inputs[1]
    return [out]


@register("_slice_assign_scalar", "_crop_assign_scalar")
def slice_assign_scalar(inputs, attrs):
    out = inputs[0].copy()
    out[_slice_key(out.shape, attrs)] = float(attrs.get("scalar", 0))
    return [out]


@register("SwapAxis", "swapaxes", "_npi_swapaxes")
def swap_axis(inputs, attrs):
    return [np.ascontiguousarray(np.swapaxes(inputs[0], attr_int(attrs, "dim1", 0),
                                             attr_int(attrs, "dim2", 0)))]


@register("batch_take")
def batch_take(inputs, attrs):
    a, idx = inputs
    j = np.clip(idx.astype(np.int64), 0, a.shape[1] - 1)
    return [a[np.arange(a.shape[0]), j]]


@register("repeat")
def repeat(inputs, attrs):
    axis = attr_int(attrs, "axis")
    return [np.repeat(inputs[0], attr_int(attrs, "repeats"), axis=axis)]


@register("tile")
def tile(inputs, attrs):
    reps = attr_tuple(attrs, "reps")
    return [np.tile(inputs[0], reps) if reps else inputs[0].copy()]



# -- creation operators (src/operator/tensor/init_op.h) -------------------------

def _dtype_value(dt, v):
    """DType(v) as C++ converts a double (integers truncate; bool: v != 0)."""
    if dt == np.bool_:
        return np.bool_(v != 0)
    if np.issubdtype(dt, np.integer):
        return dt.type(int(v))
    return dt.type(v)


def _init(attrs, value):
    shape = attr_tuple(attrs, "shape")
    dt = np.dtype(np_dtype(attr_str(attrs, "dtype", "float32")))
    return [np.full(shape, _dtype_value(dt, value), dtype=dt)]


@register("_zeros")
def zeros(inputs, attrs):
    return _init(attrs, 0.0)


@register("_ones")
def ones(inputs, attrs):
    return _init(attrs, 1.0)


@register("_full")
def full(inputs, attrs):
    return _init(attrs, attr_float(attrs, "value"))


def range_values(n, start, step, repeat, dt):
    """MXNet's range_fwd: DType(start) + (i / repeat) * DType(step) in the
    type's arithmetic (float16 through float32; integers wrap)."""
    i = np.arange(n) // repeat
    if np.issubdtype(dt, np.floating):
        ct = np.float32 if dt.itemsize < 4 else dt.type
        s, st = ct(dt.type(start)), ct(dt.type(step))
        return (s + i.astype(ct) * st).astype(dt)
    vals = int(start) + i.astype(np.int64) * int(step)
    if dt == np.bool_:
        return vals != 0
    return vals.astype(dt)


@register("_arange")
def arange(inputs, attrs):
    """Without stop, [0, start)."""
    start = attr_float(attrs, "start")
    stop = attrs.get("stop", "None")
    step = attr_float(attrs, "step", 1.0)
    repeat = attr_int(attrs, "repeat", 1)
    if stop == "None":
        start, stop = 0.0, start
    else:
        stop = float(stop)
    n = int(np.ceil((stop - start) / step)) * repeat
    dt = np.dtype(np_dtype(attr_str(attrs, "dtype", "float32")))
    return [range_values(n, start, step, repeat, dt)]


@register("_eye")
def eye(inputs, attrs):
    n = attr_int(attrs, "N")
    m = attr_int(attrs, "M", 0) or n
    dt = np.dtype(np_dtype(attr_str(attrs, "dtype", "float32")))
    return [np.eye(n, m, k=attr_int(attrs, "k", 0), dtype=dt)]


@register("_contrib_arange_like")
def arange_like(inputs, attrs):
    x = inputs[0]
    axis = attrs.get("axis", "None")
    shape = x.shape if axis == "None" else (x.shape[int(axis)],)
    vals = range_values(int(np.prod(shape)), attr_float(attrs, "start", 0.0),
                        attr_float(attrs, "step", 1.0), attr_int(attrs, "repeat", 1), x.dtype)
    return [vals.reshape(shape)]


@register("SliceChannel", "split")
def slice_channel(inputs, attrs):
    """num_outputs equal parts of `axis`; squeeze_axis drops it."""
    x = inputs[0]
    n = attr_int(attrs, "num_outputs")
    axis = attr_int(attrs, "axis", 1) % x.ndim
    parts = np.split(x, n, axis=axis)
    if attr_bool(attrs, "squeeze_axis", False):
        parts = [np.squeeze(p, axis=axis) for p in parts]
    return parts


@register("diag", "_np_diag")
def diag(inputs, attrs):
    """numpy.diag for 1-D input (the square matrix), numpy.diagonal over
    (axis1, axis2) otherwise (diag_op-inl.h)."""
    x = inputs[0]
    k = attr_int(attrs, "k", 0)
    if x.ndim == 1:
        return [np.diag(x, k=k)]
    return [np.ascontiguousarray(np.diagonal(x, offset=k, axis1=attr_int(attrs, "axis1", 0),
                                             axis2=attr_int(attrs, "axis2", 1)))]


@register("_ravel_multi_index", "ravel_multi_index")
def ravel_multi_index(inputs, attrs):
    """MXNet's ravel_multi_index (src/operator/tensor/ravel.h): flat indices
    by explicit strides over `shape` (its first extent never read)."""
    data = np.asarray(inputs[0])
    shape = attr_tuple(attrs, "shape")
    out = np.zeros(data.shape[1:], dtype=np.float64)
    stride = 1
    for i in range(len(shape) - 1, -1, -1):
        out += data[i].astype(np.float64) * stride
        stride *= shape[i]
    return [out.astype(data.dtype)]


@register("_unravel_index", "unravel_index")
def unravel_index(inputs, attrs):
    """MXNet's unravel_index: index i = (x // stride_i) % shape[i], the
    first without the modulo when its extent is -1, by integer arithmetic."""
    data = np.asarray(inputs[0])
    shape = attr_tuple(attrs, "shape")
    x = data.astype(np.int64)
    rows = []
    for i in range(len(shape)):
        stride = int(np.prod(shape[i + 1:], dtype=np.int64))
        q = x // stride
        rows.append(q % shape[i] if shape[i] > 0 else q)
    return [np.stack(rows).astype(data.dtype)]


@register("gather_nd", "_npx_gather_nd")
def gather_nd(inputs, attrs):
    """MXNet's gather_nd by explicit loops: indices (M, Y...) into data's
    first M axes (a negative index counts from the end)."""
    data, idx = np.asarray(inputs[0]), np.asarray(inputs[1]).astype(np.int64)
    m = idx.shape[0]
    ys = idx.shape[1:]
    out = np.empty(ys + data.shape[m:], dtype=data.dtype)
    for y in np.ndindex(*ys):
        pos = tuple(int(idx[(i,) + y]) % data.shape[i] for i in range(m))
        out[y] = data[pos]
    return [out]


@register("scatter_nd", "_npx_scatter_nd")
def scatter_nd(inputs, attrs):
    """MXNet's scatter_nd by explicit loops: data's slices written at the
    multi-indices of a zero array of `shape` (distinct, in-range indices)."""
    data, idx = np.asarray(inputs[0]), np.asarray(inputs[1]).astype(np.int64)
    shape = attr_tuple(attrs, "shape")
    out = np.zeros(shape, dtype=data.dtype)
    m = idx.shape[0]
    for y in np.ndindex(*idx.shape[1:]):
        out[tuple(int(idx[(i,) + y]) for i in range(m))] = data[y]
    return [out]


@register("_contrib_index_copy")
def index_copy(inputs, attrs):
    """MXNet's contrib.index_copy: rows index[k] of old replaced by new[k]."""
    old, idx, new = inputs
    out = np.array(old, copy=True)
    for k, i in enumerate(np.asarray(idx).astype(np.int64)):
        out[i] = new[k]
    return [out]


@register("_contrib_index_array")
def index_array(inputs, attrs):
    """MXNet's contrib.index_array: each element's position along `axes`
    (all axes when absent), int64, on a new last axis."""
    data = np.asarray(inputs[0])
    axes = attr_tuple(attrs, "axes", None) if "axes" in attrs and attrs["axes"] != "None" else None
    grid = np.stack(np.indices(data.shape), axis=-1)
    if axes is not None:
        grid = grid[..., list(axes)]
    return [grid.astype(np.int64)]


def _gemm(a, b, attrs, c=None):
    """alpha op(A) op(B) (+ beta C) with the matrices on (axis, last)."""
    axis = attr_int(attrs, "axis", -2)
    ta, tb = attr_bool(attrs, "transpose_a"), attr_bool(attrs, "transpose_b")
    alpha = attr_float(attrs, "alpha", 1.0)
    mv = lambda x: np.moveaxis(np.asarray(x, np.float64), axis, -2)
    a2, b2 = mv(a), mv(b)
    if ta:
        a2 = np.swapaxes(a2, -1, -2)
    if tb:
        b2 = np.swapaxes(b2, -1, -2)
    r = alpha * np.matmul(a2, b2)
    if c is not None:
        r = r + attr_float(attrs, "beta", 1.0) * mv(c)
    return np.moveaxis(r, -2, axis)


@register("_linalg_gemm", "linalg_gemm")
def linalg_gemm(inputs, attrs):
    return [_gemm(inputs[0], inputs[1], attrs, inputs[2]).astype(inputs[0].dtype)]


@register("_linalg_gemm2", "linalg_gemm2")
def linalg_gemm2(inputs, attrs):
    return [_gemm(inputs[0], inputs[1], attrs).astype(inputs[0].dtype)]


@register("_histogram", "_npi_histogram")
def histogram(inputs, attrs):
    """MXNet's _histogram (histogram.cc): numpy.histogram over the flattened
    data, the edges (hi * i + (n - i) * lo) / n for bin_cnt, else `bins`."""
    x = inputs[0].reshape(-1)
    if attr_int(attrs, "bin_cnt") is not None:
        n = attr_int(attrs, "bin_cnt")
        lo, hi = ast.literal_eval(attrs["range"])
        edges = np.array([(hi * i + (n - i) * lo) / n for i in range(n + 1)]).astype(x.dtype)
    else:
        edges = inputs[1].astype(x.dtype)
    counts, _ = np.histogram(x, edges)
    return [counts.astype(np.int64), edges]


def _trian_positions(n, offset, lower):
    """la_op-inl.h CopyTrian: (row, col) of each triangle entry, in order."""
    k = abs(offset)
    upper = offset > 0 or (offset == 0 and not lower)
    out = []
    for row in range(n - k):
        for col in range(row + 1):
            r, c = row + k, col
            out.append((c, r) if upper else (r, c))
    return out


@register("_linalg_extractdiag", "linalg_extractdiag")
def linalg_extractdiag(inputs, attrs):
    """numpy.diagonal of the last two axes."""
    (a,) = inputs
    return [np.ascontiguousarray(np.diagonal(a, offset=attr_int(attrs, "offset", 0),
                                             axis1=-2, axis2=-1))]


@register("_linalg_makediag", "linalg_makediag")
def linalg_makediag(inputs, attrs):
    """Each vector on diagonal `offset` of a zero matrix (numpy.diagflat)."""
    (a,) = inputs
    k = attr_int(attrs, "offset", 0)
    flat = a.reshape(-1, a.shape[-1])
    mats = [np.diagflat(v, k) for v in flat]
    n = a.shape[-1] + abs(k)
    return [np.array(mats, a.dtype).reshape(a.shape[:-1] + (n, n))]


@register("_linalg_extracttrian", "linalg_extracttrian")
def linalg_extracttrian(inputs, attrs):
    """The triangle's entries in MXNet's order (CopyTrian), by a loop."""
    (a,) = inputs
    n = a.shape[-1]
    pos = _trian_positions(n, attr_int(attrs, "offset", 0), attr_bool(attrs, "lower", True))
    return [np.stack([a[..., r, c] for r, c in pos], axis=-1)]


@register("_linalg_maketrian", "linalg_maketrian")
def linalg_maketrian(inputs, attrs):
    """extracttrian's inverse: the entries placed back, zeros elsewhere."""
    (a,) = inputs
    k = attr_int(attrs, "offset", 0)
    m = int((np.sqrt(8 * a.shape[-1] + 1) - 1) // 2)
    n = m + abs(k)
    out = np.zeros(a.shape[:-1] + (n, n), a.dtype)
    for t, (r, c) in enumerate(_trian_positions(n, k, attr_bool(attrs, "lower", True))):
        out[..., r, c] = a[..., t]
    return [out]


def _tri(a, lower):
    """The triangle BLAS / LAPACK read (the other one zeroed)."""
    return np.tril(a) if lower else np.triu(a)


def _t(a):
    return np.swapaxes(a, -1, -2)


@register("_linalg_potrf", "linalg_potrf")
def linalg_potrf(inputs, attrs):
    """numpy.linalg.cholesky of the symmetric matrix of A's read triangle;
    U = L^T for lower=False."""
    (a,) = inputs
    lower = attr_bool(attrs, "lower", True)
    t = _tri(a.astype(np.float64), lower)
    sym = t + _t(t) - np.diagonal(t, axis1=-2, axis2=-1)[..., None] * np.eye(a.shape[-1])
    l = np.linalg.cholesky(sym)
    return [(l if lower else _t(l)).astype(a.dtype)]


@register("_linalg_potri", "linalg_potri")
def linalg_potri(inputs, attrs):
    """inv(L L^T) (lower) or inv(U^T U) from the triangle of A."""
    (a,) = inputs
    lower = attr_bool(attrs, "lower", True)
    t = _tri(a.astype(np.float64), lower)
    b = t @ _t(t) if lower else _t(t) @ t
    return [np.linalg.inv(b).astype(a.dtype)]


def _op_tri(a, attrs):
    t = _tri(a.astype(np.float64), attr_bool(attrs, "lower", True))
    return _t(t) if attr_bool(attrs, "transpose", False) else t


@register("_linalg_trmm", "linalg_trmm")
def linalg_trmm(inputs, attrs):
    a, b = inputs
    t, alpha = _op_tri(a, attrs), attr_float(attrs, "alpha", 1.0)
    out = b @ t if attr_bool(attrs, "rightside", False) else t @ b
    return [(alpha * out).astype(a.dtype)]


@register("_linalg_trsm", "linalg_trsm")
def linalg_trsm(inputs, attrs):
    a, b = inputs
    inv, alpha = np.linalg.inv(_op_tri(a, attrs)), attr_float(attrs, "alpha", 1.0)
    out = b @ inv if attr_bool(attrs, "rightside", False) else inv @ b
    return [(alpha * out).astype(a.dtype)]


@register("_linalg_sumlogdiag", "linalg_sumlogdiag")
def linalg_sumlogdiag(inputs, attrs):
    (a,) = inputs
    s = np.log(np.diagonal(a, axis1=-2, axis2=-1)).sum(-1)
    return [np.asarray(s, a.dtype).reshape(a.shape[:-2] or (1,))]


@register("_linalg_syrk", "linalg_syrk")
def linalg_syrk(inputs, attrs):
    (a,) = inputs
    alpha = attr_float(attrs, "alpha", 1.0)
    out = _t(a) @ a if attr_bool(attrs, "transpose", False) else a @ _t(a)
    return [(alpha * out).astype(a.dtype)]


@register("_linalg_gelqf", "linalg_gelqf")
def linalg_gelqf(inputs, attrs):
    """LAPACK's dgelqf + dorglq written out in numpy: for each row i, the
    Householder reflector of x = W[i, i:] (dlarfg: beta = -sign(x0) |x|,
    none when x has length one) applied to W from the right; L is W's
    leading block, Q = [I 0] H_m ... H_1. (Checked against MXNet 1.9.1.)"""
    (a,) = inputs
    m, n = a.shape[-2:]
    qs, ls = [], []
    for w in a.astype(np.float64).reshape(-1, m, n).copy():
        hs = []
        for i in range(min(m, n - 1)):
            x = w[i, i:]
            beta = -(1.0 if x[0] >= 0 else -1.0) * np.linalg.norm(x)
            v = np.zeros(n)
            v[i:] = x
            v[i] -= beta
            h = np.eye(n) - 2.0 * np.outer(v, v) / (v @ v)
            w = w @ h
            hs.append(h)
        q = np.eye(m, n)
        for h in reversed(hs):
            q = q @ h
        qs.append(q)
        ls.append(np.tril(w[:, :m]))
    return [np.array(qs).reshape(a.shape).astype(a.dtype),
            np.array(ls).reshape(a.shape[:-1] + (m,)).astype(a.dtype)]


@register("_linalg_syevd", "linalg_syevd")
def linalg_syevd(inputs, attrs):
    """numpy.linalg.eigh of the lower triangle's symmetric matrix: the
    eigenvectors as rows, each signed so that its first largest-magnitude
    entry is positive (MXNet's SyevdEigenVecSign)."""
    (a,) = inputs
    t = np.tril(a.astype(np.float64))
    sym = t + _t(np.tril(t, -1))
    lam, vec = np.linalg.eigh(sym)
    u = _t(vec).copy()
    big = np.argmax(np.abs(u), axis=-1)
    sign = np.where(np.take_along_axis(u, big[..., None], axis=-1) < 0, -1.0, 1.0)
    return [(u * sign).astype(a.dtype), lam.astype(a.dtype)]


@register("_linalg_inverse", "linalg_inverse", "_npi_inv")
def linalg_inverse(inputs, attrs):
    (a,) = inputs
    return [np.linalg.inv(a.astype(np.float64)).astype(a.dtype)]


def _batch_or_one(v, a):
    return np.asarray(v, a.dtype).reshape(a.shape[:-2] or (1,))


@register("_linalg_det", "linalg_det", "_npi_det")
def linalg_det(inputs, attrs):
    """The determinant (the hidden LU / pivots are mxc's own and not compared)."""
    (a,) = inputs
    return [_batch_or_one(np.linalg.det(a.astype(np.float64)), a)]


@register("_linalg_slogdet", "linalg_slogdet", "_npi_slogdet")
def linalg_slogdet(inputs, attrs):
    (a,) = inputs
    sign, logabs = np.linalg.slogdet(a.astype(np.float64))
    return [_batch_or_one(sign, a), _batch_or_one(logabs, a)]
