"""The import shim (installed by conftest_shim.py, and by mxnet/__init__.py in
spawned worker processes) that runs MXNet 1.9.1's own unit tests against mxc.

`import mxnet` (and every mxnet.X) gives mxc's module (mxc.X); the
modules MXNet's tests import that mxc does not have are small stand-ins
here: mxnet.test_utils (assert_almost_equal, ...), mxnet.util, the extras
of mxnet.base, mxnet.ndarray.ndarray's storage-type table, and nose.tools.
Features mxc lacks (sparse storage, numpy mode, scipy) are modules whose
use skips the test with the reason, so that the pass rate counts only what
ran. common.py (MXNet's test helpers: with_seed, ...) is ours, in this
directory. Nothing of MXNet's is in the repository: run.py fetches the test
files from a local clone at tag 1.9.1.
"""
import importlib
import importlib.abc
import importlib.machinery
import os
import sys
import types

import numpy as np
import pytest

import mxc

_ALIASES = {}


def _stand_in(name, reason, **attrs):
    """A module whose unknown attributes skip the calling test."""
    m = types.ModuleType(name)
    m.__dict__.update(attrs)

    def __getattr__(attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        pytest.skip("%s (%s.%s)" % (reason, name, attr))
    m.__getattr__ = __getattr__
    return m


def _assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False,
                         use_broadcast=True, mismatches=(10, 10)):
    a = a.asnumpy() if hasattr(a, "asnumpy") else np.asarray(a)
    b = b.asnumpy() if hasattr(b, "asnumpy") else np.asarray(b)
    if use_broadcast:  # MXNet's compares through np.allclose, which broadcasts
        a, b = np.broadcast_arrays(a, b)
    np.testing.assert_allclose(a, b, rtol=1e-5 if rtol is None else rtol,
                               atol=1e-20 if atol is None else atol, equal_nan=equal_nan)


def _almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    a = a.asnumpy() if hasattr(a, "asnumpy") else np.asarray(a)
    b = b.asnumpy() if hasattr(b, "asnumpy") else np.asarray(b)
    return np.allclose(a, b, rtol=1e-5 if rtol is None else rtol,
                       atol=1e-20 if atol is None else atol, equal_nan=equal_nan)


class _environment:
    def __init__(self, *args):
        self._vars = args[0] if len(args) == 1 else {args[0]: args[1]}
        self._old = {}

    def __enter__(self):
        for k, v in self._vars.items():
            self._old[k] = os.environ.get(k)
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = str(v)
        return self

    def __exit__(self, *exc):
        for k, v in self._old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _use_np(func):
    def wrapped(*args, **kwargs):
        pytest.skip("numpy mode (mx.np / use_np) is not in mxc")
    wrapped.__name__ = getattr(func, "__name__", "use_np")
    return wrapped


def _rand_ndarray(shape, stype="default", density=None, dtype=None, **kwargs):
    if stype != "default":
        pytest.skip("sparse storage is not in mxc (rand_ndarray stype=%s)" % stype)
    return mxc.nd.array(np.random.uniform(-1, 1, shape), dtype=dtype or "float32")


def _rand_shape_nd(num_dim, dim=10):
    return tuple(np.random.randint(1, dim + 1, size=num_dim).tolist())


def _set_default_context(ctx):
    mxc.Context._default_ctx.value = ctx  # (MXNet's test_utils does the same)


# run.py --context gpu: the tests' default (and current) context is gpu(0),
# as MXNet's tests/python/gpu files set it for the unittest files
if os.environ.get("MXC_HARNESS_CONTEXT") == "gpu":
    _set_default_context(mxc.gpu(0))

test_utils = _stand_in(
    "mxnet.test_utils", "not in the mxc shim's test_utils",
    assert_almost_equal=_assert_almost_equal, almost_equal=_almost_equal,
    default_context=mxc.current_context, set_default_context=_set_default_context,
    same=lambda a, b: np.array_equal(np.asarray(a), np.asarray(b)),
    environment=_environment, use_np=_use_np, rand_ndarray=_rand_ndarray,
    rand_shape_nd=_rand_shape_nd, rand_shape_2d=lambda d0=10, d1=10: _rand_shape_nd(2, max(d0, d1)),
    rand_shape_3d=lambda d0=10, d1=10, d2=10: _rand_shape_nd(3, max(d0, d1, d2)),
    assert_exception=lambda f, exc, *a, **k: pytest.raises(exc, f, *a, **k))


def _py_str(x):
    return x.decode("utf-8") if isinstance(x, bytes) else x


base = _stand_in("mxnet.base", "not in mxc.base", MXNetError=mxc.MXNetError, py_str=_py_str,
                 numeric_types=(float, int, np.generic), integer_types=(int, np.integer),
                 string_types=(str,), data_dir=lambda: os.path.expanduser("~/.mxnet"),
                 mx_real_t=np.float32)
# mxc.util, except that numpy array mode skips the test (mxc.util raises)
util = _stand_in("mxnet.util", "not in mxc.util",
                 **{k: v for k, v in vars(mxc.util).items() if not k.startswith("__")})
util.use_np = _use_np
util.set_np = lambda *a, **k: pytest.skip("numpy mode is not in mxc")
nd_ndarray = _stand_in("mxnet.ndarray.ndarray", "not in mxc.ndarray",
                       _STORAGE_TYPE_STR_TO_ID={"undefined": -1, "default": 0,
                                                "row_sparse": 1, "csr": 2},
                       NDArray=mxc.nd.NDArray)
sparse = _stand_in("mxnet.ndarray.sparse", "sparse storage is not in mxc")
mx_numpy = _stand_in("mxnet.numpy", "numpy mode (mx.np) is not in mxc")
scipy_sparse = _stand_in("scipy.sparse", "scipy is not installed in the mxc venv")


def _raises(*exceptions):
    def deco(func):
        def wrapped(*args, **kwargs):
            with pytest.raises(exceptions):
                func(*args, **kwargs)
        wrapped.__name__ = func.__name__
        return wrapped
    return deco


def _make_decorator(func):
    def deco(newfunc):
        newfunc.__name__ = func.__name__
        newfunc.__doc__ = func.__doc__
        newfunc.__dict__.update(func.__dict__)
        return newfunc
    return deco


nose = types.ModuleType("nose")
nose.__path__ = []
nose_tools = types.ModuleType("nose.tools")
nose_tools.raises = _raises
nose_tools.assert_raises = lambda exc, f=None, *a, **k: \
    pytest.raises(exc) if f is None else pytest.raises(exc, f, *a, **k)
nose_tools.make_decorator = _make_decorator
nose.tools = nose_tools

_FIXED = {"mxnet.test_utils": test_utils, "mxnet.base": base, "mxnet.util": util,
          "mxnet.ndarray.ndarray": nd_ndarray, "mxnet.ndarray.sparse": sparse,
          "mxnet.numpy": mx_numpy, "nose": nose, "nose.tools": nose_tools}
try:
    import scipy.sparse  # noqa: F401
except ImportError:
    _FIXED["scipy"] = types.ModuleType("scipy")
    _FIXED["scipy"].sparse = scipy_sparse
    _FIXED["scipy.sparse"] = scipy_sparse


class _Loader(importlib.abc.Loader):
    def __init__(self, module):
        self._module = module

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        pass


class _MxnetToMxc(importlib.abc.MetaPathFinder):
    """mxnet.X -> mxc.X (the same module object)."""

    def find_spec(self, name, path=None, target=None):
        if name in _FIXED:
            return importlib.machinery.ModuleSpec(name, _Loader(_FIXED[name]))
        if name != "mxnet" and not name.startswith("mxnet."):
            return None
        real = "mxc" + name[len("mxnet"):]
        try:
            module = importlib.import_module(real)
        except ImportError:
            return None
        return importlib.machinery.ModuleSpec(name, _Loader(module))


sys.meta_path.insert(0, _MxnetToMxc())
# (mxc.ndarray is a module, not a package: its "submodules" must be in
# sys.modules before an import asks its parent for a __path__)
sys.modules.update(_FIXED)
# `import mxnet.X as Y` reads X off the parent module: the stand-ins are
# attributes of mxc's modules in this test process.
mxc.test_utils = test_utils
mxc.util = util
mxc.numpy = mx_numpy
mxc.nd.sparse = sparse
mxc.nd.ndarray = nd_ndarray
