//===- Pipeline.cpp - the CPU code generation pipeline --------------------===//
//
// mx -> linalg -> bufferized loops -> LLVM dialect -> LLVM IR (O3) -> object,
// following docs in toolchain.md ("CPU lowering that works") and its
// pitfalls: lower-affine after expand-strided-metadata, vector ops lowered
// explicitly before convert-to-llvm, inner pipelines given to
// parsePassPipeline.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/Pipeline.h"
#include "mxc/Compiler/Transforms/MemoryPlan.h"
#include "mxc/Compiler/Transforms/Passes.h"
#include "mxc/Conversion/Passes.h"
#include "mxc/Dialect/MX/IR/MXDialect.h"
#include "mxc/Dialect/MX/Transforms/Passes.h"
#include "mxc/Dialect/MXRT/IR/MXRTDialect.h"
#include "mxc/Dialect/MXRT/IR/MXRTOps.h"
#include "mxc/Dialect/MXRT/Transforms/Passes.h"
#include "mxc/Dialect/MX/IR/MXOpTable.h"
#include "mxc/runtime/compiled_module.h"
#include "mxc/runtime/plan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <map>
#include <mutex>
#include <set>

using namespace mlir;

namespace {

/// Registers MLIR's passes and LLVM's targets once per process.
void initializeOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerAllPasses();
    mxc::registerMXCConversionPasses();
    mxc::mxrt::registerMXRTPasses();
    mxc::mx::registerMXPasses();
    mxc::registerMXCCompilerPasses();
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
  });
}

/// A pass manager with --mlir-print-ir-after-all, --mlir-timing, ... when
/// the tool registered them (mxc does; see driverMain); without them when it
/// did not (applying them then fails, harmlessly).
std::unique_ptr<PassManager> newPassManager(MLIRContext *ctx) {
  auto pm = std::make_unique<PassManager>(ctx);
  (void)applyPassManagerCLOptions(*pm);
  applyDefaultTimingPassManagerCLOptions(*pm);
  return pm;
}

/// Idle pass managers by context and pipeline text, for the contexts given
/// to reusePassManagers. A pass manager is taken out while it runs, so two
/// threads never share one.
struct PassManagerCache {
  std::mutex mutex;
  llvm::DenseSet<MLIRContext *> contexts;
  std::map<std::pair<MLIRContext *, std::string>,
           std::vector<std::unique_ptr<PassManager>>>
      idle;
};
PassManagerCache &passManagerCache() {
  static PassManagerCache *cache = new PassManagerCache; // never destroyed
  return *cache;
}

/// Runs a textual pass pipeline (the inner pipeline of builtin.module) on
/// `module`. A pipeline that does not parse is a compiler bug, reported on
/// the module.
LogicalResult runPipeline(ModuleOp module, StringRef pipeline) {
  initializeOnce();
  MLIRContext *ctx = module.getContext();
  PassManagerCache &cache = passManagerCache();
  auto key = std::make_pair(ctx, pipeline.str());
  std::unique_ptr<PassManager> pm;
  bool reuse;
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    reuse = cache.contexts.contains(ctx);
    if (reuse) {
      auto it = cache.idle.find(key);
      if (it != cache.idle.end() && !it->second.empty()) {
        pm = std::move(it->second.back());
        it->second.pop_back();
      }
    }
  }
  if (!pm) {
    pm = newPassManager(ctx);
    std::string err;
    llvm::raw_string_ostream errOs(err);
    if (failed(parsePassPipeline(pipeline, *pm, errOs)))
      return module.emitError() << "internal error: bad pass pipeline: " << err;
  }
  LogicalResult result = pm->run(module);
  // A pass manager whose run failed is dropped: nothing of a failed run is
  // carried into the next compile.
  if (reuse && succeeded(result)) {
    std::lock_guard<std::mutex> lock(cache.mutex);
    cache.idle[key].push_back(std::move(pm));
  }
  return result;
}

constexpr llvm::StringLiteral kPlanAttr = "mxc.plan";

/// Adds, for the plan in the module's `mxc.plan`, one kernel per step with
/// the kernel ABI, `void <entry>_step<i>_kernel(void **buffers)`, calling the
/// outlined step function `<entry>_step<i>` with a memref descriptor per
/// buffer (dense, row-major, offset 0); then `<entry>_plan` (the text),
/// `<entry>_kernels` and `<entry>_num_kernels` (compiled_module.h).
llvm::Error addPlanSymbols(llvm::Module &m, StringRef planText,
                           StringRef entry) {
  namespace rt = mxc::runtime;
  rt::PlanError perr;
  std::optional<rt::Plan> plan = rt::Plan::parse(planText.str(), &perr);
  if (!plan)
    return llvm::createStringError("internal error: the emitted plan does not "
                                   "parse: " + perr.str());
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptrTy = llvm::PointerType::getUnqual(ctx);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto *fnTy =
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptrTy}, false);
  auto *entryTy = llvm::StructType::get(ctx, {ptrTy, ptrTy});
  std::vector<llvm::Constant *> rows;
  for (auto [i, step] : llvm::enumerate(plan->steps)) {
    std::string implName = rt::stepFunctionName(entry.str(), i);
    llvm::Function *impl = m.getFunction(implName);
    if (!impl || step.kernel != rt::stepKernelSymbol(entry.str(), i))
      return llvm::createStringError("internal error: no step function " +
                                     implName + " for step '" + step.name +
                                     "'");
    auto *fn = llvm::Function::Create(fnTy, llvm::GlobalValue::ExternalLinkage,
                                      step.kernel, m);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
    SmallVector<llvm::Value *> args;
    std::vector<uint32_t> buffers = step.reads;
    buffers.insert(buffers.end(), step.writes.begin(), step.writes.end());
    for (auto [k, buf] : llvm::enumerate(buffers)) {
      llvm::Value *slot = b.CreateConstGEP1_64(ptrTy, fn->getArg(0), k);
      llvm::Value *data = b.CreateLoad(ptrTy, slot);
      const rt::Shape &shape = plan->buffers[buf].shape;
      args.push_back(data);
      args.push_back(data);
      args.push_back(llvm::ConstantInt::get(i64, 0));
      for (int64_t d : shape)
        args.push_back(llvm::ConstantInt::get(i64, d));
      int64_t stride = 1;
      SmallVector<int64_t> strides(shape.size());
      for (size_t d = shape.size(); d-- > 0;) {
        strides[d] = stride;
        stride *= shape[d];
      }
      for (int64_t st : strides)
        args.push_back(llvm::ConstantInt::get(i64, st));
    }
    if (impl->arg_size() != args.size())
      return llvm::createStringError(
          "internal error: step function " + implName + " takes " +
          llvm::Twine(impl->arg_size()) + " words, its buffers make " +
          llvm::Twine(args.size()));
    b.CreateCall(impl, args);
    b.CreateRetVoid();
    auto *init = llvm::ConstantDataArray::getString(ctx, step.kernel, true);
    auto *name = new llvm::GlobalVariable(m, init->getType(), true,
                                          llvm::GlobalValue::PrivateLinkage,
                                          init, step.kernel + ".name");
    rows.push_back(llvm::ConstantStruct::get(entryTy, {name, fn}));
  }
  auto *tableTy = llvm::ArrayType::get(entryTy, rows.size());
  new llvm::GlobalVariable(m, tableTy, true, llvm::GlobalValue::ExternalLinkage,
                           llvm::ConstantArray::get(tableTy, rows),
                           rt::kernelTableSymbol(entry.str()));
  new llvm::GlobalVariable(m, i64, true, llvm::GlobalValue::ExternalLinkage,
                           llvm::ConstantInt::get(i64, rows.size()),
                           rt::numKernelsSymbol(entry.str()));
  auto *text = llvm::ConstantDataArray::getString(ctx, planText, true);
  new llvm::GlobalVariable(m, text->getType(), true,
                           llvm::GlobalValue::ExternalLinkage, text,
                           rt::planSymbol(entry.str()));
  return llvm::Error::success();
}

/// A plan token for `name`: printable ASCII without spaces or '#', unique
/// among `used`.
std::string planToken(StringRef name, std::set<std::string> &used) {
  std::string t;
  for (char c : name)
    t += (c > ' ' && c < 127 && c != '#') ? c : '_';
  if (t.empty())
    t = "_";
  std::string unique = t;
  for (int k = 1; !used.insert(unique).second; ++k)
    unique = t + "." + std::to_string(k);
  return unique;
}


} // namespace

void mxc::registerCodegenPasses() { initializeOnce(); }

void mxc::reusePassManagers(MLIRContext &ctx) {
  PassManagerCache &cache = passManagerCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.contexts.insert(&ctx);
}

std::string mxc::PipelineOptions::describe() const {
  auto list = [](const std::vector<std::string> &v) {
    return llvm::join(v, ",");
  };
  // The GPU kernels' launch shape (the CUDA target's and its emulation's).
  std::string launch = "b" + std::to_string(cudaBlockSize) + "x" +
                       std::to_string(cudaElementsPerThread);
  return "entry=" + entrySymbol + " fuse=" + (fuseElementwise ? "1" : "0") +
         " reassoc=" + (fastReductions ? "1" : "0") +
         " approx=" + (approximateMath ? "1" : "0") +
         " split-red=" + (splitReductions ? "1" : "0") +
         " lib-bn=" + (useLibraryBatchNorm() ? "1" : "0") +
         (splitTargetThreads || splitMaxChunks
              ? "/t" + std::to_string(splitTargetThreads) + "c" + std::to_string(splitMaxChunks)
              : "") +
         " par=" + (parallelLoops ? "1" : "0") + " O" +
         std::to_string(optLevel) + " outputs=" + list(outputs) +
         " train=" + (train ? "1" : "0") + " wrt=" + list(wrt) +
         " grad-req=" + list(gradReq) + " train-part=" + trainPart + " in-place=" + list(inPlace) +
         " fuse-graph=" +
         (fuseGraph ? "1" : "0") + " fuse-conv=" + (fuseConvolution ? "1" : "0") +
         " const-params=" + (constantParams ? "1" : "0") +
         " blocked=" + (blockedLayout ? "1" : "0") + " memory-plan=" + memoryPlan +
         (emulateGpuKernels ? " emulate-gpu=" + launch + (emulateGpuReversed ? "r" : "") : "") +
         (cudaArch.empty() ? "" : " cuda=" + cudaArch + cudaFeatures + "/" + cudaFormat + "/" +
                                      launch);
}

LogicalResult mxc::runGraphPasses(ModuleOp module,
                                  const PipelineOptions &opts) {
  constexpr llvm::StringLiteral done = "mxc.graph_passes";
  if (module->hasAttr(done))
    return success();
  // Built in code, not as pipeline text: node and argument names (outputs,
  // wrt, grad-req) may hold ',', '=', '{' or spaces, which the textual
  // option parser would split (MXNet's tests name variables
  // "unary_op=arccos, dtype=<class 'numpy.float64'>_data").
  initializeOnce();
  std::unique_ptr<PassManager> owned = newPassManager(module.getContext());
  PassManager &pm = *owned;
  mx::MXPrunePassOptions prune;
  prune.mode = opts.train ? "training" : "inference";
  prune.outputs.assign(opts.outputs.begin(), opts.outputs.end());
  pm.addPass(mx::createMXPrunePass(prune));
  pm.addPass(mx::createMXDecomposePass());
  if (opts.train) {
    mx::MXAutodiffPassOptions autodiff;
    autodiff.wrt.assign(opts.wrt.begin(), opts.wrt.end());
    autodiff.gradReq.assign(opts.gradReq.begin(), opts.gradReq.end());
    autodiff.libraryBatchNorm = opts.useLibraryBatchNorm();
    pm.addPass(mx::createMXAutodiffPass(autodiff));
    if (!opts.trainPart.empty()) {
      mx::MXSplitTrainingPassOptions split;
      split.part = opts.trainPart;
      pm.addPass(mx::createMXSplitTrainingPass(split));
    }
  }
  // The CUDA target has no fused-convolution kernel (cuDNN's plain
  // convolution and generated epilogues); nor has its emulation.
  if (opts.fuseGraph && opts.fuseConvolution && opts.cudaArch.empty() &&
      !opts.emulateGpuKernels) {
    mx::MXFuseConvolutionPassOptions fuseConv;
    fuseConv.constantParams = opts.constantParams;
    pm.addPass(mx::createMXFuseConvolutionPass(fuseConv));
    if (opts.blockedLayout)
      pm.addPass(mx::createMXPropagateConvLayoutPass());
  }
  if (opts.fuseGraph)
    pm.addPass(mx::createMXFuseElementwisePass());
  if (failed(pm.run(module)))
    return failure();
  module->setAttr(done, UnitAttr::get(module.getContext()));
  return success();
}

void mxc::registerCodegenDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registry.insert<mx::MXDialect, mxrt::MXRTDialect>();
}

static llvm::Expected<mxc::ResolvedTarget>
resolveTargetUncached(const mxc::TargetOptions &opts);

llvm::Expected<mxc::ResolvedTarget>
mxc::resolveTarget(const TargetOptions &opts) {
  // Resolved once per (triple, cpu, features): the host's CPU name and its
  // ~200 feature flags, checked against the target's tables, cost ~1 ms,
  // which a JIT compile of a small graph paid every time.
  static std::mutex mutex;
  static std::map<std::string, ResolvedTarget> *resolved =
      new std::map<std::string, ResolvedTarget>; // never destroyed
  std::string key = opts.triple + "\n" + opts.cpu + "\n" + opts.features;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = resolved->find(key);
    if (it != resolved->end())
      return it->second;
  }
  auto t = resolveTargetUncached(opts);
  if (t) {
    std::lock_guard<std::mutex> lock(mutex);
    resolved->emplace(key, *t);
  }
  return t;
}

static llvm::Expected<mxc::ResolvedTarget>
resolveTargetUncached(const mxc::TargetOptions &opts) {
  using namespace mxc;
  initializeOnce();
  ResolvedTarget t;
  std::string host = llvm::sys::getProcessTriple();
  t.triple = opts.triple.empty() ? host : llvm::Triple::normalize(opts.triple);
  t.isHost = llvm::Triple(t.triple) == llvm::Triple(host);
  std::string err;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(llvm::Triple(t.triple), err);
  if (!target)
    return llvm::createStringError("target triple '" + t.triple + "': " + err);

  llvm::SubtargetFeatures features;
  if (!opts.cpu.empty()) {
    t.cpu = opts.cpu;
  } else if (t.isHost) {
    t.cpu = llvm::sys::getHostCPUName().str();
    // -march=native: every feature the host reports, on or off.
    llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
    std::vector<std::string> names;
    for (auto &f : host)
      names.push_back((f.second ? "+" : "-") + f.first().str());
    llvm::sort(names); // StringMap order is not stable; the key must be
    for (auto &n : names)
      features.AddFeature(n);
  } else {
    t.cpu = "generic";
  }
  if (!opts.features.empty())
    for (StringRef f : llvm::split(opts.features, ','))
      if (!f.trim().empty())
        features.AddFeature(f.trim());
  t.features = features.getString();

  // Check the CPU and features against the target's tables (a subtarget
  // for an unknown CPU would print a warning of its own).
  std::unique_ptr<llvm::MCSubtargetInfo> sti(
      target->createMCSubtargetInfo(llvm::Triple(t.triple), "", ""));
  if (!sti || !sti->isCPUStringValid(t.cpu))
    return llvm::createStringError("unknown CPU '" + t.cpu + "' for " +
                                   t.triple);
  for (StringRef f : llvm::split(opts.features, ',')) {
    f = f.trim();
    if (f.empty())
      continue;
    bool known = false;
    StringRef name = f.ltrim("+-");
    for (const llvm::SubtargetFeatureKV &kv : sti->getAllProcessorFeatures())
      if (name == kv.Key)
        known = true;
    if (!known || !(f.starts_with("+") || f.starts_with("-")))
      return llvm::createStringError("unknown CPU feature '" + f.str() +
                                     "' for " + t.triple +
                                     " (expected +name or -name, e.g. +avx2)");
  }
  return t;
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
mxc::createTargetMachine(const ResolvedTarget &t, unsigned optLevel) {
  initializeOnce();
  std::string err;
  llvm::Triple triple(t.triple);
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, err);
  if (!target)
    return llvm::createStringError("target triple '" + t.triple + "': " + err);
  llvm::TargetOptions options;
  // Module constructors in .init_array, as clang emits them on ELF targets
  // (lld does not run .ctors: the CUDA target's kernel loaders are ctors).
  options.UseInitArray = true;
  llvm::CodeGenOptLevel level = optLevel == 0   ? llvm::CodeGenOptLevel::None
                                : optLevel == 1 ? llvm::CodeGenOptLevel::Less
                                : optLevel == 2
                                    ? llvm::CodeGenOptLevel::Default
                                    : llvm::CodeGenOptLevel::Aggressive;
  std::unique_ptr<llvm::TargetMachine> tm(
      target->createTargetMachine(triple, t.cpu, t.features, options,
                                  llvm::Reloc::PIC_, std::nullopt, level));
  if (!tm)
    return llvm::createStringError("cannot create a target machine for " +
                                   t.triple);
  return tm;
}

LogicalResult mxc::lowerToLinalg(ModuleOp module, const PipelineOptions &opts) {
  if (failed(runGraphPasses(module, opts)))
    return failure();
  // GEMM-class ops become mxrt.kernel_call, whose reads and write one-shot
  // bufferization sees at the call: CSE may merge or move their operands.
  // For the CUDA target, ops that have a CPU kernel and a generated form
  // (LRN) take the generated form (mxc/Conversion/Passes.h).
  if (!opts.cudaArch.empty())
    module->setAttr(kCudaTargetAttr, UnitAttr::get(module.getContext()));
  std::string pipeline = "convert-mx-to-linalg, canonicalize, cse";
  if (opts.fuseElementwise)
    pipeline += ", mxc-fuse-elementwise-ops, canonicalize, cse";
  // On the GPU a reduction's outputs are its threads: long reductions with
  // few outputs are split (BatchNorm's statistics in training).
  if (opts.splitReductions || !opts.cudaArch.empty() || opts.emulateGpuKernels) {
    std::string knobs;
    if (opts.splitTargetThreads > 0)
      knobs += " target-threads=" + std::to_string(opts.splitTargetThreads);
    if (opts.splitMaxChunks > 0)
      knobs += " max-chunks=" + std::to_string(opts.splitMaxChunks);
    pipeline += ", func.func(mxc-split-reductions" +
                (knobs.empty() ? std::string() : "{" + knobs.substr(1) + "}") +
                "), canonicalize, cse";
  }
  return runPipeline(module, pipeline);
}

/// PipelineOptions::inPlace as @main's `mx.in_place` (kInPlaceAttrName):
/// pairs of argument numbers after mxc-entry-abi, [input, inputs + output].
static LogicalResult markInPlace(ModuleOp module, const mxc::PipelineOptions &opts) {
  if (opts.inPlace.empty())
    return success();
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main)
    return module.emitError() << "internal error: no @main for in-place outputs";
  FunctionType type = main.getFunctionType();
  SmallVector<int64_t> pairs;
  for (StringRef entry : opts.inPlace) {
    auto [outText, name] = entry.split('=');
    unsigned out;
    if (outText.getAsInteger(10, out) || out >= type.getNumResults())
      return main.emitError() << "in-place output '" << entry
                              << "': no output " << outText << " (the graph has "
                              << type.getNumResults() << ")";
    std::optional<unsigned> in;
    for (unsigned i = 0; i < type.getNumInputs(); ++i)
      if (auto n = main.getArgAttrOfType<StringAttr>(i, "mx.name");
          n && n.getValue() == name)
        in = i;
    if (!in)
      return main.emitError() << "in-place output '" << entry
                              << "': no input named '" << name << "'";
    if (type.getInput(*in) != type.getResult(out))
      return main.emitError() << "in-place output '" << entry << "': output "
                              << out << " is " << type.getResult(out)
                              << ", input '" << name << "' "
                              << type.getInput(*in);
    pairs.push_back(*in);
    pairs.push_back(type.getNumInputs() + out);
  }
  main->setAttr(mxc::kInPlaceAttrName,
                DenseI64ArrayAttr::get(module.getContext(), pairs));
  return success();
}

LogicalResult mxc::lowerToBuffers(ModuleOp module,
                                  const PipelineOptions &opts) {
  if (failed(markInPlace(module, opts)))
    return failure();
  // The entry ABI, then bufferization with the caller's buffers as
  // destinations. Kernel calls stay mxrt.kernel_call (whose reads and writes
  // memory planning sees) until after planning.
  std::string pipeline = "mxc-entry-abi{entry=" + opts.entrySymbol + "}";
  if (opts.fastReductions)
    pipeline += ", mxc-reassociate-reductions";
  if (opts.approximateMath)
    pipeline += ", mxc-approximate-math";
  return runPipeline(module,
                     pipeline +
                         ", mxc-empty-tensor-per-use, eliminate-empty-tensors,"
                         "one-shot-bufferize{bufferize-function-boundaries "
                         "function-boundary-type-conversion=identity-layout-map},"
                         // After CSE (which makes the two views of a copy
                         // into a Concat's part one value) canonicalize
                         // again: a self-copy would otherwise be a step.
                         "canonicalize, cse, canonicalize");
}

/// Adds `llvm.mlir.global external constant @<entry>_arena_size(N) : i64`
/// from the entry's mx.arena_size (which mx-plan-memory sets).
static LogicalResult addArenaSizeGlobal(ModuleOp module, StringRef entry) {
  auto func = module.lookupSymbol<func::FuncOp>(entry);
  auto size = func ? func->getAttrOfType<IntegerAttr>(mxc::kArenaSizeAttrName)
                   : IntegerAttr();
  if (!size)
    return module.emitError()
           << "internal error: no arena size on @" << entry
           << " after mx-plan-memory";
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  auto i64 = b.getI64Type();
  LLVM::GlobalOp::create(b, func.getLoc(), i64, /*isConstant=*/true,
                         LLVM::Linkage::External, mxc::runtime::arenaSizeSymbol(entry.str()),
                         b.getIntegerAttr(i64, size.getInt()));
  return success();
}

FailureOr<mxc::runtime::Plan> mxc::extractPlan(ModuleOp module,
                                               StringRef entry) {
  namespace rt = mxc::runtime;
  auto func = module.lookupSymbol<func::FuncOp>(entry);
  if (!func)
    return module.emitError() << "internal error: no @" << entry;
  auto names = func->getAttrOfType<ArrayAttr>(kBufferNamesAttrName);
  auto numInputs = func->getAttrOfType<IntegerAttr>(kNumInputsAttrName);
  auto arenaSize =
      func->getAttrOfType<IntegerAttr>(mxc::kArenaSizeAttrName);
  if (!names || !numInputs || !arenaSize || func.getNumArguments() == 0 ||
      names.size() != func.getNumArguments() - 1)
    return func.emitError() << "internal error: @" << entry
                            << " is not a planned entry (no buffer names, "
                               "input count or arena size)";
  rt::Plan plan;
  plan.arenaBytes = uint64_t(arenaSize.getInt());
  std::set<std::string> usedNames, usedSteps;
  llvm::DenseMap<Value, uint32_t> bufferIndex;
  Value arena = func.getArguments().back();
  auto describe = [&](Value v, rt::PlanBuffer &b) -> LogicalResult {
    auto type = dyn_cast<MemRefType>(v.getType());
    std::optional<rt::DType> dtype;
    if (type)
      dtype = rt::dtypeFromName(
          mx::getMXNetDTypeName(type.getElementType()).str());
    if (!type || !type.hasStaticShape() || !dtype)
      return func.emitError()
             << "internal error: a plan buffer of type " << v.getType();
    b.dtype = *dtype;
    b.shape.assign(type.getShape().begin(), type.getShape().end());
    b.size = uint64_t(type.getNumElements()) * rt::dtypeSize(*dtype);
    return success();
  };
  int64_t nIn = numInputs.getInt();
  for (unsigned i = 0; i + 1 < func.getNumArguments(); ++i) {
    rt::PlanBuffer b;
    b.name = planToken(cast<StringAttr>(names[i]).getValue(), usedNames);
    b.kind = int64_t(i) < nIn ? rt::BufferKind::Argument
                              : rt::BufferKind::Output;
    b.index = int64_t(i) < nIn ? i : i - nIn;
    if (failed(describe(func.getArgument(i), b)))
      return failure();
    bufferIndex[func.getArgument(i)] = plan.buffers.size();
    plan.buffers.push_back(std::move(b));
  }
  for (Operation &op : func.front().without_terminator()) {
    auto call = dyn_cast<func::CallOp>(op);
    if (!call) {
      if (isMemoryEffectFree(&op) && op.getNumRegions() == 0)
        continue; // constants and the buffers' views
      return op.emitError() << "internal error: " << op.getName()
                            << " in a planned entry after mx-outline-steps";
    }
    auto stepAttr = call->getAttrOfType<IntegerAttr>("mx.step");
    auto readsAttr = call->getAttrOfType<IntegerAttr>("mx.reads");
    auto nodes = call->getAttrOfType<ArrayAttr>("mx.nodes");
    if (!stepAttr || !readsAttr || !nodes)
      return call.emitError() << "internal error: a call without mx.step";
    rt::PlanStep step;
    SmallVector<std::string> nodeList;
    for (Attribute n : nodes)
      nodeList.push_back(cast<StringAttr>(n).str());
    std::string stepName = llvm::join(nodeList, "+");
    if (stepName.empty())
      stepName = "step" + std::to_string(stepAttr.getInt());
    step.name = planToken(stepName, usedSteps);
    step.kernel =
        rt::stepKernelSymbol(entry.str(), size_t(stepAttr.getInt()));
    step.device = rt::Device::cpu(0);
    for (auto [k, v] : llvm::enumerate(call.getOperands())) {
      auto it = bufferIndex.find(v);
      if (it == bufferIndex.end()) {
        rt::PlanBuffer b;
        b.kind = rt::BufferKind::Arena;
        if (v == arena) {
          b.offset = 0;
        } else if (auto view = v.getDefiningOp<memref::ViewOp>();
                   view && view.getSource() == arena) {
          auto shift = getConstantIntValue(view.getByteShift());
          if (!shift)
            return view.emitError() << "internal error: an arena view at a "
                                       "dynamic offset";
          b.offset = uint64_t(*shift);
        } else {
          return call.emitError() << "internal error: step operand " << k
                                  << " is neither an entry buffer nor an "
                                     "arena view";
        }
        if (failed(describe(v, b)))
          return failure();
        b.name = planToken("t" + std::to_string(plan.buffers.size()),
                           usedNames);
        it = bufferIndex.try_emplace(v, plan.buffers.size()).first;
        plan.buffers.push_back(std::move(b));
      }
      (int64_t(k) < readsAttr.getInt() ? step.reads : step.writes)
          .push_back(it->second);
    }
    plan.steps.push_back(std::move(step));
  }
  return plan;
}

FailureOr<std::string> mxc::getPlanText(ModuleOp module) {
  auto text = module->getAttrOfType<StringAttr>(kPlanAttr);
  if (!text)
    return module.emitError() << "internal error: no plan in the module";
  return text.str();
}

/// The CUDA toolkit that gpu-module-to-binary runs ptxas / fatbinary from
/// and takes libdevice from: $CUDA_HOME, $CUDA_PATH, else /usr/local/cuda.
static FailureOr<std::string> cudaToolkit(ModuleOp module) {
  std::string dir = "/usr/local/cuda";
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *v = std::getenv(var); v && *v) {
      dir = v;
      break;
    }
  if (!llvm::sys::fs::exists(dir + "/bin/ptxas") ||
      !llvm::sys::fs::exists(dir + "/nvvm/libdevice/libdevice.10.bc"))
    return module.emitError()
           << "--target cuda needs the CUDA toolkit (ptxas, libdevice): none at '" << dir
           << "' (set CUDA_HOME)";
  return dir;
}

/// Renames each library call of the planned steps to its GPU twin
/// (mxc_kernel_X -> mxc_cuda_kernel_X); one without a twin is an error
/// naming its node, unless `emulated` (the GPU kernel emulation, which runs
/// the CPU kernels: the graph keeps the CPU's library calls, as the plain
/// convolution, which the CUDA target has in its workspace form).
static LogicalResult useGpuLibraryKernels(ModuleOp module, bool emulated = false) {
  // Library calls with a GPU twin (runtime/src/cuda/cublas_kernels.cc,
  // cudnn_kernels.cc: GEMM through cuBLAS; convolution, its gradients,
  // pooling, training BatchNorm's forward and gradient, LRN's and softmax's
  // through cuDNN; same arguments on device pointers; softmax's and
  // pooling's forward exist for the GPU only; the CPU-only kernels' twins run
  // them on host copies, host_kernels.cc, as the pooling gradients cuDNN
  // cannot take, Backward.cpp) call it; the others are an error naming the
  // node.
  bool unsupported = false;
  module.walk([&](mxc::mxrt::KernelCallOp call) {
    StringRef callee = call.getCallee();
    static const char *const kOnGpu[] = {
        "mxc_kernel_gemm_f32",          "mxc_kernel_gemm_f64",
        "mxc_kernel_fully_connected_f32", "mxc_kernel_fully_connected_f64",
        "mxc_kernel_conv_backward_data_f32", "mxc_kernel_conv_backward_data_f64",
        "mxc_kernel_conv_backward_weight_f32", "mxc_kernel_conv_backward_weight_f64",
        "mxc_kernel_pooling_backward_f32", "mxc_kernel_pooling_backward_f64",
        "mxc_kernel_batch_norm_train_f32", "mxc_kernel_batch_norm_train_f64",
        "mxc_kernel_batch_norm_backward_f32", "mxc_kernel_batch_norm_backward_f64",
        "mxc_kernel_lrn_f32", "mxc_kernel_lrn_f64",
        "mxc_kernel_lrn_backward_f32", "mxc_kernel_lrn_backward_f64",
        "mxc_kernel_softmax_f32", "mxc_kernel_softmax_f64",
        "mxc_kernel_softmax_backward_f32", "mxc_kernel_softmax_backward_f64",
        "mxc_kernel_pooling_forward_f32", "mxc_kernel_pooling_forward_f64",
        "mxc_kernel_conv_workspace_f32", "mxc_kernel_conv_workspace_f64",
        // run on the host, for the GPU (runtime/src/cuda/host_kernels.cc)
        "mxc_kernel_topk_f32", "mxc_kernel_topk_f64",
        "mxc_kernel_box_nms_f32", "mxc_kernel_box_nms_f64",
        "mxc_kernel_bipartite_matching_f32", "mxc_kernel_bipartite_matching_f64",
        "mxc_kernel_multibox_target_f32", "mxc_kernel_multibox_target_f64",
        "mxc_kernel_multibox_detection_f32", "mxc_kernel_multibox_detection_f64",
        "mxc_kernel_syevd_f32", "mxc_kernel_syevd_f64",
        "mxc_kernel_lu_f32", "mxc_kernel_lu_f64",
        "mxc_kernel_rroi_align_f32", "mxc_kernel_rroi_align_f64",
        "mxc_kernel_proposal_f32", "mxc_kernel_proposal_f64",
        "mxc_kernel_pooling_backward_host_f32", "mxc_kernel_pooling_backward_host_f64",
        "mxc_kernel_lrn_backward_host_f32", "mxc_kernel_lrn_backward_host_f64"};
    if (!emulated && !llvm::is_contained(kOnGpu, callee)) {
      call.emitError() << "'" << callee
                       << "' has no GPU kernel yet (--target cuda compiles elementwise, "
                          "broadcast and reduction steps, f32/f64 GEMM through cuBLAS, "
                          "convolution and its gradients, max / avg / sum pooling, "
                          "training BatchNorm, LRN and softmax through cuDNN, ordering, "
                          "detection, LU / syevd and region kernels on the host; the other "
                          "library calls are CPU-only so far)";
      unsupported = true;
      return;
    }
    call.setCallee(mxc::gpuTwinOf(callee));
  });
  return failure(unsupported);
}

/// The steps of a planned module (mx-outline-steps) as GPU kernels: the
/// linalg ops of each step become scf.parallel nests, one dimension each,
/// in blocks of 128 threads, 4 innermost elements a thread (mxc-gpu-collapse-parallel-loops,
/// scf-parallel-loop-tiling, gpu-map-parallel-loops), outlined into
/// gpu.module's that NVVM compiles into a fatbin (cubin for the
/// architecture + PTX); the step functions keep only the launches, which
/// gpu-to-llvm turns into calls of the runtime's mgpu* functions
/// (runtime/src/cuda/mgpu_wrappers.cc), the embedded binaries being loaded
/// by module constructors. A step with anything else left on the host (a
/// GEMM-class library call, a loop the mapping did not take) is an error
/// naming its node (mxc-gpu-check-host-code).
LogicalResult mxc::lowerStepsForCuda(ModuleOp module, const PipelineOptions &opts) {
  FailureOr<std::string> toolkit = cudaToolkit(module);
  if (failed(toolkit) || failed(useGpuLibraryKernels(module)))
    return failure();
  return runPipeline(
      module,
      "mxrt-lower-kernel-calls, canonicalize, cse," + cudaKernelsPipeline(opts.cudaArch, opts.cudaFeatures, opts.cudaBlockSize,
                                                 opts.cudaElementsPerThread) + "," +
      "gpu-module-to-binary{format=" + opts.cudaFormat + " toolkit=" + *toolkit + "},"
      "expand-strided-metadata, lower-affine, convert-scf-to-cf,"
      "gpu-to-llvm{use-bare-pointers-for-kernels=true},"
      "finalize-memref-to-llvm, convert-to-llvm, reconcile-unrealized-casts");
}

/// The end of the CPU's lowering (its steps' loops already control flow):
/// math, memrefs, vectors and the rest to the LLVM dialect; math functions
/// without an LLVM intrinsic become libm calls.
static constexpr const char kHostCodeToLLVM[] =
    "convert-math-to-llvm, convert-math-to-libm, finalize-memref-to-llvm, "
    "convert-vector-to-llvm, convert-to-llvm, reconcile-unrealized-casts";

/// The GPU kernel emulation (PipelineOptions::emulateGpuKernels): the
/// steps of a CPU plan through the CUDA target's kernel mapping (library
/// calls renamed to their GPU twins, every loop nest a gpu.launch of
/// blocks and threads, mxc-gpu-check-host-code), then each launch a host
/// loop over its blocks and threads and the twins back to the CPU kernels
/// (mxc-gpu-launches-on-host), lowered as the CPU's steps are (serially:
/// no kernel threads).
static LogicalResult lowerStepsAsEmulatedGpuKernels(ModuleOp module,
                                                    const mxc::PipelineOptions &opts) {
  if (failed(useGpuLibraryKernels(module, /*emulated=*/true)))
    return failure();
  return runPipeline(
      module, "mxrt-lower-kernel-calls, canonicalize, cse," +
                  mxc::cudaLaunchesPipeline(opts.cudaBlockSize, opts.cudaElementsPerThread) +
                  ", canonicalize, mxc-gpu-check-host-code{launches=true}, mxc-gpu-launches-on-host" +
                  (opts.emulateGpuReversed ? "{reverse=true}," : ",") +
                  "func.func(canonicalize, cse, expand-strided-metadata, lower-affine, "
                  "convert-scf-to-cf), " +
                  kHostCodeToLLVM);
}

LogicalResult mxc::lowerToLLVMDialect(ModuleOp module,
                                      const PipelineOptions &opts) {
  if (failed(lowerToBuffers(module, opts)))
    return failure();
  // Every intermediate into the arena argument, then the kernel calls'
  // ABI, then deallocation of whatever is still allocated (dynamic shapes).
  // Then loops, then LLVM. Math functions without an LLVM intrinsic become
  // libm calls.
  if (failed(runPipeline(module, "mx-plan-memory{strategy=" +
                                     opts.memoryPlan + "}")) ||
      failed(addArenaSizeGlobal(module, opts.entrySymbol)))
    return failure();
  // One kernel function a step; the entry, now a list of calls, is the plan:
  // serialised into the module (`mxc.plan`), then dropped, so that only the
  // kernels are compiled (docs/runtime.md, "Plans from the compiler").
  if (failed(runPipeline(module, "mx-outline-steps")))
    return failure();
  FailureOr<runtime::Plan> plan = extractPlan(module, opts.entrySymbol);
  if (failed(plan))
    return failure();
  if (!opts.cudaArch.empty())
    for (runtime::PlanStep &step : plan->steps)
      step.device = runtime::Device::gpu(0);
  {
    std::string body = plan->print();
    runtime::PlanError perr;
    if (!runtime::Plan::parse(body, &perr))
      return module.emitError()
             << "internal error: the plan does not validate: " << perr.str();
    module->setAttr(kPlanAttr, StringAttr::get(module.getContext(), body));
  }
  module.lookupSymbol<func::FuncOp>(opts.entrySymbol).erase();
  if (!opts.cudaArch.empty())
    return lowerStepsForCuda(module, opts);
  if (opts.emulateGpuKernels)
    return lowerStepsAsEmulatedGpuKernels(module, opts);
  // Loop nests of parallel iterators become scf.parallel, whose outermost
  // ones run on the kernel threads (mxc-parallel-loops); the rest lower to
  // sequential loops with everything else.
  return runPipeline(
      module,
      std::string("mxrt-lower-kernel-calls, func.func(canonicalize, cse), "
                  "buffer-deallocation-pipeline, func.func(canonicalize),"
                  "mxc-strided-copies-to-linalg, mxc-free-after-last-use,") +
          // Loops as long as the data allows for LLVM's vectorizer (a bias
          // over NCHW: H * W, not W); CSE merges the views of an operand
          // that a step reads and writes in place (mx-outline-steps' twins),
          // which mxc-parallel-loops would otherwise capture as two
          // pointers (and LLVM then keeps the loop scalar).
          "mxc-collapse-contiguous-dims, func.func(cse)," +
          (opts.parallelLoops
               ? "func.func(convert-linalg-to-parallel-loops), "
                 "mxc-parallel-loops,"
               : "") +
          // Per function (the steps), so that MLIR's thread pool runs them
          // side by side.
          "func.func(convert-linalg-to-loops, expand-strided-metadata, "
          "lower-affine, convert-scf-to-cf), " +
          kHostCodeToLLVM);
}

llvm::Expected<std::unique_ptr<llvm::Module>>
mxc::translateToLLVMIR(ModuleOp module, llvm::LLVMContext &llvmCtx,
                       llvm::TargetMachine &tm, const PipelineOptions &opts,
                       bool optimize) {
  std::unique_ptr<llvm::Module> m = translateModuleToLLVMIR(module, llvmCtx);
  if (!m)
    return llvm::createStringError(
        "internal error: translation to LLVM IR failed");
  m->setTargetTriple(tm.getTargetTriple());
  m->setDataLayout(tm.createDataLayout());
  auto planText = module->getAttrOfType<StringAttr>(kPlanAttr);
  if (!planText)
    return llvm::createStringError("internal error: no plan in the module "
                                   "(lowerToLLVMDialect adds it)");
  if (auto err = addPlanSymbols(*m, planText.getValue(), opts.entrySymbol))
    return std::move(err);
  if (!m->getGlobalVariable(runtime::arenaSizeSymbol(opts.entrySymbol)))
    return llvm::createStringError("internal error: no " +
                                   runtime::arenaSizeSymbol(opts.entrySymbol) +
                                   " in the LLVM module");
  StringRef cpu = tm.getTargetCPU();
  StringRef features = tm.getTargetFeatureString();
  for (llvm::Function &f : *m) {
    if (f.isDeclaration())
      continue;
    f.addFnAttr("target-cpu", cpu);
    if (!features.empty())
      f.addFnAttr("target-features", features);
  }
  std::string verifyErr;
  llvm::raw_string_ostream os(verifyErr);
  if (llvm::verifyModule(*m, &os))
    return llvm::createStringError("internal error: invalid LLVM IR: " +
                                   verifyErr);
  if (optimize)
    optimizeLLVMModule(*m, tm, opts.optLevel);
  return m;
}

llvm::Expected<mxc::TargetModule>
mxc::translateForTarget(ModuleOp module, const ResolvedTarget &target,
                        llvm::LLVMContext &llvmCtx,
                        const PipelineOptions &opts, bool optimize) {
  auto tm = createTargetMachine(target, opts.optLevel);
  if (!tm)
    return tm.takeError();
  auto llvmModule = translateToLLVMIR(module, llvmCtx, **tm, opts, optimize);
  if (!llvmModule)
    return llvmModule.takeError();
  return TargetModule{std::move(*tm), std::move(*llvmModule)};
}

void mxc::optimizeLLVMModule(llvm::Module &m, llvm::TargetMachine &tm,
                             unsigned level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = level > 1;
  pto.SLPVectorization = level > 1;
  pto.LoopUnrolling = level > 1;
  llvm::PassBuilder pb(&tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel ol = level == 0   ? llvm::OptimizationLevel::O0
                               : level == 1 ? llvm::OptimizationLevel::O1
                               : level == 2 ? llvm::OptimizationLevel::O2
                                            : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = level == 0
                                    ? pb.buildO0DefaultPipeline(ol)
                                    : pb.buildPerModuleDefaultPipeline(ol);
  mpm.run(m, mam);
}

void mxc::exposeModuleInitializers(llvm::Module &module, llvm::StringRef entry) {
  // The {priority, function, data} rows of an llvm.global_(c|d)tors array,
  // in priority order (equal priorities keep the array's order).
  auto take = [&](llvm::StringRef name) {
    std::vector<std::tuple<uint64_t, size_t, llvm::Function *>> rows;
    llvm::GlobalVariable *gv = module.getGlobalVariable(name);
    if (!gv)
      return rows;
    if (auto *array = llvm::dyn_cast_or_null<llvm::ConstantArray>(
            gv->hasInitializer() ? gv->getInitializer() : nullptr))
      for (const llvm::Use &use : array->operands())
        if (auto *row = llvm::dyn_cast<llvm::ConstantStruct>(use.get()))
          if (auto *fn = llvm::dyn_cast<llvm::Function>(
                  row->getOperand(1)->stripPointerCasts()))
            rows.emplace_back(
                llvm::cast<llvm::ConstantInt>(row->getOperand(0))->getZExtValue(),
                rows.size(), fn);
    gv->eraseFromParent();
    llvm::sort(rows);
    return rows;
  };
  auto ctors = take("llvm.global_ctors");
  auto dtors = take("llvm.global_dtors");
  llvm::LLVMContext &ctx = module.getContext();
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false);
  auto define = [&](const std::string &name, const auto &rows) {
    llvm::Function *fn = llvm::Function::Create(
        type, llvm::GlobalValue::ExternalLinkage, name, module);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
    for (const auto &[priority, index, callee] : rows)
      b.CreateCall(callee->getFunctionType(), callee);
    b.CreateRetVoid();
  };
  define(runtime::moduleInitSymbol(entry.str()), ctors);
  define(runtime::moduleFiniSymbol(entry.str()), dtors);
}

llvm::Expected<std::string> mxc::emitObjectFile(llvm::Module &module,
                                                llvm::TargetMachine &tm) {
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream os(bytes);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr,
                             llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError(
        "the target machine cannot write object files");
  pm.run(module);
  return std::string(bytes.begin(), bytes.end());
}
