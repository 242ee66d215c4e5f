#!/usr/bin/env python3
"""Runs MXNet 1.9.1's own Gluon unit tests against mxc through the import
shim in shim/ and prints the pass rate per file and the reason of each
failure (docs/gluon.md records the results).

    .venv/bin/python test/python/gluon/mxnet_unittests/run.py --git-dir DIR [--out results.json]
        [--files test_gluon.py,...] [-k EXPR] [--context gpu]

DIR is a (bare) clone of github.com/apache/mxnet with the tag 1.9.1; the test
files are read from it with `git show 1.9.1:tests/python/unittest/<file>`
into a temporary directory next to the shim, never into this repository.
mxc is imported as the tests' `mxnet` from PYTHONPATH (or the build tree).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(HERE))))
FILES = ["test_gluon.py", "test_gluon_data.py", "test_gluon_trainer.py", "test_loss.py",
         "test_gluon_model_zoo.py"]


def first_line(text):
    for line in (text or "").splitlines():
        line = line.strip()
        if line.startswith("E "):
            return line[2:].strip()[:200]
    lines = [l for l in (text or "").splitlines() if l.strip()]
    return (lines[-1].strip() if lines else "")[:200]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--git-dir", required=True)
    ap.add_argument("--tag", default="1.9.1")
    ap.add_argument("--files", default=",".join(FILES))
    ap.add_argument("--out", default=None)
    ap.add_argument("-k", default=None)
    ap.add_argument("--context", choices=("cpu", "gpu"), default="cpu",
                    help="the tests' default context; gpu: gpu(0) of the CUDA driver double "
                         "with the GPU kernels emulated on the host, as "
                         "test/mxnet_unittest/run.py --context gpu")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="mxnet-unittests-")
    for f in os.listdir(os.path.join(HERE, "shim")):
        if f.endswith(".py"):
            # (kept as conftest_shim.py in the repository so that the suite's
            # own pytest run never loads it)
            shutil.copy(os.path.join(HERE, "shim", f),
                        os.path.join(work, "conftest.py" if f == "conftest_shim.py" else f))
    shutil.copytree(os.path.join(HERE, "shim", "mxnet"), os.path.join(work, "mxnet"))
    results = {}
    env = dict(os.environ)
    if "PYTHONPATH" not in env:
        env["PYTHONPATH"] = os.path.join(ROOT, "build", "python_packages")
    env.setdefault("MXC_QUIET", "1")
    if args.context == "gpu":  # (the other harness's set-up, test/mxnet_unittest/run.py)
        import importlib.util  # (by path: both harnesses are a module named run)
        spec = importlib.util.spec_from_file_location(
            "mxnet_unittest_run", os.path.join(ROOT, "test", "mxnet_unittest", "run.py"))
        other = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(other)
        other.gpu_double_env(env)
    for name in args.files.split(","):
        src = subprocess.run(["git", "--git-dir", args.git_dir, "show",
                              "%s:tests/python/unittest/%s" % (args.tag, name)],
                             check=True, stdout=subprocess.PIPE).stdout
        with open(os.path.join(work, name), "wb") as f:
            f.write(src)
        xml = os.path.join(work, name + ".xml")
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", name,
               "--junitxml", xml, "-o", "junit_family=xunit1"]
        if args.k:
            cmd += ["-k", args.k]
        subprocess.run(cmd, cwd=work, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        cases = []
        if os.path.exists(xml):
            for tc in ET.parse(xml).getroot().iter("testcase"):
                status, reason = "passed", ""
                for child in tc:
                    if child.tag in ("failure", "error"):
                        status = "failed"
                        reason = first_line(child.get("message", "") + "\n" + (child.text or ""))
                    elif child.tag == "skipped":
                        status = "skipped"
                        reason = (child.get("message") or "")[:200]
                cases.append({"test": tc.get("name"), "status": status, "reason": reason})
        else:
            cases.append({"test": "(collection)", "status": "failed",
                          "reason": "pytest wrote no report (the file did not import?)"})
        results[name] = cases
        n = {s: sum(c["status"] == s for c in cases) for s in ("passed", "failed", "skipped")}
        ran = n["passed"] + n["failed"]
        print("%-26s passed %3d / %3d run (%5.1f%%), skipped %d" % (
            name, n["passed"], ran, 100.0 * n["passed"] / max(ran, 1), n["skipped"]))
        for c in cases:
            if c["status"] != "passed":
                print("    %-8s %s: %s" % (c["status"], c["test"], c["reason"]))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
