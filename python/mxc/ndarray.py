"""mx.nd: NDArray and the imperative operators.

An NDArray lives in the runtime: runtime storage with an engine variable
(mxc._mxc.Array), seen from Python through a numpy view of that storage.
Every operator of the mx dialect is a function here; a call builds a one-node
graph, which the compiler JIT-compiles once per (operator, attributes, input
shapes and dtypes) and caches (in this module, and the JIT's memory and disk
caches below it). On runtime arrays a call *pushes* the graph's plan onto the
dependency engine -- reading its inputs' variables, writing its outputs' --
and returns at once (MXNet's lazy evaluation); in-place operators (+=, out=,
copyto, x[:] = y) are engine writes. asnumpy(), asscalar(), printing,
wait_to_read() and mx.nd.waitall() block; a failed operation raises there,
naming the operator.

Anything that reaches the numpy data (NDArray._data: numpy code in the
optimizers, metrics, io, Module, autograd's backward) first waits for the
engine's work on the array, so numpy code and engine operations stay in
program order. An NDArray made over numpy memory that is not runtime storage
(NDArray(numpy_array), views from basic indexing) runs its operators
synchronously, after every pending engine operation (a barrier).
"""
import atexit
import functools
import ctypes as _ctypes
import math as _math
import weakref as _weakref
import builtins
import operator as _operator
import sys
from builtins import slice as py_slice  # mx.nd.slice is the operator

import numpy as np

from . import _mxc
from .util import is_np_shape
from . import _ops
from .base import MXNetError, MXNetValueError, compile_graph, dtype_name, np_dtype
from .context import Context, check_context, current_context
from .profiler import _custom as _custom_op, _custom_op_call


def _recorded_in_custom_ops(op_name):
    """A creation function that the profiler records as '<custom op>::<op_name>'
    when a custom operator calls it (mx.profiler's "Custom Operator" domain)."""
    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            return _custom_op_call(op_name, fn, *args, **kwargs)
        return call
    return wrap


__all__ = ["NDArray", "array", "zeros", "ones", "empty", "full", "arange",
           "save", "load", "waitall", "concatenate", "sgd_update", "sgd_mom_update",
           "adam_update", "from_numpy", "from_dlpack", "to_dlpack_for_read",
           "to_dlpack_for_write"]


def _as_np(source, dtype=None):
    if isinstance(source, NDArray):
        source = source._host_data()
    return np.asarray(source, dtype=dtype)


def _fast_binary(array_op, scalar_op):
    """NDArray's operator method `self <op> o`: a cached call on two NDArrays
    goes straight to the C++ fast path (_fast_dispatch), anything else to
    NDArray._binary."""

    def method(self, o):
        r = _fast_dispatch(array_op, (self, o), None)
        return self._binary(o, array_op, scalar_op) if r is None else r

    return method


#: the arrays whose `handle` was taken, by handle value (id)
_HANDLES = _weakref.WeakValueDictionary()


class NDArray:
    """An n-dimensional array on a device, MXNet 1.x's mx.nd.NDArray. On
    mx.gpu(i) the storage is the GPU's: no numpy view (asnumpy() and
    printing copy to the host), operators compiled for the GPU."""

    __slots__ = ["_npv", "_sig", "_rt", "_ctx", "_grad", "_grad_req", "_ag", "__weakref__"]
    # numpy defers binary operators with an NDArray on the right to us.
    __array_priority__ = 1000.0

    def __init__(self, data, ctx=None, _rt=None, _sig=None, writable=True):
        if isinstance(data, _ctypes.c_void_p):
            # MXNet's NDArray(handle): the array a handle names (`handle`,
            # ctypes.cast(array, NDArrayHandle) in monitor callbacks)
            other = _HANDLES.get(data.value) if data.value is not None else None
            if other is None:
                raise MXNetError("NDArray(handle): %s names no live array" % data)
            for slot in NDArray.__slots__[:-1]:
                setattr(self, slot, getattr(other, slot))
            return
        # _np: the numpy data (a view of _rt's storage when _rt is set; made
        # on first use when `data` is None, from _rt and _sig);
        # _sig: (shape tuple, numpy dtype), known without the view;
        # _rt: the runtime array (storage + engine variable) or None.
        self._npv = data
        self._sig = (data.shape, data.dtype) if data is not None else _sig
        self._rt = _rt
        self._ctx = ctx if ctx is not None else Context("cpu", 0)
        self._grad = None
        self._grad_req = "null"
        self._ag = None  # (autograd entry, output index) when recorded

    # -- the data --------------------------------------------------------------
    @property
    def _np(self):
        """The numpy data without waiting (a view of _rt's storage)."""
        v = self._npv
        if v is None:
            v = self._rt.view()
            dt = self._sig[1]
            if v.dtype.type is not dt.type:  # int64 comes back as longlong
                v = v.view(dt)
            self._npv = v
        return v

    @_np.setter
    def _np(self, value):
        self._npv = value
        self._sig = (value.shape, value.dtype)

    @property
    def _data(self):
        """The numpy data, after the engine's work on the array (every pushed
        read and write: the caller may write)."""
        rt = self._rt
        if rt is not None:
            rt.wait_to_write()
        elif _mxc.engine_num_pending():
            # numpy memory that may belong to a runtime array (a view).
            _mxc.engine_wait_all()
        return self._np

    @_data.setter
    def _data(self, value):
        self._np = value
        self._rt = None

    # -- properties ---------------------------------------------------------
    @property
    def shape(self):
        return self._sig[0]

    @property
    def dtype(self):
        """The element type as a numpy type (np.float32), as MXNet gives it."""
        return self._sig[1].type

    @property
    def size(self):
        return int(_math.prod(self._sig[0]))

    def _on_gpu(self):
        return self._ctx.device_type == "gpu"

    def _host_data(self):
        """The numpy data, through a copy to the host for a GPU array (an
        engine copy, never recorded by autograd)."""
        if self._ctx.device_type == "gpu":
            host = _new_rt(self._sig[0], self._sig[1], Context("cpu", 0))
            self._rt.copy_to(host._rt)
            return host._data
        return self._data

    @property
    def ndim(self):
        return len(self._sig[0])

    @property
    def context(self):
        return self._ctx

    ctx = context

    @property
    def stype(self):
        return "default"

    @property
    def T(self):
        if self.ndim != 2:
            raise MXNetError("T is only defined for 2-D arrays (use transpose)")
        return transpose(self)

    @property
    def handle(self):
        """An NDArrayHandle (ctypes.c_void_p) naming this array while it
        lives; NDArray(handle) is the same array (MXNet's idiom in monitor
        callbacks: NDArray(ctypes.cast(arr, NDArrayHandle)))."""
        _HANDLES[id(self)] = self
        return _ctypes.c_void_p(id(self))

    @property
    def _as_parameter_(self):
        return self.handle

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        shape = "x".join(str(d) for d in self.shape)
        return "\n%s\n<NDArray %s @%s>" % (str(self._host_data()), shape, self._ctx)

    # -- conversions ----------------------------------------------------------
    def asnumpy(self):
        """A numpy copy of the data (as MXNet's asnumpy; from a GPU array, a
        copy to the host, waited for)."""
        if self._ctx.device_type == "gpu":
            return self._host_data()
        return np.array(self._data, copy=True)

    def __array__(self, dtype=None, copy=None):
        if self._ctx.device_type == "gpu":
            host = self._host_data()
            return host if dtype is None else host.astype(dtype)
        # np.asarray(x) shares memory with x (no copy) where dtypes agree.
        if dtype is not None and np.dtype(dtype) != self._data.dtype:
            return self._data.astype(dtype)
        if copy:
            return self._data.copy()
        return self._data

    # -- DLPack (no copies) ------------------------------------------------------
    def __dlpack__(self, stream=None, **kwargs):
        """The array as a DLPack capsule sharing its memory (after the engine's
        work on it: the consumer may write); a GPU array's is CUDA memory
        (kDLCUDA), its device's work finished."""
        if self._on_gpu():
            self.wait_to_write()
            return self._rt.dlpack()
        return self._data.__dlpack__(stream=stream, **kwargs)

    def __dlpack_device__(self):
        if self._on_gpu():
            return (2, self._ctx.device_id)  # kDLCUDA
        return (1, 0)  # kDLCPU

    def _dlpack_capsule(self):
        return self._rt.dlpack() if self._on_gpu() else self._np.__dlpack__()

    def to_dlpack_for_read(self):
        """MXNet's to_dlpack_for_read: a DLPack capsule sharing the memory, after
        the pending writes (on a GPU, CUDA memory, the device's work done)."""
        self.wait_to_read()
        return self._dlpack_capsule()

    def to_dlpack_for_write(self):
        """MXNet's to_dlpack_for_write: a DLPack capsule sharing the memory,
        after the pending reads and writes."""
        self.wait_to_write()
        return self._dlpack_capsule()

    def asscalar(self):
        if self.size != 1:
            raise MXNetError("asscalar: the array has shape %s, not a single element"
                             % (self.shape,))
        return self._host_data().reshape(-1)[0]

    def __float__(self):
        return float(self.asscalar())

    def __int__(self):
        return int(self.asscalar())

    def __bool__(self):
        if self.size == 0:
            return False
        if self.size != 1:
            raise ValueError("The truth value of an NDArray with multiple elements is ambiguous.")
        return bool(self.asscalar())

    def wait_to_read(self):
        """Blocks until every pushed write of the array has finished; raises
        MXNetError if one failed."""
        if self._rt is not None:
            self._rt.wait_to_read()
        elif _mxc.engine_num_pending():
            _mxc.engine_wait_all()

    def wait_to_write(self):
        """Blocks until every pushed read and write of the array finished."""
        if self._rt is not None:
            self._rt.wait_to_write()
        elif _mxc.engine_num_pending():
            _mxc.engine_wait_all()

    def copy(self):
        if _recorded(self):  # under record(): _copy on the tape (MXNet records _copyto)
            return _invoke("_copy", [self], {})
        if self._rt is not None:
            out = _new_rt(self._sig[0], self._sig[1], self._ctx)
            self._rt.copy_to(out._rt)
            return out
        return NDArray(self._data.copy(), self._ctx)

    def copyto(self, other):
        """Copies into `other` (an NDArray of the same shape, returned) or to a
        new array on Context `other`."""
        if isinstance(other, NDArray):
            if other is self:
                return other
            if other.shape != self.shape:
                raise MXNetError("copyto: shape %s does not match the destination's %s"
                                 % (self.shape, other.shape))
            if _engine_copy(self, other):
                return other
            if self._on_gpu() or other._on_gpu():
                src = self if self._sig[1] == other._sig[1] else self.astype(other.dtype)
                if other._rt is None:  # numpy memory on the host
                    np.copyto(other._data, src._host_data())
                    return other
                if src._rt is None:  # numpy memory: through a runtime array
                    src = _new(src._data, Context("cpu", 0))
                    if src._rt is None:
                        raise MXNetError("copyto: %s arrays cannot be on %s"
                                         % (src._sig[1], other._ctx))
                src._rt.copy_to(other._rt)
                return other
            np.copyto(other._data, self._data, casting="unsafe")
            return other
        if isinstance(other, Context):
            ctx = check_context(other, gpu=True)
            if _recorded(self):
                # under record(): a node (MXNet records _copyto), whose
                # gradient another device's is copied back from
                if ctx == self._ctx:
                    return _invoke("_copy", [self], {})
                from .autograd import _CrossDeviceCopy
                return _CrossDeviceCopy(ctx)(self)
            if self._rt is not None:
                out = _new_rt(self._sig[0], self._sig[1], ctx)
                self._rt.copy_to(out._rt)  # an engine operation (cpu <-> gpu, gpu <-> gpu too)
                return out
            return _new(self._data.copy(), ctx)
        raise MXNetError("copyto: expected an NDArray or a Context, got %r" % (type(other),))

    def as_in_context(self, context):
        if context == self._ctx:
            return self
        return self.copyto(context)

    def astype(self, dtype, copy=True):
        dt = np_dtype(dtype_name(dtype))
        if not copy and dt == self._sig[1]:
            return self
        if self._on_gpu() or _recorded(self):  # (under record(): Cast, on the tape, as MXNet)
            return _invoke("Cast", [self], {"dtype": dtype_name(dt)})
        return NDArray(self._data.astype(dt), self._ctx)

    def reshape(self, *shape, **kwargs):
        """A view with a new shape; MXNet's special values 0, -1, -2, -3, -4
        and reverse=True are understood."""
        reverse = kwargs.pop("reverse", False)
        if "shape" in kwargs:
            shape = kwargs.pop("shape")
        if kwargs:
            raise TypeError("reshape: unexpected arguments %s" % list(kwargs))
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        new = _infer_reshape(self.shape, tuple(shape), reverse)
        if _recorded(self):  # under autograd.record(): the Reshape operator, on the tape
            return _invoke("Reshape", [self], {"shape": tuple(new)})
        if self._rt is not None:  # a view sharing the storage and variable
            rt = self._rt.reshape(list(new))
            if self._on_gpu():
                return _wrap_rt(rt, self._sig[1], self._ctx)
            return NDArray(self._np.reshape(new), self._ctx, _rt=rt)
        data = self._data
        if not data.flags.c_contiguous:
            data = np.ascontiguousarray(data)
        return NDArray(data.reshape(new), self._ctx)

    def reshape_like(self, *args, **kwargs):
        """MXNet's fluent reshape_like: the operator with this array as lhs
        (rhs positional or named, lhs_begin / rhs_end ... as attributes);
        without attributes, a view of this array in rhs's shape."""
        other = kwargs.pop("rhs", None)
        if other is None and args:
            other, args = args[0], args[1:]
        if other is None:
            raise TypeError("reshape_like: the rhs array is missing")
        if not args and not kwargs:
            return self.reshape(other.shape)
        return _functions["reshape_like"](self, other, *args, **kwargs)

    def flatten(self):
        return Flatten(self)

    def zeros_like(self):
        return zeros_like(self)

    def ones_like(self):
        return ones_like(self)

    def tostype(self, stype):
        _check_dense(stype, "tostype")
        return self

    def attach_grad(self, grad_req="write", stype=None):
        """Gives the array a gradient buffer (zeros) that autograd.backward()
        fills (grad_req 'write') or adds to ('add')."""
        if grad_req not in ("write", "add", "null"):
            raise MXNetError("attach_grad: grad_req must be write, add or null")
        _check_dense(stype, "attach_grad")
        self._grad = _zeros_any(self.shape, self._ctx, self._sig[1])
        self._grad_req = grad_req
        self._ag = None

    @property
    def grad(self):
        return self._grad

    def detach(self):
        if self._on_gpu():
            return NDArray(None, self._ctx, _rt=self._rt, _sig=self._sig)
        return NDArray(self._np, self._ctx, _rt=self._rt)

    def __reduce__(self):
        # Pickles as its values (DataLoader workers, multiprocessing).
        return (array, (self.asnumpy(), self._ctx, self._sig[1]))

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        from . import autograd
        autograd.backward([self], None if out_grad is None else [out_grad],
                          retain_graph=retain_graph, train_mode=train_mode)

    # -- indexing --------------------------------------------------------------
    def __getitem__(self, key):
        """Basic indexing and slicing give views that share memory (as
        MXNet's for contiguous slices); advanced indexing gives a copy."""
        # Under autograd.record(): operators on the tape. On a GPU: a
        # contiguous region is a view (as MXNet's), any other the same
        # operators (copies).
        if self._on_gpu() and not _recorded(self):
            axes = _basic_index(self.shape, key)
            view = _gpu_view(self, axes) if axes is not None else None
            if view is not None:
                return view
        if _recorded(self) or self._on_gpu():
            got = _recorded_index(self, key)
            if got is None:
                got = _recorded_gather(self, key)
            if got is not None:
                return got
            if self._on_gpu():
                raise MXNetError("indexing a %s array with %r (an empty or 0-d result) is not "
                                 "supported yet; copy it to the cpu" % (self._ctx, key))
        key = _index_key(key)
        out = self._data[key]
        if not isinstance(out, np.ndarray):
            out = np.asarray(out).reshape(1)  # MXNet has no 0-d arrays
        return NDArray(out, self._ctx)

    def __setitem__(self, key, value):
        whole = key is None or key is Ellipsis or (isinstance(key, py_slice) and
                                                   key == py_slice(None))
        if not whole and (_recorded(self) or (isinstance(value, NDArray) and _recorded(value))):
            # MXNet writes a region with _slice_assign(x, v, out=x): a
            # recorded operator writing one of its inputs
            raise MXNetError(_INPLACE_RECORDING)
        if isinstance(key, py_slice) and key == py_slice(None) and \
                isinstance(value, NDArray) and value.shape == self.shape and \
                _engine_copy(value, self):
            return  # x[:] = y: an engine write
        if self._on_gpu():
            if not whole:
                _gpu_setitem(self, key, value)
                return
            if isinstance(value, NDArray) and value.shape == self.shape:
                value.copyto(self)  # between devices, a cast where the dtypes differ
                return
            # (broadcast as numpy does: x[:] = 0, a row into every row)
            _region_value(_unshared(value, self), self.shape, self._sig[1],
                          self._ctx).copyto(self)
            return
        _numpy_write(self._data, key, value)

    # -- operators -------------------------------------------------------------
    def _binary(self, other, array_op, scalar_op):
        if isinstance(other, NDArray):
            return _invoke(array_op, [self, other], {})
        if isinstance(other, np.ndarray):
            return _invoke(array_op, [self, array(other, self._ctx, dtype=self._sig[1])], {})
        if isinstance(other, (int, float, bool, np.number, np.bool_)):
            return _invoke(scalar_op, [self], {"scalar": other})
        return NotImplemented

    def _rbinary(self, other, array_op, scalar_op):
        if isinstance(other, np.ndarray):
            return _invoke(array_op, [array(other, self._ctx, dtype=self._sig[1]), self], {})
        if isinstance(other, (int, float, bool, np.number, np.bool_)):
            return _invoke(scalar_op, [self], {"scalar": other})
        return NotImplemented

    __add__ = _fast_binary("broadcast_add", "_plus_scalar")

    def __radd__(self, o):
        return self._rbinary(o, "broadcast_add", "_plus_scalar")

    __sub__ = _fast_binary("broadcast_sub", "_minus_scalar")

    def __rsub__(self, o):
        return self._rbinary(o, "broadcast_sub", "_rminus_scalar")

    __mul__ = _fast_binary("broadcast_mul", "_mul_scalar")

    def __rmul__(self, o):
        return self._rbinary(o, "broadcast_mul", "_mul_scalar")

    __truediv__ = _fast_binary("broadcast_div", "_div_scalar")

    def __rtruediv__(self, o):
        return self._rbinary(o, "broadcast_div", "_rdiv_scalar")

    __div__ = __truediv__
    __rdiv__ = __rtruediv__

    __pow__ = _fast_binary("broadcast_power", "_power_scalar")

    def __rpow__(self, o):
        return self._rbinary(o, "broadcast_power", "_rpower_scalar")

    __mod__ = _fast_binary("broadcast_mod", "_mod_scalar")

    def __rmod__(self, o):
        return self._rbinary(o, "broadcast_mod", "_rmod_scalar")

    def __neg__(self):
        return _invoke("_mul_scalar", [self], {"scalar": -1.0})

    def __pos__(self):
        return self

    def __abs__(self):
        return _invoke("abs", [self], {})

    def __eq__(self, o):
        return self._binary(o, "broadcast_equal", "_equal_scalar")

    def __ne__(self, o):
        return self._binary(o, "broadcast_not_equal", "_not_equal_scalar")

    def __gt__(self, o):
        return self._binary(o, "broadcast_greater", "_greater_scalar")

    def __ge__(self, o):
        return self._binary(o, "broadcast_greater_equal", "_greater_equal_scalar")

    def __lt__(self, o):
        return self._binary(o, "broadcast_lesser", "_lesser_scalar")

    def __le__(self, o):
        return self._binary(o, "broadcast_lesser_equal", "_lesser_equal_scalar")

    __hash__ = object.__hash__

    def _inplace(self, result):
        if result is NotImplemented:
            return result
        if _recorded(result):  # as MXNet's Imperative::RecordOp
            raise MXNetError(_INPLACE_RECORDING)
        if result.shape != self.shape:
            raise MXNetError("in-place operator: the result's shape %s differs from %s"
                             % (result.shape, self.shape))
        if not _engine_copy(result, self):
            np.copyto(self._data, result._data, casting="unsafe")
        return self

    def __iadd__(self, o):
        return self._inplace(self.__add__(o))

    def __isub__(self, o):
        return self._inplace(self.__sub__(o))

    def __imul__(self, o):
        return self._inplace(self.__mul__(o))

    def __itruediv__(self, o):
        return self._inplace(self.__truediv__(o))

    def __imod__(self, o):
        return self._inplace(self.__mod__(o))




_INPLACE_RECORDING = ("Inplace operations (+=, -=, x[:]=, etc) are not supported when "
                      "recording with autograd.")


def _recorded(a):
    """Whether an operation on `a` must be recorded for autograd (views
    would cut the tape: gradients would silently stop at them)."""
    from . import autograd
    return autograd.is_recording() and autograd._tracked(a)


def _recorded_index(a, key):
    """a[key] as recorded operators for basic indexing (_basic_index's keys:
    MXNet's slice with begin / end / step, and a Reshape dropping the int
    axes); None for other keys and empty regions."""
    axes = _basic_index(a.shape, key)
    if axes is None or builtins.any(l == 0 for *_, l, _ in axes):
        return None
    part = _invoke("slice", [a], _slice_attrs(axes))
    if builtins.any(is_int for *_, is_int in axes):
        shape = tuple(l for *_, l, is_int in axes if not is_int)
        part = _invoke("Reshape", [part], {"shape": shape or (1,)})
    return part


def _recorded_gather(a, key):
    """a[key] for any other key (advanced indexing, None, Ellipsis) as
    recorded operators: the flat positions the key selects (numpy's indexing
    of an arange of a's size) taken from a's flat view, reshaped to the
    result's shape, so the gradient scatters back to those positions. None
    for an empty or scalar result (left to the view path)."""
    pos = np.arange(a.size, dtype=np.int64).reshape(a.shape)[_index_key(key)]
    if not isinstance(pos, np.ndarray) or pos.ndim == 0 or pos.size == 0:
        return None
    flat = _invoke("Reshape", [a], {"shape": (-1,)})
    idx = array(pos.reshape(-1), a._ctx, dtype=np.int64 if a.size >= 2 ** 31 else np.int32)
    out = _invoke("take", [flat, idx], {"axis": 0, "mode": "clip"})
    return _invoke("Reshape", [out], {"shape": pos.shape})


def _index_key(key):
    if isinstance(key, NDArray):
        return key._host_data().astype(np.int64)
    if isinstance(key, tuple):
        return tuple(k._host_data().astype(np.int64) if isinstance(k, NDArray) else k
                     for k in key)
    return key


def _basic_index(shape, key):
    """A basic index key (ints, slices, at most one Ellipsis) of an array of
    `shape` as one (begin, end, step, length, is_int) per axis, the axes the
    key leaves out whole; None for any other key (arrays, lists, None,
    booleans). An int out of range raises IndexError, as numpy's."""
    keys = key if isinstance(key, tuple) else (key,)
    def basic(k):
        return isinstance(k, py_slice) or k is Ellipsis or (
            isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)))
    if not builtins.all(basic(k) for k in keys) or \
            builtins.sum(k is Ellipsis for k in keys) > 1:
        return None
    given = len(keys) - builtins.sum(k is Ellipsis for k in keys)
    if given > len(shape):
        return None  # (numpy's "too many indices" from the host path)
    full = []
    for k in keys:
        full.extend([py_slice(None)] * (len(shape) - given) if k is Ellipsis else [k])
    full.extend([py_slice(None)] * (len(shape) - len(full)))
    axes = []
    for n, k in zip(shape, full):
        if isinstance(k, py_slice):
            b, e, st = k.indices(n)
            axes.append((b, e, st, len(range(b, e, st)), False))
        else:
            i = int(k) + (n if k < 0 else 0)
            if not 0 <= i < n:
                raise IndexError("index %d is out of bounds for axis %d with size %d"
                                 % (k, len(axes), n))
            axes.append((i, i + 1, 1, 1, True))
    return axes


def _slice_attrs(axes):
    """MXNet's slice attributes (begin, end, step) of _basic_index's axes."""
    return {"begin": tuple(b for b, *_ in axes),
            "end": tuple(None if e < 0 else e for _, e, *_ in axes),  # a negative step's "before 0"
            "step": tuple(st for _, _, st, *_ in axes)}


def _contiguous_range(shape, axes):
    """The flat [begin, end) that a basic index (_basic_index's axes) selects
    when its region is one contiguous run of elements (leading axes of one
    element, then one axis of step 1, then whole axes); else None."""
    j = 0
    while j < len(axes) and axes[j][3] == 1:
        j += 1
    if j < len(axes) and axes[j][2] != 1:
        return None
    if builtins.any(b != 0 or l != n for (b, _, _, l, _), n in zip(axes[j + 1:], shape[j + 1:])):
        return None
    begin, stride = 0, 1
    for (b, _, _, _, _), n in reversed(list(zip(axes, shape))):
        begin += b * stride
        stride *= n
    return begin, begin + int(_math.prod(a[3] for a in axes))


def _gpu_view(a, axes):
    """A view of GPU array `a` (same storage and engine variable) for a basic
    index whose region is contiguous, as MXNet's basic indexing gives views
    of contiguous slices; None when it is not contiguous or empty. (A view at
    an offset that is not 16-byte aligned reaches GPU kernels through an
    aligned copy: Executor::pushOn.)"""
    got = _contiguous_range(a.shape, axes)
    if got is None or got[0] == got[1]:
        return None
    shape = tuple(l for _, _, _, l, is_int in axes if not is_int) or (1,)
    rt = a._rt.reshape([a.size]).slice(got[0], got[1]).reshape(list(shape))
    return _wrap_rt(rt, a._sig[1], a._ctx)


def _numpy_write(data, key, value):
    """data[key] = value on numpy `data` (NDArray keys and values read on the
    host); MXNet broadcasts a value of the region's size into it (x[0] = a
    for a of shape (1,))."""
    key = _index_key(key)
    value = _as_np(value)
    try:
        data[key] = value
    except ValueError:
        region = data[key]
        if np.size(value) != np.size(region):
            raise
        data[key] = np.reshape(value, np.shape(region))


def _store(dst, data):
    """Writes numpy `data` (dst's shape) into NDArray `dst`, cast to its
    dtype: a GPU array's by a copy to the device."""
    if dst._on_gpu():
        dst[:] = data
    else:
        np.copyto(dst._data, data, casting="unsafe")


def _unshared(value, a):
    """`value`, or a copy of it where it is a view sharing GPU array `a`'s
    storage (a[1:] = a[:-1]: a device copy between overlapping ranges is
    undefined)."""
    if isinstance(value, NDArray) and value._rt is not None and \
            value._rt.shares_storage_with(a._rt):
        return value.copy()
    return value


def _region_value(value, shape, dtype, ctx):
    """`value` (an NDArray, numpy data or a scalar) as an array of exactly
    `shape` and `dtype` on `ctx`: broadcast as numpy does, or reshaped where
    it has the region's size (MXNet writes x[0] = a for a of shape (1,))."""
    shape = tuple(shape)
    if isinstance(value, NDArray) and value._on_gpu() and value._ctx == ctx:
        v = value
        lead = 0  # leading axes of one element beyond the target's rank go, as numpy's
        while v.ndim - lead > len(shape) and v.shape[lead] == 1:
            lead += 1
        if lead:
            v = v.reshape(v.shape[lead:])
        if v.shape != shape:
            if v.size == int(_math.prod(shape)):
                v = v.reshape(shape)
            else:
                lead = (1,) * (len(shape) - v.ndim)
                v = _invoke("broadcast_to", [v.reshape(lead + v.shape)], {"shape": shape})
        return v if v._sig[1] == dtype else v.astype(dtype)
    data = np.asarray(_as_np(value), dtype=dtype)
    while data.ndim > len(shape) and data.shape[0] == 1:
        data = data.reshape(data.shape[1:])
    if data.shape != shape and data.size == int(_math.prod(shape)) and data.size != 1:
        data = data.reshape(shape)
    return _new(np.ascontiguousarray(np.broadcast_to(data, shape)), ctx)


def _gpu_setitem(a, key, value):
    """a[key] = value for a GPU array `a` and a key that is not the whole
    array: a contiguous region through a view (one copy into it); another
    basic region by MXNet's _slice_assign / _slice_assign_scalar on the
    device; advanced indexing on the host (the array copied there, written
    as numpy writes it, copied back)."""
    axes = _basic_index(a.shape, key)
    if axes is None:
        host = a._host_data()
        _numpy_write(host, key, value)
        _new(host, Context("cpu", 0)).copyto(a)
        return
    if builtins.any(l == 0 for *_, l, _ in axes):
        return  # an empty region
    value = _unshared(value, a)
    # the value broadcasts against the indexed shape (int axes dropped), as
    # numpy's; _slice_assign takes it with those axes of length 1
    indexed = tuple(l for *_, l, is_int in axes if not is_int) or (1,)
    view = _gpu_view(a, axes)
    if view is not None:
        _region_value(value, indexed, a._sig[1], a._ctx).copyto(view)
        return
    region = tuple(l for *_, l, _ in axes)
    attrs = _slice_attrs(axes)
    if isinstance(value, (int, float, bool, np.number, np.bool_)):
        out = _invoke("_slice_assign_scalar", [a], dict(attrs, scalar=value))
    else:
        v = _region_value(value, indexed, a._sig[1], a._ctx).reshape(region)
        out = _invoke("_slice_assign", [a, v], attrs)
    _engine_copy(out, a)


def _infer_reshape(src, target, reverse=False):
    """MXNet's Reshape shape rules (0 copy, -1 infer, -2 copy the rest,
    -3 merge two, -4 split one)."""
    if reverse:
        src, target = tuple(reversed(src)), tuple(reversed(target))
        # -4's two following values are in reversed order now
        t = list(target)
        i = 0
        while i < len(t):
            if t[i] == -4:
                raise MXNetError("reshape: -4 with reverse=True is not supported")
            i += 1
    out, i, j = [], 0, 0
    while j < len(target):
        v = target[j]
        if v > 0:
            out.append(v)
            i += 1
        elif v == 0:
            if i >= len(src):
                raise MXNetError("reshape: 0 at position %d has no source dimension" % j)
            out.append(src[i])
            i += 1
        elif v == -1:
            out.append(-1)
            i += 1
        elif v == -2:
            out.extend(src[i:])
            i = len(src)
        elif v == -3:
            out.append(src[i] * src[i + 1])
            i += 2
        elif v == -4:
            d1, d2 = target[j + 1], target[j + 2]
            j += 2
            if d1 == -1:
                d1 = src[i] // d2
            if d2 == -1:
                d2 = src[i] // d1
            out.extend([d1, d2])
            i += 1
        else:
            raise MXNetError("reshape: invalid dimension %d" % v)
        j += 1
    total = int(np.prod(src, dtype=np.int64))
    if out.count(-1) > 1:
        raise MXNetError("reshape: more than one -1 in %s" % (target,))
    if -1 in out:
        known = int(np.prod([d for d in out if d != -1], dtype=np.int64))
        if known == 0 or total % known:
            raise MXNetValueError("reshape: cannot reshape %s into %s" % (src, target))
        out[out.index(-1)] = total // known
    if int(np.prod(out, dtype=np.int64)) != total:
        raise MXNetValueError("reshape: cannot reshape %s into %s"
                              % (tuple(src), tuple(target)))
    if reverse:
        out.reverse()
    return tuple(out)


# -- creation ------------------------------------------------------------------

def _new(data, ctx):
    """A runtime array holding a copy of the numpy array `data` (numpy-backed
    if the runtime has no such dtype; on a GPU, a copy from the host)."""
    ctx = check_context(ctx, gpu=True)
    if ctx.device_type == "gpu":
        host = _new(data, Context("cpu", 0))
        if host._rt is None:
            raise MXNetError("%s arrays cannot be on %s" % (data.dtype, ctx))
        return host.copyto(ctx)
    try:
        out = _new_rt(data.shape, data.dtype, ctx)
    except MXNetError:
        return NDArray(data, ctx)
    np.copyto(out._np, data, casting="no")  # fresh: nothing pending on it
    return out


def from_numpy(ndarray, zero_copy=True):
    """MXNet's from_numpy: an NDArray sharing the numpy array's memory when
    `zero_copy` and the array is C-contiguous (the runtime borrows the memory
    and keeps the numpy array referenced while engine operations use it;
    writing the numpy array while they are pending is a race, as in MXNet);
    otherwise a copy."""
    a = ndarray
    if not isinstance(a, np.ndarray):
        raise MXNetError("from_numpy: expected a numpy.ndarray, got %s" % type(a).__name__)
    if zero_copy and not a.flags.c_contiguous:
        raise MXNetValueError("from_numpy: zero_copy needs a C-contiguous array "
                              "(np.ascontiguousarray makes one)")
    if zero_copy and not a.flags.writeable:
        try:  # read-only after an earlier from_numpy: still shared, as MXNet
            a.flags.writeable = True
        except ValueError:
            pass
    if zero_copy and a.flags.writeable and a.ndim > 0 and a.size > 0:
        try:
            rt = _mxc.Array.borrow(a, dtype_name(a.dtype))
        except (MXNetError, TypeError, ValueError):
            rt = None
        if rt is not None:
            out = NDArray(a, Context("cpu", 0), _rt=rt)
            # As MXNet: the numpy array is read-only from now on (the NDArray
            # owns the memory; writes go through it).
            out._np = a.view()
            a.flags.writeable = False
            return out
    return array(a, dtype=a.dtype)


def from_dlpack(dlpack):
    """MXNet's from_dlpack: an NDArray sharing the memory of a DLPack capsule
    (to_dlpack_for_read/write, torch.utils.dlpack.to_dlpack) or of any object
    with __dlpack__ (torch tensors, numpy arrays, ...); the runtime keeps the
    producer's tensor alive while it uses the memory. A CUDA tensor's memory
    is taken as it is: the producer's pending work on it must be finished
    (torch.cuda.synchronize()), as with MXNet's from_dlpack."""
    capsule = dlpack.__dlpack__() if hasattr(dlpack, "__dlpack__") else dlpack
    try:
        rt = _mxc.Array.borrow(capsule, "")
    except TypeError as e:
        raise MXNetError("from_dlpack: %s" % e)
    kind, device_id = rt.device  # CUDA memory: a gpu(i) array
    return _wrap_rt(rt, np_dtype(rt.dtype), Context(kind, device_id))


def to_dlpack_for_read(data):
    return data.to_dlpack_for_read()


def to_dlpack_for_write(data):
    return data.to_dlpack_for_write()


def _new_rt(shape, dtype, ctx=None):
    """A new runtime array (uninitialised) and its NDArray, on ctx's device
    (which the caller checked)."""
    dtype = np.dtype(dtype)
    if ctx is not None and ctx.device_type in ("gpu", "cpu_pinned"):
        # (cpu_pinned: page-locked host memory where there is a GPU, so that
        # copies to and from the GPU run asynchronously; plain host memory
        # without one)
        rt = _mxc.Array(list(shape), dtype_name(dtype), ctx.device_type, ctx.device_id)
    else:
        rt = _mxc.Array(list(shape), dtype_name(dtype))
    return _wrap_rt(rt, dtype, ctx)


def _engine_copy(src, dst):
    """Pushes dst = src as an engine operation when both are runtime arrays
    of one dtype (the caller checked the shapes); False otherwise."""
    if src._rt is None or dst._rt is None or src._sig[1] != dst._sig[1]:
        return False
    if src._rt is not dst._rt:
        src._rt.copy_to(dst._rt)
    return True


def _device_copy(value, ctx, dtype, shape=None):
    """`value` (an NDArray, numpy data or a scalar, broadcast to `shape` when
    given) as a runtime array of numpy dtype `dtype` on Context `ctx`: the
    array itself when it already is one, else a copy (between devices, cast)."""
    if isinstance(value, NDArray):
        if value._ctx == ctx and value._sig[1] == dtype and value._rt is not None:
            return value
        out = _new_rt(value.shape, dtype, ctx)
        value.copyto(out)
        return out
    data = np.asarray(value, dtype=dtype)
    if shape is not None:
        data = np.broadcast_to(data, tuple(shape))
    return _new(np.ascontiguousarray(data), ctx)


def array(source_array, ctx=None, dtype=None):
    """A new array holding a copy of `source_array`. The dtype is `dtype`, else
    the source's if it is an NDArray, else float32 (as MXNet 1.x)."""
    if isinstance(source_array, NDArray):
        dt = source_array._sig[1] if dtype is None else dtype
        return _new(source_array._host_data().astype(np_dtype(dtype_name(dt)), copy=True), ctx)
    dt = np.float32 if dtype is None else np_dtype(dtype_name(dtype))
    # (0-d stays 0-d, as MXNet 1.9.1's; np.ascontiguousarray would make it 1-d)
    data = np.array(source_array, dtype=dt, copy=True, order="C")
    return _new(data, ctx)


def _shape(shape):
    return (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)


def _creation_shape(shape, what):
    """The shape of a created array. Outside mx.np_shape() MXNet reads a 0
    extent, and the empty shape (), as unknown, and refuses to create such
    an array; inside it they make zero-size and scalar arrays."""
    shape = _shape(shape)
    if not is_np_shape() and (len(shape) == 0 or 0 in shape):
        raise MXNetError("%s: shape %s has %s, which MXNet's legacy shape semantics read as "
                         "unknown; zero-size and scalar arrays need mx.np_shape()"
                         % (what, shape, "no dimensions" if not shape else "a zero extent"))
    return shape


def _check_dense(stype, what):
    """MXNet's sparse storage types are out of mxc's scope: a clear error."""
    if stype is not None and stype != "default":
        raise MXNetError("%s: sparse storage (stype='%s') is not supported by mxc; "
                         "arrays are dense (stype='default')" % (what, stype))


def empty(shape, ctx=None, dtype="float32", stype=None):
    _check_dense(stype, "empty")
    shape = _creation_shape(shape, "empty")
    ctx = check_context(ctx, gpu=True)
    try:
        return _new_rt(_shape(shape), np_dtype(dtype_name(dtype)), ctx)
    except MXNetError:
        if ctx.device_type == "gpu":  # (out of memory there: the device's error)
            raise
        return _new(np.empty(_shape(shape), dtype=np_dtype(dtype_name(dtype))), ctx)


def _filled(shape, value, ctx, dtype):
    """A new array of `value`s: on a GPU set there by a device memset (an
    engine operation, no host buffer or copy); elsewhere from numpy."""
    dt = np_dtype(dtype_name(dtype))
    ctx = check_context(ctx, gpu=True)
    if ctx.device_type == "gpu" and dt.itemsize in (1, 2, 4, 8):
        try:
            out = _new_rt(shape, dt, ctx)
        except MXNetError:
            out = None  # not a runtime dtype: _new says so
        if out is not None:
            out._rt.fill(int.from_bytes(np.array(value, dtype=dt).tobytes(), "little"))
            return out
    return _new(np.full(shape, value, dtype=dt), ctx)


def _zeros_any(shape, ctx=None, dtype="float32"):
    """zeros of any shape, () and zero extents included (mxc's own arrays:
    gradients, optimizer states, results of zero size)."""
    return _filled(_shape(shape), 0, ctx, dtype)


@_recorded_in_custom_ops("_zeros")
def zeros(shape, ctx=None, dtype="float32", stype=None, **kwargs):
    _check_dense(stype, "zeros")
    if kwargs.get("out") is not None:
        return full(shape, 0, out=kwargs["out"])
    return _filled(_creation_shape(shape, "zeros"), 0, ctx, dtype)


@_recorded_in_custom_ops("_ones")
def ones(shape, ctx=None, dtype="float32", stype=None, **kwargs):
    _check_dense(stype, "ones")
    if kwargs.get("out") is not None:
        return full(shape, 1, out=kwargs["out"])
    return _filled(_creation_shape(shape, "ones"), 1, ctx, dtype)


def full(shape, val, ctx=None, dtype="float32", out=None):
    if out is not None:
        out[:] = val
        return out
    return _filled(_creation_shape(shape, "full"), val, ctx, dtype)


def _range_values(n, start, step, repeat, dtype):
    """MXNet's range_fwd (the _arange kernel, and mxc's lowering of it):
    DType(start) + (i / repeat) * DType(step) for i in [0, n), in the
    arithmetic of the type (float16 through float32; integers wrap)."""
    dt = np.dtype(dtype)
    i = np.arange(n) // repeat
    if np.issubdtype(dt, np.floating):
        ct = np.float32 if dt.itemsize < 4 else dt.type
        return (ct(dt.type(start)) + i.astype(ct) * ct(dt.type(step))).astype(dt)
    vals = int(start) + i.astype(np.int64) * int(step)
    return vals != 0 if dt == np.bool_ else vals.astype(dt)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=None, ctx=None, dtype="float32"):
    """MXNet's arange: float32 by default, each value `repeat` times; the
    values as MXNet's kernel computes them (DType(start) + i * DType(step)),
    the length ceil((stop - start) / step) in double."""
    if stop is None:
        start, stop = 0.0, start
    if step == 0:
        raise MXNetError("arange: step cannot be 0")
    n = builtins.max(int(_math.ceil((stop - start) / step)), 0) * int(repeat)
    return _new(_range_values(n, start, step, int(repeat), np_dtype(dtype_name(dtype))), ctx)


def concatenate(arrays, axis=0, always_copy=True):
    """MXNet's concatenate: the arrays joined along `axis` (on a GPU, the
    Concat operator there)."""
    if arrays and arrays[0]._on_gpu():
        return _invoke("Concat", list(arrays), {"dim": axis, "num_args": len(arrays)})
    return NDArray(np.concatenate([a._data for a in arrays], axis=axis), arrays[0]._ctx)


def waitall():
    """Blocks until every pushed operation has finished; raises MXNetError for
    the first one that failed since the last waitall."""
    _mxc.engine_wait_all()


def _drain_at_exit():
    # MXNet shuts its engine down at exit (_notify_shutdown); here the steps
    # still in flight finish before Python tears down the arrays they read and
    # write. A failure nobody waited for is reported, not lost.
    err = _mxc.engine_drain_at_exit()
    if err:
        print("mxc: an operation pushed before exit failed: %s" % err, file=sys.stderr)


atexit.register(_drain_at_exit)


def _num_pending():
    """Engine operations pushed and not yet finished (for tests)."""
    return _mxc.engine_num_pending()


# -- .params files ---------------------------------------------------------------

def save(fname, data):
    """Writes NDArrays as an MXNet .params file: an NDArray, a list (no
    names) or a dict name -> NDArray ('arg:fc1_weight' names as
    Module.save_params writes them)."""
    if isinstance(data, NDArray):
        data = [data]
    if isinstance(data, dict):
        items = list(data.items())
    elif isinstance(data, (list, tuple)):
        items = [("", a) for a in data]
    else:
        raise MXNetError("save: expected an NDArray, a list or a dict of NDArrays")
    records = []
    for name, a in items:
        if not isinstance(a, NDArray):
            raise MXNetError("save: %r is not an NDArray" % (name or a,))
        d = a._host_data()
        if not d.flags.c_contiguous:  # (np.ascontiguousarray makes () (1,))
            d = np.array(d, order="C")
        records.append((name, dtype_name(d.dtype), list(d.shape), d))
    from .base import atomic_path
    with atomic_path(str(fname)) as tmp:  # a crash leaves the previous file
        # (under mx.np_shape(): MXNet's V3 records, where () is a scalar)
        _mxc.save_params(tmp, records, np_shape=is_np_shape())


def _from_records(records):
    arrays, names = [], []
    for name, dt, shape, data in records:
        names.append(name)
        if dt is None:
            arrays.append(None)
            continue
        if dt == "bfloat16":
            # numpy has no bfloat16: the values, exactly, as float32.
            bits = np.frombuffer(bytearray(data), dtype=np.uint16).astype(np.uint32) << 16
            a = bits.view(np.float32).reshape(shape)
        else:
            a = np.frombuffer(bytearray(data), dtype=np_dtype(dt)).reshape(shape)
        arrays.append(NDArray(a))
    if any(names):
        return dict(zip(names, arrays))
    return arrays


def load(fname):
    """Reads an MXNet .params file: a dict when the arrays have names, else
    a list."""
    # (only the records saved in the shape semantics it runs in, as MXNet's
    # NDArray::Load)
    return _from_records(_mxc.load_params(str(fname), np_shape=is_np_shape()))


def load_frombuffer(buf):
    return _from_records(_mxc.load_params_bytes(bytes(buf), np_shape=is_np_shape()))


# -- imperative operators ----------------------------------------------------------

_cache = {}


def _graph_json(spec, attrs, input_names, node_name):
    nodes = [{"op": "null", "name": n, "inputs": []} for n in input_names]
    aux = spec.aux_inputs
    node = {"op": spec.name, "name": node_name,
            "inputs": [[i, 0, 1 if i in aux else 0] for i in range(len(input_names))]}
    if attrs:
        node["attrs"] = attrs
    nodes.append(node)
    n = len(input_names)
    return {"nodes": nodes, "arg_nodes": list(range(n)),
            "heads": [[n, k, 0] for k in range(spec.visible_outputs(attrs))],
            "attrs": {"mxnet_version": ["int", 10901]}}


def _cuda_arch(ctx):
    """The architecture operators on GPU context `ctx` are compiled for:
    the device's own ('sm_90' on an H100 / H200). The code is the same for
    every device of one architecture: the runtime loads its kernels on the
    device a call's arrays are on (Plan::onDevice)."""
    arch = _cuda_archs.get(ctx.device_id)
    if arch is None:
        import os
        host = os.environ.get("MXC_TEST_GPU_HOST_KERNELS")
        if host in ("1", "emulated") and \
                _mxc.cuda_device_memory_is_host_memory(ctx.device_id):
            # Tests on the CUDA driver double (docs/gpu.md): its device memory
            # is host memory, so CPU kernels run on the "device" arrays and
            # the results of the GPU paths' plumbing can be checked; with
            # "emulated", the CUDA target's kernel mapping run as host loops
            # (--emulate-gpu-kernels), so its numerics are checked too.
            arch = "" if host == "1" else "emulated"
        else:
            arch = "sm_%d" % _mxc.cuda_compute_capability(ctx.device_id)
        _cuda_archs[ctx.device_id] = arch
    return arch


_cuda_archs = {}


def compiled_op(spec, attrs, in_specs, node_name, train=False, cuda_arch=""):
    """The compiled one-node graph of `spec` for these attributes and input
    (shape, dtype) pairs, cached per signature; and the variable names of its
    inputs. train=True: MXNet's training forward (BatchNorm's batch
    statistics and moving-statistics outputs, Dropout's mask), no gradients.
    cuda_arch ('sm_90'): GPU kernels instead of the CPU's (they run on the
    GPU the pushed arrays are on)."""
    key = (spec.name, node_name, tuple(sorted(attrs.items())), tuple(in_specs), train, cuda_arch)
    c = _cache.get(key)
    if c is None:
        import json
        names = spec.input_names(attrs)
        if names is None:
            names = ["arg%d" % i for i in range(len(in_specs))]
        else:
            names = names[:len(in_specs)]
        g = _graph_json(spec, attrs, names, node_name)
        shapes = {n: list(s) for n, (s, _) in zip(names, in_specs)}
        dtypes = {n: d for n, (_, d) in zip(names, in_specs)}
        options = dict(train=True, wrt=[], grad_req=["null"]) if train else {}
        if cuda_arch:
            options["cuda_arch"] = cuda_arch
        compiled = compile_graph(json.dumps(g), shapes, dtypes, "operator %s" % spec.name,
                                 **options)
        c = (compiled, {n: i for i, n in enumerate(names)})
        _cache[key] = c
    return c


_U64 = (1 << 64) - 1
_C1, _C2 = 0x9e3779b97f4a7c15, 0xd1b54a32d192ed03


def _fnv1a64(s):
    h = 0xcbf29ce484222325
    for c in s.encode():
        h = ((h ^ c) * 0x100000001b3) & _U64
    return h


def _dropout_seed(graph_seed, graph_name, call_name):
    """The seed under which node `call_name` draws the mask that node
    `graph_name` draws under `graph_seed` (the mask of element i depends on
    seed * C1 + fnv1a64(name) * C2 + i, see mx.dropout_mask)."""
    delta = (_fnv1a64(graph_name) - _fnv1a64(call_name)) * _C2 * pow(_C1, -1, 1 << 64)
    s = (graph_seed + delta) & _U64
    return s - (1 << 64) if s >= 1 << 63 else s


# The dispatch fast path: (op, attributes, input shapes and dtypes) -> the
# compiled op, its inputs' positions and its outputs' dtypes, for calls that
# need nothing else (no out=, no name, not recorded, no head-gradient or seed
# input): one C++ call allocates the outputs and pushes.
_fast = {}


def _fast_key(op_name, inputs, kwargs, gpu_ctx=None):
    """The fast path's key of a call (raises AttributeError for a non-NDArray
    input, TypeError for an unhashable attribute when hashed); a call on GPU
    arrays has their context last."""
    key = (op_name, tuple(kwargs.items()), tuple([a._sig for a in inputs]))
    return key if gpu_ctx is None else key + (gpu_ctx,)


def _invoke(op_name, inputs, kwargs, out=None, name=None):
    if getattr(_custom_op, "label", None) is not None:   # inside a custom operator
        return _custom_op_call(op_name, _invoke_plain, op_name, inputs, kwargs, out, name)
    return _invoke_plain(op_name, inputs, kwargs, out, name)


def _invoke_plain(op_name, inputs, kwargs, out=None, name=None):
    if out is None and name is None:
        result = _fast_dispatch(op_name, inputs, kwargs)
        if result is not None:
            return result
    return _invoke_slow(op_name, inputs, kwargs, out, name)


# The fast path itself is C++ (_mxc.fast_dispatch, set up by autograd's
# import): it builds _fast_key's key, finds the entry, checks that autograd
# is not recording and that every input is a runtime array, pushes, and
# makes the output NDArrays (their slots written directly); None sends the
# call down the Python path.
_fast_dispatch = _mxc.fast_dispatch


def _init_fast_dispatch(autograd_state):
    _mxc.init_fast_dispatch(NDArray, _fast, autograd_state)
    atexit.register(_mxc.clear_fast_dispatch)


def _tape_data(a):
    """An input's data as autograd's tape keeps it: its numpy view, or a GPU
    array's storage as it is now (no numpy view of device memory)."""
    return _wrap_rt(a._rt, a._sig[1], a._ctx) if a._on_gpu() else a._np


def _wrap_rt(rt, dtype, ctx):
    """The NDArray of runtime array `rt` (numpy dtype `dtype`); its numpy
    view is made on first use."""
    return NDArray(None, ctx, _rt=rt, _sig=(tuple(rt.shape), np.dtype(dtype)))


def _invoke_slow(op_name, inputs, kwargs, out=None, name=None):
    from . import autograd
    spec = _ops.OP_NAMES[op_name]
    attrs = spec.format_attrs(kwargs)
    if spec.variadic and "num_args" in spec.attrs and "num_args" not in attrs:
        attrs["num_args"] = str(len(inputs))
    for a in inputs:
        if not isinstance(a, NDArray):
            raise MXNetError("%s: inputs must be NDArrays, got %s" % (spec.name, type(a).__name__))
        check_context(a._ctx, gpu=True)
    outs_given = None
    if out is not None:
        outs_given = list(out) if isinstance(out, (list, tuple)) else [out]
    ctx = inputs[0]._ctx if inputs else current_context()
    # On a GPU: every array on the one device (as MXNet, which does not copy
    # between devices inside an operator), kernels compiled for it.
    cuda_arch, on_gpu = "", False
    if any(a._ctx.device_type == "gpu" for a in list(inputs) + (outs_given or [])) or \
            ctx.device_type == "gpu":
        on_gpu = True
        for a in list(inputs) + (outs_given or []):
            if a._ctx != ctx:
                raise MXNetError("%s: arrays on %s and %s; copy them to one context first "
                                 "(as_in_context)" % (spec.name, ctx, a._ctx))
        check_context(ctx, gpu=True)
        cuda_arch = _cuda_arch(ctx)
    # Runtime arrays in and out: push onto the engine and return at once.
    lazy = all(a._rt is not None for a in inputs) and \
        (outs_given is None or all(isinstance(o, NDArray) for o in outs_given))
    if on_gpu:
        if not lazy:
            raise MXNetError("%s: out= on %s takes NDArrays" % (spec.name, ctx))
        datas = None  # no numpy view of GPU memory; shapes and dtypes from _sig
        in_specs = [(a._sig[0], dtype_name(a._sig[1])) for a in inputs]
    elif lazy:
        datas = [a._np for a in inputs]
    else:
        datas = []
        for a in inputs:
            d = a._data
            if not d.flags.c_contiguous:
                d = np.ascontiguousarray(d)
            datas.append(d)
    if datas is not None:
        in_specs = [(d.shape, dtype_name(d.dtype)) for d in datas]
    node = name or spec.name.lower()
    train = autograd.is_training() and spec.name in ("BatchNorm", "Dropout")
    recording = autograd.is_recording() and any(autograd._tracked(a) for a in inputs)
    graph_name = autograd.node_name(spec) if recording else node
    compiled, positions = compiled_op(spec, attrs, in_specs, node, train, cuda_arch)
    heads = [o for o in compiled.outputs if o[1] == ""]
    if outs_given is not None and len(outs_given) != len(heads):
        raise MXNetError("%s: out= needs %d arrays" % (spec.name, len(heads)))

    def extra_input(kind, shape, dt):
        if kind == "head_grad":
            return np.zeros(shape, dtype=np_dtype(dt))
        seed = autograd.seed() if recording else autograd.fresh_seed()
        return np.array([_dropout_seed(seed, graph_name, node)], dtype=np.int64)

    if lazy and outs_given is None and name is None and not recording and \
            spec.name not in ("BatchNorm", "Dropout") and \
            all(kind == "" for _, kind, _, _ in compiled.outputs) and \
            all(kind not in ("head_grad", "rng_seed") for _, kind, _, _ in compiled.inputs):
        try:
            _fast[_fast_key(op_name, inputs, kwargs, ctx if on_gpu else None)] = (
                compiled, tuple([positions[n] for n, _, _, _ in compiled.inputs]),
                tuple([(tuple(shape), np.dtype(np_dtype(dt)))
                       for _, _, shape, dt in compiled.outputs]))
        except TypeError:  # an unhashable attribute value
            pass
    if lazy:
        run_in = []
        for iname, kind, shape, dt in compiled.inputs:
            if kind in ("head_grad", "rng_seed"):
                run_in.append(_new(extra_input(kind, shape, dt), ctx)._rt)
            else:
                run_in.append(inputs[positions[iname]]._rt)
        results, copies = [], []
        for i, (oname, _, shape, dt) in enumerate(heads):
            o = outs_given[i] if outs_given is not None else None
            if o is not None and o._rt is not None and o.shape == tuple(shape) and \
                    o._sig[1] == np_dtype(dt) and \
                    not any(o._rt.shares_storage_with(r) for r in run_in):
                results.append(o)  # written in place by the graph
                continue
            fresh = _new_rt(shape, np_dtype(dt), ctx)
            results.append(fresh)
            if o is not None:
                if o.shape != tuple(shape):
                    raise MXNetError("%s: out= has shape %s, the result %s"
                                     % (spec.name, o.shape, tuple(shape)))
                copies.append((fresh, o))
        aux_out = [(oname, _new_rt(shape, np_dtype(dt), ctx))
                   for oname, kind, shape, dt in compiled.outputs if kind == "aux_out"]
        compiled.push(run_in, [r._rt for r in results] + [d._rt for _, d in aux_out])
        for oname, d in aux_out:  # BatchNorm in training updates its moving statistics
            d._rt.copy_to(inputs[positions[oname]]._rt)
        for fresh, o in copies:
            if not _engine_copy(fresh, o):
                np.copyto(o._data, fresh._data, casting="unsafe")
        if outs_given is not None:
            results = outs_given
    else:
        run_in = []
        for iname, kind, shape, dt in compiled.inputs:
            if kind in ("head_grad", "rng_seed"):
                run_in.append(extra_input(kind, shape, dt))
            else:
                run_in.append(datas[positions[iname]])
        outs = []
        for i, (oname, _, shape, dt) in enumerate(heads):
            if outs_given is not None and outs_given[i]._data.flags.c_contiguous and \
                    outs_given[i].shape == tuple(shape) and \
                    outs_given[i]._data.dtype == np_dtype(dt) and \
                    not any(np.shares_memory(outs_given[i]._data, d) for d in datas):
                outs.append(outs_given[i])
            else:
                outs.append(_new_rt(shape, np_dtype(dt), ctx))
        aux_out = [(oname, np.empty(shape, dtype=np_dtype(dt)))
                   for oname, kind, shape, dt in compiled.outputs if kind == "aux_out"]
        compiled.run(run_in, [o._data for o in outs] + [d for _, d in aux_out])
        for oname, d in aux_out:  # BatchNorm in training updates its moving statistics
            np.copyto(inputs[positions[oname]]._data, d)
        if outs_given is not None:
            for o, d in zip(outs_given, outs):
                if o is not d:
                    if o.shape != d.shape:
                        raise MXNetError("%s: out= has shape %s, the result %s"
                                         % (spec.name, o.shape, d.shape))
                    np.copyto(o._data, d._data, casting="unsafe")
            results = list(outs_given)
        else:
            results = outs
    if recording:
        if datas is None:  # GPU arrays
            datas = [_tape_data(a) for a in inputs]
        autograd.record_call(spec, attrs, graph_name, inputs, datas, results, train)
    if out is not None:
        return out
    return results[0] if len(results) == 1 else results


def _make_op_function(py_name, spec):
    op_name = spec.name

    def op_function(*args, **kwargs):
        # A call seen before with NDArray inputs only (positional) and the
        # same attributes: straight to the compiled op (_invoke's fast path,
        # keyed the same way, without the argument handling below).
        result = _fast_dispatch(op_name, args, kwargs)
        if result is not None:
            return result
        out = kwargs.pop("out", None)
        name = kwargs.pop("name", None)
        ctx = kwargs.pop("ctx", None)
        _ops.drop_absent_inputs(spec, kwargs)
        inputs = list(args)
        if spec.variadic:
            if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
                inputs = list(inputs[0])
            named = {k: kwargs.pop(k) for k in list(kwargs) if isinstance(kwargs[k], NDArray)}
            inputs = _ops.variadic_inputs(spec, inputs, named, kwargs)
        else:
            # As MXNet's generated functions: the inputs first, then the
            # attributes positionally in the operator's order (clip(x, 0, 1)).
            inputs = _ops.take_positional_attrs(
                spec, inputs, lambda a: isinstance(a, NDArray), kwargs)
            attr_kwargs = {k: v for k, v in kwargs.items() if not isinstance(v, NDArray)}
            names = spec.input_names(spec.format_attrs(attr_kwargs))
            for n in names[len(inputs):]:
                if n in kwargs and isinstance(kwargs[n], NDArray):
                    inputs.append(kwargs.pop(n))
                else:
                    break
            extra = [k for k, v in kwargs.items() if isinstance(v, NDArray)]
            if extra:
                raise MXNetError("%s: unexpected input(s) %s (inputs: %s)"
                                 % (spec.name, ", ".join(extra), ", ".join(names)))
            if len(inputs) != len(names):
                raise MXNetError("%s: takes inputs %s, got %d"
                                 % (spec.name, ", ".join(names), len(inputs)))
        if ctx is not None and not inputs:
            # an operator without inputs (_zeros, _arange, ...) makes its
            # outputs on ctx, as MXNet's (the inputs' context otherwise)
            with check_context(Context(ctx) if isinstance(ctx, str) else ctx, gpu=True):
                return _invoke(spec.name, inputs, kwargs, out=out, name=name)
        return _invoke(spec.name, inputs, kwargs, out=out, name=name)

    op_function.__name__ = py_name
    op_function.__qualname__ = py_name
    op_function.__doc__ = "MXNet operator %s (imperative): inputs %s; attributes %s." % (
        spec.name, ", ".join(spec.inputs) or "variadic",
        ", ".join(spec.attrs) or "none")
    return op_function


class _Namespace:
    """mx.nd._internal and the like: attribute access to op functions."""

    def __init__(self, functions):
        self.__dict__.update(functions)


_functions = {py: _make_op_function(py, spec) for py, spec in _ops.public_names()}
globals().update(_functions)
_internal = _Namespace({k: v for k, v in _functions.items() if k.startswith("_")})


def _sample_unique_zipfian(range_max, shape=None, ctx=None, **kwargs):
    """MXNet's _sample_unique_zipfian (host sampling: mxc.random)."""
    return _random()._sample_unique_zipfian(range_max, shape, ctx, **kwargs)


_internal._sample_unique_zipfian = _sample_unique_zipfian
op = _Namespace(_functions)


# NDArray methods that are operators (x.sum(axis=1), x.exp(), ...).
def _method(fname):
    f = _functions[fname]

    def method(self, *args, **kwargs):
        return f(self, *args, **kwargs)

    method.__name__ = fname
    return method


for _m in ["sum", "mean", "max", "min", "argmax", "exp", "log", "sqrt", "square",
           "abs", "relu", "sigmoid", "tanh", "softmax", "log_softmax", "transpose",
           "expand_dims", "clip", "one_hot", "slice_axis", "negative"]:
    if _m in _functions:
        setattr(NDArray, _m, _method(_m))
# MXNet's other fluent methods, for the operators mxc has (same list as Symbol's).
for _m in ["broadcast_axes", "repeat", "pad", "swapaxes", "slice", "slice_like", "take", "pick",
           "sort", "topk", "argsort", "argmax_channel", "argmin", "sign", "broadcast_to", "squeeze",
           "broadcast_like", "tile", "flip", "diag", "nansum", "prod", "nanprod", "round",
           "rint", "fix", "floor", "ceil", "trunc", "sin", "cos", "tan", "arcsin", "arccos",
           "arctan", "degrees", "radians", "sinh", "cosh", "arcsinh", "arccosh", "arctanh",
           "expm1", "log10", "log2", "log1p", "rsqrt", "cbrt", "rcbrt", "reciprocal", "softmin",
           "shape_array", "size_array"]:
    if _m in _functions and not hasattr(NDArray, _m):
        setattr(NDArray, _m, _method(_m))


def _random():
    from . import random as r
    return r


class _RandomNamespace:
    def __getattr__(self, name):
        return getattr(_random(), name)


random = _RandomNamespace()


# -- MXNet operators composed of compiled ones (exact: same values, and the
# gradients come from the parts' gradients) ---------------------------------------



def _ufunc_helper(lhs, rhs, fn_array, fn_scalar, lfn_scalar, rfn_scalar=None):
    """MXNet 1.9.1's dispatch of mx.nd.add/maximum/...: two arrays -> the
    broadcast operator, an array and a number -> the scalar operator (its
    reversed form when the number is on the left), two numbers -> Python."""
    numbers = (int, float, bool, np.number, np.bool_)
    if isinstance(lhs, numbers):
        if isinstance(rhs, numbers):
            return fn_scalar(lhs, rhs)
        if rfn_scalar is None:       # commutative
            return lfn_scalar(rhs, scalar=float(lhs))
        return rfn_scalar(rhs, scalar=float(lhs))
    if isinstance(rhs, numbers):
        return lfn_scalar(lhs, scalar=float(rhs))
    if isinstance(rhs, NDArray):
        return fn_array(lhs, rhs)
    raise TypeError("type %s not supported" % str(type(rhs)))


def _binary_function(name, array_op, fn_scalar, scalar_op, rscalar_op=None):
    def f(lhs, rhs):
        g = globals()
        return _ufunc_helper(lhs, rhs, g[array_op], fn_scalar, g[scalar_op],
                             g[rscalar_op] if rscalar_op else None)
    f.__name__ = name
    f.__doc__ = ("MXNet's mx.nd.%s(lhs, rhs): %s for two arrays (broadcasting), %s with a "
                 "number." % (name, array_op, scalar_op))
    return f


for _name, _spec in {
        "add": ("broadcast_add", _operator.add, "_plus_scalar"),
        "subtract": ("broadcast_sub", _operator.sub, "_minus_scalar", "_rminus_scalar"),
        "multiply": ("broadcast_mul", _operator.mul, "_mul_scalar"),
        "divide": ("broadcast_div", _operator.truediv, "_div_scalar", "_rdiv_scalar"),
        "power": ("broadcast_power", _operator.pow, "_power_scalar", "_rpower_scalar"),
        "maximum": ("broadcast_maximum", lambda x, y: x if x > y else y, "_maximum_scalar"),
        "minimum": ("broadcast_minimum", lambda x, y: x if x < y else y, "_minimum_scalar"),
        "hypot": ("broadcast_hypot", _math.hypot, "_hypot_scalar"),
        "modulo": ("broadcast_mod", _operator.mod, "_mod_scalar", "_rmod_scalar"),
        "equal": ("broadcast_equal", lambda x, y: 1 if x == y else 0, "_equal_scalar"),
        "not_equal": ("broadcast_not_equal", lambda x, y: 1 if x != y else 0,
                      "_not_equal_scalar"),
        "greater": ("broadcast_greater", lambda x, y: 1 if x > y else 0, "_greater_scalar",
                    "_lesser_scalar"),
        "greater_equal": ("broadcast_greater_equal", lambda x, y: 1 if x >= y else 0,
                          "_greater_equal_scalar", "_lesser_equal_scalar"),
        "lesser": ("broadcast_lesser", lambda x, y: 1 if x < y else 0, "_lesser_scalar",
                   "_greater_scalar"),
        "lesser_equal": ("broadcast_lesser_equal", lambda x, y: 1 if x <= y else 0,
                         "_lesser_equal_scalar", "_greater_equal_scalar"),
        "logical_and": ("broadcast_logical_and", lambda x, y: 1 if x and y else 0,
                        "_logical_and_scalar"),
        "logical_or": ("broadcast_logical_or", lambda x, y: 1 if x or y else 0,
                       "_logical_or_scalar"),
        "logical_xor": ("broadcast_logical_xor", lambda x, y: 1 if bool(x) != bool(y) else 0,
                        "_logical_xor_scalar")}.items():
    if _name not in globals() and all(n in globals() for n in _spec[::2] + _spec[3:4]
                                      if isinstance(n, str)):
        globals()[_name] = _binary_function(_name, *_spec)
true_divide = globals().get("divide")


def add_n(*args, **kwargs):
    """MXNet's add_n / ElementWiseSum: the sum of equally shaped arrays, as
    elemwise_add calls left to right (MXNet's kernel adds in that order)."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    if not args:
        raise MXNetError("add_n: no arrays")
    out = kwargs.get("out")
    if len(args) == 1:
        result = args[0].copy()
    else:
        result = elemwise_add(args[0], args[1])
        for a in args[2:]:
            result = elemwise_add(result, a)
    if out is not None:
        out[:] = result
        return out
    return result


ElementWiseSum = add_n


def norm(data, ord=2, axis=None, out_dtype=None, keepdims=False, **kwargs):
    """MXNet's norm for ord 1 and 2, as sum(abs(x)) and sqrt(sum(square(x)))
    over `axis` (all axes: shape (1,), as MXNet), in `out_dtype` when given
    (the data cast first). MXNet's L2 kernel scales to avoid overflow; this
    one overflows above ~1.8e19 in float32."""
    if ord not in (1, 2):
        raise MXNetError("norm: ord must be 1 or 2 (got %r)" % (ord,))
    if out_dtype is not None:   # accumulated and returned in out_dtype
        data = Cast(data, dtype=out_dtype)
    kw = {"keepdims": keepdims}
    if axis is not None:
        kw["axis"] = axis
    if ord == 2:
        return sqrt(sum(square(data), **kw))
    return sum(abs(data), **kw)


def _contrib_allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=True, **kwargs):
    """MXNet's contrib.allclose: a 0-d uint8 array, 1 when every element has
    |a - b| <= atol + rtol * |b| (NaNs equal when equal_nan), in the data's
    precision as MXNet's kernel. Host numpy after the arrays' pending writes
    (synchronous), not a compiled operator."""
    x, y = _as_np(a), _as_np(b)
    if x.shape != y.shape:
        raise MXNetError("contrib.allclose: shapes %s and %s differ" % (x.shape, y.shape))
    ct = np.float64 if np.float64 in (x.dtype.type, y.dtype.type) else np.float32
    xf, yf = x.astype(ct), y.astype(ct)
    nan_x, nan_y = np.isnan(xf), np.isnan(yf)
    with np.errstate(invalid="ignore", over="ignore"):
        close = (xf == yf) | (np.abs(xf - yf) <= ct(atol) + ct(rtol) * np.abs(yf))
    ok = np.where(nan_x | nan_y, bool(equal_nan) & (nan_x == nan_y), close)
    ctx = a.context if isinstance(a, NDArray) else None
    return _new(np.array(1 if ok.all() else 0, dtype=np.uint8), ctx)   # MXNet: shape (), uint8


def _contrib_sync_batch_norm(data, gamma, beta, moving_mean, moving_var, eps=1e-3,
                             momentum=0.9, fix_gamma=True, use_global_stats=False,
                             output_mean_var=False, ndev=1, key=None, out=None, name=None,
                             **kwargs):
    """MXNet's contrib.SyncBatchNorm on one device (ndev=1): BatchNorm over
    axis 1 (the statistics of the whole batch are this device's), with
    MXNet's SyncBatchNorm outputs: with output_mean_var, the batch mean and
    variance (the variance as mean((x - mean)^2) over every axis but 1, of
    compiled operators). mxc has no cross-device reduction: ndev > 1 is an
    error. The moving statistics are updated in the forward (MXNet's
    SyncBatchNorm updates them in its backward)."""
    if int(ndev) != 1:
        raise MXNetError("contrib.SyncBatchNorm: ndev=%s: mxc synchronises no statistics "
                         "across devices; use ndev=1 (one device: BatchNorm)" % (ndev,))
    r = BatchNorm(data, gamma, beta, moving_mean, moving_var, eps=eps, momentum=momentum,
                  fix_gamma=fix_gamma, use_global_stats=use_global_stats,
                  output_mean_var=output_mean_var, axis=1, name=name)
    if not output_mean_var:
        if out is not None:
            out[:] = r
            return out
        return r
    y, batch_mean, _ = r
    shape = [1] * len(data.shape)
    shape[1] = data.shape[1]
    centred = broadcast_sub(data, batch_mean.reshape(tuple(shape)))
    return [y, batch_mean, globals()["mean"](square(centred), axis=1, exclude=True)]


def _contrib_boolean_mask(data, index, axis=0, out=None, name=None, **kwargs):
    """MXNet's contrib.boolean_mask (_contrib_boolean_mask): the slices of
    data along `axis` whose `index` entry is non-zero, in order. The output's
    extent depends on the values, which a compiled graph cannot have: the
    positions are read on the host (a wait on `index`), the slices taken
    there, and under autograd.record() the gradient scatters the head
    gradient back to those positions (zero elsewhere; none to `index`), as
    MXNet's backward. An empty selection gives a zero-size array."""
    from . import autograd

    if kwargs:
        raise MXNetError("boolean_mask: unexpected arguments %s" % ", ".join(kwargs))
    if not isinstance(data, NDArray) or not isinstance(index, NDArray):
        raise MXNetError("boolean_mask: data and index must be NDArrays")
    ax = int(axis) + (data.ndim if int(axis) < 0 else 0)
    if not 0 <= ax < data.ndim:
        raise MXNetError("boolean_mask: axis %s out of range for %d dimensions"
                         % (axis, data.ndim))
    if index.ndim != 1 or index.shape[0] != data.shape[ax]:
        raise MXNetError("boolean_mask: index must be 1-D with data's extent %d along axis %d, "
                         "got shape %s" % (data.shape[ax], ax, index.shape))

    class _BooleanMask(autograd.Function):
        def forward(self, x, i):
            pos = np.nonzero(_as_np(i))[0]
            self.save_for_backward(pos, x.shape, x._sig[1])
            return _new(np.ascontiguousarray(np.take(_as_np(x), pos, axis=ax)), x.context)

        def backward(self, dy):
            pos, shape, dtype = self.saved_tensors
            grad = np.zeros(shape, dtype)
            where = [builtins.slice(None)] * len(shape)
            where[ax] = pos
            grad[tuple(where)] = _as_np(dy)
            return _new(grad, dy.context), zeros_like(index)

    result = _BooleanMask()(data, index)
    if out is not None:
        out[:] = result
        return out
    return result


# -- mx.nd.contrib.foreach / while_loop / cond: MXNet's control flow on
# NDArrays is Python looping over the body (the body's operators are mxc's,
# so autograd records through it). mx.sym.contrib's forms are not compiled
# (symbol.py).

def _cf_flatten(value, what):
    """Nested lists / tuples of NDArrays -> (flat list, format)."""
    if value is None:
        return [], None
    if isinstance(value, NDArray):
        return [value], 0
    if not isinstance(value, (list, tuple)):
        raise ValueError("%s must be an NDArray or a nested list of NDArrays, got %s"
                         % (what, type(value).__name__))
    flat, fmt = [], []
    for v in value:
        f, sub = _cf_flatten(v, what)
        flat.extend(f)
        fmt.append(sub)
    return flat, fmt


def _cf_regroup(flat, fmt):
    """The inverse of _cf_flatten: (value, the entries left)."""
    if fmt is None:
        return None, flat
    if fmt == 0:
        return flat[0], flat[1:]
    out = []
    for sub in fmt:
        v, flat = _cf_regroup(flat, sub)
        out.append(v)
    return out, flat


def _cf_scalar(value, kind, what):
    if isinstance(value, NDArray):
        if value.size != 1:
            raise ValueError("%s must be a scalar, got shape %s" % (what, value.shape))
        value = value.asnumpy().reshape(()).item()
    try:
        return kind(value)
    except (TypeError, ValueError):
        raise ValueError("cannot convert %s to a Python %s" % (what, kind.__name__))


def _contrib_foreach(body, data, init_states, name="foreach"):
    """MXNet's contrib.foreach on NDArrays: body(data[i], states) ->
    (outputs, states) for i along axis 0 of data (an NDArray or a list of
    them, sliced together); returns (the outputs stacked along a new axis 0,
    in the format body gives them, the last states)."""
    flat_data, _ = _cf_flatten(data, "foreach data")
    _cf_flatten(init_states, "foreach init_states")
    if not flat_data:
        raise ValueError("foreach: data must hold at least one NDArray")
    length = flat_data[0].shape[0]
    if any(d.shape[0] != length for d in flat_data):
        raise ValueError("foreach: the data arrays have different lengths along axis 0: %s"
                         % [d.shape[0] for d in flat_data])
    states, steps, out_fmt = init_states, [], None
    for i in range(length):
        item = data[i] if isinstance(data, NDArray) else [d[i] for d in data]
        outs, states = body(item, states)
        flat, out_fmt = _cf_flatten(outs, "foreach output")
        if steps and len(flat) != len(steps[0]):
            raise ValueError("foreach: the body returned %d outputs at step %d and %d at step 0"
                             % (len(flat), i, len(steps[0])))
        steps.append(flat)
    stacked = [stack(*column, axis=0, num_args=len(column)) for column in zip(*steps)]
    outputs, _ = _cf_regroup(stacked, out_fmt) if steps else ([], None)
    return outputs, states


def _contrib_while_loop(cond, func, loop_vars, max_iterations=None, name="while_loop"):
    """MXNet's contrib.while_loop on NDArrays: while cond(*vars) holds and
    fewer than max_iterations steps ran, (step_output, vars) = func(*vars);
    returns (the step outputs stacked along axis 0 and padded to
    max_iterations rows with unspecified values, as MXNet's, the last
    vars)."""
    if max_iterations is None:
        raise ValueError("while_loop: max_iterations must be given")
    max_iterations = _cf_scalar(max_iterations, int, "max_iterations")
    single = isinstance(loop_vars, NDArray)
    variables = [loop_vars] if single else list(loop_vars)
    if not variables:
        raise ValueError("while_loop: loop_vars must hold at least one NDArray")
    steps, out_fmt = [], None
    while len(steps) < max_iterations and _cf_scalar(cond(*variables), bool,
                                                     "the value of cond"):
        out, new_vars = func(*variables)
        new_vars = [] if new_vars is None else (
            [new_vars] if isinstance(new_vars, NDArray) else list(new_vars))
        if len(new_vars) != len(variables):
            raise ValueError("while_loop: func returned %d loop variables, %d came in"
                             % (len(new_vars), len(variables)))
        variables = new_vars
        flat, out_fmt = _cf_flatten(list(out) if isinstance(out, tuple) else out,
                                    "while_loop output")
        if steps and len(flat) != len(steps[0]):
            raise ValueError("while_loop: func returned %d outputs at step %d and %d at step 0"
                             % (len(flat), len(steps), len(steps[0])))
        steps.append(flat)
    stacked = []
    for i, column in enumerate(zip(*steps)):
        rows = [x.expand_dims(axis=0) for x in column]
        if len(rows) < max_iterations:
            rows.append(zeros((max_iterations - len(rows),) + tuple(column[0].shape),
                              ctx=column[0].context, dtype=column[0].dtype))
        if len({r.shape[1:] for r in rows}) > 1:
            raise ValueError("while_loop: the shapes of output %d differ between steps: %s"
                             % (i, [tuple(x.shape) for x in column]))
        stacked.append(concat(*rows, dim=0, num_args=len(rows)))
    outputs = _cf_regroup(stacked, out_fmt)[0] if out_fmt is not None else []
    return outputs, (variables[0] if single else variables)


def _contrib_cond(pred, then_func, else_func, name="cond"):
    """MXNet's contrib.cond on NDArrays: then_func() if pred (a scalar)
    holds, else else_func()."""
    return then_func() if _cf_scalar(pred, bool, "pred") else else_func()


def _contrib_hawkesll(lda, alpha, beta, state, lags, marks, valid_length, max_time, out=None,
                      name=None, **kwargs):
    """MXNet's contrib.hawkesll (hawkes_ll-inl.h): the log-likelihood of
    marked sequences under a multivariate Hawkes process with exponential
    kernels, and the final states. lda (N, K) background intensities, alpha
    (K,) branching ratios, beta (K,) decays, state (N, K) initial states,
    lags (N, T) interarrival times, marks (N, T) int32 marks, valid_length
    (N,) points per sequence, max_time (N,) observation ends. Returns
    [loglike (N,), states (N, K)]. Composed of mxc's operators, one step per
    point (vectorised over the sequences, masked past valid_length), so
    autograd gives the gradients of lda, alpha and beta."""
    n, k = lda.shape
    t_len = lags.shape[1]
    if alpha.shape != (k,) or beta.shape != (k,) or state.shape != (n, k) or \
            marks.shape != (n, t_len) or valid_length.shape != (n,) or max_time.shape != (n,):
        raise MXNetError("hawkesll: shapes must be lda (N, K), alpha (K,), beta (K,), state "
                         "(N, K), lags (N, T), marks (N, T), valid_length (N,), max_time (N,); "
                         "got %s" % [tuple(a.shape) for a in (lda, alpha, beta, state, lags,
                                                                marks, valid_length, max_time)])
    if lags.shape[0] != n:
        raise MXNetError("hawkesll: lags has %d rows, lda %d" % (lags.shape[0], n))
    m = marks.asnumpy()
    if m.size and (m.min() < 0 or m.max() >= k):
        raise MXNetError("hawkesll: marks must be in [0, %d), got values in [%d, %d]"
                         % (k, m.min(), m.max()))
    dt = lda.dtype
    a_row, b_row = alpha.reshape((1, k)), beta.reshape((1, k))
    st = state.copy()
    last = zeros((n, k), ctx=lda.context, dtype=dt)
    t = zeros((n,), ctx=lda.context, dtype=dt)
    ll = zeros((n,), ctx=lda.context, dtype=dt)
    steps = arange(t_len, ctx=lda.context, dtype=dt)
    for j in range(t_len):
        valid = (valid_length > steps[j]).astype(dt)             # (N,)
        hot = one_hot(marks[:, j], depth=k, dtype=dt) * valid.reshape((n, 1))
        t = t + lags[:, j] * valid
        pick_ = lambda m: sum(m * hot, axis=1)                   # the point's mark's entry
        b_c, a_c, mu_c = pick_(b_row), pick_(a_row), pick_(lda)
        d = t - pick_(last)
        ed = exp(-b_c * d)
        s_c = pick_(st)
        intensity = mu_c + a_c * b_c * s_c * ed
        comp = mu_c * d + a_c * s_c * (1 - ed)
        ll = ll + (log(where(valid > 0, intensity, ones_like(intensity))) - comp) * valid
        st = st + hot * ((1 + s_c * ed) - pick_(st)).reshape((n, 1))
        last = last + hot * (t.reshape((n, 1)) - last)
    d = max_time.reshape((n, 1)) - last
    ed = exp(-b_row * d)
    ll = ll - sum(lda * d + a_row * st * (1 - ed), axis=1)
    st = ed * st
    if out is not None:
        out[0][:] = ll
        out[1][:] = st
        return out
    return [ll, st]


class _ContribNamespace(_ops.ContribNamespace):
    """mx.nd.contrib: the table's _contrib_* operators, and the Python
    helpers mxc has (allclose; isnan, isinf, isfinite from _nd_more;
    SyncBatchNorm on one device; boolean_mask on the host)."""

    allclose = staticmethod(_contrib_allclose)
    SyncBatchNorm = staticmethod(_contrib_sync_batch_norm)
    boolean_mask = staticmethod(_contrib_boolean_mask)
    foreach = staticmethod(_contrib_foreach)
    hawkesll = staticmethod(_contrib_hawkesll)

    def __getattr__(self, name):
        # the AdamW update functions (numpy on the host, mxc._update_ops)
        from . import _update_ops
        fn = _update_ops.CONTRIB_FUNCTIONS.get(name)
        if fn is not None:
            return fn
        return super().__getattr__(name)

    while_loop = staticmethod(_contrib_while_loop)
    cond = staticmethod(_contrib_cond)

    @staticmethod
    def rand_zipfian(true_classes, num_sampled, range_max, ctx=None):
        """MXNet's contrib.rand_zipfian (mxc._candidate_sampling)."""
        from . import _candidate_sampling, ndarray
        if ctx is not None and true_classes.context != ctx:
            true_classes = true_classes.as_in_context(ctx)
        return _candidate_sampling.rand_zipfian(ndarray, true_classes, num_sampled, range_max,
                                                ctx)


contrib = _ContribNamespace("mx.nd.contrib", _make_op_function)
# mx.nd.linalg: the table's _linalg_* operators (gemm, gemm2)
linalg = _ops.ContribNamespace("mx.nd.linalg", _make_op_function, prefix="_linalg_")
# mx.nd.image: the table's _image_* operators (to_tensor, normalize, ...)
image = _ops.ContribNamespace("mx.nd.image", _make_op_function, prefix="_image_")


class _SparseNamespace:
    """mx.nd.sparse / mx.sym.sparse: MXNet's sparse storage (csr,
    row_sparse) is not in mxc; every name here raises an MXNetError that
    says so."""

    def __init__(self, prefix):
        self._prefix = prefix

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        prefix = self._prefix

        def unsupported(*args, **kwargs):
            raise MXNetError("%s.%s: sparse storage (stype='csr' / 'row_sparse') is not "
                             "supported by mxc; arrays are dense (stype='default')"
                             % (prefix, name))
        unsupported.__name__ = name
        return unsupported


sparse = _SparseNamespace("mx.nd.sparse")


def _random_alias(name, target):
    def sample(*args, **kwargs):
        return getattr(_random(), target)(*args, **kwargs)
    sample.__name__ = name
    sample.__doc__ = "mx.nd.%s: MXNet's alias of mx.nd.random.%s (the same sampler)." % (
        name, target)
    return sample


# MXNet 1.x's top-level names of the samplers (_random_uniform's aliases
# uniform / random_uniform, ...), where no operator of that name exists.
for _alias, _target in (("uniform", "uniform"), ("random_uniform", "uniform"),
                        ("normal", "normal"), ("random_normal", "normal"),
                        ("random_randint", "randint"), ("shuffle", "shuffle"),
                        ("random_exponential", "exponential_lam"),
                        ("random_gamma", "gamma"), ("random_poisson", "poisson"),
                        ("random_negative_binomial", "negative_binomial"),
                        ("random_generalized_negative_binomial",
                         "generalized_negative_binomial")):
    if _alias not in globals():
        globals()[_alias] = _random_alias(_alias, _target)


def _sample_alias(name, target, params):
    """MXNet's _sample_<dist> / sample_<dist>: one distribution per element
    of the parameter arrays (named as the operator names them: mu / sigma,
    lam, ...), `shape` samples each, appended to the parameters' shape."""
    def sample(*args, shape=None, dtype=None, out=None, **kwargs):
        values = list(args[:len(params)])
        for p in params[len(values):]:
            if p not in kwargs:
                raise TypeError("%s: parameter '%s' is missing" % (name, p))
            values.append(kwargs.pop(p))
        kwargs.pop("name", None)
        if kwargs:
            raise TypeError("%s: unexpected arguments %s" % (name, ", ".join(kwargs)))
        return getattr(_random(), target)(*values, shape=shape, dtype=dtype, out=out)
    sample.__name__ = name
    sample.__doc__ = "mx.nd.%s: MXNet's sampler with one distribution per element of %s." % (
        name, ", ".join(params))
    return sample


for _dist, _target, _params in (
        ("uniform", "uniform", ("low", "high")), ("normal", "normal", ("mu", "sigma")),
        ("exponential", "exponential_lam", ("lam",)), ("gamma", "gamma", ("alpha", "beta")),
        ("poisson", "poisson", ("lam",)), ("negative_binomial", "negative_binomial", ("k", "p")),
        ("generalized_negative_binomial", "generalized_negative_binomial", ("mu", "alpha"))):
    for _alias in ("sample_" + _dist, "_sample_" + _dist):
        if _alias not in globals():
            globals()[_alias] = _sample_alias(_alias, _target, _params)


# -- optimizer updates: compiled, fused kernels pushed on the engine -------------
#
# MXNet's sgd_update / sgd_mom_update / adam_update. Each is a small graph of
# elementwise operators (mx-fuse-elementwise makes it one kernel), compiled
# once per (update, shape, dtype, hyper-parameters) with the learning rate an
# input (a schedule does not recompile), pushed on the engine like any
# operator, then engine copies write the new weight (into `out`) and states in
# place: the weight and the states are written variables. The arithmetic is
# the numpy code's, operation for operation (optimizer.py), so both give the
# same float32 results.

class _UpdateGraph:
    """A tiny MXNet graph builder: variables, operators, heads."""

    def __init__(self):
        self.nodes = []

    def var(self, name):
        self.nodes.append({"op": "null", "name": name, "inputs": []})
        return len(self.nodes) - 1

    def op(self, op, *inputs, **attrs):
        node = {"op": op, "name": "%s%d" % (op.strip("_").lower(), len(self.nodes)),
                "inputs": [[i, 0, 0] for i in inputs]}
        if attrs:
            node["attrs"] = {k: repr(float(v)) if isinstance(v, float) else str(v)
                             for k, v in attrs.items()}
        self.nodes.append(node)
        return len(self.nodes) - 1

    def json(self, heads):
        import json
        return json.dumps({"nodes": self.nodes,
                           "arg_nodes": [i for i, n in enumerate(self.nodes) if n["op"] == "null"],
                           "heads": [[h, 0, 0] for h in heads],
                           "attrs": {"mxnet_version": ["int", 10901]}})


_update_cache = {}


def _rescaled_grad(G, grad, rescale_grad, clip_gradient, plus=None):
    g = G.op("_mul_scalar", grad, scalar=float(rescale_grad))
    if plus is not None:
        g = G.op("elemwise_add", g, plus)
    if clip_gradient is not None and clip_gradient >= 0:
        g = G.op("clip", g, a_min=-float(clip_gradient), a_max=float(clip_gradient))
    return g


# The inputs each update's heads replace, in head order (None: a new array,
# the head is not written over an input).
_UPDATE_WRITES = {"sgd": ["weight"], "sgd_mom": ["weight", "mom"],
                  "adam": ["weight", "mean", "var"],
                  # (_update_ops' formulas, operation for operation)
                  "signsgd": ["weight"], "signum": ["weight", "mom"],
                  "nag_mom": ["weight", "mom"], "rmsprop": ["weight", "n"],
                  "rmspropalex": ["weight", "n", "g", "delta"], "ftrl": ["weight", "z", "n"],
                  "ftml": ["weight", "d", "v", "z"],
                  # (optimizer.py's numpy rules of MXNet's Python optimizers)
                  "adagrad": ["weight", "history"], "adadelta": ["weight", "acc_g", "acc_delta"],
                  "adamax": ["weight", "m", "u"], "nadam": ["weight", "m", "v"],
                  "dcasgd": ["weight", "prev"], "dcasgd_mom": ["weight", "mom", "prev"],
                  # (the updates whose step has a reduction: the norms come
                  # in as arrays, computed on the device by mx.nd.norm; GroupAdaGrad's
                  # row means are its graph's)
                  "lamb_phase1": [None, "mean", "var"], "lamb_phase1_nbc": [None, "mean", "var"],
                  "lamb_phase2": ["weight"], "lars": ["weight"], "lars_mom": ["weight", "mom"],
                  "group_adagrad": ["weight", "history"], "sgld": ["weight"]}

# The updates without a learning rate (no `lr` input).
_UPDATE_NO_LR = {"adadelta", "ftml", "lamb_phase1", "lamb_phase1_nbc"}  # (ftml: in c_d)

# The per-step scalars an update reads as inputs besides lr (broadcast like
# it: a new value does not recompile), in order.
_UPDATE_SCALARS = {"ftml": ["c_d", "c_v"],
                   "nadam": ["c_g", "c_m", "c_v", "c_gm", "c_mm"],
                   "lamb_phase1": ["c_m", "c_v"], "lars_mom": ["momentum"]}

# Inputs of another dtype than the weight's: (kind, name) -> dtype.
# LAMB's bias-corrected mean is computed in double (as MXNet's kernel), the
# LARS norms in float32 (as MXNet's multi_sum_sq).
_UPDATE_DTYPES = {("lamb_phase1", "c_m"): np.dtype(np.float64),
                  **{(kind, n): np.dtype(np.float32) for kind in ("lars", "lars_mom")
                     for n in ("w_norm", "g_norm")}}

# Array inputs shaped as the learning rate (broadcast against the weight).
_UPDATE_BROADCAST = {"lamb_phase2": {"r1", "r2"}, "lars": {"w_norm", "g_norm"},
                     "lars_mom": {"w_norm", "g_norm"}}


def _build_update(kind, p, dt=np.dtype(np.float32)):
    """The update's graph (JSON): heads as _UPDATE_WRITES[kind] lists them.
    Constants the numpy code computes from hyper-parameters (1 - gamma1,
    ...) are computed the same way, in the weight's dtype `dt`."""
    G = _UpdateGraph()
    w, grad = G.var("weight"), G.var("grad")
    lr = None if kind in _UPDATE_NO_LR else G.var("lr")
    t = np.dtype(dt).type

    def k(v):  # a constant as the numpy code has it (in the dtype)
        return float(t(v))

    def scaled(x, c):
        return G.op("_mul_scalar", x, scalar=k(c))

    def clip(x, bound):
        if bound is not None and bound >= 0:
            x = G.op("clip", x, a_min=-float(bound), a_max=float(bound))
        return x

    def lr_times(x):  # t(lr) * x, the learning rate an input
        return G.op("broadcast_mul", lr, x)

    def rescaled(wd=False):  # clip(g * rescale_grad (+ wd * w), clip_gradient)
        return _rescaled_grad(G, grad, p["rescale_grad"], p["clip_gradient"],
                              plus=scaled(w, p["wd"]) if wd else None)

    def add(a, b):
        return G.op("elemwise_add", a, b)

    def sub(a, b):
        return G.op("elemwise_sub", a, b)

    def mul(a, b):
        return G.op("elemwise_mul", a, b)

    def div(a, b):
        return G.op("elemwise_div", a, b)

    if kind == "ftml":
        # c_d = (1 - beta1^t) / lr and c_v = 1 - beta2^t, in the dtype
        d, v, z = G.var("d"), G.var("v"), G.var("z")
        c_d, c_v = G.var("c_d"), G.var("c_v")
        gi = rescaled(wd=True)
        b1, b2 = t(p["beta1"]), t(p["beta2"])
        v = add(scaled(v, b2), mul(scaled(gi, t(1) - b2), gi))
        d_t = G.op("broadcast_mul", c_d, G.op("_plus_scalar", G.op("sqrt", G.op(
            "broadcast_div", v, c_v)), scalar=k(p["epsilon"])))
        z = sub(add(scaled(z, b1), scaled(gi, t(1) - b1)), mul(sub(d_t, scaled(d, b1)), w))
        return G.json([div(G.op("negative", z), d_t), d_t, v, z])
    if kind == "adagrad":  # (lr: -lr)
        history = G.var("history")
        g = rescaled()
        history = add(history, mul(g, g))
        q = div(g, G.op("sqrt", G.op("_plus_scalar", history, scalar=k(p["eps"]))))
        return G.json([add(w, G.op("broadcast_mul", add(q, scaled(w, p["wd"])), lr)), history])
    if kind == "adadelta":  # (no learning rate)
        acc_g, acc_delta = G.var("acc_g"), G.var("acc_delta")
        g = rescaled()
        rho = t(p["rho"])
        acc_g = add(scaled(acc_g, rho), mul(scaled(g, t(1) - rho), g))
        eps = k(p["epsilon"])
        delta = mul(div(G.op("sqrt", G.op("_plus_scalar", acc_delta, scalar=eps)),
                        G.op("sqrt", G.op("_plus_scalar", acc_g, scalar=eps))), g)
        acc_delta = add(scaled(acc_delta, rho), mul(scaled(delta, t(1) - rho), delta))
        return G.json([sub(w, add(delta, scaled(w, p["wd"]))), acc_g, acc_delta])
    if kind == "adamax":  # (lr: lr / (1 - beta1^t))
        m, u = G.var("m"), G.var("u")
        g = rescaled(wd=True)
        m = add(scaled(m, p["beta1"]), scaled(g, 1.0 - p["beta1"]))
        u = G.op("broadcast_maximum", scaled(u, p["beta2"]), G.op("abs", g))
        return G.json([sub(w, div(lr_times(m), u)), m, u])
    if kind == "nadam":
        # c_g = 1 - m_schedule, c_m = 1 - m_schedule_next, c_v = 1 - beta2^t,
        # c_gm = 1 - momentum_t, c_mm = momentum_t_1, in the dtype
        m, v = G.var("m"), G.var("v")
        c_g, c_m, c_v, c_gm, c_mm = (G.var(n) for n in _UPDATE_SCALARS["nadam"])
        g = rescaled(wd=True)
        m = add(scaled(m, p["beta1"]), scaled(g, 1.0 - p["beta1"]))
        v = add(scaled(v, p["beta2"]), mul(scaled(g, 1.0 - p["beta2"]), g))
        m_bar = add(G.op("broadcast_mul", c_gm, G.op("broadcast_div", g, c_g)),
                    G.op("broadcast_mul", c_mm, G.op("broadcast_div", m, c_m)))
        den = G.op("_plus_scalar", G.op("sqrt", G.op("broadcast_div", v, c_v)),
                   scalar=k(p["epsilon"]))
        return G.json([sub(w, div(lr_times(m_bar), den)), m, v])
    if kind in ("lamb_phase1", "lamb_phase1_nbc"):  # (_update_ops.lamb_phase1)
        mean, var = G.var("mean"), G.var("var")
        g = rescaled()
        b1, b2 = t(p["beta1"]), t(p["beta2"])
        mean = add(scaled(mean, b1), scaled(g, t(1) - b1))
        var = add(scaled(var, b2), mul(scaled(g, t(1) - b2), g))
        m, v = mean, var
        if kind == "lamb_phase1":
            # c_m = 1 - beta1^t in double (mean / c_m in double, then the
            # dtype), c_v = 1 - beta2^t in the dtype
            c_m, c_v = G.var("c_m"), G.var("c_v")
            m = G.op("Cast", G.op("broadcast_div", G.op("Cast", mean, dtype="float64"), c_m),
                     dtype=dtype_name(dt))
            v = G.op("broadcast_div", var, c_v)
        r = add(div(m, G.op("_plus_scalar", G.op("sqrt", v), scalar=k(p["epsilon"]))),
                scaled(w, p["wd"]))
        return G.json([r, mean, var])
    if kind == "lamb_phase2":  # weight - lr * (r1 / r2, 1 where either is 0) * g
        r1, r2 = G.var("r1"), G.var("r2")  # (grad: phase 1's result)
        if p["lower_bound"] >= 0:
            r1 = G.op("_maximum_scalar", r1, scalar=k(p["lower_bound"]))
        if p["upper_bound"] >= 0:
            r1 = G.op("_minimum_scalar", r1, scalar=k(p["upper_bound"]))
        both = mul(G.op("_not_equal_scalar", r1, scalar=0.0),
                   G.op("_not_equal_scalar", r2, scalar=0.0))
        ratio = G.op("where", both, div(r1, r2), G.op("ones_like", r1))
        return G.json([sub(w, G.op("broadcast_mul", lr_times(ratio), grad))])
    if kind in ("lars", "lars_mom"):
        # lr scaled by the trust ratio eta ||w|| / (rescale_grad ||g|| + wd ||w||
        # + eps) in float32 where both norms are positive (not for p["trust"]
        # False: gamma / beta / bias), then SGD: step = momentum * mom - lr *
        # wd * w - lr * g; weight + step
        if p["trust"]:
            f32 = np.dtype(np.float32)
            wn, gn = G.var("w_norm"), G.var("g_norm")
            gn = G.op("_mul_scalar", gn, scalar=float(f32.type(p["rescale_grad"])))
            lr32 = lr if dt == f32 else G.op("Cast", lr, dtype="float32")
            den = G.op("_plus_scalar", add(gn, G.op("_mul_scalar", wn, scalar=float(
                f32.type(p["wd"])))), scalar=float(f32.type(p["eps"])))
            trust = div(mul(G.op("_mul_scalar", lr32, scalar=float(f32.type(p["eta"]))), wn),
                        den)
            both = mul(G.op("_greater_scalar", wn, scalar=0.0),
                       G.op("_greater_scalar", gn, scalar=0.0))
            if dt != f32:  # (the float32 trust lr in the dtype; lr itself else)
                trust = G.op("Cast", trust, dtype=dtype_name(dt))
                both = G.op("Cast", both, dtype=dtype_name(dt))
            lr = G.op("where", both, trust, lr)
        gr = rescaled()
        decay = G.op("broadcast_mul", scaled(lr, p["wd"]), w)
        first = G.op("negative", decay) if kind == "lars" else \
            sub(G.op("broadcast_mul", G.var("momentum"), G.var("mom")), decay)
        step = sub(first, G.op("broadcast_mul", lr, gr))
        return G.json([add(w, step)] + ([step] if kind == "lars_mom" else []))
    if kind == "group_adagrad":  # (2-D weight, history (rows, 1))
        history = G.var("history")
        g = rescaled()
        history = G.op("broadcast_add", history,
                       G.op("mean", mul(g, g), axis="1", keepdims="True"))
        den = G.op("sqrt", G.op("_plus_scalar", history, scalar=k(p["eps"])))
        return G.json([sub(w, G.op("broadcast_div", lr_times(g), den)), history])
    if kind == "sgld":  # (lr: -lr / 2) weight + lr * (g + wd * weight), then + noise
        g = rescaled()
        return G.json([add(add(w, lr_times(add(g, scaled(w, p["wd"])))), G.var("noise"))])
    if kind in ("dcasgd", "dcasgd_mom"):  # (lr: -lr)
        prev = G.var("prev")
        g = rescaled()
        inner = add(add(g, scaled(w, p["wd"])),
                    mul(mul(scaled(g, p["lamda"]), g), sub(w, prev)))
        step = lr_times(inner)
        heads = []
        if kind == "dcasgd_mom":
            step = add(scaled(G.var("mom"), p["momentum"]), step)
            heads = [step]
        return G.json([add(w, step)] + heads + [G.op("_copy", w)])

    if kind == "signsgd":
        # (1 - lr * wd) * w - lr * sign(g); rescale_grad / clip_gradient unused
        decay = G.op("_rminus_scalar", scaled(lr, p["wd"]), scalar=1.0)
        return G.json([sub(G.op("broadcast_mul", decay, w), lr_times(G.op("sign", grad)))])
    if kind == "signum":
        mom = G.var("mom")
        gr = rescaled()
        mo = t(p["momentum"])
        m = sub(scaled(mom, mo), scaled(w, (t(1) - mo) * t(p["wd"])))
        m = sub(m, scaled(gr, t(1) - mo))
        decay = G.op("_rminus_scalar", scaled(lr, p["wd_lh"]), scalar=1.0)
        return G.json([add(G.op("broadcast_mul", decay, w), lr_times(G.op("sign", m))), m])
    if kind == "nag_mom":
        mom = G.var("mom")
        gr = rescaled()
        m1 = scaled(mom, p["momentum"])
        step = lr_times(add(gr, scaled(w, p["wd"])))
        new = add(sub(w, m1), scaled(sub(m1, step), p["momentum"] + 1))
        # (out = weight: the decay term reads the new weight, as MXNet's)
        decayed = new if p["inplace"] else w
        m2 = sub(m1, lr_times(add(gr, scaled(decayed, p["wd"]))))
        return G.json([new, m2])
    if kind == "rmsprop":
        n = G.var("n")
        gr = rescaled(wd=True)
        n = add(scaled(mul(gr, gr), t(1) - t(p["gamma1"])), scaled(n, p["gamma1"]))
        upd = div(gr, G.op("sqrt", G.op("_plus_scalar", n, scalar=k(p["epsilon"]))))
        return G.json([clip(sub(w, lr_times(upd)), p["clip_weights"]), n])
    if kind == "rmspropalex":
        n, gs, delta = G.var("n"), G.var("g"), G.var("delta")
        gr = rescaled(wd=True)
        g1 = t(p["gamma1"])
        n = add(mul(scaled(gr, t(1) - g1), gr), scaled(n, g1))
        gs = add(scaled(gr, t(1) - g1), scaled(gs, g1))
        denom = G.op("sqrt", G.op("_plus_scalar", sub(n, mul(gs, gs)), scalar=k(p["epsilon"])))
        delta = sub(scaled(delta, p["gamma2"]), div(lr_times(gr), denom))
        return G.json([clip(add(w, delta), p["clip_weights"]), n, gs, delta])
    if kind == "ftrl":
        z, n = G.var("z"), G.var("n")
        gr = rescaled()
        gg = mul(gr, gr)
        sq = sub(G.op("sqrt", add(n, gg)), G.op("sqrt", n))
        z = add(z, sub(gr, G.op("broadcast_div", mul(sq, w), lr)))
        n = add(n, gg)
        num = sub(scaled(G.op("sign", z), p["lamda1"]), z)
        den = G.op("_plus_scalar", G.op("broadcast_div", G.op("_plus_scalar", G.op("sqrt", n),
                                                               scalar=k(p["beta"])), lr),
                   scalar=k(p["wd"]))
        keep = G.op("_greater_scalar", G.op("abs", z), scalar=k(p["lamda1"]))
        return G.json([mul(div(num, den), keep), z, n])
    if kind == "sgd":
        g = _rescaled_grad(G, grad, p["rescale_grad"], p["clip_gradient"])
        step = G.op("broadcast_mul", lr, G.op("elemwise_add", g, G.op("_mul_scalar", w, scalar=p["wd"])))
        return G.json([G.op("elemwise_sub", w, step)])
    if kind == "sgd_mom":
        mom = G.var("mom")
        g = _rescaled_grad(G, grad, p["rescale_grad"], p["clip_gradient"])
        m = G.op("_mul_scalar", mom, scalar=p["momentum"])
        tmp = G.op("elemwise_add", g, G.op("_mul_scalar", w, scalar=p["wd"]))
        m = G.op("elemwise_sub", m, G.op("broadcast_mul", lr, tmp))
        return G.json([G.op("elemwise_add", w, m), m])
    if kind == "adam":
        mean, var = G.var("mean"), G.var("var")
        g = _rescaled_grad(G, grad, p["rescale_grad"], p["clip_gradient"],
                           plus=G.op("_mul_scalar", w, scalar=p["wd"]))
        mean = G.op("elemwise_add", G.op("_mul_scalar", mean, scalar=p["beta1"]),
                    G.op("_mul_scalar", g, scalar=1.0 - p["beta1"]))
        var = G.op("elemwise_add", G.op("_mul_scalar", var, scalar=p["beta2"]),
                   G.op("elemwise_mul", G.op("_mul_scalar", g, scalar=1.0 - p["beta2"]), g))
        step = G.op("elemwise_div", G.op("broadcast_mul", lr, mean),
                    G.op("_plus_scalar", G.op("sqrt", var), scalar=p["epsilon"]))
        return G.json([G.op("elemwise_sub", w, step), mean, var])
    raise MXNetError("unknown update %s" % kind)


def _compiled_update(kind, arrays, params, lr_shape, in_place):
    """The compiled update graph (cached); None for an in-place compile
    whose plan has more than one step (a head could be written before the
    input it replaces is last read)."""
    weight = arrays["weight"]
    dt = weight._sig[1]
    # (on a GPU: compiled for it; every array must be on the weight's device)
    cuda_arch = _cuda_arch(weight._ctx) if weight._on_gpu() else ""
    for name, a in arrays.items():
        if a._ctx != weight._ctx:
            raise MXNetError("%s_update: %s is on %s, the weight on %s"
                             % (kind, name, a._ctx, weight._ctx))
    key = (kind, weight.shape, dt.str,
           (tuple(sorted(params.items())), tuple(sorted((n, a.shape) for n, a in arrays.items()))),
           cuda_arch, in_place)
    if key not in _update_cache:
        text = _build_update(kind, params, dt)
        shapes = {n: list(a.shape) for n, a in arrays.items()}
        dtypes = {n: dtype_name(a._sig[1]) for n, a in arrays.items()}
        for n in ([] if kind in _UPDATE_NO_LR else ["lr"]) + _UPDATE_SCALARS.get(kind, []):
            shapes[n] = lr_shape
            dtypes[n] = dtype_name(_UPDATE_DTYPES.get((kind, n), dt))
        options = {}
        if in_place:
            options["in_place"] = ["%d=%s" % (j, n)
                                   for j, n in enumerate(_UPDATE_WRITES[kind]) if n]
        if cuda_arch:
            options["cuda_arch"] = cuda_arch
        compiled = compile_graph(text, shapes, dtypes, "%s_update" % kind, **options)
        _update_cache[key] = compiled if not in_place or compiled.num_steps == 1 else None
    return _update_cache[key]


def _push_update(kind, arrays, lr, params, out, scalars=None):
    """Pushes update `kind` on runtime arrays {name: NDArray}; `out` gets the
    new weight (None: a new array, the weight left as it is, as MXNet's), the
    states are updated in place; `scalars`, the values of the update's
    _UPDATE_SCALARS. Returns out."""
    weight = arrays["weight"]
    lr_shape = [1] * len(weight.shape)  # broadcast against the weight (0-d: 0-d)
    for name, a in arrays.items():
        if not isinstance(a, NDArray):
            raise MXNetError("%s_update: %s must be an NDArray" % (kind, name))
        want = tuple(lr_shape) if name in _UPDATE_BROADCAST.get(kind, ()) else \
            (weight.shape[0], 1) if (kind, name) == ("group_adagrad", "history") else \
            weight.shape
        if a.shape != want:
            raise MXNetError("%s_update: %s has shape %s, the weight %s"
                             % (kind, name, a.shape, weight.shape))
    dt = weight._sig[1]
    written = _UPDATE_WRITES[kind]
    if out is None:
        out = _new_rt(weight.shape, dt, weight._ctx)
    # The graph's heads, in order: the new weight (or the result of a head
    # written over no input), then the new states.
    targets = [out] + [arrays[n] for n in written[1:]]
    # In place (MXNet's way, out=weight): the kernel writes each head over
    # the input it replaces, through one pointer (PipelineOptions::inPlace),
    # when every array is a distinct runtime array and the head's target is
    # its input's; else the heads go to new arrays and engine copies move
    # them (an `out` of its own, numpy-backed arrays).
    rts = [a._rt for a in arrays.values()]
    in_place = all(r is not None for r in rts) and \
        len(set(map(id, rts))) == len(rts) and \
        all(t._rt is arrays[n]._rt if n else t._rt is not None and
            all(t._rt is not r for r in rts) for t, n in zip(targets, written))
    compiled = _compiled_update(kind, arrays, params, lr_shape, in_place)
    if compiled is None:  # the in-place compile did not come out as one step
        in_place = False
        compiled = _compiled_update(kind, arrays, params, lr_shape, False)
    feeds = dict(arrays)
    if kind not in _UPDATE_NO_LR:
        feeds["lr"] = _new(np.full(lr_shape, lr, dtype=dt), weight._ctx)
    for n in _UPDATE_SCALARS.get(kind, []):
        feeds[n] = _new(np.full(lr_shape, scalars[n], dtype=_UPDATE_DTYPES.get((kind, n), dt)),
                        weight._ctx)
    if in_place:
        compiled.push([feeds[name]._rt for name, _, _, _ in compiled.inputs],
                      [t._rt for t in targets])
        return targets[0]
    results = [_new_rt(shape, np_dtype(d), weight._ctx) for _, _, shape, d in compiled.outputs]
    if all(a._rt is not None for a in feeds.values()) and \
            (out is None or out._rt is not None):
        compiled.push([feeds[name]._rt for name, _, _, _ in compiled.inputs],
                      [r._rt for r in results])
    else:  # numpy-backed arrays: run now
        compiled.run([np.ascontiguousarray(feeds[name]._data) for name, _, _, _ in compiled.inputs],
                     [r._data for r in results])
    for r, t in zip(results, targets):
        if not _engine_copy(r, t):
            np.copyto(t._data, r._data)
    return targets[0]


def sgd_update(weight, grad, lr, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0,
               lazy_update=True, out=None, name=None):
    """MXNet's sgd_update: out = weight - lr * (clip(rescale_grad * grad) + wd * weight)."""
    return _push_update("sgd", {"weight": weight, "grad": grad}, lr,
                        {"wd": float(wd), "rescale_grad": float(rescale_grad),
                         "clip_gradient": float(clip_gradient)}, out)


def sgd_mom_update(weight, grad, mom, lr, momentum=0.0, wd=0.0, rescale_grad=1.0,
                   clip_gradient=-1.0, lazy_update=True, out=None, name=None):
    """MXNet's sgd_mom_update: mom = momentum * mom - lr * (clip(rescale_grad *
    grad) + wd * weight) (in place); out = weight + mom."""
    return _push_update("sgd_mom", {"weight": weight, "grad": grad, "mom": mom}, lr,
                        {"momentum": float(momentum), "wd": float(wd),
                         "rescale_grad": float(rescale_grad),
                         "clip_gradient": float(clip_gradient)}, out)


def adam_update(weight, grad, mean, var, lr, beta1=0.9, beta2=0.999, epsilon=1e-8,
                wd=0.0, rescale_grad=1.0, clip_gradient=-1.0, lazy_update=True, out=None,
                name=None):
    """MXNet's adam_update (lr without bias correction, as MXNet's operator):
    g = clip(rescale_grad * grad + wd * weight); mean, var updated in place;
    out = weight - lr * mean / (sqrt(var) + epsilon)."""
    return _push_update("adam", {"weight": weight, "grad": grad, "mean": mean, "var": var}, lr,
                        {"beta1": float(beta1), "beta2": float(beta2),
                         "epsilon": float(epsilon), "wd": float(wd),
                         "rescale_grad": float(rescale_grad),
                         "clip_gradient": float(clip_gradient)}, out)


NDArray.split = lambda self, *args, **kwargs: split(self, *args, **kwargs)
NDArray.norm = lambda self, *args, **kwargs: norm(self, *args, **kwargs)


def _add_update_ops():
    from . import _update_ops
    for fname, function in _update_ops.FUNCTIONS.items():
        if fname not in globals():
            globals()[fname] = function


_add_update_ops()


# linspace, eye, moveaxis, slice / crop, ... (composed; see _nd_more.py)
from . import _nd_more as _nd_more  # noqa: E402
_nd_more.install()
