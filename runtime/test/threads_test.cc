// threads_test.cc - the process's thread budget (mxc/runtime/threads.h):
// the budget arithmetic, the environment (mxc's and MXNet's names, which one
// wins, malformed values), the engine options built from it, and OpenBLAS
// running under it.
//
// Under ctest every test runs in a process of its own (gtest_discover_tests);
// the two "FirstUse" tests rely on that: the budget is resolved once per
// process, and the default engine is created once.
#include "mxc/runtime/engine.h"
#include "mxc/runtime/threads.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <sched.h>
#include <unistd.h>

extern "C" void mxc_kernel_gemm_f32(const float *, const float *, int64_t, int64_t, int64_t,
                                    const float *, const float *, int64_t, int64_t, int64_t,
                                    float *, float *, int64_t, int64_t, int64_t, int64_t,
                                    int64_t, int64_t, int64_t, int64_t, int64_t);

namespace mxc::runtime::test {
namespace {

// Every variable the budget reads. A test starts with all of them unset and
// leaves the environment as it found it.
const char *const kVariables[] = {
    "MXC_ENGINE",          "MXNET_ENGINE_TYPE",          "MXC_CPU_WORKER_NTHREADS",
    "MXNET_CPU_WORKER_NTHREADS", "MXC_CPU_PRIORITY_NTHREADS", "MXNET_CPU_PRIORITY_NTHREADS",
    "MXC_KERNEL_NTHREADS", "OMP_NUM_THREADS",            "OPENBLAS_NUM_THREADS",
};

class CleanEnvironment {
public:
  CleanEnvironment() {
    for (const char *name : kVariables) {
      if (const char *v = std::getenv(name))
        saved_[name] = v;
      ::unsetenv(name);
    }
  }
  ~CleanEnvironment() {
    for (const char *name : kVariables) {
      auto it = saved_.find(name);
      if (it == saved_.end())
        ::unsetenv(name);
      else
        ::setenv(name, it->second.c_str(), 1);
    }
  }
  void set(const char *name, const char *value) { ::setenv(name, value, 1); }
  void unset(const char *name) { ::unsetenv(name); }

private:
  std::map<std::string, std::string> saved_;
};

ThreadSettings settings(int workers, int kernel, std::string engine = "", int priority = -1) {
  ThreadSettings s;
  s.cpuWorkers = workers;
  s.kernelThreads = kernel;
  s.engine = std::move(engine);
  s.priorityWorkers = priority;
  return s;
}

//===----------------------------------------------------------------------===//
// The arithmetic
//===----------------------------------------------------------------------===//

TEST(ThreadBudget, DefaultsAreMXNets) {
  ThreadBudget b = resolveThreadBudget(ThreadSettings{}, 8);
  EXPECT_EQ(b.engine, "threaded");
  EXPECT_EQ(b.cores, 8);
  EXPECT_EQ(b.cpuWorkers, 1);
  EXPECT_EQ(b.kernelThreads, 8);
  EXPECT_EQ(b.priorityWorkers, 1);
  EXPECT_EQ(b.cpuWorkers, EngineOptions().cpuWorkers);
  EXPECT_EQ(b.priorityWorkers, EngineOptions().priorityWorkers);
}

TEST(ThreadBudget, WorkersSetShareTheCores) {
  // workers x kernel threads <= cores, at least one kernel thread each.
  for (int cores : {1, 2, 3, 4, 7, 8, 16, 64})
    for (int workers : {1, 2, 3, 4, 5, 8, 100}) {
      ThreadBudget b = resolveThreadBudget(settings(workers, 0), cores);
      EXPECT_EQ(b.cpuWorkers, workers);
      EXPECT_EQ(b.kernelThreads, std::max(1, cores / workers)) << cores << " " << workers;
      if (workers <= cores)
        EXPECT_LE(b.cpuWorkers * b.kernelThreads, cores) << cores << " " << workers;
    }
  EXPECT_EQ(resolveThreadBudget(settings(2, 0), 8).kernelThreads, 4);
  EXPECT_EQ(resolveThreadBudget(settings(3, 0), 8).kernelThreads, 2);
  EXPECT_EQ(resolveThreadBudget(settings(16, 0), 8).kernelThreads, 1);
}

TEST(ThreadBudget, KernelThreadsSetKeepOneWorker) {
  for (int kernel : {1, 2, 4, 8, 32}) {
    ThreadBudget b = resolveThreadBudget(settings(0, kernel), 8);
    EXPECT_EQ(b.kernelThreads, kernel);
    EXPECT_EQ(b.cpuWorkers, 1);
  }
}

TEST(ThreadBudget, BothSetAreHonouredEvenOversubscribed) {
  ThreadBudget b = resolveThreadBudget(settings(4, 4), 2);
  EXPECT_EQ(b.cpuWorkers, 4);
  EXPECT_EQ(b.kernelThreads, 4);
  b = resolveThreadBudget(settings(2, 1), 8);
  EXPECT_EQ(b.cpuWorkers, 2);
  EXPECT_EQ(b.kernelThreads, 1);
}

TEST(ThreadBudget, NaiveEngineRunsOneOperationAtATime) {
  // Its operations run in the pushing thread: the kernels get every core,
  // whatever the worker count.
  ThreadBudget b = resolveThreadBudget(settings(4, 0, "naive"), 8);
  EXPECT_EQ(b.engine, "naive");
  EXPECT_EQ(b.cpuWorkers, 4);
  EXPECT_EQ(b.kernelThreads, 8);
  EXPECT_EQ(resolveThreadBudget(settings(4, 3, "naive"), 8).kernelThreads, 3);
}

TEST(ThreadBudget, NoCoresCountAsOne) {
  for (int cores : {0, -3}) {
    ThreadBudget b = resolveThreadBudget(ThreadSettings{}, cores);
    EXPECT_EQ(b.cores, 1);
    EXPECT_EQ(b.kernelThreads, 1);
    EXPECT_EQ(b.cpuWorkers, 1);
  }
}

TEST(ThreadBudget, PriorityWorkers) {
  EXPECT_EQ(resolveThreadBudget(settings(0, 0, "", 0), 4).priorityWorkers, 0);
  EXPECT_EQ(resolveThreadBudget(settings(0, 0, "", 3), 4).priorityWorkers, 3);
  // The priority lane is not part of workers x kernel threads.
  EXPECT_EQ(resolveThreadBudget(settings(0, 0, "", 3), 4).kernelThreads, 4);
}

TEST(ThreadBudget, UsableCoresAreTheAffinityMask) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  EXPECT_EQ(usableCores(), CPU_COUNT(&set));
  EXPECT_GE(usableCores(), 1);
}

//===----------------------------------------------------------------------===//
// The environment
//===----------------------------------------------------------------------===//

TEST(ThreadEnvironment, NothingSet) {
  CleanEnvironment env;
  ThreadSettings s = ThreadSettings::fromEnvironment();
  EXPECT_EQ(s.engine, "");
  EXPECT_EQ(s.cpuWorkers, 0);
  EXPECT_EQ(s.priorityWorkers, -1);
  EXPECT_EQ(s.kernelThreads, 0);
  EngineOptions opts = EngineOptions::fromEnvironment();
  EXPECT_EQ(opts.kind, "threaded");
  EXPECT_EQ(opts.cpuWorkers, 1);
  EXPECT_EQ(opts.priorityWorkers, 1);
}

TEST(ThreadEnvironment, MXNetNamesAlone) {
  CleanEnvironment env;
  env.set("MXNET_ENGINE_TYPE", "NaiveEngine");
  env.set("MXNET_CPU_WORKER_NTHREADS", "3");
  env.set("MXNET_CPU_PRIORITY_NTHREADS", "0");
  env.set("OMP_NUM_THREADS", "5");
  ThreadSettings s = ThreadSettings::fromEnvironment();
  EXPECT_EQ(s.engine, "naive");
  EXPECT_EQ(s.cpuWorkers, 3);
  EXPECT_EQ(s.priorityWorkers, 0);
  EXPECT_EQ(s.kernelThreads, 5);
  EngineOptions opts = EngineOptions::fromEnvironment();
  EXPECT_EQ(opts.kind, "naive");
  EXPECT_EQ(opts.cpuWorkers, 3);
  EXPECT_EQ(opts.priorityWorkers, 0);
}

TEST(ThreadEnvironment, MXNetEngineNames) {
  CleanEnvironment env;
  const std::pair<const char *, const char *> names[] = {
      {"NaiveEngine", "naive"},
      {"ThreadedEngine", "threaded"},
      {"ThreadedEnginePerDevice", "threaded"},
      {"naive", "naive"},
      {"threaded", "threaded"},
      {"ThreadedEngineX", ""}, // unknown: ignored with a warning
      {"", ""},
  };
  for (auto [mxnet, mxc] : names) {
    env.set("MXNET_ENGINE_TYPE", mxnet);
    EXPECT_EQ(ThreadSettings::fromEnvironment().engine, mxc) << mxnet;
    EXPECT_EQ(EngineOptions::fromEnvironment().kind, *mxc ? mxc : "threaded") << mxnet;
  }
}

TEST(ThreadEnvironment, MXCNamesWin) {
  CleanEnvironment env;
  env.set("MXNET_ENGINE_TYPE", "NaiveEngine");
  env.set("MXC_ENGINE", "threaded");
  env.set("MXNET_CPU_WORKER_NTHREADS", "3");
  env.set("MXC_CPU_WORKER_NTHREADS", "2");
  env.set("MXNET_CPU_PRIORITY_NTHREADS", "4");
  env.set("MXC_CPU_PRIORITY_NTHREADS", "2");
  env.set("OPENBLAS_NUM_THREADS", "7");
  env.set("OMP_NUM_THREADS", "6");
  env.set("MXC_KERNEL_NTHREADS", "5");
  ThreadSettings s = ThreadSettings::fromEnvironment();
  EXPECT_EQ(s.engine, "threaded");
  EXPECT_EQ(s.cpuWorkers, 2);
  EXPECT_EQ(s.priorityWorkers, 2);
  EXPECT_EQ(s.kernelThreads, 5);
  // The kernel threads' order: MXC_KERNEL_NTHREADS, OMP_NUM_THREADS,
  // OPENBLAS_NUM_THREADS.
  env.unset("MXC_KERNEL_NTHREADS");
  EXPECT_EQ(ThreadSettings::fromEnvironment().kernelThreads, 6);
  env.unset("OMP_NUM_THREADS");
  EXPECT_EQ(ThreadSettings::fromEnvironment().kernelThreads, 7);
  // MXC_ENGINE names any kind (createEngine decides); MXNet's does not.
  env.set("MXC_ENGINE", "mine");
  EXPECT_EQ(ThreadSettings::fromEnvironment().engine, "mine");
}

TEST(ThreadEnvironment, MalformedValuesFallThrough) {
  CleanEnvironment env;
  env.set("MXC_CPU_WORKER_NTHREADS", "zero"); // malformed: MXNet's name counts
  env.set("MXNET_CPU_WORKER_NTHREADS", "4");
  env.set("MXC_KERNEL_NTHREADS", "0"); // below the minimum of 1
  env.set("OMP_NUM_THREADS", "3,2,1"); // an OpenMP list: its first entry
  env.set("MXC_CPU_PRIORITY_NTHREADS", "-1");
  ThreadSettings s = ThreadSettings::fromEnvironment();
  EXPECT_EQ(s.cpuWorkers, 4);
  EXPECT_EQ(s.kernelThreads, 3);
  EXPECT_EQ(s.priorityWorkers, -1);
  for (const char *bad : {"", " ", "2x", "x2", ",2", "1e3", "99999999999999999999"}) {
    env.set("MXNET_CPU_WORKER_NTHREADS", bad);
    env.set("OMP_NUM_THREADS", bad);
    EXPECT_EQ(ThreadSettings::fromEnvironment().cpuWorkers, 0) << "'" << bad << "'";
    EXPECT_EQ(ThreadSettings::fromEnvironment().kernelThreads, 0) << "'" << bad << "'";
  }
  // A list is for OMP_NUM_THREADS only.
  env.set("MXNET_CPU_WORKER_NTHREADS", "2,2");
  EXPECT_EQ(ThreadSettings::fromEnvironment().cpuWorkers, 0);
}

TEST(ThreadEnvironment, WorkersSetGiveTheKernelsTheirShare) {
  CleanEnvironment env;
  int cores = usableCores();
  env.set("MXNET_CPU_WORKER_NTHREADS", "2");
  ThreadBudget b = resolveThreadBudget(ThreadSettings::fromEnvironment(), cores);
  EXPECT_EQ(b.cpuWorkers, 2);
  EXPECT_EQ(b.kernelThreads, std::max(1, cores / 2));
  env.set("OMP_NUM_THREADS", "3");
  b = resolveThreadBudget(ThreadSettings::fromEnvironment(), cores);
  EXPECT_EQ(b.cpuWorkers, 2);
  EXPECT_EQ(b.kernelThreads, 3);
}

//===----------------------------------------------------------------------===//
// The process's budget, applied
//===----------------------------------------------------------------------===//

// ones(64, 64) x twos(64, 64) through mxc_kernel_gemm_f32: every element 128.
std::vector<float> gemmOfOnesAndTwos() {
  const int n = 64;
  std::vector<float> a(n * n, 1.f), b(n * n, 2.f), c(n * n, 0.f);
  mxc_kernel_gemm_f32(a.data(), a.data(), 0, n * n, 1, b.data(), b.data(), 0, n * n, 1,
                      c.data(), c.data(), 0, n * n, 1, /*batch=*/1, n, n, n, 0, 0);
  return c;
}

// The first GEMM-class kernel resolves the budget and makes OpenBLAS
// single-threaded (the kernel splits the product on the kernel threads),
// without any call of the caller's (the AOT executables).
TEST(ThreadBudgetFirstUse, GemmKernelAppliesTheBudget) {
  CleanEnvironment env;
  env.set("MXC_KERNEL_NTHREADS", "3");
  env.set("OPENBLAS_NUM_THREADS", "1");
  const int n = 64;
  const std::vector<float> c = gemmOfOnesAndTwos();
  EXPECT_EQ(c[0], 2.f * n);
  EXPECT_EQ(c[n * n - 1], 2.f * n);
  // Asked before anything else of the budget (blasThreads() resolves
  // nothing): the kernel did it.
#if MXC_TEST_HAVE_OPENBLAS
  EXPECT_EQ(blasThreads(), 1);
#else
  EXPECT_EQ(blasThreads(), 0);
#endif
  EXPECT_EQ(initThreadBudget().kernelThreads, 3);
  EXPECT_EQ(kernelThreads(), 3);
}

// The default engine resolves the budget before it runs anything, and
// follows MXNET_ENGINE_TYPE.
TEST(ThreadBudgetFirstUse, DefaultEngineAppliesTheBudget) {
  CleanEnvironment env;
  env.set("MXNET_ENGINE_TYPE", "NaiveEngine");
  env.set("OMP_NUM_THREADS", "2");
  Engine &e = defaultEngine();
#if MXC_TEST_HAVE_OPENBLAS
  EXPECT_EQ(blasThreads(), 1);
#endif
  EXPECT_EQ(kernelThreads(), 2);
  std::thread::id pusher = std::this_thread::get_id(), runner;
  e.pushSync([&runner](RunContext) { runner = std::this_thread::get_id(); }, Device::cpu(),
             {}, {});
  EXPECT_FALSE(e.waitForAll());
  EXPECT_EQ(runner, pusher) << "MXNET_ENGINE_TYPE=NaiveEngine runs ops in the pushing thread";
}

// OpenBLAS 0.3.21 takes its SSE3 "Prescott" kernels on CPUs newer than it
// (SGEMM 6x slower than its AVX-512 ones on the same core); the runtime
// chooses again at load time unless OPENBLAS_CORETYPE says otherwise.
TEST(BlasKernels, OpenBLASRunsKernelsForThisCPUsVectorUnits) {
#if MXC_TEST_HAVE_OPENBLAS && defined(__x86_64__)
  if (std::getenv("OPENBLAS_CORETYPE"))
    GTEST_SKIP() << "OPENBLAS_CORETYPE is set: the user's choice stands";
  std::string core = blasCore();
  ASSERT_FALSE(core.empty());
  std::string family = core.substr(0, core.find(' '));
  std::vector<std::string> older;
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
                      __builtin_cpu_supports("avx512cd");
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (avx2 || avx512)
    older = {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom", "Sandybridge"};
  if (avx512)
    older.push_back("Haswell");
  for (const std::string &name : older)
    EXPECT_NE(family, name) << "OpenBLAS runs " << core << " on a CPU with "
                            << (avx512 ? "AVX-512" : "AVX2");
  // The variable the choice was made with is not left in the environment.
  EXPECT_EQ(std::getenv("OPENBLAS_CORETYPE"), nullptr);
#else
  EXPECT_EQ(blasCore(), "");
#endif
}

// Threads of this process that carry no name of their own (the runtime's
// are named; OpenBLAS's pool threads keep the process's).
int unnamedThreads() {
  auto commOf = [](const std::string &path) {
    std::ifstream f(path);
    std::string name;
    std::getline(f, name);
    return name;
  };
  const std::string mine = commOf("/proc/self/comm");
  int count = 0;
  for (const auto &task : std::filesystem::directory_iterator("/proc/self/task"))
    if (task.path().filename() != std::to_string(::getpid()) &&
        commOf(task.path() / "comm") == mine)
      ++count;
  return count;
}

// Debian's OpenBLAS starts a thread pool at load whose threads spin for
// ~0.1 s (OPENBLAS_THREAD_TIMEOUT) and took a core from the first forward
// passes; the runtime stops it at load and again after making OpenBLAS
// single-threaded (threads.cc, stopIdleBlasThreads).
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define MXC_TEST_SANITIZER_THREADS 1
#endif
#endif
TEST(BlasKernels, OpenBLASPoolStoppedAtLoadAndAfterTheBudget) {
#if defined(MXC_TEST_SANITIZER_THREADS)
  GTEST_SKIP() << "the sanitizer's runtime has unnamed threads of its own";
#elif defined(__linux__)
  EXPECT_EQ(unnamedThreads(), 0) << "OpenBLAS's pool runs after load";
  CleanEnvironment env;
  env.set("MXC_KERNEL_NTHREADS", "2");
  const int n = 64;
  EXPECT_EQ(gemmOfOnesAndTwos()[0], 2.f * n);
  EXPECT_EQ(unnamedThreads(), 0) << "OpenBLAS's pool runs after the first GEMM";
#else
  GTEST_SKIP() << "reads /proc";
#endif
}

TEST(ThreadBudgetApplied, SetKernelThreads) {
  CleanEnvironment env;
  int before = kernelThreads();
  EXPECT_GE(before, 1);
  setKernelThreads(2);
  EXPECT_EQ(kernelThreads(), 2);
  setKernelThreads(0); // counts as 1
  EXPECT_EQ(kernelThreads(), 1);
  setKernelThreads(before);
  EXPECT_EQ(kernelThreads(), before);
#if MXC_TEST_HAVE_OPENBLAS
  EXPECT_EQ(blasThreads(), 1) << "OpenBLAS stays single-threaded";
#endif
}

} // namespace
} // namespace mxc::runtime::test
