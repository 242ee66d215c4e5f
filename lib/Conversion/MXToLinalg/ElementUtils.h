//===- ElementUtils.h - element and shape helpers for mx -> linalg -*- C++
//-*-===//
//
// Helpers shared by the Elementwise, Reduction and DataMovement families:
// MXNet element types as arith sees them (signless, plus an unsigned flag for
// ui8), C++-style conversions between them, constants, fills, and reshapes
// between static shapes.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_LIB_CONVERSION_MXTOLINALG_ELEMENTUTILS_H
#define MXC_LIB_CONVERSION_MXTOLINALG_ELEMENTUTILS_H

#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <numeric>

namespace mxc::conversion::elem {

using mxc::conversion::hasStaticShapes;

/// An element type as payload code sees it: signless, plus whether the MXNet
/// type was unsigned (ui8).
struct ElemKind {
  mlir::Type type;
  bool isUnsigned = false;
  bool isFloat() const { return llvm::isa<mlir::FloatType>(type); }
};

/// The signless form of `t` (ui8 -> i8); other types unchanged.
inline mlir::Type signless(mlir::Type t) {
  if (auto it = llvm::dyn_cast<mlir::IntegerType>(t); it && !it.isSignless())
    return mlir::IntegerType::get(t.getContext(), it.getWidth());
  return t;
}

inline ElemKind kindOf(mlir::Type t) {
  auto it = llvm::dyn_cast<mlir::IntegerType>(t);
  return {signless(t), it && it.isUnsigned()};
}

/// Reinterprets `v` as `to` when the two differ only in signedness: linalg
/// block arguments keep the tensor's element type (ui8), arith wants i8.
/// reconcile-unrealized-casts removes the cast once both sides are LLVM i8.
inline mlir::Value castSignedness(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value v, mlir::Type to) {
  if (v.getType() == to)
    return v;
  return mlir::UnrealizedConversionCastOp::create(b, loc, to, v).getResult(0);
}

/// The constant `value` of `kind`, as C++'s DType(value) (integers truncate).
inline mlir::Value constant(mlir::OpBuilder &b, mlir::Location loc,
                            ElemKind kind, double value) {
  if (auto ft = llvm::dyn_cast<mlir::FloatType>(kind.type))
    return mlir::arith::ConstantOp::create(b, loc, kind.type,
                                           b.getFloatAttr(ft, value));
  auto it = llvm::cast<mlir::IntegerType>(kind.type);
  llvm::APInt bits =
      kind.isUnsigned && value >= 0
          ? llvm::APInt(it.getWidth(), static_cast<uint64_t>(value), false,
                        /*implicitTrunc=*/true)
          : llvm::APInt(it.getWidth(), static_cast<int64_t>(value), true,
                        /*implicitTrunc=*/true);
  return mlir::arith::ConstantOp::create(b, loc, kind.type,
                                         b.getIntegerAttr(it, bits));
}

/// static_cast<To>(v) between MXNet element types (Cast's semantics): floats
/// truncate toward zero into integers, bool(x) is x != 0, bool and unsigned
/// sources zero-extend.
inline mlir::Value convertElement(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value v, ElemKind from, ElemKind to) {
  using namespace mlir;
  Type src = from.type, dst = to.type;
  if (src == dst)
    return v;
  auto srcF = dyn_cast<FloatType>(src), dstF = dyn_cast<FloatType>(dst);
  if (srcF && dstF) {
    if (srcF.getWidth() == dstF.getWidth()) { // f16 <-> bf16 through f32
      Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
      return arith::TruncFOp::create(b, loc, dst, wide);
    }
    if (srcF.getWidth() < dstF.getWidth())
      return arith::ExtFOp::create(b, loc, dst, v);
    return arith::TruncFOp::create(b, loc, dst, v);
  }
  bool srcUnsigned = from.isUnsigned || src.isInteger(1);
  if (dstF)
    return srcUnsigned ? Value(arith::UIToFPOp::create(b, loc, dst, v))
                       : Value(arith::SIToFPOp::create(b, loc, dst, v));
  if (dst.isInteger(1)) { // bool(x): non-zero is true
    if (srcF)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v,
                                   constant(b, loc, from, 0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                                 constant(b, loc, from, 0));
  }
  if (srcF)
    return to.isUnsigned ? Value(arith::FPToUIOp::create(b, loc, dst, v))
                         : Value(arith::FPToSIOp::create(b, loc, dst, v));
  unsigned sw = src.getIntOrFloatBitWidth(), dw = dst.getIntOrFloatBitWidth();
  if (sw == dw)
    return v;
  if (sw > dw)
    return arith::TruncIOp::create(b, loc, dst, v);
  return srcUnsigned ? Value(arith::ExtUIOp::create(b, loc, dst, v))
                     : Value(arith::ExtSIOp::create(b, loc, dst, v));
}

/// An uninitialised tensor of `shape` and `elementType`.
inline mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                               llvm::ArrayRef<int64_t> shape,
                               mlir::Type elementType) {
  return mlir::tensor::EmptyOp::create(b, loc, shape, elementType);
}

/// A tensor of `shape` x `elementType` filled with `value` (given in the
/// signless form of `elementType`).
inline mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                                llvm::ArrayRef<int64_t> shape,
                                mlir::Type elementType, mlir::Value value) {
  mlir::Value empty = emptyTensor(b, loc, shape, elementType);
  if (value.getType() == elementType)
    return mlir::linalg::FillOp::create(b, loc, value, empty).getResult(0);
  // ui8: the signless value cast inside a generic's body, as the other
  // payloads do (a linalg.fill of a cast value reaches LLVM as a ui8 store).
  auto type = mlir::RankedTensorType::get(shape, elementType);
  mlir::AffineMap id = b.getMultiDimIdentityMap(shape.size());
  llvm::SmallVector<mlir::utils::IteratorType> iters(
      shape.size(), mlir::utils::IteratorType::parallel);
  return mlir::linalg::GenericOp::create(
             b, loc, mlir::TypeRange{type}, mlir::ValueRange{},
             mlir::ValueRange{empty}, llvm::ArrayRef<mlir::AffineMap>{id},
             iters,
             [&](mlir::OpBuilder &nb, mlir::Location l, mlir::ValueRange) {
               mlir::linalg::YieldOp::create(
                   nb, l, castSignedness(nb, l, value, elementType));
             })
      .getResult(0);
}

/// `v` (static shape) reshaped to `shape` with the same element count: one
/// collapse_shape or expand_shape when the extents group, else a collapse to
/// 1-D followed by an expand.
inline mlir::Value reshapeTo(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value v, llvm::ArrayRef<int64_t> shape) {
  using namespace mlir;
  auto src = cast<RankedTensorType>(v.getType());
  if (src.getShape() == shape)
    return v;
  auto target = RankedTensorType::get(shape, src.getElementType());
  // Rank 0 on either side: the empty reassociation.
  if (src.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, target, v,
                                         ArrayRef<ReassociationIndices>{});
  if (target.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, target, v,
                                           ArrayRef<ReassociationIndices>{});
  if (src.getRank() > target.getRank())
    if (auto r = getReassociationIndicesForCollapse(src.getShape(), shape))
      return tensor::CollapseShapeOp::create(b, loc, target, v, *r);
  if (src.getRank() < target.getRank())
    if (auto r = getReassociationIndicesForCollapse(shape, src.getShape()))
      return tensor::ExpandShapeOp::create(b, loc, target, v, *r);
  // Through 1-D.
  auto all = [](int64_t rank) {
    ReassociationIndices r(rank);
    std::iota(r.begin(), r.end(), 0);
    return SmallVector<ReassociationIndices>{r};
  };
  Value flat = v;
  if (src.getRank() != 1)
    flat = tensor::CollapseShapeOp::create(b, loc, v, all(src.getRank()));
  if (target.getRank() == 1)
    return flat;
  return tensor::ExpandShapeOp::create(b, loc, target, flat,
                                       all(target.getRank()));
}

} // namespace mxc::conversion::elem

#endif // MXC_LIB_CONVERSION_MXTOLINALG_ELEMENTUTILS_H
