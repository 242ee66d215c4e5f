"""mx.onnx (also mx.contrib.onnx): ONNX models in and out.

    mx.onnx.export_model(sym, params, in_shapes, in_types, 'model.onnx')
    sym, arg_params, aux_params = mx.onnx.import_model('model.onnx')

export_model has MXNet 1.9's mx2onnx signature; import_model returns what
MXNet's onnx2mx importer returns. Both use the `onnx` package (its protobuf
schema, checker and shape inference). See docs/onnx.md for the operators
each direction maps.
"""
from ._export import export_model, supported_ops as _export_ops
from ._import import import_model, import_to_gluon, get_model_metadata, supported_ops as _import_ops

__all__ = ["export_model", "import_model", "import_to_gluon", "get_model_metadata",
           "get_operator_support", "get_import_support"]


def get_operator_support(opset_version=None):
    """The MXNet operators export_model translates (as MXNet's
    mx.onnx.get_operator_support lists them)."""
    return _export_ops()


def get_import_support():
    """The ONNX operator types import_model maps."""
    return _import_ops()
