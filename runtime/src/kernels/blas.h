//===- blas.h - the CBLAS routines the kernels call -------------*- C++ -*-===//
//
// The two CBLAS routines the kernels use (from OpenBLAS, or from
// portable_gemm.cc when the runtime is built with MXC_RUNTIME_BLAS=OFF), and
// typed row-major wrappers shared by gemm.cc and conv_backward.cc. The
// wrappers resolve the process's thread budget before the first BLAS call
// (mxc/runtime/threads.h), which makes OpenBLAS single-threaded, and split
// each large product across the budget's kernel threads themselves.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_RUNTIME_SRC_KERNELS_BLAS_H
#define MXC_RUNTIME_SRC_KERNELS_BLAS_H

#include "mxc/runtime/threads.h"
#include "parallel.h"

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

// Below this many multiply-adds a GEMM runs as one BLAS call (a GEMV below
// a sixteenth of it): a part must be worth waking a thread for.
constexpr int64_t kMinBlasSplitCost = int64_t(1) << 20;

// The single-threaded BLAS calls, typed.
inline void blasGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                     float alpha, const float *a, int64_t lda, const float *b,
                     int64_t ldb, float beta, float *c, int64_t ldc) {
  cblas_sgemm(kRowMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, m, n,
              k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void blasGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                     double alpha, const double *a, int64_t lda,
                     const double *b, int64_t ldb, double beta, double *c,
                     int64_t ldc) {
  cblas_dgemm(kRowMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, m, n,
              k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void blasGemv(bool trans, int64_t rows, int64_t cols, const float *a,
                     int64_t lda, const float *x, float beta, float *y) {
  cblas_sgemv(kRowMajor, trans ? kTrans : kNoTrans, rows, cols, 1.0f, a, lda,
              x, 1, beta, y, 1);
}
inline void blasGemv(bool trans, int64_t rows, int64_t cols, const double *a,
                     int64_t lda, const double *x, double beta, double *y) {
  cblas_dgemv(kRowMajor, trans ? kTrans : kNoTrans, rows, cols, 1.0, a, lda,
              x, 1, beta, y, 1);
}

// Parts of `dim` (rows or columns) for a product split across the kernel
// threads: two a thread, so that a thread that is slowed (a shared host's
// vCPU) leaves its second part to the others, and at least `minUnit` each.
inline int64_t blasParts(int64_t dim, int64_t minUnit) {
  return std::max<int64_t>(1, std::min<int64_t>(int64_t(loopThreads()) * 2,
                                                dim / minUnit));
}

// Runs `part(first, last)` for each of `parts` even ranges of [0, dim) on
// the kernel threads: one BLAS call a part, also when the loop runs on one
// thread (the pool busy), so the calls and their rounding are the same
// whoever runs them.
template <typename F>
void forEachPart(int64_t dim, int64_t parts, int64_t cost, F &&part) {
  parallelFor(parts, cost, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      part(dim * i / parts, dim * (i + 1) / parts);
  });
}

// Row-major C = alpha * op(A) * op(B) + beta * C for float or double, on
// the kernel threads: OpenBLAS runs single-threaded (threads.cc) and the
// product is split here by rows or columns of C into parts run by
// parallelFor, so that one pool serves every kernel (OpenBLAS's own pool
// spun in sched_yield after each call and took a core from the pool's
// helpers; docs/runtime.md, "Threads"). Inside another parallel loop it runs
// on the calling thread.
template <typename T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha,
          const T *a, int64_t lda, const T *b, int64_t ldb, T beta, T *c,
          int64_t ldc) {
  runtime::initThreadBudget();
  const int64_t cost = m * n * k;
  const bool byRows = m >= n;
  const int64_t dim = byRows ? m : n;
  const int64_t parts = cost >= kMinBlasSplitCost ? blasParts(dim, byRows ? 16 : 32) : 1;
  if (parts <= 1) {
    blasGemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  forEachPart(dim, parts, cost, [&](int64_t first, int64_t last) {
    if (byRows) // rows [first, last) of op(A) and of C
      blasGemm(ta, tb, last - first, n, k, alpha, a + (ta ? first : first * lda), lda, b,
               ldb, beta, c + first * ldc, ldc);
    else // columns [first, last) of op(B) and of C
      blasGemm(ta, tb, m, last - first, k, alpha, a, lda, b + (tb ? first * ldb : first),
               ldb, beta, c + first, ldc);
  });
}

// Row-major y = op(A) x + beta y (A: rows x cols), split by elements of y
// as gemm() is.
template <typename T>
void gemv(bool trans, int64_t rows, int64_t cols, const T *a, int64_t lda,
          const T *x, T beta, T *y) {
  runtime::initThreadBudget();
  const int64_t cost = rows * cols;
  const int64_t dim = trans ? cols : rows;
  const int64_t parts = cost >= kMinBlasSplitCost / 16 ? blasParts(dim, 64) : 1;
  if (parts <= 1) {
    blasGemv(trans, rows, cols, a, lda, x, beta, y);
    return;
  }
  forEachPart(dim, parts, cost, [&](int64_t first, int64_t last) {
    if (trans) // y[first, last) = A[:, first:last]^T x
      blasGemv(true, rows, last - first, a + first, lda, x, beta, y + first);
    else // y[first, last) = A[first:last, :] x
      blasGemv(false, last - first, cols, a + first * lda, lda, x, beta, y + first);
  });
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
