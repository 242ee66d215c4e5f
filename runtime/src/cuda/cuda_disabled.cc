// cuda_disabled.cc - include/mxc/runtime/cuda.h in a runtime built without
// CUDA (MXC_ENABLE_CUDA=OFF, or no toolkit found at configure time): there
// are no GPUs, and everything that needs one says why.
#include "mxc/runtime/cuda.h"
#include "mxc/runtime/error.h"
#include "mxc/runtime/storage.h"

namespace mxc::runtime::cuda {

namespace {
const char *const kReason = "this mxc was built without CUDA (MXC_ENABLE_CUDA=OFF)";

const bool kRegistered = [] {
  registerStorageFactory(Device::Kind::GPU, [](Device dev) -> std::unique_ptr<StorageManager> {
    requireDevice(dev.id);
    return nullptr;
  });
  return true;
}();
} // namespace

bool builtWithCuda() { return false; }
int deviceCount() { return 0; }
bool deviceMemoryIsHostMemory(int) { return false; }
std::string unavailableReason() { return kReason; }
void requireDevice(int id) {
  throw Error("gpu(" + std::to_string(id) + ") is not available: " + kReason);
}
int driverVersion() { return 0; }
std::string deviceName(int id) {
  requireDevice(id);
  return "";
}
int computeCapability(int id) {
  requireDevice(id);
  return 0;
}
void memoryInfo(int id, size_t *, size_t *) { requireDevice(id); }
void synchronize(int id) { requireDevice(id); }

struct Module::Impl {};
Module::Module(int device, const std::string &) { requireDevice(device); }
Module::~Module() = default;
Module::Module(Module &&) noexcept = default;
Module &Module::operator=(Module &&) noexcept = default;
bool Module::hasKernel(const std::string &) const { return false; }
void Module::launch(const std::string &, const unsigned[3], const unsigned[3],
                    const std::vector<void *> &, unsigned) const {
  requireDevice(0);
}
int Module::device() const { return 0; }

} // namespace mxc::runtime::cuda
