"""Partial shape inference (MXNet's infer_shape_partial and the back-inference
its infer_shape does): 0 (-1 under mx.np_shape) is an unknown extent, () (None)
an unknown shape. Expected shapes are MXNet 1.9.1's (its InferShape rules)."""
import numpy as np
import pytest

import mxc as mx


def arg_dict(sym, shapes):
    return dict(zip(sym.list_arguments(), shapes))


def test_an_unknown_batch_passes_through_operators():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    assert mx.sym.dot(x, y).infer_shape_partial(x=(0, 3, 4), y=(4, 5))[1] == [(0, 3, 5)]
    t = mx.sym.transpose(x, axes=(0, 3, 2, 1))
    assert t.infer_shape_partial(x=(0, 3, 224, 224))[1] == [(0, 224, 224, 3)]
    e = mx.sym.Embedding(data=x, weight=y, input_dim=100, output_dim=10)
    assert e.infer_shape_partial(x=(0, 5), y=(100, 10))[1] == [(0, 5, 10)]
    p = mx.sym.pick(x, y, axis=1)
    assert p.infer_shape_partial(x=(0, 3, 3), y=(0, 3))[1] == [(0, 3)]
    fc = mx.sym.FullyConnected(x, num_hidden=7, name="fc")
    args, outs, _ = fc.infer_shape_partial(x=(0, 12))
    assert outs == [(0, 7)] and arg_dict(fc, args)["fc_weight"] == (7, 12)


def test_what_mxnet_leaves_unknown_stays_unknown():
    x, y, c = mx.sym.var("x"), mx.sym.var("y"), mx.sym.var("c")
    bd = mx.sym.batch_dot(x, y)
    assert bd.infer_shape_partial(x=(0, 3, 4), y=(0, 4, 5))[1] == [(0, 3, 5)]
    assert bd.infer_shape_partial(x=(0, 3, 4), y=(0, 0, 5))[1] == [()]
    w = mx.sym.where(c, x, y)  # the condition must be complete
    assert w.infer_shape_partial(c=(0, 2), x=(0, 2), y=(0, 2))[1] == [()]
    s = mx.sym.slice_axis(mx.sym.var("d", shape=(10, 0)), axis=1, begin=0, end=5)
    assert s.infer_shape_partial()[1] == [(10, 0)]
    s = mx.sym.slice(mx.sym.var("d", shape=(0, 20)), begin=(None, 3), end=(None, 10))
    assert s.infer_shape_partial()[1] == [(0, 7)]
    args, outs, _ = mx.sym.sin(mx.sym.var("d")).infer_shape_partial()
    assert args == [()] and outs == [()]


def test_np_shape_spells_unknown_as_minus_one_and_none():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    with mx.np_shape(True):
        assert mx.sym.dot(x, y).infer_shape_partial(x=(-1, 3, 4), y=(4, 5))[1] == [(-1, 3, 5)]
        args, outs, _ = mx.sym.sin(mx.sym.var("d")).infer_shape_partial()
        assert args == [None] and outs == [None]


def test_extents_flow_back_from_results():
    a = mx.sym.var("a", shape=(0, 10))
    b = mx.sym.var("b", shape=(12, 0))
    args, _, _ = (a + b).infer_shape()
    assert args == [(12, 10), (12, 10)]
    # through FullyConnected's batch
    a = mx.sym.var("a", shape=(0, 10))
    d = mx.sym.FullyConnected(a, num_hidden=21, name="fc") + mx.sym.var("c", shape=(5, 0))
    assert arg_dict(d, d.infer_shape()[0]) == {
        "a": (5, 10), "fc_weight": (21, 10), "fc_bias": (21,), "c": (5, 21)}
    # through a stride-1 convolution's spatial extents
    a = mx.sym.var("a", shape=(0, 10, 0, 0))
    conv = mx.sym.Convolution(a, num_filter=21, kernel=(3, 3), pad=(1, 1), name="conv")
    d = conv + mx.sym.var("c", shape=(5, 21, 32, 32))
    assert arg_dict(d, d.infer_shape()[0])["a"] == (5, 10, 32, 32)
    # through Concat and SliceChannel
    a, b = mx.sym.var("a", shape=(0, 10)), mx.sym.var("b", shape=(0, 5))
    d = mx.sym.var("d", shape=(2, 0)) + mx.sym.Concat(a, b, dim=1)
    assert arg_dict(d, d.infer_shape()[0]) == {"d": (2, 15), "a": (2, 10), "b": (2, 5)}
    a = mx.sym.var("a", shape=(0, 15, 0))
    d = mx.sym.SliceChannel(a, num_outputs=3)[1] + mx.sym.var("c", shape=(3, 5, 2))
    assert arg_dict(d, d.infer_shape()[0])["a"] == (3, 15, 2)
    a = mx.sym.var("a", shape=(0, 10))
    d = mx.sym.SliceChannel(a, num_outputs=10, axis=1, squeeze_axis=True)[1] + \
        mx.sym.var("c", shape=(5,))
    assert arg_dict(d, d.infer_shape()[0])["a"] == (5, 10)


def test_reshape_takes_the_unknown_extent_from_a_complete_result():
    for src, dst in [((2, 3, 4), (6, 4)), ((2, 3, 4), (4, 3, 2)), ((5, 6), (30,))]:
        for i in range(len(src)):
            hold = tuple(0 if k == i else d for k, d in enumerate(src))
            net = mx.sym.elemwise_add(mx.sym.var("data").reshape(dst), mx.sym.ones(shape=dst))
            args, outs, _ = net.infer_shape(data=hold)
            assert args == [src] and outs == [dst], (hold, args, outs)


def test_incomplete_inference_is_none_and_partial_says_what_is_known():
    data, prev = mx.sym.var("data"), mx.sym.var("prev")
    out = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=8, name="x2h") +
                            mx.sym.FullyConnected(prev, num_hidden=8, name="h2h"),
                            act_type="relu")
    assert out.infer_shape(data=(4, 6)) == (None, None, None)
    args, outs, _ = out.infer_shape_partial(data=(4, 6))
    got = arg_dict(out, args)
    assert got["x2h_weight"] == (8, 6) and got["h2h_weight"] == () and outs == [(4, 8)]
    # a cast between a partial variable and a convolution
    data = mx.sym.var("data", shape=(1, 0, 0, 0))
    conv = mx.sym.Convolution(mx.sym.cast(data, dtype="float16"),
                              weight=mx.sym.cast(mx.sym.var("weight"), dtype="float16"),
                              num_filter=64, kernel=(7, 7), stride=(2, 2), pad=(3, 3), no_bias=True)
    got = arg_dict(conv, conv.infer_shape_partial()[0])
    assert got == {"data": (1, 0, 0, 0), "weight": (64, 0, 7, 7)}


def test_conflicting_partial_shapes_name_the_node():
    a = mx.sym.var("a", shape=(0, 10))
    b = mx.sym.var("b", shape=(12, 11))
    with pytest.raises(mx.MXNetError, match="_plus|elemwise_add|node"):
        mx.sym.elemwise_add(a, b, name="add").infer_shape_partial()


def test_simple_bind_completes_a_variable_known_from_what_it_feeds():
    # the weight's shape comes from FullyConnected, the sum of abs(weight)
    # only reads it (MXNet's one-forward-pass case)
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=1, no_bias=True, name="fc")
    net = mx.sym.sum(mx.sym.abs(fc.get_internals()["fc_weight"])) + mx.sym.sum(fc)
    ex = net.simple_bind(mx.cpu(), data=(5, 13))
    ex.arg_dict["data"][:] = 1
    ex.arg_dict["fc_weight"][:] = -0.5
    got = ex.forward()[0].asnumpy()
    np.testing.assert_allclose(got, 13 * 0.5 + 5 * -0.5 * 13, rtol=1e-6)


def test_creation_operators_with_unknown_extents():
    # MXNet's test_transpose_infer_shape_back / _mixed: the unknown extents
    # of ones((-1, -1)) / ones((3, -1)) come from what they feed
    o1, o2 = mx.sym.ones(shape=[2, 3]), mx.sym.ones(shape=[-1, -1])
    b = o1 + mx.sym.transpose(o2)
    out = b.bind(mx.cpu(), args={}).forward()[0]
    assert out.shape == (2, 3) and (out.asnumpy() == 2).all()
    o1, o2 = mx.sym.ones(shape=[2, -1]), mx.sym.ones(shape=[3, -1])
    b = o1 + mx.sym.transpose(o2, axes=(1, 0))
    assert b.infer_shape() == ([], [(2, 3)], [])
    assert b.bind(mx.cpu(), args={}).forward()[0].shape == (2, 3)
    x = mx.sym.var("x")
    z = mx.sym.zeros(shape=(0, 4)) + x
    assert z.infer_shape(x=(5, 4)) == ([(5, 4)], [(5, 4)], [])
    # nothing to complete it from: the compiler's error names the operator
    with pytest.raises(mx.MXNetError, match="not fully known"):
        mx.sym.ones(shape=(2, -1)).bind(mx.cpu(), args={}).forward()
