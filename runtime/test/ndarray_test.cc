// ndarray_test.cc - NDArray on every engine: views share storage and
// variable, copies are engine operations, waits, lifetime, errors.
#include "mxc/runtime/ndarray.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <thread>
#include <vector>

using namespace mxc::runtime;

namespace {

// A gate an engine operation waits on (at most 10 s, so a bug fails the test
// instead of hanging it).
class Gate {
public:
  void open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  bool wait() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return open_; });
  }

private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

class NDArrayTest : public ::testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    EngineOptions opts;
    opts.kind = GetParam();
    opts.cpuWorkers = 2;
    engine = createEngine(opts);
    ASSERT_NE(engine, nullptr);
  }
  bool threaded() const { return std::string(GetParam()) == "threaded"; }

  // An f32 array of `shape` holding 0, 1, 2, ...
  NDArray iota(Shape shape) {
    NDArray a(shape, DType::F32, Device::cpu(), engine.get());
    std::vector<float> v(static_cast<size_t>(a.numElements()));
    std::iota(v.begin(), v.end(), 0.0f);
    a.copyFromHost(v.data(), v.size() * sizeof(float));
    return a;
  }
  static std::vector<float> read(const NDArray &a) {
    std::vector<float> v(static_cast<size_t>(a.numElements()));
    a.copyToHost(v.data(), v.size() * sizeof(float));
    return v;
  }

  std::unique_ptr<Engine> engine; // destroyed after the arrays of a test
};

TEST_P(NDArrayTest, DescribesItself) {
  NDArray a({2, 3, 4}, DType::F16, Device::cpu(), engine.get());
  EXPECT_FALSE(a.isNone());
  EXPECT_EQ(a.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(a.dtype(), DType::F16);
  EXPECT_EQ(a.device(), Device::cpu());
  EXPECT_EQ(a.numElements(), 24);
  EXPECT_EQ(a.numBytes(), 48u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % 64, 0u);
  EXPECT_NE(a.var(), nullptr);
  EXPECT_EQ(&a.engine(), engine.get());
  NDArray scalar({}, DType::I64, Device::cpu(), engine.get());
  EXPECT_EQ(scalar.numElements(), 1);
  NDArray empty({0, 5}, DType::F32, Device::cpu(), engine.get());
  EXPECT_EQ(empty.numBytes(), 0u);
  EXPECT_TRUE(NDArray().isNone());
  EXPECT_THROW(NDArray().data(), Error);
  EXPECT_THROW(NDArray({-1}, DType::F32, Device::cpu(), engine.get()), Error);
  EXPECT_THROW(NDArray({2}, static_cast<DType>(9), Device::cpu(), engine.get()),
               Error);
  EXPECT_THROW(NDArray({2}, DType::F32, Device{Device::Kind::CPUShared, 0},
                       engine.get()),
               Error);
}

TEST_P(NDArrayTest, HostCopiesRoundTrip) {
  NDArray a = iota({3, 4});
  EXPECT_EQ(read(a), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  float small[2];
  EXPECT_THROW(a.copyToHost(small, sizeof small), Error);
  EXPECT_THROW(a.copyFromHost(small, sizeof small), Error);
}

// cpu_pinned(0) arrays are host memory (page-locked where there is a GPU,
// ordinary without one): copies to and from cpu arrays both ways, fill,
// views, and CPU engine operations on their data.
TEST_P(NDArrayTest, PinnedArraysAreHostMemory) {
  const Device pinned{Device::Kind::CPUPinned, 0};
  NDArray a({3, 4}, DType::F32, pinned, engine.get());
  EXPECT_EQ(a.device(), pinned);
  EXPECT_TRUE(a.device().isHost());
  EXPECT_FALSE(Device::gpu(0).isHost());
  iota({3, 4}).copyTo(a);
  EXPECT_EQ(read(a), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  // A CPU operation writes it in place; then pinned -> pinned and -> cpu.
  engine->pushSync(
      [p = static_cast<float *>(a.data())](RunContext) {
        for (int i = 0; i < 12; ++i)
          p[i] *= 2;
      },
      Device::cpu(), {}, {a.var()}, FnProperty::Normal, 0, "double it");
  NDArray b = a.copyTo(pinned);
  NDArray c = b.slice(1, 3).copyTo(Device::cpu());
  EXPECT_EQ(read(c), (std::vector<float>{8, 10, 12, 14, 16, 18, 20, 22}));
  b.fill(0x3fc00000u); // 1.5f
  EXPECT_EQ(read(b), std::vector<float>(12, 1.5f));
  EXPECT_EQ(read(a)[11], 22.0f);
}

// fill: every element width, after the writes before it (an engine
// operation writing the array).
TEST_P(NDArrayTest, FillSetsEveryElementInOrder) {
  NDArray a = iota({5, 3});
  a.fill(0x3fc00000u); // 1.5f
  EXPECT_EQ(read(a), std::vector<float>(15, 1.5f));
  auto bytesOf = [](const NDArray &x) {
    std::vector<unsigned char> b(x.numBytes());
    x.copyToHost(b.data(), b.size());
    return b;
  };
  for (auto [dt, width] : {std::pair{DType::U8, 1}, std::pair{DType::F16, 2},
                           std::pair{DType::I32, 4}, std::pair{DType::I64, 8}}) {
    NDArray x({7}, dt, Device::cpu(), engine.get());
    uint64_t pattern = 0x0102030405060708ull & (width == 8 ? ~0ull : (1ull << (8 * width)) - 1);
    x.fill(pattern);
    std::vector<unsigned char> got = bytesOf(x), want;
    for (int i = 0; i < 7; ++i)
      for (int k = 0; k < width; ++k)
        want.push_back(static_cast<unsigned char>(pattern >> (8 * k)));
    EXPECT_EQ(got, want) << width << "-byte elements";
  }
  NDArray empty({0, 4}, DType::F32, Device::cpu(), engine.get());
  empty.fill(0);
  empty.waitToRead();
}

TEST_P(NDArrayTest, ReshapeSharesStorageAndVariable) {
  NDArray a = iota({2, 6});
  NDArray b = a.reshape({3, -1});
  EXPECT_EQ(b.shape(), (Shape{3, 4}));
  EXPECT_TRUE(b.sharesStorageWith(a));
  EXPECT_EQ(b.data(), a.data());
  EXPECT_EQ(b.var(), a.var());
  std::vector<float> ones(12, 1.0f);
  b.copyFromHost(ones.data(), 48);
  EXPECT_EQ(read(a), ones); // written through the view
  EXPECT_EQ(a.reshape({12}).shape(), (Shape{12}));
  EXPECT_EQ(a.reshape({-1}).shape(), (Shape{12}));
  EXPECT_THROW(a.reshape({5, 2}), Error);
  EXPECT_THROW(a.reshape({-1, -1}), Error);
  EXPECT_THROW(a.reshape({5, -1}), Error);
  EXPECT_THROW(a.reshape({-2, 6}), Error);
}

TEST_P(NDArrayTest, SliceAlongAxis0SharesStorage) {
  NDArray a = iota({4, 3});
  NDArray rows = a.slice(1, 3);
  EXPECT_EQ(rows.shape(), (Shape{2, 3}));
  EXPECT_TRUE(rows.sharesStorageWith(a));
  EXPECT_EQ(rows.var(), a.var());
  EXPECT_EQ(static_cast<char *>(rows.data()) - static_cast<char *>(a.data()),
            3 * 4);
  EXPECT_EQ(read(rows), (std::vector<float>{3, 4, 5, 6, 7, 8}));
  // A slice of a reshaped view of a slice.
  NDArray inner = rows.reshape({6}).slice(2, 4);
  EXPECT_EQ(read(inner), (std::vector<float>{5, 6}));
  EXPECT_EQ(a.slice(4, 4).numElements(), 0);
  EXPECT_THROW(a.slice(3, 5), Error);
  EXPECT_THROW(a.slice(-1, 2), Error);
  EXPECT_THROW(a.slice(2, 1), Error);
  NDArray s({}, DType::F32, Device::cpu(), engine.get());
  EXPECT_THROW(s.slice(0, 0), Error);
}

TEST_P(NDArrayTest, CopyToIsAnEngineOperation) {
  NDArray a = iota({2, 3});
  NDArray b = a.copyTo(Device::cpu());
  EXPECT_FALSE(b.sharesStorageWith(a));
  EXPECT_EQ(read(b), read(a));
  NDArray c({2, 3}, DType::F32, Device::cpu(), engine.get());
  a.copyTo(c);
  c.waitToRead();
  EXPECT_EQ(read(c), read(a));
  // Between two views of one chunk (overlapping rows).
  NDArray d = iota({4});
  d.slice(0, 3).copyTo(d.slice(1, 4));
  EXPECT_EQ(read(d), (std::vector<float>{0, 0, 1, 2}));
  d.copyTo(d); // the same elements: nothing to do
  EXPECT_EQ(read(d), (std::vector<float>{0, 0, 1, 2}));
  NDArray wrong({3, 2}, DType::F32, Device::cpu(), engine.get());
  EXPECT_THROW(a.copyTo(wrong), Error);
  NDArray i32({2, 3}, DType::I32, Device::cpu(), engine.get());
  EXPECT_THROW(a.copyTo(i32), Error);
  EXPECT_THROW(a.copyTo(Device::gpu(0)), Error); // no GPU storage/copier here
}

TEST_P(NDArrayTest, CopiesChainThroughTheEngine) {
  // a -> b -> c -> ... pushed without waiting: each copy waits for the last.
  NDArray a = iota({64});
  std::vector<NDArray> chain{a};
  for (int i = 0; i < 50; ++i)
    chain.push_back(chain.back().copyTo(Device::cpu()));
  EXPECT_EQ(read(chain.back()), read(a));
}

TEST_P(NDArrayTest, WaitToReadWaitsForPendingWrites) {
  NDArray a = iota({4});
  Gate gate;
  std::atomic<bool> written{false};
  float *p = static_cast<float *>(a.data());
  std::thread opener;
  if (threaded())
    opener = std::thread([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      gate.open();
    });
  else
    gate.open(); // the naive engine runs the write at push
  engine->pushSync(
      [&, p](RunContext) {
        gate.wait();
        p[0] = 42;
        written = true;
      },
      Device::cpu(), {}, {a.var()}, FnProperty::Normal, 0, "slow write");
  a.waitToRead();
  EXPECT_TRUE(written);
  EXPECT_EQ(p[0], 42);
  if (opener.joinable())
    opener.join();
}

TEST_P(NDArrayTest, WaitToWriteWaitsForPendingReads) {
  NDArray a = iota({4});
  Gate gate;
  std::atomic<bool> readDone{false};
  std::thread opener;
  if (threaded())
    opener = std::thread([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      gate.open();
    });
  else
    gate.open();
  NDArray sink({1}, DType::F32, Device::cpu(), engine.get());
  engine->pushSync(
      [&](RunContext) {
        gate.wait();
        readDone = true;
      },
      Device::cpu(), {a.var()}, {sink.var()}, FnProperty::Normal, 0,
      "slow read");
  a.waitToWrite();
  EXPECT_TRUE(readDone);
  if (opener.joinable())
    opener.join();
}

TEST_P(NDArrayTest, StorageIsFreedAfterPendingOperations) {
  StorageManager &m = storageManager(Device::cpu());
  size_t before = m.bytesInUse();
  Gate gate;
  std::atomic<bool> sawData{false};
  {
    NDArray a({1000}, DType::F32, Device::cpu(), engine.get());
    EXPECT_EQ(m.bytesInUse(), before + 4096);
    float *p = static_cast<float *>(a.data());
    NDArray sink({1}, DType::F32, Device::cpu(), engine.get());
    if (!threaded())
      gate.open();
    engine->pushSync(
        [&, p](RunContext) {
          gate.wait();
          p[999] = 1.0f; // the block must still be ours (ASan checks)
          sawData = true;
        },
        Device::cpu(), {}, {a.var()}, FnProperty::Normal, 0, "late use");
    // `a` and `sink` go away here with an operation still pending on `a`.
  }
  if (threaded()) {
    EXPECT_FALSE(sawData);
    EXPECT_GE(m.bytesInUse(), before + 4096); // still held
    gate.open();
  }
  EXPECT_FALSE(engine->waitForAll().has_value());
  EXPECT_TRUE(sawData);
  EXPECT_EQ(m.bytesInUse(), before);
}

TEST_P(NDArrayTest, FailedWriteSurfacesWithTheOperationName) {
  NDArray a = iota({4});
  engine->pushSync([](RunContext) { throw std::runtime_error("disk on fire"); },
                   Device::cpu(), {}, {a.var()}, FnProperty::Normal, 0,
                   "bad writer");
  try {
    a.waitToRead();
    FAIL() << "expected an error";
  } catch (const OperationError &e) {
    EXPECT_STREQ(e.what(), "operation 'bad writer' failed: disk on fire");
  }
  std::vector<float> out(4);
  EXPECT_THROW(a.copyToHost(out.data(), 16), OperationError);
  // A copy reading the failed array fails too, naming the first failure.
  NDArray b = a.copyTo(Device::cpu());
  try {
    b.waitToRead();
    FAIL() << "expected an error";
  } catch (const OperationError &e) {
    EXPECT_STREQ(e.what(), "operation 'bad writer' failed: disk on fire");
  }
  // Writing the array again (successfully) clears the failure.
  std::vector<float> v{1, 2, 3, 4};
  a.copyFromHost(v.data(), 16);
  EXPECT_EQ(read(a), v);
  engine->waitForAll(); // consume the recorded failure
}

INSTANTIATE_TEST_SUITE_P(Engines, NDArrayTest,
                         ::testing::Values("naive", "threaded"),
                         [](const auto &info) { return std::string(info.param); });

} // namespace
