// kvstore_impl.h - what the KVStore's types share (kvstore.cc: level 1,
// kvstore_dist.cc: level 2 over MPI). Internal to the runtime.
#ifndef MXC_RUNTIME_SRC_KVSTORE_IMPL_H
#define MXC_RUNTIME_SRC_KVSTORE_IMPL_H

#include "mxc/runtime/kvstore.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mxc::runtime::kv {

/// "(2, 3)".
std::string shapeString(const Shape &shape);
/// Throws Error "<what> of key 'k': ..." unless `value` has `stored`'s shape
/// and dtype.
void checkLike(const char *what, const std::string &key, const NDArray &stored,
               const NDArray &value);
/// Whether `dtype` can be summed (float32, float64, float16, int32, int64).
bool summable(DType dtype);
/// dst[i] = srcs[0][i] + srcs[1][i] + ... in that order, for i in [begin,
/// end) (float16 accumulated in float32, rounded once).
void sumRange(const std::vector<const void *> &srcs, void *dst, DType dtype,
              int64_t begin, int64_t end);
/// sumRange over [0, n), in parallel slices of the kernel threads when n is
/// large (the order per element is the same).
void sumParallel(const std::vector<const void *> &srcs, void *dst, DType dtype,
                 int64_t n);
/// Pushes a copy of `src` into `dst` on the priority lane (reads src, writes
/// dst). Same shape/dtype assumed; nothing when they share storage.
void pushCopy(const NDArray &src, const NDArray &dst, int priority,
              const std::string &name);

/// Level 1: the values of one process's devices. dist_sync builds on it.
class LocalStore : public KVStore {
public:
  explicit LocalStore(std::string type) : KVStore(std::move(type)) {}
  void init(const std::string &key, const NDArray &value) override;
  void push(const std::string &key, const std::vector<NDArray> &values,
            int priority) override;
  void pull(const std::string &key, const std::vector<NDArray> &outs,
            int priority) override;

protected:
  struct Entry {
    uint32_t id = 0; ///< init order (the same on every rank)
    NDArray stored;  ///< the value pulls read
    NDArray merged;  ///< the level-1 sum (allocated on first use)
    /// Host copies of pushed values that live on a GPU, one per position
    /// in a push (the sum is on the CPU, as MXNet's local store's).
    std::vector<NDArray> staging;
  };
  Entry &find(const char *what, const std::string &key);
  Entry &create(const std::string &key, const NDArray &value);
  /// The level-1 sum of `values` (checked against the entry), pushed as an
  /// engine operation into the entry's merged buffer; with one value and
  /// !alwaysCopy, that value itself.
  NDArray reduce(const std::string &key, Entry &e,
                 const std::vector<NDArray> &values, int priority,
                 bool alwaysCopy);
  /// stored = updater(merged) or, without one, a copy of merged.
  void apply(const std::string &key, Entry &e, const NDArray &merged,
             int priority);
  std::map<std::string, Entry> entries_;
};

#ifdef MXC_HAVE_MPI
std::unique_ptr<KVStore> createDist(const std::string &type);
#endif

} // namespace mxc::runtime::kv

#endif // MXC_RUNTIME_SRC_KVSTORE_IMPL_H
