"""Shared pieces: the error type, names, dtypes."""
import ctypes
import threading

import numpy as np

from . import _mxc

#: Raised for every error of the compiler, the graph and file readers, and
#: the API (a subclass of RuntimeError). Errors about a graph node name it:
#: "node 'fc1': ...".
MXNetError = _mxc.MXNetError


class MXNetValueError(MXNetError, ValueError):
    """An MXNetError that is also a ValueError: MXNet raises ValueError for
    these (a reshape to a different size, a non-contiguous from_numpy)."""


class MXNetAssertionError(MXNetError, AssertionError):
    """An MXNetError that is also an AssertionError: where MXNet checks with
    `assert` (summary() of a hybridized block, Trainer.update() with
    update_on_kvstore)."""

_DTYPE_NAMES = {
    np.dtype("float32"): "float32", np.dtype("float64"): "float64",
    np.dtype("float16"): "float16", np.dtype("uint8"): "uint8",
    np.dtype("int8"): "int8", np.dtype("int32"): "int32",
    np.dtype("int64"): "int64", np.dtype("bool"): "bool",
}


def dtype_name(dtype):
    """MXNet's name of a numpy dtype (or of a name / type: 'float32', np.int32)."""
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        raise MXNetError("unknown dtype %r" % (dtype,)) from e
    name = _DTYPE_NAMES.get(dt)
    if name is None:
        raise MXNetError("dtype %s is not supported (float32, float64, float16, "
                         "uint8, int8, int32, int64, bool)" % dt)
    return name


def np_dtype(name):
    """numpy dtype of an MXNet dtype name."""
    if name == "bfloat16":
        raise MXNetError("bfloat16 has no numpy dtype")
    return np.dtype(name)


class _ClassProperty:
    """A property of the class (MXNet's classproperty): `Cls.current` reads,
    `Cls.current = x` writes (through _ClassPropertyMeta)."""

    def __init__(self, fget, fset=None):
        self.fget = fget
        self.fset = fset

    def __get__(self, obj, cls=None):
        return self.fget(cls if cls is not None else type(obj))

    def setter(self, fset):
        self.fset = fset
        return self


class _ClassPropertyMeta(type):
    def __setattr__(cls, key, value):
        prop = cls.__dict__.get(key)
        if isinstance(prop, _ClassProperty):
            if prop.fset is None:
                raise MXNetError("cannot set %s.%s" % (cls.__name__, key))
            return prop.fset(cls, value)
        return super().__setattr__(key, value)


class NameManager(metaclass=_ClassPropertyMeta):
    """MXNet's automatic node names: the op's name in lower case and a
    counter per name ('fullyconnected0', '_plus1'). Usable as a context
    manager, like mx.name.NameManager. `NameManager.current` is the calling
    thread's manager, a class property that can be assigned, as MXNet's;
    calling it (`NameManager.current()`) gives the same manager."""

    _local = threading.local()

    def __init__(self):
        self._counter = {}
        self._old = None

    def get(self, name, hint):
        if name:
            return name
        n = self._counter.get(hint, 0)
        self._counter[hint] = n + 1
        return "%s%d" % (hint, n)

    def __enter__(self):
        self._old = NameManager.current
        NameManager._local.value = self
        return self

    def __exit__(self, *exc):
        NameManager._local.value = self._old

    def __call__(self):
        # NameManager.current() (a call of the current manager) is itself
        return self

    def _get_current(cls):
        cur = getattr(NameManager._local, "value", None)
        if cur is None:
            cur = NameManager()
            NameManager._local.value = cur
        return cur

    def _set_current(cls, value):
        NameManager._local.value = value

    current = _ClassProperty(_get_current, _set_current)


class Prefix(NameManager):
    """Names get `prefix` in front (mx.name.Prefix)."""

    def __init__(self, prefix):
        super().__init__()
        self._prefix = prefix

    def get(self, name, hint):
        return self._prefix + super().get(name, hint)


def compile_graph(json_text, shapes, dtypes, what, **options):
    """mxc._mxc.compile with feedback: a compile that takes more than a
    second says so on stderr ("mxc: compiling <what> ...", then the time)
    unless $MXC_QUIET is set."""
    import os
    import sys
    import time

    quiet = bool(os.environ.get("MXC_QUIET"))
    timer = None
    if not quiet:
        timer = threading.Timer(1.0, lambda: print(
            "mxc: compiling %s ..." % what, file=sys.stderr, flush=True))
        timer.daemon = True
        timer.start()
    start = time.perf_counter()
    try:
        compiled = _mxc.compile(json_text, shapes, dtypes, **options)
    finally:
        if timer is not None:
            timer.cancel()
    elapsed = time.perf_counter() - start
    if not quiet and elapsed > 1.0:
        print("mxc: compiled %s in %.1f s" % (what, elapsed), file=sys.stderr, flush=True)
    return compiled


class atomic_path:
    """Writes a file atomically: `with atomic_path(fname) as tmp:` write
    `tmp` (a new file in fname's directory); on success it is flushed to disk
    and renamed over fname, so a crash while writing leaves the previous
    fname intact; on an error it is removed."""

    def __init__(self, fname):
        import os
        self.fname = os.fspath(fname)
        d = os.path.dirname(os.path.abspath(self.fname))
        self.tmp = os.path.join(d, ".%s.tmp-%d-%d" % (os.path.basename(self.fname), os.getpid(),
                                                      threading.get_ident()))

    def __enter__(self):
        return self.tmp

    def __exit__(self, etype, value, tb):
        import os
        if etype is not None:
            try:
                os.unlink(self.tmp)
            except OSError:
                pass
            return False
        fd = os.open(self.tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(self.tmp, self.fname)
        return False


def atomic_write_bytes(fname, data, mode="wb"):
    """fname's new content, written atomically (atomic_path)."""
    with atomic_path(fname) as tmp:
        with open(tmp, mode) as f:
            f.write(data)


# -- MXNet 1.x's plain-Python helpers of mxnet.base (scripts import them) ------------

string_types = (str,)

#: MXNet's C handle type of an NDArray (mxc's NDArray.handle gives one)
NDArrayHandle = ctypes.c_void_p
numeric_types = (float, int, np.generic)
integer_types = (int, np.int32, np.int64)
mx_real_t = np.float32


class DynamicShapeError(MXNetError):
    """An operator a static graph cannot have met in a graph: one whose
    output shape depends on its input values (boolean_mask), control flow,
    a Python custom operator (CustomOpInGraphError). A hybridized Gluon
    block that meets one runs imperatively instead."""


class CustomOpInGraphError(DynamicShapeError):
    """A Python custom operator in a graph that would be compiled whole (a
    hybridized Gluon block's), which cannot call back into Python: the
    block runs imperatively (mx.nd.Custom runs the operator)."""


class NotImplementedForSymbol(MXNetError):
    """An NDArray-only function called on a Symbol (MXNet's error type)."""

    def __init__(self, function, alias, *args):
        super().__init__()
        self.function = function.__name__
        self.alias = alias
        self.args = [str(type(a)) for a in args]

    def __str__(self):
        msg = "Function {}".format(self.function)
        if self.alias:
            msg += " (namely operator \"{}\")".format(self.alias)
        if self.args:
            msg += " with arguments ({})".format(", ".join(self.args))
        msg += " is not implemented for Symbol and only available in NDArray."
        return msg


def py_str(x):
    """bytes -> str (MXNet's C strings)."""
    return x.decode("utf-8") if isinstance(x, bytes) else x


def _as_list(obj):
    """A list or tuple as it is, anything else as [obj]."""
    if isinstance(obj, (list, tuple)):
        return obj
    return [obj]


def data_dir_default():
    """MXNet's default data directory, ~/.mxnet."""
    import os
    return os.path.join(os.path.expanduser("~"), ".mxnet")


def data_dir():
    """$MXNET_HOME, else ~/.mxnet."""
    import os
    return os.getenv("MXNET_HOME", data_dir_default())
