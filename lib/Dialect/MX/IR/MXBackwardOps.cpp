//===- MXBackwardOps.cpp - backward ops of mx layers ----------------------===//
//
// Verifiers and result types of MXBackwardOps.td. Each verifier runs the
// forward op's own shape inference (MXShapeInferenceNN.cpp) on the backward
// op's operands and attributes, so forward and backward agree on every
// attribute check and output extent.
//
//===----------------------------------------------------------------------===//
#include "mxc/Dialect/MX/IR/MXOps.h"

#include "MXInference.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mxc::mx;
using namespace mxc::mx::detail;

namespace {

/// Checks that `actual` is compatible with the forward's inferred type.
LogicalResult checkAgainstForward(Operation *op, StringRef what, Type inferred,
                                  Type actual) {
  if (isCompatibleReturnTypes(TypeRange{inferred}, TypeRange{actual}))
    return success();
  return op->emitOpError() << what << " type " << actual
                           << " does not match the forward result type "
                           << inferred;
}

/// Runs the forward op's inference `fn`; its diagnostic, if any, is
/// re-emitted at `op` as "as the forward <Op>: <message>" so that the error
/// names the backward op.
template <typename Fn>
LogicalResult viaForward(Operation *op, StringRef forwardName, Fn fn) {
  std::string message;
  LogicalResult result = success();
  {
    ScopedDiagnosticHandler handler(op->getContext(), [&](Diagnostic &diag) {
      if (message.empty())
        message = diag.str();
      return success();
    });
    result = fn();
  }
  if (succeeded(result))
    return success();
  StringRef text(message);
  std::string prefix = ("'mx." + forwardName + "' op ").str();
  text.consume_front(prefix);
  return op->emitOpError() << "as the forward " << forwardName << ": " << text;
}

/// The forward Convolution's result type for `data` and `weight` under the
/// backward op's attributes (no bias), or failure with a diagnostic.
template <typename BackwardOp>
FailureOr<Type> convolutionForwardType(BackwardOp op, Value data,
                                       Value weight) {
  ConvolutionOp::Properties props;
  props.kernel = op.getKernelAttr();
  props.stride = op.getStrideAttr();
  props.dilate = op.getDilateAttr();
  props.pad = op.getPadAttr();
  props.num_filter = op.getNumFilterAttr();
  props.num_group = op.getNumGroupAttr();
  props.no_bias = BoolAttr::get(op.getContext(), true);
  // The adaptor keeps a reference to the operand list: keep it alive.
  SmallVector<Value, 2> operands{data, weight};
  ConvolutionOp::Adaptor adaptor(ValueRange(operands), nullptr, props);
  SmallVector<Type> inferred;
  if (failed(viaForward(op, "Convolution", [&] {
        return ConvolutionOp::inferReturnTypes(op.getContext(), op.getLoc(),
                                               adaptor, inferred);
      })))
    return failure();
  return inferred.front();
}

} // namespace

//===----------------------------------------------------------------------===//
// Convolution_backward_data
//===----------------------------------------------------------------------===//

LogicalResult ConvolutionBackwardDataOp::verify() {
  // The result is the forward data: Convolution(data_grad-typed data,
  // weight) must give out_grad's type.
  FailureOr<Type> fwd =
      convolutionForwardType(*this, getDataGrad(), getWeight());
  if (failed(fwd))
    return failure();
  return checkAgainstForward(*this, "out_grad", *fwd, getOutGrad().getType());
}

//===----------------------------------------------------------------------===//
// Convolution_backward_weight
//===----------------------------------------------------------------------===//

LogicalResult ConvolutionBackwardWeightOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  ArrayRef<int64_t> kernel = adaptor.getKernel();
  int64_t k = kernel.size();
  if (k < 1 || k > 3)
    return inferError(loc, name, "kernel ", formatShape(kernel),
                      " must have 1, 2 or 3 entries");
  if (data->getRank() != k + 2)
    return inferError(loc, name, "expects ", k + 2, "-D data for a ", k,
                      "-D kernel, got ", formatShape(data->getShape()));
  int64_t numFilter = static_cast<int64_t>(adaptor.getNumFilter());
  int64_t numGroup = static_cast<int64_t>(adaptor.getNumGroup());
  if (numGroup < 1)
    return inferError(loc, name, "num_group must be >= 1, got ", numGroup);
  int64_t channels = data->getDimSize(1);
  if (!isDynamic(channels) && channels % numGroup != 0)
    return inferError(loc, name, "input channels ", channels,
                      " not divisible by num_group ", numGroup);
  Shape shape{numFilter, isDynamic(channels) ? kDynamic : channels / numGroup};
  shape.append(kernel.begin(), kernel.end());
  results.push_back(RankedTensorType::get(shape, data->getElementType()));
  return success();
}

LogicalResult ConvolutionBackwardWeightOp::verify() {
  FailureOr<Type> fwd =
      convolutionForwardType(*this, getData(), getWeightGrad());
  if (failed(fwd))
    return failure();
  return checkAgainstForward(*this, "out_grad", *fwd, getOutGrad().getType());
}

//===----------------------------------------------------------------------===//
// Pooling_backward
//===----------------------------------------------------------------------===//

LogicalResult PoolingBackwardOp::verify() {
  PoolingOp::Properties props;
  props.kernel = getKernelAttr();
  props.pool_type = getPoolTypeAttr();
  props.global_pool = getGlobalPoolAttr();
  props.pooling_convention = getPoolingConventionAttr();
  props.stride = getStrideAttr();
  props.pad = getPadAttr();
  props.p_value = getPValueAttr();
  props.count_include_pad = getCountIncludePadAttr();
  props.layout = getLayoutAttr();
  Value data = getData();
  PoolingOp::Adaptor adaptor(ValueRange(data), nullptr, props);
  SmallVector<Type> inferred;
  if (failed(viaForward(*this, "Pooling", [&] {
        return PoolingOp::inferReturnTypes(getContext(), getLoc(), adaptor,
                                           inferred);
      })))
    return failure();
  if (failed(checkAgainstForward(*this, "output", inferred.front(),
                                 getOutput().getType())) ||
      failed(checkAgainstForward(*this, "out_grad", inferred.front(),
                                 getOutGrad().getType())))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// LRN_backward
//===----------------------------------------------------------------------===//

LogicalResult LRNBackwardOp::verify() {
  if (static_cast<int64_t>(getNsize()) < 1)
    return emitOpError("nsize must be >= 1, got ")
           << static_cast<int64_t>(getNsize());
  Type dataType = getData().getType();
  if (getData().getType().getRank() < 3)
    return emitOpError("expects data of rank >= 3 (N, C, ...), got ")
           << dataType;
  for (auto [what, value] :
       {std::pair<StringRef, Value>{"out_grad", getOutGrad()},
        {"tmp_norm", getTmpNorm()},
        {"output", getOutput()}})
    if (!isCompatibleReturnTypes(TypeRange{dataType},
                                 TypeRange{value.getType()}))
      return emitOpError() << what << " type " << value.getType()
                           << " does not match the data type " << dataType;
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution_fused (MXFusedOps.td; its forward is a Convolution too)
//===----------------------------------------------------------------------===//

LogicalResult ConvolutionFusedOp::verify() {
  FailureOr<Type> fwd = convolutionForwardType(*this, getData(), getWeight());
  if (failed(fwd))
    return failure();
  if (failed(checkAgainstForward(*this, "output", *fwd, getOutput().getType())))
    return failure();
  int64_t filters = static_cast<int64_t>(getNumFilter());
  for (auto [what, v] : {std::pair<StringRef, Value>{"bias", getBias()},
                         {"scale", getScale()},
                         {"shift", getShift()}}) {
    if (!v)
      continue;
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getRank() != 1 || t.getDimSize(0) != filters)
      return emitOpError() << what << " must be (" << filters << ",), got "
                           << t;
  }
  if (getSum() && getSum().getType() != getOutput().getType())
    return emitOpError() << "sum type " << getSum().getType()
                         << " must be the output type "
                         << getOutput().getType();
  StringRef act = getAct();
  if (act != "" && act != "relu" && act != "clip")
    return emitOpError() << "act must be \"\", \"relu\" or \"clip\", got \""
                         << act << "\"";
  if (getActAfterSum() && (!getSum() || act.empty()))
    return emitOpError() << "act_after_sum needs a sum and an act";
  return success();
}

//===----------------------------------------------------------------------===//
// BatchNorm_train, BatchNorm_backward
//===----------------------------------------------------------------------===//

namespace {

/// The channel count of `data` at `axis` (negative from the end), after
/// checking that every value of `channelValues` is a rank-1 tensor of it and
/// every value of `dataLike` has `data`'s type, all with `data`'s element
/// type.
LogicalResult
verifyBatchNormOperands(Operation *op, Value data, int64_t axis,
                        ArrayRef<std::pair<StringRef, Value>> dataLike,
                        ArrayRef<std::pair<StringRef, Value>> channelValues) {
  auto dataType = cast<RankedTensorType>(data.getType());
  int64_t rank = dataType.getRank();
  if (axis < 0)
    axis += rank;
  if (rank < 1 || axis < 0 || axis >= rank)
    return op->emitOpError() << "axis " << axis << " out of range for data "
                             << dataType;
  int64_t c = dataType.getDimSize(axis);
  auto channelType = RankedTensorType::get({c}, dataType.getElementType());
  for (auto [what, value] : dataLike)
    if (!isCompatibleReturnTypes(TypeRange{dataType}, TypeRange{value.getType()}))
      return op->emitOpError() << what << " type " << value.getType()
                               << " does not match the data type " << dataType;
  for (auto [what, value] : channelValues)
    if (!isCompatibleReturnTypes(TypeRange{channelType},
                                 TypeRange{value.getType()}))
      return op->emitOpError() << what << " type " << value.getType()
                               << " is not " << channelType
                               << " (one value a channel)";
  return success();
}

} // namespace

LogicalResult BatchNormTrainOp::verify() {
  if (getEps().convertToDouble() <= 0)
    return emitOpError("eps must be > 0, got ") << getEps().convertToDouble();
  return verifyBatchNormOperands(
      *this, getData(), static_cast<int64_t>(getAxis()),
      {{"output", getOutput()}},
      {{"gamma", getGamma()},
       {"beta", getBeta()},
       {"mean", getMean()},
       {"var", getVar()},
       {"invstd", getInvstd()}});
}

LogicalResult BatchNormBackwardOp::verify() {
  if (getEps().convertToDouble() <= 0)
    return emitOpError("eps must be > 0, got ") << getEps().convertToDouble();
  return verifyBatchNormOperands(
      *this, getData(), static_cast<int64_t>(getAxis()),
      {{"out_grad", getOutGrad()}, {"data_grad", getDataGrad()}},
      {{"gamma", getGamma()},
       {"mean", getMean()},
       {"invstd", getInvstd()},
       {"gamma_grad", getGammaGrad()},
       {"beta_grad", getBetaGrad()}});
}

//===----------------------------------------------------------------------===//
// softmax_backward
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxBackwardOp::verify() {
  auto type = getOutput().getType();
  int64_t rank = type.getRank(), axis = static_cast<int64_t>(getAxis());
  if (axis < -rank || axis >= rank)
    return emitOpError() << "axis " << axis << " out of range for " << type;
  for (auto [what, value] :
       {std::pair<StringRef, Value>{"out_grad", getOutGrad()},
        {"data_grad", getDataGrad()}})
    if (!isCompatibleReturnTypes(TypeRange{type}, TypeRange{value.getType()}))
      return emitOpError() << what << " type " << value.getType()
                           << " does not match the output type " << type;
  return success();
}
