"""Tests of the harness itself: mxc_testing.run_graph / one_op_graph /
write_params and the numpy graph interpreter (mxnet_ref.graph), on a few
operators. Tolerances: float32 results against float64-free numpy
expectations, rtol 1e-5 (one rounding per element, or a short dot product).
"""
import json
import os
import subprocess

import numpy as np
import pytest

from mxc_testing import MxcError, assert_close, one_op_graph, run_graph, write_params
from mxnet_ref.graph import output_names, run_graph_ref

RNG = np.random.default_rng(0)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def test_one_op_graph_layout():
    g = one_op_graph("Convolution", {"kernel": (3, 3), "num_filter": 8, "no_bias": True},
                     ["data", "w"], name="conv")
    assert [n["name"] for n in g["nodes"]] == ["data", "w", "conv"]
    assert g["nodes"][2]["attrs"] == {"kernel": "(3, 3)", "no_bias": "True", "num_filter": "8"}
    assert g["nodes"][2]["inputs"] == [[0, 0, 0], [1, 0, 0]]
    assert g["heads"] == [[2, 0, 0]] and g["arg_nodes"] == [0, 1]
    assert output_names(g) == ["conv_output"]


def test_relu(mxc_bin):
    x = rand(3, 5)
    out = run_graph(one_op_graph("Activation", {"act_type": "relu"}, ["data"], name="act"),
                    {"data": x})
    assert list(out) == ["act_output"]
    assert_close(out["act_output"], np.maximum(x, 0), rtol=0, atol=0)


def test_elemwise_add(mxc_bin):
    a, b = rand(2, 3, 4), rand(2, 3, 4)
    out = run_graph(one_op_graph("elemwise_add", {}, ["a", "b"], name="add"), {"a": a, "b": b})
    assert_close(out["add_output"], a + b, rtol=0, atol=0)


def test_params_file_gives_values(mxc_bin):
    x, w, bias = rand(4, 6), rand(3, 6), rand(3)
    g = one_op_graph("FullyConnected", {"num_hidden": 3}, ["data", "fc_weight", "fc_bias"],
                     name="fc")
    # arg: prefixes as MXNet's save_checkpoint writes them
    out = run_graph(g, {"data": x}, params={"arg:fc_weight": w, "arg:fc_bias": bias})
    assert_close(out["fc_output"], x @ w.T + bias, rtol=1e-5, atol=1e-6)


def test_write_params_is_read_by_mxc(mxc_bin, tmp_path):
    g = one_op_graph("FullyConnected", {"num_hidden": 7}, ["data", "fc_weight", "fc_bias"],
                     name="fc")
    (tmp_path / "s.json").write_text(json.dumps(g))
    write_params(str(tmp_path / "p.params"),
                 {"fc_weight": rand(7, 5), "aux:unused": np.zeros(3, np.int64),
                  "fc_bias": np.zeros(7, np.float32)})
    p = subprocess.run([mxc_bin, "summary", str(tmp_path / "s.json"), "--shape", "data=2,5",
                        "--params", str(tmp_path / "p.params")], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "parameters: 42 in 2 arrays" in p.stdout


def test_interpreter_matches_mxc(mxc_bin):
    """A small chain through the interpreter and through mxc."""
    g = {
        "nodes": [
            {"op": "null", "name": "data", "inputs": []},
            {"op": "null", "name": "fc1_weight", "inputs": []},
            {"op": "null", "name": "fc1_bias", "inputs": []},
            {"op": "FullyConnected", "name": "fc1", "attrs": {"num_hidden": "8"},
             "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
            {"op": "null", "name": "fc2_weight", "inputs": []},
            {"op": "FullyConnected", "name": "fc2", "attrs": {"num_hidden": "4", "no_bias": "True"},
             "inputs": [[3, 0, 0], [4, 0, 0]]},
        ],
        "arg_nodes": [0, 1, 2, 4],
        "heads": [[5, 0, 0], [3, 0, 0]],
        "attrs": {"mxnet_version": ["int", 10901]},
    }
    values = {"data": rand(2, 3, 5), "fc1_weight": rand(8, 15), "fc1_bias": rand(8),
              "fc2_weight": rand(4, 8)}
    ref = run_graph_ref(g, values)
    assert list(ref) == ["fc2_output", "fc1_output"]
    expect1 = values["data"].reshape(2, 15) @ values["fc1_weight"].T + values["fc1_bias"]
    assert_close(ref["fc1_output"], expect1, rtol=1e-5)
    params = {k: v for k, v in values.items() if k != "data"}
    out = run_graph(g, {"data": values["data"]}, params=params)
    assert list(out) == ["fc2_output", "fc1_output"]
    for name in ref:
        assert_close(out[name], ref[name], rtol=1e-5, name=name)


def test_wrong_input_shape_is_a_one_line_error(mxc_bin, tmp_path):
    g = one_op_graph("Activation", {"act_type": "relu"}, ["data"], name="act")
    (tmp_path / "s.json").write_text(json.dumps(g))
    np.save(tmp_path / "x.npy", rand(2, 2))
    p = subprocess.run([mxc_bin, "run", str(tmp_path / "s.json"), "--shape", "data=3,2",
                        "--input", "data=%s" % (tmp_path / "x.npy")],
                       capture_output=True, text=True)
    assert p.returncode == 1
    assert p.stderr.count("\n") == 1
    assert p.stderr.startswith("mxc: error: input 'data': ")
    assert "(2, 2) float32, the graph needs (3, 2) float32" in p.stderr


def test_run_graph_raises_on_failure(mxc_bin):
    g = one_op_graph("Activation", {"act_type": "relu"}, ["data"], name="act")
    with pytest.raises(MxcError, match="input 'data'"):
        run_graph(g, {"data": rand(2)}, extra_args=["--shape", "data=3"])


def test_missing_binary_fails(monkeypatch):
    import mxc_testing
    monkeypatch.setenv("MXC_BIN", os.path.join(os.sep, "nonexistent", "mxc"))
    with pytest.raises(FileNotFoundError, match="mxc binary not found"):
        mxc_testing.mxc_binary()
