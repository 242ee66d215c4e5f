//===- Backward.cpp - mx -> linalg: backward ops of layers ----------------===//
//
// The ops of MXBackwardOps.td become `mxrt.kernel_call`s of the runtime's
// gradient kernels (runtime/src/kernels/{conv,pooling,lrn}_backward.cc,
// declared in kernels.h) for f32 / f64 with static shapes:
//   Convolution_backward_data   mxc_kernel_conv_backward_data_<T>(w, dy)
//   Convolution_backward_weight mxc_kernel_conv_backward_weight_<T>(x, dy)
//     both with a second destination, the im2col workspace
//     (C/G * prod(kernel) * prod(out) elements; one for pointwise
//     convolutions, which need none), so that the scratch is a planned
//     intermediate and the kernels allocate nothing;
//   Pooling_backward            mxc_kernel_pooling_backward_<T>(dy, x, y)
//   LRN_backward                mxc_kernel_lrn_backward_<T>(dy, x, tmp_norm, y)
//     (the CPU kernel reads tmp_norm, cuDNN's y; for the CUDA target what
//     cuDNN's LRN cannot take, a > 16 window, ..., calls
//     mxc_kernel_lrn_backward_host_<T>, the CPU kernel on host copies)
//   BatchNorm_train             mxc_kernel_batch_norm_train_<T>(x, gamma, beta)
//     writing y, mean, var, invstd and a channel-sized scratch (the GPU
//     twin's), args (outer, channels, inner, eps's bits)
//   BatchNorm_backward          mxc_kernel_batch_norm_backward_<T>(dy, x,
//     gamma, mean, invstd) writing dx, dgamma, dbeta, args as the forward's
// Spatial geometry is passed 3-D (1-D and 2-D get leading unit extents), as
// for the forward convolution kernel. For the CUDA target (whose twins are
// cuDNN's), pooling gradients cuDNN cannot compute (lp pooling, padding as
// wide as the window, pooling_convention 'full') call
// mxc_kernel_pooling_backward_host_<T> (the CPU kernel on host copies, the
// GPU twin of host_kernels.cc). Other element types, dynamic shapes,
// channel-last layouts and modules with `mxc.kernel_calls = false` are
// rejected with the reason.
//
//===----------------------------------------------------------------------===//
#include "KernelCalls.h"
#include "Patterns.h"

#include "mxc/Dialect/MX/IR/MXOps.h"

#include <cstring>

using namespace mlir;
using namespace mxc::conversion;
namespace mx = mxc::mx;

namespace {

/// Why a backward op cannot become a kernel call, or success.
LogicalResult checkKernelCall(ConversionPatternRewriter &rewriter,
                              Operation *op, Type elt) {
  if (!hasStaticShapes(op))
    return unsupported(rewriter, op, "dynamic shapes are not supported");
  if (!elt.isF32() && !elt.isF64())
    return unsupported(rewriter, op,
                       "only float32 and float64 gradients are supported");
  if (!useKernelCalls(op, elt))
    return unsupported(rewriter, op,
                       "needs the runtime's kernels (the module sets "
                       "mxc.kernel_calls = false)");
  return success();
}

/// `v` (1, 2 or 3 entries, or empty for all `fill`) as 3 entries with
/// leading `fill`s.
SmallVector<int64_t> as3(ArrayRef<int64_t> v, int64_t n, int64_t fill) {
  SmallVector<int64_t> r(3 - n, fill);
  if (v.empty())
    r.append(n, fill);
  else
    r.append(v.begin(), v.begin() + std::min<size_t>(n, v.size()));
  return r;
}

/// The static arguments of the convolution gradient kernels: batch,
/// channels, filters, groups, then in, kernel, out, stride, pad, dilate as
/// 3-D triples; `pointwise` tells whether no workspace is needed.
template <typename OpTy>
SmallVector<int64_t> convArgs(OpTy op, RankedTensorType data,
                              RankedTensorType outGrad, bool &pointwise,
                              int64_t &workspace) {
  int64_t n = op.getKernel().size();
  int64_t groups = static_cast<int64_t>(op.getNumGroup());
  SmallVector<int64_t> args{data.getDimSize(0), data.getDimSize(1),
                            static_cast<int64_t>(op.getNumFilter()), groups};
  SmallVector<int64_t> kernel = as3(op.getKernel(), n, 1);
  SmallVector<int64_t> stride = as3(op.getStride(), n, 1);
  SmallVector<int64_t> pad = as3(op.getPad(), n, 0);
  llvm::append_range(args, as3(data.getShape().drop_front(2), n, 1));
  llvm::append_range(args, kernel);
  llvm::append_range(args, as3(outGrad.getShape().drop_front(2), n, 1));
  llvm::append_range(args, stride);
  llvm::append_range(args, pad);
  llvm::append_range(args, as3(op.getDilate(), n, 1));
  pointwise = product(kernel) == 1 &&
              llvm::all_of(stride, [](int64_t s) { return s == 1; }) &&
              llvm::all_of(pad, [](int64_t p) { return p == 0; });
  workspace = pointwise ? 1
                        : data.getDimSize(1) / groups * product(kernel) *
                              product(outGrad.getShape().drop_front(2));
  // The CUDA target's twins are cuDNN's, which use the planned workspace
  // where their algorithm fits it (cudaConvWorkspaceElements).
  if (forCudaTarget(op))
    workspace = cudaConvWorkspaceElements(
        data.getDimSize(1) / groups, kernel, outGrad.getShape().drop_front(2),
        data.getElementType().getIntOrFloatBitWidth() / 8);
  return args;
}

struct ConvertConvolutionBackwardData
    : OpConversionPattern<mx::ConvolutionBackwardDataOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::ConvolutionBackwardDataOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elt = resultType.getElementType();
    if (failed(checkKernelCall(rewriter, op, elt)))
      return failure();
    auto outGrad = cast<RankedTensorType>(adaptor.getOutGrad().getType());
    bool pointwise;
    int64_t workspace;
    SmallVector<int64_t> args =
        convArgs(op, resultType, outGrad, pointwise, workspace);
    Value result = callKernelWithWorkspace(
        rewriter, op, "mxc_kernel_conv_backward_data_" + kernelSuffix(elt),
        {adaptor.getWeight(), adaptor.getOutGrad()}, args, resultType,
        {{workspace}});
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertConvolutionBackwardWeight
    : OpConversionPattern<mx::ConvolutionBackwardWeightOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::ConvolutionBackwardWeightOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elt = resultType.getElementType();
    if (failed(checkKernelCall(rewriter, op, elt)))
      return failure();
    auto data = cast<RankedTensorType>(adaptor.getData().getType());
    auto outGrad = cast<RankedTensorType>(adaptor.getOutGrad().getType());
    bool pointwise;
    int64_t workspace;
    SmallVector<int64_t> args =
        convArgs(op, data, outGrad, pointwise, workspace);
    Value result = callKernelWithWorkspace(
        rewriter, op, "mxc_kernel_conv_backward_weight_" + kernelSuffix(elt),
        {adaptor.getData(), adaptor.getOutGrad()}, args, resultType,
        {{workspace}});
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertPoolingBackward : OpConversionPattern<mx::PoolingBackwardOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::PoolingBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elt = resultType.getElementType();
    if (failed(checkKernelCall(rewriter, op, elt)))
      return failure();
    if (auto layout = op.getLayout();
        layout && (*layout == "NWC" || *layout == "NHWC" || *layout == "NDHWC"))
      return unsupported(rewriter, op,
                         "layout " + *layout +
                             " (channel-last) is not supported");
    StringRef type = op.getPoolType();
    int64_t kind = type == "max"   ? 0
                   : type == "avg" ? 1
                   : type == "sum" ? 2
                                   : 3;
    int64_t p = op.getPValue().value_or(1);
    if (kind == 3 && p < 1)
      return unsupported(
          rewriter, op, "p_value must be >= 1 for lp pooling, got " + Twine(p));
    auto outType = cast<RankedTensorType>(adaptor.getOutGrad().getType());
    ArrayRef<int64_t> in = resultType.getShape().drop_front(2);
    ArrayRef<int64_t> out = outType.getShape().drop_front(2);
    int64_t n = in.size();
    SmallVector<int64_t> kernel, stride, pad;
    if (op.getGlobalPool()) {
      kernel.assign(in.begin(), in.end());
      stride.assign(n, 1);
      pad.assign(n, 0);
    } else {
      kernel.assign(op.getKernel().begin(), op.getKernel().end());
      stride = op.getStride().empty() ? SmallVector<int64_t>(n, 1)
                                      : SmallVector<int64_t>(op.getStride());
      pad = op.getPad().empty() ? SmallVector<int64_t>(n, 0)
                                : SmallVector<int64_t>(op.getPad().take_front(n));
    }
    // The CUDA target's twin is cuDNN's pooling gradient: max, avg and sum
    // (avg's gradient scaled), windows whose output size is cuDNN's
    // floor((in + 2 pad - k) / stride) + 1 (not pooling_convention 'full')
    // with the padding inside the window.
    // What it cannot take runs the CPU's kernel on host copies there
    // (`_host`: runtime/src/cuda/host_kernels.cc).
    const char *callee = "mxc_kernel_pooling_backward_";
    if (forCudaTarget(op) &&
        !poolingNotTakenByCudnn(kind, in, kernel, out, stride, pad).empty())
      callee = "mxc_kernel_pooling_backward_host_";
    SmallVector<int64_t> args = poolingKernelArgs(
        kind, p, op.getCountIncludePad().value_or(true),
        resultType.getDimSize(0) * resultType.getDimSize(1), in, kernel, out, stride, pad);
    Value result = callKernel(
        rewriter, op, callee + kernelSuffix(elt),
        {adaptor.getOutGrad(), adaptor.getData(), adaptor.getOutput()}, args,
        resultType);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertLRNBackward : OpConversionPattern<mx::LRNBackwardOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::LRNBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elt = resultType.getElementType();
    if (failed(checkKernelCall(rewriter, op, elt)))
      return failure();
    int64_t nsize = static_cast<int64_t>(op.getNsize());
    double alpha = op.getAlpha().convertToDouble(),
           beta = op.getBeta().convertToDouble(),
           knorm = op.getKnorm().convertToDouble();
    // The CUDA target's twin is cuDNN's LRN gradient; parameters cuDNN does
    // not take (lrnNotTakenByCudnn; the forward then ran as generated
    // kernels, which write tmp_norm) call mxc_kernel_lrn_backward_host_<T>,
    // the CPU's kernel on host copies (runtime/src/cuda/host_kernels.cc).
    const char *callee = "mxc_kernel_lrn_backward_";
    if (forCudaTarget(op) && !lrnNotTakenByCudnn(nsize, beta, knorm).empty())
      callee = "mxc_kernel_lrn_backward_host_";
    ArrayRef<int64_t> shape = resultType.getShape();
    SmallVector<int64_t> args{shape[0],         shape[1],   product(shape.drop_front(2)),
                              nsize,            doubleParamBits(alpha), doubleParamBits(beta),
                              doubleParamBits(knorm)};
    Value result = callKernel(
        rewriter, op, callee + kernelSuffix(elt),
        {adaptor.getOutGrad(), adaptor.getData(), adaptor.getTmpNorm(),
         adaptor.getOutput()},
        args, resultType);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// (outer, channels, inner) of data whose channel axis is `axis`, then
/// eps's bits: the static arguments of the batch norm kernels.
SmallVector<int64_t> batchNormArgs(RankedTensorType data, int64_t axis,
                                   double eps) {
  if (axis < 0)
    axis += data.getRank();
  ArrayRef<int64_t> shape = data.getShape();
  return {product(shape.take_front(axis)), shape[axis],
          product(shape.drop_front(axis + 1)), doubleParamBits(eps)};
}

/// `mxrt.kernel_call @name(inputs) outs(...)` writing one destination a
/// result of `op` (the first a tensor.empty, the others alloc_tensors, which
/// CSE leaves apart) and `scratch` further ones; replaces `op`'s results.
void replaceByMultiResultCall(ConversionPatternRewriter &rewriter,
                              Operation *op, StringRef name, ValueRange inputs,
                              ArrayRef<int64_t> args,
                              ArrayRef<RankedTensorType> scratch) {
  Location loc = op->getLoc();
  SmallVector<Value> inits;
  for (Type t : op->getResultTypes()) {
    auto type = cast<RankedTensorType>(t);
    if (inits.empty())
      inits.push_back(tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                              type.getElementType()));
    else
      inits.push_back(bufferization::AllocTensorOp::create(rewriter, loc, type,
                                                           ValueRange()));
  }
  for (RankedTensorType type : scratch)
    inits.push_back(
        bufferization::AllocTensorOp::create(rewriter, loc, type, ValueRange()));
  auto call =
      mxc::mxrt::KernelCallOp::create(rewriter, loc, name, inputs, inits, args);
  rewriter.replaceOp(op, call.getOutputs().take_front(op->getNumResults()));
}

struct ConvertBatchNormTrain : OpConversionPattern<mx::BatchNormTrainOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::BatchNormTrainOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto data = cast<RankedTensorType>(op.getData().getType());
    Type elt = data.getElementType();
    if (failed(checkKernelCall(rewriter, op, elt)))
      return failure();
    auto channel = cast<RankedTensorType>(op.getMean().getType());
    // The scratch: cuDNN's running mean, which the GPU twin needs to get
    // the batch variance (runtime/src/cuda/cudnn_kernels.cc).
    replaceByMultiResultCall(
        rewriter, op, "mxc_kernel_batch_norm_train_" + kernelSuffix(elt),
        {adaptor.getData(), adaptor.getGamma(), adaptor.getBeta()},
        batchNormArgs(data, static_cast<int64_t>(op.getAxis()),
                      op.getEps().convertToDouble()),
        {channel});
    return success();
  }
};

struct ConvertBatchNormBackward : OpConversionPattern<mx::BatchNormBackwardOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::BatchNormBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto data = cast<RankedTensorType>(op.getData().getType());
    Type elt = data.getElementType();
    if (failed(checkKernelCall(rewriter, op, elt)))
      return failure();
    replaceByMultiResultCall(
        rewriter, op, "mxc_kernel_batch_norm_backward_" + kernelSuffix(elt),
        {adaptor.getOutGrad(), adaptor.getData(), adaptor.getGamma(),
         adaptor.getMean(), adaptor.getInvstd()},
        batchNormArgs(data, static_cast<int64_t>(op.getAxis()),
                      op.getEps().convertToDouble()),
        {});
    return success();
  }
};

} // namespace

void mxc::conversion::populateBackwardPatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  target.addIllegalOp<mx::ConvolutionBackwardDataOp,
                      mx::ConvolutionBackwardWeightOp, mx::PoolingBackwardOp,
                      mx::LRNBackwardOp, mx::BatchNormTrainOp,
                      mx::BatchNormBackwardOp>();
  patterns.add<ConvertConvolutionBackwardData, ConvertConvolutionBackwardWeight,
               ConvertPoolingBackward, ConvertLRNBackward,
               ConvertBatchNormTrain, ConvertBatchNormBackward>(
      typeConverter, patterns.getContext());
}
