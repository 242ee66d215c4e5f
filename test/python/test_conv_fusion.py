"""mx-fuse-convolution: Convolution + BatchNorm (inference) + relu / clip +
residual add as one runtime kernel (mxc_kernel_conv_fused_f32), through
`mxc run`, against the numpy references of the unfused ops (f64), rtol 1e-4.

The cases cover the kernel's paths: oneDNN's blocked convolutions (weights
scaled by their re-layout, bias + shift as the convolution's bias, relu /
clip as an eltwise post-op, the sum added by the re-layout back), its GEMM
convolution on NCHW (1x1, few output pixels: the epilogue loop, on a dense
result of its own with a sum), depthwise and grouped convolutions, parts by
images (batch >= threads) and by filters; a residual that is used again
(bufferization copies it) and one that is not (the kernel writes over it);
the weights' re-laid copy kept across passes (`mxc run` compiles with
constant parameters), also for one weight shared by two convolutions with
different BatchNorms, and against MXC_CONV_KEEP_WEIGHTS=0;
and the same graphs with MXC_CONV_IMPL=im2col (the runtime's own
convolution and epilogue loop, as on aarch64). Each case also checks that
the compiled code calls the fused kernel, and the chain stops where a value
has another user.
"""
import json
import os
import subprocess
import tempfile

import numpy as np
import pytest

from mxc_testing import assert_close, mxc_binary, run_graph, write_params
from mxnet_ref import REF

RTOL = 1e-4


def _attrs(d):
    out = {}
    for k, v in d.items():
        if isinstance(v, tuple):
            out[k] = "(" + ", ".join(str(x) for x in v) + ")"
        elif isinstance(v, bool):
            out[k] = "True" if v else "False"
        else:
            out[k] = str(v)
    return out


class Graph:
    """A small symbol JSON built node by node."""

    def __init__(self):
        self.nodes, self.args = [], []

    def var(self, name):
        self.args.append(len(self.nodes))
        self.nodes.append({"op": "null", "name": name, "inputs": []})
        return len(self.nodes) - 1

    def op(self, op, name, inputs, **attrs):
        node = {"op": op, "name": name, "inputs": [[i, 0, 0] for i in inputs]}
        if attrs:
            node["attrs"] = _attrs(attrs)
        self.nodes.append(node)
        return len(self.nodes) - 1

    def json(self, heads):
        return {"nodes": self.nodes, "arg_nodes": self.args,
                "heads": [[h, 0, 0] for h in heads],
                "attrs": {"mxnet_version": ["int", 10901]}}


def build(case, rng):
    """The graph of `case`, its parameters and the numpy expectation of
    every head (f64 references of the unfused ops)."""
    shape, filters, conv_attrs = case["shape"], case["filters"], dict(case["conv"])
    groups = conv_attrs.get("num_group", 1)
    kernel = conv_attrs["kernel"]
    no_bias = conv_attrs.get("no_bias", False)
    g = Graph()
    params = {}
    data = g.var("data")
    w = g.var("conv_weight")
    params["conv_weight"] = rng.uniform(-1, 1, (filters, shape[1] // groups) + kernel).astype(np.float32)
    conv_in = [data, w]
    if not no_bias:
        conv_in.append(g.var("conv_bias"))
        params["conv_bias"] = rng.uniform(-1, 1, (filters,)).astype(np.float32)
    cur = g.op("Convolution", "conv", conv_in, num_filter=filters, **conv_attrs)
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    inputs = [x, params["conv_weight"]] + ([] if no_bias else [params["conv_bias"]])
    str_conv = _attrs(dict(conv_attrs, num_filter=filters))
    ref = REF["Convolution"](inputs, str_conv)[0].astype(np.float64)
    if "bn" in case:
        bn_attrs = dict(case["bn"])
        names = ["bn_gamma", "bn_beta", "bn_moving_mean", "bn_moving_var"]
        ids = [g.var(n) for n in names]
        params["bn_gamma"] = rng.uniform(0.5, 1.5, filters).astype(np.float32)
        params["bn_beta"] = rng.uniform(-0.5, 0.5, filters).astype(np.float32)
        params["bn_moving_mean"] = rng.uniform(-0.5, 0.5, filters).astype(np.float32)
        params["bn_moving_var"] = rng.uniform(0.5, 2.0, filters).astype(np.float32)
        cur = g.op("BatchNorm", "bn", [cur] + ids, **bn_attrs)
        ref = REF["BatchNorm"]([ref] + [params[n].astype(np.float64) for n in names],
                               _attrs(bn_attrs))[0]
    act = case.get("act")
    if act == "relu":
        cur = g.op("Activation", "act", [cur], act_type="relu")
        ref = np.maximum(ref, 0)
    elif act == "relu_op":
        cur = g.op("relu", "act", [cur])
        ref = np.maximum(ref, 0)
    elif act == "clip":
        cur = g.op("clip", "act", [cur], a_min=0.0, a_max=6.0)
        ref = np.clip(ref, 0, 6)
    heads = []
    expected = []
    if case.get("sum"):
        # The residual: a graph input times two, so that it is computed
        # (a buffer of the graph) and, with reuse, read again afterwards.
        res_in = g.var("res")
        r = rng.uniform(-1, 1, ref.shape).astype(np.float32)
        params["res"] = r
        res = g.op("_mul_scalar", "res2", [res_in], scalar=2.0)
        cur = g.op(case["sum"], "add", [res, cur] if case.get("sum_first") else [cur, res])
        ref = ref + 2.0 * r.astype(np.float64)
        if case.get("reuse"):
            heads.append(g.op("_plus_scalar", "again", [res], scalar=1.0))
            expected.append(2.0 * r.astype(np.float64) + 1.0)
    heads.insert(0, cur)
    expected.insert(0, ref)
    return g.json(heads), x, params, expected


CASES = {
    # oneDNN blocked (3x3, 256 output pixels), bias, BatchNorm with gamma, relu.
    "blocked_bn_relu": dict(shape=(1, 8, 16, 16), filters=16, conv={"kernel": (3, 3), "pad": (1, 1)},
                            bn={"fix_gamma": False, "eps": 1e-5}, act="relu"),
    # fix_gamma (MXNet's default), no bias, clip (ReLU6), stride 2.
    "blocked_bn_clip": dict(shape=(1, 8, 32, 32), filters=24, conv={"kernel": (3, 3), "pad": (1, 1), "stride": (2, 2), "no_bias": True},
                            bn={}, act="clip"),
    # 1x1: oneDNN's GEMM convolution, the epilogue loop.
    "pointwise_bn_clip": dict(shape=(1, 16, 14, 14), filters=40, conv={"kernel": (1, 1), "no_bias": True},
                              bn={"fix_gamma": False}, act="clip"),
    # depthwise 3x3, BatchNorm, clip (MobileNet's middle layer).
    "depthwise_bn_clip": dict(shape=(1, 24, 20, 20), filters=24, conv={"kernel": (3, 3), "pad": (1, 1), "num_group": 24, "no_bias": True},
                              bn={"fix_gamma": False}, act="clip"),
    # grouped, batch 4 (parts by images), bias, fix_gamma, relu op, residual.
    "grouped_batch_sum": dict(shape=(4, 8, 12, 12), filters=16, conv={"kernel": (3, 3), "pad": (1, 1), "num_group": 2},
                              bn={}, act="relu_op", sum="elemwise_add"),
    # blocked + BatchNorm + residual (re-layout back with a sum), residual used again.
    "blocked_bn_sum_reused": dict(shape=(1, 8, 16, 16), filters=16, conv={"kernel": (3, 3), "pad": (1, 1), "no_bias": True},
                                  bn={"fix_gamma": False}, sum="broadcast_add", sum_first=True, reuse=True),
    # 1x1 + BatchNorm + residual (MobileNet's projection), residual's last use.
    "pointwise_bn_sum": dict(shape=(1, 16, 10, 10), filters=16, conv={"kernel": (1, 1), "no_bias": True},
                             bn={"fix_gamma": False}, sum="elemwise_add"),
    # few output pixels (3x3 on 6x6: the NCHW path), bias, relu, residual.
    "small_map_relu_sum": dict(shape=(1, 8, 6, 6), filters=32, conv={"kernel": (3, 3), "pad": (1, 1)},
                               act="relu", sum="elemwise_add"),
    # no BatchNorm: bias + relu only, batch 3, stride and dilation.
    "relu_only": dict(shape=(3, 4, 20, 20), filters=8, conv={"kernel": (3, 3), "pad": (2, 2), "dilate": (2, 2), "stride": (2, 2)},
                      act="relu"),
}


def _fused_calls(symbol, x, params):
    """How many fused convolution kernels `mxc codegen` emits for the graph."""
    with tempfile.TemporaryDirectory(prefix="mxc-fuse-") as tmp:
        sym = os.path.join(tmp, "m-symbol.json")
        with open(sym, "w") as f:
            json.dump(symbol, f)
        write_params(os.path.join(tmp, "m.params"), params)
        out = os.path.join(tmp, "m.mlir")
        p = subprocess.run([mxc_binary(), "codegen", sym, "--params", os.path.join(tmp, "m.params"),
                            "--shape", "data=" + ",".join(map(str, x.shape)),
                            "--emit=mlir-linalg", "-o", out], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        text = open(out).read()
        return text.count("@mxc_kernel_conv_fused_f32("), text.count("@mxc_kernel_conv_f32(")


@pytest.mark.parametrize("impl", ["default", "im2col"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_conv_fusion(name, impl, monkeypatch):
    if impl == "im2col":
        monkeypatch.setenv("MXC_CONV_IMPL", "im2col")
    rng = np.random.default_rng(sorted(CASES).index(name) + 11)
    symbol, x, params, expected = build(CASES[name], rng)
    # Three passes: `mxc run` keeps constant weights re-laid from the first
    # (constant_weights); the outputs are the last pass's.
    got = list(run_graph(symbol, {"data": x}, params=params, extra_args=["--repeat", "3"]).values())
    assert len(got) == len(expected)
    for i, (a, e) in enumerate(zip(got, expected)):
        assert_close(a, e.astype(np.float32), rtol=RTOL, atol=1e-5, name="%s head %d" % (name, i))
    # The same graph unfused gives the same values (to rounding).
    plain = list(run_graph(symbol, {"data": x}, params=params, extra_args=["--no-conv-fusion"]).values())
    for a, b in zip(got, plain):
        assert_close(a, b, rtol=RTOL, atol=1e-5, name="%s vs --no-conv-fusion" % name)
    if impl == "default":
        assert _fused_calls(symbol, x, params) == (1, 0)


def test_conv_fusion_stops_at_second_user():
    """A BatchNorm output read twice: conv + BatchNorm fuse, the relu and the
    other reader take the fused result; a convolution whose output has two
    users is not fused at all."""
    rng = np.random.default_rng(3)
    g = Graph()
    data, w = g.var("data"), g.var("w")
    conv = g.op("Convolution", "conv", [data, w], kernel=(3, 3), pad=(1, 1), num_filter=8, no_bias=True)
    relu = g.op("Activation", "relu", [conv], act_type="relu")
    other = g.op("_mul_scalar", "twice", [conv], scalar=2.0)
    symbol = g.json([relu, other])
    x = rng.uniform(-1, 1, (1, 4, 16, 16)).astype(np.float32)
    params = {"w": rng.uniform(-1, 1, (8, 4, 3, 3)).astype(np.float32)}
    assert _fused_calls(symbol, x, params) == (0, 1)
    got = list(run_graph(symbol, {"data": x}, params=params).values())
    c = REF["Convolution"]([x, params["w"]], _attrs({"kernel": (3, 3), "pad": (1, 1), "num_filter": 8, "no_bias": True}))[0]
    assert_close(got[0], np.maximum(c, 0), rtol=RTOL, atol=1e-5)
    assert_close(got[1], 2 * c, rtol=RTOL, atol=1e-5)


def test_conv_fusion_input_as_residual():
    """ResNet's identity shortcut: the residual is the graph's input itself,
    which the kernel must not write over (it accumulates into a copy); three
    runs in one process give the same result."""
    rng = np.random.default_rng(4)
    g = Graph()
    data, w = g.var("data"), g.var("w")
    names = ["g", "b", "m", "v"]
    ids = [g.var(n) for n in names]
    conv = g.op("Convolution", "conv", [data, w], kernel=(3, 3), pad=(1, 1), num_filter=8, no_bias=True)
    bn = g.op("BatchNorm", "bn", [conv] + ids, fix_gamma=False)
    add = g.op("elemwise_add", "add", [bn, data])
    symbol = g.json([add])
    x = rng.uniform(-1, 1, (1, 8, 16, 16)).astype(np.float32)
    params = {"w": rng.uniform(-1, 1, (8, 8, 3, 3)).astype(np.float32),
              "g": rng.uniform(0.5, 1.5, 8).astype(np.float32),
              "b": rng.uniform(-0.5, 0.5, 8).astype(np.float32),
              "m": rng.uniform(-0.5, 0.5, 8).astype(np.float32),
              "v": rng.uniform(0.5, 2.0, 8).astype(np.float32)}
    assert _fused_calls(symbol, x, params) == (1, 0)
    c = REF["Convolution"]([x, params["w"]], _attrs({"kernel": (3, 3), "pad": (1, 1), "num_filter": 8, "no_bias": True}))[0]
    y = REF["BatchNorm"]([c.astype(np.float64)] + [params[n].astype(np.float64) for n in names],
                         {"fix_gamma": "False"})[0] + x
    got = list(run_graph(symbol, {"data": x}, params=params, extra_args=["--repeat", "3"]).values())
    assert_close(got[0], y.astype(np.float32), rtol=RTOL, atol=1e-5)


@pytest.mark.parametrize("keep", ["1", "0"])
def test_conv_fusion_shared_weight_two_batchnorms(keep, monkeypatch):
    """One weight, two convolutions, each with its own BatchNorm: the kernel
    keeps a re-laid, scaled copy per scale (the weights' address is the same);
    both heads match numpy over three passes, with kept copies (the default
    of `mxc run`) and without (MXC_CONV_KEEP_WEIGHTS=0)."""
    monkeypatch.setenv("MXC_CONV_KEEP_WEIGHTS", keep)
    rng = np.random.default_rng(5)
    g = Graph()
    data, w = g.var("data"), g.var("w")
    heads, refs, params = [], [], {"w": rng.uniform(-1, 1, (16, 8, 3, 3)).astype(np.float32)}
    x = rng.uniform(-1, 1, (1, 8, 6, 6)).astype(np.float32)
    c = REF["Convolution"]([x, params["w"]], _attrs({"kernel": (3, 3), "pad": (1, 1), "num_filter": 16,
                                                     "no_bias": True}))[0].astype(np.float64)
    for k in range(2):
        names = ["g%d" % k, "b%d" % k, "m%d" % k, "v%d" % k]
        ids = [g.var(n) for n in names]
        params.update({names[0]: rng.uniform(0.5, 1.5, 16).astype(np.float32),
                       names[1]: rng.uniform(-0.5, 0.5, 16).astype(np.float32),
                       names[2]: rng.uniform(-0.5, 0.5, 16).astype(np.float32),
                       names[3]: rng.uniform(0.5, 2.0, 16).astype(np.float32)})
        conv = g.op("Convolution", "conv%d" % k, [data, w], kernel=(3, 3), pad=(1, 1), num_filter=16,
                    no_bias=True)
        bn = g.op("BatchNorm", "bn%d" % k, [conv] + ids, fix_gamma=False)
        heads.append(g.op("Activation", "relu%d" % k, [bn], act_type="relu"))
        refs.append(np.maximum(REF["BatchNorm"]([c] + [params[n].astype(np.float64) for n in names],
                                                {"fix_gamma": "False"})[0], 0))
    symbol = g.json(heads)
    assert _fused_calls(symbol, x, params) == (2, 0)
    got = list(run_graph(symbol, {"data": x}, params=params, extra_args=["--repeat", "3"]).values())
    for i, (a, e) in enumerate(zip(got, refs)):
        assert_close(a, e.astype(np.float32), rtol=RTOL, atol=1e-5, name="head %d" % i)
