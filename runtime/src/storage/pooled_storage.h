// pooled_storage.h - the caching pool every StorageManager shares: blocks in
// size buckets (four per power of two), released blocks kept per bucket up to
// a byte limit and reused. A device supplies how raw blocks are obtained and
// freed (posix_memalign on the CPU, cuMemAlloc on a GPU).
#ifndef MXC_RUNTIME_STORAGE_POOLED_STORAGE_H
#define MXC_RUNTIME_STORAGE_POOLED_STORAGE_H

#include "mxc/runtime/storage.h"

#include <mutex>
#include <unordered_map>
#include <vector>

namespace mxc::runtime::detail {

class PooledStorageManager : public StorageManager {
public:
  PooledStorageManager(Device device, size_t maxCachedBytes)
      : device_(device), maxCached_(maxCachedBytes) {}
  /// A subclass's destructor calls releaseCached() (rawFree is its own).

  Storage allocate(size_t bytes) override;
  void release(Storage block) override;
  void releaseCached() override;
  size_t bytesInUse() const override;
  size_t peakBytesInUse() const override;
  size_t bytesCached() const override;
  Device device() const override { return device_; }

  /// The capacity of the bucket serving `bytes`: the smallest of
  /// 2^e * {1, 1.25, 1.5, 1.75} (2^e >= kAlignment) that holds it.
  static size_t bucketCapacity(size_t bytes);

protected:
  /// A new block of `capacity` bytes aligned to kAlignment, or nullptr when
  /// the device is out of memory (allocate then frees the cache and tries
  /// once more before throwing OutOfMemoryError). May throw Error for other
  /// failures.
  virtual void *rawAllocate(size_t capacity) = 0;
  virtual void rawFree(void *p, size_t capacity) = 0;

private:
  void noteInUseLocked(size_t cap);

  const Device device_;
  const size_t maxCached_;
  mutable std::mutex mu_;
  std::unordered_map<size_t, std::vector<void *>> free_; // capacity -> blocks
  size_t inUse_ = 0, peak_ = 0, cached_ = 0;
};

} // namespace mxc::runtime::detail

#endif // MXC_RUNTIME_STORAGE_POOLED_STORAGE_H
