"""pytest set-up for the Python front end: `import mxc` from the build tree;
the `graphs` fixture (scripts/gpu-check.sh's graphs, test/gpu/models.py).

The package is <build>/python_packages/mxc (build = $MXC_BUILD_DIR, else
build/ under the repository root), unless `mxc` is already importable (an
installed wheel, or PYTHONPATH). A missing package fails the tests (never
skips them): the build makes it whenever nanobind is in the project venv.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_build = os.environ.get("MXC_BUILD_DIR") or os.path.join(ROOT, "build")
_packages = os.path.join(_build, "python_packages")
if os.path.isdir(os.path.join(_packages, "mxc")) and _packages not in sys.path:
    sys.path.insert(0, _packages)

import pytest  # noqa: E402


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    """A directory with every graph of scripts/gpu-check.sh, its inputs'
    spec and references (test/gpu/models.py)."""
    sys.path.insert(0, os.path.join(ROOT, "test", "gpu"))
    import models
    d = str(tmp_path_factory.mktemp("gpu-models"))
    models.main(d)
    return d

