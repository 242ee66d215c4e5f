//===- conv_range.h - the output positions a kernel tap reads inside ------===//
//
// Shared by the im2col convolution (gemm.cc) and the direct depthwise one
// (depthwise.cc).
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

} // namespace mxc::kernels

#endif // MXC_RUNTIME_SRC_KERNELS_CONV_RANGE_H
