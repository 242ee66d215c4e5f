"""gluon.utils: split_data, split_and_load, clip_global_norm, check_sha1;
and the static-shape helper the traced layers use."""
import hashlib
import math
import threading

import numpy as np

from ..base import MXNetError
from .. import ndarray as nd
from ..ndarray import NDArray

_trace = threading.local()


class _ValueError(MXNetError, ValueError):
    """An MXNetError that is also the ValueError MXNet raises."""


def _indent(s_, num_spaces):
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    return "\n".join([first] + [(num_spaces * " ") + line for line in s])


class _TraceShapes:
    """While a hybridized block is traced: the shapes of its inputs, so that
    hybrid_forward code that needs a static shape (the nn layers that
    reshape by their input's extents) can ask for it with _shape_of."""

    def __init__(self, shapes):
        self.shapes = shapes
        self.used = False
        self._old = None

    def __enter__(self):
        self._old = getattr(_trace, "value", None)
        _trace.value = self
        return self

    def __exit__(self, *exc):
        _trace.value = self._old


def _shape_of(F, x):
    """x.shape for an NDArray; for a Symbol, its shape inferred from the
    shapes of the inputs of the block being traced (the traced graph is then
    specialised to those shapes and retraced for new ones)."""
    if isinstance(x, NDArray):
        return x.shape
    cur = getattr(_trace, "value", None)
    if cur is None:
        raise MXNetError("this layer needs the static shape of its symbolic input: call the "
                         "hybridized block on NDArrays (mxc traces it with their shapes)")
    args = {n: s for n, s in cur.shapes.items() if n in x.list_arguments()}
    _, out_shapes, _ = x.infer_shape(**args)
    if out_shapes is None:
        raise MXNetError("cannot infer the shape of %s from the inputs %s" % (x.name, cur.shapes))
    cur.used = True
    return tuple(out_shapes[0])


def split_data(data, num_slice, batch_axis=0, even_split=True):
    """Splits an NDArray into num_slice slices along batch_axis."""
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise _ValueError(
            "data with shape %s cannot be evenly split into %d slices along axis %d. Use a "
            "batch size that's multiple of %d or set even_split=False to allow uneven "
            "partitioning of data." % (str(data.shape), num_slice, batch_axis, num_slice))
    if size < num_slice:
        raise _ValueError("Too many slices for data with shape %s. Arguments are num_slice=%d "
                         "and batch_axis=%d." % (str(data.shape), num_slice, batch_axis))
    if num_slice == 1:
        return [data]
    n_each, extras = divmod(size, num_slice)
    sizes = [0] + extras * [n_each + 1] + (num_slice - extras) * [n_each]
    points = np.array(sizes).cumsum()
    a = data.asnumpy()
    return [nd.array(np.take(a, np.arange(points[i], points[i + 1]), axis=batch_axis),
                     ctx=data.context, dtype=a.dtype) for i in range(num_slice)]


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """Splits data into len(ctx_list) slices along batch_axis, each on its context."""
    if not isinstance(data, NDArray):
        data = nd.array(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [i.as_in_context(ctx) for i, ctx in zip(slices, ctx_list)]


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Rescales arrays so that the sum of their 2-norms is at most max_norm;
    returns the total norm (a float)."""
    if not arrays:
        raise MXNetError("clip_global_norm: no arrays")
    total = math.sqrt(sum(float(np.sum(np.square(a.asnumpy().astype(np.float64))))
                          for a in arrays))
    if check_isfinite and not np.isfinite(total):
        import warnings
        warnings.warn(UserWarning("nan or inf is detected. Clipping results will be undefined."),
                      stacklevel=2)
    scale = max_norm / (total + 1e-8)
    if scale < 1.0:
        for a in arrays:
            a[:] = a.asnumpy() * np.asarray(scale, a.dtype)
    return total


def check_sha1(filename, sha1_hash):
    sha1 = hashlib.sha1()
    with open(filename, "rb") as f:
        while True:
            data = f.read(1048576)
            if not data:
                break
            sha1.update(data)
    return sha1.hexdigest() == sha1_hash


def download(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
    raise MXNetError("gluon.utils.download(%s): mxc does not download files; fetch it yourself "
                     "and pass the local path" % url)


def shape_is_known(shape):
    """Whether every dimension of `shape` is known: none is 0 (MXNet's
    legacy unknown), or with NumPy shape semantics (mx.np_shape) none is -1
    and () is a known scalar shape."""
    from ..util import unknown_dim
    if shape is None:
        return False
    unknown = unknown_dim()
    if len(shape) == 0:
        return unknown == -1
    for d in shape:
        if d == unknown:
            return False
        if d < unknown:
            raise MXNetError("shape dimension size cannot be less than %d, while received %d"
                             % (unknown, d))
    return True
