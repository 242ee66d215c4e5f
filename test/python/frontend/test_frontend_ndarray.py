"""mx.nd: creation, operators against numpy, indexing, conversions, files."""
import os

import numpy as np
import pytest

import mxc as mx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PARAMS = os.path.join(ROOT, "test", "Inputs", "mxnet-params")

rng = np.random.default_rng(20261129)


def rand(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def test_creation():
    a = mx.nd.array([[1, 2], [3, 4]])
    assert a.shape == (2, 2) and a.dtype == np.float32 and a.ndim == 2 and a.size == 4
    assert mx.nd.array(np.zeros(3, np.float64)).dtype == np.float32  # MXNet 1.x default
    assert mx.nd.array([1, 2], dtype="int32").dtype == np.int32
    assert mx.nd.array(a).dtype == np.float32
    np.testing.assert_array_equal(mx.nd.zeros((2, 3)).asnumpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(mx.nd.ones(4, dtype="int64").asnumpy(), np.ones(4))
    assert mx.nd.ones(4, dtype="int64").dtype == np.int64
    np.testing.assert_array_equal(mx.nd.full((2, 2), 7).asnumpy(), np.full((2, 2), 7.0))
    assert mx.nd.empty((3, 1)).shape == (3, 1)
    np.testing.assert_array_equal(mx.nd.arange(5).asnumpy(), np.arange(5, dtype=np.float32))
    np.testing.assert_array_equal(mx.nd.arange(1, 3, 0.5, repeat=2).asnumpy(),
                                  [1, 1, 1.5, 1.5, 2, 2, 2.5, 2.5])
    assert a.context == mx.cpu() and str(a.context) == "cpu(0)"
    assert "<NDArray 2x2 @cpu(0)>" in repr(a)


def test_asnumpy_copies_and_array_protocol_shares():
    a = mx.nd.array([1, 2, 3])
    n = a.asnumpy()
    n[0] = 9
    assert a.asnumpy()[0] == 1
    v = np.asarray(a)
    v[0] = 5
    assert a.asnumpy()[0] == 5
    assert mx.nd.array([3.5]).asscalar() == 3.5
    with pytest.raises(mx.MXNetError, match="asscalar"):
        a.asscalar()


@pytest.mark.parametrize("op,ref", [
    (lambda x, y: x + y, np.add), (lambda x, y: x - y, np.subtract),
    (lambda x, y: x * y, np.multiply), (lambda x, y: x / y, np.divide),
])
def test_arithmetic_with_broadcasting(op, ref):
    x, y = rand(2, 3, 4), rand(3, 1) + 3
    got = op(mx.nd.array(x), mx.nd.array(y))
    np.testing.assert_allclose(got.asnumpy(), ref(x, y), rtol=1e-6)
    got = op(mx.nd.array(x), mx.nd.array(x))
    np.testing.assert_allclose(got.asnumpy(), ref(x, x), rtol=1e-6)


def test_scalar_operators():
    x = rand(3, 4) + 3
    a = mx.nd.array(x)
    cases = [(a + 2, x + 2), (2 + a, 2 + x), (a - 1.5, x - 1.5), (1.5 - a, 1.5 - x),
             (a * 3, x * 3), (3 * a, 3 * x), (a / 4, x / 4), (4 / a, 4 / x),
             (a ** 2, x ** 2), (2 ** a, 2 ** x), (-a, -x), (abs(-a), x)]
    for got, want in cases:
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5)


def test_comparisons():
    x, y = rand(4, 5), rand(4, 5)
    a, b = mx.nd.array(x), mx.nd.array(y)
    for got, want in [(a == b, x == y), (a != b, x != y), (a > b, x > y), (a >= b, x >= y),
                      (a < b, x < y), (a <= b, x <= y), (a > 0, x > 0), (a <= 0.5, x <= 0.5),
                      (a == a, x == x)]:
        assert got.dtype == np.float32  # MXNet 1.x: same dtype, 0/1 values
        np.testing.assert_array_equal(got.asnumpy(), want.astype(np.float32))


def test_inplace_arithmetic():
    x = rand(3, 3)
    a = mx.nd.array(x)
    b = a
    a += 1
    a *= 2
    assert b is a
    np.testing.assert_allclose(a.asnumpy(), (x + 1) * 2, rtol=1e-6)


def test_indexing_and_slicing():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    a = mx.nd.array(x)
    np.testing.assert_array_equal(a[1].asnumpy(), x[1])
    np.testing.assert_array_equal(a[1:3].asnumpy(), x[1:3])
    np.testing.assert_array_equal(a[:, 2:5].asnumpy(), x[:, 2:5])
    np.testing.assert_array_equal(a[1, 2].asnumpy(), [x[1, 2]])
    v = a[1:3]
    v[:] = 0  # a view, as MXNet's slices
    assert a.asnumpy()[1:3].sum() == 0
    a[0] = 7
    a[3, 1:3] = mx.nd.array([8, 9])
    assert a.asnumpy()[0].tolist() == [7] * 6 and a.asnumpy()[3, 1:3].tolist() == [8, 9]
    idx = mx.nd.array([0, 3], dtype="int32")
    np.testing.assert_array_equal(a[idx].asnumpy(), a.asnumpy()[[0, 3]])
    # A strided view goes through an operator (made contiguous on the way).
    s = mx.nd.array(x)[:, ::2]
    np.testing.assert_allclose((s * 2).asnumpy(), x[:, ::2] * 2)


def test_reshape_special_values():
    a = mx.nd.array(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    assert a.reshape((6, 4)).shape == (6, 4)
    assert a.reshape(-1).shape == (24,)
    assert a.reshape(0, -1).shape == (2, 12)
    assert a.reshape(-3, 4).shape == (6, 4)
    assert a.reshape(-2).shape == (2, 3, 4)
    assert a.reshape(0, -4, 1, 3, 4).shape == (2, 1, 3, 4)
    assert a.reshape(shape=(-1, 0), reverse=True).shape == (6, 4)  # MXNet doc example
    r = a.reshape(4, 6)
    r[0, 0] = 100  # a view
    assert a.asnumpy()[0, 0, 0] == 100
    with pytest.raises(mx.MXNetError, match="cannot reshape"):
        a.reshape(5, -1)


def test_astype_copyto_context():
    a = mx.nd.array([1.7, -2.2])
    b = a.astype("int32")
    assert b.dtype == np.int32 and b.asnumpy().tolist() == [1, -2]
    assert a.astype(np.float32, copy=False) is a
    c = mx.nd.zeros((2,))
    assert a.copyto(c) is c and c.asnumpy().tolist() == a.asnumpy().tolist()
    d = a.copyto(mx.cpu())
    assert d is not a and d.asnumpy().tolist() == a.asnumpy().tolist()
    assert a.as_in_context(mx.cpu()) is a
    a.wait_to_read()
    mx.nd.waitall()
    # Arrays on a GPU: test/python/gpu/test_gpu_arrays.py (on the host
    # driver double); without one, the runtime's reason.
    gpu_error = r"gpu\(0\) is not available: (no CUDA driver|this mxc was built without CUDA)"
    if mx.context.num_gpus() == 0:
        with pytest.raises(mx.MXNetError, match=gpu_error):
            a.as_in_context(mx.gpu())
        with pytest.raises(mx.MXNetError, match=gpu_error):
            mx.nd.zeros((2,), ctx=mx.gpu(0))
        with pytest.raises(mx.MXNetError, match=gpu_error):
            mx.context.gpu_memory_info(0)
    else:
        free, total = mx.context.gpu_memory_info(0)
        assert 0 < free <= total
    with pytest.raises(mx.MXNetError, match="shape"):
        a.copyto(mx.nd.zeros((3,)))


def test_nn_operators_against_numpy():
    x, w, b = rand(4, 5), rand(3, 5), rand(3)
    fc = mx.nd.FullyConnected(mx.nd.array(x), mx.nd.array(w), mx.nd.array(b), num_hidden=3)
    np.testing.assert_allclose(fc.asnumpy(), x @ w.T + b, rtol=1e-5, atol=1e-5)
    fc = mx.nd.FullyConnected(data=mx.nd.array(x), weight=mx.nd.array(w), no_bias=True,
                              num_hidden=3)
    np.testing.assert_allclose(fc.asnumpy(), x @ w.T, rtol=1e-5, atol=1e-5)
    img, k = rand(2, 3, 6, 6), rand(4, 3, 3, 3)
    conv = mx.nd.Convolution(mx.nd.array(img), mx.nd.array(k), kernel=(3, 3), num_filter=4,
                             no_bias=True)
    want = np.zeros((2, 4, 4, 4), np.float32)
    for i in range(4):
        for j in range(4):
            want[:, :, i, j] = np.einsum("ncij,fcij->nf", img[:, :, i:i + 3, j:j + 3], k)
    np.testing.assert_allclose(conv.asnumpy(), want, rtol=1e-4, atol=1e-4)
    pool = mx.nd.Pooling(mx.nd.array(img), kernel=(2, 2), stride=(2, 2), pool_type="max")
    np.testing.assert_allclose(pool.asnumpy(), img.reshape(2, 3, 3, 2, 3, 2).max(axis=(3, 5)))
    act = mx.nd.Activation(mx.nd.array(x), act_type="relu")
    np.testing.assert_array_equal(act.asnumpy(), np.maximum(x, 0))
    sm = mx.nd.softmax(mx.nd.array(x), axis=1)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(sm.asnumpy(), e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def test_tensor_operators_against_numpy():
    x, y = rand(2, 3, 4), rand(2, 3, 4)
    a = mx.nd.array(x)
    np.testing.assert_allclose(mx.nd.sum(a, axis=1).asnumpy(), x.sum(axis=1), rtol=1e-5)
    np.testing.assert_allclose(a.sum(axis=(0, 2), keepdims=True).asnumpy(),
                               x.sum(axis=(0, 2), keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(a.mean().asnumpy(), [x.mean()], rtol=1e-5)
    np.testing.assert_array_equal(a.max(axis=2).asnumpy(), x.max(axis=2))
    np.testing.assert_array_equal(mx.nd.argmax(a, axis=1).asnumpy(), x.argmax(axis=1))
    np.testing.assert_allclose(a.exp().asnumpy(), np.exp(x), rtol=1e-5)
    np.testing.assert_array_equal(mx.nd.transpose(a, axes=(2, 0, 1)).asnumpy(),
                                  x.transpose(2, 0, 1))
    np.testing.assert_array_equal(mx.nd.Concat(a, mx.nd.array(y), dim=2).asnumpy(),
                                  np.concatenate([x, y], axis=2))
    np.testing.assert_array_equal(mx.nd.Reshape(a, shape=(0, -1)).asnumpy(), x.reshape(2, 12))
    np.testing.assert_array_equal(mx.nd.slice_axis(a, axis=2, begin=1, end=3).asnumpy(),
                                  x[:, :, 1:3])
    m, n = rand(3, 4), rand(4, 5)
    np.testing.assert_allclose(mx.nd.dot(mx.nd.array(m), mx.nd.array(n)).asnumpy(), m @ n,
                               rtol=1e-5, atol=1e-5)
    oh = mx.nd.one_hot(mx.nd.array([0, 2, 1]), depth=3)
    np.testing.assert_array_equal(oh.asnumpy(), np.eye(3)[[0, 2, 1]])
    np.testing.assert_array_equal(mx.nd.clip(a, a_min=-0.5, a_max=0.5).asnumpy(),
                                  np.clip(x, -0.5, 0.5))
    c = mx.nd.where(a > 0, a, mx.nd.zeros_like(a))
    np.testing.assert_array_equal(c.asnumpy(), np.where(x > 0, x, 0))


def test_out_argument_and_multiple_outputs():
    x = rand(2, 3)
    out = mx.nd.zeros((2, 3))
    r = mx.nd.relu(mx.nd.array(x), out=out)
    assert r is out
    np.testing.assert_array_equal(out.asnumpy(), np.maximum(x, 0))
    # BatchNorm with output_mean_var shows three outputs.
    outs = mx.nd.BatchNorm(mx.nd.array(rand(2, 3, 4)), mx.nd.ones(3), mx.nd.zeros(3),
                           mx.nd.zeros(3), mx.nd.ones(3), output_mean_var=True)
    assert isinstance(outs, list) and len(outs) == 3 and outs[0].shape == (2, 3, 4)


def test_imperative_calls_are_compiled_once_per_signature():
    from mxc import ndarray
    a = mx.nd.array(rand(7, 3))
    mx.nd.tanh(a)
    n = len(ndarray._cache)
    for _ in range(3):
        r = mx.nd.tanh(a)
    assert len(ndarray._cache) == n
    np.testing.assert_allclose(r.asnumpy(), np.tanh(a.asnumpy()), rtol=1e-5, atol=1e-6)
    mx.nd.tanh(mx.nd.array(rand(8, 3)))
    assert len(ndarray._cache) == n + 1


def test_operators_without_attributes_ignore_given_ones():
    # As MXNet's operators without a parameter struct (gluon.loss passes
    # axis=1 to broadcast_maximum); operators with attributes still check.
    a, b = mx.nd.array([[1.0, -2.0]]), mx.nd.array([[0.0], [3.0]])
    np.testing.assert_array_equal(mx.nd.broadcast_maximum(a, b, axis=1).asnumpy(),
                                  np.maximum(a.asnumpy(), b.asnumpy()))
    s = mx.sym.broadcast_maximum(mx.sym.var("a"), mx.sym.var("b"), axis=1)
    assert s.infer_shape(a=(1, 2), b=(2, 1))[1] == [(2, 2)]


def test_operator_errors():
    with pytest.raises(mx.MXNetError, match="no attribute 'axes'"):
        mx.nd.sum(mx.nd.ones(3), axes=0)
    with pytest.raises(mx.MXNetError, match="node 'fullyconnected'"):
        mx.nd.FullyConnected(mx.nd.ones((2, 4)), mx.nd.ones((3, 5)), mx.nd.ones(3), num_hidden=3)
    with pytest.raises(mx.MXNetError, match="node 'myadd'"):
        mx.nd.elemwise_add(mx.nd.ones((2, 3)), mx.nd.ones((3, 2)), name="myadd")
    with pytest.raises(mx.MXNetError, match="takes inputs"):
        mx.nd.FullyConnected(mx.nd.ones((2, 4)), num_hidden=3)


def test_random_is_seeded():
    mx.random.seed(42)
    a = mx.nd.random.uniform(-1, 2, shape=(1000,))
    b = mx.nd.random.normal(1, 0.5, shape=(20, 50))
    mx.random.seed(42)
    a2 = mx.nd.random.uniform(-1, 2, shape=(1000,))
    np.testing.assert_array_equal(a.asnumpy(), a2.asnumpy())
    assert a.dtype == np.float32 and b.shape == (20, 50)
    assert a.asnumpy().min() >= -1 and a.asnumpy().max() < 2
    assert abs(b.asnumpy().mean() - 1) < 0.1 and abs(b.asnumpy().std() - 0.5) < 0.1
    mx.random.seed(43)
    assert not np.array_equal(mx.nd.random.uniform(shape=(1000,)).asnumpy(), a.asnumpy())


def test_save_load_round_trip(tmp_path):
    arrays = {"arg:w": mx.nd.array(rand(3, 4)), "aux:m": mx.nd.array([1, 2], dtype="int64"),
              "h": mx.nd.array(rand(2, 2), dtype="float16"), "b": mx.nd.array([1, 0], dtype="bool")}
    path = str(tmp_path / "x.params")
    mx.nd.save(path, arrays)
    back = mx.nd.load(path)
    assert list(back) == list(arrays)
    for k in arrays:
        assert back[k].dtype == arrays[k].dtype
        np.testing.assert_array_equal(back[k].asnumpy(), arrays[k].asnumpy())
    mx.nd.save(path, [mx.nd.ones(2), mx.nd.zeros((1, 3))])
    back = mx.nd.load(path)
    assert isinstance(back, list) and back[1].shape == (1, 3)
    mx.nd.save(path, mx.nd.ones(3))
    assert mx.nd.load(path)[0].asnumpy().tolist() == [1, 1, 1]


def test_load_real_mxnet_params():
    # Written by MXNet 1.9.1 (test/Inputs/mxnet-params/README.md).
    import json
    with open(os.path.join(PARAMS, "expected.json")) as f:
        expected = json.load(f)["files"]["dtypes.params"]
    got = mx.nd.load(os.path.join(PARAMS, "dtypes.params"))
    assert isinstance(got, dict)
    for name in ["f32", "f64", "f16", "u8", "i8", "i32", "i64", "bool"]:
        info = expected["arrays"][name]
        assert list(got[name].shape) == info["shape"]
        if "values" in info:
            np.testing.assert_array_equal(got[name].asnumpy().ravel().astype(np.float64),
                                          np.array(info["values"], dtype=np.float64).ravel())
    # bfloat16 (numpy has none) is read as float32, exactly.
    assert got["bf16"].dtype == np.float32
    np.testing.assert_array_equal(got["bf16"].asnumpy().ravel(), expected["arrays"]["bf16"]["values"])
    lst = mx.nd.load(os.path.join(PARAMS, "list.params"))
    assert isinstance(lst, list) and lst[1].dtype == np.int32
    with pytest.raises(mx.MXNetError, match="sparse"):
        mx.nd.load(os.path.join(PARAMS, "sparse.params"))


def test_saved_bytes_are_mxnet_bytes(tmp_path):
    # Loading and saving MXNet's own file gives its bytes back (V2 records).
    src = os.path.join(PARAMS, "mlp-0000.params")
    params = mx.nd.load(src)
    out = str(tmp_path / "again.params")
    mx.nd.save(out, params)
    with open(src, "rb") as a, open(out, "rb") as b:
        assert a.read() == b.read()


def test_numpy_operands_take_the_ndarray_dtype():
    a = mx.nd.array([1, 2, 3])
    r = a + np.array([1, 1, 1])  # int64 numpy array
    assert isinstance(r, mx.nd.NDArray) and r.dtype == np.float32
    np.testing.assert_array_equal(r.asnumpy(), [2, 3, 4])
    r = np.array([1.0, 2.0, 3.0]) * a  # numpy defers to NDArray
    assert isinstance(r, mx.nd.NDArray)
    np.testing.assert_array_equal(r.asnumpy(), [1, 4, 9])


def test_read_only_inputs():
    a = mx.nd.array([1, 2, 3])
    a._data.setflags(write=False)  # e.g. memory numpy will not let us write
    np.testing.assert_array_equal((a * 2).asnumpy(), [2, 4, 6])
    b = mx.nd.NDArray(np.broadcast_to(np.float32(2), (2, 3)))  # read-only, stride 0
    np.testing.assert_array_equal((b + 1).asnumpy(), np.full((2, 3), 3))
