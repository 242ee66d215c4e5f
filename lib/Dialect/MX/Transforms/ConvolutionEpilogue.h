//===- ConvolutionEpilogue.h - what mx.Convolution_fused folds -*- C++ -*-===//
//
// The pieces of an mx.Convolution_fused epilogue that mx-fuse-convolution
// matches after a convolution and mx-propagate-conv-layout after a blocked
// tensor (a BatchNorm -> relu of its own, as a depthwise 1x1 fused
// convolution). FuseConvolution.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_LIB_DIALECT_MX_TRANSFORMS_CONVOLUTIONEPILOGUE_H
#define MXC_LIB_DIALECT_MX_TRANSFORMS_CONVOLUTIONEPILOGUE_H

#include "mxc/Dialect/MX/IR/MXOps.h"

#include "mlir/IR/Builders.h"

#include <utility>

namespace mxc::mx {

/// An activation mx.Convolution_fused applies: `kind` "relu" or "clip" (to
/// [min, max]).
struct ConvActivation {
  mlir::Operation *op = nullptr;
  llvm::StringRef kind;
  double min = 0, max = 0;
};

/// `user` (may be null) as an activation of `cur` with `cur`'s type:
/// Activation(relu), relu or clip.
bool matchConvActivation(mlir::Operation *user, mlir::Value cur,
                         ConvActivation &act);

/// Whether `bn` normalises `data` (its operand) in inference form on axis 1
/// (its hidden mean / var results unused: the moving statistics) with
/// static f32 parameters, so that it is a per-channel scale and shift.
bool isInferenceBatchNorm(BatchNormOp bn);

/// `bn`'s per-channel scale = gamma / sqrt(moving_var + eps) (1 / sqrt(...)
/// with fix_gamma) and shift = beta - moving_mean * scale, as mx ops at `b`.
std::pair<mlir::Value, mlir::Value>
batchNormScaleShift(mlir::OpBuilder &b, mlir::Location loc, BatchNormOp bn);

} // namespace mxc::mx

#endif // MXC_LIB_DIALECT_MX_TRANSFORMS_CONVOLUTIONEPILOGUE_H
