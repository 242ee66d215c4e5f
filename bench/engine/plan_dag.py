#!/usr/bin/env python3
"""How much a plan can overlap: its dependency DAG, as runtime::Executor
builds it, timed with the step durations of a 1-worker MXC_PROFILE trace
(docs/benchmarks.md, "Execution through the engine (issue 11)").

    mxc compile net-symbol.json --shape data=1,3,224,224 --emit plan -o net.plan
    MXC_CPU_WORKER_NTHREADS=1 OMP_NUM_THREADS=1 MXC_PROFILE=w1.json \
        mxc run net-symbol.json --shape data=1,3,224,224 --repeat 20 --warmup 3
    python3 bench/engine/plan_dag.py net.plan w1.json

Dependencies as the executor pushes them (runtime/src/executor/executor.cc):
a step writes every arena buffer whose byte range overlaps one it writes, so
a step depends on an earlier one when it writes something the earlier one
reads or writes, or reads something it writes (overlapping byte ranges).
"Data flow only" keeps, for each buffer a step reads or writes, only the last
earlier writer (no write-after-read / write-after-write order: what the
memory plan's co-sharing and the whole-buffer writes of Concat slices add).
Prints the sum of the step times (1 worker), the critical path of each DAG
and a greedy 2-worker list schedule (plan order among ready steps, step
times unchanged: an upper bound on what 2 workers gain).
"""
import json
import statistics
import sys
from collections import defaultdict


def load_plan(path):
    bufs, steps = {}, []
    for line in open(path):
        f = line.split()
        if not f:
            continue
        if f[0] == "buffer":
            bufs[f[1]] = (int(f[3]), int(f[4])) if f[2] == "arena" else None
        elif f[0] == "step":
            i, j = f.index("reads"), f.index("writes")
            steps.append((f[1], f[i + 1:j], f[j + 1:]))
    return bufs, steps


def main():
    bufs, steps = load_plan(sys.argv[1])
    d = json.load(open(sys.argv[2]))
    dur = defaultdict(list)
    for e in d["traceEvents"] if isinstance(d, dict) else d:
        if e.get("ph") == "X":
            dur[e["name"]].append(e["dur"] / 1e3)
    D = {n: statistics.median(v) for n, v in dur.items()}

    def same(a, b):  # overlapping storage
        if a == b:
            return True
        A, B = bufs.get(a), bufs.get(b)
        return (A is not None and B is not None and A[1] > 0 and B[1] > 0
                and A[0] < B[0] + B[1] and B[0] < A[0] + A[1])

    exec_preds, flow_preds = [], []
    for k, (_, r, w) in enumerate(steps):
        ps = set()
        for p in range(k):
            _, pr, pw = steps[p]
            if any(same(a, b) for a in w for b in pw + pr) or any(same(a, b) for a in r for b in pw):
                ps.add(p)
        exec_preds.append(ps)
        fs = set()
        for a in r + w:
            for p in range(k - 1, -1, -1):
                if any(same(a, b) for b in steps[p][2]):
                    fs.add(p)
                    break
        flow_preds.append(fs)

    def critical(preds):
        fin = []
        for k, (n, _, _) in enumerate(steps):
            fin.append(max([fin[p] for p in preds[k]] or [0.0]) + D.get(n, 0.0))
        return max(fin)

    def two_workers(preds):
        fin = [None] * len(steps)
        free = [0.0, 0.0]
        left = list(range(len(steps)))
        while left:
            w = min(range(2), key=lambda i: free[i])
            ready = [(max([fin[p] for p in preds[k]] or [0.0]), k) for k in left
                     if all(fin[p] is not None for p in preds[k])]
            rt, k = min(ready, key=lambda c: (max(c[0], free[w]), c[1]))
            fin[k] = max(rt, free[w]) + D.get(steps[k][0], 0.0)
            free[w] = fin[k]
            left.remove(k)
        return max(fin)

    missing = [n for n, _, _ in steps if n not in D]
    total = sum(D.get(n, 0.0) for n, _, _ in steps)
    print("%s: %d steps (%d without a time in the trace)" % (sys.argv[1], len(steps), len(missing)))
    print("  sum of step times (1 worker)          %7.2f ms" % total)
    for label, preds in (("executor's dependencies", exec_preds), ("data flow only", flow_preds)):
        print("  %-24s critical path %7.2f ms, 2 workers (greedy) %7.2f ms"
              % (label, critical(preds), two_workers(preds)))


if __name__ == "__main__":
    main()
