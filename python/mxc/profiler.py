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
- The profiling objects (Domain, Task, Frame, Event, Counter, Marker) and
  `scope` are not implemented.
- `state()` (the current state, 'run' or 'stop') is an addition.
"""
import os

from . import _mxc
from .base import MXNetError

__all__ = ["set_config", "set_state", "state", "pause", "resume", "dump", "dumps",
           "profiler_set_config", "profiler_set_state", "dump_profile"]

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


def dumps(reset=False, format="table", sort_by="total", ascending=False):
    """Aggregate statistics per operation name (MXNet 1.9.1's `dumps`).

    format: 'table' (text, times in ms) or 'json'
        ({"Time": {"operator": {name: {"Count", "Total", "Min", "Max", "Avg"}}},
        "Unit": {"Time": "ms"}}).
    sort_by: 'total', 'avg', 'min', 'max' or 'count'; ascending: the order.
    reset: clear the statistics after reading them (the trace is kept).
    """
    return _call(_mxc.profiler_dumps, bool(reset), format, sort_by, bool(ascending))


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
