#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) in BUILD_DIR and runs each for SECONDS
# seconds on a seed corpus made from test/Inputs; exits non-zero on a crash,
# leak, timeout or failed property (the input is left in BUILD_DIR/fuzz-artifacts).
#
#   scripts/run-fuzzers.sh SECONDS BUILD_DIR
#
# BUILD_DIR is configured with clang and -DMXC_BUILD_FUZZERS=ON if needed;
# CC / CXX / MLIR_DIR override the defaults below. Only the fuzzer targets
# are built (-j2).
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 SECONDS BUILD_DIR" >&2
  exit 2
fi
secs=$1
build=$2
root=$(cd "$(dirname "$0")/.." && pwd)
cc=${CC:-clang-22}
cxx=${CXX:-clang++-22}
mlir_dir=${MLIR_DIR:-/usr/lib/llvm-22/lib/cmake/mlir}

cmake -G Ninja -S "$root" -B "$build" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  -DLLVM_USE_LINKER=lld -DMLIR_DIR="$mlir_dir" \
  -DMXC_BUILD_FUZZERS=ON >"$build.cmake.log" 2>&1 || {
  cat "$build.cmake.log" >&2
  exit 1
}
rm -f "$build.cmake.log"
ninja -C "$build" -j2 symbol_json_fuzzer params_fuzzer plan_fuzzer

bin=$(cd "$build" && pwd)/bin
[[ -x $bin/symbol_json_fuzzer ]] || bin=$(cd "$build" && pwd)/fuzz
artifacts=$build/fuzz-artifacts
mkdir -p "$artifacts"

# Seeds: the small real files (the working corpus grows in BUILD_DIR).
seed() { # name, then files
  local dir=$build/fuzz-corpus/$1
  shift
  mkdir -p "$dir"
  for f in "$@"; do
    [[ -f $f && $(stat -c %s "$f") -le 65536 ]] && cp -n "$f" "$dir/" || true
  done
}
seed symbol_json "$root"/test/Inputs/mxnet-files/*.json \
  "$root"/test/Inputs/mxnet-params/*.json
seed params "$root"/test/Inputs/mxnet-params/*.params
seed plan "$root"/runtime/test/plans/*.plan

status=0
for name in symbol_json params plan; do
  echo "== ${name}_fuzzer: ${secs}s"
  if ! "$bin/${name}_fuzzer" "$build/fuzz-corpus/$name" \
      -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$artifacts/${name}-" \
      -dict="$root/fuzz/$name.dict" \
      >"$build/fuzz-$name.log" 2>&1; then
    echo "!! ${name}_fuzzer failed; see $build/fuzz-$name.log and $artifacts" >&2
    tail -40 "$build/fuzz-$name.log" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|cov:" \
      "$build/fuzz-$name.log" | tail -3
  fi
done
exit $status
