//===- Patterns.h - mx -> linalg pattern families ---------------*- C++ -*-===//
//
// Each family file exports one populate function that pairs
// `target.addIllegalOp<X>()` with `patterns.add<ConvertX>()` for its ops.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_LIB_CONVERSION_MXTOLINALG_PATTERNS_H
#define MXC_LIB_CONVERSION_MXTOLINALG_PATTERNS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mxc::conversion {

#define MXC_DECLARE_FAMILY(Family)                                             \
  void populate##Family##PatternsAndLegality(mlir::TypeConverter &typeConverter, \
                                             mlir::RewritePatternSet &patterns,  \
                                             mlir::ConversionTarget &target);
/// Unary/binary/broadcast/scalar elementwise ops, Activation, LeakyReLU,
/// clip, where, zeros_like/ones_like, Cast, identity, BlockGrad, Dropout.
MXC_DECLARE_FAMILY(Elementwise)
/// FullyConnected, dot, batch_dot.
MXC_DECLARE_FAMILY(Linear)
/// Convolution.
MXC_DECLARE_FAMILY(Conv)
/// Pooling.
MXC_DECLARE_FAMILY(Pooling)
/// BatchNorm (inference), LRN.
MXC_DECLARE_FAMILY(Normalization)
/// sum, mean, max, min, argmax, softmax, log_softmax, SoftmaxOutput.
MXC_DECLARE_FAMILY(Reduction)
/// Reshape, Flatten, transpose, expand_dims, slice_axis, Concat, one_hot.
MXC_DECLARE_FAMILY(DataMovement)
/// mxc's training-form ops (MXTrainingOps.td): random masks, ...
MXC_DECLARE_FAMILY(Training)
/// Backward ops of layers (MXBackwardOps.td): convolution, pooling, LRN.
MXC_DECLARE_FAMILY(Backward)
/// _zeros, _ones, _full, _arange, _eye, _contrib_arange_like.
MXC_DECLARE_FAMILY(Creation)
/// topk (sort and argsort are its composites): the runtime's kernel.
MXC_DECLARE_FAMILY(Ordering)
/// mx.fused (MXFusedOps.td): the region's ops as one loop nest.
MXC_DECLARE_FAMILY(Fused)
#undef MXC_DECLARE_FAMILY

/// Whether every operand and result of `op` has a static shape (the
/// lowerings handle static shapes only).
inline bool hasStaticShapes(mlir::Operation *op) {
  auto isStatic = [](mlir::Type t) {
    auto s = llvm::dyn_cast<mlir::ShapedType>(t);
    return s && s.hasStaticShape();
  };
  return llvm::all_of(op->getOperandTypes(), isStatic) &&
         llvm::all_of(op->getResultTypes(), isStatic);
}

} // namespace mxc::conversion

#endif // MXC_LIB_CONVERSION_MXTOLINALG_PATTERNS_H
