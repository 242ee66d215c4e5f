// host_kernels.cc - GPU twins of the library kernels that have no GPU
// implementation yet: ordering (topk, hence sort / argsort / topk),
// detection (box_nms, bipartite_matching, MultiBoxTarget,
// MultiBoxDetection), linear algebra (syevd, LU: det, slogdet, inverse) and
// regions (RROIAlign, Proposal). Each `mxc_cuda_kernel_<name>` copies its
// buffers from the device to the host once the thread's stream has reached
// the call (the step's inputs are written), runs the CPU kernel
// (runtime/src/kernels/) there, and copies the buffers it writes back,
// waiting for them. Correct on any device, not fast: the step waits for its
// stream twice and moves its buffers over PCIe both ways (docs/gpu.md says
// which ops run this way).
#include "internal.h"

#include "../kernels/kernels.h"
#include "mxc/runtime/c_api.h"
#include "mxc/runtime/cuda.h"
#include "mxc/runtime/plan.h"

#include <cstdint>
#include <exception>
#include <string>
#include <type_traits>
#include <vector>

namespace mxc::runtime::cuda {
namespace {

CUdeviceptr devPtr(const void *p) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
}

/// One kernel buffer (rank 1, contiguous: LowerKernelCalls) staged on the
/// host.
template <typename T> struct Staged {
  using Elem = std::remove_const_t<T>;
  T *device;
  int64_t size;
  std::vector<Elem> host; // (allocated inside onHost: its failure is the step's)
  Staged(T *aligned, int64_t offset, int64_t size) : device(aligned + offset), size(size) {}
  size_t bytes() const { return host.size() * sizeof(Elem); }
};

/// Copies every buffer to the host (in order on the thread's stream of the
/// current device, then waited for), runs `fn`, and copies the non-const
/// buffers back. Errors are the step's (mxcKernelReportError).
template <typename Fn, typename... B>
void onHost(const char *what, Fn &&fn, Staged<B> &...bufs) {
  if (kernelErrorReported())
    return; // the step failed before (its buffers may not exist)
  try {
    int device = mgpuCurrentDevice();
    const Driver &d = bindDevice(device);
    CUstream s = streamOf(device);
    auto in = [&](auto &b) {
      b.host.resize(size_t(b.size > 0 ? b.size : 0));
      if (b.bytes())
        check(d.cuMemcpyDtoHAsync(b.host.data(), devPtr(b.device), b.bytes(), s),
              "copy to the host");
    };
    (in(bufs), ...);
    synchronizeNow(device);
    fn();
    auto out = [&](auto &b) {
      using T = std::remove_reference_t<decltype(*b.device)>;
      if constexpr (!std::is_const_v<T>)
        if (b.bytes())
          check(d.cuMemcpyHtoDAsync(devPtr(b.device), b.host.data(), b.bytes(), s),
                "copy to the device");
    };
    (out(bufs), ...);
    // Waited for here (the stream was waited for once already): the host
    // copies are freed when the twin returns, and only a discrete GPU's
    // driver is sure to have staged pageable memory by then.
    synchronizeNow(device);
  } catch (const std::exception &e) {
    mxcKernelReportError((std::string(what) + " (on the host, for the GPU): " + e.what()).c_str());
  }
}

} // namespace
} // namespace mxc::runtime::cuda

using mxc::runtime::cuda::onHost;
using mxc::runtime::cuda::Staged;

// A twin's buffer argument list, its staging, and the CPU kernel's buffer
// arguments on the host copy.
// (the kernel ABI's buffer, its allocated pointer and stride unused: rank 1,
// contiguous)
#define MXC_HOST_BUF(T, name) T *, T *name, int64_t name##_offset, int64_t name##_size, int64_t
#define MXC_STAGE(T, name) Staged<T> name##_h(name, name##_offset, name##_size)
#define MXC_ON_HOST(name)                                                      \
  name##_h.host.data(), name##_h.host.data(), int64_t(0), int64_t(name##_h.host.size()), \
      int64_t(1)

#define MXC_DEFINE_HOST_TWINS(T, suffix)                                                  \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_topk_##suffix(                                   \
      MXC_HOST_BUF(const T, x), MXC_HOST_BUF(T, y), int64_t outer, int64_t n,            \
      int64_t inner, int64_t k, int64_t is_ascend, int64_t mode) {                       \
    MXC_STAGE(const T, x);                                                               \
    MXC_STAGE(T, y);                                                                     \
    onHost(                                                                              \
        "topk",                                                                          \
        [&] {                                                                            \
          mxc_kernel_topk_##suffix(MXC_ON_HOST(x), MXC_ON_HOST(y), outer, n, inner, k,   \
                                   is_ascend, mode);                                     \
        },                                                                               \
        x_h, y_h);                                                                       \
  }                                                                                      \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_box_nms_##suffix(                                \
      MXC_HOST_BUF(const T, x), MXC_HOST_BUF(T, y), int64_t batch, int64_t num,          \
      int64_t width, int64_t overlap_bits, int64_t valid_bits, int64_t topk,             \
      int64_t coord_start, int64_t score_index, int64_t id_index, int64_t background_id, \
      int64_t force_suppress, int64_t in_corner, int64_t out_corner, int64_t mode) {     \
    MXC_STAGE(const T, x);                                                               \
    MXC_STAGE(T, y);                                                                     \
    onHost(                                                                              \
        "box_nms",                                                                       \
        [&] {                                                                            \
          mxc_kernel_box_nms_##suffix(MXC_ON_HOST(x), MXC_ON_HOST(y), batch, num, width, \
                                      overlap_bits, valid_bits, topk, coord_start,       \
                                      score_index, id_index, background_id,              \
                                      force_suppress, in_corner, out_corner, mode);      \
        },                                                                               \
        x_h, y_h);                                                                       \
  }                                                                                      \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_bipartite_matching_##suffix(                     \
      MXC_HOST_BUF(const T, x), MXC_HOST_BUF(T, y), int64_t batch, int64_t rows,         \
      int64_t cols, int64_t threshold_bits, int64_t is_ascend, int64_t topk,             \
      int64_t mode) {                                                                    \
    MXC_STAGE(const T, x);                                                               \
    MXC_STAGE(T, y);                                                                     \
    onHost(                                                                              \
        "bipartite_matching",                                                            \
        [&] {                                                                            \
          mxc_kernel_bipartite_matching_##suffix(MXC_ON_HOST(x), MXC_ON_HOST(y), batch,  \
                                                 rows, cols, threshold_bits, is_ascend,  \
                                                 topk, mode);                            \
        },                                                                               \
        x_h, y_h);                                                                       \
  }                                                                                      \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_multibox_target_##suffix(                        \
      MXC_HOST_BUF(const T, anchors), MXC_HOST_BUF(const T, labels),                     \
      MXC_HOST_BUF(const T, preds), MXC_HOST_BUF(T, y), int64_t batch, int64_t anchors_n,\
      int64_t labels_n, int64_t width, int64_t classes, int64_t overlap_bits,            \
      int64_t ignore_bits, int64_t ratio_bits, int64_t thresh_bits, int64_t v0_bits,     \
      int64_t v1_bits, int64_t v2_bits, int64_t v3_bits, int64_t mode) {                 \
    MXC_STAGE(const T, anchors);                                                         \
    MXC_STAGE(const T, labels);                                                          \
    MXC_STAGE(const T, preds);                                                           \
    MXC_STAGE(T, y);                                                                     \
    onHost(                                                                              \
        "MultiBoxTarget",                                                                \
        [&] {                                                                            \
          mxc_kernel_multibox_target_##suffix(                                           \
              MXC_ON_HOST(anchors), MXC_ON_HOST(labels), MXC_ON_HOST(preds),             \
              MXC_ON_HOST(y), batch, anchors_n, labels_n, width, classes, overlap_bits,  \
              ignore_bits, ratio_bits, thresh_bits, v0_bits, v1_bits, v2_bits, v3_bits,  \
              mode);                                                                     \
        },                                                                               \
        anchors_h, labels_h, preds_h, y_h);                                              \
  }                                                                                      \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_multibox_detection_##suffix(                     \
      MXC_HOST_BUF(const T, prob), MXC_HOST_BUF(const T, loc),                           \
      MXC_HOST_BUF(const T, anchors), MXC_HOST_BUF(T, y), int64_t batch, int64_t classes,\
      int64_t anchors_n, int64_t clip, int64_t threshold_bits, int64_t nms_bits,         \
      int64_t force_suppress, int64_t nms_topk, int64_t v0_bits, int64_t v1_bits,        \
      int64_t v2_bits, int64_t v3_bits) {                                                \
    MXC_STAGE(const T, prob);                                                            \
    MXC_STAGE(const T, loc);                                                             \
    MXC_STAGE(const T, anchors);                                                         \
    MXC_STAGE(T, y);                                                                     \
    onHost(                                                                              \
        "MultiBoxDetection",                                                             \
        [&] {                                                                            \
          mxc_kernel_multibox_detection_##suffix(                                        \
              MXC_ON_HOST(prob), MXC_ON_HOST(loc), MXC_ON_HOST(anchors), MXC_ON_HOST(y), \
              batch, classes, anchors_n, clip, threshold_bits, nms_bits, force_suppress, \
              nms_topk, v0_bits, v1_bits, v2_bits, v3_bits);                             \
        },                                                                               \
        prob_h, loc_h, anchors_h, y_h);                                                  \
  }                                                                                      \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_syevd_##suffix(                                  \
      MXC_HOST_BUF(const T, x), MXC_HOST_BUF(T, y), int64_t batch, int64_t n,            \
      int64_t mode) {                                                                    \
    MXC_STAGE(const T, x);                                                               \
    MXC_STAGE(T, y);                                                                     \
    onHost(                                                                              \
        "syevd",                                                                         \
        [&] {                                                                            \
          mxc_kernel_syevd_##suffix(MXC_ON_HOST(x), MXC_ON_HOST(y), batch, n, mode);     \
        },                                                                               \
        x_h, y_h);                                                                       \
  }                                                                                      \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_lu_##suffix(                                     \
      MXC_HOST_BUF(const T, x), MXC_HOST_BUF(T, y), int64_t batch, int64_t n,            \
      int64_t mode) {                                                                    \
    MXC_STAGE(const T, x);                                                               \
    MXC_STAGE(T, y);                                                                     \
    onHost(                                                                              \
        "LU", [&] { mxc_kernel_lu_##suffix(MXC_ON_HOST(x), MXC_ON_HOST(y), batch, n, mode); }, \
        x_h, y_h);                                                                       \
  }                                                                                      \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_rroi_align_##suffix(                             \
      MXC_HOST_BUF(const T, x), MXC_HOST_BUF(const T, rois), MXC_HOST_BUF(T, y),         \
      int64_t n, int64_t c, int64_t h, int64_t w, int64_t r, int64_t ph, int64_t pw,     \
      int64_t scale_bits, int64_t sampling_ratio) {                                      \
    MXC_STAGE(const T, x);                                                               \
    MXC_STAGE(const T, rois);                                                            \
    MXC_STAGE(T, y);                                                                     \
    onHost(                                                                              \
        "RROIAlign",                                                                     \
        [&] {                                                                            \
          mxc_kernel_rroi_align_##suffix(MXC_ON_HOST(x), MXC_ON_HOST(rois),              \
                                         MXC_ON_HOST(y), n, c, h, w, r, ph, pw,          \
                                         scale_bits, sampling_ratio);                    \
        },                                                                               \
        x_h, rois_h, y_h);                                                               \
  }                                                                                      \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_proposal_##suffix(                               \
      MXC_HOST_BUF(const T, cls_prob), MXC_HOST_BUF(const T, bbox),                      \
      MXC_HOST_BUF(const T, im_info), MXC_HOST_BUF(const T, base), MXC_HOST_BUF(T, y),   \
      int64_t batch, int64_t anchors, int64_t height, int64_t width, int64_t pre_nms,    \
      int64_t post_nms, int64_t threshold_bits, int64_t min_size, int64_t stride,        \
      int64_t iou_loss) {                                                                \
    MXC_STAGE(const T, cls_prob);                                                        \
    MXC_STAGE(const T, bbox);                                                            \
    MXC_STAGE(const T, im_info);                                                         \
    MXC_STAGE(const T, base);                                                            \
    MXC_STAGE(T, y);                                                                     \
    onHost(                                                                              \
        "Proposal",                                                                      \
        [&] {                                                                            \
          mxc_kernel_proposal_##suffix(MXC_ON_HOST(cls_prob), MXC_ON_HOST(bbox),         \
                                       MXC_ON_HOST(im_info), MXC_ON_HOST(base),          \
                                       MXC_ON_HOST(y), batch, anchors, height, width,    \
                                       pre_nms, post_nms, threshold_bits, min_size,      \
                                       stride, iou_loss);                                \
        },                                                                               \
        cls_prob_h, bbox_h, im_info_h, base_h, y_h);                                     \
  }

// The gradients cuDNN cannot compute, under their own names (the cuDNN twins
// have the plain ones): pooling's (lp, pooling_convention 'full', padding as
// wide as the window), and LRN's where cuDNN's window is not MXNet's (wider
// than 16 channels, knorm or beta below cuDNN's limits: the forward then ran
// as generated kernels, which write tmp_norm, which the CPU's kernel reads;
// y, which only cuDNN's gradient reads, is not copied).
#define MXC_DEFINE_HOST_GRADIENT_TWINS(T, suffix)                                         \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_pooling_backward_host_##suffix(                  \
      MXC_HOST_BUF(const T, dy), MXC_HOST_BUF(const T, x), MXC_HOST_BUF(const T, y),     \
      MXC_HOST_BUF(T, dx), int64_t kind, int64_t p_value, int64_t count_include_pad,     \
      int64_t planes, int64_t in_d, int64_t in_h, int64_t in_w, int64_t k_d, int64_t k_h,\
      int64_t k_w, int64_t out_d, int64_t out_h, int64_t out_w, int64_t stride_d,        \
      int64_t stride_h, int64_t stride_w, int64_t pad_d, int64_t pad_h, int64_t pad_w) { \
    MXC_STAGE(const T, dy);                                                              \
    MXC_STAGE(const T, x);                                                               \
    MXC_STAGE(const T, y);                                                               \
    MXC_STAGE(T, dx);                                                                    \
    onHost(                                                                              \
        "pooling gradient",                                                              \
        [&] {                                                                            \
          mxc_kernel_pooling_backward_##suffix(                                          \
              MXC_ON_HOST(dy), MXC_ON_HOST(x), MXC_ON_HOST(y), MXC_ON_HOST(dx), kind,    \
              p_value, count_include_pad, planes, in_d, in_h, in_w, k_d, k_h, k_w, out_d,\
              out_h, out_w, stride_d, stride_h, stride_w, pad_d, pad_h, pad_w);          \
        },                                                                               \
        dy_h, x_h, y_h, dx_h);                                                           \
  }                                                                                      \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_lrn_backward_host_##suffix(                      \
      MXC_HOST_BUF(const T, dy), MXC_HOST_BUF(const T, x), MXC_HOST_BUF(const T, norm),  \
      const T * /* y */, const T *, int64_t, int64_t, int64_t, MXC_HOST_BUF(T, dx),      \
      int64_t outer, int64_t channels, int64_t inner, int64_t nsize, int64_t alpha_bits, \
      int64_t beta_bits, int64_t knorm_bits) {                                           \
    MXC_STAGE(const T, dy);                                                              \
    MXC_STAGE(const T, x);                                                               \
    MXC_STAGE(const T, norm);                                                            \
    MXC_STAGE(T, dx);                                                                    \
    onHost(                                                                              \
        "LRN gradient",                                                                  \
        [&] {                                                                            \
          mxc_kernel_lrn_backward_##suffix(                                              \
              MXC_ON_HOST(dy), MXC_ON_HOST(x), MXC_ON_HOST(norm),                        \
              /* y: unread by the CPU kernel */ MXC_ON_HOST(norm), MXC_ON_HOST(dx),      \
              outer, channels, inner, nsize, alpha_bits, beta_bits, knorm_bits);         \
        },                                                                               \
        dy_h, x_h, norm_h, dx_h);                                                        \
  }

MXC_DEFINE_HOST_GRADIENT_TWINS(float, f32)
MXC_DEFINE_HOST_GRADIENT_TWINS(double, f64)

MXC_DEFINE_HOST_TWINS(float, f32)
MXC_DEFINE_HOST_TWINS(double, f64)
