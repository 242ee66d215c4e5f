//===- conv_range.h - the output positions a kernel tap reads inside ------===//
//
// Shared by the im2col convolution (gemm.cc) and the direct depthwise one
// (depthwise.cc); poolWindow by the pooling kernels (pooling_blocked.cc,
// pooling_backward.cc).
//
//===----------------------------------------------------------------------===//
#ifndef MXC_RUNTIME_SRC_KERNELS_CONV_RANGE_H
#define MXC_RUNTIME_SRC_KERNELS_CONV_RANGE_H

#include <algorithm>
#include <cstdint>

namespace mxc::kernels {

/// First index `o` in [0, out) with 0 <= o * s + off, and one past the last
/// with o * s + off < in; `off` is the kernel offset minus the padding.
inline void validRange(int64_t off, int64_t s, int64_t in, int64_t out,
                       int64_t &lo, int64_t &hi) {
  lo = off >= 0 ? 0 : (-off + s - 1) / s;
  hi = in - off <= 0 ? 0 : (in - off - 1) / s + 1;
  lo = std::min(lo, out);
  hi = std::max(lo, std::min(hi, out));
}

/// Window `o` of one pooling axis as MXNet's pool.h: it starts at
/// o * s - pad, its divisor's extent with count_include_pad ends at
/// min(start + k, in + pad), and it reads input positions [lo, hi).
struct PoolWindow {
  int64_t start, end, lo, hi;
};
inline PoolWindow poolWindow(int64_t o, int64_t k, int64_t s, int64_t pad,
                             int64_t in) {
  const int64_t start = o * s - pad, end = std::min(start + k, in + pad);
  return {start, end, std::max<int64_t>(start, 0), std::min(end, in)};
}

} // namespace mxc::kernels

#endif // MXC_RUNTIME_SRC_KERNELS_CONV_RANGE_H
