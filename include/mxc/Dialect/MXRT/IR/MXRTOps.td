//===- MXRTOps.td - mxrt dialect operations ----------------*- tablegen -*-===//
#ifndef MXC_DIALECT_MXRT_IR_MXRTOPS_TD
#define MXC_DIALECT_MXRT_IR_MXRTOPS_TD

include "mxc/Dialect/MXRT/IR/MXRTBase.td"
include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def MXRT_KernelCallOp : MXRT_Op<"kernel_call", [
    AttrSizedOperandSegments, DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<BufferizableOpInterface, [
        "bufferizesToMemoryRead", "bufferizesToMemoryWrite",
        "getAliasingValues", "bufferize"]>]> {
  let summary = "Calls a runtime kernel that reads `inputs` and writes `inits`";
  let description = [{
    A call of the runtime's C function `callee` (declared by
    `mxrt-lower-kernel-calls`, not here) in destination-passing style. The
    kernel reads every element of each input and overwrites every element of
    the first destination (`inits`) without reading it first; it keeps no
    reference to any buffer. Inputs and destinations never alias inside the
    kernel. A kernel that needs scratch memory (the im2col columns of the
    convolution gradients) takes it as a further destination, a
    `tensor.empty` whose result nobody uses, which it writes before reading
    and leaves with unspecified contents: the scratch is then an ordinary
    intermediate buffer that memory planning places, instead of an
    allocation inside the kernel.

    With `accumulate`, the kernel also reads the first destination before
    writing it (mxc_kernel_conv_fused adds its result to it): bufferization
    then keeps the destination's contents, writing in place when the value
    has no later use and into a copy otherwise.

    On tensors (before bufferization) the op returns the updated `inits`
    and has no side effects. One-shot bufferization then knows that the
    inputs are read at the op itself, wherever CSE or any other pass moved
    their producers, and that only the destinations' buffers are written.
    Each buffer is made contiguous (static strides, any offset) on the way,
    with a copy only when its layout does not guarantee that.

    On memrefs (after bufferization) the op has no result; every operand is
    statically shaped and contiguous row-major. `mxrt-lower-kernel-calls`
    then passes each as a rank-1 `memref<?xT, strided<[1], offset: ?>>`,
    inputs first and destinations last, followed by `static_args` as `i64`s.

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
                       Variadic<AnyShaped>:$inits,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$static_args,
                       UnitAttr:$accumulate);
  let results = (outs Variadic<AnyRankedTensor>:$outputs);

  let assemblyFormat = [{
    $callee `(` $inputs `)` `outs` `(` $inits `)` (`args` $static_args^)?
    attr-dict `:` functional-type(operands, results)
  }];

  let builders = [
    // The tensor form: the results have the types of `inits`.
    OpBuilder<(ins "::llvm::StringRef":$callee, "::mlir::ValueRange":$inputs,
                   "::mlir::ValueRange":$inits,
                   "::llvm::ArrayRef<int64_t>":$staticArgs,
                   CArg<"bool", "false">:$accumulate)>,
  ];

  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getInitsMutable();
    }
    /// The first destination and its result (null on memrefs): the kernel's
    /// output; further destinations are scratch.
    ::mlir::Value getInit() { return getInits().front(); }
    ::mlir::Value getResult() {
      return getOutputs().empty() ? ::mlir::Value() : getOutputs().front();
    }
  }];

  let hasVerifier = 1;
}

#endif // MXC_DIALECT_MXRT_IR_MXRTOPS_TD
