#!/usr/bin/env python3
"""Time to the first result of fresh small graphs: what MXNet's operator
tests and an imperative session do (a new shape or operator, run once or
twice), where mxc's time is the JIT's compile. One workload per process,
each with an empty JIT disk cache:

  symbolic   `broadcast_add` / `elemwise_mul` / `exp` training graphs at
             --graphs distinct small shapes: simple_bind, forward(is_train),
             backward (MXNet's check_symbolic_forward / backward pattern)
  imperative mx.nd tanh(x) * 3 + x at --graphs distinct shapes, first call
  steady     runs of one (256, 64) graph (exp, mul, sum) on the fast tier and
             after tier_up (microseconds a run: the -O0 code's cost)

    bench/compile/run.sh                      # builds mxc-python, runs all
    PYTHONPATH=build/python_packages .venv/bin/python bench/compile/bench.py \\
        --framework mxc|mxnet|torch --workload symbolic|imperative|steady

mxc runs twice: tiered (the default: small graphs at LLVM -O0 first) and
with MXC_JIT_TIERED=0 (-O3 at once, as before tiered compilation). MXNet
1.9.1 (.venv-mxnet) and PyTorch eager (.venv-bench) compile nothing: their
rows are the interpreter's cost for the same calls, for scale.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def shapes(n):
    out = []
    for i in range(n):
        out.append((2 + i % 7, 3 + (i * 5) % 11, 1 + (i * 3) % 4))
    return out


def symbolic_mx(mx, np, n):
    ops = [lambda a, b: mx.sym.broadcast_add(a, b), lambda a, b: a * b,
           lambda a, b: mx.sym.exp(a) + b]
    times = []
    for i, s in enumerate(shapes(n)):
        t = time.perf_counter()
        a, b = mx.sym.Variable("a"), mx.sym.Variable("b")
        y = ops[i % 3](a, b)
        ex = y.simple_bind(mx.cpu(), a=s, b=s)
        ex.forward(is_train=True, a=mx.nd.ones(s), b=mx.nd.ones(s))
        ex.backward(mx.nd.ones(s))
        ex.grad_dict["a"].asnumpy()
        times.append(time.perf_counter() - t)
    return times


def imperative_mx(mx, np, n):
    times = []
    for s in shapes(n):
        x = mx.nd.ones(s)
        t = time.perf_counter()
        (mx.nd.tanh(x) * 3 + x).asnumpy()
        times.append(time.perf_counter() - t)
    return times


def steady_mxc(mx, np, n):
    from mxc import _mxc
    a, b = mx.sym.Variable("a"), mx.sym.Variable("b")
    y = mx.sym.broadcast_add(mx.sym.exp(a) * b, mx.sym.sum(a, axis=1, keepdims=True))
    c = _mxc.compile(y.tojson(), {"a": [256, 64], "b": [256, 64]},
                     {"a": "float32", "b": "float32"}, disk_cache=False)
    ins = [np.ones((256, 64), np.float32)] * 2
    out = np.empty((256, 64), np.float32)

    def per_run():
        for _ in range(20):
            c.run(ins, [out])
        t = time.perf_counter()
        for _ in range(200):
            c.run(ins, [out])
        return (time.perf_counter() - t) / 200

    fast = per_run() if c.fast_tier else float("nan")
    c.tier_up()
    return [fast, per_run()]


def symbolic_torch(torch, n):
    ops = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: torch.exp(a) + b]
    times = []
    for i, s in enumerate(shapes(n)):
        t = time.perf_counter()
        a = torch.ones(s, requires_grad=True)
        b = torch.ones(s, requires_grad=True)
        ops[i % 3](a, b).backward(torch.ones(s))
        a.grad.numpy()
        times.append(time.perf_counter() - t)
    return times


def imperative_torch(torch, n):
    times = []
    for s in shapes(n):
        x = torch.ones(s)
        t = time.perf_counter()
        (torch.tanh(x) * 3 + x).numpy()
        times.append(time.perf_counter() - t)
    return times


def worker(args):
    import numpy as np
    if args.framework == "torch":
        import torch
        torch.set_num_threads(2)
        fn = {"symbolic": symbolic_torch, "imperative": imperative_torch}[args.workload]
        times = fn(torch, args.graphs)
    else:
        if args.framework == "mxnet":
            import mxnet as mx
        else:
            import mxc as mx
        fn = {"symbolic": symbolic_mx, "imperative": imperative_mx,
              "steady": steady_mxc}[args.workload]
        times = fn(mx, np, args.graphs)
    print(json.dumps(times))


def run_one(python, framework, workload, graphs, env_extra):
    env = dict(os.environ, MXC_QUIET="1", OMP_NUM_THREADS="2", OPENBLAS_NUM_THREADS="2",
               **env_extra)
    with tempfile.TemporaryDirectory() as cache:
        env["MXC_CACHE_DIR"] = cache
        p = subprocess.run([python, "-W", "ignore", __file__, "--worker", "--framework", framework,
                            "--workload", workload, "--graphs", str(graphs)],
                           env=env, capture_output=True, text=True, timeout=1800)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1:]
    return json.loads(p.stdout.strip().splitlines()[-1]), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--framework", default="mxc")
    ap.add_argument("--workload", default="symbolic")
    ap.add_argument("--graphs", type=int, default=60)
    ap.add_argument("--mxnet-python", default=os.path.join(ROOT, ".venv-mxnet", "bin", "python"))
    ap.add_argument("--torch-python", default=os.path.join(ROOT, ".venv-bench", "bin", "python"))
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    rows = [("mxc, tiered (default)", sys.executable, "mxc", {}),
            ("mxc, -O3 at once (MXC_JIT_TIERED=0)", sys.executable, "mxc",
             {"MXC_JIT_TIERED": "0"}),
            ("MXNet 1.9.1 (no compile)", args.mxnet_python, "mxnet", {}),
            ("PyTorch eager (no compile)", args.torch_python, "torch", {})]
    print("time to the first result of %d fresh small graphs, ms per graph "
          "(median; mean)\n" % args.graphs)
    print("| framework | symbolic: bind + forward + backward | imperative: first call |")
    print("|---|---|---|")
    base = {}
    for name, py, fw, env in rows:
        cells = []
        for wl in ("symbolic", "imperative"):
            if not os.path.exists(py):
                cells.append("(no %s)" % os.path.relpath(py, ROOT))
                continue
            t, err = run_one(py, fw, wl, args.graphs, env)
            if t is None:
                cells.append("failed: %s" % err)
                continue
            med, mean = statistics.median(t) * 1e3, statistics.mean(t) * 1e3
            base.setdefault(wl, med)
            cells.append("%.2f; %.2f (%.2fx)" % (med, mean, med / base[wl]))
        print("| %s | %s | %s |" % (name, cells[0], cells[1]))
    t, err = run_one(sys.executable, "mxc", "steady", 0, {})
    if t is not None:
        print("\nsteady state, one (256, 64) graph (exp, mul, row sum): %.1f us a run on the fast "
              "tier (-O0), %.1f us after tier_up (-O3)" % (t[0] * 1e6, t[1] * 1e6))
    else:
        print("\nsteady: failed: %s" % err)


if __name__ == "__main__":
    main()
