#!/usr/bin/env python3
"""Issue 14's speed line: one training step of a hybridized model-zoo
ResNet-18 through Gluon against the same network through Module.

    PYTHONPATH=build/python_packages MXC_QUIET=1 .venv/bin/python bench/gluon/bench_resnet18.py \
        [--batch 32] [--size 32] [--steps 30]

Gluon: vision.resnet18_v1(classes=10).hybridize(); a step is
    with autograd.record(): loss = SoftmaxCrossEntropyLoss()(net(x), y)
    loss.backward(); trainer.step(batch)            # Trainer('sgd', lr 0.01)
Module: the same block exported (the same graph, the same weights) with a
SoftmaxOutput head, bound for training; a step is
    mod.forward_backward(batch); mod.update()        # sgd, lr 0.01, rescale 1/batch
Both do the same training (checked first: two steps from the same weights
on the same batches, the weights' difference against what the steps moved).
Then `steps` timed steps of each, one of each in turn, after an untimed one;
each half of a step ends with mx.nd.waitall(). Printed: the median wall time
of the whole step and of its halves, the median CPU time of the process per
step (all its threads: less sensitive to other jobs on a shared machine), and
the Gluon / Module ratios.
"""
import argparse
import os
import statistics
import tempfile
import time

import numpy as np

import mxc as mx
from mxc import autograd, gluon
from mxc.gluon.model_zoo import vision


class GluonRunner:
    name = "Gluon (hybridized) + Trainer"
    halves = ("record + backward", "trainer.step")

    def __init__(self, net, batch):
        self.net, self.batch = net, batch
        self.loss = gluon.loss.SoftmaxCrossEntropyLoss()
        self.trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01})

    def step(self, x, y):
        t0 = time.perf_counter()
        with autograd.record():
            loss = self.loss(self.net(x), y)
        loss.backward()
        mx.nd.waitall()
        t1 = time.perf_counter()
        self.trainer.step(self.batch)
        mx.nd.waitall()
        return t1 - t0, time.perf_counter() - t1

    def weights(self):
        return {p.name: p.data().asnumpy() for p in self.net.collect_params().values()}


class ModuleRunner:
    name = "Module (bound symbol)"
    halves = ("forward_backward", "update")

    def __init__(self, net, batch, shape, folder):
        prefix = os.path.join(folder, "resnet18")
        net.export(prefix)
        sym = mx.sym.SoftmaxOutput(mx.sym.load(prefix + "-symbol.json"), name="softmax")
        params = {p.name: p.data().copy() for p in net.collect_params().values()}
        self.args = set(sym.list_arguments())
        self.mod = mx.mod.Module(sym, data_names=["data"], label_names=["softmax_label"])
        self.mod.bind(data_shapes=[("data", shape)], label_shapes=[("softmax_label", (batch,))])
        self.mod.set_params({k: v for k, v in params.items() if k in self.args},
                            {k: v for k, v in params.items() if k not in self.args})
        self.mod.init_optimizer(optimizer="sgd", optimizer_params={
            "learning_rate": 0.01, "rescale_grad": 1.0 / batch})

    def step(self, x, y):
        t0 = time.perf_counter()
        self.mod.forward_backward(mx.io.DataBatch([x], [y]))
        mx.nd.waitall()
        t1 = time.perf_counter()
        self.mod.update()
        mx.nd.waitall()
        return t1 - t0, time.perf_counter() - t1

    def weights(self):
        arg, aux = self.mod.get_params()
        out = {k: v.asnumpy() for k, v in arg.items()}
        out.update({k: v.asnumpy() for k, v in aux.items()})
        return out


def check_same_training(gluon_runner, module_runner, batches):
    """Two steps each on the same batches from the same weights. Returns
    ||W_gluon - W_module|| / ||W_module - W_start|| over every trainable
    weight: the disagreement as a fraction of what the two steps changed.
    (Float32 round-off, amplified by BatchNorm's batch statistics, makes this
    non-zero: MXNet 1.9.1's own Gluon and Module give 1.6e-3 here.)"""
    start = module_runner.weights()
    for x, y in batches[:2]:
        gluon_runner.step(x, y)
        module_runner.step(x, y)
    a, b = gluon_runner.weights(), module_runner.weights()
    assert sorted(a) == sorted(b), "Gluon and Module hold different parameters"
    keys = [k for k in b if "running_" not in k]
    diff = sum(float(((a[k] - b[k]) ** 2).sum()) for k in keys) ** 0.5
    moved = sum(float(((b[k] - start[k]) ** 2).sum()) for k in keys) ** 0.5
    return diff / moved


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--size", type=int, default=32)
    ap.add_argument("--steps", type=int, default=30)
    args = ap.parse_args()

    shape = (args.batch, 3, args.size, args.size)
    rng = np.random.RandomState(0)
    batches = [(mx.nd.array(rng.uniform(-1, 1, shape)),
                mx.nd.array(rng.randint(0, 10, (args.batch,)).astype(np.float32)))
               for _ in range(4)]
    net = vision.resnet18_v1(classes=10)
    net.initialize(mx.init.Xavier())
    net.hybridize()
    net(batches[0][0])                      # shapes known, graph compiled for inference

    t = time.perf_counter()
    runners = [GluonRunner(net, args.batch)]
    with tempfile.TemporaryDirectory() as folder:
        runners.append(ModuleRunner(net, args.batch, shape, folder))
    diff = check_same_training(runners[0], runners[1], batches)
    print("%s, load average %.2f: ResNet-18 v1 (model zoo), batch %d, %dx%d, %d steps "
          "each; set-up + first steps %.1f s; same training: weight difference / update "
          "after 2 steps %.1e" % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                  os.getloadavg()[0], args.batch, args.size, args.size,
                                  args.steps, time.perf_counter() - t, diff))

    # one step of each in turn (the order flips every step), so that both see
    # the same machine: on a shared 2-core machine the load moves in seconds
    wall = {r.name: [] for r in runners}
    cpu = {r.name: [] for r in runners}
    for runner in runners:
        runner.step(*batches[0])            # untimed
    for i in range(args.steps):
        for runner in (runners if i % 2 == 0 else runners[::-1]):
            c0 = time.process_time()
            wall[runner.name].append(runner.step(*batches[i % 4]))
            cpu[runner.name].append(time.process_time() - c0)

    print()
    print("| path | step, wall (ms) | step, CPU of the process (ms) | first half, wall (ms) "
          "| second half, wall (ms) |")
    print("|---|---|---|---|---|")
    medians = {}
    for r in runners:
        ts = wall[r.name]
        whole = statistics.median(a + b for a, b in ts) * 1e3
        medians[r.name] = (whole, statistics.median(cpu[r.name]) * 1e3)
        print("| %s | %.1f | %.1f | %s %.1f | %s %.1f |"
              % (r.name, whole, medians[r.name][1],
                 r.halves[0], statistics.median(a for a, _ in ts) * 1e3,
                 r.halves[1], statistics.median(b for _, b in ts) * 1e3))
    (gw, gc), (mw, mc) = medians[runners[0].name], medians[runners[1].name]
    print()
    print("Gluon / Module: wall %.2f (%s 10%%), CPU %.2f; load average at the end %.2f"
          % (gw / mw, "within" if gw <= 1.1 * mw else "NOT within", gc / mc,
             os.getloadavg()[0]))


if __name__ == "__main__":
    main()
