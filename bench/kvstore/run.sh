#!/usr/bin/env bash
# run.sh BUILD_DIR [RANKS] - the KVStore benchmark (docs/benchmarks.md,
# "KVStore"): builds kvstore_bench.cc against BUILD_DIR's runtime, runs it
# with RANKS (default 4) MPI ranks for 64 MB (MB=...), then the share of
# communication hidden behind backward in a ResNet-18 data-parallel step
# (overlap.py).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="$(cd "${1:?usage: run.sh BUILD_DIR [RANKS]}" && pwd)"
RANKS="${2:-4}"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
MPI_CFLAGS="$(mpicc --showme:compile)"
MPI_LIBS="$(mpicc --showme:link)"
clang++-22 -std=c++17 -O2 -I"$HERE/../../runtime/include" $MPI_CFLAGS "$HERE/kvstore_bench.cc" \
  -L"$BUILD/runtime" -lmxc_runtime -Wl,-rpath,"$BUILD/runtime" $MPI_LIBS -o "$OUT/kvstore_bench"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "== $(date -u +%F\ %T) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
mpirun --oversubscribe -np "$RANKS" "$OUT/kvstore_bench" --mb "${MB:-64}" --iters "${ITERS:-10}"
echo
PYTHONPATH="$BUILD/python_packages" python3 "$HERE/../../tools/launch.py" -n "${OVERLAP_RANKS:-2}" \
  "${PYTHON:-python3}" "$HERE/overlap.py" "$OUT"
