// cpu_storage.cc - the caching pool (pooled_storage.h) and the CPU
// StorageManager over it: 64-byte aligned blocks from posix_memalign.
#include "pooled_storage.h"
#include "../large_alloc.h"

#include "mxc/runtime/error.h"

#include <algorithm>
#include <cstdlib>

namespace mxc::runtime {

namespace detail {

namespace {
// Largest request served (256 TiB): more is surely a bad size, and keeps the
// bucket arithmetic far from overflow.
constexpr size_t kMaxBytes = size_t(1) << 48;
} // namespace

size_t PooledStorageManager::bucketCapacity(size_t bytes) {
  size_t n = std::max(bytes, StorageManager::kAlignment);
  size_t base = StorageManager::kAlignment;
  while (base * 2 <= n)
    base *= 2;
  size_t step = base / 4;
  return base + (n - base + step - 1) / step * step;
}

Storage PooledStorageManager::allocate(size_t bytes) {
  if (bytes > kMaxBytes)
    throw OutOfMemoryError("cannot allocate " + std::to_string(bytes) + " bytes on " +
                           device_.str());
  size_t cap = bucketCapacity(bytes);
  void *p = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(cap);
    if (it != free_.end() && !it->second.empty()) {
      p = it->second.back();
      it->second.pop_back();
      cached_ -= cap;
    }
    if (p)
      noteInUseLocked(cap);
  }
  if (!p) {
    p = rawAllocate(cap);
    if (!p) {
      // Blocks of other sizes may be cached: give them back and try again
      // (MXNet's pooled storage manager does the same).
      releaseCached();
      p = rawAllocate(cap);
    }
    if (!p)
      throw OutOfMemoryError("out of memory: cannot allocate " + std::to_string(bytes) +
                             " bytes on " + device_.str());
    std::lock_guard<std::mutex> lock(mu_);
    noteInUseLocked(cap);
  }
  return Storage{p, bytes, cap, device_};
}

void PooledStorageManager::release(Storage block) {
  if (!block.data)
    return;
  bool keep = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    inUse_ -= block.capacity;
    if (cached_ + block.capacity <= maxCached_) {
      free_[block.capacity].push_back(block.data);
      cached_ += block.capacity;
      keep = true;
    }
  }
  if (!keep)
    rawFree(block.data, block.capacity);
}

void PooledStorageManager::releaseCached() {
  std::unordered_map<size_t, std::vector<void *>> drop;
  {
    std::lock_guard<std::mutex> lock(mu_);
    drop.swap(free_);
    cached_ = 0;
  }
  for (auto &bucket : drop)
    for (void *p : bucket.second)
      rawFree(p, bucket.first);
}

size_t PooledStorageManager::bytesInUse() const {
  std::lock_guard<std::mutex> lock(mu_);
  return inUse_;
}
size_t PooledStorageManager::peakBytesInUse() const {
  std::lock_guard<std::mutex> lock(mu_);
  return peak_;
}
size_t PooledStorageManager::bytesCached() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cached_;
}

void PooledStorageManager::noteInUseLocked(size_t cap) {
  inUse_ += cap;
  peak_ = std::max(peak_, inUse_);
}

} // namespace detail

namespace {

class CPUStorageManager final : public detail::PooledStorageManager {
public:
  using PooledStorageManager::PooledStorageManager;
  ~CPUStorageManager() override {
    releaseCached();
    // Blocks still in use are the holders' to release; a manager is only
    // destroyed once none are (tests) or never (the process-wide ones).
  }

private:
  void *rawAllocate(size_t capacity) override {
    return detail::alignedAllocate(capacity, kAlignment);
  }
  void rawFree(void *p, size_t) override { std::free(p); }
};

} // namespace

std::unique_ptr<StorageManager> createCPUStorageManager(Device device,
                                                        size_t maxCachedBytes) {
  return std::make_unique<CPUStorageManager>(device, maxCachedBytes);
}

} // namespace mxc::runtime
