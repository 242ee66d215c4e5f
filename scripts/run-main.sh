#!/usr/bin/env bash
# run-main.sh - the main job, from a fresh machine: installs what it needs,
# builds mxc, and compiles and runs real MXNet models on the CPU:
#   1. vgg_like_model1.json, a symbol file written by MXNet 1.2 itself:
#      imported, summarised (ops, parameters, inferred output shapes);
#   2. an MLP checkpoint written by MXNet 1.9.1 (symbol + .params):
#      JIT-compiled and run on its own weights, outputs written as .npy;
#   3. ResNet-50 (MXNet JSON from the model-zoo generator, seeded weights):
#      summarised, JIT-compiled and timed at batch 1.
#   4. train, then compile ahead of time (docs/python.md, docs/aot.md): LeNet
#      trained on Fashion-MNIST (Debian's dataset-fashion-mnist, 60,000 real
#      images) for 2 epochs by examples/train_fashion_mnist.py through the
#      Python front end (`import mxc as mx`, Module.fit), saved as an MXNet
#      checkpoint, compiled from that checkpoint by `mxc compile --emit exe`
#      into a standalone program (no LLVM), and run on the 10,000 test images
#      at batch 100; accuracy and latency.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
scripts/setup.sh
scripts/build.sh mxc mxc-python
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

echo
echo "== 4. Train LeNet on Fashion-MNIST (Module.fit, 2 epochs), mxc compile the checkpoint into a"
echo "   standalone executable, run it on the 10,000 test images"
L="$OUT/lenet"
mkdir -p "$L"
MXC_BUILD_DIR="$ROOT/build" MXC_PROGRESS=0 .venv/bin/python examples/train_fashion_mnist.py \
  --epochs 2 --prefix "$L/lenet" --plot "$L/curve.png" 2>&1 | grep -v "Batch \["
FMNIST=/usr/share/datasets/fashion-mnist
.venv/bin/python - "$FMNIST" "$L" <<'PY'
import gzip, sys, numpy as np
src, out = sys.argv[1], sys.argv[2]
with gzip.open(src + "/t10k-images-idx3-ubyte.gz") as f:
    images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)
with gzip.open(src + "/t10k-labels-idx1-ubyte.gz") as f:
    labels = np.frombuffer(f.read(), np.uint8, offset=8)
np.save(out + "/t10k-images.npy", (images / 255.0).astype(np.float32))
np.save(out + "/t10k-labels.npy", labels)
print("Fashion-MNIST test set: %d images %s, %d labels" % (len(images), images.shape[1:], len(labels)))
PY
$MXC compile "$L/lenet-symbol.json" --params "$L/lenet-0002.params" --shape data=100,1,28,28 \
  --emit exe --stats -o "$L/lenet"
echo "dependencies of the executable (no LLVM/MLIR):"
ldd "$L/lenet" | sed 's/^/  /'
"$L/lenet" --input data="$L/t10k-images.npy" --output-dir "$L/out" --warmup 2 | tee "$L/run.txt"
.venv/bin/python - "$L" <<'PY'
import re, sys, numpy as np
d = sys.argv[1]
probs = np.load(d + "/out/softmax_output.npy")
labels = np.load(d + "/t10k-labels.npy")
acc = float((probs.argmax(axis=1) == labels).mean())
m = re.search(r"latency: median ([0-9.]+) ms", open(d + "/run.txt").read())
print("accuracy: %.2f%% on %d Fashion-MNIST test images" % (100 * acc, len(labels)))
print("  (LeNet trained for 2 epochs above by examples/train_fashion_mnist.py; 10 epochs reach")
print("   about 91%, docs/python.md)")
if m:
    ms = float(m.group(1))
    print("latency: median %.3f ms per batch of 100 = %.1f us per image" % (ms, ms * 10))
PY
