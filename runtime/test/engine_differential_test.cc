// engine_differential_test.cc - MXNet's differential engine test, rebuilt:
// a random program of >= 100,000 operations over 64 variables, each with a
// random read set and write set, each a deterministic function of what it
// reads (and of the old values of what it writes); run on every engine
// configuration and compared with a plain serial loop. Every operation also
// records what it saw in a slot of its own, so a read that ran against the
// wrong version of a variable is caught even if a later write hides it.
#include "engine_test_util.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <ostream>
#include <random>
#include <thread>

namespace mxc::runtime::test {
namespace {

constexpr int kNumVars = 64;

/// How an operation is pushed.
enum class Style {
  Sync,          ///< pushSync on the CPU pool
  AsyncInline,   ///< pushAsync calling `done` before returning
  AsyncDeferred, ///< FnProperty::Async, `done` called later by another thread
  Prioritized,   ///< pushSync with FnProperty::CPUPrioritized
};

struct Op {
  std::vector<int> reads, writes;
  int priority = 0;
  Style style = Style::Sync;
};

struct Program {
  std::vector<Op> ops;
};

uint64_t mix(uint64_t x) { // splitmix64's finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

Program generate(uint32_t seed, size_t numOps) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
  Program p;
  p.ops.resize(numOps);
  for (Op &op : p.ops) {
    // 0-2 writes and 0-4 reads, distinct vars, never an op with neither.
    int numWrites = pick(3), numReads = pick(5);
    if (numWrites + numReads == 0)
      numWrites = 1;
    std::vector<int> vars;
    while (static_cast<int>(vars.size()) < numWrites + numReads) {
      int v = pick(kNumVars);
      if (std::find(vars.begin(), vars.end(), v) == vars.end())
        vars.push_back(v);
    }
    op.writes.assign(vars.begin(), vars.begin() + numWrites);
    op.reads.assign(vars.begin() + numWrites, vars.end());
    op.priority = pick(4) - 1;
    int s = pick(64);
    op.style = s == 0   ? Style::AsyncDeferred
               : s < 4  ? Style::AsyncInline
               : s < 12 ? Style::Prioritized
                        : Style::Sync;
  }
  return p;
}

/// The state a program computes: the variables and one slot per operation.
struct State {
  std::vector<uint64_t> vars;
  std::vector<uint64_t> seen;
  explicit State(size_t numOps) : vars(kNumVars), seen(numOps) {
    for (int i = 0; i < kNumVars; ++i)
      vars[i] = static_cast<uint64_t>(i) * 1000003u;
  }
};

void runOp(const Op &op, size_t index, State &s) {
  uint64_t h = mix(index + 1);
  for (int r : op.reads)
    h = mix(h ^ s.vars[r]);
  s.seen[index] = h;
  for (int w : op.writes)
    s.vars[w] = mix(h + s.vars[w] + static_cast<uint64_t>(w));
}

/// Calls deferred completion callbacks from a thread of its own, as a
/// device or network library would.
class Completer {
public:
  Completer() : thread_([this] { loop(); }) {}
  ~Completer() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  void defer(CompleteCallback done) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(done));
    }
    cv_.notify_one();
  }

private:
  void loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty())
        return;
      CompleteCallback done = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      done(std::string());
      lock.lock();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<CompleteCallback> queue_;
  bool stop_ = false;
  std::thread thread_;
};

void runOnEngine(const Program &p, Engine &engine, State &s, bool usePriorities) {
  std::vector<VarHandle> vars(kNumVars);
  for (VarHandle &v : vars)
    v = engine.newVar();
  Completer completer;
  const Device cpu = Device::cpu();
  for (size_t i = 0; i < p.ops.size(); ++i) {
    const Op &op = p.ops[i];
    std::vector<VarHandle> reads, writes;
    for (int r : op.reads)
      reads.push_back(vars[r]);
    for (int w : op.writes)
      writes.push_back(vars[w]);
    int priority = usePriorities ? op.priority : 0;
    switch (op.style) {
    case Style::Sync:
    case Style::Prioritized:
      engine.pushSync([&op, i, &s](RunContext) { runOp(op, i, s); }, cpu, std::move(reads),
                      std::move(writes),
                      op.style == Style::Prioritized ? FnProperty::CPUPrioritized
                                                     : FnProperty::Normal,
                      priority, "op");
      break;
    case Style::AsyncInline:
      engine.pushAsync(
          [&op, i, &s](RunContext, CompleteCallback done) {
            runOp(op, i, s);
            done(std::string());
          },
          cpu, std::move(reads), std::move(writes), FnProperty::Normal, priority, "op");
      break;
    case Style::AsyncDeferred:
      engine.pushAsync(
          [&op, i, &s, &completer](RunContext, CompleteCallback done) {
            runOp(op, i, s);
            completer.defer(std::move(done));
          },
          cpu, std::move(reads), std::move(writes), FnProperty::Async, priority, "op");
      break;
    }
  }
  std::optional<EngineError> error = engine.waitForAll();
  EXPECT_FALSE(error) << describe(error);
  EXPECT_EQ(engine.numPending(), 0u);
  for (VarHandle v : vars)
    engine.deleteVar(v);
  error = engine.waitForAll();
  EXPECT_FALSE(error) << describe(error);
}

struct Config {
  const char *name;
  const char *kind;
  int workers;
  bool priorities;
  size_t maxInFlight;
};

// Names the configuration in test listings (ctest shows GetParam()).
void PrintTo(const Config &cfg, std::ostream *os) { *os << cfg.name; }

class EngineDifferential : public ::testing::TestWithParam<Config> {};

TEST_P(EngineDifferential, MatchesSerialLoop) {
  const Config &cfg = GetParam();
  const size_t numOps = scaled(100000, 30000);
  // MXC_ENGINE_TEST_SEED picks another program (for soak runs).
  const char *seedText = std::getenv("MXC_ENGINE_TEST_SEED");
  const uint32_t seed = seedText && *seedText
                            ? static_cast<uint32_t>(std::strtoul(seedText, nullptr, 0))
                            : 0x5eed0000u + static_cast<uint32_t>(numOps);
  Program program = generate(seed, numOps);

  State serial(numOps);
  for (size_t i = 0; i < numOps; ++i)
    runOp(program.ops[i], i, serial);

  std::unique_ptr<Engine> engine = makeEngine(cfg.kind, cfg.workers, cfg.maxInFlight);
  ASSERT_NE(engine, nullptr);
  State got(numOps);
  auto start = std::chrono::steady_clock::now();
  runOnEngine(program, *engine, got, cfg.priorities);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                  .count();
  std::printf("%s: %zu ops over %d vars (seed %#x) in %.1f ms\n", cfg.name, numOps, kNumVars,
              seed, ms);

  for (int v = 0; v < kNumVars; ++v)
    ASSERT_EQ(got.vars[v], serial.vars[v]) << "variable " << v;
  size_t mismatches = 0, first = 0;
  for (size_t i = 0; i < numOps; ++i)
    if (got.seen[i] != serial.seen[i] && mismatches++ == 0)
      first = i;
  EXPECT_EQ(mismatches, 0u) << "first operation that read a wrong version: " << first;
}

INSTANTIATE_TEST_SUITE_P(
    Engines, EngineDifferential,
    ::testing::Values(Config{"naive", "naive", 1, false, 0},
                      Config{"threaded_1", "threaded", 1, false, 1 << 16},
                      Config{"threaded_2", "threaded", 2, false, 1 << 16},
                      Config{"threaded_4", "threaded", 4, false, 1 << 16},
                      Config{"threaded_2_priorities", "threaded", 2, true, 1 << 16},
                      Config{"threaded_4_priorities_bounded", "threaded", 4, true, 64}),
    [](const ::testing::TestParamInfo<Config> &info) { return std::string(info.param.name); });

} // namespace
} // namespace mxc::runtime::test
