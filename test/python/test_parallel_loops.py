"""Generated loops on the kernel threads (mxc-parallel-loops).

Each op runs on tensors large enough that its loop nests go to the runtime's
parallel loop (more than its 32768-iteration threshold), with two kernel
threads, and the outputs must be *bitwise* equal to the same graph compiled
with --no-parallel-loops (each output element is computed by the same code
whichever thread runs it; reductions stay sequential within an element),
and match the numpy reference. A training step (--train, gradients written
by generated loops and by the runtime's kernels) is checked the same way.
"""
import os
import tempfile

import numpy as np
import pytest
from mxc_testing import assert_close, mxc_binary, one_op_graph, run_graph, write_params
from mxnet_ref import REF

import json
import subprocess


def _rand(rng, shape, low=-1.0, high=1.0):
    return rng.uniform(low, high, size=shape).astype(np.float32)


SHAPE = (2, 16, 48, 48)  # 73728 elements


def _cases():
    rng = np.random.default_rng(7)
    c = SHAPE[1]
    bn = [("gamma", _rand(rng, (c,))), ("beta", _rand(rng, (c,))),
          ("moving_mean", _rand(rng, (c,))), ("moving_var", _rand(rng, (c,), 0.5, 2.0))]
    return [
        ("Activation", {"act_type": "relu"}, []),
        ("Activation", {"act_type": "tanh"}, []),
        ("softmax", {"axis": 1}, []),
        ("log_softmax", {"axis": -1}, []),
        ("Pooling", {"kernel": (3, 3), "stride": (2, 2), "pool_type": "max"}, []),
        ("Pooling", {"kernel": (3, 3), "stride": (1, 1), "pad": (1, 1), "pool_type": "avg"}, []),
        ("Pooling", {"global_pool": True, "pool_type": "avg", "kernel": (1, 1)}, []),
        ("BatchNorm", {"use_global_stats": True, "fix_gamma": False, "eps": 1e-5}, bn),
        ("sum", {"axis": (2, 3)}, []),
        ("mean", {"axis": 1}, []),
        ("transpose", {"axes": (0, 2, 3, 1)}, []),
        ("broadcast_add", {}, [("rhs", _rand(rng, (1, c, 1, 1)))]),
        ("LRN", {"nsize": 5, "alpha": 1e-4, "beta": 0.75, "knorm": 2.0}, []),
        ("Flatten", {}, []),
    ]


@pytest.fixture
def two_kernel_threads(monkeypatch):
    monkeypatch.setenv("MXC_KERNEL_NTHREADS", "2")


@pytest.mark.parametrize("op,attrs,params", _cases(),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_parallel_equals_serial(two_kernel_threads, op, attrs, params):
    rng = np.random.default_rng(11)
    data = _rand(rng, SHAPE)
    names = ["data"] + [n for n, _ in params]
    graph = one_op_graph(op, attrs, names, name="node")
    parallel = list(run_graph(graph, {"data": data}, params=dict(params)).values())
    serial = list(run_graph(graph, {"data": data}, params=dict(params),
                            extra_args=["--no-parallel-loops"]).values())
    assert len(parallel) == len(serial) == 1
    np.testing.assert_array_equal(parallel[0], serial[0],
                                  err_msg="%s: parallel loops differ from serial" % op)
    str_attrs = graph["nodes"][-1].get("attrs", {})
    expected = REF[op]([data] + [a for _, a in params], str_attrs)
    assert_close(parallel[0], expected[0], rtol=1e-4, atol=1e-5, name=op)


def _train_step(tmp, extra):
    """A small conv net's training step through `mxc run --train`: returns
    {file name: array} of the outputs, gradients and auxiliary states."""
    out = os.path.join(tmp, "out" + ("-serial" if extra else ""))
    cmd = [mxc_binary(), "run", os.path.join(tmp, "net-symbol.json"), "--train",
           "--shape", "data=8,3,32,32", "--params", os.path.join(tmp, "net.params"),
           "--input", "data=" + os.path.join(tmp, "data.npy"),
           "--input", "softmax_label=" + os.path.join(tmp, "label.npy"),
           "--output-dir", out] + extra
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    return {f: np.load(os.path.join(out, f)) for f in sorted(os.listdir(out))}


def test_training_step_parallel_equals_serial(two_kernel_threads):
    def node(op, name, inputs, **attrs):
        return {"op": op, "name": name, "inputs": inputs,
                **({"attrs": {k: str(v) for k, v in attrs.items()}} if attrs else {})}
    nodes = [
        {"op": "null", "name": "data", "inputs": []},
        {"op": "null", "name": "conv_weight", "inputs": []},
        {"op": "null", "name": "conv_bias", "inputs": []},
        node("Convolution", "conv", [[0, 0, 0], [1, 0, 0], [2, 0, 0]],
             kernel="(3, 3)", pad="(1, 1)", num_filter=16),
        {"op": "null", "name": "bn_gamma", "inputs": []},
        {"op": "null", "name": "bn_beta", "inputs": []},
        {"op": "null", "name": "bn_moving_mean", "inputs": []},
        {"op": "null", "name": "bn_moving_var", "inputs": []},
        node("BatchNorm", "bn", [[3, 0, 0], [4, 0, 0], [5, 0, 0], [6, 0, 1], [7, 0, 1]],
             fix_gamma="False"),
        node("Activation", "relu", [[8, 0, 0]], act_type="relu"),
        node("Pooling", "pool", [[9, 0, 0]], kernel="(2, 2)", stride="(2, 2)", pool_type="max"),
        node("Flatten", "flat", [[10, 0, 0]]),
        {"op": "null", "name": "fc_weight", "inputs": []},
        {"op": "null", "name": "fc_bias", "inputs": []},
        node("FullyConnected", "fc", [[11, 0, 0], [12, 0, 0], [13, 0, 0]], num_hidden=10),
        {"op": "null", "name": "softmax_label", "inputs": []},
        node("SoftmaxOutput", "softmax", [[14, 0, 0], [15, 0, 0]]),
    ]
    graph = {"nodes": nodes, "arg_nodes": [0, 1, 2, 4, 5, 6, 7, 12, 13, 15],
             "heads": [[16, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}}
    rng = np.random.default_rng(3)
    params = {"conv_weight": _rand(rng, (16, 3, 3, 3)) * 0.3, "conv_bias": _rand(rng, (16,)),
              "bn_gamma": _rand(rng, (16,), 0.8, 1.2), "bn_beta": _rand(rng, (16,)),
              "fc_weight": _rand(rng, (10, 16 * 16 * 16)) * 0.05, "fc_bias": _rand(rng, (10,)),
              "aux:bn_moving_mean": np.zeros(16, np.float32),
              "aux:bn_moving_var": np.ones(16, np.float32)}
    with tempfile.TemporaryDirectory(prefix="mxc-par-") as tmp:
        with open(os.path.join(tmp, "net-symbol.json"), "w") as f:
            json.dump(graph, f)
        write_params(os.path.join(tmp, "net.params"), params)
        np.save(os.path.join(tmp, "data.npy"), _rand(rng, (8, 3, 32, 32)))
        np.save(os.path.join(tmp, "label.npy"), rng.integers(0, 10, 8).astype(np.float32))
        parallel = _train_step(tmp, [])
        serial = _train_step(tmp, ["--no-parallel-loops"])
    assert parallel.keys() == serial.keys()
    assert any(k.endswith(".grad.npy") for k in parallel), sorted(parallel)
    for k in parallel:
        np.testing.assert_array_equal(parallel[k], serial[k], err_msg=k)
