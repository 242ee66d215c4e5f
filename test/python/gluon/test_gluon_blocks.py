"""gluon Parameters and Blocks: names, deferred initialisation, hybridize()
(compiled graph, same forward / backward as imperative, recompiles only on
new shapes), summary, cast, files."""
import os

import numpy as np
import pytest

import mxc as mx
from mxc import autograd, gluon
from mxc.gluon import nn


def _x(*shape, seed=0):
    return mx.nd.array(np.random.RandomState(seed).uniform(-1, 1, shape))


def test_parameter_deferred_init_and_errors():
    p = gluon.Parameter("w", shape=(3, 0), allow_deferred_init=True)
    p.initialize(init=mx.init.One())
    with pytest.raises(gluon.DeferredInitializationError, match="'w'"):
        p.data()
    p.shape = (3, 4)
    p._finish_deferred_init()
    np.testing.assert_array_equal(p.data().asnumpy(), np.ones((3, 4)))
    assert p.grad().shape == (3, 4)
    with pytest.raises(mx.MXNetError, match="incompatible"):
        p.shape = (3, 5)
    q = gluon.Parameter("q", shape=(2, 0))
    with pytest.raises(mx.MXNetError, match="invalid shape"):
        q.initialize()
    with pytest.raises(mx.MXNetError, match="grad_req"):
        gluon.Parameter("r", grad_req="sometimes")
    r = gluon.Parameter("r", shape=(2,), grad_req="null")
    r.initialize()
    with pytest.raises(mx.MXNetError, match="grad_req='null'"):
        r.grad()
    p.set_data(mx.nd.ones((3, 4)) * 2)
    assert float(p.data().asnumpy().sum()) == 24
    p.grad()[:] = 5
    p.zero_grad()
    assert float(p.grad().asnumpy().sum()) == 0


def test_names_scopes_and_collect_params():
    class Net(gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.a = nn.Dense(4, in_units=3)
                self.b = nn.Dense(2, in_units=4, use_bias=False)

        def hybrid_forward(self, F, x):
            return self.b(self.a(x))

    with mx.NameManager():
        net = Net(prefix="model_")
        other = nn.Dense(5)
    assert net.prefix == "model_" and net.name == "model"
    assert list(net.collect_params().keys()) == [
        "model_dense0_weight", "model_dense0_bias", "model_dense1_weight"]
    assert list(net.collect_params(".*weight").keys()) == [
        "model_dense0_weight", "model_dense1_weight"]
    assert sorted(net._collect_params_with_prefix()) == ["a.bias", "a.weight", "b.weight"]
    assert other.weight.name == "dense0_weight"
    with pytest.raises(mx.MXNetError, match="Children of HybridBlock"):
        net.register_child(nn.Sequential())


def test_hybridize_matches_imperative_forward_and_backward():
    def make():
        with mx.NameManager():
            net = nn.HybridSequential()
            with net.name_scope():
                net.add(nn.Conv2D(3, 3, padding=1), nn.BatchNorm(), nn.Activation("tanh"),
                        nn.MaxPool2D(), nn.Flatten(), nn.Dense(4))
        net.initialize(mx.init.Xavier())
        return net

    mx.random.seed(1)
    a = make()
    mx.random.seed(1)
    b = make()
    x = _x(2, 2, 6, 6)
    a(x)
    b(x)
    for pa, pb in zip(a.collect_params().values(), b.collect_params().values()):
        pb.set_data(pa.data())
    b.hybridize()
    np.testing.assert_allclose(b(x).asnumpy(), a(x).asnumpy(), rtol=1e-5, atol=1e-6)
    y = mx.nd.array([1, 3])
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    outs = []
    for net in (a, b):
        with autograd.record():
            out = loss(net(x), y)
        out.backward()
        outs.append((out.asnumpy(), {k: p.grad().asnumpy() for k, p in
                                     net._collect_params_with_prefix().items()
                                     if p.grad_req != "null"},
                     {k: p.data().asnumpy() for k, p in net._collect_params_with_prefix().items()
                      if "running" in k}))
    np.testing.assert_allclose(outs[1][0], outs[0][0], rtol=1e-5, atol=1e-6)
    assert sorted(outs[0][1]) == sorted(outs[1][1])
    for k in outs[0][1]:
        np.testing.assert_allclose(outs[1][1][k], outs[0][1][k], rtol=1e-4, atol=1e-6, err_msg=k)
        assert np.abs(outs[0][1][k]).sum() > 0, k
    for k in outs[0][2]:  # training mode updated the moving statistics alike
        np.testing.assert_allclose(outs[1][2][k], outs[0][2][k], rtol=1e-5, atol=1e-6)


def test_hybridize_compiles_once_per_shape_and_input_gradient():
    net = nn.Dense(3, in_units=4)
    net.initialize()
    net.hybridize()
    for _ in range(3):
        net(_x(2, 4))
    assert net._cached_op.num_compiles == 1
    net(_x(5, 4))
    assert net._cached_op.num_compiles == 2
    net(_x(2, 4))
    assert net._cached_op.num_compiles == 2
    # d(sum(W x + b)) / dx = column sums of W.
    x = _x(2, 4)
    x.attach_grad()
    with autograd.record():
        y = net(x)
    y.backward()
    w = net.weight.data().asnumpy()
    np.testing.assert_allclose(x.grad.asnumpy(), np.tile(w.sum(0), (2, 1)), rtol=1e-5)


def test_hybridized_dropout_mask_forward_equals_backward():
    net = nn.HybridSequential()
    net.add(nn.Dropout(0.5))
    net.initialize()
    net.hybridize()
    x = mx.nd.ones((4, 50))
    x.attach_grad()
    with autograd.record():
        y = net(x)
    y.backward()
    kept = y.asnumpy() != 0
    assert 0.2 < kept.mean() < 0.8
    np.testing.assert_allclose(x.grad.asnumpy(), kept * 2.0)
    np.testing.assert_allclose(net(x).asnumpy(), x.asnumpy())  # inference: identity


def test_grad_req_add_and_lr_mult():
    net = nn.Dense(2, in_units=2, use_bias=False)
    net.initialize(mx.init.One())
    net.weight.grad_req = "add"
    net.hybridize()
    x = mx.nd.array([[1.0, 2.0]])
    for _ in range(2):
        with autograd.record():
            y = net(x)
        y.backward()
    np.testing.assert_allclose(net.weight.grad().asnumpy(), [[2, 4], [2, 4]])
    net.weight.lr_mult = 0.5
    tr = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 1.0})
    tr.step(1)
    np.testing.assert_allclose(net.weight.data().asnumpy(), [[0, -1], [0, -1]])


def test_summary_prints_layers(capsys):
    net = nn.HybridSequential()
    net.add(nn.Dense(4, in_units=3), nn.Activation("relu"), nn.Dense(2, in_units=4))
    net.initialize()
    net.summary(mx.nd.ones((1, 3)))
    out = capsys.readouterr().out
    assert "Dense-1" in out and "(1, 4)" in out and "Total params: 26" in out
    net.hybridize()
    with pytest.raises(mx.MXNetError, match="hybridized"):
        net.summary(mx.nd.ones((1, 3)))


def test_cast_float64():
    net = nn.Dense(2, in_units=3)
    net.initialize()
    net.cast("float64")
    assert net.weight.data().dtype == np.float64
    out = net(mx.nd.ones((1, 3), dtype="float64"))
    assert out.dtype == np.float64


def test_save_load_parameters_and_errors(tmp_path):
    f = str(tmp_path / "net.params")
    a = nn.Dense(3, in_units=2)
    a.initialize()
    a.save_parameters(f)
    b = nn.Dense(3, in_units=2)
    b.load_parameters(f)
    np.testing.assert_array_equal(b.weight.data().asnumpy(), a.weight.data().asnumpy())
    one = nn.HybridSequential()
    one.add(nn.Dense(3, in_units=2))
    one.initialize()
    g = str(tmp_path / "seq.params")
    one.save_parameters(g)
    assert sorted(mx.nd.load(g)) == ["0.bias", "0.weight"]
    two = nn.HybridSequential()
    two.add(nn.Dense(3, in_units=2), nn.Dense(1, in_units=3))
    with pytest.raises(mx.MXNetError, match="'1.weight' is missing"):
        two.load_parameters(g)
    two.load_parameters(g, allow_missing=True)
    np.testing.assert_array_equal(two[0].weight.data().asnumpy(), one[0].weight.data().asnumpy())
    d = nn.Dense(3, in_units=2, use_bias=False)
    with pytest.raises(mx.MXNetError, match="'bias' .* not present"):
        d.load_parameters(f)
    d.load_parameters(f, ignore_extra=True)
    e = nn.Dense(3, in_units=5)
    with pytest.raises(mx.MXNetError, match="shape incompatible"):
        e.load_parameters(f)


def test_export_and_imports_in_mxc(tmp_path):
    net = nn.HybridSequential()
    net.add(nn.Conv2D(2, 3), nn.BatchNorm(), nn.GlobalAvgPool2D(), nn.Dense(3))
    net.initialize()
    with pytest.raises(mx.MXNetError, match="hybridize"):
        net.export(str(tmp_path / "m"))
    net.hybridize()
    x = _x(1, 1, 5, 5)
    ref = net(x).asnumpy()
    sym_file, par_file = net.export(str(tmp_path / "m"), epoch=7)
    assert par_file.endswith("m-0007.params") and os.path.exists(sym_file)
    blk = gluon.SymbolBlock.imports(sym_file, ["data"], par_file)
    np.testing.assert_allclose(blk(x).asnumpy(), ref, rtol=1e-6)
    # A SymbolBlock inside a hybridized block (symbol composition).
    outer = nn.HybridSequential()
    outer.add(blk, nn.Activation("relu"))
    outer.hybridize()
    np.testing.assert_allclose(outer(x).asnumpy(), np.maximum(ref, 0), rtol=1e-6)


def test_hybrid_lambda_and_lambda():
    h = nn.HybridLambda(lambda F, x: F.relu(x) * 2)
    h.hybridize()
    x = _x(3, 2)
    np.testing.assert_allclose(h(x).asnumpy(), np.maximum(x.asnumpy(), 0) * 2, rtol=1e-6)
    lam = nn.Lambda("tanh")
    np.testing.assert_allclose(lam(x).asnumpy(), np.tanh(x.asnumpy()), rtol=1e-6)
    with pytest.raises(mx.MXNetError, match="not found"):
        nn.Lambda("no_such_function")


def test_atomic_save_survives_kill_9(tmp_path):
    """kill -9 during save_parameters of a large model leaves the previous
    file loadable (the write goes to a temporary file, then rename)."""
    import signal
    import subprocess
    import sys
    import time
    f = str(tmp_path / "big.params")
    small = nn.Dense(4, in_units=4)
    small.initialize(mx.init.One())
    small.save_parameters(f)
    before = open(f, "rb").read()
    src = (
        "import sys, mxc as mx\n"
        "from mxc.gluon import nn\n"
        "net = nn.Dense(4096, in_units=16384)\n"
        "net.initialize()\n"
        "print('ready', flush=True)\n"
        "while True:\n"
        "    net.save_parameters(sys.argv[1])\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(mx.__file__)))
    p = subprocess.Popen([sys.executable, "-c", src, f], stdout=subprocess.PIPE, env=env)
    try:
        assert p.stdout.readline().strip() == b"ready"
        # Kill it while a 256 MiB write is in progress (temporary file present).
        deadline = time.time() + 60
        while time.time() < deadline:
            if any(n.startswith(".big.params.tmp") for n in os.listdir(str(tmp_path))):
                break
            time.sleep(0.001)
        else:
            pytest.fail("the writer never started a temporary file")
        p.send_signal(signal.SIGKILL)
        p.wait()
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    # Either the old file or a complete new one: always loadable.
    loaded = mx.nd.load(f)
    if open(f, "rb").read() == before:
        np.testing.assert_array_equal(loaded["weight"].asnumpy(), np.ones((4, 4)))
    else:
        assert loaded["weight"].shape == (4096, 16384)


def test_mxnet_exception_types_and_initializer_equality():
    b = gluon.Block()
    b.b = gluon.Block()
    with pytest.raises(TypeError, match="Changing attribute type for b"):
        b.b = (2,)
    with pytest.raises(ValueError, match="evenly split"):
        gluon.utils.split_data(mx.nd.ones((5, 2)), 2)
    assert [s.shape[0] for s in gluon.utils.split_data(mx.nd.ones((5, 2)), 2,
                                                        even_split=False)] == [3, 2]
    assert mx.init.Constant(-10.0) == mx.init.Constant(-10.0)
    assert mx.init.Constant(1.0) != mx.init.Constant(2.0)
    assert mx.init.Xavier() != mx.init.Uniform()


def test_reshape_and_slicing_are_recorded_in_imperative_blocks():
    """x.reshape / x[i] / x[a:b] inside record() are operators on the tape
    (views would stop the gradients silently)."""
    class Net(gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.fc = nn.Dense(6, in_units=4)

        def hybrid_forward(self, F, x):
            y = self.fc(x)
            return y.reshape((-1,))[2:8] * 2 + y[1].sum()

    net = Net()
    net.initialize(mx.init.Xavier())
    x = _x(3, 4)
    with autograd.record():
        out = net(x)
    out.backward()
    w_grad = net.fc.weight.grad().asnumpy()
    # d/dW of sum(2 * flat(y)[2:8]) + 6 * sum(y[1]), y = x W^T + b
    xs = x.asnumpy()
    coef = np.zeros((3, 6), np.float32)
    coef.reshape(-1)[2:8] += 2
    coef[1] += 6
    np.testing.assert_allclose(w_grad, coef.T @ xs, rtol=1e-5, atol=1e-6)


def _conv_bn_net(hybrid):
    with mx.NameManager():
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(nn.Conv2D(4, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                    nn.Flatten(), nn.Dense(3))
    net.initialize(mx.init.Xavier())
    if hybrid:
        net.hybridize()
    return net


def _same_params(dst, src):
    for pd, ps in zip(dst.collect_params().values(), src.collect_params().values()):
        pd.set_data(ps.data())


def test_hybridized_record_is_a_cached_op_forward_then_backward_from_residuals():
    """Inside record(), a hybridized block runs the forward half of its
    training step once and keeps the intermediates (mx-split-training's
    residuals); backward() runs the backward half on them, writing the
    parameters' gradients, not the whole step again."""
    x = _x(2, 2, 5, 5)
    a = _conv_bn_net(False)
    a(x)
    b = _conv_bn_net(True)
    b(x)
    _same_params(b, a)
    y = mx.nd.array([0, 2])
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    grads = []
    for net in (a, b):
        with autograd.record():
            out = loss(net(x), y)
        out.backward()
        grads.append({k: p.grad().asnumpy().copy() for k, p in
                      net._collect_params_with_prefix().items() if p.grad_req != "null"})
    for k in grads[0]:
        np.testing.assert_allclose(grads[1][k], grads[0][k], rtol=1e-4, atol=1e-6, err_msg=k)
    parts = {key[3]: c for key, c in b._cached_op._compiled.items() if len(key) == 4}
    assert sorted(parts) == ["backward", "forward"]
    fwd_kinds = [kind for _, kind, _, _ in parts["forward"].outputs]
    assert "residual" in fwd_kinds and "grad" not in fwd_kinds
    bwd_kinds = {kind for _, kind, _, _ in parts["backward"].inputs}
    assert "residual" in bwd_kinds and "head_grad" in bwd_kinds
    assert {kind for _, kind, _, _ in parts["backward"].outputs} == {"grad"}
    # Another step compiles nothing more.
    n = b._cached_op.num_compiles
    with autograd.record():
        out = loss(b(x), y)
    out.backward()
    assert b._cached_op.num_compiles == n


def test_hybridized_blocks_chained_in_an_imperative_block():
    """Two hybridized children called from a Block: the gradient flows from
    the second block's backward half through the first's into the input."""
    class Two(gluon.Block):
        def __init__(self, hybrid, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.f = nn.HybridSequential()
                self.f.add(nn.Dense(5, in_units=4, activation="tanh"))
                self.g = nn.HybridSequential()
                self.g.add(nn.Dense(3, in_units=5), nn.Activation("sigmoid"))
            if hybrid:
                self.f.hybridize()
                self.g.hybridize()

        def forward(self, x):
            h = self.f(x)
            return self.g(h) * 2 + h.sum(axis=1, keepdims=True)

    res = []
    ref = None
    for hybrid in (False, True):
        mx.random.seed(3)
        net = Two(hybrid)
        net.initialize(mx.init.Xavier())
        if ref is not None:
            _same_params(net, ref)
        ref = net
        x = _x(2, 4, seed=1)
        x.attach_grad()
        with autograd.record():
            out = net(x)
        out.backward(mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3)))
        res.append([x.grad.asnumpy()] + [p.grad().asnumpy().copy()
                                         for p in net.collect_params().values()])
    for got, want in zip(res[1], res[0]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        assert np.abs(want).sum() > 0


def test_hybridized_block_in_predict_mode_record_and_create_graph():
    """record(train_mode=False) runs BatchNorm on its moving statistics (and
    leaves them alone); grad(create_graph=True) and get_symbol see the
    block's operators one by one."""
    x = _x(2, 2, 5, 5)
    a = _conv_bn_net(False)
    a(x)
    b = _conv_bn_net(True)
    b(x)
    _same_params(b, a)
    x.attach_grad()
    grads = []
    for net in (a, b):
        before = {k: p.data().asnumpy().copy() for k, p in net.collect_params().items()
                  if "running" in k}
        with autograd.record(train_mode=False):
            out = net(x)
        out.backward()
        grads.append(x.grad.asnumpy().copy())
        for k, p in net.collect_params().items():
            if "running" in k:
                np.testing.assert_array_equal(p.data().asnumpy(), before[k])
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-4, atol=1e-6)

    f = nn.Dense(3, in_units=4, activation="tanh")
    f.initialize(mx.init.Xavier())
    f.hybridize()
    v = _x(2, 4, seed=2)
    v.attach_grad()
    with autograd.record():
        y = f(v)
        (dv,) = autograd.grad(y, [v], create_graph=True)
        z = (dv * dv).sum()
    z.backward()
    w = f.weight.data().asnumpy()
    b_ = f.bias.data().asnumpy()
    t = np.tanh(v.asnumpy() @ w.T + b_)
    s = 1 - t * t                          # tanh'
    np.testing.assert_allclose(dv.asnumpy(), s @ w, rtol=1e-5, atol=1e-6)
    # z = sum((s W)^2); dz/dv = ((2 (s W) W^T) * ds/du) W with ds/du = -2 t s
    g = (2 * (s @ w) @ w.T) * (-2 * t * s)
    np.testing.assert_allclose(v.grad.asnumpy(), g @ w, rtol=1e-4, atol=1e-5)
    sym = autograd.get_symbol(y)
    assert "FullyConnected" in sym.tojson() and "tanh" in sym.tojson().lower()


def test_hybridized_block_with_one_array_as_two_inputs():
    """net(x, x): the backward half gives x two gradients, which add up (not
    two writes into x.grad)."""
    class Two(gluon.HybridBlock):
        def hybrid_forward(self, F, a, b):
            return F.tanh(a) * 3 + b * b

    net = Two()
    net.hybridize()
    x = _x(2, 3, seed=4)
    x.attach_grad()
    with autograd.record():
        y = net(x, x)
    y.backward()
    v = x.asnumpy()
    np.testing.assert_allclose(x.grad.asnumpy(), 3 * (1 - np.tanh(v) ** 2) + 2 * v,
                               rtol=1e-5, atol=1e-6)


def test_get_symbol_inline_limit_cached_op():
    """As MXNet's CachedOp: get_symbol of a hybridized call shows the
    block's operators up to hybridize(inline_limit=...) (default 2), else
    one _CachedOp node on its inputs and parameters (MXNet's
    test_gluon.py::test_inline counts 10 and 8 nodes); the symbol still
    binds and computes the block."""
    import json
    net = nn.HybridSequential()
    with net.name_scope():
        for _ in range(3):
            net.add(nn.Dense(4))
    net.initialize(mx.init.Xavier())
    x = _x(2, 5, seed=3)
    counts = {}
    for limit in (3, 0, None):
        if limit is None:
            net.hybridize()
        else:
            net.hybridize(inline_limit=limit)
        with autograd.record():
            y = net(x) * 2
        sym = autograd.get_symbol(y)
        ops = [n["op"] for n in json.loads(sym.tojson())["nodes"]]
        counts[limit] = ops
        # var0 is x, then the parameters in the block's input order
        params = [p.data() for p in net.collect_params().values()]
        out = sym.eval(**dict(zip(sym.list_arguments(), [x] + params)))[0]
        np.testing.assert_allclose(out.asnumpy(), y.asnumpy(), rtol=1e-5, atol=1e-6)
    assert counts[3].count("FullyConnected") == 3 and "_CachedOp" not in counts[3]
    assert len(counts[3]) == 11
    for limit in (0, None):
        assert counts[limit] == ["null"] * 7 + ["_CachedOp", "_mul_scalar"]
    # a file with a _CachedOp node has no graph for it (as MXNet's): a clear error
    loaded = mx.sym.load_json(sym.tojson())
    with pytest.raises(mx.MXNetError, match="_CachedOp"):
        loaded.eval(**dict(zip(loaded.list_arguments(), [x] + params)))


def test_np_shape_parameters():
    """mx.np_shape: Parameter.shape shows an unknown dimension as -1 (0
    outside), -1 is taken for one, deferred initialisation works inside;
    the switch is per scope (as MXNet 1.9.1, checked there)."""
    assert not mx.is_np_shape()
    with mx.np_shape(True):
        assert mx.is_np_shape() and mx.util.is_np_shape()
        dense = nn.Dense(16)
        dense.initialize()
        assert dense.weight.shape == (16, -1)
        assert dense(mx.nd.zeros((2, 2016))).shape == (2, 16)
        assert dense.weight.shape == (16, 2016)
        other = nn.Dense(3)
        assert other.weight.shape == (3, -1)
        assert gluon.utils.shape_is_known(()) and not gluon.utils.shape_is_known((2, -1))
        assert gluon.utils.shape_is_known((2, 0))
    assert not mx.is_np_shape() and other.weight.shape == (3, 0)
    assert not gluon.utils.shape_is_known(()) and not gluon.utils.shape_is_known((2, 0))
    p = gluon.Parameter("w", shape=(3, -1))
    p.shape = (3, 5)
    assert p.shape == (3, 5)

    @mx.use_np_shape
    def inside():
        return mx.is_np_shape()
    assert inside() and not mx.is_np_shape()
    assert mx.set_np_shape(True) is False and mx.set_np_shape(False) is True
    with pytest.raises(mx.MXNetError, match="mx.np"):
        mx.util.set_np()


def test_hybridized_block_with_a_dynamic_shape_runs_imperatively():
    # MXNet's test_dynamic_shape: boolean_mask's output shape depends on the
    # index values; the hybridized block falls back to imperative execution
    # (mx.sym.contrib.boolean_mask itself is a DynamicShapeError)
    class Masked(gluon.HybridBlock):
        def hybrid_forward(self, F, data, index):
            return F.contrib.boolean_mask(data, index) * 2

    block = Masked()
    block.hybridize()
    data = mx.nd.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    data.attach_grad()
    for index, rows in (([0, 1, 1], [1, 2]), ([1, 0, 0], [0])):
        with mx.autograd.record():
            out = block(data, mx.nd.array(index))
        out.backward()
        np.testing.assert_array_equal(out.asnumpy(), data.asnumpy()[rows] * 2)
        want = np.zeros((3, 3))
        want[rows] = 2
        np.testing.assert_array_equal(data.grad.asnumpy(), want)
    with pytest.raises(mx.base.DynamicShapeError, match="static shapes"):
        mx.sym.contrib.boolean_mask(mx.sym.var("d"), mx.sym.var("i"))
