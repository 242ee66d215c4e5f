#!/usr/bin/env python3
"""Plots engine traces (MXC_PROFILE / mx.profiler Chrome-trace JSON) as a
timeline: one row per engine worker, one bar per plan step of the last run
of the graph in each trace.

    python3 tools/trace/plot_trace.py -o docs/resnet18_trace.png \
        "1 worker x 2 kernel threads=trace-1w.json" "2 workers x 1=trace-2w.json"

A run is recognised as the steps from the last occurrence of the first
step's name (the graph's first node) to the end of the trace.
"""
import argparse
import json

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def last_run(path):
    trace = json.load(open(path))["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in trace
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    steps = sorted((e for e in trace if e.get("ph") == "X"), key=lambda e: e["ts"])
    first = steps[0]["name"]
    start = max(i for i, e in enumerate(steps) if e["name"] == first)
    return steps[start:], names


def kind(name):
    n = name.lower()
    for k in ("conv", "fc", "pool", "softmax", "relu", "bn", "plus", "add"):
        if k in n:
            return k
    return "other"


COLORS = {"conv": "tab:blue", "fc": "tab:purple", "pool": "tab:green", "softmax": "tab:olive",
          "relu": "tab:orange", "bn": "tab:red", "plus": "tab:brown", "add": "tab:brown",
          "other": "tab:gray"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--title", default="")
    ap.add_argument("traces", nargs="+", help="LABEL=trace.json")
    args = ap.parse_args()
    fig, axes = plt.subplots(len(args.traces), 1, figsize=(12, 1.6 + 1.3 * len(args.traces)),
                             squeeze=False)
    for ax, spec in zip(axes[:, 0], args.traces):
        label, path = spec.split("=", 1)
        steps, names = last_run(path)
        t0 = steps[0]["ts"]
        tids = sorted({e["tid"] for e in steps})
        for e in steps:
            row = tids.index(e["tid"])
            ax.barh(row, e["dur"] / 1e3, left=(e["ts"] - t0) / 1e3, height=0.7,
                    color=COLORS[kind(e["name"])], edgecolor="black", linewidth=0.3)
        end = max(e["ts"] + e["dur"] for e in steps) - t0
        ax.set_yticks(range(len(tids)))
        ax.set_yticklabels([names.get(t, str(t)) for t in tids])
        ax.set_title("%s: %d steps, %.1f ms" % (label, len(steps), end / 1e3), fontsize=10)
        ax.set_xlabel("ms")
        ax.invert_yaxis()
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in COLORS.values()]
    fig.legend(handles, list(COLORS), loc="upper center", bbox_to_anchor=(0.5, 0.94),
               ncol=9, fontsize=8, frameon=False)
    if args.title:
        fig.suptitle(args.title, x=0.01, y=0.99, ha="left", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.86))
    fig.savefig(args.output, dpi=110)


if __name__ == "__main__":
    main()
