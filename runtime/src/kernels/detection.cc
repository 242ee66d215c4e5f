//===- detection.cc - box_nms, bipartite_matching, MultiBox*, syevd -------===//
//
// mxc_kernel_box_nms_{f32,f64} (kernels.h): MXNet 1.9.1's
// _contrib_box_nms (src/operator/contrib/bounding_box-inl.h BoxNMSForward,
// bounding_box-common.h nms_impl) on (batch, num, width) records, one batch
// at a time, as its CPU kernels compute it:
//   1. valid records: score > valid_thresh (and id != background_id when
//      id_index >= 0);
//   2. the valid ones ordered by descending score, equal scores by position
//      (MXNet's stable sorts), and only the first topk (all for topk < 0)
//      taken on;
//   3. greedy suppression: each kept record, in that order, removes every
//      later one (same class unless force_suppress or id_index < 0) whose
//      IoU with it exceeds overlap_thresh;
//   4. the kept records copied to the front of the batch's output rows,
//      the rest -1; the record (mode 1) holds each output row's source
//      position over all batches (batch * num + i) or -1, for the gradient;
//   5. in_format != out_format: the coordinates converted, except in rows
//      whose first coordinate is negative (MXNet's corner_to_center /
//      center_to_corner skip them, which also skips the -1 rows).
// topk = 0 copies the data and records every position; no valid record in
// the whole input gives -1 everywhere. The thresholds are float in MXNet:
// they arrive as the IEEE-754 bits of the double of that float.
//
//===----------------------------------------------------------------------===//
#include "kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

namespace {

template <typename T> T intersect(const T *a, const T *b, bool corner) {
  T w;
  if (corner) {
    T left = a[0] > b[0] ? a[0] : b[0];
    T right = a[2] < b[2] ? a[2] : b[2];
    w = right - left;
  } else {
    T aw = a[2] / 2, bw = b[2] / 2;
    T al = a[0] - aw, ar = a[0] + aw, bl = b[0] - bw, br = b[0] + bw;
    T left = bl > al ? bl : al;
    T right = br < ar ? br : ar;
    w = right - left;
  }
  return w > 0 ? w : T(0);
}

template <typename T> T area(const T *box, bool corner) {
  T w = corner ? box[2] - box[0] : box[2];
  T h = corner ? box[3] - box[1] : box[3];
  return w < 0 || h < 0 ? T(0) : w * h;
}

template <typename T>
void boxNms(const T *x, T *y, int64_t batch, int64_t num, int64_t width,
            double overlap, double validThresh, int64_t topk, int64_t coordStart,
            int64_t scoreIndex, int64_t idIndex, int64_t backgroundId, bool force,
            bool inCorner, bool outCorner, int64_t mode) {
  const int64_t total = batch * num;
  const int64_t rowLen = mode == 0 ? width : 1;
  std::fill(y, y + total * rowLen, T(-1));
  int64_t k = topk < 0 ? num : std::min(num, topk);
  if (k < 1) { // MXNet: the data as it is, every position recorded
    for (int64_t i = 0; i < total; ++i) {
      if (mode == 0)
        std::memcpy(y + i * width, x + i * width, sizeof(T) * width);
      else
        y[i] = T(i);
    }
    return;
  }
  const T valid = static_cast<T>(validThresh);
  auto isValid = [&](int64_t i) {
    const T *r = x + i * width;
    if (!(r[scoreIndex] > valid))
      return false;
    return idIndex < 0 || r[idIndex] != static_cast<T>(backgroundId);
  };
  std::vector<int64_t> order;
  std::vector<T> areas(static_cast<size_t>(num));
  for (int64_t b = 0; b < batch; ++b) {
    order.clear();
    for (int64_t i = b * num; i < (b + 1) * num; ++i)
      if (isValid(i))
        order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
      return x[p * width + scoreIndex] > x[q * width + scoreIndex];
    });
    if (static_cast<int64_t>(order.size()) > k)
      order.resize(static_cast<size_t>(k));
    for (int64_t p : order)
      areas[p - b * num] = area(x + p * width + coordStart, inCorner);
    std::vector<char> gone(order.size(), 0);
    for (size_t r = 0; r < order.size(); ++r) {
      if (gone[r])
        continue;
      const T *ref = x + order[r] * width;
      for (size_t p = r + 1; p < order.size(); ++p) {
        if (gone[p])
          continue;
        const T *pos = x + order[p] * width;
        if (!force && idIndex >= 0 &&
            static_cast<int>(ref[idIndex]) != static_cast<int>(pos[idIndex]))
          continue;
        T inter = intersect(ref + coordStart, pos + coordStart, inCorner) *
                  intersect(ref + coordStart + 1, pos + coordStart + 1, inCorner);
        T iou = inter / (areas[order[r] - b * num] + areas[order[p] - b * num] - inter);
        if (iou > static_cast<T>(static_cast<float>(overlap)))
          gone[p] = 1;
      }
    }
    int64_t count = 0;
    for (size_t r = 0; r < order.size(); ++r) {
      if (gone[r])
        continue;
      int64_t dst = b * num + count++;
      if (mode == 1) {
        y[dst] = T(order[r]);
        continue;
      }
      T *out = y + dst * width;
      std::memcpy(out, x + order[r] * width, sizeof(T) * width);
      T *c = out + coordStart;
      if (inCorner != outCorner && !(c[0] < 0)) {
        if (outCorner) { // center -> corner
          T hw = c[2] / 2, hh = c[3] / 2, cx = c[0], cy = c[1];
          c[0] = cx - hw, c[1] = cy - hh, c[2] = cx + hw, c[3] = cy + hh;
        } else { // corner -> center
          T l = c[0], t = c[1], r2 = c[2], bt = c[3];
          c[0] = (l + r2) / 2, c[1] = (t + bt) / 2, c[2] = r2 - l, c[3] = bt - t;
        }
      }
    }
  }
}

/// _contrib_bipartite_matching (BipartiteMatchingForward, bipartite_matching):
/// per batch, the (row, col) pairs by score (descending, ascending with
/// is_ascend; equal scores by position: MXNet's stable sorts), each pair
/// whose row and column are both free matched while its score passes the
/// threshold (the first failing score ends the batch), stopping once more
/// than topk (> 0) pairs are matched, as MXNet's count > topk test does.
/// mode 0 writes the row markers (batch, row), 1 the column markers.
template <typename T>
void bipartiteMatching(const T *x, T *y, int64_t batch, int64_t rows, int64_t cols,
                       double threshold, bool ascend, int64_t topk, int64_t mode) {
  const int64_t stride = rows * cols;
  const T thr = static_cast<T>(static_cast<float>(threshold));
  std::vector<int64_t> order(static_cast<size_t>(stride));
  std::vector<T> rmark(static_cast<size_t>(rows)), cmark(static_cast<size_t>(cols));
  for (int64_t b = 0; b < batch; ++b) {
    const T *score = x + b * stride;
    std::iota(order.begin(), order.end(), int64_t(0));
    std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
      return ascend ? score[p] < score[q] : score[p] > score[q];
    });
    std::fill(rmark.begin(), rmark.end(), T(-1));
    std::fill(cmark.begin(), cmark.end(), T(-1));
    int64_t count = 0;
    for (int64_t idx : order) {
      int64_t r = idx / cols, c = idx % cols;
      if (rmark[r] != T(-1) || cmark[c] != T(-1))
        continue;
      if (!(ascend ? score[idx] < thr : score[idx] > thr))
        break;
      rmark[r] = T(c);
      cmark[c] = T(r);
      if (topk > 0 && ++count > topk)
        break;
    }
    if (mode == 0)
      std::copy(rmark.begin(), rmark.end(), y + b * rows);
    else
      std::copy(cmark.begin(), cmark.end(), y + b * cols);
  }
}

/// _contrib_MultiBoxTarget (multibox_target-inl.h / multibox_target.cc,
/// MultiBoxTargetForward) for anchors (A, 4), labels (B, L, W) and class
/// predictions (B, C, A), as MXNet's CPU kernel: the IoU of every anchor
/// and label box (safe division: 0 for an empty union), each valid ground
/// truth (labels up to the first class -1) greedily given its best free
/// anchor, then every other anchor its best ground truth, positive above
/// overlap_threshold; negatives all the rest, or with negative mining the
/// num_positive * ratio free anchors below negative_mining_thresh with the
/// lowest background probability (softmax of cls_preds), stable order.
/// mode 0 writes the location targets (B, A * 4), 1 the masks, 2 the class
/// targets (B, A: label + 1, 0 background, ignore_label otherwise).
template <typename T>
void multiBoxTarget(const T *anchors, const T *labels, const T *clsPreds, T *y,
                    int64_t batch, int64_t numAnchors, int64_t numLabels, int64_t width,
                    int64_t numClasses, float overlapThreshold, float ignoreLabel,
                    float miningRatio, float miningThresh, const float var[4],
                    int64_t mode) {
  const int64_t A = numAnchors, L = numLabels;
  const int64_t rowLen = mode == 2 ? A : A * 4;
  std::fill(y, y + batch * rowLen, mode == 2 ? static_cast<T>(ignoreLabel) : T(0));
  std::vector<T> overlaps(static_cast<size_t>(A * L));
  for (int64_t b = 0; b < batch; ++b) {
    const T *label = labels + b * L * width;
    for (int64_t j = 0; j < A; ++j) {
      const T *a = anchors + j * 4;
      for (int64_t k = 0; k < L; ++k) {
        const T *g = label + k * width + 1;
        T iw = std::max(T(0), std::min(a[2], g[2]) - std::max(a[0], g[0]));
        T ih = std::max(T(0), std::min(a[3], g[3]) - std::max(a[1], g[1]));
        T inter = iw * ih;
        T uni = (a[2] - a[0]) * (a[3] - a[1]) + (g[2] - g[0]) * (g[3] - g[1]) - inter;
        overlaps[j * L + k] = uni == T(0) ? T(0) : inter / uni;
      }
    }
    int64_t numValid = 0;
    while (numValid < L && static_cast<float>(label[numValid * width]) != -1.0f)
      ++numValid;
    if (numValid == 0)
      continue;
    std::vector<char> gtFlags(static_cast<size_t>(numValid), 0);
    std::vector<std::pair<float, int64_t>> match(static_cast<size_t>(A), {-1.0f, -1});
    std::vector<signed char> flags(static_cast<size_t>(A), -1); // -1: don't care
    int64_t numPositive = 0;
    while (std::find(gtFlags.begin(), gtFlags.end(), 0) != gtFlags.end()) {
      int64_t bestAnchor = -1, bestGt = -1;
      float best = 1e-6f;
      for (int64_t j = 0; j < A; ++j) {
        if (flags[j] == 1)
          continue;
        for (int64_t k = 0; k < numValid; ++k) {
          if (gtFlags[k])
            continue;
          float iou = static_cast<float>(overlaps[j * L + k]);
          if (iou > best)
            bestAnchor = j, bestGt = k, best = iou;
        }
      }
      if (bestAnchor == -1)
        break;
      match[bestAnchor] = {best, bestGt};
      ++numPositive;
      gtFlags[bestGt] = 1;
      flags[bestAnchor] = 1;
    }
    auto bestOf = [&](int64_t j) {
      int64_t bestGt = -1;
      float best = -1.0f;
      for (int64_t k = 0; k < numValid; ++k) {
        float iou = static_cast<float>(overlaps[j * L + k]);
        if (iou > best)
          bestGt = k, best = iou;
      }
      return std::make_pair(best, bestGt);
    };
    if (overlapThreshold > 0)
      for (int64_t j = 0; j < A; ++j) {
        if (flags[j] == 1)
          continue;
        auto m = bestOf(j);
        if (m.second != -1) {
          match[j] = m;
          if (m.first > overlapThreshold) {
            ++numPositive;
            gtFlags[m.second] = 1;
            flags[j] = 1;
          }
        }
      }
    if (miningRatio > 0) {
      const T *pred = clsPreds + b * numClasses * A;
      int64_t numNegative = static_cast<int>(numPositive * miningRatio);
      numNegative = std::min(numNegative, A - numPositive);
      if (numNegative > 0) {
        std::vector<std::pair<float, int64_t>> cand; // (-background prob, anchor)
        for (int64_t j = 0; j < A; ++j) {
          if (flags[j] == 1)
            continue;
          if (match[j].first < 0) {
            auto m = bestOf(j);
            if (m.second != -1)
              match[j] = m;
          }
          if (match[j].first < miningThresh && flags[j] == -1) {
            T maxVal = pred[j];
            for (int64_t k = 1; k < numClasses; ++k)
              maxVal = std::max(maxVal, pred[j + A * k]);
            T sum = 0;
            for (int64_t k = 0; k < numClasses; ++k)
              sum += std::exp(pred[j + A * k] - maxVal);
            T prob = std::exp(pred[j] - maxVal) / sum;
            cand.push_back({static_cast<float>(-prob), j});
          }
        }
        std::stable_sort(cand.begin(), cand.end(),
                         [](const auto &p, const auto &q) { return p.first > q.first; });
        for (int64_t i = 0; i < numNegative && i < static_cast<int64_t>(cand.size()); ++i)
          flags[cand[i].second] = 0;
      }
    } else {
      for (int64_t j = 0; j < A; ++j)
        if (flags[j] != 1)
          flags[j] = 0;
    }
    T *out = y + b * rowLen;
    for (int64_t j = 0; j < A; ++j) {
      if (flags[j] == 1) {
        const T *g = label + width * match[j].second;
        if (mode == 2) {
          out[j] = g[0] + T(1);
        } else if (mode == 1) {
          std::fill(out + j * 4, out + j * 4 + 4, T(1));
        } else { // AssignLocTargets, in float as MXNet
          const T *a = anchors + j * 4;
          float al = a[0], at = a[1], ar = a[2], ab = a[3];
          float aw = ar - al, ah = ab - at, ax = (al + ar) * 0.5f, ay = (at + ab) * 0.5f;
          float gl = g[1], gt = g[2], gr = g[3], gb = g[4];
          float gw = gr - gl, gh = gb - gt, gx = (gl + gr) * 0.5f, gy = (gt + gb) * 0.5f;
          out[j * 4] = T((gx - ax) / aw / var[0]);
          out[j * 4 + 1] = T((gy - ay) / ah / var[1]);
          out[j * 4 + 2] = T(std::log(gw / aw) / var[2]);
          out[j * 4 + 3] = T(std::log(gh / ah) / var[3]);
        }
      } else if (flags[j] == 0 && mode == 2) {
        out[j] = T(0);
      }
    }
  }
}

/// _contrib_MultiBoxDetection (multibox_detection.cc
/// MultiBoxDetectionForward) for cls_prob (B, C, A), loc_pred (B, A * 4),
/// anchors (A, 4), written as MXNet's CPU code: per anchor the best
/// non-background class (class 0 is the background; a score below
/// threshold makes it background) and the decoded box (clipped to [0, 1]
/// with clip); the detections compacted to the front as [id, score, x1, y1,
/// x2, y2], the rest -1; then, for 0 < nms_threshold <= 1, ordered by score
/// (stable), the first nms_topk kept (the others' ids -1), and greedy
/// suppression (same class unless force_suppress) at IoU >= nms_threshold
/// by setting the id to -1. y is (B, A, 6).
template <typename T>
void multiBoxDetection(const T *clsProb, const T *locPred, const T *anchors, T *y,
                       int64_t batch, int64_t numClasses, int64_t numAnchors, bool clip,
                       float threshold, float nmsThreshold, bool force, int64_t nmsTopk,
                       const float var[4]) {
  const int64_t A = numAnchors;
  std::fill(y, y + batch * A * 6, T(-1));
  std::vector<T> rows(static_cast<size_t>(A * 6)), temp(static_cast<size_t>(A * 6));
  auto overlap = [](const T *a, const T *b) {
    T w = std::max(T(0), std::min(a[2], b[2]) - std::max(a[0], b[0]));
    T h = std::max(T(0), std::min(a[3], b[3]) - std::max(a[1], b[1]));
    T i = w * h;
    T u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - i;
    return u <= 0.f ? T(0) : T(i / u);
  };
  for (int64_t b = 0; b < batch; ++b) {
    const T *prob = clsProb + b * numClasses * A;
    const T *loc = locPred + b * A * 4;
    T *out = y + b * A * 6;
    for (int64_t i = 0; i < A; ++i) {
      T score = -1;
      int id = 0;
      for (int64_t j = 1; j < numClasses; ++j) {
        T v = prob[j * A + i];
        if (v > score)
          score = v, id = static_cast<int>(j);
      }
      if (id > 0 && score < threshold)
        id = 0;
      T *r = rows.data() + i * 6;
      r[0] = T(id - 1);
      r[1] = score;
      const T *a = anchors + i * 4;
      const T *p = loc + i * 4;
      T aw = a[2] - a[0], ah = a[3] - a[1];
      T ax = (a[0] + a[2]) / 2.f, ay = (a[1] + a[3]) / 2.f;
      T ox = p[0] * var[0] * aw + ax, oy = p[1] * var[1] * ah + ay;
      T ow = std::exp(p[2] * var[2]) * aw / 2, oh = std::exp(p[3] * var[3]) * ah / 2;
      auto c = [&](T v) { return clip ? std::max(T(0), std::min(T(1), v)) : v; };
      r[2] = c(ox - ow), r[3] = c(oy - oh), r[4] = c(ox + ow), r[5] = c(oy + oh);
    }
    int64_t valid = 0;
    for (int64_t i = 0; i < A; ++i)
      if (rows[i * 6] >= 0)
        std::copy(rows.begin() + i * 6, rows.begin() + i * 6 + 6, out + 6 * valid++);
    if (valid < 1 || nmsThreshold <= 0 || nmsThreshold > 1)
      continue;
    std::copy(out, out + A * 6, temp.begin());
    std::vector<int64_t> order(static_cast<size_t>(valid));
    std::iota(order.begin(), order.end(), int64_t(0));
    std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
      return out[p * 6 + 1] > out[q * 6 + 1];
    });
    int64_t keep = valid;
    if (nmsTopk > 0 && nmsTopk < keep) {
      keep = nmsTopk;
      for (int64_t i = keep; i < valid; ++i)
        out[i * 6] = -1;
    }
    for (int64_t i = 0; i < keep; ++i)
      std::copy(temp.begin() + order[i] * 6, temp.begin() + order[i] * 6 + 6, out + i * 6);
    for (int64_t i = 0; i < keep; ++i) {
      if (out[i * 6] < 0)
        continue;
      for (int64_t j = i + 1; j < keep; ++j) {
        if (out[j * 6] < 0)
          continue;
        if ((force || out[i * 6] == out[j * 6]) &&
            overlap(out + i * 6 + 2, out + j * 6 + 2) >= nmsThreshold)
          out[j * 6] = -1;
      }
    }
  }
}

/// _linalg_syevd (la_op-inl.h syevd, SyevdEigenVecSign) on (batch, n, n):
/// the eigenvalues of each symmetric matrix (its lower triangle read, as
/// MXNet's row-major 'L' LAPACK call) ascending and the eigenvectors as the
/// rows of U, each row's sign making its first largest-magnitude entry
/// positive. Cyclic Jacobi rotations in double until the off-diagonal part
/// is below 1e-15 of the matrix's norm (or 100 sweeps). mode 0 writes U
/// (batch, n, n), 1 the eigenvalues (batch, n).
template <typename T>
void syevd(const T *x, T *y, int64_t batch, int64_t n, int64_t mode) {
  std::vector<double> a(static_cast<size_t>(n * n)), v(static_cast<size_t>(n * n));
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t b = 0; b < batch; ++b) {
    const T *m = x + b * n * n;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j <= i; ++j)
        a[i * n + j] = a[j * n + i] = static_cast<double>(m[i * n + j]);
    for (int64_t i = 0; i < n * n; ++i)
      v[i] = i % (n + 1) == 0 ? 1.0 : 0.0;
    double norm = 0;
    for (double e : a)
      norm += e * e;
    for (int sweep = 0; sweep < 100; ++sweep) {
      double off = 0;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j)
          if (i != j)
            off += a[i * n + j] * a[i * n + j];
      if (off <= 1e-30 * norm || off == 0)
        break;
      for (int64_t p = 0; p < n; ++p)
        for (int64_t q = p + 1; q < n; ++q) {
          double apq = a[p * n + q];
          if (apq == 0)
            continue;
          double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
          double t = (theta >= 0 ? 1.0 : -1.0) /
                     (std::fabs(theta) + std::sqrt(theta * theta + 1));
          double c = 1 / std::sqrt(t * t + 1), s = t * c;
          for (int64_t k = 0; k < n; ++k) { // A <- J^T A J, V <- V J
            double akp = a[k * n + p], akq = a[k * n + q];
            a[k * n + p] = c * akp - s * akq;
            a[k * n + q] = s * akp + c * akq;
          }
          for (int64_t k = 0; k < n; ++k) {
            double apk = a[p * n + k], aqk = a[q * n + k];
            a[p * n + k] = c * apk - s * aqk;
            a[q * n + k] = s * apk + c * aqk;
          }
          for (int64_t k = 0; k < n; ++k) {
            double vkp = v[k * n + p], vkq = v[k * n + q];
            v[k * n + p] = c * vkp - s * vkq;
            v[k * n + q] = s * vkp + c * vkq;
          }
        }
    }
    std::iota(order.begin(), order.end(), int64_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t p, int64_t q) { return a[p * n + p] < a[q * n + q]; });
    for (int64_t r = 0; r < n; ++r) {
      int64_t col = order[r];
      if (mode == 1) {
        y[b * n + r] = static_cast<T>(a[col * n + col]);
        continue;
      }
      int64_t big = 0;
      for (int64_t k = 1; k < n; ++k)
        if (std::fabs(v[k * n + col]) > std::fabs(v[big * n + col]))
          big = k;
      double sign = v[big * n + col] < 0 ? -1.0 : 1.0;
      for (int64_t k = 0; k < n; ++k)
        y[b * n * n + r * n + k] = static_cast<T>(sign * v[k * n + col]);
    }
  }
}

/// _linalg_inverse / _linalg_det / _linalg_slogdet (la_op-inl.h, LAPACK
/// getrf / getri in MXNet) on (batch, n, n): LU with partial pivoting in
/// double (the row of the largest magnitude, the first on ties). mode 0
/// writes the inverse (batch, n, n; a singular matrix gives inf / NaN, as
/// LAPACK's result does), 1 the determinant (batch), 2 its sign and 3
/// log|det| (batch; 0 and -inf for a singular matrix), 4 the packed LU
/// factors (batch, n, n: U on and above the diagonal, L's multipliers
/// below), 5 the pivots (batch, n: the 1-based row swapped with row i).
template <typename T>
void luKernel(const T *x, T *y, int64_t batch, int64_t n, int64_t mode) {
  std::vector<double> a(static_cast<size_t>(n * n)), inv(static_cast<size_t>(n * n));
  std::vector<int64_t> piv(static_cast<size_t>(n));
  for (int64_t b = 0; b < batch; ++b) {
    const T *m = x + b * n * n;
    for (int64_t i = 0; i < n * n; ++i)
      a[i] = static_cast<double>(m[i]);
    double sign = 1, logabs = 0;
    bool singular = false;
    for (int64_t k = 0; k < n; ++k) {
      int64_t p = k;
      for (int64_t i = k + 1; i < n; ++i)
        if (std::fabs(a[i * n + k]) > std::fabs(a[p * n + k]))
          p = i;
      piv[k] = p;
      if (p != k) {
        for (int64_t j = 0; j < n; ++j)
          std::swap(a[k * n + j], a[p * n + j]);
        sign = -sign;
      }
      double d = a[k * n + k];
      if (d == 0) {
        singular = true;
        continue;
      }
      if (d < 0)
        sign = -sign;
      logabs += std::log(std::fabs(d));
      for (int64_t i = k + 1; i < n; ++i) {
        double f = a[i * n + k] / d;
        a[i * n + k] = f;
        for (int64_t j = k + 1; j < n; ++j)
          a[i * n + j] -= f * a[k * n + j];
      }
    }
    if (mode == 1 || mode == 2 || mode == 3) {
      double det = singular ? 0.0 : sign * std::exp(logabs);
      y[b] = static_cast<T>(mode == 1 ? det
                            : mode == 2 ? (singular ? 0.0 : sign)
                                        : (singular ? -INFINITY : logabs));
      continue;
    }
    if (mode == 4) {
      for (int64_t i = 0; i < n * n; ++i)
        y[b * n * n + i] = static_cast<T>(a[i]);
      continue;
    }
    if (mode == 5) {
      for (int64_t i = 0; i < n; ++i)
        y[b * n + i] = static_cast<T>(piv[i] + 1);
      continue;
    }
    // the inverse: solve L U X = P I column by column
    for (int64_t col = 0; col < n; ++col) {
      std::vector<double> e(static_cast<size_t>(n), 0.0);
      e[col] = 1;
      for (int64_t k = 0; k < n; ++k) // apply the row swaps in order
        std::swap(e[k], e[piv[k]]);
      for (int64_t i = 0; i < n; ++i) // L (unit diagonal)
        for (int64_t j = 0; j < i; ++j)
          e[i] -= a[i * n + j] * e[j];
      for (int64_t i = n - 1; i >= 0; --i) { // U
        for (int64_t j = i + 1; j < n; ++j)
          e[i] -= a[i * n + j] * e[j];
        e[i] /= a[i * n + i];
      }
      for (int64_t i = 0; i < n; ++i)
        inv[i * n + col] = e[i];
    }
    for (int64_t i = 0; i < n * n; ++i)
      y[b * n * n + i] = static_cast<T>(inv[i]);
  }
}

} // namespace

#define MXC_DEFINE_DETECTION_KERNELS(T, suffix)                                \
  MXC_KERNEL_EXPORT void mxc_kernel_box_nms_##suffix(                          \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(T, y), int64_t batch,   \
      int64_t num, int64_t width, int64_t overlap_bits, int64_t valid_bits,    \
      int64_t topk, int64_t coord_start, int64_t score_index,                 \
      int64_t id_index, int64_t background_id, int64_t force_suppress,        \
      int64_t in_corner, int64_t out_corner, int64_t mode) {                   \
    (void)x_allocated, (void)x_size, (void)x_stride, (void)y_allocated;        \
    (void)y_size, (void)y_stride;                                              \
    boxNms(x + x_offset, y + y_offset, batch, num, width,                     \
           mxc::kernels::paramFromBits(overlap_bits), mxc::kernels::paramFromBits(valid_bits), topk, coord_start,   \
           score_index, id_index, background_id, force_suppress != 0,         \
           in_corner != 0, out_corner != 0, mode);                             \
  }

#define MXC_DEFINE_MATCHING_KERNELS(T, suffix)                                 \
  MXC_KERNEL_EXPORT void mxc_kernel_bipartite_matching_##suffix(               \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(T, y), int64_t batch,   \
      int64_t rows, int64_t cols, int64_t threshold_bits, int64_t is_ascend,   \
      int64_t topk, int64_t mode) {                                            \
    (void)x_allocated, (void)x_size, (void)x_stride, (void)y_allocated;        \
    (void)y_size, (void)y_stride;                                              \
    bipartiteMatching(x + x_offset, y + y_offset, batch, rows, cols,          \
                      mxc::kernels::paramFromBits(threshold_bits), is_ascend != 0, topk, mode);   \
  }

#define MXC_DEFINE_MULTIBOX_KERNELS(T, suffix)                                 \
  MXC_KERNEL_EXPORT void mxc_kernel_multibox_target_##suffix(                  \
      MXC_KERNEL_BUFFER(const T, anchors), MXC_KERNEL_BUFFER(const T, labels), \
      MXC_KERNEL_BUFFER(const T, preds), MXC_KERNEL_BUFFER(T, y),              \
      int64_t batch, int64_t anchors_n, int64_t labels_n, int64_t width,       \
      int64_t classes, int64_t overlap_bits, int64_t ignore_bits,              \
      int64_t ratio_bits, int64_t thresh_bits, int64_t v0_bits,                \
      int64_t v1_bits, int64_t v2_bits, int64_t v3_bits, int64_t mode) {       \
    (void)anchors_allocated, (void)anchors_size, (void)anchors_stride;         \
    (void)labels_allocated, (void)labels_size, (void)labels_stride;            \
    (void)preds_allocated, (void)preds_size, (void)preds_stride;               \
    (void)y_allocated, (void)y_size, (void)y_stride;                           \
    const float var[4] = {float(mxc::kernels::paramFromBits(v0_bits)), float(mxc::kernels::paramFromBits(v1_bits)),  \
                          float(mxc::kernels::paramFromBits(v2_bits)), float(mxc::kernels::paramFromBits(v3_bits))}; \
    multiBoxTarget(anchors + anchors_offset, labels + labels_offset,          \
                   preds + preds_offset, y + y_offset, batch, anchors_n,      \
                   labels_n, width, classes, float(mxc::kernels::paramFromBits(overlap_bits)),   \
                   float(mxc::kernels::paramFromBits(ignore_bits)), float(mxc::kernels::paramFromBits(ratio_bits)), \
                   float(mxc::kernels::paramFromBits(thresh_bits)), var, mode);                   \
  }

#define MXC_DEFINE_MULTIBOX_DETECTION_KERNELS(T, suffix)                       \
  MXC_KERNEL_EXPORT void mxc_kernel_multibox_detection_##suffix(               \
      MXC_KERNEL_BUFFER(const T, prob), MXC_KERNEL_BUFFER(const T, loc),       \
      MXC_KERNEL_BUFFER(const T, anchors), MXC_KERNEL_BUFFER(T, y),            \
      int64_t batch, int64_t classes, int64_t anchors_n, int64_t clip,         \
      int64_t threshold_bits, int64_t nms_bits, int64_t force_suppress,        \
      int64_t nms_topk, int64_t v0_bits, int64_t v1_bits, int64_t v2_bits,     \
      int64_t v3_bits) {                                                       \
    (void)prob_allocated, (void)prob_size, (void)prob_stride;                  \
    (void)loc_allocated, (void)loc_size, (void)loc_stride;                     \
    (void)anchors_allocated, (void)anchors_size, (void)anchors_stride;         \
    (void)y_allocated, (void)y_size, (void)y_stride;                           \
    const float var[4] = {float(mxc::kernels::paramFromBits(v0_bits)), float(mxc::kernels::paramFromBits(v1_bits)),  \
                          float(mxc::kernels::paramFromBits(v2_bits)), float(mxc::kernels::paramFromBits(v3_bits))}; \
    multiBoxDetection(prob + prob_offset, loc + loc_offset,                   \
                      anchors + anchors_offset, y + y_offset, batch, classes,  \
                      anchors_n, clip != 0, float(mxc::kernels::paramFromBits(threshold_bits)),   \
                      float(mxc::kernels::paramFromBits(nms_bits)), force_suppress != 0,         \
                      nms_topk, var);                                          \
  }

#define MXC_DEFINE_SYEVD_KERNELS(T, suffix)                                    \
  MXC_KERNEL_EXPORT void mxc_kernel_syevd_##suffix(                            \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(T, y), int64_t batch,   \
      int64_t n, int64_t mode) {                                               \
    (void)x_allocated, (void)x_size, (void)x_stride, (void)y_allocated;        \
    (void)y_size, (void)y_stride;                                              \
    syevd(x + x_offset, y + y_offset, batch, n, mode);                        \
  }

#define MXC_DEFINE_LU_KERNELS(T, suffix)                                       \
  MXC_KERNEL_EXPORT void mxc_kernel_lu_##suffix(                               \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(T, y), int64_t batch,   \
      int64_t n, int64_t mode) {                                               \
    (void)x_allocated, (void)x_size, (void)x_stride, (void)y_allocated;        \
    (void)y_size, (void)y_stride;                                              \
    luKernel(x + x_offset, y + y_offset, batch, n, mode);                     \
  }

MXC_DEFINE_LU_KERNELS(float, f32)
MXC_DEFINE_LU_KERNELS(double, f64)
MXC_DEFINE_SYEVD_KERNELS(float, f32)
MXC_DEFINE_SYEVD_KERNELS(double, f64)
MXC_DEFINE_MULTIBOX_DETECTION_KERNELS(float, f32)
MXC_DEFINE_MULTIBOX_DETECTION_KERNELS(double, f64)
MXC_DEFINE_MULTIBOX_KERNELS(float, f32)
MXC_DEFINE_MULTIBOX_KERNELS(double, f64)
MXC_DEFINE_MATCHING_KERNELS(float, f32)
MXC_DEFINE_MATCHING_KERNELS(double, f64)
MXC_DEFINE_DETECTION_KERNELS(float, f32)
MXC_DEFINE_DETECTION_KERNELS(double, f64)
