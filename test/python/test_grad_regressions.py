"""Gradients of `mxc run --train` on graphs that once came out wrong, checked
against closed forms computed with numpy.

Two BatchNorm heads (one training-mode on clip(data), one use_global_stats on
data): every gamma gradient is a per-channel sum reduced into a zero-filled
accumulator, and CSE merges those zero fills into one tensor. The entry ABI
materialized results into the caller's memrefs; eliminate-empty-tensors then
made that shared fill write into one gradient's output buffer, and the final
copy of the other gradient into it clobbered the value still to be copied out:
bn0_gamma.grad came out equal to bn1_gamma.grad (or bn1_beta.grad).
"""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gradcheck import run_training_step  # noqa: E402
from mxc_testing import assert_close  # noqa: E402

EPS = 1e-3  # MXNet's BatchNorm default


def two_bn_symbol():
    def var(name):
        return {"op": "null", "name": name, "inputs": []}

    def bn_vars(p):
        return [var(p + s) for s in ("_gamma", "_beta", "_moving_mean", "_moving_var")]

    nodes = [var("data"),
             {"op": "clip", "name": "n1", "inputs": [[0, 0, 0]],
              "attrs": {"a_min": "-1.0", "a_max": "1.0"}}]
    nodes += bn_vars("bn0")  # 2..5
    nodes.append({"op": "BatchNorm", "name": "n6",
                  "inputs": [[1, 0, 0]] + [[i, 0, 0] for i in range(2, 6)],
                  "attrs": {"fix_gamma": "False"}})
    nodes += bn_vars("bn1")  # 7..10
    nodes.append({"op": "BatchNorm", "name": "n11",
                  "inputs": [[0, 0, 0]] + [[i, 0, 0] for i in range(7, 11)],
                  "attrs": {"fix_gamma": "False", "use_global_stats": "True"}})
    return {"nodes": nodes, "arg_nodes": [0, 2, 3, 4, 5, 7, 8, 9, 10],
            "heads": [[11, 0, 0], [6, 0, 0]],
            "attrs": {"mxnet_version": ["int", 10901]}}


def _inputs(seed=0, shape=(2, 3, 4, 4)):
    rng = np.random.default_rng(seed)
    c = shape[1]
    data = rng.uniform(-2, 2, shape).astype(np.float32)
    params = {}
    for p in ("bn0", "bn1"):
        params[p + "_gamma"] = rng.uniform(0.5, 1.5, c).astype(np.float32)
        params[p + "_beta"] = rng.standard_normal(c).astype(np.float32)
        params[p + "_moving_mean"] = rng.standard_normal(c).astype(np.float32)
        params[p + "_moving_var"] = rng.uniform(0.5, 1.5, c).astype(np.float32)
    return data, params


def _expected_grads(data, params, hg11, hg6):
    """Closed forms: d/dgamma = sum(head_grad * x_hat), d/dbeta = sum(head_grad)
    over the axes other than the channel axis 1."""
    axes = (0, 2, 3)
    x0 = np.clip(data.astype(np.float64), -1, 1)
    mean = x0.mean(axis=axes, keepdims=True)
    var = x0.var(axis=axes, keepdims=True)
    xhat0 = (x0 - mean) / np.sqrt(var + EPS)
    mm = params["bn1_moving_mean"].astype(np.float64).reshape(1, -1, 1, 1)
    mv = params["bn1_moving_var"].astype(np.float64).reshape(1, -1, 1, 1)
    xhat1 = (data - mm) / np.sqrt(mv + EPS)
    return {"bn0_gamma": (hg6 * xhat0).sum(axis=axes),
            "bn0_beta": hg6.sum(axis=axes),
            "bn1_gamma": (hg11 * xhat1).sum(axis=axes),
            "bn1_beta": hg11.sum(axis=axes)}


@pytest.mark.parametrize("wrt,extra", [
    (["bn0_gamma", "bn1_gamma"], []),
    (["bn0_gamma", "bn1_beta"], []),
    (["bn0_gamma", "bn0_beta", "bn1_gamma", "bn1_beta"], ["--no-graph-fusion"]),
    (["bn0_gamma", "bn1_gamma"], ["--memory-plan", "none"]),
])
def test_two_batchnorm_heads_ones(wrt, extra):
    """The reported case: head gradients ones, so bn0_gamma's gradient is
    sum(x_hat) = 0 per channel, never bn1's."""
    data, params = _inputs()
    ones = np.ones_like(data, dtype=np.float64)
    expected = _expected_grads(data, params, ones, ones)
    _, grads, _ = run_training_step(two_bn_symbol(), {"data": data}, params,
                                    wrt=wrt, extra_args=["--no-cache"] + extra)
    assert sorted(grads) == sorted(wrt)
    for name in wrt:
        assert_close(grads[name], expected[name].astype(np.float32), rtol=1e-4, atol=1e-4,
                     name=name + ".grad")


def test_two_batchnorm_heads_random_head_grads():
    data, params = _inputs(seed=1)
    rng = np.random.default_rng(2)
    hg11 = rng.standard_normal(data.shape).astype(np.float32)
    hg6 = rng.standard_normal(data.shape).astype(np.float32)
    wrt = ["bn0_gamma", "bn0_beta", "bn1_gamma", "bn1_beta"]
    expected = _expected_grads(data, params, hg11.astype(np.float64),
                               hg6.astype(np.float64))
    _, grads, _ = run_training_step(
        two_bn_symbol(), {"data": data}, params, wrt=wrt,
        head_grads={"n11_output": hg11, "n6_output": hg6},
        extra_args=["--no-cache"])
    for name in wrt:
        assert_close(grads[name], expected[name].astype(np.float32), rtol=1e-4, atol=1e-4,
                     name=name + ".grad")
