// cublas_kernels.cc - the GEMM-class library kernels of the CUDA target:
// `mxc_cuda_kernel_gemm_{f32,f64}` and `mxc_cuda_kernel_fully_connected_
// {f32,f64}`, with the argument lists of their CPU twins (kernels.h: rank-1
// memref descriptors, then int64 sizes and flags), on device pointers,
// through cuBLAS. cuBLAS is loaded at first use with dlopen
// ("libcublas.so.13", then "libcublas.so"), like the driver, so a CUDA build
// runs where there is none. The generated host code of a GPU step calls them
// (lowerStepsForCuda renames the step's mxrt.kernel_call callees); they run on
// the calling thread's stream of the device and return with it synchronised
// (cuda::synchronize; inside a bulk run's stream batch the run waits instead).
// Failures are reported with mxcKernelReportError (the step fails).
//
// f32 GEMMs use CUBLAS_DEFAULT_MATH, i.e. no TF32 (MXNet's default f32
// semantics); MXC_CUDA_ALLOW_TF32=1 turns TF32 tensor cores on.
#include "internal.h"

#include "../kernels/kernels.h"
#include "mxc/runtime/c_api.h"
#include "mxc/runtime/cuda.h"
#include "mxc/runtime/error.h"
#include "mxc/runtime/plan.h"
#include "mxc/runtime/storage.h"

#include <cublas_v2.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

using namespace mxc::runtime;
using namespace mxc::runtime::cuda;

#define MXC_CUBLAS_FUNCTIONS(X)                                                        \
  X(cublasCreate)                                                                      \
  X(cublasSetStream)                                                                   \
  X(cublasSetMathMode)                                                                 \
  X(cublasGetStatusString)                                                             \
  X(cublasSgemm)                                                                       \
  X(cublasDgemm)                                                                       \
  X(cublasSgemmStridedBatched)                                                         \
  X(cublasDgemmStridedBatched)                                                         \
  X(cublasSger)                                                                        \
  X(cublasDger)

struct Cublas {
#define MXC_CUBLAS_MEMBER(name) decltype(&::name) name = nullptr;
  MXC_CUBLAS_FUNCTIONS(MXC_CUBLAS_MEMBER)
#undef MXC_CUBLAS_MEMBER
  std::string error; ///< why it did not load ("" when it did)
};

const Cublas &cublas() {
  static const Cublas *loaded = [] {
    auto *c = new Cublas;
    void *h = openLibrary({"libcublas.so.13", "libcublas.so"}, "cuBLAS", &c->error);
#define MXC_CUBLAS_LOAD(name)                                                          \
  if (!h || !loadSymbol(h, MXC_CUDA_STR(name), c->name, "cuBLAS", &c->error))          \
    return c;
    MXC_CUBLAS_FUNCTIONS(MXC_CUBLAS_LOAD)
#undef MXC_CUBLAS_LOAD
    return c;
  }();
  if (!loaded->error.empty())
    throw Error(loaded->error);
  return *loaded;
}

void checkBlas(cublasStatus_t s, const char *what) {
  if (s == CUBLAS_STATUS_SUCCESS)
    return;
  const char *text = cublas().cublasGetStatusString(s);
  throw Error(std::string(what) + ": " + (text ? text : std::to_string(int(s))));
}

/// The calling thread's cuBLAS handle on the device, bound to its stream.
/// Makes the device's context current (a handle is tied to its context,
/// and the thread may have bound another device since).
cublasHandle_t handle(int device) {
  thread_local std::map<int, cublasHandle_t> handles;
  bindDevice(device);
  auto it = handles.find(device);
  if (it != handles.end())
    return it->second;
  const Cublas &c = cublas();
  cublasHandle_t h = nullptr;
  checkBlas(c.cublasCreate(&h), "cublasCreate");
  checkBlas(c.cublasSetStream(h, streamOf(device)), "cublasSetStream");
  checkBlas(c.cublasSetMathMode(h, allowTf32() ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH),
            "cublasSetMathMode");
  handles[device] = h;
  return h;
}

/// A device vector of `n` ones of type T (cached per device and type; grown
/// as needed; never freed).
template <typename T> const T *ones(int device, int64_t n) {
  static std::mutex mu;
  static auto *cache = new std::map<std::pair<int, size_t>, std::pair<Storage, int64_t>>;
  std::lock_guard<std::mutex> lock(mu);
  auto &entry = (*cache)[{device, sizeof(T)}];
  if (entry.second < n) {
    Storage s = storageManager(Device::gpu(device)).allocate(size_t(n) * sizeof(T));
    std::vector<T> host(size_t(n), T(1));
    const Driver &d = bindDevice(device);
    CUstream st = streamOf(device);
    check(d.cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(s.data), host.data(),
                              host.size() * sizeof(T), st),
          "copying ones to the device");
    check(d.cuStreamSynchronize(st), "copying ones to the device");
    entry = {s, n}; // the previous block (if any) stays allocated: a few bytes
  }
  return static_cast<const T *>(entry.first.data);
}

template <typename T>
void gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
          const T *a, int lda, const T *b, int ldb, T *c, int ldc, T beta) {
  const Cublas &cb = cublas();
  T one = 1;
  if constexpr (sizeof(T) == 4)
    checkBlas(cb.cublasSgemm(h, ta, tb, m, n, k, &one, a, lda, b, ldb, &beta, c, ldc),
              "cublasSgemm");
  else
    checkBlas(cb.cublasDgemm(h, ta, tb, m, n, k, &one, a, lda, b, ldb, &beta, c, ldc),
              "cublasDgemm");
}

/// cuBLAS takes int sizes and leading dimensions: a larger one is an error,
/// not a wrapped value.
void checkIntRange(std::initializer_list<int64_t> sizes, const char *what) {
  for (int64_t v : sizes)
    if (v > INT32_MAX)
      throw Error(std::string(what) + ": a size beyond cuBLAS's int range (" +
                  std::to_string(v) + ")");
}

// Row-major C (m x n) = op(A) op(B) is column-major C^T = op(B)^T op(A)^T:
// cuBLAS gets B first, with the row-major leading dimensions (at least 1,
// as cuBLAS wants even where a size is 0).
template <typename T>
void rowMajorGemm(const T *a, const T *b, T *c, int64_t batch, int64_t m, int64_t n, int64_t k,
                  int64_t transA, int64_t transB) {
  checkIntRange({batch, m, n, k}, "matrix product on the GPU");
  int device = mgpuCurrentDevice();
  cublasHandle_t h = handle(device);
  cublasOperation_t ta = transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t tb = transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  int lda = int(std::max<int64_t>(1, transA ? m : k)),
      ldb = int(std::max<int64_t>(1, transB ? k : n));
  if (batch == 1) {
    gemm<T>(h, tb, ta, int(n), int(m), int(k), b, ldb, a, lda, c, int(std::max<int64_t>(1, n)),
            T(0));
  } else {
    const Cublas &cb = cublas();
    T one = 1, zero = 0;
    if constexpr (sizeof(T) == 4)
      checkBlas(cb.cublasSgemmStridedBatched(h, tb, ta, int(n), int(m), int(k), &one, b, ldb,
                                             k * n, a, lda, m * k, &zero, c,
                                             int(std::max<int64_t>(1, n)), m * n, int(batch)),
                "cublasSgemmStridedBatched");
    else
      checkBlas(cb.cublasDgemmStridedBatched(h, tb, ta, int(n), int(m), int(k), &one, b, ldb,
                                             k * n, a, lda, m * k, &zero, c,
                                             int(std::max<int64_t>(1, n)), m * n, int(batch)),
                "cublasDgemmStridedBatched");
  }
  synchronize(device);
}

// y (m x n) = x (m x k) w^T + bias: column-major y^T = w x^T (w^T is k x n
// column-major, transposed), then y^T += bias * ones^T (a rank-1 update).
template <typename T>
void fullyConnected(const T *x, const T *w, const T *bias, T *y, int64_t m, int64_t n, int64_t k,
                    int64_t hasBias) {
  checkIntRange({m, n, k}, "FullyConnected on the GPU");
  int device = mgpuCurrentDevice();
  cublasHandle_t h = handle(device);
  int ldk = int(std::max<int64_t>(1, k)), ldn = int(std::max<int64_t>(1, n));
  gemm<T>(h, CUBLAS_OP_T, CUBLAS_OP_N, int(n), int(m), int(k), w, ldk, x, ldk, y, ldn, T(0));
  if (hasBias) {
    const T *o = ones<T>(device, m);
    T one = 1;
    const Cublas &cb = cublas();
    if constexpr (sizeof(T) == 4)
      checkBlas(cb.cublasSger(h, int(n), int(m), &one, bias, 1, o, 1, y, ldn), "cublasSger");
    else
      checkBlas(cb.cublasDger(h, int(n), int(m), &one, bias, 1, o, 1, y, ldn), "cublasDger");
  }
  synchronize(device);
}

template <typename Fn> void reported(const char *what, Fn &&fn) {
  if (kernelErrorReported())
    return; // the step failed before (its buffers may not exist)
  try {
    fn();
  } catch (const std::exception &e) {
    mxcKernelReportError((std::string(what) + " on the GPU: " + e.what()).c_str());
  }
}

} // namespace

#define MXC_DEFINE_CUDA_GEMM_KERNELS(T, suffix)                                        \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_gemm_##suffix(                                \
      MXC_KERNEL_BUFFER(const T, a), MXC_KERNEL_BUFFER(const T, b),                    \
      MXC_KERNEL_BUFFER(T, c), int64_t batch, int64_t m, int64_t n, int64_t k,         \
      int64_t trans_a, int64_t trans_b) {                                              \
    reported("gemm", [&] {                                                             \
      rowMajorGemm<T>(a + a_offset, b + b_offset, c + c_offset, batch, m, n, k,        \
                      trans_a, trans_b);                                               \
    });                                                                                \
  }                                                                                    \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_fully_connected_##suffix(                     \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(const T, w),                    \
      MXC_KERNEL_BUFFER(const T, bias), MXC_KERNEL_BUFFER(T, y), int64_t m, int64_t n, \
      int64_t k, int64_t has_bias) {                                                   \
    reported("fully_connected", [&] {                                                  \
      fullyConnected<T>(x + x_offset, w + w_offset, bias + bias_offset, y + y_offset,  \
                        m, n, k, has_bias);                                            \
    });                                                                                \
  }

MXC_DEFINE_CUDA_GEMM_KERNELS(float, f32)
MXC_DEFINE_CUDA_GEMM_KERNELS(double, f64)
