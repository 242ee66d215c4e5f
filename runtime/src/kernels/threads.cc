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
#include <mutex>
#include <string>
#include <thread>

#include <strings.h>

#include <sched.h>

#if MXC_RUNTIME_HAVE_OPENBLAS
// OpenBLAS's own API (cblas.h of OpenBLAS declares them; Debian ships
// several cblas.h, so they are declared here). Weak: a process that links
// the runtime's objects against another CBLAS still links and runs.
extern "C" {
void openblas_set_num_threads(int num_threads) __attribute__((weak));
int openblas_get_num_threads(void) __attribute__((weak));
char *openblas_get_corename(void) __attribute__((weak));
// A DYNAMIC_ARCH OpenBLAS (Debian's) picks its kernels once, in its load-time
// constructor; these two (exported by every DYNAMIC_ARCH build) drop that
// choice and make it again, reading OPENBLAS_CORETYPE.
void gotoblas_dynamic_init(void) __attribute__((weak));
void gotoblas_dynamic_quit(void) __attribute__((weak));
// Stops OpenBLAS's thread pool (its pthreads builds); a later call that
// wants threads starts it again.
int blas_thread_shutdown_(void) __attribute__((weak));
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

// Debian's OpenBLAS (pthreads) starts its thread pool in its load-time
// constructor, and each of those threads spins in sched_yield for 2^28 cycles
// (OPENBLAS_THREAD_TIMEOUT's default, ~0.1 s here) before it sleeps. The
// runtime never gives that pool work (makeBlasSingleThreaded()), but its
// spinning took a core for the process's first 0.1 s: `mxc run`'s first 3-5
// forward passes of MobileNet-v2 ran at 6-8 ms against 3 ms after it, the
// kernel threads' helper sharing the other core (docs/benchmarks.md). So the
// pool is stopped at load (OpenBLAS starts it again if a caller later asks
// for more than one thread); the thread count OpenBLAS uses is unchanged.
void stopIdleBlasThreads() {
#if MXC_RUNTIME_HAVE_OPENBLAS
  if (blas_thread_shutdown_)
    blas_thread_shutdown_();
#endif
}

// OpenBLAS runs on the calling thread only: the GEMM wrappers (blas.h) split
// a product across the kernel threads' pool themselves. Its own pool is
// stopped (stopIdleBlasThreads()); given work, its threads spun in
// sched_yield for a long while after each call and took a core from the
// pool's helpers (docs/runtime.md, "Threads").
void makeBlasSingleThreaded() {
#if MXC_RUNTIME_HAVE_OPENBLAS
  if (openblas_set_num_threads)
    openblas_set_num_threads(1);
#endif
  // (openblas_set_num_threads starts the pool again when it is stopped.)
  stopIdleBlasThreads();
}

#if MXC_RUNTIME_HAVE_OPENBLAS
// The OpenBLAS kernel family this CPU can run best ("" when not known).
// OpenBLAS names the families after Intel cores; SkylakeX's kernels need
// AVX-512 F / BW / DQ / VL / CD, Haswell's AVX2 and FMA, Sandybridge's AVX.
const char *bestBlasCore() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512cd"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return "Haswell";
  if (__builtin_cpu_supports("avx"))
    return "Sandybridge";
#endif
  return "";
}

// Rank of an OpenBLAS x86 kernel family by the vector ISA its kernels use
// (0: SSE-only or a family this list does not know, which is left alone:
// AMD's Zen, Excavator, ... are OpenBLAS's own good choices).
int blasCoreRank(const char *name) {
  static const struct {
    const char *name;
    int rank;
  } ranks[] = {{"Prescott", 1},   {"Core2", 1},       {"Penryn", 1},
               {"Dunnington", 1}, {"Nehalem", 1},     {"Atom", 1},
               {"Sandybridge", 2}, {"Haswell", 3},    {"SkylakeX", 4},
               {"Cooperlake", 4}, {"SapphireRapids", 4}};
  for (const auto &r : ranks)
    if (!strcasecmp(name, r.name))
      return r.rank;
  return 0;
}

// OpenBLAS's own choice when selectBlasCore() replaced it ("" otherwise).
std::string &replacedBlasCore() {
  static std::string name;
  return name;
}

#endif

// OpenBLAS 0.3.21 (Debian 12) does not know CPUs newer than it (Emerald
// Rapids, family 6 model 207, among them) and falls back to its Prescott
// (SSE3) kernels: SGEMM at 24 GFLOP/s a thread where its SkylakeX kernels
// reach 150 on the same core (docs/benchmarks.md, "OpenBLAS's kernels").
// When OPENBLAS_CORETYPE is not set and OpenBLAS chose an older family
// than the CPU supports, choose again with the better one. Runs before any
// BLAS call of the runtime (a load-time constructor and initThreadBudget).
void selectBlasCore() {
#if MXC_RUNTIME_HAVE_OPENBLAS
  static std::once_flag once;
  std::call_once(once, [] {
    if (!openblas_get_corename || !gotoblas_dynamic_init || !gotoblas_dynamic_quit)
      return; // not a DYNAMIC_ARCH OpenBLAS
    if (const char *set = std::getenv("OPENBLAS_CORETYPE"); set && *set)
      return; // the user's choice
    const char *chosen = openblas_get_corename();
    const char *best = bestBlasCore();
    if (!chosen || !*best)
      return;
    int have = blasCoreRank(chosen);
    if (have == 0 || have >= blasCoreRank(best))
      return;
    std::string was = chosen;
    // gotoblas_dynamic_init reads the variable; it is removed again so that
    // the process's environment stays as it was.
    setenv("OPENBLAS_CORETYPE", best, 1);
    gotoblas_dynamic_quit();
    gotoblas_dynamic_init();
    unsetenv("OPENBLAS_CORETYPE");
    replacedBlasCore() = was;
  });
#endif
}

// At load time, after OpenBLAS's own constructor (a library's dependencies
// are initialised before it) and before any thread of the runtime exists.
__attribute__((constructor)) void setUpBlasAtLoad() {
  selectBlasCore();
  stopIdleBlasThreads();
}

} // namespace

std::string blasCore() {
#if MXC_RUNTIME_HAVE_OPENBLAS
  if (!openblas_get_corename)
    return "";
  const char *name = openblas_get_corename();
  std::string s = name ? name : "";
  if (!replacedBlasCore().empty())
    s += " (OpenBLAS chose " + replacedBlasCore() + "; replaced by mxc)";
  return s;
#else
  return "";
#endif
}

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
    selectBlasCore();
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
