"""The graphs scripts/gpu-check.sh runs on a GPU: each is compiled here with
`mxc compile --target cuda` into an executable, its inputs drawn here, and
its outputs computed here by mxc's CPU backend (the reference the GPU's
outputs are compared with on the device machine).

    python test/gpu/models.py OUTDIR     (PYTHONPATH: the build's python package)

writes OUTDIR/<name>-symbol.json, OUTDIR/<name>.shapes (the --shape
arguments), OUTDIR/<name>.tol (rtol atol of the comparison, and `scaled` for
gradients: test/gpu/compare.py), OUTDIR/<name>-0000.params (auxiliary
states, when the graph has some), OUTDIR/<name>.in/<input>.npy and
OUTDIR/<name>.ref/<output>.npy.

The op groups (test/gpu/ops.py's OPS: every operator of the CPU op tests
that has a GPU path, one node each) have drawn inputs and float64
references, like the training graphs; their training steps (ops.GRADS:
every float input's gradient, ones as head gradients) too.

The training graphs (TRAINING) are training steps: `mxc compile --train
--weights inputs` (OUTDIR/<name>.compile holds those arguments), forward
(is_train=True) and backward with ones as head gradients, outputs the heads
and every parameter's gradient <param>_grad. Their inputs, weights included,
are drawn from OUTDIR/<name>.gen.json by test/gpu/inputs.py (where they are
used: on the device machine too) instead of being written to <name>.in/ (as
are the inputs of the inference graphs in DRAWN_INPUTS), and
references of more than 65536 elements are samples (<output>.sample.npz,
compare.save_reference): ResNet-18's weights and gradients would not fit the
device tool's transfer.
"""
import json
import os
import sys

import numpy as np

import mxc as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
sys.path.insert(0, HERE)
import mxc_testing  # noqa: E402  (test/python: .params writer)
import compare  # noqa: E402  (test/gpu: sampled references)
import inputs as gen_inputs  # noqa: E402  (test/gpu: drawn inputs)
import ops  # noqa: E402  (test/gpu: op coverage)

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
    return z, {"x": (16, 1024, 33), "y": (16, 1024, 33)}


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


def convnet():
    """Convolutions (cuDNN: 3x3 padded, strided, grouped, depthwise, 1x1,
    with and without bias), inference BatchNorm, LRN (generated for the GPU;
    the CPU reference runs the runtime's LRN kernel), pooling, then a
    classifier."""
    x = sym.var("x")
    h = sym.Convolution(x, sym.var("c1_w"), sym.var("c1_b"), kernel=(3, 3), pad=(1, 1),
                        num_filter=16, name="c1")
    h = sym.BatchNorm(h, sym.var("bn_g"), sym.var("bn_b"), sym.var("bn_m"), sym.var("bn_v"),
                      fix_gamma=False, name="bn1")
    h = sym.Activation(h, act_type="relu")
    h = sym.LRN(h, nsize=5, alpha=0.01, name="lrn1")
    h = sym.Pooling(h, kernel=(2, 2), stride=(2, 2), pool_type="max")
    h = sym.Convolution(h, sym.var("c2_w"), kernel=(3, 3), stride=(2, 2), num_filter=32,
                        num_group=4, no_bias=True, name="c2")
    h = sym.Convolution(h, sym.var("c3_w"), kernel=(3, 3), pad=(1, 1), num_filter=32,
                        num_group=32, no_bias=True, name="dw3")
    h = sym.Convolution(h, sym.var("c4_w"), sym.var("c4_b"), kernel=(1, 1), num_filter=24,
                        name="pw4")
    h = sym.Pooling(h, kernel=(2, 2), pool_type="avg", global_pool=True)
    h = sym.FullyConnected(sym.flatten(h), sym.var("fc_w"), sym.var("fc_b"), num_hidden=10)
    return h, {"x": (8, 3, 32, 32), "c1_w": (16, 3, 3, 3), "c1_b": (16,), "bn_g": (16,),
               "bn_b": (16,), "bn_m": (16,), "bn_v": (16,), "c2_w": (32, 4, 3, 3),
               "c3_w": (32, 1, 3, 3), "c4_w": (24, 32, 1, 1), "c4_b": (24,), "fc_w": (10, 24),
               "fc_b": (10,)}


# (rtol, atol) of the GPU's outputs against the CPU's where the default
# (2e-5, 2e-6) is too tight: cuBLAS and OpenBLAS sum in other orders.
TOLERANCE = {"mlp": (1e-4, 1e-5), "matmul": (1e-4, 1e-4), "convnet": (1e-4, 1e-4)}

# Training steps (`mxc compile --train`): each returns the graph, the data
# inputs' shapes and the number of classes of its SoftmaxOutput label.
def lenet_train():
    """LeNet: convolution gradients (cuDNN's backward data / filter), max
    pooling's gradient, FullyConnected's through cuBLAS, SoftmaxOutput."""
    x = sym.var("data")
    h = sym.Convolution(x, kernel=(5, 5), num_filter=20, name="conv1")
    h = sym.Activation(h, act_type="tanh", name="tanh1")
    h = sym.Pooling(h, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
    h = sym.Convolution(h, kernel=(5, 5), num_filter=50, name="conv2")
    h = sym.Activation(h, act_type="tanh", name="tanh2")
    h = sym.Pooling(h, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool2")
    h = sym.FullyConnected(sym.flatten(h), num_hidden=500, name="fc1")
    h = sym.Activation(h, act_type="tanh", name="tanh3")
    h = sym.FullyConnected(h, num_hidden=10, name="fc2")
    return sym.SoftmaxOutput(h, name="softmax"), {"data": (16, 1, 28, 28),
                                                  "softmax_label": (16,)}, 10


def convnet_train():
    """Every GPU gradient twin: padded, strided, grouped, depthwise and 1x1
    convolutions, a Deconvolution (forward: cuDNN's convolution data
    gradient; weight gradient: its filter gradient), training-mode BatchNorm
    (batch statistics, split reductions), avg pooling with and without the
    padding counted, sum pooling, global average pooling, a classifier."""
    x = sym.var("data")
    h = sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=16, name="c1")
    h = sym.BatchNorm(h, fix_gamma=False, name="bn1")
    h = sym.Activation(h, act_type="relu", name="r1")
    h = sym.Pooling(h, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg", name="p1")
    h = sym.Deconvolution(h, kernel=(4, 4), stride=(2, 2), pad=(1, 1), num_filter=16,
                          no_bias=True, name="up2")
    h = sym.Convolution(h, kernel=(3, 3), stride=(2, 2), pad=(1, 1), num_filter=32, num_group=4,
                        no_bias=True, name="c2")
    h = sym.Activation(h, act_type="relu", name="r2")
    h = sym.Convolution(h, kernel=(3, 3), pad=(1, 1), num_filter=32, num_group=32,
                        no_bias=True, name="dw3")
    h = sym.Pooling(h, kernel=(2, 2), stride=(1, 1), pool_type="sum", name="p3")
    h = sym.Convolution(h, kernel=(1, 1), num_filter=24, name="pw4")
    h = sym.BatchNorm(h, fix_gamma=False, name="bn4")
    h = sym.Pooling(h, kernel=(3, 3), pad=(1, 1), pool_type="avg", count_include_pad=False,
                    name="p4")
    h = sym.Pooling(h, kernel=(1, 1), global_pool=True, pool_type="avg", name="gap")
    h = sym.FullyConnected(sym.flatten(h), num_hidden=10, name="fc")
    return sym.SoftmaxOutput(h, name="softmax"), {"data": (8, 3, 16, 16),
                                                  "softmax_label": (8,)}, 10


def resnet18_train():
    """ResNet-18 (tools/zoo's MXNet resnet.py graph, ImageNet layout, 10
    classes) at 64x64: forward and backward."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools", "zoo"))
    import mxnet_zoo
    g = mxnet_zoo.to_graph(mxnet_zoo.resnet(18, 10, image_shape=(3, 224, 224)))
    return mx.sym.load_json(mxnet_zoo.dumps(g)), {"data": (8, 3, 64, 64),
                                                  "softmax_label": (8,)}, 10


def resnet18_train_f64():
    """The same ResNet-18 training step in float64 (every input, hence
    every kernel: cuBLAS's / cuDNN's double paths on the GPU), compared
    element by element: in float32 the ReLU kinks make ResNet-18's
    gradients depend on rounding (compare.py's `kinks`), in float64 a ReLU
    input would have to be within ~1e-15 of zero."""
    return resnet18_train()


MODELS = {"unary": unary, "broadcast": broadcast, "reductions": reductions,
          "softmax": softmax, "fused_chain": fused_chain, "mlp": mlp, "matmul": matmul,
          "convnet": convnet}
# Inference graphs whose inputs are drawn where they run (<name>.gen.json,
# U[-1, 1)) instead of carried: fused_chain's two 8.6 MB arrays.
DRAWN_INPUTS = {"fused_chain"}
TRAINING = {"lenet_train": lenet_train, "convnet_train": convnet_train,
            "resnet18_train": resnet18_train, "resnet18_train_f64": resnet18_train_f64}
# (rtol, atol) of the gradients, rtol relative to each array's largest
# magnitude (compare.py's `scaled`): cuDNN's and the CPU's convolution
# gradients sum in other orders, and ResNet-18's pass through 18 layers of
# them. convnet_train's atol: a bias before BatchNorm has a zero gradient
# (BatchNorm subtracts the mean), computed as rounding noise of ~1e-5 that
# differs between any two summation orders.
# ResNet-18's float32 step: `kinks` (compare.py; every output of it, the
# gradients being the ones a flipped ReLU moves); its float64 one within
# float64 rounding through 18 layers.
TRAINING_TOLERANCE = {"lenet_train": (1e-4, 1e-6), "convnet_train": (2e-4, 5e-5),
                      "resnet18_train": (1e-3, 1e-5, "kinks"),
                      "resnet18_train_f64": (1e-9, 1e-13)}
# Training graphs in float64 (inputs drawn as float32, widened; references
# kept in float64).
FLOAT64_TRAINING = {"resnet18_train_f64"}


def input_kind(name, label_classes):
    """How test/gpu/inputs.py draws an input of a training graph."""
    if name == "data":
        return "uniform"
    if name.endswith("_label"):
        return "label:%d" % label_classes
    if name.endswith("_weight"):
        return "weight"
    if name.endswith(("_gamma", "_moving_var")):
        return "gamma"
    return "small"  # biases, beta, moving means


def write_drawn_graph(outdir, name, s, shapes, tol, compile_args, specs):
    """The files of a graph whose inputs are drawn where it runs:
    <name>-symbol.json, .tol, .shapes, .compile (mxc compile's extra
    arguments), .gen.json (test/gpu/inputs.py's spec); returns the drawn
    {input: array} (float32, or the spec's dtype)."""
    s.save(os.path.join(outdir, name + "-symbol.json"))
    with open(os.path.join(outdir, name + ".tol"), "w") as f:
        f.write(" ".join("%g" % t if isinstance(t, float) else t for t in tol) + "\n")
    with open(os.path.join(outdir, name + ".shapes"), "w") as f:
        f.write(" ".join("--shape %s=%s" % (k, ",".join(map(str, v)))
                         for k, v in shapes.items()) + "\n")
    with open(os.path.join(outdir, name + ".compile"), "w") as f:
        f.write(compile_args + "\n")
    with open(os.path.join(outdir, name + ".gen.json"), "w") as f:
        json.dump(specs, f, indent=1)
    return gen_inputs.generate(specs)


def float64_executor(s, shapes, values, grad_req="null"):
    """The CPU executor of `s` in float64, bound to the drawn float32
    values widened: the GPU's float32 results are compared with the exact
    ones, not with the CPU's float32 rounding (BatchNorm's gamma gradients
    cancel to ~1e-3 of their scale in float32)."""
    exe = s.simple_bind(mx.cpu(), grad_req=grad_req,
                        type_dict={k: np.float64 for k in values}, **shapes)
    for k, v in values.items():
        (exe.aux_dict if k in exe.aux_dict else exe.arg_dict)[k][:] = v.astype(np.float64)
    return exe


def save_references(outdir, name, arrays, keep_float64=False):
    """<name>.ref/<key> for each {key: NDArray} (compare.save_reference)."""
    ref = os.path.join(outdir, name + ".ref")
    os.makedirs(ref, exist_ok=True)
    for key, a in arrays.items():
        compare.save_reference(os.path.join(ref, key), a.asnumpy(), keep_float64=keep_float64)


def write_training(outdir, name, build):
    s, shapes, classes = build()
    grad_req = {k: "null" if k in shapes else "write" for k in s.list_arguments()}
    arg_shapes, _, aux_shapes = s.infer_shape(**shapes)
    inputs = list(zip(s.list_arguments(), arg_shapes)) + \
        list(zip(s.list_auxiliary_states(), aux_shapes))
    f64 = name in FLOAT64_TRAINING
    specs = {k: {"shape": list(shape), "kind": input_kind(k, classes), "seed": seed + 1}
             for seed, (k, shape) in enumerate(inputs)}
    compile_args = "--train --weights inputs"
    if f64:
        for k in specs:
            specs[k]["dtype"] = "float64"
        compile_args += "".join(" --dtype %s=float64" % k for k in specs)
    tol = TRAINING_TOLERANCE[name]
    values = write_drawn_graph(outdir, name, s, shapes, tol[:2] + ("scaled",) + tol[2:],
                               compile_args, specs)
    exe = float64_executor(s, shapes, values, grad_req)
    outs = exe.forward(is_train=True)
    exe.backward()
    refs = dict(zip(s.list_outputs(), outs))
    refs.update({k + "_grad": g for k, g in exe.grad_dict.items()
                 if g is not None and grad_req[k] == "write"})
    save_references(outdir, name, refs, keep_float64=f64)
    print("%s: %d inputs drawn, training step%s" % (name, len(specs), " (float64)" if f64 else ""))


def write_op_group(outdir, name, build, grads=False):
    """An ops.OPS graph: every input drawn, parameters and auxiliary states
    inputs too (--weights inputs), references computed in float64. With
    `grads` (ops.GRADS) its training step instead: `--train --wrt` every
    float argument, ones as head gradients, the gradients compared with the
    float64 executor's backward(ones)."""
    s, shapes, kinds, tol = build()
    seed0 = 2000 if grads else 1000
    specs = {k: {"shape": list(v), "kind": kinds[k], "seed": seed0 + i}
             for i, (k, v) in enumerate(shapes.items())}
    if not grads:
        values = write_drawn_graph(outdir, name, s, shapes, tol, "--weights inputs", specs)
        exe = float64_executor(s, shapes, values)
        outs = exe.forward(is_train=False)
        save_references(outdir, name, dict(zip(s.list_outputs(), outs)))
        print("%s: %d ops, %d inputs drawn" % (name, len(outs), len(specs)))
        return
    wrt = [k for k in s.list_arguments() if not kinds[k].startswith("int:")]
    values = write_drawn_graph(outdir, name, s, shapes,
                               ops.GRAD_TOLERANCE.get(name, (1e-4, 1e-6)) + ("scaled",),
                               "--train --weights inputs --wrt " + ",".join(wrt), specs)
    exe = float64_executor(s, shapes, values,
                           {k: "write" if k in wrt else "null" for k in s.list_arguments()})
    outs = exe.forward(is_train=True)
    exe.backward([mx.nd.ones(o.shape, dtype=o.dtype) for o in outs])
    save_references(outdir, name, {k + "_grad": exe.grad_dict[k] for k in wrt})
    print("%s: %d gradients" % (name, len(wrt)))


def mxc_args(outdir, name):
    """`mxc compile`'s arguments for graph `name` written to outdir: its
    --shape arguments, a training graph's extra arguments (<name>.compile)
    and --params for the auxiliary states."""
    with open(os.path.join(outdir, name + ".shapes")) as f:
        args = f.read().split()
    extra = os.path.join(outdir, name + ".compile")
    if os.path.exists(extra):
        with open(extra) as f:
            args += f.read().split()
    params = os.path.join(outdir, name + "-0000.params")
    return args + (["--params", params] if os.path.exists(params) else [])


def input_args(outdir, name, workdir):
    """`--input NAME=FILE` arguments for graph `name`'s inputs: those in
    outdir/<name>.in/, or drawn from <name>.gen.json into
    workdir/<name>.in/ (test/gpu/inputs.py)."""
    indir = os.path.join(outdir, name + ".in")
    if not os.path.isdir(indir):
        indir = os.path.join(str(workdir), name + ".in")
        if not os.path.isdir(indir):
            gen_inputs.main(os.path.join(outdir, name + ".gen.json"), indir)
    args = []
    for f in sorted(os.listdir(indir)):
        if f.endswith(".npy"):
            args += ["--input", "%s=%s" % (f[:-4], os.path.join(indir, f))]
    return args


def main(outdir, names=None):
    os.makedirs(outdir, exist_ok=True)
    for name, build in TRAINING.items():
        if not names or name in names:
            write_training(outdir, name, build)
    for name, build in ops.OPS.items():
        if not names or name in names:
            write_op_group(outdir, name, build)
    for name, build in ops.GRADS.items():
        if not names or name in names:
            write_op_group(outdir, name, build, grads=True)
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
        # Weights scaled by 1 / sqrt(fan-in), as initialisers do: activations
        # stay O(1), so the comparison measures the kernels, not the
        # conditioning of a saturated softmax.
        inputs = {k: (rng.standard_normal(v) / (np.sqrt(np.prod(v[1:]))
                                                 if k.endswith(("_weight", "_w")) else 1))
                  .astype(np.float32) for k, v in shapes.items()}
        drawn = name in DRAWN_INPUTS
        if drawn:
            specs = {k: {"shape": list(v), "kind": "uniform", "seed": i + 1}
                     for i, (k, v) in enumerate(shapes.items())}
            with open(os.path.join(outdir, name + ".gen.json"), "w") as f:
                json.dump(specs, f, indent=1)
            inputs = gen_inputs.generate(specs)
        if "bn_v" in inputs:  # a variance
            inputs["bn_v"] = np.abs(inputs["bn_v"]) + 0.5
        exe = s.simple_bind(mx.cpu(), grad_req="null", **shapes)
        # Auxiliary states (BatchNorm's moving statistics) go into a .params
        # file (`mxc compile --params`), the rest are the executable's inputs.
        aux = {k: v for k, v in inputs.items() if k in exe.aux_dict}
        if aux:
            mxc_testing.write_params(os.path.join(outdir, name + "-0000.params"),
                                     {"aux:" + k: v for k, v in aux.items()})
        if not drawn:
            os.makedirs(os.path.join(outdir, name + ".in"), exist_ok=True)
        for k, v in inputs.items():
            if k not in aux and not drawn:
                np.save(os.path.join(outdir, name + ".in", k + ".npy"), v)
        for k, v in inputs.items():  # auxiliary states (BatchNorm's moving stats) too
            (exe.aux_dict if k in exe.aux_dict else exe.arg_dict)[k][:] = v
        outs = exe.forward(is_train=False)
        os.makedirs(os.path.join(outdir, name + ".ref"), exist_ok=True)
        for oname, o in zip(s.list_outputs(), outs):
            np.save(os.path.join(outdir, name + ".ref", oname + ".npy"), o.asnumpy())
        print("%s: %d inputs, %d outputs" % (name, len(inputs), len(outs)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
