//===- depthwise.h - direct depthwise 2-D convolution on NCHW ---*- C++ -*-===//
//
// Convolutions with one filter per channel (num_group = channels =
// num_filter: MobileNet's 3x3 layers) computed directly on NCHW, row by
// row, with mxc_kernel_conv_fused's epilogue applied to each output row
// while it is in cache: where oneDNN does not run them (f64, the aarch64
// runtime, MXC_CONV_IMPL=im2col), instead of im2col + one small GEMM per
// channel. On x86-64 with oneDNN, its channel-blocked depthwise kernels are
// faster despite their re-layouts: on MobileNet-v2 at batch 1 this loop took
// 0.26-0.62 ms a layer against oneDNN's 0.13-0.36 (narrow rows: 7-56
// outputs, the per-row overhead dominates). depthwise.cc.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_RUNTIME_SRC_KERNELS_DEPTHWISE_H
#define MXC_RUNTIME_SRC_KERNELS_DEPTHWISE_H

#include <cstdint>

namespace mxc::kernels {

struct DepthwiseArgs {
  int64_t batch, channels, inH, inW, kH, kW, outH, outW, sH, sW, pH, pW, dH,
      dW;
  // Epilogue (conv_dnnl.h's ConvArgs): y = act((conv + bias) * scale +
  // shift) [+ y]; null pointers are absent operands.
  const void *bias = nullptr, *scale = nullptr, *shift = nullptr;
  bool sum = false;
  int act = 0;
  double actLo = 0, actHi = 0;
};

/// y (batch, channels, outH, outW) from x (batch, channels, inH, inW) and w
/// (channels, 1, kH, kW), zero padding; on the kernel threads.
void depthwiseConv(const float *x, const float *w, float *y,
                   const DepthwiseArgs &a);
void depthwiseConv(const double *x, const double *w, double *y,
                   const DepthwiseArgs &a);

} // namespace mxc::kernels

#endif // MXC_RUNTIME_SRC_KERNELS_DEPTHWISE_H
