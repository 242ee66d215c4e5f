#!/usr/bin/env bash
# run.sh [--no-build] [--setup-only] [bench.py options] - CPU inference
# benchmark (docs/benchmarks.md, "CPU inference"): sets up .venv-bench (torch,
# onnx, onnxruntime, openvino, numpy, matplotlib; idempotent: installs only
# what is missing) and the MXNet 1.9.1 side venv (.venv-mxnet: mxnet==1.9.1,
# numpy<1.24, as docs/model-zoo.md makes it; left alone when it works), builds mxc (scripts/build.sh mxc, -j2; --no-build uses
# build/bin/mxc as it is) and runs bench.py: mxc, ONNX Runtime, OpenVINO,
# PyTorch eager, torch.compile and MXNet 1.9.1 on ResNet-18, ResNet-50,
# VGG-11, AlexNet, Inception-BN and MobileNet-v2 at batch 1 and 16, 2 threads
# each, then the GEMM benchmark (bench/gemm), then the tables (latency,
# ratios, GFLOP/s beside the measured GEMM peak) and docs/cpu_inference.png.
# Generated weights, ONNX files and inputs go to bench/cpu_inference/.work/
# (git-ignored). The full run takes ~30-40 minutes on 2 cores; a quick look:
#   bench/cpu_inference/run.sh --no-build --nets resnet18 --batches 1 --rounds 1 --runs 5 \
#       --no-gemm --no-plot
# Quote medians, and run it while the machine is otherwise idle (`uptime`).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"

build=1 setup_only=""
args=()
for a in "$@"; do
  case "$a" in
    --no-build) build="" ;;
    --setup-only) setup_only=1 ;;
    *) args+=("$a") ;;
  esac
done

VENV="$ROOT/.venv-bench"
PKGS=(torch onnx onnxruntime openvino numpy matplotlib)
MODS=(torch onnx onnxruntime openvino numpy matplotlib)
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
missing=()
for i in "${!MODS[@]}"; do
  "$VENV/bin/python" -c "import ${MODS[$i]}" 2>/dev/null || missing+=("${PKGS[$i]}")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "run.sh: installing into .venv-bench: ${missing[*]}" >&2
  "$VENV/bin/pip" install --quiet "${missing[@]}"
fi

MXNET_VENV="$ROOT/.venv-mxnet"
if ! "$MXNET_VENV/bin/python" -c "import mxnet" 2>/dev/null; then
  echo "run.sh: installing MXNet 1.9.1 into .venv-mxnet" >&2
  { [ -x "$MXNET_VENV/bin/python" ] || python3 -m venv "$MXNET_VENV"; } &&
    "$MXNET_VENV/bin/pip" install --quiet mxnet==1.9.1 'numpy<1.24' ||
    echo "run.sh: could not set up .venv-mxnet: the MXNet column will say n/a" >&2
fi
[ -n "$setup_only" ] && exit 0

if [ -n "$build" ]; then
  MXC_JOBS="${MXC_JOBS:-2}" "$ROOT/scripts/build.sh" mxc
fi

mkdir -p "$HERE/.work"
export MXC_CACHE_DIR="${MXC_CACHE_DIR:-$HERE/.work/cache}"
exec "$VENV/bin/python" -W ignore "$HERE/bench.py" ${args[@]+"${args[@]}"}
