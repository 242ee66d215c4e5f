"""More of MXNet 1.9.1's mx.nd API, composed of mxc's compiled operators
(values and gradients come from the parts) or, for array creation and
in-place assignment, written on the host: linspace, eye, moveaxis,
onehot_encode, fill_element_0index, reset_arrays, slice / crop and
their assignments, argmin, repeat, tile, contrib.isnan / isinf / isfinite, the in-place
forms of expand_dims / squeeze / flatten, NDArray.__getstate__ /
__setstate__ and MXNet's slice-contiguity helper.

Imported at the end of ndarray.py; it adds its names there.
"""
import builtins
import struct

import numpy as np

from . import ndarray as _nd
from .base import MXNetError, dtype_name, np_dtype
from .ndarray import NDArray
from .util import is_np_shape

_f = _nd._functions


def _ctx_of(ctx):
    from .context import current_context
    return ctx if ctx is not None else current_context()


# -- creation ------------------------------------------------------------------

def linspace(start, stop, num, endpoint=True, ctx=None, dtype="float32"):
    """MXNet's linspace: `num` evenly spaced values from start to stop (stop
    included when endpoint), computed in float64 and cast to dtype (integer
    dtypes truncate, as MXNet's kernel)."""
    num = int(num)
    if num < 0:
        raise MXNetError("linspace: num must be non-negative, got %d" % num)
    values = np.linspace(float(start), float(stop), num, endpoint=bool(endpoint),
                         dtype=np.float64)
    return _nd._new(values.astype(np_dtype(dtype_name(dtype))), _ctx_of(ctx))


def eye(N, M=0, k=0, ctx=None, dtype="float32", **kwargs):
    """MXNet's eye: an N x M (M=0: N x N) array with ones on diagonal k."""
    if kwargs.get("out") is not None:
        out = kwargs["out"]
        out[:] = eye(N, M, k, ctx, out.dtype)
        return out
    dt = np_dtype(dtype_name(dtype if dtype is not None else "float32"))
    return _nd._new(np.eye(int(N), int(M) if M else None, int(k), dtype=dt), _ctx_of(ctx))


# -- composed of operators -------------------------------------------------------

def moveaxis(tensor, source, destination):
    """MXNet's moveaxis: a transpose moving axes `source` to `destination`
    (ints or sequences of ints), the other axes keeping their order."""
    ndim = tensor.ndim

    def norm(axes, what):
        axes = [axes] if isinstance(axes, (int, np.integer)) else list(axes)
        out = []
        for a in axes:
            a = int(a)
            if not -ndim <= a < ndim:
                raise ValueError("moveaxis: %s axis %d is out of bounds for a %d-d array"
                                 % (what, a, ndim))
            out.append(a % ndim)
        if len(set(out)) != len(out):
            raise ValueError("moveaxis: repeated axis in %s" % what)
        return out
    src, dst = norm(source, "source"), norm(destination, "destination")
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination must have the same number of "
                         "elements")
    order = [a for a in range(ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _f["transpose"](tensor, axes=tuple(order))


def _row_mask(index, depth, dtype):
    return _f["one_hot"](index, depth=depth, dtype=dtype_name(dtype))


def fill_element_0index(lhs, mhs, rhs, out=None, **kwargs):
    """MXNet's fill_element_0index: lhs with lhs[i, rhs[i]] = mhs[i]."""
    if lhs.ndim != 2:
        raise MXNetError("fill_element_0index: lhs must be 2-d, got shape %s" % (lhs.shape,))
    mask = _row_mask(rhs, lhs.shape[1], lhs.dtype)
    values = _f["broadcast_to"](_f["expand_dims"](mhs, axis=1), shape=lhs.shape)
    return _f["where"](mask, values, lhs, out=out)


def onehot_encode(indices, out):
    """MXNet's onehot_encode: one_hot of `indices` written into `out` (its
    second dimension is the depth)."""
    return _f["one_hot"](indices, depth=out.shape[1], dtype=dtype_name(out.dtype), out=out)


def _slice_ranges(shape, begin, end, step):
    """Per-axis (start, stop, step) of MXNet's slice (None: the whole axis;
    fewer entries than axes: the rest whole)."""
    begin, end = tuple(begin), tuple(end)
    step = tuple(step) if step is not None else ()
    if len(begin) != len(end):
        raise MXNetError("slice: begin %s and end %s differ in length" % (begin, end))
    if len(begin) > len(shape):
        raise MXNetError("slice: %d axes for a %d-d array" % (len(begin), len(shape)))
    out = []
    for i, n in enumerate(shape):
        if i >= len(begin):
            out.append((0, n, 1))
            continue
        s = step[i] if i < len(step) and step[i] is not None else 1
        if s == 0:
            raise MXNetError("slice: step must not be 0")
        out.append(builtins.slice(begin[i], end[i], s).indices(n))
    return out


def slice(data, begin, end, step=(), out=None, name=None, **kwargs):  # noqa: A001
    """MXNet's slice (alias crop): slice_axis on each axis with a range
    (steps other than 1 are not in mxc's operators)."""
    ranges = _slice_ranges(data.shape, begin, end, step)
    x = data
    for axis, (b, e, s) in enumerate(ranges):
        if s != 1:
            raise MXNetError("slice: step %d: only step 1 is supported by mxc" % s)
        if (b, e) != (0, data.shape[axis]):
            if e <= b:
                raise MXNetError("slice: empty range [%d, %d) on axis %d" % (b, e, axis))
            x = _f["slice_axis"](x, axis=axis, begin=b, end=e)
    if x is data:
        x = _f["identity"](data)
    if out is not None:
        out[:] = x
        return out
    return x


crop = slice


def _assign_region(lhs, value, begin, end, step, out):
    ranges = _slice_ranges(lhs.shape, begin, end, step)
    key = tuple(builtins.slice(b, e, s) for b, e, s in ranges)
    result = lhs._data.copy()
    result[key] = value
    if out is not None:
        out._data[...] = result
        return out
    return _nd._new(result, lhs.context)


def _on_device(name, inputs, attrs, out):
    """The compiled operator `name` on GPU arrays (into `out` when given)."""
    result = _nd._invoke(name, inputs, attrs)
    if out is None:
        return result
    result.copyto(out)
    return out


def _slice_assign(lhs, rhs, begin, end, step=(), out=None, **kwargs):
    """MXNet's _slice_assign (_crop_assign): lhs with the region
    begin:end:step replaced by rhs (written into `out` when given).
    Imperative, on the host after the arrays' pending writes; on a GPU the
    compiled operator there."""
    if lhs.context.device_type == "gpu":
        return _on_device("_slice_assign", [lhs, rhs.as_in_context(lhs.context)],
                          {"begin": begin, "end": end, "step": step}, out)
    return _assign_region(lhs, np.asarray(rhs._data, dtype=lhs.dtype), begin, end, step, out)


def _slice_assign_scalar(data, scalar=0.0, begin=(), end=(), step=(), out=None, **kwargs):
    """MXNet's _slice_assign_scalar (_crop_assign_scalar): data with the
    region begin:end:step set to `scalar`."""
    if data.context.device_type == "gpu":
        return _on_device("_slice_assign_scalar", [data],
                          {"scalar": scalar, "begin": begin, "end": end, "step": step}, out)
    return _assign_region(data, scalar, begin, end, step, out)


def reset_arrays(*data, num_arrays=None, **kwargs):
    """MXNet's reset_arrays: sets every array to zeros in place (num_arrays,
    when given, must be their count). Each is an assignment on the engine."""
    if num_arrays is not None and int(num_arrays) != len(data):
        raise MXNetError("reset_arrays: num_arrays=%s, but %d arrays were given"
                         % (num_arrays, len(data)))
    for a in data:
        if not isinstance(a, NDArray):
            raise MXNetError("reset_arrays: expected NDArrays, got %s" % type(a).__name__)
        a[:] = 0


def argmin(data, axis=None, keepdims=False, out=None, **kwargs):
    """MXNet's argmin: argmax of the negated data (the first smallest
    element's index, as a float array like argmax)."""
    kw = {"keepdims": keepdims}
    if axis is not None:
        kw["axis"] = axis
    return _f["argmax"](_f["negative"](data), out=out, **kw)


def _contrib_isnan(data, **kwargs):
    """MXNet's contrib.isnan: 1 where the element is NaN, else 0 (the data's dtype)."""
    return _f["broadcast_not_equal"](data, data)  # NaN != NaN only


def _contrib_isinf(data, **kwargs):
    """MXNet's contrib.isinf: 1 where the element is +-inf, else 0."""
    return _f["_equal_scalar"](_f["abs"](data), scalar=float("inf"))


def _contrib_isfinite(data, **kwargs):
    """MXNet's contrib.isfinite: 1 where the element is neither NaN nor +-inf."""
    finite = _f["_lesser_scalar"](_f["abs"](data), scalar=float("inf"))  # NaN < inf is 0
    return finite


def softmin(data, axis=-1, temperature=None, dtype=None, use_length=False, out=None,
            **kwargs):
    """MXNet's softmin: softmax of the negated data."""
    if use_length:
        raise MXNetError("softmin: use_length is not supported by mxc's composed softmin")
    kw = {"axis": axis}
    if temperature is not None:
        kw["temperature"] = temperature
    if dtype is not None:
        kw["dtype"] = dtype
    return _f["softmax"](_f["negative"](data), out=out, **kw)


def logical_not(data, out=None, **kwargs):
    """MXNet's logical_not: 1 where data is 0, else 0 (data's dtype)."""
    return _f["_equal_scalar"](data, scalar=0.0, out=out)


def cast_storage(data, stype="default", out=None, **kwargs):
    """MXNet's cast_storage: to 'default' (dense, mxc's only storage) a copy;
    'csr' / 'row_sparse' are mxc's sparse-storage error."""
    _nd._check_dense(stype, "cast_storage")
    return _f["_copy"](data, out=out)


def make_loss(data, grad_scale=1.0, valid_thresh=0.0, normalization="null", out=None,
              **kwargs):
    """MXNet's make_loss imperatively: `data` unchanged, as a loss whose
    backward() (no head gradient) starts with grad_scale; composed as
    mx.sym.make_loss is (see its note: head gradients given to backward()
    are applied, normalization other than 'null' is not supported)."""
    if normalization not in ("null", None):
        raise MXNetError("make_loss: normalization=%r is not supported by mxc's composed "
                         "make_loss (only 'null')" % (normalization,))
    g = float(grad_scale)
    if g == 1.0:
        return _f["_copy"](data, out=out)
    extra = _f["_mul_scalar"](data, scalar=g - 1.0)
    zero = _f["elemwise_sub"](extra, _f["BlockGrad"](extra))
    return _f["elemwise_add"](data, zero, out=out)


def stack(*data, **kwargs):
    """MXNet's stack: the arrays on a new axis (expand_dims, then concat)."""
    axis = int(kwargs.pop("axis", 0))
    kwargs.pop("num_args", None)
    out = kwargs.pop("out", None)
    if len(data) == 1 and isinstance(data[0], (list, tuple)):
        data = tuple(data[0])
    if not data:
        raise MXNetError("stack: no arrays")
    parts = [_f["expand_dims"](d, axis=axis) for d in data]
    return _f["Concat"](*parts, dim=axis, out=out)


def _integer_identity(fname):
    """MXNet's rounding functions leave integer arrays as they are (the
    compiled kernels are for floating-point data)."""
    op = _f[fname]

    def f(data, *args, **kwargs):
        if isinstance(data, NDArray) and not np.issubdtype(np.dtype(data.dtype), np.floating):
            out = kwargs.get("out")
            res = _f["identity"](data)
            if out is not None:
                out[:] = res
                return out
            return res
        return op(data, *args, **kwargs)
    f.__name__ = fname
    f.__doc__ = op.__doc__
    return f


# -- NDArray methods -------------------------------------------------------------

def _expand_dims(self, axis, inplace=False):
    """x.expand_dims(axis); inplace=True: a view sharing x's memory."""
    if not inplace:
        return _f["expand_dims"](self, axis=axis)
    ndim = self.ndim
    if not -ndim - 1 <= axis <= ndim:
        raise MXNetError("expand_dims: axis %d out of range for a %d-d array" % (axis, ndim))
    shape = list(self.shape)
    shape.insert(axis % (ndim + 1), 1)
    return self.reshape(shape)


def _squeeze(self, axis=None, inplace=False):
    """x.squeeze(axis); inplace=True: a view sharing x's memory."""
    if not inplace:
        return _f["squeeze"](self, axis=axis) if axis is not None else _f["squeeze"](self)
    shape = self.shape
    if axis is None:
        axes = [i for i, d in enumerate(shape) if d == 1]
    else:
        axes = [int(a) % len(shape) for a in ((axis,) if isinstance(axis, (int, np.integer))
                                              else axis)]
        for a in axes:
            if shape[a] != 1:
                raise MXNetError("squeeze: axis %d has size %d, not 1" % (a, shape[a]))
    new = [d for i, d in enumerate(shape) if i not in axes]
    return self.reshape(new if new else [1])


def _flatten(self, inplace=False):
    """x.flatten(): (d0, d1*d2*...); inplace=True: a view sharing x's memory."""
    if not inplace:
        return _f["Flatten"](self)
    n = self.shape[0] if self.ndim else 1
    rest = int(np.prod(self.shape[1:], dtype=np.int64)) if self.ndim > 1 else 1
    return self.reshape((n, rest))


def _basic_indexing_slice_is_contiguous(slc_key, shape):
    """Whether basic indexing of an array of `shape` with `slc_key` (one
    slice per axis) gives C-contiguous memory: no element, or one; else,
    from the last axis on, whole axes until the first partial one, an axis
    of several elements only with step 1, and at most one element on each
    axis before a partial one."""
    if len(slc_key) != len(shape):
        raise ValueError("one slice per axis expected")
    lens = [len(range(*s.indices(n))) for s, n in zip(slc_key, shape)]
    if int(np.prod(lens, dtype=np.int64)) <= 1:
        return True
    partial = False
    for s, n, k in zip(reversed(slc_key), reversed(shape), reversed(lens)):
        step = s.indices(n)[2]
        if k > 1 and step != 1:
            return False
        if partial and k > 1:
            return False
        if k < n:
            partial = True
    return True


_LIST_MAGIC = 0x112


def _getstate(self):
    """MXNet's pickle state: {'handle': the array's bytes in MXNet's
    NDArray::Save format}."""
    import os
    import tempfile
    fd, path = tempfile.mkstemp(suffix=".params")
    os.close(fd)
    try:
        _nd.save(path, [self])
        with open(path, "rb") as f:
            raw = f.read()
    finally:
        os.unlink(path)
    # list file: magic, reserved, count (uint64 each), the array, names count
    return {"handle": bytearray(raw[24:-8])}


def _setstate(self, state):
    """Restores an array from __getstate__'s (or MXNet's) state; the
    array's context in the bytes is not kept (mxc runs on the CPU)."""
    handle = state.get("handle")
    if handle is None:
        raise MXNetError("__setstate__: the state has no array")
    buf = struct.pack("<QQQ", _LIST_MAGIC, 0, 1) + bytes(handle) + struct.pack("<Q", 0)
    loaded = _nd.load_frombuffer(buf)
    a = loaded[0] if isinstance(loaded, list) else list(loaded.values())[0]
    a = _nd._new(np.ascontiguousarray(a._data), self.context)
    self._npv, self._sig, self._rt = a._npv, a._sig, a._rt
    self._grad, self._grad_req, self._ag = None, "null", None


class CachedOp:
    """MXNet's mx.nd.CachedOp: a Symbol called like an operator on NDArrays
    (its inputs in list_inputs order), out= optional. Outside recording it
    runs as one compiled graph (an executor per input shapes and dtypes);
    under autograd.record() with a tracked input, node by node as recorded
    operators, so that gradients flow through it."""

    def __init__(self, sym, flags=()):
        self._sym = sym
        self._flags = dict(flags) if flags else {}
        self._inputs = sym.list_inputs()
        self._execs = {}

    def _graph_call(self, args):
        key = tuple((a.shape, a._sig[1].str) for a in args)
        exe = self._execs.get(key)
        if exe is None:
            arg_names = self._sym.list_arguments()
            aux_names = self._sym.list_auxiliary_states()
            by = dict(zip(self._inputs, args))
            exe = self._sym.bind(args[0].context if args else None,
                                 args=[by[n] for n in arg_names],
                                 aux_states=[by[n] for n in aux_names], grad_req="null")
            self._execs[key] = exe
        else:
            by = dict(zip(self._inputs, args))
            for i, n in enumerate(exe._arg_names):
                exe.arg_arrays[i] = by[n]
            for i, n in enumerate(exe._aux_names):
                exe.aux_arrays[i] = by[n]
        return [o.copy() for o in exe.forward(is_train=False)]

    def _node_call(self, args):
        from .symbol import _post_order
        values = {}
        by = dict(zip(self._inputs, args))
        for node in _post_order(self._sym._outputs):
            if node.op == "null":
                values[id(node)] = [by[node.name]]
                continue
            ins = [values[id(src)][i] for src, i, _ in node.inputs]
            attrs = {k: v for k, v in node.attrs.items()
                     if not (k.startswith("__") and k.endswith("__"))}
            spec = _nd._ops.OP_NAMES[node.op]
            if spec.variadic and "num_args" in spec.attrs:
                attrs.setdefault("num_args", len(ins))
            out = _nd._invoke(spec.name, ins, attrs, name=node.name)
            values[id(node)] = out if isinstance(out, list) else [out]
        return [values[id(n)][i] for n, i in self._sym._outputs]

    def __call__(self, *args, **kwargs):
        from . import autograd
        out = kwargs.pop("out", None)
        if kwargs:
            raise TypeError("CachedOp: unexpected arguments %s" % ", ".join(kwargs))
        if len(args) != len(self._inputs):
            raise MXNetError("CachedOp: %d inputs for %d (%s)"
                             % (len(args), len(self._inputs), ", ".join(self._inputs)))
        for a in args:
            if not isinstance(a, NDArray):
                raise MXNetError("CachedOp: inputs are NDArrays, got %s" % type(a).__name__)
        if autograd.is_recording() and any(autograd._tracked(a) for a in args):
            results = self._node_call(list(args))
        else:
            results = self._graph_call(list(args))
        if out is not None:
            outs = [out] if isinstance(out, NDArray) else list(out)
            for o, r in zip(outs, results):
                o[:] = r
            return out
        return results[0] if len(results) == 1 else results


def _empty_like(data, shape, out):
    res = _nd._zeros_any(shape, ctx=data.context, dtype=data.dtype)
    if out is not None:
        out[:] = res
        return out
    return res


def repeat(data, repeats, axis=None, out=None, **kwargs):
    """MXNet's repeat: the table operator, except for 0 repeats, whose empty
    result MXNet returns and a compiled graph cannot hold."""
    if int(repeats) == 0 and (axis is None or -data.ndim <= int(axis) < data.ndim):
        shape = (0,) if axis is None else \
            tuple(0 if i == int(axis) % data.ndim else d for i, d in enumerate(data.shape))
        return _empty_like(data, shape, out)
    kw = {} if axis is None else {"axis": axis}
    return _f["repeat"](data, repeats=repeats, out=out, **kw)


def tile(data, reps, out=None, **kwargs):
    """MXNet's tile: the table operator, except for a 0 in reps or the
    shape, whose empty result MXNet returns and a compiled graph cannot
    hold."""
    reps = (int(reps),) if isinstance(reps, (int, np.integer)) else tuple(int(r) for r in reps)
    if any(r < 0 for r in reps) or (0 in reps and not is_np_shape()):
        # TileOpShape: a negative rep is invalid; outside mx.np_shape() a 0
        # is an unknown extent
        raise MXNetError("tile: reps %s must be positive%s" % (
            reps, "" if is_np_shape() else " (a 0 needs mx.np_shape())"))
    shape = tuple(data.shape)
    n = builtins.max(len(shape), len(reps))
    full_shape = (1,) * (n - len(shape)) + shape
    full_reps = (1,) * (n - len(reps)) + reps
    if reps and (0 in full_reps or 0 in full_shape):
        return _empty_like(data, tuple(r * d for r, d in zip(full_reps, full_shape)), out)
    return _f["tile"](data, reps=reps, out=out)


def split_v2_ranges(indices_or_sections, n, axis):
    """MXNet's split_v2 (python/mxnet/ndarray/ndarray.py): the [begin, end)
    ranges of the parts along an axis of extent `n`: equal sections (which
    must divide n) or the parts between split points, as numpy.split."""
    if isinstance(indices_or_sections, (int, np.integer)):
        sections = int(indices_or_sections)
        if sections <= 0 or n % sections:
            raise MXNetError("split_v2: axis %d of extent %d cannot be split into %d equal "
                             "sections" % (axis, n, sections))
        step = n // sections
        return [(i * step, (i + 1) * step) for i in range(sections)]
    points = [0] + [min(max(int(i), 0), n) for i in indices_or_sections] + [n]
    return list(zip(points[:-1], points[1:]))


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """MXNet's split_v2: the parts of `ary` along `axis` (a list; slice_axis
    for each part, so each part's gradient is its own)."""
    rank = len(ary.shape)
    ax = axis + rank if axis < 0 else axis
    parts = []
    for b, e in split_v2_ranges(indices_or_sections, ary.shape[ax], axis):
        part = _f["slice_axis"](ary, axis=ax, begin=b, end=e)
        if squeeze_axis:
            if e - b != 1:
                raise MXNetError("split_v2: squeeze_axis needs parts of extent 1, got %d" % (e - b))
            part = _f["Reshape"](part, shape=ary.shape[:ax] + ary.shape[ax + 1:])
        parts.append(part)
    return parts


def gather_nd(data, indices, out=None, name=None, **kwargs):
    """The gather_nd operator, after MXNet's kernel's check: an index out
    of [-X, X) on its axis raises IndexError (this reads the indices, so
    it waits for them); a negative one counts from the end."""
    idx = indices.asnumpy() if isinstance(indices, NDArray) else np.asarray(indices)
    if idx.ndim >= 1 and idx.shape[0] <= len(data.shape):
        for axis in range(idx.shape[0]):
            n = data.shape[axis]
            bad = (idx[axis] >= n) | (idx[axis] < -n)
            if np.any(bad):
                raise IndexError("index %d is out of bounds for axis %d with size %d"
                                 % (int(idx[axis][bad].flat[0]), axis, n))
    if not isinstance(indices, NDArray):
        indices = _nd.array(idx)
    return _f["gather_nd"](data, indices, out=out, **kwargs)


def histogram(a, bins=10, range=None):  # noqa: A002
    """MXNet's nd.histogram: the counts and the edges; `bins` an integer
    (equal-width bins over `range`; without range numpy's result, as MXNet)
    or the edges as an NDArray."""
    import warnings
    if isinstance(bins, NDArray):
        return _nd._internal._histogram(data=a, bins=bins)
    if isinstance(bins, (int, np.integer)):
        if range is None:
            warnings.warn("range is not specified, using numpy's result "
                          "to ensure consistency with numpy")
            res, bin_bounds = np.histogram(a.asnumpy(), bins=bins)
            return _nd.array(res), _nd.array(bin_bounds)
        return _nd._internal._histogram(data=a, bin_cnt=int(bins), range=tuple(range))
    raise ValueError("bins argument should be either an integer or an NDArray")


def _custom(*data, **kwargs):
    """MXNet's mx.nd.Custom: a registered Python custom operator, run
    imperatively (mx.operator)."""
    from .operator import _custom_nd
    return _custom_nd(*data, **kwargs)


def install():
    g = vars(_nd)
    for name, fn in (("linspace", linspace), ("eye", eye), ("moveaxis", moveaxis),
                     ("onehot_encode", onehot_encode),
                     ("fill_element_0index", fill_element_0index),
                     ("slice", slice), ("crop", crop), ("argmin", argmin),
                     ("reset_arrays", reset_arrays), ("histogram", histogram),
                     ("CachedOp", CachedOp), ("Custom", _custom)):
        if name not in g:
            g[name] = fn
    for name, fn in (("_slice_assign", _slice_assign), ("_crop_assign", _slice_assign),
                     ("_slice_assign_scalar", _slice_assign_scalar),
                     ("_crop_assign_scalar", _slice_assign_scalar)):
        if not hasattr(_nd._internal, name):
            setattr(_nd._internal, name, fn)
            g.setdefault(name, fn)
    c = _nd._ContribNamespace
    for name, fn in (("isnan", _contrib_isnan), ("isinf", _contrib_isinf),
                     ("isfinite", _contrib_isfinite)):
        if name not in c.__dict__:
            setattr(c, name, staticmethod(fn))
    NDArray.expand_dims = _expand_dims
    NDArray.squeeze = _squeeze
    NDArray.flatten = _flatten
    NDArray._basic_indexing_slice_is_contiguous = staticmethod(
        _basic_indexing_slice_is_contiguous)
    NDArray.__getstate__ = _getstate
    NDArray.__setstate__ = _setstate
    for m, fn in (("argmin", argmin), ("slice", slice)):
        if not hasattr(NDArray, m):
            setattr(NDArray, m, fn)
    # mx.nd.repeat / tile: the operators, with MXNet's empty results for 0
    # repeats, which the compiled operators cannot give.
    for name, fn in (("repeat", repeat), ("tile", tile)):
        g[name] = fn
        setattr(NDArray, name, fn)
    g["gather_nd"] = gather_nd
    g.setdefault("stack", stack)
    g.setdefault("split_v2", split_v2)
    if not hasattr(NDArray, "split_v2"):
        NDArray.split_v2 = split_v2
    g.setdefault("make_loss", make_loss)
    g.setdefault("cast_storage", cast_storage)
    g.setdefault("softmin", softmin)
    g.setdefault("logical_not", logical_not)
    for m, fn in (("softmin", softmin),):
        if not hasattr(NDArray, m):
            setattr(NDArray, m, fn)
    g.setdefault("MakeLoss", make_loss)
    for fname in ("floor", "ceil", "round", "rint", "fix", "trunc"):
        if fname in _f:
            fn = _integer_identity(fname)
            g[fname] = fn
            setattr(NDArray, fname, lambda self, *a, _fn=fn, **k: _fn(self, *a, **k))
