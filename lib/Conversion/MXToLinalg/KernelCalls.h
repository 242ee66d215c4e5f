//===- KernelCalls.h - calls into the runtime's kernel ABI ------*- C++ -*-===//
//
// Helpers shared by the GEMM-class families (Linear.cpp, Conv.cpp) and the
// other nn families (Pooling.cpp, Normalization.cpp).
//
// GEMM-class ops on f32 / f64 with static shapes become an
// `mxrt.kernel_call` of a C function of the runtime
// (runtime/src/kernels/kernels.h, OpenBLAS behind it) on tensors, in
// destination-passing style: the inputs keep their shapes, the destination is
// a `tensor.empty` of the result type. One-shot bufferization then sees the
// reads and the write at the call itself, so CSE and other passes may move or
// merge the producers freely; `mxrt-lower-kernel-calls` turns the bufferized
// call into a `func.call` on rank-1 views after bufferization.
//
// A module carrying `mxc.kernel_calls = false` gets generated linalg for
// these ops instead (used to measure codegen against the library, and for
// targets without the runtime's kernels).
//
//===----------------------------------------------------------------------===//
#ifndef MXC_LIB_CONVERSION_MXTOLINALG_KERNELCALLS_H
#define MXC_LIB_CONVERSION_MXTOLINALG_KERNELCALLS_H

#include "Patterns.h"
#include "mxc/Conversion/Passes.h"
#include "mxc/Dialect/MXRT/IR/MXRTOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cstring>
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

inline int64_t product(llvm::ArrayRef<int64_t> dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

/// Whether `op` is in a module compiled for the CUDA target (kCudaTargetAttr).
inline bool forCudaTarget(mlir::Operation *op) {
  auto module = op->getParentOfType<mlir::ModuleOp>();
  return module && module->hasAttr(kCudaTargetAttr);
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

/// Why cuDNN's cross-channel LRN (the CUDA target's LRN kernels) cannot
/// compute MXNet's LRN with these parameters, or "" when it can: its window
/// is MXNet's only for odd sizes, and it takes 1 to 16 channels,
/// knorm >= 1e-5 and beta >= 0.01 (cudnn_ops.h's CUDNN_LRN_* limits).
inline std::string lrnNotTakenByCudnn(int64_t nsize, double beta, double knorm) {
  if (nsize % 2 == 0)
    return "nsize " + std::to_string(nsize) +
           " is even (cuDNN centres its window otherwise than MXNet)";
  if (nsize > 16)
    return "nsize " + std::to_string(nsize) + " is above cuDNN's 16";
  if (knorm < 1e-5)
    return "knorm below cuDNN's 1e-5";
  if (beta < 0.01)
    return "beta below cuDNN's 0.01";
  return "";
}

/// `v` (at most 3 entries) as 3 entries with leading `fill`s: the 3-D
/// spatial geometry of the kernels (1-D and 2-D get leading unit extents).
inline llvm::SmallVector<int64_t> leadingFill3(llvm::ArrayRef<int64_t> v,
                                               int64_t fill) {
  llvm::SmallVector<int64_t> r(3 - v.size(), fill);
  r.append(v.begin(), v.end());
  return r;
}

/// Why cuDNN's pooling (the CUDA target's pooling kernels, forward and
/// gradient) cannot compute these windows, or "" when it can: kind 0 max,
/// 1 avg, 2 sum, 3 lp (which cuDNN has not); the padding must be narrower
/// than the window and the output size cuDNN's floor formula (not
/// pooling_convention 'full').
inline std::string poolingNotTakenByCudnn(int64_t kind, llvm::ArrayRef<int64_t> in,
                                          llvm::ArrayRef<int64_t> kernel,
                                          llvm::ArrayRef<int64_t> out,
                                          llvm::ArrayRef<int64_t> stride,
                                          llvm::ArrayRef<int64_t> pad) {
  if (kind == 3)
    return "lp pooling has no GPU gradient (cuDNN pools max, avg and sum)";
  for (size_t d = 0; d < in.size(); ++d) {
    if (pad[d] >= kernel[d])
      return "padding " + std::to_string(pad[d]) + " is not smaller than the window " +
             std::to_string(kernel[d]) + " (cuDNN needs it)";
    int64_t floorOut = (in[d] + 2 * pad[d] - kernel[d]) / stride[d] + 1;
    if (out[d] != floorOut)
      return "the output size " + std::to_string(out[d]) +
             " is not cuDNN's floor((in + 2 pad - kernel) / stride) + 1 = " +
             std::to_string(floorOut) + " (pooling_convention 'full')";
  }
  return "";
}

/// The static arguments of the pooling kernels (kernels.h's
/// mxc_kernel_pooling_backward_<T>; the CUDA target's forward takes the
/// same): kind, p_value, count_include_pad, planes (batch * channels), then
/// in, kernel, out, stride, pad as 3-D triples.
inline llvm::SmallVector<int64_t>
poolingKernelArgs(int64_t kind, int64_t p, bool countIncludePad, int64_t planes,
                  llvm::ArrayRef<int64_t> in, llvm::ArrayRef<int64_t> kernel,
                  llvm::ArrayRef<int64_t> out, llvm::ArrayRef<int64_t> stride,
                  llvm::ArrayRef<int64_t> pad) {
  llvm::SmallVector<int64_t> args{kind, p, countIncludePad, planes};
  for (llvm::ArrayRef<int64_t> v : {in, kernel, out, stride})
    llvm::append_range(args, leadingFill3(v, 1));
  llvm::append_range(args, leadingFill3(pad, 0));
  return args;
}

/// The workspace, in elements of `elementBytes` bytes, that the CUDA
/// target plans for a convolution (forward or gradient) with `channels`
/// input channels a group, `kernel` windows and `out` positions: one image's
/// im2col (the CPU gradient kernels' size), at most 256 MiB, at least one
/// element. A planned buffer of the device arena, which memory planning
/// shares between the convolutions; cuDNN's kernels use it when the
/// algorithm they choose fits it, else the thread's own workspace
/// (cudnn_kernels.cc). (The whole batch's im2col, which cuDNN's explicit
/// GEMM algorithm would fit, grew ResNet-50's arena at batch 64 by 3.5 GB.)
inline int64_t cudaConvWorkspaceElements(int64_t channels,
                                         llvm::ArrayRef<int64_t> kernel,
                                         llvm::ArrayRef<int64_t> out,
                                         int64_t elementBytes) {
  int64_t n = channels;
  for (int64_t v : kernel)
    n *= v;
  for (int64_t v : out)
    n *= v;
  return std::max<int64_t>(1, std::min<int64_t>(n, (int64_t(1) << 28) / elementBytes));
}

/// "f32" / "f64": the suffix of a kernel's name.
inline std::string kernelSuffix(mlir::Type elementType) {
  return elementType.isF64() ? "f64" : "f32";
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

/// `mxrt.kernel_call @name(inputs...) outs(tensor.empty) args [ints...]`:
/// the kernel reads the statically shaped `inputs` and writes a fresh tensor
/// of `resultType`, which is returned.
inline mlir::Value callKernel(mlir::OpBuilder &b, mlir::Operation *op,
                              llvm::StringRef name,
                              llvm::ArrayRef<mlir::Value> inputs,
                              llvm::ArrayRef<int64_t> ints,
                              mlir::RankedTensorType resultType) {
  mlir::Location loc = op->getLoc();
  mlir::Value init = mlir::tensor::EmptyOp::create(
      b, loc, resultType.getShape(), resultType.getElementType());
  return mxc::mxrt::KernelCallOp::create(b, loc, name, inputs, init, ints)
      .getResult();
}

/// Like callKernel, plus one scratch destination per entry of
/// `workspaceShapes` (the kernel writes and reads it; its contents afterwards
/// are unspecified and its result unused), so that the scratch is an
/// intermediate buffer of the graph rather than an allocation inside the
/// kernel. The scratch is a `bufferization.alloc_tensor`, not a
/// `tensor.empty`: CSE would merge equal `tensor.empty`s of several calls
/// into one buffer live from the first call to the last, which memory
/// planning could then not reuse in between.
inline mlir::Value callKernelWithWorkspace(
    mlir::OpBuilder &b, mlir::Operation *op, llvm::StringRef name,
    llvm::ArrayRef<mlir::Value> inputs, llvm::ArrayRef<int64_t> ints,
    mlir::RankedTensorType resultType,
    llvm::ArrayRef<llvm::SmallVector<int64_t>> workspaceShapes) {
  mlir::Location loc = op->getLoc();
  llvm::SmallVector<mlir::Value> inits{mlir::tensor::EmptyOp::create(
      b, loc, resultType.getShape(), resultType.getElementType())};
  for (const auto &shape : workspaceShapes)
    inits.push_back(mlir::bufferization::AllocTensorOp::create(
        b, loc, mlir::RankedTensorType::get(shape, resultType.getElementType()),
        mlir::ValueRange()));
  return mxc::mxrt::KernelCallOp::create(b, loc, name, inputs, inits, ints)
      .getResult();
}

/// A double parameter as a kernel's int64_t argument: its IEEE-754 bits
/// (the kernels read them back with memcpy: kernels.h's paramFromBits).
inline int64_t doubleParamBits(double v) {
  int64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

/// MXNet's float parameter as a kernel's int64_t argument: the IEEE-754 bits
/// of the double of that float.
inline int64_t floatParamBits(double v) {
  return doubleParamBits(static_cast<float>(v));
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
