// kvstore.cc - the KVStore's factory and level 1 (local, device): the values
// a process's devices push are summed on the machine in device order (large
// arrays in parallel slices of the kernel threads), then merged into the
// stored value by the updater, or copied over it without one -- MXNet's
// KVStoreLocal. Every step is an engine operation on the priority lane; the
// updater runs on the pushing thread and pushes its own operations.
#include "kvstore_impl.h"

#include "mxc/runtime/error.h"
#include "mxc/runtime/threads.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <thread>

namespace mxc::runtime {
namespace kv {

std::string shapeString(const Shape &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}

void checkLike(const char *what, const std::string &key, const NDArray &stored,
               const NDArray &value) {
  if (value.isNone())
    throw Error(std::string(what) + " of key '" + key + "': no array given");
  if (value.shape() != stored.shape())
    throw Error(std::string(what) + " of key '" + key + "': shape " +
                shapeString(value.shape()) + " does not match the key's " +
                shapeString(stored.shape()));
  if (value.dtype() != stored.dtype())
    throw Error(std::string(what) + " of key '" + key + "': dtype " +
                dtypeName(value.dtype()) + " does not match the key's " +
                dtypeName(stored.dtype()));
}

bool summable(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::F64:
  case DType::F16:
  case DType::I32:
  case DType::I64:
    return true;
  default:
    return false;
  }
}

namespace {
template <typename T, typename Acc>
void sumT(const std::vector<const void *> &srcs, void *dst, int64_t begin,
          int64_t end) {
  T *out = static_cast<T *>(dst);
  const T *first = static_cast<const T *>(srcs[0]);
  for (int64_t i = begin; i < end; ++i) {
    Acc acc = static_cast<Acc>(first[i]);
    for (size_t s = 1; s < srcs.size(); ++s)
      acc += static_cast<Acc>(static_cast<const T *>(srcs[s])[i]);
    out[i] = static_cast<T>(acc);
  }
}
} // namespace

void sumRange(const std::vector<const void *> &srcs, void *dst, DType dtype,
              int64_t begin, int64_t end) {
  switch (dtype) {
  case DType::F32:
    return sumT<float, float>(srcs, dst, begin, end);
  case DType::F64:
    return sumT<double, double>(srcs, dst, begin, end);
  case DType::F16:
    return sumT<_Float16, float>(srcs, dst, begin, end);
  case DType::I32:
    return sumT<int32_t, int32_t>(srcs, dst, begin, end);
  case DType::I64:
    return sumT<int64_t, int64_t>(srcs, dst, begin, end);
  default:
    throw Error(std::string("kvstore: dtype ") + dtypeName(dtype) +
                " cannot be summed");
  }
}

void sumParallel(const std::vector<const void *> &srcs, void *dst, DType dtype,
                 int64_t n) {
  // MXNet reduces arrays above MXNET_KVSTORE_REDUCTION_NTHREADS' bound
  // (1M elements) in slices; so do we, over the kernel threads.
  constexpr int64_t kSliceBound = 1 << 20;
  int threads = std::max(1, kernelThreads());
  if (n < kSliceBound || threads == 1) {
    sumRange(srcs, dst, dtype, 0, n);
    return;
  }
  int64_t parts = std::min<int64_t>(threads, n / (kSliceBound / 4));
  std::vector<std::thread> pool;
  for (int64_t p = 1; p < parts; ++p)
    pool.emplace_back([&, p] {
      sumRange(srcs, dst, dtype, n * p / parts, n * (p + 1) / parts);
    });
  sumRange(srcs, dst, dtype, 0, n / parts);
  for (std::thread &t : pool)
    t.join();
}

void pushCopy(const NDArray &src, const NDArray &dst, int priority,
              const std::string &name) {
  if (src.sharesStorageWith(dst) && src.data() == dst.data())
    return;
  // To or from a GPU: the runtime's copier (an engine operation on the
  // device's copy lane); host memory only is memcpy'd here.
  if (!src.device().isHost() || !dst.device().isHost()) {
    src.copyTo(dst);
    return;
  }
  size_t bytes = src.numBytes();
  src.engine().pushSync(
      [src, dst, bytes](RunContext) { std::memcpy(dst.data(), src.data(), bytes); },
      Device::cpu(), {src.var()}, {dst.var()}, FnProperty::CPUPrioritized,
      priority, name);
}

LocalStore::Entry &LocalStore::find(const char *what, const std::string &key) {
  auto it = entries_.find(key);
  if (it == entries_.end())
    throw Error(std::string(what) + " of key '" + key +
                "': the key has not been initialized (call init first)");
  return it->second;
}

LocalStore::Entry &LocalStore::create(const std::string &key,
                                      const NDArray &value) {
  if (value.isNone())
    throw Error("init of key '" + key + "': no array given");
  if (entries_.count(key))
    throw Error("init of key '" + key + "': the key is already initialized");
  Entry e;
  e.id = static_cast<uint32_t>(entries_.size());
  e.stored = NDArray(value.shape(), value.dtype(), Device::cpu(), &value.engine());
  return entries_.emplace(key, std::move(e)).first->second;
}

void LocalStore::init(const std::string &key, const NDArray &value) {
  Entry &e = create(key, value);
  pushCopy(value, e.stored, 0, "kvstore init '" + key + "'");
}

NDArray LocalStore::reduce(const std::string &key, Entry &e,
                           const std::vector<NDArray> &values, int priority,
                           bool alwaysCopy) {
  if (values.empty())
    throw Error("push of key '" + key + "': no values given");
  for (const NDArray &v : values)
    checkLike("push", key, e.stored, v);
  // Values on a GPU are summed from host copies (the store is on the CPU).
  std::vector<NDArray> srcs;
  for (size_t i = 0; i < values.size(); ++i) {
    const NDArray &v = values[i];
    if (v.device().isHost()) {
      srcs.push_back(v);
      continue;
    }
    if (e.staging.size() <= i)
      e.staging.resize(i + 1);
    if (e.staging[i].isNone())
      e.staging[i] = NDArray(e.stored.shape(), e.stored.dtype(), Device::cpu(),
                             &e.stored.engine());
    v.copyTo(e.staging[i]);
    srcs.push_back(e.staging[i]);
  }
  if (srcs.size() == 1 && !alwaysCopy)
    return srcs[0];
  if (values.size() > 1 && !summable(e.stored.dtype()))
    throw Error("push of key '" + key + "': dtype " +
                dtypeName(e.stored.dtype()) + " cannot be summed");
  if (e.merged.isNone())
    e.merged = NDArray(e.stored.shape(), e.stored.dtype(), Device::cpu(),
                       &e.stored.engine());
  NDArray merged = e.merged;
  std::vector<VarHandle> reads;
  for (const NDArray &v : srcs)
    if (!v.sharesStorageWith(merged))
      reads.push_back(v.var());
  int64_t n = merged.numElements();
  DType dt = merged.dtype();
  merged.engine().pushSync(
      [srcs, merged, n, dt](RunContext) {
        std::vector<const void *> ptrs;
        for (const NDArray &s : srcs)
          ptrs.push_back(s.data());
        if (ptrs.size() == 1)
          std::memcpy(merged.data(), ptrs[0], merged.numBytes());
        else
          sumParallel(ptrs, merged.data(), dt, n);
      },
      Device::cpu(), std::move(reads), {merged.var()},
      FnProperty::CPUPrioritized, priority, "kvstore reduce '" + key + "'");
  return merged;
}

void LocalStore::apply(const std::string &key, Entry &e, const NDArray &merged,
                       int priority) {
  if (updater_) {
    NDArray stored = e.stored;
    updater_(key, merged, stored);
  } else {
    pushCopy(merged, e.stored, priority, "kvstore assign '" + key + "'");
  }
}

void LocalStore::push(const std::string &key, const std::vector<NDArray> &values,
                      int priority) {
  Entry &e = find("push", key);
  NDArray merged = reduce(key, e, values, priority, /*alwaysCopy=*/false);
  apply(key, e, merged, priority);
}

void LocalStore::pull(const std::string &key, const std::vector<NDArray> &outs,
                      int priority) {
  Entry &e = find("pull", key);
  for (const NDArray &o : outs)
    checkLike("pull", key, e.stored, o);
  for (const NDArray &o : outs)
    pushCopy(e.stored, o, priority, "kvstore pull '" + key + "'");
}

} // namespace kv

KVStore::~KVStore() = default;

void KVStore::sendCommandToServers(int, const std::string &) {}
void KVStore::runServer(CommandHandler) {}

bool KVStore::haveMPI() {
#ifdef MXC_HAVE_MPI
  return true;
#else
  return false;
#endif
}

std::unique_ptr<KVStore> KVStore::create(const std::string &type) {
  if (type == "local" || type == "device" || type == "local_allreduce_cpu" ||
      type == "local_update_cpu" || type == "local_allreduce_device")
    return std::make_unique<kv::LocalStore>(type);
  if (type == "dist_sync" || type == "dist_device_sync" || type == "dist_async" ||
      type == "dist_sync_device" || type == "dist") {
#ifdef MXC_HAVE_MPI
    return kv::createDist(type);
#else
    throw Error("kvstore '" + type +
                "': this mxc runtime was built without MPI (install "
                "libopenmpi-dev and rebuild)");
#endif
  }
  throw Error("unknown kvstore type '" + type +
              "' (local, device, dist_sync, dist_device_sync, dist_async)");
}

#ifndef MXC_HAVE_MPI
void kvstoreAbort(int code, const std::string &message) {
  std::cerr << message << std::endl;
  std::_Exit(code);
}
void kvstoreFinalizeMPI() {}
#endif

} // namespace mxc::runtime
