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

#include <cstdint>

namespace mxc::kernels {

/// Rows [rowLo, rowHi) of `filters` rows a batch: row i is filter i % filters
/// of image i / filters, P elements at r + image * rImage + f * P (and y +
/// image * yImage + f * P). r may be y. scale / shift may be null.
/// (conv_epilogue.cc)
void convEpilogueRows(const float *r, int64_t rImage, float *y, int64_t yImage,
                      int64_t filters, int64_t P, int64_t rowLo, int64_t rowHi,
                      const float *scale, const float *shift, bool sum, int act,
                      float lo, float hi);

} // namespace mxc::kernels

#endif // MXC_RUNTIME_SRC_KERNELS_CONV_EPILOGUE_H
