//===- Linear.cpp - mx -> linalg: FullyConnected, dot, batch_dot ----------===//
//
// All three are one GEMM (or a batch of them) on 2-D views of their operands,
// taken exactly as MXNet takes them (src/operator/nn/fully_connected-inl.h,
// src/operator/tensor/dot-inl.h DotForward_ / BatchDotForward_). f32 / f64
// call the runtime's OpenBLAS kernels (KernelCalls.h); other float types get
// a linalg.generic contraction.
//
//===----------------------------------------------------------------------===//
#include "KernelCalls.h"
#include "Patterns.h"

#include "mxc/Dialect/MX/IR/MXOps.h"

using namespace mlir;
using namespace mxc::conversion;
namespace mx = mxc::mx;

namespace {

/// The GEMM an op denotes: `batch` products of (m x k) by (k x n), operands
/// stored as given by the transposition flags.
struct GemmShape {
  int64_t batch = 1, m, n, k;
  bool transA = false, transB = false;
};

/// Lowers the GEMM to the generic contraction: operands reshaped to their
/// (batch x) 2-D storage shapes, `init` the (batch x) m x n accumulator.
static Value genericGemm(OpBuilder &b, Location loc, Value lhs, Value rhs,
                         Value init, const GemmShape &g, bool batched) {
  SmallVector<int64_t> aShape, bShape;
  if (batched) {
    aShape.push_back(g.batch);
    bShape.push_back(g.batch);
  }
  aShape.append(g.transA ? SmallVector<int64_t>{g.k, g.m}
                         : SmallVector<int64_t>{g.m, g.k});
  bShape.append(g.transB ? SmallVector<int64_t>{g.n, g.k}
                         : SmallVector<int64_t>{g.k, g.n});
  return buildMatmul(b, loc, reshapeTo(b, loc, lhs, aShape),
                     reshapeTo(b, loc, rhs, bShape), init, g.transA, g.transB);
}

/// dot and batch_dot: `lhs` times `rhs` as the GEMM `g`.
static Value lowerProduct(ConversionPatternRewriter &rewriter, Operation *op,
                          Value lhs, Value rhs, const GemmShape &g,
                          bool batched) {
  Location loc = op->getLoc();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Type elt = resultType.getElementType();
  if (useKernelCalls(op, elt)) {
    return callKernel(rewriter, op, "mxc_kernel_gemm_" + kernelSuffix(elt),
                      {lhs, rhs}, {g.batch, g.m, g.n, g.k, g.transA, g.transB},
                      resultType);
  }
  SmallVector<int64_t> cShape;
  if (batched)
    cShape.push_back(g.batch);
  cShape.append({g.m, g.n});
  Value init = filledTensor(rewriter, loc, cShape, elt,
                            floatConst(rewriter, loc, elt, 0));
  Value c = genericGemm(rewriter, loc, lhs, rhs, init, g, batched);
  return reshapeTo(rewriter, loc, c, resultType.getShape());
}

struct ConvertFullyConnected : OpConversionPattern<mx::FullyConnectedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::FullyConnectedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return unsupported(rewriter, op, "dynamic shapes are not supported");
    Location loc = op.getLoc();
    auto dataType = cast<RankedTensorType>(adaptor.getData().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elt = resultType.getElementType();
    ArrayRef<int64_t> in = dataType.getShape();
    // flatten: (N, rest...) -> N x prod(rest); otherwise the last axis is
    // contracted and the leading ones are the rows.
    int64_t k = op.getFlatten() ? product(in.drop_front()) : in.back();
    int64_t m = op.getFlatten() ? in[0] : product(in.drop_back());
    int64_t n = static_cast<int64_t>(op.getNumHidden());
    Value bias = adaptor.getBias();

    Value result;
    if (useKernelCalls(op, elt)) {
      Value w = adaptor.getWeight();
      // Without a bias the kernel ignores its bias buffer: pass the weight.
      result = callKernel(rewriter, op,
                          "mxc_kernel_fully_connected_" + kernelSuffix(elt),
                          {adaptor.getData(), w, bias ? bias : w},
                          {m, n, k, bias ? 1 : 0}, resultType);
    } else {
      Value init;
      if (bias)
        init = broadcastAlong(rewriter, loc,
                              reshapeTo(rewriter, loc, bias, {n}), {m, n}, 1);
      else
        init = filledTensor(rewriter, loc, {m, n}, elt,
                            floatConst(rewriter, loc, elt, 0));
      GemmShape g{1, m, n, k, /*transA=*/false, /*transB=*/true};
      Value c = genericGemm(rewriter, loc, adaptor.getData(),
                            adaptor.getWeight(), init, g, /*batched=*/false);
      result = reshapeTo(rewriter, loc, c, resultType.getShape());
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertDot : OpConversionPattern<mx::DotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return unsupported(rewriter, op, "dynamic shapes are not supported");
    if (auto stype = op.getForwardStype(); stype && *stype != "default")
      return unsupported(rewriter, op,
                         "forward_stype '" + *stype +
                             "' (sparse storage) is not supported");
    ArrayRef<int64_t> a =
        cast<RankedTensorType>(adaptor.getLhs().getType()).getShape();
    ArrayRef<int64_t> b =
        cast<RankedTensorType>(adaptor.getRhs().getType()).getShape();
    // MXNet's 2-D views: lhs is (rest, last) or, transposed, (first, rest);
    // rhs is (first, rest) or, transposed, (rest, last).
    GemmShape g;
    g.transA = op.getTransposeA();
    g.transB = op.getTransposeB();
    g.k = g.transA ? a.front() : a.back();
    g.m = product(g.transA ? a.drop_front() : a.drop_back());
    g.n = product(g.transB ? b.drop_back() : b.drop_front());
    rewriter.replaceOp(op, lowerProduct(rewriter, op, adaptor.getLhs(),
                                        adaptor.getRhs(), g,
                                        /*batched=*/false));
    return success();
  }
};

struct ConvertBatchDot : OpConversionPattern<mx::BatchDotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::BatchDotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return unsupported(rewriter, op, "dynamic shapes are not supported");
    if (auto stype = op.getForwardStype(); stype && *stype != "default")
      return unsupported(rewriter, op,
                         "forward_stype '" + *stype +
                             "' (sparse storage) is not supported");
    ArrayRef<int64_t> a =
        cast<RankedTensorType>(adaptor.getLhs().getType()).getShape();
    ArrayRef<int64_t> b =
        cast<RankedTensorType>(adaptor.getRhs().getType()).getShape();
    size_t r = a.size();
    GemmShape g;
    g.transA = op.getTransposeA();
    g.transB = op.getTransposeB();
    g.batch = product(a.drop_back(2));
    g.m = g.transA ? a[r - 1] : a[r - 2];
    g.k = g.transA ? a[r - 2] : a[r - 1];
    g.n = g.transB ? b[r - 2] : b[r - 1];
    rewriter.replaceOp(op, lowerProduct(rewriter, op, adaptor.getLhs(),
                                        adaptor.getRhs(), g,
                                        /*batched=*/true));
    return success();
  }
};

} // namespace

void mxc::conversion::populateLinearPatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  target.addIllegalOp<mx::FullyConnectedOp, mx::DotOp, mx::BatchDotOp>();
  patterns.add<ConvertFullyConnected, ConvertDot, ConvertBatchDot>(
      typeConverter, patterns.getContext());
}
