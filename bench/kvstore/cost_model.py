#!/usr/bin/env python3
"""The data-parallel cost model of docs/distributed.md, fed with this
machine's measurements (step_time.py: compute seconds per sample and the
parameter bytes; kvstore_bench: per-collective latency and the local
reduction bandwidth; overlap.py: the share of communication hidden behind
backward).

    python bench/kvstore/cost_model.py MEASUREMENTS.json

Per step of a worker with local batch b on N machines (one worker each):
  compute   T_c = b * s_per_sample, of which the backward pass is 2/3
  dist_sync T_comm = 2 (N-1)/N * S / B  +  K * (o + 2 (N-1) * alpha)
            (mx.kv's all-reduce: an all-to-all then an all-gather, each
            moving (N-1)/N of the S parameter bytes, K collectives a step,
            each of ~(N-1) point-to-point rounds of latency alpha, plus the
            store's own overhead o per key: engine operations and thread
            hand-offs, measured here)
  dist_async T_comm = 2 (N-1)/N * S / B + K * (o + 2 * alpha)
            (one server per machine: every worker pushes and pulls S spread
            over the N servers; each request a round trip)
  T_step = T_c + max(0, T_comm - h * (2/3) T_c), h = the hidden share
  speedup(N) = N * T_c / T_step,  efficiency = speedup / N
B = the link's rate times 0.9 (TCP), capped by reduce_bw (the all-reduce
bandwidth measured here between two ranks: a machine's CPU cannot sum and
copy faster than that).
"""
import json
import sys

NS = [1, 2, 4, 8, 10, 16, 32, 64]


def predict(m, link_gbit, kind, buckets=None, faster=1.0):
    s = m["param_bytes"]
    k = buckets if buckets is not None else m["param_arrays"]
    tc = m["batch"] * m["s_per_sample"] / faster
    bw = link_gbit * 1e9 / 8 * 0.9
    if m.get("reduce_bw"):
        bw = min(bw, m["reduce_bw"])
    alpha = m["alpha_s"]
    out = []
    for n in NS:
        if n == 1:
            out.append((1.0, 1.0))
            continue
        vol = 2 * (n - 1) / n * s / bw
        lat = k * (m["kv_overhead_s"] + 2 * ((n - 1) if kind == "dist_sync" else 1) * alpha)
        tcomm = vol + lat
        tstep = tc + max(0.0, tcomm - m["hidden"] * (2 / 3) * tc)
        sp = n * tc / tstep
        out.append((sp, sp / n))
    return out


def headroom(m, link, kind, buckets):
    """The largest compute speed-up (powers of 2^(1/4)) that keeps N=64 at >= 90% efficiency."""
    f = 1.0
    while predict(m, link, kind, buckets, faster=f * 2 ** 0.25)[-1][1] >= 0.9 and f < 1e6:
        f *= 2 ** 0.25
    return f if predict(m, link, kind, buckets, faster=f)[-1][1] >= 0.9 else 0.0


def main():
    cfg = json.load(open(sys.argv[1]))
    for model in cfg["models"]:
        m = dict(model, alpha_s=cfg["alpha_s"], reduce_bw=model.get("reduce_bw", cfg["reduce_bw"]),
                 hidden=cfg["hidden"], kv_overhead_s=cfg["kv_overhead_s"])
        print("\n%s: %.1f M parameters (%.0f MB, %d arrays), batch %d per machine, "
              "%.3f s compute per step here" % (m["model"], m["params"] / 1e6,
                                                 m["param_bytes"] / 1e6, m["param_arrays"],
                                                 m["batch"], m["batch"] * m["s_per_sample"]))
        print("| link | store | buckets | " + " | ".join("N=%d" % n for n in NS) +
              " | compute speed-up still >= 90% at N=64 |")
        print("|---|---|---|" + "---:|" * len(NS) + "---:|")
        for link in (10, 100):
            for kind in ("dist_sync", "dist_async"):
                for buckets in (None, 4):
                    row = predict(m, link, kind, buckets)
                    label = "one per array" if buckets is None else "%d buckets" % buckets
                    print("| %d Gbit/s | %s | %s | " % (link, kind, label) +
                          " | ".join("%.1fx (%.0f%%)" % (sp, 100 * e) for sp, e in row) +
                          " | %.0fx |" % headroom(m, link, kind, buckets))


if __name__ == "__main__":
    main()
