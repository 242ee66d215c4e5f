#!/usr/bin/env python3
"""CPU inference latency: mxc against ONNX Runtime, OpenVINO, PyTorch (eager and
torch.compile) and MXNet 1.9.1, same networks, same weights, same input, same
thread count.

    bench/cpu_inference/run.sh [options]    # sets up .venv-bench, builds mxc, runs this
    .venv-bench/bin/python bench/cpu_inference/bench.py [--nets resnet18,vgg11]
        [--batches 1,16] [--rounds 4] [--runs 20] [--warmup 2] [--warmup-s 0.3] [--threads 2]
        [--frameworks mxc,ort,ov,torch,compile,mxnet] [--no-gemm] [--no-plot]
        [--plot docs/cpu_inference.png] [--json FILE]

    quick look:  run.sh --no-build --nets resnet18 --batches 1 --rounds 1 --runs 5 --no-gemm

Networks (--nets): ResNet-18, ResNet-50, VGG-11, AlexNet and Inception-BN of
MXNet 1.9.1's image-classification examples and our MobileNet-v2 (width 1.0,
depthwise convolutions as num_group, ReLU6 as clip), all from
tools/zoo/mxnet_zoo.py, 3x224x224 input, batch 1 and 16.

For each network:

1. Weights, generated once per run from a fixed seed: convolution and
   FullyConnected weights N(0, 2 / fan_in) (MXNet's Xavier(rnd_type='gaussian',
   factor_type='in', magnitude=2), the initialiser of MXNet's
   train_imagenet.py), biases and BatchNorm beta U(-0.1, 0.1), gamma
   U(0.8, 1.2). BatchNorm moving statistics are calibrated: the PyTorch copy
   of the network runs once in training mode on a random batch with
   cumulative averaging, so every BatchNorm sees roughly zero-mean
   unit-variance activations at inference (what a trained network's statistics
   give). The values are written as an MXNet .params file (arg:/aux: names)
   under bench/cpu_inference/.work/, read by mxc and by MXNet.
2. The same network in PyTorch, built from the symbol JSON by a small converter
   (`MXNetGraphModule`) that walks the nodes in file order and maps each
   operator to a torch module or functional call (grouped / depthwise
   Convolution, clip as torch.clamp, ...), copying the weights. It is
   exported to ONNX (torch.onnx.export, TorchScript exporter, opset 17, batch
   axis dynamic): that one file is what ONNX Runtime and OpenVINO load.
3. The frameworks (--frameworks):
   mxc      `mxc run --warmup K --repeat N -v`: the per-pass times of the
            compiled forward function (compilation cached and excluded; each
            round is a new process, hence its warm-up).
   ort      ONNX Runtime InferenceSession.run, CPU execution provider,
            ORT_ENABLE_ALL, intra_op_num_threads = threads, inter_op 1,
            sequential execution.
   ov       OpenVINO (PyPI `openvino`), CPU plugin: the ONNX file read,
            reshaped to the static batch, compiled with
            INFERENCE_PRECISION_HINT f32, INFERENCE_NUM_THREADS = threads,
            PERFORMANCE_HINT LATENCY; InferRequest.infer.
   torch    PyTorch eager, model(x) under torch.inference_mode().
   compile  torch.compile(model, dynamic=False) (Inductor, its C++ CPU
            backend; it needs a C++ compiler: if compiling fails the cell says
            "n/a (reason)"), called under torch.no_grad(); the first call per
            batch compiles (its seconds are printed) and is not timed.
   mxnet    MXNet 1.9.1 (PyPI wheel, oneDNN build) in its own venv
            (--mxnet-python, .venv-mxnet, numpy < 1.24), one process per round
            running mxnet_runner.py: mx.mod.Module over the same -symbol.json
            and .params, bound for inference, forward(is_train=False) +
            wait_to_read(); --mxnet-subgraph MKLDNN adds MXNet's oneDNN
            fusion pass (Symbol.optimize_for).
4. Check: before timing, the softmax output of every framework on the same
   input must agree with PyTorch eager's with rtol 1e-3 (|a - b| <= 1e-6 +
   1e-3 |b|, b = PyTorch); the maximum relative difference is printed. A
   framework that fails the check is not timed on that row, and the script
   exits with status 1; one that cannot run the network (an error) shows
   "n/a (reason)" and is not counted as a failure.
5. Timing: in --rounds rounds, each framework in turn (the order rotates)
   runs --warmup untimed passes, more of them until --warmup-s seconds have
   passed (mxc and MXNet start a new process every round, whose first passes
   run slower than later ones, as ONNX Runtime's do in a new process: the
   first 3-8 passes of MobileNet-v2 at batch 1 settle from ~1.3x to 1x in
   either; the in-process frameworks keep their sessions across rounds), then
   runs/rounds timed ones; the median,
   p10, p90 and min of all the timed passes of a framework (>= --runs). The
   rounds interleave the frameworks so that all see the same background (this
   machine's speed drifts over minutes; see the probe).
6. Probe: before each network, the GFLOP/s of a 1024^3 float32 torch.mm on
   all threads and on one, as a gauge of the machine's state; and for each
   row, `other CPU`: the CPU time that other processes (and the hypervisor,
   as steal) used while the row was timed, in % of all CPUs (/proc/stat busy
   time minus this process's and its children's, from os.times()). Rows with
   more than a few % were disturbed: rerun them (--nets NAME --batches B).

Threads: OMP_NUM_THREADS, MKL_NUM_THREADS and OPENBLAS_NUM_THREADS are set
to --threads (default 2) before any framework starts; torch.set_num_threads,
ORT's intra_op_num_threads and OpenVINO's INFERENCE_NUM_THREADS likewise;
MXNet gets OMP_NUM_THREADS = threads and MXNET_CPU_WORKER_NTHREADS = 1 (one
engine worker, whose oneDNN / OpenMP regions are `threads` wide) and
--mxnet-engine as MXNET_ENGINE_TYPE.

Then, if bench/gemm/run.sh exists (not with --no-gemm), it is run: GEMM
GFLOP/s of the OpenBLAS kernel that mxc calls (and of the transform-dialect
codegen); its best 2-thread SGEMM median is printed beside the tables as the
machine's measured GEMM peak.

Output: per-row progress lines, then for each batch a table of latency
median (p10-p90) per framework, the ratios mxc / each peer and mxc / the
fastest peer, the check's max relative differences and `other CPU`; a table
of the GFLOP/s each framework reaches (convolution + FullyConnected FLOPs,
2 per multiply-add, over the median latency) with the GEMM peak; and a plot
(latency per framework per network, normalised to mxc, log scale): --plot, by
default docs/cpu_inference.png for the full run (all networks, frameworks and
both batches, >= 4 rounds, >= 20 passes) and .work/cpu_inference.png for a
partial one, so quick runs leave docs/ alone.
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
MODELS = ["resnet18", "resnet50", "vgg11", "alexnet", "inception-bn", "mobilenet-v2"]
# Seeds per network: the first four as in earlier runs of this script.
SEED_INDEX = {"resnet18": 0, "vgg11": 1, "alexnet": 2, "inception-bn": 3, "resnet50": 4,
              "mobilenet-v2": 5}
FRAMEWORKS = ["mxc", "ort", "ov", "torch", "compile", "mxnet"]
LABELS = {"mxc": "mxc", "ort": "ONNX Runtime", "ov": "OpenVINO", "torch": "PyTorch eager",
          "compile": "torch.compile", "mxnet": "MXNet 1.9.1"}
SHORT = {"mxc": "mxc", "ort": "ORT", "ov": "OV", "torch": "PyTorch", "compile": "compile",
         "mxnet": "MXNet"}
PRETTY = {"resnet18": "ResNet-18", "resnet50": "ResNet-50", "vgg11": "VGG-11",
          "alexnet": "AlexNet", "inception-bn": "Inception-BN", "mobilenet-v2": "MobileNet-v2"}
RTOL, ATOL = 1e-3, 1e-6
SEED = 20261129


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nets", "--models", dest="nets", default=",".join(MODELS),
                   help="comma-separated networks (default: all six): " + ",".join(MODELS))
    p.add_argument("--batches", default="1,16")
    p.add_argument("--runs", type=int, default=20, help="timed passes (>= 20 for the record)")
    p.add_argument("--warmup", type=int, default=2, help="untimed passes first, every round")
    p.add_argument("--warmup-s", type=float, default=0.3,
                   help="and more untimed passes until this many seconds have passed (0: off)")
    p.add_argument("--rounds", type=int, default=4, help="interleaved rounds")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--mxc", default=os.path.join(os.environ.get("MXC_BUILD_DIR") or
                                                 os.path.join(ROOT, "build"), "bin", "mxc"))
    p.add_argument("--work", default=os.path.join(HERE, ".work"))
    p.add_argument("--frameworks", default=",".join(FRAMEWORKS),
                   help="comma-separated, from " + ",".join(FRAMEWORKS))
    p.add_argument("--mxnet-python", default=os.path.join(ROOT, ".venv-mxnet", "bin", "python"))
    p.add_argument("--mxnet-engine", default="ThreadedEnginePerDevice",
                   help="MXNET_ENGINE_TYPE (NaiveEngine: operators on the calling thread)")
    p.add_argument("--mxnet-subgraph", default="",
                   help="MXNet graph backend for Symbol.optimize_for (MKLDNN), default none")
    p.add_argument("--no-gemm", action="store_true", help="skip bench/gemm")
    p.add_argument("--plot", help="where the plot goes (default: docs/cpu_inference.png for a "
                   "full run, .work/cpu_inference.png for a partial one)")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--json", help="also write the results as JSON here")
    a = p.parse_args(argv)
    a.nets = [n for n in a.nets.split(",") if n]
    a.batches = [int(b) for b in a.batches.split(",") if b]
    a.frameworks = [f for f in a.frameworks.split(",") if f]
    for f in a.frameworks:
        if f not in FRAMEWORKS:
            p.error("unknown framework %s (choose from %s)" % (f, ",".join(FRAMEWORKS)))
    for n in a.nets:
        if n not in MODELS:
            p.error("unknown network %s (choose from %s)" % (n, ",".join(MODELS)))
    full = (a.nets == MODELS and a.batches == [1, 16] and a.frameworks == FRAMEWORKS and
            a.rounds >= 4 and a.runs >= 20)
    if a.plot is None:
        a.plot = (os.path.join(ROOT, "docs", "cpu_inference.png") if full else
                  os.path.join(a.work, "cpu_inference.png"))
    if "torch" not in a.frameworks:
        a.frameworks.append("torch")  # the reference of the check
    return a


ARGS = parse_args()
for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[var] = str(ARGS.threads)
# Inductor: compile in this process (no worker pool), cache under .work/.
os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(ARGS.work, "inductor"))

import logging  # noqa: E402

import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

try:
    import openvino as ov  # noqa: E402
    OV_ERROR = None
except ImportError as e:  # reported as n/a in the table
    ov = None
    OV_ERROR = "openvino not installed: %s" % e

sys.path.insert(0, os.path.join(ROOT, "tools", "zoo"))
sys.path.insert(0, os.path.join(ROOT, "test", "python"))
import mxnet_zoo  # noqa: E402
from mxc_testing import write_params  # noqa: E402

torch.set_num_threads(ARGS.threads)
# "No CUDA runtime is found" (the PyPI wheel is the CUDA build; it runs on the CPU here).
logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)


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


class _Clip(nn.Module):
    # MXNet clip(a_min, a_max); ReLU6 in MobileNet-v2 is clip(0, 6). Exported
    # to ONNX as Clip.
    def __init__(self, a_min, a_max):
        super().__init__()
        self.a_min, self.a_max = a_min, a_max

    def forward(self, x):
        return torch.clamp(x, self.a_min, self.a_max)


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
            elif op == "clip":
                m = _Clip(float(a["a_min"]), float(a["a_max"]))
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
# FLOPs
# ---------------------------------------------------------------------------

def conv_fc_flops(graph, data_chw):
    """Convolution + FullyConnected FLOPs of one image (2 per multiply-add)."""
    nodes = graph["nodes"]
    out = {}
    total = 0
    for i, n in enumerate(nodes):
        if n["op"] == "null":
            if n["name"] == "data":
                out[(i, 0)] = (1,) + tuple(data_chw)
            continue
        ins = [out[(e[0], e[1])] for e in n["inputs"] if (e[0], e[1]) in out]
        in_shapes, outs = mxnet_zoo._infer_node(n["op"], n.get("attrs", {}), ins)
        for (src, idx, _), shp in zip(n["inputs"], in_shapes):
            out.setdefault((src, idx), shp)
        for j, shp in enumerate(outs):
            out[(i, j)] = shp
        if n["op"] in ("Convolution", "FullyConnected"):
            w = in_shapes[1]  # (out, in / groups, k...) or (hidden, in)
            total += 2 * int(np.prod(outs[0])) * int(np.prod(w[1:]))
    return total


# ---------------------------------------------------------------------------
# Runners
# ---------------------------------------------------------------------------

def stats(times_ms):
    t = np.asarray(times_ms)
    return {"median": float(np.median(t)), "p10": float(np.percentile(t, 10)),
            "p90": float(np.percentile(t, 90)), "min": float(t.min()), "runs": len(t)}


_LATENCY = re.compile(r"^latency: median ([0-9.]+) ms, p10 ([0-9.]+) ms, p90 ([0-9.]+) ms, "
                      r"min ([0-9.]+) ms over ([0-9]+) runs", re.M)


def times_callable(fn, warmup, runs):
    warm_start, warmups = time.perf_counter(), 0
    while warmups < warmup or time.perf_counter() - warm_start < ARGS.warmup_s:
        fn()
        warmups += 1
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return times


def one_line(e, limit=140):
    """A short reason for an n/a cell."""
    text = [t.strip() for t in str(e).strip().splitlines() if t.strip()]
    msg = text[0] if text else ""
    # Inductor's C++ compile errors: the compiler's first error line says most.
    for t in text:
        if "error:" in t or "No such file" in t or "not found" in t:
            msg = t
            break
    # Wrapped exceptions ("InductorError: InvalidCxxCompiler: ..."): the innermost name.
    if not re.match(r"^\w+(Error|Exception)\b", msg):
        msg = "%s: %s" % (type(e).__name__, msg)
    msg = re.sub(r"^(\w+(Error|Exception): )+(?=\w+(Error|Exception|Compiler)\b)", "", msg)
    msg = msg.replace("|", "/")
    return msg if len(msg) <= limit else msg[:limit - 3] + "..."


class NotAvailable(Exception):
    """The framework cannot run this network here (shown as n/a (reason))."""


class Framework(object):
    """One framework: net() once per network, batch() once per batch (returns
    the output for the check), times() per round."""

    key = None

    def net(self, ctx):
        pass

    def batch(self, ctx, batch, x):
        raise NotImplementedError

    def times(self, warmup, runs):
        raise NotImplementedError

    def done(self):
        pass

    def version(self):
        return ""


class Mxc(Framework):
    key = "mxc"

    def _cmd(self, ctx, batch):
        return [ARGS.mxc, "run", ctx["sym"], "--shape", "data=%d,%s" % (
            batch, ",".join(str(d) for d in ctx["chw"])), "--params", ctx["params"],
            "--input", "data=" + ctx["x_path"]]

    def batch(self, ctx, b, x):
        self.ctx, self.b = ctx, b
        out_dir = os.path.join(ARGS.work, "out-%s-%d" % (ctx["name"], b))
        if os.path.isdir(out_dir):
            for f in os.listdir(out_dir):
                os.remove(os.path.join(out_dir, f))
        cmd = self._cmd(ctx, b) + ["--output-dir", out_dir]
        t0 = time.time()
        r = subprocess.run(cmd, capture_output=True, text=True)
        self.first_s = time.time() - t0
        if r.returncode != 0:
            raise NotAvailable("mxc run failed (%d): %s" % (r.returncode, (r.stderr.strip() or
                                                                           r.stdout.strip())))
        files = sorted(f for f in os.listdir(out_dir) if f.endswith(".npy"))
        return np.load(os.path.join(out_dir, files[0]))

    def times(self, warmup, runs):
        cmd = self._cmd(self.ctx, self.b) + ["--warmup", str(warmup), "--warmup-ms",
                                             str(int(ARGS.warmup_s * 1000)), "--repeat",
                                             str(runs), "-v"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), r.returncode,
                                                       r.stderr.strip()))
        m = re.search(r"^mxc: timed runs \(ms\):((?: [0-9.]+)+)$", r.stderr, re.M)
        if not m or not _LATENCY.search(r.stdout):
            raise RuntimeError("no timing lines in mxc's output:\n" + r.stdout + r.stderr)
        return [float(t) for t in m.group(1).split()]

    def version(self):
        return "mxc %s (%s)" % (ARGS.mxc, sh("git -C %s describe --always --dirty" % ROOT))


class Ort(Framework):
    key = "ort"

    def net(self, ctx):
        so = ort.SessionOptions()
        so.intra_op_num_threads = ARGS.threads
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.sess = ort.InferenceSession(ctx["onnx"], so, providers=["CPUExecutionProvider"])

    def batch(self, ctx, b, x):
        self.feed = {"data": x}
        return self.sess.run(None, self.feed)[0]

    def times(self, warmup, runs):
        return times_callable(lambda: self.sess.run(None, self.feed), warmup, runs)

    def done(self):
        self.sess = None

    def version(self):
        return "onnxruntime %s" % ort.__version__


class OpenVINO(Framework):
    key = "ov"

    def net(self, ctx):
        if ov is None:
            raise NotAvailable(OV_ERROR)
        self.core = ov.Core()
        self.onnx = ctx["onnx"]
        self.req = self.compiled = None

    def batch(self, ctx, b, x):
        self.req = self.compiled = None
        model = self.core.read_model(self.onnx)
        model.reshape({"data": list(x.shape)})
        config = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": str(ARGS.threads),
                  "PERFORMANCE_HINT": "LATENCY"}
        t0 = time.time()
        self.compiled = self.core.compile_model(model, "CPU", config)
        self.first_s = time.time() - t0
        self.req = self.compiled.create_infer_request()
        self.x = x
        self.req.infer({"data": x})
        return np.array(self.req.get_output_tensor(0).data, copy=True)

    def times(self, warmup, runs):
        return times_callable(lambda: self.req.infer({"data": self.x}), warmup, runs)

    def done(self):
        self.req = self.compiled = None

    def version(self):
        return "openvino %s" % (ov.__version__ if ov is not None else "-")


class TorchEager(Framework):
    key = "torch"

    def net(self, ctx):
        self.model = ctx["model"]

    def batch(self, ctx, b, x):
        self.xt = torch.from_numpy(x)
        with torch.inference_mode():
            return self.model(self.xt).numpy()

    def times(self, warmup, runs):
        with torch.inference_mode():
            return times_callable(lambda: self.model(self.xt), warmup, runs)

    def done(self):
        self.model = None

    def version(self):
        return "torch %s" % torch.__version__


class TorchCompile(Framework):
    key = "compile"
    global_error = None  # set when compiling cannot work at all here

    def net(self, ctx):
        if TorchCompile.global_error:
            raise NotAvailable(TorchCompile.global_error)
        torch._dynamo.reset()
        self.fn = torch.compile(ctx["model"], dynamic=False)

    def batch(self, ctx, b, x):
        if TorchCompile.global_error:
            raise NotAvailable(TorchCompile.global_error)
        self.xt = torch.from_numpy(x)
        t0 = time.time()
        try:
            with torch.no_grad():
                y = self.fn(self.xt).numpy()
        except Exception as e:  # noqa: BLE001 - any compile failure is "n/a (reason)"
            reason = one_line(e)
            if re.search(r"CppCompileError|[Cc]ompiler|g\+\+|gcc|clang|Python\.h|InvalidCxx",
                         type(e).__name__ + str(e)):
                TorchCompile.global_error = reason  # no point retrying per network
            raise NotAvailable(reason)
        self.first_s = time.time() - t0
        return y

    def times(self, warmup, runs):
        with torch.no_grad():
            return times_callable(lambda: self.fn(self.xt), warmup, runs)

    def done(self):
        self.fn = None
        torch._dynamo.reset()

    def version(self):
        return "torch.compile (Inductor, C++ CPU backend, %s)" % (
            sh("c++ --version | head -1") or "no c++ found")


class MXNet(Framework):
    key = "mxnet"
    info = None

    def _env(self):
        env = dict(os.environ)
        env.update(OMP_NUM_THREADS=str(ARGS.threads), MKL_NUM_THREADS=str(ARGS.threads),
                   OPENBLAS_NUM_THREADS=str(ARGS.threads), MXNET_CPU_WORKER_NTHREADS="1",
                   MXNET_ENGINE_TYPE=ARGS.mxnet_engine, PYTHONNOUSERSITE="1")
        env.pop("PYTHONPATH", None)
        return env

    def _run(self, warmup, runs, out=None, warmup_s=0.0):
        cmd = [ARGS.mxnet_python, os.path.join(HERE, "mxnet_runner.py"), self.ctx["sym"],
               self.ctx["params"], self.ctx["x_path"], "--warmup", str(warmup),
               "--warmup-s", str(warmup_s), "--runs", str(runs)]
        if out:
            cmd += ["--out", out]
        if ARGS.mxnet_subgraph:
            cmd += ["--subgraph", ARGS.mxnet_subgraph]
        r = subprocess.run(cmd, capture_output=True, text=True, env=self._env())
        m = re.search(r"^MXNET_RUNNER (.*)$", r.stdout, re.M)
        if r.returncode != 0 or not m:
            err = [l for l in (r.stderr + r.stdout).strip().splitlines() if l.strip()]
            raise NotAvailable("mxnet_runner.py failed (%d): %s" % (
                r.returncode, err[-1] if err else ""))
        MXNet.info = json.loads(m.group(1))
        # MXNet logs the graph passes it applies when binding (1.9.1's oneDNN build
        # activates its MKLDNN subgraph backend, Conv+BN+ReLU fusion, by default).
        act = re.findall(r"Subgraph backend (\S+) is activated", r.stderr)
        MXNet.info["bind_subgraph"] = sorted(set(act))
        return MXNet.info

    def net(self, ctx):
        if not os.path.exists(ARGS.mxnet_python):
            raise NotAvailable("no MXNet venv at %s" % ARGS.mxnet_python)

    def batch(self, ctx, b, x):
        self.ctx = ctx
        out = os.path.join(ARGS.work, "mxnet-out-%s-%d.npy" % (ctx["name"], b))
        t0 = time.time()
        self._run(0, 1, out)
        self.first_s = time.time() - t0
        return np.load(out)

    def times(self, warmup, runs):
        return self._run(warmup, runs, warmup_s=ARGS.warmup_s)["times_ms"]

    def version(self):
        i = MXNet.info
        if not i:
            return "mxnet (%s)" % ARGS.mxnet_python
        return ("mxnet %s (numpy %s, oneDNN %s, %s, OMP_NUM_THREADS %s, 1 engine worker, "
                "%d threads in the process, %s doing >= 10%% of the work; subgraph backend at "
                "bind: %s%s)" % (
                    i["mxnet"], i["numpy"], "on" if i["mkldnn"] else "off", i["engine"],
                    i["omp_threads"], i["threads_in_process"], i.get("busy_threads", "?"),
                    ", ".join(i.get("bind_subgraph") or []) or "none",
                    "; optimize_for(%s)" % i["subgraph"] if i["subgraph"] else ""))


RUNNERS = {"mxc": Mxc, "ort": Ort, "ov": OpenVINO, "torch": TorchEager, "compile": TorchCompile,
           "mxnet": MXNet}


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


def max_rel_diff(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-30)))


def close(a, b):
    return bool(np.all(np.abs(np.asarray(a, np.float64) - b) <= ATOL + RTOL * np.abs(b)))


# ---------------------------------------------------------------------------
# Machine
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
    """(bench/gemm's output, its 2-thread SGEMM peak (GFLOP/s, shape) or None)."""
    script = os.path.join(ROOT, "bench", "gemm", "run.sh")
    if ARGS.no_gemm or not os.path.exists(script):
        return None, None
    build = os.path.dirname(os.path.dirname(os.path.abspath(ARGS.mxc)))
    env = dict(os.environ, REPS=os.environ.get("REPS", "30"))
    r = subprocess.run(["bash", script, build], capture_output=True, text=True, env=env)
    text = (r.stdout + ("\n" + r.stderr if r.returncode else "")).strip()
    return text, gemm_peak(text)


def gemm_peak(text):
    """The best 'openblas kernel' GEMM median in bench/gemm's 2-thread section."""
    part = text.split("== 2 threads", 1)
    if len(part) < 2:
        return None
    best, shape = None, None
    for m in re.finditer(r"^gemm (\S+) \(([^\n]*)\)\n\s+openblas kernel\s*: median\s+([0-9.]+) "
                         r"GFLOP/s", part[1], re.M):
        g = float(m.group(3))
        if best is None or g > best:
            best, shape = g, m.group(1)
    return (best, shape) if best is not None else None


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------

def main():
    frameworks = ARGS.frameworks
    os.makedirs(ARGS.work, exist_ok=True)
    runners = {f: RUNNERS[f]() for f in frameworks}
    started = datetime.datetime.now(datetime.timezone.utc)
    print("# CPU inference benchmark, %s" % started.strftime("%Y-%m-%d %H:%M UTC"))
    print("# machine: %s" % machine_line())
    print("# threads: %d for every framework (OMP/MKL/OPENBLAS_NUM_THREADS, torch.set_num_threads, "
          "ORT intra_op_num_threads, OpenVINO INFERENCE_NUM_THREADS, MXNet OMP_NUM_THREADS + "
          "1 engine worker)" % ARGS.threads)
    print("# %s; numpy %s; %s" % (", ".join(runners[f].version() for f in frameworks
                                            if f not in ("mxc", "mxnet")),
                                  np.__version__, runners["mxc"].version() if "mxc" in runners
                                  else "mxc not run"))
    per_round = -(-ARGS.runs // ARGS.rounds)
    print("# timing: %d interleaved rounds of %d warm-up passes (and more until %.2f s have "
          "passed) + %d timed passes per framework; median, p10, p90, min of the %d timed "
          "passes, ms" % (ARGS.rounds, ARGS.warmup, ARGS.warmup_s, per_round,
                          per_round * ARGS.rounds))
    load_before = load_line()
    print("# load average before: %s" % load_before)
    sys.stdout.flush()

    results = []  # dicts
    failed = False
    for name in ARGS.nets:
        pr = probe()
        print("# probe before %s: torch.mm 1024^3 %.0f GFLOP/s on %d threads, %.0f on 1; load %s" %
              (name, pr[0], ARGS.threads, pr[1], load_line()))
        graph = mxnet_zoo.graph(name)
        data_chw = tuple(mxnet_zoo.ALL_NETWORKS[name][1])
        flops = conv_fc_flops(graph, data_chw)
        sym_path = os.path.join(ARGS.work, "%s-symbol.json" % name)
        with open(sym_path, "w") as f:
            f.write(mxnet_zoo.dumps(graph))
        seed = SEED + SEED_INDEX.get(name, len(SEED_INDEX))
        values, kinds = make_values(graph, (1,) + data_chw, seed)
        model = MXNetGraphModule(graph, values)
        calibrate_batchnorm(model, values, (1,) + data_chw, seed)
        model.eval()
        params_path = os.path.join(ARGS.work, "%s-0000.params" % name)
        write_params(params_path, {"%s:%s" % (kinds[k], k): v for k, v in values.items()})
        del values
        onnx_path = os.path.join(ARGS.work, "%s.onnx" % name)
        if "ort" in frameworks or "ov" in frameworks:
            torch.onnx.export(model, (torch.zeros((1,) + data_chw),), onnx_path, dynamo=False,
                              opset_version=17, input_names=["data"], output_names=["softmax"],
                              dynamic_axes={"data": {0: "batch"}, "softmax": {0: "batch"}})
        ctx = {"name": name, "sym": sym_path, "params": params_path, "onnx": onnx_path,
               "model": model, "chw": data_chw}
        na_net = {}  # framework -> reason, for the whole network
        for fw in frameworks:
            try:
                runners[fw].net(ctx)
            except NotAvailable as e:
                na_net[fw] = str(e)
            except Exception as e:  # noqa: BLE001
                na_net[fw] = one_line(e)

        for batch in ARGS.batches:
            rng = np.random.default_rng(seed + 100 + batch)
            x = rng.uniform(-1, 1, (batch,) + data_chw).astype(np.float32)
            x_path = os.path.join(ARGS.work, "%s-x%d.npy" % (name, batch))
            np.save(x_path, x)
            ctx["x_path"] = x_path
            row = {"model": name, "batch": batch, "gflop_per_image": flops / 1e9, "check": {},
                   "latency": {}, "na": dict(na_net), "first_s": {}}

            # Check: the same outputs as PyTorch eager from every framework before timing.
            ref = runners["torch"].batch(ctx, batch, x)
            timed = []
            for fw in frameworks:
                if fw == "torch":
                    timed.append(fw)
                    continue
                if fw in row["na"]:
                    continue
                try:
                    out = runners[fw].batch(ctx, batch, x)
                except NotAvailable as e:
                    row["na"][fw] = str(e)
                    continue
                except Exception as e:  # noqa: BLE001
                    row["na"][fw] = one_line(e)
                    continue
                if getattr(runners[fw], "first_s", None) is not None:
                    row["first_s"][fw] = runners[fw].first_s
                ok = out.shape == ref.shape and close(out, ref)
                row["check"][fw] = {"max_rel_diff": max_rel_diff(out, ref) if out.shape == ref.shape
                                    else float("inf"), "ok": ok,
                                    "top1_agree": bool(out.shape == ref.shape and np.array_equal(
                                        out.argmax(1), ref.argmax(1)))}
                if ok:
                    timed.append(fw)
                else:
                    failed = True
            print("%-12s b%-2d check vs torch: %s; max softmax %.3g" % (
                name, batch, ", ".join("%s %.2e %s" % (fw, c["max_rel_diff"], "ok" if c["ok"]
                                                       else "FAIL (not timed)")
                                       for fw, c in row["check"].items()), float(ref.max())))
            for fw, reason in row["na"].items():
                print("%-12s b%-2d %-7s n/a (%s)" % (name, batch, fw, reason))
            if row["first_s"]:
                print("%-12s b%-2d first call (compile / load + one pass), s: %s" % (
                    name, batch, ", ".join("%s %.1f" % (fw, t) for fw, t in row["first_s"].items())))
            sys.stdout.flush()

            # Timing: interleaved rounds, the order rotating.
            times = {fw: [] for fw in timed}
            snap = cpu_snapshot()
            for r in range(ARGS.rounds):
                k = r % len(timed)
                for fw in timed[k:] + timed[:k]:
                    if fw not in times:
                        continue
                    try:
                        times[fw] += runners[fw].times(ARGS.warmup, per_round)
                    except Exception as e:  # noqa: BLE001
                        row["na"][fw] = "while timing: " + one_line(e)
                        del times[fw]
            row["other_cpu"] = other_cpu(snap, cpu_snapshot())
            print("%-12s b%-2d other CPU while timing: %.1f%%" % (name, batch, row["other_cpu"]))
            for fw in frameworks:
                if fw not in times:
                    continue
                s = row["latency"][fw] = stats(times[fw])
                s["gflops"] = flops * batch / (s["median"] * 1e-3) / 1e9
                print("%-12s b%-2d %-7s median %9.2f ms  p10 %9.2f  p90 %9.2f  min %9.2f  "
                      "(%d runs)  %5.0f GFLOP/s" % (name, batch, fw, s["median"], s["p10"], s["p90"],
                                                   s["min"], s["runs"], s["gflops"]))
            sys.stdout.flush()
            results.append(row)
        for fw in frameworks:
            runners[fw].done()
        ctx = None
        del model

    load_after = load_line()
    print("# load average after: %s" % load_after)
    if "mxnet" in runners:
        print("# %s" % runners["mxnet"].version())

    gemm_text, peak = gemm_bench()
    print()
    print_tables(results, frameworks, peak)
    if gemm_text:
        print()
        print("## GEMM (bench/gemm/run.sh: OpenBLAS kernel ABI that mxc calls vs transform-dialect "
              "codegen)")
        print(gemm_text)
    meta = {"date": started.strftime("%Y-%m-%d %H:%M UTC"), "machine": machine_line(),
            "threads": ARGS.threads, "rounds": ARGS.rounds, "runs": per_round * ARGS.rounds,
            "load_before": load_before, "load_after": load_after,
            "git": sh("git -C %s describe --always --dirty" % ROOT),
            "gemm_peak_gflops": peak[0] if peak else None}
    if ARGS.json:
        with open(ARGS.json, "w") as f:
            json.dump(dict(meta, warmup=ARGS.warmup, frameworks=frameworks, results=results), f,
                      indent=1)
    if not ARGS.no_plot and results:
        try:
            plot(results, frameworks, meta, ARGS.plot)
            print("\n# plot: %s" % ARGS.plot)
        except ImportError as e:
            print("\n# no plot (%s)" % e)
    return 1 if failed else 0


# ---------------------------------------------------------------------------
# Tables and plot
# ---------------------------------------------------------------------------

def _cell_latency(r, f):
    s = r["latency"].get(f)
    if s:
        return "%.1f (%.1f-%.1f)" % (s["median"], s["p10"], s["p90"])
    if f in r["na"]:
        return "n/a (%s)" % r["na"][f]
    c = r["check"].get(f)
    if c and not c["ok"]:
        return "FAIL (check)"
    return "-"


def _fastest_peer(r):
    peers = [(s["median"], f) for f, s in r["latency"].items() if f != "mxc"]
    return min(peers) if peers else None


def print_tables(results, frameworks, peak):
    peers = [f for f in frameworks if f != "mxc"]
    peak_line = ("GEMM peak (measured, bench/gemm: OpenBLAS SGEMM through mxc's kernel ABI, "
                 "2 threads): %.0f GFLOP/s (%s)" % peak if peak else
                 "GEMM peak: not measured (--no-gemm, or bench/gemm failed)")
    all_ratios = {f: [] for f in peers + ["fastest"]}
    for batch in sorted(set(r["batch"] for r in results)):
        rows = [r for r in results if r["batch"] == batch]
        print("### Batch %d: latency, ms (median (p10-p90))" % batch)
        print()
        head = ["model"] + [LABELS[f] for f in frameworks]
        if "mxc" in frameworks:
            head += ["mxc / %s" % SHORT[f] for f in peers] + ["mxc / fastest peer"]
        head += ["max rel diff vs PyTorch", "other CPU"]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        ratios = {f: [] for f in peers + ["fastest"]}
        for r in rows:
            lat = r["latency"]
            cells = [PRETTY.get(r["model"], r["model"])] + [_cell_latency(r, f) for f in frameworks]
            if "mxc" in frameworks:
                for f in peers:
                    if "mxc" in lat and f in lat:
                        q = lat["mxc"]["median"] / lat[f]["median"]
                        ratios[f].append(q)
                        cells.append("%.2f" % q)
                    else:
                        cells.append("-")
                best = _fastest_peer(r)
                if "mxc" in lat and best:
                    q = lat["mxc"]["median"] / best[0]
                    ratios["fastest"].append(q)
                    cells.append("%.2f (%s)" % (q, SHORT[best[1]]))
                else:
                    cells.append("-")
            cells.append(", ".join("%s %.1e" % (SHORT[fw], c["max_rel_diff"])
                                   for fw, c in r["check"].items()))
            cells.append("%.0f%%" % r["other_cpu"] if "other_cpu" in r else "-")
            print("| " + " | ".join(cells) + " |")
        if "mxc" in frameworks and len(rows) > 1:
            cells = ["median row"] + [""] * len(frameworks)
            cells += ["%.2f" % float(np.median(ratios[f])) if ratios[f] else "-" for f in peers]
            cells += ["%.2f" % float(np.median(ratios["fastest"])) if ratios["fastest"] else "-"]
            cells += ["", ""]
            print("| " + " | ".join(cells) + " |")
        if "mxc" in frameworks:
            # Issue 13's bar: faster than ORT and MXNet on every row, and than the fastest
            # peer on the median row.
            bar = []
            for f in ("ort", "mxnet"):
                if f in peers:
                    n = len(ratios[f])
                    bar.append("mxc faster than %s on %d of %d rows" % (
                        SHORT[f], sum(q < 1 for q in ratios[f]), n))
            if ratios["fastest"]:
                bar.append("median mxc / fastest peer %.2f" % float(np.median(ratios["fastest"])))
            print()
            print("Issue 13 bar: " + "; ".join(bar) + ".")
            for f in all_ratios:
                all_ratios[f] += ratios[f]
        print()
        print("### Batch %d: GFLOP/s (convolution + FullyConnected FLOPs / median latency)" % batch)
        print()
        print(peak_line)
        print()
        head = ["model", "GFLOP / image"] + [LABELS[f] for f in frameworks]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in rows:
            cells = [PRETTY.get(r["model"], r["model"]), "%.2f" % r["gflop_per_image"]]
            for f in frameworks:
                s = r["latency"].get(f)
                if s:
                    g = ("%.0f" if s["gflops"] >= 10 else "%.1f") % s["gflops"]
                    cells.append("%s (%.0f%%)" % (g, 100 * s["gflops"] / peak[0]) if peak else g)
                else:
                    cells.append("n/a" if f in r["na"] else "-")
            print("| " + " | ".join(cells) + " |")
        if peak:
            print()
            print("(in brackets: % of the measured GEMM peak)")
        print()
    if "mxc" in frameworks and len(set(r["batch"] for r in results)) > 1 and all_ratios["fastest"]:
        print("All rows, both batches: median mxc / peer: %s; median mxc / fastest peer %.2f "
              "(< 1: mxc faster)." % (", ".join("%s %.2f" % (SHORT[f], float(np.median(all_ratios[f])))
                                                 for f in peers if all_ratios[f]),
                                      float(np.median(all_ratios["fastest"]))))
        print()


def plot(results, frameworks, meta, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    batches = sorted(set(r["batch"] for r in results))
    norm = "mxc" in frameworks
    nets = len(set(r["model"] for r in results))
    fig, axes = plt.subplots(len(batches), 1, figsize=(max(7.0, 1.5 + 1.45 * nets),
                                                       1.2 + 3.4 * len(batches)),
                             squeeze=False, sharey=True)
    axes = [[a[0] for a in axes]]  # one panel per batch, stacked
    colors = {"mxc": "#d62728", "ort": "#1f77b4", "ov": "#9467bd", "torch": "#ff7f0e",
              "compile": "#e6a03c", "mxnet": "#2ca02c"}
    width = 0.8 / len(frameworks)
    for ax, batch in zip(axes[0], batches):
        rows = [r for r in results if r["batch"] == batch]
        for j, f in enumerate(frameworks):
            xs, ys = [], []
            for i, r in enumerate(rows):
                s = r["latency"].get(f)
                base = r["latency"].get("mxc") if norm else None
                if s and (base or not norm):
                    xs.append(i + (j - (len(frameworks) - 1) / 2) * width)
                    ys.append(s["median"] / base["median"] if norm else s["median"])
                elif not s:
                    ax.text(i + (j - (len(frameworks) - 1) / 2) * width, 1.0 if norm else 1.0,
                            "n/a", rotation=90, ha="center", va="bottom", fontsize=6,
                            color=colors.get(f, "k"))
            ax.bar(xs, ys, width, label=LABELS[f], color=colors.get(f))
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels(["%s\n%s" % (PRETTY.get(r["model"], r["model"]),
                                        ("mxc %.1f ms" % r["latency"]["mxc"]["median"])
                                        if "mxc" in r["latency"] else "")
                            for r in rows], fontsize=8)
        if norm:
            ax.axhline(1.0, color="k", lw=0.6)
            ax.set_ylabel("latency / mxc's (log; < 1: faster than mxc)")
        else:
            ax.set_ylabel("latency, ms (log)")
        ax.set_title("batch %d" % batch)
        ax.grid(axis="y", which="both", lw=0.3, alpha=0.5)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, frameon=False)
    busy = max((r.get("other_cpu", 0.0) for r in results), default=0.0)
    fig.suptitle("CPU inference, median latency, %d threads each\n%s, %s; %d rounds, %d timed "
                 "passes; load average %s -> %s; other CPU while timing up to %.0f%%" % (
                     meta["threads"], meta["date"], meta["git"], meta["rounds"], meta["runs"],
                     meta["load_before"], meta["load_after"], busy), fontsize=8)
    fig.tight_layout(rect=(0, 0.035, 1, 1))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
