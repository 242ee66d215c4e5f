// storage.h - device memory: one StorageManager per device, created by a
// factory registered for the device's kind (CPU here; the GPU issue registers
// its own), so no `#if` picks backends.
//
// Plain C++17: nothing here may include LLVM or MLIR.
#ifndef MXC_RUNTIME_STORAGE_H
#define MXC_RUNTIME_STORAGE_H

#include "mxc/runtime/api.h"
#include "mxc/runtime/device.h"

#include <cstddef>
#include <functional>
#include <memory>

namespace mxc::runtime {

/// A block of device memory handed out by a StorageManager. `size` is what
/// was asked for; `capacity` (>= size) is what the block really holds.
struct Storage {
  void *data = nullptr;
  size_t size = 0;
  size_t capacity = 0;
  Device device;
};

/// Allocates and recycles memory on one device. Thread-safe.
class MXC_RUNTIME_API StorageManager {
public:
  /// Every block's address is a multiple of this.
  static constexpr size_t kAlignment = 64;

  virtual ~StorageManager();

  /// A block of at least `bytes` bytes (0 is allowed and gives a valid,
  /// distinct, aligned block). Throws mxc::runtime::Error when the device is
  /// out of memory. The caller owns the block and gives it back with release.
  virtual Storage allocate(size_t bytes) = 0;
  /// Takes back a block from allocate (on this manager); it may be reused by
  /// a later allocate. Releasing a null block does nothing.
  virtual void release(Storage block) = 0;
  /// Frees every cached (released, unused) block back to the device.
  virtual void releaseCached() = 0;

  /// Bytes of the blocks handed out and not released (their capacities).
  virtual size_t bytesInUse() const = 0;
  /// The highest bytesInUse() so far.
  virtual size_t peakBytesInUse() const = 0;
  /// Bytes of released blocks kept for reuse.
  virtual size_t bytesCached() const = 0;

  virtual Device device() const = 0;
};

/// Makes the manager of one device (of the kind it was registered for).
using StorageFactory = std::function<std::unique_ptr<StorageManager>(Device)>;

/// Registers (or replaces) the factory for devices of `kind`. The CPU factory
/// is registered by the runtime itself.
MXC_RUNTIME_API void registerStorageFactory(Device::Kind kind,
                                            StorageFactory factory);

/// A new manager for `device` from its kind's factory; throws Error if no
/// factory is registered for the kind. The caller owns it.
MXC_RUNTIME_API std::unique_ptr<StorageManager>
createStorageManager(Device device);

/// The process-wide manager of `device`, created on first use and never
/// destroyed (arrays freed during exit still find it). Throws Error as
/// createStorageManager.
MXC_RUNTIME_API StorageManager &storageManager(Device device);

/// The CPU pool: blocks are 64-byte aligned and their capacities come in
/// buckets of four sizes per power of two (64, 80, 96, 112, 128, 160, ...), so
/// a block wastes at most a quarter of its size; released blocks are kept
/// per bucket and reused, up to `maxCachedBytes` in all (beyond it, a released
/// block goes back to the system).
MXC_RUNTIME_API std::unique_ptr<StorageManager>
createCPUStorageManager(Device device, size_t maxCachedBytes = size_t(1) << 30);

} // namespace mxc::runtime

#endif // MXC_RUNTIME_STORAGE_H
