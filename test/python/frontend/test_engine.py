"""mx.nd on the dependency engine (issue 11): laziness, the paper's
interleaving of w -= lr * g with executor passes, failures raised at the next
wait naming the operator, NaiveEngine, and a differential test of random
imperative ops and in-place updates against numpy."""
import os
import subprocess
import sys
import textwrap
import json

import numpy as np
import pytest

import mxc as mx


def _env(**extra):
    env = dict(os.environ)
    # The subprocess imports the same mxc package as this test.
    package_dir = os.path.dirname(os.path.dirname(mx.__file__))
    env["PYTHONPATH"] = os.pathsep.join(
        [package_dir] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.update(extra)
    return env


def test_a_chain_of_large_ops_returns_before_the_engine_is_done():
    rng = np.random.default_rng(0)
    a_np = rng.random((600, 600), dtype=np.float32)
    b_np = rng.random((600, 600), dtype=np.float32)
    a, b = mx.nd.array(a_np), mx.nd.array(b_np)
    # Compile every op of the chain first, so that the calls below only push.
    (mx.nd.dot(a, b) * 0.001 + a).wait_to_read()
    mx.nd.waitall()
    assert mx.nd._num_pending() == 0
    x = a
    for _ in range(8):
        x = mx.nd.dot(x, b) * 0.001 + a
    # The calls returned; the engine still holds their work (an engine
    # query: 24 pushed operations, each a 600^3 GEMM or a pass over 1.4 MB).
    assert mx.nd._num_pending() > 0
    mx.nd.waitall()
    assert mx.nd._num_pending() == 0
    ref = a_np
    for _ in range(8):
        ref = (ref @ b_np) * np.float32(0.001) + a_np
    np.testing.assert_allclose(x.asnumpy(), ref, rtol=1e-4)


def test_small_ops_on_ready_arrays_run_at_once_on_the_caller():
    # A one-step op on tiny arrays whose inputs are ready is an engine
    # FnProperty::Light op: it has run when the call returns (no worker
    # wake-up), and so has the freeing of arrays dropped on the way.
    a, b = mx.nd.ones((4, 4)), mx.nd.ones((4, 4))
    (a + b).wait_to_read()  # compiled
    mx.nd.waitall()
    x = a
    for _ in range(50):
        x = x + b
    assert mx.nd._num_pending() == 0
    np.testing.assert_array_equal(x.asnumpy(), 51)


def test_in_place_operators_are_engine_writes():
    w = mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    g = mx.nd.ones((2, 3))
    before = w._rt
    w -= 0.5 * g
    w += g
    w[:] = w * 2
    assert w._rt is before  # updated in place, same storage and variable
    np.testing.assert_allclose(w.asnumpy(), (np.arange(6).reshape(2, 3) + 0.5) * 2)
    out = mx.nd.zeros((2, 3))
    mx.nd.elemwise_add(w, g, out=out)
    np.testing.assert_allclose(out.asnumpy(), w.asnumpy() + 1)


def test_w_minus_lr_g_interleaved_with_executor_passes():
    """The paper's interleaving: updates pushed between forward/backward
    passes of an executor in random orders give exactly the serial numpy
    result (100 interleavings)."""
    rng = np.random.default_rng(1)
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=4, name="fc")
    net = mx.sym.sum(net * net)
    x_np = rng.standard_normal((3, 5)).astype(np.float32)
    w0 = rng.standard_normal((4, 5)).astype(np.float32)
    b0 = rng.standard_normal((4,)).astype(np.float32)
    exe = net.simple_bind(mx.cpu(), data=(3, 5), grad_req="write")
    exe.arg_dict["data"][:] = mx.nd.array(x_np)
    lr = 0.01

    def numpy_grads(w, b):
        y = x_np @ w.T + b
        return (2 * y).T @ x_np, (2 * y).sum(axis=0), (y * y).sum()

    for trial in range(100):
        exe.arg_dict["fc_weight"][:] = mx.nd.array(w0)
        exe.arg_dict["fc_bias"][:] = mx.nd.array(b0)
        w_ref, b_ref = w0.copy(), b0.copy()
        steps = int(rng.integers(1, 4))
        losses, ref_losses = [], []
        for _ in range(steps):
            exe.forward(is_train=True)
            exe.backward()
            gw, gb, loss = numpy_grads(w_ref, b_ref)
            ref_losses.append(loss)
            losses.append(exe.outputs[0])
            w, b = exe.arg_dict["fc_weight"], exe.arg_dict["fc_bias"]
            # Pushed in a random order; each reads the gradient the backward
            # pass wrote and writes the parameter the next forward reads.
            updates = [lambda: w.__isub__(lr * exe.grad_dict["fc_weight"]),
                       lambda: b.__isub__(lr * exe.grad_dict["fc_bias"])]
            for k in rng.permutation(2):
                updates[k]()
            w_ref = w_ref - np.float32(lr) * gw.astype(np.float32)
            b_ref = b_ref - np.float32(lr) * gb.astype(np.float32)
        np.testing.assert_allclose(exe.arg_dict["fc_weight"].asnumpy(), w_ref, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(exe.arg_dict["fc_bias"].asnumpy(), b_ref, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(losses[-1].asnumpy()[0], ref_losses[-1], rtol=1e-4)


def test_random_imperative_ops_and_in_place_updates_against_numpy():
    """The differential engine test, from Python: random sequences of ops,
    in-place updates (+=, -=, *=, out=, x[:] = y, copyto) and reads on a few
    arrays, pushed lazily, against the same program in numpy."""
    rng = np.random.default_rng(2)
    for trial in range(20):
        n = 4
        ref = [rng.standard_normal((16, 8)).astype(np.float32) for _ in range(n)]
        arrs = [mx.nd.array(r) for r in ref]
        for _ in range(40):
            op = int(rng.integers(0, 8))
            i, j, k = (int(v) for v in rng.integers(0, n, 3))
            if op == 0:
                arrs[i] = arrs[j] + arrs[k]
                ref[i] = ref[j] + ref[k]
            elif op == 1:
                arrs[i] += arrs[j]
                ref[i] += ref[j]
            elif op == 2:
                arrs[i] -= 0.5 * arrs[j]
                ref[i] -= np.float32(0.5) * ref[j]
            elif op == 3:
                mx.nd.elemwise_mul(arrs[j], arrs[k], out=arrs[i])
                ref[i] = ref[j] * ref[k]
            elif op == 4:
                arrs[i][:] = mx.nd.relu(arrs[j])
                ref[i] = np.maximum(ref[j], 0)
            elif op == 5:
                arrs[j].copyto(arrs[i])
                ref[i] = ref[j].copy()
            elif op == 6:
                arrs[i] *= 0.9
                ref[i] *= np.float32(0.9)
            else:  # a read in the middle
                np.testing.assert_allclose(arrs[i].asnumpy(), ref[i], rtol=1e-5, atol=1e-5)
            # keep the values bounded
            if np.abs(ref[i]).max() > 1e3:
                arrs[i] = arrs[i] * 1e-3
                ref[i] = ref[i] * np.float32(1e-3)
        for a, r in zip(arrs, ref):
            np.testing.assert_allclose(a.asnumpy(), r, rtol=1e-4, atol=1e-4)


def test_naive_engine_runs_everything_at_push(tmp_path):
    code = textwrap.dedent("""
        import numpy as np, mxc as mx
        a = mx.nd.ones((300, 300))
        x = a
        for _ in range(5):
            x = mx.nd.dot(x, a) * 0.01
        print(mx.nd._num_pending())
        print(float(x.asnumpy()[0, 0]))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=_env(MXNET_ENGINE_TYPE="NaiveEngine"), timeout=300)
    assert out.returncode == 0, out.stderr
    pending, value = out.stdout.split()
    assert int(pending) == 0
    assert abs(float(value) - 300.0 ** 5 * 0.01 ** 5) < 1e-2 * 300.0 ** 5 * 0.01 ** 5


@pytest.mark.parametrize("impl,side", [("im2col", 1024), ("default", 2048)])
def test_a_failing_kernel_raises_at_the_next_wait(tmp_path, impl, side):
    """A convolution whose scratch memory cannot be allocated (the address
    space is limited after the code is compiled) fails on the engine: the
    call returns, the next asnumpy() raises MXNetError naming the operator,
    and later independent ops still give correct results. Both f32 paths:
    im2col's columns (9x the input), and the default one's (oneDNN where the
    runtime has it) re-laid input and output."""
    cache = str(tmp_path / "cache")
    conv_env = {"MXC_CONV_IMPL": impl} if impl != "default" else {}
    prelude = textwrap.dedent("""
        import numpy as np, mxc as mx
        x = mx.nd.ones((1, 16, SIDE, SIDE))
        w = mx.nd.ones((4, 16, 3, 3))
        b = mx.nd.zeros((4,))
        small = mx.nd.ones((8, 8))
    """).replace("SIDE", str(side))
    warm = prelude + textwrap.dedent("""
        mx.nd.Convolution(x, w, b, kernel=(3, 3), pad=(1, 1), num_filter=4).wait_to_read()
        (small * 2 + 1).wait_to_read()
    """)
    out = subprocess.run([sys.executable, "-c", warm], capture_output=True, text=True,
                         env=_env(MXC_CACHE_DIR=cache, **conv_env), timeout=600)
    assert out.returncode == 0, out.stderr
    failing = prelude + textwrap.dedent("""
        import resource
        def vm_bytes():
            for line in open("/proc/self/status"):
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
        # Room for the arrays and code, not for the convolution's scratch.
        limit = vm_bytes() + 300 * 2 ** 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        y = mx.nd.Convolution(x, w, b, kernel=(3, 3), pad=(1, 1), num_filter=4)
        z = small * 2 + 1  # independent of y
        np.testing.assert_array_equal(z.asnumpy(), 3)
        try:
            y.asnumpy()
        except mx.MXNetError as e:
            print("ERROR", e)
        else:
            print("NO ERROR")
        np.testing.assert_array_equal((small + 41).asnumpy(), 42)
        print("AFTER OK")
    """)
    out = subprocess.run([sys.executable, "-c", failing], capture_output=True, text=True,
                         env=_env(MXC_CACHE_DIR=cache, **conv_env), timeout=600)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("ERROR"), out.stdout
    assert "convolution" in lines[0] and "scratch" in lines[0], lines[0]
    assert lines[-1] == "AFTER OK"


@pytest.mark.parametrize("call,op,message", [
    (lambda: mx.nd.random.normal(0, -1, (2, 2)), "_random_normal",
     "scale parameter in gaussian has to be positive"),
    (lambda: mx.nd.random.uniform(1, 0, (2, 2)), "_random_uniform",
     "low must be less or equal to high"),
    (lambda: mx.nd.random.gamma(-1, 1, (2, 2)), "_random_gamma",
     "alpha parameter in gamma distribution has to be positive"),
    (lambda: mx.nd.random.exponential(-1, shape=(2, 2)), "_random_exponential",
     "lambda parameter in exponential distribution has to be positive"),
    (lambda: mx.nd.random.poisson(-2, shape=(3,)), "_random_poisson",
     "lambda parameter in poisson distribution has to be non-negative"),
])
def test_a_bad_sampler_parameter_raises_at_the_wait(call, op, message):
    """MXNet checks a sampler's parameters inside its operator: the call
    returns, and the error surfaces at the next wait on the result or on what
    was computed from it (MXNet's test_exc_handling), naming the operator."""
    a = call()  # no error yet
    b = mx.nd.dot(a, a) if a.ndim == 2 else a + 1
    for wait in (a.asnumpy, b.wait_to_read):
        with pytest.raises(mx.MXNetError) as e:
            wait()
        assert op in str(e.value) and message in str(e.value), str(e.value)
    # the waits raised it: waitall does not raise it again (MXNet raises a
    # failure once) ...
    mx.nd.waitall()
    # ... but raises, once, one that nothing waited for
    c = call()
    with pytest.raises(mx.MXNetError, match=op):
        mx.nd.waitall()
    mx.nd.waitall()
    # the array stays failed (MXNet would hand out its garbage)
    with pytest.raises(mx.MXNetError, match=op):
        c.asnumpy()
    # independent work and a good draw are unaffected
    np.testing.assert_array_equal((mx.nd.ones((2,)) + 1).asnumpy(), 2)
    assert mx.nd.random.normal(0, 1, (3,)).asnumpy().shape == (3,)
    # out= is written by the failing operation too
    out = mx.nd.zeros((2,))
    mx.nd.random.normal(0, -1, out=out)
    with pytest.raises(mx.MXNetError):
        out.asnumpy()
    mx.nd.waitall()


@pytest.mark.parametrize("name,kwargs", [
    ("sgd", {}),
    ("sgd", {"momentum": 0.9, "wd": 1e-4, "clip_gradient": 0.5, "rescale_grad": 0.5}),
    ("adam", {"wd": 1e-3, "clip_gradient": 1.0}),
    ("adam", {"rescale_grad": 2.0}),
])
def test_optimizer_updates_are_compiled_kernels_on_the_engine(name, kwargs):
    """On runtime arrays the optimizers push compiled fused update kernels
    (mx.nd.sgd_update / sgd_mom_update / adam_update) that write the weight
    and states in place; they give bit for bit the numpy path's float32
    results (numpy-backed arrays still take it)."""
    rng = np.random.default_rng(3)
    w0 = rng.standard_normal((7, 5)).astype(np.float32)
    grads = [rng.standard_normal((7, 5)).astype(np.float32) for _ in range(5)]
    results = []
    for engine in (True, False):
        updater = mx.optimizer.get_updater(
            mx.optimizer.create(name, learning_rate=0.1, **kwargs))
        w = mx.nd.array(w0) if engine else mx.nd.NDArray(w0.copy())
        storage = w._rt
        for g in grads:
            updater(0, mx.nd.array(g) if engine else mx.nd.NDArray(g.copy()), w)
        if engine:
            assert w._rt is storage  # updated in place
        results.append(w.asnumpy())
    np.testing.assert_array_equal(results[0], results[1])


def test_nd_update_operators_follow_mxnet():
    rng = np.random.default_rng(4)
    w, g, m = (rng.standard_normal((4, 3)).astype(np.float32) for _ in range(3))
    lr, wd, mom = np.float32(0.05), np.float32(0.01), np.float32(0.9)
    out = mx.nd.sgd_update(mx.nd.array(w), mx.nd.array(g), lr=0.05, wd=0.01)
    np.testing.assert_allclose(out.asnumpy(), w - lr * (g + wd * w), rtol=1e-6)
    W, M = mx.nd.array(w), mx.nd.array(m)
    mx.nd.sgd_mom_update(W, mx.nd.array(g), M, lr=0.05, momentum=0.9, wd=0.01, out=W)
    m_ref = mom * m - lr * (g + wd * w)
    np.testing.assert_allclose(M.asnumpy(), m_ref, rtol=1e-6)
    np.testing.assert_allclose(W.asnumpy(), w + m_ref, rtol=1e-6)
    W, MEAN, VAR = mx.nd.array(w), mx.nd.zeros((4, 3)), mx.nd.zeros((4, 3))
    mx.nd.adam_update(W, mx.nd.array(g), MEAN, VAR, lr=0.01, out=W)
    mean, var = 0.1 * g, 0.001 * g * g
    np.testing.assert_allclose(MEAN.asnumpy(), mean, rtol=1e-6)
    np.testing.assert_allclose(VAR.asnumpy(), var, rtol=1e-5)
    np.testing.assert_allclose(W.asnumpy(), w - 0.01 * mean / (np.sqrt(var) + 1e-8), rtol=1e-5)
    with pytest.raises(mx.MXNetError, match="shape"):
        mx.nd.sgd_update(mx.nd.ones((2, 2)), mx.nd.ones((3,)), lr=0.1)


@pytest.mark.parametrize("kind", ["sgd", "sgd_mom", "adam"])
def test_nd_updates_write_the_weight_in_place(kind):
    """out=weight (MXNet's way): the compiled update reads and writes the
    weight and states through one buffer each (PipelineOptions::inPlace, a
    one-step plan), no result arrays and copies; the same float32 results as
    through new arrays (an out of its own), and as numpy. A weight passed as
    its own gradient, or an out of its own, takes new arrays."""
    from mxc import ndarray as nd
    rng = np.random.default_rng(5)
    shape = (301, 37)  # vector loops with a remainder
    w, g, s1 = (rng.standard_normal(shape).astype(np.float32) for _ in range(3))
    s2 = np.abs(rng.standard_normal(shape)).astype(np.float32)

    def run(in_place):
        W, G, S1, S2 = (mx.nd.array(a) for a in (w, g, s1, s2))
        storage = W._rt
        out = W if in_place else mx.nd.zeros(shape)
        if kind == "sgd":
            mx.nd.sgd_update(W, G, lr=0.05, wd=0.01, out=out)
            states = []
        elif kind == "sgd_mom":
            mx.nd.sgd_mom_update(W, G, S1, lr=0.05, momentum=0.9, wd=0.01, out=out)
            states = [S1]
        else:
            mx.nd.adam_update(W, G, S1, S2, lr=0.01, wd=0.01, out=out)
            states = [S1, S2]
        assert W._rt is storage
        return [out.asnumpy()] + [a.asnumpy() for a in states]

    in_place, copied = run(True), run(False)
    for a, b in zip(in_place, copied):
        np.testing.assert_array_equal(a, b)
    steps = {key[-1]: c for key, c in nd._update_cache.items()
             if key[0] == kind and key[1] == shape}
    assert steps[True] is not None and steps[True].num_steps == 1
    if kind == "sgd":
        np.testing.assert_allclose(in_place[0], w - np.float32(0.05) * (g + np.float32(0.01) * w),
                                   rtol=1e-6)
        W = mx.nd.array(w)
        mx.nd.sgd_update(W, W, lr=0.5, out=W)  # the weight is its own gradient
        np.testing.assert_allclose(W.asnumpy(), w - np.float32(0.5) * w, rtol=1e-6)


def test_in_place_outputs_are_checked():
    """compile(in_place=...): a clear error for an output or input that is
    not there, or of another type."""
    from mxc import _mxc
    nodes = [{"op": "null", "name": "w", "inputs": []}, {"op": "null", "name": "b", "inputs": []},
             {"op": "elemwise_sub", "name": "sub", "inputs": [[0, 0, 0], [1, 0, 0]]}]
    text = json.dumps({"nodes": nodes, "arg_nodes": [0, 1], "heads": [[2, 0, 0]],
                       "attrs": {"mxnet_version": ["int", 10901]}})
    shapes, dtypes = {"w": [3], "b": [3]}, {"w": "float32", "b": "float32"}
    assert _mxc.compile(text, shapes, dtypes, in_place=["0=w"]).num_steps == 1
    with pytest.raises(mx.MXNetError, match="in-place output '1=w': no output 1"):
        _mxc.compile(text, shapes, dtypes, in_place=["1=w"])
    with pytest.raises(mx.MXNetError, match="in-place output '0=x': no input named 'x'"):
        _mxc.compile(text, shapes, dtypes, in_place=["0=x"])
    cast = nodes + [{"op": "Cast", "name": "c", "attrs": {"dtype": "float64"},
                     "inputs": [[2, 0, 0]]}]
    text = json.dumps({"nodes": cast, "arg_nodes": [0, 1], "heads": [[3, 0, 0]],
                       "attrs": {"mxnet_version": ["int", 10901]}})
    with pytest.raises(mx.MXNetError, match="in-place output '0=w': output 0 is"):
        _mxc.compile(text, shapes, dtypes, in_place=["0=w"])


def test_from_numpy_and_dlpack_share_memory():
    import gc
    import sys
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    base = sys.getrefcount(a)
    x = mx.nd.from_numpy(a)  # zero copy: the runtime borrows a's memory
    assert np.shares_memory(x.asnumpy(), a) is False  # asnumpy copies
    assert np.shares_memory(np.asarray(x), a)
    y = x * 2
    np.testing.assert_array_equal(y.asnumpy(), a * 2)
    x += 1  # an engine write into a's memory
    mx.nd.waitall()
    np.testing.assert_array_equal(a, np.arange(12).reshape(3, 4) + 1)
    # The runtime keeps a referenced until it is done with the memory.
    assert sys.getrefcount(a) > base
    del x, y
    gc.collect()
    mx.nd.waitall()
    assert sys.getrefcount(a) == base
    # Non-contiguous: no zero-copy (ValueError, as MXNet's), a copy on request.
    v = np.arange(8, dtype=np.float32)[::2]
    with pytest.raises(ValueError):
        mx.nd.from_numpy(v)
    assert not np.shares_memory(np.asarray(mx.nd.from_numpy(v, zero_copy=False)), v)

    b = mx.nd.ones((2, 3))
    c = np.from_dlpack(b)  # __dlpack__: the consumer sees b's memory
    c[0, 0] = 7
    np.testing.assert_array_equal(b.asnumpy()[0], [7, 1, 1])
    d = mx.nd.from_dlpack(b.to_dlpack_for_write())  # MXNet's capsule route
    d += 1
    np.testing.assert_array_equal(b.asnumpy()[0], [8, 2, 2])
    e = mx.nd.from_dlpack(np.ones((2, 2), dtype=np.int64))
    assert e.dtype == np.int64
    np.testing.assert_array_equal((e + 1).asnumpy(), 2)
    with pytest.raises(mx.MXNetError):
        mx.nd.from_dlpack(object())


def test_exit_with_training_steps_in_flight(tmp_path):
    """A script that exits while convolution training steps are still running
    on the engine (no waitall) exits cleanly: the steps finish before the
    kernels' libraries (oneDNN's JIT code) are torn down."""
    code = textwrap.dedent("""
        import numpy as np, mxc as mx
        data = mx.sym.Variable("data")
        net = mx.sym.Convolution(data, kernel=(3, 3), pad=(1, 1), num_filter=32, name="c1")
        net = mx.sym.Activation(net, act_type="relu")
        net = mx.sym.Convolution(net, kernel=(3, 3), pad=(1, 1), num_filter=32, name="c2")
        net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.flatten(net), num_hidden=10),
                                   name="softmax")
        exe = net.simple_bind(mx.cpu(), data=(16, 8, 32, 32), grad_req="write")
        for a in exe.arg_arrays:
            a[:] = np.random.default_rng(0).uniform(-0.1, 0.1, a.shape)
        for _ in range(3):
            exe.forward(is_train=True)
            exe.backward()
        print("PUSHED")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=_env(MXC_CACHE_DIR=str(tmp_path / "cache")), timeout=600)
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    assert out.stdout.strip() == "PUSHED"
