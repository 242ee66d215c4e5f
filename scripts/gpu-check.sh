#!/usr/bin/env bash
# scripts/gpu-check.sh - the GPU check (docs/gpu.md), in two halves:
#
#   scripts/gpu-check.sh prepare   here, on the build machine (needs build/:
#                                  scripts/build.sh): builds the runtime alone
#                                  with CUDA and portable kernels into
#                                  build-gpu/ (the device machine has no
#                                  OpenBLAS, oneDNN, MPI or LLVM), compiles
#                                  test/gpu/models.py's graphs with
#                                  `mxc compile --target cuda`, computes their
#                                  reference outputs with mxc's CPU backend,
#                                  builds the benchmarks (fused elementwise
#                                  bandwidth; a ResNet-50 training step) and
#                                  mxc's Python package for CPython 3.12 with
#                                  the compiler inside (the JIT there, also
#                                  bin/mxc's command line);
#                                  all into build-gpu/check/ (~250 MB), packed
#                                  as build-gpu/check.tar.xz (~48 MB: the
#                                  device tool carries up to 64 MiB).
#   scripts/gpu-check.sh run       on the machine with the GPU, from the
#                                  repository root, with build-gpu/check.tar.xz
#                                  carried there (unpacked into
#                                  build-gpu/check/): the runtime's GPU tests,
#                                  the clean-error path without a driver, each
#                                  model's outputs against the CPU's (ahead of
#                                  time, then through the JIT: mxc run
#                                  --device gpu), the Python front end on the
#                                  GPU against the CPU (test/python/gpu/
#                                  host_driver_checks.py device), the
#                                  benchmarks (PyTorch
#                                  eager's ResNet-50 step beside mxc's, where
#                                  the machine has torch). Writes
#                                  $OUT/gpu-report.md (or
#                                  build-gpu/check/gpu-report.md); exits
#                                  non-zero if anything failed.
#   scripts/gpu-check.sh selftest  here, after prepare: the models' half of
#                                  `run` on this machine's CPU (the same
#                                  graphs compiled for the host target into
#                                  build-gpu/selftest/ and run through
#                                  mxc run, their inputs drawn,
#                                  outputs compared by the same script), so
#                                  that a broken check is found before a
#                                  device is lent.
#
# Training graphs (test/gpu/models.py's TRAINING) are compiled with the
# arguments in models/<name>.compile (--train --weights inputs); their
# inputs, weights included, are drawn where they run from <name>.gen.json
# (test/gpu/inputs.py) and big references are samples (test/gpu/compare.py).
#
# With the device tool: run(command="scripts/gpu-check.sh run",
# carry=["build-gpu/check.tar.xz"], timeout_s=540): `run` unpacks it.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CHECK="$ROOT/build-gpu/check"
MODELS="test/gpu/models.py"
BENCH_SHAPE="--shape x=67108864 --shape y=67108864" # 256 MB each
# The Python (with numpy) that draws inputs and compares outputs: the device
# machine's python3; here (selftest) the project venv's.
PY="${MXC_CHECK_PYTHON:-python3}"
# Each program of `run` under a time limit (seconds), so that one that hangs
# costs its limit, not the device tool's whole call: the report so far is
# already under $OUT.
limit() { local s="$1"; shift; timeout --kill-after=10 "$s" "$@"; }

prepare() {
  set -e
  local B="$ROOT/build-gpu" jobs="${MXC_JOBS:-2}"
  [ -x "$ROOT/build/bin/mxc" ] || { echo "gpu-check: build/ first (scripts/build.sh)" >&2; exit 1; }
  cmake -G Ninja -S "$ROOT" -B "$B" -DCMAKE_BUILD_TYPE=Release -DMXC_BUILD_COMPILER=OFF \
    -DMXC_RUNTIME_BLAS=OFF -DMXC_RUNTIME_DNNL=OFF -DMXC_ENABLE_MPI=OFF -DMXC_ENABLE_CUDA=ON \
    -DCMAKE_BUILD_RPATH='$ORIGIN' >/dev/null
  cmake --build "$B" -j"$jobs" --target mxc_runtime mxc-cuda-tests mxc_model_rt mxc_model_main
  rm -rf "$CHECK"
  mkdir -p "$CHECK/bin" "$CHECK/models"
  cp "$B/runtime/libmxc_runtime.so" "$B/runtime/test/mxc-cuda-tests" "$CHECK/bin/"
  patchelf_rpath "$CHECK/bin/mxc-cuda-tests"
  local rtdir="$B/lib/mxc/$(uname -m)-linux-gnu"
  PYTHONPATH="$ROOT/build/python_packages" MXC_QUIET=1 "$ROOT/.venv/bin/python" \
    "$ROOT/$MODELS" "$CHECK/models"
  compile_models "$CHECK/models" "$CHECK/models" --target cuda --cuda-arch sm_90 \
    --runtime-dir "$rtdir"
  # The benchmark: out = relu(x * 0.5 + y) as one fused kernel.
  cat >"$CHECK/bench-symbol.json" <<'JSON'
{"nodes": [{"op": "null", "name": "x", "inputs": []}, {"op": "null", "name": "y", "inputs": []},
 {"op": "_mul_scalar", "name": "half", "attrs": {"scalar": "0.5"}, "inputs": [[0,0,0]]},
 {"op": "elemwise_add", "name": "add", "inputs": [[2,0,0],[1,0,0]]},
 {"op": "relu", "name": "relu", "inputs": [[3,0,0]]}],
 "arg_nodes": [0, 1], "heads": [[4,0,0]], "attrs": {"mxnet_version": ["int", 10901]}}
JSON
  # One benchmark binary per launch shape (threads a block x elements a
  # thread); the default is the first. 8 and 16 elements a thread are two
  # and four 128-bit loads of each input in flight per thread (checked in
  # the PTX: ld.global.v4 x 4 / x 8), not yet timed on a GPU.
  for shape in 128x4 256x4 128x2 64x4 128x8 256x8 128x16; do
    # shellcheck disable=SC2086
    "$ROOT/build/bin/mxc" compile "$CHECK/bench-symbol.json" $BENCH_SHAPE --target cuda \
      --cuda-arch sm_90 --cuda-block-size "${shape%x*}" --cuda-elements-per-thread "${shape#*x}" \
      --emit obj -o "$CHECK/bench.o"
    c++ -std=c++17 -O2 -I"$ROOT/runtime/include" "$ROOT/bench/gpu/elementwise_bandwidth.cc" \
      "$CHECK/bench.o" -L"$CHECK/bin" -lmxc_runtime -Wl,-rpath,'$ORIGIN' \
      -o "$CHECK/bin/elementwise_bandwidth_$shape"
  done
  rm -f "$CHECK/bench.o"
  # The training benchmark: ResNet-50 (resnet.py's graph), batch 64, one
  # training step (forward + backward) on the GPU; PyTorch eager's is timed
  # on the device machine by bench/gpu/torch_train_step.py.
  "$ROOT/.venv/bin/python" "$ROOT/tools/zoo/mxnet_zoo.py" resnet50 -o "$CHECK/resnet50-symbol.json"
  "$ROOT/build/bin/mxc" compile "$CHECK/resnet50-symbol.json" --shape data=64,3,224,224 \
    --shape softmax_label=64 --train --weights inputs --target cuda --cuda-arch sm_90 \
    --emit obj -o "$CHECK/resnet50.o"
  c++ -std=c++17 -O2 -I"$ROOT/runtime/include" "$ROOT/bench/gpu/train_step.cc" \
    "$CHECK/resnet50.o" -L"$CHECK/bin" -lmxc_runtime -Wl,-rpath,'$ORIGIN' \
    -o "$CHECK/bin/train_step_resnet50"
  rm -f "$CHECK/resnet50.o" "$CHECK/resnet50.h"
  # Training BatchNorm through cuDNN (the CUDA target's default, one kernel
  # call forward and one backward) against generated kernels (composed
  # ops, their reductions split: mxc-split-reductions' target-threads x
  # max-chunks, the default first): BatchNorm's training step at ResNet-50's
  # stage-1 size, and ResNet-50 with generated BatchNorm.
  cat >"$CHECK/bn-symbol.json" <<'JSON'
{"nodes": [{"op": "null", "name": "data", "inputs": []},
 {"op": "null", "name": "bn_gamma", "inputs": []}, {"op": "null", "name": "bn_beta", "inputs": []},
 {"op": "null", "name": "bn_moving_mean", "inputs": []}, {"op": "null", "name": "bn_moving_var", "inputs": []},
 {"op": "BatchNorm", "name": "bn", "attrs": {"fix_gamma": "False", "eps": "2e-5", "momentum": "0.9"},
  "inputs": [[0,0,0],[1,0,0],[2,0,0],[3,0,1],[4,0,1]]}],
 "arg_nodes": [0,1,2,3,4], "heads": [[5,0,0]], "attrs": {"mxnet_version": ["int", 10901]}}
JSON
  local split
  for split in cudnn generated-32768x1024 generated-262144x1024 generated-262144x4096; do
    local knobs=()
    case $split in
      cudnn) knobs=(--batch-norm-kernels library) ;;
      *) local t=${split#generated-}
         knobs=(--batch-norm-kernels generated --split-reduction-threads "${t%x*}"
                --split-reduction-chunks "${t#*x}") ;;
    esac
    "$ROOT/build/bin/mxc" compile "$CHECK/bn-symbol.json" --shape data=64,256,56,56 --train \
      --weights inputs --target cuda --cuda-arch sm_90 "${knobs[@]}" --emit obj -o "$CHECK/bn.o"
    c++ -std=c++17 -O2 -I"$ROOT/runtime/include" "$ROOT/bench/gpu/train_step.cc" \
      "$CHECK/bn.o" -L"$CHECK/bin" -lmxc_runtime -Wl,-rpath,'$ORIGIN' \
      -o "$CHECK/bin/train_step_bn_$split"
  done
  "$ROOT/build/bin/mxc" compile "$CHECK/resnet50-symbol.json" --shape data=64,3,224,224 \
    --shape softmax_label=64 --train --weights inputs --target cuda --cuda-arch sm_90 \
    --batch-norm-kernels generated --emit obj -o "$CHECK/resnet50.o"
  c++ -std=c++17 -O2 -I"$ROOT/runtime/include" "$ROOT/bench/gpu/train_step.cc" \
    "$CHECK/resnet50.o" -L"$CHECK/bin" -lmxc_runtime -Wl,-rpath,'$ORIGIN' \
    -o "$CHECK/bin/train_step_resnet50_generated_bn"
  rm -f "$CHECK/resnet50.o" "$CHECK/resnet50.h" "$CHECK/bn.o" "$CHECK/bn.h"
  # The compiler, for the JIT's half of `run` (mxc run --device gpu) and
  # the Python front end on the GPU: the device machine has no LLVM, so
  # build/'s compiler libraries are linked with LLVM / MLIR into a Python
  # extension for its CPython 3.12 (against this portable CUDA runtime),
  # which also holds `mxc`'s command line: bin/mxc runs it (one copy of the
  # compiler; two would not fit the device tool's 64 MiB).
  link_python_ext "$CHECK/python/mxc"
  # (selftest runs it with this machine's CPython 3.12, numpy and pytest:
  # check_every_operator_compiles_for_the_gpu reads test_frontend_every_op's
  # tables, a pytest module)
  local py312="${MXC_CHECK_PY312:-/root/.pyenv/versions/3.12.1/bin/python3.12}"
  [ -x "$ROOT/.venv-py312/bin/python" ] || "$py312" -m venv "$ROOT/.venv-py312"
  "$ROOT/.venv-py312/bin/python" -c 'import numpy, pytest' 2>/dev/null ||
    "$ROOT/.venv-py312/bin/pip" install -q numpy pytest
  cp -L "$(ldconfig -p | awk '/libzstd.so.1 .*x86-64/ {print $NF; exit}')" "$CHECK/bin/"
  cat >"$CHECK/bin/mxc" <<'SH'
#!/bin/sh
# mxc's command line, from the check's Python extension (scripts/gpu-check.sh
# link_python_ext): the device machine's CPython 3.12 ($MXC_CHECK_PYTHON,
# else python3). Only the extension is imported, not the package (no numpy).
here="$(cd "$(dirname "$0")" && pwd)"
exec "${MXC_CHECK_PYTHON:-python3}" -c 'import sys
sys.path.insert(0, sys.argv[1])
import _mxc
sys.exit(_mxc.cli_main(sys.argv[2:]))' "$here/../python/mxc" mxc "$@"
SH
  chmod +x "$CHECK/bin/mxc"
  # What the device tool carries: the check packed (xz: the extension is
  # about 190 MB, 34 MB packed; the rest about 55 MB, 14 MB packed).
  rm -f "$ROOT/build-gpu/check.tgz"
  tar cf - -C "$ROOT/build-gpu" check | xz -T"$jobs" -6 >"$ROOT/build-gpu/check.tar.xz"
  du -sh "$CHECK" "$ROOT/build-gpu/check.tar.xz"
}

# link_python_ext PKGDIR: the Python package for the device machine's
# CPython 3.12 into PKGDIR (mxc's Python files and a _mxc extension built
# here against CPython 3.12's headers, $MXC_CHECK_PY312, by default pyenv's
# 3.12.1): the extension's and nanobind's sources compiled with build/'s
# flags, linked with LLVM / MLIR and the compiler archives inside (their
# symbols hidden, unused sections dropped, stripped: about 190 MB) against
# the portable runtime in ../../bin. An archive added to the compiler shows
# here as an undefined symbol. With MXC_PY_CLI_MAIN it also holds
# `mxc`'s command line (_mxc.cli_main), so that one copy of the compiler
# serves both (bin/mxc runs it).
link_python_ext() {
  local pkg="$1" b="$ROOT/build" py312="${MXC_CHECK_PY312:-/root/.pyenv/versions/3.12.1/bin/python3.12}"
  local inc obj="$ROOT/build-gpu/py312" llvm
  inc="$("$py312" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
  [ -f "$inc/Python.h" ] || { echo "gpu-check: no CPython 3.12 headers ($py312)" >&2; return 1; }
  llvm="$(llvm-config-22 --libdir 2>/dev/null || echo /usr/lib/llvm-22/lib)"
  mkdir -p "$obj" "$pkg"
  # The compile commands of build/'s extension and nanobind, for 3.12.
  "$ROOT/.venv/bin/python" - "$b/compile_commands.json" "$inc" "$obj" >"$obj/compile.sh" <<'PY'
import json, re, shlex, sys
cc, inc, obj = sys.argv[1:]
for e in json.load(open(cc)):
    f = e["file"]
    if "/python/src/" not in f and "/nanobind/src/" not in f:
        continue
    cmd = re.sub(r"-I\S*/include/python3\.\d+", "-I" + inc, e["command"])
    out = "%s/%s.o" % (obj, f.rsplit("/", 1)[1])
    cmd = re.sub(r" -o \S+", " -o " + shlex.quote(out), cmd)
    if "/python/src/" in f:
        cmd = cmd.replace(" -c ", " -DMXC_PY_CLI_MAIN -c ", 1)
    print("cd %s && %s" % (shlex.quote(e["directory"]), cmd))
PY
  xargs -P "${MXC_JOBS:-2}" -I{} sh -c '{}' < "$obj/compile.sh"
  cp -r "$b/python_packages/mxc/." "$pkg/"
  find "$pkg" -name __pycache__ -prune -exec rm -rf {} +
  rm -f "$pkg"/_mxc*.so
  c++ -shared -s -Wl,--gc-sections -Wl,--exclude-libs,ALL \
    -o "$pkg/_mxc.cpython-312-x86_64-linux-gnu.so" "$obj"/*.o \
    "$b/lib/Compiler/libMXCCompiler.a" "$b/lib/Graph/libMXCGraph.a" \
    "$b/lib/Dialect/MXRT/Transforms/libMXCMXRTTransforms.a" \
    "$b/lib/Dialect/MX/Transforms/libMXCMXTransforms.a" \
    "$b/lib/Compiler/Transforms/libMXCCompilerTransforms.a" \
    "$b/lib/Conversion/libMXCConversion.a" "$b/lib/Dialect/MX/IR/libMXCDialectMX.a" \
    "$b/lib/Dialect/MXRT/IR/libMXCDialectMXRT.a" "$CHECK/bin/libmxc_runtime.so" \
    -Wl,--start-group "$llvm"/libMLIR*.a "$llvm"/libLLVM*.a -Wl,--end-group \
    -l:libz.so.1 -l:libzstd.so.1 -lpthread -ldl -Wl,-rpath,'$ORIGIN/../../bin'
}

# compile_models MODELDIR OUTDIR MXC-COMPILE-ARGS...: each graph of
# MODELDIR into an executable OUTDIR/<name>.
compile_models() {
  local dir="$1" outdir="$2" s name
  shift 2
  for s in "$dir"/*-symbol.json; do
    name="$(basename "$s" -symbol.json)"
    local params=() extra=()
    [ -f "$dir/$name-0000.params" ] && params=(--params "$dir/$name-0000.params")
    [ -f "$dir/$name.compile" ] && read -r -a extra <"$dir/$name.compile"
    # shellcheck disable=SC2046
    "$ROOT/build/bin/mxc" compile "$s" $(cat "$dir/$name.shapes") "${params[@]}" "${extra[@]}" \
      "$@" -o "$outdir/$name" || return 1
  done
}

# run_models MODELDIR EXEDIR OUT [MXC MXC-RUN-ARGS...]: runs each executable
# of EXEDIR on its inputs (MODELDIR/<name>.in/, or drawn from
# <name>.gen.json into OUT/<name>.in/) and compares its outputs with
# MODELDIR/<name>.ref/; prints what it did; returns the number of models
# that failed. With MXC (EXEDIR then unused): each graph of MODELDIR through
# the JIT instead, `MXC run` with the model's shapes and its compile
# arguments (less `--weights inputs`: mxc run takes any argument as an
# --input) and MXC-RUN-ARGS.
run_models() {
  local dir="$1" exedir="$2" out="$3" exe bad=0 mxc="${4:-}" list=()
  shift 3
  [ -n "$mxc" ] && shift
  if [ -n "$mxc" ]; then
    for exe in "$dir"/*-symbol.json; do list+=("$(basename "$exe" -symbol.json)"); done
  else
    for exe in "$exedir"/*; do
      [ -f "$exe" ] && [ -x "$exe" ] && list+=("$(basename "$exe")")
    done
  fi
  for name in "${list[@]}"; do
    local inputs=() o indir f cmd=()
    exe="$exedir/$name"
    if [ -n "$mxc" ]; then
      local extra=()
      [ -f "$dir/$name.compile" ] && read -r -a extra <"$dir/$name.compile"
      # shellcheck disable=SC2046
      cmd=("$mxc" run "$dir/$name-symbol.json" $(cat "$dir/$name.shapes"))
      [ -f "$dir/$name-0000.params" ] && cmd+=(--params "$dir/$name-0000.params")
      for f in "${extra[@]}"; do
        case "$f" in --weights|inputs) ;; *) cmd+=("$f") ;; esac
      done
      cmd+=("$@")
    else
      cmd=("$exe")
    fi
    indir="$dir/$name.in"
    if [ -f "$dir/$name.gen.json" ]; then
      indir="$out/$name.in"
      rm -rf "$indir"
      if ! "$PY" "$ROOT/test/gpu/inputs.py" "$dir/$name.gen.json" "$indir"; then
        echo "$name: FAILED to draw its inputs"; bad=$((bad + 1)); continue
      fi
    fi
    for f in "$indir"/*.npy; do
      inputs+=(--input "$(basename "$f" .npy)=$f")
    done
    o="$out/$name.out"
    rm -rf "$o"
    if ! limit "${MXC_CHECK_LIMIT:-120}" "${cmd[@]}" "${inputs[@]}" --output-dir "$o" \
        >/dev/null 2>"$out/$name.err"; then
      echo "$name: FAILED to run: $(cat "$out/$name.err")"; bad=$((bad + 1)); continue
    fi
    # mxc run writes a gradient as <arg>.grad.npy, an executable as
    # <arg>_grad.npy (the names of their outputs: docs/aot.md).
    if [ -n "$mxc" ]; then
      for f in "$o"/*.grad.npy; do
        [ -e "$f" ] && mv "$f" "${f%.grad.npy}_grad.npy"
      done
    fi
    # shellcheck disable=SC2046
    if ! "$PY" "$ROOT/test/gpu/compare.py" "$dir/$name.ref" "$o" "$name" \
        $(cat "$dir/$name.tol"); then
      bad=$((bad + 1))
    fi
    rm -rf "$o" "$out/$name.err"
    [ -f "$dir/$name.gen.json" ] && rm -rf "$indir"
  done
  return "$bad"
}

selftest() {
  [ -d "$CHECK/models" ] || { echo "gpu-check: no $CHECK/models (run 'prepare' first)" >&2; exit 1; }
  local d="$ROOT/build-gpu/selftest" bad=0
  [ -x "$ROOT/.venv/bin/python" ] && [ -z "${MXC_CHECK_PYTHON:-}" ] && PY="$ROOT/.venv/bin/python"
  rm -rf "$d"
  mkdir -p "$d/exe"
  # Training BatchNorm in the CUDA target's form (library kernels: their
  # CPU twins here) against the references of the composed form.
  compile_models "$CHECK/models" "$d/exe" --batch-norm-kernels library || exit 1
  echo "-- ahead of time (mxc compile, BatchNorm as library kernels as on the GPU)"
  run_models "$CHECK/models" "$d/exe" "$d" || bad=$?
  # The JIT's half (run: mxc run --device gpu), on this CPU, with the
  # check's own bin/mxc (the CPython 3.12 extension's command line).
  echo "-- through the JIT (the check's bin/mxc run)"
  local jbad=0 py312="$ROOT/.venv-py312/bin/python"
  MXC_CHECK_PYTHON="$py312" MXC_CACHE_DIR="$d/cache" MXC_CHECK_LIMIT=300 \
    run_models "$CHECK/models" "" "$d" "$CHECK/bin/mxc" || jbad=$?
  bad=$((bad + jbad))
  # The Python half (run: host_driver_checks.py device) with the check's
  # CPython 3.12 package, here on the CUDA driver double: its two modes.
  local mode
  for mode in launch host-kernels; do
    echo "-- Python (CPython 3.12 extension) on the driver double: $mode"
    PY="$py312" python_checks "$mode" "$d" \
      MXC_CUDA_DRIVER="$ROOT/build/lib/libmxc-cuda-host-driver.so" \
      MXC_HOST_DRIVER_MEMORY=1073741824 \
      MXC_TEST_GPU_HOST_KERNELS="$([ "$mode" = host-kernels ] && echo 1 || echo 0)" \
      MXC_HOST_DRIVER_OPAQUE="$([ "$mode" = launch ] && echo 1 || echo 0)" \
      || bad=$((bad + 1))
  done
  echo "gpu-check selftest: $([ "$bad" -eq 0 ] && echo "PASSED" || echo "FAILED ($bad)")"
  [ "$bad" -eq 0 ]
}

# The test binary finds libmxc_runtime.so beside it.
patchelf_rpath() {
  if command -v patchelf >/dev/null; then patchelf --set-rpath '$ORIGIN' "$1"; fi
}

# python_checks MODE WORKDIR [ENV...]: test/python/gpu/host_driver_checks.py
# MODE with the check's CPython 3.12 package ($PY must be a CPython 3.12
# with numpy); fails if a check fails or none reported.
python_checks() {
  local mode="$1" work="$2" log
  shift 2
  log="$work/python-$mode.log"
  (
    for kv in "$@"; do export "${kv?}"; done
    PYTHONPATH="$CHECK/python" MXC_QUIET=1 MXC_CACHE_DIR="$work/py-cache" \
      limit 300 "$PY" "$ROOT/test/python/gpu/host_driver_checks.py" "$mode"
  ) >"$log" 2>&1
  local rc=$?
  cut -c1-2000 "$log"
  grep -q '^PASS ' "$log" && ! grep -q '^FAIL ' "$log" && [ $rc -eq 0 ]
}

run() {
  local out="${OUT:-$CHECK}" report fails=0
  report="$out/gpu-report.md"
  # Drawn inputs, outputs and a failed program's stderr go here, not under
  # $OUT: the device tool brings back at most 8 files from there, and the
  # report must be one of them.
  local work="$CHECK/work"
  mkdir -p "$work"
  # The carried archive wins over a build-gpu/check/ an earlier call left.
  if [ -f "$ROOT/build-gpu/check.tar.xz" ]; then
    rm -rf "$CHECK"
    if command -v xz >/dev/null; then
      xz -dc "$ROOT/build-gpu/check.tar.xz" | tar xf - -C "$ROOT/build-gpu" || exit 1
    else # Python's lzma where the machine has no xz
      python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1], "r:xz").extractall(sys.argv[2])' \
        "$ROOT/build-gpu/check.tar.xz" "$ROOT/build-gpu" || exit 1
    fi
  fi
  [ -d "$CHECK/bin" ] || { echo "gpu-check: no $CHECK (run 'prepare' first and carry build-gpu/check.tar.xz)" >&2; exit 1; }
  # The JIT runs ptxas and reads libdevice from the CUDA toolkit.
  if [ -z "${CUDA_HOME:-}" ] && [ ! -x /usr/local/cuda/bin/ptxas ] && command -v ptxas >/dev/null; then
    CUDA_HOME="$(dirname "$(dirname "$(command -v ptxas)")")"
    export CUDA_HOME
  fi
  # cuBLAS and cuDNN: the machine's (PyTorch's wheels hold libcublas.so.13
  # and libcudnn.so.9 where no toolkit is installed).
  local libs
  libs="$(python3 -c 'import os, importlib
dirs = []
for m in ("nvidia.cublas", "nvidia.cudnn"):
    try:
        dirs.append(os.path.join(list(importlib.import_module(m).__path__)[0], "lib"))
    except ImportError:
        pass
print(":".join(dirs))' 2>/dev/null || true)"
  export LD_LIBRARY_PATH="$CHECK/bin${libs:+:$libs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  {
    echo "# mxc GPU check, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    echo '```'
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || true
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
    echo '```'
  } >"$report"
  section() { printf '\n## %s\n\n```\n' "$1" >>"$report"; }
  endsection() { printf '```\n' >>"$report"; }

  section "runtime GPU tests (mxc-cuda-tests)"
  if ! limit 120 "$CHECK/bin/mxc-cuda-tests" >>"$report" 2>&1; then fails=$((fails + 1)); fi
  endsection
  section "no driver (MXC_CUDA_DRIVER=/nonexistent): the one-line error"
  if ! MXC_CUDA_DRIVER=/nonexistent limit 60 "$CHECK/bin/mxc-cuda-tests" \
      --gtest_filter='CudaAvailability.*' >>"$report" 2>&1; then fails=$((fails + 1)); fi
  endsection

  section "models: GPU outputs against mxc's CPU backend"
  local bad=0
  run_models "$CHECK/models" "$CHECK/models" "$work" >>"$report" 2>&1 || bad=$?
  fails=$((fails + bad))
  endsection
  # The same, each step its own engine operation waiting for its stream
  # (no bulk run, no stream batch): where the section above fails, this one
  # tells whether the bulk GPU path is the cause, and names the step.
  section "models, a step at a time (MXC_EXEC_BULK_EXEC_INFERENCE=0)"
  bad=0
  MXC_EXEC_BULK_EXEC_INFERENCE=0 run_models "$CHECK/models" "$CHECK/models" "$work" \
    >>"$report" 2>&1 || bad=$?
  fails=$((fails + bad))
  endsection

  # The JIT on the GPU: every graph compiled in the process by
  # `mxc run --device gpu` (kernels for the device's architecture), inputs and
  # outputs through device memory, against the same references.
  section "models through the JIT: mxc run --device gpu"
  bad=0
  MXC_CACHE_DIR="$work/jit-cache" MXC_CHECK_LIMIT=240 run_models "$CHECK/models" "" "$work" \
    "$CHECK/bin/mxc" --device gpu -v >>"$report" 2>&1 || bad=$?
  fails=$((fails + bad))
  rm -rf "$work/jit-cache"
  endsection
  # The Python front end on the GPU: arrays, operators, autograd, executors,
  # Module and Gluon on mx.gpu(0) against the same on the CPU (the checks
  # the test suite runs on the CUDA driver double, here on the GPU).
  section "Python on the GPU: mx.gpu(0) against mx.cpu() (host_driver_checks.py device)"
  python_checks device "$work" >>"$report" 2>&1 || fails=$((fails + 1))
  endsection

  section "benchmark: fused elementwise against a device-to-device copy"
  for b in "$CHECK"/bin/elementwise_bandwidth_*; do
    echo "-- ${b##*_} (threads a block x elements a thread)" >>"$report"
    if ! limit 60 "$b" 50 >>"$report" 2>&1; then fails=$((fails + 1)); fi
  done
  endsection
  section "benchmark: ResNet-50 training step, batch 64, 224x224 (forward + backward, f32, no TF32)"
  if ! MXC_CUDNN_WORKSPACE_REPORT=1 limit 150 "$CHECK/bin/train_step_resnet50" 3 >>"$report" 2>&1; then
    fails=$((fails + 1))
  fi
  echo "-- a step at a time (MXC_EXEC_BULK_EXEC_INFERENCE=0: each step an engine operation, ordered" \
    "by CUDA events, none waiting for the device)" >>"$report"
  MXC_EXEC_BULK_EXEC_INFERENCE=0 limit 150 "$CHECK/bin/train_step_resnet50" 3 >>"$report" 2>&1 || true
  echo "-- a step at a time, each waiting for its stream (MXC_ENGINE_GPU_EVENTS=0)," \
    "profiled: where the step's time goes (bench/gpu/step_profile.py)" >>"$report"
  rm -f "$work/resnet50-trace.json"
  MXC_EXEC_BULK_EXEC_INFERENCE=0 MXC_ENGINE_GPU_EVENTS=0 MXC_PROFILE="$work/resnet50-trace.json" \
    limit 150 "$CHECK/bin/train_step_resnet50" 3 >>"$report" 2>&1 || true
  [ -f "$work/resnet50-trace.json" ] &&
    { python3 "$ROOT/bench/gpu/step_profile.py" "$work/resnet50-trace.json" >>"$report" 2>&1 || true; }
  echo "-- BatchNorm as generated kernels (--batch-norm-kernels generated; above: cuDNN's)" >>"$report"
  limit 150 "$CHECK/bin/train_step_resnet50_generated_bn" 3 >>"$report" 2>&1 || true
  limit 150 "$PY" "$ROOT/bench/gpu/torch_train_step.py" 64 3 >>"$report" 2>&1 || true
  endsection
  section "benchmark: BatchNorm training step, 64x256x56x56: cuDNN, generated by split setting (target threads x chunks)"
  for b in "$CHECK"/bin/train_step_bn_*; do
    echo "-- ${b##*train_step_bn_}" >>"$report"
    limit 60 "$b" 20 >>"$report" 2>&1 || true
  done
  endsection
  # What the Python half would need here (the extension is built for
  # CPython 3.11 with shared LLVM / MLIR: docs/gpu.md): recorded so that a
  # later session knows whether it could be built on this machine.
  section "this machine for the Python extension (not a check)"
  {
    "$PY" -c 'import sys, sysconfig, os
inc = sysconfig.get_paths()["include"]
print("python", sys.version.split()[0], sys.executable, "base", sys.base_prefix)
print("Python.h:", os.path.exists(os.path.join(inc, "Python.h")), inc)' 2>&1 || true
    for t in c++ g++ clang++ cmake ninja; do printf '%s: %s\n' "$t" "$(command -v "$t" || echo none)"; done
    grep -m1 PRETTY_NAME /etc/os-release 2>/dev/null || true
  } >>"$report" 2>&1
  endsection
  printf '\n%s\n' "$([ $fails -eq 0 ] && echo "gpu-check: PASSED" || echo "gpu-check: FAILED ($fails)")" >>"$report"
  cat "$report"
  [ $fails -eq 0 ]
}

case "${1:-}" in
  prepare) prepare ;;
  run) run ;;
  selftest) selftest ;;
  *) echo "usage: scripts/gpu-check.sh prepare|run|selftest" >&2; exit 2 ;;
esac
