//===- gemm.cc - GEMM-class kernels over OpenBLAS -------------------------===//
//
// The kernel ABI of kernels.h: dot / batch_dot (gemm), FullyConnected and
// N-D grouped Convolution (im2col + GEMM, 1x1 convolutions without im2col),
// for f32 and f64. Plain C++17; the only dependency is the CBLAS interface,
// declared in blas.h so that no particular cblas.h (Debian ships several) is
// needed.
//
//===----------------------------------------------------------------------===//
#include "blas.h"
#include "conv_epilogue.h"
#include "conv_range.h"
#include "depthwise.h"
#include "kernels.h"
#include "parallel.h"
#if MXC_RUNTIME_HAVE_DNNL
#include "conv_dnnl.h"
#endif

#include <algorithm>
#include <type_traits>
#include <cstring>
#include <vector>

#include "mxc/runtime/plan.h"
#include <new>
#include <string>

namespace {
using mxc::kernels::gemm;
using mxc::kernels::gemmOrZero;
using mxc::kernels::parallelFor;

// A per-thread scratch buffer of at least `n` elements (im2col columns).
template <typename T> T *scratch(size_t n, int slot) {
  thread_local std::vector<T> buffers[2];
  std::vector<T> &buf = buffers[slot];
  if (buf.size() < n)
    buf.resize(n);
  return buf.data();
}

struct ConvGeometry {
  int64_t inD, inH, inW, kD, kH, kW, outD, outH, outW;
  int64_t sD, sH, sW, pD, pH, pW, dD, dH, dW;
};

using mxc::kernels::validRange;

// Unfolds channels [c0, c1) of one image into rows (c, kd, kh, kw) of `cols`,
// each row `P = outD*outH*outW` wide with leading dimension `ld`.
template <typename T>
void im2colRange(const T *x, int64_t c0, int64_t c1, const ConvGeometry &g,
                 T *cols, int64_t ld) {
  const int64_t inVol = g.inD * g.inH * g.inW;
  int64_t row = c0 * g.kD * g.kH * g.kW;
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t kd = 0; kd < g.kD; ++kd)
      for (int64_t kh = 0; kh < g.kH; ++kh)
        for (int64_t kw = 0; kw < g.kW; ++kw, ++row) {
          T *dst = cols + row * ld;
          const int64_t offW = kw * g.dW - g.pW;
          int64_t wLo, wHi;
          validRange(offW, g.sW, g.inW, g.outW, wLo, wHi);
          for (int64_t od = 0; od < g.outD; ++od) {
            const int64_t id = od * g.sD - g.pD + kd * g.dD;
            for (int64_t oh = 0; oh < g.outH; ++oh, dst += g.outW) {
              const int64_t ih = oh * g.sH - g.pH + kh * g.dH;
              if (id < 0 || id >= g.inD || ih < 0 || ih >= g.inH) {
                std::fill(dst, dst + g.outW, T(0));
                continue;
              }
              const T *src = x + c * inVol + (id * g.inH + ih) * g.inW + offW;
              std::fill(dst, dst + wLo, T(0));
              if (g.sW == 1) {
                std::memcpy(dst + wLo, src + wLo, (wHi - wLo) * sizeof(T));
              } else {
                for (int64_t ow = wLo; ow < wHi; ++ow)
                  dst[ow] = src[ow * g.sW];
              }
              std::fill(dst + wHi, dst + g.outW, T(0));
            }
          }
        }
}

// All `cg` channels, split across the kernel threads.
template <typename T>
void im2col(const T *x, int64_t cg, const ConvGeometry &g, T *cols,
            int64_t ld) {
  const int64_t rowLen = g.outD * g.outH * g.outW * g.kD * g.kH * g.kW;
  parallelFor(cg, cg * rowLen, [&](int64_t lo, int64_t hi) {
    im2colRange(x, lo, hi, g, cols, ld);
  });
}

// One filter per channel, 2-D (or 1-D): depthwise.h's direct kernel.
inline bool isDepthwise(int64_t channels, int64_t filters, int64_t groups,
                        const ConvGeometry &g) {
  return groups > 1 && groups == channels && filters == channels &&
         g.kD == 1 && g.inD == 1 && g.outD == 1;
}

// depthwise.h's geometry of a 2-D (or 1-D) convolution.
inline mxc::kernels::DepthwiseArgs depthwiseArgs(int64_t batch,
                                                 int64_t channels,
                                                 const ConvGeometry &g) {
  return {batch, channels, g.inH, g.inW, g.kH, g.kW, g.outH,
          g.outW, g.sH,    g.sW,  g.pH,  g.pW, g.dH, g.dW};
}

template <typename T>
void conv(const T *x, const T *w, const T *bias, T *y, int64_t batch,
          int64_t channels, int64_t filters, int64_t groups, bool hasBias,
          const ConvGeometry &g) {
  const int64_t cg = channels / groups, fg = filters / groups;
  const int64_t kc = cg * g.kD * g.kH * g.kW;
  const int64_t P = g.outD * g.outH * g.outW;
  const int64_t inVol = g.inD * g.inH * g.inW;
  const bool pointwise = g.kD * g.kH * g.kW == 1 && g.sD == 1 && g.sH == 1 &&
                         g.sW == 1 && g.pD == 0 && g.pH == 0 && g.pW == 0;
  if (batch == 0 || filters == 0 || P == 0)
    return;
#if MXC_RUNTIME_HAVE_DNNL
  if constexpr (std::is_same_v<T, float>) {
    if (g.kD == 1 && g.inD == 1 && g.outD == 1 && channels > 0 &&
        mxc::kernels::convDnnl(
            x, w, bias, y,
            {batch, channels, filters, groups, hasBias, g.inH, g.inW, g.kH,
             g.kW, g.outH, g.outW, g.sH, g.sW, g.pH, g.pW, g.dH, g.dW}))
      return;
  }
#endif
  if (isDepthwise(channels, filters, groups, g)) {
    mxc::kernels::DepthwiseArgs a = depthwiseArgs(batch, channels, g);
    a.bias = hasBias ? bias : nullptr;
    mxc::kernels::depthwiseConv(x, w, y, a);
    return;
  }
  // Small feature maps make a per-image GEMM too narrow for OpenBLAS: unfold
  // `nb` images side by side into one (kc x nb*P) matrix (about 2048 columns,
  // which bounds the scratch memory), do one GEMM, then scatter the
  // (filters x nb*P) product to NCHW adding the bias.
  const int64_t nb = groups == 1 ? std::min(batch, (2048 + P - 1) / P) : 1;
  if (nb > 1) {
    for (int64_t n0 = 0; n0 < batch; n0 += nb) {
      const int64_t cnt = std::min(nb, batch - n0), ld = cnt * P;
      T *cols = scratch<T>(size_t(kc) * ld, 0);
      for (int64_t i = 0; i < cnt; ++i) {
        const T *xn = x + (n0 + i) * channels * inVol;
        if (pointwise) {
          for (int64_t c = 0; c < channels; ++c)
            std::memcpy(cols + c * ld + i * P, xn + c * inVol, P * sizeof(T));
        } else {
          im2col(xn, channels, g, cols + i * P, ld);
        }
      }
      T *tmp = scratch<T>(size_t(filters) * ld, 1);
      gemmOrZero<T>(false, false, filters, ld, kc, w, cols, T(0), tmp);
      parallelFor(cnt * filters, cnt * filters * P, [&](int64_t lo,
                                                        int64_t hi) {
        for (int64_t r = lo; r < hi; ++r) {
          const int64_t i = r / filters, f = r % filters;
          const T *src = tmp + f * ld + i * P;
          T *dst = y + ((n0 + i) * filters + f) * P;
          const T b = hasBias ? bias[f] : T(0);
          for (int64_t p = 0; p < P; ++p)
            dst[p] = src[p] + b;
        }
      });
    }
    return;
  }
  T *cols = pointwise ? nullptr : scratch<T>(size_t(kc) * P, 0);
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t gi = 0; gi < groups; ++gi) {
      const T *xg = x + (n * channels + gi * cg) * inVol;
      if (!pointwise)
        im2col(xg, cg, g, cols, P);
      T *yg = y + (n * filters + gi * fg) * P;
      if (hasBias)
        for (int64_t f = 0; f < fg; ++f)
          std::fill(yg + f * P, yg + (f + 1) * P, bias[gi * fg + f]);
      gemmOrZero<T>(false, false, fg, P, kc, w + gi * fg * kc,
                    pointwise ? xg : cols, hasBias ? T(1) : T(0), yg);
    }
}

template <typename T>
void gemmBatch(const T *a, const T *b, T *c, int64_t batch, int64_t m,
               int64_t n, int64_t k, bool ta, bool tb) {
  // Products on the kernel threads, each split further (blas.h) only when
  // the batch runs on one thread: the same BLAS calls either way.
  parallelFor(batch, batch * m * n * k, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      gemmOrZero<T>(ta, tb, m, n, k, a + i * m * k, b + i * k * n, T(0),
                    c + i * m * n);
  });
}

template <typename T>
void fullyConnected(const T *x, const T *w, const T *bias, T *y, int64_t m,
                    int64_t n, int64_t k, bool hasBias) {
  if (hasBias)
    for (int64_t i = 0; i < m; ++i)
      std::copy(bias, bias + n, y + i * n);
  gemmOrZero<T>(false, true, m, n, k, x, w, hasBias ? T(1) : T(0), y);
}
} // namespace

namespace {
// The epilogue where oneDNN does not run it (conv_epilogue.h), on the
// kernel threads; r holds the convolution, y the result (r may be y).
void convEpilogue(const float *r, float *y, const float *scale,
                  const float *shift, int64_t batch, int64_t filters,
                  int64_t P, bool sum, int act, float lo, float hi) {
  parallelFor(batch * filters, batch * filters * P,
              [&](int64_t rowLo, int64_t rowHi) {
                mxc::kernels::convEpilogueRows(r, filters * P, y, filters * P,
                                               filters, P, rowLo, rowHi, scale,
                                               shift, sum, act, lo, hi);
              });
}
} // namespace

MXC_KERNEL_EXPORT void mxc_kernel_release_constant_weights(void) {
#if MXC_RUNTIME_HAVE_DNNL
  mxc::kernels::releaseConstantWeights();
#endif
}

namespace {
/// mxc_kernel_conv_fused_f32 where oneDNN does not run it, on NCHW tensors.
void convFusedNchw(const float *xp, const float *wp, const float *bp,
                   const float *sp, const float *tp, float *yp, int64_t batch,
                   int64_t channels, int64_t filters, int64_t groups,
                   bool hasBias, const ConvGeometry &g, bool sum, int act,
                   float lo, float hi) {
  const int64_t P = g.outH * g.outW;
  if (isDepthwise(channels, filters, groups, g)) {
    // The direct kernel applies the epilogue row by row.
    mxc::kernels::DepthwiseArgs d = depthwiseArgs(batch, channels, g);
    d.bias = hasBias ? bp : nullptr, d.scale = sp, d.shift = tp;
    d.sum = sum, d.act = act, d.actLo = lo, d.actHi = hi;
    mxc::kernels::depthwiseConv(xp, wp, yp, d);
    return;
  }
  // With a sum, y holds the addend: the convolution goes to a scratch.
  thread_local std::vector<float> tmp;
  float *r = yp;
  if (sum) {
    tmp.resize(size_t(batch * filters * P));
    r = tmp.data();
  }
  conv<float>(xp, wp, bp, r, batch, channels, filters, groups, hasBias, g);
  convEpilogue(r, yp, sp, tp, batch, filters, P, sum, act, lo, hi);
}
} // namespace

MXC_KERNEL_EXPORT int64_t mxc_kernel_conv_channel_block(void) {
  return mxc::kernels::convChannelBlock();
}

MXC_KERNEL_EXPORT void mxc_kernel_conv_fused_f32(
    MXC_KERNEL_BUFFER(const float, x), MXC_KERNEL_BUFFER(const float, w),
    MXC_KERNEL_BUFFER(const float, bias), MXC_KERNEL_BUFFER(const float, scale),
    MXC_KERNEL_BUFFER(const float, shift), MXC_KERNEL_BUFFER(float, y),
    int64_t batch, int64_t channels, int64_t filters, int64_t groups,
    int64_t in_h, int64_t in_w, int64_t k_h, int64_t k_w, int64_t out_h,
    int64_t out_w, int64_t stride_h, int64_t stride_w, int64_t pad_h,
    int64_t pad_w, int64_t dilate_h, int64_t dilate_w, int64_t flags,
    int64_t act, int64_t act_lo_bits, int64_t act_hi_bits) {
  const bool hasBias = flags & 1, hasScale = flags & 2, hasShift = flags & 4,
             sum = flags & 8, constWeights = flags & 16,
             blockedX = flags & 32, blockedY = flags & 64,
             actAfterSum = sum && (flags & 128);
  const float lo = float(mxc::kernels::paramFromBits(act_lo_bits)),
              hi = float(mxc::kernels::paramFromBits(act_hi_bits));
  const float *xp = x + x_offset, *wp = w + w_offset, *bp = bias + bias_offset;
  const float *sp = hasScale ? scale + scale_offset : nullptr;
  const float *tp = hasShift ? shift + shift_offset : nullptr;
  float *yp = y + y_offset;
  const int64_t P = out_h * out_w;
  if (batch == 0 || filters == 0 || P == 0)
    return;
  const int64_t block = mxc::kernels::convChannelBlock();
  if ((blockedX && channels % block) || (blockedY && filters % block)) {
    mxc::runtime::reportKernelError(
        "Convolution: a blocked tensor's channels (" +
        std::to_string(blockedX ? channels : filters) +
        ") are not a multiple of the channel block " + std::to_string(block));
    return;
  }
  const ConvGeometry g{1,     in_h,     in_w,     1,     k_h,   k_w,
                       1,     out_h,    out_w,    1,     stride_h,
                       stride_w, 0,     pad_h,    pad_w, 1,     dilate_h,
                       dilate_w};
  try {
#if MXC_RUNTIME_HAVE_DNNL
    mxc::kernels::ConvArgs a{batch, channels, filters, groups, hasBias,
                             in_h,  in_w,     k_h,     k_w,    out_h,
                             out_w, stride_h, stride_w, pad_h, pad_w,
                             dilate_h, dilate_w};
    a.hasScale = hasScale, a.hasShift = hasShift, a.sum = sum;
    a.act = int(act), a.actLo = lo, a.actHi = hi;
    a.constWeights = constWeights;
    a.blockedX = blockedX, a.blockedY = blockedY;
    a.actAfterSum = actAfterSum;
    if (channels > 0 && mxc::kernels::convDnnl(xp, wp, bp, yp, a, sp, tp))
      return;
#endif
    // Blocked tensors: converted to and from NCHW around the NCHW paths.
    thread_local std::vector<float> xNchw, yNchw;
    if (blockedX) {
      xNchw.resize(size_t(batch * channels * in_h * in_w));
      mxc::kernels::nchwFromBlocked(xp, xNchw.data(), batch, channels,
                                    in_h * in_w, block);
      xp = xNchw.data();
    }
    float *yt = yp;
    if (blockedY) {
      yNchw.resize(size_t(batch * filters * P));
      yt = yNchw.data();
      if (sum)
        mxc::kernels::nchwFromBlocked(yp, yt, batch, filters, P, block);
    }
    convFusedNchw(xp, wp, bp, sp, tp, yt, batch, channels, filters, groups,
                  hasBias, g, sum, actAfterSum ? 0 : int(act), lo, hi);
    if (actAfterSum && act)
      convEpilogue(yt, yt, nullptr, nullptr, batch, filters, P, false,
                   int(act), lo, hi);
    if (blockedY)
      mxc::kernels::blockedFromNchw(yt, yp, batch, filters, P, block);
  } catch (const std::bad_alloc &) {
    mxc::runtime::reportKernelError(
        "Convolution: cannot allocate its scratch memory");
  } catch (const std::exception &e) {
    mxc::runtime::reportKernelError(std::string("Convolution: ") + e.what());
  }
}

#define MXC_DEFINE_GEMM_KERNELS(T, suffix)                                     \
  MXC_KERNEL_EXPORT void mxc_kernel_gemm_##suffix(                             \
      MXC_KERNEL_BUFFER(const T, a), MXC_KERNEL_BUFFER(const T, b),            \
      MXC_KERNEL_BUFFER(T, c), int64_t batch, int64_t m, int64_t n, int64_t k, \
      int64_t trans_a, int64_t trans_b) {                                      \
    gemmBatch<T>(a + a_offset, b + b_offset, c + c_offset, batch, m, n, k,     \
                 trans_a != 0, trans_b != 0);                                  \
  }                                                                            \
  MXC_KERNEL_EXPORT void mxc_kernel_fully_connected_##suffix(                  \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(const T, w),            \
      MXC_KERNEL_BUFFER(const T, bias), MXC_KERNEL_BUFFER(T, y), int64_t m,    \
      int64_t n, int64_t k, int64_t has_bias) {                                \
    fullyConnected<T>(x + x_offset, w + w_offset, bias + bias_offset,          \
                      y + y_offset, m, n, k, has_bias != 0);                   \
  }                                                                            \
  MXC_KERNEL_EXPORT void mxc_kernel_conv_##suffix(                             \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(const T, w),            \
      MXC_KERNEL_BUFFER(const T, bias), MXC_KERNEL_BUFFER(T, y),               \
      int64_t batch, int64_t channels, int64_t filters, int64_t groups,        \
      int64_t has_bias, int64_t in_d, int64_t in_h, int64_t in_w, int64_t k_d, \
      int64_t k_h, int64_t k_w, int64_t out_d, int64_t out_h, int64_t out_w,   \
      int64_t stride_d, int64_t stride_h, int64_t stride_w, int64_t pad_d,     \
      int64_t pad_h, int64_t pad_w, int64_t dilate_d, int64_t dilate_h,        \
      int64_t dilate_w) {                                                      \
    const ConvGeometry g{in_d,  in_h,  in_w,  k_d,      k_h,      k_w,         \
                         out_d, out_h, out_w, stride_d, stride_h, stride_w,    \
                         pad_d, pad_h, pad_w, dilate_d, dilate_h, dilate_w};   \
    /* The scratch (im2col columns, or oneDNN's re-laid tensors) may not  \
       fit in memory: a kernel error (the step fails, its outputs are       \
       marked failed), never an exception through generated code. */        \
    try {                                                                    \
      conv<T>(x + x_offset, w + w_offset, bias + bias_offset, y + y_offset,    \
              batch, channels, filters, groups, has_bias != 0, g);             \
    } catch (const std::bad_alloc &) {                                       \
      mxc::runtime::reportKernelError(                                       \
          "Convolution: cannot allocate its scratch memory (the im2col "     \
          "columns are " +                                                   \
          std::to_string(channels / groups * k_d * k_h * k_w) + " x " +      \
          std::to_string(out_d * out_h * out_w) + " elements; oneDNN's "     \
          "re-laid input and output about their size)");                    \
    } catch (const std::exception &e) {                                      \
      mxc::runtime::reportKernelError(std::string("Convolution: ") +         \
                                      e.what());                             \
    }                                                                        \
  }

MXC_DEFINE_GEMM_KERNELS(float, f32)
MXC_DEFINE_GEMM_KERNELS(double, f64)
