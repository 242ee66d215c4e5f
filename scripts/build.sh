#!/usr/bin/env bash
# build.sh - configures (once) and builds mxc in build/ with clang-22, lld,
# ccache and Ninja. Extra arguments go to ninja (targets).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${MXC_BUILD_DIR:-$ROOT/build}"
JOBS="${MXC_JOBS:-2}"
# Build trees under the checkout share ccache entries (paths made relative).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
# A build tree last configured by `pip install .` (pyproject.toml builds in
# build/) may name a Python or a nanobind (pip's temporary build environment)
# that is gone since: configure again with the project venv's.
cached() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD/CMakeCache.txt" 2>/dev/null || true; }
stale=""
py="$(cached Python_EXECUTABLE)"; nb="$(cached NB_DIR)"
{ [ -n "$py" ] && [ ! -x "$py" ]; } && stale=1
{ [ -n "$nb" ] && [ ! -d "$nb" ]; } && stale=1
if [ ! -f "$BUILD/build.ninja" ] || [ -n "$stale" ]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD" \
    -DPython_EXECUTABLE="$ROOT/.venv/bin/python" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DPython3_EXECUTABLE="$ROOT/.venv/bin/python" >/dev/null
fi
ninja -C "$BUILD" -j"$JOBS" "$@"
