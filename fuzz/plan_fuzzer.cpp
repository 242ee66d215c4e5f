//===- plan_fuzzer.cpp - libFuzzer target for the runtime's plan loader ---===//
//
// Any input: Plan::parse must fail cleanly (one line, "line N: ...", N within
// the input) or give a plan whose invariants hold, whose printed form parses
// back to an equal plan, and which, if small, runs on the naive engine with
// kernels that touch every byte of every buffer they are given (ASan checks
// the executor's pointers into arguments, outputs and the arena).
//
//===----------------------------------------------------------------------===//

#include "mxc/runtime/plan.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace mxc::runtime;

static void check(bool ok, const char *what) {
  if (!ok) {
    std::fprintf(stderr, "plan_fuzzer: %s\n", what);
    std::abort();
  }
}

// The plan being run and the next step the naive engine will run (it runs
// each step at push time, in plan order).
static const Plan *gPlan;
static size_t gNextStep;

// A kernel for every symbol: reads every byte of its reads, writes every
// byte of its writes.
static void touchKernel(void **buffers) {
  check(gPlan && gNextStep < gPlan->steps.size(), "unexpected kernel call");
  const PlanStep &s = gPlan->steps[gNextStep++];
  size_t i = 0;
  volatile unsigned char sink = 0;
  for (uint32_t r : s.reads) {
    auto *p = static_cast<const unsigned char *>(buffers[i++]);
    for (uint64_t k = 0; k < gPlan->buffers[r].size; ++k)
      sink = sink ^ p[k];
  }
  for (uint32_t w : s.writes)
    std::memset(buffers[i++], 0x5a, gPlan->buffers[w].size);
  (void)sink;
}

static void checkInvariants(const Plan &p) {
  for (const PlanBuffer &b : p.buffers) {
    auto bytes = shapeNumBytes(b.shape, b.dtype);
    check(bytes && static_cast<uint64_t>(*bytes) == b.size, "buffer size");
    if (b.kind == BufferKind::Arena)
      check(b.offset + b.size <= p.arenaBytes, "arena buffer past the arena");
  }
  for (const PlanStep &s : p.steps) {
    check(!s.writes.empty(), "step without writes");
    check(s.device == p.device(), "step on another device");
    for (uint32_t r : s.reads)
      check(r < p.buffers.size(), "read index");
    for (uint32_t w : s.writes)
      check(w < p.buffers.size(), "write index");
  }
  for (size_t i = 0; i < p.numArguments(); ++i)
    check(p.buffers[p.argumentBuffer(i)].kind == BufferKind::Argument, "arg");
  for (size_t i = 0; i < p.numOutputs(); ++i)
    check(p.buffers[p.outputBuffer(i)].kind == BufferKind::Output, "output");
}

// Runs `p` when it is small enough, on the naive engine.
static void runSmall(const Plan &p) {
  constexpr uint64_t kLimit = 1 << 20;
  uint64_t total = p.arenaBytes;
  for (const PlanBuffer &b : p.buffers)
    if (b.kind != BufferKind::Arena)
      total += b.size;
  if (total > kLimit || p.steps.size() > 256 || p.device() != Device::cpu())
    return;
  static std::unique_ptr<Engine> engine = [] {
    EngineOptions opts;
    opts.kind = "naive";
    return createEngine(opts);
  }();
  KernelTable table;
  for (const PlanStep &s : p.steps)
    table.add(s.kernel, touchKernel);
  gPlan = &p;
  gNextStep = 0;
  {
    Executor exec(p, table, engine.get());
    std::vector<NDArray> args;
    for (size_t i = 0; i < p.numArguments(); ++i) {
      const PlanBuffer &b = p.buffers[p.argumentBuffer(i)];
      args.emplace_back(b.shape, b.dtype, Device::cpu(), engine.get());
      args.back().copyFromHost(std::vector<char>(b.size).data(), b.size);
    }
    exec.bind(args);
    exec.run();
    check(gNextStep == p.steps.size(), "not every step ran");
  }
  check(!engine->waitForAll().has_value(), "the engine reported a failure");
  check(storageManager(Device::cpu()).bytesInUse() == 0,
        "storage still in use after the run");
  storageManager(Device::cpu()).releaseCached(); // keep the RSS flat
  gPlan = nullptr;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  PlanError err;
  auto plan = Plan::parse(text, &err);
  if (!plan) {
    std::string msg = err.str();
    check(msg.rfind("line ", 0) == 0, "error does not start with 'line N: '");
    check(msg.find('\n') == std::string::npos, "error is not one line");
    size_t lines = 1;
    for (char c : text)
      lines += c == '\n';
    check(err.line >= 1 && static_cast<size_t>(err.line) <= lines,
          "error line outside the input");
    check(!err.message.empty(), "empty error message");
    return 0;
  }
  checkInvariants(*plan);
  std::string printed = plan->print();
  PlanError err2;
  auto back = Plan::parse(printed, &err2);
  if (!back)
    std::fprintf(stderr, "%s\n%s\n", printed.c_str(), err2.str().c_str());
  check(back.has_value(), "printed plan does not parse");
  check(*back == *plan, "printed plan parses to a different plan");
  check(back->print() == printed, "printing is not stable");

  // A table lacking the first step's kernel fails on exactly that step.
  if (!plan->steps.empty()) {
    KernelTable partial;
    for (const PlanStep &s : plan->steps)
      if (s.kernel != plan->steps[0].kernel)
        partial.add(s.kernel, touchKernel);
    auto missing = plan->checkKernels(partial);
    check(missing && missing->line == plan->steps[0].line,
          "missing kernel not reported on its step's line");
  }
  runSmall(*plan);
  return 0;
}
