// executor.cc - runs a plan: binds arrays, owns the arena and its variables,
// pushes each step onto the engine with exactly the variables it reads and
// writes.
#include "mxc/runtime/plan.h"

#include "../env.h"
#include "mxc/runtime/profiler.h"
#include "mxc/runtime/cuda.h"

#include <algorithm>
#include <map>
#include <utility>

namespace mxc::runtime {

// cuda_device.cc's stream batches (a bulk GPU run waits once), weak: a runtime
// without the CUDA backend (a CPU model executable) does not link it, and
// has no GPU plan to batch. finish returns nullptr or the device's error.
extern "C" void mxc_cuda_stream_batch_begin(void) __attribute__((weak));
extern "C" const char *mxc_cuda_stream_batch_finish(void) __attribute__((weak));
// The device the generated code's mgpu* calls (module loads, launches,
// streams) and the cuBLAS / cuDNN kernels target on this thread
// (mgpu_wrappers.cc), weak for the same reason: set to the step's device
// before a GPU step's kernel runs.
extern "C" void mgpuSetDefaultDevice(int32_t device) __attribute__((weak));

namespace {
// The kernel ABI's error channel: set by reportKernelError on the thread that
// runs a kernel, checked by the executor when the kernel returns.
thread_local std::optional<std::string> tlsKernelError;

// Appends `v` to `vars` unless it is there already.
void addUnique(std::vector<VarHandle> &vars, VarHandle v) {
  if (std::find(vars.begin(), vars.end(), v) == vars.end())
    vars.push_back(v);
}

/// The largest one-step plan (bytes read and written) that runs inline on
/// the pushing thread: MXC_ENGINE_LIGHT_BYTES, default 64 KiB (0: never).
uint64_t lightStepBytes() {
  static const uint64_t bytes = [] {
    long long v = 64 << 10;
    detail::readEnvInteger("MXC_ENGINE_LIGHT_BYTES", 0, v);
    return uint64_t(v);
  }();
  return bytes;
}

/// MXNet's MXNET_EXEC_BULK_EXEC_INFERENCE (an MXC_ name wins): whether
/// Executor::run pushes a plan as one operation on a one-worker engine.
bool bulkInference() {
  static const bool on = [] {
    long long v = 1;
    if (!detail::readEnvInteger("MXC_EXEC_BULK_EXEC_INFERENCE", 0, v))
      detail::readEnvInteger("MXNET_EXEC_BULK_EXEC_INFERENCE", 0, v);
    return v != 0;
  }();
  return on;
}

/// The engine operation of a bulk run (Executor::run).
constexpr const char *kBulkOpName = "bulk execution";

/// What run() throws for a failed step.
OperationError stepFailed(const PlanStep &step, const std::string &message) {
  return OperationError("step '" + step.name + "' (kernel '" + step.kernel +
                        "') failed: " + message);
}
} // namespace

void reportKernelError(const std::string &message) {
  if (!tlsKernelError)
    tlsKernelError = message;
}

bool kernelErrorReported() { return tlsKernelError.has_value(); }

/// The arena's block; freed by an engine operation that writes every arena
/// variable, so after every step that used it.
struct Executor::Arena {
  Storage block;
  StorageManager *manager = nullptr;
};

Executor::Executor(Plan plan, KernelTable kernels, Engine *engine)
    : plan_(std::move(plan)), kernels_(std::move(kernels)),
      engine_(engine ? engine : &defaultEngine()) {
  if (auto err = plan_.checkKernels(kernels_))
    throw Error(err->str());
  for (const PlanStep &s : plan_.steps)
    stepKernels_.push_back(kernels_.find(s.kernel));
  // One step on small buffers: waking a worker would cost more than the
  // work, so when its inputs are ready it runs on the pushing thread. Only
  // one-step plans: the steps of a graph stay on the workers, where
  // independent ones overlap. (GPU steps stay on their device's workers.)
  if (plan_.steps.size() == 1 && plan_.device().kind == Device::Kind::CPU) {
    uint64_t bytes = 0;
    for (uint32_t b : plan_.steps[0].reads)
      bytes += plan_.buffers[b].size;
    for (uint32_t b : plan_.steps[0].writes)
      bytes += plan_.buffers[b].size;
    if (bytes <= lightStepBytes())
      stepProp_ = FnProperty::Light;
  }
  // Bulk execution for run(): several steps, every one on the CPU, and an
  // engine whose single CPU worker would run them one after another anyway.
  // Or every step on one GPU: one thread's stream runs them in order
  // either way, and the run waits for the device once (a stream batch)
  // instead of after each step.
  bool allWrite = std::all_of(plan_.steps.begin(), plan_.steps.end(),
                              [](const PlanStep &s) { return !s.writes.empty(); });
  bool allCpu = std::all_of(plan_.steps.begin(), plan_.steps.end(), [](const PlanStep &s) {
    return s.device.kind == Device::Kind::CPU;
  });
  Device firstDevice = plan_.steps.empty() ? Device::cpu() : plan_.steps.front().device;
  gpuBulk_ = firstDevice.kind == Device::Kind::GPU &&
             std::all_of(plan_.steps.begin(), plan_.steps.end(),
                         [&](const PlanStep &s) { return s.device == firstDevice; });
  bulk_ = plan_.steps.size() > 1 && bulkInference() && allWrite &&
          ((allCpu && engine_->numCpuWorkers() == 1) || gpuBulk_);
  arguments_.resize(plan_.numArguments());
  outputs_.resize(plan_.numOutputs());
  for (size_t i = 0; i < arguments_.size(); ++i)
    argBuffers_.push_back(plan_.argumentBuffer(i));
  for (size_t i = 0; i < outputs_.size(); ++i)
    outBuffers_.push_back(plan_.outputBuffer(i));

  // One variable per arena byte range: the buffers memory planning put at
  // the same offset with the same size (co-shared or in place, often dozens
  // of them for a small vector) are one storage to the engine. A buffer
  // overlaps the buffers of the other ranges that intersect its own (found
  // by a sweep over the ranges sorted by offset).
  const size_t n = plan_.buffers.size();
  arenaVars_.assign(n, nullptr);
  overlaps_.assign(n, {});
  std::map<std::pair<uint64_t, uint64_t>, uint32_t> rangeOf; // -> first buffer
  std::vector<uint32_t> order, first(n);
  for (uint32_t b = 0; b < n; ++b) {
    const PlanBuffer &buf = plan_.buffers[b];
    if (buf.kind != BufferKind::Arena)
      continue;
    auto [it, fresh] = rangeOf.try_emplace({buf.offset, buf.size}, b);
    first[b] = it->second;
    if (fresh) {
      arenaVars_[b] = engine_->newVar();
      rangeVars_.push_back(arenaVars_[b]);
      order.push_back(b);
    } else {
      arenaVars_[b] = arenaVars_[it->second];
    }
  }
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return plan_.buffers[a].offset < plan_.buffers[b].offset;
  });
  for (size_t i = 0; i < order.size(); ++i) {
    const PlanBuffer &a = plan_.buffers[order[i]];
    for (size_t j = i + 1; j < order.size(); ++j) {
      const PlanBuffer &b = plan_.buffers[order[j]];
      if (b.offset >= a.offset + a.size)
        break;
      if (b.size == 0)
        continue;
      overlaps_[order[i]].push_back(order[j]);
      overlaps_[order[j]].push_back(order[i]);
    }
  }
  for (uint32_t b = 0; b < n; ++b)
    if (arenaVars_[b] && first[b] != b)
      overlaps_[b] = overlaps_[first[b]];
  if (bulk_) {
    // By variable: a buffer stands for its range (the range's first buffer).
    auto rep = [&](uint32_t b) { return arenaVars_[b] ? first[b] : b; };
    std::vector<char> written(n, 0), listed(n, 0);
    for (const PlanStep &step : plan_.steps)
      for (uint32_t b : step.writes) {
        written[rep(b)] = 1;
        for (uint32_t o : overlaps_[b])
          written[rep(o)] = 1;
      }
    for (uint32_t b = 0; b < n; ++b)
      if (written[b])
        bulkWriteBuffers_.push_back(b);
    for (const PlanStep &step : plan_.steps)
      for (uint32_t b : step.reads)
        if (!written[rep(b)] && !listed[rep(b)]) {
          listed[rep(b)] = 1;
          bulkReadBuffers_.push_back(rep(b));
        }
  }

  // The arena last: if it cannot be had, the variables go again.
  try {
    auto arena = std::make_shared<Arena>();
    arena->manager = &storageManager(plan_.device());
    arena->block = arena->manager->allocate(plan_.arenaBytes);
    arena_ = std::move(arena);
  } catch (...) {
    for (VarHandle v : rangeVars_)
      engine_->deleteVar(v);
    throw;
  }
}

Executor::~Executor() {
  const std::vector<VarHandle> &vars = rangeVars_;
  try {
    std::shared_ptr<Arena> arena = arena_;
    engine_->pushSync(
        [arena](RunContext) { arena->manager->release(arena->block); },
        plan_.device(), {}, vars, FnProperty::Normal, 0, "free arena");
    for (VarHandle v : vars)
      engine_->deleteVar(v);
  } catch (...) {
    // The engine refused (it is shutting down): leak rather than free memory
    // a step may still use.
  }
}

// Checks that `array` may stand for plan buffer `b`; `what` names it.
static void checkBinding(const Plan &plan, const PlanBuffer &b,
                         const NDArray &array, Engine *engine,
                         const std::string &what) {
  if (array.isNone())
    throw Error("bind " + what + ": none array");
  if (array.shape() != b.shape || array.dtype() != b.dtype)
    throw Error("bind " + what + " '" + b.name + "': the plan wants " +
                shapeStr(b.shape) + " " + dtypeName(b.dtype) + ", the array is " +
                shapeStr(array.shape()) + " " + dtypeName(array.dtype()));
  // A CPU plan runs on any host memory (cpu_pinned arrays too); and the
  // driver double's device memory is host memory: a CPU plan may run on its
  // arrays, see cuda.h.
  const bool hostPlan = plan.device().kind == Device::Kind::CPU;
  if (array.device() != plan.device() && !(hostPlan && array.device().isHost()) &&
      !(array.device().kind == Device::Kind::GPU && hostPlan &&
        cuda::deviceMemoryIsHostMemory(array.device().id)))
    throw Error("bind " + what + " '" + b.name + "': the array is on " +
                array.device().str() + ", the plan runs on " +
                plan.device().str());
  if (&array.engine() != engine)
    throw Error("bind " + what + " '" + b.name +
                "': the array belongs to another engine");
  // GPU kernels read and write 16 bytes at a time (docs/gpu.md): a view at
  // an unaligned offset cannot be bound.
  if (plan.device().kind == Device::Kind::GPU &&
      reinterpret_cast<uintptr_t>(array.data()) % 16 != 0)
    throw Error("bind " + what + " '" + b.name +
                "': a GPU plan needs 16-byte aligned buffers (the array is a view at an "
                "unaligned offset)");
}

void Executor::bindArgument(size_t i, NDArray array) {
  if (i >= arguments_.size())
    throw Error("bind: the plan has " + std::to_string(arguments_.size()) +
                " arguments, not " + std::to_string(i + 1));
  checkBinding(plan_, plan_.buffers[argBuffers_[i]], array, engine_,
               "argument " + std::to_string(i));
  arguments_[i] = std::move(array);
}

void Executor::bindOutput(size_t i, NDArray array) {
  if (i >= outputs_.size())
    throw Error("bind: the plan has " + std::to_string(outputs_.size()) +
                " outputs, not " + std::to_string(i + 1));
  checkBinding(plan_, plan_.buffers[outBuffers_[i]], array, engine_,
               "output " + std::to_string(i));
  outputs_[i] = std::move(array);
}

void Executor::bind(const std::vector<NDArray> &arguments,
                    const std::vector<NDArray> &outputs) {
  if (arguments.size() != arguments_.size())
    throw Error("bind: the plan has " + std::to_string(arguments_.size()) +
                " arguments, " + std::to_string(arguments.size()) + " given");
  if (!outputs.empty() && outputs.size() != outputs_.size())
    throw Error("bind: the plan has " + std::to_string(outputs_.size()) +
                " outputs, " + std::to_string(outputs.size()) + " given");
  for (size_t i = 0; i < arguments.size(); ++i)
    bindArgument(i, arguments[i]);
  for (size_t i = 0; i < outputs.size(); ++i)
    bindOutput(i, outputs[i]);
}

void Executor::unbind() {
  for (NDArray &a : arguments_)
    a = NDArray();
  for (NDArray &a : outputs_)
    a = NDArray();
}

void Executor::push() {
  prepareOutputs();
  pushSteps(arguments_.data(), outputs_.data());
}

void Executor::prepareOutputs() {
  for (size_t i = 0; i < arguments_.size(); ++i)
    if (arguments_[i].isNone())
      throw Error("run: argument " + std::to_string(i) + " ('" +
                  plan_.buffers[argBuffers_[i]].name +
                  "') is not bound");
  for (size_t i = 0; i < outputs_.size(); ++i)
    if (outputs_[i].isNone()) {
      const PlanBuffer &b = plan_.buffers[outBuffers_[i]];
      outputs_[i] = NDArray(b.shape, b.dtype, plan_.device(), engine_);
    }
}

void Executor::pushOn(const std::vector<NDArray> &arguments,
                      const std::vector<NDArray> &outputs) const {
  if (arguments.size() != arguments_.size() || outputs.size() != outputs_.size())
    throw Error("push: the plan has " + std::to_string(arguments_.size()) +
                " arguments and " + std::to_string(outputs_.size()) +
                " outputs, " + std::to_string(arguments.size()) + " and " +
                std::to_string(outputs.size()) + " given");
  auto checkAndPush = [&](const std::vector<NDArray> &args, const std::vector<NDArray> &outs) {
    for (size_t i = 0; i < args.size(); ++i)
      checkBinding(plan_, plan_.buffers[argBuffers_[i]], args[i], engine_,
                   "argument " + std::to_string(i));
    for (size_t i = 0; i < outs.size(); ++i)
      checkBinding(plan_, plan_.buffers[outBuffers_[i]], outs[i], engine_,
                   "output " + std::to_string(i));
    pushSteps(args.data(), outs.data());
  };
  // GPU kernels read and write 16 bytes at a time (docs/gpu.md): a view at
  // an unaligned offset goes through an aligned copy on its device. One
  // array given several times (an in-place pair: the plan's output is its
  // argument's buffer) is one copy.
  auto unaligned = [](const NDArray &a) {
    return !a.isNone() && a.device().kind == Device::Kind::GPU &&
           reinterpret_cast<uintptr_t>(a.data()) % 16 != 0;
  };
  if (plan_.device().kind != Device::Kind::GPU ||
      (std::none_of(arguments.begin(), arguments.end(), unaligned) &&
       std::none_of(outputs.begin(), outputs.end(), unaligned))) {
    checkAndPush(arguments, outputs);
    return;
  }
  std::vector<std::pair<NDArray, NDArray>> copies; // (view, aligned copy)
  auto staged = [&](const NDArray &a, bool read) {
    if (!unaligned(a))
      return a;
    for (auto &[view, copy] : copies)
      if (view.data() == a.data() && view.shape() == a.shape() && view.dtype() == a.dtype())
        return copy;
    NDArray copy(a.shape(), a.dtype(), a.device(), engine_);
    if (read)
      a.copyTo(copy);
    copies.emplace_back(a, copy);
    return copy;
  };
  std::vector<NDArray> args, outs;
  for (const NDArray &a : arguments)
    args.push_back(staged(a, true));
  for (const NDArray &o : outputs)
    outs.push_back(staged(o, false));
  checkAndPush(args, outs);
  for (size_t i = 0; i < outputs.size(); ++i)
    if (unaligned(outputs[i]) &&
        std::none_of(outputs.begin(), outputs.begin() + i,
                     [&](const NDArray &o) { return o.data() == outputs[i].data(); }))
      outs[i].copyTo(outputs[i]);
}

Executor::Resolved Executor::resolveBuffers(const NDArray *arguments,
                                            const NDArray *outputs) const {
  // Scratch kept per thread: an imperative op pushes a one-step plan per
  // call.
  const size_t n = plan_.buffers.size();
  thread_local std::vector<void *> data;
  thread_local std::vector<VarHandle> vars;
  data.assign(n, nullptr);
  vars.assign(n, nullptr);
  char *base = static_cast<char *>(arena_->block.data);
  for (size_t b = 0; b < n; ++b) {
    const PlanBuffer &buf = plan_.buffers[b];
    switch (buf.kind) {
    case BufferKind::Argument:
      data[b] = arguments[buf.index].data();
      vars[b] = arguments[buf.index].var();
      break;
    case BufferKind::Output:
      data[b] = outputs[buf.index].data();
      vars[b] = outputs[buf.index].var();
      break;
    case BufferKind::Arena:
      data[b] = base + buf.offset;
      vars[b] = arenaVars_[b];
      break;
    }
  }
  return {data, vars};
}

void Executor::pushSteps(const NDArray *arguments, const NDArray *outputs) const {
  const auto [data, vars] = resolveBuffers(arguments, outputs);

  for (size_t s = 0; s < plan_.steps.size(); ++s) {
    const PlanStep &step = plan_.steps[s];
    std::vector<void *> ptrs;
    ptrs.reserve(step.reads.size() + step.writes.size());
    std::vector<VarHandle> reads, writes;
    for (uint32_t b : step.reads)
      ptrs.push_back(data[b]);
    for (uint32_t b : step.writes) {
      ptrs.push_back(data[b]);
      addUnique(writes, vars[b]);
      for (uint32_t o : overlaps_[b])
        addUnique(writes, vars[o]);
    }
    for (uint32_t b : step.reads)
      if (std::find(writes.begin(), writes.end(), vars[b]) == writes.end())
        addUnique(reads, vars[b]);
    KernelFn fn = stepKernels_[s];
    int gpu = step.device.kind == Device::Kind::GPU ? step.device.id : -1;
    engine_->pushSync(
        [fn, gpu, ptrs = std::move(ptrs)](RunContext) mutable {
          tlsKernelError.reset();
          if (gpu >= 0 && mgpuSetDefaultDevice)
            mgpuSetDefaultDevice(gpu);
          fn(ptrs.data());
          if (tlsKernelError) {
            std::string msg = std::move(*tlsKernelError);
            tlsKernelError.reset();
            throw Error(msg);
          }
        },
        step.device, std::move(reads), std::move(writes), stepProp_, 0,
        step.name);
  }
}

void Executor::runBulk() {
  prepareOutputs();
  const auto [data, vars] = resolveBuffers(arguments_.data(), outputs_.data());
  // Every step's pointers, one after another (kept: a warm run allocates
  // no buffer-sized memory); the operation reads what no step writes and
  // writes everything written (the engine drops duplicate variables).
  bulkPtrs_.clear();
  for (const PlanStep &step : plan_.steps) {
    for (uint32_t b : step.reads)
      bulkPtrs_.push_back(data[b]);
    for (uint32_t b : step.writes)
      bulkPtrs_.push_back(data[b]);
  }
  std::vector<VarHandle> reads, writes;
  reads.reserve(bulkReadBuffers_.size());
  writes.reserve(bulkWriteBuffers_.size());
  for (uint32_t b : bulkReadBuffers_)
    reads.push_back(vars[b]);
  for (uint32_t b : bulkWriteBuffers_)
    writes.push_back(vars[b]);
  VarHandle waitOn = writes.front(); // not empty: every step writes (bulk_)
  // A failing step ends the run. The operation itself succeeds and pushes
  // one named after the step that fails every variable the run writes, so
  // that waits on them (and waitForAll) report the step, as step-by-step
  // execution does; run() reads the failure from here.
  auto failure = std::make_shared<std::optional<std::pair<size_t, std::string>>>();
  engine_->pushSync(
      [this, failure, writes](RunContext) {
        auto fail = [&](size_t s, std::string msg) {
          *failure = std::make_pair(s, msg);
          engine_->pushSync([msg](RunContext) { throw Error(msg); }, plan_.steps[s].device, {},
                            writes, FnProperty::Normal, 0, plan_.steps[s].name);
        };
        // A GPU plan's steps leave the stream running; the run waits once.
        bool batched = gpuBulk_ && mxc_cuda_stream_batch_begin && mxc_cuda_stream_batch_finish;
        if (batched)
          mxc_cuda_stream_batch_begin();
        if (gpuBulk_ && mgpuSetDefaultDevice)
          mgpuSetDefaultDevice(plan_.device().id);
        void **at = bulkPtrs_.data();
        for (size_t s = 0; s < plan_.steps.size(); ++s) {
          const PlanStep &step = plan_.steps[s];
          tlsKernelError.reset();
          try {
            stepKernels_[s](at);
          } catch (const std::exception &e) {
            tlsKernelError = e.what();
          }
          at += step.reads.size() + step.writes.size();
          if (tlsKernelError) {
            std::string msg = std::move(*tlsKernelError);
            tlsKernelError.reset();
            if (batched)
              mxc_cuda_stream_batch_finish(); // waits; the step's failure is reported
            return fail(s, msg);
          }
        }
        if (batched)
          if (const char *err = mxc_cuda_stream_batch_finish())
            // A kernel's fault shows when the run waits for the device: it
            // is one of the steps, the last is named.
            return fail(plan_.steps.size() - 1,
                        std::string("the GPU reported at the end of the bulk run (run with "
                                    "MXC_EXEC_BULK_EXEC_INFERENCE=0 to find the step): ") +
                            err);
      },
      plan_.device(), std::move(reads), std::move(writes), FnProperty::Light, 0,
      kBulkOpName);
  std::optional<EngineError> err = engine_->waitForVar(waitOn);
  if (*failure) {
    throw stepFailed(plan_.steps[(*failure)->first], (*failure)->second);
  }
  if (err) {
    // On a GPU the run leaves its work running (an event, engine/gpu_sync.h):
    // a fault the device reports shows at this wait, for the whole run.
    if (gpuBulk_ && err->opName == kBulkOpName)
      throw OperationError(err->str() + " (run with MXC_EXEC_BULK_EXEC_INFERENCE=0 to find the step)");
    throw OperationError(err->str()); // an input had failed before the run
  }
}

void Executor::run() {
  if (bulk_ && !Profiler::active()) {
    runBulk();
    return;
  }
  push();
  // Every step writes a buffer: waiting for each written variable, in step
  // order, waits for all of them and finds the earliest failure first.
  std::vector<VarHandle> written;
  for (const PlanStep &step : plan_.steps)
    for (uint32_t b : step.writes) {
      const PlanBuffer &buf = plan_.buffers[b];
      VarHandle v = buf.kind == BufferKind::Argument ? arguments_[buf.index].var()
                    : buf.kind == BufferKind::Output ? outputs_[buf.index].var()
                                                     : arenaVars_[b];
      addUnique(written, v);
    }
  std::optional<EngineError> first;
  for (VarHandle v : written) {
    auto err = engine_->waitForVar(v);
    if (err && !first)
      first = std::move(err);
  }
  if (!first)
    return;
  for (const PlanStep &step : plan_.steps)
    if (step.name == first->opName)
      throw stepFailed(step, first->message);
  throw OperationError(first->str());
}

const NDArray &Executor::output(size_t i) const {
  if (i >= outputs_.size())
    throw Error("the plan has no output " + std::to_string(i));
  return outputs_[i];
}

const NDArray &Executor::argument(size_t i) const {
  if (i >= arguments_.size())
    throw Error("the plan has no argument " + std::to_string(i));
  return arguments_[i];
}

} // namespace mxc::runtime
