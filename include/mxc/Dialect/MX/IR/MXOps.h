//===- MXOps.h - mx dialect operations --------------------------*- C++ -*-===//
#ifndef MXC_DIALECT_MX_IR_MXOPS_H
#define MXC_DIALECT_MX_IR_MXOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "mxc/Dialect/MX/IR/MXDialect.h"
#include "mxc/Dialect/MX/IR/MXInterfaces.h"

#define GET_OP_CLASSES
#include "mxc/Dialect/MX/IR/MXOps.h.inc"

namespace mxc::mx {
/// Deconvolution's effective padding and output adjustment per spatial
/// dimension (MXNet's DeconvolutionParam::InferPad: from `target_shape` when
/// it is set, else `pad` / `adj` with 0 for missing entries).
llvm::LogicalResult deconvolutionPadAdj(DeconvolutionOp op,
                                        llvm::SmallVectorImpl<int64_t> &pad,
                                        llvm::SmallVectorImpl<int64_t> &adj);

/// Whether `op` is a composite (LayerNorm, InstanceNorm, GroupNorm,
/// L2Normalization) that decomposeComposite rewrites.
bool isComposite(mlir::Operation *op);
/// Builds `op`'s computation from primitive mx ops before it; `results`
/// correspond to op's results (same types). Errors are emitted at the op.
llvm::LogicalResult decomposeComposite(mlir::OpBuilder &b, mlir::Operation *op,
                                       llvm::SmallVectorImpl<mlir::Value> &results);

/// Which elements slice / _slice_assign / _slice_assign_scalar select in
/// each axis of the data: `first`, `first + step`, ... (`size` of them).
struct SliceGeometry {
  llvm::SmallVector<int64_t> first, step, size;
};
/// MXNet's GetIndexRange + SetSliceOpOutputDimSize for `shape` and the
/// attribute strings `begin` / `end` / `step` (tuples of optional integers,
/// "(0, None)"); a dynamic sliced extent gives a dynamic size. Errors are
/// emitted at `loc` (when given) as `'<opName>' op ...`.
llvm::FailureOr<SliceGeometry>
sliceGeometry(std::optional<mlir::Location> loc, llvm::StringRef opName,
              llvm::ArrayRef<int64_t> shape, llvm::StringRef begin,
              llvm::StringRef end, llvm::StringRef step);
} // namespace mxc::mx

#endif // MXC_DIALECT_MX_IR_MXOPS_H
