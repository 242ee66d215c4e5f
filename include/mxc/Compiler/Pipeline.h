//===- Pipeline.h - the CPU code generation pipeline ------------*- C++ -*-===//
//
// The stages between an imported module (`func.func @main` of `mx` ops on
// tensors) and native code:
//
//   lowerToLinalg        mx -> linalg/tensor/arith/math (convert-mx-to-linalg),
//                        elementwise fusion, canonicalisation
//   lowerToBuffers       the entry ABI (memref arguments, results written into
//                        caller buffers), one-shot bufferization
//   lowerToLLVMDialect   lowerToBuffers, mx-plan-memory (every intermediate
//                        in one arena), mx-outline-steps (one function a
//                        step; the plan into the module), loops, LLVM dialect
//   translateToLLVMIR    LLVM IR for a target, the steps' kernels and the
//                        plan's symbols, O3
//   emitObjectFile       an ELF/Mach-O/COFF object for that target
//
// The entry ABI (pass mxc-entry-abi). `@main(%a0: tensor<..>, ...) ->
// (tensor<..>, ...)` becomes `@<entry>(%a0: memref<..>, ..., %r0: memref<..>,
// ..., %arena: memref<Nxi8>)` (identity layouts, results written in place);
// the arena holds every intermediate buffer (mx-plan-memory,
// docs/memory.md). mx-outline-steps then splits the entry into steps, and
// extractPlan serialises it as the execution plan; the entry itself is not
// compiled. What the object exports -- `<entry>_plan`, `<entry>_kernels`,
// `<entry>_num_kernels`, `<entry>_arena_size` and one
// `void <entry>_step<i>_kernel(void **buffers)` per step -- is the ABI of
// runtime/include/mxc/runtime/compiled_module.h, which the runtime's
// executor runs (docs/runtime.md, "Plans from the compiler").
//
//===----------------------------------------------------------------------===//
#ifndef MXC_COMPILER_PIPELINE_H
#define MXC_COMPILER_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/LLVM.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"
#include "mxc/runtime/plan.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace mxc {

/// What to generate code for. Empty fields mean "the host": the process's
/// triple, the host CPU (llvm::sys::getHostCPUName) and all of its features
/// (getHostCPUFeatures), i.e. -march=native. For another triple the CPU
/// defaults to "generic". `features` is added after the CPU's own features,
/// in LLVM spelling ("+avx2,-avx512f").
struct TargetOptions {
  std::string triple;
  std::string cpu;
  std::string features;
};

/// A target with every field filled in, as used in the cache key.
struct ResolvedTarget {
  std::string triple;
  std::string cpu;
  std::string features;
  bool isHost = false;
};

/// Fills in the host defaults and checks that LLVM knows the triple and CPU.
llvm::Expected<ResolvedTarget> resolveTarget(const TargetOptions &opts);

/// A TargetMachine for `target` (PIC, optimisation level `optLevel` 0-3).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const ResolvedTarget &target, unsigned optLevel = 3);

/// Options of the code generation pipeline. They are part of the JIT cache
/// key (describe()).
struct PipelineOptions {
  /// Symbol of the compiled entry function (`@main` is renamed so that an
  /// object file can be linked next to a C `main`).
  std::string entrySymbol = "mxc_main";
  /// Fuse chains of elementwise linalg ops (mxc-fuse-elementwise-ops).
  bool fuseElementwise = true;
  /// Let LLVM reassociate float arithmetic in reduction bodies, so that it
  /// vectorizes sums (results differ from a sequential sum by rounding).
  bool fastReductions = true;
  /// f32/f16 exp, log, tanh, erf as MLIR's polynomial approximations
  /// (vectorizable) instead of libm calls.
  bool approximateMath = true;
  /// Split long reductions with few outputs into partial and final
  /// reductions (mxc-split-reductions): on for the CUDA target, where a
  /// reduction's outputs are its threads; for the CPU only to test the
  /// transformation (`mxc run --split-reductions`).
  bool splitReductions = false;
  /// mxc-split-reductions' `target-threads` / `max-chunks` (0: the pass's
  /// defaults, 32768 / 1024): tuning knobs, so that a GPU benchmark can
  /// compare settings (`--split-reduction-threads` / `-chunks`, hidden).
  int64_t splitTargetThreads = 0;
  int64_t splitMaxChunks = 0;
  /// Training BatchNorm as one library kernel forward and one backward
  /// (mx-autodiff `library-batch-norm`: cuDNN's batch normalisation on the
  /// GPU, runtime/src/kernels/batch_norm.cc on the CPU) instead of composed
  /// mx ops, which generate about 30 kernels on the GPU and fuse well on the
  /// CPU. -1: the target's choice (the CUDA target's, not the CPU's); 0 / 1
  /// force it (`--batch-norm-kernels=generated|library`, hidden: the CPU
  /// numerics of the library form are checked with it, and a GPU benchmark
  /// compares both).
  int libraryBatchNorm = -1;
  bool useLibraryBatchNorm() const {
    return libraryBatchNorm < 0 ? !cudaArch.empty() : libraryBatchNorm != 0;
  }
  /// Run the outermost parallel loop nests of each step on the kernel
  /// threads (mxc-parallel-loops, runtime/src/kernels/parallel.h).
  bool parallelLoops = true;
  /// LLVM optimisation level (0-3).
  unsigned optLevel = 3;

  // Graph passes on `mx` ops (runGraphPasses), then memory planning.
  /// mx-prune `outputs`: "node[:i]" heads to keep; empty: @main's results.
  std::vector<std::string> outputs;
  /// mx-autodiff: @main becomes forward + backward (MXNet's
  /// forward(is_train=True) + backward(out_grads)); else mx-prune drops what
  /// only training needs.
  bool train = false;
  /// mx-autodiff `wrt`: argument names to differentiate; empty: every
  /// argument of kind "param".
  std::vector<std::string> wrt;
  /// mx-autodiff `grad-req`: "write" | "add" | "null" for every argument,
  /// or "name=req" entries.
  std::vector<std::string> gradReq;
  /// mx-split-training `part` after mx-autodiff: "" (the whole training
  /// step), "forward" or "backward" (the halves of a recorded forward,
  /// autograd's CachedOp: the forward returns the residuals the backward
  /// reads).
  std::string trainPart;
  /// Outputs the caller writes in place of an input: "J=NAME" entries,
  /// output J (of @main's results) and the input named NAME, same type,
  /// will be the same buffer at run time (an optimizer update writing the
  /// new weight over the weight: mx.nd.sgd_update(w, g, out=w)). The kernels
  /// read and write it through one pointer (no `noalias` pair). The caller
  /// checks that the plan writes the output in the step that reads the input
  /// last (a single-step plan).
  std::vector<std::string> inPlace;
  /// mx-fuse-elementwise (and mx-fuse-convolution, see below).
  bool fuseGraph = true;
  /// mx-fuse-convolution before mx-fuse-elementwise (with fuseGraph, on the
  /// CPU target): Convolution + BatchNorm / relu / clip / add as one kernel.
  bool fuseConvolution = true;
  /// mx-fuse-convolution `constant-params`: the arguments of kind param /
  /// aux hold the same values on every run of the compiled function (`mxc
  /// run`, AOT models, which never change them), so the convolution kernels
  /// may keep re-laid copies of their weights across runs. Off for the
  /// Python API, whose parameters change between runs.
  bool constantParams = false;
  /// mx-propagate-conv-layout after mx-fuse-convolution: tensors that pass
  /// only between fused convolutions stay in the runtime's blocked channel
  /// layout. On by default where the compiler runs on x86-64 (the runtime's
  /// oneDNN kernels compute on that layout); `mxc compile` turns it off for
  /// other targets, whose runtime would only convert.
#if defined(__x86_64__)
  bool blockedLayout = true;
#else
  bool blockedLayout = false;
#endif
  /// mx-plan-memory `strategy`: none | inplace | coshare | both.
  std::string memoryPlan = "both";

  /// The CUDA target (docs/gpu.md): an NVIDIA architecture ("sm_90") puts
  /// every step on gpu(0) and compiles it into kernels through the gpu
  /// dialect and NVVM (embedded as a fatbin: the architecture's cubin + its
  /// PTX), launched by host code on the runtime's driver layer. Empty: CPU.
  std::string cudaArch;
  /// PTX ISA of the kernels (NVVM's default, 6.0, is too old for sm_90).
  std::string cudaFeatures = "+ptx80";
  /// gpu-module-to-binary's format: fatbin (what runs), or isa (PTX text,
  /// for `mxc compile --emit ptx`).
  std::string cudaFormat = "fatbin";
  /// Threads a block, and innermost elements a thread handles (unrolled, so
  /// that 4 make one 128-bit access). Chosen by bench/gpu (docs/benchmarks.md).
  int64_t cudaBlockSize = 128;
  int64_t cudaElementsPerThread = 4;
  /// GPU kernel emulation (`mxc run --emulate-gpu-kernels`, hidden; CPU
  /// target only): the steps go through the CUDA target's kernel mapping
  /// (cudaBlockSize, cudaElementsPerThread) and each launch then runs as a
  /// host loop over its blocks and threads (mxc-gpu-launches-on-host), so
  /// that the mapping's numerics are checked on a machine without a GPU.
  /// The plan stays on the CPU; graph-level choices stay the CPU's.
  bool emulateGpuKernels = false;
  /// With emulateGpuKernels: each launch's blocks and threads in reverse
  /// order (`--emulate-gpu-kernels=reversed`): a race-free kernel gives the
  /// same bits either way.
  bool emulateGpuReversed = false;

  /// A one-line description of every option, for cache keys and -v.
  std::string describe() const;
};

/// Registers MLIR's passes and mxc's (once per process; the pipeline calls
/// it too). Tools call it before parsing options so that
/// --mlir-print-ir-after=<pass> knows the pass names.
void registerCodegenPasses();

/// Adds every dialect, interface and translation the pipeline uses.
void registerCodegenDialects(mlir::DialectRegistry &registry);

/// Lets the pipeline keep its pass managers for `ctx` between compiles and
/// run them again (a pass manager built for one pipeline text is parsed
/// and its patterns frozen once, not per compile). For a context that
/// lives as long as the process (the Python module's): a pass manager
/// kept for a context that is later destroyed would dangle.
void reusePassManagers(mlir::MLIRContext &ctx);

/// The graph passes on `mx` ops, as options select: mx-prune, mx-autodiff
/// (opts.train), mx-fuse-elementwise (opts.fuseGraph). Runs once per module:
/// it marks the module (`mxc.graph_passes`) and does nothing the second
/// time. Call it before reading the entry signature, which autodiff changes.
mlir::LogicalResult runGraphPasses(mlir::ModuleOp module,
                                   const PipelineOptions &opts = {});

/// mx -> linalg on tensors (runs runGraphPasses first, if not yet run). Errors (a pattern that cannot lower an op, an
/// `mx` op no pattern handles) are emitted at the op's location, which names
/// its MXNet node.
mlir::LogicalResult lowerToLinalg(mlir::ModuleOp module,
                                  const PipelineOptions &opts = {});

/// linalg on tensors -> the entry ABI described above, bufferized (memrefs,
/// `memref.alloc` per intermediate, `mxrt.kernel_call` on memrefs): the form
/// mx-plan-memory plans (`mxc memory-report` stops here).
mlir::LogicalResult lowerToBuffers(mlir::ModuleOp module,
                                   const PipelineOptions &opts = {});

/// The execution plan of a planned entry after mx-outline-steps (a list of
/// calls of step functions): argument and output buffers named after the
/// graph's inputs and outputs, the arena views the steps use, one step per
/// call with its reads, writes, kernel symbol (`<entry>_step<i>_kernel`) and
/// the MXNet node names of its location. Emits an error on anything else.
mlir::FailureOr<runtime::Plan> extractPlan(mlir::ModuleOp module,
                                           llvm::StringRef entry);

/// The plan text lowerToLLVMDialect stored in the module.
mlir::FailureOr<std::string> getPlanText(mlir::ModuleOp module);

/// linalg on tensors -> LLVM dialect, with the entry ABI described above
/// (lowerToBuffers, then mx-plan-memory{strategy=opts.memoryPlan}, the
/// `<entry>_arena_size` global, mx-outline-steps and the plan).
mlir::LogicalResult lowerToLLVMDialect(mlir::ModuleOp module,
                                       const PipelineOptions &opts = {});

/// The CUDA half of lowerToLLVMDialect (opts.cudaArch set): after step
/// outlining, the steps become GPU kernels and host launches (Pipeline.cpp).
mlir::LogicalResult lowerStepsForCuda(mlir::ModuleOp module, const PipelineOptions &opts);

/// LLVM dialect -> LLVM IR for `tm`'s triple and data layout, with the
/// steps' kernels, the plan's symbols and `target-cpu`/`target-features` on
/// every function,
/// optimised at opts.optLevel unless `optimize` is false (emitKernelObjects
/// optimises kernel by kernel). Errors name the stage.
llvm::Expected<std::unique_ptr<llvm::Module>>
translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &llvmCtx,
                  llvm::TargetMachine &tm, const PipelineOptions &opts = {},
                  bool optimize = true);

/// A module translated for a target: the target machine (for
/// emitObjectFile) and the optimised LLVM IR.
struct TargetModule {
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::Module> module;
};

/// createTargetMachine(target, opts.optLevel), then translateToLLVMIR with
/// it: the step every code generator (JIT, mxc codegen, mxc compile) takes.
llvm::Expected<TargetModule>
translateForTarget(mlir::ModuleOp module, const ResolvedTarget &target,
                   llvm::LLVMContext &llvmCtx,
                   const PipelineOptions &opts = {}, bool optimize = true);

/// For a loader that runs no module constructors (the JIT's ORC LLJIT runs
/// no .init_array of an object it links): moves `llvm.global_ctors` and
/// `llvm.global_dtors` (the CUDA target's kernel-binary loads and unloads)
/// into the external functions runtime::moduleInitSymbol(entry) /
/// moduleFiniSymbol(entry), which call them in the arrays' priority order
/// (both defined, empty where there were none: a GPU plan of library calls
/// alone loads no kernel binary).
void exposeModuleInitializers(llvm::Module &module, llvm::StringRef entry);

/// Writes `module` as an object file image for `tm`.
llvm::Expected<std::string> emitObjectFile(llvm::Module &module,
                                           llvm::TargetMachine &tm);

/// Runs LLVM's default O<level> pipeline on `module` with `tm`'s cost model
/// (what translateToLLVMIR ends with).
void optimizeLLVMModule(llvm::Module &module, llvm::TargetMachine &tm,
                        unsigned level);

} // namespace mxc

#endif // MXC_COMPILER_PIPELINE_H
