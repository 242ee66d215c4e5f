"""Op coverage of scripts/gpu-check.sh: MXNet's operators one node each,
grouped into a few graphs (one executable each: a graph per op would not fit
the device tool's transfer), every node on its own drawn input, compared
with the CPU backend's float64 results (test/gpu/models.py writes them).

Each builder returns (symbol, {input: shape}, {input: test/gpu/inputs.py
kind}, (rtol, atol)). The op lists are the CPU tests' (test_ops_*.py), so a
new op there is checked on the GPU too; ops with no GPU kernel yet are
listed below with the reason (`mxc compile --target cuda` names the node).
GRADS are the groups' training steps (every float input's gradient with
ones as head gradients; lp and 'full' pooling's through the CPU kernel's
host twin since 2026-12-07).
"""
import os
import sys

import mxc as mx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))
from test_ops_elementwise import BROADCAST, COMPARISONS, ELEMWISE, SCALAR, UNARY  # noqa: E402
from test_ops_nn import CONV_CASES, DECONV_CASES  # noqa: E402
from test_ops_reduction import REDUCE_ATTRS  # noqa: E402

sym = mx.sym

# Ops of the CPU tests that `mxc compile --target cuda` refuses: none since
# 2026-12-07 (LRN's gradient with a window wider than cuDNN's 16 channels, the
# last, runs the CPU kernel's host twin: `lrn_wide` below).


def _var(name, shape, kind, shapes, kinds):
    shapes[name], kinds[name] = shape, kind
    return sym.var(name)


def unary():
    """Every unary op of test_ops_elementwise on its domain."""
    shapes, kinds, outs = {}, {}, []
    for op, (lo, hi) in UNARY.items():
        x = _var("x_" + op, (8, 130), "range:%r:%r" % (lo, hi), shapes, kinds)
        outs.append(getattr(sym, op)(x, name=op))
    return sym.Group(outs), shapes, kinds, (2e-5, 1e-6)


def scalar():
    """Every _*_scalar op (scalar 1.5; comparisons 1.0 on whole numbers:
    ties), smooth_l1, hard_sigmoid, clip."""
    shapes, kinds, outs = {}, {}, []
    for op in SCALAR:
        compare = "equal" in op or "greater" in op or "lesser" in op
        kind = "int:-2:3" if compare else "range:0.3:2" if op in (
            "_power_scalar", "_rdiv_scalar") else "range:-2:2"
        x = _var("x" + op, (8, 130), kind, shapes, kinds)
        outs.append(getattr(sym, op)(x, scalar=1.0 if compare else 1.5, name=op.strip("_")))
    x = _var("x_misc", (8, 130), "range:-5:5", shapes, kinds)
    outs += [sym.smooth_l1(x, scalar=1.0, name="smooth_l1"),
             sym.hard_sigmoid(x, name="hard_sigmoid"),
             sym.clip(x, -0.5, 0.7, name="clip")]
    return sym.Group(outs), shapes, kinds, (2e-5, 1e-6)


def binary():
    """elemwise_* and every broadcast_* op on three broadcast patterns."""
    shapes, kinds, outs = {}, {}, []
    for op in ELEMWISE:
        a = _var("a_" + op, (8, 130), "range:-2:2", shapes, kinds)
        b = _var("b_" + op, (8, 130), "nonzero:-2:2" if op.endswith("div") else "range:-2:2",
                 shapes, kinds)
        outs.append(getattr(sym, op)(a, b, name=op))
    for tag, (ls, rs) in {"same": ((2, 3, 40), (2, 3, 40)), "middle": ((2, 1, 40), (2, 3, 40)),
                          "both": ((4, 1, 40), (1, 3, 1))}.items():
        for op in BROADCAST:
            name = "%s_%s" % (op, tag)
            la, ra = ("int:-2:3", "int:-2:3") if op in COMPARISONS else (
                ("range:0.1:2", "range:-2:2") if op == "broadcast_power" else
                ("range:-2:2", "nonzero:-2:2" if op in ("broadcast_div", "broadcast_mod")
                 else "range:-2:2"))
            a = _var("a_" + name, ls, la, shapes, kinds)
            b = _var("b_" + name, rs, ra, shapes, kinds)
            outs.append(getattr(sym, op)(a, b, name=name))
    return sym.Group(outs), shapes, kinds, (2e-5, 1e-6)


def reduce():
    """sum, mean, max, min, prod, nansum, nanprod over every REDUCE_ATTRS
    case; argmax; softmax, log_softmax on each axis; L2Normalization."""
    shapes, kinds, outs = {}, {}, []
    for op in ["sum", "mean", "max", "min", "prod", "nansum", "nanprod"]:
        for i, attrs in enumerate(REDUCE_ATTRS):
            x = _var("x_%s_%d" % (op, i), (6, 7, 45),
                     "range:0.8:1.2" if "prod" in op else "range:-2:2", shapes, kinds)
            outs.append(getattr(sym, op)(x, name="%s_%d" % (op, i), **attrs))
    x = _var("x_argmax", (6, 7, 45), "range:-2:2", shapes, kinds)
    outs += [sym.argmax(x, axis=1, name="argmax1"), sym.argmax(x, axis=2, name="argmax2")]
    for axis in (0, 1, 2):
        x = _var("x_softmax_%d" % axis, (6, 7, 45), "range:-4:4", shapes, kinds)
        outs += [sym.softmax(x, axis=axis, name="softmax_%d" % axis),
                 sym.log_softmax(x, axis=axis, name="log_softmax_%d" % axis)]
    x = _var("x_l2n", (6, 7, 45), "range:-2:2", shapes, kinds)
    outs.append(sym.L2Normalization(x, name="l2norm"))
    return sym.Group(outs), shapes, kinds, (2e-5, 1e-6)


def nn(grad=False):
    """Convolution (CONV_CASES) and Deconvolution (DECONV_CASES) through
    cuDNN, pooling (max / avg / sum, padded, strided, global, 'full'), LRN,
    activations, FullyConnected, dot / batch_dot, inference BatchNorm."""
    shapes, kinds, outs = {}, {}, []
    for i, (dshape, nf, attrs) in enumerate(CONV_CASES):
        n = "conv%d" % i
        x = _var(n + "_x", dshape, "range:-1:1", shapes, kinds)
        k = attrs["kernel"]
        g = attrs.get("num_group", 1)
        w = _var(n + "_weight", (nf, dshape[1] // g) + tuple(k), "weight", shapes, kinds)
        args = [x, w]
        if not attrs.get("no_bias"):
            args.append(_var(n + "_bias", (nf,), "small", shapes, kinds))
        outs.append(sym.Convolution(*args, num_filter=nf, name=n, **attrs))
    for i, (dshape, nf, attrs) in enumerate(DECONV_CASES):
        n = "deconv%d" % i
        x = _var(n + "_x", dshape, "range:-1:1", shapes, kinds)
        k = attrs["kernel"]
        g = attrs.get("num_group", 1)
        w = _var(n + "_weight", (dshape[1], nf // g) + tuple(k), "weight", shapes, kinds)
        args = [x, w]
        no_bias = attrs.get("no_bias", True)
        if not no_bias:
            args.append(_var(n + "_bias", (nf,), "small", shapes, kinds))
        a = dict(attrs)
        a["no_bias"] = no_bias
        outs.append(sym.Deconvolution(*args, num_filter=nf, name=n, **a))
    x = _var("pool_x", (2, 5, 11, 11), "range:-2:2", shapes, kinds)
    for i, attrs in enumerate([
            {"kernel": (3, 3), "stride": (2, 2), "pool_type": "max"},
            {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1), "pool_type": "max"},
            {"kernel": (2, 2), "stride": (2, 2), "pool_type": "max", "pooling_convention": "full"},
            {"kernel": (3, 3), "pad": (1, 1), "pool_type": "avg"},
            {"kernel": (3, 3), "pad": (1, 1), "pool_type": "avg", "count_include_pad": False},
            {"kernel": (2, 2), "stride": (2, 2), "pool_type": "sum"},
            {"kernel": (2, 2), "pool_type": "lp", "p_value": 2},
            {"kernel": (1, 1), "global_pool": True, "pool_type": "avg"},
            {"kernel": (1, 1), "global_pool": True, "pool_type": "max"}]):
        if attrs:
            outs.append(sym.Pooling(x, name="pool%d" % i, **attrs))
    outs.append(sym.LRN(x, nsize=3, alpha=0.01, beta=0.75, name="lrn"))
    # (a window cuDNN does not take: generated forward, the CPU kernel's
    # host twin for the gradient)
    outs.append(sym.LRN(x, nsize=17, alpha=0.3, beta=0.75, knorm=1.5, name="lrn_wide"))
    for act in ("relu", "sigmoid", "tanh", "softrelu", "softsign"):
        outs.append(sym.Activation(x, act_type=act, name="act_" + act))
    for act, extra in (("leaky", {"slope": 0.1}), ("elu", {"slope": 0.3}), ("selu", {}),
                       ("gelu", {})):
        outs.append(sym.LeakyReLU(x, act_type=act, name="lrelu_" + act, **extra))
    bn_x = _var("bn_x", (4, 6, 5, 5), "range:-2:2", shapes, kinds)
    bn = [_var("bn_" + p, (6,), k, shapes, kinds) for p, k in
          (("gamma", "gamma"), ("beta", "small"), ("moving_mean", "small"),
           ("moving_var", "gamma"))]
    outs.append(sym.BatchNorm(bn_x, *bn, fix_gamma=False, use_global_stats=True, name="bn"))
    # BatchNorm with batch statistics in a training step (cuDNN's on the
    # GPU), channels first and last, gamma fixed or not; squared, so that the
    # head gradient is not uniform (BatchNorm's data gradient of a uniform one
    # is zero: nothing to compare but rounding).
    for name, shape, axis, fix in (("bn_train", (4, 6, 5, 5), 1, False),
                                   ("bn_last", (4, 5, 3, 6), -1, True)):
        x_ = _var(name + "_x", shape, "range:-2:2", shapes, kinds)
        p_ = [_var("%s_%s" % (name, p), (6,), k, shapes, kinds) for p, k in
              (("gamma", "gamma"), ("beta", "small"), ("moving_mean", "small"),
               ("moving_var", "gamma"))]
        outs.append(sym.square(sym.BatchNorm(x_, *p_, axis=axis, fix_gamma=fix, name=name),
                               name=name + "_sq"))
    fx = _var("fc_x", (5, 70), "range:-1:1", shapes, kinds)
    fw = _var("fc_weight", (33, 70), "weight", shapes, kinds)
    fb = _var("fc_bias", (33,), "small", shapes, kinds)
    outs.append(sym.FullyConnected(fx, fw, fb, num_hidden=33, name="fc"))
    da = _var("dot_a", (17, 40), "range:-1:1", shapes, kinds)
    db = _var("dot_b", (40, 23), "range:-1:1", shapes, kinds)
    outs.append(sym.dot(da, db, name="dot"))
    ba = _var("bdot_a", (3, 9, 20), "range:-1:1", shapes, kinds)
    bb = _var("bdot_b", (3, 20, 11), "range:-1:1", shapes, kinds)
    outs.append(sym.batch_dot(ba, bb, name="batch_dot"))
    return sym.Group(outs), shapes, kinds, (1e-4, 1e-5)


def layout():
    """Data movement: transpose, Reshape, Flatten, expand_dims, slice (with
    negative steps), slice_axis, tile, repeat, reverse, SwapAxis, squeeze,
    broadcast_to, Concat, stack, add_n, where, take, one_hot, Embedding,
    Cast, depth_to_space, pad, SequenceMask, UpSampling."""
    shapes, kinds, outs = {}, {}, []
    x = _var("x", (4, 6, 10), "range:-2:2", shapes, kinds)
    y = _var("y", (4, 6, 10), "range:-2:2", shapes, kinds)
    outs += [sym.transpose(x, axes=(2, 0, 1), name="transpose"),
             sym.Reshape(x, shape=(6, -1), name="reshape"),
             sym.Flatten(x, name="flatten"),
             sym.expand_dims(x, axis=1, name="expand_dims"),
             sym.slice(x, begin=(1, 0, 2), end=(3, 5, 9), name="slice"),
             sym.slice(x, begin=(-1, None, 8), end=(None, None, 0), step=(-1, -2, -3),
                       name="slice_neg"),
             sym.slice_axis(x, axis=2, begin=3, end=9, name="slice_axis"),
             sym.tile(x, reps=(1, 2, 1), name="tile"),
             sym.repeat(x, repeats=2, axis=1, name="repeat"),
             sym.reverse(x, axis=2, name="reverse"),
             sym.SwapAxis(x, dim1=0, dim2=2, name="swapaxis"),
             sym.broadcast_to(sym.slice_axis(x, axis=1, begin=0, end=1), shape=(4, 6, 10),
                              name="broadcast_to"),
             sym.Concat(x, y, dim=1, name="concat"),
             sym.stack(x, y, axis=2, name="stack"),
             sym.add_n(x, y, x, name="add_n"),
             sym.where(x > 0, x, y, name="where"),
             sym.Cast(x, dtype="float16", name="cast_f16"),
             sym.pad(sym.expand_dims(x, axis=0), mode="constant", pad_width=(0, 0, 0, 0, 1, 2, 3, 0),
                     constant_value=0.5, name="pad"),
             sym.depth_to_space(sym.Reshape(x, shape=(1, 4, 6, 10)), block_size=2,
                                name="depth_to_space")]
    s = _var("sq", (4, 1, 10), "range:-2:2", shapes, kinds)
    outs.append(sym.squeeze(s, axis=1, name="squeeze"))
    idx = _var("idx", (5, 3), "int:0:6", shapes, kinds)
    outs += [sym.take(x, idx, axis=1, name="take"),
             sym.one_hot(idx, depth=6, name="one_hot")]
    ew = _var("emb_weight", (6, 8), "weight", shapes, kinds)
    outs.append(sym.Embedding(idx, ew, input_dim=6, output_dim=8, name="embedding"))
    seq = _var("seq", (7, 3, 5), "range:-2:2", shapes, kinds)
    lens = _var("seq_len", (3,), "int:1:8", shapes, kinds)
    outs.append(sym.SequenceMask(seq, lens, use_sequence_length=True, value=-1.0,
                                 name="sequence_mask"))
    img = _var("img", (2, 3, 5, 4), "range:-2:2", shapes, kinds)
    outs.append(sym.UpSampling(img, scale=2, sample_type="nearest", num_args=1,
                               name="upsampling"))
    return sym.Group(outs), shapes, kinds, (2e-5, 1e-6)


def host():
    """Forward only (no group of gradients), since 2026-12-07: the ops whose
    library kernel runs on the host for the GPU (runtime/src/cuda/
    host_kernels.cc): topk (values along the last axis, positions along the
    middle one, a mask), sort, argsort, and LU's det, slogdet and inverse;
    and diag, whose step allocates a temporary of its own (on the device:
    mxc-gpu-device-temporaries) where its axes are not the last two."""
    shapes, kinds, outs = {}, {}, []
    x = _var("x", (4, 9, 12), "range:-2:2", shapes, kinds)
    outs += [sym.topk(x, k=3, ret_typ="value", name="topk_value"),
             sym.topk(x, k=2, axis=1, ret_typ="indices", name="topk_indices"),
             sym.topk(x, k=4, ret_typ="mask", is_ascend=True, name="topk_mask"),
             sym.sort(x, axis=1, name="sort"),
             sym.argsort(x, is_ascend=False, name="argsort")]
    m = _var("m", (3, 4, 4), "range:-2:2", shapes, kinds)
    outs += [sym.linalg.det(m, name="det"), sym.linalg.inverse(m, name="inverse")]
    outs += list(sym.linalg.slogdet(m, name="slogdet"))
    d = _var("d", (3, 2, 4, 3), "range:-2:2", shapes, kinds)
    outs += [sym.diag(d, k=0, axis1=3, axis2=0, name="diag_axes"),
             sym.diag(sym.Reshape(d, shape=(6, 12)), k=1, name="diag")]
    return sym.Group(outs), shapes, kinds, (1e-4, 1e-5)


OPS = {"ops_unary": unary, "ops_scalar": scalar, "ops_binary": binary, "ops_reduce": reduce,
       "ops_nn": nn, "ops_layout": layout}
GRADS = {"grads" + name[3:]: (lambda: nn(grad=True)) if b is nn else b
         for name, b in OPS.items()}
OPS["ops_host"] = host
# Gradients compared relative to each array's largest magnitude
# (compare.py's `scaled`).
GRAD_TOLERANCE = {"grads_nn": (2e-4, 1e-5)}
