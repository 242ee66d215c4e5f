//===- Passes.td - mxrt passes -----------------------------*- tablegen -*-===//
#ifndef MXC_DIALECT_MXRT_TRANSFORMS_PASSES_TD
#define MXC_DIALECT_MXRT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerKernelCallsPass : Pass<"mxrt-lower-kernel-calls", "mlir::ModuleOp"> {
  let summary = "Lower bufferized mxrt.kernel_call ops to func.call";
  let description = [{
    Replaces every `mxrt.kernel_call` on memrefs by a `func.call` of its
    callee with the runtime's kernel ABI (runtime/src/kernels/kernels.h):
    each buffer as a rank-1 `memref<?xT, strided<[1], offset: ?>>` view
    (inputs, then the destination), then the static arguments as `i64`
    constants. The callee is declared `func.func private` in the module
    once. A kernel call still on tensors is an error: run after
    bufferization.

    ```mlir
    // before
    mxrt.kernel_call @mxc_kernel_gemm_f32(%a, %b) outs(%c) args [1, 2, 5, 3, 0, 0]
      : (memref<2x3xf32>, memref<3x5xf32>, memref<2x5xf32>) -> ()
    // after
    %av = memref.collapse_shape %a [[0, 1]] : memref<2x3xf32> into memref<6xf32>
    %ac = memref.cast %av : memref<6xf32> to memref<?xf32, strided<[1], offset: ?>>
    ... (the same for %b and %c)
    %c1 = arith.constant 1 : i64
    ...
    call @mxc_kernel_gemm_f32(%ac, %bc, %cc, %c1, %c2, %c5, %c3, %c0, %c0)
      : (memref<?xf32, strided<[1], offset: ?>>, ..., i64, ...) -> ()
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::memref::MemRefDialect",
  ];
}

#endif // MXC_DIALECT_MXRT_TRANSFORMS_PASSES_TD
