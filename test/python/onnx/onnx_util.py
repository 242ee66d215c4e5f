"""Helpers of the mx.onnx tests: running a model in ONNX Runtime and an
imported one in mxc, and comparing them."""
import numpy as np


def ort_run(model_or_path, feed):
    """ONNX Runtime's outputs (CPU, 2 threads) for `feed` (name -> array)."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    src = model_or_path if isinstance(model_or_path, str) else model_or_path.SerializeToString()
    sess = ort.InferenceSession(src, so, providers=["CPUExecutionProvider"])
    return sess.run(None, feed), [o.name for o in sess.get_outputs()], [i.name for i in sess.get_inputs()]


def mxc_run(sym, arg_params, aux_params, feed):
    """mxc's outputs of a symbol bound to parameters and the inputs in `feed`."""
    import mxc as mx
    args = {}
    for name in sym.list_arguments():
        if name in feed:
            args[name] = mx.nd.array(feed[name], dtype=feed[name].dtype)
        else:
            args[name] = arg_params[name]
    aux = {name: aux_params[name] for name in sym.list_auxiliary_states()}
    exe = sym.bind(mx.cpu(), args, aux_states=aux, grad_req="null")
    return [o.asnumpy() for o in exe.forward(is_train=False)]


def cli_run(path, feed, out_names, work_dir):
    """Outputs of `mxc run path` (the CLI's ONNX input) for `feed`, in the
    order of `out_names` (the graph's output names)."""
    import os
    import subprocess
    from mxc_testing import mxc_binary
    cmd = [mxc_binary(), "run", path, "--output-dir", os.path.join(work_dir, "cli-out")]
    for name, value in feed.items():
        f = os.path.join(work_dir, "cli-in-%s.npy" % name)
        np.save(f, value)
        cmd += ["--input", "%s=%s" % (name, f)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return [np.load(os.path.join(work_dir, "cli-out", n + "_output.npy")) for n in out_names]


def assert_close(got, want, rtol=1e-4, atol=1e-5, what=""):
    """Elementwise |got - want| <= atol + rtol |want| (1e-4 relative, with an
    absolute floor for values near zero)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, "%s: shape %s, expected %s" % (what, got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


def random_params(sym, data_shapes, seed=0, skip=()):
    """Random arg / aux values for `sym` (positive variances for BatchNorm)."""
    rng = np.random.default_rng(seed)
    arg_shapes, _, aux_shapes = sym.infer_shape(**data_shapes)
    args, aux = {}, {}
    for name, shape in zip(sym.list_arguments(), arg_shapes):
        if name in data_shapes or name in skip:
            continue
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        scale = np.sqrt(3.0 / fan_in) if len(shape) > 1 else 0.5
        args[name] = (rng.uniform(-1, 1, shape) * scale).astype(np.float32)
        if name.endswith("gamma"):
            args[name] = rng.uniform(0.5, 1.5, shape).astype(np.float32)
    for name, shape in zip(sym.list_auxiliary_states(), aux_shapes):
        if name.endswith("var"):
            aux[name] = rng.uniform(0.5, 1.5, shape).astype(np.float32)
        else:
            aux[name] = rng.uniform(-0.2, 0.2, shape).astype(np.float32)
    return args, aux
