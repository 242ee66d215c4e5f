//===- MXGradientsNN.cpp - gradient rules of the layer ops ----------------===//
//
// GradientOpInterface external models (MXNet's FGradient) for Convolution,
// Pooling, LRN and FullyConnected, following MXNet 1.9.1's backward
// operators:
//   Convolution    data:   mx.Convolution_backward_data(dy, weight)
//                  weight: mx.Convolution_backward_weight(dy, data)
//                  bias:   sum(dy) over every axis but the channel axis
//                  (src/operator/nn/convolution-inl.h; NCW/NCHW/NCDHW)
//   Deconvolution  (the transposed convolution y = A_w^T x, deconvolution-inl.h)
//                  data:   mx.Convolution(dy, weight) (= A_w dy)
//                  weight: mx.Convolution_backward_weight(x, dy)
//                  bias:   sum(dy) over every axis but the channel axis
//                  with Deconvolution's effective pad (target_shape) and
//                  num_filter = the data's channels
//   Pooling        mx.Pooling_backward(dy, data, output): max routes to the
//                  first maximum of each window, avg/sum/lp as pool.h
//   LRN            mx.LRN_backward(dy, data, tmp_norm, output); the hidden
//                  tmp_norm output gets no gradient (MXNet ignores it too)
//   FullyConnected composed of mx ops (fully_connected-inl.h): with
//                  X = data as (M, K) (flatten: (N, prod(rest)); else the
//                  leading axes are rows) and dY as (M, H),
//                    dX = dY * W, dW = dY^T * X, db = sum over rows of dY
//                  (db reshaped to the bias shape, (H,) or (H, 1)).
//   BatchNorm_train mx.BatchNorm_backward(dy, data, gamma, mean, invstd)
//                  (mx-autodiff's library-batch-norm form); the statistics
//                  results get no gradient (MXNet's mean / var outputs
//                  neither)
// The backward ops are those of MXBackwardOps.td.
//
//===----------------------------------------------------------------------===//
#include "GradientUtils.h"
#include "MXGradients.h"
#include "mxc/Dialect/MX/IR/MXDialect.h"
#include "mxc/Dialect/MX/IR/MXOps.h"

using namespace mlir;
using namespace mxc::mx;

namespace {

using Grads = SmallVectorImpl<Value>;

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// "no gradient for <MXNet op> with <what>" at the op (its MXNet node).
LogicalResult unsupported(Operation *op, StringRef mxnetName,
                          const Twine &what) {
  return op->emitError() << "no gradient for " << mxnetName << " with " << what;
}

/// The external model: runs `Rule::build` with a GradBuilder at the op's
/// location and checks the operand gradients' types.
template <typename OpTy, typename Rule>
struct Model
    : public GradientOpInterface::ExternalModel<Model<OpTy, Rule>, OpTy> {
  LogicalResult buildGradient(Operation *op, OpBuilder &b, ValueRange outGrads,
                              Grads &inGrads) const {
    GradBuilder g(b, op->getLoc());
    if (inGrads.size() != op->getNumOperands())
      inGrads.resize(op->getNumOperands());
    if (failed(Rule::build(cast<OpTy>(op), g, outGrads, inGrads)) || g.failed())
      return failure();
    for (auto [i, v] : llvm::enumerate(inGrads))
      if (v && v.getType() != op->getOperand(i).getType())
        return op->emitError()
               << "internal error: gradient of operand " << i << " has type "
               << v.getType() << ", expected " << op->getOperand(i).getType();
    return success();
  }
};

/// The float32 form of a float16 / bfloat16 value (the library backward
/// kernels take float32 and float64: a low-precision layer's gradient is
/// computed in float32 and cast back, as MXNet's CPU kernels accumulate
/// float16 in float32); other values as they are.
Value widened(GradBuilder &g, Value v) {
  Type elt = typeOf(v).getElementType();
  return elt.isF16() || elt.isBF16() ? g.cast(v, Float32Type::get(v.getContext())) : v;
}

/// `type` with the element type of `v` (a widened operand's result type).
Type like(Type type, Value v) {
  return cast<RankedTensorType>(type).clone(typeOf(v).getElementType());
}

/// 0, 2, 3, ... rank-1: every axis but the channel axis of NC* data.
SmallVector<int64_t> nonChannelAxes(int64_t rank) {
  SmallVector<int64_t> axes{0};
  for (int64_t i = 2; i < rank; ++i)
    axes.push_back(i);
  return axes;
}

struct ConvolutionRule {
  static LogicalResult build(ConvolutionOp op, GradBuilder &g,
                             ValueRange outGrads, Grads &in) {
    if (auto layout = op.getLayout();
        layout && (*layout == "NHWC" || *layout == "NDHWC"))
      return unsupported(op, "Convolution",
                         "layout " + *layout + " (channel-last)");
    OpBuilder &b = g.builder();
    Location loc = op.getLoc();
    Value dy = outGrads[0];
    Value data = op.getData(), weight = op.getWeight();
    Value dyW = widened(g, dy), dataW = widened(g, data), weightW = widened(g, weight);
    if (g.failed())
      return failure();
    in[0] = g.cast(ConvolutionBackwardDataOp::create(
                       b, loc, like(data.getType(), dataW), dyW, weightW,
                       op.getKernelAttr(), op.getStrideAttr(), op.getDilateAttr(),
                       op.getPadAttr(), op.getNumFilterAttr(), op.getNumGroupAttr()),
                   typeOf(data).getElementType());
    in[1] = g.cast(ConvolutionBackwardWeightOp::create(
                       b, loc, like(weight.getType(), weightW), dyW, dataW,
                       op.getKernelAttr(), op.getStrideAttr(), op.getDilateAttr(),
                       op.getPadAttr(), op.getNumFilterAttr(), op.getNumGroupAttr()),
                   typeOf(weight).getElementType());
    if (Value bias = op.getBias())
      in[2] = g.cast(g.reshape(g.sum(dyW, nonChannelAxes(typeOf(dy).getRank()),
                                     /*keepdims=*/false),
                               typeOf(bias).getShape()),
                     typeOf(bias).getElementType());
    return success();
  }
};

struct DeconvolutionRule {
  static LogicalResult build(DeconvolutionOp op, GradBuilder &g,
                             ValueRange outGrads, Grads &in) {
    SmallVector<int64_t> pad, adj;
    if (failed(deconvolutionPadAdj(op, pad, adj)))
      return failure();
    OpBuilder &b = g.builder();
    Location loc = op.getLoc();
    Value dy = outGrads[0];
    Value data = op.getData(), weight = op.getWeight();
    int64_t channels = typeOf(data).getDimSize(1);
    Value dataW = widened(g, data), dyW = widened(g, dy), weightW = widened(g, weight);
    if (g.failed())
      return failure();
    in[0] = g.cast(g.op("mx.Convolution", {dyW, weightW},
                 {g.shape("kernel", op.getKernel()),
                  g.shape("stride", op.getStride()),
                  g.shape("dilate", op.getDilate()), g.shape("pad", pad),
                  g.i64("num_filter", channels),
                  g.i64("num_group", static_cast<int64_t>(op.getNumGroup())),
                  g.boolean("no_bias", true)}),
                   typeOf(data).getElementType());
    in[1] = g.cast(ConvolutionBackwardWeightOp::create(
                       b, loc, like(weight.getType(), dataW), dataW, dyW,
                       op.getKernelAttr(), op.getStrideAttr(), op.getDilateAttr(),
                       b.getDenseI64ArrayAttr(pad), b.getI64IntegerAttr(channels),
                       op.getNumGroupAttr()),
                   typeOf(weight).getElementType());
    if (Value bias = op.getBias())
      in[2] = g.cast(g.reshape(g.sum(dyW, nonChannelAxes(typeOf(dy).getRank()),
                                     /*keepdims=*/false),
                               typeOf(bias).getShape()),
                     typeOf(bias).getElementType());
    return success();
  }
};

struct PoolingRule {
  static LogicalResult build(PoolingOp op, GradBuilder &g, ValueRange outGrads,
                             Grads &in) {
    // (widening is exact: max pooling still finds its maximum by equality)
    Value data = op.getData();
    Value dyW = widened(g, outGrads[0]), dataW = widened(g, data),
          outW = widened(g, op.getOutput());
    if (g.failed())
      return failure();
    in[0] = g.cast(PoolingBackwardOp::create(
                       g.builder(), op.getLoc(), like(data.getType(), dataW), dyW,
                       dataW, outW, op.getKernelAttr(), op.getPoolTypeAttr(),
                       op.getGlobalPoolAttr(), op.getPoolingConventionAttr(),
                       op.getStrideAttr(), op.getPadAttr(), op.getPValueAttr(),
                       op.getCountIncludePadAttr(), op.getLayoutAttr()),
                   typeOf(data).getElementType());
    return success();
  }
};

struct LRNRule {
  static LogicalResult build(LRNOp op, GradBuilder &g, ValueRange outGrads,
                             Grads &in) {
    // outGrads[1] (the hidden tmp_norm) is ignored, as in MXNet.
    in[0] = LRNBackwardOp::create(
        g.builder(), op.getLoc(), op.getData().getType(), outGrads[0],
        op.getData(), op.getTmpNorm(), op.getOutput(), op.getAlphaAttr(), op.getBetaAttr(),
        op.getKnormAttr(), op.getNsizeAttr());
    return success();
  }
};

struct FullyConnectedRule {
  static LogicalResult build(FullyConnectedOp op, GradBuilder &g,
                             ValueRange outGrads, Grads &in) {
    Value data = op.getData(), weight = op.getWeight();
    ArrayRef<int64_t> xs = typeOf(data).getShape();
    int64_t hidden = typeOf(weight).getDimSize(0);
    int64_t k = typeOf(weight).getDimSize(1);
    int64_t m = 1;
    for (int64_t d : op.getFlatten() ? xs.take_front() : xs.drop_back())
      m *= d;
    Value dy = g.reshape(outGrads[0], {m, hidden});
    Value x = g.reshape(data, {m, k});
    // dX (M, K) = dY (M, H) * W (H, K).
    in[0] = g.reshape(g.op("mx.dot", {dy, weight}), xs);
    // dW (H, K) = dY^T * X.
    in[1] = g.op("mx.dot", {dy, x}, {g.boolean("transpose_a", true)});
    if (Value bias = op.getBias())
      in[2] = g.reshape(g.sum(dy, {0}, /*keepdims=*/false),
                        typeOf(bias).getShape());
    return success();
  }
};

struct BatchNormTrainRule {
  static LogicalResult build(BatchNormTrainOp op, GradBuilder &g,
                             ValueRange outGrads, Grads &in) {
    Type gammaType = op.getGamma().getType();
    auto back = BatchNormBackwardOp::create(
        g.builder(), op.getLoc(),
        TypeRange{op.getData().getType(), gammaType, gammaType}, outGrads[0],
        op.getData(), op.getGamma(), op.getMean(), op.getInvstd(),
        op.getEpsAttr(), op.getAxisAttr());
    in[0] = back.getDataGrad();
    in[1] = back.getGammaGrad();
    in[2] = back.getBetaGrad();
    return success();
  }
};

} // namespace

void mxc::mx::registerNNGradients(MXDialect &dialect) {
  MLIRContext *ctx = dialect.getContext();
  ConvolutionOp::attachInterface<Model<ConvolutionOp, ConvolutionRule>>(*ctx);
  DeconvolutionOp::attachInterface<Model<DeconvolutionOp, DeconvolutionRule>>(
      *ctx);
  PoolingOp::attachInterface<Model<PoolingOp, PoolingRule>>(*ctx);
  LRNOp::attachInterface<Model<LRNOp, LRNRule>>(*ctx);
  FullyConnectedOp::attachInterface<
      Model<FullyConnectedOp, FullyConnectedRule>>(*ctx);
  BatchNormTrainOp::attachInterface<
      Model<BatchNormTrainOp, BatchNormTrainRule>>(*ctx);
}
