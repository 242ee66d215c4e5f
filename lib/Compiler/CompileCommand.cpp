//===- CompileCommand.cpp - mxc compile -----------------------------------===//
//
//   mxc compile model-symbol.json --params model-0000.params
//       --shape data=1,3,224,224 [--target x86_64-linux-gnu|aarch64-linux-gnu|cuda [--cuda-arch sm_90]]
//       [--mcpu NAME] [-O0..-O3] [--emit mlir|llvm|obj|shared|exe|plan|ptx]
//       [--weights embed|external|inputs] [--train [--wrt NAMES]] [--stats]
//       [-o OUT]
//
// Ahead-of-time compilation (docs/aot.md): the pipeline of `mxc codegen`
// (the same lowering the JIT runs), plus the model descriptor and weights
// (AOT.h), then clang/lld links the runtime's model API for a shared library
// or an executable. Inputs of the compiled model are the graph's data inputs;
// every parameter and auxiliary state must have a value in --params. With
// --train the model is a training step: head gradients are ones (weights),
// outputs are the heads, the gradients <arg>_grad and the new aux states.
//
//===----------------------------------------------------------------------===//
#include "DriverSupport.h"

#include "mxc/Compiler/AOT.h"
#include "mxc/Compiler/JIT.h"
#include "mxc/Compiler/KernelCodegen.h"
#include "mxc/Compiler/Pipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
using namespace mxc;
using namespace mxc::driver;

namespace {

/// "resnet18" for ".../resnet18-symbol.json".
std::string modelNameOf(StringRef path) {
  StringRef name = llvm::sys::path::filename(path);
  for (StringRef suffix : {"-symbol.json", ".json", ".mlir"})
    if (name.ends_with(suffix)) {
      name = name.drop_back(suffix.size());
      break;
    }
  return name.empty() ? "model" : name.str();
}

std::string defaultOutput(StringRef emit, StringRef name) {
  if (emit == "exe")
    return name.str();
  if (emit == "shared")
    return ("lib" + name + ".so").str();
  if (emit == "obj")
    return (name + ".o").str();
  if (emit == "plan")
    return (name + ".plan").str();
  if (emit == "llvm")
    return (name + ".ll").str();
  return (name + ".mlir").str();
}

bool writeFile(StringRef path, StringRef bytes, bool text) {
  std::error_code ec;
  llvm::ToolOutputFile out(path, ec,
                           text ? llvm::sys::fs::OF_Text
                                : llvm::sys::fs::OF_None);
  if (ec) {
    errorLine() << path << ": " << ec.message() << "\n";
    return false;
  }
  out.os() << bytes;
  out.keep();
  return true;
}

} // namespace

/// mxc compile --train: the head gradients are ones (MXNet's backward() of a
/// loss, `mxc run --train` without --head-grad): fills of ones in @main
/// (linalg.fill) instead of its head_grad arguments, so that they take no
/// bytes in the weights (a BatchNorm's output-sized ones were its whole
/// size).
static void headGradientsAsOnes(ModuleOp module) {
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main || main.isExternal())
    return;
  llvm::BitVector erase(main.getNumArguments());
  OpBuilder b = OpBuilder::atBlockBegin(&main.front());
  for (unsigned i = 0; i < main.getNumArguments(); ++i) {
    auto kind = main.getArgAttrOfType<StringAttr>(i, "mx.kind");
    auto type = dyn_cast<RankedTensorType>(main.getArgument(i).getType());
    if (!kind || kind.getValue() != "head_grad" || !type)
      continue;
    Type elt = type.getElementType();
    TypedAttr one;
    if (auto f = dyn_cast<FloatType>(elt))
      one = b.getFloatAttr(f, 1.0);
    else if (auto n = dyn_cast<IntegerType>(elt))
      one = b.getIntegerAttr(n, 1);
    else
      continue; // left an input
    // A fill, not a dense constant: later passes would fold a splat
    // constant through reshapes into a materialised global (host memory,
    // output-sized).
    Location loc = main.getArgument(i).getLoc();
    Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), elt);
    Value ones = linalg::FillOp::create(b, loc, arith::ConstantOp::create(b, loc, one).getResult(),
                                        empty)
                     .getResult(0);
    main.getArgument(i).replaceAllUsesWith(ones);
    erase.set(i);
  }
  (void)main.eraseArguments(erase);
}

int driver::runAOTCompileCommand(const AOTCompileOptions &opts) {
  auto total = Clock::now();
  StringRef emit = opts.emit;
  if (emit != "mlir" && emit != "llvm" && emit != "obj" && emit != "shared" &&
      emit != "exe" && emit != "plan" && emit != "ptx") {
    errorLine() << "--emit='" << emit
                << "': expected mlir, llvm, obj, shared, exe, plan or ptx\n";
    return kBadUsage;
  }
  if (emit == "ptx" && opts.cudaArch.empty()) {
    errorLine() << "--emit=ptx needs --target cuda\n";
    return kBadUsage;
  }
  if (opts.weights != "embed" && opts.weights != "external" &&
      opts.weights != "inputs") {
    errorLine() << "--weights='" << opts.weights
                << "': expected embed, external or inputs\n";
    return kBadUsage;
  }
  bool weightsAreInputs = opts.weights == "inputs";
  if (opts.optLevel > 3) {
    errorLine() << "-O" << opts.optLevel << ": expected -O0, -O1, -O2 or -O3\n";
    return kBadUsage;
  }
  // The target: LLVM must know the triple; linking needs a runtime for it.
  TargetOptions targetOpts = opts.target;
  if (!targetOpts.triple.empty()) {
    llvm::Triple t(llvm::Triple::normalize(targetOpts.triple));
    if (t.getArch() == llvm::Triple::UnknownArch || !t.isOSLinux()) {
      errorLine() << "--target '" << targetOpts.triple
                  << "': unknown target triple (expected x86_64-linux-gnu or "
                     "aarch64-linux-gnu)\n";
      return kBadUsage;
    }
  }
  auto target = resolveTarget(targetOpts);
  if (!target) {
    errorLine() << llvm::toString(target.takeError()) << "\n";
    return kBadUsage;
  }
  bool link = emit == "shared" || emit == "exe";
  std::string runtimeDir;
  if (link) {
    auto dir = aot::findRuntimeDir(target->triple, opts.runtimeDir);
    if (!dir) {
      errorLine() << llvm::toString(dir.takeError()) << "\n";
      return kBadInput;
    }
    runtimeDir = *dir;
  }
  std::string name = modelNameOf(opts.model);
  std::string output =
      opts.output.empty() ? defaultOutput(emit, name) : opts.output;
  if (StringRef parent = llvm::sys::path::parent_path(output);
      output != "-" && !parent.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(parent)) {
      errorLine() << parent << ": " << ec.message() << "\n";
      return kBadInput;
    }
  }

  // Import and check the weights.
  auto start = Clock::now();
  LoadedModel loaded = openModel(opts);
  if (!loaded.module)
    return loaded.status;
  OwningOpRef<ModuleOp> &module = loaded.module;
  PipelineOptions pipeline;
  pipeline.optLevel = opts.optLevel;
  pipeline.parallelLoops = opts.parallelLoops;
  pipeline.fuseConvolution = opts.convFusion;
  // The blocked layout is that of the x86-64 runtime's oneDNN kernels;
  // elsewhere the runtime would only convert to and from NCHW.
  pipeline.blockedLayout =
      opts.blockedLayout &&
      llvm::Triple(target->triple).getArch() == llvm::Triple::x86_64;
  // An AOT model loads its weights once (mxc_model.h has no call that
  // changes them); a plan takes them as arguments that its caller binds.
  // A training step differentiates them: no weights kept pre-laid-out.
  // Parameters given as inputs may change from run to run.
  pipeline.constantParams = !opts.train && !weightsAreInputs &&
                            (emit == "exe" || emit == "shared" || emit == "obj");
  pipeline.train = opts.train;
  pipeline.wrt = opts.wrt;
  pipeline.splitTargetThreads = opts.splitTargetThreads;
  pipeline.splitMaxChunks = opts.splitMaxChunks;
  pipeline.libraryBatchNorm = opts.libraryBatchNorm;
  pipeline.cudaArch = opts.cudaArch;
  pipeline.cudaBlockSize = opts.cudaBlockSize;
  pipeline.cudaElementsPerThread = opts.cudaElementsPerThread;
  pipeline.emulateGpuKernels = opts.emulateGpuKernels;
  pipeline.emulateGpuReversed = opts.emulateGpuReversed;
  if (emit == "ptx")
    pipeline.cudaFormat = "isa";
  if (failed(runGraphPasses(*module, pipeline)))
    return kBadInput;
  if (opts.train)
    headGradientsAsOnes(*module);
  FailureOr<EntrySignature> sig = getEntrySignature(*module);
  if (failed(sig))
    return kBadInput;
  // --weights inputs: the model's descriptor, header and weights treat
  // parameters and auxiliary states as data inputs.
  if (weightsAreInputs)
    for (TensorSpec &t : sig->inputs)
      if (t.kind == "param" || t.kind == "aux")
        t.kind = "data";
  // A plan takes the parameters as arguments, PTX has none: --params is
  // optional then.
  auto blob = emit == "plan" || emit == "ptx"
                  ? llvm::Expected<aot::WeightsBlob>(aot::WeightsBlob())
                  : aot::buildWeightsBlob(*sig, loaded.params);
  if (!blob) {
    errorLine() << llvm::toString(blob.takeError()) << "\n";
    return kBadInput;
  }
  double importMs = msSince(start);

  // MLIR lowering.
  start = Clock::now();
  if (failed(lowerToLinalg(*module, pipeline)) ||
      failed(lowerToLLVMDialect(*module, pipeline)))
    return kBadInput;
  double lowerMs = msSince(start);
  if (emit == "ptx") {
    // OUT/ (a directory): one <gpu.module>.ptx for each, as ptxas or
    // cuModuleLoadData take them.
    std::string dir = opts.output.empty() ? name + "-ptx" : opts.output;
    if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
      errorLine() << dir << ": " << ec.message() << "\n";
      return kBadInput;
    }
    bool ok = true;
    module->walk([&](gpu::BinaryOp bin) {
      for (Attribute a : bin.getObjects())
        if (auto obj = dyn_cast<gpu::ObjectAttr>(a))
          ok = ok && writeFile(dir + "/" + bin.getSymName().str() + ".ptx",
                               obj.getObject().getValue(), true);
    });
    return ok ? kOk : kBadInput;
  }
  if (emit == "mlir") {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    return writeFile(output, text, true) ? kOk : kBadInput;
  }

  // LLVM IR, optimised for the target, with the descriptor. An executable
  // or shared library is code-generated kernel by kernel (KernelCodegen.h):
  // its LLVM IR is optimised there.
  start = Clock::now();
  bool byKernel = link && opts.cudaArch.empty();
  llvm::LLVMContext llvmCtx;
  auto translated = translateForTarget(*module, *target, llvmCtx, pipeline,
                                       /*optimize=*/!byKernel);
  if (!translated) {
    errorLine() << llvm::toString(translated.takeError()) << "\n";
    return kBadInput;
  }
  llvm::Module &llvmModule = *translated->module;
  llvm::TargetMachine &tm = *translated->machine;
  bool embed = opts.weights != "external";
  // External weights: OUT.weights (NAME.weights when writing to stdout).
  std::string weightsPath = (output == "-" ? name : output) + ".weights";
  aot::DescriptorOptions descOpts;
  descOpts.modelName = name;
  descOpts.triple = target->triple;
  descOpts.entrySymbol = pipeline.entrySymbol;
  descOpts.embedWeights = embed;
  descOpts.weightsFile = llvm::sys::path::filename(weightsPath).str();
  std::string planText;
  if (emit == "plan") {
    // Parameters are plan arguments: no descriptor, no weights. The plan is
    // the one the module carries (its kernels are in the object).
    FailureOr<std::string> text = getPlanText(*module);
    if (failed(text))
      return kBadInput;
    size_t header = text->find('\n') + 1; // "mxc-plan N" comes first
    planText = text->substr(0, header) + "# " + name +
               ": written by mxc compile --emit plan; the kernels are in the "
               "object beside it.\n# Parameters and auxiliary states are "
               "plan arguments (bind them from the .params).\n" +
               text->substr(header);
    embed = true; // nothing external to write
  } else if (auto err = aot::addModelDescriptor(llvmModule, *sig, *blob,
                                                descOpts)) {
    errorLine() << llvm::toString(std::move(err)) << "\n";
    return kBadInput;
  }
  double llvmMs = msSince(start);
  if (opts.verbose)
    llvm::errs() << "mxc: target " << target->triple << " cpu " << target->cpu
                 << "\n";
  if (!embed && !blob->bytes.empty() && output != "-") {
    if (auto err = aot::writeWeightsFile(weightsPath, *blob)) {
      errorLine() << llvm::toString(std::move(err)) << "\n";
      return kBadInput;
    }
  }
  if (emit == "llvm") {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvmModule.print(os, nullptr);
    return writeFile(output, text, true) ? kOk : kBadInput;
  }

  // Object code: one object, or the glue and one per distinct kernel.
  start = Clock::now();
  KernelObjects objects;
  if (byKernel) {
    KernelCodegenOptions kopts;
    kopts.optLevel = opts.optLevel;
    kopts.entrySymbol = pipeline.entrySymbol;
    kopts.keySalt = compilerIdentity();
    if (!opts.noCache)
      kopts.cacheDir = kernelCacheDir(defaultCacheDir());
    auto split = emitKernelObjects(std::move(translated->module), *target,
                                   kopts);
    if (!split) {
      errorLine() << llvm::toString(split.takeError()) << "\n";
      return kBadInput;
    }
    objects = std::move(*split);
  } else {
    auto object = emitObjectFile(llvmModule, tm);
    if (!object) {
      errorLine() << llvm::toString(object.takeError()) << "\n";
      return kBadInput;
    }
    objects.glue = std::move(*object);
  }
  const std::string &object = objects.glue;
  double codegenMs = msSince(start);
  uint64_t objectBytes =
      object.size() - (embed && emit != "plan" ? blob->bytes.size() : 0);
  for (const auto &kernel : objects.kernels)
    objectBytes += kernel.second.size();

  double linkMs = 0;
  if (emit == "plan") {
    // OUT: the plan text; OUT without .plan + ".o": the code.
    std::string objPath = output;
    if (StringRef(objPath).ends_with(".plan"))
      objPath.resize(objPath.size() - 5);
    if (!writeFile(output, planText, true) ||
        !writeFile(objPath + ".o", object, false))
      return kBadInput;
  } else if (emit == "obj") {
    if (!writeFile(output, object, false))
      return kBadInput;
    std::string header = output;
    if (StringRef(header).ends_with(".o"))
      header.resize(header.size() - 2);
    if (!writeFile(header + ".h", aot::modelHeader(*sig, name), true))
      return kBadInput;
  } else {
    start = Clock::now();
    std::vector<std::string> objPaths;
    auto removeObjects = [&] {
      for (const std::string &p : objPaths)
        llvm::sys::fs::remove(p);
    };
    bool ok = true;
    auto writeTemp = [&](StringRef bytes) {
      llvm::SmallString<128> path;
      if (auto ec =
              llvm::sys::fs::createTemporaryFile("mxc-model", "o", path)) {
        errorLine() << "temporary file: " << ec.message() << "\n";
        ok = false;
        return;
      }
      objPaths.push_back(std::string(path));
      ok = ok && writeFile(path, bytes, false);
    };
    writeTemp(object);
    for (const auto &kernel : objects.kernels)
      if (ok)
        writeTemp(kernel.second);
    aot::LinkOptions linkOpts;
    linkOpts.triple = target->triple;
    linkOpts.runtimeDir = runtimeDir;
    linkOpts.shared = emit == "shared";
    linkOpts.verbose = opts.verbose;
    llvm::Error err =
        ok ? aot::linkModel(objPaths, output, linkOpts) : llvm::Error::success();
    removeObjects();
    if (!ok)
      return kBadInput;
    if (err) {
      errorLine() << llvm::toString(std::move(err)) << "\n";
      return kBadInput;
    }
    if (emit == "shared") {
      std::string header = output;
      if (StringRef(header).ends_with(".so"))
        header.resize(header.size() - 3);
      if (!writeFile(header + ".h", aot::modelHeader(*sig, name), true))
        return kBadInput;
    }
    linkMs = msSince(start);
  }

  if (opts.stats) {
    auto f2 = [](double v) { return llvm::format("%.1f", v); };
    llvm::outs() << "stats: model " << name << ", target " << target->triple
                 << " cpu " << target->cpu << ", -O" << opts.optLevel << "\n";
    llvm::outs() << "stats: compile time " << f2(msSince(total))
                 << " ms (import " << f2(importMs) << " ms, mlir lowering "
                 << f2(lowerMs) << " ms, llvm " << f2(llvmMs)
                 << " ms, codegen " << f2(codegenMs) << " ms, link "
                 << f2(linkMs) << " ms)\n";
    llvm::outs() << "stats: model object " << objectBytes
                 << " bytes (weights excluded)\n";
    if (byKernel)
      llvm::outs() << "stats: kernels: " << objects.stats.describe() << "\n";
    llvm::outs() << "stats: weights " << blob->bytes.size() << " bytes ("
                 << (emit == "plan" ? "plan arguments"
                     : embed        ? "embedded"
                                    : "external: " + weightsPath)
                 << ")\n";
    if (link) {
      auto sizes = aot::measureBinary(output);
      if (!sizes) {
        errorLine() << llvm::toString(sizes.takeError()) << "\n";
        return kBadInput;
      }
      uint64_t withoutWeights = sizes->fileBytes - sizes->weightsBytes;
      llvm::outs() << "stats: " << emit << " " << output << ": "
                   << sizes->fileBytes << " bytes; code + runtime (weights "
                   << "excluded) " << withoutWeights << " bytes = "
                   << llvm::format("%.3f", withoutWeights / 1048576.0)
                   << " MiB (text " << sizes->codeBytes << ", data "
                   << sizes->dataBytes
                   << "); shared libraries not counted: libstdc++, libm, "
                      "libc, OpenBLAS\n";
    }
  }
  return kOk;
}
