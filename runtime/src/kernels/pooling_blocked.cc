//===- pooling_blocked.cc - 2-D pooling on the blocked channel layout -----===//
//
// mxc_kernel_pooling_f32 (kernels.h): MXNet's CPU max / avg pooling
// (src/operator/nn/pool.h, as lib/Conversion/MXToLinalg/Pooling.cpp lowers
// it) on the blocked channel layout of mxc_kernel_conv_fused_f32
// (conv_epilogue.h), for poolings between fused convolutions
// (mx-propagate-conv-layout). A window's B channels are B consecutive
// floats, so the window loop runs on vectors of B channels; tensors given
// in NCHW are converted around it. Work: (image, channel block) pairs on the
// kernel threads.
//
//===----------------------------------------------------------------------===//
#include "conv_epilogue.h"
#include "conv_range.h"
#include "kernels.h"
#include "parallel.h"

#include "mxc/runtime/plan.h"

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <new>
#include <string>
#include <vector>

#if defined(__x86_64__) && defined(__ELF__) && defined(__clang__)
#define MXC_POOL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define MXC_POOL_CLONES
#endif

namespace {

struct PoolArgs {
  int64_t inH, inW, outH, outW, kH, kW, sH, sW, pH, pW;
  bool avg, countIncludePad;
};

template <int B, bool Avg, int K>
__attribute__((always_inline)) inline void
poolPlane(const float *x, float *y, const PoolArgs &a) {
  // MXNet's divisor of one axis (the clipped window's extent without
  // count_include_pad, as the generated forward: not clamped at 0).
  auto size = [&](const mxc::kernels::PoolWindow &w) {
    return a.countIncludePad ? w.end - w.start : w.hi - w.lo;
  };
  for (int64_t oh = 0; oh < a.outH; ++oh) {
    const auto hw = mxc::kernels::poolWindow(oh, a.kH, a.sH, a.pH, a.inH);
    for (int64_t ow = 0; ow < a.outW; ++ow) {
      const auto ww = mxc::kernels::poolWindow(ow, a.kW, a.sW, a.pW, a.inW);
      float acc[B];
      for (int j = 0; j < B; ++j)
        acc[j] = Avg ? 0.f : -FLT_MAX; // MXNet's initial maximum
      auto add = [&](const float *p) {
        for (int j = 0; j < B; ++j)
          acc[j] = Avg ? acc[j] + p[j] : (p[j] > acc[j] ? p[j] : acc[j]);
      };
      if (K && hw.hi - hw.lo == K && ww.hi - ww.lo == K) {
        // A whole K x K window (K known here: the loops unrolled).
        const float *corner = x + (hw.lo * a.inW + ww.lo) * B;
        for (int r = 0; r < K; ++r)
          for (int c = 0; c < K; ++c)
            add(corner + (r * a.inW + c) * B);
      } else {
        for (int64_t ih = hw.lo; ih < hw.hi; ++ih)
          for (int64_t iw = ww.lo; iw < ww.hi; ++iw)
            add(x + (ih * a.inW + iw) * B);
      }
      float *out = y + (oh * a.outW + ow) * B;
      const float divisor = Avg ? float(size(hw) * size(ww)) : 1.f;
      for (int j = 0; j < B; ++j)
        out[j] = Avg ? acc[j] / divisor : acc[j]; // MXNet divides
    }
  }
}

// One plane (an image's channel block) of `block` channels. The window
// loop on vectors of B channels, a template per operation and for 3 x 3
// windows (whole ones unrolled), inlined into each clone (poolPlane is
// always_inline: called, it ran as the SSE2 default). One thread, against
// the first version: Inception-BN's 64 x 112x112 3x3/2 max pooling 0.161 ->
// 0.139 ms (reading 3.2 MB), 192 x 28x28 3x3/1 avg 0.096 -> 0.061, 576 x
// 14x14 avg 0.066 -> 0.047.
MXC_POOL_CLONES
void poolAnyBlock(const float *x, float *y, const PoolArgs &a, int64_t block) {
  const bool k3 = a.kH == 3 && a.kW == 3; // the common window, unrolled
  if (block == 16) {
    if (k3)
      a.avg ? poolPlane<16, true, 3>(x, y, a) : poolPlane<16, false, 3>(x, y, a);
    else
      a.avg ? poolPlane<16, true, 0>(x, y, a) : poolPlane<16, false, 0>(x, y, a);
  } else {
    if (k3)
      a.avg ? poolPlane<8, true, 3>(x, y, a) : poolPlane<8, false, 3>(x, y, a);
    else
      a.avg ? poolPlane<8, true, 0>(x, y, a) : poolPlane<8, false, 0>(x, y, a);
  }
}

} // namespace

MXC_KERNEL_EXPORT void mxc_kernel_pooling_f32(
    MXC_KERNEL_BUFFER(const float, x), MXC_KERNEL_BUFFER(float, y),
    int64_t batch, int64_t channels, int64_t in_h, int64_t in_w, int64_t out_h,
    int64_t out_w, int64_t k_h, int64_t k_w, int64_t stride_h,
    int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t flags) {
  const float *xp = x + x_offset;
  float *yp = y + y_offset;
  const int64_t block = mxc::kernels::convChannelBlock();
  const bool blockedX = flags & 32, blockedY = flags & 64;
  if (channels % block) {
    mxc::runtime::reportKernelError(
        "Pooling: the channels (" + std::to_string(channels) +
        ") are not a multiple of the channel block " + std::to_string(block));
    return;
  }
  if (batch == 0 || channels == 0 || out_h == 0 || out_w == 0)
    return;
  const PoolArgs a{in_h,     in_w,     out_h, out_w, k_h,        k_w,
                   stride_h, stride_w, pad_h, pad_w, bool(flags & 1),
                   bool(flags & 2)};
  try {
    // Tensors given in NCHW are re-laid a plane (an image's channel block)
    // at a time by the thread that pools it, into its own buffers (each
    // plane's input stays in cache for the pooling; the whole input re-laid
    // first, on one thread, took most of AlexNet's first pooling: 11 ms at
    // batch 16, docs/benchmarks.md).
    const int64_t inPlane = in_h * in_w, outPlane = out_h * out_w;
    const int64_t planes = batch * channels / block;
    std::atomic<bool> noMemory{false};
    mxc::kernels::parallelFor(
        planes, planes * (outPlane * k_h * k_w + inPlane) * block,
        [&](int64_t lo, int64_t hi) {
          thread_local std::vector<float> xPlane, yPlane;
          // A buffer that cannot grow fails the kernel, after the loop: an
          // exception never leaves a chunk (it may run on a helper thread).
          if (!blockedX || !blockedY) {
            try {
              xPlane.resize(blockedX ? 0 : size_t(inPlane * block));
              yPlane.resize(blockedY ? 0 : size_t(outPlane * block));
            } catch (const std::bad_alloc &) {
              noMemory.store(true, std::memory_order_relaxed);
              return;
            }
          }
          for (int64_t i = lo; i < hi; ++i) {
            // Plane i (channels i * block ... of an image) starts at the
            // same offset in NCHW and in the blocked layout.
            const float *xi = xp + i * inPlane * block;
            float *yi = yp + i * outPlane * block;
            if (!blockedX) {
              mxc::kernels::blockedFromNchw(xi, xPlane.data(), 1, block,
                                            inPlane, block);
              xi = xPlane.data();
            }
            poolAnyBlock(xi, blockedY ? yi : yPlane.data(), a, block);
            if (!blockedY)
              mxc::kernels::nchwFromBlocked(yPlane.data(), yi, 1, block,
                                            outPlane, block);
          }
        });
    if (noMemory.load(std::memory_order_relaxed))
      throw std::bad_alloc();
  } catch (const std::bad_alloc &) {
    mxc::runtime::reportKernelError(
        "Pooling: cannot allocate its scratch memory");
  }
}
