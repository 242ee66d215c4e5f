// profiler.h - the process-wide profiler of engine operations (MXNet 1.x's
// src/profiler, behind `mx.profiler`): while it runs, every operation an
// engine runs is recorded as one event (its name, the worker thread, the
// device, start and duration on the steady clock), and the events can be
// written as a Chrome trace (chrome://tracing, Perfetto) or summarised per
// operation name (count / total / min / max / avg).
//
//   Profiler &p = Profiler::get();
//   p.setConfig("filename", "trace.json");
//   p.setState(Profiler::State::Run);
//   ... push operations ...
//   engine.waitForAll();
//   p.setState(Profiler::State::Stop);
//   p.dump();                       // trace.json, written atomically
//   std::string table = p.aggregateStats(/*reset=*/false, "table");
//
// Environment (read once, when the runtime library is loaded):
//   MXNET_PROFILER_AUTOSTART=1  run from process start (as in MXNet); the
//                               trace is written to the configured file
//                               (default profile.json) at exit.
//   MXC_PROFILE=<file.json>     the same, writing the trace to <file.json>.
//
// Recording costs one relaxed atomic load per operation while the profiler
// is stopped or paused. Events go to a buffer per recording thread (each
// under its own, uncontended mutex), so the profiler is safe under
// ThreadSanitizer from any number of threads.
//
// Plain C++17: nothing here may include LLVM or MLIR.
#ifndef MXC_RUNTIME_PROFILER_H
#define MXC_RUNTIME_PROFILER_H

#include "mxc/runtime/api.h"
#include "mxc/runtime/device.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace mxc::runtime {

namespace detail {
/// True while the profiler records (running, not paused, some operation
/// category on). Read by the engines on every operation.
MXC_RUNTIME_API extern std::atomic<bool> gProfilerActive;
} // namespace detail

class MXC_RUNTIME_API Profiler {
public:
  enum class State { Stop, Run };

  /// One engine operation. Times are steady-clock nanoseconds since the
  /// profiler's epoch (the runtime library's load).
  struct Event {
    std::string name;
    Device device;
    int32_t tid = 0; ///< Profiler::threadId() of the thread that started it
    uint64_t startNs = 0;
    uint64_t endNs = 0;
  };

  /// Per-name aggregate of the events recorded since the last reset.
  struct Stat {
    std::string name;
    uint64_t count = 0;
    uint64_t totalNs = 0, minNs = 0, maxNs = 0;
  };

  /// The process-wide profiler (never destroyed).
  static Profiler &get();

  /// Whether events are being recorded: one relaxed atomic load.
  static bool active() { return detail::gProfilerActive.load(std::memory_order_relaxed); }
  /// Steady-clock nanoseconds since the profiler's epoch.
  static uint64_t nowNs();

  /// Sets one configuration value, spelled as MXNet's set_config:
  ///   filename (default "profile.json");
  ///   profile_all, profile_symbolic, profile_imperative: operations are
  ///     recorded when any of them is true (all operations: the engine does
  ///     not tell symbolic from imperative work); profile_symbolic and
  ///     profile_imperative default to true, profile_all to false;
  ///   profile_memory, profile_api, aggregate_stats, continuous_dump,
  ///   dump_period, profile_process: accepted and ignored (aggregate stats
  ///     are always kept; no memory or API events are recorded).
  /// Booleans are "1"/"0"/"true"/"false" (any case). An unknown key or a
  /// malformed value throws Error.
  void setConfig(const std::string &key, const std::string &value);
  std::string filename() const;

  void setState(State state);
  State state() const;
  /// Pause stops recording without changing the state; resume restarts it.
  /// As in MXNet, setState(Run) also ends a pause and setState(Stop) sets
  /// one.
  void pause();
  void resume();
  bool paused() const;

  /// The calling thread's small, stable id in traces (1, 2, ... in order of
  /// first use) and its name there. Engine workers name themselves
  /// ("cpu worker 0", "priority worker 0"); other threads are "thread <id>",
  /// the thread that loaded the runtime "main thread".
  static int32_t threadId();
  static void setThreadName(const std::string &name);

  /// Records an operation (usually called by the engines, only when
  /// active() was true at its start).
  void record(Event event);

  /// Events recorded since the last finished dump or clear, ordered by start.
  std::vector<Event> events() const;
  /// The Chrome trace of events(): {"traceEvents": [...]}, one "ph":"X"
  /// complete event per operation (ts and dur in microseconds, ns precision)
  /// and "ph":"M" events naming the process and the threads.
  std::string traceJSON() const;
  /// Writes traceJSON() to filename() atomically (a temporary file in the
  /// same directory, then rename). `finished` (MXNet's dump(finished=True)):
  /// the trace is complete, the next dump starts a new one (the written
  /// events are dropped). Throws Error if the file cannot be written.
  void dump(bool finished = true);
  /// Aggregate statistics per operation name (MXNet 1.9.1's dumps):
  /// `format` "table" (a text table, times in ms) or "json"
  /// ({"Time": {"operator": {name: {"Count", "Total", "Min", "Max", "Avg"}}},
  /// "Unit": {"Time": "ms"}}); `sortBy` "total" | "avg" | "min" | "max" |
  /// "count". `reset` clears the statistics after reading them.
  std::string aggregateStats(bool reset = false, const std::string &format = "table",
                             const std::string &sortBy = "total",
                             bool ascending = false);
  std::vector<Stat> stats() const;
  /// Drops every event and statistic; the configuration and state stay.
  void clear();

  /// Called at exit (after the default engine finished its operations):
  /// writes the trace if events were recorded since the last finished dump;
  /// errors go to stderr.
  void dumpAtExit();

  Profiler(const Profiler &) = delete;
  Profiler &operator=(const Profiler &) = delete;

private:
  Profiler();
  ~Profiler() = delete;
  struct Impl;
  Impl *impl_;
};

} // namespace mxc::runtime

#endif // MXC_RUNTIME_PROFILER_H
