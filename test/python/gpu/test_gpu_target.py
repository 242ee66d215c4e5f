"""The CUDA target on a machine without a GPU (docs/gpu.md): what can be
checked without one is checked here; scripts/gpu-check.sh runs the same
graphs on a GPU against the CPU backend.

- every kernel `mxc compile --target cuda --emit ptx` writes for
  test/gpu/models.py's graphs is accepted by ptxas for sm_90 (and sm_80), and
  elementwise graphs whose rows hold a multiple of 4 elements get 128-bit
  loads and stores;
- the executable (`--emit exe`) links no OpenBLAS, LLVM or CUDA library (only
  the driver is loaded, at run time) and, without a driver, exits 1 with one
  line naming why;
- GEMM-class steps (FullyConnected, dot, batch_dot) call the runtime's cuBLAS
  kernels (convolutions its cuDNN kernel);
- library kernels without a GPU implementation (topk's) call their host-staged
  twins; a bad --cuda-arch and --emit ptx without --target cuda are one-line
  errors;
- training steps (`mxc compile --train`, models.TRAINING: LeNet, a convnet
  with every gradient twin, ResNet-18) compile for the GPU, their
  convolution and pooling gradients calling the runtime's cuDNN kernels (the
  pooling gradients cuDNN cannot compute, lp and pooling_convention 'full',
  the CPU kernel's host twin);
- the check's own harness (test/gpu/inputs.py draws, compare.py compares):
  the training graphs and op groups (test/gpu/ops.py: every operator of the
  CPU op tests with a GPU path, one node each) compiled for this CPU, on
  inputs drawn as the device machine draws them, match the float64
  references within the check's tolerances, and the comparison fails on a
  changed, missing or wrongly shaped output.

Needs the CUDA toolkit (ptxas, libdevice) at $CUDA_HOME or /usr/local/cuda:
a missing toolkit fails, never skips.
"""
import glob
import io
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import mxc as mx

import mxc_testing

ROOT = mxc_testing.ROOT
sys.path.insert(0, os.path.join(ROOT, "test", "gpu"))
import compare  # noqa: E402
import inputs  # noqa: E402
import models  # noqa: E402
import ops  # noqa: E402

CUDA = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
PTXAS = os.path.join(CUDA, "bin", "ptxas")


def _mxc(*args, timeout=300):
    return subprocess.run([mxc_testing.mxc_binary(), *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("name", sorted(models.MODELS) + sorted(models.TRAINING) +
                         sorted(ops.OPS) + sorted(ops.GRADS))
def test_every_kernel_assembles_for_sm90(graphs, name, tmp_path):
    assert os.access(PTXAS, os.X_OK), "no ptxas at %s (the CUDA toolkit)" % PTXAS
    # The training graphs' and op groups' hundreds of kernels: sm_90 only.
    for arch in ("sm_90", "sm_80") if name in models.MODELS else ("sm_90",):
        out = str(tmp_path / arch)
        p = _mxc("compile", os.path.join(graphs, name + "-symbol.json"),
                 *models.mxc_args(graphs, name), "--target", "cuda", "--cuda-arch", arch,
                 "--emit", "ptx", "-o", out)
        assert p.returncode == 0, p.stderr
        ptx = sorted(glob.glob(os.path.join(out, "*.ptx")))
        # matmul's steps are all cuBLAS calls, softmax's all cuDNN's: no
        # kernel of ours.
        assert ptx or name in ("matmul", "softmax"), "no kernels written"
        if name in ("fused_chain", "broadcast"):
            # Rows of a multiple of 4 elements: 128-bit loads and stores.
            text = "".join(open(f).read() for f in ptx)
            assert "ld.global.v4" in text and "st.global.v4" in text, name
        for f in ptx:
            text = open(f).read()
            assert ".target %s" % arch in text, f
            assert "__nv_" not in text, "%s: an unresolved libdevice call" % f
            a = subprocess.run([PTXAS, "-arch=" + arch, f, "-o", os.devnull],
                               capture_output=True, text=True, timeout=120)
            assert a.returncode == 0, "%s: %s" % (f, a.stderr)


def _jit_args(graphs, name):
    """(shapes, train, wrt) for mx._mxc.compile from the check's files."""
    with open(os.path.join(graphs, name + ".shapes")) as f:
        words = f.read().split()
    shapes = {}
    for w in words:
        if w != "--shape":
            k, v = w.split("=")
            shapes[k] = [int(x) for x in v.split(",")]
    extra = []
    if os.path.exists(os.path.join(graphs, name + ".compile")):
        with open(os.path.join(graphs, name + ".compile")) as f:
            extra = f.read().split()
    wrt = extra[extra.index("--wrt") + 1].split(",") if "--wrt" in extra else []
    return shapes, "--train" in extra, wrt


@pytest.mark.parametrize("name", sorted(models.MODELS) + sorted(models.TRAINING) +
                         sorted(ops.OPS) + sorted(ops.GRADS))
def test_the_jit_compiles_every_check_graph_for_the_gpu(graphs, name):
    """The JIT's GPU path (mxc run --device gpu; mx._mxc.compile(cuda_arch=)):
    every graph of the check compiles for sm_90 in this process, its object
    links in ORC and its kernel binaries' module constructor runs
    (`<entry>_module_init`; without a driver the load's failure is kept for
    the first step); the plan is on gpu(0); and run() gives the runtime's
    one-line reason where there is no GPU (on a lent GPU, gpu-check.sh runs
    them against the references)."""
    with open(os.path.join(graphs, name + "-symbol.json")) as f:
        text = f.read()
    shapes, train, wrt = _jit_args(graphs, name)
    c = mx._mxc.compile(text, shapes, {}, train=train, wrt=wrt, disk_cache=False,
                        cuda_arch="sm_90")
    assert c.device == "gpu(0)" and c.num_steps > 0
    if mx.context.num_gpus() > 0:
        return
    ins = [np.zeros(shape, dtype) for _, _, shape, dtype in c.inputs]
    outs = [np.zeros(shape, dtype) for _, _, shape, dtype in c.outputs]
    with pytest.raises(RuntimeError, match=r"gpu\(0\) is not available"):
        c.run(ins, outs)


def test_executable_needs_only_the_driver(graphs, tmp_path):
    exe = str(tmp_path / "broadcast")
    p = _mxc("compile", os.path.join(graphs, "broadcast-symbol.json"),
             *models.mxc_args(graphs, "broadcast"), "--target", "cuda", "-o", exe)
    assert p.returncode == 0, p.stderr
    libs = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
    for bad in ("openblas", "dnnl", "LLVM", "MLIR", "libcuda", "cublas", "cudnn"):
        assert bad not in libs, libs
    if subprocess.run(["sh", "-c", "ldconfig -p | grep -q libcuda.so.1"]).returncode == 0:
        pytest.skip("this machine has a CUDA driver: scripts/gpu-check.sh runs the model")
    r = subprocess.run([exe, *models.input_args(graphs, "broadcast", tmp_path),
                        "--output-dir", str(tmp_path / "out")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "gpu(0) is not available: no CUDA driver: cannot load libcuda.so.1" in lines[0]


def test_host_kernels_are_called_for_the_gpu(tmp_path):
    """The library kernels without a GPU implementation (topk, the detection,
    LU / syevd and region kernels) compile for the GPU as calls of their
    host-staged twins (runtime/src/cuda/host_kernels.cc), not of the CPU
    kernels."""
    sym = mxc_testing.one_op_graph("topk", {"k": 2, "ret_typ": "value"}, ["data"], name="top1")
    path = tmp_path / "topk-symbol.json"
    path.write_text(json.dumps(sym))
    out = str(tmp_path / "topk.ll")
    p = _mxc("compile", str(path), "--shape", "data=4,16", "--target", "cuda", "--emit", "llvm",
             "-o", out)
    assert p.returncode == 0, p.stderr
    ir = open(out).read()
    assert "call void @mxc_cuda_kernel_topk_f32(" in ir and "@mxc_kernel_topk_f32" not in ir


def test_gemm_steps_call_cublas(graphs, tmp_path):
    """FullyConnected / dot steps call the runtime's cuBLAS kernels from the
    host code; the executable still links no CUDA library (cuBLAS is loaded
    at run time)."""
    out = str(tmp_path / "mlp.ll")
    p = _mxc("compile", os.path.join(graphs, "mlp-symbol.json"), *models.mxc_args(graphs, "mlp"),
             "--target", "cuda", "--emit", "llvm", "-o", out)
    assert p.returncode == 0, p.stderr
    ir = open(out).read()
    assert ir.count("call void @mxc_cuda_kernel_fully_connected_f32(") >= 3, ir[:2000]
    assert "@mxc_kernel_fully_connected_f32" not in ir
    out = str(tmp_path / "convnet.ll")
    p = _mxc("compile", os.path.join(graphs, "convnet-symbol.json"),
             *models.mxc_args(graphs, "convnet"), "--target", "cuda", "--emit", "llvm", "-o", out)
    assert p.returncode == 0, p.stderr
    ir = open(out).read()
    assert (ir.count("call void @mxc_cuda_kernel_conv_workspace_f32(") >= 4
            and "@mxc_kernel_conv" not in ir)
    exe = str(tmp_path / "matmul")
    p = _mxc("compile", os.path.join(graphs, "matmul-symbol.json"),
             *models.mxc_args(graphs, "matmul"), "--target", "cuda", "-o", exe)
    assert p.returncode == 0, p.stderr
    libs = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
    assert "cublas" not in libs and "openblas" not in libs, libs


@pytest.mark.parametrize("args,message", [
    (["--target", "cuda", "--cuda-arch", "sm_70"], "expected sm_75 to sm_121"),
    (["--target", "cuda", "--cuda-arch", "gfx90a"], "expected sm_75 to sm_121"),
    (["--emit", "ptx"], "--emit=ptx needs --target cuda"),
    (["--cuda-arch", "sm_90"], "need --target cuda"),
    (["--target", "cuda", "--cuda-block-size", "2048"], "--cuda-block-size must be 32 to 1024"),
    (["--split-reduction-threads", "262144"], "need --target cuda, --device gpu or --split-reductions"),
    (["--target", "cuda", "--split-reduction-chunks", "1"], "--split-reduction-chunks at least 2"),
    (["--target", "cuda", "--batch-norm-kernels", "cudnn"],
     "--batch-norm-kernels must be library or generated, got 'cudnn'"),
])
def test_bad_cuda_options_are_one_line_errors(graphs, args, message, tmp_path):
    p = _mxc("compile", os.path.join(graphs, "unary-symbol.json"),
             *models.mxc_args(graphs, "unary"),
             *args, "-o", str(tmp_path / "out"))
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert message in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_training_steps_call_the_cudnn_gradient_kernels(graphs, tmp_path):
    """Convolution gradients (data and weights; a Deconvolution's forward is
    the data gradient) and pooling gradients (max, avg with and without the
    padding, sum) and training BatchNorm (forward and gradient, one step each
    per BatchNorm: the convnet has two) become calls of the runtime's cuDNN
    kernels from the host code; no CPU library kernel is left. With
    --batch-norm-kernels generated, BatchNorm is generated kernels again."""
    def compile_ir(*extra):
        out = str(tmp_path / ("convnet_train%s.ll" % len(extra)))
        p = _mxc("compile", os.path.join(graphs, "convnet_train-symbol.json"),
                 *models.mxc_args(graphs, "convnet_train"), "--target", "cuda", "--emit", "llvm",
                 *extra, "-o", out)
        assert p.returncode == 0, p.stderr
        return open(out).read()
    ir = compile_ir()
    for kernel in ("conv_workspace_f32", "conv_backward_data_f32", "conv_backward_weight_f32",
                   "pooling_backward_f32", "fully_connected_f32"):
        assert "call void @mxc_cuda_kernel_%s(" % kernel in ir, kernel
    # one step per BatchNorm and direction (the steps' `_kernel` entries may
    # inline a step's body: a second call in the text)
    steps = {}
    for line in ir.splitlines():
        if line.startswith("define "):
            fn = line.split("@", 1)[1].split("(", 1)[0]
        for kernel in ("batch_norm_train_f32", "batch_norm_backward_f32"):
            if "call void @mxc_cuda_kernel_%s(" % kernel in line:
                steps.setdefault(kernel, set()).add(fn[:-len("_kernel")]
                                                    if fn.endswith("_kernel") else fn)
    assert {k: len(v) for k, v in steps.items()} == {"batch_norm_train_f32": 2,
                                                     "batch_norm_backward_f32": 2}, steps
    assert "@mxc_kernel_" not in ir, [l for l in ir.splitlines() if "@mxc_kernel_" in l][:3]
    generated = compile_ir("--batch-norm-kernels", "generated")
    assert "batch_norm" not in generated
    # every generated kernel is a gpu.binary launch: more of them without cuDNN's
    assert generated.count("@mgpuLaunchKernel(") > ir.count("@mgpuLaunchKernel(")
    # The executable of a training step still links no CUDA library.
    exe = str(tmp_path / "lenet_train")
    p = _mxc("compile", os.path.join(graphs, "lenet_train-symbol.json"),
             *models.mxc_args(graphs, "lenet_train"), "--target", "cuda", "-o", exe)
    assert p.returncode == 0, p.stderr
    libs = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
    for bad in ("openblas", "dnnl", "libcuda", "cublas", "cudnn"):
        assert bad not in libs, libs


@pytest.mark.parametrize("attrs", [{"pool_type": "lp", "p_value": 2},
                                   {"pool_type": "max", "pooling_convention": "full"}], ids=str)
def test_pooling_gradients_cudnn_cannot_take_run_on_the_host(attrs, tmp_path):
    """The pooling gradients cuDNN cannot compute call the CPU's kernel's
    host twin (mxc_cuda_kernel_pooling_backward_host_*); the others cuDNN's."""
    x = mx.sym.var("data")
    h = mx.sym.Convolution(x, kernel=(3, 3), num_filter=4, name="c")
    h = mx.sym.Pooling(h, kernel=(2, 2), stride=(2, 2), name="pool7", **attrs)
    h = mx.sym.Pooling(h, kernel=(2, 2), stride=(1, 1), pool_type="max", name="pool8")
    s = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=3, name="fc"), name="sm")
    path = str(tmp_path / "net-symbol.json")
    s.save(path)
    out = str(tmp_path / "net.ll")
    p = _mxc("compile", path, "--shape", "data=2,3,9,9", "--shape", "sm_label=2", "--train",
             "--weights", "inputs", "--target", "cuda", "--emit", "llvm", "-o", out)
    assert p.returncode == 0, p.stderr
    ir = open(out).read()
    assert "call void @mxc_cuda_kernel_pooling_backward_host_f32(" in ir
    assert "call void @mxc_cuda_kernel_pooling_backward_f32(" in ir
    assert "@mxc_kernel_pooling_backward" not in ir


def _splitmix64(i, seed):
    """One SplitMix64 output, in Python integers (inputs.uniform's reference)."""
    m = (1 << 64) - 1
    z = (i + seed * 0x9E3779B97F4A7C15) & m
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
    return z ^ (z >> 31)


def test_drawn_inputs_are_the_same_everywhere():
    """inputs.uniform is SplitMix64 of the index: the numpy arithmetic equals
    the integer definition bit for bit (the device machine draws the same
    weights whatever numpy it has)."""
    for seed in (1, 7, 101):
        got = inputs.uniform(1000, seed)
        want = np.array([(_splitmix64(i, seed) >> 40) / float(1 << 23) - 1.0
                         for i in range(1000)], np.float32)
        np.testing.assert_array_equal(got, want)
        assert got.min() >= -1 and got.max() < 1 and abs(float(got.mean())) < 0.1
    w = inputs.draw({"shape": [8, 4, 3, 3], "kind": "weight", "seed": 3})
    assert w.dtype == np.float32 and np.abs(w).max() <= np.sqrt(3.0 / 36)
    lab = inputs.draw({"shape": [500], "kind": "label:10", "seed": 4})
    assert set(np.unique(lab)) == set(range(10))


@pytest.fixture(scope="module")
def host_runs(graphs, tmp_path_factory):
    """{name: (reference dir, outputs dir, tolerance args)} of the training
    graphs and op groups compiled for this CPU and run on drawn inputs, as
    `scripts/gpu-check.sh selftest` does."""
    d = tmp_path_factory.mktemp("host-runs")
    runs = {}
    for name in sorted(models.TRAINING) + sorted(ops.OPS) + sorted(ops.GRADS):
        exe = str(d / name)
        p = _mxc("compile", os.path.join(graphs, name + "-symbol.json"),
                 *models.mxc_args(graphs, name), "-o", exe)
        assert p.returncode == 0, p.stderr
        out = str(d / (name + ".out"))
        r = subprocess.run([exe, *models.input_args(graphs, name, d), "--output-dir", out],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        with open(os.path.join(graphs, name + ".tol")) as f:
            tol = f.read().split()
        runs[name] = (os.path.join(graphs, name + ".ref"), out, tol)
    return runs


@pytest.mark.parametrize("name", sorted(models.TRAINING))
def test_training_step_on_the_cpu_matches_the_check_reference(host_runs, name):
    """The AOT training step (`mxc compile --train --weights inputs`) on the
    drawn inputs equals the Python executor's forward(is_train=True) +
    backward() within the check's tolerance: the references and the harness
    the device run is compared with are right."""
    ref, out, tol = host_runs[name]
    lines = io.StringIO()
    bad = compare.compare(ref, out, name, float(tol[0]), float(tol[1]), "scaled" in tol,
                          out=lines, kinks="kinks" in tol)
    assert bad == 0, lines.getvalue()
    # Every parameter's gradient is compared (sampled where large).
    grads = [l for l in lines.getvalue().splitlines() if "_grad ok" in l]
    with open(os.path.join(os.path.dirname(ref), name + ".gen.json")) as f:
        params = [k for k in json.load(f)
                  if k not in ("data", "softmax_label") and "moving" not in k]
    assert len(grads) == len(params), lines.getvalue()


@pytest.mark.parametrize("name", sorted(ops.OPS) + sorted(ops.GRADS))
def test_op_group_on_the_cpu_matches_the_check_reference(host_runs, name):
    """Every op of the check's op groups (and every float input's gradient
    of their training steps), compiled for this CPU on the drawn inputs, is
    within the group's tolerance of the float64 reference (what the GPU's
    outputs are held to), and every op (gradient) has a reference."""
    ref, out, tol = host_runs[name]
    lines = io.StringIO()
    bad = compare.compare(ref, out, name, float(tol[0]), float(tol[1]), "scaled" in tol,
                          out=lines, kinks="kinks" in tol)
    assert bad == 0, lines.getvalue()
    symbol = mx.sym.load(os.path.join(os.path.dirname(ref), name + "-symbol.json"))
    if name in ops.GRADS:
        with open(os.path.join(os.path.dirname(ref), name + ".compile")) as f:
            expected = len(f.read().split("--wrt")[1].split()[0].split(","))
    else:
        expected = len(symbol.list_outputs())
    assert lines.getvalue().count(" ok ") == expected, lines.getvalue()


def test_the_comparison_fails_on_a_wrong_output(host_runs, tmp_path):
    # (the float64 ResNet-18: compared element by element, no `kinks`)
    ref, out, tol = host_runs["resnet18_train_f64"]
    rtol, atol, scaled = float(tol[0]), float(tol[1]), "scaled" in tol
    assert "kinks" not in tol

    def run_with(change):
        d = tmp_path / change
        shutil.copytree(out, d)
        return d

    # A sampled gradient (ResNet-18's largest) with one sampled element off;
    # one with 2000 elements off the sample wrong (a corrupted region the
    # sample misses: the sum / L2 bounds find it); a missing output, a
    # wrongly shaped one.
    s = np.load(os.path.join(ref, "stage4_unit2_conv2_weight_grad.sample.npz"))
    key = "stage4_unit2_conv2_weight_grad.npy"
    d = run_with("sampled")
    a = np.load(d / key)
    a.reshape(-1)[s["idx"][7]] += 0.01 * float(s["amax"])
    np.save(d / key, a)
    assert compare.compare(ref, str(d), "r", rtol, atol, scaled, out=io.StringIO()) == 1
    d = run_with("unsampled")
    a = np.load(d / key)
    off = np.setdiff1d(np.arange(a.size), s["idx"])[:2000]
    a.reshape(-1)[off] += 3 * float(s["amax"])
    np.save(d / key, a)
    assert compare.compare(ref, str(d), "r", rtol, atol, scaled, out=io.StringIO()) == 1
    d = run_with("missing")
    os.remove(d / "fc1_bias_grad.npy")
    assert compare.compare(ref, str(d), "r", rtol, atol, scaled, out=io.StringIO()) == 1
    d = run_with("shape")
    np.save(d / "fc1_bias_grad.npy", np.zeros(3, np.float32))
    assert compare.compare(ref, str(d), "r", rtol, atol, scaled, out=io.StringIO()) == 1
    assert compare.compare(ref, out, "r", rtol, atol, scaled, out=io.StringIO()) == 0


def test_kinks_tolerate_a_flipped_relu_not_a_wrong_gradient():
    """compare.py's `kinks` (ResNet-18's float32 gradients): a gradient
    whose elements are off by up to 5% of its scale in a tenth of them at a
    small relative L2 error (a ReLU input on the other side of its kink)
    passes; the same bound without `kinks` fails it, and a gradient off by
    a tenth everywhere, a sign, or a NaN fails either way."""
    rng = np.random.default_rng(1)
    ref = rng.standard_normal(4096)
    flip = ref.copy()
    idx = rng.choice(ref.size, 400, replace=False)
    flip[idx] += 0.05 * np.abs(ref).max() * rng.uniform(-1, 1, idx.size) * 0.1
    flip[idx[0]] += 0.05 * np.abs(ref).max()
    assert compare.check(ref, flip, 1e-3, 1e-5, True, kinks=True)[0]
    assert not compare.check(ref, flip, 1e-3, 1e-5, True)[0]
    note = []
    compare.check(ref, flip, 1e-3, 1e-5, True, kinks=True, note=note)
    assert note and "beyond the bound" in note[0]
    for bad in (ref * 1.1, -ref, np.where(np.arange(ref.size) == 3, np.nan, ref)):
        assert not compare.check(ref, bad, 1e-3, 1e-5, True, kinks=True)[0]


def test_kinks_hold_for_sampled_references(tmp_path):
    """A sampled reference (over 65536 elements) with `kinks`: a tenth of
    the elements off by up to 2% of the scale passes (the sample's relative
    L2 error; the whole array's norm and sum move little: the errors have
    both signs); a tenth of the elements off by 50% does not."""
    rng = np.random.default_rng(2)
    ref = rng.standard_normal(100000)
    refdir, gotdir = tmp_path / "ref", tmp_path / "got"
    refdir.mkdir()
    gotdir.mkdir()
    compare.save_reference(str(refdir / "w_grad"), ref, keep_float64=True)
    assert os.path.exists(refdir / "w_grad.sample.npz")
    idx = rng.choice(ref.size, ref.size // 10, replace=False)
    for scale, want in ((0.02, 0), (0.5, 1)):
        got = ref.copy()
        got[idx] += scale * np.abs(ref).max() * rng.uniform(-1, 1, idx.size)
        np.save(gotdir / "w_grad.npy", got)
        lines = io.StringIO()
        assert compare.compare(str(refdir), str(gotdir), "k", 1e-3, 1e-5, True, out=lines,
                               kinks=True) == want, lines.getvalue()
        assert compare.compare(str(refdir), str(gotdir), "k", 1e-3, 1e-5, True,
                               out=io.StringIO()) == 1


@pytest.mark.parametrize("name", ["reductions", "softmax", "convnet_train", "resnet18_train"])
def test_split_reductions_keep_the_results(graphs, name, tmp_path):
    """mxc-split-reductions (on for --target cuda: a reduction's outputs are
    its GPU threads) is target-independent, so the CPU checks its numerics:
    `mxc run --split-reductions` gives the unsplit graph's results within
    float rounding (partial sums: some bits differ, which shows the split
    ran), for reductions over every axis, softmax, and training steps'
    BatchNorm statistics and gradients."""
    args = [os.path.join(graphs, name + "-symbol.json")]
    with open(os.path.join(graphs, name + ".shapes")) as f:
        args += f.read().split()
    if name in models.TRAINING:
        args.append("--train")
    args += models.input_args(graphs, name, tmp_path)
    # The default split, and the knobs gpu-check's benchmark compares
    # (--split-reduction-threads / -chunks: more, smaller chunks).
    modes = {"plain": [], "split": ["--split-reductions"],
             "split-262144x4096": ["--split-reductions", "--split-reduction-threads", "262144",
                                   "--split-reduction-chunks", "4096"]}
    outs = {}
    for mode, extra in modes.items():
        out = str(tmp_path / mode)
        p = _mxc("run", *args, *extra, "--output-dir", out)
        assert p.returncode == 0, p.stderr
        outs[mode] = {os.path.basename(f): np.load(f) for f in glob.glob(out + "/*.npy")}
    for mode in ("split", "split-262144x4096"):
        assert outs["plain"].keys() == outs[mode].keys() and outs["plain"]
        differ = 0
        for k, a in outs["plain"].items():
            b = outs[mode][k]
            # Gradients relative to their array's scale (compare.py's `scaled`);
            # a bias before BatchNorm has a zero gradient, rounding noise.
            ok, err = compare.check(a, b, 1e-4, 5e-5 if name in models.TRAINING else 1e-6,
                                    scaled=name in models.TRAINING)
            assert ok, (mode, k, err)
            differ += int(not np.array_equal(a, b))
        assert differ > 0, "%s changed no bit: did mxc-split-reductions run?" % mode
    # ResNet-18's BatchNorm statistics split into other chunks: other
    # partial sums, so other bits somewhere (the smaller graphs' reductions
    # are short enough to split the same way under both settings).
    if name == "resnet18_train":
        assert any(not np.array_equal(outs["split"][k], b)
                   for k, b in outs["split-262144x4096"].items())


@pytest.mark.parametrize("name", ["convnet_train", "resnet18_train"])
def test_library_batch_norm_keeps_the_results(graphs, name, tmp_path):
    """Training BatchNorm as one library kernel forward and one backward (the
    CUDA target's default, cuDNN there) has CPU twins
    (runtime/src/kernels/batch_norm.cc), so the CPU checks the graph form:
    `mxc run --train --batch-norm-kernels library` gives the composed form's
    outputs, gradients and moving statistics within float rounding (other
    sums: some bits differ, which shows the library form ran)."""
    args = [os.path.join(graphs, name + "-symbol.json"), "--train"]
    with open(os.path.join(graphs, name + ".shapes")) as f:
        args += f.read().split()
    args += models.input_args(graphs, name, tmp_path)
    outs = {}
    for mode in ("generated", "library"):
        out = str(tmp_path / mode)
        p = _mxc("run", *args, "--batch-norm-kernels", mode, "--output-dir", out)
        assert p.returncode == 0, p.stderr
        outs[mode] = {os.path.basename(f): np.load(f) for f in glob.glob(out + "/*.npy")}
    assert outs["generated"].keys() == outs["library"].keys()
    assert any(k.endswith(".aux.npy") for k in outs["library"])
    differ = 0
    for k, a in outs["generated"].items():
        b = outs["library"][k]
        ok, err = compare.check(a, b, 1e-4, 5e-5, scaled=True)
        assert ok, (k, err)
        differ += int(not np.array_equal(a, b))
    assert differ > 0, "no bit changed: did the library BatchNorm run?"


def test_step_profile_sums_a_real_trace_by_kind(graphs, tmp_path):
    """bench/gpu/step_profile.py (gpu-check's breakdown of ResNet-50's step on
    the GPU) over a trace the runtime's profiler writes for a training step run
    here: forward and backward steps of each kind, shares adding to 100%."""
    sys.path.insert(0, os.path.join(ROOT, "bench", "gpu"))
    import step_profile
    assert step_profile.kind("stage1_unit2_bn3.1") == "bn (backward)"
    assert step_profile.kind("stage1_unit2_conv1") == "conv (forward)"
    assert step_profile.kind("_plus15") == "_plus (forward)"
    trace = str(tmp_path / "trace.json")
    name = "lenet_train"
    env = dict(os.environ, MXC_PROFILE=trace)
    p = subprocess.run([mxc_testing.mxc_binary(), "run", os.path.join(graphs, name + "-symbol.json"),
                        *open(os.path.join(graphs, name + ".shapes")).read().split(), "--train",
                        "--repeat", "3"], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    out = io.StringIO()
    assert step_profile.main(trace, out=out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("3 runs of "), lines[0]
    kinds = {ln.split(" (")[0] + " (" + ln.split(" (")[1].split(")")[0] + ")"
             for ln in lines[2:]}
    assert {"conv (forward)", "conv (backward)", "fc (forward)", "fc (backward)"} <= kinds, kinds
    share = sum(float(ln.split()[-1].rstrip("%")) for ln in lines[2:])
    assert abs(share - 100.0) < 0.5, share
