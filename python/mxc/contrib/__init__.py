"""mx.contrib: MXNet 1.x's contrib namespace (mx.contrib.onnx, mx.contrib.autograd,
and mx.contrib.ndarray / mx.contrib.symbol: the `_contrib_*` operators, the same
namespaces as mx.nd.contrib / mx.sym.contrib)."""
from .. import onnx
from . import autograd
from ..ndarray import contrib as ndarray
from ..symbol import contrib as symbol

nd = ndarray
sym = symbol

__all__ = ["onnx", "autograd", "ndarray", "symbol", "nd", "sym"]
