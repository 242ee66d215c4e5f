#!/usr/bin/env python3
"""Training step compute time on this machine, for the cost model of
docs/distributed.md: Module forward + backward (no update) of ResNet-50 and
Inception-BN (tools/zoo/mxnet_zoo.py, 3x224x224) at --batch (default 8);
one warm-up step (compiles), then --steps timed steps; prints JSON with the
median seconds per sample, the parameter bytes and the parameter count."""
import json
import os
import sys
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "zoo"))
import mxnet_zoo  # noqa: E402

import mxc as mx  # noqa: E402


def measure(name, batch, steps):
    net = mx.sym.load_json(mxnet_zoo.symbol_json(name))
    mod = mx.mod.Module(net, context=mx.cpu())
    mod.bind(data_shapes=[("data", (batch, 3, 224, 224))],
             label_shapes=[("softmax_label", (batch,))])
    mod.init_params(mx.init.Xavier())
    rng = np.random.RandomState(0)
    b = mx.io.DataBatch(data=[mx.nd.array(rng.randn(batch, 3, 224, 224))],
                        label=[mx.nd.array(rng.randint(0, 1000, batch))])
    mod.forward_backward(b)
    mx.nd.waitall()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        mod.forward_backward(b)
        mx.nd.waitall()
        times.append(time.perf_counter() - t0)
    args, _ = mod.get_params()
    return {"model": name, "batch": batch, "step_s": float(np.median(times)),
            "s_per_sample": float(np.median(times)) / batch,
            "params": int(sum(np.prod(v.shape) for v in args.values())),
            "param_arrays": len(args),
            "param_bytes": int(sum(np.prod(v.shape) * 4 for v in args.values()))}


if __name__ == "__main__":
    batch = int(os.environ.get("BATCH", "8"))
    steps = int(os.environ.get("STEPS", "3"))
    out = [measure(n, batch, steps) for n in ("resnet50", "inception-bn")]
    print(json.dumps({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                      "load": open("/proc/loadavg").read().split()[:3], "results": out},
                     indent=1))
