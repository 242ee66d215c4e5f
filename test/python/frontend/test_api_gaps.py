"""MXNet 1.9.1 Python API pieces that MXNet's own unit tests use (issue 15):
creation helpers, composed operators, in-place views, executor details,
symbol composition, mx.runtime. Expected values are numpy's / MXNet 1.9.1's
documented behaviour."""
import pickle
import threading

import numpy as np
import pytest

import mxc as mx


def test_linspace_eye():
    np.testing.assert_allclose(mx.nd.linspace(0, 1, 5).asnumpy(), np.linspace(0, 1, 5))
    np.testing.assert_allclose(mx.nd.linspace(0, 1, 4, endpoint=False).asnumpy(),
                               np.linspace(0, 1, 4, endpoint=False))
    a = mx.nd.linspace(0.5, 9.5, 7, dtype="int32")
    assert a.dtype == np.int32
    np.testing.assert_array_equal(a.asnumpy(), np.linspace(0.5, 9.5, 7).astype(np.int32))
    np.testing.assert_array_equal(mx.nd.eye(3, 4, 1).asnumpy(), np.eye(3, 4, 1))
    np.testing.assert_array_equal(mx.nd.eye(2).asnumpy(), np.eye(2))


def test_creation_out():
    out = mx.nd.zeros((2, 2))
    mx.nd.ones((2, 2), out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.ones((2, 2)))
    mx.nd.zeros((2, 2), out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.zeros((2, 2)))


def test_moveaxis():
    x = np.random.rand(2, 3, 4).astype(np.float32)
    for src, dst in [(0, 2), (2, 0), (-1, 0), ([0, 1], [2, 0])]:
        np.testing.assert_array_equal(mx.nd.moveaxis(mx.nd.array(x), src, dst).asnumpy(),
                                      np.moveaxis(x, src, dst))
    with pytest.raises(ValueError):
        mx.nd.moveaxis(mx.nd.array(x), 3, 0)


def test_choose_fill_onehot():
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    idx = np.array([0, 4, 2, 1])
    got = mx.nd.choose_element_0index(mx.nd.array(x), mx.nd.array(idx))
    np.testing.assert_array_equal(got.asnumpy(), x[np.arange(4), idx])
    val = np.array([-1, -2, -3, -4], dtype=np.float32)
    want = x.copy()
    want[np.arange(4), idx] = val
    got = mx.nd.fill_element_0index(mx.nd.array(x), mx.nd.array(val), mx.nd.array(idx))
    np.testing.assert_array_equal(got.asnumpy(), want)
    out = mx.nd.zeros((4, 5))
    mx.nd.onehot_encode(mx.nd.array(idx), out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.eye(5)[idx])
    # gradients come from the parts: d sum(choose(x)) / dx is the one-hot mask
    a = mx.nd.array(x)
    a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.choose_element_0index(a, mx.nd.array(idx))
    y.backward()
    np.testing.assert_array_equal(a.grad.asnumpy(), np.eye(5)[idx])


def test_slice_crop_and_assign():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    got = mx.nd.crop(mx.nd.array(x), begin=(0, 1, 1), end=(2, 3, 3))
    np.testing.assert_array_equal(got.asnumpy(), x[0:2, 1:3, 1:3])
    got = mx.nd.slice(mx.nd.array(x), begin=(1,), end=(2,))
    np.testing.assert_array_equal(got.asnumpy(), x[1:2])
    np.testing.assert_array_equal(mx.nd.array(x).slice(begin=(0, 0), end=(1, 2)).asnumpy(),
                                  x[0:1, 0:2])
    a = mx.nd.array(x)
    mx.nd._internal._crop_assign(a, mx.nd.zeros((2, 1, 3)), begin=(0, 0, 0), end=(2, 1, 3),
                                 out=a)
    want = x.copy()
    want[0:2, 0:1, 0:3] = 0
    np.testing.assert_array_equal(a.asnumpy(), want)
    b = mx.nd._internal._slice_assign_scalar(mx.nd.array(x), scalar=5, begin=(0, 0, 0),
                                             end=(1, 2, 2))
    want = x.copy()
    want[0:1, 0:2, 0:2] = 5
    np.testing.assert_array_equal(b.asnumpy(), want)
    # slice is also mx.nd's operator name: Python's slice still works inside mxc
    a[0:1] = 7
    assert (a.asnumpy()[0] == 7).all()


def test_argmin_and_contrib_checks():
    x = np.array([[3, 1, 2], [0, 5, -1]], dtype=np.float32)
    np.testing.assert_array_equal(mx.nd.argmin(mx.nd.array(x), axis=1).asnumpy(), [1, 2])
    np.testing.assert_array_equal(mx.nd.array(x).argmin(axis=0).asnumpy(), [1, 0, 1])
    v = mx.nd.array([1, np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(mx.nd.contrib.isnan(v).asnumpy(), [0, 0, 0, 1])
    np.testing.assert_array_equal(mx.nd.contrib.isinf(v).asnumpy(), [0, 1, 1, 0])
    np.testing.assert_array_equal(mx.nd.contrib.isfinite(v).asnumpy(), [1, 0, 0, 0])


def test_inplace_views():
    t = mx.nd.arange(30).reshape(2, 3, 5)
    ref = t.flatten(inplace=True)
    copy = t.flatten()
    t[0] = -1
    assert (ref.asnumpy()[0] == -1).all() and not (copy.asnumpy()[0] == -1).any()
    d = mx.nd.ones((2, 3))
    e = d.expand_dims(axis=1, inplace=True)
    assert e.shape == (2, 1, 3)
    d[0] = 5
    assert (e.asnumpy()[0] == 5).all()
    s = mx.nd.ones((2, 1, 3))
    q = s.squeeze(inplace=True)
    assert q.shape == (2, 3)
    s[1] = 4
    assert (q.asnumpy()[1] == 4).all()
    assert s.squeeze(axis=1).shape == (2, 3)


def test_slice_contiguity_helper():
    f = mx.nd.NDArray._basic_indexing_slice_is_contiguous
    shape = (4, 5, 6)
    x = np.zeros(shape)
    keys = [(slice(None),) * 3, (slice(1, 3), slice(None), slice(None)),
            (slice(None), slice(1, 2), slice(None)), (slice(None), slice(1, 3), slice(0, 2)),
            (slice(0, 1), slice(0, 1), slice(None, None, 2)), (slice(None, None, -1),) * 3,
            (slice(2, 3), slice(1, 4), slice(None))]
    for k in keys:
        assert f(k, shape) == x[k].flags.c_contiguous, k


def test_reshape_size_error_is_value_error():
    t = mx.nd.ones((2, 3, 5))
    with pytest.raises(ValueError):
        t.reshape((2, 3))
    with pytest.raises(mx.MXNetError):
        t.reshape((7, -1))


def test_setitem_broadcasts_region_value():
    b = mx.nd.zeros(1)
    b[0] = np.array([47.84], dtype=np.float32)
    assert b.asnumpy()[0] == np.float32(47.84)


def test_from_numpy_zero_copy():
    a = np.array([[1, 2], [3, 4], [5, 6]], dtype=np.float32)
    m = mx.nd.from_numpy(a)
    with pytest.raises(ValueError):
        a[0, 0] = 9        # read-only now, as MXNet
    m[2, 1] = 100
    assert a[2, 1] == 100
    m2 = mx.nd.from_numpy(a)  # shared again, though read-only
    m2[0, 0] = 7
    assert a[0, 0] == 7
    with pytest.raises(ValueError):
        mx.nd.from_numpy(np.ones((3, 2)).T)


def test_getstate_setstate():
    x = mx.nd.array(np.arange(6).reshape(2, 3))
    y = mx.nd.zeros(1)
    y.__setstate__(x.__getstate__())
    np.testing.assert_array_equal(y.asnumpy(), x.asnumpy())
    z = pickle.loads(pickle.dumps(x))
    np.testing.assert_array_equal(z.asnumpy(), x.asnumpy())


def test_shape_attribute_spellings():
    x = mx.nd.ones((1, 3))
    assert x.broadcast_to(shape=np.array([4, 3])).shape == (4, 3)
    assert mx.nd.ones((2, 3)).transpose(axes=(np.int64(1), np.int64(0))).shape == (3, 2)
    s = mx.sym.transpose(mx.sym.var("x"), axes=(np.int64(0),))
    assert s.infer_shape(x=(3,))[1] == [(3,)]


def test_executor_outputs_before_forward_and_backward_after_inference():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    exe = (x * y).bind(mx.cpu(), args=[mx.nd.array([1, 2]), mx.nd.array([3, 4])],
                       args_grad=[mx.nd.zeros(2), mx.nd.zeros(2)])
    assert [o.shape for o in exe.outputs] == [(2,)] and exe.outputs[0].dtype == np.float32
    exe.forward()
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), [3, 8])
    exe.backward([mx.nd.array([1, 10])])
    np.testing.assert_array_equal(exe.grad_arrays[0].asnumpy(), [3, 40])
    np.testing.assert_array_equal(exe.grad_arrays[1].asnumpy(), [1, 20])
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), [3, 8])


def test_executor_reshape_shares_memory():
    y = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=4)
    exe = y.simple_bind(mx.cpu(), x=(5, 4), grad_req="null")
    exe.arg_arrays[0][:] = 1
    exe.arg_arrays[1][:] = mx.nd.ones((4, 4))
    exe.arg_arrays[2][:] = 0
    small = exe.reshape(x=(3, 4))
    small.forward()
    assert (small.outputs[0].asnumpy() == 4).all()
    assert (exe.outputs[0].asnumpy()[:3] == 4).all()
    big = exe.reshape(allow_up_sizing=True, x=(6, 4))
    big.arg_arrays[0][:] = 0
    assert (exe.arg_arrays[0].asnumpy() == 1).all()
    assert (big.arg_arrays[1].asnumpy() == 1).all()


def test_symbol_compose():
    data = mx.sym.var("data")
    net1 = mx.sym.FullyConnected(data=data, name="fc1", num_hidden=3)
    net2 = mx.sym.FullyConnected(name="fc3", num_hidden=2)
    net2 = mx.sym.Activation(data=net2, act_type="relu", name="act")
    composed = net2(fc3_data=net1, name="composed")
    assert composed.list_arguments() == ["data", "fc1_weight", "fc1_bias",
                                         "fc3_weight", "fc3_bias"]
    assert composed.name == "composed"
    assert net2.list_arguments()[0] == "fc3_data"      # the original is unchanged
    assert len(mx.sym.Group([composed, net1]).list_outputs()) == 2
    # positional: in list_inputs order
    z = (mx.sym.var("a") + mx.sym.var("b"))(mx.sym.var("p"), mx.sym.var("q"))
    assert z.list_arguments() == ["p", "q"]
    with pytest.raises(mx.MXNetError):
        net2(nope=net1)


def test_infer_type_partial():
    data = mx.sym.var("data")
    f32 = mx.sym.Cast(data=data, dtype="float32")
    fc = mx.sym.FullyConnected(data=f32, name="fc1", num_hidden=4)
    arg, out, aux = fc.infer_type_partial()
    assert arg == [None, np.float32, np.float32] and out == [np.float32] and aux == []
    arg, out, _ = fc.infer_type(data=np.float16)
    assert arg == [np.float16, np.float32, np.float32] and out == [np.float32]


def test_random_seed_negative():
    mx.random.seed(-12345)
    a = mx.random.uniform(shape=(3,)).asnumpy()
    mx.random.seed(-12345)
    np.testing.assert_array_equal(a, mx.random.uniform(shape=(3,)).asnumpy())


def test_context_default_ctx():
    assert mx.Context.default_ctx == mx.cpu(0)
    seen = []

    def f():
        mx.Context._default_ctx.value = mx.cpu(3)
        seen.append(mx.Context.default_ctx)
    t = threading.Thread(target=f)
    t.start()
    t.join()
    assert seen == [mx.cpu(3)] and mx.Context.default_ctx == mx.cpu(0)
    old = mx.Context.default_ctx
    mx.Context.default_ctx = mx.cpu(2)
    try:
        assert mx.current_context() == mx.cpu(2)
    finally:
        mx.Context.default_ctx = old


def test_runtime_features():
    f = mx.runtime.Features()
    assert f is mx.runtime.Features()
    assert "CUDA" in f and len(f) >= 30
    # (the build's CUDA backend, as MXNet's build flag; NCCL is not there)
    assert f.is_enabled("cuda") == f.is_enabled("CUDNN") == mx._mxc.cuda_built()
    assert not f.is_enabled("NCCL")
    assert f.is_enabled("PROFILER")
    assert all(isinstance(x.enabled, bool) for x in mx.runtime.feature_list())
    with pytest.raises(RuntimeError):
        f.is_enabled("NOT_A_FEATURE")


def test_module_several_contexts_split_merge_and_update():
    sym = mx.sym.Activation(mx.sym.var("data"), act_type="relu", __layout__="TNC")
    mod = mx.mod.Module(sym, ("data",), None, context=[mx.cpu(0), mx.cpu(1)])
    with pytest.raises(TypeError):
        mod.bind(data_shapes=[("data", mx.nd.array([10, 10]))])
    mod.bind(data_shapes=[mx.io.DataDesc("data", (3, 8, 7), layout="TNC")])
    mod.init_params()
    x = np.random.randn(3, 8, 7).astype(np.float32)
    mod.forward(mx.io.DataBatch(data=[mx.nd.array(x)], label=None))
    mod.backward([mx.nd.ones((3, 8, 7))])
    np.testing.assert_array_equal(mod.get_outputs()[0].asnumpy(), np.maximum(x, 0))
    parts = mod.get_outputs(merge_multi_context=False)[0]
    assert [p.shape for p in parts] == [(3, 4, 7), (3, 4, 7)]

    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=4, name="fc")
    mod = mx.mod.Module(fc, ("data",), None, context=[mx.cpu(0), mx.cpu(1)])
    mod.bind(data_shapes=[("data", (7, 5))], inputs_need_grad=True)
    mod.init_params()
    mod.init_optimizer(optimizer_params={"learning_rate": 1})
    assert mod._exec_group.param_names == ["fc_weight", "fc_bias"]
    assert [s.stop - s.start for s in mod._exec_group.slices] == [4, 3]
    mod.forward(mx.io.DataBatch(data=[mx.nd.ones((7, 5))], label=None))
    mod.backward([mx.nd.ones((7, 4))])
    assert mod.get_input_grads()[0].shape == (7, 5)
    mod.update()
    # the devices' bias gradients (4 + 3 rows of ones) summed, rescaled by 1/7
    np.testing.assert_allclose(mod.get_params()[0]["fc_bias"].asnumpy(), -1, rtol=1e-6)


def test_base_module_fit_with_overridden_methods():
    mod = mx.mod.BaseModule()
    calls = []
    for name in ("bind", "init_params", "init_optimizer", "forward", "backward", "update",
                 "update_metric"):
        setattr(mod, name, lambda *a, _n=name, **k: calls.append(_n))
    mod.get_params = lambda: (None, None)

    class Data:
        provide_data = provide_label = None

        def __iter__(self):
            return iter([mx.io.DataBatch(data=None, label=None)] * 2)

        def reset(self):
            pass
    mod.fit(Data(), num_epoch=1)
    assert calls.count("update") == 2 and calls[0] == "bind"


def test_bucketing_module_shares_parameters_and_gradients():
    def sym_gen(key):
        w = mx.sym.var("a", shape=(1,), init=mx.init.One())
        return mx.sym.broadcast_mul(mx.sym.var("data"), w), ("data",), None

    for req, second in (("write", 2), ("add", 4)):
        mod = mx.mod.BucketingModule(sym_gen=sym_gen, default_bucket_key=10)
        mod.bind(data_shapes=[["data", (2,)]], for_training=True, grad_req=req)
        mod.init_params()
        for key in (10, 5):
            mod.forward(mx.io.DataBatch(data=[mx.nd.ones((2,))], label=None, bucket_key=key,
                                        provide_data=[mx.io.DataDesc("data", (2,))]))
            mod.backward([mx.nd.ones((2,))])
        assert sorted(mod._buckets) == [5, 10]
        g = mod._curr_module._exec_group.execs[0].grad_dict["a"].asscalar()
        assert g == second, (req, g)
        assert mod._buckets[5]._exec.arg_dict["a"] is mod._buckets[10]._exec.arg_dict["a"]


def test_bucketing_module_checkpoint_round_trip(tmp_path):
    # MXNet's layout: prefix-%04d.params, prefix-<key>-symbol.json per bucket,
    # prefix.buckets; load() gives a module that binds with those parameters.
    def sym_gen(key):
        fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
        return mx.sym.sum(fc * key, axis=1), ("data",), None

    def batch(key):
        x = mx.nd.array(np.arange(2 * 4).reshape(2, 4) / 7.0)
        return mx.io.DataBatch(data=[x], label=None, bucket_key=key,
                               provide_data=[mx.io.DataDesc("data", (2, 4))])

    mod = mx.mod.BucketingModule(sym_gen=sym_gen, default_bucket_key=2)
    mod.bind(data_shapes=[("data", (2, 4))], for_training=True)
    mod.init_params(mx.init.Uniform(0.5))
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1})
    for key in (2, 3):
        mod.forward_backward(batch(key))
        mod.update()
    prefix = str(tmp_path / "bk")
    mod.save_checkpoint(prefix, 1)
    for f in ("bk-0001.params", "bk-2-symbol.json", "bk-3-symbol.json", "bk.buckets"):
        assert (tmp_path / f).exists(), f
    assert sorted(mx.nd.load(prefix + ".buckets")[0].asnumpy().tolist()) == [2, 3]
    loaded = mx.mod.BucketingModule.load(prefix, 1, sym_gen=sym_gen, default_bucket_key=2)
    loaded.bind(data_shapes=[("data", (2, 4))], for_training=False)
    want, got = mod.get_params()[0], loaded.get_params()[0]
    assert sorted(want) == sorted(got)
    for k in want:
        np.testing.assert_array_equal(got[k].asnumpy(), want[k].asnumpy())
    for key in (2, 3):
        mod.forward(batch(key), is_train=False)
        loaded.forward(batch(key), is_train=False)
        np.testing.assert_allclose(loaded.get_outputs()[0].asnumpy(),
                                   mod.get_outputs()[0].asnumpy(), rtol=1e-6)
    with pytest.raises(mx.MXNetError, match="sym_gen is required"):
        mx.mod.BucketingModule.load(prefix, 1, default_bucket_key=2)


def test_optimizer_multi_precision_master_copy():
    w16 = mx.nd.array(np.full((4,), 1.0), dtype="float16")
    g16 = mx.nd.array(np.full((4,), 1e-4), dtype="float16")
    for cls, kw in ((mx.optimizer.SGD, {"momentum": 0.9}), (mx.optimizer.NAG, {"momentum": 0.9}),
                    (mx.optimizer.SGD, {}), (mx.optimizer.RMSProp, {})):
        opt = cls(learning_rate=0.1, multi_precision=True, **kw)
        w = w16.copy()
        st = opt.create_state_multi_precision(0, w)
        # MXNet's layouts: SGD / NAG (state, master), the others (master, state)
        assert isinstance(st, tuple) and len(st) == 2, cls
        master = st[1] if cls in (mx.optimizer.SGD, mx.optimizer.NAG) else st[0]
        assert master.dtype == np.float32
        np.testing.assert_array_equal(master.asnumpy(), w.asnumpy().astype(np.float32))
        for _ in range(3):
            opt.update_multi_precision(0, w, g16, st)
        assert master.dtype == np.float32 and w.dtype == np.float16
        np.testing.assert_array_equal(w.asnumpy(), master.asnumpy().astype(np.float16))
        assert (master.asnumpy() < 1).all()
    # without multi_precision: the state of the weight itself
    st = mx.optimizer.SGD(momentum=0.9).create_state_multi_precision(0, w16)
    assert isinstance(st, mx.nd.NDArray) and st.dtype == np.float16


def test_autograd_function_and_fresh_grad():
    class Scale(mx.autograd.Function):
        def forward(self, x, y):
            self.save_for_backward(x, y)
            return x / y, x * y

        def backward(self, dm, dn):
            x, y = self.saved_tensors
            return dm / y + dn * y, dn * x - dm * x / y / y

    x = mx.nd.array([1.0, 2.0, 3.0])
    y = mx.nd.array([2.0, 4.0, 0.5])
    x.attach_grad()
    y.attach_grad()
    with mx.autograd.record():
        m, n = Scale()(x, y)
        z = m * 3 + n          # operators after the Function
    z.backward()
    xv, yv = x.asnumpy(), y.asnumpy()
    np.testing.assert_allclose(x.grad.asnumpy(), 3 / yv + yv, rtol=1e-6)
    np.testing.assert_allclose(y.grad.asnumpy(), xv - 3 * xv / yv ** 2, rtol=1e-6)
    assert x._fresh_grad and y._fresh_grad
    # a Function between recorded operators, and a leaf also used directly
    with mx.autograd.record():
        a = x * 2
        m, n = Scale()(a, y)
        z = m + n + x
    z.backward()
    av = 2 * xv
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * (1 / yv + yv) + 1, rtol=1e-6)
    np.testing.assert_allclose(y.grad.asnumpy(), av - av / yv ** 2, rtol=1e-6)
    f = Scale()
    f(x, y)
    with pytest.raises(mx.MXNetError):
        f(x, y)
    x._fresh_grad = False
    assert not x._fresh_grad


def test_mark_variables_fresh_and_get_symbol():
    x, dx = mx.nd.ones((2,)), mx.nd.zeros((2,))
    mx.autograd.mark_variables([x], [dx])
    assert x._fresh_grad is False
    with mx.autograd.record():
        y = x * x + 2 * x - 1
    s = mx.autograd.get_symbol(y)
    assert len(s.list_arguments()) == 1
    np.testing.assert_allclose(s.eval(var0=mx.nd.array([3, 4]))[0].asnumpy(), [14, 23])
    y.backward()
    assert x._fresh_grad and (dx.asnumpy() == 4).all()


def test_contrib_autograd():
    from mxc.contrib import autograd as cag
    f = cag.grad_and_loss(lambda a, b: a * b + a, argnum=[0])
    grads, loss = f(mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 5.0]))
    np.testing.assert_array_equal(grads[0].asnumpy(), [4, 6])
    np.testing.assert_array_equal(loss.asnumpy(), [4, 12])
    g = cag.grad(lambda a: a * a)(mx.nd.array([3.0]))
    np.testing.assert_array_equal(g[0].asnumpy(), [6])
    assert not mx.autograd.is_recording()
    with cag.train_section():
        assert mx.autograd.is_recording() and mx.autograd.is_training()
        with cag.test_section():
            assert not mx.autograd.is_recording()
        assert mx.autograd.is_recording()
    assert not mx.autograd.is_training()


def test_profiler_objects(tmp_path):
    import json
    path = str(tmp_path / "trace.json")
    mx.profiler.set_config(profile_all=True, filename=path)
    mx.profiler.set_state("run")
    try:
        dom = mx.profiler.Domain("PyDomain")
        task = dom.new_task("mytask")
        task.start()
        (mx.nd.ones((10, 10)) + 1).wait_to_read()
        task.stop()
        ev = mx.profiler.Event("myevent")
        ev.start()
        ev.stop()
        c = mx.profiler.Counter(dom, "mycounter", 5)
        c += 2
        c -= 1
        assert str(c) == "mycounter: 6"
        mx.profiler.Marker(dom, "mark").mark("process")
        mx.profiler.pause()
        t2 = mx.profiler.Task(dom, "paused_task")
        t2.start()
        t2.stop()
        mx.profiler.resume()
        stats = json.loads(mx.profiler.dumps(format="json"))
        assert "Memory" in stats and stats["Time"]["PyDomain"]["mytask"]["Count"] == 1
        assert "paused_task" not in stats["Time"]["PyDomain"]
        assert stats["Time"]["event"]["myevent"]["Count"] == 1
        assert "PyDomain" in mx.profiler.dumps()
        mx.profiler.dump(finished=False)
        with open(path) as f:
            events = json.load(f)["traceEvents"]
        names = {(e.get("name"), e.get("ph")) for e in events}
        assert {("mytask", "X"), ("myevent", "X"), ("mycounter", "C"), ("mark", "i")} <= names
        with pytest.raises(mx.MXNetError):
            mx.profiler.Marker(dom, "m").mark("nowhere")
    finally:
        mx.profiler.set_state("stop")
        mx.profiler.dump(finished=True)   # the objects' events go with the trace
        mx.profiler.dumps(reset=True)


def test_engine_bulk_and_prelu_gamma_init():
    assert mx.engine.set_bulk_size(7) == 0
    with mx.engine.bulk(10):
        assert mx.engine.set_bulk_size(10) == 10
        x = mx.nd.ones((3,))
        x += 1
    assert mx.engine.set_bulk_size(0) == 7
    assert (x.asnumpy() == 2).all()
    sym = mx.sym.LeakyReLU(data=mx.sym.var("data"), act_type="prelu", name="p")
    mod = mx.mod.Module(sym, label_names=None)
    mod.bind(data_shapes=[("data", (4, 5))])
    mod.init_params()
    assert (mod.get_params()[0]["p_gamma"].asnumpy() == 0.25).all()


def test_cached_op():
    sym = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=3, name="fc") * 2
    op = mx.nd.CachedOp(sym)
    x = mx.nd.array(np.arange(8).reshape(2, 4))
    w = mx.nd.ones((3, 4))
    b = mx.nd.zeros((3,))
    want = 2 * (x.asnumpy() @ w.asnumpy().T)
    np.testing.assert_allclose(op(x, w, b).asnumpy(), want)
    out = mx.nd.zeros((2, 3))
    op(x, w, b + 1, out=out)
    np.testing.assert_allclose(out.asnumpy(), want + 2)
    w.attach_grad()
    with mx.autograd.record():
        y = op(x, w, b)
    y.backward()
    np.testing.assert_allclose(w.grad.asnumpy(), 2 * np.tile(x.asnumpy().sum(0), (3, 1)))


def test_symbol_split():
    x = mx.sym.var("x")
    parts = mx.sym.SliceChannel(x, num_outputs=3, name="s")
    assert len(parts) == 3 and len(list(parts)) == 3
    a = np.random.rand(2, 6, 4).astype(np.float32)
    outs = parts.eval(x=mx.nd.array(a))
    for o, want in zip(outs, np.split(a, 3, axis=1)):
        np.testing.assert_array_equal(o.asnumpy(), want)
    sq = mx.sym.split(x, num_outputs=4, axis=2, squeeze_axis=True)
    assert sq.infer_shape(x=(2, 6, 4))[1] == [(2, 6)] * 4
    np.testing.assert_array_equal(sq.eval(x=mx.nd.array(a))[3].asnumpy(), a[:, :, 3])
    # gradients through the parts
    exe = mx.sym.Group([p * (i + 1) for i, p in enumerate(parts)]).simple_bind(
        mx.cpu(), x=(2, 6, 4))
    exe.forward(is_train=True, x=mx.nd.array(a))
    exe.backward([mx.nd.ones((2, 2, 4))] * 3)
    np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy()[0, :, 0], [1, 1, 2, 2, 3, 3])


def test_rnn_cells_unroll_and_run():
    for cell, n_out in ((mx.rnn.RNNCell(8, prefix="rnn_"), 8),
                        (mx.rnn.LSTMCell(8, prefix="rnn_"), 8),
                        (mx.rnn.GRUCell(8, prefix="rnn_"), 8),
                        (mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(4, prefix="l_"),
                                                  mx.rnn.LSTMCell(4, prefix="r_"),
                                                  output_prefix="rnn_bi_"), 8)):
        inputs = [mx.sym.var("rnn_t%d_data" % i) for i in range(3)]
        outputs, states = cell.unroll(3, inputs)
        g = mx.sym.Group(outputs)
        _, outs, _ = g.infer_shape(**{"rnn_t%d_data" % i: (5, 6) for i in range(3)})
        assert outs == [(5, n_out)] * 3
    assert g.list_outputs() == ["rnn_bi_t0_output", "rnn_bi_t1_output", "rnn_bi_t2_output"]
    # an LSTM step against numpy (zero begin state, given weights)
    cell = mx.rnn.LSTMCell(3, prefix="c_")
    out, _ = cell.unroll(1, [mx.sym.var("x")])
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4)).astype(np.float32)
    wi = rng.standard_normal((12, 4)).astype(np.float32)
    bi = rng.standard_normal(12).astype(np.float32)
    got = out[0].eval(x=mx.nd.array(x), c_i2h_weight=mx.nd.array(wi), c_i2h_bias=mx.nd.array(bi),
                      c_h2h_weight=mx.nd.zeros((12, 3)), c_h2h_bias=mx.nd.zeros(12))[0]
    g = x @ wi.T + bi
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    c = sig(g[:, :3]) * np.tanh(g[:, 6:9])
    np.testing.assert_allclose(got.asnumpy(), sig(g[:, 9:]) * np.tanh(c), rtol=1e-5, atol=1e-6)
    # FusedRNNCell: unfuse, and its parameter vector packs / unpacks
    fused = mx.rnn.FusedRNNCell(4, num_layers=2, mode="gru", prefix="f_")
    size = (6 + 4 + 2) * 4 * 3 + (4 + 4 + 2) * 4 * 3   # input 6, hidden 4, 3 gates, 2 layers
    args = fused.unpack_weights({"f_parameters": mx.nd.array(np.arange(size, dtype=np.float32))})
    assert args["f_l0_i2h_r_weight"].shape == (4, 6) and args["f_l1_i2h_z_weight"].shape == (4, 4)
    assert (fused.pack_weights(args)["f_parameters"].asnumpy() == np.arange(size)).all()
    stack = fused.unfuse()
    outs, _ = stack.unroll(2, [mx.sym.var("a"), mx.sym.var("b")])
    assert mx.sym.Group(outs).infer_shape(a=(3, 6), b=(3, 6))[1] == [(3, 4)] * 2
    # unroll through the RNN operator equals the unfused stack (MXNet's
    # check_rnn_consistency): same weights through pack / unpack
    data = mx.sym.var("data")
    y_fused, _ = fused.unroll(3, data, layout="NTC", merge_outputs=True)
    y_stack, _ = stack.unroll(3, data, layout="NTC", merge_outputs=True)
    x = np.random.RandomState(2).uniform(-1, 1, (2, 3, 6)).astype(np.float32)
    packed = {"f_parameters": mx.nd.array(
        np.random.RandomState(3).uniform(-0.5, 0.5, size).astype(np.float32))}
    results = []
    unpacked = stack.pack_weights(fused.unpack_weights(packed))
    for y, args in ((y_fused, packed), (y_stack, unpacked)):
        exe = y.simple_bind(mx.cpu(), data=x.shape, grad_req="null")
        assert sorted(args) == sorted(k for k in exe.arg_dict if k != "data")
        exe.copy_params_from(args)
        results.append(exe.forward(data=mx.nd.array(x))[0].asnumpy())
    assert results[0].shape == (2, 3, 4)
    np.testing.assert_allclose(results[0], results[1], rtol=1e-5, atol=1e-6)
    res, vocab = mx.rnn.encode_sentences([["a", "b"], ["b", "z"]], vocab={"a": 1, "b": 2},
                                         unknown_token="UNK", start_label=0)
    assert res == [[1, 2], [2, 0]] and vocab["UNK"] == 0


def test_broadcast_like_int_rounding_zero_d():
    a = mx.nd.array([[1.0], [2.0]])
    assert a.broadcast_like(mx.nd.ones((2, 3))).shape == (2, 3)
    got = mx.nd.broadcast_like(mx.nd.ones((1, 2, 1, 3)), mx.nd.ones((5, 6, 7, 8)),
                               lhs_axes=(0, 2), rhs_axes=(1, 3))
    assert got.shape == (6, 2, 8, 3)
    with pytest.raises(mx.MXNetError):
        mx.nd.broadcast_like(a, a, lhs_axes=(), rhs_axes=())
    big = mx.nd.array([50000001], dtype="int32")
    for f in ("floor", "ceil", "round", "rint", "fix", "trunc"):
        r = getattr(big, f)()
        assert r.dtype == np.int32 and r.asnumpy()[0] == 50000001
        assert getattr(mx.nd, f)(big).asnumpy()[0] == 50000001
    np.testing.assert_array_equal(mx.nd.floor(mx.nd.array([1.5, -1.5])).asnumpy(), [1, -2])
    z = mx.nd.array(np.ones(()))
    assert z.shape == () and z.asscalar() == 1
    assert mx.nd.array(3.5).shape == ()


def test_random_samplers_and_multinomial():
    mx.random.seed(3)
    # mx.nd.random.exponential takes the scale (MXNet's Python function),
    # the operator (random_exponential, sample_exponential) the rate lam
    a = mx.nd.random.exponential(2.0, shape=(20000,)).asnumpy()
    assert abs(a.mean() - 2.0) < 0.08 and (a >= 0).all()
    a = mx.nd.random_exponential(lam=2.0, shape=(20000,)).asnumpy()
    assert abs(a.mean() - 0.5) < 0.02 and (a >= 0).all()
    a = mx.nd.sample_exponential(mx.nd.array([2.0, 0.5]), shape=(20000,)).asnumpy()
    assert a.shape == (2, 20000) and abs(a.mean(axis=1) - [0.5, 2.0]).max() < 0.08
    s = mx.nd.sample_normal(mu=mx.nd.array([10.0]), sigma=mx.nd.array([0.5]))
    assert s.shape == (1,) and abs(float(s.asnumpy()[0]) - 10) < 3
    g = mx.nd.random.gamma(2.0, 3.0, shape=(20000,)).asnumpy()
    assert abs(g.mean() - 6.0) < 0.2
    p = mx.nd.random.poisson(4.0, shape=(20000,)).asnumpy()
    assert abs(p.mean() - 4.0) < 0.1 and p.dtype == np.float32
    nb = mx.nd.random.negative_binomial(3, 0.5, shape=(20000,)).asnumpy()
    assert abs(nb.mean() - 3.0) < 0.15
    gnb = mx.nd.random.generalized_negative_binomial(2.0, 0.5, shape=(20000,)).asnumpy()
    assert abs(gnb.mean() - 2.0) < 0.1 and abs(gnb.var() - (2 + 0.5 * 4)) < 0.4
    lam = mx.nd.array([1.0, 10.0])
    assert mx.nd.random.exponential(lam, shape=(3,)).shape == (2, 3)
    x = mx.nd.array([[0.0, 0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1, 0.0]])
    dx = mx.nd.zeros_like(x)
    mx.autograd.mark_variables([x], [dx])
    with mx.autograd.record():
        y, logp = mx.nd.random.multinomial(x, shape=5000, get_prob=True, dtype="float32")
    logp.backward()
    yv = y.asnumpy().astype(int)
    assert y.shape == (2, 5000) and y.dtype == np.float32
    assert (yv[0] != 0).all() and (yv[1] != 4).all()
    freq = np.bincount(yv[0], minlength=5) / 5000.0
    np.testing.assert_allclose(freq, x.asnumpy()[0], atol=0.03)
    np.testing.assert_allclose(logp.asnumpy()[0], np.log(x.asnumpy()[0][yv[0]]), rtol=1e-5)
    want = np.bincount(yv[0], minlength=5) / np.maximum(x.asnumpy()[0], 1e-30)
    np.testing.assert_allclose(dx.asnumpy()[0][1:], want[1:], rtol=1e-4)
    with pytest.raises(mx.MXNetError):
        mx.nd.random.multinomial(mx.nd.zeros(300), dtype="uint8")
    mx.random.seed(5)
    s1 = mx.nd.random.multinomial(mx.nd.array([0.2, 0.8]), shape=50).asnumpy()
    mx.random.seed(5)
    assert (s1 == mx.nd.random.multinomial(mx.nd.array([0.2, 0.8]), shape=50).asnumpy()).all()


def test_common_expr_elimination(monkeypatch):
    a, b = mx.sym.var("a"), mx.sym.var("b")
    for sym, saved in (((a + b) + (a + b), 1), ((a + 1) + (a + 2), 0),
                       (mx.sym.Group([a * b + b, a * b + b]), 1),
                       (mx.sym.Dropout(a) + mx.sym.Dropout(a), 0)):
        shapes = {n: (2, 3) for n in sym.list_inputs()}
        monkeypatch.setenv("MXNET_ELIMINATE_COMMON_EXPR", "0")
        plain = sym.simple_bind(mx.cpu(), **shapes)
        monkeypatch.setenv("MXNET_ELIMINATE_COMMON_EXPR", "1")
        cse = sym.simple_bind(mx.cpu(), **shapes)
        n0 = len(plain.get_optimized_symbol().get_internals())
        n1 = len(cse.get_optimized_symbol().get_internals())
        assert n0 - n1 == saved, (sym, n0, n1)
        vals = {n: mx.nd.array(np.random.rand(2, 3)) for n in shapes}
        if saved:
            for o0, o1 in zip(plain.forward(is_train=True, **vals),
                              cse.forward(is_train=True, **vals)):
                np.testing.assert_allclose(o0.asnumpy(), o1.asnumpy(), rtol=1e-6)
            plain.backward([mx.nd.ones((2, 3))] * len(plain.outputs))
            cse.backward([mx.nd.ones((2, 3))] * len(cse.outputs))
            for g0, g1 in zip(plain.grad_arrays, cse.grad_arrays):
                np.testing.assert_allclose(g0.asnumpy(), g1.asnumpy(), rtol=1e-6)


def test_executor_monitor_callback():
    data = mx.sym.Variable("data", shape=(2, 3, 4, 4))
    conv = mx.sym.Convolution(data, kernel=(2, 2), num_filter=1, name="conv")
    exe = conv.simple_bind(mx.cpu(), grad_req="null")
    exe.arg_dict["data"][:] = 1
    exe.arg_dict["conv_weight"][:] = 1
    seen = []
    exe.set_monitor_callback(lambda name, arr: seen.append((name, arr)), monitor_all=True)
    exe.forward()
    assert [n for n, _ in seen] == ["data", "conv_data", "conv_weight", "conv_weight",
                                    "conv_bias", "conv_bias", "conv_output"]
    np.testing.assert_array_equal(seen[-1][1].asnumpy(), exe.outputs[0].asnumpy())
    seen.clear()
    exe.set_monitor_callback(lambda name, arr: seen.append(name))
    exe.forward(is_train=True)
    exe.backward(out_grads=mx.nd.ones((2, 1, 3, 3)))
    assert seen == ["conv_output"]
    cc = mx.sym.concat(data, data, dim=0, name="concat").simple_bind(mx.cpu(), grad_req="null")
    seen.clear()
    cc.set_monitor_callback(lambda name, arr: seen.append(name), monitor_all=True)
    cc.forward()
    assert seen == ["data", "concat_arg0", "data", "concat_arg1", "concat_output"]


def test_symbol_add_n():
    x, y, z = [mx.sym.var(n) for n in "xyz"]
    s = mx.sym.ElementWiseSum(x, y, z, name="esum")
    assert s.list_outputs() == ["esum_output"] and s.list_arguments() == ["x", "y", "z"]
    vals = {n: mx.nd.array(np.random.rand(3)) for n in "xyz"}
    np.testing.assert_allclose(s.eval(**vals)[0].asnumpy(),
                               sum(v.asnumpy() for v in vals.values()), rtol=1e-6)
    assert mx.sym.add_n([x]).eval(x=vals["x"])[0].shape == (3,)


def test_none_input_positionally():
    x, w = mx.sym.var("x"), mx.sym.var("w")
    conv = mx.sym.Convolution(x, w, None, num_filter=2, kernel=(3, 3), no_bias=True, name="c")
    assert conv.list_arguments() == ["x", "w"]
    assert mx.sym.Convolution(x, w, None, num_filter=2, kernel=(3, 3),
                              name="d").list_arguments() == ["x", "w", "d_bias"]
    y = mx.nd.FullyConnected(mx.nd.ones((2, 3)), mx.nd.ones((4, 3)), None, num_hidden=4,
                             no_bias=True)
    np.testing.assert_array_equal(y.asnumpy(), np.full((2, 4), 3.0))
    np.testing.assert_array_equal(mx.nd.clip(mx.nd.array([-2, 2]), -1, 1).asnumpy(), [-1, 1])


def test_stack():
    a = [np.random.rand(2, 3).astype(np.float32) for _ in range(3)]
    for ax in (0, 1, 2, -1, -3):
        s = mx.sym.stack(*[mx.sym.var("x%d" % i) for i in range(3)], axis=ax, name="st")
        assert s.list_outputs() == ["st_output"]
        got = s.eval(**{"x%d" % i: mx.nd.array(v) for i, v in enumerate(a)})[0]
        np.testing.assert_array_equal(got.asnumpy(), np.stack(a, axis=ax))
        np.testing.assert_array_equal(mx.nd.stack(*[mx.nd.array(v) for v in a], axis=ax).asnumpy(),
                                      np.stack(a, axis=ax))


def test_make_loss():
    x = mx.sym.var("x")
    for g in (1.0, 0.5, 3.0):
        loss = mx.sym.make_loss(x * x, grad_scale=g)
        assert loss.list_outputs() == ["makeloss%s_output" % loss.name[len("makeloss"):]]
        exe = loss.simple_bind(mx.cpu(), x=(3,))
        exe.forward(is_train=True, x=mx.nd.array([1, 2, 3]))
        exe.backward()
        np.testing.assert_allclose(exe.outputs[0].asnumpy(), [1, 4, 9])
        np.testing.assert_allclose(exe.grad_dict["x"].asnumpy(), g * np.array([2, 4, 6]))
    a = mx.nd.array([1.0, -2.0])
    a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.make_loss(a * 3, grad_scale=2.0)
    y.backward()
    np.testing.assert_allclose(y.asnumpy(), [3, -6])
    np.testing.assert_allclose(a.grad.asnumpy(), [6, 6])
    with pytest.raises(mx.MXNetError):
        mx.sym.make_loss(x, normalization="batch")


def test_cast_storage():
    a = mx.nd.array([[1, 2], [3, 4]])
    b = mx.nd.cast_storage(a, stype="default")
    assert b is not a and b.stype == "default"
    np.testing.assert_array_equal(b.asnumpy(), a.asnumpy())
    with pytest.raises(mx.MXNetError, match="sparse storage"):
        mx.nd.cast_storage(a, stype="csr")


def test_softmin_logical_not_bind_extra_args():
    x = np.random.rand(2, 3).astype(np.float32)
    e = np.exp(-x)
    np.testing.assert_allclose(mx.nd.softmin(mx.nd.array(x)).asnumpy(),
                               e / e.sum(-1, keepdims=True), rtol=1e-5)
    s = mx.sym.softmin(mx.sym.var("x"), axis=0)
    np.testing.assert_allclose(s.eval(x=mx.nd.array(x))[0].asnumpy(),
                               e / e.sum(0, keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(mx.nd.logical_not(mx.nd.array([0, 2, -1])).asnumpy(), [1, 0, 0])
    y = mx.sym.var("y") * 2
    exe = y.bind(mx.cpu(), args={"y": mx.nd.ones(2), "unused": mx.nd.ones(3)})  # ignored, as MXNet
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), [2, 2])
    with pytest.raises(mx.MXNetError):
        y.bind(mx.cpu(), args={"unused": mx.nd.ones(3)})


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_repeat_against_numpy(axis):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = mx.nd.array(a)
    np.testing.assert_array_equal(mx.nd.repeat(x, 2, axis=axis).asnumpy(), np.repeat(a, 2, axis=axis))
    np.testing.assert_array_equal(x.repeat(repeats=3, axis=axis).asnumpy(),
                                  np.repeat(a, 3, axis=axis))
    assert mx.nd.repeat(x, 0, axis=axis).shape == np.repeat(a, 0, axis=axis).shape
    with pytest.raises(mx.MXNetError):
        mx.nd.repeat(x, 2, axis=2)


@pytest.mark.parametrize("reps", [(2,), (2, 2), (3, 1, 2), 2, (1,), (0, 2)], ids=str)
def test_tile_against_numpy(reps):
    # (a 0 rep is MXNet's unknown extent outside mx.np_shape(): see
    # test_tile_refuses_negative_and_unknown_reps)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    with mx.np_shape(0 in np.atleast_1d(reps)):
        got = mx.nd.tile(mx.nd.array(a), reps=reps).asnumpy()
    assert got.shape == np.tile(a, reps).shape
    np.testing.assert_array_equal(got, np.tile(a, reps))


def test_tile_and_repeat_gradients():
    # composed of expand_dims / Reshape / broadcast_to: each copy adds its
    # head gradient back into the element it came from
    x = mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    x.attach_grad()
    with mx.autograd.record():
        y = (mx.nd.tile(x, reps=(2, 1)) * 3).sum() + mx.nd.repeat(x, 2, axis=0).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), np.full((2, 3), 8.0))


def test_ndarray_iter_reads_longer_labels_for_the_data_samples():
    # As MXNet's NDArrayIter: the first data array sets the sample count
    # (MXNet's test_sample_weight_loss passes 20 labels with 10 samples).
    it = mx.io.NDArrayIter(np.arange(10, dtype=np.float32).reshape(10, 1),
                           {"label": np.arange(20), "w": np.arange(20)}, batch_size=4)
    batches = list(it)
    assert len(batches) == 3
    np.testing.assert_array_equal(batches[2].label[0].asnumpy(), [8, 9, 0, 1])
    np.testing.assert_array_equal(batches[2].label[1].asnumpy(), [8, 9, 0, 1])
    with pytest.raises(mx.MXNetError, match="has 5 samples"):
        mx.io.NDArrayIter(np.zeros((10, 1)), np.arange(5), batch_size=4)


def test_reset_arrays():
    arrays = [mx.nd.array(np.random.rand(2, 3), dtype=t) for t in ("float16", "float32", "float64")]
    mx.nd.reset_arrays(*arrays, num_arrays=len(arrays))
    for a, t in zip(arrays, ("float16", "float32", "float64")):
        assert a.dtype == np.dtype(t) and not a.asnumpy().any()
    with pytest.raises(mx.MXNetError, match="num_arrays"):
        mx.nd.reset_arrays(arrays[0], num_arrays=2)


def test_executor_forward_leaves_gradients_alone():
    """As MXNet's: forward(is_train=True) never writes grad_arrays (a
    check_numeric_gradient runs forwards after the backward it compares);
    backward() publishes the step's gradients, grad_arrays keep their
    identity, and pending readers of the old values see them."""
    x = mx.sym.var("x")
    w = mx.sym.var("w")
    y = mx.sym.FullyConnected(x, w, num_hidden=3, no_bias=True, name="fc")
    exe = y.simple_bind(mx.cpu(), x=(2, 4), w=(3, 4))
    xv, wv = np.random.rand(2, 4).astype(np.float32), np.random.rand(3, 4).astype(np.float32)
    exe.arg_dict["x"][:] = xv
    exe.arg_dict["w"][:] = wv
    gw = exe.grad_dict["w"]
    exe.forward(is_train=True)
    assert not gw.asnumpy().any()           # untouched by forward
    exe.backward()
    np.testing.assert_allclose(gw.asnumpy(), np.ones((2, 3)).T @ xv, rtol=1e-6)
    assert exe.grad_dict["w"] is gw
    kept = gw * 1                           # a pushed reader of this step's gradient
    head = np.random.rand(2, 3).astype(np.float32)
    exe.forward(is_train=True)
    exe.backward(mx.nd.array(head))
    want = head.T @ xv
    np.testing.assert_allclose(gw.asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(kept.asnumpy(), np.ones((2, 3)).T @ xv, rtol=1e-6)
    for _ in range(3):                      # forwards alone leave it as it is
        exe.arg_dict["x"][:] = np.random.rand(2, 4)
        exe.forward(is_train=True)
    np.testing.assert_allclose(gw.asnumpy(), want, rtol=1e-6)
    exe.backward()                          # now the last forward's
    np.testing.assert_allclose(gw.asnumpy(),
                               np.ones((2, 3)).T @ exe.arg_dict["x"].asnumpy(), rtol=1e-5)


def test_backward_ignores_out_grads_it_does_not_read():
    # MXNet's backward copies an out_grad only where a gradient flows back
    # from that output: argmax / shape_array take any shape, sum does not.
    a = mx.sym.Variable("a")
    x = np.random.rand(2, 3)
    for s in (mx.sym.argmax(a, axis=1, keepdims=True), mx.sym.shape_array(a)):
        e = s.simple_bind(mx.cpu(), a=(2, 3))
        e.forward(is_train=True, a=x)
        e.backward([mx.nd.ones((2, 3))])
        assert (e.grad_dict["a"].asnumpy() == 0).all()
    e = mx.sym.sum(a, axis=1, keepdims=True).simple_bind(mx.cpu(), a=(2, 3))
    e.forward(is_train=True, a=x)
    with pytest.raises(mx.base.MXNetError, match=r"out_grads\[0\] has shape \(2, 3\), the output \(2, 1\)"):
        e.backward([mx.nd.ones((2, 3))])


def test_viz_print_summary(capsys):
    data = mx.sym.Variable("data")
    conv = mx.sym.Convolution(data, name="conv1", num_filter=4, kernel=(3, 3))
    fc = mx.sym.FullyConnected(mx.sym.Activation(conv, act_type="relu", name="relu1"),
                               name="fc1", num_hidden=5)
    mx.viz.print_summary(fc)
    mx.viz.print_summary(fc, shape={"data": (2, 3, 8, 8)})
    out = capsys.readouterr().out
    assert "conv1(Convolution)" in out and "relu1(Activation)" in out
    # conv1: 4*3*3*3 + 4, fc1: 5*(4*6*6) + 5
    assert "Total params: %d" % (4 * 27 + 4 + 5 * 144 + 5) in out
    assert "(2, 5)" in out
    with pytest.raises(TypeError):
        mx.viz.print_summary("not a symbol")


def test_creation_refuses_unknown_shapes_outside_np_shape():
    # MXNet's legacy shape semantics read () and a 0 extent as unknown
    for bad in [(), (2, 0)]:
        with pytest.raises(mx.MXNetError, match="mx.np_shape"):
            mx.nd.zeros(bad)
        with pytest.raises(mx.MXNetError):
            mx.nd.ones(bad)
    with mx.np_shape(True):
        assert mx.nd.zeros(()).shape == ()
        assert mx.nd.ones((2, 0)).shape == (2, 0)


def test_save_load_follows_the_shape_semantics(tmp_path):
    # MXNet's NDArray::Save / Load: V3 records under mx.np_shape() (a () is
    # a scalar), and a load only in the semantics the file was saved in
    f = str(tmp_path / "arrays")
    with mx.np_shape(True):
        mx.nd.save(f, [mx.nd.array(np.array(3.0)), mx.nd.array(np.zeros((2, 0)))])
        back = mx.nd.load(f)
        assert [a.shape for a in back] == [(), (2, 0)] and back[0].asscalar() == 3.0
    with pytest.raises(mx.MXNetError, match="saved in np shape semantics"):
        mx.nd.load(f)
    mx.nd.save(f, [mx.nd.ones((2, 3))])
    assert mx.nd.load(f)[0].shape == (2, 3)
    with mx.np_shape(True):
        with pytest.raises(mx.MXNetError, match="not saved in np shape semantics"):
            mx.nd.load(f)


def test_tile_refuses_negative_and_unknown_reps():
    x = mx.nd.arange(16).reshape((4, 4))
    for reps in [(1, 2, -3), (1, 0, 3)]:
        with pytest.raises(mx.MXNetError, match="tile: reps"):
            mx.nd.tile(x, reps)
    with mx.np_shape(True):
        assert mx.nd.tile(x, (1, 0)).shape == (4, 0)


def test_sync_batch_norm_on_one_device():
    # MXNet's contrib.SyncBatchNorm on one device: BatchNorm over axis 1,
    # with the batch variance (not 1 / sqrt(var + eps)) as its third output;
    # training updates the moving statistics as BatchNorm does
    rng = np.random.default_rng(7)
    x = rng.uniform(-1, 2, (4, 3, 5)).astype(np.float32)
    g, b = rng.uniform(0.5, 1.5, 3).astype(np.float32), rng.uniform(-1, 1, 3).astype(np.float32)
    mm, mv = mx.nd.zeros(3), mx.nd.ones(3)
    data = mx.nd.array(x)
    data.attach_grad()
    with mx.autograd.record():
        y, mean, var = mx.nd.contrib.SyncBatchNorm(
            data, mx.nd.array(g), mx.nd.array(b), mm, mv, eps=1e-5, fix_gamma=False,
            output_mean_var=True, key="bn0")
    y.backward(mx.nd.ones(y.shape))
    m, v = x.mean(axis=(0, 2)), x.var(axis=(0, 2))
    expect = (x - m[None, :, None]) / np.sqrt(v[None, :, None] + 1e-5) * g[None, :, None] \
        + b[None, :, None]
    np.testing.assert_allclose(y.asnumpy(), expect, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mean.asnumpy(), m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), v, rtol=1e-3, atol=1e-5)
    np.testing.assert_allclose(mm.asnumpy(), 0.1 * m, rtol=1e-4, atol=1e-6)
    # the gradient of sum(y) with respect to the data is 0 (normalised)
    np.testing.assert_allclose(data.grad.asnumpy(), 0, atol=1e-4)
    with pytest.raises(mx.MXNetError, match="ndev=2"):
        mx.nd.contrib.SyncBatchNorm(data, mx.nd.array(g), mx.nd.array(b), mm, mv, ndev=2)


def test_rand_zipfian_nd_and_sym():
    # MXNet's contrib.rand_zipfian: int64 classes in [0, range_max), expected
    # counts num_sampled * (log(c + 2) - log(c + 1)) / log(range_max + 1)
    def expected(c, n, r):
        return n * (np.log(c + 2.0) - np.log(c + 1.0)) / np.log(r + 1.0)

    true = mx.nd.array([0, 3, 7], dtype="int32")
    s, et, es = mx.nd.contrib.rand_zipfian(true, 500, 20)
    assert s.dtype == np.int64 and s.shape == (500,)
    assert et.dtype == np.float64 and es.dtype == np.float64
    sv = s.asnumpy()
    assert sv.min() >= 0 and sv.max() < 20
    np.testing.assert_allclose(et.asnumpy(), expected(np.array([0., 3., 7.]), 500, 20), rtol=1e-12)
    np.testing.assert_allclose(es.asnumpy(), expected(sv, 500, 20), rtol=1e-12)
    # small classes are the frequent ones
    assert (sv == 0).sum() > (sv == 19).sum()

    var = mx.sym.var("true_classes")
    outs = mx.sym.Group(list(mx.sym.contrib.rand_zipfian(var, 64, 10)))
    ex = outs.bind(mx.cpu(), {"true_classes": true})
    s2, et2, es2 = [o.asnumpy() for o in ex.forward()]
    assert s2.dtype == np.int64 and s2.min() >= 0 and s2.max() < 10
    np.testing.assert_allclose(es2, expected(s2.astype(np.float64), 64, 10), rtol=1e-12)
    np.testing.assert_allclose(et2, expected(np.array([0., 3., 7.]), 64, 10), rtol=1e-12)


def test_modulo_operators():
    # Python's %: the remainder takes the divisor's sign; 0 for a zero divisor
    a = np.array([-7.5, -3, 0, 2.5, 7, 5.25], np.float32)
    b = np.array([2, -2, 3, 0, -2.5, 1.5], np.float32)
    x, y = mx.nd.array(a), mx.nd.array(b)
    want = np.where(b == 0, 0, np.mod(a, np.where(b == 0, 1, b)))
    np.testing.assert_allclose((x % y).asnumpy(), want)
    np.testing.assert_allclose((x % 2.5).asnumpy(), np.mod(a, 2.5))
    np.testing.assert_allclose((7 % y).asnumpy(), np.where(b == 0, 0, np.mod(7, np.where(b == 0, 1, b))))
    np.testing.assert_allclose(mx.nd.modulo(x, y).asnumpy(), want)
    z = x.copy()
    z %= 2
    np.testing.assert_allclose(z.asnumpy(), np.mod(a, 2))
    sa, sb = mx.sym.var("a"), mx.sym.var("b")
    ex = mx.sym.Group([sa % sb, sa % 3, 10 % sb, mx.sym.modulo(sa, sb)]).bind(
        mx.cpu(), {"a": x, "b": y})
    got = [o.asnumpy() for o in ex.forward()]
    np.testing.assert_allclose(got[0], want)
    np.testing.assert_allclose(got[1], np.mod(a, 3))
    np.testing.assert_allclose(got[2], np.where(b == 0, 0, np.mod(10, np.where(b == 0, 1, b))))
    np.testing.assert_allclose(got[3], want)
    import json
    assert "_mod" in [n["op"] for n in json.loads((sa % sb).tojson())["nodes"]]


def test_sample_unique_zipfian():
    # MXNet's _sample_unique_zipfian: distinct classes per row, in range, and
    # the number of draws it took (more than the samples when classes repeat)
    classes, tries = mx.nd._internal._sample_unique_zipfian(50, shape=(3, 20))
    c, t = classes.asnumpy(), tries.asnumpy()
    assert c.dtype == np.int64 and c.shape == (3, 20) and t.dtype == np.int64 and t.shape == (3,)
    for row in c:
        assert len(set(row.tolist())) == 20 and row.min() >= 0 and row.max() < 50
    assert (t >= 20).all() and (t > 20).any()
    with pytest.raises(mx.MXNetError, match="cannot exceed"):
        mx.nd._internal._sample_unique_zipfian(5, shape=(1, 6))
