#!/usr/bin/env python3
"""MXNet 1.9.1 image-classification networks as MXNet symbol JSON, without MXNet.

A minimal re-implementation of what `mx.sym` does when the networks of MXNet's
`example/image-classification/symbols/` are built (LeNet, MLP, AlexNet, VGG,
GoogLeNet, Inception-BN, ResNet), written so that the JSON is byte-for-byte what
MXNet 1.9.1 (the PyPI wheel, built with oneDNN) writes with `Symbol.save`.
The network definitions are our own; the rules reproduced are MXNet's:

* Unnamed operators are named by the NameManager: `<hint><n>` where the hint is
  the Python function name lower-cased (`convolution0`, `fullyconnected1`,
  `_plus0` for `a + b`) and `n` counts per hint.  One `Builder` is one fresh
  NameManager (what a fresh Python process, or `with mx.name.NameManager():`,
  gives).
* Keyword arguments become node attributes as `str(value)`: tuples
  "(3, 3)", booleans "True", floats by repr ("2e-05").  Variadic operators
  (Concat) get `num_args` added.
* Missing inputs are created as variables named `<node>_<input>` (weight,
  bias, gamma, beta, moving_mean, moving_var, label) carrying a copy of the
  operator's attributes; BatchNorm adds `__init__` to its moving statistics
  (FSetInputVarAttrOnCompose).  Inputs an operator mutates (BatchNorm's
  moving_mean/moving_var) bump the variable's version, written as the third
  element of the input entry.
* The JSON lists nodes in depth-first post-order from the heads (inputs in
  order), `arg_nodes` are all variable nodes, `node_row_ptr` counts every
  output of every node (BatchNorm 3, Dropout 2, LRN 2, and, in the oneDNN
  build, max-Pooling 2), attributes are written sorted by key, and the text is
  laid out as dmlc::JSONWriter does it.

Also: `infer_shapes` (shape inference for the operators used here) and
`count_parameters`; and, in EXTRA_NETWORKS (ALL_NETWORKS = both), networks of
our own that are not in MXNet's example files: `mobilenet_v2` (depthwise
convolutions as num_group, ReLU6 as `clip`), for the benchmarks.

CLI:  python3 tools/zoo/mxnet_zoo.py NAME -o NAME-symbol.json
      python3 tools/zoo/mxnet_zoo.py --all DIR      (writes DIR/<name>-symbol.json)
      python3 tools/zoo/mxnet_zoo.py --summary      (parameters and output shapes)

Standard library only.
"""

import argparse
import json
import math
import os
import sys

MXNET_VERSION = 10901  # written as {"mxnet_version": ["int", 10901]}

# ---------------------------------------------------------------------------
# Operator table: what MXNet 1.9.1 registers for the operators used here.
# ---------------------------------------------------------------------------


def _parse_bool(s):
    return s in ("True", "true", "1")


def _parse_tuple(s):
    s = s.strip()
    if s.startswith("(") or s.startswith("["):
        s = s[1:-1]
    return tuple(int(x) for x in s.split(",") if x.strip())


def _conv_inputs(attrs):
    if _parse_bool(attrs.get("no_bias", "False")):
        return ["data", "weight"]
    return ["data", "weight", "bias"]


def _pool_outputs(attrs):
    # MXNET_USE_MKLDNN == 1 (the PyPI wheel): max pooling keeps a workspace
    # output when oneDNN supports the pooling (1-3 spatial dims, NC(D)(H)W).
    if attrs.get("pool_type", "max") != "max":
        return 1
    kernel = _parse_tuple(attrs.get("kernel", "()"))
    if len(kernel) not in (1, 2, 3):
        return 1
    if attrs.get("layout", "None") not in ("None", "NCW", "NCHW", "NCDHW"):
        return 1
    return 2


_BN_VAR_INIT = {3: '["zero", {}]', 4: '["one", {}]'}

# op: (MXNet op name, input names (list or function of attrs), number of
#      outputs (int or function), mutated input indices, variable-attribute hook)
OPS = {
    "Convolution": ("Convolution", _conv_inputs, 1, (), None),
    "FullyConnected": ("FullyConnected", _conv_inputs, 1, (), None),
    "BatchNorm": ("BatchNorm", ["data", "gamma", "beta", "moving_mean", "moving_var"], 3,
                  (3, 4), _BN_VAR_INIT),
    "Activation": ("Activation", ["data"], 1, (), None),
    "Pooling": ("Pooling", ["data"], _pool_outputs, (), None),
    "LRN": ("LRN", ["data"], 2, (), None),
    "Dropout": ("Dropout", ["data"], 2, (), None),
    "Flatten": ("Flatten", ["data"], 1, (), None),
    "Concat": ("Concat", None, 1, (), None),  # variadic, key_var_num_args = num_args
    "SoftmaxOutput": ("SoftmaxOutput", ["data", "label"], 1, (), None),
    "identity": ("_copy", ["data"], 1, (), None),
    "_Plus": ("elemwise_add", ["lhs", "rhs"], 1, (), None),
    "clip": ("clip", ["data"], 1, (), None),
}

# ---------------------------------------------------------------------------
# Graph building
# ---------------------------------------------------------------------------


class Node(object):
    __slots__ = ("op", "name", "attrs", "inputs", "num_outputs", "version")

    def __init__(self, op, name, attrs, inputs, num_outputs):
        self.op = op            # MXNet op name, or None for a variable
        self.name = name
        self.attrs = attrs      # dict str -> str
        self.inputs = inputs    # list of (Node, output index, version)
        self.num_outputs = num_outputs
        self.version = 0        # variables: bumped by mutating operators


class Symbol(object):
    """One output of a node, as `mx.sym` hands them around."""

    __slots__ = ("builder", "node", "index")

    def __init__(self, builder, node, index=0):
        self.builder, self.node, self.index = builder, node, index

    def __add__(self, other):
        return self.builder.op("_Plus", self, other)


def _attr_str(v):
    return str(v)  # what MXNet's _symbol_creator does with every non-Symbol kwarg


class Builder(object):
    """A fresh NameManager plus the `mx.sym` calls the examples use."""

    def __init__(self):
        self._counter = {}

    def _name(self, name, hint):
        if name is not None:
            return name
        n = self._counter.get(hint, 0)
        self._counter[hint] = n + 1
        return "%s%d" % (hint, n)

    def Variable(self, name, attr=None):
        return Symbol(self, Node(None, name, dict(attr or {}), [], 1))

    def op(self, func, *args, **kwargs):
        op_name, input_names, nout, mutate, var_attr = OPS[func]
        name = kwargs.pop("name", None)
        attr = kwargs.pop("attr", None)
        kwargs.update(attr or {})  # AttrScope.get(attr): merged into the op's kwargs
        syms = {}
        attrs = {}
        for k, v in kwargs.items():
            if isinstance(v, Symbol):
                syms[k] = v
            else:
                attrs[k] = _attr_str(v)
        name = self._name(name, func.lower())
        if input_names is None:  # variadic
            if "num_args" not in attrs:
                attrs["num_args"] = str(len(args) + len(syms))
            entries = list(args)
        else:
            names = input_names(attrs) if callable(input_names) else list(input_names)
            entries = [None] * len(names)
            for i, a in enumerate(args):
                entries[i] = a
            for k, v in syms.items():
                entries[names.index(k)] = v
            for i, e in enumerate(entries):
                if e is None:  # auto-created variable carrying the op's attrs
                    vattrs = dict(attrs)
                    if var_attr and i in var_attr:
                        vattrs["__init__"] = var_attr[i]
                    entries[i] = Symbol(self, Node(None, "%s_%s" % (name, names[i]), vattrs, [], 1))
        inputs = []
        for i, s in enumerate(entries):
            version = 0
            if s.node.op is None:
                if i in mutate:
                    s.node.version += 1
                version = s.node.version
            inputs.append((s.node, s.index, version))
        n = nout(attrs) if callable(nout) else nout
        return Symbol(self, Node(op_name, name, attrs, inputs, n))

    def __getattr__(self, func):
        if func in OPS:
            return lambda *a, **k: self.op(func, *a, **k)
        raise AttributeError(func)


# ---------------------------------------------------------------------------
# Serialisation (nnvm SaveJSON + dmlc::JSONWriter layout)
# ---------------------------------------------------------------------------


def _topo(heads):
    order, seen = [], set()
    for h in heads:
        stack = [(h.node, 0)]
        if id(h.node) in seen:
            continue
        seen.add(id(h.node))
        while stack:
            node, i = stack.pop()
            if i < len(node.inputs):
                stack.append((node, i + 1))
                child = node.inputs[i][0]
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append((child, 0))
            else:
                order.append(node)
    return order


def to_graph(sym):
    """The symbol as the dict MXNet's JSON encodes."""
    heads = [sym]
    order = _topo(heads)
    index = {id(n): i for i, n in enumerate(order)}
    nodes = []
    for n in order:
        d = {"op": n.op if n.op is not None else "null", "name": n.name}
        if n.attrs:
            d["attrs"] = dict(sorted(n.attrs.items()))
        d["inputs"] = [[index[id(c)], i, v] for (c, i, v) in n.inputs]
        nodes.append(d)
    row = [0]
    for n in order:
        row.append(row[-1] + n.num_outputs)
    return {
        "nodes": nodes,
        "arg_nodes": [i for i, n in enumerate(order) if n.op is None],
        "node_row_ptr": row,
        "heads": [[index[id(h.node)], h.index, 0] for h in heads],
        "attrs": {"mxnet_version": ["int", MXNET_VERSION]},
    }


def _jstr(s):
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _array(items, depth, multi):
    """dmlc ArrayHandler: multi-line when more than 10 items (or non-POD items)."""
    if not multi:
        return "[" + ", ".join(items) + "]"
    sep = "\n" + "  " * (depth + 1)
    return "[" + ", ".join(sep + it for it in items) + "\n" + "  " * depth + "]"


def _strmap(d, depth):
    items = [_jstr(k) + ": " + _jstr(v) for k, v in d.items()]
    return _array(items, depth, len(items) > 1).replace("[", "{", 1)[:-1] + "}"


def _entries(es, depth):
    return _array(["[%d, %d, %d]" % tuple(e) for e in es], depth, len(es) > 10)


def _ints(xs, depth):
    return _array([str(x) for x in xs], depth, len(xs) > 10)


def dumps(graph):
    """Text exactly as MXNet 1.9.1's Symbol.tojson() lays it out."""
    node_txt = []
    for n in graph["nodes"]:
        fields = ['"op": ' + _jstr(n["op"]), '"name": ' + _jstr(n["name"])]
        if n.get("attrs"):
            fields.append('"attrs": ' + _strmap(n["attrs"], 3))
        fields.append('"inputs": ' + _entries(n["inputs"], 3))
        node_txt.append(_array(fields, 2, True).replace("[", "{", 1)[:-1] + "}")
    top = [
        '"nodes": ' + _array(node_txt, 1, True),
        '"arg_nodes": ' + _ints(graph["arg_nodes"], 1),
        '"node_row_ptr": ' + _ints(graph["node_row_ptr"], 1),
        '"heads": ' + _entries(graph["heads"], 1),
        '"attrs": {"mxnet_version": ["int", %d]}' % graph["attrs"]["mxnet_version"][1],
    ]
    return _array(top, 0, True).replace("[", "{", 1)[:-1] + "}"


# ---------------------------------------------------------------------------
# The networks (apache/mxnet 1.9.1 example/image-classification/symbols/*.py)
# ---------------------------------------------------------------------------


def mlp(num_classes=10):
    mx = Builder()
    data = mx.Variable("data")
    data = mx.Flatten(data=data)
    h = data
    for i, width in enumerate((128, 64)):
        h = mx.FullyConnected(data=h, name="fc%d" % (i + 1), num_hidden=width)
        h = mx.Activation(data=h, name="relu%d" % (i + 1), act_type="relu")
    fc3 = mx.FullyConnected(data=h, name="fc3", num_hidden=num_classes)
    return mx.SoftmaxOutput(data=fc3, name="softmax")


def lenet(num_classes=10):
    mx = Builder()
    x = mx.Variable("data")
    for filters in (20, 50):
        x = mx.Convolution(data=x, kernel=(5, 5), num_filter=filters)
        x = mx.Activation(data=x, act_type="tanh")
        x = mx.Pooling(data=x, pool_type="max", kernel=(2, 2), stride=(2, 2))
    x = mx.Flatten(data=x)
    x = mx.FullyConnected(data=x, num_hidden=500)
    x = mx.Activation(data=x, act_type="tanh")
    x = mx.FullyConnected(data=x, num_hidden=num_classes)
    return mx.SoftmaxOutput(data=x, name="softmax")


def alexnet(num_classes=1000):
    mx = Builder()
    x = mx.Variable(name="data")
    x = mx.Convolution(name="conv1", data=x, kernel=(11, 11), stride=(4, 4), num_filter=96)
    x = mx.Activation(data=x, act_type="relu")
    x = mx.LRN(data=x, alpha=0.0001, beta=0.75, knorm=2, nsize=5)
    x = mx.Pooling(data=x, pool_type="max", kernel=(3, 3), stride=(2, 2))
    x = mx.Convolution(name="conv2", data=x, kernel=(5, 5), pad=(2, 2), num_filter=256)
    x = mx.Activation(data=x, act_type="relu")
    x = mx.LRN(data=x, alpha=0.0001, beta=0.75, knorm=2, nsize=5)
    x = mx.Pooling(data=x, kernel=(3, 3), stride=(2, 2), pool_type="max")
    for i, filters in ((3, 384), (4, 384), (5, 256)):
        x = mx.Convolution(name="conv%d" % i, data=x, kernel=(3, 3), pad=(1, 1), num_filter=filters)
        x = mx.Activation(data=x, act_type="relu")
    x = mx.Pooling(data=x, kernel=(3, 3), stride=(2, 2), pool_type="max")
    x = mx.Flatten(data=x)
    for i in (1, 2):
        x = mx.FullyConnected(name="fc%d" % i, data=x, num_hidden=4096)
        x = mx.Activation(data=x, act_type="relu")
        x = mx.Dropout(data=x, p=0.5)
    x = mx.FullyConnected(name="fc3", data=x, num_hidden=num_classes)
    return mx.SoftmaxOutput(data=x, name="softmax")


VGG_SPEC = {11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
            13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
            16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
            19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512])}


def vgg(num_layers=16, num_classes=1000, batch_norm=False):
    mx = Builder()
    layers, filters = VGG_SPEC[num_layers]
    x = mx.Variable(name="data")
    for i, count in enumerate(layers):
        for j in range(count):
            tag = "%d_%d" % (i + 1, j + 1)
            x = mx.Convolution(data=x, kernel=(3, 3), pad=(1, 1), num_filter=filters[i], name="conv" + tag)
            if batch_norm:
                x = mx.BatchNorm(data=x, name="bn" + tag)
            x = mx.Activation(data=x, act_type="relu", name="relu" + tag)
        x = mx.Pooling(data=x, pool_type="max", kernel=(2, 2), stride=(2, 2), name="pool%d" % (i + 1))
    x = mx.Flatten(data=x, name="flatten")
    for i in (6, 7):
        x = mx.FullyConnected(data=x, num_hidden=4096, name="fc%d" % i)
        x = mx.Activation(data=x, act_type="relu", name="relu%d" % i)
        x = mx.Dropout(data=x, p=0.5, name="drop%d" % i)
    x = mx.FullyConnected(data=x, num_hidden=num_classes, name="fc8")
    return mx.SoftmaxOutput(data=x, name="softmax")


def googlenet(num_classes=1000):
    mx = Builder()

    def conv(x, num_filter, kernel, stride=(1, 1), pad=(0, 0), name=None, suffix=""):
        x = mx.Convolution(data=x, num_filter=num_filter, kernel=kernel, stride=stride, pad=pad,
                           name="conv_%s%s" % (name, suffix))
        return mx.Activation(data=x, act_type="relu", name="relu_%s%s" % (name, suffix))

    def inception(x, n1, n3r, n3, n5r, n5, pool, proj, name):
        a = conv(x, n1, (1, 1), name="%s_1x1" % name)
        b = conv(x, n3r, (1, 1), name="%s_3x3" % name, suffix="_reduce")
        b = conv(b, n3, (3, 3), pad=(1, 1), name="%s_3x3" % name)
        c = conv(x, n5r, (1, 1), name="%s_5x5" % name, suffix="_reduce")
        c = conv(c, n5, (5, 5), pad=(2, 2), name="%s_5x5" % name)
        d = mx.Pooling(data=x, kernel=(3, 3), stride=(1, 1), pad=(1, 1), pool_type=pool,
                       name="%s_pool_%s_pool" % (pool, name))
        d = conv(d, proj, (1, 1), name="%s_proj" % name)
        return mx.Concat(a, b, c, d, name="ch_concat_%s_chconcat" % name)

    x = mx.Variable("data")
    x = conv(x, 64, (7, 7), stride=(2, 2), pad=(3, 3), name="conv1")
    x = mx.Pooling(x, kernel=(3, 3), stride=(2, 2), pool_type="max")
    x = conv(x, 64, (1, 1), stride=(1, 1), name="conv2")
    x = conv(x, 192, (3, 3), stride=(1, 1), pad=(1, 1), name="conv3")
    x = mx.Pooling(x, kernel=(3, 3), stride=(2, 2), pool_type="max")
    x = inception(x, 64, 96, 128, 16, 32, "max", 32, "in3a")
    x = inception(x, 128, 128, 192, 32, 96, "max", 64, "in3b")
    x = mx.Pooling(x, kernel=(3, 3), stride=(2, 2), pool_type="max")
    x = inception(x, 192, 96, 208, 16, 48, "max", 64, "in4a")
    x = inception(x, 160, 112, 224, 24, 64, "max", 64, "in4b")
    x = inception(x, 128, 128, 256, 24, 64, "max", 64, "in4c")
    x = inception(x, 112, 144, 288, 32, 64, "max", 64, "in4d")
    x = inception(x, 256, 160, 320, 32, 128, "max", 128, "in4e")
    x = mx.Pooling(x, kernel=(3, 3), stride=(2, 2), pool_type="max")
    x = inception(x, 256, 160, 320, 32, 128, "max", 128, "in5a")
    x = inception(x, 384, 192, 384, 48, 128, "max", 128, "in5b")
    x = mx.Pooling(x, kernel=(7, 7), stride=(1, 1), global_pool=True, pool_type="avg")
    x = mx.Flatten(data=x)
    x = mx.FullyConnected(data=x, num_hidden=num_classes)
    return mx.SoftmaxOutput(data=x, name="softmax")


def inception_bn(num_classes=1000, image_shape=(3, 224, 224)):
    mx = Builder()
    eps = 1e-10 + 1e-5  # as in the example: repr "1.0000100000000001e-05"

    def conv(x, num_filter, kernel, stride=(1, 1), pad=(0, 0), name=None, suffix=""):
        x = mx.Convolution(data=x, num_filter=num_filter, kernel=kernel, stride=stride, pad=pad,
                           name="conv_%s%s" % (name, suffix))
        x = mx.BatchNorm(data=x, fix_gamma=False, eps=eps, momentum=0.9, name="bn_%s%s" % (name, suffix))
        return mx.Activation(data=x, act_type="relu", name="relu_%s%s" % (name, suffix))

    def block_a(x, n1, n3r, n3, nd3r, nd3, pool, proj, name):
        a = conv(x, n1, (1, 1), name="%s_1x1" % name)
        b = conv(x, n3r, (1, 1), name="%s_3x3" % name, suffix="_reduce")
        b = conv(b, n3, (3, 3), pad=(1, 1), name="%s_3x3" % name)
        c = conv(x, nd3r, (1, 1), name="%s_double_3x3" % name, suffix="_reduce")
        c = conv(c, nd3, (3, 3), pad=(1, 1), name="%s_double_3x3_0" % name)
        c = conv(c, nd3, (3, 3), pad=(1, 1), name="%s_double_3x3_1" % name)
        d = mx.Pooling(data=x, kernel=(3, 3), stride=(1, 1), pad=(1, 1), pool_type=pool,
                       name="%s_pool_%s_pool" % (pool, name))
        d = conv(d, proj, (1, 1), name="%s_proj" % name)
        return mx.Concat(a, b, c, d, name="ch_concat_%s_chconcat" % name)

    def block_b(x, n3r, n3, nd3r, nd3, name):
        b = conv(x, n3r, (1, 1), name="%s_3x3" % name, suffix="_reduce")
        b = conv(b, n3, (3, 3), pad=(1, 1), stride=(2, 2), name="%s_3x3" % name)
        c = conv(x, nd3r, (1, 1), name="%s_double_3x3" % name, suffix="_reduce")
        c = conv(c, nd3, (3, 3), pad=(1, 1), stride=(1, 1), name="%s_double_3x3_0" % name)
        c = conv(c, nd3, (3, 3), pad=(1, 1), stride=(2, 2), name="%s_double_3x3_1" % name)
        d = mx.Pooling(data=x, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max",
                       name="max_pool_%s_pool" % name)
        return mx.Concat(b, c, d, name="ch_concat_%s_chconcat" % name)

    if image_shape[1] <= 28:
        raise ValueError("only the 224x224 variant of inception-bn is reproduced")
    x = mx.Variable(name="data")
    x = conv(x, 64, (7, 7), stride=(2, 2), pad=(3, 3), name="1")
    x = mx.Pooling(data=x, kernel=(3, 3), stride=(2, 2), name="pool_1", pool_type="max")
    x = conv(x, 64, (1, 1), stride=(1, 1), name="2_red")
    x = conv(x, 192, (3, 3), stride=(1, 1), pad=(1, 1), name="2")
    x = mx.Pooling(data=x, kernel=(3, 3), stride=(2, 2), name="pool_2", pool_type="max")
    x = block_a(x, 64, 64, 64, 64, 96, "avg", 32, "3a")
    x = block_a(x, 64, 64, 96, 64, 96, "avg", 64, "3b")
    x = block_b(x, 128, 160, 64, 96, "3c")
    x = block_a(x, 224, 64, 96, 96, 128, "avg", 128, "4a")
    x = block_a(x, 192, 96, 128, 96, 128, "avg", 128, "4b")
    x = block_a(x, 160, 128, 160, 128, 160, "avg", 128, "4c")
    x = block_a(x, 96, 128, 192, 160, 192, "avg", 128, "4d")
    x = block_b(x, 128, 192, 192, 256, "4e")
    x = block_a(x, 352, 192, 320, 160, 224, "avg", 128, "5a")
    x = block_a(x, 352, 192, 320, 192, 224, "max", 128, "5b")
    x = mx.Pooling(data=x, kernel=(7, 7), stride=(1, 1), name="global_pool", pool_type="avg")
    x = mx.Flatten(data=x)
    x = mx.FullyConnected(data=x, num_hidden=num_classes)
    return mx.SoftmaxOutput(data=x, name="softmax")


RESNET_UNITS = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3],
                152: [3, 8, 36, 3], 200: [3, 24, 36, 3], 269: [3, 30, 48, 8]}


def resnet(num_layers=50, num_classes=1000, image_shape=(3, 224, 224), workspace=256):
    """Pre-activation ResNet (v2) of resnet.py, ImageNet-size branch, float32."""
    if image_shape[1] <= 28:
        raise ValueError("only the ImageNet branch of resnet.py is reproduced")
    mx = Builder()
    bottleneck = num_layers >= 50
    filters = [64, 256, 512, 1024, 2048] if bottleneck else [64, 64, 128, 256, 512]
    units = RESNET_UNITS[num_layers]
    bn = dict(fix_gamma=False, eps=2e-5, momentum=0.9)

    def unit(data, num_filter, stride, dim_match, name):
        if bottleneck:
            bn1 = mx.BatchNorm(data=data, name=name + "_bn1", **bn)
            act1 = mx.Activation(data=bn1, act_type="relu", name=name + "_relu1")
            x = mx.Convolution(data=act1, num_filter=int(num_filter * 0.25), kernel=(1, 1), stride=(1, 1),
                               pad=(0, 0), no_bias=True, workspace=workspace, name=name + "_conv1")
            x = mx.BatchNorm(data=x, name=name + "_bn2", **bn)
            x = mx.Activation(data=x, act_type="relu", name=name + "_relu2")
            x = mx.Convolution(data=x, num_filter=int(num_filter * 0.25), kernel=(3, 3), stride=stride,
                               pad=(1, 1), no_bias=True, workspace=workspace, name=name + "_conv2")
            x = mx.BatchNorm(data=x, name=name + "_bn3", **bn)
            x = mx.Activation(data=x, act_type="relu", name=name + "_relu3")
            x = mx.Convolution(data=x, num_filter=num_filter, kernel=(1, 1), stride=(1, 1), pad=(0, 0),
                               no_bias=True, workspace=workspace, name=name + "_conv3")
        else:
            bn1 = mx.BatchNorm(data=data, name=name + "_bn1", fix_gamma=False, momentum=0.9, eps=2e-5)
            act1 = mx.Activation(data=bn1, act_type="relu", name=name + "_relu1")
            x = mx.Convolution(data=act1, num_filter=num_filter, kernel=(3, 3), stride=stride, pad=(1, 1),
                               no_bias=True, workspace=workspace, name=name + "_conv1")
            x = mx.BatchNorm(data=x, name=name + "_bn2", fix_gamma=False, momentum=0.9, eps=2e-5)
            x = mx.Activation(data=x, act_type="relu", name=name + "_relu2")
            x = mx.Convolution(data=x, num_filter=num_filter, kernel=(3, 3), stride=(1, 1), pad=(1, 1),
                               no_bias=True, workspace=workspace, name=name + "_conv2")
        if dim_match:
            shortcut = data
        else:
            shortcut = mx.Convolution(data=act1, num_filter=num_filter, kernel=(1, 1), stride=stride,
                                      no_bias=True, workspace=workspace, name=name + "_sc")
        return x + shortcut

    x = mx.Variable(name="data")
    x = mx.identity(data=x, name="id")
    x = mx.BatchNorm(data=x, fix_gamma=True, eps=2e-5, momentum=0.9, name="bn_data")
    x = mx.Convolution(data=x, num_filter=filters[0], kernel=(7, 7), stride=(2, 2), pad=(3, 3),
                       no_bias=True, name="conv0", workspace=workspace)
    x = mx.BatchNorm(data=x, name="bn0", **bn)
    x = mx.Activation(data=x, act_type="relu", name="relu0")
    x = mx.Pooling(data=x, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max")
    for i, count in enumerate(units):
        s = 1 if i == 0 else 2
        x = unit(x, filters[i + 1], (s, s), False, "stage%d_unit%d" % (i + 1, 1))
        for j in range(count - 1):
            x = unit(x, filters[i + 1], (1, 1), True, "stage%d_unit%d" % (i + 1, j + 2))
    x = mx.BatchNorm(data=x, name="bn1", **bn)
    x = mx.Activation(data=x, act_type="relu", name="relu1")
    x = mx.Pooling(data=x, global_pool=True, kernel=(7, 7), pool_type="avg", name="pool1")
    x = mx.Flatten(data=x)
    x = mx.FullyConnected(data=x, num_hidden=num_classes, name="fc1")
    return mx.SoftmaxOutput(data=x, name="softmax")


# name -> (builder, input shape without batch, the example file and its arguments)
NETWORKS = {
    "lenet": (lambda: lenet(10), (1, 28, 28), "lenet.py num_classes=10"),
    "mlp": (lambda: mlp(10), (1, 28, 28), "mlp.py num_classes=10"),
    "alexnet": (lambda: alexnet(1000), (3, 224, 224), "alexnet.py num_classes=1000"),
    "vgg11": (lambda: vgg(11, 1000), (3, 224, 224), "vgg.py num_layers=11 num_classes=1000"),
    "vgg16": (lambda: vgg(16, 1000), (3, 224, 224), "vgg.py num_layers=16 num_classes=1000"),
    "googlenet": (lambda: googlenet(1000), (3, 224, 224), "googlenet.py num_classes=1000"),
    "inception-bn": (lambda: inception_bn(1000), (3, 224, 224),
                     "inception-bn.py num_classes=1000 image_shape=3,224,224"),
    "resnet18": (lambda: resnet(18, 1000), (3, 224, 224),
                 "resnet.py num_layers=18 num_classes=1000 image_shape=3,224,224"),
    "resnet50": (lambda: resnet(50, 1000), (3, 224, 224),
                 "resnet.py num_layers=50 num_classes=1000 image_shape=3,224,224"),
}


# MobileNet-v2 (Sandler et al., 2018), width 1.0, 224x224: our own definition
# for the benchmarks, not one of MXNet's example symbol files, so it is kept out
# of NETWORKS (whose JSON is checked byte for byte against MXNet 1.9.1's).
# (expansion t, output channels c, repeats n, first stride s) per stage.
MOBILENET_V2_STAGES = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                       (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]


def mobilenet_v2(num_classes=1000, multiplier=1.0):
    """MobileNet-v2 with MXNet operators: Convolution (no bias; depthwise as
    num_group = channels) + BatchNorm + ReLU6 as `clip(0, 6)`, inverted
    residual blocks (1x1 expand, 3x3 depthwise, 1x1 linear projection, an
    `elemwise_add` shortcut where stride 1 keeps the channel count), a 1x1
    conv to 1280 channels, global average pooling, FullyConnected, softmax.
    3,504,872 parameters (as torchvision's mobilenet_v2), 34,112 auxiliary
    states; the JSON is what MXNet 1.9.1's `mx.sym` writes for the same calls
    (checked by running this function with `mx.sym` in place of Builder)."""
    mx = Builder()
    bn = dict(fix_gamma=False, eps=1e-5, momentum=0.9)

    def width(c):
        # channels rounded to a multiple of 8, never below 90% of c * multiplier
        v = max(8, int(c * multiplier + 4) // 8 * 8)
        return v + 8 if v < 0.9 * c * multiplier else v

    def conv_bn(x, channels, kernel, stride, pad, groups, name, relu6=True):
        kw = dict(num_group=groups) if groups > 1 else {}
        x = mx.Convolution(data=x, num_filter=channels, kernel=kernel, stride=stride, pad=pad,
                           no_bias=True, name=name + "_conv", **kw)
        x = mx.BatchNorm(data=x, name=name + "_bn", **bn)
        if relu6:
            x = mx.clip(data=x, a_min=0.0, a_max=6.0, name=name + "_relu6")
        return x

    x = mx.Variable(name="data")
    channels = width(32)
    x = conv_bn(x, channels, (3, 3), (2, 2), (1, 1), 1, "first")
    for i, (t, c, n, s) in enumerate(MOBILENET_V2_STAGES):
        out = width(c)
        for j in range(n):
            name = "stage%d_unit%d" % (i + 1, j + 1)
            stride = (s, s) if j == 0 else (1, 1)
            hidden = channels * t
            y = x
            if t != 1:
                y = conv_bn(y, hidden, (1, 1), (1, 1), (0, 0), 1, name + "_expand")
            y = conv_bn(y, hidden, (3, 3), stride, (1, 1), hidden, name + "_dw")
            y = conv_bn(y, out, (1, 1), (1, 1), (0, 0), 1, name + "_project", relu6=False)
            x = x + y if stride == (1, 1) and channels == out else y
            channels = out
    x = conv_bn(x, max(1280, width(1280)), (1, 1), (1, 1), (0, 0), 1, "last")
    x = mx.Pooling(data=x, global_pool=True, kernel=(7, 7), pool_type="avg", name="pool")
    x = mx.Flatten(data=x, name="flatten")
    x = mx.FullyConnected(data=x, num_hidden=num_classes, name="fc")
    return mx.SoftmaxOutput(data=x, name="softmax")


# Networks of our own (same form as NETWORKS; not compared with MXNet's files).
EXTRA_NETWORKS = {
    "mobilenet-v2": (lambda: mobilenet_v2(1000), (3, 224, 224), "mobilenet_v2 width 1.0 (ours)"),
}
ALL_NETWORKS = dict(NETWORKS, **EXTRA_NETWORKS)


def graph(name):
    return to_graph(ALL_NETWORKS[name][0]())


def symbol_json(name):
    return dumps(graph(name))


# ---------------------------------------------------------------------------
# Shape inference for the operators above (MXNet 1.9.1 rules, NCHW, float32)
# ---------------------------------------------------------------------------


def _conv_out(size, k, s, p, d=1):
    return (size + 2 * p - (d * (k - 1) + 1)) // s + 1


def _infer_node(op, a, ins):
    """Given the op, its attrs and the data input shape(s), return
    (shapes of every input, shapes of every output)."""
    x = ins[0]
    if op == "Convolution":
        k = _parse_tuple(a["kernel"])
        nd = len(k)
        st = _parse_tuple(a.get("stride", str((1,) * nd)))
        pd = _parse_tuple(a.get("pad", str((0,) * nd)))
        dl = _parse_tuple(a.get("dilate", str((1,) * nd)))
        nf, ng = int(a["num_filter"]), int(a.get("num_group", "1"))
        spatial = tuple(_conv_out(x[2 + i], k[i], st[i], pd[i], dl[i]) for i in range(nd))
        shapes = [x, (nf, x[1] // ng) + k]
        if not _parse_bool(a.get("no_bias", "False")):
            shapes.append((nf,))
        return shapes, [(x[0], nf) + spatial]
    if op == "FullyConnected":
        nh = int(a["num_hidden"])
        if _parse_bool(a.get("flatten", "True")):
            k = 1
            for v in x[1:]:
                k *= v
            out = (x[0], nh)
        else:
            k = x[-1]
            out = x[:-1] + (nh,)
        shapes = [x, (nh, k)]
        if not _parse_bool(a.get("no_bias", "False")):
            shapes.append((nh,))
        return shapes, [out]
    if op == "BatchNorm":
        c = (x[int(a.get("axis", "1"))],)
        return [x, c, c, c, c], [x, c, c]
    if op == "Pooling":
        nd = len(x) - 2
        if _parse_bool(a.get("global_pool", "False")):
            spatial = (1,) * nd
        else:
            k = _parse_tuple(a["kernel"])
            st = _parse_tuple(a.get("stride", str((1,) * nd)))
            pd = _parse_tuple(a.get("pad", str((0,) * nd)))
            full = a.get("pooling_convention", "valid") == "full"
            spatial = tuple(
                (int(math.ceil(float(x[2 + i] + 2 * pd[i] - k[i]) / st[i])) if full
                 else (x[2 + i] + 2 * pd[i] - k[i]) // st[i]) + 1 for i in range(nd))
        out = x[:2] + spatial
        return [x], [out] * _pool_outputs(a)
    if op in ("Activation", "_copy", "clip"):
        return [x], [x]
    if op in ("LRN", "Dropout"):
        return [x], [x, x]
    if op == "Flatten":
        k = 1
        for v in x[1:]:
            k *= v
        return [x], [(x[0], k)]
    if op == "Concat":
        dim = int(a.get("dim", "1"))
        out = list(ins[0])
        out[dim] = sum(s[dim] for s in ins)
        return list(ins), [tuple(out)]
    if op == "elemwise_add":
        return [x, x], [x]
    if op == "SoftmaxOutput":
        label = (x[0],) if len(x) == 2 else (x[0],) + x[2:]
        return [x, label], [x]
    raise NotImplementedError("no shape rule for " + op)


def infer_shapes(g, data_shape, data_name="data"):
    """Shapes of a graph dict (as `to_graph` or json.load gives).

    Returns (args, aux, outputs): args and aux as lists of (name, shape) in
    MXNet's list_arguments() / list_auxiliary_states() order, outputs as the
    shapes of the heads."""
    nodes = g["nodes"]
    out = {}       # (node, index) -> shape
    var = {}       # node id -> shape
    aux_ids = set()
    for i, n in enumerate(nodes):
        if n["op"] == "null":
            if n["name"] == data_name:
                var[i] = tuple(data_shape)
                out[(i, 0)] = var[i]
            continue
        ins = n["inputs"]
        data_ins = [out[(e[0], e[1])] for e in ins if (e[0], e[1]) in out]
        in_shapes, outs = _infer_node(n["op"], n.get("attrs", {}), data_ins)
        for (src, idx, _), shp in zip(ins, in_shapes):
            if nodes[src]["op"] == "null":
                if src in var and var[src] != shp:
                    raise ValueError("shape clash on %s" % nodes[src]["name"])
                var[src] = shp
                out[(src, 0)] = shp
        if n["op"] == "BatchNorm":
            aux_ids.update(e[0] for e in ins[3:5])
        for j, shp in enumerate(outs):
            out[(i, j)] = shp
    args = [(nodes[i]["name"], var[i]) for i in g["arg_nodes"] if i not in aux_ids]
    aux = [(nodes[i]["name"], var[i]) for i in g["arg_nodes"] if i in aux_ids]
    heads = [out[(h[0], h[1])] for h in g["heads"]]
    return args, aux, heads


def _size(shape):
    n = 1
    for v in shape:
        n *= v
    return n


def count_parameters(g, data_shape, data_name="data", label_name="softmax_label"):
    """(learnable parameters, auxiliary states) element counts: every argument
    except the data and label variables, and every auxiliary state."""
    args, aux, _ = infer_shapes(g, data_shape, data_name)
    params = sum(_size(s) for n, s in args if n not in (data_name, label_name))
    return params, sum(_size(s) for _, s in aux)


def summary(name, batch=1):
    builder, shape, _ = NETWORKS[name]
    g = to_graph(builder())
    params, aux = count_parameters(g, (batch,) + shape)
    out = infer_shapes(g, (batch,) + shape)[2][0]
    return {"params": params, "aux": aux, "input": (batch,) + shape, "output": out}


# ---------------------------------------------------------------------------


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("name", nargs="?", choices=sorted(ALL_NETWORKS))
    p.add_argument("-o", "--output", help="output file (default: stdout)")
    p.add_argument("--all", metavar="DIR", help="write DIR/<name>-symbol.json for every network")
    p.add_argument("--summary", action="store_true", help="print parameters and shapes")
    a = p.parse_args(argv)
    if a.summary:
        for n in NETWORKS:
            s1, s64 = summary(n, 1), summary(n, 64)
            print("%-13s params %11d  aux %6d  input %-18s output %s / %s"
                  % (n, s1["params"], s1["aux"], s1["input"], s1["output"], s64["output"]))
        return 0
    if a.all:
        os.makedirs(a.all, exist_ok=True)
        for n in NETWORKS:
            with open(os.path.join(a.all, n + "-symbol.json"), "w") as f:
                f.write(symbol_json(n))
        return 0
    if not a.name:
        p.error("give a network name, --all DIR or --summary")
    text = symbol_json(a.name)
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
