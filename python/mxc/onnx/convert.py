"""ONNX -> MXNet files: what the `mxc` CLI runs for a `.onnx` model.

    python -m mxc.onnx.convert model.onnx PREFIX

writes PREFIX-symbol.json and PREFIX-0000.params (MXNet's formats: the graph
and the initializers, `arg:` / `aux:` keys) from mx.onnx.import_model (the
node of each graph output named after it where the name is free), and
PREFIX-inputs.json: the graph's data inputs in order, each
{"name", "shape" (null for a dynamic dimension), "dtype"} (MXNet dtype
names). `mxc import|summary|run|codegen|compile|memory-report model.onnx`
call it (docs/onnx.md, "The mxc CLI"), as IREE's `iree-import-onnx` turns an
ONNX file into the compiler's input. A model that cannot be converted is one
line on stderr (the import_model error) and exit status 1.
"""
import json
import os
import sys


def _name_heads(graph, names):
    """Renames the node of each graph output after the ONNX output (so that
    `mxc run --output-dir` writes y_output.npy for output 'y'), where that
    name is free and the output is the node's first."""
    nodes, heads = graph["nodes"], graph["heads"]
    taken = {n["name"] for n in nodes}
    counts = {}
    for h in heads:
        counts[h[0]] = counts.get(h[0], 0) + 1
    for k, (h, name) in enumerate(zip(heads, names)):
        node = nodes[h[0]]
        if name in taken:
            continue
        if h[1] == 0 and counts[h[0]] == 1 and node["op"] != "null":
            taken.discard(node["name"])
            node["name"] = name
        else:
            # another output of a node (LSTM's Y_h): a _copy named after it
            nodes.append({"op": "_copy", "name": name, "inputs": [list(h)]})
            heads[k] = [len(nodes) - 1, 0, 0]
            if graph.get("node_row_ptr"):
                graph["node_row_ptr"].append(graph["node_row_ptr"][-1] + 1)
        taken.add(name)


def convert(model_file, prefix):
    from ..base import MXNetError, dtype_name
    from .. import ndarray as nd
    from ._common import np_of_elem_type
    from ._import import _Importer, _read_model

    model = _read_model(model_file)
    sym, arg_params, aux_params = _Importer(model).run()
    inits = {i.name for i in model.graph.initializer}
    arguments = set(sym.list_arguments())
    inputs = []
    for vi in model.graph.input:
        if vi.name in inits or vi.name not in arguments:
            continue
        tt = vi.type.tensor_type
        if not vi.type.HasField("tensor_type"):
            raise MXNetError("import_model: input '%s' is not a tensor" % vi.name)
        dims = [d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else None
                for d in tt.shape.dim] if tt.HasField("shape") else None
        try:
            dtype = dtype_name(np_of_elem_type(tt.elem_type))
        except Exception:
            raise MXNetError("import_model: input '%s' has element type %d, which mxc does "
                             "not have" % (vi.name, tt.elem_type)) from None
        inputs.append({"name": vi.name, "shape": dims, "dtype": dtype})
    graph = json.loads(sym.tojson())
    _name_heads(graph, [o.name for o in model.graph.output])
    with open(prefix + "-symbol.json", "w") as f:
        json.dump(graph, f, indent=2)
    arrays = {"arg:" + k: v for k, v in arg_params.items()}
    arrays.update({"aux:" + k: v for k, v in aux_params.items()})
    nd.save(prefix + "-0000.params", arrays)
    tmp = prefix + "-inputs.json.tmp"
    with open(tmp, "w") as f:
        json.dump({"model": os.fspath(model_file), "inputs": inputs}, f, indent=1)
    os.replace(tmp, prefix + "-inputs.json")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2 or argv[0].startswith("-"):
        sys.stderr.write("usage: python -m mxc.onnx.convert model.onnx PREFIX\n")
        return 2
    try:
        convert(argv[0], argv[1])
    except Exception as e:  # one line, whatever failed (MXNetError names the node)
        msg = (str(e).strip().splitlines() or [type(e).__name__])[0]
        if type(e).__name__ != "MXNetError":
            msg = "%s: %s" % (type(e).__name__, msg)
        sys.stderr.write(msg + "\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
