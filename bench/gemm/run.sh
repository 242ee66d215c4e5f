#!/usr/bin/env bash
# run.sh BUILD_DIR - builds and runs the GEMM benchmark (docs/benchmarks.md,
# "GEMM"): OpenBLAS through the runtime's kernel ABI on 1 and 2 threads, and
# the transform-dialect GEMM (gen_codegen.py) on one core.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd)"
REPS="${REPS:-20}"
LLVM=/usr/lib/llvm-22/bin
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

SHAPES="512,512,512:64,128,128 64,3136,576:64,64,64"
python3 "$HERE/gen_codegen.py" $SHAPES > "$OUT/gemm.mlir"
python3 "$HERE/gen_codegen.py" --schedule $SHAPES > "$OUT/schedule.mlir"
"$LLVM/mlir-opt" "$OUT/gemm.mlir" -o "$OUT/gemm.llvm.mlir" --pass-pipeline="builtin.module(\
transform-preload-library{transform-library-paths=$OUT/schedule.mlir},transform-interpreter,\
canonicalize,cse,one-shot-bufferize,canonicalize,cse,convert-vector-to-scf{full-unroll=true},\
convert-linalg-to-loops,expand-strided-metadata,lower-affine,convert-scf-to-cf,\
convert-vector-to-llvm,finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts)"
"$LLVM/mlir-translate" --mlir-to-llvmir "$OUT/gemm.llvm.mlir" -o "$OUT/gemm.ll"
"$LLVM/clang" -O3 -march=native -fPIC -shared -Wno-override-module "$OUT/gemm.ll" -o "$OUT/libgemm_codegen.so"

"$LLVM/clang++" -std=c++17 -O2 -I"$HERE/../../runtime/src/kernels" "$HERE/gemm_bench.cc" \
  -L"$BUILD/runtime" -lmxc_runtime -Wl,-rpath,"$BUILD/runtime" -ldl -o "$OUT/gemm_bench"

echo "== 1 thread (taskset -c 1)"
OPENBLAS_NUM_THREADS=1 taskset -c 1 "$OUT/gemm_bench" --codegen "$OUT/libgemm_codegen.so" --reps "$REPS"
echo "== 2 threads"
OPENBLAS_NUM_THREADS=2 "$OUT/gemm_bench" --reps "$REPS"
