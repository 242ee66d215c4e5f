//===- parallel.cc - the kernel threads' parallel loop --------------------===//
//
// parallel.h. One process-wide pool of kernelThreads() - 1 helper threads
// (the caller is the last one), used one loop at a time: a caller that finds
// the pool busy (another engine worker's step, or a loop inside a loop) runs
// its loop alone, so the threads in use never exceed the budget of
// include/mxc/runtime/threads.h.
//
// Hand-off: each helper has a slot. The caller posts a pointer to its loop
// (on the caller's stack) into every slot it wants help from, runs chunks
// itself, then revokes every post a helper has not taken yet; it waits only
// for helpers that did take one. A helper that is descheduled, or absent (a
// forked child has none), therefore never holds the loop up. Helpers spin
// for a short while after their last loop (generated steps come back to back)
// and then sleep on a condition variable.
//
//===----------------------------------------------------------------------===//
#include "parallel.h"

#include "kernels.h"
#include "mxc/runtime/threads.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define MXC_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define MXC_CPU_RELAX() asm volatile("yield" ::: "memory")
#else
#define MXC_CPU_RELAX() ((void)0)
#endif

namespace mxc::kernels {
namespace {

// Below this many innermost iterations a loop runs on the calling thread:
// waking a helper costs a few microseconds.
constexpr int64_t kMinParallelCost = 32768;
// How long a helper spins for the next loop before it sleeps.
constexpr auto kSpin = std::chrono::microseconds(50);

thread_local bool tlsInPool = false;

// Sets tlsInPool for a scope.
struct InPool {
  bool saved;
  explicit InPool(bool on) : saved(tlsInPool) { tlsInPool = on; }
  ~InPool() { tlsInPool = saved; }
};

struct Loop {
  LoopBody body;
  void *ctx;
  int64_t n, chunk, numChunks;
  std::atomic<int64_t> next{0};

  void run() {
    for (int64_t c = next.fetch_add(1, std::memory_order_relaxed);
         c < numChunks; c = next.fetch_add(1, std::memory_order_relaxed)) {
      int64_t lo = c * chunk;
      body(ctx, lo, std::min(n, lo + chunk));
    }
  }
};

enum SlotState : int { kIdle, kPosted, kTaken };

struct alignas(64) Slot {
  std::atomic<int> state{kIdle};
  std::atomic<bool> sleeping{false};
  Loop *loop = nullptr;
  std::mutex mu;
  std::condition_variable cv;
};

class Pool {
public:
  static Pool &get() {
    // Leaked: the helpers are detached and may be asleep at exit.
    static Pool *pool = new Pool;
    return *pool;
  }

  void parallelFor(int64_t n, int64_t cost, LoopBody body, void *ctx) {
    const int threads = runtime::kernelThreads();
    if (n <= 1 || threads <= 1 || cost < kMinParallelCost ||
        busy_.exchange(true, std::memory_order_acquire)) {
      InPool alone(false);
      body(ctx, 0, n);
      return;
    }
    const int helpers = int(std::min<int64_t>(threads, n)) - 1;
    grow(helpers);
    Loop loop;
    loop.body = body;
    loop.ctx = ctx;
    loop.n = n;
    loop.numChunks = std::min<int64_t>(n, int64_t(helpers + 1) * 4);
    loop.chunk = (n + loop.numChunks - 1) / loop.numChunks;
    loop.numChunks = (n + loop.chunk - 1) / loop.chunk;
    for (int i = 0; i < helpers; ++i) {
      Slot &s = *slots_[i];
      s.loop = &loop;
      s.state.store(kPosted, std::memory_order_seq_cst);
      if (s.sleeping.load(std::memory_order_seq_cst)) {
        { std::lock_guard<std::mutex> lock(s.mu); }
        s.cv.notify_one();
      }
    }
    {
      InPool pooled(true);
      loop.run();
    }
    for (int i = 0; i < helpers; ++i) {
      Slot &s = *slots_[i];
      int expected = kPosted;
      if (s.state.compare_exchange_strong(expected, kIdle,
                                          std::memory_order_acq_rel))
        continue; // never taken
      while (s.state.load(std::memory_order_acquire) != kIdle)
        MXC_CPU_RELAX();
    }
    busy_.store(false, std::memory_order_release);
  }

private:
  // Called with busy_ held.
  void grow(int helpers) {
    while (int(slots_.size()) < helpers) {
      slots_.push_back(std::make_unique<Slot>());
      std::thread(&Pool::helper, slots_.back().get()).detach();
    }
  }

  static void helper(Slot *s) {
    for (;;) {
      auto until = std::chrono::steady_clock::now() + kSpin;
      unsigned spins = 0;
      while (s->state.load(std::memory_order_acquire) != kPosted) {
        MXC_CPU_RELAX();
        if (++spins % 64 == 0 && std::chrono::steady_clock::now() > until) {
          std::unique_lock<std::mutex> lock(s->mu);
          s->sleeping.store(true, std::memory_order_seq_cst);
          while (s->state.load(std::memory_order_seq_cst) != kPosted)
            s->cv.wait(lock);
          s->sleeping.store(false, std::memory_order_relaxed);
        }
      }
      int expected = kPosted;
      if (!s->state.compare_exchange_strong(expected, kTaken,
                                            std::memory_order_acq_rel))
        continue; // revoked
      {
        InPool pooled(true);
        s->loop->run();
      }
      s->state.store(kIdle, std::memory_order_release);
    }
  }

  std::atomic<bool> busy_{false};
  std::vector<std::unique_ptr<Slot>> slots_;
};

} // namespace

bool inParallelLoop() { return tlsInPool; }

void parallelFor(int64_t n, int64_t cost, LoopBody body, void *ctx) {
  if (n <= 0)
    return;
  Pool::get().parallelFor(n, cost, body, ctx);
}

} // namespace mxc::kernels

MXC_KERNEL_EXPORT void mxc_parallel_for(mxc::kernels::LoopBody body,
                                        void *ctx, int64_t n, int64_t cost) {
  mxc::kernels::parallelFor(n, cost, body, ctx);
}
