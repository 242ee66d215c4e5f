// cuda_test.cc - gpu(i) in the runtime: the clean error without a driver,
// and, on a machine with a GPU, the device memory pool, copies between cpu and
// gpu arrays on both engines, and loading / launching PTX. Tests that need a
// GPU skip with the reason on machines without one (scripts/gpu-check.sh
// runs them on a lent H200).
#include "../src/kernels/kernels.h"
#include "mxc/runtime/c_api.h"
#include "mxc/runtime/compiled_module.h"
#include "mxc/runtime/cuda.h"
#include "mxc/runtime/engine.h"
#include "mxc/runtime/error.h"
#include "mxc/runtime/ndarray.h"
#include "mxc/runtime/plan.h"
#include "mxc/runtime/storage.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <cmath>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

using namespace mxc::runtime;

namespace {

// y[i] = a * x[i] + y[i] for i < n, one thread an element (written by hand,
// so that the loader is tested apart from the compiler's code generation).
const char *const kSaxpyPtx = R"(
.version 8.0
.target sm_80
.address_size 64

.visible .entry saxpy(.param .u64 x, .param .u64 y, .param .f32 a, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  ld.param.f32 %f1, [a];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd6, %rd3, %rd5;
  add.s64 %rd7, %rd4, %rd5;
  ld.global.f32 %f2, [%rd6];
  ld.global.f32 %f3, [%rd7];
  fma.rn.f32 %f4, %f1, %f2, %f3;
  st.global.f32 [%rd7], %f4;
DONE:
  ret;
}
)";

// Kernels of the bulk-run test's GPU plan (the kernel ABI: reads, then
// writes): y = 2x + y on 1000 floats (saxpy: each step reads what the one
// before wrote), ending as every GPU step does, with cuda::synchronize
// (which a bulk run's stream batch defers); and a step that reports a
// failure.
constexpr unsigned kBulkN = 1000;
const cuda::Module *gSaxpy = nullptr;
void saxpyStep(void **buffers) {
  float a = 2.0f;
  unsigned count = kBulkN;
  void *x = buffers[0], *y = buffers[1];
  unsigned grid[3] = {(kBulkN + 127) / 128, 1, 1}, block[3] = {128, 1, 1};
  gSaxpy->launch("saxpy", grid, block, {&x, &y, &a, &count});
  cuda::synchronize(0);
}
void failingStep(void **buffers) {
  saxpyStep(buffers);
  mxcKernelReportError("no luck on the GPU");
}

// The generated code's side of a GPU step (what MLIR's gpu-to-llvm emits,
// over mgpu_wrappers.cc): the kernel image handed over once (a global
// constructor there), then per launch the kernel looked up, the thread's
// stream, the launch and the stream's synchronisation. Declared with void
// pointers for the driver's handle types (C linkage, the same ABI).
extern "C" void *mgpuModuleLoadJIT(void *data, int optLevel);
extern "C" void mgpuModuleUnload(void *module);
extern "C" void *mgpuModuleGetFunction(void *module, const char *name);
extern "C" void *mgpuStreamCreate();
extern "C" void mgpuStreamSynchronize(void *stream);
extern "C" void mgpuStreamDestroy(void *stream);
extern "C" void mgpuSetDefaultDevice(int32_t device);
extern "C" void *mgpuMemAlloc(uint64_t bytes, void *stream, bool isHostShared);
extern "C" void mgpuMemFree(void *ptr, void *stream);
extern "C" void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream);
extern "C" void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                                 intptr_t blockX, intptr_t blockY, intptr_t blockZ, int32_t smem,
                                 void *stream, void **params, void **extra, size_t paramsCount);
void *gSaxpyImage = nullptr;
void generatedSaxpyStep(void **buffers) {
  float a = 2.0f;
  unsigned count = kBulkN;
  void *x = buffers[0], *y = buffers[1];
  void *params[] = {&x, &y, &a, &count};
  void *f = mgpuModuleGetFunction(gSaxpyImage, "saxpy");
  void *stream = mgpuStreamCreate();
  mgpuLaunchKernel(f, (kBulkN + 127) / 128, 1, 1, 128, 1, 1, 0, stream, params, nullptr, 4);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
}

std::string errorOf(const std::function<void()> &fn) {
  try {
    fn();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

#define MXC_REQUIRE_GPU()                                                              \
  if (cuda::deviceCount() == 0)                                                        \
  GTEST_SKIP() << "no GPU here: " << cuda::unavailableReason()

// The host driver double (cuda_host_driver.cc, ctest's host_driver.* run)
// has device memory and copies but runs no kernels.
bool onHostDriverDouble() {
  return cuda::deviceCount() > 0 &&
         cuda::deviceName(0).find("host driver double") != std::string::npos;
}
#define MXC_REQUIRE_KERNELS()                                                          \
  MXC_REQUIRE_GPU();                                                                   \
  if (onHostDriverDouble())                                                            \
  GTEST_SKIP() << "the host driver double runs no kernels"

} // namespace

TEST(CudaAvailability, NoGpuIsAOneLineErrorNotACrash) {
  if (cuda::deviceCount() > 0) {
    int n = cuda::deviceCount();
    std::string err = errorOf([&] { cuda::requireDevice(n); });
    EXPECT_NE(err.find("gpu(" + std::to_string(n) + ") does not exist"), std::string::npos)
        << err;
    EXPECT_NE(errorOf([&] { NDArray a({4}, DType::F32, Device::gpu(n)); }), "");
    return;
  }
  EXPECT_NE(cuda::unavailableReason(), "");
  std::string err = errorOf([] { cuda::requireDevice(0); });
  EXPECT_EQ(err.rfind("gpu(0) is not available: ", 0), 0u) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  // Arrays, memory queries and modules on gpu(0) say the same.
  EXPECT_EQ(errorOf([] { NDArray a({4}, DType::F32, Device::gpu(0)); }), err);
  EXPECT_EQ(errorOf([] { cuda::memoryInfo(0, nullptr, nullptr); }), err);
  EXPECT_EQ(errorOf([] { cuda::Module m(0, kSaxpyPtx); }), err);
}

TEST(CudaAvailability, BuildReportsCuda) {
#ifdef MXC_TEST_EXPECT_CUDA
  EXPECT_TRUE(cuda::builtWithCuda());
#else
  EXPECT_FALSE(cuda::builtWithCuda());
  EXPECT_EQ(cuda::deviceCount(), 0);
#endif
}

TEST(CudaDevice, DescribesItself) {
  MXC_REQUIRE_GPU();
  EXPECT_GE(cuda::driverVersion(), 12000);
  EXPECT_NE(cuda::deviceName(0), "");
  EXPECT_GE(cuda::computeCapability(0), 75);
  size_t freeBytes = 0, total = 0;
  cuda::memoryInfo(0, &freeBytes, &total);
  EXPECT_GT(total, size_t(1) << 30);
  EXPECT_LE(freeBytes, total);
  std::printf("gpu(0): %s, sm_%d, driver %d, %.1f of %.1f GiB free\n",
              cuda::deviceName(0).c_str(), cuda::computeCapability(0), cuda::driverVersion(),
              freeBytes / 1073741824.0, total / 1073741824.0);
}

TEST(CudaStorage, PoolsAndReusesDeviceBlocks) {
  MXC_REQUIRE_GPU();
  std::unique_ptr<StorageManager> m = createStorageManager(Device::gpu(0));
  Storage a = m->allocate(1000);
  ASSERT_NE(a.data, nullptr);
  EXPECT_EQ(a.device, Device::gpu(0));
  EXPECT_GE(a.capacity, 1000u);
  EXPECT_EQ(m->bytesInUse(), a.capacity);
  void *first = a.data;
  m->release(a);
  EXPECT_EQ(m->bytesInUse(), 0u);
  EXPECT_EQ(m->bytesCached(), a.capacity);
  Storage b = m->allocate(990); // the same bucket: the cached block
  EXPECT_EQ(b.data, first);
  m->release(b);
  m->releaseCached();
  EXPECT_EQ(m->bytesCached(), 0u);
  // More than any GPU holds: OutOfMemoryError, not a crash.
  EXPECT_THROW(m->allocate(size_t(1) << 47), OutOfMemoryError);
  EXPECT_EQ(m->bytesInUse(), 0u);
}

// cpu_pinned(i) where there is a GPU: page-locked host memory
// (cuMemHostAlloc; on the host driver double, its own record of the blocks
// says so), pooled; cpu_pinned of a GPU that is not there is a one-line
// error naming both.
TEST(CudaStorage, PinnedMemoryIsPageLockedAndPooled) {
  MXC_REQUIRE_GPU();
  const Device pinned{Device::Kind::CPUPinned, 0};
  std::unique_ptr<StorageManager> m = createStorageManager(pinned);
  Storage a = m->allocate(1000);
  ASSERT_NE(a.data, nullptr);
  EXPECT_EQ(a.device, pinned);
  static_cast<unsigned char *>(a.data)[999] = 7; // the host's memory
  if (onHostDriverDouble()) {
    const char *path = std::getenv("MXC_CUDA_DRIVER");
    void *lib = path ? dlopen(path, RTLD_LAZY | RTLD_NOLOAD) : nullptr;
    ASSERT_NE(lib, nullptr) << "the double is loaded through MXC_CUDA_DRIVER";
    auto isPinned =
        reinterpret_cast<int (*)(const void *, size_t)>(dlsym(lib, "mxcCudaDriverDoubleIsPinned"));
    ASSERT_NE(isPinned, nullptr);
    EXPECT_EQ(isPinned(a.data, a.capacity), 1) << "cpu_pinned memory from cuMemHostAlloc";
    int local = 0;
    EXPECT_EQ(isPinned(&local, sizeof local), 0);
    dlclose(lib);
  }
  void *first = a.data;
  m->release(a);
  Storage b = m->allocate(990); // the same bucket: the cached block
  EXPECT_EQ(b.data, first);
  m->release(b);
  m->releaseCached();
  EXPECT_EQ(m->bytesCached(), 0u);
  const int missing = cuda::deviceCount();
  std::string err = errorOf([&] { createStorageManager(Device{Device::Kind::CPUPinned, missing}); });
  EXPECT_NE(err.find("cpu_pinned(" + std::to_string(missing) + ")"), std::string::npos) << err;
  EXPECT_NE(err.find("gpu(" + std::to_string(missing) + ")"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
}

// A step's temporaries (gpu.alloc in generated code: mgpuMemAlloc /
// mgpuMemFree) come from the current device's caching pool and go back to
// it; gpu.memcpy (mgpuMemcpy) copies a host constant into one.
TEST(CudaStorage, StepTemporariesComeFromTheDevicePool) {
  MXC_REQUIRE_GPU();
  StorageManager &pool = storageManager(Device::gpu(0));
  mgpuSetDefaultDevice(0);
  size_t before = pool.bytesInUse();
  void *p = mgpuMemAlloc(1000, nullptr, false);
  ASSERT_NE(p, nullptr);
  EXPECT_GE(pool.bytesInUse(), before + 1000);
  mgpuMemFree(p, nullptr);
  EXPECT_EQ(pool.bytesInUse(), before);
  void *q = mgpuMemAlloc(990, nullptr, false); // the same bucket: the cached block
  EXPECT_EQ(q, p);
  // A constant (host memory) copied into it, as generated code does for a
  // library kernel that reads one; then device -> device.
  std::vector<float> constant(200), back(200, -1.0f);
  std::iota(constant.begin(), constant.end(), 0.25f);
  mgpuMemcpy(q, constant.data(), constant.size() * sizeof(float), nullptr);
  NDArray copy({200}, DType::F32, Device::gpu(0));
  mgpuMemcpy(copy.data(), q, constant.size() * sizeof(float), nullptr);
  cuda::synchronize(0);
  copy.copyToHost(back.data(), back.size() * sizeof(float));
  EXPECT_EQ(back, constant);
  mgpuMemFree(q, nullptr);
  if (cuda::deviceCount() > 1) {
    mgpuSetDefaultDevice(1);
    void *r = mgpuMemAlloc(1000, nullptr, false);
    EXPECT_GT(storageManager(Device::gpu(1)).bytesInUse(), 0u);
    mgpuMemFree(r, nullptr);
    mgpuSetDefaultDevice(0);
  }
}

// (host_kernels.cc's twins: the CPU kernels' signatures, kernels.h)
extern "C" {
void mxc_cuda_kernel_topk_f32(MXC_KERNEL_BUFFER(const float, x), MXC_KERNEL_BUFFER(float, y),
                              int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);
void mxc_cuda_kernel_box_nms_f32(MXC_KERNEL_BUFFER(const float, x), MXC_KERNEL_BUFFER(float, y),
                                 int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                                 int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);
void mxc_cuda_kernel_bipartite_matching_f32(MXC_KERNEL_BUFFER(const float, x),
                                            MXC_KERNEL_BUFFER(float, y), int64_t, int64_t,
                                            int64_t, int64_t, int64_t, int64_t, int64_t);
void mxc_cuda_kernel_syevd_f32(MXC_KERNEL_BUFFER(const float, x), MXC_KERNEL_BUFFER(float, y),
                               int64_t, int64_t, int64_t);
void mxc_cuda_kernel_lu_f32(MXC_KERNEL_BUFFER(const float, x), MXC_KERNEL_BUFFER(float, y),
                            int64_t, int64_t, int64_t);
void mxc_cuda_kernel_pooling_backward_host_f32(
    MXC_KERNEL_BUFFER(const float, dy), MXC_KERNEL_BUFFER(const float, x),
    MXC_KERNEL_BUFFER(const float, y), MXC_KERNEL_BUFFER(float, dx), int64_t, int64_t, int64_t,
    int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
    int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);
void mxc_cuda_kernel_lrn_backward_host_f32(
    MXC_KERNEL_BUFFER(const float, dy), MXC_KERNEL_BUFFER(const float, x),
    MXC_KERNEL_BUFFER(const float, norm), MXC_KERNEL_BUFFER(const float, y),
    MXC_KERNEL_BUFFER(float, dx), int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);
}

// The GPU twins that run a CPU kernel on host copies (host_kernels.cc):
// on device arrays they give the CPU kernel's results, for topk's three
// modes, box_nms's two, bipartite_matching's two, syevd's two, LU's six and
// the pooling gradient (max and lp) and LRN's gradient
// (buffers copied in, the CPU kernel run, the written buffer copied back;
// the device pointers are the double's opaque ones in ctest's host_driver
// run, so a host read of device memory would crash).
TEST(CudaHostKernels, TwinsGiveTheCpuKernelsResults) {
  MXC_REQUIRE_GPU();
  auto bits = [](double v) {
    int64_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
  };
  std::vector<float> x(2 * 6 * 6);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::sin(float(i) * 1.7f) + 0.1f * float(i % 5);
  NDArray dx({int64_t(x.size())}, DType::F32, Device::gpu(0));
  dx.copyFromHost(x.data(), x.size() * sizeof(float));
  // One twin against its CPU kernel: `call(twin?, in, out)` on buffers of
  // `outSize` floats.
  auto compare = [&](const char *what, size_t outSize, auto &&call) {
    std::vector<float> want(outSize, -7.0f), got(outSize, -7.0f);
    call(false, x.data(), want.data());
    EXPECT_NE(want, std::vector<float>(outSize, -7.0f)) << what << ": the CPU kernel wrote nothing";
    NDArray dy({int64_t(outSize)}, DType::F32, Device::gpu(0));
    dy.copyFromHost(got.data(), outSize * sizeof(float));
    call(true, static_cast<float *>(dx.data()), static_cast<float *>(dy.data()));
    dy.copyToHost(got.data(), outSize * sizeof(float));
    EXPECT_EQ(got, want) << what;
  };
#define MXC_BUF(p, n) (p), (p), int64_t(0), int64_t(n), int64_t(1)
  const int64_t n = int64_t(x.size());
  for (int64_t mode : {0, 1, 2}) {
    size_t out = mode == 2 ? x.size() : 2 * 2 * 6;
    compare("topk", out, [&](bool twin, float *in, float *y) {
      (twin ? mxc_cuda_kernel_topk_f32 : mxc_kernel_topk_f32)(
          MXC_BUF(in, n), MXC_BUF(y, int64_t(out)), 2, 6, 6, 2, mode == 1, mode);
    });
  }
  for (int64_t mode : {0, 1}) {  // 12 records of 6: [id, score, x1, y1, x2, y2]
    size_t out = mode == 0 ? x.size() : 12;
    compare("box_nms", out, [&](bool twin, float *in, float *y) {
      (twin ? mxc_cuda_kernel_box_nms_f32 : mxc_kernel_box_nms_f32)(
          MXC_BUF(in, n), MXC_BUF(y, int64_t(out)), 1, 12, 6, bits(0.3), bits(-1.0), -1, 2, 1,
          0, -1, 0, 1, 1, mode);
    });
    size_t rows = mode == 0 ? 2 * 6 : 2 * 6;
    compare("bipartite_matching", rows, [&](bool twin, float *in, float *y) {
      (twin ? mxc_cuda_kernel_bipartite_matching_f32 : mxc_kernel_bipartite_matching_f32)(
          MXC_BUF(in, n), MXC_BUF(y, int64_t(rows)), 2, 6, 6, bits(0.0), 0, -1, mode);
    });
    size_t eig = mode == 0 ? x.size() : 12;
    compare("syevd", eig, [&](bool twin, float *in, float *y) {
      (twin ? mxc_cuda_kernel_syevd_f32 : mxc_kernel_syevd_f32)(MXC_BUF(in, n),
                                                                MXC_BUF(y, int64_t(eig)), 2, 6,
                                                                mode);
    });
  }
  for (int64_t mode = 0; mode < 6; ++mode) {
    size_t out = mode == 0 || mode == 4 ? x.size() : mode == 5 ? 12 : 2;
    compare("LU", out, [&](bool twin, float *in, float *y) {
      (twin ? mxc_cuda_kernel_lu_f32 : mxc_kernel_lu_f32)(MXC_BUF(in, n),
                                                          MXC_BUF(y, int64_t(out)), 2, 6, mode);
    });
  }
  // lp pooling's gradient (p = 2, 2x2 windows, stride 1) on 2 planes of 5x5:
  // dy, x and y are views of the one input buffer.
  for (int64_t kind : {0, 3}) {
    compare("pooling gradient", 50, [&](bool twin, float *in, float *dx) {
      (twin ? mxc_cuda_kernel_pooling_backward_host_f32 : mxc_kernel_pooling_backward_f32)(
          MXC_BUF(in, 32), MXC_BUF(in + 8, 50), MXC_BUF(in + 4, 32), MXC_BUF(dx, 50), kind, 2,
          1, 2, 1, 5, 5, 1, 2, 2, 1, 4, 4, 1, 1, 1, 0, 0, 0);
    });
  }
  // LRN's gradient with a window of 17 over 6 channels (wider than cuDNN
  // takes) on (2, 6, 6): dy, x and tmp_norm views of the one input buffer
  // (norm kept positive: the kernel raises it to -beta); y is not read.
  for (double beta : {0.75, 0.005}) {
    compare("LRN gradient", 72, [&](bool twin, float *in, float *dx) {
      std::vector<float> norm(72);
      for (size_t i = 0; i < norm.size(); ++i)
        norm[i] = 1.5f + 0.01f * float(i);
      NDArray normDev({72}, DType::F32, Device::gpu(0));
      normDev.copyFromHost(norm.data(), norm.size() * sizeof(float));
      const float *n = twin ? static_cast<const float *>(normDev.data()) : norm.data();
      (twin ? mxc_cuda_kernel_lrn_backward_host_f32 : mxc_kernel_lrn_backward_f32)(
          MXC_BUF(in, 72), MXC_BUF(in, 72), MXC_BUF(n, 72), MXC_BUF(n, 72), MXC_BUF(dx, 72), 2,
          6, 6, 17, bits(0.3), bits(beta), bits(1.5));
    });
  }
#undef MXC_BUF
}

class CudaNDArray : public ::testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    MXC_REQUIRE_GPU();
    engine = makeEngine();
  }
  /// A new engine of the test's kind (fresh worker threads).
  std::unique_ptr<Engine> makeEngine() const {
    EngineOptions opts;
    // "threaded-no-events": GPU operations wait for their streams
    // (MXC_ENGINE_GPU_EVENTS=0).
    std::string kind = GetParam();
    opts.gpuEvents = kind != "threaded-no-events";
    opts.kind = opts.gpuEvents ? kind : "threaded";
    return createEngine(opts);
  }
  std::unique_ptr<Engine> engine;

  // Rounds of host -> `first` (its copy-to lane), `first` -> `second` (the
  // compute lane of `second`), `second` -> host (its copy-from lane) copies
  // of n floats value(round, i), and `first` -> host again after `second`
  // read it (a read after a read on another stream still waits for the
  // write), pushed without waiting; then each round's results are checked.
  void checkCopyChain(Device first, Device second, int64_t n, int rounds,
                      const std::function<float(int, int64_t)> &value) {
    std::vector<NDArray> sources, results, firsts;
    for (int r = 0; r < rounds; ++r) {
      std::vector<float> v(n);
      for (int64_t i = 0; i < n; ++i)
        v[size_t(i)] = value(r, i);
      NDArray src({n}, DType::F32, Device::cpu(), engine.get());
      src.copyFromHost(v.data(), v.size() * sizeof(float));
      sources.push_back(src);
      results.emplace_back(Shape{n}, DType::F32, Device::cpu(), engine.get());
      firsts.emplace_back(Shape{n}, DType::F32, Device::cpu(), engine.get());
    }
    NDArray a({n}, DType::F32, first, engine.get());
    NDArray b({n}, DType::F32, second, engine.get());
    for (int r = 0; r < rounds; ++r) {
      sources[r].copyTo(a);
      a.copyTo(b);
      b.copyTo(results[r]);
      a.copyTo(firsts[r]);
    }
    ASSERT_FALSE(engine->waitForAll());
    for (int r = 0; r < rounds; ++r)
      for (const NDArray *got : {&results[r], &firsts[r]}) {
        std::vector<float> out(n, -1.0f);
        got->copyToHost(out.data(), out.size() * sizeof(float));
        for (int64_t i = 0; i < n; ++i)
          ASSERT_EQ(out[size_t(i)], value(r, i))
              << (got == &results[r] ? "second" : "first") << ", round " << r << " element "
              << i;
      }
  }
};

TEST_P(CudaNDArray, CopiesBetweenHostAndDevice) {
  for (int64_t n : {int64_t(0), int64_t(1), int64_t(1000), int64_t(1) << 22}) {
    std::vector<float> v(static_cast<size_t>(n));
    std::iota(v.begin(), v.end(), 0.5f);
    NDArray host({n}, DType::F32, Device::cpu(), engine.get());
    host.copyFromHost(v.data(), v.size() * sizeof(float));
    NDArray dev = host.copyTo(Device::gpu(0));
    EXPECT_EQ(dev.device(), Device::gpu(0));
    NDArray dev2 = dev.copyTo(Device::gpu(0)); // device -> device
    NDArray back = dev2.copyTo(Device::cpu());
    std::vector<float> out(v.size(), -1.0f);
    back.copyToHost(out.data(), out.size() * sizeof(float));
    EXPECT_EQ(out, v) << n << " elements";
    // Straight from host memory to the device and back.
    std::vector<float> twice(v.size());
    for (size_t i = 0; i < v.size(); ++i)
      twice[i] = 2 * v[i];
    dev.copyFromHost(twice.data(), twice.size() * sizeof(float));
    dev.copyToHost(out.data(), out.size() * sizeof(float));
    EXPECT_EQ(out, twice) << n << " elements";
  }
}

TEST_P(CudaNDArray, LaunchesPtxAsAnEngineOperation) {
  MXC_REQUIRE_KERNELS();
  const int64_t n = 1000;
  cuda::Module module(0, kSaxpyPtx);
  EXPECT_TRUE(module.hasKernel("saxpy"));
  EXPECT_FALSE(module.hasKernel("nope"));
  std::vector<float> x(n), y(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = static_cast<float>(3 * i + 1);
  }
  NDArray dx({n}, DType::F32, Device::gpu(0), engine.get());
  NDArray dy({n}, DType::F32, Device::gpu(0), engine.get());
  dx.copyFromHost(x.data(), n * sizeof(float));
  dy.copyFromHost(y.data(), n * sizeof(float));
  engine->pushSync(
      [&module, px = dx.data(), py = dy.data()](RunContext) {
        float a = 2.0f;
        unsigned count = n;
        void *xp = px, *yp = py;
        unsigned grid[3] = {(n + 255) / 256, 1, 1}, block[3] = {256, 1, 1};
        module.launch("saxpy", grid, block, {&xp, &yp, &a, &count});
        cuda::synchronize(0);
      },
      Device::gpu(0), {dx.var()}, {dy.var()}, FnProperty::Normal, 0, "saxpy");
  std::vector<float> out(n);
  dy.copyToHost(out.data(), n * sizeof(float));
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], 2.0f * x[i] + y[i]) << i;
  // An unknown kernel is an Error, as is PTX the driver rejects.
  std::string err = errorOf([&] {
    unsigned g[3] = {1, 1, 1};
    module.launch("nope", g, g, {});
  });
  EXPECT_NE(err.find("no kernel 'nope'"), std::string::npos) << err;
  err = errorOf([] { cuda::Module bad(0, ".version 8.0\n.target sm_90\nnot ptx"); });
  EXPECT_NE(err.find("loading PTX on gpu(0)"), std::string::npos) << err;
}

// A plan of several steps on one GPU runs in bulk (Executor::run: one
// engine operation, the steps on one stream without waiting after each,
// one wait at the end), on both engines; the result is the step-by-step
// one; a failing step is named as step by step.
TEST_P(CudaNDArray, BulkRunOfAGpuPlanWaitsOnceAndKeepsTheOrder) {
  MXC_REQUIRE_KERNELS();
  cuda::Module module(0, kSaxpyPtx);
  gSaxpy = &module;
  const mxc_kernel_entry rows[] = {{"saxpy", saxpyStep}, {"fails", failingStep}};
  KernelTable kernels(rows, 2);
  // Three steps accumulating into y in plan order (each launch reads the
  // previous one's y on the one stream).
  auto plan = [&](const char *second) {
    std::string text = std::string(R"(mxc-plan 1
arena 0
buffer x argument 0 float32 (1000,)
buffer y output 0 float32 (1000,)
step a1 saxpy gpu(0) reads x writes y
step a2 )") + second + R"( gpu(0) reads x writes y
step a3 saxpy gpu(0) reads x writes y
)";
    PlanError err;
    std::optional<Plan> p = Plan::parse(text, &err, &kernels);
    EXPECT_TRUE(p) << err.str();
    return *p;
  };
  std::vector<float> x(kBulkN), y0(kBulkN);
  for (unsigned i = 0; i < kBulkN; ++i) {
    x[i] = float(i) * 0.25f - 7;
    y0[i] = float(i % 7);
  }
  NDArray dx({int64_t(kBulkN)}, DType::F32, Device::gpu(0), engine.get());
  NDArray dy({int64_t(kBulkN)}, DType::F32, Device::gpu(0), engine.get());
  dx.copyFromHost(x.data(), kBulkN * sizeof(float));
  Executor exec(plan("saxpy"), kernels, engine.get());
  EXPECT_TRUE(exec.bulk());
  exec.bind({dx}, {dy});
  for (int round = 0; round < 3; ++round) {
    dy.copyFromHost(y0.data(), kBulkN * sizeof(float));
    exec.run();
    std::vector<float> y(kBulkN);
    dy.copyToHost(y.data(), kBulkN * sizeof(float));
    for (unsigned i = 0; i < kBulkN; ++i)
      ASSERT_EQ(y[i], ((y0[i] + 2 * x[i]) + 2 * x[i]) + 2 * x[i]) << i << " round " << round;
  }
  Executor failing(plan("fails"), kernels, engine.get());
  failing.bind({dx}, {dy});
  std::string err = errorOf([&] { failing.run(); });
  EXPECT_NE(err.find("step 'a2' (kernel 'fails') failed: no luck on the GPU"), std::string::npos)
      << err;
  gSaxpy = nullptr;
}

// A step that copies its argument into its output on the thread's stream
// (what a generated step's gpu.memcpy does), noting whether both pointers
// were 16-byte aligned.
constexpr unsigned kViewN = 5;
bool gCopyStepAligned = true;
void copyStep(void **buffers) {
  for (int i = 0; i < 2; ++i)
    gCopyStepAligned &= reinterpret_cast<uintptr_t>(buffers[i]) % 16 == 0;
  void *stream = mgpuStreamCreate();
  mgpuMemcpy(buffers[1], buffers[0], kViewN * sizeof(float), stream);
  mgpuStreamSynchronize(stream);
}

// Views at unaligned offsets (rows of a 3x5 float32 array: 20 bytes a row)
// reach a GPU plan pushed on them (Executor::pushOn, an imperative
// operator's push) through aligned copies: the step sees aligned pointers,
// reads the argument view's values and its result lands in the output
// view, nothing else of either array changes; one view as argument and
// output (an in-place pair) keeps its values through one copy. bind()
// still refuses them with one line.
TEST_P(CudaNDArray, UnalignedViewsReachGpuStepsThroughAlignedCopies) {
  MXC_REQUIRE_GPU();
  const mxc_kernel_entry rows[] = {{"copy", copyStep}};
  KernelTable kernels(rows, 1);
  PlanError perr;
  std::optional<Plan> plan = Plan::parse(R"(mxc-plan 1
arena 0
buffer x argument 0 float32 (5,)
buffer y output 0 float32 (5,)
step c copy gpu(0) reads x writes y
)",
                                         &perr, &kernels);
  ASSERT_TRUE(plan) << perr.str();
  std::vector<float> xs(15), ys(15);
  for (unsigned i = 0; i < 15; ++i) {
    xs[i] = float(i) + 0.5f;
    ys[i] = -float(i);
  }
  NDArray x({3, 5}, DType::F32, Device::gpu(0), engine.get());
  NDArray y({3, 5}, DType::F32, Device::gpu(0), engine.get());
  x.copyFromHost(xs.data(), sizeof(float) * 15);
  y.copyFromHost(ys.data(), sizeof(float) * 15);
  Executor exec(*plan, kernels, engine.get());
  NDArray row1 = x.slice(1, 2).reshape({5}), row2 = y.slice(2, 3).reshape({5});
  ASSERT_NE(reinterpret_cast<uintptr_t>(row1.data()) % 16, 0u);
  gCopyStepAligned = true;
  exec.pushOn({row1}, {row2});
  ASSERT_FALSE(engine->waitForAll());
  EXPECT_TRUE(gCopyStepAligned);
  std::vector<float> got(15);
  y.copyToHost(got.data(), sizeof(float) * 15);
  for (unsigned i = 0; i < 15; ++i)
    EXPECT_EQ(got[i], i >= 10 ? xs[i - 5] : ys[i]) << i;
  x.copyToHost(got.data(), sizeof(float) * 15);
  EXPECT_EQ(got, xs);
  exec.pushOn({row1}, {row1});
  ASSERT_FALSE(engine->waitForAll());
  EXPECT_TRUE(gCopyStepAligned);
  x.copyToHost(got.data(), sizeof(float) * 15);
  EXPECT_EQ(got, xs);
  std::string err = errorOf([&] { exec.bind({row1}, {row2}); });
  EXPECT_NE(err.find("a GPU plan needs 16-byte aligned buffers"), std::string::npos) << err;
}

// Operations on different streams follow their variables' order without
// waiting for the device after each (engine/gpu_sync.h): rounds of host ->
// gpu (the copy-to lane's stream), gpu -> gpu (a compute worker's) and gpu
// -> host (the copy-from lane's) copies pushed without waiting in between. A
// copy must wait for the write before it (an event of another stream) and a
// write for the reads before it (round r + 1 overwrites `a` while round r's
// gpu -> gpu copy may still be queued). On a GPU, and on the host driver
// double with asynchronous streams (ctest's host_driver_async.*: each stream
// operation delayed, so a missing event wait shows as a wrong round).
TEST_P(CudaNDArray, StreamsFollowTheVariablesWithoutWaiting) {
  checkCopyChain(Device::gpu(0), Device::gpu(0), 1 << 16, 12,
                 [](int r, int64_t i) { return float(r * 1000 + i % 997); });
}

// The same across two GPUs: host -> gpu(0) (gpu(0)'s copy-to lane), gpu(0)
// -> gpu(1) (gpu(1)'s compute lane, waiting for gpu(0)'s event), gpu(1) ->
// host, round after round without waiting. Where two GPUs are (ctest's
// host_driver_async.* run gives the double two).
TEST_P(CudaNDArray, CopiesAcrossDevicesFollowTheVariables) {
  if (cuda::deviceCount() < 2)
    GTEST_SKIP() << "needs two GPUs";
  checkCopyChain(Device::gpu(0), Device::gpu(1), 1 << 14, 10,
                 [](int r, int64_t) { return float(r + 1); });
}

// A read of a device array after another read of it on another stream
// (here: gpu(0)'s compute lane copying it to a second array, then its own
// copy-from lane copying it to the host) still waits for the write before
// both (the host -> device copy on the copy-to lane), also once the engine
// has seen the first read complete -- its event implies the write only to
// those that wait for it. The pause lets the first read complete on the
// engine while the double's device (200 us an operation, 4 MB copies)
// still runs the write.
TEST_P(CudaNDArray, ReadsAfterReadsOnOtherStreamsWaitForTheWrite) {
  const int64_t n = int64_t(1) << 20;
  for (int round = 1; round <= 5; ++round) {
    std::vector<float> v(static_cast<size_t>(n), static_cast<float>(round));
    NDArray src({n}, DType::F32, Device::cpu(), engine.get());
    src.copyFromHost(v.data(), v.size() * sizeof(float));
    NDArray a({n}, DType::F32, Device::gpu(0), engine.get());
    NDArray b({n}, DType::F32, Device::gpu(0), engine.get());
    NDArray host({n}, DType::F32, Device::cpu(), engine.get());
    src.copyTo(a);
    a.copyTo(b);
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    a.copyTo(host);
    ASSERT_FALSE(engine->waitForAll());
    for (const NDArray *got : {&host, &b}) {
      std::vector<float> out(size_t(n), -1.0f);
      got->copyToHost(out.data(), out.size() * sizeof(float));
      for (int64_t i = 0; i < n; i += 4097)
        ASSERT_EQ(out[size_t(i)], float(round))
            << (got == &host ? "a's second read" : "a's first read") << ", round " << round
            << " element " << i;
    }
  }
}

// Copies between cpu_pinned and gpu arrays are asynchronous (the device
// reads and writes the host memory while the copy runs; nothing is staged
// or waited for in the driver call), so the engine's events are what keep
// the host in order: a CPU operation overwriting a pinned array waits for
// the copy reading it to the device, one reading a pinned array waits for
// the copy writing it from the device, and a pinned block goes back to the
// pool only after the copy that reads it. Pushed round after round without
// waiting; on the asynchronous double (ctest's host_driver_async.*: 200 us
// an operation) each missing wait shows as a wrong round.
TEST_P(CudaNDArray, PinnedCopiesFollowTheVariables) {
  const Device pinned{Device::Kind::CPUPinned, 0};
  const int64_t n = 1 << 16;
  const int rounds = 8;
  auto setAll = [&](const NDArray &a, float value) {
    engine->pushSync(
        [p = static_cast<float *>(a.data()), value](RunContext) { std::fill(p, p + n, value); },
        Device::cpu(), {}, {a.var()}, FnProperty::Normal, 0, "set on the host");
  };
  NDArray pin({n}, DType::F32, pinned, engine.get());
  NDArray back({n}, DType::F32, pinned, engine.get());
  NDArray dev({n}, DType::F32, Device::gpu(0), engine.get());
  std::vector<std::vector<float>> seen(rounds);
  for (int r = 0; r < rounds; ++r) {
    setAll(pin, float(r + 1));
    pin.copyTo(dev);
    setAll(pin, float(-r - 1)); // after the copy to the device read it
    dev.copyTo(back);
    engine->pushSync(
        [&seen, r, p = static_cast<const float *>(back.data())](RunContext) {
          seen[size_t(r)].assign(p, p + n);
        },
        Device::cpu(), {back.var()}, {}, FnProperty::Normal, 0, "read on the host");
  }
  ASSERT_FALSE(engine->waitForAll());
  for (int r = 0; r < rounds; ++r)
    ASSERT_EQ(seen[size_t(r)], std::vector<float>(n, float(r + 1))) << "round " << r;
  // Straight reads of the host memory wait for the device too.
  setAll(pin, 5.0f);
  pin.copyTo(dev);
  dev.copyTo(back);
  back.waitToRead();
  const float *p = static_cast<const float *>(back.data());
  EXPECT_EQ(std::vector<float>(p, p + n), std::vector<float>(n, 5.0f));
  // A pinned source dropped while its copy is queued: its block is handed
  // out again (the pool's bucket) only once the copy has read it.
  for (int round = 0; round < 4; ++round) {
    NDArray d({n}, DType::F32, Device::gpu(0), engine.get());
    {
      NDArray src({n}, DType::F32, pinned, engine.get());
      setAll(src, 1.0f);
      src.copyTo(d);
    }
    for (int i = 0; i < 20000 && engine->numPending() > 0; ++i)
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    NDArray again({n}, DType::F32, pinned, engine.get());
    setAll(again, 2.0f);
    std::vector<float> out(n, -1.0f);
    d.copyToHost(out.data(), n * sizeof(float));
    ASSERT_EQ(out, std::vector<float>(n, 1.0f)) << "round " << round;
  }
}

// fill on a GPU (mx.nd.zeros / ones / full there): a device memset of
// every element width, in order with the copies around it.
TEST_P(CudaNDArray, FillsDeviceArraysWithoutAHostBuffer) {
  const int64_t n = 1000;
  for (auto [dt, width] : {std::pair{DType::U8, 1}, std::pair{DType::F16, 2},
                           std::pair{DType::F32, 4}, std::pair{DType::I64, 8},
                           std::pair{DType::F64, 8}}) {
    std::vector<unsigned char> before(size_t(n) * width, 0xee);
    NDArray a({n}, dt, Device::gpu(0), engine.get());
    a.copyFromHost(before.data(), before.size());
    // Unequal 4-byte halves for 8-byte elements (two strided memsets).
    uint64_t pattern = width == 8 ? 0xbff0000000000001ull : 0x3c00u & ((1ull << (8 * width)) - 1);
    a.fill(pattern);
    std::vector<unsigned char> got(before.size()), want;
    a.copyToHost(got.data(), got.size());
    for (int64_t i = 0; i < n; ++i)
      for (int k = 0; k < width; ++k)
        want.push_back(static_cast<unsigned char>(pattern >> (8 * k)));
    EXPECT_EQ(got, want) << width << "-byte elements";
  }
}

// Memory given back while a stream may still read it is not handed to an
// operation on another stream before that (stream-ordered release): the
// source of a queued gpu -> gpu copy is dropped, and a new array of its size
// is written at once from the host.
TEST_P(CudaNDArray, FreedDeviceMemoryWaitsForItsStream) {
  const int64_t n = 1 << 16;
  std::vector<float> ones(n, 1.0f), twos(n, 2.0f);
  NDArray onesHost({n}, DType::F32, Device::cpu(), engine.get());
  NDArray twosHost({n}, DType::F32, Device::cpu(), engine.get());
  onesHost.copyFromHost(ones.data(), n * sizeof(float));
  twosHost.copyFromHost(twos.data(), n * sizeof(float));
  for (int round = 0; round < 6; ++round) {
    NDArray b({n}, DType::F32, Device::gpu(0), engine.get());
    {
      NDArray a({n}, DType::F32, Device::gpu(0), engine.get());
      onesHost.copyTo(a);
      a.copyTo(b);
    } // a's memory goes back to the pool
    // Until the engine has run the release (not the device the copy): then
    // c is given a's block unless the release waits for the copy's stream.
    for (int i = 0; i < 20000 && engine->numPending() > 0; ++i)
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    NDArray c({n}, DType::F32, Device::gpu(0), engine.get());
    twosHost.copyTo(c);
    std::vector<float> out(n, -1.0f);
    b.copyToHost(out.data(), n * sizeof(float));
    ASSERT_EQ(out, ones) << "round " << round;
    c.copyToHost(out.data(), n * sizeof(float));
    ASSERT_EQ(out, twos) << "round " << round;
  }
}

// What reads a GPU array on the host waits for the device first: a wait for
// the array (waitToRead), waitForAll, and an engine operation on the CPU
// that reads it. Where device memory is host memory (the host driver double
// without opaque pointers, ctest's host_driver_async.* run with asynchronous
// streams), the host can look: each read below would see the old values if
// the engine took "done" for "done on the device".
TEST_P(CudaNDArray, HostReadsWaitForTheDevice) {
  if (!cuda::deviceMemoryIsHostMemory(0))
    GTEST_SKIP() << "needs device memory the host can read (the host driver double)";
  const int64_t n = 1 << 16;
  auto filled = [&](float value) {
    std::vector<float> v(n, value);
    NDArray h({n}, DType::F32, Device::cpu(), engine.get());
    h.copyFromHost(v.data(), n * sizeof(float));
    return h;
  };
  auto hostView = [&](const NDArray &a) {
    const float *p = static_cast<const float *>(a.data());
    return std::vector<float>(p, p + n);
  };
  NDArray a({n}, DType::F32, Device::gpu(0), engine.get());
  NDArray b({n}, DType::F32, Device::gpu(0), engine.get());
  for (int round = 1; round <= 4; ++round) {
    NDArray h = filled(float(round));
    h.copyTo(a);
    a.copyTo(b);
    b.waitToRead();
    ASSERT_EQ(hostView(b), std::vector<float>(n, float(round))) << "waitToRead, round " << round;
    NDArray h2 = filled(float(-round));
    h2.copyTo(a);
    ASSERT_FALSE(engine->waitForAll());
    ASSERT_EQ(hostView(a), std::vector<float>(n, float(-round))) << "waitForAll, round " << round;
    NDArray h3 = filled(float(100 + round));
    h3.copyTo(b);
    std::vector<float> seen;
    engine->pushSync([&](RunContext) { seen = hostView(b); }, Device::cpu(), {b.var()}, {},
                     FnProperty::Normal, 0, "read on the host");
    ASSERT_FALSE(engine->waitForAll());
    ASSERT_EQ(seen, std::vector<float>(n, float(100 + round))) << "CPU operation, round " << round;
  }
}

// On the host driver double, modules load (and know their kernels) but a
// launch is a one-line error naming the device (what an operator on a gpu
// array meets there).
TEST(CudaHostDriver, RefusesKernelsWithOneLine) {
  if (!onHostDriverDouble())
    GTEST_SKIP() << "not on the host driver double";
  cuda::Module module(0, kSaxpyPtx);
  EXPECT_TRUE(module.hasKernel("saxpy"));
  EXPECT_FALSE(module.hasKernel("nope"));
  int dummy = 0;
  void *p = &dummy;
  unsigned grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
  std::string err = errorOf([&] { module.launch("saxpy", grid, block, {&p, &p, &p, &p}); });
  EXPECT_NE(err.find("launching kernel 'saxpy'"), std::string::npos) << err;
  EXPECT_NE(err.find("the host driver double runs no kernels (a launch on gpu(0))"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
}

// Generated GPU code runs on the device of its step: a plan compiled for
// the GPU (its steps say gpu(0)) and moved to gpu(i) with Plan::onDevice
// loads its kernel image on gpu(i) (a CUmodule belongs to one device's
// context), launches there on the thread's gpu(i) stream (the executor sets
// the mgpu* functions' device before the step), run in bulk and step by
// step. On a GPU: the values (every GPU the machine has, up to 3); on the
// driver double (two devices in its asynchronous registration) the launch
// is refused naming the device it reached, and a module, stream or context
// of another device would be CUDA_ERROR_INVALID_HANDLE there.
TEST_P(CudaNDArray, GeneratedKernelsRunOnTheDeviceOfTheirStep) {
  const mxc_kernel_entry rows[] = {{"saxpy", generatedSaxpyStep}};
  KernelTable kernels(rows, 1);
  PlanError perr;
  std::optional<Plan> compiled = Plan::parse(R"(mxc-plan 1
arena 0
buffer x argument 0 float32 (1000,)
buffer y output 0 float32 (1000,)
step a1 saxpy gpu(0) reads x writes y
step a2 saxpy gpu(0) reads x writes y
)",
                                             &perr, &kernels);
  ASSERT_TRUE(compiled) << perr.str();
  std::string err = errorOf([&] { compiled->onDevice(Device::cpu()); });
  EXPECT_NE(err.find("step 'a1' runs on gpu(0)"), std::string::npos) << err;
  EXPECT_NE(err.find("cannot run on cpu(0)"), std::string::npos) << err;

  gSaxpyImage = mgpuModuleLoadJIT(const_cast<char *>(kSaxpyPtx), 0);
  std::vector<float> x(kBulkN), y0(kBulkN);
  for (unsigned i = 0; i < kBulkN; ++i) {
    x[i] = float(i) * 0.5f - 3;
    y0[i] = float(i % 5);
  }
  for (int id = 0; id < std::min(cuda::deviceCount(), 3); ++id) {
    Plan plan = compiled->onDevice(Device::gpu(id));
    EXPECT_EQ(plan.device(), Device::gpu(id));
    for (bool bulk : {true, false}) {
      SCOPED_TRACE("gpu(" + std::to_string(id) + (bulk ? "), bulk" : "), step by step"));
      // Each way on an engine of its own (worker threads that ran nothing)
      // and with this thread's device back to gpu(0) (the naive engine
      // runs here): the run itself must set its device.
      mgpuSetDefaultDevice(0);
      std::unique_ptr<Engine> fresh = makeEngine();
      NDArray dx({int64_t(kBulkN)}, DType::F32, Device::gpu(id), fresh.get());
      NDArray dy({int64_t(kBulkN)}, DType::F32, Device::gpu(id), fresh.get());
      dx.copyFromHost(x.data(), kBulkN * sizeof(float));
      Executor exec(plan, kernels, fresh.get());
      exec.bind({dx}, {dy});
      dy.copyFromHost(y0.data(), kBulkN * sizeof(float));
      std::string failure = errorOf([&] {
        if (bulk) {
          exec.run();
        } else {
          exec.push();
          dy.waitToRead();
        }
      });
      if (onHostDriverDouble()) {
        EXPECT_NE(failure.find("the host driver double runs no kernels (a launch on gpu(" +
                               std::to_string(id) + "))"),
                  std::string::npos)
            << failure;
      } else {
        ASSERT_EQ(failure, "");
        std::vector<float> y(kBulkN);
        dy.copyToHost(y.data(), kBulkN * sizeof(float));
        for (unsigned i = 0; i < kBulkN; ++i)
          ASSERT_EQ(y[i], (y0[i] + 2 * x[i]) + 2 * x[i]) << i;
      }
      fresh->waitForAll();
    }
  }
  mgpuModuleUnload(gSaxpyImage);
  gSaxpyImage = nullptr;
}

INSTANTIATE_TEST_SUITE_P(Engines, CudaNDArray,
                         ::testing::Values("naive", "threaded", "threaded-no-events"),
                         [](const auto &info) {
                           std::string name = info.param;
                           for (char &c : name)
                             if (c == '-')
                               c = '_';
                           return name;
                         });
