#!/usr/bin/env python3
"""Compare tools/zoo/mxnet_zoo.py with what real MXNet 1.9.1 builds.

Needs a Python with mxnet==1.9.1 (e.g. `python3 -m venv .venv-mxnet &&
.venv-mxnet/bin/pip install mxnet==1.9.1 'numpy<1.24'`) and a copy of MXNet's
`example/image-classification/symbols/` directory from the 1.9.1 tag (not kept
in this repository), e.g.

    mkdir -p /tmp/mx && git --git-dir=<apache/mxnet .git> archive \
        1.9.1:example/image-classification/symbols | tar -x -C /tmp/mx
    .venv-mxnet/bin/python tools/zoo/compare_with_mxnet.py --examples /tmp/mx [--keep DIR]

For every network it runs the example's get_symbol() under a fresh
NameManager, and checks against ours:
  * the saved JSON text, byte for byte;
  * node by node: op, name, attrs, inputs; arg_nodes, node_row_ptr, heads;
  * list_arguments / list_auxiliary_states and every inferred shape, against
    our infer_shapes(); the parameter counts; the output shape at batch 1 and 64;
  * that MXNet loads our JSON and writes it back unchanged.
Exit status 0 when everything agrees.  Not run in CI.
"""

import argparse
import importlib.util
import json
import os
import sys

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mxnet_zoo  # noqa: E402

EXAMPLE_ARGS = {
    "lenet": ("lenet", dict(num_classes=10)),
    "mlp": ("mlp", dict(num_classes=10)),
    "alexnet": ("alexnet", dict(num_classes=1000)),
    "vgg11": ("vgg", dict(num_classes=1000, num_layers=11)),
    "vgg16": ("vgg", dict(num_classes=1000, num_layers=16)),
    "googlenet": ("googlenet", dict(num_classes=1000)),
    "inception-bn": ("inception-bn", dict(num_classes=1000, image_shape="3,224,224")),
    "resnet18": ("resnet", dict(num_classes=1000, num_layers=18, image_shape="3,224,224")),
    "resnet50": ("resnet", dict(num_classes=1000, num_layers=50, image_shape="3,224,224")),
}


def load_example(directory, module):
    path = os.path.join(directory, module + ".py")
    spec = importlib.util.spec_from_file_location("mxnet_example_" + module.replace("-", "_"), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def compare_graphs(ref, ours):
    problems = []
    for key in ("arg_nodes", "node_row_ptr", "heads", "attrs"):
        if ref[key] != ours[key]:
            problems.append("%s differs" % key)
    if len(ref["nodes"]) != len(ours["nodes"]):
        problems.append("node count %d (mxnet) vs %d (ours)" % (len(ref["nodes"]), len(ours["nodes"])))
    for i, (a, b) in enumerate(zip(ref["nodes"], ours["nodes"])):
        for key in ("op", "name", "attrs", "inputs"):
            if a.get(key) != b.get(key):
                problems.append("node %d (%s) %s: mxnet %r, ours %r" % (i, a["name"], key, a.get(key), b.get(key)))
    return problems


def compare_shapes(sym, g, in_shape):
    problems = []
    for batch in (1, 64):
        shape = (batch,) + in_shape
        arg_s, out_s, aux_s = sym.infer_shape(data=shape)
        ref_args = list(zip(sym.list_arguments(), [tuple(s) for s in arg_s]))
        ref_aux = list(zip(sym.list_auxiliary_states(), [tuple(s) for s in aux_s]))
        args, aux, outs = mxnet_zoo.infer_shapes(g, shape)
        if ref_args != args:
            problems.append("batch %d: argument names/shapes differ" % batch)
        if ref_aux != aux:
            problems.append("batch %d: auxiliary names/shapes differ" % batch)
        if [tuple(s) for s in out_s] != outs:
            problems.append("batch %d: outputs %s (mxnet) vs %s (ours)" % (batch, out_s, outs))
    return problems


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--examples", required=True, help="example/image-classification/symbols of MXNet 1.9.1")
    p.add_argument("--keep", help="also write MXNet's JSON here as <name>-symbol.json")
    a = p.parse_args()
    print("mxnet", mx.__version__)
    failed = 0
    for name, (module, kwargs) in EXAMPLE_ARGS.items():
        mod = load_example(a.examples, module)
        with mx.name.NameManager():
            sym = mod.get_symbol(**kwargs)
        ref_text = sym.tojson()
        if a.keep:
            os.makedirs(a.keep, exist_ok=True)
            with open(os.path.join(a.keep, name + "-symbol.json"), "w") as f:
                f.write(ref_text)
        our_text = mxnet_zoo.symbol_json(name)
        g = json.loads(our_text)
        problems = compare_graphs(json.loads(ref_text), g)
        if ref_text != our_text:
            problems.append("JSON text differs")
        problems += compare_shapes(sym, g, mxnet_zoo.NETWORKS[name][1])
        if mx.sym.load_json(our_text).tojson() != our_text:
            problems.append("MXNet does not write our JSON back unchanged")
        s1 = mxnet_zoo.summary(name, 1)
        s64 = mxnet_zoo.summary(name, 64)
        status = "IDENTICAL" if not problems else "DIFFERENT"
        print("%-13s %s  nodes %4d  params %11d  aux %6d  out %s / %s" % (
            name, status, len(g["nodes"]), s1["params"], s1["aux"], s1["output"], s64["output"]))
        for pr in problems[:20]:
            print("    " + pr)
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
