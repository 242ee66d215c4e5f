#!/usr/bin/env python3
"""Thread configurations of one tree side by side (docs/benchmarks.md,
"Work-sharing"): batch-1 inference of the zoo's ResNet-18 and Inception-BN
with `mxc run --repeat R --warmup W`, under the default (1 engine worker x 2
kernel threads on 2 cores), 2 workers x 1 kernel thread with work-sharing
(`MXC_ENGINE_SHARE_LOOPS=1`, the default with 2 workers) and without (=0),
and 1 x 1. Each round runs every (model, configuration) once, each in a new
process, in an order rotated per round; the table gives the median over
rounds of the per-process medians, their min-max, and the paired ratio to the
default (each round's median over the default's median of the same round, so
load that drifts between rounds cancels).

    python3 bench/engine/threads.py [--tree .] [--rounds 10] [--repeat 20]
        [--warmup 3] [--models resnet18,inception-bn] [--out results.txt]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict

CONFIGS = [
    ("default (1 worker x 2)", {}),
    ("2 workers x 1, sharing", {"MXC_CPU_WORKER_NTHREADS": "2", "OMP_NUM_THREADS": "1"}),
    ("2 workers x 1, no sharing", {"MXC_CPU_WORKER_NTHREADS": "2", "OMP_NUM_THREADS": "1",
                                   "MXC_ENGINE_SHARE_LOOPS": "0"}),
    ("1 worker x 1", {"MXC_CPU_WORKER_NTHREADS": "1", "OMP_NUM_THREADS": "1"}),
]
CLEAR = ["OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MXC_CPU_WORKER_NTHREADS",
         "MXNET_CPU_WORKER_NTHREADS", "MXC_KERNEL_NTHREADS", "MXC_ENGINE", "MXNET_ENGINE_TYPE",
         "MXC_PROFILE", "MXC_CONV_IMPL", "MXC_ENGINE_SHARE_LOOPS"]


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--tree", default=os.path.dirname(os.path.dirname(here)))
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--models", default="resnet18,inception-bn")
    ap.add_argument("--out", default=os.path.join(here, ".work", "threads.txt"))
    a = ap.parse_args()
    work = os.path.join(here, ".work")
    os.makedirs(work, exist_ok=True)
    mxc = os.path.join(a.tree, "build", "bin", "mxc")
    models = a.models.split(",")
    for m in models:
        sym = os.path.join(work, m + "-symbol.json")
        if not os.path.exists(sym):
            subprocess.run([sys.executable, os.path.join(a.tree, "tools", "zoo", "mxnet_zoo.py"), m,
                            "-o", sym], check=True)

    def run(model, env_extra):
        env = {k: v for k, v in os.environ.items() if k not in CLEAR}
        env.update(MXC_CACHE_DIR=os.path.join(work, "cache-threads"), MXC_QUIET="1")
        env.update(env_extra)
        out = subprocess.run([mxc, "run", os.path.join(work, model + "-symbol.json"),
                              "--shape", "data=1,3,224,224", "--repeat", str(a.repeat),
                              "--warmup", str(a.warmup)], env=env, check=True,
                             capture_output=True, text=True).stdout
        line = next(l for l in out.splitlines() if l.startswith("latency:"))
        return float(line.split()[2])

    log = open(a.out, "w")

    def say(s):
        print(s)
        log.write(s + "\n")
        log.flush()

    say("# %s %s; %s; nproc %d; tree %s" % (
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.uname().release,
        subprocess.run(["git", "-C", a.tree, "rev-parse", "--short", "HEAD"], capture_output=True,
                       text=True).stdout.strip(), os.cpu_count(), a.tree))
    for m in models:  # warm the cache: no round compiles
        run(m, {})
    res = defaultdict(lambda: defaultdict(dict))  # model -> config -> round -> ms
    for r in range(a.rounds):
        say("# round %d, load average %s" % (r, " ".join(open("/proc/loadavg").read().split()[:3])))
        for m in models:
            for i in range(len(CONFIGS)):
                name, env = CONFIGS[(i + r) % len(CONFIGS)]
                ms = run(m, env)
                res[m][name][r] = ms
                say("INFER %s | %s | %.3f" % (m, name, ms))
    say("")
    say("| model | configuration | latency median (ms) | min-max of rounds | paired ratio to the "
        "default, median (min-max) |")
    say("|---|---|---|---|---|")
    for m in models:
        base = res[m][CONFIGS[0][0]]
        for name, _ in CONFIGS:
            v = res[m][name]
            ratios = [v[r] / base[r] for r in v]
            say("| %s | %s | %.1f | %.1f-%.1f | %.3f (%.2f-%.2f) |" % (
                m, name, statistics.median(v.values()), min(v.values()), max(v.values()),
                statistics.median(ratios), min(ratios), max(ratios)))


if __name__ == "__main__":
    main()
