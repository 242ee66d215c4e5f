//===- AOT.h - ahead-of-time compiled models --------------------*- C++ -*-===//
//
// What `mxc compile` adds to the pipeline of Pipeline.h (docs/aot.md):
//
//   buildWeightsBlob     parameters and auxiliary states of the entry, from
//                        the .params arrays, as one 64-byte aligned blob
//   addModelDescriptor   the `mxc_model_descriptor` global the runtime's
//                        model API reads (runtime/src/model/model_desc.h):
//                        names, kinds, shapes and dtypes of the entry's
//                        arguments and results, the packed entry, the arena
//                        size symbol when the entry has the arena argument,
//                        and the weights (embedded as `.mxc_weights` or named
//                        as an external file)
//   linkModel            clang/lld as a subprocess: the object + the AOT
//                        runtime (lib/mxc/<triple>/libmxc_model_rt.a,
//                        libmxc_model_main.a) + OpenBLAS -> .so or executable
//
//===----------------------------------------------------------------------===//
#ifndef MXC_COMPILER_AOT_H
#define MXC_COMPILER_AOT_H

#include "mxc/Compiler/JIT.h"
#include "mxc/Graph/Params.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace mxc::aot {

/// The weights of an entry: every "param" and "aux" argument in argument
/// order, each at a 64-byte aligned offset.
struct WeightsBlob {
  std::vector<uint8_t> bytes;  ///< size a multiple of 64
  std::vector<int64_t> offsets; ///< per entry argument; -1 for data inputs
  uint64_t hash = 0;            ///< weightsHash(bytes)
};

/// model_desc.h's mxc_weights_hash.
uint64_t weightsHash(const uint8_t *data, size_t size);

/// Fills the blob from `params` (matched by bare name, "arg:"/"aux:"
/// removed). Error (one line, naming the argument as "node 'x': ...") for a
/// parameter without a value or with another shape or dtype.
llvm::Expected<WeightsBlob>
buildWeightsBlob(const EntrySignature &sig,
                 llvm::ArrayRef<graph::NDArrayData> params);

/// Writes the external weights file (64-byte header, then the blob).
llvm::Error writeWeightsFile(llvm::StringRef path, const WeightsBlob &blob);

struct DescriptorOptions {
  std::string modelName;
  std::string triple;
  std::string entrySymbol = "mxc_main";
  bool embedWeights = true;
  std::string weightsFile; ///< external: the file name (no directory)
};

/// The section holding embedded weights (excluded from size reports).
constexpr const char *kWeightsSection = ".mxc_weights";

/// Adds `mxc_model_descriptor` (and the embedded weights) to `module`, which
/// holds the plan and its kernel table (`<entry>_plan`, `<entry>_kernels`,
/// added by translateToLLVMIR; runtime/include/mxc/runtime/compiled_module.h).
llvm::Error addModelDescriptor(llvm::Module &module, const EntrySignature &sig,
                               const WeightsBlob &weights,
                               const DescriptorOptions &opts);

/// A C header describing the compiled model's inputs and outputs (macros
/// <PREFIX>_INPUT_<i>_NAME / _NBYTES, ...), including mxc/mxc_model.h.
std::string modelHeader(const EntrySignature &sig, llvm::StringRef modelName);

/// Where the AOT runtime libraries for `triple` are: `override` (a directory
/// holding libmxc_model_rt.a, or a prefix with lib/mxc/<dir>/), else
/// <mxc binary dir>/../lib/mxc/<dir>, else the source tree's
/// build-runtime-<arch>/lib/mxc/<dir>. <dir> is "<arch>-linux-gnu".
llvm::Expected<std::string> findRuntimeDir(llvm::StringRef triple,
                                           llvm::StringRef override);

struct LinkOptions {
  std::string triple;     ///< LLVM triple of the object
  std::string runtimeDir; ///< findRuntimeDir
  bool shared = false;    ///< .so; else an executable
  bool verbose = false;   ///< print the command line on stderr
};

/// Links `objectPaths` (the model's glue and kernel objects) into
/// `outputPath` with clang (LLVM's, else clang-22 on PATH; $MXC_CLANG
/// overrides) and lld. Error text: the linker's stderr.
llvm::Error linkModel(llvm::ArrayRef<std::string> objectPaths,
                      llvm::StringRef outputPath, const LinkOptions &opts);

/// Sizes of a linked ELF file for --stats.
struct BinarySizes {
  uint64_t fileBytes = 0;
  uint64_t weightsBytes = 0; ///< the .mxc_weights section
  uint64_t codeBytes = 0;    ///< executable sections
  uint64_t dataBytes = 0;    ///< other allocated sections with file bytes
};
llvm::Expected<BinarySizes> measureBinary(llvm::StringRef path);

} // namespace mxc::aot

#endif // MXC_COMPILER_AOT_H
