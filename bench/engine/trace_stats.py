#!/usr/bin/env python3
"""Per-pass statistics of an MXC_PROFILE Chrome trace of `mxc run --repeat`
(bench/engine/run.sh, docs/benchmarks.md "Execution through the engine").

    python3 bench/engine/trace_stats.py trace.json [--skip K]

A pass starts at each event named like the trace's first event (the plan's
first step). Per pass: steps, makespan (first start to last end), busy (sum
of step durations), union (time at least one step runs), overlap = busy -
union (time two steps run at once), gaps = makespan - union (no step
running: engine hand-off, waits), threads used. Prints the medians over the
passes after the first K (default 3, the warm-up), and the 8 steps with the
largest median duration.
"""
import json
import statistics
import sys
from collections import defaultdict

path = sys.argv[1]
skip = int(sys.argv[sys.argv.index("--skip") + 1]) if "--skip" in sys.argv else 3
d = json.load(open(path))
ev = [e for e in (d["traceEvents"] if isinstance(d, dict) else d) if e.get("ph") == "X"]
ev.sort(key=lambda e: e["ts"])
first = ev[0]["name"]
passes, cur = [], []
for e in ev:
    if e["name"] == first and cur:
        passes.append(cur)
        cur = []
    cur.append(e)
passes.append(cur)
passes = passes[skip:]
rows = defaultdict(list)
per_step = defaultdict(list)
for p in passes:
    iv = sorted((e["ts"], e["ts"] + e["dur"]) for e in p)
    union, s0, e0 = 0.0, iv[0][0], iv[0][1]
    for s, e in iv[1:]:
        if s > e0:
            union += e0 - s0
            s0, e0 = s, e
        else:
            e0 = max(e0, e)
    union += e0 - s0
    span = max(e for _, e in iv) - iv[0][0]
    busy = sum(e["dur"] for e in p)
    rows["steps"].append(len(p))
    rows["makespan ms"].append(span / 1e3)
    rows["busy ms"].append(busy / 1e3)
    rows["union ms"].append(union / 1e3)
    rows["overlap ms"].append((busy - union) / 1e3)
    rows["gaps ms"].append((span - union) / 1e3)
    rows["threads"].append(len({e["tid"] for e in p}))
    for e in p:
        per_step[e["name"]].append(e["dur"] / 1e3)
print("%s: %d passes (after %d skipped)" % (path, len(passes), skip))
for k, v in rows.items():
    print("  %-12s median %8.2f  min %8.2f  max %8.2f" % (k, statistics.median(v), min(v), max(v)))
top = sorted(per_step.items(), key=lambda kv: -statistics.median(kv[1]))[:8]
print("  largest steps (median ms): " + ", ".join("%s %.2f" % (n, statistics.median(v)) for n, v in top))
