// kvstore_bench.cc - push + pull of one array through the dist_sync KVStore
// against a raw MPI_Allreduce of the same bytes, in the same job (issue 12;
// docs/benchmarks.md, "KVStore"). Run under mpirun (bench/kvstore/run.sh):
//
//   mpirun -np 4 kvstore_bench [--mb 64] [--iters 10]
//
// Each measurement: a barrier, then the operation until its result is
// readable; median over the iterations, algorithm bandwidth = bytes / time
// (what the application moves per call, as nccl-tests' "algbw").
#include "mxc/runtime/kvstore.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace mxc::runtime;

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char **argv) {
  double mb = 64;
  int iters = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--mb"))
      mb = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--iters"))
      iters = std::atoi(argv[i + 1]);
  }
  // The store initialises MPI (MPI_THREAD_MULTIPLE); the raw baseline uses
  // MPI_COMM_WORLD from this thread while the store's lane is idle.
  auto kv = KVStore::create("dist_sync");
  int rank = kv->rank(), size = kv->numWorkers();
  const int64_t n = static_cast<int64_t>(mb * 1024 * 1024 / 4);
  std::vector<float> host(n, float(rank + 1));
  std::vector<double> raw, store;

  std::vector<float> buf(n);
  for (int it = 0; it < iters + 1; ++it) {
    std::memcpy(buf.data(), host.data(), n * 4);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    MPI_Allreduce(MPI_IN_PLACE, buf.data(), int(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double t = now() - t0;
    if (it)
      raw.push_back(t); // the first is a warm-up
  }

  NDArray grad({n}, DType::F32), out({n}, DType::F32);
  grad.copyFromHost(host.data(), grad.numBytes());
  kv->init("g", grad);
  kv->pull("g", {out});
  out.waitToRead();
  for (int it = 0; it < iters + 1; ++it) {
    kv->barrier();
    double t0 = now();
    kv->push("g", {grad});
    kv->pull("g", {out});
    out.waitToRead();
    double t = now() - t0;
    if (it)
      store.push_back(t);
  }
  // latency: one float, raw and through the store
  std::vector<double> rawLat, storeLat;
  NDArray one({1}, DType::F32), oneOut({1}, DType::F32);
  one.copyFromHost(host.data(), 4);
  kv->init("one", one);
  for (int it = 0; it < 200; ++it) {
    float x = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    rawLat.push_back(now() - t0);
  }
  for (int it = 0; it < 200; ++it) {
    kv->barrier();
    double t0 = now();
    kv->push("one", {one});
    kv->pull("one", {oneOut});
    oneOut.waitToRead();
    storeLat.push_back(now() - t0);
  }

  std::vector<float> check(n);
  out.copyToHost(check.data(), out.numBytes());
  float expect = float(size) * float(size + 1) / 2;
  bool ok = check[0] == expect && buf[0] == expect;

  // every rank's medians; rank 0 reports the slowest rank's (the job's pace)
  double mine[4] = {median(raw), median(store), median(rawLat), median(storeLat)}, worst[4];
  MPI_Reduce(mine, worst, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    double bytes = double(n) * 4;
    std::printf("| %d ranks, %.0f MB float32 | median (ms) | algbw (GB/s) |\n", size,
                bytes / 1048576.0);
    std::printf("|---|---:|---:|\n");
    std::printf("| raw MPI_Allreduce (Open MPI's algorithm) | %.1f | %.2f |\n", worst[0] * 1e3,
                bytes / worst[0] / 1e9);
    std::printf("| mx.kv dist_sync push + pull (fixed-order all-reduce, engine ops) | %.1f | "
                "%.2f |\n",
                worst[1] * 1e3, bytes / worst[1] / 1e9);
    std::printf("| ratio (store / raw bandwidth) | | %.2f |\n", worst[0] / worst[1]);
    std::printf("| latency, 1 float: raw MPI_Allreduce | %.1f us | |\n", worst[2] * 1e6);
    std::printf("| latency, 1 float: mx.kv push + pull | %.1f us | |\n", worst[3] * 1e6);
    std::printf("results %s (sum %.1f, expected %.1f)\n", ok ? "correct" : "WRONG", check[0],
                expect);
  }
  kv->finalize();
  kv.reset();
  kvstoreFinalizeMPI();
  return ok ? 0 : 1;
}
