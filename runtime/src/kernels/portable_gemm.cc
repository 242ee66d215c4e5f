//===- portable_gemm.cc - CBLAS GEMM in plain C++ (no OpenBLAS) -----------===//
//
// Built instead of linking OpenBLAS when the runtime is configured with
// -DMXC_RUNTIME_BLAS=OFF (runtime/CMakeLists.txt): the two CBLAS routines the
// kernels call (gemm.cc, *_backward.cc), row-major only, as cache-blocked
// loops the compiler vectorises. Correct for every transpose and beta, and
// several times slower than OpenBLAS; for targets without an OpenBLAS build
// (docs/aot.md).
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kRowMajor = 101, kTrans = 112;

// C (m x n, row stride ldc) = alpha * op(A) * op(B) + beta * C.
template <typename T>
void gemm(int order, int transA, int transB, int m, int n, int k, T alpha,
          const T *a, int lda, const T *b, int ldb, T beta, T *c, int ldc) {
  if (order != kRowMajor)
    std::abort(); // the kernels only call the row-major form
  for (int i = 0; i < m; ++i) {
    T *ci = c + size_t(i) * size_t(ldc);
    if (beta == T(0))
      std::fill(ci, ci + n, T(0));
    else if (beta != T(1))
      for (int j = 0; j < n; ++j)
        ci[j] *= beta;
  }
  if (m == 0 || n == 0 || k == 0 || alpha == T(0))
    return;
  // B as k x n row-major (a copy when transposed), so that the inner loop
  // runs over contiguous rows of B and C.
  std::vector<T> bt;
  const T *bp = b;
  size_t ldbp = size_t(ldb);
  if (transB == kTrans) {
    bt.resize(size_t(k) * size_t(n));
    for (int j = 0; j < n; ++j)
      for (int p = 0; p < k; ++p)
        bt[size_t(p) * size_t(n) + size_t(j)] =
            b[size_t(j) * size_t(ldb) + size_t(p)];
    bp = bt.data();
    ldbp = size_t(n);
  }
  constexpr int kBlockK = 256, kBlockN = 512;
  for (int p0 = 0; p0 < k; p0 += kBlockK) {
    int p1 = std::min(k, p0 + kBlockK);
    for (int j0 = 0; j0 < n; j0 += kBlockN) {
      int j1 = std::min(n, j0 + kBlockN);
      for (int i = 0; i < m; ++i) {
        T *ci = c + size_t(i) * size_t(ldc);
        for (int p = p0; p < p1; ++p) {
          T aip = transA == kTrans ? a[size_t(p) * size_t(lda) + size_t(i)]
                                   : a[size_t(i) * size_t(lda) + size_t(p)];
          T s = alpha * aip;
          const T *bpp = bp + size_t(p) * ldbp;
          for (int j = j0; j < j1; ++j)
            ci[j] += s * bpp[j];
        }
      }
    }
  }
}

// y = alpha * op(A) x + beta * y; A is m x n (row stride lda).
template <typename T>
void gemv(int order, int trans, int m, int n, T alpha, const T *a, int lda,
          const T *x, int incx, T beta, T *y, int incy) {
  if (order != kRowMajor)
    std::abort();
  const int len = trans == kTrans ? n : m;
  for (int i = 0; i < len; ++i)
    y[size_t(i) * incy] = beta == T(0) ? T(0) : beta * y[size_t(i) * incy];
  if (trans == kTrans) {
    for (int r = 0; r < m; ++r) {
      const T s = alpha * x[size_t(r) * incx];
      const T *ar = a + size_t(r) * size_t(lda);
      for (int j = 0; j < n; ++j)
        y[size_t(j) * incy] += s * ar[j];
    }
  } else {
    for (int r = 0; r < m; ++r) {
      const T *ar = a + size_t(r) * size_t(lda);
      T acc = T(0);
      for (int j = 0; j < n; ++j)
        acc += ar[j] * x[size_t(j) * incx];
      y[size_t(r) * incy] += alpha * acc;
    }
  }
}

} // namespace

extern "C" {

void cblas_sgemv(int order, int trans, int m, int n, float alpha,
                 const float *a, int lda, const float *x, int incx, float beta,
                 float *y, int incy) {
  gemv<float>(order, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

void cblas_dgemv(int order, int trans, int m, int n, double alpha,
                 const double *a, int lda, const double *x, int incx,
                 double beta, double *y, int incy) {
  gemv<double>(order, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

void cblas_sgemm(int order, int transA, int transB, int m, int n, int k,
                 float alpha, const float *a, int lda, const float *b, int ldb,
                 float beta, float *c, int ldc) {
  gemm<float>(order, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c,
              ldc);
}

void cblas_dgemm(int order, int transA, int transB, int m, int n, int k,
                 double alpha, const double *a, int lda, const double *b,
                 int ldb, double beta, double *c, int ldc) {
  gemm<double>(order, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c,
               ldc);
}

} // extern "C"
