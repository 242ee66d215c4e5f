"""mx.viz: MXNet 1.x's network summary (print_summary) and graph drawing
(plot_network, through the optional `graphviz` package), read off the
symbol's JSON as MXNet's visualization module does."""
import json
import warnings

import numpy as np

from .base import MXNetError

__all__ = ["print_summary", "plot_network"]


def _shape_dict(symbol, shape):
    internals = symbol.get_internals()
    _, out_shapes, _ = internals.infer_shape(**shape)
    if out_shapes is None:
        raise ValueError("Input shape is incomplete")
    return dict(zip(internals.list_outputs(), out_shapes))


def _out_name(node, index=0):
    """The internals' output name of a node's output `index`."""
    if node["op"] == "null":
        return node["name"]
    return "%s_output" % node["name"] if index == 0 else "%s_output%d" % (node["name"], index)


def print_summary(symbol, shape=None, line_length=120, positions=(.44, .64, .74, 1.)):
    """Prints a table of the network's layers: output shape (with `shape`,
    a dict of input shapes), parameter count and the layers feeding each;
    then the total parameter count."""
    from .symbol import Symbol
    if not isinstance(symbol, Symbol):
        raise TypeError("symbol must be Symbol")
    shape_dict = _shape_dict(symbol, shape) if shape is not None else None
    conf = json.loads(symbol.tojson())
    nodes = conf["nodes"]
    heads = {h[0] for h in conf["heads"]}
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    to_display = ["Layer (type)", "Output Shape", "Param #", "Previous Layer"]

    def print_row(fields):
        line = ""
        for i, field in enumerate(fields):
            line += str(field)
            line = line[:positions[i]]
            line += " " * (positions[i] - len(line))
        print(line)

    print("_" * line_length)
    print_row(to_display)
    print("=" * line_length)

    def out_shape(node):
        if shape_dict is None:
            return ""
        key = _out_name(node)
        if key not in shape_dict:  # several outputs: list them all
            shapes = [v for k, v in shape_dict.items() if k.startswith(node["name"] + "_output")]
            return shapes if shapes else ""
        return shape_dict[key]

    def param_count(node):
        """Elements of the node's parameter and auxiliary-state inputs (the
        variables other than the graph's data inputs)."""
        if shape_dict is None:
            return 0
        total = 0
        for src, _, _ in node["inputs"]:
            inp = nodes[src]
            if inp["op"] == "null" and inp["name"] not in shape and inp["name"] in shape_dict:
                total += int(np.prod(shape_dict[inp["name"]]))
        return total

    total_params = 0
    shown = [i for i, n in enumerate(nodes) if n["op"] != "null" or i in heads]
    for k, i in enumerate(shown):
        node = nodes[i]
        pre = []
        for src, _, _ in node["inputs"]:
            inp = nodes[src]
            if inp["op"] != "null" or src in heads:
                pre.append(inp["name"])
        if node["op"] == "null":
            pre = []
        params = param_count(node)
        total_params += params
        name = "%s(%s)" % (node["name"], node["op"])
        fields = [name, out_shape(node), params, pre[0] if pre else ""]
        print_row(fields)
        for p in pre[1:]:
            print_row(["", "", "", p])
        print(("=" if k == len(shown) - 1 else "_") * line_length)
    print("Total params: {params}".format(params=total_params))
    print("_" * line_length)


def plot_network(symbol, title="plot", save_format="pdf", shape=None, dtype=None,
                 node_attrs={}, hide_weights=True):
    """The network as a graphviz Digraph (needs the `graphviz` package):
    one box per operator (and per data input), edges labelled with the
    shapes when `shape` is given."""
    try:
        from graphviz import Digraph
    except ImportError:
        raise ImportError("Draw network requires graphviz library")
    from .symbol import Symbol
    if not isinstance(symbol, Symbol):
        raise TypeError("symbol must be a Symbol")
    shape_dict = _shape_dict(symbol, shape) if shape is not None else None
    conf = json.loads(symbol.tojson())
    nodes = conf["nodes"]
    seen, dup = set(), set()
    for n in nodes:
        if n["op"] != "null":
            (dup if n["name"] in seen else seen).add(n["name"])
    if dup:
        warnings.warn("There are multiple variables with the same name in your graph, "
                      "this may result in cyclic graph. Repeated names: " + ",".join(sorted(dup)))
    attrs = {"shape": "box", "fixedsize": "true", "width": "1.3", "height": "0.8034",
             "style": "filled"}
    attrs.update(node_attrs)
    dot = Digraph(name=title, format=save_format)
    hidden = set()
    for i, n in enumerate(nodes):
        name = n["name"]
        if n["op"] == "null":
            if hide_weights and i not in conf["arg_nodes"][:1] and \
                    (name.endswith(("_weight", "_bias", "_beta", "_gamma", "_moving_var",
                                    "_moving_mean", "_running_var", "_running_mean"))):
                hidden.add(i)
                continue
            dot.node(name=name, label=name, **attrs)
        else:
            dot.node(name=name, label="%s\n%s" % (n["op"], name), **attrs)
    for i, n in enumerate(nodes):
        if n["op"] == "null":
            continue
        for src, idx, _ in n["inputs"]:
            if src in hidden:
                continue
            label = ""
            if shape_dict is not None:
                key = _out_name(nodes[src], idx)
                if key in shape_dict:
                    label = "x".join(str(x) for x in shape_dict[key][1:])
            dot.edge(tail_name=n["name"], head_name=nodes[src]["name"], label=label,
                     dir="back")
    return dot
