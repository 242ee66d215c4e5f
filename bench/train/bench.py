#!/usr/bin/env python3
"""Training throughput (samples/s): mxc's Python front end against PyTorch
eager (CPU), same networks, same initial weights, same batches, one run.

    bench/train/run.sh                         # builds mxc-python, runs this
    PYTHONPATH=build/python_packages .venv-bench/bin/python bench/train/bench.py
        [--models lenet,resnet18] [--rounds 2] [--steps 10] [--warmup 3] [--threads 2]

Networks (tools/zoo/mxnet_zoo.py, MXNet 1.9.1's image-classification zoo):
- lenet: `lenet(10)` on Fashion-MNIST, 1x28x28, batch 64: the real training
  images of Debian's dataset-fashion-mnist (/usr/share/datasets/fashion-mnist),
  scaled to [0, 1], consecutive batches.
- resnet18: `resnet(18, 10)`, the ImageNet-style graph (7x7/2 stem conv, 3x3/2
  max pool, four stages, global average pool) bound at 3x32x32, batch 32,
  random N(0, 1) data and random labels (the zoo has no CIFAR-style resnet).

mxc: `mx.sym.load_json(graph)`, `simple_bind(grad_req = write for the
parameters, null for data and label)`; a step is `forward(is_train=True,
data=, softmax_label=)` + `backward()` + SGD by `mx.nd.sgd_update(w, g,
out=w)` per parameter on the engine, then `mx.nd.waitall()` (until
2026-12-06 a numpy `w -= lr * g` on views taken once at bind time, which
after issue 11's pushed steps read another step's gradient buffer and
overlapped the step's work: the times of earlier runs are not comparable
one to one). With --mxc-api module:
`mx.mod.Module` (bind, init_params with the same values, init_optimizer
'sgd' with rescale_grad 1), a step is `forward_backward(DataBatch)` +
`update()` (the gradient check still uses the Executor). PyTorch: the same graph
converted by bench/cpu_inference's `MXNetGraphModule` with the same weights,
SoftmaxOutput replaced by cross-entropy with reduction='sum' (the gradient
MXNet's SoftmaxOutput gives, normalization='null'); a step is zero_grad +
forward + loss + backward + `torch.optim.SGD(lr)` step. Both networks train in
training mode (BatchNorm batch statistics).

Check first (each model): one step from the same weights on the same batch in
each framework; the loss-layer input gradient is compared through the
gradient of the last FullyConnected's weight (rtol 1e-3 of its max |g|), and
the parameter counts must agree.

Timing: each framework runs in its own worker process (mxc's OpenBLAS
threads and PyTorch's OpenMP threads never share a process); --rounds rounds
alternate the frameworks (rotating order). A worker runs --warmup untimed
steps, then --steps timed steps (time.perf_counter around the whole step,
update included, until its work has finished: mxc's Module step ends with
mx.nd.waitall(), as its operations are pushed to the engine and return at
once). The table gives the median step time over all rounds and
samples/s = batch / median. mxc's compile time is the first step of the first
round with an empty JIT disk cache (a fresh MXC_CACHE_DIR per run) minus the
median step; later rounds hit the disk cache (reported too).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "zoo"))
FASHION = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"
FASHION_LABELS = "/usr/share/datasets/fashion-mnist/train-labels-idx1-ubyte.gz"
MODELS = {"lenet": ((1, 28, 28), 64), "resnet18": ((3, 32, 32), 32)}
LR = 0.01
SEED = 20261129


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default="lenet,resnet18")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--steps", type=int, default=10, help="timed steps per round")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--mxc-api", choices=["executor", "module"], default="executor",
                   help="mxc's step: Executor + numpy SGD, or mx.mod.Module "
                        "(forward_backward + update, optimizer 'sgd')")
    p.add_argument("--worker", choices=["mxc", "torch"], help=argparse.SUPPRESS)
    p.add_argument("--model", help=argparse.SUPPRESS)
    p.add_argument("--check", help=argparse.SUPPRESS)
    return p.parse_args()


ARGS = parse_args()
for v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[v] = str(ARGS.threads)

import numpy as np  # noqa: E402
import mxnet_zoo  # noqa: E402


def graph(model):
    if model == "lenet":
        return mxnet_zoo.graph("lenet")
    # the ImageNet branch of resnet.py; image_shape only selects the branch
    return mxnet_zoo.to_graph(mxnet_zoo.resnet(18, 10, image_shape=(3, 224, 224)))


def init_values(g, data_shape):
    """{name: float32 array}: weights N(0, 2 / fan_in), biases and beta 0, gamma 1,
    moving mean 0 / var 1 (seeded; the same in both workers)."""
    rng = np.random.default_rng(SEED)
    args, aux, _ = mxnet_zoo.infer_shapes(g, data_shape)
    vals = {}
    for name, shape in args + aux:
        if name == "data" or name.endswith("_label"):
            continue
        if name.endswith("_weight"):
            v = rng.standard_normal(shape) * np.sqrt(2.0 / np.prod(shape[1:]))
        elif name.endswith("_gamma") or name.endswith("_moving_var"):
            v = np.ones(shape)
        else:
            v = np.zeros(shape)
        vals[name] = v.astype(np.float32)
    return vals


def batches(model, n):
    """n (data, label) batches, float32 data, float32 labels (MXNet's)."""
    (shape, batch) = MODELS[model]
    if model == "lenet":
        import gzip
        with gzip.open(FASHION) as f:
            x = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)
        with gzip.open(FASHION_LABELS) as f:
            y = np.frombuffer(f.read(), np.uint8, offset=8)
        x = x[:n * batch].astype(np.float32) / 255.0
        y = y[:n * batch].astype(np.float32)
    else:
        rng = np.random.default_rng(SEED + 1)
        x = rng.standard_normal((n * batch,) + shape, dtype=np.float32)
        y = rng.integers(0, 10, n * batch).astype(np.float32)
    return [(np.ascontiguousarray(x[i * batch:(i + 1) * batch]), y[i * batch:(i + 1) * batch])
            for i in range(n)]


def last_fc_weight(g):
    return [n["name"] for n in g["nodes"] if n["op"] == "FullyConnected"][-1] + "_weight"


# ---------------------------------------------------------------------------
# workers
# ---------------------------------------------------------------------------

def mxc_worker(model, data, g, vals):
    import mxc as mx
    shape, batch = MODELS[model]
    sym = mx.sym.load_json(mxnet_zoo.dumps(g))
    req = {n: ("null" if n in ("data", "softmax_label") else "write") for n in sym.list_arguments()}
    ex = sym.simple_bind(mx.cpu(), grad_req=req, data=(batch,) + shape, softmax_label=(batch,))
    for n, a in list(ex.arg_dict.items()) + list(ex.aux_dict.items()):
        if n in vals:
            np.copyto(np.asarray(a), vals[n])
    trained = [n for n in sym.list_arguments() if req[n] == "write"]
    nparams = sum(ex.arg_dict[n].size for n in trained)

    def step(x, y):
        ex.forward(is_train=True, data=x, softmax_label=y)
        ex.backward()
        # SGD as MXNet's optimizer runs it: sgd_update on the engine, after
        # the step's gradients (grad_dict is read here, after backward(): it
        # holds the step's gradient buffers, whose storage changes from step
        # to step). The step ends when its work has.
        for n in trained:
            w = ex.arg_dict[n]
            mx.nd.sgd_update(w, ex.grad_dict[n], lr=LR, wd=0.0, rescale_grad=1.0, out=w)
        mx.nd.waitall()

    if ARGS.mxc_api == "module" and not ARGS.check:
        mod = mx.mod.Module(sym, context=mx.cpu())
        mod.bind(data_shapes=[("data", (batch,) + shape)], label_shapes=[("softmax_label", (batch,))])
        names = set(sym.list_arguments())
        mod.init_params(arg_params={n: v for n, v in vals.items() if n in names},
                        aux_params={n: v for n, v in vals.items() if n not in names})
        mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": LR, "rescale_grad": 1.0})

        def step(x, y):  # noqa: F811
            mod.forward_backward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)]))
            mod.update()
            # Module's steps are pushed to the engine and return at once
            # (since issue 11): the step ends when its work has finished.
            mx.nd.waitall()

    if ARGS.check:
        step(*data[0])
        np.save(ARGS.check, np.asarray(ex.grad_dict[last_fc_weight(g)]))
        return {"params": int(nparams)}
    return dict(run_steps(step, data), params=int(nparams))


def torch_worker(model, data, g, vals):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    torch.set_num_threads(ARGS.threads)
    saved = sys.argv
    sys.argv = [saved[0], "--threads", str(ARGS.threads)]
    sys.path.insert(0, os.path.join(ROOT, "bench", "cpu_inference"))
    import bench as cpu_bench  # MXNetGraphModule
    sys.argv = saved
    net = cpu_bench.MXNetGraphModule(g, vals)
    net.ops["softmax"] = nn.Identity()  # logits; the loss below is SoftmaxOutput's
    net.train()
    opt = torch.optim.SGD(net.parameters(), lr=LR)
    nparams = sum(p.numel() for p in net.parameters())
    tdata = [(torch.from_numpy(x), torch.from_numpy(y).long()) for x, y in data]

    def step(x, y):
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(net(x), y, reduction="sum")
        loss.backward()
        opt.step()

    if ARGS.check:
        step(*tdata[0])
        fc = last_fc_weight(g).rsplit("_weight", 1)[0].replace(".", "_")
        np.save(ARGS.check, net.ops[fc].linear.weight.grad.numpy())
        return {"params": int(nparams)}
    return dict(run_steps(step, tdata), params=int(nparams))


def run_steps(step, data):
    times = []
    t0 = time.perf_counter()
    step(*data[0])
    first = time.perf_counter() - t0
    for i in range(1, ARGS.warmup):
        step(*data[i % len(data)])
    for i in range(ARGS.steps):
        x, y = data[(ARGS.warmup + i) % len(data)]
        t0 = time.perf_counter()
        step(x, y)
        times.append(time.perf_counter() - t0)
    return {"first": first, "times": times}


def worker():
    g = graph(ARGS.model)
    shape, batch = MODELS[ARGS.model]
    vals = init_values(g, (batch,) + shape)
    data = batches(ARGS.model, 1 if ARGS.check else ARGS.warmup + ARGS.steps)
    fn = mxc_worker if ARGS.worker == "mxc" else torch_worker
    print("RESULT " + json.dumps(fn(ARGS.model, data, g, vals)), flush=True)


# ---------------------------------------------------------------------------
# driver
# ---------------------------------------------------------------------------

def cpu_snapshot():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    busy = (v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)) / os.sysconf("SC_CLK_TCK")
    t = os.times()
    return time.time(), busy, t.user + t.system + t.children_user + t.children_system


def other_cpu(a, b):
    wall = b[0] - a[0]
    return max(0.0, 100.0 * ((b[1] - a[1]) - (b[2] - a[2])) / (wall * (os.cpu_count() or 1)))


def spawn(fw, model, env, check=None):
    cmd = [sys.executable, "-W", "ignore", os.path.abspath(__file__), "--worker", fw, "--model", model,
           "--steps", str(ARGS.steps), "--warmup", str(ARGS.warmup), "--threads", str(ARGS.threads),
           "--mxc-api", ARGS.mxc_api]
    if check:
        cmd += ["--check", check]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    if p.returncode != 0 or not lines:
        sys.exit("train: %s worker for %s failed (exit %d):\n%s" % (fw, model, p.returncode, p.stderr[-3000:]))
    return json.loads(lines[-1][7:])


def loadavg():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def main():
    if ARGS.worker:
        return worker()
    import torch
    print("training benchmark, %s UTC, load average %s, torch %s, numpy %s, %d threads, mxc %s"
          % (time.strftime("%Y-%m-%d %H:%M", time.gmtime()), loadavg(), torch.__version__,
             np.__version__, ARGS.threads, ARGS.mxc_api))
    tmp = tempfile.TemporaryDirectory(prefix="mxc-train-")  # JIT disk caches, removed at exit
    cache = os.path.join(tmp.name, "cache")
    env = dict(os.environ, MXC_CACHE_DIR=cache, MXC_QUIET="1")
    rows = []
    for model in ARGS.models.split(","):
        shape, batch = MODELS[model]
        # check: one step from the same weights
        with tempfile.TemporaryDirectory() as d:
            cm = spawn("mxc", model, env, os.path.join(d, "mxc.npy"))
            ct = spawn("torch", model, env, os.path.join(d, "torch.npy"))
            gm, gt = np.load(os.path.join(d, "mxc.npy")), np.load(os.path.join(d, "torch.npy"))
        err = float(np.abs(gm - gt).max() / max(np.abs(gt).max(), 1e-12))
        if cm["params"] != ct["params"] or err > 1e-3:
            sys.exit("train: %s: check failed: params %d vs %d, last FC weight gradient rel err %.2e"
                     % (model, cm["params"], ct["params"], err))
        # the check step compiled the graph into `cache`; time the compile on a fresh one
        env_fresh = dict(env, MXC_CACHE_DIR=os.path.join(tmp.name, "fresh-" + model))
        res = {"mxc": [], "torch": []}
        s0 = cpu_snapshot()
        for r in range(ARGS.rounds):
            order = ["mxc", "torch"] if r % 2 == 0 else ["torch", "mxc"]
            for fw in order:
                res[fw].append(spawn(fw, model, env_fresh if (fw == "mxc" and r == 0) else env))
        s1 = cpu_snapshot()
        med = {fw: statistics.median(t for x in res[fw] for t in x["times"]) for fw in res}
        p10p90 = {}
        for fw in res:
            ts = sorted(t for x in res[fw] for t in x["times"])
            p10p90[fw] = (ts[len(ts) // 10], ts[(len(ts) * 9) // 10])
        rows.append(dict(model=model, batch=batch, med=med, p=p10p90, params=cm["params"], err=err,
                         compile=res["mxc"][0]["first"] - med["mxc"],
                         compile_cached=[x["first"] - med["mxc"] for x in res["mxc"][1:]],
                         torch_first=res["torch"][0]["first"], other=other_cpu(s0, s1)))
        print("  %s done (load average %s)" % (model, loadavg()), flush=True)
    print("\nstep time in ms: median (p10-p90) of %d rounds x %d steps after %d warm-up steps\n"
          % (ARGS.rounds, ARGS.steps, ARGS.warmup))
    print("| model | batch | params | mxc step | PyTorch step | mxc samples/s | PyTorch samples/s "
          "| mxc / PyTorch time | mxc compile (s) | grad check | other CPU |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        m, t = r["med"]["mxc"], r["med"]["torch"]
        print("| %s | %d | %d | %.1f (%.1f-%.1f) | %.1f (%.1f-%.1f) | %.0f | %.0f | %.2f | %.1f (cached: %s) "
              "| %.1e | %.0f%% |"
              % (r["model"], r["batch"], r["params"], m * 1e3, r["p"]["mxc"][0] * 1e3, r["p"]["mxc"][1] * 1e3,
                 t * 1e3, r["p"]["torch"][0] * 1e3, r["p"]["torch"][1] * 1e3, r["batch"] / m, r["batch"] / t,
                 m / t, r["compile"], ", ".join("%.2f" % c for c in r["compile_cached"]) or "-",
                 r["err"], r["other"]))
    print("\nload average after: %s" % loadavg())


if __name__ == "__main__":
    main()
