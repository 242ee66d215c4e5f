// storage.cc - the registry of storage factories (by device kind) and the
// process-wide manager of each device.
#include "mxc/runtime/error.h"
#include "mxc/runtime/storage.h"

#include <map>
#include <mutex>
#include <utility>

namespace mxc::runtime {

StorageManager::~StorageManager() = default;

namespace {
// Factories and the managers made from them. Never destroyed: arrays freed
// while the process exits still give their blocks back.
struct Registry {
  std::mutex mu;
  std::map<Device::Kind, StorageFactory> factories;
  std::map<std::pair<Device::Kind, int32_t>, std::unique_ptr<StorageManager>>
      managers;
};

Registry &registry() {
  static Registry *r = [] {
    auto *reg = new Registry;
    // (cpu_pinned(i) without CUDA is ordinary host memory, as in an MXNet
    // built without CUDA; the CUDA runtime replaces its factory with
    // page-locked memory where there is a GPU: cuda/cuda_device.cc)
    StorageFactory host = [](Device d) { return createCPUStorageManager(d); };
    reg->factories[Device::Kind::CPU] = host;
    reg->factories[Device::Kind::CPUPinned] = host;
    return reg;
  }();
  return *r;
}

// Looks up the factory of `device`'s kind; the caller holds the lock.
const StorageFactory &factoryLocked(Registry &r, Device device) {
  auto it = r.factories.find(device.kind);
  if (it == r.factories.end())
    throw Error("no storage is registered for device " + device.str());
  return it->second;
}
} // namespace

void registerStorageFactory(Device::Kind kind, StorageFactory factory) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.factories[kind] = std::move(factory);
}

std::unique_ptr<StorageManager> createStorageManager(Device device) {
  Registry &r = registry();
  StorageFactory factory;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    factory = factoryLocked(r, device);
  }
  std::unique_ptr<StorageManager> m = factory(device);
  if (!m)
    throw Error("the storage factory for " + device.str() + " made nothing");
  return m;
}

StorageManager &storageManager(Device device) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto key = std::make_pair(device.kind, device.id);
  auto it = r.managers.find(key);
  if (it != r.managers.end())
    return *it->second;
  std::unique_ptr<StorageManager> m = factoryLocked(r, device)(device);
  if (!m)
    throw Error("the storage factory for " + device.str() + " made nothing");
  StorageManager &ref = *m;
  r.managers.emplace(key, std::move(m));
  return ref;
}

} // namespace mxc::runtime
