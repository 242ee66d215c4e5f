// kvstore.h - the data-synchronisation layer (MXNet's include/mxnet/kvstore.h,
// the paper's KVStore): push(key, values) merges values -- gradients from
// several devices -- into the store, through an updater if one is set;
// pull(key, outs) copies the stored value out. Both are engine operations,
// pushed and returned at once, ordered with the compute that writes the
// gradients and reads the weights.
//
// Types (create):
//   local, device        level 1: the values of one process's devices are
//                        summed on the machine (in device order; large
//                        arrays in parallel slices), then updated in place.
//   dist_sync,           level 2 over MPI: after the level-1 sum, the ranks'
//   dist_device_sync     sums are all-reduced in one fixed order (every rank
//                        sums rank 0's slice, then rank 1's, ...; each slice
//                        once, then gathered), so every worker holds the
//                        same bits; the updater runs on every worker on the
//                        same sum. Collectives run in push order, the same
//                        on every rank, on one communication thread.
//   dist_async           server ranks (the last MXC_KV_NUM_SERVERS ranks,
//                        default 1) hold the values and apply each worker's
//                        push through the updater as it arrives; pulls read
//                        whatever is current. Values of more than
//                        MXC_KV_BIGARRAY_BOUND elements (MXNet's
//                        MXNET_KVSTORE_BIGARRAY_BOUND, default 1,000,000)
//                        are split across the servers.
// The dist types need a runtime built with MPI (MXC_HAVE_MPI); without it,
// create throws Error. docs/distributed.md has the details.
//
// Plain C++17: nothing here may include LLVM or MLIR.
#ifndef MXC_RUNTIME_KVSTORE_H
#define MXC_RUNTIME_KVSTORE_H

#include "mxc/runtime/api.h"
#include "mxc/runtime/ndarray.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mxc::runtime {

class MXC_RUNTIME_API KVStore {
public:
  /// Merges the received value into the stored one (MXNet's updater(key,
  /// recv, local)). Called on the thread that pushes (the store's caller,
  /// or a server's loop): it should push engine operations (an optimizer's
  /// update kernels) rather than wait.
  using Updater = std::function<void(const std::string &key,
                                     const NDArray &recv, NDArray &stored)>;
  /// A server's handler of a worker's command (set_optimizer sends the
  /// pickled optimizer with head 0); returns the updater the server runs
  /// for that store's pushes from then on (empty: unchanged).
  using CommandHandler =
      std::function<Updater(int head, const std::string &body)>;

  /// A store of `type` (local, device, dist_sync, dist_device_sync,
  /// dist_async). Throws Error for an unknown type, or a dist type without
  /// MPI. The dist types initialise MPI on first use.
  static std::unique_ptr<KVStore> create(const std::string &type);
  /// Whether this runtime was built with MPI (the dist types).
  static bool haveMPI();

  virtual ~KVStore();
  const std::string &type() const { return type_; }

  /// Stores a copy of `value` under `key`. In the dist types rank 0's value
  /// is the one every worker pulls. Throws Error if `key` was initialised.
  virtual void init(const std::string &key, const NDArray &value) = 0;
  /// Merges `values` (one per device, same shape and dtype as the key's) into
  /// the store. Throws Error naming the key for an unknown key or a value of
  /// another shape or dtype.
  virtual void push(const std::string &key, const std::vector<NDArray> &values,
                    int priority = 0) = 0;
  /// Copies the stored value of `key` into each of `outs`. Throws Error
  /// naming the key as push does.
  virtual void pull(const std::string &key, const std::vector<NDArray> &outs,
                    int priority = 0) = 0;
  /// Sets (or, empty, clears) the updater.
  virtual void setUpdater(Updater updater) { updater_ = std::move(updater); }
  bool hasUpdater() const { return static_cast<bool>(updater_); }

  /// This process's rank among the workers, and the number of workers.
  virtual int rank() const { return 0; }
  virtual int numWorkers() const { return 1; }
  /// Whether this process is a worker (false on a dist_async server rank).
  virtual bool isWorker() const { return true; }
  /// Blocks until every worker called barrier (and, first, until this
  /// store's communication pushed so far finished).
  virtual void barrier() {}
  /// dist_async: sends a command to every server (from rank 0; a no-op on
  /// the others) and waits until they received it.
  virtual void sendCommandToServers(int head, const std::string &body);
  /// dist_async server ranks: serves every dist_async store of the workers
  /// until each worker has stopped (kvstoreFinalizeMPI, at its exit).
  /// Returns at once on a worker.
  virtual void runServer(CommandHandler handler);
  /// Waits for this store's pushed operations and stops its communication
  /// (a dist_async worker tells the servers it is done). Called by the
  /// destructor; idempotent.
  virtual void finalize() {}

protected:
  explicit KVStore(std::string type) : type_(std::move(type)) {}
  std::string type_;
  Updater updater_;
};

/// Aborts every rank of the MPI job (MPI_Abort) after printing `message` to
/// stderr; without MPI, or MPI not initialised, exits the process with
/// `code`. Never returns.
[[noreturn]] MXC_RUNTIME_API void kvstoreAbort(int code,
                                               const std::string &message);
/// Finalises MPI if a dist store initialised it (idempotent; at exit).
MXC_RUNTIME_API void kvstoreFinalizeMPI();

} // namespace mxc::runtime

#endif // MXC_RUNTIME_KVSTORE_H
