// cuda_device.cc - gpu(i) in the runtime (include/mxc/runtime/cuda.h): the
// primary context of each device, a stream per (thread, device), the device
// memory pool registered with storage.h, the cpu<->gpu copiers registered with
// ndarray.h, and PTX modules.
//
// Streams and events (engine/gpu_sync.h, docs/gpu.md "Streams and events"): the
// threaded engine runs each GPU operation in a stream batch on its worker's
// stream, after making that stream wait for the events of the operations it
// depends on, and records an event when it is done instead of waiting for
// the device (CudaStreamSync below); memory given back inside an operation
// returns to the pool once its stream has passed that point (stream-ordered
// release). Outside a batch (the naive engine, MXC_ENGINE_GPU_EVENTS=0, code
// that is not an engine operation) every GPU operation ends with its stream
// synchronised, as MXNet's synchronous GPU operators. A bulk run of a GPU
// plan (one engine operation running every step, Executor::run) is a stream
// batch too (mxc_cuda_stream_batch_begin / _finish): its steps leave the
// thread's one stream running.
#include "internal.h"

#include "../engine/gpu_sync.h"
#include "../storage/pooled_storage.h"
#include "mxc/runtime/cuda.h"
#include "mxc/runtime/error.h"
#include "mxc/runtime/ndarray.h"
#include "mxc/runtime/storage.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mxc::runtime::cuda {

namespace {

struct DeviceState {
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
};

// Primary contexts, retained once per device and never released (arrays
// and modules may be freed while the process exits).
DeviceState &deviceState(int id) {
  static std::mutex mu;
  static auto *states = new std::map<int, DeviceState>;
  requireDevice(id);
  std::lock_guard<std::mutex> lock(mu);
  auto it = states->find(id);
  if (it != states->end())
    return it->second;
  const Driver &d = driver();
  DeviceState s;
  check(d.cuDeviceGet(&s.dev, id), "cuDeviceGet");
  check(d.cuDevicePrimaryCtxRetain(&s.ctx, s.dev), "cuDevicePrimaryCtxRetain");
  return (*states)[id] = s;
}

// Makes gpu(id)'s context current on the calling thread.
const Driver &bind(int id) {
  thread_local CUcontext current = nullptr;
  DeviceState &s = deviceState(id);
  const Driver &d = driver();
  if (current != s.ctx) {
    check(d.cuCtxSetCurrent(s.ctx), "cuCtxSetCurrent");
    current = s.ctx;
  }
  return d;
}

// Every thread's streams, (device, stream), so that the engine's waitForAll
// can wait for all of them (CudaStreamSync::synchronizeAll). Never destroyed.
struct StreamRegistry {
  std::mutex mu;
  std::set<std::pair<int, CUstream>> streams;
};
StreamRegistry &streamRegistry() {
  static auto *r = new StreamRegistry;
  return *r;
}

// The calling thread's stream on each device, destroyed when it exits.
struct ThreadStreams {
  std::unordered_map<int, CUstream> streams;
  ~ThreadStreams() {
    {
      StreamRegistry &r = streamRegistry();
      std::lock_guard<std::mutex> lock(r.mu);
      for (auto &s : streams)
        r.streams.erase({s.first, s.second});
    }
    if (const Driver *d = tryDriver())
      for (auto &s : streams)
        d->cuStreamDestroy(s.second);
  }
};

thread_local ThreadStreams tlsStreams;

// The calling thread's stream on gpu(id) if it has made one, else null.
CUstream existingThreadStream(int id) {
  auto it = tlsStreams.streams.find(id);
  return it == tlsStreams.streams.end() ? nullptr : it->second;
}

CUstream threadStream(int id) {
  ThreadStreams &ts = tlsStreams;
  auto it = ts.streams.find(id);
  if (it != ts.streams.end())
    return it->second;
  const Driver &d = bind(id);
  CUstream s = nullptr;
  check(d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  ts.streams[id] = s;
  StreamRegistry &r = streamRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.streams.insert({id, s});
  return s;
}

// CUevents (without timing) kept per device for reuse: an engine operation
// records one or two. Never destroyed.
struct EventPool {
  std::mutex mu;
  std::map<int, std::vector<CUevent>> free;
};
EventPool &eventPool() {
  static auto *p = new EventPool;
  return *p;
}

CUevent takeEvent(int id) {
  EventPool &p = eventPool();
  {
    std::lock_guard<std::mutex> lock(p.mu);
    std::vector<CUevent> &v = p.free[id];
    if (!v.empty()) {
      CUevent e = v.back();
      v.pop_back();
      return e;
    }
  }
  const Driver &d = bind(id);
  CUevent e = nullptr;
  check(d.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  return e;
}

// Re-recording a given-back event later is safe: a stream that waits for it
// waits for the record it saw when cuStreamWaitEvent was called.
void giveEventBack(int id, CUevent e) {
  EventPool &p = eventPool();
  std::lock_guard<std::mutex> lock(p.mu);
  p.free[id].push_back(e);
}

// The current point of the calling thread's stream on gpu(id).
CUevent recordOnThreadStream(int id) {
  CUevent e = takeEvent(id);
  try {
    check(bind(id).cuEventRecord(e, threadStream(id)), "cuEventRecord");
  } catch (...) {
    giveEventBack(id, e);
    throw;
  }
  return e;
}

} // namespace

const Driver &bindDevice(int id) { return bind(id); }
CUstream streamOf(int id) { return threadStream(id); }

namespace {

CUdeviceptr devPtr(const void *p) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
}

/// gpu(i)'s memory: the caching pool over cuMemAlloc. Everything released
/// is cached (as MXNet's GPU pooled storage); an allocation the device
/// cannot serve frees the cache and tries again.
class GPUStorageManager final : public detail::PooledStorageManager {
public:
  explicit GPUStorageManager(Device device)
      : PooledStorageManager(device, ~size_t(0) >> 1) {}
  ~GPUStorageManager() override {
    reclaim(/*wait=*/true);
    releaseCached();
  }

  /// Stream-ordered release: given back inside a GPU operation (a stream
  /// batch: the engine's GPU operations, a bulk run), the block may still be
  /// in use by the thread's stream and by the work on other streams that the
  /// stream was made to wait for. It returns to the pool once the stream has
  /// passed this point (an event), so that no operation on another stream
  /// is handed memory the device is still using. Elsewhere at once.
  void release(Storage block) override {
    if (!block.data)
      return;
    if (!batchOpen()) {
      PooledStorageManager::release(block);
      return;
    }
    CUevent e = recordOnThreadStream(device().id);
    std::lock_guard<std::mutex> lock(pendingMu_);
    pending_.push_back({block, e});
  }

  Storage allocate(size_t bytes) override {
    reclaim(/*wait=*/false);
    try {
      return PooledStorageManager::allocate(bytes);
    } catch (const OutOfMemoryError &) {
      // Blocks released on streams still running: wait for them, then try
      // again.
      if (!reclaim(/*wait=*/true))
        throw;
      return PooledStorageManager::allocate(bytes);
    }
  }

  void releaseCached() override {
    reclaim(/*wait=*/false);
    PooledStorageManager::releaseCached();
  }

private:
  static bool batchOpen();

  /// Gives back the pending blocks whose stream has passed their release
  /// (all of them, waiting for the streams, with `wait`); whether any was.
  bool reclaim(bool wait) {
    std::vector<std::pair<Storage, CUevent>> ready;
    {
      std::lock_guard<std::mutex> lock(pendingMu_);
      if (pending_.empty())
        return false;
      const Driver &d = bind(device().id);
      for (size_t i = 0; i < pending_.size();) {
        CUresult r = wait ? d.cuEventSynchronize(pending_[i].second)
                          : d.cuEventQuery(pending_[i].second);
        if (r == CUDA_ERROR_NOT_READY) {
          ++i;
          continue;
        }
        // Passed (or the device failed, and nothing runs on it any more).
        ready.push_back(pending_[i]);
        pending_[i] = pending_.back();
        pending_.pop_back();
      }
    }
    for (auto &[block, e] : ready) {
      giveEventBack(device().id, e);
      PooledStorageManager::release(block);
    }
    return !ready.empty();
  }

  std::mutex pendingMu_;
  std::vector<std::pair<Storage, CUevent>> pending_; // guarded by pendingMu_

  void *rawAllocate(size_t capacity) override {
    const Driver &d = bind(device().id);
    CUdeviceptr p = 0;
    CUresult r = d.cuMemAlloc(&p, capacity);
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
      return nullptr;
    check(r, ("cuMemAlloc of " + std::to_string(capacity) + " bytes on " + device().str()).c_str());
    return reinterpret_cast<void *>(static_cast<uintptr_t>(p));
  }
  void rawFree(void *p, size_t) override {
    const Driver &d = bind(device().id);
    check(d.cuMemFree(devPtr(p)), "cuMemFree");
  }
};

// From cpu or cpu_pinned memory.
void copyHostToDevice(const void *src, Device, void *dst, Device to, size_t bytes, RunContext) {
  if (!bytes)
    return;
  const Driver &d = bind(to.id);
  CUstream s = threadStream(to.id);
  // From pageable host memory the driver has staged the source when the
  // call returns; from page-locked memory the device reads it while the
  // copy runs. Either way the copy may go on running (in a stream batch):
  // the engine's event on the source's variable keeps host writes to it
  // (CPU operations, waitToWrite, giving the block back) waiting until it
  // is done.
  check(d.cuMemcpyHtoDAsync(devPtr(dst), src, bytes, s), "copy host -> gpu");
  synchronize(to.id);
}

// To host memory. To pageable (cpu) memory the driver call returns when the
// copy is done, and the stream is waited for besides (host code reads the
// destination next). To page-locked (cpu_pinned) memory the copy is
// asynchronous: in a stream batch (an engine operation) it is left running,
// and the event the engine keeps on the destination's variable is what host
// code waits for (CPU operations reading it, waitForVar); outside a batch it
// is waited for.
void copyDeviceToHost(const void *src, Device from, void *dst, Device to, size_t bytes,
                      RunContext) {
  if (!bytes)
    return;
  const Driver &d = bind(from.id);
  CUstream s = threadStream(from.id);
  const bool pinned = to.kind == Device::Kind::CPUPinned;
  check(d.cuMemcpyDtoHAsync(dst, devPtr(src), bytes, s),
        pinned ? "copy gpu -> cpu_pinned" : "copy gpu -> host");
  if (pinned)
    synchronize(from.id);
  else
    synchronizeNow(from.id);
}

// cpu_pinned(i): page-locked host memory (cuMemHostAlloc, portable: a copy
// from or to it on any device's stream is asynchronous), pooled as every
// device's memory (page-locking is slow: MXNet's pinned storage allocated
// and freed each block). cuMemHostAlloc needs a context: gpu(i)'s.
class PinnedStorageManager final : public detail::PooledStorageManager {
public:
  explicit PinnedStorageManager(Device device)
      : PooledStorageManager(device, size_t(1) << 30) {}
  ~PinnedStorageManager() override { releaseCached(); }

private:
  void *rawAllocate(size_t capacity) override {
    const Driver &d = bind(device().id);
    void *p = nullptr;
    CUresult r = d.cuMemHostAlloc(&p, capacity, CU_MEMHOSTALLOC_PORTABLE);
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
      return nullptr; // the pool frees its cache and tries again
    check(r, "cuMemHostAlloc");
    return p;
  }
  void rawFree(void *p, size_t) override {
    // (on whatever thread gives the block back: the engine's; a context
    // current first, as for every driver call)
    const Driver &d = bind(device().id);
    check(d.cuMemFreeHost(p), "cuMemFreeHost");
  }
};

// Within one device, or between two under unified addressing (every 64-bit
// Linux driver): the driver routes it.
void copyDeviceToDevice(const void *src, Device, void *dst, Device to, size_t bytes, RunContext) {
  if (!bytes)
    return;
  const Driver &d = bind(to.id);
  CUstream s = threadStream(to.id);
  check(d.cuMemcpyDtoDAsync(devPtr(dst), devPtr(src), bytes, s), "copy gpu -> gpu");
  synchronize(to.id);
}

// NDArray::fill on gpu(i): a memset of the device on the thread's stream
// (8-byte patterns as two 4-byte columns of pitch 8 unless both halves
// agree).
void fillDevice(void *dst, Device dev, size_t bytes, uint64_t pattern, unsigned width,
                RunContext) {
  const Driver &d = bind(dev.id);
  CUstream s = threadStream(dev.id);
  CUdeviceptr p = devPtr(dst);
  const char *what = "fill on the GPU";
  switch (width) {
  case 1:
    check(d.cuMemsetD8Async(p, static_cast<unsigned char>(pattern), bytes, s), what);
    break;
  case 2:
    check(d.cuMemsetD16Async(p, static_cast<unsigned short>(pattern), bytes / 2, s), what);
    break;
  case 4:
    check(d.cuMemsetD32Async(p, static_cast<unsigned>(pattern), bytes / 4, s), what);
    break;
  default: {
    unsigned lo = static_cast<unsigned>(pattern), hi = static_cast<unsigned>(pattern >> 32);
    if (lo == hi) {
      check(d.cuMemsetD32Async(p, lo, bytes / 4, s), what);
      break;
    }
    check(d.cuMemsetD2D32Async(p, 8, lo, 1, bytes / 8, s), what);
    check(d.cuMemsetD2D32Async(p + 4, 8, hi, 1, bytes / 8, s), what);
    break;
  }
  }
  synchronize(dev.id);
}

// Storage, copiers and the filler for gpu(i), registered when the runtime loads. Nothing
// here touches the driver: that happens at the first gpu array.
const bool kRegistered = [] {
  registerStorageFactory(Device::Kind::GPU, [](Device dev) -> std::unique_ptr<StorageManager> {
    requireDevice(dev.id);
    return std::make_unique<GPUStorageManager>(dev);
  });
  registerCopier(Device::Kind::CPU, Device::Kind::GPU, copyHostToDevice, FnProperty::CopyToGPU,
                 /*runOnDestination=*/true);
  registerCopier(Device::Kind::GPU, Device::Kind::CPU, copyDeviceToHost,
                 FnProperty::CopyFromGPU, /*runOnDestination=*/false);
  registerCopier(Device::Kind::GPU, Device::Kind::GPU, copyDeviceToDevice, FnProperty::Normal,
                 /*runOnDestination=*/true);
  // cpu_pinned(i): page-locked where there is a GPU; without one, ordinary
  // host memory (storage.cc's factory, as an MXNet built without CUDA).
  registerStorageFactory(Device::Kind::CPUPinned,
                         [](Device dev) -> std::unique_ptr<StorageManager> {
                           if (deviceCount() == 0)
                             return createCPUStorageManager(dev);
                           try {
                             requireDevice(dev.id);
                           } catch (const Error &e) {
                             throw Error(dev.str() + " is host memory page-locked for gpu(" +
                                         std::to_string(dev.id) + "): " + e.what());
                           }
                           return std::make_unique<PinnedStorageManager>(dev);
                         });
  registerCopier(Device::Kind::CPUPinned, Device::Kind::GPU, copyHostToDevice,
                 FnProperty::CopyToGPU, /*runOnDestination=*/true);
  registerCopier(Device::Kind::GPU, Device::Kind::CPUPinned, copyDeviceToHost,
                 FnProperty::CopyFromGPU, /*runOnDestination=*/false);
  registerFiller(Device::Kind::GPU, fillDevice);
  return true;
}();

} // namespace

bool builtWithCuda() { return true; }

bool deviceMemoryIsHostMemory(int id) {
  const Driver *d = tryDriver();
  return d && d->hostMemory && id >= 0 && id < d->deviceCount;
}

int deviceCount() {
  const Driver *d = tryDriver();
  return d ? d->deviceCount : 0;
}

std::string unavailableReason() {
  if (!tryDriver())
    return driverUnavailableReason();
  return deviceCount() == 0 ? "the CUDA driver reports no GPU" : "";
}

void requireDevice(int id) {
  std::string dev = "gpu(" + std::to_string(id) + ")";
  if (!tryDriver())
    throw Error(dev + " is not available: no CUDA driver: " + cuda::driverUnavailableReason());
  int n = deviceCount();
  if (id < 0 || id >= n)
    throw Error(dev + " does not exist: this machine has " + std::to_string(n) +
                (n == 1 ? " GPU" : " GPUs"));
}

int driverVersion() {
  const Driver *d = tryDriver();
  return d ? d->version : 0;
}

std::string deviceName(int id) {
  DeviceState &s = deviceState(id);
  char name[256] = {0};
  check(driver().cuDeviceGetName(name, sizeof name - 1, s.dev), "cuDeviceGetName");
  return name;
}

int computeCapability(int id) {
  DeviceState &s = deviceState(id);
  const Driver &d = driver();
  int major = 0, minor = 0;
  check(d.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, s.dev),
        "cuDeviceGetAttribute");
  check(d.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, s.dev),
        "cuDeviceGetAttribute");
  return major * 10 + minor;
}

void memoryInfo(int id, size_t *freeBytes, size_t *totalBytes) {
  const Driver &d = bind(id);
  size_t f = 0, t = 0;
  check(d.cuMemGetInfo(&f, &t), "cuMemGetInfo");
  if (freeBytes)
    *freeBytes = f;
  if (totalBytes)
    *totalBytes = t;
}

namespace {
/// The stream batch of this thread (a bulk run of a GPU plan,
/// mxc_cuda_stream_batch_begin / _finish below): nesting depth and the
/// devices whose stream has unwaited work.
thread_local int tlsBatchDepth = 0;
thread_local std::vector<int> tlsBatchDevices;
thread_local std::string tlsBatchError;

void openBatch() { ++tlsBatchDepth; }
/// Closes the innermost batch; the devices whose stream has unwaited work
/// when it was the outermost (else none: an enclosing batch waits).
std::vector<int> closeBatch() {
  std::vector<int> devices;
  if (tlsBatchDepth > 0 && --tlsBatchDepth == 0)
    devices.swap(tlsBatchDevices);
  return devices;
}
} // namespace

void synchronizeNow(int id) {
  const Driver &d = bind(id);
  check(d.cuStreamSynchronize(threadStream(id)), "cuStreamSynchronize");
}

bool deferSynchronize(int id) {
  if (tlsBatchDepth == 0)
    return false;
  if (std::find(tlsBatchDevices.begin(), tlsBatchDevices.end(), id) == tlsBatchDevices.end())
    tlsBatchDevices.push_back(id);
  return true;
}

void synchronize(int id) {
  if (!deferSynchronize(id))
    synchronizeNow(id);
}

bool GPUStorageManager::batchOpen() { return tlsBatchDepth > 0; }

namespace {

/// An engine operation's end on the streams it used (engine/gpu_sync.h): a
/// CUevent recorded on each.
class CudaEvent final : public detail::GpuEvent {
public:
  struct Mark {
    int device;
    CUstream stream;
    CUevent event;
  };
  explicit CudaEvent(std::string opName) : GpuEvent(std::move(opName)) {}
  ~CudaEvent() override {
    for (const Mark &m : marks)
      giveEventBack(m.device, m.event);
  }

  std::string hostWait() const override {
    try {
      for (const Mark &m : marks)
        check(bind(m.device).cuEventSynchronize(m.event), "cuEventSynchronize");
    } catch (const std::exception &e) {
      return e.what();
    }
    return "";
  }

  bool covers(const GpuEvent &earlier) const override {
    for (const Mark &e : static_cast<const CudaEvent &>(earlier).marks)
      if (std::none_of(marks.begin(), marks.end(),
                       [&](const Mark &m) { return m.stream == e.stream; }))
        return false;
    return true;
  }

  std::vector<Mark> marks;
};

/// What the threaded engine calls around a GPU operation.
class CudaStreamSync final : public detail::GpuStreamSync {
public:
  void begin() override { openBatch(); }

  void streamWait(int device, const detail::GpuEvent &event) override {
    const Driver &d = bind(device);
    CUstream mine = threadStream(device);
    for (const CudaEvent::Mark &m : static_cast<const CudaEvent &>(event).marks)
      if (m.stream != mine) // a stream runs in order: nothing to wait for
        check(d.cuStreamWaitEvent(mine, m.event, 0),
              ("waiting for operation '" + event.opName() + "' on the GPU").c_str());
  }

  detail::GpuEventPtr end(int device, bool hostComplete, const std::string &opName) override {
    std::vector<int> devices = closeBatch();
    // The operation's own device whenever the thread has a stream there: it
    // may have launched work without saying so (a kernel launch not followed
    // by cuda::synchronize), or its stream waited for events before it. A
    // thread without one has done nothing on the device (an engine test's
    // operation on a gpu lane of a machine without a GPU).
    if (std::find(devices.begin(), devices.end(), device) == devices.end() &&
        existingThreadStream(device))
      devices.push_back(device);
    if (devices.empty())
      return nullptr;
    if (hostComplete) {
      for (int id : devices)
        synchronizeNow(id);
      return nullptr;
    }
    auto event = std::make_shared<CudaEvent>(opName);
    for (int id : devices)
      event->marks.push_back({id, threadStream(id), recordOnThreadStream(id)});
    return event;
  }

  std::string synchronizeAll() override {
    StreamRegistry &r = streamRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    std::string first;
    for (const auto &[id, stream] : r.streams) {
      try {
        check(bind(id).cuStreamSynchronize(stream), "cuStreamSynchronize");
      } catch (const std::exception &e) {
        if (first.empty())
          first = e.what();
      }
    }
    return first;
  }
};

const bool kStreamSyncRegistered = [] {
  static CudaStreamSync sync;
  detail::setGpuStreamSync(&sync);
  return true;
}();

} // namespace

} // namespace mxc::runtime::cuda

// Bulk execution of a GPU plan (Executor::run()): between begin and finish,
// the calling thread's GPU operations (the generated steps, the cuBLAS /
// cuDNN kernels: everything that ends with synchronize() or the steps'
// stream synchronisation) leave the thread's stream running instead of
// waiting for it after each operation; they stay ordered, one stream a
// thread and device. finish waits for the streams once and returns nullptr,
// or what the device reports then (a kernel's fault shows there, not at its
// step). As MXNet's bulk execution: one synchronisation a run instead of one
// a step. The executor calls these through weak references (executor.cc),
// so that a runtime linked without this file (every CPU model executable:
// libmxc_model_rt.a's members are linked only if referenced) does not pull
// the driver in.
extern "C" MXC_RUNTIME_API void mxc_cuda_stream_batch_begin(void) {
  mxc::runtime::cuda::openBatch();
}

extern "C" MXC_RUNTIME_API const char *mxc_cuda_stream_batch_finish(void) {
  using namespace mxc::runtime::cuda;
  std::vector<int> devices = closeBatch(); // none: an enclosing batch waits
  try {
    for (int id : devices)
      synchronizeNow(id);
  } catch (const std::exception &e) {
    tlsBatchError = e.what();
    return tlsBatchError.c_str();
  }
  return nullptr;
}

namespace mxc::runtime::cuda {

struct Module::Impl {
  int device = 0;
  CUmodule module = nullptr;
  mutable std::mutex mu;
  mutable std::unordered_map<std::string, CUfunction> functions;

  CUfunction function(const std::string &name, bool mustExist) const {
    std::lock_guard<std::mutex> lock(mu);
    auto it = functions.find(name);
    if (it != functions.end())
      return it->second;
    const Driver &d = bind(device);
    CUfunction f = nullptr;
    CUresult r = d.cuModuleGetFunction(&f, module, name.c_str());
    if (r == CUDA_ERROR_NOT_FOUND) {
      if (mustExist)
        throw Error("GPU module has no kernel '" + name + "'");
      return nullptr;
    }
    check(r, ("cuModuleGetFunction '" + name + "'").c_str());
    return functions[name] = f;
  }
};

Module::Module(int device, const std::string &ptx) : impl_(std::make_unique<Impl>()) {
  impl_->device = device;
  const Driver &d = bind(device);
  // The driver wants NUL-terminated PTX: std::string's c_str() is.
  check(d.cuModuleLoadData(&impl_->module, ptx.c_str()),
        ("loading PTX on gpu(" + std::to_string(device) + ")").c_str());
}

Module::~Module() {
  if (impl_ && impl_->module)
    if (const Driver *d = tryDriver()) {
      bind(impl_->device);
      d->cuModuleUnload(impl_->module);
    }
}

Module::Module(Module &&) noexcept = default;
Module &Module::operator=(Module &&) noexcept = default;

bool Module::hasKernel(const std::string &name) const {
  return impl_->function(name, false) != nullptr;
}

void Module::launch(const std::string &name, const unsigned grid[3], const unsigned block[3],
                    const std::vector<void *> &args, unsigned sharedBytes) const {
  CUfunction f = impl_->function(name, true);
  const Driver &d = bind(impl_->device);
  check(d.cuLaunchKernel(f, grid[0], grid[1], grid[2], block[0], block[1], block[2], sharedBytes,
                         threadStream(impl_->device), const_cast<void **>(args.data()), nullptr),
        ("launching kernel '" + name + "'").c_str());
}

int Module::device() const { return impl_->device; }

} // namespace mxc::runtime::cuda
