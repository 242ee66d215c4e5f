#!/usr/bin/env bash
# check-runtime-alone.sh - builds the runtime without the compiler
# (MXC_BUILD_COMPILER=OFF) in build-runtime/ and runs its tests there; one of
# them checks that libmxc_runtime.so links no LLVM or MLIR library.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
B="$ROOT/build-runtime"
if [ ! -f "$B/build.ninja" ]; then
  cmake -G Ninja -S "$ROOT" -B "$B" -DMXC_BUILD_COMPILER=OFF \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 >/dev/null
fi
ninja -C "$B" -j"${MXC_JOBS:-2}"
ctest --test-dir "$B" --output-on-failure --no-tests=error
