"""mx.autograd: recorded imperative calls differentiated by mx-autodiff,
against numpy and finite differences."""
import numpy as np
import pytest

import mxc as mx
from mxc import autograd

rng = np.random.default_rng(12)


def test_scopes():
    assert not autograd.is_recording() and not autograd.is_training()
    with autograd.record():
        assert autograd.is_recording() and autograd.is_training()
        with autograd.pause():
            assert not autograd.is_recording() and not autograd.is_training()
        with autograd.predict_mode():
            assert autograd.is_recording() and not autograd.is_training()
    with autograd.record(train_mode=False):
        assert not autograd.is_training()
    with autograd.train_mode():
        assert autograd.is_training() and not autograd.is_recording()
    assert not autograd.is_recording()


def test_fully_connected_tanh_against_numpy():
    xn = rng.standard_normal((4, 5)).astype(np.float32)
    wn = rng.standard_normal((3, 5)).astype(np.float32)
    x, w, b = mx.nd.array(xn), mx.nd.array(wn), mx.nd.zeros(3)
    for a in (x, w, b):
        a.attach_grad()
    with autograd.record():
        y = mx.nd.FullyConnected(x, w, b, num_hidden=3)
        z = (mx.nd.tanh(y) * 2).sum()
    z.backward()
    dy = 2 * (1 - np.tanh(xn @ wn.T) ** 2)
    np.testing.assert_allclose(w.grad.asnumpy(), dy.T @ xn, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(b.grad.asnumpy(), dy.sum(0), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(x.grad.asnumpy(), dy @ wn, rtol=1e-4, atol=1e-5)


def test_head_gradient_against_finite_differences():
    x = mx.nd.array(rng.standard_normal((3, 4)), dtype="float64")
    x.attach_grad()
    head = rng.standard_normal((3, 4))

    def f(a):
        return mx.nd.sigmoid(a) * a + mx.nd.exp(a / 3)

    with autograd.record():
        y = f(x)
    y.backward(mx.nd.array(head, dtype="float64"))
    num = np.zeros((3, 4))
    base = x.asnumpy()
    for i in np.ndindex(3, 4):
        up, down = base.copy(), base.copy()
        up[i] += 1e-6
        down[i] -= 1e-6
        num[i] = ((f(mx.nd.array(up, dtype="float64")).asnumpy()
                   - f(mx.nd.array(down, dtype="float64")).asnumpy()) * head).sum() / 2e-6
    np.testing.assert_allclose(x.grad.asnumpy(), num, rtol=1e-6, atol=1e-8)


def test_grad_req_add_and_write():
    w = mx.nd.array([1.0, 2.0])
    w.attach_grad(grad_req="add")
    for _ in range(3):
        with autograd.record():
            y = (w * w).sum()
        y.backward()
    np.testing.assert_allclose(w.grad.asnumpy(), [6, 12])
    w.attach_grad()
    with autograd.record():
        y = (w * 3).sum()
    y.backward()
    np.testing.assert_allclose(w.grad.asnumpy(), [3, 3])


def test_dropout_backward_uses_the_forward_mask():
    mx.random.seed(3)
    a = mx.nd.ones((2000,))
    v = mx.nd.ones((2000,)) * 3
    v.attach_grad()
    with autograd.record():
        o = mx.nd.Dropout(a * v, p=0.5)
        o2 = mx.nd.Dropout(a * v, p=0.5)  # another call, another mask
        s = o + o2
    s.backward()
    k1, k2 = o.asnumpy() != 0, o2.asnumpy() != 0
    assert 0.4 < k1.mean() < 0.6 and (k1 != k2).any()
    np.testing.assert_array_equal(np.unique(o.asnumpy()), [0, 6])
    np.testing.assert_allclose(v.grad.asnumpy(), 2.0 * k1 + 2.0 * k2)
    # Outside training mode Dropout is the identity.
    np.testing.assert_array_equal(mx.nd.Dropout(a, p=0.5).asnumpy(), 1)


def test_batchnorm_in_training_mode():
    xn = rng.standard_normal((4, 2, 3)).astype(np.float32) * 2 + 1
    x, gamma, beta = mx.nd.array(xn), mx.nd.array([1.5, 0.5]), mx.nd.zeros(2)
    mean, var = mx.nd.zeros(2), mx.nd.ones(2)
    gamma.attach_grad()
    with autograd.record():
        out = mx.nd.BatchNorm(x, gamma, beta, mean, var, fix_gamma=False, momentum=0.9)
        loss = mx.nd.square(out).sum()
    mu, sigma2 = xn.mean(axis=(0, 2)), xn.var(axis=(0, 2))
    xhat = (xn - mu.reshape(1, 2, 1)) / np.sqrt(sigma2.reshape(1, 2, 1) + 1e-3)
    np.testing.assert_allclose(out.asnumpy(), xhat * np.array([1.5, 0.5]).reshape(1, 2, 1),
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(mean.asnumpy(), 0.1 * mu, rtol=1e-5)
    loss.backward()
    want = (2 * out.asnumpy() * xhat).sum(axis=(0, 2))
    np.testing.assert_allclose(gamma.grad.asnumpy(), want, rtol=1e-3, atol=1e-4)


def test_errors():
    a = mx.nd.ones(3)
    with pytest.raises(mx.MXNetError, match="record"):
        (a * 2).backward()
    with pytest.raises(mx.MXNetError, match="grad_req"):
        a.attach_grad(grad_req="sometimes")


def test_a_training_loop_compiles_its_gradient_once():
    w = mx.nd.array(rng.standard_normal((3, 4)))
    w.attach_grad()
    x = mx.nd.array(rng.standard_normal((5, 4)))
    n = None
    for _ in range(3):
        with autograd.record():
            loss = mx.nd.Dropout(mx.nd.dot(x, w, transpose_b=True), p=0.3).sum()
        loss.backward()
        if n is None:
            n = len(autograd._compiled)
        w[:] = w - 0.01 * w.grad
    assert len(autograd._compiled) == n


def test_grad_returns_gradients_without_touching_dot_grad():
    xn = rng.standard_normal((3, 4))
    wn = rng.standard_normal((2, 4))
    x, w = mx.nd.array(xn, dtype=np.float64), mx.nd.array(wn, dtype=np.float64)
    w.attach_grad()
    before = w.grad.asnumpy().copy()
    unused = mx.nd.ones((5,))
    with autograd.record():
        y = mx.nd.dot(x, w, transpose_b=True)
        z = (y * y).sum()
    gx, gw, gu = autograd.grad(z, [x, w, unused])
    y_n = xn @ wn.T
    np.testing.assert_allclose(gx.asnumpy(), 2 * y_n @ wn, rtol=1e-10)
    np.testing.assert_allclose(gw.asnumpy(), 2 * y_n.T @ xn, rtol=1e-10)
    np.testing.assert_array_equal(gu.asnumpy(), np.zeros(5))
    np.testing.assert_array_equal(w.grad.asnumpy(), before)  # .grad untouched
    with autograd.record():
        z2 = (mx.nd.dot(x, w, transpose_b=True) * 3).sum()
    g, = autograd.grad(z2, w, head_grads=mx.nd.array([2.0], dtype=np.float64))  # a list (MXNet)
    np.testing.assert_allclose(g.asnumpy(), 6 * np.ones((2, 3)) @ xn, rtol=1e-10)


def test_grad_create_graph_nth_order():
    # d^n/dx^n sin = sin, cos, -sin, -cos, ... each order from the recorded
    # gradient of the previous one, with head gradients (MXNet's
    # check_nth_order_unary)
    xn = rng.uniform(-2, 2, (3, 4))
    x = mx.nd.array(xn, dtype=np.float64)
    x.attach_grad()
    heads = [rng.standard_normal((3, 4)) for _ in range(3)]
    with autograd.record():
        y = mx.nd.sin(x)
        got = []
        for h in heads:
            y, = autograd.grad(y, x, head_grads=mx.nd.array(h, dtype=np.float64),
                               create_graph=True, retain_graph=True)
            got.append(y)
    want = [np.cos(xn), -np.sin(xn), -np.cos(xn)]
    scale = np.ones_like(xn)
    for g, w, h in zip(got, want, heads):
        scale = scale * h
        np.testing.assert_allclose(g.asnumpy(), w * scale, rtol=1e-10, atol=1e-12)


def test_grad_create_graph_then_backward():
    # x.grad of sum(dy/dx) for y = x^3 + x * w: d/dx (3 x^2 + w) = 6 x,
    # d/dw = 1; the gradient graph is differentiated by backward()
    xn, wn = rng.standard_normal(5), rng.standard_normal(5)
    x, w = mx.nd.array(xn, dtype=np.float64), mx.nd.array(wn, dtype=np.float64)
    x.attach_grad()
    w.attach_grad()
    with autograd.record():
        y = x * x * x + x * w
        dx, = autograd.grad(y, x, create_graph=True, retain_graph=True)
        z = dx.sum()
    np.testing.assert_allclose(dx.asnumpy(), 3 * xn ** 2 + wn, rtol=1e-12)
    z.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), 6 * xn, rtol=1e-12)
    np.testing.assert_allclose(w.grad.asnumpy(), np.ones(5), rtol=1e-12)


def test_grad_create_graph_errors_name_the_cause():
    x = mx.nd.array(rng.standard_normal((1, 1, 4, 4)))
    w = mx.nd.array(rng.standard_normal((2, 1, 3, 3)))
    x.attach_grad()
    with autograd.record():
        y = mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=2, no_bias=True)
    # Convolution's gradient is a library kernel, not an MXNet operator
    with pytest.raises(mx.MXNetError, match="'convolution.*Convolution_backward_data': not an mx operator"):
        autograd.grad(y, x, create_graph=True)


def test_relu_gradient_propagates_nan():
    # MXNet's relu_grad: IsNan(y) ? y : y > 0 (test_ndarray_nan_comparison)
    x = mx.nd.array([[np.nan, -1.0, 2.0]])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.relu(x)
    y.backward()
    g = x.grad.asnumpy()
    assert np.isnan(g[0, 0]) and g[0, 1] == 0 and g[0, 2] == 1
    assert np.isnan(y.asnumpy()[0, 0])
    m = mx.nd.maximum(x, mx.nd.array([[0.0, np.nan, 1.0]])).asnumpy()
    assert np.isnan(m[0, 0]) and np.isnan(m[0, 1]) and m[0, 2] == 2


def test_integer_arrays_have_gradients_in_their_type():
    # MXNet computes an integer array's gradient in its own type: slicing
    # scatters the head gradient, Cast casts it back (test_ndarray_indexing,
    # test_cast)
    x = mx.nd.array(np.arange(12).reshape(3, 4), dtype=np.int32)
    x.attach_grad()
    with mx.autograd.record():
        y = x[1:3, 2]
    y.backward(mx.nd.array([5, 7], dtype=np.int32))
    want = np.zeros((3, 4), np.int32)
    want[1, 2], want[2, 2] = 5, 7
    assert x.grad.dtype == np.int32
    np.testing.assert_array_equal(x.grad.asnumpy(), want)

    v = mx.sym.Variable("x", dtype=np.int32)
    exe = mx.sym.Cast(v, dtype=np.float32).simple_bind(mx.cpu(), x=(2, 2))
    exe.arg_arrays[0][:] = np.array([[1, -2], [3, 4]])
    exe.forward(is_train=True)
    exe.backward(mx.nd.array([[1.7, -2.2], [3.0, 0.4]]))
    np.testing.assert_array_equal(exe.grad_arrays[0].asnumpy(), [[1, -2], [3, 0]])


def test_integer_arithmetic_gradients():
    # MXNet 1.9.1's gradients of int32 arithmetic, in int32 (its kernels run
    # in the array's type): a * b, a + b, a * 3, take, sum
    a = mx.nd.array(np.arange(1, 5), dtype="int32")
    b = mx.nd.array(np.arange(2, 6), dtype="int32")
    a.attach_grad()
    b.attach_grad()
    want = [([2, 3, 4, 5], [1, 2, 3, 4]), ([1, 1, 1, 1], [1, 1, 1, 1]),
            ([3, 3, 3, 3], None), ([1, 0, 1, 0], None), ([1, 1, 1, 1], None)]
    for f, (wa, wb) in zip([lambda: a * b, lambda: a + b, lambda: a * 3,
                            lambda: mx.nd.take(a, mx.nd.array([0, 2])), lambda: a.sum()], want):
        with mx.autograd.record():
            y = f()
        y.backward()
        assert a.grad.dtype == np.int32
        np.testing.assert_array_equal(a.grad.asnumpy(), wa)
        if wb is not None:
            np.testing.assert_array_equal(b.grad.asnumpy(), wb)


def test_boolean_mask_and_its_gradient():
    # MXNet's test_boolean_mask: the rows whose index is non-zero; the
    # gradient scatters back; an empty selection is a zero-size array
    data = mx.nd.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    data.attach_grad()
    with mx.autograd.record():
        out = mx.nd.contrib.boolean_mask(data, mx.nd.array([0, 1, 0]))
    out.backward()
    np.testing.assert_array_equal(out.asnumpy(), [[4, 5, 6]])
    np.testing.assert_array_equal(data.grad.asnumpy(), [[0, 0, 0], [1, 1, 1], [0, 0, 0]])
    with mx.autograd.record():
        out = mx.nd.contrib.boolean_mask(data, mx.nd.array([0, 0, 0]))
    out.backward()
    assert out.shape == (0, 3)
    assert (data.grad.asnumpy() == 0).all()
    x = mx.nd.arange(12).reshape((3, 4))
    np.testing.assert_array_equal(
        mx.nd.contrib.boolean_mask(x, mx.nd.array([1, 0, 0, 1]), axis=1).asnumpy(),
        [[0, 3], [4, 7], [8, 11]])
    with pytest.raises(mx.base.MXNetError, match="index must be 1-D with data's extent 3"):
        mx.nd.contrib.boolean_mask(data, mx.nd.array([1, 0]))


@pytest.mark.parametrize("key", [([2, 0, 2],), (slice(None), [1, 3]), (None, 1),
                                 (Ellipsis, 2), (np.array([[0, 1], [2, 2]]),)],
                         ids=["list", "slice-list", "none", "ellipsis", "array"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_advanced_indexing_is_recorded(key, dtype):
    # x[key] under record(): the gradient scatters back (repeated positions
    # add up), as MXNet's recorded gather
    key = key[0] if len(key) == 1 else key
    a = np.arange(12).reshape(3, 4).astype(dtype)
    x = mx.nd.array(a, dtype=dtype)
    x.attach_grad()
    with mx.autograd.record():
        y = x[key]
    np.testing.assert_array_equal(y.asnumpy(), a[key])
    y.backward(mx.nd.ones(y.shape, dtype=dtype) * 2)
    want = np.zeros_like(a)
    np.add.at(want, key, 2)
    np.testing.assert_array_equal(x.grad.asnumpy(), want)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_spatial_slice_gradient_of_any_dtype(dtype):
    # x[:, :, 1, 3] of 4-D data under record(): a float's gradient is Pad's
    # border, an integer array's (Pad takes floats) _slice_assign's, as in
    # MXNet 1.9.1's test_ndarray_indexing
    a = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5).astype(dtype)
    x = mx.nd.array(a, dtype=dtype)
    x.attach_grad()
    with mx.autograd.record():
        y = x[:, :, 1, 1:4]
    y.backward()
    want = np.zeros_like(a)
    want[:, :, 1, 1:4] = 1
    np.testing.assert_array_equal(x.grad.asnumpy(), want)


def test_inplace_writes_while_recording_raise_as_in_mxnet():
    x = mx.nd.zeros((3, 4))
    y = mx.nd.ones((4,))
    y.attach_grad()
    with mx.autograd.record():
        with pytest.raises(mx.MXNetError, match="Inplace operations"):
            x[1] = y
        with pytest.raises(mx.MXNetError, match="Inplace operations"):
            z = y * 2
            z += 1
        x[:] = mx.nd.ones((3, 4))  # a whole copy is allowed


def test_gradient_multiplier_scales_the_gradient():
    # contrib.gradientmultiplier: identity forward, gradient times `scalar`
    x = mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5)
    x.attach_grad()
    with mx.autograd.record():
        q = mx.nd.contrib.quadratic(x, a=0.5, b=1.0, c=0.0)
        y = mx.nd.contrib.gradientmultiplier(q, scalar=-0.75)
    np.testing.assert_array_equal(y.asnumpy(), q.asnumpy())
    y.backward(mx.nd.ones((2, 3)) * 2)
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * -0.75 * (x.asnumpy() + 1.0), rtol=1e-6)


@pytest.mark.parametrize("op", ["box_iou", "box_decode", "box_encode"])
def test_box_operators_have_zero_gradients(op):
    # MXNet: box_iou's backward writes zeros, box_encode / box_decode have
    # MakeZeroGradNodes
    rng = np.random.default_rng(0)
    boxes = rng.uniform(0, 1, (1, 3, 4)).astype(np.float32)
    boxes[..., 2:] += boxes[..., :2]
    ins = {"box_iou": [boxes[0], boxes[0] + 0.1],
           "box_decode": [rng.standard_normal((2, 3, 4)).astype(np.float32), boxes],
           "box_encode": [np.array([[1, 0, 1]], np.float32), np.array([[0, 2, 1]], np.float32),
                          boxes, boxes + 0.05, np.zeros(4, np.float32),
                          np.ones(4, np.float32)]}[op]
    arrays = [mx.nd.array(v) for v in ins]
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        out = getattr(mx.nd.contrib, op)(*arrays)
        out = out[0] if isinstance(out, list) else out
        loss = (out * out).sum()
    loss.backward()
    for a in arrays:
        assert not np.any(a.grad.asnumpy())


def test_recording_frees_intermediates_no_one_holds():
    # backward computes the forward again inside its gradient graph, so the
    # tape keeps only how an intermediate was computed, not its data: a chain
    # x = x + 1 under record() holds one step's array, not every step's
    # (MXNet's test_autograd_save_memory: 200 x 128 MiB on a GPU)
    import gc
    import weakref
    x0 = mx.nd.array(rng.standard_normal((3, 4)).astype(np.float32))
    x0.attach_grad()
    refs, x = [], x0
    with autograd.record():
        for _ in range(6):
            x = mx.nd.sin(x) + 1
            refs.append(weakref.ref(x))
        kept = x
        y = mx.nd.sum(x * x)
    del x
    gc.collect()
    assert [r() is None for r in refs] == [True] * 5 + [False]
    y.backward()
    want, d = x0.asnumpy().astype(np.float64), np.ones((3, 4))
    for _ in range(6):
        d = d * np.cos(want)
        want = np.sin(want) + 1
    np.testing.assert_allclose(x0.grad.asnumpy(), 2 * want * d, rtol=1e-5)
    np.testing.assert_allclose(kept.asnumpy(), want, rtol=1e-6)


def test_the_tape_is_what_was_recorded():
    # attach_grad() on an intermediate after recording does not cut the tape
    # (as MXNet 1.9.1: x.grad [8, 16], y.grad [0, 0])
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = x * 2
        z = y * y
    y.attach_grad()
    z.backward()
    assert x.grad.asnumpy().tolist() == [8.0, 16.0]
    assert y.grad.asnumpy().tolist() == [0.0, 0.0]


def test_amp_multicast_gradients_are_cast_back_to_the_inputs_types():
    # float16 and float32 inputs: both outputs float32; each input's
    # gradient in its own type (MXNet's _backward_amp_multicast)
    a = mx.nd.array([1.5, -2.25], dtype="float16")
    b = mx.nd.array([3.0], dtype="float32")
    a.attach_grad()
    b.attach_grad()
    with autograd.record():
        ra, rb = mx.nd.amp_multicast(a, b, num_outputs=2)
        loss = mx.nd.sum(ra * ra) + mx.nd.sum(rb * 3)
    assert ra.dtype == np.float32 and rb.dtype == np.float32
    loss.backward()
    assert a.grad.dtype == np.float16 and b.grad.dtype == np.float32
    assert a.grad.asnumpy().tolist() == [3.0, -4.5]
    assert b.grad.asnumpy().tolist() == [3.0]


@pytest.mark.parametrize("op,kwargs,shapes", [
    ("Convolution", dict(kernel=(3, 3), num_filter=4, pad=(1, 1)), [(2, 3, 5, 5), (4, 3, 3, 3), (4,)]),
    ("Deconvolution", dict(kernel=(3, 3), num_filter=4, stride=(2, 2), no_bias=False),
     [(2, 3, 4, 4), (3, 4, 3, 3), (4,)]),
    ("Pooling", dict(kernel=(2, 2), stride=(2, 2), pool_type="max"), [(2, 3, 6, 6)]),
    ("Pooling", dict(kernel=(3, 3), pool_type="avg", pad=(1, 1)), [(2, 3, 5, 5)]),
    ("BatchNorm", dict(fix_gamma=False), [(4, 3, 3, 3), (3,), (3,), (3,), (3,)]),
])
def test_float16_layers_have_gradients(op, kwargs, shapes):
    # the library backward kernels take f32 / f64: f16 layers (and f16
    # BatchNorm with its f32 parameters, MXNet's AccReal) are differentiated
    # in float32 and their gradients cast back to float16 (MXNet's
    # test_operator_gpu *_with_type cases); against the same values in f32
    r = np.random.default_rng(5)
    values = [r.uniform(0.5, 1.5, s).astype(np.float16) for s in shapes]

    def grads(dt):
        # BatchNorm's parameters and statistics stay float32
        xs = [mx.nd.array(v, dtype=dt if k == 0 or op != "BatchNorm" else "float32")
              for k, v in enumerate(values)]
        n = 3 if op == "BatchNorm" else len(xs)
        for x in xs[:n]:
            x.attach_grad()
        with autograd.record():
            y = getattr(mx.nd, op)(*xs, **kwargs)
        # (a head gradient that f16 cannot round: the gradients differ by
        # the final rounding only)
        dy = np.random.default_rng(6).uniform(-1, 1, y.shape).astype(np.float16)
        y.backward(mx.nd.array(dy, dtype=dt))
        assert y.dtype == np.dtype(dt)
        return [x.grad for x in xs[:n]]

    for k, (a, b) in enumerate(zip(grads("float16"), grads("float32"))):
        assert a.dtype == (np.float32 if op == "BatchNorm" and k else np.float16)
        a, b = a.asnumpy().astype(np.float64), b.asnumpy().astype(np.float64)
        # (measured: 2e-4 or less, the final rounding to float16)
        assert np.linalg.norm(a - b) <= 1e-3 * np.linalg.norm(b), (op, k)
        assert np.linalg.norm(b) > 0


@pytest.mark.parametrize("src,dst", [("float32", "float64"), ("float16", "float32"),
                                     ("float64", "float16")])
def test_astype_and_copy_are_recorded(src, dst):
    # (numpy copies on the CPU before: the gradient stopped there silently)
    x = mx.nd.array([1.0, -2.0, 3.0], dtype=src)
    x.attach_grad()
    with autograd.record():
        y = (x * 2).astype(dst).copy()
        z = mx.nd.sum(y * y)
    assert y.dtype == np.dtype(dst)
    z.backward()
    assert x.grad.dtype == np.dtype(src)
    assert x.grad.asnumpy().tolist() == [8.0, -16.0, 24.0]
