"""mx.contrib.svrg_optimization: SVRGModule and _SVRGOptimizer (MXNet 1.9.1's
contrib package), checked against the SVRG update written out in numpy."""
import numpy as np
import pytest

import mxc as mx
from mxc.contrib.svrg_optimization.svrg_module import SVRGModule
from mxc.contrib.svrg_optimization.svrg_optimizer import _SVRGOptimizer


def regression(n=40, batch=10, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.integers(1, 5, (n, 2))          # ints: NDArrayIter makes them float32
    y = x.dot([1.0, 2.0])
    it = mx.io.NDArrayIter(x, y, batch_size=batch, shuffle=False, label_name="lin_reg_label")
    fc = mx.sym.FullyConnected(mx.sym.var("data"), name="fc1", num_hidden=1)
    lro = mx.sym.LinearRegressionOutput(fc, mx.sym.var("lin_reg_label"), name="lro")
    return x.astype(np.float32), y.astype(np.float32), it, lro


def grads_at(w, b, x, y):
    """LinearRegressionOutput's gradient of a batch (summed, not averaged)."""
    r = x @ w.T + b - y[:, None]
    return r.T @ x, r.sum(0)


def test_full_gradient_and_variance_reduced_step():
    x, y, it, lro = regression()
    mod = SVRGModule(lro, data_names=["data"], label_names=["lin_reg_label"], update_freq=2)
    mod.bind(it.provide_data, it.provide_label)
    assert it.provide_data[0].dtype == np.float32
    mod.init_params(mx.init.One())
    mod.init_optimizer(kvstore=None, optimizer="sgd", optimizer_params={"learning_rate": 0.01})
    assert isinstance(mod._optimizer, _SVRGOptimizer)
    mod.update_full_grads(it)
    # mx.init.One: weights 1, biases 0 (MXNet initializes "bias" names to 0)
    w0, b0 = np.ones((1, 2), np.float32), np.zeros(1, np.float32)
    np.testing.assert_array_equal(mod.get_params()[0]["fc1_bias"].asnumpy(), b0)
    mu_w = sum(grads_at(w0, b0, x[i:i + 10], y[i:i + 10])[0] for i in range(0, 40, 10)) / 4
    np.testing.assert_allclose(mod._param_dict[0]["fc1_weight"].asnumpy(), mu_w, rtol=1e-5)
    # two steps: g(w) - g(w~) + mu, then SGD with rescale 1/batch
    w, b = w0.copy(), b0.copy()
    mu_b = sum(grads_at(w0, b0, x[i:i + 10], y[i:i + 10])[1] for i in range(0, 40, 10)) / 4
    it.reset()
    for k, batch in enumerate(it):
        if k == 2:
            break
        mod.forward_backward(batch)
        mod.update()
        xs, ys = x[10 * k:10 * k + 10], y[10 * k:10 * k + 10]
        gw, gb = grads_at(w, b, xs, ys)
        sw, sb = grads_at(w0, b0, xs, ys)
        w = w - 0.01 * (gw - sw + mu_w) / 10
        b = b - 0.01 * (gb - sb + mu_b) / 10
    arg, _ = mod.get_params()
    np.testing.assert_allclose(arg["fc1_weight"].asnumpy(), w, rtol=1e-5)
    np.testing.assert_allclose(arg["fc1_bias"].asnumpy(), b, rtol=1e-5)


def test_svrg_fit_is_the_svrg_loop_and_converges():
    # fit = a full gradient every update_freq epochs, then SVRG steps over the
    # batches: the same weights as that loop written out
    def train(use_fit):
        _, _, it, lro = regression(n=100)
        mod = SVRGModule(lro, data_names=["data"], label_names=["lin_reg_label"], update_freq=2)
        params = dict(optimizer="sgd", optimizer_params=(("learning_rate", 0.01),))
        if use_fit:
            mod.fit(it, eval_metric="mse", num_epoch=10, kvstore="local",
                    initializer=mx.init.One(), **params)
        else:
            mod.bind(it.provide_data, it.provide_label)
            mod.init_params(mx.init.One())
            mod.init_optimizer(kvstore="local", **params)
            for epoch in range(10):
                if epoch % 2 == 0:
                    mod.update_full_grads(it)
                it.reset()
                for batch in it:
                    mod.forward_backward(batch)
                    mod.update()
        return mod, it

    fitted, it = train(True)
    looped, _ = train(False)
    for k, v in fitted.get_params()[0].items():
        np.testing.assert_allclose(v.asnumpy(), looped.get_params()[0][k].asnumpy(), rtol=1e-6)
    start = SVRGModule(fitted.symbol, data_names=["data"], label_names=["lin_reg_label"],
                       update_freq=2)
    start.bind(it.provide_data, it.provide_label)
    start.init_params(mx.init.One())
    before = dict(start.score(it, "mse"))["mse"]
    after = dict(fitted.score(it, "mse"))["mse"]
    assert after < 0.1 * before, (before, after)


def test_optimizer_routes_full_keys_to_assignment():
    opt = _SVRGOptimizer(default_optimizer="sgd", learning_rate=1.0,
                         param_idx2name={0: "weight", 1: "weight_full"})
    kv = mx.kv.create("local")
    kv.set_optimizer(opt)
    w, full = mx.nd.array([0, 0, 0]), mx.nd.array([1, 1, 1])
    kv.init(0, w)
    kv.push(0, mx.nd.array([1, 1, 1]))
    kv.pull(0, w)
    kv.init(1, full)
    kv.push(1, mx.nd.array([2, 2, 2]))
    kv.pull(1, full)
    np.testing.assert_array_equal(w.asnumpy(), [-1, -1, -1])   # SGD
    np.testing.assert_array_equal(full.asnumpy(), [2, 2, 2])   # assigned
    assert _SVRGOptimizer(default_optimizer="sgd", learning_rate=-1.0).default_opt.lr == -1.0


def test_bad_update_freq():
    _, _, _, lro = regression()
    with pytest.raises(TypeError, match="update_freq"):
        SVRGModule(lro, label_names=["lin_reg_label"], update_freq=None)
    with pytest.raises(ValueError, match="positive integer"):
        SVRGModule(lro, label_names=["lin_reg_label"], update_freq=0)
