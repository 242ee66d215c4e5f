//===- KernelCalls.h - calls into the runtime's kernel ABI ------*- C++ -*-===//
//
// Helpers shared by the GEMM-class families (Linear.cpp, Conv.cpp) and the
// other nn families (Pooling.cpp, Normalization.cpp).
//
// GEMM-class ops on f32 / f64 with static shapes become a `func.call` to a
// C function of the runtime (runtime/src/kernels/kernels.h, OpenBLAS behind
// it). Each buffer crosses as a rank-1 `memref<?xT, strided<[1], offset: ?>>`:
// inputs are `tensor.collapse_shape` + `bufferization.to_buffer read_only`
// (one-shot-bufferize folds these into views, copying only a non-contiguous
// input), the output is a `memref.alloc` written by the call and wrapped by
// `bufferization.to_tensor restrict writable`. No copies, no LLVM types in
// the IR, and the buffers' lifetimes stay visible to later passes.
//
// A module carrying `mxc.kernel_calls = false` gets generated linalg for
// these ops instead (used to measure codegen against the library, and for
// targets without the runtime's kernels).
//
//===----------------------------------------------------------------------===//
#ifndef MXC_LIB_CONVERSION_MXTOLINALG_KERNELCALLS_H
#define MXC_LIB_CONVERSION_MXTOLINALG_KERNELCALLS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Twine.h"

#include <numeric>

namespace mxc::conversion {

/// Rejects an unsupported attribute combination. The pass reports the reason
/// as the user's error, at the op's location (its MXNet node name):
/// "cannot lower <Op>: <reason>".
inline mlir::LogicalResult
unsupported(mlir::ConversionPatternRewriter &rewriter, mlir::Operation *op,
            const llvm::Twine &reason) {
  return rewriter.notifyMatchFailure(op, reason);
}

/// The static ranked tensor type of `v`, or null.
inline mlir::RankedTensorType staticTensorType(mlir::Value v) {
  auto t = llvm::dyn_cast<mlir::RankedTensorType>(v.getType());
  return t && t.hasStaticShape() ? t : nullptr;
}

/// Whether every operand and result of `op` has a static shape.
inline bool hasStaticShapes(mlir::Operation *op) {
  for (mlir::Type t : op->getOperandTypes())
    if (auto s = llvm::dyn_cast<mlir::ShapedType>(t); !s || !s.hasStaticShape())
      return false;
  for (mlir::Type t : op->getResultTypes())
    if (auto s = llvm::dyn_cast<mlir::ShapedType>(t); !s || !s.hasStaticShape())
      return false;
  return true;
}

inline int64_t product(llvm::ArrayRef<int64_t> dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

/// Whether GEMM-class work on `elementType` inside `op` becomes a kernel
/// call: f32 / f64, static shapes, and not turned off on the module.
inline bool useKernelCalls(mlir::Operation *op, mlir::Type elementType) {
  if (!elementType.isF32() && !elementType.isF64())
    return false;
  if (!hasStaticShapes(op))
    return false;
  auto module = op->getParentOfType<mlir::ModuleOp>();
  if (auto flag =
          module ? module->getAttrOfType<mlir::BoolAttr>("mxc.kernel_calls")
                 : nullptr)
    return flag.getValue();
  return true;
}

/// "f32" / "f64": the suffix of a kernel's name.
inline std::string kernelSuffix(mlir::Type elementType) {
  return elementType.isF64() ? "f64" : "f32";
}

/// The rank-1 buffer type every kernel takes.
inline mlir::MemRefType kernelBufferType(mlir::Type elementType) {
  auto *ctx = elementType.getContext();
  return mlir::MemRefType::get(
      {mlir::ShapedType::kDynamic}, elementType,
      mlir::StridedLayoutAttr::get(ctx, mlir::ShapedType::kDynamic, {1}));
}

/// `func.func private @name(...)` in the enclosing module, created once.
inline mlir::func::FuncOp declareKernel(mlir::OpBuilder &b, mlir::Operation *at,
                                        llvm::StringRef name,
                                        mlir::TypeRange argTypes) {
  auto module = at->getParentOfType<mlir::ModuleOp>();
  if (auto f = module.lookupSymbol<mlir::func::FuncOp>(name))
    return f;
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto f = mlir::func::FuncOp::create(b, module.getLoc(), name,
                                      b.getFunctionType(argTypes, {}));
  f.setPrivate();
  return f;
}

/// Reshapes a statically shaped tensor to `shape` (same element count)
/// through a rank-1 collapse and an expand.
inline mlir::Value reshapeTo(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value v, llvm::ArrayRef<int64_t> shape) {
  auto type = llvm::cast<mlir::RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  auto all = [](int64_t rank) {
    mlir::ReassociationIndices r(rank);
    std::iota(r.begin(), r.end(), 0);
    return llvm::SmallVector<mlir::ReassociationIndices>{r};
  };
  mlir::Value flat = v;
  if (type.getRank() != 1)
    flat = mlir::tensor::CollapseShapeOp::create(b, loc, flat,
                                                 all(type.getRank()));
  if (shape.size() == 1)
    return flat;
  return mlir::tensor::ExpandShapeOp::create(
      b, loc, mlir::RankedTensorType::get(shape, type.getElementType()), flat,
      all(shape.size()));
}

/// A statically shaped tensor as a kernel's (read-only) rank-1 buffer.
inline mlir::Value kernelInput(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value tensor) {
  auto type = llvm::cast<mlir::RankedTensorType>(tensor.getType());
  int64_t n = product(type.getShape());
  mlir::Value flat = reshapeTo(b, loc, tensor, {n});
  auto viewType = mlir::MemRefType::get(
      {n}, type.getElementType(),
      mlir::StridedLayoutAttr::get(b.getContext(), mlir::ShapedType::kDynamic,
                                   {1}));
  mlir::Value buf = mlir::bufferization::ToBufferOp::create(
      b, loc, viewType, flat, /*read_only=*/true);
  return mlir::memref::CastOp::create(
      b, loc, kernelBufferType(type.getElementType()), buf);
}

/// A fresh output buffer for a kernel: the allocation and the rank-1 view
/// of it to pass.
struct KernelOutput {
  mlir::Value alloc;
  mlir::Value buffer;
};
inline KernelOutput kernelOutput(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::RankedTensorType type) {
  int64_t n = product(type.getShape());
  auto allocType = mlir::MemRefType::get({n}, type.getElementType());
  mlir::Value alloc =
      mlir::memref::AllocOp::create(b, loc, allocType, b.getI64IntegerAttr(64));
  mlir::Value buffer = mlir::memref::CastOp::create(
      b, loc, kernelBufferType(type.getElementType()), alloc);
  return {alloc, buffer};
}

/// Emits `func.call @name(buffers..., ints...)` (declaring @name), then
/// returns what the kernel wrote into `output` as a tensor of `resultType`.
inline mlir::Value
callKernel(mlir::OpBuilder &b, mlir::Operation *op, llvm::StringRef name,
           llvm::ArrayRef<mlir::Value> buffers, llvm::ArrayRef<int64_t> ints,
           const KernelOutput &output, mlir::RankedTensorType resultType) {
  mlir::Location loc = op->getLoc();
  llvm::SmallVector<mlir::Value> args(buffers.begin(), buffers.end());
  llvm::SmallDenseMap<int64_t, mlir::Value> constants;
  for (int64_t v : ints) {
    mlir::Value &c = constants[v];
    if (!c)
      c = mlir::arith::ConstantIntOp::create(b, loc, v, 64);
    args.push_back(c);
  }
  llvm::SmallVector<mlir::Type> types;
  for (mlir::Value v : args)
    types.push_back(v.getType());
  mlir::func::FuncOp callee = declareKernel(b, op, name, types);
  mlir::func::CallOp::create(b, loc, callee, args);
  auto allocType = llvm::cast<mlir::MemRefType>(output.alloc.getType());
  mlir::Value flat = mlir::bufferization::ToTensorOp::create(
      b, loc,
      mlir::RankedTensorType::get(allocType.getShape(),
                                  allocType.getElementType()),
      output.alloc, /*restrict=*/true, /*writable=*/true);
  return reshapeTo(b, loc, flat, resultType.getShape());
}

/// A zero (or `value`) constant of a float type.
inline mlir::Value floatConst(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Type type, double value) {
  return mlir::arith::ConstantOp::create(b, loc, type,
                                         b.getFloatAttr(type, value));
}

/// `tensor.empty` of `shape` filled with `value`.
inline mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                                llvm::ArrayRef<int64_t> shape,
                                mlir::Type elementType, mlir::Value value) {
  mlir::Value empty = mlir::tensor::EmptyOp::create(b, loc, shape, elementType);
  return mlir::linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

/// `init[..., m, n] += op(a)[..., m, k] * op(b)[..., k, n]` as a
/// linalg.generic over rank-2 operands, or rank-3 with a leading batch
/// dimension; `transA` reads a as [..., k, m], `transB` reads b as
/// [..., n, k].
inline mlir::Value buildMatmul(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value lhs, mlir::Value rhs,
                               mlir::Value init, bool transA, bool transB) {
  using namespace mlir;
  auto initType = cast<RankedTensorType>(init.getType());
  bool batched = initType.getRank() == 3;
  unsigned nd = batched ? 4 : 3;
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> prefix;
  if (batched)
    prefix.push_back(getAffineDimExpr(0, ctx));
  unsigned o = batched ? 1 : 0;
  AffineExpr m = getAffineDimExpr(o, ctx), n = getAffineDimExpr(o + 1, ctx),
             k = getAffineDimExpr(o + 2, ctx);
  auto map = [&](AffineExpr x, AffineExpr y) {
    SmallVector<AffineExpr> r(prefix);
    r.push_back(x);
    r.push_back(y);
    return AffineMap::get(nd, 0, r, ctx);
  };
  SmallVector<AffineMap> maps{transA ? map(k, m) : map(m, k),
                              transB ? map(n, k) : map(k, n), map(m, n)};
  SmallVector<utils::IteratorType> iters(nd - 1, utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, initType, ValueRange{lhs, rhs}, ValueRange{init}, maps,
             iters,
             [](OpBuilder &nb, Location nl, ValueRange args) {
               Value p = arith::MulFOp::create(nb, nl, args[0], args[1]);
               Value s = arith::AddFOp::create(nb, nl, args[2], p);
               linalg::YieldOp::create(nb, nl, s);
             })
      .getResult(0);
}

/// A tensor of `shape` whose dimension `dim` indexes the rank-1 `vec`
/// (broadcast along every other dimension).
inline mlir::Value broadcastAlong(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value vec,
                                  llvm::ArrayRef<int64_t> shape, int64_t dim) {
  using namespace mlir;
  auto vecType = cast<RankedTensorType>(vec.getType());
  Value empty =
      tensor::EmptyOp::create(b, loc, shape, vecType.getElementType());
  unsigned rank = shape.size();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps{
      AffineMap::get(rank, 0, getAffineDimExpr(dim, ctx), ctx),
      AffineMap::getMultiDimIdentityMap(rank, ctx)};
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, empty.getType(), ValueRange{vec}, ValueRange{empty}, maps,
             iters,
             [](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, args[0]);
             })
      .getResult(0);
}

} // namespace mxc::conversion

#endif // MXC_LIB_CONVERSION_MXTOLINALG_KERNELCALLS_H
