// plan.h - execution plans (the compiler's output next to its kernels) and
// the executor that runs them on the dependency engine.
//
// A plan lists buffers (arguments, outputs, regions of one arena) and steps;
// each step calls one kernel on the buffers it reads and writes. Its text
// form ("mxc-plan 1", line-oriented) is specified in docs/runtime.md, section
// "Plan format"; Plan::parse validates it completely, so a bad plan is an
// error with a line number, never a crash.
//
// Kernel ABI: a kernel is `void kernel(void **buffers)`, buffers[i] being the
// data pointer of the step's i-th buffer: its reads in order, then its writes
// in order. Shapes and dtypes are baked into the kernel. A kernel reports a
// failure by calling mxcKernelReportError (c_api.h) before it returns (C++
// kernels may also throw).
//
// Plain C++17: nothing here may include LLVM or MLIR.
#ifndef MXC_RUNTIME_PLAN_H
#define MXC_RUNTIME_PLAN_H

#include "mxc/runtime/api.h"
#include "mxc/runtime/compiled_module.h"
#include "mxc/runtime/device.h"
#include "mxc/runtime/dtype.h"
#include "mxc/runtime/engine.h"
#include "mxc/runtime/ndarray.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mxc::runtime {

/// The kernel ABI (see the file comment).
using KernelFn = void (*)(void **buffers);

/// Kernel symbol -> function. A value type.
class MXC_RUNTIME_API KernelTable {
public:
  KernelTable() = default;
  /// The `count` rows of a compiled module's `<entry>_kernels`
  /// (compiled_module.h).
  KernelTable(const mxc_kernel_entry *rows, size_t count);
  /// Adds or replaces `symbol`.
  void add(const std::string &symbol, KernelFn fn);
  /// The function of `symbol`; nullptr if absent.
  KernelFn find(const std::string &symbol) const;
  size_t size() const { return table_.size(); }

private:
  std::unordered_map<std::string, KernelFn> table_;
};

/// Where a plan buffer lives.
enum class BufferKind { Argument, Output, Arena };

struct PlanBuffer {
  std::string name;
  BufferKind kind = BufferKind::Arena;
  uint32_t index = 0;  ///< argument or output number
  uint64_t offset = 0; ///< arena buffers: bytes from the arena's start
  uint64_t size = 0;   ///< bytes (for every kind: numBytes(shape, dtype))
  DType dtype = DType::F32;
  Shape shape;
  int line = 0; ///< where it was declared (0 if not parsed)
};

struct PlanStep {
  std::string name;
  std::string kernel; ///< symbol in the kernel table
  Device device;
  std::vector<uint32_t> reads;  ///< indices into Plan::buffers
  std::vector<uint32_t> writes; ///< indices into Plan::buffers
  int line = 0;
};

/// A plan load failure: the 1-based line (0 when not tied to a line).
struct MXC_RUNTIME_API PlanError {
  int line = 0;
  std::string message;
  /// "line 3: unknown buffer kind 'heap'" (or the bare message for line 0).
  std::string str() const;
};

/// A parsed, validated plan.
struct MXC_RUNTIME_API Plan {
  static constexpr int kVersion = 1;

  int version = kVersion;
  uint64_t arenaBytes = 0;
  std::vector<PlanBuffer> buffers;
  std::vector<PlanStep> steps;

  /// Parses and validates `text`; with `kernels`, also checks that every
  /// step's kernel is in the table. On failure returns nullopt and fills
  /// `*error` (if non-null). Never throws for any input.
  static std::optional<Plan> parse(std::string_view text, PlanError *error,
                                   const KernelTable *kernels = nullptr);
  /// The first step whose kernel is not in `kernels`, as an error.
  std::optional<PlanError> checkKernels(const KernelTable &kernels) const;
  /// Canonical text; parse(print()) gives an equal plan (lines aside).
  std::string print() const;

  size_t numArguments() const;
  size_t numOutputs() const;
  /// Index into `buffers` of argument / output `i`.
  uint32_t argumentBuffer(size_t i) const;
  uint32_t outputBuffer(size_t i) const;
  /// The device every step runs on (cpu(0) for a plan without steps).
  Device device() const;
  /// This plan with every step on `device`: the same kernels run on
  /// another device of the kind they were compiled for (a plan compiled
  /// for the GPU, whose steps say gpu(0), on gpu(1): its kernels load on
  /// the device their step runs on). Throws Error, naming the first step,
  /// for a device of another kind.
  Plan onDevice(Device device) const;
};

MXC_RUNTIME_API bool operator==(const PlanBuffer &a, const PlanBuffer &b);
MXC_RUNTIME_API bool operator==(const PlanStep &a, const PlanStep &b);
/// Equal contents; declaration lines are not compared.
MXC_RUNTIME_API bool operator==(const Plan &a, const Plan &b);

/// Runs a plan: binds its arguments and outputs to arrays, owns its arena,
/// and pushes each step onto the engine with exactly the variables of the
/// buffers it reads and writes (an argument or output: its array's variable;
/// an arena buffer: a variable of its own, and a step writing an arena buffer
/// also writes the variables of the arena buffers overlapping it), so steps
/// that do not depend on each other run concurrently. Not thread-safe.
class MXC_RUNTIME_API Executor {
public:
  /// An executor for `plan` with `kernels`; every step's kernel must be in
  /// the table. Allocates the arena on the plan's device. Throws Error (a
  /// missing kernel: "line N: step 's': kernel 'k' is not in the kernel
  /// table"). `engine` nullptr: defaultEngine(); it must outlive the executor.
  Executor(Plan plan, KernelTable kernels, Engine *engine = nullptr);
  /// Releases the arena and its variables after the pushed steps finish.
  ~Executor();
  Executor(const Executor &) = delete;
  Executor &operator=(const Executor &) = delete;

  const Plan &plan() const { return plan_; }

  /// Binds argument `i` / output `i` to `array`, which must have the plan
  /// buffer's shape and dtype, live on the plan's device and use the
  /// executor's engine. Throws Error otherwise.
  void bindArgument(size_t i, NDArray array);
  void bindOutput(size_t i, NDArray array);
  /// Binds all arguments and outputs; `outputs` may be empty, then outputs
  /// not yet bound are allocated by push().
  void bind(const std::vector<NDArray> &arguments,
            const std::vector<NDArray> &outputs = {});
  /// Drops every bound array. Steps already pushed are unaffected: an
  /// array's storage is given back by an engine operation ordered after
  /// them, so a caller may unbind right after push().
  void unbind();

  /// Pushes every step (in plan order) and returns at once. Throws Error if
  /// an argument is unbound.
  void push();
  /// Pushes every step on `arguments` and `outputs` (all of them, checked as
  /// bind() checks them) without binding them: the executor's bindings are
  /// untouched and nothing is held after the call (an imperative
  /// operator's push). Returns at once. Not thread-safe either: concurrent
  /// calls would interleave their steps over the one arena. On a GPU plan a
  /// view at an offset that is not 16-byte aligned (x[1] of a 3x5 float32
  /// array) goes through an aligned copy on its device (copied in before the
  /// steps where it is an argument, back after them where it is an output;
  /// engine copies ordered by the variables), where bind() refuses it.
  void pushOn(const std::vector<NDArray> &arguments,
              const std::vector<NDArray> &outputs) const;
  /// push(), then waits for every buffer written; throws Error naming the
  /// first failed step: "step 's' (kernel 'k') failed: <message>". Bulk
  /// execution (MXNet's MXNET_EXEC_BULK_EXEC_INFERENCE, default on; an
  /// MXC_EXEC_BULK_EXEC_INFERENCE wins): on an engine with one CPU worker,
  /// where no two steps could run at once anyway, a plan of several CPU
  /// steps is pushed as one engine operation reading every argument and
  /// writing every output and arena buffer, which runs the steps in plan
  /// order (on the calling thread when its inputs are ready: it is Light);
  /// the first failing step ends it. A plan of several steps on one GPU
  /// runs the same way (any number of workers): the steps go onto one
  /// thread's stream without waiting for each (a stream batch) and the
  /// run waits for the device once; a fault the device reports then names
  /// the last step. Not while the profiler runs, so that a trace shows
  /// every step.
  void run();
  /// Whether run() pushes the plan as one operation (see run()).
  bool bulk() const { return bulk_; }

  /// Output `i` (allocated by push() if it was not bound).
  const NDArray &output(size_t i) const;
  const NDArray &argument(size_t i) const;
  /// The plan buffer of argument / output `i` (its shape and dtype).
  const PlanBuffer &argumentSpec(size_t i) const {
    return plan_.buffers.at(argBuffers_.at(i));
  }
  const PlanBuffer &outputSpec(size_t i) const {
    return plan_.buffers.at(outBuffers_.at(i));
  }

private:
  struct Arena;
  void pushSteps(const NDArray *arguments, const NDArray *outputs) const;
  void prepareOutputs();
  void runBulk();
  /// Each buffer's data pointer and engine variable for these arrays
  /// (per-thread scratch, valid until the next call on this thread).
  struct Resolved {
    const std::vector<void *> &data;
    const std::vector<VarHandle> &vars;
  };
  Resolved resolveBuffers(const NDArray *arguments, const NDArray *outputs) const;
  bool bulk_ = false;
  /// Bulk runs of a plan on one GPU (a stream batch around the steps).
  bool gpuBulk_ = false;
  /// Bulk runs: the buffers read and not written by any step, the buffers
  /// written (with the arena buffers overlapping them), and the steps'
  /// pointers of the current run.
  std::vector<uint32_t> bulkReadBuffers_, bulkWriteBuffers_;
  std::vector<void *> bulkPtrs_;
  Plan plan_;
  KernelTable kernels_;
  std::vector<KernelFn> stepKernels_;
  /// FnProperty::Light for a one-step plan on small buffers (an imperative
  /// op on tiny arrays), else Normal.
  FnProperty stepProp_ = FnProperty::Normal;
  Engine *engine_;
  std::vector<NDArray> arguments_, outputs_;
  std::vector<uint32_t> argBuffers_, outBuffers_; ///< plan buffer of each
  std::shared_ptr<Arena> arena_;
  /// Per buffer: the variable of its arena byte range (buffers at the same
  /// offset with the same size share one); null if not arena.
  std::vector<VarHandle> arenaVars_;
  std::vector<VarHandle> rangeVars_; ///< each distinct range's variable, once
  /// Per arena buffer: buffers of other ranges whose bytes intersect its own.
  std::vector<std::vector<uint32_t>> overlaps_;
};

/// Reports a failure of the kernel running on this thread (the kernel ABI's
/// error channel); the executor raises it when the kernel returns.
MXC_RUNTIME_API void reportKernelError(const std::string &message);
/// Whether the kernel running on this thread has reported a failure: its
/// later GPU work is skipped (a temporary the device could not allocate is
/// a null buffer no kernel may be given).
MXC_RUNTIME_API bool kernelErrorReported();

} // namespace mxc::runtime

#endif // MXC_RUNTIME_PLAN_H
