#!/usr/bin/env bash
# Fails if the given shared library links LLVM or MLIR (per ldd).
set -euo pipefail
lib="$1"
deps="$(ldd "$lib")"
echo "$deps"
if echo "$deps" | grep -qiE 'libLLVM|libMLIR|libmlir'; then
  echo "FAIL: $lib depends on LLVM/MLIR"
  exit 1
fi
echo "OK: $lib has no LLVM/MLIR dependency"
