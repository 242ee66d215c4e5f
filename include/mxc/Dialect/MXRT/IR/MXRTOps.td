//===- MXRTOps.td - mxrt dialect operations ----------------*- tablegen -*-===//
#ifndef MXC_DIALECT_MXRT_IR_MXRTOPS_TD
#define MXC_DIALECT_MXRT_IR_MXRTOPS_TD

include "mxc/Dialect/MXRT/IR/MXRTBase.td"
include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def MXRT_KernelCallOp : MXRT_Op<"kernel_call", [
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<BufferizableOpInterface, [
        "bufferizesToMemoryRead", "bufferizesToMemoryWrite",
        "getAliasingValues", "bufferize"]>]> {
  let summary = "Calls a runtime kernel that reads `inputs` and writes `init`";
  let description = [{
    A call of the runtime's C function `callee` (declared by
    `mxrt-lower-kernel-calls`, not here) in destination-passing style. The
    kernel reads every element of each input and overwrites every element of
    `init` without reading it; it keeps no reference to any buffer. Inputs
    and `init` never alias inside the kernel.

    On tensors (before bufferization) the op returns the updated `init` and
    has no side effects. One-shot bufferization then knows that the inputs
    are read at the op itself, wherever CSE or any other pass moved their
    producers, and that only `init`'s buffer is written. Each buffer is made
    contiguous (static strides, any offset) on the way, with a copy only when
    its layout does not guarantee that.

    On memrefs (after bufferization) the op has no result; every operand is
    statically shaped and contiguous row-major. `mxrt-lower-kernel-calls`
    then passes each as a rank-1 `memref<?xT, strided<[1], offset: ?>>`,
    inputs first and `init` last, followed by `static_args` as `i64`s.

    ```mlir
    %y = mxrt.kernel_call @mxc_kernel_gemm_f32(%a, %b) outs(%init)
           args [1, 4, 5, 3, 0, 0]
           : (tensor<4x3xf32>, tensor<3x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
    // after bufferization
    mxrt.kernel_call @mxc_kernel_gemm_f32(%ma, %mb) outs(%mc)
           args [1, 4, 5, 3, 0, 0]
           : (memref<4x3xf32>, memref<3x5xf32>, memref<4x5xf32>) -> ()
    ```
  }];

  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<AnyShaped>:$inputs,
                       AnyShaped:$init,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$static_args);
  let results = (outs Optional<AnyRankedTensor>:$result);

  let assemblyFormat = [{
    $callee `(` $inputs `)` `outs` `(` $init `)` (`args` $static_args^)?
    attr-dict `:` functional-type(operands, results)
  }];

  let builders = [
    // The tensor form: the result has the type of `init`.
    OpBuilder<(ins "::llvm::StringRef":$callee, "::mlir::ValueRange":$inputs,
                   "::mlir::Value":$init,
                   "::llvm::ArrayRef<int64_t>":$staticArgs)>,
  ];

  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getInitMutable();
    }
  }];

  let hasVerifier = 1;
}

#endif // MXC_DIALECT_MXRT_IR_MXRTOPS_TD
