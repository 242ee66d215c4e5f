"""NDArrays on mx.gpu(0) over the CUDA host driver double.

Run by test_gpu_arrays.py in processes of their own with
MXC_CUDA_DRIVER=<build>/lib/libmxc-cuda-host-driver.so (the driver is loaded
once a process): the double (runtime/test/cuda_host_driver.cc) is one "GPU"
whose memory is host memory and which runs no kernels. Two modes:

- `launch` (the check_* functions): operators, executors, gradients and
  updates are compiled for the GPU (sm_90) as on a real one and pushed until
  their launch fails with the double's message; arrays, copies, the memory
  pool and every error are checked for real.
- `host-kernels` (the numerics_* functions, MXC_TEST_GPU_HOST_KERNELS=1):
  the same front-end paths compile CPU kernels instead, which the runtime
  lets run on the double's "device" arrays (their memory is host memory:
  cuda::deviceMemoryIsHostMemory), so the results of everything the GPU
  paths do around the kernels -- which array feeds which input, copies
  between devices, staging, gradient accumulation, auxiliary states,
  optimizer states -- are compared with the CPU's.

- `emulated-kernels` (the numerics_* functions,
  MXC_TEST_GPU_HOST_KERNELS=emulated): as `host-kernels`, but the kernels
  are the CUDA target's mapping run as host loops (--emulate-gpu-kernels,
  docs/gpu.md), so the GPU kernels' own numerics (blocks, threads, split
  reductions) are compared with the CPU's, within `device`'s tolerance.

None shows GPU numerics of the NVVM code or speed. A last mode, `device`, is for a real
GPU (scripts/gpu-check.sh run, with the CPython 3.12 build of the
extension): the numerics_* functions and the copies' checks, the kernels
compiled for the device's architecture and run there, results compared with
the CPU's within a tolerance instead of bit for bit.
Prints "PASS name" or "FAIL name: why" per check.
"""
import os
import sys
import traceback

import numpy as np

import mxc as mx

NO_KERNELS = "the host driver double runs no kernels"


def raises(fn, *fragments):
    """The MXNetError message of fn(), checked to hold every fragment."""
    try:
        fn()
    except mx.MXNetError as e:
        msg = str(e)
        for f in fragments:
            assert f in msg, "%r not in %r" % (f, msg)
        assert "\n" not in msg.strip(), msg
        return msg
    raise AssertionError("no MXNetError from %s" % fn)


def check_the_device_is_seen():
    assert mx.context.num_gpus() == 1
    free, total = mx.context.gpu_memory_info(0)
    assert total == 1 << 30 and 0 < free <= total, (free, total)
    assert mx.gpu(0) == mx.Context("gpu", 0) and mx.gpu(0) != mx.cpu(0)


def check_arrays_go_to_the_gpu_and_back():
    g = mx.gpu(0)
    rng = np.random.default_rng(0)
    for dtype in ("float32", "float64", "float16", "int32", "int64", "int8", "uint8"):
        for shape in ((1,), (3, 4), (1000, 33), (2, 3, 4, 5)):
            src = (rng.standard_normal(shape) * 50).astype(dtype)
            x = mx.nd.array(src, ctx=g, dtype=dtype)
            assert x.context == g and x.shape == shape and x.dtype == np.dtype(dtype).type
            assert x.size == src.size and x.ndim == len(shape)
            np.testing.assert_array_equal(x.asnumpy(), src)
            np.testing.assert_array_equal(np.asarray(x), src)
            y = x.as_in_context(mx.cpu())
            assert y.context == mx.cpu() and y._rt is not None
            np.testing.assert_array_equal(y.asnumpy(), src)
            # gpu -> gpu, a copy (not a view) and copyto into an existing array
            z = x.copyto(g)
            w = mx.nd.empty(shape, ctx=g, dtype=dtype)
            assert x.copyto(w) is w
            c = x.copy()
            x2 = mx.nd.array(src * 0, ctx=g, dtype=dtype)
            x2.copyto(x)  # overwrite the source: the copies above are their own
            for a in (z, w, c):
                assert a.context == g
                np.testing.assert_array_equal(a.asnumpy(), src)
            np.testing.assert_array_equal(x.asnumpy(), src * 0)
    assert x.as_in_context(g) is x
    # cpu -> gpu into an existing array, and from an NDArray source
    h = mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    d = mx.nd.zeros((2, 3), ctx=g)
    h.copyto(d)
    np.testing.assert_array_equal(d.asnumpy(), h.asnumpy())
    np.testing.assert_array_equal(mx.nd.array(d, ctx=g).asnumpy(), h.asnumpy())
    np.testing.assert_array_equal(mx.nd.array(d).asnumpy(), h.asnumpy())
    assert mx.nd.array(d).context == mx.cpu()


def check_creation_functions_on_the_gpu():
    g = mx.gpu(0)
    np.testing.assert_array_equal(mx.nd.zeros((2, 3), ctx=g).asnumpy(), np.zeros((2, 3)))
    o = mx.nd.ones((4,), ctx=g, dtype="int32")
    assert o.dtype == np.int32 and o.asnumpy().tolist() == [1] * 4
    np.testing.assert_array_equal(mx.nd.full((2, 2), 7.5, ctx=g).asnumpy(), np.full((2, 2), 7.5))
    np.testing.assert_array_equal(mx.nd.arange(0, 5, ctx=g).asnumpy(), np.arange(5.0))
    e = mx.nd.empty((5, 2), ctx=g)
    assert e.shape == (5, 2) and e.context == g
    with mx.gpu(0):
        assert mx.nd.zeros((3,)).context == g
    mx.random.seed(7)
    u = mx.nd.random.uniform(-1, 1, shape=(50,), ctx=g)
    mx.random.seed(7)
    np.testing.assert_array_equal(u.asnumpy(), mx.nd.random.uniform(-1, 1, shape=(50,)).asnumpy())
    assert u.context == g
    assert mx.nd.array([2.5], ctx=g).asscalar() == np.float32(2.5)
    assert float(mx.nd.array([2.5], ctx=g)) == 2.5
    assert "@gpu(0)" in repr(mx.nd.ones((2,), ctx=g)) and "1." in repr(mx.nd.ones((2,), ctx=g))
    # zeros / ones / full on a GPU are device memsets of every element width
    # (8-byte patterns with unequal halves as two strided 4-byte ones).
    for dt, val in [("float32", -2.25), ("float64", 1.0 / 3), ("float16", 1.5), ("int8", -3),
                    ("uint8", 200), ("int32", -7), ("int64", (5 << 32) + 9), ("int64", -1)]:
        got = mx.nd.full((3, 5), val, ctx=g, dtype=dt).asnumpy()
        assert got.dtype == np.dtype(dt), (dt, got.dtype)
        np.testing.assert_array_equal(got, np.full((3, 5), val, dtype=dt), err_msg=dt)
        np.testing.assert_array_equal(mx.nd.zeros((7,), ctx=g, dtype=dt).asnumpy(),
                                      np.zeros(7, dtype=dt), err_msg=dt)
        np.testing.assert_array_equal(mx.nd.ones((2, 2), ctx=g, dtype=dt).asnumpy(),
                                      np.ones((2, 2), dtype=dt), err_msg=dt)


def check_device_memory_is_pooled_and_runs_out_cleanly():
    g = mx.gpu(0)
    free0, _ = mx.context.gpu_memory_info(0)
    big = mx.nd.zeros((64, 1024, 1024), ctx=g)  # 256 MiB on the device
    big.wait_to_read()
    free1, _ = mx.context.gpu_memory_info(0)
    assert free1 <= free0 - (256 << 20), (free0, free1)
    del big
    # More than the double's 1 GiB: the pool frees its cache, retries, and
    # the allocation fails as an error, not a crash.
    msg = raises(lambda: mx.nd.empty((512, 1024, 1024), ctx=g), "out of memory")
    assert "2147483648" in msg or "2 GiB" in msg or "2.0 GiB" in msg, msg
    x = mx.nd.ones((4,), ctx=g)  # and the device still works
    assert x.asnumpy().tolist() == [1, 1, 1, 1]


def check_operators_are_compiled_for_the_gpu_and_launched_there():
    g = mx.gpu(0)
    x = mx.nd.array(np.arange(12, dtype=np.float32).reshape(3, 4), ctx=g)
    y = x + 1  # pushed at once, as on the CPU (the launch fails later)
    assert y.context == g and y.shape == (3, 4) and y.dtype == np.float32
    raises(y.asnumpy, "_plus_scalar", NO_KERNELS)
    r = mx.nd.relu(x * 2 - x)
    assert r.context == g and r.shape == (3, 4)
    raises(r.wait_to_read, NO_KERNELS)
    s = mx.nd.sum(x, axis=1)
    assert s.shape == (3,) and s.context == g
    raises(s.asnumpy, NO_KERNELS)
    c = x.astype("float64")  # Cast, on the device
    assert c.dtype == np.float64 and c.context == g
    raises(c.asnumpy, "operation 'cast'", NO_KERNELS)
    # The one-node graphs were compiled for this device's architecture.
    archs = {key[-1] for key in mx.nd._cache}
    assert "sm_90" in archs, archs


def check_executors_are_compiled_for_the_gpu_and_pushed_there():
    g = mx.gpu(0)
    data = mx.sym.Variable("data")
    net = mx.sym.relu(mx.sym.FullyConnected(data, num_hidden=3, name="fc") * 2, name="act")
    exe = net.simple_bind(g, data=(2, 4))
    for a in exe.arg_arrays + exe.grad_arrays + exe.outputs:
        assert a.context == g, a.context
    w = np.arange(12, dtype=np.float32).reshape(3, 4)
    exe.copy_params_from({"fc_weight": mx.nd.array(w), "fc_bias": np.ones(3)})
    np.testing.assert_array_equal(exe.arg_dict["fc_weight"].asnumpy(), w)
    np.testing.assert_array_equal(exe.arg_dict["fc_bias"].asnumpy(), np.ones(3))
    outs = exe.forward(is_train=False, data=np.full((2, 4), 0.5))
    np.testing.assert_array_equal(exe.arg_dict["data"].asnumpy(), np.full((2, 4), 0.5))
    assert outs[0].context == g and outs[0].shape == (2, 3)
    assert exe._compiled[False][0].device == "gpu(0)"
    raises(outs[0].asnumpy, "failed")
    exe.forward(is_train=True, data=mx.nd.ones((2, 4), ctx=g))
    exe.backward()
    assert exe._compiled[True][0].device == "gpu(0)"
    gw = exe.grad_dict["fc_weight"]
    assert gw.context == g and gw.shape == (3, 4)
    raises(gw.asnumpy, "failed")
    exe.forward(is_train=True)
    exe.backward(out_grads=[np.ones((2, 3))])  # head gradients from the host
    raises(exe.grad_dict["fc_bias"].asnumpy, "failed")
    # Dropout and samplers in a training step compile for the GPU (their
    # seed is read inside the kernel)
    drop = mx.sym.Dropout(mx.sym.FullyConnected(data, num_hidden=3, name="fc"), p=0.3) + \
        mx.sym.random.uniform(shape=(2, 3))
    de = drop.simple_bind(g, data=(2, 4))
    de.forward(is_train=True)
    de.backward(out_grads=[np.ones((2, 3))])
    assert de._compiled[True][0].device == "gpu(0)"
    # An optimizer's compiled update (sgd_mom_update) on device arrays
    opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9)
    w, gw = mx.nd.ones((3, 4), ctx=g), mx.nd.ones((3, 4), ctx=g)
    state = opt.create_state(0, w)
    assert state.context == g
    opt.update(0, w, gw, state)
    raises(w.asnumpy, NO_KERNELS)
    raises(lambda: opt.update(1, w, mx.nd.ones((3, 4)), state), "grad is on cpu(0), the weight on gpu(0)")
    # bind() with arrays on the device
    args = {"data": mx.nd.ones((2, 4), ctx=g), "fc_weight": mx.nd.ones((3, 4), ctx=g),
            "fc_bias": mx.nd.zeros((3,), ctx=g)}
    out = net.bind(g, args=args, grad_req="null").forward()[0]
    assert out.context == g
    raises(out.asnumpy, "failed")


def check_gradients_are_compiled_for_the_gpu_and_launched_there():
    g = mx.gpu(0)
    x = mx.nd.ones((3, 4), ctx=g)
    x.attach_grad()
    assert x.grad.context == g
    with mx.autograd.record():
        z = mx.nd.sum(mx.nd.relu(x * 2 + 1))
    z.backward()  # pushed: the gradient graph compiled for sm_90
    assert x.grad.context == g and x.grad.shape == (3, 4)
    raises(x.grad.asnumpy, NO_KERNELS)
    assert any(key[-1] == "gpu(0)" for key in mx.autograd._compiled)
    # grad(create_graph=True): the gradient graph's operators, each compiled
    # for the GPU and launched there, recorded for a second backward.
    y = mx.nd.ones((3, 4), ctx=g)
    y.attach_grad()
    with mx.autograd.record():
        dy = mx.autograd.grad(mx.nd.sin(y) * y, [y], create_graph=True)[0]
    assert dy.context == g and dy.shape == (3, 4)
    raises(dy.asnumpy, NO_KERNELS)


def check_custom_operators_run_on_the_gpu():
    g = mx.gpu(0)
    exe = _custom_net().simple_bind(g, data=(4, 5))
    exe.forward(is_train=False, data=mx.nd.ones((4, 5), ctx=g))
    assert exe.outputs[0].context == g and exe.outputs[0].shape == (4, 3)
    # operator by operator on the GPU: the first, FullyConnected, is cuBLAS's
    # (which the double cannot load)
    raises(exe.outputs[0].asnumpy, "operation 'fullyconnected' failed", "on the GPU")


def check_the_kvstore_takes_gpu_arrays():
    """The local store sums on the CPU: GPU values are copied to the host,
    pulls copied back (no host read of device memory: in launch mode the
    double's device pointers cannot be read on the host)."""
    g = mx.gpu(0)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    kv = mx.kv.create("local")
    kv.init("w", mx.nd.array(a, ctx=g))
    out = mx.nd.zeros((3, 4), ctx=g)
    kv.pull("w", out=out)
    np.testing.assert_array_equal(out.asnumpy(), a)
    kv.push("w", [mx.nd.array(a, ctx=g), mx.nd.array(2 * a, ctx=g), mx.nd.array(a)])
    outs = [mx.nd.zeros((3, 4), ctx=g), mx.nd.zeros((3, 4))]
    kv.pull("w", out=outs)
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), 4 * a)
    kv.pushpull("w", mx.nd.array(a, ctx=g), out=out)  # one value: its host copy is stored
    np.testing.assert_array_equal(out.asnumpy(), a)
    kv.set_optimizer(mx.optimizer.Test(rescale_grad=0.5))  # weight += 0.5 * grad, on the CPU
    kv.push("w", mx.nd.array(a, ctx=g))
    kv.pull("w", out=out)
    np.testing.assert_array_equal(out.asnumpy(), 1.5 * a)


def check_pinned_arrays_copy_to_and_from_the_gpu():
    """cpu_pinned arrays are page-locked host memory where there is a GPU
    (cuMemHostAlloc: on the double, its own record says so): operators run
    on them as on cpu arrays (their outputs stay there, as MXNet's), and
    their copies to and from the GPU are asynchronous, so the engine's
    events keep the host in order -- a write into a pinned array waits for
    the copy still reading it, a read of one for the copy writing it (with
    the double's asynchronous streams, a missing wait shows as a wrong
    round). A DataLoader with pin_memory=True gives such arrays."""
    g, p = mx.gpu(0), mx.cpu_pinned(0)
    x = mx.nd.array(A, ctx=p)
    assert x.context == p and x._rt.device == ("cpu_pinned", 0)
    driver = os.environ.get("MXC_CUDA_DRIVER", "")
    if driver.endswith("libmxc-cuda-host-driver.so"):
        import ctypes
        lib = ctypes.CDLL(driver)
        lib.mxcCudaDriverDoubleIsPinned.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        assert lib.mxcCudaDriverDoubleIsPinned(x._np.ctypes.data, x._np.nbytes) == 1
        host = mx.nd.array(A)
        assert lib.mxcCudaDriverDoubleIsPinned(host._np.ctypes.data, host._np.nbytes) == 0
    y = mx.nd.relu(x * 2 - 1)
    assert y.context == p and y._rt.device == ("cpu_pinned", 0)
    np.testing.assert_array_equal(y.asnumpy(), mx.nd.relu(mx.nd.array(A) * 2 - 1).asnumpy())
    big = np.arange(1 << 16, dtype=np.float32)
    src = mx.nd.array(big, ctx=p)
    dev = mx.nd.zeros(big.shape, ctx=g)
    backs = []
    for r in range(6):
        src[:] = r  # waits for the copy of round r - 1 reading src
        src.copyto(dev)
        back = mx.nd.zeros(big.shape, ctx=p)
        dev.copyto(back)
        backs.append(back)
    for r, back in enumerate(backs):
        np.testing.assert_array_equal(back.asnumpy(), np.full(big.shape, r, np.float32),
                                      err_msg="round %d" % r)
    np.testing.assert_array_equal(dev.as_in_context(p).asnumpy() + 0, np.full(big.shape, 5))
    data = mx.gluon.data.ArrayDataset(A, np.arange(4, dtype=np.float32))
    for xb, yb in mx.gluon.data.DataLoader(data, batch_size=2, pin_memory=True):
        assert xb.context == p and xb._rt.device == ("cpu_pinned", 0)
        np.testing.assert_array_equal(xb.as_in_context(g).asnumpy(), A[:2])
        break


def check_host_copy_optimizers_update_gpu_weights_on_the_host():
    """The updates no compiled kernel takes (AdaGrad's and AdaDelta's
    float64 weights: their states are float32; every other optimizer is
    compiled kernels on the weight's device: numerics_compiled_optimizers_on_gpu_weights)
    update a GPU weight through host copies, their states kept on the host:
    the same values as on CPU weights, bit for bit, states saved and loaded
    included (no kernel runs: this passes over the double's opaque device
    pointers)."""
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((4, 5))
    grads = [rng.standard_normal((4, 5)) for _ in range(3)]
    for name in ("adagrad", "adadelta"):
        got = []
        for ctx in (mx.gpu(0), mx.cpu()):
            opt = mx.optimizer.create(name, learning_rate=0.1)
            upd = mx.optimizer.get_updater(opt)
            w = mx.nd.array(w0, ctx=ctx, dtype=np.float64)
            assert not opt._updates_on_device(w, w)
            for k, g in enumerate(grads):
                upd(0, mx.nd.array(g, ctx=ctx, dtype=np.float64), w)
                if k == 1:  # the states through a save and a load
                    saved = upd.get_states()
                    upd.set_states(saved)
            assert w.context == ctx
            got.append(w.asnumpy())
        np.testing.assert_array_equal(got[0], got[1], err_msg=name)


def check_host_kernels_run_for_the_gpu():
    """det and slogdet on GPU arrays are one library call each, whose GPU
    twin runs the CPU's LU kernel on host copies (host_kernels.cc): they run
    to the end over the double's opaque device pointers (no kernel launched)
    and give the CPU's values."""
    rng = np.random.default_rng(4)
    m = rng.standard_normal((3, 4, 4)).astype(np.float32)
    for f in (mx.nd.linalg.det, mx.nd.linalg.slogdet):
        got, want = f(mx.nd.array(m, ctx=mx.gpu(0))), f(mx.nd.array(m))
        got = got if isinstance(got, (list, tuple)) else [got]
        want = want if isinstance(want, (list, tuple)) else [want]
        for a, b in zip(got, want):
            assert a.context == mx.gpu(0)
            np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def check_step_temporaries_live_on_the_gpu():
    """diag over axes other than the last two takes its diagonal from a
    transposed copy its step allocates for itself: compiled for the GPU, that
    temporary comes from the device's pool (gpu.alloc) and the step reaches
    its kernels' launch (refused by the double)."""
    x = mx.nd.array(np.arange(72, dtype=np.float32).reshape(3, 2, 4, 3), ctx=mx.gpu(0))
    y = mx.nd.diag(x, k=0, axis1=3, axis2=0)
    assert y.shape == (2, 4, 3) and y.context == mx.gpu(0)
    raises(y.wait_to_read, NO_KERNELS + " (a launch on gpu(0))")


def check_every_operator_compiles_for_the_gpu():
    """Every operator's example of test_frontend_every_op on gpu(0) (its
    arrays there; the creation ops with ctx=gpu(0)) compiles for the GPU and
    reaches its kernels' launch (refused by the double), its cuBLAS / cuDNN
    call (which does not start over the double), or runs to the end (the
    creation ops' fills, host twins), with its outputs on gpu(0): no
    operator is refused by the compiler (the random ones aside)."""
    here = os.path.dirname(os.path.abspath(__file__))
    for d in ("..", os.path.join("..", "frontend")):
        sys.path.insert(0, os.path.normpath(os.path.join(here, d)))
    import test_frontend_every_op as every
    skip = every.RANDOM | every.DISTRIBUTIONS | {"_sample_multinomial", "_shuffle"}
    library = ("cublasCreate: the library was not initialized",
               "cudnnCreate: CUDNN_STATUS_NOT_INITIALIZED")
    bad, outcomes = [], {"launch": 0, "library": 0, "ran": 0}
    for op, (inputs, kwargs) in sorted(every.EXAMPLES.items()):
        if op in skip:
            continue
        fn = getattr(mx.nd.contrib, op[len("_contrib_"):]) if op.startswith("_contrib_") \
            else getattr(mx.nd, op)
        if not inputs:
            kwargs = dict(kwargs, ctx=mx.gpu(0))
        try:
            out = fn(*[mx.nd.array(x, ctx=mx.gpu(0), dtype=x.dtype) for x in inputs], **kwargs)
            out = out if isinstance(out, list) else [out]
            if any(o.context != mx.gpu(0) for o in out):
                bad.append("%s: an output on %s" % (op, [str(o.context) for o in out]))
                continue
            for o in out:
                o.wait_to_read()
            outcomes["ran"] += 1
        except mx.MXNetError as e:
            msg = str(e)
            if NO_KERNELS in msg:
                outcomes["launch"] += 1
            elif any(m in msg for m in library):
                outcomes["library"] += 1
            else:
                bad.append("%s: %s" % (op, msg[:200]))
    assert not bad, "\n".join(bad)
    assert outcomes["launch"] > 200 and outcomes["library"] >= 10, outcomes


def check_the_fast_path_keeps_devices_apart():
    # The same op, shapes and dtypes on the CPU first (the C++ fast path's
    # table is keyed without the device), then on the GPU, then the CPU.
    a = np.arange(8, dtype=np.float32)
    c1 = mx.nd.array(a) * mx.nd.array(a)
    c1 = mx.nd.array(a) * mx.nd.array(a)
    np.testing.assert_array_equal(c1.asnumpy(), a * a)
    g = mx.nd.array(a, ctx=mx.gpu(0)) * mx.nd.array(a, ctx=mx.gpu(0))
    assert g.context == mx.gpu(0)
    raises(g.asnumpy, NO_KERNELS)
    # GPU calls have entries of their own, keyed with the context: the
    # second call is the C++ fast path's, on the device too.
    x = mx.nd.array(a, ctx=mx.gpu(0))
    key = mx.nd._fast_key("broadcast_mul", [x, x], {}, mx.gpu(0))
    assert key in mx.nd._fast, [k for k in mx.nd._fast if k[0] == "broadcast_mul"]
    assert mx.nd._fast_dispatch("broadcast_mul", [x, x], {}) is not None
    g2 = x * x
    assert g2.context == mx.gpu(0)
    raises(g2.asnumpy, NO_KERNELS)
    c2 = mx.nd.array(a) * mx.nd.array(a)
    assert c2.context == mx.cpu()
    np.testing.assert_array_equal(c2.asnumpy(), a * a)


def check_what_does_not_run_on_the_gpu_says_so():
    g = mx.gpu(0)
    x = mx.nd.ones((2, 3), ctx=g)
    raises(lambda: x + mx.nd.ones((2, 3)), "arrays on gpu(0) and cpu(0)", "as_in_context")
    raises(lambda: x._data, "no numpy view of an array on gpu(0)")
    raises(lambda: mx.nd.zeros((2,), ctx=mx.gpu(1)), "gpu(1) does not exist")

    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    exe = net.simple_bind(g, data=(2, 4))
    exe.forward(is_train=True)
    exe.backward()
    raises(exe.backward, "backward: call forward(is_train=True) first")
    raises(lambda: net.bind(g, args={"data": mx.nd.ones((2, 4)), "fc_weight": mx.nd.ones((3, 4)),
                                     "fc_bias": mx.nd.ones((3,))}),
           "'data' is on cpu(0), the executor on gpu(0)")
    # group2ctx whose groups no node is in: the graph on gpu(0), as one
    plain = net.simple_bind(g, group2ctx={"dev1": mx.cpu()}, data=(2, 4))
    assert all(a.context == g for a in plain.arg_arrays) and not hasattr(plain, "_stages")


MODE = "launch"  # set by main()


def _same(gpu_value, cpu_value, what=""):
    """gpu_value equals cpu_value: bit for bit on the double (the same CPU
    kernels ran on both); on a real GPU (mode `device`) and with the GPU
    mapping emulated (`emulated-kernels`) within 2e-3 of the CPU's largest
    magnitude (other kernels, other summation orders, a few training
    steps)."""
    gv = gpu_value.asnumpy() if isinstance(gpu_value, mx.nd.NDArray) else np.asarray(gpu_value)
    cv = cpu_value.asnumpy() if isinstance(cpu_value, mx.nd.NDArray) else np.asarray(cpu_value)
    assert gv.dtype == cv.dtype and gv.shape == cv.shape, (what, gv.dtype, cv.dtype, gv.shape)
    if MODE in ("device", "emulated-kernels"):
        scale = float(np.abs(cv).max()) if cv.size else 0.0
        np.testing.assert_allclose(gv, cv, rtol=2e-3, atol=2e-3 * max(scale, 1e-3),
                                   err_msg=what)
    else:
        np.testing.assert_array_equal(gv, cv, err_msg=what)


_rng = np.random.default_rng(5)
A = _rng.standard_normal((4, 5)).astype(np.float32)
B = _rng.standard_normal((4, 5)).astype(np.float32)
W = _rng.standard_normal((3, 5)).astype(np.float32)


def numerics_operators_on_gpu_arrays():
    g = mx.gpu(0)
    if MODE == "host-kernels":
        assert mx.nd._cuda_arch(g) == ""  # CPU kernels on the double's arrays
    if MODE == "emulated-kernels":
        assert mx.nd._cuda_arch(g) == "emulated"  # the GPU mapping as host loops
    cases = {
        "plus_scalar": lambda x, y, w: x + 1,
        "fused chain": lambda x, y, w: mx.nd.relu(x * 2 - y),
        "sum axis 1": lambda x, y, w: mx.nd.sum(x, axis=1),
        "dot": lambda x, y, w: mx.nd.dot(x, w, transpose_b=True),
        "FullyConnected": lambda x, y, w: mx.nd.FullyConnected(x, w, num_hidden=3, no_bias=True),
        "astype + mul": lambda x, y, w: x.astype("float64") * 3,
        "softmax": lambda x, y, w: mx.nd.softmax(x),
        "broadcast": lambda x, y, w: mx.nd.broadcast_add(x, mx.nd.sum(y, axis=0, keepdims=True)),
        "two outputs": lambda x, y, w: mx.nd.split(x, num_outputs=2, axis=0)[1],
    }
    for what, f in cases.items():
        out_g = f(*(mx.nd.array(v, ctx=g) for v in (A, B, W)))
        out_c = f(*(mx.nd.array(v) for v in (A, B, W)))
        assert out_g.context == g, what
        _same(out_g, out_c, what)
    x, xc = mx.nd.array(A, ctx=g), mx.nd.array(A)
    x += 1
    x *= mx.nd.array(B, ctx=g)
    xc += 1
    xc *= mx.nd.array(B)
    _same(x, xc, "in place")
    out = mx.nd.zeros((4, 5), ctx=g)
    mx.nd.relu(mx.nd.array(A, ctx=g), out=out)
    _same(out, mx.nd.relu(mx.nd.array(A)), "out=")


def numerics_autograd_on_gpu_arrays():
    g = mx.gpu(0)

    def run(ctx, req):
        x, w = mx.nd.array(A, ctx=ctx), mx.nd.array(W, ctx=ctx)
        x.attach_grad(grad_req=req)
        w.attach_grad()
        assert x.grad.context == ctx
        for _ in range(2):
            with mx.autograd.record():
                y = mx.nd.FullyConnected(x, w, num_hidden=3, no_bias=True)
                z = mx.nd.sum(mx.nd.relu(y) * y)
            z.backward()
        with mx.autograd.record():
            h = mx.nd.tanh(x) * 3
        h.backward(mx.nd.array(B))  # head gradients from the host
        return [x.grad, w.grad]

    for req in ("write", "add"):
        for k, (a, b) in enumerate(zip(run(g, req), run(mx.cpu(), req))):
            _same(a, b, "grad %d, grad_req %s" % (k, req))

    def grads(ctx):
        x = mx.nd.array(A, ctx=ctx)
        x.attach_grad()
        with mx.autograd.record():
            y = x * x + mx.nd.sin(x)
        return mx.autograd.grad(y, [x])[0]
    assert grads(g).context == g
    _same(grads(g), grads(mx.cpu()), "autograd.grad")

    def second_order(ctx):  # grad(create_graph=True), then backward through it
        x = mx.nd.array(A, ctx=ctx)
        x.attach_grad()
        with mx.autograd.record():
            y = x * x * mx.nd.sin(x)
            dx = mx.autograd.grad(y, [x], create_graph=True)[0]
            z = mx.nd.sum(dx * dx)
        z.backward()
        return [dx, x.grad]
    got = second_order(g)
    assert got[0].context == g and got[1].context == g
    for k, (a, b) in enumerate(zip(got, second_order(mx.cpu()))):
        _same(a, b, "grad(create_graph=True) %d" % k)

    def batchnorm(ctx):  # training BatchNorm: moving statistics updated in place
        x = mx.nd.array(A.reshape(4, 5, 1, 1), ctx=ctx)
        gamma, beta = mx.nd.ones((5,), ctx=ctx), mx.nd.zeros((5,), ctx=ctx)
        mm, mv = mx.nd.zeros((5,), ctx=ctx), mx.nd.ones((5,), ctx=ctx)
        for a in (x, gamma, beta):
            a.attach_grad()
        with mx.autograd.record():
            y = mx.nd.BatchNorm(x, gamma, beta, mm, mv, fix_gamma=False)
            z = mx.nd.sum(y * y * mx.nd.array(B.reshape(4, 5, 1, 1), ctx=ctx))
        z.backward()
        return [y, x.grad, gamma.grad, beta.grad, mm, mv]
    for k, (a, b) in enumerate(zip(batchnorm(g), batchnorm(mx.cpu()))):
        _same(a, b, "BatchNorm %d" % k)


def numerics_autograd_across_devices():
    # copyto under record() is a recorded node (MXNet's _copyto): gradients
    # flow back across devices (MXNet's test_cross_device_autograd)
    a = np.linspace(-1, 1, 10).astype(np.float32)
    x = mx.nd.array(a)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.tanh(x).copyto(mx.gpu(0))
        y = mx.nd.tanh(y).copyto(mx.cpu(0))
        y = mx.nd.tanh(y).copyto(mx.gpu(0)).copyto(mx.gpu(0))
    y.backward()
    assert y.context == mx.gpu(0) and x.grad.context == mx.cpu()
    want = x.grad.copy()
    x.grad[:] = 0
    with mx.autograd.record():
        z = mx.nd.tanh(mx.nd.tanh(mx.nd.tanh(x)))
    z.backward()
    np.testing.assert_allclose(want.asnumpy(), x.grad.asnumpy(), rtol=1e-5, atol=1e-6)
    assert np.abs(want.asnumpy()).min() > 0  # (the gradient reached x)


def numerics_autograd_frees_what_no_gradient_reads():
    # the tape keeps how an intermediate was computed, not its data: 40 steps
    # of x = x + 1 on 64 MiB arrays (2.5 GiB if all were kept; the double has
    # 1 GiB) hold a few arrays of device memory (MXNet's
    # test_autograd_save_memory, smaller)
    g, size = mx.gpu(0), 64 << 20
    x = mx.nd.zeros((16, 1024, 1024), ctx=g)
    x.attach_grad()
    mx.nd.waitall()
    free0, _ = mx.context.gpu_memory_info(0)
    y = x
    with mx.autograd.record():
        for k in range(40):
            y = y + 1
            y.wait_to_read()
            used = free0 - mx.context.gpu_memory_info(0)[0]
            assert used <= 4 * size, "step %d: %d MiB more in use" % (k, used >> 20)
    y.backward()
    mx.nd.waitall()
    got = x.grad[0, :2, :3].asnumpy()
    assert got.tolist() == [[1.0] * 3] * 2, got
    assert y[0, 0, :2].asnumpy().tolist() == [40.0, 40.0]


def numerics_compiled_optimizers_on_gpu_weights():
    """SGD, Adam, RMSProp (plain and centered), NAG, Signum (and signSGD),
    Ftrl, FTML, AdaGrad, AdaDelta, Adamax, Nadam, DCASGD, LAMB, LARS,
    GroupAdaGrad and SGLD update GPU weights with compiled kernels on the
    device (their states there too, LAMB's and LARS's norms reductions there;
    Updater does not go through the host; AdaGrad's and AdaDelta's float64
    weights do, their states being float32): the CPU weights' values
    (_same), states saved and loaded included, float32 and float64, with
    weight decay and gradient clipping."""
    rng = np.random.default_rng(3)
    cases = [("sgd", {"momentum": 0.9}), ("adam", {}), ("rmsprop", {}),
             ("rmsprop", {"centered": True, "clip_weights": 0.9}), ("nag", {"momentum": 0.9}),
             ("nag", {}), ("signum", {"momentum": 0.9, "wd_lh": 0.01}),
             ("signum", {"momentum": 0.0}), ("ftrl", {"lamda1": 0.05}), ("ftml", {}),
             ("adagrad", {}), ("adadelta", {}), ("adamax", {}), ("nadam", {}),
             ("dcasgd", {"momentum": 0.9}), ("dcasgd", {}), ("lamb", {"lower_bound": 0.1}),
             ("lars", {"momentum": 0.9, "eta": 0.5}), ("lars", {"eta": 0.5}),
             ("groupadagrad", {"wd": 0.0}), ("sgld", {})]
    for dtype in (np.float32, np.float64):
        w0 = rng.standard_normal((4, 5)).astype(dtype)
        grads = [rng.standard_normal((4, 5)).astype(dtype) * 3 for _ in range(3)]
        for name, extra in cases:
            kw = dict(dict(learning_rate=0.1, wd=0.01, clip_gradient=2.0, rescale_grad=0.5),
                      **extra)
            got = []
            for ctx in (mx.gpu(0), mx.cpu()):
                mx.random.seed(2)  # (SGLD's noise)
                opt = mx.optimizer.create(name, **kw)
                upd = mx.optimizer.get_updater(opt)
                w = mx.nd.array(w0, ctx=ctx, dtype=dtype)
                on_device = dtype == np.float32 or name not in ("adagrad", "adadelta")
                assert opt._updates_on_device(w, w) == on_device, (name, ctx)
                for k, g in enumerate(grads):
                    upd(0, mx.nd.array(g, ctx=ctx, dtype=dtype), w)
                    if k == 1:  # the states through a save and a load
                        upd.set_states(upd.get_states())
                states = upd.states[0]
                states = [s for s in (states if isinstance(states, (list, tuple)) else
                                      [states]) if s is not None]
                where = ctx if on_device or ctx == mx.cpu() else mx.cpu()  # (host copies)
                assert all(s.context == where for s in states), (name, ctx)
                assert w.context == ctx and w.dtype == dtype
                got.append(w)
            _same(got[0], got[1], "%s %s %s" % (name, extra, dtype.__name__))
            assert not np.array_equal(got[1].asnumpy(), w0), name


def numerics_executors_and_updates_on_the_gpu():
    g = mx.gpu(0)
    data, label = mx.sym.Variable("data"), mx.sym.Variable("softmax_label")
    h = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=8, name="fc1"), act_type="relu")
    h = mx.sym.BatchNorm(mx.sym.Reshape(h, shape=(4, 8, 1, 1)), fix_gamma=False, name="bn")
    h = mx.sym.Dropout(mx.sym.Flatten(h), p=0.3)
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=3, name="fc2"), label,
                               name="softmax")
    params = {"fc1_weight": _rng.standard_normal((8, 5)).astype(np.float32),
              "fc1_bias": _rng.standard_normal(8).astype(np.float32),
              "bn_gamma": np.ones(8, np.float32), "bn_beta": np.zeros(8, np.float32),
              "fc2_weight": _rng.standard_normal((3, 8)).astype(np.float32),
              "fc2_bias": np.zeros(3, np.float32)}
    aux = {"bn_moving_mean": np.zeros(8, np.float32), "bn_moving_var": np.ones(8, np.float32)}
    y = np.array([0, 2, 1, 2], np.float32)

    def run(ctx):
        exe = net.simple_bind(ctx, data=(4, 5), softmax_label=(4,))
        exe.copy_params_from({k: mx.nd.array(v) for k, v in params.items()},
                             {k: mx.nd.array(v) for k, v in aux.items()})
        got = [exe.forward(is_train=False, data=A, softmax_label=y)[0].copy()]
        opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=1e-3)
        states = {}
        for step in range(3):
            mx.random.seed(11 + step)
            exe.forward(is_train=True, data=A + step, softmax_label=y)
            exe.backward()
            for i, name in enumerate(sorted(params)):
                w, gr = exe.arg_dict[name], exe.grad_dict[name]
                if i not in states:
                    states[i] = opt.create_state(i, w)
                opt.update(i, w, gr, states[i])
            got.append(exe.outputs[0].copy())
        got += [exe.arg_dict[n] for n in sorted(params)] + [exe.aux_dict[n] for n in sorted(aux)]
        got += [exe.grad_dict[n] for n in sorted(params)]
        return got

    for k, (a, b) in enumerate(zip(run(g), run(mx.cpu()))):
        assert a.context == g
        _same(a, b, "executor value %d" % k)

    def monitored(ctx):  # MXNet's monitor: every operator's output (and input)
        seen = []
        exe = net.simple_bind(ctx, data=(4, 5), softmax_label=(4,))
        exe.copy_params_from({k: mx.nd.array(v) for k, v in params.items()},
                             {k: mx.nd.array(v) for k, v in aux.items()})
        exe.set_monitor_callback(lambda name, arr: seen.append((name, arr.copy())),
                                 monitor_all=True)
        exe.forward(is_train=False, data=A, softmax_label=y)
        return seen
    on_gpu, on_cpu = monitored(g), monitored(mx.cpu())
    assert [n for n, _ in on_gpu] == [n for n, _ in on_cpu] and len(on_gpu) > 10, on_gpu
    for (name, a), (_, b) in zip(on_gpu, on_cpu):
        assert a.context == g, name
        _same(a, b, "monitor " + name)

    # backward with head gradients on a graph without a loss head
    plain = mx.sym.FullyConnected(data, num_hidden=3, name="fc")

    def heads(ctx):
        exe = plain.simple_bind(ctx, data=(4, 5))
        exe.copy_params_from({"fc_weight": mx.nd.array(W), "fc_bias": mx.nd.ones((3,))})
        exe.forward(is_train=True, data=A)
        exe.backward(out_grads=[B[:, :3]])
        return [exe.outputs[0], exe.grad_dict["fc_weight"], exe.grad_dict["data"]]
    for k, (a, b) in enumerate(zip(heads(g), heads(mx.cpu()))):
        _same(a, b, "out_grads %d" % k)

    # grad_req 'add' (two steps accumulate; a forward alone adds nothing),
    # and backward after an inference forward (heads and auxiliary states
    # kept), with and without out_grads
    bn = mx.sym.BatchNorm(mx.sym.Reshape(mx.sym.FullyConnected(data, num_hidden=6, name="fc"),
                                         shape=(4, 6, 1, 1)), fix_gamma=False, name="bn")

    def accumulate(ctx):
        exe = bn.simple_bind(ctx, grad_req="add", data=(4, 5))
        exe.copy_params_from({"fc_weight": mx.nd.array(_rng2.standard_normal((6, 5))),
                              "fc_bias": mx.nd.ones((6,)), "bn_gamma": mx.nd.ones((6,)),
                              "bn_beta": mx.nd.zeros((6,))})
        got = []
        for step in range(2):
            exe.forward(is_train=True, data=A * (step + 1))
            exe.backward()
        exe.forward(is_train=True, data=A * 5)  # no backward: nothing added
        got += [exe.grad_dict[n].copy() for n in ("fc_weight", "bn_gamma", "data")]
        exe.forward(is_train=False, data=A)
        heads = exe.outputs[0].copy()
        aux = [a.copy() for a in exe.aux_arrays]
        exe.backward()  # after an inference forward
        exe.backward(out_grads=[mx.nd.array(np.ones((4, 6, 1, 1)) * 0.5)])
        got += [exe.grad_dict[n] for n in ("fc_weight", "bn_gamma", "data")]
        got += [heads, exe.outputs[0]] + aux + list(exe.aux_arrays)
        return got
    _rng2 = np.random.default_rng(9)
    gpu_values = accumulate(g)
    _rng2 = np.random.default_rng(9)
    cpu_values = accumulate(mx.cpu())
    for k, (a, b) in enumerate(zip(gpu_values, cpu_values)):
        _same(a, b, "grad_req add / backward after inference, value %d" % k)


class _Square(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], 2 * in_data[0] * out_grad[0])


@mx.operator.register("gpu_check_square")
class _SquareProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def list_arguments(self):
        return ["data"]

    def list_outputs(self):
        return ["output"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return _Square()


def _custom_net():
    d = mx.sym.Variable("data")
    return mx.sym.Custom(mx.sym.FullyConnected(d, num_hidden=3, name="fc"),
                         op_type="gpu_check_square")


def numerics_custom_operators_on_gpu_arrays():
    """A Python custom operator on GPU arrays, imperatively (autograd) and
    inside an executor (which then runs operator by operator, each compiled
    for the device)."""
    g = mx.gpu(0)

    def imperative(ctx):
        x = mx.nd.array(A, ctx=ctx)
        x.attach_grad()
        with mx.autograd.record():
            y = mx.nd.Custom(x, op_type="gpu_check_square")
        y.backward(mx.nd.array(B, ctx=ctx))
        return [y, x.grad]

    def executor(ctx):
        exe = _custom_net().simple_bind(ctx, data=(4, 5))
        exe.copy_params_from({"fc_weight": mx.nd.array(W), "fc_bias": mx.nd.array([0.5, -1, 2])})
        exe.forward(is_train=True, data=A)
        exe.backward(B[:, :3])
        return [exe.outputs[0], exe.grad_dict["fc_weight"], exe.grad_dict["fc_bias"]]

    for what, fn in (("imperative", imperative), ("executor", executor)):
        got = fn(g)
        for k, (a, b) in enumerate(zip(got, fn(mx.cpu()))):
            assert a.context == g, (what, k)
            _same(a, b, "custom operator, %s %d" % (what, k))


def numerics_indexing_and_views_of_gpu_arrays():
    g = mx.gpu(0)
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    x, xc = mx.nd.array(a, ctx=g), mx.nd.array(a)
    for key in (1, -1, slice(1, 3), (slice(None), 2), (2, slice(1, 5, 2)), [0, 2],
                (slice(None, None, -1), 0)):
        got = x[key]
        assert got.context == g, key
        _same(got, xc[key], "x[%r]" % (key,))
    _same(x.reshape((6, 4)), xc.reshape((6, 4)), "reshape")
    _same(x.reshape((-1,)) * 2, xc.reshape((-1,)) * 2, "reshape, then an operator")
    # views at offsets that are not 16-byte aligned (a row of 6 floats is
    # 24 bytes; a 3-D array's [1, 1]) into operators, and written by them
    # (out=): on a GPU through aligned copies (Executor::pushOn)
    _same(x[1] * 3 + x[3], xc[1] * 3 + xc[3], "unaligned rows into an operator")
    b = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    y, yc = mx.nd.array(b, ctx=g), mx.nd.array(b)
    mx.nd.exp(y[1, 1] / 10, out=y[2, 3])
    mx.nd.exp(yc[1, 1] / 10, out=yc[2, 3])
    _same(y, yc, "an operator's out= an unaligned view")
    # writes of parts: contiguous (through a view), strided (_slice_assign
    # on the device), a value broadcast, advanced indexing (on the host)
    for key, value in ((1, 2.5), ((2, slice(1, 4)), np.array([7, 8, 9, 10, 11])),
                       ((slice(None), 1), -1.0), ((slice(None), slice(0, 4, 2)), np.arange(5)),
                       ((slice(None, None, -2), 3), mx.nd.array([[4], [5]])),
                       ((0, 2, slice(1, 3)), mx.nd.array([[12, 13]])),
                       (([0, 2], [1, 3]), 6.0), (slice(1, 3), np.arange(5))):
        y[key] = value.as_in_context(g) if isinstance(value, mx.nd.NDArray) else value
        yc[key] = value
        _same(y, yc, "y[%r] = %r" % (key, value))
    # a value that is a view of the array itself (overlapping ranges)
    v, vc = mx.nd.array(np.arange(12), ctx=g), mx.nd.array(np.arange(12))
    v[1:] = v[:-1]
    vc[1:] = vc[:-1]
    _same(v, vc, "v[1:] = v[:-1]")
    _same(x.detach() + 1, xc.detach() + 1, "detach")
    _same(x + a, xc + a, "NDArray + numpy")


def numerics_dlpack_of_gpu_arrays():
    # DLPack capsules of gpu arrays are CUDA memory (kDLCUDA, the device's
    # work done), shared without a copy, and come back as gpu arrays; on a
    # GPU with PyTorch there (mode `device`), through torch's CUDA tensors
    g = mx.gpu(0)
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    x = mx.nd.array(a, ctx=g) * 1  # (written by a kernel: the capsule waits for it)
    assert x.__dlpack_device__() == (2, 0)
    y = mx.nd.from_dlpack(x.to_dlpack_for_read())
    assert y.context == g and y.shape == (4, 6)
    _same(y * 2, mx.nd.array(a) * 2, "from_dlpack(to_dlpack_for_read()) of a gpu array")
    z = mx.nd.from_dlpack(mx.nd.to_dlpack_for_write(x))
    z[:] = 1.5  # x's memory (another engine variable, as in MXNet: wait for it)
    z.wait_to_read()
    np.testing.assert_array_equal(x.asnumpy(), np.full((4, 6), 1.5, np.float32))
    if MODE != "device":
        return
    try:
        import torch
    except ImportError:
        return
    if not torch.cuda.is_available():
        return
    t = torch.from_dlpack(x)  # NDArray.__dlpack__ / __dlpack_device__
    assert t.is_cuda and tuple(t.shape) == (4, 6)
    t.mul_(2)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(x.asnumpy(), np.full((4, 6), 3.0, np.float32))
    t2 = torch.arange(6, dtype=torch.float32, device="cuda").reshape(2, 3)
    torch.cuda.synchronize()  # (from_dlpack takes the memory as it is, as MXNet's)
    w = mx.nd.from_dlpack(t2)
    assert w.context == g
    _same(w + 1, mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3)) + 1,
          "from_dlpack of a torch CUDA tensor")


def check_dlpack_capsules_of_gpu_arrays():
    # (opaque device pointers) a capsule of a gpu array is CUDA memory: it
    # comes back as a gpu array over the same memory, and numpy, a host
    # consumer, refuses it instead of reading device memory
    g = mx.gpu(0)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = mx.nd.array(a, ctx=g)
    y = mx.nd.from_dlpack(x.to_dlpack_for_read())
    assert y.context == g
    np.testing.assert_array_equal(y.asnumpy(), a)
    try:
        np.from_dlpack(x)
    except (RuntimeError, BufferError, TypeError, ValueError):
        pass
    else:
        raise AssertionError("numpy took a capsule of CUDA memory")


def numerics_host_side_functions_on_gpu_arrays():
    # What runs on the host around the GPU takes GPU arrays as MXNet's does
    # (found by MXNet's test_random / test_executor / test_module on gpu(0)):
    # samplers (drawn on the host, copied), shuffle, initializers, a CPU
    # executor bound with GPU arrays, NDArrayIter over one, _slice_assign,
    # concatenate and save, each as with CPU arrays
    import tempfile
    g = mx.gpu(0)
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    x, xc = mx.nd.array(a, ctx=g), mx.nd.array(a)
    def drawn(fn):
        mx.random.seed(7)
        got = fn(g)
        mx.random.seed(7)
        return got, fn(mx.cpu())
    _same(*drawn(lambda c: mx.nd.random.uniform(shape=(3, 4), ctx=c)), "uniform")
    def normal_out(c):
        o = mx.nd.zeros((3, 4), ctx=c)
        mx.nd.random.normal(shape=(3, 4), out=o)
        return o
    _same(*drawn(normal_out), "normal(out=)")
    got, want = drawn(lambda c: mx.nd.random.shuffle(mx.nd.array(np.arange(10), ctx=c)))
    assert got.context == g
    _same(got, want, "shuffle")
    _same(*drawn(lambda c: mx.nd.random.multinomial(
        mx.nd.array([[0.1, 0.9], [0.6, 0.4]], ctx=c), shape=5)), "multinomial")
    def xavier(c):
        w = mx.nd.zeros((4, 5), ctx=c)
        mx.init.Xavier()(mx.init.InitDesc("fc_weight"), w)
        return w
    _same(*drawn(xavier), "Xavier into a gpu array")
    _same(mx.nd.concatenate([x, x * 2], axis=1), mx.nd.concatenate([xc, xc * 2], axis=1),
          "concatenate")
    _same(mx.nd._internal._slice_assign(x, x[1:3, 2:5] * 3, begin=(0, 0), end=(2, 3)),
          mx.nd._internal._slice_assign(xc, xc[1:3, 2:5] * 3, begin=(0, 0), end=(2, 3)),
          "_slice_assign")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "x.params")
        mx.nd.save(path, {"x": x})
        np.testing.assert_array_equal(mx.nd.load(path)["x"].asnumpy(), a)
    batches = [b.data[0].asnumpy() for b in mx.io.NDArrayIter(x, batch_size=2)]
    np.testing.assert_array_equal(np.concatenate(batches), a)
    # update operators in numpy (MXNet's multi-tensor / multi-precision ones):
    # on host copies, the states and out= written back to the GPU arrays
    _same(mx.nd.multi_sum_sq(x, x * 2, num_arrays=2),
          mx.nd.multi_sum_sq(xc, xc * 2, num_arrays=2), "multi_sum_sq")
    def mp_sgd(c):
        w, w32 = mx.nd.array(a, ctx=c, dtype="float16"), mx.nd.array(a, ctx=c)
        mom = mx.nd.ones(a.shape, ctx=c)
        mx.nd.mp_sgd_mom_update(w, mx.nd.array(a / 7, ctx=c, dtype="float16"), mom, w32,
                                lr=0.1, momentum=0.9, out=w)
        return w, mom, w32
    for got, want, what in zip(mp_sgd(g), mp_sgd(mx.cpu()), ("weight", "mom", "weight32")):
        assert got.context == g
        _same(got, want, "mp_sgd_mom_update's " + what)
    # a CPU executor bound with GPU arguments and gradients
    d = mx.sym.Variable("d")
    arg, grad = mx.nd.array(a / 10, ctx=g), mx.nd.zeros((4, 6), ctx=g)
    ex = (mx.sym.exp(d) * 2).bind(mx.cpu(), args={"d": arg}, args_grad={"d": grad})
    ex.forward(is_train=True)
    ex.backward(mx.nd.ones((4, 6)))
    assert grad.context == g
    np.testing.assert_allclose(grad.asnumpy(), np.exp(a / 10) * 2, rtol=1e-5)


def check_writes_into_gpu_arrays():
    g = mx.gpu(0)
    x = mx.nd.zeros((3, 4), ctx=g)
    x[:] = 2.5
    np.testing.assert_array_equal(x.asnumpy(), np.full((3, 4), 2.5, np.float32))
    row = np.arange(4, dtype=np.float64)
    x[:] = row  # broadcast, cast to the array's dtype
    np.testing.assert_array_equal(x.asnumpy(), np.tile(row, (3, 1)).astype(np.float32))
    x[:] = mx.nd.ones((3, 4))  # from the cpu
    np.testing.assert_array_equal(x.asnumpy(), np.ones((3, 4)))
    x[:] = mx.nd.full((3, 4), 7, ctx=g, dtype="float64")  # another dtype: a Cast on the device
    raises(x.asnumpy, NO_KERNELS)
    # Parts (as MXNet): a contiguous region is a view of the array (a write
    # into it a copy, no kernel), another basic region _slice_assign on the
    # device (a kernel), advanced indexing on the host (copies each way).
    z = mx.nd.zeros((3, 4), ctx=g)
    want = np.zeros((3, 4), np.float32)
    z[1] = 5.0
    z[2, 1:3] = mx.nd.array([6, 7], ctx=g)
    z[[0, 2], [3, 0]] = np.array([8, 9])
    want[1] = 5
    want[2, 1:3] = [6, 7]
    want[[0, 2], [3, 0]] = [8, 9]
    np.testing.assert_array_equal(z.asnumpy(), want)
    row = z[2]  # a view: writes into it reach z
    assert row.shape == (4,) and row.context == g
    row[:] = -1
    want[2] = -1
    np.testing.assert_array_equal(z.asnumpy(), want)
    z[:, 1] = 3.0  # a strided column: _slice_assign_scalar's kernel
    raises(z.asnumpy, NO_KERNELS)
    # a row at an offset of 20 bytes into a kernel: through an aligned copy,
    # so the push reaches the launch (bind() would refuse it)
    w = mx.nd.zeros((3, 5), ctx=g)[1]
    raises((w * 2).asnumpy, NO_KERNELS)
    # (reading a strided part is an operator on the device)
    y = mx.nd.ones((3, 4), ctx=g)[:, 1]
    assert y.shape == (3,) and y.context == g
    raises(y.asnumpy, NO_KERNELS)
    v = mx.nd.array(np.arange(12, dtype=np.float32), ctx=g).reshape((3, 4))
    assert v.context == g and v.shape == (3, 4)  # a view: no kernel
    np.testing.assert_array_equal(v.asnumpy(), np.arange(12).reshape(3, 4))


def _module_run(ctx, tmp, kvstore="local"):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((40, 6)).astype(np.float32)
    Y = (X[:, 0] > 0).astype(np.float32) + (X[:, 1] > 0)
    data = mx.sym.Variable("data")
    h = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=10, name="fc1"), act_type="relu")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=3, name="fc2"), name="softmax")
    it = mx.io.NDArrayIter(X, Y, batch_size=8)
    mod = mx.mod.Module(net, context=ctx)
    mx.random.seed(1)
    np.random.seed(1)
    mod.fit(it, num_epoch=2, optimizer="sgd", initializer=mx.init.Xavier(), kvstore=kvstore,
            optimizer_params={"learning_rate": 0.1, "momentum": 0.9}, eval_metric="acc")
    arg, aux = mod.get_params()
    assert all(v.context == mx.cpu() for v in arg.values())
    pred = mod.predict(mx.io.NDArrayIter(X, Y, batch_size=8))
    score = mod.score(mx.io.NDArrayIter(X, Y, batch_size=8), "acc")[0][1]
    mod.save_params(os.path.join(tmp, "m.params"))
    mod.save_optimizer_states(os.path.join(tmp, "m.states"))
    mod2 = mx.mod.Module(net, context=ctx)
    mod2.bind(data_shapes=it.provide_data, label_shapes=it.provide_label)
    mod2.load_params(os.path.join(tmp, "m.params"))
    mod2.init_optimizer(kvstore=kvstore, optimizer="sgd",
                        optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    mod2.load_optimizer_states(os.path.join(tmp, "m.states"))
    it.reset()
    batch = next(iter(it))
    mod2.forward_backward(batch)
    mod2.update()
    arg2, _ = mod2.get_params()
    return [arg[k] for k in sorted(arg)] + [pred, np.array(score)] + [arg2[k] for k in sorted(arg2)]


def numerics_module_training_on_a_gpu():
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        got_g = _module_run(mx.gpu(0), tmp)
    with tempfile.TemporaryDirectory() as tmp:
        got_c = _module_run(mx.cpu(), tmp)
    for k, (a, b) in enumerate(zip(got_g, got_c)):
        _same(a, b, "Module value %d" % k)


def check_module_compiles_for_the_gpu():
    data = mx.sym.Variable("data")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(data, num_hidden=3, name="fc"),
                               name="softmax")
    mod = mx.mod.Module(net, context=mx.gpu(0))
    mod.bind(data_shapes=[("data", (4, 5))], label_shapes=[("softmax_label", (4,))])
    mod.init_params(mx.init.Uniform(0.5))
    w = mod._exec.arg_dict["fc_weight"]
    assert w.context == mx.gpu(0)
    host = mod.get_params()[0]["fc_weight"]  # initialised on the host, copied: no kernel
    assert host.context == mx.cpu() and np.abs(host.asnumpy()).max() <= 0.5
    assert np.abs(host.asnumpy()).max() > 0
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1})
    batch = mx.io.DataBatch([mx.nd.ones((4, 5))], [mx.nd.zeros((4,))])
    mod.forward_backward(batch)
    mod.update()
    assert mod._exec._compiled[True][0].device == "gpu(0)"
    raises(lambda: mod.get_outputs()[0].asnumpy(), "failed")


def _gluon_net(hybrid):
    # (one prefix for every net made: Dropout's mask stream follows the
    # node's name)
    net = mx.gluon.nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(10, activation="relu", in_units=6),
                mx.gluon.nn.BatchNorm(in_channels=10),
                mx.gluon.nn.Dropout(0.2),
                mx.gluon.nn.Dense(3, in_units=10))
    if hybrid:
        net.hybridize()
    return net


class _Scale(mx.autograd.Function):
    """A user autograd.Function: y = 3x, dy/dx = 3."""

    def forward(self, x):
        return x * 3

    def backward(self, dy):
        return dy * 3


def _sgd_training(net, ctx):
    """`net` initialised on `ctx` (a context or a list), its SGD-with-momentum
    Trainer and the classification loss."""
    net.initialize(mx.init.Xavier(), ctx=ctx)
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd",
                               {"learning_rate": 0.1, "momentum": 0.9})
    return trainer, mx.gluon.loss.SoftmaxCrossEntropyLoss()


def _gluon_run(ctx, hybrid):
    rng = np.random.default_rng(4)
    X = rng.standard_normal((16, 6)).astype(np.float32)
    Y = rng.integers(0, 3, 16).astype(np.float32)
    mx.random.seed(2)
    net = _gluon_net(hybrid)
    trainer, loss_fn = _sgd_training(net, ctx)
    losses = []
    for step in range(3):
        x = mx.nd.array(X[step * 4:(step + 1) * 4 + 4]).as_in_context(ctx)
        y = mx.nd.array(Y[step * 4:(step + 1) * 4 + 4]).as_in_context(ctx)
        mx.random.seed(20 + step)
        with mx.autograd.record():
            out = _Scale()(net(x))
            loss = loss_fn(out, y)
        loss.backward()
        trainer.step(x.shape[0])
        losses.append(loss)
    assert all(p.data().context == ctx for p in net.collect_params().values())
    params = [p.data() for _, p in sorted(net.collect_params().items())]
    return losses + params + [net(mx.nd.array(X).as_in_context(ctx))]


def numerics_gluon_training_on_a_gpu():
    for hybrid in (False, True):
        for k, (a, b) in enumerate(zip(_gluon_run(mx.gpu(0), hybrid),
                                       _gluon_run(mx.cpu(), hybrid))):
            _same(a, b, "Gluon value %d (hybridized: %s)" % (k, hybrid))


def check_gluon_compiles_for_the_gpu():
    g = mx.gpu(0)
    for hybrid in (False, True):
        net = _gluon_net(hybrid)
        net.initialize(mx.init.Xavier(), ctx=g)
        w = net[0].weight
        assert w.data().context == g and w.grad().context == g
        host = w.data().asnumpy()  # initialised on the host and copied: no kernel
        assert host.shape == (10, 6) and np.abs(host).max() > 0
        trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
        x = mx.nd.ones((4, 6), ctx=g)
        with mx.autograd.record():
            loss = mx.nd.sum(net(x))
        loss.backward()
        trainer.step(4)
        raises(loss.asnumpy, "failed")
        raises(w.data().asnumpy, "failed")


# On a real GPU, besides numerics_*: what needs no kernel.
DEVICE_CHECKS = ("check_arrays_go_to_the_gpu_and_back", "check_creation_functions_on_the_gpu",
                 "check_the_kvstore_takes_gpu_arrays",
                 "check_pinned_arrays_copy_to_and_from_the_gpu",
                 "check_host_copy_optimizers_update_gpu_weights_on_the_host")


def twogpus_arrays_move_between_devices():
    """Two "GPUs" (MXC_HOST_DRIVER_DEVICES=2): arrays on gpu(1), copies
    between the devices and back in a chain pushed without waiting (with
    the double's asynchronous streams the engine's events must order them
    across devices), creation by memset on gpu(1); an operator there is
    compiled for the GPU and launched on gpu(1) (its kernels loaded there:
    the double refuses the launch naming the device, and a module, stream
    or context of gpu(0) would be an invalid handle)."""
    assert mx.context.num_gpus() == 2
    g0, g1 = mx.gpu(0), mx.gpu(1)
    rng = np.random.default_rng(3)
    values = [rng.standard_normal((64, 33)).astype(np.float32) for _ in range(8)]
    outs = []
    a = mx.nd.zeros((64, 33), ctx=g0)
    b = mx.nd.zeros((64, 33), ctx=g1)
    for v in values:
        a[:] = mx.nd.array(v)      # host -> gpu(0)
        a.copyto(b)                # gpu(0) -> gpu(1)
        outs.append(b.copyto(mx.cpu()))
    for v, o in zip(values, outs):
        np.testing.assert_array_equal(o.asnumpy(), v)
    c = mx.nd.full((5, 5), 2.5, ctx=g1)
    assert c.context == g1
    np.testing.assert_array_equal(c.as_in_context(g0).asnumpy(), np.full((5, 5), 2.5, np.float32))
    raises(lambda: (c + c).wait_to_read(), NO_KERNELS + " (a launch on gpu(1))")
    d = mx.nd.ones((5, 5), ctx=g0) * 2
    raises(d.wait_to_read, NO_KERNELS + " (a launch on gpu(0))")


def twogpus_executors_and_modules_launch_on_their_device():
    """An executor bound on gpu(1) launches there; a Module over gpu(0) and
    gpu(1) binds one executor a device (parameters copied to gpu(1)) and
    launches each half of the batch on its own device. (Generated kernels
    only: cuBLAS and cuDNN do not start over the double.)"""
    g0, g1 = mx.gpu(0), mx.gpu(1)
    data = mx.sym.Variable("data")
    w = mx.sym.Variable("w_weight", shape=(1, 5))
    net = mx.sym.Activation(mx.sym.broadcast_mul(data, w), act_type="relu")
    exe = net.simple_bind(g1, data=(4, 5))
    assert all(a.context == g1 for a in exe.arg_arrays)
    exe.forward(is_train=False, data=mx.nd.ones((4, 5)))
    raises(exe.outputs[0].wait_to_read, NO_KERNELS + " (a launch on gpu(1))")
    mod = mx.mod.Module(net, context=[g0, g1], label_names=None)
    mod.bind(data_shapes=[("data", (8, 5))])
    mod.init_params(mx.init.Uniform(0.5))
    e0, e1 = mod._execs
    assert e0.arg_dict["w_weight"].context == g0 and e1.arg_dict["w_weight"].context == g1
    np.testing.assert_array_equal(e1.arg_dict["w_weight"].asnumpy(),
                                  mod.get_params()[0]["w_weight"].asnumpy())
    mod.forward(mx.io.DataBatch([mx.nd.ones((8, 5))], []), is_train=True)
    raises(e0.outputs[0].wait_to_read, NO_KERNELS + " (a launch on gpu(0))")
    raises(e1.outputs[0].wait_to_read, NO_KERNELS + " (a launch on gpu(1))")


def _staged_net(loss=True):
    """fc1 -> BatchNorm -> relu under ctx_group stage1, fc2 (-> SoftmaxOutput)
    under stage2; without the loss, two heads: fc2 and a value of stage1's;
    with loss='both', the loss and relu's output, which stage2 reads too."""
    with mx.AttrScope(ctx_group="stage1"):
        data = mx.sym.Variable("data")
        fc1 = mx.sym.FullyConnected(data, name="fc1", num_hidden=8)
        act1 = mx.sym.Activation(mx.sym.BatchNorm(fc1, name="bn1"), name="relu1",
                                 act_type="relu")
    with mx.AttrScope(ctx_group="stage2"):
        fc2 = mx.sym.FullyConnected(act1, name="fc2", num_hidden=4)
        if loss == "both":
            return mx.sym.Group([mx.sym.SoftmaxOutput(fc2, name="softmax"), act1])
        if loss:
            return mx.sym.SoftmaxOutput(fc2, name="softmax")
    return mx.sym.Group([fc2, act1 * 2])


def twogpus_group2ctx_runs_each_stage_on_its_gpu():
    """simple_bind(group2ctx={'stage1': gpu(0), 'stage2': gpu(1)}) places
    each variable on its group's GPU (MXNet's PlaceDevice: BatchNorm's
    moving statistics follow their operator) and runs each stage on its
    device: stage1's launch is refused on gpu(0) and stage2, which reads
    stage1's output, fails with it; stage2 alone launches on gpu(1) (a graph
    of generated kernels: cuBLAS does not start over the double)."""
    g2c = {"stage1": mx.gpu(0), "stage2": mx.gpu(1)}
    ex = _staged_net().simple_bind(mx.gpu(0), group2ctx=g2c, data=(4, 5))
    where = {n: str(a.context) for n, a in list(ex.arg_dict.items()) + list(ex.aux_dict.items())}
    assert where == {"data": "gpu(0)", "fc1_weight": "gpu(0)", "fc1_bias": "gpu(0)",
                     "bn1_gamma": "gpu(0)", "bn1_beta": "gpu(0)", "fc2_weight": "gpu(1)",
                     "fc2_bias": "gpu(1)", "softmax_label": "gpu(1)",
                     "bn1_moving_mean": "gpu(0)", "bn1_moving_var": "gpu(0)"}, where
    assert ex.grad_dict["fc2_weight"].context == mx.gpu(1)
    assert [str(st.ctx) for st in ex._stages] == ["gpu(0)", "gpu(1)"]
    raises(lambda: ex.reshape(data=(8, 5)), "bind it again")
    raises(lambda: ex.set_monitor_callback(print),
           "not supported for an executor with group2ctx over several devices")
    with mx.AttrScope(ctx_group="stage1"):
        h = mx.sym.relu(mx.sym.broadcast_mul(mx.sym.Variable("data"),
                                             mx.sym.Variable("w1", shape=(1, 5))))
    with mx.AttrScope(ctx_group="stage2"):
        out = mx.sym.broadcast_mul(h, mx.sym.Variable("w2", shape=(1, 5)))
    ex = out.simple_bind(mx.gpu(0), group2ctx=g2c, data=(4, 5))
    assert [str(a.context) for a in ex.arg_arrays] == ["gpu(0)", "gpu(0)", "gpu(1)"]
    ex.forward(is_train=False)
    assert ex.outputs[0].context == mx.gpu(1)
    raises(ex.outputs[0].wait_to_read, NO_KERNELS + " (a launch on gpu(0))")
    second = ex._stages[1].exec  # on inputs written anew: launched on gpu(1)
    for a in second.arg_arrays:
        a[:] = 1
    second.forward(is_train=False)
    raises(second.outputs[0].wait_to_read, NO_KERNELS + " (a launch on gpu(1))")


def multigpu_group2ctx_matches_one_device():
    """Model parallelism: the graph over gpu(0) and gpu(1) by ctx_group gives
    the values of the graph on the CPU, bit for bit -- training forward and
    backward twice (BatchNorm's moving statistics included), with a loss and
    with given head gradients for two heads on two devices, inference; and
    Module(group2ctxs=...) trains to the CPU Module's parameters."""
    g2c = {"stage1": mx.gpu(0), "stage2": mx.gpu(1)}
    for loss in (True, False, "both"):
        net = _staged_net(loss)
        ex = net.simple_bind(mx.gpu(0), group2ctx=g2c, data=(4, 5))
        ref = net.simple_bind(mx.cpu(), data=(4, 5))
        rng = np.random.default_rng(0)
        for name in ex.arg_dict:
            v = rng.uniform(-1, 1, ex.arg_dict[name].shape)
            if name == "softmax_label":
                v = np.array([0, 1, 3, 2])
            ex.arg_dict[name][:] = v
            ref.arg_dict[name][:] = v
        for step in range(2):
            for e in (ex, ref):
                e.forward(is_train=True)
                if loss:  # (with 'both', relu's default head gradient of ones and fc2's)
                    e.backward()
                else:
                    e.backward([mx.nd.full((4, 4), 0.5), mx.nd.ones((4, 8))])
            what = "loss %s, step %d" % (loss, step)
            for k, (a, b) in enumerate(zip(ex.outputs, ref.outputs)):
                _same(a.copyto(mx.cpu()), b, "%s: output %d" % (what, k))
            for n, g in ex.grad_dict.items():
                if g is not None:
                    _same(g.copyto(mx.cpu()), ref.grad_dict[n], "%s: gradient %s" % (what, n))
            for n, a in ex.aux_dict.items():
                _same(a.copyto(mx.cpu()), ref.aux_dict[n], "%s: %s" % (what, n))
        # stage1, whose output stage2 reads, ran its training step as two
        # halves (never the whole step, which would compute its forward
        # again at backward)
        first = ex._stages[0].exec
        assert (True, "forward") in first._compiled and True not in first._compiled, \
            sorted(map(str, first._compiled))
        ex.forward(is_train=False)
        ref.forward(is_train=False)
        _same(ex.outputs[0].copyto(mx.cpu()), ref.outputs[0], "inference")

    def fit(ctx, group2ctxs):
        rng = np.random.default_rng(3)
        X = rng.standard_normal((40, 5)).astype(np.float32)
        Y = (X[:, 0] > 0).astype(np.float32) + (X[:, 1] > 0)
        mod = mx.mod.Module(_staged_net(), context=ctx, group2ctxs=group2ctxs)
        mx.random.seed(1)
        np.random.seed(1)
        mod.fit(mx.io.NDArrayIter(X, Y, batch_size=8), num_epoch=2, optimizer="sgd",
                initializer=mx.init.Xavier(), eval_metric="acc",
                optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
        arg, aux = mod.get_params()
        return [arg[k] for k in sorted(arg)] + [aux[k] for k in sorted(aux)]
    for k, (a, b) in enumerate(zip(fit([mx.gpu(0)], g2c), fit([mx.cpu()], None))):
        _same(a, b, "Module with group2ctxs, value %d" % k)
    # MXNet's placement: a variable outside every group on the executor's
    # context, an operator outside every group on its first input's device;
    # a group that group2ctx does not name is an error
    data = mx.sym.Variable("data")
    pre = mx.sym.relu(data)
    with mx.AttrScope(ctx_group="stage2"):
        net = mx.sym.FullyConnected(pre, num_hidden=3, name="fc")
    ex = net.simple_bind(mx.gpu(0), group2ctx={"stage2": mx.gpu(1)}, data=(2, 4))
    assert ex.arg_dict["data"].context == mx.gpu(0) and \
        ex.arg_dict["fc_weight"].context == mx.gpu(1)
    assert [str(st.ctx) for st in ex._stages] == ["gpu(0)", "gpu(1)"]
    # an operator without inputs first (ones): placed by its consumer
    with mx.AttrScope(ctx_group="stage2"):
        net2 = mx.sym.FullyConnected(mx.sym.ones((2, 4)) * data, num_hidden=3, name="fc")
    ex = net2.simple_bind(mx.gpu(0), group2ctx={"stage2": mx.gpu(1)}, data=(2, 4))
    ref = net2.simple_bind(mx.cpu(), data=(2, 4))
    for n in ex.arg_dict:
        v = np.random.default_rng(9).uniform(-1, 1, ex.arg_dict[n].shape)
        ex.arg_dict[n][:] = v
        ref.arg_dict[n][:] = v
    for e in (ex, ref):
        e.forward(is_train=True)
        e.backward(mx.nd.ones((2, 3)))
    _same(ex.outputs[0].copyto(mx.cpu()), ref.outputs[0], "ones * data, output")
    _same(ex.grad_dict["data"].copyto(mx.cpu()), ref.grad_dict["data"], "ones * data, gradient")
    raises(lambda: net.simple_bind(mx.gpu(0), group2ctx={"other": mx.gpu(1)}, data=(2, 4)),
           "node 'fc_weight' is in ctx_group 'stage2', which group2ctx does not name")


def twogpus_device_store_adds_on_the_first_gpu():
    """The 'device' store's sum of two GPUs' values is an operator launched
    on the first one's device; its pulls to both GPUs carry it (the 'local'
    store sums on the host, no kernel)."""
    g0, g1 = mx.gpu(0), mx.gpu(1)
    kv = mx.kv.create("local")
    kv.init("w", mx.nd.zeros((4,)))
    kv.push("w", [mx.nd.ones((4,), ctx=g0), mx.nd.ones((4,), ctx=g1)])
    o = mx.nd.zeros((4,), ctx=g1)
    kv.pull("w", out=o)
    np.testing.assert_array_equal(o.asnumpy(), np.full(4, 2, np.float32))
    kv = mx.kv.create("device")
    kv.init("w", mx.nd.zeros((4,)))
    kv.push("w", [mx.nd.ones((4,), ctx=g0), mx.nd.ones((4,), ctx=g1)])
    outs = [mx.nd.zeros((4,), ctx=g0), mx.nd.zeros((4,), ctx=g1)]
    kv.pull("w", out=outs)
    for o in outs:
        raises(o.asnumpy, NO_KERNELS + " (a launch on gpu(0))")


def twogpus_fast_path_and_backward_on_each_device():
    """The C++ fast path's second call on gpu(1) pushes the GPU plan there;
    autograd.backward over losses on two GPUs runs a gradient stage a
    device, each launched on its own."""
    g0, g1 = mx.gpu(0), mx.gpu(1)
    x = mx.nd.ones((6,), ctx=g1)
    x * x
    assert mx.nd._fast_key("broadcast_mul", [x, x], {}, g1) in mx.nd._fast
    y = mx.nd._fast_dispatch("broadcast_mul", [x, x], {})
    assert y is not None and y.context == g1
    raises(y.wait_to_read, NO_KERNELS + " (a launch on gpu(1))")
    a, b = mx.nd.ones((4,), ctx=g0), mx.nd.ones((4,), ctx=g1)
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        la, lb = mx.nd.sum(a * 2), mx.nd.sum(b * 3)
    mx.autograd.backward([la, lb])
    raises(a.grad.wait_to_read, NO_KERNELS + " (a launch on gpu(0))")
    raises(b.grad.wait_to_read, NO_KERNELS + " (a launch on gpu(1))")


def _two_gpu_net_values(ctx):
    """Operators, autograd and an executor on `ctx`."""
    rng = np.random.default_rng(6)
    a = rng.standard_normal((4, 6)).astype(np.float32)
    w = rng.standard_normal((3, 6)).astype(np.float32)
    x, W = mx.nd.array(a, ctx=ctx), mx.nd.array(w, ctx=ctx)
    x.attach_grad()
    W.attach_grad()
    with mx.autograd.record():
        y = mx.nd.FullyConnected(x, W, no_bias=True, num_hidden=3)
        z = mx.nd.sum(mx.nd.tanh(y) * 2)
    z.backward()
    assert y.context == ctx and x.grad.context == ctx
    data = mx.sym.Variable("data")
    net = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=3, name="fc"),
                            act_type="sigmoid")
    exe = net.simple_bind(ctx, data=(4, 6))
    exe.arg_dict["fc_weight"][:] = mx.nd.array(w)
    exe.arg_dict["fc_bias"][:] = 0.5
    exe.forward(is_train=True, data=mx.nd.array(a))
    exe.backward(mx.nd.ones((4, 3)))
    return [y, z, x.grad, W.grad, exe.outputs[0], exe.grad_dict["fc_weight"],
            exe.grad_dict["data"]]


def multigpu_fast_path_keeps_the_devices_apart():
    """The C++ fast path's GPU entries are per context: the same operator
    and shapes on gpu(0), then gpu(1), then gpu(0), each on its device with
    its values; arrays of both devices in one call are the Python path's
    error."""
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    for ctx, k in ((mx.gpu(0), 1), (mx.gpu(1), 2), (mx.gpu(0), 3), (mx.gpu(1), 4)):
        x = mx.nd.array(a * k, ctx=ctx)
        for _ in range(2):  # the second call is the fast path's
            y = mx.nd.relu(x - 5)
        assert y.context == ctx, (y.context, ctx)
        _same(y.copyto(mx.cpu()), mx.nd.relu(mx.nd.array(a * k) - 5))
    x0, x1 = mx.nd.ones((3, 4), ctx=mx.gpu(0)), mx.nd.ones((3, 4), ctx=mx.gpu(1))
    for x in (x0, x1):  # an entry a device, each taken by the fast path
        x + x
        assert mx.nd._fast_key("broadcast_add", [x, x], {}, x.context) in mx.nd._fast
        y = mx.nd._fast_dispatch("broadcast_add", [x, x], {})
        assert y is not None and y.context == x.context
        _same(y.copyto(mx.cpu()), mx.nd.full((3, 4), 2.0))
    raises(lambda: x0 + x1, "arrays on gpu(0) and gpu(1)")
    assert mx.nd._fast_dispatch("broadcast_add", [x0, x1], {}) is None


def multigpu_operators_autograd_and_executors_on_gpu1():
    """Operators, autograd and an executor on gpu(1) give the CPU's values."""
    assert mx.context.num_gpus() == 2 and mx.nd._cuda_arch(mx.gpu(1)) == ""
    for k, (a, b) in enumerate(zip(_two_gpu_net_values(mx.gpu(1)),
                                   _two_gpu_net_values(mx.cpu()))):
        assert a.context in (mx.gpu(1), mx.cpu()), a.context
        _same(a, b, "gpu(1) value %d" % k)


def multigpu_module_training_over_two_gpus():
    """Module over [gpu(0), gpu(1)] (the batch split, a parameter copy a
    device, the store summing the devices' gradients: on the host with
    'local', on gpu(0) first with 'device'; without a store each device
    training its own copy) trains to the values of Module over [cpu(0),
    cpu(1)], checkpoints included."""
    import tempfile
    for kvstore in ("local", "device", None):
        with tempfile.TemporaryDirectory() as tmp:
            got_g = _module_run([mx.gpu(0), mx.gpu(1)], tmp, kvstore)
        with tempfile.TemporaryDirectory() as tmp:
            got_c = _module_run([mx.cpu(0), mx.cpu(1)], tmp, kvstore)
        for k, (a, b) in enumerate(zip(got_g, got_c)):
            _same(a, b, "Module over two devices (%s store), value %d" % (kvstore, k))


def multigpu_device_store_sums_on_a_gpu():
    """The 'device' store sums a key's GPU values on the first one's GPU
    and sends that one sum to the host; its pulls fan out from the first
    GPU: the same bits as the 'local' store's host sum."""
    rng = np.random.default_rng(8)
    vals = [rng.standard_normal((5, 7)).astype(np.float32) for _ in range(3)]
    got = {}
    for name in ("local", "device"):
        kv = mx.kv.create(name)
        kv.init("w", mx.nd.zeros((5, 7)))
        kv.push("w", [mx.nd.array(vals[0], ctx=mx.gpu(0)), mx.nd.array(vals[1], ctx=mx.gpu(1)),
                      mx.nd.array(vals[2])])
        outs = [mx.nd.zeros((5, 7), ctx=mx.gpu(1)), mx.nd.zeros((5, 7), ctx=mx.gpu(0)),
                mx.nd.zeros((5, 7))]
        kv.pull("w", out=outs)
        assert [o.context for o in outs] == [mx.gpu(1), mx.gpu(0), mx.cpu()]
        got[name] = [o.asnumpy() for o in outs]
    for a, b in zip(got["device"], got["local"]):
        _same(a, b, "device store against local")
    _same(got["local"][0], (vals[0] + vals[1]) + vals[2], "the sum")
    # One array listed twice is pulled into; values of another shape are
    # the store's error, as with 'local'.
    kv = mx.kv.create("device")
    kv.init("v", mx.nd.zeros((2, 3)))
    w = mx.nd.zeros((2, 3), ctx=mx.gpu(0))
    kv.push("v", [mx.nd.ones((2, 3), ctx=mx.gpu(0)), mx.nd.ones((2, 3), ctx=mx.gpu(1))])
    kv.pull("v", out=[w, w])
    _same(w.copyto(mx.cpu()), mx.nd.full((2, 3), 2.0), "an array listed twice")
    for name in ("local", "device"):
        kv = mx.kv.create(name)
        kv.init("v", mx.nd.zeros((2, 3)))
        raises(lambda: kv.push("v", [mx.nd.ones((2, 3), ctx=mx.gpu(0)),
                                     mx.nd.ones((1, 3), ctx=mx.gpu(1))]), "does not match")


def multigpu_device_store_updates_on_a_gpu():
    """With an optimizer (update_on_kvstore), the 'device' store keeps a key
    pushed from GPUs on the GPU its values are summed on and runs the
    optimizer there (as MXNet's KVStoreLocal: the stored weight moves to the
    merge buffer's device); pulls copy from it: the same bits as the
    'local' store, whose value and optimizer are on the host, optimizer
    states saved and loaded included; without the optimizer again the
    value goes back to the host store."""
    import tempfile
    rng = np.random.default_rng(9)
    w0 = rng.standard_normal((5, 7)).astype(np.float32)
    steps = [[rng.standard_normal((5, 7)).astype(np.float32) for _ in range(3)]
             for _ in range(4)]
    got = {}
    for name in ("local", "device"):
        kv = mx.kv.create(name)
        kv.set_optimizer(mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9, wd=0.01))
        kv.init(3, mx.nd.array(w0))
        outs = [mx.nd.zeros((5, 7), ctx=mx.gpu(1)), mx.nd.zeros((5, 7), ctx=mx.gpu(0)),
                mx.nd.zeros((5, 7))]
        seen = []
        with tempfile.TemporaryDirectory() as tmp:
            for k, (a, b, c) in enumerate(steps):
                kv.push(3, [mx.nd.array(a, ctx=mx.gpu(0)), mx.nd.array(b, ctx=mx.gpu(1)),
                            mx.nd.array(c)])
                kv.pull(3, out=outs)
                seen += [o.asnumpy() for o in outs]
                if k == 1:
                    kv.save_optimizer_states(os.path.join(tmp, "s"))
                    kv.load_optimizer_states(os.path.join(tmp, "s"))
        if name == "device":
            assert list(kv._on_device) == ["3"] and kv._on_device["3"].context == mx.gpu(0)
            kv._set_updater(None)  # the value back to the host store
            assert not kv._on_device
            last = mx.nd.zeros((5, 7))
            kv.pull(3, out=last)
            _same(last, outs[2], "the value back in the host store")
        got[name] = seen
    # A key pushed from the host first, then from GPUs: its momentum moves
    # with it (to the GPU, and back to the host after the updater goes).
    kv = mx.kv.create("device")
    kv.set_optimizer(mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9))
    kv.init(4, mx.nd.array(w0))
    kv.push(4, [mx.nd.ones((5, 7))])
    kv.push(4, [mx.nd.ones((5, 7), ctx=mx.gpu(0)), mx.nd.ones((5, 7), ctx=mx.gpu(1))])
    assert kv._on_device["4"].context == mx.gpu(0)
    assert kv._updater.states[4].context == mx.gpu(0)
    out = mx.nd.zeros((5, 7))
    kv.pull(4, out=out)
    # (sgd_mom: mom = 0.9 mom - 0.1 g; w += mom)
    _same(out, mx.nd.array(w0 - np.float32(0.1) + (np.float32(0.9) * np.float32(-0.1) -
                                                  np.float32(0.2))), "host then GPU pushes")
    raises(lambda: kv.push(5, [mx.nd.ones((2,), ctx=mx.gpu(0))]), "push of key '5'")
    assert not np.array_equal(got["local"][-1], w0)
    for k, (a, b) in enumerate(zip(got["device"], got["local"])):
        _same(a, b, "device store updating on a GPU against local, value %d" % k)


def _gluon_two_device_run(ctxs, hybrid):
    rng = np.random.default_rng(7)
    X = rng.standard_normal((16, 6)).astype(np.float32)
    Y = rng.integers(0, 3, 16).astype(np.float32)
    mx.random.seed(3)
    net = mx.gluon.nn.HybridSequential(prefix="net2_")
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(10, activation="relu", in_units=6),
                mx.gluon.nn.BatchNorm(in_channels=10),
                mx.gluon.nn.Dense(3, in_units=10))
    if hybrid:
        net.hybridize()
    trainer, loss_fn = _sgd_training(net, ctxs)
    losses = []
    for step in range(3):
        xs = mx.gluon.utils.split_and_load(mx.nd.array(X[step * 4:step * 4 + 8]), ctxs)
        ys = mx.gluon.utils.split_and_load(mx.nd.array(Y[step * 4:step * 4 + 8]), ctxs)
        with mx.autograd.record():
            ls = [loss_fn(net(x), y) for x, y in zip(xs, ys)]
        if hybrid:  # one backward over every device's loss
            mx.autograd.backward(ls)
        else:
            for l in ls:
                l.backward()
        trainer.step(8)
        losses += ls
    out = []
    for _, p in sorted(net.collect_params().items()):
        datas = p.list_data()
        assert [d.context for d in datas] == list(ctxs)
        if p.grad_req != "null":  # (BatchNorm's running statistics are each device's own)
            for d in datas[1:]:  # every device's copy updated alike
                _same(d.copyto(mx.cpu()), datas[0].copyto(mx.cpu()), p.name)
        out += datas
    return losses + out


def multigpu_gluon_training_over_two_gpus():
    """Gluon over [gpu(0), gpu(1)] (split_and_load, a Trainer over both)
    trains to the values of Gluon over [cpu(0), cpu(1)]."""
    for hybrid in (False, True):
        got = _gluon_two_device_run([mx.gpu(0), mx.gpu(1)], hybrid)
        want = _gluon_two_device_run([mx.cpu(0), mx.cpu(1)], hybrid)
        for k, (a, b) in enumerate(zip(got, want)):
            _same(a.copyto(mx.cpu()), b.copyto(mx.cpu()),
                  "Gluon over two devices, value %d (hybridized: %s)" % (k, hybrid))


def main():
    global MODE
    MODE = mode = sys.argv[1] if len(sys.argv) > 1 else "launch"
    if mode == "device":
        checks = [(n, f) for n, f in sorted(globals().items())
                  if n.startswith("numerics_") or n in DEVICE_CHECKS]
    else:
        prefix = {"launch": "check_", "host-kernels": "numerics_",
                  "emulated-kernels": "numerics_", "two-gpus": "twogpus_",
                  "two-gpus-host-kernels": "multigpu_"}[mode]
        checks = [(n, f) for n, f in sorted(globals().items()) if n.startswith(prefix)]
    only = set(sys.argv[2:])
    for name, fn in checks:
        if only and name not in only:
            continue
        if mode in ("launch", "two-gpus"):
            # Where no kernel runs, a check leaves launches behind that fail
            # after it returns (a gradient no one reads): their errors must not
            # reach the next check's first wait (when depends on timing).
            try:
                mx.nd.waitall()
            except mx.MXNetError:
                pass
        try:
            fn()
            print("PASS %s" % name, flush=True)
        except Exception:  # noqa: BLE001 - reported per check
            why = traceback.format_exc().strip().replace("\n", " | ")
            print("FAIL %s: %s" % (name, why), flush=True)


if __name__ == "__main__":
    main()
