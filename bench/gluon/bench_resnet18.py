#!/usr/bin/env python3
"""A hybridized ResNet-18 training step through Gluon against the same
network through Module (issue 14's speed line), same weights, same batches.

    PYTHONPATH=build/python_packages MXC_QUIET=1 .venv/bin/python bench/gluon/bench_resnet18.py \
        [--rounds 3] [--steps 8] [--warmup 2] [--batch 32] [--size 32]

Gluon: model_zoo.vision.resnet18_v1(classes=10), hybridize(); a step is
autograd.record() { net(x); SoftmaxCrossEntropyLoss } + backward() +
Trainer('sgd', lr 0.01).step(batch). Module: the block's export (the same
graph) + SoftmaxOutput, Module.bind(for_training) with the block's weights,
init_optimizer('sgd', lr 0.01, rescale_grad 1/batch); a step is
forward_backward(DataBatch) + update(). Both in one process, alternating
in rounds; the median step time (ms) of each over all rounds, and the ratio.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np

import mxc as mx
from mxc import autograd, gluon


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--size", type=int, default=32)
    args = ap.parse_args()
    rng = np.random.RandomState(0)
    shape = (args.batch, 3, args.size, args.size)
    xs = [mx.nd.array(rng.normal(0, 1, shape)) for _ in range(4)]
    ys = [mx.nd.array(rng.randint(0, 10, (args.batch,))) for _ in range(4)]

    net = gluon.model_zoo.vision.resnet18_v1(classes=10)
    net.initialize(mx.init.Xavier())
    net.hybridize()
    net(xs[0])
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01})

    d = tempfile.mkdtemp()
    net.export(os.path.join(d, "r18"))
    sym = mx.sym.load(os.path.join(d, "r18-symbol.json"))
    sym = mx.sym.SoftmaxOutput(sym, name="softmax")
    arg = {p.name: p.data().copy() for p in net.collect_params().values()
           if p.name in sym.list_arguments()}
    aux = {p.name: p.data().copy() for p in net.collect_params().values()
           if p.name in sym.list_auxiliary_states()}
    mod = mx.mod.Module(sym, data_names=["data"], label_names=["softmax_label"])
    mod.bind(data_shapes=[("data", shape)], label_shapes=[("softmax_label", (args.batch,))])
    mod.set_params(arg, aux)
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.01,
                                                          "rescale_grad": 1.0 / args.batch})

    def gluon_step(i):
        with autograd.record():
            loss = loss_fn(net(xs[i % 4]), ys[i % 4])
        loss.backward()
        trainer.step(args.batch)
        mx.nd.waitall()
        float(loss.asnumpy()[0])

    def module_step(i):
        mod.forward_backward(mx.io.DataBatch([xs[i % 4]], [ys[i % 4]]))
        mod.update()
        mx.nd.waitall()
        float(mod.get_outputs()[0].asnumpy()[0, 0])

    times = {"gluon": [], "module": []}
    for r in range(args.rounds):
        order = [("gluon", gluon_step), ("module", module_step)]
        if r % 2:
            order.reverse()
        for name, step in order:
            for i in range(args.warmup):
                step(i)
            for i in range(args.steps):
                t0 = time.perf_counter()
                step(i)
                times[name].append(time.perf_counter() - t0)
    g = statistics.median(times["gluon"]) * 1e3
    m = statistics.median(times["module"]) * 1e3
    print("ResNet-18 %dx%d batch %d, median of %d steps: Gluon %.1f ms, Module %.1f ms, "
          "ratio %.2f" % (args.size, args.size, args.batch, len(times["gluon"]), g, m, g / m))


if __name__ == "__main__":
    main()
