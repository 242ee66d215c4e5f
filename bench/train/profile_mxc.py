#!/usr/bin/env python3
"""Where an mxc training step goes: bench/train's mxc step (Executor
forward(is_train=True) + backward + numpy SGD) split into its parts, then
sampled with `perf` and bucketed by function.

    PYTHONPATH=build/python_packages .venv-bench/bin/python bench/train/profile_mxc.py
        [--models lenet,resnet18] [--steps 10] [--seconds 8] [--threads 2]

1. Parts, median over --steps steps after 3 warm-up steps (ms):
   `compiled.run` (the compiled training step alone: forward + backward,
   called directly on the executor's arrays), `forward(is_train=True)` (it
   pushes the step to the engine and returns), `backward()` (hands the
   step's gradient buffers to grad_dict), the SGD update (w -= lr * g on the
   arrays' numpy memory, which waits for the step's work: the step's time
   lands here), and `step`, the three together.
2. `perf record -p` of this process while it loops over steps for --seconds:
   shares of every thread's samples (the kernels run on the engine's worker
   and the kernel threads' pool, not on the Python thread), buckets of
   bench/cpu_inference/profile_mxc.py plus `python/numpy` (the interpreter
   and numpy: executor bookkeeping, copies, the update), `conv backward`
   (the runtime's mxc_kernel_conv_backward_*), `pooling backward`
   (mxc_kernel_pooling_backward_*); "helper idle" is the share of the
   threads other than the Python one spent waiting. Needs perf with user
   sampling allowed.
"""
import argparse
import importlib.util
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
p.add_argument("--models", default="lenet,resnet18")
p.add_argument("--steps", type=int, default=10)
p.add_argument("--seconds", type=float, default=8.0)
p.add_argument("--threads", type=int, default=2)
A = p.parse_args()
saved = sys.argv
sys.argv = [saved[0], "--threads", str(A.threads)]
sys.path.insert(0, HERE)
import bench as tb  # noqa: E402  (sets the thread variables, imports numpy)
sys.argv = saved
_spec = importlib.util.spec_from_file_location(  # its BUCKETS (same file name as this one)
    "cpu_inference_profile", os.path.join(ROOT, "bench", "cpu_inference", "profile_mxc.py"))
cpu_prof = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cpu_prof)

np = tb.np
os.environ.setdefault("MXC_CACHE_DIR", os.path.join(HERE, ".work", "cache"))
os.environ["MXC_QUIET"] = "1"
import mxc as mx  # noqa: E402

BUCKETS = [("python/numpy", lambda d, s: re.search(r"python|multiarray|numpy|libffi", d)),
           ("conv backward", lambda d, s: "mxc_runtime" in d and "conv_backward" in s),
           ("pooling backward", lambda d, s: "mxc_runtime" in d and "pooling_backward" in s)] + cpu_prof.BUCKETS


def bucket(dso, sym):
    for name, pred in BUCKETS:
        if pred(dso, sym):
            return name
    return "other"


def setup(model):
    g = tb.graph(model)
    shape, batch = tb.MODELS[model]
    vals = tb.init_values(g, (batch,) + shape)
    data = tb.batches(model, 8)
    sym = mx.sym.load_json(tb.mxnet_zoo.dumps(g))
    req = {n: ("null" if n in ("data", "softmax_label") else "write") for n in sym.list_arguments()}
    ex = sym.simple_bind(mx.cpu(), grad_req=req, data=(batch,) + shape, softmax_label=(batch,))
    for n, a in list(ex.arg_dict.items()) + list(ex.aux_dict.items()):
        if n in vals:
            np.copyto(np.asarray(a), vals[n])
    # names: the arrays' numpy memory is fetched after each backward() (as
    # bench.py: it waits for the pushed step; grad_dict's storage changes
    # from step to step)
    return ex, [n for n in sym.list_arguments() if req[n] == "write"], data


def update(ex, trained):
    for n in trained:
        w = np.asarray(ex.arg_dict[n])
        w -= tb.LR * np.asarray(ex.grad_dict[n])


def main():
    names = [b[0] for b in BUCKETS] + ["other"]
    rows = []
    for model in A.models.split(","):
        ex, trained, data = setup(model)
        parts = {k: [] for k in ("compiled.run", "forward", "backward", "update", "step")}
        for i in range(3 + A.steps):
            x, y = data[i % len(data)]
            t0 = time.perf_counter()
            ex.forward(is_train=True, data=x, softmax_label=y)
            t1 = time.perf_counter()
            ex.backward()
            t2 = time.perf_counter()
            update(ex, trained)
            t3 = time.perf_counter()
            compiled = ex._compile(True)
            ins = ex._inputs(compiled, None, None, 0)
            outs = [np.empty(tuple(s), tb.np.dtype(dt)) for _, _, s, dt in compiled.outputs]
            t4 = time.perf_counter()
            compiled.run(ins, outs)
            t5 = time.perf_counter()
            if i >= 3:
                for k, v in (("forward", t1 - t0), ("backward", t2 - t1), ("update", t3 - t2),
                             ("step", t3 - t0), ("compiled.run", t5 - t4)):
                    parts[k].append(v * 1e3)
        med = {k: statistics.median(v) for k, v in parts.items()}
        # perf: loop steps in this thread while perf samples the process
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "perf.data")
            stop = threading.Event()
            perf = subprocess.Popen(["perf", "record", "-q", "-F", "999", "-p", str(os.getpid()), "-o", out,
                                     "--", "sleep", str(A.seconds)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            t = threading.Thread(target=lambda: (perf.wait(), stop.set()))
            t.start()
            i = 0
            while not stop.is_set():
                x, y = data[i % len(data)]
                ex.forward(is_train=True, data=x, softmax_label=y)
                ex.backward()
                update(ex, trained)
                i += 1
            t.join()
            rep = subprocess.run(["perf", "report", "-i", out, "--sort", "pid,dso,sym", "--stdio",
                                  "-F", "overhead,pid,dso,sym"], capture_output=True, text=True).stdout
        per_thread = cpu_prof.per_thread_shares(rep, bucket, names)
        # Every thread's samples: since the plans run on the engine, the
        # kernels run on its worker and the pool's helpers, not on the
        # Python thread.
        mainv = {n: sum(t[n] for t in per_thread.values()) for n in names}
        tot = sum(mainv.values()) or 1.0
        per_thread.pop(os.getpid(), None)
        helpers = {k: v for k, v in per_thread.items() if sum(v.values()) > 0.5}
        htot = sum(sum(v.values()) for v in helpers.values())
        hidle = sum(v["sched/yield"] + v["openblas other"] for v in helpers.values())
        rows.append((model, med, {n: 100 * v / tot for n, v in mainv.items()},
                     100 * hidle / htot if htot else 0.0, i))
    print("| model | step ms | compiled.run | forward(is_train) | backward() | SGD update |")
    print("|---|---|---|---|---|---|")
    for model, med, _, _, _ in rows:
        print("| %s | %.1f | %.1f | %.1f | %.1f | %.1f |" % (
            model, med["step"], med["compiled.run"], med["forward"], med["backward"], med["update"]))
    print("\n| model | " + " | ".join(names) + " | helper idle |")
    print("|---|" + "---|" * (len(names) + 1))
    for model, _, sh, hidle, _ in rows:
        print("| %s | %s | %.0f%% |" % (model, " | ".join("%.0f%%" % sh[n] for n in names), hidle))
    print("\nload average: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))


if __name__ == "__main__":
    main()
