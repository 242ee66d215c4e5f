"""Tiered compilation in the Python module (JITOptions::tiered, docs/jit.md):
a small graph's first code is LLVM -O0, recompiled at -O3 after enough runs
or pushes, with the same results; a large graph is compiled at -O3 at once."""
import json

import numpy as np

import mxc as mx
from mxc import _mxc


def _graph(n):
    """exp(a) * b + sum(a) over rows: an elementwise chain and a reduction."""
    a, b = mx.sym.Variable("a"), mx.sym.Variable("b")
    out = mx.sym.broadcast_add(mx.sym.exp(a) * b, mx.sym.sum(a, axis=1, keepdims=True))
    return out.tojson(), {"a": [n, 64], "b": [n, 64]}, {"a": "float32", "b": "float32"}


def _inputs(n, seed=0):
    r = np.random.default_rng(seed)
    return [r.uniform(-1, 1, (n, 64)).astype(np.float32) for _ in range(2)]


def _run(compiled, ins):
    out = np.empty((ins[0].shape[0], 64), np.float32)
    compiled.run(ins, [out])
    return out


def _want(a, b):
    return np.exp(a) * b + a.sum(axis=1, keepdims=True)


def test_small_graph_starts_fast_and_tier_up_keeps_results():
    js, shapes, dtypes = _graph(8)
    compiled = _mxc.compile(js, shapes, dtypes, disk_cache=False)
    assert compiled.outcome == "compiled"
    assert compiled.fast_tier
    ins = _inputs(8)
    fast = _run(compiled, ins)
    np.testing.assert_allclose(fast, _want(*ins), rtol=1e-5, atol=1e-5)
    assert compiled.tier_up() is True
    assert not compiled.fast_tier
    assert compiled.tier_up() is False          # once
    full = _run(compiled, ins)
    np.testing.assert_allclose(full, fast, rtol=1e-6, atol=1e-6)
    # Another compile of the same graph is the memory cache's, now -O3.
    again = _mxc.compile(js, shapes, dtypes, disk_cache=False)
    assert again.outcome == "memory" and not again.fast_tier


def test_runs_tier_up_by_themselves():
    js, shapes, dtypes = _graph(1024)         # 2 x 256 KiB in, 256 KiB out
    compiled = _mxc.compile(js, shapes, dtypes, disk_cache=False)
    assert compiled.fast_tier
    ins = _inputs(1024, seed=1)
    first = _run(compiled, ins)
    runs = 1
    while compiled.fast_tier and runs < 20000:
        out = _run(compiled, ins)
        runs += 1
    assert not compiled.fast_tier, "still -O0 after %d runs" % runs
    np.testing.assert_allclose(out, first, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(_run(compiled, ins), _want(*ins), rtol=1e-5, atol=1e-5)


def test_large_graph_is_compiled_at_O3_at_once():
    js, shapes, dtypes = _graph(4096)         # 3 MiB of inputs and outputs
    compiled = _mxc.compile(js, shapes, dtypes, disk_cache=False)
    assert not compiled.fast_tier
    assert compiled.tier_up() is False


def test_pushes_tier_up_and_agree():
    # mx.nd pushes its one-operator graphs on the engine: the 64th push of
    # one signature recompiles it; every result is the same before and after.
    x = mx.nd.array(np.linspace(-2, 2, 3 * 37, dtype=np.float32).reshape(3, 37))
    want = np.tanh(x.asnumpy()) * 3
    key = None
    for i in range(80):
        y = mx.nd.tanh(x) * 3
        np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-6, atol=1e-6)
        if key is None:
            key = next(k for k in mx.ndarray._cache
                       if k[0] == "tanh" and k[3] == (((3, 37), "float32"),))
    assert not mx.ndarray._cache[key][0].fast_tier


def test_only_the_tiered_up_code_goes_to_the_disk_cache(tmp_path, monkeypatch):
    import os
    import subprocess
    import sys
    monkeypatch.setenv("MXC_CACHE_DIR", str(tmp_path))
    js, shapes, dtypes = _graph(24)
    compiled = _mxc.compile(js, shapes, dtypes)
    assert compiled.outcome == "compiled" and compiled.fast_tier
    assert [f for f in os.listdir(tmp_path) if f.endswith(".o")] == []   # not the -O0 code
    assert compiled.tier_up()
    assert len([f for f in os.listdir(tmp_path) if f.endswith(".o")]) == 1
    # A new process loads the -O3 object from the disk cache: no fast tier.
    code = ("import json, sys; from mxc import _mxc; js, shapes, dtypes = json.loads(sys.argv[1]); "
            "c = _mxc.compile(js, shapes, dtypes); print(c.outcome, c.fast_tier)")
    p = subprocess.run([sys.executable, "-c", code, json.dumps([js, shapes, dtypes])],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(mx.__file__))))
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.split() == ["disk", "False"]
