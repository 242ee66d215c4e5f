//===- Ordering.cpp - mx -> linalg: topk ----------------------------------===//
//
// mx.topk becomes `mxrt.kernel_call`s of the runtime's ordering kernel
// (runtime/src/kernels/ordering.cc, declared in kernels.h):
//   mxc_kernel_topk_<T>(x) -> y   outer, n, inner, k, is_ascend, mode
// over `data` seen as (outer, n, inner) with the ordered axis in the middle
// (the flattened input, outer = inner = 1, when `axis` is absent). `mode` 0
// writes the values (outer, k, inner), 1 their positions as T, 2 the mask
// (outer, n, inner). `both` and `value` with a used hidden result call the
// kernel twice (values, positions). The kernel works on f32 / f64: f16 /
// bf16 data are widened to f32, integer data to f64 (exact up to 2^53)
// around it, and values and positions are converted back to the result's
// type by a linalg.generic (Cast's semantics).
// sort and argsort are composites of topk (MXDecompose.cpp).
// _contrib_box_nms becomes the runtime's detection kernel
// (runtime/src/kernels/detection.cc):
//   mxc_kernel_box_nms_<T>(x) -> y   batch, num, width, thresholds (double
//   bits), topk, indices, flags, formats, mode (0 records, 1 positions)
//   mxc_kernel_bipartite_matching_<T>(x) -> y   batch, rows, cols,
//   threshold (double bits), is_ascend, topk, mode (0 rows, 1 columns)
//   mxc_kernel_multibox_target_<T>(anchor, label, cls_pred) -> y   sizes,
//   parameters (double bits), mode (0 loc_target, 1 loc_mask, 2 cls_target)
//   mxc_kernel_multibox_detection_<T>(cls_prob, loc_pred, anchor) -> y
//   sizes, parameters (double bits)
//   mxc_kernel_syevd_<T>(a) -> y   batch, n, mode (0 U, 1 eigenvalues)
//   mxc_kernel_lu_<T>(a) -> y   batch, n, mode (0 inverse, 1 det, 2 sign,
//   3 log|det|, 4 LU, 5 pivots)
// _contrib_RROIAlign and the RPN proposals become region.cc's kernels:
//   mxc_kernel_rroi_align_<T>(data, rois) -> y   n, c, h, w, r, ph, pw,
//   spatial_scale (double bits), sampling_ratio
//   mxc_kernel_proposal_<T>(cls_prob, bbox_pred, im_info, base anchors) ->
//   (rows, 6)   batch, anchors, height, width, pre / post NMS counts,
//   threshold (double bits), min_size, feature_stride, iou_loss
//
//===----------------------------------------------------------------------===//
#include "ElementUtils.h"
#include "KernelCalls.h"
#include "Patterns.h"

#include "mxc/Dialect/MX/IR/MXOps.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mxc::conversion;
using namespace mxc::conversion::elem;
namespace mx = mxc::mx;

namespace {

/// `v` converted elementwise to `to` (a tensor of the same shape).
Value convertTensor(OpBuilder &b, Location loc, Value v, Type fromMX, Type to,
                    Type toMX) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == to)
    return v;
  auto resultType = RankedTensorType::get(type.getShape(), to);
  Value init = emptyTensor(b, loc, type.getShape(), to);
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iters(type.getRank(),
                                         utils::IteratorType::parallel);
  ElemKind from = kindOf(fromMX), dst = kindOf(toMX);
  return linalg::GenericOp::create(
             b, loc, resultType, ValueRange{v}, ValueRange{init},
             ArrayRef<AffineMap>{id, id}, iters,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value x = castSignedness(nb, nl, args[0], from.type);
               Value y = convertElement(nb, nl, x, from, dst);
               linalg::YieldOp::create(nb, nl,
                                       castSignedness(nb, nl, y, to));
             })
      .getResult(0);
}

struct ConvertTopk final : OpConversionPattern<mx::TopkOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::TopkOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return unsupported(rewriter, op, "dynamic shapes are not supported");
    auto dataType = cast<RankedTensorType>(op.getData().getType());
    Type elt = dataType.getElementType();
    Location loc = op.getLoc();
    Value x = adaptor.getData();
    // The kernel's type: f64 for f64 and integer data (exact up to 2^53),
    // f32 for the other floats.
    Type work = elt.isF64() || isa<IntegerType>(elt) ? rewriter.getF64Type()
                                                      : rewriter.getF32Type();
    x = convertTensor(rewriter, loc, x, elt, work, work);

    mx::OrderRows rows = mx::orderRows(dataType.getShape(), op.getAxis());
    int64_t outer = rows.outer, n = rows.n, inner = rows.inner;
    int64_t k = static_cast<int64_t>(op.getK());
    if (k <= 0)
      k = n;
    StringRef ret = op.getRetTyp();
    std::string name = "mxc_kernel_topk_" + kernelSuffix(work);
    Value flat = mxc::conversion::reshapeTo(rewriter, loc, x,
                                           {dataType.getNumElements()});
    auto call = [&](int64_t mode) {
      int64_t written = mode == 2 ? n : k; // per row
      auto t = RankedTensorType::get({outer * written * inner}, work);
      return callKernel(rewriter, op, name, {flat},
                        {outer, n, inner, k, op.getIsAscend() ? 1 : 0, mode},
                        t);
    };
    // Result i from the kernel's flat output: reshaped, then converted to
    // the result's (MXNet) element type.
    auto finish = [&](Value flat, unsigned i) {
      auto resultType = cast<RankedTensorType>(op->getResult(i).getType());
      auto converted =
          cast<RankedTensorType>(getTypeConverter()->convertType(resultType));
      Value v = mxc::conversion::reshapeTo(rewriter, loc, flat,
                                           resultType.getShape());
      return convertTensor(rewriter, loc, v, work,
                           converted.getElementType(),
                           resultType.getElementType());
    };
    SmallVector<Value> results;
    if (ret == "indices") {
      results.push_back(finish(call(1), 0));
    } else if (ret == "mask") {
      results.push_back(finish(call(2), 0));
    } else {
      results.push_back(finish(call(0), 0));
      Value indices = op->getResult(1);
      if (ret == "both" || !indices.use_empty()) {
        results.push_back(finish(call(1), 1));
      } else {
        auto t = cast<RankedTensorType>(
            getTypeConverter()->convertType(indices.getType()));
        results.push_back(
            emptyTensor(rewriter, loc, t.getShape(), t.getElementType()));
      }
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// The runtime kernels' element type for data of `elt`: f64 for f64, f32
/// for the other floats.
Type kernelWorkType(OpBuilder &b, Type elt) {
  return elt.isF64() ? Type(b.getF64Type()) : Type(b.getF32Type());
}

/// The product of `shape`'s extents but the last `keep` (the batch of
/// matrices or box lists the kernels loop over).
int64_t batchOf(ArrayRef<int64_t> shape, size_t keep) {
  int64_t batch = 1;
  for (int64_t e : shape.drop_back(keep))
    batch *= e;
  return batch;
}

/// Each operand of `op` in the kernel's type `work`, flattened.
SmallVector<Value> flatOperands(OpBuilder &b, Location loc, Operation *op,
                                ValueRange converted, Type work) {
  SmallVector<Value> ins;
  for (auto [orig, v] : llvm::zip(op->getOperands(), converted)) {
    auto t = cast<RankedTensorType>(orig.getType());
    Value w = convertTensor(b, loc, v, t.getElementType(), work, work);
    ins.push_back(mxc::conversion::reshapeTo(b, loc, w, {t.getNumElements()}));
  }
  return ins;
}

/// `v` (the elements of result `i` of `op`, in `work`) reshaped to the
/// result's shape and converted to its type.
Value asResult(OpBuilder &b, const TypeConverter &typeConverter, Operation *op, unsigned i,
               Value v, Type work) {
  auto resultType = cast<RankedTensorType>(op->getResult(i).getType());
  auto converted = cast<RankedTensorType>(typeConverter.convertType(resultType));
  v = mxc::conversion::reshapeTo(b, op->getLoc(), v, resultType.getShape());
  return convertTensor(b, op->getLoc(), v, work, converted.getElementType(),
                       resultType.getElementType());
}

/// Result `i` of `op` from the runtime kernel `name` on `ins` with `ints`,
/// which writes it flat in `work`: reshaped to the result's shape and
/// converted to its type.
Value kernelResult(ConversionPatternRewriter &rewriter, const TypeConverter &typeConverter,
                   Operation *op, unsigned i, StringRef name, ArrayRef<Value> ins,
                   ArrayRef<int64_t> ints, Type work) {
  auto resultType = cast<RankedTensorType>(op->getResult(i).getType());
  Value v = callKernel(rewriter, op, name, ins, ints,
                       RankedTensorType::get({resultType.getNumElements()}, work));
  return asResult(rewriter, typeConverter, op, i, v, work);
}

/// _contrib_box_nms: the runtime's mxc_kernel_box_nms_<T> on (batch, num,
/// width), mode 0 for the records, 1 for the hidden positions (only when
/// something reads them: the gradient). f16 / bf16 data widened to f32.
struct ConvertBoxNms final : OpConversionPattern<mx::ContribBoxNmsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::ContribBoxNmsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return unsupported(rewriter, op, "dynamic shapes are not supported");
    auto dataType = cast<RankedTensorType>(op.getData().getType());
    Type work = kernelWorkType(rewriter, dataType.getElementType());
    SmallVector<Value> ins = flatOperands(rewriter, op.getLoc(), op, adaptor.getOperands(), work);
    ArrayRef<int64_t> d = dataType.getShape();
    int64_t num = d[d.size() - 2], width = d.back(), batch = batchOf(d, 2);
    std::string name = "mxc_kernel_box_nms_" + kernelSuffix(work);
    auto call = [&](int64_t mode) {
      return kernelResult(
          rewriter, *getTypeConverter(), op, unsigned(mode), name, ins,
          {batch, num, width, floatParamBits(op.getOverlapThresh().convertToDouble()),
           floatParamBits(op.getValidThresh().convertToDouble()),
           static_cast<int64_t>(op.getTopk()), static_cast<int64_t>(op.getCoordStart()),
           static_cast<int64_t>(op.getScoreIndex()), static_cast<int64_t>(op.getIdIndex()),
           static_cast<int64_t>(op.getBackgroundId()), op.getForceSuppress() ? 1 : 0,
           op.getInFormat() == "corner" ? 1 : 0, op.getOutFormat() == "corner" ? 1 : 0, mode},
          work);
    };
    SmallVector<Value> results{call(0)};
    if (!op->getResult(1).use_empty()) {
      results.push_back(call(1));
    } else {
      auto t = cast<RankedTensorType>(getTypeConverter()->convertType(op->getResult(1).getType()));
      results.push_back(emptyTensor(rewriter, op.getLoc(), t.getShape(), t.getElementType()));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// _contrib_bipartite_matching: mxc_kernel_bipartite_matching_<T> on
/// (batch, rows, cols), mode 0 the row markers, 1 the column markers.
struct ConvertBipartiteMatching final
    : OpConversionPattern<mx::ContribBipartiteMatchingOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::ContribBipartiteMatchingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return unsupported(rewriter, op, "dynamic shapes are not supported");
    auto dataType = cast<RankedTensorType>(op.getData().getType());
    Type work = kernelWorkType(rewriter, dataType.getElementType());
    SmallVector<Value> ins = flatOperands(rewriter, op.getLoc(), op, adaptor.getOperands(), work);
    ArrayRef<int64_t> d = dataType.getShape();
    int64_t rows = d[d.size() - 2], cols = d.back(), batch = batchOf(d, 2);
    SmallVector<Value> results;
    for (unsigned i = 0; i < 2; ++i)
      results.push_back(kernelResult(
          rewriter, *getTypeConverter(), op, i,
          "mxc_kernel_bipartite_matching_" + kernelSuffix(work), ins,
          {batch, rows, cols, floatParamBits(op.getThreshold().convertToDouble()),
           op.getIsAscend() ? 1 : 0, static_cast<int64_t>(op.getTopk()), int64_t(i)},
          work));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// _linalg_syevd: mxc_kernel_syevd_<T> on (batch, n, n), mode 0 for U, 1
/// for the eigenvalues.
struct ConvertSyevd final : OpConversionPattern<mx::LinalgSyevdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::LinalgSyevdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return unsupported(rewriter, op, "dynamic shapes are not supported");
    Location loc = op.getLoc();
    auto aType = cast<RankedTensorType>(op.getA().getType());
    Type work = kernelWorkType(rewriter, aType.getElementType());
    SmallVector<Value> ins = flatOperands(rewriter, loc, op, adaptor.getOperands(), work);
    int64_t n = aType.getShape().back(), batch = batchOf(aType.getShape(), 2);
    SmallVector<Value> results;
    for (unsigned i = 0; i < 2; ++i)
      results.push_back(kernelResult(rewriter, *getTypeConverter(), op, i,
                                     "mxc_kernel_syevd_" + kernelSuffix(work), ins,
                                     {batch, n, int64_t(i)}, work));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// _linalg_inverse / _linalg_det / _linalg_slogdet: mxc_kernel_lu_<T> on
/// (batch, n, n), one call per result that is read (the hidden LU and
/// pivots only when something reads them).
template <typename OpT> struct ConvertLU final : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpT>::OpAdaptor;
  LogicalResult
  matchAndRewrite(OpT op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return unsupported(rewriter, op, "dynamic shapes are not supported");
    Location loc = op.getLoc();
    auto aType = cast<RankedTensorType>(op.getA().getType());
    Type work = kernelWorkType(rewriter, aType.getElementType());
    SmallVector<Value> ins = flatOperands(rewriter, loc, op, adaptor.getOperands(), work);
    int64_t n = aType.getShape().back(), batch = batchOf(aType.getShape(), 2);
    // the kernel's mode of each result
    SmallVector<int64_t> modes;
    if (isa<mx::LinalgInverseOp>(op))
      modes = {0};
    else if (isa<mx::LinalgDetOp>(op))
      modes = {1, 4, 5};
    else
      modes = {2, 3, 4, 5};
    SmallVector<Value> results;
    for (auto [i, mode] : llvm::enumerate(modes)) {
      Value r = op->getResult(i);
      if (i > 0 && mode >= 4 && r.use_empty()) {
        auto t = cast<RankedTensorType>(this->getTypeConverter()->convertType(r.getType()));
        results.push_back(emptyTensor(rewriter, loc, t.getShape(), t.getElementType()));
        continue;
      }
      results.push_back(kernelResult(rewriter, *this->getTypeConverter(), op, unsigned(i),
                                     "mxc_kernel_lu_" + kernelSuffix(work), ins,
                                     {batch, n, mode}, work));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// _contrib_MultiBoxDetection: mxc_kernel_multibox_detection_<T>(cls_prob,
/// loc_pred, anchor).
struct ConvertMultiBoxDetection final
    : OpConversionPattern<mx::ContribMultiBoxDetectionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::ContribMultiBoxDetectionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return unsupported(rewriter, op, "dynamic shapes are not supported");
    Location loc = op.getLoc();
    Type elt = cast<RankedTensorType>(op.getClsProb().getType()).getElementType();
    Type work = kernelWorkType(rewriter, elt);
    SmallVector<Value> ins = flatOperands(rewriter, loc, op, adaptor.getOperands(), work);
    ArrayRef<int64_t> c = cast<RankedTensorType>(op.getClsProb().getType()).getShape();
    auto variances = mx::parseFloatTuple(op.getVariances());
    if (!variances || variances->size() != 4)
      return unsupported(rewriter, op, "variances must be four floats");
    ArrayRef<double> var = *variances;
    rewriter.replaceOp(
        op, kernelResult(rewriter, *getTypeConverter(), op, 0,
                         "mxc_kernel_multibox_detection_" + kernelSuffix(work), ins,
                         {c[0], c[1], c[2], op.getClip() ? 1 : 0,
                          floatParamBits(op.getThreshold().convertToDouble()),
                          floatParamBits(op.getNmsThreshold().convertToDouble()),
                          op.getForceSuppress() ? 1 : 0, static_cast<int64_t>(op.getNmsTopk()),
                          floatParamBits(var[0]), floatParamBits(var[1]),
                          floatParamBits(var[2]), floatParamBits(var[3])},
                         work));
    return success();
  }
};

/// _contrib_MultiBoxTarget: mxc_kernel_multibox_target_<T>(anchor, label,
/// cls_pred), once per result (mode 0, 1, 2).
struct ConvertMultiBoxTarget final : OpConversionPattern<mx::ContribMultiBoxTargetOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::ContribMultiBoxTargetOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return unsupported(rewriter, op, "dynamic shapes are not supported");
    Location loc = op.getLoc();
    Type elt = cast<RankedTensorType>(op.getAnchor().getType()).getElementType();
    Type work = kernelWorkType(rewriter, elt);
    SmallVector<Value> ins = flatOperands(rewriter, loc, op, adaptor.getOperands(), work);
    ArrayRef<int64_t> l = cast<RankedTensorType>(op.getLabel().getType()).getShape();
    ArrayRef<int64_t> p = cast<RankedTensorType>(op.getClsPred().getType()).getShape();
    int64_t anchors = cast<RankedTensorType>(op.getAnchor().getType()).getShape()[1];
    auto variances = mx::parseFloatTuple(op.getVariances());
    if (!variances || variances->size() != 4)
      return unsupported(rewriter, op, "variances must be four floats");
    ArrayRef<double> var = *variances;
    std::string name = "mxc_kernel_multibox_target_" + kernelSuffix(work);
    SmallVector<Value> results;
    for (unsigned i = 0; i < 3; ++i)
      results.push_back(kernelResult(
          rewriter, *getTypeConverter(), op, i, name, ins,
          {l[0], anchors, l[1], l[2], p[1],
           floatParamBits(op.getOverlapThreshold().convertToDouble()),
           floatParamBits(op.getIgnoreLabel().convertToDouble()),
           floatParamBits(op.getNegativeMiningRatio().convertToDouble()),
           floatParamBits(op.getNegativeMiningThresh().convertToDouble()), floatParamBits(var[0]),
           floatParamBits(var[1]), floatParamBits(var[2]), floatParamBits(var[3]), int64_t(i)},
          work));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// _contrib_RROIAlign: mxc_kernel_rroi_align_<T>(data, rois) on (N, C, H,
/// W) and (R, 6).
struct ConvertRROIAlign final : OpConversionPattern<mx::ContribRROIAlignOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::ContribRROIAlignOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return unsupported(rewriter, op, "dynamic shapes are not supported");
    auto dataType = cast<RankedTensorType>(op.getData().getType());
    Type work = kernelWorkType(rewriter, dataType.getElementType());
    SmallVector<Value> ins = flatOperands(rewriter, op.getLoc(), op, adaptor.getOperands(), work);
    ArrayRef<int64_t> d = dataType.getShape();
    ArrayRef<int64_t> o = cast<RankedTensorType>(op.getType()).getShape();
    rewriter.replaceOp(
        op, kernelResult(rewriter, *getTypeConverter(), op, 0,
                         "mxc_kernel_rroi_align_" + kernelSuffix(work), ins,
                         {d[0], d[1], d[2], d[3], o[0], o[2], o[3],
                          floatParamBits(op.getSpatialScale().convertToDouble()),
                          static_cast<int64_t>(op.getSamplingRatio())},
                         work));
    return success();
  }
};

/// MXNet's GenerateAnchors (proposal-inl.h / multi_proposal-inl.h, in
/// float as there): the (x1, y1, x2, y2) anchors of a stride x stride
/// square, for each ratio each scale.
SmallVector<float> proposalAnchors(float stride, ArrayRef<double> ratios,
                                   ArrayRef<double> scales) {
  const float base[4] = {0.0f, 0.0f, stride - 1.0f, stride - 1.0f};
  SmallVector<float> out;
  for (double r : ratios)
    for (double sc : scales) {
      float ratio = static_cast<float>(r), scale = static_cast<float>(sc);
      float w = base[2] - base[1] + 1.0f; // (MXNet's index; base[0] == base[1])
      float h = base[3] - base[1] + 1.0f;
      float xCtr = base[0] + 0.5 * (w - 1.0f);
      float yCtr = base[1] + 0.5 * (h - 1.0f);
      float sizeRatios = std::floor(w * h / ratio);
      float newW = std::floor(std::sqrt(sizeRatios) + 0.5f) * scale;
      float newH = std::floor((newW / scale * ratio) + 0.5f) * scale;
      out.append({xCtr - 0.5f * (newW - 1.0f), yCtr - 0.5f * (newH - 1.0f),
                  xCtr + 0.5f * (newW - 1.0f), yCtr + 0.5f * (newH - 1.0f)});
    }
  return out;
}

/// _contrib_Proposal / _contrib_MultiProposal: mxc_kernel_proposal_<T>(
/// cls_prob, bbox_pred, im_info, base anchors (a constant)) writes (rows, 6);
/// the rois are columns 0-4, the scores column 5.
template <typename OpT> struct ConvertProposal final : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpT>::OpAdaptor;
  LogicalResult
  matchAndRewrite(OpT op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return unsupported(rewriter, op, "dynamic shapes are not supported");
    Location loc = op.getLoc();
    auto clsType = cast<RankedTensorType>(op.getClsProb().getType());
    Type work = kernelWorkType(rewriter, clsType.getElementType());
    SmallVector<Value> ins = flatOperands(rewriter, loc, op, adaptor.getOperands(), work);
    auto ratios = mx::parseFloatTuple(op.getRatios());
    auto scales = mx::parseFloatTuple(op.getScales());
    if (!ratios || !scales)
      return unsupported(rewriter, op, "scales and ratios must be tuples of floats");
    SmallVector<float> anchors = proposalAnchors(static_cast<float>(op.getFeatureStride()),
                                                 *ratios, *scales);
    auto baseType = RankedTensorType::get({static_cast<int64_t>(anchors.size())}, work);
    DenseElementsAttr baseAttr =
        work.isF64() ? DenseElementsAttr::get(baseType, ArrayRef<double>(SmallVector<double>(
                                                            anchors.begin(), anchors.end())))
                     : DenseElementsAttr::get(baseType, ArrayRef<float>(anchors));
    ins.push_back(arith::ConstantOp::create(rewriter, loc, baseType, baseAttr));
    ArrayRef<int64_t> c = clsType.getShape();
    int64_t post = static_cast<int64_t>(op.getRpnPostNmsTopN());
    int64_t rows = c[0] * post;
    Value flat = callKernel(rewriter, op, "mxc_kernel_proposal_" + kernelSuffix(work), ins,
                            {c[0], c[1] / 2, c[2], c[3],
                             static_cast<int64_t>(op.getRpnPreNmsTopN()), post,
                             floatParamBits(op.getThreshold().convertToDouble()),
                             static_cast<int64_t>(op.getRpnMinSize()),
                             static_cast<int64_t>(op.getFeatureStride()),
                             op.getIouLoss() ? 1 : 0},
                            RankedTensorType::get({rows * 6}, work));
    Value table = mxc::conversion::reshapeTo(rewriter, loc, flat, {rows, 6});
    SmallVector<Value> results;
    for (unsigned i = 0; i < 2; ++i) {
      int64_t first = i == 0 ? 0 : 5, width = i == 0 ? 5 : 1;
      auto sliceType = RankedTensorType::get({rows, width}, work);
      Value v = tensor::ExtractSliceOp::create(
          rewriter, loc, sliceType, table, ValueRange{}, ValueRange{}, ValueRange{},
          rewriter.getDenseI64ArrayAttr({0, first}), rewriter.getDenseI64ArrayAttr({rows, width}),
          rewriter.getDenseI64ArrayAttr({1, 1}));
      results.push_back(asResult(rewriter, *this->getTypeConverter(), op, i, v, work));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void mxc::conversion::populateOrderingPatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  target.addIllegalOp<mx::TopkOp, mx::ContribBoxNmsOp, mx::ContribBipartiteMatchingOp,
                      mx::ContribMultiBoxTargetOp, mx::ContribMultiBoxDetectionOp,
                      mx::LinalgSyevdOp, mx::LinalgInverseOp, mx::LinalgDetOp,
                      mx::LinalgSlogdetOp, mx::ContribRROIAlignOp, mx::ContribProposalOp,
                      mx::ContribMultiProposalOp>();
  patterns.add<ConvertRROIAlign, ConvertProposal<mx::ContribProposalOp>,
               ConvertProposal<mx::ContribMultiProposalOp>, ConvertTopk, ConvertBoxNms, ConvertBipartiteMatching, ConvertMultiBoxTarget,
               ConvertMultiBoxDetection, ConvertSyevd, ConvertLU<mx::LinalgInverseOp>,
               ConvertLU<mx::LinalgDetOp>, ConvertLU<mx::LinalgSlogdetOp>>(
      typeConverter, patterns.getContext());
}
