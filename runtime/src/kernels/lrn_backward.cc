//===- lrn_backward.cc - LRN gradient
//--------------------------------------===//
//
// mxc_kernel_lrn_backward_{f32,f64} (kernels.h): MXNet's LRN backward
// (src/operator/nn/lrn-inl.h) on (outer, channels, inner) data, with the
// forward's normaliser tmp_norm = knorm + alpha / nsize * sum(x^2 over the
// channel window) and s = alpha / nsize:
//   dx = dy * tmp_norm^-beta
//        - 2 * beta * s * x * sum_{c'} dy[c'] * x[c'] * tmp_norm[c']^(-beta-1)
// where c' runs over the channels whose forward window contains c. MXNet's
// window of channel c' is [c' - nsize/2, c' - nsize/2 + nsize), so c' runs
// over [c - nsize + 1 + nsize/2, c + nsize/2] (symmetric for odd nsize).
//
//===----------------------------------------------------------------------===//
#include "kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace {

double fromBits(int64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

template <typename T>
void lrnBackward(const T *dy, const T *x, const T *norm, T *dx, int64_t outer,
                 int64_t channels, int64_t inner, int64_t nsize, double alpha,
                 double beta) {
  const double s = alpha / double(nsize);
  const int64_t half = nsize / 2;
  const int64_t plane = channels * inner;
  // t(c) = dy * x * tmp_norm^(-beta-1) leaves the sliding window nsize
  // channels after it entered; a ring of the last kRing values spares its
  // recomputation (one pow per element instead of two) for nsize < kRing.
  constexpr int64_t kRing = 32;
  double ring[kRing];
  for (int64_t n = 0; n < outer; ++n) {
    const T *dyn = dy + n * plane, *xn = x + n * plane,
            *normn = norm + n * plane;
    T *dxn = dx + n * plane;
    for (int64_t i = 0; i < inner; ++i) {
      auto t = [&](int64_t c) {
        const int64_t idx = c * inner + i;
        return double(dyn[idx]) * double(xn[idx]) *
               std::pow(double(normn[idx]), -beta - 1.0);
      };
      auto entering = [&](int64_t c) {
        double v = t(c);
        if (nsize < kRing)
          ring[c % kRing] = v;
        return v;
      };
      // Sliding sum of t over [c - nsize + 1 + half, c + half], starting
      // from the window of c = -1.
      double acc = 0;
      for (int64_t c = 0; c < std::min(half, channels); ++c)
        acc += entering(c);
      for (int64_t c = 0; c < channels; ++c) {
        if (c + half < channels)
          acc += entering(c + half);
        if (int64_t out = c - nsize + half; out >= 0)
          acc -= nsize < kRing ? ring[out % kRing] : t(out);
        const int64_t idx = c * inner + i;
        dxn[idx] = T(double(dyn[idx]) * std::pow(double(normn[idx]), -beta) -
                     2.0 * beta * s * double(xn[idx]) * acc);
      }
    }
  }
}

} // namespace

#define MXC_DEFINE_LRN_BACKWARD_KERNEL(T, suffix)                              \
  MXC_KERNEL_EXPORT void mxc_kernel_lrn_backward_##suffix(                     \
      MXC_KERNEL_BUFFER(const T, dy), MXC_KERNEL_BUFFER(const T, x),           \
      MXC_KERNEL_BUFFER(const T, norm), MXC_KERNEL_BUFFER(const T, y),         \
      MXC_KERNEL_BUFFER(T, dx), int64_t outer, int64_t channels,               \
      int64_t inner, int64_t nsize, int64_t alpha_bits, int64_t beta_bits,     \
      int64_t knorm_bits) {                                                    \
    (void)y, (void)knorm_bits; /* the GPU twin's */                            \
    lrnBackward<T>(dy + dy_offset, x + x_offset, norm + norm_offset,           \
                   dx + dx_offset, outer, channels, inner, nsize,              \
                   fromBits(alpha_bits), fromBits(beta_bits));                 \
  }

MXC_DEFINE_LRN_BACKWARD_KERNEL(float, f32)
MXC_DEFINE_LRN_BACKWARD_KERNEL(double, f64)
