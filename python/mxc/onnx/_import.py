"""mx.onnx.import_model: an ONNX model file as (sym, arg_params, aux_params).

The file is read and checked by the `onnx` package (its protobuf schema and
checker), and ONNX's shape inference gives the static shapes a few
translations need (Flatten on an axis other than 1, Squeeze, Pad, the
coerced 2-D Softmax of opsets before 13). Each ONNX node then becomes mx.sym
operators through the table _IMPORTERS below. Values that are constants
(initializers, Constant nodes, shape arithmetic on them) stay numpy arrays
while the operators reading them take them as attributes (a Reshape's
shape, Clip's bounds, Slice's starts); a constant that is an operator's
tensor input becomes a variable whose value is in arg_params (aux_params
for BatchNormalization's mean and variance).

Graph inputs become variables of the same name; the outputs are the
symbol's outputs, in the graph's order.
"""
import os

import numpy as np

from ..base import MXNetError
from .. import symbol as _symbol
from ._common import MAX_IMPORT_OPSET, MIN_IMPORT_OPSET, np_of_elem_type, require_onnx

_FLOAT_MAX = float(np.finfo(np.float32).max)


def _sym(op, inputs, name, **attrs):
    """One mx.sym operator node (all inputs given, named `name`)."""
    attrs = {k: v for k, v in attrs.items() if v is not None}
    return _symbol._create(op, list(inputs), attrs, name, op.lower())


# -- the translation table -----------------------------------------------------------
_IMPORTERS = {}


def _imports(*op_types):
    def register(fn):
        for t in op_types:
            _IMPORTERS[t] = fn
        return fn
    return register


def _attrs(node):
    onnx = require_onnx()
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _s(v):
    return v.decode() if isinstance(v, bytes) else v


class _Importer:
    def __init__(self, model):
        self.onnx = require_onnx()
        self.model = model
        self.opset = None
        for imp in model.opset_import:
            if imp.domain in ("", "ai.onnx"):
                self.opset = imp.version
        if self.opset is None:
            raise MXNetError("import_model: the model imports no default-domain (ai.onnx) opset")
        if self.opset < MIN_IMPORT_OPSET:
            raise MXNetError("import_model: opset %d is older than %d, the oldest mx.onnx reads"
                             % (self.opset, MIN_IMPORT_OPSET))
        self.values = {}      # ONNX name -> mx Symbol
        self.consts = {}      # ONNX name -> numpy array (constants)
        self.params = {}      # variable name -> numpy array (constants made variables)
        self.shapes = {}      # ONNX name -> tuple (None for an unknown dimension) 
        self.dtypes = {}      # ONNX name -> numpy dtype
        self.used_names = set()
        self.reserved = set()  # initializer names: their variables keep them
        self.node = None

    # -- values -------------------------------------------------------------------
    def unique(self, hint, reserved_ok=False):
        hint = hint or "node"
        name, k = hint, 1
        while name in self.used_names or (name in self.reserved and not reserved_ok):
            name = "%s_%d" % (hint, k)
            k += 1
        self.used_names.add(name)
        return name

    def is_const(self, name):
        return name in self.consts

    def const(self, name, what="input"):
        if name not in self.consts:
            self.fail("%s '%s' must be a constant (an initializer or Constant output)"
                      % (what, name))
        return self.consts[name]

    def tensor(self, name):
        """The Symbol of value `name` (a constant becomes a variable)."""
        if name in self.values:
            return self.values[name]
        if name in self.consts:
            arr = self.consts[name]
            vname = self.unique(name, reserved_ok=True)
            self.params[vname] = arr
            s = _symbol.Variable(vname, shape=arr.shape, dtype=arr.dtype)
            self.values[name] = s
            return s
        self.fail("input '%s' is not produced by any node, input or initializer" % name)

    def param(self, hint, arr):
        """A new variable holding `arr` (a transformed constant)."""
        vname = self.unique(hint)
        arr = np.ascontiguousarray(arr)
        self.params[vname] = arr
        return _symbol.Variable(vname, shape=arr.shape, dtype=arr.dtype)

    def shape(self, name):
        if name in self.consts:
            return tuple(self.consts[name].shape)
        return self.shapes.get(name)

    def static_shape(self, name, why):
        s = self.shape(name)
        if s is None or any(d is None for d in s):
            self.fail("%s needs the static shape of '%s', which shape inference did not give"
                      % (why, name))
        return s

    def rank(self, name):
        s = self.shape(name)
        if s is None:
            self.fail("the rank of '%s' is unknown (shape inference gave none)" % name)
        return len(s)

    def dtype(self, name):
        if name in self.consts:
            return self.consts[name].dtype
        return self.dtypes.get(name, np.dtype(np.float32))

    def fail(self, what):
        n = self.node
        label = n.name or (n.output[0] if n.output else "?")
        raise MXNetError("import_model: node '%s' (%s): %s" % (label, n.op_type, what))

    def name_for(self, node):
        return self.unique(node.name or (node.output[0] if node.output else node.op_type.lower()))

    # -- the graph -------------------------------------------------------------------
    def _value_infos(self, graph):
        for vi in list(graph.input) + list(graph.value_info) + list(graph.output):
            t = vi.type
            if not t.HasField("tensor_type"):
                continue
            tt = t.tensor_type
            if tt.elem_type:
                try:
                    self.dtypes[vi.name] = np_of_elem_type(tt.elem_type)
                except Exception:
                    pass
            if tt.HasField("shape"):
                self.shapes[vi.name] = tuple(
                    d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim)

    def run(self):
        onnx = self.onnx
        graph = self.model.graph
        try:
            inferred = onnx.shape_inference.infer_shapes(self.model)
            self._value_infos(inferred.graph)
        except Exception:
            self._value_infos(graph)
        for init in graph.initializer:
            try:
                self.consts[init.name] = onnx.numpy_helper.to_array(init)
            except Exception as e:
                raise MXNetError("import_model: initializer '%s' cannot be read (%s)"
                                 % (init.name, (str(e).splitlines() or [type(e).__name__])[0])) \
                    from None
            self.reserved.add(init.name)
        for vi in graph.input:
            if vi.name in self.consts:
                continue
            self.used_names.add(vi.name)
            self.values[vi.name] = _symbol.Variable(vi.name)
        for node in graph.node:
            self.node = node
            if node.domain not in ("", "ai.onnx"):
                self.fail("operator domain '%s' is not mapped" % node.domain)
            folded = self._fold(node)
            if folded is not None:
                for name, v in zip(node.output, folded):
                    if name:
                        self.consts[name] = np.asarray(v)
                continue
            fn = _IMPORTERS.get(node.op_type)
            if fn is None:
                raise MXNetError("import_model: node '%s': ONNX operator '%s' has no mxc mapping"
                                 % (node.name or node.output[0], node.op_type))
            try:
                outs = fn(self, node, list(node.input), _attrs(node))
            except MXNetError:
                raise
            except Exception as e:
                # an attribute or input the translation did not expect (a
                # malformed model the checker let through): still one line
                detail = (str(e).strip().splitlines() or [""])[0]
                self.fail("cannot be mapped (%s%s)" % (type(e).__name__,
                                                       ": " + detail if detail else ""))
            if not isinstance(outs, (list, tuple)):
                outs = [outs]
            for k, name in enumerate(node.output):
                if not name:
                    continue
                if k >= len(outs) or outs[k] is None:
                    if self._consumed(name):
                        self.fail("output %d ('%s') is not mapped" % (k, name))
                    continue
                v = outs[k]
                if isinstance(v, (np.ndarray, np.generic)):
                    self.consts[name] = np.asarray(v)
                else:
                    self.values[name] = v
        self.node = None
        heads = []
        for out in graph.output:
            if out.name in self.values:
                heads.append(self.values[out.name])
            elif out.name in self.consts:
                heads.append(_sym("_copy", [self.tensor(out.name)], self.unique(out.name + "_out")))
            else:
                raise MXNetError("import_model: graph output '%s' is not produced" % out.name)
        sym = heads[0] if len(heads) == 1 else _symbol.Group(heads)
        from .. import ndarray as nd
        aux_names = set(sym.list_auxiliary_states())
        arg_names = set(sym.list_arguments())
        arg_params, aux_params = {}, {}
        for k, v in self.params.items():
            if k in aux_names:
                aux_params[k] = nd.array(v, dtype=v.dtype)
            elif k in arg_names:
                arg_params[k] = nd.array(v, dtype=v.dtype)
        return sym, arg_params, aux_params

    #: operators evaluated at import time (by onnx's reference implementation)
    #: when all their inputs are constants: shape arithmetic
    _FOLDABLE = {"Add", "Sub", "Mul", "Div", "Neg", "Abs", "Max", "Min", "Cast", "Concat",
                 "Gather", "Unsqueeze", "Squeeze", "Slice", "Reshape", "Shape", "Size", "Range",
                 "ConstantOfShape", "Equal", "Less", "Greater", "Where", "Not", "And", "Or",
                 "Floor", "Ceil", "Sqrt", "ReduceProd", "ReduceSum", "ReduceMax", "ReduceMin",
                 "Identity", "Expand", "Tile", "Transpose", "Mod", "Sign", "Clip", "CastLike"}
    _FOLD_LIMIT = 1 << 16   # elements: larger constant computations stay in the graph

    def _fold(self, node):
        """Outputs of `node` computed now, when it is shape arithmetic on
        constants; None otherwise."""
        if node.op_type not in self._FOLDABLE:
            return None
        ins = [i for i in node.input if i]
        if not ins or not all(i in self.consts for i in ins):
            return None
        if sum(self.consts[i].size for i in ins) > self._FOLD_LIMIT:
            return None
        try:
            from onnx.reference import ReferenceEvaluator
        except ImportError:
            return None
        onnx = self.onnx
        feeds = {i: self.consts[i] for i in ins}
        graph = onnx.helper.make_graph(
            [node], "fold",
            [onnx.helper.make_tensor_value_info(i, onnx.helper.np_dtype_to_tensor_dtype(
                feeds[i].dtype), feeds[i].shape) for i in ins],
            [onnx.helper.make_tensor_value_info(o, onnx.TensorProto.UNDEFINED, None)
             for o in node.output if o])
        model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", self.opset)])
        try:
            return ReferenceEvaluator(model).run(None, feeds)
        except Exception:
            return None   # left to the translation, which says what it cannot do

    def _consumed(self, name):
        if any(o.name == name for o in self.model.graph.output):
            return True
        return any(name in n.input for n in self.model.graph.node)


# -- padding by slices and concatenation (mxc has no Pad operator) ------------------
def _filled_block(imp, x, axis, width, dim, value, name):
    """A block of `width` entries along `axis` filled with `value`, shaped as
    x elsewhere: zeros_like of a slice of x, repeated to the width."""
    if dim <= 0:
        imp.fail("padding a dimension of %d is not mapped" % dim)
    if -(-width // dim) > 64:
        imp.fail("a pad of %d on a dimension of %d is not mapped (over 64 copies)" % (width, dim))
    pieces = []
    left = width
    while left > 0:
        k = min(left, dim)
        z = _sym("zeros_like", [_sym("slice_axis", [x], imp.unique(name + "_s"), axis=axis,
                                     begin=0, end=k)], imp.unique(name + "_z"))
        pieces.append(z)
        left -= k
    block = pieces[0] if len(pieces) == 1 else _sym("Concat", pieces, imp.unique(name + "_c"),
                                                    dim=axis, num_args=len(pieces))
    if value != 0:
        block = _sym("_plus_scalar", [block], imp.unique(name + "_v"), scalar=float(value))
    return block


def _pad(imp, x, shape, pads, mode, value, name):
    """x padded by pads = [begin_0.., end_0..] (negative: cropped)."""
    rank = len(shape)
    shape = list(shape)
    if len(pads) != 2 * rank:
        imp.fail("%d pads for a %d-D input (2 per dimension)" % (len(pads), rank))
    for axis in range(rank):
        b, e = int(pads[axis]), int(pads[axis + rank])
        if b < 0 or e < 0:
            if max(-b, 0) + max(-e, 0) >= shape[axis]:
                imp.fail("pads %s crop axis %d of %d away" % (list(pads), axis, shape[axis]))
            x = _sym("slice_axis", [x], imp.unique(name + "_crop"), axis=axis, begin=max(-b, 0),
                     end=shape[axis] - max(-e, 0))
            shape[axis] -= max(-b, 0) + max(-e, 0)
            b, e = max(b, 0), max(e, 0)
        if b == 0 and e == 0:
            continue
        dim = shape[axis]
        parts = []
        if mode == "constant":
            if b:
                parts.append(_filled_block(imp, x, axis, b, dim, value, name + "_b%d" % axis))
            parts.append(x)
            if e:
                parts.append(_filled_block(imp, x, axis, e, dim, value, name + "_e%d" % axis))
        elif mode == "wrap":
            if b > dim or e > dim:
                imp.fail("wrap padding of %d/%d on a dimension of %d" % (b, e, dim))
            if b:
                parts.append(_sym("slice_axis", [x], imp.unique(name + "_wb"), axis=axis,
                                  begin=dim - b, end=dim))
            parts.append(x)
            if e:
                parts.append(_sym("slice_axis", [x], imp.unique(name + "_we"), axis=axis,
                                  begin=0, end=e))
        elif mode in ("edge", "reflect"):
            def piece(i):
                return _sym("slice_axis", [x], imp.unique(name + "_p"), axis=axis, begin=i,
                            end=i + 1)
            if mode == "reflect" and (b >= dim or e >= dim):
                imp.fail("reflect padding of %d/%d on a dimension of %d" % (b, e, dim))
            for i in range(b, 0, -1):
                parts.append(piece(0 if mode == "edge" else i))
            parts.append(x)
            for i in range(1, e + 1):
                parts.append(piece(dim - 1 if mode == "edge" else dim - 1 - i))
        else:
            imp.fail("pad mode '%s' is not mapped" % mode)
        x = _sym("Concat", parts, imp.unique(name + "_pad%d" % axis), dim=axis,
                 num_args=len(parts))
        shape[axis] = dim + b + e
    return x


def _spatial_pads(imp, node, x, attrs, kernel, strides, dilations):
    """Begin and end pads of a Conv / pool node (auto_pad resolved)."""
    d = len(kernel)
    if len(strides) != d or len(dilations) != d:
        imp.fail("kernel %s, strides %s and dilations %s differ in length"
                 % (list(kernel), list(strides), list(dilations)))
    if any(v < 1 for v in list(kernel) + list(strides) + list(dilations)):
        imp.fail("kernel %s, strides %s, dilations %s must be positive"
                 % (list(kernel), list(strides), list(dilations)))
    auto = _s(attrs.get("auto_pad", "NOTSET"))
    if auto in ("NOTSET", "") or auto is None:
        pads = list(attrs.get("pads", [0] * (2 * d)))
        if len(pads) != 2 * d or any(v < 0 for v in pads):
            imp.fail("pads %s for a %d-D kernel" % (pads, d))
        return pads[:d], pads[d:]
    if auto == "VALID":
        return [0] * d, [0] * d
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        shape = imp.static_shape(x, "auto_pad=%s" % auto)
        begin, end = [], []
        for i in range(d):
            n = shape[2 + i]
            out = -(-n // strides[i])
            total = max((out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - n, 0)
            small = total // 2
            if auto == "SAME_UPPER":
                begin.append(small)
                end.append(total - small)
            else:
                begin.append(total - small)
                end.append(small)
        return begin, end
    imp.fail("auto_pad=%s is not mapped" % auto)


@_imports("Conv")
def _conv(imp, node, ins, attrs):
    if len(ins) < 2 or not ins[1]:
        imp.fail("no weight input")
    x, w = ins[0], ins[1]
    wshape = imp.static_shape(w, "Conv")
    if len(wshape) < 3:
        imp.fail("weight of shape %s (want (M, C/group, k...))" % (tuple(wshape),))
    kernel = list(attrs.get("kernel_shape", wshape[2:]))
    d = len(kernel)
    strides = list(attrs.get("strides", [1] * d))
    dilations = list(attrs.get("dilations", [1] * d))
    begin, end = _spatial_pads(imp, node, x, attrs, kernel, strides, dilations)
    data = imp.tensor(x)
    name = imp.name_for(node)
    if begin != end:
        shape = imp.static_shape(x, "asymmetric Conv pads")
        data = _pad(imp, data, shape, [0, 0] + begin + [0, 0] + end, "constant", 0.0, name)
        pad = [0] * d
    else:
        pad = begin
    inputs = [data, imp.tensor(w)]
    has_bias = len(ins) > 2 and ins[2]
    if has_bias:
        inputs.append(imp.tensor(ins[2]))
    return _sym("Convolution", inputs, name, kernel=tuple(kernel), stride=tuple(strides),
                dilate=tuple(dilations), pad=tuple(pad), num_filter=int(wshape[0]),
                num_group=int(attrs.get("group", 1)), no_bias=not has_bias)


@_imports("ConvTranspose")
def _conv_transpose(imp, node, ins, attrs):
    if len(ins) < 2 or not ins[1]:
        imp.fail("no weight input")
    x, w = ins[0], ins[1]
    wshape = imp.static_shape(w, "ConvTranspose")
    if len(wshape) < 3:
        imp.fail("weight of shape %s (want (C, M/group, k...))" % (tuple(wshape),))
    kernel = list(attrs.get("kernel_shape", wshape[2:]))
    d = len(kernel)
    if "output_shape" in attrs:
        imp.fail("output_shape is not mapped (give pads and output_padding)")
    auto = attrs.get("auto_pad", "NOTSET")
    if isinstance(auto, bytes):
        auto = auto.decode()
    if auto not in ("NOTSET", ""):
        imp.fail("auto_pad=%s is not mapped" % auto)
    pads = list(attrs.get("pads", [0] * (2 * d)))
    if pads[:d] != pads[d:]:
        imp.fail("asymmetric pads %s are not mapped (MXNet's Deconvolution pads both sides "
                 "equally)" % (pads,))
    group = int(attrs.get("group", 1))
    inputs = [imp.tensor(x), imp.tensor(w)]
    has_bias = len(ins) > 2 and ins[2]
    if has_bias:
        inputs.append(imp.tensor(ins[2]))
    return _sym("Deconvolution", inputs, imp.name_for(node), kernel=tuple(kernel),
                stride=tuple(attrs.get("strides", [1] * d)),
                dilate=tuple(attrs.get("dilations", [1] * d)), pad=tuple(pads[:d]),
                adj=tuple(attrs.get("output_padding", [0] * d)),
                num_filter=int(wshape[1]) * group, num_group=group, no_bias=not has_bias)


def _pool_common(imp, node, ins, attrs, pool_type, data=None, **more):
    """Pooling of ins[0] (or of the symbol `data`, shaped as ins[0])."""
    x = ins[0]
    if "kernel_shape" not in attrs:
        imp.fail("no kernel_shape")
    kernel = list(attrs["kernel_shape"])
    d = len(kernel)
    if imp.shape(x) is not None and len(imp.shape(x)) != d + 2:
        imp.fail("a %d-D kernel on a %d-D input" % (d, len(imp.shape(x))))
    strides = list(attrs.get("strides", [1] * d))
    dilations = list(attrs.get("dilations", [1] * d))
    if any(v != 1 for v in dilations):
        imp.fail("dilations=%s: mxc's Pooling has no dilation" % dilations)
    begin, end = _spatial_pads(imp, node, x, attrs, kernel, strides, dilations)
    name = imp.name_for(node)
    data = imp.tensor(x) if data is None else data
    extra = dict(more)
    if pool_type == "avg":
        extra["count_include_pad"] = bool(attrs.get("count_include_pad", 0))
    if begin != end:
        shape = imp.static_shape(x, "asymmetric pool pads")
        full_pads = [0, 0] + begin + [0, 0] + end
        fill = -_FLOAT_MAX if pool_type == "max" else 0.0
        if pool_type == "avg" and not extra["count_include_pad"]:
            # the mean over the window's real entries: a sum pool of the
            # zero-padded input over a sum pool of zero-padded ones
            ones = _sym("ones_like", [data], imp.unique(name + "_ones"))
            common = dict(kernel=tuple(kernel), stride=tuple(strides), pad=(0,) * d,
                          pool_type="sum")
            num = _sym("Pooling", [_pad(imp, data, shape, full_pads, "constant", 0.0, name)],
                       imp.unique(name + "_num"), **common)
            den = _sym("Pooling", [_pad(imp, ones, shape, full_pads, "constant", 0.0, name + "_1")],
                       imp.unique(name + "_den"), **common)
            if attrs.get("ceil_mode", 0):
                imp.fail("asymmetric pads with ceil_mode=1 and count_include_pad=0 are not mapped")
            return _sym("elemwise_div", [num, den], name)
        data = _pad(imp, data, shape, full_pads, "constant", fill, name)
        begin = end = [0] * d
    ceil = bool(attrs.get("ceil_mode", 0))
    convention = "full" if ceil else "valid"
    y = _sym("Pooling", [data], imp.unique(name + "_pool") if ceil else name, kernel=tuple(kernel),
             stride=tuple(strides), pad=tuple(begin), pool_type=pool_type,
             pooling_convention=convention, **extra)
    if not ceil:
        return y
    # ONNX drops a last window that would start in the right padding;
    # MXNet's 'full' convention keeps it.
    shape = imp.shape(x)
    if shape is not None:
        for i in range(d):
            n = shape[2 + i]
            if n is None:
                continue
            n_pad = n + 2 * begin[i] if begin == end else n
            out = -(-(n_pad - kernel[i]) // strides[i]) + 1
            if (out - 1) * strides[i] >= n + begin[i]:
                y = _sym("slice_axis", [y], imp.unique(name + "_last"), axis=2 + i, begin=0,
                         end=out - 1)
    return _sym("_copy", [y], name)


@_imports("MaxPool")
def _max_pool(imp, node, ins, attrs):
    if len(node.output) > 1 and node.output[1] and imp._consumed(node.output[1]):
        imp.fail("the Indices output is not mapped")
    return [_pool_common(imp, node, ins, attrs, "max")]


@_imports("AveragePool")
def _avg_pool(imp, node, ins, attrs):
    return _pool_common(imp, node, ins, attrs, "avg")


@_imports("LpPool")
def _lp_pool(imp, node, ins, attrs):
    p = float(attrs.get("p", 2))
    name = imp.name_for(node)
    powered = _sym("_power_scalar", [_sym("abs", [imp.tensor(ins[0])], imp.unique(name + "_abs"))],
                   imp.unique(name + "_pow"), scalar=p)
    summed = _pool_common(imp, node, ins, attrs, "sum", data=powered)
    return _sym("_power_scalar", [summed], name, scalar=1.0 / p)


@_imports("GlobalAveragePool", "GlobalMaxPool")
def _global_pool(imp, node, ins, attrs):
    d = imp.rank(ins[0]) - 2
    return _sym("Pooling", [imp.tensor(ins[0])], imp.name_for(node), kernel=(1,) * d,
                global_pool=True, pool_type="avg" if node.op_type == "GlobalAveragePool" else "max")


@_imports("Gemm")
def _gemm(imp, node, ins, attrs):
    a, b = ins[0], ins[1]
    c = ins[2] if len(ins) > 2 and ins[2] else None
    alpha, beta = float(attrs.get("alpha", 1.0)), float(attrs.get("beta", 1.0))
    ta, tb = int(attrs.get("transA", 0)), int(attrs.get("transB", 0))
    name = imp.name_for(node)
    for v in (a, b):
        if imp.shape(v) is not None and len(imp.shape(v)) != 2:
            imp.fail("input '%s' of shape %s (Gemm multiplies 2-D matrices)" % (v, imp.shape(v)))
    if not ta and alpha == 1.0 and imp.is_const(b):
        wt = imp.const(b)
        if not tb:
            weight = imp.param(b + "_T", wt.T)
        else:
            weight = imp.tensor(b)
        n_out = wt.shape[0] if tb else wt.shape[1]
        bias = None
        if c is not None and imp.is_const(c):
            cv = imp.const(c)
            if cv.shape == (n_out,) and beta == 1.0:
                bias = imp.tensor(c)
                c = None
            elif cv.size == n_out or cv.size == 1:
                cv = np.broadcast_to((cv * beta).reshape(-1), (n_out,)).astype(cv.dtype)
                bias = imp.param(c + "_bias", cv)
                c = None
        inputs = [imp.tensor(a), weight] + ([bias] if bias is not None else [])
        y = _sym("FullyConnected", inputs, name, num_hidden=int(n_out), no_bias=bias is None)
    else:
        y = _sym("dot", [imp.tensor(a), imp.tensor(b)], name, transpose_a=bool(ta),
                 transpose_b=bool(tb))
        if alpha != 1.0:
            y = _sym("_mul_scalar", [y], imp.unique(name + "_alpha"), scalar=alpha)
    if c is not None:
        cs = imp.tensor(c)
        if beta != 1.0:
            cs = _sym("_mul_scalar", [cs], imp.unique(name + "_beta"), scalar=beta)
        y = _sym("broadcast_add", [y, cs], imp.unique(name + "_c"))
    return y


@_imports("MatMul")
def _matmul(imp, node, ins, attrs):
    a, b = ins
    ra, rb = imp.rank(a), imp.rank(b)
    name = imp.name_for(node)
    if rb == 2 and ra >= 2 and imp.is_const(b):
        w = imp.const(b)
        return _sym("FullyConnected", [imp.tensor(a), imp.param(b + "_T", w.T)], name,
                    num_hidden=int(w.shape[1]), no_bias=True, flatten=False)
    if (rb <= 2 and ra >= 1) or (ra == 1 and rb <= 2):
        return _sym("dot", [imp.tensor(a), imp.tensor(b)], name)
    if ra == rb == 3 and imp.shape(a)[0] == imp.shape(b)[0] and imp.shape(a)[0] is not None:
        return _sym("batch_dot", [imp.tensor(a), imp.tensor(b)], name)
    # numpy matmul semantics: 1-D operands promoted, batch dimensions
    # broadcast (adding zeros of the broadcast shape), then one batch_dot
    sa = list(imp.static_shape(a, "an N-D MatMul"))
    sb = list(imp.static_shape(b, "an N-D MatMul"))
    out_shape = imp.static_shape(node.output[0], "an N-D MatMul")
    ta, tb = imp.tensor(a), imp.tensor(b)
    if len(sa) == 1:
        sa = [1] + sa
    if len(sb) == 1:
        sb = sb + [1]
    batch = list(np.broadcast_shapes(tuple(sa[:-2]), tuple(sb[:-2])))
    ta = _sym("Reshape", [ta], imp.unique(name + "_a"), shape=tuple(sa))
    tb = _sym("Reshape", [tb], imp.unique(name + "_b"), shape=tuple(sb))
    for which, sh in (("a", sa), ("b", sb)):
        if list(sh[:-2]) != batch:
            z = imp.param(name + "_bcast_" + which,
                          np.zeros(batch + [1, 1], dtype=imp.dtype(a if which == "a" else b)))
            if which == "a":
                ta = _sym("broadcast_add", [ta, z], imp.unique(name + "_ba"))
            else:
                tb = _sym("broadcast_add", [tb, z], imp.unique(name + "_bb"))
    nb = int(np.prod(batch)) if batch else 1
    ta = _sym("Reshape", [ta], imp.unique(name + "_a3"), shape=(nb, sa[-2], sa[-1]))
    tb = _sym("Reshape", [tb], imp.unique(name + "_b3"), shape=(nb, sb[-2], sb[-1]))
    y = _sym("batch_dot", [ta, tb], imp.unique(name + "_bd"))
    return _sym("Reshape", [y], name, shape=tuple(out_shape) if out_shape else (1,))


@_imports("BatchNormalization")
def _batch_norm(imp, node, ins, attrs):
    if int(attrs.get("training_mode", 0)):
        imp.fail("training_mode=1 is not mapped (inference only)")
    if len(node.output) > 1 and any(o and imp._consumed(o) for o in node.output[1:]):
        imp.fail("the running mean/variance outputs are not mapped")
    inputs = [imp.tensor(i) for i in ins[:5]]
    return _sym("BatchNorm", inputs, imp.name_for(node), eps=float(attrs.get("epsilon", 1e-5)),
                momentum=float(attrs.get("momentum", 0.9)), fix_gamma=False,
                use_global_stats=True)


def _simple(op, **fixed):
    def fn(imp, node, ins, attrs):
        return _sym(op, [imp.tensor(ins[0])], imp.name_for(node), **fixed)
    return fn


for _t, _act in (("Relu", "relu"), ("Sigmoid", "sigmoid"), ("Tanh", "tanh"),
                 ("Softplus", "softrelu"), ("Softsign", "softsign")):
    _IMPORTERS[_t] = _simple("Activation", act_type=_act)
for _t, _op in (("Exp", "exp"), ("Log", "log"), ("Abs", "abs"), ("Neg", "negative"),
                ("Sqrt", "sqrt"), ("Floor", "floor"), ("Ceil", "ceil"), ("Round", "rint"),
                ("Sin", "sin"), ("Cos", "cos"), ("Sign", "sign"), ("Reciprocal", "reciprocal"),
                ("Tan", "tan"), ("Asin", "arcsin"), ("Acos", "arccos"), ("Atan", "arctan"),
                ("Sinh", "sinh"), ("Cosh", "cosh"), ("Asinh", "arcsinh"), ("Acosh", "arccosh"),
                ("Atanh", "arctanh"), ("Erf", "erf")):
    _IMPORTERS[_t] = _simple(_op)


@_imports("Identity")
def _identity(imp, node, ins, attrs):
    if imp.is_const(ins[0]):
        return imp.const(ins[0])
    return imp.tensor(ins[0])


@_imports("Dropout")
def _dropout(imp, node, ins, attrs):
    """Inference: the identity, and a mask of all True."""
    ratio = float(attrs.get("ratio", 0.5))
    if len(ins) > 1 and ins[1] and imp.is_const(ins[1]):
        ratio = float(imp.const(ins[1]).reshape(-1)[0])
    if len(ins) > 2 and ins[2]:
        training = imp.const(ins[2], "training_mode")
        if bool(training.reshape(-1)[0]) and ratio != 0.0:
            imp.fail("training_mode=True with ratio %g is not mapped (inference only)" % ratio)
    x = imp.tensor(ins[0])
    if len(node.output) > 1 and node.output[1] and imp._consumed(node.output[1]):
        name = imp.name_for(node)
        mask = _sym("Cast", [_sym("ones_like", [x], imp.unique(name + "_ones"))], name + "_mask",
                    dtype="bool")
        return [x, mask]
    return [x]


@_imports("LeakyRelu")
def _leaky(imp, node, ins, attrs):
    return _sym("LeakyReLU", [imp.tensor(ins[0])], imp.name_for(node), act_type="leaky",
                slope=float(attrs.get("alpha", 0.01)))


@_imports("Elu")
def _elu(imp, node, ins, attrs):
    return _sym("LeakyReLU", [imp.tensor(ins[0])], imp.name_for(node), act_type="elu",
                slope=float(attrs.get("alpha", 1.0)))


@_imports("Selu")
def _selu(imp, node, ins, attrs):
    alpha = float(attrs.get("alpha", 1.67326319217681884765625))
    gamma = float(attrs.get("gamma", 1.05070102214813232421875))
    x = imp.tensor(ins[0])
    name = imp.name_for(node)
    neg = _sym("_minimum_scalar", [x], imp.unique(name + "_neg"), scalar=0.0)
    em1 = _sym("_minus_scalar", [_sym("exp", [neg], imp.unique(name + "_exp"))],
               imp.unique(name + "_em1"), scalar=1.0)
    scaled = _sym("_mul_scalar", [em1], imp.unique(name + "_a"), scalar=alpha)
    pos = _sym("relu", [x], imp.unique(name + "_pos"))
    s = _sym("elemwise_add", [pos, scaled], imp.unique(name + "_sum"))
    return _sym("_mul_scalar", [s], name, scalar=gamma)


@_imports("PRelu")
def _prelu(imp, node, ins, attrs):
    x, slope = ins
    name = imp.name_for(node)
    xs = imp.shape(x)
    if imp.is_const(slope) and xs is not None and len(xs) >= 2 and xs[1] is not None:
        sv = imp.const(slope)
        c = xs[1]
        # a slope of shape (C, 1, ..) broadcast along axis 1: MXNet's PReLU gamma
        if sv.ndim == len(xs) - 1 and sv.shape[0] == c and sv.size == c:
            return _sym("LeakyReLU", [imp.tensor(x), imp.param(slope + "_gamma", sv.reshape(c))],
                        name, act_type="prelu")
    xt = imp.tensor(x)
    pos = _sym("_maximum_scalar", [xt], imp.unique(name + "_pos"), scalar=0.0)
    neg = _sym("_minimum_scalar", [xt], imp.unique(name + "_neg"), scalar=0.0)
    scaled = _sym("broadcast_mul", [neg, imp.tensor(slope)], imp.unique(name + "_mul"))
    return _sym("broadcast_add", [pos, scaled], name)


@_imports("HardSigmoid")
def _hard_sigmoid(imp, node, ins, attrs):
    alpha, beta = float(attrs.get("alpha", 0.2)), float(attrs.get("beta", 0.5))
    name = imp.name_for(node)
    return _sym("hard_sigmoid", [imp.tensor(ins[0])], name, alpha=alpha, beta=beta)


@_imports("HardSwish")
def _hard_swish(imp, node, ins, attrs):
    name = imp.name_for(node)
    x = imp.tensor(ins[0])
    y = _sym("_mul_scalar", [x], imp.unique(name + "_a"), scalar=1.0 / 6.0)
    y = _sym("_plus_scalar", [y], imp.unique(name + "_b"), scalar=0.5)
    y = _sym("clip", [y], imp.unique(name + "_clip"), a_min=0.0, a_max=1.0)
    return _sym("elemwise_mul", [x, y], name)


@_imports("Gelu")
def _gelu(imp, node, ins, attrs):
    approx = _s(attrs.get("approximate", "none"))
    name = imp.name_for(node)
    x = imp.tensor(ins[0])
    if approx == "none":
        return _sym("LeakyReLU", [x], name, act_type="gelu")
    # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    x3 = _sym("_power_scalar", [x], imp.unique(name + "_x3"), scalar=3.0)
    inner = _sym("elemwise_add", [x, _sym("_mul_scalar", [x3], imp.unique(name + "_c"),
                                          scalar=0.044715)], imp.unique(name + "_in"))
    t = _sym("tanh", [_sym("_mul_scalar", [inner], imp.unique(name + "_k"),
                           scalar=float(np.sqrt(2.0 / np.pi)))], imp.unique(name + "_t"))
    onep = _sym("_plus_scalar", [t], imp.unique(name + "_1p"), scalar=1.0)
    half = _sym("_mul_scalar", [x], imp.unique(name + "_h"), scalar=0.5)
    return _sym("elemwise_mul", [half, onep], name)


# ONNX binary op -> (broadcast op, scalar op with the constant on the right, on the left)
_BINARY = {"Add": ("broadcast_add", "_plus_scalar", "_plus_scalar"),
           "Sub": ("broadcast_sub", "_minus_scalar", "_rminus_scalar"),
           "Mul": ("broadcast_mul", "_mul_scalar", "_mul_scalar"),
           "Div": ("broadcast_div", "_div_scalar", "_rdiv_scalar"),
           "Pow": ("broadcast_power", "_power_scalar", "_rpower_scalar")}
_NUMPY_BINARY = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Pow": np.power}


def _is_scalar_const(imp, name, other):
    if not imp.is_const(name) or imp.is_const(other):
        return False
    v = imp.const(name)
    if v.size != 1:
        return False
    so = imp.shape(other)
    return v.ndim == 0 or (so is not None and v.ndim <= len(so))


@_imports(*_BINARY)
def _binary(imp, node, ins, attrs):
    a, b = ins
    if imp.is_const(a) and imp.is_const(b):
        va, vb = imp.const(a), imp.const(b)
        if node.op_type == "Div":
            if np.issubdtype(va.dtype, np.integer):
                return np.trunc(va / vb).astype(va.dtype)
            return (va / vb).astype(va.dtype)
        return _NUMPY_BINARY[node.op_type](va, vb).astype(va.dtype)
    op, right, left = _BINARY[node.op_type]
    name = imp.name_for(node)
    if node.op_type == "Pow" and imp.dtype(a) != imp.dtype(b) and not imp.is_const(b):
        # ONNX's Pow gives the base's type; mxc's wants equal types
        cast = _sym("Cast", [imp.tensor(b)], imp.unique(name + "_exp"), dtype=imp.dtype(a).name)
        return _sym(op, [imp.tensor(a), cast], name)
    dt = imp.dtype(a if not imp.is_const(a) else b)
    if np.issubdtype(dt, np.floating) or node.op_type != "Div":
        if _is_scalar_const(imp, b, a):
            return _sym(right, [imp.tensor(a)], name, scalar=float(imp.const(b).reshape(-1)[0]))
        if _is_scalar_const(imp, a, b):
            return _sym(left, [imp.tensor(b)], name, scalar=float(imp.const(a).reshape(-1)[0]))
    return _sym(op, [imp.tensor(a), imp.tensor(b)], name)


def _variadic(op, mean=False):
    def fn(imp, node, ins, attrs):
        name = imp.name_for(node)
        acc = imp.tensor(ins[0])
        for k, i in enumerate(ins[1:]):
            acc = _sym(op, [acc, imp.tensor(i)], imp.unique("%s_%d" % (name, k)))
        if mean and len(ins) > 1:
            return _sym("_div_scalar", [acc], name, scalar=float(len(ins)))
        if len(ins) == 1:
            return _sym("_copy", [acc], name)
        return acc
    return fn


_IMPORTERS["Max"] = _variadic("broadcast_maximum")
_IMPORTERS["Min"] = _variadic("broadcast_minimum")
_IMPORTERS["Sum"] = _variadic("broadcast_add")
_IMPORTERS["Mean"] = _variadic("broadcast_add", mean=True)

_COMPARE = {"Equal": "broadcast_equal", "Greater": "broadcast_greater",
            "GreaterOrEqual": "broadcast_greater_equal", "Less": "broadcast_lesser",
            "LessOrEqual": "broadcast_lesser_equal"}


@_imports(*_COMPARE)
def _compare(imp, node, ins, attrs):
    name = imp.name_for(node)
    c = _sym(_COMPARE[node.op_type], [imp.tensor(ins[0]), imp.tensor(ins[1])],
             imp.unique(name + "_cmp"))
    return _sym("Cast", [c], name, dtype="bool")


@_imports("Not")
def _not(imp, node, ins, attrs):
    name = imp.name_for(node)
    x = _sym("Cast", [imp.tensor(ins[0])], imp.unique(name + "_f"), dtype="float32")
    return _sym("Cast", [_sym("_equal_scalar", [x], imp.unique(name + "_eq"), scalar=0.0)], name,
                dtype="bool")


@_imports("Where")
def _where(imp, node, ins, attrs):
    shapes = [imp.shape(i) for i in ins]
    name = imp.name_for(node)
    cond, x, y = (imp.tensor(i) for i in ins)
    if any(s is None for s in shapes) or len(set(shapes)) != 1:
        # mxc's where wants equal shapes: each operand plus zeros of the
        # broadcast shape (zeros_like of a broadcast sum: no values read)
        dt = np.result_type(imp.dtype(ins[1]), imp.dtype(ins[2]))
        condv = _sym("Cast", [cond], imp.unique(name + "_cf"), dtype=dt.name)
        total = _sym("broadcast_add", [_sym("broadcast_add", [condv, x], imp.unique(name + "_s1")),
                                       y], imp.unique(name + "_s2"))
        zeros = _sym("zeros_like", [total], imp.unique(name + "_z"))
        cond = _sym("broadcast_add", [condv, zeros], imp.unique(name + "_cb"))
        x = _sym("broadcast_add", [x, zeros], imp.unique(name + "_xb"))
        y = _sym("broadcast_add", [y, zeros], imp.unique(name + "_yb"))
    return _sym("where", [cond, x, y], name)


_MX_DTYPES = {"float32", "float64", "float16", "uint8", "int8", "int32", "int64", "bool"}


@_imports("Cast")
def _cast(imp, node, ins, attrs):
    try:
        dt = np_of_elem_type(int(attrs["to"]))
    except Exception:
        dt = None
    if dt is None or dt.name not in _MX_DTYPES:
        imp.fail("cast to ONNX type %s is not mapped" % attrs.get("to"))
    if imp.is_const(ins[0]):
        return imp.const(ins[0]).astype(dt)
    return _sym("Cast", [imp.tensor(ins[0])], imp.name_for(node), dtype=dt.name)


@_imports("Reshape")
def _reshape(imp, node, ins, attrs):
    shape = [int(v) for v in imp.const(ins[1], "the shape").reshape(-1)]
    if imp.is_const(ins[0]):
        v = imp.const(ins[0])
        target = [v.shape[i] if s == 0 and not attrs.get("allowzero", 0) else s
                  for i, s in enumerate(shape)]
        return v.reshape(target)
    if attrs.get("allowzero", 0) and 0 in shape:
        imp.fail("allowzero=1 with a 0 in the shape is not mapped")
    return _sym("Reshape", [imp.tensor(ins[0])], imp.name_for(node), shape=tuple(shape))


@_imports("Flatten")
def _flatten(imp, node, ins, attrs):
    axis = int(attrs.get("axis", 1))
    rank = imp.rank(ins[0])
    if axis < 0:
        axis += rank
    name = imp.name_for(node)
    if axis == 1:
        return _sym("Flatten", [imp.tensor(ins[0])], name)
    if axis == 0:
        return _sym("Reshape", [imp.tensor(ins[0])], name, shape=(1, -1))
    s = imp.static_shape(ins[0], "Flatten with axis=%d" % axis)
    return _sym("Reshape", [imp.tensor(ins[0])], name, shape=(int(np.prod(s[:axis])), -1))


@_imports("Concat")
def _concat(imp, node, ins, attrs):
    axis = int(attrs["axis"])
    ins = [i for i in ins if i]
    if not ins:
        imp.fail("no inputs to concatenate")
    if all(imp.is_const(i) for i in ins):
        return np.concatenate([imp.const(i) for i in ins], axis=axis)
    if axis < 0:
        axis += imp.rank(ins[0])
    return _sym("Concat", [imp.tensor(i) for i in ins], imp.name_for(node), dim=axis,
                num_args=len(ins))


def _softmax_like(op):
    def fn(imp, node, ins, attrs):
        rank = imp.rank(ins[0])
        axis = int(attrs.get("axis", -1 if imp.opset >= 13 else 1))
        if axis < 0:
            axis += rank
        name = imp.name_for(node)
        x = imp.tensor(ins[0])
        if imp.opset >= 13 or axis == rank - 1:
            return _sym(op, [x], name, axis=axis)
        # opsets 11-12: softmax of the input coerced to 2-D at `axis`
        s = imp.static_shape(ins[0], "%s of opset %d" % (node.op_type, imp.opset))
        flat = _sym("Reshape", [x], imp.unique(name + "_2d"),
                    shape=(int(np.prod(s[:axis])), int(np.prod(s[axis:]))))
        y = _sym(op, [flat], imp.unique(name + "_sm"), axis=-1)
        return _sym("Reshape", [y], name, shape=tuple(s))
    return fn


_IMPORTERS["Softmax"] = _softmax_like("softmax")
_IMPORTERS["LogSoftmax"] = _softmax_like("log_softmax")


@_imports("Transpose")
def _transpose(imp, node, ins, attrs):
    perm = attrs.get("perm")
    if imp.is_const(ins[0]):
        return np.transpose(imp.const(ins[0]), perm)
    if perm is None:
        perm = list(reversed(range(imp.rank(ins[0]))))
    return _sym("transpose", [imp.tensor(ins[0])], imp.name_for(node), axes=tuple(perm))


@_imports("Constant")
def _constant(imp, node, ins, attrs):
    onnx = imp.onnx
    if "value" in attrs:
        return onnx.numpy_helper.to_array(attrs["value"])
    if "value_float" in attrs:
        return np.asarray(attrs["value_float"], dtype=np.float32)
    if "value_floats" in attrs:
        return np.asarray(list(attrs["value_floats"]), dtype=np.float32)
    if "value_int" in attrs:
        return np.asarray(attrs["value_int"], dtype=np.int64)
    if "value_ints" in attrs:
        return np.asarray(list(attrs["value_ints"]), dtype=np.int64)
    imp.fail("a Constant of kind %s is not mapped" % ", ".join(attrs) or "none")


@_imports("Clip")
def _clip(imp, node, ins, attrs):
    lo = attrs.get("min")
    hi = attrs.get("max")
    x = imp.tensor(ins[0])
    name = imp.name_for(node)
    bounds = []
    for k, default in ((1, lo), (2, hi)):
        if len(ins) > k and ins[k]:
            if not imp.is_const(ins[k]):
                bounds.append(ins[k])
                continue
            bounds.append(float(imp.const(ins[k]).reshape(-1)[0]))
        else:
            bounds.append(default)
    if any(isinstance(b, str) for b in bounds):
        y = x
        if bounds[0] is not None:
            y = (_sym("broadcast_maximum", [y, imp.tensor(bounds[0])], imp.unique(name + "_lo"))
                 if isinstance(bounds[0], str) else
                 _sym("_maximum_scalar", [y], imp.unique(name + "_lo"), scalar=bounds[0]))
        if bounds[1] is not None:
            y = (_sym("broadcast_minimum", [y, imp.tensor(bounds[1])], name)
                 if isinstance(bounds[1], str) else
                 _sym("_minimum_scalar", [y], name, scalar=bounds[1]))
        return y
    dt = imp.dtype(ins[0])
    info = np.iinfo(dt) if np.issubdtype(dt, np.integer) else np.finfo(np.float32)
    lo = float(info.min) if bounds[0] is None else bounds[0]
    hi = float(info.max) if bounds[1] is None else bounds[1]
    if lo > hi:  # ONNX: every value becomes max
        return _sym("_plus_scalar", [_sym("zeros_like", [x], imp.unique(name + "_z"))], name,
                    scalar=hi)
    return _sym("clip", [x], name, a_min=lo, a_max=hi)


@_imports("LRN")
def _lrn(imp, node, ins, attrs):
    return _sym("LRN", [imp.tensor(ins[0])], imp.name_for(node),
                alpha=float(attrs.get("alpha", 1e-4)), beta=float(attrs.get("beta", 0.75)),
                knorm=float(attrs.get("bias", 1.0)), nsize=int(attrs["size"]))


def _reduce_axes(imp, node, ins, attrs):
    """(axes or None for all, keepdims, noop) of a Reduce* node."""
    axes = attrs.get("axes")
    if len(ins) > 1 and ins[1]:
        axes = [int(v) for v in imp.const(ins[1], "axes").reshape(-1)]
    keepdims = bool(attrs.get("keepdims", 1))
    noop = bool(attrs.get("noop_with_empty_axes", 0))
    if axes is not None and len(axes) == 0:
        axes = None
    if axes is not None:
        rank = imp.rank(ins[0])
        axes = tuple(sorted(a + rank if a < 0 else a for a in axes))
    return axes, keepdims, noop


def _reduce(mx_op, pre=None, post=None):
    def fn(imp, node, ins, attrs):
        axes, keepdims, noop = _reduce_axes(imp, node, ins, attrs)
        name = imp.name_for(node)
        x = imp.tensor(ins[0])
        if pre is not None:
            x = _sym(pre, [x], imp.unique(name + "_pre"))
        if axes is None and noop:
            return _sym("_copy", [x], name)
        kw = {"keepdims": keepdims}
        if axes is not None:
            kw["axis"] = axes
        if post is None:
            return _sym(mx_op, [x], name, **kw)
        y = _sym(mx_op, [x], imp.unique(name + "_red"), **kw)
        return _sym(post, [y], name)
    return fn


_IMPORTERS["ReduceSum"] = _reduce("sum")
_IMPORTERS["ReduceMean"] = _reduce("mean")
_IMPORTERS["ReduceMax"] = _reduce("max")
_IMPORTERS["ReduceMin"] = _reduce("min")
_IMPORTERS["ReduceSumSquare"] = _reduce("sum", pre="square")
_IMPORTERS["ReduceL1"] = _reduce("sum", pre="abs")
_IMPORTERS["ReduceL2"] = _reduce("sum", pre="square", post="sqrt")
_IMPORTERS["ReduceLogSum"] = _reduce("sum", post="log")
_IMPORTERS["ReduceLogSumExp"] = _reduce("sum", pre="exp", post="log")


@_imports("ArgMax", "ArgMin")
def _argmax(imp, node, ins, attrs):
    if int(attrs.get("select_last_index", 0)):
        imp.fail("select_last_index=1 is not mapped")
    name = imp.name_for(node)
    x = imp.tensor(ins[0])
    if node.op_type == "ArgMin":
        x = _sym("negative", [x], imp.unique(name + "_neg"))
    axis = int(attrs.get("axis", 0))
    y = _sym("argmax", [x], imp.unique(name + "_f"), axis=axis,
             keepdims=bool(attrs.get("keepdims", 1)))
    return _sym("Cast", [y], name, dtype="int64")


@_imports("TopK")
def _topk(imp, node, ins, attrs):
    # ONNX's ties (the lower index first) are MXNet's; `sorted=0` allows any
    # order, and the sorted one is a valid answer.
    k = [int(v) for v in imp.const(ins[1], "K").reshape(-1)]
    if len(k) != 1 or k[0] < 1:
        imp.fail("K=%s: one positive count is mapped" % k)
    y = _sym("topk", [imp.tensor(ins[0])], imp.name_for(node),
             axis=int(attrs.get("axis", -1)), k=k[0], ret_typ="both",
             is_ascend=not int(attrs.get("largest", 1)), dtype="int64")
    return [y[0], y[1]]


@_imports("Unsqueeze")
def _unsqueeze(imp, node, ins, attrs):
    axes = attrs.get("axes")
    if len(ins) > 1 and ins[1]:
        axes = [int(v) for v in imp.const(ins[1], "axes").reshape(-1)]
    if imp.is_const(ins[0]):
        v = imp.const(ins[0])
        out_rank = v.ndim + len(axes)
        for a in sorted(a + out_rank if a < 0 else a for a in axes):
            v = np.expand_dims(v, a)
        return v
    out_rank = imp.rank(ins[0]) + len(axes)
    axes = sorted(a + out_rank if a < 0 else a for a in axes)
    name = imp.name_for(node)
    y = imp.tensor(ins[0])
    for k, a in enumerate(axes):
        y = _sym("expand_dims", [y], name if k == len(axes) - 1 else imp.unique(name + "_e"),
                 axis=a)
    return y


@_imports("Squeeze")
def _squeeze(imp, node, ins, attrs):
    axes = attrs.get("axes")
    if len(ins) > 1 and ins[1]:
        axes = [int(v) for v in imp.const(ins[1], "axes").reshape(-1)]
    if imp.is_const(ins[0]):
        v = imp.const(ins[0])
        return np.squeeze(v, axis=tuple(axes) if axes is not None else None)
    s = imp.static_shape(ins[0], "Squeeze")
    if axes is None:
        axes = [i for i, d in enumerate(s) if d == 1]
    axes = {a + len(s) if a < 0 else a for a in axes}
    # (a scalar result is (1,): mxc, as MXNet 1.x, has no 0-d arrays)
    target = tuple(d for i, d in enumerate(s) if i not in axes) or (1,)
    return _sym("Reshape", [imp.tensor(ins[0])], imp.name_for(node), shape=target)


@_imports("Slice")
def _slice(imp, node, ins, attrs):
    starts = [int(v) for v in imp.const(ins[1], "starts").reshape(-1)]
    ends = [int(v) for v in imp.const(ins[2], "ends").reshape(-1)]
    axes = ([int(v) for v in imp.const(ins[3], "axes").reshape(-1)]
            if len(ins) > 3 and ins[3] else list(range(len(starts))))
    steps = ([int(v) for v in imp.const(ins[4], "steps").reshape(-1)]
             if len(ins) > 4 and ins[4] else [1] * len(starts))
    if imp.is_const(ins[0]):
        v = imp.const(ins[0])
        idx = [slice(None)] * v.ndim
        for s, e, a, st in zip(starts, ends, axes, steps):
            idx[a] = slice(s, e, st)
        return v[tuple(idx)]
    if any(st != 1 for st in steps):
        imp.fail("steps %s: only step 1 is mapped" % steps)
    shape = imp.shape(ins[0])
    rank = imp.rank(ins[0])
    name = imp.name_for(node)
    y = imp.tensor(ins[0])
    for k, (s, e, a) in enumerate(zip(starts, ends, axes)):
        if a < 0:
            a += rank
        dim = shape[a] if shape is not None else None
        if dim is not None:
            s = max(0, min(s + dim if s < 0 else s, dim))
            e = max(0, min(e + dim if e < 0 else e, dim))
            if e <= s:
                imp.fail("an empty slice on axis %d is not mapped" % a)
            if s == 0 and e == dim:
                continue
        end = None if e >= 2 ** 62 else e
        y = _sym("slice_axis", [y], imp.unique("%s_%d" % (name, k)), axis=a, begin=s, end=end)
    return _sym("_copy", [y], name)


@_imports("Pad")
def _pad_node(imp, node, ins, attrs):
    mode = _s(attrs.get("mode", "constant"))
    pads = attrs.get("pads")
    if len(ins) > 1 and ins[1]:
        pads = [int(v) for v in imp.const(ins[1], "pads").reshape(-1)]
    value = float(attrs.get("value", 0.0))
    if len(ins) > 2 and ins[2]:
        value = float(imp.const(ins[2], "constant_value").reshape(-1)[0])
    shape = imp.static_shape(ins[0], "Pad")
    rank = len(shape)
    if len(ins) > 3 and ins[3]:
        axes = [int(v) for v in imp.const(ins[3], "axes").reshape(-1)]
        full = [0] * (2 * rank)
        for k, a in enumerate(axes):
            a = a + rank if a < 0 else a
            full[a] = pads[k]
            full[a + rank] = pads[k + len(axes)]
        pads = full
    name = imp.name_for(node)
    y = _pad(imp, imp.tensor(ins[0]), shape, pads, mode, value, name)
    return _sym("_copy", [y], name)


@_imports("Shape")
def _shape(imp, node, ins, attrs):
    s = imp.static_shape(ins[0], "Shape")
    start, end = attrs.get("start", 0), attrs.get("end")
    return np.asarray(s[start:end], dtype=np.int64)


@_imports("Gather")
def _gather(imp, node, ins, attrs):
    axis = int(attrs.get("axis", 0))
    if not imp.is_const(ins[1]):
        return _gather_by_one_hot(imp, node, ins, axis)
    idx = imp.const(ins[1], "indices")
    if imp.is_const(ins[0]):
        return np.take(imp.const(ins[0]), idx, axis=axis)
    # constant indices: slices of the data, concatenated
    s = imp.static_shape(ins[0], "Gather")
    if not -len(s) <= axis < len(s):
        imp.fail("axis %d of a %d-D input" % (axis, len(s)))
    if axis < 0:
        axis += len(s)
    dim = s[axis]
    name = imp.name_for(node)
    x = imp.tensor(ins[0])
    flat = [int(i) + dim if int(i) < 0 else int(i) for i in idx.reshape(-1)]
    pieces = [_sym("slice_axis", [x], imp.unique(name + "_g"), axis=axis, begin=i, end=i + 1)
              for i in flat]
    y = pieces[0] if len(pieces) == 1 else _sym("Concat", pieces, imp.unique(name + "_cat"),
                                                dim=axis, num_args=len(pieces))
    target = tuple(s[:axis]) + tuple(idx.shape) + tuple(s[axis + 1:])
    return _sym("Reshape", [y], name, shape=target if target else (1,))


def _gather_by_one_hot(imp, node, ins, axis):
    """Gather with tensor indices (an embedding lookup): MXNet's take with
    mode='wrap', which reads in-range negative indices from the end as ONNX
    does (out-of-range ones, an error in ONNX, wrap)."""
    s = imp.static_shape(ins[0], "Gather with tensor indices")
    if not -len(s) <= axis < len(s):
        imp.fail("axis %d of a %d-D input" % (axis, len(s)))
    return _sym("take", [imp.tensor(ins[0]), imp.tensor(ins[1])], imp.name_for(node),
                axis=axis if axis >= 0 else axis + len(s), mode="wrap")


@_imports("ConstantOfShape")
def _constant_of_shape(imp, node, ins, attrs):
    shape = [int(v) for v in imp.const(ins[0], "the shape").reshape(-1)]
    value = attrs.get("value")
    fill = (imp.onnx.numpy_helper.to_array(value).reshape(-1)[0] if value is not None
            else np.float32(0))
    return np.full(shape, fill, dtype=np.asarray(fill).dtype)


@_imports("Expand")
def _expand(imp, node, ins, attrs):
    shape = [int(v) for v in imp.const(ins[1], "the shape").reshape(-1)]
    if imp.is_const(ins[0]):
        v = imp.const(ins[0])
        return (v * np.ones(shape, dtype=v.dtype)).astype(v.dtype)
    # numpy broadcasting of the input's shape with `shape` (either may be longer)
    xs = imp.static_shape(ins[0], "Expand")
    out = tuple(int(d) for d in np.broadcast_shapes(tuple(xs), tuple(shape)))
    name = imp.name_for(node)
    x = imp.tensor(ins[0])
    if len(out) > len(xs):
        x = _sym("Reshape", [x], imp.unique(name + "_rank"),
                 shape=(1,) * (len(out) - len(xs)) + tuple(xs))
    return _sym("broadcast_to", [x], name, shape=out)


@_imports("Range")
def _range(imp, node, ins, attrs):
    start, limit, delta = (imp.const(i, "range bound").reshape(-1)[0] for i in ins)
    return np.arange(start, limit, delta, dtype=np.asarray(start).dtype)


def _normalize(imp, name, x, axes, eps, stats=False):
    mean = _sym("mean", [x], imp.unique(name + "_mean"), axis=axes, keepdims=True)
    centred = _sym("broadcast_sub", [x, mean], imp.unique(name + "_c"))
    var = _sym("mean", [_sym("square", [centred], imp.unique(name + "_sq"))],
               imp.unique(name + "_var"), axis=axes, keepdims=True)
    std = _sym("sqrt", [_sym("_plus_scalar", [var], imp.unique(name + "_eps"), scalar=eps)],
               imp.unique(name + "_std"))
    y = _sym("broadcast_div", [centred, std], imp.unique(name + "_n"))
    if stats:
        return y, mean, _sym("_rdiv_scalar", [std], imp.unique(name + "_inv"), scalar=1.0)
    return y


@_imports("InstanceNormalization")
def _instance_norm(imp, node, ins, attrs):
    rank = imp.rank(ins[0])
    name = imp.name_for(node)
    y = _normalize(imp, name, imp.tensor(ins[0]), tuple(range(2, rank)),
                   float(attrs.get("epsilon", 1e-5)))
    shape = (-1,) + (1,) * (rank - 2)
    scale = _sym("Reshape", [imp.tensor(ins[1])], imp.unique(name + "_s"), shape=shape)
    bias = _sym("Reshape", [imp.tensor(ins[2])], imp.unique(name + "_b"), shape=shape)
    y = _sym("broadcast_mul", [y, scale], imp.unique(name + "_mul"))
    return _sym("broadcast_add", [y, bias], name)


@_imports("LayerNormalization")
def _layer_norm(imp, node, ins, attrs):
    if int(attrs.get("stash_type", 1)) != 1:
        imp.fail("stash_type=%s is not mapped (float32 statistics only)" % attrs["stash_type"])
    rank = imp.rank(ins[0])
    axis = int(attrs.get("axis", -1))
    if axis < 0:
        axis += rank
    name = imp.name_for(node)
    y, mean, inv = _normalize(imp, name, imp.tensor(ins[0]), tuple(range(axis, rank)),
                              float(attrs.get("epsilon", 1e-5)), stats=True)
    y = _sym("broadcast_mul", [y, imp.tensor(ins[1])], imp.unique(name + "_mul"))
    if len(ins) > 2 and ins[2]:
        y = _sym("broadcast_add", [y, imp.tensor(ins[2])], name)
    else:
        y = _sym("_copy", [y], name)
    return [y, mean, inv]


@_imports("Split")
def _split(imp, node, ins, attrs):
    axis = int(attrs.get("axis", 0))
    shape = imp.static_shape(ins[0], "Split")
    if axis < 0:
        axis += len(shape)
    dim = shape[axis]
    n_out = len(node.output)
    sizes = attrs.get("split")
    if len(ins) > 1 and ins[1]:
        sizes = [int(v) for v in imp.const(ins[1], "split").reshape(-1)]
    if sizes is None:
        n = int(attrs.get("num_outputs", n_out))
        chunk = -(-dim // n)
        sizes = [min(chunk, dim - k * chunk) for k in range(n)]
    if sum(sizes) != dim or len(sizes) != n_out:
        imp.fail("split sizes %s do not cover dimension %d in %d outputs" % (sizes, dim, n_out))
    x = imp.tensor(ins[0])
    name = imp.name_for(node)
    outs, begin = [], 0
    for k, size in enumerate(sizes):
        if size <= 0:
            imp.fail("an empty split output is not mapped")
        outs.append(_sym("slice_axis", [x], imp.unique("%s_%d" % (name, k)), axis=axis,
                         begin=begin, end=begin + size))
        begin += size
    return outs


@_imports("Tile")
def _tile(imp, node, ins, attrs):
    repeats = [int(v) for v in imp.const(ins[1], "repeats").reshape(-1)]
    if imp.is_const(ins[0]):
        return np.tile(imp.const(ins[0]), repeats)
    name = imp.name_for(node)
    y = imp.tensor(ins[0])
    for axis, r in enumerate(repeats):
        if r < 1:
            imp.fail("repeats %s: an empty result is not mapped" % repeats)
        if r > 1:
            y = _sym("Concat", [y] * r, imp.unique("%s_%d" % (name, axis)), dim=axis, num_args=r)
    return _sym("_copy", [y], name)


def _blocks(imp, node, ins, attrs, to_space):
    b = int(attrs["blocksize"])
    n, c, h, w = imp.static_shape(ins[0], node.op_type)
    name = imp.name_for(node)
    x = imp.tensor(ins[0])
    if to_space:
        if _s(attrs.get("mode", "DCR")) == "DCR":
            shape, perm = (n, b, b, c // (b * b), h, w), (0, 3, 4, 1, 5, 2)
        else:
            shape, perm = (n, c // (b * b), b, b, h, w), (0, 1, 4, 2, 5, 3)
        out = (n, c // (b * b), h * b, w * b)
    else:
        shape = (n, c, h // b, b, w // b, b)
        perm = (0, 3, 5, 1, 2, 4) if _s(attrs.get("mode", "DCR")) == "DCR" else (0, 1, 3, 5, 2, 4)
        out = (n, c * b * b, h // b, w // b)
    y = _sym("Reshape", [x], imp.unique(name + "_split"), shape=shape)
    y = _sym("transpose", [y], imp.unique(name + "_perm"), axes=perm)
    return _sym("Reshape", [y], name, shape=out)


@_imports("DepthToSpace")
def _depth_to_space(imp, node, ins, attrs):
    return _blocks(imp, node, ins, attrs, True)


@_imports("SpaceToDepth")
def _space_to_depth(imp, node, ins, attrs):
    return _blocks(imp, node, ins, attrs, False)


def _nearest_is_repeat(ctm, nearest, size, f):
    """Whether ONNX's nearest resizing of a dimension of `size` by the
    integer factor f picks source index i // f for every output index i."""
    out = size * f
    i = np.arange(out, dtype=np.float64)
    if ctm in ("half_pixel", "pytorch_half_pixel"):
        v = (i + 0.5) / f - 0.5
    elif ctm == "asymmetric":
        v = i / f
    elif ctm == "tf_half_pixel_for_nn":
        v = (i + 0.5) / f
    elif ctm == "align_corners":
        v = i * (size - 1) / max(out - 1, 1)
    else:
        return False
    if nearest == "round_prefer_floor":
        src = np.ceil(v - 0.5)
    elif nearest == "round_prefer_ceil":
        src = np.floor(v + 0.5)
    elif nearest == "floor":
        src = np.floor(v)
    elif nearest == "ceil":
        src = np.ceil(v)
    else:
        return False
    src = np.clip(src, 0, size - 1)
    return bool(np.array_equal(src, i // f))


@_imports("Resize", "Upsample")
def _resize(imp, node, ins, attrs):
    shape = imp.static_shape(ins[0], node.op_type)
    mode = _s(attrs.get("mode", "nearest"))
    ctm = _s(attrs.get("coordinate_transformation_mode", "half_pixel"))
    nearest = _s(attrs.get("nearest_mode", "round_prefer_floor"))
    if node.op_type == "Upsample":
        ctm, nearest = "asymmetric", "floor"
        scales = imp.const(ins[1], "scales").reshape(-1) if len(ins) > 1 else attrs.get("scales")
        sizes = None
    else:
        scales = imp.const(ins[2], "scales").reshape(-1) if len(ins) > 2 and ins[2] else None
        sizes = imp.const(ins[3], "sizes").reshape(-1) if len(ins) > 3 and ins[3] else None
        policy = _s(attrs.get("keep_aspect_ratio_policy", "stretch"))
        if policy != "stretch" and sizes is not None:
            imp.fail("keep_aspect_ratio_policy=%s is not mapped" % policy)
        axes = attrs.get("axes")
        if axes is not None:
            # scales / sizes for the listed axes only: the others keep their size
            axes = [a + len(shape) if a < 0 else a for a in axes]
            if sizes is not None:
                full = list(shape)
                for a, v in zip(axes, sizes):
                    full[a] = int(v)
                sizes = full
            else:
                full = [1.0] * len(shape)
                for a, v in zip(axes, scales):
                    full[a] = float(v)
                scales = full
    if sizes is None and scales is None:
        imp.fail("neither scales nor sizes is given")
    if len(sizes if sizes is not None else scales) != len(shape):
        imp.fail("scales/sizes for %d dimensions of a %d-D input"
                 % (len(sizes if sizes is not None else scales), len(shape)))
    if mode == "linear":
        return _resize_linear(imp, node, ins, attrs, shape, sizes, scales, ctm)
    if sizes is not None:
        if any(int(i) <= 0 or int(o) % int(i) for o, i in zip(sizes, shape)):
            imp.fail("sizes %s are not integer multiples of %s" % (list(sizes), list(shape)))
        factors = [int(o) // int(i) for o, i in zip(sizes, shape)]
    else:
        factors = [float(f) for f in scales]
        if any(f != int(f) or f < 1 for f in factors):
            imp.fail("scales %s: only integer upsampling factors are mapped" % factors)
        factors = [int(f) for f in factors]
    if mode != "nearest":
        imp.fail("mode '%s' is not mapped (nearest with integer factors only)" % mode)
    for d, f in zip(shape, factors):
        if f > 1 and not _nearest_is_repeat(ctm, nearest, d, f):
            imp.fail("coordinate_transformation_mode=%s with nearest_mode=%s by %d is not a "
                     "repetition (not mapped)" % (ctm, nearest, f))
    name = imp.name_for(node)
    x = imp.tensor(ins[0])
    if all(f == 1 for f in factors):
        return _sym("_copy", [x], name)
    # each dimension d becomes (d, 1) plus zeros (1, f): every entry repeated f times
    split = []
    for d, f in zip(shape, factors):
        split += [d, 1]
    zeros = []
    for f in factors:
        zeros += [1, f]
    y = _sym("Reshape", [x], imp.unique(name + "_split"), shape=tuple(split))
    z = imp.param(name + "_repeat", np.zeros(zeros, dtype=imp.dtype(ins[0])))
    y = _sym("broadcast_add", [y, z], imp.unique(name + "_rep"))
    return _sym("Reshape", [y], name, shape=tuple(d * f for d, f in zip(shape, factors)))


def _resize_linear(imp, node, ins, attrs, shape, sizes, scales, ctm):
    """Bilinear Resize of the last two axes of a 4-D input as MXNet's
    BilinearResize2D: coordinate_transformation_mode align_corners
    (align_corners=True), pytorch_half_pixel, or half_pixel with both output
    extents > 1 (align_corners=False: source max((i + 0.5) in / out - 0.5,
    0)); with `scales`, only where in * scale is the output size (ONNX then
    maps coordinates by the same in / out as MXNet)."""
    if len(shape) != 4:
        imp.fail("linear Resize of a %d-D input is not mapped (4-D, the last two axes)"
                 % len(shape))
    if int(attrs.get("antialias", 0)):
        imp.fail("antialias=1 is not mapped (MXNet's bilinear resize does not filter)")
    if sizes is not None:
        out = [int(v) for v in sizes]
    else:
        out = [int(np.floor(d * float(f))) for d, f in zip(shape, scales)]
        if any(d * float(f) != o for d, f, o in zip(shape, scales, out)):
            imp.fail("scales %s do not give whole output extents of %s (ONNX's coordinates "
                     "would then differ from in / out)" % ([float(f) for f in scales],
                                                           list(shape)))
    if out[:2] != list(shape[:2]):
        imp.fail("linear Resize of the batch or channel axis is not mapped")
    if ctm == "align_corners":
        align = True
    elif ctm == "pytorch_half_pixel" or (ctm == "half_pixel" and min(out[2:]) > 1):
        align = False
    else:
        imp.fail("linear Resize with coordinate_transformation_mode=%s is not mapped "
                 "(align_corners, pytorch_half_pixel, half_pixel)" % ctm)
    return _sym("_contrib_BilinearResize2D", [imp.tensor(ins[0])], imp.name_for(node),
                height=out[2], width=out[3], align_corners=align)


@_imports("Hardmax")
def _hardmax(imp, node, ins, attrs):
    """one_hot of the argmax over `axis` (the first maximum, as ONNX)."""
    shape = imp.static_shape(ins[0], "Hardmax")
    rank = len(shape)
    axis = int(attrs.get("axis", -1 if imp.opset >= 13 else 1))
    if axis < 0:
        axis += rank
    name = imp.name_for(node)
    x = imp.tensor(ins[0])
    if imp.opset < 13 and axis != rank - 1:
        # opsets 11-12: over the input coerced to 2-D at `axis`
        x = _sym("Reshape", [x], imp.unique(name + "_2d"),
                 shape=(int(np.prod(shape[:axis])), int(np.prod(shape[axis:]))))
        work_axis, work_rank = 1, 2
    else:
        work_axis, work_rank = axis, rank
    perm = None
    if work_axis != work_rank - 1:
        perm = list(range(work_rank))
        perm[work_axis], perm[-1] = perm[-1], perm[work_axis]
        x = _sym("transpose", [x], imp.unique(name + "_last"), axes=tuple(perm))
    depth = int(shape[axis]) if imp.opset >= 13 or axis == rank - 1 else int(np.prod(shape[axis:]))
    idx = _sym("argmax", [x], imp.unique(name + "_arg"), axis=-1)
    y = _sym("one_hot", [idx], imp.unique(name + "_hot"), depth=depth,
             dtype=imp.dtype(ins[0]).name)
    if perm is not None:
        y = _sym("transpose", [y], imp.unique(name + "_back"), axes=tuple(perm))
    return _sym("Reshape", [y], name, shape=tuple(shape))


@_imports("Mish")
def _mish(imp, node, ins, attrs):
    name = imp.name_for(node)
    x = imp.tensor(ins[0])
    sp = _sym("Activation", [x], imp.unique(name + "_sp"), act_type="softrelu")
    return _sym("elemwise_mul", [x, _sym("tanh", [sp], imp.unique(name + "_t"))], name)


@_imports("ThresholdedRelu")
def _thresholded_relu(imp, node, ins, attrs):
    name = imp.name_for(node)
    x = imp.tensor(ins[0])
    mask = _sym("_greater_scalar", [x], imp.unique(name + "_m"),
                scalar=float(attrs.get("alpha", 1.0)))
    return _sym("elemwise_mul", [x, mask], name)


@_imports("Celu")
def _celu(imp, node, ins, attrs):
    alpha = float(attrs.get("alpha", 1.0))
    name = imp.name_for(node)
    x = imp.tensor(ins[0])
    pos = _sym("relu", [x], imp.unique(name + "_pos"))
    e = _sym("exp", [_sym("_div_scalar", [x], imp.unique(name + "_d"), scalar=alpha)],
             imp.unique(name + "_e"))
    neg = _sym("_minimum_scalar", [_sym("_mul_scalar", [_sym("_minus_scalar", [e],
                                                              imp.unique(name + "_m1"), scalar=1.0)],
                                        imp.unique(name + "_a"), scalar=alpha)],
               imp.unique(name + "_neg"), scalar=0.0)
    return _sym("elemwise_add", [pos, neg], name)


@_imports("Size")
def _size(imp, node, ins, attrs):
    return np.asarray(int(np.prod(imp.static_shape(ins[0], "Size"))), dtype=np.int64)


@_imports("GatherND")
def _gather_nd(imp, node, ins, attrs):
    """ONNX's indices (..., M) index the first M axes; MXNet's gather_nd
    takes them as (M, ...): the last axis moved first. Negative indices
    count from the end (constant indices at import, else by adding the
    extent where an index is negative)."""
    if int(attrs.get("batch_dims", 0)):
        imp.fail("batch_dims=%d is not mapped (MXNet's gather_nd has none)"
                 % int(attrs["batch_dims"]))
    shape = imp.static_shape(ins[0], "GatherND")
    if len(ins) < 2 or not ins[1] or len(imp.static_shape(ins[1], "GatherND")) < 1:
        imp.fail("GatherND takes data and indices of rank >= 1")
    name = imp.name_for(node)
    if imp.is_const(ins[1]):
        idx = np.asarray(imp.const(ins[1])).astype(np.int64)
        m = idx.shape[-1]
        if m > len(shape):
            imp.fail("indices of depth %d for a rank-%d input" % (m, len(shape)))
        idx = np.where(idx < 0, idx + np.asarray(shape[:m], np.int64), idx)
        idx = imp.param(name + "_indices", np.moveaxis(idx, -1, 0))
    else:
        ishape = imp.static_shape(ins[1], "GatherND")
        m, rank = ishape[-1], len(ishape)
        if m > len(shape):
            imp.fail("indices of depth %d for a rank-%d input" % (m, len(shape)))
        idx = _sym("transpose", [imp.tensor(ins[1])], imp.unique(name + "_t"),
                   axes=(rank - 1,) + tuple(range(rank - 1)))
        extents = imp.param(name + "_extents", np.asarray(shape[:m], imp.dtype(ins[1])).reshape(
            (m,) + (1,) * (rank - 1)))
        neg = _sym("_lesser_scalar", [idx], imp.unique(name + "_neg"), scalar=0.0)
        idx = _sym("broadcast_add", [idx, _sym("broadcast_mul", [neg, extents],
                                              imp.unique(name + "_wrap"))],
                   imp.unique(name + "_idx"))
    return _sym("gather_nd", [imp.tensor(ins[0]), idx], name)


# ONNX gate k of each cell, in MXNet's gate order (rnn-inl.h): lstm i, f, g, o
# from ONNX i, o, f, c; gru r, z, n from ONNX z, r, h; one gate for RNN.
_RNN_GATES = {"LSTM": [0, 2, 3, 1], "GRU": [1, 0, 2], "RNN": [0]}
_RNN_ACTIVATIONS = {"LSTM": ["Sigmoid", "Tanh", "Tanh"], "GRU": ["Sigmoid", "Tanh"]}


@_imports("LSTM", "GRU", "RNN")
def _recurrent(imp, node, ins, attrs):
    """ONNX LSTM / GRU / RNN (one layer, forward, reverse or bidirectional)
    as MXNet's fused RNN: W, R and B re-laid into its flat `parameters`
    (per direction the input then the recurrent weights, then all the
    biases; gates in MXNet's order), missing initial states as zeros,
    layout 1 (batch first) and `reverse` by transposes and reverses around
    it; Y (T, N, D*H) reshaped to ONNX's (T, D, N, H). What MXNet's cell
    cannot compute is a one-line error: other activations, `clip`,
    `input_forget`, peepholes, GRU without `linear_before_reset`, sequence
    lengths shorter than the sequence."""
    op = node.op_type
    order = _RNN_GATES[op]
    gates = len(order)
    if len(ins) < 3 or not all(ins[:3]):
        imp.fail("%s takes X, W and R" % op)
    ins = ins + [""] * (8 - len(ins))
    for k, what, rank in ((0, "X", 3), (1, "W", 3), (2, "R", 3), (3, "B", 2),
                          (5, "initial_h", 3), (6, "initial_c", 3)):
        if ins[k] and len(imp.static_shape(ins[k], "%s %s" % (op, what))) != rank:
            imp.fail("%s has rank %d, not %d" % (what, len(imp.shape(ins[k])), rank))
    direction = _s(attrs.get("direction", "forward"))
    if direction not in ("forward", "reverse", "bidirectional"):
        imp.fail("direction '%s' is not one of forward, reverse, bidirectional" % direction)
    dirs = 2 if direction == "bidirectional" else 1
    layout = int(attrs.get("layout", 0))
    if layout not in (0, 1):
        imp.fail("layout=%d is not 0 or 1" % layout)
    if attrs.get("clip") is not None:
        imp.fail("clip (bounding the gates' inputs) has no MXNet RNN form")
    if int(attrs.get("input_forget", 0)):
        imp.fail("input_forget=1 (coupled input and forget gates) has no MXNet RNN form")
    if attrs.get("activation_alpha") or attrs.get("activation_beta"):
        imp.fail("activation_alpha / activation_beta have no MXNet RNN form")
    acts = [_s(a) for a in attrs.get("activations") or []]
    if op == "RNN":
        acts = acts or ["Tanh"] * dirs
        if len(set(acts)) != 1 or acts[0] not in ("Tanh", "Relu"):
            imp.fail("activations %s: MXNet's RNN has tanh or relu, the same in both directions"
                     % acts)
        mode = "rnn_relu" if acts[0] == "Relu" else "rnn_tanh"
    else:
        default = _RNN_ACTIVATIONS[op]
        if acts and acts != default * (len(acts) // len(default)):
            imp.fail("activations %s: MXNet's %s has %s" % (acts, op.lower(), default))
        mode = op.lower()
    if op == "GRU" and not int(attrs.get("linear_before_reset", 0)):
        imp.fail("linear_before_reset=0 (the reset gate applied before the recurrent weights) "
                 "has no MXNet GRU form (MXNet's is linear_before_reset=1)")
    if op == "LSTM" and ins[7]:
        imp.fail("peepholes (input P) have no MXNet LSTM form")
    steps, batch, size = imp.static_shape(ins[0], op)
    if layout == 1:
        steps, batch = batch, steps
    wshape = imp.static_shape(ins[1], op + " W")
    hidden = int(attrs.get("hidden_size", 0)) or (wshape[1] // gates)
    gh = gates * hidden
    if tuple(wshape) != (dirs, gh, size):
        imp.fail("W has shape %s, expected %s" % (tuple(wshape), (dirs, gh, size)))
    if tuple(imp.static_shape(ins[2], op + " R")) != (dirs, gh, hidden):
        imp.fail("R has shape %s, expected %s" % (imp.shape(ins[2]), (dirs, gh, hidden)))
    if ins[3] and tuple(imp.static_shape(ins[3], op + " B")) != (dirs, 2 * gh):
        imp.fail("B has shape %s, expected %s" % (imp.shape(ins[3]), (dirs, 2 * gh)))
    if ins[4]:
        if not imp.is_const(ins[4]) or np.any(imp.const(ins[4]) != steps):
            imp.fail("sequence_lens shorter than the sequence (%d steps) are not mapped" % steps)
    name = imp.name_for(node)

    # the flat parameters: [W_d, R_d for each d] + [Wb_d, Rb_d for each d]
    if all(imp.is_const(i) for i in ins[1:4] if i):
        w, r = imp.const(ins[1]), imp.const(ins[2])
        b = imp.const(ins[3]) if ins[3] else np.zeros((dirs, 2 * gh), w.dtype)

        def lay(v, per_gate):
            return v.reshape((gates, hidden) + per_gate)[order].reshape(-1)
        pieces = []
        for d in range(dirs):
            pieces += [lay(w[d], (size,)), lay(r[d], (hidden,))]
        for d in range(dirs):
            pieces += [lay(b[d, :gh], ()), lay(b[d, gh:], ())]
        params = imp.param(name + "_parameters", np.concatenate(pieces).astype(np.float32))
    else:
        def lay(v, d, lo, per, hint):
            # v[d, lo:lo + gh] (gates x hidden x per) in MXNet's gate order, flat
            x = _sym("slice_axis", [v], imp.unique(hint), axis=0, begin=d, end=d + 1)
            x = _sym("Reshape", [x], imp.unique(hint + "_r"), shape=(-1,))
            x = _sym("slice_axis", [x], imp.unique(hint + "_s"), axis=0, begin=lo * per,
                     end=(lo + gh) * per)
            x = _sym("Reshape", [x], imp.unique(hint + "_g"), shape=(gates, -1))
            parts = [_sym("slice_axis", [x], imp.unique(hint + "_%d" % k), axis=0, begin=k,
                          end=k + 1) for k in order]
            x = parts[0] if gates == 1 else _sym("Concat", parts, imp.unique(hint + "_c"),
                                                  dim=0, num_args=gates)
            return _sym("Reshape", [x], imp.unique(hint + "_f"), shape=(-1,))
        w, r = imp.tensor(ins[1]), imp.tensor(ins[2])
        b = imp.tensor(ins[3]) if ins[3] else imp.param(
            name + "_bias", np.zeros((dirs, 2 * gh), np.float32))
        pieces = []
        for d in range(dirs):
            pieces += [lay(w, d, 0, size, "%s_w%d" % (name, d)),
                       lay(r, d, 0, hidden, "%s_r%d" % (name, d))]
        for d in range(dirs):
            pieces += [lay(b, d, 0, 1, "%s_bx%d" % (name, d)),
                       lay(b, d, gh, 1, "%s_bh%d" % (name, d))]
        params = _sym("Concat", pieces, imp.unique(name + "_parameters"), dim=0,
                      num_args=len(pieces))

    def batch_second(v, hint):
        # layout 1's (N, T or D, ...) to (T or D, N, ...)
        return v if layout == 0 else _sym("SwapAxis", [v], imp.unique(hint), dim1=0, dim2=1)

    def initial(k, hint):
        if ins[k]:
            return batch_second(imp.tensor(ins[k]), name + hint)
        return _sym("_zeros", [], imp.unique(name + hint), shape=(dirs, batch, hidden),
                    dtype="float32")

    x = batch_second(imp.tensor(ins[0]), name + "_x")
    if direction == "reverse":
        x = _sym("reverse", [x], imp.unique(name + "_xrev"), axis=0)
    states = [initial(5, "_h0")] + ([initial(6, "_c0")] if op == "LSTM" else [])
    rnn = _sym("RNN", [x, params] + states, imp.unique(name + "_rnn"), mode=mode,
               state_size=hidden, num_layers=1, bidirectional=dirs == 2, state_outputs=True)
    y = rnn[0]
    if direction == "reverse":
        y = _sym("reverse", [y], imp.unique(name + "_yrev"), axis=0)
    y = _sym("Reshape", [y], imp.unique(name + "_y4"), shape=(steps, batch, dirs, hidden))
    y = _sym("transpose", [y], imp.unique(name + "_y"),
             axes=(0, 2, 1, 3) if layout == 0 else (1, 0, 2, 3))
    outs = [y]
    for k in range(1, 3 if op == "LSTM" else 2):
        outs.append(batch_second(rnn[k], name + "_state%d" % k))
    return outs


def supported_ops():
    """The ONNX operator types import_model maps."""
    return sorted(_IMPORTERS)


# -- the driver ------------------------------------------------------------------------------
def _read_model(model_file):
    onnx = require_onnx()
    path = os.fspath(model_file)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise MXNetError("import_model: cannot read '%s': %s" % (path, e.strerror)) from None
    if not data:
        raise MXNetError("import_model: '%s' is empty, not an ONNX model" % path)
    try:
        model = onnx.load_model_from_string(data)
    except Exception as e:
        first = (str(e).splitlines() or [type(e).__name__])[0]
        raise MXNetError("import_model: '%s' is not a valid ONNX model (%s)" % (path, first)) \
            from None
    if not model.HasField("graph") or not model.opset_import:
        raise MXNetError("import_model: '%s' is not a valid ONNX model (no graph or no opset)"
                         % path)
    has_external = any(t.data_location == onnx.TensorProto.EXTERNAL
                       for t in model.graph.initializer)
    if has_external:
        try:
            from onnx.external_data_helper import load_external_data_for_model
            load_external_data_for_model(model, os.path.dirname(os.path.abspath(path)))
        except Exception as e:
            raise MXNetError("import_model: '%s': its external data cannot be read (%s)"
                             % (path, (str(e).splitlines() or [""])[0])) from None
    try:
        onnx.checker.check_model(model)
    except Exception as e:
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise MXNetError("import_model: '%s' is not a valid ONNX model (%s)" % (path, first)) \
            from None
    return model


def model_from_proto(model):
    """(sym, arg_params, aux_params) of an onnx.ModelProto already in memory."""
    return _Importer(model).run()


def import_model(model_file):
    """(sym, arg_params, aux_params) of the ONNX model in `model_file`, as
    MXNet's mx.contrib.onnx.import_model returns them."""
    model = _read_model(model_file)
    return _Importer(model).run()


def import_to_gluon(model_file, ctx=None):
    """The ONNX model as a gluon.SymbolBlock with its parameters loaded (MXNet's
    mx.contrib.onnx.import_to_gluon): the block's inputs are the graph's
    inputs, in order."""
    from ..gluon import SymbolBlock
    from .. import context as _context
    model = _read_model(model_file)
    sym, arg_params, aux_params = _Importer(model).run()
    inits = {i.name for i in model.graph.initializer}
    names = set(sym.list_arguments()) | set(sym.list_auxiliary_states())
    data = [vi.name for vi in model.graph.input if vi.name not in inits and vi.name in names]
    net = SymbolBlock(sym, [_symbol.Variable(n) for n in data])
    ctx = ctx or _context.current_context()
    params = net.collect_params()
    for name, arr in list(arg_params.items()) + list(aux_params.items()):
        if name in params:
            params[name].shape = arr.shape
            params[name]._load_init(arr, [ctx] if not isinstance(ctx, (list, tuple)) else ctx)
    return net


def get_model_metadata(model_file):
    """{'input_tensor_data': [(name, shape)], 'output_tensor_data': [...]}
    of the graph's inputs (initializers left out) and outputs, as MXNet's
    get_model_metadata answers."""
    model = _read_model(model_file)
    inits = {i.name for i in model.graph.initializer}

    def info(vis):
        out = []
        for vi in vis:
            if vi.name in inits:
                continue
            dims = tuple(d.dim_value if d.HasField("dim_value") else d.dim_param
                         for d in vi.type.tensor_type.shape.dim)
            out.append((vi.name, dims))
        return out
    return {"input_tensor_data": info(model.graph.input),
            "output_tensor_data": info(model.graph.output)}
