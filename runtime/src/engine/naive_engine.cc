// naive_engine.cc - the engine for debugging (MXNet's NaiveEngine): every
// operation runs inside pushAsync, in the caller's thread, one at a time and
// in push order; an asynchronous operation is waited for before pushAsync
// returns. Failures are tracked per variable exactly as in the threaded
// engine, so both engines give the same results and the same errors.
#include "engine_impl.h"

#include "mxc/runtime/profiler.h"

#include <atomic>
#include <condition_variable>

namespace mxc::runtime {

namespace {

class NaiveEngine final : public Engine {
public:
  ~NaiveEngine() override = default;

  VarHandle newVar() override { return new EngineVar(); }

  void deleteVar(VarHandle var, std::function<void()> onDelete = nullptr) override {
    // Every operation pushed so far has finished: delete it now.
    std::lock_guard<std::recursive_mutex> lock(runMu_);
    if (onDelete) {
      try {
        onDelete();
      } catch (...) {
      }
    }
    delete var;
  }

  void pushAsync(AsyncFn fn, Device device, std::vector<VarHandle> reads,
                 std::vector<VarHandle> writes, FnProperty prop, int priority,
                 std::string name) override;

  int numCpuWorkers() const override { return 0; }

  std::optional<EngineError> waitForVar(VarHandle var) override {
    std::lock_guard<std::recursive_mutex> runLock(runMu_);
    std::lock_guard<std::mutex> lock(var->mu);
    return detail::reportVarError(var->error);
  }

  std::optional<EngineError> waitForAll() override {
    std::lock_guard<std::recursive_mutex> runLock(runMu_);
    return failures_.takeFirstUnreported();
  }

  size_t numPending() const override { return running_.load(); }

private:
  void finish(const std::vector<VarHandle> &writes, const detail::ErrorPtr &error) {
    for (VarHandle var : writes) {
      std::lock_guard<std::mutex> lock(var->mu);
      var->error = error;
      ++var->version;
    }
    if (error)
      failures_.record(error);
  }

  /// Held while an operation runs: operations never overlap, even when
  /// several threads push. Recursive so that an operation may push.
  std::recursive_mutex runMu_;
  std::atomic<size_t> running_{0};
  std::atomic<uint64_t> nextSeq_{0}; ///< failures in the order they ran (= pushed)
  detail::FailureLog failures_;
};

/// The completion of one asynchronous call: `done` may be called from any
/// thread, and late or repeated calls are harmless.
struct Completion {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::string error;
  /// The profiler was active at the op's start: `done` notes the end time.
  bool profiled = false;
  uint64_t endNs = 0;
};

void NaiveEngine::pushAsync(AsyncFn fn, Device device, std::vector<VarHandle> reads,
                            std::vector<VarHandle> writes, FnProperty /*prop*/,
                            int /*priority*/, std::string name) {
  detail::normalizeVarSets(reads, writes);
  std::lock_guard<std::recursive_mutex> runLock(runMu_);
  ++running_;
  struct Decrement {
    std::atomic<size_t> &n;
    ~Decrement() { --n; }
  } decrement{running_};

  // An operation that reads a failed var is skipped and fails the same way.
  for (VarHandle var : reads) {
    detail::ErrorPtr inherited;
    {
      std::lock_guard<std::mutex> lock(var->mu);
      inherited = var->error;
    }
    if (inherited) {
      finish(writes, inherited);
      return;
    }
  }

  auto completion = std::make_shared<Completion>();
  int32_t profTid = 0;
  uint64_t profStartNs = 0;
  if (Profiler::active()) {
    completion->profiled = true;
    profTid = Profiler::threadId();
    profStartNs = Profiler::nowNs();
  }
  CompleteCallback done = [completion](const std::string &error) {
    std::lock_guard<std::mutex> lock(completion->mu);
    if (completion->done)
      return;
    completion->done = true;
    completion->error = error;
    if (completion->profiled)
      completion->endNs = Profiler::nowNs();
    completion->cv.notify_all();
  };
  try {
    fn(RunContext{device}, done);
  } catch (...) {
    done(detail::currentExceptionMessage());
  }
  std::string error;
  uint64_t profEndNs = 0;
  {
    std::unique_lock<std::mutex> lock(completion->mu);
    completion->cv.wait(lock, [&] { return completion->done; });
    error = std::move(completion->error);
    profEndNs = completion->endNs;
  }
  if (completion->profiled)
    Profiler::get().record(Profiler::Event{name, device, profTid, profStartNs, profEndNs});
  detail::ErrorPtr failure;
  if (!error.empty())
    failure = std::make_shared<const detail::Failure>(EngineError{std::move(name), std::move(error)},
                                                        nextSeq_.fetch_add(1));
  finish(writes, failure);
}

const bool kRegistered = (registerEngine("naive",
                                         [](const EngineOptions &) -> std::unique_ptr<Engine> {
                                           return std::make_unique<NaiveEngine>();
                                         }),
                          true);

} // namespace

void detail::linkNaiveEngine() {}

} // namespace mxc::runtime
