//===- Conv.cpp - mx -> linalg: Convolution
//--------------------------------===//
//
// MXNet's Convolution (src/operator/nn/convolution-inl.h): NCW / NCHW / NCDHW
// data, (num_filter, C / num_group, *kernel) weights, zero padding, stride,
// dilation, groups and an optional bias. f32 / f64 call the runtime's
// im2col + OpenBLAS kernel (KernelCalls.h); other float types, and modules
// with `mxc.kernel_calls = false`, get one linalg.generic over grouped views
// of a zero-padded input, for any of the three ranks.
//
// MXNet's Deconvolution (deconvolution-inl.h) is Convolution's data
// gradient: it becomes mx.Convolution_backward_data of its data (as the
// output gradient) with its own effective pad (target_shape / adj) and
// num_filter = the data's channels, lowered by Backward.cpp to the runtime's
// col2im kernel (f32 / f64; f16 / bf16 cast to f32 and back), then a bias add.
//
//===----------------------------------------------------------------------===//
#include "KernelCalls.h"
#include "Patterns.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mxc/Dialect/MX/IR/MXOps.h"

using namespace mlir;
using namespace mxc::conversion;
namespace mx = mxc::mx;

namespace {

/// A convolution's geometry with MXNet's defaults filled in.
struct ConvParams {
  int64_t spatial; // 1, 2 or 3
  SmallVector<int64_t> kernel, stride, dilate, pad;
  int64_t batch, channels, filters, groups;
  SmallVector<int64_t> in, out; // spatial extents
};

static SmallVector<int64_t> orDefault(ArrayRef<int64_t> v, int64_t n,
                                      int64_t dflt) {
  // A longer value (a pad with zeros past the kernel's rank, which the
  // shape rule accepts as MXNet does) counts for its first n entries.
  return v.empty() ? SmallVector<int64_t>(n, dflt)
                   : SmallVector<int64_t>(v.take_front(n));
}

/// Zero-pads the spatial dimensions (2..) of `data` by `pad` on both sides.
static Value padSpatial(OpBuilder &b, Location loc, Value data,
                        ArrayRef<int64_t> pad) {
  if (llvm::all_of(pad, [](int64_t p) { return p == 0; }))
    return data;
  auto type = cast<RankedTensorType>(data.getType());
  SmallVector<int64_t> low{0, 0}, shape(type.getShape());
  low.append(pad.begin(), pad.end());
  for (size_t i = 0; i < pad.size(); ++i)
    shape[2 + i] += 2 * pad[i];
  SmallVector<OpFoldResult> lo, hi;
  for (int64_t v : low) {
    lo.push_back(b.getIndexAttr(v));
    hi.push_back(b.getIndexAttr(v));
  }
  Value zero = floatConst(b, loc, type.getElementType(), 0);
  return tensor::PadOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), data, lo, hi,
      zero);
}

/// The convolution as one linalg.generic over grouped views: data
/// (N, G, C/G, S...), weight (G, F/G, C/G, K...), output (N, G, F/G, O...);
/// loops (n, g, f, o..., c, k...).
static Value genericConv(OpBuilder &b, Location loc, Value data, Value weight,
                         Value bias, const ConvParams &p,
                         RankedTensorType resultType) {
  MLIRContext *ctx = b.getContext();
  Type elt = resultType.getElementType();
  int64_t d = p.spatial, G = p.groups;
  int64_t cg = p.channels / G, fg = p.filters / G;
  Value padded = padSpatial(b, loc, data, p.pad);
  auto paddedShape = cast<RankedTensorType>(padded.getType()).getShape();

  SmallVector<int64_t> dShape{p.batch, G, cg}, wShape{G, fg, cg},
      oShape{p.batch, G, fg};
  dShape.append(paddedShape.begin() + 2, paddedShape.end());
  wShape.append(p.kernel.begin(), p.kernel.end());
  oShape.append(p.out.begin(), p.out.end());
  Value dView = reshapeTo(b, loc, padded, dShape);
  Value wView = reshapeTo(b, loc, weight, wShape);

  Value init;
  if (bias) {
    // bias[g * F/G + f] broadcast over (N, G, F/G, O...).
    Value bView = reshapeTo(b, loc, bias, {G, fg});
    Value empty = tensor::EmptyOp::create(b, loc, oShape, elt);
    unsigned rank = oShape.size();
    SmallVector<AffineMap> maps{
        AffineMap::get(
            rank, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx)}, ctx),
        AffineMap::getMultiDimIdentityMap(rank, ctx)};
    init =
        linalg::GenericOp::create(
            b, loc, empty.getType(), ValueRange{bView}, ValueRange{empty}, maps,
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
            [](OpBuilder &nb, Location nl, ValueRange args) {
              linalg::YieldOp::create(nb, nl, args[0]);
            })
            .getResult(0);
  } else {
    init = filledTensor(b, loc, oShape, elt, floatConst(b, loc, elt, 0));
  }

  // Loop dims: 0 n, 1 g, 2 f, 3..3+d o_i, 3+d c, 4+d.. k_i.
  unsigned nLoops = 4 + 2 * d;
  auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> dExprs{dim(0), dim(1), dim(3 + d)},
      wExprs{dim(1), dim(2), dim(3 + d)}, oExprs{dim(0), dim(1), dim(2)};
  for (int64_t i = 0; i < d; ++i) {
    dExprs.push_back(dim(3 + i) * p.stride[i] + dim(4 + d + i) * p.dilate[i]);
    wExprs.push_back(dim(4 + d + i));
    oExprs.push_back(dim(3 + i));
  }
  SmallVector<AffineMap> maps{AffineMap::get(nLoops, 0, dExprs, ctx),
                              AffineMap::get(nLoops, 0, wExprs, ctx),
                              AffineMap::get(nLoops, 0, oExprs, ctx)};
  SmallVector<utils::IteratorType> iters(3 + d, utils::IteratorType::parallel);
  iters.append(1 + d, utils::IteratorType::reduction);
  Value conv = linalg::GenericOp::create(
                   b, loc, init.getType(), ValueRange{dView, wView},
                   ValueRange{init}, maps, iters,
                   [](OpBuilder &nb, Location nl, ValueRange args) {
                     Value prod =
                         arith::MulFOp::create(nb, nl, args[0], args[1]);
                     Value sum = arith::AddFOp::create(nb, nl, args[2], prod);
                     linalg::YieldOp::create(nb, nl, sum);
                   })
                   .getResult(0);
  return reshapeTo(b, loc, conv, resultType.getShape());
}

struct ConvertConvolution : OpConversionPattern<mx::ConvolutionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::ConvolutionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return unsupported(rewriter, op, "dynamic shapes are not supported");
    if (mx::isComposite(op)) // channel-last: Normalization.cpp's ConvertComposite
      return unsupported(rewriter, op, "a channel-last layout is lowered by "
                                       "its decomposition");
    Location loc = op.getLoc();
    auto dataType = cast<RankedTensorType>(adaptor.getData().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elt = resultType.getElementType();

    ConvParams p;
    p.spatial = op.getKernel().size();
    p.kernel.assign(op.getKernel().begin(), op.getKernel().end());
    p.stride = orDefault(op.getStride(), p.spatial, 1);
    p.dilate = orDefault(op.getDilate(), p.spatial, 1);
    p.pad = orDefault(op.getPad(), p.spatial, 0);
    p.batch = dataType.getDimSize(0);
    p.channels = dataType.getDimSize(1);
    p.filters = static_cast<int64_t>(op.getNumFilter());
    p.groups = static_cast<int64_t>(op.getNumGroup());
    p.in.assign(dataType.getShape().begin() + 2, dataType.getShape().end());
    p.out.assign(resultType.getShape().begin() + 2,
                 resultType.getShape().end());
    Value bias = adaptor.getBias();

    Value result;
    if (useKernelCalls(op, elt)) {
      // The kernel is 3-D: 1-D and 2-D convolutions get leading unit dims.
      SmallVector<int64_t> ints{p.batch, p.channels, p.filters, p.groups,
                                bias ? 1 : 0};
      for (auto [v, fill] : {std::pair{ArrayRef<int64_t>(p.in), int64_t(1)},
                             {p.kernel, 1},
                             {p.out, 1},
                             {p.stride, 1},
                             {p.pad, 0},
                             {p.dilate, 1}})
        llvm::append_range(ints, leadingFill3(v, fill));
      Value w = adaptor.getWeight();
      // Without a bias the kernel ignores its bias buffer: pass the weight.
      if (forCudaTarget(op))
        // cuDNN's convolution with a planned workspace (GPU only: the CPU
        // kernel keeps its im2col scratch per thread).
        result = callKernelWithWorkspace(
            rewriter, op, "mxc_kernel_conv_workspace_" + kernelSuffix(elt),
            {adaptor.getData(), w, bias ? bias : w}, ints, resultType,
            {{cudaConvWorkspaceElements(p.channels / p.groups, p.kernel, p.out,
                                        elt.getIntOrFloatBitWidth() / 8)}});
      else
        result =
            callKernel(rewriter, op, "mxc_kernel_conv_" + kernelSuffix(elt),
                       {adaptor.getData(), w, bias ? bias : w}, ints, resultType);
    } else {
      result = genericConv(rewriter, loc, adaptor.getData(),
                           adaptor.getWeight(), bias, p, resultType);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertDeconvolution : OpConversionPattern<mx::DeconvolutionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::DeconvolutionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return unsupported(rewriter, op, "dynamic shapes are not supported");
    auto resultType = cast<RankedTensorType>(op.getType());
    Type outElt = resultType.getElementType();
    // float16 / bfloat16 are computed in float32 (mx.Cast in and out), as
    // the col2im kernel takes float32 and float64.
    Type elt = outElt.isF16() || outElt.isBF16() ? rewriter.getF32Type() : outElt;
    if (!elt.isF32() && !elt.isF64())
      return unsupported(rewriter, op,
                         "only float32 and float64 are supported (the "
                         "runtime's col2im kernel; float16 and bfloat16 in "
                         "float32)");
    if (!useKernelCalls(op, elt))
      return unsupported(rewriter, op,
                         "needs the runtime's kernels (the module sets "
                         "mxc.kernel_calls = false)");
    SmallVector<int64_t> pad, adj;
    if (failed(mx::deconvolutionPadAdj(op, pad, adj)))
      return failure();
    Location loc = op.getLoc();
    auto widen = [&](Value v) -> Value {
      auto t = cast<RankedTensorType>(v.getType());
      if (t.getElementType() == elt)
        return v;
      return mx::CastOp::create(rewriter, loc, t.clone(elt), v,
                                rewriter.getStringAttr("float32"));
    };
    Value data = widen(adaptor.getData());
    Value bias = adaptor.getBias() ? widen(adaptor.getBias()) : Value();
    int64_t channels = cast<RankedTensorType>(data.getType()).getDimSize(1);
    RankedTensorType outType = resultType;
    resultType = resultType.clone(elt);
    Value result = mx::ConvolutionBackwardDataOp::create(
        rewriter, loc, resultType, data, widen(adaptor.getWeight()),
        op.getKernelAttr(), op.getStrideAttr(), op.getDilateAttr(),
        rewriter.getDenseI64ArrayAttr(pad),
        rewriter.getI64IntegerAttr(channels), op.getNumGroupAttr());
    if (bias) {
      // out[n, f, ...] += bias[f]
      MLIRContext *ctx = rewriter.getContext();
      unsigned rank = resultType.getRank();
      SmallVector<AffineMap> maps{
          AffineMap::getMultiDimIdentityMap(rank, ctx),
          AffineMap::get(rank, 0, {getAffineDimExpr(1, ctx)}, ctx),
          AffineMap::getMultiDimIdentityMap(rank, ctx)};
      Value empty = tensor::EmptyOp::create(rewriter, loc,
                                            resultType.getShape(), elt);
      result = linalg::GenericOp::create(
                   rewriter, loc, resultType, ValueRange{result, bias},
                   ValueRange{empty}, maps,
                   SmallVector<utils::IteratorType>(
                       rank, utils::IteratorType::parallel),
                   [](OpBuilder &nb, Location nl, ValueRange args) {
                     linalg::YieldOp::create(
                         nb, nl,
                         arith::AddFOp::create(nb, nl, args[0], args[1])
                             .getResult());
                   })
                   .getResult(0);
    }
    if (outElt != elt)
      result = mx::CastOp::create(rewriter, loc, outType, result,
                                  rewriter.getStringAttr(outElt.isF16() ? "float16"
                                                                        : "bfloat16"));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// mx.Convolution_fused (mx-fuse-convolution, f32 NCHW 2-D) -> the runtime's
/// mxc_kernel_conv_fused_f32; with a `sum` it accumulates into a destination
/// that starts as the sum (in place when that is the sum's last use).
struct ConvertConvolutionFused : OpConversionPattern<mx::ConvolutionFusedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::ConvolutionFusedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return unsupported(rewriter, op, "dynamic shapes are not supported");
    auto dataType = cast<RankedTensorType>(adaptor.getData().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!resultType.getElementType().isF32() || op.getKernel().size() != 2 ||
        !useKernelCalls(op, resultType.getElementType()))
      return unsupported(rewriter, op,
                         "needs float32, a 2-D kernel and the runtime's "
                         "kernels (mx-fuse-convolution makes no other)");
    SmallVector<int64_t> stride = orDefault(op.getStride(), 2, 1),
                         dilate = orDefault(op.getDilate(), 2, 1),
                         pad = orDefault(op.getPad(), 2, 0);
    Value w = adaptor.getWeight(), bias = adaptor.getBias(),
          scale = adaptor.getScale(), shift = adaptor.getShift(),
          sum = adaptor.getSum();
    int64_t flags = (bias ? 1 : 0) | (scale ? 2 : 0) | (shift ? 4 : 0) |
                    (sum ? 8 : 0) | (op.getConstantWeights() ? 16 : 0) |
                    (op.getBlockedData() ? 32 : 0) |
                    (op.getBlockedOutput() ? 64 : 0) |
                    (op.getActAfterSum() ? 128 : 0);
    StringRef act = op.getAct();
    SmallVector<int64_t> ints{dataType.getDimSize(0),
                              dataType.getDimSize(1),
                              static_cast<int64_t>(op.getNumFilter()),
                              static_cast<int64_t>(op.getNumGroup()),
                              dataType.getDimSize(2),
                              dataType.getDimSize(3),
                              op.getKernel()[0],
                              op.getKernel()[1],
                              resultType.getDimSize(2),
                              resultType.getDimSize(3),
                              stride[0],
                              stride[1],
                              pad[0],
                              pad[1],
                              dilate[0],
                              dilate[1],
                              flags,
                              act == "relu" ? 1 : act == "clip" ? 2 : 0,
                              floatParamBits(op.getActMin().convertToDouble()),
                              floatParamBits(op.getActMax().convertToDouble())};
    Location loc = op.getLoc();
    // Absent operands: the kernel does not read them; pass the weight.
    SmallVector<Value> inputs{adaptor.getData(), w, bias ? bias : w,
                              scale ? scale : w, shift ? shift : w};
    // The destination starts as the sum. One-shot bufferization accumulates
    // into the sum's own buffer where no later reader needs the old value
    // (ResNet's residual, read before by the next unit's BatchNorm: a copy
    // of the whole tensor less) and copies where one does. Where the sum is
    // also a result of the function (a training forward's residual) it
    // failed with "cannot avoid RaW conflict": an explicit copy there.
    Value init;
    if (!sum)
      init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                     resultType.getElementType());
    else if (llvm::none_of(op.getSum().getUsers(), llvm::IsaPred<func::ReturnOp>))
      init = sum;
    else
      init = bufferization::AllocTensorOp::create(
          rewriter, loc, cast<RankedTensorType>(sum.getType()), ValueRange(),
          /*copy=*/sum);
    Value result = mxc::mxrt::KernelCallOp::create(rewriter, loc,
                                              "mxc_kernel_conv_fused_f32",
                                              inputs, init, ints,
                                              /*accumulate=*/bool(sum))
                       .getResult();
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mxc::conversion::populateConvPatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  target.addIllegalOp<mx::ConvolutionOp, mx::DeconvolutionOp,
                      mx::ConvolutionFusedOp>();
  patterns.add<ConvertConvolution, ConvertDeconvolution,
               ConvertConvolutionFused>(typeConverter, patterns.getContext());
}
