//===- conv_backward.cc - Convolution gradients over OpenBLAS -------------===//
//
// The data and weight gradients of the N-D grouped convolution of gemm.cc
// (kernels.h: mxc_kernel_conv_backward_{data,weight}_{f32,f64}), per image
// and group:
//   data:   cols (kc x P) = W_g^T (kc x F/G) * dY_{n,g} (F/G x P), then
//           col2im adds each column entry back onto the input position it
//           was read from (zero-padded positions are dropped);
//   weight: dW_g (F/G x kc) += dY_{n,g} (F/G x P) * cols_{n,g}^T, with
//           cols_{n,g} = im2col(x_{n,g}),
// where kc = C/G * kd*kh*kw and P = out_d*out_h*out_w. The columns live in
// the caller's workspace (at least kc * P elements; unused for pointwise
// convolutions, 1x1 kernels without stride or padding), so the kernels
// allocate nothing. Plain C++17 over the CBLAS interface.
//
//===----------------------------------------------------------------------===//
#include "blas.h"
#include "kernels.h"
#include "mxc/runtime/plan.h"
#if MXC_RUNTIME_HAVE_DNNL
#include "conv_dnnl.h"
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>

namespace {
using mxc::kernels::gemm;
using mxc::kernels::gemmOrZero;

struct Geometry {
  int64_t batch, channels, filters, groups;
  int64_t in[3], k[3], out[3], stride[3], pad[3], dilate[3];
  int64_t inVol() const { return in[0] * in[1] * in[2]; }
  int64_t outVol() const { return out[0] * out[1] * out[2]; }
  int64_t kVol() const { return k[0] * k[1] * k[2]; }
  bool pointwise() const {
    return kVol() == 1 && stride[0] == 1 && stride[1] == 1 && stride[2] == 1 &&
           pad[0] == 0 && pad[1] == 0 && pad[2] == 0;
  }
};

#if MXC_RUNTIME_HAVE_DNNL
// The oneDNN geometry of a 2-D (or 1-D) convolution; false for 3-D.
bool dnnlArgs(const Geometry &g, mxc::kernels::ConvArgs &a) {
  if (g.k[0] != 1 || g.in[0] != 1 || g.out[0] != 1 || g.channels == 0 ||
      g.outVol() == 0)
    return false;
  a = {g.batch,     g.channels,  g.filters,   g.groups,    false,
       g.in[1],     g.in[2],     g.k[1],      g.k[2],      g.out[1],
       g.out[2],    g.stride[1], g.stride[2], g.pad[1],    g.pad[2],
       g.dilate[1], g.dilate[2]};
  return true;
}
#endif

Geometry makeGeometry(const int64_t *v) {
  Geometry g;
  g.batch = v[0];
  g.channels = v[1];
  g.filters = v[2];
  g.groups = v[3];
  for (int i = 0; i < 3; ++i) {
    g.in[i] = v[4 + i];
    g.k[i] = v[7 + i];
    g.out[i] = v[10 + i];
    g.stride[i] = v[13 + i];
    g.pad[i] = v[16 + i];
    g.dilate[i] = v[19 + i];
  }
  return g;
}

// Visits every (row, column) of the im2col matrix of `cg` channels whose
// input position is inside the image: f(row * P + col, input offset).
template <typename F>
void forEachColumnEntry(const Geometry &g, int64_t cg, F f) {
  const int64_t P = g.outVol();
  int64_t row = 0;
  for (int64_t c = 0; c < cg; ++c)
    for (int64_t kd = 0; kd < g.k[0]; ++kd)
      for (int64_t kh = 0; kh < g.k[1]; ++kh)
        for (int64_t kw = 0; kw < g.k[2]; ++kw, ++row) {
          int64_t col = 0;
          for (int64_t od = 0; od < g.out[0]; ++od) {
            const int64_t id = od * g.stride[0] - g.pad[0] + kd * g.dilate[0];
            for (int64_t oh = 0; oh < g.out[1]; ++oh) {
              const int64_t ih = oh * g.stride[1] - g.pad[1] + kh * g.dilate[1];
              const bool rowInside =
                  id >= 0 && id < g.in[0] && ih >= 0 && ih < g.in[1];
              for (int64_t ow = 0; ow < g.out[2]; ++ow, ++col) {
                const int64_t iw =
                    ow * g.stride[2] - g.pad[2] + kw * g.dilate[2];
                if (rowInside && iw >= 0 && iw < g.in[2])
                  f(row * P + col,
                    ((c * g.in[0] + id) * g.in[1] + ih) * g.in[2] + iw);
              }
            }
          }
        }
}

void checkWorkspace(const char *kernel, const Geometry &g, int64_t size) {
  const int64_t need =
      g.pointwise() ? 0 : g.channels / g.groups * g.kVol() * g.outVol();
  if (size < need) {
    std::fprintf(
        stderr, "mxc runtime: %s: workspace of %lld elements, needs %lld\n",
        kernel, static_cast<long long>(size), static_cast<long long>(need));
    std::abort();
  }
}

template <typename T>
void convBackwardData(const T *w, const T *dy, T *dx, T *cols,
                      const Geometry &g) {
  const int64_t cg = g.channels / g.groups, fg = g.filters / g.groups;
  const int64_t kc = cg * g.kVol(), P = g.outVol(), inVol = g.inVol();
#if MXC_RUNTIME_HAVE_DNNL
  if constexpr (std::is_same_v<T, float>) {
    mxc::kernels::ConvArgs a;
    if (g.batch > 0 && dnnlArgs(g, a) &&
        mxc::kernels::convBackwardDataDnnl(w, dy, dx, a))
      return;
  }
#endif
  std::fill(dx, dx + g.batch * g.channels * inVol, T(0));
  if (P == 0)
    return;
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      const T *dyg = dy + (n * g.filters + gi * fg) * P;
      T *dxg = dx + (n * g.channels + gi * cg) * inVol;
      const T *wg = w + gi * fg * kc;
      if (g.pointwise()) {
        // dx_g (cg x P) = W_g^T (cg x fg) * dy_g (fg x P).
        gemmOrZero<T>(true, false, cg, P, fg, wg, dyg, T(0), dxg);
        continue;
      }
      gemmOrZero<T>(true, false, kc, P, fg, wg, dyg, T(0), cols);
      forEachColumnEntry(g, cg, [&](int64_t colIndex, int64_t inIndex) {
        dxg[inIndex] += cols[colIndex];
      });
    }
}

template <typename T>
void convBackwardWeight(const T *x, const T *dy, T *dw, T *cols,
                        const Geometry &g) {
  const int64_t cg = g.channels / g.groups, fg = g.filters / g.groups;
  const int64_t kc = cg * g.kVol(), P = g.outVol(), inVol = g.inVol();
#if MXC_RUNTIME_HAVE_DNNL
  if constexpr (std::is_same_v<T, float>) {
    mxc::kernels::ConvArgs a;
    if (g.batch > 0 && dnnlArgs(g, a) &&
        mxc::kernels::convBackwardWeightDnnl(x, dy, dw, a))
      return;
  }
#endif
  std::fill(dw, dw + g.filters * kc, T(0));
  if (P == 0)
    return;
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      const T *xg = x + (n * g.channels + gi * cg) * inVol;
      const T *dyg = dy + (n * g.filters + gi * fg) * P;
      const T *colsg = xg;
      if (!g.pointwise()) {
        std::fill(cols, cols + kc * P, T(0));
        forEachColumnEntry(g, cg, [&](int64_t colIndex, int64_t inIndex) {
          cols[colIndex] = xg[inIndex];
        });
        colsg = cols;
      }
      // dW_g (fg x kc) += dy_g (fg x P) * cols^T (P x kc).
      gemmOrZero<T>(false, true, fg, kc, P, dyg, colsg, T(1),
                    dw + gi * fg * kc);
    }
}
// Runs `f`; an exception (oneDNN's scratch cannot be allocated, say) becomes
// a kernel error of the step, never an exception through generated code.
template <typename F> void guarded(const char *what, F &&f) {
  try {
    f();
  } catch (const std::bad_alloc &) {
    mxc::runtime::reportKernelError(std::string(what) +
                                    ": cannot allocate its scratch memory");
  } catch (const std::exception &e) {
    mxc::runtime::reportKernelError(std::string(what) + ": " + e.what());
  }
}
} // namespace

#define MXC_DEFINE_CONV_BACKWARD_KERNELS(T, suffix)                            \
  MXC_KERNEL_EXPORT void mxc_kernel_conv_backward_data_##suffix(               \
      MXC_KERNEL_BUFFER(const T, w), MXC_KERNEL_BUFFER(const T, dy),           \
      MXC_KERNEL_BUFFER(T, dx), MXC_KERNEL_BUFFER(T, ws), int64_t batch,       \
      int64_t channels, int64_t filters, int64_t groups, int64_t in_d,         \
      int64_t in_h, int64_t in_w, int64_t k_d, int64_t k_h, int64_t k_w,       \
      int64_t out_d, int64_t out_h, int64_t out_w, int64_t stride_d,           \
      int64_t stride_h, int64_t stride_w, int64_t pad_d, int64_t pad_h,        \
      int64_t pad_w, int64_t dilate_d, int64_t dilate_h, int64_t dilate_w) {   \
    const int64_t v[] = {batch, channels, filters,  groups,   in_d,  in_h,     \
                         in_w,  k_d,      k_h,      k_w,      out_d, out_h,    \
                         out_w, stride_d, stride_h, stride_w, pad_d, pad_h,    \
                         pad_w, dilate_d, dilate_h, dilate_w};                 \
    Geometry g = makeGeometry(v);                                              \
    checkWorkspace("mxc_kernel_conv_backward_data_" #suffix, g, ws_size);      \
    guarded("Convolution gradient (data)", [&] {                               \
      convBackwardData<T>(w + w_offset, dy + dy_offset, dx + dx_offset,        \
                          ws + ws_offset, g);                                  \
    });                                                                        \
  }                                                                            \
  MXC_KERNEL_EXPORT void mxc_kernel_conv_backward_weight_##suffix(             \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(const T, dy),           \
      MXC_KERNEL_BUFFER(T, dw), MXC_KERNEL_BUFFER(T, ws), int64_t batch,       \
      int64_t channels, int64_t filters, int64_t groups, int64_t in_d,         \
      int64_t in_h, int64_t in_w, int64_t k_d, int64_t k_h, int64_t k_w,       \
      int64_t out_d, int64_t out_h, int64_t out_w, int64_t stride_d,           \
      int64_t stride_h, int64_t stride_w, int64_t pad_d, int64_t pad_h,        \
      int64_t pad_w, int64_t dilate_d, int64_t dilate_h, int64_t dilate_w) {   \
    const int64_t v[] = {batch, channels, filters,  groups,   in_d,  in_h,     \
                         in_w,  k_d,      k_h,      k_w,      out_d, out_h,    \
                         out_w, stride_d, stride_h, stride_w, pad_d, pad_h,    \
                         pad_w, dilate_d, dilate_h, dilate_w};                 \
    Geometry g = makeGeometry(v);                                              \
    checkWorkspace("mxc_kernel_conv_backward_weight_" #suffix, g, ws_size);    \
    guarded("Convolution gradient (weight)", [&] {                             \
      convBackwardWeight<T>(x + x_offset, dy + dy_offset, dw + dw_offset,      \
                            ws + ws_offset, g);                                \
    });                                                                        \
  }

MXC_DEFINE_CONV_BACKWARD_KERNELS(float, f32)
MXC_DEFINE_CONV_BACKWARD_KERNELS(double, f64)
