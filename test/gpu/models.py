"""The graphs scripts/gpu-check.sh runs on a GPU: each is compiled here with
`mxc compile --target cuda` into an executable, its inputs drawn here, and
its outputs computed here by mxc's CPU backend (the reference the GPU's
outputs are compared with on the device machine).

    python test/gpu/models.py OUTDIR     (PYTHONPATH: the build's python package)

writes OUTDIR/<name>-symbol.json, OUTDIR/<name>.shapes (the --shape
arguments), OUTDIR/<name>.tol (rtol atol of the comparison), OUTDIR/<name>.in/<input>.npy and OUTDIR/<name>.ref/<output>.npy.
"""
import json
import os
import sys

import numpy as np

import mxc as mx

sym = mx.sym


def unary():
    x = sym.var("x")
    a = sym.abs(x)
    outs = [sym.exp(-a), sym.log(a + 1), sym.sqrt(a), sym.rsqrt(a + 1), sym.tanh(x),
            sym.sigmoid(x), sym.relu(x), sym.Activation(x, act_type="softrelu"),
            sym.softsign(x), sym.sin(x), sym.cos(x), sym.square(x),
            sym.floor(x), sym.ceil(x), sym.clip(x, -0.5, 0.5), sym.LeakyReLU(x, slope=0.1),
            sym.reciprocal(a + 1), sym.expm1(-a), sym.log1p(a), sym.sign(x)]
    return sym.Group(outs), {"x": (3, 7, 129)}


def broadcast():
    a, b = sym.var("a"), sym.var("b")
    pos = sym.abs(a) + 0.5
    outs = [sym.broadcast_add(a, b), sym.broadcast_sub(a, b), sym.broadcast_mul(a, b),
            sym.broadcast_div(a, sym.abs(b) + 1), sym.broadcast_maximum(a, b),
            sym.broadcast_minimum(a, b), sym.broadcast_power(pos, b),
            sym.broadcast_greater(a, b), sym.where(a > 0, a, a * 2),
            a * 3 - 1, sym.broadcast_to(b, shape=(8, 5, 300))]
    return sym.Group(outs), {"a": (8, 1, 300), "b": (1, 5, 300)}


def reductions():
    x = sym.var("x")
    outs = [sym.sum(x, axis=2), sym.mean(x, axis=(0, 2)), sym.max(x, axis=1),
            sym.min(x, axis=0), sym.prod(x * 0.1 + 1, axis=2), sym.sum(x, axis=1, keepdims=True),
            sym.norm(x, axis=2), sym.argmax(x, axis=2), sym.sum(x)]
    return sym.Group(outs), {"x": (6, 7, 300)}


def softmax():
    x = sym.var("x")
    outs = [sym.softmax(x, axis=-1), sym.log_softmax(x, axis=-1), sym.softmax(x, axis=0)]
    return sym.Group(outs), {"x": (32, 1000)}


def fused_chain():
    """A long elementwise chain mx-fuse-elementwise makes one kernel."""
    x, y = sym.var("x"), sym.var("y")
    z = sym.relu(x * 0.5 + y)
    z = sym.tanh(z) * sym.sigmoid(y) + sym.exp(-sym.abs(x))
    return z, {"x": (64, 1024, 33), "y": (64, 1024, 33)}


def mlp():
    """FullyConnected (cuBLAS GEMM + bias) with elementwise kernels between."""
    x = sym.var("x")
    h = sym.FullyConnected(x, num_hidden=256, name="fc1")
    h = sym.Activation(h, act_type="relu", name="relu1")
    h = sym.FullyConnected(h, num_hidden=64, name="fc2")
    h = sym.Activation(h, act_type="tanh", name="tanh2")
    h = sym.FullyConnected(h, num_hidden=10, no_bias=True, name="fc3")
    return sym.softmax(h, axis=-1), {"x": (32, 784), "fc1_weight": (256, 784),
                                     "fc1_bias": (256,), "fc2_weight": (64, 256),
                                     "fc2_bias": (64,), "fc3_weight": (10, 64)}


def matmul():
    """dot (both transposes) and batch_dot: cuBLAS GEMM and strided batches."""
    a, b, c = sym.var("a"), sym.var("b"), sym.var("c")
    outs = [sym.dot(a, b), sym.dot(a, a, transpose_b=True), sym.dot(b, b, transpose_a=True),
            sym.batch_dot(c, c, transpose_b=True)]
    return sym.Group(outs), {"a": (33, 70), "b": (70, 45), "c": (6, 17, 29)}


# (rtol, atol) of the GPU's outputs against the CPU's where the default
# (2e-5, 2e-6) is too tight: cuBLAS and OpenBLAS sum in other orders.
TOLERANCE = {"mlp": (1e-4, 1e-5), "matmul": (1e-4, 1e-4)}

MODELS = {"unary": unary, "broadcast": broadcast, "reductions": reductions,
          "softmax": softmax, "fused_chain": fused_chain, "mlp": mlp, "matmul": matmul}


def main(outdir, names=None):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(7)
    for name, build in MODELS.items():
        if names and name not in names:
            continue
        s, shapes = build()
        s.save(os.path.join(outdir, name + "-symbol.json"))
        with open(os.path.join(outdir, name + ".tol"), "w") as f:
            f.write("%g %g\n" % TOLERANCE.get(name, (2e-5, 2e-6)))
        with open(os.path.join(outdir, name + ".shapes"), "w") as f:
            f.write(" ".join("--shape %s=%s" % (k, ",".join(map(str, v)))
                             for k, v in shapes.items()) + "\n")
        inputs = {k: rng.standard_normal(v).astype(np.float32) for k, v in shapes.items()}
        os.makedirs(os.path.join(outdir, name + ".in"), exist_ok=True)
        for k, v in inputs.items():
            np.save(os.path.join(outdir, name + ".in", k + ".npy"), v)
        exe = s.simple_bind(mx.cpu(), grad_req="null", **shapes)
        outs = exe.forward(is_train=False, **{k: mx.nd.array(v) for k, v in inputs.items()})
        os.makedirs(os.path.join(outdir, name + ".ref"), exist_ok=True)
        for oname, o in zip(s.list_outputs(), outs):
            np.save(os.path.join(outdir, name + ".ref", oname + ".npy"), o.asnumpy())
        print("%s: %d inputs, %d outputs" % (name, len(inputs), len(outs)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
