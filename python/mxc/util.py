"""MXNet's mx.util: the NumPy-shape switch (set_np_shape, is_np_shape,
np_shape, use_np_shape), getenv / setenv and the GPU queries.

What NumPy-shape semantics change in mxc: Gluon's Parameter.shape shows an
unknown dimension as -1 instead of 0 and takes -1 for one (Dense(16) before
its first forward: (16, -1)), and gluon.utils.shape_is_known reads -1 as
unknown and () as known. mxc's arrays always allow zero-size and zero-dim shapes (MXNet's
legacy mode rejects them at shape inference), so nothing else changes. The
flag is per thread, as MXNet's.

NumPy array semantics (mx.np, set_np(array=True), use_np) are not in mxc."""
import functools
import inspect
import os
import threading

from .base import MXNetError

_state = threading.local()


def set_np_shape(active):
    """Turns NumPy shape semantics on or off for this thread; returns the
    previous state."""
    prev = is_np_shape()
    _state.np_shape = bool(active)
    return prev


def is_np_shape():
    """Whether NumPy shape semantics are on in this thread (default off)."""
    return getattr(_state, "np_shape", False)


class _NumpyShapeScope:
    def __init__(self, active):
        self._enter = active
        self._prev = None

    def __enter__(self):
        if self._enter is not None:
            self._prev = set_np_shape(self._enter)
        return self

    def __exit__(self, *exc):
        if self._enter is not None and self._prev != self._enter:
            set_np_shape(self._prev)


def np_shape(active=True):
    """A scope (with-statement) with NumPy shape semantics on or off."""
    return _NumpyShapeScope(active)


def use_np_shape(func):
    """Runs a function, or every method, static function and property of a
    class, with NumPy shape semantics on."""
    if inspect.isclass(func):
        for name, method in inspect.getmembers(
                func, predicate=lambda f: inspect.isfunction(f) or inspect.ismethod(f)
                or isinstance(f, property)):
            if isinstance(method, property):
                setattr(func, name, property(use_np_shape(method.__get__), method.__set__,
                                             method.__delattr__, method.__doc__))
            else:
                setattr(func, name, use_np_shape(method))
        return func
    if callable(func):
        @functools.wraps(func)
        def _with_np_shape(*args, **kwargs):
            with np_shape(active=True):
                return func(*args, **kwargs)
        return _with_np_shape
    raise TypeError("use_np_shape can only decorate classes and callable objects, "
                    "while received a {}".format(str(type(func))))


def is_np_array():
    """NumPy array semantics (mx.np): never on in mxc."""
    return False


def _no_np_array(what):
    raise MXNetError("%s: NumPy array semantics (mx.np) are not in mxc; NumPy shape "
                     "semantics are (mx.np_shape)" % what)


def np_array(active=True):
    """Only active=False (the state mxc is always in) is accepted."""
    if active:
        _no_np_array("np_array(True)")
    return _NumpyShapeScope(None)


def use_np_array(func):
    _no_np_array("use_np_array")


def use_np(func):
    _no_np_array("use_np")


def set_np(shape=True, array=True):
    """set_np(shape, array=False) sets NumPy shape semantics; array=True is
    an error (mx.np is not in mxc)."""
    if array:
        _no_np_array("set_np(array=True)")
    set_np_shape(shape)


def reset_np():
    """NumPy shape semantics off."""
    set_np_shape(False)


def getenv(name):
    """The value of an environment variable, or None."""
    return os.environ.get(name)


def setenv(name, value):
    """Sets (None: removes) an environment variable."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = str(value)


def get_gpu_count():
    from .context import num_gpus
    return num_gpus()


def unknown_dim():
    """How an unknown dimension is written now: -1 with NumPy shape
    semantics, else 0."""
    return -1 if is_np_shape() else 0
