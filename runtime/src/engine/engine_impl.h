// engine_impl.h - what the engines share: the variable record, the failure
// record, and the normalisation of read/write sets.
//
// Plain C++17: nothing here may include LLVM or MLIR.
#ifndef MXC_RUNTIME_ENGINE_ENGINE_IMPL_H
#define MXC_RUNTIME_ENGINE_ENGINE_IMPL_H

#include "gpu_sync.h"
#include "mxc/runtime/engine.h"

#include <exception>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mxc::runtime {

namespace detail {
struct OprBlock;

/// One operation waiting in a variable's queue. Each OprBlock owns one of
/// these per variable it uses, so queueing allocates nothing.
struct VarWaiter {
  OprBlock *opr = nullptr;
  bool write = false;
  VarWaiter *next = nullptr;
};

/// A failure shared by the op that failed, the vars it wrote and every op
/// skipped because of it (MXNet's ExceptionRef). `reported`: a wait has
/// returned it (waitForVar, or waitForAll).
struct Failure : EngineError {
  Failure(EngineError e, uint64_t pushSeq) : EngineError(std::move(e)), seq(pushSeq) {}
  /// The failed operation's push order: waitForAll reports the failure
  /// pushed first, however the workers happened to finish.
  uint64_t seq;
  mutable std::atomic<bool> reported{false};
};
using ErrorPtr = std::shared_ptr<const Failure>;

/// What waitForAll reports: MXNet's global exception list. The first
/// (in push order) failure since the last waitForAll that no wait has reported yet: a failure
/// that waitForVar returned (an `asnumpy()` that raised) is not raised again
/// by the next waitForAll, as in MXNet, where one failure raises once. A
/// variable keeps its failure after a wait, though (MXNet clears it on the
/// first report): a failed array never reads as data.
class FailureLog {
public:
  /// Notes `f` (once, however many skipped operations inherit it).
  void record(const ErrorPtr &f);
  /// The first failure to report, marking every noted one reported, and
  /// forgetting them.
  std::optional<EngineError> takeFirstUnreported();

private:
  /// At most this many failures are kept between two waitForAll calls (the
  /// reported ones are dropped first): a loop of failing operations that
  /// nothing waits for holds bounded memory; the first ones are kept.
  static constexpr size_t kMaxKept = 1024;
  std::mutex mu_;
  std::vector<ErrorPtr> entries_;
};

/// A variable's failure as a wait returns it (marked reported), or nullopt.
inline std::optional<EngineError> reportVarError(const ErrorPtr &f) {
  if (!f)
    return std::nullopt;
  f->reported.store(true);
  return EngineError(*f);
}

/// The message of the exception in flight (call inside a catch block only);
/// never empty, since an empty message means success to a CompleteCallback.
std::string currentExceptionMessage();

/// Removes duplicates from `writes`, then from `reads` every duplicate and
/// every var that is also written (an op that reads and writes a var is a
/// writer of it), keeping the first occurrence's order. Throws
/// std::invalid_argument on a null var.
void normalizeVarSets(std::vector<VarHandle> &reads, std::vector<VarHandle> &writes);

/// Defined beside each engine's registration; createEngine calls them so that
/// a static link (the AOT model runtime archive) keeps every engine.
void linkNaiveEngine();
void linkThreadedEngine();
} // namespace detail

/// A variable. The naive engine uses only `mu` and `error`; the threaded
/// engine keeps its versioned queue here (MXNet's ThreadedVar): reads that
/// are granted run together, a write is granted alone, and waiting ops form
/// a FIFO whose head, if any, is always a write.
struct EngineVar {
  std::mutex mu;
  /// The failure of the last write, or null: ops reading the var are skipped
  /// while it is set; a successful write clears it. Guarded by `mu`.
  detail::ErrorPtr error;

  // Threaded engine only, all guarded by `mu`.
  int runningReads = 0;      ///< reads granted and not yet completed
  bool writeRunning = false; ///< a write is granted and not yet completed
  detail::VarWaiter *head = nullptr; ///< ops waiting, oldest first
  detail::VarWaiter *tail = nullptr;
  uint64_t version = 0; ///< completed writes
  /// GPU events (gpu_sync.h): where the device will have finished the last
  /// write, and the reads since, that the engine has already marked done.
  /// Null / empty when the device has nothing left of them (or no GPU ever
  /// touched the variable). At most one read event a stream: a later event
  /// on a stream covers an earlier one.
  detail::GpuEventPtr gpuWrite;
  std::vector<detail::GpuEventPtr> gpuReads;
};

} // namespace mxc::runtime

#endif // MXC_RUNTIME_ENGINE_ENGINE_IMPL_H
