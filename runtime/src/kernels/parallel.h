//===- parallel.h - parallel loops on the kernel threads --------*- C++ -*-===//
//
// A kernel's (or a generated step's) loop over [0, n) split across the
// kernel threads of the process's thread budget (mxc/runtime/threads.h,
// kernelThreads()), the calling thread among them. Used by the kernels of
// this directory and, through mxc_parallel_for (kernels.h), by generated
// code: mxc-parallel-loops (lib/Compiler/Transforms/ParallelLoops.cpp)
// outlines the outermost scf.parallel of a step into a LoopBody.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_RUNTIME_SRC_KERNELS_PARALLEL_H
#define MXC_RUNTIME_SRC_KERNELS_PARALLEL_H

#include <cstdint>
#include <type_traits>

namespace mxc::kernels {

/// Runs `body(ctx, lo, hi)` over chunks covering [0, n), each index once.
using LoopBody = void (*)(void *ctx, int64_t lo, int64_t hi);

/// `cost` estimates the innermost iterations of the whole loop: below a
/// threshold, with one kernel thread, or while another parallel loop of the
/// process runs (an engine worker's, or an enclosing one), the loop runs on
/// the calling thread alone. Returns when every chunk has run.
void parallelFor(int64_t n, int64_t cost, LoopBody body, void *ctx);

/// Whether the calling thread is running chunks of a parallel loop on the
/// pool (not a loop run alone on its caller). At most one such loop runs at
/// a time, so per-chunk state indexed by the chunk (conv_dnnl.cc's slots) is
/// the chunk's alone while this is true.
bool inParallelLoop();

/// The same for a C++ callable `f(lo, hi)`.
template <typename F> void parallelFor(int64_t n, int64_t cost, F &&f) {
  using Fn = std::remove_reference_t<F>;
  parallelFor(
      n, cost,
      [](void *ctx, int64_t lo, int64_t hi) { (*static_cast<Fn *>(ctx))(lo, hi); },
      const_cast<void *>(static_cast<const void *>(&f)));
}

} // namespace mxc::kernels

#endif // MXC_RUNTIME_SRC_KERNELS_PARALLEL_H
