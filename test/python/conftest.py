"""pytest set-up for test/python: importable helpers, a private compilation cache."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)


@pytest.fixture(scope="session", autouse=True)
def _mxc_cache_dir(tmp_path_factory):
    """Compiled graphs go to a per-session cache unless MXC_CACHE_DIR is set,
    so tests neither read stale entries from nor fill ~/.cache/mxc."""
    if os.environ.get("MXC_CACHE_DIR"):
        yield
        return
    os.environ["MXC_CACHE_DIR"] = str(tmp_path_factory.mktemp("mxc-cache"))
    yield
    del os.environ["MXC_CACHE_DIR"]


@pytest.fixture(scope="session")
def mxc_bin():
    """Path of the mxc binary; a missing binary fails the test (never skips)."""
    import mxc_testing
    return mxc_testing.mxc_binary()
