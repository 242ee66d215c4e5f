//===- region.cc - RROIAlign, Proposal / MultiProposal --------------------===//
//
// mxc_kernel_rroi_align_{f32,f64} (kernels.h): MXNet 1.9.1's
// _contrib_RROIAlign (src/operator/contrib/rroi_align.cc RROIAlignForward,
// pre_calc_for_bilinear_interpolate) for data (N, C, H, W) and rois (R, 6)
// rows (batch index, center x, center y, width, height, angle in degrees):
// each (PH, PW) bin of the rotated region is the mean of a grid of bilinear
// samples, summed in the element type in MXNet's order (iy, then ix); each
// sample's positions and weights are computed once and applied to every
// channel (nothing is stored per sample: a huge adaptive grid costs time,
// not memory). A batch index that truncates to outside [0, N), a
// non-finite field or an empty map gives the region 0 (MXNet's kernel reads
// outside data).
//
// mxc_kernel_proposal_{f32,f64}: MXNet 1.9.1's _contrib_Proposal and
// _contrib_MultiProposal (proposal.cc / multi_proposal.cc Forward and
// their utils: BBoxTransformInv / IoUTransformInv, FilterBox,
// ReverseArgsort, NonMaximumSuppression) for cls_prob (N, 2 A, H, W),
// bbox_pred (N, 4 A, H, W), im_info (N, 3) and the A base anchors (A, 4)
// that the lowering computes (GenerateAnchors): one image at a time (in
// parallel), the shifted anchors in MXNet's order (h, w, a), the float arithmetic as MXNet's
// expressions write it (double constants promote as there). Writes (N *
// post, 6) rows (image, x1, y1, x2, y2, score); the lowering slices the rois
// and the scores out of them. MXNet stops with a check when an image's
// (height, width) / feature_stride exceeds the map; here nothing is masked
// then.
//
//===----------------------------------------------------------------------===//
#include "kernels.h"
#include "parallel.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace {

using mxc::kernels::parallelFor;

template <typename T>
void rroiAlign(const T *data, const T *rois, T *y, int64_t n, int64_t c, int64_t h, int64_t w,
               int64_t r, int64_t ph, int64_t pw, T spatialScale, int64_t samplingRatio) {
  const int64_t height = h, width = w;
  parallelFor(r, r * c * ph * pw * 4, [&](int64_t lo, int64_t hi) {
    std::vector<T> acc(static_cast<size_t>(c));
    for (int64_t ri = lo; ri < hi; ++ri) {
      const T *roi = rois + ri * 6;
      T *out = y + ri * c * ph * pw;
      std::fill(out, out + c * ph * pw, T(0));
      // a batch index that truncates to outside [0, N), a non-finite field
      // or an empty map: the region stays 0 (MXNet's kernel reads outside
      // data)
      bool finite = true;
      for (int k = 0; k < 6; ++k)
        finite = finite && std::isfinite(roi[k]);
      if (!finite || !(roi[0] > T(-1)) || !(roi[0] < T(n)) || h == 0 || w == 0)
        continue;
      const int64_t batch = static_cast<int64_t>(roi[0]);
      T centerW = roi[1] * spatialScale, centerH = roi[2] * spatialScale;
      T roiW = roi[3] * spatialScale, roiH = roi[4] * spatialScale;
      T theta = static_cast<T>(roi[5] * M_PI / 180.0);
      roiW = std::max(roiW, T(1.));
      roiH = std::max(roiH, T(1.));
      T startH = static_cast<T>(-roiH / 2.0), startW = static_cast<T>(-roiW / 2.0);
      T binH = roiH / static_cast<T>(ph), binW = roiW / static_cast<T>(pw);
      // (64-bit counts: an adaptive grid of a huge region is slow, as
      // MXNet's, but does not overflow; samples are not stored)
      int64_t gridH = samplingRatio > 0 ? samplingRatio
                                        : static_cast<int64_t>(std::ceil(roiH / ph));
      int64_t gridW = samplingRatio > 0 ? samplingRatio
                                        : static_cast<int64_t>(std::ceil(roiW / pw));
      const T count = static_cast<T>(gridH * gridW);
      T cosT = std::cos(theta), sinT = std::sin(theta);
      const T *image = data + batch * c * h * w;
      for (int64_t py = 0; py < ph; ++py)
        for (int64_t px = 0; px < pw; ++px) {
          std::fill(acc.begin(), acc.end(), T(0));
          for (int64_t iy = 0; iy < gridH; ++iy) {
            const T yy = startH + py * binH +
                         static_cast<T>(iy + .5f) * binH / static_cast<T>(gridH);
            for (int64_t ix = 0; ix < gridW; ++ix) {
              const T xx = startW + px * binW +
                           static_cast<T>(ix + .5f) * binW / static_cast<T>(gridW);
              T x = xx * cosT + yy * sinT + centerW;
              T yv = yy * cosT - xx * sinT + centerH;
              // outside: four zero weights (adds 0, as MXNet's pre_calc)
              if (yv < -1.0 || yv > height || x < -1.0 || x > width) {
                for (int64_t ci = 0; ci < c; ++ci)
                  acc[ci] += T(0) * image[ci * h * w] + T(0) * image[ci * h * w] +
                             T(0) * image[ci * h * w] + T(0) * image[ci * h * w];
                continue;
              }
              if (yv <= 0)
                yv = 0;
              if (x <= 0)
                x = 0;
              int64_t yLow = static_cast<int64_t>(yv), xLow = static_cast<int64_t>(x), yHigh,
                      xHigh;
              if (yLow >= height - 1) {
                yHigh = yLow = height - 1;
                yv = static_cast<T>(yLow);
              } else {
                yHigh = yLow + 1;
              }
              if (xLow >= width - 1) {
                xHigh = xLow = width - 1;
                x = static_cast<T>(xLow);
              } else {
                xHigh = xLow + 1;
              }
              T ly = yv - yLow, lx = x - xLow;
              T hy = 1. - ly, hx = 1. - lx;
              T w1 = hy * hx, w2 = hy * lx, w3 = ly * hx, w4 = ly * lx;
              int64_t p1 = yLow * w + xLow, p2 = yLow * w + xHigh, p3 = yHigh * w + xLow,
                      p4 = yHigh * w + xHigh;
              for (int64_t ci = 0; ci < c; ++ci) {
                const T *plane = image + ci * h * w;
                acc[ci] += w1 * plane[p1] + w2 * plane[p2] + w3 * plane[p3] + w4 * plane[p4];
              }
            }
          }
          for (int64_t ci = 0; ci < c; ++ci)
            out[(ci * ph + py) * pw + px] = acc[ci] / count;
        }
    }
  });
}

struct ProposalArgs {
  int64_t batch, anchors, height, width;
  int64_t preNms, postNms, minSize, stride;
  float threshold;
  bool iouLoss;
};

/// One image b: its (post, 6) rows of y.
template <typename T>
void proposalImage(const T *clsProb, const T *bboxPred, const T *imInfo, T *y,
                   const ProposalArgs &a, const T *base, int64_t b) {
  const int64_t A = a.anchors, H = a.height, W = a.width, count = A * H * W;
  const T *scores = clsProb + (b * 2 * A + A) * H * W; // the foreground half
  const T *deltas = bboxPred + b * 4 * A * H * W;
  const T *info = imInfo + b * 3;
  const float stride = static_cast<float>(a.stride);
  std::vector<T> boxes(static_cast<size_t>(count * 5));
  // shifted anchors and their scores, index = (h * W + w) * A + anchor
  for (int64_t j = 0; j < H; ++j)
    for (int64_t k = 0; k < W; ++k)
      for (int64_t i = 0; i < A; ++i) {
        T *p = &boxes[static_cast<size_t>(((j * W + k) * A + i) * 5)];
        p[0] = base[i * 4 + 0] + k * stride;
        p[1] = base[i * 4 + 1] + j * stride;
        p[2] = base[i * 4 + 2] + k * stride;
        p[3] = base[i * 4 + 3] + j * stride;
        p[4] = scores[(i * H + j) * W + k];
      }
  const float imHeight = static_cast<float>(info[0]), imWidth = static_cast<float>(info[1]);
  const int realHeight = static_cast<int>(info[0] / stride);
  const int realWidth = static_cast<int>(info[1] / stride);
  for (int64_t index = 0; index < count; ++index) {
    int64_t an = index % A, w = (index / A) % W, h = index / (W * A);
    T *p = &boxes[static_cast<size_t>(index * 5)];
    float dx = deltas[((an * 4 + 0) * H + h) * W + w];
    float dy = deltas[((an * 4 + 1) * H + h) * W + w];
    float d2 = deltas[((an * 4 + 2) * H + h) * W + w];
    float d3 = deltas[((an * 4 + 3) * H + h) * W + w];
    float x1, y1, x2, y2;
    if (a.iouLoss) {
      x1 = static_cast<float>(p[0]) + dx, y1 = static_cast<float>(p[1]) + dy;
      x2 = static_cast<float>(p[2]) + d2, y2 = static_cast<float>(p[3]) + d3;
    } else {
      float width = p[2] - p[0] + 1.0;
      float height = p[3] - p[1] + 1.0;
      float ctrX = p[0] + 0.5 * (width - 1.0);
      float ctrY = p[1] + 0.5 * (height - 1.0);
      float predCtrX = dx * width + ctrX;
      float predCtrY = dy * height + ctrY;
      float predW = std::exp(d2) * width;
      float predH = std::exp(d3) * height;
      x1 = predCtrX - 0.5 * (predW - 1.0);
      y1 = predCtrY - 0.5 * (predH - 1.0);
      x2 = predCtrX + 0.5 * (predW - 1.0);
      y2 = predCtrY + 0.5 * (predH - 1.0);
    }
    p[0] = std::max(std::min(x1, imWidth - 1.0f), 0.0f);
    p[1] = std::max(std::min(y1, imHeight - 1.0f), 0.0f);
    p[2] = std::max(std::min(x2, imWidth - 1.0f), 0.0f);
    p[3] = std::max(std::min(y2, imHeight - 1.0f), 0.0f);
    if (h >= realHeight || w >= realWidth)
      p[4] = -1.0;
  }
  // FilterBox: too small boxes grow by min_size / 2 a side and score -1
  const float minSize = static_cast<float>(a.minSize * info[2]);
  for (int64_t i = 0; i < count; ++i) {
    T *p = &boxes[static_cast<size_t>(i * 5)];
    float iw = p[2] - p[0] + 1.0f, ih = p[3] - p[1] + 1.0f;
    if (iw < minSize || ih < minSize) {
      p[0] -= minSize / 2, p[1] -= minSize / 2, p[2] += minSize / 2, p[3] += minSize / 2;
      p[4] = -1.0f;
    }
  }
  int64_t pre = a.preNms > 0 ? a.preNms : count;
  pre = std::min(pre, count);
  const int64_t post = std::min(a.postNms, pre);
  std::vector<int64_t> order(static_cast<size_t>(count));
  std::iota(order.begin(), order.end(), int64_t(0));
  std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
    return boxes[static_cast<size_t>(p * 5 + 4)] > boxes[static_cast<size_t>(q * 5 + 4)];
  });
  std::vector<T> dets(static_cast<size_t>(pre * 5)), area(static_cast<size_t>(pre));
  for (int64_t i = 0; i < pre; ++i)
    std::copy_n(&boxes[static_cast<size_t>(order[i] * 5)], 5, &dets[static_cast<size_t>(i * 5)]);
  for (int64_t i = 0; i < pre; ++i) {
    const T *d = &dets[static_cast<size_t>(i * 5)];
    area[i] = (d[2] - d[0] + 1) * (d[3] - d[1] + 1);
  }
  std::vector<char> suppressed(static_cast<size_t>(pre), 0);
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < pre && static_cast<int64_t>(keep.size()) < post; ++i) {
    if (suppressed[i])
      continue;
    keep.push_back(i);
    const T *d = &dets[static_cast<size_t>(i * 5)];
    float ix1 = d[0], iy1 = d[1], ix2 = d[2], iy2 = d[3], iarea = area[i];
    for (int64_t j = i + 1; j < pre; ++j) {
      if (suppressed[j])
        continue;
      const T *e = &dets[static_cast<size_t>(j * 5)];
      float xx1 = std::max<float>(ix1, e[0]), yy1 = std::max<float>(iy1, e[1]);
      float xx2 = std::min<float>(ix2, e[2]), yy2 = std::min<float>(iy2, e[3]);
      float ww = std::max(0.0f, xx2 - xx1 + 1.0f), hh = std::max(0.0f, yy2 - yy1 + 1.0f);
      float inter = ww * hh;
      float ovr = inter / (iarea + static_cast<float>(area[j]) - inter);
      if (ovr > a.threshold)
        suppressed[j] = 1;
    }
  }
  const int64_t kept = static_cast<int64_t>(keep.size()); // >= 1: count >= 1 (shape rule)
  for (int64_t i = 0; kept > 0 && i < a.postNms; ++i) {
    T *o = y + (b * a.postNms + i) * 6;
    const T *d = &dets[static_cast<size_t>(keep[i % kept] * 5)];
    o[0] = static_cast<T>(b);
    std::copy_n(d, 5, o + 1);
  }
}

template <typename T>
void proposal(const T *clsProb, const T *bboxPred, const T *imInfo, const T *base, T *y,
              const ProposalArgs &a) {
  int64_t count = a.anchors * a.height * a.width;
  int64_t pre = a.preNms > 0 ? std::min(a.preNms, count) : count;
  parallelFor(a.batch, a.batch * (count * 20 + pre * a.postNms), [&](int64_t lo, int64_t hi) {
    for (int64_t b = lo; b < hi; ++b)
      proposalImage(clsProb, bboxPred, imInfo, y, a, base, b);
  });
}

} // namespace

#define MXC_DEFINE_REGION_KERNELS(T, suffix)                                   \
  MXC_KERNEL_EXPORT void mxc_kernel_rroi_align_##suffix(                       \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(const T, rois),         \
      MXC_KERNEL_BUFFER(T, y), int64_t n, int64_t c, int64_t h, int64_t w,     \
      int64_t r, int64_t ph, int64_t pw, int64_t scale_bits,                   \
      int64_t sampling_ratio) {                                                \
    (void)x_allocated, (void)x_size, (void)x_stride;                           \
    (void)rois_allocated, (void)rois_size, (void)rois_stride;                  \
    (void)y_allocated, (void)y_size, (void)y_stride;                           \
    rroiAlign<T>(x + x_offset, rois + rois_offset, y + y_offset, n, c, h, w, r, ph, pw,      \
                 static_cast<T>(static_cast<float>(mxc::kernels::paramFromBits(scale_bits))), \
                 sampling_ratio);                                              \
  }                                                                            \
  MXC_KERNEL_EXPORT void mxc_kernel_proposal_##suffix(                         \
      MXC_KERNEL_BUFFER(const T, cls_prob), MXC_KERNEL_BUFFER(const T, bbox),  \
      MXC_KERNEL_BUFFER(const T, im_info), MXC_KERNEL_BUFFER(const T, base),   \
      MXC_KERNEL_BUFFER(T, y), int64_t batch, int64_t anchors, int64_t height, \
      int64_t width, int64_t pre_nms, int64_t post_nms,                        \
      int64_t threshold_bits, int64_t min_size, int64_t stride,                \
      int64_t iou_loss) {                                                      \
    (void)cls_prob_allocated, (void)cls_prob_size, (void)cls_prob_stride;      \
    (void)bbox_allocated, (void)bbox_size, (void)bbox_stride;                  \
    (void)im_info_allocated, (void)im_info_size, (void)im_info_stride;         \
    (void)base_allocated, (void)base_size, (void)base_stride;                  \
    (void)y_allocated, (void)y_size, (void)y_stride;                           \
    ProposalArgs a{batch,   anchors,  height,   width, pre_nms, post_nms,      \
                   min_size, stride,                                           \
                   static_cast<float>(mxc::kernels::paramFromBits(threshold_bits)), \
                   iou_loss != 0};                                             \
    proposal<T>(cls_prob + cls_prob_offset, bbox + bbox_offset,                \
                im_info + im_info_offset, base + base_offset, y + y_offset, a); \
  }

MXC_DEFINE_REGION_KERNELS(float, f32)
MXC_DEFINE_REGION_KERNELS(double, f64)
