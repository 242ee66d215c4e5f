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
void cblas_sgemv(int order, int trans, int m, int n, float alpha,
                 const float *a, int lda, const float *x, int incx, float beta,
                 float *y, int incy);
void cblas_dgemv(int order, int trans, int m, int n, double alpha,
                 const double *a, int lda, const double *x, int incx,
                 double beta, double *y, int incy);
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
inline void gemv(bool trans, int64_t rows, int64_t cols, const float *a,
                 int64_t lda, const float *x, float beta, float *y) {
  runtime::initThreadBudget();
  cblas_sgemv(kRowMajor, trans ? kTrans : kNoTrans, rows, cols, 1.0f, a, lda,
              x, 1, beta, y, 1);
}
inline void gemv(bool trans, int64_t rows, int64_t cols, const double *a,
                 int64_t lda, const double *x, double beta, double *y) {
  runtime::initThreadBudget();
  cblas_dgemv(kRowMajor, trans ? kTrans : kNoTrans, rows, cols, 1.0, a, lda,
              x, 1, beta, y, 1);
}

/// C (m x n) = op(A) op(B) + beta C, all packed row-major. A product with one
/// row or one column is a matrix-vector product: GEMV (OpenBLAS 0.3.21's
/// SGEMM packs the whole matrix on every call even for M = 1, which made
/// batch-1 FullyConnected 2-3x slower than its memory bound; see
/// docs/benchmarks.md, "CPU inference").
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
  if (m == 1) {
    // c^T (n) = op(B)^T a: B is n x k with tb, else k x n. One row of A is
    // contiguous either way (lda is k, or m = 1 with ta).
    if (tb)
      gemv(false, n, k, b, k, a, beta, c);
    else
      gemv(true, k, n, b, n, a, beta, c);
    return;
  }
  if (n == 1) {
    // c (m) = op(A) b: A is m x k, or k x m with ta; b is contiguous.
    if (ta)
      gemv(true, k, m, a, m, b, beta, c);
    else
      gemv(false, m, k, a, k, b, beta, c);
    return;
  }
  gemm(ta, tb, m, n, k, T(1), a, ta ? m : k, b, tb ? k : n, beta, c, n);
}

} // namespace mxc::kernels

#endif // MXC_RUNTIME_SRC_KERNELS_BLAS_H
