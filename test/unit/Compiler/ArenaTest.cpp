//===- ArenaTest.cpp - the arena contract of compiled graphs
//---------------===//
//
// mx-plan-memory puts every intermediate of a graph into one arena that
// CompiledGraph::run takes from a per-graph pool. This test links its own
// malloc/calloc/realloc/posix_memalign/aligned_alloc/memalign/operator new,
// forwarding to glibc's __libc_* functions, and counts the calls made while
// a flag is set:
//   - a warm forward + backward step of LeNet (PipelineOptions.train)
//     allocates no buffer (every intermediate and workspace is in the plan's
//     arena); only the engine's small per-step records;
//   - concurrent calls of one graph get separate arenas (bitwise the same
//     outputs as a single-threaded call).
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/JIT.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <new>
#include <random>
#include <thread>

// --- allocation counting ----------------------------------------------------
extern "C" {
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
void __libc_free(void *);
}

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
/// Allocations called from the BLAS library (its code ranges below).
std::atomic<long> blasAllocations{0};
std::vector<std::pair<uintptr_t, uintptr_t>> blasCode;
/// The callers of the first allocations seen, for the failure message.
constexpr int kCallers = 16;
void *callers[kCallers];
/// The largest allocation seen outside BLAS while counting.
std::atomic<size_t> largest{0};
__attribute__((always_inline)) inline void note(size_t bytes = 0) {
  if (counting.load(std::memory_order_relaxed)) {
    void *caller = __builtin_return_address(0);
    bool blas = false;
    long n = allocations.fetch_add(1, std::memory_order_relaxed);
    if (n < kCallers)
      callers[n] = caller;
    for (auto [lo, hi] : blasCode)
      if (uintptr_t(caller) >= lo && uintptr_t(caller) < hi) {
        blasAllocations.fetch_add(1, std::memory_order_relaxed);
        blas = true;
      }
    size_t seen = largest.load(std::memory_order_relaxed);
    while (!blas && bytes > seen &&
           !largest.compare_exchange_weak(seen, bytes))
      ;
  }
}
/// Records the executable segments of the loaded BLAS library.
void findBlasCode() {
  blasCode.clear();
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *) {
        if (!info->dlpi_name || (!strstr(info->dlpi_name, "blas") && !strstr(info->dlpi_name, "dnnl")))
          return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
            blasCode.emplace_back(info->dlpi_addr + ph.p_vaddr,
                                  info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
        }
        return 0;
      },
      nullptr);
}

/// "symbol (library)" of each recorded caller.
std::string describeCallers() {
  std::string s;
  for (long i = 0; i < std::min<long>(allocations.load(), kCallers); ++i) {
    Dl_info info;
    s += "\n  called from ";
    if (dladdr(callers[i], &info)) {
      s += info.dli_sname ? info.dli_sname : "?";
      s += " in ";
      s += info.dli_fname ? info.dli_fname : "?";
    } else {
      s += "JIT code or unknown";
    }
  }
  return s;
}
} // namespace

extern "C" {
void *malloc(size_t n) {
  note(n);
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t m) {
  note(n * m);
  return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n) {
  note(n);
  return __libc_realloc(p, n);
}
void free(void *p) { __libc_free(p); }
void *memalign(size_t a, size_t n) {
  note(n);
  return __libc_memalign(a, n);
}
void *aligned_alloc(size_t a, size_t n) {
  note(n);
  return __libc_memalign(a, n);
}
int posix_memalign(void **out, size_t a, size_t n) {
  note(n);
  void *p = __libc_memalign(a, n);
  if (!p)
    return ENOMEM;
  *out = p;
  return 0;
}
}

void *operator new(size_t n) {
  note(n);
  if (void *p = __libc_malloc(n ? n : 1))
    return p;
  std::abort();
}
void *operator new[](size_t n) { return operator new(n); }
void *operator new(size_t n, const std::nothrow_t &) noexcept {
  note(n);
  return __libc_malloc(n ? n : 1);
}
void *operator new[](size_t n, const std::nothrow_t &t) noexcept {
  return operator new(n, t);
}
void *operator new(size_t n, std::align_val_t a) {
  note();
  if (void *p = __libc_memalign(size_t(a), n ? n : 1))
    return p;
  std::abort();
}
void *operator new[](size_t n, std::align_val_t a) {
  return operator new(n, a);
}
void operator delete(void *p) noexcept { __libc_free(p); }
void operator delete[](void *p) noexcept { __libc_free(p); }
void operator delete(void *p, size_t) noexcept { __libc_free(p); }
void operator delete[](void *p, size_t) noexcept { __libc_free(p); }
void operator delete(void *p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void *p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete(void *p, size_t, std::align_val_t) noexcept {
  __libc_free(p);
}
void operator delete[](void *p, size_t, std::align_val_t) noexcept {
  __libc_free(p);
}

// --- tests ------------------------------------------------------------------
extern "C" void openblas_set_num_threads(int) __attribute__((weak));

using namespace mxc;

namespace {

// tools/zoo/mxnet_zoo.py lenet, as MXNet 1.9.1 writes it.
const char *kLeNet =
    R"json({"nodes":[{"op":"null","name":"data","inputs":[]},{"op":"null","name":"convolution0_weight)json"
    R"json(","attrs":{"kernel":"(5, 5)","num_filter":"20"},"inputs":[]},{"op":"null","name":"convolut)json"
    R"json(ion0_bias","attrs":{"kernel":"(5, 5)","num_filter":"20"},"inputs":[]},{"op":"Convolution",)json"
    R"json("name":"convolution0","attrs":{"kernel":"(5, 5)","num_filter":"20"},"inputs":[[0,0,0],[1,0)json"
    R"json(,0],[2,0,0]]},{"op":"Activation","name":"activation0","attrs":{"act_type":"tanh"},"inputs")json"
    R"json(:[[3,0,0]]},{"op":"Pooling","name":"pooling0","attrs":{"kernel":"(2, 2)","pool_type":"max")json"
    R"json(,"stride":"(2, 2)"},"inputs":[[4,0,0]]},{"op":"null","name":"convolution1_weight","attrs":)json"
    R"json({"kernel":"(5, 5)","num_filter":"50"},"inputs":[]},{"op":"null","name":"convolution1_bias")json"
    R"json(,"attrs":{"kernel":"(5, 5)","num_filter":"50"},"inputs":[]},{"op":"Convolution","name":"co)json"
    R"json(nvolution1","attrs":{"kernel":"(5, 5)","num_filter":"50"},"inputs":[[5,0,0],[6,0,0],[7,0,0)json"
    R"json(]]},{"op":"Activation","name":"activation1","attrs":{"act_type":"tanh"},"inputs":[[8,0,0]])json"
    R"json(},{"op":"Pooling","name":"pooling1","attrs":{"kernel":"(2, 2)","pool_type":"max","stride":)json"
    R"json("(2, 2)"},"inputs":[[9,0,0]]},{"op":"Flatten","name":"flatten0","inputs":[[10,0,0]]},{"op")json"
    R"json(:"null","name":"fullyconnected0_weight","attrs":{"num_hidden":"500"},"inputs":[]},{"op":"n)json"
    R"json(ull","name":"fullyconnected0_bias","attrs":{"num_hidden":"500"},"inputs":[]},{"op":"FullyC)json"
    R"json(onnected","name":"fullyconnected0","attrs":{"num_hidden":"500"},"inputs":[[11,0,0],[12,0,0)json"
    R"json(],[13,0,0]]},{"op":"Activation","name":"activation2","attrs":{"act_type":"tanh"},"inputs":)json"
    R"json([[14,0,0]]},{"op":"null","name":"fullyconnected1_weight","attrs":{"num_hidden":"10"},"inpu)json"
    R"json(ts":[]},{"op":"null","name":"fullyconnected1_bias","attrs":{"num_hidden":"10"},"inputs":[])json"
    R"json(},{"op":"FullyConnected","name":"fullyconnected1","attrs":{"num_hidden":"10"},"inputs":[[1)json"
    R"json(5,0,0],[16,0,0],[17,0,0]]},{"op":"null","name":"softmax_label","inputs":[]},{"op":"Softmax)json"
    R"json(Output","name":"softmax","inputs":[[18,0,0],[19,0,0]]}],"arg_nodes":[0,1,2,6,7,12,13,16,17)json"
    R"json(,19],"node_row_ptr":[0,1,2,3,4,5,7,8,9,10,11,13,14,15,16,17,18,19,20,21,22,23],"heads":[[2)json"
    R"(0,0,0]],"attrs":{"mxnet_version":["int",10901]}})";

// data -> (FullyConnected -> BatchNorm -> relu) x 2 -> FullyConnected ->
// SoftmaxOutput: its training graph has elementwise steps whose input dies
// there, so every strategy places buffers differently (inplace fires).
const char *kBatchNormMLP =
    R"json({"nodes":[{"op":"null","name":"data","inputs":[]},{"op":"null","name":"fc1_weight","attrs")json"
    R"json(:{"num_hidden":"32"},"inputs":[]},{"op":"null","name":"fc1_bias","attrs":{"num_hidden":"32)json"
    R"json("},"inputs":[]},{"op":"FullyConnected","name":"fc1","attrs":{"num_hidden":"32"},"inputs":[)json"
    R"json([0,0,0],[1,0,0],[2,0,0]]},{"op":"null","name":"bn1_gamma","attrs":{"fix_gamma":"False"},"i)json"
    R"json(nputs":[]},{"op":"null","name":"bn1_beta","attrs":{"fix_gamma":"False"},"inputs":[]},{"op")json"
    R"json(:"null","name":"bn1_moving_mean","attrs":{"__init__":"[\"zero\", {}]","fix_gamma":"False"})json"
    R"json(,"inputs":[]},{"op":"null","name":"bn1_moving_var","attrs":{"__init__":"[\"one\", {}]","fi)json"
    R"json(x_gamma":"False"},"inputs":[]},{"op":"BatchNorm","name":"bn1","attrs":{"fix_gamma":"False")json"
    R"json(},"inputs":[[3,0,0],[4,0,0],[5,0,0],[6,0,1],[7,0,1]]},{"op":"Activation","name":"relu1","a)json"
    R"json(ttrs":{"act_type":"relu"},"inputs":[[8,0,0]]},{"op":"null","name":"fc2_weight","attrs":{"n)json"
    R"json(um_hidden":"32"},"inputs":[]},{"op":"null","name":"fc2_bias","attrs":{"num_hidden":"32"},")json"
    R"json(inputs":[]},{"op":"FullyConnected","name":"fc2","attrs":{"num_hidden":"32"},"inputs":[[9,0)json"
    R"json(,0],[10,0,0],[11,0,0]]},{"op":"null","name":"bn2_gamma","attrs":{"fix_gamma":"False"},"inp)json"
    R"json(uts":[]},{"op":"null","name":"bn2_beta","attrs":{"fix_gamma":"False"},"inputs":[]},{"op":")json"
    R"json(null","name":"bn2_moving_mean","attrs":{"__init__":"[\"zero\", {}]","fix_gamma":"False"},")json"
    R"json(inputs":[]},{"op":"null","name":"bn2_moving_var","attrs":{"__init__":"[\"one\", {}]","fix_)json"
    R"json(gamma":"False"},"inputs":[]},{"op":"BatchNorm","name":"bn2","attrs":{"fix_gamma":"False"},)json"
    R"json("inputs":[[12,0,0],[13,0,0],[14,0,0],[15,0,1],[16,0,1]]},{"op":"Activation","name":"relu2")json"
    R"json(,"attrs":{"act_type":"relu"},"inputs":[[17,0,0]]},{"op":"null","name":"fc3_weight","attrs")json"
    R"json(:{"num_hidden":"10"},"inputs":[]},{"op":"null","name":"fc3_bias","attrs":{"num_hidden":"10)json"
    R"json("},"inputs":[]},{"op":"FullyConnected","name":"fc3","attrs":{"num_hidden":"10"},"inputs":[)json"
    R"json([18,0,0],[19,0,0],[20,0,0]]},{"op":"null","name":"softmax_label","inputs":[]},{"op":"Softm)json"
    R"json(axOutput","name":"softmax","inputs":[[21,0,0],[22,0,0]]}],"arg_nodes":[0,1,2,4,5,6,7,10,11)json"
    R"json(,13,14,15,16,19,20,22],"node_row_ptr":[0,1,2,3,4,5,6,7,8,11,12,13,14,15,16,17,18,19,22,23,)json"
    R"json(24,25,26,27,28],"heads":[[23,0,0]],"attrs":{"mxnet_version":["int",10901]}})json";

std::unique_ptr<mlir::MLIRContext> makeContext() {
  mlir::DialectRegistry registry;
  registerCodegenDialects(registry);
  auto ctx = std::make_unique<mlir::MLIRContext>(registry);
  ctx->loadAllAvailableDialects();
  ctx->getDiagEngine().registerHandler([](mlir::Diagnostic &d) {
    ADD_FAILURE() << "diagnostic: " << d.str();
    return mlir::success();
  });
  return ctx;
}

/// Buffers for every input (seeded values; labels are class indices) and
/// output of `sig`.
struct Buffers {
  std::vector<std::vector<char>> inputs, outputs;
  std::vector<const void *> in;
  std::vector<void *> out;
  explicit Buffers(const EntrySignature &sig) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> uniform(-0.5f, 0.5f);
    for (const TensorSpec &t : sig.inputs) {
      EXPECT_EQ(t.dtype, graph::DType::Float32) << t.name;
      std::vector<char> bytes(t.byteSize());
      float *f = reinterpret_cast<float *>(bytes.data());
      for (int64_t i = 0; i < t.numElements(); ++i)
        f[i] = t.name.find("label") != std::string::npos ? float(i % 10)
                                                         : uniform(rng);
      inputs.push_back(std::move(bytes));
    }
    for (const TensorSpec &t : sig.outputs)
      outputs.emplace_back(t.byteSize(), 0);
    for (auto &b : inputs)
      in.push_back(b.data());
    for (auto &b : outputs)
      out.push_back(b.data());
  }
};

std::shared_ptr<CompiledGraph> compileLeNet(mlir::MLIRContext &ctx, bool train,
                                            int64_t batch) {
  auto graph = graph::readSymbolJSON(kLeNet);
  EXPECT_TRUE(bool(graph)) << llvm::toString(graph.takeError());
  if (!graph)
    return nullptr;
  ImportOptions importOpts;
  importOpts.shapes["data"] = {batch, 1, 28, 28};
  JITOptions opts;
  opts.useDiskCache = false;
  opts.useMemoryCache = false;
  opts.pipeline.train = train;
  auto compiled = compileGraph(ctx, *graph, importOpts, opts);
  EXPECT_TRUE(succeeded(compiled));
  return succeeded(compiled) ? *compiled : nullptr;
}

// Every buffer of a warm step comes from the plan's arena (owned by the
// pooled executor) or the caller: no allocation is as large as the smallest
// buffer of LeNet's step. What does allocate is the engine's bookkeeping, a
// few small records per pushed step (the operation, its dependency lists,
// the bound arrays' variables); the count is bounded by the step count.
TEST(Arena, WarmTrainingStepAllocatesNoBuffer) {
  auto ctx = makeContext();
  auto g = compileLeNet(*ctx, /*train=*/true, /*batch=*/8);
  ASSERT_TRUE(g);
  const EntrySignature &sig = g->signature();
  // forward + backward: the softmax output and parameter gradients.
  ASSERT_GT(sig.outputs.size(), 1u);
  EXPECT_GT(g->arenaBytes(), 0);
  const size_t steps = (*g).plan().steps.size();
  ASSERT_GT(steps, 10u);
  Buffers b(sig);
  ASSERT_FALSE(bool(g->run(b.in, b.out))); // warm-up: the executor pool, BLAS
  std::vector<std::vector<char>> first = b.outputs;

  // With the BLAS library's own threads, its threaded GEMM driver mallocs a
  // job table per call (OpenBLAS level3_thread.c): not counted; nor are
  // oneDNN's own per-execution records (allocated inside libdnnl, where the
  // runtime has it). The runtime's oneDNN glue itself allocates nothing on a
  // warm step (conv_dnnl.cc's slots), and that counts.
  findBlasCode();
  EXPECT_FALSE(blasCode.empty()) << "no BLAS library loaded";
  for (int round = 0; round < 2; ++round) {
    if (round == 1) {
      // Single-threaded BLAS: the same bound.
      if (!openblas_set_num_threads)
        break;
      openblas_set_num_threads(1);
      ASSERT_FALSE(bool(g->run(b.in, b.out))); // warm again
      first = b.outputs; // BLAS sums in another order on one thread
    }
    allocations = 0;
    blasAllocations = 0;
    largest = 0;
    counting = true;
    llvm::Error err = g->run(b.in, b.out);
    counting = false;
    ASSERT_FALSE(bool(err));
    long outside = allocations.load() - blasAllocations.load();
    EXPECT_LE(size_t(outside), 16 * steps + 64)
        << "allocations outside BLAS during a warm forward + backward step "
           "of " << steps << " steps:" << describeCallers();
    EXPECT_LT(largest.load(), size_t(1024))
        << "an allocation of " << largest.load()
        << " bytes during a warm step (a buffer outside the arena?):"
        << describeCallers();
    // The same results from a reused arena: nothing reads stale arena bytes.
    EXPECT_EQ(first, b.outputs);
  }

  // It computed gradients.
  bool nonzeroGradient = false;
  for (size_t i = 1; i < b.outputs.size(); ++i)
    for (char c : b.outputs[i])
      nonzeroGradient |= c != 0;
  EXPECT_TRUE(nonzeroGradient);
}

TEST(Arena, EveryStrategyComputesTheSameStep) {
  auto graph = graph::readSymbolJSON(kBatchNormMLP);
  ASSERT_TRUE(bool(graph)) << llvm::toString(graph.takeError());
  std::vector<std::vector<std::vector<char>>> results;
  std::vector<int64_t> arenas;
  for (const char *strategy : {"none", "inplace", "coshare", "both"}) {
    auto ctx = makeContext();
    ImportOptions importOpts;
    importOpts.shapes["data"] = {16, 20};
    JITOptions opts;
    opts.useDiskCache = false;
    opts.useMemoryCache = false;
    opts.pipeline.train = true;
    opts.pipeline.memoryPlan = strategy;
    auto g = compileGraph(*ctx, *graph, importOpts, opts);
    ASSERT_TRUE(succeeded(g)) << strategy;
    Buffers b((*g)->signature());
    ASSERT_FALSE(bool((*g)->run(b.in, b.out)));
    ASSERT_FALSE(bool((*g)->run(b.in, b.out))); // a reused arena
    results.push_back(b.outputs);
    arenas.push_back((*g)->arenaBytes());
  }
  // The plans differ (inplace and co-share shrink the arena) ...
  EXPECT_LT(arenas[1], arenas[0]);
  EXPECT_LT(arenas[2], arenas[0]);
  EXPECT_LE(arenas[3], arenas[1]);
  // ... the results do not (up to BLAS rounding).
  for (size_t s = 1; s < results.size(); ++s)
    for (size_t o = 0; o < results[0].size(); ++o) {
      const float *want = reinterpret_cast<const float *>(results[0][o].data());
      const float *got = reinterpret_cast<const float *>(results[s][o].data());
      size_t n = results[0][o].size() / sizeof(float);
      for (size_t i = 0; i < n; ++i)
        ASSERT_NEAR(got[i], want[i], 1e-5f * (1 + std::fabs(want[i])))
            << "strategy " << s << " output " << o << " element " << i;
    }
}

TEST(Arena, CountingSeesAllocations) {
  // The counter is live: an allocation while counting is seen.
  allocations = 0;
  counting = true;
  void *volatile p = std::malloc(100);
  int *volatile q = new int(3);
  counting = false;
  std::free(p);
  delete q;
  EXPECT_EQ(allocations.load(), 2);
}

TEST(Arena, ConcurrentCallsUseSeparateArenas) {
  auto ctx = makeContext();
  auto g = compileLeNet(*ctx, /*train=*/false, /*batch=*/4);
  ASSERT_TRUE(g);
  EXPECT_GT(g->arenaBytes(), 0);
  Buffers reference(g->signature());
  ASSERT_FALSE(bool(g->run(reference.in, reference.out)));
  constexpr int kThreads = 4, kRuns = 20;
  std::vector<Buffers> perThread;
  for (int t = 0; t < kThreads; ++t)
    perThread.emplace_back(g->signature());
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        llvm::consumeError(g->run(perThread[t].in, perThread[t].out));
        if (perThread[t].outputs != reference.outputs)
          ++mismatches;
      }
    });
  for (auto &th : threads)
    th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

} // namespace
