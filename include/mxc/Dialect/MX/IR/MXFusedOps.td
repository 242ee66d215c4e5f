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

#endif // MXC_DIALECT_MX_IR_MXFUSEDOPS_TD
