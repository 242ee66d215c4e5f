#!/usr/bin/env python3
"""Trains LeNet on Fashion-MNIST with mxc's MXNet API (`import mxc as mx`).

    PYTHONPATH=build/python_packages .venv/bin/python examples/train_fashion_mnist.py \
        [--epochs 10] [--optimizer sgd|adam] [--lr 0.05] [--prefix build/fashion/lenet] \
        [--plot build/fashion/curve.png] [--autograd]

The data are the real images of Debian's dataset-fashion-mnist
(/usr/share/datasets/fashion-mnist: 60,000 training and 10,000 test images,
28x28, 10 classes), scaled to [0, 1].

The network is MXNet's LeNet (example/image-classification/symbols/lenet.py:
conv 5x5x20, tanh, max-pool 2x2, conv 5x5x50, tanh, max-pool, FC 500, tanh,
FC 10, SoftmaxOutput), written with mx.sym. By default it is trained with
Module.fit (SGD with momentum 0.9, lr 0.05 halved every 3 epochs by
mx.lr_scheduler.FactorScheduler, batch 64, Xavier initialisation); with
--autograd the same network, with the same initial weights, is written as
imperative mx.nd calls and trained by a hand loop under autograd.record()
with the same optimizer. Both print the test accuracy after every epoch,
save an MXNet checkpoint (PREFIX-symbol.json + PREFIX-%04d.params, loadable
by MXNet and by `mxc run`/`mxc compile`) and draw the training curves (loss
and accuracy per epoch) into a PNG.
"""
import argparse
import gzip
import json
import logging
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.environ.get("MXC_BUILD_DIR", os.path.join(HERE, "..", "build")),
                                "python_packages"))
import mxc as mx  # noqa: E402

FASHION = "/usr/share/datasets/fashion-mnist"
CLASSES = 10


def load_fashion_mnist(root, split):
    """(images float32 N x 1 x 28 x 28 in [0, 1], labels float32 N)."""
    prefix = "train" if split == "train" else "t10k"
    with gzip.open(os.path.join(root, prefix + "-images-idx3-ubyte.gz")) as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)
    with gzip.open(os.path.join(root, prefix + "-labels-idx1-ubyte.gz")) as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)
    return (images / np.float32(255.0)).astype(np.float32), labels.astype(np.float32)


def lenet_symbol():
    """MXNet's LeNet, with explicit node names."""
    x = mx.sym.var("data")
    x = mx.sym.Convolution(x, kernel=(5, 5), num_filter=20, name="conv1")
    x = mx.sym.Activation(x, act_type="tanh", name="tanh1")
    x = mx.sym.Pooling(x, pool_type="max", kernel=(2, 2), stride=(2, 2), name="pool1")
    x = mx.sym.Convolution(x, kernel=(5, 5), num_filter=50, name="conv2")
    x = mx.sym.Activation(x, act_type="tanh", name="tanh2")
    x = mx.sym.Pooling(x, pool_type="max", kernel=(2, 2), stride=(2, 2), name="pool2")
    x = mx.sym.Flatten(x, name="flatten")
    x = mx.sym.FullyConnected(x, num_hidden=500, name="fc1")
    x = mx.sym.Activation(x, act_type="tanh", name="tanh3")
    x = mx.sym.FullyConnected(x, num_hidden=CLASSES, name="fc2")
    return mx.sym.SoftmaxOutput(x, name="softmax")


def lenet_nd(x, p):
    """The same network as imperative mx.nd calls; returns the logits."""
    nd = mx.nd
    h = nd.Convolution(x, p["conv1_weight"], p["conv1_bias"], kernel=(5, 5), num_filter=20)
    h = nd.Pooling(nd.Activation(h, act_type="tanh"), pool_type="max", kernel=(2, 2),
                   stride=(2, 2))
    h = nd.Convolution(h, p["conv2_weight"], p["conv2_bias"], kernel=(5, 5), num_filter=50)
    h = nd.Pooling(nd.Activation(h, act_type="tanh"), pool_type="max", kernel=(2, 2),
                   stride=(2, 2))
    h = nd.Flatten(h)
    h = nd.Activation(nd.FullyConnected(h, p["fc1_weight"], p["fc1_bias"], num_hidden=500),
                      act_type="tanh")
    return nd.FullyConnected(h, p["fc2_weight"], p["fc2_bias"], num_hidden=CLASSES)


def evaluate(probs, labels):
    """(mean cross-entropy, accuracy) of class probabilities."""
    labels = labels.astype(np.int64)
    p = probs[np.arange(len(labels)), labels]
    return float(-np.log(p + 1e-12).mean()), float((probs.argmax(axis=1) == labels).mean())


def softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def make_optimizer(args, batch_size, batches_per_epoch):
    params = {"learning_rate": args.lr, "rescale_grad": 1.0 / batch_size, "wd": args.wd}
    if args.lr_decay != 1.0:
        # the rate is multiplied by lr_decay after every lr_decay_epochs epochs
        params["lr_scheduler"] = mx.lr_scheduler.FactorScheduler(
            step=args.lr_decay_epochs * batches_per_epoch, factor=args.lr_decay)
    if args.optimizer == "sgd":
        params["momentum"] = args.momentum
    return args.optimizer, params


def train_module(args, train, test, history):
    net = lenet_symbol()
    train_iter = mx.io.NDArrayIter(train[0], train[1], batch_size=args.batch_size, shuffle=True,
                                   last_batch_handle="discard")
    test_iter = mx.io.NDArrayIter(test[0], test[1], batch_size=args.batch_size,
                                  last_batch_handle="pad")
    mod = mx.mod.Module(net, data_names=["data"], label_names=["softmax_label"])
    state = {"tic": time.time()}

    def epoch_end(epoch, symbol, arg_params, aux_params):
        elapsed = time.time() - state["tic"]
        probs = mod.predict(test_iter).asnumpy()          # padding removed
        test_loss, test_acc = evaluate(probs, test[1])
        names_values = dict(metric.get_global_name_value())
        record(history, epoch, names_values["cross-entropy"], names_values["accuracy"],
               test_loss, test_acc, elapsed)
        state["tic"] = time.time()

    metric = mx.metric.create(["acc", "ce"])
    opt, opt_params = make_optimizer(args, args.batch_size, len(train_iter))
    mod.fit(train_iter, eval_metric=metric, num_epoch=args.epochs, optimizer=opt,
            optimizer_params=opt_params, initializer=mx.init.Xavier(magnitude=2.0),
            epoch_end_callback=epoch_end,
            batch_end_callback=mx.callback.Speedometer(args.batch_size, 200))
    if args.prefix:
        mod.save_checkpoint(args.prefix, args.epochs)
    return mod


def train_autograd(args, train, test, history):
    net = lenet_symbol()
    # the same parameters, drawn in the same order by the same initializer
    arg_shapes, _, _ = net.infer_shape(data=(args.batch_size, 1, 28, 28))
    init = mx.init.Xavier(magnitude=2.0)
    params = {}
    for name, shape in zip(net.list_arguments(), arg_shapes):
        if name in ("data", "softmax_label"):
            continue
        arr = mx.nd.zeros(shape)
        init(mx.init.InitDesc(name, net.attr_dict().get(name, {})), arr)
        arr.attach_grad()
        params[name] = arr
    names = sorted(params)
    train_iter = mx.io.NDArrayIter(train[0], train[1], batch_size=args.batch_size, shuffle=True,
                                   last_batch_handle="discard")
    opt_name, opt_params = make_optimizer(args, args.batch_size, len(train_iter))
    optimizer = mx.optimizer.create(opt_name, param_idx2name=dict(enumerate(names)), **opt_params)
    updater = mx.optimizer.get_updater(optimizer)
    for epoch in range(args.epochs):
        tic = time.time()
        loss_sum, correct, seen = 0.0, 0, 0
        bar = progress(len(train_iter), epoch, args.epochs)
        for batch in train_iter:
            x, y = batch.data[0], batch.label[0]
            with mx.autograd.record():
                z = lenet_nd(x, params)
                # summed softmax cross-entropy: the gradient SoftmaxOutput gives
                loss = -(mx.nd.one_hot(y, depth=CLASSES) * mx.nd.log_softmax(z, axis=1)).sum()
            loss.backward()
            for i, name in enumerate(names):
                updater(i, params[name].grad, params[name])
            loss_sum += float(loss.asscalar())
            correct += int((z.asnumpy().argmax(axis=1) == y.asnumpy()).sum())
            seen += x.shape[0]
            if bar is not None:
                bar.set_postfix({"samples/s": "%.0f" % (seen / max(time.time() - tic, 1e-9)),
                                 "accuracy": "%.4f" % (correct / seen)}, refresh=False)
                bar.update(1)
        if bar is not None:
            bar.close()
        train_iter.reset()   # (where Module.fit resets it: the same shuffles)
        elapsed = time.time() - tic
        probs = np.concatenate([softmax(lenet_nd(mx.nd.array(test[0][i:i + 1000]),
                                                 params).asnumpy())
                                for i in range(0, len(test[0]), 1000)])
        test_loss, test_acc = evaluate(probs, test[1])
        record(history, epoch, loss_sum / seen, correct / seen, test_loss, test_acc, elapsed)
    if args.prefix:
        mx.model.save_checkpoint(args.prefix, args.epochs, net,
                                 {k: v.detach() for k, v in params.items()}, {})


def progress(total, epoch, epochs):
    if os.environ.get("MXC_QUIET", "") not in ("", "0") or \
            os.environ.get("MXC_PROGRESS", "1") == "0":
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc="Epoch %d/%d" % (epoch + 1, epochs), unit="batch",
                dynamic_ncols=True)


def record(history, epoch, train_loss, train_acc, test_loss, test_acc, seconds):
    history.append(dict(epoch=epoch + 1, train_loss=train_loss, train_acc=train_acc,
                        test_loss=test_loss, test_acc=test_acc, seconds=seconds))
    print("epoch %2d: train loss %.4f acc %.4f | test loss %.4f acc %.4f | %.1f s"
          % (epoch + 1, train_loss, train_acc, test_loss, test_acc, seconds), flush=True)


def plot(history, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ep = [h["epoch"] for h in history]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.plot(ep, [h["train_loss"] for h in history], "o-", label="train")
    ax1.plot(ep, [h["test_loss"] for h in history], "s-", label="test")
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("cross-entropy")
    ax1.set_title("loss")
    ax1.legend()
    ax2.plot(ep, [100 * h["train_acc"] for h in history], "o-", label="train")
    ax2.plot(ep, [100 * h["test_acc"] for h in history], "s-", label="test")
    ax2.set_xlabel("epoch")
    ax2.set_ylabel("accuracy (%)")
    ax2.set_title("accuracy")
    ax2.legend()
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        ax.set_xticks(ep)
    fig.suptitle(title)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=100)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", default=FASHION)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--optimizer", choices=["sgd", "adam"], default="sgd")
    ap.add_argument("--lr", type=float, default=None,
                    help="learning rate (default 0.05 for sgd, 0.001 for adam)")
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--wd", type=float, default=0.0)
    ap.add_argument("--lr-decay", type=float, default=0.5,
                    help="multiply the learning rate by this every --lr-decay-epochs epochs "
                         "(mx.lr_scheduler.FactorScheduler; 1: constant)")
    ap.add_argument("--lr-decay-epochs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--train-limit", type=int, default=0,
                    help="use only the first N training images (0: all 60,000)")
    ap.add_argument("--prefix", default="build/fashion-mnist/lenet",
                    help="checkpoint prefix (PREFIX-symbol.json, PREFIX-%%04d.params); '' for none")
    ap.add_argument("--plot", default="build/fashion-mnist/curve.png",
                    help="training-curve PNG; '' for none")
    ap.add_argument("--history", default="", help="write the per-epoch numbers as JSON here")
    ap.add_argument("--autograd", action="store_true",
                    help="train with autograd.record() and a hand loop instead of Module.fit")
    args = ap.parse_args()
    if args.lr is None:
        args.lr = 0.05 if args.optimizer == "sgd" else 0.001
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if not os.path.exists(os.path.join(args.data_dir, "t10k-images-idx3-ubyte.gz")):
        sys.exit("error: Fashion-MNIST not found in %s (apt-get install dataset-fashion-mnist)"
                 % args.data_dir)
    train = load_fashion_mnist(args.data_dir, "train")
    test = load_fashion_mnist(args.data_dir, "test")
    if args.train_limit:
        train = (train[0][:args.train_limit], train[1][:args.train_limit])
    if args.prefix:
        os.makedirs(os.path.dirname(os.path.abspath(args.prefix)), exist_ok=True)
    mx.random.seed(args.seed)
    np.random.seed(args.seed)
    how = "autograd.record() + hand loop" if args.autograd else "Module.fit"
    print("LeNet on Fashion-MNIST (%d train / %d test images) with %s: %s lr %g%s%s, batch %d, "
          "%d epochs" % (len(train[0]), len(test[0]), how, args.optimizer, args.lr,
                         " momentum %g" % args.momentum if args.optimizer == "sgd" else "",
                         " x%g every %d epochs" % (args.lr_decay, args.lr_decay_epochs)
                         if args.lr_decay != 1.0 else "",
                         args.batch_size, args.epochs), flush=True)
    history = []
    t0 = time.time()
    (train_autograd if args.autograd else train_module)(args, train, test, history)
    total = time.time() - t0
    final = history[-1]
    print("final test accuracy (%s): %.2f%% after %d epochs, %.0f s in all"
          % (how, 100 * final["test_acc"], len(history), total))
    if args.prefix:
        print("checkpoint: %s-symbol.json, %s-%04d.params" % (args.prefix, args.prefix,
                                                              args.epochs))
    if args.plot:
        plot(history, args.plot, "LeNet on Fashion-MNIST, mxc (%s)" % how)
        print("training curves: %s" % args.plot)
    if args.history:
        with open(args.history, "w") as f:
            json.dump(dict(mode=how, args=vars(args), epochs=history, seconds=total), f, indent=1)


if __name__ == "__main__":
    main()
