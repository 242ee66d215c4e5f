#!/usr/bin/env python3
"""Compile time of whole networks: JIT (`mxc run`) and AOT (`mxc compile --emit exe`).

    models.py [--models resnet50,resnet18,inception-bn,mobilenet-v2] [--repeat 5] [--work DIR]

For each network of tools/zoo/mxnet_zoo.py (batch 1, seeded weights from
test/aot/make_model.py), in fresh processes:
  - JIT, empty caches (`mxc run --no-cache -v`): the module code-generated
    whole (MXC_KERNEL_SPLIT=0), kernel by kernel on 1 thread, and on
    $MXC_COMPILE_THREADS (default: the hardware's) threads;
  - JIT with the kernel cache the unchanged network filled, after one layer
    changed (the middle Activation made a sigmoid): how much is recompiled;
  - AOT `mxc compile --emit exe --stats` (weights embedded): whole, by kernel
    (empty kernel cache), and by kernel again (warm kernel cache).
Times are the compiler's own (`-v`'s "compile" line, `--stats`' "compile
time"), median and min over --repeat runs. Prints a Markdown table
(docs/benchmarks.md, "Compile time of whole networks").
"""
import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "aot"))
import make_model  # noqa: E402


def mxc_binary():
    build = os.environ.get("MXC_BUILD_DIR") or os.path.join(ROOT, "build")
    return os.environ.get("MXC_BIN") or os.path.join(build, "bin", "mxc")


def run(cmd, env):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise SystemExit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stdout[-2000:]))
    return p.stdout


def time_ms(pattern, out):
    """The compile time `pattern`'s group finds in a command's output."""
    m = re.search(pattern, out)
    if not m:
        raise SystemExit("no compile time in:\n" + out[-2000:])
    return float(m.group(1))


def jit_ms(out):
    return time_ms(r"mxc: compile ([0-9.]+) ms", out)


def kernels_line(out):
    m = re.search(r"kernels: (\d+) steps, (\d+) distinct, (\d+) compiled on (\d+) threads, (\d+) from", out)
    return tuple(int(x) for x in m.groups()) if m else None


def aot_ms(out):
    return time_ms(r"stats: compile time ([0-9.]+) ms", out)


def summary(values):
    return "%.0f (%.0f)" % (statistics.median(values), min(values))


def changed_layer(sym_path, out_path):
    with open(sym_path) as f:
        g = json.load(f)
    acts = [n for n in g["nodes"] if n["op"] == "Activation"]
    clips = [n for n in g["nodes"] if n["op"] == "clip"]
    if acts:
        node = acts[len(acts) // 2]
        node.setdefault("attrs", {})["act_type"] = "sigmoid"
        what = "%s -> sigmoid" % node["name"]
    elif clips:  # MobileNet's relu6
        node = clips[len(clips) // 2]
        node.setdefault("attrs", {})["a_max"] = "4.0"
        what = "%s: a_max 4" % node["name"]
    else:
        return None
    with open(out_path, "w") as f:
        json.dump(g, f)
    return what


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default="resnet50,resnet18,inception-bn,mobilenet-v2")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--work", default=None)
    args = p.parse_args()
    mxc = mxc_binary()
    work = args.work or tempfile.mkdtemp(prefix="mxc-compile-bench-")
    threads = int(os.environ.get("MXC_COMPILE_THREADS") or os.cpu_count() or 1)
    print("mxc %s, %s, %d CPUs, load average %s, %s" % (
        mxc, platform.node(), os.cpu_count(), " ".join("%.2f" % x for x in os.getloadavg()),
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
    rows = []
    for name in args.models.split(","):
        d = os.path.join(work, name)
        sym, params, _, shape = make_model.make_model(name, d)
        base = dict(os.environ)
        base.pop("MXC_KERNEL_SPLIT", None)
        cache = os.path.join(d, "cache")

        def env(**kw):
            e = dict(base, MXC_CACHE_DIR=cache)
            e.update({k: str(v) for k, v in kw.items()})
            return e

        jit = ["run", sym, "--shape", shape, "--params", params]
        res = {}
        for label, e in (("whole", env(MXC_KERNEL_SPLIT=0, MXC_COMPILE_THREADS=1)),
                         ("kernels 1 thread", env(MXC_COMPILE_THREADS=1)),
                         ("kernels %d threads" % threads, env(MXC_COMPILE_THREADS=threads))):
            times, kl = [], None
            for _ in range(args.repeat):
                out = run([mxc] + jit + ["--no-cache", "-v"], e)
                times.append(jit_ms(out))
                kl = kernels_line(out) or kl
            res[label] = (times, kl)
        # One changed layer, with the kernel cache of the unchanged network.
        variant = os.path.join(d, "changed-symbol.json")
        layer = changed_layer(sym, variant)
        changed = None
        if layer:
            times, kl = [], None
            for _ in range(args.repeat):
                shutil.rmtree(cache, ignore_errors=True)
                run([mxc] + jit + ["-v"], env(MXC_COMPILE_THREADS=threads))
                out = run([mxc, "run", variant, "--shape", shape, "--params", params, "-v"],
                          env(MXC_COMPILE_THREADS=threads))
                times.append(jit_ms(out))
                kl = kernels_line(out)
            changed = (layer, times, kl)
        # AOT executables.
        exe = os.path.join(d, name + "-exe")
        aot = ["compile", sym, "--params", params, "--shape", shape, "--emit", "exe",
               "--stats", "-o", exe]
        aot_res = {}
        for label, e, warm in (("whole", env(MXC_KERNEL_SPLIT=0, MXC_COMPILE_THREADS=1), False),
                               ("kernels, empty cache", env(MXC_COMPILE_THREADS=threads), False),
                               ("kernels, warm cache", env(MXC_COMPILE_THREADS=threads), True)):
            times = []
            for _ in range(args.repeat):
                if not warm:
                    shutil.rmtree(cache, ignore_errors=True)
                times.append(aot_ms(run([mxc] + aot, e)))
            aot_res[label] = times
        rows.append((name, res, changed, aot_res))
        shutil.rmtree(cache, ignore_errors=True)
        print("%s: %s" % (name, json.dumps(dict(jit=res, changed=changed, aot=aot_res))), flush=True)

    print()
    print("JIT, `mxc run --no-cache` (empty caches), compile ms, median (min) of %d:" % args.repeat)
    print()
    labels = list(rows[0][1])
    print("| network | steps / distinct kernels | " + " | ".join(labels) +
          " | whole / kernels %d threads | one layer changed, warm kernel cache | kernels recompiled |" % threads)
    print("|---|---|" + "---|" * len(labels) + "---|---|---|")
    for name, res, changed, _ in rows:
        kl = res[labels[1]][1]
        cells = [summary(res[l][0]) for l in labels]
        ratio = statistics.median(res[labels[0]][0]) / statistics.median(res[labels[-1]][0])
        if changed:
            layer, times, ckl = changed
            ch = "%s (%s)" % (summary(times), layer)
            rec = "%d of %d (%d from the cache)" % (ckl[2], ckl[1], ckl[4]) if ckl else "?"
        else:
            ch, rec = "(no Activation or clip)", ""
        print("| %s | %d / %d | %s | %.2fx | %s | %s |" % (
            name, kl[0], kl[1], " | ".join(cells), ratio, ch, rec))
    print()
    print("AOT, `mxc compile --emit exe --stats` (weights embedded), compile ms, median (min) of %d:"
          % args.repeat)
    print()
    alabels = list(rows[0][3])
    print("| network | " + " | ".join(alabels) + " |")
    print("|---|" + "---|" * len(alabels))
    for name, _, _, aot_res in rows:
        print("| %s | %s |" % (name, " | ".join(summary(aot_res[l]) for l in alabels)))
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
