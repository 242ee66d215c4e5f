"""pytest set-up for the Gluon tests: `import mxc` from the build tree (as
test/python/frontend/conftest.py), and the MXNet 1.9.1 side venv's path."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_build = os.environ.get("MXC_BUILD_DIR") or os.path.join(ROOT, "build")
_packages = os.path.join(_build, "python_packages")
if os.path.isdir(os.path.join(_packages, "mxc")) and _packages not in sys.path and \
        not os.environ.get("MXC_DEV_PACKAGES"):
    sys.path.insert(0, _packages)
