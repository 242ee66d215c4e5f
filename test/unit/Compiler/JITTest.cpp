//===- JITTest.cpp - the JIT, its caches, targets and .npy I/O ------------===//
#include "mxc/Compiler/JIT.h"
#include "mxc/Compiler/Npy.h"
#include "mxc/runtime/cuda.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace mxc;

namespace {

// relu(a + b) on 2x3 f32 inputs.
const char *kAddRelu = R"({"nodes": [
  {"op": "null", "name": "a", "inputs": []},
  {"op": "null", "name": "b", "inputs": []},
  {"op": "elemwise_add", "name": "plus", "inputs": [[0, 0, 0], [1, 0, 0]]},
  {"op": "Activation", "name": "act", "attrs": {"act_type": "relu"}, "inputs": [[2, 0, 0]]}],
 "arg_nodes": [0, 1], "heads": [[3, 0, 0], [2, 0, 0]],
 "attrs": {"mxnet_version": ["int", 10901]}})";

/// A context with every dialect the pipeline needs.
std::unique_ptr<mlir::MLIRContext> makeContext() {
  mlir::DialectRegistry registry;
  registerCodegenDialects(registry);
  auto ctx = std::make_unique<mlir::MLIRContext>(registry);
  ctx->loadAllAvailableDialects();
  // Any diagnostic fails the test, with its text.
  ctx->getDiagEngine().registerHandler([](mlir::Diagnostic &d) {
    ADD_FAILURE() << "diagnostic: " << d.str();
    return mlir::success();
  });
  return ctx;
}

ImportOptions addReluShapes() {
  ImportOptions opts;
  opts.shapes["a"] = {2, 3};
  opts.shapes["b"] = {2, 3};
  return opts;
}

/// A fresh directory under the system temp dir.
std::string tempDir() {
  llvm::SmallString<128> dir;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("mxc-jit-test", dir));
  return std::string(dir);
}

void checkAddRelu(const CompiledGraph &g) {
  const EntrySignature &sig = g.signature();
  ASSERT_EQ(sig.inputs.size(), 2u);
  ASSERT_EQ(sig.outputs.size(), 2u);
  EXPECT_EQ(sig.inputs[0].name, "a");
  EXPECT_EQ(sig.inputs[0].kind, "data");
  EXPECT_EQ(sig.outputs[0].name, "act_output");
  EXPECT_EQ(sig.outputs[1].name, "plus_output");
  EXPECT_EQ(sig.outputs[0].shape, (std::vector<int64_t>{2, 3}));
  float a[6] = {1, -2, 3, -4, 5, -6}, b[6] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
  float relu[6], sum[6];
  ASSERT_FALSE(bool(g.run({a, b}, {relu, sum})));
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(sum[i], a[i] + b[i]);
    EXPECT_EQ(relu[i], std::max(0.0f, a[i] + b[i]));
  }
}

TEST(JIT, CompilesRunsAndHitsTheMemoryCache) {
  auto ctx = makeContext();
  auto graph = graph::readSymbolJSON(kAddRelu);
  ASSERT_TRUE(bool(graph)) << llvm::toString(graph.takeError());
  JITOptions opts;
  opts.useDiskCache = false;
  CompileInfo info;
  auto first = compileGraph(*ctx, *graph, addReluShapes(), opts, &info);
  ASSERT_TRUE(mlir::succeeded(first));
  EXPECT_EQ(info.outcome, CacheOutcome::Compiled);
  EXPECT_EQ(info.key.size(), 64u);
  EXPECT_TRUE(info.target.isHost);
  checkAddRelu(**first);

  CompileInfo again;
  auto second = compileGraph(*ctx, *graph, addReluShapes(), opts, &again);
  ASSERT_TRUE(mlir::succeeded(second));
  EXPECT_EQ(again.outcome, CacheOutcome::MemoryHit);
  EXPECT_EQ(again.key, info.key);
  EXPECT_EQ(first->get(), second->get());

  // Other shapes, another key.
  ImportOptions other;
  other.shapes["a"] = {3, 2};
  other.shapes["b"] = {3, 2};
  CompileInfo third;
  ASSERT_TRUE(mlir::succeeded(compileGraph(*ctx, *graph, other, opts, &third)));
  EXPECT_NE(third.key, info.key);
}

TEST(JIT, DiskCacheStoresThenLoadsTheObject) {
  std::string dir = tempDir();
  JITOptions opts;
  opts.useMemoryCache = false;
  opts.cacheDir = dir;
  auto graph = graph::readSymbolJSON(kAddRelu);
  ASSERT_TRUE(bool(graph));
  CompileInfo info;
  {
    auto ctx = makeContext();
    auto g = compileGraph(*ctx, *graph, addReluShapes(), opts, &info);
    ASSERT_TRUE(mlir::succeeded(g));
    EXPECT_EQ(info.outcome, CacheOutcome::Compiled);
    EXPECT_TRUE(llvm::sys::fs::exists(info.cachePath)) << info.cacheNote;
  }
  auto ctx = makeContext(); // a new context, as a new process would have
  CompileInfo hit;
  auto g = compileGraph(*ctx, *graph, addReluShapes(), opts, &hit);
  ASSERT_TRUE(mlir::succeeded(g));
  EXPECT_EQ(hit.outcome, CacheOutcome::DiskHit);
  EXPECT_EQ(hit.cachePath, info.cachePath);
  checkAddRelu(**g);
  llvm::sys::fs::remove_directories(dir);
}

// The JIT's GPU path (mxc run --device gpu): the plan's steps as CUDA kernels
// and host launches, one object whose module constructors (the kernel
// binaries' loads) the JIT runs itself; through the disk cache too. Without a
// GPU the run fails with the runtime's one-line reason; with one, the outputs
// are the CPU's.
TEST(JIT, CompilesForTheGpuAndRunsThereOrSaysWhyNot) {
  if (!runtime::cuda::builtWithCuda())
    GTEST_SKIP() << "the runtime is built without CUDA (MXC_ENABLE_CUDA=OFF)";
  const char *home = std::getenv("CUDA_HOME");
  std::string toolkit = home && *home ? home : "/usr/local/cuda";
  if (!llvm::sys::fs::exists(toolkit + "/bin/ptxas"))
    GTEST_SKIP() << "no CUDA toolkit at " << toolkit << " (ptxas, libdevice)";
  std::string dir = tempDir();
  JITOptions opts;
  opts.useMemoryCache = false;
  opts.cacheDir = dir;
  opts.pipeline.cudaArch = "sm_90";
  auto graph = graph::readSymbolJSON(kAddRelu);
  ASSERT_TRUE(bool(graph));
  CompileInfo info, hit;
  std::shared_ptr<CompiledGraph> compiled, cached;
  {
    auto ctx = makeContext();
    auto g = compileGraph(*ctx, *graph, addReluShapes(), opts, &info);
    ASSERT_TRUE(mlir::succeeded(g));
    compiled = *g;
  }
  EXPECT_EQ(info.outcome, CacheOutcome::Compiled);
  EXPECT_TRUE(llvm::sys::fs::exists(info.cachePath)) << info.cacheNote;
  const runtime::Plan &plan = compiled->plan();
  EXPECT_EQ(plan.device().kind, runtime::Device::Kind::GPU);
  EXPECT_EQ(plan.device().id, 0);
  EXPECT_GE(plan.steps.size(), 1u);
  {
    auto ctx = makeContext();
    auto g = compileGraph(*ctx, *graph, addReluShapes(), opts, &hit);
    ASSERT_TRUE(mlir::succeeded(g));
    cached = *g;
  }
  EXPECT_EQ(hit.outcome, CacheOutcome::DiskHit);
  EXPECT_EQ(cached->plan().print(), plan.print());
  // Another architecture is another cache entry.
  JITOptions sm80 = opts;
  sm80.pipeline.cudaArch = "sm_80";
  {
    auto ctx = makeContext();
    CompileInfo other;
    ASSERT_TRUE(mlir::succeeded(
        compileGraph(*ctx, *graph, addReluShapes(), sm80, &other)));
    EXPECT_EQ(other.outcome, CacheOutcome::Compiled);
    EXPECT_NE(other.key, info.key);
  }
  if (runtime::cuda::deviceCount() == 0) {
    float a[6] = {}, b[6] = {}, relu[6], sum[6];
    for (const auto &g : {compiled, cached}) {
      llvm::Error err = g->run({a, b}, {relu, sum});
      ASSERT_TRUE(bool(err));
      std::string text = llvm::toString(std::move(err));
      EXPECT_NE(text.find("gpu(0) is not available"), std::string::npos) << text;
      EXPECT_EQ(text.find('\n'), std::string::npos) << text;
    }
  } else {
    checkAddRelu(*compiled);
    checkAddRelu(*cached);
  }
  compiled.reset(); // the kernel binaries unloaded, with no GPU too
  cached.reset();
  llvm::sys::fs::remove_directories(dir);
}

TEST(JIT, TargetsResolve) {
  auto host = resolveTarget({});
  ASSERT_TRUE(bool(host)) << llvm::toString(host.takeError());
  EXPECT_TRUE(host->isHost);
  EXPECT_FALSE(host->cpu.empty());

  auto arm = resolveTarget({"aarch64-linux-gnu", "", ""});
  ASSERT_TRUE(bool(arm)) << llvm::toString(arm.takeError());
  EXPECT_FALSE(arm->isHost);
  EXPECT_EQ(arm->cpu, "generic");

  auto badCpu = resolveTarget({"", "no-such-cpu", ""});
  ASSERT_FALSE(bool(badCpu));
  EXPECT_NE(
      llvm::toString(badCpu.takeError()).find("unknown CPU 'no-such-cpu'"),
      std::string::npos);
  auto badFeature = resolveTarget({"", "", "+no-such-feature"});
  ASSERT_FALSE(bool(badFeature));
  llvm::consumeError(badFeature.takeError());
}

TEST(Npy, RoundTripsEveryDtype) {
  for (graph::DType t :
       {graph::DType::Float32, graph::DType::Float64, graph::DType::Float16,
        graph::DType::Int32, graph::DType::Int64, graph::DType::UInt8,
        graph::DType::Int8, graph::DType::Bool}) {
    NpyArray a;
    a.dtype = t;
    a.shape = {2, 1, 3};
    a.bytes.resize(6 * graph::dtypeSize(t));
    for (size_t i = 0; i < a.bytes.size(); ++i)
      a.bytes[i] = t == graph::DType::Bool ? i % 2 : uint8_t(i * 7);
    auto bytes = writeNpy(a);
    ASSERT_TRUE(bool(bytes));
    EXPECT_EQ((bytes->size() - a.bytes.size()) % 64, 0u); // numpy's alignment
    auto back = readNpy(*bytes);
    ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
    EXPECT_EQ(back->dtype, t);
    EXPECT_EQ(back->shape, a.shape);
    EXPECT_EQ(back->bytes, a.bytes);
  }
}

/// A .npy image with a given header dict and `data`.
std::string npyImage(const std::string &dict, const std::string &data,
                     int major = 1) {
  std::string header = dict + "\n";
  std::string out = "\x93NUMPY";
  out += char(major);
  out += char(0);
  if (major == 1) {
    out += char(header.size() & 0xff);
    out += char(header.size() >> 8);
  } else {
    for (int i = 0; i < 4; ++i)
      out += char((header.size() >> (8 * i)) & 0xff);
  }
  return out + header + data;
}

std::string readError(const std::string &image) {
  auto r = readNpy(image);
  if (r)
    return "";
  return llvm::toString(r.takeError());
}

TEST(Npy, ReadsVersion2AndScalars) {
  auto a = readNpy(npyImage("{'descr': '<f8', 'fortran_order': False, "
                            "'shape': (), }",
                            std::string(8, '\0'), 2));
  ASSERT_TRUE(bool(a)) << llvm::toString(a.takeError());
  EXPECT_EQ(a->dtype, graph::DType::Float64);
  EXPECT_TRUE(a->shape.empty());
  EXPECT_EQ(a->numElements(), 1);
}

TEST(Npy, RejectsBadFilesWithOneLine) {
  EXPECT_EQ(readError("not numpy"), "not a .npy file (no \\x93NUMPY magic)");
  EXPECT_EQ(readError(npyImage("{'descr': '<f4', 'fortran_order': True, "
                               "'shape': (1,), }",
                               std::string(4, '\0'))),
            "Fortran-order arrays are not supported (save a C-order array: "
            "np.ascontiguousarray)");
  EXPECT_NE(readError(npyImage("{'descr': '>f4', 'fortran_order': False, "
                               "'shape': (1,), }",
                               std::string(4, '\0')))
                .find("big-endian"),
            std::string::npos);
  EXPECT_NE(readError(npyImage("{'descr': '<c8', 'fortran_order': False, "
                               "'shape': (1,), }",
                               std::string(8, '\0')))
                .find("unsupported dtype '<c8'"),
            std::string::npos);
  EXPECT_EQ(readError(npyImage("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (2, 2), }",
                               std::string(12, '\0'))),
            "data size mismatch: shape (2, 2) of <f4 needs 16 bytes, the file "
            "has 12");
  EXPECT_NE(readError(npyImage("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (4611686018427387904, 4), }",
                               "")),
            "");
  EXPECT_NE(readError(std::string("\x93NUMPY\x01\x00\xff\xff", 10)), "");
}

} // namespace
