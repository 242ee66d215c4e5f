//===- lrn.cc - LRN across channels ---------------------------------------===//
//
// mxc_kernel_lrn_{f32,f64} and mxc_kernel_lrn_norm_{f32,f64} (kernels.h):
// MXNet's LRN (src/operator/nn/lrn-inl.h) on (outer, channels, inner) data,
// nsize odd, the window of channel c [c - nsize/2, c + nsize/2] clipped to
// the channels:
//   tmp_norm = knorm + alpha / nsize * sum(x[c']^2)
//   out      = x * tmp_norm^(-beta)
// as lib/Conversion/MXToLinalg/Normalization.cpp lowers it in generated code
// (which this kernel replaces for f32 / f64: the generated form padded a copy
// of the input, reduced the window innermost and called powf per element;
// AlexNet's first LRN at batch 16 took 21 ms, docs/benchmarks.md). The _norm
// form also writes tmp_norm (LRN's hidden output, which the gradient reads).
// Here each (image, channel) row sums its window's squares directly (no
// running sum: a sum that drops large squares again loses the small ones),
// along the row so that the loops vectorise; t^-0.75 and t^-0.5 are square
// roots (within 2 ulp of pow), other exponents call pow. Rows run on the
// kernel threads.
//
//===----------------------------------------------------------------------===//
#include "kernels.h"
#include "parallel.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace {

double fromBits(int64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

enum class Power { Pow, Half, ThreeQuarters, One };

// The channels of a window summed along a row at once.
constexpr int64_t kMaxTaps = 64;

// One row (an image's channel): the window's squares summed in chunks of
// 256 elements, then the normaliser and its power.
template <typename T, Power P>
__attribute__((always_inline)) inline void lrnRowImpl(const T *x, const T *const *window, int64_t taps, T *y,
                       T *norm, int64_t inner, T knorm, T salpha, T beta) {
  for (int64_t i0 = 0; i0 < inner; i0 += 256) {
    const int64_t n = std::min<int64_t>(256, inner - i0);
    T sums[256];
    for (int64_t i = 0; i < n; ++i)
      sums[i] = T(0);
    for (int64_t t = 0; t < taps; ++t) {
      const T *w = window[t] + i0;
      for (int64_t i = 0; i < n; ++i)
        sums[i] += w[i] * w[i];
    }
    for (int64_t i = 0; i < n; ++i) {
      const T tn = knorm + salpha * sums[i];
      T scale;
      if constexpr (P == Power::One) {
        scale = T(1) / tn;
      } else if constexpr (P == Power::Half) {
        scale = T(1) / std::sqrt(tn);
      } else if constexpr (P == Power::ThreeQuarters) {
        const T root = std::sqrt(tn);
        scale = T(1) / (root * std::sqrt(root));
      } else {
        scale = std::pow(tn, -beta);
      }
      y[i0 + i] = x[i0 + i] * scale;
    }
    if (norm)
      for (int64_t i = 0; i < n; ++i)
        norm[i0 + i] = knorm + salpha * sums[i];
  }
}

// The f32 rows, compiled for AVX-512 and AVX2 as well where the compiler
// can (the runtime is built for the baseline x86-64: 4-wide square roots
// and divisions, 3.7 ns an element, were the kernel's bound).
#if defined(__x86_64__) && defined(__ELF__) && defined(__clang__)
#define MXC_LRN_CLONES                                                         \
  __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define MXC_LRN_CLONES
#endif

// lrnRowImpl for the exponent `p`; both are inlined into each clone of the
// f32 lrnRow (called, they would run the baseline ISA's code).
template <typename T>
__attribute__((always_inline)) inline void lrnRowAny(const T *x, const T *const *window, int64_t taps, T *y,
                      T *norm, int64_t inner, T knorm, T salpha, T beta,
                      Power p) {
  switch (p) {
  case Power::ThreeQuarters:
    return lrnRowImpl<T, Power::ThreeQuarters>(x, window, taps, y, norm, inner,
                                               knorm, salpha, beta);
  case Power::Half:
    return lrnRowImpl<T, Power::Half>(x, window, taps, y, norm, inner, knorm,
                                      salpha, beta);
  case Power::One:
    return lrnRowImpl<T, Power::One>(x, window, taps, y, norm, inner, knorm,
                                     salpha, beta);
  case Power::Pow:
    return lrnRowImpl<T, Power::Pow>(x, window, taps, y, norm, inner, knorm,
                                     salpha, beta);
  }
}

MXC_LRN_CLONES void lrnRow(const float *x, const float *const *window,
                           int64_t taps, float *y, float *norm, int64_t inner,
                           float knorm, float salpha, float beta, Power p) {
  lrnRowAny(x, window, taps, y, norm, inner, knorm, salpha, beta, p);
}

void lrnRow(const double *x, const double *const *window, int64_t taps,
            double *y, double *norm, int64_t inner, double knorm,
            double salpha, double beta, Power p) {
  lrnRowAny(x, window, taps, y, norm, inner, knorm, salpha, beta, p);
}

template <typename T>
void lrn(const T *x, T *y, T *norm, int64_t outer, int64_t channels,
         int64_t inner, int64_t nsize, double alpha, double beta,
         double knorm) {
  const int64_t half = nsize / 2;
  const T salpha = T(alpha / double(nsize)), k = T(knorm), b = T(beta);
  const Power power = beta == 0.75  ? Power::ThreeQuarters
                      : beta == 0.5 ? Power::Half
                      : beta == 1.0 ? Power::One
                                    : Power::Pow;
  mxc::kernels::parallelFor(
      outer * channels, outer * channels * inner * (nsize + 4),
      [&](int64_t lo, int64_t hi) {
        const T *window[kMaxTaps];
        for (int64_t r = lo; r < hi; ++r) {
          const int64_t n = r / channels, c = r % channels;
          const int64_t first = std::max<int64_t>(0, c - half),
                        last = std::min(channels - 1, c + half);
          const T *image = x + n * channels * inner;
          const int64_t off = r * inner, taps = last - first + 1;
          if (taps > kMaxTaps) {
            // A window of more than kMaxTaps channels: the same sums, one
            // element at a time.
            for (int64_t i = 0; i < inner; ++i) {
              T s = T(0);
              for (int64_t cc = first; cc <= last; ++cc)
                s += image[cc * inner + i] * image[cc * inner + i];
              const T tn = k + salpha * s;
              y[off + i] = x[off + i] * T(std::pow(tn, -b));
              if (norm)
                norm[off + i] = tn;
            }
            continue;
          }
          for (int64_t t = 0; t < taps; ++t)
            window[t] = image + (first + t) * inner;
          lrnRow(x + off, window, taps, y + off, norm ? norm + off : nullptr,
                 inner, k, salpha, b, power);
        }
      });
}

} // namespace

#define MXC_DEFINE_LRN_KERNELS(T, suffix)                                      \
  MXC_KERNEL_EXPORT void mxc_kernel_lrn_##suffix(                              \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(T, y), int64_t outer,   \
      int64_t channels, int64_t inner, int64_t nsize, int64_t alpha_bits,      \
      int64_t beta_bits, int64_t knorm_bits) {                                 \
    lrn<T>(x + x_offset, y + y_offset, nullptr, outer, channels, inner, nsize, \
           fromBits(alpha_bits), fromBits(beta_bits), fromBits(knorm_bits));   \
  }                                                                            \
  MXC_KERNEL_EXPORT void mxc_kernel_lrn_norm_##suffix(                         \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(T, y),                  \
      MXC_KERNEL_BUFFER(T, norm), int64_t outer, int64_t channels,             \
      int64_t inner, int64_t nsize, int64_t alpha_bits, int64_t beta_bits,     \
      int64_t knorm_bits) {                                                    \
    lrn<T>(x + x_offset, y + y_offset, norm + norm_offset, outer, channels,    \
           inner, nsize, fromBits(alpha_bits), fromBits(beta_bits),            \
           fromBits(knorm_bits));                                              \
  }

MXC_DEFINE_LRN_KERNELS(float, f32)
MXC_DEFINE_LRN_KERNELS(double, f64)
