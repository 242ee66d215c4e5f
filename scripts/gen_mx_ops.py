#!/usr/bin/env python3
# ===- gen_mx_ops.py - generate the mx dialect's op definitions --------------===#
#
# ONE table of MXNet 1.9.1 operators (wave 1) -> three checked-in files:
#
#   include/mxc/Dialect/MX/IR/MXGeneratedOps.td   ODS, included by MXOps.td
#   lib/Dialect/MX/IR/MXOpTable.inc               OpSpec/AttrSpec arrays + aliases
#   docs/ops.md                                   the operator reference
#   lib/Graph/OpSignatures.inc                    MLIR-free input/output
#                                                 signatures for lib/Graph
#
# In the style of torch-mlir's GeneratedTorchOps.td: edit the table here, run
# `python3 scripts/gen_mx_ops.py`, commit the outputs. `--check` exits 1 when
# the checked-in outputs are stale (a lit test runs it). `--emit-examples`
# prints every op's documentation example wrapped in a function, so a lit test
# can parse and verify the examples that the docs show.
#
# Attribute names, kinds, defaults and enum spellings are MXNet 1.9.1's
# (src/operator/**, dmlc::Parameter declarations); every entry names the
# parameter struct it was read from.
#
# ===----------------------------------------------------------------------===#
import argparse
import os
import re
import sys
from dataclasses import dataclass, field
from typing import List, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TD_PATH = "include/mxc/Dialect/MX/IR/MXGeneratedOps.td"
INC_PATH = "lib/Dialect/MX/IR/MXOpTable.inc"
DOC_PATH = "docs/ops.md"
SIG_PATH = "lib/Graph/OpSignatures.inc"

REQUIRED = object()  # attribute without a default: must be given

# ----------------------------------------------------------------------------
# Table entries
# ----------------------------------------------------------------------------


@dataclass
class Attr:
    name: str
    kind: str  # int | float | bool | shape | enum | dtype | string
    default: object = REQUIRED  # MXNet spelling, "None" (optional) or REQUIRED
    values: Optional[List[str]] = None  # enum / restricted dtype values
    doc: str = ""
    # MXNet declares the field without a default although None is a legal
    # value (slice_axis `end`): the exporter must write "None" when absent.
    export_always: bool = False
    # MXNet's dmlc::optional<T> with a default other than None (topk's
    # `axis`, default -1): "None" is a value of its own. The op holds it as
    # an optional attribute (absent = None); the importer fills in the
    # default when the node does not name the attribute at all.
    none_ok: bool = False


# Conditions on attributes (`when` of an input or output, `visible` of an
# output): terms joined by '&', each `attr` (a true bool), `!attr` (a false
# bool), `attr=v1|v2` (one of the values) or `attr!=v`; an attribute a node
# does not name takes the table's default. `never`: an output MXNet names but
# never counts (Pooling's MKL-DNN workspace; an output that is never shown).
# lib/Graph evaluates them (OpSignatures.inc) for MXNet's FListInputNames,
# num_outputs, FNumVisibleOutputs and list_outputs.


@dataclass
class Input:
    name: str
    optional: bool = False
    aux: bool = False
    tensor: str = "MX_Tensor"
    # when the input exists (MXNet's FListInputNames); an optional input
    # must say when
    when: Optional[str] = None
    # the rule giving a parameter input's shape from the data input's and
    # the attributes, when the graph does not say (PARAM_SHAPES below)
    param_shape: Optional[str] = None


@dataclass
class Output:
    name: str
    optional: bool = False
    tensor: str = "MX_Tensor"
    # any number of results, set by an attribute (SliceChannel's
    # num_outputs; lib/Graph's numOutputsOf counts them), named
    # <name>0, <name>1, ... in MXNet's list_outputs
    variadic: bool = False
    # when the output exists (num_outputs), and when MXNet shows it
    # (FNumVisibleOutputs; None: as visible_outputs of the op says)
    when: Optional[str] = None
    visible: Optional[str] = None


@dataclass
class Op:
    mxnet: str  # canonical MXNet name
    mnemonic: str  # op name without "mx."
    cpp: str  # ODS def / C++ class name without the Op suffix
    summary: str
    description: str
    inputs: List[Input]
    outputs: List[Output]
    attrs: List[Attr] = field(default_factory=list)
    aliases: List[str] = field(default_factory=list)
    variadic: bool = False  # the single input is variadic (Concat)
    pure: bool = True
    effects: bool = False  # declares MemoryEffectsOpInterface (RNG state)
    verifier: bool = False
    infer: Optional[str] = None  # family call, or None: hand-written
    example: str = ""
    source: str = ""  # where the parameters were read from
    visible_outputs: int = 0  # MXNet FNumVisibleOutputs; 0 = all
    # Whether MXNet registers FListInputNames / FListOutputNames for the op:
    # its monitor callbacks (Executor.set_monitor_callback, HybridBlock.
    # register_op_hook) name inputs "input0", ... and CachedOp outputs "0",
    # "1", ... where it does not. Set below from MONITOR_* (one place).
    flist_input_names: bool = True
    flist_output_names: bool = False
    # The shape family (SHAPE_FAMILY below) of an op with a hand-written rule
    # whose first result still has the data input's shape; set from
    # SAME_SHAPE_OPS (one place).
    shape_family: Optional[str] = None
    # MXNet's signature where it differs from the mx op's operands/results
    # (RNN's sequence_length, which mxc does not compute; CTCLoss's named
    # inputs of a variadic op; Pooling's MKL-DNN workspace)
    graph_inputs: Optional[List[Input]] = None
    graph_outputs: Optional[List[Output]] = None
    # other names files use for the op that lib/Graph reads and writes but
    # the compiler does not import
    graph_aliases: List[str] = field(default_factory=list)
    # the PARAM_SHAPES rule of a variadic op's inputs after the first
    # (UpSampling's bilinear weight)
    variadic_param_shape: Optional[str] = None


FLOAT = "MX_FloatTensor"
ANY = "MX_Tensor"

ALL_DTYPES = ["float32", "float64", "float16", "bfloat16", "uint8", "int8",
              "int32", "int64", "bool"]
LAYOUT_CONV = ["NCW", "NCHW", "NCDHW", "NHWC", "NDHWC"]
LAYOUT_POOL = ["NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC"]

OPS: List[Op] = []


def op(**kw):
    o = Op(**kw)
    OPS.append(o)
    return o


def apply_monitor_names():
    """MXNet 1.9.1's FListInputNames / FListOutputNames registrations, read
    from what its register_op_hook(monitor_all=True) reports for every op of
    the table (a one-op SymbolBlock; the non-differentiable ones through
    Executor.set_monitor_callback and src/operator)."""
    for o in OPS:
        if o.mxnet in MONITOR_UNNAMED_INPUTS:
            o.flist_input_names = False
        if o.mxnet in MONITOR_NAMED_OUTPUTS:
            o.flist_output_names = True
    known = {o.mxnet for o in OPS}
    unknown = (MONITOR_UNNAMED_INPUTS | MONITOR_NAMED_OUTPUTS) - known
    assert not unknown, unknown


def camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in name.strip("_").split("_"))


# Ops with a rule of their own whose first result has the data input's shape
# (MXNet's ElemwiseShape on output 0): partial shape inference may take the
# data's extents from that result.
SAME_SHAPE_OPS = {"Cast", "Dropout", "BatchNorm", "LRN", "LeakyReLU", "SoftmaxOutput",
                  "softmax", "log_softmax", "LayerNorm", "InstanceNorm", "GroupNorm",
                  "L2Normalization"}


def apply_shape_families():
    for o in OPS:
        if o.mxnet in SAME_SHAPE_OPS:
            o.shape_family = "same"
    unknown = SAME_SHAPE_OPS - {o.mxnet for o in OPS}
    assert not unknown, unknown


# Family calls: the body of inferReturnTypes for ops that share a shape rule.
INFER_SAME = ("return ::mxc::mx::detail::inferSameAsInput(getOperationName(), "
              "location, adaptor.getData(), inferredReturnTypes);")
INFER_ELEMWISE = ("return ::mxc::mx::detail::inferElemwiseBinary("
                  "getOperationName(), location, adaptor.getLhs(), "
                  "adaptor.getRhs(), inferredReturnTypes);")
INFER_BROADCAST = ("return ::mxc::mx::detail::inferBroadcastBinary("
                   "getOperationName(), location, adaptor.getLhs(), "
                   "adaptor.getRhs(), inferredReturnTypes);")
INFER_SCALAR = ("return ::mxc::mx::detail::inferScalarOp(getOperationName(), "
                "location, adaptor.getData(), adaptor.getIsInt(), "
                "inferredReturnTypes);")
INFER_REDUCE = ("return ::mxc::mx::detail::inferReduceAxes(getOperationName(), "
                "location, adaptor.getData(), adaptor.getAxis(), "
                "adaptor.getKeepdims(), adaptor.getExclude(), "
                "/*requireNonEmpty=*/{nonempty}, inferredReturnTypes);")
INFER_INIT = ("return ::mxc::mx::detail::inferInit(context, location, getOperationName(), "
              "adaptor.getShape(), adaptor.getDtype(), inferredReturnTypes);")
INFER_SOFTMAX = ("return ::mxc::mx::detail::inferSoftmax(getOperationName(), "
                 "location, adaptor.getData(), {length}, /*hasLengthInput=*/{has}, "
                 "static_cast<int64_t>(adaptor.getAxis()), adaptor.getDtype(), "
                 "adaptor.getUseLength(), inferredReturnTypes);")

# MXNet registers no FListInputNames for these: monitors name their inputs
# "<node>_input0", ... (MXNet 1.9.1, see apply_monitor_names).
MONITOR_UNNAMED_INPUTS = {
    "Activation", "BlockGrad", "Cast", "Flatten", "Reshape", "_contrib_arange_like", "_copy",
    "_div_scalar", "_equal_scalar", "_greater_equal_scalar", "_greater_scalar", "_hypot_scalar",
    "_lesser_equal_scalar", "_lesser_scalar", "_maximum_scalar", "_minimum_scalar",
    "_minus_scalar", "_mul_scalar", "_not_equal_scalar", "_plus_scalar", "_power_scalar",
    "_rdiv_scalar", "_rminus_scalar", "_rpower_scalar", "_slice_assign_scalar", "abs", "arccos",
    "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "argmax", "argmax_channel",
    "broadcast_axis", "broadcast_to", "cbrt", "ceil", "clip", "cos", "cosh", "degrees", "exp",
    "expand_dims", "expm1", "fix", "floor", "hard_sigmoid", "log", "log10", "log1p", "log2",
    "max", "mean", "min", "nanprod", "nansum", "negative", "ones_like", "prod", "radians",
    "rcbrt", "reciprocal", "relu", "rint", "round", "rsqrt", "shape_array", "sigmoid", "sign",
    "sin", "sinh", "size_array", "slice", "slice_axis", "smooth_l1", "softsign", "sqrt",
    "square", "sum", "tan", "tanh", "transpose", "trunc", "zeros_like",
    # (test_op_all_names_monitor: SoftmaxActivation's input is
    # "<node>_input0"; the special functions are registered as the unary
    # math above)
    "SoftmaxActivation", "gamma", "gammaln", "erf", "erfinv",
    "_logical_and_scalar", "_logical_or_scalar", "_logical_xor_scalar",
    "_contrib_round_ste", "_contrib_sign_ste",
}
# MXNet registers FListOutputNames for these: a CachedOp's op hook names their
# outputs "<node>_output", ...; for the rest "<node>_0", "<node>_1", ...
MONITOR_NAMED_OUTPUTS = {
    "Activation", "BatchNorm", "Concat", "Convolution", "Deconvolution", "Dropout",
    "FullyConnected", "GroupNorm", "InstanceNorm", "L2Normalization", "LRN", "LayerNorm",
    "LeakyReLU", "Pad", "Pooling", "RNN", "SequenceLast", "SequenceMask", "SliceChannel",
    "SoftmaxOutput", "SwapAxis", "UpSampling", "elemwise_add", "softmax",
    "im2col", "col2im", "_contrib_interleaved_matmul_selfatt_qk",
    "_contrib_interleaved_matmul_selfatt_valatt", "_contrib_interleaved_matmul_encdec_qk",
    "_contrib_interleaved_matmul_encdec_valatt",
    # (a legacy OperatorProperty op's ListOutputs are its FListOutputNames)
    "_contrib_RROIAlign", "_contrib_Proposal", "_contrib_MultiProposal",
}

# ----------------------------------------------------------------------------
# Neural-network layers
# ----------------------------------------------------------------------------

op(mxnet="Convolution", mnemonic="Convolution", cpp="Convolution",
   source="src/operator/nn/convolution-inl.h ConvolutionParam",
   summary="N-D convolution (1-D, 2-D, 3-D) with groups and dilation",
   description="""
Computes `out[n, f, ...] = bias[f] + sum(weight[f, c, k...] * data[n, g*C/G + c, s*i + d*k - p])`
per group, like MXNet's `Convolution`. The kernel rank (1, 2 or 3) selects
1-D, 2-D or 3-D convolution; `data` is `(N, C, W)`, `(N, C, H, W)` or
`(N, C, D, H, W)` (or channel-last for `layout` NHWC / NDHWC), `weight` is
`(num_filter, C / num_group, *kernel)` and `bias`, present unless `no_bias`,
is `(num_filter,)`. Empty `stride` / `dilate` / `pad` mean 1 / 1 / 0 per
spatial dimension. Each output extent is
`(in + 2 * pad - (1 + (kernel - 1) * dilate)) / stride + 1`.
`workspace`, `cudnn_tune` and `cudnn_off` are MXNet backend hints, kept for
round-tripping.""",
   inputs=[Input("data", tensor=FLOAT), Input("weight", tensor=FLOAT, param_shape="conv_weight"),
           Input("bias", optional=True, tensor=FLOAT, when="!no_bias",
                 param_shape="num_filter")],
   outputs=[Output("output", tensor=FLOAT)],
   attrs=[
       Attr("kernel", "shape", doc="Kernel size: (w,), (h, w) or (d, h, w)."),
       Attr("stride", "shape", "()", doc="Stride; empty means 1 per dimension."),
       Attr("dilate", "shape", "()", doc="Dilation; empty means 1 per dimension."),
       Attr("pad", "shape", "()", doc="Zero padding; empty means 0 per dimension."),
       Attr("num_filter", "int", doc="Number of output channels (>= 1)."),
       Attr("num_group", "int", "1", doc="Number of groups."),
       Attr("workspace", "int", "1024", doc="Workspace limit in MB (backend hint)."),
       Attr("no_bias", "bool", "False", doc="Whether there is no `bias` input."),
       Attr("cudnn_tune", "enum", "None", ["off", "limited_workspace", "fastest"],
            doc="cuDNN algorithm selection (backend hint)."),
       Attr("cudnn_off", "bool", "False", doc="Turn off cuDNN (backend hint)."),
       Attr("layout", "enum", "None", LAYOUT_CONV,
            doc="Data layout; default NCW / NCHW / NCDHW by kernel rank."),
   ],
   aliases=["_npx_convolution", "Convolution_v1"], verifier=True,
   example="""%out = mx.Convolution %data, %weight, %bias {kernel = array<i64: 3, 3>, num_filter = 8 : i64, pad = array<i64: 1, 1>} : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x32x32xf32>""")

op(mxnet="Deconvolution", mnemonic="Deconvolution", cpp="Deconvolution",
   source="src/operator/nn/deconvolution-inl.h DeconvolutionParam",
   summary="N-D transposed convolution (1-D, 2-D, 3-D) with groups and dilation",
   description="""
The gradient of `Convolution` with respect to its data, used as a layer
(MXNet's `Deconvolution`, Gluon's `Conv*DTranspose`): every input element
scatters `weight[c, f, k...]` times itself to output position
`s*i + d*k - p`, per group. `data` is `(N, C, W)`, `(N, C, H, W)` or
`(N, C, D, H, W)`, `weight` is `(C, num_filter / num_group, *kernel)` and
`bias`, present only when `no_bias` is false (MXNet's default is true), is
`(num_filter,)`. Each output extent is
`stride * (in - 1) + 1 + (kernel - 1) * dilate - 2 * pad + adj`; with a
non-zero `target_shape`, `pad` and `adj` are computed so that the output has
that extent (MXNet's `InferPad`). `adj` must be smaller than `stride`.
Channel-last layouts (GPU-only in MXNet) are rejected. `workspace`,
`cudnn_tune` and `cudnn_off` are MXNet backend hints.""",
   inputs=[Input("data", tensor=FLOAT), Input("weight", tensor=FLOAT, param_shape="deconv_weight"),
           Input("bias", optional=True, tensor=FLOAT, when="!no_bias",
                 param_shape="num_filter")],
   outputs=[Output("output", tensor=FLOAT)],
   attrs=[
       Attr("kernel", "shape", doc="Kernel size: (w,), (h, w) or (d, h, w)."),
       Attr("stride", "shape", "()", doc="Stride of the corresponding convolution; empty means 1."),
       Attr("dilate", "shape", "()", doc="Dilation; empty means 1 per dimension."),
       Attr("pad", "shape", "()", doc="Padding of the corresponding convolution; empty means 0."),
       Attr("adj", "shape", "()", doc="Extra extent at the end of each output dimension; empty means 0."),
       Attr("target_shape", "shape", "()", doc="Output spatial shape; overrides pad and adj when non-zero."),
       Attr("num_filter", "int", doc="Number of output channels (>= 1)."),
       Attr("num_group", "int", "1", doc="Number of groups."),
       Attr("workspace", "int", "512", doc="Workspace limit in MB (backend hint)."),
       Attr("no_bias", "bool", "True", doc="Whether there is no `bias` input."),
       Attr("cudnn_tune", "enum", "None", ["off", "limited_workspace", "fastest"],
            doc="cuDNN algorithm selection (backend hint)."),
       Attr("cudnn_off", "bool", "False", doc="Turn off cuDNN (backend hint)."),
       Attr("layout", "enum", "None", LAYOUT_CONV,
            doc="Data layout; default NCW / NCHW / NCDHW by kernel rank."),
   ],
   aliases=["_npx_deconvolution"],
   example="""%out = mx.Deconvolution %data, %weight {kernel = array<i64: 4, 4>, num_filter = 3 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>, tensor<8x3x4x4xf32>) -> tensor<1x3x32x32xf32>""")

op(mxnet="Activation", mnemonic="Activation", cpp="Activation",
   source="src/operator/nn/activation-inl.h ActivationParam",
   summary="Elementwise activation function",
   description="""
Applies `act_type` elementwise: `relu` max(x, 0), `sigmoid` 1 / (1 + exp(-x)),
`tanh`, `softrelu` log(1 + exp(x)), `softsign` x / (1 + |x|).""",
   inputs=[Input("data", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("act_type", "enum", values=["relu", "sigmoid", "tanh", "softrelu",
                                           "softsign"],
               doc="Activation function.")],
   aliases=["_npx_activation"], infer=INFER_SAME,
   example="""%out = mx.Activation %x {act_type = "relu"} : (tensor<2x3xf32>) -> tensor<2x3xf32>""")

op(mxnet="Pooling", mnemonic="Pooling", cpp="Pooling",
   source="src/operator/nn/pooling-inl.h PoolingParam",
   summary="1-D / 2-D / 3-D max, average, sum or Lp pooling",
   description="""
Pools each window of `kernel` (or the whole spatial extent with
`global_pool`). Output extents follow `pooling_convention`:
`valid` floor((in + 2 * pad - kernel) / stride) + 1, `full`
ceil((in + 2 * pad - kernel) / stride) + 1, `same` (1-D only, no padding)
ceil(in / stride). Empty `stride` / `pad` mean 1 / 0. `lp` pooling needs
`p_value`. `count_include_pad` (average pooling; MXNet's default is true)
says whether padded elements count in the divisor.""",
   inputs=[Input("data", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=[
       Attr("kernel", "shape", "()", doc="Window size: (x,), (y, x) or (d, y, x)."),
       Attr("pool_type", "enum", "max", ["max", "avg", "sum", "lp"],
            doc="Pooling function."),
       Attr("global_pool", "bool", "False", doc="Pool over the whole spatial extent."),
       Attr("cudnn_off", "bool", "False", doc="Turn off cuDNN (backend hint)."),
       Attr("pooling_convention", "enum", "valid", ["full", "valid", "same"],
            doc="How output extents are rounded."),
       Attr("stride", "shape", "()", doc="Stride; empty means 1 per dimension."),
       Attr("pad", "shape", "()", doc="Padding; empty means 0 per dimension."),
       Attr("p_value", "int", "None", doc="p of Lp pooling."),
       Attr("count_include_pad", "bool", "None",
            doc="Average pooling: count padding in the divisor (default true)."),
       Attr("layout", "enum", "None", LAYOUT_POOL,
            doc="Data layout; default NCW / NCHW / NCDHW by rank."),
   ],
   aliases=["_npx_pooling", "Pooling_v1"],
   # MKL-DNN builds save max pooling with a second output, the workspace
   graph_outputs=[Output("output"), Output("workspace", when="never")],
   example="""%out = mx.Pooling %x {kernel = array<i64: 3, 3>, pool_type = "max", stride = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x15x15xf32>""")

op(mxnet="FullyConnected", mnemonic="FullyConnected", cpp="FullyConnected",
   source="src/operator/nn/fully_connected-inl.h FullyConnectedParam",
   summary="Fully connected layer: data * weight^T + bias",
   description="""
With `flatten` (the default) `data` is collapsed to `(N, prod(rest))` and the
result is `(N, num_hidden)`; without it the last axis is contracted and the
result keeps the leading axes. `weight` is `(num_hidden, num_input)`; `bias`,
present unless `no_bias`, is `(num_hidden,)` (MXNet also accepts
`(num_hidden, 1)`).""",
   inputs=[Input("data", tensor=FLOAT), Input("weight", tensor=FLOAT, param_shape="fc_weight"),
           Input("bias", optional=True, tensor=FLOAT, when="!no_bias",
                 param_shape="num_hidden")],
   outputs=[Output("output", tensor=FLOAT)],
   attrs=[
       Attr("num_hidden", "int", doc="Number of output units (>= 1)."),
       Attr("no_bias", "bool", "False", doc="Whether there is no `bias` input."),
       Attr("flatten", "bool", "True", doc="Collapse all but the first axis of data."),
   ],
   aliases=["_npx_fully_connected", "_sparse_FullyConnected"],
   example="""%out = mx.FullyConnected %x, %w, %b {num_hidden = 10 : i64} : (tensor<4x3x8x8xf32>, tensor<10x192xf32>, tensor<10xf32>) -> tensor<4x10xf32>""")

op(mxnet="Flatten", mnemonic="Flatten", cpp="Flatten",
   source="src/operator/tensor/matrix_op.cc Flatten",
   summary="Collapses all but the first axis",
   description="""
Reshapes `(d0, d1, ..., dk)` to `(d0, d1 * ... * dk)`.""",
   inputs=[Input("data")], outputs=[Output("output")],
   aliases=["_npx_batch_flatten", "flatten"],
   example="""%out = mx.Flatten %x : (tensor<2x3x4xf32>) -> tensor<2x12xf32>""")

op(mxnet="SoftmaxOutput", mnemonic="SoftmaxOutput", cpp="SoftmaxOutput",
   source="src/operator/softmax_output-inl.h SoftmaxOutputParam",
   summary="Softmax with a cross-entropy loss gradient",
   description="""
The forward result is the softmax of `data` along axis 1 (`multi_output`),
the last axis (`preserve_shape`) or over the flattened trailing axes; the
`label` input and the remaining attributes only shape the gradient. `label`
has `data`'s shape (probabilities) or `data`'s shape without the class axis.""",
   inputs=[Input("data", tensor=FLOAT), Input("label", tensor=FLOAT, param_shape="softmax_label")],
   outputs=[Output("output", tensor=FLOAT)],
   attrs=[
       Attr("grad_scale", "float", "1.0", doc="Gradient scale."),
       Attr("ignore_label", "float", "-1.0", doc="Label ignored when use_ignore."),
       Attr("multi_output", "bool", "False", doc="Softmax along axis 1."),
       Attr("use_ignore", "bool", "False", doc="Ignore ignore_label in the gradient."),
       Attr("preserve_shape", "bool", "False", doc="Softmax along the last axis."),
       Attr("normalization", "enum", "null", ["null", "batch", "valid"],
            doc="Gradient normalisation."),
       Attr("out_grad", "bool", "False", doc="Multiply the gradient by out_grad."),
       Attr("smooth_alpha", "float", "0.0", doc="Label smoothing in [0, 1]."),
   ],
   aliases=["Softmax"], verifier=True,
   example="""%out = mx.SoftmaxOutput %x, %label : (tensor<4x10xf32>, tensor<4xf32>) -> tensor<4x10xf32>""")

# The shape family of an operator whose rule is one of the family calls
# above, for partial shape inference in the front end (Symbol's
# infer_shape_partial propagates known extents back from the result):
# "same": the result has the data input's shape; "elemwise": every input and
# the result have one shape.
SHAPE_FAMILY = {INFER_SAME: "same", INFER_SCALAR: "same", INFER_ELEMWISE: "elemwise"}

INFER_REGRESSION = ("return ::mxc::mx::detail::inferRegressionOutput("
                    "getOperationName(), location, adaptor.getData(), "
                    "adaptor.getLabel(), inferredReturnTypes);")
for name, cpp, fwd, bwd in [
        ("LinearRegressionOutput", "LinearRegressionOutput", "the identity",
         "`(output - label)`"),
        ("MAERegressionOutput", "MAERegressionOutput", "the identity",
         "`sign(output - label)`"),
        ("LogisticRegressionOutput", "LogisticRegressionOutput", "`sigmoid(data)`",
         "`(output - label)`")]:
    op(mxnet=name, mnemonic=name, cpp=cpp,
       source="src/operator/regression_output-inl.h RegressionOutputParam, RegressionOpShape",
       summary=f"Regression loss layer: forward is {fwd}",
       description=f"""
The forward is {fwd}. The gradient of `data` is {bwd} times
`grad_scale / num_output` (num_output: the label's elements per sample), and
ignores the head gradient, as MXNet's `RegressionBackward`; the label gets
none. The label has data's batch extent and element count: data's shape, or
`(N,)` for data of shape `(N, 1)`.""",
       inputs=[Input("data", tensor=FLOAT), Input("label", tensor=FLOAT, param_shape="regression_label")],
       outputs=[Output("output", tensor=FLOAT)],
       attrs=[Attr("grad_scale", "float", "1.0", doc="Scale the gradient by a float factor.")],
       infer=INFER_REGRESSION,
       example=f"""%out = mx.{name} %x, %l : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>""")

op(mxnet="SVMOutput", mnemonic="SVMOutput", cpp="SVMOutput",
   source="src/operator/svm_output-inl.h SVMOutputParam, SVMOutputProp",
   summary="Support vector machine loss layer: forward is the identity",
   description="""
The forward is the identity. The gradient of `data` (viewed as rows of its
last axis) is MXNet's hinge-loss gradient: with `m` = +1 at the label's class
and -1 elsewhere, `-m * regularization_coefficient * [margin - m * x > 0]`
for the L1-SVM (`use_linear`), `-2 * m * regularization_coefficient *
max(margin - m * x, 0)` for the L2-SVM; the head gradient is ignored and the
label gets none. The label has data's shape without the last axis.""",
   inputs=[Input("data", tensor=FLOAT), Input("label", tensor=FLOAT, param_shape="class_label")],
   outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("margin", "float", "1.0", doc="The loss margin."),
          Attr("regularization_coefficient", "float", "1.0",
               doc="Scales the gradient."),
          Attr("use_linear", "bool", "False",
               doc="The L1-SVM (hinge loss) instead of the L2-SVM.")],
   infer=("return ::mxc::mx::detail::inferSVMOutput(getOperationName(), location, "
          "adaptor.getData(), adaptor.getLabel(), inferredReturnTypes);"),
   example="""%out = mx.SVMOutput %x, %l : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>""")

op(mxnet="Cast", mnemonic="Cast", cpp="Cast",
   source="src/operator/tensor/elemwise_unary_op.h CastParam",
   summary="Converts elements to another data type",
   description="""
Casts every element to `dtype` (`float32` f32, `float64` f64, `float16` f16,
`bfloat16` bf16, `uint8` ui8, `int8` i8, `int32` i32, `int64` i64,
`bool` i1).""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("dtype", "dtype", doc="Output data type.")],
   aliases=["_npi_cast", "_npx_cast", "cast"],
   example="""%out = mx.Cast %x {dtype = "float16"} : (tensor<2x3xf32>) -> tensor<2x3xf16>""")

op(mxnet="amp_cast", mnemonic="amp_cast", cpp="AmpCast",
   source="src/operator/tensor/amp_cast.h AMPCastParam, AMPCastType",
   summary="Casts between float32 and the low-precision floats (AMP)",
   description="""
Casts a float32, float16 or bfloat16 tensor to `dtype`; a tensor of any
other element type (float64, the integers, bool) passes through unchanged,
as MXNet's AMPCastType. The gradient is cast back to the input's type. A
composite (mx-decompose): `Cast`, or the input itself.""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("dtype", "dtype", doc="Output data type.")],
   example="""%out = mx.amp_cast %x {dtype = "float16"} : (tensor<2x3xf32>) -> tensor<2x3xf16>""")

op(mxnet="amp_multicast", mnemonic="amp_multicast", cpp="AmpMulticast",
   source="src/operator/tensor/amp_cast.h AMPMultiCastParam, AMPMultiCastType, AMPMultiCastShape",
   summary="Casts its inputs to their widest (or narrowest) float type (AMP)",
   description="""
`num_outputs` inputs, output `i` input `i` (its shape) in the common type:
the inputs of type float32, float16 or bfloat16 are cast to float32 if any
input is float32, else to the first input's type (MXNet's AMPMultiCastType,
so a float64 first input makes the low-precision floats float64); with
`cast_narrow`, to the last float16 / bfloat16 input's type, else float32.
Inputs of other types (float64, the integers, bool) pass through. The
gradient of each input is cast back to its type. A composite
(mx-decompose): `Cast`, or the input itself.""",
   inputs=[Input("data")], outputs=[Output("output", variadic=True)], variadic=True,
   attrs=[Attr("num_outputs", "int", doc="Number of input / output pairs."),
          Attr("cast_narrow", "bool", "False", doc="Cast to the narrowest type instead.")],
   example="""%a, %b = mx.amp_multicast %x, %y {num_outputs = 2 : i64} : (tensor<2x3xf16>, tensor<4xf32>) -> (tensor<2x3xf32>, tensor<4xf32>)""")

op(mxnet="LRN", mnemonic="LRN", cpp="LRN",
   source="src/operator/nn/lrn-inl.h LRNParam",
   summary="Local response normalisation across channels",
   description="""
`out[n, c, ...] = data[n, c, ...] / (knorm + alpha / nsize *
sum(data[n, c', ...]^2 over a window of nsize channels))^beta` on an NCHW
tensor. The second result `tmp_norm` is MXNet's hidden output (the
normaliser), of the same shape.""",
   inputs=[Input("data", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT), Output("tmp_norm", tensor=FLOAT)],
   attrs=[
       Attr("alpha", "float", "0.0001", doc="Variance scaling."),
       Attr("beta", "float", "0.75", doc="Power."),
       Attr("knorm", "float", "2.0", doc="Offset k."),
       Attr("nsize", "int", doc="Normalisation window width in channels (>= 1)."),
   ],
   visible_outputs=1, verifier=True,
   example="""%out, %norm = mx.LRN %x {nsize = 5 : i64} : (tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>)""")

op(mxnet="Dropout", mnemonic="Dropout", cpp="Dropout",
   source="src/operator/nn/dropout-inl.h DropoutParam",
   summary="Randomly zeroes elements during training",
   description="""
In training (or always, with `mode = "always"`) each element is zeroed with
probability `p` and the rest are scaled by 1 / (1 - p); otherwise it is the
identity. The second result is MXNet's hidden `mask`, shaped like `data`
with the `axes` (variational dropout) set to 1. The op reads and advances
the random generator state, so it is not `Pure`.""",
   inputs=[Input("data", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT), Output("mask", tensor=FLOAT)],
   attrs=[
       Attr("p", "float", "0.5", doc="Drop probability in [0, 1]."),
       Attr("mode", "enum", "training", ["training", "always"],
            doc="Drop only in training, or always."),
       Attr("axes", "shape", "()", doc="Axes sharing one mask value (variational)."),
       Attr("cudnn_off", "bool", "False", doc="Turn off cuDNN (backend hint)."),
   ],
   aliases=["_npx_dropout"], pure=False, effects=True, verifier=True,
   visible_outputs=1,
   example="""%out, %mask = mx.Dropout %x {p = 2.000000e-01 : f64} : (tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>)""")

# Normalization layers without running statistics. They are composites: the
# mx-decompose pass (and the lowering, for modules that skip it) rewrites
# them into mean / broadcast / sqrt operators (MXDecompose.cpp), so that their
# gradients are the primitives' and they fuse with them.
op(mxnet="LayerNorm", mnemonic="LayerNorm", cpp="LayerNorm",
   source="src/operator/nn/layer_norm-inl.h LayerNormParam",
   summary="Layer normalization along one axis",
   description="""
`out = (data - mean) / std * gamma + beta` with `mean` and
`std = sqrt(var + eps)` over `axis` (kept with extent 1); `gamma` and `beta`
are `(data.shape[axis],)`. Results: `output`, and `mean` / `std` (shown with
`output_mean_var`).""",
   inputs=[Input("data", tensor=FLOAT), Input("gamma", tensor=FLOAT, param_shape="axis_extent"),
           Input("beta", tensor=FLOAT, param_shape="axis_extent")],
   outputs=[Output("output", tensor=FLOAT), Output("mean", tensor=FLOAT, visible="output_mean_var"),
            Output("std", tensor=FLOAT, visible="output_mean_var")],
   attrs=[Attr("axis", "int", "-1", doc="The axis normalized over."),
          Attr("eps", "float", "1e-05", doc="Added to the variance."),
          Attr("output_mean_var", "bool", "False", doc="Show mean and std.")],
   aliases=["_npx_layer_norm"], visible_outputs=1,
   example="""%out, %mean, %std = mx.LayerNorm %x, %g, %b : (tensor<2x5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<2x5xf32>, tensor<2x1xf32>, tensor<2x1xf32>)""")

op(mxnet="InstanceNorm", mnemonic="InstanceNorm", cpp="InstanceNorm",
   source="src/operator/instance_norm-inl.h InstanceNormParam",
   summary="Instance normalization over the spatial axes",
   description="""
For `(N, C, ...)` data, each `(n, c)` is normalized over the spatial axes:
`out = (data - mean) / sqrt(var + eps) * gamma[c] + beta[c]`. Results:
`output`, and the hidden `mean` / `var` of shape `(N, C)`.""",
   inputs=[Input("data", tensor=FLOAT), Input("gamma", tensor=FLOAT, param_shape="channel"),
           Input("beta", tensor=FLOAT, param_shape="channel")],
   outputs=[Output("output", tensor=FLOAT), Output("mean", tensor=FLOAT),
            Output("var", tensor=FLOAT)],
   attrs=[Attr("eps", "float", "0.001", doc="Added to the variance.")],
   visible_outputs=1,
   example="""%out, %mean, %var = mx.InstanceNorm %x, %g, %b : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<2x3xf32>, tensor<2x3xf32>)""")

op(mxnet="GroupNorm", mnemonic="GroupNorm", cpp="GroupNorm",
   source="src/operator/nn/group_norm-inl.h GroupNormParam",
   summary="Group normalization",
   description="""
For `(N, C, ...)` data, the channels are split into `num_groups` groups and
each `(n, group)` is normalized over its channels and spatial extent; as in
MXNet 1.9.1, `gamma` and `beta` are `(num_groups,)`, one scale and shift per
group. Results: `output`, and `mean` / `std` of shape `(N, num_groups)`
(shown with `output_mean_var`).""",
   inputs=[Input("data", tensor=FLOAT), Input("gamma", tensor=FLOAT, param_shape="num_groups"),
           Input("beta", tensor=FLOAT, param_shape="num_groups")],
   outputs=[Output("output", tensor=FLOAT), Output("mean", tensor=FLOAT, visible="output_mean_var"),
            Output("std", tensor=FLOAT, visible="output_mean_var")],
   attrs=[Attr("num_groups", "int", "1", doc="Number of channel groups."),
          Attr("eps", "float", "1e-05", doc="Added to the variance."),
          Attr("output_mean_var", "bool", "False", doc="Show mean and std.")],
   visible_outputs=1,
   example="""%out, %mean, %std = mx.GroupNorm %x, %g, %b {num_groups = 2 : i64} : (tensor<2x4x3xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x4x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>)""")

op(mxnet="L2Normalization", mnemonic="L2Normalization", cpp="L2Normalization",
   source="src/operator/l2_normalization-inl.h L2NormalizationParam",
   summary="Divides by the L2 norm over instance, channel or spatial axes",
   description="""
`out = data / sqrt(sum(data^2) + eps)` with the sum over every axis but the
first (`instance`; `norm` is `(N,)`), over axis 1 (`channel`; `norm` keeps
it with extent 1) or over the axes after the second (`spatial`; `norm` is
`(N, C)`). `channel` and `spatial` need at least 3-D data. Results: `output`
and the hidden `norm`.""",
   inputs=[Input("data", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT), Output("norm", tensor=FLOAT)],
   attrs=[Attr("eps", "float", "1e-10", doc="Added to the sum of squares."),
          Attr("mode", "enum", "instance", ["instance", "spatial", "channel"],
               doc="The axes of the norm.")],
   visible_outputs=1,
   example="""%out, %norm = mx.L2Normalization %x : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>)""")

op(mxnet="moments", mnemonic="moments", cpp="Moments",
   source="src/operator/nn/moments-inl.h MomentsParam",
   summary="Mean and variance over axes",
   description="""
`mean` and `var` (the population variance, `mean((data - mean)^2)`) over
`axes` (absent: every axis), the reduced axes kept with extent 1 when
`keepdims`; MXNet names them `output0` and `output1`. A composite
(mx-decompose).""",
   inputs=[Input("data", tensor=FLOAT)],
   outputs=[Output("output0", tensor=FLOAT), Output("output1", tensor=FLOAT)],
   attrs=[Attr("axes", "shape", "None", doc="Axes to reduce; absent means all."),
          Attr("keepdims", "bool", "False", doc="Keep the reduced axes.")],
   aliases=["_npx_moments"],
   example="""%mean, %var = mx.moments %x {axes = array<i64: 1>} : (tensor<2x5xf32>) -> (tensor<2xf32>, tensor<2xf32>)""")

op(mxnet="BatchNorm", mnemonic="BatchNorm", cpp="BatchNorm",
   source="src/operator/nn/batch_norm-inl.h BatchNormParam",
   summary="Batch normalisation",
   description="""
Normalises `data` over every axis but `axis` (the channel axis, default 1)
and applies `gamma` (fixed to 1 when `fix_gamma`) and `beta`. `moving_mean`
and `moving_var` are MXNet auxiliary states, used instead of the batch
statistics with `use_global_stats` (inference). Results: `output`, and the
batch `mean` and `var` (hidden unless `output_mean_var`). The update of the
moving statistics (MXNet mutates the aux states in training) is left to the
graph level. For f16 / bf16 data the parameters and statistics are f32.""",
   inputs=[Input("data", tensor=FLOAT), Input("gamma", tensor=FLOAT, param_shape="axis_extent"),
           Input("beta", tensor=FLOAT, param_shape="axis_extent"),
           Input("moving_mean", aux=True, tensor=FLOAT, param_shape="axis_extent"),
           Input("moving_var", aux=True, tensor=FLOAT, param_shape="axis_extent")],
   outputs=[Output("output", tensor=FLOAT), Output("mean", tensor=FLOAT, visible="output_mean_var"),
            Output("var", tensor=FLOAT, visible="output_mean_var")],
   attrs=[
       # A double field with the float default 1e-3f, as MXNet prints it.
       Attr("eps", "float", "0.0010000000474974513",
            doc="Epsilon added to the variance."),
       Attr("momentum", "float", "0.9", doc="Moving average momentum."),
       Attr("fix_gamma", "bool", "True", doc="Treat gamma as 1."),
       Attr("use_global_stats", "bool", "False", doc="Use the moving statistics."),
       Attr("output_mean_var", "bool", "False", doc="Expose mean and var."),
       Attr("axis", "int", "1", doc="Channel axis."),
       Attr("cudnn_off", "bool", "False", doc="Turn off cuDNN (backend hint)."),
       Attr("min_calib_range", "float", "None", doc="Quantisation calibration minimum."),
       Attr("max_calib_range", "float", "None", doc="Quantisation calibration maximum."),
   ],
   aliases=["_npx_batch_norm", "BatchNorm_v1"], visible_outputs=1,
   graph_aliases=["_contrib_SyncBatchNorm", "CuDNNBatchNorm"],
   example="""%out, %mean, %var = mx.BatchNorm %x, %gamma, %beta, %mm, %mv {eps = 1.000000e-05 : f64, fix_gamma = false} : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)""")

op(mxnet="Concat", mnemonic="Concat", cpp="Concat",
   source="src/operator/nn/concat-inl.h ConcatParam",
   summary="Concatenates tensors along an axis",
   description="""
Joins `num_args` inputs of equal rank along `dim` (negative counts from the
end); all other extents must agree.""",
   inputs=[Input("data")], outputs=[Output("output")], variadic=True,
   attrs=[
       Attr("num_args", "int", doc="Number of inputs (>= 1)."),
       Attr("dim", "int", "1", doc="Axis to concatenate along."),
   ],
   aliases=["_sparse_concat", "concat", "_rnn_param_concat"],
   example="""%out = mx.Concat %a, %b {num_args = 2 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>""")

op(mxnet="UpSampling", mnemonic="UpSampling", cpp="UpSampling",
   source="src/operator/nn/upsampling-inl.h UpSamplingParam, UpSamplingProp::InferShape",
   summary="Nearest-neighbour or bilinear upsampling of NCHW data",
   description="""
`nearest`: each of the `num_args` NCHW inputs repeated to the first input's
height and width times `scale` (input k by the integer factor that takes
it there), then joined along the channels (`concat`) or summed (`sum`).
`bilinear`: two inputs, `data` (N, C, H, W) and `weight` (num_filter, 1, k,
k), k = 2 * scale - scale % 2; MXNet's Deconvolution with that kernel,
stride `scale`, pad ceil((scale - 1) / 2), num_group = num_filter, no bias
(C must equal num_filter). A composite (mx-decompose): Reshape /
broadcast_to / Reshape (+ Concat or additions), or the Deconvolution.""",
   inputs=[Input("data")], outputs=[Output("output")], variadic=True,
   attrs=[
       Attr("scale", "int", doc="Up-sampling factor (>= 1)."),
       Attr("num_filter", "int", "0", doc="bilinear: the channels (the weight's first extent)."),
       Attr("sample_type", "enum", values=["nearest", "bilinear"], doc="The method."),
       Attr("multi_input_mode", "enum", "concat", ["concat", "sum"],
            doc="nearest with several inputs: join along the channels or add."),
       Attr("num_args", "int", doc="Number of inputs (bilinear: 2, data and weight)."),
       Attr("workspace", "int", "512", doc="MXNet's workspace limit; ignored."),
   ],
   variadic_param_shape="upsampling_weight",
   example="""%out = mx.UpSampling %x {num_args = 1 : i64, sample_type = "nearest", scale = 2 : i64} : (tensor<1x3x2x2xf32>) -> tensor<1x3x4x4xf32>""")

op(mxnet="RNN", mnemonic="RNN", cpp="RNN",
   source="src/operator/rnn-inl.h RNNParam, GetRnnParamSize; src/operator/rnn.cc RNNShape; "
          "src/operator/rnn_impl.h (CPU kernels: gate order, GRU formula)",
   summary="Fused multi-layer RNN, LSTM or GRU over a (T, N, C) sequence",
   description="""
MXNet's fused recurrent layer. `data` is (T, N, I) (sequence, batch,
features); `parameters` is one flat vector: for each layer and direction
(forward, then backward) the input weights (G*H, I or D*H) then the
recurrent weights (G*H, H), followed by all the biases in the same order
(input bias, recurrent bias, G*H each), with G = 1 (rnn_relu, rnn_tanh), 4
(lstm: gates i, f, g, o) or 3 (gru: r, z, n; n = tanh(x_n + r * (h_n +
b_hn)), h' = (1 - z) * n + z * h). `state` (and for lstm `state_cell`) is
(L*D, N, H). Results: `output` (T, N, D*H), then the last hidden state
(L*D, N, H) and, for lstm, the last cell state; MXNet shows the states only
with `state_outputs`. `p` applies Dropout to the outputs of every layer but
the last (training). A composite (mx-decompose): FullyConnected for the
input projections of the whole sequence, then per time step a
FullyConnected of the state and elementwise gates, unrolled over T.
mxc does not support `use_sequence_length` or `projection_size`.""",
   inputs=[Input("data", tensor=FLOAT), Input("parameters", tensor=FLOAT, param_shape="rnn_parameters"),
           Input("state", tensor=FLOAT, param_shape="rnn_state"),
           Input("state_cell", optional=True, tensor=FLOAT, when="mode=lstm",
                 param_shape="rnn_state")],
   outputs=[Output("output", tensor=FLOAT), Output("state_output", tensor=FLOAT, when="state_outputs"),
            Output("statecell_output", optional=True, tensor=FLOAT,
                   when="state_outputs&mode=lstm")],
   attrs=[
       Attr("state_size", "int", doc="Hidden state size H (>= 1)."),
       Attr("num_layers", "int", doc="Number of stacked layers L (>= 1)."),
       Attr("bidirectional", "bool", "False", doc="Two directions per layer (D = 2)."),
       Attr("mode", "enum", values=["rnn_relu", "rnn_tanh", "lstm", "gru"],
            doc="The recurrent cell."),
       Attr("p", "float", "0.0", doc="Dropout on each layer's output but the last (training)."),
       Attr("state_outputs", "bool", "False", doc="Whether MXNet shows the last states."),
       Attr("projection_size", "int", "None", doc="LSTMP projection; not supported by mxc."),
       Attr("lstm_state_clip_min", "float", "None", doc="Minimum of the LSTM cell state."),
       Attr("lstm_state_clip_max", "float", "None", doc="Maximum of the LSTM cell state."),
       Attr("lstm_state_clip_nan", "bool", "False",
            doc="Clip NaN cell states to the range too."),
       Attr("use_sequence_length", "bool", "False",
            doc="A sequence_length input (variable lengths); not supported by mxc."),
   ],
   aliases=["_npx_rnn"],
   graph_inputs=[Input("data"), Input("parameters", param_shape="rnn_parameters"),
                 Input("state", param_shape="rnn_state"),
                 Input("state_cell", optional=True, when="mode=lstm", param_shape="rnn_state"),
                 Input("sequence_length", optional=True, when="use_sequence_length")],
   example="""%out, %hy, %cy = mx.RNN %x, %params, %h0, %c0 {mode = "lstm", num_layers = 1 : i64, state_size = 4 : i64} : (tensor<5x2x3xf32>, tensor<144xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)""")

op(mxnet="CTCLoss", mnemonic="CTCLoss", cpp="CTCLoss",
   source="src/operator/nn/ctc_loss-inl.h CTCLossOpParam, LabelTensorToPackedVector; "
          "src/operator/nn/ctc_loss.cc",
   summary="Connectionist temporal classification loss per sequence",
   description="""
MXNet's CTCLoss: `data` (T, N, A) holds unnormalised scores (a softmax over
A is applied inside), `label` (N, L) the target sequences; then
`data_lengths` (N,) when `use_data_lengths` and `label_lengths` (N,) when
`use_label_lengths`, in that order (the operands are one variadic group:
data, label, then the lengths the attributes name). The blank is class 0
(`blank_label` first; a label ends at its first 0) or class A - 1 (`last`;
a label ends at its first -1), unless label_lengths gives the lengths.
Result: the negative log-likelihood (N,) of each label sequence over the
alignments of its first data_lengths steps. MXNet's hidden second output
(the gradient computed by the forward) is not there. A composite
(mx-decompose): log_softmax, the extended label's log-probabilities by
one_hot and batch_dot, and the forward (alpha) recursion in log space
unrolled over T; mx-autodiff differentiates it (the gradient is MXNet's,
softmax minus the posterior).""",
   inputs=[Input("data", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)], variadic=True,
   attrs=[
       Attr("use_data_lengths", "bool", "False", doc="A data_lengths input follows label."),
       Attr("use_label_lengths", "bool", "False",
            doc="A label_lengths input follows (else the lengths come from the padding)."),
       Attr("blank_label", "enum", "first", ["first", "last"],
            doc="The blank class: 0 (first) or A - 1 (last)."),
   ],
   aliases=["ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"],
   graph_inputs=[Input("data"), Input("label"),
                 Input("data_lengths", optional=True, when="use_data_lengths"),
                 Input("label_lengths", optional=True, when="use_label_lengths")],
   example="""%loss = mx.CTCLoss %x, %label : (tensor<20x2x4xf32>, tensor<2x4xf32>) -> tensor<2xf32>""")

SEQ_USE = Attr("use_sequence_length", "bool", "False",
               doc="A sequence_length input (batch,) follows data.")
SEQ_AXIS = Attr("axis", "int", "0", doc="The time axis: 0 (T, N, ...) or 1 (N, T, ...).")

op(mxnet="SequenceMask", mnemonic="SequenceMask", cpp="SequenceMask",
   source="src/operator/sequence_mask-inl.h SequenceMaskParam",
   summary="Sets the steps past each sequence's length to a value",
   description="""
For `data` (T, N, ...) (`axis` 0) or (N, T, ...) (`axis` 1) and
`sequence_length` (N,) when `use_sequence_length`: step t of sequence n is
`value` where t >= sequence_length[n], else data's. Without
`use_sequence_length` the data unchanged. A composite (mx-decompose):
arange_like along the axis, a broadcast comparison with the lengths, and
`where` (so steps past the length may hold anything, NaN included); the
gradient is the output gradient inside the lengths, 0 past them.""",
   inputs=[Input("data"), Input("sequence_length", optional=True, when="use_sequence_length",
                         param_shape="sequence_batch")],
   outputs=[Output("output")],
   attrs=[SEQ_USE, Attr("value", "float", "0.0", doc="The value past the lengths."), SEQ_AXIS],
   example="""%out = mx.SequenceMask %x, %len {use_sequence_length = true} : (tensor<3x2x4xf32>, tensor<2xf32>) -> tensor<3x2x4xf32>""")

op(mxnet="SequenceLast", mnemonic="SequenceLast", cpp="SequenceLast",
   source="src/operator/sequence_last-inl.h SequenceLastParam",
   summary="The last step of each sequence",
   description="""
For `data` (T, N, ...) (`axis` 0) or (N, T, ...) (`axis` 1): result (N, ...)
holding, for sequence n, step sequence_length[n] - 1 with
`use_sequence_length`, else step T - 1. A length outside [1, T] is clipped
into it (MXNet's kernel reads outside the array there). A composite
(mx-decompose): a one-step mask along the axis, `where` and `sum`.""",
   inputs=[Input("data"), Input("sequence_length", optional=True, when="use_sequence_length",
                         param_shape="sequence_batch")],
   outputs=[Output("output")],
   attrs=[SEQ_USE, SEQ_AXIS],
   example="""%out = mx.SequenceLast %x : (tensor<3x2x4xf32>) -> tensor<2x4xf32>""")

op(mxnet="SequenceReverse", mnemonic="SequenceReverse", cpp="SequenceReverse",
   source="src/operator/sequence_reverse-inl.h SequenceReverseParam",
   summary="Reverses each sequence along the time axis",
   description="""
For `data` (T, N, ...) and `sequence_length` (N,) when `use_sequence_length`:
the first sequence_length[n] steps of sequence n in reverse order, the steps
past it unchanged; without `use_sequence_length` every sequence reversed
whole. Only `axis` 0 (MXNet's kernel has no other). A composite
(mx-decompose): `reverse`, or with lengths the source step of every (t, n)
from arange_like and broadcast comparisons, then one `take` of the (T*N, ...)
rows; the gradient is the output gradient reversed the same way.""",
   inputs=[Input("data"), Input("sequence_length", optional=True, when="use_sequence_length",
                         param_shape="sequence_batch")],
   outputs=[Output("output")],
   attrs=[SEQ_USE, Attr("axis", "int", "0", doc="The time axis: only 0 (T, N, ...).")],
   example="""%out = mx.SequenceReverse %x, %len {use_sequence_length = true} : (tensor<3x2x4xf32>, tensor<2xf32>) -> tensor<3x2x4xf32>""")

op(mxnet="_contrib_AdaptiveAvgPooling2D", mnemonic="_contrib_AdaptiveAvgPooling2D",
   cpp="ContribAdaptiveAvgPooling2D",
   source="src/operator/contrib/adaptive_avg_pooling-inl.h AdaptiveAvgPoolParam, "
          "AdaptiveAvgPoolOpInferShape; adaptive_avg_pooling.cc (START_IND, END_IND)",
   summary="Average pooling to a fixed output size (PyTorch's adaptive_avg_pool2d)",
   description="""
For `data` (N, C, H, W) the (N, C, OH, OW) averages of the windows
rows [floor(i * H / OH), ceil((i + 1) * H / OH)) x columns likewise.
`output_size` is () for 1 x 1, (s,) for s x s, or (OH, OW). A composite
(mx-decompose): the window averages as two averaging matrices built from
`_arange` (OH x H and OW x W), applied by `dot` along W and then H, so the
gradient follows.""",
   inputs=[Input("data", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("output_size", "shape", "()", doc="() (1 x 1), (s,) or (OH, OW).")],
   example="""%y = mx._contrib_AdaptiveAvgPooling2D %x {output_size = array<i64: 3, 2>} : (tensor<1x2x7x5xf32>) -> tensor<1x2x3x2xf32>""")

op(mxnet="_contrib_BilinearResize2D", mnemonic="_contrib_BilinearResize2D",
   cpp="ContribBilinearResize2D",
   source="src/operator/contrib/bilinear_resize-inl.h BilinearSampleParam, "
          "BilinearSampleOpInferShape, area_pixel_compute_scale / _source_index; "
          "bilinear_resize.cc (CPU kernel)",
   summary="Bilinear resize of (N, C, H, W) images",
   description="""
MXNet's contrib.BilinearResize2D. The output size: `mode` "size" gives
(`height`, `width`), or int(scale * H) / int(scale * W) when `scale_height`
is set; "odd_scale" int(H * scale) for even H, int((H - 1) * scale) + 1 for
odd; "like" the height and width of the second input `like`; "to_even_down" /
"to_even_up" / "to_odd_down" / "to_odd_up" the nearest even / odd extent
below / above. Output row i samples source row r = scale * i with
`align_corners` (scale (H - 1) / (OH - 1)), else max(scale * (i + 0.5) - 0.5,
0) (scale H / OH), as r0 = floor(r) and r0 + 1 (r0 at the last row) weighted
1 - (r - r0) and r - r0; columns likewise. A composite (mx-decompose): the
source rows and weights from `_arange`, `take` of the two rows and of the two
columns, broadcast multiplications; the gradient follows (take's is a
scatter-add), none to `like`.""",
   inputs=[Input("data", tensor=FLOAT), Input("like", optional=True, tensor=FLOAT, when="mode=like")],
   outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("height", "int", "1", doc="Output height (mode size, no scale_height)."),
          Attr("width", "int", "1", doc="Output width (mode size, no scale_width)."),
          Attr("scale_height", "float", "None", doc="Height scale (modes size, odd_scale)."),
          Attr("scale_width", "float", "None", doc="Width scale (modes size, odd_scale)."),
          Attr("mode", "enum", "size", ["size", "odd_scale", "like", "to_even_down",
                                         "to_even_up", "to_odd_down", "to_odd_up"],
               doc="How the output size is chosen."),
          Attr("align_corners", "bool", "True",
               doc="Corner pixels' centres map onto each other.")],
   example="""%y = mx._contrib_BilinearResize2D %x {height = 5 : i64, width = 7 : i64} : (tensor<1x2x3x4xf32>) -> tensor<1x2x5x7xf32>""")

op(mxnet="_contrib_box_nms", mnemonic="_contrib_box_nms", cpp="ContribBoxNms",
   source="src/operator/contrib/bounding_box-inl.h BoxNMSParam, BoxNMSShape, BoxNMSForward; "
          "bounding_box-common.h nms_impl",
   summary="Non-maximum suppression of scored boxes",
   description="""
`data` (..., num, width): records holding a score (`score_index`), four
coordinates from `coord_start` (`in_format` corner x1, y1, x2, y2 or center
x, y, w, h) and optionally a class id (`id_index`). Per batch (the leading
axes): the records with score > valid_thresh (and id != background_id)
ordered by descending score (ties by position), the first `topk` of them,
then greedy suppression of every later record whose IoU with a kept one
exceeds overlap_thresh (same class only, unless force_suppress). The result
has data's shape: the kept records first, in that order (coordinates in
`out_format`), then rows of -1. The hidden second output holds each
result row's source position over all batches (-1 for none), for the
gradient, which copies each result row's gradient back to its source. The
runtime's kernel (mxc_kernel_box_nms) as MXNet's CPU kernel; the gradient
is a one_hot product per batch (memory batch * num^2).""",
   inputs=[Input("data", tensor=FLOAT)],
   outputs=[Output("output0", tensor=FLOAT), Output("output1", tensor=FLOAT)],
   attrs=[Attr("overlap_thresh", "float", "0.5", doc="IoU above which a box is suppressed."),
          Attr("valid_thresh", "float", "0.0", doc="Scores at or below it are dropped."),
          Attr("topk", "int", "-1", doc="Boxes considered per batch; -1 all."),
          Attr("coord_start", "int", "2", doc="Index of the first coordinate."),
          Attr("score_index", "int", "1", doc="Index of the score."),
          Attr("id_index", "int", "-1", doc="Index of the class id; -1 none."),
          Attr("background_id", "int", "-1", doc="Class id dropped before NMS."),
          Attr("force_suppress", "bool", "False", doc="Suppress across classes."),
          Attr("in_format", "enum", "corner", ["corner", "center"], doc="Input boxes."),
          Attr("out_format", "enum", "corner", ["corner", "center"], doc="Output boxes.")],
   aliases=["_contrib_box_non_maximum_suppression"], visible_outputs=1,
   example="""%out, %rec = mx._contrib_box_nms %d {overlap_thresh = 0.1 : f64} : (tensor<2x4x6xf32>) -> (tensor<2x4x6xf32>, tensor<2x4x1xf32>)""")

op(mxnet="_contrib_bipartite_matching", mnemonic="_contrib_bipartite_matching",
   cpp="ContribBipartiteMatching",
   source="src/operator/contrib/bounding_box-inl.h BipartiteMatchingParam, MatchingShape, "
          "BipartiteMatchingForward",
   summary="Greedy bipartite matching of rows and columns by score",
   description="""
For scores (..., N, M): per batch, the (row, column) pairs in order of
score (descending, ascending with `is_ascend`; ties by position), each pair
whose row and column are still free matched while its score passes
`threshold` (the first score that does not ends the batch), stopping once
more than `topk` pairs are matched (MXNet's count). Results: the matched
column of each row (..., N) and the matched row of each column (..., M), -1
for none, in data's type. No gradient (MXNet's is zero). The runtime's
kernel (mxc_kernel_bipartite_matching) as MXNet's CPU kernel.""",
   inputs=[Input("data", tensor=FLOAT)],
   outputs=[Output("output0", tensor=FLOAT), Output("output1", tensor=FLOAT)],
   attrs=[Attr("is_ascend", "bool", "False", doc="Smaller scores match first."),
          Attr("threshold", "float", doc="Scores past it do not match."),
          Attr("topk", "int", "-1", doc="Stop after more than topk matches; -1 none.")],
   example="""%r, %c = mx._contrib_bipartite_matching %s {threshold = 1.0e-12 : f64} : (tensor<3x2xf32>) -> (tensor<3xf32>, tensor<2xf32>)""")

op(mxnet="Correlation", mnemonic="Correlation", cpp="Correlation",
   source="src/operator/correlation-inl.h CorrelationParam, InferShape; correlation.cc",
   summary="Correlation of two feature maps over a grid of displacements (FlowNet)",
   description="""
For data1, data2 (N, C, H, W), both zero-padded by `pad_size`: output channel
d of the (2 r + 1)^2 displacements (r = max_displacement / stride2, the
vertical one d / (2 r + 1), the horizontal one d % (2 r + 1), each times
stride2) at (i, j) is the sum over the kernel_size x kernel_size window at
(i * stride1 + max_displacement, j * stride1 + max_displacement) and the
channels of data1 * data2 shifted by the displacement (|data1 - data2|
without is_multiply), divided by kernel_size^2 * C; the result is (N,
(2 r + 1)^2, ceil((H + 2 pad - 2 border) / stride1), same for W), border =
max_displacement + (kernel_size - 1) / 2. The hidden outputs are the padded
inputs, (N, H + 2 pad, W + 2 pad, C). A composite (mx-decompose): one `take`
gathers data2 at every displacement, a product (or |difference|) summed
over the channels, and a sum Pooling over the window; its gradient follows.
Memory N * C * (2 r + 1)^2 * window area; float16 is computed in float32.""",
   inputs=[Input("data1", tensor=FLOAT), Input("data2", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT), Output("tmp1", tensor=FLOAT),
            Output("tmp2", tensor=FLOAT)],
   attrs=[Attr("kernel_size", "int", "1", doc="The window (odd)."),
          Attr("max_displacement", "int", "1", doc="The largest displacement."),
          Attr("stride1", "int", "1", doc="Stride over data1's positions."),
          Attr("stride2", "int", "1", doc="Stride of the displacements."),
          Attr("pad_size", "int", "0", doc="Zero padding of both inputs."),
          Attr("is_multiply", "bool", "True", doc="Products (else absolute differences).")],
   visible_outputs=1,
   example="""%c, %t1, %t2 = mx.Correlation %a, %b {max_displacement = 1 : i64, pad_size = 1 : i64} : (tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>) -> (tensor<1x9x5x5xf32>, tensor<1x7x7x2xf32>, tensor<1x7x7x2xf32>)""")

op(mxnet="GridGenerator", mnemonic="GridGenerator", cpp="GridGenerator",
   source="src/operator/grid_generator-inl.h GridGeneratorParam, InferShape, Forward",
   summary="Sampling grids for a spatial transformer (affine or optical-flow warp)",
   description="""
The (N, 2, H, W) sampling grid of normalised coordinates (x, y in [-1, 1]
across the image: x = -1 + 2 j / (W - 1), y = -1 + 2 i / (H - 1)) that
BilinearSampler reads. `affine`: `data` (N, 6) holds each row-major 2 x 3
matrix applied to the target grid (x, y, 1) of `target_shape` (H, W).
`warp`: `data` (N, 2, H, W) is an optical flow in pixels added to each
pixel's (j, i), then normalised: (j + flow_x) / ((W - 1) / 2) - 1 and
likewise for y. The hidden output is the grid itself, (3, H * W) for affine,
(2, H, W) for warp. A composite (mx-decompose): the grid from `_arange`,
then `dot` (affine) or elementwise arithmetic (warp); its gradient
follows.""",
   inputs=[Input("data", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT), Output("grid_dst", tensor=FLOAT)],
   attrs=[Attr("transform_type", "enum", values=["affine", "warp"],
               doc="affine: data (N, 6); warp: data (N, 2, H, W), an optical flow."),
          Attr("target_shape", "shape", "(0, 0)",
               doc="The output's (H, W); required for affine, ignored for warp.")],
   visible_outputs=1,
   example="""%g, %d = mx.GridGenerator %a {transform_type = "affine", target_shape = array<i64: 3, 4>} : (tensor<2x6xf32>) -> (tensor<2x2x3x4xf32>, tensor<3x12xf32>)""")

_SAMPLER_DESC = """Bilinear sampling (MXNet's BilinearSamplingForward): grid
values x, y in [-1, 1] address the data's pixels at x_real = (x + 1) (W -
1) / 2 (y likewise); each output is the weighted sum of the four pixels
around it, a pixel outside the image counting 0."""

op(mxnet="BilinearSampler", mnemonic="BilinearSampler", cpp="BilinearSampler",
   source="src/operator/bilinear_sampler-inl.h, bilinear_sampler.cc BilinearSamplerForward",
   summary="Samples data at a grid of normalised coordinates, bilinearly",
   description="""
`data` (N, C, H, W) sampled at `grid` (N, 2, Ho, Wo) (x then y): the result
is (N, C, Ho, Wo). """ + _SAMPLER_DESC + """ The hidden output is the grid
as (N, Ho, Wo, 2). A composite (mx-decompose): floor, `take` of the four
corners of the flattened data, masks and weights; the data's gradient goes
back through take, the grid's through the weights (as MXNet's).""",
   inputs=[Input("data", tensor=FLOAT), Input("grid", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT), Output("tmp", tensor=FLOAT)],
   attrs=[Attr("cudnn_off", "bool", "None", doc="Turn off cuDNN (backend hint).")],
   visible_outputs=1,
   example="""%y, %t = mx.BilinearSampler %x, %g : (tensor<1x3x5x5xf32>, tensor<1x2x4x4xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x4x4x2xf32>)""")

op(mxnet="SpatialTransformer", mnemonic="SpatialTransformer", cpp="SpatialTransformer",
   source="src/operator/spatial_transformer-inl.h SpatialTransformerParam, InferShape, Forward",
   summary="Spatial transformer: an affine sampling grid and bilinear sampling",
   description="""
`data` (N, C, H, W) sampled at the affine transform `loc` (N, 6) (row-major
2 x 3 matrices) of the target grid of `target_shape` (Ho, Wo), as
GridGenerator then BilinearSampler: the result is (N, C, Ho, Wo). """ +
   _SAMPLER_DESC + """ The hidden outputs are the target grid (3, Ho * Wo)
and the sampling grid (N, 2, Ho * Wo). A composite (mx-decompose).""",
   inputs=[Input("data", tensor=FLOAT), Input("loc", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT), Output("grid_dst", tensor=FLOAT),
            Output("grid_src", tensor=FLOAT)],
   attrs=[Attr("target_shape", "shape", "(0, 0)", doc="The output's (H, W)."),
          Attr("transform_type", "enum", values=["affine"], doc="Only affine."),
          Attr("sampler_type", "enum", values=["bilinear"], doc="Only bilinear."),
          Attr("cudnn_off", "bool", "None", doc="Turn off cuDNN (backend hint).")],
   visible_outputs=1,
   example="""%y, %d, %s = mx.SpatialTransformer %x, %loc {target_shape = array<i64: 3, 4>, transform_type = "affine", sampler_type = "bilinear"} : (tensor<2x3x5x5xf32>, tensor<2x6xf32>) -> (tensor<2x3x3x4xf32>, tensor<3x12xf32>, tensor<2x2x12xf32>)""")

op(mxnet="_contrib_quantize", mnemonic="_contrib_quantize", cpp="ContribQuantize",
   source="src/operator/quantization/quantize-inl.h QuantizeParam; "
          "mkldnn/mkldnn_quantize-inl.h MKLDNNQuantizeComputeKer",
   summary="Quantizes float32 data of a given range to int8 or uint8",
   description="""
MXNet's contrib.quantize as MXNet 1.9.1's PyPI build computes it (its oneDNN
kernel, which its CPU build dispatches to): `min_range` and `max_range` (1,)
give the data's range, r = max(|min|, |max|); the result is x * 127 / r
(int8) or x * 255 / r (uint8) in float32, rounded to nearest even and
saturated. The range out is (-r, r) for int8 and the range in for uint8. (The
reference kernels of quantize-inl.h, which that build does not run, differ:
uint8 offsets by min.) A composite (mx-decompose) of elementwise operators
and Cast; the integer result has no gradient.""",
   inputs=[Input("data", tensor=FLOAT), Input("min_range", tensor=FLOAT),
           Input("max_range", tensor=FLOAT)],
   outputs=[Output("output"), Output("min_output", tensor=FLOAT),
            Output("max_output", tensor=FLOAT)],
   attrs=[Attr("out_type", "enum", "uint8", ["int8", "uint8"], doc="The quantized type.")],
   example="""%q, %lo, %hi = mx._contrib_quantize %x, %mn, %mx {out_type = "int8"} : (tensor<2x2xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<2x2xi8>, tensor<1xf32>, tensor<1xf32>)""")

op(mxnet="_contrib_dequantize", mnemonic="_contrib_dequantize", cpp="ContribDequantize",
   source="src/operator/quantization/dequantize-inl.h DequantizeParam; "
          "mkldnn/mkldnn_dequantize-inl.h",
   summary="Dequantizes int8 / uint8 data of a given range to float32",
   description="""
MXNet's contrib.dequantize as MXNet 1.9.1's PyPI build computes it (its
oneDNN kernel): q * max(|min|, |max|) / 127.5 (int8) or / 255.5 (uint8). A
composite (mx-decompose).""",
   inputs=[Input("data"), Input("min_range", tensor=FLOAT), Input("max_range", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("out_type", "enum", "float32", ["float32"], doc="The result type.")],
   example="""%y = mx._contrib_dequantize %q, %mn, %mx : (tensor<2x2xi8>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x2xf32>""")

op(mxnet="im2col", mnemonic="im2col", cpp="Im2col",
   source="src/operator/nn/im2col-inl.h Im2colParam; im2col.cc FInferShape",
   summary="Sliding blocks of an image as columns (the columns of a convolution's GEMM)",
   description="""
For `data` (N, C, *spatial) (1-, 2- or 3-D, as many dimensions as `kernel`)
the result is (N, C * prod(kernel), L): row c * prod(kernel) + k (k the
kernel offset, row-major) holds, for each of the L output positions of the
convolution with the same kernel / stride / dilate / pad, the zero-padded
input element that offset meets. A composite (mx-decompose): a grouped
`Convolution` (one group per channel) with one-hot weights; its gradient is
`col2im` of the output gradient, as MXNet's.""",
   inputs=[Input("data", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("kernel", "shape", doc="Sliding kernel size: (w,), (h, w) or (d, h, w)."),
          Attr("stride", "shape", "()", doc="Stride between blocks; empty means 1."),
          Attr("dilate", "shape", "()", doc="Spacing of the kernel points; empty means 1."),
          Attr("pad", "shape", "()", doc="Zero padding on both sides; empty means 0.")],
   example="""%col = mx.im2col %x {kernel = array<i64: 3, 3>} : (tensor<1x2x5x5xf32>) -> tensor<1x18x9xf32>""")

op(mxnet="col2im", mnemonic="col2im", cpp="Col2im",
   source="src/operator/nn/im2col-inl.h Col2imParam; im2col.cc FInferShape",
   summary="Columns summed back into an image (the adjoint of im2col)",
   description="""
For `data` (N, C * prod(kernel), L) as `im2col` lays it out, the image (N,
C, *output_size): every column element is added to the image position its
kernel offset and block meet (positions in the padding are dropped), so
col2im(im2col(x)) is x times the number of blocks covering each element. L
must be the number of blocks of an `output_size` image. A composite
(mx-decompose): a grouped `Deconvolution` with one-hot weights; its
gradient is `im2col`, as MXNet's.""",
   inputs=[Input("data", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("output_size", "shape", doc="The image's spatial shape: (w,), (h, w) or (d, h, w)."),
          Attr("kernel", "shape", doc="Sliding kernel size: (w,), (h, w) or (d, h, w)."),
          Attr("stride", "shape", "()", doc="Stride between blocks; empty means 1."),
          Attr("dilate", "shape", "()", doc="Spacing of the kernel points; empty means 1."),
          Attr("pad", "shape", "()", doc="Zero padding on both sides; empty means 0.")],
   example="""%im = mx.col2im %c {kernel = array<i64: 3, 3>, output_size = array<i64: 5, 5>} : (tensor<1x18x9xf32>) -> tensor<1x2x5x5xf32>""")

_INTERLEAVED_HEADS = [Attr("heads", "int", doc="The number of attention heads."),
                      Attr("bwd_ignore_zero_init", "bool", "False",
                           doc="A GPU backward hint of MXNet's; no effect.")]
_INTERLEAVED = """ A composite (mx-decompose):
Reshape, slice_axis, transpose and `batch_dot`; its gradient follows."""

op(mxnet="_contrib_interleaved_matmul_selfatt_qk",
   mnemonic="_contrib_interleaved_matmul_selfatt_qk", cpp="ContribInterleavedMatmulSelfattQk",
   source="src/operator/contrib/transformer.cc InterleavedMatMulSelfAttQKShape, "
          "InterleavedMatMulSelfAttQKCPU",
   summary="Self-attention scores from interleaved query / key / value projections",
   description="""
`queries_keys_values` (S, B, 3 E) holds, per sequence position and batch
element, each head's query, key and value (D = E / heads values each) one
after another. The result (B * heads, S, S) is, for attention batch b *
heads + h, the products q . k of every query and key position times 1 /
sqrt(D).""" + _INTERLEAVED,
   inputs=[Input("queries_keys_values", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)], attrs=_INTERLEAVED_HEADS,
   example="""%s = mx._contrib_interleaved_matmul_selfatt_qk %qkv {heads = 2 : i64} : (tensor<4x3x12xf32>) -> tensor<6x4x4xf32>""")

op(mxnet="_contrib_interleaved_matmul_selfatt_valatt",
   mnemonic="_contrib_interleaved_matmul_selfatt_valatt",
   cpp="ContribInterleavedMatmulSelfattValatt",
   source="src/operator/contrib/transformer.cc InterleavedMatMulSelfAttValAttShape, "
          "InterleavedMatMulSelfAttValAttCPU",
   summary="Attention-weighted values from interleaved query / key / value projections",
   description="""
For `queries_keys_values` (S, B, 3 E) (as selfatt_qk reads it) and
`attention` (B * heads, S, S): the (S, B, E) result holds for each head the
attention rows times its values, heads side by side in the last axis.""" + _INTERLEAVED,
   inputs=[Input("queries_keys_values", tensor=FLOAT), Input("attention", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)], attrs=_INTERLEAVED_HEADS,
   example="""%o = mx._contrib_interleaved_matmul_selfatt_valatt %qkv, %att {heads = 2 : i64} : (tensor<4x3x12xf32>, tensor<6x4x4xf32>) -> tensor<4x3x4xf32>""")

op(mxnet="_contrib_interleaved_matmul_encdec_qk",
   mnemonic="_contrib_interleaved_matmul_encdec_qk", cpp="ContribInterleavedMatmulEncdecQk",
   source="src/operator/contrib/transformer.cc InterleavedMatMulEncDecQKShape, "
          "InterleavedMatMulEncDecQKCPU",
   summary="Encoder-decoder attention scores from queries and interleaved key / value projections",
   description="""
`queries` (Sq, B, E) holds each head's query (D = E / heads values), and
`keys_values` (Skv, B, 2 E) each head's key and value one after another. The
result (B * heads, Sq, Skv) is q . k / sqrt(D) for attention batch b * heads
+ h.""" + _INTERLEAVED,
   inputs=[Input("queries", tensor=FLOAT), Input("keys_values", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)], attrs=_INTERLEAVED_HEADS,
   example="""%s = mx._contrib_interleaved_matmul_encdec_qk %q, %kv {heads = 2 : i64} : (tensor<4x3x4xf32>, tensor<5x3x8xf32>) -> tensor<6x4x5xf32>""")

op(mxnet="_contrib_interleaved_matmul_encdec_valatt",
   mnemonic="_contrib_interleaved_matmul_encdec_valatt",
   cpp="ContribInterleavedMatmulEncdecValatt",
   source="src/operator/contrib/transformer.cc InterleavedMatMulEncDecValAttShape, "
          "InterleavedMatMulEncDecValAttCPU",
   summary="Attention-weighted values from interleaved key / value projections",
   description="""
For `keys_values` (Skv, B, 2 E) (as encdec_qk reads it) and `attention` (B *
heads, Sq, Skv): the (Sq, B, E) result holds for each head the attention
rows times its values, heads side by side in the last axis.""" + _INTERLEAVED,
   inputs=[Input("keys_values", tensor=FLOAT), Input("attention", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)], attrs=_INTERLEAVED_HEADS,
   example="""%o = mx._contrib_interleaved_matmul_encdec_valatt %kv, %att {heads = 2 : i64} : (tensor<5x3x8xf32>, tensor<6x4x5xf32>) -> tensor<4x3x4xf32>""")

op(mxnet="_contrib_box_iou", mnemonic="_contrib_box_iou", cpp="ContribBoxIou",
   source="src/operator/contrib/bounding_box-inl.h BoxOverlapParam, BoxOverlapShape, "
          "compute_overlap; bounding_box-common.h Intersect, BoxArea",
   summary="Intersection over union of every pair of boxes of two arrays",
   description="""
`lhs` (a1, ..., an, 4) and `rhs` (b1, ..., bm, 4) hold boxes as corners
(xmin, ymin, xmax, ymax) or, with `format` "center", (x, y, width, height);
the result (a1, ..., an, b1, ..., bm) is each pair's intersection area over
its union (0 where they do not intersect; a box of negative extent has area
0). A composite (mx-decompose): the coordinates sliced out, broadcast
maximum / minimum over the (lhs, rhs) pairs, `where`; no gradient (MXNet's
backward writes zeros).""",
   inputs=[Input("lhs", tensor=FLOAT), Input("rhs", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("format", "enum", "corner", ["corner", "center"],
               doc="Box encoding: corner or center.")],
   example="""%iou = mx._contrib_box_iou %a, %b : (tensor<3x4xf32>, tensor<2x5x4xf32>) -> tensor<3x2x5xf32>""")

op(mxnet="_contrib_box_encode", mnemonic="_contrib_box_encode", cpp="ContribBoxEncode",
   source="src/operator/contrib/bounding_box-inl.h BoxEncodeShape, box_encode",
   summary="Detection training targets: matched boxes as normalised center offsets",
   description="""
For `samples` (B, N) (> 0.5: positive), `matches` (B, N) (an index into the
M reference boxes of the same batch), `anchors` (B, N, 4) and `refs` (B, M,
4) as corners, and `means` / `stds` (4,): the targets (B, N, 4) ((ref_x -
a_x) / a_w - means[0]) / stds[0], likewise for y, then (log(ref_w / a_w) -
means[2]) / stds[2] and the height, 0 for non-positive samples; and the mask
(B, N, 4), 1 for positive samples. A composite (mx-decompose): `take` of the
matched reference boxes, elementwise arithmetic, `where`; no gradient
(MXNet's MakeZeroGradNodes).""",
   inputs=[Input("samples", tensor=FLOAT), Input("matches", tensor=FLOAT),
           Input("anchors", tensor=FLOAT), Input("refs", tensor=FLOAT),
           Input("means", tensor=FLOAT), Input("stds", tensor=FLOAT)],
   outputs=[Output("output0", tensor=FLOAT), Output("output1", tensor=FLOAT)],
   example="""%t, %m = mx._contrib_box_encode %s, %i, %a, %r, %mu, %sd : (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2x4xf32>, tensor<1x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x2x4xf32>, tensor<1x2x4xf32>)""")

op(mxnet="_contrib_box_decode", mnemonic="_contrib_box_decode", cpp="ContribBoxDecode",
   source="src/operator/contrib/bounding_box-inl.h BoxDecodeParam, BoxDecodeShape, box_decode",
   summary="Boxes from predicted center offsets relative to anchors",
   description="""
For `data` (B, N, 4) offsets and `anchors` (1, N, 4) (corners or, with
`format` "center", (x, y, w, h)): x = data0 * std0 * a_w + a_x, y likewise,
w = exp(min(data2 * std2, clip)) * a_w (the min only when clip > 0), h
likewise; the result (B, N, 4) is the corners (x - w / 2, y - h / 2, x +
w / 2, y + h / 2). A composite (mx-decompose) of slices and elementwise
arithmetic; no gradient (MXNet's MakeZeroGradNodes).""",
   inputs=[Input("data", tensor=FLOAT), Input("anchors", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("std0", "float", "1.0", doc="Scale of the x offset."),
          Attr("std1", "float", "1.0", doc="Scale of the y offset."),
          Attr("std2", "float", "1.0", doc="Scale of the width offset."),
          Attr("std3", "float", "1.0", doc="Scale of the height offset."),
          Attr("clip", "float", "-1.0", doc="Upper bound of the scaled log size offsets "
               "when > 0."),
          Attr("format", "enum", "center", ["corner", "center"],
               doc="The anchors' encoding.")],
   example="""%y = mx._contrib_box_decode %d, %a {std0 = 0.1 : f64} : (tensor<2x3x4xf32>, tensor<1x3x4xf32>) -> tensor<2x3x4xf32>""")

op(mxnet="_contrib_gradientmultiplier", mnemonic="_contrib_gradientmultiplier",
   cpp="ContribGradientMultiplier",
   source="src/operator/contrib/gradient_multiplier_op.cc (NumpyBinaryScalarParam)",
   summary="Identity whose gradient is multiplied by a scalar",
   description="""
Forward is the identity; backward multiplies the output gradient by
`scalar` (gradient reversal layers use a negative one).""",
   inputs=[Input("data", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("scalar", "float", "1.0", doc="The gradient's factor."),
          Attr("is_int", "bool", "True", doc="Whether the scalar is an integer (MXNet's "
               "NumpyBinaryScalarParam; no effect).")], infer=INFER_SAME,
   example="""%y = mx._contrib_gradientmultiplier %x {scalar = -0.5 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>""")

op(mxnet="_contrib_MultiBoxTarget", mnemonic="_contrib_MultiBoxTarget",
   cpp="ContribMultiBoxTarget",
   source="src/operator/contrib/multibox_target-inl.h MultiBoxTargetParam, InferShape; "
          "multibox_target.cc MultiBoxTargetForward",
   summary="SSD training targets: anchors matched to ground-truth boxes",
   description="""
`anchor` (1, A, 4) corner boxes, `label` (B, L, W >= 5) rows of class,
x1, y1, x2, y2 (a class of -1 ends a batch's labels), `cls_pred` (B, C, A)
class scores. Each ground truth gets its best free anchor (greedily by
IoU), every other anchor its best ground truth, positive above
overlap_threshold; the rest are negatives, or with negative_mining_ratio >
0 only the num_positive * ratio anchors below negative_mining_thresh whose
background probability (softmax of cls_pred) is lowest. Results:
`loc_target` (B, A * 4) the positives' box offsets divided by `variances`,
`loc_mask` (B, A * 4) 1 for positives, `cls_target` (B, A) class + 1 for
positives, 0 for negatives, ignore_label otherwise. No gradient (MXNet's is
zero). The runtime's kernel (mxc_kernel_multibox_target) as MXNet's CPU
kernel (minimum_negative_samples is unused there too).""",
   inputs=[Input("anchor", tensor=FLOAT), Input("label", tensor=FLOAT),
           Input("cls_pred", tensor=FLOAT)],
   outputs=[Output("loc_target", tensor=FLOAT), Output("loc_mask", tensor=FLOAT),
            Output("cls_target", tensor=FLOAT)],
   attrs=[Attr("overlap_threshold", "float", "0.5", doc="IoU above which an anchor is positive."),
          Attr("ignore_label", "float", "-1.0", doc="Class target of ignored anchors."),
          Attr("negative_mining_ratio", "float", "-1.0",
               doc="Negatives per positive; -1 all negatives."),
          Attr("negative_mining_thresh", "float", "0.5",
               doc="IoU below which an anchor may be a mined negative."),
          Attr("minimum_negative_samples", "int", "0", doc="Unused (as in MXNet's kernel)."),
          Attr("variances", "string", "(0.1, 0.1, 0.2, 0.2)",
               doc="Divisors of the box offsets, MXNet's tuple of four floats.")],
   example="""%loc, %mask, %cls = mx._contrib_MultiBoxTarget %a, %l, %p : (tensor<1x4x4xf32>, tensor<2x3x5xf32>, tensor<2x3x4xf32>) -> (tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x4xf32>)""")

op(mxnet="_contrib_MultiBoxDetection", mnemonic="_contrib_MultiBoxDetection",
   cpp="ContribMultiBoxDetection",
   source="src/operator/contrib/multibox_detection-inl.h MultiBoxDetectionParam, InferShape; "
          "multibox_detection.cc MultiBoxDetectionForward",
   summary="SSD detections: decoded boxes of the best class, after NMS",
   description="""
`cls_prob` (B, C, A) class probabilities (class 0 the background),
`loc_pred` (B, A * 4) box offsets, `anchor` (1, A, 4) corner boxes. Per
anchor the best non-background class (background when its score is below
`threshold`) and the anchor decoded with `variances` (clipped to [0, 1]
with `clip`); result rows [class - 1, score, x1, y1, x2, y2], the
detections first, then rows of -1. For 0 < nms_threshold <= 1 the
detections are ordered by score, the first nms_topk kept, and each one
suppresses later ones of its class (any class with force_suppress) at IoU
>= nms_threshold by setting their class to -1. `background_id` is unused, as
in MXNet's kernel. No gradient (MXNet's is zero). The runtime's kernel
(mxc_kernel_multibox_detection) as MXNet's CPU kernel.""",
   inputs=[Input("cls_prob", tensor=FLOAT), Input("loc_pred", tensor=FLOAT),
           Input("anchor", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("clip", "bool", "True", doc="Clip the boxes to [0, 1]."),
          Attr("threshold", "float", "0.01", doc="Scores below it are background."),
          Attr("background_id", "int", "0", doc="Unused (as in MXNet's kernel)."),
          Attr("nms_threshold", "float", "0.5", doc="IoU at which NMS suppresses."),
          Attr("force_suppress", "bool", "False", doc="Suppress across classes."),
          Attr("variances", "string", "(0.1, 0.1, 0.2, 0.2)",
               doc="Multipliers of the box offsets, MXNet's tuple of four floats."),
          Attr("nms_topk", "int", "-1", doc="Detections kept for NMS; -1 all.")],
   aliases=["_npx_multibox_detection"],
   example="""%d = mx._contrib_MultiBoxDetection %p, %l, %a : (tensor<2x3x4xf32>, tensor<2x16xf32>, tensor<1x4x4xf32>) -> tensor<2x4x6xf32>""")

_PROPOSAL_DOC = """
For `cls_prob` (N, 2 A, H, W) (background scores, then the A anchors'
foreground scores), `bbox_pred` (N, 4 A, H, W) box deltas and `im_info`
(N, 3) rows (height, width, scale), MXNet's region proposal network
output, as its CPU kernel: A = len(ratios) * len(scales) anchors per
position (Faster R-CNN's generate_anchors on a feature_stride square:
for each ratio, each scale) shifted by feature_stride; each decoded by its
deltas (or, with `iou_loss`, offset by them) and clipped to the image;
positions past (height, width) / feature_stride and boxes narrower than
rpn_min_size * scale get score -1 (the small ones also grow by rpn_min_size
/ 2 on each side, as MXNet's FilterBox); a stable sort by score, the first
rpn_pre_nms_top_n (<= 0: all), greedy NMS at IoU > `threshold` (pixel
boxes, +1 extents) keeping rpn_post_nms_top_n; rows (image, x1, y1, x2,
y2), the kept ones repeated cyclically to fill rpn_post_nms_top_n, and
`score` (hidden unless `output_score`). An image whose (height, width) /
feature_stride exceeds the map has nothing masked (MXNet stops on a check).
The runtime's kernel (mxc_kernel_proposal) writes (rows, 6), the two
results are its column slices. The gradient is zero (MXNet's)."""

_PROPOSAL_ATTRS = [
    Attr("rpn_pre_nms_top_n", "int", "6000", doc="Boxes taken into NMS; <= 0 all."),
    Attr("rpn_post_nms_top_n", "int", "300", doc="Boxes kept by NMS per image."),
    Attr("threshold", "float", "0.7", doc="NMS IoU threshold."),
    Attr("rpn_min_size", "int", "16", doc="Minimum box height and width (times the scale)."),
    Attr("scales", "string", "(4.0, 8.0, 16.0, 32.0)", doc="Anchor scales (tuple of floats)."),
    Attr("ratios", "string", "(0.5, 1.0, 2.0)", doc="Anchor aspect ratios (tuple of floats)."),
    Attr("feature_stride", "int", "16", doc="Image pixels per feature-map position."),
    Attr("output_score", "bool", "False", doc="Show the score output."),
    Attr("iou_loss", "bool", "False", doc="Deltas are corner offsets (IoU loss)."),
]

op(mxnet="_contrib_Proposal", mnemonic="_contrib_Proposal", cpp="ContribProposal",
   source="src/operator/contrib/proposal-inl.h ProposalParam, InferShape; proposal.cc "
          "ProposalOp::Forward, BBoxTransformInv, FilterBox, NonMaximumSuppression",
   summary="Region proposals of a Faster R-CNN RPN for one image",
   description=_PROPOSAL_DOC + """
One image (N = 1, MXNet's check); results (rpn_post_nms_top_n, 5) and
(rpn_post_nms_top_n, 1).""",
   inputs=[Input("cls_prob", tensor=FLOAT), Input("bbox_pred", tensor=FLOAT),
           Input("im_info", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT), Output("score", tensor=FLOAT, visible="output_score")],
   attrs=_PROPOSAL_ATTRS, visible_outputs=1,
   example="""%r, %s = mx._contrib_Proposal %c, %b, %i {scales = "(8, 16)", ratios = "(1)", rpn_post_nms_top_n = 4 : i64} : (tensor<1x4x3x3xf32>, tensor<1x8x3x3xf32>, tensor<1x3xf32>) -> (tensor<4x5xf32>, tensor<4x1xf32>)""")

op(mxnet="_contrib_MultiProposal", mnemonic="_contrib_MultiProposal",
   cpp="ContribMultiProposal",
   source="src/operator/contrib/multi_proposal-inl.h MultiProposalParam, InferShape; "
          "multi_proposal.cc MultiProposalOp::Forward",
   summary="Region proposals of a Faster R-CNN RPN for a batch of images",
   description=_PROPOSAL_DOC + """
Results (N * rpn_post_nms_top_n, 5) and (N * rpn_post_nms_top_n, 1), image
n's rows at n * rpn_post_nms_top_n.""",
   inputs=[Input("cls_prob", tensor=FLOAT), Input("bbox_pred", tensor=FLOAT),
           Input("im_info", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT), Output("score", tensor=FLOAT, visible="output_score")],
   attrs=_PROPOSAL_ATTRS, visible_outputs=1,
   example="""%r, %s = mx._contrib_MultiProposal %c, %b, %i {scales = "(8, 16)", ratios = "(1)", rpn_post_nms_top_n = 4 : i64} : (tensor<2x4x3x3xf32>, tensor<2x8x3x3xf32>, tensor<2x3xf32>) -> (tensor<8x5xf32>, tensor<8x1xf32>)""")

op(mxnet="_contrib_MultiBoxPrior", mnemonic="_contrib_MultiBoxPrior",
   cpp="ContribMultiBoxPrior",
   source="src/operator/contrib/multibox_prior-inl.h MultiBoxPriorParam, InferShape, "
          "Forward; multibox_prior.cc MultiBoxPriorForward",
   summary="SSD anchor boxes for every position of a feature map",
   description="""
For `data` (N, C, H, W): (1, H * W * A, 4) anchors as corners, A =
len(sizes) + len(ratios) - 1 per position (row r, column c): centered at
((c + offsets[1]) * step_x, (r + offsets[0]) * step_y) (steps (-1, -1): 1 / H
and 1 / W), half extents w = size * H / W * sqrt(ratio) / 2 and h = size /
sqrt(ratio) / 2 for each size with the first ratio, then for the other
ratios with the first size; `clip` clips the corners to [0, 1]. Computed in
float as MXNet's kernel. `sizes`, `ratios`, `steps`, `offsets` are MXNet's
tuples of floats. A composite (mx-decompose) of `_arange` and broadcast
arithmetic: the result depends only on data's shape (no gradient).""",
   inputs=[Input("data", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("sizes", "string", "(1.0,)", doc="Anchor sizes (tuple of floats)."),
          Attr("ratios", "string", "(1.0,)", doc="Aspect ratios (tuple of floats)."),
          Attr("clip", "bool", "False", doc="Clip the corners to [0, 1]."),
          Attr("steps", "string", "(-1.0, -1.0)",
               doc="(step_y, step_x); -1 for 1 / extent."),
          Attr("offsets", "string", "(0.5, 0.5)", doc="Center offsets (y, x) in [0, 1].")],
   aliases=["_npx_multibox_prior"],
   example="""%a = mx._contrib_MultiBoxPrior %x {sizes = "(0.5, 0.25)", ratios = "(1, 2)"} : (tensor<1x3x4x5xf32>) -> tensor<1x60x4xf32>""")

op(mxnet="ROIPooling", mnemonic="ROIPooling", cpp="ROIPooling",
   source="src/operator/roi_pooling-inl.h ROIPoolingParam, InferShape, InferType; "
          "roi_pooling.cc ROIPoolForward",
   summary="Max pooling of regions of interest to a fixed size (Fast R-CNN)",
   description="""
For `data` (N, C, H, W) and `rois` (R, 5) rows (batch index, x1, y1, x2,
y2): each region, its corners scaled by `spatial_scale` and rounded (half
away from zero), at least 1 x 1, is split into `pooled_size` (PH, PW) bins
[floor(p * size / P), ceil((p + 1) * size / P)) offset by the region's start
and clipped to the map; the output (R, C, PH, PW) is each bin's maximum (0
for an empty bin or a batch index outside [0, N)). The hidden second output
`maxidx` (int32) is the flat index of the maximum in data (first one; -1
when empty). A composite (mx-decompose): the windows' row and column masks
from the regions and `_arange`, `take` of each region's image, the
maximum (and argmax) of the masked values over every (h, w): memory R x C x
PH x PW x H x W, so this formulation suits small maps and region counts (a
direct kernel is the way for detection-sized inputs). The gradient flows to
the maxima; none to `rois`.""",
   inputs=[Input("data", tensor=FLOAT), Input("rois", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT), Output("maxidx")],
   attrs=[Attr("pooled_size", "shape", doc="(PH, PW) of each region's output."),
          Attr("spatial_scale", "float", doc="Scale from the rois' coordinates to data's.")],
   visible_outputs=1,
   example="""%y, %i = mx.ROIPooling %x, %r {pooled_size = array<i64: 2, 2>, spatial_scale = 1.0 : f64} : (tensor<1x2x6x6xf32>, tensor<3x5xf32>) -> (tensor<3x2x2x2xf32>, tensor<3x2x2x2xi32>)""")

op(mxnet="_contrib_ROIAlign", mnemonic="_contrib_ROIAlign", cpp="ContribROIAlign",
   source="src/operator/contrib/roi_align-inl.h ROIAlignParam; roi_align.cc "
          "ROIAlignForward, bilinear_interpolate, FInferShape",
   summary="Average of bilinear samples of regions of interest (Mask R-CNN)",
   description="""
For `data` (N, C, H, W) and `rois` (R, 5) rows (batch index, x1, y1, x2,
y2) scaled by `spatial_scale` (minus 0.5 with `aligned`; at least 1 x 1
without): each of the `pooled_size` (PH, PW) bins is the mean of a grid of
bilinear samples, `sample_ratio` per axis or ceil(bin extent) when it is
<= 0 (adaptive), MXNet's sampling (a sample beyond [-1, extent] reads 0,
one below 0 reads the border). `position_sensitive` reads channel
c * PH * PW + ph * PW + pw for output channel c (C must divide by PH * PW).
A negative batch index gives the region 0 (MXNet 1.9.1's kernel zeroes
element r of the whole output instead, a bug); an adaptive grid has at least
one sample (MXNet's is empty for an inverted region with `aligned`, and it
divides by 0). A composite (mx-decompose):
the samples
are separable, so each region's mean is a weight matrix per axis (R, PH, H)
and (R, PW, W) applied to the region's image (`take`) by two batch_dots; an
adaptive grid has data-dependent extent, but only the samples in [-1,
extent] carry weight and their spacing is at least 0.5, so a window of
2 * extent + 4 samples from the first one there covers them (static shapes).
The gradient flows to data; none to `rois` (MXNet's).""",
   inputs=[Input("data", tensor=FLOAT), Input("rois", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("pooled_size", "shape", doc="(PH, PW) of each region's output."),
          Attr("spatial_scale", "float", doc="Scale from the rois' coordinates to data's."),
          Attr("sample_ratio", "int", "-1", doc="Samples per bin and axis; <= 0: adaptive."),
          Attr("position_sensitive", "bool", "False", doc="R-FCN's channel per bin."),
          Attr("aligned", "bool", "False", doc="Detectron2's half-pixel offset.")],
   example="""%y = mx._contrib_ROIAlign %x, %r {pooled_size = array<i64: 2, 2>, spatial_scale = 1.0 : f64} : (tensor<1x2x6x6xf32>, tensor<3x5xf32>) -> tensor<3x2x2x2xf32>""")

op(mxnet="_contrib_RROIAlign", mnemonic="_contrib_RROIAlign", cpp="ContribRROIAlign",
   source="src/operator/contrib/rroi_align-inl.h RROIAlignParam; rroi_align.cc "
          "RROIAlignForward, pre_calc_for_bilinear_interpolate, FInferShape",
   summary="Average of bilinear samples of rotated regions of interest",
   description="""
For `data` (N, C, H, W) and `rois` (R, 6) rows (batch index, center x,
center y, width, height, angle in degrees), the center and extents scaled
by `spatial_scale` (extents at least 1): each of the `pooled_size` (PH, PW)
bins of the region, rotated by the angle about its center, is the mean of
a grid of bilinear samples, `sampling_ratio` per axis or ceil(bin extent)
when it is <= 0 (adaptive), MXNet's sampling (a sample beyond [-1, extent]
reads 0, one below 0 reads the border). A batch index that truncates to
outside [0, N), or a non-finite field, gives the region 0 (MXNet's kernel
reads outside data). The runtime's kernel
(mxc_kernel_rroi_align), in the element type, summing as MXNet's CPU
kernel: rotated samples are not separable and an adaptive grid's size is
data-dependent. No gradient (MXNet registers none).""",
   inputs=[Input("data", tensor=FLOAT), Input("rois", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("pooled_size", "shape", doc="(PH, PW) of each region's output."),
          Attr("spatial_scale", "float", doc="Scale from the rois' coordinates to data's."),
          Attr("sampling_ratio", "int", "-1", doc="Samples per bin and axis; <= 0: adaptive.")],
   example="""%y = mx._contrib_RROIAlign %x, %r {pooled_size = array<i64: 2, 2>, spatial_scale = 1.0 : f64} : (tensor<1x2x6x6xf32>, tensor<3x6xf32>) -> tensor<3x2x2x2xf32>""")

# Image operators of src/operator/image (image_random.cc, crop.cc): the
# deterministic ones, as composites (mx-decompose).
op(mxnet="_image_to_tensor", mnemonic="_image_to_tensor", cpp="ImageToTensor",
   source="src/operator/image/image_random-inl.h ToTensorShape, ToTensorType, ToTensor",
   summary="An HWC image in [0, 255] as a float32 CHW tensor in [0, 1]",
   description="""
`data` (H, W, C) or (N, H, W, C) of any type: transposed to (C, H, W) / (N,
C, H, W), divided by 255 (float32 division, in the data's type for float64
data, as MXNet's kernel) into float32. A composite (transpose, Cast,
_div_scalar). MXNet's gradient is the head gradient copied (`_copy`, of the
output's shape); mxc's is the composite's (transposed back and divided by
255).""",
   inputs=[Input("data")], outputs=[Output("output", tensor=FLOAT)],
   aliases=["_npx__image_to_tensor"],
   example="""%t = mx._image_to_tensor %x : (tensor<4x5x3xui8>) -> tensor<3x4x5xf32>""")

op(mxnet="_image_normalize", mnemonic="_image_normalize", cpp="ImageNormalize",
   source="src/operator/image/image_random-inl.h NormalizeParam, NormalizeOpShape, Normalize",
   summary="(x - mean[c]) / std[c] per channel of a CHW / NCHW tensor",
   description="""
`data` (C, H, W) or (N, C, H, W) with C 1 or 3; `mean` and `std` MXNet's
tuples of floats with 1 or C elements (one element: every channel). In the
data's type; the gradient is 1 / std[c] (MXNet's _backward_image_normalize).
A composite (per channel _minus_scalar, _div_scalar, Concat). The
defaults (four elements each) are MXNet's, which its shape rule rejects.""",
   inputs=[Input("data", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("mean", "string", "(0.0, 0.0, 0.0, 0.0)", doc="Per-channel means (tuple of floats)."),
          Attr("std", "string", "(1.0, 1.0, 1.0, 1.0)",
               doc="Per-channel standard deviations (tuple of floats).")],
   aliases=["_npx__image_normalize"],
   example="""%n = mx._image_normalize %x {mean = "(0, 1, 2)", std = "(3, 2, 1)"} : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>""")

_IMAGE_FLIP_DOC = """
`data` (H, W, C), C 1 or 3 (MXNet's ImageShape), reversed along {axis}
(MXNet 1.9.1's kernel swaps pairs and leaves the middle of an odd extent
unwritten; mxc copies it). A composite (reverse). MXNet's gradient is the head gradient copied (`_copy`,
not reversed); mxc's is the composite's (reversed back)."""

op(mxnet="_image_flip_left_right", mnemonic="_image_flip_left_right",
   cpp="ImageFlipLeftRight", source="src/operator/image/image_random-inl.h FlipLeftRight, ImageShape",
   summary="An HWC image mirrored left to right",
   description=_IMAGE_FLIP_DOC.format(axis="the width (axis 1)"),
   inputs=[Input("data")], outputs=[Output("output")],
   aliases=["_npx__image_flip_left_right"],
   example="""%f = mx._image_flip_left_right %x : (tensor<4x5x3xf32>) -> tensor<4x5x3xf32>""")

op(mxnet="_image_flip_top_bottom", mnemonic="_image_flip_top_bottom",
   cpp="ImageFlipTopBottom", source="src/operator/image/image_random-inl.h FlipTopBottom, ImageShape",
   summary="An HWC image mirrored top to bottom",
   description=_IMAGE_FLIP_DOC.format(axis="the height (axis 0)"),
   inputs=[Input("data")], outputs=[Output("output")],
   aliases=["_npx__image_flip_top_bottom"],
   example="""%f = mx._image_flip_top_bottom %x : (tensor<4x5x3xf32>) -> tensor<4x5x3xf32>""")

op(mxnet="_image_crop", mnemonic="_image_crop", cpp="ImageCrop",
   source="src/operator/image/crop-inl.h CropParam, CropShape, CropImpl",
   summary="A (height, width) window at (y, x) of an HWC / NHWC image",
   description="""
`data` (H, W, C) or (N, H, W, C), C 1 or 3: the rows [y, y + height) and
columns [x, x + width) (inside the image: MXNet's checks). A composite
(slice_axis); the gradient is the head gradient in the window, zero
elsewhere (MXNet's _backward_image_crop).""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("x", "int", doc="Left boundary."), Attr("y", "int", doc="Top boundary."),
          Attr("width", "int", doc="Window width (> 0)."),
          Attr("height", "int", doc="Window height (> 0).")],
   aliases=["_npx__image_crop"],
   example="""%c = mx._image_crop %x {x = 1 : i64, y = 0 : i64, width = 2 : i64, height = 3 : i64} : (tensor<4x5x3xf32>) -> tensor<3x2x3xf32>""")

op(mxnet="_image_adjust_lighting", mnemonic="_image_adjust_lighting",
   cpp="ImageAdjustLighting",
   source="src/operator/image/image_random-inl.h AdjustLightingParam, AdjustLightingImpl",
   summary="AlexNet's PCA lighting shift of an HWC RGB image",
   description="""
`data` (H, W, C), C 1 or 3: for C = 3, each channel plus the float
eig[c] . alpha of AlexNet's RGB eigenvectors scaled by their eigenvalues
(MXNet's table), computed in float32 and converted back (uint8 clamped to
[0, 255] first, MXNet's saturate_cast); C = 1 is returned unchanged.
`alpha` has three floats. A composite; the gradient is the head gradient
(MXNet's `_copy`).""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("alpha", "string", doc="The lighting alphas of R, G, B (three floats).")],
   aliases=["_npx__image_adjust_lighting"],
   example="""%l = mx._image_adjust_lighting %x {alpha = "(0.1, 0.2, 0.3)"} : (tensor<4x5x3xf32>) -> tensor<4x5x3xf32>""")

_DEFORM_ATTRS = [
    Attr("kernel", "shape", doc="Kernel size (h, w)."),
    Attr("stride", "shape", "()", doc="Stride; empty means 1 per dimension."),
    Attr("dilate", "shape", "()", doc="Dilation; empty means 1 per dimension."),
    Attr("pad", "shape", "()", doc="Zero padding; empty means 0 per dimension."),
    Attr("num_filter", "int", doc="Number of output channels (>= 1)."),
    Attr("num_group", "int", "1", doc="Number of groups."),
    Attr("num_deformable_group", "int", "1", doc="Groups of channels sharing one offset field."),
    Attr("workspace", "int", "1024", doc="Workspace limit in MB (backend hint)."),
    Attr("no_bias", "bool", "False", doc="Whether there is no `bias` input."),
    Attr("layout", "enum", "None", ["NCHW"], doc="Only NCHW."),
]
for _name, _cpp, _mod in (("_contrib_DeformableConvolution", "ContribDeformableConvolution", False),
                          ("_contrib_ModulatedDeformableConvolution",
                           "ContribModulatedDeformableConvolution", True)):
    op(mxnet=_name, mnemonic=_name, cpp=_cpp,
       source=("src/operator/contrib/modulated_deformable_convolution-inl.h, "
               "nn/modulated_deformable_im2col.h modulated_deformable_im2col_cpu_kernel, "
               "dmcn_im2col_bilinear_cpu" if _mod else
               "src/operator/contrib/deformable_convolution-inl.h, nn/deformable_im2col.h "
               "deformable_im2col_cpu, im2col_bilinear_cpu"),
       summary=("Modulated deformable 2-D convolution (Deformable ConvNets v2)" if _mod else
                "Deformable 2-D convolution (Deformable ConvNets)"),
       description="""
A 2-D convolution whose kernel taps are moved by `offset` (N, 2 K G, Ho,
Wo) (K = kh kw taps, G = `num_deformable_group`; per group and tap the row
then the column offset): tap (i, j) of output (ho, wo) reads channel c of
group g at (ho stride - pad + i dilate + dh, wo stride - pad + j dilate +
dw) by bilinear interpolation, %s. The taps then meet `weight` (F, C /
num_group, kh, kw) as Convolution's columns do, plus `bias`. A composite
(mx-decompose): the four corners of every tap by `take` from the data, their
bilinear weights and masks, then a batch_dot per group; the gradient reaches
data, offset%s, weight and bias through them (the offset's through the
weights, as MXNet's coordinate gradient). NCHW only.""" % (
           "-1 < y < H and -1 < x < W (MXNet's CPU kernel), each corner outside the map "
           "reading 0, the tap multiplied by `mask` (N, K G, Ho, Wo)" if _mod else
           "0 <= y < H and 0 <= x < W (MXNet 1.9.1's CPU kernel; 0 outside), a corner past "
           "the last row or column reading the border", ", mask" if _mod else ""),
       inputs=[Input("data", tensor=FLOAT), Input("offset", tensor=FLOAT)] +
              ([Input("mask", tensor=FLOAT)] if _mod else []) +
              [Input("weight", tensor=FLOAT, param_shape="conv_weight"),
               Input("bias", optional=True, tensor=FLOAT, when="!no_bias",
                     param_shape="num_filter")],
       outputs=[Output("output", tensor=FLOAT)],
       attrs=list(_DEFORM_ATTRS) + ([Attr("im2col_step", "int", "64",
                                          doc="Images per im2col step (backend hint).")]
                                    if _mod else []),
       example=("""%%y = mx.%s %%x, %%o, %%m, %%w, %%b {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<1x18x5x5xf32>, tensor<1x9x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>""" % _name
                if _mod else
                """%%y = mx.%s %%x, %%o, %%w, %%b {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 4 : i64} : (tensor<1x2x5x5xf32>, tensor<1x18x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>""" % _name))

op(mxnet="_contrib_PSROIPooling", mnemonic="_contrib_PSROIPooling", cpp="ContribPSROIPooling",
   source="src/operator/contrib/psroi_pooling-inl.h PSROIPoolingParam, InferShape; "
          "psroi_pooling.cc PSROIPoolForwardCPU",
   summary="Position-sensitive average pooling of regions of interest (R-FCN)",
   description="""
For `data` (N, C, H, W) and `rois` (R, 5) rows (batch index, x1, y1, x2,
y2): each region, its corners rounded (half away from zero), the end plus
one, scaled by `spatial_scale` (at least 0.1 wide), is split into
`pooled_size` x `pooled_size` bins [floor(start + p * bin), ceil(start + (p
+ 1) * bin)) clipped to the map; output (R, output_dim, P, P) channel c of
bin (ph, pw) is the mean of data channel (c * G + gh) * G + gw over the bin
(gh = floor(ph * G / P), G = `group_size`, `pooled_size` when 0), 0 for an
empty bin. data needs output_dim * G * G channels. A composite
(mx-decompose): the bins' row and column masks applied to each region's
image by two batch_dots, then the channel of each bin. The gradient flows
to data; none to `rois`.""",
   inputs=[Input("data", tensor=FLOAT), Input("rois", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("spatial_scale", "float", doc="Scale from the rois' coordinates to data's."),
          Attr("output_dim", "int", doc="Output channels."),
          Attr("pooled_size", "int", doc="Bins per axis."),
          Attr("group_size", "int", "0", doc="Channel groups per axis; 0: pooled_size.")],
   example="""%y = mx._contrib_PSROIPooling %x, %r {spatial_scale = 1.0 : f64, output_dim = 2 : i64, pooled_size = 2 : i64} : (tensor<1x8x6x6xf32>, tensor<3x5xf32>) -> tensor<3x2x2x2xf32>""")

op(mxnet="_histogram", mnemonic="_histogram", cpp="Histogram",
   source="src/operator/tensor/histogram-inl.h HistogramParam, HistogramOpShape, "
          "HistogramOpType, FillBinBoundsKernel; histogram.cc ComputeBinKernel",
   summary="Histogram of the flattened data (mx.nd.histogram)",
   description="""
With `bin_cnt` and `range` (lo, hi): `bin_cnt` equal-width bins, edges
(hi * i + (bin_cnt - i) * lo) / bin_cnt computed in double; without them the
edges are the second input `bins` (rank 1, at least two). A value counts in
the last bin whose lower edge it reaches (the last bin includes its upper
edge); values outside [first edge, last edge] are not counted. Results: the
int64 counts (bins,) and the edges (bins + 1,) in data's type. A composite
(mx-decompose): broadcast comparisons of every value with every edge, summed
per edge in float64 (cumulative counts) and differenced. No gradient (as
MXNet).""",
   inputs=[Input("data"), Input("bins", optional=True, when="bin_cnt=None")],
   outputs=[Output("output0"), Output("output1")],
   attrs=[Attr("bin_cnt", "int", "None", doc="Number of equal-width bins (with range)."),
          Attr("range", "string", "None",
               doc="(lo, hi) of the bins, MXNet's tuple of floats (with bin_cnt).")],
   aliases=["_npi_histogram"],
   example="""%h, %e = mx._histogram %x {bin_cnt = 4 : i64, range = "(0.0, 2.0)"} : (tensor<3x5xf32>) -> (tensor<4xi64>, tensor<5xf32>)""")

# ----------------------------------------------------------------------------
# Elementwise binary (same shape), identity-like ops
# ----------------------------------------------------------------------------

for name, what, aliases in [
        ("elemwise_add", "lhs + rhs", ["_Plus", "_add", "_plus", "_sparse_elemwise_add"]),
        ("elemwise_sub", "lhs - rhs", ["_Minus", "_minus", "_sparse_elemwise_sub", "_sub"]),
        ("elemwise_mul", "lhs * rhs", ["_Mul", "_mul", "_sparse_elemwise_mul"]),
        ("elemwise_div", "lhs / rhs", ["_Div", "_div", "_sparse_elemwise_div"])]:
    op(mxnet=name, mnemonic=name, cpp=camel(name),
       source="src/operator/tensor/elemwise_binary_op_basic.cc",
       summary=f"Elementwise `{what}` of two tensors of one shape",
       description=f"""
Computes `{what}` elementwise. Both inputs must have the same shape and
element type (no broadcasting; see `broadcast_*`).""",
       inputs=[Input("lhs"), Input("rhs", param_shape="same_as_data")], outputs=[Output("output")],
       aliases=aliases, infer=INFER_ELEMWISE,
       example=f"""%out = mx.{name} %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>""")

op(mxnet="_mod", mnemonic="_mod", cpp="Mod",
   source="src/operator/tensor/elemwise_binary_op_basic.cc _mod; mshadow_op.h mod",
   summary="Elementwise remainder `lhs % rhs` of two tensors of one shape",
   description="""
MXNet's `_mod` (alias `_Mod`, Python's `%` on two symbols): the remainder
with the sign of the divisor (Python's `%`), computed in double as
mshadow_op::mod, and 0 where `rhs` is 0. The gradient is 1 for `lhs` and
`-floor(lhs / rhs)` for `rhs`.""",
   inputs=[Input("lhs"), Input("rhs")],
   outputs=[Output("output")],
   aliases=["_Mod"], infer=INFER_ELEMWISE,
   example="""%out = mx._mod %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>""")

op(mxnet="_hypot", mnemonic="_hypot", cpp="Hypot",
   source="src/operator/tensor/elemwise_binary_op_extended.cc _hypot",
   summary="Elementwise `sqrt(lhs^2 + rhs^2)` of two tensors of one shape",
   description="""
The hypotenuse of a right triangle with legs `lhs` and `rhs` (MXNet's
`_hypot`, alias `_Hypot`), computed as `m * sqrt(1 + (n / m)^2)` with
`m = max(|lhs|, |rhs|)`, `n = min(|lhs|, |rhs|)` so that no square overflows.
Both inputs must have the same shape and floating-point type.""",
   inputs=[Input("lhs", tensor=FLOAT), Input("rhs", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)],
   aliases=["_Hypot"], infer=INFER_ELEMWISE,
   example="""%out = mx._hypot %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>""")

op(mxnet="_copy", mnemonic="identity", cpp="Identity",
   source="src/operator/tensor/elemwise_unary_op_basic.cc _copy",
   summary="Returns a copy of the input",
   description="""
MXNet registers this operator as `_copy` with the alias `identity`; graphs
saved by MXNet name it `_copy`.""",
   inputs=[Input("data")], outputs=[Output("output")],
   aliases=["identity"], infer=INFER_SAME,
   example="""%out = mx.identity %x : (tensor<2x3xf32>) -> tensor<2x3xf32>""")

op(mxnet="_identity_with_attr_like_rhs", mnemonic="_identity_with_attr_like_rhs",
   cpp="IdentityWithAttrLikeRhs",
   source="src/operator/tensor/elemwise_unary_op_basic.cc _identity_with_attr_like_rhs",
   summary="The lhs, with the rhs's shape as a constraint",
   description="""
Returns `lhs`; `rhs` is not read, its only role is shape inference: both
have one shape, so a shape known for either (or for the result) is known for
all three (MXNet's backward shape inference relies on it). The gradient goes
to `lhs`, none to `rhs`.""",
   inputs=[Input("lhs"), Input("rhs")], outputs=[Output("output")],
   infer=INFER_ELEMWISE,
   example="""%out = mx._identity_with_attr_like_rhs %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>""")

op(mxnet="BlockGrad", mnemonic="BlockGrad", cpp="BlockGrad",
   source="src/operator/tensor/elemwise_unary_op_basic.cc BlockGrad",
   summary="Identity that stops gradient propagation",
   description="""
Forward is the identity; no gradient flows back through it.""",
   inputs=[Input("data")], outputs=[Output("output")],
   aliases=["_sparse_stop_gradient", "stop_gradient"], infer=INFER_SAME,
   example="""%out = mx.BlockGrad %x : (tensor<2x3xf32>) -> tensor<2x3xf32>""")

# ----------------------------------------------------------------------------
# Broadcasting binary ops
# ----------------------------------------------------------------------------

for name, what, aliases, tensor in [
        ("broadcast_add", "lhs + rhs", ["_sparse_broadcast_add", "_sparse_broadcast_plus", "broadcast_plus"], ANY),
        ("broadcast_sub", "lhs - rhs", ["_sparse_broadcast_minus", "_sparse_broadcast_sub", "broadcast_minus"], ANY),
        ("broadcast_mul", "lhs * rhs", ["_sparse_broadcast_mul"], ANY),
        ("broadcast_div", "lhs / rhs", ["_sparse_broadcast_div"], ANY),
        ("broadcast_maximum", "max(lhs, rhs)", ["_npi_maximum"], ANY),
        ("broadcast_minimum", "min(lhs, rhs)", ["_npi_minimum"], ANY),
        ("broadcast_power", "lhs ^ rhs", [], ANY),
        ("broadcast_equal", "lhs == rhs", [], ANY),
        ("broadcast_not_equal", "lhs != rhs", [], ANY),
        ("broadcast_greater", "lhs > rhs", [], ANY),
        ("broadcast_greater_equal", "lhs >= rhs", [], ANY),
        ("broadcast_lesser", "lhs < rhs", [], ANY),
        ("broadcast_lesser_equal", "lhs <= rhs", [], ANY),
        ("broadcast_hypot", "sqrt(lhs^2 + rhs^2)", [], FLOAT),
        ("broadcast_mod", "lhs % rhs", [], ANY),
        ("broadcast_logical_and", "lhs && rhs", [], ANY),
        ("broadcast_logical_or", "lhs || rhs", [], ANY),
        ("broadcast_logical_xor", "bool(lhs) != bool(rhs)", [], ANY)]:
    cmp = (any(c in what for c in "=<>") and "max" not in what) or "&&" in what or "||" in what
    note = (" Comparisons give 1 or 0 in the input's element type, as in "
            "MXNet 1.x.") if cmp else ""
    op(mxnet=name, mnemonic=name, cpp=camel(name),
       source="src/operator/tensor/elemwise_binary_broadcast_op_*.cc",
       summary=f"Broadcasting elementwise `{what}`",
       description=f"""
Computes `{what}` with NumPy broadcasting (MXNet's BinaryBroadcastShape):
shapes are right-aligned and each pair of extents must be equal or one of
them 1. Both inputs have the same element type.{note}""",
       inputs=[Input("lhs", tensor=tensor), Input("rhs", tensor=tensor)],
       outputs=[Output("output", tensor=tensor)],
       aliases=aliases, infer=INFER_BROADCAST,
       example=f"""%out = mx.{name} %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>""")

# ----------------------------------------------------------------------------
# Tensor-scalar ops
# ----------------------------------------------------------------------------

SCALAR_ATTRS = [
    Attr("scalar", "float", "1.0", doc="The scalar operand."),
    Attr("is_int", "bool", "True", doc="Whether the scalar is an integer."),
]
for name, what, alias in [
        ("_plus_scalar", "data + scalar", "_PlusScalar"),
        ("_minus_scalar", "data - scalar", "_MinusScalar"),
        ("_rminus_scalar", "scalar - data", "_RMinusScalar"),
        ("_mul_scalar", "data * scalar", "_MulScalar"),
        ("_div_scalar", "data / scalar", "_DivScalar"),
        ("_rdiv_scalar", "scalar / data", "_RDivScalar"),
        ("_power_scalar", "data ^ scalar", "_PowerScalar"),
        ("_rpower_scalar", "scalar ^ data", "_RPowerScalar"),
        ("_maximum_scalar", "max(data, scalar)", "_MaximumScalar"),
        ("_minimum_scalar", "min(data, scalar)", "_MinimumScalar"),
        ("_equal_scalar", "data == scalar", "_EqualScalar"),
        ("_not_equal_scalar", "data != scalar", "_NotEqualScalar"),
        ("_greater_scalar", "data > scalar", "_GreaterScalar"),
        ("_greater_equal_scalar", "data >= scalar", "_GreaterEqualScalar"),
        ("_lesser_scalar", "data < scalar", "_LesserScalar"),
        ("_lesser_equal_scalar", "data <= scalar", "_LesserEqualScalar"),
        ("_hypot_scalar", "sqrt(data^2 + scalar^2)", "_HypotScalar"),
        ("_mod_scalar", "data % scalar", "_ModScalar"),
        ("_rmod_scalar", "scalar % data", "_RModScalar"),
        ("_logical_and_scalar", "data && scalar (1 or 0)", "_LogicalAndScalar"),
        ("_logical_or_scalar", "data || scalar (1 or 0)", "_LogicalOrScalar"),
        ("_logical_xor_scalar", "bool(data) != bool(scalar) (1 or 0)", "_LogicalXorScalar")]:
    aliases = [alias]
    if name in ("_maximum_scalar", "_minimum_scalar", "_hypot_scalar"):
        aliases.append("_npi" + name)
    op(mxnet=name, mnemonic=name, cpp=camel(name),
       source="src/operator/tensor/elemwise_binary_scalar_op.h NumpyBinaryScalarParam",
       summary=f"Elementwise `{what}` with a scalar",
       description=f"""
Computes `{what}` elementwise. The result type follows MXNet's
NumpyBinaryScalarType: an integer tensor with a non-integer scalar
(`is_int = false`) gives f64, a bool (i1) tensor gives i64 or f64, anything
else keeps the input's type.""",
       inputs=[Input("data")], outputs=[Output("output")],
       attrs=SCALAR_ATTRS, aliases=aliases, infer=INFER_SCALAR,
       example=f"""%out = mx.{name} %x {{is_int = false, scalar = 2.500000e+00 : f64}} : (tensor<2x3xf32>) -> tensor<2x3xf32>""")

# Straight-through estimators (src/operator/contrib/stes_op.cc): the
# forward of round / sign, the head gradient passed through unchanged.
for name, what, fwd, tensor in [
        ("_contrib_round_ste", "round(x), half away from zero", "round", FLOAT),
        ("_contrib_sign_ste", "sign(x)", "sign", ANY)]:
    op(mxnet=name, mnemonic=name, cpp=camel(name),
       source="src/operator/contrib/stes_op.cc",
       summary=f"`{what}` with a straight-through gradient",
       description=f"""
Computes `{what}` for every element (MXNet's `{fwd}`); the gradient is the
head gradient itself (straight-through estimator, _backward_{fwd}_ste), not
{fwd}'s zero.""",
       inputs=[Input("data", tensor=tensor)], outputs=[Output("output", tensor=tensor)],
       infer=INFER_SAME,
       example=f"""%out = mx.{name} %x : (tensor<2x3xf32>) -> tensor<2x3xf32>""")

op(mxnet="khatri_rao", mnemonic="khatri_rao", cpp="KhatriRao",
   source="src/operator/contrib/krprod.cc KhatriRaoShape, krprod.h",
   summary="Column-wise Khatri-Rao product of matrices",
   description="""
`num_args` matrices (r_i, k) with one column count k -> (r_1 * ... * r_n,
k): column j is the Kronecker product of the inputs' columns j (the last
input's row index varies fastest). One input is returned as it is. A
composite (broadcast_mul of reshaped pairs); it has a gradient, where
MXNet registers none.""",
   inputs=[Input("args")], outputs=[Output("output")], variadic=True,
   attrs=[Attr("num_args", "int", doc="Number of input matrices (>= 1).")],
   example="""%out = mx.khatri_rao %a, %b {num_args = 2 : i64} : (tensor<3x2xf32>, tensor<4x2xf32>) -> tensor<12x2xf32>""")

# ----------------------------------------------------------------------------
# Unary math
# ----------------------------------------------------------------------------

for name, what, tensor, aliases in [
        ("negative", "-x", ANY, ["_sparse_negative"]),
        ("abs", "|x|", ANY, ["_sparse_abs"]),
        ("square", "x * x", ANY, ["_sparse_square"]),
        ("sqrt", "sqrt(x)", FLOAT, ["_sparse_sqrt"]),
        ("exp", "exp(x)", FLOAT, ["_sparse_exp"]),
        ("log", "log(x)", FLOAT, ["_sparse_log"]),
        ("relu", "max(x, 0)", ANY, ["_sparse_relu"]),
        ("sigmoid", "1 / (1 + exp(-x))", FLOAT, ["_sparse_sigmoid"]),
        ("tanh", "tanh(x)", FLOAT, ["_sparse_tanh"]),
        # Rounding (zero gradient) and the rest of MXNet's unary math
        # (src/operator/tensor/elemwise_unary_op_basic.cc, _logexp.cc, _trig.cc).
        ("sign", "sign(x): -1, 0 or 1", ANY, ["_sparse_sign"]),
        ("round", "x rounded half away from zero", FLOAT, ["_sparse_round"]),
        ("rint", "x rounded half to even", FLOAT, ["_sparse_rint"]),
        ("floor", "floor(x)", FLOAT, ["_sparse_floor"]),
        ("ceil", "ceil(x)", FLOAT, ["_sparse_ceil"]),
        ("trunc", "x rounded toward zero", FLOAT, ["_sparse_trunc"]),
        ("fix", "x rounded toward zero", FLOAT, ["_sparse_fix"]),
        ("reciprocal", "1 / x", FLOAT, []),
        ("rsqrt", "1 / sqrt(x)", FLOAT, ["_sparse_rsqrt"]),
        ("log1p", "log(1 + x)", FLOAT, ["_sparse_log1p"]),
        ("expm1", "exp(x) - 1", FLOAT, ["_sparse_expm1"]),
        ("log2", "log2(x)", FLOAT, ["_sparse_log2"]),
        ("log10", "log10(x)", FLOAT, ["_sparse_log10"]),
        ("sin", "sin(x)", FLOAT, ["_sparse_sin"]),
        ("cos", "cos(x)", FLOAT, ["_sparse_cos"]),
        # The rest of elemwise_unary_op_trig.cc and _pow.cc (`_sparse_`
        # aliases where MXNet registers the op WITH_RSP(_CSR), none for
        # WITH_SPARSE_DR or plain UNARY).
        ("tan", "tan(x)", FLOAT, ["_sparse_tan"]),
        ("arcsin", "arcsin(x)", FLOAT, ["_sparse_arcsin"]),
        ("arccos", "arccos(x)", FLOAT, []),
        ("arctan", "arctan(x)", FLOAT, ["_sparse_arctan"]),
        ("sinh", "sinh(x)", FLOAT, ["_sparse_sinh"]),
        ("cosh", "cosh(x)", FLOAT, []),
        ("arcsinh", "arcsinh(x)", FLOAT, ["_sparse_arcsinh"]),
        ("arccosh", "arccosh(x)", FLOAT, []),
        ("arctanh", "arctanh(x)", FLOAT, ["_sparse_arctanh"]),
        ("degrees", "x * 180 / pi", FLOAT, ["_sparse_degrees"]),
        ("radians", "x * pi / 180", FLOAT, ["_sparse_radians"]),
        ("cbrt", "cbrt(x)", FLOAT, ["_sparse_cbrt"]),
        ("rcbrt", "1 / cbrt(x)", FLOAT, []),
        ("softsign", "x / (1 + |x|)", FLOAT, []),
        # Special functions (mshadow_op gamma / gammaln / erf / erfinv):
        # gamma, gammaln and erfinv computed in f64 whatever the type
        # (Lanczos' series with the reflection formula; a polynomial erfinv
        # refined by Newton's method), erf in f32 or f64 (LeakyReLU's gelu
        # gradient uses it too).
        ("gamma", "Gamma(x)", FLOAT, []),
        ("gammaln", "log |Gamma(x)|", FLOAT, []),
        ("erf", "erf(x)", FLOAT, []),
        ("erfinv", "erf^-1(x)", FLOAT, [])]:
    op(mxnet=name, mnemonic=name, cpp=camel(name),
       source="src/operator/tensor/elemwise_unary_op_*.cc",
       summary=f"Elementwise `{what}`",
       description=f"""
Computes `{what}` for every element; the result has the input's type.""",
       inputs=[Input("data", tensor=tensor)], outputs=[Output("output", tensor=tensor)],
       aliases=aliases, infer=INFER_SAME,
       example=f"""%out = mx.{name} %x : (tensor<2x3xf32>) -> tensor<2x3xf32>""")

op(mxnet="hard_sigmoid", mnemonic="hard_sigmoid", cpp="HardSigmoid",
   source="src/operator/tensor/elemwise_unary_op.h HardSigmoidParam",
   summary="Elementwise `max(0, min(1, alpha * x + beta))`",
   description="""
MXNet's hard sigmoid; the gradient is `alpha` where `0 < alpha * x + beta < 1`
and 0 elsewhere (MXNet's `_backward_hard_sigmoid`).""",
   inputs=[Input("data", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("alpha", "float", "0.2", doc="Slope of hard sigmoid."),
          Attr("beta", "float", "0.5", doc="Bias of hard sigmoid.")],
   infer=INFER_SAME,
   example="""%out = mx.hard_sigmoid %x {alpha = 2.000000e-01 : f64, beta = 5.000000e-01 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>""")

op(mxnet="smooth_l1", mnemonic="smooth_l1", cpp="SmoothL1",
   source="src/operator/tensor/elemwise_binary_scalar_op_extended.cc smooth_l1",
   summary="Elementwise smooth L1 loss with sigma = `scalar`",
   description="""
`0.5 * (sigma * x)^2` where `|x| < 1 / sigma^2`, `|x| - 0.5 / sigma^2`
elsewhere (mshadow_op::smooth_l1_loss); the gradient is `sigma^2 * x` inside,
`sign(x)` outside. The result has the input's type.""",
   inputs=[Input("data", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=SCALAR_ATTRS, aliases=["_npx_smooth_l1"], infer=INFER_SAME,
   example="""%out = mx.smooth_l1 %x {is_int = false, scalar = 1.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>""")

# ----------------------------------------------------------------------------
# Reductions
# ----------------------------------------------------------------------------

REDUCE_ATTRS = [
    Attr("axis", "shape", "None",
         doc="Axes to reduce (negative counts from the end); absent or () reduces all."),
    Attr("keepdims", "bool", "False", doc="Keep reduced axes as extent 1."),
    Attr("exclude", "bool", "False", doc="Reduce the axes NOT in axis."),
]
for name, what, aliases, nonempty in [
        ("sum", "sum", ["_sparse_sum", "sum_axis"], False),
        ("mean", "mean", ["_sparse_mean"], False),
        ("max", "maximum", ["max_axis"], True),
        ("min", "minimum", ["min_axis"], True),
        ("prod", "product", [], False),
        ("nansum", "sum, NaN counted as 0,", [], False),
        ("nanprod", "product, NaN counted as 1,", [], False)]:
    op(mxnet=name, mnemonic=name, cpp=camel(name),
       source="src/operator/tensor/broadcast_reduce_op.h ReduceAxesParam",
       summary=f"Reduces by {what} over axes",
       description=f"""
Takes the {what} over `axis` (or every axis but `axis` with `exclude`).
Shapes follow MXNet's ReduceAxesShapeImpl: reducing every axis without
`keepdims` gives shape `(1,)`, and `axis = ()` reduces all axes even with
`exclude`.""" + (" The input must not be empty." if nonempty else ""),
       inputs=[Input("data")], outputs=[Output("output")],
       attrs=REDUCE_ATTRS, aliases=aliases,
       infer=INFER_REDUCE.format(nonempty="true" if nonempty else "false"),
       example=f"""%out = mx.{name} %x {{axis = array<i64: 1>, keepdims = true}} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>""")

op(mxnet="argmax", mnemonic="argmax", cpp="Argmax",
   source="src/operator/tensor/broadcast_reduce_op.h ReduceAxisParam",
   summary="Index of the maximum along an axis",
   description="""
Returns the index of the largest element along `axis` (over the flattened
input when `axis` is absent), as a value of the input's element type, as
MXNet does. A 1-D input, or an absent axis, gives shape `(1,)` (all ones
with `keepdims`).""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("axis", "int", "None", doc="Axis; absent means the flattened input."),
          Attr("keepdims", "bool", "False", doc="Keep the reduced axis as extent 1.")],
   example="""%out = mx.argmax %x {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>""")

ORDER_DTYPES = ["uint8", "int32", "int64", "float16", "float32", "float64"]
ORDER_AXIS = Attr("axis", "int", "-1", none_ok=True,
                  doc="Axis to order along; None orders the flattened input.")

op(mxnet="topk", mnemonic="topk", cpp="Topk",
   source="src/operator/tensor/ordering_op-inl.h TopKParam, TopKShapeImpl, TopKType",
   summary="The k largest (or smallest) elements along an axis",
   description="""
MXNet's topk: the first `k` positions of `data` ordered along `axis`
(descending, or ascending with `is_ascend`; equal values in index order;
`k` < 1 orders the whole axis). `ret_typ` chooses the result: `indices`
(positions along the axis, of type `dtype`; the default), `value` (the
elements, of the input's type), `both` (values, then indices) or `mask` (the
input's shape and type, 1 at the selected positions). With `value` the
second result is MXNet's hidden int32 indices. An absent `axis` (None)
orders the flattened input: `value` / `indices` are 1-D of extent k. NaN
comes after every number (MXNet's order with NaN depends on its sort).
Lowered to a library kernel (partial sort per row; integer data ordered as
f64, exact up to 2^53); the gradient of the
values scatters the head gradient back to the selected positions, indices
and masks have none (zeros).""",
   inputs=[Input("data")],
   # MXNet's names (no FListOutputNames): output0, output1 with two results
   outputs=[Output("output0"), Output("output1", optional=True, when="ret_typ=value|both",
                          visible="ret_typ=both")],
   attrs=[
       ORDER_AXIS,
       Attr("k", "int", "1", doc="How many; < 1 means the whole axis."),
       Attr("ret_typ", "enum", "indices", ["both", "indices", "mask", "value"],
            doc="What to return."),
       Attr("is_ascend", "bool", "False", doc="Smallest first instead of largest."),
       Attr("dtype", "dtype", "float32", ORDER_DTYPES, doc="Type of the indices."),
   ],
   aliases=["_npx_topk"],
   example="""%v, %i = mx.topk %x {axis = 1 : i64, k = 2 : i64, ret_typ = "value"} : (tensor<3x5xf32>) -> (tensor<3x2xf32>, tensor<3x2xi32>)""")

op(mxnet="sort", mnemonic="sort", cpp="Sort",
   source="src/operator/tensor/ordering_op-inl.h SortParam",
   summary="Sorts along an axis",
   description="""
The elements of `data` sorted along `axis` (ascending unless `is_ascend` is
false; None sorts the flattened input into a 1-D result), and MXNet's
hidden int32 positions. A composite (mx-decompose): `topk` with
`ret_typ = "value"` over the whole axis.""",
   inputs=[Input("data")], outputs=[Output("output0"), Output("output1")],
   attrs=[ORDER_AXIS,
          Attr("is_ascend", "bool", "True", doc="Ascending (else descending).")],
   visible_outputs=1,
   example="""%s, %i = mx.sort %x {axis = 1 : i64} : (tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xi32>)""")

op(mxnet="argsort", mnemonic="argsort", cpp="Argsort",
   source="src/operator/tensor/ordering_op-inl.h ArgSortParam",
   summary="The positions that sort an axis",
   description="""
The positions along `axis` that sort `data` (ascending unless `is_ascend` is
false; equal values in index order), of type `dtype`; None orders the
flattened input. A composite (mx-decompose): `topk` with
`ret_typ = "indices"` over the whole axis.""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[ORDER_AXIS,
          Attr("is_ascend", "bool", "True", doc="Ascending (else descending)."),
          Attr("dtype", "dtype", "float32", ORDER_DTYPES, doc="Type of the positions.")],
   aliases=["_npx_argsort"],
   example="""%i = mx.argsort %x {axis = 1 : i64} : (tensor<3x5xf32>) -> tensor<3x5xf32>""")

# Small composites of MXNet 1.9.1 (mx-decompose builds them of the ops above)

op(mxnet="_ravel_multi_index", mnemonic="_ravel_multi_index", cpp="RavelMultiIndex",
   source="src/operator/tensor/ravel.h RavelParam",
   summary="Flat indices of multi-indices (numpy's ravel_multi_index)",
   description="""
`data` (k, ...) holds k-dimensional indices into an array of `shape` (k
extents; the first may be -1, it is not read); the result (...) holds
`sum_i data[i] * prod(shape[i+1:])`. A composite (mx-decompose): one scalar
multiplication and addition per index dimension, in data's type (exact for
flat indices below 2^24 in float32).""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("shape", "shape", "()", doc="Shape of the array indexed into.")],
   aliases=["ravel_multi_index"],
   infer=("return ::mxc::mx::detail::inferRavel(getOperationName(), location, "
          "adaptor.getData(), adaptor.getShape(), /*unravel=*/false, inferredReturnTypes);"),
   example="""%y = mx._ravel_multi_index %x {shape = array<i64: 3, 4>} : (tensor<2x5xf32>) -> tensor<5xf32>""")

_GEMM_ATTRS = [
    Attr("transpose_a", "bool", "False", doc="Multiply by A's transpose."),
    Attr("transpose_b", "bool", "False", doc="Multiply by B's transpose."),
    Attr("alpha", "float", "1.0", doc="Scales op(A) op(B)."),
]
_GEMM_AXIS = Attr("axis", "int", "-2", doc="The axis of the matrix rows (columns: the last).")
op(mxnet="_linalg_gemm", mnemonic="_linalg_gemm", cpp="LinalgGemm",
   source="src/operator/tensor/la_op.h LaMatrixMacParam",
   summary="alpha * op(A) op(B) + beta * C on batches of matrices",
   description="""
MXNet's linalg.gemm: the matrices are the `axis` (rows) and last (columns)
axes, every other axis a batch axis in order; op(X) is X or its transpose.
A composite (mx-decompose): transposes moving the row axis next to the last,
one `batch_dot` and scalar multiplications; its gradients follow.""",
   inputs=[Input("A", tensor=FLOAT), Input("B", tensor=FLOAT), Input("C", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)],
   attrs=_GEMM_ATTRS + [Attr("beta", "float", "1.0", doc="Scales C."), _GEMM_AXIS],
   aliases=["linalg_gemm"],
   infer=("return ::mxc::mx::detail::inferLinalgGemm(getOperationName(), location, "
          "adaptor.getA(), adaptor.getB(), adaptor.getC(), adaptor.getTransposeA(), "
          "adaptor.getTransposeB(), adaptor.getAxis(), inferredReturnTypes);"),
   example="""%y = mx._linalg_gemm %a, %b, %c {alpha = 2.000000e+00 : f64} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>""")

op(mxnet="_linalg_gemm2", mnemonic="_linalg_gemm2", cpp="LinalgGemm2",
   source="src/operator/tensor/la_op.h LaMatrixMultParam",
   summary="alpha * op(A) op(B) on batches of matrices",
   description="""
MXNet's linalg.gemm2: linalg.gemm without C (see there).""",
   inputs=[Input("A", tensor=FLOAT), Input("B", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)],
   attrs=_GEMM_ATTRS + [_GEMM_AXIS],
   aliases=["linalg_gemm2"],
   infer=("return ::mxc::mx::detail::inferLinalgGemm(getOperationName(), location, "
          "adaptor.getA(), adaptor.getB(), ::mlir::Value(), adaptor.getTransposeA(), "
          "adaptor.getTransposeB(), adaptor.getAxis(), inferredReturnTypes);"),
   example="""%y = mx._linalg_gemm2 %a, %b {transpose_b = true} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>""")

_LA_OFFSET = Attr("offset", "int", "0", doc="The diagonal: 0 the main one, < 0 below, > 0 above.")
_LA_LOWER = Attr("lower", "bool", "True", doc="The lower triangle (with offset 0; else by "
                 "offset's sign).")

op(mxnet="_linalg_extractdiag", mnemonic="_linalg_extractdiag", cpp="LinalgExtractdiag",
   source="src/operator/tensor/la_op.h LaDiagParam, LaDiagTrianShape; la_op-inl.h CopyDiag",
   summary="The diagonal of each matrix of a batch",
   description="""
For A (..., n, n): the diagonal `offset` of each matrix, (..., n - |offset|).
A composite (mx-decompose): `take` of the flattened matrices at positions
from `_arange`; the gradient scatters back.""",
   inputs=[Input("A", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=[_LA_OFFSET], aliases=["linalg_extractdiag"],
   example="""%d = mx._linalg_extractdiag %a {offset = 1 : i64} : (tensor<2x3x3xf32>) -> tensor<2x2xf32>""")

op(mxnet="_linalg_makediag", mnemonic="_linalg_makediag", cpp="LinalgMakediag",
   source="src/operator/tensor/la_op.h LaDiagParam, LaDiagTrianShape; la_op-inl.h CopyDiag",
   summary="Square matrices with the given vectors on a diagonal",
   description="""
For A (..., k): matrices (..., k + |offset|, k + |offset|), zero but for A on
diagonal `offset`. A composite (mx-decompose): a `dot` with the `one_hot` of
the positions.""",
   inputs=[Input("A", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=[_LA_OFFSET], aliases=["linalg_makediag"],
   example="""%m = mx._linalg_makediag %a {offset = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x4x4xf32>""")

op(mxnet="_linalg_extracttrian", mnemonic="_linalg_extracttrian", cpp="LinalgExtracttrian",
   source="src/operator/tensor/la_op.h LaTrianParam, LaDiagTrianShape; la_op-inl.h CopyTrian",
   summary="A triangle of each matrix of a batch, as a vector",
   description="""
For A (..., n, n): with m = n - |offset|, the m (m + 1) / 2 entries of the
lower triangle below diagonal `offset` (offset < 0, or 0 with `lower`) or of
the upper one above it, row by row (the upper triangle column by column,
MXNet's transposed indexing), (..., m (m + 1) / 2). A composite
(mx-decompose): the source positions from `_arange` (the triangle row of
entry t is floor((sqrt(8 t + 1) - 1) / 2)) and one `take`.""",
   inputs=[Input("A", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=[_LA_OFFSET, _LA_LOWER], aliases=["linalg_extracttrian"],
   example="""%t = mx._linalg_extracttrian %a : (tensor<3x3xf32>) -> tensor<6xf32>""")

op(mxnet="_linalg_maketrian", mnemonic="_linalg_maketrian", cpp="LinalgMaketrian",
   source="src/operator/tensor/la_op.h LaTrianParam, LaDiagTrianShape; la_op-inl.h CopyTrian",
   summary="Triangular matrices from vectors (extracttrian's inverse)",
   description="""
For A (..., m (m + 1) / 2): matrices (..., n, n), n = m + |offset|, zero but
for A's entries in the triangle that linalg.extracttrian reads (same
ordering). A composite (mx-decompose): a `dot` with the `one_hot` of the
positions.""",
   inputs=[Input("A", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=[_LA_OFFSET, _LA_LOWER], aliases=["linalg_maketrian"],
   example="""%m = mx._linalg_maketrian %a {offset = 1 : i64} : (tensor<6xf32>) -> tensor<4x4xf32>""")

_LA_TRI_LOWER = Attr("lower", "bool", "True",
                     doc="A is lower triangular (else upper); the other triangle is not read.")
_LA_TRI_ATTRS = [
    Attr("transpose", "bool", "False", doc="Use A's transpose."),
    Attr("rightside", "bool", "False", doc="A multiplies from the right."),
    _LA_TRI_LOWER,
    Attr("alpha", "float", "1.0", doc="Scales the result."),
]
_LA_UNROLLED = """ Unrolled over the n rows
(or columns) of the matrices: meant for the small matrices these operators
are used with (the graph grows with n)."""

op(mxnet="_linalg_potrf", mnemonic="_linalg_potrf", cpp="LinalgPotrf",
   source="src/operator/tensor/la_op.h LaCholeskyParam; la_op-inl.h potrf",
   summary="Cholesky factor of each symmetric positive-definite matrix of a batch",
   description="""
For A (..., n, n): L lower triangular with A = L L^T (`lower`, reading A's
lower triangle) or U upper triangular with A = U^T U (reading the upper
one); the other triangle of the result is zero. A composite (mx-decompose):
the Cholesky-Crout recursion column by column (`batch_dot`, `sqrt`,
division). The gradient is MXNet's symmetric one, (G + G^T) / 2 of the
lower-triangle gradient G. A matrix that is not positive definite gives NaN
where MXNet's LAPACK call fails.""" + _LA_UNROLLED,
   inputs=[Input("A", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=[_LA_TRI_LOWER], aliases=["linalg_potrf"],
   infer=("return ::mxc::mx::detail::inferLinalgSquare(getOperationName(), location, "
          "adaptor.getA(), inferredReturnTypes);"),
   example="""%l = mx._linalg_potrf %a : (tensor<2x3x3xf64>) -> tensor<2x3x3xf64>""")

op(mxnet="_linalg_potri", mnemonic="_linalg_potri", cpp="LinalgPotri",
   source="src/operator/tensor/la_op.h LaCholeskyParam; la_op-inl.h potri",
   summary="Inverse of B = A A^T from its Cholesky factor A, for a batch",
   description="""
For a triangular A (..., n, n) (the `lower` triangle is read): A^-T A^-1
(`lower`) or A^-1 A^-T, the inverse of the matrix whose Cholesky factor A
is. A composite (mx-decompose): forward substitution of the identity
(A^-1) and one `batch_dot`.""" + _LA_UNROLLED,
   inputs=[Input("A", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=[_LA_TRI_LOWER], aliases=["linalg_potri"],
   infer=("return ::mxc::mx::detail::inferLinalgSquare(getOperationName(), location, "
          "adaptor.getA(), inferredReturnTypes);"),
   example="""%i = mx._linalg_potri %l : (tensor<3x3xf64>) -> tensor<3x3xf64>""")

op(mxnet="_linalg_trmm", mnemonic="_linalg_trmm", cpp="LinalgTrmm",
   source="src/operator/tensor/la_op.h LaTriangMatrixMultParam, LaTriangMatrixMultOpShape",
   summary="alpha * op(A) B or alpha * B op(A) with a triangular A, for a batch",
   description="""
BLAS trmm on the last two axes: A (..., n, n) is triangular (only the
`lower` or upper triangle is read), op(A) is A or its transpose; the
leading axes are batch axes and must agree. A composite (mx-decompose):
A masked to its triangle, one `batch_dot`, a scalar multiplication.""",
   inputs=[Input("A", tensor=FLOAT), Input("B", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)],
   attrs=_LA_TRI_ATTRS, aliases=["linalg_trmm"],
   infer=("return ::mxc::mx::detail::inferLinalgTriangular(getOperationName(), location, "
          "adaptor.getA(), adaptor.getB(), adaptor.getRightside(), inferredReturnTypes);"),
   example="""%y = mx._linalg_trmm %a, %b {alpha = 2.000000e+00 : f64} : (tensor<3x3xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>""")

op(mxnet="_linalg_trsm", mnemonic="_linalg_trsm", cpp="LinalgTrsm",
   source="src/operator/tensor/la_op.h LaTriangMatrixMultParam, LaTriangMatrixMultOpShape",
   summary="Solves op(A) X = alpha B or X op(A) = alpha B with a triangular A, for a batch",
   description="""
BLAS trsm on the last two axes: A (..., n, n) is triangular (only the
`lower` or upper triangle is read), op(A) is A or its transpose. A composite
(mx-decompose): forward or backward substitution row by row (`batch_dot`,
division by the diagonal); its gradient follows.""" + _LA_UNROLLED,
   inputs=[Input("A", tensor=FLOAT), Input("B", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)],
   attrs=_LA_TRI_ATTRS, aliases=["linalg_trsm"],
   infer=("return ::mxc::mx::detail::inferLinalgTriangular(getOperationName(), location, "
          "adaptor.getA(), adaptor.getB(), adaptor.getRightside(), inferredReturnTypes);"),
   example="""%x = mx._linalg_trsm %a, %b {alpha = 5.000000e-01 : f64} : (tensor<3x3xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>""")

op(mxnet="_linalg_sumlogdiag", mnemonic="_linalg_sumlogdiag", cpp="LinalgSumlogdiag",
   source="src/operator/tensor/la_op.h LaReduceShape<2>; la_op-inl.h sumlogdiag",
   summary="Sum of the logarithms of each square matrix's diagonal",
   description="""
For A (..., n, n): sum_i log(A[..., i, i]), shape (...) ((1,) for a single
matrix). A composite (mx-decompose): the diagonal by a product with the
identity and a sum, then `log` and `sum`.""",
   inputs=[Input("A", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   aliases=["linalg_sumlogdiag"],
   example="""%s = mx._linalg_sumlogdiag %a : (tensor<2x3x3xf32>) -> tensor<2xf32>""")

op(mxnet="_linalg_syrk", mnemonic="_linalg_syrk", cpp="LinalgSyrk",
   source="src/operator/tensor/la_op.h LaSyrkParam, LaSyrkShape",
   summary="alpha * A A^T or alpha * A^T A for a batch of matrices",
   description="""
For A (..., m, n): alpha A A^T (..., m, m), or with `transpose` alpha A^T A
(..., n, n). A composite (mx-decompose): one `batch_dot`.""",
   inputs=[Input("A", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("transpose", "bool", "False", doc="A^T A instead of A A^T."),
          Attr("alpha", "float", "1.0", doc="Scales the result.")],
   aliases=["linalg_syrk"],
   example="""%s = mx._linalg_syrk %a {transpose = true} : (tensor<3x4xf32>) -> tensor<4x4xf32>""")

op(mxnet="_linalg_gelqf", mnemonic="_linalg_gelqf", cpp="LinalgGelqf",
   source="src/operator/tensor/la_op.h LaLQFactShape; la_op-inl.h gelqf (LAPACK gelqf + orglq)",
   summary="LQ factorization A = L Q of each matrix of a batch",
   description="""
For A (..., m, n), m <= n and of full rank: Q (..., m, n) with orthonormal
rows and L (..., m, m) lower triangular, A = L Q, with LAPACK's signs
(gelqf's Householder reflectors: L[i, i] = -sign(a) * norm, where a is the
row's leading entry; no reflector for a row of length one). A composite
(mx-decompose): the Householder reflectors applied to A row by row, then to
[I 0] in reverse order for Q; its gradient follows.""" + _LA_UNROLLED,
   inputs=[Input("A", tensor=FLOAT)],
   outputs=[Output("output0", tensor=FLOAT), Output("output1", tensor=FLOAT)],
   aliases=["linalg_gelqf"],
   example="""%q, %l = mx._linalg_gelqf %a : (tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x2xf64>)""")

op(mxnet="_linalg_syevd", mnemonic="_linalg_syevd", cpp="LinalgSyevd",
   source="src/operator/tensor/la_op.h LaEigFactShape; la_op-inl.h syevd, syevd_backward, "
          "SyevdEigenVecSign",
   summary="Eigendecomposition A = U^T diag(L) U of each symmetric matrix of a batch",
   description="""
For symmetric A (..., n, n) (the lower triangle is read): U (..., n, n) with
the orthonormal eigenvectors as rows and L (..., n) the eigenvalues in
ascending order; each row of U has the sign that makes its first
largest-magnitude entry positive (MXNet's rule). The gradient is MXNet's
(syevd_backward): U^T (diag(dL) + the off-diagonal (dU U^T)_ij - (dU U^T)_ji
over 2 (L_i - L_j)) U. The runtime's kernel (mxc_kernel_syevd: cyclic Jacobi
rotations in double precision) where MXNet calls LAPACK's syevd: the results
agree to rounding, eigenvectors of repeated eigenvalues aside.""",
   inputs=[Input("A", tensor=FLOAT)],
   outputs=[Output("output0", tensor=FLOAT), Output("output1", tensor=FLOAT)],
   example="""%u, %l = mx._linalg_syevd %a : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>)""")

_LA_LU = """ The runtime's kernel (mxc_kernel_lu: LU with partial pivoting in
double precision) where MXNet calls LAPACK's getrf."""
op(mxnet="_linalg_inverse", mnemonic="_linalg_inverse", cpp="LinalgInverse",
   source="src/operator/tensor/la_op.h InverseShape; la_op-inl.h inverse, inverse_backward",
   summary="The inverse of each square matrix of a batch",
   description="""
For A (..., n, n): A^-1. The gradient is MXNet's, -Y^T dY Y^T with Y the
inverse.""" + _LA_LU,
   inputs=[Input("A", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   aliases=["linalg_inverse", "_npi_inv"],
   infer=("return ::mxc::mx::detail::inferLinalgSquare(getOperationName(), location, "
          "adaptor.getA(), inferredReturnTypes);"),
   example="""%i = mx._linalg_inverse %a : (tensor<2x3x3xf64>) -> tensor<2x3x3xf64>""")

op(mxnet="_linalg_det", mnemonic="_linalg_det", cpp="LinalgDet",
   source="src/operator/tensor/la_op.h DetShape; la_op-inl.h det, det_backward",
   summary="The determinant of each square matrix of a batch",
   description="""
For A (..., n, n): det(A), shape (...) ((1,) for a single matrix). The
hidden outputs are the packed LU factors and the 1-based pivots of mxc's
factorization (MXNet's hold LAPACK's, of its row-major call). The gradient
is MXNet's, dDet * det * A^-T.""" + _LA_LU,
   inputs=[Input("A", tensor=FLOAT)],
   outputs=[Output("output0", tensor=FLOAT), Output("output1", tensor=FLOAT),
            Output("output2", tensor=FLOAT)],
   aliases=["linalg_det", "_npi_det"], visible_outputs=1,
   example="""%d, %lu, %piv = mx._linalg_det %a : (tensor<2x3x3xf64>) -> (tensor<2xf64>, tensor<2x3x3xf64>, tensor<2x3xf64>)""")

op(mxnet="_linalg_slogdet", mnemonic="_linalg_slogdet", cpp="LinalgSlogdet",
   source="src/operator/tensor/la_op.h DetShape; la_op-inl.h slogdet, slogdet_backward",
   summary="Sign and log absolute value of each square matrix's determinant",
   description="""
For A (..., n, n): sign(det A) and log|det A|, each of shape (...) ((1,)
for a single matrix); a singular matrix gives 0 and -inf. Hidden outputs as
_linalg_det's. The gradient is MXNet's, dLogabsdet * A^-T (none through
the sign).""" + _LA_LU,
   inputs=[Input("A", tensor=FLOAT)],
   outputs=[Output("output0", tensor=FLOAT), Output("output1", tensor=FLOAT),
            Output("output2", tensor=FLOAT), Output("output3", tensor=FLOAT)],
   aliases=["linalg_slogdet", "_npi_slogdet"], visible_outputs=2,
   example="""%s, %l, %lu, %piv = mx._linalg_slogdet %a : (tensor<3x3xf64>) -> (tensor<1xf64>, tensor<1xf64>, tensor<3x3xf64>, tensor<3xf64>)""")

op(mxnet="gather_nd", mnemonic="gather_nd", cpp="GatherNd",
   source="src/operator/tensor/indexing_op.h GatherNDShape",
   summary="Elements or slices of data at multi-indices",
   description="""
`indices` (M, Y...) holds M-dimensional indices into the first M axes of
`data` (X0, ..., X{N-1}); the result (Y..., XM, ..., X{N-1}) holds
`data[indices[0, y], ..., indices[M-1, y], ...]`. A negative index counts
from the end (MXNet 1.9.1). A composite (mx-decompose): the flat row
`sum_i wrap(indices[i]) * prod(X{i+1}..X{M-1})` and one `take` of data
viewed as (X0 * ... * X{M-1}, rest), in clip mode: an index out of range is
clipped in a graph; `mx.nd.gather_nd` checks the indices first and raises
IndexError, as MXNet's kernel. The gradient scatters (adds) back.""",
   inputs=[Input("data"), Input("indices")], outputs=[Output("output")],
   infer=("return ::mxc::mx::detail::inferGatherNd(getOperationName(), location, "
          "adaptor.getData(), adaptor.getIndices(), inferredReturnTypes);"),
   aliases=["_npx_gather_nd"],
   example="""%y = mx.gather_nd %x, %i : (tensor<3x4x5xf32>, tensor<2x6xf32>) -> tensor<6x5xf32>""")

op(mxnet="scatter_nd", mnemonic="scatter_nd", cpp="ScatterNd",
   source="src/operator/tensor/indexing_op.h ScatterNDParam, ScatterNDShape",
   summary="A zero array of `shape` with data's slices placed at multi-indices",
   description="""
gather_nd's inverse: `indices` (M, Y...) holds M-dimensional indices into
the first M axes of the result (of `shape`); `data` (Y..., shape[M:]) holds
the slices to place there; everything else is zero. As in MXNet, repeated
indices leave the result unspecified (here their slices add up) and an
index out of range writes nothing (no wrapping of negative ones). A
composite (mx-decompose): the flat row of each multi-index and a `dot` of
their `one_hot` with data seen as (rows, rest) (memory Y * prod(shape[:M]));
the gradient is gather_nd of the head gradient.""",
   inputs=[Input("data"), Input("indices")], outputs=[Output("output")],
   attrs=[Attr("shape", "shape", doc="The result's shape.")],
   aliases=["_npx_scatter_nd"],
   example="""%y = mx.scatter_nd %d, %i {shape = array<i64: 2, 2>} : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>""")

op(mxnet="_contrib_index_copy", mnemonic="_contrib_index_copy", cpp="ContribIndexCopy",
   source="src/operator/contrib/index_copy-inl.h IndexCopyShape",
   summary="A copy of old_tensor with rows replaced by new_tensor's",
   description="""
Row `index_vector[k]` of the result is row k of `new_tensor` (K, ...), the
other rows are `old_tensor`'s (N, ...). The indices are expected to be
distinct and in [0, N) (as MXNet's; a repeated index here sums its rows). A
composite (mx-decompose): one_hot of the indices, a `dot` scattering
new_tensor's rows and `where`; gradients: old_tensor's rows not replaced,
new_tensor's rows read at the indices.""",
   inputs=[Input("old_tensor", tensor=FLOAT), Input("index_vector"),
           Input("new_tensor", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)],
   infer=("return ::mxc::mx::detail::inferIndexCopy(getOperationName(), location, "
          "adaptor.getOldTensor(), adaptor.getIndexVector(), adaptor.getNewTensor(), "
          "inferredReturnTypes);"),
   example="""%y = mx._contrib_index_copy %x, %i, %t : (tensor<5x3xf32>, tensor<2xi64>, tensor<2x3xf32>) -> tensor<5x3xf32>""")

op(mxnet="_contrib_index_array", mnemonic="_contrib_index_array", cpp="ContribIndexArray",
   source="src/operator/contrib/index_array-inl.h IndexArrayParam",
   summary="The index of every element along the chosen axes",
   description="""
For data of shape (d0, ..., d{n-1}) an int64 result (d0, ..., d{n-1}, k)
whose last axis holds the element's position along each of `axes` (all
axes, in order, when absent). A composite (mx-decompose): arange_like per
axis, broadcast and Concat; no gradient to data.""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("axes", "shape", "None", doc="The axes whose positions are given.")],
   infer=("return ::mxc::mx::detail::inferIndexArray(context, getOperationName(), location, "
          "adaptor.getData(), adaptor.getAxes(), inferredReturnTypes);"),
   example="""%y = mx._contrib_index_array %x : (tensor<2x3xf32>) -> tensor<2x3x2xi64>""")

op(mxnet="_unravel_index", mnemonic="_unravel_index", cpp="UnravelIndex",
   source="src/operator/tensor/ravel.h RavelParam",
   summary="Multi-indices of flat indices (numpy's unravel_index)",
   description="""
`data` (...) holds flat indices into an array of `shape` (k extents; the
first may be -1: unbounded); the result (k, ...) holds index i =
`floor(data / prod(shape[i+1:])) mod shape[i]` (no modulo for a first extent
of -1). A composite (mx-decompose) of floor, scalar division and
multiplication, and Concat, in data's type.""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("shape", "shape", "()", doc="Shape of the array indexed into.")],
   aliases=["unravel_index"],
   infer=("return ::mxc::mx::detail::inferRavel(getOperationName(), location, "
          "adaptor.getData(), adaptor.getShape(), /*unravel=*/true, inferredReturnTypes);"),
   example="""%y = mx._unravel_index %x {shape = array<i64: 3, 4>} : (tensor<5xf32>) -> tensor<2x5xf32>""")

op(mxnet="_contrib_fft", mnemonic="_contrib_fft", cpp="ContribFft",
   source="src/operator/contrib/fft-inl.h FFTParam, FFTProp::InferShape",
   summary="Discrete Fourier transform of real data along the last axis",
   description="""
MXNet's contrib.fft (a GPU-only cuFFT operator in MXNet): 2-D (N, d) or 4-D
(N, C, H, d) real data -> (..., 2 d), the complex X_k = sum_n x_n
exp(-2 pi i k n / d) stored as interleaved (real, imaginary) pairs;
`compute_size` (MXNet's batching of cuFFT plans) does not change the
result. A composite (mx-decompose): `dot`s with the cos / sin matrices of
the angles 2 pi (k n mod d) / d (computed in float64), so its gradient is
the transform's adjoint, which is MXNet's backward (d times ifft's real
part).""",
   inputs=[Input("data", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("compute_size", "int", "128", doc="Rows per cuFFT plan in MXNet (no effect).")],
   example="""%y = mx._contrib_fft %x : (tensor<3x4xf32>) -> tensor<3x8xf32>""")

op(mxnet="_contrib_ifft", mnemonic="_contrib_ifft", cpp="ContribIfft",
   source="src/operator/contrib/ifft-inl.h IFFTParam, IFFTProp::InferShape",
   summary="Unnormalised inverse Fourier transform, real part, along the last axis",
   description="""
MXNet's contrib.ifft (a GPU-only cuFFT operator in MXNet): 2-D (N, 2 d) or
4-D (N, C, H, 2 d) data of interleaved (real, imaginary) pairs z_k -> the
real part of sum_k z_k exp(2 pi i k n / d), (..., d) (not divided by d, as
MXNet's). An odd last extent is an error (MXNet drops the last value). A
composite (mx-decompose), as `_contrib_fft`.""",
   inputs=[Input("data", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("compute_size", "int", "128", doc="Rows per cuFFT plan in MXNet (no effect).")],
   example="""%y = mx._contrib_ifft %x : (tensor<3x8xf32>) -> tensor<3x4xf32>""")

op(mxnet="_contrib_count_sketch", mnemonic="_contrib_count_sketch", cpp="ContribCountSketch",
   source="src/operator/contrib/count_sketch-inl.h CountSketchParam, CountSketchProp::InferShape",
   summary="Count sketch of the last axis: out[..., h[i]] += s[i] * data[..., i]",
   description="""
MXNet's contrib.count_sketch (GPU-only in MXNet): 2-D (N, d) or 4-D
(N, C, H, d) data, hash indices `h` and signs `s` of shape (1, d) ->
(..., out_dim). `processing_batch_size` (MXNet's batching) does not change
the result. A composite (mx-decompose): a `dot` with the (d, out_dim) matrix
one_hot(h) * s; the data's gradient is MXNet's (out_grad[..., h[i]] * s[i]),
h gets none (an index) and s the dot's.""",
   inputs=[Input("data", tensor=FLOAT), Input("h", tensor=FLOAT), Input("s", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("out_dim", "int", doc="The sketch's length."),
          Attr("processing_batch_size", "int", "32", doc="Rows at a time in MXNet (no effect).")],
   example="""%y = mx._contrib_count_sketch %x, %h, %s {out_dim = 3 : i64} : (tensor<2x5xf32>, tensor<1x5xf32>, tensor<1x5xf32>) -> tensor<2x3xf32>""")

op(mxnet="_contrib_quadratic", mnemonic="_contrib_quadratic", cpp="ContribQuadratic",
   source="src/operator/contrib/quadratic_op-inl.h QuadraticParam",
   summary="a * x^2 + b * x + c elementwise",
   description="""
MXNet's contrib.quadratic. A composite (mx-decompose): square, scalar
multiplications and additions, so its gradient is 2 * a * x + b.""",
   inputs=[Input("data", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("a", "float", "0.0", doc="Coefficient of x^2."),
          Attr("b", "float", "0.0", doc="Coefficient of x."),
          Attr("c", "float", "0.0", doc="Constant term.")],
   infer=INFER_SAME,
   example="""%y = mx._contrib_quadratic %x {a = 2.000000e+00 : f64, c = 1.000000e+00 : f64} : (tensor<4x5xf32>) -> tensor<4x5xf32>""")

op(mxnet="_contrib_div_sqrt_dim", mnemonic="_contrib_div_sqrt_dim", cpp="ContribDivSqrtDim",
   source="src/operator/contrib/transformer.cc (_contrib_div_sqrt_dim)",
   summary="Divides by the square root of the last axis's extent",
   description="""
`data / sqrt(data.shape[-1])` (attention's scaling). A composite
(mx-decompose): one scalar multiplication.""",
   inputs=[Input("data", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   infer=INFER_SAME,
   example="""%y = mx._contrib_div_sqrt_dim %x : (tensor<2x3x16xf32>) -> tensor<2x3x16xf32>""")

op(mxnet="softmax_cross_entropy", mnemonic="softmax_cross_entropy", cpp="SoftmaxCrossEntropy",
   source="src/operator/loss_binary_op-inl.h SoftmaxCrossEntropyShape",
   summary="Summed cross entropy of a softmax and class labels",
   description="""
MXNet's softmax_cross_entropy: `data` (N, C) scores, `label` (N,) class
indices; the result (1,) is `-sum_i log(softmax(data_i))[label_i]`. A
composite (mx-decompose): log_softmax, pick, sum, negative; the data
gradient is softmax - one_hot(label), the label gets none.""",
   inputs=[Input("data", tensor=FLOAT), Input("label")], outputs=[Output("output", tensor=FLOAT)],
   example="""%l = mx.softmax_cross_entropy %x, %y : (tensor<4x10xf32>, tensor<4xf32>) -> tensor<1xf32>""")

op(mxnet="diag", mnemonic="diag", cpp="Diag",
   source="src/operator/tensor/diag_op-inl.h DiagParam, DiagonalShape",
   summary="Extracts a diagonal, or builds a diagonal matrix",
   description="""
MXNet's diag: for a 1-D input of n elements, the (n + |k|) square matrix
with the input on diagonal k; otherwise the diagonal k of the planes of
axes (axis1, axis2), appended as the last axis of the remaining ones
(numpy.diagonal). A composite (mx-decompose): the extraction is `take` of
the flattened planes at positions from `_arange`, the construction a `dot`
with a `one_hot` of them, so the gradient follows.""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("k", "int", "0", doc="Diagonal offset (> 0 above the main one)."),
          Attr("axis1", "int", "0", doc="First axis of the planes (N-D input)."),
          Attr("axis2", "int", "1", doc="Second axis of the planes (N-D input).")],
   aliases=["_np_diag"],
   example="""%d = mx.diag %x {k = 1 : i64} : (tensor<3x4xf32>) -> tensor<3xf32>""")

op(mxnet="all_finite", mnemonic="all_finite", cpp="AllFinite",
   source="src/operator/contrib/all_finite-inl.h AllFiniteParam, AllFiniteShape",
   summary="1 when every element is finite, else 0",
   description="""
A float32 array of shape (1,): 1 when no element of `data` is NaN or
infinite (mixed-precision training's overflow check). A composite
(mx-decompose): `abs(x) < inf` (false for NaN), min, Cast.
`init_output` (MXNet: whether the output starts at 1) has no effect here:
the output is always written.""",
   inputs=[Input("data", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("init_output", "bool", "True", doc="Start the output at 1 (always, in mxc).")],
   example="""%ok = mx.all_finite %x : (tensor<4x10xf16>) -> tensor<1xf32>""")

op(mxnet="multi_all_finite", mnemonic="multi_all_finite", cpp="MultiAllFinite",
   source="src/operator/contrib/all_finite-inl.h MultiAllFiniteParam",
   summary="1 when every element of every input is finite, else 0",
   description="""
all_finite over `num_arrays` inputs: a float32 (1,) array. A composite
(mx-decompose): all_finite of each input, combined by broadcast_minimum.""",
   inputs=[Input("data", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)], variadic=True,
   attrs=[Attr("num_arrays", "int", "1", doc="Number of inputs."),
          Attr("init_output", "bool", "True", doc="Start the output at 1 (always, in mxc).")],
   example="""%ok = mx.multi_all_finite %a, %b {num_arrays = 2 : i64} : (tensor<3xf32>, tensor<2x2xf32>) -> tensor<1xf32>""")

# ----------------------------------------------------------------------------
# Linear algebra
# ----------------------------------------------------------------------------

DOT_ATTRS = [
    Attr("transpose_a", "bool", "False", doc="Transpose lhs first."),
    Attr("transpose_b", "bool", "False", doc="Transpose rhs first."),
    Attr("forward_stype", "enum", "None", ["default", "row_sparse", "csr"],
         doc="Output storage type hint (dense only here)."),
]
op(mxnet="dot", mnemonic="dot", cpp="Dot",
   source="src/operator/tensor/dot-inl.h DotParam",
   summary="Tensor dot product",
   description="""
Contracts the last axis of `lhs` (the first with `transpose_a`) with the first
axis of `rhs` (the last with `transpose_b`); the result shape is the
remaining `lhs` axes followed by the remaining `rhs` axes. Two vectors give
shape `(1,)`.""",
   inputs=[Input("lhs", tensor=FLOAT), Input("rhs", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)], attrs=DOT_ATTRS,
   aliases=["_sparse_dot"],
   example="""%out = mx.dot %a, %b {transpose_b = true} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>""")

op(mxnet="batch_dot", mnemonic="batch_dot", cpp="BatchDot",
   source="src/operator/tensor/dot-inl.h DotParam",
   summary="Batched matrix product",
   description="""
For N-D inputs (N >= 3) with equal leading batch extents, multiplies the
trailing matrices: `(B..., M, K) x (B..., K, N) -> (B..., M, N)`, each side
optionally transposed.""",
   inputs=[Input("lhs", tensor=FLOAT), Input("rhs", tensor=FLOAT)],
   outputs=[Output("output", tensor=FLOAT)], attrs=DOT_ATTRS,
   aliases=["_npx_batch_dot"],
   example="""%out = mx.batch_dot %a, %b : (tensor<8x2x3xf32>, tensor<8x3x5xf32>) -> tensor<8x2x5xf32>""")

# ----------------------------------------------------------------------------
# Data movement
# ----------------------------------------------------------------------------

op(mxnet="Reshape", mnemonic="Reshape", cpp="Reshape",
   source="src/operator/tensor/matrix_op-inl.h ReshapeParam",
   summary="Reshapes with MXNet's special codes",
   description="""
`shape` may use MXNet's codes: `0` copies the input extent, `-1` infers one
extent from the element count, `-2` copies all remaining extents, `-3` merges
two consecutive input extents, `-4` splits one extent into the next two
values (one may be -1). With `reverse` the codes are matched from the right.
The deprecated `target_shape` (0 = infer) and `keep_highest` are honoured when
`shape` is empty.""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[
       Attr("shape", "shape", "()", doc="Target shape with special codes."),
       Attr("reverse", "bool", "False", doc="Match special codes from the right."),
       Attr("target_shape", "shape", "()", doc="Deprecated target shape."),
       Attr("keep_highest", "bool", "False", doc="Deprecated: keep the first extent."),
   ],
   aliases=["reshape"],
   example="""%out = mx.Reshape %x {shape = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>""")

op(mxnet="transpose", mnemonic="transpose", cpp="Transpose",
   source="src/operator/tensor/matrix_op-inl.h TransposeParam",
   summary="Permutes axes",
   description="""
Output axis `i` is input axis `axes[i]`; empty `axes` reverses the axes.
At most 6 axes, as in MXNet.""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("axes", "shape", "()", doc="Permutation; empty reverses.")],
   example="""%out = mx.transpose %x {axes = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>""")

op(mxnet="SwapAxis", mnemonic="SwapAxis", cpp="SwapAxis",
   source="src/operator/swapaxis-inl.h SwapAxisParam",
   summary="Swaps two axes",
   description="""
The data with axes `dim1` and `dim2` exchanged (negative values count from
the end); the gradient swaps them back.""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("dim1", "int", "0", doc="The first axis."),
          Attr("dim2", "int", "0", doc="The second axis.")],
   aliases=["swapaxes", "_npi_swapaxes"],
   example="""%out = mx.SwapAxis %x {dim1 = 0 : i64, dim2 = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>""")

op(mxnet="expand_dims", mnemonic="expand_dims", cpp="ExpandDims",
   source="src/operator/tensor/matrix_op-inl.h ExpandDimParam",
   summary="Inserts an axis of extent 1",
   description="""
Inserts a new axis at `axis`, in `[-ndim - 1, ndim]`.""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("axis", "int", doc="Position of the new axis.")],
   aliases=["_npi_expand_dims"],
   example="""%out = mx.expand_dims %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x1x3xf32>""")

op(mxnet="squeeze", mnemonic="squeeze", cpp="Squeeze",
   source="src/operator/tensor/matrix_op-inl.h SqueezeParam",
   summary="Removes axes of extent 1",
   description="""
Removes the axes listed in `axis` (each must have extent 1; negative values
count from the end), or every axis of extent 1 when `axis` is absent.
Squeezing every axis away gives shape `(1,)`, as MXNet's SqueezeShape.""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("axis", "shape", "None", doc="Axes to remove; absent removes every axis of extent 1.")],
   example="""%out = mx.squeeze %x {axis = array<i64: 1>} : (tensor<2x1x3xf32>) -> tensor<2x3xf32>""")

op(mxnet="broadcast_to", mnemonic="broadcast_to", cpp="BroadcastTo",
   source="src/operator/tensor/broadcast_reduce_op.h BroadcastToParam",
   summary="Broadcasts to a shape",
   description="""
Repeats axes of extent 1 to the extents of `shape`, which has the input's
rank; a 0 in `shape` keeps the input's extent (MXNet's BroadcastToShape).""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("shape", "shape", "()", doc="Target shape; 0 keeps an axis.")],
   example="""%out = mx.broadcast_to %x {shape = array<i64: 2, 0>} : (tensor<1x3xf32>) -> tensor<2x3xf32>""")

op(mxnet="broadcast_like", mnemonic="broadcast_like", cpp="BroadcastLike",
   source="src/operator/tensor/broadcast_reduce_op.h BroadcastLikeParam, BroadcastLikeShape",
   summary="Broadcasts lhs to the shape of rhs",
   description="""
Without axes, lhs (of rhs's rank, each extent equal to rhs's or 1) becomes
rhs's shape; with `lhs_axes` / `rhs_axes` (negative counts from the end),
each lhs axis of extent 1 takes the extent of the matching rhs axis. Only
rhs's shape is read; its gradient is zero; lhs's is summed over the
broadcast axes.""",
   inputs=[Input("lhs"), Input("rhs")], outputs=[Output("output")],
   attrs=[Attr("lhs_axes", "shape", "None", doc="Axes of lhs to broadcast."),
          Attr("rhs_axes", "shape", "None", doc="Axes of rhs giving the extents.")],
   example="""%out = mx.broadcast_like %a, %b : (tensor<1x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>""")

op(mxnet="broadcast_axis", mnemonic="broadcast_axis", cpp="BroadcastAxis",
   source="src/operator/tensor/broadcast_reduce_op.h BroadcastAxesParam, BroadcastAxesShape",
   summary="Broadcasts axes of extent 1 to given sizes",
   description="""
Each axis in `axis` (negative counts from the end) must have extent 1 and
becomes `size[i]` (MXNet's BroadcastAxesShape); the gradient is summed over
the broadcast axes.""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("axis", "shape", "()", doc="The axes to broadcast."),
          Attr("size", "shape", "()", doc="Target sizes of the broadcast axes.")],
   aliases=["broadcast_axes"],
   example="""%out = mx.broadcast_axis %x {axis = array<i64: 0>, size = array<i64: 4>} : (tensor<1x3xf32>) -> tensor<4x3xf32>""")

op(mxnet="reverse", mnemonic="reverse", cpp="Reverse",
   source="src/operator/tensor/matrix_op-inl.h ReverseParam",
   summary="Reverses the order of elements along axes",
   description="""
The result has the input's shape and type, with the elements along each axis
of `axis` (negative counts from the end) in reverse order. The gradient is
the head gradient reversed the same way.""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("axis", "shape", doc="The axes to reverse.")],
   aliases=["flip"],
   example="""%out = mx.reverse %x {axis = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>""")

op(mxnet="shape_array", mnemonic="shape_array", cpp="ShapeArray",
   source="src/operator/tensor/elemwise_unary_op_basic.cc shape_array",
   summary="The input's shape as a 1-D int64 array",
   description="""
A constant of the input's static shape (shape `(ndim,)`, int64); no gradient
flows back (MXNet's MakeZeroGradNodes).""",
   inputs=[Input("data")], outputs=[Output("output")],
   aliases=["_npx_shape_array"],
   example="""%out = mx.shape_array %x : (tensor<2x3xf32>) -> tensor<2xi64>""")

op(mxnet="size_array", mnemonic="size_array", cpp="SizeArray",
   source="src/operator/tensor/elemwise_unary_op_basic.cc size_array",
   summary="The input's element count as a (1,) int64 array",
   description="""
A constant of the input's static element count (shape `(1,)`, int64); no
gradient flows back.""",
   inputs=[Input("data")], outputs=[Output("output")],
   example="""%out = mx.size_array %x : (tensor<2x3xf32>) -> tensor<1xi64>""")

op(mxnet="slice_like", mnemonic="slice_like", cpp="SliceLike",
   source="src/operator/tensor/matrix_op-inl.h SliceLikeParam, SliceLikeShape",
   summary="Slices data to the shape of a second input",
   description="""
The leading part `[0, shape_like.shape[a])` of each axis `a` in `axes`
(negative counts from the end; empty: every axis, and both inputs must have
the same rank). Only `shape_like`'s shape is read; its gradient is zero. The
gradient of `data` is the head gradient padded with zeros.""",
   inputs=[Input("data"), Input("shape_like")], outputs=[Output("output")],
   attrs=[Attr("axes", "shape", "()", doc="Axes to slice; empty: all.")],
   example="""%out = mx.slice_like %x, %y {axes = array<i64: 1>} : (tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>""")

for name, cpp, what in [
        ("depth_to_space", "DepthToSpace",
         "Moves depth blocks into spatial blocks: (N, C, H, W) becomes "
         "(N, C / b^2, H b, W b); `output[n, c, h b + i, w b + j] = "
         "data[n, (i b + j) C / b^2 + c, h, w]`"),
        ("space_to_depth", "SpaceToDepth",
         "Moves spatial blocks into depth, the inverse of depth_to_space: "
         "(N, C, H, W) becomes (N, C b^2, H / b, W / b)")]:
    op(mxnet=name, mnemonic=name, cpp=cpp,
       source="src/operator/tensor/matrix_op-inl.h DepthToSpaceParam",
       summary=what.split(":")[0],
       description=f"""
{what} (b = `block_size`), as MXNet's (ONNX's DCR order). Only 4-D data; the
extents must divide as MXNet's shape rule checks. The gradient is the inverse
operator applied to the head gradient.""",
       inputs=[Input("data")], outputs=[Output("output")],
       attrs=[Attr("block_size", "int", doc="Blocks of [block_size, block_size] are moved.")],
       example=(f"""%out = mx.{name} %x {{block_size = 2 : i64}} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>"""
                if name == "depth_to_space" else
                f"""%out = mx.{name} %x {{block_size = 2 : i64}} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>"""))

op(mxnet="Pad", mnemonic="Pad", cpp="Pad",
   source="src/operator/pad-inl.h PadParam, PadProp::InferShape",
   summary="Pads the spatial axes of a 4-D or 5-D array",
   description="""
`pad_width` has two entries (before, after) per axis; the first four (batch
and channel axes) must be 0, as MXNet's implementation requires. `constant`
fills with `constant_value`, `edge` repeats the border element, `reflect`
mirrors without repeating it (each pad must be smaller than the axis). The
gradient sums the head gradient of every output element into the input
element it was read from.""",
   inputs=[Input("data", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("mode", "enum", values=["constant", "edge", "reflect"],
               doc="Padding type."),
          Attr("pad_width", "shape", doc="(before, after) for every axis."),
          Attr("constant_value", "float", "0.0", doc="The value of constant padding.")],
   aliases=["pad"],
   example="""%out = mx.Pad %x {mode = "constant", pad_width = array<i64: 0, 0, 0, 0, 1, 1, 2, 2>} : (tensor<1x2x3x3xf32>) -> tensor<1x2x5x7xf32>""")

op(mxnet="repeat", mnemonic="repeat", cpp="Repeat",
   source="src/operator/tensor/matrix_op-inl.h RepeatParam",
   summary="Repeats each element along an axis",
   description="""
Each element `repeats` times in a row along `axis` (absent: of the
flattened data, giving a 1-D result). A composite (mx-decompose):
expand_dims + broadcast_to + Reshape.""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("repeats", "int", doc="How many times (>= 1)."),
          Attr("axis", "int", "None", doc="The axis; absent means the flattened data.")],
   example="""%out = mx.repeat %x {repeats = 2 : i64, axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x6xf32>""")

op(mxnet="tile", mnemonic="tile", cpp="Tile",
   source="src/operator/tensor/matrix_op-inl.h TileParam",
   summary="Repeats the whole array along each axis",
   description="""
The data repeated `reps[i]` times along axis `i`; the shorter of `reps` and
the shape is padded with leading 1s; empty `reps` gives the data. A
composite (mx-decompose): Reshape to `(1, d0, 1, d1, ...)`, broadcast_to
`(r0, d0, r1, d1, ...)`, Reshape.""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("reps", "shape", doc="Repetitions per axis (>= 1).")],
   example="""%out = mx.tile %x {reps = array<i64: 2, 1>} : (tensor<2x3xf32>) -> tensor<4x3xf32>""")

op(mxnet="batch_take", mnemonic="batch_take", cpp="BatchTake",
   source="src/operator/tensor/indexing_op.h batch_take",
   summary="One element per row: `a[i, indices[i]]`",
   description="""
For `a` of shape `(N, M)` and `indices` of shape `(N,)`, element `i` is
`a[i, indices[i]]` with the index clipped to `[0, M - 1]` (MXNet's kernel).
A composite (mx-decompose): `pick(a, indices, axis=1, mode='clip')`.""",
   inputs=[Input("a"), Input("indices")], outputs=[Output("output")],
   example="""%out = mx.batch_take %a, %i : (tensor<3x4xf32>, tensor<3xi32>) -> tensor<3xf32>""")

op(mxnet="argmax_channel", mnemonic="argmax_channel", cpp="ArgmaxChannel",
   source="src/operator/tensor/broadcast_reduce_op_index.cc argmax_channel",
   summary="argmax along axis 1",
   description="""
MXNet's `argmax` with `axis = 1` and `keepdims = false` (the index of the
first maximum, as a float array). A composite (mx-decompose).""",
   inputs=[Input("data")], outputs=[Output("output")],
   example="""%out = mx.argmax_channel %x : (tensor<2x3xf32>) -> tensor<2xf32>""")

op(mxnet="pick", mnemonic="pick", cpp="Pick",
   source="src/operator/tensor/broadcast_reduce_op.h PickParam, PickOpShape",
   summary="Picks one element per position along an axis",
   description="""
`output[..., ...] = data[..., index[...], ...]` along `axis`: the result has
data's shape less the axis (extent 1 with `keepdims`; a 1-D input gives
`(1,)`), and `index` has that shape, or data's with the axis as extent 1.
Index values (any element type, truncated) out of range are clipped
(`clip`) or wrapped (`wrap`). The gradient goes to the picked elements; the
index gets none.""",
   inputs=[Input("data"), Input("index")], outputs=[Output("output")],
   attrs=[
       Attr("axis", "int", "-1", doc="The axis to pick along."),
       Attr("keepdims", "bool", "False", doc="Keep the axis as extent 1."),
       Attr("mode", "enum", "clip", ["wrap", "clip"], doc="Out-of-range indices."),
   ],
   aliases=["choose_element_0index", "_npx_pick"],
   example="""%out = mx.pick %x, %i {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2xf32>""")

op(mxnet="take", mnemonic="take", cpp="Take",
   source="src/operator/tensor/indexing_op.h TakeParam, TakeOpShape",
   summary="Takes slices of `a` along an axis at the given indices",
   description="""
`output = a[:axis] x indices x a[axis+1:]`: the axis of `a` is replaced by
the shape of `indices` (TakeOpShape). Index values (any element type,
truncated) out of range are clipped (`clip`, the default) or wrapped
(`wrap`); `raise` is accepted by the shape rule but not compiled (mxc cannot
raise for an out-of-range index at run time). The result has `a`'s element
type. The gradient goes to `a` (summed over repeated indices); `indices` gets
none.""",
   inputs=[Input("a"), Input("indices")], outputs=[Output("output")],
   attrs=[
       Attr("axis", "int", "0", doc="The axis of `a` to take along."),
       Attr("mode", "enum", "clip", ["raise", "wrap", "clip"], doc="Out-of-range indices."),
   ],
   aliases=["_npi_take"],
   example="""%out = mx.take %a, %i {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2x4xf32>) -> tensor<2x4x3xf32>""")

op(mxnet="Embedding", mnemonic="Embedding", cpp="Embedding",
   source="src/operator/tensor/indexing_op.h EmbeddingParam, EmbeddingOpShape",
   summary="Maps integer indices to rows of a weight matrix",
   description="""
`output[i..., :] = weight[data[i...], :]`: data of shape `(d1, ..., dK)` gives
`(d1, ..., dK, output_dim)`; weight has shape `(input_dim, output_dim)`.
Index values (any element type, truncated) out of range are clipped to
`[0, input_dim - 1]`, as MXNet's dense Embedding. The result has the weight's
element type. The gradient goes to the weight (rows summed over repeated
indices); data gets none. With `sparse_grad = True` the gradient is the
same values, dense (mxc has no row_sparse storage).""",
   inputs=[Input("data"), Input("weight", tensor=FLOAT, param_shape="embedding_weight")], outputs=[Output("output", tensor=FLOAT)],
   attrs=[
       Attr("input_dim", "int", doc="Vocabulary size: rows of the weight."),
       Attr("output_dim", "int", doc="Dimension of each embedding vector."),
       Attr("dtype", "dtype", "float32", ["float32", "float64", "float16", "bfloat16"],
            doc="Type of the weight and the result."),
       Attr("sparse_grad", "bool", "False", doc="row_sparse weight gradient in MXNet; dense in mxc."),
   ],
   aliases=["_npx_embedding", "_sparse_Embedding"],
   example="""%out = mx.Embedding %x, %w {input_dim = 5 : i64, output_dim = 3 : i64} : (tensor<2x4xf32>, tensor<5x3xf32>) -> tensor<2x4x3xf32>""")

op(mxnet="reshape_like", mnemonic="reshape_like", cpp="ReshapeLike",
   source="src/operator/tensor/elemwise_unary_op_basic.cc ReshapeLikeShapeCompute",
   summary="Reshapes lhs to (part of) rhs's shape",
   description="""
The axes `[lhs_begin, lhs_end)` of `lhs` are replaced by the axes
`[rhs_begin, rhs_end)` of `rhs` (absent: the whole shape; negative values
count from the end); the element count must stay the same. Only `rhs`'s
shape is read; its gradient is zero.""",
   inputs=[Input("lhs"), Input("rhs")], outputs=[Output("output")],
   attrs=[
       Attr("lhs_begin", "int", "None", doc="First lhs axis replaced; absent = 0."),
       Attr("lhs_end", "int", "None", doc="One past the last lhs axis replaced; absent = the rank."),
       Attr("rhs_begin", "int", "None", doc="First rhs axis used; absent = 0."),
       Attr("rhs_end", "int", "None", doc="One past the last rhs axis used; absent = the rank."),
   ],
   aliases=["_npx_reshape_like"],
   example="""%out = mx.reshape_like %x, %y : (tensor<6xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>""")

op(mxnet="slice_axis", mnemonic="slice_axis", cpp="SliceAxis",
   source="src/operator/tensor/matrix_op-inl.h SliceAxisParam",
   summary="Slices along one axis",
   description="""
Keeps indices `[begin, end)` along `axis`; negative values count from the
end and an absent `end` (MXNet's None) means the end of the axis.""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[
       Attr("axis", "int", doc="Axis to slice."),
       Attr("begin", "int", doc="First index."),
       Attr("end", "int", "None", doc="One past the last index; absent = the end.",
            export_always=True),
   ],
   example="""%out = mx.slice_axis %x {axis = 1 : i64, begin = 1 : i64, end = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x3xf32>""")

SLICE_DESC = """`begin`, `end` and `step` are MXNet tuples of optional integers,
kept as MXNet writes them (`(0, None)`, `(None, 2, -1)`): entry `i` slices
axis `i`, later axes are whole. A missing (None) `begin` is 0 (the last index
for a negative step), a missing `end` the end of the axis (before the first
index for a negative step); negative values count from the end and are
clipped to the axis as MXNet's `GetIndexRange` does; an empty `step` is 1
per axis and a zero step is an error."""
SLICE_ATTRS = [
    Attr("begin", "string", doc="Start of each sliced axis, e.g. `(0, None)`."),
    Attr("end", "string", doc="End (exclusive) of each sliced axis, e.g. `(2, -1)`."),
    Attr("step", "string", "()", doc="Step of each sliced axis; empty means 1."),
]

op(mxnet="slice", mnemonic="slice", cpp="Slice",
   source="src/operator/tensor/matrix_op-inl.h SliceParam",
   summary="Slices an array with begin / end / step per axis",
   description="""
Keeps the elements `begin[i], begin[i] + step[i], ...` (up to `end[i]`) of
each leading axis `i`, like Python's `data[b0:e0:s0, b1:e1:s1, ...]`.
""" + SLICE_DESC,
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=SLICE_ATTRS, aliases=["crop"],
   example="""%out = mx.slice %x {begin = "(0, 1)", end = "(None, None)", step = "(1, 2)"} : (tensor<2x5xf32>) -> tensor<2x2xf32>""")

op(mxnet="_slice_assign", mnemonic="_slice_assign", cpp="SliceAssign",
   source="src/operator/tensor/matrix_op-inl.h SliceParam (SliceAssignOpForward)",
   summary="Copies `lhs` with the region `slice(begin, end, step)` replaced by `rhs`",
   description="""
The result is `lhs` except on the elements that `slice` with the same
attributes selects, which are `rhs` (of the slice's shape): NDArray
assignment `x[b:e:s] = y`, and the gradient of `slice`.
""" + SLICE_DESC,
   inputs=[Input("lhs"), Input("rhs")], outputs=[Output("output")],
   attrs=SLICE_ATTRS, aliases=["_crop_assign"],
   example="""%out = mx._slice_assign %x, %y {begin = "(1,)", end = "(2,)"} : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>""")

op(mxnet="_slice_assign_scalar", mnemonic="_slice_assign_scalar", cpp="SliceAssignScalar",
   source="src/operator/tensor/matrix_op-inl.h SliceAssignScalarParam",
   summary="Copies `data` with the region `slice(begin, end, step)` set to `scalar`",
   description="""
The result is `data` except on the elements that `slice` with the same
attributes selects, which are `scalar` (cast to the element type).
""" + SLICE_DESC,
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("scalar", "float", "0", doc="The value assigned.")] + SLICE_ATTRS,
   aliases=["_crop_assign_scalar"],
   example="""%out = mx._slice_assign_scalar %x {begin = "(0, 1)", end = "(None, 3)", scalar = 2.0 : f64} : (tensor<3x4xf32>) -> tensor<3x4xf32>""")

# ----------------------------------------------------------------------------
# Softmax family and activations with parameters
# ----------------------------------------------------------------------------

SOFTMAX_ATTRS = [
    Attr("axis", "int", "-1", doc="Axis of the softmax."),
    Attr("temperature", "float", "None", doc="Divide the input by this first."),
    Attr("dtype", "dtype", "None", ["float16", "float32", "float64"],
         doc="Output type; absent keeps the input's."),
    Attr("use_length", "bool", "False", doc="Mask with the `length` input."),
]
op(mxnet="softmax", mnemonic="softmax", cpp="Softmax",
   source="src/operator/nn/softmax-inl.h SoftmaxParam",
   summary="Softmax along an axis",
   description="""
`exp(x / t) / sum(exp(x / t))` along `axis`. With `use_length` the `length`
input (shape of `data` without `axis`) gives how many leading elements of
each row take part.""",
   inputs=[Input("data", tensor=FLOAT), Input("length", optional=True, when="use_length")],
   outputs=[Output("output", tensor=FLOAT)], attrs=SOFTMAX_ATTRS,
   aliases=["_npx_softmax"],
   infer=INFER_SOFTMAX.format(length="adaptor.getLength()", has="true"),
   example="""%out = mx.softmax %x {axis = 1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>""")

op(mxnet="SoftmaxActivation", mnemonic="SoftmaxActivation", cpp="SoftmaxActivation",
   source="src/operator/nn/softmax_activation-inl.h SoftmaxActivationParam",
   summary="Softmax per instance or per channel (MXNet's older softmax layer)",
   description="""
`instance`: the softmax over all but the first axis (each sample's elements
together); `channel`: the softmax along axis 1 at every other position
(data of rank >= 3). A composite (mx-decompose): `softmax` along the last
axis of data reshaped to (N, -1), or along axis 1.""",
   inputs=[Input("data", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("mode", "enum", "instance", ["instance", "channel"],
               doc="Softmax over each instance or along the channel axis.")],
   infer=INFER_SAME,
   example="""%out = mx.SoftmaxActivation %x {mode = "channel"} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>""")

op(mxnet="log_softmax", mnemonic="log_softmax", cpp="LogSoftmax",
   source="src/operator/nn/softmax-inl.h SoftmaxParam",
   summary="Log of the softmax along an axis",
   description="""
`log(softmax(x / t))` along `axis`. `use_length` is not supported by MXNet's
log_softmax (it takes one input).""",
   inputs=[Input("data", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
   attrs=SOFTMAX_ATTRS, aliases=["_npx_log_softmax"],
   infer=INFER_SOFTMAX.format(length="::mlir::Value()", has="false"),
   example="""%out = mx.log_softmax %x {dtype = "float64"} : (tensor<2x5xf32>) -> tensor<2x5xf64>""")

op(mxnet="LeakyReLU", mnemonic="LeakyReLU", cpp="LeakyReLU",
   source="src/operator/leaky_relu-inl.h LeakyReLUParam",
   summary="Leaky / parametric / exponential / randomized ReLU and GELU",
   description="""
`leaky` x > 0 ? x : slope * x; `prelu` the same with the learned `gamma`
input (per channel, broadcast like MXNet); `elu` slope * (exp(x) - 1) for
x < 0; `selu`; `gelu`; `rrelu` a random slope in [lower_bound, upper_bound]
during training (mean slope otherwise) with a second result `mask`. `gamma`
is present exactly for `prelu`, `mask` exactly for `rrelu`. `rrelu` reads the
random generator state, so the op declares that effect then.""",
   inputs=[Input("data", tensor=FLOAT), Input("gamma", optional=True, tensor=FLOAT, when="act_type=prelu",
                 param_shape="channel")],
   outputs=[Output("output", tensor=FLOAT), Output("mask", optional=True, tensor=FLOAT, when="act_type=rrelu")],
   attrs=[
       Attr("act_type", "enum", "leaky", ["rrelu", "leaky", "prelu", "elu", "selu", "gelu"],
            doc="Activation function."),
       Attr("slope", "float", "0.25", doc="Slope for leaky and elu."),
       Attr("lower_bound", "float", "0.125", doc="rrelu: lower bound of the slope."),
       Attr("upper_bound", "float", "0.334", doc="rrelu: upper bound of the slope."),
   ],
   aliases=["_npx_leaky_relu"], pure=False, effects=True,
   example="""%out = mx.LeakyReLU %x, %gamma {act_type = "prelu"} : (tensor<2x4x3x3xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>""")

op(mxnet="clip", mnemonic="clip", cpp="Clip",
   source="src/operator/tensor/matrix_op-inl.h ClipParam",
   summary="Clamps elements to [a_min, a_max]",
   description="""
`min(max(x, a_min), a_max)` elementwise.""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("a_min", "float", doc="Lower bound."),
          Attr("a_max", "float", doc="Upper bound.")],
   aliases=["_npi_clip", "_sparse_clip"], infer=INFER_SAME,
   example="""%out = mx.clip %x {a_max = 6.000000e+00 : f64, a_min = 0.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>""")

op(mxnet="where", mnemonic="where", cpp="Where",
   source="src/operator/tensor/control_flow_op.h WhereOpShape",
   summary="Selects from x or y by a condition",
   description="""
`condition ? x : y` elementwise. `x` and `y` have one shape and type;
`condition` (any element type, non-zero is true) has their shape, or is 1-D
with one entry per row (extent of axis 0).""",
   inputs=[Input("condition"), Input("x"), Input("y")], outputs=[Output("output")],
   aliases=["_sparse_where"],
   example="""%out = mx.where %c, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>""")

for name, val, aliases in [("zeros_like", "0", ["_sparse_zeros_like"]),
                           ("ones_like", "1", [])]:
    op(mxnet=name, mnemonic=name, cpp=camel(name),
       source="src/operator/tensor/init_op.cc",
       summary=f"A tensor of {val}s shaped like the input",
       description=f"""
Returns a tensor of the input's shape and type filled with {val}.""",
       inputs=[Input("data")], outputs=[Output("output")],
       aliases=aliases, infer=INFER_SAME,
       example=f"""%out = mx.{name} %x : (tensor<2x3xf32>) -> tensor<2x3xf32>""")

op(mxnet="one_hot", mnemonic="one_hot", cpp="OneHot",
   source="src/operator/tensor/indexing_op.h OneHotParam",
   summary="One-hot encoding of indices",
   description="""
Appends an axis of extent `depth`: `out[..., j] = j == indices[...] ?
on_value : off_value`. Indices may have any numeric type (they are
truncated); the result type is `dtype`.""",
   inputs=[Input("indices")], outputs=[Output("output")],
   attrs=[
       Attr("depth", "int", doc="Extent of the one-hot axis (>= 0)."),
       Attr("on_value", "float", "1.0", doc="Value at the index."),
       Attr("off_value", "float", "0.0", doc="Value elsewhere."),
       Attr("dtype", "dtype", "float32", ALL_DTYPES[:-1], doc="Result type."),
   ],
   aliases=["_npx_one_hot"],
   example="""%out = mx.one_hot %i {depth = 10 : i64} : (tensor<4xi32>) -> tensor<4x10xf32>""")

op(mxnet="SliceChannel", mnemonic="SliceChannel", cpp="SliceChannel",
   source="src/operator/slice_channel-inl.h SliceChannelParam, SliceChannelProp::InferShape",
   summary="Splits an axis into equal parts",
   description="""
`num_outputs` results, part `i` being `[i * n, (i + 1) * n)` of `axis`
(`n = data.shape[axis] / num_outputs`, which must divide evenly; a negative
axis counts from the end); with `squeeze_axis` the axis (then of extent
`num_outputs`) is dropped from each part. MXNet names the results `output0`,
`output1`, ... A composite (mx-decompose): slice_axis (+ Reshape).""",
   inputs=[Input("data")], outputs=[Output("output", variadic=True)],
   attrs=[Attr("num_outputs", "int", doc="Number of parts (>= 1)."),
          Attr("axis", "int", "1", doc="The axis to split."),
          Attr("squeeze_axis", "bool", "False", doc="Drop the split axis from the parts.")],
   aliases=["split"],
   example="""%a, %b = mx.SliceChannel %x {num_outputs = 2 : i64} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)""")

# Creation operators (src/operator/tensor/init_op.h): no inputs; `ctx` is
# MXNet's device string, accepted and ignored (the graph's device decides).
_INIT_ATTRS = [
    Attr("shape", "shape", "()", doc="The result's shape (every extent positive)."),
    Attr("ctx", "string", "None", doc="MXNet's context string; ignored."),
    Attr("dtype", "dtype", "float32", ALL_DTYPES, doc="Result type."),
]
for _name, _cpp, _what in (("_zeros", "Zeros", "zeros"), ("_ones", "Ones", "ones")):
    op(mxnet=_name, mnemonic=_name, cpp=_cpp,
       source="src/operator/tensor/init_op.h InitOpParam",
       summary="An array of %s" % _what,
       description="""
An array of `shape` and `dtype` filled with %s (mx.sym.%s). A shape with
a zero extent, or the empty shape, is an error (MXNet's legacy shape
semantics: 0 means unknown).""" % (_what, _what),
       inputs=[], outputs=[Output("output")], attrs=list(_INIT_ATTRS), infer=INFER_INIT,
       example="""%%out = mx.%s {shape = array<i64: 2, 3>} : () -> tensor<2x3xf32>""" % _name)

# Samplers in graphs (src/operator/random/sample_op.h): no inputs; mx-decompose
# draws them from the graph's rng_seed argument (mx.random_uniform's
# counter-based generator), which an executor sets from mx.random's state.
_RANDOM_ATTRS = [
    Attr("shape", "shape", "()", doc="The result's shape (every extent positive)."),
    Attr("ctx", "string", "None", doc="MXNet's context string; ignored."),
    Attr("dtype", "dtype", "float32", ["float16", "float32", "float64"],
         doc="Result type (MXNet's None is float32)."),
]
op(mxnet="_random_uniform", mnemonic="_random_uniform", cpp="RandomUniformSampler",
   source="src/operator/random/sample_op.h SampleUniformParam, UniformSampler",
   summary="Uniform random numbers in [low, high)",
   description="""
mx.sym.random.uniform: `shape` numbers uniform in [low, high). Drawn by
mx-decompose as `mx.random_uniform` of the graph's rng_seed argument (one
stream per sampler, from its position among the graph's samplers), so the
same seed gives the same numbers in inference and training compilations
and in a graph built again. low > high is an error (MXNet's
check).""",
   inputs=[], outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("low", "float", "0.0", doc="Lower bound."),
          Attr("high", "float", "1.0", doc="Upper bound (exclusive).")] + list(_RANDOM_ATTRS),
   example="""%u = mx._random_uniform {low = -1.0 : f64, shape = array<i64: 2, 3>} : () -> tensor<2x3xf32>""")

op(mxnet="_random_normal", mnemonic="_random_normal", cpp="RandomNormalSampler",
   source="src/operator/random/sample_op.h SampleNormalParam, NormalSampler",
   summary="Normal random numbers",
   description="""
mx.sym.random.normal: `shape` numbers from N(loc, scale^2), by Box-Muller
from two of mx-decompose's uniform streams (see _random_uniform). scale <= 0
is an error (MXNet's check).""",
   inputs=[], outputs=[Output("output", tensor=FLOAT)],
   attrs=[Attr("loc", "float", "0.0", doc="Mean."),
          Attr("scale", "float", "1.0", doc="Standard deviation (> 0).")] + list(_RANDOM_ATTRS),
   example="""%n = mx._random_normal {scale = 2.0 : f64, shape = array<i64: 4>} : () -> tensor<4xf32>""")

# The other distributions of sample_op.h / multisample_op.h, drawn by
# mx-decompose from the same uniform streams: exponential by inversion;
# gamma by Marsaglia-Tsang as MXNet's SampleGamma (shape < 1 boosted by
# u^(1/alpha)) and Poisson by inversion of its CDF (rate < 10) or Hormann's
# PTRS (rate >= 10), each rejection loop as a fixed number of candidates of
# which the first accepted is taken (16 for gamma, each accepted with
# probability about 0.95 or more; 32 for PTRS, 0.75 or more: all rejected
# has a probability below 1e-17 per element, and then the first candidate
# is taken); the negative binomials as MXNet draws them, a
# Poisson whose rate is a gamma draw. (distribution, MXNet's scalar
# parameters, _sample_*'s input names, the sampler's checks)
_DISTRIBUTIONS = [
    ("uniform", [("low", "float", "0.0", "Lower bound."),
                 ("high", "float", "1.0", "Upper bound (exclusive).")], ["low", "high"],
     "uniform in [low, high)"),
    ("normal", [("loc", "float", "0.0", "Mean."),
                ("scale", "float", "1.0", "Standard deviation (> 0).")], ["mu", "sigma"],
     "normal N(loc, scale^2), by Box-Muller"),
    ("gamma", [("alpha", "float", "1.0", "Shape (> 0)."),
               ("beta", "float", "1.0", "Scale (> 0).")], ["alpha", "beta"],
     "gamma with shape alpha and scale beta"),
    ("exponential", [("lam", "float", "1.0", "Rate (> 0): the mean is 1 / lam.")], ["lam"],
     "exponential with rate lam"),
    ("poisson", [("lam", "float", "1.0", "Rate (>= 0).")], ["lam"],
     "Poisson with rate lam (integers in the float dtype)"),
    ("negative_binomial", [("k", "int", "1", "Successes to wait for (>= 0)."),
                           ("p", "float", "1.0", "Success probability in [0, 1].")], ["k", "p"],
     "negative binomial: failures before k successes of probability p"),
    ("generalized_negative_binomial",
     [("mu", "float", "1.0", "Mean (>= 0)."),
      ("alpha", "float", "1.0", "Dispersion (>= 0); 0 is Poisson(mu).")], ["mu", "alpha"],
     "generalized negative binomial with mean mu and dispersion alpha"),
]
_DIST_CPP = {"uniform": "Uniform", "normal": "Normal", "gamma": "Gamma",
             "exponential": "Exponential", "poisson": "Poisson",
             "negative_binomial": "NegativeBinomial",
             "generalized_negative_binomial": "GeneralizedNegativeBinomial"}
for _d, _ps, _ins, _what in _DISTRIBUTIONS:
    _cpp = _DIST_CPP[_d]
    _attrs = [Attr(n, t, dflt, doc=doc) for n, t, dflt, doc in _ps]
    if _d not in ("uniform", "normal"):
        op(mxnet="_random_" + _d, mnemonic="_random_" + _d, cpp="Random%sSampler" % _cpp,
           source="src/operator/random/sample_op.h Sample%sParam, sampler.h" % _cpp,
           summary="Random numbers: %s" % _what,
           description="""
mx.sym.random.%s: `shape` numbers, %s. Drawn by mx-decompose from the
graph's rng_seed streams (see _random_uniform); the parameters are checked
as MXNet's sampler checks them.""" % (_d, _what),
           inputs=[], outputs=[Output("output", tensor=FLOAT)],
           attrs=_attrs + list(_RANDOM_ATTRS), aliases=["random_" + _d],
           example="""%%s = mx._random_%s {shape = array<i64: 4>} : () -> tensor<4xf32>""" % _d)
    op(mxnet="_random_%s_like" % _d, mnemonic="_random_%s_like" % _d,
       cpp="Random%sLikeSampler" % _cpp,
       source="src/operator/random/sample_op.h Sample%sLikeParam" % (
           {"negative_binomial": "NegBinomial",
            "generalized_negative_binomial": "GenNegBinomial"}.get(_d, _cpp)),
       summary="Random numbers shaped like data: %s" % _what,
       description="""
mx.sym.random.%s_like: numbers of data's shape and type, %s (data's
values are not read; no gradient reaches it).""" % (_d, _what),
       inputs=[Input("data", tensor=FLOAT)], outputs=[Output("output", tensor=FLOAT)],
       attrs=list(_attrs),
       example="""%%s = mx._random_%s_like %%x : (tensor<2x3xf32>) -> tensor<2x3xf32>""" % _d)
    op(mxnet="_sample_" + _d, mnemonic="_sample_" + _d, cpp="Sample%s" % _cpp,
       source="src/operator/random/multisample_op.h MultiSampleOpShape, MultiSampleOpType",
       summary="Random numbers, one distribution per parameter element: %s" % _what,
       description="""
mx.sym.random.%s with Symbol parameters: for each element of the parameter
arrays (all of one shape and type), `shape` numbers, %s, appended to the
parameters' shape, in `dtype` (float32 when not given). No gradient reaches
the parameters (MXNet's zero gradient).""" % (_d, _what),
       inputs=[Input(n, tensor=FLOAT) for n in _ins], outputs=[Output("output", tensor=FLOAT)],
       attrs=[Attr("shape", "shape", "()", doc="Samples per parameter element."),
              Attr("dtype", "dtype", "float32", ["float16", "float32", "float64"],
                   doc="Result type (MXNet's None is float32).")],
       aliases=["sample_" + _d],
       example="""%%s = mx._sample_%s %s {shape = array<i64: 3>} : (%s) -> tensor<2x3xf32>""" % (
           _d, ", ".join("%" + n for n in _ins), ", ".join("tensor<2xf32>" for _ in _ins)))

# The densities of src/operator/random/pdf_op.h: the parameters have the
# shape of the samples' leading dimensions (Dirichlet's alpha with the
# samples' last axis after them); every sample is evaluated with the
# parameters of its position.
INFER_PDF = ("return ::mxc::mx::detail::inferPdf(getOperationName(), location, "
             "adaptor.getOperands(), /*vectorSamples=*/{vector}, inferredReturnTypes);")
_PDF_IS_LOG = Attr("is_log", "bool", "False",
                   doc="The log-density (log-probability) instead of the density.")
for _distr, _params, _formula, _discrete in [
        ("uniform", [("low", "Lower bound."), ("high", "Upper bound.")],
         "1 / (high - low) (the sample is not checked against the support)", False),
        ("normal", [("mu", "Means."), ("sigma", "Standard deviations.")],
         "exp(-(x - mu)^2 / (2 sigma^2)) / (sqrt(2 pi) sigma)", False),
        ("gamma", [("alpha", "Shapes."), ("beta", "Rates (inverse scales).")],
         "exp(alpha log(beta) + (alpha - 1) log(x) - beta x - lgamma(alpha))", False),
        ("exponential", [("lam", "Rates.")], "lam exp(-lam x)", False),
        ("poisson", [("lam", "Rates.")], "exp(x log(lam) - lgamma(x + 1) - lam)", True),
        ("negative_binomial", [("k", "Numbers of failures."),
                               ("p", "Failure probabilities.")],
         "exp(lgamma(x + k) - lgamma(x + 1) - lgamma(k) + k log(p) + x log(1 - p))", True),
        ("generalized_negative_binomial", [("mu", "Means."), ("alpha", "Dispersions.")],
         "the negative binomial's with k = 1 / alpha, p = 1 / (mu alpha + 1)", True),
        ("dirichlet", [("alpha", "Concentrations (..., k).")],
         "exp(sum((alpha - 1) log(x)) + lgamma(sum(alpha)) - sum(lgamma(alpha))) over the "
         "last axis", False)]:
    _vector = _distr == "dirichlet"
    op(mxnet="_random_pdf_" + _distr, mnemonic="_random_pdf_" + _distr,
       cpp="RandomPdf" + camel(_distr),
       source="src/operator/random/pdf_op.h PDF_%s, PdfOpShape" % camel(_distr),
       summary="Density of the %s distribution at given samples" % _distr.replace("_", " "),
       description="""
`sample` %s; the parameters have the shape of its leading dimensions%s. The
result (the sample's shape%s) is %s at each sample x, or its logarithm with
`is_log`. A composite (mx-decompose) of elementwise operators (gammaln,
log, exp); its gradient follows, with %s.""" % (
           "(..., k) holds vectors" if _vector else "holds any number of samples per parameter",
           " followed by the samples' last axis" if _vector else "",
           " without the last axis; (1,) for a single vector" if _vector else "",
           _formula,
           "no gradient for the samples (MXNet's, for a discrete distribution)" if _discrete
           else "the samples' gradient as MXNet's kernel computes it"),
       inputs=[Input("sample", tensor=FLOAT)] + [Input(n, tensor=FLOAT) for n, _ in _params],
       outputs=[Output("output", tensor=FLOAT)],
       attrs=[_PDF_IS_LOG],
       aliases=["random_pdf_" + _distr],
       infer=INFER_PDF.format(vector="true" if _vector else "false"),
       example=("""%p = mx._random_pdf_dirichlet %x, %a : (tensor<2x5x3xf32>, tensor<2x3xf32>) -> tensor<2x5xf32>"""
                if _vector else
                """%%pdf = mx._random_pdf_%s %%x, %s : (tensor<2x5xf32>, %s) -> tensor<2x5xf32>""" % (
                    _distr, ", ".join("%" + n for n, _ in _params),
                    ", ".join("tensor<2xf32>" for _ in _params))))

op(mxnet="_sample_multinomial", mnemonic="_sample_multinomial", cpp="SampleMultinomial",
   source="src/operator/random/sample_multinomial_op.h SampleMultinomialParam, "
          "SampleMultinomialOpShape, SampleMultinomialKernel",
   summary="Indices drawn from the categorical distributions in data's last axis",
   description="""
mx.sym.random.multinomial: for each distribution (the last axis of `data`,
probabilities summing to 1), `shape` draws (one without a shape), appended to
data's leading axes; with `get_prob` also log(data[index]) of each draw,
whose gradient reaches `data` (MXNet's REINFORCE-style backward). Drawn by
mx-decompose as MXNet's kernel draws: the first index whose cumulative
probability exceeds a uniform number of the graph's rng_seed stream (see
_random_uniform).""",
   inputs=[Input("data", tensor=FLOAT)],
   outputs=[Output("output0"), Output("output1", optional=True, tensor=FLOAT, when="get_prob")],
   attrs=[Attr("shape", "shape", "()", doc="Draws per distribution."),
          Attr("get_prob", "bool", "False", doc="Also the log-probability of each draw."),
          Attr("dtype", "dtype", "int32", ["uint8", "int32", "float16", "float32", "float64"],
               doc="The indices' type.")],
   aliases=["sample_multinomial"],
   example="""%i = mx._sample_multinomial %p {shape = array<i64: 5>} : (tensor<2x3xf32>) -> tensor<2x5xi32>""")

op(mxnet="_shuffle", mnemonic="_shuffle", cpp="Shuffle",
   source="src/operator/random/shuffle_op.cc",
   summary="The data with its first axis randomly permuted",
   description="""
mx.sym.random.shuffle: the slices of data along axis 0 in a random order,
each order equally likely. Drawn by mx-decompose: the argsort of uniform
numbers of the graph's rng_seed stream (see _random_uniform), then `take`.""",
   inputs=[Input("data")], outputs=[Output("output")],
   aliases=["shuffle", "_npi_shuffle"], infer=INFER_SAME,
   example="""%y = mx._shuffle %x : (tensor<4x3xf32>) -> tensor<4x3xf32>""")

op(mxnet="_full", mnemonic="_full", cpp="Full",
   source="src/operator/tensor/init_op.h InitOpWithScalarParam",
   summary="An array filled with a value",
   description="""
An array of `shape` and `dtype` with every element `value` (mx.sym.full),
converted to `dtype` as a C cast would.""",
   inputs=[], outputs=[Output("output")],
   attrs=list(_INIT_ATTRS) + [Attr("value", "float", doc="The fill value.")],
   infer=INFER_INIT,
   example="""%out = mx._full {shape = array<i64: 2>, value = 7.0 : f64} : () -> tensor<2xf32>""")

op(mxnet="_arange", mnemonic="_arange", cpp="Arange",
   source="src/operator/tensor/init_op.h RangeParam, RangeShape",
   summary="Evenly spaced values in [start, stop)",
   description="""
`start + (i / repeat) * step` for `i` in `[0, repeat * ceil((stop - start) /
step))` (mx.sym.arange); without `stop` the range is `[0, start)`. The
values are computed in double precision and converted to `dtype`.
`infer_range` (the length taken from the graph) needs backward shape
inference, which mxc does not have: it is an error.""",
   inputs=[], outputs=[Output("output")],
   attrs=[Attr("start", "float", doc="First value (or the end, without stop)."),
          Attr("stop", "float", "None", doc="End (exclusive)."),
          Attr("step", "float", "1.0", doc="Spacing (non-zero)."),
          Attr("repeat", "int", "1", doc="Times each value is repeated (>= 1)."),
          Attr("infer_range", "bool", "False", doc="Not supported by mxc."),
          Attr("ctx", "string", "None", doc="MXNet's context string; ignored."),
          Attr("dtype", "dtype", "float32", ALL_DTYPES, doc="Result type.")],
   example="""%out = mx._arange {start = 0.0 : f64, stop = 5.0 : f64} : () -> tensor<5xf32>""")

op(mxnet="_eye", mnemonic="_eye", cpp="Eye",
   source="src/operator/tensor/init_op.h EyeParam",
   summary="A 2-D array with ones on a diagonal",
   description="""
`(N, M)` (`M` = 0: `N`) with `out[i, j] = j - i == k ? 1 : 0` (mx.sym.eye).""",
   inputs=[], outputs=[Output("output")],
   attrs=[Attr("N", "int", doc="Rows (>= 1)."),
          Attr("M", "int", "0", doc="Columns; 0 means N."),
          Attr("k", "int", "0", doc="Diagonal: 0 main, > 0 above, < 0 below."),
          Attr("ctx", "string", "None", doc="MXNet's context string; ignored."),
          Attr("dtype", "dtype", "float32", ALL_DTYPES, doc="Result type.")],
   example="""%out = mx._eye {N = 3 : i64} : () -> tensor<3x3xf32>""")

op(mxnet="_contrib_arange_like", mnemonic="_contrib_arange_like", cpp="ArangeLike",
   source="src/operator/tensor/init_op.h RangeLikeParam, RangeLikeShape",
   summary="arange with the length of an input",
   description="""
`start + (i / repeat) * step` over `data`'s whole shape (row-major index i)
or, with `axis`, over `(data.shape[axis],)`. Only `data`'s shape is read;
no gradient flows to it.""",
   inputs=[Input("data")], outputs=[Output("output")],
   attrs=[Attr("start", "float", "0.0", doc="First value."),
          Attr("step", "float", "1.0", doc="Spacing."),
          Attr("repeat", "int", "1", doc="Times each value is repeated (>= 1)."),
          Attr("ctx", "string", "None", doc="MXNet's context string; ignored."),
          Attr("axis", "int", "None", doc="The axis whose extent is the length; absent: all of data.")],
   example="""%out = mx._contrib_arange_like %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<3xf32>""")

# ----------------------------------------------------------------------------
# Derived views of the table
# ----------------------------------------------------------------------------

KIND_CPP = {"int": "Int", "float": "Float", "bool": "Bool", "shape": "Shape",
            "enum": "Enum", "dtype": "DType", "string": "String"}


def attr_storage(a: Attr) -> str:
    if a.kind == "int":
        return "I64Attr"
    if a.kind == "float":
        return "F64Attr"
    if a.kind == "bool":
        return "BoolAttr"
    if a.kind == "shape":
        return "DenseI64ArrayAttr"
    if a.kind == "string":
        return "StrAttr"
    if a.kind == "dtype" and a.values is None:
        return "MX_DTypeAttr"
    return "MX_StrEnumAttr<[" + ", ".join(f'"{v}"' for v in a.values) + "]>"


def parse_tuple(s: str) -> List[int]:
    s = s.strip()
    if s[0] in "([":
        s = s[1:-1]
    return [int(x) for x in s.split(",") if x.strip()]


def cpp_default(a: Attr) -> str:
    d = a.default
    if a.kind == "int":
        return str(int(d))
    if a.kind == "float":
        return repr(float(d))
    if a.kind == "bool":
        return "true" if d in ("True", "true", "1") else "false"
    if a.kind == "shape":
        return "{" + ", ".join(str(v) for v in parse_tuple(d)) + "}"
    return '\\"' + d + '\\"'


def ods_attr(a: Attr) -> str:
    t = attr_storage(a)
    if a.default is REQUIRED:
        return t
    if a.default == "None" or a.none_ok:
        return f"OptionalAttr<{t}>"
    return f'DefaultValuedAttr<{t}, "{cpp_default(a)}">'


def mlir_default(a: Attr) -> str:
    """The default as written in MLIR's attribute syntax (docs)."""
    if a.default is REQUIRED:
        return "required"
    if a.default == "None":
        return "absent (None)"
    if a.none_ok:
        return f"`{a.default}` (filled in on import; absent = None)"
    return f"`{a.default}`"


def mlir_attr_type(a: Attr) -> str:
    if a.kind == "enum" or (a.kind == "dtype"):
        vals = a.values if a.values is not None else ALL_DTYPES
        return "string: " + " / ".join(f"`{v}`" for v in vals)
    return {"int": "`i64`", "float": "`f64`", "bool": "`bool`",
            "shape": "`array<i64>`", "string": "string"}[a.kind]


def operand_constraint(i: Input, o: Op) -> str:
    t = i.tensor
    if o.variadic:
        return f"Variadic<{t}>"
    if i.optional:
        return f"Optional<{t}>"
    return t


def result_constraint(r: Output) -> str:
    if r.variadic:
        return f"Variadic<{r.tensor}>"
    return f"Optional<{r.tensor}>" if r.optional else r.tensor


def assembly_format(o: Op) -> str:
    parts = []
    for idx, i in enumerate(o.inputs):
        sep = "" if idx == 0 else "`,` "
        if i.optional:
            parts.append(f"(`,` ${i.name}^)?")
        else:
            parts.append(f"{sep}${i.name}")
    return " ".join(parts) + " attr-dict `:` functional-type(operands, results)"


def tensor_doc(t: str) -> str:
    return {"MX_FloatTensor": "float tensor (f16, bf16, f32, f64)",
            "MX_Tensor": "tensor of any MXNet type"}[t]


# ----------------------------------------------------------------------------
# Emitters
# ----------------------------------------------------------------------------

BANNER_TD = """//===- MXGeneratedOps.td - generated mx operations ---------*- tablegen -*-===//
//
// GENERATED by scripts/gen_mx_ops.py from its operator table. DO NOT EDIT:
// change the table and rerun `python3 scripts/gen_mx_ops.py`.
//
//===----------------------------------------------------------------------===//
"""


def indent(text: str, n: int) -> str:
    pad = " " * n
    return "\n".join((pad + line) if line.strip() else "" for line in text.split("\n"))


def emit_td() -> str:
    out = [BANNER_TD]
    out.append("#ifndef MXC_DIALECT_MX_IR_MXGENERATEDOPS_TD")
    out.append("#define MXC_DIALECT_MX_IR_MXGENERATEDOPS_TD\n")
    for o in OPS:
        traits = []
        if o.pure:
            traits.append("Pure")
        if o.effects:
            traits.append("DeclareOpInterfaceMethods<MemoryEffectsOpInterface>")
        traits.append("InferTypeOpAdaptorWithIsCompatible")
        name = f"MX_{o.cpp}Op"
        out.append(f"def {name} : MX_Op<\"{o.mnemonic}\", [{', '.join(traits)}]> {{")
        out.append(f"  let summary = \"{o.summary}\";")
        desc = o.description.strip("\n")
        mx = f"MXNet operator: `{o.mxnet}`"
        if o.aliases:
            mx += " (aliases " + ", ".join(f"`{a}`" for a in o.aliases) + ")"
        mx += "."
        desc += "\n\n" + mx + "\n\nExample:\n\n```mlir\n" + o.example + "\n```"
        out.append("  let description = [{")
        out.append(indent(desc.strip("\n"), 4))
        out.append("  }];")
        args = [f"{operand_constraint(i, o)}:${i.name}" for i in o.inputs]
        args += [f"{ods_attr(a)}:${a.name}" for a in o.attrs]
        out.append("  let arguments = (ins")
        out.append(",\n".join("    " + a for a in args))
        out.append("  );")
        res = [f"{result_constraint(r)}:${r.name}" for r in o.outputs]
        out.append("  let results = (outs")
        out.append(",\n".join("    " + r for r in res))
        out.append("  );")
        out.append(f"  let assemblyFormat = [{{\n    {assembly_format(o)}\n  }}];")
        if o.verifier:
            out.append("  let hasVerifier = 1;")
        defs = ["bool $cppClass::isCompatibleReturnTypes(::mlir::TypeRange l, ::mlir::TypeRange r) {",
                "  return ::mxc::mx::detail::isCompatibleReturnTypes(l, r);",
                "}"]
        if o.infer:
            defs += ["::llvm::LogicalResult $cppClass::inferReturnTypes(",
                     "    ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,",
                     "    Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {",
                     "  " + o.infer,
                     "}"]
        out.append("  let extraClassDefinition = [{")
        out.append(indent("\n".join(defs), 4))
        out.append("  }];")
        out.append("}\n")
    out.append("#endif // MXC_DIALECT_MX_IR_MXGENERATEDOPS_TD")
    return "\n".join(out) + "\n"


BANNER_INC = """//===- MXOpTable.inc - generated MXNet operator table -----------*- C++ -*-===//
//
// GENERATED by scripts/gen_mx_ops.py from its operator table. DO NOT EDIT:
// change the table and rerun `python3 scripts/gen_mx_ops.py`.
// Included by MXOpTable.cpp only.
//
//===----------------------------------------------------------------------===//
"""


def c_str(s: Optional[str]) -> str:
    if s is None:
        return "nullptr"
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def emit_inc() -> str:
    out = [BANNER_INC]
    for o in OPS:
        ident = o.cpp
        out.append(f"// {o.mxnet} -> mx.{o.mnemonic}")
        if o.inputs:
            out.append(f"static const char *const kInputs_{ident}[] = {{"
                       + ", ".join(c_str(i.name) for i in o.inputs) + "};")
        out.append(f"static const char *const kOutputs_{ident}[] = {{"
                   + ", ".join(c_str(r.name) for r in o.outputs) + "};")
        aux = [str(n) for n, i in enumerate(o.inputs) if i.aux]
        if aux:
            out.append(f"static const unsigned kAux_{ident}[] = {{{', '.join(aux)}}};")
        rules = [i.param_shape for i in graph_inputs(o)]
        for r in rules + [o.variadic_param_shape]:
            assert r is None or r in PARAM_SHAPES, f"{o.mxnet}: unknown param_shape {r!r}"
        if any(rules):
            out.append(f"static const ParamShape kParamShapes_{ident}[] = {{"
                       + ", ".join("ParamShape::" + PARAM_SHAPES.get(r, "None") if r else
                                   "ParamShape::None" for r in rules) + "};")
        if o.aliases:
            out.append(f"static const char *const kAliases_{ident}[] = {{"
                       + ", ".join(c_str(a) for a in o.aliases) + "};")
        if o.attrs:
            out.append(f"static const AttrSpec kAttrs_{ident}[] = {{")
            for a in o.attrs:
                d = None if a.default is REQUIRED else a.default
                ev = "|".join(a.values) if a.values else None
                out.append(f"    {{{c_str(a.name)}, AttrKind::{KIND_CPP[a.kind]}, {c_str(d)}, "
                           f"{c_str(ev)}, {'true' if a.export_always or a.none_ok else 'false'}, "
                           f"{'true' if a.none_ok else 'false'}}},")
            out.append("};")
        out.append("")
    out.append("static const OpSpec kOpSpecs[] = {")
    for o in OPS:
        ident = o.cpp
        required = sum(1 for i in o.inputs if not i.optional)
        n_out = len(o.outputs)
        visible = o.visible_outputs or n_out
        fields = [
            c_str(o.mxnet), c_str("mx." + o.mnemonic),
            f"kInputs_{ident}" if o.inputs else "{}",
            str(required), "true" if o.variadic else "false", str(n_out),
            f"kAux_{ident}" if any(i.aux for i in o.inputs) else "{}",
            f"kAttrs_{ident}" if o.attrs else "{}",
            f"kOutputs_{ident}", str(visible),
            f"kAliases_{ident}" if o.aliases else "{}",
            "true" if any(r.variadic for r in o.outputs) else "false",
            "true" if o.flist_input_names else "false",
            "true" if o.flist_output_names else "false",
            c_str(o.shape_family or SHAPE_FAMILY.get(o.infer)),
            f"kParamShapes_{ident}" if any(i.param_shape for i in graph_inputs(o)) else "{}",
            "ParamShape::" + PARAM_SHAPES[o.variadic_param_shape]
            if o.variadic_param_shape else "ParamShape::None",
        ]
        out.append("    {" + ", ".join(fields) + "},")
    out.append("};")
    return "\n".join(out) + "\n"


# Rules for the shape of a parameter input (weight, bias, gamma, label, ...)
# that the graph leaves unknown, from the data input's shape and the
# attributes (MXNet's FInferShape filling in its arguments). The importer
# (lib/Compiler/Import.cpp inferVariableShape) implements each rule once.
PARAM_SHAPES = {
    "conv_weight": "ConvWeight",        # (num_filter, C / num_group, *kernel)
    "deconv_weight": "DeconvWeight",    # (C, num_filter / num_group, *kernel)
    "num_filter": "NumFilter",          # (num_filter,)
    "fc_weight": "FCWeight",            # (num_hidden, prod(data[1:]) or data[-1])
    "num_hidden": "NumHidden",          # (num_hidden,)
    "axis_extent": "AxisExtent",        # (data[axis],), axis as the op defaults it
    "channel": "Channel",               # (data[1],)
    "num_groups": "NumGroups",          # (num_groups,)
    "sequence_batch": "SequenceBatch",  # (data[1 - axis],)
    "embedding_weight": "EmbeddingWeight",  # (input_dim, output_dim)
    "upsampling_weight": "UpSamplingWeight",  # bilinear: (num_filter, 1, k, k)
    "rnn_parameters": "RNNParameters",  # the fused RNN's flat parameter vector
    "rnn_state": "RNNState",            # (L * D, N, H)
    "softmax_label": "SoftmaxLabel",    # data without the class axis
    "class_label": "ClassLabel",        # data without the last axis
    "regression_label": "RegressionLabel",  # data's shape ((N,) for (N, 1))
    "same_as_data": "SameAsData",       # data's shape
}


def graph_inputs(o: Op) -> List[Input]:
    return o.graph_inputs if o.graph_inputs is not None else o.inputs


def graph_outputs(o: Op) -> List[Output]:
    return o.graph_outputs if o.graph_outputs is not None else o.outputs


def parse_cond(o: Op, cond: Optional[str], what: str):
    """C++ initializers of the SigTerms of a condition (see Input.when)."""
    if cond is None or cond == "never":
        return []
    attrs = {a.name: a for a in o.attrs}
    terms = []
    for t in cond.split("&"):
        m = re.fullmatch(r"(!?)([A-Za-z_][A-Za-z0-9_]*)(?:(!?=)(.+))?", t.strip())
        assert m, f"{o.mxnet} {what}: bad condition term {t!r}"
        neg, name, cmp, values = m.groups()
        a = attrs.get(name)
        assert a is not None, f"{o.mxnet} {what}: condition on unknown attribute {name!r}"
        d = None if a.default is REQUIRED else a.default
        if cmp is None:
            assert a.kind == "bool", f"{o.mxnet} {what}: {name} is not a bool"
            test = "False" if neg else "True"
            values = None
        else:
            assert not neg, f"{o.mxnet} {what}: write attr!=v, not !attr=v"
            test = "NotIn" if cmp == "!=" else "In"
            if a.values:
                for v in values.split("|"):
                    assert v in a.values or v == "None", f"{o.mxnet} {what}: {v!r} not in {name}"
        terms.append(f"{{{c_str(name)}, {c_str(d)}, SigTest::{test}, {c_str(values)}}}")
    return terms


BANNER_SIG = """//===- OpSignatures.inc - generated MXNet operator signatures ---*- C++ -*-===//
//
// GENERATED by scripts/gen_mx_ops.py from its operator table. DO NOT EDIT:
// change the table and rerun `python3 scripts/gen_mx_ops.py`.
// Included by Graph.cpp only: MXNet's input names, output counts, visible
// outputs and auxiliary inputs of every operator, with the attribute
// conditions under which each input and output exists, for lib/Graph (which
// knows no MLIR).
//
//===----------------------------------------------------------------------===//
"""


def emit_sig() -> str:
    out = [BANNER_SIG]
    rows, names = [], []
    for o in OPS:
        ident = o.cpp
        ins, outs = graph_inputs(o), graph_outputs(o)
        named_inputs = not o.variadic or o.graph_inputs is not None

        def slots(kind, items, visible_of):
            decl = []
            for n, it in enumerate(items):
                when = parse_cond(o, it.when, f"{kind} {it.name}")
                if when:
                    out.append(f"static const SigTerm kWhen_{ident}_{kind}{n}[] = {{"
                               + ", ".join(when) + "};")
                vis, hidden = None, False
                if visible_of:
                    vis = it.visible
                    if vis is None and o.visible_outputs and n >= o.visible_outputs:
                        vis = "never"
                    hidden = vis == "never"
                    vterms = parse_cond(o, vis, f"{kind} {it.name} visible")
                    if vterms:
                        out.append(f"static const SigTerm kVisible_{ident}_{kind}{n}[] = {{"
                                   + ", ".join(vterms) + "};")
                        vis = f"kVisible_{ident}_{kind}{n}"
                    else:
                        vis = None
                decl.append("{" + ", ".join([
                    c_str(it.name),
                    f"kWhen_{ident}_{kind}{n}" if when else "{}",
                    vis or "{}",
                    "true" if it.when == "never" else "false",
                    "true" if hidden else "false"]) + "}")
            return decl

        for i in ins:
            assert not i.optional or i.when, f"{o.mxnet}: optional input {i.name} needs `when`"
        in_decl = slots("in", ins, False) if named_inputs else []
        out_decl = slots("out", outs, True)
        if in_decl:
            out.append(f"static const SigSlot kSigInputs_{ident}[] = {{" + ", ".join(in_decl) + "};")
        out.append(f"static const SigSlot kSigOutputs_{ident}[] = {{" + ", ".join(out_decl) + "};")
        aux = [str(n) for n, i in enumerate(ins) if i.aux]
        if aux:
            out.append(f"static const uint32_t kSigAux_{ident}[] = {{{', '.join(aux)}}};")
        default_names = len(outs) > 1 and all(r.name == f"output{n}" for n, r in enumerate(outs))
        rows.append("    {" + ", ".join([
            c_str(o.mxnet),
            f"kSigInputs_{ident}" if in_decl else "{}",
            f"kSigOutputs_{ident}",
            f"kSigAux_{ident}" if aux else "{}",
            "true" if named_inputs else "false",
            "true" if any(r.variadic for r in outs) else "false",
            "true" if default_names else "false"]) + "},")
        for n in [o.mxnet] + o.aliases + o.graph_aliases:
            names.append(f"    {{{c_str(n)}, {len(rows) - 1}}},")
    out.append("")
    out.append("static const OpSignature kSignatures[] = {")
    out += rows
    out.append("};")
    out.append("")
    out.append("static const SigName kSignatureNames[] = {")
    out += names
    out.append("};")
    return "\n".join(out) + "\n"


def emit_doc() -> str:
    out = ["# `mx` dialect operators", "",
           "<!-- GENERATED by scripts/gen_mx_ops.py. DO NOT EDIT. -->", "",
           f"{len(OPS)} operators of MXNet 1.9.1 (wave 1). Each is an MLIR op "
           "`mx.<name>` on ranked tensors with typed attributes carrying "
           "MXNet's names and defaults; result types are inferred with MXNet's "
           "shape and type rules (a mismatch is a diagnostic naming the op, "
           "never a crash).", "",
           "Attribute kinds and their MXNet spelling (as in symbol JSON):", "",
           "| kind | MLIR attribute | MXNet string |", "|---|---|---|",
           "| int | `i64` | `3` |", "| float | `f64` | `0.001`, `1e-05` (Python repr when exported) |",
           "| bool | `true` / `false` | `True` / `False` (also `true`, `1`, `0`) |",
           "| shape | `array<i64: 3, 3>` | `(3, 3)`, `[3, 3]`, `3`, `()` |",
           "| enum / dtype | string | the value, e.g. `relu`, `float32` |", "",
           "Optional attributes without a default (MXNet `None`) are absent from "
           "the op when not given. Element types: `float32` f32, `float64` f64, "
           "`float16` f16, `bfloat16` bf16, `uint8` ui8, `int8` i8, `int32` i32, "
           "`int64` i64, `bool` i1.", "",
           "## Index", "",
           "| MLIR op | MXNet name | aliases | summary |", "|---|---|---|---|"]
    for o in OPS:
        al = ", ".join(f"`{a}`" for a in o.aliases)
        out.append(f"| [`mx.{o.mnemonic}`](#mx{o.mnemonic.lower()}) "
                   f"| `{o.mxnet}` | {al} | {o.summary} |")
    out.append("")
    for o in OPS:
        out.append(f"## mx.{o.mnemonic}")
        out.append("")
        out.append(f"**{o.summary}.** MXNet `{o.mxnet}`"
                   + (" (aliases " + ", ".join(f"`{a}`" for a in o.aliases) + ")" if o.aliases else "")
                   + f"; parameters from `{o.source}`.")
        out.append("")
        out.append(" ".join(line.strip() for line in o.description.strip().split("\n")))
        out.append("")
        out.append("| input | | type |")
        out.append("|---|---|---|")
        for i in o.inputs:
            tags = []
            if o.variadic:
                tags.append("variadic")
            if i.optional:
                tags.append("optional")
            if i.aux:
                tags.append("auxiliary state")
            out.append(f"| `{i.name}` | {', '.join(tags)} | {tensor_doc(i.tensor)} |")
        out.append("")
        out.append("| output | | type |")
        out.append("|---|---|---|")
        visible = o.visible_outputs or len(o.outputs)
        for n, r in enumerate(o.outputs):
            tags = []
            if n >= visible:
                tags.append("hidden in MXNet")
            if r.optional:
                tags.append("optional")
            out.append(f"| `{r.name}` | {', '.join(tags)} | {tensor_doc(r.tensor)} |")
        out.append("")
        if o.attrs:
            out.append("| attribute | type | default | meaning |")
            out.append("|---|---|---|---|")
            for a in o.attrs:
                out.append(f"| `{a.name}` | {mlir_attr_type(a)} | {mlir_default(a)} | {a.doc} |")
            out.append("")
        else:
            out.append("No attributes.")
            out.append("")
        out.append("```mlir")
        out.append(o.example)
        out.append("```")
        out.append("")
    return "\n".join(out)


def emit_examples() -> str:
    """Every doc example as a function, for a parse-and-verify lit test."""
    out = []
    for n, o in enumerate(OPS):
        m = re.match(r"^(.*?)=\s*mx\.(\S+)\s+(.*?)\s*(\{.*\})?\s*:\s*\((.*)\)\s*->\s*(.*)$",
                     o.example)
        assert m, o.example
        operands = [s.strip() for s in m.group(3).split(",") if s.strip()]
        types = re.findall(r"tensor<[^>]*>", m.group(5))
        assert len(operands) == len(types), o.example
        args = ", ".join(f"{v}: {t}" for v, t in zip(operands, types))
        out.append(f"// CHECK-LABEL: func.func @example_{n}")
        out.append(f"// CHECK: mx.{o.mnemonic}")
        out.append(f"func.func @example_{n}({args}) {{")
        out.append("  " + o.example)
        out.append("  return")
        out.append("}")
    return "\n".join(out) + "\n"


def outputs():
    apply_monitor_names()
    apply_shape_families()
    return {TD_PATH: emit_td(), INC_PATH: emit_inc(), DOC_PATH: emit_doc(),
            SIG_PATH: emit_sig()}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--check", action="store_true",
                   help="exit 1 if the checked-in outputs are stale")
    p.add_argument("--emit-examples", action="store_true",
                   help="print the doc examples as MLIR functions")
    p.add_argument("--root", default=ROOT, help="repository root")
    args = p.parse_args()

    names = [o.mnemonic for o in OPS]
    assert len(set(names)) == len(names), "duplicate mnemonic"
    all_names = [o.mxnet for o in OPS] + [a for o in OPS for a in o.aliases + o.graph_aliases]
    assert len(set(all_names)) == len(all_names), "duplicate MXNet name or alias"

    if args.emit_examples:
        sys.stdout.write(emit_examples())
        return 0
    stale = []
    for rel, text in outputs().items():
        path = os.path.join(args.root, rel)
        if args.check:
            try:
                with open(path) as f:
                    if f.read() != text:
                        stale.append(rel)
            except OSError:
                stale.append(rel)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
    if stale:
        print("stale generated files (run python3 scripts/gen_mx_ops.py): "
              + ", ".join(stale), file=sys.stderr)
        return 1
    if args.check:
        print(f"gen_mx_ops: {len(OPS)} ops, outputs up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
