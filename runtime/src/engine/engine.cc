// engine.cc - what every engine shares: pushSync, options from the
// environment, the factory the engines register with, the default engine.
#include "engine_impl.h"

#include "../env.h"
#include "mxc/runtime/threads.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <stdexcept>
#include <unordered_set>

#include <unistd.h>

namespace mxc::runtime {

Engine::~Engine() = default;

void Engine::pushSync(SyncFn fn, Device device, std::vector<VarHandle> reads,
                      std::vector<VarHandle> writes, FnProperty prop, int priority,
                      std::string name) {
  pushAsync(
      [fn = std::move(fn)](RunContext ctx, CompleteCallback done) {
        std::string error;
        try {
          fn(ctx);
        } catch (...) {
          error = detail::currentExceptionMessage();
        }
        done(error);
      },
      device, std::move(reads), std::move(writes), prop, priority, std::move(name));
}

namespace detail {

void FailureLog::record(const ErrorPtr &f) {
  std::lock_guard<std::mutex> lock(mu_);
  // Skipped operations inherit the failure of the one before them: the
  // last entry is the usual match.
  if (!entries_.empty() && entries_.back() == f)
    return;
  if (std::find(entries_.begin(), entries_.end(), f) != entries_.end())
    return;
  if (entries_.size() >= kMaxKept) {
    entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                  [](const ErrorPtr &e) { return e->reported.load(); }),
                   entries_.end());
    if (entries_.size() >= kMaxKept)
      return;
  }
  entries_.push_back(f);
}

std::optional<EngineError> FailureLog::takeFirstUnreported() {
  std::lock_guard<std::mutex> lock(mu_);
  const Failure *first = nullptr;
  for (const ErrorPtr &e : entries_)
    if (!e->reported.load() && (!first || e->seq < first->seq))
      first = e.get();
  std::optional<EngineError> result;
  if (first)
    result = EngineError(*first);
  for (const ErrorPtr &e : entries_)
    e->reported.store(true);
  entries_.clear();
  return result;
}

std::string currentExceptionMessage() {
  try {
    throw;
  } catch (const std::exception &e) {
    std::string what = e.what();
    return what.empty() ? std::string("exception with an empty message") : what;
  } catch (...) {
    return "unknown exception (not derived from std::exception)";
  }
}

namespace {
// Keeps the first occurrence of each element of `vars` not in `exclude`,
// in order. Small sets (the usual case) are scanned; big ones hashed.
void dedup(std::vector<VarHandle> &vars, const std::vector<VarHandle> &exclude) {
  for (VarHandle v : vars)
    if (!v)
      throw std::invalid_argument("engine: null variable in a read or write set");
  auto contains = [](const std::vector<VarHandle> &set, size_t n, VarHandle v) {
    return std::find(set.begin(), set.begin() + n, v) != set.begin() + n;
  };
  if (vars.size() + exclude.size() <= 32) {
    size_t kept = 0;
    for (size_t i = 0; i < vars.size(); ++i) {
      VarHandle v = vars[i];
      if (!contains(vars, kept, v) && !contains(exclude, exclude.size(), v))
        vars[kept++] = v;
    }
    vars.resize(kept);
    return;
  }
  std::unordered_set<VarHandle> seen(exclude.begin(), exclude.end());
  size_t kept = 0;
  for (size_t i = 0; i < vars.size(); ++i)
    if (seen.insert(vars[i]).second)
      vars[kept++] = vars[i];
  vars.resize(kept);
}
} // namespace

void normalizeVarSets(std::vector<VarHandle> &reads, std::vector<VarHandle> &writes) {
  if (reads.empty() && writes.size() == 1 && writes[0]) // the common tiny op
    return;
  dedup(writes, {});
  dedup(reads, writes);
}

} // namespace detail

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

namespace {
// Reads a non-negative integer environment variable into `out` if it is set
// and well formed (at least `min`); otherwise (warning if malformed) leaves
// `out` alone.
template <typename T> void readEnvInt(const char *name, long long min, T &out) {
  long long value = 0;
  if (detail::readEnvInteger(name, min, value))
    out = static_cast<T>(value);
}
} // namespace

EngineOptions EngineOptions::fromEnvironment() {
  // The engine kind and the CPU pools come from the process's thread budget
  // (threads.h: MXC_* beside MXNet's names, workers x kernel threads <=
  // cores by default).
  ThreadBudget budget = resolveThreadBudget(ThreadSettings::fromEnvironment(), usableCores());
  EngineOptions opts;
  opts.kind = budget.engine;
  opts.cpuWorkers = budget.cpuWorkers;
  opts.priorityWorkers = budget.priorityWorkers;
  readEnvInt("MXC_ENGINE_MAX_INFLIGHT", 0, opts.maxInFlight);
  readEnvInt("MXC_GPU_WORKER_NTHREADS", 1, opts.gpuWorkers);
  readEnvInt("MXC_GPU_COPY_NTHREADS", 1, opts.gpuCopyWorkers);
  int share = opts.shareKernelLoops ? 1 : 0;
  readEnvInt("MXC_ENGINE_SHARE_LOOPS", 0, share);
  opts.shareKernelLoops = share != 0;
  int events = opts.gpuEvents ? 1 : 0;
  readEnvInt("MXC_ENGINE_GPU_EVENTS", 0, events);
  opts.gpuEvents = events != 0;
  return opts;
}

namespace detail {
namespace {
std::atomic<GpuStreamSync *> gGpuStreamSync{nullptr};
} // namespace
GpuStreamSync *gpuStreamSync() { return gGpuStreamSync.load(std::memory_order_acquire); }
void setGpuStreamSync(GpuStreamSync *sync) {
  gGpuStreamSync.store(sync, std::memory_order_release);
}
} // namespace detail

//===----------------------------------------------------------------------===//
// Factory
//===----------------------------------------------------------------------===//

namespace {
struct Registry {
  std::mutex mu;
  std::map<std::string, EngineFactory> factories;
};
// A function-local static, so engines may register during static
// initialisation in any order.
Registry &registry() {
  static Registry r;
  return r;
}
} // namespace

void registerEngine(const std::string &kind, EngineFactory factory) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.factories[kind] = factory;
}

std::vector<std::string> registeredEngines() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> kinds;
  for (const auto &entry : r.factories)
    kinds.push_back(entry.first);
  return kinds;
}

std::unique_ptr<Engine> createEngine(const EngineOptions &opts) {
  detail::linkNaiveEngine();
  detail::linkThreadedEngine();
  EngineFactory factory = nullptr;
  {
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.factories.find(opts.kind);
    if (it == r.factories.end())
      return nullptr;
    factory = it->second;
  }
  return factory(opts);
}

namespace {
// The default engine while it exists (null before its creation and from the
// start of its destruction at exit).
std::atomic<Engine *> currentDefault{nullptr};

struct DefaultEngineHolder {
  std::unique_ptr<Engine> engine;
  ~DefaultEngineHolder() {
    currentDefault.store(nullptr);
    engine.reset(); // waits for every pushed operation
  }
};
/// Drains the default engine at the very start of exit() on the main thread.
/// glibc's exit() destroys the calling thread's thread_local objects before
/// it runs any atexit handler or static destructor, so operations still in
/// flight finish while every library they call (oneDNN's lazily built
/// statics and JIT code, OpenBLAS, the JIT'd kernels) is intact. The holder
/// below destroys the engine much later, after libraries whose statics were
/// first built after the engine (a process exiting with convolution
/// training steps in flight crashed in oneDNN's destroyed caches).
struct MainThreadExitDrain {
  ~MainThreadExitDrain() {
    if (Engine *e = currentDefault.load())
      if (std::optional<EngineError> err = e->waitForAll())
        std::fprintf(stderr, "mxc: an operation pushed before exit failed: %s\n",
                     err->str().c_str());
  }
};

void armExitDrain() {
#ifdef __linux__
  thread_local bool checked = false;
  if (checked)
    return;
  checked = true;
  // Only the main thread: its thread_locals die at exit(), another thread's
  // when that thread ends (which must not wait for the engine).
  if (::gettid() != ::getpid())
    return;
  thread_local MainThreadExitDrain drain;
  (void)drain;
#endif
}
} // namespace

Engine &defaultEngine() {
  // Created on first use and destroyed at exit (which waits for every pushed
  // operation).
  static DefaultEngineHolder holder = [] {
    // The thread budget first: OpenBLAS gets its kernel threads before any
    // operation can run.
    initThreadBudget();
    EngineOptions opts = EngineOptions::fromEnvironment();
    std::unique_ptr<Engine> e = createEngine(opts);
    if (!e) {
      std::fprintf(stderr, "mxc: unknown MXC_ENGINE='%s', using 'threaded'\n",
                   opts.kind.c_str());
      opts.kind = "threaded";
      e = createEngine(opts);
    }
    currentDefault.store(e.get());
    return DefaultEngineHolder{std::move(e)};
  }();
  armExitDrain();
  return *holder.engine;
}

Engine *defaultEngineIfCreated() { return currentDefault.load(); }

} // namespace mxc::runtime
