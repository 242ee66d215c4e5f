//===- MXShapeInferenceTensor.cpp - result types of mx tensor ops --------===//
//
// MXNet 1.9.1's shape and type functions for tensor manipulation and linear
// algebra: argmax, dot, batch_dot, Reshape, transpose, expand_dims,
// slice_axis, where, one_hot (cited per function). The family rules
// (elementwise, broadcast, scalar, reductions, softmax) are in MXOps.cpp.
//
//===----------------------------------------------------------------------===//
#include "mxc/Dialect/MX/IR/MXOps.h"

#include "MXInference.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mxc::mx;
using namespace mxc::mx::detail;

//===----------------------------------------------------------------------===//
// argmax (src/operator/tensor/broadcast_reduce_op.h ReduceAxisShapeImpl)
//===----------------------------------------------------------------------===//

LogicalResult ArgmaxOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  int64_t rank = data->getRank();
  if (rank == 0)
    return inferError(loc, name, "expects data of rank >= 1");
  // The result has the input's element type, as in MXNet (ElemwiseType).
  Type elt = data->getElementType();
  bool keepdims = adaptor.getKeepdims();
  std::optional<uint64_t> axisAttr = adaptor.getAxis();
  if (axisAttr) {
    auto axis = normalizeAxis(loc, name, static_cast<int64_t>(*axisAttr), rank);
    if (failed(axis))
      return failure();
    if (rank > 1) {
      Shape out(data->getShape().begin(), data->getShape().end());
      if (keepdims)
        out[*axis] = 1;
      else
        out.erase(out.begin() + *axis);
      results.push_back(RankedTensorType::get(out, elt));
      return success();
    }
  }
  Shape out = keepdims ? Shape(rank, 1) : Shape(1, 1);
  results.push_back(RankedTensorType::get(out, elt));
  return success();
}

LogicalResult ArgmaxChannelOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  // argmax with axis = 1, keepdims = false (the parser MXNet registers).
  auto data = getTensorType(loc, getOperationName(), adaptor.getData(), "data");
  if (failed(data))
    return failure();
  ArgmaxOp::Properties props;
  props.axis = IntegerAttr::get(IntegerType::get(context, 64), 1);
  props.keepdims = BoolAttr::get(context, false);
  SmallVector<Value, 1> operands{adaptor.getData()};
  ArgmaxOp::Adaptor argmax(ValueRange(operands), nullptr, props);
  return ArgmaxOp::inferReturnTypes(context, loc, argmax, results);
}

//===----------------------------------------------------------------------===//
// moments (src/operator/nn/moments-inl.h MomentsShape)
//===----------------------------------------------------------------------===//

LogicalResult MomentsOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  // The mean's shape (a mean over the axes); var has the same.
  if (failed(inferReduceAxes(getOperationName(), loc, adaptor.getData(),
                             adaptor.getAxes(), adaptor.getKeepdims(),
                             /*exclude=*/false, /*requireNonEmpty=*/false,
                             results)))
    return failure();
  results.push_back(results.front());
  return success();
}

//===----------------------------------------------------------------------===//
// dot (src/operator/tensor/dot-inl.h DotShape)
//===----------------------------------------------------------------------===//

LogicalResult DotOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto lhs = getTensorType(loc, name, adaptor.getLhs(), "lhs");
  auto rhs = getTensorType(loc, name, adaptor.getRhs(), "rhs");
  if (failed(lhs) || failed(rhs) ||
      failed(checkElementType(loc, name, "rhs", *rhs, lhs->getElementType())))
    return failure();
  ArrayRef<int64_t> l = lhs->getShape(), r = rhs->getShape();
  if (l.empty() || r.empty())
    return inferError(loc, name, "scalar tensors are not supported");
  bool ta = adaptor.getTransposeA(), tb = adaptor.getTransposeB();
  Type elt = lhs->getElementType();
  if (l.size() == 1 && r.size() == 1) {
    if (ta || tb)
      return inferError(loc, name, "cannot transpose vectors");
    if (!dimsCompatible(l[0], r[0]))
      return inferError(loc, name, "shape mismatch: ", formatShape(l), " X ",
                        formatShape(r));
    results.push_back(RankedTensorType::get({1}, elt));
    return success();
  }
  // lhs splits into (kept, contracted): without transpose_a the contracted
  // part is the last axis, with it the first. rhs: without transpose_b the
  // first axis is contracted, with it the last.
  ArrayRef<int64_t> lKept, lContract, rKept, rContract;
  if (ta) {
    lContract = l.take_front();
    lKept = l.drop_front();
  } else {
    lKept = l.drop_back();
    lContract = l.take_back();
  }
  if (tb) {
    rKept = r.drop_back();
    rContract = r.take_back();
  } else {
    rContract = r.take_front();
    rKept = r.drop_front();
  }
  int64_t lk = productOf(lContract), rk = productOf(rContract);
  if (!dimsCompatible(lk, rk))
    return inferError(loc, name, "shape mismatch: ", formatShape(l), " X ",
                      formatShape(r), " (transpose_a=", ta,
                      ", transpose_b=", tb, ")");
  Shape out;
  if (l.size() > 1)
    out.append(lKept.begin(), lKept.end());
  if (r.size() > 1)
    out.append(rKept.begin(), rKept.end());
  results.push_back(RankedTensorType::get(out, elt));
  return success();
}

//===----------------------------------------------------------------------===//
// batch_dot (src/operator/tensor/dot-inl.h BatchDotShape)
//===----------------------------------------------------------------------===//

LogicalResult BatchDotOp::inferReturnTypes(MLIRContext *context,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto lhs = getTensorType(loc, name, adaptor.getLhs(), "lhs");
  auto rhs = getTensorType(loc, name, adaptor.getRhs(), "rhs");
  if (failed(lhs) || failed(rhs) ||
      failed(checkElementType(loc, name, "rhs", *rhs, lhs->getElementType())))
    return failure();
  ArrayRef<int64_t> l = lhs->getShape(), r = rhs->getShape();
  int64_t n = l.size();
  if (n < 3 || r.size() != l.size())
    return inferError(loc, name,
                      "expects N-D inputs of equal rank N >= 3, got ",
                      formatShape(l), " and ", formatShape(r));
  bool ta = adaptor.getTransposeA(), tb = adaptor.getTransposeB();
  Shape out;
  for (int64_t i = 0; i < n - 2; ++i) {
    if (!dimsCompatible(l[i], r[i]))
      return inferError(loc, name, "batch dimensions must be equal, got ",
                        formatShape(l), " and ", formatShape(r));
    out.push_back(mergeDims(l[i], r[i]));
  }
  int64_t m = ta ? l[n - 1] : l[n - 2];
  int64_t lk = ta ? l[n - 2] : l[n - 1];
  int64_t rk = tb ? r[n - 1] : r[n - 2];
  int64_t cols = tb ? r[n - 2] : r[n - 1];
  if (!dimsCompatible(lk, rk))
    return inferError(loc, name, "shape mismatch: ", formatShape(l), " X ",
                      formatShape(r), " (transpose_a=", ta,
                      ", transpose_b=", tb, ")");
  out.push_back(m);
  out.push_back(cols);
  results.push_back(RankedTensorType::get(out, lhs->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Reshape (src/operator/tensor/matrix_op-inl.h InferReshapeShape,
// ReshapeShape)
//===----------------------------------------------------------------------===//

/// MXNet's InferReshapeShape: applies the special codes 0, -1, -2, -3, -4 of
/// `spec` to `in` (both reversed first when `reverse`).
static FailureOr<Shape> applyReshapeCodes(std::optional<Location> loc,
                                          StringRef name, ArrayRef<int64_t> in,
                                          ArrayRef<int64_t> spec,
                                          bool reverse) {
  Shape src(in.begin(), in.end()), codes(spec.begin(), spec.end());
  if (reverse) {
    std::reverse(src.begin(), src.end());
    std::reverse(codes.begin(), codes.end());
  }
  Shape out;
  size_t s = 0;
  int64_t inferIdx = -1;
  for (size_t i = 0; i < codes.size(); ++i) {
    int64_t code = codes[i];
    if (code == 0) {
      if (s >= src.size())
        return inferError(loc, name, "shape ", formatShape(spec),
                          ": code 0 has no input dimension to copy");
      out.push_back(src[s++]);
    } else if (code == -1) {
      if (inferIdx >= 0)
        return inferError(loc, name, "shape ", formatShape(spec),
                          ": only one dimension can be inferred (-1)");
      inferIdx = out.size();
      out.push_back(1);
      ++s;
    } else if (code == -2) {
      while (s < src.size())
        out.push_back(src[s++]);
    } else if (code == -3) {
      if (s + 1 >= src.size())
        return inferError(loc, name, "shape ", formatShape(spec),
                          ": code -3 needs two input dimensions");
      out.push_back(mulDims(src[s], src[s + 1]));
      s += 2;
    } else if (code == -4) {
      if (i + 2 >= codes.size())
        return inferError(loc, name, "shape ", formatShape(spec),
                          ": code -4 needs two following values");
      if (s >= src.size())
        return inferError(loc, name, "shape ", formatShape(spec),
                          ": code -4 has no input dimension to split");
      int64_t d0 = src[s++];
      int64_t d1 = codes[++i], d2 = codes[++i];
      if (d1 == -1 && d2 == -1)
        return inferError(loc, name, "shape ", formatShape(spec),
                          ": split dimensions cannot both be -1");
      if (d1 < -1 || d2 < -1 || d1 == 0 || d2 == 0)
        return inferError(loc, name, "shape ", formatShape(spec),
                          ": invalid split dimensions ", d1, ", ", d2);
      if (!isDynamic(d0)) {
        if (d1 == -1)
          d1 = d0 / d2;
        if (d2 == -1)
          d2 = d0 / d1;
        if (d1 * d2 != d0)
          return inferError(loc, name, "split dimensions ", d1, ", ", d2,
                            " do not divide input dimension ", d0);
      } else {
        d1 = d1 == -1 ? kDynamic : d1;
        d2 = d2 == -1 ? kDynamic : d2;
      }
      out.push_back(d1);
      out.push_back(d2);
    } else if (code > 0) {
      out.push_back(code);
      ++s;
    } else {
      return inferError(loc, name, "shape ", formatShape(spec),
                        ": invalid code ", code);
    }
  }
  if (inferIdx >= 0) {
    int64_t total = productOf(src);
    int64_t known = productOf(out);
    if (isDynamic(total) || isDynamic(known)) {
      out[inferIdx] = kDynamic;
    } else {
      if (known == 0 || total % known != 0)
        return inferError(loc, name, "cannot infer the -1 dimension of shape ",
                          formatShape(spec), " for input ", formatShape(in));
      out[inferIdx] = total / known;
    }
  }
  if (reverse)
    std::reverse(out.begin(), out.end());
  return out;
}

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  ArrayRef<int64_t> in = data->getShape();
  Shape out;
  if (!adaptor.getShape().empty()) {
    auto codes = applyReshapeCodes(loc, name, in, adaptor.getShape(),
                                   adaptor.getReverse());
    if (failed(codes))
      return failure();
    out = *codes;
  } else if (!adaptor.getTargetShape().empty()) {
    // Deprecated path: 0 marks the one extent to infer; keep_highest copies
    // the first input extent.
    ArrayRef<int64_t> target = adaptor.getTargetShape();
    out.assign(target.begin(), target.end());
    size_t start = 0;
    if (adaptor.getKeepHighest()) {
      if (in.empty())
        return inferError(loc, name, "keep_highest needs data of rank >= 1");
      out[0] = in[0];
      start = 1;
    }
    int64_t inferIdx = -1;
    for (size_t i = start; i < out.size(); ++i) {
      if (out[i] < 0)
        return inferError(loc, name, "target_shape ", formatShape(target),
                          " has a negative extent");
      if (out[i] == 0) {
        if (inferIdx >= 0)
          return inferError(loc, name, "target_shape ", formatShape(target),
                            " may infer (0) only one extent");
        inferIdx = i;
      }
    }
    if (inferIdx >= 0) {
      out[inferIdx] = 1;
      int64_t total = productOf(in), known = productOf(out);
      if (isDynamic(total) || isDynamic(known))
        out[inferIdx] = kDynamic;
      else if (known == 0 || total % known != 0)
        return inferError(loc, name, "cannot infer target_shape ",
                          formatShape(target), " for input ", formatShape(in));
      else
        out[inferIdx] = total / known;
    }
  } else {
    return inferError(loc, name, "requires a non-empty shape");
  }
  int64_t inSize = productOf(in), outSize = productOf(out);
  if (!isDynamic(inSize) && !isDynamic(outSize) && inSize != outSize)
    return inferError(loc, name, "cannot reshape ", formatShape(in), " to ",
                      formatShape(out), ": element counts differ");
  results.push_back(RankedTensorType::get(out, data->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// transpose (src/operator/tensor/matrix_op-inl.h TransposeShape)
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  ArrayRef<int64_t> in = data->getShape();
  int64_t rank = in.size();
  if (rank > 6)
    return inferError(loc, name, "supports at most 6 dimensions, got ", rank);
  ArrayRef<int64_t> axes = adaptor.getAxes();
  Shape out;
  if (axes.empty()) {
    out.assign(in.rbegin(), in.rend());
  } else {
    Shape sorted(axes.begin(), axes.end());
    llvm::sort(sorted);
    bool isPermutation = static_cast<int64_t>(axes.size()) == rank;
    for (int64_t i = 0; isPermutation && i < rank; ++i)
      isPermutation = sorted[i] == i;
    if (!isPermutation)
      return inferError(loc, name, "axes ", formatShape(axes),
                        " must be a permutation of 0..", rank - 1);
    for (int64_t a : axes)
      out.push_back(in[a]);
  }
  results.push_back(RankedTensorType::get(out, data->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// expand_dims (src/operator/tensor/matrix_op-inl.h ExpandDimShape)
//===----------------------------------------------------------------------===//

LogicalResult ExpandDimsOp::inferReturnTypes(MLIRContext *context,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  int64_t rank = data->getRank();
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (axis < -rank - 1 || axis > rank)
    return inferError(loc, name, "axis ", axis, " must be in [", -rank - 1,
                      ", ", rank, "]");
  if (axis < 0)
    axis += rank + 1;
  Shape out(data->getShape().begin(), data->getShape().end());
  out.insert(out.begin() + axis, 1);
  results.push_back(RankedTensorType::get(out, data->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// squeeze (src/operator/tensor/matrix_op-inl.h SqueezeShape)
//===----------------------------------------------------------------------===//

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  ArrayRef<int64_t> in = data->getShape();
  int64_t rank = in.size();
  SmallVector<bool> drop(rank, false);
  if (std::optional<ArrayRef<int64_t>> axes = adaptor.getAxis()) {
    for (int64_t a : *axes) {
      int64_t n = a < 0 ? a + rank : a;
      if (n < 0 || n >= rank)
        return inferError(loc, name, "axis ", a,
                          " is out of bounds for an array of dimension ", rank);
      if (in[n] != 1)
        return inferError(loc, name,
                          "cannot select an axis to squeeze out which has "
                          "size=",
                          in[n], " not equal to one");
      if (drop[n])
        return inferError(loc, name, "duplicate value in axis");
      drop[n] = true;
    }
  } else {
    for (int64_t i = 0; i < rank; ++i)
      drop[i] = in[i] == 1;
  }
  Shape out;
  for (int64_t i = 0; i < rank; ++i)
    if (!drop[i])
      out.push_back(in[i]);
  if (out.empty())
    out.push_back(1); // (1, 1, 1) -> (1,), as MXNet
  results.push_back(RankedTensorType::get(out, data->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// broadcast_to (src/operator/tensor/broadcast_reduce_op.h BroadcastToShape)
//===----------------------------------------------------------------------===//

LogicalResult BroadcastToOp::inferReturnTypes(MLIRContext *context,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  ArrayRef<int64_t> in = data->getShape();
  ArrayRef<int64_t> target = adaptor.getShape();
  if (target.size() != in.size())
    return inferError(loc, name, "operand of shape ", formatShape(in),
                      " cannot be broadcasted to ", formatShape(target));
  Shape out(target.begin(), target.end());
  for (size_t i = 0; i < in.size(); ++i) {
    if (out[i] == 0) {
      out[i] = in[i];
    } else if (out[i] < 0 || (in[i] != out[i] && in[i] != 1 &&
                              !isDynamic(in[i]))) {
      return inferError(loc, name, "array cannot be broadcasted from ",
                        formatShape(in), " to ", formatShape(target));
    }
  }
  results.push_back(RankedTensorType::get(out, data->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// broadcast_axis (broadcast_reduce_op.h BroadcastAxesShape), reverse
// (matrix_op-inl.h), shape_array / size_array (elemwise_unary_op_basic.cc)
//===----------------------------------------------------------------------===//

LogicalResult BroadcastLikeOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto lhs = getTensorType(loc, name, adaptor.getLhs(), "lhs");
  auto rhs = getTensorType(loc, name, adaptor.getRhs(), "rhs");
  if (failed(lhs) || failed(rhs))
    return failure();
  ArrayRef<int64_t> l = lhs->getShape(), r = rhs->getShape();
  auto cannot = [&]() {
    return inferError(loc, name, "Array cannot be broadcasted from ",
                      formatShape(l), " to ", formatShape(r));
  };
  std::optional<ArrayRef<int64_t>> la = adaptor.getLhsAxes(),
                                   ra = adaptor.getRhsAxes();
  Shape out(l.begin(), l.end());
  if (!la && !ra) {
    if (l.size() != r.size())
      return inferError(loc, name, "Operand of shape ", formatShape(l),
                        " cannot be broadcasted to ", formatShape(r));
    for (size_t i = 0; i < l.size(); ++i) {
      if (l[i] != r[i] && l[i] != 1 && !isDynamic(l[i]) && !isDynamic(r[i]))
        return cannot();
      out[i] = r[i];
    }
  } else {
    if (!la || !ra || la->size() != ra->size() || la->empty())
      return inferError(loc, name,
                        "lhs_axes and rhs_axes must be given together, "
                        "non-empty and of one length");
    for (size_t i = 0; i < la->size(); ++i) {
      auto a = normalizeAxis(loc, name, (*la)[i], l.size(), "lhs_axes");
      auto b = normalizeAxis(loc, name, (*ra)[i], r.size(), "rhs_axes");
      if (failed(a) || failed(b))
        return failure();
      if (l[*a] != r[*b] && l[*a] != 1 && !isDynamic(l[*a]))
        return cannot();
      out[*a] = r[*b];
    }
  }
  results.push_back(RankedTensorType::get(out, lhs->getElementType()));
  return success();
}

LogicalResult BroadcastAxisOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  ArrayRef<int64_t> axes = adaptor.getAxis(), sizes = adaptor.getSize();
  if (axes.size() != sizes.size())
    return inferError(loc, name, "axis ", formatShape(axes), " and size ",
                      formatShape(sizes), " differ in length");
  Shape out(data->getShape().begin(), data->getShape().end());
  for (size_t i = 0; i < axes.size(); ++i) {
    auto axis = normalizeAxis(loc, name, axes[i], data->getRank());
    if (failed(axis))
      return failure();
    if (out[*axis] != 1 && !isDynamic(out[*axis]))
      return inferError(loc, name, "Broadcasting axis must have size 1 (axis ",
                        *axis, " of shape ", formatShape(data->getShape()),
                        ")");
    if (sizes[i] < 1)
      return inferError(loc, name, "size must be >= 1, got ", sizes[i]);
    out[*axis] = sizes[i];
  }
  results.push_back(RankedTensorType::get(out, data->getElementType()));
  return success();
}

LogicalResult ReverseOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  for (int64_t a : adaptor.getAxis())
    if (failed(normalizeAxis(loc, name, a, data->getRank())))
      return failure();
  results.push_back(*data);
  return success();
}

/// shape_array (a (rank,) result) and size_array (a (1,) one): int64.
static LogicalResult inferShapeConstant(StringRef name,
                                        std::optional<Location> loc,
                                        Value data, bool wholeShape,
                                        SmallVectorImpl<Type> &results) {
  auto type = getTensorType(loc, name, data, "data");
  if (failed(type))
    return failure();
  results.push_back(RankedTensorType::get(
      {wholeShape ? type->getRank() : 1}, IntegerType::get(data.getContext(), 64)));
  return success();
}

LogicalResult ShapeArrayOp::inferReturnTypes(MLIRContext *context,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &results) {
  return inferShapeConstant(getOperationName(), loc, adaptor.getData(),
                            /*wholeShape=*/true, results);
}

LogicalResult SizeArrayOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  return inferShapeConstant(getOperationName(), loc, adaptor.getData(),
                            /*wholeShape=*/false, results);
}

//===----------------------------------------------------------------------===//
// slice_like, depth_to_space, space_to_depth (matrix_op-inl.h
// SliceLikeShape, DepthToSpaceOpShape, SpaceToDepthOpShape)
//===----------------------------------------------------------------------===//

LogicalResult SliceLikeOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  auto like = getTensorType(loc, name, adaptor.getShapeLike(), "shape_like");
  if (failed(data) || failed(like))
    return failure();
  ArrayRef<int64_t> in = data->getShape(), from = like->getShape();
  int64_t rank = data->getRank();
  Shape out(in.begin(), in.end());
  SmallVector<int64_t> axes(adaptor.getAxes());
  if (axes.empty()) {
    if (in.size() != from.size())
      return inferError(loc, name,
                        "By default slice_axis performs slice on all axes, "
                        "but ndim mismatch for inputs: ",
                        rank, " vs. ", int64_t(from.size()));
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  for (int64_t a : axes) {
    int64_t axis = a < 0 ? a + rank : a;
    if (axis < 0)
      return inferError(loc, name, "Slice axis: ", a, " too small");
    if (axis >= rank)
      return inferError(loc, name, "Slice axis: ", axis,
                        " exceeds first input: ", rank);
    if (axis >= int64_t(from.size()))
      return inferError(loc, name, "Slice axis: ", axis,
                        " exceeds second input: ", int64_t(from.size()));
    if (!isDynamic(in[axis]) && !isDynamic(from[axis]) && from[axis] > in[axis])
      return inferError(loc, name, "Slice axis ", axis, " with size ",
                        from[axis], " exceeds limit of input with size ",
                        in[axis]);
    out[axis] = from[axis];
  }
  results.push_back(RankedTensorType::get(out, data->getElementType()));
  return success();
}

/// depth_to_space (toDepth = false) and space_to_depth.
static LogicalResult inferDepthSpace(StringRef name,
                                     std::optional<Location> loc, Value data,
                                     int64_t block, bool toDepth,
                                     SmallVectorImpl<Type> &results) {
  auto type = getTensorType(loc, name, data, "data");
  if (failed(type))
    return failure();
  if (type->getRank() != 4)
    return inferError(loc, name, "Operation ",
                      toDepth ? "Space To Depth" : "Depth To Space",
                      " requires exactly 4D tensor");
  if (block <= 0)
    return inferError(loc, name, "block_size must be a positive integer value");
  ArrayRef<int64_t> in = type->getShape();
  for (int64_t i = 0; i < 4; ++i)
    if (in[i] == 0)
      return inferError(loc, name, "Size of dimension:", i, " cannot be 0");
  Shape out(in.begin(), in.end());
  if (toDepth) {
    for (int64_t i = 2; i < 4; ++i)
      if (!isDynamic(in[i]) && in[i] % block != 0)
        return inferError(loc, name,
                          "Cannot perform Space To Depth operation on the "
                          "specified tensor. Dimension:",
                          i, " should be a multiple of 'block' (", block, ")");
    out[1] = isDynamic(in[1]) ? in[1] : in[1] * block * block;
    for (int64_t i = 2; i < 4; ++i)
      out[i] = isDynamic(in[i]) ? in[i] : in[i] / block;
  } else {
    if (!isDynamic(in[1]) && in[1] % (block * block) != 0)
      return inferError(loc, name,
                        "Cannot perform Depth To Space operation on the "
                        "specified tensor. Dimension:1(depth dimension) should "
                        "be a multiple of 'block^2' (",
                        block * block, ")");
    out[1] = isDynamic(in[1]) ? in[1] : in[1] / (block * block);
    for (int64_t i = 2; i < 4; ++i)
      out[i] = isDynamic(in[i]) ? in[i] : in[i] * block;
  }
  results.push_back(RankedTensorType::get(out, type->getElementType()));
  return success();
}

LogicalResult DepthToSpaceOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  return inferDepthSpace(getOperationName(), loc, adaptor.getData(),
                         static_cast<int64_t>(adaptor.getBlockSize()),
                         /*toDepth=*/false, results);
}

LogicalResult SpaceToDepthOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  return inferDepthSpace(getOperationName(), loc, adaptor.getData(),
                         static_cast<int64_t>(adaptor.getBlockSize()),
                         /*toDepth=*/true, results);
}

//===----------------------------------------------------------------------===//
// Pad (src/operator/pad-inl.h PadProp::InferShape, its messages)
//===----------------------------------------------------------------------===//

LogicalResult PadOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  int64_t rank = data->getRank();
  ArrayRef<int64_t> pad = adaptor.getPadWidth();
  if (rank != 4 && rank != 5)
    return inferError(loc, name,
                      "Current implementation only supports 4-D or 5-D input.");
  if (int64_t(pad.size()) != 2 * rank)
    return inferError(loc, name, "Input shape vs padding spec mismatch: ",
                      int64_t(pad.size()), " pad_width entries for rank ",
                      rank);
  if (pad[0] || pad[1] || pad[2] || pad[3])
    return inferError(loc, name,
                      "Current implementation expects padding on the first "
                      "two axes to be zero.");
  ArrayRef<int64_t> in = data->getShape();
  Shape out(in.begin(), in.end());
  for (int64_t d = 0; d < rank; ++d) {
    if (pad[2 * d] < 0 || pad[2 * d + 1] < 0)
      return inferError(loc, name, "pad_width must not be negative");
    if (adaptor.getMode() == "reflect" && !isDynamic(in[d]) &&
        (pad[2 * d] >= in[d] || pad[2 * d + 1] >= in[d]))
      return inferError(loc, name,
                        "Current implementation of reflection padding only "
                        "supports padding sizes smaller than the input size.");
    if (!isDynamic(in[d]))
      out[d] = in[d] + pad[2 * d] + pad[2 * d + 1];
  }
  results.push_back(RankedTensorType::get(out, data->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// pick (src/operator/tensor/broadcast_reduce_op.h PickOpShape)
//===----------------------------------------------------------------------===//

LogicalResult PickOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  auto index = getTensorType(loc, name, adaptor.getIndex(), "index");
  if (failed(index))
    return failure();
  int64_t rank = data->getRank();
  if (rank == 0)
    return inferError(loc, name, "expects data of rank >= 1");
  auto axis =
      normalizeAxis(loc, name, static_cast<int64_t>(adaptor.getAxis()), rank);
  if (failed(axis))
    return failure();
  // ReduceAxisShapeImpl: a 1-D input gives (1,).
  Shape keep(data->getShape().begin(), data->getShape().end());
  keep[*axis] = 1;
  Shape drop(data->getShape().begin(), data->getShape().end());
  drop.erase(drop.begin() + *axis);
  if (drop.empty())
    drop.push_back(1);
  ArrayRef<int64_t> idx = index->getShape();
  auto matches = [&](ArrayRef<int64_t> want) {
    if (want.size() != idx.size())
      return false;
    for (size_t i = 0; i < want.size(); ++i)
      if (!isDynamic(want[i]) && !isDynamic(idx[i]) && want[i] != idx[i])
        return false;
    return true;
  };
  if (!matches(drop) && !matches(keep))
    return inferError(loc, name, "index of shape ", formatShape(idx),
                      " does not match data of shape ",
                      formatShape(data->getShape()), " picked along axis ",
                      *axis, " (want ", formatShape(drop), " or ",
                      formatShape(keep), ")");
  results.push_back(RankedTensorType::get(adaptor.getKeepdims() ? keep : drop,
                                          data->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// repeat, tile (src/operator/tensor/matrix_op-inl.h RepeatOpShape,
// TileOpShape)
//===----------------------------------------------------------------------===//

LogicalResult RepeatOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  int64_t repeats = static_cast<int64_t>(adaptor.getRepeats());
  if (repeats < 1)
    return inferError(loc, name, "repeats must be >= 1 (mxc has no zero-size "
                      "arrays), got ", repeats);
  Shape out;
  if (auto axisAttr = adaptor.getAxis()) {
    auto axis = normalizeAxis(loc, name, static_cast<int64_t>(*axisAttr),
                              data->getRank());
    if (failed(axis))
      return failure();
    out.assign(data->getShape().begin(), data->getShape().end());
    out[*axis] = mulDims(out[*axis], repeats);
  } else {
    int64_t n = 1;
    for (int64_t d : data->getShape())
      n = mulDims(n, d);
    out = {mulDims(n, repeats)};
  }
  results.push_back(RankedTensorType::get(out, data->getElementType()));
  return success();
}

LogicalResult TileOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  ArrayRef<int64_t> reps = adaptor.getReps();
  for (int64_t r : reps)
    if (r < 1)
      return inferError(loc, name, "reps ", formatShape(reps),
                        " must be >= 1 (mxc has no zero-size arrays)");
  ArrayRef<int64_t> in = data->getShape();
  int64_t n = std::max<int64_t>(in.size(), reps.size());
  Shape out(n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t ii = i - (n - static_cast<int64_t>(in.size()));
    int64_t ri = i - (n - static_cast<int64_t>(reps.size()));
    out[i] = mulDims(ii >= 0 ? in[ii] : 1, ri >= 0 ? reps[ri] : 1);
  }
  results.push_back(RankedTensorType::get(out, data->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// batch_take (src/operator/tensor/indexing_op.h BatchTakeOpShape)
//===----------------------------------------------------------------------===//

LogicalResult BatchTakeOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto a = getTensorType(loc, name, adaptor.getA(), "a");
  auto indices = getTensorType(loc, name, adaptor.getIndices(), "indices");
  if (failed(a) || failed(indices))
    return failure();
  if (a->getRank() != 2 || indices->getRank() != 1 ||
      !dimsCompatible(a->getDimSize(0), indices->getDimSize(0)))
    return inferError(loc, name, "expects a of shape (N, M) and indices of "
                      "shape (N,), got ", formatShape(a->getShape()), " and ",
                      formatShape(indices->getShape()));
  results.push_back(
      RankedTensorType::get({a->getDimSize(0)}, a->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// take, Embedding (src/operator/tensor/indexing_op.h TakeOpShape,
// EmbeddingOpShape)
//===----------------------------------------------------------------------===//

LogicalResult TakeOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto a = getTensorType(loc, name, adaptor.getA(), "a");
  if (failed(a))
    return failure();
  auto indices = getTensorType(loc, name, adaptor.getIndices(), "indices");
  if (failed(indices))
    return failure();
  int64_t rank = a->getRank();
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (rank == 0 || axis < -rank || axis >= rank)
    return inferError(loc, name,
                      "Axis should be in the range of [-r, r-1] where r is "
                      "the rank of input tensor (axis ",
                      axis, ", rank ", rank, ")");
  if (axis < 0)
    axis += rank;
  Shape out(a->getShape().begin(), a->getShape().begin() + axis);
  out.append(indices->getShape().begin(), indices->getShape().end());
  out.append(a->getShape().begin() + axis + 1, a->getShape().end());
  results.push_back(RankedTensorType::get(out, a->getElementType()));
  return success();
}

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  auto weight = getTensorType(loc, name, adaptor.getWeight(), "weight");
  if (failed(weight))
    return failure();
  int64_t inputDim = static_cast<int64_t>(adaptor.getInputDim());
  int64_t outputDim = static_cast<int64_t>(adaptor.getOutputDim());
  if (inputDim < 1 || outputDim < 1)
    return inferError(loc, name, "input_dim and output_dim must be >= 1, got ",
                      inputDim, " and ", outputDim);
  Shape want{inputDim, outputDim};
  ArrayRef<int64_t> w = weight->getShape();
  if (w.size() != 2 || (!isDynamic(w[0]) && w[0] != inputDim) ||
      (!isDynamic(w[1]) && w[1] != outputDim))
    return inferError(loc, name, "weight has shape ", formatShape(w),
                      ", but input_dim and output_dim give ",
                      formatShape(want));
  Shape out(data->getShape().begin(), data->getShape().end());
  out.push_back(outputDim);
  results.push_back(RankedTensorType::get(out, weight->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// reshape_like (src/operator/tensor/elemwise_unary_op_basic.cc
// ReshapeLikeRangeCanonicalize, ReshapeLikeShapeCompute)
//===----------------------------------------------------------------------===//

namespace {
/// [begin, end) of a rank-`ndims` shape from the optional attributes, as
/// MXNet's ReshapeLikeRangeCanonicalize (its messages).
LogicalResult reshapeLikeRange(std::optional<Location> loc, StringRef name,
                               int64_t ndims, const char *side,
                               std::optional<int64_t> begin,
                               std::optional<int64_t> end, int64_t &cbegin,
                               int64_t &cend) {
  cbegin = begin ? *begin : 0;
  if (cbegin < 0)
    cbegin += ndims;
  cend = end ? *end : ndims;
  if (cend < 0)
    cend += ndims;
  auto str = [](std::optional<int64_t> v) {
    return v ? std::to_string(*v) : std::string("None");
  };
  if (cend > ndims)
    return inferError(loc, name, "Invalid end for ", side, "_end=", str(end),
                      " as dimension number is ", ndims);
  if (cbegin >= cend)
    return inferError(loc, name, "Invalid begin, end, get ", side,
                      "_begin=", str(begin), ", ", side, "_end=", str(end));
  if (cend < 0)
    return inferError(loc, name, "Invalid end for ", side, "_end=", str(end));
  if (cbegin < 0)
    return inferError(loc, name, "Invalid begin for ", side,
                      "_begin=", str(begin));
  return success();
}

std::optional<int64_t> optionalInt(std::optional<uint64_t> v) {
  if (!v)
    return std::nullopt;
  return static_cast<int64_t>(*v);
}
} // namespace

LogicalResult ReshapeLikeOp::inferReturnTypes(MLIRContext *context,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto lhs = getTensorType(loc, name, adaptor.getLhs(), "lhs");
  if (failed(lhs))
    return failure();
  auto rhs = getTensorType(loc, name, adaptor.getRhs(), "rhs");
  if (failed(rhs))
    return failure();
  ArrayRef<int64_t> l = lhs->getShape(), r = rhs->getShape();
  int64_t lb, le, rb, re;
  if (failed(reshapeLikeRange(loc, name, l.size(), "lhs",
                              optionalInt(adaptor.getLhsBegin()),
                              optionalInt(adaptor.getLhsEnd()), lb, le)) ||
      failed(reshapeLikeRange(loc, name, r.size(), "rhs",
                              optionalInt(adaptor.getRhsBegin()),
                              optionalInt(adaptor.getRhsEnd()), rb, re)))
    return failure();
  Shape out(l.begin(), l.begin() + lb);
  out.append(r.begin() + rb, r.begin() + re);
  out.append(l.begin() + le, l.end());
  if (llvm::none_of(l, isDynamic) && llvm::none_of(out, isDynamic)) {
    int64_t a = 1, b = 1;
    for (int64_t d : l)
      a *= d;
    for (int64_t d : out)
      b *= d;
    if (a != b)
      return inferError(loc, name, "Cannot reshape lhs with shape ",
                        formatShape(l), "to new shape ", formatShape(out),
                        " because they have different size.");
  }
  results.push_back(RankedTensorType::get(out, lhs->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// SwapAxis (src/operator/swapaxis-inl.h SwapAxisProp::InferShape)
//===----------------------------------------------------------------------===//

LogicalResult SwapAxisOp::inferReturnTypes(MLIRContext *context,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  int64_t rank = data->getRank();
  auto a = normalizeAxis(loc, name, static_cast<int64_t>(adaptor.getDim1()),
                         rank);
  auto b = normalizeAxis(loc, name, static_cast<int64_t>(adaptor.getDim2()),
                         rank);
  if (failed(a) || failed(b))
    return failure();
  Shape out(data->getShape().begin(), data->getShape().end());
  std::swap(out[*a], out[*b]);
  results.push_back(RankedTensorType::get(out, data->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// slice, _slice_assign, _slice_assign_scalar (src/operator/tensor/
// matrix_op-inl.h SliceOpShape, GetIndexRange, SetSliceOpOutputDimSize)
//===----------------------------------------------------------------------===//

/// A tuple of optional integers as MXNet writes it: "(0, None)", "[1, -2]",
/// "()", "(3,)" or a bare "3"; nullopt entries are None.
static bool parseOptionalTuple(StringRef text,
                               SmallVectorImpl<std::optional<int64_t>> &out) {
  StringRef s = text.trim();
  if (s.consume_front("(")) {
    if (!s.consume_back(")"))
      return false;
  } else if (s.consume_front("[")) {
    if (!s.consume_back("]"))
      return false;
  } else if (s.empty()) {
    return false;
  } else {
    int64_t v;
    if (s.getAsInteger(10, v))
      return false;
    out.push_back(v);
    return true;
  }
  s = s.trim();
  if (s.empty())
    return true;
  s.consume_back(",");
  SmallVector<StringRef> parts;
  s.split(parts, ',');
  for (StringRef p : parts) {
    p = p.trim();
    // numpy-style "np.int64(3)" / "3L" are not MXNet's; plain ints only.
    if (p == "None") {
      out.push_back(std::nullopt);
      continue;
    }
    int64_t v;
    if (p.getAsInteger(10, v))
      return false;
    out.push_back(v);
  }
  return true;
}

FailureOr<SliceGeometry>
mxc::mx::sliceGeometry(std::optional<Location> loc, StringRef opName,
                       ArrayRef<int64_t> shape, StringRef beginText,
                       StringRef endText, StringRef stepText) {
  SmallVector<std::optional<int64_t>> begin, end, step;
  auto bad = [&](StringRef what, StringRef text) {
    return inferError(loc, opName, what, " '", text,
                      "' is not a tuple of integers or None");
  };
  if (!parseOptionalTuple(beginText, begin))
    return bad("begin", beginText);
  if (!parseOptionalTuple(endText, end))
    return bad("end", endText);
  if (!parseOptionalTuple(stepText, step))
    return bad("step", stepText);
  int64_t rank = shape.size();
  if (rank == 0)
    return inferError(loc, opName, "slice only works for ndim > 0");
  if (static_cast<int64_t>(begin.size()) > rank ||
      static_cast<int64_t>(end.size()) > rank)
    return inferError(loc, opName, "slicing axis exceeds data dimensions: ",
                      std::max(begin.size(), end.size()), " axes for ",
                      formatShape(shape));
  if (begin.size() != end.size())
    return inferError(loc, opName, "begin and end must have the same length, "
                      "got ", begin.size(), " and ", end.size());
  if (!step.empty() && step.size() != begin.size())
    return inferError(loc, opName, "step and begin must have the same length, "
                      "got ", step.size(), " and ", begin.size());
  SliceGeometry g;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t len = shape[i];
    if (i >= static_cast<int64_t>(begin.size())) {
      g.first.push_back(0);
      g.step.push_back(1);
      g.size.push_back(len);
      continue;
    }
    int64_t s = !step.empty() && step[i] ? *step[i] : 1;
    if (s == 0)
      return inferError(loc, opName, "step[", i, "] cannot be 0");
    g.step.push_back(s);
    if (isDynamic(len)) {
      g.first.push_back(0);
      g.size.push_back(kDynamic);
      continue;
    }
    int64_t b = 0, e = 0;
    if (len > 0) {
      b = begin[i] ? *begin[i] : (s < 0 ? len - 1 : 0);
      e = end[i] ? *end[i] : (s < 0 ? -1 : len);
      if (b < 0)
        b += len;
      if (e < 0 && end[i])
        e += len;
      b = (b < 0 && s > 0) ? 0 : b;
      b = (b > len - 1 && s < 0) ? len - 1 : b;
      b = (b < 0 || b > len - 1) ? -1 : b;
      e = e > -1 ? e : -1;
      e = e > len ? len : e;
    }
    int64_t n = 0;
    if (e != b && b >= 0)
      n = s > 0 ? (e > b ? (e - b - 1) / s + 1 : 0)
                : (e < b ? (b - e - 1) / (-s) + 1 : 0);
    g.first.push_back(n > 0 ? b : 0);
    g.size.push_back(n);
  }
  return g;
}

/// The attributes of the slice family as strings.
template <typename Adaptor>
static FailureOr<SliceGeometry> sliceGeometryOf(std::optional<Location> loc,
                                                StringRef name,
                                                RankedTensorType data,
                                                Adaptor adaptor) {
  return sliceGeometry(loc, name, data.getShape(), adaptor.getBegin(),
                       adaptor.getEnd(), adaptor.getStep());
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *context,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  auto g = sliceGeometryOf(loc, name, *data, adaptor);
  if (failed(g))
    return failure();
  results.push_back(RankedTensorType::get(g->size, data->getElementType()));
  return success();
}

LogicalResult SliceAssignOp::inferReturnTypes(MLIRContext *context,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto lhs = getTensorType(loc, name, adaptor.getLhs(), "lhs");
  auto rhs = getTensorType(loc, name, adaptor.getRhs(), "rhs");
  if (failed(lhs) || failed(rhs))
    return failure();
  auto g = sliceGeometryOf(loc, name, *lhs, adaptor);
  if (failed(g) || failed(checkShape(loc, name, "rhs", *rhs, g->size)) ||
      failed(checkElementType(loc, name, "rhs", *rhs, lhs->getElementType())))
    return failure();
  results.push_back(*lhs);
  return success();
}

LogicalResult SliceAssignScalarOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data) || failed(sliceGeometryOf(loc, name, *data, adaptor)))
    return failure();
  results.push_back(*data);
  return success();
}

//===----------------------------------------------------------------------===//
// slice_axis (src/operator/tensor/matrix_op-inl.h GetSliceAxisParams)
//===----------------------------------------------------------------------===//

LogicalResult SliceAxisOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  int64_t rank = data->getRank();
  auto axis =
      normalizeAxis(loc, name, static_cast<int64_t>(adaptor.getAxis()), rank);
  if (failed(axis))
    return failure();
  Shape out(data->getShape().begin(), data->getShape().end());
  int64_t size = out[*axis];
  int64_t begin = static_cast<int64_t>(adaptor.getBegin());
  std::optional<int64_t> endAttr;
  if (auto e = adaptor.getEnd())
    endAttr = static_cast<int64_t>(*e);
  if (isDynamic(size)) {
    // Known only when both ends are non-negative.
    out[*axis] = begin >= 0 && endAttr && *endAttr >= begin ? *endAttr - begin
                                                            : kDynamic;
  } else if (size == 0) {
    out[*axis] = 0;
  } else {
    if (begin < 0)
      begin += size;
    int64_t end = endAttr ? *endAttr : size;
    if (end < 0)
      end += size;
    if (end > size)
      return inferError(loc, name, "end ", end, " exceeds the axis size ",
                        size);
    if (begin < 0)
      return inferError(loc, name, "begin ",
                        static_cast<int64_t>(adaptor.getBegin()),
                        " is out of range for axis size ", size);
    if (end < 0 || begin >= end)
      return inferError(loc, name, "begin ", begin, " must be less than end ",
                        end, " (axis size ", size, ")");
    out[*axis] = end - begin;
  }
  results.push_back(RankedTensorType::get(out, data->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// where (src/operator/tensor/control_flow_op.h WhereOpShape / WhereOpType)
//===----------------------------------------------------------------------===//

LogicalResult WhereOp::inferReturnTypes(MLIRContext *context,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto cond = getTensorType(loc, name, adaptor.getCondition(), "condition");
  auto x = getTensorType(loc, name, adaptor.getX(), "x");
  auto y = getTensorType(loc, name, adaptor.getY(), "y");
  if (failed(cond) || failed(x) || failed(y) ||
      failed(checkElementType(loc, name, "y", *y, x->getElementType())))
    return failure();
  ArrayRef<int64_t> xs = x->getShape(), ys = y->getShape(),
                    cs = cond->getShape();
  bool same = xs.size() == ys.size();
  for (size_t i = 0; same && i < xs.size(); ++i)
    same = dimsCompatible(xs[i], ys[i]);
  if (!same)
    return inferError(loc, name, "x shape ", formatShape(xs), " and y shape ",
                      formatShape(ys), " must be equal");
  Shape out;
  for (auto [a, b] : llvm::zip(xs, ys))
    out.push_back(mergeDims(a, b));
  bool condOk;
  if (cs.size() == out.size()) {
    condOk = true;
    for (size_t i = 0; condOk && i < cs.size(); ++i)
      condOk = dimsCompatible(cs[i], out[i]);
  } else {
    condOk = cs.size() == 1 && !out.empty() && dimsCompatible(cs[0], out[0]);
  }
  if (!condOk)
    return inferError(loc, name, "condition shape ", formatShape(cs),
                      " must equal the shape ", formatShape(out),
                      " of x or be 1-D of its first extent");
  results.push_back(RankedTensorType::get(out, x->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// one_hot (src/operator/tensor/indexing_op.h OneHotOpShape / OneHotOpType)
//===----------------------------------------------------------------------===//

LogicalResult OneHotOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto indices = getTensorType(loc, name, adaptor.getIndices(), "indices");
  if (failed(indices))
    return failure();
  int64_t depth = static_cast<int64_t>(adaptor.getDepth());
  if (depth < 0)
    return inferError(loc, name, "depth must be >= 0, got ", depth);
  Type elt = elementTypeForDType(context, adaptor.getDtype());
  if (!elt)
    return inferError(loc, name, "unknown dtype '", adaptor.getDtype(), "'");
  Shape out(indices->getShape().begin(), indices->getShape().end());
  out.push_back(depth);
  results.push_back(RankedTensorType::get(out, elt));
  return success();
}

//===----------------------------------------------------------------------===//
// _zeros, _ones, _full, _arange, _eye, _contrib_arange_like
// (src/operator/tensor/init_op.h InitShape, RangeShape, EyeShape,
// RangeLikeShape)
//===----------------------------------------------------------------------===//

namespace {
/// MXNet's RangeShape length: ceil((stop - start) / step), times repeat.
FailureOr<int64_t> rangeLength(std::optional<Location> loc, StringRef name,
                               double start, std::optional<double> stop,
                               double step, int64_t repeat) {
  if (!stop) {
    stop = start;
    start = 0;
  }
  if (step == 0)
    return inferError(loc, name, "step cannot be 0");
  if (repeat < 1)
    return inferError(loc, name, "repeat must be >= 1, got ", repeat);
  if (*stop > start && step < 0)
    return inferError(loc, name, "invalid range: step ", step,
                      " is negative while stop ", *stop, " > start ", start);
  if (*stop < start && step > 0)
    return inferError(loc, name, "invalid range: step ", step,
                      " is positive while stop ", *stop, " < start ", start);
  double n = std::ceil((*stop - start) / step);
  if (!(n >= 1))
    return inferError(loc, name, "the range [", start, ", ", *stop,
                      ") with step ", step,
                      " is empty (mxc compiles no zero-size arrays)");
  return static_cast<int64_t>(n) * repeat;
}
} // namespace

LogicalResult mxc::mx::detail::inferInit(MLIRContext *context,
                                         std::optional<Location> loc,
                                         StringRef name, ArrayRef<int64_t> shape,
                                         StringRef dtype,
                                         SmallVectorImpl<Type> &results) {
  if (shape.empty() || llvm::any_of(shape, [](int64_t d) { return d <= 0; }))
    return inferError(loc, name, "shape ", formatShape(shape),
                      " is not fully known (MXNet reads an empty shape or a "
                      "0 extent as unknown, and mxc has no partial shapes)");
  Type elt = elementTypeForDType(context, dtype);
  if (!elt)
    return inferError(loc, name, "unknown dtype '", dtype, "'");
  results.push_back(RankedTensorType::get(shape, elt));
  return success();
}

LogicalResult ArangeOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  if (adaptor.getInferRange())
    return inferError(loc, name,
                      "infer_range=True (the length taken from the rest of "
                      "the graph) needs backward shape inference, which mxc "
                      "does not have; give stop");
  std::optional<double> stop;
  if (auto s = adaptor.getStop())
    stop = s->convertToDouble();
  auto n = rangeLength(loc, name, adaptor.getStart().convertToDouble(), stop,
                       adaptor.getStep().convertToDouble(),
                       static_cast<int64_t>(adaptor.getRepeat()));
  if (failed(n))
    return failure();
  return inferInit(context, loc, name, {*n}, adaptor.getDtype(), results);
}

LogicalResult EyeOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  int64_t n = static_cast<int64_t>(adaptor.getN());
  int64_t m = static_cast<int64_t>(adaptor.getM());
  return inferInit(context, loc, getOperationName(), {n, m == 0 ? n : m},
                   adaptor.getDtype(), results);
}

LogicalResult ArangeLikeOp::inferReturnTypes(MLIRContext *context,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  if (adaptor.getRepeat() < 1)
    return inferError(loc, name, "repeat must be >= 1, got ",
                      static_cast<int64_t>(adaptor.getRepeat()));
  Shape out(data->getShape().begin(), data->getShape().end());
  if (auto axis = adaptor.getAxis()) {
    auto a = normalizeAxis(loc, name, static_cast<int64_t>(*axis),
                           data->getRank(), "axis");
    if (failed(a))
      return failure();
    out = {data->getDimSize(*a)};
  }
  results.push_back(RankedTensorType::get(out, data->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// SliceChannel (src/operator/slice_channel-inl.h SliceChannelProp::InferShape)
//===----------------------------------------------------------------------===//

LogicalResult SliceChannelOp::inferReturnTypes(MLIRContext *context,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  int64_t n = static_cast<int64_t>(adaptor.getNumOutputs());
  if (n < 1)
    return inferError(loc, name, "num_outputs must be >= 1, got ", n);
  auto axis = normalizeAxis(loc, name, static_cast<int64_t>(adaptor.getAxis()),
                            data->getRank(), "axis");
  if (failed(axis))
    return failure();
  Shape shape(data->getShape().begin(), data->getShape().end());
  int64_t extent = shape[*axis];
  if (extent % n != 0)
    return inferError(loc, name, "You are trying to split the ", *axis,
                      "-th axis of input tensor with shape ",
                      formatShape(data->getShape()), " into num_outputs=", n,
                      " evenly sized chunks, but this is not possible because ",
                      n, " does not evenly divide ", extent);
  if (adaptor.getSqueezeAxis()) {
    if (extent != n)
      return inferError(loc, name,
                        "If squeeze axis is True, the size of the sliced axis "
                        "must be the same as num_outputs. Input shape=",
                        formatShape(data->getShape()), ", axis=", *axis,
                        ", num_outputs=", n, ".");
    shape.erase(shape.begin() + *axis);
  } else {
    shape[*axis] = extent / n;
  }
  for (int64_t i = 0; i < n; ++i)
    results.push_back(RankedTensorType::get(shape, data->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// topk, sort, argsort (src/operator/tensor/ordering_op-inl.h ParseTopKParam,
// TopKShapeImpl, TopKType, SortType)
//===----------------------------------------------------------------------===//

OrderRows mxc::mx::orderRows(ArrayRef<int64_t> shape,
                            std::optional<int64_t> axis) {
  OrderRows r;
  for (int64_t d : shape)
    r.n *= d;
  if (!axis)
    return r;
  int64_t a = *axis < 0 ? *axis + int64_t(shape.size()) : *axis;
  r.outer = productOf(shape.take_front(a));
  r.n = shape[a];
  r.inner = productOf(shape.drop_front(a + 1));
  return r;
}

namespace {
/// The type of topk's / argsort's positions (`dtype`).
FailureOr<Type> positionType(MLIRContext *context, std::optional<Location> loc,
                             StringRef name, StringRef dtype) {
  Type idx = elementTypeForDType(context, dtype);
  if (!idx)
    return inferError(loc, name, "unknown dtype '", dtype, "'");
  return idx;
}

/// The shape of topk's `value` / `indices` result (the input's shape for
/// `mask`), with MXNet's checks and messages.
FailureOr<Shape> orderedShape(std::optional<Location> loc, StringRef name,
                              RankedTensorType data,
                              std::optional<int64_t> axis, int64_t k,
                              bool mask) {
  ArrayRef<int64_t> in = data.getShape();
  int64_t elements = 1;
  for (int64_t d : in)
    elements *= d;
  int64_t a = 0;
  if (axis) {
    a = *axis < 0 ? *axis + data.getRank() : *axis;
    if (a < 0 || a >= data.getRank())
      return inferError(loc, name, "Invalid axis! axis should be between 0 and ",
                        data.getRank(), ", found axis=", a);
    elements = in[a];
  }
  if (k <= 0)
    k = elements;
  if (k > elements)
    return inferError(loc, name, "k must be smaller than ", elements,
                      ", get k = ", k);
  if (mask)
    return Shape(in.begin(), in.end());
  if (!axis)
    return Shape{k};
  Shape out(in.begin(), in.end());
  out[a] = k;
  return out;
}
} // namespace

LogicalResult TopkOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  StringRef ret = adaptor.getRetTyp();
  auto shape = orderedShape(loc, name, *data, adaptor.getAxis(),
                            static_cast<int64_t>(adaptor.getK()),
                            ret == "mask");
  if (failed(shape))
    return failure();
  auto idx = positionType(context, loc, name, adaptor.getDtype());
  if (failed(idx))
    return failure();
  Type elt = data->getElementType();
  if (ret == "indices") {
    results.push_back(RankedTensorType::get(*shape, *idx));
    return success();
  }
  results.push_back(RankedTensorType::get(*shape, elt));
  if (ret == "value") // MXNet's hidden indices: int32 (no int64 tensor size)
    results.push_back(
        RankedTensorType::get(*shape, IntegerType::get(context, 32)));
  else if (ret == "both")
    results.push_back(RankedTensorType::get(*shape, *idx));
  return success();
}

LogicalResult SortOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  auto shape = orderedShape(loc, name, *data, adaptor.getAxis(), 0, false);
  if (failed(shape))
    return failure();
  results.push_back(RankedTensorType::get(*shape, data->getElementType()));
  results.push_back(
      RankedTensorType::get(*shape, IntegerType::get(context, 32)));
  return success();
}

LogicalResult ArgsortOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  auto shape = orderedShape(loc, name, *data, adaptor.getAxis(), 0, false);
  auto idx = positionType(context, loc, name, adaptor.getDtype());
  if (failed(shape) || failed(idx))
    return failure();
  results.push_back(RankedTensorType::get(*shape, *idx));
  return success();
}

//===----------------------------------------------------------------------===//
// softmax_cross_entropy, all_finite, multi_all_finite
// (src/operator/loss_binary_op-inl.h SoftmaxCrossEntropyShape,
// src/operator/contrib/all_finite-inl.h)
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxCrossEntropyOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  auto label = getTensorType(loc, name, adaptor.getLabel(), "label");
  if (failed(data) || failed(label))
    return failure();
  if (data->getRank() != 2)
    return inferError(loc, name,
                      "SoftmaxCrossEntropy only accept 2D data, got shape ",
                      formatShape(data->getShape()));
  if (label->getRank() != 1 || label->getDimSize(0) != data->getDimSize(0))
    return inferError(loc, name,
                      "SoftmaxCrossEntropy only accept 1D label of the batch "
                      "size, got shape ",
                      formatShape(label->getShape()), " for data ",
                      formatShape(data->getShape()));
  results.push_back(RankedTensorType::get({1}, data->getElementType()));
  return success();
}

LogicalResult AllFiniteOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  if (failed(getTensorType(loc, getOperationName(), adaptor.getData(), "data")))
    return failure();
  results.push_back(RankedTensorType::get({1}, Float32Type::get(context)));
  return success();
}

//===----------------------------------------------------------------------===//
// _contrib_fft / _contrib_ifft (src/operator/contrib/fft-inl.h, ifft-inl.h
// InferShape): 2-D or 4-D data, the last extent doubled / halved.
//===----------------------------------------------------------------------===//

static LogicalResult inferFourier(std::optional<Location> loc, StringRef name,
                                  Value dataOperand, bool inverse,
                                  SmallVectorImpl<Type> &results) {
  auto data = getTensorType(loc, name, dataOperand, "data");
  if (failed(data))
    return failure();
  if (data->getRank() != 2 && data->getRank() != 4)
    return inferError(loc, name, "expects 2-D or 4-D data, got ",
                      formatShape(data->getShape()));
  Shape shape(data->getShape().begin(), data->getShape().end());
  int64_t last = shape.back();
  if (inverse && last % 2 != 0)
    return inferError(loc, name, "expects interleaved (real, imaginary) pairs: "
                      "the last extent of ", formatShape(data->getShape()),
                      " is odd");
  shape.back() = inverse ? last / 2 : last * 2;
  results.push_back(RankedTensorType::get(shape, data->getElementType()));
  return success();
}

LogicalResult ContribFftOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &results) {
  return inferFourier(loc, getOperationName(), adaptor.getData(), false, results);
}

LogicalResult ContribIfftOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &results) {
  return inferFourier(loc, getOperationName(), adaptor.getData(), true, results);
}

/// _contrib_count_sketch (count_sketch-inl.h CountSketchProp::InferShape):
/// 2-D or 4-D data; h and s (1, d) for the data's last extent d.
LogicalResult ContribCountSketchOp::inferReturnTypes(MLIRContext *,
                                                     std::optional<Location> loc,
                                                     Adaptor adaptor,
                                                     SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  auto h = getTensorType(loc, name, adaptor.getH(), "h");
  auto sg = getTensorType(loc, name, adaptor.getS(), "s");
  if (failed(data) || failed(h) || failed(sg))
    return failure();
  if (data->getRank() != 2 && data->getRank() != 4)
    return inferError(loc, name, "Data should be 2D or 4D! got ",
                      formatShape(data->getShape()));
  int64_t d = data->getShape().back();
  for (auto [what, t] : {std::pair{"H", *h}, std::pair{"S", *sg}})
    if (t.getRank() != 2 || t.getDimSize(0) != 1 || t.getDimSize(1) != d)
      return inferError(loc, name, what, " should be a (1, ", d,
                        ") tensor (the data's last extent), got ",
                        formatShape(t.getShape()));
  if (adaptor.getOutDim() < 1)
    return inferError(loc, name, "out_dim must be >= 1, got ", adaptor.getOutDim());
  Shape shape(data->getShape().begin(), data->getShape().end());
  shape.back() = static_cast<int64_t>(adaptor.getOutDim());
  results.push_back(RankedTensorType::get(shape, data->getElementType()));
  return success();
}

LogicalResult MultiAllFiniteOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto operands = adaptor.getData();
  int64_t n = static_cast<int64_t>(adaptor.getNumArrays());
  if (static_cast<int64_t>(operands.size()) != n)
    return inferError(loc, name, "num_arrays is ", n, " but ", operands.size(),
                      " inputs are given");
  for (auto [i, v] : llvm::enumerate(operands))
    if (failed(getTensorType(loc, name, v, "data")))
      return failure();
  results.push_back(RankedTensorType::get({1}, Float32Type::get(context)));
  return success();
}

//===----------------------------------------------------------------------===//
// The samplers: _random_<d> (no inputs, `shape`: InitShape / InitType), _random_<d>_like
// (data's shape and type), _sample_<d> (one distribution per parameter
// element: multisample_op.h MultiSampleOpShape / Type). The scalar forms
// check their parameters with sample_op.h's messages (MXNet checks them
// when the sampler runs; mxc when the graph is built).
//===----------------------------------------------------------------------===//

namespace {

/// The parameter checks of sample_op.h for distribution `dist` (its scalar
/// parameters in the table's order).
LogicalResult checkSamplerParams(std::optional<Location> loc, StringRef name,
                                 StringRef dist, ArrayRef<double> p) {
  auto fail = [&](const char *message) { return inferError(loc, name, message); };
  if (dist == "gamma") {
    if (!(p[0] > 0))
      return fail("alpha parameter in gamma distribution has to be positive");
    if (!(p[1] > 0))
      return fail("beta parameter in gamma distribution has to be positive");
  } else if (dist == "exponential") {
    if (!(p[0] > 0))
      return fail("lambda parameter in exponential distribution has to be positive");
  } else if (dist == "poisson") {
    if (!(p[0] >= 0))
      return fail("lambda parameter in poisson distribution has to be non-negative");
  } else if (dist == "negative_binomial") {
    if (!(p[0] >= 0))
      return fail("k parameter in negative binomial distribution has to be non-negative");
    if (!(p[1] >= 0))
      return fail("p parameter in negative binomial distribution has to be non-negative");
  } else if (dist == "generalized_negative_binomial") {
    if (!(p[0] >= 0))
      return fail("mu parameter in generalized negative binomial distribution has to be "
                  "non-negative");
    if (!(p[1] >= 0))
      return fail("alpha parameter in generalized negative binomial distribution has to "
                  "be non-negative");
  } else if (dist == "uniform") {
    if (p[0] > p[1])
      return fail("low must be less or equal to high in uniform distribution");
  } else if (dist == "normal") {
    if (!(p[1] > 0))
      return fail("scale parameter in gaussian has to be positive");
  }
  return success();
}

LogicalResult inferRandomLike(std::optional<Location> loc, StringRef name, StringRef dist,
                              ArrayRef<double> p, Value data,
                              SmallVectorImpl<Type> &results) {
  if (failed(checkSamplerParams(loc, name, dist, p)))
    return failure();
  return inferSameAsInput(name, loc, data, results);
}

/// MultiSampleOpShape / Type: the parameters share one shape and element
/// type; the result is their shape then `shape`, in `dtype`.
LogicalResult inferMultiSample(MLIRContext *context, std::optional<Location> loc,
                               StringRef name, ValueRange params, ArrayRef<int64_t> shape,
                               StringRef dtype, SmallVectorImpl<Type> &results) {
  SmallVector<RankedTensorType> types;
  for (Value v : params) {
    auto t = getTensorType(loc, name, v, "parameter");
    if (failed(t))
      return failure();
    types.push_back(*t);
  }
  for (RankedTensorType t : ArrayRef(types).drop_front()) {
    if (t.getShape() != types[0].getShape())
      return inferError(loc, name, "the parameters' shapes differ: ",
                        formatShape(types[0].getShape()), " and ", formatShape(t.getShape()));
    if (t.getElementType() != types[0].getElementType())
      return inferError(loc, name, "the parameters' types differ");
  }
  SmallVector<int64_t> out(types[0].getShape());
  for (int64_t e : shape) {
    if (e < 1)
      return inferError(loc, name, "shape parameter must be non-zero within each dimension");
    out.push_back(e);
  }
  if (out.empty())
    out.push_back(1);
  Type elt = elementTypeForDType(context, dtype);
  if (!elt || !isa<FloatType>(elt))
    return inferError(loc, name, "Output type must be float16, float32, or float64: dtype is ",
                      dtype);
  results.push_back(RankedTensorType::get(out, elt));
  return success();
}

double asDouble(const APFloat &v) { return v.convertToDouble(); }
double asDouble(uint64_t v) { return static_cast<double>(static_cast<int64_t>(v)); }
double asDouble(int64_t v) { return static_cast<double>(v); }

} // namespace

#define MXC_SAMPLERS(D, CPP, P0, P1)                                                       \
  LogicalResult Random##CPP##LikeSamplerOp::inferReturnTypes(                              \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,                         \
      SmallVectorImpl<Type> &results) {                                                    \
    return inferRandomLike(loc, getOperationName(), D,                                     \
                           {asDouble(adaptor.get##P0()), asDouble(adaptor.get##P1())},    \
                           adaptor.getData(), results);                                    \
  }                                                                                        \
  LogicalResult Sample##CPP##Op::inferReturnTypes(MLIRContext *context,                    \
                                                  std::optional<Location> loc,             \
                                                  Adaptor adaptor,                         \
                                                  SmallVectorImpl<Type> &results) {        \
    return inferMultiSample(context, loc, getOperationName(), adaptor.getOperands(),       \
                            adaptor.getShape(), adaptor.getDtype(), results);              \
  }
#define MXC_SCALAR_SAMPLER(D, CPP, P0, P1)                                                 \
  LogicalResult Random##CPP##SamplerOp::inferReturnTypes(                                  \
      MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,                  \
      SmallVectorImpl<Type> &results) {                                                    \
    if (failed(checkSamplerParams(loc, getOperationName(), D,                              \
                                  {asDouble(adaptor.get##P0()), asDouble(adaptor.get##P1())}))) \
      return failure();                                                                    \
    return inferInit(context, loc, getOperationName(), adaptor.getShape(),                 \
                     adaptor.getDtype(), results);                                         \
  }
// one-parameter distributions name their parameter twice
MXC_SAMPLERS("uniform", Uniform, Low, High)
MXC_SAMPLERS("normal", Normal, Loc, Scale)
MXC_SAMPLERS("gamma", Gamma, Alpha, Beta)
MXC_SAMPLERS("exponential", Exponential, Lam, Lam)
MXC_SAMPLERS("poisson", Poisson, Lam, Lam)
MXC_SAMPLERS("negative_binomial", NegativeBinomial, K, P)
MXC_SAMPLERS("generalized_negative_binomial", GeneralizedNegativeBinomial, Mu, Alpha)
MXC_SCALAR_SAMPLER("uniform", Uniform, Low, High)
MXC_SCALAR_SAMPLER("normal", Normal, Loc, Scale)
MXC_SCALAR_SAMPLER("gamma", Gamma, Alpha, Beta)
MXC_SCALAR_SAMPLER("exponential", Exponential, Lam, Lam)
MXC_SCALAR_SAMPLER("poisson", Poisson, Lam, Lam)
MXC_SCALAR_SAMPLER("negative_binomial", NegativeBinomial, K, P)
MXC_SCALAR_SAMPLER("generalized_negative_binomial", GeneralizedNegativeBinomial, Mu, Alpha)
#undef MXC_SAMPLERS
#undef MXC_SCALAR_SAMPLER

/// SampleMultinomialOpShape / Type: data's leading axes then `shape`; the
/// indices in `dtype`, the log-probabilities (get_prob) in data's type.
LogicalResult SampleMultinomialOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto t = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(t))
    return failure();
  ArrayRef<int64_t> d = t->getShape();
  if (d.empty() || d.back() < 1)
    return inferError(loc, name, "data must hold distributions along its last axis, got ",
                      formatShape(d));
  SmallVector<int64_t> out(d.begin(), d.end() - 1);
  for (int64_t e : adaptor.getShape()) {
    if (e < 1)
      return inferError(loc, name, "shape extents must be positive, got ", e);
    out.push_back(e);
  }
  if (out.empty())
    out.push_back(1);
  Type elt = elementTypeForDType(context, adaptor.getDtype());
  if (!elt)
    return inferError(loc, name, "unknown dtype '", adaptor.getDtype(), "'");
  results.push_back(RankedTensorType::get(out, elt));
  if (adaptor.getGetProb())
    results.push_back(RankedTensorType::get(out, t->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// diag (src/operator/tensor/diag_op-inl.h DiagShapeImpl)
//===----------------------------------------------------------------------===//

LogicalResult DiagOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto data = getTensorType(loc, name, adaptor.getData(), "data");
  if (failed(data))
    return failure();
  ArrayRef<int64_t> in = data->getShape();
  int64_t k = static_cast<int64_t>(adaptor.getK());
  if (in.empty())
    return inferError(loc, name, "diag needs an input of rank >= 1");
  if (in.size() == 1) {
    int64_t s = in[0] + std::abs(k);
    results.push_back(RankedTensorType::get({s, s}, data->getElementType()));
    return success();
  }
  int64_t rank = data->getRank();
  auto x1 = normalizeAxis(loc, name, static_cast<int64_t>(adaptor.getAxis1()),
                          rank);
  auto x2 = normalizeAxis(loc, name, static_cast<int64_t>(adaptor.getAxis2()),
                          rank);
  if (failed(x1) || failed(x2))
    return failure();
  if (*x1 == *x2)
    return inferError(loc, name, "axis1 and axis2 cannot refer to the same axis ",
                      *x1);
  int64_t h = in[*x1], w = in[*x2];
  if (k > 0)
    w -= k;
  else
    h += k;
  int64_t s = std::min(h, w);
  if (s <= 0) // MXNet: an empty diagonal is an empty array; mxc has none
    return inferError(loc, name, "Diagonal does not exist (k = ", k,
                      " for planes of ", in[*x1], " x ", in[*x2], ")");
  Shape out;
  for (int64_t d = 0; d < rank; ++d)
    if (d != *x1 && d != *x2)
      out.push_back(in[d]);
  out.push_back(s);
  results.push_back(RankedTensorType::get(out, data->getElementType()));
  return success();
}
