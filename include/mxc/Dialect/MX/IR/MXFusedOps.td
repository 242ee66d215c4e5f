//===- MXFusedOps.td - the fused region of mx-fuse-elementwise -*- tablegen -*-===//
//
// mx-fuse-elementwise groups connected elementwise and broadcast ops into one
// `mx.fused`; lib/Conversion/MXToLinalg/Fused.cpp lowers the region with the
// ops' own patterns and fuses the result into one linalg.generic (one loop
// nest). Verifiers and builders in lib/Dialect/MX/IR/MXFusedOps.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_DIALECT_MX_IR_MXFUSEDOPS_TD
#define MXC_DIALECT_MX_IR_MXFUSEDOPS_TD

include "mxc/Dialect/MX/IR/MXBase.td"

def MX_FusedOp : MX_Op<"fused", [IsolatedFromAbove, RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"::mxc::mx::YieldOp">]> {
  let summary = "A group of elementwise and broadcast ops computed as one kernel";
  let description = [{
    The body computes the group's values from its block arguments (one per
    input, same types) with ordinary `mx` ops on tensors; `mx.yield` gives the
    values used outside the group, which become the results. The op is
    isolated from above: everything the group reads is an input. The lowering
    emits one loop nest (one `linalg.generic`, with one result per yielded
    value) for the body.

    Example (a convolution's tail: bias, BatchNorm in inference form, relu):

    ```mlir
    %r = mx.fused %conv, %bias, %gamma, %beta, %mean, %var
        : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>, tensor<8xf32>, tensor<8xf32>,
           tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32> {
    ^bb0(%x: tensor<1x8x4x4xf32>, %b: tensor<1x8x1x1xf32>, %g: tensor<8xf32>,
         %be: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>):
      %0 = mx.broadcast_add %x, %b : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
      %1, %2, %3 = mx.BatchNorm %0, %g, %be, %m, %v {use_global_stats = true} : (...) -> (...)
      %4 = mx.Activation %1 {act_type = "relu"} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
      mx.yield %4 : tensor<1x8x4x4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $inputs attr-dict `:` functional-type($inputs, $results) $body
  }];
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    // An empty body block with one argument per input (no terminator).
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes,
                   "::mlir::ValueRange":$inputs)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

def MX_YieldOp : MX_Op<"yield", [Pure, Terminator,
                                 HasParent<"::mxc::mx::FusedOp">]> {
  let summary = "The values an mx.fused region gives to its results";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = [{ attr-dict ($values^ `:` type($values))? }];
  let builders = [OpBuilder<(ins), [{ /* nothing */ }]>];
}


def MX_ConvolutionFusedOp
    : MX_Op<"Convolution_fused", [Pure, AttrSizedOperandSegments]> {
  let summary = "A Convolution with its inference epilogue: BatchNorm, activation, residual add";
  let description = [{
    What mx-fuse-convolution makes of a `Convolution` followed by a
    BatchNorm in inference form, an activation (relu, clip) and an addend,
    as MXNet's oneDNN subgraph backend makes `_sg_mkldnn_conv` of them:

      `output = act((Convolution(data, weight) + bias) * scale + shift) + sum`

    or, with `act_after_sum` (a ResNet block's BatchNorm -> add -> relu),
    `output = act((Convolution(data, weight) + bias) * scale + shift + sum)`.

    `scale` and `shift` are per-filter vectors (a BatchNorm's
    `gamma / sqrt(moving_var + eps)` and `beta - moving_mean * scale`),
    `act` is "" (none), "relu" or "clip" (to [`act_min`, `act_max`]), and
    `sum` is a tensor of the output's type; each operand is optional. The
    geometry attributes are the Convolution's (NCHW, 2-D). The CPU lowering
    calls the runtime's `mxc_kernel_conv_fused_f32`, which runs the epilogue
    as oneDNN post-ops and writes the result over `sum`'s buffer when that
    is its last use.

    `constant_weights` (set by mx-fuse-convolution's `constant-params`)
    says that `weight` is a function argument holding the same values on
    every run of the compiled function (`mxc run`, an AOT model): the
    kernel may then keep its re-laid (and scaled) copy of the weights from
    one run to the next instead of re-laying them on every call.

    `blocked_data` / `blocked_output` (set by mx-propagate-conv-layout)
    say that `data` / `output` (and `sum`, which is accumulated in the
    output's buffer) are held in the runtime's blocked channel layout
    (oneDNN's nChw8c / nChw16c: the block of channels innermost) instead of
    NCHW. The tensor type does not change (a blocked tensor takes the bytes
    of its NCHW form: its channels are a multiple of 16); only fused
    convolutions, poolings marked `mx.blocked_data` / `mx.blocked_output`
    and channel concatenations of such values read or write one.

    Example (conv -> BatchNorm -> relu6):

    ```mlir
    %y = mx.Convolution_fused %x, %w scale %s shift %t {act = "clip", act_max = 6.0 : f64, kernel = array<i64: 3, 3>, num_filter = 8 : i64, pad = array<i64: 1, 1>}
        : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
    ```
  }];
  let arguments = (ins
    MX_FloatTensor:$data,
    MX_FloatTensor:$weight,
    Optional<MX_FloatTensor>:$bias,
    Optional<MX_FloatTensor>:$scale,
    Optional<MX_FloatTensor>:$shift,
    Optional<MX_FloatTensor>:$sum,
    DenseI64ArrayAttr:$kernel,
    DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$stride,
    DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$dilate,
    DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$pad,
    I64Attr:$num_filter,
    DefaultValuedAttr<I64Attr, "1">:$num_group,
    DefaultValuedAttr<StrAttr, "\"\"">:$act,
    DefaultValuedAttr<F64Attr, "0.0">:$act_min,
    DefaultValuedAttr<F64Attr, "0.0">:$act_max,
    UnitAttr:$constant_weights,
    UnitAttr:$act_after_sum,
    UnitAttr:$blocked_data,
    UnitAttr:$blocked_output
  );
  let results = (outs MX_FloatTensor:$output);
  let assemblyFormat = [{
    $data `,` $weight (`bias` $bias^)? (`scale` $scale^)? (`shift` $shift^)?
    (`sum` $sum^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // MXC_DIALECT_MX_IR_MXFUSEDOPS_TD
