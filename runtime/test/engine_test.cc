// engine_test.cc - the dependency engine's rules: overlap of independent
// operations and of reads, exclusion of writes, priorities, the priority
// pool, errors, deleteVar, waits, concurrent pushers, options and factory.
#include "engine_test_util.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

// Under ThreadSanitizer a race fails the test at once, whatever TSAN_OPTIONS
// the environment gives.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
extern "C" const char *__tsan_default_options() {
  return "halt_on_error=1:second_deadlock_stack=1";
}
#endif
#endif

namespace mxc::runtime::test {
namespace {

using namespace std::chrono_literals;
const Device kCpu = Device::cpu();

/// Waits (up to 10 s) until `flag` is set; returns whether it was.
bool waitFor(const std::atomic<bool> &flag) {
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!flag.load() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(1ms);
  return flag.load();
}

//===----------------------------------------------------------------------===//
// Overlap and exclusion (asserted on the recorded trace, not on times)
//===----------------------------------------------------------------------===//

// Two independent ~50 ms operations on 2 workers run at the same time: each
// starts before the other ends. After its 50 ms an operation also waits
// (bounded) for the other to have started, so a slow wake-up on a loaded
// machine cannot make the test flake; an engine that ran them one after the
// other would still show starts and ends in sequence.
TEST(EngineOverlap, IndependentOpsOverlapOnTwoWorkers) {
  auto engine = makeEngine("threaded", 2);
  Trace trace;
  std::atomic<bool> startedA{false}, startedB{false};
  VarHandle a = engine->newVar(), b = engine->newVar();
  auto body = [&trace](const char *name, std::atomic<bool> &self, std::atomic<bool> &other) {
    return [&trace, name, &self, &other](RunContext) {
      trace.add(std::string("start ") + name);
      self = true;
      std::this_thread::sleep_for(50ms);
      waitFor(other);
      trace.add(std::string("end ") + name);
    };
  };
  engine->pushSync(body("A", startedA, startedB), kCpu, {}, {a});
  engine->pushSync(body("B", startedB, startedA), kCpu, {}, {b});
  EXPECT_FALSE(engine->waitForAll());
  EXPECT_LT(trace.at("start B"), trace.at("end A")) << trace.str();
  EXPECT_LT(trace.at("start A"), trace.at("end B")) << trace.str();
  engine->deleteVar(a);
  engine->deleteVar(b);
}

// Reads of one variable run together.
TEST(EngineOverlap, ReadsOfOneVarOverlap) {
  auto engine = makeEngine("threaded", 2);
  Trace trace;
  std::atomic<bool> startedA{false}, startedB{false};
  VarHandle v = engine->newVar();
  auto body = [&trace](const char *name, std::atomic<bool> &self, std::atomic<bool> &other) {
    return [&trace, name, &self, &other](RunContext) {
      trace.add(std::string("start ") + name);
      self = true;
      std::this_thread::sleep_for(50ms);
      waitFor(other);
      trace.add(std::string("end ") + name);
    };
  };
  engine->pushSync(body("A", startedA, startedB), kCpu, {v}, {});
  engine->pushSync(body("B", startedB, startedA), kCpu, {v}, {});
  EXPECT_FALSE(engine->waitForAll());
  EXPECT_LT(trace.at("start B"), trace.at("end A")) << trace.str();
  EXPECT_LT(trace.at("start A"), trace.at("end B")) << trace.str();
  engine->deleteVar(v);
}

// The converse: two writes of one variable never overlap, whatever the
// number of workers, and a read waits for the write before it and blocks
// the write after it.
TEST(EngineOverlap, WritesOfOneVarNeverOverlap) {
  for (int workers : {2, 4}) {
    auto engine = makeEngine("threaded", workers);
    Trace trace;
    VarHandle v = engine->newVar();
    auto body = [&trace](const char *name) {
      return [&trace, name](RunContext) {
        trace.add(std::string("start ") + name);
        std::this_thread::sleep_for(50ms);
        trace.add(std::string("end ") + name);
      };
    };
    engine->pushSync(body("W1"), kCpu, {}, {v});
    engine->pushSync(body("W2"), kCpu, {}, {v});
    engine->pushSync(body("R"), kCpu, {v}, {});
    engine->pushSync(body("W3"), kCpu, {}, {v});
    EXPECT_FALSE(engine->waitForAll());
    EXPECT_LT(trace.at("end W1"), trace.at("start W2")) << trace.str();
    EXPECT_LT(trace.at("end W2"), trace.at("start R")) << trace.str();
    EXPECT_LT(trace.at("end R"), trace.at("start W3")) << trace.str();
    engine->deleteVar(v);
  }
}

//===----------------------------------------------------------------------===//
// Priorities and pools
//===----------------------------------------------------------------------===//

// With the only CPU worker busy, ready operations queue; the highest
// priority runs first, equal priorities in push order.
TEST(EnginePriority, HigherPriorityRunsFirstAmongReadyOps) {
  auto engine = makeEngine("threaded", 1);
  Trace trace;
  std::atomic<bool> release{false}, blocking{false};
  engine->pushSync(
      [&](RunContext) {
        blocking = true;
        waitFor(release);
      },
      kCpu, {}, {});
  ASSERT_TRUE(waitFor(blocking));
  int order[] = {0, 5, -3, 5, 1};
  for (int i = 0; i < 5; ++i)
    engine->pushSync([&trace, i](RunContext) { trace.add("op" + std::to_string(i)); }, kCpu,
                     {}, {}, FnProperty::Normal, order[i]);
  release = true;
  EXPECT_FALSE(engine->waitForAll());
  EXPECT_EQ(trace.str(), "op1 op3 op4 op0 op2 ");
}

// CPUPrioritized operations have their own pool: they run while every CPU
// worker is busy.
TEST(EnginePriority, PrioritizedPoolRunsWhileCpuWorkersAreBusy) {
  auto engine = makeEngine("threaded", 1);
  std::atomic<bool> release{false}, blocking{false};
  std::atomic<bool> prioritizedRan{false};
  engine->pushSync(
      [&](RunContext) {
        blocking = true;
        waitFor(release);
      },
      kCpu, {}, {});
  ASSERT_TRUE(waitFor(blocking));
  engine->pushSync([&](RunContext) { prioritizedRan = true; }, kCpu, {}, {},
                   FnProperty::CPUPrioritized, 0, "kvstore-push");
  EXPECT_TRUE(waitFor(prioritizedRan));
  release = true;
  EXPECT_FALSE(engine->waitForAll());
}

// GPU operations go to per-device pools (filled in by the GPU issue); the
// dependency rules are the same.
TEST(EnginePriority, GpuLanesFollowTheSameRules) {
  auto engine = makeEngine("threaded", 2);
  VarHandle v = engine->newVar();
  std::vector<int> order;
  for (FnProperty prop : {FnProperty::CopyToGPU, FnProperty::Normal, FnProperty::CopyFromGPU})
    engine->pushSync([&order, prop](RunContext ctx) {
      EXPECT_EQ(ctx.device, Device::gpu(1));
      order.push_back(static_cast<int>(prop));
    }, Device::gpu(1), {}, {v}, prop);
  EXPECT_FALSE(engine->waitForVar(v));
  EXPECT_EQ(order, (std::vector<int>{static_cast<int>(FnProperty::CopyToGPU),
                                     static_cast<int>(FnProperty::Normal),
                                     static_cast<int>(FnProperty::CopyFromGPU)}));
  engine->deleteVar(v);
}

//===----------------------------------------------------------------------===//
// Errors, on every engine
//===----------------------------------------------------------------------===//

class EngineErrors : public ::testing::TestWithParam<std::string> {};

TEST_P(EngineErrors, FailureNamesTheOpAndPropagatesToDependents) {
  auto engine = makeEngine(GetParam());
  VarHandle a = engine->newVar(), b = engine->newVar(), c = engine->newVar(),
            d = engine->newVar();
  std::atomic<bool> dependentRan{false}, transitiveRan{false}, independentRan{false};
  engine->pushSync([](RunContext) { throw std::runtime_error("boom"); }, kCpu, {}, {a},
                   FnProperty::Normal, 0, "bad");
  engine->pushSync([&](RunContext) { dependentRan = true; }, kCpu, {a}, {b},
                   FnProperty::Normal, 0, "dependent");
  engine->pushSync([&](RunContext) { transitiveRan = true; }, kCpu, {b, c}, {d},
                   FnProperty::Normal, 0, "transitive");
  engine->pushSync([&](RunContext) { independentRan = true; }, kCpu, {}, {c},
                   FnProperty::Normal, 0, "independent");

  for (VarHandle v : {a, b, d}) {
    std::optional<EngineError> error = engine->waitForVar(v);
    ASSERT_TRUE(error);
    EXPECT_EQ(error->opName, "bad");
    EXPECT_EQ(error->message, "boom");
    EXPECT_EQ(error->str(), "operation 'bad' failed: boom");
  }
  std::optional<EngineError> cError = engine->waitForVar(c);
  EXPECT_FALSE(cError) << describe(cError);
  EXPECT_FALSE(dependentRan);
  EXPECT_FALSE(transitiveRan);
  EXPECT_TRUE(independentRan);

  // waitForVar returned the failure: waitForAll does not report it again
  // (MXNet raises one failure once; WaitForAllReportsUnreportedFailures).
  std::optional<EngineError> all = engine->waitForAll();
  EXPECT_FALSE(all) << describe(all);

  // The vars stay failed until written again; a successful write clears one.
  EXPECT_TRUE(engine->waitForVar(a));
  std::atomic<bool> fixRan{false}, recomputeRan{false};
  engine->pushSync([&](RunContext) { fixRan = true; }, kCpu, {}, {a}, FnProperty::Normal, 0,
                   "fix");
  std::optional<EngineError> fixed = engine->waitForVar(a);
  EXPECT_FALSE(fixed) << describe(fixed);
  EXPECT_TRUE(fixRan);
  EXPECT_TRUE(engine->waitForVar(b)) << "b is still failed";
  engine->pushSync([&](RunContext) { recomputeRan = true; }, kCpu, {a}, {b},
                   FnProperty::Normal, 0, "recompute");
  std::optional<EngineError> recomputed = engine->waitForVar(b);
  EXPECT_FALSE(recomputed) << describe(recomputed);
  EXPECT_TRUE(recomputeRan);
  EXPECT_FALSE(engine->waitForAll());
  for (VarHandle v : {a, b, c, d})
    engine->deleteVar(v);
  EXPECT_FALSE(engine->waitForAll());
}

TEST_P(EngineErrors, AsyncFailuresAreCaptured) {
  auto engine = makeEngine(GetParam());
  VarHandle a = engine->newVar(), b = engine->newVar(), c = engine->newVar(),
            d = engine->newVar();
  // An error string given to the callback.
  engine->pushAsync([](RunContext, CompleteCallback done) { done("device lost"); }, kCpu, {},
                    {a}, FnProperty::Normal, 0, "async-error");
  // An exception thrown before the callback.
  engine->pushAsync(
      [](RunContext, CompleteCallback) { throw std::logic_error("thrown by async"); }, kCpu,
      {}, {b}, FnProperty::Async, 0, "async-throw");
  // Something that is not a std::exception.
  engine->pushSync([](RunContext) { throw 42; }, kCpu, {}, {c}, FnProperty::Normal, 0,
                   "throws-int");
  // The callback called from another thread, with an error.
  engine->pushAsync(
      [](RunContext, CompleteCallback done) {
        std::thread([done] { done("remote failure"); }).detach();
      },
      kCpu, {}, {d}, FnProperty::Async, 0, "remote");

  std::optional<EngineError> ea = engine->waitForVar(a), eb = engine->waitForVar(b),
                             ec = engine->waitForVar(c), ed = engine->waitForVar(d);
  ASSERT_TRUE(ea && eb && ec && ed);
  EXPECT_EQ(ea->str(), "operation 'async-error' failed: device lost");
  EXPECT_EQ(eb->str(), "operation 'async-throw' failed: thrown by async");
  EXPECT_EQ(ec->opName, "throws-int");
  EXPECT_NE(ec->message.find("unknown exception"), std::string::npos) << ec->message;
  EXPECT_EQ(ed->str(), "operation 'remote' failed: remote failure");
  EXPECT_FALSE(engine->waitForAll()) << "each failure was returned by a waitForVar";
  for (VarHandle v : {a, b, c, d})
    engine->deleteVar(v);
  EXPECT_FALSE(engine->waitForAll());
}

// waitForAll reports the first failure since the last waitForAll that no
// wait has returned (MXNet's global exception list, one failure raised once):
// a failure an array's wait raised is not raised again by the next
// mx.nd.waitall(); one nothing waited for is, even when its variable is gone
// or the operation wrote none; a variable stays failed after either report.
TEST_P(EngineErrors, WaitForAllReportsUnreportedFailures) {
  auto engine = makeEngine(GetParam());
  VarHandle a = engine->newVar(), b = engine->newVar(), c = engine->newVar(),
            d = engine->newVar();
  auto fail = [](const char *what) {
    return [what](RunContext) { throw std::runtime_error(what); };
  };
  engine->pushSync(fail("first"), kCpu, {}, {a}, FnProperty::Normal, 0, "first");
  engine->pushSync(fail("second"), kCpu, {}, {b}, FnProperty::Normal, 0, "second");
  engine->pushSync([](RunContext) {}, kCpu, {b}, {c}, FnProperty::Normal, 0, "reads-b");
  std::optional<EngineError> eb = engine->waitForVar(c); // inherits "second"
  ASSERT_TRUE(eb);
  EXPECT_EQ(eb->opName, "second");
  std::optional<EngineError> all = engine->waitForAll();
  ASSERT_TRUE(all) << "'first' was never waited for";
  EXPECT_EQ(all->opName, "first");
  EXPECT_FALSE(engine->waitForAll()) << "reported once";
  EXPECT_TRUE(engine->waitForVar(a)) << "a stays failed";
  EXPECT_TRUE(engine->waitForVar(b)) << "b stays failed";

  // Nothing waited for: a failure whose variable is deleted, then one of an
  // operation that writes no variable; the first is reported.
  engine->pushSync(fail("dropped"), kCpu, {}, {d}, FnProperty::Normal, 0, "dropped");
  engine->deleteVar(d);
  engine->pushSync(fail("no-writes"), kCpu, {}, {}, FnProperty::Normal, 0, "no-writes");
  all = engine->waitForAll();
  ASSERT_TRUE(all);
  EXPECT_EQ(all->opName, "dropped");
  EXPECT_FALSE(engine->waitForAll());
  engine->pushSync(fail("no-writes"), kCpu, {}, {}, FnProperty::Normal, 0, "no-writes");
  all = engine->waitForAll();
  ASSERT_TRUE(all);
  EXPECT_EQ(all->opName, "no-writes");
  for (VarHandle v : {a, b, c})
    engine->deleteVar(v);
  EXPECT_FALSE(engine->waitForAll());
}

// Many failures and their dependents in one stream: nothing deadlocks, every
// independent chain completes, and waitForAll reports one of the failures.
TEST_P(EngineErrors, ManyFailuresNeitherDeadlockNorStopOtherWork) {
  auto engine = makeEngine(GetParam(), 2, 8);
  constexpr int kVars = 16;
  std::vector<VarHandle> vars(kVars);
  for (VarHandle &v : vars)
    v = engine->newVar();
  std::vector<int> counts(kVars, 0); // var i is only written by ops writing it
  std::vector<int> expected(kVars, 0);
  const int n = static_cast<int>(scaled(4000, 500));
  for (int i = 0; i < n; ++i) {
    int w = i % kVars, r = (i * 7 + 3) % kVars;
    ++expected[w];
    bool fail = w % 4 == 0 && i % 3 == 0;
    std::vector<VarHandle> reads;
    if (r != w && w % 2 == 0) // odd vars form independent chains
      reads.push_back(vars[r]);
    engine->pushSync(
        [&counts, w, fail](RunContext) {
          ++counts[w];
          if (fail)
            throw std::runtime_error("planned");
        },
        kCpu, reads, {vars[w]}, FnProperty::Normal, 0, fail ? "failing" : "ok");
  }
  std::optional<EngineError> all = engine->waitForAll();
  ASSERT_TRUE(all);
  EXPECT_EQ(all->opName, "failing");
  for (int v = 1; v < kVars; v += 2)
    EXPECT_EQ(counts[v], expected[v]) << "independent var " << v;
  for (VarHandle v : vars)
    engine->deleteVar(v);
  EXPECT_FALSE(engine->waitForAll());
}

INSTANTIATE_TEST_SUITE_P(Engines, EngineErrors, ::testing::Values("naive", "threaded"));

//===----------------------------------------------------------------------===//
// deleteVar, waits, concurrent pushers
//===----------------------------------------------------------------------===//

class EngineLifecycle : public ::testing::TestWithParam<std::string> {};

TEST_P(EngineLifecycle, DeleteVarWaitsForPendingOps) {
  auto engine = makeEngine(GetParam(), 2);
  VarHandle v = engine->newVar(), other = engine->newVar();
  int written = 0;
  std::atomic<int> reads{0};
  for (int i = 0; i < 50; ++i) {
    engine->pushSync([&written](RunContext) {
      std::this_thread::sleep_for(100us);
      ++written;
    }, kCpu, {}, {v});
    engine->pushSync([&reads](RunContext) { ++reads; }, kCpu, {v}, {other});
  }
  engine->deleteVar(v); // returns at once; the var goes after the 100 ops
  engine->deleteVar(engine->newVar()); // a var nothing used
  EXPECT_FALSE(engine->waitForAll());
  EXPECT_EQ(written, 50);
  EXPECT_EQ(reads, 50);
  EXPECT_EQ(engine->numPending(), 0u);
  engine->deleteVar(other);
  EXPECT_FALSE(engine->waitForAll());
}

// deleteVar(var, onDelete) (MXNet's DeleteVariable): onDelete runs once,
// after every operation pushed on the var, and a throwing onDelete is
// swallowed (the var still goes; nothing fails).
TEST_P(EngineLifecycle, DeleteVarRunsOnDeleteAfterPendingOps) {
  auto engine = makeEngine(GetParam(), 2);
  VarHandle v = engine->newVar();
  std::atomic<int> written{0};
  std::atomic<int> seenAtDelete{-1};
  std::atomic<int> calls{0};
  for (int i = 0; i < 20; ++i)
    engine->pushSync([&written](RunContext) {
      std::this_thread::sleep_for(100us);
      ++written;
    }, kCpu, {}, {v});
  engine->deleteVar(v, [&] {
    seenAtDelete = written.load();
    ++calls;
  });
  engine->deleteVar(engine->newVar(), [] { throw std::runtime_error("ignored"); });
  EXPECT_FALSE(engine->waitForAll());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seenAtDelete, 20);
  EXPECT_EQ(engine->numPending(), 0u);
}

TEST_P(EngineLifecycle, DeleteFailedVar) {
  auto engine = makeEngine(GetParam());
  VarHandle v = engine->newVar();
  engine->pushSync([](RunContext) { throw std::runtime_error("x"); }, kCpu, {}, {v});
  engine->deleteVar(v);
  EXPECT_TRUE(engine->waitForAll());
}

TEST_P(EngineLifecycle, WaitsOnAnIdleEngineReturnAtOnce) {
  auto engine = makeEngine(GetParam());
  EXPECT_FALSE(engine->waitForAll());
  EXPECT_EQ(engine->numPending(), 0u);
  VarHandle v = engine->newVar();
  EXPECT_FALSE(engine->waitForVar(v));
  EXPECT_FALSE(engine->waitForAll());
  engine->deleteVar(v);
}

// waitForVar waits for the writes pushed before it, not for unrelated work.
TEST_P(EngineLifecycle, WaitForVarSeesEarlierWrites) {
  auto engine = makeEngine(GetParam(), 2);
  VarHandle v = engine->newVar();
  int value = 0;
  for (int i = 1; i <= 100; ++i)
    engine->pushSync([&value, i](RunContext) { value = i; }, kCpu, {}, {v});
  EXPECT_FALSE(engine->waitForVar(v));
  EXPECT_EQ(value, 100);
  engine->deleteVar(v);
  EXPECT_FALSE(engine->waitForAll());
}

// Eight threads push at once into shared and private variables.
TEST_P(EngineLifecycle, ManyThreadsPushConcurrently) {
  for (size_t bound : {size_t(1) << 16, size_t(16)}) {
    auto engine = makeEngine(GetParam(), 2, bound);
    constexpr int kThreads = 8;
    const int perThread = static_cast<int>(scaled(5000, 500));
    VarHandle shared = engine->newVar();
    long sharedCount = 0;
    std::vector<VarHandle> own(kThreads);
    std::vector<long> ownCount(kThreads, 0);
    for (VarHandle &v : own)
      v = engine->newVar();
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < perThread; ++i) {
          if (i % 10 == 0)
            engine->pushSync([&sharedCount](RunContext) { ++sharedCount; }, kCpu, {},
                             {shared});
          else
            engine->pushSync([&ownCount, &sharedCount, t](RunContext) {
              ownCount[t] += sharedCount >= 0 ? 1 : 0; // reads the shared var
            }, kCpu, {shared}, {own[t]});
        }
        EXPECT_FALSE(engine->waitForVar(own[t]));
      });
    for (std::thread &t : threads)
      t.join();
    EXPECT_FALSE(engine->waitForAll());
    EXPECT_EQ(sharedCount, kThreads * ((perThread + 9) / 10));
    for (int t = 0; t < kThreads; ++t)
      EXPECT_EQ(ownCount[t], perThread - (perThread + 9) / 10);
    for (VarHandle v : own)
      engine->deleteVar(v);
    engine->deleteVar(shared);
    EXPECT_FALSE(engine->waitForAll());
  }
}

// An operation may push more operations, even with a bound of one op in
// flight: workers never block on back-pressure.
TEST_P(EngineLifecycle, OpsMayPushOps) {
  auto engine = makeEngine(GetParam(), 1, 1);
  Engine *e = engine.get();
  VarHandle v = engine->newVar();
  std::atomic<int> ran{0};
  engine->pushSync([e, v, &ran](RunContext) {
    for (int i = 0; i < 10; ++i)
      e->pushSync([&ran](RunContext) { ++ran; }, kCpu, {}, {v});
  }, kCpu, {}, {});
  EXPECT_FALSE(engine->waitForAll());
  EXPECT_EQ(ran, 10);
  engine->deleteVar(v);
}

// Duplicates are ignored and a var both read and written counts as written.
TEST_P(EngineLifecycle, ReadWriteSetsAreNormalised) {
  auto engine = makeEngine(GetParam(), 2);
  VarHandle v = engine->newVar(), w = engine->newVar();
  int value = 0;
  for (int i = 0; i < 100; ++i)
    engine->pushSync([&value](RunContext) { value = value + 1; }, kCpu, {v, w, v}, {v, v});
  EXPECT_FALSE(engine->waitForAll());
  EXPECT_EQ(value, 100);
  EXPECT_THROW(engine->pushSync([](RunContext) {}, kCpu, {nullptr}, {}), std::invalid_argument);
  engine->deleteVar(v);
  engine->deleteVar(w);
  EXPECT_FALSE(engine->waitForAll());
}

INSTANTIATE_TEST_SUITE_P(Engines, EngineLifecycle, ::testing::Values("naive", "threaded"));

// Waiting inside an operation could wait for itself: it is an error, not a
// deadlock.
TEST(EngineThreaded, WaitingInsideAnOperationIsAnError) {
  auto engine = makeEngine("threaded", 1);
  VarHandle v = engine->newVar();
  std::optional<EngineError> inner, innerAll;
  engine->pushSync([&](RunContext) {
    inner = engine->waitForVar(v);
    innerAll = engine->waitForAll();
  }, kCpu, {}, {v});
  EXPECT_FALSE(engine->waitForAll());
  ASSERT_TRUE(inner && innerAll);
  EXPECT_EQ(inner->opName, "waitForVar");
  EXPECT_EQ(innerAll->opName, "waitForAll");
  engine->deleteVar(v);
}

// Destroying an engine waits for what was pushed.
TEST(EngineThreaded, DestructorWaitsForPendingOps) {
  std::atomic<int> ran{0};
  {
    auto engine = makeEngine("threaded", 2);
    VarHandle v = engine->newVar();
    for (int i = 0; i < 20; ++i)
      engine->pushSync([&ran](RunContext) {
        std::this_thread::sleep_for(1ms);
        ++ran;
      }, kCpu, {}, {v});
    engine->deleteVar(v);
  }
  EXPECT_EQ(ran, 20);
}

//===----------------------------------------------------------------------===//
// Options and factory
//===----------------------------------------------------------------------===//

TEST(EngineFactory, KnowsNaiveAndThreaded) {
  std::vector<std::string> kinds = registeredEngines();
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "naive"), kinds.end());
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "threaded"), kinds.end());
  EngineOptions opts;
  opts.kind = "NaiveEngine";
  EXPECT_EQ(createEngine(opts), nullptr);
  opts.kind = "thread";
  EXPECT_EQ(createEngine(opts), nullptr);
}

TEST(EngineFactory, OptionsFromEnvironment) {
  ::setenv("MXC_ENGINE", "naive", 1);
  ::setenv("MXC_CPU_WORKER_NTHREADS", "3", 1);
  ::setenv("MXC_ENGINE_MAX_INFLIGHT", "123", 1);
  ::setenv("MXC_CPU_PRIORITY_NTHREADS", "zero", 1); // malformed: ignored
  EXPECT_TRUE(EngineOptions::fromEnvironment().gpuEvents);
  ::setenv("MXC_ENGINE_GPU_EVENTS", "0", 1);
  EngineOptions opts = EngineOptions::fromEnvironment();
  EXPECT_FALSE(opts.gpuEvents);
  EXPECT_EQ(opts.kind, "naive");
  EXPECT_EQ(opts.cpuWorkers, 3);
  EXPECT_EQ(opts.maxInFlight, 123u);
  EXPECT_EQ(opts.priorityWorkers, EngineOptions().priorityWorkers);
  ::setenv("MXC_CPU_WORKER_NTHREADS", "0", 1); // below the minimum: ignored
  EXPECT_EQ(EngineOptions::fromEnvironment().cpuWorkers, EngineOptions().cpuWorkers);
  // The default engine follows MXC_ENGINE (this test runs in its own process
  // under ctest; run alone it is the first to create the default engine).
  Engine &e = defaultEngine();
  std::thread::id pusher = std::this_thread::get_id(), runner;
  e.pushSync([&runner](RunContext) { runner = std::this_thread::get_id(); }, kCpu, {}, {});
  EXPECT_FALSE(e.waitForAll());
  EXPECT_EQ(runner, pusher) << "MXC_ENGINE=naive runs ops in the pushing thread";
  for (const char *name : {"MXC_ENGINE", "MXC_CPU_WORKER_NTHREADS", "MXC_ENGINE_MAX_INFLIGHT",
                           "MXC_CPU_PRIORITY_NTHREADS", "MXC_ENGINE_GPU_EVENTS"})
    ::unsetenv(name);
}

//===----------------------------------------------------------------------===//
// FnProperty::Light: ready at push time, it runs on the pushing thread
//===----------------------------------------------------------------------===//

TEST(EngineLight, ReadyOpRunsOnThePushingThreadBeforePushReturns) {
  auto engine = makeEngine("threaded", 2);
  VarHandle v = engine->newVar();
  std::thread::id ranOn;
  bool ran = false;
  engine->pushSync(
      [&](RunContext) {
        ranOn = std::this_thread::get_id();
        ran = true;
      },
      kCpu, {}, {v}, FnProperty::Light, 0, "light");
  // No wait: it ran inside pushSync.
  EXPECT_TRUE(ran);
  EXPECT_EQ(ranOn, std::this_thread::get_id());
  EXPECT_EQ(engine->numPending(), 0u);
  engine->deleteVar(v);
  EXPECT_FALSE(engine->waitForAll());
}

TEST(EngineLight, WaitsForItsDependenciesOnAWorker) {
  auto engine = makeEngine("threaded", 1);
  VarHandle v = engine->newVar();
  std::atomic<bool> release{false};
  Trace trace;
  engine->pushSync(
      [&](RunContext) {
        waitFor(release);
        trace.add("writer");
      },
      kCpu, {}, {v});
  std::atomic<bool> onPusher{false};
  const std::thread::id pusher = std::this_thread::get_id();
  engine->pushSync(
      [&](RunContext) {
        trace.add("light");
        onPusher = std::this_thread::get_id() == pusher;
      },
      kCpu, {v}, {}, FnProperty::Light, 0, "light");
  // Not ready: queued behind the writer, not run here.
  EXPECT_EQ(trace.at("light"), -1) << trace.str();
  release = true;
  EXPECT_FALSE(engine->waitForAll());
  EXPECT_LT(trace.at("writer"), trace.at("light")) << trace.str();
  EXPECT_FALSE(onPusher.load());
  engine->deleteVar(v);
}

TEST(EngineLight, FailureSurfacesAtTheWaitAndWaitsInsideFailAtOnce) {
  auto engine = makeEngine("threaded", 1);
  VarHandle v = engine->newVar(), w = engine->newVar();
  engine->pushSync([](RunContext) { throw std::runtime_error("light broke"); }, kCpu, {},
                   {v}, FnProperty::Light, 0, "light-fail");
  auto err = engine->waitForVar(v);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->opName, "light-fail");
  EXPECT_EQ(err->message, "light broke");
  // A wait inside a Light op running on the pusher returns an error instead
  // of waiting for itself.
  std::optional<EngineError> inside;
  engine->pushSync([&](RunContext) { inside = engine->waitForVar(w); }, kCpu, {}, {w},
                   FnProperty::Light, 0, "light-wait");
  ASSERT_TRUE(inside);
  EXPECT_NE(inside->message.find("inside an operation"), std::string::npos)
      << inside->message;
  (void)engine->waitForAll();
  engine->deleteVar(v);
  engine->deleteVar(w);
}

} // namespace
} // namespace mxc::runtime::test
