"""The CUDA target's kernel mapping run on the CPU (`--emulate-gpu-kernels`,
docs/gpu.md "GPU kernel emulation"): every graph scripts/gpu-check.sh runs on a
GPU (test/gpu/models.py: the inference graphs, the training steps, the op
groups and their gradients) goes through the CUDA target's loop passes
(split reductions, parallel dimensions first, collapsed and unrolled loops,
blocks of threads, device temporaries, constants sunk into kernels) and each
launch then runs as a host loop over its blocks and threads
(mxc-gpu-launches-on-host), compared with the check's references by the
check's own comparison (test/gpu/compare.py). What runs on a GPU and is not
emulated: the NVVM lowering and libdevice's math, cuBLAS / cuDNN (the
library calls run the CPU kernels), concurrent threads. For that last one,
each graph also runs with the blocks and threads of every launch in reverse
order, and must give the same bits (at -O1: at -O3 LLVM reassociates the
reductions differently in the two orders' code): a kernel whose threads
read what others write would not.
"""
import glob
import io
import os
import subprocess
import sys

import numpy as np
import pytest

import mxc_testing

ROOT = mxc_testing.ROOT
sys.path.insert(0, os.path.join(ROOT, "test", "gpu"))
import compare  # noqa: E402
import models  # noqa: E402
import ops  # noqa: E402

NAMES = sorted(models.MODELS) + sorted(models.TRAINING) + sorted(ops.OPS) + sorted(ops.GRADS)


def _mxc(*args):
    return subprocess.run([mxc_testing.mxc_binary(), *args], capture_output=True, text=True,
                          timeout=600)


def _run(graphs, name, tmp_path, *extra):
    """Compiles `name` with `extra` into an executable, runs it on the
    check's inputs (given or drawn) and returns its output directory."""
    args = models.mxc_args(graphs, name)
    tag = "-".join(e.strip("-").replace("=", "_") for e in extra) or "plain"
    exe = str(tmp_path / (name + "." + tag))
    p = _mxc("compile", os.path.join(graphs, name + "-symbol.json"), *args, *extra, "-o", exe)
    assert p.returncode == 0, p.stderr
    out = exe + ".out"
    r = subprocess.run([exe, *models.input_args(graphs, name, tmp_path), "--output-dir", out],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.parametrize("name", NAMES)
def test_emulated_gpu_kernels_match_the_check_reference(graphs, name, tmp_path):
    """The graph's kernels as the GPU would run them, emulated, pass the
    comparison gpu-check holds the GPU's outputs to."""
    out = _run(graphs, name, tmp_path, "--emulate-gpu-kernels")
    tol = open(os.path.join(graphs, name + ".tol")).read().split()
    lines = io.StringIO()
    bad = compare.compare(os.path.join(graphs, name + ".ref"), out, name, float(tol[0]),
                          float(tol[1]), "scaled" in tol, out=lines, kinks="kinks" in tol)
    assert bad == 0, lines.getvalue()
    assert lines.getvalue().count(" ok ") == len(os.listdir(os.path.join(graphs, name + ".ref")))


@pytest.mark.parametrize("name", NAMES)
def test_emulated_threads_in_reverse_order_give_the_same_bits(graphs, name, tmp_path):
    outs = [_run(graphs, name, tmp_path, "--emulate-gpu-kernels=" + order, "-O1")
            for order in ("forward", "reversed")]
    files = sorted(os.path.basename(f) for f in glob.glob(outs[0] + "/*.npy"))
    assert files and files == sorted(os.path.basename(f) for f in glob.glob(outs[1] + "/*.npy"))
    differ = [f for f in files if not np.array_equal(np.load(os.path.join(outs[0], f)),
                                                     np.load(os.path.join(outs[1], f)),
                                                     equal_nan=True)]
    assert not differ, differ


def test_the_emulation_runs_the_gpu_mapping(graphs, tmp_path):
    """The steps are the CUDA target's launches (one-dimensional grids of
    128-thread blocks, 4 elements a thread), run as host loops: the IR after
    mxc-gpu-launches-on-host has the six-dimensional loops and nothing of
    the gpu dialect; --cuda-block-size changes the blocks."""
    def ir(*extra):
        p = _mxc("run", os.path.join(graphs, "fused_chain-symbol.json"),
                 *open(os.path.join(graphs, "fused_chain.shapes")).read().split(),
                 "--emulate-gpu-kernels", "--no-cache", *extra,
                 "--mlir-print-ir-after=mxc-gpu-launches-on-host",
                 "--output-dir", str(tmp_path / "out"))
        assert p.returncode == 0, p.stderr
        return p.stderr
    text = ir()
    assert "IR Dump After GPULaunchesOnHostPass" in text
    loops = [l for l in text.splitlines() if "scf.parallel" in l]
    assert loops and all(l.split("=")[0].count("%") == 6 for l in loops), loops
    after = text.split("IR Dump After GPULaunchesOnHostPass")[1]
    assert "gpu." not in after and "arith.subi" not in after
    assert ", %c128)" in loops[0]
    assert ", %c256)" in [l for l in ir("--cuda-block-size", "256").splitlines()
                          if "scf.parallel" in l][0]
    # =reversed: each id is the bound less one less the induction variable
    assert "arith.subi" in ir("--emulate-gpu-kernels=reversed").split(
        "IR Dump After GPULaunchesOnHostPass")[1]


@pytest.mark.parametrize("args,message", [
    (["--emulate-gpu-kernels", "--device", "gpu"],
     "--emulate-gpu-kernels runs on the CPU: no --device gpu or --cuda-arch"),
    (["--emulate-gpu-kernels", "--cuda-arch", "sm_80"],
     "--emulate-gpu-kernels runs on the CPU: no --device gpu or --cuda-arch"),
    (["--emulate-gpu-kernels=backwards"], "Cannot find option named 'backwards'"),
])
def test_bad_emulation_options_are_one_line_errors(graphs, args, message, tmp_path):
    p = _mxc("run", os.path.join(graphs, "unary-symbol.json"),
             *open(os.path.join(graphs, "unary.shapes")).read().split(), *args,
             "--output-dir", str(tmp_path / "out"))
    assert p.returncode != 0 and message in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr


@pytest.mark.parametrize("args", [["--target", "cuda"], ["--cuda-arch", "sm_90"]])
def test_emulation_compiles_for_the_cpu_only(graphs, args, tmp_path):
    p = _mxc("compile", os.path.join(graphs, "unary-symbol.json"),
             *open(os.path.join(graphs, "unary.shapes")).read().split(),
             "--emulate-gpu-kernels", *args, "-o", str(tmp_path / "x"))
    assert p.returncode != 0 and p.stderr.strip() == (
        "mxc: error: --emulate-gpu-kernels compiles for the CPU: no --target cuda or "
        "--cuda-arch"), p.stderr
