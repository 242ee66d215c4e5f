// engine_backpressure_test.cc - MXNet issue #8747: an imperative loop that
// pushes faster than the engine runs must block, not grow memory without
// bound. Pushes 10 million tiny operations from one thread and bounds the
// growth of the peak resident set (VmHWM) -- under AddressSanitizer, whose
// quarantine keeps freed memory resident, the peak of the live heap instead.
#include "engine_test_util.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <malloc.h>
#include <string>
#include <thread>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MXC_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define MXC_TEST_ASAN 1
#endif
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MXC_TEST_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define MXC_TEST_TSAN 1
#endif
#if MXC_TEST_ASAN || MXC_TEST_TSAN
#define MXC_TEST_SANITIZER_ALLOCATOR 1
#include <sanitizer/allocator_interface.h>
#endif

namespace mxc::runtime::test {
namespace {

const Device kCpu = Device::cpu();

/// The process's peak resident set in KiB (VmHWM), or -1.
long peakRssKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0)
      return std::strtol(line.c_str() + 6, nullptr, 10);
  return -1;
}

/// Bytes the allocator has handed out and not taken back (0 where unknown):
/// the sanitizer allocator's own count under ASan / TSan (glibc's malloc is
/// not the one in use there), glibc's mallinfo2 (every arena) otherwise.
size_t heapInUse() {
#if MXC_TEST_SANITIZER_ALLOCATOR
  return __sanitizer_get_current_allocated_bytes();
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  return mallinfo2().uordblks;
#else
  return 0;
#endif
}

// The stated bound on the growth of the peak live heap while 10 million
// operations go through an engine holding at most 65,536 of them (the
// default maxInFlight): each pending op holds a few hundred bytes (printed
// below), so 65,536 of them stay well under it, while the unbounded engine
// would need gigabytes.
constexpr long kBoundMiB = 64;

TEST(EngineBackPressure, TenMillionTinyOpsKeepPeakMemoryBounded) {
  const size_t numOps = scaled(10'000'000, 100'000);
  const size_t maxInFlight = EngineOptions().maxInFlight;
  auto engine = makeEngine("threaded", 2, maxInFlight);
  ASSERT_NE(engine, nullptr);
  constexpr int kVars = 4;
  std::vector<VarHandle> vars(kVars);
  for (VarHandle &v : vars)
    v = engine->newVar();
  std::vector<uint64_t> counts(kVars, 0); // counts[k] written only by ops writing vars[k]

  const long before = peakRssKiB();
  ASSERT_GT(before, 0) << "no VmHWM in /proc/self/status";
  size_t peakPending = 0;
  const size_t heapBefore = heapInUse();
  ASSERT_GT(heapBefore, 0u) << "no count of the live heap in this build";
  size_t peakHeap = heapBefore;
  for (size_t i = 0; i < numOps; ++i) {
    const int k = static_cast<int>(i % kVars);
    engine->pushSync([&counts, k](RunContext) { ++counts[k]; }, kCpu, {}, {vars[k]});
    if ((i & 1023) == 0) {
      peakPending = std::max(peakPending, engine->numPending());
      // Every 16,384 pushes (a quarter of maxInFlight): mallinfo2 walks the
      // free lists, too slow for every 1,024th.
      if ((i & 16383) == 0)
        peakHeap = std::max(peakHeap, heapInUse());
    }
  }
  std::optional<EngineError> error = engine->waitForAll();
  EXPECT_FALSE(error) << describe(error);
  const long after = peakRssKiB();
  const double growthMiB = static_cast<double>(peakHeap - heapBefore) / (1024.0 * 1024.0);

  uint64_t total = 0;
  for (uint64_t c : counts)
    total += c;
  EXPECT_EQ(total, numOps);
  EXPECT_LE(peakPending, maxInFlight);

  // For scale: what each pending op costs, measured as live heap bytes
  // (mallinfo2; resident pages would hide what earlier phases freed) on an
  // unbounded engine whose only worker is held while 100,000 ops are pushed.
  double bytesPerOp = 0;
  {
    auto unbounded = makeEngine("threaded", 1, /*maxInFlight=*/0);
    std::atomic<bool> release{false};
    unbounded->pushSync([&release](RunContext) {
      while (!release.load())
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }, kCpu, {}, {});
    VarHandle v = unbounded->newVar();
    uint64_t sink = 0;
    const size_t sample = 100'000;
    const size_t start = heapInUse();
    for (size_t i = 0; i < sample; ++i)
      unbounded->pushSync([&sink](RunContext) { ++sink; }, kCpu, {}, {v});
    const size_t end = heapInUse();
    bytesPerOp = end > start ? static_cast<double>(end - start) / sample : 0.0;
    EXPECT_GE(unbounded->numPending(), sample);
    release = true;
    EXPECT_FALSE(unbounded->waitForAll());
    EXPECT_EQ(sink, sample);
    unbounded->deleteVar(v);
  }

  std::printf("back-pressure: %zu ops pushed from one thread, maxInFlight %zu, peak pending "
              "seen %zu; peak RSS %ld -> %ld KiB (not bounded); peak live heap growth %.1f MiB "
              "(bound %ld MiB)\n",
              numOps, maxInFlight, peakPending, before, after, growthMiB, kBoundMiB);
  if (bytesPerOp > 0)
    std::printf("back-pressure: a pending op holds ~%.0f heap bytes: unbounded, %zu ops would "
                "hold ~%.2f GiB\n",
                bytesPerOp, numOps,
                bytesPerOp * static_cast<double>(numOps) / (1024.0 * 1024.0 * 1024.0));
  EXPECT_LT(growthMiB, static_cast<double>(kBoundMiB));

  for (VarHandle v : vars)
    engine->deleteVar(v);
  EXPECT_FALSE(engine->waitForAll());
}

// Several pushers against a small bound: every op runs, none is lost, and
// the number pending stays within the bound plus one per pusher (pushers
// that pass the check at the same moment may each add one).
TEST(EngineBackPressure, ManyPushersRespectTheBound) {
  constexpr size_t kBound = 32;
  constexpr int kThreads = 4;
  auto engine = makeEngine("threaded", 2, kBound);
  const size_t perThread = scaled(50'000, 5'000);
  std::vector<VarHandle> vars(kThreads);
  std::vector<uint64_t> counts(kThreads, 0);
  for (VarHandle &v : vars)
    v = engine->newVar();
  std::atomic<size_t> peak{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (size_t i = 0; i < perThread; ++i) {
        engine->pushSync([&counts, t](RunContext) { ++counts[t]; }, kCpu, {}, {vars[t]});
        size_t now = engine->numPending(), seen = peak.load();
        while (now > seen && !peak.compare_exchange_weak(seen, now)) {
        }
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_FALSE(engine->waitForAll());
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(counts[t], perThread);
  EXPECT_LE(peak.load(), kBound + kThreads);
  for (VarHandle v : vars)
    engine->deleteVar(v);
}

} // namespace
} // namespace mxc::runtime::test
