//===- conv_epilogue.h - mxc_kernel_conv_fused's epilogue as a loop -*- C++ -*-===//
//
// y = act(r * scale[f] + shift[f]) (+ y with a sum), filter by filter, for the
// paths where oneDNN does not apply it as post-ops: its GEMM convolution on
// NCHW (whose binary post-ops run on a reference path, two orders of
// magnitude slower), and the im2col fallback (no oneDNN, aarch64); and the
// blocked channel layout of its tensors (flags 32 / 64) with converters.
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

/// The channel block of mxc_kernel_conv_fused's blocked tensors (flags 32 /
/// 64, kernels.h): `batch` images of ceil(C / B) blocks, each block
/// (H, W, B) with its B channels innermost (oneDNN's nChw8c / nChw16c). B is
/// 16 where the CPU has AVX-512 (the block of oneDNN's AVX-512 kernels), else
/// 8; the compiler blocks only tensors whose channels are a multiple of 16,
/// which then take the bytes of their NCHW form whichever B the process
/// picks. (conv_epilogue.cc)
int64_t convChannelBlock();

/// NCHW <-> blocked (channels a multiple of B), for the paths that compute
/// on NCHW: the im2col fallback and oneDNN's refusals.
void blockedFromNchw(const float *nchw, float *blocked, int64_t batch,
                     int64_t channels, int64_t plane, int64_t block);
void nchwFromBlocked(const float *blocked, float *nchw, int64_t batch,
                     int64_t channels, int64_t plane, int64_t block);

} // namespace mxc::kernels

#endif // MXC_RUNTIME_SRC_KERNELS_CONV_EPILOGUE_H
