//===- conv_epilogue.cc - mxc_kernel_conv_fused's epilogue loop -----------===//
//
// conv_epilogue.h. One plain loop per case (activation, sum), so that the
// compiler vectorizes each; on x86-64 also compiled for AVX2 and picked at
// load time where the CPU has it (the runtime is built for the baseline
// ISA).
//
//===----------------------------------------------------------------------===//
#include "conv_epilogue.h"

#include <algorithm>

#if defined(__x86_64__) && defined(__ELF__) && defined(__clang__)
#define MXC_EPILOGUE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define MXC_EPILOGUE_CLONES
#endif

namespace mxc::kernels {
namespace {
template <int Act, bool Sum>
inline void epilogueRow(const float *src, float *dst, int64_t P, float s,
                        float t, float lo, float hi) {
  for (int64_t p = 0; p < P; ++p) {
    float v = src[p] * s + t;
    if constexpr (Act == 1)
      v = v > 0.f ? v : 0.f;
    else if constexpr (Act == 2)
      v = std::min(std::max(v, lo), hi);
    if constexpr (Sum)
      dst[p] += v;
    else
      dst[p] = v;
  }
}
} // namespace

MXC_EPILOGUE_CLONES
void convEpilogueRows(const float *r, int64_t rImage, float *y, int64_t yImage,
                      int64_t filters, int64_t P, int64_t rowLo, int64_t rowHi,
                      const float *scale, const float *shift, bool sum, int act,
                      float lo, float hi) {
  for (int64_t row = rowLo; row < rowHi; ++row) {
    const int64_t n = row / filters, f = row % filters;
    const float s = scale ? scale[f] : 1.f, t = shift ? shift[f] : 0.f;
    const float *src = r + n * rImage + f * P;
    float *dst = y + n * yImage + f * P;
    switch (act * 2 + int(sum)) {
    case 0: epilogueRow<0, false>(src, dst, P, s, t, lo, hi); break;
    case 1: epilogueRow<0, true>(src, dst, P, s, t, lo, hi); break;
    case 2: epilogueRow<1, false>(src, dst, P, s, t, lo, hi); break;
    case 3: epilogueRow<1, true>(src, dst, P, s, t, lo, hi); break;
    case 4: epilogueRow<2, false>(src, dst, P, s, t, lo, hi); break;
    default: epilogueRow<2, true>(src, dst, P, s, t, lo, hi); break;
    }
  }
}

} // namespace mxc::kernels

int64_t mxc::kernels::convChannelBlock() {
#if defined(__x86_64__) || defined(__i386__)
  static const int64_t block = __builtin_cpu_supports("avx512f") ? 16 : 8;
  return block;
#else
  return 8;
#endif
}

void mxc::kernels::blockedFromNchw(const float *nchw, float *blocked,
                                   int64_t batch, int64_t channels,
                                   int64_t plane, int64_t block) {
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c) {
      const float *src = nchw + (n * channels + c) * plane;
      float *dst = blocked + (n * channels + c / block * block) * plane +
                   c % block;
      for (int64_t p = 0; p < plane; ++p)
        dst[p * block] = src[p];
    }
}

void mxc::kernels::nchwFromBlocked(const float *blocked, float *nchw,
                                   int64_t batch, int64_t channels,
                                   int64_t plane, int64_t block) {
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c) {
      const float *src = blocked + (n * channels + c / block * block) * plane +
                         c % block;
      float *dst = nchw + (n * channels + c) * plane;
      for (int64_t p = 0; p < plane; ++p)
        dst[p] = src[p * block];
    }
}
