//===- Driver.cpp - the mxc command line ----------------------------------===//
//
//   mxc import  model-symbol.json --shape data=1,3,224,224 [--params P]
//               -o model.mlir
//   mxc export  model.mlir -o model-symbol.json
//   mxc summary model-symbol.json --shape data=1,3,224,224 [--params P]
//   mxc diff    a-symbol.json b-symbol.json
//   mxc run     model-symbol.json --shape ... [--params P] [--input x=a.npy]
//               [--output-dir out/] [-v]                    (RunCommand.cpp)
//   mxc codegen model-symbol.json --shape ... --emit=STAGE -o out
//   mxc memory-report model-symbol.json --shape ... [--train]
//               (MemoryReport.cpp)
//   mxc compile model-symbol.json --params P --shape ... [--target T]
//               [--emit exe|shared|obj|plan|llvm|mlir] [--train] -o out
//               (CompileCommand.cpp)
//
// Every error is one line, "mxc: error: <where>: <what>", naming the MXNet
// node (or the byte offset of a .params file); exit status 1 for bad input,
// 2 for bad usage.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/Driver.h"
#include "DriverSupport.h"
#include "mxc/Compiler/Import.h"
#include "mxc/Compiler/Pipeline.h"
#include "mxc/Dialect/MX/IR/MXDialect.h"
#include "mxc/Dialect/MX/IR/MXOpTable.h"
#include "mxc/runtime/device.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace mxc;
using namespace mxc::driver;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory mxcCategory("mxc options");

cl::SubCommand
    importCmd("import", "Import an MXNet symbol JSON file into the mx dialect");
cl::SubCommand
    exportCmd("export",
              "Export an mx-dialect module back to MXNet symbol JSON");
cl::SubCommand summaryCmd(
    "summary",
    "Import a model and print its ops, parameter count and output shapes");
cl::SubCommand
    diffCmd("diff",
            "Compare two MXNet symbol JSON files as MXNet would load them");
cl::SubCommand runCmd("run", "Compile a model for this CPU and run a forward "
                             "pass (inference)");
cl::SubCommand codegenCmd("codegen",
                          "Compile a model and write one stage of the CPU "
                          "pipeline (MLIR, LLVM IR or an object file)");
cl::SubCommand memoryReportCmd(
    "memory-report",
    "Print the internal memory of a model (every intermediate, arguments and "
    "outputs excluded) under each memory planning strategy, and the lower "
    "bound, in MB");
cl::SubCommand compileCmd(
    "compile", "Compile a model ahead of time into an executable, a shared "
               "library or an object file (docs/aot.md)");

cl::opt<std::string> inputFile(cl::cat(mxcCategory), cl::Positional,
                               cl::desc("<input file>"), cl::Required,
                               cl::sub(importCmd), cl::sub(exportCmd),
                               cl::sub(summaryCmd), cl::sub(runCmd),
                               cl::sub(codegenCmd), cl::sub(compileCmd),
                               cl::sub(memoryReportCmd));
cl::opt<std::string> outputFile(cl::cat(mxcCategory), "o",
                                cl::desc("Output file ('-' for stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::sub(importCmd), cl::sub(exportCmd),
                                cl::sub(codegenCmd), cl::sub(compileCmd));
cl::list<std::string>
    shapes(cl::cat(mxcCategory), "shape",
           cl::desc("Input shape, e.g. data=1,3,224,224 (repeatable)"),
           cl::value_desc("name=d0,d1,..."), cl::sub(importCmd),
           cl::sub(summaryCmd), cl::sub(runCmd), cl::sub(codegenCmd),
           cl::sub(compileCmd), cl::sub(memoryReportCmd));
cl::list<std::string>
    dtypes(cl::cat(mxcCategory), "dtype",
           cl::desc("Input dtype, e.g. data=float16 (default float32)"),
           cl::value_desc("name=dtype"), cl::sub(importCmd),
           cl::sub(summaryCmd), cl::sub(runCmd), cl::sub(codegenCmd),
           cl::sub(compileCmd), cl::sub(memoryReportCmd));
cl::opt<std::string> paramsFile(
    cl::cat(mxcCategory), "params",
    cl::desc("MXNet .params file: fixes parameter shapes and dtypes (run: "
             "and gives their values)"),
    cl::value_desc("file"), cl::sub(importCmd), cl::sub(summaryCmd),
    cl::sub(runCmd), cl::sub(codegenCmd), cl::sub(compileCmd),
    cl::sub(memoryReportCmd));
cl::opt<std::string> funcName(cl::cat(mxcCategory), "func",
                              cl::desc("Function to export"), cl::init("main"),
                              cl::sub(exportCmd));
cl::opt<std::string>
    targetTriple(cl::cat(mxcCategory), "target-triple",
                 cl::desc("Target triple (default: this machine)"),
                 cl::value_desc("triple"), cl::sub(runCmd),
                 cl::sub(codegenCmd));
cl::opt<std::string>
    targetCPU(cl::cat(mxcCategory), "mcpu",
              cl::desc("Target CPU (default: this machine's, as -march=native; "
                       "'generic' for another triple)"),
              cl::value_desc("cpu"), cl::sub(runCmd), cl::sub(codegenCmd),
              cl::sub(compileCmd));
cl::opt<std::string> targetFeatures(
    cl::cat(mxcCategory), "mattr",
    cl::desc("CPU features to add or remove, e.g. +avx2,-avx512f"),
    cl::value_desc("features"), cl::sub(runCmd), cl::sub(codegenCmd),
    cl::sub(compileCmd));
cl::opt<bool> verbose(cl::cat(mxcCategory), "v",
                      cl::desc("Print the target, cache use and timings on "
                               "stderr"),
                      cl::sub(runCmd), cl::sub(codegenCmd),
                      cl::sub(compileCmd));
cl::list<std::string>
    runInputs(cl::cat(mxcCategory), "input",
              cl::desc("Input values from a .npy file (repeatable); inputs "
                       "without a value (and, without --params, parameters) "
                       "are filled with seeded random numbers"),
              cl::value_desc("name=file.npy"), cl::sub(runCmd));
cl::opt<std::string>
    runOutputDir(cl::cat(mxcCategory), "output-dir",
                 cl::desc("Write each output as <dir>/<output name>.npy"),
                 cl::value_desc("dir"), cl::sub(runCmd));
cl::opt<bool> runAllowMissing(
    cl::cat(mxcCategory), "allow-missing",
    cl::desc("With --params: give the parameters and auxiliary states the "
             "file lacks seeded random numbers (default: an error naming "
             "them, as MXNet's set_params)"),
    cl::sub(runCmd));
cl::opt<std::string> runDevice(
    cl::cat(mxcCategory), "device",
    cl::desc("Where the graph runs: cpu (default), or gpu (gpu(0)) / gpu(N): every "
             "step as NVIDIA GPU kernels compiled in this process for the device's "
             "architecture (--cuda-arch) and run there, the inputs and "
             "outputs copied through device memory (docs/gpu.md)"),
    cl::value_desc("cpu|gpu|gpu(N)"), cl::init("cpu"), cl::sub(runCmd));
cl::opt<uint64_t> runSeed(cl::cat(mxcCategory), "seed",
                          cl::desc("Seed of the random fill (default 0)"),
                          cl::init(0), cl::sub(runCmd));
cl::opt<unsigned> runRepeat(
    cl::cat(mxcCategory), "repeat",
    cl::desc("Run the forward pass N times (with -v: first, median and min "
             "time, and every time); the outputs are those of the last run. "
             "With N > 1 or --warmup, prints 'latency: median X ms, p10 Y "
             "ms, p90 Z ms, min W ms over N runs'"),
    cl::value_desc("N"), cl::init(1), cl::sub(runCmd));
cl::opt<unsigned>
    runWarmup(cl::cat(mxcCategory), "warmup",
              cl::desc("Untimed forward passes before the --repeat timed ones "
                       "(default 0)"),
              cl::value_desc("K"), cl::init(0), cl::sub(runCmd));
cl::opt<unsigned> runWarmupMs(
    cl::cat(mxcCategory), "warmup-ms",
    cl::desc("Untimed passes go on (after --warmup's K) until T ms have "
             "passed: a new process's first passes run slower than later "
             "ones (caches, the machine), for benchmarks (default 0)"),
    cl::value_desc("T"), cl::init(0), cl::sub(runCmd));
cl::opt<bool> runTrain(
    cl::cat(mxcCategory), "train",
    cl::desc("Run a training step: forward(is_train=True) + backward "
             "(mx-autodiff). run: also writes the gradient of each --wrt "
             "argument (<arg>.grad.npy) and the updated auxiliary states "
             "(<aux>.aux.npy, BatchNorm running statistics); compile: the "
             "model computes the training step, with ones as head gradients, "
             "and its outputs are the heads, <arg>_grad of each --wrt "
             "argument and the updated auxiliary states"),
    cl::sub(runCmd), cl::sub(compileCmd));
cl::list<std::string> runWrt(
    cl::cat(mxcCategory), "wrt",
    cl::desc("With --train: the arguments to differentiate (default: every "
             "parameter)"),
    cl::value_desc("name,..."), cl::CommaSeparated, cl::sub(runCmd),
    cl::sub(compileCmd));
cl::list<std::string> runGradReq(
    cl::cat(mxcCategory), "grad-req",
    cl::desc("With --train: write (default), add (the previous gradient is "
             "an input <arg>_grad, zeros unless given with --input) or null, "
             "for all arguments, and/or name=req for one"),
    cl::value_desc("write|add|null|name=req,..."), cl::CommaSeparated,
    cl::sub(runCmd));
cl::list<std::string> runHeadGrads(
    cl::cat(mxcCategory), "head-grad",
    cl::desc("With --train: the head gradient of an output (repeatable; "
             "default: ones, as MXNet's backward() for a loss)"),
    cl::value_desc("output=file.npy"), cl::sub(runCmd));
cl::list<std::string> runSweeps(
    cl::cat(mxcCategory), "sweep",
    cl::desc("Run the graph K times, with the input set to each of the K "
             "arrays stacked on axis 0 of the file (repeatable; equal K); "
             "every output is written stacked, shape (K, ...). For finite "
             "differences: one process for many evaluations"),
    cl::value_desc("name=file.npy"), cl::sub(runCmd));
cl::list<std::string> graphOutputs(
    cl::cat(mxcCategory), "outputs",
    cl::desc("Compute only these heads (mx-prune outputs): MXNet node names "
             "with an optional output index (node:i) or output names "
             "(fc1_output); the layers after them are skipped"),
    cl::value_desc("node[:i],..."), cl::CommaSeparated, cl::sub(runCmd),
    cl::sub(codegenCmd), cl::sub(memoryReportCmd));
cl::opt<bool> noGraphFusion(
    cl::cat(mxcCategory), "no-graph-fusion",
    cl::desc("Do not group elementwise ops into mx.fused kernels "
             "(mx-fuse-elementwise)"),
    cl::sub(runCmd), cl::sub(codegenCmd), cl::sub(memoryReportCmd));
cl::opt<bool> noConvFusion(
    cl::cat(mxcCategory), "no-conv-fusion",
    cl::desc("Do not fold BatchNorm / relu / clip / residual adds into the "
             "convolutions before them (mx-fuse-convolution)"),
    cl::sub(runCmd), cl::sub(codegenCmd), cl::sub(compileCmd),
    cl::sub(memoryReportCmd));
cl::opt<bool> noBlockedLayout(
    cl::cat(mxcCategory), "no-blocked-layout",
    cl::desc("Keep every tensor NCHW, also between fused convolutions "
             "(no mx-propagate-conv-layout)"),
    cl::sub(runCmd), cl::sub(codegenCmd), cl::sub(compileCmd),
    cl::sub(memoryReportCmd));
cl::opt<bool> noParallelLoops(
    cl::cat(mxcCategory), "no-parallel-loops",
    cl::desc("Run every generated loop nest on one thread (no "
             "mxc-parallel-loops; the library kernels still use the kernel "
             "threads)"),
    cl::sub(runCmd), cl::sub(codegenCmd), cl::sub(compileCmd));
cl::opt<std::string> memoryPlanOpt(
    cl::cat(mxcCategory), "memory-plan",
    cl::desc("Buffer reuse of mx-plan-memory: none (every buffer its own "
             "allocation), inplace, coshare or both (default)"),
    cl::value_desc("none|inplace|coshare|both"), cl::init("both"),
    cl::sub(runCmd), cl::sub(codegenCmd));
cl::opt<bool> reportTrain(
    cl::cat(mxcCategory), "train",
    cl::desc("Plan the training graph: forward(is_train=True) + backward "
             "(mx-autodiff) with gradients of every parameter"),
    cl::sub(memoryReportCmd));
cl::opt<bool> splitReductionsOpt(
    cl::cat(mxcCategory), "split-reductions", cl::Hidden,
    cl::desc("Split long reductions with few outputs into partial and final "
             "reductions (mxc-split-reductions; always on for --target cuda): "
             "on the CPU, to test the transformation"),
    cl::sub(runCmd));
// Tuning knobs of mxc-split-reductions (PipelineOptions), hidden: a GPU
// benchmark compares settings with them (scripts/gpu-check.sh).
cl::opt<unsigned> splitReductionThreads(
    cl::cat(mxcCategory), "split-reduction-threads", cl::Hidden,
    cl::desc("mxc-split-reductions' target-threads: split reductions with fewer "
             "outputs than this (default 32768; --target cuda, --device gpu or "
             "--split-reductions)"),
    cl::init(0), cl::sub(runCmd), cl::sub(compileCmd));
cl::opt<unsigned> splitReductionChunks(
    cl::cat(mxcCategory), "split-reduction-chunks", cl::Hidden,
    cl::desc("mxc-split-reductions' max-chunks: at most this many partial results "
             "an output (default 1024)"),
    cl::init(0), cl::sub(runCmd), cl::sub(compileCmd));
// Training BatchNorm as library kernels (cuDNN's on the GPU) or generated
// ones (PipelineOptions::libraryBatchNorm), hidden: the CPU tests check the
// library form's numerics with it, and a GPU benchmark compares both.
cl::opt<std::string> batchNormKernels(
    cl::cat(mxcCategory), "batch-norm-kernels", cl::Hidden,
    cl::desc("Training BatchNorm as one library kernel forward and one backward "
             "(library: cuDNN on the GPU, the default of --target cuda and "
             "--device gpu) or as composed ops that become generated kernels "
             "(generated: the CPU's default)"),
    cl::value_desc("library|generated"), cl::sub(runCmd), cl::sub(compileCmd));
// GPU kernel emulation (PipelineOptions::emulateGpuKernels), hidden: the
// test suite checks the CUDA target's kernel mapping on the CPU with it.
enum class EmulateGpu { Off, Forward, Reversed };
cl::opt<EmulateGpu> runEmulateGpuKernels(
    cl::cat(mxcCategory), "emulate-gpu-kernels", cl::Hidden,
    cl::desc("Run on the CPU with every step through the CUDA target's kernel "
             "mapping (blocks of --cuda-block-size threads, "
             "--cuda-elements-per-thread elements a thread, reductions split), each "
             "launch a host loop over its blocks and threads: the mapping's "
             "numerics without a GPU (run; compile: for the CPU target); "
             "=reversed: the blocks and threads in reverse order"),
    cl::ValueOptional, cl::init(EmulateGpu::Off),
    cl::values(clEnumValN(EmulateGpu::Forward, "", "in order"),
               clEnumValN(EmulateGpu::Forward, "forward", "in order"),
               clEnumValN(EmulateGpu::Reversed, "reversed", "in reverse order")),
    cl::sub(runCmd), cl::sub(compileCmd));
cl::opt<bool> runNoCache(cl::cat(mxcCategory), "no-cache",
                         cl::desc("Neither read nor write the compilation "
                                  "cache (run: graphs and kernels; compile: "
                                  "kernels)"),
                         cl::sub(runCmd), cl::sub(compileCmd));
cl::opt<std::string> codegenEmit(
    cl::cat(mxcCategory), "emit",
    cl::desc("What to write: mlir-linalg (after convert-mx-to-linalg), "
             "mlir-llvm (LLVM dialect), llvm (optimised LLVM IR), obj "
             "(object file)"),
    cl::value_desc("stage"), cl::init("obj"), cl::sub(codegenCmd));
// mxc compile (CompileCommand.cpp).
cl::opt<std::string> compileTarget(
    cl::cat(mxcCategory), "target",
    cl::desc("Target triple: x86_64-linux-gnu or aarch64-linux-gnu (default: "
             "this machine, with its CPU's features), or cuda: every step as "
             "NVIDIA GPU kernels (--cuda-arch) launched from this machine's "
             "host code (docs/gpu.md)"),
    cl::value_desc("triple|cuda"), cl::sub(compileCmd));
cl::opt<std::string> compileCudaArch(
    cl::cat(mxcCategory), "cuda-arch",
    cl::desc("With --target cuda (compile) or --device gpu (run): the GPU "
             "architecture, sm_75 to sm_121 (compile's default sm_90, the H100 / "
             "H200; run's the device's own)"),
    cl::value_desc("sm_NN"), cl::init("sm_90"), cl::sub(compileCmd), cl::sub(runCmd));
cl::opt<unsigned> compileCudaBlockSize(
    cl::cat(mxcCategory), "cuda-block-size",
    cl::desc("With --target cuda / --device gpu: threads a block, 32 to 1024 "
             "(default 128)"),
    cl::init(128), cl::sub(compileCmd), cl::sub(runCmd));
cl::opt<unsigned> compileCudaElementsPerThread(
    cl::cat(mxcCategory), "cuda-elements-per-thread",
    cl::desc("With --target cuda / --device gpu: innermost elements each thread "
             "handles, 1 to 16 "
             "(default 4: one 128-bit access of floats)"),
    cl::init(4), cl::sub(compileCmd), cl::sub(runCmd));
cl::opt<unsigned> compileOptLevel(
    cl::cat(mxcCategory), "O", cl::Prefix,
    cl::desc("LLVM optimisation level, -O0 to -O3 (default -O3)"),
    cl::init(3), cl::sub(compileCmd));
cl::opt<std::string> compileEmit(
    cl::cat(mxcCategory), "emit",
    cl::desc("What to write: exe (a program: ./model --input data=x.npy "
             "--output-dir out/ [--repeat N]), shared (a .so with the C API "
             "of mxc/mxc_model.h, and OUT.h), obj (an object file to link with "
             "libmxc_model_rt.a, and OUT.h), plan (OUT: the mxc-plan 1 file, a "
             "step per MXNet node or fused group, for the runtime's executor; "
             "its kernels are in OUT with .plan replaced by .o, or OUT.o), "
             "llvm (LLVM IR), "
             "mlir (the LLVM dialect module), ptx (--target cuda: OUT/, a .ptx per "
             "kernel module)"),
    cl::value_desc("kind"), cl::init("exe"), cl::sub(compileCmd));
cl::opt<std::string> compileWeights(
    cl::cat(mxcCategory), "weights",
    cl::desc("embed: the --params arrays go into the binary (default); "
             "external: into OUT.weights, read when the model is created; "
             "inputs: parameters and auxiliary states are inputs of the model, "
             "given on every run like data (--params is not needed)"),
    cl::value_desc("embed|external|inputs"), cl::init("embed"),
    cl::sub(compileCmd));
cl::opt<bool> compileStats(
    cl::cat(mxcCategory), "stats",
    cl::desc("Print the compile time per stage and the sizes: model object, "
             "weights, and the binary's code + runtime bytes without weights"),
    cl::sub(compileCmd));
cl::opt<std::string> compileRuntimeDir(
    cl::cat(mxcCategory), "runtime-dir",
    cl::desc("Where libmxc_model_rt.a / libmxc_model_main.a for the target "
             "are (default: <mxc>/../lib/mxc/<arch>-linux-gnu, then "
             "build-runtime-<arch>/ in the source tree)"),
    cl::value_desc("dir"), cl::sub(compileCmd));
cl::opt<std::string> diffA(cl::cat(mxcCategory), cl::Positional,
                           cl::desc("<first symbol.json>"), cl::Required,
                           cl::sub(diffCmd));
cl::opt<std::string> diffB(cl::cat(mxcCategory), cl::Positional,
                           cl::desc("<second symbol.json>"), cl::Required,
                           cl::sub(diffCmd));

void registerDialects(MLIRContext &ctx) {
  ctx.getOrLoadDialect<mx::MXDialect>();
  ctx.getOrLoadDialect<func::FuncDialect>();
}

/// The input file as the user named it (for an ONNX model, `inputFile` is
/// the symbol JSON converted from it).
std::string modelName;

/// Reads and imports the input file; prints errors.
OwningOpRef<ModuleOp> importInput(MLIRContext &ctx, int &status,
                                  std::vector<graph::NDArrayData> &params) {
  ImportOptions opts;
  if (auto rc = parseImportOptions(shapes, dtypes, paramsFile, opts, params)) {
    status = *rc;
    return nullptr;
  }
  auto g = graph::readSymbolFile(inputFile);
  if (!g) {
    errorLine() << llvm::toString(g.takeError()) << "\n";
    status = kBadInput;
    return nullptr;
  }
  OwningOpRef<ModuleOp> module = importGraph(ctx, *g, opts);
  if (!module || failed(verify(*module))) {
    status = kBadInput;
    return nullptr;
  }
  status = kOk;
  return module;
}

std::string typeStr(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

/// `mxc summary`: ops by count, parameters, inputs and outputs.
void printSummary(ModuleOp module, llvm::raw_ostream &os) {
  auto func = module.lookupSymbol<func::FuncOp>("main");
  std::map<std::string, unsigned> ops;
  unsigned numOps = 0;
  func.walk([&](Operation *op) {
    if (const mx::OpSpec *s = mx::lookupMLIROp(op->getName().getStringRef())) {
      ++ops[s->mxnetName];
      ++numOps;
    }
  });
  int64_t paramCount = 0, auxCount = 0, paramBytes = 0;
  unsigned numParams = 0, numAux = 0;
  os << "model: " << modelName << "\n";
  os << "inputs:\n";
  for (BlockArgument arg : func.getArguments()) {
    auto type = cast<RankedTensorType>(arg.getType());
    auto kind =
        func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "mx.kind");
    auto name =
        func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "mx.name");
    if (kind && kind.getValue() == "data") {
      os << "  " << name.getValue() << ": " << typeStr(type) << "\n";
      continue;
    }
    int64_t n = type.getNumElements();
    paramBytes += n * ((type.getElementTypeBitWidth() + 7) / 8);
    if (kind && kind.getValue() == "aux") {
      auxCount += n;
      ++numAux;
    } else {
      paramCount += n;
      ++numParams;
    }
  }
  os << "parameters: " << paramCount << " in " << numParams << " arrays";
  if (numAux)
    os << " (+ " << auxCount << " in " << numAux << " auxiliary states)";
  os << ", " << llvm::format("%.1f", paramBytes / 1048576.0) << " MiB\n";
  os << "ops: " << numOps << "\n";
  std::vector<std::pair<std::string, unsigned>> sorted(ops.begin(), ops.end());
  // Most frequent first; ties by name (the map's order).
  llvm::sort(sorted, [](auto &a, auto &b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  for (auto &[name, count] : sorted)
    os << "  " << llvm::left_justify(name, 20) << " " << count << "\n";
  os << "outputs:\n";
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    auto name = func.getResultAttrOfType<StringAttr>(i, "mx.name");
    os << "  " << (name ? name.getValue() : StringRef("output")) << ": "
       << typeStr(func.getResultTypes()[i]) << "\n";
  }
}

/// Writes `text` to `path` ("-" is stdout); prints errors.
int writeOutput(StringRef path,
                llvm::function_ref<void(llvm::raw_ostream &)> fn) {
  std::error_code ec;
  llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    errorLine() << path << ": " << ec.message() << "\n";
    return kBadInput;
  }
  fn(out.os());
  out.keep();
  return kOk;
}

/// Imports the input file (with --shape/--dtype/--params) and hands the
/// module to `use`; returns the exit status.
int withImportedModule(llvm::function_ref<int(ModuleOp)> use) {
  MLIRContext ctx;
  registerDialects(ctx);
  OneLineDiagnostics diags(ctx);
  int status;
  std::vector<graph::NDArrayData> params;
  OwningOpRef<ModuleOp> module = importInput(ctx, status, params);
  if (!module)
    return status;
  return use(*module);
}

int runImport() {
  return withImportedModule([](ModuleOp module) {
    return writeOutput(outputFile, [&](llvm::raw_ostream &os) {
      module.print(
          os, OpPrintingFlags().enableDebugInfo(true, /*prettyForm=*/false));
    });
  });
}

int runSummary() {
  return withImportedModule([](ModuleOp module) {
    printSummary(module, llvm::outs());
    return int(kOk);
  });
}

int runExport() {
  MLIRContext ctx;
  registerDialects(ctx);
  OneLineDiagnostics diags(ctx);
  llvm::SourceMgr sm;
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(inputFile, sm, &ctx);
  if (!module) {
    if (!llvm::sys::fs::exists(inputFile))
      errorLine() << inputFile << ": no such file\n";
    return kBadInput;
  }
  auto g = exportGraph(*module, funcName);
  if (failed(g))
    return kBadInput;
  return writeOutput(outputFile, [&](llvm::raw_ostream &os) {
    os << graph::writeSymbolJSON(*g);
  });
}

int runDiff() {
  MLIRContext ctx;
  registerDialects(ctx);
  auto a = graph::readSymbolFile(diffA);
  if (!a) {
    errorLine() << llvm::toString(a.takeError()) << "\n";
    return kBadInput;
  }
  auto b = graph::readSymbolFile(diffB);
  if (!b) {
    errorLine() << llvm::toString(b.takeError()) << "\n";
    return kBadInput;
  }
  std::string diff = diffGraphs(ctx, *a, *b);
  if (diff.empty()) {
    llvm::outs() << "graphs are equal (" << a->nodes.size() << " nodes)\n";
    return kOk;
  }
  llvm::outs() << "graphs differ:\n" << diff;
  return kBadInput;
}

} // namespace

int mxc::driverMain(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // MLIR's debugging flags (--mlir-print-ir-after-all, --mlir-timing,
  // --mlir-print-debuginfo, ...) for run/codegen; hidden from --help.
  registerCodegenPasses(); // first: the pass-name options list them
  registerPassManagerCLOptions();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerDefaultTimingManagerCLOptions();
  for (cl::SubCommand *sub :
       {&cl::SubCommand::getTopLevel(), &importCmd, &exportCmd, &summaryCmd,
        &diffCmd, &runCmd, &codegenCmd, &compileCmd, &memoryReportCmd})
    cl::HideUnrelatedOptions(mxcCategory, *sub);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "mxc: the MXNet graph compiler\n\n"
          "  mxc import  model-symbol.json --shape data=1,3,224,224 [--params "
          "P] -o model.mlir\n"
          "  mxc export  model.mlir -o model-symbol.json\n"
          "  mxc summary model-symbol.json --shape data=1,3,224,224\n"
          "  mxc diff    a-symbol.json b-symbol.json\n"
          "  mxc run     model-symbol.json --shape data=1,3,224,224 [--params "
          "P] [--input data=x.npy] [--output-dir out/] [--memory-plan "
          "none|inplace|coshare|both] [-v]\n"
          "  mxc run     model.onnx [--input x=x.npy] [--shape x=... for "
          "dynamic inputs]   (also import, summary, codegen, compile, "
          "memory-report)\n"
          "  mxc codegen model-symbol.json --shape data=1,3,224,224 "
          "--emit=mlir-linalg|mlir-llvm|llvm|obj [--target-triple T] [--mcpu "
          "C] [--mattr F] -o out\n"
          "  mxc compile model-symbol.json --params P --shape "
          "data=1,3,224,224 [--target x86_64-linux-gnu|aarch64-linux-gnu] "
          "[--mcpu C] [-O0..-O3] [--emit exe|shared|obj|plan|llvm|mlir] [--weights "
          "embed|external|inputs] [--train [--wrt A,B]] [--stats] -o out\n"
          "  mxc memory-report model-symbol.json --shape data=64,3,224,224 "
          "[--train] [--no-graph-fusion]\n",
          &llvm::errs()))
    return kBadUsage;
  // An ONNX model: converted by mx.onnx into MXNet files that the command
  // then reads (ONNXInput.cpp); the temporary files go when it returns.
  std::unique_ptr<ONNXConversion> onnxModel;
  modelName = inputFile;
  if (importCmd || summaryCmd || runCmd || codegenCmd || compileCmd ||
      memoryReportCmd) {
    std::string model = inputFile, params = paramsFile;
    std::vector<std::string> shapeList(shapes.begin(), shapes.end()),
        dtypeList(dtypes.begin(), dtypes.end());
    if (auto rc =
            prepareONNXInput(model, params, shapeList, dtypeList, onnxModel))
      return *rc;
    if (onnxModel) {
      inputFile = model;
      paramsFile = params;
      shapes.clear();
      for (const std::string &s : shapeList)
        shapes.push_back(s);
      dtypes.clear();
      for (const std::string &s : dtypeList)
        dtypes.push_back(s);
    }
  }
  if (importCmd)
    return runImport();
  if (exportCmd)
    return runExport();
  if (summaryCmd)
    return runSummary();
  if (diffCmd)
    return runDiff();
  if (runCmd || codegenCmd || compileCmd || memoryReportCmd) {
    if (memoryPlanOpt != "none" && memoryPlanOpt != "inplace" &&
        memoryPlanOpt != "coshare" && memoryPlanOpt != "both") {
      errorLine() << "--memory-plan must be none, inplace, coshare or both\n";
      return kBadUsage;
    }
    if (batchNormKernels.getNumOccurrences() && batchNormKernels != "library" &&
        batchNormKernels != "generated") {
      errorLine() << "--batch-norm-kernels must be library or generated, got '"
                  << batchNormKernels << "'\n";
      return kBadUsage;
    }
    auto fill = [](CompileCommandOptions &o) {
      o.model = inputFile;
      o.shapes.assign(shapes.begin(), shapes.end());
      o.dtypes.assign(dtypes.begin(), dtypes.end());
      o.paramsFile = paramsFile;
      o.target.triple = targetTriple;
      o.target.cpu = targetCPU;
      o.target.features = targetFeatures;
      o.verbose = verbose;
      o.outputs.assign(graphOutputs.begin(), graphOutputs.end());
      o.graphFusion = !noGraphFusion;
      o.convFusion = !noConvFusion;
      o.blockedLayout = !noBlockedLayout;
      o.parallelLoops = !noParallelLoops;
      o.memoryPlan = memoryPlanOpt;
      o.splitReductions = splitReductionsOpt;
      o.splitTargetThreads = splitReductionThreads;
      o.splitMaxChunks = splitReductionChunks;
      o.libraryBatchNorm = !batchNormKernels.getNumOccurrences() ? -1
                           : batchNormKernels == "library"   ? 1
                                                             : 0;
    };
    if (memoryReportCmd) {
      MemoryReportOptions o;
      fill(o);
      o.train = reportTrain;
      return runMemoryReportCommand(o);
    }
    // --cuda-arch, --cuda-block-size, --cuda-elements-per-thread: for
    // --target cuda (compile) or --device gpu (run).
    auto fillCuda = [](CompileCommandOptions &o, bool gpu,
                       const char *needs) -> bool {
      if (!gpu) {
        if (compileCudaArch.getNumOccurrences() ||
            compileCudaBlockSize.getNumOccurrences() ||
            compileCudaElementsPerThread.getNumOccurrences()) {
          errorLine() << "--cuda-arch, --cuda-block-size and "
                         "--cuda-elements-per-thread need "
                      << needs << "\n";
          return false;
        }
        return true;
      }
      o.cudaArch = compileCudaArch;
      o.cudaArchGiven = compileCudaArch.getNumOccurrences() > 0;
      o.cudaBlockSize = compileCudaBlockSize;
      o.cudaElementsPerThread = compileCudaElementsPerThread;
      if (o.cudaBlockSize < 32 || o.cudaBlockSize > 1024 ||
          o.cudaElementsPerThread < 1 || o.cudaElementsPerThread > 16) {
        errorLine() << "--cuda-block-size must be 32 to 1024 and "
                       "--cuda-elements-per-thread 1 to 16\n";
        return false;
      }
      StringRef arch = o.cudaArch;
      unsigned sm = 0;
      if (!arch.consume_front("sm_") || arch.getAsInteger(10, sm) || sm < 75 ||
          sm > 121) {
        errorLine() << "--cuda-arch='" << o.cudaArch
                    << "': expected sm_75 to sm_121 (sm_90 for the H100 / H200)\n";
        return false;
      }
      return true;
    };
    // fillCuda for GPU code (`gpu`: --device gpu / --target cuda, named
    // `gpuFlag`) or --emulate-gpu-kernels (the CPU target, its steps as
    // emulated GPU kernels of the same launch shape; `what`: "runs on" or
    // "compiles for").
    auto fillCudaOrEmulation = [&](CompileCommandOptions &o, bool gpu, const char *gpuFlag,
                                   const char *what) -> bool {
      bool emulating = runEmulateGpuKernels != EmulateGpu::Off;
      if (emulating && (gpu || compileCudaArch.getNumOccurrences())) {
        errorLine() << "--emulate-gpu-kernels " << what << " the CPU: no " << gpuFlag
                    << " or --cuda-arch\n";
        return false;
      }
      if (!fillCuda(o, gpu || emulating,
                    (std::string(gpuFlag) + " or --emulate-gpu-kernels").c_str()))
        return false;
      if (emulating) {
        o.cudaArch.clear();
        o.emulateGpuKernels = true;
        o.emulateGpuReversed = runEmulateGpuKernels == EmulateGpu::Reversed;
      }
      return true;
    };
    // mxc run --device: cpu, or gpu (gpu(0)), gpu(N), gpu:N.
    StringRef device = runDevice;
    std::optional<mxc::runtime::Device> named = mxc::runtime::Device::fromOption(runDevice);
    const bool runOnGpu = named && named->kind == mxc::runtime::Device::Kind::GPU;
    const int gpuDevice = runOnGpu ? named->id : 0;
    if (runCmd && !runOnGpu && !(named && *named == mxc::runtime::Device::cpu())) {
      errorLine() << "--device '" << device
                  << "': expected cpu, gpu or gpu(N)\n";
      return kBadUsage;
    }
    // The knobs only mean something where reductions are split.
    bool splits = splitReductionsOpt || runEmulateGpuKernels != EmulateGpu::Off ||
                  (runCmd && runOnGpu) ||
                  (compileCmd && compileTarget == "cuda");
    if ((splitReductionThreads.getNumOccurrences() || splitReductionChunks.getNumOccurrences()) &&
        !splits) {
      errorLine() << "--split-reduction-threads and --split-reduction-chunks need --target "
                     "cuda, --device gpu or --split-reductions\n";
      return kBadUsage;
    }
    if ((splitReductionThreads.getNumOccurrences() && splitReductionThreads < 1) ||
        (splitReductionChunks.getNumOccurrences() && splitReductionChunks < 2)) {
      errorLine() << "--split-reduction-threads must be at least 1 and "
                     "--split-reduction-chunks at least 2\n";
      return kBadUsage;
    }
    if (runCmd) {
      RunCommandOptions o;
      fill(o);
      if (runOnGpu && !o.target.triple.empty()) {
        errorLine() << "--device gpu runs host code on this machine: no "
                       "--target-triple\n";
        return kBadUsage;
      }
      if (!fillCudaOrEmulation(o, runOnGpu, "--device gpu", "runs on"))
        return kBadUsage;
      o.inputs.assign(runInputs.begin(), runInputs.end());
      o.outputDir = runOutputDir;
      o.seed = runSeed;
      o.allowMissing = runAllowMissing;
      o.noCache = runNoCache;
      o.repeat = runRepeat;
      o.warmup = runWarmup;
      o.warmupMs = runWarmupMs;
      o.train = runTrain;
      o.wrt.assign(runWrt.begin(), runWrt.end());
      o.gradReq.assign(runGradReq.begin(), runGradReq.end());
      o.headGrads.assign(runHeadGrads.begin(), runHeadGrads.end());
      o.sweeps.assign(runSweeps.begin(), runSweeps.end());
      o.gpuDevice = gpuDevice;
      return runRunCommand(o);
    }
    if (compileCmd) {
      AOTCompileOptions o;
      fill(o);
      o.target.triple = compileTarget;
      if (compileTarget == "cuda")
        o.target.triple.clear(); // the host code runs on this machine
      if (!fillCudaOrEmulation(o, compileTarget == "cuda", "--target cuda", "compiles for"))
        return kBadUsage;
      o.emit = compileEmit;
      o.weights = compileWeights;
      o.output = outputFile == "-" && compileEmit != "mlir" &&
                         compileEmit != "llvm"
                     ? ""
                     : std::string(outputFile);
      o.runtimeDir = compileRuntimeDir;
      o.optLevel = compileOptLevel;
      o.stats = compileStats;
      o.noCache = runNoCache;
      o.train = runTrain;
      o.wrt.assign(runWrt.begin(), runWrt.end());
      if (!o.train && !o.wrt.empty()) {
        errorLine() << "--wrt needs --train\n";
        return kBadUsage;
      }
      return runAOTCompileCommand(o);
    }
    CodegenCommandOptions o;
    fill(o);
    o.emit = codegenEmit;
    o.output = outputFile;
    return runCodegenCommand(o);
  }
  errorLine() << "no command given; see 'mxc --help'\n";
  return kBadUsage;
}
