// Forward GEMM-class kernels of runtime/src/kernels (gemm.cc) and the
// parallel loop they and generated code use (parallel.cc), against naive
// loops: every transpose of dot / batch_dot with one row or one column (the
// GEMV paths) and without, FullyConnected at batch 1 and more, and
// convolutions large enough that im2col and the bias scatter run on several
// kernel threads.
#include "../src/kernels/kernels.h"
#include "kernels_test_util.h"
#include "mxc/runtime/engine.h"
#include "mxc/runtime/threads.h"

#include <cfloat>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <set>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

namespace {

using mxc::test::randomVector;

// The exported C entry of the parallel loop (what generated code calls),
// over a C++ callable.
template <typename F> void parallelFor(int64_t n, int64_t cost, F &&f) {
  using Fn = std::remove_reference_t<F>;
  mxc_parallel_for(
      [](void *ctx, int64_t lo, int64_t hi) { (*static_cast<Fn *>(ctx))(lo, hi); },
      &f, n, cost);
}


template <typename T> double tolerance() {
  return sizeof(T) == 4 ? 1e-4 : 1e-12;
}

template <typename T> void checkGemm(int64_t batch, int64_t m, int64_t n,
                                     int64_t k, bool ta, bool tb) {
  auto a = randomVector<T>(batch * m * k, 1), b = randomVector<T>(batch * k * n, 2);
  std::vector<T> c(batch * m * n, T(7));
  auto call = [&](auto fn) {
    fn(BUF(a), BUF(b), BUF(c), batch, m, n, k, int64_t(ta), int64_t(tb));
  };
  if constexpr (sizeof(T) == 4)
    call(mxc_kernel_gemm_f32);
  else
    call(mxc_kernel_gemm_f64);
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double ref = 0;
        for (int64_t p = 0; p < k; ++p) {
          double av = ta ? a[bi * m * k + p * m + i] : a[bi * m * k + i * k + p];
          double bv = tb ? b[bi * k * n + j * k + p] : b[bi * k * n + p * n + j];
          ref += av * bv;
        }
        ASSERT_NEAR(c[bi * m * n + i * n + j], ref, tolerance<T>() * (1 + std::abs(ref)))
            << "batch " << bi << " (" << i << ", " << j << ") of m=" << m
            << " n=" << n << " k=" << k << " ta=" << ta << " tb=" << tb;
      }
}

TEST(GemmKernel, EveryTransposeWithOneRowOrColumn) {
  for (auto [m, n] : {std::pair<int64_t, int64_t>{1, 37}, {37, 1}, {1, 1},
                      {5, 9}})
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        checkGemm<float>(3, m, n, 19, ta, tb);
        checkGemm<double>(2, m, n, 19, ta, tb);
      }
}

template <typename T> void checkFullyConnected(int64_t m, int64_t n, int64_t k,
                                               bool hasBias) {
  auto x = randomVector<T>(m * k, 3), w = randomVector<T>(n * k, 4),
       bias = randomVector<T>(n, 5);
  std::vector<T> y(m * n, T(-3));
  if constexpr (sizeof(T) == 4)
    mxc_kernel_fully_connected_f32(BUF(x), BUF(w), BUF(bias), BUF(y), m, n, k,
                                   hasBias);
  else
    mxc_kernel_fully_connected_f64(BUF(x), BUF(w), BUF(bias), BUF(y), m, n, k,
                                   hasBias);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double ref = hasBias ? bias[j] : 0;
      for (int64_t p = 0; p < k; ++p)
        ref += double(x[i * k + p]) * w[j * k + p];
      ASSERT_NEAR(y[i * n + j], ref, tolerance<T>() * (1 + std::abs(ref)))
          << "(" << i << ", " << j << ") m=" << m << " bias=" << hasBias;
    }
}

TEST(FullyConnectedKernel, BatchOneIsTheSameProduct) {
  for (int64_t m : {1, 2, 6})
    for (bool bias : {false, true}) {
      checkFullyConnected<float>(m, 300, 129, bias);
      checkFullyConnected<double>(m, 33, 17, bias);
    }
}

// Products large enough to be split across the kernel threads by rows of C
// (m >= n) or by columns, and GEMVs by elements of y (blas.h), for 2 and 3
// threads (parts of unequal size), every transpose.
TEST(GemmKernel, LargeProductsSplitAcrossKernelThreads) {
  const int before = mxc::runtime::kernelThreads();
  for (int threads : {2, 3}) {
    mxc::runtime::setKernelThreads(threads);
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{203, 70, 101},
                           {41, 301, 119}, {1, 3001, 400}, {2999, 1, 403}})
      for (bool ta : {false, true})
        for (bool tb : {false, true}) {
          checkGemm<float>(1, m, n, k, ta, tb);
          checkGemm<double>(1, m, n, k, ta, tb);
        }
    checkFullyConnected<float>(1, 1000, 1280, true);
    checkFullyConnected<float>(16, 1000, 512, true);
  }
  mxc::runtime::setKernelThreads(before);
}

struct ConvCase {
  int64_t batch, channels, filters, groups, h, w, k, stride, pad, dilate = 1;
  int64_t kw = 0; // 0: square (k)
};

template <typename T> void checkConv(const ConvCase &p) {
  const int64_t kh = p.k, kw = p.kw ? p.kw : p.k;
  const int64_t oh = (p.h + 2 * p.pad - (kh - 1) * p.dilate - 1) / p.stride + 1,
                ow = (p.w + 2 * p.pad - (kw - 1) * p.dilate - 1) / p.stride + 1;
  const int64_t cg = p.channels / p.groups, fg = p.filters / p.groups;
  auto x = randomVector<T>(p.batch * p.channels * p.h * p.w, 6),
       w = randomVector<T>(p.filters * cg * kh * kw, 7),
       bias = randomVector<T>(p.filters, 8);
  std::vector<T> y(p.batch * p.filters * oh * ow, T(9));
  auto call = [&](auto fn) {
    fn(BUF(x), BUF(w), BUF(bias), BUF(y), p.batch, p.channels, p.filters,
       p.groups, int64_t(1), int64_t(1), p.h, p.w, int64_t(1), kh, kw,
       int64_t(1), oh, ow, int64_t(1), p.stride, p.stride, int64_t(0), p.pad,
       p.pad, int64_t(1), p.dilate, p.dilate);
  };
  if constexpr (sizeof(T) == 4)
    call(mxc_kernel_conv_f32);
  else
    call(mxc_kernel_conv_f64);
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t f = 0; f < p.filters; ++f)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          const int64_t g = f / fg;
          double ref = bias[f];
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t ki = 0; ki < kh; ++ki)
              for (int64_t kj = 0; kj < kw; ++kj) {
                int64_t ih = i * p.stride - p.pad + ki * p.dilate,
                        iw = j * p.stride - p.pad + kj * p.dilate;
                if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w)
                  continue;
                ref += double(x[((n * p.channels + g * cg + c) * p.h + ih) * p.w + iw]) *
                       w[((f * cg + c) * kh + ki) * kw + kj];
              }
          ASSERT_NEAR(y[((n * p.filters + f) * oh + i) * ow + j], ref,
                      tolerance<T>() * (1 + std::abs(ref)))
              << "image " << n << " filter " << f << " at (" << i << ", " << j
              << ")";
        }
}

// Sizes above the parallel threshold (im2col and the batched bias scatter
// run in chunks on two kernel threads), and the geometries the f32 oneDNN
// path (conv_dnnl.cc) handles differently: pointwise on NCHW, grouped and
// depthwise, dilated, non-square, one row (1-D), a stride that leaves input
// columns unread, odd channel counts. CTest runs this file a second time
// with MXC_CONV_IMPL=im2col, so both f32 paths are checked.
TEST(ConvKernel, GeometriesOnTwoThreads) {
  mxc::runtime::setKernelThreads(2);
  for (const ConvCase &c : {ConvCase{1, 16, 24, 1, 30, 30, 3, 1, 1},
                            ConvCase{4, 8, 12, 1, 14, 14, 3, 2, 1},
                            ConvCase{2, 12, 12, 3, 20, 20, 3, 1, 0},
                            ConvCase{3, 16, 8, 1, 9, 9, 1, 1, 0},
                            ConvCase{2, 32, 32, 32, 12, 12, 3, 1, 1},
                            ConvCase{1, 24, 24, 24, 15, 15, 3, 2, 1},
                            ConvCase{2, 5, 7, 1, 17, 13, 3, 1, 2, 2},
                            ConvCase{1, 3, 16, 1, 23, 23, 7, 2, 3},
                            ConvCase{2, 6, 10, 1, 1, 40, 1, 1, 0, 1, 5},
                            ConvCase{2, 6, 4, 2, 6, 6, 1, 2, 0},
                            ConvCase{1, 17, 19, 1, 11, 9, 5, 3, 2}}) {
    checkConv<float>(c);
    checkConv<double>(c);
  }
}

// mxc_kernel_conv_fused_f32 with flag 16 (constant weights: a re-laid,
// scaled copy kept across calls) against the same call without it: equal on
// the first call and on later ones, for the blocked geometries and the small
// map that constant weights move off NCHW; one weights array with two
// scales (two copies); weights changed at the same address (a new copy:
// their sample differs); and after mxc_kernel_release_constant_weights.
TEST(ConvFusedKernel, ConstantWeightsKeptAcrossCalls) {
  mxc::runtime::setKernelThreads(2);
  struct Case { int64_t batch, channels, filters, h, k, pad; };
  for (const Case &c : {Case{1, 8, 32, 16, 3, 1}, Case{1, 16, 32, 6, 3, 1},
                        Case{3, 8, 16, 12, 3, 1}}) {
    const int64_t oh = c.h + 2 * c.pad - c.k + 1;
    auto x = randomVector<float>(c.batch * c.channels * c.h * c.h, 21),
         w = randomVector<float>(c.filters * c.channels * c.k * c.k, 22),
         bias = randomVector<float>(c.filters, 23),
         scale1 = randomVector<float>(c.filters, 24),
         scale2 = randomVector<float>(c.filters, 25),
         shift = randomVector<float>(c.filters, 26);
    auto conv = [&](const std::vector<float> &scale, int64_t constant) {
      std::vector<float> y(c.batch * c.filters * oh * oh, 0.f);
      mxc_kernel_conv_fused_f32(BUF(x), BUF(w), BUF(bias), BUF(scale), BUF(shift), BUF(y),
                                c.batch, c.channels, c.filters, 1, c.h, c.h, c.k, c.k, oh,
                                oh, 1, 1, c.pad, c.pad, 1, 1, 1 | 2 | 4 | constant,
                                /*act=*/1, 0, 0);
      return y;
    };
    auto same = [&](const std::vector<float> &a, const std::vector<float> &b,
                    const char *what) {
      ASSERT_EQ(a.size(), b.size());
      for (size_t i = 0; i < a.size(); ++i)
        ASSERT_NEAR(a[i], b[i], 1e-4 * (1 + std::abs(b[i])))
            << what << " at " << i << ", " << c.channels << "->" << c.filters
            << " on " << c.h << "x" << c.h;
    };
    const auto ref1 = conv(scale1, 0), ref2 = conv(scale2, 0);
    for (int call = 0; call < 3; ++call) {
      same(conv(scale1, 16), ref1, "scale 1");
      same(conv(scale2, 16), ref2, "scale 2 (same weights)");
    }
    for (float &v : w)
      v = -0.5f * v + 0.25f;
    same(conv(scale1, 16), conv(scale1, 0), "weights changed in place");
    mxc_kernel_release_constant_weights();
    for (float &v : w)
      v *= 2.f;
    same(conv(scale1, 16), conv(scale1, 0), "after release");
  }
}

/// `v` (n, c, plane) in NCHW as the kernels' blocked channel layout of
/// block B (kernels.h, flags 32 / 64), written out here independently.
std::vector<float> blockedCopy(const std::vector<float> &v, int64_t n,
                               int64_t c, int64_t plane, int64_t B) {
  std::vector<float> r(v.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < c; ++j)
      for (int64_t p = 0; p < plane; ++p)
        r[((i * (c / B) + j / B) * plane + p) * B + j % B] =
            v[(i * c + j) * plane + p];
  return r;
}

/// A 2-D convolution (square maps and window, no groups) in double, NCHW.
std::vector<double> directConv(const std::vector<float> &x, const std::vector<float> &w,
                               int64_t batch, int64_t channels, int64_t filters,
                               int64_t h, int64_t k, int64_t stride, int64_t pad) {
  const int64_t oh = (h + 2 * pad - k) / stride + 1;
  std::vector<double> conv(batch * filters * oh * oh);
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t f = 0; f < filters; ++f)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < oh; ++j) {
          double acc = 0;
          for (int64_t ch = 0; ch < channels; ++ch)
            for (int64_t ki = 0; ki < k; ++ki)
              for (int64_t kj = 0; kj < k; ++kj) {
                const int64_t ih = i * stride - pad + ki, iw = j * stride - pad + kj;
                if (ih >= 0 && ih < h && iw >= 0 && iw < h)
                  acc += double(x[((n * channels + ch) * h + ih) * h + iw]) *
                         w[((f * channels + ch) * k + ki) * k + kj];
              }
          conv[((n * filters + f) * oh + i) * oh + j] = acc;
        }
  return conv;
}

/// mxc_kernel_conv_fused_f32's result in NCHW from the convolution `conv`
/// (directConv()) and the epilogue of flags 1 | 2 | 4 | `flags` (8 the sum
/// of `addend`, 128 the activation after it) with `act` (1 relu, 2 clip).
std::vector<float> fusedReference(const std::vector<double> &conv, int64_t filters,
                                  int64_t outPlane, const std::vector<float> &bias,
                                  const std::vector<float> &scale,
                                  const std::vector<float> &shift,
                                  const std::vector<float> &addend, int64_t flags,
                                  int64_t act, double clipLo, double clipHi) {
  const bool sum = flags & 8, after = flags & 128;
  auto activate = [&](double v) {
    return act == 1 ? std::max(v, 0.) : act == 2 ? std::min(std::max(v, clipLo), clipHi) : v;
  };
  std::vector<float> ref(conv.size());
  for (size_t i = 0; i < ref.size(); ++i) {
    const int64_t f = int64_t(i) / outPlane % filters;
    double v = (conv[i] + bias[f]) * scale[f] + shift[f];
    v = after ? activate(v + addend[i]) : activate(v) + (sum ? addend[i] : 0.);
    ref[i] = float(v);
  }
  return ref;
}

/// A square convolution without groups (kernels_forward_test's fused cases).
struct FusedGeometry {
  int64_t batch, channels, filters, h, k, stride, pad;
};

/// mxc_kernel_conv_fused_f32 with flags 1 | 2 | 4 | `flags` (x / y in the
/// blocked layout for 32 / 64, y holding `addend` first for a sum, 8) against
/// `ref` (NCHW, fusedReference()), compared in y's layout within 1e-4
/// relative; `what` goes into the failure message.
void checkFusedInLayouts(const FusedGeometry &g, const std::vector<float> &x,
                         const std::vector<float> &w, const std::vector<float> &bias,
                         const std::vector<float> &scale, const std::vector<float> &shift,
                         const std::vector<float> &addend, const std::vector<float> &ref,
                         int64_t flags, int64_t act, int64_t loBits, int64_t hiBits,
                         const std::string &what) {
  const int64_t B = mxc_kernel_conv_channel_block();
  const int64_t oh = (g.h + 2 * g.pad - g.k) / g.stride + 1;
  const bool bx = flags & 32, by = flags & 64, sum = flags & 8;
  auto xb = bx ? blockedCopy(x, g.batch, g.channels, g.h * g.h, B) : x;
  std::vector<float> y = !sum ? std::vector<float>(addend.size(), 7.f)
                         : by ? blockedCopy(addend, g.batch, g.filters, oh * oh, B)
                              : addend;
  mxc_kernel_conv_fused_f32(BUF(xb), BUF(w), BUF(bias), BUF(scale), BUF(shift), BUF(y),
                            g.batch, g.channels, g.filters, 1, g.h, g.h, g.k, g.k, oh, oh,
                            g.stride, g.stride, g.pad, g.pad, 1, 1, 1 | 2 | 4 | flags, act,
                            loBits, hiBits);
  auto want = by ? blockedCopy(ref, g.batch, g.filters, oh * oh, B) : ref;
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_NEAR(y[i], want[i], 1e-4 * (1 + std::abs(want[i])))
        << "flags " << flags << " act " << act << ", " << what << ", " << g.channels
        << "->" << g.filters << " on " << g.h << "x" << g.h << " k " << g.k << " stride "
        << g.stride << " pad " << g.pad << " batch " << g.batch << " at " << i;
}

// mxc_kernel_conv_fused_f32 with x and / or y in the blocked channel layout
// (flags 32 / 64) against the NCHW call: the blocked results, converted
// here, match it for pointwise, 3x3, strided, depthwise and grouped
// convolutions, with and without a sum (which y holds blocked), relu or
// clip before or after it (flag 128: checked against the NCHW call without
// an activation, which is then applied here), at batches 1-3 on 1-3 kernel
// threads (channel, group and image parts). CTest also runs this
// with MXC_CONV_IMPL=im2col (the converting fallback).
TEST(ConvFusedKernel, BlockedLayouts) {
  const int64_t B = mxc_kernel_conv_channel_block();
  ASSERT_TRUE(B == 8 || B == 16);
  struct Case { int64_t batch, channels, filters, groups, h, k, stride, pad; };
  for (int threads : {1, 2, 3}) {
    mxc::runtime::setKernelThreads(threads);
    for (const Case &c : {Case{1, 32, 48, 1, 9, 1, 1, 0},
                          Case{3, 16, 32, 1, 10, 3, 1, 1},
                          Case{1, 32, 16, 1, 11, 3, 2, 1},
                          Case{1, 48, 48, 48, 12, 3, 1, 1},
                          Case{3, 32, 32, 32, 9, 3, 2, 1},
                          Case{1, 32, 64, 2, 7, 3, 1, 1},
                          // batch 2 on 3 threads: channel / group parts
                          // with the full tensor's image stride
                          Case{2, 32, 48, 1, 9, 1, 1, 0},
                          Case{2, 32, 32, 32, 9, 3, 2, 1}}) {
      const int64_t oh = (c.h + 2 * c.pad - c.k) / c.stride + 1;
      const int64_t inPlane = c.h * c.h, outPlane = oh * oh;
      auto x = randomVector<float>(c.batch * c.channels * inPlane, 31),
           w = randomVector<float>(c.filters * (c.channels / c.groups) * c.k * c.k, 32),
           bias = randomVector<float>(c.filters, 33),
           scale = randomVector<float>(c.filters, 34),
           shift = randomVector<float>(c.filters, 35),
           addend = randomVector<float>(c.batch * c.filters * outPlane, 36);
      const double clipHi = 0.5;
      int64_t hiBits;
      std::memcpy(&hiBits, &clipHi, sizeof hiBits);
      for (int64_t flags : {32, 64, 32 | 64, 32 | 8, 64 | 8, 32 | 64 | 8, 8 | 128,
                            32 | 8 | 128, 64 | 8 | 128, 32 | 64 | 8 | 128})
        for (int64_t act : {0, 1, 2}) {
          const bool bx = flags & 32, by = flags & 64, sum = flags & 8,
                     after = flags & 128;
          std::vector<float> ref = sum ? addend : std::vector<float>(addend.size());
          mxc_kernel_conv_fused_f32(BUF(x), BUF(w), BUF(bias), BUF(scale), BUF(shift),
                                    BUF(ref), c.batch, c.channels, c.filters, c.groups,
                                    c.h, c.h, c.k, c.k, oh, oh, c.stride, c.stride,
                                    c.pad, c.pad, 1, 1, 1 | 2 | 4 | (flags & 8),
                                    after ? 0 : act, 0, hiBits);
          if (after)
            for (float &v : ref)
              v = act == 1 ? std::max(v, 0.f)
                  : act == 2 ? std::min(std::max(v, 0.f), float(clipHi)) : v;
          auto xb = bx ? blockedCopy(x, c.batch, c.channels, inPlane, B) : x;
          std::vector<float> y = !sum ? std::vector<float>(addend.size(), 7.f)
                                 : by ? blockedCopy(addend, c.batch, c.filters, outPlane, B)
                                      : addend;
          mxc_kernel_conv_fused_f32(BUF(xb), BUF(w), BUF(bias), BUF(scale), BUF(shift),
                                    BUF(y), c.batch, c.channels, c.filters, c.groups,
                                    c.h, c.h, c.k, c.k, oh, oh, c.stride, c.stride,
                                    c.pad, c.pad, 1, 1, 1 | 2 | 4 | flags, act, 0,
                                    hiBits);
          auto want = by ? blockedCopy(ref, c.batch, c.filters, outPlane, B) : ref;
          for (size_t i = 0; i < y.size(); ++i)
            ASSERT_NEAR(y[i], want[i], 1e-4 * (1 + std::abs(want[i])))
                << "flags " << flags << " act " << act << " threads " << threads
                << ", " << c.channels << "->" << c.filters << " groups " << c.groups
                << " batch " << c.batch << " at " << i;
        }
    }
  }
  mxc::runtime::setKernelThreads(2);
}

// Convolutions whose input is at least 4x their output, at a batch smaller
// than the kernel threads, are split over input channels (conv_dnnl.cc:
// partial sums of the whole output added up after the parts, the activation
// last): mxc_kernel_conv_fused_f32 against a direct loop in double with the
// whole epilogue (bias, scale, shift, the sum, relu or clip before or after
// it), NCHW and blocked x / y, pointwise and strided 3x3, channel counts
// that split into unequal parts, on 2 and 3 threads (batch 2 on 3 threads:
// parts with the full tensor's image stride).
TEST(ConvFusedKernel, InputChannelSplit) {
  struct Case { int64_t batch, channels, filters, h, k, stride, pad; };
  for (int threads : {2, 3}) {
    mxc::runtime::setKernelThreads(threads);
    for (const Case &c : {Case{1, 64, 16, 9, 1, 1, 0}, Case{1, 96, 16, 10, 3, 2, 1},
                          Case{1, 80, 16, 6, 1, 1, 0}, Case{2, 128, 32, 7, 1, 1, 0}}) {
      const int64_t oh = (c.h + 2 * c.pad - c.k) / c.stride + 1;
      const int64_t inPlane = c.h * c.h, outPlane = oh * oh;
      auto x = randomVector<float>(c.batch * c.channels * inPlane, 51),
           w = randomVector<float>(c.filters * c.channels * c.k * c.k, 52),
           bias = randomVector<float>(c.filters, 53),
           scale = randomVector<float>(c.filters, 54),
           shift = randomVector<float>(c.filters, 55),
           addend = randomVector<float>(c.batch * c.filters * outPlane, 56);
      const double clipLo = -0.25, clipHi = 0.5;
      int64_t loBits, hiBits;
      std::memcpy(&loBits, &clipLo, sizeof loBits);
      std::memcpy(&hiBits, &clipHi, sizeof hiBits);
      const std::vector<double> conv = directConv(x, w, c.batch, c.channels, c.filters,
                                                  c.h, c.k, c.stride, c.pad);
      for (int64_t flags : {0, 8, 8 | 128, 32, 64, 32 | 64 | 8, 32 | 64 | 8 | 128})
        for (int64_t act : {0, 1, 2}) {
          const std::vector<float> ref =
              fusedReference(conv, c.filters, outPlane, bias, scale, shift, addend,
                             flags, act, clipLo, clipHi);
          checkFusedInLayouts(
              {c.batch, c.channels, c.filters, c.h, c.k, c.stride, c.pad}, x, w, bias,
              scale, shift, addend, ref, flags, act, loBits, hiBits,
              "threads " + std::to_string(threads));
          if (HasFatalFailure())
            return;
        }
    }
  }
  mxc::runtime::setKernelThreads(2);
}

// Constant weights (flag 16) of a convolution split over input channels:
// each part's weights are a strided view from its first channel, and the
// kept copy's sample must stay inside them. The weights end where a
// PROT_NONE page begins, so a read past their end faults (it did: the
// sample ran a part's channel offset past the end).
TEST(ConvFusedKernel, ConstantWeightsOfInputChannelPartsStayInBounds) {
  mxc::runtime::setKernelThreads(2);
  const int64_t channels = 64, filters = 16, h = 9, k = 3;
  const size_t count = size_t(filters * channels * k * k);
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  const size_t bytes = (count * sizeof(float) + page - 1) / page * page;
  void *region = mmap(nullptr, bytes + page, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(region, MAP_FAILED);
  ASSERT_EQ(mprotect(static_cast<char *>(region) + bytes, page, PROT_NONE), 0);
  float *w = reinterpret_cast<float *>(static_cast<char *>(region) + bytes) - count;
  const auto values = randomVector<float>(count, 71);
  std::copy(values.begin(), values.end(), w);
  auto x = randomVector<float>(channels * h * h, 72),
       bias = randomVector<float>(filters, 73), scale = randomVector<float>(filters, 74),
       shift = randomVector<float>(filters, 75);
  const int64_t oh = h; // pad 1
  auto conv = [&](int64_t constant) {
    std::vector<float> y(filters * oh * oh, 0.f);
    mxc_kernel_conv_fused_f32(BUF(x), w, w, 0, int64_t(count), 1, BUF(bias), BUF(scale),
                              BUF(shift), BUF(y), 1, channels, filters, 1, h, h, k, k, oh,
                              oh, 1, 1, 1, 1, 1, 1, 1 | 2 | 4 | constant, /*act=*/1, 0, 0);
    return y;
  };
  const auto want = conv(0);
  for (int call = 0; call < 2; ++call) {
    const auto got = conv(16);
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::abs(want[i]))) << "call " << call << " at " << i;
  }
  mxc_kernel_release_constant_weights();
  munmap(region, bytes + page);
}

// 3x3, stride 1 convolutions with constant weights (flag 16) on whole
// 16-channel blocks run as Winograd convolutions on AVX-512 (conv_dnnl.cc;
// CTest's runtime.kernels-forward.winograd-used checks oneDNN's verbose
// output names its Winograd kernels): against a direct loop in double with
// the whole epilogue (the weights scaled before their Winograd transform),
// NCHW and blocked x / y, batches 1-3 on 1-3 threads (output-channel and
// image parts; batch 2 on 3 threads: channel parts with the full tensor's
// image stride, which the Winograd kernels refuse and direct convolution
// runs), maps from 5x5 to 28x28, with and without padding, over several calls
// (the kept, transformed copy). Both of oneDNN's Winograd kernels (F(2x2,
// 3x3) and F(4x4,3x3)) err by rounding only: within 1e-4 relative here
// (measured ~1e-6 of the largest output).
TEST(ConvFusedKernel, WinogradWithConstantWeights) {
  struct Case { int64_t batch, channels, filters, h, pad; int threads; };
  for (const Case &c : {Case{1, 16, 32, 6, 1, 1}, Case{1, 64, 64, 28, 1, 2},
                        Case{1, 32, 48, 5, 0, 2}, Case{3, 32, 48, 14, 1, 2},
                        Case{3, 48, 32, 9, 1, 3}, Case{2, 32, 32, 10, 1, 3},
                        Case{8, 128, 128, 14, 1, 2}}) {
    mxc::runtime::setKernelThreads(c.threads);
    const int64_t oh = c.h + 2 * c.pad - 2;
    const int64_t inPlane = c.h * c.h, outPlane = oh * oh;
    auto x = randomVector<float>(c.batch * c.channels * inPlane, 61),
         w = randomVector<float>(c.filters * c.channels * 9, 62),
         bias = randomVector<float>(c.filters, 63),
         scale = randomVector<float>(c.filters, 64),
         shift = randomVector<float>(c.filters, 65),
         addend = randomVector<float>(c.batch * c.filters * outPlane, 66);
    const std::vector<double> conv =
        directConv(x, w, c.batch, c.channels, c.filters, c.h, 3, 1, c.pad);
    const double clipLo = -0.25, clipHi = 0.5;
    int64_t loBits, hiBits;
    std::memcpy(&loBits, &clipLo, sizeof loBits);
    std::memcpy(&hiBits, &clipHi, sizeof hiBits);
    for (int64_t flags : {0, 8, 32 | 64, 32 | 64 | 8, 32 | 64 | 8 | 128, 64 | 8})
      for (int64_t act : {0, 1, 2})
        for (int call = 0; call < 2; ++call) {
          const std::vector<float> ref = fusedReference(
              conv, c.filters, outPlane, bias, scale, shift, addend, flags, act,
              clipLo, clipHi);
          checkFusedInLayouts({c.batch, c.channels, c.filters, c.h, 3, 1, c.pad}, x, w,
                              bias, scale, shift, addend, ref, 16 | flags, act, loBits,
                              hiBits,
                              "call " + std::to_string(call) + " threads " +
                                  std::to_string(c.threads));
          if (HasFatalFailure())
            return;
        }
  }
  mxc_kernel_release_constant_weights();
  mxc::runtime::setKernelThreads(2);
}

// mxc_kernel_pooling_f32 against a direct NCHW loop with MXNet's semantics
// (clipped windows, the lowest finite value as max's start, avg's divisor
// with and without count_include_pad): every combination of blocked and
// NCHW x / y, max and avg, for valid and full (ceil) conventions, padding,
// and a global pool, at batches 1 and 2 on 1 and 2 threads.
TEST(PoolingKernel, BlockedLayouts) {
  const int64_t B = mxc_kernel_conv_channel_block();
  struct Case { int64_t batch, channels, h, w, k, stride, pad, outH, outW; };
  for (int threads : {1, 2}) {
    mxc::runtime::setKernelThreads(threads);
    for (const Case &c : {Case{1, 32, 13, 13, 3, 2, 0, 6, 6},   // valid
                          Case{2, 16, 13, 11, 3, 2, 0, 6, 5},   // full: ceil
                          Case{1, 48, 9, 9, 3, 1, 1, 9, 9},     // avg 3x3 pad 1
                          Case{2, 32, 10, 10, 2, 2, 0, 5, 5},
                          Case{1, 64, 7, 7, 7, 1, 0, 1, 1},     // global
                          Case{1, 16, 8, 8, 3, 2, 1, 5, 5}}) {  // full + pad
      const int64_t inPlane = c.h * c.w, outPlane = c.outH * c.outW;
      auto x = randomVector<float>(c.batch * c.channels * inPlane, 41);
      for (int64_t flags : {32, 64, 96, 33, 65, 97, 35, 67, 99}) {
        const bool avg = flags & 1, includePad = flags & 2;
        std::vector<float> ref(c.batch * c.channels * outPlane);
        for (int64_t nc = 0; nc < c.batch * c.channels; ++nc)
          for (int64_t oh = 0; oh < c.outH; ++oh)
            for (int64_t ow = 0; ow < c.outW; ++ow) {
              const int64_t hs = oh * c.stride - c.pad, ws = ow * c.stride - c.pad;
              double acc = avg ? 0.0 : -FLT_MAX;
              for (int64_t ih = std::max<int64_t>(hs, 0); ih < std::min(hs + c.k, c.h); ++ih)
                for (int64_t iw = std::max<int64_t>(ws, 0); iw < std::min(ws + c.k, c.w); ++iw) {
                  const double v = x[nc * inPlane + ih * c.w + iw];
                  acc = avg ? acc + v : std::max(acc, v);
                }
              if (avg) {
                auto size = [&](int64_t st, int64_t in) {
                  const int64_t end = std::min(st + c.k, in + c.pad);
                  return includePad ? end - st
                                    : std::min(end, in) - std::max<int64_t>(st, 0);
                };
                acc /= double(size(hs, c.h) * size(ws, c.w));
              }
              ref[nc * outPlane + oh * c.outW + ow] = float(acc);
            }
        auto xin = flags & 32 ? blockedCopy(x, c.batch, c.channels, inPlane, B) : x;
        std::vector<float> y(ref.size(), 7.f);
        mxc_kernel_pooling_f32(BUF(xin), BUF(y), c.batch, c.channels, c.h, c.w,
                               c.outH, c.outW, c.k, c.k, c.stride, c.stride, c.pad,
                               c.pad, flags);
        auto want = flags & 64 ? blockedCopy(ref, c.batch, c.channels, outPlane, B) : ref;
        for (size_t i = 0; i < y.size(); ++i)
          ASSERT_NEAR(y[i], want[i], 1e-5 * (1 + std::abs(want[i])))
              << "flags " << flags << " threads " << threads << ", " << c.channels
              << " channels " << c.h << "x" << c.w << " k " << c.k << " at " << i;
      }
    }
  }
  mxc::runtime::setKernelThreads(2);
}

TEST(ParallelFor, EveryIndexOnceFromSeveralCallers) {
  mxc::runtime::setKernelThreads(3);
  for (int64_t n : {1, 2, 7, 1000, 100000}) {
    std::vector<std::atomic<int>> hits(n);
    parallelFor(n, int64_t(1) << 40, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i)
        hits[i].fetch_add(1);
    });
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(hits[i].load(), 1) << "index " << i << " of " << n;
  }
  // Concurrent callers (engine workers): each loop complete, whichever runs
  // alone; a loop inside a loop runs on its caller.
  std::vector<std::thread> callers;
  std::atomic<int64_t> total{0};
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&] {
      for (int r = 0; r < 200; ++r)
        parallelFor(64, int64_t(1) << 40, [&](int64_t lo, int64_t hi) {
          parallelFor(10, int64_t(1) << 40, [&](int64_t a, int64_t b) {
            total.fetch_add((hi - lo) * (b - a));
          });
        });
    });
  for (std::thread &t : callers)
    t.join();
  EXPECT_EQ(total.load(), 4 * 200 * 64 * 10);
}

// Work-sharing (parallel.h, addLoopHelpers): a threaded engine with two CPU
// workers and one kernel thread, so the pool has no helper threads of its
// own; a loop of one worker's operation.
std::unique_ptr<mxc::runtime::Engine> twoWorkerEngine(bool share) {
  mxc::runtime::EngineOptions opts;
  opts.kind = "threaded";
  opts.cpuWorkers = 2;
  opts.shareKernelLoops = share;
  return mxc::runtime::createEngine(opts);
}

// Runs a loop of 8 indices in an operation; every index blocks (up to 20 s)
// until `until(threads seen)` holds. Returns the threads that ran indices.
std::set<std::thread::id> loopThreadsInAnOperation(mxc::runtime::Engine &e,
                                                   size_t wantThreads) {
  std::mutex mu;
  std::set<std::thread::id> threads;
  std::vector<std::atomic<int>> hits(8);
  mxc::runtime::VarHandle v = e.newVar();
  e.pushSync(
      [&](mxc::runtime::RunContext) {
        parallelFor(8, int64_t(1) << 40, [&](int64_t lo, int64_t hi) {
          {
            std::lock_guard<std::mutex> lock(mu);
            threads.insert(std::this_thread::get_id());
          }
          auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
          for (;;) {
            {
              std::lock_guard<std::mutex> lock(mu);
              if (threads.size() >= wantThreads)
                break;
            }
            if (std::chrono::steady_clock::now() > give_up)
              break;
            std::this_thread::sleep_for(std::chrono::microseconds(100));
          }
          for (int64_t i = lo; i < hi; ++i)
            hits[i].fetch_add(1);
        });
      },
      mxc::runtime::Device::cpu(), {}, {v});
  EXPECT_FALSE(e.waitForVar(v).has_value());
  e.deleteVar(v);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(hits[i].load(), 1) << "index " << i;
  return threads;
}

TEST(WorkSharing, AnIdleEngineWorkerJoinsAnotherWorkersLoop) {
  mxc::runtime::setKernelThreads(1);
  auto e = twoWorkerEngine(true);
  // The operation's worker takes a chunk and holds it until a second thread
  // has taken one: only the engine's idle worker can (no helper threads).
  std::set<std::thread::id> threads = loopThreadsInAnOperation(*e, 2);
  EXPECT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u);
}

TEST(WorkSharing, OffKeepsALoopOnItsWorker) {
  mxc::runtime::setKernelThreads(1);
  auto e = twoWorkerEngine(false);
  // No one may join: the loop runs on its worker (each index waits for a
  // single thread, which is there at once).
  std::set<std::thread::id> threads = loopThreadsInAnOperation(*e, 1);
  EXPECT_EQ(threads.size(), 1u);
}

TEST(WorkSharing, ConcurrentLoopsAndConvolutionsStayExact) {
  mxc::runtime::setKernelThreads(1);
  auto e = twoWorkerEngine(true);
  // Both workers run loops (one on the pool, joinable; the other alone) and
  // convolutions split into parts for the idle worker, in every interleaving
  // the scheduler gives.
  std::atomic<int64_t> total{0};
  std::vector<mxc::runtime::VarHandle> vars;
  for (int op = 0; op < 64; ++op) {
    vars.push_back(e->newVar());
    e->pushSync(
        [&total, op](mxc::runtime::RunContext) {
          if (op % 8 == 0) {
            checkConv<float>(ConvCase{1, 32, 48, 1, 20, 20, 3, 1, 1});
            checkConv<float>(ConvCase{4, 8, 12, 1, 14, 14, 3, 2, 1});
            return;
          }
          parallelFor(64, int64_t(1) << 40, [&](int64_t lo, int64_t hi) {
            parallelFor(10, int64_t(1) << 40, [&](int64_t a, int64_t b) {
              total.fetch_add((hi - lo) * (b - a));
            });
          });
        },
        mxc::runtime::Device::cpu(), {}, {vars.back()});
  }
  EXPECT_FALSE(e->waitForAll().has_value());
  for (auto v : vars)
    e->deleteVar(v);
  EXPECT_EQ(total.load(), 56 * 64 * 10);
}

#ifdef MXC_EXIT_DRAIN_HELPER
// Exit with steps in flight: main returns while the engine still runs
// convolutions whose oneDNN primitives are first built after main returned.
// The engine drains at the start of exit(), before any library's statics are
// destroyed: exit status 0, and the last step printed "done".
TEST(ExitDrain, StepsInFlightFinishBeforeTeardown) {
  for (int run = 0; run < 3; ++run) {
    FILE *p = popen("'" MXC_EXIT_DRAIN_HELPER "' 2>&1", "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[256];
    while (size_t n = fread(buf, 1, sizeof buf, p))
      out.append(buf, n);
    const int status = pclose(p);
    ASSERT_TRUE(WIFEXITED(status)) << "run " << run << ": killed by a signal, status "
                                   << status << ", output: " << out;
    EXPECT_EQ(WEXITSTATUS(status), 0) << "run " << run << ": " << out;
    EXPECT_EQ(out, "done\n") << "run " << run;
  }
}
#endif

} // namespace
