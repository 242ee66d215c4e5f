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

#include <chrono>
#include <cstdint>
#include <type_traits>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace mxc::kernels {

/// One iteration of a spin-wait: tells the CPU (and an SMT sibling) so.
inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

/// How long a thread with nothing to do spins for new work before it sleeps
/// (the pool's helpers, and an engine worker that helps parallel loops).
/// 300 us: with 50 us MobileNet-v2's batch-1 pass (serial steps between the
/// loops) woke a sleeping helper for many of its loops, 5% slower
/// (docs/runtime.md, "Threads").
constexpr std::chrono::microseconds kSpinBeforeSleep{300};

/// Runs `body(ctx, lo, hi)` over chunks covering [0, n), each index once.
using LoopBody = void (*)(void *ctx, int64_t lo, int64_t hi);

/// `cost` estimates the innermost iterations of the whole loop: below a
/// threshold, with one loop thread (loopThreads()), or while another parallel
/// loop of the process runs (an engine worker's, or an enclosing one), the
/// loop runs on the calling thread alone. Returns when every chunk has run.
void parallelFor(int64_t n, int64_t cost, LoopBody body, void *ctx);

/// The most threads one parallel loop may use: the kernel threads (the
/// caller and the pool's kernelThreads() - 1 helpers) plus the other CPU
/// workers of an engine that shares its idle workers with the pool (below).
/// Kernels that split their work into parts up front (conv_dnnl.cc) split
/// for this many, even when no worker is idle at the start: one that becomes
/// idle later can then still take a part.
int loopThreads();

/// Work-sharing between an engine's CPU workers and the kernel threads
/// (docs/runtime.md, "Threads"): a threaded engine with more than one CPU
/// worker registers its pool here; each time a parallel loop opens,
/// `onLoopOpened(ctx)` is called (on the loop's thread, before it runs any
/// chunk), and a worker with nothing of its own to run then calls
/// helpRunningLoop(). So a chain of steps keeps every core busy inside each
/// step, and independent steps still run side by side. Returns an id for
/// removeLoopHelpers, which returns once no call of `onLoopOpened` for this
/// id is running.
int addLoopHelpers(int workers, void (*onLoopOpened)(void *ctx), void *ctx);
void removeLoopHelpers(int id);

/// Runs chunks of the parallel loop that is running, if it has any left, on
/// the calling thread, and returns when none is left to take (the loop's
/// owner waits for them). Whether it ran any.
bool helpRunningLoop();

/// Loops that may run on the pool at once: one without work-sharing (a
/// caller that finds it busy runs its loop alone), more with it.
constexpr int kMaxPooledLoops = 8;

/// When the calling thread runs chunks of a parallel loop on the pool (not
/// a loop run alone on its caller): the loop's entry in [0,
/// kMaxPooledLoops); else -1. One loop holds an entry at a time, so state
/// indexed by (entry, chunk) (conv_dnnl.cc's slots) is the chunk's alone.
int parallelLoopEntry();

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
