"""pytest set-up for mx.onnx: `import mxc` from the build tree (as
test/python/frontend does) and this folder's helpers importable.

The onnx and onnxruntime packages come with requirements-dev.txt
(scripts/setup.sh): a missing one fails these tests, it does not skip them.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
_build = os.environ.get("MXC_BUILD_DIR") or os.path.join(ROOT, "build")
_packages = os.path.join(_build, "python_packages")
if os.path.isdir(os.path.join(_packages, "mxc")) and _packages not in sys.path:
    sys.path.insert(0, _packages)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
