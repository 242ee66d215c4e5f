//===- conv_epilogue.h - mxc_kernel_conv_fused's epilogue as a loop -*- C++ -*-===//
//
// y = act(r * scale[f] + shift[f]) (+ y with a sum), filter by filter, for the
// paths where oneDNN does not apply it as post-ops: its GEMM convolution on
// NCHW (whose binary post-ops run on a reference path, two orders of
// magnitude slower), and the im2col fallback (no oneDNN, aarch64).
//
//===----------------------------------------------------------------------===//
#ifndef MXC_RUNTIME_SRC_KERNELS_CONV_EPILOGUE_H
#define MXC_RUNTIME_SRC_KERNELS_CONV_EPILOGUE_H

#include <algorithm>
#include <cstdint>

namespace mxc::kernels {

/// Rows [rowLo, rowHi) of `filters` rows a batch: row i is filter i % filters
/// of image i / filters, P elements at r + image * rImage + f * P (and y +
/// image * yImage + f * P). r may be y. scale / shift may be null.
inline void convEpilogueRows(const float *r, int64_t rImage, float *y,
                             int64_t yImage, int64_t filters, int64_t P,
                             int64_t rowLo, int64_t rowHi, const float *scale,
                             const float *shift, bool sum, int act, float lo,
                             float hi) {
  for (int64_t row = rowLo; row < rowHi; ++row) {
    const int64_t n = row / filters, f = row % filters;
    const float s = scale ? scale[f] : 1.f, t = shift ? shift[f] : 0.f;
    const float *src = r + n * rImage + f * P;
    float *dst = y + n * yImage + f * P;
    for (int64_t p = 0; p < P; ++p) {
      float v = src[p] * s + t;
      if (act == 1)
        v = std::max(v, 0.f);
      else if (act == 2)
        v = std::min(std::max(v, lo), hi);
      dst[p] = sum ? dst[p] + v : v;
    }
  }
}

} // namespace mxc::kernels

#endif // MXC_RUNTIME_SRC_KERNELS_CONV_EPILOGUE_H
