"""pytest set-up for MXNet's unit tests run against mxc: installs the import
shim (_mxc_shim.py: `import mxnet` is mxc) and a per-test time limit. run.py
copies it as conftest.py next to MXNet's test files."""
import os

import pytest

import _mxc_shim  # noqa: F401


@pytest.fixture(autouse=True)
def _per_test_time_limit():
    """A test running past MXC_SHIM_TEST_TIMEOUT seconds (default 120) fails."""
    import signal
    limit = int(os.environ.get("MXC_SHIM_TEST_TIMEOUT", "120"))

    def expired(signum, frame):
        raise TimeoutError("test ran past %d s (the shim's limit)" % limit)
    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(limit)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)
