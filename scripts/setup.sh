#!/usr/bin/env bash
# setup.sh - installs everything mxc needs on a fresh machine of this kind
# (Debian 12, x86-64): LLVM/MLIR 22 and the build tools from apt, and a
# project venv (.venv) with the Python packages. Idempotent: a second run
# installs nothing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

APT_PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 lld-22
  libclang-rt-22-dev ninja-build ccache cmake libgtest-dev python3-venv
  libopenblas-dev libdnnl-dev
  g++-aarch64-linux-gnu qemu-user-static dataset-fashion-mnist
  openmpi-bin libopenmpi-dev iproute2
)

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -q "${missing[@]}" >/dev/null ||
    { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q "${missing[@]}" >/dev/null; }
fi

# aarch64 (mxc compile --target aarch64-linux-gnu, docs/aot.md): Debian's
# cross toolchain above, and OpenBLAS for arm64 from multiarch
# (/usr/lib/aarch64-linux-gnu), which scripts/build-runtime-aarch64.sh links.
if ! dpkg-query -W -f='${Status}' libopenblas-dev:arm64 2>/dev/null | grep -q "install ok installed"; then
  echo "setup: installing libopenblas-dev:arm64 (multiarch)"
  export DEBIAN_FRONTEND=noninteractive
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64
    $SUDO apt-get update -q >/dev/null
  fi
  $SUDO apt-get install -y -q --no-install-recommends libopenblas-dev:arm64 >/dev/null ||
    { $SUDO apt-get update -q >/dev/null &&
      $SUDO apt-get install -y -q --no-install-recommends libopenblas-dev:arm64 >/dev/null; }
fi

# The project venv, from the python3 on PATH (pyenv 3.11 here).
VENV="$ROOT/.venv"
REQ="$ROOT/requirements-dev.txt"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
stamp="$VENV/.requirements.sha256"
want="$(sha256sum "$REQ" | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing Python packages into .venv"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$REQ"
  echo "$want" > "$stamp"
fi
