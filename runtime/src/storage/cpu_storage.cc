// cpu_storage.cc - the CPU StorageManager: a pool of 64-byte aligned blocks
// in size buckets (four per power of two).
#include "mxc/runtime/error.h"
#include "mxc/runtime/storage.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace mxc::runtime {

namespace {

// Largest request served (256 TiB): more is surely a bad size, and keeps the
// bucket arithmetic far from overflow.
constexpr size_t kMaxBytes = size_t(1) << 48;

// The capacity of the bucket serving `bytes`: the smallest of
// 2^e * {1, 1.25, 1.5, 1.75} (2^e >= 64) that holds it.
size_t bucketCapacity(size_t bytes) {
  size_t n = std::max(bytes, StorageManager::kAlignment);
  size_t base = StorageManager::kAlignment;
  while (base * 2 <= n)
    base *= 2;
  size_t step = base / 4;
  return base + (n - base + step - 1) / step * step;
}

class CPUStorageManager final : public StorageManager {
public:
  CPUStorageManager(Device device, size_t maxCachedBytes)
      : device_(device), maxCached_(maxCachedBytes) {}

  ~CPUStorageManager() override {
    releaseCached();
    // Blocks still in use are the holders' to release; a manager is only
    // destroyed once none are (tests) or never (the process-wide ones).
  }

  Storage allocate(size_t bytes) override {
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
      if (posix_memalign(&p, kAlignment, cap) != 0 || !p)
        throw OutOfMemoryError("out of memory: cannot allocate " + std::to_string(bytes) +
                    " bytes on " + device_.str());
      std::lock_guard<std::mutex> lock(mu_);
      noteInUseLocked(cap);
    }
    return Storage{p, bytes, cap, device_};
  }

  void release(Storage block) override {
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
      std::free(block.data);
  }

  void releaseCached() override {
    std::unordered_map<size_t, std::vector<void *>> drop;
    {
      std::lock_guard<std::mutex> lock(mu_);
      drop.swap(free_);
      cached_ = 0;
    }
    for (auto &bucket : drop)
      for (void *p : bucket.second)
        std::free(p);
  }

  size_t bytesInUse() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return inUse_;
  }
  size_t peakBytesInUse() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return peak_;
  }
  size_t bytesCached() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return cached_;
  }
  Device device() const override { return device_; }

private:
  // Counts `cap` more bytes in use; the caller holds mu_.
  void noteInUseLocked(size_t cap) {
    inUse_ += cap;
    peak_ = std::max(peak_, inUse_);
  }

  const Device device_;
  const size_t maxCached_;
  mutable std::mutex mu_;
  std::unordered_map<size_t, std::vector<void *>> free_; // capacity -> blocks
  size_t inUse_ = 0, peak_ = 0, cached_ = 0;
};

} // namespace

std::unique_ptr<StorageManager> createCPUStorageManager(Device device,
                                                        size_t maxCachedBytes) {
  return std::make_unique<CPUStorageManager>(device, maxCachedBytes);
}

} // namespace mxc::runtime
