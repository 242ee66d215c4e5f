"""mx.sym: construction, MXNet's names and lists, JSON, inference, binding."""
import json
import os

import numpy as np
import pytest

import mxc as mx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
FILES = os.path.join(ROOT, "test", "Inputs", "mxnet-files")
PARAMS = os.path.join(ROOT, "test", "Inputs", "mxnet-params")


@pytest.fixture(autouse=True)
def fresh_names():
    with mx.NameManager():
        yield


def mlp():
    data = mx.sym.var("data")
    fc1 = mx.sym.FullyConnected(data, num_hidden=8, name="fc1")
    act = mx.sym.Activation(fc1, act_type="relu", name="relu1")
    fc2 = mx.sym.FullyConnected(act, num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(fc2, name="softmax")


def test_op_table_comes_from_the_compiler():
    specs = mx._mxc.op_specs()
    assert len(specs) == 282
    for name in ["Convolution", "FullyConnected", "BatchNorm", "Concat", "softmax",
                 "broadcast_add", "_plus_scalar", "one_hot", "where"]:
        assert callable(getattr(mx.sym, name)), name
        assert callable(getattr(mx.nd, name)), name
    # aliases MXNet registers
    assert callable(mx.sym.reshape) and callable(mx.sym.flatten)
    assert issubclass(mx.MXNetError, RuntimeError)


def test_lists_as_mxnet_names_them():
    net = mlp()
    assert net.list_arguments() == ["data", "fc1_weight", "fc1_bias", "fc2_weight",
                                    "fc2_bias", "softmax_label"]
    assert net.list_outputs() == ["softmax_output"]
    assert net.list_auxiliary_states() == []
    assert net.name == "softmax"


def test_batchnorm_aux_and_internals():
    # Expected lists: MXNet 1.9.1's for the same construction.
    a = mx.sym.var("a")
    fc = mx.sym.FullyConnected(a, num_hidden=10)
    bn = mx.sym.BatchNorm(fc, fix_gamma=False, name="bn")
    assert bn.list_arguments() == ["a", "fullyconnected0_weight", "fullyconnected0_bias",
                                   "bn_gamma", "bn_beta"]
    assert bn.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
    assert bn.list_outputs() == ["bn_output"]
    internals = bn.get_internals()
    assert internals.list_outputs() == [
        "a", "fullyconnected0_weight", "fullyconnected0_bias", "fullyconnected0_output",
        "bn_gamma", "bn_beta", "bn_moving_mean", "bn_moving_var", "bn_output"]
    fc_out = internals["fullyconnected0_output"]
    assert fc_out.list_outputs() == ["fullyconnected0_output"]
    assert fc_out.infer_shape(a=(2, 5))[1] == [(2, 10)]
    with pytest.raises(mx.MXNetError, match="no output named 'nope'"):
        internals["nope"]


def test_visible_outputs_depend_on_attributes():
    x = mx.sym.var("x")
    assert mx.sym.LeakyReLU(x, act_type="leaky", name="l").list_outputs() == ["l_output"]
    assert len(mx.sym.LeakyReLU(x, act_type="rrelu", name="r")) == 2
    bn = mx.sym.BatchNorm(x, output_mean_var=True, name="bn")
    assert bn.list_outputs() == ["bn_output", "bn_mean", "bn_var"]
    assert json.loads(bn.tojson())["node_row_ptr"][-2:] == [5, 8]


# tojson of this graph by MXNet 1.9.1 (mx.sym.var, operators, Group).
MXNET_GROUP_JSON = open(os.path.join(os.path.dirname(__file__), "golden",
                                     "group.mxnet-1.9.1.json")).read()
MXNET_ARITH_JSON = open(os.path.join(os.path.dirname(__file__), "golden",
                                     "arith.mxnet-1.9.1.json")).read()


def test_tojson_is_byte_identical_to_mxnet():
    a = mx.sym.var("a")
    b = mx.sym.var("b")
    fc = mx.sym.FullyConnected(a, num_hidden=10)
    bn = mx.sym.BatchNorm(fc, fix_gamma=False, name="bn")
    c = mx.sym.Concat(a, b, dim=1)
    assert mx.sym.Group([bn, c]).tojson() == MXNET_GROUP_JSON


def test_arithmetic_operators_as_mxnet_writes_them():
    a = mx.sym.var("a")
    b = mx.sym.var("b")
    e = ((a + b) * 2 - a / 3.5 + (-a) + (2 - a) + (1 / a) + (a ** 2) + (a < 1)
         + (2 ** a) + abs(a))
    assert e.tojson() == MXNET_ARITH_JSON


def test_symbol_symbol_comparison_uses_broadcast_ops():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    nodes = json.loads((a == b).tojson())["nodes"]
    assert nodes[-1]["op"] == "broadcast_equal" and nodes[-1]["name"] == "_equal0"
    exe = (a >= b).bind(mx.cpu(), {"a": mx.nd.array([1, 2, 3]), "b": mx.nd.array([2, 2, 2])})
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), [0, 1, 1])


@pytest.mark.parametrize("name", ["mlp-symbol", "save_000800", "vgg_like_model1", "legacy_hidden"])
def test_load_then_tojson_matches_mxnet_resave(name):
    # *.mxnet-1.9.1.json: MXNet's own mx.sym.load(f).tojson() of the file.
    sym = mx.sym.load(os.path.join(FILES, name + ".json"))
    with open(os.path.join(FILES, name + ".mxnet-1.9.1.json")) as f:
        assert sym.tojson() == f.read()


def test_json_round_trip(tmp_path):
    net = mlp()
    text = net.tojson()
    again = mx.sym.load_json(text)
    assert again.tojson() == text
    assert again.list_arguments() == net.list_arguments()
    path = tmp_path / "net-symbol.json"
    net.save(str(path))
    assert mx.sym.load(str(path)).tojson() == text


def test_infer_shape_and_type():
    net = mlp()
    arg, out, aux = net.infer_shape(data=(4, 6))
    assert arg == [(4, 6), (8, 6), (8,), (3, 8), (3,), (4,)]
    assert out == [(4, 3)]
    assert aux == []
    assert net.infer_shape() == (None, None, None)
    arg_t, out_t, aux_t = net.infer_type(data="float64")
    assert arg_t == [np.float64] * 6 and out_t == [np.float64]
    c = mx.sym.Cast(mx.sym.var("x"), dtype="int32")
    assert c.infer_type(x=np.float32)[1] == [np.int32]


def test_conv_net_shapes():
    data = mx.sym.var("data")
    c = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv")
    p = mx.sym.Pooling(c, kernel=(2, 2), stride=(2, 2), pool_type="max")
    f = mx.sym.Flatten(p)
    arg, out, _ = f.infer_shape(data=(2, 3, 8, 8))
    assert dict(zip(f.list_arguments(), arg)) == {
        "data": (2, 3, 8, 8), "conv_weight": (4, 3, 3, 3), "conv_bias": (4,)}
    assert out == [(2, 64)]


def test_attribute_errors():
    x = mx.sym.var("x")
    with pytest.raises(mx.MXNetError, match="no attribute 'num_hiden'"):
        mx.sym.FullyConnected(x, num_hiden=3)
    with pytest.raises(mx.MXNetError, match="required attribute 'num_hidden'"):
        mx.sym.FullyConnected(x)
    bad = mx.sym.Activation(x, act_type="nope", name="act9")
    with pytest.raises(mx.MXNetError, match="node 'act9'"):
        bad.infer_shape(x=(2, 2))


def test_shape_error_names_the_node():
    x = mx.sym.var("x")
    w = mx.sym.var("w")
    fc = mx.sym.FullyConnected(x, w, no_bias=True, num_hidden=3, name="fc_bad")
    with pytest.raises(mx.MXNetError, match="node 'fc_bad'"):
        fc.simple_bind(mx.cpu(), x=(2, 4), w=(3, 5))


def mlp_numpy(x, p):
    h = np.maximum(x @ p["fc1_weight"].T + p["fc1_bias"], 0)
    z = h @ p["fc2_weight"].T + p["fc2_bias"]
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_simple_bind_forward_against_numpy():
    net = mlp()
    exe = net.simple_bind(mx.cpu(), data=(4, 6))
    rng = np.random.default_rng(0)
    params = {n: rng.standard_normal(a.shape).astype(np.float32)
              for n, a in exe.arg_dict.items() if n not in ("data", "softmax_label")}
    exe.copy_params_from({k: mx.nd.array(v) for k, v in params.items()})
    x = rng.standard_normal((4, 6)).astype(np.float32)
    out = exe.forward(is_train=False, data=mx.nd.array(x))
    assert len(out) == 1 and out[0].shape == (4, 3)
    np.testing.assert_allclose(out[0].asnumpy(), mlp_numpy(x, params), rtol=1e-5, atol=1e-6)
    assert exe.output_dict["softmax_output"] is exe.outputs[0]
    # The executor reads its bound arrays at every forward.
    exe.arg_dict["data"][:] = 0
    out = exe.forward()
    np.testing.assert_allclose(out[0].asnumpy(), mlp_numpy(np.zeros_like(x), params),
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(mx.MXNetError, match="not a parameter"):
        exe.copy_params_from({"nope": mx.nd.zeros((1,))})
    exe.copy_params_from({"nope": mx.nd.zeros((1,))}, allow_extra_params=True)


def test_bind_with_aux_states_against_numpy():
    data = mx.sym.var("data")
    bn = mx.sym.BatchNorm(data, fix_gamma=False, eps=1e-3, name="bn")
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    gamma, beta = rng.random(3).astype(np.float32), rng.random(3).astype(np.float32)
    mean, var = rng.random(3).astype(np.float32), rng.random(3).astype(np.float32) + 0.5
    args = {"data": mx.nd.array(x), "bn_gamma": mx.nd.array(gamma), "bn_beta": mx.nd.array(beta)}
    aux = {"bn_moving_mean": mx.nd.array(mean), "bn_moving_var": mx.nd.array(var)}
    exe = bn.bind(mx.cpu(), args, aux_states=aux)
    out = exe.forward()[0].asnumpy()
    sh = (1, 3, 1)
    want = (x - mean.reshape(sh)) / np.sqrt(var.reshape(sh) + 1e-3) * gamma.reshape(sh) + beta.reshape(sh)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    assert sorted(exe.aux_dict) == ["bn_moving_mean", "bn_moving_var"]


def test_backward_against_numpy_backprop():
    net = mlp()
    exe = net.simple_bind(mx.cpu(), data=(4, 6))
    rng = np.random.default_rng(5)
    p = {n: (rng.standard_normal(a.shape) * 0.5).astype(np.float32)
         for n, a in exe.arg_dict.items() if n not in ("data", "softmax_label")}
    exe.copy_params_from({k: mx.nd.array(v) for k, v in p.items()})
    x = rng.standard_normal((4, 6)).astype(np.float32)
    label = np.array([0, 2, 1, 2], np.float32)
    out = exe.forward(is_train=True, data=mx.nd.array(x), softmax_label=mx.nd.array(label))
    prob = mlp_numpy(x, p)
    np.testing.assert_allclose(out[0].asnumpy(), prob, rtol=1e-5, atol=1e-6)
    exe.backward()
    # SoftmaxOutput's gradient (normalization 'null'): prob - onehot(label).
    pre = x @ p["fc1_weight"].T + p["fc1_bias"]
    h = np.maximum(pre, 0)
    dz = prob - np.eye(3)[label.astype(int)]
    dh = (dz @ p["fc2_weight"]) * (pre > 0)
    want = {"fc2_weight": dz.T @ h, "fc2_bias": dz.sum(0), "fc1_weight": dh.T @ x,
            "fc1_bias": dh.sum(0), "data": dh @ p["fc1_weight"], "softmax_label": np.zeros(4)}
    assert sorted(exe.grad_dict) == sorted(want)
    for name, w in want.items():
        np.testing.assert_allclose(exe.grad_dict[name].asnumpy(), w, rtol=1e-4, atol=1e-5,
                                   err_msg=name)


def test_backward_with_out_grads_against_finite_differences():
    x = mx.sym.var("x")
    y = mx.sym.tanh(mx.sym.FullyConnected(x, num_hidden=3, name="fc"), name="t")
    exe = y.simple_bind(mx.cpu(), grad_req={"fc_weight": "write", "fc_bias": "write"},
                        type_dict={"x": "float64"}, x=(2, 4))
    rng = np.random.default_rng(6)
    for a in exe.arg_arrays:
        a[:] = rng.standard_normal(a.shape)
    head = rng.standard_normal((2, 3))
    exe.forward(is_train=True)
    exe.backward(mx.nd.array(head, dtype="float64"))
    # every argument, None without a gradient (MXNet's grad_dict)
    assert sorted(exe.grad_dict) == ["fc_bias", "fc_weight", "x"] and exe.grad_dict["x"] is None

    def loss():
        return float((exe.forward()[0].asnumpy() * head).sum())

    for name in ["fc_weight", "fc_bias"]:
        arr = exe.arg_dict[name]._data
        num = np.zeros_like(arr)
        for i in np.ndindex(arr.shape):
            old = arr[i]
            arr[i] = old + 1e-6
            up = loss()
            arr[i] = old - 1e-6
            down = loss()
            arr[i] = old
            num[i] = (up - down) / 2e-6
        np.testing.assert_allclose(exe.grad_dict[name].asnumpy(), num, rtol=1e-5, atol=1e-7,
                                   err_msg=name)


def test_backward_with_out_grads_runs_the_halves_after_the_first():
    """After a backward(out_grads), which computes the training step's forward
    again, the executor runs the step as its two halves (the forward half at
    forward, the backward half on what it kept): the same outputs, gradients
    (write and add), moving statistics and Dropout masks as the whole step
    run again each time."""
    x = mx.sym.var("x")
    h = mx.sym.FullyConnected(x, num_hidden=6, name="fc")
    h = mx.sym.BatchNorm(mx.sym.Reshape(h, shape=(4, 3, 2)), fix_gamma=False, name="bn")
    y = mx.sym.tanh(mx.sym.Dropout(h, p=0.3), name="t")
    reqs = {"x": "null", "fc_weight": "write", "fc_bias": "add", "bn_gamma": "write",
            "bn_beta": "write"}
    rng = np.random.default_rng(11)
    init = {n: rng.standard_normal(s) for n, s in zip(
        y.list_arguments(), y.infer_shape(x=(4, 5))[0])}
    heads = [rng.standard_normal((4, 3, 2)) for _ in range(3)]
    runs = []
    for split in (True, False):
        exe = y.simple_bind(mx.cpu(), grad_req=reqs, x=(4, 5))
        if not split:
            exe._can_split = lambda: False  # the whole step again each time
        for n, v in init.items():
            exe.arg_dict[n][:] = v
        exe.aux_dict["bn_moving_var"][:] = 1
        seen = []
        for step, head in enumerate(heads):
            mx.random.seed(step)
            out = exe.forward(is_train=True)[0].asnumpy()
            exe.backward(mx.nd.array(head))
            seen.append([out] + [exe.grad_dict[n].asnumpy() for n in sorted(reqs) if n != "x"]
                        + [a.asnumpy() for a in exe.aux_arrays])
            assert exe._split_train == split, step  # from the first backward on
        assert ((True, "forward") in exe._compiled) == split
        runs.append(seen)
    for step, (got, want) in enumerate(zip(*runs)):
        for k, (g, w) in enumerate(zip(got, want)):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg="%d/%d" % (step, k))
    # No argument wants a gradient: nothing to split (the whole step stays).
    exe = y.simple_bind(mx.cpu(), grad_req="null", x=(4, 5))
    for _ in range(2):
        exe.forward(is_train=True)
        exe.backward(mx.nd.array(heads[0]))
    assert not exe._split_train
    # A reshaped executor keeps running the halves.
    exe = y.simple_bind(mx.cpu(), grad_req=reqs, x=(4, 5))
    exe.forward(is_train=True)
    exe.backward(mx.nd.array(heads[0]))
    assert exe._split_train and exe.reshape(x=(4, 5))._split_train


def test_grad_req_add_accumulates():
    x = mx.sym.var("x")
    w = mx.sym.var("w")
    y = mx.sym.sum(x * w)
    exe = y.simple_bind(mx.cpu(), grad_req={"w": "add"}, x=(3,), w=(3,))
    exe.arg_dict["x"][:] = mx.nd.array([1, 2, 3])
    for _ in range(2):
        exe.forward(is_train=True)
        exe.backward()
    np.testing.assert_allclose(exe.grad_dict["w"].asnumpy(), [2, 4, 6])
    with pytest.raises(mx.MXNetError, match=r"forward\(is_train=True\) first"):
        exe.backward()


def test_batchnorm_training_updates_moving_statistics():
    data = mx.sym.var("data")
    bn = mx.sym.BatchNorm(data, fix_gamma=False, momentum=0.75, eps=1e-5, name="bn")
    exe = bn.simple_bind(mx.cpu(), data=(4, 2, 3))
    rng = np.random.default_rng(7)
    x = rng.standard_normal((4, 2, 3)).astype(np.float32) * 3 + 1
    exe.arg_dict["bn_gamma"][:] = 1
    exe.aux_dict["bn_moving_var"][:] = 1
    out = exe.forward(is_train=True, data=mx.nd.array(x))[0].asnumpy()
    mean, var = x.mean(axis=(0, 2)), x.var(axis=(0, 2))
    want = (x - mean.reshape(1, 2, 1)) / np.sqrt(var.reshape(1, 2, 1) + 1e-5)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(exe.aux_dict["bn_moving_mean"].asnumpy(), 0.25 * mean, rtol=1e-5)
    np.testing.assert_allclose(exe.aux_dict["bn_moving_var"].asnumpy(), 0.75 + 0.25 * var,
                               rtol=1e-5)
    # backward with out_grads reruns the same step: the statistics move once.
    exe.backward(mx.nd.ones((4, 2, 3)))
    np.testing.assert_allclose(exe.aux_dict["bn_moving_mean"].asnumpy(), 0.25 * mean, rtol=1e-5)


def test_dropout_trains_and_predicts():
    x = mx.sym.var("x")
    w = mx.sym.var("w")
    y = mx.sym.Dropout(x * w, p=0.5)
    exe = y.simple_bind(mx.cpu(), grad_req={"w": "write"}, x=(1000,), w=(1000,))
    exe.arg_dict["x"][:] = 1
    exe.arg_dict["w"][:] = 3
    mx.random.seed(1)
    out = exe.forward(is_train=True)[0].asnumpy()
    kept = out != 0
    assert 0.4 < kept.mean() < 0.6
    np.testing.assert_allclose(out[kept], 6)  # scaled by 1 / (1 - p)
    exe.backward()
    np.testing.assert_allclose(exe.grad_dict["w"].asnumpy(), np.where(kept, 2.0, 0.0))
    np.testing.assert_allclose(exe.forward(is_train=False)[0].asnumpy(), 3)


def test_real_checkpoint_runs():
    # MXNet 1.9.1's save_checkpoint of the zoo MLP (test/Inputs/mxnet-params).
    sym = mx.sym.load(os.path.join(PARAMS, "mlp-symbol.json"))
    params = mx.nd.load(os.path.join(PARAMS, "mlp-0000.params"))
    arg_params = {k[4:]: v for k, v in params.items() if k.startswith("arg:")}
    shape = {"data": (2, 1, 28, 28)}
    exe = sym.simple_bind(mx.cpu(), **shape)
    exe.copy_params_from(arg_params)
    x = np.random.default_rng(2).random((2, 1, 28, 28)).astype(np.float32)
    out = exe.forward(data=mx.nd.array(x))[0].asnumpy()
    assert out.shape == (2, 10)
    np.testing.assert_allclose(out.sum(axis=1), 1, rtol=1e-5)


# Without a GPU (or a driver): the runtime's reason (executors on a GPU:
# test/python/gpu/test_gpu_arrays.py, on the host driver double).
_GPU_ERROR = r"gpu\(0\) is not available: (no CUDA driver|this mxc was built without CUDA)"


@pytest.mark.skipif(mx.context.num_gpus() > 0, reason="this machine has a GPU")
def test_gpu_context_is_a_clear_error():
    with pytest.raises(mx.MXNetError, match=_GPU_ERROR):
        mlp().simple_bind(mx.gpu(), data=(2, 6))


def test_slow_compiles_say_so(monkeypatch, capsys):
    import time
    real = mx.base._mxc

    class SlowCompiler:
        def compile(self, *args, **kwargs):
            time.sleep(1.3)
            return real.compile(*args, **kwargs)

    monkeypatch.delenv("MXC_QUIET", raising=False)
    monkeypatch.setattr(mx.base, "_mxc", SlowCompiler())
    exe = mlp().simple_bind(mx.cpu(), data=(3, 6))
    exe.forward()
    err = capsys.readouterr().err
    assert "mxc: compiling graph softmax (" in err and "mxc: compiled graph softmax" in err


def test_sgd_loop_on_the_executor_learns():
    # Three Gaussian blobs in 2-D; an MLP trained with plain SGD on the
    # executor's gradients separates them.
    rng = np.random.default_rng(8)
    centres = np.array([[0, 3], [3, -2], [-3, -2]], np.float32)
    label = rng.integers(0, 3, 300)
    x = (centres[label] + rng.standard_normal((300, 2))).astype(np.float32)
    data = mx.sym.var("data")
    h = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=16, name="fc1"), act_type="tanh")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=3, name="fc2"),
                               name="softmax", normalization="batch")
    exe = net.simple_bind(mx.cpu(), data=(300, 2),
                          grad_req={n: "write" for n in ["fc1_weight", "fc1_bias",
                                                         "fc2_weight", "fc2_bias"]})
    for name, a in exe.arg_dict.items():
        if name.endswith("weight"):
            a[:] = rng.uniform(-0.5, 0.5, a.shape)
    for _ in range(60):
        exe.forward(is_train=True, data=mx.nd.array(x), softmax_label=mx.nd.array(label))
        exe.backward()
        for name, g in exe.grad_dict.items():
            if g is not None:  # (data and the label have none: None, as MXNet)
                exe.arg_dict[name][:] = exe.arg_dict[name] - 0.5 * g
    pred = exe.forward(is_train=False)[0].asnumpy().argmax(axis=1)
    assert (pred == label).mean() > 0.95


def test_variable_attributes_as_mxnet_shows_them():
    # Expected values: MXNet 1.9.1's for the same Variable.
    v = mx.sym.var("v", dtype="float16", shape=(2, 3), lr_mult=0.1)
    assert v.list_attr() == {"__dtype__": "2", "__lr_mult__": "0.1", "lr_mult": "0.1",
                             "__shape__": "(2, 3)"}
    assert v.attr("shape") is None and v.attr("__shape__") == "(2, 3)" and v.attr("lr_mult") == "0.1"
    r = mx.sym.relu(v)
    assert r.infer_type() == ([np.float16], [np.float16], [])
    assert r.infer_shape() == ([(2, 3)], [(2, 3)], [])
    exe = r.simple_bind(mx.cpu())
    assert exe.arg_dict["v"].dtype == np.float16 and exe.forward()[0].dtype == np.float16


def test_executor_reshape_and_eval():
    x = mx.sym.var("x")
    y = mx.sym.FullyConnected(x, num_hidden=2, name="fc")
    exe = y.simple_bind(mx.cpu(), x=(3, 4))
    exe.arg_dict["fc_weight"][:] = 1
    e2 = exe.reshape(x=(5, 4))
    assert e2.arg_dict["x"].shape == (5, 4)
    assert e2.arg_dict["fc_weight"] is exe.arg_dict["fc_weight"]
    np.testing.assert_array_equal(e2.forward(x=mx.nd.ones((5, 4)))[0].asnumpy(), np.full((5, 2), 4))
    out = y.eval(x=mx.nd.ones((2, 4)), fc_weight=mx.nd.ones((2, 4)), fc_bias=mx.nd.array([0, 1]))
    np.testing.assert_array_equal(out[0].asnumpy(), [[4, 5], [4, 5]])


def test_variadic_operators_compose_their_missing_inputs_as_mxnet():
    # A variadic operator given num_args and no inputs gets variables named
    # after its arguments (MXNet 1.9.1's names for the same calls; MXNet's
    # check_consistency tests build their symbols this way)
    assert mx.sym.Concat(name="concat", num_args=2).list_arguments() == \
        ["concat_arg0", "concat_arg1"]
    assert mx.sym.UpSampling(scale=2, num_filter=3, sample_type="bilinear", num_args=2,
                             name="up").list_arguments() == ["up_data", "up_weight"]
    assert mx.sym.UpSampling(scale=2, sample_type="nearest", num_args=1,
                             name="up").list_arguments() == ["up_arg0"]
    assert mx.sym.ElementWiseSum(name="ews", num_args=3).list_arguments() == \
        ["ews_arg0", "ews_arg1", "ews_arg2"]
    assert mx.sym.stack(name="st", num_args=2).list_arguments() == ["st_arg0", "st_arg1"]
    exe = mx.sym.Concat(name="c", num_args=2, dim=1).simple_bind(mx.cpu(), c_arg0=(2, 1),
                                                                 c_arg1=(2, 2))
    exe.arg_dict["c_arg1"][:] = 1
    np.testing.assert_array_equal(exe.forward()[0].asnumpy()[:, 1:], np.ones((2, 2)))


def test_float16_batchnorm_has_float32_parameters_and_trains():
    # BatchNormType (AccReal): what MXNet 1.9.1's infer_type gives, then a
    # training step of the bound executor (its gradients in their types)
    import numpy as np
    d = mx.sym.var("data")
    s = mx.sym.BatchNorm(d, name="bn", fix_gamma=False, output_mean_var=True)
    f16, f32 = np.float16, np.float32
    assert s.infer_type(data="float16") == ([f16, f32, f32], [f16, f32, f32], [f32, f32])
    exe = s.simple_bind(mx.cpu(), data=(4, 3, 2, 2), type_dict={"data": f16})
    r = np.random.default_rng(9)
    exe.arg_dict["data"][:] = r.uniform(-1, 1, (4, 3, 2, 2)).astype(f16)
    exe.arg_dict["bn_gamma"][:] = 1.5
    out = exe.forward(is_train=True)[0]
    assert out.dtype == f16
    x = exe.arg_dict["data"].asnumpy().astype(np.float64)
    mean, var = x.mean(axis=(0, 2, 3), keepdims=True), x.var(axis=(0, 2, 3), keepdims=True)
    want = 1.5 * (x - mean) / np.sqrt(var + 1e-3)
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), want, rtol=2e-3, atol=2e-3)
    dy = r.uniform(-1, 1, (4, 3, 2, 2)).astype(f16)
    exe.backward([mx.nd.array(dy, dtype=f16), mx.nd.zeros(3), mx.nd.zeros(3)])
    assert exe.grad_dict["data"].dtype == f16 and exe.grad_dict["bn_gamma"].dtype == f32
    # BatchNorm's gradients in float64 (gamma 1.5, beta 0)
    g = dy.astype(np.float64)
    xhat = (x - mean) / np.sqrt(var + 1e-3)
    dgamma, dbeta = (g * xhat).sum(axis=(0, 2, 3)), g.sum(axis=(0, 2, 3))
    dx = 1.5 / np.sqrt(var + 1e-3) * (g - g.mean(axis=(0, 2, 3), keepdims=True)
                                      - xhat * (g * xhat).mean(axis=(0, 2, 3), keepdims=True))
    np.testing.assert_allclose(exe.grad_dict["bn_gamma"].asnumpy(), dgamma, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(exe.grad_dict["bn_beta"].asnumpy(), dbeta, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(exe.grad_dict["data"].asnumpy().astype(np.float64), dx,
                               rtol=5e-3, atol=5e-3)


def test_v1_layers_are_their_current_forms():
    # MXNet 1.9.1 still registers Convolution_v1 / Pooling_v1 (older files and
    # test_operator_gpu's *_versions tests use them): here aliases, so this
    # checks that the names resolve and take the v1 attributes, with the
    # current forms' results
    import numpy as np
    r = np.random.default_rng(11)
    x = r.uniform(-1, 1, (2, 2, 7, 7)).astype(np.float32)
    pairs = [(mx.sym.Convolution_v1, mx.sym.Convolution,
              dict(num_filter=3, kernel=(3, 3), pad=(1, 1), name="conv")),
             (mx.sym.Pooling_v1, mx.sym.Pooling,
              dict(kernel=(3, 3), stride=(2, 2), pool_type="avg", pooling_convention="full",
                   name="pool"))]
    for old, new, kw in pairs:
        got = []
        for fn in (old, new):
            s = fn(mx.sym.var("data"), **kw)
            exe = s.simple_bind(mx.cpu(), data=x.shape)
            for k, a in sorted(exe.arg_dict.items()):
                a[:] = x if k == "data" else np.linspace(-1, 1, a.size).reshape(a.shape)
            out = exe.forward(is_train=True)[0]
            exe.backward([mx.nd.ones(out.shape)])
            got.append([out.asnumpy(), exe.grad_dict["data"].asnumpy()])
        for a, b in zip(*got):
            np.testing.assert_array_equal(a, b)


def test_simple_bind_ignores_keywords_that_are_not_shapes():
    # MXNet 1.x's simple_bind takes only tuple values as shapes
    # (test_operator_gpu's check_fft passes args_grad=[array] there)
    s = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    exe = s.simple_bind(mx.cpu(), data=(3, 4), args_grad=[mx.nd.zeros((3, 4))], axis=1)
    assert exe.arg_dict["fc_weight"].shape == (2, 4)
