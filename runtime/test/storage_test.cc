// storage_test.cc - the CPU storage pool: alignment, bucket reuse, bytes in
// use and peak, the factory registry.
#include "mxc/runtime/error.h"
#include "mxc/runtime/storage.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

using namespace mxc::runtime;

namespace {

TEST(CPUStorage, BlocksAre64ByteAlignedAndBigEnough) {
  auto m = createCPUStorageManager(Device::cpu());
  std::vector<Storage> blocks;
  for (size_t bytes : {0, 1, 63, 64, 65, 100, 1000, 4097, 1 << 20, 3 << 20}) {
    Storage s = m->allocate(bytes);
    EXPECT_NE(s.data, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(s.data) % 64, 0u) << bytes;
    EXPECT_EQ(s.size, bytes);
    EXPECT_GE(s.capacity, bytes);
    // Buckets: four per power of two, so at most a quarter is wasted.
    if (bytes > 64)
      EXPECT_LE(s.capacity, bytes + bytes / 4) << bytes;
    EXPECT_EQ(s.device, Device::cpu());
    std::memset(s.data, 0xab, bytes); // the whole block is usable (ASan)
    blocks.push_back(s);
  }
  std::set<void *> distinct;
  for (const Storage &s : blocks)
    distinct.insert(s.data);
  EXPECT_EQ(distinct.size(), blocks.size());
  for (const Storage &s : blocks)
    m->release(s);
  EXPECT_EQ(m->bytesInUse(), 0u);
}

TEST(CPUStorage, BucketCapacities) {
  auto m = createCPUStorageManager(Device::cpu());
  auto cap = [&](size_t bytes) {
    Storage s = m->allocate(bytes);
    size_t c = s.capacity;
    m->release(s);
    return c;
  };
  EXPECT_EQ(cap(0), 64u);
  EXPECT_EQ(cap(64), 64u);
  EXPECT_EQ(cap(65), 80u);
  EXPECT_EQ(cap(100), 112u);
  EXPECT_EQ(cap(128), 128u);
  EXPECT_EQ(cap(129), 160u);
  EXPECT_EQ(cap(1000), 1024u);
  EXPECT_EQ(cap(1025), 1280u);
}

TEST(CPUStorage, ReleasedBlocksAreReusedWithinTheirBucket) {
  auto m = createCPUStorageManager(Device::cpu());
  Storage a = m->allocate(1000);
  void *first = a.data;
  m->release(a);
  EXPECT_EQ(m->bytesCached(), 1024u);
  EXPECT_EQ(m->bytesInUse(), 0u);
  Storage b = m->allocate(900); // same 1024-byte bucket
  EXPECT_EQ(b.data, first);
  EXPECT_EQ(m->bytesCached(), 0u);
  Storage c = m->allocate(900); // the cache is empty again: a new block
  EXPECT_NE(c.data, first);
  Storage d = m->allocate(2000); // another bucket
  EXPECT_NE(d.data, first);
  m->release(b);
  m->release(c);
  m->release(d);
  EXPECT_EQ(m->bytesCached(), 1024u + 1024u + 2048u);
  m->releaseCached();
  EXPECT_EQ(m->bytesCached(), 0u);
}

TEST(CPUStorage, ReportsBytesInUseAndPeak) {
  auto m = createCPUStorageManager(Device::cpu());
  EXPECT_EQ(m->bytesInUse(), 0u);
  EXPECT_EQ(m->peakBytesInUse(), 0u);
  Storage a = m->allocate(1024);
  Storage b = m->allocate(2048);
  EXPECT_EQ(m->bytesInUse(), 3072u);
  EXPECT_EQ(m->peakBytesInUse(), 3072u);
  m->release(a);
  EXPECT_EQ(m->bytesInUse(), 2048u);
  EXPECT_EQ(m->peakBytesInUse(), 3072u);
  Storage c = m->allocate(512);
  EXPECT_EQ(m->bytesInUse(), 2560u);
  EXPECT_EQ(m->peakBytesInUse(), 3072u);
  Storage d = m->allocate(4096);
  EXPECT_EQ(m->peakBytesInUse(), 2560u + 4096u);
  for (Storage s : {b, c, d})
    m->release(s);
  EXPECT_EQ(m->bytesInUse(), 0u);
}

TEST(CPUStorage, CacheIsBounded) {
  auto m = createCPUStorageManager(Device::cpu(), /*maxCachedBytes=*/2048);
  Storage a = m->allocate(1024), b = m->allocate(1024), c = m->allocate(1024);
  m->release(a);
  m->release(b);
  m->release(c); // beyond the bound: back to the system
  EXPECT_EQ(m->bytesCached(), 2048u);
  m->release(Storage{}); // a null block is ignored
  EXPECT_EQ(m->bytesInUse(), 0u);
}

TEST(CPUStorage, HugeRequestIsAnErrorNotACrash) {
  auto m = createCPUStorageManager(Device::cpu());
  EXPECT_THROW(m->allocate(SIZE_MAX), OutOfMemoryError);
  EXPECT_THROW(m->allocate(size_t(1) << 49), OutOfMemoryError);
  EXPECT_EQ(m->bytesInUse(), 0u);
}

TEST(CPUStorage, ConcurrentAllocateAndRelease) {
  auto m = createCPUStorageManager(Device::cpu());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::vector<Storage> held;
      for (int i = 0; i < 2000; ++i) {
        held.push_back(m->allocate(static_cast<size_t>((i * 37 + t) % 5000)));
        if (held.size() > 8) {
          m->release(held.front());
          held.erase(held.begin());
        }
      }
      for (Storage s : held)
        m->release(s);
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(m->bytesInUse(), 0u);
  EXPECT_GT(m->peakBytesInUse(), 0u);
}

TEST(StorageRegistry, OneManagerPerDevice) {
  StorageManager &a = storageManager(Device::cpu(0));
  StorageManager &b = storageManager(Device::cpu(0));
  StorageManager &c = storageManager(Device::cpu(1));
  EXPECT_EQ(&a, &b);
  EXPECT_NE(&a, &c);
  EXPECT_EQ(c.device(), Device::cpu(1));
}

TEST(StorageRegistry, KindsWithoutAFactoryAreAnError) {
  try {
    storageManager(Device{Device::Kind::CPUShared, 0});
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "no storage is registered for device cpu_shared(0)");
  }
}

TEST(StorageRegistry, FactoriesRegisterByDeviceKind) {
  // A stand-in for a GPU backend: the CPU pool under another kind.
  int made = 0;
  registerStorageFactory(Device::Kind::CPUPinned, [&made](Device d) {
    ++made;
    return createCPUStorageManager(d);
  });
  auto m = createStorageManager(Device{Device::Kind::CPUPinned, 2});
  EXPECT_EQ(made, 1);
  EXPECT_EQ(m->device(), (Device{Device::Kind::CPUPinned, 2}));
  Storage s = m->allocate(10);
  EXPECT_EQ(s.device, (Device{Device::Kind::CPUPinned, 2}));
  m->release(s);
}

} // namespace
