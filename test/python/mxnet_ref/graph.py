"""A numpy interpreter of whole MXNet symbol JSON graphs, built on REF.

    outputs = run_graph_ref(symbol, values)      # {list_outputs name: array}

``symbol`` is the JSON text or the parsed dict; ``values`` maps every
variable the heads need (data, parameters, auxiliary states) to an array.
Nodes are evaluated in file order (MXNet files are topologically ordered),
each with ``REF[op](inputs, attrs)``; hidden attributes (``__x__``) are not
passed on. Output names follow MXNet's ``list_outputs()`` (docs/formats.md
section 1.5): ``<node>_<suffix>``, or the variable's name for a variable head.
"""
import json

from . import REF, attr_str

# list_outputs() suffixes of operators with more than one output, or whose
# single output is not called "output".
_OUTPUT_SUFFIXES = {
    "BatchNorm": ["output", "mean", "var"],
    "BatchNorm_v1": ["output", "mean", "var"],
    "_contrib_SyncBatchNorm": ["output", "mean", "var"],
    "CuDNNBatchNorm": ["output", "mean", "var"],
    "Dropout": ["output", "mask"],
    "LRN": ["output", "tmp_norm"],
}


def _load(symbol):
    return json.loads(symbol) if isinstance(symbol, (str, bytes)) else symbol


def _op_attrs(node):
    attrs = {}
    for key in ("param", "attr", "attrs"):  # later spellings win, as MXNet reads them
        attrs.update(node.get(key, {}) or {})
    return {k: v for k, v in attrs.items() if not (k.startswith("__") and k.endswith("__"))}


def output_suffixes(node):
    """The list_outputs() suffixes of an operator node."""
    op = node["op"]
    if op in _OUTPUT_SUFFIXES:
        return _OUTPUT_SUFFIXES[op]
    if op == "LeakyReLU" and attr_str(_op_attrs(node), "act_type") == "rrelu":
        return ["output", "mask"]
    if op == "SliceChannel":
        n = int(_op_attrs(node).get("num_outputs", "1"))
        return ["output%d" % i for i in range(n)]
    return ["output"]


def output_names(symbol):
    """list_outputs() of the graph: one name per head."""
    g = _load(symbol)
    names = []
    for src, idx, *_ in g["heads"]:
        node = g["nodes"][src]
        if node["op"] == "null":
            names.append(node["name"])
        else:
            suffixes = output_suffixes(node)
            suffix = suffixes[idx] if idx < len(suffixes) else "output%d" % idx
            names.append("%s_%s" % (node["name"], suffix))
    return names


def run_graph_ref(symbol, values):
    """Evaluates the graph's heads; returns {output name: array}."""
    g = _load(symbol)
    nodes = g["nodes"]
    needed = set()
    todo = [h[0] for h in g["heads"]]
    while todo:
        i = todo.pop()
        if i not in needed:
            needed.add(i)
            todo.extend(e[0] for e in nodes[i]["inputs"])
    results = {}  # node id -> list of outputs
    for i, node in enumerate(nodes):
        if i not in needed:
            continue
        if node["op"] == "null":
            if node["name"] not in values:
                raise KeyError("no value for variable '%s'" % node["name"])
            results[i] = [values[node["name"]]]
            continue
        op = node["op"]
        if op not in REF:
            raise NotImplementedError("no numpy reference for operator '%s' (node '%s')"
                                      % (op, node["name"]))
        inputs = [results[src][idx] for src, idx, *_ in node["inputs"]]
        results[i] = REF[op](inputs, _op_attrs(node))
    return {name: results[src][idx]
            for name, (src, idx, *_) in zip(output_names(g), g["heads"])}
