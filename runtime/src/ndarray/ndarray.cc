// ndarray.cc - NDArray: chunks of storage with an engine variable, views,
// copies between devices as engine operations, waits.
#include "mxc/runtime/ndarray.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

namespace mxc::runtime {

/// The storage and engine variable shared by an array and its views. The last
/// reference gives the storage back through an engine operation that writes
/// the variable (so after everything pushed on it), then deletes the variable.
struct NDArray::Chunk {
  Storage storage;
  StorageManager *manager = nullptr; ///< null: external memory
  Engine *engine = nullptr;
  VarHandle var = nullptr;
  std::function<void()> release; ///< external memory: run when done

  Chunk() = default;
  Chunk(const Chunk &) = delete;
  Chunk &operator=(const Chunk &) = delete;

  ~Chunk() {
    if (!var)
      return; // never fully made
    try {
      Storage block = storage;
      StorageManager *m = manager;
      // On the CPU the operation deleting the variable gives the memory
      // back (one engine operation; it runs at once on this thread when
      // nothing is pending on the array, else on the engine's async pool).
      if (block.device.isHost()) {
        if (m)
          engine->deleteVar(var, [block, m] { m->release(block); });
        else
          engine->deleteVar(var, std::move(release));
        return;
      }
      if (m)
        engine->pushSync([block, m](RunContext) { m->release(block); },
                         block.device, {}, {var}, FnProperty::Normal, 0, "free storage");
      else if (release)
        engine->pushSync([fn = std::move(release)](RunContext) { fn(); },
                         block.device, {}, {var}, FnProperty::Normal, 0,
                         "release external memory");
      engine->deleteVar(var);
    } catch (...) {
      // The engine refused the operation (it is shutting down): the block is
      // leaked rather than freed under a running operation.
    }
  }
};

namespace {

struct Copier {
  CopyFn fn;
  FnProperty prop = FnProperty::Normal;
  bool runOnDestination = false;
};

// Copiers by (source kind, destination kind). Never destroyed.
struct CopierRegistry {
  std::mutex mu;
  std::map<std::pair<Device::Kind, Device::Kind>, Copier> copiers;
};

CopierRegistry &copiers() {
  static CopierRegistry *r = [] {
    auto *reg = new CopierRegistry;
    // Host to host (cpu and cpu_pinned memory, either way): memmove, as the
    // two ranges may be views of one chunk.
    for (Device::Kind from : {Device::Kind::CPU, Device::Kind::CPUPinned})
      for (Device::Kind to : {Device::Kind::CPU, Device::Kind::CPUPinned})
        reg->copiers[{from, to}] = Copier{
            [](const void *src, Device, void *dst, Device, size_t bytes,
               RunContext) {
              if (bytes)
                std::memmove(dst, src, bytes);
            },
            FnProperty::Normal, false};
    return reg;
  }();
  return *r;
}

Copier findCopier(Device from, Device to) {
  CopierRegistry &r = copiers();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.copiers.find({from.kind, to.kind});
  if (it == r.copiers.end())
    throw Error("no copier from " + from.str() + " to " + to.str());
  return it->second;
}

// Fillers by device kind (NDArray::fill). Never destroyed.
struct FillerRegistry {
  std::mutex mu;
  std::map<Device::Kind, FillFn> fillers;
};

template <typename T> void fillAs(void *dst, size_t bytes, uint64_t pattern) {
  T v;
  std::memcpy(&v, &pattern, sizeof v); // the low bytes (little-endian)
  std::fill_n(static_cast<T *>(dst), bytes / sizeof v, v);
}

FillerRegistry &fillers() {
  static FillerRegistry *r = [] {
    auto *reg = new FillerRegistry;
    FillFn host = [](void *dst, Device, size_t bytes, uint64_t pattern, unsigned width,
                     RunContext) {
      switch (width) {
      case 1: std::memset(dst, int(pattern & 0xff), bytes); break;
      case 2: fillAs<uint16_t>(dst, bytes, pattern); break;
      case 4: fillAs<uint32_t>(dst, bytes, pattern); break;
      default: fillAs<uint64_t>(dst, bytes, pattern); break;
      }
    };
    reg->fillers[Device::Kind::CPU] = host;
    reg->fillers[Device::Kind::CPUPinned] = host;
    return reg;
  }();
  return *r;
}

// Throws Error with `err`'s text if there is one.
void raise(const std::optional<EngineError> &err) {
  if (err)
    throw OperationError(err->str());
}

} // namespace

void registerCopier(Device::Kind from, Device::Kind to, CopyFn fn,
                    FnProperty prop, bool runOnDestination) {
  CopierRegistry &r = copiers();
  std::lock_guard<std::mutex> lock(r.mu);
  r.copiers[{from, to}] = Copier{std::move(fn), prop, runOnDestination};
}

void registerFiller(Device::Kind kind, FillFn fn) {
  FillerRegistry &r = fillers();
  std::lock_guard<std::mutex> lock(r.mu);
  r.fillers[kind] = std::move(fn);
}

NDArray::NDArray() = default;

/// Bytes of an array of `shape` and `dtype`; throws Error for an unknown
/// dtype or a bad shape.
static size_t checkedNumBytes(const Shape &shape, DType dtype) {
  if (dtypeSize(dtype) == 0)
    throw Error("unknown dtype flag " +
                std::to_string(static_cast<int>(dtype)));
  auto bytes = shapeNumBytes(shape, dtype);
  if (!bytes)
    throw Error("bad array shape " + shapeStr(shape));
  return static_cast<size_t>(*bytes);
}

NDArray::NDArray(Shape shape, DType dtype, Device device, Engine *engine)
    : shape_(std::move(shape)), dtype_(dtype) {
  const size_t bytes = checkedNumBytes(shape_, dtype);
  Engine &eng = engine ? *engine : defaultEngine();
  StorageManager &manager = storageManager(device);
  Storage block = manager.allocate(bytes);
  VarHandle var;
  try {
    var = eng.newVar();
  } catch (...) {
    manager.release(block);
    throw;
  }
  // From here the chunk's destructor frees both.
  std::shared_ptr<Chunk> chunk;
  try {
    chunk = std::make_shared<Chunk>();
  } catch (...) {
    eng.deleteVar(var);
    manager.release(block);
    throw;
  }
  chunk->storage = block;
  chunk->manager = &manager;
  chunk->engine = &eng;
  chunk->var = var;
  chunk_ = std::move(chunk);
}

NDArray NDArray::fromExternal(void *data, Shape shape, DType dtype,
                              Device device, Engine *engine,
                              std::function<void()> release) {
  const size_t bytes = checkedNumBytes(shape, dtype);
  if (!data && bytes > 0)
    throw Error("fromExternal: null data for " + shapeStr(shape));
  Engine &eng = engine ? *engine : defaultEngine();
  auto chunk = std::make_shared<Chunk>();
  chunk->storage.data = data;
  chunk->storage.size = chunk->storage.capacity = bytes;
  chunk->storage.device = device;
  chunk->engine = &eng;
  chunk->release = std::move(release);
  chunk->var = eng.newVar();
  return NDArray(std::move(chunk), std::move(shape), dtype, 0);
}

NDArray::NDArray(std::shared_ptr<Chunk> chunk, Shape shape, DType dtype,
                 size_t offset)
    : chunk_(std::move(chunk)), shape_(std::move(shape)), dtype_(dtype),
      offset_(offset) {}

void NDArray::requireNotNone(const char *what) const {
  if (!chunk_)
    throw Error(std::string(what) + " on a none array");
}

Device NDArray::device() const {
  requireNotNone("device");
  return chunk_->storage.device;
}

int64_t NDArray::numElements() const {
  return shapeNumElements(shape_).value_or(0);
}

size_t NDArray::numBytes() const {
  return static_cast<size_t>(numElements()) * dtypeSize(dtype_);
}

void *NDArray::data() const {
  requireNotNone("data");
  return static_cast<char *>(chunk_->storage.data) + offset_;
}

VarHandle NDArray::var() const {
  requireNotNone("var");
  return chunk_->var;
}

Engine &NDArray::engine() const {
  requireNotNone("engine");
  return *chunk_->engine;
}

bool NDArray::sharesStorageWith(const NDArray &other) const {
  return chunk_ && chunk_ == other.chunk_;
}

NDArray NDArray::reshape(Shape shape) const {
  requireNotNone("reshape");
  int inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && inferred < 0) {
      inferred = static_cast<int>(i);
      continue;
    }
    if (shape[i] < 0)
      throw Error("reshape: bad target shape " + shapeStr(shape));
    auto k = shapeNumElements({known, shape[i]});
    if (!k)
      throw Error("reshape: target shape " + shapeStr(shape) + " overflows");
    known = *k;
  }
  int64_t n = numElements();
  if (inferred >= 0) {
    if (known == 0 || n % known != 0)
      throw Error("reshape: cannot infer " + shapeStr(shape) + " from " +
                  shapeStr(shape_));
    shape[inferred] = n / known;
    known = n;
  }
  if (known != n)
    throw Error("reshape: " + shapeStr(shape_) + " has " + std::to_string(n) +
                " elements, " + shapeStr(shape) + " has " +
                std::to_string(known));
  return NDArray(chunk_, std::move(shape), dtype_, offset_);
}

NDArray NDArray::slice(int64_t begin, int64_t end) const {
  requireNotNone("slice");
  if (shape_.empty())
    throw Error("slice: a scalar has no axis 0");
  if (begin < 0 || begin > end || end > shape_[0])
    throw Error("slice: [" + std::to_string(begin) + ", " +
                std::to_string(end) + ") is outside axis 0 of " +
                shapeStr(shape_));
  Shape row(shape_.begin() + 1, shape_.end());
  size_t rowBytes =
      static_cast<size_t>(shapeNumElements(row).value_or(0)) * dtypeSize(dtype_);
  Shape shape = shape_;
  shape[0] = end - begin;
  return NDArray(chunk_, std::move(shape), dtype_,
                 offset_ + static_cast<size_t>(begin) * rowBytes);
}

void NDArray::copyTo(const NDArray &dst) const {
  requireNotNone("copyTo");
  dst.requireNotNone("copyTo");
  if (shape_ != dst.shape_ || dtype_ != dst.dtype_)
    throw Error("copyTo: source " + shapeStr(shape_) + " " +
                dtypeName(dtype_) + " and destination " + shapeStr(dst.shape_) +
                " " + dtypeName(dst.dtype_) + " differ");
  if (chunk_->engine != dst.chunk_->engine)
    throw Error("copyTo: the arrays belong to different engines");
  Device from = device(), to = dst.device();
  Copier copier = findCopier(from, to);
  const void *src = data();
  void *out = dst.data();
  size_t bytes = numBytes();
  if (src == out)
    return; // the same elements: nothing to do
  std::vector<VarHandle> reads;
  if (chunk_ != dst.chunk_)
    reads.push_back(chunk_->var);
  CopyFn fn = copier.fn;
  chunk_->engine->pushSync(
      [fn, src, from, out, to, bytes](RunContext ctx) {
        fn(src, from, out, to, bytes, ctx);
      },
      copier.runOnDestination ? to : from, std::move(reads), {dst.chunk_->var},
      copier.prop, 0, "copy " + from.str() + " -> " + to.str());
}

NDArray NDArray::copyTo(Device device) const {
  requireNotNone("copyTo");
  NDArray dst(shape_, dtype_, device, chunk_->engine);
  copyTo(dst);
  return dst;
}

void NDArray::copyFromHost(const void *src, size_t bytes) const {
  requireNotNone("copyFromHost");
  if (bytes != numBytes())
    throw Error("copyFromHost: " + std::to_string(bytes) +
                " bytes given, the array has " + std::to_string(numBytes()));
  Device host = Device::cpu(), to = device();
  Copier copier = findCopier(host, to);
  void *out = data();
  CopyFn fn = copier.fn;
  chunk_->engine->pushSync(
      [fn, src, host, out, to, bytes](RunContext ctx) {
        fn(src, host, out, to, bytes, ctx);
      },
      copier.runOnDestination ? to : host, {}, {chunk_->var}, copier.prop, 0,
      "copy host -> " + to.str());
  raise(chunk_->engine->waitForVar(chunk_->var));
}

void NDArray::copyToHost(void *dst, size_t bytes) const {
  requireNotNone("copyToHost");
  if (bytes != numBytes())
    throw Error("copyToHost: " + std::to_string(bytes) +
                " bytes given, the array has " + std::to_string(numBytes()));
  Device from = device(), host = Device::cpu();
  Copier copier = findCopier(from, host);
  const void *src = data();
  CopyFn fn = copier.fn;
  Engine &eng = *chunk_->engine;
  // The copy writes a variable of its own, which is what we wait for.
  VarHandle done = eng.newVar();
  std::optional<EngineError> err;
  try {
    eng.pushSync(
        [fn, src, from, dst, host, bytes](RunContext ctx) {
          fn(src, from, dst, host, bytes, ctx);
        },
        copier.runOnDestination ? host : from, {chunk_->var}, {done},
        copier.prop, 0, "copy " + from.str() + " -> host");
    err = eng.waitForVar(done);
  } catch (...) {
    eng.deleteVar(done);
    throw;
  }
  eng.deleteVar(done);
  raise(err);
  // An array whose writer failed has nothing worth copying: say so.
  raise(eng.waitForVar(chunk_->var));
}

void NDArray::fill(uint64_t pattern) const {
  requireNotNone("fill");
  FillFn fn;
  {
    FillerRegistry &r = fillers();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.fillers.find(device().kind);
    if (it == r.fillers.end())
      throw Error("no filler for arrays on " + device().str());
    fn = it->second;
  }
  unsigned width = unsigned(dtypeSize(dtype_));
  if (width != 1 && width != 2 && width != 4 && width != 8)
    throw Error("fill: elements of " + std::to_string(width) + " bytes");
  void *out = data();
  size_t bytes = numBytes();
  Device dev = device();
  chunk_->engine->pushSync(
      [fn, out, dev, bytes, pattern, width](RunContext ctx) {
        if (bytes)
          fn(out, dev, bytes, pattern, width, ctx);
      },
      dev, {}, {chunk_->var}, FnProperty::Normal, 0, "fill on " + dev.str());
}

void NDArray::waitToRead() const {
  requireNotNone("waitToRead");
  raise(chunk_->engine->waitForVar(chunk_->var));
}

void NDArray::waitToWrite() const {
  requireNotNone("waitToWrite");
  Engine &eng = *chunk_->engine;
  raise(eng.waitForVar(chunk_->var));
  // An empty write waits for the reads pushed before it.
  eng.pushSync([](RunContext) {}, device(), {}, {chunk_->var},
               FnProperty::Normal, 0, "wait to write");
  raise(eng.waitForVar(chunk_->var));
}

} // namespace mxc::runtime
