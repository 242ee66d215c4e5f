//===- Normalization.cpp - mx -> linalg: BatchNorm (inference), LRN -------===//
//
// BatchNorm follows MXNet 1.9.1's inference path (src/operator/nn/
// batch_norm.cc BatchNormForwardImpl with is_train false; the oneDNN path
// agrees): whatever use_global_stats says, it normalises with the moving
// statistics,
//   invstd = 1 / sqrt(moving_var + eps)
//   out    = (x - moving_mean) * invstd * gamma + beta   (gamma = 1 with
//                                                        fix_gamma)
// and its hidden outputs are mean = moving_mean and var = invstd (MXNet
// stores the inverse standard deviation there, not the variance). f16 / bf16
// data computes in f32 with its f32 parameters.
//
// LRN (src/operator/nn/lrn-inl.h): across channels, with MXNet's window of
// nsize channels centred on c (nsize odd, clipped at the edges),
//   tmp_norm = knorm + alpha / nsize * sum(x[c']^2)
//   out      = x * tmp_norm^(-beta).
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

/// `v` converted to the float type `to` (extended or truncated).
static Value convertFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (cast<FloatType>(from).getWidth() < cast<FloatType>(to).getWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

/// t^(-beta). AlexNet's and GoogLeNet's beta 0.75 (and 0.5, 1) as square
/// roots and a division, which LLVM vectorises: t^-0.75 = 1 / (sqrt(t) *
/// sqrt(sqrt(t))), within 2 ulp of powf, where the libm powf call per element
/// was most of the LRN's time (AlexNet's first LRN at batch 16: ~20 ms);
/// other exponents call powf.
static Value negativePower(OpBuilder &b, Location l, Value t, double beta) {
  Type type = t.getType();
  Value one = floatConst(b, l, type, 1.0);
  if (beta == 1.0)
    return arith::DivFOp::create(b, l, one, t);
  if (beta == 0.5 || beta == 0.75) {
    Value root = math::SqrtOp::create(b, l, t);
    Value den = beta == 0.5 ? root
                            : arith::MulFOp::create(
                                  b, l, root, math::SqrtOp::create(b, l, root));
    return arith::DivFOp::create(b, l, one, den);
  }
  return math::PowFOp::create(b, l, t, floatConst(b, l, type, -beta));
}

struct ConvertBatchNorm : OpConversionPattern<mx::BatchNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return unsupported(rewriter, op, "dynamic shapes are not supported");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto dataType = cast<RankedTensorType>(adaptor.getData().getType());
    auto statType = cast<RankedTensorType>(adaptor.getMovingVar().getType());
    Type elt = dataType.getElementType();
    Type pt = statType.getElementType();
    int64_t rank = dataType.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;

    // invstd = 1 / sqrt(moving_var + eps), per channel.
    double eps = op.getEps().convertToDouble();
    Value emptyStat =
        tensor::EmptyOp::create(rewriter, loc, statType.getShape(), pt);
    AffineMap id1 = AffineMap::getMultiDimIdentityMap(1, ctx);
    Value invstd =
        linalg::GenericOp::create(
            rewriter, loc, statType, ValueRange{adaptor.getMovingVar()},
            ValueRange{emptyStat}, SmallVector<AffineMap>{id1, id1},
            SmallVector<utils::IteratorType>{utils::IteratorType::parallel},
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value v = arith::AddFOp::create(b, l, args[0],
                                              floatConst(b, l, pt, eps));
              Value s = math::SqrtOp::create(b, l, v);
              Value r =
                  arith::DivFOp::create(b, l, floatConst(b, l, pt, 1.0), s);
              linalg::YieldOp::create(b, l, r);
            })
            .getResult(0);

    // out = (x - mean) * invstd [* gamma] + beta.
    bool fixGamma = op.getFixGamma();
    AffineMap idN = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap chan = AffineMap::get(rank, 0, getAffineDimExpr(axis, ctx), ctx);
    SmallVector<Value> ins{adaptor.getData(), adaptor.getMovingMean(), invstd,
                           adaptor.getBeta()};
    if (!fixGamma)
      ins.push_back(adaptor.getGamma());
    SmallVector<AffineMap> maps{idN};
    maps.append(ins.size() - 1, chan);
    maps.push_back(idN);
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, dataType.getShape(), elt);
    Value out = linalg::GenericOp::create(
                    rewriter, loc, dataType, ins, ValueRange{empty}, maps,
                    SmallVector<utils::IteratorType>(
                        rank, utils::IteratorType::parallel),
                    [&](OpBuilder &b, Location l, ValueRange args) {
                      Value x = convertFloat(b, l, args[0], pt);
                      Value v = arith::SubFOp::create(b, l, x, args[1]);
                      v = arith::MulFOp::create(b, l, v, args[2]);
                      if (!fixGamma)
                        v = arith::MulFOp::create(b, l, v, args[4]);
                      v = arith::AddFOp::create(b, l, v, args[3]);
                      linalg::YieldOp::create(b, l, convertFloat(b, l, v, elt));
                    })
                    .getResult(0);
    rewriter.replaceOp(op, {out, adaptor.getMovingMean(), invstd});
    return success();
  }
};

struct ConvertLRN : OpConversionPattern<mx::LRNOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::LRNOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return unsupported(rewriter, op, "dynamic shapes are not supported");
    int64_t nsize = static_cast<int64_t>(op.getNsize());
    if (nsize % 2 == 0)
      return unsupported(
          rewriter, op,
          "nsize must be odd (MXNet's channel window is centred), "
          "got " +
              Twine(nsize));
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value data = adaptor.getData();
    auto dataType = cast<RankedTensorType>(data.getType());
    auto elt = cast<FloatType>(dataType.getElementType());
    int64_t rank = dataType.getRank();
    // The kernels' arguments (lrn.cc; the CUDA target's twins take the same).
    ArrayRef<int64_t> shape = dataType.getShape();
    SmallVector<int64_t> args;
    if (rank >= 2)
      args = {shape[0],
              shape[1],
              product(shape.drop_front(2)),
              nsize,
              floatParamBits(op.getAlpha().convertToDouble()),
              floatParamBits(op.getBeta().convertToDouble()),
              floatParamBits(op.getKnorm().convertToDouble())};
    // On the CUDA target: cuDNN's LRN (the twin of mxc_kernel_lrn_<T>) where
    // it takes the parameters and tmp_norm is read by the gradient alone,
    // which on the GPU reads the output instead (the tmp_norm passed to it
    // is then an unwritten buffer); else generated kernels.
    bool cuda = forCudaTarget(op);
    if (cuda && useKernelCalls(op, elt) && rank >= 2 &&
        lrnNotTakenByCudnn(nsize, op.getBeta().convertToDouble(),
                           op.getKnorm().convertToDouble())
            .empty() &&
        llvm::all_of(op->getResult(1).getUsers(),
                     [](Operation *u) { return isa<mx::LRNBackwardOp>(u); })) {
      Value y = callKernel(rewriter, op, "mxc_kernel_lrn_" + kernelSuffix(elt),
                           {data}, args, dataType);
      // (an alloc_tensor: CSE would merge a tensor.empty with the calls'
      // destinations)
      Value norm = bufferization::AllocTensorOp::create(rewriter, loc, dataType,
                                                        ValueRange());
      rewriter.replaceOp(op, {y, norm});
      return success();
    }
    if (useKernelCalls(op, elt) && rank >= 2 && !cuda) {
      // f32 / f64 on the CPU: the runtime's kernel (lrn.cc), which writes
      // tmp_norm only when something reads it (the gradient).
      bool needNorm = !op->getResult(1).use_empty();
      SmallVector<Value> inits{
          tensor::EmptyOp::create(rewriter, loc, shape, elt)};
      if (needNorm)
        inits.push_back(tensor::EmptyOp::create(rewriter, loc, shape, elt));
      auto call = mxc::mxrt::KernelCallOp::create(
          rewriter, loc,
          (needNorm ? "mxc_kernel_lrn_norm_" : "mxc_kernel_lrn_") +
              kernelSuffix(elt),
          ValueRange{data}, inits, args);
      Value norm;
      if (needNorm)
        norm = call.getOutputs()[1];
      else // unread: never materialised
        norm = tensor::EmptyOp::create(rewriter, loc, shape, elt);
      rewriter.replaceOp(op, {call.getOutputs()[0], norm});
      return success();
    }
    // f16 / bf16 compute in f32 (MXNet's LRN computes in real_t).
    Type acc = elt.getWidth() < 32 ? Type(rewriter.getF32Type()) : Type(elt);

    // Zero-pad the channel axis by nsize / 2 on both sides, then sum the
    // squares over a window of nsize channels: loops (n, c, rest..., w).
    int64_t half = nsize / 2;
    SmallVector<OpFoldResult> lo(rank, rewriter.getIndexAttr(0)),
        hi(rank, rewriter.getIndexAttr(0));
    lo[1] = hi[1] = rewriter.getIndexAttr(half);
    SmallVector<int64_t> paddedShape(dataType.getShape());
    paddedShape[1] += 2 * half;
    Value padded = data;
    if (half > 0)
      padded = tensor::PadOp::create(
          rewriter, loc, RankedTensorType::get(paddedShape, elt), data, lo, hi,
          floatConst(rewriter, loc, elt, 0));
    unsigned nLoops = rank + 1;
    SmallVector<AffineExpr> inExprs, outExprs;
    for (int64_t i = 0; i < rank; ++i) {
      AffineExpr e = getAffineDimExpr(i, ctx);
      inExprs.push_back(i == 1 ? e + getAffineDimExpr(rank, ctx) : e);
      outExprs.push_back(e);
    }
    SmallVector<AffineMap> maps{
        AffineMap::get(nLoops, 0, inExprs, ctx),
        AffineMap::get(nLoops, 0, getAffineDimExpr(rank, ctx), ctx),
        AffineMap::get(nLoops, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    iters.push_back(utils::IteratorType::reduction);
    Value window = tensor::EmptyOp::create(rewriter, loc, {nsize}, elt);
    Value init = filledTensor(rewriter, loc, dataType.getShape(), acc,
                              floatConst(rewriter, loc, acc, 0));
    Value sums = linalg::GenericOp::create(
                     rewriter, loc, init.getType(), ValueRange{padded, window},
                     ValueRange{init}, maps, iters,
                     [&](OpBuilder &b, Location l, ValueRange args) {
                       Value x = convertFloat(b, l, args[0], acc);
                       Value sq = arith::MulFOp::create(b, l, x, x);
                       Value sum = arith::AddFOp::create(b, l, args[2], sq);
                       linalg::YieldOp::create(b, l, sum);
                     })
                     .getResult(0);

    // tmp_norm = knorm + alpha / nsize * sum; out = x * tmp_norm^(-beta).
    double salpha = op.getAlpha().convertToDouble() / double(nsize);
    double knorm = op.getKnorm().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    AffineMap idN = AffineMap::getMultiDimIdentityMap(rank, ctx);
    Value emptyOut =
        tensor::EmptyOp::create(rewriter, loc, dataType.getShape(), elt);
    Value emptyNorm =
        tensor::EmptyOp::create(rewriter, loc, dataType.getShape(), elt);
    auto finish = linalg::GenericOp::create(
        rewriter, loc, TypeRange{dataType, dataType}, ValueRange{data, sums},
        ValueRange{emptyOut, emptyNorm},
        SmallVector<AffineMap>{idN, idN, idN, idN},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = convertFloat(b, l, args[0], acc);
          Value norm = arith::AddFOp::create(
              b, l, floatConst(b, l, acc, knorm),
              arith::MulFOp::create(b, l, floatConst(b, l, acc, salpha),
                                    args[1]));
          Value scale = negativePower(b, l, norm, beta);
          Value y = arith::MulFOp::create(b, l, x, scale);
          linalg::YieldOp::create(b, l,
                                  ValueRange{convertFloat(b, l, y, elt),
                                             convertFloat(b, l, norm, elt)});
        });
    rewriter.replaceOp(op, finish.getResults());
    return success();
  }
};

/// Every composite (mx::isComposite: the norms, moments, repeat / tile,
/// SliceChannel, UpSampling, channel-last Convolution / Pooling, ...) in a
/// module that did not run mx-decompose: the same decomposition, whose
/// primitive ops the conversion then lowers. One pattern for all of them,
/// tried before the ops' own patterns (benefit 2), so a channel-last
/// Convolution becomes the channel-first one before ConvertConvolution runs.
struct ConvertComposite final : ConversionPattern {
  ConvertComposite(TypeConverter &typeConverter, MLIRContext *ctx)
      : ConversionPattern(typeConverter, MatchAnyOpTypeTag(), /*benefit=*/2,
                          ctx) {}
  // A channel-last Convolution / Pooling becomes a channel-first one (once).
  void initialize() { setHasBoundedRewriteRecursion(); }
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!mx::isComposite(op))
      return failure();
    SmallVector<Value> results;
    if (failed(mx::decomposeComposite(rewriter, op, results)))
      return failure();
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void mxc::conversion::populateNormalizationPatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  target.addIllegalOp<mx::BatchNormOp, mx::LRNOp, mx::LayerNormOp,
                      mx::InstanceNormOp, mx::GroupNormOp,
                      mx::L2NormalizationOp, mx::MomentsOp, mx::BatchTakeOp,
                      mx::ArgmaxChannelOp, mx::RepeatOp, mx::TileOp,
                      mx::SliceChannelOp, mx::UpSamplingOp, mx::RNNOp,
                      mx::CTCLossOp, mx::SequenceMaskOp, mx::SequenceLastOp,
                      mx::SequenceReverseOp, mx::RavelMultiIndexOp,
                      mx::UnravelIndexOp, mx::SoftmaxActivationOp,
                      mx::GatherNdOp, mx::ContribIndexCopyOp,
                      mx::ContribIndexArrayOp, mx::LinalgGemmOp,
                      mx::LinalgGemm2Op,
                      mx::SortOp, mx::ArgsortOp, mx::ContribQuadraticOp,
                      mx::ContribDivSqrtDimOp, mx::SoftmaxCrossEntropyOp,
                      mx::AllFiniteOp, mx::MultiAllFiniteOp, mx::DiagOp,
                      mx::ContribAdaptiveAvgPooling2DOp,
                      mx::ContribBilinearResize2DOp, mx::ContribBoxIouOp,
                      mx::ContribBoxEncodeOp, mx::ContribBoxDecodeOp,
                      mx::HistogramOp, mx::ContribMultiBoxPriorOp,
                      mx::ROIPoolingOp, mx::LinalgExtractdiagOp,
                      mx::LinalgMakediagOp, mx::LinalgExtracttrianOp,
                      mx::LinalgMaketrianOp, mx::LinalgPotrfOp, mx::LinalgPotriOp,
                      mx::LinalgTrmmOp, mx::LinalgTrsmOp, mx::LinalgSumlogdiagOp,
                      mx::LinalgSyrkOp, mx::LinalgGelqfOp, mx::CorrelationOp,
                      mx::ScatterNdOp>();
  patterns.add<ConvertBatchNorm, ConvertLRN, ConvertComposite>(
      typeConverter, patterns.getContext());
}
