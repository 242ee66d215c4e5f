// plan_test.cc - the plan text format: round trip, and one case for every
// validation error (each names its line).
#include "mxc/runtime/plan.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace mxc::runtime;

namespace {

// The diamond of the executor test: a = 2x, b = x + 1, y = a + b.
const char *kDiamond = R"(mxc-plan 1
# y = 2x + (x + 1), the two branches independent
arena 128
buffer x argument 0 float32 (4,)
buffer y output 0 float32 (4,)
buffer a arena 0 16 float32 (4,)
buffer b arena 64 16 float32 (4,)

step double k_scale2 cpu(0) reads x writes a
step inc k_add1 cpu(0) reads x writes b   # runs beside 'double'
step sum k_add cpu(0) reads a b writes y
)";

// Parses `text`, expecting failure; returns the error's text.
std::string errorOf(const std::string &text,
                    const KernelTable *kernels = nullptr) {
  PlanError err;
  auto plan = Plan::parse(text, &err, kernels);
  if (plan)
    return "<parsed>";
  return err.str();
}

// A plan text: the header, then `body`.
std::string plan(const std::string &body) { return "mxc-plan 1\n" + body; }

TEST(PlanFormat, ParsesTheDiamond) {
  PlanError err;
  auto p = Plan::parse(kDiamond, &err);
  ASSERT_TRUE(p) << err.str();
  EXPECT_EQ(p->version, 1);
  EXPECT_EQ(p->arenaBytes, 128u);
  ASSERT_EQ(p->buffers.size(), 4u);
  EXPECT_EQ(p->numArguments(), 1u);
  EXPECT_EQ(p->numOutputs(), 1u);
  const PlanBuffer &b = p->buffers[3];
  EXPECT_EQ(b.name, "b");
  EXPECT_EQ(b.kind, BufferKind::Arena);
  EXPECT_EQ(b.offset, 64u);
  EXPECT_EQ(b.size, 16u);
  EXPECT_EQ(b.dtype, DType::F32);
  EXPECT_EQ(b.shape, (Shape{4}));
  EXPECT_EQ(b.line, 7);
  EXPECT_EQ(p->buffers[1].size, 16u); // computed for outputs
  ASSERT_EQ(p->steps.size(), 3u);
  EXPECT_EQ(p->steps[2].name, "sum");
  EXPECT_EQ(p->steps[2].kernel, "k_add");
  EXPECT_EQ(p->steps[2].reads, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(p->steps[2].writes, (std::vector<uint32_t>{1}));
  EXPECT_EQ(p->steps[1].line, 10);
  EXPECT_EQ(p->device(), Device::cpu());
  EXPECT_EQ(p->argumentBuffer(0), 0u);
  EXPECT_EQ(p->outputBuffer(0), 1u);
  EXPECT_THROW(p->argumentBuffer(1), Error);
}

TEST(PlanFormat, PrintsCanonicallyAndRoundTrips) {
  auto p = Plan::parse(kDiamond, nullptr);
  ASSERT_TRUE(p);
  std::string text = p->print();
  EXPECT_EQ(text, "mxc-plan 1\n"
                  "arena 128\n"
                  "buffer x argument 0 float32 (4,)\n"
                  "buffer y output 0 float32 (4,)\n"
                  "buffer a arena 0 16 float32 (4,)\n"
                  "buffer b arena 64 16 float32 (4,)\n"
                  "step double k_scale2 cpu(0) reads x writes a\n"
                  "step inc k_add1 cpu(0) reads x writes b\n"
                  "step sum k_add cpu(0) reads a b writes y\n");
  auto back = Plan::parse(text, nullptr);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, *p);
  EXPECT_EQ(back->print(), text);
}

TEST(PlanFormat, RoundTripsEveryDTypeShapeAndKind) {
  std::string text = "mxc-plan 1\narena 4096\n";
  const char *dtypes[] = {"float32", "float64", "float16", "uint8",   "int32",
                          "int8",    "int64",   "bool",    "bfloat16"};
  int i = 0;
  for (const char *d : dtypes) {
    text += "buffer in" + std::to_string(i) + " argument " + std::to_string(i) +
            " " + d + " (2,3)\n";
    text += "buffer out" + std::to_string(i) + " output " + std::to_string(i) +
            " " + d + " ()\n";
    ++i;
  }
  text += "buffer t arena 0 0 int64 (0,7)\n";
  text += "buffer u arena 8 96 float64 (2,2,3)\n";
  for (int k = 0; k < i; ++k)
    text += "step s" + std::to_string(k) + " kern cpu(3) reads in" +
            std::to_string(k) + " writes out" + std::to_string(k) +
            (k == 0 ? " t u" : "") + "\n";
  text += "step inplace kern cpu(3) reads in0 u writes in0 u\n";
  text += "step noreads kern cpu(3) reads writes t\n";
  PlanError err;
  auto p = Plan::parse(text, &err);
  ASSERT_TRUE(p) << err.str();
  EXPECT_EQ(p->print(), text);
  EXPECT_EQ(p->buffers[1].dtype, DType::F32);
  EXPECT_EQ(p->buffers[17].dtype, DType::BF16);
  EXPECT_EQ(p->buffers[1].shape, Shape{});
  EXPECT_EQ(p->device(), Device::cpu(3));
}

TEST(PlanFormat, AcceptsCommentsBlankLinesCRLFAndSpacing) {
  std::string text = "mxc-plan 1\r\n\r\n# comment\r\n  arena\t32  # bytes\r\n"
                     "buffer x argument 0 float32 (2)\r\n"
                     "buffer y output 0 float32 (2,)\r\n"
                     "\tstep   s  k  cpu(0)  reads  x  writes  y\r\n";
  PlanError err;
  auto p = Plan::parse(text, &err);
  ASSERT_TRUE(p) << err.str();
  EXPECT_EQ(p->arenaBytes, 32u);
  EXPECT_EQ(p->buffers[0].shape, (Shape{2}));
  EXPECT_EQ(p->steps[0].line, 7);
  // No arena line: an empty arena.
  auto q = Plan::parse("mxc-plan 1\n", &err);
  ASSERT_TRUE(q) << err.str();
  EXPECT_EQ(q->arenaBytes, 0u);
  EXPECT_TRUE(q->steps.empty());
}

struct BadPlan {
  const char *what;
  std::string text;
  std::string error;
};

TEST(PlanFormat, EveryValidationErrorNamesItsLine) {
  const std::string xy = "buffer x argument 0 float32 (4,)\n"
                         "buffer y output 0 float32 (4,)\n";
  const std::string xyStep = "step s k cpu(0) reads x writes y\n";
  const BadPlan cases[] = {
      {"empty input", "", "line 1: expected the header 'mxc-plan <version>'"},
      {"no header", "arena 4\n",
       "line 1: expected the header 'mxc-plan <version>'"},
      {"header with extra words", "mxc-plan 1 extra\n",
       "line 1: expected the header 'mxc-plan <version>'"},
      {"bad version", "mxc-plan one\n", "line 1: bad plan version 'one'"},
      {"future version", "mxc-plan 2\narena 4\n",
       "line 1: unsupported plan version 2 (this runtime reads version 1)"},
      {"version 0", "mxc-plan 0\n",
       "line 1: unsupported plan version 0 (this runtime reads version 1)"},
      {"unknown line", plan("arena 4\nkernel k\n"),
       "line 3: unknown line kind 'kernel' (expected arena, buffer or step)"},
      {"control byte", plan("arena 4\x01\n"), "line 2: unexpected byte 0x01"},
      {"NUL byte", plan(std::string("arena 4\0\n", 9)),
       "line 2: unexpected byte 0x00"},
      {"non-ASCII byte", plan("# caf\xc3\xa9\n"),
       "line 2: unexpected byte 0xc3"},
      {"arena arity", plan("arena\n"), "line 2: expected 'arena <bytes>'"},
      {"arena size", plan("arena -4\n"),
       "line 2: bad arena size '-4' (at most 2^48 bytes)"},
      {"arena too big", plan("arena 281474976710657\n"),
       "line 2: bad arena size '281474976710657' (at most 2^48 bytes)"},
      {"duplicate arena", plan("arena 4\narena 8\n"),
       "line 3: duplicate arena line (the first is line 2)"},
      {"arena after buffers", plan(xy + "arena 8\n"),
       "line 4: the arena line must come before buffers and steps"},
      {"buffer arity", plan("buffer x\n"),
       "line 2: expected 'buffer <name> <kind> ...'"},
      {"unknown buffer kind", plan("buffer x heap 0 float32 (4,)\n"),
       "line 2: unknown buffer kind 'heap' (expected argument, output or "
       "arena)"},
      {"argument arity", plan("buffer x argument 0 float32\n"),
       "line 2: expected 'buffer <name> argument <index> <dtype> <shape>'"},
      {"arena buffer arity", plan("arena 16\nbuffer t arena 0 float32 (4,)\n"),
       "line 3: expected 'buffer <name> arena <offset> <bytes> <dtype> "
       "<shape>'"},
      {"bad index", plan("buffer x argument -1 float32 (4,)\n"),
       "line 2: bad argument index '-1'"},
      {"huge index", plan("buffer x output 1048576 float32 (4,)\n"),
       "line 2: bad output index '1048576'"},
      {"bad offset", plan("arena 16\nbuffer t arena x 16 float32 (4,)\n"),
       "line 3: bad arena offset 'x'"},
      {"bad size", plan("arena 16\nbuffer t arena 0 1e3 float32 (4,)\n"),
       "line 3: bad buffer size '1e3'"},
      {"unknown dtype", plan("buffer x argument 0 f32 (4,)\n"),
       "line 2: unknown dtype 'f32'"},
      {"bad shape", plan("buffer x argument 0 float32 [4]\n"),
       "line 2: bad shape '[4]' (expected e.g. (2,3), (5,) or ())"},
      {"negative extent", plan("buffer x argument 0 float32 (2,-1)\n"),
       "line 2: bad shape '(2,-1)' (expected e.g. (2,3), (5,) or ())"},
      {"empty extent", plan("buffer x argument 0 float32 (2,,3)\n"),
       "line 2: bad shape '(2,,3)' (expected e.g. (2,3), (5,) or ())"},
      {"shape overflow",
       plan("buffer x argument 0 float32 (4611686018427387904,4)\n"),
       "line 2: buffer 'x': (4611686018427387904,4) float32 is too large"},
      {"size does not match dtype and shape",
       plan("arena 64\nbuffer t arena 0 32 float32 (4,)\n"),
       "line 3: buffer 't' has 32 bytes but (4,) float32 needs 16"},
      {"size does not match dtype",
       plan("arena 64\nbuffer t arena 0 16 float64 (4,)\n"),
       "line 3: buffer 't' has 16 bytes but (4,) float64 needs 32"},
      {"past the arena", plan("arena 64\nbuffer t arena 56 16 float32 (4,)\n"),
       "line 3: buffer 't' [56, 72) ends past the arena (64 bytes)"},
      {"arena buffer without an arena", plan("buffer t arena 0 4 int32 ()\n"),
       "line 2: buffer 't' [0, 4) ends past the arena (0 bytes)"},
      {"misaligned offset", plan("arena 64\nbuffer t arena 2 16 float32 (4,)\n"),
       "line 3: buffer 't' offset 2 is not a multiple of its element size 4"},
      {"duplicate buffer", plan(xy + "buffer x output 1 float32 (4,)\n"),
       "line 4: duplicate buffer name 'x' (the first is line 2)"},
      {"reserved buffer name", plan("buffer writes argument 0 float32 (4,)\n"),
       "line 2: 'writes' cannot name a buffer"},
      {"duplicate argument index",
       plan(xy + "buffer z argument 0 float32 (4,)\n"),
       "line 4: argument 0 is declared twice (the first is line 2)"},
      {"arguments not dense",
       plan("buffer x argument 0 float32 (4,)\nbuffer z argument 2 float32 "
            "(4,)\n"),
       "line 3: argument 2 is declared but argument 1 is not"},
      {"outputs not dense",
       plan("buffer y output 1 float32 (4,)\n"
            "step s k cpu(0) reads writes y\n"),
       "line 2: output 1 is declared but output 0 is not"},
      {"step arity", plan(xy + "step s k cpu(0) x y\n"),
       "line 4: expected 'step <name> <kernel> <device> reads <buffers> "
       "writes <buffers>'"},
      {"step without writes", plan(xy + "step s k cpu(0) reads x y\n"),
       "line 4: step 's' has no 'writes' list"},
      {"step writing nothing", plan(xy + "step s k cpu(0) reads x writes\n"),
       "line 4: step 's' writes no buffer"},
      {"bad device", plan(xy + "step s k tpu(0) reads x writes y\n"),
       "line 4: bad device 'tpu(0)' (expected e.g. cpu(0))"},
      {"mixed devices",
       plan(xy + xyStep + "step t k gpu(0) reads x writes y\n"),
       "line 5: step 't' runs on gpu(0) but the steps before on cpu(0) (a "
       "version 1 plan runs on one device)"},
      {"duplicate step", plan(xy + xyStep + xyStep),
       "line 5: duplicate step name 's' (the first is line 4)"},
      {"reads an undeclared buffer", plan(xy + "step s k cpu(0) reads q writes y\n"),
       "line 4: step 's' reads buffer 'q', which is not declared"},
      {"writes an undeclared buffer",
       plan(xy + "step s k cpu(0) reads x writes q\n"),
       "line 4: step 's' writes buffer 'q', which is not declared"},
      {"uses a buffer declared later",
       plan("buffer y output 0 float32 (4,)\nstep s k cpu(0) reads x writes "
            "y\nbuffer x argument 0 float32 (4,)\n"),
       "line 3: step 's' reads buffer 'x', which is not declared"},
      {"reads a buffer twice", plan(xy + "step s k cpu(0) reads x x writes y\n"),
       "line 4: step 's' reads 'x' twice"},
      {"writes a buffer twice",
       plan(xy + "step s k cpu(0) reads x writes y y\n"),
       "line 4: step 's' writes 'y' twice"},
      {"reads an arena buffer never written",
       plan("arena 16\n" + xy + "buffer t arena 0 16 float32 (4,)\n" +
            "step s k cpu(0) reads t writes y\n"),
       "line 6: step 's' reads arena buffer 't' before any step writes it"},
      {"reads an output before it is written",
       plan(xy + "step s k cpu(0) reads y writes y\n"),
       "line 4: step 's' reads output buffer 'y' before any step writes it"},
      {"output never written", plan(xy),
       "line 3: output 0 'y' is never written"},
  };
  for (const BadPlan &c : cases)
    EXPECT_EQ(errorOf(c.text), c.error) << c.what;
}

TEST(PlanFormat, KernelsMissingFromTheTableAreErrors) {
  KernelTable table;
  auto nop = [](void **) {};
  table.add("k_scale2", nop);
  table.add("k_add", nop);
  EXPECT_EQ(errorOf(kDiamond, &table),
            "line 10: step 'inc': kernel 'k_add1' is not in the kernel table");
  table.add("k_add1", nop);
  PlanError err;
  EXPECT_TRUE(Plan::parse(kDiamond, &err, &table)) << err.str();
  EXPECT_EQ(table.size(), 3u);
  EXPECT_EQ(table.find("nope"), nullptr);
}

TEST(PlanFormat, LongTokensAreCutInMessages) {
  std::string name(500, 'n');
  std::string err = errorOf(plan("frobnicate" + name + "\n"));
  EXPECT_EQ(err, "line 2: unknown line kind 'frobnicate" + std::string(54, 'n') +
                     "...' (expected arena, buffer or step)");
}

TEST(PlanFormat, EveryPrefixParsesOrFailsCleanly) {
  // Truncating the diamond anywhere gives a plan or a line-numbered error.
  std::string text = kDiamond;
  for (size_t n = 0; n <= text.size(); ++n) {
    PlanError err;
    auto p = Plan::parse(std::string_view(text).substr(0, n), &err);
    if (!p) {
      EXPECT_GE(err.line, 1) << n;
      EXPECT_EQ(err.str().find('\n'), std::string::npos) << n;
    }
  }
}

TEST(PlanFormat, SamplePlansRoundTrip) {
  // runtime/test/plans: the examples of docs/runtime.md and the fuzzer's seeds.
  int n = 0;
  for (const auto &entry : std::filesystem::directory_iterator(MXC_PLAN_DIR)) {
    if (entry.path().extension() != ".plan")
      continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    PlanError err;
    auto p = Plan::parse(text.str(), &err);
    ASSERT_TRUE(p) << entry.path() << ": " << err.str();
    auto back = Plan::parse(p->print(), &err);
    ASSERT_TRUE(back) << entry.path() << ": " << err.str();
    EXPECT_EQ(*back, *p) << entry.path();
    ++n;
  }
  EXPECT_GE(n, 4);
}

} // namespace
