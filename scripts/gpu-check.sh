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
#                                  builds the benchmark; all into
#                                  build-gpu/check/ (~2 MB).
#   scripts/gpu-check.sh run       on the machine with the GPU, from the
#                                  repository root, with build-gpu/check
#                                  carried there: the runtime's GPU tests,
#                                  the clean-error path without a driver, each
#                                  model's outputs against the CPU's, the
#                                  benchmark. Writes $OUT/gpu-report.md (or
#                                  build-gpu/check/gpu-report.md); exits
#                                  non-zero if anything failed.
#
# With the device tool: run(command="scripts/gpu-check.sh run",
# carry=["build-gpu/check"], timeout_s=480).
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CHECK="$ROOT/build-gpu/check"
MODELS="test/gpu/models.py"
BENCH_SHAPE="--shape x=67108864 --shape y=67108864" # 256 MB each

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
  for s in "$CHECK"/models/*-symbol.json; do
    local name; name="$(basename "$s" -symbol.json)"
    local params=()
    [ -f "$CHECK/models/$name-0000.params" ] && params=(--params "$CHECK/models/$name-0000.params")
    # shellcheck disable=SC2046
    "$ROOT/build/bin/mxc" compile "$s" $(cat "$CHECK/models/$name.shapes") "${params[@]}" \
      --target cuda --cuda-arch sm_90 --runtime-dir "$rtdir" -o "$CHECK/models/$name"
  done
  # The benchmark: out = relu(x * 0.5 + y) as one fused kernel.
  cat >"$CHECK/bench-symbol.json" <<'JSON'
{"nodes": [{"op": "null", "name": "x", "inputs": []}, {"op": "null", "name": "y", "inputs": []},
 {"op": "_mul_scalar", "name": "half", "attrs": {"scalar": "0.5"}, "inputs": [[0,0,0]]},
 {"op": "elemwise_add", "name": "add", "inputs": [[2,0,0],[1,0,0]]},
 {"op": "relu", "name": "relu", "inputs": [[3,0,0]]}],
 "arg_nodes": [0, 1], "heads": [[4,0,0]], "attrs": {"mxnet_version": ["int", 10901]}}
JSON
  # One benchmark binary per launch shape (threads a block x elements a
  # thread); the default is the first.
  for shape in 128x4 256x4 128x2 64x4; do
    # shellcheck disable=SC2086
    "$ROOT/build/bin/mxc" compile "$CHECK/bench-symbol.json" $BENCH_SHAPE --target cuda \
      --cuda-arch sm_90 --cuda-block-size "${shape%x*}" --cuda-elements-per-thread "${shape#*x}" \
      --emit obj -o "$CHECK/bench.o"
    c++ -std=c++17 -O2 -I"$ROOT/runtime/include" "$ROOT/bench/gpu/elementwise_bandwidth.cc" \
      "$CHECK/bench.o" -L"$CHECK/bin" -lmxc_runtime -Wl,-rpath,'$ORIGIN' \
      -o "$CHECK/bin/elementwise_bandwidth_$shape"
  done
  rm -f "$CHECK/bench.o"
  du -sh "$CHECK"
}

# The test binary finds libmxc_runtime.so beside it.
patchelf_rpath() {
  if command -v patchelf >/dev/null; then patchelf --set-rpath '$ORIGIN' "$1"; fi
}

run() {
  local out="${OUT:-$CHECK}" report fails=0
  report="$out/gpu-report.md"
  [ -d "$CHECK/bin" ] || { echo "gpu-check: no $CHECK (run 'prepare' first and carry it)" >&2; exit 1; }
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
  if ! "$CHECK/bin/mxc-cuda-tests" >>"$report" 2>&1; then fails=$((fails + 1)); fi
  endsection
  section "no driver (MXC_CUDA_DRIVER=/nonexistent): the one-line error"
  if ! MXC_CUDA_DRIVER=/nonexistent "$CHECK/bin/mxc-cuda-tests" \
      --gtest_filter='CudaAvailability.*' >>"$report" 2>&1; then fails=$((fails + 1)); fi
  endsection

  section "models: GPU outputs against mxc's CPU backend"
  for exe in "$CHECK"/models/*; do
    [ -f "$exe" ] && [ -x "$exe" ] || continue
    local name inputs=() o
    name="$(basename "$exe")"
    for f in "$CHECK/models/$name.in"/*.npy; do
      inputs+=(--input "$(basename "$f" .npy)=$f")
    done
    o="$out/$name.out"
    rm -rf "$o"
    if ! "$exe" "${inputs[@]}" --output-dir "$o" >>"$report" 2>&1; then
      echo "$name: FAILED to run" >>"$report"; fails=$((fails + 1)); continue
    fi
    if ! python3 - "$CHECK/models/$name.ref" "$o" "$name" $(cat "$CHECK/models/$name.tol") \
        >>"$report" 2>&1 <<'PY'
import glob, os, sys
import numpy as np
ref, got, name, rtol, atol = sys.argv[1:]
rtol, atol = float(rtol), float(atol)
bad = 0
for r in sorted(glob.glob(os.path.join(ref, "*.npy"))):
    key = os.path.basename(r)
    g = os.path.join(got, key)
    if not os.path.exists(g):
        print("%s: %s missing" % (name, key)); bad += 1; continue
    a, b = np.load(r), np.load(g)
    if a.shape != b.shape or not np.allclose(b, a, rtol=rtol, atol=atol, equal_nan=True):
        err = np.max(np.abs(a.astype(np.float64) - b)) if a.shape == b.shape else "shape"
        print("%s: %s differs (max abs error %s)" % (name, key, err)); bad += 1
    else:
        print("%s: %s ok (max abs error %.2g)" % (name, key,
              float(np.max(np.abs(a.astype(np.float64) - b))) if a.size else 0.0))
sys.exit(1 if bad else 0)
PY
    then fails=$((fails + 1)); fi
    rm -rf "$o"
  done
  endsection

  section "benchmark: fused elementwise against a device-to-device copy"
  for b in "$CHECK"/bin/elementwise_bandwidth_*; do
    echo "-- ${b##*_} (threads a block x elements a thread)" >>"$report"
    if ! "$b" 50 >>"$report" 2>&1; then fails=$((fails + 1)); fi
  done
  endsection
  printf '\n%s\n' "$([ $fails -eq 0 ] && echo "gpu-check: PASSED" || echo "gpu-check: FAILED ($fails)")" >>"$report"
  cat "$report"
  [ $fails -eq 0 ]
}

case "${1:-}" in
  prepare) prepare ;;
  run) run ;;
  *) echo "usage: scripts/gpu-check.sh prepare|run" >&2; exit 2 ;;
esac
