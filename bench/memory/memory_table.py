#!/usr/bin/env python3
"""The paper's memory table (Chen et al. 2015, Figure 7) with mxc's numbers.

Runs `mxc memory-report` on zoo networks (tools/zoo/mxnet_zoo.py) at one
batch size, for inference and training (forward + backward), and writes

  * a Markdown table on stdout (pasted into docs/memory.md),
  * OUT.json with every number (bytes as MB, 2^20),
  * OUT.png, a grouped bar chart (matplotlib).

usage: memory_table.py --mxc build/bin/mxc [--batch 64]
                       [--models alexnet googlenet vgg16] [--out docs/memory]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ROWS = ["none", "inplace", "coshare", "both", "lower-bound"]


def report(mxc, symbol, batch, train):
    """The numbers of one `mxc memory-report` run (MB), or an error string."""
    cmd = [mxc, "memory-report", symbol, "--shape", "data=%d,3,224,224" % batch]
    if train:
        cmd.append("--train")
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return p.stderr.strip() or "exit %d" % p.returncode
    out = {}
    for line in p.stdout.splitlines():
        m = re.match(r"^\s+(none|inplace|coshare|both|lower-bound)\s+([0-9.]+) MB", line)
        if m:
            out[m.group(1)] = float(m.group(2))
        m = re.match(r"^graph naive .*: ([0-9.]+) MB", line)
        if m:
            out["graph-naive"] = float(m.group(1))
        m = re.match(r"^internal memory: (\d+) buffers", line)
        if m:
            out["buffers"] = int(m.group(1))
    missing = [r for r in ROWS + ["graph-naive"] if r not in out]
    if missing:
        return "unparsed output (missing %s): %s" % (missing, p.stdout)
    return out


def chart(results, models, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = [("graph-naive", "naive (graph)"), ("none", "none (bufferized)"),
              ("inplace", "inplace"), ("coshare", "co-share"), ("both", "both"),
              ("lower-bound", "lower bound")]
    modes = ["inference", "training"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    width = 0.8 / len(series)
    for ax, mode in zip(axes, modes):
        for k, (key, label) in enumerate(series):
            xs, ys = [], []
            for i, model in enumerate(models):
                r = results.get(model, {}).get(mode)
                if isinstance(r, dict):
                    xs.append(i + (k - (len(series) - 1) / 2) * width)
                    ys.append(r[key] / 1024.0)
            ax.bar(xs, ys, width, label=label)
        ax.set_xticks(range(len(models)))
        ax.set_xticklabels(models)
        ax.set_ylabel("internal memory (GB, 2^30 bytes)")
        ax.set_title("%s, batch %d" % (mode, results["batch"]))
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle("mxc memory planning (mx-plan-memory), Chen et al. 2015 Fig. 7 setting")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mxc", default=os.path.join(ROOT, "build", "bin", "mxc"))
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--models", nargs="+", default=["alexnet", "googlenet", "vgg16", "resnet50"])
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "memory"),
                    help="writes OUT.json and OUT.png")
    args = ap.parse_args()

    results = {"batch": args.batch}
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models:
            symbol = os.path.join(tmp, model + "-symbol.json")
            subprocess.run([sys.executable, os.path.join(ROOT, "tools", "zoo", "mxnet_zoo.py"),
                            model, "-o", symbol], check=True)
            results[model] = {}
            for mode in ["inference", "training"]:
                results[model][mode] = report(args.mxc, symbol, args.batch, mode == "training")

    print("| network | mode | naive (graph) | none | inplace | co-share | both | lower bound | naive / both | none / both |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for model in args.models:
        for mode in ["inference", "training"]:
            r = results[model][mode]
            if not isinstance(r, dict):
                print("| %s | %s | %s |||||||| " % (model, mode, "failed: " + r.splitlines()[0]))
                continue
            print("| %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.2fx | %.2fx |" % (
                model, mode, r["graph-naive"], r["none"], r["inplace"], r["coshare"],
                r["both"], r["lower-bound"], r["graph-naive"] / r["both"],
                r["none"] / r["both"]))
    with open(args.out + ".json", "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
        f.write("\n")
    chart(results, args.models, args.out + ".png")
    print("\n(MB = 2^20 bytes; wrote %s.json and %s.png)" % (args.out, args.out), file=sys.stderr)


if __name__ == "__main__":
    main()
