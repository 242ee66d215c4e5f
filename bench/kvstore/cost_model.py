#!/usr/bin/env python3
"""The data-parallel cost model of docs/distributed.md, fed with this
machine's measurements (step_time.py: compute seconds per sample and the
parameter bytes; kvstore_bench: per-collective latency and the local
reduction bandwidth; overlap.py: the share of communication hidden behind
backward).

    python bench/kvstore/cost_model.py MEASUREMENTS.json

Per step of a worker with local batch b on N machines (one worker each):
  compute   T_c = b * s_per_sample, of which the backward pass is 2/3
  dist_sync T_comm = 2 (N-1)/N * S / B  +  K * 2 (N-1) * alpha
            (mx.kv's all-reduce: an all-to-all then an all-gather, each
            moving (N-1)/N of the S parameter bytes, K collectives a step,
            each of ~(N-1) point-to-point rounds of latency alpha)
  dist_async T_comm = 2 (N-1)/N * S / B + K * 2 * alpha
            (one server per machine: every worker pushes and pulls S spread
            over the N servers; each request a round trip)
  T_step = T_c + max(0, T_comm - h * (2/3) T_c), h = the hidden share
  speedup(N) = N * T_c / T_step,  efficiency = speedup / N
B = the link's rate times 0.9 (TCP), capped by the reduction bandwidth
measured here (a machine cannot sum faster than its memory lets it).
"""
import json
import sys

NS = [1, 2, 4, 8, 16, 32, 64]


def predict(m, model, link_gbit, kind, buckets=None):
    s = m["param_bytes"]
    k = buckets if buckets is not None else m["param_arrays"]
    tc = m["batch"] * m["s_per_sample"]
    bw = min(link_gbit * 1e9 / 8 * 0.9, m["reduce_bw"])
    alpha = m["alpha_s"]
    out = []
    for n in NS:
        if n == 1:
            out.append((1.0, 1.0))
            continue
        vol = 2 * (n - 1) / n * s / bw
        lat = k * 2 * ((n - 1) if kind == "dist_sync" else 1) * alpha
        tcomm = vol + lat
        tstep = tc + max(0.0, tcomm - m["hidden"] * (2 / 3) * tc)
        sp = n * tc / tstep
        out.append((sp, sp / n))
    return out


def main():
    cfg = json.load(open(sys.argv[1]))
    for model in cfg["models"]:
        m = dict(model, alpha_s=cfg["alpha_s"], reduce_bw=cfg["reduce_bw"], hidden=cfg["hidden"])
        print("\n%s: %.1f M parameters (%.0f MB, %d arrays), batch %d per machine, "
              "%.3f s compute per step here" % (m["model"], m["params"] / 1e6,
                                                 m["param_bytes"] / 1e6, m["param_arrays"],
                                                 m["batch"], m["batch"] * m["s_per_sample"]))
        print("| link | store | buckets | " + " | ".join("N=%d" % n for n in NS) + " |")
        print("|---|---|---|" + "---:|" * len(NS))
        for link in (10, 100):
            for kind in ("dist_sync", "dist_async"):
                for buckets in (None, 4):
                    row = predict(m, model, link, kind, buckets)
                    label = "one per array" if buckets is None else "%d (25 MB)" % buckets
                    print("| %d Gbit/s | %s | %s | " % (link, kind, label) +
                          " | ".join("%.1fx (%.0f%%)" % (sp, 100 * e) for sp, e in row) + " |")


if __name__ == "__main__":
    main()
