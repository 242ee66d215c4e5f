#!/usr/bin/env bash
# run-main.sh - the main job, from a fresh machine: installs what it needs,
# builds mxc, and compiles and runs real MXNet models on the CPU:
#   1. vgg_like_model1.json, a symbol file written by MXNet 1.2 itself:
#      imported, summarised (ops, parameters, inferred output shapes);
#   2. an MLP checkpoint written by MXNet 1.9.1 (symbol + .params):
#      JIT-compiled and run on its own weights, outputs written as .npy;
#   3. ResNet-50 (MXNet JSON from the model-zoo generator, seeded weights):
#      summarised, JIT-compiled and timed at batch 1.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
scripts/setup.sh
scripts/build.sh mxc
MXC=build/bin/mxc
OUT=build/main-job
mkdir -p "$OUT"

echo "== 1. A model file written by MXNet: test/Inputs/mxnet-files/vgg_like_model1.json"
$MXC summary test/Inputs/mxnet-files/vgg_like_model1.json --shape data=1,3,224,224

echo
echo "== 2. An MXNet 1.9.1 checkpoint (mlp-symbol.json + mlp-0000.params), batch 4"
$MXC run test/Inputs/mxnet-params/mlp-symbol.json --params test/Inputs/mxnet-params/mlp-0000.params \
  --shape data=4,1,28,28 --output-dir "$OUT/mlp" -v
ls "$OUT/mlp"

echo
.venv/bin/python tools/zoo/mxnet_zoo.py resnet50 -o "$OUT/resnet50-symbol.json"
echo "== 3. ResNet-50 (tools/zoo), batch 1"
$MXC summary "$OUT/resnet50-symbol.json" --shape data=1,3,224,224
$MXC run "$OUT/resnet50-symbol.json" --shape data=1,3,224,224 --warmup 2 --repeat 10 -v
