"""mx.sym.contrib.foreach / while_loop / cond: _foreach / _while_loop / _cond
nodes carrying their subgraphs, written as MXNet 1.9.1 writes them, and
unrolled by the compiler (lib/Compiler/Import.cpp) once shapes are known.

Outputs and gradients are checked against the same computation written out
step by step in numpy (and against mx.nd.contrib's imperative forms)."""
import json
import os
import sys

import numpy as np
import pytest

import mxc as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "golden"))
from control_flow_graphs import build  # noqa: E402

R = np.random.default_rng(11)


def arr(*shape):
    return R.uniform(-1, 1, shape).astype(np.float32)


def run(sym, args, head_grads=None):
    """Forward (and backward with head_grads) of a bound symbol: (outputs,
    gradients by name)."""
    grads = {k: mx.nd.zeros(v.shape) for k, v in args.items()}
    ex = sym.bind(mx.cpu(), {k: mx.nd.array(v) for k, v in args.items()},
                  args_grad=grads if head_grads is not None else None)
    outs = [o.asnumpy() for o in ex.forward(is_train=head_grads is not None)]
    if head_grads is None:
        return outs, {}
    ex.backward([mx.nd.array(g) for g in head_grads])
    return outs, {k: g.asnumpy() for k, g in grads.items()}


def test_tojson_is_mxnet_byte_for_byte():
    # control_flow.mxnet-1.9.1.json: MXNet 1.9.1's tojson() of the same graphs
    # (golden/make_golden.py); nested loops, free variables, cut outputs.
    with open(os.path.join(HERE, "golden", "control_flow.mxnet-1.9.1.json")) as f:
        want = json.load(f)
    got = build(mx)
    assert sorted(got) == sorted(want)
    for name, sym in got.items():
        assert sym.tojson() == want[name], name
        again = mx.sym.load_json(want[name])
        assert again.tojson() == want[name], name
    assert got["foreach"].list_arguments() == ["data", "s0", "s1", "w", "fc_weight", "fc_bias"]
    assert got["while_loop"].list_arguments() == ["i", "w", "s"]
    assert got["cond"].list_outputs() == ["_cond0_output"]


def test_foreach_forward_and_gradients():
    g = build(mx)["foreach"]
    T, N = 4, 3
    a = {"data": arr(T, N), "w": arr(N), "s0": arr(N), "s1": arr(N),
         "fc_weight": arr(2, N), "fc_bias": arr(2)}
    hg = [arr(T, N), arr(T, T, 2), arr(N), arr(N)]
    outs, grads = run(g, a, hg)
    # the body written out: y_t = x_t + s0_t * w, s0' = 2 s0 + x_t
    fc = a["data"] @ a["fc_weight"].T + a["fc_bias"]
    s0, ys = a["s0"].copy(), []
    for t in range(T):
        ys.append(a["data"][t] + s0 * a["w"])
        s0 = s0 * 2 + a["data"][t]
    np.testing.assert_allclose(outs[0], np.stack(ys), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs[1], np.stack([fc] * T), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs[2], s0, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs[3], a["s1"], rtol=1e-6)
    # gradients: the same loop recorded by autograd (mx.nd.contrib.foreach)
    nd = {k: mx.nd.array(v) for k, v in a.items()}
    for v in nd.values():
        v.attach_grad()
    with mx.autograd.record():
        fc_nd = mx.nd.FullyConnected(nd["data"], nd["fc_weight"], nd["fc_bias"], num_hidden=2)
        o, st = mx.nd.contrib.foreach(
            lambda x, s: ([x + s[0] * nd["w"], fc_nd], [s[0] * 2 + x, s[1]]),
            nd["data"], [nd["s0"], nd["s1"]])
        loss = sum(((r * mx.nd.array(h)).sum() for r, h in zip(o + st, hg)), mx.nd.zeros((1,)))
    loss.backward()
    for k, v in nd.items():
        np.testing.assert_allclose(grads[k], v.grad.asnumpy(), rtol=1e-4, atol=1e-5, err_msg=k)


def test_foreach_one_dimensional_data_and_several_inputs():
    # MXNet's NDArray::At: a step of 1-D data keeps shape (1,)
    x, y, s = mx.sym.var("x"), mx.sym.var("y"), mx.sym.var("s")
    outs, st = mx.sym.contrib.foreach(
        lambda d, states: ([d[1] * d[0] * states[0]], [states[0] * 2]), [x, y], [s])
    g = mx.sym.Group(outs + st)
    a = {"x": arr(3, 1), "y": np.arange(3, dtype=np.float32), "s": arr(1)}
    got, _ = run(g, a)
    want = [a["y"][t] * a["x"][t] * a["s"] * 2 ** t for t in range(3)]
    assert got[0].shape == (3, 1)
    np.testing.assert_allclose(got[0], np.stack(want), rtol=1e-6)
    np.testing.assert_allclose(got[1], a["s"] * 8, rtol=1e-6)


def test_nested_foreach():
    g = build(mx)["nested"]
    a = {"data": arr(2, 3, 4), "t0": arr(4)}
    got, _ = run(g, a)
    t, outer = a["t0"].copy(), []
    for i in range(2):
        inner = []
        for j in range(3):
            inner.append(a["data"][i][j] * t)
            t = t + a["data"][i][j]
        outer.append(np.stack(inner))
    np.testing.assert_allclose(got[0], np.stack(outer), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], t, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("w", [0.5, 2.5, 9.0])
def test_while_loop_forward_and_gradients(w):
    # (i + w) <= 5: 5, 3 and 0 steps of at most 7; rows after the loop stopped
    # are zeros (MXNet leaves them unwritten), the loop variables keep the
    # values of the last step that ran
    g = build(mx)["while_loop"]
    a = {"i": np.array([0.5], np.float32), "s": arr(1), "w": np.array([w], np.float32)}
    hg = [arr(7, 1), arr(1), arr(1)]
    outs, grads = run(g, a, hg)
    i, s, rows = a["i"].copy(), a["s"].copy(), []
    ds_dw = np.zeros(1, np.float32)
    while len(rows) < 7 and (i + w) <= 5:
        rows.append(i + s)
        i, s = i + 1, s + i * w
    steps = len(rows)
    rows += [np.zeros(1, np.float32)] * (7 - steps)
    np.testing.assert_allclose(outs[0], np.stack(rows), rtol=1e-6)
    np.testing.assert_allclose(outs[1], i, rtol=1e-6)
    np.testing.assert_allclose(outs[2], s, rtol=1e-6)
    # d/ds: every output row t < steps has s_t = s_0 + ..., so ds_t/ds_0 = 1
    np.testing.assert_allclose(grads["s"], hg[0][:steps].sum(0) + hg[2], rtol=1e-5)
    # d/dw: s_t = s_0 + w * sum_{k<t} i_k
    i_k = a["i"][0] + np.arange(7)
    want_w = sum(hg[0][t, 0] * i_k[:t].sum() for t in range(steps)) + hg[2][0] * i_k[:steps].sum()
    np.testing.assert_allclose(grads["w"], [want_w], rtol=1e-5, atol=1e-5)
    del ds_dw


def test_cond_both_branches_and_gradients():
    g = build(mx)["cond"]
    for av, bv in ((0.5, 1.0), (3.0, 4.0)):
        a = {"a": np.full((1, 2), av, np.float32), "b": np.full((1, 2), bv, np.float32),
             "data": arr(1, 3), "fc_weight": arr(2, 3), "fc_bias": arr(2)}
        hg = [arr(1, 2)]
        outs, grads = run(g, a, hg)
        fc = a["data"] @ a["fc_weight"].T + a["fc_bias"]
        if (a["a"] * a["b"]).sum() < 5:
            want = (a["a"] + 5) * (a["b"] + fc)
            da = (a["b"] + fc) * hg[0]
            dfc_bias = ((a["a"] + 5) * hg[0])[0]
        else:
            want = (a["a"] - 5) * (a["b"] - 5)
            da = (a["b"] - 5) * hg[0]
            dfc_bias = np.zeros(2, np.float32)
        np.testing.assert_allclose(outs[0], want, rtol=1e-5)
        np.testing.assert_allclose(grads["a"], da, rtol=1e-5)
        np.testing.assert_allclose(grads["fc_bias"], dfc_bias, rtol=1e-5, atol=1e-7)


def test_graph_inputs_and_shapes():
    g = build(mx)["foreach"]
    arg_shapes, out_shapes, _ = g.infer_shape(data=(5, 3), w=(3,), s0=(3,), s1=(3,))
    assert dict(zip(g.list_arguments(), arg_shapes))["fc_weight"] == (2, 3)
    assert out_shapes == [(5, 3), (5, 5, 2), (3,), (3,)]
    # an unknown number of steps: MXNet's partial inference keeps it unknown
    data = mx.sym.var("data", shape=(0, 3, 8, 8))
    outs, _ = mx.sym.contrib.foreach(lambda d, s: (d + s[0], [s[0] * 2]), data,
                                     [mx.sym.var("state")])
    _, out_shapes, _ = outs.infer_shape_partial()
    assert out_shapes[0] == (0, 3, 8, 8)


def test_hybridized_gluon_while_loop_and_cond():
    class Block(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x, s):
            out, (i, acc) = F.contrib.while_loop(
                lambda i, acc: i < 3,
                lambda i, acc: (F.broadcast_mul(acc, x), [i + 1, acc + x.sum()]),
                [F.zeros_like(s), s], max_iterations=5)
            (picked,) = F.contrib.cond(acc.sum() > 0, lambda: [acc * 2], lambda: [acc - 1])
            return out, picked

    x, s = arr(4), arr(1)
    plain = Block()
    want = [o.asnumpy() for o in plain(mx.nd.array(x), mx.nd.array(s))]
    hybrid = Block()
    hybrid.hybridize()
    got = [o.asnumpy() for o in hybrid(mx.nd.array(x), mx.nd.array(s))]
    assert not getattr(hybrid, "_dynamic_shape", False)
    assert got[0].shape == (5, 4)       # padded to max_iterations as MXNet's graph
    np.testing.assert_allclose(got[0][:3], want[0][:3], rtol=1e-5)
    np.testing.assert_allclose(got[0][3:], 0)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5)


def test_errors():
    x, s = mx.sym.var("x"), mx.sym.var("s")
    # a state the body does not use: MXNet's assertion
    with pytest.raises(AssertionError, match="state arrays have to be used"):
        mx.sym.contrib.foreach(lambda d, st: (d, [d]), x, [s])
    with pytest.raises(ValueError, match="max_iterations should be specified"):
        mx.sym.contrib.while_loop(lambda v: v < 1, lambda v: ([], [v + 1]), [x])
    # a branch of another shape than the other: one line naming the node
    c = mx.sym.contrib.cond(x.sum() < 1, lambda: x, lambda: mx.sym.concat(x, x, dim=0))
    with pytest.raises(mx.MXNetError, match="_cond0.*differ in shape"):
        c.infer_shape(x=(2,))


def test_loop_variable_shaped_by_its_consumer():
    # 'acc' has no shape given: its first consumer in the body (x + acc)
    # gives it (the importer infers a variable's shape from its consumer, in
    # graph order), and the loop's selects use that argument afterwards
    x, i, acc = mx.sym.var("x"), mx.sym.var("i"), mx.sym.var("acc")

    def body(i, acc):
        s = x + acc
        return [s * 2], [i + 1, s]
    outs, (i_end, acc_end) = mx.sym.contrib.while_loop(
        lambda i, acc: i < 3, body, [i, acc], max_iterations=4)
    g = mx.sym.Group(outs + [acc_end])
    arg_shapes, out_shapes, _ = g.infer_shape(x=(2,), i=(1,))
    assert dict(zip(g.list_arguments(), arg_shapes))["acc"] == (2,)
    assert out_shapes == [(4, 2), (2,)]
    a = {"x": np.array([1.0, 2.0], np.float32), "i": np.zeros(1, np.float32),
         "acc": np.array([0.5, -0.5], np.float32)}
    got, _ = run(g, a)
    np.testing.assert_allclose(got[1], a["acc"] + 3 * a["x"], rtol=1e-6)
    np.testing.assert_allclose(got[0][:3],
                               [2 * (a["acc"] + k * a["x"]) for k in range(1, 4)], rtol=1e-6)
    np.testing.assert_allclose(got[0][3], 0)
