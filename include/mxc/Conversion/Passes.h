//===- Passes.h - mx conversion passes --------------------------*- C++ -*-===//
#ifndef MXC_CONVERSION_PASSES_H
#define MXC_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringRef.h"

namespace mxc {
/// A module attribute the CUDA pipeline sets before convert-mx-to-linalg
/// (lib/Compiler/Pipeline.cpp): ops with both a CPU kernel without a GPU twin
/// and a generated form (LRN) then take the generated form, which compiles
/// for the GPU.
inline constexpr llvm::StringLiteral kCudaTargetAttr = "mxc.cuda_target";

#define GEN_PASS_DECL
#include "mxc/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mxc/Conversion/Passes.h.inc"
} // namespace mxc

#endif // MXC_CONVERSION_PASSES_H
