"""Python custom operators (mx.operator.CustomOp / CustomOpProp / register,
mx.nd.Custom): run imperatively, with autograd through their backward; in
Symbol graphs (mx.sym.Custom) bound executors and Modules run the graph
operator by operator; a hybridized Gluon block that calls F.Custom runs
imperatively (python/mxc/operator.py, executor.py)."""
import numpy as np
import pytest

import mxc as mx
from mxc.base import MXNetError


class _Sqr(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        aux[0][:] = 1
        self.assign(out_data[0], req[0], in_data[0] * in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        assert (aux[0].asnumpy() == 1).all()
        self.assign(in_grad[0], req[0], 2 * in_data[0] * out_grad[0])


@mx.operator.register("test_sqr")
class _SqrProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def list_auxiliary_states(self):
        return ["aux"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], [in_shape[0]]

    def create_operator(self, ctx, shapes, dtypes):
        return _Sqr()


class _DivMod(mx.operator.CustomOp):
    """Two arguments, two outputs: (a * b, a - b)."""

    def forward(self, is_train, req, in_data, out_data, aux):
        a, b = in_data
        self.assign(out_data[0], req[0], a * b)
        self.assign(out_data[1], req[1], a - b)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        a, b = in_data
        g0, g1 = out_grad
        self.assign(in_grad[0], req[0], g0 * b + g1)
        self.assign(in_grad[1], req[1], g0 * a - g1)


@mx.operator.register("test_mulsub")
class _MulSubProp(mx.operator.CustomOpProp):
    def list_arguments(self):
        return ["lhs", "rhs"]

    def list_outputs(self):
        return ["prod", "diff"]

    def create_operator(self, ctx, shapes, dtypes):
        return _DivMod()


class _Ones(mx.operator.CustomOp):
    def __init__(self, shape):
        super().__init__()
        self.value = np.ones(shape, np.float32)

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], self.value)


@mx.operator.register("test_ones")
class _OnesProp(mx.operator.CustomOpProp):
    def __init__(self, length, depth):
        super().__init__()
        self.shape = (int(length), int(depth))  # MXNet passes strings

    def list_arguments(self):
        return []

    def infer_shape(self, in_shape):
        return [], [self.shape], []

    def infer_type(self, in_type):
        return [], [np.float32], []

    def create_operator(self, ctx, shapes, dtypes):
        return _Ones(self.shape)


class _Fails(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        assert False, "broken forward"


@mx.operator.register("test_fails")
class _FailsProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return _Fails()


def test_forward_backward_with_an_auxiliary_state():
    rng = np.random.default_rng(0)
    x = mx.nd.array(rng.uniform(-1, 1, (4, 10)))
    aux = mx.nd.zeros((4, 10))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, aux, name="sqr", op_type="test_sqr")
        z = (y * 3).sum()
    z.backward()
    np.testing.assert_allclose(y.asnumpy(), x.asnumpy() ** 2, rtol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), 6 * x.asnumpy(), rtol=1e-6)
    assert (aux.asnumpy() == 1).all()  # the operator wrote its state
    # inputs by name, as mx.sym.Custom takes them
    y2 = mx.nd.Custom(data=x, aux=aux, op_type="test_sqr")
    np.testing.assert_allclose(y2.asnumpy(), y.asnumpy())


def test_two_arguments_two_outputs_and_the_chain_rule():
    rng = np.random.default_rng(1)
    a_np, b_np = rng.uniform(-1, 1, (3, 5)), rng.uniform(-1, 1, (3, 5))
    a, b = mx.nd.array(a_np), mx.nd.array(b_np)
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        p, d = mx.nd.Custom(a, b, op_type="test_mulsub")
        loss = (mx.nd.sin(p) + d * d).sum()
    loss.backward()
    a32, b32 = a_np.astype(np.float32), b_np.astype(np.float32)
    np.testing.assert_allclose(p.asnumpy(), a32 * b32, rtol=1e-6)
    np.testing.assert_allclose(d.asnumpy(), a32 - b32, rtol=1e-6)
    gp, gd = np.cos(a32 * b32), 2 * (a32 - b32)
    np.testing.assert_allclose(a.grad.asnumpy(), gp * b32 + gd, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.grad.asnumpy(), gp * a32 - gd, rtol=1e-5, atol=1e-6)


def test_no_inputs_and_string_parameters():
    with mx.autograd.record():
        x = mx.nd.Custom(length=3, depth=4, op_type="test_ones")
    assert x.shape == (3, 4) and x.dtype == np.float32
    assert (x.asnumpy() == 1).all()


def test_errors_name_the_operator():
    x = mx.nd.ones((2, 3))
    with pytest.raises(MXNetError, match="Custom operator 'test_fails' forward raised "
                                         "AssertionError: broken forward"):
        mx.nd.Custom(x, op_type="test_fails")
    with pytest.raises(MXNetError, match="no custom operator registered as 'nope'"):
        mx.nd.Custom(x, op_type="nope")
    with pytest.raises(MXNetError, match="2 inputs given, it takes 1"):
        mx.nd.Custom(x, x, op_type="test_fails")
    with pytest.raises(MXNetError, match="missing input rhs"):
        mx.nd.Custom(x, op_type="test_mulsub")
    with pytest.raises(MXNetError, match="not a CustomOpProp subclass"):
        mx.operator.register("bad")(object)


def test_symbol_graphs_with_custom_ops():
    d = mx.sym.var("d")
    sq = mx.sym.Custom(data=d, op_type="test_sqr", name="sq")
    # MXNet's graph: the auxiliary state a variable '<name>_aux', version 1
    assert sq.list_arguments() == ["d"]
    assert sq.list_auxiliary_states() == ["sq_aux"]
    assert sq.list_outputs() == ["sq_output"]
    ms = mx.sym.Custom(sq, d, op_type="test_mulsub", name="ms")
    assert ms.list_outputs() == ["ms_prod", "ms_diff"]
    net = mx.sym.sum(ms[0]) + mx.sym.sum(ms[1] * 3)
    arg_shapes, out_shapes, aux_shapes = net.infer_shape(d=(2, 3))
    assert arg_shapes == [(2, 3)] and out_shapes == [(1,)] and aux_shapes == [(2, 3)]
    again = mx.sym.load_json(net.tojson())
    assert again.tojson() == net.tojson()
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -2.0]], np.float32)
    ex = net.simple_bind(mx.cpu(), d=(2, 3))
    ex.arg_dict["d"][:] = x
    out = ex.forward(is_train=True)[0].asnumpy()
    # sum(x^2 * x) + 3 sum(x^2 - x); d/dx = 3x^2 + 3 (2x - 1)
    np.testing.assert_allclose(out, [(x ** 3).sum() + 3 * (x ** 2 - x).sum()], rtol=1e-5)
    ex.backward()
    np.testing.assert_allclose(ex.grad_dict["d"].asnumpy(), 3 * x ** 2 + 3 * (2 * x - 1),
                               rtol=1e-5)
    np.testing.assert_array_equal(ex.aux_dict["sq_aux"].asnumpy(), np.ones((2, 3)))
    # grad_req add accumulates, head gradients scale
    ex = net.simple_bind(mx.cpu(), d=(2, 3), grad_req="add")
    ex.arg_dict["d"][:] = x
    for _ in range(2):
        ex.forward(is_train=True)
        ex.backward([mx.nd.array([0.5])])
    np.testing.assert_allclose(ex.grad_dict["d"].asnumpy(), 3 * x ** 2 + 3 * (2 * x - 1),
                               rtol=1e-5)


def test_backward_without_gradients_runs_nothing_again():
    calls = []

    class Count(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            calls.append("forward")
            self.assign(out_data[0], req[0], in_data[0] * 2)

    @mx.operator.register("test_count_calls")
    class CountProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Count()

    s = mx.sym.Custom(mx.sym.var("d"), op_type="test_count_calls")
    ex = s.bind(mx.cpu(), args={"d": mx.nd.ones((2,))}, grad_req="null")
    ex.forward(is_train=True)
    ex.backward()
    assert calls == ["forward"]


def test_module_trains_through_a_custom_op():
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    out = mx.sym.Custom(fc, mx.sym.zeros_like(fc), op_type="test_mulsub", name="ms")[0]
    net = mx.sym.SoftmaxOutput(out + fc, name="sm")
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (32, 3)).astype(np.float32)
    y = (X[:, 0] > 0).astype(np.float32)
    it = mx.io.NDArrayIter(X, y, batch_size=8, label_name="sm_label")
    mod = mx.mod.Module(net, label_names=["sm_label"])
    mod.fit(it, num_epoch=8, optimizer_params={"learning_rate": 0.5})
    assert dict(mod.score(it, "acc"))["accuracy"] >= 0.9


def test_gluon_runs_custom_ops_imperatively():
    class Net(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x, aux):
            return F.Custom(x * 2, aux, op_type="test_sqr") + 1

    net = Net()
    net.hybridize()
    x = mx.nd.array([[0.5, -1.0, 2.0]])
    aux = mx.nd.zeros((1, 3))
    x.attach_grad()
    with mx.autograd.record():
        y = net(x, aux)
    y.backward()
    np.testing.assert_allclose(y.asnumpy(), (2 * x.asnumpy()) ** 2 + 1, rtol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), 8 * x.asnumpy(), rtol=1e-6)


def test_deprecated_python_ops_run_as_custom_ops():
    # MXNet's PythonOp defaults: the identity forward and backward
    s = mx.operator.NumpyOp().get_symbol(mx.sym.var("X"), name="numpy_op")
    x, dx = mx.nd.ones((4,)) * 10, mx.nd.zeros((4,))
    ex = s.bind(mx.cpu(), args=[x], args_grad={"X": dx})
    np.testing.assert_array_equal(ex.forward(is_train=True)[0].asnumpy(), x.asnumpy())
    ex.backward(mx.nd.array([1, 2, 3, 4]))
    np.testing.assert_array_equal(dx.asnumpy(), [1, 2, 3, 4])

    class SqNd(mx.operator.NDArrayOp):
        def forward(self, in_data, out_data):
            assert isinstance(in_data[0], mx.nd.NDArray)
            out_data[0][:] = in_data[0] * in_data[0]

        def backward(self, out_grad, in_data, out_data, in_grad):
            in_grad[0][:] = 2 * in_data[0] * out_grad[0]

    class SqNp(mx.operator.NumpyOp):
        def forward(self, in_data, out_data):
            assert isinstance(in_data[0], np.ndarray)
            out_data[0][:] = in_data[0] ** 2

        def backward(self, out_grad, in_data, out_data, in_grad):
            in_grad[0][:] = 2 * in_data[0] * out_grad[0]

    for cls in (SqNd, SqNp):
        s = cls()(mx.sym.var("x"), name="sq") * 3
        ex = s.bind(mx.cpu(), args={"x": mx.nd.array([1.0, 2.0, -3.0])},
                    args_grad={"x": mx.nd.zeros(3)})
        np.testing.assert_allclose(ex.forward(is_train=True)[0].asnumpy(), [3, 12, 27])
        ex.backward(mx.nd.ones(3))
        np.testing.assert_allclose(ex.grad_dict["x"].asnumpy(), [6, 12, -18])
