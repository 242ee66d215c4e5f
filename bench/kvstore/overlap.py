#!/usr/bin/env python3
"""Share of communication hidden behind backward in a data-parallel ResNet-18
step (issue 12; docs/benchmarks.md, "KVStore"). Run with tools/launch.py:

    python tools/launch.py -n 2 python bench/kvstore/overlap.py OUTDIR [--batch 16] [--steps 3]

ResNet-18 (tools/zoo/mxnet_zoo.py, the ImageNet-style graph bound at 3x32x32,
local batch --batch), Module with kvstore dist_sync. After a warm-up step,
--steps steps are traced (mx.profiler); from rank 0's trace, per step: the
backward pass runs from the first to the last backward plan step (names
'<node>.1', the gradient nodes, and the trailing 'stepN' groups) on the
compute worker; every all-reduce on the 'kvstore comm' thread is split into
the part inside that window (hidden) and the part after it (exposed)."""
import json
import os
import re
import sys
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "zoo"))
import mxnet_zoo  # noqa: E402

import mxc as mx  # noqa: E402


def main():
    outdir = sys.argv[1]
    batch = int(sys.argv[sys.argv.index("--batch") + 1]) if "--batch" in sys.argv else 16
    steps = int(sys.argv[sys.argv.index("--steps") + 1]) if "--steps" in sys.argv else 3
    kv = mx.kv.create("dist_sync")
    g = mxnet_zoo.to_graph(mxnet_zoo.resnet(18, 10, image_shape=(3, 224, 224)))
    net = mx.sym.load_json(json.dumps(g))
    mod = mx.mod.Module(net, context=mx.cpu())
    mod.bind(data_shapes=[("data", (batch, 3, 32, 32))],
             label_shapes=[("softmax_label", (batch,))])
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(kvstore=kv, optimizer="sgd", optimizer_params=(("learning_rate", 0.01),))
    rng = np.random.RandomState(kv.rank)
    b = mx.io.DataBatch(data=[mx.nd.array(rng.randn(batch, 3, 32, 32))],
                        label=[mx.nd.array(rng.randint(0, 10, batch))])
    mod.forward_backward(b)
    mod.update()
    mx.nd.waitall()
    kv.barrier()
    trace = os.path.join(outdir, "overlap%d.json" % kv.rank)
    mx.profiler.set_config(profile_all=True, filename=trace)
    walls = []
    for _ in range(steps):
        kv.barrier()
        mx.profiler.set_state("run")
        t0 = time.perf_counter()
        mod.forward_backward(b)
        mod.update()
        mx.nd.waitall()
        walls.append(time.perf_counter() - t0)
        mx.profiler.set_state("stop")
    mx.profiler.dump()
    kv.barrier()
    if kv.rank != 0:
        return
    events = json.load(open(trace))["traceEvents"]
    threads = {e["tid"]: e["args"]["name"] for e in events
               if e.get("ph") == "M" and e.get("name") == "thread_name"}
    xs = sorted((e for e in events if e.get("ph") == "X"), key=lambda e: e["ts"])
    bwd_name = re.compile(r"(\.1$)|(^step\d+$)")
    rows = []
    # split the trace into steps at each forward's first conv ('conv0')
    starts = [e["ts"] for e in xs if e["name"] == "conv0"] + [float("inf")]
    for i in range(len(starts) - 1):
        win = [e for e in xs if starts[i] <= e["ts"] < starts[i + 1]]
        bwd = [e for e in win if threads.get(e["tid"], "").startswith("cpu worker")
               and bwd_name.search(e["name"])]
        comm = [e for e in win if threads.get(e["tid"]) == "kvstore comm"]
        if not bwd or not comm:
            continue
        b0, b1 = min(e["ts"] for e in bwd), max(e["ts"] + e["dur"] for e in bwd)
        total = sum(e["dur"] for e in comm)
        hidden = sum(max(0.0, min(e["ts"] + e["dur"], b1) - max(e["ts"], b0)) for e in comm)
        rows.append((b1 - b0, total, hidden))
    print("| %d ranks, ResNet-18 3x32x32, local batch %d | median |" % (kv.num_workers, batch))
    print("|---|---:|")
    print("| step (forward + backward + update), ms | %.1f |" % (1e3 * float(np.median(walls))))
    print("| backward window, ms | %.1f |" % (float(np.median([r[0] for r in rows])) / 1e3))
    print("| all-reduce time on the comm thread, ms | %.1f |"
          % (float(np.median([r[1] for r in rows])) / 1e3))
    print("| of it inside the backward window (hidden) | %.1f%% |"
          % (100 * float(np.median([r[2] / r[1] for r in rows]))))
    print("| exposed after the backward pass, ms | %.2f |"
          % (float(np.median([r[1] - r[2] for r in rows])) / 1e3))
    print("(%d traced steps, %d parameters pushed per step)"
          % (len(rows), len([n for n in mod._param_names])))


if __name__ == "__main__":
    main()
