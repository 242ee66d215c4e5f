"""Running the same Python source under MXNet 1.9.1 (the side venv
.venv-mxnet, git-ignored; absent in CI, where these tests skip) and under
mxc, and collecting what each wrote."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MXNET_PY = os.path.join(ROOT, ".venv-mxnet", "bin", "python")

needs_mxnet = pytest.mark.skipif(not os.path.exists(MXNET_PY),
                                 reason="no .venv-mxnet (mxnet==1.9.1) here")


def run_mxnet(source, *args, cwd=None, timeout=600):
    """Runs `source` with MXNet's python; raises with its stderr on failure."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["MXNET_ENGINE_TYPE"] = "NaiveEngine"
    env["OMP_NUM_THREADS"] = "1"
    r = subprocess.run([MXNET_PY, "-c", source] + [str(a) for a in args], cwd=cwd, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    if r.returncode != 0:
        raise AssertionError("MXNet side failed:\n" + r.stderr.decode()[-4000:])
    return r.stdout.decode()


def run_mxc(source, *args, cwd=None, timeout=600):
    """Runs `source` with this interpreter and the mxc being tested."""
    import mxc
    env = dict(os.environ)
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(mxc.__file__)))
    env["PYTHONPATH"] = pkg + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("MXC_QUIET", "1")
    r = subprocess.run([sys.executable, "-c", source] + [str(a) for a in args], cwd=cwd, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    if r.returncode != 0:
        raise AssertionError("mxc side failed:\n" + r.stderr.decode()[-4000:])
    return r.stdout.decode()
