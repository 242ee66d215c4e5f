// mxc_kernel_topk_{f32,f64} (runtime/src/kernels/ordering.cc) against a
// full sort of each row: values, positions and masks along the middle
// axis of (outer, n, inner) data, both orders, ties in index order, NaN after
// every number.
#include "../src/kernels/kernels.h"
#include "kernels_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace {

// The positions of row (o, i) in the kernel's order: a sort by value, equal
// values (and NaNs) by position.
template <typename T>
std::vector<int64_t> reference(const std::vector<T> &x, int64_t n, int64_t inner,
                               int64_t o, int64_t i, bool ascend) {
  std::vector<int64_t> pos(n);
  std::iota(pos.begin(), pos.end(), int64_t(0));
  auto at = [&](int64_t j) { return x[(o * n + j) * inner + i]; };
  std::sort(pos.begin(), pos.end(), [&](int64_t a, int64_t b) {
    T va = at(a), vb = at(b);
    bool na = std::isnan(va), nb = std::isnan(vb);
    if (na != nb)
      return nb;
    if (!na && va != vb)
      return ascend ? va < vb : va > vb;
    return a < b;
  });
  return pos;
}

template <typename T> void check(int64_t outer, int64_t n, int64_t inner, int64_t k) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(0, 4); // many ties
  std::vector<T> x(outer * n * inner);
  for (T &v : x)
    v = T(small(rng));
  x[1] = std::numeric_limits<T>::quiet_NaN();
  for (bool ascend : {false, true})
    for (int64_t mode : {0, 1, 2}) {
      std::vector<T> y(outer * (mode == 2 ? n : k) * inner, T(-7));
      auto call = [&] {
        if constexpr (std::is_same_v<T, float>)
          mxc_kernel_topk_f32(BUF(x), BUF(y), outer, n, inner, k, ascend, mode);
        else
          mxc_kernel_topk_f64(BUF(x), BUF(y), outer, n, inner, k, ascend, mode);
      };
      call();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          std::vector<int64_t> pos = reference(x, n, inner, o, i, ascend);
          if (mode == 2) {
            for (int64_t j = 0; j < n; ++j) {
              bool selected = std::find(pos.begin(), pos.begin() + k, j) != pos.begin() + k;
              EXPECT_EQ(y[(o * n + j) * inner + i], T(selected ? 1 : 0));
            }
            continue;
          }
          for (int64_t j = 0; j < k; ++j) {
            T got = y[(o * k + j) * inner + i];
            T want = mode == 0 ? x[(o * n + pos[j]) * inner + i] : T(pos[j]);
            if (std::isnan(want))
              EXPECT_TRUE(std::isnan(got));
            else
              EXPECT_EQ(got, want) << "o " << o << " i " << i << " j " << j
                                   << " mode " << mode << " ascend " << ascend;
          }
        }
    }
}

TEST(TopkKernel, RowsOfTheMiddleAxisF32) { check<float>(3, 17, 4, 5); }
TEST(TopkKernel, WholeAxisF64) { check<double>(2, 9, 1, 9); }
TEST(TopkKernel, FlattenedLongRow) { check<float>(1, 1000, 1, 10); }

} // namespace
