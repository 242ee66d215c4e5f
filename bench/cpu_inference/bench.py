#!/usr/bin/env python3
"""CPU inference latency: mxc against ONNX Runtime and PyTorch (eager), same
networks, same weights, same input, same thread count.

    bench/cpu_inference/run.sh            # sets up .venv-bench, builds mxc, runs this
    .venv-bench/bin/python bench/cpu_inference/bench.py [--models resnet18,vgg11]
        [--batches 1,16] [--runs 20] [--warmup 3] [--threads 2] [--no-gemm]

For each network of MXNet 1.9.1's image-classification zoo (tools/zoo/mxnet_zoo.py):

1. Weights, generated once per run from a fixed seed: convolution and
   FullyConnected weights N(0, 2 / fan_in) (MXNet's Xavier(rnd_type='gaussian',
   factor_type='in', magnitude=2), the initialiser of MXNet's
   train_imagenet.py), biases and BatchNorm beta U(-0.1, 0.1), gamma
   U(0.8, 1.2). BatchNorm moving statistics are calibrated: the PyTorch copy
   of the network runs once in training mode on a random batch with
   cumulative averaging, so every BatchNorm sees roughly zero-mean
   unit-variance activations at inference (what a trained network's statistics
   give). The values are written as an MXNet .params file (arg:/aux: names)
   for mxc under bench/cpu_inference/.work/.
2. The same network in PyTorch, built from the symbol JSON by a small converter
   (`MXNetGraphModule`) that walks the nodes in file order and maps each
   operator to a torch module or functional call, copying the weights. It is
   exported to ONNX (torch.onnx.export, TorchScript exporter, opset 17, batch
   axis dynamic) for ONNX Runtime.
3. Check: the softmax outputs of mxc, ONNX Runtime and PyTorch on the same
   input must agree with rtol 1e-3 (|a - b| <= 1e-6 + 1e-3 |b|, b = PyTorch);
   the maximum relative difference is printed. A network that fails is not
   timed and the script exits with status 1.
4. Timing: in --rounds rounds, each framework in turn (the order rotates)
   runs --warmup untimed passes, then runs/rounds timed ones; the median,
   p10, p90 and min of all the timed passes of a framework (>= --runs). The
   rounds interleave the frameworks so that all see the same background (this
   machine's speed drifts over minutes; see the probe). mxc: `mxc run
   --warmup K --repeat N -v`, the per-pass times of the compiled forward
   function only (the compilation is cached and excluded; each round is a
   new process, hence its warm-up). PyTorch: model(x) under
   torch.inference_mode(). ONNX Runtime: InferenceSession.run with
   ORT_ENABLE_ALL graph optimisation.
5. Probe: before each network, the GFLOP/s of a 1024^3 float32 torch.mm on
   all threads and on one, as a gauge of the machine's state; and for each
   row, `other CPU`: the CPU time that other processes (and the hypervisor,
   as steal) used while the row was timed, in % of all CPUs (/proc/stat busy
   time minus this process's and its children's, from os.times()). Rows with
   more than a few % were disturbed: rerun them (--models NAME --batches B).

Threads: OMP_NUM_THREADS, MKL_NUM_THREADS and OPENBLAS_NUM_THREADS are set
to --threads before torch, onnxruntime or mxc start; torch.set_num_threads and
ORT's intra_op_num_threads (inter_op 1, sequential execution) likewise.
mxc's generated code is single-threaded; its GEMM-class ops run in OpenBLAS
with OPENBLAS_NUM_THREADS threads.

Then, if bench/gemm/run.sh exists, it is run (GEMM GFLOP/s of the OpenBLAS
kernel that mxc calls and of the transform-dialect codegen, same shapes).
"""
import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODELS = ["resnet18", "vgg11", "alexnet", "inception-bn"]
RTOL, ATOL = 1e-3, 1e-6
SEED = 20261129


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--batches", default="1,16")
    p.add_argument("--runs", type=int, default=20, help="timed passes (>= 20 for the record)")
    p.add_argument("--warmup", type=int, default=2, help="untimed passes first, every round")
    p.add_argument("--rounds", type=int, default=4, help="interleaved rounds")
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    p.add_argument("--mxc", default=os.path.join(os.environ.get("MXC_BUILD_DIR") or
                                                 os.path.join(ROOT, "build"), "bin", "mxc"))
    p.add_argument("--work", default=os.path.join(HERE, ".work"))
    p.add_argument("--frameworks", default="mxc,ort,torch")
    p.add_argument("--no-gemm", action="store_true", help="skip bench/gemm")
    p.add_argument("--json", help="also write the results as JSON here")
    return p.parse_args(argv)


ARGS = parse_args()
for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[var] = str(ARGS.threads)

import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools", "zoo"))
sys.path.insert(0, os.path.join(ROOT, "test", "python"))
import mxnet_zoo  # noqa: E402
from mxc_testing import write_params  # noqa: E402

torch.set_num_threads(ARGS.threads)


# ---------------------------------------------------------------------------
# MXNet symbol JSON -> PyTorch
# ---------------------------------------------------------------------------

def _attrs(node):
    a = {}
    for key in ("param", "attr", "attrs"):
        a.update(node.get(key, {}) or {})
    return a


def _tuple(a, key, n, default):
    v = a.get(key)
    if v is None or v in ("()", "None"):
        return (default,) * n
    v = tuple(int(x) for x in v.strip("()[] ").split(",") if x.strip())
    return v if len(v) == n else v * n


def _bool(a, key, default):
    v = a.get(key)
    return default if v is None else v.strip() in ("True", "true", "1")


class _Softmax(nn.Module):
    def forward(self, x):
        return torch.softmax(x.flatten(1) if x.dim() > 2 else x, dim=1)


class _Add(nn.Module):
    def forward(self, a, b):
        return a + b


class _Concat(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, *xs):
        return torch.cat(xs, dim=self.dim)


class _FullyConnected(nn.Module):
    def __init__(self, linear, flatten):
        super().__init__()
        self.linear, self.flatten = linear, flatten

    def forward(self, x):
        return self.linear(x.flatten(1) if self.flatten else x)


class _LRN(nn.Module):
    # MXNet: x * (knorm + alpha / nsize * sum_window x^2) ^ -beta, which is
    # torch's local_response_norm (and ONNX LRN) with k = knorm.
    def __init__(self, size, alpha, beta, k):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, x):
        return F.local_response_norm(x, self.size, self.alpha, self.beta, self.k)


def _pooling(a, ndim=2):
    pool_type = a.get("pool_type", "max")
    if _bool(a, "global_pool", False):
        if pool_type == "max":
            return nn.AdaptiveMaxPool2d(1)
        if pool_type == "avg":
            return nn.AdaptiveAvgPool2d(1)
        raise NotImplementedError("global Pooling %s" % pool_type)
    kernel = _tuple(a, "kernel", ndim, 1)
    stride = _tuple(a, "stride", ndim, 1)
    pad = _tuple(a, "pad", ndim, 0)
    convention = a.get("pooling_convention", "valid")
    if convention not in ("valid", "full"):
        raise NotImplementedError("pooling_convention %s" % convention)
    # 'full' = ceil_mode. (Both agree when the last window starts inside the
    # padded input, which holds for the zoo's shapes.)
    ceil = convention == "full"
    if pool_type == "max":
        return nn.MaxPool2d(kernel, stride, pad, ceil_mode=ceil)
    if pool_type == "avg":
        return nn.AvgPool2d(kernel, stride, pad, ceil_mode=ceil,
                            count_include_pad=_bool(a, "count_include_pad", True))
    raise NotImplementedError("Pooling pool_type %s" % pool_type)


_ACTIVATIONS = {"relu": nn.ReLU, "sigmoid": nn.Sigmoid, "tanh": nn.Tanh,
                "softrelu": nn.Softplus, "softsign": nn.Softsign}


class MXNetGraphModule(nn.Module):
    """The forward (inference) graph of an MXNet symbol JSON as a torch module.

    `values` maps every parameter and auxiliary state name to a float32
    numpy array (copied). Nodes run in file order (MXNet files are
    topologically sorted); each node's module is `self.ops[node name]`.
    `bn_params` maps each BatchNorm module's name to its (moving_mean,
    moving_var) variable names, for writing calibrated statistics back."""

    def __init__(self, graph, values, data_name="data"):
        super().__init__()
        self.nodes = graph["nodes"]
        self.heads = [(h[0], h[1]) for h in graph["heads"]]
        self.data_name = data_name
        self.ops = nn.ModuleDict()
        self.plan = []  # (node id, module key, [(src, idx)] data inputs)
        self.bn_params = {}
        var = lambda e: self.nodes[e[0]]["name"]  # noqa: E731
        t = lambda name: torch.from_numpy(np.array(values[name], dtype=np.float32))  # noqa: E731
        for i, n in enumerate(self.nodes):
            op = n["op"]
            if op == "null":
                continue
            a = _attrs(n)
            ins = n["inputs"]
            key = n["name"].replace(".", "_")
            data_ins = [(ins[0][0], ins[0][1])]
            if op == "Convolution":
                if a.get("layout") not in (None, "None", "NCHW"):
                    raise NotImplementedError("Convolution layout %s" % a.get("layout"))
                w = t(var(ins[1]))
                if w.dim() != 4:
                    raise NotImplementedError("only 2-D Convolution")
                groups = int(a.get("num_group", "1"))
                no_bias = _bool(a, "no_bias", False)
                m = nn.Conv2d(w.shape[1] * groups, w.shape[0], tuple(w.shape[2:]),
                              stride=_tuple(a, "stride", 2, 1), padding=_tuple(a, "pad", 2, 0),
                              dilation=_tuple(a, "dilate", 2, 1), groups=groups, bias=not no_bias)
                m.weight.data.copy_(w)
                if not no_bias:
                    m.bias.data.copy_(t(var(ins[2])))
            elif op == "FullyConnected":
                w = t(var(ins[1]))
                no_bias = _bool(a, "no_bias", False)
                lin = nn.Linear(w.shape[1], w.shape[0], bias=not no_bias)
                lin.weight.data.copy_(w)
                if not no_bias:
                    lin.bias.data.copy_(t(var(ins[2])))
                m = _FullyConnected(lin, _bool(a, "flatten", True))
            elif op == "BatchNorm":
                if int(a.get("axis", "1")) != 1:
                    raise NotImplementedError("BatchNorm axis != 1")
                gamma = t(var(ins[1]))
                m = nn.BatchNorm2d(gamma.shape[0], eps=float(a.get("eps", "1e-3")))
                # fix_gamma: MXNet uses gamma = 1 whatever the array holds.
                m.weight.data.copy_(torch.ones_like(gamma) if _bool(a, "fix_gamma", True)
                                    else gamma)
                m.bias.data.copy_(t(var(ins[2])))
                m.running_mean.copy_(t(var(ins[3])))
                m.running_var.copy_(t(var(ins[4])))
                self.bn_params[key] = (var(ins[3]), var(ins[4]))
            elif op == "Activation":
                m = _ACTIVATIONS[a["act_type"]]()
            elif op == "Pooling":
                m = _pooling(a)
            elif op == "LRN":
                m = _LRN(int(a["nsize"]), float(a.get("alpha", "1e-4")),
                         float(a.get("beta", "0.75")), float(a.get("knorm", "2")))
            elif op in ("Dropout", "_copy", "identity"):
                m = nn.Identity()  # Dropout: inference mode
            elif op == "Flatten":
                m = nn.Flatten(1)
            elif op in ("elemwise_add", "_Plus", "_plus"):
                m = _Add()
                data_ins = [(e[0], e[1]) for e in ins]
            elif op == "Concat":
                m = _Concat(int(a.get("dim", "1")))
                data_ins = [(e[0], e[1]) for e in ins]
            elif op == "SoftmaxOutput":
                if _bool(a, "multi_output", False):
                    raise NotImplementedError("SoftmaxOutput multi_output")
                m = _Softmax()  # the label input is unused at inference
            else:
                raise NotImplementedError("operator %s (node %s)" % (op, n["name"]))
            self.ops[key] = m
            self.plan.append((i, key, data_ins))

    def forward(self, x):
        results = {}
        for src, idx in self._data_sources():
            results[(src, idx)] = x
        for i, key, ins in self.plan:
            results[(i, 0)] = self.ops[key](*[results[e] for e in ins])
        outs = [results[h] for h in self.heads]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _data_sources(self):
        return [(i, 0) for i, n in enumerate(self.nodes)
                if n["op"] == "null" and n["name"] == self.data_name]


# ---------------------------------------------------------------------------
# Weights
# ---------------------------------------------------------------------------

def make_values(graph, data_shape, seed):
    """{name: float32 array} for every parameter and auxiliary state."""
    rng = np.random.default_rng(seed)
    args, aux, _ = mxnet_zoo.infer_shapes(graph, data_shape)
    values, kinds = {}, {}
    for kind, items in (("arg", args), ("aux", aux)):
        for name, shape in items:
            if name == "data" or name.endswith("_label"):
                continue
            if name.endswith("_weight"):
                fan_in = int(np.prod(shape[1:]))
                v = rng.standard_normal(shape, dtype=np.float32) * np.float32(np.sqrt(2.0 / fan_in))
            elif name.endswith("_gamma"):
                v = rng.uniform(0.8, 1.2, shape)
            elif name.endswith("_moving_var"):
                v = np.ones(shape)  # calibrated below
            elif name.endswith("_moving_mean"):
                v = np.zeros(shape)
            elif name.endswith(("_bias", "_beta")):
                v = rng.uniform(-0.1, 0.1, shape)
            else:
                raise AssertionError("no initialiser for variable '%s'" % name)
            values[name] = np.ascontiguousarray(v, dtype=np.float32)
            kinds[name] = kind
    return values, kinds


def calibrate_batchnorm(model, values, data_shape, seed):
    """Sets every BatchNorm's moving statistics to the batch statistics of one
    training-mode pass on a random batch (cumulative average), and writes
    them back into `values`."""
    if not model.bn_params:
        return
    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    for m in bns:
        m.reset_running_stats()
        m.momentum = None
    x = torch.from_numpy(np.random.default_rng(seed + 1).uniform(
        -1, 1, (8,) + tuple(data_shape[1:])).astype(np.float32))
    model.train()
    with torch.no_grad():
        model(x)
    model.eval()
    for key, (mean_name, var_name) in model.bn_params.items():
        m = model.ops[key]
        values[mean_name] = m.running_mean.numpy().astype(np.float32).copy()
        values[var_name] = m.running_var.numpy().astype(np.float32).copy()


# ---------------------------------------------------------------------------
# Runners
# ---------------------------------------------------------------------------

def stats(times_ms):
    t = np.asarray(times_ms)
    return {"median": float(np.median(t)), "p10": float(np.percentile(t, 10)),
            "p90": float(np.percentile(t, 90)), "min": float(t.min()), "runs": len(t)}


_LATENCY = re.compile(r"^latency: median ([0-9.]+) ms, p10 ([0-9.]+) ms, p90 ([0-9.]+) ms, "
                      r"min ([0-9.]+) ms over ([0-9]+) runs", re.M)


def mxc_run(sym_path, params_path, x_path, batch, extra, out_dir=None):
    cmd = [ARGS.mxc, "run", sym_path, "--shape", "data=%d,3,224,224" % batch,
           "--params", params_path, "--input", "data=" + x_path] + extra
    if out_dir:
        cmd += ["--output-dir", out_dir]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), r.returncode, r.stderr.strip()))
    return r.stdout


def mxc_times(sym_path, params_path, x_path, batch, warmup, runs):
    """The per-pass times (ms) of `mxc run --warmup --repeat -v`."""
    cmd = [ARGS.mxc, "run", sym_path, "--shape", "data=%d,3,224,224" % batch,
           "--params", params_path, "--input", "data=" + x_path,
           "--warmup", str(warmup), "--repeat", str(runs), "-v"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), r.returncode, r.stderr.strip()))
    m = re.search(r"^mxc: timed runs \(ms\):((?: [0-9.]+)+)$", r.stderr, re.M)
    if not m or not _LATENCY.search(r.stdout):
        raise RuntimeError("no timing lines in mxc's output:\n" + r.stdout + r.stderr)
    return [float(t) for t in m.group(1).split()]


def times_callable(fn, warmup, runs):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return times


def probe():
    """GFLOP/s of a 1024^3 float32 torch.mm on all threads and on one."""
    a = torch.rand(1024, 1024)
    res = []
    for threads in (ARGS.threads, 1):
        torch.set_num_threads(threads)
        for _ in range(3):
            torch.mm(a, a)
        t = times_callable(lambda: torch.mm(a, a), 0, 15)
        res.append(2 * 1024 ** 3 / np.median(t) / 1e6)
    torch.set_num_threads(ARGS.threads)
    return res


def read_npy(path):
    return np.load(path)


def max_rel_diff(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-30)))


def close(a, b):
    return bool(np.all(np.abs(np.asarray(a, np.float64) - b) <= ATOL + RTOL * np.abs(b)))


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------

def cpu_snapshot():
    """(wall s, busy CPU s of the whole machine incl. steal, CPU s of this
    process and its waited-for children)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    hz = os.sysconf("SC_CLK_TCK")
    busy = (v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)) / hz
    t = os.times()
    return time.time(), busy, t.user + t.system + t.children_user + t.children_system


def other_cpu(before, after):
    """% of all CPUs used by other processes between two snapshots."""
    wall = after[0] - before[0]
    other = (after[1] - before[1]) - (after[2] - before[2])
    return max(0.0, 100.0 * other / (wall * (os.cpu_count() or 1))) if wall > 0 else 0.0


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def machine_line():
    cpu = sh("lscpu | sed -n 's/^Model name: *//p'") or platform.processor()
    return "%s, %d CPUs, %s" % (cpu, os.cpu_count() or 0, platform.platform())


def load_line():
    return sh("uptime").split("load average:")[-1].strip()


def gemm_bench():
    script = os.path.join(ROOT, "bench", "gemm", "run.sh")
    if ARGS.no_gemm or not os.path.exists(script):
        return None
    build = os.path.dirname(os.path.dirname(os.path.abspath(ARGS.mxc)))
    env = dict(os.environ, REPS=os.environ.get("REPS", "30"))
    r = subprocess.run(["bash", script, build], capture_output=True, text=True, env=env)
    return (r.stdout + ("\n" + r.stderr if r.returncode else "")).strip()


def main():
    frameworks = [f for f in ARGS.frameworks.split(",") if f]
    batches = [int(b) for b in ARGS.batches.split(",")]
    models = [m for m in ARGS.models.split(",") if m]
    os.makedirs(ARGS.work, exist_ok=True)
    print("# CPU inference benchmark, %s" % datetime.datetime.now().strftime("%Y-%m-%d %H:%M"))
    print("# machine: %s" % machine_line())
    print("# threads: %d for every framework (OMP/MKL/OPENBLAS_NUM_THREADS, torch.set_num_threads, "
          "ORT intra_op_num_threads)" % ARGS.threads)
    print("# torch %s, onnxruntime %s, numpy %s; mxc %s (%s)" % (
        torch.__version__, ort.__version__, np.__version__, ARGS.mxc,
        sh("git -C %s describe --always --dirty" % ROOT)))
    per_round = -(-ARGS.runs // ARGS.rounds)
    print("# timing: %d interleaved rounds of %d warm-up + %d timed passes per framework; "
          "median, p10, p90, min of the %d timed passes, ms" %
          (ARGS.rounds, ARGS.warmup, per_round, per_round * ARGS.rounds))
    print("# load average before: %s" % load_line())
    sys.stdout.flush()

    results = []  # dicts
    failed = False
    for name in models:
        pr = probe()
        print("# probe before %s: torch.mm 1024^3 %.0f GFLOP/s on %d threads, %.0f on 1; load %s" %
              (name, pr[0], ARGS.threads, pr[1], load_line()))
        graph = mxnet_zoo.graph(name)
        data_chw = mxnet_zoo.NETWORKS[name][1]
        sym_path = os.path.join(ARGS.work, "%s-symbol.json" % name)
        with open(sym_path, "w") as f:
            f.write(mxnet_zoo.dumps(graph))
        seed = SEED + MODELS.index(name) if name in MODELS else SEED
        values, kinds = make_values(graph, (1,) + data_chw, seed)
        model = MXNetGraphModule(graph, values)
        calibrate_batchnorm(model, values, (1,) + data_chw, seed)
        model.eval()
        params_path = os.path.join(ARGS.work, "%s-0000.params" % name)
        write_params(params_path, {"%s:%s" % (kinds[k], k): v for k, v in values.items()})
        onnx_path = os.path.join(ARGS.work, "%s.onnx" % name)
        if "ort" in frameworks:
            torch.onnx.export(model, (torch.zeros((1,) + data_chw),), onnx_path, dynamo=False,
                              opset_version=17, input_names=["data"], output_names=["softmax"],
                              dynamic_axes={"data": {0: "batch"}, "softmax": {0: "batch"}})
            so = ort.SessionOptions()
            so.intra_op_num_threads = ARGS.threads
            so.inter_op_num_threads = 1
            so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            sess = ort.InferenceSession(onnx_path, so, providers=["CPUExecutionProvider"])
        del values

        for batch in batches:
            rng = np.random.default_rng(seed + 100 + batch)
            x = rng.uniform(-1, 1, (batch,) + data_chw).astype(np.float32)
            x_path = os.path.join(ARGS.work, "%s-x%d.npy" % (name, batch))
            np.save(x_path, x)
            xt = torch.from_numpy(x)

            # Check: the same outputs from all three before timing.
            with torch.inference_mode():
                ref = model(xt).numpy()
            outs = {}
            if "mxc" in frameworks:
                out_dir = os.path.join(ARGS.work, "out-%s-%d" % (name, batch))
                mxc_run(sym_path, params_path, x_path, batch, [], out_dir)  # compiles (cached)
                files = [f for f in os.listdir(out_dir) if f.endswith(".npy")]
                outs["mxc"] = read_npy(os.path.join(out_dir, files[0]))
            if "ort" in frameworks:
                outs["ort"] = sess.run(None, {"data": x})[0]
            row = {"model": name, "batch": batch, "check": {}, "latency": {}}
            ok = True
            for fw, out in outs.items():
                d = max_rel_diff(out, ref)
                c = out.shape == ref.shape and close(out, ref)
                row["check"][fw] = {"max_rel_diff": d, "ok": c}
                ok &= c
            row["check"]["top1_agree"] = all(
                np.array_equal(o.argmax(1), ref.argmax(1)) for o in outs.values())
            print("%-12s b%-2d check vs torch: %s; max softmax %.3g%s" % (
                name, batch, ", ".join("%s max rel diff %.2e %s" % (
                    fw, row["check"][fw]["max_rel_diff"], "ok" if row["check"][fw]["ok"] else "FAIL")
                    for fw in outs), float(ref.max()), "" if ok else "  -- NOT TIMED"))
            sys.stdout.flush()
            if not ok:
                failed = True
                results.append(row)
                continue

            # Timing: interleaved rounds, the order rotating.
            times = {fw: [] for fw in frameworks}
            feed = {"data": x}
            snap = cpu_snapshot()
            for r in range(ARGS.rounds):
                for fw in frameworks[r % len(frameworks):] + frameworks[:r % len(frameworks)]:
                    if fw == "mxc":
                        t = mxc_times(sym_path, params_path, x_path, batch, ARGS.warmup,
                                      per_round)
                    elif fw == "ort":
                        t = times_callable(lambda: sess.run(None, feed), ARGS.warmup, per_round)
                    elif fw == "torch":
                        with torch.inference_mode():
                            t = times_callable(lambda: model(xt), ARGS.warmup, per_round)
                    else:
                        raise SystemExit("unknown framework %s" % fw)
                    times[fw] += t
            row["other_cpu"] = other_cpu(snap, cpu_snapshot())
            print("%-12s b%-2d other CPU while timing: %.1f%%" % (name, batch, row["other_cpu"]))
            for fw in frameworks:
                s = row["latency"][fw] = stats(times[fw])
                print("%-12s b%-2d %-6s median %9.2f ms  p10 %9.2f  p90 %9.2f  min %9.2f  (%d runs)" % (
                    name, batch, fw, s["median"], s["p10"], s["p90"], s["min"], s["runs"]))
            sys.stdout.flush()
            results.append(row)
        if "ort" in frameworks:
            del sess
        del model

    print("# load average after: %s" % load_line())
    print()
    print_table(results, frameworks)
    if ARGS.json:
        with open(ARGS.json, "w") as f:
            json.dump({"threads": ARGS.threads, "runs": ARGS.runs, "warmup": ARGS.warmup,
                       "machine": machine_line(), "results": results}, f, indent=1)

    g = gemm_bench()
    if g:
        print()
        print("## GEMM (bench/gemm/run.sh: OpenBLAS kernel ABI that mxc calls vs transform-dialect codegen)")
        print(g)
    return 1 if failed else 0


def print_table(results, frameworks):
    names = {"mxc": "mxc", "ort": "ONNX Runtime", "torch": "PyTorch eager"}
    head = ["model", "batch"] + ["%s median (p10-p90) ms" % names[f] for f in frameworks]
    ratios = [f for f in ("ort", "torch") if f in frameworks and "mxc" in frameworks]
    head += ["mxc / %s" % names[f] for f in ratios] + ["max rel diff vs torch", "other CPU"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in results:
        lat = r["latency"]
        cells = [r["model"], str(r["batch"])]
        for f in frameworks:
            s = lat.get(f)
            cells.append("%.1f (%.1f-%.1f)" % (s["median"], s["p10"], s["p90"]) if s else "-")
        for f in ratios:
            cells.append("%.2f" % (lat["mxc"]["median"] / lat[f]["median"])
                         if "mxc" in lat and f in lat else "-")
        cells.append(", ".join("%s %.1e" % (fw, c["max_rel_diff"]) for fw, c in r["check"].items()
                               if isinstance(c, dict)))
        cells.append("%.0f%%" % r["other_cpu"] if "other_cpu" in r else "-")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())
