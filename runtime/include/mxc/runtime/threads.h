// threads.h - the process's one thread budget (docs/runtime.md, "Threads").
//
// The engine's CPU workers run operations; a kernel (an OpenBLAS GEMM, a
// convolution) may use threads of its own inside one operation. The budget
// fixes both from the environment, with MXNet's variable names honoured
// beside mxc's (an MXC_* variable wins when both are set):
//
//   engine kind      MXC_ENGINE (naive|threaded), MXNET_ENGINE_TYPE
//                    (NaiveEngine -> naive; ThreadedEngine,
//                    ThreadedEnginePerDevice -> threaded)
//   CPU workers      MXC_CPU_WORKER_NTHREADS, MXNET_CPU_WORKER_NTHREADS
//   priority lane    MXC_CPU_PRIORITY_NTHREADS, MXNET_CPU_PRIORITY_NTHREADS
//   kernel threads   MXC_KERNEL_NTHREADS, OMP_NUM_THREADS,
//                    OPENBLAS_NUM_THREADS (in that order)
//
// Defaults, as MXNet's: 1 CPU worker, kernel threads = usable cores
// (sched_getaffinity) / CPU workers, at least 1; so CPU workers x kernel
// threads <= cores unless the user set both explicitly.
//
// Plain C++17: nothing here may include LLVM or MLIR. Also part of the AOT
// model runtime (libmxc_model_rt.a), which has no engine.
#ifndef MXC_RUNTIME_THREADS_H
#define MXC_RUNTIME_THREADS_H

#include "mxc/runtime/api.h"

#include <string>

namespace mxc::runtime {

/// The defaults when nothing is set (MXNet's: one CPU worker, whose kernels
/// use every core).
constexpr int kDefaultCpuWorkers = 1;
constexpr int kDefaultPriorityWorkers = 1;

/// What the environment asks for; 0 (-1 for priorityWorkers, "" for
/// engine) where it says nothing.
struct MXC_RUNTIME_API ThreadSettings {
  /// An engine kind ("naive", "threaded", or any kind MXC_ENGINE names).
  std::string engine;
  int cpuWorkers = 0;
  int priorityWorkers = -1;
  int kernelThreads = 0;

  /// Reads the variables of the table above. A malformed value (not an
  /// integer, below the minimum, an unknown MXNET_ENGINE_TYPE) is ignored with
  /// a warning on stderr, and the next name down the list is read instead.
  /// OMP_NUM_THREADS may be an OpenMP list ("4,2"): its first entry counts.
  static ThreadSettings fromEnvironment();
};

/// The resolved budget.
struct MXC_RUNTIME_API ThreadBudget {
  std::string engine = "threaded";
  int cores = 1;            ///< usable cores it was computed for
  int cpuWorkers = kDefaultCpuWorkers;
  int priorityWorkers = kDefaultPriorityWorkers;
  int kernelThreads = 1;    ///< threads one kernel may use inside itself
};

/// The budget arithmetic, without the environment: cores < 1 counts as 1.
/// CPU workers: as set, else kDefaultCpuWorkers (fewer when kernel threads
/// are set: at most cores / kernel threads, at least 1). Kernel threads: as
/// set, else cores / (CPU workers of the threaded engine; 1 for the naive
/// engine, whose operations run in the pushing thread), at least 1.
MXC_RUNTIME_API ThreadBudget resolveThreadBudget(const ThreadSettings &settings,
                                                 int cores);

/// The cores this process may run on (sched_getaffinity; at least 1).
MXC_RUNTIME_API int usableCores();

/// Resolves the process's budget from the environment on the first call (the
/// default engine's creation, or the first GEMM-class kernel, whichever comes
/// first) and makes OpenBLAS single-threaded (openblas_set_num_threads(1)):
/// the GEMM kernels split their products across the kernel threads' pool
/// themselves, so one pool serves every kernel. Later calls return the same
/// budget. Thread safe.
MXC_RUNTIME_API const ThreadBudget &initThreadBudget();

/// Threads one kernel may use inside itself (initThreadBudget() first).
MXC_RUNTIME_API int kernelThreads();

/// Changes the kernel threads of the process (MXNet's MXSetNumOMPThreads);
/// n < 1 counts as 1. The next parallel loop uses it.
MXC_RUNTIME_API void setKernelThreads(int n);

/// The threads OpenBLAS itself reports (openblas_get_num_threads): 1 once the
/// budget is resolved; 0 when the runtime was built without OpenBLAS.
MXC_RUNTIME_API int blasThreads();

/// The kernel family OpenBLAS runs ("SkylakeX", "Haswell", ...; "" when the
/// runtime was built without OpenBLAS). When OPENBLAS_CORETYPE is unset and
/// OpenBLAS chose an older family than the CPU supports (OpenBLAS 0.3.21 does
/// not know CPUs newer than it and takes its SSE3 "Prescott" kernels), the
/// runtime chose again at load time; the text then says so:
/// "SkylakeX (OpenBLAS chose Prescott; replaced by mxc)".
MXC_RUNTIME_API std::string blasCore();

} // namespace mxc::runtime

#endif // MXC_RUNTIME_THREADS_H
