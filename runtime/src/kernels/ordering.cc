//===- ordering.cc - topk -------------------------------------------------===//
//
// mxc_kernel_topk_{f32,f64} (kernels.h): MXNet's topk
// (src/operator/tensor/ordering_op-inl.h) on (outer, n, inner) data, the
// ordered axis in the middle. Each of the outer * inner rows is ordered by
// value (descending, or ascending with is_ascend), equal values by position
// (MXNet's stable order: argsort of [3, 3, 3] is [0, 1, 2] both ways), NaN
// after every number. mode 0 writes the first k values (outer, k, inner),
// 1 their positions as T, 2 a mask (outer, n, inner) with 1 at the k
// selected positions. std::partial_sort per row: O(n log k).
//
//===----------------------------------------------------------------------===//
#include "kernels.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace {

template <typename T>
void topk(const T *x, T *y, int64_t outer, int64_t n, int64_t inner, int64_t k,
          bool ascend, int64_t mode) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::vector<T> row(static_cast<size_t>(n));
  // a before b: a strict weak order with NaN after every number.
  auto before = [&](int64_t a, int64_t b) {
    T va = row[a], vb = row[b];
    bool na = std::isnan(va), nb = std::isnan(vb);
    if (na || nb)
      return !na && nb ? true : (na && nb ? a < b : false);
    if (va != vb)
      return ascend ? va < vb : va > vb;
    return a < b;
  };
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const T *src = x + o * n * inner + i;
      for (int64_t j = 0; j < n; ++j)
        row[j] = src[j * inner];
      std::iota(order.begin(), order.end(), int64_t(0));
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      if (mode == 2) {
        T *dst = y + o * n * inner + i;
        for (int64_t j = 0; j < n; ++j)
          dst[j * inner] = T(0);
        for (int64_t j = 0; j < k; ++j)
          dst[order[j] * inner] = T(1);
        continue;
      }
      T *dst = y + o * k * inner + i;
      for (int64_t j = 0; j < k; ++j)
        dst[j * inner] = mode == 0 ? row[order[j]] : T(order[j]);
    }
}

} // namespace

#define MXC_DEFINE_ORDERING_KERNELS(T, suffix)                                 \
  MXC_KERNEL_EXPORT void mxc_kernel_topk_##suffix(                             \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(T, y), int64_t outer,   \
      int64_t n, int64_t inner, int64_t k, int64_t is_ascend, int64_t mode) {  \
    (void)x_allocated, (void)x_size, (void)x_stride, (void)y_allocated;        \
    (void)y_size, (void)y_stride;                                              \
    topk(x + x_offset, y + y_offset, outer, n, inner, k, is_ascend != 0,      \
         mode);                                                                \
  }

MXC_DEFINE_ORDERING_KERNELS(float, f32)
MXC_DEFINE_ORDERING_KERNELS(double, f64)
