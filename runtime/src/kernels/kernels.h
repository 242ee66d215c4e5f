//===- kernels.h - library kernels that generated code calls ----*- C++ -*-===//
//
// Not the plan-step kernels of docs/runtime.md (`void kernel(void **)`): these
// are the library routines that the generated code of such a step calls.
// GEMM-class ops (FullyConnected, dot, batch_dot, Convolution) are lowered by
// convert-mx-to-linalg into `mxrt.kernel_call`s, which mxrt-lower-kernel-calls
// turns into `func.call @mxc_kernel_*` on rank-1 memrefs of
// type `memref<?xT, strided<[1], offset: ?>>`. MLIR's standard memref calling
// convention expands each of them into five scalars (allocated pointer,
// aligned pointer, offset, size, stride), which is what MXC_KERNEL_BUFFER
// spells; the data starts at `name + name_offset` and is contiguous. Every
// other argument is an int64_t (flags are 0/1). The functions are C linkage,
// exported from libmxc_runtime, and plain C++17 over OpenBLAS. They keep no
// global state (the im2col scratch is per thread), so steps running on
// several threads may call them at once.
//
// The names and argument lists here are mirrored in Linear.cpp and Conv.cpp
// (lib/Conversion/MXToLinalg) and in the calling convention of
// lib/Dialect/MXRT/Transforms/LowerKernelCalls.cpp; change them together.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_RUNTIME_SRC_KERNELS_KERNELS_H
#define MXC_RUNTIME_SRC_KERNELS_KERNELS_H

#include <cstdint>
#include <cstring>

#define MXC_KERNEL_EXPORT extern "C" __attribute__((visibility("default")))

namespace mxc::kernels {
/// A float parameter of a kernel, which arrives as the IEEE-754 bits of a
/// double in an int64_t argument (floatParamBits in lib/Conversion/
/// MXToLinalg/KernelCalls.h).
inline double paramFromBits(int64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}
} // namespace mxc::kernels

/// One contiguous buffer as MLIR passes a rank-1 strided memref.
#define MXC_KERNEL_BUFFER(T, name)                                             \
  T *name##_allocated, T *name, int64_t name##_offset, int64_t name##_size,    \
      int64_t name##_stride

#define MXC_DECLARE_GEMM_KERNELS(T, suffix)                                    \
  /* c[i] = op(a[i]) * op(b[i]) for i < batch; a[i] is m x k (k x m with       \
     trans_a), b[i] is k x n (n x k with trans_b), c[i] is m x n, all          \
     row-major and packed one after another. */                                \
  MXC_KERNEL_EXPORT void mxc_kernel_gemm_##suffix(                             \
      MXC_KERNEL_BUFFER(const T, a), MXC_KERNEL_BUFFER(const T, b),            \
      MXC_KERNEL_BUFFER(T, c), int64_t batch, int64_t m, int64_t n, int64_t k, \
      int64_t trans_a, int64_t trans_b);                                       \
  /* y (m x n) = x (m x k) * w^T (w is n x k) + bias (n, when has_bias). */    \
  MXC_KERNEL_EXPORT void mxc_kernel_fully_connected_##suffix(                  \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(const T, w),            \
      MXC_KERNEL_BUFFER(const T, bias), MXC_KERNEL_BUFFER(T, y), int64_t m,    \
      int64_t n, int64_t k, int64_t has_bias);                                 \
  /* NCDHW convolution with groups (1-D and 2-D pass depth/height 1): x is     \
     (batch, channels, in_d, in_h, in_w), w is (filters, channels / groups,    \
     k_d, k_h, k_w), y is (batch, filters, out_d, out_h, out_w); zero          \
     padding; bias (filters) when has_bias. */                                 \
  MXC_KERNEL_EXPORT void mxc_kernel_conv_##suffix(                             \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(const T, w),            \
      MXC_KERNEL_BUFFER(const T, bias), MXC_KERNEL_BUFFER(T, y),               \
      int64_t batch, int64_t channels, int64_t filters, int64_t groups,        \
      int64_t has_bias, int64_t in_d, int64_t in_h, int64_t in_w, int64_t k_d, \
      int64_t k_h, int64_t k_w, int64_t out_d, int64_t out_h, int64_t out_w,   \
      int64_t stride_d, int64_t stride_h, int64_t stride_w, int64_t pad_d,     \
      int64_t pad_h, int64_t pad_w, int64_t dilate_d, int64_t dilate_h,        \
      int64_t dilate_w);

/* The parallel loops of generated code (parallel.h): body(ctx, lo, hi) over
   chunks of [0, n) on the kernel threads; `cost` estimates the innermost
   iterations (small loops run on the caller). */
MXC_KERNEL_EXPORT void mxc_parallel_for(void (*body)(void *, int64_t, int64_t),
                                        void *ctx, int64_t n, int64_t cost);

MXC_DECLARE_GEMM_KERNELS(float, f32)
MXC_DECLARE_GEMM_KERNELS(double, f64)

/* mx.Convolution_fused (the mx-fuse-convolution pass; f32, NCHW, 2-D):
     y = act((conv(x, w) + bias) * scale + shift) [+ y]
   with per-filter scale and shift. `flags`: 1 bias, 2 scale, 4 shift, 8 sum
   (y's contents before the call are added: the destination is read), 16
   constant weights (the same values at the same address on every call: a
   re-laid copy is kept across calls; mxc_kernel_release_constant_weights
   drops the copies), 32 x and 64 y (with its sum) in the blocked channel
   layout (mxc_kernel_conv_channel_block() channels innermost: oneDNN's
   nChw8c / nChw16c; the channels a multiple of the block) instead of NCHW,
   as the compiler's mx-propagate-conv-layout marks tensors that only pass
   between fused convolutions; 128 the activation after the sum
   (y = act((conv(x, w) + bias) * scale + shift + y)); an absent operand's
   buffer is not read. `act`: 0 none, 1 relu, 2 clip to
   [lo, hi], given as the IEEE-754 bits of doubles. Geometry as
   mxc_kernel_conv's, without depth. On oneDNN the epilogue runs as the
   convolution's post-ops (conv_dnnl.cc). */
MXC_KERNEL_EXPORT void mxc_kernel_release_constant_weights(void);
MXC_KERNEL_EXPORT int64_t mxc_kernel_conv_channel_block(void);
MXC_KERNEL_EXPORT void mxc_kernel_conv_fused_f32(
    MXC_KERNEL_BUFFER(const float, x), MXC_KERNEL_BUFFER(const float, w),
    MXC_KERNEL_BUFFER(const float, bias), MXC_KERNEL_BUFFER(const float, scale),
    MXC_KERNEL_BUFFER(const float, shift), MXC_KERNEL_BUFFER(float, y),
    int64_t batch, int64_t channels, int64_t filters, int64_t groups,
    int64_t in_h, int64_t in_w, int64_t k_h, int64_t k_w, int64_t out_h,
    int64_t out_w, int64_t stride_h, int64_t stride_w, int64_t pad_h,
    int64_t pad_w, int64_t dilate_h, int64_t dilate_w, int64_t flags,
    int64_t act, int64_t act_lo_bits, int64_t act_hi_bits);

/* mx.Pooling between fused convolutions (mx-propagate-conv-layout): 2-D max
   (flags & 1 == 0) or avg pooling of x (batch, channels, in_h, in_w) into y
   (batch, channels, out_h, out_w), MXNet's semantics (windows at o * stride
   - pad, clipped to the input; avg divides as count_include_pad, flag 2,
   says); x (flag 32) and y (flag 64) in the blocked channel layout of
   mxc_kernel_conv_fused_f32, else NCHW; the channels a multiple of
   mxc_kernel_conv_channel_block(). */
MXC_KERNEL_EXPORT void mxc_kernel_pooling_f32(
    MXC_KERNEL_BUFFER(const float, x), MXC_KERNEL_BUFFER(float, y),
    int64_t batch, int64_t channels, int64_t in_h, int64_t in_w, int64_t out_h,
    int64_t out_w, int64_t k_h, int64_t k_w, int64_t stride_h,
    int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t flags);

#undef MXC_DECLARE_GEMM_KERNELS

// Gradients of layers (conv_backward.cc, pooling_backward.cc,
// lrn_backward.cc), called by the lowering of MXBackwardOps.td
// (lib/Conversion/MXToLinalg/Backward.cpp). Scratch memory comes from the
// caller as a `ws` destination buffer: the kernels allocate nothing.
#define MXC_DECLARE_BACKWARD_KERNELS(T, suffix)                                \
  /* Convolution gradients, geometry as mxc_kernel_conv (without has_bias).   \
     backward_data: dx (batch, channels, in...) from w and dy (batch,         \
     filters, out...); backward_weight: dw (filters, channels / groups,       \
     k...) from x and dy. `ws` holds at least channels / groups *             \
     k_d*k_h*k_w * out_d*out_h*out_w elements (any size for pointwise         \
     convolutions: 1x1x1 kernel, stride 1, no padding). */                    \
  MXC_KERNEL_EXPORT void mxc_kernel_conv_backward_data_##suffix(               \
      MXC_KERNEL_BUFFER(const T, w), MXC_KERNEL_BUFFER(const T, dy),           \
      MXC_KERNEL_BUFFER(T, dx), MXC_KERNEL_BUFFER(T, ws), int64_t batch,       \
      int64_t channels, int64_t filters, int64_t groups, int64_t in_d,         \
      int64_t in_h, int64_t in_w, int64_t k_d, int64_t k_h, int64_t k_w,       \
      int64_t out_d, int64_t out_h, int64_t out_w, int64_t stride_d,           \
      int64_t stride_h, int64_t stride_w, int64_t pad_d, int64_t pad_h,        \
      int64_t pad_w, int64_t dilate_d, int64_t dilate_h, int64_t dilate_w);    \
  MXC_KERNEL_EXPORT void mxc_kernel_conv_backward_weight_##suffix(             \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(const T, dy),           \
      MXC_KERNEL_BUFFER(T, dw), MXC_KERNEL_BUFFER(T, ws), int64_t batch,       \
      int64_t channels, int64_t filters, int64_t groups, int64_t in_d,         \
      int64_t in_h, int64_t in_w, int64_t k_d, int64_t k_h, int64_t k_w,       \
      int64_t out_d, int64_t out_h, int64_t out_w, int64_t stride_d,           \
      int64_t stride_h, int64_t stride_w, int64_t pad_d, int64_t pad_h,        \
      int64_t pad_w, int64_t dilate_d, int64_t dilate_h, int64_t dilate_w);    \
  /* Pooling data gradient: dy, y (planes, out_d, out_h, out_w), x and dx     \
     (planes, in_d, in_h, in_w) with planes = batch * channels; kind 0 max,   \
     1 avg, 2 sum, 3 lp (p_value); windows as the forward (global pooling:   \
     kernel = in, stride 1, pad 0). */                                        \
  MXC_KERNEL_EXPORT void mxc_kernel_pooling_backward_##suffix(                 \
      MXC_KERNEL_BUFFER(const T, dy), MXC_KERNEL_BUFFER(const T, x),           \
      MXC_KERNEL_BUFFER(const T, y), MXC_KERNEL_BUFFER(T, dx), int64_t kind,   \
      int64_t p_value, int64_t count_include_pad, int64_t planes,              \
      int64_t in_d, int64_t in_h, int64_t in_w, int64_t k_d, int64_t k_h,      \
      int64_t k_w, int64_t out_d, int64_t out_h, int64_t out_w,                \
      int64_t stride_d, int64_t stride_h, int64_t stride_w, int64_t pad_d,     \
      int64_t pad_h, int64_t pad_w);                                           \
  /* LRN data gradient on (outer, channels, inner) dy, x and the forward's    \
     tmp_norm (`norm`); `y`, the forward's output, is the GPU twin's (cuDNN   \
     reads it instead of norm), unread here; alpha, beta and knorm are        \
     doubles passed as their IEEE-754 bit patterns (knorm: the GPU twin's). */ \
  MXC_KERNEL_EXPORT void mxc_kernel_lrn_backward_##suffix(                     \
      MXC_KERNEL_BUFFER(const T, dy), MXC_KERNEL_BUFFER(const T, x),           \
      MXC_KERNEL_BUFFER(const T, norm), MXC_KERNEL_BUFFER(const T, y),         \
      MXC_KERNEL_BUFFER(T, dx), int64_t outer, int64_t channels,               \
      int64_t inner, int64_t nsize, int64_t alpha_bits, int64_t beta_bits,     \
      int64_t knorm_bits);

MXC_DECLARE_BACKWARD_KERNELS(float, f32)
MXC_DECLARE_BACKWARD_KERNELS(double, f64)

// BatchNorm in training (batch_norm.cc), the CPU twins of cuDNN's, on
// (outer, channels, inner) data with rank-1 per-channel buffers; eps is a
// double passed as its IEEE-754 bits. train writes y, the batch mean, the
// biased variance and invstd = (var + eps)^-1/2 (`scratch`: channels
// elements the GPU twin uses; untouched here); backward writes dx, dgamma
// and dbeta from dy, x, gamma and the forward's mean and invstd.
#define MXC_DECLARE_BATCH_NORM_KERNELS(T, suffix)                              \
  MXC_KERNEL_EXPORT void mxc_kernel_batch_norm_train_##suffix(                 \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(const T, gamma),        \
      MXC_KERNEL_BUFFER(const T, beta), MXC_KERNEL_BUFFER(T, y),               \
      MXC_KERNEL_BUFFER(T, mean), MXC_KERNEL_BUFFER(T, var),                   \
      MXC_KERNEL_BUFFER(T, invstd), MXC_KERNEL_BUFFER(T, scratch),             \
      int64_t outer, int64_t channels, int64_t inner, int64_t eps_bits);       \
  MXC_KERNEL_EXPORT void mxc_kernel_batch_norm_backward_##suffix(              \
      MXC_KERNEL_BUFFER(const T, dy), MXC_KERNEL_BUFFER(const T, x),           \
      MXC_KERNEL_BUFFER(const T, gamma), MXC_KERNEL_BUFFER(const T, mean),     \
      MXC_KERNEL_BUFFER(const T, invstd), MXC_KERNEL_BUFFER(T, dx),            \
      MXC_KERNEL_BUFFER(T, dgamma), MXC_KERNEL_BUFFER(T, dbeta),               \
      int64_t outer, int64_t channels, int64_t inner, int64_t eps_bits);

MXC_DECLARE_BATCH_NORM_KERNELS(float, f32)
MXC_DECLARE_BATCH_NORM_KERNELS(double, f64)

// LRN across channels (lrn.cc) on (outer, channels, inner) x: y, and with
// _norm also LRN's hidden output tmp_norm; alpha, beta and knorm are doubles
// passed as their IEEE-754 bit patterns.
#define MXC_DECLARE_LRN_KERNELS(T, suffix)                                     \
  MXC_KERNEL_EXPORT void mxc_kernel_lrn_##suffix(                              \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(T, y), int64_t outer,   \
      int64_t channels, int64_t inner, int64_t nsize, int64_t alpha_bits,      \
      int64_t beta_bits, int64_t knorm_bits);                                  \
  MXC_KERNEL_EXPORT void mxc_kernel_lrn_norm_##suffix(                         \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(T, y),                  \
      MXC_KERNEL_BUFFER(T, norm), int64_t outer, int64_t channels,             \
      int64_t inner, int64_t nsize, int64_t alpha_bits, int64_t beta_bits,     \
      int64_t knorm_bits);

MXC_DECLARE_LRN_KERNELS(float, f32)
MXC_DECLARE_LRN_KERNELS(double, f64)
#undef MXC_DECLARE_LRN_KERNELS

// Ordering (ordering.cc).
#define MXC_DECLARE_ORDERING_KERNELS(T, suffix)                                \
  /* topk along the middle axis of (outer, n, inner) x: mode 0 the first k    \
     values (outer, k, inner), 1 their positions (as T), 2 a mask (outer, n,  \
     inner); descending unless is_ascend, ties by position. */                \
  MXC_KERNEL_EXPORT void mxc_kernel_topk_##suffix(                             \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(T, y), int64_t outer,   \
      int64_t n, int64_t inner, int64_t k, int64_t is_ascend, int64_t mode);

MXC_DECLARE_ORDERING_KERNELS(float, f32)
MXC_DECLARE_ORDERING_KERNELS(double, f64)
#undef MXC_DECLARE_ORDERING_KERNELS

// Detection (detection.cc).
#define MXC_DECLARE_DETECTION_KERNELS(T, suffix)                               \
  /* MXNet's _contrib_box_nms on (batch, num, width) records: mode 0 the      \
     output records, 1 each output row's source position (or -1); the        \
     thresholds are the IEEE-754 bits of doubles; formats 1 corner, 0        \
     center. */                                                               \
  MXC_KERNEL_EXPORT void mxc_kernel_box_nms_##suffix(                          \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(T, y), int64_t batch,   \
      int64_t num, int64_t width, int64_t overlap_bits, int64_t valid_bits,    \
      int64_t topk, int64_t coord_start, int64_t score_index,                 \
      int64_t id_index, int64_t background_id, int64_t force_suppress,        \
      int64_t in_corner, int64_t out_corner, int64_t mode);                   \
  /* MXNet's _contrib_bipartite_matching on (batch, rows, cols) scores:      \
     mode 0 the row markers (batch, rows), 1 the column markers. */          \
  MXC_KERNEL_EXPORT void mxc_kernel_bipartite_matching_##suffix(               \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(T, y), int64_t batch,   \
      int64_t rows, int64_t cols, int64_t threshold_bits, int64_t is_ascend,   \
      int64_t topk, int64_t mode);                                             \
  /* MXNet's _contrib_MultiBoxTarget: anchors (A, 4), labels (B, L, W),      \
     class predictions (B, C, A); mode 0 location targets (B, A * 4), 1      \
     their masks, 2 class targets (B, A); float parameters as the IEEE-754   \
     bits of doubles. */                                                      \
  MXC_KERNEL_EXPORT void mxc_kernel_multibox_target_##suffix(                  \
      MXC_KERNEL_BUFFER(const T, anchors), MXC_KERNEL_BUFFER(const T, labels), \
      MXC_KERNEL_BUFFER(const T, preds), MXC_KERNEL_BUFFER(T, y),              \
      int64_t batch, int64_t anchors_n, int64_t labels_n, int64_t width,       \
      int64_t classes, int64_t overlap_bits, int64_t ignore_bits,              \
      int64_t ratio_bits, int64_t thresh_bits, int64_t v0_bits,                \
      int64_t v1_bits, int64_t v2_bits, int64_t v3_bits, int64_t mode);        \
  /* MXNet's _contrib_MultiBoxDetection: cls_prob (B, C, A), loc_pred (B,    \
     A * 4), anchors (A, 4) -> y (B, A, 6); float parameters as the IEEE-754 \
     bits of doubles. */                                                      \
  MXC_KERNEL_EXPORT void mxc_kernel_multibox_detection_##suffix(               \
      MXC_KERNEL_BUFFER(const T, prob), MXC_KERNEL_BUFFER(const T, loc),       \
      MXC_KERNEL_BUFFER(const T, anchors), MXC_KERNEL_BUFFER(T, y),            \
      int64_t batch, int64_t classes, int64_t anchors_n, int64_t clip,         \
      int64_t threshold_bits, int64_t nms_bits, int64_t force_suppress,        \
      int64_t nms_topk, int64_t v0_bits, int64_t v1_bits, int64_t v2_bits,     \
      int64_t v3_bits);                                                        \
  /* MXNet's _linalg_syevd on (batch, n, n) symmetric matrices: mode 0 the   \
     eigenvectors as rows (batch, n, n), 1 the eigenvalues ascending. */      \
  MXC_KERNEL_EXPORT void mxc_kernel_syevd_##suffix(                            \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(T, y), int64_t batch,   \
      int64_t n, int64_t mode);                                                \
  /* LU with partial pivoting of (batch, n, n): mode 0 the inverse, 1 the    \
     determinant, 2 its sign, 3 log|det|, 4 the packed LU, 5 the 1-based     \
     pivots. */                                                               \
  MXC_KERNEL_EXPORT void mxc_kernel_lu_##suffix(                               \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(T, y), int64_t batch,   \
      int64_t n, int64_t mode);

MXC_DECLARE_DETECTION_KERNELS(float, f32)
MXC_DECLARE_DETECTION_KERNELS(double, f64)
#undef MXC_DECLARE_DETECTION_KERNELS

// Rotated regions and RPN proposals (region.cc).
#define MXC_DECLARE_REGION_KERNELS(T, suffix)                                  \
  /* MXNet's _contrib_RROIAlign: x (n, c, h, w), rois (r, 6) -> y (r, c, ph, \
     pw); spatial_scale as the IEEE-754 bits of a double. */                 \
  MXC_KERNEL_EXPORT void mxc_kernel_rroi_align_##suffix(                       \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(const T, rois),         \
      MXC_KERNEL_BUFFER(T, y), int64_t n, int64_t c, int64_t h, int64_t w,     \
      int64_t r, int64_t ph, int64_t pw, int64_t scale_bits,                   \
      int64_t sampling_ratio);                                                 \
  /* MXNet's _contrib_Proposal / _contrib_MultiProposal: cls_prob (batch,   \
     2 anchors, height, width), bbox (batch, 4 anchors, height, width),      \
     im_info (batch, 3), base anchors (anchors, 4) -> y (batch * post_nms,   \
     6) rows (image, x1, y1, x2, y2, score). */                              \
  MXC_KERNEL_EXPORT void mxc_kernel_proposal_##suffix(                         \
      MXC_KERNEL_BUFFER(const T, cls_prob), MXC_KERNEL_BUFFER(const T, bbox),  \
      MXC_KERNEL_BUFFER(const T, im_info), MXC_KERNEL_BUFFER(const T, base),   \
      MXC_KERNEL_BUFFER(T, y), int64_t batch, int64_t anchors, int64_t height, \
      int64_t width, int64_t pre_nms, int64_t post_nms,                        \
      int64_t threshold_bits, int64_t min_size, int64_t stride,                \
      int64_t iou_loss);

MXC_DECLARE_REGION_KERNELS(float, f32)
MXC_DECLARE_REGION_KERNELS(double, f64)
#undef MXC_DECLARE_REGION_KERNELS

#undef MXC_DECLARE_BACKWARD_KERNELS

#endif // MXC_RUNTIME_SRC_KERNELS_KERNELS_H
