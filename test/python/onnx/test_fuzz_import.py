"""A structure-aware fuzzer of import_model, for MXC_ONNX_FUZZ_SECONDS
(default 20) seconds: valid models (the helper CNN of test_import.py and a
small MLP) with one to three random mutations of their protobuf fields
(attribute values, inputs, op types, initializer shapes and data, graph
input dimensions). Each mutated model either imports (and then its shape
inference runs) or fails with a one-line MXNetError; any other exception, or
a crash, fails the test. The byte-level mutations are in test_malformed.py."""
import os
import time

import numpy as np

import mxc as mx
import onnx
from onnx import TensorProto, helper, numpy_helper

import test_import

SECONDS = float(os.environ.get("MXC_ONNX_FUZZ_SECONDS", "20"))


def _mlp():
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.standard_normal((8, 4)).astype(np.float32), "w1"),
             numpy_helper.from_array(np.zeros(8, np.float32), "b1"),
             numpy_helper.from_array(rng.standard_normal((8, 3)).astype(np.float32), "w2"),
             numpy_helper.from_array(np.asarray([0, -1], np.int64), "shape")]
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], name="fc1", transB=1),
             helper.make_node("Relu", ["h"], ["r"], name="relu"),
             helper.make_node("MatMul", ["r", "w2"], ["m"], name="fc2"),
             helper.make_node("Reshape", ["m", "shape"], ["f"], name="reshape"),
             helper.make_node("Softmax", ["f"], ["y"], name="softmax", axis=-1)]
    graph = helper.make_graph(nodes, "mlp",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
                              initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


_OPS = ["Relu", "Conv", "MaxPool", "AveragePool", "Gemm", "MatMul", "Add", "Concat", "Reshape",
        "Flatten", "Softmax", "Transpose", "Pad", "Squeeze", "Unsqueeze", "BatchNormalization",
        "Clip", "Slice", "Split", "Resize", "ReduceMean", "Gather", "Identity", "Erf",
        "LSTM", "GRU", "RNN", "GatherND", "NonZero"]


def _mutate(model, rng):
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    for _ in range(int(rng.integers(1, 4))):
        kind = int(rng.integers(0, 8))
        node = g.node[int(rng.integers(0, len(g.node)))]
        if kind == 0 and len(node.attribute):
            a = node.attribute[int(rng.integers(0, len(node.attribute)))]
            if a.type == onnx.AttributeProto.INT:
                a.i = int(rng.integers(-3, 12))
            elif a.type == onnx.AttributeProto.INTS and len(a.ints):
                a.ints[int(rng.integers(0, len(a.ints)))] = int(rng.integers(-3, 12))
            elif a.type == onnx.AttributeProto.FLOAT:
                a.f = float(rng.choice([0.0, -1.0, 1e30, np.nan, 0.5]))
        elif kind == 1 and len(node.attribute):
            del node.attribute[int(rng.integers(0, len(node.attribute)))]
        elif kind == 2 and len(node.input):
            node.input[int(rng.integers(0, len(node.input)))] = ""
        elif kind == 3:
            node.op_type = str(rng.choice(_OPS))
        elif kind == 4 and len(g.initializer):
            t = g.initializer[int(rng.integers(0, len(g.initializer)))]
            arr = numpy_helper.to_array(t)
            new_shape = [int(d) for d in rng.integers(1, 5, int(rng.integers(0, 4)))]
            t.CopyFrom(numpy_helper.from_array(
                np.resize(arr, new_shape).astype(arr.dtype), t.name))
        elif kind == 5 and len(g.input):
            dims = g.input[0].type.tensor_type.shape.dim
            if len(dims):
                dims[int(rng.integers(0, len(dims)))].dim_value = int(rng.integers(1, 9))
        elif kind == 6 and len(node.input) > 1:
            node.input.pop()
        elif kind == 7:
            a = helper.make_attribute("axis", int(rng.integers(-4, 5)))
            node.attribute.append(a)
    return m


def test_mutated_models_import_or_fail_in_one_line(tmp_path):
    seeds = [test_import._cnn(13), test_import._cnn(11), _mlp(),
             test_import._lstm_model()[0], test_import._lstm_model("reverse", 1)[0]]
    rng = np.random.default_rng(int(os.environ.get("MXC_ONNX_FUZZ_SEED", "0")))
    path = str(tmp_path / "fuzz.onnx")
    counts = {"imported": 0, "error": 0, "internal": 0}
    deadline = time.monotonic() + SECONDS
    runs = 0
    while time.monotonic() < deadline:
        model = _mutate(seeds[runs % len(seeds)], rng)
        runs += 1
        with open(path, "wb") as f:
            f.write(model.SerializeToString())
        try:
            sym, args, aux = mx.onnx.import_model(path)
            shapes = {i.name: tuple(d.dim_value for d in i.type.tensor_type.shape.dim)
                      for i in model.graph.input if i.name in sym.list_arguments()}
            shapes.update({k: v.shape for k, v in args.items()})
            shapes.update({k: v.shape for k, v in aux.items()})
            sym.infer_shape(**shapes)
            counts["imported"] += 1
        except mx.MXNetError as e:
            msg = str(e)
            assert "\n" not in msg, msg
            counts["internal" if "cannot be mapped (" in msg else "error"] += 1
    print("fuzz: %d mutated models in %.0f s: %s" % (runs, SECONDS, counts))
    assert runs >= 20
    # "cannot be mapped (SomeError ...)": a translation met an input it does
    # not check for; still one line, but rare (none in 3000 runs here)
    assert counts["internal"] <= max(1, runs // 100), counts
