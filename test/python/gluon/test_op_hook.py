"""HybridBlock.register_op_hook and Executor.set_monitor_callback: MXNet's
names for every operator input and output (FListInputNames /
FListOutputNames or input0 / 0), and the values, against MXNet 1.9.1 itself
where .venv-mxnet exists."""
import json

import numpy as np
import pytest

import mxc as mx
from mxnet_side import needs_mxnet, run_mxnet, run_mxc


def hooked(block, x, monitor_all):
    seen = []
    block.register_op_hook(lambda name, op, arr: seen.append((name, op, arr)), monitor_all)
    y = block(x)
    return y, seen


def test_op_hook_names_as_mxnet_unit_test():
    # the expectations of MXNet's test_gluon.py::test_op_hook_output_names
    model = mx.gluon.nn.HybridSequential(prefix="dense_")
    with model.name_scope():
        model.add(mx.gluon.nn.Dense(2))
        model.add(mx.gluon.nn.Activation("relu"))
    model.initialize()
    model.hybridize()
    y, seen = hooked(model, mx.nd.ones((2, 3, 4)), True)
    assert [n for n, _, _ in seen] == [
        "dense_dense0_fwd_data", "dense_dense0_fwd_weight", "dense_dense0_fwd_bias",
        "dense_dense0_fwd_output", "dense_relu0_fwd_input0", "dense_relu0_fwd_output"]
    assert [op for _, op, _ in seen] == ["FullyConnected"] * 4 + ["Activation"] * 2
    # the values are the block's: its input, parameters, intermediate and output
    np.testing.assert_array_equal(seen[0][2].asnumpy(), np.ones((2, 3, 4)))
    np.testing.assert_array_equal(seen[1][2].asnumpy(), model[0].weight.data().asnumpy())
    np.testing.assert_array_equal(seen[3][2].asnumpy(), seen[4][2].asnumpy())
    np.testing.assert_allclose(seen[5][2].asnumpy(), y.asnumpy(), rtol=1e-6)

    pool = mx.gluon.nn.HybridSequential("pool_")
    with pool.name_scope():
        pool.add(mx.gluon.nn.AvgPool1D())
    pool.initialize()
    pool.hybridize()
    _, seen = hooked(pool, mx.nd.ones((2, 3, 4)), True)
    assert [(n, op) for n, op, _ in seen] == [("pool_pool0_fwd_data", "Pooling"),
                                              ("pool_pool0_fwd_output", "Pooling")]
    _, seen = hooked(pool, mx.nd.ones((2, 3, 4)), False)
    assert [n for n, _, _ in seen] == ["pool_pool0_fwd_output"]


def test_op_hook_unnamed_outputs_and_inputs():
    # no FListOutputNames: '<node>_0'; no FListInputNames: '<node>_input0'
    x = mx.sym.var("x")
    net = mx.gluon.SymbolBlock(mx.sym.flatten(mx.sym.exp(x, name="e"), name="f"), [x])
    net.hybridize()
    _, seen = hooked(net, mx.nd.ones((2, 2, 2)), True)
    assert [n for n, _, _ in seen] == ["e_input0", "e_0", "f_input0", "f_0"]
    np.testing.assert_allclose(seen[1][2].asnumpy(), np.full((2, 2, 2), np.e), rtol=1e-6)


def test_op_hook_only_when_hybridized_and_on_children():
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(2, prefix="d_"))
    net.initialize()
    _, seen = hooked(net, mx.nd.ones((1, 3)), False)
    assert seen == []      # as MXNet: the hook is a CachedOp's
    seen = []
    net.register_op_hook(lambda *a: seen.append(a[0]))
    net[0].hybridize()     # the child alone is hybridized: it reports
    net(mx.nd.ones((1, 3)))
    assert seen == ["d_fwd_output"]


def test_executor_monitor_unnamed_inputs():
    x = mx.sym.var("x")
    act = mx.sym.Activation(x, act_type="relu", name="act")
    exe = act.simple_bind(mx.cpu(), x=(2,), grad_req="null")
    seen = []
    exe.set_monitor_callback(lambda name, arr: seen.append(name), monitor_all=True)
    exe.forward()
    assert seen == ["x", "act_input0", "act_output"]


SCRIPT = r'''
import sys, json, importlib, numpy as np
mx = importlib.import_module(sys.argv[1])
rng = np.random.RandomState(0)
out = {}
nn = mx.gluon.nn


def py_str(s):  # MXNet passes bytes, mxc str
    return s.decode() if isinstance(s, bytes) else s


def value(arr):  # MXNet passes a raw NDArrayHandle, mxc an NDArray
    if not hasattr(arr, "asnumpy"):
        import ctypes
        arr = mx.nd.NDArray(ctypes.cast(arr, mx.base.NDArrayHandle), writable=False)
    return arr.asnumpy()


nets = {}
a = nn.HybridSequential(prefix="a_")
with a.name_scope():
    a.add(nn.Conv2D(4, 3, padding=1), nn.BatchNorm(), nn.Activation("tanh"),
          nn.MaxPool2D(), nn.Flatten(), nn.Dense(5), nn.LeakyReLU(0.1), nn.Dropout(0.5))
nets["a"] = (a, (2, 3, 6, 6))
b = nn.HybridSequential(prefix="b_")
with b.name_scope():
    b.add(nn.Embedding(7, 3), nn.LayerNorm(), nn.HybridLambda(lambda F, x: F.concat(
        F.sigmoid(x) * 2 + 1, F.broadcast_add(x, F.mean(x, axis=1, keepdims=True)), dim=-1)),
        nn.HybridLambda(lambda F, x: F.split(F.softmax(x), num_outputs=2, axis=-1)[1]))
nets["b"] = (b, None)
for key, (net, shape) in nets.items():
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(rng.randn(*shape)) if shape else mx.nd.array([[1, 4, 6], [0, 2, 2]])
    net(x)
    for name, p in sorted(net.collect_params().items()):
        p.set_data(mx.nd.array(rng.uniform(0.5 if "var" in name else -1, 1, p.shape)))
    net.hybridize()
    for monitor_all in (False, True):
        seen = []
        net.hybridize()  # MXNet installs the hook when it builds the CachedOp
        net.register_op_hook(lambda n, op, arr: seen.append((py_str(n), py_str(op), value(arr))),
                             monitor_all)
        net(x)
        mx.nd.waitall()
        out["%s_%s_names" % (key, monitor_all)] = [(n, op) for n, op, _ in seen]
        for i, (_, _, v) in enumerate(seen):
            out["%s_%s_%d" % (key, monitor_all, i)] = v.tolist()
json.dump(out, open(sys.argv[2], "w"))
'''


@needs_mxnet
def test_op_hook_matches_mxnet(tmp_path):
    run_mxnet(SCRIPT, "mxnet", tmp_path / "mxnet.json")
    run_mxc(SCRIPT, "mxc", tmp_path / "mxc.json")
    want = json.load(open(tmp_path / "mxnet.json"))
    got = json.load(open(tmp_path / "mxc.json"))
    assert sorted(got) == sorted(want)
    for k in want:
        if k.endswith("_names"):
            assert got[k] == want[k], k
        else:
            np.testing.assert_allclose(np.array(got[k]), np.array(want[k]), rtol=1e-4,
                                       atol=1e-5, err_msg=k)
