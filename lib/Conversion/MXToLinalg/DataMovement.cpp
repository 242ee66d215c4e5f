//===- DataMovement.cpp - mx -> linalg: data movement ops -----------------===//
//
// Reshape, Flatten and expand_dims keep the element order: their inferred
// result type is reached with tensor.collapse_shape / expand_shape.
// transpose is linalg.transpose, slice_axis tensor.extract_slice, Concat a
// chain of tensor.insert_slice into a tensor.empty, and one_hot a
// linalg.generic comparing each index with the position on the new axis.
//
//===----------------------------------------------------------------------===//
#include "ElementUtils.h"
#include "Patterns.h"

#include "mxc/Dialect/MX/IR/MXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <numeric>

using namespace mlir;
using namespace mxc::conversion::elem;
namespace mx = mxc::mx;

namespace {

/// Common prologue: static shapes only.
#define MXC_REQUIRE_STATIC(op)                                                 \
  if (!hasStaticShapes(op))                                                    \
    return rewriter.notifyMatchFailure(op, "dynamic shapes are not "           \
                                           "supported");

/// Reshape, Flatten, expand_dims, squeeze, reshape_like: the data in the
/// inferred result shape.
template <typename OpTy>
struct ConvertReshapeLike final : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MXC_REQUIRE_STATIC(op);
    auto outType = cast<RankedTensorType>(op.getOutput().getType());
    // The first operand: data, or reshape_like's lhs (its rhs only gave a
    // shape).
    rewriter.replaceOp(op, reshapeTo(rewriter, op.getLoc(),
                                     adaptor.getOperands().front(),
                                     outType.getShape()));
    return success();
  }
};

struct ConvertTranspose final : OpConversionPattern<mx::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MXC_REQUIRE_STATIC(op);
    int64_t rank = op.getData().getType().getRank();
    // Empty axes reverse them.
    SmallVector<int64_t> perm(op.getAxes());
    if (perm.empty()) {
      perm.resize(rank);
      std::iota(perm.rbegin(), perm.rend(), 0);
    }
    for (int64_t &p : perm)
      if (p < 0)
        p += rank;
    auto outType = cast<RankedTensorType>(op.getOutput().getType());
    if (rank == 0) {
      rewriter.replaceOp(op, adaptor.getData());
      return success();
    }
    Value init = emptyTensor(rewriter, op.getLoc(), outType.getShape(),
                             outType.getElementType());
    auto t = linalg::TransposeOp::create(rewriter, op.getLoc(),
                                         adaptor.getData(), init, perm);
    rewriter.replaceOp(op, t.getResult()[0]);
    return success();
  }
};

struct ConvertSliceAxis final : OpConversionPattern<mx::SliceAxisOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::SliceAxisOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MXC_REQUIRE_STATIC(op);
    auto inType = op.getData().getType();
    auto outType = cast<RankedTensorType>(op.getOutput().getType());
    int64_t rank = inType.getRank();
    // I64Attr getters return uint64_t: read the axis as signed.
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    int64_t begin = static_cast<int64_t>(op.getBegin());
    if (begin < 0)
      begin += inType.getDimSize(axis);
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes, strides(rank, rewriter.getIndexAttr(1));
    offsets[axis] = rewriter.getIndexAttr(begin);
    for (int64_t extent : outType.getShape())
      sizes.push_back(rewriter.getIndexAttr(extent));
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, outType, adaptor.getData(), offsets, sizes, strides);
    return success();
  }
};

/// SwapAxis: mx.transpose with the two axes exchanged (lowered by
/// ConvertTranspose).
struct ConvertSwapAxis final : OpConversionPattern<mx::SwapAxisOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::SwapAxisOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t rank = op.getData().getType().getRank();
    auto norm = [&](int64_t a) { return a < 0 ? a + rank : a; };
    SmallVector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::swap(perm[norm(static_cast<int64_t>(op.getDim1()))],
              perm[norm(static_cast<int64_t>(op.getDim2()))]);
    rewriter.replaceOpWithNewOp<mx::TransposeOp>(
        op, adaptor.getData(), rewriter.getDenseI64ArrayAttr(perm));
    return success();
  }
};

/// The region that slice / _slice_assign(_scalar) select, as
/// extract_slice / insert_slice offsets, sizes and positive strides; a
/// negative step reads its elements in reverse: those axes are `reversed`.
struct SliceRegion {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  SmallVector<int64_t> reversed;
};

static FailureOr<SliceRegion> sliceRegion(OpBuilder &b, Operation *op,
                                          RankedTensorType data,
                                          StringRef begin, StringRef end,
                                          StringRef step) {
  FailureOr<mx::SliceGeometry> g = mx::sliceGeometry(
      op->getLoc(), op->getName().getStringRef(), data.getShape(), begin, end,
      step);
  if (failed(g))
    return failure();
  SliceRegion r;
  for (size_t i = 0; i < g->size.size(); ++i) {
    int64_t n = g->size[i], s = g->step[i], first = g->first[i];
    if (s < 0 && n > 0) {
      first += s * (n - 1); // the lowest index read
      s = -s;
      if (n > 1)
        r.reversed.push_back(i);
    }
    r.offsets.push_back(b.getIndexAttr(first));
    r.sizes.push_back(b.getIndexAttr(n));
    r.strides.push_back(b.getIndexAttr(s > 0 ? s : -s));
  }
  return r;
}

/// `v` with the order of its elements reversed along `axes`: mx.reverse
/// (lowered by Elementwise.cpp's ConvertReverse).
static Value reverseAxes(OpBuilder &b, Location loc, Value v,
                         ArrayRef<int64_t> axes) {
  if (axes.empty())
    return v;
  return mx::ReverseOp::create(b, loc, v, b.getDenseI64ArrayAttr(axes));
}

/// slice: an extract_slice with positive strides, then reversed along the
/// axes with negative steps.
struct ConvertSlice final : OpConversionPattern<mx::SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MXC_REQUIRE_STATIC(op);
    auto outType = cast<RankedTensorType>(op.getOutput().getType());
    FailureOr<SliceRegion> r =
        sliceRegion(rewriter, op, op.getData().getType(), op.getBegin(),
                    op.getEnd(), op.getStep());
    if (failed(r))
      return failure();
    Value part = tensor::ExtractSliceOp::create(
        rewriter, op.getLoc(), outType, adaptor.getData(), r->offsets,
        r->sizes, r->strides);
    rewriter.replaceOp(op, reverseAxes(rewriter, op.getLoc(), part, r->reversed));
    return success();
  }
};

/// _slice_assign / _slice_assign_scalar: an insert_slice of the (reversed)
/// rhs, or of a filled tensor, into the data.
template <typename OpTy>
struct ConvertSliceAssign final : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MXC_REQUIRE_STATIC(op);
    Location loc = op.getLoc();
    Value dest = adaptor.getOperands()[0];
    auto type = cast<RankedTensorType>(op->getOperand(0).getType());
    FailureOr<SliceRegion> r = sliceRegion(rewriter, op, type, op.getBegin(),
                                           op.getEnd(), op.getStep());
    if (failed(r))
      return failure();
    Value part;
    if constexpr (std::is_same_v<OpTy, mx::SliceAssignOp>) {
      part = reverseAxes(rewriter, loc, adaptor.getRhs(), r->reversed);
    } else {
      SmallVector<int64_t> shape;
      for (OpFoldResult s : r->sizes)
        shape.push_back(*getConstantIntValue(s));
      Type elt = type.getElementType();
      part = filledTensor(
          rewriter, loc, shape, elt,
          constant(rewriter, loc, kindOf(elt),
                   op.getScalar().convertToDouble()));
    }
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        op, part, dest, r->offsets, r->sizes, r->strides);
    return success();
  }
};

struct ConvertConcat final : OpConversionPattern<mx::ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MXC_REQUIRE_STATIC(op);
    auto outType = cast<RankedTensorType>(op.getOutput().getType());
    int64_t rank = outType.getRank();
    int64_t dim = static_cast<int64_t>(op.getDim()); // I64Attr: uint64_t
    if (dim < 0)
      dim += rank;
    Location loc = op.getLoc();
    Value result = emptyTensor(rewriter, loc, outType.getShape(),
                               outType.getElementType());
    int64_t offset = 0;
    for (Value in : adaptor.getData()) {
      auto type = cast<RankedTensorType>(in.getType());
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)), sizes,
          strides(rank, rewriter.getIndexAttr(1));
      offsets[dim] = rewriter.getIndexAttr(offset);
      for (int64_t extent : type.getShape())
        sizes.push_back(rewriter.getIndexAttr(extent));
      result = tensor::InsertSliceOp::create(rewriter, loc, in, result, offsets,
                                             sizes, strides);
      offset += type.getDimSize(dim);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// An index element (of kind `in`, as a linalg body sees it) as MXNet's
/// kernels read it, static_cast<int>, widened to i64.
Value indexAsI64(OpBuilder &b, Location l, Value element, ElemKind in) {
  Value idx = castSignedness(b, l, element, in.type);
  return convertElement(b, l, convertElement(b, l, idx, in, {b.getI32Type()}),
                        {b.getI32Type()}, {b.getI64Type()});
}

/// out[..., j] = j == int(indices[...]) ? on_value : off_value; indices
/// outside [0, depth) give a row of off_value (MXNet's one_hot kernel).
struct ConvertOneHot final : OpConversionPattern<mx::OneHotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::OneHotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MXC_REQUIRE_STATIC(op);
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto inType = op.getIndices().getType();
    auto outType = cast<RankedTensorType>(op.getOutput().getType());
    int64_t rank = outType.getRank();
    ElemKind in = kindOf(inType.getElementType());
    ElemKind out = kindOf(outType.getElementType());
    double on = op.getOnValue().convertToDouble();
    double off = op.getOffValue().convertToDouble();
    SmallVector<AffineExpr> lead;
    for (int64_t i = 0; i + 1 < rank; ++i)
      lead.push_back(getAffineDimExpr(i, ctx));
    SmallVector<AffineMap> maps{AffineMap::get(rank, 0, lead, ctx),
                                AffineMap::getMultiDimIdentityMap(rank, ctx)};
    Value init = emptyTensor(rewriter, loc, outType.getShape(),
                             outType.getElementType());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, outType, adaptor.getIndices(), init, maps,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          // static_cast<int>(index), compared as i64.
          Value i = indexAsI64(b, l, args[0], in);
          Value j = arith::IndexCastOp::create(
              b, l, b.getI64Type(), linalg::IndexOp::create(b, l, rank - 1));
          Value hit =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, i, j);
          Value v = arith::SelectOp::create(b, l, hit, constant(b, l, out, on),
                                            constant(b, l, out, off));
          linalg::YieldOp::create(
              b, l, castSignedness(b, l, v, outType.getElementType()));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// An i64 index moved into [0, extent): wrapped (Python's modulo) or
/// clipped, as MXNet's pick / take / Embedding kernels.
static Value inRangeIndex(OpBuilder &b, Location l, Value i, int64_t extent,
                          bool wrap) {
  Value n = arith::ConstantIntOp::create(b, l, b.getI64Type(), extent);
  Value zero = arith::ConstantIntOp::create(b, l, b.getI64Type(), 0);
  if (wrap) {
    Value r = arith::RemSIOp::create(b, l, i, n);
    Value neg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, r, zero);
    return arith::SelectOp::create(b, l, neg, arith::AddIOp::create(b, l, r, n),
                                   r);
  }
  Value last = arith::ConstantIntOp::create(b, l, b.getI64Type(), extent - 1);
  return arith::MaxSIOp::create(b, l, zero,
                                arith::MinSIOp::create(b, l, i, last));
}

/// pick: a generic over the result; each element reads its index (clipped
/// or wrapped into the axis, as MXNet's pick kernel: static_cast<int>) and
/// extracts that element of data.
struct ConvertPick final : OpConversionPattern<mx::PickOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::PickOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MXC_REQUIRE_STATIC(op);
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto dataType = op.getData().getType();
    auto indexType = op.getIndex().getType();
    auto outType = cast<RankedTensorType>(op.getOutput().getType());
    int64_t rank = dataType.getRank(), outRank = outType.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    bool keepdims = op.getKeepdims();
    bool wrap = op.getMode() == "wrap";
    int64_t extent = dataType.getShape()[axis];
    // The result's loop dimension of data dimension d (none for the axis
    // unless keepdims; a 1-D input's (1,) result has no data dimension).
    auto loopDim = [&](int64_t d) -> int64_t {
      if (keepdims)
        return d;
      if (d == axis || rank == 1)
        return -1;
      return d < axis ? d : d - 1;
    };
    // The index, read at the result's position: its dimensions are data's
    // less the axis, or with the axis as extent 1 (then a constant 0).
    SmallVector<AffineExpr> indexExprs;
    if (rank == 1) {
      indexExprs.push_back(getAffineConstantExpr(0, ctx));
    } else if (indexType.getRank() == rank) {
      for (int64_t d = 0; d < rank; ++d)
        indexExprs.push_back(d == axis ? getAffineConstantExpr(0, ctx)
                                       : getAffineDimExpr(loopDim(d), ctx));
    } else {
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis)
          indexExprs.push_back(getAffineDimExpr(loopDim(d), ctx));
    }
    SmallVector<AffineMap> maps{AffineMap::get(outRank, 0, indexExprs, ctx),
                                AffineMap::getMultiDimIdentityMap(outRank, ctx)};
    ElemKind in = kindOf(indexType.getElementType());
    Value data = adaptor.getData();
    Value init = emptyTensor(rewriter, loc, outType.getShape(),
                             outType.getElementType());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, outType, adaptor.getIndex(), init, maps,
        SmallVector<utils::IteratorType>(outRank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value i =
              inRangeIndex(b, l, indexAsI64(b, l, args[0], in), extent, wrap);
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d) {
            if (d == axis)
              at.push_back(
                  arith::IndexCastOp::create(b, l, b.getIndexType(), i));
            else
              at.push_back(linalg::IndexOp::create(b, l, loopDim(d)));
          }
          Value v = tensor::ExtractOp::create(b, l, data, at);
          linalg::YieldOp::create(
              b, l, castSignedness(b, l, v, outType.getElementType()));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// A gather along `axis` of `data` at `index` (take, Embedding): a generic
/// over the result `data[:axis] x index x data[axis+1:]`; each element reads
/// its index (truncated, as MXNet's static_cast<int>), clipped into the axis
/// or wrapped (Python's modulo), and extracts that element of data.
static Value gatherAlongAxis(OpBuilder &rewriter, Location loc, Value data,
                             Value index, ElemKind indexKind, int64_t axis,
                             bool wrap, RankedTensorType outType) {
  MLIRContext *ctx = rewriter.getContext();
  auto dataType = cast<RankedTensorType>(data.getType());
  auto indexType = cast<RankedTensorType>(index.getType());
  int64_t rank = dataType.getRank(), outRank = outType.getRank();
  int64_t m = indexType.getRank();
  int64_t extent = dataType.getShape()[axis];
  SmallVector<AffineExpr> indexExprs;
  for (int64_t d = 0; d < m; ++d)
    indexExprs.push_back(getAffineDimExpr(axis + d, ctx));
  SmallVector<AffineMap> maps{AffineMap::get(outRank, 0, indexExprs, ctx),
                              AffineMap::getMultiDimIdentityMap(outRank, ctx)};
  Value init =
      emptyTensor(rewriter, loc, outType.getShape(), outType.getElementType());
  auto generic = linalg::GenericOp::create(
      rewriter, loc, outType, index, init, maps,
      SmallVector<utils::IteratorType>(outRank, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value i = inRangeIndex(b, l, indexAsI64(b, l, args[0], indexKind),
                               extent, wrap);
        SmallVector<Value> at;
        for (int64_t d = 0; d < rank; ++d) {
          if (d < axis)
            at.push_back(linalg::IndexOp::create(b, l, d));
          else if (d == axis)
            at.push_back(arith::IndexCastOp::create(b, l, b.getIndexType(), i));
          else
            at.push_back(linalg::IndexOp::create(b, l, d + m - 1));
        }
        Value v = tensor::ExtractOp::create(b, l, data, at);
        linalg::YieldOp::create(
            b, l, castSignedness(b, l, v, outType.getElementType()));
      });
  return generic.getResult(0);
}

/// take: a gather along `axis` of `a`; mode 'raise' is an error (no check
/// at run time).
struct ConvertTake final : OpConversionPattern<mx::TakeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::TakeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MXC_REQUIRE_STATIC(op);
    if (op.getMode() == "raise")
      return rewriter.notifyMatchFailure(
          op, "mode='raise' (an error for an out-of-range index at run time) "
              "is not supported by mxc; use 'clip' or 'wrap'");
    auto aType = op.getA().getType();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += aType.getRank();
    Value r = gatherAlongAxis(
        rewriter, op.getLoc(), adaptor.getA(), adaptor.getIndices(),
        kindOf(op.getIndices().getType().getElementType()), axis,
        op.getMode() == "wrap",
        cast<RankedTensorType>(op.getOutput().getType()));
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// slice_like: the leading part of each axis, a tensor.extract_slice.
struct ConvertSliceLike final : OpConversionPattern<mx::SliceLikeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::SliceLikeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MXC_REQUIRE_STATIC(op);
    auto outType = cast<RankedTensorType>(op.getOutput().getType());
    int64_t rank = outType.getRank();
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)),
        strides(rank, rewriter.getIndexAttr(1)), sizes;
    for (int64_t d : outType.getShape())
      sizes.push_back(rewriter.getIndexAttr(d));
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, outType, adaptor.getData(), offsets, sizes, strides);
    return success();
  }
};

/// Pad: a generic over the result; along each padded axis the element read
/// is o - before, clamped (edge), mirrored (reflect), or, out of range,
/// replaced by the constant.
struct ConvertPad final : OpConversionPattern<mx::PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MXC_REQUIRE_STATIC(op);
    Location loc = op.getLoc();
    auto inType = op.getData().getType();
    auto outType = cast<RankedTensorType>(op.getOutput().getType());
    int64_t rank = outType.getRank();
    ArrayRef<int64_t> pad = op.getPadWidth();
    StringRef mode = op.getMode();
    ElemKind kind = kindOf(outType.getElementType());
    double cval = op.getConstantValue().convertToDouble();
    Value data = adaptor.getData();
    Value init =
        emptyTensor(rewriter, loc, outType.getShape(), outType.getElementType());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, outType, ValueRange{}, init,
        SmallVector<AffineMap>{
            AffineMap::getMultiDimIdentityMap(rank, op.getContext())},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          auto cst = [&](int64_t v) {
            return arith::ConstantIndexOp::create(b, l, v);
          };
          Value outside; // true where the element is the constant
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d) {
            Value o = linalg::IndexOp::create(b, l, d);
            int64_t before = pad[2 * d], n = inType.getDimSize(d);
            if (!before && !pad[2 * d + 1]) {
              at.push_back(o);
              continue;
            }
            Value i = arith::SubIOp::create(b, l, o, cst(before));
            Value lt0 =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, i, cst(0));
            Value geN =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, i, cst(n));
            if (mode == "reflect") {
              i = arith::SelectOp::create(b, l, lt0,
                                          arith::SubIOp::create(b, l, cst(0), i), i);
              i = arith::SelectOp::create(
                  b, l, geN, arith::SubIOp::create(b, l, cst(2 * (n - 1)), i), i);
            } else {
              if (mode == "constant") {
                Value out = arith::OrIOp::create(b, l, lt0, geN);
                outside = outside
                              ? Value(arith::OrIOp::create(b, l, outside, out))
                              : out;
              }
              i = arith::MaxSIOp::create(
                  b, l, cst(0), arith::MinSIOp::create(b, l, i, cst(n - 1)));
            }
            at.push_back(i);
          }
          Value v = tensor::ExtractOp::create(b, l, data, at);
          if (outside)
            v = arith::SelectOp::create(b, l, outside,
                                        constant(b, l, kind, cval), v);
          linalg::YieldOp::create(b, l, v);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// Embedding: rows of the weight at the clipped indices.
struct ConvertEmbedding final : OpConversionPattern<mx::EmbeddingOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MXC_REQUIRE_STATIC(op);
    Value r = gatherAlongAxis(
        rewriter, op.getLoc(), adaptor.getWeight(), adaptor.getData(),
        kindOf(op.getData().getType().getElementType()), /*axis=*/0,
        /*wrap=*/false, cast<RankedTensorType>(op.getOutput().getType()));
    rewriter.replaceOp(op, r);
    return success();
  }
};

#undef MXC_REQUIRE_STATIC

} // namespace

void mxc::conversion::populateDataMovementPatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  target.addLegalOp<UnrealizedConversionCastOp>(); // ui8 in linalg bodies
  target.addIllegalOp<mx::ReshapeOp, mx::ReshapeLikeOp, mx::FlattenOp,
                      mx::ExpandDimsOp,
                      mx::SqueezeOp, mx::TransposeOp, mx::SliceAxisOp,
                      mx::ConcatOp, mx::OneHotOp, mx::PickOp, mx::TakeOp,
                      mx::EmbeddingOp, mx::SliceLikeOp, mx::PadOp,
                      mx::SliceOp, mx::SliceAssignOp, mx::SliceAssignScalarOp,
                      mx::SwapAxisOp>();
  patterns
      .add<ConvertReshapeLike<mx::ReshapeOp>, ConvertReshapeLike<mx::FlattenOp>,
           ConvertReshapeLike<mx::ExpandDimsOp>,
           ConvertReshapeLike<mx::SqueezeOp>,
           ConvertReshapeLike<mx::ReshapeLikeOp>,
           ConvertTranspose,
           ConvertSliceAxis, ConvertConcat, ConvertOneHot, ConvertPick,
           ConvertTake, ConvertEmbedding, ConvertSliceLike, ConvertPad,
           ConvertSlice, ConvertSliceAssign<mx::SliceAssignOp>,
           ConvertSliceAssign<mx::SliceAssignScalarOp>, ConvertSwapAxis>(
          typeConverter, patterns.getContext());
}
