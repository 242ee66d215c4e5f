//===- depthwise.cc - direct depthwise 2-D convolution on NCHW ------------===//
//
// depthwise.h. One output row at a time: the row starts as zero, each kernel
// tap adds weight * (a strided run of one input row) over the output columns
// whose input column is inside the image (no padded copy), then the
// epilogue. The taps' inner loop is contiguous for stride 1, which the
// compiler vectorizes; on x86-64 the rows are also compiled for AVX2 and
// picked at load time where the CPU has it (the runtime is built for the
// baseline ISA).
//
//===----------------------------------------------------------------------===//
#include "depthwise.h"

#include "conv_range.h"
#include "parallel.h"

#include <algorithm>
#include <vector>

#if defined(__x86_64__) && defined(__ELF__) && defined(__clang__)
#define MXC_DW_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define MXC_DW_CLONES
#endif

namespace mxc::kernels {
namespace {

/// The epilogue of one output row (no branch inside the loop).
template <typename T, int Act, bool Sum>
__attribute__((always_inline)) inline void finishRow(const T *acc, T *out,
                                                     int64_t n, T b, T s, T t,
                                                     T lo, T hi) {
  for (int64_t i = 0; i < n; ++i) {
    T v = (acc[i] + b) * s + t;
    if constexpr (Act == 1)
      v = v > T(0) ? v : T(0);
    else if constexpr (Act == 2)
      v = std::min(std::max(v, lo), hi);
    if constexpr (Sum)
      out[i] += v;
    else
      out[i] = v;
  }
}

template <typename T>
__attribute__((always_inline)) inline void rowsImpl(const T *x, const T *w, T *y, const DepthwiseArgs &a,
                     int64_t rowLo, int64_t rowHi, T *acc) {
  const T *bias = static_cast<const T *>(a.bias);
  const T *scale = static_cast<const T *>(a.scale);
  const T *shift = static_cast<const T *>(a.shift);
  const T lo = T(a.actLo), hi = T(a.actHi);
  const int64_t inPlane = a.inH * a.inW, outPlane = a.outH * a.outW;
  for (int64_t r = rowLo; r < rowHi; ++r) {
    // r = (image * channels + c) * outH + oh
    const int64_t oh = r % a.outH, plane = r / a.outH, c = plane % a.channels;
    const T *xp = x + plane * inPlane;
    const T *wc = w + c * a.kH * a.kW;
    std::fill(acc, acc + a.outW, T(0));
    for (int64_t kh = 0; kh < a.kH; ++kh) {
      const int64_t ih = oh * a.sH - a.pH + kh * a.dH;
      if (ih < 0 || ih >= a.inH)
        continue;
      const T *xr = xp + ih * a.inW;
      for (int64_t kw = 0; kw < a.kW; ++kw) {
        const int64_t off = kw * a.dW - a.pW;
        int64_t owLo, owHi;
        validRange(off, a.sW, a.inW, a.outW, owLo, owHi);
        const T wv = wc[kh * a.kW + kw];
        if (a.sW == 1) {
          const T *src = xr + off;
          for (int64_t ow = owLo; ow < owHi; ++ow)
            acc[ow] += wv * src[ow];
        } else {
          for (int64_t ow = owLo; ow < owHi; ++ow)
            acc[ow] += wv * xr[ow * a.sW + off];
        }
      }
    }
    const T b = bias ? bias[c] : T(0);
    const T s = scale ? scale[c] : T(1), t = shift ? shift[c] : T(0);
    T *out = y + plane * outPlane + oh * a.outW;
    const int64_t n = a.outW;
    switch (a.act * 2 + int(a.sum)) {
    case 0: finishRow<T, 0, false>(acc, out, n, b, s, t, lo, hi); break;
    case 1: finishRow<T, 0, true>(acc, out, n, b, s, t, lo, hi); break;
    case 2: finishRow<T, 1, false>(acc, out, n, b, s, t, lo, hi); break;
    case 3: finishRow<T, 1, true>(acc, out, n, b, s, t, lo, hi); break;
    case 4: finishRow<T, 2, false>(acc, out, n, b, s, t, lo, hi); break;
    default: finishRow<T, 2, true>(acc, out, n, b, s, t, lo, hi); break;
    }
  }
}

MXC_DW_CLONES
void rows(const float *x, const float *w, float *y, const DepthwiseArgs &a,
          int64_t rowLo, int64_t rowHi, float *acc) {
  rowsImpl(x, w, y, a, rowLo, rowHi, acc);
}
MXC_DW_CLONES
void rows(const double *x, const double *w, double *y, const DepthwiseArgs &a,
          int64_t rowLo, int64_t rowHi, double *acc) {
  rowsImpl(x, w, y, a, rowLo, rowHi, acc);
}

template <typename T>
void run(const T *x, const T *w, T *y, const DepthwiseArgs &a) {
  const int64_t rowsTotal = a.batch * a.channels * a.outH;
  parallelFor(rowsTotal, rowsTotal * a.outW * a.kH * a.kW,
              [&](int64_t lo, int64_t hi) {
                // The row accumulator: one per thread, grown only.
                thread_local std::vector<T> acc;
                if (acc.size() < size_t(a.outW))
                  acc.resize(size_t(a.outW));
                rows(x, w, y, a, lo, hi, acc.data());
              });
}

} // namespace

void depthwiseConv(const float *x, const float *w, float *y,
                   const DepthwiseArgs &a) {
  run(x, w, y, a);
}
void depthwiseConv(const double *x, const double *w, double *y,
                   const DepthwiseArgs &a) {
  run(x, w, y, a);
}

} // namespace mxc::kernels
