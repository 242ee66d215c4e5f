"""Malformed ONNX files: import_model raises one-line MXNetErrors (never
another exception, never a crash)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import mxc as mx
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def _small_model():
    w = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(4, 3), "w")
    b = numpy_helper.from_array(np.ones(4, dtype=np.float32), "b")
    nodes = [helper.make_node("Gemm", ["x", "w", "b"], ["h"], name="fc", transB=1),
             helper.make_node("Relu", ["h"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "small",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
                              initializer=[w, b])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def _expect_error(path, *fragments):
    with pytest.raises(mx.MXNetError) as e:
        mx.onnx.import_model(path)
    msg = str(e.value)
    assert "\n" not in msg, msg
    assert msg.startswith("import_model: "), msg
    for f in fragments:
        assert f in msg, msg
    return msg


def test_the_small_model_itself_imports(tmp_path):
    path = str(tmp_path / "ok.onnx")
    onnx.save(_small_model(), path)
    sym, args, aux = mx.onnx.import_model(path)
    exe = sym.bind(mx.cpu(), {"x": mx.nd.ones((2, 3)), **args}, grad_req="null")
    np.testing.assert_allclose(exe.forward()[0].asnumpy(), np.maximum(
        np.ones((2, 3)) @ np.arange(12).reshape(4, 3).T + 1, 0))


def test_missing_empty_and_garbage_files(tmp_path):
    _expect_error(str(tmp_path / "absent.onnx"), "cannot read")
    empty = tmp_path / "empty.onnx"
    empty.write_bytes(b"")
    _expect_error(str(empty), "is empty")
    text = tmp_path / "text.onnx"
    text.write_text('{"nodes": []}  this is JSON, not protobuf\n')
    _expect_error(str(text), "not a valid ONNX model")
    rng = np.random.default_rng(0)
    for i in range(20):
        junk = tmp_path / ("junk%d.onnx" % i)
        junk.write_bytes(rng.integers(0, 256, 64 + 37 * i, dtype=np.uint8).tobytes())
        _expect_error(str(junk), "not a valid ONNX model")


def test_other_protobuf_messages_are_not_models(tmp_path):
    # a TensorProto and a GraphProto parse as ModelProto bytes, but are no model
    t = tmp_path / "tensor.onnx"
    t.write_bytes(numpy_helper.from_array(np.ones(3, np.float32), "t").SerializeToString())
    _expect_error(str(t), "not a valid ONNX model")
    g = tmp_path / "graph.onnx"
    g.write_bytes(_small_model().graph.SerializeToString())
    _expect_error(str(g), "not a valid ONNX model")


def test_truncated_files(tmp_path):
    data = _small_model().SerializeToString()
    path = str(tmp_path / "cut.onnx")
    for cut in range(0, len(data), 3):
        with open(path, "wb") as f:
            f.write(data[:cut])
        _expect_error(path)


def test_corrupted_bytes_never_escape_as_other_errors(tmp_path):
    """Random byte flips: either a model that still checks (and imports) or a
    one-line MXNetError, never another exception type."""
    data = bytearray(_small_model().SerializeToString())
    rng = np.random.default_rng(1)
    path = str(tmp_path / "flip.onnx")
    for _ in range(200):
        d = bytearray(data)
        for pos in rng.integers(0, len(d), 3):
            d[pos] = int(rng.integers(0, 256))
        with open(path, "wb") as f:
            f.write(bytes(d))
        try:
            mx.onnx.import_model(path)
        except mx.MXNetError as e:
            assert "\n" not in str(e), str(e)


def test_invalid_models_are_refused_by_the_checker(tmp_path):
    m = _small_model()
    m.graph.node[1].input[0] = "nowhere"   # an input no node produces
    path = str(tmp_path / "bad.onnx")
    with open(path, "wb") as f:
        f.write(m.SerializeToString())
    _expect_error(path, "not a valid ONNX model")


def test_truncation_in_a_fresh_process(tmp_path):
    """The same in a child process: its exit status shows it did not crash."""
    data = _small_model().SerializeToString()
    for k, cut in enumerate((5, len(data) // 2, len(data) - 1)):
        p = tmp_path / ("c%d.onnx" % k)
        p.write_bytes(data[:cut])
    code = ("import sys, glob, mxc as mx\n"
            "for p in sorted(glob.glob(sys.argv[1] + '/c*.onnx')):\n"
            "    try:\n        mx.onnx.import_model(p)\n    except mx.MXNetError as e:\n"
            "        print('ERR', str(e))\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("ERR import_model: ") == 3, r.stdout
