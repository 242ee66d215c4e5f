"""MXNet's mx.operator: the operator registry's queries, answered from
mxc's operator table (the mx dialect's, scripts/gen_mx_ops.py).

Python custom operators (CustomOp / CustomOpProp / register, NumpyOp,
NDArrayOp) are not in mxc: a compiled graph cannot call back into Python.
Their names exist so that code importing them loads; using one raises
NotImplementedError naming it."""
import ctypes
from collections import namedtuple

from . import _ops
from .base import NDArrayHandle
from .ndarray import NDArray

# (ctypes, NDArrayHandle and NDArray too: MXNet's mx.operator has no
# __all__, so `from mxnet.operator import *` brings them, and code uses them)
__all__ = ["get_all_registered_operators", "get_operator_arguments", "OperatorArguments",
           "CustomOp", "CustomOpProp", "register", "NumpyOp", "NDArrayOp", "PythonOp",
           "ctypes", "NDArrayHandle", "NDArray"]

OperatorArguments = namedtuple("OperatorArguments", ["narg", "names", "types"])

_TYPE = {"int": "int", "float": "float", "bool": "boolean", "shape": "Shape(tuple)",
         "string": "string", "dtype": "int"}


def get_all_registered_operators():
    """Every operator name mxc registers: canonical names and their MXNet
    aliases (MXNet's list also has the operators mxc does not have)."""
    return sorted(_ops.OP_NAMES)


def _type_string(spec):
    kind, default = spec["kind"], spec["default"]
    if kind in ("enum", "dtype") and spec["values"]:
        values = sorted(spec["values"].split("|"))
        t = "{%s}" % ", ".join("'%s'" % v for v in values)
        if default is None:
            return t + ", required"
        if default == "None":
            t = "{None, %s}" % t[1:-1]
        return "%s,optional, default='%s'" % (t, default)
    t = _TYPE.get(kind, kind)
    if default is None:
        return t + ", required"
    if default == "None":
        return "%s or None, optional, default=None" % t
    return "%s, optional, default=%s" % (t, default)


def get_operator_arguments(op_name):
    """OperatorArguments(narg, names, types) of `op_name`: its tensor inputs
    ('NDArray-or-Symbol', '[]' for a variadic input) then its attributes, in
    the table's order, typed in MXNet's spelling."""
    spec = _ops.OP_NAMES.get(op_name)
    if spec is None:
        from .base import MXNetError
        raise MXNetError("get_operator_arguments: no operator '%s' in mxc" % op_name)
    names = list(spec.inputs)
    types = ["NDArray-or-Symbol[]" if spec.variadic else "NDArray-or-Symbol"] * len(names)
    for name, a in spec.attrs.items():
        names.append(name)
        types.append(_type_string(a))
    return OperatorArguments(len(names), names, types)


def _unsupported(what):
    msg = ("mx.operator.%s: Python custom operators are not in mxc (a compiled graph "
           "cannot call back into Python); use autograd.Function for imperative code" % what)

    def fail(*args, **kwargs):
        raise NotImplementedError(msg)
    return fail


class CustomOp:
    """Not in mxc: instantiating a subclass raises NotImplementedError."""
    __init__ = _unsupported("CustomOp")


class CustomOpProp:
    """Not in mxc: instantiating a subclass raises NotImplementedError."""
    __init__ = _unsupported("CustomOpProp")


class PythonOp:
    """Not in mxc (MXNet's deprecated Python operators)."""
    __init__ = _unsupported("PythonOp")


class NumpyOp(PythonOp):
    """Not in mxc (MXNet's deprecated Python operators)."""
    __init__ = _unsupported("NumpyOp")


class NDArrayOp(PythonOp):
    """Not in mxc (MXNet's deprecated Python operators)."""
    __init__ = _unsupported("NDArrayOp")


def register(reg_name):
    """Not in mxc: the decorator raises NotImplementedError naming the operator."""
    def do_register(prop_cls):
        _unsupported("register('%s')" % reg_name)()
    return do_register
