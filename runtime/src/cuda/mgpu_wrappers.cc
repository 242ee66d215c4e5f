// mgpu_wrappers.cc - the functions that MLIR's gpu-to-llvm lowering and the
// gpu.binary translation call from host code (`mgpuModuleLoad`,
// `mgpuLaunchKernel`, `mgpuStreamCreate`, ...; MLIR's own
// CudaRuntimeWrappers library is not installed on these machines, and mxc
// wants its own streams and errors anyway), over the runtime's driver layer.
//
// They run inside a plan step's kernel (the kernel ABI of plan.h) on an
// engine gpu worker: a failure is reported with mxcKernelReportError (the
// step fails with the message; nothing throws through generated frames), and
// later calls of the same kernel do nothing. A stream is the calling thread's
// stream of the device (created once): mgpuStreamDestroy keeps it.
#include "internal.h"

#include "mxc/runtime/c_api.h"
#include "mxc/runtime/cuda.h"
#include "mxc/runtime/error.h"

#include <cstdint>
#include <mutex>
#include <string>

#define MXC_MGPU_API extern "C" __attribute__((visibility("default")))

namespace {

using namespace mxc::runtime;
using namespace mxc::runtime::cuda;

thread_local int tlsDevice = 0;

// Why the last module load failed: loads run in global constructors (the
// gpu.binary translation's, of priority 123: before this file's own
// globals would be constructed, hence the function-local statics), outside
// any kernel call, so the failure is reported by the first kernel that
// needs the module.
struct LoadError {
  std::mutex mu;
  std::string message;
};
LoadError &loadError() {
  static LoadError *e = new LoadError;
  return *e;
}

// Runs `fn`; an Error becomes the kernel's reported failure. Returns false
// then.
template <typename Fn> bool guarded(const char *what, Fn &&fn) {
  try {
    fn();
    return true;
  } catch (const std::exception &e) {
    mxcKernelReportError((std::string(what) + ": " + e.what()).c_str());
  }
  return false;
}

} // namespace

MXC_MGPU_API void mgpuSetDefaultDevice(int32_t device) { tlsDevice = device; }

/// The device mgpuSetDefaultDevice chose on this thread (0 by default): the
/// library kernels (cublas_kernels.cc) run there too.
int mxc::runtime::cuda::mgpuCurrentDevice() { return tlsDevice; }

MXC_MGPU_API CUmodule mgpuModuleLoad(void *data, size_t /*size*/) {
  CUmodule m = nullptr;
  try {
    const Driver &d = bindDevice(tlsDevice);
    check(d.cuModuleLoadData(&m, data), "cuModuleLoadData");
  } catch (const std::exception &e) {
    LoadError &le = loadError();
    std::lock_guard<std::mutex> lock(le.mu);
    le.message = e.what();
    m = nullptr;
  }
  return m;
}

// PTX text (gpu-module-to-binary format=isa): the driver JIT-compiles it.
MXC_MGPU_API CUmodule mgpuModuleLoadJIT(void *data, int /*optLevel*/) {
  return mgpuModuleLoad(data, 0);
}

MXC_MGPU_API void mgpuModuleUnload(CUmodule module) {
  if (!module)
    return;
  if (const Driver *d = tryDriver())
    d->cuModuleUnload(module);
}

MXC_MGPU_API CUfunction mgpuModuleGetFunction(CUmodule module, const char *name) {
  CUfunction f = nullptr;
  if (!module) {
    std::string why;
    {
      LoadError &le = loadError();
      std::lock_guard<std::mutex> lock(le.mu);
      why = le.message.empty() ? "no load was attempted (module constructors did not run)"
                               : le.message;
    }
    mxcKernelReportError(
        (std::string("GPU kernel '") + name + "': its module did not load: " + why).c_str());
    return nullptr;
  }
  guarded("GPU kernel", [&] {
    check(driver().cuModuleGetFunction(&f, module, name),
          (std::string("cuModuleGetFunction '") + name + "'").c_str());
  });
  return f;
}

MXC_MGPU_API void mgpuLaunchKernel(CUfunction function, intptr_t gridX, intptr_t gridY,
                                   intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                                   intptr_t blockZ, int32_t smem, CUstream stream,
                                   void **params, void **extra, size_t /*paramsCount*/) {
  if (!function)
    return; // reported by mgpuModuleGetFunction
  guarded("launching a GPU kernel", [&] {
    const Driver &d = bindDevice(tlsDevice);
    check(d.cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY, blockZ, smem, stream,
                           params, extra),
          "cuLaunchKernel");
  });
}

MXC_MGPU_API CUstream mgpuStreamCreate() {
  CUstream s = nullptr;
  guarded("GPU stream", [&] { s = streamOf(tlsDevice); });
  return s;
}

MXC_MGPU_API void mgpuStreamDestroy(CUstream) {}

MXC_MGPU_API void mgpuStreamSynchronize(CUstream stream) {
  // Inside a bulk run (a stream batch) the run waits once, at its end.
  if (!stream || deferSynchronize(tlsDevice))
    return;
  guarded("GPU kernel", [&] {
    check(bindDevice(tlsDevice).cuStreamSynchronize(stream), "cuStreamSynchronize");
  });
}
