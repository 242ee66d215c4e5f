#!/usr/bin/env python3
"""Fetches MXNet 1.9.1's Python unit tests into test/mxnet_unittest/upstream/
(ignored by git: MXNet's files are never committed here).

    python3 test/mxnet_unittest/fetch.py [--git-dir DIR | --src DIR] [--tag 1.9.1]

--git-dir: a (bare) clone of github.com/apache/mxnet that has the tag; the
files are read with `git --git-dir DIR show TAG:PATH`. Default: $MXNET_GIT_DIR,
else /work/.mirror/apache+mxnet/repo (the mirror the `fetch` tool makes).
--src: an MXNet source tree checked out at the tag instead (files copied).

Written: upstream/tests/python/unittest/*.py (+ the data files they read),
upstream/tests/python/common/models.py, upstream/test_utils.py (MXNet's
python/mxnet/test_utils.py, loaded by the shim as mxnet.test_utils for mxc),
upstream/TAG (the tag and the commit it resolved to).
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_GIT_DIR = "/work/.mirror/apache+mxnet/repo"
UNITTEST = "tests/python/unittest"
# Data files next to the tests that some of them open (test_ndarray's legacy
# load, test_symbol's save_000800.json).
EXTRA = ["tests/python/common/models.py", "tests/python/train/test_bucketing.py",
         "tests/python/train/common.py", "%s/legacy_ndarray.v0" % UNITTEST,
         "%s/save_000800.json" % UNITTEST,
         # MXNet's GPU tests of the operators (run.py --context gpu)
         "tests/python/gpu/test_operator_gpu.py"]


def git(git_dir, *args):
    return subprocess.run(["git", "--git-dir", git_dir] + list(args), check=True,
                          stdout=subprocess.PIPE).stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--git-dir", default=os.environ.get("MXNET_GIT_DIR", DEFAULT_GIT_DIR))
    ap.add_argument("--src", default=None, help="an MXNet source tree at the tag")
    ap.add_argument("--tag", default="1.9.1")
    ap.add_argument("--dest", default=os.path.join(HERE, "upstream"))
    args = ap.parse_args()

    if args.src:
        def read(path):
            with open(os.path.join(args.src, path), "rb") as f:
                return f.read()
        names = [UNITTEST + "/" + n for n in sorted(os.listdir(os.path.join(args.src, UNITTEST)))
                 if n.endswith(".py")]
        commit = "(source tree %s)" % os.path.abspath(args.src)
    else:
        if not os.path.isdir(args.git_dir):
            sys.exit("no MXNet git dir at %s: pass --git-dir or --src" % args.git_dir)
        commit = git(args.git_dir, "rev-list", "-n1", args.tag).decode().strip()

        def read(path):
            return git(args.git_dir, "show", "%s:%s" % (args.tag, path))
        names = [n for n in git(args.git_dir, "ls-tree", "--name-only", args.tag,
                                UNITTEST + "/").decode().split() if n.endswith(".py")]

    if os.path.isdir(args.dest):
        shutil.rmtree(args.dest)
    files = {n: n for n in names + EXTRA}
    files["python/mxnet/test_utils.py"] = "test_utils.py"
    for src, dst in files.items():
        out = os.path.join(args.dest, dst)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as f:
            f.write(read(src))
    with open(os.path.join(args.dest, "TAG"), "w") as f:
        f.write("%s %s\n" % (args.tag, commit))
    print("fetched %d files of MXNet %s (%s) into %s" % (len(files), args.tag, commit, args.dest))


if __name__ == "__main__":
    main()
