// driver.cc - loading the CUDA driver API with dlopen (driver.h).
#include "internal.h"

#include "mxc/runtime/error.h"

#include <dlfcn.h>

#include <cstdlib>

#include <mutex>

namespace mxc::runtime::cuda {

namespace {

struct Loaded {
  Driver driver;
  bool ok = false;
  std::string reason;
};

Loaded load() {
  Loaded l;
  // MXC_CUDA_DRIVER names another library (tests point it at a missing
  // file to check the no-driver path on a GPU machine).
  const char *lib = std::getenv("MXC_CUDA_DRIVER");
  if (!lib || !*lib)
    lib = "libcuda.so.1";
  void *h = openLibrary({lib}, lib, &l.reason);
  if (!h) {
    l.reason += "; is an NVIDIA driver installed?";
    return l;
  }
  Driver &d = l.driver;
#define MXC_CUDA_DRIVER_LOAD(name)                                                     \
  if (!loadSymbol(h, MXC_CUDA_STR(name), d.name, lib, &l.reason)) {                    \
    l.reason += " (driver too old?)";                                                  \
    return l;                                                                          \
  }
  MXC_CUDA_DRIVER_FUNCTIONS(MXC_CUDA_DRIVER_LOAD)
#undef MXC_CUDA_DRIVER_LOAD
  CUresult r = d.cuInit(0);
  if (r != CUDA_SUCCESS) {
    const char *name = nullptr;
    d.cuGetErrorName(r, &name);
    l.reason = std::string("cuInit failed: ") + (name ? name : std::to_string(r));
    return l;
  }
  d.cuDriverGetVersion(&d.version);
  {
    const auto *flag = static_cast<const int *>(dlsym(h, "mxcCudaDriverDoubleHostMemory"));
    d.hostMemory = flag && *flag;
  }
  if (d.cuDeviceGetCount(&d.deviceCount) != CUDA_SUCCESS)
    d.deviceCount = 0;
  // The driver stays loaded for the life of the process (never dlclose'd:
  // contexts and modules outlive everything else).
  l.ok = true;
  return l;
}

const Loaded &loaded() {
  static const Loaded *l = new Loaded(load());
  return *l;
}

} // namespace

const Driver *tryDriver() { return loaded().ok ? &loaded().driver : nullptr; }

const std::string &driverUnavailableReason() { return loaded().reason; }

const Driver &driver() {
  const Driver *d = tryDriver();
  if (!d)
    throw Error("no CUDA driver: " + driverUnavailableReason());
  return *d;
}

void check(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return;
  const Driver &d = driver();
  const char *name = nullptr, *text = nullptr;
  d.cuGetErrorName(r, &name);
  d.cuGetErrorString(r, &text);
  std::string msg = std::string(what) + ": " + (name ? name : "CUDA error " + std::to_string(r));
  if (text)
    msg += std::string(" (") + text + ")";
  if (r == CUDA_ERROR_OUT_OF_MEMORY)
    throw OutOfMemoryError(msg);
  throw Error(msg);
}

} // namespace mxc::runtime::cuda
