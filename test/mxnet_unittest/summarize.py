#!/usr/bin/env python3
"""Tables for docs/compatibility.md from run.py's reports.

    python3 test/mxnet_unittest/summarize.py [results/mxc.json] [results/mxnet.json]

Per file: passed / run for mxc and for MXNet 1.9.1 (run = passed + failed +
error), the tests excluded on mxc (skipped with "excluded: sparse storage" /
"numpy mode"), how many of the tests MXNet passes, less those, mxc passes
too, and the most common first lines of mxc's failures (numbers and
addresses folded so that one cause is one line).
"""
import collections
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path):
    with open(path) as f:
        return json.load(f)


def counts(cases):
    n = collections.Counter(c["status"] for c in cases)
    return n["passed"], n["passed"] + n["failed"] + n["error"], n["skipped"]


def cause(reason):
    r = re.sub(r"/tmp/\S+", "<path>", reason)
    r = re.sub(r"0x[0-9a-f]+", "<addr>", r)
    r = re.sub(r"\(\d+(, \d+)*,?\)", "(<shape>)", r)
    r = re.sub(r"\b\d+(\.\d+)?(e-?\d+)?\b", "N", r)
    return r[:150]


def main():
    mxc = load(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "results", "mxc.json"))
    mxp = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "results", "mxnet.json")
    mxn = load(mxp) if os.path.exists(mxp) else {}
    print("| file | mxc passed / run | MXNet 1.9.1 passed / run | excluded (mxc) |"
          " of MXNet's passes not excluded, mxc passes |")
    print("|---|---|---|---|---|")
    tot = [0, 0, 0, 0, 0, 0, 0]
    for name in sorted(mxc):
        cases = mxc[name]["cases"]
        p, r, s = counts(cases)
        mine = {c["test"] for c in cases if c["status"] == "passed"}
        excluded = {c["test"] for c in cases if c["status"] == "skipped" and
                    c["reason"].startswith(("excluded:", "Skipped: excluded:"))}
        if name in mxn:
            mp, mr, _ = counts(mxn[name]["cases"])
            theirs = {c["test"] for c in mxn[name]["cases"] if c["status"] == "passed"} - excluded
            both = len(mine & theirs)
            col, col2 = "%d / %d" % (mp, mr), "%d / %d" % (both, len(theirs))
            tot[2] += mp; tot[3] += mr; tot[4] += both; tot[5] += len(theirs)
        else:
            col = col2 = "(not run)"
        tot[0] += p; tot[1] += r; tot[6] += len(excluded)
        print("| %s | %d / %d | %s | %d | %s |" % (name, p, r, col, len(excluded), col2))
    print("| **total** | **%d / %d** (%.0f%%) | **%d / %d** | %d | **%d / %d** (%.0f%%) |" % (
        tot[0], tot[1], 100.0 * tot[0] / max(tot[1], 1), tot[2], tot[3], tot[6], tot[4], tot[5],
        100.0 * tot[4] / max(tot[5], 1)))
    print()
    causes = collections.Counter()
    for name, v in mxc.items():
        for c in v["cases"]:
            if c["status"] in ("failed", "error"):
                causes[cause(c["reason"])] += 1
    print("| mxc failures | cause (first line, numbers folded) |")
    print("|---|---|")
    for text, n in causes.most_common(int(os.environ.get("TOP", "30"))):
        print("| %d | `%s` |" % (n, text.replace("|", "\\|").replace("`", "'")))


if __name__ == "__main__":
    main()
