// Gradient kernels of runtime/src/kernels (conv_backward.cc,
// pooling_backward.cc, lrn_backward.cc, batch_norm.cc) against naive loops:
// the convolution gradients against the adjoint of a direct convolution, the
// pooling gradient against per-window loops written from MXNet's rules, and
// the LRN and BatchNorm gradients against central differences of a direct
// forward (BatchNorm's forward statistics against it too).
#include "../src/kernels/kernels.h"
#include "kernels_test_util.h"
#include "mxc/runtime/threads.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <limits>
#include <random>
#include <vector>

namespace {

using mxc::test::randomVector;


struct Conv {
  int64_t batch, channels, filters, groups;
  int64_t in[3], k[3], stride[3], pad[3], dilate[3], out[3];
  void finish() {
    for (int i = 0; i < 3; ++i)
      out[i] = (in[i] + 2 * pad[i] - (1 + (k[i] - 1) * dilate[i])) / stride[i] + 1;
  }
  int64_t inVol() const { return in[0] * in[1] * in[2]; }
  int64_t outVol() const { return out[0] * out[1] * out[2]; }
  int64_t kVol() const { return k[0] * k[1] * k[2]; }
  int64_t wsSize() const { return channels / groups * kVol() * outVol(); }
};

// Visits every (n, f, o, c, kk, input index) term of the direct convolution.
template <typename F> void forEachTerm(const Conv &p, F f) {
  const int64_t cg = p.channels / p.groups, fg = p.filters / p.groups;
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t fi = 0; fi < p.filters; ++fi) {
      const int64_t g = fi / fg;
      for (int64_t od = 0; od < p.out[0]; ++od)
        for (int64_t oh = 0; oh < p.out[1]; ++oh)
          for (int64_t ow = 0; ow < p.out[2]; ++ow)
            for (int64_t c = 0; c < cg; ++c)
              for (int64_t kd = 0; kd < p.k[0]; ++kd)
                for (int64_t kh = 0; kh < p.k[1]; ++kh)
                  for (int64_t kw = 0; kw < p.k[2]; ++kw) {
                    int64_t id = od * p.stride[0] - p.pad[0] + kd * p.dilate[0];
                    int64_t ih = oh * p.stride[1] - p.pad[1] + kh * p.dilate[1];
                    int64_t iw = ow * p.stride[2] - p.pad[2] + kw * p.dilate[2];
                    if (id < 0 || id >= p.in[0] || ih < 0 || ih >= p.in[1] ||
                        iw < 0 || iw >= p.in[2])
                      continue;
                    int64_t yi = (((n * p.filters + fi) * p.out[0] + od) * p.out[1] + oh) * p.out[2] + ow;
                    int64_t wi = (((fi * cg + c) * p.k[0] + kd) * p.k[1] + kh) * p.k[2] + kw;
                    int64_t xi = (((n * p.channels + g * cg + c) * p.in[0] + id) * p.in[1] + ih) * p.in[2] + iw;
                    f(yi, wi, xi);
                  }
    }
}

template <typename T> void checkConv(Conv p, double tol) {
  p.finish();
  const int64_t cg = p.channels / p.groups;
  auto x = randomVector<T>(p.batch * p.channels * p.inVol(), 1);
  auto w = randomVector<T>(p.filters * cg * p.kVol(), 2);
  auto dy = randomVector<T>(p.batch * p.filters * p.outVol(), 3);
  std::vector<double> dxRef(x.size(), 0.0), dwRef(w.size(), 0.0);
  forEachTerm(p, [&](int64_t yi, int64_t wi, int64_t xi) {
    dxRef[xi] += double(dy[yi]) * double(w[wi]);
    dwRef[wi] += double(dy[yi]) * double(x[xi]);
  });
  std::vector<T> dx(x.size(), T(7)), dw(w.size(), T(7));
  std::vector<T> ws(std::max<int64_t>(p.wsSize(), 1), T(-3));
  auto call = [&](auto fn, std::vector<T> &a, std::vector<T> &out) {
    fn(BUF(a), BUF(dy), BUF(out), BUF(ws), p.batch, p.channels, p.filters,
       p.groups, p.in[0], p.in[1], p.in[2], p.k[0], p.k[1], p.k[2], p.out[0],
       p.out[1], p.out[2], p.stride[0], p.stride[1], p.stride[2], p.pad[0],
       p.pad[1], p.pad[2], p.dilate[0], p.dilate[1], p.dilate[2]);
  };
  if constexpr (std::is_same_v<T, float>) {
    call(mxc_kernel_conv_backward_data_f32, w, dx);
    call(mxc_kernel_conv_backward_weight_f32, x, dw);
  } else {
    call(mxc_kernel_conv_backward_data_f64, w, dx);
    call(mxc_kernel_conv_backward_weight_f64, x, dw);
  }
  for (size_t i = 0; i < dx.size(); ++i)
    ASSERT_NEAR(double(dx[i]), dxRef[i], tol) << "dx[" << i << "]";
  for (size_t i = 0; i < dw.size(); ++i)
    ASSERT_NEAR(double(dw[i]), dwRef[i], tol) << "dw[" << i << "]";
}

Conv conv2d(int64_t n, int64_t c, int64_t f, int64_t g, int64_t h, int64_t w,
            int64_t k, int64_t s, int64_t pd, int64_t d) {
  return Conv{n, c, f, g, {1, h, w}, {1, k, k}, {1, s, s}, {0, pd, pd},
              {1, d, d}, {}};
}

TEST(ConvBackwardKernel, Plain2DF64) { checkConv<double>(conv2d(2, 3, 4, 1, 6, 5, 3, 1, 0, 1), 1e-12); }
TEST(ConvBackwardKernel, StridePadDilateF64) { checkConv<double>(conv2d(2, 2, 3, 1, 7, 8, 3, 2, 1, 2), 1e-12); }
TEST(ConvBackwardKernel, GroupsF64) { checkConv<double>(conv2d(2, 4, 6, 2, 5, 5, 3, 1, 1, 1), 1e-12); }
TEST(ConvBackwardKernel, DepthwiseF32) { checkConv<float>(conv2d(1, 3, 3, 3, 6, 6, 3, 2, 1, 1), 1e-4); }
TEST(ConvBackwardKernel, PointwiseF32) { checkConv<float>(conv2d(2, 4, 5, 1, 4, 3, 1, 1, 0, 1), 1e-4); }
TEST(ConvBackwardKernel, PointwiseGroupsF64) { checkConv<double>(conv2d(2, 4, 6, 2, 3, 3, 1, 1, 0, 1), 1e-12); }
TEST(ConvBackwardKernel, Conv1DF64) {
  checkConv<double>(Conv{2, 3, 2, 1, {1, 1, 9}, {1, 1, 3}, {1, 1, 2}, {0, 0, 1}, {1, 1, 2}, {}}, 1e-12);
}
TEST(ConvBackwardKernel, Conv3DF64) {
  checkConv<double>(Conv{1, 2, 3, 1, {4, 5, 4}, {2, 3, 2}, {1, 2, 1}, {1, 0, 1}, {2, 1, 1}, {}}, 1e-12);
}
TEST(ConvBackwardKernel, StrideLeavesRemainderF32) {
  // in 8, kernel 3, stride 2: the last input column is never read.
  checkConv<float>(conv2d(1, 2, 2, 1, 8, 8, 3, 2, 0, 1), 1e-4);
}

// f32 on two kernel threads, where the runtime built with oneDNN splits the
// gradients into parts (conv_dnnl.cc): the data gradient by images (or
// groups for one image), the weight gradient by 16-filter blocks (or groups);
// CTest runs these again with MXC_CONV_IMPL=im2col.
TEST(ConvBackwardKernel, SplitsF32OnTwoThreads) {
  mxc::runtime::setKernelThreads(2);
  for (const Conv &c : {conv2d(3, 5, 24, 1, 9, 9, 3, 1, 1, 1),
                        conv2d(1, 7, 40, 1, 8, 10, 3, 2, 1, 1),
                        conv2d(2, 8, 8, 8, 9, 9, 3, 1, 1, 1),
                        conv2d(1, 12, 18, 3, 7, 7, 3, 1, 1, 2),
                        conv2d(4, 16, 32, 1, 5, 5, 1, 1, 0, 1),
                        conv2d(1, 16, 17, 1, 6, 6, 1, 1, 0, 1),
                        Conv{2, 6, 20, 1, {1, 1, 30}, {1, 1, 5}, {1, 1, 2},
                             {0, 0, 2}, {1, 1, 1}, {}}}) {
    SCOPED_TRACE("batch " + std::to_string(c.batch) + " channels " +
                 std::to_string(c.channels) + " filters " +
                 std::to_string(c.filters) + " groups " +
                 std::to_string(c.groups));
    checkConv<float>(c, 2e-4);
  }
}

// Pooling: the reference forward and backward, one window at a time.
struct Pool {
  int64_t kind, p, countIncludePad, planes;
  int64_t in[3], k[3], stride[3], pad[3], out[3];
};

template <typename T>
void referencePooling(const Pool &q, const std::vector<T> &x,
                      const std::vector<T> &dy, std::vector<T> &y,
                      std::vector<double> &dx) {
  const int64_t inVol = q.in[0] * q.in[1] * q.in[2];
  const int64_t outVol = q.out[0] * q.out[1] * q.out[2];
  y.assign(q.planes * outVol, T(0));
  dx.assign(q.planes * inVol, 0.0);
  for (int64_t pl = 0; pl < q.planes; ++pl)
    for (int64_t o = 0; o < outVol; ++o) {
      int64_t oc[3] = {o / (q.out[1] * q.out[2]), o / q.out[2] % q.out[1], o % q.out[2]};
      // Members of the window: inside the input; count_include_pad counts
      // positions of [start, start + k) that lie in [-pad, in + pad).
      std::vector<int64_t> members;
      int64_t padCount = 1;
      for (int i = 0; i < 3; ++i) {
        int64_t start = oc[i] * q.stride[i] - q.pad[i], cnt = 0;
        for (int64_t j = start; j < start + q.k[i]; ++j)
          cnt += j >= -q.pad[i] && j < q.in[i] + q.pad[i];
        padCount *= cnt;
      }
      for (int64_t a = 0; a < q.k[0]; ++a)
        for (int64_t b = 0; b < q.k[1]; ++b)
          for (int64_t c = 0; c < q.k[2]; ++c) {
            int64_t d = oc[0] * q.stride[0] - q.pad[0] + a;
            int64_t h = oc[1] * q.stride[1] - q.pad[1] + b;
            int64_t w = oc[2] * q.stride[2] - q.pad[2] + c;
            if (d >= 0 && d < q.in[0] && h >= 0 && h < q.in[1] && w >= 0 && w < q.in[2])
              members.push_back(pl * inVol + (d * q.in[1] + h) * q.in[2] + w);
          }
      const int64_t yi = pl * outVol + o;
      const double g = double(dy[yi]);
      if (q.kind == 0) {
        // Max: the first strictly largest element in window order.
        T best = std::numeric_limits<T>::lowest();
        int64_t arg = -1;
        for (int64_t m : members)
          if (arg < 0 || x[m] > best) {
            best = x[m];
            arg = m;
          }
        y[yi] = best;
        if (arg >= 0)
          dx[arg] += g;
      } else {
        double s = 0;
        for (int64_t m : members)
          s += q.kind == 3 ? std::pow(double(x[m]), double(q.p)) : double(x[m]);
        int64_t size = q.countIncludePad ? padCount : int64_t(members.size());
        y[yi] = T(q.kind == 1 ? s / double(size)
                  : q.kind == 2 ? s
                                : std::pow(s, 1.0 / double(q.p)));
        for (int64_t m : members)
          dx[m] += q.kind == 1 ? g / double(size)
                   : q.kind == 2 ? g
                                 : g * std::pow(double(x[m]) / double(y[yi]), double(q.p - 1));
      }
    }
}

// coarse: x rounded to halves, so that windows hold ties often (the first
// maximum must win: max pooling after a relu sees windows of zeros).
template <typename T> void checkPool(Pool q, double tol, bool full = false, bool coarse = false) {
  for (int i = 0; i < 3; ++i) {
    int64_t span = q.in[i] + 2 * q.pad[i] - q.k[i];
    q.out[i] = 1 + (full ? (span + q.stride[i] - 1) / q.stride[i] : span / q.stride[i]);
  }
  const int64_t inVol = q.in[0] * q.in[1] * q.in[2];
  const int64_t outVol = q.out[0] * q.out[1] * q.out[2];
  auto x = randomVector<T>(q.planes * inVol, 5);
  if (q.kind == 3)
    for (T &v : x)
      v = std::abs(v) + T(0.1);
  if (q.kind == 0) // ties: the first maximum must win
    x[1] = x[0];
  if (coarse)
    for (T &v : x)
      v = std::round(v * T(2)) / T(2);
  auto dy = randomVector<T>(q.planes * outVol, 6);
  std::vector<T> y;
  std::vector<double> dxRef;
  referencePooling(q, x, dy, y, dxRef);
  std::vector<T> dx(x.size(), T(9));
  auto call = [&](auto fn) {
    fn(BUF(dy), BUF(x), BUF(y), BUF(dx), q.kind, q.p, q.countIncludePad,
       q.planes, q.in[0], q.in[1], q.in[2], q.k[0], q.k[1], q.k[2], q.out[0],
       q.out[1], q.out[2], q.stride[0], q.stride[1], q.stride[2], q.pad[0],
       q.pad[1], q.pad[2]);
  };
  if constexpr (std::is_same_v<T, float>)
    call(mxc_kernel_pooling_backward_f32);
  else
    call(mxc_kernel_pooling_backward_f64);
  for (size_t i = 0; i < dx.size(); ++i)
    ASSERT_NEAR(double(dx[i]), dxRef[i], tol) << "dx[" << i << "]";
}

Pool pool2d(int64_t kind, int64_t cip, int64_t h, int64_t w, int64_t k,
            int64_t s, int64_t pd) {
  return Pool{kind, 2, cip, 3, {1, h, w}, {1, k, k}, {1, s, s}, {0, pd, pd}, {}};
}

TEST(PoolingBackwardKernel, MaxValidF64) { checkPool<double>(pool2d(0, 1, 6, 7, 3, 2, 0), 1e-12); }
TEST(PoolingBackwardKernel, MaxPadFullF32) { checkPool<float>(pool2d(0, 1, 7, 6, 3, 2, 1), 1e-6, true); }
// 2x2 and 3x3 windows take an unrolled search where they lie inside the
// input; many planes, so that the planes are split across the threads.
TEST(PoolingBackwardKernel, Max2x2TiesManyPlanesF32) {
  checkPool<float>(Pool{0, 2, 1, 64, {1, 24, 24}, {1, 2, 2}, {1, 2, 2}, {0, 0, 0}, {}}, 1e-6,
                   false, true);
  checkPool<float>(Pool{0, 2, 1, 40, {1, 7, 9}, {1, 2, 2}, {1, 2, 2}, {0, 1, 0}, {}}, 1e-6,
                   true, true);
}
TEST(PoolingBackwardKernel, Max3x3TiesF64) {
  checkPool<double>(Pool{0, 2, 1, 16, {1, 9, 11}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, {}}, 1e-12,
                    true, true);
}
TEST(PoolingBackwardKernel, MaxOverlapF64) { checkPool<double>(pool2d(0, 1, 5, 5, 3, 1, 1), 1e-12); }
TEST(PoolingBackwardKernel, AvgCountPadF64) { checkPool<double>(pool2d(1, 1, 6, 7, 3, 2, 1), 1e-12); }
TEST(PoolingBackwardKernel, AvgNoCountPadFullF64) { checkPool<double>(pool2d(1, 0, 7, 6, 3, 2, 1), 1e-12, true); }
TEST(PoolingBackwardKernel, AvgCountPadFullF32) { checkPool<float>(pool2d(1, 1, 7, 7, 2, 3, 1), 1e-6, true); }
TEST(PoolingBackwardKernel, SumF64) { checkPool<double>(pool2d(2, 1, 5, 6, 2, 2, 1), 1e-12); }
TEST(PoolingBackwardKernel, LpF64) { checkPool<double>(pool2d(3, 1, 5, 6, 2, 2, 0), 1e-10); }
TEST(PoolingBackwardKernel, Max1DAnd3DF64) {
  checkPool<double>(Pool{0, 1, 1, 2, {1, 1, 9}, {1, 1, 3}, {1, 1, 2}, {0, 0, 1}, {}}, 1e-12);
  checkPool<double>(Pool{1, 1, 1, 2, {4, 4, 5}, {2, 2, 3}, {2, 1, 2}, {1, 0, 1}, {}}, 1e-12);
}
TEST(PoolingBackwardKernel, GlobalF64) {
  checkPool<double>(Pool{0, 1, 1, 4, {1, 3, 5}, {1, 3, 5}, {1, 1, 1}, {0, 0, 0}, {}}, 1e-12);
  checkPool<double>(Pool{1, 1, 1, 4, {1, 3, 5}, {1, 3, 5}, {1, 1, 1}, {0, 0, 0}, {}}, 1e-12);
}

// LRN: forward in double, gradient by central differences.
void lrnForward(const std::vector<double> &x, std::vector<double> &y,
                std::vector<double> &norm, int64_t outer, int64_t channels,
                int64_t inner, int64_t nsize, double alpha, double beta,
                double knorm) {
  y.assign(x.size(), 0);
  norm.assign(x.size(), 0);
  const int64_t half = nsize / 2;
  for (int64_t n = 0; n < outer; ++n)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t i = 0; i < inner; ++i) {
        double s = 0;
        for (int64_t cc = c - half; cc < c - half + nsize; ++cc)
          if (cc >= 0 && cc < channels) {
            double v = x[(n * channels + cc) * inner + i];
            s += v * v;
          }
        int64_t idx = (n * channels + c) * inner + i;
        norm[idx] = knorm + alpha / double(nsize) * s;
        y[idx] = x[idx] * std::pow(norm[idx], -beta);
      }
}

template <typename T>
void checkLRN(int64_t nsize, double tol, int64_t channels = 7) {
  const int64_t outer = 2, inner = 3;
  const double alpha = 0.3, beta = 0.75, knorm = 2.0;
  auto xv = randomVector<double>(outer * channels * inner, 11);
  auto dyv = randomVector<double>(xv.size(), 12);
  std::vector<double> y, norm;
  lrnForward(xv, y, norm, outer, channels, inner, nsize, alpha, beta, knorm);
  std::vector<double> ref(xv.size());
  const double eps = 1e-6;
  for (size_t j = 0; j < xv.size(); ++j) {
    auto xp = xv, xm = xv;
    xp[j] += eps;
    xm[j] -= eps;
    std::vector<double> yp, ym, tmp;
    lrnForward(xp, yp, tmp, outer, channels, inner, nsize, alpha, beta, knorm);
    lrnForward(xm, ym, tmp, outer, channels, inner, nsize, alpha, beta, knorm);
    double d = 0;
    for (size_t i = 0; i < yp.size(); ++i)
      d += dyv[i] * (yp[i] - ym[i]) / (2 * eps);
    ref[j] = d;
  }
  std::vector<T> x(xv.begin(), xv.end()), dy(dyv.begin(), dyv.end()),
      nt(norm.begin(), norm.end()), yt(y.begin(), y.end()), dx(xv.size(), T(5));
  int64_t ab, bb, kb;
  std::memcpy(&ab, &alpha, 8);
  std::memcpy(&bb, &beta, 8);
  std::memcpy(&kb, &knorm, 8);
  if constexpr (std::is_same_v<T, float>)
    mxc_kernel_lrn_backward_f32(BUF(dy), BUF(x), BUF(nt), BUF(yt), BUF(dx), outer,
                                channels, inner, nsize, ab, bb, kb);
  else
    mxc_kernel_lrn_backward_f64(BUF(dy), BUF(x), BUF(nt), BUF(yt), BUF(dx), outer,
                                channels, inner, nsize, ab, bb, kb);
  for (size_t i = 0; i < dx.size(); ++i)
    ASSERT_NEAR(double(dx[i]), ref[i], tol) << "dx[" << i << "]";
}

TEST(LRNBackwardKernel, Nsize5F64) { checkLRN<double>(5, 1e-8); }
TEST(LRNBackwardKernel, Nsize3F32) { checkLRN<float>(3, 1e-5); }
TEST(LRNBackwardKernel, Nsize1F64) { checkLRN<double>(1, 1e-8); }
TEST(LRNBackwardKernel, EvenNsizeF64) { checkLRN<double>(4, 1e-8); }
TEST(LRNBackwardKernel, WindowWiderThanChannelsF64) { checkLRN<double>(9, 1e-8); }
// Wide windows: the kernel keeps the last window's terms in a ring of 32
// below that size and recomputes them from there on.
TEST(LRNBackwardKernel, WideWindowsF64) {
  checkLRN<double>(31, 1e-8, 40);
  checkLRN<double>(32, 1e-8, 40);
  checkLRN<double>(33, 1e-8, 40);
}

// BatchNorm in training: y = (x - mean) / sqrt(var + eps) * gamma + beta per
// channel of (outer, channels, inner) data, biased variance.
void batchNormForward(const std::vector<double> &x, const std::vector<double> &gamma,
                      const std::vector<double> &beta, std::vector<double> &y,
                      std::vector<double> &mean, std::vector<double> &var,
                      int64_t outer, int64_t channels, int64_t inner, double eps) {
  const double m = double(outer * inner);
  y.assign(x.size(), 0);
  mean.assign(channels, 0);
  var.assign(channels, 0);
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t n = 0; n < outer; ++n)
      for (int64_t i = 0; i < inner; ++i)
        mean[c] += x[(n * channels + c) * inner + i] / m;
    for (int64_t n = 0; n < outer; ++n)
      for (int64_t i = 0; i < inner; ++i) {
        double d = x[(n * channels + c) * inner + i] - mean[c];
        var[c] += d * d / m;
      }
    for (int64_t n = 0; n < outer; ++n)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t idx = (n * channels + c) * inner + i;
        y[idx] = (x[idx] - mean[c]) / std::sqrt(var[c] + eps) * gamma[c] + beta[c];
      }
  }
}

template <typename T>
void checkBatchNorm(int64_t outer, int64_t channels, int64_t inner, double tol) {
  const double eps = 1e-3;
  auto xv = randomVector<double>(outer * channels * inner, 21);
  for (double &v : xv)
    v = 3 * v + 0.5; // not centred, not of unit variance
  auto gv = randomVector<double>(channels, 22), bv = randomVector<double>(channels, 23);
  auto dyv = randomVector<double>(xv.size(), 24);
  std::vector<double> y, mean, var;
  batchNormForward(xv, gv, bv, y, mean, var, outer, channels, inner, eps);
  // Gradients of sum(dy * y) by central differences.
  const double h = 1e-6;
  auto loss = [&](const std::vector<double> &x, const std::vector<double> &g,
                  const std::vector<double> &b) {
    std::vector<double> yy, mm, vv;
    batchNormForward(x, g, b, yy, mm, vv, outer, channels, inner, eps);
    double l = 0;
    for (size_t i = 0; i < yy.size(); ++i)
      l += dyv[i] * yy[i];
    return l;
  };
  auto numeric = [&](std::vector<double> &v, size_t j) {
    double keep = v[j];
    v[j] = keep + h;
    double lp = loss(xv, gv, bv);
    v[j] = keep - h;
    double lm = loss(xv, gv, bv);
    v[j] = keep;
    return (lp - lm) / (2 * h);
  };
  int64_t eb;
  std::memcpy(&eb, &eps, 8);
  std::vector<T> x(xv.begin(), xv.end()), g(gv.begin(), gv.end()), b(bv.begin(), bv.end()),
      dy(dyv.begin(), dyv.end()), yk(xv.size(), T(5)), mk(channels, T(5)), vk(channels, T(5)),
      ik(channels, T(5)), scratch(channels, T(7)), dx(xv.size(), T(5)), dg(channels, T(5)),
      db(channels, T(5));
  if constexpr (std::is_same_v<T, float>) {
    mxc_kernel_batch_norm_train_f32(BUF(x), BUF(g), BUF(b), BUF(yk), BUF(mk), BUF(vk), BUF(ik),
                                    BUF(scratch), outer, channels, inner, eb);
    mxc_kernel_batch_norm_backward_f32(BUF(dy), BUF(x), BUF(g), BUF(mk), BUF(ik), BUF(dx),
                                       BUF(dg), BUF(db), outer, channels, inner, eb);
  } else {
    mxc_kernel_batch_norm_train_f64(BUF(x), BUF(g), BUF(b), BUF(yk), BUF(mk), BUF(vk), BUF(ik),
                                    BUF(scratch), outer, channels, inner, eb);
    mxc_kernel_batch_norm_backward_f64(BUF(dy), BUF(x), BUF(g), BUF(mk), BUF(ik), BUF(dx),
                                       BUF(dg), BUF(db), outer, channels, inner, eb);
  }
  for (int64_t c = 0; c < channels; ++c) {
    ASSERT_NEAR(double(mk[c]), mean[c], tol) << "mean[" << c << "]";
    ASSERT_NEAR(double(vk[c]), var[c], tol * 10) << "var[" << c << "]";
    ASSERT_NEAR(double(ik[c]), 1 / std::sqrt(var[c] + eps), tol) << "invstd[" << c << "]";
    ASSERT_EQ(scratch[c], T(7)) << "the CPU kernel leaves the GPU twin's scratch alone";
  }
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_NEAR(double(yk[i]), y[i], tol) << "y[" << i << "]";
  // Numeric gradients are good to about 1e-8 in double.
  double gtol = std::max(tol, 1e-7);
  // (every element of small inputs; about 300 of large ones)
  for (size_t j = 0; j < xv.size(); j += std::max<size_t>(1, xv.size() / 300))
    ASSERT_NEAR(double(dx[j]), numeric(xv, j), gtol) << "dx[" << j << "]";
  for (int64_t c = 0; c < channels; c += std::max<int64_t>(1, channels / 16)) {
    ASSERT_NEAR(double(dg[c]), numeric(gv, c), gtol * 10) << "dgamma[" << c << "]";
    ASSERT_NEAR(double(db[c]), numeric(bv, c), gtol * 10) << "dbeta[" << c << "]";
  }
}

TEST(BatchNormKernels, NCHWF64) { checkBatchNorm<double>(3, 4, 5, 1e-12); }
TEST(BatchNormKernels, ChannelsLastF64) { checkBatchNorm<double>(12, 5, 1, 1e-12); }
TEST(BatchNormKernels, ChannelsFirstF32) { checkBatchNorm<float>(1, 3, 40, 2e-5); }
// Enough channels and elements for the kernel threads to split the channels.
TEST(BatchNormKernels, ManyChannelsOnTwoThreadsF32) {
  mxc::runtime::setKernelThreads(2);
  checkBatchNorm<float>(16, 64, 64, 5e-5);
}

} // namespace
