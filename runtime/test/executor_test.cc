// executor_test.cc - running plans on every engine: right numbers for a
// diamond, independent steps overlapping (checked on a trace), arena buffers
// that share memory kept in order, failures naming their step.
#include "mxc/runtime/plan.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

using namespace mxc::runtime;

namespace {

// ---- Test kernels (the kernel ABI: data pointers, shapes baked in) --------

constexpr int kN = 4; // every test buffer is (4,) float32

void kScale2(void **b) { // writes b[1] = 2 * b[0]
  auto *x = static_cast<const float *>(b[0]);
  auto *y = static_cast<float *>(b[1]);
  for (int i = 0; i < kN; ++i)
    y[i] = 2 * x[i];
}
void kAdd1(void **b) { // b[1] = b[0] + 1
  auto *x = static_cast<const float *>(b[0]);
  auto *y = static_cast<float *>(b[1]);
  for (int i = 0; i < kN; ++i)
    y[i] = x[i] + 1;
}
void kAdd(void **b) { // b[2] = b[0] + b[1]
  auto *x = static_cast<const float *>(b[0]);
  auto *y = static_cast<const float *>(b[1]);
  auto *z = static_cast<float *>(b[2]);
  for (int i = 0; i < kN; ++i)
    z[i] = x[i] + y[i];
}
void kAccumulate(void **b) { // b[1] += b[0] (in place)
  auto *x = static_cast<const float *>(b[0]);
  auto *w = static_cast<float *>(b[1]);
  for (int i = 0; i < kN; ++i)
    w[i] += x[i];
}
void kReportFailure(void **) { reportKernelError("input is not finite"); }
void kThrow(void **) { throw std::runtime_error("kernel threw"); }

// ---- A trace the kernels record into, with a meeting point ----------------

struct Tracer {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> events;
  bool waitForPeer = false; // kernels 'left'/'right' wait for each other

  void reset(bool wait) {
    std::lock_guard<std::mutex> lock(mu);
    events.clear();
    waitForPeer = wait;
  }
  void add(const std::string &e) {
    std::lock_guard<std::mutex> lock(mu);
    events.push_back(e);
    cv.notify_all();
  }
  bool has(const std::string &e) {
    for (const std::string &x : events)
      if (x == e)
        return true;
    return false;
  }
  // Waits (bounded) until `e` is recorded; returns whether it was.
  bool awaitEvent(const std::string &e, std::chrono::milliseconds limit) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, limit, [&] { return has(e); });
  }
  int at(const std::string &e) {
    std::lock_guard<std::mutex> lock(mu);
    for (size_t i = 0; i < events.size(); ++i)
      if (events[i] == e)
        return static_cast<int>(i);
    return -1;
  }
  std::string str() {
    std::lock_guard<std::mutex> lock(mu);
    std::string s;
    for (const std::string &x : events)
      s += x + " ";
    return s;
  }
};
Tracer tracer;

// A branch kernel: records its start, waits (bounded) for the other branch to
// start when overlap is expected, then computes and records its end.
template <int Side> void kBranch(void **b) {
  const char *me = Side == 0 ? "left" : "right";
  const char *peer = Side == 0 ? "right" : "left";
  tracer.add(std::string(me) + ".start");
  if (tracer.waitForPeer)
    tracer.awaitEvent(std::string(peer) + ".start", std::chrono::seconds(10));
  kAdd1(b);
  tracer.add(std::string(me) + ".end");
}
void kJoin(void **b) {
  tracer.add("join.start");
  kAdd(b);
}

// For the co-shared arena test: the reader of the first tenant lingers a
// little to give a wrongly ordered overwrite the chance to show.
void kSlowReader(void **b) {
  tracer.add("reader.start");
  tracer.awaitEvent("overwrite.start", std::chrono::milliseconds(200));
  kScale2(b);
  tracer.add("reader.end");
}
void kOverwrite(void **b) {
  tracer.add("overwrite.start");
  kAdd1(b);
}

KernelTable testKernels() {
  KernelTable t;
  t.add("k_scale2", kScale2);
  t.add("k_add1", kAdd1);
  t.add("k_add", kAdd);
  t.add("k_accumulate", kAccumulate);
  t.add("k_fail", kReportFailure);
  t.add("k_throw", kThrow);
  t.add("k_left", kBranch<0>);
  t.add("k_right", kBranch<1>);
  t.add("k_join", kJoin);
  t.add("k_slow_reader", kSlowReader);
  t.add("k_overwrite", kOverwrite);
  return t;
}

Plan parse(const std::string &text) {
  PlanError err;
  auto p = Plan::parse(text, &err);
  EXPECT_TRUE(p) << err.str();
  return p ? *p : Plan{};
}

const char *kDiamond = R"(mxc-plan 1
arena 128
buffer x argument 0 float32 (4,)
buffer y output 0 float32 (4,)
buffer a arena 0 16 float32 (4,)
buffer b arena 64 16 float32 (4,)
step double k_scale2 cpu(0) reads x writes a
step inc k_add1 cpu(0) reads x writes b
step sum k_add cpu(0) reads a b writes y
)";

// A float32 vector on `engine`, and an array's contents.
NDArray makeArray(Engine *engine, std::vector<float> v) {
  NDArray a({static_cast<int64_t>(v.size())}, DType::F32, Device::cpu(), engine);
  a.copyFromHost(v.data(), v.size() * sizeof(float));
  return a;
}
std::vector<float> readArray(const NDArray &a) {
  std::vector<float> v(static_cast<size_t>(a.numElements()));
  a.copyToHost(v.data(), v.size() * sizeof(float));
  return v;
}

class ExecutorTest : public ::testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    EngineOptions opts;
    opts.kind = GetParam();
    opts.cpuWorkers = 2;
    engine = createEngine(opts);
    ASSERT_NE(engine, nullptr);
  }
  bool threaded() const { return std::string(GetParam()) == "threaded"; }

  NDArray array(std::vector<float> v) { return makeArray(engine.get(), std::move(v)); }
  static std::vector<float> read(const NDArray &a) { return readArray(a); }

  std::unique_ptr<Engine> engine;
};

TEST_P(ExecutorTest, RunsADiamond) {
  Executor exec(parse(kDiamond), testKernels(), engine.get());
  exec.bind({array({1, 2, 3, 4})});
  exec.run();
  EXPECT_EQ(read(exec.output(0)), (std::vector<float>{4, 7, 10, 13}));
  // Again with new data in the same argument array.
  std::vector<float> x{0, -1, 10, 0.5f};
  exec.argument(0).copyFromHost(x.data(), 16);
  exec.run();
  EXPECT_EQ(read(exec.output(0)), (std::vector<float>{1, -2, 31, 2.5f}));
}

TEST_P(ExecutorTest, WritesIntoABoundOutput) {
  Executor exec(parse(kDiamond), testKernels(), engine.get());
  NDArray out = array({0, 0, 0, 0});
  exec.bind({array({1, 1, 1, 1})}, {out});
  exec.run();
  EXPECT_EQ(read(out), (std::vector<float>{4, 4, 4, 4}));
  EXPECT_TRUE(exec.output(0).sharesStorageWith(out));
}

TEST_P(ExecutorTest, PushReturnsAndArraysOrderLaterWork) {
  Executor exec(parse(kDiamond), testKernels(), engine.get());
  NDArray x = array({1, 2, 3, 4});
  exec.bind({x});
  exec.push();
  // Without waiting: a copy of the output is ordered after the plan.
  NDArray copy = exec.output(0).copyTo(Device::cpu());
  EXPECT_EQ(read(copy), (std::vector<float>{4, 7, 10, 13}));
}

TEST_P(ExecutorTest, IndependentStepsOverlap) {
  const char *text = R"(mxc-plan 1
arena 32
buffer x argument 0 float32 (4,)
buffer y output 0 float32 (4,)
buffer l arena 0 16 float32 (4,)
buffer r arena 16 16 float32 (4,)
step left k_left cpu(0) reads x writes l
step right k_right cpu(0) reads x writes r
step join k_join cpu(0) reads l r writes y
)";
  tracer.reset(/*wait=*/threaded());
  Executor exec(parse(text), testKernels(), engine.get());
  exec.bind({array({1, 2, 3, 4})});
  exec.run();
  EXPECT_EQ(read(exec.output(0)), (std::vector<float>{4, 6, 8, 10}));
  int ls = tracer.at("left.start"), le = tracer.at("left.end");
  int rs = tracer.at("right.start"), re = tracer.at("right.end");
  int js = tracer.at("join.start");
  ASSERT_TRUE(ls >= 0 && le >= 0 && rs >= 0 && re >= 0 && js >= 0)
      << tracer.str();
  if (threaded()) {
    // Both branches started before either ended: they ran at the same time.
    EXPECT_LT(ls, re) << tracer.str();
    EXPECT_LT(rs, le) << tracer.str();
  } else {
    // The naive engine runs one step at a time, in plan order.
    EXPECT_EQ(tracer.str(),
              "left.start left.end right.start right.end join.start ");
  }
  // The join waits for both.
  EXPECT_GT(js, le);
  EXPECT_GT(js, re);
}

// t1 and t2 share bytes [0,16) of the arena; no buffer links 'reader' and
// 'overwrite'.
const char *kCoSharedArena = R"(mxc-plan 1
arena 16
buffer x argument 0 float32 (4,)
buffer y1 output 0 float32 (4,)
buffer y2 output 1 float32 (4,)
buffer t1 arena 0 16 float32 (4,)
buffer t2 arena 0 16 float32 (4,)
step fill k_add1 cpu(0) reads x writes t1
step reader k_slow_reader cpu(0) reads t1 writes y1
step overwrite k_overwrite cpu(0) reads x writes t2
step use k_scale2 cpu(0) reads t2 writes y2
)";

TEST_P(ExecutorTest, ArenaBuffersSharingMemoryStayOrdered) {
  // t1 and t2 share bytes [0,16): 'overwrite' (writing t2) may not start
  // before 'reader' (reading t1) has finished, although no buffer links them.
  tracer.reset(false);
  Executor exec(parse(kCoSharedArena), testKernels(), engine.get());
  exec.bind({array({1, 2, 3, 4})});
  exec.run();
  EXPECT_LT(tracer.at("reader.end"), tracer.at("overwrite.start"))
      << tracer.str();
  EXPECT_EQ(read(exec.output(0)), (std::vector<float>{4, 6, 8, 10}));
  EXPECT_EQ(read(exec.output(1)), (std::vector<float>{4, 6, 8, 10}));
}

// One variable per arena byte range: t1 and t2 are one range ([0,16), the
// in-place step reads one and writes the other), t3 ([8,24)) overlaps it in
// part. 'overwrite' (writing t3) must wait for 'reader' (reading t2).
const char *kInPlaceAndPartlyOverlapping = R"(mxc-plan 1
arena 32
buffer x argument 0 float32 (4,)
buffer y1 output 0 float32 (4,)
buffer y2 output 1 float32 (4,)
buffer t1 arena 0 16 float32 (4,)
buffer t2 arena 0 16 float32 (4,)
buffer t3 arena 8 16 float32 (4,)
step fill k_add1 cpu(0) reads x writes t1
step inplace k_scale2 cpu(0) reads t1 writes t2
step reader k_slow_reader cpu(0) reads t2 writes y1
step overwrite k_overwrite cpu(0) reads x writes t3
step use k_scale2 cpu(0) reads t3 writes y2
)";

TEST_P(ExecutorTest, InPlaceRangeAndPartlyOverlappingBufferStayOrdered) {
  tracer.reset(false);
  Executor exec(parse(kInPlaceAndPartlyOverlapping), testKernels(), engine.get());
  exec.bind({array({1, 2, 3, 4})});
  for (int i = 0; i < 2; ++i) { // again on the reused arena and variables
    exec.run();
    EXPECT_LT(tracer.at("reader.end"), tracer.at("overwrite.start")) << tracer.str();
    EXPECT_EQ(read(exec.output(0)), (std::vector<float>{8, 12, 16, 20}));
    EXPECT_EQ(read(exec.output(1)), (std::vector<float>{4, 6, 8, 10}));
    tracer.reset(false);
  }
}

TEST_P(ExecutorTest, UpdatesAnArgumentInPlace) {
  // w += x, twice: a step may write an argument (an in-place weight update).
  const char *text = R"(mxc-plan 1
buffer x argument 0 float32 (4,)
buffer w argument 1 float32 (4,)
step acc1 k_accumulate cpu(0) reads x w writes w
step acc2 k_accumulate cpu(0) reads x writes w
)";
  Executor exec(parse(text), testKernels(), engine.get());
  NDArray w = array({10, 20, 30, 40});
  exec.bind({array({1, 2, 3, 4}), w});
  exec.run();
  EXPECT_EQ(read(w), (std::vector<float>{12, 24, 36, 48}));
}

TEST_P(ExecutorTest, FailingKernelReportsItsStep) {
  const char *text = R"(mxc-plan 1
arena 16
buffer x argument 0 float32 (4,)
buffer y output 0 float32 (4,)
buffer z output 1 float32 (4,)
buffer t arena 0 16 float32 (4,)
step check k_fail cpu(0) reads x writes t
step after k_scale2 cpu(0) reads t writes y
step independent k_add1 cpu(0) reads x writes z
)";
  Executor exec(parse(text), testKernels(), engine.get());
  exec.bind({array({1, 2, 3, 4})});
  try {
    exec.run();
    FAIL() << "expected the run to fail";
  } catch (const OperationError &e) {
    EXPECT_STREQ(e.what(),
                 "step 'check' (kernel 'k_fail') failed: input is not finite");
  }
  // The independent branch still ran.
  EXPECT_EQ(read(exec.output(1)), (std::vector<float>{2, 3, 4, 5}));
  // The output downstream of the failure carries it too.
  try {
    exec.output(0).waitToRead();
    FAIL() << "expected the output to be failed";
  } catch (const OperationError &e) {
    EXPECT_STREQ(e.what(), "operation 'check' failed: input is not finite");
  }
  engine->waitForAll(); // consume the recorded failure
}

TEST_P(ExecutorTest, ThrowingKernelReportsItsStep) {
  const char *text = R"(mxc-plan 1
buffer x argument 0 float32 (4,)
buffer y output 0 float32 (4,)
step explode k_throw cpu(0) reads x writes y
)";
  Executor exec(parse(text), testKernels(), engine.get());
  exec.bind({array({1, 2, 3, 4})});
  try {
    exec.run();
    FAIL() << "expected the run to fail";
  } catch (const OperationError &e) {
    EXPECT_STREQ(e.what(),
                 "step 'explode' (kernel 'k_throw') failed: kernel threw");
  }
  engine->waitForAll();
}

// pushOn: the plan on the given arrays, nothing bound (the executor's own
// bindings stay as they were), checked as bind() checks.
TEST_P(ExecutorTest, PushOnBindsNothing) {
  Executor exec(parse(kDiamond), testKernels(), engine.get());
  NDArray bound = array({0, 0, 0, 0});
  exec.bind({bound});
  NDArray x1 = array({1, 2, 3, 4}), y1 = array({0, 0, 0, 0});
  NDArray x2 = array({1, 1, 1, 1}), y2 = array({0, 0, 0, 0});
  exec.pushOn({x1}, {y1});
  exec.pushOn({x2}, {y2});
  EXPECT_EQ(read(y1), (std::vector<float>{4, 7, 10, 13}));
  EXPECT_EQ(read(y2), (std::vector<float>{4, 4, 4, 4}));
  EXPECT_TRUE(exec.argument(0).sharesStorageWith(bound));
  exec.run(); // the bound argument: all zeros
  EXPECT_EQ(read(exec.output(0)), (std::vector<float>{1, 1, 1, 1}));
  NDArray wrongShape({5}, DType::F32, Device::cpu(), engine.get());
  try {
    exec.pushOn({wrongShape}, {y1});
    FAIL();
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "bind argument 0 'x': the plan wants (4,) float32, "
                           "the array is (5,) float32");
  }
  EXPECT_THROW(exec.pushOn({x1}, {}), Error); // every output is needed
  EXPECT_THROW(exec.pushOn({}, {y1}), Error);
}

TEST_P(ExecutorTest, BindingIsChecked) {
  Executor exec(parse(kDiamond), testKernels(), engine.get());
  EXPECT_THROW(exec.run(), Error); // argument 0 unbound
  NDArray wrongShape({5}, DType::F32, Device::cpu(), engine.get());
  NDArray wrongType({4}, DType::F64, Device::cpu(), engine.get());
  try {
    exec.bindArgument(0, wrongShape);
    FAIL();
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "bind argument 0 'x': the plan wants (4,) float32, "
                           "the array is (5,) float32");
  }
  EXPECT_THROW(exec.bindArgument(0, wrongType), Error);
  EXPECT_THROW(exec.bindArgument(1, array({1, 2, 3, 4})), Error);
  EXPECT_THROW(exec.bindOutput(0, NDArray()), Error);
  EXPECT_THROW(exec.bind({}), Error);
  EXPECT_THROW(exec.bind({array({1, 2, 3, 4})}, {wrongShape, wrongShape}),
               Error);
  auto other = createEngine(EngineOptions{});
  {
    NDArray foreign({4}, DType::F32, Device::cpu(), other.get());
    EXPECT_THROW(exec.bindArgument(0, foreign), Error);
  }
  EXPECT_THROW(exec.output(3), Error);
}

TEST_P(ExecutorTest, MissingKernelIsAnError) {
  KernelTable table;
  table.add("k_scale2", kScale2);
  try {
    Executor exec(parse(kDiamond), table, engine.get());
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(),
                 "line 8: step 'inc': kernel 'k_add1' is not in the kernel table");
  }
}

TEST_P(ExecutorTest, DeviceWithoutStorageIsAnError) {
  const char *text = R"(mxc-plan 1
buffer x argument 0 float32 (4,)
buffer y output 0 float32 (4,)
step s k_add1 cpu_shared(0) reads x writes y
)";
  try {
    Executor exec(parse(text), testKernels(), engine.get());
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "no storage is registered for device cpu_shared(0)");
  }
  EXPECT_FALSE(engine->waitForAll().has_value());
}

TEST_P(ExecutorTest, DestroyedWithStepsPending) {
  NDArray out;
  {
    Executor exec(parse(kDiamond), testKernels(), engine.get());
    exec.bind({array({1, 2, 3, 4})});
    exec.push();
    out = exec.output(0);
  } // the arena goes only after the steps that use it
  EXPECT_EQ(read(out), (std::vector<float>{4, 7, 10, 13}));
  EXPECT_FALSE(engine->waitForAll().has_value());
}

INSTANTIATE_TEST_SUITE_P(Engines, ExecutorTest,
                         ::testing::Values("naive", "threaded"),
                         [](const auto &info) { return std::string(info.param); });

// ---- Bulk execution (Executor::run on a one-worker engine) ----------------

class BulkExecutorTest : public ::testing::Test {
protected:
  std::unique_ptr<Engine> makeEngine(const char *kind, int workers) {
    EngineOptions opts;
    opts.kind = kind;
    opts.cpuWorkers = workers;
    return createEngine(opts);
  }
  static NDArray array(Engine *engine, std::vector<float> v) {
    return makeArray(engine, std::move(v));
  }
  static std::vector<float> read(const NDArray &a) { return readArray(a); }
};

// MXNet's default (MXNET_EXEC_BULK_EXEC_INFERENCE=1): with one CPU worker a
// run is one engine operation, on the calling thread when its inputs are
// ready; with two workers (branches may overlap) and on the naive engine,
// and for a one-step plan, the steps are pushed one by one.
TEST_F(BulkExecutorTest, OneWorkerRunsThePlanAsOneOperation) {
  auto one = makeEngine("threaded", 1), two = makeEngine("threaded", 2),
       naive = makeEngine("naive", 1);
  Executor bulk(parse(kDiamond), testKernels(), one.get());
  EXPECT_TRUE(bulk.bulk());
  EXPECT_FALSE(Executor(parse(kDiamond), testKernels(), two.get()).bulk());
  EXPECT_FALSE(Executor(parse(kDiamond), testKernels(), naive.get()).bulk());
  EXPECT_FALSE(Executor(parse(R"(mxc-plan 1
arena 0
buffer x argument 0 float32 (4,)
buffer y output 0 float32 (4,)
step only k_add1 cpu(0) reads x writes y
)"),
                        testKernels(), one.get())
                   .bulk());
  bulk.bind({array(one.get(), {1, 2, 3, 4})});
  tracer.reset(false);
  bulk.run();
  EXPECT_EQ(read(bulk.output(0)), (std::vector<float>{4, 7, 10, 13}));
  // Again, with the arena reused, and with the argument's data changed.
  std::vector<float> x{0, -1, 10, 0.5f};
  bulk.argument(0).copyFromHost(x.data(), 16);
  bulk.run();
  EXPECT_EQ(read(bulk.output(0)), (std::vector<float>{1, -2, 31, 2.5f}));
  // The steps of the co-shared arena plan stay in order inside the bulk.
  Executor shared(parse(kCoSharedArena), testKernels(), one.get());
  ASSERT_TRUE(shared.bulk());
  shared.bind({array(one.get(), {1, 2, 3, 4})});
  tracer.reset(false);
  shared.run();
  EXPECT_EQ(read(shared.output(0)), (std::vector<float>{4, 6, 8, 10}));
  EXPECT_EQ(read(shared.output(1)), (std::vector<float>{4, 6, 8, 10}));
  EXPECT_LT(tracer.at("reader.end"), tracer.at("overwrite.start")) << tracer.str();
  // An in-place range and a buffer overlapping it in part (one variable per
  // range in the bulk's lists, none both read and written).
  Executor inplace(parse(kInPlaceAndPartlyOverlapping), testKernels(), one.get());
  ASSERT_TRUE(inplace.bulk());
  inplace.bind({array(one.get(), {1, 2, 3, 4})});
  tracer.reset(false);
  inplace.run();
  EXPECT_EQ(read(inplace.output(0)), (std::vector<float>{8, 12, 16, 20}));
  EXPECT_EQ(read(inplace.output(1)), (std::vector<float>{4, 6, 8, 10}));
}

// The first failing step ends the bulk: run() names it as the step-by-step
// run does, and every variable the run writes carries the failure, named
// after the step (waits and waitForAll report it as step by step).
TEST_F(BulkExecutorTest, AFailingStepIsNamed) {
  auto one = makeEngine("threaded", 1);
  for (const char *kernel : {"k_fail", "k_throw"}) {
    std::string text = std::string(R"(mxc-plan 1
arena 16
buffer x argument 0 float32 (4,)
buffer y output 0 float32 (4,)
buffer z output 1 float32 (4,)
buffer t arena 0 16 float32 (4,)
step check )") + kernel + R"( cpu(0) reads x writes t
step after k_scale2 cpu(0) reads t writes y
step later k_add1 cpu(0) reads x writes z
)";
    Executor exec(parse(text), testKernels(), one.get());
    ASSERT_TRUE(exec.bulk());
    NDArray z = array(one.get(), {0, 0, 0, 0});
    exec.bind({array(one.get(), {1, 2, 3, 4})}, {NDArray({4}, DType::F32, Device::cpu(), one.get()), z});
    const std::string message = std::string(kernel) == "k_fail" ? "input is not finite" : "kernel threw";
    try {
      exec.run();
      FAIL() << "expected the run to fail";
    } catch (const OperationError &e) {
      EXPECT_EQ(std::string(e.what()),
                "step 'check' (kernel '" + std::string(kernel) + "') failed: " + message);
    }
    try {
      exec.output(1).waitToRead();
      FAIL() << "expected the output to be failed";
    } catch (const OperationError &e) {
      // As step by step: the failed step is the operation named.
      EXPECT_EQ(std::string(e.what()), "operation 'check' failed: " + message);
    }
    one->waitForAll(); // consume the recorded failure
  }
}

} // namespace
