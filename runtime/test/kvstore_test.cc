// kvstore_test.cc - runtime::KVStore's level 1 (local, device): sums of a
// process's device values in device order, the updater, pulls into several
// arrays, errors naming the key, and an unknown type. (Level 2 needs MPI
// ranks: test/python/kvstore runs it with mpirun.)
#include "mxc/runtime/kvstore.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

using namespace mxc::runtime;

namespace {
NDArray filled(Shape shape, float v) {
  NDArray a(shape, DType::F32);
  std::vector<float> host(a.numElements(), v);
  a.copyFromHost(host.data(), a.numBytes());
  return a;
}
std::vector<float> read(const NDArray &a) {
  std::vector<float> host(a.numElements());
  a.copyToHost(host.data(), a.numBytes());
  return host;
}
} // namespace

TEST(KVStore, LocalPushSumsInDeviceOrderAndPullsIntoEveryOut) {
  auto kv = KVStore::create("local");
  kv->init("w", filled({2, 3}, 1));
  kv->push("w", {filled({2, 3}, 1), filled({2, 3}, 2), filled({2, 3}, 4)});
  NDArray a({2, 3}, DType::F32), b({2, 3}, DType::F32);
  kv->pull("w", {a, b});
  for (float x : read(a))
    EXPECT_EQ(x, 7.0f);
  EXPECT_EQ(read(a), read(b));
  EXPECT_EQ(kv->rank(), 0);
  EXPECT_EQ(kv->numWorkers(), 1);
}

TEST(KVStore, LargeValuesReduceInParallelSlicesExactly) {
  const int64_t n = 5 * 1024 * 1024 + 3;
  std::vector<float> x(n), y(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = 0.1f * float(i % 97);
    y[i] = 1.0f / float(1 + i % 13);
  }
  NDArray ax({n}, DType::F32), ay({n}, DType::F32);
  ax.copyFromHost(x.data(), ax.numBytes());
  ay.copyFromHost(y.data(), ay.numBytes());
  auto kv = KVStore::create("device");
  kv->init("big", ax);
  kv->push("big", {ax, ay, ax});
  NDArray out({n}, DType::F32);
  kv->pull("big", {out});
  std::vector<float> got = read(out);
  for (int64_t i = 0; i < n; i += 4099)
    ASSERT_EQ(got[i], (x[i] + y[i]) + x[i]) << i;
}

TEST(KVStore, UpdaterRunsOnThePushingThreadWithTheSum) {
  auto kv = KVStore::create("local");
  kv->init("k", filled({4}, 10));
  int calls = 0;
  kv->setUpdater([&](const std::string &key, const NDArray &recv, NDArray &stored) {
    ++calls;
    EXPECT_EQ(key, "k");
    // stored -= 0.5 * recv, as an optimizer's kernel would (on the engine)
    recv.engine().pushSync(
        [recv, stored](RunContext) {
          auto *w = static_cast<float *>(stored.data());
          auto *g = static_cast<const float *>(recv.data());
          for (int i = 0; i < 4; ++i)
            w[i] -= 0.5f * g[i];
        },
        Device::cpu(), {recv.var()}, {stored.var()});
  });
  kv->push("k", {filled({4}, 2), filled({4}, 2)});
  NDArray out({4}, DType::F32);
  kv->pull("k", {out});
  EXPECT_EQ(calls, 1);
  for (float x : read(out))
    EXPECT_EQ(x, 8.0f);
}

TEST(KVStore, BadInputNamesTheKey) {
  auto kv = KVStore::create("local");
  kv->init("fc1_weight", filled({2, 2}, 0));
  auto message = [&](auto f) {
    try {
      f();
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([&] { kv->push("fc1_weight", {filled({3}, 1)}); })
                .find("push of key 'fc1_weight': shape (3,) does not match the key's (2, 2)"),
            std::string::npos);
  EXPECT_NE(message([&] { kv->pull("nope", {filled({1}, 0)}); })
                .find("pull of key 'nope': the key has not been initialized"),
            std::string::npos);
  EXPECT_NE(message([&] { kv->init("fc1_weight", filled({2, 2}, 0)); }).find("already"),
            std::string::npos);
  NDArray i8({2, 2}, DType::I8);
  auto kv2 = KVStore::create("local");
  kv2->init("q", i8);
  EXPECT_NE(message([&] { kv2->push("q", {i8, i8}); }).find("int8 cannot be summed"),
            std::string::npos);
  EXPECT_NE(message([] { KVStore::create("bogus"); }).find("unknown kvstore type 'bogus'"),
            std::string::npos);
}
