//===- MXBackwardOps.td - backward ops of mx layers ---------*- tablegen -*-===//
//
// The gradients of the layers whose backward pass is not a composition of
// other mx ops (MXNet's _backward_Convolution, _backward_Pooling and
// _backward_LRN), and BatchNorm's training forward and backward as single
// ops (library kernels; mx-autodiff's `library-batch-norm`), built by the
// gradient rules of MXGradientsNN.cpp (and mx-autodiff) and
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
    edges). `output` is the forward's result, which cuDNN's gradient (the
    CUDA target's kernel) reads instead of `tmp_norm`. Operands have the
    forward data's type; so has the result.

    Example:

    ```mlir
    %dx = mx.LRN_backward %dy, %x, %norm, %y {nsize = 5 : i64} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins
    MX_FloatTensor:$out_grad,
    MX_FloatTensor:$data,
    MX_FloatTensor:$tmp_norm,
    MX_FloatTensor:$output,
    DefaultValuedAttr<F64Attr, "0.0001">:$alpha,
    DefaultValuedAttr<F64Attr, "0.75">:$beta,
    DefaultValuedAttr<F64Attr, "2.0">:$knorm,
    I64Attr:$nsize
  );
  let results = (outs MX_FloatTensor:$data_grad);
  let assemblyFormat = [{
    $out_grad `,` $data `,` $tmp_norm `,` $output attr-dict `:` functional-type(operands, results)
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

def MX_BatchNormTrainOp : MX_Op<"BatchNorm_train", [Pure]> {
  let summary = "BatchNorm's training forward as one operation (a library kernel)";
  let description = [{
    MXNet's BatchNorm in training mode (src/operator/nn/batch_norm.cc with
    is_train and not use_global_stats) over every axis but `axis`: with
    `mean` and the biased `var` of `data` per channel,
    `invstd = (var + eps)^(-1/2)` and
    `output = (data - mean) * invstd * gamma + beta`. `fix_gamma` is the
    caller's: it passes ones as `gamma`. The moving statistics are not
    updated here (the caller composes MXNet's update from `mean` and `var`).

    mx-autodiff builds it instead of the composed training form when asked
    (`library-batch-norm`, the CUDA target's default), so that the forward
    and its gradient (`mx.BatchNorm_backward`) are each one kernel: the
    runtime's `mxc_kernel_batch_norm_{train,backward}_<T>` on the CPU,
    cuDNN's batch normalisation on the GPU. `gamma`, `beta` and the three
    statistics are rank-1 with the channel count; `output` has `data`'s type.

    Example:

    ```mlir
    %y, %mean, %var, %invstd = mx.BatchNorm_train %x, %gamma, %beta {axis = 1 : i64, eps = 1.0e-3 : f64} : (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
    ```
  }];
  let arguments = (ins
    MX_FloatTensor:$data,
    MX_FloatTensor:$gamma,
    MX_FloatTensor:$beta,
    DefaultValuedAttr<F64Attr, "0.001">:$eps,
    DefaultValuedAttr<I64Attr, "1">:$axis
  );
  let results = (outs MX_FloatTensor:$output, MX_FloatTensor:$mean,
                      MX_FloatTensor:$var, MX_FloatTensor:$invstd);
  let assemblyFormat = [{
    $data `,` $gamma `,` $beta attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def MX_BatchNormBackwardOp : MX_Op<"BatchNorm_backward", [Pure]> {
  let summary = "Gradient of BatchNorm's training forward (mx.BatchNorm_train)";
  let description = [{
    MXNet's BatchNorm backward in training mode with the forward's batch
    `mean` and `invstd` per channel (`axis`), `xhat = (data - mean) * invstd`
    and `M` the elements a channel:
    `beta_grad = sum(out_grad)`, `gamma_grad = sum(out_grad * xhat)`,
    `data_grad = gamma * invstd / M * (M * out_grad - beta_grad - xhat *
    gamma_grad)`, sums over every axis but `axis`. `eps` is the forward's
    (cuDNN asks for it). Results have the types of `data`, `gamma`, `gamma`.

    Example:

    ```mlir
    %dx, %dgamma, %dbeta = mx.BatchNorm_backward %dy, %x, %gamma, %mean, %invstd {axis = 1 : i64, eps = 1.0e-3 : f64} : (tensor<8x16x4x4xf32>, tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>)
    ```
  }];
  let arguments = (ins
    MX_FloatTensor:$out_grad,
    MX_FloatTensor:$data,
    MX_FloatTensor:$gamma,
    MX_FloatTensor:$mean,
    MX_FloatTensor:$invstd,
    DefaultValuedAttr<F64Attr, "0.001">:$eps,
    DefaultValuedAttr<I64Attr, "1">:$axis
  );
  let results = (outs MX_FloatTensor:$data_grad, MX_FloatTensor:$gamma_grad,
                      MX_FloatTensor:$beta_grad);
  let assemblyFormat = [{
    $out_grad `,` $data `,` $gamma `,` $mean `,` $invstd attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def MX_SoftmaxBackwardOp : MX_Op<"softmax_backward", [Pure]> {
  let summary = "Gradient of softmax / log_softmax from the forward's output";
  let description = [{
    MXNet's softmax gradient (src/operator/nn/softmax-inl.h SoftmaxGrad) along
    `axis`, from the forward's `output` y and the head gradient:
    `data_grad = y * (out_grad - sum(out_grad * y))`, with `log`
    (log_softmax) `data_grad = out_grad - exp(y) * sum(out_grad)`, sums along
    `axis` (a temperature's 1 / t is the caller's). Built by the gradient
    rule of softmax / log_softmax; on the CPU it lowers to generated kernels,
    on the CUDA target (f32 / f64) to cuDNN's softmax gradient. Operands and
    result have `output`'s type.

    Example:

    ```mlir
    %dx = mx.softmax_backward %dy, %y {axis = 1 : i64} : (tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
    ```
  }];
  let arguments = (ins
    MX_FloatTensor:$out_grad,
    MX_FloatTensor:$output,
    DefaultValuedAttr<I64Attr, "-1">:$axis,
    DefaultValuedAttr<BoolAttr, "false">:$log
  );
  let results = (outs MX_FloatTensor:$data_grad);
  let assemblyFormat = [{
    $out_grad `,` $output attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // MXC_DIALECT_MX_IR_MXBACKWARDOPS_TD
