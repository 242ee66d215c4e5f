//===- blas.h - the CBLAS routines the kernels call -------------*- C++ -*-===//
//
// The two CBLAS routines the kernels use (from OpenBLAS, or from
// portable_gemm.cc when the runtime is built with MXC_RUNTIME_BLAS=OFF), and
// typed row-major wrappers shared by gemm.cc and conv_backward.cc. The
// wrappers resolve the process's thread budget before the first BLAS call
// (mxc/runtime/threads.h): OpenBLAS then uses the budget's kernel threads.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_RUNTIME_SRC_KERNELS_BLAS_H
#define MXC_RUNTIME_SRC_KERNELS_BLAS_H

#include "mxc/runtime/threads.h"

#include <algorithm>
#include <cstdint>

extern "C" {
// The CBLAS interface (row-major = 101, no-trans = 111, trans = 112).
void cblas_sgemm(int order, int transA, int transB, int m, int n, int k,
                 float alpha, const float *a, int lda, const float *b, int ldb,
                 float beta, float *c, int ldc);
void cblas_dgemm(int order, int transA, int transB, int m, int n, int k,
                 double alpha, const double *a, int lda, const double *b,
                 int ldb, double beta, double *c, int ldc);
}

namespace mxc::kernels {

constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;

// Row-major C = alpha * op(A) * op(B) + beta * C for float or double.
inline void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                 float alpha, const float *a, int64_t lda, const float *b,
                 int64_t ldb, float beta, float *c, int64_t ldc) {
  runtime::initThreadBudget();
  cblas_sgemm(kRowMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, m, n,
              k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                 double alpha, const double *a, int64_t lda, const double *b,
                 int64_t ldb, double beta, double *c, int64_t ldc) {
  runtime::initThreadBudget();
  cblas_dgemm(kRowMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, m, n,
              k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// Row-major C (m x n) = op(A) * op(B) + beta * C, also for the empty cases
// BLAS rejects.
template <typename T>
void gemmOrZero(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T *a,
                const T *b, T beta, T *c) {
  if (m == 0 || n == 0)
    return;
  if (k == 0) {
    if (beta == T(0))
      std::fill(c, c + m * n, T(0));
    return;
  }
  gemm(ta, tb, m, n, k, T(1), a, ta ? m : k, b, tb ? k : n, beta, c, n);
}

} // namespace mxc::kernels

#endif // MXC_RUNTIME_SRC_KERNELS_BLAS_H
