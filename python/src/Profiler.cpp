//===- Profiler.cpp - mx.profiler's bindings ------------------------------===//
//
// The process-wide profiler of engine operations
// (runtime/include/mxc/runtime/profiler.h), bound as mxc._mxc.profiler_*;
// python/mxc/profiler.py is MXNet 1.x's API over these. The extension links
// libmxc_runtime.so dynamically, so these calls reach the same profiler as
// the engine that runs every operation in the process.
//
//===----------------------------------------------------------------------===//

#include "mxc/runtime/profiler.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <stdexcept>
#include <string>

namespace nb = nanobind;
using mxc::runtime::Profiler;

void bindProfiler(nb::module_ &m) {
  m.def(
      "profiler_set_config",
      [](const std::string &key, const std::string &value) {
        Profiler::get().setConfig(key, value);
      },
      nb::arg("key"), nb::arg("value"),
      "Sets one profiler configuration value (MXNet's set_config keys; "
      "booleans as 'true'/'false'/'1'/'0')");
  m.def(
      "profiler_set_state",
      [](const std::string &state) {
        if (state == "run")
          Profiler::get().setState(Profiler::State::Run);
        else if (state == "stop")
          Profiler::get().setState(Profiler::State::Stop);
        else
          throw std::invalid_argument("profiler state '" + state + "' (want 'run' or 'stop')");
      },
      nb::arg("state"));
  m.def("profiler_state", [] {
    return std::string(Profiler::get().state() == Profiler::State::Run ? "run" : "stop");
  });
  m.def("profiler_pause", [] { Profiler::get().pause(); });
  m.def("profiler_resume", [] { Profiler::get().resume(); });
  m.def("profiler_paused", [] { return Profiler::get().paused(); });
  m.def(
      "profiler_dump",
      [](bool finished) {
        nb::gil_scoped_release release;
        Profiler::get().dump(finished);
      },
      nb::arg("finished") = true, "Writes the Chrome trace to the configured file");
  m.def(
      "profiler_dumps",
      [](bool reset, const std::string &format, const std::string &sortBy, bool ascending) {
        return Profiler::get().aggregateStats(reset, format, sortBy, ascending);
      },
      nb::arg("reset") = false, nb::arg("format") = "table", nb::arg("sort_by") = "total",
      nb::arg("ascending") = false, "Aggregate statistics per operation name");
  m.def(
      "profiler_trace", [] { return Profiler::get().traceJSON(); },
      "The Chrome trace of the events recorded so far (the text dump writes)");
  m.def("profiler_filename", [] { return Profiler::get().filename(); });
  m.def("profiler_clear", [] { Profiler::get().clear(); },
        "Drops every recorded event and statistic");
}
