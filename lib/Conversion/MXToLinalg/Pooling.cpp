//===- Pooling.cpp - mx -> linalg: Pooling
//---------------------------------===//
//
// MXNet's CPU pooling (src/operator/nn/pool.h, 1.9.1) on NCW / NCHW / NCDHW
// data, for every pooling convention (the op's result type carries the
// output extents):
//   window i along one axis: start = o * stride - pad, end = start + kernel;
//   max      max over [max(start, 0), min(end, in)) (padding never wins:
//            padded elements hold the lowest finite value, MXNet's initial
//            maximum);
//   sum      sum over the same clipped window;
//   avg      sum / pool_size with pool_size = prod(min(end, in + pad) -
//            start) when count_include_pad (MXNet's default), else the
//            clipped window's size;
//   lp       (sum of x^p)^(1/p), p = 1, 2, 3 or general;
//   global_pool: the window is the whole spatial extent, no padding.
// One linalg.generic reduces each window of the padded input (a "window"
// operand gives the kernel's loop ranges); avg and lp finish with an
// elementwise generic. f16 / bf16 sums accumulate in f32 as MXNet's AccType.
// On the CUDA target max / avg / sum pooling of f32 / f64 whose windows
// cuDNN's gradient takes is cuDNN's forward instead (a kernel call).
//
//===----------------------------------------------------------------------===//
#include "KernelCalls.h"
#include "Patterns.h"

#include "mxc/Dialect/MX/IR/MXOps.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mxc::conversion;
namespace mx = mxc::mx;

namespace {

enum class PoolKind { Max = 0, Avg = 1, Sum = 2, Lp = 3 }; // kernels.h's numbering

/// The lowest finite value of a float type (MXNet's initial maximum).
static Value lowestConst(OpBuilder &b, Location loc, FloatType type) {
  APFloat v = APFloat::getLargest(type.getFloatSemantics(), /*Negative=*/true);
  return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, v));
}

/// x^p for the integer p of Lp pooling (MXNet's a_pow_p).
static Value powP(OpBuilder &b, Location loc, Value x, int64_t p) {
  switch (p) {
  case 1:
    return x;
  case 2:
    return arith::MulFOp::create(b, loc, x, x);
  case 3:
    return arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, x, x),
                                 x);
  default:
    return math::PowFOp::create(b, loc, x,
                                floatConst(b, loc, x.getType(), double(p)));
  }
}

/// sum^(1/p) (MXNet's a_root_p).
static Value rootP(OpBuilder &b, Location loc, Value sum, int64_t p) {
  switch (p) {
  case 1:
    return sum;
  case 2:
    return math::SqrtOp::create(b, loc, sum);
  case 3:
    return math::CbrtOp::create(b, loc, sum);
  default:
    return math::PowFOp::create(b, loc, sum,
                                floatConst(b, loc, sum.getType(), 1.0 / p));
  }
}

/// Per-axis window sizes MXNet divides by, for each output position `o` of
/// one spatial axis.
static SmallVector<int64_t> poolSizes(int64_t in, int64_t out, int64_t k,
                                      int64_t s, int64_t p,
                                      bool countIncludePad) {
  SmallVector<int64_t> sizes;
  for (int64_t o = 0; o < out; ++o) {
    int64_t start = o * s - p;
    int64_t end = std::min(start + k, in + p);
    sizes.push_back(countIncludePad
                        ? end - start
                        : std::min(end, in) - std::max<int64_t>(start, 0));
  }
  return sizes;
}

/// The window of each spatial axis: `kernel`, `stride`, `pad` (the whole
/// extent, 1, 0 with global_pool; empty stride / pad mean 1 / 0).
struct PoolGeometry {
  SmallVector<int64_t> kernel, stride, pad;
};
static PoolGeometry poolGeometry(mx::PoolingOp op,
                                 ArrayRef<int64_t> inShape) {
  int64_t d = static_cast<int64_t>(inShape.size());
  PoolGeometry g;
  if (op.getGlobalPool()) {
    g.kernel.assign(inShape.begin(), inShape.end());
    g.stride.assign(d, 1);
    g.pad.assign(d, 0);
    return g;
  }
  g.kernel.assign(op.getKernel().begin(), op.getKernel().end());
  g.stride = op.getStride().empty() ? SmallVector<int64_t>(d, 1)
                                    : SmallVector<int64_t>(op.getStride());
  g.pad = op.getPad().empty() ? SmallVector<int64_t>(d, 0)
                              : SmallVector<int64_t>(op.getPad().take_front(d));
  return g;
}

struct ConvertPooling : OpConversionPattern<mx::PoolingOp> {
  using OpConversionPattern::OpConversionPattern;

  /// A Pooling that mx-propagate-conv-layout put between fused convolutions
  /// (its data or output blocked): the runtime's mxc_kernel_pooling_f32.
  static LogicalResult lowerToKernel(mx::PoolingOp op, OpAdaptor adaptor,
                                     ConversionPatternRewriter &rewriter) {
    auto dataType = cast<RankedTensorType>(adaptor.getData().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!resultType.getElementType().isF32() || dataType.getRank() != 4 ||
        !useKernelCalls(op, resultType.getElementType()))
      return unsupported(rewriter, op,
                         "a blocked-layout Pooling needs float32 2-D data and "
                         "the runtime's kernels");
    PoolGeometry g = poolGeometry(op, dataType.getShape().drop_front(2));
    ArrayRef<int64_t> kernel = g.kernel, stride = g.stride, pad = g.pad;
    int64_t flags = (op.getPoolType() == "avg" ? 1 : 0) |
                    (op.getCountIncludePad().value_or(true) ? 2 : 0) |
                    (op->hasAttr(mx::kBlockedDataAttr) ? 32 : 0) |
                    (op->hasAttr(mx::kBlockedOutputAttr) ? 64 : 0);
    SmallVector<int64_t> ints{dataType.getDimSize(0),   dataType.getDimSize(1),
                              dataType.getDimSize(2),   dataType.getDimSize(3),
                              resultType.getDimSize(2), resultType.getDimSize(3),
                              kernel[0],                kernel[1],
                              stride[0],                stride[1],
                              pad[0],                   pad[1],
                              flags};
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                         resultType.getElementType());
    Value result = mxc::mxrt::KernelCallOp::create(
                       rewriter, loc, "mxc_kernel_pooling_f32",
                       ValueRange{adaptor.getData()}, init, ints,
                       /*accumulate=*/false)
                       .getResult();
    rewriter.replaceOp(op, result);
    return success();
  }

  LogicalResult
  matchAndRewrite(mx::PoolingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return unsupported(rewriter, op, "dynamic shapes are not supported");
    if (mx::isComposite(op)) // channel-last: Normalization.cpp's ConvertComposite
      return unsupported(rewriter, op, "a channel-last layout is lowered by "
                                       "its decomposition");
    if (op->hasAttr(mx::kBlockedDataAttr) || op->hasAttr(mx::kBlockedOutputAttr))
      return lowerToKernel(op, adaptor, rewriter);
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value data = adaptor.getData();
    auto dataType = cast<RankedTensorType>(data.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    auto elt = cast<FloatType>(resultType.getElementType());
    int64_t rank = dataType.getRank(), d = rank - 2;
    ArrayRef<int64_t> inShape = dataType.getShape().drop_front(2);
    ArrayRef<int64_t> outShape = resultType.getShape().drop_front(2);

    StringRef type = op.getPoolType();
    PoolKind kind = type == "max"   ? PoolKind::Max
                    : type == "avg" ? PoolKind::Avg
                    : type == "sum" ? PoolKind::Sum
                                    : PoolKind::Lp;
    int64_t p = kind == PoolKind::Lp ? op.getPValue().value_or(1) : 1;
    if (kind == PoolKind::Lp && p < 1)
      return unsupported(
          rewriter, op, "p_value must be >= 1 for lp pooling, got " + Twine(p));

    PoolGeometry g = poolGeometry(op, inShape);
    ArrayRef<int64_t> kernel = g.kernel, stride = g.stride, pad = g.pad;

    // On the CUDA target: cuDNN's pooling forward for what its gradient
    // takes too (max / avg / sum of f32 / f64, padding narrower than the
    // window, cuDNN's floor output size: not pooling_convention 'full'),
    // `mxc_kernel_pooling_forward_<T>` with the gradient kernel's arguments
    // (a GPU kernel only: the CPU's pooling is generated).
    if (forCudaTarget(op) && useKernelCalls(op, elt) && d >= 1 && d <= 3) {
      int64_t k = static_cast<int64_t>(kind); // kernels.h's numbering
      if (poolingNotTakenByCudnn(k, inShape, kernel, outShape, stride, pad).empty()) {
        rewriter.replaceOp(
            op, callKernel(rewriter, op, "mxc_kernel_pooling_forward_" + kernelSuffix(elt),
                           {data},
                           poolingKernelArgs(k, 1, op.getCountIncludePad().value_or(true),
                                             dataType.getDimSize(0) * dataType.getDimSize(1),
                                             inShape, kernel, outShape, stride, pad),
                           resultType));
        return success();
      }
    }

    // Sums of f16 / bf16 accumulate in f32 (MXNet's AccType).
    Type acc = elt;
    if (kind != PoolKind::Max && (elt.isF16() || elt.isBF16()))
      acc = rewriter.getF32Type();

    // Pad so that every window lies inside: `pad` before, and after as far
    // as the last window reaches (the full and same conventions run past
    // the padded input).
    SmallVector<OpFoldResult> lo(2, rewriter.getIndexAttr(0)),
        hi(2, rewriter.getIndexAttr(0));
    SmallVector<int64_t> paddedShape(dataType.getShape());
    bool needsPad = false;
    for (int64_t i = 0; i < d; ++i) {
      int64_t after = std::max<int64_t>(0, (outShape[i] - 1) * stride[i] +
                                               kernel[i] - inShape[i] - pad[i]);
      lo.push_back(rewriter.getIndexAttr(pad[i]));
      hi.push_back(rewriter.getIndexAttr(after));
      paddedShape[2 + i] += pad[i] + after;
      needsPad |= pad[i] != 0 || after != 0;
    }
    Value padValue = kind == PoolKind::Max ? lowestConst(rewriter, loc, elt)
                                           : floatConst(rewriter, loc, elt, 0);
    Value padded = data;
    if (needsPad)
      padded = tensor::PadOp::create(rewriter, loc,
                                     RankedTensorType::get(paddedShape, elt),
                                     data, lo, hi, padValue);

    // The window reduction: loops (n, c, o..., w...).
    unsigned nLoops = 2 + 2 * d;
    auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> inExprs{dim(0), dim(1)}, winExprs,
        outExprs{dim(0), dim(1)};
    for (int64_t i = 0; i < d; ++i) {
      inExprs.push_back(dim(2 + i) * stride[i] + dim(2 + d + i));
      winExprs.push_back(dim(2 + d + i));
      outExprs.push_back(dim(2 + i));
    }
    SmallVector<AffineMap> maps{AffineMap::get(nLoops, 0, inExprs, ctx),
                                AffineMap::get(nLoops, 0, winExprs, ctx),
                                AffineMap::get(nLoops, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iters(2 + d,
                                           utils::IteratorType::parallel);
    iters.append(d, utils::IteratorType::reduction);
    Value window = tensor::EmptyOp::create(rewriter, loc, kernel, elt);
    Value init = kind == PoolKind::Max
                     ? filledTensor(rewriter, loc, resultType.getShape(), elt,
                                    lowestConst(rewriter, loc, elt))
                     : filledTensor(rewriter, loc, resultType.getShape(), acc,
                                    floatConst(rewriter, loc, acc, 0));
    Value pooled =
        linalg::GenericOp::create(
            rewriter, loc, init.getType(), ValueRange{padded, window},
            ValueRange{init}, maps, iters,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value x = args[0];
              Value r;
              if (kind == PoolKind::Max) {
                r = arith::MaxNumFOp::create(b, l, args[2], x);
              } else {
                if (x.getType() != acc)
                  x = arith::ExtFOp::create(b, l, acc, x);
                r = arith::AddFOp::create(b, l, args[2], powP(b, l, x, p));
              }
              linalg::YieldOp::create(b, l, r);
            })
            .getResult(0);

    bool needsFinish =
        kind == PoolKind::Avg || (kind == PoolKind::Lp && p != 1) || acc != elt;
    if (!needsFinish) {
      rewriter.replaceOp(op, pooled);
      return success();
    }

    // avg: divide by MXNet's pool size, the product of per-axis sizes: one
    // constant when uniform, else a small per-axis constant tensor each.
    bool countIncludePad = op.getCountIncludePad().value_or(true);
    int64_t uniformSize = 1;
    SmallVector<Value> sizeTensors;
    SmallVector<AffineMap> finishMaps{
        AffineMap::getMultiDimIdentityMap(rank, ctx)};
    if (kind == PoolKind::Avg) {
      for (int64_t i = 0; i < d; ++i) {
        SmallVector<int64_t> sizes =
            poolSizes(inShape[i], outShape[i], kernel[i], stride[i], pad[i],
                      countIncludePad);
        if (llvm::all_equal(sizes)) {
          uniformSize *= sizes.front();
          continue;
        }
        SmallVector<Attribute> values;
        for (int64_t s : sizes)
          values.push_back(rewriter.getFloatAttr(acc, double(s)));
        auto t = RankedTensorType::get({outShape[i]}, acc);
        sizeTensors.push_back(arith::ConstantOp::create(
            rewriter, loc, t, DenseElementsAttr::get(t, values)));
        finishMaps.push_back(AffineMap::get(rank, 0, dim(2 + i), ctx));
      }
    }
    finishMaps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
    SmallVector<Value> ins{pooled};
    ins.append(sizeTensors);
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, resultType.getShape(), elt);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, resultType, ins, ValueRange{empty}, finishMaps,
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value v = args[0];
              if (kind == PoolKind::Avg) {
                Value size = floatConst(b, l, acc, double(uniformSize));
                for (size_t i = 0; i < sizeTensors.size(); ++i)
                  size = arith::MulFOp::create(b, l, size, args[1 + i]);
                v = arith::DivFOp::create(b, l, v, size);
              } else if (kind == PoolKind::Lp) {
                v = rootP(b, l, v, p);
              }
              if (acc != elt)
                v = arith::TruncFOp::create(b, l, elt, v);
              linalg::YieldOp::create(b, l, v);
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mxc::conversion::populatePoolingPatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  target.addIllegalOp<mx::PoolingOp>();
  patterns.add<ConvertPooling>(typeConverter, patterns.getContext());
}
