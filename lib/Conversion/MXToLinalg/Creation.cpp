//===- Creation.cpp - mx -> linalg: creation operators --------------------===//
//
// _zeros / _ones / _full: linalg.fill of the value converted as C++'s
// DType(value) (bool: value != 0).
// _arange / _contrib_arange_like: a linalg.generic whose element i (row-major
// linear index) is DType(start) + (i / repeat) * DType(step), MXNet's
// range_fwd (see rangeElement for the arithmetic of each type).
// _eye: a linalg.generic, out[i, j] = j - i == k.
//
//===----------------------------------------------------------------------===//
#include "ElementUtils.h"
#include "Patterns.h"

#include "mxc/Dialect/MX/IR/MXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mxc::conversion::elem;

namespace {

/// DType(value) of the result's (MXNet) element type.
Value typedConstant(OpBuilder &b, Location loc, Type mxElt, double value) {
  ElemKind kind = kindOf(mxElt);
  if (kind.type.isInteger(1))
    return constant(b, loc, kind, value != 0.0 ? 1.0 : 0.0);
  return constant(b, loc, kind, value);
}

template <typename OpTy>
struct ConvertFill final : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes are not supported");
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    double value;
    if constexpr (std::is_same_v<OpTy, mxc::mx::ZerosOp>)
      value = 0.0;
    else if constexpr (std::is_same_v<OpTy, mxc::mx::OnesOp>)
      value = 1.0;
    else
      value = op.getValue().convertToDouble();
    Type converted = this->getTypeConverter()->convertType(type);
    auto ctype = cast<RankedTensorType>(converted);
    Location loc = op.getLoc();
    Value c = typedConstant(rewriter, loc, type.getElementType(), value);
    rewriter.replaceOp(op, filledTensor(rewriter, loc, ctype.getShape(),
                                        ctype.getElementType(), c));
    return success();
  }
};

/// A linalg.generic over `type` whose element is `payload(b, l, indices)`
/// (index values), converted from f64 (arange) or given in the element type.
Value buildIndexed(
    OpBuilder &rewriter, Location loc, RankedTensorType ctype,
    llvm::function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> payload) {
  int64_t rank = ctype.getRank();
  Value empty = emptyTensor(rewriter, loc, ctype.getShape(),
                            ctype.getElementType());
  AffineMap id = rewriter.getMultiDimIdentityMap(rank);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{ctype}, ValueRange{}, ValueRange{empty},
      ArrayRef<AffineMap>{id}, iters,
      [&](OpBuilder &b, Location l, ValueRange) {
        SmallVector<Value> idx;
        for (int64_t d = 0; d < rank; ++d)
          idx.push_back(linalg::IndexOp::create(b, l, d));
        linalg::YieldOp::create(b, l, payload(b, l, idx));
      });
  return generic.getResult(0);
}

/// MXNet's range_fwd for the row-major linear index i of `idx` in `shape`:
/// out = DType(start) + (i / repeat) * DType(step), in the arithmetic C++
/// gives those types: floats in the element type (float16 / bfloat16 in
/// float32, rounded once at the end, as mshadow's half_t promotes), integers
/// in int64 truncated to the element width (two's complement, as MXNet's
/// unsigned path), bool as the non-zero test of the integer result.
Value rangeElement(OpBuilder &b, Location l, ArrayRef<Value> idx,
                   ArrayRef<int64_t> shape, double start, double step,
                   int64_t repeat, Type mxElt, Type convertedElt) {
  Type i64 = b.getI64Type();
  auto cst = [&](int64_t v) {
    return arith::ConstantOp::create(b, l, i64, b.getI64IntegerAttr(v))
        .getResult();
  };
  Value lin = cst(0);
  for (auto [d, i] : llvm::enumerate(idx)) {
    Value iv = arith::IndexCastOp::create(b, l, i64, i);
    lin = arith::AddIOp::create(
        b, l, arith::MulIOp::create(b, l, lin, cst(shape[d])), iv);
  }
  if (repeat > 1)
    lin = arith::DivUIOp::create(b, l, lin, cst(repeat));
  Value v;
  if (auto ft = dyn_cast<FloatType>(mxElt)) {
    // DType(start), DType(step): rounded to the element type first.
    auto rounded = [&](double x) {
      llvm::APFloat f(x);
      bool lost;
      f.convert(ft.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
      f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
      return f.convertToDouble();
    };
    FloatType ct = ft.getWidth() < 32 ? b.getF32Type() : ft;
    Value x = arith::SIToFPOp::create(b, l, ct, lin);
    x = arith::MulFOp::create(
        b, l, x,
        arith::ConstantOp::create(b, l, b.getFloatAttr(ct, rounded(step))));
    x = arith::AddFOp::create(
        b, l,
        arith::ConstantOp::create(b, l, b.getFloatAttr(ct, rounded(start))),
        x);
    v = ct == ft ? x : Value(arith::TruncFOp::create(b, l, ft, x));
  } else {
    auto it = cast<IntegerType>(mxElt);
    Value x = arith::AddIOp::create(
        b, l, cst(static_cast<int64_t>(start)),
        arith::MulIOp::create(b, l, lin, cst(static_cast<int64_t>(step))));
    if (it.getWidth() == 1)
      v = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, x, cst(0));
    else if (it.getWidth() < 64)
      v = arith::TruncIOp::create(b, l, signless(it), x);
    else
      v = x;
  }
  return castSignedness(b, l, v, convertedElt);
}

template <typename OpTy>
struct ConvertRange final : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes are not supported");
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    auto ctype =
        cast<RankedTensorType>(this->getTypeConverter()->convertType(type));
    double start = op.getStart().convertToDouble();
    double step = op.getStep().convertToDouble();
    if constexpr (std::is_same_v<OpTy, mxc::mx::ArangeOp>) {
      if (!op.getStop())
        start = 0.0; // [0, start)
    }
    int64_t repeat = static_cast<int64_t>(op.getRepeat());
    Type elt = type.getElementType();
    ArrayRef<int64_t> shape = type.getShape();
    Value r = buildIndexed(
        rewriter, op.getLoc(), ctype,
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx) {
          return rangeElement(b, l, idx, shape, start, step, repeat, elt,
                              ctype.getElementType());
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct ConvertEye final : OpConversionPattern<mxc::mx::EyeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mxc::mx::EyeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes are not supported");
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    auto ctype = cast<RankedTensorType>(getTypeConverter()->convertType(type));
    int64_t k = static_cast<int64_t>(op.getK());
    Type elt = type.getElementType();
    Value r = buildIndexed(
        rewriter, op.getLoc(), ctype,
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx) -> Value {
          Value diff = arith::SubIOp::create(b, l, idx[1], idx[0]);
          Value on = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::eq, diff,
              arith::ConstantIndexOp::create(b, l, k));
          Value one = castSignedness(b, l, typedConstant(b, l, elt, 1.0),
                                     ctype.getElementType());
          Value zero = castSignedness(b, l, typedConstant(b, l, elt, 0.0),
                                      ctype.getElementType());
          return arith::SelectOp::create(b, l, on, one, zero);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void mxc::conversion::populateCreationPatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  target.addIllegalOp<mxc::mx::ZerosOp, mxc::mx::OnesOp, mxc::mx::FullOp,
                      mxc::mx::ArangeOp, mxc::mx::ArangeLikeOp,
                      mxc::mx::EyeOp>();
  patterns.add<ConvertFill<mxc::mx::ZerosOp>, ConvertFill<mxc::mx::OnesOp>,
               ConvertFill<mxc::mx::FullOp>, ConvertRange<mxc::mx::ArangeOp>,
               ConvertRange<mxc::mx::ArangeLikeOp>, ConvertEye>(
      typeConverter, patterns.getContext());
}
