"""Shared by both flavours of the harness (mxc and MXNet 1.9.1 itself):

- `nose` / `nose.tools`: MXNet 1.9.1's common.py imports make_decorator and
  assert_raises from nose, which does not import on Python 3.11; this is
  the two names it uses, with nose's semantics.
- a per-test time limit: SIGALRM raises TimeoutError in the test after
  MXC_HARNESS_TEST_TIMEOUT seconds (default 60); a test stuck in native code
  past the limit + 15 s ends the process (os._exit) after its record is
  written, and run.py restarts the file without the tests already done.
- one JSON line per test to $MXC_HARNESS_LOG as each test ends (outcome,
  first line of the failure), so a killed run keeps what it reported.
"""
import json
import os
import signal
import sys
import threading
import time
import types

import pytest


def _make_decorator(func):
    def deco(newfunc):
        newfunc.__name__ = func.__name__
        newfunc.__doc__ = func.__doc__
        newfunc.__dict__.update(func.__dict__)
        if not hasattr(newfunc, "compat_co_firstlineno"):
            newfunc.compat_co_firstlineno = func.__code__.co_firstlineno
        return newfunc
    return deco


def _assert_raises(exc, func=None, *args, **kwargs):
    if func is None:
        return pytest.raises(exc)
    with pytest.raises(exc):
        func(*args, **kwargs)


def _raises(*exceptions):
    def deco(func):
        def wrapped(*args, **kwargs):
            with pytest.raises(exceptions):
                func(*args, **kwargs)
        wrapped.__name__ = func.__name__
        return wrapped
    return deco


def install_nose():
    if "nose" in sys.modules:
        return
    nose = types.ModuleType("nose")
    nose.__path__ = []
    tools = types.ModuleType("nose.tools")
    tools.make_decorator = _make_decorator
    tools.assert_raises = _assert_raises
    tools.raises = _raises
    tools.ok_ = lambda expr, msg=None: None if expr else pytest.fail(msg or "ok_ failed")
    tools.eq_ = lambda a, b, msg=None: None if a == b else pytest.fail(msg or "%r != %r" % (a, b))
    nose.tools = tools
    sys.modules["nose"] = nose
    sys.modules["nose.tools"] = tools


TIMEOUT = int(os.environ.get("MXC_HARNESS_TEST_TIMEOUT", "60"))
_LOG = os.environ.get("MXC_HARNESS_LOG")
_current = {"nodeid": None, "deadline": None}
_lock = threading.Lock()


def _write(rec):
    if not _LOG:
        return
    with _lock, open(_LOG, "a") as f:
        f.write(json.dumps(rec) + "\n")


def _watchdog():
    while True:
        time.sleep(1.0)
        d, node = _current["deadline"], _current["nodeid"]
        if d is not None and time.time() > d + 15:
            _write({"nodeid": node, "outcome": "failed", "when": "call",
                    "reason": "timeout: ran past %d s in native code (the harness's limit)" % TIMEOUT,
                    "duration": time.time() - d + TIMEOUT})
            os._exit(3)


def _first_line(report):
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None and crash.message:
        text = crash.message
    elif isinstance(report.longrepr, tuple):   # skips: (file, line, reason)
        text = str(report.longrepr[2])
    else:
        text = str(report.longrepr or "")
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    if report.when == "collect":   # ImportError while importing ...: the E line says why
        errors = [l[1:].strip() for l in lines if l.startswith("E ")]
        if errors:
            return errors[-1][:300]
    return (lines[0] if lines else "")[:300]


class HarnessPlugin:
    def __init__(self):
        threading.Thread(target=_watchdog, daemon=True).start()

    def pytest_runtest_logstart(self, nodeid, location):
        _current["nodeid"] = nodeid
        _current["deadline"] = time.time() + TIMEOUT
        _write({"nodeid": nodeid, "outcome": "started"})

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        def expired(signum, frame):
            raise TimeoutError("test ran past %d s (the harness's limit)" % TIMEOUT)
        old = signal.signal(signal.SIGALRM, expired)
        signal.alarm(TIMEOUT)
        try:
            yield
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            outcome = report.outcome
            if report.when != "call" and outcome == "failed":
                outcome = "error"
            _write({"nodeid": report.nodeid, "outcome": outcome, "when": report.when,
                    "reason": "" if outcome == "passed" else _first_line(report),
                    "duration": round(report.duration, 3)})

    def pytest_collectreport(self, report):
        if report.failed:
            _write({"nodeid": report.nodeid or "(collection)", "outcome": "error",
                    "when": "collect", "reason": _first_line(report), "duration": 0})

    def pytest_runtest_logfinish(self, nodeid, location):
        _current["deadline"] = None
