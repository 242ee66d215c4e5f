#!/usr/bin/env python3
"""MXNet 1.9.1 side of bench.py: runs in the MXNet venv (.venv-mxnet, numpy < 1.24),
one process per timing round, started by bench.py.

    .venv-mxnet/bin/python bench/cpu_inference/mxnet_runner.py SYMBOL.json PARAMS X.npy
        [--warmup K] [--warmup-s S] [--runs N] [--out OUT.npy] [--subgraph MKLDNN]

Loads the same -symbol.json and .params that mxc reads into `mx.mod.Module`
(data `data`, label `softmax_label`, CPU context), binds it for inference
(for_training=False) at X's shape, and runs `forward(is_train=False)` on X:
K untimed passes, then N timed ones, each ending in `wait_to_read()` on the
output (MXNet's engine is asynchronous). --out saves the output (softmax) for
bench.py's check. The PyPI wheel is built with oneDNN, and binding for
inference already applies its MKLDNN subgraph backend (Conv+BN+ReLU(+Add)
fusion; MXNet logs "Subgraph backend MKLDNN is activated", which bench.py
reports); --subgraph BACKEND also calls `Symbol.optimize_for(BACKEND)` on
the symbol and parameters first.

Threads: bench.py sets OMP_NUM_THREADS (the width of each operator's oneDNN /
OpenMP region), MXNET_CPU_WORKER_NTHREADS=1 (one engine worker runs the
operators, so no two operators run at once) and MXNET_ENGINE_TYPE before
this starts. Prints one JSON line: the per-pass times (ms) and the setup.
"""
import argparse
import json
import os
import sys
import time

import numpy as np


def task_cpu():
    """{thread id: CPU seconds (user + system)} of this process's threads."""
    hz = os.sysconf("SC_CLK_TCK")
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/stat" % tid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            out[tid] = (int(fields[11]) + int(fields[12])) / hz
        except (OSError, IndexError, ValueError):
            pass
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("symbol")
    p.add_argument("params")
    p.add_argument("x")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--warmup-s", type=float, default=0.0,
                   help="untimed passes go on (after --warmup's K) until S seconds have passed")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--out")
    p.add_argument("--subgraph", default="", help="e.g. MKLDNN: Symbol.optimize_for(backend)")
    a = p.parse_args()

    import mxnet as mx

    x = np.load(a.x)
    sym = mx.sym.load(a.symbol)
    loaded = mx.nd.load(a.params)
    arg = {k[4:]: v for k, v in loaded.items() if k.startswith("arg:")}
    aux = {k[4:]: v for k, v in loaded.items() if k.startswith("aux:")}
    if a.subgraph:
        sym = sym.optimize_for(a.subgraph, arg, aux, ctx=mx.cpu())
    mod = mx.mod.Module(sym, data_names=["data"], label_names=["softmax_label"], context=mx.cpu())
    mod.bind(data_shapes=[("data", x.shape)], label_shapes=[("softmax_label", (x.shape[0],))],
             for_training=False)
    mod.set_params(arg, aux, allow_missing=False, allow_extra=True)
    batch = mx.io.DataBatch(data=[mx.nd.array(x)], label=None)

    def once():
        mod.forward(batch, is_train=False)
        return mod.get_outputs()[0].wait_to_read()

    start = time.perf_counter()
    once()
    first_ms = (time.perf_counter() - start) * 1e3
    warm_start, warmups = time.perf_counter(), 0
    while warmups < a.warmup or time.perf_counter() - warm_start < a.warmup_s:
        once()
        warmups += 1
    times = []
    before = task_cpu()
    for _ in range(a.runs):
        start = time.perf_counter()
        once()
        times.append((time.perf_counter() - start) * 1e3)
    after = task_cpu()
    used = sorted((after[t] - before.get(t, 0.0) for t in after), reverse=True)
    busy = sum(used)
    if a.out:
        np.save(a.out, mod.get_outputs()[0].asnumpy())
    info = {"times_ms": times, "first_ms": first_ms, "mxnet": mx.__version__,
            "numpy": np.__version__, "engine": os.environ.get("MXNET_ENGINE_TYPE", "default"),
            "omp_threads": os.environ.get("OMP_NUM_THREADS"),
            "threads_in_process": len(os.listdir("/proc/self/task")),
            # threads that did >= 10% of the CPU work of the timed passes
            "busy_threads": sum(1 for u in used if busy > 0 and u >= 0.1 * busy),
            "mkldnn": bool(mx.runtime.Features().is_enabled("MKLDNN")),
            "subgraph": a.subgraph or None}
    print("MXNET_RUNNER " + json.dumps(info))
    return 0


if __name__ == "__main__":
    sys.exit(main())
