#!/usr/bin/env bash
# run-tests.sh - the whole mxc test suite on a fresh machine: installs what it
# needs (scripts/setup.sh), builds, then runs CTest (unit tests), lit
# (dialect/CLI tests), pytest, the runtime-only build with its checks, and
# each libFuzzer target for MXC_FUZZ_SECONDS (default 60) seconds (the ONNX
# reader's fuzzer in pytest too).
# Every stage runs; the exit status is non-zero if any failed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
FUZZ_SECONDS="${MXC_FUZZ_SECONDS:-60}"

scripts/setup.sh || exit 1
export PATH="$ROOT/.venv/bin:$PATH"
scripts/build.sh all || { echo "run-tests: build failed"; exit 1; }

failed=()
stage() {
  local name="$1"; shift
  echo
  echo "=== $name ==="
  "$@" || failed+=("$name")
}

stage "ctest (unit tests)" ctest --test-dir build --output-on-failure --no-tests=error -j2
stage "lit" /usr/lib/llvm-22/bin/lit -sv build/test
# The aarch64 AOT runtime, which test_aot.py links (mxc compile --target).
stage "runtime for aarch64 (cross build)" scripts/build-runtime-aarch64.sh
# The ONNX reader's fuzzer (test/python/onnx/test_fuzz_import.py) runs as
# long as each libFuzzer target. pytest-xdist: MXC_TEST_JOBS workers (default
# 2, the CI machine's cores), each running whole test files (module fixtures,
# such as the driver double's checks, run once); 1: no workers.
PYTEST_JOBS=()
if [ "${MXC_TEST_JOBS:-2}" -gt 1 ]; then
  PYTEST_JOBS=(-n "${MXC_TEST_JOBS:-2}" --dist loadfile)
fi
MXC_ONNX_FUZZ_SECONDS="${MXC_ONNX_FUZZ_SECONDS:-$FUZZ_SECONDS}" \
  stage "pytest" python -m pytest -q "${PYTEST_JOBS[@]}" test/python
stage "runtime alone (MXC_BUILD_COMPILER=OFF)" scripts/check-runtime-alone.sh
# cmake --install + find_package(mxc) from examples/cpp-consumer (reuses
# build-runtime/ from the stage above).
stage "install + CMake consumer (find_package(mxc))" scripts/check-install.sh
stage "fuzzers (${FUZZ_SECONDS}s each)" scripts/run-fuzzers.sh "$FUZZ_SECONDS" build
# pip install . (the user's route), once and last, reusing build/: nothing of
# the compiler is compiled again.
stage "pip install . (reuses build/)" scripts/check-pip-install.sh

echo
if [ ${#failed[@]} -gt 0 ]; then
  echo "run-tests: FAILED: ${failed[*]}"
  exit 1
fi
echo "run-tests: all stages passed"
