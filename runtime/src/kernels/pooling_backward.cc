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

#include <algorithm>

namespace {

enum Kind : int64_t { kMax = 0, kAvg = 1, kSum = 2, kLp = 3 };

template <typename T> T powInt(T x, int64_t e) {
  T r = T(1);
  for (int64_t i = 0; i < e; ++i)
    r *= x;
  return r;
}

template <typename T>
void poolingBackward(const T *dy, const T *x, const T *y, T *dx, int64_t kind,
                     int64_t p, bool countIncludePad, int64_t planes,
                     const int64_t *in, const int64_t *k, const int64_t *out,
                     const int64_t *stride, const int64_t *pad) {
  const int64_t inVol = in[0] * in[1] * in[2];
  const int64_t outVol = out[0] * out[1] * out[2];
  std::fill(dx, dx + planes * inVol, T(0));
  for (int64_t pl = 0; pl < planes; ++pl) {
    const T *xp = x + pl * inVol;
    T *dxp = dx + pl * inVol;
    const T *dyp = dy + pl * outVol;
    const T *yp = y + pl * outVol;
    int64_t oi = 0;
    for (int64_t od = 0; od < out[0]; ++od)
      for (int64_t oh = 0; oh < out[1]; ++oh)
        for (int64_t ow = 0; ow < out[2]; ++ow, ++oi) {
          const int64_t o[3] = {od, oh, ow};
          int64_t lo[3], hi[3], size = 1;
          for (int i = 0; i < 3; ++i) {
            const mxc::kernels::PoolWindow win =
                mxc::kernels::poolWindow(o[i], k[i], stride[i], pad[i], in[i]);
            lo[i] = win.lo;
            hi[i] = win.hi;
            size *= countIncludePad ? win.end - win.start
                                    : std::max<int64_t>(hi[i] - lo[i], 0);
          }
          const T g = dyp[oi];
          if (kind == kMax) {
            bool found = false;
            for (int64_t d = lo[0]; d < hi[0] && !found; ++d)
              for (int64_t h = lo[1]; h < hi[1] && !found; ++h)
                for (int64_t w = lo[2]; w < hi[2]; ++w) {
                  const int64_t idx = (d * in[1] + h) * in[2] + w;
                  if (xp[idx] == yp[oi]) {
                    dxp[idx] += g;
                    found = true;
                    break;
                  }
                }
            continue;
          }
          for (int64_t d = lo[0]; d < hi[0]; ++d)
            for (int64_t h = lo[1]; h < hi[1]; ++h)
              for (int64_t w = lo[2]; w < hi[2]; ++w) {
                const int64_t idx = (d * in[1] + h) * in[2] + w;
                if (kind == kAvg)
                  dxp[idx] += g / T(size);
                else if (kind == kSum)
                  dxp[idx] += g;
                else
                  dxp[idx] += g * powInt(xp[idx] / yp[oi], p - 1);
              }
        }
  }
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
