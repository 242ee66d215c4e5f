//===- LinalgFusion.h - when not to fuse elementwise linalg ops -*- C++ -*-===//
//
// Shared by the lowering of mx.fused (lib/Conversion/MXToLinalg/Fused.cpp)
// and mxc-fuse-elementwise-ops (lib/Compiler/Transforms), which both fuse
// linalg.generic producers into their consumers. MLIR only.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_CONVERSION_LINALGFUSION_H
#define MXC_CONVERSION_LINALGFUSION_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mxc {

/// Whether fusing the producer of `operand` into its consumer would
/// compute the producer's body once per consumer iteration instead of once
/// per producer element: the consumer reads the value through a
/// broadcasting (non-permutation) map, and the producer's body does more
/// than yield its inputs. BatchNorm's 1 / sqrt(moving_var + eps) is the case
/// in point: per channel, it costs a square root and a division; fused into
/// the NCHW loop, one per element (ResNet-50's BatchNorm + relu steps ran
/// 2-4x longer than a pass over memory).
inline bool fusionRecomputesProducer(mlir::OpOperand *operand) {
  auto consumer = llvm::dyn_cast<mlir::linalg::GenericOp>(operand->getOwner());
  auto producer = operand->get().getDefiningOp<mlir::linalg::GenericOp>();
  if (!consumer || !producer)
    return false;
  if (consumer.getMatchingIndexingMap(operand).isPermutation())
    return false;
  mlir::Block &body = producer.getRegion().front();
  return !llvm::hasSingleElement(body.getOperations());
}

} // namespace mxc

#endif // MXC_CONVERSION_LINALGFUSION_H
