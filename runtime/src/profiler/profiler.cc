// profiler.cc - the process-wide profiler of engine operations (see
// include/mxc/runtime/profiler.h and docs/runtime.md, "Profiler").
//
// Each thread that records owns a buffer (events + per-name statistics)
// under its own mutex, registered once with the profiler; dumps and
// statistics walk the registered buffers. Thread ids and names live in one
// table, filled when a thread first asks for its id or names itself, so that
// an event recorded on a foreign thread (an asynchronous op's `done`) still
// names the worker that started it.
#include "mxc/runtime/profiler.h"
#include "mxc/runtime/error.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include <unistd.h>
#if defined(__linux__)
#include <pthread.h>
#endif

namespace mxc::runtime {

namespace detail {
std::atomic<bool> gProfilerActive{false};
} // namespace detail

namespace {

using Clock = std::chrono::steady_clock;
const Clock::time_point kEpoch = Clock::now();
// The thread that loaded the runtime (the process's main thread, or the one
// that imported the Python extension).
const std::thread::id kMainThread = std::this_thread::get_id();

struct ThreadBuffer {
  std::mutex mu;
  std::vector<Profiler::Event> events;            // guarded by mu
  std::unordered_map<std::string, Profiler::Stat> stats; // guarded by mu
  bool alive = true;                              // guarded by mu
};

// What a thread knows about itself; the buffer outlives the thread (its
// events stay until dumped).
struct ThreadSlot {
  int32_t tid = 0;
  std::shared_ptr<ThreadBuffer> buffer;
  ~ThreadSlot() {
    if (buffer) {
      std::lock_guard<std::mutex> lock(buffer->mu);
      buffer->alive = false;
    }
  }
};
thread_local ThreadSlot tlsSlot;

bool parseBool(const std::string &key, const std::string &value) {
  std::string v;
  for (char c : value)
    v += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "1" || v == "true")
    return true;
  if (v == "0" || v == "false")
    return false;
  throw Error("profiler: " + key + "='" + value + "' is not a boolean (true/false/1/0)");
}

void appendEscaped(std::string &out, const std::string &s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  out += '"';
}

// Nanoseconds as microseconds with three decimals ("12.345").
void appendMicros(std::string &out, uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llu.%03llu", static_cast<unsigned long long>(ns / 1000),
                static_cast<unsigned long long>(ns % 1000));
  out += buf;
}

// Nanoseconds as milliseconds with four decimals.
std::string millis(uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", static_cast<double>(ns) / 1e6);
  return buf;
}

} // namespace

struct Profiler::Impl {
  mutable std::mutex mu;
  // All guarded by mu.
  std::string filename = "profile.json";
  bool profileAll = false, profileSymbolic = true, profileImperative = true;
  State state = State::Stop;
  bool paused = false;
  std::vector<std::shared_ptr<ThreadBuffer>> buffers;
  std::map<int32_t, std::string> threadNames;

  std::atomic<int32_t> nextTid{1};
  /// Events recorded since the last finished dump or clear.
  std::atomic<bool> dirty{false};

  void updateActiveLocked() {
    bool on = state == State::Run && !paused &&
              (profileAll || profileSymbolic || profileImperative);
    detail::gProfilerActive.store(on, std::memory_order_relaxed);
  }

  std::vector<std::shared_ptr<ThreadBuffer>> snapshotBuffers() const {
    std::lock_guard<std::mutex> lock(mu);
    return buffers;
  }

  // Drops the events (and, if `stats`, the statistics) of every buffer, and
  // the buffers of threads that have exited.
  void clearBuffers(bool events, bool stats) {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<std::shared_ptr<ThreadBuffer>> kept;
    for (auto &b : buffers) {
      std::lock_guard<std::mutex> bl(b->mu);
      if (events)
        b->events.clear();
      if (stats)
        b->stats.clear();
      if (b->alive || !b->events.empty() || !b->stats.empty())
        kept.push_back(b);
    }
    buffers = std::move(kept);
  }
};

Profiler::Profiler() : impl_(new Impl()) {}

Profiler &Profiler::get() {
  // Never destroyed: worker threads of leaked engines may still record while
  // the process exits.
  static Profiler *profiler = new Profiler();
  return *profiler;
}

uint64_t Profiler::nowNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - kEpoch).count());
}

void Profiler::setConfig(const std::string &key, const std::string &value) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (key == "filename") {
    if (value.empty())
      throw Error("profiler: filename must not be empty");
    impl_->filename = value;
  } else if (key == "profile_all") {
    impl_->profileAll = parseBool(key, value);
  } else if (key == "profile_symbolic") {
    impl_->profileSymbolic = parseBool(key, value);
  } else if (key == "profile_imperative") {
    impl_->profileImperative = parseBool(key, value);
  } else if (key == "profile_memory" || key == "profile_api" || key == "aggregate_stats" ||
             key == "continuous_dump") {
    parseBool(key, value); // accepted, checked, ignored
  } else if (key == "dump_period") {
    errno = 0;
    char *end = nullptr;
    std::strtod(value.c_str(), &end);
    if (value.empty() || errno != 0 || *end != '\0')
      throw Error("profiler: dump_period='" + value + "' is not a number");
  } else if (key == "profile_process") {
    if (value != "worker" && value != "server")
      throw Error("profiler: profile_process='" + value + "' (want worker or server)");
  } else {
    throw Error("profiler: unknown config key '" + key +
                "' (known: filename, profile_all, profile_symbolic, profile_imperative, "
                "profile_memory, profile_api, aggregate_stats, continuous_dump, "
                "dump_period, profile_process)");
  }
  impl_->updateActiveLocked();
}

std::string Profiler::filename() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->filename;
}

void Profiler::setState(State state) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->state = state;
  // As MXNet's Profiler::SetState: running again ends a pause (stopping
  // sets one, which the next run clears).
  impl_->paused = state != State::Run;
  impl_->updateActiveLocked();
}

Profiler::State Profiler::state() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->state;
}

void Profiler::pause() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->paused = true;
  impl_->updateActiveLocked();
}

void Profiler::resume() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->paused = false;
  impl_->updateActiveLocked();
}

bool Profiler::paused() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->paused;
}

int32_t Profiler::threadId() {
  ThreadSlot &slot = tlsSlot;
  if (slot.tid == 0) {
    Impl &impl = *get().impl_;
    slot.tid = impl.nextTid.fetch_add(1, std::memory_order_relaxed);
    std::string name = std::this_thread::get_id() == kMainThread
                           ? std::string("main thread")
                           : "thread " + std::to_string(slot.tid);
    std::lock_guard<std::mutex> lock(impl.mu);
    impl.threadNames.emplace(slot.tid, std::move(name));
  }
  return slot.tid;
}

void Profiler::setThreadName(const std::string &name) {
  int32_t tid = threadId();
  Impl &impl = *get().impl_;
  std::lock_guard<std::mutex> lock(impl.mu);
  impl.threadNames[tid] = name;
#if defined(__linux__)
  // Also the OS thread's name (15 characters), for perf, top -H and gdb.
  pthread_setname_np(pthread_self(), ("mxc " + name).substr(0, 15).c_str());
#endif
}

void Profiler::record(Event event) {
  ThreadSlot &slot = tlsSlot;
  if (!slot.buffer) {
    slot.buffer = std::make_shared<ThreadBuffer>();
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->buffers.push_back(slot.buffer);
  }
  if (event.name.empty())
    event.name = "unnamed";
  if (event.endNs < event.startNs)
    event.endNs = event.startNs;
  const uint64_t dur = event.endNs - event.startNs;
  {
    std::lock_guard<std::mutex> lock(slot.buffer->mu);
    auto it = slot.buffer->stats.find(event.name);
    if (it == slot.buffer->stats.end()) {
      Stat s;
      s.name = event.name;
      s.minNs = dur;
      it = slot.buffer->stats.emplace(event.name, std::move(s)).first;
    }
    Stat &s = it->second;
    ++s.count;
    s.totalNs += dur;
    s.minNs = std::min(s.minNs, dur);
    s.maxNs = std::max(s.maxNs, dur);
    slot.buffer->events.push_back(std::move(event));
  }
  impl_->dirty.store(true, std::memory_order_relaxed);
}

std::vector<Profiler::Event> Profiler::events() const {
  std::vector<Event> all;
  for (const auto &b : impl_->snapshotBuffers()) {
    std::lock_guard<std::mutex> lock(b->mu);
    all.insert(all.end(), b->events.begin(), b->events.end());
  }
  std::sort(all.begin(), all.end(), [](const Event &a, const Event &b) {
    if (a.startNs != b.startNs)
      return a.startNs < b.startNs;
    return a.tid != b.tid ? a.tid < b.tid : a.endNs < b.endNs;
  });
  return all;
}

std::string Profiler::traceJSON() const {
  std::vector<Event> all = events();
  std::map<int32_t, std::string> names;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    for (const Event &e : all) {
      auto it = impl_->threadNames.find(e.tid);
      names[e.tid] = it != impl_->threadNames.end() ? it->second
                                                    : "thread " + std::to_string(e.tid);
    }
  }
  const std::string pid = std::to_string(static_cast<long long>(::getpid()));
  std::string out = "{\"traceEvents\": [\n";
  out += "  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " + pid +
         ", \"tid\": 0, \"args\": {\"name\": \"mxc\"}}";
  for (const auto &[tid, name] : names) {
    out += ",\n  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": " + pid +
           ", \"tid\": " + std::to_string(tid) + ", \"args\": {\"name\": ";
    appendEscaped(out, name);
    out += "}},\n  {\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": " + pid +
           ", \"tid\": " + std::to_string(tid) +
           ", \"args\": {\"sort_index\": " + std::to_string(tid) + "}}";
  }
  for (const Event &e : all) {
    out += ",\n  {\"name\": ";
    appendEscaped(out, e.name);
    out += ", \"cat\": \"operator\", \"ph\": \"X\", \"ts\": ";
    appendMicros(out, e.startNs);
    out += ", \"dur\": ";
    appendMicros(out, e.endNs - e.startNs);
    out += ", \"pid\": " + pid + ", \"tid\": " + std::to_string(e.tid) + ", \"args\": {\"device\": ";
    appendEscaped(out, e.device.str());
    out += "}}";
  }
  out += "\n],\n\"displayTimeUnit\": \"ms\"}\n";
  return out;
}

void Profiler::dump(bool finished) {
  const std::string path = filename();
  const std::string text = traceJSON();
  // A temporary file beside the target, then rename: a reader never sees a
  // half-written trace.
  const std::string tmp = path + ".tmp." + std::to_string(static_cast<long long>(::getpid()));
  std::FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f)
    throw Error("profiler: cannot write '" + tmp + "': " + std::strerror(errno));
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = std::fflush(f) == 0 && ok;
  ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    int err = errno;
    std::remove(tmp.c_str());
    throw Error("profiler: cannot write '" + tmp + "': " + std::strerror(err));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    throw Error("profiler: cannot rename '" + tmp + "' to '" + path + "': " + std::strerror(err));
  }
  if (finished) {
    impl_->clearBuffers(/*events=*/true, /*stats=*/false);
    impl_->dirty.store(false, std::memory_order_relaxed);
  }
}

std::vector<Profiler::Stat> Profiler::stats() const {
  std::map<std::string, Stat> merged;
  for (const auto &b : impl_->snapshotBuffers()) {
    std::lock_guard<std::mutex> lock(b->mu);
    for (const auto &[name, s] : b->stats) {
      auto [it, inserted] = merged.emplace(name, s);
      if (!inserted) {
        Stat &m = it->second;
        m.count += s.count;
        m.totalNs += s.totalNs;
        m.minNs = std::min(m.minNs, s.minNs);
        m.maxNs = std::max(m.maxNs, s.maxNs);
      }
    }
  }
  std::vector<Stat> out;
  for (auto &entry : merged)
    out.push_back(std::move(entry.second));
  return out;
}

std::string Profiler::aggregateStats(bool reset, const std::string &format,
                                     const std::string &sortBy, bool ascending) {
  if (format != "table" && format != "json")
    throw Error("profiler: dumps format '" + format + "' (want table or json)");
  auto key = [&](const Stat &s) -> double {
    if (sortBy == "total")
      return static_cast<double>(s.totalNs);
    if (sortBy == "avg")
      return s.count ? static_cast<double>(s.totalNs) / s.count : 0.0;
    if (sortBy == "min")
      return static_cast<double>(s.minNs);
    if (sortBy == "max")
      return static_cast<double>(s.maxNs);
    if (sortBy == "count")
      return static_cast<double>(s.count);
    throw Error("profiler: dumps sort_by '" + sortBy + "' (want total, avg, min, max or count)");
  };
  std::vector<Stat> all = stats();
  if (!all.empty())
    (void)key(all[0]); // reject a bad sort_by before sorting
  else
    (void)key(Stat{});
  std::sort(all.begin(), all.end(), [&](const Stat &a, const Stat &b) {
    double ka = key(a), kb = key(b);
    if (ka != kb)
      return ascending ? ka < kb : ka > kb;
    return a.name < b.name; // stats() is sorted by name: keep that among ties
  });
  auto avgNs = [](const Stat &s) { return s.count ? s.totalNs / s.count : 0; };

  std::string out;
  if (format == "json") {
    out = "{\n  \"Time\": {\n    \"operator\": {";
    bool first = true;
    for (const Stat &s : all) {
      out += first ? "\n      " : ",\n      ";
      first = false;
      appendEscaped(out, s.name);
      out += ": {\"Count\": " + std::to_string(s.count) + ", \"Total\": " + millis(s.totalNs) +
             ", \"Min\": " + millis(s.minNs) + ", \"Max\": " + millis(s.maxNs) +
             ", \"Avg\": " + millis(avgNs(s)) + "}";
    }
    out += all.empty() ? "}\n  },\n" : "\n    }\n  },\n";
    out += "  \"Unit\": {\"Time\": \"ms\"}\n}\n";
  } else {
    size_t width = 4;
    for (const Stat &s : all)
      width = std::max(width, s.name.size());
    width += 2;
    auto pad = [](std::string s, size_t w) {
      if (s.size() < w)
        s.append(w - s.size(), ' ');
      return s;
    };
    auto lpad = [](std::string s, size_t w) {
      if (s.size() < w)
        s.insert(0, w - s.size(), ' ');
      return s;
    };
    out = "Profile Statistics:\n\tNote that times are in ms.\n\noperator\n=================\n";
    out += pad("Name", width) + lpad("Total Count", 13) + lpad("Time (ms)", 16) +
           lpad("Min Time (ms)", 16) + lpad("Max Time (ms)", 16) + lpad("Avg Time (ms)", 16) +
           "\n";
    out += pad("----", width) + lpad("-----------", 13) + lpad("---------", 16) +
           lpad("-------------", 16) + lpad("-------------", 16) + lpad("-------------", 16) +
           "\n";
    for (const Stat &s : all)
      out += pad(s.name, width) + lpad(std::to_string(s.count), 13) +
             lpad(millis(s.totalNs), 16) + lpad(millis(s.minNs), 16) +
             lpad(millis(s.maxNs), 16) + lpad(millis(avgNs(s)), 16) + "\n";
  }
  if (reset)
    impl_->clearBuffers(/*events=*/false, /*stats=*/true);
  return out;
}

void Profiler::clear() {
  impl_->clearBuffers(/*events=*/true, /*stats=*/true);
  impl_->dirty.store(false, std::memory_order_relaxed);
}

void Profiler::dumpAtExit() {
  if (!impl_->dirty.load(std::memory_order_relaxed))
    return;
  try {
    dump(/*finished=*/true);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "mxc: profiler: %s\n", e.what());
  }
}

namespace {
// MXNET_PROFILER_AUTOSTART=1 / MXC_PROFILE=<file>: run from load time and
// write the trace at exit. This object is constructed when the runtime
// library is loaded, before the default engine exists (it is created on
// first use), so it is destroyed after that engine, which waits for its
// operations: the trace written here has them all.
struct EnvironmentStart {
  EnvironmentStart() {
    Profiler &p = Profiler::get();
    bool start = false;
    if (const char *v = std::getenv("MXNET_PROFILER_AUTOSTART"); v && *v) {
      if (std::strcmp(v, "1") == 0)
        start = true;
      else if (std::strcmp(v, "0") != 0)
        std::fprintf(stderr, "mxc: ignoring MXNET_PROFILER_AUTOSTART='%s' (want 0 or 1)\n", v);
    }
    if (const char *file = std::getenv("MXC_PROFILE"); file && *file) {
      p.setConfig("filename", file);
      start = true;
    }
    if (start)
      p.setState(Profiler::State::Run);
  }
  ~EnvironmentStart() { Profiler::get().dumpAtExit(); }
};
const EnvironmentStart kEnvironmentStart;
} // namespace

} // namespace mxc::runtime
