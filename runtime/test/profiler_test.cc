// profiler_test.cc - the profiler of engine operations: events from both
// engines, overlap and ordering read from the Chrome trace (never a
// duration), the trace's JSON structure, stop / pause / resume, config keys,
// dump / dumps, and the environment variables (MXC_PROFILE,
// MXNET_PROFILER_AUTOSTART) through a helper process.
#include "mxc/runtime/c_api.h"
#include "mxc/runtime/engine.h"
#include "mxc/runtime/error.h"
#include "mxc/runtime/profiler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

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

//===----------------------------------------------------------------------===//
// A tiny JSON reader (numbers kept as their text, so times compare exactly)
//===----------------------------------------------------------------------===//

struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  std::string text; // String: the value; Number: the literal
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;

  const Json *get(const std::string &key) const {
    for (const auto &[k, v] : members)
      if (k == key)
        return &v;
    return nullptr;
  }
};

class JsonParser {
public:
  explicit JsonParser(const std::string &s) : s_(s) {}
  /// Parses the whole input; false (with error()) if it is not one JSON value.
  bool parse(Json &out) {
    if (!value(out))
      return false;
    ws();
    if (i_ != s_.size())
      return fail("trailing characters");
    return true;
  }
  const std::string &error() const { return error_; }

private:
  bool fail(const std::string &what) {
    if (error_.empty())
      error_ = what + " at offset " + std::to_string(i_);
    return false;
  }
  void ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_])))
      ++i_;
  }
  bool lit(const char *word) {
    size_t n = std::char_traits<char>::length(word);
    if (s_.compare(i_, n, word) != 0)
      return fail(std::string("expected ") + word);
    i_ += n;
    return true;
  }
  bool string(std::string &out) {
    if (i_ >= s_.size() || s_[i_] != '"')
      return fail("expected string");
    ++i_;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size())
        return fail("bad escape");
      char e = s_[i_++];
      switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'u':
        if (i_ + 4 > s_.size())
          return fail("bad \\u escape");
        out += static_cast<char>(std::stoi(s_.substr(i_, 4), nullptr, 16)); // ASCII only here
        i_ += 4;
        break;
      default: return fail("bad escape");
      }
    }
    if (i_ >= s_.size())
      return fail("unterminated string");
    ++i_;
    return true;
  }
  bool value(Json &out) {
    ws();
    if (i_ >= s_.size())
      return fail("unexpected end");
    char c = s_[i_];
    if (c == '{') {
      out.kind = Json::Object;
      ++i_;
      ws();
      if (i_ < s_.size() && s_[i_] == '}') {
        ++i_;
        return true;
      }
      for (;;) {
        ws();
        std::string key;
        if (!string(key))
          return false;
        ws();
        if (i_ >= s_.size() || s_[i_] != ':')
          return fail("expected ':'");
        ++i_;
        Json v;
        if (!value(v))
          return false;
        out.members.emplace_back(std::move(key), std::move(v));
        ws();
        if (i_ < s_.size() && s_[i_] == ',') {
          ++i_;
          continue;
        }
        if (i_ < s_.size() && s_[i_] == '}') {
          ++i_;
          return true;
        }
        return fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      out.kind = Json::Array;
      ++i_;
      ws();
      if (i_ < s_.size() && s_[i_] == ']') {
        ++i_;
        return true;
      }
      for (;;) {
        Json v;
        if (!value(v))
          return false;
        out.items.push_back(std::move(v));
        ws();
        if (i_ < s_.size() && s_[i_] == ',') {
          ++i_;
          continue;
        }
        if (i_ < s_.size() && s_[i_] == ']') {
          ++i_;
          return true;
        }
        return fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      out.kind = Json::String;
      return string(out.text);
    }
    if (c == 't' || c == 'f') {
      out.kind = Json::Bool;
      out.boolean = c == 't';
      return lit(c == 't' ? "true" : "false");
    }
    if (c == 'n')
      return lit("null");
    size_t start = i_;
    if (s_[i_] == '-')
      ++i_;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) ||
                              s_[i_] == '.' || s_[i_] == 'e' || s_[i_] == 'E' ||
                              s_[i_] == '+' || s_[i_] == '-'))
      ++i_;
    if (i_ == start)
      return fail("unexpected character");
    out.kind = Json::Number;
    out.text = s_.substr(start, i_ - start);
    return true;
  }

  const std::string &s_;
  size_t i_ = 0;
  std::string error_;
};

/// A trace time ("12.345", microseconds) as integer nanoseconds, exactly.
int64_t usToNs(const std::string &text) {
  size_t dot = text.find('.');
  int64_t whole = std::stoll(text.substr(0, dot));
  int64_t frac = 0;
  if (dot != std::string::npos) {
    std::string f = text.substr(dot + 1);
    EXPECT_LE(f.size(), 3u) << text;
    f.resize(3, '0');
    frac = std::stoll(f);
  }
  return whole * 1000 + frac;
}

/// One "X" event of a trace.
struct TraceEvent {
  std::string name, device;
  int64_t pid = 0, tid = 0, ts = 0, dur = 0; // ts, dur in ns
  int64_t end() const { return ts + dur; }
};

/// A parsed trace: its complete events and the thread names.
struct ParsedTrace {
  std::vector<TraceEvent> events;
  std::map<int64_t, std::string> threadNames;
  std::vector<TraceEvent> named(const std::string &name) const {
    std::vector<TraceEvent> out;
    for (const TraceEvent &e : events)
      if (e.name == name)
        out.push_back(e);
    return out;
  }
};

/// Parses `text` as a Chrome trace and checks its structure: an object with
/// a "traceEvents" array; every event has name, ph, pid, tid; "X" events
/// have cat, ts, dur and args.device; "M" events have args.name (or
/// sort_index). Fails the test (and returns an empty trace) otherwise.
ParsedTrace parseTrace(const std::string &text) {
  ParsedTrace out;
  Json root;
  JsonParser parser(text);
  EXPECT_TRUE(parser.parse(root)) << parser.error() << "\n" << text;
  EXPECT_EQ(root.kind, Json::Object);
  const Json *events = root.get("traceEvents");
  EXPECT_TRUE(events && events->kind == Json::Array) << text;
  if (!events || events->kind != Json::Array)
    return out;
  for (const Json &e : events->items) {
    EXPECT_EQ(e.kind, Json::Object);
    const Json *name = e.get("name"), *ph = e.get("ph"), *pid = e.get("pid"),
               *tid = e.get("tid"), *args = e.get("args");
    EXPECT_TRUE(name && name->kind == Json::String);
    EXPECT_TRUE(ph && ph->kind == Json::String);
    EXPECT_TRUE(pid && pid->kind == Json::Number);
    EXPECT_TRUE(tid && tid->kind == Json::Number);
    EXPECT_TRUE(args && args->kind == Json::Object);
    if (!name || !ph || !pid || !tid || !args)
      continue;
    if (ph->text == "X") {
      const Json *cat = e.get("cat"), *ts = e.get("ts"), *dur = e.get("dur"),
                 *device = args->get("device");
      EXPECT_TRUE(cat && cat->kind == Json::String);
      EXPECT_TRUE(ts && ts->kind == Json::Number);
      EXPECT_TRUE(dur && dur->kind == Json::Number);
      EXPECT_TRUE(device && device->kind == Json::String);
      if (!ts || !dur || !device)
        continue;
      TraceEvent te;
      te.name = name->text;
      te.device = device->text;
      te.pid = std::stoll(pid->text);
      te.tid = std::stoll(tid->text);
      te.ts = usToNs(ts->text);
      te.dur = usToNs(dur->text);
      EXPECT_GE(te.dur, 0);
      out.events.push_back(te);
    } else if (ph->text == "M") {
      if (name->text == "thread_name") {
        const Json *n = args->get("name");
        EXPECT_TRUE(n && n->kind == Json::String);
        if (n)
          out.threadNames[std::stoll(tid->text)] = n->text;
      } else {
        EXPECT_TRUE(name->text == "process_name" || name->text == "thread_sort_index")
            << name->text;
      }
    } else {
      ADD_FAILURE() << "unexpected ph " << ph->text;
    }
  }
  return out;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool fileExists(const std::string &path) { return ::access(path.c_str(), F_OK) == 0; }

/// A fresh temporary directory (removed with its files at the end).
class TempDir {
public:
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/mxc-profiler-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    EXPECT_NE(::mkdtemp(buf.data()), nullptr);
    path_ = buf.data();
  }
  ~TempDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

std::unique_ptr<Engine> makeEngine(const std::string &kind, int cpuWorkers = 2) {
  EngineOptions opts;
  opts.kind = kind;
  opts.cpuWorkers = cpuWorkers;
  opts.priorityWorkers = 1;
  std::unique_ptr<Engine> engine = createEngine(opts);
  EXPECT_NE(engine, nullptr) << kind;
  return engine;
}

/// Spins (yielding, bounded by 60 s so that a broken engine fails instead of
/// hanging) until `n` reaches `target`.
void awaitCount(const std::atomic<int> &n, int target) {
  auto deadline = std::chrono::steady_clock::now() + 60s;
  while (n.load() < target && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(100us);
}

/// The profiler is process-wide: every test starts and ends with it stopped,
/// resumed, empty, and in its default configuration (so that nothing is
/// written at exit).
class ProfilerTest : public ::testing::Test {
protected:
  static void resetProfiler() {
    Profiler &p = Profiler::get();
    p.setState(Profiler::State::Stop);
    p.resume();
    p.setConfig("profile_all", "false");
    p.setConfig("profile_symbolic", "true");
    p.setConfig("profile_imperative", "true");
    p.setConfig("filename", "profile.json");
    p.clear();
  }
  void SetUp() override { resetProfiler(); }
  void TearDown() override { resetProfiler(); }
  Profiler &prof() { return Profiler::get(); }
};

//===----------------------------------------------------------------------===//
// Overlap and order, read from the trace
//===----------------------------------------------------------------------===//

// Two independent ops on 2 CPU workers, each waiting until both have
// started: they run on two different threads and their [ts, ts + dur]
// intervals overlap.
TEST_F(ProfilerTest, IndependentOpsOverlapOnTwoThreads) {
  auto engine = makeEngine("threaded", 2);
  prof().setState(Profiler::State::Run);
  std::atomic<int> started{0};
  auto body = [&started](RunContext) {
    started.fetch_add(1);
    awaitCount(started, 2);
  };
  VarHandle a = engine->newVar(), b = engine->newVar();
  engine->pushSync(body, kCpu, {}, {a}, FnProperty::Normal, 0, "branchA");
  engine->pushSync(body, kCpu, {}, {b}, FnProperty::Normal, 0, "branchB");
  ASSERT_FALSE(engine->waitForAll());
  prof().setState(Profiler::State::Stop);
  ASSERT_EQ(started.load(), 2);

  ParsedTrace trace = parseTrace(prof().traceJSON());
  auto as = trace.named("branchA"), bs = trace.named("branchB");
  ASSERT_EQ(as.size(), 1u);
  ASSERT_EQ(bs.size(), 1u);
  const TraceEvent &ea = as[0], &eb = bs[0];
  EXPECT_NE(ea.tid, eb.tid);
  EXPECT_EQ(ea.pid, eb.pid);
  EXPECT_LT(std::max(ea.ts, eb.ts), std::min(ea.end(), eb.end()))
      << "A [" << ea.ts << ", " << ea.end() << "] B [" << eb.ts << ", " << eb.end() << "]";
  EXPECT_EQ(ea.device, "cpu(0)");
  // Both threads are named CPU workers of the engine.
  for (int64_t tid : {ea.tid, eb.tid}) {
    ASSERT_TRUE(trace.threadNames.count(tid)) << tid;
    EXPECT_EQ(trace.threadNames[tid].rfind("cpu worker ", 0), 0u) << trace.threadNames[tid];
  }
  EXPECT_NE(trace.threadNames[ea.tid], trace.threadNames[eb.tid]);
  engine->deleteVar(a);
  engine->deleteVar(b);
}

// A -> B (B reads what A writes): B starts after A ends, in the trace.
TEST_F(ProfilerTest, DependentOpStartsAfterItsInputEnds) {
  auto engine = makeEngine("threaded", 2);
  prof().setState(Profiler::State::Run);
  VarHandle v = engine->newVar(), w = engine->newVar();
  int value = 0, result = 0;
  for (int round = 0; round < 20; ++round) {
    engine->pushSync([&value, round](RunContext) { value = round + 1; }, kCpu, {}, {v},
                     FnProperty::Normal, 0, "A");
    engine->pushSync([&](RunContext) { result = value * 2; }, kCpu, {v}, {w},
                     FnProperty::Normal, 0, "B");
  }
  ASSERT_FALSE(engine->waitForAll());
  EXPECT_EQ(result, 40);
  prof().setState(Profiler::State::Stop);
  ParsedTrace trace = parseTrace(prof().traceJSON());
  auto as = trace.named("A"), bs = trace.named("B");
  ASSERT_EQ(as.size(), 20u);
  ASSERT_EQ(bs.size(), 20u);
  // Events are sorted by start; the i-th A precedes the i-th B, which
  // precedes the (i+1)-th A (it writes what B read).
  for (size_t i = 0; i < as.size(); ++i) {
    EXPECT_GE(bs[i].ts, as[i].end()) << i;
    if (i + 1 < as.size())
      EXPECT_GE(as[i + 1].ts, bs[i].end()) << i;
  }
  engine->deleteVar(v);
  engine->deleteVar(w);
}

// An asynchronous op's event ends when `done` is called (here from a thread
// of its own), not when its function returns; it keeps the tid of the worker
// that started it.
TEST_F(ProfilerTest, AsyncOpEndsAtDone) {
  auto engine = makeEngine("threaded", 2);
  prof().setState(Profiler::State::Run);
  VarHandle v = engine->newVar();
  std::atomic<uint64_t> fnReturningAt{0}, doneAt{0};
  std::atomic<int32_t> workerTid{0};
  std::thread finisher;
  engine->pushAsync(
      [&](RunContext, CompleteCallback done) {
        workerTid = Profiler::threadId();
        finisher = std::thread([&fnReturningAt, &doneAt, done] {
          while (fnReturningAt.load() == 0)
            std::this_thread::sleep_for(100us);
          std::this_thread::sleep_for(1ms);
          doneAt = Profiler::nowNs();
          done("");
        });
        fnReturningAt = Profiler::nowNs();
      },
      kCpu, {}, {v}, FnProperty::Normal, 0, "async");
  engine->pushSync([](RunContext) {}, kCpu, {v}, {}, FnProperty::Normal, 0, "after");
  ASSERT_FALSE(engine->waitForAll());
  finisher.join();
  prof().setState(Profiler::State::Stop);
  std::vector<Profiler::Event> events = prof().events();
  const Profiler::Event *async = nullptr, *after = nullptr;
  for (const auto &e : events) {
    if (e.name == "async")
      async = &e;
    if (e.name == "after")
      after = &e;
  }
  ASSERT_TRUE(async && after);
  EXPECT_EQ(async->tid, workerTid.load());
  EXPECT_GE(async->endNs, doneAt.load());
  EXPECT_GT(doneAt.load(), fnReturningAt.load());
  EXPECT_GE(after->startNs, async->endNs);
  engine->deleteVar(v);
}

// The naive engine records ops in the pushing thread, in push order.
TEST_F(ProfilerTest, NaiveEngineRecordsInCallerThread) {
  auto engine = makeEngine("naive");
  prof().setState(Profiler::State::Run);
  VarHandle v = engine->newVar();
  engine->pushSync([](RunContext) {}, kCpu, {}, {v}, FnProperty::Normal, 0, "first");
  engine->pushSync([](RunContext) {}, kCpu, {v}, {}, FnProperty::Normal, 0, "second");
  prof().setState(Profiler::State::Stop);
  ParsedTrace trace = parseTrace(prof().traceJSON());
  ASSERT_EQ(trace.events.size(), 2u);
  EXPECT_EQ(trace.events[0].name, "first");
  EXPECT_EQ(trace.events[1].name, "second");
  EXPECT_EQ(trace.events[0].tid, Profiler::threadId());
  EXPECT_GE(trace.events[1].ts, trace.events[0].end());
  engine->deleteVar(v);
}

//===----------------------------------------------------------------------===//
// States and configuration
//===----------------------------------------------------------------------===//

void pushNamed(Engine &engine, VarHandle v, const std::string &name) {
  engine.pushSync([](RunContext) {}, kCpu, {}, {v}, FnProperty::Normal, 0, name);
}

TEST_F(ProfilerTest, StoppedRecordsNothing) {
  auto engine = makeEngine("threaded", 2);
  VarHandle v = engine->newVar();
  EXPECT_EQ(prof().state(), Profiler::State::Stop);
  EXPECT_FALSE(Profiler::active());
  for (int i = 0; i < 10; ++i)
    pushNamed(*engine, v, "op");
  ASSERT_FALSE(engine->waitForAll());
  EXPECT_TRUE(prof().events().empty());
  ParsedTrace trace = parseTrace(prof().traceJSON());
  EXPECT_TRUE(trace.events.empty());
  EXPECT_TRUE(prof().stats().empty());
  engine->deleteVar(v);
}

TEST_F(ProfilerTest, PauseAndResume) {
  for (const char *kind : {"threaded", "naive"}) {
    SCOPED_TRACE(kind);
    prof().clear();
    auto engine = makeEngine(kind, 2);
    VarHandle v = engine->newVar();
    prof().setState(Profiler::State::Run);
    pushNamed(*engine, v, "before");
    ASSERT_FALSE(engine->waitForAll());
    prof().pause();
    EXPECT_TRUE(prof().paused());
    EXPECT_FALSE(Profiler::active());
    EXPECT_EQ(prof().state(), Profiler::State::Run);
    pushNamed(*engine, v, "paused");
    ASSERT_FALSE(engine->waitForAll());
    prof().resume();
    EXPECT_TRUE(Profiler::active());
    pushNamed(*engine, v, "after");
    ASSERT_FALSE(engine->waitForAll());
    prof().setState(Profiler::State::Stop);
    pushNamed(*engine, v, "stopped");
    ASSERT_FALSE(engine->waitForAll());
    // As MXNet's: a pause left at the stop ends when the profiler runs again.
    prof().pause();
    prof().setState(Profiler::State::Run);
    EXPECT_FALSE(prof().paused());
    pushNamed(*engine, v, "rerun");
    ASSERT_FALSE(engine->waitForAll());
    prof().setState(Profiler::State::Stop);
    std::vector<std::string> names;
    for (const auto &e : prof().events())
      names.push_back(e.name);
    EXPECT_EQ(names, (std::vector<std::string>{"before", "after", "rerun"}));
    engine->deleteVar(v);
  }
}

TEST_F(ProfilerTest, ConfigFlags) {
  auto engine = makeEngine("threaded", 2);
  VarHandle v = engine->newVar();
  // Every category off: running records nothing.
  prof().setConfig("profile_symbolic", "False");
  prof().setConfig("profile_imperative", "0");
  prof().setState(Profiler::State::Run);
  EXPECT_FALSE(Profiler::active());
  pushNamed(*engine, v, "off");
  ASSERT_FALSE(engine->waitForAll());
  // profile_all alone turns everything on.
  prof().setConfig("profile_all", "True");
  EXPECT_TRUE(Profiler::active());
  pushNamed(*engine, v, "on");
  ASSERT_FALSE(engine->waitForAll());
  prof().setState(Profiler::State::Stop);
  auto events = prof().events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].name, "on");
  // Keys that do not apply are accepted; unknown keys and bad values throw.
  for (const char *key : {"profile_memory", "profile_api", "aggregate_stats", "continuous_dump"})
    EXPECT_NO_THROW(prof().setConfig(key, "true")) << key;
  EXPECT_NO_THROW(prof().setConfig("dump_period", "1.5"));
  EXPECT_NO_THROW(prof().setConfig("profile_process", "worker"));
  EXPECT_THROW(prof().setConfig("profile_everything", "true"), Error);
  EXPECT_THROW(prof().setConfig("profile_all", "yes please"), Error);
  EXPECT_THROW(prof().setConfig("filename", ""), Error);
  engine->deleteVar(v);
}

//===----------------------------------------------------------------------===//
// dump and dumps
//===----------------------------------------------------------------------===//

TEST_F(ProfilerTest, DumpWritesTraceAtomically) {
  TempDir dir;
  const std::string path = dir.path() + "/trace.json";
  prof().setConfig("filename", path);
  EXPECT_EQ(prof().filename(), path);
  auto engine = makeEngine("threaded", 2);
  VarHandle v = engine->newVar();
  prof().setState(Profiler::State::Run);
  pushNamed(*engine, v, "weird \"name\"\\\n");
  pushNamed(*engine, v, "plain");
  ASSERT_FALSE(engine->waitForAll());
  prof().dump(/*finished=*/false);
  ParsedTrace first = parseTrace(readFile(path));
  ASSERT_EQ(first.events.size(), 2u);
  EXPECT_EQ(first.named("weird \"name\"\\\n").size(), 1u);
  // Not finished: the next dump still has them, plus the new ones.
  pushNamed(*engine, v, "plain");
  ASSERT_FALSE(engine->waitForAll());
  prof().dump(/*finished=*/true);
  EXPECT_EQ(parseTrace(readFile(path)).events.size(), 3u);
  // Finished: a new trace starts.
  EXPECT_TRUE(prof().events().empty());
  pushNamed(*engine, v, "next");
  ASSERT_FALSE(engine->waitForAll());
  prof().setState(Profiler::State::Stop);
  prof().dump();
  ParsedTrace last = parseTrace(readFile(path));
  ASSERT_EQ(last.events.size(), 1u);
  EXPECT_EQ(last.events[0].name, "next");
  // Only the trace is left in the directory (no temporary file).
  std::string listing;
  {
    std::FILE *ls = ::popen(("ls -A '" + dir.path() + "'").c_str(), "r");
    ASSERT_NE(ls, nullptr);
    char buf[256];
    while (std::fgets(buf, sizeof buf, ls))
      listing += buf;
    ::pclose(ls);
  }
  EXPECT_EQ(listing, "trace.json\n");
  // An unwritable place throws.
  prof().setConfig("filename", dir.path() + "/no/such/dir/trace.json");
  EXPECT_THROW(prof().dump(), Error);
  engine->deleteVar(v);
}

TEST_F(ProfilerTest, DumpsAggregates) {
  auto engine = makeEngine("threaded", 2);
  VarHandle v = engine->newVar();
  prof().setState(Profiler::State::Run);
  for (int i = 0; i < 3; ++i)
    pushNamed(*engine, v, "three");
  pushNamed(*engine, v, "one");
  ASSERT_FALSE(engine->waitForAll());
  prof().setState(Profiler::State::Stop);

  std::map<std::string, uint64_t> counts;
  for (const auto &s : prof().stats()) {
    counts[s.name] = s.count;
    EXPECT_LE(s.minNs, s.maxNs);
    EXPECT_LE(s.maxNs, s.totalNs);
  }
  EXPECT_EQ(counts, (std::map<std::string, uint64_t>{{"one", 1}, {"three", 3}}));

  std::string table = prof().aggregateStats(false, "table", "count", false);
  EXPECT_NE(table.find("Total Count"), std::string::npos) << table;
  size_t three = table.find("three"), one = table.find("one ");
  ASSERT_NE(three, std::string::npos) << table;
  ASSERT_NE(one, std::string::npos) << table;
  EXPECT_LT(three, one) << "sorted by count, descending:\n" << table;
  EXPECT_LT(prof().aggregateStats(false, "table", "count", true).find("one "),
            prof().aggregateStats(false, "table", "count", true).find("three"));

  Json root;
  std::string json = prof().aggregateStats(false, "json");
  JsonParser parser(json);
  ASSERT_TRUE(parser.parse(root)) << parser.error() << "\n" << json;
  const Json *time = root.get("Time");
  ASSERT_TRUE(time);
  const Json *ops = time->get("operator");
  ASSERT_TRUE(ops && ops->kind == Json::Object);
  ASSERT_TRUE(ops->get("three"));
  const Json *count = ops->get("three")->get("Count");
  ASSERT_TRUE(count);
  EXPECT_EQ(count->text, "3");
  for (const char *k : {"Total", "Min", "Max", "Avg"})
    EXPECT_TRUE(ops->get("three")->get(k)) << k;

  EXPECT_THROW(prof().aggregateStats(false, "xml"), Error);
  EXPECT_THROW(prof().aggregateStats(false, "table", "name"), Error);
  // reset clears the statistics, not the trace.
  prof().aggregateStats(/*reset=*/true);
  EXPECT_TRUE(prof().stats().empty());
  EXPECT_EQ(prof().events().size(), 4u);
  engine->deleteVar(v);
}

// Many threads pushing while the profiler is switched on and off and read:
// a ThreadSanitizer build reports any race here.
TEST_F(ProfilerTest, ConcurrentRecordingAndReading) {
  auto engine = makeEngine("threaded", 2);
  std::vector<VarHandle> vars;
  for (int i = 0; i < 4; ++i)
    vars.push_back(engine->newVar());
  prof().setState(Profiler::State::Run);
  std::atomic<bool> stop{false};
  std::thread reader([&] {
    while (!stop.load()) {
      prof().traceJSON();
      prof().aggregateStats();
      prof().pause();
      prof().resume();
    }
  });
  std::vector<std::thread> pushers;
  for (int t = 0; t < 3; ++t)
    pushers.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i)
        pushNamed(*engine, vars[(t + i) % vars.size()], "op" + std::to_string(t));
    });
  for (auto &p : pushers)
    p.join();
  ASSERT_FALSE(engine->waitForAll());
  stop = true;
  reader.join();
  prof().setState(Profiler::State::Stop);
  parseTrace(prof().traceJSON());
  for (VarHandle v : vars)
    engine->deleteVar(v);
}

//===----------------------------------------------------------------------===//
// The C API
//===----------------------------------------------------------------------===//

TEST_F(ProfilerTest, CApi) {
  TempDir dir;
  const std::string path = dir.path() + "/c.json";
  const char *keys[] = {"profile_all", "filename", "aggregate_stats"};
  const char *vals[] = {"1", path.c_str(), "True"};
  ASSERT_EQ(mxcProfilerSetConfig(3, keys, vals), MXC_OK) << mxcGetLastError();
  EXPECT_EQ(prof().filename(), path);
  const char *badKey[] = {"no_such_key"};
  EXPECT_EQ(mxcProfilerSetConfig(1, badKey, vals), MXC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mxcGetLastError()).find("no_such_key"), std::string::npos);
  EXPECT_EQ(mxcProfilerSetState(2), MXC_ERROR_INVALID_ARGUMENT);

  int state = -1;
  ASSERT_EQ(mxcProfilerSetState(1), MXC_OK);
  ASSERT_EQ(mxcProfilerGetState(&state), MXC_OK);
  EXPECT_EQ(state, 1);
  auto engine = makeEngine("threaded", 2);
  VarHandle v = engine->newVar();
  pushNamed(*engine, v, "c-op");
  ASSERT_FALSE(engine->waitForAll());
  ASSERT_EQ(mxcProfilerPause(1), MXC_OK);
  pushNamed(*engine, v, "c-paused");
  ASSERT_FALSE(engine->waitForAll());
  ASSERT_EQ(mxcProfilerPause(0), MXC_OK);
  ASSERT_EQ(mxcProfilerSetState(0), MXC_OK);
  ASSERT_EQ(mxcProfilerGetState(&state), MXC_OK);
  EXPECT_EQ(state, 0);

  const char *text = nullptr;
  ASSERT_EQ(mxcProfilerDumps(0, "table", &text), MXC_OK);
  EXPECT_NE(std::string(text).find("c-op"), std::string::npos) << text;
  EXPECT_EQ(std::string(text).find("c-paused"), std::string::npos) << text;
  ASSERT_EQ(mxcProfilerDumps(1, "json", &text), MXC_OK);
  EXPECT_NE(std::string(text).find("\"c-op\""), std::string::npos) << text;
  EXPECT_EQ(mxcProfilerDumps(0, "yaml", &text), MXC_ERROR_INVALID_ARGUMENT);

  ASSERT_EQ(mxcProfilerDump(1), MXC_OK) << mxcGetLastError();
  ParsedTrace trace = parseTrace(readFile(path));
  EXPECT_EQ(trace.named("c-op").size(), 1u);
  EXPECT_TRUE(trace.named("c-paused").empty());
  engine->deleteVar(v);
}

//===----------------------------------------------------------------------===//
// The environment: a helper process on the default engine
//===----------------------------------------------------------------------===//

#ifdef MXC_PROFILER_HELPER
int runHelper(const std::string &env, const std::string &cwd) {
  std::string cmd = "cd '" + cwd + "' && env " + env + " '" MXC_PROFILER_HELPER "'";
  return std::system(cmd.c_str());
}

TEST(ProfilerEnvironment, MXC_PROFILE_WritesTraceAtExit) {
  TempDir dir;
  const std::string path = dir.path() + "/run.json";
  ASSERT_EQ(runHelper("MXC_PROFILE='" + path + "'", dir.path()), 0);
  ASSERT_TRUE(fileExists(path));
  ParsedTrace trace = parseTrace(readFile(path));
  EXPECT_EQ(trace.named("helper-op").size(), 4u);
  EXPECT_FALSE(fileExists(dir.path() + "/profile.json"));
}

TEST(ProfilerEnvironment, MXNET_PROFILER_AUTOSTART_WritesProfileJson) {
  TempDir dir;
  ASSERT_EQ(runHelper("MXNET_PROFILER_AUTOSTART=1", dir.path()), 0);
  const std::string path = dir.path() + "/profile.json";
  ASSERT_TRUE(fileExists(path));
  EXPECT_EQ(parseTrace(readFile(path)).named("helper-op").size(), 4u);
}

TEST(ProfilerEnvironment, NothingWithoutVariables) {
  TempDir dir;
  ASSERT_EQ(runHelper("-u MXC_PROFILE -u MXNET_PROFILER_AUTOSTART", dir.path()), 0);
  EXPECT_FALSE(fileExists(dir.path() + "/profile.json"));
}
#endif

} // namespace
} // namespace mxc::runtime::test
