// engine_test_util.h - helpers shared by the engine tests.
#ifndef MXC_RUNTIME_TEST_ENGINE_TEST_UTIL_H
#define MXC_RUNTIME_TEST_ENGINE_TEST_UTIL_H

#include "mxc/runtime/engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mxc::runtime::test {

/// The ThreadSanitizer build compiles a default below 1 (see
/// runtime/test/CMakeLists.txt) so that its run stays short.
#ifndef MXC_ENGINE_TEST_DEFAULT_SCALE
#define MXC_ENGINE_TEST_DEFAULT_SCALE 1.0
#endif

/// MXC_ENGINE_TEST_SCALE (default MXC_ENGINE_TEST_DEFAULT_SCALE) scales the
/// big workloads.
inline double testScale() {
  const char *text = std::getenv("MXC_ENGINE_TEST_SCALE");
  double scale = text && *text ? std::atof(text) : 0.0;
  return scale > 0 ? scale : MXC_ENGINE_TEST_DEFAULT_SCALE;
}

/// `n` scaled by testScale(), at least `floor`.
inline size_t scaled(size_t n, size_t floor) {
  return std::max(floor, static_cast<size_t>(static_cast<double>(n) * testScale()));
}

/// An engine of `kind` with the given workers and bound (0: no bound).
inline std::unique_ptr<Engine> makeEngine(const std::string &kind, int cpuWorkers = 2,
                                          size_t maxInFlight = 1 << 16,
                                          int priorityWorkers = 1) {
  EngineOptions opts;
  opts.kind = kind;
  opts.cpuWorkers = cpuWorkers;
  opts.maxInFlight = maxInFlight;
  opts.priorityWorkers = priorityWorkers;
  std::unique_ptr<Engine> engine = createEngine(opts);
  EXPECT_NE(engine, nullptr) << kind;
  return engine;
}

/// "ok" or the error's text, for assertion messages.
inline std::string describe(const std::optional<EngineError> &error) {
  return error ? error->str() : std::string("ok");
}

/// Events recorded by operations, in the order they happened.
class Trace {
public:
  void add(const std::string &event) {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(event);
  }
  /// Position of `event`, or -1.
  int at(const std::string &event) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = std::find(events_.begin(), events_.end(), event);
    return it == events_.end() ? -1 : static_cast<int>(it - events_.begin());
  }
  std::string str() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::string s;
    for (const std::string &e : events_)
      s += e + " ";
    return s;
  }

private:
  mutable std::mutex mu_;
  std::vector<std::string> events_;
};

} // namespace mxc::runtime::test

#endif // MXC_RUNTIME_TEST_ENGINE_TEST_UTIL_H
