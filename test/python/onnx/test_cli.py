"""`mxc run|summary|compile model.onnx`: the CLI reads ONNX models through
mx.onnx (python -m mxc.onnx.convert) and runs them with ONNX Runtime's
outputs; bad models and options are one-line errors with a non-zero exit.
(torch.onnx.export models through the CLI: test_torch_export.py.)"""
import os
import subprocess

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnx_util import assert_close, ort_run
import test_import


def _run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)


def _one_line_error(p, code, *needles):
    assert p.returncode == code, (p.returncode, p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


def _outputs(out_dir, names):
    return [np.load(os.path.join(out_dir, n + "_output.npy")) for n in names]


@pytest.mark.parametrize("opset", [11, 17])
def test_mxc_run_onnx_cnn_matches_onnxruntime(mxc_bin, opset, tmp_path):
    path = str(tmp_path / "cnn.onnx")
    onnx.save(test_import._cnn(opset), path)
    x = np.random.default_rng(1).standard_normal((1, 3, 15, 15)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    ref, names, _ = ort_run(path, {"input": x})
    out = tmp_path / "out"
    p = _run([mxc_bin, "run", path, "--input", "input=%s" % (tmp_path / "x.npy"),
              "--output-dir", str(out)])
    assert p.returncode == 0, p.stderr
    for got, want, name in zip(_outputs(out, names), ref, names):
        assert_close(got, want, what=name)


@pytest.mark.parametrize("direction", ["bidirectional", "forward", "reverse"])
def test_mxc_run_onnx_lstm_matches_onnxruntime(mxc_bin, direction, tmp_path):
    # (ONNX Runtime has no layout=1; the onnx node tests cover it)
    model, x_shape = test_import._lstm_model(direction)
    path = str(tmp_path / "lstm.onnx")
    onnx.save(model, path)
    x = np.random.default_rng(2).standard_normal(x_shape).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    ref, names, _ = ort_run(path, {"x": x})
    out = tmp_path / "out"
    p = _run([mxc_bin, "run", path, "--input", "x=%s" % (tmp_path / "x.npy"),
              "--output-dir", str(out)])
    assert p.returncode == 0, p.stderr
    for got, want, name in zip(_outputs(out, names), ref, names):
        assert_close(got, want, what=name)


def test_mxc_summary_and_compile_onnx(mxc_bin, tmp_path):
    model, x_shape = test_import._lstm_model()
    path = str(tmp_path / "lstm.onnx")
    onnx.save(model, path)
    p = _run([mxc_bin, "summary", path])
    assert p.returncode == 0, p.stderr
    assert "model: %s" % path in p.stdout and "RNN" in p.stdout
    assert "x: tensor<6x3x4xf32>" in p.stdout
    # ahead of time: the executable runs with ONNX Runtime's outputs
    exe = str(tmp_path / "lstm_exe")
    p = _run([mxc_bin, "compile", path, "-o", exe])
    assert p.returncode == 0, p.stderr
    x = np.random.default_rng(4).standard_normal(x_shape).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "aot"
    p = _run([exe, "--input", "x=%s" % (tmp_path / "x.npy"), "--output-dir", str(out)],
             env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    assert p.returncode == 0, p.stderr
    ref, names, _ = ort_run(path, {"x": x})
    for got, want, name in zip(_outputs(out, names), ref, names):
        assert_close(got, want, what=name)


def test_dynamic_input_needs_shape(mxc_bin, tmp_path):
    node = helper.make_node("Relu", ["x"], ["y"], name="relu")
    graph = helper.make_graph([node], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])])
    path = str(tmp_path / "dyn.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    _one_line_error(_run([mxc_bin, "run", path]), 2, "input 'x'", "dynamic", "--shape x=")
    out = tmp_path / "out"
    p = _run([mxc_bin, "run", path, "--shape", "x=4,3", "--output-dir", str(out)])
    assert p.returncode == 0, p.stderr
    assert np.load(out / "y_output.npy").shape == (4, 3)


def test_bad_onnx_models_are_one_line_errors(mxc_bin, tmp_path):
    # an operator without a mapping: the node and the op type
    path = str(tmp_path / "m.onnx")
    onnx.save(test_import._single_node_model("NonZero", name="my_nonzero"), path)
    _one_line_error(_run([mxc_bin, "run", path]), 1, path, "'my_nonzero'", "'NonZero'")
    # what MXNet's LSTM cannot compute
    model, _ = test_import._lstm_model()
    model.graph.node[0].attribute.append(helper.make_attribute("clip", 3.0))
    onnx.save(model, path)
    _one_line_error(_run([mxc_bin, "run", path]), 1, "'lstm'", "clip")
    # not a model, empty, truncated, missing
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"\x08\x07\x12\x0bnot a model at all\xff\xff")
    _one_line_error(_run([mxc_bin, "run", str(garbage)]), 1, "not a valid ONNX model")
    empty = tmp_path / "empty.onnx"
    empty.write_bytes(b"")
    _one_line_error(_run([mxc_bin, "summary", str(empty)]), 1, "empty")
    good = test_import._cnn(13).SerializeToString()
    cut = tmp_path / "cut.onnx"
    cut.write_bytes(good[:len(good) // 2])
    _one_line_error(_run([mxc_bin, "compile", str(cut), "-o", str(tmp_path / "e")]), 1,
                    "not a valid ONNX model")
    _one_line_error(_run([mxc_bin, "run", str(tmp_path / "missing.onnx")]), 1, "no such file")
    # the weights are the model's own
    onnx.save(test_import._cnn(13), path)
    _one_line_error(_run([mxc_bin, "run", path, "--params", path]), 2, "--params")


def test_python_without_mxc_is_a_clear_error(mxc_bin, tmp_path):
    path = str(tmp_path / "cnn.onnx")
    onnx.save(test_import._cnn(13), path)
    env = dict(os.environ, MXC_PYTHON=str(tmp_path / "no-such-python"))
    _one_line_error(_run([mxc_bin, "run", path], env=env), 1, "MXC_PYTHON")
