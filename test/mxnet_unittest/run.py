#!/usr/bin/env python3
"""Runs MXNet 1.9.1's own Python unit tests (fetched by fetch.py into
upstream/) against mxc, or against MXNet 1.9.1 itself for the baseline, and
writes a report per file: passed / failed / error / skipped, with the
reason (first line of the failure) of every test that did not pass.

    .venv/bin/python test/mxnet_unittest/run.py [--against mxc|mxnet] [--files a.py,b.py]
        [--timeout 60] [--file-timeout 1800] [-k EXPR] [--out results/mxc.json]
        [--context gpu]

--against mxc (default): `import mxnet` is mxc through shim/mxc_shim.py, run
with this interpreter (mxc from $PYTHONPATH, else build/python_packages).
--against mxnet: the same files with MXNet 1.9.1 in .venv-mxnet
(--python to point elsewhere). Each file runs in its own pytest process in
a scratch copy of upstream/tests/python (never in the repository); a test
past --timeout seconds fails as a timeout, and a file whose process dies
(a crash or a test stuck in native code) is restarted without the tests it
already reported. summarize.py turns the JSON into docs/compatibility.md's tables.

--context gpu (mxc only): the tests' default context is mx.gpu(0), as MXNet's
tests/python/gpu/test_operator_gpu.py runs the unittest files
(set_default_context), on the CUDA driver double (build/lib/
libmxc-cuda-host-driver.so) with the CUDA target's kernel mapping emulated
on the host (MXC_TEST_GPU_HOST_KERNELS=emulated; docs/gpu.md): every GPU
path of mxc (device arrays, copies, GPU plans, the kernels' launch shapes)
runs, with the CPU's kernels where the GPU calls cuBLAS / cuDNN. Default
output: results/mxc-gpu.json.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
UPSTREAM = os.path.join(HERE, "upstream")
# The non-Gluon files of tests/python/unittest (the Gluon ones are
# test/python/gluon/mxnet_unittests's; the numpy-mode and sparse files,
# test_numpy_*.py / test_sparse_*.py / test_dgl_graph.py, are outside the
# target); test_operator.py included.
FILES = ["test_attr.py", "test_autograd.py", "test_base.py", "test_contrib_autograd.py",
         "test_engine.py", "test_engine_import.py", "test_exc_handling.py", "test_executor.py",
         "test_infer_shape.py", "test_infer_type.py", "test_init.py", "test_io.py",
         "test_kvstore.py", "test_metric.py", "test_module.py", "test_ndarray.py",
         "test_operator.py", "test_optimizer.py", "test_profiler.py", "test_random.py",
         "test_symbol.py", "test_thread_local.py", "test_viz.py", "test_higher_order_grad.py",
         "test_contrib_operator.py", "test_rnn.py", "test_dynamic_shape.py", "test_runtime.py",
         # the rest of the directory's files that are neither Gluon, numpy-mode
         # nor sparse (added 2026-12-05, evening)
         "test_contrib_control_flow.py", "test_contrib_hawkesll.py", "test_contrib_intgemm.py",
         "test_contrib_io.py", "test_contrib_krprod.py", "test_contrib_optimizer.py",
         "test_contrib_stes_op.py", "test_contrib_svrg_module.py",
         "test_contrib_svrg_optimizer.py", "test_contrib_text.py", "test_dlpack.py",
         "test_image.py", "test_kvstore_custom.py", "test_model_parallel.py",
         "test_multi_device_exec.py", "test_predictor.py", "test_recordio.py",
         "test_test_utils.py", "test_subgraph.py", "test_subgraph_op.py", "test_extensions.py",
         "test_tvm_op.py", "test_metric_perf.py"]
# MXNet's tests/python/gpu files run here (--context gpu): copied next to
# the unittest files they import; their star imports of files outside mxc's
# target (numpy mode, sparse, TVM, the Gluon GPU file) are guarded so that
# the file imports, and only the tests the file itself defines run (the
# imported ones are the unittest files' own, run by their files).
GPU_FILES = ["test_operator_gpu.py"]
PYTEST_INI = """[pytest]
markers =
    seed: MXNet's
    serial: MXNet's
    remote_required: MXNet's
    gpu: MXNet's
    integration: MXNet's
    garbage_expected: MXNet's
    flaky: MXNet's
filterwarnings = ignore
"""


def read_log(path):
    """nodeid -> final record; plus the last test started and not ended."""
    final, started = {}, None
    if not os.path.exists(path):
        return final, started
    with open(path) as f:
        for line in f:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            node = rec["nodeid"]
            if rec["outcome"] == "started":
                started = node
                continue
            if node == started:
                started = None
            old = final.get(node)
            # setup error / call failure / teardown error: the worst one stays
            if old is None or old["outcome"] == "passed" or \
                    (old["outcome"] == "skipped" and rec["outcome"] != "passed"):
                final[node] = rec
    return final, started


def gpu_double_env(env):
    """`env` (a dict) for tests whose default context is gpu(0) of the CUDA
    driver double (build/lib/libmxc-cuda-host-driver.so, 8 GiB) with the GPU
    kernels emulated (the shims read MXC_HARNESS_CONTEXT); also the Gluon
    harness's (test/python/gluon/mxnet_unittests/run.py --context gpu)."""
    driver = os.path.join(ROOT, "build", "lib", "libmxc-cuda-host-driver.so")
    if not os.path.isfile(driver):
        sys.exit("no CUDA driver double at %s (a build with MXC_ENABLE_CUDA)" % driver)
    env.update(MXC_CUDA_DRIVER=driver, MXC_TEST_GPU_HOST_KERNELS="emulated",
               MXC_HARNESS_CONTEXT="gpu")
    env.setdefault("MXC_HOST_DRIVER_MEMORY", str(8 << 30))
    return env


def guard_imports(text):
    """A tests/python/gpu file's `from test_X import ...` lines inside try /
    except ImportError, so that a file outside mxc's target does not stop
    the file from importing; returns the text and the file's own tests."""
    out = []
    for line in text.splitlines():
        if re.match(r"from test_\w+ import ", line):
            out += ["try:", "    " + line,
                    "except BaseException:  # (the mxc harness: a file outside mxc's target; pytest.skip is one)",
                    "    pass"]
        elif re.match(r"del test_\w+", line):
            out += ["try:", "    " + line, "except NameError:", "    pass"]
        else:
            out.append(line)
    own = re.findall(r"^def (test_\w+)\(", text, re.M)
    return "\n".join(out) + "\n", own


def run_file(name, args, work, env):
    log = os.path.join(work, name + ".jsonl")
    if os.path.exists(log):
        os.remove(log)
    env = dict(env, MXC_HARNESS_LOG=log)
    deselect, restarts, t0 = [], 0, time.time()
    while True:
        # (a GPU file: its own tests by node id; -k matches substrings, and
        # test_rnn would select the imported test_rnntanh_sym too)
        targets = ["%s::%s" % (name, t) for t in args.own_tests[name]] \
            if name in GPU_FILES else [name]
        cmd = [args.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"] \
            + targets + ["--continue-on-collection-errors"]
        if args.k:
            cmd += ["-k", args.k]
        for d in deselect:
            cmd += ["--deselect", d]
        left = args.file_timeout - (time.time() - t0)
        try:
            p = subprocess.run(cmd, cwd=os.path.join(work, "tests", "python", "unittest"),
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=max(left, 1))
            rc, tail = p.returncode, p.stdout.decode(errors="replace")[-2000:]
        except subprocess.TimeoutExpired as e:
            rc, tail = "file-timeout", ""
        final, started = read_log(log)
        if rc in (0, 1, 5) or rc == "file-timeout" or restarts >= 25:
            if started and started not in final:
                final[started] = {"nodeid": started, "outcome": "failed",
                                  "reason": "the file's run ended during this test (%s)" % rc}
            if not final and rc not in (0, 5):
                final["(file)"] = {"nodeid": "(file)", "outcome": "error",
                                   "reason": "pytest exited %s: %s" % (
                                       rc, tail.strip().splitlines()[-1] if tail.strip() else "")}
            return final
        # the process died (crash / watchdog): restart without what it reported
        restarts += 1
        if started and started not in final:
            with open(log, "a") as f:
                f.write(json.dumps({"nodeid": started, "outcome": "failed", "when": "call",
                                    "reason": "the process died in this test (exit %s)" % rc})
                        + "\n")
            final, _ = read_log(log)
        deselect = sorted(final)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--against", choices=("mxc", "mxnet"), default="mxc")
    ap.add_argument("--python", default=None)
    ap.add_argument("--files", default=",".join(FILES))
    ap.add_argument("--timeout", type=int, default=60, help="seconds per test")
    ap.add_argument("--file-timeout", type=int, default=1800, help="seconds per file")
    ap.add_argument("-k", default=None)
    ap.add_argument("--out", default=None)
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--context", choices=("cpu", "gpu"), default="cpu",
                    help="the tests' default context (gpu: mxc on the CUDA driver double)")
    ap.add_argument("--merge", action="store_true",
                    help="update only the tests this run reports (with -k: rerun a few tests, "
                         "e.g. timeouts with a longer --timeout) in the file's earlier results")
    args = ap.parse_args()
    if not os.path.isfile(os.path.join(UPSTREAM, "test_utils.py")):
        sys.exit("no MXNet files in %s: run test/mxnet_unittest/fetch.py first" % UPSTREAM)
    if args.python is None:
        args.python = sys.executable if args.against == "mxc" else \
            os.path.join(ROOT, ".venv-mxnet", "bin", "python")
    if args.context == "gpu" and args.against != "mxc":
        sys.exit("--context gpu runs mxc on the CUDA driver double (MXNet 1.9.1 from PyPI has no GPU)")
    if args.out is None:
        args.out = os.path.join(HERE, "results", args.against +
                                ("-gpu" if args.context == "gpu" else "") + ".json")

    work = tempfile.mkdtemp(prefix="mxnet-unittest-%s-" % args.against)
    shutil.copytree(os.path.join(UPSTREAM, "tests"), os.path.join(work, "tests"))
    unit = os.path.join(work, "tests", "python", "unittest")
    for f in ("shim_common.py", "mxc_shim.py"):
        shutil.copy(os.path.join(HERE, "shim", f), unit)
    args.own_tests = {}
    for name in GPU_FILES:
        src = os.path.join(UPSTREAM, "tests", "python", "gpu", name)
        if os.path.isfile(src):
            with open(src) as f:
                text, args.own_tests[name] = guard_imports(f.read())
            with open(os.path.join(unit, name), "w") as f:
                f.write(text)
    shutil.copy(os.path.join(HERE, "shim", "conftest_%s.py" % args.against),
                os.path.join(unit, "conftest.py"))
    with open(os.path.join(unit, "pytest.ini"), "w") as f:
        f.write(PYTEST_INI)
    env = dict(os.environ, MXC_HARNESS_TEST_TIMEOUT=str(args.timeout),
               MXC_HARNESS_TEST_UTILS=os.path.join(UPSTREAM, "test_utils.py"),
               MXNET_HOME=os.path.join(work, "mxnet_home"), MXC_QUIET="1",
               PYTHONDONTWRITEBYTECODE="1")
    if args.against == "mxc":
        env.setdefault("PYTHONPATH", os.path.join(ROOT, "build", "python_packages"))
    else:
        env.pop("PYTHONPATH", None)
        env.setdefault("OMP_NUM_THREADS", "2")
    if args.context == "gpu":
        gpu_double_env(env)

    missing = [n for n in args.files.split(",") if n in GPU_FILES and not args.own_tests.get(n)]
    if missing:
        sys.exit("no %s in %s: run test/mxnet_unittest/fetch.py again" % (missing[0], UPSTREAM))
    results = {}
    if os.path.exists(args.out):
        with open(args.out) as f:
            results = json.load(f)      # keep the other files' results
    for name in args.files.split(","):
        t0 = time.time()
        final = run_file(name, args, work, env)
        cases = [{"test": node.split("::", 1)[-1], "status": rec["outcome"],
                  "reason": rec.get("reason", "")} for node, rec in sorted(final.items())]
        if args.merge and name in results:
            new = {c["test"]: c for c in cases}
            cases = [new.pop(c["test"], c) for c in results[name]["cases"]] + list(new.values())
        results[name] = {"cases": cases, "seconds": round(time.time() - t0, 1),
                         "against": args.against}
        n = {s: sum(c["status"] == s for c in cases) for s in ("passed", "failed", "error",
                                                               "skipped")}
        ran = n["passed"] + n["failed"] + n["error"]
        print("%-28s passed %3d / %3d (%5.1f%%)  failed %3d  error %3d  skipped %3d  %6.1fs" % (
            name, n["passed"], ran, 100.0 * n["passed"] / max(ran, 1), n["failed"], n["error"],
            n["skipped"], time.time() - t0), flush=True)
        if not args.quiet:
            for c in cases:
                if c["status"] not in ("passed",):
                    print("    %-7s %s: %s" % (c["status"], c["test"], c["reason"][:160]))
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
