#!/usr/bin/env bash
# run.sh [bench.py options] - JIT compile time of fresh small graphs
# (docs/benchmarks.md, "JIT compile time of small graphs"): builds the Python
# package (scripts/build.sh mxc-python in $MXC_BUILD_DIR, default build/) and
# runs bench.py with .venv's Python; MXNet 1.9.1 from .venv-mxnet and PyTorch
# from .venv-bench where they exist. A few minutes.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"
BUILD="${MXC_BUILD_DIR:-$ROOT/build}"
MXC_BUILD_DIR="$BUILD" MXC_JOBS="${MXC_JOBS:-2}" "$ROOT/scripts/build.sh" mxc-python
PYTHONPATH="$BUILD/python_packages" exec "$ROOT/.venv/bin/python" "$HERE/bench.py" "$@"
