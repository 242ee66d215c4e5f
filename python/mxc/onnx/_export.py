"""mx.onnx.export_model: an mxc/MXNet Symbol and its parameters as an ONNX
model (the interface of MXNet 1.9's mx2onnx).

The graph is walked in MXNet's node order (inputs first). Each operator node
becomes one or a few ONNX nodes through the translation table _EXPORTERS
below; the values the table's functions need to know (input ranks, a
Reshape's result, dtypes of scalars) come from mxc's own shape and type
inference of the whole graph for the shapes given. Parameters become
initializers; every other variable is a graph input, in the order of the
graph, except the label of a loss output (SoftmaxOutput's label), which
inference does not need.

ONNX value names: a node's first output keeps the node's name, its other
outputs are '<name>_out<i>'; helper values a translation adds are
'<name>__<what>'.
"""
import logging
import os

import numpy as np

from ..base import MXNetError
from .. import _ops
from ._common import (DEFAULT_EXPORT_OPSET, attr_bool, attr_float, attr_int, attr_shape,
                      attr_str, onnx_elem_type, require_onnx)

#: operators whose input 1 is a training label that inference drops
_LOSS_OUTPUTS = {"SoftmaxOutput": 1, "LinearRegressionOutput": 1, "LogisticRegressionOutput": 1,
                 "MAERegressionOutput": 1, "SVMOutput": 1}

_INT64_MAX = np.iinfo(np.int64).max


class _Emitter:
    """The ONNX graph being written: nodes, initializers, unique names."""

    def __init__(self, opset):
        self.onnx = require_onnx()
        self.opset = opset
        self.nodes = []
        self.initializers = []
        self.used = set()

    def unique(self, hint):
        name, k = hint, 1
        while name in self.used:
            name = "%s_%d" % (hint, k)
            k += 1
        self.used.add(name)
        return name

    def const(self, hint, value, dtype=None):
        """An initializer holding `value` (numpy-convertible); its name."""
        arr = np.asarray(value, dtype=dtype)
        name = self.unique(hint)
        self.initializers.append(self.onnx.numpy_helper.from_array(arr, name))
        return name

    def ints(self, hint, values):
        return self.const(hint, np.asarray(list(values), dtype=np.int64))

    def node(self, op_type, inputs, outputs, name=None, **attrs):
        """Adds an ONNX node; `outputs` are names (already reserved) or an
        int (that many fresh names from `name`). Returns the output names."""
        if isinstance(outputs, int):
            base = name or op_type
            outputs = [self.unique("%s__%s%s" % (base, op_type.lower(), "" if i == 0 else i))
                       for i in range(outputs)]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(self.onnx.helper.make_node(
            op_type, list(inputs), list(outputs), name=self.unique(name or outputs[0]), **attrs))
        return list(outputs)

    def one(self, op_type, inputs, name, **attrs):
        """A one-output helper node; its output name."""
        return self.node(op_type, inputs, 1, name=name, **attrs)[0]


class _Node:
    """What a translation function sees of one MXNet node."""

    def __init__(self, op, name, attrs, inputs, in_shapes, in_dtypes, outs, out_shapes,
                 out_dtypes, input_nodes):
        self.op = op
        self.name = name
        self.attrs = attrs
        self.inputs = inputs          # ONNX names of the inputs
        self.in_shapes = in_shapes    # their shapes (tuples)
        self.in_dtypes = in_dtypes    # their numpy dtypes
        self.outs = outs              # ONNX names of the outputs
        self.out_shapes = out_shapes
        self.out_dtypes = out_dtypes
        self.input_nodes = input_nodes  # the MXNet source nodes (mxc symbol nodes)

    def fail(self, what):
        raise MXNetError("export_model: node '%s' (%s): %s" % (self.name, self.op, what))


# -- the translation table ---------------------------------------------------------
_EXPORTERS = {}


def _exports(*ops):
    def register(fn):
        for op in ops:
            _EXPORTERS[op] = fn
        return fn
    return register


def _spatial(n, key, default, rank):
    v = attr_shape(n.attrs, key, ())
    if not v:
        return [default] * rank
    if len(v) != rank:
        n.fail("%s=%s does not have %d dimensions" % (key, v, rank))
    return list(v)


def _check_layout(n, rank):
    layout = attr_str(n.attrs, "layout")
    if layout is not None and layout not in ("NCW", "NCHW", "NCDHW"):
        n.fail("layout %s is not exported (ONNX is channel-first; NCHW-style layouts only)" % layout)


@_exports("Convolution")
def _convolution(g, n):
    kernel = attr_shape(n.attrs, "kernel")
    d = len(kernel)
    _check_layout(n, d)
    ins = n.inputs[:2] if attr_bool(n.attrs, "no_bias") else n.inputs[:3]
    pad = _spatial(n, "pad", 0, d)
    g.node("Conv", ins, n.outs[:1], name=n.name, kernel_shape=list(kernel),
           strides=_spatial(n, "stride", 1, d), dilations=_spatial(n, "dilate", 1, d),
           pads=pad + pad, group=attr_int(n.attrs, "num_group", 1))


@_exports("Deconvolution")
def _deconvolution(g, n):
    kernel = attr_shape(n.attrs, "kernel")
    d = len(kernel)
    _check_layout(n, d)
    ins = n.inputs[:2] if attr_bool(n.attrs, "no_bias", True) else n.inputs[:3]
    stride, dilate = _spatial(n, "stride", 1, d), _spatial(n, "dilate", 1, d)
    pad, adj = _spatial(n, "pad", 0, d), _spatial(n, "adj", 0, d)
    target = attr_shape(n.attrs, "target_shape") or ()
    if any(target):  # MXNet's InferPad
        sp = n.in_shapes[0][2:]
        for i in range(d):
            total = stride[i] * (sp[i] - 1) + 1 + (kernel[i] - 1) * dilate[i] - target[i]
            adj[i], pad[i] = total % 2, (total + 1) // 2
    g.node("ConvTranspose", ins, n.outs[:1], name=n.name, kernel_shape=list(kernel),
           strides=stride, dilations=dilate, pads=pad + pad, output_padding=adj,
           group=attr_int(n.attrs, "num_group", 1))


@_exports("UpSampling")
def _upsampling(g, n):
    """nearest: Reshape + Expand + Reshape per input (+ Concat / Add), as the
    compiler's decomposition; bilinear: MXNet's ConvTranspose."""
    scale = attr_int(n.attrs, "scale")
    if n.attrs.get("sample_type") == "bilinear":
        k = 2 * scale - scale % 2
        p = (scale - 1 + 1) // 2
        g.node("ConvTranspose", n.inputs[:2], n.outs[:1], name=n.name, kernel_shape=[k, k],
               strides=[scale, scale], pads=[p, p, p, p],
               group=attr_int(n.attrs, "num_filter", 0))
        return
    oh, ow = n.out_shapes[0][2:]
    parts = []
    for x, (b, c, h, w) in zip(n.inputs, n.in_shapes):
        f = oh // h
        if f == 1:
            parts.append(x)
            continue
        v = g.one("Reshape", [x, g.ints(n.name + "__in", [b, c, h, 1, w, 1])], n.name)
        v = g.one("Expand", [v, g.ints(n.name + "__target", [b, c, h, f, w, f])], n.name)
        parts.append(g.one("Reshape", [v, g.ints(n.name + "__out", [b, c, h * f, w * f])],
                           n.name))
    if len(parts) == 1:
        g.node("Identity", parts, n.outs[:1], name=n.name)
    elif n.attrs.get("multi_input_mode", "concat") == "sum":
        g.node("Sum", parts, n.outs[:1], name=n.name)
    else:
        g.node("Concat", parts, n.outs[:1], name=n.name, axis=1)


@_exports("FullyConnected")
def _fully_connected(g, n):
    x, w = n.inputs[0], n.inputs[1]
    no_bias = attr_bool(n.attrs, "no_bias")
    rank = len(n.in_shapes[0])
    if attr_bool(n.attrs, "flatten", True):
        if rank != 2:
            x = g.one("Flatten", [x], n.name, axis=1)
        ins = [x, w] if no_bias else [x, w, n.inputs[2]]
        g.node("Gemm", ins, n.outs[:1], name=n.name, transB=1)
        return
    wt = g.one("Transpose", [w], n.name, perm=[1, 0])
    if no_bias:
        g.node("MatMul", [x, wt], n.outs[:1], name=n.name)
    else:
        y = g.one("MatMul", [x, wt], n.name)
        g.node("Add", [y, n.inputs[2]], n.outs[:1], name=n.name + "__bias")


@_exports("BatchNorm")
def _batch_norm(g, n, params):
    rank = len(n.in_shapes[0])
    axis = attr_int(n.attrs, "axis", 1)
    if axis < 0:
        axis += rank
    if axis != 1:
        n.fail("axis=%d: ONNX BatchNormalization normalises axis 1 only" % axis)
    if attr_bool(n.attrs, "output_mean_var"):
        n.fail("output_mean_var=True (the batch statistics outputs) is not exported")
    gamma = n.inputs[1]
    if attr_bool(n.attrs, "fix_gamma", True):
        # MXNet ignores gamma (uses 1) when fix_gamma is set.
        gamma = g.const(n.name + "__gamma_ones", np.ones(n.in_shapes[1], dtype=n.in_dtypes[1]))
    g.node("BatchNormalization", [n.inputs[0], gamma] + n.inputs[2:5], n.outs[:1], name=n.name,
           epsilon=attr_float(n.attrs, "eps", 1e-3), momentum=attr_float(n.attrs, "momentum", 0.9))


_ACTIVATIONS = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "softrelu": "Softplus",
                "softsign": "Softsign"}


@_exports("Activation")
def _activation(g, n):
    act = attr_str(n.attrs, "act_type")
    if act not in _ACTIVATIONS:
        n.fail("act_type=%s has no ONNX mapping" % act)
    g.node(_ACTIVATIONS[act], n.inputs[:1], n.outs[:1], name=n.name)


def _gelu(g, n, x, out):
    if g.opset >= 20:
        g.node("Gelu", [x], [out], name=n.name)
        return
    dt = n.in_dtypes[0]
    scaled = g.one("Div", [x, g.const(n.name + "__sqrt2", np.sqrt(2.0), dt)], n.name)
    erf = g.one("Erf", [scaled], n.name)
    one_plus = g.one("Add", [erf, g.const(n.name + "__one", 1.0, dt)], n.name)
    half_x = g.one("Mul", [x, g.const(n.name + "__half", 0.5, dt)], n.name)
    g.node("Mul", [half_x, one_plus], [out], name=n.name + "__gelu")


@_exports("LeakyReLU")
def _leaky_relu(g, n):
    act = attr_str(n.attrs, "act_type", "leaky")
    x, out = n.inputs[0], n.outs[0]
    slope = attr_float(n.attrs, "slope", 0.25)
    if act == "leaky":
        g.node("LeakyRelu", [x], [out], name=n.name, alpha=slope)
    elif act == "rrelu":  # inference: the mean of the bounds
        lo = attr_float(n.attrs, "lower_bound", 0.125)
        hi = attr_float(n.attrs, "upper_bound", 0.334)
        g.node("LeakyRelu", [x], [out], name=n.name, alpha=(lo + hi) / 2.0)
    elif act == "elu":
        g.node("Elu", [x], [out], name=n.name, alpha=slope)
    elif act == "selu":
        g.node("Selu", [x], [out], name=n.name, alpha=1.6732632423543772,
               gamma=1.0507009873554805)
    elif act == "gelu":
        _gelu(g, n, x, out)
    elif act == "prelu":
        # MXNet's gamma is (C,) over axis 1; ONNX broadcasts the slope from the right.
        rank = len(n.in_shapes[0])
        gshape = n.in_shapes[1]
        slope_in = n.inputs[1]
        if rank > 2 and len(gshape) == 1 and gshape[0] != 1:
            shape = g.ints(n.name + "__slope_shape", [gshape[0]] + [1] * (rank - 2))
            slope_in = g.one("Reshape", [slope_in, shape], n.name)
        g.node("PRelu", [x, slope_in], [out], name=n.name)
    else:
        n.fail("act_type=%s has no ONNX mapping" % act)


def _softmax_axis(g, n, op_type, x, out, axis, rank):
    """Softmax over one axis. Before opset 13 ONNX's Softmax normalises over
    every axis from `axis` on, so a middle axis goes last and back."""
    if axis < 0:
        axis += rank
    if g.opset >= 13 or axis == rank - 1:
        g.node(op_type, [x], [out], name=n.name, axis=axis)
        return
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    t = g.one("Transpose", [x], n.name + "__to_last", perm=perm)
    sm = g.one(op_type, [t], n.name, axis=rank - 1)
    g.node("Transpose", [sm], [out], name=n.name + "__back", perm=perm)


def _softmax_like(g, n, op_type):
    if attr_bool(n.attrs, "use_length"):
        n.fail("use_length=True is not exported")
    x = n.inputs[0]
    t = attr_float(n.attrs, "temperature")
    if t is not None and t != 1.0:
        x = g.one("Div", [x, g.const(n.name + "__temperature", t, n.in_dtypes[0])], n.name)
    out_dtype = n.out_dtypes[0]
    if out_dtype != n.in_dtypes[0]:
        x = g.one("Cast", [x], n.name, to=onnx_elem_type(out_dtype))
    _softmax_axis(g, n, op_type, x, n.outs[0], attr_int(n.attrs, "axis", -1),
                  len(n.in_shapes[0]))


@_exports("softmax")
def _softmax(g, n):
    _softmax_like(g, n, "Softmax")


@_exports("log_softmax")
def _log_softmax(g, n):
    _softmax_like(g, n, "LogSoftmax")


@_exports("LinearRegressionOutput", "MAERegressionOutput", "LogisticRegressionOutput")
def _regression_output(g, n):
    # inference: the identity, or sigmoid; the label is dropped
    op_type = "Sigmoid" if n.op == "LogisticRegressionOutput" else "Identity"
    g.node(op_type, n.inputs[:1], n.outs[:1], name=n.name)


@_exports("SoftmaxOutput")
def _softmax_output(g, n):
    x, out = n.inputs[0], n.outs[0]
    rank = len(n.in_shapes[0])
    if attr_bool(n.attrs, "preserve_shape"):
        g.node("Softmax", [x], [out], name=n.name, axis=-1)
    elif attr_bool(n.attrs, "multi_output") or rank <= 2:
        _softmax_axis(g, n, "Softmax", x, out, 1, rank)
    else:
        flat = g.one("Flatten", [x], n.name, axis=1)
        sm = g.one("Softmax", [flat], n.name, axis=1)
        g.node("Reshape", [sm, g.ints(n.name + "__shape", n.in_shapes[0])], [out],
               name=n.name + "__reshape")


@_exports("Pooling")
def _pooling(g, n):
    rank = len(n.in_shapes[0])
    d = rank - 2
    _check_layout(n, d)
    pool = attr_str(n.attrs, "pool_type", "max")
    x, out = n.inputs[0], n.outs[0]
    if attr_bool(n.attrs, "global_pool"):
        if pool == "max":
            g.node("GlobalMaxPool", [x], [out], name=n.name)
        elif pool == "avg":
            g.node("GlobalAveragePool", [x], [out], name=n.name)
        elif pool == "sum":
            _reduce(g, n, "ReduceSum", x, out, list(range(2, rank)), True)
        elif pool == "lp":
            g.node("GlobalLpPool", [x], [out], name=n.name, p=attr_int(n.attrs, "p_value", 2))
        else:
            n.fail("pool_type=%s has no ONNX mapping" % pool)
        return
    kernel = list(attr_shape(n.attrs, "kernel"))
    if len(kernel) != d:
        n.fail("kernel=%s does not match a %d-D input" % (tuple(kernel), rank))
    strides = _spatial(n, "stride", 1, d)
    pad = _spatial(n, "pad", 0, d)
    conv = attr_str(n.attrs, "pooling_convention", "valid")
    common = {"kernel_shape": kernel, "strides": strides}
    if conv == "same":
        if any(pad):
            n.fail("pooling_convention=same with pad=%s is not exported" % (tuple(pad),))
        common["auto_pad"] = "SAME_UPPER"
    elif conv == "full" and pool == "max":
        # MXNet's 'full' windows, exactly: floor mode with the right pads
        # widened to the last window's end (padding never wins a max)
        ends = []
        for i in range(d):
            size = n.in_shapes[0][2 + i]
            windows = -(-(size + 2 * pad[i] - kernel[i]) // strides[i]) + 1
            ends.append(pad[i] + max(0, (windows - 1) * strides[i] + kernel[i] - size - 2 * pad[i]))
        if all(p < k for p, k in zip(pad + ends, kernel + kernel)):
            common["pads"] = pad + ends
        else:
            # (ONNX Runtime wants pads below the kernel: an explicit Pad of the lowest value)
            dt = n.in_dtypes[0]
            low = np.finfo(dt).min if np.issubdtype(dt, np.floating) else np.iinfo(dt).min
            x = g.one("Pad", [x, g.ints(n.name + "__pads", [0, 0] + pad + [0, 0] + ends),
                              g.const(n.name + "__low", low, dt)], n.name, mode="constant")
            common["pads"] = [0] * (2 * d)
    else:
        common["pads"] = pad + pad
        if conv == "full":
            common["ceil_mode"] = 1
            # ONNX drops a last window that would start in the right padding;
            # MXNet's 'full' keeps it: such a window cannot be written.
            for i in range(d):
                size = n.in_shapes[0][2 + i]
                windows = -(-(size + 2 * pad[i] - kernel[i]) // strides[i]) + 1
                if (windows - 1) * strides[i] >= size + pad[i]:
                    n.fail("pooling_convention=full: the last window on axis %d starts in the "
                           "padding, which ONNX's ceil_mode drops" % (2 + i))
    if pool == "max":
        g.node("MaxPool", [x], [out], name=n.name, **common)
    elif pool in ("avg", "sum"):
        include = attr_bool(n.attrs, "count_include_pad", True)
        if pool == "sum":
            avg = g.one("AveragePool", [x], n.name, count_include_pad=1, **common)
            area = g.const(n.name + "__area", float(np.prod(kernel)), n.in_dtypes[0])
            g.node("Mul", [avg, area], [out], name=n.name + "__sum")
        else:
            g.node("AveragePool", [x], [out], name=n.name, count_include_pad=int(include), **common)
    elif pool == "lp":
        if common.pop("ceil_mode", 0) and g.opset < 18:
            n.fail("LpPool with pooling_convention=full needs opset 18")
        g.node("LpPool", [x], [out], name=n.name, p=attr_int(n.attrs, "p_value", 2), **common)
    else:
        n.fail("pool_type=%s has no ONNX mapping" % pool)


@_exports("Flatten")
def _flatten(g, n):
    g.node("Flatten", n.inputs[:1], n.outs[:1], name=n.name, axis=1)


@_exports("Reshape")
def _reshape(g, n, dynamic):
    if attr_bool(n.attrs, "reverse"):
        n.fail("reverse=True is not exported")
    shape = attr_shape(n.attrs, "shape", ())
    if not shape:
        shape = attr_shape(n.attrs, "target_shape", ())
    if shape and all(s >= -1 for s in shape) and sum(1 for s in shape if s == -1) <= 1:
        target = list(shape)   # 0 (copy) and -1 (infer) mean the same in ONNX
    else:
        target = list(n.out_shapes[0])  # MXNet's -2/-3/-4 codes: the inferred shape
        if dynamic and target and n.in_shapes[0] and target[0] == n.in_shapes[0][0]:
            target[0] = 0
    g.node("Reshape", [n.inputs[0], g.ints(n.name + "__shape", target)], n.outs[:1], name=n.name)


@_exports("Concat")
def _concat(g, n):
    g.node("Concat", n.inputs, n.outs[:1], name=n.name, axis=attr_int(n.attrs, "dim", 1))


@_exports("Dropout", "_copy", "BlockGrad", "_contrib_gradientmultiplier")
def _identity(g, n):
    g.node("Identity", n.inputs[:1], n.outs[:1], name=n.name)


@_exports("Cast", "amp_cast")
def _cast(g, n):
    g.node("Cast", n.inputs[:1], n.outs[:1], name=n.name, to=onnx_elem_type(n.out_dtypes[0]))


@_exports("amp_multicast")
def _amp_multicast(g, n):
    for k, (x, y) in enumerate(zip(n.inputs, n.outs)):
        g.node("Cast", [x], [y], name="%s_%d" % (n.name, k), to=onnx_elem_type(n.out_dtypes[k]))


@_exports("LRN")
def _lrn(g, n):
    g.node("LRN", n.inputs[:1], n.outs[:1], name=n.name, alpha=attr_float(n.attrs, "alpha", 1e-4),
           beta=attr_float(n.attrs, "beta", 0.75), bias=attr_float(n.attrs, "knorm", 2.0),
           size=attr_int(n.attrs, "nsize"))


@_exports("clip")
def _clip(g, n):
    dt = n.in_dtypes[0]
    lo = g.const(n.name + "__min", attr_float(n.attrs, "a_min"), dt)
    hi = g.const(n.name + "__max", attr_float(n.attrs, "a_max"), dt)
    g.node("Clip", [n.inputs[0], lo, hi], n.outs[:1], name=n.name)


@_exports("transpose")
def _transpose(g, n):
    axes = attr_shape(n.attrs, "axes", ())
    if not axes:
        axes = tuple(reversed(range(len(n.in_shapes[0]))))
    g.node("Transpose", n.inputs[:1], n.outs[:1], name=n.name, perm=list(axes))


@_exports("SwapAxis")
def _swap_axis(g, n):
    rank = len(n.in_shapes[0])
    perm = list(range(rank))
    a, b = attr_int(n.attrs, "dim1", 0) % rank, attr_int(n.attrs, "dim2", 0) % rank
    perm[a], perm[b] = perm[b], perm[a]
    g.node("Transpose", n.inputs[:1], n.outs[:1], name=n.name, perm=perm)


_BINARY = {"elemwise_add": "Add", "broadcast_add": "Add", "elemwise_sub": "Sub",
           "broadcast_sub": "Sub", "elemwise_mul": "Mul", "broadcast_mul": "Mul",
           "elemwise_div": "Div", "broadcast_div": "Div", "broadcast_power": "Pow",
           "broadcast_maximum": "Max", "broadcast_minimum": "Min"}
_COMPARE = {"broadcast_equal": ("Equal", False), "broadcast_not_equal": ("Equal", True),
            "broadcast_greater": ("Greater", False), "broadcast_greater_equal": ("GreaterOrEqual", False),
            "broadcast_lesser": ("Less", False), "broadcast_lesser_equal": ("LessOrEqual", False)}


def _compare_out(g, n, op_type, negate, a, b):
    """MXNet's comparisons give 0/1 in the input dtype; ONNX gives bool."""
    if g.opset < 12 and op_type in ("GreaterOrEqual", "LessOrEqual"):
        # (opset 11 has neither: the negation of the strict other one)
        op_type = "Less" if op_type == "GreaterOrEqual" else "Greater"
        negate = not negate
    c = g.one(op_type, [a, b], n.name)
    if negate:
        c = g.one("Not", [c], n.name)
    g.node("Cast", [c], n.outs[:1], name=n.name + "__cast", to=onnx_elem_type(n.out_dtypes[0]))


@_exports(*_BINARY)
def _binary(g, n):
    g.node(_BINARY[n.op], n.inputs[:2], n.outs[:1], name=n.name)


@_exports(*_COMPARE)
def _compare(g, n):
    op_type, negate = _COMPARE[n.op]
    _compare_out(g, n, op_type, negate, n.inputs[0], n.inputs[1])


# _X_scalar: (ONNX op, scalar on the left)
_SCALAR = {"_plus_scalar": ("Add", False), "_minus_scalar": ("Sub", False),
           "_rminus_scalar": ("Sub", True), "_mul_scalar": ("Mul", False),
           "_div_scalar": ("Div", False), "_rdiv_scalar": ("Div", True),
           "_power_scalar": ("Pow", False), "_rpower_scalar": ("Pow", True),
           "_maximum_scalar": ("Max", False), "_minimum_scalar": ("Min", False)}
_SCALAR_COMPARE = {"_equal_scalar": ("Equal", False), "_not_equal_scalar": ("Equal", True),
                   "_greater_scalar": ("Greater", False),
                   "_greater_equal_scalar": ("GreaterOrEqual", False),
                   "_lesser_scalar": ("Less", False), "_lesser_equal_scalar": ("LessOrEqual", False)}


def _scalar_const(g, n):
    dt = n.in_dtypes[0]
    return g.const(n.name + "__scalar", attr_float(n.attrs, "scalar", 1.0), dt)


@_exports(*_SCALAR)
def _scalar(g, n):
    op_type, left = _SCALAR[n.op]
    s = _scalar_const(g, n)
    ins = [s, n.inputs[0]] if left else [n.inputs[0], s]
    g.node(op_type, ins, n.outs[:1], name=n.name)


@_exports(*_SCALAR_COMPARE)
def _scalar_compare(g, n):
    op_type, negate = _SCALAR_COMPARE[n.op]
    _compare_out(g, n, op_type, negate, n.inputs[0], _scalar_const(g, n))


_UNARY = {"abs": "Abs", "negative": "Neg", "exp": "Exp", "log": "Log", "sqrt": "Sqrt",
          "relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "softsign": "Softsign"}


@_exports(*_UNARY)
def _unary(g, n):
    g.node(_UNARY[n.op], n.inputs[:1], n.outs[:1], name=n.name)


@_exports("square")
def _square(g, n):
    g.node("Mul", [n.inputs[0], n.inputs[0]], n.outs[:1], name=n.name)


def _reduce(g, n, op_type, x, out, axes, keepdims):
    """ONNX Reduce*: axes an attribute before opset 18 (13 for ReduceSum),
    an input since."""
    as_input = g.opset >= (13 if op_type == "ReduceSum" else 18)
    ins = [x]
    attrs = {"keepdims": int(keepdims)}
    if axes is not None:
        if as_input:
            ins.append(g.ints(n.name + "__axes", axes))
        else:
            attrs["axes"] = list(axes)
    g.node(op_type, ins, [out], name=n.name, **attrs)


def _moments_onnx(g, n, x, axes, eps, dtype):
    """(x - mean) / sqrt(var + eps) over `axes` (kept), and mean, var, std."""
    mean = g.unique(n.name + "__mean")
    _reduce(g, n, "ReduceMean", x, mean, axes, True)
    xc = g.one("Sub", [x, mean], n.name)
    var = g.unique(n.name + "__var")
    _reduce(g, n, "ReduceMean", g.one("Mul", [xc, xc], n.name), var, axes, True)
    std = g.one("Sqrt", [g.one("Add", [var, g.const(n.name + "__eps", np.asarray(eps, dtype))],
                               n.name)], n.name)
    return g.one("Div", [xc, std], n.name), mean, var, std


def _reshaped(g, n, x, shape):
    return g.one("Reshape", [x, g.ints(n.name + "__shape", shape)], n.name)


def _norm_outputs(g, n, values):
    """The node's outputs: values[i] (reshaped to the output's shape) to outs[i]."""
    for i, (v, out) in enumerate(zip(values, n.outs)):
        g.node("Reshape", [v, g.ints(n.name + "__oshape", n.out_shapes[i])], [out],
               name=n.name)


@_exports("LayerNorm")
def _layer_norm(g, n):
    shape = n.in_shapes[0]
    axis = attr_int(n.attrs, "axis", -1) % len(shape)
    xhat, mean, _, std = _moments_onnx(g, n, n.inputs[0], [axis], attr_float(n.attrs, "eps", 1e-5),
                                       n.in_dtypes[0])
    bshape = [1] * len(shape)
    bshape[axis] = shape[axis]
    y = g.one("Add", [g.one("Mul", [xhat, _reshaped(g, n, n.inputs[1], bshape)], n.name),
                      _reshaped(g, n, n.inputs[2], bshape)], n.name)
    _norm_outputs(g, n, [y, mean, std])


@_exports("InstanceNorm")
def _instance_norm(g, n):
    shape = n.in_shapes[0]
    xhat, mean, var, _ = _moments_onnx(g, n, n.inputs[0], list(range(2, len(shape))),
                                       attr_float(n.attrs, "eps", 1e-3), n.in_dtypes[0])
    bshape = [1, shape[1]] + [1] * (len(shape) - 2)
    y = g.one("Add", [g.one("Mul", [xhat, _reshaped(g, n, n.inputs[1], bshape)], n.name),
                      _reshaped(g, n, n.inputs[2], bshape)], n.name)
    _norm_outputs(g, n, [y, mean, var])


@_exports("GroupNorm")
def _group_norm(g, n):
    shape = n.in_shapes[0]
    groups = attr_int(n.attrs, "num_groups", 1)
    x = _reshaped(g, n, n.inputs[0], [shape[0], groups, -1])
    xhat, mean, _, std = _moments_onnx(g, n, x, [2], attr_float(n.attrs, "eps", 1e-5),
                                       n.in_dtypes[0])
    y = g.one("Add", [g.one("Mul", [xhat, _reshaped(g, n, n.inputs[1], [1, groups, 1])], n.name),
                      _reshaped(g, n, n.inputs[2], [1, groups, 1])], n.name)
    _norm_outputs(g, n, [y, mean, std])


@_exports("L2Normalization")
def _l2_normalization(g, n):
    shape = n.in_shapes[0]
    mode = attr_str(n.attrs, "mode") or "instance"
    axes = [1] if mode == "channel" else list(range(2 if mode == "spatial" else 1, len(shape)))
    x = n.inputs[0]
    sq = g.unique(n.name + "__sumsq")
    _reduce(g, n, "ReduceSum", g.one("Mul", [x, x], n.name), sq, axes, True)
    eps = g.const(n.name + "__eps", np.asarray(attr_float(n.attrs, "eps", 1e-10), n.in_dtypes[0]))
    norm = g.one("Sqrt", [g.one("Add", [sq, eps], n.name)], n.name)
    _norm_outputs(g, n, [g.one("Div", [x, norm], n.name), norm])


_REDUCE = {"sum": "ReduceSum", "mean": "ReduceMean", "max": "ReduceMax", "min": "ReduceMin",
           "prod": "ReduceProd", "nansum": "ReduceSum", "nanprod": "ReduceProd"}


@_exports(*_REDUCE)
def _reduction(g, n):
    rank = len(n.in_shapes[0])
    if n.op in ("nansum", "nanprod") and np.issubdtype(np.dtype(n.in_dtypes[0]), np.floating):
        # NaN replaced by the identity first
        x = n.inputs[0]
        ident = g.const(n.name + "__ident", 0.0 if n.op == "nansum" else 1.0, n.in_dtypes[0])
        n.inputs = [g.one("Where", [g.one("IsNaN", [x], n.name), ident, x], n.name)] + \
            list(n.inputs[1:])
    axis = attr_shape(n.attrs, "axis", None)
    keepdims = attr_bool(n.attrs, "keepdims")
    if axis is not None:
        axes = sorted(a + rank if a < 0 else a for a in axis)
        if attr_bool(n.attrs, "exclude"):
            axes = [a for a in range(rank) if a not in axes]
        if not axes and not attr_bool(n.attrs, "exclude"):
            axes = None  # axis=() reduces everything, as MXNet does
    else:
        axes = None
    if axes is not None and not axes:
        g.node("Identity", n.inputs[:1], n.outs[:1], name=n.name)
        return
    if not keepdims and tuple(n.out_shapes[0]) == (1,) and (axes is None or len(axes) == rank):
        # MXNet's full reduction is (1,), ONNX's a scalar
        y = g.one("Identity", [n.inputs[0]], n.name)
        red = g.unique(n.name + "__scalar")
        _reduce(g, n, _REDUCE[n.op], y, red, axes, False)
        g.node("Reshape", [red, g.ints(n.name + "__one", [1])], n.outs[:1],
               name=n.name + "__reshape")
        return
    _reduce(g, n, _REDUCE[n.op], n.inputs[0], n.outs[0], axes, keepdims)


@_exports("argmax")
def _argmax(g, n):
    x = n.inputs[0]
    axis = attr_int(n.attrs, "axis")
    keepdims = attr_bool(n.attrs, "keepdims")
    if axis is None:
        x = g.one("Reshape", [x, g.ints(n.name + "__flat", [-1])], n.name)
        axis = 0
    idx = g.one("ArgMax", [x], n.name, axis=axis, keepdims=int(keepdims))
    if tuple(n.out_shapes[0]) == (1,) and not keepdims:
        idx = g.one("Reshape", [idx, g.ints(n.name + "__one", [1])], n.name)
    g.node("Cast", [idx], n.outs[:1], name=n.name + "__cast", to=onnx_elem_type(n.out_dtypes[0]))


def _swap_last(g, n, x, rank, hint):
    perm = list(range(rank))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return g.one("Transpose", [x], n.name + hint, perm=perm)


@_exports("dot")
def _dot(g, n):
    a, b = n.inputs[:2]
    sa, sb = n.in_shapes[:2]
    ta, tb = attr_bool(n.attrs, "transpose_a"), attr_bool(n.attrs, "transpose_b")
    if len(sa) <= 2 and len(sb) <= 2:
        if ta and len(sa) == 2:
            a = _swap_last(g, n, a, 2, "__a")
        if tb and len(sb) == 2:
            b = _swap_last(g, n, b, 2, "__b")
        g.node("MatMul", [a, b], n.outs[:1], name=n.name)
        return
    if ta or tb:
        n.fail("transpose_a/transpose_b of an N-D dot are not exported")
    # MXNet's N-D dot contracts a's last axis with b's first: a 2-D product.
    k = sa[-1]
    a2 = g.one("Reshape", [a, g.ints(n.name + "__ashape", [-1, k])], n.name)
    b2 = g.one("Reshape", [b, g.ints(n.name + "__bshape", [k, -1])], n.name)
    y = g.one("MatMul", [a2, b2], n.name)
    g.node("Reshape", [y, g.ints(n.name + "__shape", list(n.out_shapes[0]))], n.outs[:1],
           name=n.name + "__reshape")


@_exports("batch_dot")
def _batch_dot(g, n):
    a, b = n.inputs[:2]
    if attr_bool(n.attrs, "transpose_a"):
        a = _swap_last(g, n, a, len(n.in_shapes[0]), "__a")
    if attr_bool(n.attrs, "transpose_b"):
        b = _swap_last(g, n, b, len(n.in_shapes[1]), "__b")
    g.node("MatMul", [a, b], n.outs[:1], name=n.name)


@_exports("expand_dims")
def _expand_dims(g, n):
    axis = attr_int(n.attrs, "axis")
    if axis < 0:
        axis += len(n.in_shapes[0]) + 1
    if g.opset < 13:
        g.node("Unsqueeze", [n.inputs[0]], n.outs[:1], name=n.name, axes=[axis])
    else:
        g.node("Unsqueeze", [n.inputs[0], g.ints(n.name + "__axes", [axis])], n.outs[:1],
               name=n.name)


@_exports("slice_axis")
def _slice_axis(g, n):
    axis = attr_int(n.attrs, "axis")
    begin = attr_int(n.attrs, "begin")
    end = attr_int(n.attrs, "end")
    if end is None:
        end = _INT64_MAX
    g.node("Slice", [n.inputs[0], g.ints(n.name + "__starts", [begin]),
                     g.ints(n.name + "__ends", [end]), g.ints(n.name + "__axes", [axis])],
           n.outs[:1], name=n.name)


def _slice_ranges(n, shape):
    """Per axis (start, stop, step) of MXNet's slice for `shape`, as Python's
    slice.indices gives them (MXNet's GetIndexRange clips the same way)."""
    import ast

    def tup(key):
        v = (n.attrs.get(key) or "()").strip()
        if v in ("()", "[]", ""):
            return ()
        val = ast.literal_eval(v)
        return tuple(val) if isinstance(val, (tuple, list)) else (val,)
    begin, end, step = tup("begin"), tup("end"), tup("step")
    out = []
    for i, dim in enumerate(shape):
        if i >= len(begin):
            out.append((0, dim, 1))
            continue
        s = step[i] if i < len(step) and step[i] is not None else 1
        out.append(slice(begin[i], end[i], s).indices(dim))
    return out


@_exports("slice")
def _slice(g, n):
    ranges = _slice_ranges(n, n.in_shapes[0])
    starts, ends, steps = [], [], []
    for b, e, s in ranges:
        starts.append(b)
        # a stop of -1 with a negative step is "before index 0", not the last
        ends.append(np.iinfo(np.int64).min if (s < 0 and e < 0) else e)
        steps.append(s)
    g.node("Slice", [n.inputs[0], g.ints(n.name + "__starts", starts),
                     g.ints(n.name + "__ends", ends),
                     g.ints(n.name + "__axes", range(len(ranges))),
                     g.ints(n.name + "__steps", steps)], n.outs[:1], name=n.name)


def _slice_indices(n, shape):
    """ScatterND indices of the region slice selects: (*region, rank)."""
    axes = [np.arange(b, e, s) for b, e, s in _slice_ranges(n, shape)]
    grid = np.meshgrid(*axes, indexing="ij")
    return np.stack(grid, axis=-1).astype(np.int64)


@_exports("_slice_assign")
def _slice_assign(g, n):
    idx = _slice_indices(n, n.in_shapes[0])
    g.node("ScatterND", [n.inputs[0], g.const(n.name + "__indices", idx), n.inputs[1]],
           n.outs[:1], name=n.name)


@_exports("_slice_assign_scalar")
def _slice_assign_scalar(g, n):
    idx = _slice_indices(n, n.in_shapes[0])
    updates = np.full(idx.shape[:-1], attr_float(n.attrs, "scalar", 0.0), dtype=n.in_dtypes[0])
    g.node("ScatterND", [n.inputs[0], g.const(n.name + "__indices", idx),
                         g.const(n.name + "__updates", updates)], n.outs[:1], name=n.name)


@_exports("where")
def _where(g, n):
    cond = n.inputs[0]
    if n.in_dtypes[0] != np.bool_:
        cond = g.one("Cast", [cond], n.name, to=require_onnx().TensorProto.BOOL)
    g.node("Where", [cond, n.inputs[1], n.inputs[2]], n.outs[:1], name=n.name)


def _filled_like(g, n, value):
    onnx = require_onnx()
    shape = g.one("Shape", n.inputs[:1], n.name)
    fill = onnx.numpy_helper.from_array(np.asarray([value], dtype=n.out_dtypes[0]), "value")
    g.node("ConstantOfShape", [shape], n.outs[:1], name=n.name, value=fill)


@_exports("zeros_like")
def _zeros_like(g, n):
    _filled_like(g, n, 0)


@_exports("ones_like")
def _ones_like(g, n):
    _filled_like(g, n, 1)


@_exports("one_hot")
def _one_hot(g, n):
    dt = n.out_dtypes[0]
    values = g.const(n.name + "__values", [attr_float(n.attrs, "off_value", 0.0),
                                           attr_float(n.attrs, "on_value", 1.0)], dt)
    depth = g.const(n.name + "__depth", [attr_int(n.attrs, "depth")], np.int64)
    idx = g.one("Cast", n.inputs[:1], n.name, to=require_onnx().TensorProto.INT64)
    g.node("OneHot", [idx, depth, values], n.outs[:1], name=n.name, axis=-1)


_UNARY_MORE = {"sign": "Sign", "rint": "Round", "floor": "Floor", "ceil": "Ceil",
               "reciprocal": "Reciprocal", "sin": "Sin", "cos": "Cos", "tan": "Tan",
               "arcsin": "Asin", "arccos": "Acos", "arctan": "Atan", "sinh": "Sinh",
               "cosh": "Cosh", "arcsinh": "Asinh", "arccosh": "Acosh", "arctanh": "Atanh"}


@_exports(*_UNARY_MORE)
def _unary_more(g, n):
    # (ONNX's Round is half to even, as MXNet's rint)
    g.node(_UNARY_MORE[n.op], n.inputs[:1], n.outs[:1], name=n.name)


@_exports("round", "trunc", "fix")
def _round_away(g, n):
    """round: half away from zero, sign(x) floor(|x| + 0.5); trunc / fix:
    toward zero, sign(x) floor(|x|)."""
    x = n.inputs[0]
    mag = g.one("Abs", [x], n.name)
    if n.op == "round":
        mag = g.one("Add", [mag, g.const(n.name + "__half", 0.5, n.in_dtypes[0])], n.name)
    fl = g.one("Floor", [mag], n.name)
    g.node("Mul", [g.one("Sign", [x], n.name), fl], n.outs[:1], name=n.name + "__signed")


@_exports("rsqrt")
def _rsqrt(g, n):
    g.node("Reciprocal", [g.one("Sqrt", n.inputs[:1], n.name)], n.outs[:1], name=n.name + "__rcp")


@_exports("log1p", "expm1", "log2", "log10")
def _log_exp_more(g, n):
    """(ONNX has no log1p / expm1: written as log(1 + x) and exp(x) - 1,
    which lose the small-x precision of MXNet's)"""
    x, dt = n.inputs[0], n.in_dtypes[0]
    if n.op == "log1p":
        g.node("Log", [g.one("Add", [x, g.const(n.name + "__one", 1.0, dt)], n.name)],
               n.outs[:1], name=n.name + "__log")
    elif n.op == "expm1":
        g.node("Sub", [g.one("Exp", [x], n.name), g.const(n.name + "__one", 1.0, dt)],
               n.outs[:1], name=n.name + "__sub")
    else:
        base = np.log(2.0) if n.op == "log2" else np.log(10.0)
        g.node("Div", [g.one("Log", [x], n.name), g.const(n.name + "__ln", base, dt)],
               n.outs[:1], name=n.name + "__div")


@_exports("degrees", "radians")
def _degrees_radians(g, n):
    f = 180.0 / np.pi if n.op == "degrees" else np.pi / 180.0
    g.node("Mul", [n.inputs[0], g.const(n.name + "__factor", f, n.in_dtypes[0])],
           n.outs[:1], name=n.name)


@_exports("cbrt", "rcbrt")
def _cbrt(g, n):
    """(ONNX has no cube root: sign(x) |x|^(1/3), its reciprocal for rcbrt)"""
    x, dt = n.inputs[0], n.in_dtypes[0]
    mag = g.one("Pow", [g.one("Abs", [x], n.name), g.const(n.name + "__third", 1.0 / 3.0, dt)],
                n.name)
    if n.op == "cbrt":
        g.node("Mul", [g.one("Sign", [x], n.name), mag], n.outs[:1], name=n.name + "__signed")
    else:
        g.node("Div", [g.one("Sign", [x], n.name), mag], n.outs[:1], name=n.name + "__signed")


@_exports("hard_sigmoid")
def _hard_sigmoid(g, n):
    g.node("HardSigmoid", n.inputs[:1], n.outs[:1], name=n.name,
           alpha=attr_float(n.attrs, "alpha", 0.2), beta=attr_float(n.attrs, "beta", 0.5))


@_exports("smooth_l1")
def _smooth_l1(g, n):
    """|x| > 1/s^2 ? |x| - 0.5/s^2 : 0.5 s^2 x^2"""
    x, dt = n.inputs[0], n.in_dtypes[0]
    bsq = attr_float(n.attrs, "scalar", 1.0) ** 2
    ax = g.one("Abs", [x], n.name)
    outer = g.one("Sub", [ax, g.const(n.name + "__half_ibsq", 0.5 / bsq, dt)], n.name)
    inner = g.one("Mul", [g.one("Mul", [x, x], n.name),
                          g.const(n.name + "__half_bsq", 0.5 * bsq, dt)], n.name)
    big = g.one("Greater", [ax, g.const(n.name + "__ibsq", 1.0 / bsq, dt)], n.name)
    g.node("Where", [big, outer, inner], n.outs[:1], name=n.name + "__where")


@_exports("_hypot", "broadcast_hypot", "_hypot_scalar")
def _hypot(g, n):
    """sqrt(a^2 + b^2) (without mxc's scaling against overflow)"""
    a = n.inputs[0]
    b = n.inputs[1] if n.op != "_hypot_scalar" else _scalar_const(g, n)
    s = g.one("Add", [g.one("Mul", [a, a], n.name), g.one("Mul", [b, b], n.name)], n.name)
    g.node("Sqrt", [s], n.outs[:1], name=n.name + "__sqrt")


@_exports("squeeze")
def _squeeze(g, n):
    # the inferred result shape: MXNet's squeeze of all unit axes and of a
    # (1,) result (no 0-d arrays) are both exactly a Reshape
    g.node("Reshape", [n.inputs[0], g.ints(n.name + "__shape", list(n.out_shapes[0]))],
           n.outs[:1], name=n.name)


@_exports("pick")
def _pick(g, n):
    # GatherElements on the index reshaped to data's shape with the axis as
    # extent 1. clip: Clip in float before the int64 Cast (>= 0, so the
    # Cast's truncation is MXNet's static_cast<int>; opset 11's Clip takes
    # no integers); wrap: the int64 index Mod the extent (sign of the divisor)
    onnx = require_onnx()
    shape = list(n.in_shapes[0])
    axis = attr_int(n.attrs, "axis", -1) % len(shape)
    extent = shape[axis]
    idx = n.inputs[1]
    if attr_str(n.attrs, "mode", "clip") == "wrap":
        idx = g.one("Cast", [idx], n.name, to=onnx.TensorProto.INT64)
        idx = g.one("Mod", [idx, g.const(n.name + "__n", [extent], np.int64)], n.name, fmod=0)
    else:
        f = g.one("Cast", [idx], n.name, to=onnx.TensorProto.FLOAT)
        f = g.one("Clip", [f, g.const(n.name + "__lo", 0.0, np.float32),
                           g.const(n.name + "__hi", float(extent - 1), np.float32)], n.name)
        idx = g.one("Cast", [f], n.name, to=onnx.TensorProto.INT64)
    keep = [1 if i == axis else d for i, d in enumerate(shape)]
    idx = g.one("Reshape", [idx, g.ints(n.name + "__keep", keep)], n.name)
    picked = g.one("GatherElements", [n.inputs[0], idx], n.name, axis=axis)
    g.node("Reshape", [picked, g.ints(n.name + "__shape", list(n.out_shapes[0]))],
           n.outs[:1], name=n.name)


def _gather_index(g, n, idx, extent, wrap):
    """An int64 index in [0, extent): the truncated index wrapped (Mod, the
    divisor's sign) or clipped (in float before the Cast, as pick)."""
    onnx = require_onnx()
    if wrap:
        idx = g.one("Cast", [idx], n.name, to=onnx.TensorProto.INT64)
        return g.one("Mod", [idx, g.const(n.name + "__n", [extent], np.int64)], n.name, fmod=0)
    f = g.one("Cast", [idx], n.name, to=onnx.TensorProto.FLOAT)
    f = g.one("Clip", [f, g.const(n.name + "__lo", 0.0, np.float32),
                       g.const(n.name + "__hi", float(extent - 1), np.float32)], n.name)
    return g.one("Cast", [f], n.name, to=onnx.TensorProto.INT64)


@_exports("take")
def _take(g, n):
    mode = attr_str(n.attrs, "mode", "clip")
    if mode == "raise":
        n.fail("mode='raise' has no ONNX mapping")
    shape = list(n.in_shapes[0])
    axis = attr_int(n.attrs, "axis", 0) % len(shape)
    idx = _gather_index(g, n, n.inputs[1], shape[axis], mode == "wrap")
    g.node("Gather", [n.inputs[0], idx], n.outs[:1], name=n.name, axis=axis)


@_exports("Embedding")
def _embedding(g, n):
    idx = _gather_index(g, n, n.inputs[0], n.in_shapes[1][0], False)
    g.node("Gather", [n.inputs[1], idx], n.outs[:1], name=n.name, axis=0)


@_exports("reverse")
def _reverse(g, n):
    # a Slice with step -1 along each reversed axis (twice along one axis:
    # the identity, as MXNet's kernel)
    rank = len(n.in_shapes[0])
    axes = []
    for a in attr_shape(n.attrs, "axis") or ():
        a %= rank
        axes.remove(a) if a in axes else axes.append(a)
    if not axes:
        g.node("Identity", n.inputs[:1], n.outs[:1], name=n.name)
        return
    big = np.iinfo(np.int64).max
    g.node("Slice", [n.inputs[0], g.ints(n.name + "__starts", [-1] * len(axes)),
                     g.ints(n.name + "__ends", [-big] * len(axes)),
                     g.ints(n.name + "__axes", axes), g.ints(n.name + "__steps", [-1] * len(axes))],
           n.outs[:1], name=n.name)


@_exports("broadcast_axis", "broadcast_like")
def _broadcast_axis(g, n):
    g.node("Expand", [n.inputs[0], g.ints(n.name + "__shape", list(n.out_shapes[0]))],
           n.outs[:1], name=n.name)


@_exports("shape_array", "size_array")
def _shape_array(g, n):
    if n.op == "shape_array":
        g.node("Shape", n.inputs[:1], n.outs[:1], name=n.name)
    else:
        g.node("Reshape", [g.one("Size", n.inputs[:1], n.name), g.ints(n.name + "__one", [1])],
               n.outs[:1], name=n.name)


@_exports("SliceChannel")
def _slice_channel(g, n):
    """Split into equal parts (opset 13+: the sizes as an input; before, the
    `split` attribute), then Squeeze each part with squeeze_axis."""
    rank = len(n.in_shapes[0])
    axis = attr_int(n.attrs, "axis", 1) % rank
    parts = attr_int(n.attrs, "num_outputs")
    sizes = [n.in_shapes[0][axis] // parts] * parts
    squeeze = attr_bool(n.attrs, "squeeze_axis", False)
    outs = [g.unique(n.name + "__part%d" % i) for i in range(parts)] if squeeze \
        else n.outs[:parts]
    if g.opset >= 13:
        g.node("Split", [n.inputs[0], g.ints(n.name + "__sizes", sizes)], outs, name=n.name,
               axis=axis)
    else:
        g.node("Split", n.inputs[:1], outs, name=n.name, axis=axis, split=sizes)
    if squeeze:
        for part, out in zip(outs, n.outs[:parts]):
            if g.opset >= 13:
                g.node("Squeeze", [part, g.ints(out + "__axes", [axis])], [out], name=out)
            else:
                g.node("Squeeze", [part], [out], name=out, axes=[axis])


@_exports("RNN")
def _rnn(g, n):
    """MXNet's fused RNN as one ONNX LSTM / GRU / RNN per layer: the flat
    `parameters` sliced into W, R, B per layer (both directions stacked),
    gates reordered (MXNet lstm i, f, g, o -> ONNX i, o, f, c; gru r, z, n
    -> z, r, h with linear_before_reset, MXNet's formula); Y (T, D, N, H)
    transposed to (T, N, D * H) for the next layer. Dropout between layers
    (inference) is the identity."""
    mode = attr_str(n.attrs, "mode")
    hidden, layers = attr_int(n.attrs, "state_size"), attr_int(n.attrs, "num_layers")
    dirs = 2 if attr_bool(n.attrs, "bidirectional", False) else 1
    if attr_str(n.attrs, "projection_size") not in (None, "None"):
        n.fail("projection_size has no ONNX mapping")
    if attr_str(n.attrs, "lstm_state_clip_min") not in (None, "None"):
        n.fail("lstm_state_clip_min/max has no ONNX mapping (ONNX's clip bounds the gates' "
               "inputs, not the cell state)")
    gates = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}[mode]
    order = {"lstm": [0, 3, 1, 2], "gru": [1, 0, 2]}.get(mode, [0])
    steps, batch, size = n.in_shapes[0]
    x, params, h0 = n.inputs[0], n.inputs[1], n.inputs[2]
    c0 = n.inputs[3] if mode == "lstm" else None
    gh = gates * hidden
    offset = [0]
    weights = sum(dirs * gh * ((size if l == 0 else dirs * hidden) + hidden) for l in range(layers))
    boffset = [weights]

    def piece(at, count, shape, hint):
        """params[at[0]:at[0] + count] as `shape` with the gates reordered."""
        begin = at[0]
        at[0] += count
        v = g.one("Slice", [params, g.ints(hint + "__b", [begin]),
                            g.ints(hint + "__e", [begin + count]), g.ints(hint + "__a", [0])],
                  hint)
        v = g.one("Reshape", [v, g.ints(hint + "__s", [gates, hidden] + shape)], hint + "_g")
        if order != list(range(gates)):
            v = g.one("Gather", [v, g.ints(hint + "__o", order)], hint + "_o", axis=0)
        return g.one("Reshape", [v, g.ints(hint + "__f", [1, gh] + shape)], hint + "_f")

    def state(src, l, hint):
        return g.one("Slice", [src, g.ints(hint + "__b", [l * dirs]),
                               g.ints(hint + "__e", [(l + 1) * dirs]), g.ints(hint + "__a", [0])],
                     hint)

    layer_in, in_size, last_h, last_c = x, size, [], []
    onnx_op = {"lstm": "LSTM", "gru": "GRU"}.get(mode, "RNN")
    for l in range(layers):
        ws, rs = [], []
        for d in range(dirs):
            base = "%s__l%d%s" % (n.name, l, "r" if d else "l")
            ws.append(piece(offset, gh * in_size, [in_size], base + "_w"))
            rs.append(piece(offset, gh * hidden, [hidden], base + "_r"))
        bs = []
        for d in range(dirs):
            base = "%s__l%d%s" % (n.name, l, "r" if d else "l")
            bx = piece(boffset, gh, [], base + "_bx")
            bh = piece(boffset, gh, [], base + "_bh")
            bs.append(g.one("Concat", [bx, bh], base + "_b", axis=1))
        cat = (lambda v, hint: v[0] if dirs == 1 else g.one("Concat", v, hint, axis=0))
        w = cat(ws, "%s__l%d_W" % (n.name, l))
        r = cat(rs, "%s__l%d_R" % (n.name, l))
        b = cat(bs, "%s__l%d_B" % (n.name, l))
        ins = [layer_in, w, r, b, "", state(h0, l, "%s__l%d_h0" % (n.name, l))]
        if mode == "lstm":
            ins.append(state(c0, l, "%s__l%d_c0" % (n.name, l)))
        extra = {}
        if mode == "gru":
            extra["linear_before_reset"] = 1
        if onnx_op == "RNN":
            extra["activations"] = ["Relu" if mode == "rnn_relu" else "Tanh"] * dirs
        outs = g.node(onnx_op, ins, 3 if mode == "lstm" else 2, name="%s__l%d" % (n.name, l),
                      hidden_size=hidden,
                      direction="bidirectional" if dirs == 2 else "forward", **extra)
        y = g.one("Transpose", [outs[0]], "%s__l%d_t" % (n.name, l), perm=[0, 2, 1, 3])
        target = n.outs[0] if l == layers - 1 else None
        shape = g.ints("%s__l%d_ys" % (n.name, l), [steps, batch, dirs * hidden])
        if target is not None:
            g.node("Reshape", [y, shape], [target], name=target)
            layer_in = target
        else:
            layer_in = g.one("Reshape", [y, shape], "%s__l%d_y" % (n.name, l))
        in_size = dirs * hidden
        last_h.append(outs[1])
        if mode == "lstm":
            last_c.append(outs[2])
    for out, parts in zip(n.outs[1:], [last_h, last_c]):
        if len(parts) == 1:
            g.node("Identity", parts, [out], name=out)
        else:
            g.node("Concat", parts, [out], name=out, axis=0)


def _averaging_matrix(out, size):
    """Adaptive average pooling along one axis: row i averages
    [floor(i size / out), ceil((i + 1) size / out))."""
    m = np.zeros((out, size), np.float64)
    for i in range(out):
        lo, hi = (i * size) // out, -((-(i + 1) * size) // out)
        m[i, lo:hi] = 1.0 / (hi - lo)
    return m


def _bilinear_matrix(out, size, align):
    """MXNet's bilinear taps along one axis (bilinear_resize.cc), as a matrix."""
    scale = np.float32(0.0)
    if out > 1:
        scale = np.float32((size - 1) / (out - 1) if align else size / out)
    m = np.zeros((out, size), np.float64)
    for i in range(out):
        src = np.float32(scale * np.float32(i)) if align else \
            np.float32(max(float(scale) * (i + 0.5) - 0.5, 0.0))
        lo = int(src)
        hi = lo + 1 if lo < size - 1 else lo
        frac = np.float32(src - np.float32(lo))
        m[i, lo] += 1.0 - frac
        m[i, hi] += frac
    return m


@_exports("_contrib_AdaptiveAvgPooling2D", "_contrib_BilinearResize2D")
def _resample2d(g, n):
    """Both as two MatMuls by constant matrices (rows x . columns^T per
    plane), the weights MXNet's kernels use: exact for every size."""
    _, _, h, w = n.in_shapes[0]
    _, _, oh, ow = n.out_shapes[0]
    if n.op == "_contrib_AdaptiveAvgPooling2D":
        rows, cols = _averaging_matrix(oh, h), _averaging_matrix(ow, w)
    else:
        align = attr_bool(n.attrs, "align_corners", True)
        rows, cols = _bilinear_matrix(oh, h, align), _bilinear_matrix(ow, w, align)
    dt = n.in_dtypes[0]
    t = g.one("MatMul", [n.inputs[0], g.const(n.name + "__cols", cols.T.astype(dt))], n.name)
    g.node("MatMul", [g.const(n.name + "__rows", rows.astype(dt)), t], n.outs[:1], name=n.name)


@_exports("_zeros", "_ones", "_full")
def _init_fill(g, n):
    value = {"_zeros": 0.0, "_ones": 1.0}.get(n.op)
    if value is None:
        value = attr_float(n.attrs, "value")
    dt = np.dtype(n.out_dtypes[0])
    v = np.array([value != 0 if dt == np.bool_ else
                  (np.trunc(value) if np.issubdtype(dt, np.integer) else value)]).astype(dt)
    g.node("ConstantOfShape", [g.ints(n.name + "__shape", n.out_shapes[0])], n.outs[:1],
           name=n.name, value=g.onnx.numpy_helper.from_array(v, n.name + "__value"))


@_exports("_arange", "_contrib_arange_like", "_eye")
def _constant_creation(g, n):
    """Values known at export (static shapes): a Constant."""
    shape = tuple(n.out_shapes[0])
    if n.op == "_eye":
        vals = np.eye(shape[0], shape[1], k=attr_int(n.attrs, "k", 0)).astype(n.out_dtypes[0])
    else:
        start = attr_float(n.attrs, "start", 0.0)
        if n.op == "_arange" and n.attrs.get("stop", "None") == "None":
            start = 0.0
        from ..ndarray import _range_values
        vals = _range_values(int(np.prod(shape)), start, attr_float(n.attrs, "step", 1.0),
                             attr_int(n.attrs, "repeat", 1),
                             n.out_dtypes[0]).reshape(shape)
    g.node("Constant", [], n.outs[:1], name=n.name,
           value=g.onnx.numpy_helper.from_array(np.ascontiguousarray(vals), n.name + "__value"))


@_exports("slice_like")
def _slice_like(g, n):
    shape = list(n.out_shapes[0])
    g.node("Slice", [n.inputs[0], g.ints(n.name + "__starts", [0] * len(shape)),
                     g.ints(n.name + "__ends", shape),
                     g.ints(n.name + "__axes", list(range(len(shape))))],
           n.outs[:1], name=n.name)


@_exports("depth_to_space", "space_to_depth")
def _depth_space(g, n):
    b = attr_int(n.attrs, "block_size")
    if n.op == "depth_to_space":
        g.node("DepthToSpace", n.inputs[:1], n.outs[:1], name=n.name, blocksize=b, mode="DCR")
    else:
        g.node("SpaceToDepth", n.inputs[:1], n.outs[:1], name=n.name, blocksize=b)


@_exports("Pad")
def _pad_op(g, n):
    width = list(attr_shape(n.attrs, "pad_width"))
    pads = width[0::2] + width[1::2]     # ONNX: every begin, then every end
    mode = attr_str(n.attrs, "mode")
    ins = [n.inputs[0], g.ints(n.name + "__pads", pads)]
    if mode == "constant":
        ins.append(g.const(n.name + "__value", attr_float(n.attrs, "constant_value", 0.0),
                           n.in_dtypes[0]))
    g.node("Pad", ins, n.outs[:1], name=n.name, mode=mode)


@_exports("reshape_like")
def _reshape_like(g, n):
    # lhs reshaped to the inferred result shape; rhs only gave its shape
    g.node("Reshape", [n.inputs[0], g.ints(n.name + "__shape", list(n.out_shapes[0]))],
           n.outs[:1], name=n.name)


@_exports("broadcast_to")
def _broadcast_to(g, n):
    g.node("Expand", [n.inputs[0], g.ints(n.name + "__shape", list(n.out_shapes[0]))],
           n.outs[:1], name=n.name)


def supported_ops():
    """The MXNet operators (canonical names) export_model translates."""
    return sorted(_EXPORTERS)


# -- the driver -----------------------------------------------------------------------------
def _as_numpy(v):
    if hasattr(v, "asnumpy"):
        return v.asnumpy()
    return np.asarray(v)


def _load_params(params):
    from .. import ndarray as nd
    if isinstance(params, (str, os.PathLike)):
        params = nd.load(str(params))
        if isinstance(params, list) and not params:
            params = {}   # a block without parameters saves an empty list
    if isinstance(params, (list, tuple)) and len(params) == 2 and all(
            isinstance(p, dict) for p in params):
        merged = {}
        merged.update(params[0])
        merged.update(params[1])
        params = merged
    if not isinstance(params, dict):
        raise MXNetError("export_model: params must be a dict, a [arg_params, aux_params] pair "
                         "or a .params file path, not %s" % type(params).__name__)
    out = {}
    for k, v in params.items():
        if k.startswith(("arg:", "aux:")):
            k = k[4:]
        out[k] = _as_numpy(v)
    return out


def _load_symbol(sym):
    from .. import symbol as _symbol
    if isinstance(sym, (str, os.PathLike)):
        return _symbol.load(str(sym))
    if not isinstance(sym, _symbol.Symbol):
        raise MXNetError("export_model: sym must be a Symbol or a -symbol.json path, not %s"
                         % type(sym).__name__)
    return sym


def _call(fn, g, n, params, dynamic):
    code = fn.__code__
    names = code.co_varnames[:code.co_argcount]
    kwargs = {}
    if "params" in names:
        kwargs["params"] = params
    if "dynamic" in names:
        kwargs["dynamic"] = dynamic
    fn(g, n, **kwargs)


def build_model(sym, params, in_shapes, in_types, opset_version=None, dynamic=False,
                dynamic_input_shapes=None, verbose=False):
    """The onnx.ModelProto export_model writes."""
    onnx = require_onnx()
    from .. import symbol as _symbol
    sym = _load_symbol(sym)
    params = _load_params(params)
    opset = int(opset_version or DEFAULT_EXPORT_OPSET)
    if opset < 11 or opset > onnx.defs.onnx_opset_version():
        raise MXNetError("export_model: opset %d is not supported (11 to %d, the onnx package's "
                         "newest)" % (opset, onnx.defs.onnx_opset_version()))

    nodes = _symbol._post_order(sym._outputs)
    labels = set()
    for node in nodes:
        spec = _ops.OP_NAMES.get(node.op)
        canonical = spec.name if spec is not None else node.op
        k = _LOSS_OUTPUTS.get(canonical)
        if k is not None and len(node.inputs) > k:
            src = node.inputs[k][0]
            if src.op == "null" and src.name not in params:
                labels.add(id(src))
    data_inputs = [nd for nd in nodes if nd.op == "null" and nd.name not in params
                   and id(nd) not in labels]

    if in_shapes is None:
        raise MXNetError("export_model: in_shapes is required (one shape per input: %s)"
                         % ", ".join(nd.name for nd in data_inputs))
    in_shapes = [tuple(int(d) for d in s) for s in in_shapes]
    if not isinstance(in_types, (list, tuple)):
        in_types = [in_types] * len(in_shapes)
    in_types = [np.dtype(t) for t in in_types]
    if len(in_shapes) != len(data_inputs) or len(in_types) != len(data_inputs):
        raise MXNetError("export_model: the graph has %d inputs (%s); in_shapes has %d and "
                         "in_types %d entries" % (len(data_inputs),
                                                  ", ".join(nd.name for nd in data_inputs),
                                                  len(in_shapes), len(in_types)))

    # Shapes and dtypes of every value, from mxc's own inference.
    shapes, types = {}, {}
    for nd, s, t in zip(data_inputs, in_shapes, in_types):
        shapes[nd.name], types[nd.name] = s, t
    used_params = {nd.name for nd in nodes if nd.op == "null" and nd.name in params}
    for name in used_params:
        shapes[name], types[name] = params[name].shape, params[name].dtype
    internals = [(nd, i) for nd in nodes for i in range(nd.visible_outputs())]
    internal_sym = _symbol.Symbol(internals)
    try:
        _, out_shapes, _ = internal_sym.infer_shape(**{k: v for k, v in shapes.items()})
    except MXNetError as e:
        raise MXNetError("export_model: shape inference failed for in_shapes %s: %s"
                         % (in_shapes, e)) from None
    if out_shapes is None:
        raise MXNetError("export_model: in_shapes %s do not determine every shape of the graph"
                         % (in_shapes,))
    _, out_types, _ = internal_sym.infer_type(**{k: v for k, v in types.items()})
    if out_types is None:
        out_types = [np.float32] * len(internals)
    value_shape = {(id(nd), i): tuple(s) for (nd, i), s in zip(internals, out_shapes)}
    value_dtype = {(id(nd), i): np.dtype(t) for (nd, i), t in zip(internals, out_types)}

    g = _Emitter(opset)
    names = {}
    graph_inputs = []
    dyn = list(dynamic_input_shapes) if dynamic_input_shapes is not None else None
    for k, nd in enumerate(data_inputs):
        g.used.add(nd.name)
        names[(id(nd), 0)] = nd.name
        shape = list(in_shapes[k])
        if dynamic:
            if dyn is not None:
                shape = [d if d is not None else "%s_dim%d" % (nd.name, j)
                         for j, d in enumerate(dyn[k])]
            else:
                shape = ["%s_dim%d" % (nd.name, j) for j in range(len(shape))]
        graph_inputs.append(onnx.helper.make_tensor_value_info(
            nd.name, onnx_elem_type(in_types[k]), shape))
    for nd in nodes:
        if nd.op == "null" and nd.name in params and (id(nd), 0) not in names:
            if nd.name in g.used:
                names[(id(nd), 0)] = nd.name
                continue
            g.used.add(nd.name)
            names[(id(nd), 0)] = nd.name
            g.initializers.append(onnx.numpy_helper.from_array(
                np.ascontiguousarray(params[nd.name]), nd.name))

    for nd in nodes:
        if nd.op == "null":
            continue
        spec = _ops.OP_NAMES.get(nd.op)
        op = spec.name if spec is not None else nd.op
        fn = _EXPORTERS.get(op)
        if fn is None:
            raise MXNetError("export_model: node '%s': operator '%s' has no ONNX mapping"
                             % (nd.name, nd.op))
        nvis = nd.visible_outputs()
        outs = []
        for i in range(nvis):
            outs.append(g.unique(nd.name if i == 0 else "%s_out%d" % (nd.name, i)))
            names[(id(nd), i)] = outs[-1]
        ins, in_shapes_n, in_dtypes_n = [], [], []
        for src, i, _ in nd.inputs:
            if id(src) in labels:
                continue
            ins.append(names[(id(src), i)])
            in_shapes_n.append(value_shape.get((id(src), i), ()))
            in_dtypes_n.append(value_dtype.get((id(src), i), np.dtype(np.float32)))
        en = _Node(op, nd.name, dict(nd.attrs), ins, in_shapes_n, in_dtypes_n, outs,
                   [value_shape[(id(nd), i)] for i in range(nvis)],
                   [value_dtype[(id(nd), i)] for i in range(nvis)],
                   [src for src, _, _ in nd.inputs])
        if verbose:
            logging.info("export_model: %s (%s) -> %s", nd.name, op, ", ".join(outs))
        _call(fn, g, en, params, dynamic)

    graph_outputs = []
    seen = set()
    for nd, i in sym._outputs:
        name = names[(id(nd), i)]
        if name in seen or nd.op == "null":
            alias = g.unique(name + "_output")
            g.node("Identity", [name], [alias], name=alias)
            name = alias
        seen.add(name)
        shape = list(value_shape[(id(nd), i)])
        if dynamic:
            shape = ["%s_dim%d" % (name, j) for j in range(len(shape))]
        graph_outputs.append(onnx.helper.make_tensor_value_info(
            name, onnx_elem_type(value_dtype[(id(nd), i)]), shape))

    graph = onnx.helper.make_graph(g.nodes, "mxc_converted_model", graph_inputs, graph_outputs,
                                   initializer=g.initializers)
    model = onnx.helper.make_model(graph, producer_name="mxc",
                                   opset_imports=[onnx.helper.make_opsetid("", opset)])
    model.ir_version = min(model.ir_version, _ir_version_for(opset))
    try:
        onnx.checker.check_model(model)
    except Exception as e:  # the checker's own error types vary across onnx versions
        raise MXNetError("export_model: the ONNX checker rejected the model: %s"
                         % str(e).splitlines()[0]) from None
    return model


def _ir_version_for(opset):
    """The IR version the onnx package pairs with `opset` (so that an older
    ONNX Runtime reads the file)."""
    onnx = require_onnx()
    for entry in onnx.helper.VERSION_TABLE:
        if entry[2] == opset:
            return entry[1]
    return onnx.IR_VERSION


def export_model(sym, params, in_shapes=None, in_types=np.float32, onnx_file_path="model.onnx",
                 verbose=False, dynamic=False, dynamic_input_shapes=None,
                 run_shape_inference=False, input_type=None, input_shape=None,
                 opset_version=None):
    """Writes `sym` with `params` as an ONNX model file; returns its path.

    sym: a Symbol or the path of a -symbol.json file. params: a dict of
    name -> NDArray/numpy ('arg:'/'aux:' prefixes allowed), a
    [arg_params, aux_params] pair, or a .params file path. in_shapes /
    in_types: one per graph input (the variables that are not parameters,
    labels of loss outputs left out), in graph order. dynamic=True leaves
    the input dimensions symbolic (dynamic_input_shapes: None marks a
    symbolic dimension). input_type / input_shape are MXNet's older names.
    opset_version: the ONNX opset to write (default 17).
    """
    onnx = require_onnx()
    if input_type is not None:
        in_types = input_type
    if input_shape is not None:
        in_shapes = input_shape
    model = build_model(sym, params, in_shapes, in_types, opset_version=opset_version,
                        dynamic=dynamic, dynamic_input_shapes=dynamic_input_shapes,
                        verbose=verbose)
    if run_shape_inference:
        try:
            model = onnx.shape_inference.infer_shapes(model)
        except Exception:  # keep the model as it is, as MXNet does
            logging.info("export_model: ONNX shape inference failed; the model is kept as is")
    from ..base import atomic_write_bytes
    atomic_write_bytes(str(onnx_file_path), model.SerializeToString())
    if verbose:
        logging.info("export_model: wrote %s", onnx_file_path)
    return onnx_file_path


def _with_attrs(n, **attrs):
    """`n` seen with other attributes (a composite exported as the operator
    it decomposes into)."""
    import copy
    m = copy.copy(n)
    m.attrs = dict(attrs)
    return m


@_exports("argmax_channel")
def _argmax_channel(g, n):
    _argmax(g, _with_attrs(n, axis="1", keepdims="False"))


@_exports("batch_take")
def _batch_take(g, n):
    _pick(g, _with_attrs(n, axis="1", keepdims="False", mode="clip"))


@_exports("moments")
def _moments(g, n):
    shape = n.in_shapes[0]
    axes = attr_shape(n.attrs, "axes", ()) or tuple(range(len(shape)))
    axes = [a % len(shape) for a in axes]
    _, mean, var, _ = _moments_onnx(g, n, n.inputs[0], axes, 0.0, n.in_dtypes[0])
    _norm_outputs(g, n, [mean, var])


@_exports("repeat", "tile")
def _repeat_tile(g, n):
    """Reshape + Expand + Reshape, as the compiler's decomposition."""
    shape = list(n.in_shapes[0])
    if n.op == "repeat":
        axis = attr_int(n.attrs, "axis")
        if axis is None:
            shape, axis = [int(np.prod(shape))], 0
        axis %= len(shape)
        inter = shape[:axis + 1] + [1] + shape[axis + 1:]
        target = list(inter)
        target[axis + 1] = attr_int(n.attrs, "repeats")
    else:
        reps = list(attr_shape(n.attrs, "reps", ()))
        if not reps:
            g.node("Identity", n.inputs[:1], n.outs[:1], name=n.name)
            return
        r = max(len(shape), len(reps))
        shape = [1] * (r - len(shape)) + shape
        reps = [1] * (r - len(reps)) + reps
        inter = [v for d in shape for v in (1, d)]
        target = [v for d, k in zip(shape, reps) for v in (k, d)]
    x = _reshaped(g, n, n.inputs[0], inter)
    x = g.one("Expand", [x, g.ints(n.name + "__target", target)], n.name)
    g.node("Reshape", [x, g.ints(n.name + "__oshape", list(n.out_shapes[0]))], n.outs[:1],
           name=n.name)

