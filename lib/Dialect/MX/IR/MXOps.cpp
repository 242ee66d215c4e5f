//===- MXOps.cpp - mx dialect operations ----------------------------------===//
//
// Shared inference helpers, the family rules the generated ops call
// (elementwise, broadcast, tensor-scalar, reductions, softmax), verifiers and
// side effects. Per-op shape functions live in MXShapeInferenceNN.cpp (layers)
// and MXShapeInferenceTensor.cpp (tensor manipulation).
//
//===----------------------------------------------------------------------===//
#include "mxc/Dialect/MX/IR/MXOps.h"

#include "MXInference.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace mxc::mx;
using namespace mxc::mx::detail;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::string mxc::mx::detail::formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "(";
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (isDynamic(d))
          os << "?";
        else
          os << d;
      },
      ", ");
  if (shape.size() == 1)
    os << ",";
  os << ")";
  return s;
}

FailureOr<RankedTensorType>
mxc::mx::detail::getTensorType(std::optional<Location> loc, StringRef opName,
                               Value value, StringRef what) {
  if (!value)
    return inferError(loc, opName, "is missing its '", what, "' input");
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return inferError(loc, opName, "expects '", what,
                      "' to be a ranked tensor, got ", value.getType());
  return type;
}

int64_t mxc::mx::detail::productOf(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p = mulDims(p, d);
  return p;
}

LogicalResult mxc::mx::detail::checkShape(std::optional<Location> loc,
                                          StringRef opName, StringRef what,
                                          RankedTensorType type,
                                          ArrayRef<int64_t> expected) {
  ArrayRef<int64_t> actual = type.getShape();
  bool ok = actual.size() == expected.size();
  for (size_t i = 0; ok && i < actual.size(); ++i)
    ok = dimsCompatible(actual[i], expected[i]);
  if (ok)
    return success();
  return inferError(loc, opName, what, " shape ", formatShape(actual),
                    " does not match expected ", formatShape(expected));
}

LogicalResult mxc::mx::detail::checkElementType(std::optional<Location> loc,
                                                StringRef opName,
                                                StringRef what,
                                                RankedTensorType type,
                                                Type expected) {
  if (type.getElementType() == expected)
    return success();
  return inferError(loc, opName, what, " element type ", type.getElementType(),
                    " does not match ", expected);
}

FailureOr<int64_t> mxc::mx::detail::normalizeAxis(std::optional<Location> loc,
                                                  StringRef opName,
                                                  int64_t axis, int64_t rank,
                                                  StringRef what) {
  if (axis < -rank || axis >= rank)
    return inferError(loc, opName, what, " ", axis, " is out of range for ",
                      rank, "-D input");
  return axis < 0 ? axis + rank : axis;
}

FailureOr<Shape> mxc::mx::detail::expandSpatialParam(
    std::optional<Location> loc, StringRef opName, StringRef what,
    ArrayRef<int64_t> value, int64_t n, int64_t fill) {
  if (value.empty())
    return Shape(n, fill);
  // MXNet reads only the kernel's rank of a longer pad (Pooling's pad=(0, 0,
  // 0) with a 1-D kernel runs there); zeros beyond it change nothing.
  if (what == "pad" && static_cast<int64_t>(value.size()) > n &&
      llvm::all_of(value.drop_front(n), [](int64_t v) { return v == 0; }))
    return Shape(value.begin(), value.begin() + n);
  if (static_cast<int64_t>(value.size()) != n)
    return inferError(loc, opName, what, " ", formatShape(value), " must have ",
                      n, " entries, like the kernel");
  return Shape(value.begin(), value.end());
}

Type mxc::mx::detail::elementTypeForDType(MLIRContext *ctx, StringRef dtype) {
  Builder b(ctx);
  return llvm::StringSwitch<Type>(dtype)
      .Case("float32", b.getF32Type())
      .Case("float64", b.getF64Type())
      .Case("float16", b.getF16Type())
      .Case("bfloat16", b.getBF16Type())
      .Case("uint8", IntegerType::get(ctx, 8, IntegerType::Unsigned))
      .Case("int8", b.getIntegerType(8))
      .Case("int32", b.getIntegerType(32))
      .Case("int64", b.getIntegerType(64))
      .Case("bool", b.getI1Type())
      .Default(Type());
}

bool mxc::mx::detail::isCompatibleReturnTypes(TypeRange inferred,
                                              TypeRange actual) {
  if (inferred.size() != actual.size())
    return false;
  for (auto [a, b] : llvm::zip(inferred, actual)) {
    if (a == b)
      continue;
    auto ta = dyn_cast<RankedTensorType>(a);
    auto tb = dyn_cast<RankedTensorType>(b);
    if (!ta || !tb || ta.getElementType() != tb.getElementType() ||
        failed(verifyCompatibleShape(ta, tb)))
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Family rules
//===----------------------------------------------------------------------===//

LogicalResult
mxc::mx::detail::inferSameAsInput(StringRef opName, std::optional<Location> loc,
                                  Value data, SmallVectorImpl<Type> &results) {
  auto type = getTensorType(loc, opName, data, "data");
  if (failed(type))
    return failure();
  results.push_back(*type);
  return success();
}

LogicalResult mxc::mx::detail::inferRegressionOutput(
    StringRef opName, std::optional<Location> loc, Value data, Value label,
    SmallVectorImpl<Type> &results) {
  auto d = getTensorType(loc, opName, data, "data");
  auto l = getTensorType(loc, opName, label, "label");
  if (failed(d) || failed(l))
    return failure();
  if (d->getRank() == 0)
    return inferError(loc, opName, "expects data of rank >= 1");
  if (failed(checkElementType(loc, opName, "label", *l, d->getElementType())))
    return failure();
  if (d->hasStaticShape() && l->hasStaticShape() &&
      (l->getRank() == 0 || l->getShape()[0] != d->getShape()[0] ||
       l->getNumElements() != d->getNumElements()))
    return inferError(loc, opName, "Shape inconsistent, Provided=",
                      formatShape(l->getShape()),
                      ", inferred shape=", formatShape(d->getShape()));
  results.push_back(*d);
  return success();
}

LogicalResult mxc::mx::detail::inferSVMOutput(StringRef opName,
                                             std::optional<Location> loc,
                                             Value data, Value label,
                                             SmallVectorImpl<Type> &results) {
  auto d = getTensorType(loc, opName, data, "data");
  auto l = getTensorType(loc, opName, label, "label");
  if (failed(d) || failed(l))
    return failure();
  if (d->getRank() < 2)
    return inferError(loc, opName, "expects data of rank >= 2, got ",
                      formatShape(d->getShape()));
  if (failed(checkElementType(loc, opName, "label", *l, d->getElementType())))
    return failure();
  ArrayRef<int64_t> ds = d->getShape(), ls = l->getShape();
  bool ok = ls.size() + 1 == ds.size();
  for (size_t i = 0; ok && i < ls.size(); ++i)
    ok = dimsCompatible(ls[i], ds[i]);
  if (!ok)
    return inferError(loc, opName, "Shape inconsistent, Provided=",
                      formatShape(ls), ", inferred shape=",
                      formatShape(ds.drop_back()));
  results.push_back(*d);
  return success();
}

LogicalResult mxc::mx::detail::inferRavel(StringRef opName,
                                         std::optional<Location> loc,
                                         Value data, ArrayRef<int64_t> shape,
                                         bool unravel,
                                         SmallVectorImpl<Type> &results) {
  auto d = getTensorType(loc, opName, data, "data");
  if (failed(d))
    return failure();
  if (shape.empty())
    return inferError(loc, opName, "shape must have at least one extent");
  for (auto [i, e] : llvm::enumerate(shape))
    if (e < 1 && !(i == 0 && e == -1))
      return inferError(loc, opName, "shape ", formatShape(shape),
                        " must have positive extents (the first may be -1)");
  SmallVector<int64_t> out;
  if (unravel) {
    out.push_back(static_cast<int64_t>(shape.size()));
    out.append(d->getShape().begin(), d->getShape().end());
  } else {
    if (d->getRank() < 1 ||
        !dimsCompatible(d->getShape()[0], static_cast<int64_t>(shape.size())))
      return inferError(loc, opName, "data ", formatShape(d->getShape()),
                        " must have ", shape.size(),
                        " index rows (shape's rank) on its first axis");
    out.append(d->getShape().begin() + 1, d->getShape().end());
  }
  results.push_back(RankedTensorType::get(out, d->getElementType()));
  return success();
}

LogicalResult mxc::mx::detail::inferGatherNd(StringRef opName,
                                            std::optional<Location> loc,
                                            Value data, Value indices,
                                            SmallVectorImpl<Type> &results) {
  auto d = getTensorType(loc, opName, data, "data");
  auto i = getTensorType(loc, opName, indices, "indices");
  if (failed(d) || failed(i))
    return failure();
  ArrayRef<int64_t> ds = d->getShape(), is = i->getShape();
  if (is.empty() || is[0] < 1 || is[0] > static_cast<int64_t>(ds.size()))
    return inferError(loc, opName, "indices ", formatShape(is),
                      " must have 1 to ", ds.size(),
                      " (data's rank) index rows on its first axis");
  SmallVector<int64_t> out(is.begin() + 1, is.end());
  out.append(ds.begin() + is[0], ds.end());
  results.push_back(RankedTensorType::get(out, d->getElementType()));
  return success();
}

LogicalResult mxc::mx::detail::inferIndexCopy(StringRef opName,
                                             std::optional<Location> loc,
                                             Value oldTensor, Value index,
                                             Value newTensor,
                                             SmallVectorImpl<Type> &results) {
  auto o = getTensorType(loc, opName, oldTensor, "old_tensor");
  auto i = getTensorType(loc, opName, index, "index_vector");
  auto n = getTensorType(loc, opName, newTensor, "new_tensor");
  if (failed(o) || failed(i) || failed(n))
    return failure();
  if (failed(checkElementType(loc, opName, "new_tensor", *n, o->getElementType())))
    return failure();
  ArrayRef<int64_t> os = o->getShape(), ns = n->getShape();
  if (os.empty() || i->getRank() != 1 || ns.size() != os.size() ||
      !dimsCompatible(ns[0], i->getShape()[0]) ||
      ns.drop_front() != os.drop_front())
    return inferError(loc, opName, "expects old_tensor (N, ...), index_vector (K,) "
                      "and new_tensor (K, ...) with old_tensor's trailing shape, got ",
                      formatShape(os), ", ", formatShape(i->getShape()), ", ",
                      formatShape(ns));
  results.push_back(*o);
  return success();
}

LogicalResult mxc::mx::detail::inferIndexArray(
    MLIRContext *context, StringRef opName, std::optional<Location> loc,
    Value data, std::optional<ArrayRef<int64_t>> axes,
    SmallVectorImpl<Type> &results) {
  auto d = getTensorType(loc, opName, data, "data");
  if (failed(d))
    return failure();
  int64_t rank = d->getRank();
  if (axes)
    for (int64_t a : *axes)
      if (a < -rank || a >= rank)
        return inferError(loc, opName, "axis ", a, " is out of range for data ",
                          formatShape(d->getShape()));
  SmallVector<int64_t> out(d->getShape());
  out.push_back(axes ? static_cast<int64_t>(axes->size()) : rank);
  results.push_back(RankedTensorType::get(out, IntegerType::get(context, 64)));
  return success();
}

LogicalResult mxc::mx::detail::inferLinalgGemm(
    StringRef opName, std::optional<Location> loc, Value a, Value b, Value c,
    bool transposeA, bool transposeB, int64_t axis,
    SmallVectorImpl<Type> &results) {
  auto at = getTensorType(loc, opName, a, "A");
  auto bt = getTensorType(loc, opName, b, "B");
  if (failed(at) || failed(bt))
    return failure();
  if (failed(checkElementType(loc, opName, "B", *bt, at->getElementType())))
    return failure();
  int64_t rank = at->getRank();
  if (rank < 2 || bt->getRank() != rank)
    return inferError(loc, opName, "A and B must have one rank >= 2, got ",
                      formatShape(at->getShape()), " and ", formatShape(bt->getShape()));
  int64_t ax = axis < 0 ? axis + rank : axis;
  if (ax < 0 || ax >= rank - 1)
    return inferError(loc, opName, "axis ", axis, " must name an axis before the last");
  ArrayRef<int64_t> as = at->getShape(), bs = bt->getShape();
  for (int64_t i = 0; i < rank - 1; ++i)
    if (i != ax && !dimsCompatible(as[i], bs[i]))
      return inferError(loc, opName, "A ", formatShape(as), " and B ", formatShape(bs),
                        " differ in batch axis ", i);
  int64_t m = transposeA ? as[rank - 1] : as[ax];
  int64_t ka = transposeA ? as[ax] : as[rank - 1];
  int64_t kb = transposeB ? bs[rank - 1] : bs[ax];
  int64_t n = transposeB ? bs[ax] : bs[rank - 1];
  if (!dimsCompatible(ka, kb))
    return inferError(loc, opName, "op(A) has ", ka, " columns and op(B) ", kb,
                      " rows (A ", formatShape(as), ", B ", formatShape(bs), ")");
  SmallVector<int64_t> out(as);
  out[ax] = m;
  out[rank - 1] = n;
  if (c) {
    auto ct = getTensorType(loc, opName, c, "C");
    if (failed(ct) ||
        failed(checkElementType(loc, opName, "C", *ct, at->getElementType())))
      return failure();
    if (ct->getShape() != ArrayRef<int64_t>(out))
      return inferError(loc, opName, "C must have the result's shape ", formatShape(out),
                        ", got ", formatShape(ct->getShape()));
  }
  results.push_back(RankedTensorType::get(out, at->getElementType()));
  return success();
}

LogicalResult mxc::mx::detail::inferLinalgSquare(StringRef opName,
                                                std::optional<Location> loc, Value a,
                                                SmallVectorImpl<Type> &results) {
  auto at = getTensorType(loc, opName, a, "A");
  if (failed(at))
    return failure();
  ArrayRef<int64_t> s = at->getShape();
  if (s.size() < 2 || !dimsCompatible(s[s.size() - 2], s.back()))
    return inferError(loc, opName, "A must be a batch of square matrices (..., n, n), got ",
                      formatShape(s));
  results.push_back(*at);
  return success();
}

LogicalResult mxc::mx::detail::inferLinalgTriangular(
    StringRef opName, std::optional<Location> loc, Value a, Value b, bool rightside,
    SmallVectorImpl<Type> &results) {
  auto at = getTensorType(loc, opName, a, "A");
  auto bt = getTensorType(loc, opName, b, "B");
  if (failed(at) || failed(bt))
    return failure();
  if (failed(checkElementType(loc, opName, "B", *bt, at->getElementType())))
    return failure();
  ArrayRef<int64_t> as = at->getShape(), bs = bt->getShape();
  size_t rank = as.size();
  if (rank < 2 || bs.size() != rank)
    return inferError(loc, opName, "A and B must have one rank >= 2, got ", formatShape(as),
                      " and ", formatShape(bs));
  if (!dimsCompatible(as[rank - 2], as[rank - 1]))
    return inferError(loc, opName, "A must be a batch of square matrices, got ",
                      formatShape(as));
  for (size_t i = 0; i + 2 < rank; ++i)
    if (!dimsCompatible(as[i], bs[i]))
      return inferError(loc, opName, "A ", formatShape(as), " and B ", formatShape(bs),
                        " differ in batch axis ", i);
  int64_t n = as[rank - 1];
  int64_t inner = rightside ? bs[rank - 1] : bs[rank - 2];
  if (!dimsCompatible(n, inner))
    return inferError(loc, opName, "A is ", n, " x ", n, " but B ", formatShape(bs), " has ",
                      inner, rightside ? " columns" : " rows");
  results.push_back(RankedTensorType::get(bs, at->getElementType()));
  return success();
}

LogicalResult mxc::mx::detail::inferElemwiseBinary(
    StringRef opName, std::optional<Location> loc, Value lhs, Value rhs,
    SmallVectorImpl<Type> &results) {
  auto l = getTensorType(loc, opName, lhs, "lhs");
  auto r = getTensorType(loc, opName, rhs, "rhs");
  if (failed(l) || failed(r))
    return failure();
  if (failed(checkElementType(loc, opName, "rhs", *r, l->getElementType())))
    return failure();
  ArrayRef<int64_t> ls = l->getShape(), rs = r->getShape();
  bool ok = ls.size() == rs.size();
  for (size_t i = 0; ok && i < ls.size(); ++i)
    ok = dimsCompatible(ls[i], rs[i]);
  if (!ok)
    return inferError(loc, opName, "operands must have the same shape, got ",
                      formatShape(ls), " and ", formatShape(rs));
  Shape out;
  for (auto [a, b] : llvm::zip(ls, rs))
    out.push_back(mergeDims(a, b));
  results.push_back(RankedTensorType::get(out, l->getElementType()));
  return success();
}

LogicalResult mxc::mx::detail::inferBroadcastBinary(
    StringRef opName, std::optional<Location> loc, Value lhs, Value rhs,
    SmallVectorImpl<Type> &results) {
  auto l = getTensorType(loc, opName, lhs, "lhs");
  auto r = getTensorType(loc, opName, rhs, "rhs");
  if (failed(l) || failed(r))
    return failure();
  if (failed(checkElementType(loc, opName, "rhs", *r, l->getElementType())))
    return failure();
  ArrayRef<int64_t> ls = l->getShape(), rs = r->getShape();
  int64_t rank = std::max(ls.size(), rs.size());
  int64_t bl = rank - ls.size(), br = rank - rs.size();
  Shape out(rank, kDynamic);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t a = i >= bl ? ls[i - bl] : 1;
    int64_t b = i >= br ? rs[i - br] : 1;
    if (isDynamic(a) || isDynamic(b)) {
      // The static side decides unless it is 1 (then the other one does).
      int64_t known = isDynamic(a) ? b : a;
      out[i] = !isDynamic(known) && known != 1 ? known : kDynamic;
      continue;
    }
    if (a != b && a != 1 && b != 1)
      return inferError(loc, opName,
                        "operands could not be broadcast together with shapes ",
                        formatShape(ls), " and ", formatShape(rs));
    out[i] = a == 1 ? b : a;
  }
  results.push_back(RankedTensorType::get(out, l->getElementType()));
  return success();
}

LogicalResult mxc::mx::detail::inferScalarOp(StringRef opName,
                                             std::optional<Location> loc,
                                             Value data, bool isInt,
                                             SmallVectorImpl<Type> &results) {
  auto type = getTensorType(loc, opName, data, "data");
  if (failed(type))
    return failure();
  Type elt = type->getElementType();
  MLIRContext *ctx = elt.getContext();
  // NumpyBinaryScalarType: int tensor with a float scalar -> float64;
  // bool tensor -> int64 or float64; anything else keeps its type.
  if (elt.isInteger(1))
    elt = isInt ? Type(IntegerType::get(ctx, 64)) : Type(Float64Type::get(ctx));
  else if (isa<IntegerType>(elt) && !isInt)
    elt = Float64Type::get(ctx);
  results.push_back(RankedTensorType::get(type->getShape(), elt));
  return success();
}

LogicalResult mxc::mx::detail::inferReduceAxes(
    StringRef opName, std::optional<Location> loc, Value data,
    std::optional<ArrayRef<int64_t>> axis, bool keepdims, bool exclude,
    bool requireNonEmpty, SmallVectorImpl<Type> &results) {
  auto type = getTensorType(loc, opName, data, "data");
  if (failed(type))
    return failure();
  ArrayRef<int64_t> in = type->getShape();
  int64_t rank = in.size();
  Type elt = type->getElementType();
  if (requireNonEmpty && type->hasStaticShape() && type->getNumElements() == 0)
    return inferError(loc, opName, "cannot reduce an empty input ",
                      formatShape(in));
  // No axis, or (): reduce everything (even with exclude, as MXNet does).
  if (!axis || axis->empty()) {
    Shape out = keepdims ? Shape(rank, 1) : Shape(1, 1);
    results.push_back(RankedTensorType::get(out, elt));
    return success();
  }
  Shape axes;
  for (int64_t a : *axis) {
    int64_t n = a < 0 ? a + rank : a;
    if (n < 0 || n >= rank)
      return inferError(loc, opName, "reduction axis ", a,
                        " is out of range for ", rank, "-D input");
    axes.push_back(n);
  }
  llvm::sort(axes);
  for (size_t i = 1; i < axes.size(); ++i)
    if (axes[i - 1] == axes[i])
      return inferError(loc, opName, "reduction axes ", formatShape(*axis),
                        " have duplicates");
  auto isReduced = [&](int64_t i) {
    return llvm::is_contained(axes, i) != exclude;
  };
  Shape out;
  if (keepdims) {
    for (int64_t i = 0; i < rank; ++i)
      out.push_back(isReduced(i) ? 1 : in[i]);
  } else if (exclude) {
    for (int64_t a : axes)
      out.push_back(in[a]);
  } else {
    for (int64_t i = 0; i < rank; ++i)
      if (!llvm::is_contained(axes, i))
        out.push_back(in[i]);
    if (out.empty())
      out.push_back(1);
  }
  results.push_back(RankedTensorType::get(out, elt));
  return success();
}

LogicalResult
mxc::mx::detail::inferSoftmax(StringRef opName, std::optional<Location> loc,
                              Value data, Value length, bool hasLengthInput,
                              int64_t axis, std::optional<StringRef> dtype,
                              bool useLength, SmallVectorImpl<Type> &results) {
  auto type = getTensorType(loc, opName, data, "data");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  if (rank == 0)
    return inferError(loc, opName, "expects data of rank >= 1");
  auto ax = normalizeAxis(loc, opName, axis, rank);
  if (failed(ax))
    return failure();
  if (!hasLengthInput && useLength)
    return inferError(loc, opName, "does not support use_length");
  if (useLength && !length)
    return inferError(loc, opName,
                      "requires a 'length' input when use_length "
                      "is true");
  if (!useLength && length)
    return inferError(loc, opName,
                      "has a 'length' input but use_length is false");
  if (length) {
    auto lt = getTensorType(loc, opName, length, "length");
    if (failed(lt))
      return failure();
    Shape expected;
    for (int64_t i = 0; i < rank; ++i)
      if (i != *ax)
        expected.push_back(type->getDimSize(i));
    if (expected.empty())
      expected.push_back(1);
    if (failed(checkShape(loc, opName, "length", *lt, expected)))
      return failure();
  }
  Type elt = type->getElementType();
  if (dtype) {
    elt = elementTypeForDType(type->getContext(), *dtype);
    if (!elt)
      return inferError(loc, opName, "unknown dtype '", *dtype, "'");
  }
  results.push_back(RankedTensorType::get(type->getShape(), elt));
  return success();
}

//===----------------------------------------------------------------------===//
// Verifiers: attribute ranges MXNet enforces that do not change shapes.
//===----------------------------------------------------------------------===//

LogicalResult ConvolutionOp::verify() {
  if (static_cast<int64_t>(getWorkspace()) < 0)
    return emitOpError("workspace must be >= 0, got ")
           << static_cast<int64_t>(getWorkspace());
  return success();
}

LogicalResult DropoutOp::verify() {
  double p = getP().convertToDouble();
  if (!(p >= 0.0 && p <= 1.0))
    return emitOpError("p must be in [0, 1], got ") << p;
  return success();
}

LogicalResult SoftmaxOutputOp::verify() {
  double a = getSmoothAlpha().convertToDouble();
  if (!(a >= 0.0 && a <= 1.0))
    return emitOpError("smooth_alpha must be in [0, 1], got ") << a;
  return success();
}

LogicalResult LRNOp::verify() {
  if (static_cast<int64_t>(getNsize()) < 1)
    return emitOpError("nsize must be >= 1, got ")
           << static_cast<int64_t>(getNsize());
  return success();
}

//===----------------------------------------------------------------------===//
// Side effects: random generator state.
//===----------------------------------------------------------------------===//

namespace {
/// The random generator state that Dropout and rrelu read and advance (the
/// MXNet engine serialises its users).
struct RandomStateResource
    : public SideEffects::Resource::Base<RandomStateResource> {
  StringRef getName() final { return "mx.random_state"; }
};
} // namespace

/// Declares a read and a write of the random generator state.
static void addRandomStateEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), RandomStateResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), RandomStateResource::get());
}

void DropoutOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addRandomStateEffects(effects);
}

void LeakyReLUOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (getActType() == "rrelu")
    addRandomStateEffects(effects);
}

#define GET_OP_CLASSES
#include "mxc/Dialect/MX/IR/MXOps.cpp.inc"
