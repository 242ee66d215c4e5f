//===- MXTrainingOps.td - hand-written mx ops ------------------*- tablegen -*-===//
//
// Training forms that mx-autodiff introduces where no composition of MXNet
// operators exists. Lowered in lib/Conversion/MXToLinalg/Training.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_DIALECT_MX_IR_MXTRAININGOPS_TD
#define MXC_DIALECT_MX_IR_MXTRAININGOPS_TD

include "mxc/Dialect/MX/IR/MXBase.td"

def MX_DropoutMaskOp : MX_Op<"dropout_mask", [Pure]> {
  let summary = "Dropout's training mask from a counter-based generator";
  let description = [{
    The mask of MXNet's Dropout in training: each element is `1 / (1 - p)`
    with probability `1 - p` and `0` otherwise (MXNet keeps an element when
    its uniform draw is below `1 - p`). The draw of element `i` (row-major
    linear index) is a pure function of the `seed` (a `tensor<1xi64>`, the
    training step's `rng_seed` argument), the op's `stream` (one per Dropout
    node) and `i`:

      z = splitmix64(seed * 0x9e3779b97f4a7c15 + stream * 0xd1b54a32d192ed03 + i)
      u = (z >> 11) * 2^-53

    so the op is `Pure`: recomputing it gives the same mask, and the
    backward pass (which multiplies by the same SSA value) never redraws.
    mx-autodiff replaces `mx.Dropout` in training by
    `data * mx.dropout_mask` (broadcast over the variational `axes`).

    Example:

    ```mlir
    %m = mx.dropout_mask %seed {p = 5.000000e-01 : f64, stream = 7 : i64} : (tensor<1xi64>) -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins
    TensorOf<[I64]>:$seed,
    F64Attr:$p,
    I64Attr:$stream
  );
  let results = (outs
    MX_FloatTensor:$mask
  );
  let assemblyFormat = [{
    $seed attr-dict `:` functional-type(operands, results)
  }];
}

def MX_RandomUniformOp : MX_Op<"random_uniform", [Pure]> {
  let summary = "Uniform random numbers from a counter-based generator";
  let description = [{
    `low + (high - low) * u` per element, with the `u` of `mx.dropout_mask`
    (a pure function of `seed`, `stream` and the element's linear index).
    mx-autodiff draws LeakyReLU `rrelu`'s training slopes with it
    (`lower_bound`, `upper_bound`); the backward reuses the same value.

    Example:

    ```mlir
    %s = mx.random_uniform %seed {low = 1.250000e-01 : f64, high = 3.340000e-01 : f64, stream = 3 : i64} : (tensor<1xi64>) -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins
    TensorOf<[I64]>:$seed,
    F64Attr:$low,
    F64Attr:$high,
    I64Attr:$stream
  );
  let results = (outs
    MX_FloatTensor:$output
  );
  let assemblyFormat = [{
    $seed attr-dict `:` functional-type(operands, results)
  }];
}

#endif // MXC_DIALECT_MX_IR_MXTRAININGOPS_TD
