"""mx.contrib: MXNet 1.x's contrib namespace (mx.contrib.onnx, mx.contrib.autograd)."""
from .. import onnx
from . import autograd

__all__ = ["onnx", "autograd"]
