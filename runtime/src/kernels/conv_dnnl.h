//===- conv_dnnl.h - f32 2-D convolution through oneDNN ---------*- C++ -*-===//
//
// The forward convolution of mxc_kernel_conv_f32 (gemm.cc) on oneDNN's
// direct kernels where the runtime is built with oneDNN (MXC_RUNTIME_DNNL,
// x86-64 hosts with libdnnl-dev); elsewhere, for f64, 3-D convolutions, or
// with MXC_CONV_IMPL=im2col in the environment, gemm.cc's im2col + GEMM.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_RUNTIME_SRC_KERNELS_CONV_DNNL_H
#define MXC_RUNTIME_SRC_KERNELS_CONV_DNNL_H

#include <cstdint>

namespace mxc::kernels {

/// A 2-D NCHW convolution with groups; dilations as MXNet's (1: none).
struct ConvArgs {
  int64_t batch, channels, filters, groups;
  bool hasBias;
  int64_t inH, inW, kH, kW, outH, outW, sH, sW, pH, pW, dH, dW;
  // The epilogue of mxc_kernel_conv_fused (forward only):
  //   y = act((conv(x, w) + bias) * scale + shift) [+ y's previous contents]
  // with per-filter scale / shift, act 0 (none), 1 (relu) or 2 (clip to
  // [actLo, actHi]); `sum` adds what y held before the call.
  // With actAfterSum (kernels.h's flag 128) the activation follows the sum:
  //   y = act((conv(x, w) + bias) * scale + shift + y).
  bool hasScale = false, hasShift = false, sum = false, actAfterSum = false;
  int act = 0;
  float actLo = 0, actHi = 0;
  // The weights hold the same values at the same address on every call
  // (mx.Convolution_fused's `constant_weights`): their re-laid (and scaled)
  // copy is kept from one call to the next (forward only).
  bool constWeights = false;
  // x / y (and the sum y holds) in the blocked channel layout of
  // conv_epilogue.h's convChannelBlock() (kernels.h's flags 32 / 64), the
  // layout oneDNN's direct kernels compute on: no re-layout for them
  // (forward only).
  bool blockedX = false, blockedY = false;
  bool hasEpilogue() const { return hasScale || hasShift || sum || act; }
};

/// Drops the kept copies of constant weights (an AOT model's destruction:
/// its weights' memory may next hold another model's). Copies in use stay
/// alive until their call returns.
void releaseConstantWeights();

/// y = conv(x, w) + bias, then the epilogue `args` asks for (scale and
/// shift are read when it has them), as oneDNN post-ops; false (nothing
/// written) when oneDNN is not used for it, and the caller computes it
/// another way. Throws std::bad_alloc when its scratch buffers cannot be
/// allocated.
bool convDnnl(const float *x, const float *w, const float *bias, float *y,
              const ConvArgs &args, const float *scale = nullptr,
              const float *shift = nullptr);

/// The gradients (conv_backward.cc's contract): dx from w and dy, and dw from
/// x and dy, each overwritten; false (nothing written) when oneDNN is not
/// used for them. `hasBias` is ignored.
bool convBackwardDataDnnl(const float *w, const float *dy, float *dx,
                          const ConvArgs &args);
bool convBackwardWeightDnnl(const float *x, const float *dy, float *dw,
                            const ConvArgs &args);

} // namespace mxc::kernels

#endif // MXC_RUNTIME_SRC_KERNELS_CONV_DNNL_H
