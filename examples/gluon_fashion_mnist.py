#!/usr/bin/env python3
"""Trains a small CNN on Fashion-MNIST with mxc's Gluon API (`mx.gluon`).

    PYTHONPATH=build/python_packages .venv/bin/python examples/gluon_fashion_mnist.py \
        [--epochs 10] [--batch-size 128] [--lr 0.05] [--num-workers 0] \
        [--out build/gluon-fashion] [--no-compile]

The data are Debian's dataset-fashion-mnist (/usr/share/datasets/fashion-mnist,
read by gluon.data.vision.FashionMNIST; --root for another directory).

The network is a gluon.nn.HybridSequential (conv 3x3x32 + BatchNorm + relu,
max-pool, conv 3x3x64 + BatchNorm + relu, max-pool, Dense 128 relu, Dropout
0.3, Dense 10), hybridized: its first call traces one Symbol that mxc
compiles, and every training step runs that graph (forward, and backward
under autograd.record()). It is trained by gluon.Trainer (SGD, momentum 0.9,
wd 1e-4, the learning rate divided by 5 at 60% and 85% of the epochs) from a
gluon.data.DataLoader (shuffled, batch 128, ToTensor transform), with a tqdm
progress bar; the test accuracy is printed after every epoch and the curves
drawn into OUT/curve.png.

At the end the block is exported (OUT/fashion-symbol.json +
OUT/fashion-%04d.params, MXNet's files) and, unless --no-compile, compiled by
`mxc compile` into an executable (OUT/fashion) that classifies the 10,000
test images; its accuracy is printed next to the Python one (they must agree:
the same graph, the same weights).
"""
import argparse
import glob
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("MXC_BUILD_DIR", os.path.join(HERE, "..", "build"))
sys.path.insert(0, os.path.join(BUILD, "python_packages"))
import mxc as mx  # noqa: E402
from mxc import autograd, gluon  # noqa: E402
from mxc.gluon import nn  # noqa: E402
from mxc.gluon.data.vision import FashionMNIST, transforms  # noqa: E402


def build_net():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(32, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                nn.MaxPool2D(2),
                nn.Conv2D(64, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                nn.MaxPool2D(2),
                nn.Dense(128, activation="relu"), nn.Dropout(0.3),
                nn.Dense(10))
    return net


def progress(total, desc):
    if os.environ.get("MXC_PROGRESS", "1") == "0":
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=desc, unit="batch", dynamic_ncols=True, leave=False)


def evaluate(net, loader):
    correct, seen, loss_sum = 0, 0, 0.0
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    for data, label in loader:
        out = net(data)
        loss_sum += float(loss_fn(out, label).sum().asscalar())
        correct += int((out.asnumpy().argmax(axis=1) == label.asnumpy()).sum())
        seen += data.shape[0]
    return loss_sum / seen, correct / seen


def plot(history, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ep = [h["epoch"] for h in history]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.plot(ep, [h["train_loss"] for h in history], "o-", label="train")
    ax1.plot(ep, [h["test_loss"] for h in history], "s-", label="test")
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("cross-entropy")
    ax1.legend()
    ax2.plot(ep, [100 * h["train_acc"] for h in history], "o-", label="train")
    ax2.plot(ep, [100 * h["test_acc"] for h in history], "s-", label="test")
    ax2.set_xlabel("epoch")
    ax2.set_ylabel("accuracy (%)")
    ax2.legend()
    fig.suptitle("Gluon HybridSequential CNN on Fashion-MNIST, mxc")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def compiled_accuracy(prefix, epoch, test, out_dir, batch):
    """Compiles the export with `mxc compile` and runs the test set through it."""
    mxc = os.environ.get("MXC_BIN", os.path.join(BUILD, "bin", "mxc"))
    exe = os.path.join(out_dir, "fashion")
    t0 = time.time()
    subprocess.run([mxc, "compile", prefix + "-symbol.json", "--params",
                    "%s-%04d.params" % (prefix, epoch), "--shape", "data=%d,1,28,28" % batch,
                    "-o", exe], check=True)
    print("mxc compile: %s (%.1f s)" % (exe, time.time() - t0))
    images = np.stack([transforms.ToTensor()(test[i][0]).asnumpy() for i in range(len(test))])
    labels = np.array([test[i][1] for i in range(len(test))])
    n = (len(images) // batch) * batch
    np.save(os.path.join(out_dir, "test_images.npy"), images[:n])
    res = os.path.join(out_dir, "compiled-out")
    os.makedirs(res, exist_ok=True)
    subprocess.run([exe, "--input", "data=" + os.path.join(out_dir, "test_images.npy"),
                    "--output-dir", res], check=True, stdout=subprocess.DEVNULL)
    outs = glob.glob(os.path.join(res, "*.npy"))
    if len(outs) != 1:
        raise RuntimeError("expected one output of the compiled model, got %s" % outs)
    logits = np.load(outs[0])
    return float((logits.argmax(axis=1) == labels[:n]).mean()), n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--root", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--out", default=os.path.join(BUILD, "gluon-fashion"))
    ap.add_argument("--limit", type=int, default=0, help="use only this many training images")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    mx.random.seed(args.seed)
    np.random.seed(args.seed)

    to_tensor = transforms.ToTensor()
    train = FashionMNIST(root=args.root, train=True).transform_first(to_tensor)
    test_raw = FashionMNIST(root=args.root, train=False)
    test = test_raw.transform_first(to_tensor)
    if args.limit:
        train = train.take(args.limit)
    train_loader = gluon.data.DataLoader(train, batch_size=args.batch_size, shuffle=True,
                                         last_batch="discard", num_workers=args.num_workers)
    test_loader = gluon.data.DataLoader(test, batch_size=500, num_workers=args.num_workers)

    net = build_net()
    net.initialize(mx.init.Xavier(magnitude=2.24))
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd",
                            {"learning_rate": args.lr, "momentum": 0.9, "wd": 1e-4})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    steps = [e for e in (int(args.epochs * 0.6), int(args.epochs * 0.85)) if e > 0]
    history, start = [], time.time()
    for epoch in range(args.epochs):
        if epoch in steps:
            trainer.set_learning_rate(trainer.learning_rate / 5)
        t0 = time.time()
        bar = progress(len(train_loader), "epoch %d/%d" % (epoch + 1, args.epochs))
        loss_sum, correct, seen = 0.0, 0, 0
        for data, label in train_loader:
            with autograd.record():
                out = net(data)
                loss = loss_fn(out, label)
            loss.backward()
            trainer.step(data.shape[0])
            loss_sum += float(loss.sum().asscalar())
            correct += int((out.asnumpy().argmax(axis=1) == label.asnumpy()).sum())
            seen += data.shape[0]
            if bar is not None:
                bar.update(1)
                bar.set_postfix(loss="%.4f" % (loss_sum / seen), acc="%.4f" % (correct / seen),
                                refresh=False)
        if bar is not None:
            bar.close()
        test_loss, test_acc = evaluate(net, test_loader)
        history.append(dict(epoch=epoch + 1, train_loss=loss_sum / seen,
                            train_acc=correct / seen, test_loss=test_loss, test_acc=test_acc))
        print("epoch %2d: train loss %.4f acc %.4f | test loss %.4f acc %.4f | lr %.4g | %.1f s"
              % (epoch + 1, loss_sum / seen, correct / seen, test_loss, test_acc,
                 trainer.learning_rate, time.time() - t0), flush=True)
    print("final test accuracy (hybridized Gluon): %.2f%% after %d epochs, %.0f s"
          % (100 * history[-1]["test_acc"], args.epochs, time.time() - start))
    plot(history, os.path.join(args.out, "curve.png"))
    print("training curves: %s" % os.path.join(args.out, "curve.png"))
    prefix = os.path.join(args.out, "fashion")
    net.export(prefix, epoch=args.epochs)
    print("exported: %s-symbol.json, %s-%04d.params" % (prefix, prefix, args.epochs))
    if not args.no_compile:
        acc, n = compiled_accuracy(prefix, args.epochs, test_raw, args.out, 100)
        print("compiled executable: test accuracy %.2f%% on %d images (Python: %.2f%%)"
              % (100 * acc, n, 100 * history[-1]["test_acc"]))


if __name__ == "__main__":
    main()
