"""The harness's conftest for MXNet 1.9.1 itself (the baseline): MXNet's own
mxnet and test_utils, with only nose and the time limit from shim_common."""
import shim_common

shim_common.install_nose()


def pytest_configure(config):
    config.pluginmanager.register(shim_common.HarnessPlugin(), "mxc-harness")
