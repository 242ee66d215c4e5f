#!/usr/bin/env bash
# run-main.sh - the main job, from a fresh machine: installs what it needs,
# builds mxc, and imports real MXNet models, printing each one's summary
# (ops, parameter count, inferred output shapes):
#   - vgg_like_model1.json, a symbol file written by MXNet 1.2 itself;
#   - ResNet-50 in MXNet JSON from the project's model-zoo generator.
# Later stages of the project extend this to compile and run the model.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
scripts/setup.sh
scripts/build.sh mxc
MXC=build/bin/mxc

echo "== A real MXNet-written model: test/Inputs/mxnet-files/vgg_like_model1.json"
$MXC summary test/Inputs/mxnet-files/vgg_like_model1.json --shape data=1,3,224,224

mkdir -p build/zoo
.venv/bin/python tools/zoo/mxnet_zoo.py resnet50 -o build/zoo/resnet50-symbol.json
echo
echo "== ResNet-50 (MXNet JSON from tools/zoo), batch 64"
$MXC summary build/zoo/resnet50-symbol.json --shape data=64,3,224,224
$MXC import build/zoo/resnet50-symbol.json --shape data=64,3,224,224 -o build/zoo/resnet50.mlir
echo
echo "wrote build/zoo/resnet50.mlir ($(grep -c ' = mx\.' build/zoo/resnet50.mlir) mx ops)"
