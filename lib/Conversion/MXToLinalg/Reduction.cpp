//===- Reduction.cpp - mx -> linalg: reductions and softmax ---------------===//
//
// sum / mean / max / min reduce with one linalg.generic into the kept axes,
// then reshape to the inferred result (keepdims extents, or MXNet's (1,) for
// a full reduction). argmax carries (value, index) through one reduction and
// gives the index in the input's element type, as MXNet does. softmax,
// log_softmax and SoftmaxOutput are three passes (max, sum of exp, normalise)
// over any set of reduced axes, numerically stable as MXNet's
// (src/operator/nn/softmax-inl.h): exp((x - max) / t). On the CUDA target
// f32 / f64 softmaxes without temperature or length are cuDNN's
// (mxc_kernel_softmax_<T>, a kernel call), and so is softmax_backward, the
// gradient the rule of softmax / log_softmax builds (else generated: a sum
// along the axis and a map).
//
// f16 / bf16 accumulate in f32 (MXNet's AType for softmax); integer sums
// accumulate in their own type, as MXNet does.
//
//===----------------------------------------------------------------------===//
#include "ElementUtils.h"
#include "KernelCalls.h"
#include "Patterns.h"

#include "mxc/Dialect/MX/IR/MXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mxc::conversion::elem;
namespace mx = mxc::mx;

namespace {

/// Builds the new accumulator from the (signless) input element and the
/// current accumulator(s).
using Combiner = function_ref<SmallVector<Value>(
    OpBuilder &, Location, ValueRange /*in*/, ValueRange /*acc*/)>;

/// The axes that `axis` / `exclude` select for a rank-`rank` input (MXNet's
/// ReduceAxesShapeImpl): absent or empty means all, even with exclude.
static SmallVector<bool> reducedAxes(std::optional<ArrayRef<int64_t>> axis,
                                     bool exclude, int64_t rank) {
  if (!axis || axis->empty())
    return SmallVector<bool>(rank, true);
  SmallVector<bool> reduced(rank, exclude);
  for (int64_t a : *axis)
    reduced[a < 0 ? a + rank : a] = !exclude;
  return reduced;
}

/// The extents of `shape` on the axes not in `reduced`.
static SmallVector<int64_t> keptShape(ArrayRef<int64_t> shape,
                                      ArrayRef<bool> reduced) {
  SmallVector<int64_t> kept;
  for (auto [extent, r] : llvm::zip(shape, reduced))
    if (!r)
      kept.push_back(extent);
  return kept;
}

/// The map from a rank-`reduced.size()` iteration space to the kept axes.
static AffineMap keptMap(ArrayRef<bool> reduced, MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  for (auto [i, r] : llvm::enumerate(reduced))
    if (!r)
      exprs.push_back(getAffineDimExpr(i, ctx));
  return AffineMap::get(reduced.size(), 0, exprs, ctx);
}

static SmallVector<utils::IteratorType> iteratorsFor(ArrayRef<bool> reduced) {
  SmallVector<utils::IteratorType> its;
  for (bool r : reduced)
    its.push_back(r ? utils::IteratorType::reduction
                    : utils::IteratorType::parallel);
  return its;
}

/// One linalg.generic reducing `inputs` (the first spans the iteration
/// space; `inputMaps` index all of them) over `reduced` into accumulators
/// initialised to `inits` (signless element values) and combined by
/// `combine` on signless values. Accumulator tensors have `accTypes` as
/// element types (ui8 where the op's type is), else the inits' types.
static SmallVector<Value> buildReduction(OpBuilder &b, Location loc,
                                         ValueRange inputs,
                                         ArrayRef<AffineMap> inputMaps,
                                         ArrayRef<bool> reduced,
                                         ValueRange inits, Combiner combine,
                                         ArrayRef<Type> accTypes = {}) {
  MLIRContext *ctx = b.getContext();
  auto inType = cast<RankedTensorType>(inputs[0].getType());
  SmallVector<int64_t> kept = keptShape(inType.getShape(), reduced);
  SmallVector<Value> outs;
  SmallVector<Type> outTypes;
  for (auto [i, init] : llvm::enumerate(inits)) {
    Type elemType = accTypes.empty() ? init.getType() : accTypes[i];
    outs.push_back(filledTensor(b, loc, kept, elemType, init));
    outTypes.push_back(outs.back().getType());
  }
  SmallVector<AffineMap> maps(inputMaps);
  maps.append(inits.size(), keptMap(reduced, ctx));
  auto generic = linalg::GenericOp::create(
      b, loc, outTypes, inputs, outs, maps, iteratorsFor(reduced),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> in, acc;
        for (Value arg : args.take_front(inputs.size()))
          in.push_back(castSignedness(nb, nloc, arg, signless(arg.getType())));
        for (Value arg : args.drop_front(inputs.size()))
          acc.push_back(castSignedness(nb, nloc, arg, signless(arg.getType())));
        SmallVector<Value> next = combine(nb, nloc, in, acc);
        for (auto [v, arg] : llvm::zip(next, args.drop_front(inputs.size())))
          v = castSignedness(nb, nloc, v, arg.getType());
        linalg::YieldOp::create(nb, nloc, next);
      });
  return SmallVector<Value>(generic.getResults());
}

/// A parallel linalg.generic over `outType`'s shape computing each element
/// from `inputs` read through `maps` (the output map is the identity).
static Value
buildMap(OpBuilder &b, Location loc, RankedTensorType outType,
         ValueRange inputs, ArrayRef<AffineMap> maps,
         function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<AffineMap> all(maps);
  all.push_back(
      AffineMap::getMultiDimIdentityMap(outType.getRank(), b.getContext()));
  Value init =
      emptyTensor(b, loc, outType.getShape(), outType.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, outType, inputs, init, all,
      SmallVector<utils::IteratorType>(outType.getRank(),
                                       utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> in;
        for (Value arg : args.drop_back())
          in.push_back(castSignedness(nb, nloc, arg, signless(arg.getType())));
        linalg::YieldOp::create(nb, nloc,
                                castSignedness(nb, nloc, body(nb, nloc, in),
                                               outType.getElementType()));
      });
  return generic.getResult(0);
}

/// The type sums accumulate in: f32 for f16 / bf16, else the type itself.
static ElemKind accumulatorKind(OpBuilder &b, ElemKind kind) {
  if (kind.isFloat() && kind.type.getIntOrFloatBitWidth() < 32)
    return {b.getF32Type()};
  return kind;
}

/// The smallest (or, with `largest`, the largest) value of `kind`: +-inf
/// for floats, the integer type's range otherwise.
static Value extremeConstant(OpBuilder &b, Location loc, ElemKind kind,
                             bool largest) {
  if (kind.isFloat())
    return constant(b, loc, kind,
                    largest ? std::numeric_limits<double>::infinity()
                            : -std::numeric_limits<double>::infinity());
  auto it = cast<IntegerType>(kind.type);
  unsigned w = it.getWidth();
  APInt v = kind.isUnsigned
                ? (largest ? APInt::getMaxValue(w) : APInt::getMinValue(w))
                : (largest ? APInt::getSignedMaxValue(w)
                           : APInt::getSignedMinValue(w));
  return arith::ConstantOp::create(b, loc, kind.type, b.getIntegerAttr(it, v));
}

//===----------------------------------------------------------------------===//
// sum, mean, max, min
//===----------------------------------------------------------------------===//

enum class ReduceKind { Sum, Mean, Max, Min, Prod, NanSum, NanProd };

template <typename OpTy, ReduceKind K>
struct ConvertReduce final : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op,
                                         "dynamic shapes are not supported");
    auto inType = op.getData().getType();
    auto outType = cast<RankedTensorType>(op.getOutput().getType());
    ElemKind kind = kindOf(inType.getElementType());
    if (inType.getElementType().isInteger(1))
      return rewriter.notifyMatchFailure(op, "bool tensors are not supported");
    Location loc = op.getLoc();
    SmallVector<bool> reduced =
        reducedAxes(op.getAxis(), op.getExclude(), inType.getRank());
    bool isSum = K == ReduceKind::Sum || K == ReduceKind::Mean ||
                 K == ReduceKind::NanSum;
    bool isProd = K == ReduceKind::Prod || K == ReduceKind::NanProd;
    bool accumulates = isSum || isProd;
    ElemKind acc = accumulates ? accumulatorKind(rewriter, kind) : kind;
    Value init = isSum    ? constant(rewriter, loc, acc, 0)
                 : isProd ? constant(rewriter, loc, acc, 1)
                          : extremeConstant(rewriter, loc, kind,
                                            /*largest=*/K == ReduceKind::Min);
    AffineMap id =
        AffineMap::getMultiDimIdentityMap(inType.getRank(), op.getContext());
    Value r = buildReduction(
        rewriter, loc, adaptor.getData(), id, reduced, init,
        [&](OpBuilder &b, Location l, ValueRange in, ValueRange accs) {
          Value x = convertElement(b, l, in[0], kind, acc), a = accs[0];
          bool f = acc.isFloat(), u = acc.isUnsigned;
          if (f && (K == ReduceKind::NanSum || K == ReduceKind::NanProd)) {
            // NaN counts as the identity (mshadow_op::nansum / nanprod)
            Value nan = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO,
                                              x, x);
            x = arith::SelectOp::create(
                b, l, nan, constant(b, l, acc, K == ReduceKind::NanSum ? 0 : 1),
                x);
          }
          Value v;
          if (isSum)
            v = f ? Value(arith::AddFOp::create(b, l, a, x))
                  : Value(arith::AddIOp::create(b, l, a, x));
          else if (isProd)
            v = f ? Value(arith::MulFOp::create(b, l, a, x))
                  : Value(arith::MulIOp::create(b, l, a, x));
          else if (K == ReduceKind::Max)
            v = f   ? Value(arith::MaximumFOp::create(b, l, a, x))
                : u ? Value(arith::MaxUIOp::create(b, l, a, x))
                    : Value(arith::MaxSIOp::create(b, l, a, x));
          else
            v = f   ? Value(arith::MinimumFOp::create(b, l, a, x))
                : u ? Value(arith::MinUIOp::create(b, l, a, x))
                    : Value(arith::MinSIOp::create(b, l, a, x));
          return SmallVector<Value>{v};
        },
        accumulates ? ArrayRef<Type>{}
                    : ArrayRef<Type>{inType.getElementType()})[0];
    // Mean divides by the count; then back to the element type.
    int64_t count = 1;
    for (auto [extent, red] : llvm::zip(inType.getShape(), reduced))
      if (red)
        count *= extent;
    auto rType = cast<RankedTensorType>(r.getType());
    if (K == ReduceKind::Mean || acc.type != kind.type) {
      auto mapped =
          RankedTensorType::get(rType.getShape(), outType.getElementType());
      AffineMap rid =
          AffineMap::getMultiDimIdentityMap(rType.getRank(), op.getContext());
      r = buildMap(rewriter, loc, mapped, r, rid,
                   [&](OpBuilder &b, Location l, ValueRange in) {
                     Value v = in[0];
                     if (K == ReduceKind::Mean && (acc.isFloat() || count)) {
                       Value n = constant(b, l, acc, count);
                       v = acc.isFloat()
                               ? Value(arith::DivFOp::create(b, l, v, n))
                           : acc.isUnsigned
                               ? Value(arith::DivUIOp::create(b, l, v, n))
                               : Value(arith::DivSIOp::create(b, l, v, n));
                     }
                     return convertElement(b, l, v, acc, kind);
                   });
    }
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, r, outType.getShape()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// argmax
//===----------------------------------------------------------------------===//

struct ConvertArgmax final : OpConversionPattern<mx::ArgmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::ArgmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op,
                                         "dynamic shapes are not supported");
    Location loc = op.getLoc();
    auto inType = op.getData().getType();
    auto outType = cast<RankedTensorType>(op.getOutput().getType());
    if (inType.getElementType().isInteger(1))
      return rewriter.notifyMatchFailure(op, "bool tensors are not supported");
    if (inType.getNumElements() == 0)
      return rewriter.notifyMatchFailure(op, "argmax of an empty tensor");
    ElemKind kind = kindOf(inType.getElementType());
    // No axis: search the flattened input.
    Value data = adaptor.getData();
    int64_t axis = 0;
    if (std::optional<int64_t> a = op.getAxis())
      axis = *a < 0 ? *a + inType.getRank() : *a;
    else
      data = reshapeTo(rewriter, loc, data, {inType.getNumElements()});
    int64_t rank = cast<RankedTensorType>(data.getType()).getRank();
    SmallVector<bool> reduced(rank, false);
    reduced[axis] = true;
    Value initVal = extremeConstant(rewriter, loc, kind, /*largest=*/false);
    Value initIdx =
        arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(0));
    // MXNet's reduce_with_axis: the first maximum, or the first NaN.
    Value idx = buildReduction(
        rewriter, loc, data,
        AffineMap::getMultiDimIdentityMap(rank, op.getContext()), reduced,
        {initVal, initIdx},
        [&](OpBuilder &b, Location l, ValueRange in, ValueRange accs) {
          Value x = in[0], cur = accs[0];
          Value take;
          if (kind.isFloat()) {
            Value curIsNum = arith::CmpFOp::create(
                b, l, arith::CmpFPredicate::ORD, cur, cur);
            Value greater =
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::UGT, x, cur);
            take = arith::AndIOp::create(b, l, curIsNum, greater);
          } else {
            take = arith::CmpIOp::create(b, l,
                                         kind.isUnsigned
                                             ? arith::CmpIPredicate::ugt
                                             : arith::CmpIPredicate::sgt,
                                         x, cur);
          }
          Value j = arith::IndexCastOp::create(
              b, l, b.getI64Type(), linalg::IndexOp::create(b, l, axis));
          Value v = arith::SelectOp::create(b, l, take, x, cur);
          return SmallVector<Value>{
              v, arith::SelectOp::create(b, l, take, j, accs[1])};
        },
        {inType.getElementType(), rewriter.getI64Type()})[1];
    // The index as a value of the input's type.
    auto idxType = cast<RankedTensorType>(idx.getType());
    auto mapped =
        RankedTensorType::get(idxType.getShape(), outType.getElementType());
    Value r = buildMap(
        rewriter, loc, mapped, idx,
        AffineMap::getMultiDimIdentityMap(idxType.getRank(), op.getContext()),
        [&](OpBuilder &b, Location l, ValueRange in) {
          return convertElement(b, l, in[0], {b.getI64Type()}, kind);
        });
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, r, outType.getShape()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// softmax, log_softmax, SoftmaxOutput
//===----------------------------------------------------------------------===//

/// What a softmax computes.
struct SoftmaxSpec {
  SmallVector<bool> reduced; // the softmax axes
  double temperature = 1.0;  // (x - max) / t
  bool log = false;          // log_softmax
  Value length;              // use_length: valid prefix per row, or null
  int64_t lengthAxis = -1;   // the axis `length` counts along
};

/// exp((x - max) / t) / sum (or its log) of `data` over `spec.reduced`, in
/// `outType`. Masked elements (j >= length) take no part and give 0.
static Value buildSoftmax(OpBuilder &b, Location loc, Value data,
                          RankedTensorType outType, const SoftmaxSpec &spec) {
  MLIRContext *ctx = b.getContext();
  auto inType = cast<RankedTensorType>(data.getType());
  int64_t rank = inType.getRank();
  ElemKind in = kindOf(inType.getElementType());
  ElemKind out = kindOf(outType.getElementType());
  // Compute in the wider of input and output, at least f32.
  ElemKind ct = accumulatorKind(b, in);
  if (out.type.getIntOrFloatBitWidth() > ct.type.getIntOrFloatBitWidth())
    ct = out;
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap kept = keptMap(spec.reduced, ctx);
  SmallVector<Value> inputs{data};
  SmallVector<AffineMap> maps{id};
  if (spec.length) {
    inputs.push_back(spec.length);
    maps.push_back(kept);
  }
  ElemKind lenKind;
  if (spec.length)
    lenKind =
        kindOf(cast<RankedTensorType>(spec.length.getType()).getElementType());
  // Whether the current element is inside its row's length.
  auto valid = [&](OpBuilder &nb, Location l, Value len) -> Value {
    if (!spec.length)
      return nullptr;
    Value n = convertElement(nb, l, len, lenKind, {nb.getI64Type()});
    Value j = arith::IndexCastOp::create(
        nb, l, nb.getI64Type(),
        linalg::IndexOp::create(nb, l, spec.lengthAxis));
    return arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, j, n);
  };
  auto maskedOr = [&](OpBuilder &nb, Location l, Value ok, Value v,
                      Value otherwise) -> Value {
    return ok ? Value(arith::SelectOp::create(nb, l, ok, v, otherwise)) : v;
  };
  // (x - max) / t in the compute type.
  auto shifted = [&](OpBuilder &nb, Location l, Value x, Value m) -> Value {
    Value d = arith::SubFOp::create(nb, l, convertElement(nb, l, x, in, ct), m);
    if (spec.temperature != 1.0)
      d = arith::DivFOp::create(nb, l, d,
                                constant(nb, l, ct, spec.temperature));
    return d;
  };

  // 1. The max over the softmax axes.
  Value max = buildReduction(
      b, loc, inputs, maps, spec.reduced,
      constant(b, loc, ct, -std::numeric_limits<double>::infinity()),
      [&](OpBuilder &nb, Location l, ValueRange ins, ValueRange acc) {
        Value x = convertElement(nb, l, ins[0], in, ct);
        Value m = arith::MaximumFOp::create(nb, l, acc[0], x);
        Value ok = valid(nb, l, spec.length ? ins[1] : Value());
        return SmallVector<Value>{maskedOr(nb, l, ok, m, acc[0])};
      })[0];
  // 2. The sum of exp((x - max) / t).
  SmallVector<Value> sumInputs(inputs);
  SmallVector<AffineMap> sumMaps(maps);
  sumInputs.push_back(max);
  sumMaps.push_back(kept);
  Value sum = buildReduction(
      b, loc, sumInputs, sumMaps, spec.reduced, constant(b, loc, ct, 0),
      [&](OpBuilder &nb, Location l, ValueRange ins, ValueRange acc) {
        Value e =
            math::ExpOp::create(nb, l, shifted(nb, l, ins[0], ins.back()));
        Value s = arith::AddFOp::create(nb, l, acc[0], e);
        Value ok = valid(nb, l, spec.length ? ins[1] : Value());
        return SmallVector<Value>{maskedOr(nb, l, ok, s, acc[0])};
      })[0];
  // 3. Normalise.
  sumInputs.push_back(sum);
  sumMaps.push_back(kept);
  return buildMap(
      b, loc, outType, sumInputs, sumMaps,
      [&](OpBuilder &nb, Location l, ValueRange ins) {
        Value d = shifted(nb, l, ins[0], ins[ins.size() - 2]);
        Value s = ins.back();
        Value r = spec.log ? Value(arith::SubFOp::create(
                                 nb, l, d, math::LogOp::create(nb, l, s)))
                           : Value(arith::DivFOp::create(
                                 nb, l, math::ExpOp::create(nb, l, d), s));
        Value ok = valid(nb, l, spec.length ? ins[1] : Value());
        if (ok)
          r = arith::SelectOp::create(nb, l, ok, r, constant(nb, l, ct, 0));
        return convertElement(nb, l, r, ct, out);
      });
}

/// The (outer, classes, inner) extents of `shape` around the axes
/// `reduced` marks, when they are one contiguous block; else failure.
static FailureOr<SmallVector<int64_t>> softmaxExtents(ArrayRef<int64_t> shape,
                                                      ArrayRef<bool> reduced) {
  int64_t first = -1, last = -1;
  for (auto [i, r] : llvm::enumerate(reduced)) {
    if (!r)
      continue;
    if (first >= 0 && last != int64_t(i) - 1)
      return failure();
    if (first < 0)
      first = i;
    last = i;
  }
  if (first < 0)
    return failure();
  return SmallVector<int64_t>{mxc::conversion::product(shape.take_front(first)),
                              mxc::conversion::product(shape.slice(first, last - first + 1)),
                              mxc::conversion::product(shape.drop_front(last + 1))};
}

/// On the CUDA target, a softmax of f32 / f64 data into the same type over
/// one contiguous block of axes, without temperature or length, is cuDNN's
/// (`mxc_kernel_softmax_<T>`, args outer, classes, inner, log: the twin of
/// runtime/src/cuda/cudnn_kernels.cc; the CPU has no such kernel, its
/// softmax is generated). Null where that does not apply.
static Value cudnnSoftmax(OpBuilder &b, Operation *op, Value data,
                          RankedTensorType outType, const SoftmaxSpec &spec) {
  auto inType = cast<RankedTensorType>(data.getType());
  Type elt = inType.getElementType();
  if (!mxc::conversion::forCudaTarget(op) ||
      !mxc::conversion::useKernelCalls(op, elt) ||
      outType.getElementType() != elt || spec.temperature != 1.0 || spec.length)
    return nullptr;
  FailureOr<SmallVector<int64_t>> ext =
      softmaxExtents(inType.getShape(), spec.reduced);
  if (failed(ext))
    return nullptr;
  SmallVector<int64_t> args(*ext);
  args.push_back(spec.log);
  return mxc::conversion::callKernel(
      b, op, "mxc_kernel_softmax_" + mxc::conversion::kernelSuffix(elt),
      {data}, args, outType);
}

/// softmax and log_softmax.
template <typename OpTy, bool IsLog>
struct ConvertSoftmax final : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op,
                                         "dynamic shapes are not supported");
    auto inType = op.getData().getType();
    int64_t rank = inType.getRank();
    // I64Attr getters return uint64_t: read the axis as signed.
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    SoftmaxSpec spec;
    spec.reduced.assign(rank, false);
    spec.reduced[axis] = true;
    spec.log = IsLog;
    if (std::optional<APFloat> t = op.getTemperature())
      spec.temperature = t->convertToDouble();
    if constexpr (!IsLog) {
      if (op.getUseLength()) {
        if (!adaptor.getLength())
          return rewriter.notifyMatchFailure(
              op, "use_length is set but there is no length input");
        spec.length = adaptor.getLength();
        spec.lengthAxis = axis;
      }
    } else if (op.getUseLength()) {
      return rewriter.notifyMatchFailure(
          op, "use_length is not supported by log_softmax (MXNet rejects it)");
    }
    auto outType = cast<RankedTensorType>(op.getOutput().getType());
    if (Value y = cudnnSoftmax(rewriter, op, adaptor.getData(), outType, spec)) {
      rewriter.replaceOp(op, y);
      return success();
    }
    rewriter.replaceOp(
        op, buildSoftmax(rewriter, op.getLoc(), adaptor.getData(), outType, spec));
    return success();
  }
};

/// SoftmaxOutput forward: softmax over axis 1 (multi_output), the last axis
/// (preserve_shape) or all axes but the first; `label` only feeds the
/// gradient.
struct ConvertSoftmaxOutput final : OpConversionPattern<mx::SoftmaxOutputOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::SoftmaxOutputOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op,
                                         "dynamic shapes are not supported");
    int64_t rank = op.getData().getType().getRank();
    SoftmaxSpec spec;
    spec.reduced.assign(rank, false);
    if (op.getMultiOutput()) {
      if (rank < 2)
        return rewriter.notifyMatchFailure(op,
                                           "multi_output needs a class axis 1");
      spec.reduced[1] = true;
    } else if (op.getPreserveShape()) {
      spec.reduced[rank - 1] = true;
    } else {
      for (int64_t i = 1; i < rank; ++i)
        spec.reduced[i] = true;
    }
    auto outType = cast<RankedTensorType>(op.getOutput().getType());
    if (Value y = cudnnSoftmax(rewriter, op, adaptor.getData(), outType, spec)) {
      rewriter.replaceOp(op, y);
      return success();
    }
    rewriter.replaceOp(
        op, buildSoftmax(rewriter, op.getLoc(), adaptor.getData(), outType, spec));
    return success();
  }
};

/// softmax_backward: on the CUDA target (f32 / f64) cuDNN's gradient
/// (`mxc_kernel_softmax_backward_<T>(y, dy)`, args as the forward's); else
/// generated: s = sum(dy * y) (log: sum(dy)) along the axis, then
/// y * (dy - s) (log: dy - exp(y) * s), computed in f32 at least.
struct ConvertSoftmaxBackward final
    : OpConversionPattern<mx::SoftmaxBackwardOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::SoftmaxBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op,
                                         "dynamic shapes are not supported");
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    int64_t rank = type.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    SmallVector<bool> reduced(rank, false);
    reduced[axis] = true;
    bool log = op.getLog();
    Location loc = op.getLoc();
    Value dy = adaptor.getOutGrad(), y = adaptor.getOutput();
    Type elt = type.getElementType();
    if (mxc::conversion::forCudaTarget(op) &&
        mxc::conversion::useKernelCalls(op, elt)) {
      SmallVector<int64_t> args = *softmaxExtents(type.getShape(), reduced);
      args.push_back(log);
      rewriter.replaceOp(
          op, mxc::conversion::callKernel(
                  rewriter, op,
                  "mxc_kernel_softmax_backward_" + mxc::conversion::kernelSuffix(elt),
                  {y, dy}, args, type));
      return success();
    }
    ElemKind k = kindOf(elt), ct = accumulatorKind(rewriter, k);
    MLIRContext *ctx = rewriter.getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    Value s = buildReduction(
        rewriter, loc, ValueRange{dy, y}, {id, id}, reduced,
        constant(rewriter, loc, ct, 0),
        [&](OpBuilder &nb, Location l, ValueRange ins, ValueRange acc) {
          Value d = convertElement(nb, l, ins[0], k, ct);
          if (!log)
            d = arith::MulFOp::create(nb, l, d, convertElement(nb, l, ins[1], k, ct));
          return SmallVector<Value>{arith::AddFOp::create(nb, l, acc[0], d)};
        })[0];
    Value dx = buildMap(
        rewriter, loc, type, ValueRange{dy, y, s}, {id, id, keptMap(reduced, ctx)},
        [&](OpBuilder &nb, Location l, ValueRange ins) {
          Value d = convertElement(nb, l, ins[0], k, ct);
          Value yy = convertElement(nb, l, ins[1], k, ct);
          Value r = log ? Value(arith::SubFOp::create(
                              nb, l, d,
                              arith::MulFOp::create(
                                  nb, l, math::ExpOp::create(nb, l, yy), ins[2])))
                        : Value(arith::MulFOp::create(
                              nb, l, yy, arith::SubFOp::create(nb, l, d, ins[2])));
          return convertElement(nb, l, r, ct, k);
        });
    rewriter.replaceOp(op, dx);
    return success();
  }
};

} // namespace

void mxc::conversion::populateReductionPatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  target.addLegalOp<UnrealizedConversionCastOp>(); // ui8 in linalg bodies
  target.addIllegalOp<mx::ProdOp, mx::NansumOp, mx::NanprodOp>();
  patterns.add<ConvertReduce<mx::ProdOp, ReduceKind::Prod>,
               ConvertReduce<mx::NansumOp, ReduceKind::NanSum>,
               ConvertReduce<mx::NanprodOp, ReduceKind::NanProd>>(
      typeConverter, patterns.getContext());
  target.addIllegalOp<mx::SumOp, mx::MeanOp, mx::MaxOp, mx::MinOp, mx::ArgmaxOp,
                      mx::SoftmaxOp, mx::LogSoftmaxOp, mx::SoftmaxOutputOp,
                      mx::SoftmaxBackwardOp>();
  patterns.add<ConvertReduce<mx::SumOp, ReduceKind::Sum>,
               ConvertReduce<mx::MeanOp, ReduceKind::Mean>,
               ConvertReduce<mx::MaxOp, ReduceKind::Max>,
               ConvertReduce<mx::MinOp, ReduceKind::Min>, ConvertArgmax,
               ConvertSoftmax<mx::SoftmaxOp, false>,
               ConvertSoftmax<mx::LogSoftmaxOp, true>, ConvertSoftmaxOutput,
               ConvertSoftmaxBackward>(
      typeConverter, patterns.getContext());
}
