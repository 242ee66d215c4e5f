#!/usr/bin/env bash
# build-runtime-aarch64.sh - cross-builds the runtime for aarch64 Linux
# (MXC_BUILD_COMPILER=OFF, cmake/aarch64-linux-gnu.cmake) in
# build-runtime-aarch64/: libmxc_runtime.so and the AOT runtime that
# `mxc compile --target aarch64-linux-gnu` links, in
# build-runtime-aarch64/lib/mxc/aarch64-linux-gnu/ (where mxc looks for it).
# Needs scripts/setup.sh's cross packages (g++-aarch64-linux-gnu, and
# libopenblas-dev:arm64 for the OpenBLAS kernels; without it the runtime is
# configured with MXC_RUNTIME_BLAS=OFF, the portable C++ GEMM). Extra
# arguments go to ninja (targets).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
B="${MXC_AARCH64_BUILD_DIR:-$ROOT/build-runtime-aarch64}"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
# Without arm64 OpenBLAS (multiarch), the kernels use the portable C++ GEMM.
BLAS=ON
[ -e /usr/lib/aarch64-linux-gnu/libopenblas.so ] || BLAS=OFF
if [ ! -f "$B/build.ninja" ]; then
  [ "$BLAS" = ON ] || echo "build-runtime-aarch64: no libopenblas-dev:arm64; portable GEMM (MXC_RUNTIME_BLAS=OFF)"
  cmake -G Ninja -S "$ROOT" -B "$B" -DMXC_BUILD_COMPILER=OFF -DMXC_BUILD_TESTS=OFF \
    -DMXC_RUNTIME_BLAS="$BLAS" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/aarch64-linux-gnu.cmake" >/dev/null
fi
if [ $# -eq 0 ]; then
  set -- mxc_runtime mxc_model_rt mxc_model_main
fi
ninja -C "$B" -j"${MXC_JOBS:-2}" "$@"
