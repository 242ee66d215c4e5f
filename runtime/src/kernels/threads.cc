//===- threads.cc - the process's thread budget ---------------------------===//
//
// include/mxc/runtime/threads.h; docs/runtime.md, "Threads". Lives beside the
// kernels so that the AOT model runtime (libmxc_model_rt.a, every
// src/kernels/*.cc and no engine) has it too: the GEMM-class kernels call
// initThreadBudget() before their first BLAS call (blas.h), so anything that
// links the runtime runs OpenBLAS under the budget without a call of its own.
//
//===----------------------------------------------------------------------===//
#include "mxc/runtime/threads.h"

#include "../env.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <sched.h>

#if MXC_RUNTIME_HAVE_OPENBLAS
// OpenBLAS's own API (cblas.h of OpenBLAS declares them; Debian ships
// several cblas.h, so they are declared here). Weak: a process that links
// the runtime's objects against another CBLAS still links and runs.
extern "C" {
void openblas_set_num_threads(int num_threads) __attribute__((weak));
int openblas_get_num_threads(void) __attribute__((weak));
}
#endif

namespace mxc::runtime {

namespace {

using detail::readEnvInteger;

// The first of `names` (most important first) that is set and well formed.
int readFirst(std::initializer_list<const char *> names, long long min,
              int unset, bool allowList = false) {
  for (const char *name : names) {
    long long value = 0;
    if (readEnvInteger(name, min, value, allowList))
      return int(std::min<long long>(value, 1 << 20));
  }
  return unset;
}

// MXNet's engine names (src/engine/engine.cc of MXNet) in mxc's terms.
const char *mxnetEngineKind(const char *name) {
  if (!std::strcmp(name, "NaiveEngine") || !std::strcmp(name, "naive"))
    return "naive";
  if (!std::strcmp(name, "ThreadedEngine") ||
      !std::strcmp(name, "ThreadedEnginePerDevice") ||
      !std::strcmp(name, "threaded"))
    return "threaded";
  return nullptr;
}

// OpenBLAS runs on the calling thread only: the GEMM wrappers (blas.h) split
// a product across the kernel threads' pool themselves. Its own pool (started
// by its load-time constructor) then sleeps; given work, its threads spin in
// sched_yield for a long while after each call and took a core from the
// pool's helpers (docs/runtime.md, "Threads").
void makeBlasSingleThreaded() {
#if MXC_RUNTIME_HAVE_OPENBLAS
  if (openblas_set_num_threads)
    openblas_set_num_threads(1);
#endif
}

} // namespace

ThreadSettings ThreadSettings::fromEnvironment() {
  ThreadSettings s;
  if (const char *kind = std::getenv("MXC_ENGINE"); kind && *kind) {
    s.engine = kind; // any registered kind; defaultEngine() warns if unknown
  } else if (const char *name = std::getenv("MXNET_ENGINE_TYPE"); name && *name) {
    if (const char *kind = mxnetEngineKind(name))
      s.engine = kind;
    else
      std::fprintf(stderr,
                   "mxc: ignoring MXNET_ENGINE_TYPE='%s' (want NaiveEngine, "
                   "ThreadedEngine or ThreadedEnginePerDevice)\n",
                   name);
  }
  s.cpuWorkers =
      readFirst({"MXC_CPU_WORKER_NTHREADS", "MXNET_CPU_WORKER_NTHREADS"}, 1, 0);
  s.priorityWorkers = readFirst(
      {"MXC_CPU_PRIORITY_NTHREADS", "MXNET_CPU_PRIORITY_NTHREADS"}, 0, -1);
  s.kernelThreads = readFirst(
      {"MXC_KERNEL_NTHREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"}, 1, 0,
      /*allowList=*/true);
  return s;
}

ThreadBudget resolveThreadBudget(const ThreadSettings &s, int cores) {
  ThreadBudget b;
  b.cores = std::max(1, cores);
  if (!s.engine.empty())
    b.engine = s.engine;
  b.priorityWorkers = s.priorityWorkers >= 0 ? s.priorityWorkers : kDefaultPriorityWorkers;
  if (s.cpuWorkers > 0)
    b.cpuWorkers = s.cpuWorkers;
  else if (s.kernelThreads > 0)
    b.cpuWorkers = std::max(1, std::min(kDefaultCpuWorkers, b.cores / s.kernelThreads));
  else
    b.cpuWorkers = kDefaultCpuWorkers;
  // The naive engine runs every operation in the thread that pushes it: one
  // operation at a time, whatever the worker count says.
  int concurrent = b.engine == "naive" ? 1 : b.cpuWorkers;
  b.kernelThreads = s.kernelThreads > 0 ? s.kernelThreads
                                        : std::max(1, b.cores / concurrent);
  return b;
}

int usableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0)
      return n;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

namespace {
// The kernel threads in force (0: not resolved yet).
std::atomic<int> currentKernelThreads{0};
} // namespace

const ThreadBudget &initThreadBudget() {
  static const ThreadBudget budget = [] {
    ThreadBudget b = resolveThreadBudget(ThreadSettings::fromEnvironment(), usableCores());
    // A setKernelThreads() before the first call wins over the environment.
    int unresolved = 0;
    currentKernelThreads.compare_exchange_strong(unresolved, b.kernelThreads,
                                                 std::memory_order_relaxed);
    makeBlasSingleThreaded();
    return b;
  }();
  return budget;
}

int kernelThreads() {
  initThreadBudget();
  return currentKernelThreads.load(std::memory_order_relaxed);
}

void setKernelThreads(int n) {
  currentKernelThreads.store(std::max(1, n), std::memory_order_relaxed);
}

int blasThreads() {
#if MXC_RUNTIME_HAVE_OPENBLAS
  if (openblas_get_num_threads)
    return openblas_get_num_threads();
#endif
  return 0;
}

} // namespace mxc::runtime
