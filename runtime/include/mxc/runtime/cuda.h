// cuda.h - NVIDIA GPUs (MXNet's gpu(i)): what a program asks about them,
// and loading / launching GPU kernels. The driver is loaded at run time
// (dlopen("libcuda.so.1")); on a machine without one, or in a build without
// CUDA (MXC_ENABLE_CUDA=OFF), deviceCount() is 0 and everything that needs a
// GPU throws Error naming why. Storage on gpu(i) (a caching pool) and copies
// between cpu and gpu arrays are registered with storage.h / ndarray.h, so
// NDArray(shape, dtype, Device::gpu(0)) and NDArray::copyTo work as on the CPU.
//
// Plain C++17: nothing here may include LLVM, MLIR or the CUDA headers.
#ifndef MXC_RUNTIME_CUDA_H
#define MXC_RUNTIME_CUDA_H

#include "mxc/runtime/api.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mxc::runtime::cuda {

/// Whether this runtime was built with CUDA (MXC_ENABLE_CUDA).
MXC_RUNTIME_API bool builtWithCuda();
/// The number of GPUs; 0 without a driver or without CUDA in the build.
MXC_RUNTIME_API int deviceCount();
/// Why there is no GPU ("" when the driver loaded).
MXC_RUNTIME_API std::string unavailableReason();
/// Throws Error unless gpu(`id`) exists: "gpu(1) does not exist: this machine
/// has 1 GPU" or "gpu(0) is not available: no CUDA driver: ...".
MXC_RUNTIME_API void requireDevice(int id);

/// The driver's version (13000 for CUDA 13.0); 0 without one.
MXC_RUNTIME_API int driverVersion();
/// gpu(id)'s name ("NVIDIA H200") and compute capability (90 for sm_90).
MXC_RUNTIME_API std::string deviceName(int id);
MXC_RUNTIME_API int computeCapability(int id);
/// Free and total device memory of gpu(id) in bytes (MXNet's
/// mx.context.gpu_memory_info).
MXC_RUNTIME_API void memoryInfo(int id, size_t *freeBytes, size_t *totalBytes);

/// True only on the CUDA driver double of the tests
/// (runtime/test/cuda_host_driver.cc), whose device memory is host memory:
/// there a CPU plan may be bound to gpu(id) arrays (the Python front end's
/// tests run CPU kernels on "device" arrays to check their numerics).
MXC_RUNTIME_API bool deviceMemoryIsHostMemory(int id);

/// Waits until every GPU operation of the calling thread on gpu(id) is done
/// (inside a bulk GPU run's stream batch it returns at once: the run waits
/// at its end, runtime/src/cuda/cuda_device.cc).
MXC_RUNTIME_API void synchronize(int id);

/// Kernels loaded on one GPU from PTX text (as `mxc` emits it for
/// gpu.module's); launched on the calling thread's stream of that device.
/// Movable, not copyable; the module is unloaded with the last copy.
class MXC_RUNTIME_API Module {
public:
  /// Loads `ptx` (PTX assembly) on gpu(device); throws Error naming the
  /// driver's complaint (an unknown .target, a bad instruction, ...).
  Module(int device, const std::string &ptx);
  ~Module();
  Module(Module &&) noexcept;
  Module &operator=(Module &&) noexcept;
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  /// Whether the module has a kernel `name`.
  bool hasKernel(const std::string &name) const;
  /// Launches kernel `name` with `grid` x `block` threads; `args` are the
  /// addresses of its parameters, in order. Asynchronous on the calling
  /// thread's stream of the module's device (synchronize() waits). Throws
  /// Error for an unknown kernel or a failed launch.
  void launch(const std::string &name, const unsigned grid[3], const unsigned block[3],
              const std::vector<void *> &args, unsigned sharedBytes = 0) const;
  int device() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace mxc::runtime::cuda

#endif // MXC_RUNTIME_CUDA_H
