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

/// MXNet's tuple of floats attribute ("(0.5, 2)", "[1.0]": MultiBoxPrior's
/// sizes, the detection ops' variances); nullopt when malformed.
std::optional<llvm::SmallVector<double>> parseFloatTuple(llvm::StringRef text);

/// RNN's gates per cell: 1 (rnn_relu, rnn_tanh), 4 (lstm), 3 (gru); 0 for
/// another mode.
int64_t rnnGates(llvm::StringRef mode);
/// The length of RNN's flat `parameters` vector (MXNet's GetRnnParamSize
/// without projection): per layer and direction G*H x (input + H) weights
/// and 2 * G*H biases, the input of a layer above the first being D*H.
int64_t rnnParamSize(int64_t numLayers, int64_t inputSize, int64_t stateSize,
                     int64_t directions, llvm::StringRef mode);

/// Whether `op` is a composite (LayerNorm, InstanceNorm, GroupNorm,
/// L2Normalization, RNN, ...) that decomposeComposite rewrites.
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

/// topk's view of its data: (outer, n, inner) with the ordered axis in the
/// middle (`axis` negative from the end; absent: the flattened input, outer
/// = inner = 1). The lowering and the gradient rule share it.
struct OrderRows {
  int64_t outer = 1, n = 1, inner = 1;
};
OrderRows orderRows(llvm::ArrayRef<int64_t> shape, std::optional<int64_t> axis);

/// Discardable unit attributes of an `mx.Pooling` that mx-propagate-conv-layout
/// puts between fused convolutions: its data / output is in the runtime's
/// blocked channel layout (as mx.Convolution_fused's `blocked_data` /
/// `blocked_output`); the lowering then calls mxc_kernel_pooling_f32.
inline constexpr llvm::StringLiteral kBlockedDataAttr = "mx.blocked_data";
inline constexpr llvm::StringLiteral kBlockedOutputAttr = "mx.blocked_output";
} // namespace mxc::mx

#endif // MXC_DIALECT_MX_IR_MXOPS_H
