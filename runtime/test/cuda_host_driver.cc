// cuda_host_driver.cc - a test double of the CUDA driver API over host
// memory, for machines without a GPU (these, and CI). It is loaded in place
// of libcuda.so.1 with MXC_CUDA_DRIVER=path/libmxc-cuda-host-driver.so and
// gives the runtime one "GPU" (or more, below) whose memory is host memory
// (malloc), whose copies and memsets are memcpy / memset done at once (every
// stream is synchronous unless MXC_HOST_DRIVER_ASYNC_US is set, below), and
// which runs no kernels: modules load, but cuLaunchKernel fails with
// CUDA_ERROR_NOT_SUPPORTED ("the host driver double runs no kernels (a
// launch on gpu(i))", naming the device it was launched on), so a launch
// of generated code, cuBLAS or cuDNN fails with a one-line error.
//
// Contexts are kept as on a GPU: each thread has a current one
// (cuCtxSetCurrent); a stream, an event and a module belong to the device
// whose context was current when they were made; a launch, a copy or a
// memset on a stream of another device than the current context's, an
// event recorded on another device's stream, a kernel of a module loaded on
// another device, is CUDA_ERROR_INVALID_HANDLE (as strict as the driver, or
// stricter: every call the runtime makes binds the stream's device), and
// any of these with no current context is CUDA_ERROR_INVALID_CONTEXT.
//
// What it checks: the runtime's and the Python front end's plumbing around
// gpu(i) — device arrays, the caching pool and OOM, cpu<->gpu<->gpu copies
// as engine operations, compiling an operator for the GPU and reaching its
// launch — never GPU numerics or speed (scripts/gpu-check.sh on a lent GPU
// does that). A host pointer passed where a device pointer belongs goes
// unnoticed here, which is why gpu-check exists.
//
// MXC_HOST_DRIVER_MEMORY (bytes, default 16 GiB) is the device's size: an
// allocation past it is CUDA_ERROR_OUT_OF_MEMORY.
//
// MXC_HOST_DRIVER_DEVICES=N: N "GPUs" (1 to 8, default 1) over the same host
// memory; copies between them are plain copies (unified addressing).
//
// MXC_HOST_DRIVER_ASYNC_US=N: streams are asynchronous, as a GPU's: each
// stream has a thread that runs its copies, memsets and event waits in
// order, N microseconds after the previous one, while the caller goes on
// (a copy from host memory stages its source first, a copy to host memory
// returns when done, as from pageable memory on a GPU; cuMemFree waits for
// every stream). Events mark a point of a stream; cuStreamWaitEvent makes a
// stream wait for one. Work on two streams without an event between them
// then runs in whatever order the threads take, as on a device, so a
// missing cross-stream dependency shows as a wrong result (the runtime's
// stream and event tests run this way). Unset: everything happens at once.
//
// MXC_HOST_DRIVER_OPAQUE=1: the device pointers handed out have bit 62 set
// (a non-canonical address: reading or writing it on the host is SIGSEGV);
// this double's own functions clear it. Host code that touches device
// memory -- a bug on a real GPU, which plain host memory would hide --
// then crashes here. The runtime is told the memory is not host memory
// (cuda::deviceMemoryIsHostMemory is false).
#include <cuda.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace {

constexpr uintptr_t kOpaqueBit = uintptr_t(1) << 62;
bool gOpaque = false; // set by cuInit from MXC_HOST_DRIVER_OPAQUE

std::mutex gMutex;
// address -> bytes. Never destroyed, and reachable from a global: the
// opaque mode's device pointers have bit 62 set, so the runtime's pool (which
// keeps blocks past exit) holds no address LeakSanitizer recognises; these
// keys are what keeps the blocks reachable.
std::unordered_map<uintptr_t, size_t> &gBlocks = *new std::unordered_map<uintptr_t, size_t>;
size_t gInUse = 0;
// Page-locked host blocks (cuMemHostAlloc): address -> bytes. A copy from
// or to one is asynchronous, as on a GPU (never staged, never waited for).
std::unordered_map<uintptr_t, size_t> &gPinned = *new std::unordered_map<uintptr_t, size_t>;
int gContextTags[8] = {}; // device i's primary context's handle points at [i]
bool gInitialised = false;
thread_local int tlsCurrentDevice = -1; // whose context is current (-1: none)
// The device of the last refused launch on this thread (its error text).
thread_local int tlsRefusedLaunchDevice = -1;

// MXC_HOST_DRIVER_DEVICES (1 to 8, default 1): how many "GPUs" there are
// (all over the one host memory, sharing MXC_HOST_DRIVER_MEMORY).
int deviceCount() {
  static const int n = [] {
    const char *s = std::getenv("MXC_HOST_DRIVER_DEVICES");
    long v = s && *s ? std::strtol(s, nullptr, 10) : 1;
    return int(v < 1 ? 1 : v > 8 ? 8 : v);
  }();
  return n;
}

size_t memoryLimit() {
  static const size_t limit = [] {
    const char *s = std::getenv("MXC_HOST_DRIVER_MEMORY");
    if (s && *s)
      return size_t(std::strtoull(s, nullptr, 10));
    return size_t(16) << 30;
  }();
  return limit;
}

// MXC_HOST_DRIVER_ASYNC_US: -1 (unset) for synchronous streams, else the
// delay before each stream operation.
long asyncDelayUs() {
  static const long us = [] {
    const char *s = std::getenv("MXC_HOST_DRIVER_ASYNC_US");
    return s && *s ? std::strtol(s, nullptr, 10) : -1L;
  }();
  return us;
}

// A stream: operations run in order, on its own thread when asynchronous.
// `completed` counts the operations done; a point of the stream is a count.
struct Stream {
  int device = -1; // whose context was current when it was made
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::function<void()>> queue; // guarded by mu
  uint64_t enqueued = 0, completed = 0;    // guarded by mu
  bool stop = false;                       // guarded by mu
  const bool async = asyncDelayUs() >= 0;
  std::thread worker;

  Stream() {
    if (async)
      worker = std::thread([this] { loop(); });
  }
  // Runs what is queued, then stops the thread. The stream itself is never
  // freed: an event recorded on it may still be asked about, as on a GPU.
  void destroy() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
    }
    cv.notify_all();
    if (async)
      worker.join();
  }
  void loop() {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return stop || !queue.empty(); });
      if (queue.empty())
        return; // stopping, nothing left
      std::function<void()> op = std::move(queue.front());
      queue.pop_front();
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::microseconds(asyncDelayUs()));
      op();
      lock.lock();
      ++completed;
      cv.notify_all();
    }
  }
  // Runs `op` after everything queued before it; returns its point.
  uint64_t enqueue(std::function<void()> op) {
    std::unique_lock<std::mutex> lock(mu);
    if (!async || stop) {
      lock.unlock();
      op();
      lock.lock();
      ++completed;
      return ++enqueued;
    }
    queue.push_back(std::move(op));
    cv.notify_all();
    return ++enqueued;
  }
  uint64_t point() {
    std::lock_guard<std::mutex> lock(mu);
    return enqueued;
  }
  bool reached(uint64_t at) {
    std::lock_guard<std::mutex> lock(mu);
    return completed >= at;
  }
  void waitFor(uint64_t at) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return completed >= at; });
  }
};

// Every stream ever created, destroyed ones included (an event may still
// point into one; kept reachable, never freed), so that cuMemFree can wait
// for all of them.
std::mutex gStreamsMutex;
std::vector<Stream *> &allStreams() {
  static auto *streams = new std::vector<Stream *>;
  return *streams;
}

void drainAllStreams() {
  std::lock_guard<std::mutex> lock(gStreamsMutex);
  for (Stream *s : allStreams())
    s->waitFor(s->point());
}

// An event: a point of one stream (none: never recorded, complete).
struct Event {
  int device = -1; // whose context was current when it was made
  std::mutex mu;
  Stream *stream = nullptr;
  uint64_t at = 0;
  std::chrono::steady_clock::time_point time;
  std::pair<Stream *, uint64_t> mark() {
    std::lock_guard<std::mutex> lock(mu);
    return {stream, at};
  }
};

// The host address of device pointer p (opaque mode: bit 62 cleared).
void *hostOf(CUdeviceptr p) { return reinterpret_cast<void *>(uintptr_t(p) & ~kOpaqueBit); }

// Host pointers stand for device pointers; a copy is legal only inside a
// block this double allocated (checked: a wild address is an error, as the
// real driver's CUDA_ERROR_INVALID_VALUE).
bool owned(CUdeviceptr dp, size_t bytes) {
  uintptr_t p = uintptr_t(hostOf(dp));
  std::lock_guard<std::mutex> lock(gMutex);
  for (const auto &[base, size] : gBlocks)
    if (p >= base && p + bytes <= base + size)
      return true;
  return bytes == 0;
}

// Whether host range [p, p + bytes) lies in one page-locked block.
bool pinned(const void *p, size_t bytes) {
  uintptr_t a = uintptr_t(p);
  std::lock_guard<std::mutex> lock(gMutex);
  for (const auto &[base, size] : gPinned)
    if (a >= base && a + bytes <= base + size)
      return true;
  return false;
}

// The errors this double returns: code, name, text.
struct ErrorInfo {
  CUresult code;
  const char *name, *text;
};
constexpr ErrorInfo kErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument (host driver double)"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory (host driver double)"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "the host driver double runs no kernels"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE",
     "invalid resource handle (host driver double: a stream, event or kernel of another device "
     "than the current context's)"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
};

const ErrorInfo *errorInfo(CUresult r) {
  for (const ErrorInfo &e : kErrors)
    if (e.code == r)
      return &e;
  return nullptr;
}

// The stream of a call (the null stream: at once, as synchronous).
Stream *streamOf(CUstream s) { return reinterpret_cast<Stream *>(s); }

// Whether work may go on stream `s` from this thread: a context is current
// and `s` (unless the null stream) is its device's.
CUresult checkStream(CUstream s) {
  if (tlsCurrentDevice < 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  return s && streamOf(s)->device != tlsCurrentDevice ? CUDA_ERROR_INVALID_HANDLE
                                                      : CUDA_SUCCESS;
}

// A loaded module and the kernels looked up in it (freed with it).
struct Function;
struct Module {
  int device = -1;
  std::string ptx; // a copy of the image, when it is PTX text
  std::vector<std::unique_ptr<Function>> functions;
};
struct Function {
  Module *module;
};
void run(CUstream s, std::function<void()> op) {
  if (s)
    streamOf(s)->enqueue(std::move(op));
  else
    op();
}

// Sets elements of type T: `height` rows of `width` elements, `pitch` bytes
// apart (the 1-D forms: one row).
template <typename T>
CUresult memsetElements(CUdeviceptr dst, size_t pitch, T value, size_t width, size_t height,
                        CUstream s) {
  if (!width || !height)
    return CUDA_SUCCESS;
  if (CUresult r = checkStream(s))
    return r;
  if (pitch < width * sizeof(T) || !owned(dst, pitch * (height - 1) + width * sizeof(T)))
    return CUDA_ERROR_INVALID_VALUE;
  run(s, [d = static_cast<char *>(hostOf(dst)), pitch, value, width, height] {
    for (size_t r = 0; r < height; ++r)
      for (size_t c = 0; c < width; ++c)
        std::memcpy(d + r * pitch + c * sizeof(T), &value, sizeof(T));
  });
  return CUDA_SUCCESS;
}

} // namespace

extern "C" {

// Tells the runtime that this is the double and its device memory is host
// memory (cuda::deviceMemoryIsHostMemory).
// (0 in opaque mode: read by the runtime after cuInit)
__attribute__((visibility("default"))) int mxcCudaDriverDoubleHostMemory = 1;

// Whether [p, p + bytes) is page-locked memory of this double (the tests'
// check that cpu_pinned arrays come from cuMemHostAlloc).
__attribute__((visibility("default"))) int mxcCudaDriverDoubleIsPinned(const void *p,
                                                                        size_t bytes) {
  return pinned(p, bytes) ? 1 : 0;
}

CUresult CUDAAPI cuInit(unsigned int) {
  const char *opaque = std::getenv("MXC_HOST_DRIVER_OPAQUE");
  gOpaque = opaque && std::strcmp(opaque, "1") == 0;
  mxcCudaDriverDoubleHostMemory = gOpaque ? 0 : 1;
  gInitialised = true;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDriverGetVersion(int *v) {
  *v = 13000;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetErrorName(CUresult r, const char **name) {
  const ErrorInfo *e = errorInfo(r);
  *name = e ? e->name : nullptr;
  return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGetErrorString(CUresult r, const char **text) {
  const ErrorInfo *e = errorInfo(r);
  *text = e ? e->text : nullptr;
  if (r == CUDA_ERROR_NOT_SUPPORTED && tlsRefusedLaunchDevice >= 0) {
    thread_local std::string refused;
    refused = std::string(e->text) + " (a launch on gpu(" +
              std::to_string(tlsRefusedLaunchDevice) + "))";
    *text = refused.c_str();
  }
  return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuDeviceGetCount(int *n) {
  *n = gInitialised ? deviceCount() : 0;
  return gInitialised ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *d, int ordinal) {
  if (ordinal < 0 || ordinal >= deviceCount())
    return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice) {
  std::strncpy(name, "mxc host driver double (no kernels)", size_t(len));
  if (len > 0)
    name[len - 1] = '\0';
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetAttribute(int *value, CUdevice_attribute attr, CUdevice) {
  switch (attr) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 1; break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; break;
  default: *value = 0; break;
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceTotalMem(size_t *bytes, CUdevice) {
  *bytes = memoryLimit();
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev) {
  if (dev < 0 || dev >= deviceCount())
    return CUDA_ERROR_INVALID_DEVICE;
  *ctx = reinterpret_cast<CUcontext>(&gContextTags[dev]);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
  if (!ctx) {
    tlsCurrentDevice = -1;
    return CUDA_SUCCESS;
  }
  int *tag = reinterpret_cast<int *>(ctx);
  if (tag < gContextTags || tag >= gContextTags + deviceCount())
    return CUDA_ERROR_INVALID_CONTEXT;
  tlsCurrentDevice = int(tag - gContextTags);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAlloc(CUdeviceptr *p, size_t bytes) {
  std::lock_guard<std::mutex> lock(gMutex);
  if (bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (bytes > memoryLimit() - gInUse)
    return CUDA_ERROR_OUT_OF_MEMORY;
  void *m = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!m)
    return CUDA_ERROR_OUT_OF_MEMORY;
  gBlocks[uintptr_t(m)] = bytes;
  gInUse += bytes;
  *p = CUdeviceptr(uintptr_t(m) | (gOpaque ? kOpaqueBit : 0));
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFree(CUdeviceptr dp) {
  // As cudaFree: nothing queued may still use the memory.
  drainAllStreams();
  void *p = hostOf(dp);
  std::lock_guard<std::mutex> lock(gMutex);
  auto it = gBlocks.find(uintptr_t(p));
  if (it == gBlocks.end())
    return CUDA_ERROR_INVALID_VALUE;
  gInUse -= it->second;
  gBlocks.erase(it);
  std::free(p);
  return CUDA_SUCCESS;
}

// Page-locked host memory: host memory here, remembered so that copies
// from and to it are asynchronous. Needs a current context, as the driver.
CUresult CUDAAPI cuMemHostAlloc(void **p, size_t bytes, unsigned int) {
  if (tlsCurrentDevice < 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  void *m = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
  if (!m)
    return CUDA_ERROR_OUT_OF_MEMORY;
  std::lock_guard<std::mutex> lock(gMutex);
  gPinned[uintptr_t(m)] = bytes;
  *p = m;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFreeHost(void *p) {
  // As cudaFreeHost: nothing queued may still use the memory.
  drainAllStreams();
  std::lock_guard<std::mutex> lock(gMutex);
  auto it = gPinned.find(uintptr_t(p));
  if (it == gPinned.end())
    return CUDA_ERROR_INVALID_VALUE;
  gPinned.erase(it);
  std::free(p);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemGetInfo(size_t *freeBytes, size_t *total) {
  std::lock_guard<std::mutex> lock(gMutex);
  *total = memoryLimit();
  *freeBytes = memoryLimit() - gInUse;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes, CUstream s) {
  if (CUresult r = checkStream(s))
    return r;
  if (!owned(dst, bytes))
    return CUDA_ERROR_INVALID_VALUE;
  if (bytes && s && pinned(src, bytes)) {
    // From page-locked memory: read while the copy runs (the caller must
    // not write it before the stream has passed the copy).
    run(s, [src, d = hostOf(dst), bytes] { std::memcpy(d, src, bytes); });
  } else if (bytes) {
    // Staged now: the caller may reuse its host memory at once.
    auto staged = std::make_shared<std::vector<char>>(static_cast<const char *>(src),
                                                      static_cast<const char *>(src) + bytes);
    run(s, [staged, d = hostOf(dst)] { std::memcpy(d, staged->data(), staged->size()); });
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream s) {
  if (CUresult r = checkStream(s))
    return r;
  if (!owned(src, bytes))
    return CUDA_ERROR_INVALID_VALUE;
  if (bytes && s && pinned(dst, bytes)) {
    // To page-locked memory: asynchronous (the caller waits for the stream
    // or an event before it reads the destination).
    run(s, [dst, sp = hostOf(src), bytes] { std::memcpy(dst, sp, bytes); });
  } else if (bytes) {
    // To pageable host memory: returns once the copy is done.
    if (s) {
      uint64_t at = streamOf(s)->enqueue([dst, sp = hostOf(src), bytes] { std::memcpy(dst, sp, bytes); });
      streamOf(s)->waitFor(at);
    } else {
      std::memcpy(dst, hostOf(src), bytes);
    }
  }
  return CUDA_SUCCESS;
}

// Unified addressing: either side host or device memory (the generated
// code's copy of a constant global into a device buffer). A device side must
// lie in a block of this double; from host memory the source is staged, as
// from pageable memory on a GPU.
CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s) {
  if (CUresult r = checkStream(s))
    return r;
  bool dstDevice = owned(dst, bytes), srcDevice = owned(src, bytes);
  if (!dstDevice && !srcDevice && bytes)
    return CUDA_ERROR_INVALID_VALUE; // (host to host is not what it is for)
  // A device pointer (opaque: bit 62) outside every block is wild.
  if (gOpaque && bytes && (((uintptr_t(dst) & kOpaqueBit) && !dstDevice) ||
                           ((uintptr_t(src) & kOpaqueBit) && !srcDevice)))
    return CUDA_ERROR_INVALID_VALUE;
  if (!bytes)
    return CUDA_SUCCESS;
  if (srcDevice) { // read in stream order
    run(s, [d = hostOf(dst), sp = hostOf(src), bytes] { std::memmove(d, sp, bytes); });
  } else {
    auto staged = std::make_shared<std::vector<char>>(static_cast<const char *>(hostOf(src)),
                                                      static_cast<const char *>(hostOf(src)) + bytes);
    run(s, [staged, d = hostOf(dst)] { std::memcpy(d, staged->data(), staged->size()); });
  }
  if (!dstDevice && s) // to host memory: done when the call returns
    streamOf(s)->waitFor(streamOf(s)->point());
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s) {
  if (CUresult r = checkStream(s))
    return r;
  if (!owned(dst, bytes) || !owned(src, bytes))
    return CUDA_ERROR_INVALID_VALUE;
  if (bytes)
    run(s, [d = hostOf(dst), sp = hostOf(src), bytes] { std::memmove(d, sp, bytes); });
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t n, CUstream s) {
  if (CUresult r = checkStream(s))
    return r;
  if (!owned(dst, n))
    return CUDA_ERROR_INVALID_VALUE;
  if (n)
    run(s, [d = hostOf(dst), value, n] { std::memset(d, value, n); });
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t n, CUstream s) {
  return memsetElements(dst, n * 2, value, n, 1, s);
}

CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t n, CUstream s) {
  return memsetElements(dst, n * 4, value, n, 1, s);
}

CUresult CUDAAPI cuMemsetD2D32Async(CUdeviceptr dst, size_t pitch, unsigned int value,
                                    size_t width, size_t height, CUstream s) {
  return memsetElements(dst, pitch, value, width, height, s);
}

CUresult CUDAAPI cuStreamCreate(CUstream *s, unsigned int) {
  if (tlsCurrentDevice < 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  auto *stream = new (std::nothrow) Stream();
  if (!stream)
    return CUDA_ERROR_OUT_OF_MEMORY;
  stream->device = tlsCurrentDevice;
  {
    std::lock_guard<std::mutex> lock(gStreamsMutex);
    allStreams().push_back(stream);
  }
  *s = reinterpret_cast<CUstream>(stream);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamSynchronize(CUstream s) {
  if (s)
    streamOf(s)->waitFor(streamOf(s)->point());
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamDestroy(CUstream s) {
  if (!s)
    return CUDA_ERROR_INVALID_VALUE;
  streamOf(s)->destroy();
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamWaitEvent(CUstream s, CUevent e, unsigned int) {
  auto [on, at] = reinterpret_cast<Event *>(e)->mark();
  if (on)
    run(s, [on = on, at = at] { on->waitFor(at); });
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventCreate(CUevent *e, unsigned int) {
  if (tlsCurrentDevice < 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  auto *ev = new (std::nothrow) Event{};
  if (!ev)
    return CUDA_ERROR_OUT_OF_MEMORY;
  ev->device = tlsCurrentDevice;
  *e = reinterpret_cast<CUevent>(ev);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventRecord(CUevent e, CUstream s) {
  auto *ev = reinterpret_cast<Event *>(e);
  // (The event and the stream must be of one device.)
  if (s && streamOf(s)->device != ev->device)
    return CUDA_ERROR_INVALID_HANDLE;
  std::lock_guard<std::mutex> lock(ev->mu);
  ev->stream = s ? streamOf(s) : nullptr;
  ev->at = s ? streamOf(s)->point() : 0;
  ev->time = std::chrono::steady_clock::now();
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventQuery(CUevent e) {
  auto [on, at] = reinterpret_cast<Event *>(e)->mark();
  return !on || on->reached(at) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult CUDAAPI cuEventSynchronize(CUevent e) {
  auto [on, at] = reinterpret_cast<Event *>(e)->mark();
  if (on)
    on->waitFor(at);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  *ms = std::chrono::duration<float, std::milli>(reinterpret_cast<Event *>(end)->time -
                                                 reinterpret_cast<Event *>(start)->time)
            .count();
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventDestroy(CUevent e) {
  delete reinterpret_cast<Event *>(e);
  return CUDA_SUCCESS;
}

// A module loads (on the current context's device); its kernels are
// looked up (in PTX text, by name: a missing one is CUDA_ERROR_NOT_FOUND;
// in a cubin, any name); launching one is refused.
CUresult CUDAAPI cuModuleLoadData(CUmodule *m, const void *image) {
  if (tlsCurrentDevice < 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (!image)
    return CUDA_ERROR_INVALID_VALUE;
  auto *module = new (std::nothrow) Module;
  if (!module)
    return CUDA_ERROR_OUT_OF_MEMORY;
  module->device = tlsCurrentDevice;
  const char *text = static_cast<const char *>(image);
  if (std::strncmp(text, "\x7f" "ELF", 4) != 0 && std::strstr(text, ".entry"))
    module->ptx = text; // (the caller may free the image, as on a GPU)
  *m = reinterpret_cast<CUmodule>(module);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  auto *module = reinterpret_cast<Module *>(m);
  if (!module || !name)
    return CUDA_ERROR_INVALID_VALUE;
  if (!module->ptx.empty() && module->ptx.find(std::string(".entry ") + name) == std::string::npos)
    return CUDA_ERROR_NOT_FOUND;
  std::lock_guard<std::mutex> lock(gMutex);
  module->functions.push_back(std::make_unique<Function>(Function{module}));
  *f = reinterpret_cast<CUfunction>(module->functions.back().get());
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleUnload(CUmodule m) {
  if (!m)
    return CUDA_ERROR_INVALID_VALUE;
  delete reinterpret_cast<Module *>(m);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned, unsigned, unsigned, unsigned, unsigned,
                                unsigned, unsigned, CUstream s, void **, void **) {
  if (!f)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = checkStream(s))
    return r;
  if (reinterpret_cast<Function *>(f)->module->device != tlsCurrentDevice)
    return CUDA_ERROR_INVALID_HANDLE;
  tlsRefusedLaunchDevice = tlsCurrentDevice;
  return CUDA_ERROR_NOT_SUPPORTED;
}

} // extern "C"
