#!/usr/bin/env bash
# run.sh [bench.py options] - CPU inference benchmark (docs/benchmarks.md,
# "CPU inference"): sets up .venv-bench (torch CPU, onnx, onnxruntime, numpy;
# idempotent), builds mxc (scripts/build.sh mxc, -j2) and runs bench.py,
# which prints the latency table of mxc, ONNX Runtime and PyTorch eager on
# ResNet-18, VGG-11, AlexNet and Inception-BN at batch 1 and 16, then the GEMM
# benchmark (bench/gemm). Generated weights, ONNX files and inputs go to
# bench/cpu_inference/.work/ (git-ignored). Takes ~10 minutes on 2 cores.
# Quote medians, and run it while the machine is otherwise idle (`uptime`).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"

VENV="$ROOT/.venv-bench"
if ! "$VENV/bin/python" -c "import torch, onnx, onnxruntime, numpy" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet torch onnx onnxruntime numpy
fi

MXC_JOBS="${MXC_JOBS:-2}" "$ROOT/scripts/build.sh" mxc

mkdir -p "$HERE/.work"
export MXC_CACHE_DIR="${MXC_CACHE_DIR:-$HERE/.work/cache}"
exec "$VENV/bin/python" -W ignore "$HERE/bench.py" "$@"
