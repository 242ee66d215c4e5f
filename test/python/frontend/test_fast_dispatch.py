"""mx.nd's dispatch fast path in C++ (`_mxc.fast_dispatch`, issue 11's
small-op dispatch): a call seen before on runtime arrays is pushed and its
output NDArrays are made without Python code. These tests check that it is
taken where it may be, declined (None: the Python path) where it may not, and
that what it makes is an ordinary NDArray."""
import numpy as np
import pytest

import mxc as mx
from mxc import _mxc
from mxc import ndarray as nd_module


def arrays(*shapes):
    rng = np.random.default_rng(0)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def test_a_cached_call_goes_through_the_fast_path():
    x, y = arrays((3, 11), (3, 11))  # a shape no other test adds
    a, b = mx.nd.array(x), mx.nd.array(y)
    assert _mxc.fast_dispatch("elemwise_add", (a, b), {}) is None  # not seen yet
    mx.nd.elemwise_add(a, b)  # the Python path caches it
    c = _mxc.fast_dispatch("elemwise_add", (a, b), {})
    assert type(c) is mx.nd.NDArray
    np.testing.assert_array_equal(c.asnumpy(), x + y)
    # What the fast path made behaves as any NDArray.
    assert c.shape == (3, 11) and c.dtype == np.float32 and c.context == a.context
    assert c.grad is None and c._grad_req == "null" and c._ag is None
    c.attach_grad()
    with mx.autograd.record():
        z = (c * c).sum()
    z.backward()
    np.testing.assert_allclose(c.grad.asnumpy(), 2 * (x + y), rtol=1e-6)
    # A list of inputs works as a tuple does; attributes are part of the key.
    np.testing.assert_array_equal(
        _mxc.fast_dispatch("elemwise_add", [a, b], None).asnumpy(), x + y)
    mx.nd.sum(a, axis=1)
    s = _mxc.fast_dispatch("sum", (a,), {"axis": 1})
    np.testing.assert_allclose(s.asnumpy(), x.sum(axis=1), rtol=1e-6)
    assert _mxc.fast_dispatch("sum", (a,), {"axis": 0}) is None


def test_operators_and_op_functions_take_it():
    x, y = arrays((2, 5), (2, 5))
    a, b = mx.nd.array(x), mx.nd.array(y)
    for _ in range(2):  # the second round is served by the fast path
        np.testing.assert_allclose((a + b).asnumpy(), x + y, rtol=1e-6)
        np.testing.assert_allclose((a - b).asnumpy(), x - y, rtol=1e-6)
        np.testing.assert_allclose((a * b).asnumpy(), x * y, rtol=1e-6)
        np.testing.assert_allclose((a / b).asnumpy(), x / y, rtol=1e-5)
        np.testing.assert_allclose((a + 2.0).asnumpy(), x + 2, rtol=1e-6)
        np.testing.assert_allclose(mx.nd.relu(a).asnumpy(), np.maximum(x, 0))
    key = nd_module._fast_key("broadcast_add", (a, b), {})
    assert key in nd_module._fast


def test_several_outputs_come_back_as_a_list():
    (x,) = arrays((4, 6))
    a = mx.nd.array(x)
    mx.nd.split(a, num_outputs=3, axis=1)
    parts = _mxc.fast_dispatch("SliceChannel", (a,), {"num_outputs": 3, "axis": 1})
    assert isinstance(parts, list) and len(parts) == 3
    for k, p in enumerate(parts):
        np.testing.assert_array_equal(p.asnumpy(), x[:, 2 * k:2 * k + 2])


def test_declined_where_the_python_path_must_run():
    x, y = arrays((3,), (3,))
    a, b = mx.nd.array(x), mx.nd.array(y)
    mx.nd.elemwise_add(a, b)
    # Recording: autograd must see the call.
    a.attach_grad()
    with mx.autograd.record():
        assert _mxc.fast_dispatch("elemwise_add", (a, b), {}) is None
        z = mx.nd.elemwise_add(a, b)
    z.backward()
    np.testing.assert_array_equal(a.grad.asnumpy(), np.ones(3))
    # Not an NDArray, no input, an unhashable attribute, an unknown op.
    assert _mxc.fast_dispatch("elemwise_add", (a, y), {}) is None
    assert _mxc.fast_dispatch("elemwise_add", (), {}) is None
    assert _mxc.fast_dispatch("sum", (a,), {"axis": [0]}) is None
    assert _mxc.fast_dispatch("no_such_op", (a, b), {}) is None
    # An input whose data is numpy-only (no runtime array) is declined too.
    numpy_backed = mx.nd.NDArray(y.copy())
    assert numpy_backed._rt is None
    assert _mxc.fast_dispatch("elemwise_add", (a, numpy_backed), {}) is None
    np.testing.assert_array_equal(mx.nd.elemwise_add(a, numpy_backed).asnumpy(), x + y)


def test_errors_still_come_from_the_python_path():
    a = mx.nd.array(np.ones((2, 3), np.float32))
    b = mx.nd.array(np.ones((3, 2), np.float32))
    mx.nd.elemwise_add(a, a)
    with pytest.raises(mx.MXNetError):
        mx.nd.elemwise_add(a, b)  # another key: the Python path, its error


def test_subclass_inputs_and_in_order_effects():
    class Mine(mx.nd.NDArray):
        __slots__ = []

    x, y = arrays((8,), (8,))
    a = mx.nd.array(x)
    m = Mine(None, a.context, _rt=mx.nd.array(y)._rt, _sig=((8,), np.dtype(np.float32)))
    mx.nd.elemwise_mul(a, m)
    r = _mxc.fast_dispatch("elemwise_mul", (a, m), {})
    np.testing.assert_allclose(r.asnumpy(), x * y, rtol=1e-6)
    # A chain of fast calls with in-place writes between them keeps the
    # engine's order (w -= g pushed between reads of w).
    w = mx.nd.array(x)
    g = mx.nd.array(y)
    expected = x.copy()
    for _ in range(50):
        before = mx.nd.elemwise_add(w, g)
        w -= g
        expected_before = expected + y
        expected = expected - y
        np.testing.assert_allclose(before.asnumpy(), expected_before, rtol=1e-5)
    np.testing.assert_allclose(w.asnumpy(), expected, rtol=1e-5)
