// driver.h - the CUDA driver API, loaded at run time with
// dlopen("libcuda.so.1"), so that a build with CUDA enabled runs on machines
// without a GPU or a driver (every GPU entry point then throws one clear
// Error). cuda.h gives the types and the versioned names (cuMemAlloc is
// cuMemAlloc_v2); nothing links against libcuda.
//
// Private to the runtime: include/mxc/runtime/cuda.h is the public face.
#ifndef MXC_RUNTIME_CUDA_DRIVER_H
#define MXC_RUNTIME_CUDA_DRIVER_H

#include <cuda.h>

#include <string>

namespace mxc::runtime::cuda {

// Every driver function the runtime calls, as cuda.h declares it (under its
// versioned name). X(name) for each.
#define MXC_CUDA_DRIVER_FUNCTIONS(X)                                                   \
  X(cuInit)                                                                            \
  X(cuDriverGetVersion)                                                                \
  X(cuGetErrorName)                                                                    \
  X(cuGetErrorString)                                                                  \
  X(cuDeviceGetCount)                                                                  \
  X(cuDeviceGet)                                                                       \
  X(cuDeviceGetName)                                                                   \
  X(cuDeviceGetAttribute)                                                              \
  X(cuDeviceTotalMem)                                                                  \
  X(cuDevicePrimaryCtxRetain)                                                          \
  X(cuCtxSetCurrent)                                                                   \
  X(cuMemAlloc)                                                                        \
  X(cuMemFree)                                                                         \
  X(cuMemGetInfo)                                                                      \
  X(cuMemHostAlloc)                                                                    \
  X(cuMemFreeHost)                                                                     \
  X(cuMemcpyHtoDAsync)                                                                 \
  X(cuMemcpyDtoHAsync)                                                                 \
  X(cuMemcpyDtoDAsync)                                                                 \
  X(cuMemcpyAsync)                                                                     \
  X(cuMemsetD8Async)                                                                   \
  X(cuMemsetD16Async)                                                                  \
  X(cuMemsetD32Async)                                                                  \
  X(cuMemsetD2D32Async)                                                                \
  X(cuStreamCreate)                                                                    \
  X(cuStreamSynchronize)                                                               \
  X(cuStreamDestroy)                                                                   \
  X(cuStreamWaitEvent)                                                                 \
  X(cuEventCreate)                                                                     \
  X(cuEventRecord)                                                                     \
  X(cuEventSynchronize)                                                                \
  X(cuEventQuery)                                                                      \
  X(cuEventElapsedTime)                                                                \
  X(cuEventDestroy)                                                                    \
  X(cuModuleLoadData)                                                                  \
  X(cuModuleGetFunction)                                                               \
  X(cuModuleUnload)                                                                    \
  X(cuLaunchKernel)

/// The loaded driver: one pointer per function of MXC_CUDA_DRIVER_FUNCTIONS.
struct Driver {
#define MXC_CUDA_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  MXC_CUDA_DRIVER_FUNCTIONS(MXC_CUDA_DRIVER_MEMBER)
#undef MXC_CUDA_DRIVER_MEMBER
  int version = 0;      ///< cuDriverGetVersion: 13000 for CUDA 13.0
  int deviceCount = 0;  ///< after cuInit
  /// The library exports mxcCudaDriverDoubleHostMemory, non-zero after
  /// cuInit: it is the test double runtime/test/cuda_host_driver.cc and its
  /// device memory is host memory (never a real driver).
  bool hostMemory = false;
};

/// The driver, loaded and initialised on first use; nullptr when there is
/// none (no libcuda.so.1, a missing function, or cuInit failing: the reason
/// is driverUnavailableReason()).
const Driver *tryDriver();
/// Why tryDriver() is null ("" when it is not).
const std::string &driverUnavailableReason();
/// The driver, or throws Error: "no CUDA driver: REASON" (what mx.gpu(0)
/// raises on a machine without a GPU).
const Driver &driver();

/// Throws Error("WHAT: CUDA_ERROR_NAME (message)") unless `r` is CUDA_SUCCESS.
void check(CUresult r, const char *what);

} // namespace mxc::runtime::cuda

#endif // MXC_RUNTIME_CUDA_DRIVER_H
