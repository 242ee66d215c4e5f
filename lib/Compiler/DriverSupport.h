//===- DriverSupport.h - shared pieces of the mxc commands ------*- C++ -*-===//
//
// Internal to lib/Compiler: the one-line error convention, import option
// parsing, the prelude every command that compiles a model starts with
// (openModel), and the commands' entry points: run (RunCommand.cpp), codegen
// (CodegenCommand.cpp), compile (CompileCommand.cpp), memory-report
// (MemoryReport.cpp). Their options are declared in Driver.cpp, where every
// cl::opt lives, and handed over as plain structs.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_LIB_COMPILER_DRIVERSUPPORT_H
#define MXC_LIB_COMPILER_DRIVERSUPPORT_H

#include "mxc/Compiler/Import.h"
#include "mxc/Compiler/Pipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mxc::driver {

enum ExitCode { kOk = 0, kBadInput = 1, kBadUsage = 2 };

/// Prints "mxc: error: " on stderr and returns the stream.
llvm::raw_ostream &errorLine();

/// Where a diagnostic points, as a prefix: "node 'conv1': " for imported
/// ops, "file:line:col: " for parsed text, "" otherwise.
std::string locationPrefix(mlir::Location loc);

/// Routes MLIR diagnostics to one line each on stderr. With
/// `firstErrorOnly`, errors after the first are dropped (a pipeline that
/// failed once may report follow-on errors that only confuse).
class OneLineDiagnostics {
public:
  explicit OneLineDiagnostics(mlir::MLIRContext &ctx,
                              bool firstErrorOnly = false);
  bool sawError() const { return errors > 0; }

private:
  unsigned errors = 0;
  bool firstErrorOnly;
  mlir::ScopedDiagnosticHandler handler;
};

/// Parses "name=value"; false on bad syntax.
bool splitAssignment(llvm::StringRef text, std::string &name,
                     std::string &value);

/// Fills `opts` from --shape/--dtype/--params values; prints an error and
/// returns the exit code on failure. `params` keeps the arrays alive.
std::optional<int> parseImportOptions(llvm::ArrayRef<std::string> shapes,
                                      llvm::ArrayRef<std::string> dtypes,
                                      llvm::StringRef paramsFile,
                                      ImportOptions &opts,
                                      std::vector<graph::NDArrayData> &params);

/// An ONNX model converted into MXNet files (ONNXInput.cpp), in a
/// temporary directory that goes with this object.
struct ONNXConversion {
  struct Input {
    std::string name, dtype; ///< dtype: MXNet's name ("float32")
    std::vector<int64_t> shape;
    bool dynamic = false; ///< a dimension without a fixed extent
  };
  std::string dir, symbolFile, paramsFile;
  std::vector<Input> inputs; ///< the graph's data inputs, in order
  ONNXConversion() = default;
  ONNXConversion(const ONNXConversion &) = delete;
  ~ONNXConversion();
};

/// Converts `path` with mx.onnx's importer (python -m mxc.onnx.convert);
/// the error is one line naming the file (and the node).
llvm::Expected<std::unique_ptr<ONNXConversion>>
convertONNXModel(llvm::StringRef path);

/// For a `.onnx` model: converts it (kept alive by `keep`) and points
/// `model` and `paramsFile` at the MXNet files, adding --shape / --dtype
/// values for the inputs the user did not give. Prints an error and returns
/// the exit code on failure; nothing for other files.
std::optional<int> prepareONNXInput(std::string &model, std::string &paramsFile,
                                    std::vector<std::string> &shapes,
                                    std::vector<std::string> &dtypes,
                                    std::unique_ptr<ONNXConversion> &keep);

/// Options shared by `run` and `codegen`.
struct CompileCommandOptions {
  std::string model; ///< symbol JSON, or an .mlir module of @main
  std::vector<std::string> shapes, dtypes;
  std::string paramsFile;
  TargetOptions target;
  bool verbose = false;
  /// Graph heads to keep (mx-prune outputs): node[:i] or output names.
  std::vector<std::string> outputs;
  /// mx-fuse-elementwise (off: --no-graph-fusion).
  bool graphFusion = true;
  bool convFusion = true;
  /// mx-propagate-conv-layout (--no-blocked-layout turns it off).
  bool blockedLayout = true;
  /// mxc-parallel-loops (off: --no-parallel-loops).
  bool parallelLoops = true;
  /// mx-plan-memory strategy: none | inplace | coshare | both (--memory-plan).
  std::string memoryPlan = "both";
  /// mxc-split-reductions for the CPU too (--split-reductions, hidden: it
  /// tests the GPU target's transformation where it can run).
  bool splitReductions = false;
  /// --split-reduction-threads / --split-reduction-chunks (hidden; 0: the
  /// pass's defaults): PipelineOptions::splitTargetThreads / splitMaxChunks.
  int64_t splitTargetThreads = 0;
  int64_t splitMaxChunks = 0;
  /// --batch-norm-kernels (hidden): PipelineOptions::libraryBatchNorm
  /// (-1 the target's choice, 0 generated, 1 library).
  int libraryBatchNorm = -1;
  /// GPU code (`mxc compile --target cuda`, `mxc run --device gpu`): the
  /// NVIDIA architecture of the kernels (--cuda-arch); empty for the CPU.
  std::string cudaArch;
  /// Whether --cuda-arch was given (`mxc run --device gpu` otherwise
  /// compiles for the device's own architecture).
  bool cudaArchGiven = false;
  int64_t cudaBlockSize = 128;         ///< --cuda-block-size
  int64_t cudaElementsPerThread = 4;   ///< --cuda-elements-per-thread
  /// --emulate-gpu-kernels (run / compile, hidden): PipelineOptions::emulateGpuKernels.
  bool emulateGpuKernels = false;
  bool emulateGpuReversed = false;   ///< --emulate-gpu-kernels=reversed
};

struct RunCommandOptions : CompileCommandOptions {
  std::vector<std::string> inputs; ///< name=file.npy
  std::string outputDir;
  uint64_t seed = 0;
  /// --allow-missing: parameters a --params file lacks get random values.
  bool allowMissing = false;
  bool noCache = false;
  unsigned repeat = 1; ///< timed forward passes (timings with -v)
  unsigned warmup = 0; ///< untimed forward passes before the timed ones
  unsigned warmupMs = 0; ///< and more of them until this many ms passed
  /// --train: forward(is_train=True) + backward (mx-autodiff).
  bool train = false;
  std::vector<std::string> wrt;       ///< --wrt names
  std::vector<std::string> gradReq;   ///< --grad-req write|add|null|name=req
  std::vector<std::string> headGrads; ///< --head-grad output=file.npy
  /// --sweep name=file.npy: K stacked values of an input; one run each,
  /// outputs stacked (K, ...).
  std::vector<std::string> sweeps;
  /// --device gpu(N): the GPU the plan runs on (with cudaArch set).
  int gpuDevice = 0;
};

struct CodegenCommandOptions : CompileCommandOptions {
  std::string emit; ///< mlir-linalg, mlir-llvm, llvm, obj
  std::string output;
};

/// A context with every dialect of the pipeline loaded.
std::unique_ptr<mlir::MLIRContext> makeContext();

/// Loads `opts.model` (symbol JSON, imported with --shape/--dtype/--params;
/// or an .mlir module) into `ctx`; `params` receives the --params arrays.
/// Prints errors; sets `status` (kOk or the exit code).
mlir::OwningOpRef<mlir::ModuleOp>
loadModel(mlir::MLIRContext &ctx, const CompileCommandOptions &opts,
          std::vector<graph::NDArrayData> &params, int &status);

/// What a command that compiles a model holds while it runs: the context,
/// its one-line diagnostics (first error only), the --params arrays and the
/// loaded module (destroyed in that order, the module first).
struct LoadedModel {
  std::unique_ptr<mlir::MLIRContext> context;
  std::unique_ptr<OneLineDiagnostics> diagnostics;
  std::vector<graph::NDArrayData> params;
  /// Null when loading failed; `status` is then the exit code.
  mlir::OwningOpRef<mlir::ModuleOp> module;
  int status = kOk;
};

/// The commands' prelude: makeContext, OneLineDiagnostics, loadModel.
LoadedModel openModel(const CompileCommandOptions &opts);

/// The pipeline options the shared command options select: outputs,
/// graph fusion, memory plan (the rest at their defaults).
PipelineOptions pipelineOptionsFor(const CompileCommandOptions &opts);

using Clock = std::chrono::steady_clock;
/// Milliseconds since `start`.
inline double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

/// `mxc compile` (CompileCommand.cpp, docs/aot.md).
struct AOTCompileOptions : CompileCommandOptions {
  std::string emit = "exe";      ///< mlir, llvm, obj, shared, exe
  std::string weights = "embed"; ///< embed, external, inputs
  std::string output;
  std::string runtimeDir; ///< --runtime-dir; empty: search
  unsigned optLevel = 3;
  bool stats = false;
  bool noCache = false; ///< --no-cache: no kernel cache
  /// --train: the model is a training step (forward(is_train=True) +
  /// backward with ones as head gradients); its outputs are the heads, the
  /// gradient `<arg>_grad` of each --wrt argument and the updated auxiliary
  /// states.
  bool train = false;
  std::vector<std::string> wrt; ///< --wrt; empty: every parameter
};

/// `mxc memory-report` (MemoryReport.cpp, docs/memory.md).
struct MemoryReportOptions : CompileCommandOptions {
  bool train = false; ///< forward + backward (mx-autodiff)
};

int runRunCommand(const RunCommandOptions &opts);
int runMemoryReportCommand(const MemoryReportOptions &opts);
int runAOTCompileCommand(const AOTCompileOptions &opts);
int runCodegenCommand(const CodegenCommandOptions &opts);

} // namespace mxc::driver

#endif // MXC_LIB_COMPILER_DRIVERSUPPORT_H
