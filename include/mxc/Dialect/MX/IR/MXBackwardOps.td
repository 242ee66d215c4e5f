//===- MXBackwardOps.td - backward ops of mx layers ---------*- tablegen -*-===//
//
// The gradients of the layers whose backward pass is not a composition of
// other mx ops (MXNet's _backward_Convolution, _backward_Pooling and
// _backward_LRN), built by the gradient rules of MXGradientsNN.cpp and
// lowered by lib/Conversion/MXToLinalg/Backward.cpp. Attributes mean what
// they mean on the forward op; each verifier checks the operands against
// the forward op's own shape inference, so a backward op exists only for a
// forward op that would verify.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_DIALECT_MX_IR_MXBACKWARDOPS_TD
#define MXC_DIALECT_MX_IR_MXBACKWARDOPS_TD

include "mxc/Dialect/MX/IR/MXBase.td"

def MX_ConvolutionBackwardDataOp
    : MX_Op<"Convolution_backward_data", [Pure]> {
  let summary = "Gradient of Convolution with respect to its data";
  let description = [{
    The transposed convolution that maps the gradient of a `Convolution`'s
    output back onto its `data`: for each group,
    `data_grad[n, g*C/G + c, i] = sum(weight[f, c, k] * out_grad[n, g*F/G + f, o])`
    over every `o`, `k` with `i = o * stride + k * dilate - pad`. The result
    type is the forward `data` type (it cannot be inferred: the output
    extents forget the remainder of the stride); the verifier checks that a
    `Convolution` of that data with `weight` yields `out_grad`'s type.
    `kernel`, `stride`, `dilate`, `pad`, `num_filter` and `num_group` are the
    forward op's; layouts are NCW / NCHW / NCDHW.

    Example:

    ```mlir
    %dx = mx.Convolution_backward_data %dy, %w {kernel = array<i64: 3, 3>, num_filter = 8 : i64, pad = array<i64: 1, 1>} : (tensor<1x8x32x32xf32>, tensor<8x3x3x3xf32>) -> tensor<1x3x32x32xf32>
    ```
  }];
  let arguments = (ins
    MX_FloatTensor:$out_grad,
    MX_FloatTensor:$weight,
    DenseI64ArrayAttr:$kernel,
    DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$stride,
    DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$dilate,
    DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$pad,
    I64Attr:$num_filter,
    DefaultValuedAttr<I64Attr, "1">:$num_group
  );
  let results = (outs MX_FloatTensor:$data_grad);
  let assemblyFormat = [{
    $out_grad `,` $weight attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def MX_ConvolutionBackwardWeightOp
    : MX_Op<"Convolution_backward_weight",
            [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "Gradient of Convolution with respect to its weight";
  let description = [{
    `weight_grad[g*F/G + f, c, k] = sum(out_grad[n, g*F/G + f, o] *
    data[n, g*C/G + c, o * stride + k * dilate - pad])` over the batch and
    every output position (zero outside the data). The result is
    `(num_filter, C / num_group, *kernel)`. Attributes are the forward
    `Convolution`'s; the verifier checks that a `Convolution` of `data` with
    such a weight yields `out_grad`'s type. The bias gradient is not part of
    this op (it is a sum of `out_grad`).

    Example:

    ```mlir
    %dw = mx.Convolution_backward_weight %dy, %x {kernel = array<i64: 3, 3>, num_filter = 8 : i64, pad = array<i64: 1, 1>} : (tensor<1x8x32x32xf32>, tensor<1x3x32x32xf32>) -> tensor<8x3x3x3xf32>
    ```
  }];
  let arguments = (ins
    MX_FloatTensor:$out_grad,
    MX_FloatTensor:$data,
    DenseI64ArrayAttr:$kernel,
    DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$stride,
    DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$dilate,
    DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$pad,
    I64Attr:$num_filter,
    DefaultValuedAttr<I64Attr, "1">:$num_group
  );
  let results = (outs MX_FloatTensor:$weight_grad);
  let assemblyFormat = [{
    $out_grad `,` $data attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    bool $cppClass::isCompatibleReturnTypes(::mlir::TypeRange l, ::mlir::TypeRange r) {
      return ::mxc::mx::detail::isCompatibleReturnTypes(l, r);
    }
  }];
}

def MX_PoolingBackwardOp
    : MX_Op<"Pooling_backward", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "Gradient of Pooling with respect to its data";
  let description = [{
    Spreads each element of `out_grad` over its pooling window of `data`
    exactly as MXNet's CPU pooling backward does (src/operator/nn/pool.h):
    `max` routes it to the first element of the clipped window, in row-major
    window order, that equals the forward `output` (nothing when the window
    lies entirely in the padding); `avg` divides it by the forward's pool
    size (`count_include_pad`, `pooling_convention`); `sum` copies it; `lp`
    multiplies it by `(x / output)^(p-1)`. Attributes are the forward
    `Pooling`'s; `output` is the forward result, and the verifier checks
    that `Pooling` of `data` with these attributes yields the type of
    `output` and `out_grad`. The result has `data`'s type.

    Example:

    ```mlir
    %dx = mx.Pooling_backward %dy, %x, %y {kernel = array<i64: 2, 2>, pool_type = "max", stride = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>, tensor<1x8x32x32xf32>, tensor<1x8x16x16xf32>) -> tensor<1x8x32x32xf32>
    ```
  }];
  let arguments = (ins
    MX_FloatTensor:$out_grad,
    MX_FloatTensor:$data,
    MX_FloatTensor:$output,
    DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$kernel,
    DefaultValuedAttr<MX_StrEnumAttr<["max", "avg", "sum", "lp"]>, "\"max\"">:$pool_type,
    DefaultValuedAttr<BoolAttr, "false">:$global_pool,
    DefaultValuedAttr<MX_StrEnumAttr<["full", "valid", "same"]>, "\"valid\"">:$pooling_convention,
    DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$stride,
    DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$pad,
    OptionalAttr<I64Attr>:$p_value,
    OptionalAttr<BoolAttr>:$count_include_pad,
    OptionalAttr<MX_StrEnumAttr<["NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC"]>>:$layout
  );
  let results = (outs MX_FloatTensor:$data_grad);
  let assemblyFormat = [{
    $out_grad `,` $data `,` $output attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    bool $cppClass::isCompatibleReturnTypes(::mlir::TypeRange l, ::mlir::TypeRange r) {
      return ::mxc::mx::detail::isCompatibleReturnTypes(l, r);
    }
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
      return ::mxc::mx::detail::inferSameAsInput(getOperationName(), location, adaptor.getData(), inferredReturnTypes);
    }
  }];
}

def MX_LRNBackwardOp
    : MX_Op<"LRN_backward", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "Gradient of LRN with respect to its data";
  let description = [{
    MXNet's LRN backward (src/operator/nn/lrn-inl.h) with
    `s = alpha / nsize` and the forward's `tmp_norm`:
    `data_grad = out_grad * tmp_norm^(-beta) - 2 * beta * s * data *
    chsum(out_grad * data * tmp_norm^(-beta - 1))`, where `chsum` sums over
    the window of `nsize` channels centred on each channel (clipped at the
    edges). Operands have the forward data's type; so has the result.

    Example:

    ```mlir
    %dx = mx.LRN_backward %dy, %x, %norm {nsize = 5 : i64} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins
    MX_FloatTensor:$out_grad,
    MX_FloatTensor:$data,
    MX_FloatTensor:$tmp_norm,
    DefaultValuedAttr<F64Attr, "0.0001">:$alpha,
    DefaultValuedAttr<F64Attr, "0.75">:$beta,
    DefaultValuedAttr<F64Attr, "2.0">:$knorm,
    I64Attr:$nsize
  );
  let results = (outs MX_FloatTensor:$data_grad);
  let assemblyFormat = [{
    $out_grad `,` $data `,` $tmp_norm attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    bool $cppClass::isCompatibleReturnTypes(::mlir::TypeRange l, ::mlir::TypeRange r) {
      return ::mxc::mx::detail::isCompatibleReturnTypes(l, r);
    }
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferredReturnTypes) {
      return ::mxc::mx::detail::inferSameAsInput(getOperationName(), location, adaptor.getData(), inferredReturnTypes);
    }
  }];
}

#endif // MXC_DIALECT_MX_IR_MXBACKWARDOPS_TD
