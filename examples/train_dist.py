#!/usr/bin/env python3
"""Data-parallel LeNet on Fashion-MNIST over MPI (mx.kv 'dist_sync').

    mpirun -np 4 python examples/train_dist.py [--epochs 2] [--kv-store dist_sync]
    python tools/launch.py -n 4 python examples/train_dist.py      # the same, MPI flags hidden
    python examples/train_dist.py --kv-store none                  # one process, the reference

Every epoch draws one permutation of the 60,000 training images (the same on
every rank); global batch b is split into num_workers equal slices and rank r
trains on slice r, so 4 ranks with --batch-size 64 compute what one process
with batch 64 computes (the gradients are summed over the ranks by the
KVStore, rescale_grad = 1 / 64). Rank 0 prints the test accuracy on the
10,000 test images after every epoch; --json writes the history.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.environ.get("MXC_BUILD_DIR", os.path.join(HERE, "..", "build")),
                                "python_packages"))
import mxc as mx  # noqa: E402

# The data and the network of the single-process example (MXNet's LeNet).
from train_fashion_mnist import FASHION, lenet_symbol  # noqa: E402
from train_fashion_mnist import load_fashion_mnist as load  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=64, help="global batch")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--kv-store", default="dist_sync", help="dist_sync, dist_async or none")
    ap.add_argument("--train-images", type=int, default=60000, help="use the first N")
    ap.add_argument("--data", default=FASHION)
    ap.add_argument("--json", help="write the history (rank 0)")
    args = ap.parse_args()

    kv = None if args.kv_store == "none" else mx.kv.create(args.kv_store)
    rank, nworker = (kv.rank, kv.num_workers) if kv is not None else (0, 1)
    if args.batch_size % nworker:
        sys.exit("--batch-size %d is not a multiple of the %d workers" % (args.batch_size, nworker))
    local = args.batch_size // nworker
    train_x, train_y = load(args.data, "train")
    train_x, train_y = train_x[:args.train_images], train_y[:args.train_images]
    test_x, test_y = load(args.data, "test")

    mod = mx.mod.Module(lenet_symbol(), context=mx.cpu())
    mod.bind(data_shapes=[("data", (local, 1, 28, 28))],
             label_shapes=[("softmax_label", (local,))])
    mx.random.seed(1)
    mod.init_params(mx.init.Xavier(magnitude=2.0))
    # rescale_grad: Module divides by the global batch (local x workers) for dist_sync
    mod.init_optimizer(kvstore=kv, optimizer="sgd",
                       optimizer_params=(("learning_rate", args.lr), ("momentum", 0.9)))
    test_iter = mx.io.NDArrayIter(test_x, test_y, batch_size=local, last_batch_handle="pad")
    metric = mx.metric.Accuracy()
    history = []
    batches = len(train_x) // args.batch_size
    for epoch in range(args.epochs):
        tic = time.time()
        perm = np.random.RandomState(100 + epoch).permutation(len(train_x))
        metric.reset()
        for b in range(batches):
            idx = perm[b * args.batch_size + rank * local: b * args.batch_size + (rank + 1) * local]
            batch = mx.io.DataBatch(data=[mx.nd.array(train_x[idx])],
                                    label=[mx.nd.array(train_y[idx])])
            mod.forward_backward(batch)
            mod.update()
            mod.update_metric(metric, batch.label)
        train_acc = metric.get()[1]
        elapsed = time.time() - tic
        if rank == 0:
            probs = mod.predict(test_iter).asnumpy()
            acc = float((probs.argmax(axis=1) == test_y).mean())
            history.append({"epoch": epoch + 1, "train_acc_rank0": train_acc, "test_acc": acc,
                            "seconds": elapsed})
            print("epoch %d: train accuracy (rank 0's slices) %.4f, test accuracy %.4f, "
                  "%.1f s, %d workers" % (epoch + 1, train_acc, acc, elapsed, nworker), flush=True)
    if kv is not None:
        kv.barrier()
    if rank == 0 and args.json:
        with open(args.json, "w") as f:
            json.dump({"workers": nworker, "kv_store": args.kv_store, "history": history}, f,
                      indent=1)


if __name__ == "__main__":
    main()
