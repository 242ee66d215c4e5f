#!/usr/bin/env python3
"""Tables from bench/engine/run.sh's results file (INFER / TRAIN lines).

    python3 bench/engine/summarize.py bench/engine/.work/results.txt [--from-round K]

--from-round K: use only the inference rounds K and later (a run disturbed
at its start).

Inference: per (model, configuration) the median over rounds of each
process's `mxc run` median, the min-max of those round medians, and the
ratio of the medians to old-blas2 (new-w1k1: to old-blas1; the im2col-*
configurations to the old tree at the same thread count, new-w2k2 to
new-default; --overlap: new-w2k1 to new-w1k1), and the median
over rounds of the paired ratio (this round's median over the base's median
in the same round: load that drifts between rounds cancels). Training: per (model,
configuration) the median of all timed steps of all rounds, p10-p90, and the
ratio to the old tree at the same thread count.
"""
import json
import re
import statistics
import sys
from collections import defaultdict

infer = defaultdict(list)
by_round = defaultdict(dict)  # (model, round) -> {configuration: median}
rnd = -1
first_round = int(sys.argv[sys.argv.index("--from-round") + 1]) if "--from-round" in sys.argv else 0
steps = defaultdict(list)
rounds = defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if not f:
        continue
    if f[0] == "#" and len(f) > 3 and f[1] == "round" and f[3] == "inference,":
        rnd = int(f[2])
    if f[0] == "INFER" and rnd >= first_round:
        m = re.search(r"median ([0-9.]+) ms, p10 ([0-9.]+) ms, p90 ([0-9.]+) ms", line)
        infer[(f[1], f[2])].append(float(m.group(1)))
        by_round[(f[1], rnd)][f[2]] = float(m.group(1))
    elif f[0] == "TRAIN":
        r = json.loads(line.split("RESULT ", 1)[1])
        steps[(f[1], f[2])].extend(r["times"])
        rounds[(f[1], f[2])].append(statistics.median(r["times"]))

BASE = {"new-default": "old-blas2", "new-w2k1": "old-blas2", "new-w1k2": "old-blas2",
        "new-w1k1": "old-blas1",
        # NEW_IM2COL=1 (run.sh): the new tree with the old tree's convolutions
        "im2col-w1k2": "old-blas2", "im2col-w1k1": "old-blas1", "im2col-w1k1-nobulk": "old-blas1",
        "new-w2k2": "new-default",
        # branch overlap alone: 2 single-threaded workers without work-sharing
        "new-w2k1-noshare": "new-w1k1"}
if "--overlap" in sys.argv:  # 2 workers against 1 worker of the same tree
    BASE.update({"new-w2k1": "new-w1k1", "new-w2k2": "new-default"})
if infer:
    print("| model | configuration | latency ms: median of round medians | min-max of rounds | rounds "
          "| vs old | paired ratio: median (min-max) |")
    print("|---|---|---|---|---|---|---|")
    for model in ("resnet18", "inception-bn"):
        for (mm, cfg), v in infer.items():
            if mm != model:
                continue
            med = statistics.median(v)
            base = BASE.get(cfg)
            ratio = paired = "-"
            if base and (model, base) in infer:
                ratio = "%.3f x %s" % (med / statistics.median(infer[(model, base)]), base)
                pr = [c[cfg] / c[base] for (mm2, _), c in by_round.items()
                      if mm2 == model and cfg in c and base in c]
                paired = "%.3f (%.2f-%.2f)" % (statistics.median(pr), min(pr), max(pr))
            print("| %s | %s | %.2f | %.2f-%.2f | %d | %s | %s |"
                  % (model, cfg, med, min(v), max(v), len(v), ratio, paired))
TBASE = {"new-t2": "old-t2", "new-t1": "old-t1", "new-w2k1": "old-t1",
         "im2col-t2": "old-t2", "im2col-t1": "old-t1"}
if steps:
    print()
    print("| model | configuration | step ms: median of all steps | p10-p90 | round medians min-max "
          "| steps | vs old |")
    print("|---|---|---|---|---|---|---|")
    for model in ("lenet", "resnet18"):
        for (mm, cfg), v in steps.items():
            if mm != model:
                continue
            s = sorted(v)
            med = statistics.median(s)
            base = TBASE.get(cfg)
            ratio = "-"
            if base and (model, base) in steps:
                ratio = "%.3f x %s" % (med / statistics.median(steps[(model, base)]), base)
            rm = rounds[(mm, cfg)]
            print("| %s | %s | %.1f | %.1f-%.1f | %.1f-%.1f | %d | %s |"
                  % (model, cfg, med * 1e3, s[len(s) // 10] * 1e3, s[(len(s) * 9) // 10] * 1e3,
                     min(rm) * 1e3, max(rm) * 1e3, len(s), ratio))
