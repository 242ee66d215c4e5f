//===- MXShapeInferenceNN.cpp - result types of the mx layer ops ---------===//
//
// MXNet 1.9.1's shape and type functions for the neural-network layers:
// Convolution, Pooling, FullyConnected, BatchNorm, LRN, Dropout, Concat,
// Flatten, SoftmaxOutput, LeakyReLU, Cast. Each mirrors the FInferShape /
// FInferType of the MXNet operator (cited per function) and turns MXNet's
// CHECK failures into diagnostics; dynamic extents propagate where MXNet
// would leave a dimension unknown.
//
//===----------------------------------------------------------------------===//
#include "mxc/Dialect/MX/IR/MXOps.h"

#include "MXInference.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mxc::mx;
using namespace mxc::mx::detail;

/// Integer ceil(a / b) for a >= 0, b > 0.
static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Position of the channel axis and of the spatial axes for an N-D layout:
/// NC* (channel first) or N*C (channel last).
struct LayoutAxes {
  int64_t channel;
  SmallVector<int64_t, 3> spatial;
};
static LayoutAxes getLayoutAxes(int64_t rank, bool channelLast) {
  LayoutAxes axes;
  axes.channel = channelLast ? rank - 1 : 1;
  for (int64_t i = 0; i < rank - 2; ++i)
    axes.spatial.push_back(channelLast ? 1 + i : 2 + i);
  return axes;
}

/// Resolves an optional MXNet layout for `nSpatial` spatial dimensions:
/// sets `channelLast`, or fails if the layout does not fit.
static LogicalResult resolveLayout(std::optional<Location> loc,
                                   StringRef opName,
                                   std::optional<StringRef> layout,
                                   int64_t nSpatial, bool allowNWC,
                                   bool &channelLast) {
  static const char *const first[] = {"NCW", "NCHW", "NCDHW"};
  static const char *const last[] = {"NWC", "NHWC", "NDHWC"};
  channelLast = false;
  if (!layout)
    return success();
  if (*layout == first[nSpatial - 1])
    return success();
  if (*layout == last[nSpatial - 1] && (nSpatial > 1 || allowNWC)) {
    channelLast = true;
    return success();
  }
  return inferError(loc, opName, "layout ", *layout, " does not fit ",
                    nSpatial + 2, "-D data");
}

/// Fails unless every entry of `values` is >= `min`.
static LogicalResult checkAtLeast(std::optional<Location> loc, StringRef opName,
                                  StringRef what, ArrayRef<int64_t> values,
                                  int64_t min) {
  for (int64_t v : values)
    if (v < min)
      return inferError(loc, opName, what, " ", formatShape(values),
                        " must have entries >= ", min);
  return success();
}

/// What Convolution and Deconvolution check alike (ConvolutionParam /
/// DeconvolutionParam): a 1-, 2- or 3-D kernel for (k + 2)-D data, stride /
/// dilate / pad with MXNet's defaults (1 / 1 / 0) and bounds, num_filter and
/// num_group >= 1, and a bias input exactly when no_bias is false. The layout
/// is resolved (channel-last allowed for 2-D / 3-D kernels).
struct ConvAttrs {
  int64_t k;
  bool channelLast;
  Shape stride, dilate, pad;
  int64_t numFilter, numGroup;
};
template <typename Adaptor>
static FailureOr<ConvAttrs> checkConvAttrs(std::optional<Location> loc,
                                           StringRef name,
                                           RankedTensorType data,
                                           Adaptor adaptor) {
  ConvAttrs c;
  ArrayRef<int64_t> kernel = adaptor.getKernel();
  c.k = kernel.size();
  if (c.k < 1 || c.k > 3)
    return inferError(loc, name, "kernel ", formatShape(kernel),
                      " must have 1, 2 or 3 entries");
  if (data.getRank() != c.k + 2)
    return inferError(loc, name, "expects ", c.k + 2, "-D data for a ", c.k,
                      "-D kernel, got ", formatShape(data.getShape()));
  if (failed(resolveLayout(loc, name, adaptor.getLayout(), c.k,
                           /*allowNWC=*/false, c.channelLast)))
    return failure();
  auto stride =
      expandSpatialParam(loc, name, "stride", adaptor.getStride(), c.k, 1);
  auto dilate =
      expandSpatialParam(loc, name, "dilate", adaptor.getDilate(), c.k, 1);
  auto pad = expandSpatialParam(loc, name, "pad", adaptor.getPad(), c.k, 0);
  if (failed(stride) || failed(dilate) || failed(pad) ||
      failed(checkAtLeast(loc, name, "kernel", kernel, 1)) ||
      failed(checkAtLeast(loc, name, "stride", *stride, 1)) ||
      failed(checkAtLeast(loc, name, "dilate", *dilate, 1)) ||
      failed(checkAtLeast(loc, name, "pad", *pad, 0)))
    return failure();
  c.stride = *stride;
  c.dilate = *dilate;
  c.pad = *pad;
  c.numFilter = static_cast<int64_t>(adaptor.getNumFilter());
  c.numGroup = static_cast<int64_t>(adaptor.getNumGroup());
  if (c.numFilter < 1)
    return inferError(loc, name, "num_filter must be >= 1, got ", c.numFilter);
  if (c.numGroup < 1)
    return inferError(loc, name, "num_group must be >= 1, got ", c.numGroup);
  Value bias = adaptor.getBias();
  if (!adaptor.getNoBias() && !bias)
    return inferError(loc, name, "expects a bias input unless no_bias is true");
  if (adaptor.getNoBias() && bias)
    return inferError(loc, name, "has a bias input but no_bias is true");
  return c;
}

//===----------------------------------------------------------------------===//
// Convolution (src/operator/nn/convolution.cc ConvolutionShape / Type)
//===----------------------------------------------------------------------===//

LogicalResult ConvolutionOp::inferReturnTypes(MLIRContext *context,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  auto weight = getTensorType(loc, name, adaptor.getWeight(), "weight");
  if (failed(data) || failed(weight))
    return failure();
  auto c = checkConvAttrs(loc, name, *data, adaptor);
  if (failed(c))
    return failure();
  ArrayRef<int64_t> kernel = adaptor.getKernel();
  int64_t k = c->k, numFilter = c->numFilter, numGroup = c->numGroup;
  bool channelLast = c->channelLast;
  Shape *stride = &c->stride, *dilate = &c->dilate, *pad = &c->pad;
  if (numFilter % numGroup != 0)
    return inferError(loc, name, "num_filter ", numFilter,
                      " not divisible by num_group ", numGroup);
  Value bias = adaptor.getBias();

  ArrayRef<int64_t> in = data->getShape();
  Type elt = data->getElementType();
  LayoutAxes axes = getLayoutAxes(k + 2, channelLast);
  int64_t channels = in[axes.channel];
  if (!isDynamic(channels) && channels % numGroup != 0)
    return inferError(loc, name, "input channels ", channels,
                      " not divisible by num_group ", numGroup);
  int64_t perGroup = isDynamic(channels) ? kDynamic : channels / numGroup;

  // weight: (num_filter, C / num_group, *kernel), channel-last
  // (num_filter, *kernel, C / num_group).
  Shape wshape{numFilter};
  if (!channelLast)
    wshape.push_back(perGroup);
  wshape.append(kernel.begin(), kernel.end());
  if (channelLast)
    wshape.push_back(perGroup);
  if (failed(checkShape(loc, name, "weight", *weight, wshape)) ||
      failed(checkElementType(loc, name, "weight", *weight, elt)))
    return failure();
  if (bias) {
    auto biasType = getTensorType(loc, name, bias, "bias");
    if (failed(biasType) ||
        failed(checkShape(loc, name, "bias", *biasType, {numFilter})) ||
        failed(checkElementType(loc, name, "bias", *biasType, elt)))
      return failure();
  }

  Shape out(k + 2);
  out[0] = in[0];
  out[axes.channel] = numFilter;
  for (int64_t i = 0; i < k; ++i) {
    int64_t extent = in[axes.spatial[i]];
    if (isDynamic(extent)) {
      out[axes.spatial[i]] = kDynamic;
      continue;
    }
    int64_t dilated = 1 + (kernel[i] - 1) * (*dilate)[i];
    int64_t padded = extent + 2 * (*pad)[i];
    if (dilated > padded)
      return inferError(loc, name, "kernel size ", dilated,
                        " (dilated) exceeds padded input size ", padded,
                        " in spatial dimension ", i);
    out[axes.spatial[i]] = (padded - dilated) / (*stride)[i] + 1;
  }
  results.push_back(RankedTensorType::get(out, elt));
  return success();
}

//===----------------------------------------------------------------------===//
// LayerNorm, InstanceNorm, GroupNorm (layer_norm.cc LayerNormShape,
// instance_norm-inl.h InferShape, group_norm.cc GroupNormShape),
// L2Normalization (l2_normalization-inl.h InferShape)
//===----------------------------------------------------------------------===//

/// data, and gamma / beta of shape `param` with data's element type.
static LogicalResult checkNormParams(std::optional<Location> loc,
                                     StringRef name, Value gamma, Value beta,
                                     ArrayRef<int64_t> param, Type elt) {
  for (auto [v, what] : {std::pair{gamma, "gamma"}, {beta, "beta"}}) {
    auto t = getTensorType(loc, name, v, what);
    if (failed(t) || failed(checkShape(loc, name, what, *t, param)) ||
        failed(checkElementType(loc, name, what, *t, elt)))
      return failure();
  }
  return success();
}

/// The normalizations' results: the data's type, then `numStats` statistics
/// of shape `stats`.
static LogicalResult normResults(RankedTensorType data, ArrayRef<int64_t> stats,
                                 int numStats, SmallVectorImpl<Type> &results) {
  results.push_back(data);
  for (int i = 0; i < numStats; ++i)
    results.push_back(RankedTensorType::get(stats, data.getElementType()));
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  auto axis = normalizeAxis(loc, name, static_cast<int64_t>(adaptor.getAxis()),
                            data->getRank());
  if (failed(axis))
    return failure();
  Type elt = data->getElementType();
  if (failed(checkNormParams(loc, name, adaptor.getGamma(), adaptor.getBeta(),
                             {data->getDimSize(*axis)}, elt)))
    return failure();
  Shape moments(data->getShape().begin(), data->getShape().end());
  moments[*axis] = 1;
  return normResults(*data, moments, 2, results);
}

LogicalResult InstanceNormOp::inferReturnTypes(MLIRContext *context,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  if (data->getRank() < 3)
    return inferError(loc, name, "expects (N, C, ...) data with at least one "
                      "spatial axis, got ", formatShape(data->getShape()));
  Type elt = data->getElementType();
  if (failed(checkNormParams(loc, name, adaptor.getGamma(), adaptor.getBeta(),
                             {data->getDimSize(1)}, elt)))
    return failure();
  return normResults(*data, {data->getDimSize(0), data->getDimSize(1)}, 2,
                     results);
}

LogicalResult GroupNormOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  int64_t groups = static_cast<int64_t>(adaptor.getNumGroups());
  if (data->getRank() < 2)
    return inferError(loc, name, "expects (N, C, ...) data, got ",
                      formatShape(data->getShape()));
  if (groups < 1)
    return inferError(loc, name, "num_groups must be >= 1, got ", groups);
  int64_t channels = data->getDimSize(1);
  if (!isDynamic(channels) && channels % groups != 0)
    return inferError(loc, name, "number of channels ", channels,
                      " should be divisible by num_groups ", groups);
  Type elt = data->getElementType();
  if (failed(checkNormParams(loc, name, adaptor.getGamma(), adaptor.getBeta(),
                             {groups}, elt)))
    return failure();
  return normResults(*data, {data->getDimSize(0), groups}, 2, results);
}

LogicalResult L2NormalizationOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  ArrayRef<int64_t> in = data->getShape();
  StringRef mode = adaptor.getMode();
  if (in.empty())
    return inferError(loc, name, "expects at least 1-D data");
  Shape norm;
  if (mode == "instance") {
    norm = {in[0]};
  } else {
    if (in.size() < 3)
      return inferError(loc, name, "at least 3 dimensions required in ", mode,
                        " mode, got ", formatShape(in));
    if (mode == "channel") {
      norm.assign(in.begin(), in.end());
      norm[1] = 1;
    } else {
      norm = {in[0], in[1]};
    }
  }
  return normResults(*data, norm, 1, results);
}

//===----------------------------------------------------------------------===//
// Deconvolution (src/operator/nn/deconvolution.cc DeconvolutionShape,
// deconvolution-inl.h InferPad)
//===----------------------------------------------------------------------===//

/// MXNet's DeconvolutionParam::InferPad for the spatial extents `in`: the
/// padding and output adjustment of each dimension (computed from
/// `target_shape` when any of its entries is non-zero), or a diagnostic.
static LogicalResult
deconvolutionPadAdjImpl(std::optional<Location> loc, StringRef name,
                        ArrayRef<int64_t> in, ArrayRef<int64_t> kernel,
                        ArrayRef<int64_t> stride, ArrayRef<int64_t> dilate,
                        ArrayRef<int64_t> pad, ArrayRef<int64_t> adj,
                        ArrayRef<int64_t> target, SmallVectorImpl<int64_t> &oPad,
                        SmallVectorImpl<int64_t> &oAdj) {
  int64_t k = kernel.size();
  bool fromTarget = llvm::any_of(target, [](int64_t t) { return t != 0; });
  if (fromTarget && static_cast<int64_t>(target.size()) != k)
    return inferError(loc, name, "target_shape ", formatShape(target),
                      " must have ", k, " entries");
  oPad.assign(k, 0);
  oAdj.assign(k, 0);
  for (int64_t i = 0; i < k; ++i) {
    if (!fromTarget) {
      oPad[i] = i < static_cast<int64_t>(pad.size()) ? pad[i] : 0;
      oAdj[i] = i < static_cast<int64_t>(adj.size()) ? adj[i] : 0;
      continue;
    }
    if (isDynamic(in[i]))
      continue;
    int64_t full = stride[i] * (in[i] - 1) + 1 + (kernel[i] - 1) * dilate[i];
    if (full < target[i])
      return inferError(loc, name, "target_shape ", formatShape(target),
                        " is too big: at most ", full, " in spatial dimension ",
                        i);
    int64_t total = full - target[i];
    oAdj[i] = total % 2;
    oPad[i] = (total + 1) / 2;
  }
  return success();
}

LogicalResult mxc::mx::deconvolutionPadAdj(DeconvolutionOp op,
                                           SmallVectorImpl<int64_t> &pad,
                                           SmallVectorImpl<int64_t> &adj) {
  int64_t k = op.getKernel().size();
  auto data = cast<RankedTensorType>(op.getData().getType());
  auto expand = [&](ArrayRef<int64_t> v, int64_t dflt) {
    return v.empty() ? SmallVector<int64_t>(k, dflt)
                     : SmallVector<int64_t>(v.begin(), v.end());
  };
  return deconvolutionPadAdjImpl(
      op.getLoc(), op->getName().getStringRef(),
      data.getShape().drop_front(2), op.getKernel(), expand(op.getStride(), 1),
      expand(op.getDilate(), 1), op.getPad(), op.getAdj(), op.getTargetShape(),
      pad, adj);
}

LogicalResult DeconvolutionOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  auto weight = getTensorType(loc, name, adaptor.getWeight(), "weight");
  if (failed(data) || failed(weight))
    return failure();
  auto c = checkConvAttrs(loc, name, *data, adaptor);
  if (failed(c))
    return failure();
  ArrayRef<int64_t> kernel = adaptor.getKernel();
  int64_t k = c->k, numFilter = c->numFilter, numGroup = c->numGroup;
  Shape *stride = &c->stride, *dilate = &c->dilate, *pad = &c->pad;
  if (c->channelLast)
    return inferError(loc, name, "layout ", *adaptor.getLayout(),
                      " is not supported by mxc (MXNet supports it on GPUs "
                      "only); use the channel-first layout");
  auto adj = expandSpatialParam(loc, name, "adj", adaptor.getAdj(), k, 0);
  if (failed(adj) || failed(checkAtLeast(loc, name, "adj", *adj, 0)))
    return failure();
  if (numFilter % numGroup != 0)
    return inferError(loc, name, "output num_filter ", numFilter,
                      " must divide group size ", numGroup);
  Value bias = adaptor.getBias();

  ArrayRef<int64_t> in = data->getShape();
  Type elt = data->getElementType();
  int64_t channels = in[1];
  if (!isDynamic(channels) && channels % numGroup != 0)
    return inferError(loc, name, "input num_filter ", channels,
                      " must divide group size ", numGroup);
  // weight: (C, num_filter / num_group, *kernel).
  Shape wshape{channels, numFilter / numGroup};
  wshape.append(kernel.begin(), kernel.end());
  if (failed(checkShape(loc, name, "weight", *weight, wshape)) ||
      failed(checkElementType(loc, name, "weight", *weight, elt)))
    return failure();
  if (bias) {
    auto biasType = getTensorType(loc, name, bias, "bias");
    if (failed(biasType) ||
        failed(checkShape(loc, name, "bias", *biasType, {numFilter})) ||
        failed(checkElementType(loc, name, "bias", *biasType, elt)))
      return failure();
  }

  SmallVector<int64_t> oPad, oAdj;
  if (failed(deconvolutionPadAdjImpl(loc, name, in.drop_front(2), kernel,
                                     *stride, *dilate, *pad, *adj,
                                     adaptor.getTargetShape(), oPad, oAdj)))
    return failure();
  Shape out{in[0], numFilter};
  for (int64_t i = 0; i < k; ++i) {
    if (oAdj[i] >= (*stride)[i])
      return inferError(loc, name, "adj ", formatShape(oAdj),
                        " must be smaller than stride ", formatShape(*stride));
    if (isDynamic(in[2 + i])) {
      out.push_back(kDynamic);
      continue;
    }
    int64_t extent = (*stride)[i] * (in[2 + i] - 1) + 1 +
                     (kernel[i] - 1) * (*dilate)[i] - 2 * oPad[i] + oAdj[i];
    if (extent < 1)
      return inferError(loc, name, "output extent ", extent,
                        " in spatial dimension ", i, " (pad ",
                        formatShape(oPad), " too large)");
    out.push_back(extent);
  }
  results.push_back(RankedTensorType::get(out, elt));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling (src/operator/nn/pooling.cc PoolingShape / PoolingType)
//===----------------------------------------------------------------------===//

LogicalResult PoolingOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  int64_t rank = data->getRank();
  if (rank < 3 || rank > 5)
    return inferError(loc, name, "expects 3-D, 4-D or 5-D data, got ",
                      formatShape(data->getShape()));
  int64_t k = rank - 2;
  bool channelLast;
  if (failed(resolveLayout(loc, name, adaptor.getLayout(), k,
                           /*allowNWC=*/true, channelLast)))
    return failure();
  StringRef poolType = adaptor.getPoolType();
  if (poolType == "lp" && !adaptor.getPValue())
    return inferError(loc, name, "lp pooling requires p_value");
  StringRef convention = adaptor.getPoolingConvention();
  ArrayRef<int64_t> in = data->getShape();
  LayoutAxes axes = getLayoutAxes(rank, channelLast);
  Shape out(in.begin(), in.end());

  if (adaptor.getGlobalPool()) {
    for (int64_t s : axes.spatial)
      out[s] = 1;
    results.push_back(RankedTensorType::get(out, data->getElementType()));
    return success();
  }
  ArrayRef<int64_t> kernel = adaptor.getKernel();
  if (kernel.empty())
    return inferError(loc, name,
                      "requires a kernel unless global_pool is true");
  if (static_cast<int64_t>(kernel.size()) != k)
    return inferError(loc, name, "kernel ", formatShape(kernel), " must have ",
                      k, " entries for ", rank, "-D data");
  auto stride =
      expandSpatialParam(loc, name, "stride", adaptor.getStride(), k, 1);
  auto pad = expandSpatialParam(loc, name, "pad", adaptor.getPad(), k, 0);
  if (failed(stride) || failed(pad) ||
      failed(checkAtLeast(loc, name, "kernel", kernel, 1)) ||
      failed(checkAtLeast(loc, name, "stride", *stride, 1)) ||
      failed(checkAtLeast(loc, name, "pad", *pad, 0)))
    return failure();
  if (convention == "same") {
    if (k != 1)
      return inferError(loc, name,
                        "pooling_convention 'same' supports 1-D pooling only");
    if (llvm::any_of(*pad, [](int64_t p) { return p != 0; }))
      return inferError(loc, name,
                        "pooling_convention 'same' does not allow pad");
  }
  for (int64_t i = 0; i < k; ++i) {
    int64_t extent = in[axes.spatial[i]];
    if (isDynamic(extent)) {
      out[axes.spatial[i]] = kDynamic;
      continue;
    }
    int64_t padded = extent + 2 * (*pad)[i];
    if (kernel[i] > padded)
      return inferError(loc, name, "kernel size ", kernel[i],
                        " exceeds padded input size ", padded,
                        " in spatial dimension ", i);
    int64_t s = (*stride)[i];
    if (convention == "valid")
      out[axes.spatial[i]] = 1 + (padded - kernel[i]) / s;
    else if (convention == "full")
      out[axes.spatial[i]] = 1 + ceilDiv(padded - kernel[i], s);
    else
      out[axes.spatial[i]] = ceilDiv(padded, s);
  }
  results.push_back(RankedTensorType::get(out, data->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// FullyConnected (src/operator/nn/fully_connected.cc FullyConnectedShape)
//===----------------------------------------------------------------------===//

LogicalResult
FullyConnectedOp::inferReturnTypes(MLIRContext *context,
                                   std::optional<Location> loc, Adaptor adaptor,
                                   SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  auto weight = getTensorType(loc, name, adaptor.getWeight(), "weight");
  if (failed(data) || failed(weight))
    return failure();
  if (data->getRank() == 0)
    return inferError(loc, name, "expects data of rank >= 1");
  int64_t numHidden = static_cast<int64_t>(adaptor.getNumHidden());
  if (numHidden < 1)
    return inferError(loc, name, "num_hidden must be >= 1, got ", numHidden);
  Value bias = adaptor.getBias();
  if (!adaptor.getNoBias() && !bias)
    return inferError(loc, name, "expects a bias input unless no_bias is true");
  if (adaptor.getNoBias() && bias)
    return inferError(loc, name, "has a bias input but no_bias is true");

  ArrayRef<int64_t> in = data->getShape();
  Type elt = data->getElementType();
  Shape out;
  int64_t numInput;
  if (adaptor.getFlatten()) {
    numInput = productOf(in.drop_front());
    out = {in[0], numHidden};
  } else {
    numInput = in.back();
    out.assign(in.begin(), in.end());
    out.back() = numHidden;
  }
  if (failed(checkShape(loc, name, "weight", *weight, {numHidden, numInput})) ||
      failed(checkElementType(loc, name, "weight", *weight, elt)))
    return failure();
  if (bias) {
    auto biasType = getTensorType(loc, name, bias, "bias");
    if (failed(biasType) ||
        failed(checkElementType(loc, name, "bias", *biasType, elt)))
      return failure();
    // MXNet accepts (num_hidden,) and (num_hidden, 1).
    ArrayRef<int64_t> b = biasType->getShape();
    bool ok = (b.size() == 1 && dimsCompatible(b[0], numHidden)) ||
              (b.size() == 2 && dimsCompatible(b[0], numHidden) &&
               dimsCompatible(b[1], 1));
    if (!ok)
      return inferError(loc, name, "bias shape ", formatShape(b),
                        " does not match expected (", numHidden, ",)");
  }
  results.push_back(RankedTensorType::get(out, elt));
  return success();
}

//===----------------------------------------------------------------------===//
// Flatten (src/operator/tensor/matrix_op-inl.h FlattenShape)
//===----------------------------------------------------------------------===//

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  if (data->getRank() == 0)
    return inferError(loc, name, "expects data of rank >= 1");
  ArrayRef<int64_t> in = data->getShape();
  Shape out{in[0], productOf(in.drop_front())};
  results.push_back(RankedTensorType::get(out, data->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// SoftmaxOutput (src/operator/softmax_output.cc SoftmaxOutputShape / Type)
//===----------------------------------------------------------------------===//

/// Whether `a` and `b` have the same rank and compatible extents.
static bool shapesCompatible(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip(a, b))
    if (!dimsCompatible(x, y))
      return false;
  return true;
}

LogicalResult
SoftmaxOutputOp::inferReturnTypes(MLIRContext *context,
                                  std::optional<Location> loc, Adaptor adaptor,
                                  SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  auto label = getTensorType(loc, name, adaptor.getLabel(), "label");
  if (failed(data) || failed(label))
    return failure();
  if (data->getRank() == 0)
    return inferError(loc, name, "expects data of rank >= 1");
  if (failed(
          checkElementType(loc, name, "label", *label, data->getElementType())))
    return failure();
  ArrayRef<int64_t> d = data->getShape(), l = label->getShape();
  if (!shapesCompatible(d, l)) {
    if (adaptor.getMultiOutput()) {
      if (d.size() < 2)
        return inferError(loc, name, "multi_output expects data of rank >= 2");
      // (N, size / N / C), (N, d2, ...) or (N, 1, d2, ...).
      int64_t rest = productOf(d.drop_front(2));
      Shape l1{d[0], rest};
      Shape l2{d[0]};
      l2.append(d.begin() + 2, d.end());
      Shape l3(d.begin(), d.end());
      l3[1] = 1;
      if (!shapesCompatible(l, l1) && !shapesCompatible(l, l2) &&
          !shapesCompatible(l, l3))
        return inferError(loc, name, "label shape ", formatShape(l),
                          " does not fit data shape ", formatShape(d),
                          "; expected ", formatShape(l1), " or ",
                          formatShape(l2));
    } else {
      Shape expected(d.begin(), d.end() - 1);
      if (!shapesCompatible(l, expected))
        return inferError(loc, name, "label shape ", formatShape(l),
                          " does not match expected ", formatShape(expected),
                          " or the data shape ", formatShape(d));
    }
  }
  results.push_back(*data);
  return success();
}

//===----------------------------------------------------------------------===//
// Cast (src/operator/tensor/elemwise_unary_op.h CastType)
//===----------------------------------------------------------------------===//

/// Cast and amp_cast: the data's shape in `dtype`; with `onlyFloats`
/// (amp_cast, AMPCastType), an element type other than float32 / float16 /
/// bfloat16 stays.
static LogicalResult inferCast(MLIRContext *context, std::optional<Location> loc,
                               StringRef name, Value dataOperand, StringRef dtype,
                               bool onlyFloats, SmallVectorImpl<Type> &results) {
  auto data = getTensorType(loc, name, dataOperand, "data");
  if (failed(data))
    return failure();
  Type elt = elementTypeForDType(context, dtype);
  if (!elt)
    return inferError(loc, name, "unknown dtype '", dtype, "'");
  Type in = data->getElementType();
  if (onlyFloats && !(in.isF32() || in.isF16() || in.isBF16()))
    elt = in;
  results.push_back(RankedTensorType::get(data->getShape(), elt));
  return success();
}

LogicalResult CastOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  return inferCast(context, loc, getOperationName(), adaptor.getData(),
                   adaptor.getDtype(), /*onlyFloats=*/false, results);
}

/// amp_cast (src/operator/tensor/amp_cast.h AMPCastType): float32, float16
/// and bfloat16 become `dtype`; every other element type stays.
LogicalResult AmpCastOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  return inferCast(context, loc, getOperationName(), adaptor.getData(),
                   adaptor.getDtype(), /*onlyFloats=*/true, results);
}

/// The tensor types of a variadic `data` operand whose length an attribute
/// (`countName`: num_args, num_outputs) gives; an error when they differ.
static LogicalResult variadicDataTypes(std::optional<Location> loc, StringRef name,
                                       ValueRange inputs, int64_t count,
                                       StringRef countName,
                                       SmallVectorImpl<RankedTensorType> &types) {
  if (count != static_cast<int64_t>(inputs.size()))
    return inferError(loc, name, countName, " ", count, " does not match the ",
                      inputs.size(), " inputs");
  for (Value v : inputs) {
    auto type = getTensorType(loc, name, v, "data");
    if (failed(type))
      return failure();
    types.push_back(*type);
  }
  return success();
}

/// amp_multicast (src/operator/tensor/amp_cast.h AMPMultiCastType,
/// AMPMultiCastShape): output i has input i's shape; the float32 / float16 /
/// bfloat16 inputs take the common type -- float32 if any input is float32,
/// else the first input's type; with cast_narrow the last float16 /
/// bfloat16 input's type, else float32 -- and the others keep theirs.
LogicalResult AmpMulticastOp::inferReturnTypes(MLIRContext *context,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &results) {
  SmallVector<RankedTensorType> types;
  if (failed(variadicDataTypes(loc, getOperationName(), adaptor.getData(),
                               static_cast<int64_t>(adaptor.getNumOutputs()),
                               "num_outputs", types)))
    return failure();
  auto lowPrecision = [](Type t) { return t.isF32() || t.isF16() || t.isBF16(); };
  bool narrow = adaptor.getCastNarrow();
  Type common = narrow ? Float32Type::get(context)
                       : (types.empty() ? Type() : types[0].getElementType());
  for (RankedTensorType t : types) {
    Type e = t.getElementType();
    if (!narrow && e.isF32())
      common = e;
    else if (narrow && (e.isF16() || e.isBF16()))
      common = e;
  }
  for (RankedTensorType t : types)
    results.push_back(RankedTensorType::get(
        t.getShape(), lowPrecision(t.getElementType()) ? common : t.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// LRN (src/operator/nn/lrn.cc LRNShape): output and the hidden tmp_norm.
//===----------------------------------------------------------------------===//

LogicalResult LRNOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  // MXNet's kernel views the input as 4-D (N, C, H, W).
  if (data->getRank() != 4)
    return inferError(loc, name, "expects 4-D data (N, C, H, W), got ",
                      formatShape(data->getShape()));
  results.push_back(*data);
  results.push_back(*data);
  return success();
}

//===----------------------------------------------------------------------===//
// Dropout (src/operator/nn/dropout.cc): output and the hidden mask.
//===----------------------------------------------------------------------===//

LogicalResult DropoutOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  Shape mask(data->getShape().begin(), data->getShape().end());
  for (int64_t axis : adaptor.getAxes()) {
    if (axis < 0 || axis >= data->getRank())
      return inferError(loc, name, "axes ", formatShape(adaptor.getAxes()),
                        " out of range for ", data->getRank(), "-D input");
    mask[axis] = 1;
  }
  results.push_back(*data);
  results.push_back(RankedTensorType::get(mask, data->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// BatchNorm (src/operator/nn/batch_norm.cc BatchNormShape / BatchNormType)
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  if (data->getRank() == 0)
    return inferError(loc, name, "expects data of rank >= 1");
  auto axis = normalizeAxis(loc, name, static_cast<int64_t>(adaptor.getAxis()),
                            data->getRank());
  if (failed(axis))
    return failure();
  int64_t channels = data->getDimSize(*axis);
  // Parameters and statistics of f16 / bf16 data are f32 (AccReal).
  Type elt = data->getElementType();
  Type paramElt =
      (elt.isF16() || elt.isBF16()) ? Type(Float32Type::get(context)) : elt;
  std::pair<Value, StringRef> params[] = {
      {adaptor.getGamma(), "gamma"},
      {adaptor.getBeta(), "beta"},
      {adaptor.getMovingMean(), "moving_mean"},
      {adaptor.getMovingVar(), "moving_var"}};
  for (auto [value, what] : params) {
    auto type = getTensorType(loc, name, value, what);
    if (failed(type) ||
        failed(checkShape(loc, name, what, *type, {channels})) ||
        failed(checkElementType(loc, name, what, *type, paramElt)))
      return failure();
  }
  auto stat = RankedTensorType::get({channels}, paramElt);
  results.push_back(*data);
  results.push_back(stat);
  results.push_back(stat);
  return success();
}

//===----------------------------------------------------------------------===//
// Concat (src/operator/nn/concat.cc ConcatShape)
//===----------------------------------------------------------------------===//

/// KhatriRaoShape: (r_i, k) matrices -> (prod r_i, k), one element type.
LogicalResult KhatriRaoOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  ValueRange inputs = adaptor.getArgs();
  int64_t numArgs = static_cast<int64_t>(adaptor.getNumArgs());
  if (inputs.empty())
    return inferError(loc, name, "expects at least one input");
  if (numArgs != static_cast<int64_t>(inputs.size()))
    return inferError(loc, name, "num_args ", numArgs, " does not match the ", inputs.size(),
                      " inputs");
  int64_t rows = 1, cols = 0;
  Type elt;
  for (auto [i, v] : llvm::enumerate(inputs)) {
    auto t = getTensorType(loc, name, v, "args");
    if (failed(t))
      return failure();
    if (t->getRank() != 2)
      return inferError(loc, name, "input ", i, " must be a matrix, got ",
                        formatShape(t->getShape()));
    if (i == 0) {
      cols = t->getDimSize(1);
      elt = t->getElementType();
    } else if (t->getDimSize(1) != cols) {
      return inferError(loc, name, "input ", i, " has ", t->getDimSize(1),
                        " columns, input 0 has ", cols);
    } else if (failed(checkElementType(loc, name, "args", *t, elt))) {
      return failure();
    }
    rows = (rows == ShapedType::kDynamic || t->isDynamicDim(0)) ? ShapedType::kDynamic
                                                                 : rows * t->getDimSize(0);
  }
  results.push_back(RankedTensorType::get({rows, cols}, elt));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  ValueRange inputs = adaptor.getData();
  int64_t numArgs = static_cast<int64_t>(adaptor.getNumArgs());
  if (inputs.empty())
    return inferError(loc, name, "expects at least one input");
  SmallVector<RankedTensorType> types;
  if (failed(variadicDataTypes(loc, name, inputs, numArgs, "num_args", types)))
    return failure();
  int64_t rank = types[0].getRank();
  if (rank == 0)
    return inferError(loc, name,
                      "zero-dimensional arrays cannot be concatenated");
  auto axis = normalizeAxis(loc, name, static_cast<int64_t>(adaptor.getDim()),
                            rank, "dim");
  if (failed(axis))
    return failure();
  Type elt = types[0].getElementType();
  Shape out(types[0].getShape().begin(), types[0].getShape().end());
  out[*axis] = 0;
  for (auto [i, type] : llvm::enumerate(types)) {
    if (type.getElementType() != elt)
      return inferError(loc, name, "input #", i, " element type ",
                        type.getElementType(), " does not match ", elt);
    if (type.getRank() != rank)
      return inferError(loc, name, "input #", i, " has rank ", type.getRank(),
                        ", expected ", rank);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t extent = type.getDimSize(d);
      if (d == *axis) {
        out[d] =
            isDynamic(extent) || isDynamic(out[d]) ? kDynamic : out[d] + extent;
        continue;
      }
      if (!dimsCompatible(out[d], extent))
        return inferError(
            loc, name, "input #", i, " shape ", formatShape(type.getShape()),
            " does not match the other inputs outside dim ", *axis);
      out[d] = mergeDims(out[d], extent);
    }
  }
  results.push_back(RankedTensorType::get(out, elt));
  return success();
}

//===----------------------------------------------------------------------===//
// LeakyReLU (src/operator/leaky_relu.cc LeakyReLUShape, expand_shape)
//===----------------------------------------------------------------------===//

LogicalResult LeakyReLUOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  StringRef act = adaptor.getActType();
  Value gamma = adaptor.getGamma();
  if (act == "prelu" && !gamma)
    return inferError(loc, name, "act_type 'prelu' requires a gamma input");
  if (act != "prelu" && gamma)
    return inferError(loc, name, "has a gamma input but act_type is '", act,
                      "' (only 'prelu' takes one)");
  if (gamma) {
    auto g = getTensorType(loc, name, gamma, "gamma");
    if (failed(g) || failed(checkElementType(loc, name, "gamma", *g,
                                             data->getElementType())))
      return failure();
    // MXNet's expand_shape: gamma's extents, right-aligned, match data's
    // axes 0 and 1 (equal or 1); any other data axis broadcasts.
    ArrayRef<int64_t> gs = g->getShape(), ds = data->getShape();
    int64_t s = static_cast<int64_t>(gs.size()) - 1;
    for (int64_t i = static_cast<int64_t>(ds.size()) - 1; i >= 0; --i)
      if (s >= 0 && i <= 1 && (dimsCompatible(ds[i], gs[s]) || gs[s] == 1))
        --s;
    if (s != -1)
      return inferError(loc, name, "cannot broadcast gamma shape ",
                        formatShape(gs), " to data shape ", formatShape(ds));
  }
  results.push_back(*data);
  if (act == "rrelu")
    results.push_back(*data);
  return success();
}

//===----------------------------------------------------------------------===//
// UpSampling (src/operator/nn/upsampling-inl.h UpSamplingProp::InferShape)
//===----------------------------------------------------------------------===//

LogicalResult UpSamplingOp::inferReturnTypes(MLIRContext *context,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  int64_t scale = static_cast<int64_t>(adaptor.getScale());
  if (scale < 1)
    return inferError(loc, name, "scale must be >= 1, got ", scale);
  auto inputs = adaptor.getData();
  if (inputs.empty())
    return inferError(loc, name, "needs at least one input");
  SmallVector<RankedTensorType> ts;
  for (auto [i, v] : llvm::enumerate(inputs)) {
    auto t = getTensorType(loc, name, v, "input");
    if (failed(t))
      return failure();
    if (t->getRank() != 4)
      return inferError(loc, name, "UpSample: Input data should be 4D in (batch, "
                        "channel, y, x); input ", i, " has shape ",
                        formatShape(t->getShape()));
    ts.push_back(*t);
  }
  ArrayRef<int64_t> d = ts[0].getShape();
  Shape out{d[0], d[1], d[2] * scale, d[3] * scale};
  if (adaptor.getSampleType() == "bilinear") {
    if (ts.size() != 2)
      return inferError(loc, name, "bilinear upsampling takes 2 inputs (data, "
                        "weight), got ", ts.size());
    int64_t numFilter = static_cast<int64_t>(adaptor.getNumFilter());
    int64_t k = 2 * scale - scale % 2;
    Shape w{numFilter, 1, k, k};
    if (d[1] != numFilter)
      return inferError(loc, name, "bilinear upsampling: data has ", d[1],
                        " channels, num_filter is ", numFilter,
                        " (one filter per channel)");
    if (ts[1].getShape() != ArrayRef<int64_t>(w))
      return inferError(loc, name, "bilinear upsampling: weight has shape ",
                        formatShape(ts[1].getShape()), ", expected ",
                        formatShape(w));
    results.push_back(RankedTensorType::get(out, ts[0].getElementType()));
    return success();
  }
  bool sum = adaptor.getMultiInputMode() == "sum";
  int64_t channels = 0;
  for (auto [i, t] : llvm::enumerate(ts)) {
    ArrayRef<int64_t> s = t.getShape();
    if (t.getElementType() != ts[0].getElementType())
      return inferError(loc, name, "input ", i, " has element type ",
                        t.getElementType(), ", input 0 ", ts[0].getElementType());
    if (s[0] != d[0])
      return inferError(loc, name, "input ", i, " has batch size ", s[0],
                        ", input 0 ", d[0]);
    if (out[2] % s[2] != 0 || out[3] % s[3] != 0 ||
        out[2] / s[2] != out[3] / s[3])
      return inferError(loc, name, "UpSamplingNearest: input ", i,
                        " of shape ", formatShape(s),
                        " does not upsample by one integer factor to the "
                        "output's height and width (",
                        out[2], ", ", out[3], ")");
    if (sum && s[1] != d[1])
      return inferError(loc, name, "multi_input_mode 'sum': input ", i,
                        " has ", s[1], " channels, input 0 ", d[1]);
    channels += s[1];
  }
  if (!sum)
    out[1] = channels;
  results.push_back(RankedTensorType::get(out, ts[0].getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// RNN (src/operator/rnn.cc RNNShape, rnn-inl.h GetRnnParamSize)
//===----------------------------------------------------------------------===//

int64_t mxc::mx::rnnGates(StringRef mode) {
  if (mode == "rnn_relu" || mode == "rnn_tanh")
    return 1;
  if (mode == "lstm")
    return 4;
  if (mode == "gru")
    return 3;
  return 0;
}

int64_t mxc::mx::rnnParamSize(int64_t numLayers, int64_t inputSize,
                              int64_t stateSize, int64_t directions,
                              StringRef mode) {
  int64_t size = stateSize * directions * rnnGates(mode);
  int64_t first = (inputSize + stateSize + 2) * size;
  int64_t other = (stateSize * directions + stateSize + 2) * size;
  return first + (numLayers - 1) * other;
}

LogicalResult RNNOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  StringRef mode = adaptor.getMode();
  if (adaptor.getUseSequenceLength())
    return inferError(loc, name, "use_sequence_length=True (variable sequence "
                      "lengths) is not supported by mxc");
  if (adaptor.getProjectionSize())
    return inferError(loc, name, "projection_size (LSTMP) is not supported by "
                      "mxc");
  int64_t h = static_cast<int64_t>(adaptor.getStateSize());
  int64_t layers = static_cast<int64_t>(adaptor.getNumLayers());
  if (h < 1 || h > (int64_t(1) << 20))
    return inferError(loc, name, "state_size must be in [1, 2^20], got ", h);
  if (layers < 1 || layers > 4096)
    return inferError(loc, name, "num_layers must be in [1, 4096], got ", layers);
  double p = adaptor.getP().convertToDouble();
  if (p < 0 || p > 1)
    return inferError(loc, name, "p must be in [0, 1], got ", p);
  bool lstm = mode == "lstm";
  if (adaptor.getLstmStateClipNan())
    return inferError(loc, name, "lstm_state_clip_nan=True is not supported by "
                      "mxc");
  if (adaptor.getLstmStateClipMin().has_value() !=
      adaptor.getLstmStateClipMax().has_value())
    return inferError(loc, name, "lstm_state_clip_min and lstm_state_clip_max "
                      "must be given together");
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  auto params = getTensorType(loc, name, adaptor.getParameters(), "parameters");
  auto state = getTensorType(loc, name, adaptor.getState(), "state");
  if (failed(data) || failed(params) || failed(state))
    return failure();
  if (data->getRank() != 3)
    return inferError(loc, name, "Input data should be rank-3 tensor of dim "
                      "[sequence length, batch size, input size], got ",
                      formatShape(data->getShape()));
  ArrayRef<int64_t> d = data->getShape();
  int64_t dirs = adaptor.getBidirectional() ? 2 : 1;
  Shape stateShape{layers * dirs, d[1], h};
  Type elt = data->getElementType();
  auto check = [&](RankedTensorType t, ArrayRef<int64_t> want,
                   StringRef what) -> LogicalResult {
    if (t.getShape() != want)
      return inferError(loc, name, what, " has shape ", formatShape(t.getShape()),
                        ", expected ", formatShape(want));
    if (t.getElementType() != elt)
      return inferError(loc, name, what, " has element type ",
                        t.getElementType(), ", data ", elt);
    return success();
  };
  // mxc unrolls the operator when it compiles it: a bound on the steps
  // (and on the parameter count, which must not overflow)
  constexpr int64_t kMaxSteps = 1 << 16;
  if (ShapedType::isDynamic(d[0]) || d[0] > kMaxSteps / (layers * dirs))
    return inferError(loc, name, "sequence length ", formatShape(d.take_front()),
                      " x ", layers * dirs, " layers and directions is more than the ",
                      kMaxSteps, " steps mxc unrolls");
  if (ShapedType::isDynamic(d[2]) || d[2] > (int64_t(1) << 30))
    return inferError(loc, name, "input size ", d[2], " is not supported");
  int64_t size = rnnParamSize(layers, d[2], h, dirs, mode);
  if (failed(check(*params, {size}, "parameters")) ||
      failed(check(*state, stateShape, "state")))
    return failure();
  if (lstm != bool(adaptor.getStateCell()))
    return inferError(loc, name, lstm ? "mode lstm needs a state_cell input"
                                      : "only mode lstm has a state_cell input");
  if (lstm) {
    auto cell = getTensorType(loc, name, adaptor.getStateCell(), "state_cell");
    if (failed(cell) || failed(check(*cell, stateShape, "state_cell")))
      return failure();
  }
  results.push_back(RankedTensorType::get({d[0], d[1], dirs * h}, elt));
  results.push_back(RankedTensorType::get(stateShape, elt));
  if (lstm)
    results.push_back(RankedTensorType::get(stateShape, elt));
  return success();
}

//===----------------------------------------------------------------------===//
// CTCLoss (src/operator/nn/ctc_loss-inl.h, ctc_loss.cc CTCLossOpShape)
//===----------------------------------------------------------------------===//

LogicalResult CTCLossOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto operands = adaptor.getData();
  size_t want = 2 + adaptor.getUseDataLengths() + adaptor.getUseLabelLengths();
  if (operands.size() != want)
    return inferError(loc, name, "expects ", want, " inputs (data, label",
                      adaptor.getUseDataLengths() ? ", data_lengths" : "",
                      adaptor.getUseLabelLengths() ? ", label_lengths" : "",
                      "), got ", operands.size());
  auto data = getTensorType(loc, name, operands[0], "data");
  auto label = getTensorType(loc, name, operands[1], "label");
  if (failed(data) || failed(label))
    return failure();
  if (data->getRank() != 3)
    return inferError(loc, name, "The number of dimensions of the data must be 3 "
                      "(sequence length, batch, alphabet), got ",
                      formatShape(data->getShape()));
  ArrayRef<int64_t> d = data->getShape();
  if (label->getRank() != 2 || label->getDimSize(0) != d[1] || label->getDimSize(1) < 1)
    return inferError(loc, name, "label must be (batch, max label length) with batch ",
                      d[1], ", got ", formatShape(label->getShape()));
  if (d[2] < 2)
    return inferError(loc, name, "the alphabet (data's last extent) needs the blank and a "
                      "class, got ", d[2]);
  constexpr int64_t kMaxSteps = 1 << 16;
  if (d[0] > kMaxSteps)
    return inferError(loc, name, "sequence length ", d[0], " is more than the ", kMaxSteps,
                      " steps mxc unrolls");
  for (size_t i = 2; i < operands.size(); ++i) {
    auto t = getTensorType(loc, name, operands[i], "lengths");
    if (failed(t))
      return failure();
    if (t->getShape() != ArrayRef<int64_t>{d[1]})
      return inferError(loc, name, i == 2 && adaptor.getUseDataLengths()
                                       ? "data_lengths"
                                       : "label_lengths",
                        " must be (", d[1], "), got ", formatShape(t->getShape()));
  }
  results.push_back(RankedTensorType::get({d[1]}, data->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// SequenceMask / SequenceLast / SequenceReverse (src/operator/
// sequence_mask-inl.h, sequence_last-inl.h, sequence_reverse-inl.h InferShape)
//===----------------------------------------------------------------------===//

/// Both ops' rule: data (rank >= 2), the time axis 0 or 1, sequence_length
/// (batch,) exactly with use_sequence_length; the result is data's type,
/// without the time axis when `dropAxis` (SequenceLast).
static LogicalResult inferSequence(std::optional<Location> loc, StringRef name, Value data,
                                   Value length, bool useLength, int64_t axis, bool dropAxis,
                                   SmallVectorImpl<Type> &results) {
  auto t = getTensorType(loc, name, data, "data");
  if (failed(t))
    return failure();
  if (t->getRank() < 2)
    return inferError(loc, name, "data must have at least 2 dimensions (time and batch), got ",
                      formatShape(t->getShape()));
  if (axis != 0 && axis != 1)
    return inferError(loc, name, "axis must be 0 or 1 (the time axis), got ", axis);
  if (useLength != static_cast<bool>(length))
    return inferError(loc, name,
                      useLength ? "use_sequence_length needs a sequence_length input"
                                : "a sequence_length input needs use_sequence_length");
  if (length) {
    auto l = getTensorType(loc, name, length, "sequence_length");
    if (failed(l))
      return failure();
    int64_t batch = t->getDimSize(1 - axis);
    if (l->getShape() != ArrayRef<int64_t>{batch})
      return inferError(loc, name, "sequence_length must be (", batch, "), got ",
                        formatShape(l->getShape()));
  }
  SmallVector<int64_t> shape(t->getShape());
  if (dropAxis)
    shape.erase(shape.begin() + axis);
  results.push_back(RankedTensorType::get(shape, t->getElementType()));
  return success();
}

LogicalResult SequenceMaskOp::inferReturnTypes(MLIRContext *context,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &results) {
  return inferSequence(loc, getOperationName(), adaptor.getData(),
                       adaptor.getSequenceLength(), adaptor.getUseSequenceLength(),
                       adaptor.getAxis(), /*dropAxis=*/false, results);
}

LogicalResult SequenceReverseOp::inferReturnTypes(MLIRContext *context,
                                                  std::optional<Location> loc,
                                                  Adaptor adaptor,
                                                  SmallVectorImpl<Type> &results) {
  if (adaptor.getAxis() != 0) // SequenceReverseOp::InferShape
    return inferError(loc, getOperationName(),
                      "only axis 0 (the time axis of (T, N, ...)) is supported, got ",
                      adaptor.getAxis());
  return inferSequence(loc, getOperationName(), adaptor.getData(),
                       adaptor.getSequenceLength(), adaptor.getUseSequenceLength(),
                       adaptor.getAxis(), /*dropAxis=*/false, results);
}

LogicalResult SequenceLastOp::inferReturnTypes(MLIRContext *context,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &results) {
  return inferSequence(loc, getOperationName(), adaptor.getData(),
                       adaptor.getSequenceLength(), adaptor.getUseSequenceLength(),
                       adaptor.getAxis(), /*dropAxis=*/true, results);
}

//===----------------------------------------------------------------------===//
// _contrib_AdaptiveAvgPooling2D, _contrib_BilinearResize2D (src/operator/
// contrib/adaptive_avg_pooling-inl.h AdaptiveAvgPoolOpInferShape,
// bilinear_resize-inl.h BilinearSampleOpInferShape)
//===----------------------------------------------------------------------===//

/// A 4-D (N, C, H, W) operand named `what`.
static FailureOr<RankedTensorType> nchwOperand(std::optional<Location> loc, StringRef name,
                                               Value v, StringRef what) {
  auto t = getTensorType(loc, name, v, what);
  if (failed(t))
    return failure();
  if (t->getRank() != 4)
    return inferError(loc, name, what, " must be 4-D (N, C, H, W), got ",
                      formatShape(t->getShape()));
  return t;
}

LogicalResult ContribAdaptiveAvgPooling2DOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto t = nchwOperand(loc, name, adaptor.getData(), "data");
  if (failed(t))
    return failure();
  ArrayRef<int64_t> size = adaptor.getOutputSize();
  // MXNet: () and more than two extents give 1 x 1.
  int64_t oh = size.size() == 1 || size.size() == 2 ? size[0] : 1;
  int64_t ow = size.size() == 2 ? size[1] : oh;
  if (size.size() > 2)
    oh = ow = 1;
  if (oh < 1 || ow < 1)
    return inferError(loc, name, "output_size must be positive, got ",
                      formatShape(size));
  ArrayRef<int64_t> d = t->getShape();
  results.push_back(
      RankedTensorType::get({d[0], d[1], oh, ow}, t->getElementType()));
  return success();
}

LogicalResult ContribBilinearResize2DOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto t = nchwOperand(loc, name, adaptor.getData(), "data");
  if (failed(t))
    return failure();
  StringRef mode = adaptor.getMode();
  bool like = mode == "like";
  if (like != static_cast<bool>(adaptor.getLike()))
    return inferError(loc, name,
                      like ? "mode 'like' needs a second input (like)"
                           : "a second input (like) needs mode 'like'");
  ArrayRef<int64_t> d = t->getShape();
  int64_t h = d[2], w = d[3];
  auto scaleH = adaptor.getScaleHeight(), scaleW = adaptor.getScaleWidth();
  // MXNet computes the scaled extents in float and truncates.
  auto scaled = [](int64_t x, double s) {
    return static_cast<int64_t>(static_cast<float>(s) * static_cast<float>(x));
  };
  int64_t oh = 0, ow = 0;
  if (mode == "size") {
    // As MXNet: scale_height decides for both extents (scale_width alone
    // is ignored).
    if (scaleH && !scaleW)
      return inferError(loc, name, "scale_height needs scale_width in mode 'size'");
    oh = scaleH ? scaled(h, scaleH->convertToDouble()) : adaptor.getHeight();
    ow = scaleH ? scaled(w, scaleW->convertToDouble()) : adaptor.getWidth();
  } else if (mode == "odd_scale") {
    if (!scaleH || !scaleW)
      return inferError(loc, name, "mode 'odd_scale' needs scale_height and scale_width");
    oh = h % 2 == 0 ? scaled(h, scaleH->convertToDouble())
                    : scaled(h - 1, scaleH->convertToDouble()) + 1;
    ow = w % 2 == 0 ? scaled(w, scaleW->convertToDouble())
                    : scaled(w - 1, scaleW->convertToDouble()) + 1;
  } else if (like) {
    auto l = nchwOperand(loc, name, adaptor.getLike(), "like");
    if (failed(l))
      return failure();
    oh = l->getDimSize(2);
    ow = l->getDimSize(3);
  } else {
    bool even = mode.contains("even"), up = mode.ends_with("up");
    auto adjust = [&](int64_t x) {
      bool ok = (x % 2 == 0) == even;
      return ok ? x : (up ? x + 1 : x - 1);
    };
    oh = adjust(h);
    ow = adjust(w);
  }
  if (oh < 1 || ow < 1)
    return inferError(loc, name, "the output size (", oh, ", ", ow,
                      ") of data ", formatShape(d), " is not positive");
  results.push_back(
      RankedTensorType::get({d[0], d[1], oh, ow}, t->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// _contrib_box_iou / box_encode / box_decode (src/operator/contrib/
// bounding_box-inl.h BoxOverlapShape, BoxEncodeShape, BoxDecodeShape)
//===----------------------------------------------------------------------===//

/// A box array: rank >= `minRank`, last extent 4.
static FailureOr<RankedTensorType> boxArray(std::optional<Location> loc, StringRef name,
                                            Value v, StringRef what, int64_t minRank,
                                            bool exactRank = false) {
  auto t = getTensorType(loc, name, v, what);
  if (failed(t))
    return failure();
  if (exactRank ? t->getRank() != minRank : t->getRank() < minRank)
    return inferError(loc, name, what, " must have ", exactRank ? "" : "at least ", minRank,
                      " dimensions, got ", formatShape(t->getShape()));
  if (t->getShape().back() != 4)
    return inferError(loc, name, "last dimension of ", what, " must be 4, got ",
                      formatShape(t->getShape()));
  return t;
}

LogicalResult ContribBoxIouOp::inferReturnTypes(MLIRContext *context,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto l = boxArray(loc, name, adaptor.getLhs(), "lhs", 2);
  auto r = boxArray(loc, name, adaptor.getRhs(), "rhs", 2);
  if (failed(l) || failed(r))
    return failure();
  if (r->getElementType() != l->getElementType())
    return inferError(loc, name, "lhs and rhs must have one dtype");
  SmallVector<int64_t> out(l->getShape().drop_back());
  llvm::append_range(out, r->getShape().drop_back());
  results.push_back(RankedTensorType::get(out, l->getElementType()));
  return success();
}

LogicalResult ContribBoxEncodeOp::inferReturnTypes(MLIRContext *context,
                                                   std::optional<Location> loc,
                                                   Adaptor adaptor,
                                                   SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto a = boxArray(loc, name, adaptor.getAnchors(), "anchors", 3, true);
  auto r = boxArray(loc, name, adaptor.getRefs(), "refs", 3, true);
  if (failed(a) || failed(r))
    return failure();
  ArrayRef<int64_t> as = a->getShape();
  for (auto [v, what] : {std::pair{adaptor.getSamples(), "samples"},
                         std::pair{adaptor.getMatches(), "matches"}}) {
    auto t = getTensorType(loc, name, v, what);
    if (failed(t))
      return failure();
    if (t->getShape() != as.drop_back())
      return inferError(loc, name, what, " must be (B, N) = ",
                        formatShape(as.drop_back()), ", got ", formatShape(t->getShape()));
  }
  if (r->getDimSize(0) != as[0])
    return inferError(loc, name, "refs must have the anchors' batch ", as[0], ", got ",
                      formatShape(r->getShape()));
  for (auto [v, what] : {std::pair{adaptor.getMeans(), "means"},
                         std::pair{adaptor.getStds(), "stds"}}) {
    auto t = getTensorType(loc, name, v, what);
    if (failed(t))
      return failure();
    if (t->getShape() != ArrayRef<int64_t>{4})
      return inferError(loc, name, what, " must be (4,), got ", formatShape(t->getShape()));
  }
  results.push_back(*a);
  results.push_back(*a);
  return success();
}

LogicalResult ContribBoxDecodeOp::inferReturnTypes(MLIRContext *context,
                                                   std::optional<Location> loc,
                                                   Adaptor adaptor,
                                                   SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto d = boxArray(loc, name, adaptor.getData(), "data", 3, true);
  auto a = boxArray(loc, name, adaptor.getAnchors(), "anchors", 3, true);
  if (failed(d) || failed(a))
    return failure();
  if (a->getDimSize(0) != 1 || a->getDimSize(1) != d->getDimSize(1))
    return inferError(loc, name, "anchors must be (1, N, 4) with data's N, got ",
                      formatShape(a->getShape()), " for data ", formatShape(d->getShape()));
  results.push_back(*d);
  return success();
}

//===----------------------------------------------------------------------===//
// _histogram (src/operator/tensor/histogram-inl.h HistogramOpShape,
// HistogramOpType)
//===----------------------------------------------------------------------===//

std::optional<SmallVector<double>> mxc::mx::parseFloatTuple(StringRef text) {
  StringRef t = text.trim();
  if (!t.consume_front("(") && !t.consume_front("[")) {
    // one number: MXNet's Tuple<float> reads it as a 1-tuple
    std::string s = t.str();
    char *end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size())
      return std::nullopt;
    return SmallVector<double>{d};
  }
  if (!t.consume_back(")") && !t.consume_back("]"))
    return std::nullopt;
  SmallVector<double> out;
  SmallVector<StringRef> parts;
  t.split(parts, ',');
  for (StringRef p : parts) {
    p = p.trim();
    if (p.empty())
      continue;
    std::string s = p.str();
    char *end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size())
      return std::nullopt;
    out.push_back(d);
  }
  return out;
}

LogicalResult HistogramOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc, Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto d = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(d))
    return failure();
  bool hasCnt = adaptor.getBinCnt().has_value(), hasRange = adaptor.getRange().has_value();
  if (hasCnt != hasRange)
    return inferError(loc, name, "cnt and range should both or neither specified");
  if (hasCnt != !adaptor.getBins())
    return inferError(loc, name, hasCnt ? "bin_cnt and range take no bins input"
                                        : "without bin_cnt and range a bins input is needed");
  int64_t n;
  Type edgeType = d->getElementType();
  if (hasCnt) {
    n = *adaptor.getBinCnt();
    if (n < 1)
      return inferError(loc, name, "bin_cnt must be positive, got ", n);
    auto range = detail::parseFloatTuple(*adaptor.getRange());
    if (!range || range->size() != 2 || (*range)[0] > (*range)[1])
      return inferError(loc, name, "range must be (lo, hi) with lo <= hi, got '",
                        *adaptor.getRange(), "'");
  } else {
    auto b = getTensorType(loc, name, adaptor.getBins(), "bins");
    if (failed(b))
      return failure();
    if (b->getRank() != 1)
      return inferError(loc, name, "bins argument should be an 1D vector");
    if (b->getDimSize(0) < 2)
      return inferError(loc, name, "number of bounds should be >= 2");
    n = b->getDimSize(0) - 1;
    edgeType = b->getElementType();
  }
  results.push_back(RankedTensorType::get({n}, IntegerType::get(context, 64)));
  results.push_back(RankedTensorType::get({n + 1}, edgeType));
  return success();
}

//===----------------------------------------------------------------------===//
// _contrib_MultiBoxPrior (src/operator/contrib/multibox_prior-inl.h InferShape)
//===----------------------------------------------------------------------===//

LogicalResult ContribMultiBoxPriorOp::inferReturnTypes(MLIRContext *context,
                                                       std::optional<Location> loc,
                                                       Adaptor adaptor,
                                                       SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto d = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(d))
    return failure();
  if (d->getRank() < 4)
    return inferError(loc, name, "Input data should be 4D: batch-channel-y-x, got ",
                      formatShape(d->getShape()));
  auto tuple = [&](StringRef attr, StringRef what, size_t exact)
      -> std::optional<SmallVector<double>> {
    auto v = detail::parseFloatTuple(attr);
    if (!v || v->empty() || (exact && v->size() != exact)) {
      (void)inferError(loc, name, what, " must be a tuple of ",
                       exact ? std::to_string(exact) + " floats" : std::string("floats"),
                       ", got '", attr, "'");
      return std::nullopt;
    }
    return v;
  };
  auto sizes = tuple(adaptor.getSizes(), "sizes", 0);
  auto ratios = tuple(adaptor.getRatios(), "ratios", 0);
  auto steps = tuple(adaptor.getSteps(), "steps", 2);
  auto offsets = tuple(adaptor.getOffsets(), "offsets", 2);
  if (!sizes || !ratios || !steps || !offsets)
    return failure();
  for (double o : *offsets)
    if (o < 0 || o > 1)
      return inferError(loc, name, "offsets must be in [0, 1], got '", adaptor.getOffsets(),
                        "'");
  if ((*steps)[0] * (*steps)[1] < 0)
    return inferError(loc, name, "Must specify both step_y and step_x");
  int64_t anchors = int64_t(sizes->size() + ratios->size() - 1);
  results.push_back(RankedTensorType::get(
      {1, d->getDimSize(2) * d->getDimSize(3) * anchors, 4}, d->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// ROIPooling (src/operator/roi_pooling-inl.h InferShape, InferType)
//===----------------------------------------------------------------------===//

/// data (N, C, H, W) and rois (R, 5) of one type, and spatial_scale in [0,
/// 1], as the region ops (ROIPooling, ROIAlign, PSROIPooling) check.
static FailureOr<std::pair<RankedTensorType, RankedTensorType>>
regionOperands(std::optional<Location> loc, StringRef name, Value data, Value rois,
               double spatialScale, int64_t width = 5) {
  auto d = nchwOperand(loc, name, data, "data");
  auto b = getTensorType(loc, name, rois, "rois");
  if (failed(d) || failed(b))
    return failure();
  if (b->getRank() != 2 || b->getDimSize(1) != width)
    return inferError(loc, name, "bbox should be a 2D tensor of shape [batch, ", width,
                      "], got ", formatShape(b->getShape()));
  if (b->getElementType() != d->getElementType())
    return inferError(loc, name, "data and rois must have one dtype");
  if (spatialScale < 0 || spatialScale > 1)
    return inferError(loc, name, "spatial_scale must be in [0, 1], got ", spatialScale);
  return std::make_pair(*d, *b);
}

LogicalResult ROIPoolingOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto ops = regionOperands(loc, name, adaptor.getData(), adaptor.getRois(),
                            adaptor.getSpatialScale().convertToDouble());
  if (failed(ops))
    return failure();
  auto [d, b] = *ops;
  ArrayRef<int64_t> ps = adaptor.getPooledSize();
  if (ps.size() != 2 || ps[0] < 1 || ps[1] < 1)
    return inferError(loc, name, "pooled_size must be (h, w) of positive extents, got ",
                      formatShape(ps));
  SmallVector<int64_t> out{b.getDimSize(0), d.getDimSize(1), ps[0], ps[1]};
  results.push_back(RankedTensorType::get(out, d.getElementType()));
  results.push_back(RankedTensorType::get(out, IntegerType::get(context, 32)));
  return success();
}

//===----------------------------------------------------------------------===//
// _contrib_DeformableConvolution, _contrib_ModulatedDeformableConvolution
// (contrib/deformable_convolution-inl.h, modulated_deformable_convolution-
// inl.h InferShape)
//===----------------------------------------------------------------------===//

static LogicalResult inferDeformable(std::optional<Location> loc, StringRef name, Value data,
                                     Value offset, Value mask, Value weight, Value bias,
                                     ArrayRef<int64_t> kernel, ArrayRef<int64_t> strideA,
                                     ArrayRef<int64_t> dilateA, ArrayRef<int64_t> padA,
                                     int64_t numFilter, int64_t numGroup, int64_t numDeform,
                                     bool noBias, SmallVectorImpl<Type> &results) {
  auto d = getTensorType(loc, name, data, "data");
  auto o = getTensorType(loc, name, offset, "offset");
  if (failed(d) || failed(o))
    return failure();
  if (d->getRank() != 4)
    return inferError(loc, name, "Input data should be 4D in batch-num_filter-y-x");
  if (o->getRank() != 4)
    return inferError(loc, name, "Input offset should be 4D in batch-num_filter-y-x");
  if (!d->hasStaticShape() || !o->hasStaticShape())
    return inferError(loc, name, "needs static data and offset shapes");
  if (kernel.size() != 2 || kernel[0] < 1 || kernel[1] < 1)
    return inferError(loc, name, "kernel must be (h, w) of positive extents, got ",
                      formatShape(kernel));
  auto stride = expandSpatialParam(loc, name, "stride", strideA, 2, 1);
  auto dilate = expandSpatialParam(loc, name, "dilate", dilateA, 2, 1);
  auto pad = expandSpatialParam(loc, name, "pad", padA, 2, 0);
  if (failed(stride) || failed(dilate) || failed(pad))
    return failure();
  int64_t c = d->getDimSize(1);
  if (numFilter < 1 || numGroup < 1 || numDeform < 1)
    return inferError(loc, name, "num_filter, num_group and num_deformable_group must be "
                                 "positive");
  if (c % numGroup != 0)
    return inferError(loc, name, "input num_filter must divide group size");
  if (c % numDeform != 0)
    return inferError(loc, name, "input num_filter must divide deformable group size");
  if (numFilter % numGroup != 0)
    return inferError(loc, name, "output num_filter must divide group size");
  SmallVector<int64_t> out{d->getDimSize(0), numFilter};
  for (int k = 0; k < 2; ++k) {
    int64_t extent = d->getDimSize(2 + k) + 2 * (*pad)[k] - (*dilate)[k] * (kernel[k] - 1) - 1;
    if (extent < 0 || (*stride)[k] < 1)
      return inferError(loc, name, "kernel size exceed input");
    out.push_back(extent / (*stride)[k] + 1);
  }
  int64_t taps = kernel[0] * kernel[1];
  if (o->getDimSize(0) != out[0] || o->getDimSize(2) != out[2] || o->getDimSize(3) != out[3])
    return inferError(loc, name, "offset must be (", out[0], ", 2 * kh * kw * groups, ", out[2],
                      ", ", out[3], "), got ", formatShape(o->getShape()));
  if (o->getDimSize(1) != 2 * taps * numDeform)
    return inferError(loc, name, "offset filter must divide deformable group size");
  if (mask) {
    auto m = getTensorType(loc, name, mask, "mask");
    if (failed(m))
      return failure();
    if (m->getRank() != 4 || m->getDimSize(0) != out[0] || m->getDimSize(2) != out[2] ||
        m->getDimSize(3) != out[3] || m->getDimSize(1) != taps * numDeform)
      return inferError(loc, name, "mask must be (", out[0], ", kh * kw * groups, ", out[2],
                        ", ", out[3], "), got ", formatShape(m->getShape()));
  }
  auto w = getTensorType(loc, name, weight, "weight");
  if (failed(w))
    return failure();
  SmallVector<int64_t> wantW{numFilter, c / numGroup, kernel[0], kernel[1]};
  if (w->getShape() != ArrayRef<int64_t>(wantW))
    return inferError(loc, name, "weight must be ", formatShape(wantW), ", got ",
                      formatShape(w->getShape()));
  if (!noBias) {
    if (!bias)
      return inferError(loc, name, "the bias input is missing (no_bias is false)");
    auto b = getTensorType(loc, name, bias, "bias");
    if (failed(b))
      return failure();
    if (b->getShape() != ArrayRef<int64_t>{numFilter})
      return inferError(loc, name, "bias must be (", numFilter, "), got ",
                        formatShape(b->getShape()));
  }
  results.push_back(RankedTensorType::get(out, d->getElementType()));
  return success();
}

LogicalResult ContribDeformableConvolutionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  return inferDeformable(loc, getOperationName(), adaptor.getData(), adaptor.getOffset(), {},
                         adaptor.getWeight(), adaptor.getBias(), adaptor.getKernel(),
                         adaptor.getStride(), adaptor.getDilate(), adaptor.getPad(),
                         static_cast<int64_t>(adaptor.getNumFilter()),
                         static_cast<int64_t>(adaptor.getNumGroup()),
                         static_cast<int64_t>(adaptor.getNumDeformableGroup()),
                         adaptor.getNoBias(), results);
}

LogicalResult ContribModulatedDeformableConvolutionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  return inferDeformable(loc, getOperationName(), adaptor.getData(), adaptor.getOffset(),
                         adaptor.getMask(), adaptor.getWeight(), adaptor.getBias(),
                         adaptor.getKernel(), adaptor.getStride(), adaptor.getDilate(),
                         adaptor.getPad(), static_cast<int64_t>(adaptor.getNumFilter()),
                         static_cast<int64_t>(adaptor.getNumGroup()),
                         static_cast<int64_t>(adaptor.getNumDeformableGroup()),
                         adaptor.getNoBias(), results);
}

//===----------------------------------------------------------------------===//
// _contrib_ROIAlign (contrib/roi_align.cc FInferShape, FInferType),
// _contrib_PSROIPooling (contrib/psroi_pooling-inl.h InferShape, InferType)
//===----------------------------------------------------------------------===//

LogicalResult ContribROIAlignOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                  Adaptor adaptor,
                                                  SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto ops = regionOperands(loc, name, adaptor.getData(), adaptor.getRois(),
                            adaptor.getSpatialScale().convertToDouble());
  if (failed(ops))
    return failure();
  auto [d, b] = *ops;
  ArrayRef<int64_t> ps = adaptor.getPooledSize();
  if (ps.size() != 2 || ps[0] < 1 || ps[1] < 1)
    return inferError(loc, name, "pooled_size must be (h, w) of positive extents, got ",
                      formatShape(ps));
  int64_t c = d.getDimSize(1);
  if (adaptor.getPositionSensitive()) {
    if (c != ShapedType::kDynamic && c % (ps[0] * ps[1]) != 0)
      return inferError(loc, name,
                        "Input channels should be divided by pooled_size[0]*pooled_size[1]"
                        "when position_sensitive is true.");
    if (c != ShapedType::kDynamic)
      c /= ps[0] * ps[1];
  }
  results.push_back(
      RankedTensorType::get({b.getDimSize(0), c, ps[0], ps[1]}, d.getElementType()));
  return success();
}

/// rroi_align.cc FInferShape: rois (R, 6) -> (R, C, PH, PW).
LogicalResult ContribRROIAlignOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                   Adaptor adaptor,
                                                   SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto ops = regionOperands(loc, name, adaptor.getData(), adaptor.getRois(),
                            adaptor.getSpatialScale().convertToDouble(), 6);
  if (failed(ops))
    return failure();
  auto [d, b] = *ops;
  ArrayRef<int64_t> ps = adaptor.getPooledSize();
  if (ps.size() != 2 || ps[0] < 1 || ps[1] < 1)
    return inferError(loc, name, "pooled_size must be (h, w) of positive extents, got ",
                      formatShape(ps));
  results.push_back(RankedTensorType::get({b.getDimSize(0), d.getDimSize(1), ps[0], ps[1]},
                                          d.getElementType()));
  return success();
}

LogicalResult ContribPSROIPoolingOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                      Adaptor adaptor,
                                                      SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto ops = regionOperands(loc, name, adaptor.getData(), adaptor.getRois(),
                            adaptor.getSpatialScale().convertToDouble());
  if (failed(ops))
    return failure();
  auto [d, b] = *ops;
  int64_t p = static_cast<int64_t>(adaptor.getPooledSize());
  int64_t dim = static_cast<int64_t>(adaptor.getOutputDim());
  int64_t group = static_cast<int64_t>(adaptor.getGroupSize());
  if (group == 0)
    group = p;
  if (p < 1 || dim < 1 || group < 1)
    return inferError(loc, name, "pooled_size, output_dim and group_size must be positive, got ",
                      p, ", ", dim, ", ", group);
  int64_t c = d.getDimSize(1);
  if (c != ShapedType::kDynamic && c < dim * group * group)
    return inferError(loc, name, "data has ", c, " channels; output_dim * group_size^2 = ",
                      dim * group * group, " are read");
  results.push_back(RankedTensorType::get({b.getDimSize(0), dim, p, p}, d.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// linalg extractdiag / makediag / extracttrian / maketrian (src/operator/
// tensor/la_op.h LaDiagTrianShape)
//===----------------------------------------------------------------------===//

/// LaDiagTrianShape: extract (..., n, n) -> (..., n - |k|) or the triangle's
/// m (m + 1) / 2; make the inverse.
static LogicalResult inferDiagTrian(std::optional<Location> loc, StringRef name, Value a,
                                    int64_t offset, bool extract, bool diag,
                                    SmallVectorImpl<Type> &results) {
  auto t = getTensorType(loc, name, a, "A");
  if (failed(t))
    return failure();
  ArrayRef<int64_t> s = t->getShape();
  int64_t k = offset < 0 ? -offset : offset;
  SmallVector<int64_t> out;
  if (extract) {
    if (s.size() < 2 || s[s.size() - 1] != s[s.size() - 2])
      return inferError(loc, name, "A must be a batch of square matrices (..., n, n), got ",
                        formatShape(s));
    int64_t n = s.back();
    if (k >= n)
      return inferError(loc, name, "offset ", offset, " is out of range for ", n, " x ", n,
                        " matrices");
    out.assign(s.begin(), s.end() - 2);
    int64_t m = n - k;
    out.push_back(diag ? m : m * (m + 1) / 2);
  } else {
    if (s.empty())
      return inferError(loc, name, "A must have at least one dimension");
    int64_t len = s.back(), m = len;
    if (!diag) { // len = m (m + 1) / 2
      m = static_cast<int64_t>(std::floor((std::sqrt(8.0 * double(len) + 1) - 1) / 2));
      if (m * (m + 1) / 2 != len)
        return inferError(loc, name, "the last dimension ", len,
                          " of A is not a triangle's size m (m + 1) / 2");
    }
    out.assign(s.begin(), s.end() - 1);
    out.push_back(m + k);
    out.push_back(m + k);
  }
  results.push_back(RankedTensorType::get(out, t->getElementType()));
  return success();
}

LogicalResult LinalgExtractdiagOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                    Adaptor adaptor,
                                                    SmallVectorImpl<Type> &results) {
  return inferDiagTrian(loc, getOperationName(), adaptor.getA(), adaptor.getOffset(), true,
                        true, results);
}
LogicalResult LinalgMakediagOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &results) {
  return inferDiagTrian(loc, getOperationName(), adaptor.getA(), adaptor.getOffset(), false,
                        true, results);
}
LogicalResult LinalgExtracttrianOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                     Adaptor adaptor,
                                                     SmallVectorImpl<Type> &results) {
  return inferDiagTrian(loc, getOperationName(), adaptor.getA(), adaptor.getOffset(), true,
                        false, results);
}
LogicalResult LinalgMaketrianOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                  Adaptor adaptor,
                                                  SmallVectorImpl<Type> &results) {
  return inferDiagTrian(loc, getOperationName(), adaptor.getA(), adaptor.getOffset(), false,
                        false, results);
}

/// LaReduceShape<2>: the batch axes, (1,) for a single matrix.
LogicalResult LinalgSumlogdiagOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                   Adaptor adaptor,
                                                   SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto t = getTensorType(loc, name, adaptor.getA(), "A");
  if (failed(t))
    return failure();
  ArrayRef<int64_t> s = t->getShape();
  if (s.size() < 2 || s[s.size() - 1] != s[s.size() - 2])
    return inferError(loc, name, "A must be a batch of square matrices (..., n, n), got ",
                      formatShape(s));
  SmallVector<int64_t> out(s.begin(), s.end() - 2);
  if (out.empty())
    out.push_back(1);
  results.push_back(RankedTensorType::get(out, t->getElementType()));
  return success();
}

/// LaSyrkShape: (..., m, m), or (..., n, n) with transpose.
LogicalResult LinalgSyrkOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                             Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto t = getTensorType(loc, name, adaptor.getA(), "A");
  if (failed(t))
    return failure();
  ArrayRef<int64_t> s = t->getShape();
  if (s.size() < 2)
    return inferError(loc, name, "A must be a batch of matrices (..., m, n), got ",
                      formatShape(s));
  int64_t k = adaptor.getTranspose() ? s.back() : s[s.size() - 2];
  SmallVector<int64_t> out(s.begin(), s.end() - 2);
  out.append({k, k});
  results.push_back(RankedTensorType::get(out, t->getElementType()));
  return success();
}

/// LaLQFactShape: Q like A (..., m, n) with m <= n, L (..., m, m).
LogicalResult LinalgGelqfOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                              Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto t = getTensorType(loc, name, adaptor.getA(), "A");
  if (failed(t))
    return failure();
  ArrayRef<int64_t> s = t->getShape();
  if (s.size() < 2)
    return inferError(loc, name, "A must be a batch of matrices (..., m, n), got ",
                      formatShape(s));
  int64_t m = s[s.size() - 2];
  if (m > s.back())
    return inferError(loc, name, "A ", formatShape(s),
                      " has more rows than columns (LQ needs m <= n)");
  SmallVector<int64_t> l(s.begin(), s.end() - 1);
  l.push_back(m);
  results.push_back(*t);
  results.push_back(RankedTensorType::get(l, t->getElementType()));
  return success();
}

/// BoxNMSShape: data (..., num, width), width >= 5 (6 with id_index), the
/// score, class and coordinate indices in range and apart; the result like
/// data, the record (..., num, 1).
LogicalResult ContribBoxNmsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto t = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(t))
    return failure();
  ArrayRef<int64_t> s = t->getShape();
  if (s.size() < 2)
    return inferError(loc, name, "input must have dim >= 2 (the last two are num_box and "
                                 "box_width), got ", formatShape(s));
  int64_t width = s.back();
  int64_t idIndex = adaptor.getIdIndex(), scoreIndex = adaptor.getScoreIndex();
  int64_t coordStart = adaptor.getCoordStart(), coordEnd = coordStart + 3;
  int64_t expected = idIndex >= 0 ? 6 : 5;
  if (width < expected)
    return inferError(loc, name, "the last dimension must have at least ", expected,
                      " elements (score, coordinates x 4", idIndex >= 0 ? ", id" : "",
                      "), got ", width);
  if (scoreIndex < 0 || scoreIndex >= width)
    return inferError(loc, name, "score_index ", scoreIndex, " is out of range [0, ", width,
                      ")");
  if (scoreIndex >= coordStart && scoreIndex <= coordEnd)
    return inferError(loc, name, "score_index ", scoreIndex, " conflicts with the coordinates (",
                      coordStart, ", ", coordEnd, ")");
  if (coordStart < 0 || coordEnd >= width)
    return inferError(loc, name, "coordinates (", coordStart, ", ", coordEnd,
                      ") are out of range [0, ", width, ")");
  if (idIndex >= 0) {
    if (idIndex >= width)
      return inferError(loc, name, "id_index ", idIndex, " is out of range [0, ", width, ")");
    if (idIndex >= coordStart && idIndex <= coordEnd)
      return inferError(loc, name, "id_index ", idIndex, " conflicts with the coordinates (",
                        coordStart, ", ", coordEnd, ")");
    if (idIndex == scoreIndex)
      return inferError(loc, name, "id_index ", idIndex, " conflicts with score_index");
  }
  SmallVector<int64_t> rec(s);
  rec.back() = 1;
  results.push_back(*t);
  results.push_back(RankedTensorType::get(rec, t->getElementType()));
  return success();
}

/// MatchingShape: scores (..., N, M) -> row markers (..., N), column
/// markers (..., M).
LogicalResult ContribBipartiteMatchingOp::inferReturnTypes(MLIRContext *,
                                                           std::optional<Location> loc,
                                                           Adaptor adaptor,
                                                           SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto t = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(t))
    return failure();
  ArrayRef<int64_t> s = t->getShape();
  if (s.size() < 2)
    return inferError(loc, name, "data must be (..., N, M) scores, got ", formatShape(s));
  SmallVector<int64_t> rows(s.begin(), s.end() - 1), cols(s.begin(), s.end() - 2);
  cols.push_back(s.back());
  results.push_back(RankedTensorType::get(rows, t->getElementType()));
  results.push_back(RankedTensorType::get(cols, t->getElementType()));
  return success();
}

/// The MultiBox ops' `variances`: MXNet's tuple of four floats.
static LogicalResult checkVariances(std::optional<Location> loc, StringRef name,
                                    StringRef variances) {
  auto var = parseFloatTuple(variances);
  if (!var || var->size() != 4)
    return inferError(loc, name, "variances must be four floats, got '", variances, "'");
  return success();
}

/// MultiBoxTargetProp::InferShape: anchor (1, A, 4), label (B, L, W >= 5),
/// cls_pred (B, C, A) -> (B, A * 4), (B, A * 4), (B, A); variances four
/// floats.
LogicalResult ContribMultiBoxTargetOp::inferReturnTypes(MLIRContext *,
                                                        std::optional<Location> loc,
                                                        Adaptor adaptor,
                                                        SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto at = getTensorType(loc, name, adaptor.getAnchor(), "anchor");
  auto lt = getTensorType(loc, name, adaptor.getLabel(), "label");
  auto pt = getTensorType(loc, name, adaptor.getClsPred(), "cls_pred");
  if (failed(at) || failed(lt) || failed(pt))
    return failure();
  ArrayRef<int64_t> a = at->getShape(), l = lt->getShape(), p = pt->getShape();
  if (a.size() != 3 || a[0] != 1 || a[1] < 1 || a[2] != 4)
    return inferError(loc, name, "anchor must be (1, num_anchors, 4), shared across batches, got ",
                      formatShape(a));
  if (l.size() != 3 || l[1] < 1 || l[2] < 5)
    return inferError(loc, name, "label must be (batch, num_labels, label_width >= 5), got ",
                      formatShape(l));
  if (p.size() != 3 || p[0] != l[0] || p[2] != a[1])
    return inferError(loc, name, "cls_pred must be (batch, num_classes, num_anchors) = (", l[0],
                      ", C, ", a[1], "), got ", formatShape(p));
  if (failed(checkVariances(loc, name, adaptor.getVariances())))
    return failure();
  Type elt = at->getElementType();
  results.push_back(RankedTensorType::get({l[0], a[1] * 4}, elt));
  results.push_back(RankedTensorType::get({l[0], a[1] * 4}, elt));
  results.push_back(RankedTensorType::get({l[0], a[1]}, elt));
  return success();
}

/// MultiBoxDetectionProp::InferShape: cls_prob (B, C, A), loc_pred (B,
/// A * 4), anchor (1, A, 4) -> (B, A, 6).
LogicalResult ContribMultiBoxDetectionOp::inferReturnTypes(MLIRContext *,
                                                           std::optional<Location> loc,
                                                           Adaptor adaptor,
                                                           SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto ct = getTensorType(loc, name, adaptor.getClsProb(), "cls_prob");
  auto lt = getTensorType(loc, name, adaptor.getLocPred(), "loc_pred");
  auto at = getTensorType(loc, name, adaptor.getAnchor(), "anchor");
  if (failed(ct) || failed(lt) || failed(at))
    return failure();
  ArrayRef<int64_t> c = ct->getShape(), l = lt->getShape(), a = at->getShape();
  if (c.size() != 3 || a.size() != 3 || a[1] < 1 || a[2] != 4)
    return inferError(loc, name, "cls_prob must be (batch, classes, anchors) and anchor (1, "
                                 "anchors, 4), got ", formatShape(c), " and ", formatShape(a));
  if (c[2] != a[1])
    return inferError(loc, name, "number of anchors mismatch: cls_prob has ", c[2],
                      ", anchor ", a[1]);
  if (l.size() != 2 || l[0] != c[0] || l[1] != c[2] * 4)
    return inferError(loc, name, "loc_pred must be (batch, anchors * 4) = (", c[0], ", ",
                      c[2] * 4, "), got ", formatShape(l));
  if (failed(checkVariances(loc, name, adaptor.getVariances())))
    return failure();
  results.push_back(RankedTensorType::get({c[0], a[1], 6}, ct->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// _contrib_Proposal, _contrib_MultiProposal (contrib/proposal-inl.h,
// multi_proposal-inl.h InferShape; the forwards' checks)
//===----------------------------------------------------------------------===//

/// cls_prob (N, 2 A, H, W), bbox_pred (N, 4 A, H, W), im_info (N, 3), A =
/// len(ratios) * len(scales) -> (rows, 5), (rows, 1) with rows = N *
/// rpn_post_nms_top_n; `single` (Proposal) needs N = 1.
static LogicalResult inferProposal(std::optional<Location> loc, StringRef name, Value clsProb,
                                   Value bboxPred, Value imInfo, int64_t post, StringRef scales,
                                   StringRef ratios, int64_t stride, bool single,
                                   SmallVectorImpl<Type> &results) {
  auto c = nchwOperand(loc, name, clsProb, "cls_prob");
  auto b = getTensorType(loc, name, bboxPred, "bbox_pred");
  auto i = getTensorType(loc, name, imInfo, "im_info");
  if (failed(c) || failed(b) || failed(i))
    return failure();
  ArrayRef<int64_t> d = c->getShape();
  Type elt = c->getElementType();
  if (!c->hasStaticShape()) {
    int64_t rows = ShapedType::kDynamic;
    results.push_back(RankedTensorType::get({rows, 5}, elt));
    results.push_back(RankedTensorType::get({rows, 1}, elt));
    return success();
  }
  SmallVector<int64_t> bshape{d[0], d[1] * 2, d[2], d[3]}, ishape{d[0], 3};
  if (b->getShape() != ArrayRef<int64_t>(bshape))
    return inferError(loc, name, "bbox_pred must be ", formatShape(bshape), ", got ",
                      formatShape(b->getShape()));
  if (i->getShape() != ArrayRef<int64_t>(ishape))
    return inferError(loc, name, "im_info must be ", formatShape(ishape), ", got ",
                      formatShape(i->getShape()));
  if (failed(checkElementType(loc, name, "bbox_pred", *b, elt)) ||
      failed(checkElementType(loc, name, "im_info", *i, elt)))
    return failure();
  if (d[2] < 1 || d[3] < 1)
    return inferError(loc, name, "the feature map must have positive height and width, got ",
                      formatShape(d));
  if (single && d[0] != 1)
    return inferError(loc, name, "Sorry, multiple images each device is not implemented "
                                 "(cls_prob has ", d[0], " images; use _contrib_MultiProposal)");
  auto sc = parseFloatTuple(scales), ra = parseFloatTuple(ratios);
  if (!sc || !ra || sc->empty() || ra->empty())
    return inferError(loc, name, "scales and ratios must be non-empty tuples of floats, got '",
                      scales, "' and '", ratios, "'");
  int64_t anchors = static_cast<int64_t>(sc->size() * ra->size());
  if (d[1] % 2 != 0 || d[1] / 2 != anchors)
    return inferError(loc, name, "cls_prob has ", d[1], " channels, 2 * len(ratios) * "
                      "len(scales) = ", 2 * anchors, " expected");
  if (post < 1 || stride < 1)
    return inferError(loc, name, "rpn_post_nms_top_n and feature_stride must be positive, got ",
                      post, " and ", stride);
  int64_t rows = d[0] * post;
  results.push_back(RankedTensorType::get({rows, 5}, elt));
  results.push_back(RankedTensorType::get({rows, 1}, elt));
  return success();
}

LogicalResult ContribProposalOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                  Adaptor adaptor,
                                                  SmallVectorImpl<Type> &results) {
  return inferProposal(loc, getOperationName(), adaptor.getClsProb(), adaptor.getBboxPred(),
                       adaptor.getImInfo(), static_cast<int64_t>(adaptor.getRpnPostNmsTopN()),
                       adaptor.getScales(), adaptor.getRatios(),
                       static_cast<int64_t>(adaptor.getFeatureStride()), true, results);
}

LogicalResult ContribMultiProposalOp::inferReturnTypes(MLIRContext *,
                                                       std::optional<Location> loc,
                                                       Adaptor adaptor,
                                                       SmallVectorImpl<Type> &results) {
  return inferProposal(loc, getOperationName(), adaptor.getClsProb(), adaptor.getBboxPred(),
                       adaptor.getImInfo(), static_cast<int64_t>(adaptor.getRpnPostNmsTopN()),
                       adaptor.getScales(), adaptor.getRatios(),
                       static_cast<int64_t>(adaptor.getFeatureStride()), false, results);
}

//===----------------------------------------------------------------------===//
// Image operators (image/image_random-inl.h ToTensorShape, NormalizeOpShape,
// ImageShape; image/crop-inl.h CropShape)
//===----------------------------------------------------------------------===//

/// The static extent check of an image's channels (1 or 3).
static bool imageChannels(int64_t c) { return c == ShapedType::kDynamic || c == 1 || c == 3; }

LogicalResult ImageToTensorOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto d = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(d))
    return failure();
  ArrayRef<int64_t> s = d->getShape();
  SmallVector<int64_t> out;
  if (s.size() == 3)
    out = {s[2], s[0], s[1]};
  else if (s.size() == 4)
    out = {s[0], s[3], s[1], s[2]};
  else
    return inferError(loc, name, "Input image must have shape (height, width, channels), or "
                                 "(N, height, width, channels) but got ", formatShape(s));
  results.push_back(RankedTensorType::get(out, Float32Type::get(context)));
  return success();
}

LogicalResult ImageNormalizeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto d = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(d))
    return failure();
  ArrayRef<int64_t> s = d->getShape();
  if (s.size() != 3 && s.size() != 4)
    return inferError(loc, name, "Input tensor must have shape (channels, height, width), or "
                                 "(N, channels, height, width), but got ", formatShape(s));
  int64_t c = s.size() == 3 ? s[0] : s[1];
  if (!imageChannels(c))
    return inferError(loc, name, "The ", s.size() == 3 ? "first" : "second",
                      " dimension of input tensor must be the channel dimension with either 1 or "
                      "3 elements, but got input with shape ", formatShape(s));
  for (auto [what, text] : {std::pair<StringRef, StringRef>{"mean", adaptor.getMean()},
                            {"std", adaptor.getStd()}}) {
    auto v = parseFloatTuple(text);
    if (!v)
      return inferError(loc, name, what, " must be a float or a tuple of floats, got '", text,
                        "'");
    if (v->size() != 1 && (c == ShapedType::kDynamic || int64_t(v->size()) != c))
      return inferError(loc, name, "Invalid ", what, " for input with shape ", formatShape(s),
                        ". ", what, " must have either 1 or ", c, " elements, but got ", text);
  }
  results.push_back(*d);
  return success();
}

/// ImageShape: (H, W, C) with C 1 or 3, the result like the input.
static LogicalResult inferImage(std::optional<Location> loc, StringRef name, Value data,
                                SmallVectorImpl<Type> &results) {
  auto d = getTensorType(loc, name, data, "data");
  if (failed(d))
    return failure();
  ArrayRef<int64_t> s = d->getShape();
  if (s.size() != 3)
    return inferError(loc, name, "Input image must have shape (height, width, channels), but got ",
                      formatShape(s));
  if (!imageChannels(s[2]))
    return inferError(loc, name, "The last dimension of input image must be the channel "
                                 "dimension with either 1 or 3 elements, but got input with "
                                 "shape ", formatShape(s));
  results.push_back(*d);
  return success();
}

LogicalResult ImageFlipLeftRightOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                     Adaptor adaptor,
                                                     SmallVectorImpl<Type> &results) {
  return inferImage(loc, getOperationName(), adaptor.getData(), results);
}

LogicalResult ImageFlipTopBottomOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                     Adaptor adaptor,
                                                     SmallVectorImpl<Type> &results) {
  return inferImage(loc, getOperationName(), adaptor.getData(), results);
}

LogicalResult ImageAdjustLightingOp::inferReturnTypes(MLIRContext *,
                                                      std::optional<Location> loc,
                                                      Adaptor adaptor,
                                                      SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto alpha = parseFloatTuple(adaptor.getAlpha());
  if (!alpha || alpha->size() != 3)
    return inferError(loc, name, "alpha must be three floats (R, G, B), got '",
                      adaptor.getAlpha(), "'");
  return inferImage(loc, name, adaptor.getData(), results);
}

LogicalResult ImageCropOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto d = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(d))
    return failure();
  ArrayRef<int64_t> s = d->getShape();
  if (s.size() != 3 && s.size() != 4)
    return inferError(loc, name, "Image Crop expects inputs of 3D (h, w, c) or 4D (n, h, w, c). "
                                 "But got ", s.size());
  if (!imageChannels(s.back()))
    return inferError(loc, name, "Expect channel of the input image is 1 or 3, but got",
                      s.back());
  int64_t x = adaptor.getX(), y = adaptor.getY(), w = adaptor.getWidth(),
          h = adaptor.getHeight();
  int64_t iw = s[s.size() - 2], ih = s[s.size() - 3];
  if (h <= 0 || w <= 0)
    return inferError(loc, name, "Input height and width must be greater than 0");
  if (x < 0 || y < 0)
    return inferError(loc, name, "x and y must not be negative, got ", x, " and ", y);
  if (iw != ShapedType::kDynamic && x + w > iw)
    return inferError(loc, name, " x + width should not be greater than input width");
  if (ih != ShapedType::kDynamic && y + h > ih)
    return inferError(loc, name, " y + height should not be greater than input height");
  SmallVector<int64_t> out(s);
  out[s.size() - 3] = h;
  out[s.size() - 2] = w;
  results.push_back(RankedTensorType::get(out, d->getElementType()));
  return success();
}

/// LaEigFactShape: A (..., n, n) -> U like A, L (..., n).
LogicalResult LinalgSyevdOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                              Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (failed(inferLinalgSquare(getOperationName(), loc, adaptor.getA(), results)))
    return failure();
  auto u = cast<RankedTensorType>(results[0]);
  results.push_back(RankedTensorType::get(u.getShape().drop_back(), u.getElementType()));
  return success();
}

/// CorrelationProp::InferShape: (N, (2 r + 1)^2, top_h, top_w) with top_* =
/// ceil((padded - 2 border) / stride1) >= 1; the padded inputs (N, Hp, Wp,
/// C). data2 must have data1's shape.
LogicalResult CorrelationOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                              Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto t1 = getTensorType(loc, name, adaptor.getData1(), "data1");
  auto t2 = getTensorType(loc, name, adaptor.getData2(), "data2");
  if (failed(t1) || failed(t2))
    return failure();
  ArrayRef<int64_t> d = t1->getShape();
  if (d.size() != 4 || t2->getShape() != d)
    return inferError(loc, name, "data1 and data2 must be 4-D tensors of one shape, got ",
                      formatShape(d), " and ", formatShape(t2->getShape()));
  if (failed(checkElementType(loc, name, "data2", *t2, t1->getElementType())))
    return failure();
  int64_t k = adaptor.getKernelSize(), md = adaptor.getMaxDisplacement();
  int64_t s1 = adaptor.getStride1(), s2 = adaptor.getStride2(), pad = adaptor.getPadSize();
  if (k < 1 || md < 0 || s1 < 1 || s2 < 1 || pad < 0)
    return inferError(loc, name, "kernel_size, stride1 and stride2 must be positive and "
                                 "max_displacement and pad_size non-negative");
  int64_t hp = d[2] + 2 * pad, wp = d[3] + 2 * pad;
  int64_t border = md + (k - 1) / 2;
  auto top = [&](int64_t padded) {
    int64_t span = padded - 2 * border;
    return span <= 0 ? int64_t(0) : (span + s1 - 1) / s1;
  };
  int64_t th = top(hp), tw = top(wp);
  if (th < 1 || tw < 1)
    return inferError(loc, name, "Correlation cannot be done with current settings: the "
                                 "neighborhood and kernel don't fit in the padded ",
                      hp, " x ", wp, " input");
  int64_t grid = 2 * (md / s2) + 1;
  Type elt = t1->getElementType();
  results.push_back(RankedTensorType::get({d[0], grid * grid, th, tw}, elt));
  results.push_back(RankedTensorType::get({d[0], hp, wp, d[1]}, elt));
  results.push_back(RankedTensorType::get({d[0], hp, wp, d[1]}, elt));
  return success();
}

/// ScatterNDShape: indices (M, Y...) with M <= ndim(shape), data
/// (Y..., shape[M:]); the result has `shape` and data's type.
LogicalResult ScatterNdOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto dt = getTensorType(loc, name, adaptor.getData(), "data");
  auto it = getTensorType(loc, name, adaptor.getIndices(), "indices");
  if (failed(dt) || failed(it))
    return failure();
  ArrayRef<int64_t> shape = adaptor.getShape(), is = it->getShape(), ds = dt->getShape();
  for (int64_t e : shape)
    if (e < 1)
      return inferError(loc, name, "shape ", formatShape(shape), " must have positive extents");
  if (is.empty() || is[0] < 1 || is[0] > static_cast<int64_t>(shape.size()))
    return inferError(loc, name, "indices ", formatShape(is), " must be (M, ...) with 1 <= M <= ",
                      shape.size());
  SmallVector<int64_t> want(is.begin() + 1, is.end());
  want.append(shape.begin() + is[0], shape.end());
  if (ArrayRef<int64_t>(want) != ds)
    return inferError(loc, name, "data must have shape ", formatShape(want), " (indices' trailing ",
                      "axes, then shape[M:]), got ", formatShape(ds));
  results.push_back(RankedTensorType::get(shape, dt->getElementType()));
  return success();
}

/// DetShape (MXNet's legacy shapes): the determinant-like results (...)
/// ((1,) for a single matrix), then the LU (..., n, n) and the pivots
/// (..., n).
static LogicalResult inferDetLike(std::optional<Location> loc, StringRef name, Value a,
                                  unsigned numValues, SmallVectorImpl<Type> &results) {
  if (failed(inferLinalgSquare(name, loc, a, results)))
    return failure();
  auto lu = cast<RankedTensorType>(results.pop_back_val());
  ArrayRef<int64_t> s = lu.getShape();
  SmallVector<int64_t> out(s.begin(), s.end() - 2);
  if (out.empty())
    out.push_back(1);
  for (unsigned i = 0; i < numValues; ++i)
    results.push_back(RankedTensorType::get(out, lu.getElementType()));
  results.push_back(lu);
  results.push_back(RankedTensorType::get(s.drop_back(), lu.getElementType()));
  return success();
}

LogicalResult LinalgDetOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &results) {
  return inferDetLike(loc, getOperationName(), adaptor.getA(), 1, results);
}

LogicalResult LinalgSlogdetOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                Adaptor adaptor, SmallVectorImpl<Type> &results) {
  return inferDetLike(loc, getOperationName(), adaptor.getA(), 2, results);
}

//===----------------------------------------------------------------------===//
// im2col / col2im (src/operator/nn/im2col.cc FInferShape)
//===----------------------------------------------------------------------===//

/// The number of sliding blocks of a `kernel` over an image of `spatial`
/// extents (the output positions of the convolution with the same
/// parameters), after MXNet's checks; empty stride / dilate / pad mean 1 /
/// 1 / 0.
static FailureOr<int64_t> slidingBlocks(std::optional<Location> loc, StringRef name,
                                        ArrayRef<int64_t> kernel, ArrayRef<int64_t> strideAttr,
                                        ArrayRef<int64_t> dilateAttr, ArrayRef<int64_t> padAttr,
                                        ArrayRef<int64_t> spatial, StringRef exceeds) {
  int64_t k = kernel.size();
  if (k < 1 || k > 3)
    return inferError(loc, name, "kernel ", formatShape(kernel), " must have 1, 2 or 3 entries");
  auto stride = expandSpatialParam(loc, name, "stride", strideAttr, k, 1);
  auto dilate = expandSpatialParam(loc, name, "dilate", dilateAttr, k, 1);
  auto pad = expandSpatialParam(loc, name, "pad", padAttr, k, 0);
  if (failed(stride) || failed(dilate) || failed(pad) ||
      failed(checkAtLeast(loc, name, "kernel", kernel, 1)) ||
      failed(checkAtLeast(loc, name, "stride", *stride, 1)) ||
      failed(checkAtLeast(loc, name, "dilate", *dilate, 1)) ||
      failed(checkAtLeast(loc, name, "pad", *pad, 0)))
    return failure();
  int64_t blocks = 1;
  for (int64_t i = 0; i < k; ++i) {
    if (isDynamic(spatial[i]) || isDynamic(blocks)) {
      blocks = kDynamic; // the static extents are still checked
      if (isDynamic(spatial[i]))
        continue;
    }
    int64_t padded = spatial[i] + 2 * (*pad)[i];
    int64_t dilated = 1 + (kernel[i] - 1) * (*dilate)[i];
    if (dilated > padded)
      return inferError(loc, name, "kernel size exceed ", exceeds, ": the dilated kernel ",
                        dilated, " is larger than the padded extent ", padded,
                        " in spatial dimension ", i);
    if (!isDynamic(blocks))
      blocks *= (padded - dilated) / (*stride)[i] + 1;
  }
  return blocks;
}

/// (N, C, *spatial) -> (N, C * prod(kernel), blocks).
LogicalResult Im2colOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  ArrayRef<int64_t> kernel = adaptor.getKernel(), d = data->getShape();
  if (static_cast<int64_t>(d.size()) != static_cast<int64_t>(kernel.size()) + 2)
    return inferError(loc, name, "expects ", kernel.size() + 2, "-D data for a ", kernel.size(),
                      "-D kernel, got ", formatShape(d));
  auto blocks = slidingBlocks(loc, name, kernel, adaptor.getStride(), adaptor.getDilate(),
                              adaptor.getPad(), d.drop_front(2), "input");
  if (failed(blocks))
    return failure();
  results.push_back(RankedTensorType::get(
      {d[0], mulDims(d[1], productOf(kernel)), *blocks}, data->getElementType()));
  return success();
}

/// (N, C * prod(kernel), blocks) -> (N, C, *output_size); blocks must be
/// the number of blocks of an output_size image.
LogicalResult Col2imOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  ArrayRef<int64_t> kernel = adaptor.getKernel(), size = adaptor.getOutputSize();
  ArrayRef<int64_t> d = data->getShape();
  if (size.size() != kernel.size())
    return inferError(loc, name, "Output size must have the same number of dimensions with "
                                 "kernel_size, but kernel_size is set to ",
                      formatShape(kernel), " while output size is ", formatShape(size));
  if (failed(checkAtLeast(loc, name, "output_size", size, 1)))
    return failure();
  if (d.size() != 3)
    return inferError(loc, name, "expects 3-D data (N, C * prod(kernel), blocks), got ",
                      formatShape(d));
  auto blocks = slidingBlocks(loc, name, kernel, adaptor.getStride(), adaptor.getDilate(),
                              adaptor.getPad(), size, "output size");
  if (failed(blocks))
    return failure();
  if (!isDynamic(d[2]) && d[2] != *blocks)
    return inferError(loc, name, "output size does not match convolution parameters: data has ",
                      d[2], " blocks, an image of ", formatShape(size), " gives ", *blocks);
  int64_t kp = productOf(kernel);
  if (!isDynamic(d[1]) && d[1] % kp != 0)
    return inferError(loc, name, "the second dim of input shape should be multiples of kernel "
                                 "size ", kp, ", got ", formatShape(d));
  Shape out{d[0], isDynamic(d[1]) ? kDynamic : d[1] / kp};
  out.append(size.begin(), size.end());
  results.push_back(RankedTensorType::get(out, data->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// interleaved_matmul_* (src/operator/contrib/transformer.cc)
//===----------------------------------------------------------------------===//

/// A 3-D (sequence, batch, `parts` * E) projection whose E splits into
/// `heads` heads.
static FailureOr<RankedTensorType> projection(std::optional<Location> loc, StringRef name,
                                              Value v, StringRef what, int64_t parts,
                                              int64_t heads) {
  auto t = getTensorType(loc, name, v, what);
  if (failed(t))
    return failure();
  ArrayRef<int64_t> s = t->getShape();
  if (s.size() != 3)
    return inferError(loc, name, "Input ", what, " should be 3D in seq_length-batch-",
                      parts == 1 ? "" : std::to_string(parts) + "*", "proj_dim, currently is ",
                      s.size(), "D");
  if (heads < 1)
    return inferError(loc, name, "heads must be >= 1, got ", heads);
  if (!isDynamic(s[2]) && s[2] % (parts * heads) != 0)
    return inferError(loc, name, what, ".shape[2] = ", s[2], " should be a multiple of ",
                      parts, " * heads = ", parts * heads);
  return *t;
}

/// A 3-D (batch * heads, rows, cols) attention map.
static FailureOr<RankedTensorType> attentionMap(std::optional<Location> loc, StringRef name,
                                                Value v, RankedTensorType like) {
  auto t = getTensorType(loc, name, v, "attention");
  if (failed(t) || failed(checkElementType(loc, name, "attention", *t, like.getElementType())))
    return failure();
  if (t->getRank() != 3)
    return inferError(loc, name, "Input attention should be 3D in batch-seq_length-seq_length, "
                                 "currently is ", t->getRank(), "D");
  return *t;
}

LogicalResult ContribInterleavedMatmulSelfattQkOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  int64_t heads = adaptor.getHeads();
  auto qkv = projection(loc, name, adaptor.getQueriesKeysValues(), "queries_keys_values", 3, heads);
  if (failed(qkv))
    return failure();
  ArrayRef<int64_t> s = qkv->getShape();
  results.push_back(RankedTensorType::get({mulDims(s[1], heads), s[0], s[0]},
                                          qkv->getElementType()));
  return success();
}

/// The valatt products: `proj` (S, B, parts * E) holds the values (part
/// parts - 1 of each head), `attention` is (B * heads, Sq, S) (Sq = S for
/// self-attention); the result is (Sq, B, E). MXNet's messages.
static LogicalResult inferValatt(std::optional<Location> loc, StringRef name, Value projValue,
                                 StringRef what, int64_t parts, int64_t heads, Value attention,
                                 bool selfAttention, SmallVectorImpl<Type> &results) {
  auto proj = projection(loc, name, projValue, what, parts, heads);
  if (failed(proj))
    return failure();
  auto att = attentionMap(loc, name, attention, *proj);
  if (failed(att))
    return failure();
  ArrayRef<int64_t> s = proj->getShape(), a = att->getShape();
  if (selfAttention) {
    for (int i : {1, 2})
      if (!dimsCompatible(s[0], a[i]))
        return inferError(loc, name, "queries_keys_values.shape[0] and attention.shape[", i,
                          "] should be the same, currently are ", s[0], " and ", a[i]);
  } else if (!dimsCompatible(s[0], a[2])) {
    return inferError(loc, name, "keys_values.shape[0] should be equal to attention.shape[2], "
                                 "currently are ", s[0], " and ", a[2]);
  }
  if (!dimsCompatible(a[0], mulDims(s[1], heads)))
    return inferError(loc, name, "attention.shape[0] should be equal to ", what,
                      ".shape[1] * heads, currently are: ", a[0], " and ", mulDims(s[1], heads));
  int64_t rows = selfAttention ? mergeDims(s[0], mergeDims(a[1], a[2])) : a[1];
  results.push_back(RankedTensorType::get(
      {rows, s[1], isDynamic(s[2]) ? kDynamic : s[2] / parts}, proj->getElementType()));
  return success();
}

LogicalResult ContribInterleavedMatmulSelfattValattOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  return inferValatt(loc, getOperationName(), adaptor.getQueriesKeysValues(),
                     "queries_keys_values", 3, adaptor.getHeads(), adaptor.getAttention(),
                     /*selfAttention=*/true, results);
}

LogicalResult ContribInterleavedMatmulEncdecQkOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  int64_t heads = adaptor.getHeads();
  auto q = projection(loc, name, adaptor.getQueries(), "queries", 1, heads);
  auto kv = projection(loc, name, adaptor.getKeysValues(), "keys_values", 2, heads);
  if (failed(q) || failed(kv) ||
      failed(checkElementType(loc, name, "keys_values", *kv, q->getElementType())))
    return failure();
  ArrayRef<int64_t> qs = q->getShape(), ks = kv->getShape();
  if (!dimsCompatible(mulDims(qs[2], 2), ks[2]))
    return inferError(loc, name, "keys_values.shape[2] should be equal to queries.shape[2] * 2, "
                                 "currently are: ", ks[2], " and ", qs[2]);
  if (!dimsCompatible(qs[1], ks[1]))
    return inferError(loc, name, "queries.shape[1] should be equal to keys_values.shape[1], "
                                 "currently are: ", qs[1], " and ", ks[1]);
  results.push_back(RankedTensorType::get({mulDims(qs[1], heads), qs[0], ks[0]},
                                          q->getElementType()));
  return success();
}

LogicalResult ContribInterleavedMatmulEncdecValattOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  return inferValatt(loc, getOperationName(), adaptor.getKeysValues(), "keys_values", 2,
                     adaptor.getHeads(), adaptor.getAttention(), /*selfAttention=*/false,
                     results);
}

//===----------------------------------------------------------------------===//
// random_pdf_* (src/operator/random/pdf_op.h PdfOpShape)
//===----------------------------------------------------------------------===//

LogicalResult mxc::mx::detail::inferPdf(StringRef name, std::optional<Location> loc,
                                        ValueRange operands, bool vectorSamples,
                                        SmallVectorImpl<Type> &results) {
  auto sample = getTensorType(loc, name, operands[0], "sample");
  if (failed(sample))
    return failure();
  ArrayRef<int64_t> s = sample->getShape();
  if (vectorSamples && s.empty())
    return inferError(loc, name, "sample must have a last axis holding the vectors");
  for (unsigned i = 1; i < operands.size(); ++i) {
    std::string what = "parameter " + std::to_string(i);
    auto p = getTensorType(loc, name, operands[i], what);
    if (failed(p) || failed(checkElementType(loc, name, what, *p, sample->getElementType())))
      return failure();
    ArrayRef<int64_t> ps = p->getShape();
    if (ps.size() > s.size() || ps.empty())
      return inferError(loc, name, "dimension of input samples (", s.size(),
                        ") must be at least dimension of distribution parameters (",
                        ps.size(), ")");
    Shape want(s.begin(), s.begin() + ps.size());
    if (vectorSamples)
      want.back() = s.back();
    if (failed(checkShape(loc, name, what, *p, want)))
      return failure();
  }
  Shape out(s.begin(), s.end() - (vectorSamples ? 1 : 0));
  if (out.empty() && vectorSamples)
    out.push_back(1);
  results.push_back(RankedTensorType::get(out, sample->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// GridGenerator (src/operator/grid_generator-inl.h InferShape)
//===----------------------------------------------------------------------===//

LogicalResult GridGeneratorOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  ArrayRef<int64_t> d = data->getShape();
  Type elt = data->getElementType();
  if (adaptor.getTransformType() == "affine") {
    if (d.size() != 2 || !dimsCompatible(d[1], 6))
      return inferError(loc, name, "if transform_type is affine, data is an affine matrix (batch, "
                                   "6), got ", formatShape(d));
    ArrayRef<int64_t> t = adaptor.getTargetShape();
    if (t.size() != 2 || t[0] < 1 || t[1] < 1)
      return inferError(loc, name, "incorrect target_shape ", formatShape(t),
                        ": affine needs a positive (H, W)");
    results.push_back(RankedTensorType::get({d[0], 2, t[0], t[1]}, elt));
    results.push_back(RankedTensorType::get({3, t[0] * t[1]}, elt));
    return success();
  }
  if (d.size() != 4 || !dimsCompatible(d[1], 2))
    return inferError(loc, name, "if transform_type is warp, data is an optical flow (batch, 2, "
                                 "H, W), got ", formatShape(d));
  results.push_back(*data);
  results.push_back(RankedTensorType::get({2, d[2], d[3]}, elt));
  return success();
}

//===----------------------------------------------------------------------===//
// BilinearSampler, SpatialTransformer (bilinear_sampler-inl.h,
// spatial_transformer-inl.h InferShape)
//===----------------------------------------------------------------------===//

/// The sampled `data` (4-D) and the other operand (`what`, of its type) of
/// BilinearSampler / SpatialTransformer.
static LogicalResult samplerOperands(std::optional<Location> loc, StringRef name, Value data,
                                     Value other, StringRef what, RankedTensorType &dataType,
                                     RankedTensorType &otherType) {
  auto d = getTensorType(loc, name, data, "data");
  auto o = getTensorType(loc, name, other, what);
  if (failed(d) || failed(o) || failed(checkElementType(loc, name, what, *o, d->getElementType())))
    return failure();
  if (d->getRank() != 4)
    return inferError(loc, name, "data should be 4D in batch-num_filter-y-x, got ",
                      formatShape(d->getShape()));
  dataType = *d;
  otherType = *o;
  return success();
}

LogicalResult BilinearSamplerOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                  Adaptor adaptor,
                                                  SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  RankedTensorType data, grid;
  if (failed(samplerOperands(loc, name, adaptor.getData(), adaptor.getGrid(), "grid", data, grid)))
    return failure();
  ArrayRef<int64_t> d = data.getShape(), gs = grid.getShape();
  if (gs.size() != 4 || !dimsCompatible(gs[0], d[0]) || !dimsCompatible(gs[1], 2))
    return inferError(loc, name, "grid should be (batch, 2, H, W) with the data's batch ", d[0],
                      ", got ", formatShape(gs));
  for (int i : {2, 3})
    if (!isDynamic(gs[i]) && gs[i] < 1)
      return inferError(loc, name, "incorrect grid_shape: ", gs[i]);
  Type elt = data.getElementType();
  results.push_back(RankedTensorType::get({d[0], d[1], gs[2], gs[3]}, elt));
  results.push_back(RankedTensorType::get({d[0], gs[2], gs[3], 2}, elt));
  return success();
}

LogicalResult SpatialTransformerOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                     Adaptor adaptor,
                                                     SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  RankedTensorType data, l;
  if (failed(samplerOperands(loc, name, adaptor.getData(), adaptor.getLoc(), "loc", data, l)))
    return failure();
  ArrayRef<int64_t> d = data.getShape(), ls = l.getShape(), t = adaptor.getTargetShape();
  if (ls.size() != 2 || !dimsCompatible(ls[0], d[0]) || !dimsCompatible(ls[1], 6))
    return inferError(loc, name, "loc should be (batch, 6) with the data's batch ", d[0],
                      ", got ", formatShape(ls));
  if (t.size() != 2 || t[0] < 1 || t[1] < 1)
    return inferError(loc, name, "incorrect target_shape ", formatShape(t),
                      ": a positive (H, W) is needed");
  Type elt = data.getElementType();
  results.push_back(RankedTensorType::get({d[0], d[1], t[0], t[1]}, elt));
  results.push_back(RankedTensorType::get({3, t[0] * t[1]}, elt));
  results.push_back(RankedTensorType::get({d[0], 2, t[0] * t[1]}, elt));
  return success();
}

//===----------------------------------------------------------------------===//
// contrib quantize / dequantize (quantize-inl.h, dequantize-inl.h)
//===----------------------------------------------------------------------===//

/// The (1,) float32 range operands of quantize / dequantize.
static LogicalResult checkQuantRange(std::optional<Location> loc, StringRef name, Value v,
                                     StringRef what) {
  auto t = getTensorType(loc, name, v, what);
  if (failed(t))
    return failure();
  if (t->getShape() != ArrayRef<int64_t>{1} || !t->getElementType().isF32())
    return inferError(loc, name, what, " must be a float32 array of shape (1,), got ",
                      formatShape(t->getShape()));
  return success();
}

LogicalResult ContribQuantizeOp::inferReturnTypes(MLIRContext *context,
                                                  std::optional<Location> loc, Adaptor adaptor,
                                                  SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data) || failed(checkQuantRange(loc, name, adaptor.getMinRange(), "min_range")) ||
      failed(checkQuantRange(loc, name, adaptor.getMaxRange(), "max_range")))
    return failure();
  if (!data->getElementType().isF32())
    return inferError(loc, name, "data must be float32");
  Type f32 = Float32Type::get(context);
  results.push_back(RankedTensorType::get(data->getShape(),
                                          elementTypeForDType(context, adaptor.getOutType())));
  results.push_back(RankedTensorType::get({1}, f32));
  results.push_back(RankedTensorType::get({1}, f32));
  return success();
}

LogicalResult ContribDequantizeOp::inferReturnTypes(MLIRContext *context,
                                                    std::optional<Location> loc, Adaptor adaptor,
                                                    SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data) || failed(checkQuantRange(loc, name, adaptor.getMinRange(), "min_range")) ||
      failed(checkQuantRange(loc, name, adaptor.getMaxRange(), "max_range")))
    return failure();
  Type elt = data->getElementType();
  if (!elt.isInteger(8))
    return inferError(loc, name, "data must be int8 or uint8");
  results.push_back(RankedTensorType::get(data->getShape(), Float32Type::get(context)));
  return success();
}
