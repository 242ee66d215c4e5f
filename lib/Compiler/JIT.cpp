//===- JIT.cpp - compile a graph to a callable, with a cache --------------===//
//
// Every compile ends in an object file (emitObjectFile); the object is
// linked into its own ORC LLJIT. The disk cache stores that object, so a hit
// skips MLIR lowering and LLVM code generation entirely and takes the same
// loading path as a miss.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/JIT.h"
#include "mxc/Dialect/MX/IR/MXOpTable.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
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

#include <chrono>
#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <mutex>

using namespace mlir;
using namespace mxc;

namespace mxc {
/// The JIT that owns the code, and the packed entry point.
class CompiledGraphImpl {
public:
  EntrySignature signature;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  void (*entry)(void **) = nullptr;
  /// `<entry>_arena_size`: bytes of the arena (the last entry argument).
  int64_t arenaBytes = 0;

  /// What one call needs besides the caller's buffers: the arena and the
  /// memref descriptors of every argument (shapes and strides filled in
  /// once; a call sets the pointers). A call takes one from the pool, or
  /// makes one, and puts it back: concurrent calls never share an arena, and
  /// a warm graph allocates nothing per call.
  struct CallScratch {
    struct FreeDeleter {
      void operator()(void *p) const { std::free(p); }
    };
    std::unique_ptr<void, FreeDeleter> arena;
    std::vector<int64_t> words;    ///< all descriptors, back to back
    std::vector<size_t> firstWord; ///< per argument, into words
    std::vector<void *> args;      ///< per argument, &words[firstWord[i]]
  };
  std::mutex poolMutex;
  std::vector<std::unique_ptr<CallScratch>> pool;

  std::unique_ptr<CallScratch> makeScratch() const;
};
} // namespace mxc

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

/// A hash of the file holding this code (the mxc binary, or the library the
/// compiler is linked into), so that a rebuilt compiler never reads objects
/// an older one wrote. Computed once.
const std::string &compilerIdentity() {
  static std::string id = [] {
    std::string result = "llvm " LLVM_VERSION_STRING;
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&compilerIdentity), &info) &&
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

std::string cacheKey(ModuleOp module, const ResolvedTarget &target,
                     const PipelineOptions &pipeline) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, OpPrintingFlags().enableDebugInfo(false));
  llvm::SHA256 sha;
  sha.update("mxc-jit-object v1\n");
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
  static MemoryCache cache;
  return cache;
}

/// Links `object` into a new LLJIT and finds the packed entry.
llvm::Expected<std::unique_ptr<CompiledGraphImpl>>
loadObject(llvm::StringRef object, llvm::StringRef name,
           const PipelineOptions &pipeline) {
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
  auto sym = (*jit)->lookup(packedEntryName(pipeline.entrySymbol));
  if (!sym)
    return sym.takeError();
  auto arenaSym = (*jit)->lookup(arenaSizeName(pipeline.entrySymbol));
  if (!arenaSym)
    return arenaSym.takeError();
  auto impl = std::make_unique<CompiledGraphImpl>();
  impl->entry = sym->toPtr<void (*)(void **)>();
  impl->arenaBytes = *arenaSym->toPtr<const int64_t *>();
  if (impl->arenaBytes < 0)
    return llvm::createStringError("invalid " +
                                   arenaSizeName(pipeline.entrySymbol));
  impl->jit = std::move(*jit);
  return impl;
}

/// Writes `bytes` to `path` through a temporary file and a rename, so that
/// concurrent writers and readers never see a partial entry.
llvm::Error writeAtomically(llvm::StringRef path, llvm::StringRef bytes) {
  llvm::SmallString<256> tmp;
  int fd;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%%%", fd, tmp))
    return llvm::createStringError(ec, "cannot create a file in the cache: " +
                                           ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << bytes;
    os.close();
    if (os.has_error()) {
      std::string msg = os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(tmp);
      return llvm::createStringError("cannot write " + tmp + ": " + msg);
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmp, path)) {
    llvm::sys::fs::remove(tmp);
    return llvm::createStringError(ec, "cannot rename into the cache: " +
                                           ec.message());
  }
  return llvm::Error::success();
}

/// The full pipeline: lowered in place, then an object file.
FailureOr<std::string> compileToObject(ModuleOp module,
                                       const ResolvedTarget &target,
                                       const PipelineOptions &pipeline,
                                       CompileInfo &info) {
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
  auto translated = translateForTarget(module, target, llvmCtx, pipeline);
  if (!translated)
    return fail(translated.takeError());
  auto object = emitObjectFile(*translated->module, *translated->machine);
  if (!object)
    return fail(object.takeError());
  info.codegenMs = msSince(start);
  return std::move(*object);
}

} // namespace

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

std::unique_ptr<CompiledGraphImpl::CallScratch>
CompiledGraphImpl::makeScratch() const {
  auto scratch = std::make_unique<CallScratch>();
  // At least 64 bytes, so that even an empty arena is a valid buffer.
  size_t bytes = llvm::alignTo(std::max<int64_t>(arenaBytes, 1), 64);
  scratch->arena.reset(std::aligned_alloc(64, bytes));
  if (!scratch->arena)
    llvm::report_fatal_error("mxc: cannot allocate the arena of " +
                             llvm::Twine(bytes) + " bytes");
  // One memref descriptor per argument: {allocated, aligned, offset,
  // sizes[r], strides[r]}, all 8-byte words.
  auto describe = [&](llvm::ArrayRef<int64_t> shape) {
    scratch->firstWord.push_back(scratch->words.size());
    size_t d = scratch->words.size();
    scratch->words.resize(d + 3 + 2 * shape.size(), 0);
    int64_t stride = 1;
    for (size_t i = shape.size(); i-- > 0;) {
      scratch->words[d + 3 + i] = shape[i];
      scratch->words[d + 3 + shape.size() + i] = stride;
      stride *= shape[i];
    }
  };
  for (const TensorSpec &spec : signature.inputs)
    describe(spec.shape);
  for (const TensorSpec &spec : signature.outputs)
    describe(spec.shape);
  int64_t arenaShape[] = {arenaBytes};
  describe(arenaShape);
  size_t arenaWord = scratch->firstWord.back();
  scratch->words[arenaWord] = scratch->words[arenaWord + 1] =
      int64_t(reinterpret_cast<intptr_t>(scratch->arena.get()));
  for (size_t first : scratch->firstWord)
    scratch->args.push_back(&scratch->words[first]);
  return scratch;
}

void CompiledGraph::run(llvm::ArrayRef<const void *> inputs,
                        llvm::ArrayRef<void *> outputs) const {
  const EntrySignature &sig = impl->signature;
  assert(inputs.size() == sig.inputs.size() &&
         outputs.size() == sig.outputs.size() && "wrong argument count");
  (void)sig;
  std::unique_ptr<CompiledGraphImpl::CallScratch> scratch;
  {
    std::lock_guard<std::mutex> lock(impl->poolMutex);
    if (!impl->pool.empty()) {
      scratch = std::move(impl->pool.back());
      impl->pool.pop_back();
    }
  }
  if (!scratch)
    scratch = impl->makeScratch();
  auto setPointer = [&](size_t arg, const void *data) {
    int64_t *d = &scratch->words[scratch->firstWord[arg]];
    d[0] = d[1] = int64_t(reinterpret_cast<intptr_t>(data));
  };
  for (size_t i = 0; i < inputs.size(); ++i)
    setPointer(i, inputs[i]);
  for (size_t i = 0; i < outputs.size(); ++i)
    setPointer(inputs.size() + i, outputs[i]);
  impl->entry(scratch->args.data());
  std::lock_guard<std::mutex> lock(impl->poolMutex);
  impl->pool.push_back(std::move(scratch));
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
      auto impl =
          loadObject((*buf)->getBuffer(), info.cachePath, opts.pipeline);
      if (impl) {
        info.loadMs = msSince(start);
        info.outcome = CacheOutcome::DiskHit;
        return finish(std::move(*impl));
      }
      info.cacheNote = "unusable cache entry (" +
                       llvm::toString(impl.takeError()) + "), recompiled";
    }
  }

  FailureOr<std::string> object =
      compileToObject(module, *target, opts.pipeline, info);
  if (failed(object))
    return failure();
  if (!dir.empty()) {
    std::error_code ec = llvm::sys::fs::create_directories(dir);
    llvm::Error err = ec ? llvm::createStringError(ec, "cannot create " + dir +
                                                           ": " + ec.message())
                         : writeAtomically(info.cachePath, *object);
    if (err) {
      info.cacheNote = llvm::toString(std::move(err));
      info.cachePath.clear();
    }
  }
  auto start = Clock::now();
  auto impl = loadObject(*object, "mxc-jit", opts.pipeline);
  if (!impl)
    return fail(impl.takeError());
  info.loadMs = msSince(start);
  info.outcome = CacheOutcome::Compiled;
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
