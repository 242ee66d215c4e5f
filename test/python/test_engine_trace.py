"""Branch overlap read from a profiler trace (issue 11): `mxc run` of a graph
with two independent branches, on 2 engine workers with single-threaded
kernels, runs steps of the two branches at the same time on different
threads. Ordering and overlap are read from the trace's events (never a
duration)."""
import json
import os
import subprocess

from mxc_testing import mxc_binary


def _graph():
    # data -> fc_a -> relu_a \
    #      -> fc_b -> relu_b  -> sum
    nodes = [{"op": "null", "name": "data", "inputs": []}]

    def add(op, name, inputs, attrs=None):
        node = {"op": op, "name": name, "inputs": [[i, 0, 0] for i in inputs]}
        if attrs:
            node["attrs"] = attrs
        nodes.append(node)
        return len(nodes) - 1

    branches = []
    for b in ("a", "b"):
        w = add("null", "fc_%s_weight" % b, [])
        bias = add("null", "fc_%s_bias" % b, [])
        fc = add("FullyConnected", "fc_%s" % b, [0, w, bias], {"num_hidden": "1024"})
        branches.append(add("Activation", "relu_%s" % b, [fc], {"act_type": "relu"}))
    out = add("elemwise_add", "sum", branches)
    return {"nodes": nodes,
            "arg_nodes": [i for i, n in enumerate(nodes) if n["op"] == "null"],
            "heads": [[out, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}}


def test_independent_branches_overlap_on_two_workers(tmp_path):
    sym = tmp_path / "branches-symbol.json"
    sym.write_text(json.dumps(_graph()))
    trace = tmp_path / "trace.json"
    env = dict(os.environ, MXC_CPU_WORKER_NTHREADS="2", OMP_NUM_THREADS="1",
               MXC_PROFILE=str(trace), MXC_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([mxc_binary(), "run", str(sym), "--shape", "data=512,2048",
                          "--repeat", "6"], capture_output=True, text=True, env=env,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    events = json.loads(trace.read_text())["traceEvents"]
    steps = [e for e in events if e.get("ph") == "X"]
    names = {e["name"] for e in steps}
    # One event per plan step: each layer is a step of its own.
    assert {"fc_a", "fc_b", "sum"} <= names, sorted(names)

    def runs(name):
        return sorted((e for e in steps if e["name"] == name), key=lambda e: e["ts"])

    fa, fb, total = runs("fc_a"), runs("fc_b"), runs("sum")
    assert len(fa) == len(fb) == len(total) >= 6
    overlapping = 0
    for a, b, s in zip(fa, fb, total):
        # The sum reads both branches: it starts after both ended.
        assert s["ts"] >= a["ts"] + a["dur"] and s["ts"] >= b["ts"] + b["dur"]
        if a["tid"] != b["tid"] and a["ts"] < b["ts"] + b["dur"] and \
                b["ts"] < a["ts"] + a["dur"]:
            overlapping += 1
    # The two GEMMs of a run are ready at the same time and each worker
    # takes one: they overlap, on different threads.
    assert overlapping >= 1, [(a["tid"], a["ts"], a["dur"], b["tid"], b["ts"], b["dur"])
                              for a, b in zip(fa, fb)]
    workers = {m["args"]["name"] for m in events
               if m.get("ph") == "M" and m.get("name") == "thread_name"}
    assert {"cpu worker 0", "cpu worker 1"} <= workers, workers
