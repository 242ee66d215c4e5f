#!/usr/bin/env python3
"""Where mxc's forward time goes: `perf record` of `mxc run --repeat N` on the
files bench.py left in .work/, samples bucketed by function.

    .venv-bench/bin/python bench/cpu_inference/profile_mxc.py [--nets ...]
        [--batches 1,16] [--threads 2]

Run bench.py first (it writes the symbol JSON, .params and inputs). Sampling
starts after the start-up (reading the .params, loading the cached object,
one untimed pass: `perf record --delay`), so the buckets are those of the
forward passes. The buckets are shares of all the process's samples, every
thread together (the runtime runs a graph's steps on its executor and
kernel-pool threads, not only on the main thread, so no one thread's samples
split the wall time any more). `busiest thread` is the share of the samples
on the one thread with the most (about 50% when the work is spread over two
threads, near 100% when it is serial); `waiting` is the share spent in
sched/yield and OpenBLAS's wait loop (a thread pool's own spin loop counts as
`runtime other`). `perf stat` adds the page faults per
forward pass (first touches of freshly mapped buffers). Needs `perf` (and perf_event_paranoid allowing
user sampling).

Buckets:
  gemm kernel    OpenBLAS sgemm compute kernels
  gemm packing   OpenBLAS panel copies (sgemm_*copy) and beta scaling
  openblas other OpenBLAS without symbols (the thread server's wait loop)
  im2col         the runtime's im2col (mxc_kernel_conv_f32)
  runtime other  the rest of libmxc_runtime (bias, 1x1 paths, thread pool, plt stubs)
  oneDNN         libdnnl (its convolution drivers and reorders) and, when it
                 names them through a perf map (DNNL_JIT_PROFILE=1 is set), its
                 JIT-compiled convolution kernels
  generated      the JIT-compiled code: every op that is not a library call
                 (BatchNorm, ReLU, pooling, add, LRN, Concat copies, softmax),
                 and any anonymous JIT code perf cannot name (oneDNN's kernels
                 too when its perf map is missing: Debian's libdnnl may be
                 built without JIT profiling)
  memcpy/memset  libc copies and fills (im2col rows and padding, 1x1 unfolds)
  libm           libm calls from the generated code (powf: LRN)
  page faults    kernel memory management (first touch of fresh buffers)
  sched/yield    kernel scheduling and sched_yield (thread hand-offs)
  other
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

BUCKETS = [
    ("gemm kernel", lambda d, s: "openblas" in d and re.search(r"sgemm_(small_)?kernel", s)),
    ("gemm packing", lambda d, s: "openblas" in d and re.search(r"copy|sgemm_beta", s)),
    ("openblas other", lambda d, s: "openblas" in d),
    ("im2col", lambda d, s: "mxc_runtime" in d and "im2col" in s),
    ("runtime other", lambda d, s: "mxc_runtime" in d),
    ("oneDNN", lambda d, s: "dnnl" in d or re.match(r"(dnnl|jit_|brgemm)", s)),
    ("generated", lambda d, s: d.startswith("[JIT]") or d.startswith("//anon")),
    ("memcpy/memset", lambda d, s: "libc" in d and re.search(r"mem(move|cpy|set)", s)),
    ("libm", lambda d, s: "libm." in d),
    ("page faults", lambda d, s: "kernel" in d and re.search(
        r"page|fault|folio|pte|mm_|memcg|mem_cgroup|lruvec|vma|unmap|rmap|charge|alloc|free|"
        r"lock_vma|mas_|tlb|zap|css_", s)),
    ("sched/yield", lambda d, s: ("kernel" in d and re.search(
        r"sched|schedule|syscall|switch|yield|futex|irq|softirq|entry|raw_spin|queued_spin", s))
        or "sched_yield" in s),
]


def bucket(dso, sym):
    for name, pred in BUCKETS:
        if pred(dso, sym):
            return name
    return "other"


def per_thread_shares(report, bucket, names):
    """{thread id: {bucket name: percent}} of `perf report --sort pid,dso,sym
    --stdio -F overhead,pid,dso,sym` output. A thread's name may hold spaces
    ("mxc cpu worker": until 2026-12-06 its lines did not match and were
    left out)."""
    per_thread = {}
    for line in report.splitlines():
        m = re.match(r"\s*([0-9.]+)%\s+(\d+):.*?\s+(\[JIT\] tid \d+|\S+)\s+\[[.k]\]\s+(.*)",
                     line)
        if m:
            t = per_thread.setdefault(int(m.group(2)), {n: 0.0 for n in names})
            t[bucket(m.group(3), m.group(4))] += float(m.group(1))
    return per_thread


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--nets", "--models", dest="models",
                   default="resnet18,resnet50,vgg11,alexnet,inception-bn,mobilenet-v2")
    p.add_argument("--batches", default="1,16")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seconds", type=float, default=6.0, help="profiled time per case")
    p.add_argument("--repeat", type=int, default=10, help="passes for the forward time")
    p.add_argument("--mxc", default=os.path.join(ROOT, "build", "bin", "mxc"))
    p.add_argument("--work", default=os.path.join(HERE, ".work"))
    a = p.parse_args()
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(a.threads), OMP_NUM_THREADS=str(a.threads),
               DNNL_JIT_PROFILE="1")
    env.setdefault("MXC_CACHE_DIR", os.path.join(a.work, "cache"))
    names = [b[0] for b in BUCKETS] + ["other"]
    print("| model | batch | forward ms | page faults / forward | "
          + " | ".join(names) + " | busiest thread | waiting |")
    print("|" + "---|" * (6 + len(names)))
    for model in a.models.split(","):
        for batch in [int(b) for b in a.batches.split(",")]:
            base = [a.mxc, "run", os.path.join(a.work, "%s-symbol.json" % model),
                    "--shape", "data=%d,3,224,224" % batch,
                    "--params", os.path.join(a.work, "%s-0000.params" % model),
                    "--input", "data=" + os.path.join(a.work, "%s-x%d.npy" % (model, batch))]
            # Start-up time and one forward pass.
            t0 = time.time()
            out = subprocess.run(base + ["--warmup", "1", "--repeat", str(a.repeat)], env=env, check=True,
                                 capture_output=True, text=True).stdout
            startup_ms = (time.time() - t0) * 1e3
            fwd = float(re.search(r"latency: median ([0-9.]+)", out).group(1))
            reps = max(5, int(a.seconds * 1e3 / fwd))
            delay = int(startup_ms - (a.repeat - 1) * fwd)  # skips start-up and ~2 passes
            with tempfile.TemporaryDirectory() as tmp:
                data = os.path.join(tmp, "perf.data")
                subprocess.run(["perf", "record", "-q", "-F", "2000", "-D", str(delay), "-o", data,
                                "--"] + base + ["--warmup", "0", "--repeat", str(reps)],
                               env=env, check=True, capture_output=True)
                rep = subprocess.run(["perf", "report", "-i", data, "--sort", "pid,dso,sym",
                                      "--stdio", "-F", "overhead,pid,dso,sym"],
                                     capture_output=True, text=True).stdout
                st = subprocess.run(["perf", "stat", "-x,", "-e",
                                     "task-clock,page-faults,context-switches", "--"] + base +
                                    ["--warmup", "0", "--repeat", str(reps)],
                                    env=env, capture_output=True, text=True).stderr
                st1 = subprocess.run(["perf", "stat", "-x,", "-e",
                                      "task-clock,page-faults,context-switches", "--"] + base +
                                     ["--warmup", "0", "--repeat", "1"],
                                     env=env, capture_output=True, text=True).stderr
            per_thread = per_thread_shares(rep, bucket, names)
            total = sum(sum(t.values()) for t in per_thread.values()) or 1.0
            shares = {n: 100.0 * sum(t[n] for t in per_thread.values()) / total for n in names}
            busiest = 100.0 * max(sum(t.values()) for t in per_thread.values()) / total \
                if per_thread else 0.0
            waiting = shares["sched/yield"] + shares["openblas other"]

            def counters(text):
                c = {}
                for l in text.splitlines():
                    f = l.split(",")
                    if len(f) > 3 and f[0].replace(".", "").isdigit():
                        c[f[2]] = float(f[0])
                return c
            cn, c1 = counters(st), counters(st1)
            per = lambda k: (cn.get(k, 0) - c1.get(k, 0)) / (reps - 1)  # noqa: E731
            print("| %s | %d | %.1f | %.0f | %s | %.0f%% | %.0f%% |" % (
                model, batch, fwd, per("page-faults"),
                " | ".join("%.0f%%" % shares[n] for n in names), busiest, waiting))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
