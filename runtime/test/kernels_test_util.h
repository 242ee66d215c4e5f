// Helpers of the kernel tests (kernels_forward_test.cc, kernels_backward_test.cc):
// seeded random buffers and the rank-1 buffer argument list of the kernel ABI.
#ifndef MXC_RUNTIME_TEST_KERNELS_TEST_UTIL_H
#define MXC_RUNTIME_TEST_KERNELS_TEST_UTIL_H

#include <cstdint>
#include <random>
#include <vector>

namespace mxc::test {

/// `n` values uniform in [-1, 1) from `seed`.
template <typename T> std::vector<T> randomVector(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<T> v(n);
  for (T &x : v)
    x = T(dist(gen));
  return v;
}

} // namespace mxc::test

// A rank-1 kernel buffer argument list: allocated, aligned, offset, size,
// stride.
#define BUF(v) (v).data(), (v).data(), int64_t(0), int64_t((v).size()), int64_t(1)

#endif // MXC_RUNTIME_TEST_KERNELS_TEST_UTIL_H
