//===- JIT.h - compile a graph to a callable, with a cache ------*- C++ -*-===//
//
// Graph (or imported module) + shapes/dtypes -> native code in this process:
//
//   mlir::MLIRContext ctx;  mxc::registerCodegenDialects(...)
//   auto compiled = mxc::compileGraph(ctx, graph, importOpts, jitOpts);
//   compiled->run({data, weight, ...}, {out});
//
// The code goes through the same object file `mxc codegen --emit=obj` writes
// (Pipeline.h), linked into an ORC LLJIT; so a compiled graph can be cached
// as that object. Caches:
//   - memory: per process, by key;
//   - disk: <dir>/<key>.o, dir = $MXC_CACHE_DIR, else $XDG_CACHE_HOME/mxc,
//     else ~/.cache/mxc. Written atomically (temp file + rename); an
//     unreadable or corrupt entry is recompiled and replaced.
// The key is a SHA-256 of: the module text (the imported graph with shapes
// and dtypes, without locations), the compiler's identity (a hash of the
// binary holding this code, and the LLVM version), the resolved target
// (triple, CPU, features) and the pipeline options.
//
// Symbols the generated code calls (the runtime's `mxc_kernel_*`, libm) are
// resolved in the process: the tools link `mxc_runtime`.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_COMPILER_JIT_H
#define MXC_COMPILER_JIT_H

#include "mxc/Compiler/Import.h"
#include "mxc/Compiler/KernelCodegen.h"
#include "mxc/Compiler/Pipeline.h"
#include "mxc/Graph/Params.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mxc {

/// One input or output of a compiled graph.
struct TensorSpec {
  std::string name; ///< mx.name: variable name, or list_outputs name
  /// inputs: "data", "param", "aux", and after mx-autodiff "head_grad",
  /// "grad_in", "rng_seed"; outputs: "" (a head), "grad", "aux_out".
  std::string kind;
  std::vector<int64_t> shape;
  graph::DType dtype = graph::DType::Float32;
  /// A head_grad the step never reads (mx.unused, set by mx-autodiff): the
  /// gradient of an output no gradient flows back from.
  bool unused = false;

  int64_t numElements() const;
  size_t byteSize() const;
};

/// The inputs (function arguments, in order) and outputs (results) of
/// `@main`.
struct EntrySignature {
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
};

/// Reads the signature of `@main` from its types and mx.name / mx.kind
/// attributes. Emits an error (on the function) for a type that is not a
/// statically shaped tensor of an MXNet dtype.
mlir::FailureOr<EntrySignature> getEntrySignature(mlir::ModuleOp module);

class CompiledGraphImpl;

/// Native code for one graph at fixed shapes, ready to run.
class CompiledGraph {
public:
  explicit CompiledGraph(std::unique_ptr<CompiledGraphImpl> impl);
  ~CompiledGraph();

  const EntrySignature &signature() const;

  /// Runs the graph's plan on the runtime's executor (the default engine):
  /// `inputs[i]` and `outputs[j]` point at contiguous C-order arrays with the
  /// shapes and dtypes of the signature, bound without copies; the outputs
  /// are written, nothing else is. Buffers must not overlap. Returns when
  /// every step has finished; a failing step is an error naming it (its
  /// MXNet node) and its kernel. Thread-safe: each concurrent call takes its
  /// own executor (and arena, `arenaBytes()`) from a per-graph pool.
  /// A GPU plan runs on gpu(0), or on `device` (another GPU:
  /// runtime::Plan::onDevice), its inputs and outputs copied through
  /// arrays there.
  llvm::Error run(llvm::ArrayRef<const void *> inputs, llvm::ArrayRef<void *> outputs,
                  std::optional<runtime::Device> device = std::nullopt) const;

  /// Pushes the plan's steps onto the engine with `inputs` and `outputs`
  /// bound (runtime arrays with the signature's shapes and dtypes, on the
  /// default engine) and returns at once: the steps read the inputs'
  /// variables and write the outputs', so waiting for an output's variable
  /// waits for the graph, and a failing step fails the variables it writes.
  /// Throws runtime::Error (compiled with exceptions: call it from code that
  /// catches, such as the Python extension) for a binding that does not
  /// fit. Thread-safe.
  void push(const std::vector<runtime::NDArray> &inputs,
            const std::vector<runtime::NDArray> &outputs) const;

  /// The execution plan (steps, buffers, kernels).
  const runtime::Plan &plan() const;

  /// Bytes of one arena (the memory plan's size for every intermediate).
  int64_t arenaBytes() const;

  /// Whether the kernels are still tiered compilation's fast tier
  /// (JITOptions::tiered).
  bool isFastTier() const;

  /// Recompiles a fast-tier graph at its pipeline's level now (what run()
  /// and push() do by themselves when it has run long enough). Returns
  /// false when it was not on the fast tier or the recompile failed (it
  /// then stays there; the error is in `error`).
  bool tierUp(std::string *error = nullptr) const;

private:
  std::unique_ptr<CompiledGraphImpl> impl;
};

struct JITOptions {
  TargetOptions target; ///< the host by default
  PipelineOptions pipeline;
  bool useMemoryCache = true;
  bool useDiskCache = true;
  std::string cacheDir; ///< empty: defaultCacheDir()
  /// Tiered compilation, for callers that compile many small graphs and run
  /// most of them a few times (the Python module): a graph whose inputs and
  /// outputs hold at most kFastTierMaxBytes, missed by both caches, is
  /// first code-generated at -O0 (LLVM's fast instruction selection, no
  /// IR optimisation: about half the compile time of -O3 for a one-operator
  /// graph) and recompiled at the pipeline's level once its run() calls have
  /// taken twice that compile's time, or at its kFastTierPushes-th push();
  /// the recompiled kernels replace the fast ones (same plan) and only they
  /// are written to the disk cache. The MLIR pipeline is the same for both.
  bool tiered = false;
};

/// Tiered compilation's limits (JITOptions::tiered).
constexpr int64_t kFastTierMaxBytes = 1 << 20;
constexpr int kFastTierPushes = 64;

/// Where the code came from.
enum class CacheOutcome { Compiled, MemoryHit, DiskHit };

/// What compile* did, for `mxc run -v` and tests.
struct CompileInfo {
  CacheOutcome outcome = CacheOutcome::Compiled;
  std::string key;       ///< hex SHA-256
  std::string cachePath; ///< the disk entry (read or written), if any
  std::string cacheNote; ///< why the disk cache was not used/written
  ResolvedTarget target;
  double lowerMs = 0, codegenMs = 0, loadMs = 0;
  /// Code generation kernel by kernel (KernelCodegen.h): what it did.
  KernelStats kernelStats;
};

/// A hash of the file holding the compiler (the mxc binary, or the library
/// it is linked into) and LLVM's version: part of every cache key, so that a
/// rebuilt compiler never reads objects an older one wrote. Computed once.
const std::string &compilerIdentity();

/// $MXC_CACHE_DIR, else $XDG_CACHE_HOME/mxc, else $HOME/.cache/mxc.
std::string defaultCacheDir();

/// Compiles `module` (as `mxc import` produces it: `@main` of mx ops). On a
/// cache miss the module is lowered in place. Errors are emitted through the
/// context (lowering errors at the MXNet node's location).
mlir::FailureOr<std::shared_ptr<CompiledGraph>>
compileModule(mlir::ModuleOp module, const JITOptions &opts,
              CompileInfo *info = nullptr);

/// Imports `graph` with `importOpts` (shapes, dtypes, params) and compiles
/// it. The context needs registerCodegenDialects.
mlir::FailureOr<std::shared_ptr<CompiledGraph>>
compileGraph(mlir::MLIRContext &ctx, const graph::Graph &graph,
             const ImportOptions &importOpts, const JITOptions &opts,
             CompileInfo *info = nullptr);

} // namespace mxc

#endif // MXC_COMPILER_JIT_H
