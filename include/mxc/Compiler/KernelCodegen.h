//===- KernelCodegen.h - one object per kernel, cached by content -*- C++ -*-===//
//
// Code generation of a translated module (translateToLLVMIR with
// optimize = false) kernel by kernel: every step's kernel, with the functions
// and constants it uses, becomes a module of its own, named by the SHA-256 of
// its text (internal names made canonical), so that
//   - identical kernels (ResNet-50's repeated convolutions) are compiled once,
//   - a kernel another graph (or an earlier compile) already produced is read
//     from the kernel cache instead of compiled, and a changed layer
//     recompiles only its own kernels,
//   - the kernels that are compiled are optimised and code-generated on
//     several threads, each with its own LLVMContext and TargetMachine.
// What is left (the plan text, the kernel table, the arena size, the AOT
// descriptor and weights) is the glue object; its table points at the
// kernels' content-named symbols `mxc_k_<hash>`.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_COMPILER_KERNELCODEGEN_H
#define MXC_COMPILER_KERNELCODEGEN_H

#include "mxc/Compiler/Pipeline.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Module;
namespace object {
class ObjectFile;
}
} // namespace llvm

namespace mxc {

/// $MXC_KERNEL_MIN_INSTRUCTIONS, else 0.
size_t defaultKernelMinInstructions();
/// $MXC_KERNEL_SPLIT_MIN, else 0.
size_t defaultModuleMinInstructions();

struct KernelCodegenOptions {
  unsigned optLevel = 3;
  std::string entrySymbol = "mxc_main";
  /// Where kernel objects are read and written (`<dir>/<key>.o`); empty: no
  /// kernel cache (identical kernels are still compiled once).
  std::string cacheDir;
  /// Mixed into every kernel's key (the compiler's identity).
  std::string keySalt;
  /// Code-generation threads; 0: one per hardware thread ($MXC_COMPILE_THREADS
  /// overrides).
  unsigned threads = 0;
  /// Kernels with fewer LLVM IR instructions (before optimisation, helpers
  /// included) stay in the glue object; defaultKernelMinInstructions().
  size_t minInstructions = defaultKernelMinInstructions();
  /// A module with fewer LLVM IR instructions in all (before optimisation)
  /// is compiled whole (unsplitReason says so);
  /// defaultModuleMinInstructions().
  size_t minModuleInstructions = defaultModuleMinInstructions();
};

/// What one code generation kernel by kernel did (`mxc run -v`, `mxc compile
/// --stats`, CompileInfo).
struct KernelStats {
  /// Steps, distinct kernels of their own, kernels compiled now, kernels
  /// read from the cache, threads used, small kernels left in the glue.
  unsigned steps = 0, distinct = 0, compiled = 0, cached = 0, threads = 0,
           inGlue = 0;
  /// Time splitting and hashing the module and reading the cache, in ms.
  double splitMs = 0;
  /// Set when the module was compiled whole (MXC_KERNEL_SPLIT=0, a mutable
  /// global shared by two kernels, ...).
  std::string unsplitReason;
  /// "75 steps, 42 distinct, 42 compiled on 2 threads, ..." or "compiled as
  /// one module (<reason>)"; empty when no code was generated this way.
  std::string describe() const;
};

/// What emitKernelObjects produced.
struct KernelObjects {
  /// The glue object (plan, kernel table, arena size, ...); the whole
  /// module's object when stats.unsplitReason is set.
  std::string glue;
  /// One object per distinct kernel, with its key (its symbol is
  /// kernelSymbol(key)).
  std::vector<std::pair<std::string, std::string>> kernels;
  KernelStats stats;
};

/// `<cacheDir>/kernels`: the kernel cache beside a graph cache (empty for an
/// empty cacheDir).
std::string kernelCacheDir(llvm::StringRef cacheDir);

/// Splits `module` (unoptimised, as translateToLLVMIR(optimize=false) leaves
/// it) into kernels and glue and code-generates them for `target`, taking
/// what it can from the kernel cache and writing what it compiles there.
/// `module` is consumed (it becomes the glue).
llvm::Expected<KernelObjects>
emitKernelObjects(std::unique_ptr<llvm::Module> module,
                  const ResolvedTarget &target,
                  const KernelCodegenOptions &opts);

/// The symbol of the kernel with key `key`.
std::string kernelSymbol(llvm::StringRef key);

/// The kernel keys an object (a glue object) refers to: its undefined
/// `mxc_k_<hash>` symbols, in order of appearance, without repeats.
llvm::Expected<std::vector<std::string>>
referencedKernelKeys(llvm::StringRef object);

/// `<dir>/<key>.o`.
std::string kernelObjectPath(llvm::StringRef dir, llvm::StringRef key);

/// Writes `bytes` to `path` through a temporary file and a rename, so that
/// concurrent writers and readers never see a partial file.
llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef bytes);

/// $MXC_COMPILE_THREADS, else the hardware's threads (at least 1).
unsigned defaultCompileThreads();

} // namespace mxc

#endif // MXC_COMPILER_KERNELCODEGEN_H
