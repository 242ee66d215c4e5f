#!/usr/bin/env python3
"""Engine overhead per step, bulk execution on / off (docs/benchmarks.md,
"Bulk execution"): a chain of N tiny FullyConnected steps (8x8, batch 1), so
that the time is the per-step cost, run through Executor.forward(is_train=False)
(Compiled.run -> Executor::run). Run it with MXC_EXEC_BULK_EXEC_INFERENCE=1 and
=0 alternately:

    for b in 1 0 1 0; do MXC_EXEC_BULK_EXEC_INFERENCE=$b PYTHONPATH=build/python_packages \
        .venv/bin/python bench/engine/bulk_steps.py 100; done
"""
import os
import statistics
import sys
import time

import numpy as np
import mxc as mx

n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
x = mx.sym.Variable("data")
h = x
for i in range(n):
    h = mx.sym.FullyConnected(h, num_hidden=8, no_bias=True, name="fc%d" % i)
args = {"data": (1, 8)}
args.update({"fc%d_weight" % i: (8, 8) for i in range(n)})
ex = h.simple_bind(mx.cpu(), grad_req="null", **args)
for k, v in ex.arg_dict.items():
    v[:] = np.random.default_rng(0).standard_normal(v.shape).astype(np.float32) * 0.3
for _ in range(50):
    ex.forward(is_train=False)
    ex.outputs[0].wait_to_read()
ts = []
for r in range(7):
    t = time.perf_counter()
    for _ in range(200):
        ex.forward(is_train=False)
        ex.outputs[0].wait_to_read()
    ts.append((time.perf_counter() - t) / 200 * 1e6)
print("bulk=%s steps=%d  us per run: median %.1f min %.1f" % (os.environ.get("MXC_EXEC_BULK_EXEC_INFERENCE", "1"), n, statistics.median(ts), min(ts)))
