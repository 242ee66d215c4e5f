"""mx.contrib: MXNet 1.x's contrib namespace (mx.contrib.onnx)."""
from .. import onnx

__all__ = ["onnx"]
