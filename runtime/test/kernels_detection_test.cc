// The detection kernels of runtime/src/kernels/detection.cc on the
// examples MXNet 1.9.1 documents or computes (checked with MXNet itself in
// .venv-mxnet): box_nms's suppression, classes, topk and formats,
// bipartite_matching's docstring example and its count > topk stop,
// syevd's eigenpairs and sign rule, and the LU kernel's inverse and
// determinants.
#include "../src/kernels/kernels.h"
#include "kernels_test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

namespace {

int64_t bits(double v) {
  int64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

std::vector<float> nms(const std::vector<float> &x, int64_t batch, int64_t num, int64_t width,
                       double overlap, int64_t topk, int64_t idIndex, bool force,
                       bool outCorner, int64_t mode) {
  std::vector<float> y(batch * num * (mode == 0 ? width : 1), 7.0f);
  mxc_kernel_box_nms_f32(BUF(x), BUF(y), batch, num, width, bits(float(overlap)), bits(0.0),
                         topk, 2, 1, idIndex, -1, force ? 1 : 0, 1, outCorner ? 1 : 0, mode);
  return y;
}

TEST(DetectionKernels, BoxNmsSuppressesByClassAndScore) {
  // [id, score, x1, y1, x2, y2]: 0 and 1 overlap (IoU 0.81) in class 0; 2
  // overlaps 0 but is class 1; 3 is far away.
  std::vector<float> x = {0, 0.8f, 0, 0, 2, 2,   0, 0.9f, 0.1f, 0.1f, 2.1f, 2.1f,
                          1, 0.7f, 0, 0, 2, 2,   0, 0.3f, 5, 5, 6, 6};
  std::vector<float> y = nms(x, 1, 4, 6, 0.5, -1, 0, false, true, 0);
  std::vector<float> want = {0, 0.9f, 0.1f, 0.1f, 2.1f, 2.1f,  1, 0.7f, 0, 0, 2, 2,
                             0, 0.3f, 5, 5, 6, 6,              -1, -1, -1, -1, -1, -1};
  EXPECT_EQ(y, want);
  EXPECT_EQ(nms(x, 1, 4, 6, 0.5, -1, 0, false, true, 1), (std::vector<float>{1, 2, 3, -1}));
  // force_suppress: class 1's box goes too; topk 1: only the best is considered
  EXPECT_EQ(nms(x, 1, 4, 6, 0.5, -1, 0, true, true, 1), (std::vector<float>{1, 3, -1, -1}));
  EXPECT_EQ(nms(x, 1, 4, 6, 0.5, 1, 0, false, true, 1), (std::vector<float>{1, -1, -1, -1}));
  // center output: the kept corner boxes converted, the -1 rows left alone
  std::vector<float> c = nms(x, 1, 4, 6, 0.5, 1, 0, false, false, 0);
  const float center[6] = {0, 0.9f, 1.1f, 1.1f, 2, 2};
  for (int i = 0; i < 6; ++i)
    EXPECT_NEAR(c[i], center[i], 1e-6) << i;
  EXPECT_EQ(c[6], -1);
}

TEST(DetectionKernels, BipartiteMatchingDocExampleAndTopk) {
  // MXNet's docstring: s = [[0.5, 0.6], [0.1, 0.2], [0.3, 0.4]] -> x = [1, -1, 0], y = [2, 0]
  std::vector<float> s = {0.5f, 0.6f, 0.1f, 0.2f, 0.3f, 0.4f};
  std::vector<float> rows(3), cols(2);
  mxc_kernel_bipartite_matching_f32(BUF(s), BUF(rows), 1, 3, 2, bits(1e-12f), 0, -1, 0);
  mxc_kernel_bipartite_matching_f32(BUF(s), BUF(cols), 1, 3, 2, bits(1e-12f), 0, -1, 1);
  EXPECT_EQ(rows, (std::vector<float>{1, -1, 0}));
  EXPECT_EQ(cols, (std::vector<float>{2, 0}));
  // topk = 1 still makes two matches: MXNet stops once count > topk
  std::vector<float> d = {0.9f, 0.1f, 0.1f, 0.1f, 0.8f, 0.1f, 0.1f, 0.1f, 0.7f};
  std::vector<float> r(3);
  mxc_kernel_bipartite_matching_f32(BUF(d), BUF(r), 1, 3, 3, bits(0.05f), 0, 1, 0);
  EXPECT_EQ(r, (std::vector<float>{0, 1, -1}));
}

TEST(DetectionKernels, SyevdEigenpairsAndSigns) {
  // MXNet's test_laop_4: [[1, 2], [2, 4]] -> L = [0, 5], U rows with the
  // largest entry positive
  std::vector<double> a = {1, 2, 2, 4};
  std::vector<double> u(4), l(2);
  mxc_kernel_syevd_f64(BUF(a), BUF(u), 1, 2, 0);
  mxc_kernel_syevd_f64(BUF(a), BUF(l), 1, 2, 1);
  EXPECT_NEAR(l[0], 0.0, 1e-14);
  EXPECT_NEAR(l[1], 5.0, 1e-14);
  const double r = 1 / std::sqrt(5.0); // rows (2, -1) / sqrt 5 and (1, 2) / sqrt 5
  const double want[4] = {2 * r, -r, r, 2 * r};
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(u[i], want[i], 1e-14);
  // only the lower triangle is read
  std::vector<double> b = {3, 99, 1, 3};
  mxc_kernel_syevd_f64(BUF(b), BUF(l), 1, 2, 1);
  EXPECT_NEAR(l[0], 2.0, 1e-14);
  EXPECT_NEAR(l[1], 4.0, 1e-14);
}

TEST(DetectionKernels, LuInverseAndDeterminants) {
  // [[1, 2], [3, 4]]: det -2, inverse [[-2, 1], [1.5, -0.5]]; a row swap
  // (pivot 2 first) and a singular matrix
  std::vector<double> a = {1, 2, 3, 4, 1, 2, 2, 4};
  std::vector<double> inv(8), det(2), sign(2), logabs(2), piv(4);
  mxc_kernel_lu_f64(BUF(a), BUF(inv), 2, 2, 0);
  mxc_kernel_lu_f64(BUF(a), BUF(det), 2, 2, 1);
  mxc_kernel_lu_f64(BUF(a), BUF(sign), 2, 2, 2);
  mxc_kernel_lu_f64(BUF(a), BUF(logabs), 2, 2, 3);
  mxc_kernel_lu_f64(BUF(a), BUF(piv), 2, 2, 5);
  const double want[4] = {-2, 1, 1.5, -0.5};
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(inv[i], want[i], 1e-14);
  EXPECT_NEAR(det[0], -2, 1e-14);
  EXPECT_EQ(det[1], 0);
  EXPECT_EQ(sign[0], -1);
  EXPECT_EQ(sign[1], 0);
  EXPECT_NEAR(logabs[0], std::log(2.0), 1e-14);
  EXPECT_TRUE(std::isinf(logabs[1]) && logabs[1] < 0);
  EXPECT_EQ(piv[0], 2); // row 2 (1-based) has the larger pivot
}

} // namespace
