//===- pooling_backward.cc - Pooling gradient
//------------------------------===//
//
// mxc_kernel_pooling_backward_{f32,f64} (kernels.h): the data gradient of
// MXNet's CPU pooling (src/operator/nn/pool.h, unpool_*), on NC + up to
// three spatial axes (1-D and 2-D pass leading unit axes). Window `o` along
// one axis starts at o * stride - pad and spans `kernel` positions, clipped
// to the input:
//   max  the output gradient goes to the first element of the clipped
//        window, in row-major window order, equal to the forward output
//        (none when the window holds no input element);
//   avg  out_grad / pool_size to every element, pool_size as the forward:
//        prod(min(start + kernel, in + pad) - start) with count_include_pad,
//        else the clipped window's size;
//   sum  out_grad to every element;
//   lp   out_grad * (x / y)^(p - 1).
//
//===----------------------------------------------------------------------===//
#include "conv_range.h"
#include "kernels.h"
#include "parallel.h"

#include <algorithm>
#include <vector>

namespace {

using mxc::kernels::PoolWindow;

enum Kind : int64_t { kMax = 0, kAvg = 1, kSum = 2, kLp = 3 };

template <typename T> T powInt(T x, int64_t e) {
  T r = T(1);
  for (int64_t i = 0; i < e; ++i)
    r *= x;
  return r;
}

// A 2-D max-pooling plane with K x K windows (LeNet's, ResNet's): windows
// wholly inside the input take the unrolled search, clipped ones (padding,
// the last row or column) the loops of planeBackward. The gradient goes to
// the first element equal to the output; the search has no branch (which
// element holds a window's maximum is data-dependent: a branch on it was
// mispredicted on about every window, 4x the time of this loop).
template <typename T, int K>
void maxPlane2D(const T *dyp, const T *xp, const T *yp, T *dxp, int64_t inH,
                int64_t inW, int64_t outH, int64_t outW, const PoolWindow *winH,
                const PoolWindow *winW) {
  std::fill(dxp, dxp + inH * inW, T(0));
  for (int64_t oh = 0; oh < outH; ++oh) {
    const PoolWindow &wh = winH[oh];
    const bool fullH = wh.hi - wh.lo == K;
    for (int64_t ow = 0; ow < outW; ++ow) {
      const PoolWindow &ww = winW[ow];
      const T y = yp[oh * outW + ow];
      int64_t at = -1;
      if (fullH && ww.hi - ww.lo == K) {
        const T *x0 = xp + wh.lo * inW + ww.lo;
        for (int h = K - 1; h >= 0; --h)
          for (int w = K - 1; w >= 0; --w)
            at = x0[h * inW + w] == y ? h * inW + w : at;
        at = at < 0 ? at : at + wh.lo * inW + ww.lo;
      } else {
        for (int64_t h = wh.hi - 1; h >= wh.lo; --h)
          for (int64_t w = ww.hi - 1; w >= ww.lo; --w)
            at = xp[h * inW + w] == y ? h * inW + w : at;
      }
      if (at >= 0)
        dxp[at] += dyp[oh * outW + ow];
    }
  }
}

// One plane's gradient (max: as maxPlane2D, the last match of a backward
// scan without a branch).
template <typename T>
void planeBackward(const T *dyp, const T *xp, const T *yp, T *dxp, int64_t kind,
                   int64_t p, const int64_t *in, const int64_t *out,
                   const PoolWindow *const win[3], const int64_t *size) {
  const int64_t inVol = in[0] * in[1] * in[2];
  std::fill(dxp, dxp + inVol, T(0));
  int64_t oi = 0;
  for (int64_t od = 0; od < out[0]; ++od)
    for (int64_t oh = 0; oh < out[1]; ++oh)
      for (int64_t ow = 0; ow < out[2]; ++ow, ++oi) {
        const PoolWindow &wd = win[0][od], &wh = win[1][oh], &ww = win[2][ow];
        const T g = dyp[oi];
        if (kind == kMax) {
          const T y = yp[oi];
          int64_t at = -1;
          // Backwards over the window: the last match seen is the first.
          for (int64_t d = wd.hi - 1; d >= wd.lo; --d)
            for (int64_t h = wh.hi - 1; h >= wh.lo; --h) {
              const int64_t row = (d * in[1] + h) * in[2];
              for (int64_t w = ww.hi - 1; w >= ww.lo; --w)
                at = xp[row + w] == y ? row + w : at;
            }
          if (at >= 0)
            dxp[at] += g;
          continue;
        }
        for (int64_t d = wd.lo; d < wd.hi; ++d)
          for (int64_t h = wh.lo; h < wh.hi; ++h)
            for (int64_t w = ww.lo; w < ww.hi; ++w) {
              const int64_t idx = (d * in[1] + h) * in[2] + w;
              if (kind == kAvg)
                dxp[idx] += g / T(size[oi]);
              else if (kind == kSum)
                dxp[idx] += g;
              else
                dxp[idx] += g * powInt(xp[idx] / yp[oi], p - 1);
            }
      }
}

template <typename T>
void poolingBackward(const T *dy, const T *x, const T *y, T *dx, int64_t kind,
                     int64_t p, bool countIncludePad, int64_t planes,
                     const int64_t *in, const int64_t *k, const int64_t *out,
                     const int64_t *stride, const int64_t *pad) {
  const int64_t inVol = in[0] * in[1] * in[2];
  const int64_t outVol = out[0] * out[1] * out[2];
  // The windows of each axis, and each output's divisor (avg), once.
  std::vector<PoolWindow> axes[3];
  for (int i = 0; i < 3; ++i)
    for (int64_t o = 0; o < out[i]; ++o)
      axes[i].push_back(mxc::kernels::poolWindow(o, k[i], stride[i], pad[i], in[i]));
  const PoolWindow *const win[3] = {axes[0].data(), axes[1].data(), axes[2].data()};
  std::vector<int64_t> size;
  if (kind == kAvg) {
    size.reserve(outVol);
    for (int64_t od = 0; od < out[0]; ++od)
      for (int64_t oh = 0; oh < out[1]; ++oh)
        for (int64_t ow = 0; ow < out[2]; ++ow) {
          int64_t s = 1;
          for (const PoolWindow *w : {&win[0][od], &win[1][oh], &win[2][ow]})
            s *= countIncludePad ? w->end - w->start
                                 : std::max<int64_t>(w->hi - w->lo, 0);
          size.push_back(s);
        }
  }
  const int64_t windowVol = k[0] * k[1] * k[2];
  mxc::kernels::parallelFor(
      planes, planes * (inVol + outVol * windowVol), [&](int64_t lo, int64_t hi) {
        const bool is2D = in[0] == 1 && out[0] == 1 && kind == kMax;
        for (int64_t pl = lo; pl < hi; ++pl) {
          const T *dyp = dy + pl * outVol, *xp = x + pl * inVol, *yp = y + pl * outVol;
          T *dxp = dx + pl * inVol;
          if (is2D && k[1] == 2 && k[2] == 2)
            maxPlane2D<T, 2>(dyp, xp, yp, dxp, in[1], in[2], out[1], out[2], win[1], win[2]);
          else if (is2D && k[1] == 3 && k[2] == 3)
            maxPlane2D<T, 3>(dyp, xp, yp, dxp, in[1], in[2], out[1], out[2], win[1], win[2]);
          else
            planeBackward<T>(dy + pl * outVol, x + pl * inVol, y + pl * outVol,
                           dx + pl * inVol, kind, p, in, out, win, size.data());
        }
      });
}

} // namespace

#define MXC_DEFINE_POOLING_BACKWARD_KERNEL(T, suffix)                          \
  MXC_KERNEL_EXPORT void mxc_kernel_pooling_backward_##suffix(                 \
      MXC_KERNEL_BUFFER(const T, dy), MXC_KERNEL_BUFFER(const T, x),           \
      MXC_KERNEL_BUFFER(const T, y), MXC_KERNEL_BUFFER(T, dx), int64_t kind,   \
      int64_t p_value, int64_t count_include_pad, int64_t planes,              \
      int64_t in_d, int64_t in_h, int64_t in_w, int64_t k_d, int64_t k_h,      \
      int64_t k_w, int64_t out_d, int64_t out_h, int64_t out_w,                \
      int64_t stride_d, int64_t stride_h, int64_t stride_w, int64_t pad_d,     \
      int64_t pad_h, int64_t pad_w) {                                          \
    const int64_t in[3] = {in_d, in_h, in_w}, k[3] = {k_d, k_h, k_w},          \
                  out[3] = {out_d, out_h, out_w},                              \
                  stride[3] = {stride_d, stride_h, stride_w},                  \
                  pad[3] = {pad_d, pad_h, pad_w};                              \
    poolingBackward<T>(dy + dy_offset, x + x_offset, y + y_offset,             \
                       dx + dx_offset, kind, p_value, count_include_pad != 0,  \
                       planes, in, k, out, stride, pad);                       \
  }

MXC_DEFINE_POOLING_BACKWARD_KERNEL(float, f32)
MXC_DEFINE_POOLING_BACKWARD_KERNEL(double, f64)
