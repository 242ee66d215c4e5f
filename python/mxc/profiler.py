"""mx.profiler: MXNet 1.x's profiler API over mxc's profiler of engine operations.

    mx.profiler.set_config(profile_all=True, filename='trace.json', aggregate_stats=True)
    mx.profiler.set_state('run')
    ...                                 # work that runs on the engine
    mx.nd.waitall()
    mx.profiler.set_state('stop')
    mx.profiler.dump()                  # trace.json: chrome://tracing or ui.perfetto.dev
    print(mx.profiler.dumps())          # count / total / min / max / avg per operation

While the profiler runs, every operation the process-wide dependency engine runs
becomes one event of a Chrome trace (its name, the worker thread, the device, the
start and the duration); see docs/runtime.md, "Profiler". The same trace comes
from any program on the runtime with MXC_PROFILE=<file.json> (or
MXNET_PROFILER_AUTOSTART=1, writing profile.json) in its environment, written at
exit.

What differs from MXNet 1.x:
- Events are engine operations only: `profile_memory` and `profile_api` are
  accepted and ignored (no memory or API events), and so are `aggregate_stats`
  (statistics are always kept), `continuous_dump` and `dump_period` (the trace is
  written by `dump()` and at exit). `profile_all`, `profile_symbolic` and
  `profile_imperative` all mean "every operation": the engine does not tell
  symbolic from imperative work; with all three false nothing is recorded.
- `profile_process` may only be 'worker' (there are no KVStore server processes).
- The profiling objects (Domain, Task, Frame, Event, Counter, Marker) are
  recorded in Python while the profiler runs (not paused): dump() adds them
  to the engine's trace (tasks, frames and events as duration events in
  their domain's category, counters as counter events, markers as instant
  events), dumps() adds a section per domain (tasks, frames, events; the
  json format also has MXNet's "Memory" key, empty: no memory events). Their
  clock starts when mx.profiler is imported, the engine's when the runtime
  starts: the two may be offset by the time between the two.
- `state()` (the current state, 'run' or 'stop') is an addition.
"""
import os

from . import _mxc
from .base import MXNetError

import json
import threading
import time

__all__ = ["set_config", "set_state", "state", "pause", "resume", "dump", "dumps",
           "profiler_set_config", "profiler_set_state", "dump_profile",
           "Domain", "Task", "Frame", "Event", "Counter", "Marker"]

_KEYS = ("filename", "profile_all", "profile_symbolic", "profile_imperative",
         "profile_memory", "profile_api", "aggregate_stats", "continuous_dump",
         "dump_period", "profile_process")


def _call(fn, *args):
    # The runtime reports bad keys and values, and files it cannot write, as
    # C++ exceptions (RuntimeError / ValueError here): raise them as MXNet does.
    try:
        return fn(*args)
    except MXNetError:
        raise
    except (RuntimeError, ValueError) as e:
        raise MXNetError(str(e)) from None


def _check_process(profile_process):
    if profile_process != "worker":
        raise MXNetError("profile_process=%r: mxc profiles the worker process only"
                         % (profile_process,))


def set_config(**kwargs):
    """Sets up the profiler (MXNet 1.x's `profiler.set_config`).

    Keyword arguments (any subset; the others keep their values):
      filename (str): where `dump()` writes the trace (default 'profile.json').
      profile_all, profile_symbolic, profile_imperative (bool): every engine
          operation is recorded when any of them is true (symbolic and imperative
          default to true, as in MXNet).
      profile_memory, profile_api, aggregate_stats, continuous_dump (bool),
      dump_period (float), profile_process ('worker'): accepted and ignored
          (there are no memory or API events; statistics are always kept; the
          trace is written by dump() and at exit).
    An unknown key or a malformed value raises MXNetError.
    """
    for key in kwargs:
        if key not in _KEYS:
            raise MXNetError("profiler.set_config: unknown argument %r (known: %s)"
                             % (key, ", ".join(_KEYS)))
    if "profile_process" in kwargs:
        _check_process(kwargs["profile_process"])
    for key, value in kwargs.items():
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif key == "filename":
            text = os.fspath(value)  # str or os.PathLike
        else:
            text = str(value)
        _call(_mxc.profiler_set_config, key, text)


def set_state(state="stop", profile_process="worker"):
    """Starts ('run') or stops ('stop') recording engine operations."""
    _check_process(profile_process)
    if state not in ("run", "stop"):
        raise MXNetError("profiler.set_state: state %r (want 'run' or 'stop')" % (state,))
    _call(_mxc.profiler_set_state, state)


def state():
    """The profiler's state: 'run' or 'stop' (an mxc addition)."""
    return _mxc.profiler_state()


def pause(profile_process="worker"):
    """Stops recording without changing the state (resume() starts again)."""
    _check_process(profile_process)
    _mxc.profiler_pause()


def resume(profile_process="worker"):
    """Records again after pause()."""
    _check_process(profile_process)
    _mxc.profiler_resume()


def dump(finished=True, profile_process="worker"):
    """Writes the Chrome trace of the events recorded so far to the configured
    filename (atomically: a temporary file beside it, then a rename).

    finished: the trace is complete; its events are dropped and the next dump
    starts a new trace. With finished=False they are kept (a later dump writes
    them again, with what came since).
    """
    _check_process(profile_process)
    _call(_mxc.profiler_dump, bool(finished))
    with _lock:
        events = list(_events)
        if finished:
            del _events[:]
    if events:
        _add_to_trace(_mxc.profiler_filename(), events)


def dumps(reset=False, format="table", sort_by="total", ascending=False):
    """Aggregate statistics per operation name (MXNet 1.9.1's `dumps`).

    format: 'table' (text, times in ms) or 'json'
        ({"Time": {"operator": {name: {"Count", "Total", "Min", "Max", "Avg"}}},
        "Unit": {"Time": "ms"}}).
    sort_by: 'total', 'avg', 'min', 'max' or 'count'; ascending: the order.
    reset: clear the statistics after reading them (the trace is kept).
    """
    if format not in ("table", "json"):
        return _call(_mxc.profiler_dumps, bool(reset), format, sort_by, bool(ascending))
    if sort_by not in _SORT_KEYS:
        raise MXNetError("dumps: sort_by %r (want one of %s)" % (sort_by, ", ".join(_SORT_KEYS)))
    text = _call(_mxc.profiler_dumps, bool(reset), format, sort_by, bool(ascending))
    with _lock:
        stats = {d: dict(v) for d, v in _stats.items()}
        if reset:
            _stats.clear()
    return _with_python_stats(text, format, stats, sort_by, ascending)


# MXNet 1.x's deprecated spellings.
def profiler_set_config(mode="symbolic", filename="profile.json"):
    """Deprecated in MXNet: set_config(profile_symbolic=..., profile_all=..., filename=...)."""
    if mode not in ("symbolic", "all"):
        raise MXNetError("profiler_set_config: mode %r (want 'symbolic' or 'all')" % (mode,))
    set_config(profile_symbolic=True, profile_all=(mode == "all"), filename=filename)


def profiler_set_state(state="stop"):
    """Deprecated in MXNet: set_state."""
    set_state(state)


def dump_profile():
    """Deprecated in MXNet: dump(finished=True)."""
    dump(True)


# -- profiling objects (MXNet's Domain, Task, Frame, Event, Counter, Marker) -----------
#
# Recorded here, in Python, while the profiler runs and is not paused: trace
# events (Chrome's format, added to the engine's trace by dump()) and, for
# the objects with a duration, statistics per domain (added by dumps()).

_lock = threading.Lock()
_events = []          # Chrome trace events of the objects
_stats = {}           # domain -> name -> [count, total ms, min ms, max ms]
_t0 = time.perf_counter()
_SORT_KEYS = {"total": 1, "avg": None, "min": 2, "max": 3, "count": 0}


def _recording():
    return _mxc.profiler_state() == "run" and not _mxc.profiler_paused()


def _now_us():
    return (time.perf_counter() - _t0) * 1e6


def _emit(event, stat=None):
    event.setdefault("pid", os.getpid())
    event.setdefault("tid", threading.get_ident() % (1 << 31))
    with _lock:
        _events.append(event)
        if stat is not None:
            domain, name, ms = stat
            row = _stats.setdefault(domain, {}).get(name)
            if row is None:
                _stats[domain][name] = [1, ms, ms, ms]
            else:
                row[0] += 1
                row[1] += ms
                row[2] = min(row[2], ms)
                row[3] = max(row[3], ms)


def _add_to_trace(path, events):
    """Appends `events` to the Chrome trace the engine wrote at `path`."""
    try:
        with open(path) as f:
            trace = json.load(f)
    except (OSError, ValueError):
        trace = {"traceEvents": []}
    trace.setdefault("traceEvents", []).extend(events)
    from .base import atomic_write_bytes
    atomic_write_bytes(path, json.dumps(trace, indent=1), mode="w")


def _with_python_stats(text, fmt, stats, sort_by, ascending):
    def order(rows):
        k = _SORT_KEYS[sort_by]
        key = (lambda kv: kv[1][1] / kv[1][0]) if k is None else (lambda kv: kv[1][k])
        return sorted(rows.items(), key=key, reverse=not ascending)
    if fmt == "json":
        d = json.loads(text)
        d.setdefault("Time", {})
        d.setdefault("Memory", {})
        for domain, rows in stats.items():
            d["Time"][domain] = {name: {"Count": r[0], "Total": r[1], "Min": r[2], "Max": r[3],
                                        "Avg": r[1] / r[0]} for name, r in order(rows)}
        return json.dumps(d, indent=2)
    parts = [text.rstrip("\n")]
    for domain, rows in stats.items():
        lines = [domain, "=" * 17,
                 "%-40s %11s %15s %15s %15s %15s" % ("Name", "Total Count", "Time (ms)",
                                                    "Min Time (ms)", "Max Time (ms)",
                                                    "Avg Time (ms)"),
                 "%-40s %11s %15s %15s %15s %15s" % ("----", "-----------", "---------",
                                                    "-------------", "-------------",
                                                    "-------------")]
        for name, r in order(rows):
            lines.append("%-40s %11d %15.4f %15.4f %15.4f %15.4f"
                         % (name, r[0], r[1], r[2], r[3], r[1] / r[0]))
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


# -- custom operators (MXNet's "Custom Operator" domain) -------------------------
# While a Python custom operator runs (mx.nd.Custom's forward / backward), the
# profiler records its Python time as '<op_type>::pure_python' ('_backward_'
# before the name for the backward) and every mx.nd operator it calls as
# '<op_type>::<operator>' (MXNet's names: '_plus_scalar', '_zeros'), in the
# 'Custom Operator' domain, as MXNet's profiler does.
_custom = threading.local()
CUSTOM_DOMAIN = "Custom Operator"


class _CustomOpScope:
    """with _CustomOpScope(label): its Python time as '<label>::pure_python'."""

    def __init__(self, label):
        self.label = label

    def __enter__(self):
        self._prev = getattr(_custom, "label", None)
        _custom.label = self.label
        self._t0 = _now_us() if _recording() else None
        if self._t0 is not None:
            _slow_path(True)
        return self

    def __exit__(self, *exc):
        _custom.label = self._prev
        if self._t0 is not None:
            _slow_path(False)
            _record_custom(self.label + "::pure_python", self._t0)
        return False


_slow_depth = [0, None]   # profiled custom operators running, the saved fast path


def _no_fast_path(op_name, args, kwargs):
    return None


def _slow_path(on):
    """While a profiled custom operator runs, mx.nd's C++ fast path (which
    no Python sees) is off, so that every call goes through ndarray._invoke
    and is recorded; other threads take the Python path meanwhile too."""
    from . import ndarray as _nd
    with _lock:
        if on:
            if _slow_depth[0] == 0:
                _slow_depth[1] = _nd._fast_dispatch
                _nd._fast_dispatch = _no_fast_path
            _slow_depth[0] += 1
        else:
            _slow_depth[0] -= 1
            if _slow_depth[0] == 0:
                _nd._fast_dispatch = _slow_depth[1]


def _record_custom(name, t0):
    if not _recording():
        return
    dur = _now_us() - t0
    _emit({"name": name, "cat": CUSTOM_DOMAIN, "ph": "X", "ts": t0, "dur": dur},
          (CUSTOM_DOMAIN, name, dur / 1000.0))


def _custom_op_call(op_name, fn, *args, **kwargs):
    """fn(*args, **kwargs), recorded as '<custom op>::<op_name>' when a
    custom operator is running and the profiler records."""
    label = getattr(_custom, "label", None)
    if label is None or not _recording():
        return fn(*args, **kwargs)
    t0 = _now_us()
    try:
        return fn(*args, **kwargs)
    finally:
        _record_custom("%s::%s" % (label, op_name), t0)


class Domain:
    """A category of profiling objects (chrome://tracing's 'cat')."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name

    def new_task(self, name):
        return Task(self, name)

    def new_frame(self, name):
        return Frame(self, name)

    def new_counter(self, name, value=None):
        return Counter(self, name, value)

    def new_marker(self, name):
        return Marker(self, name)


class _Duration:
    """start() ... stop(): one duration event (and its statistics) when the
    profiler runs at stop()."""

    _category = None

    def __init__(self, domain, name):
        self.name = name
        self.domain = domain
        self._start = None

    def _cat(self):
        return self.domain.name if self.domain is not None else self._category

    def start(self):
        self._start = _now_us()

    def stop(self):
        if self._start is None:
            return
        t0, self._start = self._start, None
        if not _recording():
            return
        dur = _now_us() - t0
        _emit({"name": self.name, "cat": self._cat(), "ph": "X", "ts": t0, "dur": dur},
              (self._cat(), self.name, dur / 1000.0))

    def __str__(self):
        return self.name


class Task(_Duration):
    """A task of a domain: start() and stop() bracket it."""


class Frame(_Duration):
    """A frame of a domain (e.g. one iteration): start() and stop()."""


class Event(_Duration):
    """A named event (no domain; MXNet's category 'event')."""

    _category = "event"

    def __init__(self, name):
        super().__init__(None, name)


class Counter:
    """A named value of a domain; each change is a counter event."""

    def __init__(self, domain, name, value=None):
        self.name = name
        self.domain = domain
        self._value = 0
        if value is not None:
            self.set_value(value)

    def _emit(self):
        if _recording():
            _emit({"name": self.name, "cat": self.domain.name, "ph": "C", "ts": _now_us(),
                   "args": {self.name: self._value}})

    def set_value(self, value):
        self._value = int(value)
        self._emit()

    def increment(self, delta=1):
        self._value += int(delta)
        self._emit()

    def decrement(self, delta=1):
        self._value -= int(delta)
        self._emit()

    def __iadd__(self, delta):
        self.increment(delta)
        return self

    def __isub__(self, delta):
        self.decrement(delta)
        return self

    def __str__(self):
        return "%s: %d" % (self.name, self._value)


_MARKER_SCOPES = {"global": "g", "process": "p", "thread": "t", "task": "t", "marker": "t"}


class Marker:
    """An instant event of a domain: mark(scope) ('global', 'process',
    'thread', 'task' or 'marker')."""

    def __init__(self, domain, name):
        self.name = name
        self.domain = domain

    def mark(self, scope="process"):
        if scope not in _MARKER_SCOPES:
            raise MXNetError("Marker.mark: scope %r (want one of %s)"
                             % (scope, ", ".join(_MARKER_SCOPES)))
        if _recording():
            _emit({"name": self.name, "cat": self.domain.name, "ph": "i", "ts": _now_us(),
                   "s": _MARKER_SCOPES[scope]})
