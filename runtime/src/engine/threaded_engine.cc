// threaded_engine.cc - the threaded dependency engine.
//
// How an operation moves (MXNet's ThreadedEngine, see docs/runtime.md):
//  1. pushAsync takes a slot among the operations in flight (back-pressure),
//     then, under one push lock so that all variables see pushes in the same
//     order, queues the op on each variable it reads and writes.
//  2. A variable grants a read when no write is running or waiting ahead of
//     it, and a write when nothing else runs on it and nothing waits ahead.
//  3. When every variable has granted it, the op goes to its pool's priority
//     queue; a worker runs it, or skips it if a variable it reads has failed.
//  4. On completion the op records its outcome on the variables it writes,
//     releases its variables (granting the next waiters), is freed, and is
//     counted out of the pending operations.
#include "threaded_engine.h"
#include "../kernels/parallel.h"

#include "mxc/runtime/profiler.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace mxc::runtime {
namespace detail {

namespace {
/// The engine whose worker the calling thread is, if any.
thread_local const ThreadedEngine *tlsWorkerOf = nullptr;
/// The GPU op whose stream batch is open on the calling thread, if any.
thread_local const OprBlock *tlsGpuBatchOp = nullptr;

/// Pops the oldest waiter of `var` (var->mu held).
VarWaiter *popWaiter(EngineVar *var) {
  VarWaiter *w = var->head;
  var->head = w->next;
  if (!var->head)
    var->tail = nullptr;
  w->next = nullptr;
  return w;
}

EngineError insideOperationError(const char *what) {
  return EngineError{what, "called from inside an operation of the same engine, where it "
                           "could wait for itself; wait outside operations"};
}
} // namespace

//===----------------------------------------------------------------------===//
// WorkerPool
//===----------------------------------------------------------------------===//

WorkerPool::WorkerPool(const char *name, int threads, RunFn run,
                       std::function<void()> onThreadStart,
                       bool shareKernelLoops)
    : name_(name), run_(std::move(run)) {
  if (threads < 1)
    threads = 1;
  // Before any worker starts (they read loopHelpersId_ unlocked).
  if (shareKernelLoops)
    loopHelpersId_ = kernels::addLoopHelpers(threads, &WorkerPool::onLoopOpened, this);
  threads_.reserve(threads);
  for (int i = 0; i < threads; ++i)
    threads_.emplace_back([this, onThreadStart, i] {
      // The thread's name in profiler traces: "cpu worker 0", "priority
      // worker 0", "async worker 0", "gpu worker 1", ...
      const std::string pool =
          std::strcmp(name_, "cpu-priority") == 0 ? std::string("priority") : std::string(name_);
      Profiler::setThreadName(pool + " worker " + std::to_string(i));
      loop(onThreadStart);
    });
}

void WorkerPool::spinUntilWork(uint64_t loopsSeen) const {
  auto until = std::chrono::steady_clock::now() + kernels::kSpinBeforeSleep;
  for (unsigned spins = 1;; ++spins) {
    if (queued_.load(std::memory_order_relaxed) > 0 ||
        loopsOpened_.load(std::memory_order_relaxed) != loopsSeen)
      return;
    kernels::cpuRelax();
    if (spins % 64 == 0 && std::chrono::steady_clock::now() > until)
      return;
  }
}

void WorkerPool::onLoopOpened(void *p) {
  auto *pool = static_cast<WorkerPool *>(p);
  pool->loopsOpened_.fetch_add(1, std::memory_order_release);
  // Under the lock, so that a worker about to sleep either sees the new count
  // or is waiting when notified.
  std::lock_guard<std::mutex> lock(pool->mu_);
  if (pool->idle_ > 0)
    pool->cv_.notify_all();
}

WorkerPool::~WorkerPool() {
  if (loopHelpersId_)
    kernels::removeLoopHelpers(loopHelpersId_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread &t : threads_)
    t.join();
}

void WorkerPool::push(OprBlock *op) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push(Entry{op->priority, op->seq, op});
  queued_.store(queue_.size(), std::memory_order_relaxed);
  // A worker that is not idle comes back for the queue before it sleeps.
  // Notified under the lock: a foreign thread handing off a completion must
  // not touch the pool once the op can run (the pool may then go away).
  if (idle_ > 0)
    cv_.notify_one();
}

void WorkerPool::loop(const std::function<void()> &onThreadStart) {
  if (onThreadStart)
    onThreadStart();
  uint64_t loopsSeen = 0;
  for (;;) {
    OprBlock *op;
    {
      bool spun = false;
      std::unique_lock<std::mutex> lock(mu_);
      while (queue_.empty() && !stop_) {
        if (loopHelpersId_) {
          // Nothing of our own to run: help a parallel loop opened since
          // we last looked (another worker's step), then look again.
          uint64_t opened = loopsOpened_.load(std::memory_order_acquire);
          if (opened != loopsSeen) {
            loopsSeen = opened;
            lock.unlock();
            kernels::helpRunningLoop();
            lock.lock();
            continue;
          }
          if (!spun) {
            // Steps come back to back: spin a little (as the kernel threads'
            // helpers do) before sleeping, so that the next loop or
            // operation does not wait for a wake-up.
            spun = true;
            lock.unlock();
            spinUntilWork(loopsSeen);
            lock.lock();
            continue;
          }
        }
        ++idle_;
        cv_.wait(lock);
        --idle_;
      }
      if (queue_.empty())
        return; // stopping, and nothing left to run
      op = queue_.top().op;
      queue_.pop();
      queued_.store(queue_.size(), std::memory_order_relaxed);
    }
    run_(op);
  }
}

//===----------------------------------------------------------------------===//
// ThreadedEngine
//===----------------------------------------------------------------------===//

ThreadedEngine::ThreadedEngine(const EngineOptions &opts)
    : opts_(opts), lowWater_(opts.maxInFlight / 2) {
  auto run = [this](OprBlock *op) { execute(op); };
  auto markWorker = [this] { tlsWorkerOf = this; };
  cpuPool_ = std::make_unique<WorkerPool>("cpu", opts.cpuWorkers, run, markWorker,
                                          opts.cpuWorkers > 1 && opts.shareKernelLoops);
  if (opts.priorityWorkers > 0)
    priorityPool_ =
        std::make_unique<WorkerPool>("cpu-priority", opts.priorityWorkers, run, markWorker);
  asyncPool_ = std::make_unique<WorkerPool>("async", 1, run, markWorker);
}

ThreadedEngine::~ThreadedEngine() {
  if (inWorker()) {
    // Joining our own thread cannot work; this is a caller bug.
    std::fprintf(stderr, "mxc: an engine was destroyed by one of its own operations\n");
    std::abort();
  }
  waitForAll();
  {
    std::lock_guard<std::mutex> lock(gpuPoolsMu_);
    gpuPools_.clear();
  }
  asyncPool_.reset();
  priorityPool_.reset();
  cpuPool_.reset();
}

bool ThreadedEngine::inWorker() const { return tlsWorkerOf == this; }

VarHandle ThreadedEngine::newVar() { return new EngineVar(); }

void ThreadedEngine::deleteVar(VarHandle var, std::function<void()> onDelete) {
  auto *op = new OprBlock();
  op->kind = OprBlock::Kind::DeleteVar;
  op->name = "deleteVar";
  op->writes.push_back(var);
  op->releasesMemory = onDelete != nullptr;
  if (onDelete)
    op->fn = [f = std::move(onDelete)](RunContext, CompleteCallback done) {
      try {
        f();
      } catch (...) {
      }
      done(std::string());
    };
  else
    op->fn = [](RunContext, CompleteCallback done) { done(std::string()); };
  // Never blocks: it is called from destructors, and bounded by the vars.
  acquireSlot(/*mayBlock=*/false);
  enqueue(op);
}

void ThreadedEngine::pushAsync(AsyncFn fn, Device device, std::vector<VarHandle> reads,
                               std::vector<VarHandle> writes, FnProperty prop, int priority,
                               std::string name) {
  normalizeVarSets(reads, writes);
  acquireSlot(/*mayBlock=*/true);
  auto *op = new OprBlock();
  op->fn = std::move(fn);
  op->device = device;
  op->reads = std::move(reads);
  op->writes = std::move(writes);
  op->prop = prop;
  op->priority = priority;
  op->name = std::move(name);
  enqueue(op);
}

void ThreadedEngine::acquireSlot(bool mayBlock) {
  if (mayBlock && opts_.maxInFlight > 0 && pending_.load() >= opts_.maxInFlight &&
      !inWorker()) {
    // Wait until the engine has drained to the low-water mark, so that a
    // fast pusher blocks once per batch rather than once per op.
    std::unique_lock<std::mutex> lock(idleMu_);
    pressureWaiters_.fetch_add(1);
    pressureCv_.wait(lock, [&] { return pending_.load() <= lowWater_; });
    pressureWaiters_.fetch_sub(1);
  }
  pending_.fetch_add(1);
}

void ThreadedEngine::enqueue(OprBlock *op) {
  const size_t numReads = op->reads.size();
  const size_t numVars = numReads + op->writes.size();
  if (numVars > OprBlock::kInlineWaiters)
    op->heapWaiters.reset(new VarWaiter[numVars]);
  // The op cannot become ready while being queued: the extra 1 is ours.
  op->wait.store(static_cast<int>(numVars) + 1, std::memory_order_relaxed);
  int granted = 0;
  {
    std::lock_guard<std::mutex> pushLock(pushMu_);
    op->seq = nextSeq_.fetch_add(1, std::memory_order_relaxed);
    for (size_t i = 0; i < numVars; ++i) {
      VarWaiter *w = op->waiter(i);
      w->opr = op;
      w->write = i >= numReads;
      EngineVar *var = w->write ? op->writes[i - numReads] : op->reads[i];
      std::lock_guard<std::mutex> lock(var->mu);
      if (appendLocked(var, w))
        ++granted;
    }
  }
  if (op->wait.fetch_sub(granted + 1, std::memory_order_acq_rel) == granted + 1) {
    // Ready at push time: a Light CPU op, or the deletion of a variable
    // nothing uses any more, runs here (no worker wake-up).
    if ((op->prop == FnProperty::Light && op->kind == OprBlock::Kind::User &&
         op->device.kind == Device::Kind::CPU) ||
        op->kind == OprBlock::Kind::DeleteVar) {
      runInline(op);
      return;
    }
    dispatch(op);
  }
}

void ThreadedEngine::runInline(OprBlock *op) {
  // The pushing thread acts as a worker while it runs the op: the op
  // completes here (no hand-off to the async pool), and a wait inside it
  // fails at once as on a worker instead of waiting for itself.
  const ThreadedEngine *saved = tlsWorkerOf;
  tlsWorkerOf = this;
  execute(op);
  tlsWorkerOf = saved;
}

bool ThreadedEngine::appendLocked(EngineVar *var, VarWaiter *w) {
  if (!var->writeRunning && !var->head) {
    if (!w->write) {
      ++var->runningReads;
      return true;
    }
    if (var->runningReads == 0) {
      var->writeRunning = true;
      return true;
    }
  }
  if (var->tail)
    var->tail->next = w;
  else
    var->head = w;
  var->tail = w;
  return false;
}

void ThreadedEngine::completeReadLocked(EngineVar *var) {
  --var->runningReads;
  // A waiting head is always a write; it may run once the last read is done.
  if (var->runningReads == 0 && var->head) {
    var->writeRunning = true;
    grant(popWaiter(var)->opr);
  }
}

void ThreadedEngine::completeWriteLocked(EngineVar *var) {
  var->writeRunning = false;
  ++var->version;
  // Every read up to the next write may run now, together.
  while (var->head && !var->head->write) {
    ++var->runningReads;
    grant(popWaiter(var)->opr);
  }
  if (var->runningReads == 0 && var->head) {
    var->writeRunning = true;
    grant(popWaiter(var)->opr);
  }
}

void ThreadedEngine::dispatch(OprBlock *op) { poolFor(*op).push(op); }

WorkerPool &ThreadedEngine::poolFor(const OprBlock &op) {
  // The engine's own tiny operations never wait behind compute work.
  if (op.kind != OprBlock::Kind::User)
    return *asyncPool_;
  if (op.device.kind == Device::Kind::GPU) {
    GpuLane lane = op.prop == FnProperty::CopyToGPU     ? GpuLane::CopyTo
                   : op.prop == FnProperty::CopyFromGPU ? GpuLane::CopyFrom
                                                        : GpuLane::Compute;
    std::lock_guard<std::mutex> lock(gpuPoolsMu_);
    std::unique_ptr<WorkerPool> &pool = gpuPools_[{op.device.id, lane}];
    if (!pool) {
      int threads = lane == GpuLane::Compute ? opts_.gpuWorkers : opts_.gpuCopyWorkers;
      const char *name = lane == GpuLane::Compute  ? "gpu"
                         : lane == GpuLane::CopyTo ? "gpu-copy-to"
                                                   : "gpu-copy-from";
      // The GPU issue binds these threads to device op.device.id here.
      pool = std::make_unique<WorkerPool>(
          name, threads, [this](OprBlock *o) { execute(o); }, [this] { tlsWorkerOf = this; });
    }
    return *pool;
  }
  switch (op.prop) {
  case FnProperty::CPUPrioritized:
    return priorityPool_ ? *priorityPool_ : *cpuPool_;
  case FnProperty::Async:
    return *asyncPool_;
  default:
    return *cpuPool_;
  }
}

void ThreadedEngine::execute(OprBlock *op) {
  if (op->handoff) { // the second visit: finish a foreign thread's completion
    complete(op, std::move(op->handoffError));
    release(op, 1);
    return;
  }
  // Granted reads see the outcome of the last write before them.
  if (op->kind == OprBlock::Kind::User) {
    for (EngineVar *var : op->reads) {
      ErrorPtr inherited;
      {
        std::lock_guard<std::mutex> lock(var->mu);
        inherited = var->error;
      }
      if (inherited) {
        op->completed.store(true);
        complete(op, std::move(inherited));
        release(op, 2);
        return;
      }
    }
  }
  // A GPU op runs in a stream batch after its stream waits for its
  // variables' events; a host op waits for them on the host.
  GpuStreamSync *gpu = nullptr;
  if (op->kind == OprBlock::Kind::User && op->device.kind == Device::Kind::GPU &&
      opts_.gpuEvents)
    gpu = gpuStreamSync();
  std::string startError;
  if (gpu) {
    gpu->begin();
    tlsGpuBatchOp = op;
    try {
      waitOnStream(*op, *gpu);
    } catch (...) {
      startError = currentExceptionMessage();
    }
  } else if ((op->kind == OprBlock::Kind::User || op->releasesMemory) &&
             gpuEventsSeen_.load(std::memory_order_acquire)) {
    startError = waitOnHost(op);
  }
  if (op->kind == OprBlock::Kind::User && Profiler::active()) {
    op->profiled = true;
    op->profTid = Profiler::threadId();
    op->profStartNs = Profiler::nowNs();
  }
  const bool started = startError.empty();
  CompleteCallback done = [this, op, gpu, started](const std::string &error) {
    if (op->completed.exchange(true, std::memory_order_acq_rel))
      return; // called twice, or after the function threw: the first wins
    std::string message = error;
    if (gpu && tlsGpuBatchOp == op) {
      // The op's GPU work ends here: an event for the next ops, or (a
      // failure) a wait for the streams. A copy to the host is an event too:
      // host code waits for it where it reads the destination (a CPU
      // operation, waitForVar); to pageable memory the copy had finished
      // when the driver call returned, to cpu_pinned memory it may still run.
      tlsGpuBatchOp = nullptr;
      const bool host = !message.empty();
      try {
        op->gpuEvent = gpu->end(op->device.id, host, op->name);
        if (started)
          op->gpuEffect =
              host ? OprBlock::GpuEffect::HostComplete : OprBlock::GpuEffect::Recorded;
        if (op->gpuEvent)
          gpuEventsSeen_.store(true, std::memory_order_release);
      } catch (...) {
        if (message.empty())
          message = currentExceptionMessage();
      }
    }
    // The op's event ends here, before its variables let the next ops run.
    if (op->profiled)
      Profiler::get().record(Profiler::Event{op->name, op->device, op->profTid,
                                             op->profStartNs, Profiler::nowNs()});
    ErrorPtr failure;
    if (!message.empty())
      failure = std::make_shared<const Failure>(EngineError{op->name, message}, op->seq);
    if (!inWorker()) {
      op->handoffError = std::move(failure);
      op->handoff = true;
      asyncPool_->push(op);
      return;
    }
    complete(op, std::move(failure));
    release(op, 1);
  };
  if (!started) {
    done(startError);
    release(op, 1);
    return;
  }
  try {
    op->fn(RunContext{op->device}, done);
  } catch (...) {
    done(currentExceptionMessage());
  }
  if (gpu && tlsGpuBatchOp == op) {
    // The function returned without completing: it completes later, from
    // elsewhere. What it started on this thread's streams is waited for now
    // (an asynchronous GPU op must not complete before its work has; the
    // engine treats it as synchronous and leaves its variables' events).
    tlsGpuBatchOp = nullptr;
    try {
      gpu->end(op->device.id, /*hostComplete=*/true, op->name);
    } catch (...) {
      // The device's failure shows at the next wait.
    }
  }
  release(op, 1);
}

std::vector<GpuEventPtr> ThreadedEngine::gpuEventsBefore(const OprBlock &op) {
  std::vector<GpuEventPtr> events;
  for (EngineVar *var : op.reads) {
    std::lock_guard<std::mutex> lock(var->mu);
    if (var->gpuWrite)
      events.push_back(var->gpuWrite);
  }
  for (EngineVar *var : op.writes) {
    std::lock_guard<std::mutex> lock(var->mu);
    if (var->gpuWrite)
      events.push_back(var->gpuWrite);
    events.insert(events.end(), var->gpuReads.begin(), var->gpuReads.end());
  }
  return events;
}

void ThreadedEngine::waitOnStream(const OprBlock &op, GpuStreamSync &gpu) {
  for (const GpuEventPtr &e : gpuEventsBefore(op))
    gpu.streamWait(op.device.id, *e);
}

std::string ThreadedEngine::waitOnHost(OprBlock *op) {
  for (const GpuEventPtr &e : gpuEventsBefore(*op)) {
    std::string err = e->hostWait();
    if (!err.empty())
      return "the GPU reported, after operation '" + e->opName() + "': " + err;
  }
  op->gpuEffect = OprBlock::GpuEffect::HostComplete;
  return "";
}

void ThreadedEngine::noteGpuReadLocked(EngineVar *var, const OprBlock &op) {
  switch (op.gpuEffect) {
  case OprBlock::GpuEffect::Untouched:
    return;
  case OprBlock::GpuEffect::HostComplete:
    var->gpuWrite.reset(); // waited for
    return;
  case OprBlock::GpuEffect::Recorded:
    if (!op.gpuEvent)
      return;
    // The write stays: a later reader waits for it, not for the reads
    // before it (this read's event implies the write only to those that
    // wait for this read: the next writer does).
    std::vector<GpuEventPtr> &reads = var->gpuReads;
    reads.erase(std::remove_if(reads.begin(), reads.end(),
                               [&](const GpuEventPtr &e) { return op.gpuEvent->covers(*e); }),
                reads.end());
    reads.push_back(op.gpuEvent);
    return;
  }
}

void ThreadedEngine::noteGpuWriteLocked(EngineVar *var, const OprBlock &op) {
  if (op.gpuEffect == OprBlock::GpuEffect::Untouched)
    return; // a skipped op: the GPU work before it is still pending
  // Its stream (or the host) waited for the last write and the reads since.
  var->gpuReads.clear();
  var->gpuWrite = op.gpuEffect == OprBlock::GpuEffect::Recorded ? op.gpuEvent : nullptr;
}

void ThreadedEngine::complete(OprBlock *op, ErrorPtr error) {
  if (error && op->kind == OprBlock::Kind::User)
    failures_.record(error);
  for (EngineVar *var : op->writes) {
    {
      std::lock_guard<std::mutex> lock(var->mu);
      var->error = error;
      noteGpuWriteLocked(var, *op);
      completeWriteLocked(var);
    }
    // Nothing may be queued after deleteVar's write: the var is ours.
    if (op->kind == OprBlock::Kind::DeleteVar)
      delete var;
  }
  for (EngineVar *var : op->reads) {
    std::lock_guard<std::mutex> lock(var->mu);
    noteGpuReadLocked(var, *op);
    completeReadLocked(var);
  }
}

void ThreadedEngine::release(OprBlock *op, int n) {
  if (op->refs.fetch_sub(n, std::memory_order_acq_rel) != n)
    return;
  std::function<void()> after = std::move(op->afterRelease);
  delete op;
  const size_t now = pending_.fetch_sub(1) - 1;
  if (now <= lowWater_ && pressureWaiters_.load() > 0) {
    std::lock_guard<std::mutex> lock(idleMu_);
    pressureCv_.notify_all();
  }
  if (now == 0 && drainWaiters_.load() > 0) {
    std::lock_guard<std::mutex> lock(idleMu_);
    drainedCv_.notify_all();
  }
  if (after)
    after();
}

namespace {
/// Waits on the host for the GPU event of a var's last write (taken when the
/// write had completed for the engine); the device's failure names the op.
std::optional<EngineError> waitForGpuWrite(const GpuEventPtr &e) {
  if (!e)
    return std::nullopt;
  std::string err = e->hostWait();
  if (err.empty())
    return std::nullopt;
  return EngineError{e->opName(), "the GPU reported: " + err};
}
} // namespace

std::optional<EngineError> ThreadedEngine::waitForVar(VarHandle var) {
  if (inWorker())
    return insideOperationError("waitForVar");
  {
    // Nothing writing or waiting: every earlier write has completed (on a
    // GPU, once its event has: waited for outside the lock).
    bool ready;
    ErrorPtr error;
    GpuEventPtr gpuWrite;
    {
      std::lock_guard<std::mutex> lock(var->mu);
      ready = !var->writeRunning && !var->head;
      if (ready) {
        error = var->error;
        gpuWrite = var->gpuWrite;
      }
    }
    if (ready)
      return error ? reportVarError(error) : waitForGpuWrite(gpuWrite);
  }
  // Otherwise queue a read of the var; it runs after every earlier write.
  struct WaitState {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    ErrorPtr error;
    GpuEventPtr gpuWrite;
  };
  auto state = std::make_shared<WaitState>();
  auto *op = new OprBlock();
  op->kind = OprBlock::Kind::WaitVar;
  op->name = "waitForVar";
  op->reads.push_back(var);
  op->fn = [state, var](RunContext, CompleteCallback done) {
    {
      std::lock_guard<std::mutex> varLock(var->mu);
      std::lock_guard<std::mutex> lock(state->mu);
      state->error = var->error;
      state->gpuWrite = var->gpuWrite;
    }
    done(std::string());
  };
  op->afterRelease = [state] {
    std::lock_guard<std::mutex> lock(state->mu);
    state->done = true;
    state->cv.notify_all();
  };
  acquireSlot(/*mayBlock=*/false);
  enqueue(op);
  std::unique_lock<std::mutex> lock(state->mu);
  state->cv.wait(lock, [&] { return state->done; });
  if (state->error)
    return reportVarError(state->error);
  // The device may still be writing: wait here, not on the engine's worker.
  GpuEventPtr gpuWrite = std::move(state->gpuWrite);
  lock.unlock();
  return waitForGpuWrite(gpuWrite);
}

std::optional<EngineError> ThreadedEngine::waitForAll() {
  if (inWorker())
    return insideOperationError("waitForAll");
  {
    std::unique_lock<std::mutex> lock(idleMu_);
    drainWaiters_.fetch_add(1);
    drainedCv_.wait(lock, [&] { return pending_.load() == 0; });
    drainWaiters_.fetch_sub(1);
  }
  std::optional<EngineError> first = failures_.takeFirstUnreported();
  // Every op has completed for the engine; the GPU work they left running
  // is waited for too.
  if (gpuEventsSeen_.load(std::memory_order_acquire))
    if (GpuStreamSync *gpu = gpuStreamSync()) {
      std::string err = gpu->synchronizeAll();
      if (!err.empty() && !first)
        first = EngineError{"waitForAll", "the GPU reported: " + err};
    }
  return first;
}

namespace {
const bool kRegistered = (registerEngine("threaded",
                                         [](const EngineOptions &opts) -> std::unique_ptr<Engine> {
                                           return std::make_unique<ThreadedEngine>(opts);
                                         }),
                          true);
} // namespace

void linkThreadedEngine() {}

} // namespace detail
} // namespace mxc::runtime
