"""Where a compiled step's time goes: a runtime profiler trace (MXC_PROFILE=trace.json,
docs/runtime.md) of a plan run a step at a time (MXC_EXEC_BULK_EXEC_INFERENCE=0: each plan step
is an engine operation that waits for its stream, so its event lasts as long as its GPU work)
summed by kind of step: the MXNet node name without its stageN_unitM_ prefix and digits, forward
(no suffix) or backward (a .N suffix: mx-autodiff's steps). Prints a table, largest first.

    python3 bench/gpu/step_profile.py trace.json
"""
import collections
import json
import re
import sys


def kind(name):
    phase = "backward" if re.search(r"\.\d+$", name) else "forward"
    base = re.sub(r"\.\d+$", "", name)
    base = re.sub(r"^stage\d+_unit\d+_", "", base)
    base = re.sub(r"\d+$", "", base) or name
    return "%s (%s)" % (base, phase)


def main(path, out=sys.stdout):
    with open(path) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    if not events:
        print("step_profile: no events in %s" % path, file=out)
        return 1
    runs = collections.Counter(e["name"] for e in events)
    # Every step runs once per run: the most frequent count is the runs.
    nruns = runs.most_common(1)[0][1]
    total = collections.defaultdict(float)
    steps = collections.defaultdict(set)
    for e in events:
        k = kind(e["name"])
        total[k] += e["dur"] / 1000.0
        steps[k].add(e["name"])
    whole = sum(total.values())
    print("%d runs of %d steps, %.2f ms of step time a run (each step waits for its stream)"
          % (nruns, len(runs), whole / nruns), file=out)
    print("%-28s %7s %10s %7s" % ("kind of step", "steps", "ms a run", "share"), file=out)
    for k, t in sorted(total.items(), key=lambda kv: -kv[1]):
        print("%-28s %7d %10.3f %6.1f%%" % (k, len(steps[k]), t / nruns, 100.0 * t / whole),
              file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
