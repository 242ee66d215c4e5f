"""The harness's conftest for mxc: `import mxnet` is mxc (mxc_shim), with
MXNet 1.9.1's own test_utils.py; nose and the time limit from shim_common."""
import os

import shim_common
import mxc_shim

shim_common.install_nose()
mxc_shim.install(os.environ["MXC_HARNESS_TEST_UTILS"])


def pytest_configure(config):
    config.pluginmanager.register(shim_common.HarnessPlugin(), "mxc-harness")
