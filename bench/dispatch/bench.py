#!/usr/bin/env python3
"""Imperative dispatch overhead: microseconds per small operator call on a
cache hit, mxc's `mx.nd` against PyTorch eager, in one process, same machine.

    bench/dispatch/run.sh                      # builds mxc-python, runs this
    PYTHONPATH=build/python_packages .venv-bench/bin/python bench/dispatch/bench.py
        [--number 2000] [--repeat 15] [--threads 2] [--profile]

Every case is a tiny operator (1x1, 32x32 elementwise, 16x16 dot), so the
time is almost all dispatch: Python wrapper, cache lookup, output allocation,
extension call, the compiled function. Method: each call is made once
untimed (mxc compiles it then: the measured calls are cache hits), then
`timeit`-style: --repeat rounds of --number calls each, mxc and PyTorch
interleaved round by round (so both see the same background load); the table
gives the median (and min) of the per-round means in microseconds per call.

Besides the whole call, mxc's layers are timed on `add 32x32` (see
`breakdown`): the cache lookup (`compiled_op`), output allocation
(`np.empty`), the extension call alone (`Compiled.run` on preallocated
arrays), and `Compiled.run` of the same op at 1x1 (so the compiled loop
itself is negligible). --profile adds a cProfile of 20000 `add 32x32` calls.

Threads: OMP/MKL/OPENBLAS_NUM_THREADS = --threads before import, and
torch.set_num_threads(--threads), as bench/cpu_inference does.
"""
import argparse
import os
import statistics
import sys
import time
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--number", type=int, default=2000, help="calls per round")
    p.add_argument("--repeat", type=int, default=15, help="rounds")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--profile", action="store_true", help="cProfile mx.nd add 32x32")
    return p.parse_args()


ARGS = parse_args()
for v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[v] = str(ARGS.threads)
os.environ.setdefault("MXC_CACHE_DIR", os.path.join(HERE, ".work", "cache"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import mxc as mx  # noqa: E402
from mxc import ndarray as mxnd  # noqa: E402

torch.set_num_threads(ARGS.threads)


def cpu_snapshot():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    busy = (v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)) / os.sysconf("SC_CLK_TCK")
    t = os.times()
    return time.time(), busy, t.user + t.system


def other_cpu(a, b):
    wall = b[0] - a[0]
    return max(0.0, 100.0 * ((b[1] - a[1]) - (b[2] - a[2])) / (wall * (os.cpu_count() or 1)))


def cases():
    """(name, mxc callable, torch callable); inputs built here, the same values."""
    rng = np.random.default_rng(0)
    out = []

    def pair(shape):
        a = rng.standard_normal(shape, dtype=np.float32)
        b = rng.standard_normal(shape, dtype=np.float32)
        return (mx.nd.array(a), mx.nd.array(b), torch.from_numpy(a.copy()), torch.from_numpy(b.copy()))

    for n in (1, 32):
        ma, mb, ta, tb = pair((n, n))
        out.append(("elemwise_add %dx%d" % (n, n),
                    lambda ma=ma, mb=mb: mx.nd.elemwise_add(ma, mb),
                    lambda ta=ta, tb=tb: torch.add(ta, tb)))
        out.append(("a + b (operator) %dx%d" % (n, n),
                    lambda ma=ma, mb=mb: ma + mb, lambda ta=ta, tb=tb: ta + tb))
        out.append(("relu %dx%d" % (n, n),
                    lambda ma=ma: mx.nd.relu(ma), lambda ta=ta: torch.relu(ta)))
        row = rng.standard_normal((1, n), dtype=np.float32)
        mr, tr = mx.nd.array(row), torch.from_numpy(row.copy())
        out.append(("broadcast_mul %dx%d * 1x%d" % (n, n, n),
                    lambda ma=ma, mr=mr: mx.nd.broadcast_mul(ma, mr),
                    lambda ta=ta, tr=tr: torch.mul(ta, tr)))
    ma, mb, ta, tb = pair((16, 16))
    out.append(("dot 16x16", lambda: mx.nd.dot(ma, mb), lambda: torch.mm(ta, tb)))
    ma, mb, ta, tb = pair((1, 1))
    out.append(("add_scalar 1x1 (a + 1.0)", lambda: ma + 1.0, lambda: ta + 1.0))
    return out


def check(name, fm, ft):
    a = fm().asnumpy()
    b = ft().numpy()
    if a.shape != b.shape or not np.allclose(a, b, rtol=1e-5, atol=1e-6):
        sys.exit("dispatch: %s: mxc and torch results differ" % name)


def time_us(fn, number):
    return timeit.Timer(fn).timeit(number) / number * 1e6


def bench(pairs):
    """{name: [mxc round means], [torch round means]} with interleaved rounds."""
    res = {name: ([], []) for name, *_ in pairs}
    for name, fm, ft in pairs:  # warm-up: compile, first allocations
        for _ in range(200):
            fm()
            ft()
    for r in range(ARGS.repeat):
        for name, fm, ft in pairs:
            first = (fm, ft) if r % 2 == 0 else (ft, fm)
            for fn in first:
                t = time_us(fn, ARGS.number)
                res[name][0 if fn is fm else 1].append(t)
    return res


def fmt(xs):
    return "%.2f (%.2f)" % (statistics.median(xs), min(xs))


def breakdown():
    """mxc's layers for `add 32x32` (elemwise_add): each timed alone."""
    layers = []
    for n in (32, 1):
        a = mx.nd.array(np.ones((n, n), np.float32))
        b = mx.nd.array(np.ones((n, n), np.float32))
        spec = mxnd._ops.OP_NAMES["elemwise_add"]
        attrs = spec.format_attrs({})
        in_specs = [((n, n), "float32"), ((n, n), "float32")]
        compiled, _ = mxnd.compiled_op(spec, attrs, in_specs, "elemwise_add")
        ins, outs = [a._data, b._data], [np.empty((n, n), np.float32)]
        fns = [("Compiled.run on preallocated arrays, %dx%d" % (n, n), lambda c=compiled, i=ins, o=outs: c.run(i, o))]
        if n == 32:
            fns = [("whole call mx.nd.elemwise_add, 32x32", lambda: mx.nd.elemwise_add(a, b)),
                   ("cache lookup: spec.format_attrs + compiled_op(...)",
                    lambda: mxnd.compiled_op(spec, spec.format_attrs({}), in_specs, "elemwise_add")),
                   ("np.empty((32, 32)) output", lambda: np.empty((32, 32), np.float32)),
                   ("NDArray(result) wrapper", lambda: mx.nd.NDArray(outs[0], a._ctx)),
                   ("Compiled.inputs + .outputs reads (lists built per read)",
                    lambda c=compiled: (c.inputs, c.outputs)),
                   ("autograd.is_training() + is_recording()",
                    lambda: (mx.autograd.is_training(), mx.autograd.is_recording())),
                   ] + fns
        for label, fn in fns:
            for _ in range(200):
                fn()
            ts = [time_us(fn, ARGS.number) for _ in range(max(5, ARGS.repeat // 2))]
            layers.append((label, statistics.median(ts)))
    return layers


def profile():
    import cProfile
    import io
    import pstats
    a = mx.nd.array(np.ones((32, 32), np.float32))
    b = mx.nd.array(np.ones((32, 32), np.float32))
    mx.nd.elemwise_add(a, b)
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(20000):
        mx.nd.elemwise_add(a, b)
    pr.disable()
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(14)
    print(s.getvalue())


def main():
    print("dispatch benchmark, %s UTC, load average %s, torch %s (%d threads), numpy %s"
          % (time.strftime("%Y-%m-%d %H:%M", time.gmtime()), " ".join(open("/proc/loadavg").read().split()[:3]),
             torch.__version__, torch.get_num_threads(), np.__version__))
    pairs = cases()
    for name, fm, ft in pairs:
        check(name, fm, ft)
    s0 = cpu_snapshot()
    res = bench(pairs)
    s1 = cpu_snapshot()
    print("\nmicroseconds per call, median (min) of %d rounds x %d calls; other CPU %.1f%%\n"
          % (ARGS.repeat, ARGS.number, other_cpu(s0, s1)))
    print("| op | mxc mx.nd | PyTorch eager | mxc / PyTorch |")
    print("|---|---|---|---|")
    for name, _, _ in pairs:
        m, t = res[name]
        print("| %s | %s | %s | %.1f |" % (name, fmt(m), fmt(t), statistics.median(m) / statistics.median(t)))
    print("\nmxc layers (median us per call):\n")
    print("| layer | us |")
    print("|---|---|")
    for label, us in breakdown():
        print("| %s | %.2f |" % (label, us))
    print("\nload average after: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
    if ARGS.profile:
        profile()


if __name__ == "__main__":
    main()
