"""Pieces the ONNX exporter and importer share: the onnx package (imported on
first use, with a clear error when it is missing), MXNet attribute strings,
and dtype tables."""
import ast

import numpy as np

from ..base import MXNetError

#: the opset export_model writes unless asked for another
DEFAULT_EXPORT_OPSET = 17
#: the opsets import_model reads
MIN_IMPORT_OPSET = 11
MAX_IMPORT_OPSET = 21


def require_onnx():
    """The onnx module, or an MXNetError saying how to install it."""
    try:
        import onnx  # noqa: F401
        import onnx.helper  # noqa: F401
        import onnx.numpy_helper  # noqa: F401
    except ImportError as e:
        raise MXNetError("mx.onnx needs the 'onnx' package (pip install onnx): %s" % e) from None
    return onnx


# -- MXNet attribute strings ---------------------------------------------------------
def attr_bool(attrs, key, default=False):
    v = attrs.get(key)
    if v is None or v == "None":
        return default
    return str(v).strip().lower() in ("true", "1")


def attr_int(attrs, key, default=None):
    v = attrs.get(key)
    if v is None or v == "None":
        return default
    return int(float(v))


def attr_float(attrs, key, default=None):
    v = attrs.get(key)
    if v is None or v == "None":
        return default
    return float(v)


def attr_shape(attrs, key, default=()):
    """An MXNet shape string "(3, 3)" / "[1,2]" / "3" as a tuple of ints
    (None for "None")."""
    v = attrs.get(key)
    if v is None:
        return default
    v = str(v).strip()
    if v == "None":
        return None
    if v in ("()", "[]", ""):
        return ()
    try:
        parsed = ast.literal_eval(v)
    except (ValueError, SyntaxError):
        raise MXNetError("attribute %s=%r is not a shape" % (key, v)) from None
    if isinstance(parsed, (int, float)):
        return (int(parsed),)
    return tuple(int(d) if d is not None else None for d in parsed)


def attr_str(attrs, key, default=None):
    v = attrs.get(key)
    if v is None or v == "None":
        return default
    return str(v)


# -- dtypes ------------------------------------------------------------------------------
def onnx_elem_type(dtype):
    onnx = require_onnx()
    return onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def np_of_elem_type(elem_type):
    onnx = require_onnx()
    return np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem_type))
