#!/usr/bin/env bash
# run.sh [bench.py options] - training throughput (docs/benchmarks.md,
# "Training throughput"): builds the Python package (scripts/build.sh
# mxc-python in $MXC_BUILD_DIR, default build/) and runs bench.py (mxc and PyTorch workers) with
# .venv-bench's Python (torch CPU, numpy; the same Python 3.11 as .venv, so
# mxc's extension imports there). LeNet and ResNet-18, a few minutes.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"
BUILD="${MXC_BUILD_DIR:-$ROOT/build}"
VENV="$ROOT/.venv-bench"
if ! "$VENV/bin/python" -c "import torch, numpy" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet torch numpy
fi
MXC_BUILD_DIR="$BUILD" MXC_JOBS="${MXC_JOBS:-2}" "$ROOT/scripts/build.sh" mxc-python
mkdir -p "$HERE/.work"
export MXC_CACHE_DIR="${MXC_CACHE_DIR:-$HERE/.work/cache}" MXC_QUIET=1
PYTHONPATH="$BUILD/python_packages" exec "$VENV/bin/python" -W ignore "$HERE/bench.py" "$@"
