//===- parallel.cc - the kernel threads' parallel loop --------------------===//
//
// parallel.h. One process-wide pool of kernelThreads() - 1 helper threads
// (the caller is the last one), used one loop at a time: a caller that finds
// the pool busy (another engine worker's step, or a loop inside a loop) runs
// its loop alone, so the threads in use never exceed the budget of
// include/mxc/runtime/threads.h.
//
// Work-sharing: a threaded engine with several CPU workers registers its
// pool (addLoopHelpers). Loops are then chunked for loopThreads() threads and
// run on a *board* of a few entries: a loop takes a free entry, is published
// there and "opened" (the entry's joinState), and the engine is told; an idle
// worker joins any open loop (helpRunningLoop) by counting itself in its
// entry's joinState, and the owner, when it runs out of chunks, closes the
// entry and waits for the joiners it has. Entry 0 is also the one the pool's
// helper threads serve; without work-sharing it is the only entry, so one
// loop runs on the pool at a time, as before.
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
#if defined(__linux__)
#include <pthread.h>
#endif

namespace mxc::kernels {
namespace {

// Below this many innermost iterations a loop runs on the calling thread:
// waking a helper costs a few microseconds.
constexpr int64_t kMinParallelCost = 32768;
// Loops that may run on the pool at once (work-sharing); parallel.h's
// kMaxPooledLoops.
constexpr int kBoard = kMaxPooledLoops;

// The board entry of the loop whose chunks the thread runs, or -1.
thread_local int tlsEntry = -1;

// Sets tlsEntry for a scope.
struct InPool {
  int saved;
  explicit InPool(int entry) : saved(tlsEntry) { tlsEntry = entry; }
  ~InPool() { tlsEntry = saved; }
};

struct Loop {
  LoopBody body;
  void *ctx;
  int64_t n, chunk, numChunks;
  int entry; // of the board
  std::atomic<int64_t> next{0};

  // Whether it ran a chunk.
  bool run() {
    bool ran = false;
    for (int64_t c = next.fetch_add(1, std::memory_order_relaxed);
         c < numChunks; c = next.fetch_add(1, std::memory_order_relaxed)) {
      int64_t lo = c * chunk;
      body(ctx, lo, std::min(n, lo + chunk));
      ran = true;
    }
    return ran;
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

  // The most threads a loop may have: kernel threads + the other workers.
  int loopThreads() const {
    return runtime::kernelThreads() +
           std::max(0, sharedWorkers_.load(std::memory_order_relaxed) - 1);
  }

  void parallelFor(int64_t n, int64_t cost, LoopBody body, void *ctx) {
    const int threads = runtime::kernelThreads();
    const int width = loopThreads();
    const bool shared = width > threads;
    // A loop inside a pooled loop's chunk runs on its caller.
    int entry = -1;
    if (n > 1 && width > 1 && cost >= kMinParallelCost && tlsEntry < 0)
      for (int e = 0; e < (shared ? kBoard : 1); ++e)
        if (!board_[e].busy.exchange(true, std::memory_order_acquire)) {
          entry = e;
          break;
        }
    if (entry < 0) {
      InPool alone(-1);
      body(ctx, 0, n);
      return;
    }
    Entry &en = board_[entry];
    const int helpers = entry == 0 ? int(std::min<int64_t>(threads, n)) - 1 : 0;
    grow(helpers);
    Loop loop;
    loop.body = body;
    loop.ctx = ctx;
    loop.n = n;
    loop.entry = entry;
    loop.numChunks = std::min<int64_t>(n, int64_t(width) * 4);
    loop.chunk = (n + loop.numChunks - 1) / loop.numChunks;
    loop.numChunks = (n + loop.chunk - 1) / loop.chunk;
    if (shared) {
      en.loop.store(&loop, std::memory_order_relaxed);
      en.joinState.store(kOpen, std::memory_order_release);
      std::lock_guard<std::mutex> lock(listenersMu_);
      for (const Listener &l : listeners_)
        l.onLoopOpened(l.ctx);
    }
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
      InPool pooled(entry);
      loop.run();
    }
    if (shared) {
      // No worker joins from now on; wait for those that did.
      en.joinState.fetch_and(~kOpen, std::memory_order_acq_rel);
      while (en.joinState.load(std::memory_order_acquire) != 0)
        cpuRelax();
      en.loop.store(nullptr, std::memory_order_relaxed);
    }
    for (int i = 0; i < helpers; ++i) {
      Slot &s = *slots_[i];
      int expected = kPosted;
      if (s.state.compare_exchange_strong(expected, kIdle,
                                          std::memory_order_acq_rel))
        continue; // never taken
      while (s.state.load(std::memory_order_acquire) != kIdle)
        cpuRelax();
    }
    en.busy.store(false, std::memory_order_release);
  }

  // Joins every open loop of the board in turn.
  bool help() {
    bool ran = false;
    for (int e = 0; e < kBoard; ++e) {
      Entry &en = board_[e];
      int64_t s = en.joinState.load(std::memory_order_acquire);
      while (s & kOpen) {
        if (en.joinState.compare_exchange_weak(s, s + kJoiner,
                                               std::memory_order_acq_rel)) {
          {
            InPool pooled(e);
            ran |= en.loop.load(std::memory_order_relaxed)->run();
          }
          en.joinState.fetch_sub(kJoiner, std::memory_order_release);
          break;
        }
      }
    }
    return ran;
  }

  int addListener(int workers, void (*fn)(void *), void *ctx) {
    std::lock_guard<std::mutex> lock(listenersMu_);
    int id = ++lastListener_;
    listeners_.push_back(Listener{id, workers, fn, ctx});
    sharedWorkers_.fetch_add(workers, std::memory_order_relaxed);
    return id;
  }

  void removeListener(int id) {
    std::lock_guard<std::mutex> lock(listenersMu_);
    for (auto it = listeners_.begin(); it != listeners_.end(); ++it)
      if (it->id == id) {
        sharedWorkers_.fetch_sub(it->workers, std::memory_order_relaxed);
        listeners_.erase(it);
        return;
      }
  }

private:
  // An entry's joinState: kOpen while its loop takes joiners, plus kJoiner
  // per joiner inside it.
  static constexpr int64_t kOpen = 1, kJoiner = 2;

  struct alignas(64) Entry {
    std::atomic<bool> busy{false};
    // The entry's loop while it takes joiners (published by joinState).
    std::atomic<Loop *> loop{nullptr};
    std::atomic<int64_t> joinState{0};
  };

  struct Listener {
    int id, workers;
    void (*onLoopOpened)(void *);
    void *ctx;
  };

  // Called with board_[0] held.
  void grow(int helpers) {
    while (int(slots_.size()) < helpers) {
      slots_.push_back(std::make_unique<Slot>());
      std::thread(&Pool::helper, slots_.back().get()).detach();
    }
  }

  static void helper(Slot *s) {
#if defined(__linux__)
    pthread_setname_np(pthread_self(), "mxc kernel");
#endif
    for (;;) {
      auto until = std::chrono::steady_clock::now() + kSpinBeforeSleep;
      unsigned spins = 0;
      while (s->state.load(std::memory_order_acquire) != kPosted) {
        cpuRelax();
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
        InPool pooled(s->loop->entry);
        s->loop->run();
      }
      s->state.store(kIdle, std::memory_order_release);
    }
  }

  Entry board_[kBoard];
  std::vector<std::unique_ptr<Slot>> slots_; // grown with board_[0] held
  std::mutex listenersMu_;
  std::vector<Listener> listeners_; // guarded by listenersMu_
  int lastListener_ = 0;            // guarded by listenersMu_
  std::atomic<int> sharedWorkers_{0};
};

} // namespace

int parallelLoopEntry() { return tlsEntry; }

int loopThreads() { return Pool::get().loopThreads(); }

int addLoopHelpers(int workers, void (*onLoopOpened)(void *ctx), void *ctx) {
  return Pool::get().addListener(workers, onLoopOpened, ctx);
}

void removeLoopHelpers(int id) { Pool::get().removeListener(id); }

bool helpRunningLoop() { return Pool::get().help(); }

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
