//===- Passes.td - mx conversion passes --------------------*- tablegen -*-===//
#ifndef MXC_CONVERSION_PASSES_TD
#define MXC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertMXToLinalgPass : Pass<"convert-mx-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower mx ops to linalg/tensor/arith/math (inference semantics)";
  let description = [{
    Lowers every `mx` op to the `linalg`, `tensor`, `arith` and `math`
    dialects on tensors, with forward (inference) semantics: Dropout is the
    identity, BatchNorm uses its moving statistics, SoftmaxOutput is a
    softmax. GEMM-class ops (FullyConnected, dot, batch_dot, Convolution) become
    `mxrt.kernel_call`s of the runtime's kernel ABI (`mxc_kernel_*`, OpenBLAS
    behind it) where that is faster than generated code. An op a pattern cannot lower (an
    unsupported attribute combination) fails the pass with an error at the
    op's location, which is its MXNet node name.

    ```mlir
    // before
    %0 = mx.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    // after
    %e = tensor.empty() : tensor<2x3xf32>
    %0 = linalg.generic {...} ins(%x : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
      ^bb0(%a: f32, %b: f32):
        %z = arith.constant 0.0 : f32
        %m = arith.maximumf %a, %z : f32
        linalg.yield %m : f32
    } -> tensor<2x3xf32>
    ```
  }];
  let dependentDialects = [
    "mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
    "mlir::arith::ArithDialect", "mlir::math::MathDialect",
    "mlir::func::FuncDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect",
    "mxc::mxrt::MXRTDialect",
  ];
}

#endif // MXC_CONVERSION_PASSES_TD
