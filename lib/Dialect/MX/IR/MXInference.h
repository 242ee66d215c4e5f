//===- MXInference.h - shape/type inference helpers of the mx ops -*- C++
//-*-===//
//
// Shared pieces of the result-type inference of the `mx` ops (MXNet's shape
// and type functions): dynamic-aware shape arithmetic, one-line diagnostics
// that name the op, and the family rules that the generated ops call
// (elementwise, broadcast, tensor-scalar, reductions, softmax).
//
// Inference runs on user input (imported graphs) and before the verifier
// (createMXOp), so it never assumes that operands are ranked tensors or that
// attributes are in range: every mismatch is a failure with a diagnostic.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_LIB_DIALECT_MX_IR_MXINFERENCE_H
#define MXC_LIB_DIALECT_MX_IR_MXINFERENCE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <optional>
#include <string>

namespace mxc::mx::detail {

using Shape = llvm::SmallVector<int64_t, 6>;
inline constexpr int64_t kDynamic = mlir::ShapedType::kDynamic;

inline bool isDynamic(int64_t d) { return mlir::ShapedType::isDynamic(d); }

/// MXNet's spelling of a shape: "(1, 3, 224, 224)", "(3,)", "()"; dynamic
/// extents print as "?".
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// Emits "'<opName>' op <args...>" at `loc` (when given) and returns failure.
template <typename... Args>
mlir::LogicalResult inferError(std::optional<mlir::Location> loc,
                               llvm::StringRef opName, Args &&...args) {
  return mlir::emitOptionalError(loc, "'", opName, "' op ",
                                 std::forward<Args>(args)...);
}

/// The ranked tensor type of operand `what`, or a diagnostic.
mlir::FailureOr<mlir::RankedTensorType>
getTensorType(std::optional<mlir::Location> loc, llvm::StringRef opName,
              mlir::Value value, llvm::StringRef what);

/// Whether two extents can be equal (equal, or one is dynamic).
inline bool dimsCompatible(int64_t a, int64_t b) {
  return a == b || isDynamic(a) || isDynamic(b);
}
/// The more precise of two compatible extents.
inline int64_t mergeDims(int64_t a, int64_t b) { return isDynamic(a) ? b : a; }
/// a * b, dynamic if either is (or if the product overflows int64).
inline int64_t mulDims(int64_t a, int64_t b) {
  int64_t p;
  if (isDynamic(a) || isDynamic(b) || llvm::MulOverflow(a, b, p))
    return kDynamic;
  return p;
}
/// The product of `dims`, dynamic if any is.
int64_t productOf(llvm::ArrayRef<int64_t> dims);

/// Checks that operand `what` has `expected` shape (dynamic extents on either
/// side match anything).
mlir::LogicalResult checkShape(std::optional<mlir::Location> loc,
                               llvm::StringRef opName, llvm::StringRef what,
                               mlir::RankedTensorType type,
                               llvm::ArrayRef<int64_t> expected);
/// Checks that operand `what` has element type `expected`.
mlir::LogicalResult checkElementType(std::optional<mlir::Location> loc,
                                     llvm::StringRef opName,
                                     llvm::StringRef what,
                                     mlir::RankedTensorType type,
                                     mlir::Type expected);

/// The random_pdf_* operators (pdf_op.h PdfOpShape): operands[0] the
/// samples, the rest the distribution's parameters, each of the samples'
/// leading shape (`vectorSamples`, Dirichlet: with the samples' last axis
/// after it). The result has the samples' shape (without the last axis for
/// vector samples; (1,) for a single vector).
mlir::LogicalResult inferPdf(llvm::StringRef opName, std::optional<mlir::Location> loc,
                             mlir::ValueRange operands, bool vectorSamples,
                             llvm::SmallVectorImpl<mlir::Type> &results);

/// Normalises `axis` in [-rank, rank) to [0, rank) (MXNet's CheckAxis).
mlir::FailureOr<int64_t> normalizeAxis(std::optional<mlir::Location> loc,
                                       llvm::StringRef opName, int64_t axis,
                                       int64_t rank,
                                       llvm::StringRef what = "axis");

/// Expands an MXNet per-dimension parameter (stride, pad, dilate): empty
/// means `fill` for each of `n` dimensions, otherwise it must have n entries.
mlir::FailureOr<Shape> expandSpatialParam(std::optional<mlir::Location> loc,
                                          llvm::StringRef opName,
                                          llvm::StringRef what,
                                          llvm::ArrayRef<int64_t> value,
                                          int64_t n, int64_t fill);

/// The element type of an MXNet dtype name, null if unknown.
mlir::Type elementTypeForDType(mlir::MLIRContext *ctx, llvm::StringRef dtype);

/// Result types compatible with the inferred ones: same element types and
/// compatible shapes (an IR may carry more or less static extents).
bool isCompatibleReturnTypes(mlir::TypeRange inferred, mlir::TypeRange actual);

//===----------------------------------------------------------------------===//
// Family rules called by the generated ops.
//===----------------------------------------------------------------------===//

/// Result = the type of `data` (unary math, identity, clip, *_like, ...).
mlir::LogicalResult
inferSameAsInput(llvm::StringRef opName, std::optional<mlir::Location> loc,
                 mlir::Value data, llvm::SmallVectorImpl<mlir::Type> &results);

/// elemwise_*: identical shapes and element types (ElemwiseShape<2, 1>).
mlir::LogicalResult
inferElemwiseBinary(llvm::StringRef opName, std::optional<mlir::Location> loc,
                    mlir::Value lhs, mlir::Value rhs,
                    llvm::SmallVectorImpl<mlir::Type> &results);

/// broadcast_*: MXNet's BinaryBroadcastShape, same element types.
mlir::LogicalResult
inferBroadcastBinary(llvm::StringRef opName, std::optional<mlir::Location> loc,
                     mlir::Value lhs, mlir::Value rhs,
                     llvm::SmallVectorImpl<mlir::Type> &results);

/// _zeros / _ones / _full (and the creation ops' result): `shape` must be
/// fully known (non-empty, every extent positive: MXNet's legacy semantics
/// read 0 as unknown); the element type is `dtype`'s (InitShape).
mlir::LogicalResult inferInit(mlir::MLIRContext *context,
                              std::optional<mlir::Location> loc,
                              llvm::StringRef opName,
                              llvm::ArrayRef<int64_t> shape,
                              llvm::StringRef dtype,
                              llvm::SmallVectorImpl<mlir::Type> &results);

/// *RegressionOutput: data's type; the label has data's batch extent and
/// element count (RegressionOpShape).
mlir::LogicalResult
inferRegressionOutput(llvm::StringRef opName, std::optional<mlir::Location> loc,
                      mlir::Value data, mlir::Value label,
                      llvm::SmallVectorImpl<mlir::Type> &results);

/// SVMOutput: data's type; the label has data's shape without the last axis
/// (SVMOutputProp::InferShape).
mlir::LogicalResult
inferSVMOutput(llvm::StringRef opName, std::optional<mlir::Location> loc,
               mlir::Value data, mlir::Value label,
               llvm::SmallVectorImpl<mlir::Type> &results);

/// _ravel_multi_index (data (k, ...) -> (...)) and _unravel_index (data
/// (...) -> (k, ...)), k = shape's rank (RavelOpShape / UnravelOpShape).
mlir::LogicalResult inferRavel(llvm::StringRef opName,
                               std::optional<mlir::Location> loc,
                               mlir::Value data, llvm::ArrayRef<int64_t> shape,
                               bool unravel,
                               llvm::SmallVectorImpl<mlir::Type> &results);

/// gather_nd (GatherNDShape): indices (M, Y...) into data's first M axes;
/// the result (Y..., data's axes past M) of data's type.
mlir::LogicalResult inferGatherNd(llvm::StringRef opName,
                                  std::optional<mlir::Location> loc,
                                  mlir::Value data, mlir::Value indices,
                                  llvm::SmallVectorImpl<mlir::Type> &results);

/// _contrib_index_copy: old (N, ...), index (K,), new (K, ...) -> old's type.
mlir::LogicalResult inferIndexCopy(llvm::StringRef opName,
                                   std::optional<mlir::Location> loc,
                                   mlir::Value oldTensor, mlir::Value index,
                                   mlir::Value newTensor,
                                   llvm::SmallVectorImpl<mlir::Type> &results);

/// _contrib_index_array: data's shape plus one axis of len(axes) (or rank),
/// int64.
mlir::LogicalResult
inferIndexArray(mlir::MLIRContext *context, llvm::StringRef opName,
                std::optional<mlir::Location> loc, mlir::Value data,
                std::optional<llvm::ArrayRef<int64_t>> axes,
                llvm::SmallVectorImpl<mlir::Type> &results);

/// _linalg_gemm / _linalg_gemm2 (LaMatrixMultMacOpShape): matrices on the
/// `axis` (rows) and last axes, the other axes batch axes of equal extents.
mlir::LogicalResult
inferLinalgGemm(llvm::StringRef opName, std::optional<mlir::Location> loc,
                mlir::Value a, mlir::Value b, mlir::Value c, bool transposeA,
                bool transposeB, int64_t axis,
                llvm::SmallVectorImpl<mlir::Type> &results);

/// _linalg_potrf / _linalg_potri (ElemwiseShape on square matrices): A
/// (..., n, n), the result of A's type.
mlir::LogicalResult
inferLinalgSquare(llvm::StringRef opName, std::optional<mlir::Location> loc,
                  mlir::Value a, llvm::SmallVectorImpl<mlir::Type> &results);

/// _linalg_trmm / _linalg_trsm (LaTriangMatrixMultOpShape): A (..., n, n)
/// square, B (..., r, c) with the same batch axes; n must equal B's rows
/// (or its columns with `rightside`). op(A) is square, so `transpose` does
/// not matter: the result has B's shape.
mlir::LogicalResult
inferLinalgTriangular(llvm::StringRef opName, std::optional<mlir::Location> loc,
                      mlir::Value a, mlir::Value b, bool rightside,
                      llvm::SmallVectorImpl<mlir::Type> &results);

/// _*_scalar: shape of data, type by NumpyBinaryScalarType.
mlir::LogicalResult inferScalarOp(llvm::StringRef opName,
                                  std::optional<mlir::Location> loc,
                                  mlir::Value data, bool isInt,
                                  llvm::SmallVectorImpl<mlir::Type> &results);

/// sum/mean/max/min: MXNet's ReduceAxesShapeImpl.
mlir::LogicalResult
inferReduceAxes(llvm::StringRef opName, std::optional<mlir::Location> loc,
                mlir::Value data, std::optional<llvm::ArrayRef<int64_t>> axis,
                bool keepdims, bool exclude, bool requireNonEmpty,
                llvm::SmallVectorImpl<mlir::Type> &results);

/// softmax / log_softmax (`hasLengthInput` is false for log_softmax, which
/// has no `length` input).
mlir::LogicalResult
inferSoftmax(llvm::StringRef opName, std::optional<mlir::Location> loc,
             mlir::Value data, mlir::Value length, bool hasLengthInput,
             int64_t axis, std::optional<llvm::StringRef> dtype, bool useLength,
             llvm::SmallVectorImpl<mlir::Type> &results);

/// MXNet's tuple of floats (declared in MXOps.h, for the conversions too).
using ::mxc::mx::parseFloatTuple;

} // namespace mxc::mx::detail

#endif // MXC_LIB_DIALECT_MX_IR_MXINFERENCE_H
