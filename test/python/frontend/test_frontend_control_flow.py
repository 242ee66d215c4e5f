"""mx.nd.contrib.foreach / while_loop / cond (Python loops over mxc's
operators, recorded by autograd). The Symbol forms (_foreach, _while_loop,
_cond nodes with subgraphs, unrolled by the compiler) are in
test_symbol_control_flow.py."""
import numpy as np
import pytest

import mxc as mx

R = np.random.default_rng(3)


def test_foreach_matches_unrolled_with_gradients():
    data = mx.nd.array(R.uniform(-1, 1, (5, 2, 3)))
    w = mx.nd.array(R.uniform(-1, 1, (3, 3)))
    h0 = mx.nd.array(R.uniform(-1, 1, (2, 3)))
    for a in (data, w, h0):
        a.attach_grad()

    def step(x, states):
        h = mx.nd.tanh(x + mx.nd.dot(states[0], w))
        return [h, h * 2], [h]

    with mx.autograd.record():
        (outs, outs2), states = mx.nd.contrib.foreach(step, data, [h0])
        loss = (outs * outs2).sum() + states[0].sum()
    loss.backward()
    grads = [a.grad.asnumpy() for a in (data, w, h0)]
    # the same computation unrolled by hand
    d, wn, h = data.asnumpy(), w.asnumpy(), h0.asnumpy()
    hs = []
    for t in range(5):
        h = np.tanh(d[t] + h @ wn)
        hs.append(h)
    np.testing.assert_allclose(outs.asnumpy(), np.stack(hs), rtol=1e-5)
    np.testing.assert_allclose(outs2.asnumpy(), 2 * np.stack(hs), rtol=1e-5)
    np.testing.assert_allclose(states[0].asnumpy(), hs[-1], rtol=1e-5)
    for a in (data, w, h0):
        a.attach_grad()
    with mx.autograd.record():
        h, acc = h0, None
        for t in range(5):
            h = mx.nd.tanh(data[t] + mx.nd.dot(h, w))
            term = (h * (h * 2)).sum()
            acc = term if acc is None else acc + term
        loss = acc + h.sum()
    loss.backward()
    for got, a in zip(grads, (data, w, h0)):
        np.testing.assert_allclose(got, a.grad.asnumpy(), rtol=1e-5, atol=1e-6)


def test_foreach_formats():
    data = [mx.nd.ones((3, 2)), mx.nd.arange(3)]
    out, states = mx.nd.contrib.foreach(lambda xs, s: (xs[0] * xs[1].reshape((1,)), s + 1),
                                        data, mx.nd.zeros((1,)))
    assert isinstance(out, mx.nd.NDArray) and out.shape == (3, 2)
    np.testing.assert_array_equal(out.asnumpy(), [[0, 0], [1, 1], [2, 2]])
    assert states.asscalar() == 3
    with pytest.raises(ValueError, match="different lengths"):
        mx.nd.contrib.foreach(lambda x, s: (x[0], s), [mx.nd.ones((3,)), mx.nd.ones((2,))],
                              mx.nd.zeros((1,)))


def test_while_loop_pads_to_max_iterations():
    i0, s0 = mx.nd.array([1]), mx.nd.array([0])
    outs, (i, s) = mx.nd.contrib.while_loop(
        cond=lambda i, s: i <= 4, func=lambda i, s: ([i * i], [i + 1, s + i]),
        loop_vars=[i0, s0], max_iterations=7)
    assert i.asscalar() == 5 and s.asscalar() == 10
    assert outs[0].shape == (7, 1)
    np.testing.assert_array_equal(outs[0].asnumpy()[:4, 0], [1, 4, 9, 16])
    outs, v = mx.nd.contrib.while_loop(lambda v: v < 100, lambda v: (None, v * 2),
                                       mx.nd.array([3]), max_iterations=3)
    assert outs == [] and v.asscalar() == 24
    with pytest.raises(ValueError, match="max_iterations"):
        mx.nd.contrib.while_loop(lambda v: v < 1, lambda v: (v, v), mx.nd.array([0]))


def test_cond():
    a, b = mx.nd.array([2.0]), mx.nd.array([5.0])
    got = mx.nd.contrib.cond(a < b, lambda: a + b, lambda: a - b)
    assert got.asscalar() == 7
    got = mx.nd.contrib.cond(a > b, lambda: a + b, lambda: a - b)
    assert got.asscalar() == -3


def test_hybridized_block_compiles_control_flow():
    class Cumsum(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x, init):
            out, state = F.contrib.foreach(lambda d, s: (d + s[0], [d + s[0]]), x, [init])
            return out

    block = Cumsum()
    block.hybridize()
    x = mx.nd.array(R.uniform(-1, 1, (4, 3)))
    got = block(x, mx.nd.zeros((3,)))
    np.testing.assert_allclose(got.asnumpy(), np.cumsum(x.asnumpy(), axis=0), rtol=1e-6)
    assert block._cached_op is not None and not getattr(block, "_dynamic_shape", False)
