//===- Training.cpp - mx -> linalg: training-form ops ---------------------===//
//
// mx.dropout_mask: one linalg.generic over the mask's shape; element i
// (row-major linear index) is
//   z = splitmix64(seed * 0x9e3779b97f4a7c15 + stream * 0xd1b54a32d192ed03 + i)
//   u = (z >> 11) * 2^-53                       (uniform in [0, 1))
//   mask = u < 1 - p ? 1 / (1 - p) : 0          (MXNet keeps u < pkeep)
// in i64 / f64 arithmetic, so it depends on nothing but (seed, stream, i).
//
// mx.random_uniform: low + (high - low) * u with the same u.
//
//===----------------------------------------------------------------------===//
#include "Patterns.h"

#include "mxc/Dialect/MX/IR/MXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {

/// A linalg.generic of `type` whose element i (row-major linear index) is
/// `finish(u)`, u = the documented splitmix64 uniform in [0, 1) (f64) of
/// (seed, stream, i).
Value buildUniform(OpBuilder &rewriter, Location loc, Value seedTensor,
                   int64_t stream, RankedTensorType type,
                   llvm::function_ref<Value(OpBuilder &, Location, Value)>
                       finish) {
  auto elt = cast<FloatType>(type.getElementType());
  Type i64 = rewriter.getI64Type();
  auto cst = [&](OpBuilder &b, uint64_t v) {
    return arith::ConstantOp::create(b, loc, i64,
                                     b.getI64IntegerAttr(int64_t(v)))
        .getResult();
  };
  Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(), elt);
  int64_t rank = type.getRank();
  AffineMap id = rewriter.getMultiDimIdentityMap(rank);
  // The seed (tensor<1xi64>) is read inside the generic, every element from
  // index 0 (not extracted before it: on a GPU a load outside the kernel
  // would be host code reading device memory).
  AffineMap seedMap =
      AffineMap::get(rank, 0, {rewriter.getAffineConstantExpr(0)},
                     rewriter.getContext());
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  ArrayRef<int64_t> shape = type.getShape();
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{type}, ValueRange{seedTensor}, ValueRange{empty},
      ArrayRef<AffineMap>{seedMap, id}, iters,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value base = arith::AddIOp::create(
            b, l, arith::MulIOp::create(b, l, args[0], cst(b, 0x9e3779b97f4a7c15ull)),
            cst(b, uint64_t(stream) * 0xd1b54a32d192ed03ull));
        Value lin = cst(b, 0);
        for (int64_t d = 0; d < rank; ++d) {
          Value idx = linalg::IndexOp::create(b, l, d);
          Value i = arith::IndexCastOp::create(b, l, i64, idx);
          lin = arith::AddIOp::create(
              b, l, arith::MulIOp::create(b, l, lin, cst(b, shape[d])), i);
        }
        // splitmix64 of base + lin.
        Value z = arith::AddIOp::create(b, l, base, lin);
        z = arith::AddIOp::create(b, l, z, cst(b, 0x9e3779b97f4a7c15ull));
        auto mix = [&](Value v, unsigned sh, uint64_t m) -> Value {
          Value x = arith::XOrIOp::create(
              b, l, v, arith::ShRUIOp::create(b, l, v, cst(b, sh)));
          return m ? Value(arith::MulIOp::create(b, l, x, cst(b, m))) : x;
        };
        z = mix(z, 30, 0xbf58476d1ce4e5b9ull);
        z = mix(z, 27, 0x94d049bb133111ebull);
        z = mix(z, 31, 0);
        Value top = arith::ShRUIOp::create(b, l, z, cst(b, 11));
        Value u = arith::UIToFPOp::create(b, l, b.getF64Type(), top);
        u = arith::MulFOp::create(
            b, l, u,
            arith::ConstantOp::create(b, l, b.getF64FloatAttr(0x1.0p-53)));
        linalg::YieldOp::create(b, l, finish(b, l, u));
      });
  return generic.getResult(0);
}

struct ConvertDropoutMask final : OpConversionPattern<mxc::mx::DropoutMaskOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mxc::mx::DropoutMaskOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!mxc::conversion::hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op,
                                         "dynamic shapes are not supported");
    auto type = cast<RankedTensorType>(op.getMask().getType());
    auto elt = cast<FloatType>(type.getElementType());
    double p = op.getP().convertToDouble();
    if (!(p >= 0.0 && p < 1.0))
      return rewriter.notifyMatchFailure(op, "p must be in [0, 1)");
    double keep = 1.0 - p, scale = 1.0 / keep;
    Value r = buildUniform(
        rewriter, op.getLoc(), adaptor.getSeed(),
        static_cast<int64_t>(op.getStream()), type,
        [&](OpBuilder &b, Location l, Value u) -> Value {
          Value kept = arith::CmpFOp::create(
              b, l, arith::CmpFPredicate::OLT, u,
              arith::ConstantOp::create(b, l, b.getF64FloatAttr(keep)));
          Value one =
              arith::ConstantOp::create(b, l, b.getFloatAttr(elt, scale));
          Value zero = arith::ConstantOp::create(b, l, b.getFloatAttr(elt, 0.0));
          return arith::SelectOp::create(b, l, kept, one, zero);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// mx.random_uniform: low + (high - low) * u, rounded to the element type.
struct ConvertRandomUniform final
    : OpConversionPattern<mxc::mx::RandomUniformOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mxc::mx::RandomUniformOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!mxc::conversion::hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op,
                                         "dynamic shapes are not supported");
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    auto elt = cast<FloatType>(type.getElementType());
    double low = op.getLow().convertToDouble();
    double high = op.getHigh().convertToDouble();
    Value r = buildUniform(
        rewriter, op.getLoc(), adaptor.getSeed(),
        static_cast<int64_t>(op.getStream()), type,
        [&](OpBuilder &b, Location l, Value u) -> Value {
          Value v = arith::AddFOp::create(
              b, l, arith::ConstantOp::create(b, l, b.getF64FloatAttr(low)),
              arith::MulFOp::create(
                  b, l, u,
                  arith::ConstantOp::create(b, l,
                                            b.getF64FloatAttr(high - low))));
          if (elt.getWidth() < 64)
            v = arith::TruncFOp::create(b, l, elt, v);
          return v;
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// mx.random_uniform: low + (high - low) * u with the same u.

} // namespace

void mxc::conversion::populateTrainingPatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  target.addIllegalOp<mxc::mx::DropoutMaskOp, mxc::mx::RandomUniformOp>();
  patterns.add<ConvertDropoutMask, ConvertRandomUniform>(
      typeConverter, patterns.getContext());
}
