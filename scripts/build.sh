#!/usr/bin/env bash
# build.sh - configures (once) and builds mxc in build/ with clang-22, lld,
# ccache and Ninja. Extra arguments go to ninja (targets).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${MXC_BUILD_DIR:-$ROOT/build}"
JOBS="${MXC_JOBS:-2}"
# Build trees under the checkout share ccache entries (paths made relative).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DPython3_EXECUTABLE="$ROOT/.venv/bin/python" >/dev/null
fi
ninja -C "$BUILD" -j"$JOBS" "$@"
