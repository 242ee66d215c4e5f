//===- Passes.h - mxc code generation passes --------------------*- C++ -*-===//
//
// The passes of Passes.td (lib/Compiler/Transforms) and the attributes they
// leave for the rest of the compiler.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_COMPILER_TRANSFORMS_PASSES_H
#define MXC_COMPILER_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mxc {

/// On the entry after mxc-entry-abi: the plan's name of each argument
/// buffer, inputs then outputs (an array of strings).
inline constexpr llvm::StringLiteral kBufferNamesAttrName = "mx.buffer_names";
/// On the entry after mxc-entry-abi: how many of its buffers are inputs.
inline constexpr llvm::StringLiteral kNumInputsAttrName = "mx.num_inputs";
/// On the entry (before and after mxc-entry-abi): pairs of its argument
/// numbers after mxc-entry-abi, [input, output buffer], that the caller
/// passes the same buffer for (PipelineOptions::inPlace): mxc-entry-abi
/// gives them no `noalias`, mx-outline-steps reads and writes both through
/// one argument of a step (a DenseI64ArrayAttr).
inline constexpr llvm::StringLiteral kInPlaceAttrName = "mx.in_place";

#define GEN_PASS_DECL
#include "mxc/Compiler/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mxc/Compiler/Transforms/Passes.h.inc"

/// The GPU twin of library kernel `mxc_kernel_X`: `mxc_cuda_kernel_X` (same
/// arguments, on device pointers; runtime/src/cuda), and back.
inline constexpr llvm::StringLiteral kGpuTwinPrefix = "mxc_cuda_kernel_";
inline std::string gpuTwinOf(llvm::StringRef kernel) {
  return ("mxc_cuda_" + kernel.drop_front(llvm::StringLiteral("mxc_").size())).str();
}
inline std::string cpuKernelOf(llvm::StringRef twin) {
  return ("mxc_" + twin.drop_front(llvm::StringLiteral("mxc_cuda_").size())).str();
}

/// The textual pipeline (on a module) that turns the planned steps' linalg
/// ops into GPU kernels in NVVM: loops mapped to blocks of 256 threads,
/// kernels outlined into gpu.module's with the nvvm target `chip` /
/// `features`, converted to the NVVM dialect with bare-pointer arguments.
/// The CUDA target (Pipeline.cpp) continues with gpu-module-to-binary and
/// the host lowering; mxc-opt has it as `mxc-cuda-kernels` (lit tests).
/// `blockSize` threads a block, each handling `elementsPerThread` innermost
/// elements (mxc-gpu-collapse-parallel-loops).
std::string cudaKernelsPipeline(llvm::StringRef chip, llvm::StringRef features,
                                int64_t blockSize = 128, int64_t elementsPerThread = 4);

/// The first half of cudaKernelsPipeline, on a module: the steps' linalg
/// ops as `gpu.launch` ops (loops mapped to blocks of `blockSize` threads,
/// `elementsPerThread` innermost elements a thread), before outlining. The
/// GPU kernel emulation (`mxc run --emulate-gpu-kernels`) continues from
/// here with mxc-gpu-check-host-code and mxc-gpu-launches-on-host.
std::string cudaLaunchesPipeline(int64_t blockSize = 128, int64_t elementsPerThread = 4);

/// Registers the `mxc-cuda-kernels{chip=sm_90 features=+ptx80 block-size=128
/// elements-per-thread=4}` pipeline.
void registerCudaKernelsPipeline();

} // namespace mxc

#endif // MXC_COMPILER_TRANSFORMS_PASSES_H
