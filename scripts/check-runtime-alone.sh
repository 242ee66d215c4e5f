#!/usr/bin/env bash
# check-runtime-alone.sh - builds the runtime without the compiler
# (MXC_BUILD_COMPILER=OFF) in build-runtime/ and runs its tests there; one of
# them checks that libmxc_runtime.so links no LLVM or MLIR library. Then the
# same again with ThreadSanitizer in build-runtime-tsan/, and with
# AddressSanitizer + UndefinedBehaviorSanitizer in build-runtime-asan/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
B="$ROOT/build-runtime"
if [ ! -f "$B/build.ninja" ]; then
  cmake -G Ninja -S "$ROOT" -B "$B" -DMXC_BUILD_COMPILER=OFF \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 >/dev/null
fi
ninja -C "$B" -j"${MXC_JOBS:-2}"
ctest --test-dir "$B" --output-on-failure --no-tests=error

# The same tests built with ThreadSanitizer (MXC_ENABLE_TSAN) in
# build-runtime-tsan/: a race halts the test that hit it and fails it. The
# engine tests scale their big workloads down in this build (see
# runtime/test/CMakeLists.txt) so that the run stays within minutes.
T="$ROOT/build-runtime-tsan"
if [ ! -f "$T/build.ninja" ]; then
  cmake -G Ninja -S "$ROOT" -B "$T" -DMXC_BUILD_COMPILER=OFF -DMXC_ENABLE_TSAN=ON \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 >/dev/null
fi
ninja -C "$T" -j"${MXC_JOBS:-2}"
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}" \
  ctest --test-dir "$T" --output-on-failure --no-tests=error -j"${MXC_JOBS:-2}"

# The same tests built with AddressSanitizer + UndefinedBehaviorSanitizer
# (MXC_ENABLE_ASAN_UBSAN: -fsanitize=address,undefined
# -fno-sanitize-recover=all) in build-runtime-asan/: an out-of-bounds access,
# use after free, leak (LeakSanitizer), initialisation-order problem or
# undefined behaviour ends the test that hit it and fails it. The workloads
# keep their full size (about a minute on 2 cores); the back-pressure test
# bounds the live heap there instead of the resident set, which the ASan
# quarantine inflates.
A="$ROOT/build-runtime-asan"
if [ ! -f "$A/build.ninja" ]; then
  cmake -G Ninja -S "$ROOT" -B "$A" -DMXC_BUILD_COMPILER=OFF -DMXC_ENABLE_ASAN_UBSAN=ON \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 >/dev/null
fi
ninja -C "$A" -j"${MXC_JOBS:-2}"
ASAN_OPTIONS="detect_leaks=1 check_initialization_order=1 strict_init_order=1 detect_stack_use_after_return=1 ${ASAN_OPTIONS:-}" \
UBSAN_OPTIONS="print_stacktrace=1 halt_on_error=1 ${UBSAN_OPTIONS:-}" \
  ctest --test-dir "$A" --output-on-failure --no-tests=error -j"${MXC_JOBS:-2}"
