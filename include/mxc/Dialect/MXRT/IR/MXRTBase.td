//===- MXRTBase.td - mxrt dialect base definitions ---------*- tablegen -*-===//
//
// The `mxrt` dialect: calls into the mxc runtime's library kernels
// (runtime/src/kernels/kernels.h), on tensors before bufferization and on
// memrefs after it.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_DIALECT_MXRT_IR_MXRTBASE_TD
#define MXC_DIALECT_MXRT_IR_MXRTBASE_TD

include "mlir/IR/OpBase.td"

def MXRT_Dialect : Dialect {
  let name = "mxrt";
  let cppNamespace = "::mxc::mxrt";
  let summary = "Calls into the mxc runtime's kernel ABI";
  let description = [{
    Operations that stand for calls of the runtime's C kernels
    (`mxc_kernel_*`) while the IR is still on tensors, so that one-shot
    bufferization sees exactly which buffers a kernel reads and which one it
    writes. After bufferization, `mxrt-lower-kernel-calls` turns them into
    `func.call`s with the runtime's C ABI.
  }];
  let dependentDialects = [
    "mlir::bufferization::BufferizationDialect",
    "mlir::memref::MemRefDialect",
  ];
}

class MXRT_Op<string mnemonic, list<Trait> traits = []>
    : Op<MXRT_Dialect, mnemonic, traits>;

#endif // MXC_DIALECT_MXRT_IR_MXRTBASE_TD
