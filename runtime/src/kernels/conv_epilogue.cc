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

#if defined(__x86_64__)
#include <immintrin.h>
#endif

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

// The two re-layouts are transposes of a (channels of a block) x (plane)
// matrix. With 16-channel blocks (AVX-512) a 16 x 16 tile at a time is
// transposed in registers; else (and for the tails) a pixel at a time with
// its channels contiguous. A channel at a time over the whole plane stored
// one float per cache line of a plane larger than L1: a 16 x 54 x 54 plane
// took 77 us against 15 a pixel at a time and 6 in registers (one thread),
// AlexNet's first pooling at batch 16 (NCHW in, blocked out) 4.5 -> 1.2
// ms, its second 1.8 -> 0.8 (docs/benchmarks.md).
namespace {

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define MXC_HAVE_TRANSPOSE16 1
/// dst row k (16 floats at dst + k * dstStride) = column k of the 16 x 16
/// tile whose rows are 16 floats at src + r * srcStride.
__attribute__((target("avx512f"))) void
transpose16(const float *src, int64_t srcStride, float *dst,
            int64_t dstStride) {
  __m512 r[16], t[16];
  for (int c = 0; c < 16; ++c)
    r[c] = _mm512_loadu_ps(src + c * srcStride);
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    r[4 * i + 0] = _mm512_shuffle_ps(t[4 * i + 0], t[4 * i + 2], 0x44);
    r[4 * i + 1] = _mm512_shuffle_ps(t[4 * i + 0], t[4 * i + 2], 0xEE);
    r[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    r[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      t[8 * i + j] = _mm512_shuffle_f32x4(r[8 * i + j], r[8 * i + 4 + j], 0x88);
      t[8 * i + 4 + j] =
          _mm512_shuffle_f32x4(r[8 * i + j], r[8 * i + 4 + j], 0xDD);
    }
  for (int j = 0; j < 8; ++j) {
    r[j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0x88);
    r[8 + j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0xDD);
  }
  for (int k = 0; k < 16; ++k)
    _mm512_storeu_ps(dst + k * dstStride, r[k]);
}
#endif

/// One block of channels (cs <= block of them) re-laid from `src` to
/// `dst`: NCHW rows (a row of `plane` floats per channel) to blocked pixels
/// (`block` floats per pixel) when ToBlocked, else back.
template <bool ToBlocked>
void relayBlock(const float *src, float *dst, int64_t cs, int64_t plane,
                int64_t block) {
  int64_t p = 0;
#ifdef MXC_HAVE_TRANSPOSE16
  // block 16 only where the CPU has AVX-512 (convChannelBlock()).
  if (block == 16 && cs == 16)
    for (; p + 16 <= plane; p += 16) {
      if (ToBlocked)
        transpose16(src + p, plane, dst + p * 16, 16);
      else
        transpose16(src + p * 16, 16, dst + p, plane);
    }
#endif
  for (; p < plane; ++p)
    for (int64_t c = 0; c < cs; ++c) {
      if (ToBlocked)
        dst[p * block + c] = src[c * plane + p];
      else
        dst[c * plane + p] = src[p * block + c];
    }
}

} // namespace

void mxc::kernels::blockedFromNchw(const float *nchw, float *blocked,
                                   int64_t batch, int64_t channels,
                                   int64_t plane, int64_t block) {
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c0 = 0; c0 < channels; c0 += block) {
      const int64_t offset = (n * channels + c0) * plane;
      relayBlock<true>(nchw + offset, blocked + offset,
                       std::min(block, channels - c0), plane, block);
    }
}

void mxc::kernels::nchwFromBlocked(const float *blocked, float *nchw,
                                   int64_t batch, int64_t channels,
                                   int64_t plane, int64_t block) {
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c0 = 0; c0 < channels; c0 += block) {
      const int64_t offset = (n * channels + c0) * plane;
      relayBlock<false>(blocked + offset, nchw + offset,
                        std::min(block, channels - c0), plane, block);
    }
}
