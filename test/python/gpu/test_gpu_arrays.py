"""NDArrays and imperative operators on mx.gpu(0), on the CUDA host driver double.

host_driver_checks.py runs once a mode, in a process of its own whose runtime
loads <build>/lib/libmxc-cuda-host-driver.so as its CUDA driver (one "GPU"
over host memory, no kernels: runtime/test/cuda_host_driver.cc); each of its
checks is one test here. What the double cannot show -- GPU numerics and speed -- is
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
    _text = f.read()
# mode -> its functions: `launch` compiles for the GPU (the launches fail on
# the double); `host-kernels` compiles CPU kernels that run on the double's
# "device" arrays and compares the results with the CPU's. Each again with
# the double's streams asynchronous (`-async`: MXC_HOST_DRIVER_ASYNC_US, a
# thread a stream, each copy delayed), so that what the engine takes for done
# is not done on the "device" yet: the engine's GPU events must order the
# copy lanes, the compute lane and the CPU kernels reading device arrays.
MODES = {"launch": re.findall(r"^def (check_\w+)\(", _text, re.M),
         "host-kernels": re.findall(r"^def (numerics_\w+)\(", _text, re.M)}
MODES.update({m + "-async": names for m, names in list(MODES.items())})
# The host-kernels checks again with the CUDA target's kernel mapping run as
# host loops (MXC_TEST_GPU_HOST_KERNELS=emulated, --emulate-gpu-kernels): the
# GPU kernels' numerics through every front-end path, within the tolerance
# of a real GPU's run (split reductions sum in other orders).
MODES["emulated-kernels"] = MODES["host-kernels"]
# Two "GPUs" (MXC_HOST_DRIVER_DEVICES=2), asynchronous streams: copies
# between devices ordered by events that cross devices, operators,
# executors and Module launched on the device of their arrays; and with CPU
# kernels on the two devices' arrays, operators, autograd and executors on
# gpu(1), Module and Gluon over both, against the CPU.
MODES["two-gpus-async"] = re.findall(r"^def (twogpus_\w+)\(", _text, re.M)
MODES["two-gpus-host-kernels-async"] = re.findall(r"^def (multigpu_\w+)\(", _text, re.M)


def _run(mode):
    if not os.path.exists(DOUBLE):
        pytest.skip("no CUDA host driver double at %s (a build with MXC_ENABLE_CUDA=OFF)" % DOUBLE)
    env = dict(os.environ, MXC_CUDA_DRIVER=DOUBLE, MXC_HOST_DRIVER_MEMORY=str(1 << 30),
               MXC_QUIET="1")
    env.pop("MXC_TEST_GPU_HOST_KERNELS", None)
    env.pop("MXC_HOST_DRIVER_ASYNC_US", None)
    if mode.endswith("-async"):
        mode = mode[:-len("-async")]
        env["MXC_HOST_DRIVER_ASYNC_US"] = "100"
    env.pop("MXC_HOST_DRIVER_DEVICES", None)
    if mode.startswith("two-gpus"):
        env["MXC_HOST_DRIVER_DEVICES"] = "2"
    if mode.endswith("host-kernels"):
        env["MXC_TEST_GPU_HOST_KERNELS"] = "1"
    elif mode == "emulated-kernels":
        env["MXC_TEST_GPU_HOST_KERNELS"] = "emulated"
    else:  # device pointers the host cannot read: host code touching them crashes
        env["MXC_HOST_DRIVER_OPAQUE"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    p = subprocess.run([sys.executable, SCRIPT, mode], env=env, capture_output=True, text=True,
                       timeout=900)
    out = {}
    for line in p.stdout.splitlines():
        m = re.match(r"(PASS|FAIL) (\w+)(?:: (.*))?$", line)
        if m:
            out[m.group(2)] = (m.group(1), m.group(3))
    out["__process__"] = (p.returncode, p.stderr[-3000:])
    return out


@pytest.fixture(scope="module")
def results():
    cache = {}

    def get(mode):
        if mode not in cache:
            cache[mode] = _run(mode)
        return cache[mode]
    return get


def test_there_are_checks():
    assert len(MODES["launch"]) >= 7 and len(MODES["host-kernels"]) >= 3, MODES


@pytest.mark.parametrize("mode,name", [(m, n) for m, names in MODES.items() for n in names])
def test_on_the_host_driver_double(results, mode, name):
    got = results(mode)
    rc, stderr = got["__process__"]
    assert name in got, "check %s did not report (exit %s): %s" % (name, rc, stderr)
    status, why = got[name]
    assert status == "PASS", why


@pytest.mark.parametrize("mode", sorted(MODES))
def test_the_process_ends_cleanly(results, mode):
    """Operations that failed on the double and were never waited for do
    not crash or hang the interpreter's exit."""
    rc, stderr = results(mode)["__process__"]
    assert rc == 0, stderr
