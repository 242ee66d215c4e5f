// main.cc - the mxc runtime from C++, built against an installed mxc
// (find_package(mxc), target mxc::runtime). The MXNet paper's dependency
// engine at work: operations declare the variables they read and write, are
// pushed and return at once; the engine orders them.
//
//   a = [0, 1, ..., n-1]
//   b = 2 * a              reads a, writes b
//   a += 1                 writes a: waits for the read above (b sees old a)
//   c = a + b              reads a and b, writes c
//   a *= 10 (in place)     writes a again, after c's read
//
// then waits and checks every element against the serial result.
#include "mxc/runtime/engine.h"
#include "mxc/runtime/error.h"
#include "mxc/runtime/ndarray.h"

#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using namespace mxc::runtime;

int main() {
  EngineOptions opts = EngineOptions::fromEnvironment();
  opts.kind = "threaded";
  opts.cpuWorkers = 2;
  // Declared first: destroyed last, after the arrays' pending operations.
  std::unique_ptr<Engine> engine = createEngine(opts);
  if (!engine) {
    std::fprintf(stderr, "engine_demo: no 'threaded' engine\n");
    return 1;
  }
  try {
    const int64_t n = 1 << 16;
    const Device cpu = Device::cpu();
    NDArray a({n}, DType::F32, cpu, engine.get());
    NDArray b({n}, DType::F32, cpu, engine.get());
    NDArray c({n}, DType::F32, cpu, engine.get());
    std::vector<float> init(n);
    for (int64_t i = 0; i < n; ++i)
      init[i] = float(i);
    a.copyFromHost(init.data(), init.size() * sizeof(float));

    auto f32 = [](const NDArray &x) { return static_cast<float *>(x.data()); };
    engine->pushSync(
        [=](RunContext) {
          for (int64_t i = 0; i < n; ++i)
            f32(b)[i] = 2 * f32(a)[i];
        },
        cpu, {a.var()}, {b.var()}, FnProperty::Normal, 0, "double");
    engine->pushSync(
        [=](RunContext) {
          for (int64_t i = 0; i < n; ++i)
            f32(a)[i] += 1;
        },
        cpu, {}, {a.var()}, FnProperty::Normal, 0, "increment");
    engine->pushSync(
        [=](RunContext) {
          for (int64_t i = 0; i < n; ++i)
            f32(c)[i] = f32(a)[i] + f32(b)[i];
        },
        cpu, {a.var(), b.var()}, {c.var()}, FnProperty::Normal, 0, "sum");
    engine->pushSync(
        [=](RunContext) {
          for (int64_t i = 0; i < n; ++i)
            f32(a)[i] *= 10;
        },
        cpu, {}, {a.var()}, FnProperty::Normal, 0, "scale");
    std::printf("engine_demo: pushed 4 operations, %zu pending\n",
                engine->numPending());

    // A failing operation is reported where its output is waited for.
    NDArray bad({4}, DType::F32, cpu, engine.get());
    engine->pushSync([](RunContext) { throw std::runtime_error("no luck"); },
                     cpu, {}, {bad.var()}, FnProperty::Normal, 0, "failing_op");

    std::vector<float> ha(n), hb(n), hc(n);
    a.copyToHost(ha.data(), ha.size() * sizeof(float));
    b.copyToHost(hb.data(), hb.size() * sizeof(float));
    c.copyToHost(hc.data(), hc.size() * sizeof(float));
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) {
      float x = float(i);
      if (hb[i] != 2 * x || hc[i] != (x + 1) + 2 * x || ha[i] != (x + 1) * 10)
        ++wrong;
    }
    bool failed = false;
    try {
      bad.waitToRead();
    } catch (const Error &e) {
      failed = std::string(e.what()).find("failing_op") != std::string::npos;
      std::printf("engine_demo: expected failure: %s\n", e.what());
    }
    engine->waitForAll(); // clears the recorded failure
    if (wrong || !failed) {
      std::fprintf(stderr, "engine_demo: FAILED (%lld wrong elements%s)\n",
                   (long long)wrong, failed ? "" : ", no error from failing_op");
      return 1;
    }
    std::printf("engine_demo: OK: b = 2a, c = (a+1) + 2a, a = 10(a+1) over %lld "
                "elements; c[%lld] = %g\n",
                (long long)n, (long long)(n - 1), hc[n - 1]);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "engine_demo: %s\n", e.what());
    return 1;
  }
  return 0;
}
