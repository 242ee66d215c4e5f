//===- JIT.cpp - compile a graph to a callable, with a cache --------------===//
//
// Every compile ends in an object file (emitObjectFile); the object is
// linked into its own ORC LLJIT. The disk cache stores that object, so a hit
// skips MLIR lowering and LLVM code generation entirely and takes the same
// loading path as a miss.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/JIT.h"
#include "mxc/Compiler/KernelCodegen.h"
#include "mxc/Dialect/MX/IR/MXOpTable.h"
#include "mxc/runtime/compiled_module.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <mutex>

using namespace mlir;
using namespace mxc;

namespace mxc {
/// The JIT that owns the code, the plan and the kernel table.
class CompiledGraphImpl {
public:
  EntrySignature signature;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  /// The fast tier's JIT after a tier-up: executors made before it may
  /// still be running its kernels.
  std::vector<std::unique_ptr<llvm::orc::LLJIT>> retiredJits;
  runtime::Plan plan;
  /// The kernels of `jit`; replaced (under poolMutex) by a tier-up.
  runtime::KernelTable kernels;
  /// `<entry>_arena_size`: bytes of the plan's arena.
  int64_t arenaBytes = 0;

  /// Executors of the plan (each owns an arena): a call takes one from the
  /// pool, or makes one, and puts it back, so concurrent calls never share
  /// an arena and a warm graph allocates no arena per call.
  /// An executor with the caller's buffers of its last call still bound:
  /// a call whose pointer for an argument or output is the one bound before
  /// keeps that binding (weights are the same memory call after call), so a
  /// warm call makes no engine variables. The wrappers own nothing; the
  /// call waits for every step, so nothing is pending on them in between.
  struct Pooled {
    std::unique_ptr<runtime::Executor> executor;
    std::vector<const void *> inputs, outputs;
    uint64_t generation = 0; ///< of the kernels it was made with
    runtime::Device device;  ///< where its plan runs
    /// A plan on a GPU: the arrays bound there, which run() fills from
    /// and copies back to the caller's host buffers.
    std::vector<runtime::NDArray> deviceInputs, deviceOutputs;
  };
  std::mutex poolMutex;
  std::vector<std::unique_ptr<Pooled>> pool;
  /// Bumped by a tier-up: pooled executors of an older one are dropped.
  uint64_t generation = 0;

  /// Tiered compilation (JITOptions::tiered): while the kernels are the
  /// fast tier's, the LLVM module's bitcode (before optimisation) and what
  /// the recompile needs; the bitcode is emptied by the one tier-up try.
  std::mutex tierMutex;
  std::atomic<bool> fastTier{false};
  std::string tierBitcode;
  ResolvedTarget tierTarget;
  unsigned tierOptLevel = 3;
  std::string tierEntry; ///< the pipeline's entry symbol
  std::string tierCachePath; ///< where the recompiled object goes, if any
  std::atomic<int64_t> runNs{0}, pushes{0};
  int64_t tierBudgetNs = 0;

  /// The executors of push(): one per graph and device, made on the first
  /// push there (a GPU plan pushed on gpu(1) arrays runs Plan::onDevice's
  /// copy, with an arena on gpu(1)). A push holds pushMutex so that one
  /// call's steps are not interleaved with another thread's (they share
  /// the arena, whose variables order whole calls only when each call's
  /// steps are pushed together).
  std::mutex pushMutex;
  std::map<std::pair<int, int>, std::unique_ptr<runtime::Executor>> pushExecutors;
  /// Executors of the fast tier's kernels (pushed steps may be pending on
  /// them); destroyed first, before the JITs that hold their kernels.
  std::vector<std::unique_ptr<runtime::Executor>> retiredExecutors;

  /// A GPU plan's `<entry>_module_fini` (exposeModuleInitializers): unloads
  /// the kernel binaries its `_module_init` loaded when the JIT linked it.
  void (*moduleFini)() = nullptr;

  ~CompiledGraphImpl() {
    // The executors (and the steps they may have pending) before the
    // modules their kernels launch from.
    pool.clear();
    pushExecutors.clear();
    retiredExecutors.clear();
    if (moduleFini)
      moduleFini();
  }

  bool tierUp(std::string *error);
};
} // namespace mxc

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

std::string cacheKey(ModuleOp module, const ResolvedTarget &target,
                     const PipelineOptions &pipeline) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, OpPrintingFlags().enableDebugInfo(false));
  llvm::SHA256 sha;
  sha.update("mxc-jit-object v2 (plan + kernels)\n");
  sha.update(compilerIdentity() + "\n");
  sha.update(target.triple + "\n" + target.cpu + "\n" + target.features + "\n");
  sha.update(pipeline.describe() + "\n");
  sha.update(text);
  std::array<uint8_t, 32> digest = sha.final();
  return llvm::toHex(digest, /*LowerCase=*/true);
}

/// The process-wide memory cache.
struct MemoryCache {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<CompiledGraph>> entries;
};
MemoryCache &memoryCache() {
  // Never destroyed: its graphs hold executors whose engine variables
  // belong to the default engine, which is destroyed at exit (possibly
  // first).
  static MemoryCache *cache = new MemoryCache;
  return *cache;
}

/// Links `object` (a whole graph's, or a glue object) and the kernel
/// objects it refers to into a new LLJIT and finds the packed entry. The
/// kernels come from `kernels` (emitKernelObjects' output), else from the
/// kernel cache `kernelDir`.
llvm::Expected<std::unique_ptr<CompiledGraphImpl>>
loadObject(llvm::StringRef object, llvm::StringRef name,
           const PipelineOptions &pipeline,
           llvm::ArrayRef<std::pair<std::string, std::string>> kernels = {},
           llvm::StringRef kernelDir = {}) {
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return jit.takeError();
  char prefix = (*jit)->getDataLayout().getGlobalPrefix();
  // The runtime kernels, libm and libc: whatever this process has loaded.
  auto process =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  if (!process)
    return process.takeError();
  (*jit)->getMainJITDylib().addGenerator(std::move(*process));
#ifdef MXC_MLIR_C_RUNNER_UTILS
  // memrefCopy for strided copies.
  if (llvm::sys::fs::exists(MXC_MLIR_C_RUNNER_UTILS)) {
    auto utils = llvm::orc::DynamicLibrarySearchGenerator::Load(
        MXC_MLIR_C_RUNNER_UTILS, prefix);
    if (!utils)
      return utils.takeError();
    (*jit)->getMainJITDylib().addGenerator(std::move(*utils));
  }
#endif
  if (auto err = (*jit)->addObjectFile(
          llvm::MemoryBuffer::getMemBufferCopy(object, name)))
    return std::move(err);
  if (!kernels.empty()) {
    for (const auto &[key, bytes] : kernels)
      if (auto err = (*jit)->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(
              bytes, kernelSymbol(key))))
        return std::move(err);
  } else {
    auto keys = referencedKernelKeys(object);
    if (!keys)
      return keys.takeError();
    for (const std::string &key : *keys) {
      if (kernelDir.empty())
        return llvm::createStringError("the object refers to kernel " + key +
                                       " and no kernel cache was given");
      std::string path = kernelObjectPath(kernelDir, key);
      auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
      if (!buf)
        return llvm::createStringError(buf.getError(),
                                       "kernel object " + path + ": " +
                                           buf.getError().message());
      if (auto err = (*jit)->addObjectFile(std::move(*buf)))
        return std::move(err);
    }
  }
  // The plan and its kernels (runtime/include/mxc/runtime/compiled_module.h).
  const std::string &entry = pipeline.entrySymbol;
  auto planSym = (*jit)->lookup(runtime::planSymbol(entry));
  if (!planSym)
    return planSym.takeError();
  auto tableSym = (*jit)->lookup(runtime::kernelTableSymbol(entry));
  if (!tableSym)
    return tableSym.takeError();
  auto countSym = (*jit)->lookup(runtime::numKernelsSymbol(entry));
  if (!countSym)
    return countSym.takeError();
  auto arenaSym = (*jit)->lookup(runtime::arenaSizeSymbol(entry));
  if (!arenaSym)
    return arenaSym.takeError();
  auto impl = std::make_unique<CompiledGraphImpl>();
  impl->kernels = runtime::KernelTable(
      tableSym->toPtr<const mxc_kernel_entry *>(),
      size_t(*countSym->toPtr<const int64_t *>()));
  runtime::PlanError perr;
  auto plan = runtime::Plan::parse(planSym->toPtr<const char *>(), &perr,
                                   &impl->kernels);
  if (!plan)
    return llvm::createStringError("the compiled plan does not load: " +
                                   perr.str());
  impl->plan = std::move(*plan);
  impl->arenaBytes = *arenaSym->toPtr<const int64_t *>();
  if (impl->arenaBytes < 0 || uint64_t(impl->arenaBytes) != impl->plan.arenaBytes)
    return llvm::createStringError("invalid " + runtime::arenaSizeSymbol(entry));
  // A GPU plan's kernel binaries: its module constructors, which ORC does
  // not run, as one function (exposeModuleInitializers). Where the device
  // cannot load them, the first step that needs one fails with the reason.
  if (impl->plan.device().kind != runtime::Device::Kind::CPU) {
    auto init = (*jit)->lookup(runtime::moduleInitSymbol(entry));
    if (!init)
      return init.takeError();
    auto fini = (*jit)->lookup(runtime::moduleFiniSymbol(entry));
    if (!fini)
      return fini.takeError();
    init->toPtr<void (*)()>()();
    impl->moduleFini = fini->toPtr<void (*)()>();
  }
  impl->jit = std::move(*jit);
  return impl;
}

/// The full pipeline: lowered in place, then object code: the glue and one
/// object per distinct kernel (emitKernelObjects; read from or written to
/// `kernelDir` when it is set), or, with `tierBitcode` (tiered
/// compilation's fast tier), one object for the whole module at -O0, the
/// LLVM module's bitcode kept there for the recompile.
FailureOr<KernelObjects> compileToObjects(ModuleOp module,
                                          const ResolvedTarget &target,
                                          const PipelineOptions &pipeline,
                                          CompileInfo &info,
                                          llvm::StringRef kernelDir,
                                          std::string *tierBitcode = nullptr) {
  auto start = Clock::now();
  if (failed(lowerToLinalg(module, pipeline)) ||
      failed(lowerToLLVMDialect(module, pipeline)))
    return failure();
  info.lowerMs = msSince(start);
  start = Clock::now();
  auto fail = [&](llvm::Error err) {
    emitError(module.getLoc()) << llvm::toString(std::move(err));
    return failure();
  };
  llvm::LLVMContext llvmCtx;
  PipelineOptions codegen = pipeline;
  if (tierBitcode)
    codegen.optLevel = 0;
  // A GPU plan is one object: its steps launch from module handles that
  // its constructors load (emitKernelObjects would keep it whole anyway).
  bool cuda = !pipeline.cudaArch.empty();
  bool whole = cuda || tierBitcode;
  auto translated = translateForTarget(module, target, llvmCtx, codegen,
                                       /*optimize=*/whole);
  if (!translated)
    return fail(translated.takeError());
  KernelObjects objects;
  if (whole) {
    if (tierBitcode) {
      // After -O0's pipeline, which changes nothing the recompile's -O3
      // would not.
      llvm::raw_string_ostream os(*tierBitcode);
      llvm::WriteBitcodeToFile(*translated->module, os);
    }
    if (cuda)
      exposeModuleInitializers(*translated->module, codegen.entrySymbol);
    auto object = emitObjectFile(*translated->module, *translated->machine);
    if (!object)
      return fail(object.takeError());
    objects.glue = std::move(*object);
  } else {
    KernelCodegenOptions kopts;
    kopts.optLevel = codegen.optLevel;
    kopts.entrySymbol = codegen.entrySymbol;
    kopts.cacheDir = kernelDir.str();
    kopts.keySalt = compilerIdentity();
    auto split = emitKernelObjects(std::move(translated->module), target, kopts);
    if (!split)
      return fail(split.takeError());
    objects = std::move(*split);
  }
  info.codegenMs = msSince(start);
  info.kernelStats = objects.stats;
  return std::move(objects);
}

} // namespace

/// A hash of the file holding this code (the mxc binary, or the library the
/// compiler is linked into), so that a rebuilt compiler never reads objects
/// an older one wrote. Computed once.
const std::string &mxc::compilerIdentity() {
  static std::string id = [] {
    std::string result = "llvm " LLVM_VERSION_STRING;
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&mxc::compilerIdentity), &info) &&
        info.dli_fname) {
      auto buf = llvm::MemoryBuffer::getFile(info.dli_fname);
      if (buf) {
        result += " binary " +
                  llvm::utohexstr(llvm::xxh3_64bits((*buf)->getBuffer())) +
                  " size " + std::to_string((*buf)->getBufferSize());
        return result;
      }
    }
    // Unknown binary: a per-process identity disables reuse across processes.
    return result + " pid " +
           std::to_string(llvm::sys::Process::getProcessId());
  }();
  return id;
}

int64_t TensorSpec::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

size_t TensorSpec::byteSize() const {
  return size_t(numElements()) * graph::dtypeSize(dtype);
}

FailureOr<EntrySignature> mxc::getEntrySignature(ModuleOp module) {
  auto func = module.lookupSymbol<func::FuncOp>("main");
  if (!func)
    return module.emitError() << "no function @main";
  EntrySignature sig;
  auto spec = [&](Type type, DictionaryAttr attrs, std::string fallback,
                  TensorSpec &out) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return func.emitError() << "'" << fallback << "' has type " << type
                              << ": statically shaped tensors only";
    StringRef dtypeName = mx::getMXNetDTypeName(tensor.getElementType());
    auto dtype = graph::parseDType(dtypeName);
    if (dtypeName.empty() || !dtype)
      return func.emitError()
             << "'" << fallback << "' has element type "
             << tensor.getElementType() << ", which is not an MXNet dtype";
    out.name = fallback;
    if (attrs) {
      if (auto name = attrs.getAs<StringAttr>("mx.name"))
        out.name = name.str();
      if (auto kind = attrs.getAs<StringAttr>("mx.kind"))
        out.kind = kind.str();
      out.unused = static_cast<bool>(attrs.get("mx.unused"));
    }
    out.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    out.dtype = *dtype;
    return success();
  };
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    TensorSpec s;
    if (failed(spec(func.getArgumentTypes()[i], func.getArgAttrDict(i),
                    "arg" + std::to_string(i), s)))
      return failure();
    if (s.kind.empty())
      s.kind = "data";
    sig.inputs.push_back(std::move(s));
  }
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    TensorSpec s;
    if (failed(spec(func.getResultTypes()[i], func.getResultAttrDict(i),
                    "output" + std::to_string(i), s)))
      return failure();
    sig.outputs.push_back(std::move(s));
  }
  return sig;
}

CompiledGraph::CompiledGraph(std::unique_ptr<CompiledGraphImpl> impl)
    : impl(std::move(impl)) {}
CompiledGraph::~CompiledGraph() = default;

const EntrySignature &CompiledGraph::signature() const {
  return impl->signature;
}

int64_t CompiledGraph::arenaBytes() const { return impl->arenaBytes; }

bool CompiledGraph::isFastTier() const { return impl->fastTier.load(); }

bool CompiledGraph::tierUp(std::string *error) const {
  return impl->tierUp(error);
}

bool CompiledGraphImpl::tierUp(std::string *error) {
  std::unique_lock<std::mutex> lock(tierMutex, std::try_to_lock);
  if (!lock.owns_lock() || tierBitcode.empty())
    return false; // another thread is at it, or it was done (or tried)
  std::string bitcode = std::move(tierBitcode);
  tierBitcode.clear(); // one try: a failed recompile keeps the fast tier
  auto fail = [&](llvm::Error err) {
    std::string msg = llvm::toString(std::move(err));
    if (error)
      *error = "tier-up: " + msg;
    return false;
  };
  llvm::LLVMContext ctx;
  auto module = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(bitcode, "mxc-fast-tier"), ctx);
  if (!module)
    return fail(module.takeError());
  auto tm = createTargetMachine(tierTarget, tierOptLevel);
  if (!tm)
    return fail(tm.takeError());
  optimizeLLVMModule(**module, **tm, tierOptLevel);
  auto object = emitObjectFile(**module, **tm);
  if (!object)
    return fail(object.takeError());
  PipelineOptions pipeline;
  pipeline.entrySymbol = tierEntry;
  auto next = loadObject(*object, "mxc-jit", pipeline);
  if (!next)
    return fail(next.takeError());
  if ((*next)->plan.print() != plan.print() || (*next)->arenaBytes != arenaBytes)
    return fail(llvm::createStringError(
        "internal error: the recompiled plan differs from the fast tier's"));
  std::vector<std::unique_ptr<Pooled>> stale;
  {
    std::lock_guard<std::mutex> poolLock(poolMutex);
    retiredJits.push_back(std::move(jit));
    jit = std::move((*next)->jit);
    kernels = (*next)->kernels;
    ++generation;
    stale.swap(pool);
  }
  {
    std::lock_guard<std::mutex> pushLock(pushMutex);
    for (auto &[device, executor] : pushExecutors)
      retiredExecutors.push_back(std::move(executor));
    pushExecutors.clear();
  }
  fastTier = false;
  if (!tierCachePath.empty() &&
      !llvm::sys::fs::create_directories(
          llvm::sys::path::parent_path(tierCachePath)))
    (void)llvm::errorToBool(writeFileAtomically(tierCachePath, *object));
  return true;
}

const runtime::Plan &CompiledGraph::plan() const { return impl->plan; }

llvm::Error CompiledGraph::run(llvm::ArrayRef<const void *> inputs,
                               llvm::ArrayRef<void *> outputs,
                               std::optional<runtime::Device> on) const {
  const runtime::Plan &plan = impl->plan;
  const runtime::Device device = on.value_or(plan.device());
  if (inputs.size() != plan.numArguments() ||
      outputs.size() != plan.numOutputs())
    return llvm::createStringError(
        "run: the graph takes " + llvm::Twine(plan.numArguments()) +
        " inputs and " + llvm::Twine(plan.numOutputs()) + " outputs, given " +
        llvm::Twine(inputs.size()) + " and " + llvm::Twine(outputs.size()));
  std::unique_ptr<CompiledGraphImpl::Pooled> pooled;
  {
    std::lock_guard<std::mutex> lock(impl->poolMutex);
    for (size_t i = impl->pool.size(); i-- > 0;)
      if (impl->pool[i]->device == device) {
        pooled = std::move(impl->pool[i]);
        impl->pool.erase(impl->pool.begin() + i);
        break;
      }
  }
  std::string error;
  try {
    if (!pooled) {
      pooled = std::make_unique<CompiledGraphImpl::Pooled>();
      runtime::KernelTable kernels;
      {
        std::lock_guard<std::mutex> lock(impl->poolMutex);
        kernels = impl->kernels;
        pooled->generation = impl->generation;
      }
      pooled->device = device;
      auto executor = std::make_unique<runtime::Executor>(plan.onDevice(device), kernels);
      pooled->inputs.assign(inputs.size(), nullptr);
      pooled->outputs.assign(outputs.size(), nullptr);
      if (device.kind != runtime::Device::Kind::CPU) {
        // A GPU plan: arrays on its device, bound once.
        runtime::Executor &exec = *executor;
        for (size_t i = 0; i < inputs.size(); ++i) {
          const runtime::PlanBuffer &b = exec.argumentSpec(i);
          pooled->deviceInputs.emplace_back(b.shape, b.dtype, device);
          exec.bindArgument(i, pooled->deviceInputs.back());
        }
        for (size_t i = 0; i < outputs.size(); ++i) {
          const runtime::PlanBuffer &b = exec.outputSpec(i);
          pooled->deviceOutputs.emplace_back(b.shape, b.dtype, device);
          exec.bindOutput(i, pooled->deviceOutputs.back());
        }
      }
      // Pooled (below) only when whole.
      pooled->executor = std::move(executor);
    }
    runtime::Executor &exec = *pooled->executor;
    if (!pooled->deviceInputs.empty() || !pooled->deviceOutputs.empty()) {
      // Through the device arrays: the inputs copied there, the plan run,
      // the outputs copied back (each copy an engine operation ordered
      // after the steps by the arrays' variables).
      for (size_t i = 0; i < inputs.size(); ++i)
        pooled->deviceInputs[i].copyFromHost(inputs[i],
                                             pooled->deviceInputs[i].numBytes());
      exec.run();
      for (size_t i = 0; i < outputs.size(); ++i)
        pooled->deviceOutputs[i].copyToHost(outputs[i],
                                            pooled->deviceOutputs[i].numBytes());
    } else {
      // The caller's buffers, bound without copies (rebound only where a
      // pointer changed); the call returns when every step has run (the
      // engine's workers run independent steps at the same time).
      auto wrap = [](const void *data, const runtime::PlanBuffer &b) {
        return runtime::NDArray::fromExternal(const_cast<void *>(data), b.shape,
                                              b.dtype);
      };
      for (size_t i = 0; i < inputs.size(); ++i)
        if (pooled->inputs[i] != inputs[i]) {
          pooled->inputs[i] = nullptr; // until bound
          exec.bindArgument(i, wrap(inputs[i], exec.argumentSpec(i)));
          pooled->inputs[i] = inputs[i];
        }
      for (size_t i = 0; i < outputs.size(); ++i)
        if (pooled->outputs[i] != outputs[i]) {
          pooled->outputs[i] = nullptr;
          exec.bindOutput(i, wrap(outputs[i], exec.outputSpec(i)));
          pooled->outputs[i] = outputs[i];
        }
      auto start = Clock::now();
      exec.run();
      if (impl->fastTier.load(std::memory_order_relaxed))
        impl->runNs += std::chrono::duration_cast<std::chrono::nanoseconds>(
                           Clock::now() - start)
                           .count();
    }
  } catch (const std::exception &e) {
    error = e.what();
  }
  if (pooled && pooled->executor) {
    std::lock_guard<std::mutex> lock(impl->poolMutex);
    if (pooled->generation == impl->generation)
      impl->pool.push_back(std::move(pooled));
  }
  pooled.reset(); // a stale executor (made before a tier-up) goes now
  if (!error.empty())
    return llvm::createStringError(error);
  if (impl->fastTier.load(std::memory_order_relaxed) &&
      impl->runNs.load() >= impl->tierBudgetNs)
    impl->tierUp(nullptr);
  return llvm::Error::success();
}

void CompiledGraph::push(const std::vector<runtime::NDArray> &inputs,
                         const std::vector<runtime::NDArray> &outputs) const {
  if (impl->fastTier.load(std::memory_order_relaxed) &&
      ++impl->pushes >= kFastTierPushes)
    impl->tierUp(nullptr);
  // A GPU plan runs on the GPU its arrays are on (the executor checks that
  // every one is there).
  runtime::Device device = impl->plan.device();
  if (device.kind == runtime::Device::Kind::GPU) {
    const runtime::NDArray *first = !inputs.empty()    ? &inputs.front()
                                    : !outputs.empty() ? &outputs.front()
                                                       : nullptr;
    if (first && !first->isNone() && first->device().kind == device.kind)
      device = first->device();
  }
  std::lock_guard<std::mutex> lock(impl->pushMutex);
  std::unique_ptr<runtime::Executor> &executor =
      impl->pushExecutors[{int(device.kind), device.id}];
  if (!executor) {
    runtime::KernelTable kernels;
    {
      std::lock_guard<std::mutex> poolLock(impl->poolMutex);
      kernels = impl->kernels;
    }
    executor = std::make_unique<runtime::Executor>(impl->plan.onDevice(device), kernels);
  }
  // Nothing is bound: the pushed steps keep what they use alive through
  // the engine.
  executor->pushOn(inputs, outputs);
}

std::string mxc::defaultCacheDir() {
  if (auto dir = llvm::sys::Process::GetEnv("MXC_CACHE_DIR");
      dir && !dir->empty())
    return *dir;
  llvm::SmallString<256> path;
  if (auto xdg = llvm::sys::Process::GetEnv("XDG_CACHE_HOME");
      xdg && !xdg->empty()) {
    path = *xdg;
  } else if (auto home = llvm::sys::Process::GetEnv("HOME");
             home && !home->empty()) {
    path = *home;
    llvm::sys::path::append(path, ".cache");
  } else {
    return "";
  }
  llvm::sys::path::append(path, "mxc");
  return std::string(path);
}

FailureOr<std::shared_ptr<CompiledGraph>>
mxc::compileModule(ModuleOp module, const JITOptions &opts,
                   CompileInfo *infoOut) {
  CompileInfo scratch;
  CompileInfo &info = infoOut ? *infoOut : scratch;
  info = CompileInfo();
  auto fail = [&](llvm::Error err) {
    emitError(module.getLoc()) << llvm::toString(std::move(err));
    return failure();
  };

  // Autodiff changes the signature (head gradients in, gradients out).
  if (failed(runGraphPasses(module, opts.pipeline)))
    return failure();
  FailureOr<EntrySignature> sig = getEntrySignature(module);
  if (failed(sig))
    return failure();
  auto target = resolveTarget(opts.target);
  if (!target)
    return fail(target.takeError());
  info.target = *target;
  if (!target->isHost)
    return fail(llvm::createStringError(
        "cannot run code for " + target->triple + " on this machine (" +
        llvm::sys::getProcessTriple() + "); use 'mxc codegen' instead"));
  info.key = cacheKey(module, *target, opts.pipeline);

  if (opts.useMemoryCache) {
    MemoryCache &cache = memoryCache();
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto it = cache.entries.find(info.key);
    if (it != cache.entries.end()) {
      info.outcome = CacheOutcome::MemoryHit;
      return it->second;
    }
  }

  auto finish = [&](std::unique_ptr<CompiledGraphImpl> impl) {
    impl->signature = std::move(*sig);
    auto compiled = std::make_shared<CompiledGraph>(std::move(impl));
    if (opts.useMemoryCache) {
      MemoryCache &cache = memoryCache();
      std::lock_guard<std::mutex> lock(cache.mutex);
      cache.entries.emplace(info.key, compiled);
    }
    return compiled;
  };

  std::string dir;
  if (opts.useDiskCache) {
    dir = opts.cacheDir.empty() ? defaultCacheDir() : opts.cacheDir;
    if (dir.empty())
      info.cacheNote = "no cache directory (set MXC_CACHE_DIR or HOME)";
  }
  if (!dir.empty()) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, info.key + ".o");
    info.cachePath = std::string(path);
    if (auto buf =
            llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                        /*RequiresNullTerminator=*/false)) {
      auto start = Clock::now();
      auto impl = loadObject((*buf)->getBuffer(), info.cachePath,
                             opts.pipeline, {}, kernelCacheDir(dir));
      if (impl) {
        info.loadMs = msSince(start);
        info.outcome = CacheOutcome::DiskHit;
        return finish(std::move(*impl));
      }
      info.cacheNote = "unusable cache entry (" +
                       llvm::toString(impl.takeError()) + "), recompiled";
    }
  }

  // Tiered compilation: small graphs first at -O0 (JITOptions::tiered).
  int64_t ioBytes = 0;
  for (const auto *list : {&sig->inputs, &sig->outputs})
    for (const TensorSpec &t : *list)
      ioBytes += int64_t(t.byteSize());
  bool fastTier = opts.tiered && opts.pipeline.optLevel > 0 &&
                  opts.pipeline.cudaArch.empty() && ioBytes <= kFastTierMaxBytes;
  std::string tierBitcode;
  FailureOr<KernelObjects> objects =
      compileToObjects(module, *target, opts.pipeline, info, kernelCacheDir(dir),
                       fastTier ? &tierBitcode : nullptr);
  if (failed(objects))
    return failure();
  // Only final code goes to the disk cache (a fast tier's after its
  // tier-up, CompiledGraphImpl::tierUp). The entry is the glue; the kernels
  // it names are in kernelDir (emitKernelObjects wrote them).
  if (!dir.empty() && !fastTier) {
    std::error_code ec = llvm::sys::fs::create_directories(dir);
    llvm::Error err = ec ? llvm::createStringError(ec, "cannot create " + dir +
                                                           ": " + ec.message())
                         : writeFileAtomically(info.cachePath, objects->glue);
    if (err) {
      info.cacheNote = llvm::toString(std::move(err));
      info.cachePath.clear();
    }
  }
  auto start = Clock::now();
  auto impl =
      loadObject(objects->glue, "mxc-jit", opts.pipeline, objects->kernels);
  if (!impl)
    return fail(impl.takeError());
  info.loadMs = msSince(start);
  info.outcome = CacheOutcome::Compiled;
  if (fastTier) {
    (*impl)->fastTier = true;
    (*impl)->tierBitcode = std::move(tierBitcode);
    (*impl)->tierTarget = *target;
    (*impl)->tierOptLevel = opts.pipeline.optLevel;
    (*impl)->tierEntry = opts.pipeline.entrySymbol;
    (*impl)->tierCachePath = info.cachePath;
    // Ski rental: run the slow code until it has cost what the recompile
    // will (about twice this whole compile), then recompile.
    (*impl)->tierBudgetNs =
        int64_t(2e6 * (info.lowerMs + info.codegenMs)) + 2000000;
    info.cachePath.clear();
  }
  return finish(std::move(*impl));
}

FailureOr<std::shared_ptr<CompiledGraph>>
mxc::compileGraph(MLIRContext &ctx, const graph::Graph &graph,
                  const ImportOptions &importOpts, const JITOptions &opts,
                  CompileInfo *info) {
  OwningOpRef<ModuleOp> module = importGraph(ctx, graph, importOpts);
  if (!module || failed(verify(*module)))
    return failure();
  return compileModule(*module, opts, info);
}
