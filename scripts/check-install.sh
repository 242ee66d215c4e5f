#!/usr/bin/env bash
# check-install.sh - the CMake package of the runtime, as a C/C++ user gets it
# (docs/aot.md, "Using mxc from CMake"):
#   1. builds the runtime alone (MXC_BUILD_COMPILER=OFF): reuses build-runtime/
#      (scripts/check-runtime-alone.sh) if it exists, else build-install/
#      without tests; only the installed targets are built;
#   2. `cmake --install` into a temporary prefix, then moves the tree to
#      another directory (the package must be relocatable);
#   3. checks that no installed file names the source or build tree, or the
#      prefix it was installed to;
#   4. copies examples/cpp-consumer out of the tree, configures it with
#      CMAKE_PREFIX_PATH=<moved prefix> only, checks that its build files name
#      nothing of the source tree, builds and runs engine_demo (C++: engine,
#      arrays, read/write variables) and c_api_demo (C API: arrays, a plan run
#      by the executor);
#   5. if an mxc binary is there ($MXC, default build/bin/mxc), compiles a
#      small graph with `mxc compile --emit obj` and links it with the
#      installed mxc::model_rt (model_demo), checking its output.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${MXC_JOBS:-2}"
start=$(date +%s)

if [ -f "$ROOT/build-runtime/build.ninja" ]; then
  B="$ROOT/build-runtime"
else
  B="$ROOT/build-install"
  if [ ! -f "$B/build.ninja" ]; then
    cmake -G Ninja -S "$ROOT" -B "$B" -DMXC_BUILD_COMPILER=OFF -DMXC_BUILD_TESTS=OFF \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 >/dev/null
  fi
fi
echo "check-install: runtime build tree $B"
ninja -C "$B" -j"$JOBS" mxc_runtime mxc_model_rt mxc_model_main >/dev/null

T="$(mktemp -d "${TMPDIR:-/tmp}/mxc-install.XXXXXX")"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
cmake --install "$B" --prefix "$T/staged" >/dev/null
mkdir -p "$T/moved"
mv "$T/staged" "$T/moved/prefix"
P="$T/moved/prefix"

fail() { echo "check-install: FAIL: $*" >&2; exit 1; }

# Installed layout.
for f in include/mxc/mxc_model.h include/mxc/runtime/c_api.h \
         include/mxc/runtime/engine.h include/mxc/runtime/ndarray.h \
         lib/libmxc_runtime.so lib/cmake/mxc/mxcConfig.cmake \
         lib/cmake/mxc/mxcConfigVersion.cmake lib/cmake/mxc/mxcTargets.cmake; do
  [ -e "$P/$f" ] || fail "not installed: $f"
done
ls "$P"/lib/mxc/*/libmxc_model_rt.a "$P"/lib/mxc/*/libmxc_model_main.a \
  "$P"/lib/mxc/*/link-libs.txt >/dev/null || fail "AOT archives not installed"

# No absolute path to the source tree, the build tree or the install prefix
# in any installed file (text or binary, RPATHs included).
for bad in "$ROOT" "$(realpath "$B")" "$T/staged"; do
  if hits=$(grep -rlF -- "$bad" "$P"); then
    fail "installed files name $bad:"$'\n'"$hits"
  fi
done
for so in "$P"/lib/*.so; do
  dyn=$(readelf -d "$so")
  if grep -E 'R(UN)?PATH' <<<"$dyn" | grep -qF "$ROOT"; then
    fail "$so has a build-tree RPATH"
  fi
done
echo "check-install: $(find "$P" -type f | wc -l) files installed, none names the source/build tree"

# The example, outside the source tree, against the moved prefix only.
cp -r "$ROOT/examples/cpp-consumer" "$T/src"
CONFIG=(-G Ninja -DCMAKE_PREFIX_PATH="$P" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
        -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22)

MXC="${MXC:-$ROOT/build/bin/mxc}"
MODEL_OBJ=""
if [ -x "$MXC" ]; then
  # y = relu(data) * 3 on (2, 3): no parameters.
  mkdir -p "$T/model"
  cat >"$T/model/tiny-symbol.json" <<'JSON'
{"nodes": [
  {"op": "null", "name": "data", "inputs": []},
  {"op": "relu", "name": "r", "inputs": [[0, 0, 0]]},
  {"op": "_mul_scalar", "name": "y", "attrs": {"scalar": "3"}, "inputs": [[1, 0, 0]]}],
 "arg_nodes": [0], "node_row_ptr": [0, 1, 2, 3], "heads": [[2, 0, 0]],
 "attrs": {"mxnet_version": ["int", 10901]}}
JSON
  "$MXC" compile "$T/model/tiny-symbol.json" --shape data=2,3 --emit obj \
    -o "$T/model/tiny.o" || fail "mxc compile --emit obj"
  MODEL_OBJ="$T/model/tiny.o"
  CONFIG+=(-DMXC_MODEL_OBJECT="$MODEL_OBJ")
else
  echo "check-install: no mxc at $MXC: model_demo (mxc::model_rt) skipped"
fi

cmake -S "$T/src" -B "$T/build" "${CONFIG[@]}" >"$T/configure.log" ||
  { cat "$T/configure.log"; fail "configuring the example"; }
found=$(sed -n 's/^mxc_DIR:PATH=//p' "$T/build/CMakeCache.txt")
[ "$found" = "$P/lib/cmake/mxc" ] || fail "find_package(mxc) found '$found', not $P/lib/cmake/mxc"
cmake --build "$T/build" -j"$JOBS" >"$T/build.log" ||
  { cat "$T/build.log"; fail "building the example"; }
if grep -lF -- "$ROOT" "$T/build/build.ninja" "$T/build/compile_commands.json" \
     "$T/build/CMakeCache.txt" 2>/dev/null; then
  fail "the example's build refers to the source tree"
fi
# (Output captured first: grep -q closing the pipe early would fail ldd
# under pipefail.)
deps=$(ldd "$T/build/engine_demo")
grep -qF "$P/lib/libmxc_runtime.so" <<<"$deps" ||
  fail "engine_demo does not load the installed libmxc_runtime.so"

"$T/build/engine_demo"
"$T/build/c_api_demo"
if [ -n "$MODEL_OBJ" ]; then
  out=$("$T/build/model_demo") || { echo "$out"; fail "model_demo"; }
  echo "$out"
  # relu([-3, -2, -1, 0, 1, 2]) * 3 sums to 9.
  grep -qx "output [^ ]*: shape (2, 3) sum 9" <<<"$out" || fail "model_demo's output"
fi
echo "check-install: OK ($(( $(date +%s) - start )) s)"
