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
#include "mxc/runtime/plan.h"
#include "mxc/runtime/storage.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#define MXC_MGPU_API extern "C" __attribute__((visibility("default")))

namespace {

using namespace mxc::runtime;
using namespace mxc::runtime::cuda;

thread_local int tlsDevice = 0;

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

/// The most devices a kernel image is loaded on (gpu(0) .. gpu(63)).
constexpr int kMaxDevices = 64;

// What mgpuModuleLoad hands the generated code as its "CUmodule": the
// kernel image (a global constant of the code that loaded it, alive until
// its mgpuModuleUnload) and, per device, the CUmodule loaded from it in
// that device's context, made by the first kernel that runs there. A
// CUmodule belongs to one context, so a plan retargeted to gpu(1)
// (Plan::onDevice) needs its own. Loading when first needed also puts a
// load's failure (no driver, an architecture the device cannot run) in
// the kernel that meets it, named, instead of in a global constructor that
// has no one to tell.
struct KernelImage {
  const void *data = nullptr;
  std::atomic<CUmodule> loaded[kMaxDevices] = {};
  std::mutex mu; // loads and failures
  std::string failed[kMaxDevices];
};

// The CUmodule of `image` on gpu(device), loaded now if it is not yet;
// reports the failure (and returns nullptr) if it cannot be.
CUmodule moduleOn(KernelImage &image, int device, const char *kernel) {
  if (device < 0 || device >= kMaxDevices) {
    mxcKernelReportError(("GPU kernel '" + std::string(kernel) + "': gpu(" +
                          std::to_string(device) + "): mxc loads kernels on gpu(0) to gpu(" +
                          std::to_string(kMaxDevices - 1) + ")")
                             .c_str());
    return nullptr;
  }
  if (CUmodule m = image.loaded[device].load(std::memory_order_acquire))
    return m;
  std::lock_guard<std::mutex> lock(image.mu);
  if (CUmodule m = image.loaded[device].load(std::memory_order_relaxed))
    return m;
  if (image.failed[device].empty()) {
    try {
      const Driver &d = bindDevice(device);
      CUmodule m = nullptr;
      check(d.cuModuleLoadData(&m, image.data), "cuModuleLoadData");
      image.loaded[device].store(m, std::memory_order_release);
      return m;
    } catch (const std::exception &e) {
      image.failed[device] = e.what(); // not tried again
    }
  }
  mxcKernelReportError(("GPU kernel '" + std::string(kernel) + "': its module did not load on gpu(" +
                        std::to_string(device) + "): " + image.failed[device])
                           .c_str());
  return nullptr;
}

} // namespace

MXC_MGPU_API void mgpuSetDefaultDevice(int32_t device) { tlsDevice = device; }

/// The device mgpuSetDefaultDevice chose on this thread (0 by default): the
/// library kernels (cublas_kernels.cc) run there too.
int mxc::runtime::cuda::mgpuCurrentDevice() { return tlsDevice; }

// A cubin / fatbin, or PTX text (gpu-module-to-binary format=isa, through
// mgpuModuleLoadJIT: the driver JIT-compiles it): kept, loaded per device
// when a kernel first runs there (KernelImage). The driver is not touched
// here (these run in global constructors, or the JIT's module initialiser).
MXC_MGPU_API CUmodule mgpuModuleLoad(void *data, size_t /*size*/) {
  auto *image = new KernelImage;
  image->data = data;
  return reinterpret_cast<CUmodule>(image);
}

MXC_MGPU_API CUmodule mgpuModuleLoadJIT(void *data, int /*optLevel*/) {
  return mgpuModuleLoad(data, 0);
}

MXC_MGPU_API void mgpuModuleUnload(CUmodule module) {
  auto *image = reinterpret_cast<KernelImage *>(module);
  if (!image)
    return;
  if (const Driver *d = tryDriver())
    for (int device = 0; device < kMaxDevices; ++device)
      if (CUmodule m = image->loaded[device].load(std::memory_order_acquire)) {
        try {
          bindDevice(device);
          d->cuModuleUnload(m);
        } catch (const std::exception &) {
          // (the context is gone: so is the module)
        }
      }
  delete image;
}

MXC_MGPU_API CUfunction mgpuModuleGetFunction(CUmodule module, const char *name) {
  CUfunction f = nullptr;
  if (!module) {
    mxcKernelReportError((std::string("GPU kernel '") + name +
                          "': its module was not loaded (module constructors did not run)")
                             .c_str());
    return nullptr;
  }
  CUmodule m = moduleOn(*reinterpret_cast<KernelImage *>(module), tlsDevice, name);
  if (!m)
    return nullptr;
  guarded("GPU kernel", [&] {
    check(bindDevice(tlsDevice).cuModuleGetFunction(&f, m, name),
          (std::string("cuModuleGetFunction '") + name + "'").c_str());
  });
  return f;
}

MXC_MGPU_API void mgpuLaunchKernel(CUfunction function, intptr_t gridX, intptr_t gridY,
                                   intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                                   intptr_t blockZ, int32_t smem, CUstream stream,
                                   void **params, void **extra, size_t /*paramsCount*/) {
  if (!function || kernelErrorReported())
    return; // reported (mgpuModuleGetFunction, a temporary not allocated, ...)
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

// A step's temporaries on the GPU (gpu.alloc / gpu.dealloc, which
// mxc-gpu-device-temporaries makes of the buffers a step allocates for
// itself): blocks of the device's caching pool, given back through it (in a
// stream batch once the thread's stream has passed the point: the pool's
// stream-ordered release).
namespace {
struct Temporaries {
  std::mutex mu;
  std::unordered_map<void *, Storage> blocks;
};
Temporaries &temporaries() {
  static auto *t = new Temporaries; // (blocks may be given back at exit)
  return *t;
}
} // namespace

MXC_MGPU_API void *mgpuMemAlloc(uint64_t bytes, CUstream, bool /*isHostShared*/) {
  void *p = nullptr;
  guarded("a step's temporary on the GPU", [&] {
    Storage block = storageManager(Device::gpu(tlsDevice)).allocate(size_t(bytes));
    Temporaries &t = temporaries();
    std::lock_guard<std::mutex> lock(t.mu);
    t.blocks[block.data] = block;
    p = block.data;
  });
  return p;
}

MXC_MGPU_API void mgpuMemFree(void *ptr, CUstream) {
  if (!ptr)
    return;
  guarded("a step's temporary on the GPU", [&] {
    Storage block;
    {
      Temporaries &t = temporaries();
      std::lock_guard<std::mutex> lock(t.mu);
      auto it = t.blocks.find(ptr);
      if (it == t.blocks.end())
        throw Error("mgpuMemFree of a pointer mgpuMemAlloc did not give");
      block = it->second;
      t.blocks.erase(it);
    }
    storageManager(block.device).release(block);
  });
}

// gpu.memcpy in generated code: a step's copy of a constant (a host global)
// into a device buffer for a library kernel that reads it
// (mxc-gpu-device-temporaries). Any direction under unified addressing, on
// the thread's stream of the device.
MXC_MGPU_API void mgpuMemcpy(void *dst, void *src, size_t bytes, CUstream stream) {
  if (!bytes || kernelErrorReported())
    return;
  guarded("a step's copy on the GPU", [&] {
    const Driver &d = bindDevice(tlsDevice);
    check(d.cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src),
                          bytes, stream ? stream : streamOf(tlsDevice)),
          "cuMemcpyAsync");
  });
}
