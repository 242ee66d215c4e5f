"""The harness's conftest for mxc: `import mxnet` is mxc (mxc_shim), with
MXNet 1.9.1's own test_utils.py; nose and the time limit from shim_common.

numpy's removed aliases (np.int, np.NaN, ...) are put back for the tests
(they target numpy < 1.24; mxc's venv has numpy 2).

A test that ends in mxc's sparse-storage error (MXNetError "... sparse
storage (stype=...) is not supported by mxc ...") is reported as skipped,
"excluded: sparse storage": sparse storage is outside the conformance target
(issue 15), and mxc's answer to it is that one clear error.

With MXC_HARNESS_CONTEXT=gpu (run.py --context gpu) the default context is
mx.gpu(0).
"""
import os

import pytest

import shim_common
import mxc_shim

shim_common.install_nose()
mxc_shim.install(os.environ["MXC_HARNESS_TEST_UTILS"])

# MXNet 1.9.1's tests are written for numpy < 1.24 (the MXNet venv has 1.23.5,
# mxc's venv numpy 2): the aliases they use that numpy has since removed,
# with their old meanings, so that a test does not fail on numpy alone.
import numpy as _np  # noqa: E402
for _name, _value in (("int", int), ("float", float), ("bool", bool), ("object", object),
                      ("str", str), ("long", int), ("NaN", float("nan")), ("Inf", float("inf")),
                      ("PINF", float("inf")), ("NINF", float("-inf")), ("PZERO", 0.0),
                      ("NZERO", -0.0), ("product", _np.prod), ("cumproduct", _np.cumprod),
                      ("alltrue", _np.all), ("sometrue", _np.any), ("asscalar", lambda a: a.item()),
                      ("float_", _np.float64), ("complex_", _np.complex128),
                      ("unicode_", _np.str_), ("string_", _np.bytes_)):
    if _name not in _np.__dict__:
        setattr(_np, _name, _value)

import mxc  # noqa: E402

# run.py --context gpu: the tests' default context is gpu(0), as MXNet's
# tests/python/gpu/test_operator_gpu.py sets it for the unittest files.
if os.environ.get("MXC_HARNESS_CONTEXT") == "gpu":
    import mxnet.test_utils  # noqa: E402
    mxnet.test_utils.set_default_context(mxc.gpu(0))


def pytest_configure(config):
    config.pluginmanager.register(shim_common.HarnessPlugin(), "mxc-harness")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    exc = call.excinfo.value if call.excinfo is not None else None
    if rep.failed and isinstance(exc, mxc.MXNetError) and \
            "sparse storage" in str(exc) and "not supported by mxc" in str(exc):
        rep.outcome = "skipped"
        rep.longrepr = (str(item.path), item.location[1] or 0,
                        "excluded: sparse storage: " + str(exc).splitlines()[0][:200])
