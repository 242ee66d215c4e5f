// engine.h - the dependency engine (MXNet's include/mxnet/engine.h, in the
// shape of the paper): every operation declares the variables it reads and
// the ones it writes; reads of a variable run concurrently, a write waits for
// all earlier reads and writes of that variable and blocks later ones.
//
// Plain C++17: nothing here may include LLVM or MLIR.
#ifndef MXC_RUNTIME_ENGINE_H
#define MXC_RUNTIME_ENGINE_H

#include "mxc/runtime/api.h"
#include "mxc/runtime/device.h"
#include "mxc/runtime/threads.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mxc::runtime {

/// A variable the engine tracks (an array's storage, a KVStore slot, the RNG
/// state). Opaque; created and deleted by the engine.
struct EngineVar;
using VarHandle = EngineVar *;

/// What an operation is given when it runs.
struct RunContext {
  Device device;
};

/// Called exactly once when an asynchronous operation has finished; `error`
/// empty on success, else the failure message.
using CompleteCallback = std::function<void(const std::string &error)>;

/// An asynchronous operation: must eventually call `done` (from any thread).
using AsyncFn = std::function<void(RunContext, CompleteCallback done)>;
/// A synchronous operation: returns when finished; throwing (any exception)
/// marks it failed.
using SyncFn = std::function<void(RunContext)>;

/// Which pool runs an operation on its device.
enum class FnProperty {
  Normal,        ///< compute work
  CopyFromGPU,   ///< device -> host copies (GPU issue)
  CopyToGPU,     ///< host -> device copies (GPU issue)
  CPUPrioritized,///< latency-critical work (KVStore push/pull), own pool
  Async,         ///< the function itself only starts asynchronous work
  /// Small CPU compute work (an imperative op on a tiny array): when its
  /// variables are ready at push time it runs at once on the pushing thread,
  /// as if on a worker (no hand-off, no worker wake-up, which costs more than
  /// the work); otherwise it waits and runs on the Normal pool.
  Light,
};

/// Engine options; the environment variables override the defaults
/// (fromEnvironment; docs/runtime.md, "Threads").
struct MXC_RUNTIME_API EngineOptions {
  std::string kind = "threaded";
  /// CPU worker threads (MXNet's default, 1: its kernels get every core).
  int cpuWorkers = kDefaultCpuWorkers;
  int priorityWorkers = kDefaultPriorityWorkers;
  /// Operations pushed but not finished before pushAsync blocks (back-pressure).
  size_t maxInFlight = 1 << 16;
  /// Worker threads per GPU for compute and for each copy direction (the GPU
  /// issue fills these pools; MXC_GPU_WORKER_NTHREADS, MXC_GPU_COPY_NTHREADS).
  int gpuWorkers = 2;
  int gpuCopyWorkers = 1;
  /// Whether the threaded engine orders GPU operations on different streams
  /// with CUDA events instead of waiting for the device after each one
  /// (MXC_ENGINE_GPU_EVENTS=0 turns it off; docs/gpu.md, "Streams and events").
  bool gpuEvents = true;
  /// With more than one CPU worker, whether a worker with nothing to run
  /// helps the parallel loop of another worker's step (docs/runtime.md,
  /// "Threads": work-sharing; MXC_ENGINE_SHARE_LOOPS=0 turns it off).
  bool shareKernelLoops = true;
  /// The defaults above, overridden by the thread budget's variables
  /// (threads.h: MXC_ENGINE or MXNET_ENGINE_TYPE, MXC_ or
  /// MXNET_CPU_WORKER_NTHREADS, MXC_ or MXNET_CPU_PRIORITY_NTHREADS; an
  /// MXC_* name wins), MXC_ENGINE_MAX_INFLIGHT (0: no bound),
  /// MXC_GPU_WORKER_NTHREADS, MXC_GPU_COPY_NTHREADS, MXC_ENGINE_GPU_EVENTS
  /// and MXC_ENGINE_SHARE_LOOPS. A malformed value is
  /// ignored with a warning on stderr.
  static EngineOptions fromEnvironment();
};

/// The failure an operation reported, surfaced where its results are waited
/// for: it names the operation.
struct EngineError {
  std::string opName;
  std::string message;
  std::string str() const { return "operation '" + opName + "' failed: " + message; }
};

class MXC_RUNTIME_API Engine {
public:
  virtual ~Engine();

  /// A new variable, ready (no pending operation).
  virtual VarHandle newVar() = 0;
  /// Deletes `var` once every operation pushed on it so far has finished,
  /// running `onDelete` first if given (MXNet's DeleteVariable: an array's
  /// storage is given back in the same operation that deletes its variable).
  /// An exception from `onDelete` is swallowed.
  virtual void deleteVar(VarHandle var, std::function<void()> onDelete = nullptr) = 0;

  /// Schedules `fn` after every earlier write of `reads` and every earlier
  /// read or write of `writes`; `reads` and `writes` must be disjoint and free
  /// of duplicates. Returns at once (or blocks while maxInFlight operations
  /// are pending). Higher `priority` runs first among ready operations.
  /// (The engines tolerate duplicates, and a var in both sets counts as
  /// written; a null var throws std::invalid_argument. Operations may push
  /// operations; they are never blocked by back-pressure. The engine owns
  /// `fn` and destroys it before the op counts as finished.)
  virtual void pushAsync(AsyncFn fn, Device device,
                         std::vector<VarHandle> reads,
                         std::vector<VarHandle> writes,
                         FnProperty prop = FnProperty::Normal,
                         int priority = 0, std::string name = "") = 0;
  /// pushAsync for a function that finishes when it returns.
  void pushSync(SyncFn fn, Device device, std::vector<VarHandle> reads,
                std::vector<VarHandle> writes,
                FnProperty prop = FnProperty::Normal, int priority = 0,
                std::string name = "");

  /// Blocks until every operation pushed so far that writes `var` has
  /// finished. If one of them (or one it depended on through `var`) failed,
  /// returns that error; the variable stays failed until written again
  /// successfully.
  virtual std::optional<EngineError> waitForVar(VarHandle var) = 0;
  /// Blocks until every pushed operation has finished; returns the first
  /// error of an operation that failed since the last waitForAll, if any.
  /// (Called from inside an operation of the threaded engine, waitForVar and
  /// waitForAll return an error at once instead of waiting for themselves.)
  virtual std::optional<EngineError> waitForAll() = 0;

  /// Operations pushed and not yet finished.
  virtual size_t numPending() const = 0;
  /// Worker threads of the CPU compute pool (0: the naive engine, which
  /// runs every operation on the pushing thread).
  virtual int numCpuWorkers() const = 0;
};

/// Creates an engine of `opts.kind` ("naive": runs each op at push time;
/// "threaded": per-device worker pools). Engines register with a factory;
/// an unknown kind returns nullptr. The caller owns the engine; destroying it
/// waits for every pushed operation.
MXC_RUNTIME_API std::unique_ptr<Engine> createEngine(const EngineOptions &opts);

/// Makes `kind` available to createEngine (each engine's source file
/// registers itself at load time). A second registration of a kind replaces
/// the first.
using EngineFactory = std::unique_ptr<Engine> (*)(const EngineOptions &opts);
MXC_RUNTIME_API void registerEngine(const std::string &kind, EngineFactory factory);
/// The registered kinds, sorted.
MXC_RUNTIME_API std::vector<std::string> registeredEngines();

/// The process-wide engine, created from the environment on first use.
MXC_RUNTIME_API Engine &defaultEngine();
/// The default engine if it has been created and is not being destroyed
/// (at exit), else null; never creates it.
MXC_RUNTIME_API Engine *defaultEngineIfCreated();

} // namespace mxc::runtime

#endif // MXC_RUNTIME_ENGINE_H
