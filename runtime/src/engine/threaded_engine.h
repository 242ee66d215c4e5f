// threaded_engine.h - the threaded dependency engine (MXNet's
// ThreadedEnginePerDevice): a versioned queue per variable, operations that
// become ready when all their variables grant them, and per-device pools of
// worker threads that run ready operations highest priority first.
//
// Plain C++17: nothing here may include LLVM or MLIR.
#ifndef MXC_RUNTIME_ENGINE_THREADED_ENGINE_H
#define MXC_RUNTIME_ENGINE_THREADED_ENGINE_H

#include "engine_impl.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <thread>
#include <utility>
#include <vector>

namespace mxc::runtime::detail {

/// One pushed operation, from push to its release.
struct OprBlock {
  enum class Kind : uint8_t {
    User,      ///< pushed by pushAsync / pushSync
    WaitVar,   ///< waitForVar's read of the var: runs even if the var failed
    DeleteVar, ///< deleteVar's write of the var: deletes it on completion
  };

  AsyncFn fn;
  Device device;
  std::vector<VarHandle> reads, writes;
  FnProperty prop = FnProperty::Normal;
  Kind kind = Kind::User;
  int priority = 0;
  uint64_t seq = 0; ///< push order: FIFO among equal priorities
  std::string name;
  /// Variables that have not granted this op yet, plus one while it is being
  /// pushed; the op is ready when this reaches zero.
  std::atomic<int> wait{0};
  /// Holders of the block: the worker running `fn` and the completion
  /// callback; the block is freed when both have let go.
  std::atomic<int> refs{2};
  /// Set by the first completion; later calls of `done` do nothing.
  std::atomic<bool> completed{false};
  /// Set when `done` was called from a thread that is not one of the
  /// engine's workers: a worker finishes the completion (with
  /// `handoffError`), so that no foreign thread touches the engine after the
  /// op is counted out (the engine may be destroyed at that moment).
  bool handoff = false;
  ErrorPtr handoffError;
  /// One queue entry per variable, reads first, then writes: inline for up
  /// to four (a binary op reads two and writes one), else on the heap.
  static constexpr size_t kInlineWaiters = 4;
  VarWaiter inlineWaiters[kInlineWaiters];
  std::unique_ptr<VarWaiter[]> heapWaiters;
  VarWaiter *waiter(size_t i) { return heapWaiters ? &heapWaiters[i] : &inlineWaiters[i]; }
  /// Run after the block is freed and counted out of numPending (waitForVar
  /// uses it to wake its caller). Empty for user operations.
  std::function<void()> afterRelease;
  /// Set when the profiler was active as a worker started the op: the
  /// worker's profiler thread id and the start time; `done` records the
  /// event (include/mxc/runtime/profiler.h).
  bool profiled = false;
  int32_t profTid = 0;
  uint64_t profStartNs = 0;
  /// What the op leaves on its variables' GPU events (gpu_sync.h):
  /// Untouched (it did not run, or could not wait for them), HostComplete
  /// (the host waited for them and for its own work: the variables have no
  /// GPU work left), or Recorded (`gpuEvent`, null if it used no stream).
  enum class GpuEffect : uint8_t { Untouched, HostComplete, Recorded };
  GpuEffect gpuEffect = GpuEffect::Untouched;
  GpuEventPtr gpuEvent;
  /// A DeleteVar whose function gives the variable's memory back: it waits
  /// on the host for the GPU work still using it.
  bool releasesMemory = false;
};

/// A pool of worker threads with a priority queue of ready operations:
/// highest priority first, then push order.
class WorkerPool {
public:
  using RunFn = std::function<void(OprBlock *)>;
  /// Starts `threads` workers; each calls `onThreadStart` (if any) once
  /// before taking work: the place for a GPU pool to bind its device and
  /// stream.
  /// With `shareKernelLoops`, the workers also help the kernel threads'
  /// parallel loops while they have nothing of their own to run
  /// (kernels/parallel.h, addLoopHelpers): the CPU pool when it has more
  /// than one worker.
  WorkerPool(const char *name, int threads, RunFn run,
             std::function<void()> onThreadStart = {},
             bool shareKernelLoops = false);
  /// Stops and joins the workers; the queue must be empty.
  ~WorkerPool();
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;

  void push(OprBlock *op);
  const char *name() const { return name_; }

private:
  struct Entry {
    int priority;
    uint64_t seq;
    OprBlock *op;
    bool operator<(const Entry &o) const {
      return priority != o.priority ? priority < o.priority : seq > o.seq;
    }
  };
  void loop(const std::function<void()> &onThreadStart);
  static void onLoopOpened(void *pool);
  /// Returns when an operation is queued or a loop opened since `loopsSeen`,
  /// or after about 50 us.
  void spinUntilWork(uint64_t loopsSeen) const;

  const char *name_;
  RunFn run_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::priority_queue<Entry> queue_; // guarded by mu_
  int idle_ = 0;                     // workers waiting on cv_, guarded by mu_
  bool stop_ = false;                // guarded by mu_
  // Work-sharing: the id from addLoopHelpers (0: not sharing), and a count
  // of the parallel loops opened, which an idle worker compares with the
  // last it saw before it sleeps.
  int loopHelpersId_ = 0;
  std::atomic<uint64_t> loopsOpened_{0};
  std::atomic<size_t> queued_{0}; // queue_.size(), read without mu_
  std::vector<std::thread> threads_;
};

class ThreadedEngine final : public Engine {
public:
  explicit ThreadedEngine(const EngineOptions &opts);
  /// Waits for every pushed operation, then stops the workers.
  ~ThreadedEngine() override;

  VarHandle newVar() override;
  void deleteVar(VarHandle var, std::function<void()> onDelete = nullptr) override;
  void pushAsync(AsyncFn fn, Device device, std::vector<VarHandle> reads,
                 std::vector<VarHandle> writes, FnProperty prop, int priority,
                 std::string name) override;
  std::optional<EngineError> waitForVar(VarHandle var) override;
  std::optional<EngineError> waitForAll() override;
  size_t numPending() const override { return pending_.load(); }
  int numCpuWorkers() const override { return opts_.cpuWorkers; }

private:
  /// Takes a slot among the operations in flight; blocks (back-pressure)
  /// while maxInFlight are pending unless `mayBlock` is false or the caller
  /// is one of this engine's workers (blocking there could deadlock).
  void acquireSlot(bool mayBlock);
  /// Queues `op` on each of its variables (one total order of pushes, so
  /// the dependency graph has no cycle) and dispatches it if all granted (a
  /// Light op runs inline then).
  void enqueue(OprBlock *op);
  /// Called with var->mu held: queue `w` on `var`, granting it at once if
  /// the var allows. Returns true if granted.
  static bool appendLocked(EngineVar *var, VarWaiter *w);
  /// Called with var->mu held after a read / write of `var` completed:
  /// grants the next waiters the var now allows.
  void completeReadLocked(EngineVar *var);
  void completeWriteLocked(EngineVar *var);
  /// One of `op`'s variables granted it: dispatch when it was the last.
  void grant(OprBlock *op) {
    if (op->wait.fetch_sub(1, std::memory_order_acq_rel) == 1)
      dispatch(op);
  }
  /// Hands a ready op to its pool.
  /// Runs a ready Light op on the calling thread (FnProperty::Light).
  void runInline(OprBlock *op);
  void dispatch(OprBlock *op);
  WorkerPool &poolFor(const OprBlock &op);
  /// In a worker: run `op` (or skip it when it reads a failed var).
  void execute(OprBlock *op);
  /// The GPU events `op` must come after: the last write's of each var it
  /// reads, the last write's and later reads' of each var it writes.
  static std::vector<GpuEventPtr> gpuEventsBefore(const OprBlock &op);
  /// Before a GPU op (on its worker, batch open): its stream waits for
  /// gpuEventsBefore on the device. Throws on a driver failure.
  static void waitOnStream(const OprBlock &op, GpuStreamSync &gpu);
  /// Before an op that runs on the host and uses memory a GPU op may still
  /// be using: waits for gpuEventsBefore on the host; "" or what the device
  /// reported (op->gpuEffect is HostComplete on success).
  std::string waitOnHost(OprBlock *op);
  /// Keeps `op`'s GPU effect on its vars (var->mu held).
  static void noteGpuReadLocked(EngineVar *var, const OprBlock &op);
  static void noteGpuWriteLocked(EngineVar *var, const OprBlock &op);
  /// The op finished (`error` null on success): record the outcome on the
  /// vars it writes and release its variables.
  void complete(OprBlock *op, ErrorPtr error);
  /// Drops `n` references to `op`; the last frees it and counts it out.
  void release(OprBlock *op, int n);
  /// Whether the calling thread is one of this engine's workers.
  bool inWorker() const;

  const EngineOptions opts_;
  const size_t lowWater_; ///< blocked pushers resume at this many pending

  /// Serialises the queueing part of pushes (not the back-pressure wait).
  std::mutex pushMu_;
  std::atomic<uint64_t> nextSeq_{0};

  std::atomic<size_t> pending_{0};
  /// Pushers blocked by back-pressure wait on pressureCv_ until pending_ is
  /// down to lowWater_; waitForAll waits on drainedCv_ until it is zero.
  /// The counters let a completing op skip idleMu_ when nobody waits.
  std::mutex idleMu_;
  std::atomic<int> pressureWaiters_{0};
  std::condition_variable pressureCv_;
  std::atomic<int> drainWaiters_{0};
  std::condition_variable drainedCv_;

  FailureLog failures_;
  /// Set once an op has left a GPU event on a variable: until then no op
  /// needs to look for events (a CPU-only process never does).
  std::atomic<bool> gpuEventsSeen_{false};

  // Pools. CPU: compute workers, the priority pool (CPUPrioritized), and one
  // thread for FnProperty::Async functions, which only start work. GPU:
  // created on first use per (device id, compute / copy-to / copy-from); the
  // GPU issue binds each pool's threads to its device and stream through
  // WorkerPool's onThreadStart hook.
  std::unique_ptr<WorkerPool> cpuPool_;
  std::unique_ptr<WorkerPool> priorityPool_;
  std::unique_ptr<WorkerPool> asyncPool_;
  enum class GpuLane { Compute, CopyTo, CopyFrom };
  std::mutex gpuPoolsMu_;
  std::map<std::pair<int32_t, GpuLane>, std::unique_ptr<WorkerPool>> gpuPools_;
};

} // namespace mxc::runtime::detail

#endif // MXC_RUNTIME_ENGINE_THREADED_ENGINE_H
