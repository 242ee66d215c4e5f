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
- a graph with an op that has no GPU kernel yet (topk's runtime kernel), a bad
  --cuda-arch, and --emit ptx without --target cuda are one-line errors.

Needs the CUDA toolkit (ptxas, libdevice) at $CUDA_HOME or /usr/local/cuda:
a missing toolkit fails, never skips.
"""
import glob
import json
import os
import subprocess
import sys

import pytest

import mxc_testing

ROOT = mxc_testing.ROOT
sys.path.insert(0, os.path.join(ROOT, "test", "gpu"))
import models  # noqa: E402

CUDA = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
PTXAS = os.path.join(CUDA, "bin", "ptxas")


def _mxc(*args, timeout=300):
    return subprocess.run([mxc_testing.mxc_binary(), *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("gpu-models"))
    models.main(d)
    return d


def _shape_args(graphs, name):
    """The --shape arguments, and --params for the auxiliary states."""
    with open(os.path.join(graphs, name + ".shapes")) as f:
        args = f.read().split()
    params = os.path.join(graphs, name + "-0000.params")
    return args + (["--params", params] if os.path.exists(params) else [])


@pytest.mark.parametrize("name", sorted(models.MODELS))
def test_every_kernel_assembles_for_sm90(graphs, name, tmp_path):
    assert os.access(PTXAS, os.X_OK), "no ptxas at %s (the CUDA toolkit)" % PTXAS
    for arch in ("sm_90", "sm_80"):
        out = str(tmp_path / arch)
        p = _mxc("compile", os.path.join(graphs, name + "-symbol.json"),
                 *_shape_args(graphs, name), "--target", "cuda", "--cuda-arch", arch,
                 "--emit", "ptx", "-o", out)
        assert p.returncode == 0, p.stderr
        ptx = sorted(glob.glob(os.path.join(out, "*.ptx")))
        # matmul's steps are all cuBLAS calls: no kernel of ours.
        assert ptx or name == "matmul", "no kernels written"
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


def test_executable_needs_only_the_driver(graphs, tmp_path):
    exe = str(tmp_path / "broadcast")
    p = _mxc("compile", os.path.join(graphs, "broadcast-symbol.json"),
             *_shape_args(graphs, "broadcast"), "--target", "cuda", "-o", exe)
    assert p.returncode == 0, p.stderr
    libs = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
    for bad in ("openblas", "dnnl", "LLVM", "MLIR", "libcuda", "cublas", "cudnn"):
        assert bad not in libs, libs
    if subprocess.run(["sh", "-c", "ldconfig -p | grep -q libcuda.so.1"]).returncode == 0:
        pytest.skip("this machine has a CUDA driver: scripts/gpu-check.sh runs the model")
    inputs = []
    for f in sorted(glob.glob(os.path.join(graphs, "broadcast.in", "*.npy"))):
        inputs += ["--input", "%s=%s" % (os.path.basename(f)[:-4], f)]
    r = subprocess.run([exe, *inputs, "--output-dir", str(tmp_path / "out")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "gpu(0) is not available: no CUDA driver: cannot load libcuda.so.1" in lines[0]


def test_ops_without_a_gpu_kernel_name_the_node(tmp_path):
    sym = mxc_testing.one_op_graph("topk", {"k": 2, "ret_typ": "value"}, ["data"], name="top1")
    path = tmp_path / "topk-symbol.json"
    path.write_text(json.dumps(sym))
    p = _mxc("compile", str(path), "--shape", "data=4,16", "--target", "cuda", "--emit", "ptx",
             "-o", str(tmp_path / "k"))
    assert p.returncode != 0
    assert "top1" in p.stderr and "has no GPU kernel yet" in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_gemm_steps_call_cublas(graphs, tmp_path):
    """FullyConnected / dot steps call the runtime's cuBLAS kernels from the
    host code; the executable still links no CUDA library (cuBLAS is loaded
    at run time)."""
    out = str(tmp_path / "mlp.ll")
    p = _mxc("compile", os.path.join(graphs, "mlp-symbol.json"), *_shape_args(graphs, "mlp"),
             "--target", "cuda", "--emit", "llvm", "-o", out)
    assert p.returncode == 0, p.stderr
    ir = open(out).read()
    assert ir.count("call void @mxc_cuda_kernel_fully_connected_f32(") >= 3, ir[:2000]
    assert "@mxc_kernel_fully_connected_f32" not in ir
    out = str(tmp_path / "convnet.ll")
    p = _mxc("compile", os.path.join(graphs, "convnet-symbol.json"),
             *_shape_args(graphs, "convnet"), "--target", "cuda", "--emit", "llvm", "-o", out)
    assert p.returncode == 0, p.stderr
    ir = open(out).read()
    assert ir.count("call void @mxc_cuda_kernel_conv_f32(") >= 4 and "@mxc_kernel_conv_f32" not in ir
    exe = str(tmp_path / "matmul")
    p = _mxc("compile", os.path.join(graphs, "matmul-symbol.json"),
             *_shape_args(graphs, "matmul"), "--target", "cuda", "-o", exe)
    assert p.returncode == 0, p.stderr
    libs = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
    assert "cublas" not in libs and "openblas" not in libs, libs


@pytest.mark.parametrize("args,message", [
    (["--target", "cuda", "--cuda-arch", "sm_70"], "expected sm_75 to sm_121"),
    (["--target", "cuda", "--cuda-arch", "gfx90a"], "expected sm_75 to sm_121"),
    (["--emit", "ptx"], "--emit=ptx needs --target cuda"),
    (["--cuda-arch", "sm_90"], "need --target cuda"),
    (["--target", "cuda", "--cuda-block-size", "2048"], "--cuda-block-size must be 32 to 1024"),
])
def test_bad_cuda_options_are_one_line_errors(graphs, args, message, tmp_path):
    p = _mxc("compile", os.path.join(graphs, "unary-symbol.json"), *_shape_args(graphs, "unary"),
             *args, "-o", str(tmp_path / "out"))
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert message in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
