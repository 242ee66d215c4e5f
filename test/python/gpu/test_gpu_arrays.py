"""NDArrays and imperative operators on mx.gpu(0), on the CUDA host driver double.

host_driver_checks.py runs once, in a process of its own whose runtime loads
<build>/lib/libmxc-cuda-host-driver.so as its CUDA driver (one "GPU" over host
memory, no kernels: runtime/test/cuda_host_driver.cc); each of its checks is
one test here. What the double cannot show -- GPU numerics and speed -- is
scripts/gpu-check.sh's, on a lent GPU.
"""
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
BUILD = os.environ.get("MXC_BUILD_DIR") or os.path.join(ROOT, "build")
DOUBLE = os.path.join(BUILD, "lib", "libmxc-cuda-host-driver.so")
SCRIPT = os.path.join(HERE, "host_driver_checks.py")

with open(SCRIPT) as f:
    CHECKS = re.findall(r"^def (check_\w+)\(", f.read(), re.M)


@pytest.fixture(scope="module")
def results():
    if not os.path.exists(DOUBLE):
        pytest.skip("no CUDA host driver double at %s (a build with MXC_ENABLE_CUDA=OFF)" % DOUBLE)
    env = dict(os.environ, MXC_CUDA_DRIVER=DOUBLE, MXC_HOST_DRIVER_MEMORY=str(1 << 30),
               MXC_QUIET="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    p = subprocess.run([sys.executable, SCRIPT], env=env, capture_output=True, text=True,
                       timeout=600)
    out = {}
    for line in p.stdout.splitlines():
        m = re.match(r"(PASS|FAIL) (check_\w+)(?:: (.*))?$", line)
        if m:
            out[m.group(2)] = (m.group(1), m.group(3))
    out["__process__"] = (p.returncode, p.stderr[-3000:])
    return out


def test_there_are_checks():
    assert len(CHECKS) >= 6, CHECKS


@pytest.mark.parametrize("name", CHECKS)
def test_on_the_host_driver_double(results, name):
    rc, stderr = results["__process__"]
    assert name in results, "check %s did not report (exit %s): %s" % (name, rc, stderr)
    status, why = results[name]
    assert status == "PASS", why


def test_the_process_ends_cleanly(results):
    """Operations that failed on the double and were never waited for do
    not crash or hang the interpreter's exit."""
    rc, stderr = results["__process__"]
    assert rc == 0, stderr
