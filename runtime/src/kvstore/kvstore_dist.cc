// kvstore_dist.cc - level 2 of the KVStore over MPI (Open MPI from Debian):
// dist_sync (an all-reduce in one fixed order, the same bits on every
// worker) and dist_async (server ranks applying each push as it arrives).
//
// Every MPI call after MPI_Init runs on the store's communication thread
// (its "lane"): push, pull, init and barrier push engine operations
// (FnProperty::Async) that hand their MPI work to the lane, which runs it in
// the order the operations were pushed -- program order, the same on every
// rank, so the ranks' collectives always match (as PyTorch DDP reduces its
// buckets in a fixed order) -- and completes the engine operation when done.
// The engine starts an operation only when the gradient it reads is
// written, so the push of a late layer's gradient runs while the backward
// pass of earlier layers is still computing.
#include "kvstore_impl.h"

#include "mxc/runtime/error.h"
#include "mxc/runtime/profiler.h"

#include <mpi.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace mxc::runtime {
namespace kv {
namespace {

std::mutex gMpiMutex;
bool gMpiInitializedByUs = false;

/// MPI_Init_thread once per process (MPI_THREAD_MULTIPLE: the lanes call MPI
/// while the main thread may abort).
void ensureMpi() {
  std::lock_guard<std::mutex> lock(gMpiMutex);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized)
    throw Error("kvstore: MPI was already finalized in this process");
  if (initialized)
    return;
  // Python loads extensions RTLD_LOCAL; Open MPI's plugins need libmpi's
  // symbols in the global scope.
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&MPI_Init_thread), &info) && info.dli_fname)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) !=
      MPI_SUCCESS)
    throw Error("kvstore: MPI_Init_thread failed");
  if (provided < MPI_THREAD_SERIALIZED)
    throw Error("kvstore: this MPI gives thread level " +
                std::to_string(provided) + ", MPI_THREAD_SERIALIZED needed");
  gMpiInitializedByUs = true;
}

int envInt(const char *name, const char *alt, long long fallback) {
  for (const char *n : {name, alt}) {
    if (!n)
      continue;
    if (const char *v = std::getenv(n); v && *v) {
      char *end = nullptr;
      long long x = std::strtoll(v, &end, 10);
      if (end && *end == '\0' && x >= 0 && x <= std::numeric_limits<int>::max())
        return static_cast<int>(x);
      std::cerr << "mxc: ignoring malformed " << n << "='" << v << "'\n";
    }
  }
  return static_cast<int>(fallback);
}

/// The communication thread of a store. Ordered (dist_sync): runs the
/// handed-over work strictly in the order its sequence numbers were reserved
/// (reserve() at push time), so every rank's collectives match. Unordered
/// (dist_async, point-to-point only): runs the ready work of the highest
/// priority first (ties: the earlier push), except across a fence (init,
/// barrier, command, stop): a fence runs after everything reserved before
/// it and before anything reserved after it.
class CommLane {
public:
  CommLane(std::string threadName, bool ordered)
      : ordered_(ordered), thread_([this, threadName] {
          Profiler::setThreadName(threadName);
          loop();
        }) {}
  ~CommLane() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  uint64_t reserve(bool fence = false) {
    std::lock_guard<std::mutex> lock(mu_);
    unexecuted_.insert(issued_);
    if (fence)
      fences_.insert(issued_);
    return issued_++;
  }
  void submit(uint64_t seq, int priority, std::string name, std::function<void()> work) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ready_.emplace(seq, Item{priority, std::move(name), std::move(work)});
    }
    cv_.notify_all();
  }
  /// Sequence numbers reserved and not run, once the lane has run all it
  /// can (after the engine drained, the missing ones were skipped).
  uint64_t outstanding() {
    std::unique_lock<std::mutex> lock(mu_);
    idle_.wait(lock, [&] { return !running_ && runnable() == ready_.end(); });
    return issued_ - executed_;
  }

private:
  struct Item {
    int priority;
    std::string name;
    std::function<void()> work;
  };
  std::map<uint64_t, Item>::iterator runnable() {
    if (ready_.empty())
      return ready_.end();
    uint64_t first = *unexecuted_.begin();
    if (ordered_)
      return ready_.find(first);
    uint64_t fence = fences_.empty() ? UINT64_MAX : *fences_.begin();
    if (fence == first)
      return ready_.find(fence);
    auto best = ready_.end();
    for (auto it = ready_.begin(); it != ready_.end() && it->first < fence; ++it)
      if (best == ready_.end() || it->second.priority > best->second.priority)
        best = it;
    return best;
  }
  void loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || runnable() != ready_.end(); });
      auto it = runnable();
      if (it == ready_.end())
        return; // stopping with nothing runnable
      uint64_t seq = it->first;
      Item item = std::move(it->second);
      ready_.erase(it);
      running_ = true;
      lock.unlock();
      item.work();
      lock.lock();
      ++executed_;
      unexecuted_.erase(seq);
      fences_.erase(seq);
      running_ = false;
      idle_.notify_all();
    }
  }
  const bool ordered_;
  std::mutex mu_;
  std::condition_variable cv_, idle_;
  std::map<uint64_t, Item> ready_;
  std::set<uint64_t> unexecuted_, fences_;
  uint64_t issued_ = 0, executed_ = 0;
  bool stop_ = false, running_ = false;
  std::thread thread_;
};

/// What both dist stores share: the lane and the engine operations on it.
struct Lane {
  std::unique_ptr<CommLane> lane;

  /// An engine operation (reads, writes) whose body runs on the lane.
  void push(const std::string &name, std::vector<VarHandle> reads,
            std::vector<VarHandle> writes, int priority,
            std::function<void()> work, bool fence = false) {
    uint64_t seq = lane->reserve(fence);
    CommLane *l = lane.get();
    defaultEngine().pushAsync(
        [l, seq, priority, name, work](RunContext, CompleteCallback done) {
          l->submit(seq, priority, name, [work, done, name] {
            std::string error;
            uint64_t t0 = Profiler::active() ? Profiler::nowNs() : 0;
            try {
              work();
            } catch (const std::exception &e) {
              error = e.what();
              if (error.empty())
                error = "communication failed";
            }
            // (recorded before the operation completes: a wait for it sees
            // the event)
            if (t0)
              Profiler::get().record(Profiler::Event{name, Device::cpu(),
                                                     Profiler::threadId(), t0,
                                                     Profiler::nowNs()});
            done(error);
          });
        },
        Device::cpu(), std::move(reads), std::move(writes), FnProperty::Async,
        priority, name);
  }
  /// push, then wait for it (barrier, commands, stop).
  void run(const std::string &name, std::function<void()> work) {
    Engine &engine = defaultEngine();
    VarHandle var = engine.newVar();
    push(name, {}, {var}, 0, std::move(work), /*fence=*/true);
    std::optional<EngineError> err = engine.waitForVar(var);
    engine.deleteVar(var);
    if (err)
      throw Error(err->str());
  }
  /// Waits for every pushed operation; aborts the job when one of this
  /// lane's operations never ran (skipped after a failed input), since the
  /// ranks' collectives no longer match.
  void drain(const std::string &what) {
    if (!lane)
      return;
    std::optional<EngineError> err = defaultEngine().waitForAll();
    if (lane->outstanding() != 0)
      kvstoreAbort(1, "mxc kvstore " + what +
                          ": a communication operation was skipped (" +
                          (err ? err->str() : std::string("its input failed")) +
                          "); the ranks are out of step, aborting the job");
    lane.reset();
  }
};

void checkBytes(const std::string &key, size_t bytes) {
  if (bytes > static_cast<size_t>(std::numeric_limits<int>::max()))
    throw Error("kvstore key '" + key + "': arrays above 2 GiB are not supported");
}

/// data = the sum over the ranks of `comm` of each rank's `src` (may be
/// `data`), in one fixed order: rank j sums slice j of every rank's array in
/// rank order (MPI_Alltoallv brings them), then every rank gathers the
/// summed slices into data (MPI_Allgatherv). Each element
/// is summed once, the same way, whatever the arrival order, so every rank
/// ends with the same bits.
void fixedOrderAllreduce(const void *src, void *data, int64_t n, DType dtype,
                         MPI_Comm comm, std::vector<char> &scratch) {
  int size = 1, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  size_t es = dtypeSize(dtype);
  if (size == 1) {
    if (src != data)
      std::memcpy(data, src, size_t(n) * es);
    return;
  }
  std::vector<int> counts(size), displs(size);
  for (int j = 0; j < size; ++j) {
    int64_t begin = n * j / size, end = n * (j + 1) / size;
    counts[j] = static_cast<int>((end - begin) * es);
    displs[j] = static_cast<int>(begin * es);
  }
  int mine = counts[rank];
  scratch.resize(static_cast<size_t>(mine) * size + 1);
  std::vector<int> rcounts(size, mine), rdispls(size);
  for (int i = 0; i < size; ++i)
    rdispls[i] = i * mine;
  char *bytes = static_cast<char *>(data);
  MPI_Alltoallv(src, counts.data(), displs.data(), MPI_BYTE, scratch.data(),
                rcounts.data(), rdispls.data(), MPI_BYTE, comm);
  std::vector<const void *> srcs(size);
  for (int i = 0; i < size; ++i)
    srcs[i] = scratch.data() + static_cast<size_t>(i) * mine;
  sumRange(srcs, bytes + displs[rank], dtype, 0, mine / static_cast<int64_t>(es));
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, bytes, counts.data(),
                 displs.data(), MPI_BYTE, comm);
}

// ---- dist_sync ---------------------------------------------------------------

class DistSync : public LocalStore {
public:
  explicit DistSync(std::string type) : LocalStore(std::move(type)) {
    ensureMpi();
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    lane_.lane = std::make_unique<CommLane>("kvstore comm", /*ordered=*/true);
  }
  ~DistSync() override { finalize(); }

  int rank() const override { return rank_; }
  int numWorkers() const override { return size_; }

  void init(const std::string &key, const NDArray &value) override {
    live("init", key);
    LocalStore::init(key, value);
    NDArray stored = entries_.at(key).stored;
    checkBytes(key, stored.numBytes());
    MPI_Comm comm = comm_;
    // Every worker starts from rank 0's value (MXNet: rank 0 initialises
    // the servers).
    lane_.push("kvstore broadcast '" + key + "'", {}, {stored.var()}, 0,
               [stored, comm] {
                 MPI_Bcast(stored.data(), static_cast<int>(stored.numBytes()),
                           MPI_BYTE, 0, comm);
               });
  }

  void push(const std::string &key, const std::vector<NDArray> &values,
            int priority) override {
    live("push", key);
    Entry &e = find("push", key);
    if (!summable(e.stored.dtype()))
      throw Error("push of key '" + key + "': dtype " +
                  dtypeName(e.stored.dtype()) + " cannot be summed");
    checkBytes(key, e.stored.numBytes());
    // One value: the all-reduce reads it and writes the key's buffer (no
    // copy); several: their level-1 sum, all-reduced in place.
    NDArray src;
    // (a value on a GPU goes through reduce's host copy)
    if (values.size() == 1 && values[0].device().isHost()) {
      checkLike("push", key, e.stored, values[0]);
      src = values[0];
      if (e.merged.isNone())
        e.merged = NDArray(e.stored.shape(), e.stored.dtype(), Device::cpu(),
                           &e.stored.engine());
    } else {
      src = reduce(key, e, values, priority, /*alwaysCopy=*/true);
    }
    NDArray merged = e.merged;
    std::vector<VarHandle> reads;
    if (!src.sharesStorageWith(merged))
      reads.push_back(src.var());
    MPI_Comm comm = comm_;
    std::vector<char> *scratch = &scratch_;
    lane_.push("kvstore allreduce '" + key + "'", std::move(reads), {merged.var()},
               priority, [src, merged, comm, scratch] {
                 fixedOrderAllreduce(src.data(), merged.data(), merged.numElements(),
                                     merged.dtype(), comm, *scratch);
               });
    if (updater_) {
      apply(key, e, merged, priority);
    } else {
      // The sum is the new value: the buffers trade places (later pulls
      // read it once written; the next push writes the old value's buffer
      // after those pulls), instead of a copy.
      std::swap(e.stored, e.merged);
    }
  }

  void pull(const std::string &key, const std::vector<NDArray> &outs,
            int priority) override {
    live("pull", key);
    LocalStore::pull(key, outs, priority);
  }

  void barrier() override {
    live("barrier", "");
    MPI_Comm comm = comm_;
    lane_.run("kvstore barrier", [comm] { MPI_Barrier(comm); });
  }

  void finalize() override {
    if (!lane_.lane)
      return;
    lane_.drain(type_ + " rank " + std::to_string(rank_));
    MPI_Comm_free(&comm_);
  }

private:
  void live(const char *what, const std::string &key) {
    if (!lane_.lane)
      throw Error(std::string(what) + (key.empty() ? "" : " of key '" + key + "'") +
                  ": the kvstore was finalized");
  }
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  Lane lane_;
  std::vector<char> scratch_; // used on the lane only
};

// ---- dist_async --------------------------------------------------------------

enum class Op : int32_t { Init = 1, Push, Pull, Command, Stop };
struct Header {
  int32_t op = 0;
  int32_t store = 0; ///< which dist_async store of the workers (creation order)
  int32_t key = 0;   ///< the key's init order in that store
  int32_t dtype = 0;
  int32_t head = 0;
  int32_t pad = 0;
  int64_t offset = 0; ///< elements
  int64_t count = 0;  ///< elements (bytes for a command)
  int64_t nameLen = 0;
};
constexpr int kTagHeader = 101, kTagData = 102, kTagReply = 103;

/// One value's place on the servers: elements [offset, offset + count).
struct Shard {
  int server;
  int64_t offset, count;
};

/// `base` addressed to shard `s`.
Header shardHeader(Header base, const Shard &s) {
  base.offset = s.offset;
  base.count = s.count;
  return base;
}

/// What every dist_async store of a process shares: the communicators
/// (created once: creating one is collective over every rank, and the
/// servers are inside their loop), the workers' lane, the roles. The
/// workers tell the servers they are done once, at MPI finalisation.
struct AsyncContext {
  MPI_Comm p2p = MPI_COMM_NULL, group = MPI_COMM_NULL;
  int worldRank = 0, worldSize = 1, numServers = 1, numWorkers = 1;
  int64_t bound = 1000000;
  bool server = false;
  int storesCreated = 0;
  bool stopped = false;
  Lane lane;

  static AsyncContext *get(bool create) {
    static std::unique_ptr<AsyncContext> ctx;
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    if (!ctx && create)
      ctx = std::make_unique<AsyncContext>();
    return ctx.get();
  }

  AsyncContext() {
    ensureMpi();
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dflt = size > 1 ? 1 : 0;
    numServers = envInt("MXC_KV_NUM_SERVERS", "DMLC_NUM_SERVER", dflt);
    if (numServers < 1 || numServers >= size)
      throw Error("kvstore 'dist_async' needs at least one server rank and one "
                  "worker rank: this job has " + std::to_string(size) +
                  " MPI rank(s) and " + std::to_string(numServers) +
                  " server(s) (MXC_KV_NUM_SERVERS); launch it with "
                  "tools/launch.py -n WORKERS -s SERVERS, or mpirun -np >= 2");
    MPI_Comm_dup(MPI_COMM_WORLD, &p2p);
    MPI_Comm_rank(p2p, &worldRank);
    worldSize = size;
    numWorkers = worldSize - numServers;
    server = worldRank >= numWorkers;
    bound = envInt("MXC_KV_BIGARRAY_BOUND", "MXNET_KVSTORE_BIGARRAY_BOUND", 1000000);
    MPI_Comm_split(p2p, server ? 1 : 0, worldRank, &group);
    if (!server)
      lane.lane = std::make_unique<CommLane>("kvstore comm", /*ordered=*/false);
  }

  /// Workers: tells every server this worker is done, after its pushed
  /// communication (idempotent).
  void stop() {
    if (server || stopped)
      return;
    stopped = true;
    MPI_Comm comm = p2p;
    int first = numWorkers, servers = numServers;
    lane.run("kvstore stop", [=] {
      for (int s = first; s < first + servers; ++s) {
        Header h;
        h.op = int32_t(Op::Stop);
        MPI_Send(&h, sizeof h, MPI_BYTE, s, kTagHeader, comm);
      }
    });
    lane.drain("dist_async worker " + std::to_string(worldRank));
  }

  /// The servers' loop: every store's keys, until each worker stopped.
  void serve(const KVStore::CommandHandler &handler) {
    struct Shard {
      std::string name;
      NDArray stored;
    };
    std::map<std::pair<int32_t, int32_t>, Shard> shards; // (store, key)
    std::map<int32_t, KVStore::Updater> updaters;         // per store
    int stoppedWorkers = 0;
    std::string where = "dist_async server " + std::to_string(worldRank - numWorkers);
    try {
      while (stoppedWorkers < numWorkers) {
        Header h;
        MPI_Status st;
        MPI_Recv(&h, sizeof h, MPI_BYTE, MPI_ANY_SOURCE, kTagHeader, p2p, &st);
        int src = st.MPI_SOURCE;
        DType dt = static_cast<DType>(h.dtype);
        auto id = std::make_pair(h.store, h.key);
        switch (static_cast<Op>(h.op)) {
        case Op::Init: {
          std::string name(size_t(h.nameLen), '\0');
          MPI_Recv(name.data(), int(h.nameLen), MPI_BYTE, src, kTagData, p2p,
                   MPI_STATUS_IGNORE);
          NDArray a(Shape{h.count}, dt);
          MPI_Recv(a.data(), int(a.numBytes()), MPI_BYTE, src, kTagData, p2p,
                   MPI_STATUS_IGNORE);
          shards[id] = Shard{name, a};
          break;
        }
        case Op::Push: {
          NDArray recv(Shape{h.count}, dt);
          MPI_Recv(recv.data(), int(recv.numBytes()), MPI_BYTE, src, kTagData,
                   p2p, MPI_STATUS_IGNORE);
          auto it = shards.find(id);
          if (it == shards.end())
            throw Error("push from rank " + std::to_string(src) + " of key #" +
                        std::to_string(h.key) + " before its init");
          auto up = updaters.find(h.store);
          if (up == updaters.end() || !up->second)
            throw Error("push of key '" + it->second.name +
                        "' without an optimizer on the server");
          up->second(it->second.name, recv, it->second.stored);
          break;
        }
        case Op::Pull: {
          auto it = shards.find(id);
          if (it == shards.end())
            throw Error("pull from rank " + std::to_string(src) + " of key #" +
                        std::to_string(h.key) + " before its init");
          const NDArray &stored = it->second.stored;
          stored.waitToRead();
          MPI_Send(stored.data(), int(stored.numBytes()), MPI_BYTE, src,
                   kTagReply, p2p);
          break;
        }
        case Op::Command: {
          std::string body(size_t(h.count), '\0');
          MPI_Recv(body.data(), int(h.count), MPI_BYTE, src, kTagData, p2p,
                   MPI_STATUS_IGNORE);
          KVStore::Updater u = handler(h.head, body);
          if (u)
            updaters[h.store] = std::move(u);
          break;
        }
        case Op::Stop:
          ++stoppedWorkers;
          break;
        default:
          throw Error("unknown message " + std::to_string(h.op) + " from rank " +
                      std::to_string(src));
        }
      }
      if (auto err = defaultEngine().waitForAll())
        throw Error(err->str());
    } catch (const std::exception &e) {
      kvstoreAbort(1, "mxc kvstore " + where + ": " + e.what());
    }
  }

  void free() {
    if (p2p == MPI_COMM_NULL)
      return;
    stop();
    lane.lane.reset();
    MPI_Comm_free(&group);
    MPI_Comm_free(&p2p);
  }
};

class DistAsync : public LocalStore {
public:
  explicit DistAsync(std::string type)
      : LocalStore(std::move(type)), ctx_(*AsyncContext::get(true)) {
    store_ = ctx_.storesCreated++;
  }
  ~DistAsync() override { finalize(); }

  int rank() const override {
    return ctx_.server ? ctx_.worldRank - ctx_.numWorkers : ctx_.worldRank;
  }
  int numWorkers() const override { return ctx_.numWorkers; }
  bool isWorker() const override { return !ctx_.server; }

  void init(const std::string &key, const NDArray &value) override {
    live("init", key);
    Entry &e = create(key, value);
    checkBytes(key, e.stored.numBytes());
    if (ctx_.worldRank == 0) {
      std::vector<Shard> shards = shardsOf(e);
      MPI_Comm comm = ctx_.p2p;
      // (a value on a GPU is sent from a host copy)
      NDArray v = value.device().isHost() ? value : value.copyTo(Device::cpu());
      Header base;
      base.op = int32_t(Op::Init);
      base.store = store_;
      base.key = int32_t(e.id);
      base.dtype = int32_t(v.dtype());
      base.nameLen = int64_t(key.size());
      ctx_.lane.push("kvstore init '" + key + "'", {v.var()}, {}, 0,
                     [v, shards, comm, base, key] {
                       size_t es = dtypeSize(v.dtype());
                       for (const Shard &s : shards) {
                         Header h = shardHeader(base, s);
                         MPI_Ssend(&h, sizeof h, MPI_BYTE, s.server, kTagHeader, comm);
                         MPI_Ssend(key.data(), int(key.size()), MPI_BYTE, s.server,
                                   kTagData, comm);
                         MPI_Ssend(static_cast<char *>(v.data()) + s.offset * es,
                                   int(s.count * es), MPI_BYTE, s.server, kTagData,
                                   comm);
                       }
                     },
                     /*fence=*/true);
    }
    // As MXNet: every worker waits at a barrier after init, so no pull
    // reaches a server before rank 0's value.
    MPI_Comm group = ctx_.group;
    ctx_.lane.push("kvstore barrier (init)", {}, {}, 0, [group] { MPI_Barrier(group); },
                   /*fence=*/true);
  }

  void push(const std::string &key, const std::vector<NDArray> &values,
            int priority) override {
    live("push", key);
    Entry &e = find("push", key);
    if (!serverUpdater_)
      throw Error("push of key '" + key +
                  "': dist_async needs an optimizer on the servers (call "
                  "set_optimizer first)");
    NDArray merged = reduce(key, e, values, priority, /*alwaysCopy=*/true);
    std::vector<Shard> shards = shardsOf(e);
    MPI_Comm comm = ctx_.p2p;
    Header base;
    base.op = int32_t(Op::Push);
    base.store = store_;
    base.key = int32_t(e.id);
    base.dtype = int32_t(merged.dtype());
    // (writes merged: the key's later pulls read it, so they follow this
    // push whatever their priorities)
    ctx_.lane.push("kvstore push '" + key + "'", {}, {merged.var()}, priority,
                   [merged, shards, comm, base] {
                     size_t es = dtypeSize(merged.dtype());
                     for (const Shard &s : shards) {
                       Header h = shardHeader(base, s);
                       // Synchronous: once it returns the server has taken
                       // the push (as ps-lite's acknowledged push), so a
                       // barrier after pushes orders them before later pulls.
                       MPI_Ssend(&h, sizeof h, MPI_BYTE, s.server, kTagHeader, comm);
                       MPI_Send(static_cast<char *>(merged.data()) + s.offset * es,
                                int(s.count * es), MPI_BYTE, s.server, kTagData, comm);
                     }
                   });
  }

  void pull(const std::string &key, const std::vector<NDArray> &outs,
            int priority) override {
    live("pull", key);
    Entry &e = find("pull", key);
    for (const NDArray &o : outs)
      checkLike("pull", key, e.stored, o);
    if (outs.empty())
      return;
    std::vector<Shard> shards = shardsOf(e);
    MPI_Comm comm = ctx_.p2p;
    // Received into host memory: the first out, or a host array copied to
    // outs on a GPU.
    const bool hostFirst = outs[0].device().isHost();
    NDArray out = hostFirst ? outs[0]
                            : NDArray(e.stored.shape(), e.stored.dtype(), Device::cpu(),
                                      &e.stored.engine());
    if (e.merged.isNone())
      e.merged = NDArray(e.stored.shape(), e.stored.dtype(), Device::cpu(),
                         &e.stored.engine());
    VarHandle after = e.merged.var();
    Header base;
    base.op = int32_t(Op::Pull);
    base.store = store_;
    base.key = int32_t(e.id);
    base.dtype = int32_t(out.dtype());
    ctx_.lane.push("kvstore pull '" + key + "'", {after}, {out.var()}, priority,
                   [out, shards, comm, base] {
                     size_t es = dtypeSize(out.dtype());
                     for (const Shard &s : shards) {
                       Header h = shardHeader(base, s);
                       MPI_Send(&h, sizeof h, MPI_BYTE, s.server, kTagHeader, comm);
                       MPI_Recv(static_cast<char *>(out.data()) + s.offset * es,
                                int(s.count * es), MPI_BYTE, s.server, kTagReply,
                                comm, MPI_STATUS_IGNORE);
                     }
                   });
    for (size_t i = hostFirst ? 1 : 0; i < outs.size(); ++i)
      pushCopy(out, outs[i], priority, "kvstore pull '" + key + "'");
  }

  void barrier() override {
    live("barrier", "");
    MPI_Comm group = ctx_.group;
    ctx_.lane.run("kvstore barrier", [group] { MPI_Barrier(group); });
  }

  void sendCommandToServers(int head, const std::string &body) override {
    live("send_command_to_servers", "");
    MPI_Comm comm = ctx_.p2p, group = ctx_.group;
    int rank = ctx_.worldRank, first = ctx_.numWorkers, servers = ctx_.numServers;
    int32_t store = store_;
    ctx_.lane.run("kvstore command", [=] {
      if (rank == 0)
        for (int s = first; s < first + servers; ++s) {
          Header h;
          h.op = int32_t(Op::Command);
          h.store = store;
          h.head = head;
          h.count = int64_t(body.size());
          MPI_Ssend(&h, sizeof h, MPI_BYTE, s, kTagHeader, comm);
          MPI_Ssend(body.data(), int(body.size()), MPI_BYTE, s, kTagData, comm);
        }
      MPI_Barrier(group);
    });
    if (head == 0)
      serverUpdater_ = true;
  }

  void runServer(CommandHandler handler) override {
    if (ctx_.server)
      ctx_.serve(handler);
  }

  void finalize() override {
    // The communication of this store finishes with the engine's; the
    // servers hear that a worker is done at MPI finalisation (the context
    // serves every store of the process).
    if (finalized_)
      return;
    finalized_ = true;
    if (!ctx_.server)
      if (auto err = defaultEngine().waitForAll())
        std::cerr << "mxc kvstore: " << err->str() << "\n";
  }

private:
  /// Small values live on one server (by init order); values above the
  /// bound are split evenly across all of them.
  std::vector<Shard> shardsOf(const Entry &e) const {
    int64_t n = e.stored.numElements();
    int first = ctx_.numWorkers, servers = ctx_.numServers;
    if (n < ctx_.bound || servers == 1)
      return {Shard{first + int((e.id + store_) % servers), 0, n}};
    std::vector<Shard> out;
    for (int s = 0; s < servers; ++s) {
      int64_t b = n * s / servers, en = n * (s + 1) / servers;
      if (en > b)
        out.push_back(Shard{first + s, b, en - b});
    }
    return out;
  }
  void live(const char *what, const std::string &key) {
    std::string k = key.empty() ? "" : " of key '" + key + "'";
    if (ctx_.server)
      throw Error(std::string(what) + k + ": this rank is a dist_async server");
    if (finalized_ || ctx_.stopped)
      throw Error(std::string(what) + k + ": the kvstore was finalized");
  }
  AsyncContext &ctx_;
  int32_t store_ = 0;
  bool serverUpdater_ = false, finalized_ = false;
};

} // namespace

std::unique_ptr<KVStore> createDist(const std::string &type) {
  if (type == "dist_async")
    return std::make_unique<DistAsync>(type);
  return std::make_unique<DistSync>(type);
}

} // namespace kv

void kvstoreAbort(int code, const std::string &message) {
  std::cerr << message << std::endl;
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized)
    MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

void kvstoreFinalizeMPI() {
  if (kv::AsyncContext *ctx = kv::AsyncContext::get(false))
    ctx->free();
  std::lock_guard<std::mutex> lock(kv::gMpiMutex);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (kv::gMpiInitializedByUs && !finalized)
    MPI_Finalize();
}

} // namespace mxc::runtime
