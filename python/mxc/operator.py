"""MXNet's mx.operator: the operator registry's queries, answered from
mxc's operator table (the mx dialect's, scripts/gen_mx_ops.py), and Python
custom operators.

Custom operators (CustomOp / CustomOpProp / register, called as
mx.nd.Custom(..., op_type=NAME)): the operator's Python forward runs when
mx.nd.Custom is called (not on an engine thread, as in MXNet), and under
autograd.record() its Python backward gives the gradients of its arguments
(auxiliary states get none). mx.sym.Custom writes MXNet's 'Custom' node;
compiled code cannot call back into Python, so an Executor / Module whose
graph has one runs it operator by operator (executor.py, _interpret), and a
hybridized Gluon block that calls F.Custom runs imperatively
(CustomOpInGraphError, a DynamicShapeError, sends it there). NumpyOp /
NDArrayOp / PythonOp (MXNet's deprecated Python operators) run as custom
operators."""
import ctypes
import itertools
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


class CustomOp:
    """Base class of a custom operator's computation (MXNet's CustomOp):
    forward(is_train, req, in_data, out_data, aux) and
    backward(req, out_grad, in_data, out_data, in_grad, aux) write their
    results into out_data / in_grad, usually through assign()."""

    def __init__(self):
        pass

    def forward(self, is_train, req, in_data, out_data, aux):
        raise NotImplementedError("CustomOp.forward")

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        raise NotImplementedError("CustomOp.backward")

    def assign(self, dst, req, src):
        """dst <- src ('write' / 'inplace'), dst += src ('add'), or nothing
        ('null')."""
        if req == "null":
            return
        if req in ("write", "inplace"):
            dst[:] = src
        elif req == "add":
            dst[:] += src
        else:
            from .base import MXNetError
            raise MXNetError("CustomOp.assign: unknown req '%s'" % req)


class CustomOpProp:
    """Base class of a custom operator's properties (MXNet's CustomOpProp):
    its argument, output and auxiliary-state names, shape and type
    inference, and create_operator(). Registered with @register(name)."""

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape):
        return (in_shape, (in_shape[0],) * len(self.list_outputs()),
                (in_shape[0],) * len(self.list_auxiliary_states()))

    def infer_type(self, in_type):
        return (in_type, [in_type[0]] * len(self.list_outputs()),
                [in_type[0]] * len(self.list_auxiliary_states()))

    def infer_storage_type(self, in_stype):
        return (in_stype, ["default"] * len(self.list_outputs()),
                ["default"] * len(self.list_auxiliary_states()))

    def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype,
                                    aux_stype):
        return (ograd_stype, in_stype, out_stype, ["default"] * len(igrad_stype), aux_stype)

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def list_auxiliary_states(self):
        return []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        deps = list(out_grad) if self.need_top_grad_ else []
        return deps + list(in_data) + list(out_data)

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return CustomOp()


_REGISTRY = {}


class PythonOp:
    """MXNet's deprecated Python operators (PythonOp / NumpyOp / NDArrayOp):
    forward(in_data, out_data), backward(out_grad, in_data, out_data,
    in_grad), infer_shape, list_arguments / list_outputs; get_symbol(*args,
    name=) (or calling the object) makes the graph node. mxc runs them as
    custom operators (a 'Custom' node of an op type registered for the
    object), so Executors and Modules run their graphs operator by operator
    as for any custom operator. The defaults are MXNet's: the identity, one
    argument 'data', one output 'output'."""
    _ids = itertools.count(1)  # one op type per object (next() is atomic)

    def __init__(self, need_top_grad=True):
        self.info_ = None
        self.need_top_grad_ = need_top_grad

    def __call__(self, *args, **kwargs):
        return self.get_symbol(*args, **kwargs)

    def forward(self, in_data, out_data):
        out_data[0][:] = in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        in_grad[0][:] = out_grad[0]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]]

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def need_top_grad(self):
        return self.need_top_grad_

    # the arrays forward / backward see: NDArrays (NDArrayOp), numpy (NumpyOp)
    _numpy = False

    def get_symbol(self, *args, **kwargs):
        from . import symbol
        op_type = getattr(self, "_op_type", None)
        if op_type is None:  # one custom operator per object (the graph names it)
            op_type = "_python_op_%s_%d" % (type(self).__name__, next(PythonOp._ids))
            register(op_type)(_python_op_prop(self))
            self._op_type = op_type
        return symbol.Custom(*args, op_type=op_type, **kwargs)


class NumpyOp(PythonOp):
    """A PythonOp whose forward / backward get numpy arrays (written back)."""
    _numpy = True


class NDArrayOp(PythonOp):
    """A PythonOp whose forward / backward get NDArrays."""

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        deps = []
        if self.need_top_grad():
            deps.extend(out_grad)
        deps.extend(in_data)
        deps.extend(out_data)
        return deps


def _python_op_prop(pyop):
    """A CustomOpProp class running PythonOp `pyop`."""
    def call(fn, arrays_in, arrays_out):
        if not pyop._numpy:
            return fn(arrays_in, arrays_out)
        ins = [[a.asnumpy() for a in group] for group in arrays_in]
        outs = [a.asnumpy() for a in arrays_out]
        fn(ins, outs)
        for dst, src in zip(arrays_out, outs):
            dst[:] = src

    class _Op(CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            call(lambda ins, outs: pyop.forward(in_data=ins[0], out_data=outs),
                 [in_data], out_data)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            call(lambda ins, outs: pyop.backward(out_grad=ins[0], in_data=ins[1],
                                                 out_data=ins[2], in_grad=outs),
                 [out_grad, in_data, out_data], in_grad)

    class _Prop(CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=pyop.need_top_grad())

        def list_arguments(self):
            return pyop.list_arguments()

        def list_outputs(self):
            return pyop.list_outputs()

        def infer_shape(self, in_shape):
            got = pyop.infer_shape(in_shape)
            return got[0], got[1], list(got[2]) if len(got) > 2 else []

        def create_operator(self, ctx, shapes, dtypes):
            return _Op()
    return _Prop


def register(reg_name):
    """Registers a CustomOpProp subclass as the custom operator `reg_name`
    (mx.nd.Custom(..., op_type=reg_name)); returns the class."""
    def do_register(prop_cls):
        if not (isinstance(prop_cls, type) and issubclass(prop_cls, CustomOpProp)):
            from .base import MXNetError
            raise MXNetError("mx.operator.register('%s'): %r is not a CustomOpProp subclass"
                             % (reg_name, prop_cls))
        _REGISTRY[reg_name] = prop_cls
        return prop_cls
    return do_register


class _InOperator:
    """Runs a custom operator's own code: what it raises becomes an
    MXNetError naming the operator and the stage, as MXNet reports it (an
    MXNetError passes unchanged unless `wrap_mxnet`: a forward / backward
    names the operator also for mxc's own errors inside it)."""

    def __init__(self, op_type, stage, wrap_mxnet=False):
        self.op_type, self.stage, self.wrap_mxnet = op_type, stage, wrap_mxnet

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        from .base import MXNetError
        if exc is None or not isinstance(exc, Exception):
            return False
        if isinstance(exc, MXNetError):
            if not self.wrap_mxnet:
                return False
            raise MXNetError("Custom operator '%s' %s: %s"
                             % (self.op_type, self.stage, exc)) from exc
        raise MXNetError("Custom operator '%s' %s raised %s: %s"
                         % (self.op_type, self.stage, type(exc).__name__, exc)) from exc


def _custom_nd(*data, op_type=None, name=None, out=None, **kwargs):
    """mx.nd.Custom: runs the registered custom operator `op_type` on
    NDArrays (positional, or by argument / auxiliary-state name); the other
    keyword arguments go to its CustomOpProp as strings, as in MXNet."""
    import numpy as np
    from . import autograd
    from .base import MXNetError
    from .context import current_context
    from .ndarray import zeros
    if op_type is None:
        raise MXNetError("Custom: op_type (the registered name) is required")
    prop_cls = _REGISTRY.get(op_type)
    if prop_cls is None:
        raise MXNetError("Custom: no custom operator registered as '%s' (registered: %s)"
                         % (op_type, ", ".join(sorted(_REGISTRY)) or "none"))
    arrays = {k: v for k, v in kwargs.items() if isinstance(v, NDArray)}
    params = {k: str(v) for k, v in kwargs.items() if not isinstance(v, NDArray)}
    with _InOperator(op_type, "properties"):
        prop = prop_cls(**params)
        arg_names = list(prop.list_arguments())
        aux_names = list(prop.list_auxiliary_states())
        out_names = list(prop.list_outputs())
    names = arg_names + aux_names
    unknown = sorted(set(arrays) - set(names))
    if unknown:
        raise MXNetError("Custom '%s': no input named %s (arguments %s, auxiliary states %s)"
                         % (op_type, ", ".join(unknown), arg_names, aux_names))
    inputs = list(data) + [None] * (len(names) - len(data))
    if len(data) > len(names):
        raise MXNetError("Custom '%s': %d inputs given, it takes %d (arguments %s, auxiliary "
                         "states %s)" % (op_type, len(data), len(names), arg_names, aux_names))
    for i, n in enumerate(names):
        if n in arrays:
            if inputs[i] is not None:
                raise MXNetError("Custom '%s': input '%s' given twice" % (op_type, n))
            inputs[i] = arrays[n]
    missing = [n for n, a in zip(names, inputs) if a is None]
    if missing:
        raise MXNetError("Custom '%s': missing input %s" % (op_type, ", ".join(missing)))
    for n, a in zip(names, inputs):
        if not isinstance(a, NDArray):
            raise MXNetError("Custom '%s': input '%s' is %s, not an NDArray"
                             % (op_type, n, type(a).__name__))
    in_data, aux = inputs[:len(arg_names)], inputs[len(arg_names):]
    with _InOperator(op_type, "shape/type inference"):
        shapes = prop.infer_shape([list(a.shape) for a in in_data])
        types = prop.infer_type([a.dtype for a in in_data])
    out_shapes = [tuple(int(d) for d in s) for s in shapes[1]]
    out_types = [np.dtype(t) for t in types[1]]
    if len(out_shapes) != len(out_names) or len(out_types) != len(out_names):
        raise MXNetError("Custom '%s': infer_shape / infer_type gave %d / %d outputs, "
                         "list_outputs %d" % (op_type, len(out_shapes), len(out_types),
                                              len(out_names)))
    ctx = in_data[0].context if in_data else current_context()
    with _InOperator(op_type, "create_operator"):
        op = prop.create_operator(ctx, [list(a.shape) for a in in_data],
                                  [a.dtype for a in in_data])
    n_args = len(arg_names)

    class _Call(autograd.Function):
        def forward(self, *xs):
            from .profiler import _CustomOpScope
            outs = [zeros(s, ctx=ctx, dtype=t) for s, t in zip(out_shapes, out_types)]
            with _InOperator(op_type, "forward", wrap_mxnet=True), _CustomOpScope(op_type):
                op.forward(is_train=autograd.is_training(), req=["write"] * len(outs),
                           in_data=list(xs[:n_args]), out_data=outs, aux=list(xs[n_args:]))
            self._inputs, self._outs = xs, outs
            return outs[0] if len(outs) == 1 else tuple(outs)

        def backward(self, *ogs):
            xs = self._inputs
            in_grad = [zeros(a.shape, ctx=ctx, dtype=a.dtype) for a in xs[:n_args]]
            from .profiler import _CustomOpScope
            with _InOperator(op_type, "backward", wrap_mxnet=True), \
                    _CustomOpScope("_backward_" + op_type):
                op.backward(req=["write"] * n_args, out_grad=list(ogs),
                            in_data=list(xs[:n_args]), out_data=self._outs,
                            in_grad=in_grad, aux=list(xs[n_args:]))
            return in_grad + [None] * (len(xs) - n_args)

    result = _Call()(*inputs)
    if out is not None:
        outs = [result] if isinstance(result, NDArray) else list(result)
        targets = [out] if isinstance(out, NDArray) else list(out)
        for t, r in zip(targets, outs):
            t[:] = r
        return out
    return result
