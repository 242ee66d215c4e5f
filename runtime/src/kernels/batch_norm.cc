//===- batch_norm.cc - BatchNorm's training forward and gradient ----------===//
//
// mxc_kernel_batch_norm_{train,backward}_{f32,f64} (kernels.h): the CPU
// twins of cuDNN's batch normalisation in training (runtime/src/cuda/
// cudnn_kernels.cc), called where mx-autodiff's `library-batch-norm` made
// mx.BatchNorm_train / mx.BatchNorm_backward (lowered in lib/Conversion/
// MXToLinalg/Backward.cpp). Data are (outer, channels, inner): the channel
// axis with everything before it as `outer` and everything after as `inner`.
// Per channel, over its m = outer * inner elements:
//   forward:  mean, var = mean((x - mean)^2) (biased, as MXNet's
//             batch_norm.cc), invstd = 1 / sqrt(var + eps),
//             y = (x - mean) * invstd * gamma + beta
//   backward: dbeta = sum(dy), dgamma = sum(dy * xhat),
//             dx = gamma * invstd / m * (m * dy - dbeta - xhat * dgamma)
//             with xhat = (x - mean) * invstd
// Sums in double, two passes (the mean, then the centred squares), channels
// on the kernel threads. The forward's `scratch` destination is the GPU
// twin's (cuDNN's running mean); here it is left as it is.
//
//===----------------------------------------------------------------------===//
#include "kernels.h"
#include "parallel.h"

#include <cmath>

namespace {

using mxc::kernels::paramFromBits;

template <typename T>
void batchNormTrain(const T *x, const T *gamma, const T *beta, T *y, T *mean,
                    T *var, T *invstd, int64_t outer, int64_t channels,
                    int64_t inner, double eps) {
  const int64_t m = outer * inner;
  mxc::kernels::parallelFor(channels, m * channels * 3, [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c) {
      double sum = 0;
      for (int64_t n = 0; n < outer; ++n) {
        const T *row = x + (n * channels + c) * inner;
        for (int64_t i = 0; i < inner; ++i)
          sum += double(row[i]);
      }
      const double mu = sum / double(m);
      double sq = 0;
      for (int64_t n = 0; n < outer; ++n) {
        const T *row = x + (n * channels + c) * inner;
        for (int64_t i = 0; i < inner; ++i) {
          double d = double(row[i]) - mu;
          sq += d * d;
        }
      }
      const double v = sq / double(m);
      const double is = 1.0 / std::sqrt(v + eps);
      const double scale = is * double(gamma[c]), shift = double(beta[c]);
      for (int64_t n = 0; n < outer; ++n) {
        const T *row = x + (n * channels + c) * inner;
        T *out = y + (n * channels + c) * inner;
        for (int64_t i = 0; i < inner; ++i)
          out[i] = T((double(row[i]) - mu) * scale + shift);
      }
      mean[c] = T(mu);
      var[c] = T(v);
      invstd[c] = T(is);
    }
  });
}

template <typename T>
void batchNormBackward(const T *dy, const T *x, const T *gamma, const T *mean,
                       const T *invstd, T *dx, T *dgamma, T *dbeta,
                       int64_t outer, int64_t channels, int64_t inner) {
  const int64_t m = outer * inner;
  mxc::kernels::parallelFor(channels, m * channels * 3, [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c) {
      const double mu = double(mean[c]), is = double(invstd[c]);
      double sdy = 0, sdyx = 0;
      for (int64_t n = 0; n < outer; ++n) {
        const int64_t base = (n * channels + c) * inner;
        for (int64_t i = 0; i < inner; ++i) {
          double g = double(dy[base + i]);
          sdy += g;
          sdyx += g * (double(x[base + i]) - mu) * is;
        }
      }
      const double k = double(gamma[c]) * is / double(m);
      for (int64_t n = 0; n < outer; ++n) {
        const int64_t base = (n * channels + c) * inner;
        for (int64_t i = 0; i < inner; ++i) {
          double xhat = (double(x[base + i]) - mu) * is;
          dx[base + i] =
              T(k * (double(m) * double(dy[base + i]) - sdy - xhat * sdyx));
        }
      }
      dgamma[c] = T(sdyx);
      dbeta[c] = T(sdy);
    }
  });
}

} // namespace

#define MXC_DEFINE_BATCH_NORM_KERNELS(T, suffix)                               \
  MXC_KERNEL_EXPORT void mxc_kernel_batch_norm_train_##suffix(                 \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(const T, gamma),        \
      MXC_KERNEL_BUFFER(const T, beta), MXC_KERNEL_BUFFER(T, y),               \
      MXC_KERNEL_BUFFER(T, mean), MXC_KERNEL_BUFFER(T, var),                   \
      MXC_KERNEL_BUFFER(T, invstd), MXC_KERNEL_BUFFER(T, scratch),             \
      int64_t outer, int64_t channels, int64_t inner, int64_t eps_bits) {      \
    (void)scratch;                                                             \
    batchNormTrain<T>(x + x_offset, gamma + gamma_offset, beta + beta_offset,  \
                      y + y_offset, mean + mean_offset, var + var_offset,      \
                      invstd + invstd_offset, outer, channels, inner,          \
                      paramFromBits(eps_bits));                                \
  }                                                                            \
  MXC_KERNEL_EXPORT void mxc_kernel_batch_norm_backward_##suffix(              \
      MXC_KERNEL_BUFFER(const T, dy), MXC_KERNEL_BUFFER(const T, x),           \
      MXC_KERNEL_BUFFER(const T, gamma), MXC_KERNEL_BUFFER(const T, mean),     \
      MXC_KERNEL_BUFFER(const T, invstd), MXC_KERNEL_BUFFER(T, dx),            \
      MXC_KERNEL_BUFFER(T, dgamma), MXC_KERNEL_BUFFER(T, dbeta),               \
      int64_t outer, int64_t channels, int64_t inner, int64_t eps_bits) {      \
    (void)eps_bits;                                                            \
    batchNormBackward<T>(dy + dy_offset, x + x_offset, gamma + gamma_offset,   \
                         mean + mean_offset, invstd + invstd_offset,           \
                         dx + dx_offset, dgamma + dgamma_offset,               \
                         dbeta + dbeta_offset, outer, channels, inner);        \
  }

MXC_DEFINE_BATCH_NORM_KERNELS(float, f32)
MXC_DEFINE_BATCH_NORM_KERNELS(double, f64)
