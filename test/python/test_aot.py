"""Ahead-of-time compilation (`mxc compile`, docs/aot.md) against the JIT.

For LeNet, MLP and ResNet-18 (tools/zoo graphs, batch 1, seeded weights in an
MXNet .params file), each of
  - the host executable (`--emit exe`),
  - the host shared library (`--emit shared`) driven by the C program
    test/aot/model_api_test.c through mxc/mxc_model.h,
  - the aarch64 executable (`--target aarch64-linux-gnu`) under
    `qemu-aarch64-static -L /usr/aarch64-linux-gnu -E
    LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib`, with default thread settings
gives the outputs of `mxc run` (the JIT) within rtol 1e-4. Weights are
embedded for some models and external (a .weights file beside the binary)
for others, so both paths run. The host executable must link no LLVM or MLIR
library (ldd).

Needs: the aarch64 AOT runtime (scripts/build-runtime-aarch64.sh; run-tests.sh
builds it), clang-22/lld, qemu-user-static and the cross toolchain
(scripts/setup.sh). Missing pieces fail, never skip.
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import mxc_testing
from mxc_testing import assert_close

ROOT = mxc_testing.ROOT
sys.path.insert(0, os.path.join(ROOT, "test", "aot"))
from make_model import make_model  # noqa: E402

QEMU = "qemu-aarch64-static"
SYSROOT = "/usr/aarch64-linux-gnu"
# The loader and the libc of one glibc build: -L alone runs the cross
# toolchain's ld.so, which then finds multiarch libc6:arm64's libc.so.6
# (another build, installed with libopenblas:arm64) through the host's
# ld.so.cache, and that pair hangs in the first pthread_create (docs/aot.md).
QEMU_CMD = [QEMU, "-L", SYSROOT, "-E", "LD_LIBRARY_PATH=" + SYSROOT + "/lib"]
# (model, weights of the host exe, weights of the shared library)
MODELS = {
    "lenet": ("embed", "external"),
    "mlp": ("external", "embed"),
    "resnet18": ("embed", "embed"),
}
# One thread for OpenBLAS on the host: the suite runs on 2 shared cores.
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1")
# Under qemu: the runtime's default thread budget, no thread variable set.
QEMU_ENV = {k: v for k, v in os.environ.items()
            if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MXC_KERNEL_NTHREADS",
                         "MXC_CPU_WORKER_NTHREADS", "MXNET_CPU_WORKER_NTHREADS")}


def run(cmd, timeout=600, env=ENV, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, **kw)
    if p.returncode != 0:
        raise AssertionError("%s failed (exit %d):\n%s%s" % (
            " ".join(cmd), p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    return p


def outputs_of(stdout, out_dir):
    """{name: array} for the output lines of `mxc run` / a compiled exe."""
    result = {}
    for line in stdout.splitlines():
        name, sep, _ = line.rpartition(": shape ")
        if sep:
            result[name] = np.load(os.path.join(out_dir, name.replace("/", "_") + ".npy"))
    assert result, "no outputs in:\n" + stdout
    return result


@pytest.fixture(scope="module", params=sorted(MODELS))
def model(request, tmp_path_factory, mxc_bin):
    name = request.param
    tmp = str(tmp_path_factory.mktemp("aot-" + name))
    arrays = {}
    sym, params, data, shape = make_model(name, tmp, arrays=arrays)  # seeded, batch 1
    jit_dir = os.path.join(tmp, "jit")
    p = run([mxc_bin, "run", sym, "--params", params, "--shape", shape,
             "--input", "data=" + data, "--output-dir", jit_dir])
    return {"name": name, "tmp": tmp, "sym": sym, "params": params, "data": data,
            "shape": shape, "arrays": arrays, "jit": outputs_of(p.stdout, jit_dir)}


def compile_model(mxc_bin, m, out, *extra):
    cmd = [mxc_bin, "compile", m["sym"], "--params", m["params"], "--shape", m["shape"],
           "-o", out] + list(extra)
    return run(cmd)


def check_outputs(actual, expected, what):
    assert sorted(actual) == sorted(expected), what
    for k in expected:
        assert_close(actual[k], expected[k], rtol=1e-4, name="%s %s" % (what, k))


def test_host_exe(model, mxc_bin):
    exe = os.path.join(model["tmp"], "host", model["name"])
    os.makedirs(os.path.dirname(exe))
    weights = MODELS[model["name"]][0]
    compile_model(mxc_bin, model, exe, "--emit", "exe", "--weights", weights)
    assert os.path.exists(exe + ".weights") == (weights == "external")
    out_dir = os.path.join(model["tmp"], "exe-out")
    p = run([exe, "--input", "data=" + model["data"], "--output-dir", out_dir])
    check_outputs(outputs_of(p.stdout, out_dir), model["jit"], "host exe")

    # No LLVM or MLIR library; only libc, libm, libstdc++ (libgcc_s) and
    # OpenBLAS with its own dependencies.
    deps = run(["ldd", exe]).stdout
    assert "LLVM" not in deps and "MLIR" not in deps.upper(), deps
    allowed = ("linux-vdso", "ld-linux", "libc.so", "libm.so", "libstdc++", "libgcc_s",
               "libopenblas", "libgfortran", "libquadmath",
               # oneDNN's convolutions where the host runtime has them (docs/aot.md)
               "libdnnl", "libgomp", "libOpenCL")
    for line in deps.strip().splitlines():
        assert any(a in line for a in allowed), "unexpected dependency: " + line


def test_host_shared_library(model, mxc_bin, tmp_path):
    lib_dir = os.path.join(model["tmp"], "shared")
    os.makedirs(lib_dir)
    name = model["name"]
    lib = os.path.join(lib_dir, "lib%s.so" % name)
    weights = MODELS[name][1]
    compile_model(mxc_bin, model, lib, "--emit", "shared", "--weights", weights)
    assert os.path.exists(os.path.join(lib_dir, "lib%s.h" % name))
    deps = run(["ldd", lib]).stdout
    assert "LLVM" not in deps and "MLIR" not in deps.upper(), deps
    # The C test program, linked against the library.
    prog = os.path.join(lib_dir, "model_api_test")
    run(["clang-22", "-std=c11", "-Wall", "-Werror",
         "-I", os.path.join(ROOT, "runtime", "include"),
         os.path.join(ROOT, "test", "aot", "model_api_test.c"),
         "-o", prog, "-L", lib_dir, "-l" + name, "-Wl,-rpath," + lib_dir])
    x = np.load(model["data"])
    x.tofile(os.path.join(lib_dir, "x.bin"))
    y_path = os.path.join(lib_dir, "y.bin")
    p = run([prog, os.path.join(lib_dir, "x.bin"), y_path])
    assert "model_api_test: ok" in p.stdout
    (out_name, expected), = model["jit"].items()
    y = np.fromfile(y_path, dtype=expected.dtype).reshape(expected.shape)
    assert_close(y, expected, rtol=1e-4, name="shared library " + out_name)
    if weights == "external":
        # The weights file given explicitly, from another directory.
        moved = os.path.join(str(tmp_path), "moved.weights")
        shutil.copy(lib + ".weights", moved)
        p = run([prog, os.path.join(lib_dir, "x.bin"), y_path, moved])
        assert "model_api_test: ok" in p.stdout


def test_aarch64_exe_under_qemu(model, mxc_bin):
    assert shutil.which(QEMU), QEMU + " not found: run scripts/setup.sh"
    exe = os.path.join(model["tmp"], "aarch64", model["name"])
    os.makedirs(os.path.dirname(exe))
    compile_model(mxc_bin, model, exe, "--emit", "exe", "--target", "aarch64-linux-gnu",
                  "--weights", MODELS[model["name"]][0])
    out_dir = os.path.join(model["tmp"], "aarch64-out")
    p = run(QEMU_CMD + [exe, "--input", "data=" + model["data"], "--output-dir", out_dir],
            timeout=900, env=QEMU_ENV)
    check_outputs(outputs_of(p.stdout, out_dir), model["jit"], "aarch64 exe")


DTYPE_FLAGS = {"float32": 0, "float64": 1, "float16": 2, "uint8": 3, "int32": 4, "int8": 5,
               "int64": 6, "bool": 7}


def test_plan_on_the_runtime_executor(model, mxc_bin):
    """--emit plan: the plan text runs on libmxc_runtime's plan executor with
    the object's adapter as its kernel (test/aot/plan_test.c)."""
    d = os.path.join(model["tmp"], "plan")
    plan = os.path.join(d, model["name"] + ".plan")
    run([mxc_bin, "compile", model["sym"], "--shape", model["shape"], "--emit", "plan",
         "-o", plan])  # no --params: parameters are plan arguments
    obj = os.path.join(d, model["name"] + ".o")
    # One step per layer: every Convolution and FullyConnected node is a step
    # of its own (named after its node), and the steps are many.
    with open(model["sym"]) as f:
        layers = [n["name"] for n in json.load(f)["nodes"]
                  if n["op"] in ("Convolution", "FullyConnected")]
    steps = [line.split()[1] for line in open(plan) if line.startswith("step ")]
    step_nodes = {part for s in steps for part in s.split("+")}
    assert layers and set(layers) <= step_nodes, sorted(set(layers) - step_nodes)
    assert len(steps) > len(layers)
    build = os.path.dirname(os.path.dirname(mxc_bin))
    runtime = os.path.join(build, "runtime")
    prog = os.path.join(d, "plan_test")
    run(["clang-22", "-std=c11", "-Wall", "-Werror", "-I", os.path.join(ROOT, "runtime", "include"),
         os.path.join(ROOT, "test", "aot", "plan_test.c"), obj, "-o", prog,
         "-L", runtime, "-lmxc_runtime", "-Wl,-rpath," + runtime, "-lm"])
    values = dict(model["arrays"], data=np.load(model["data"]))
    manifest = []
    expected = None
    for line in open(plan):
        w = line.split()
        if len(w) < 6 or w[0] != "buffer" or w[2] not in ("argument", "output"):
            continue
        name, dtype, shape = w[1], w[4], w[5].strip("()").rstrip(",")
        dims = [int(x) for x in shape.split(",") if x]
        path = os.path.join(d, "%s-%s.bin" % (w[2], w[3]))
        if w[2] == "argument":
            v = np.ascontiguousarray(values[name])
            assert list(v.shape) == dims and v.dtype.name == dtype, name
            v.tofile(path)
            manifest.append("arg %s %d %d %s" % (path, DTYPE_FLAGS[dtype], len(dims),
                                                 " ".join(map(str, dims))))
        elif w[3] == "0":
            expected = model["jit"][name]
            manifest.append("out %s %d %d %s" % (path, DTYPE_FLAGS[dtype], len(dims),
                                                 " ".join(map(str, dims))))
            out_path = path
    with open(os.path.join(d, "manifest.txt"), "w") as f:
        f.write("\n".join(manifest) + "\n")
    p = run([prog, plan, os.path.join(d, "manifest.txt")])
    assert "plan_test: ok" in p.stdout
    y = np.fromfile(out_path, dtype=expected.dtype).reshape(expected.shape)
    assert_close(y, expected, rtol=1e-4, name="plan output")


def test_portable_gemm_runtime(tmp_path, mxc_bin):
    """A runtime configured with -DMXC_RUNTIME_BLAS=OFF (portable C++ GEMM, no
    OpenBLAS): `mxc compile --runtime-dir` links it, the executable depends on
    libc, libm and libstdc++ only, and LeNet's outputs equal the JIT's."""
    build = os.path.join(os.path.dirname(os.path.dirname(mxc_bin)), "aot-runtime-noblas")
    if not os.path.exists(os.path.join(build, "build.ninja")):
        run(["cmake", "-G", "Ninja", "-S", ROOT, "-B", build, "-DMXC_BUILD_COMPILER=OFF",
             "-DMXC_BUILD_TESTS=OFF", "-DMXC_RUNTIME_BLAS=OFF", "-DCMAKE_BUILD_TYPE=Release",
             "-DCMAKE_C_COMPILER=clang-22", "-DCMAKE_CXX_COMPILER=clang++-22"])
    run(["ninja", "-C", build, "-j2", "mxc_model_rt", "mxc_model_main"], timeout=900)
    sym, params, data, shape = make_model("lenet", str(tmp_path))
    exe = os.path.join(str(tmp_path), "lenet")
    run([mxc_bin, "compile", sym, "--params", params, "--shape", shape, "--runtime-dir", build,
         "-o", exe])
    deps = run(["ldd", exe]).stdout
    assert "openblas" not in deps and "LLVM" not in deps, deps
    out_dir = os.path.join(str(tmp_path), "out")
    p = run([exe, "--input", "data=" + data, "--output-dir", out_dir])
    jit_dir = os.path.join(str(tmp_path), "jit")
    q = run([mxc_bin, "run", sym, "--params", params, "--shape", shape, "--input", "data=" + data,
             "--output-dir", jit_dir])
    check_outputs(outputs_of(p.stdout, out_dir), outputs_of(q.stdout, jit_dir), "portable GEMM exe")


def test_samplers_draw_with_the_seed(tmp_path, mxc_bin):
    # A graph with a sampler (mx.sym.random.uniform): `mxc run --seed S`
    # draws from S (the same numbers for the same S); an AOT executable
    # draws with seed 0 on every run, as `mxc run` without --seed.
    sym = tmp_path / "r-symbol.json"
    sym.write_text(json.dumps({
        "nodes": [{"op": "null", "name": "x", "inputs": []},
                  {"op": "_random_uniform", "name": "u",
                   "attrs": {"shape": "(2, 3)", "low": "-1"}, "inputs": []},
                  {"op": "elemwise_add", "name": "y", "inputs": [[0, 0, 0], [1, 0, 0]]}],
        "arg_nodes": [0], "heads": [[2, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}}))
    x = tmp_path / "x.npy"
    np.save(x, np.zeros((2, 3), np.float32))

    def run_cli(*extra, out):
        p = run([mxc_bin, "run", str(sym), "--shape", "x=2,3", "--input", "x=%s" % x,
                 "--output-dir", str(tmp_path / out)] + list(extra))
        return outputs_of(p.stdout, str(tmp_path / out))["y_output"]

    s0, s0b, s1 = run_cli(out="a"), run_cli("--seed", "0", out="b"), run_cli("--seed", "1", out="c")
    assert (s0 == s0b).all() and not (s0 == s1).all()
    assert s0.min() >= -1 and s0.max() < 1
    exe = str(tmp_path / "r.exe")
    run([mxc_bin, "compile", str(sym), "--shape", "x=2,3", "--emit", "exe", "-o", exe])
    out = str(tmp_path / "exe")
    p = run([exe, "--input", "x=%s" % x, "--output-dir", out])
    assert (outputs_of(p.stdout, out)["y_output"] == s0).all()
