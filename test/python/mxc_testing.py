"""Run MXNet graphs through `mxc run` from pytest.

    from mxc_testing import run_graph, one_op_graph
    g = one_op_graph("Activation", {"act_type": "relu"}, ["data"])
    out = run_graph(g, {"data": x})                    # {"activation_output": y}

run_graph writes the symbol JSON, each input as .npy and the parameters as
an MXNet .params file (docs/formats.md section 2, V2 records) into a
temporary directory, runs ``mxc run ... --output-dir`` and reads the outputs
back. The binary is $MXC_BIN, else $MXC_BUILD_DIR/bin/mxc, else build/bin/mxc
under the repository root;
a missing binary is an error, never a skip. The compilation cache is
$MXC_CACHE_DIR (conftest.py points it at a per-session directory).
"""
import json
import os
import struct
import subprocess
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# MXNet's dtype flags (mshadow) for .params records.
_PARAMS_FLAGS = {
    np.dtype("float32"): 0, np.dtype("float64"): 1, np.dtype("float16"): 2,
    np.dtype("uint8"): 3, np.dtype("int32"): 4, np.dtype("int8"): 5,
    np.dtype("int64"): 6, np.dtype("bool"): 7,
}


class MxcError(RuntimeError):
    """`mxc run` failed; the message holds its stderr."""


def mxc_binary():
    build = os.environ.get("MXC_BUILD_DIR") or os.path.join(ROOT, "build")
    path = os.environ.get("MXC_BIN") or os.path.join(build, "bin", "mxc")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise FileNotFoundError(
            "mxc binary not found at %s: build it (scripts/build.sh mxc) or set MXC_BIN" % path)
    return path


def write_params(path, arrays):
    """Writes {name: array} as an MXNet .params file (V2 records, names as given)."""
    out = [struct.pack("<QQQ", 0x112, 0, len(arrays))]
    for name, a in arrays.items():
        a = np.ascontiguousarray(a)
        if a.dtype not in _PARAMS_FLAGS:
            raise TypeError("%s: dtype %s cannot be stored in .params" % (name, a.dtype))
        if a.ndim == 0:
            raise ValueError("%s: 0-d arrays are 'none' arrays in V2 records" % name)
        out.append(struct.pack("<Iii", 0xF993FAC9, 0, a.ndim))
        out.append(struct.pack("<%dq" % a.ndim, *a.shape))
        out.append(struct.pack("<iii", 1, 0, _PARAMS_FLAGS[a.dtype]))
        out.append(a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes())
    out.append(struct.pack("<Q", len(arrays)))
    for name in arrays:
        b = name.encode()
        out.append(struct.pack("<Q", len(b)) + b)
    with open(path, "wb") as f:
        f.write(b"".join(out))


def _mxnet_attr(v):
    """MXNet's attribute spelling of a Python value: (3, 3), True, 0.5."""
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, (tuple, list)):
        return "(" + ", ".join(str(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    return str(v)


def one_op_graph(op, attrs, input_names, name=None, num_outputs=1):
    """A symbol JSON dict with one variable per input name feeding one `op`
    node, whose first `num_outputs` outputs are the heads. `attrs` values may
    be Python values (tuples, bools, numbers) or MXNet strings."""
    name = name or op.lower().lstrip("_")
    nodes = [{"op": "null", "name": n, "inputs": []} for n in input_names]
    node = {"op": op, "name": name, "inputs": [[i, 0, 0] for i in range(len(input_names))]}
    if attrs:
        node["attrs"] = {k: _mxnet_attr(v) for k, v in sorted(attrs.items())}
    nodes.append(node)
    return {
        "nodes": nodes,
        "arg_nodes": list(range(len(input_names))),
        "heads": [[len(input_names), i, 0] for i in range(num_outputs)],
        "attrs": {"mxnet_version": ["int", 10901]},
    }


def run_graph(symbol_json, inputs, params=None, extra_args=(), timeout=900):
    """Runs the graph with `mxc run`; returns {list_outputs name: array}.

    `inputs` are passed with --input (their shapes with --shape, non-float32
    dtypes with --dtype); `params` (parameters and auxiliary states) go into a
    .params file, which also fixes their shapes and dtypes."""
    text = symbol_json if isinstance(symbol_json, str) else json.dumps(symbol_json)
    with tempfile.TemporaryDirectory(prefix="mxc-test-") as tmp:
        sym = os.path.join(tmp, "model-symbol.json")
        with open(sym, "w") as f:
            f.write(text)
        cmd = [mxc_binary(), "run", sym, "--output-dir", os.path.join(tmp, "out")]
        for i, (name, value) in enumerate(inputs.items()):
            value = np.ascontiguousarray(value)
            path = os.path.join(tmp, "input%d.npy" % i)
            np.save(path, value)
            if value.ndim:
                cmd += ["--shape", "%s=%s" % (name, ",".join(str(d) for d in value.shape))]
            if value.dtype != np.float32:
                cmd += ["--dtype", "%s=%s" % (name, value.dtype.name)]
            cmd += ["--input", "%s=%s" % (name, path)]
        if params:
            path = os.path.join(tmp, "model.params")
            write_params(path, params)
            cmd += ["--params", path]
        cmd += list(extra_args)
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if p.returncode != 0:
            raise MxcError("mxc run failed (exit %d): %s" % (p.returncode, p.stderr.strip()))
        outputs = {}
        for line in p.stdout.splitlines():
            # "<name>: shape (2, 10) float32 sum ... abs_sum ..."
            name, sep, rest = line.rpartition(": shape ")
            if not sep:
                continue
            fname = name.replace("/", "_").replace("\\", "_")
            outputs[name] = np.load(os.path.join(tmp, "out", fname + ".npy"))
        return outputs


def assert_close(actual, expected, rtol=1e-4, atol=1e-6, name="output"):
    """Norm-relative error |a - e| / |e| <= rtol, and elementwise
    |a - e| <= atol + rtol * |e| (numpy.allclose), same shape and dtype."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, "%s: shape %s, expected %s" % (
        name, actual.shape, expected.shape)
    assert actual.dtype == expected.dtype, "%s: dtype %s, expected %s" % (
        name, actual.dtype, expected.dtype)
    a = actual.astype(np.float64)
    e = expected.astype(np.float64)
    assert np.all(np.isfinite(a) == np.isfinite(e)), "%s: non-finite values differ" % name
    finite = np.isfinite(e)
    a, e = a[finite], e[finite]
    err = np.linalg.norm(a - e)
    ref = np.linalg.norm(e)
    assert err <= rtol * ref + atol * np.sqrt(max(e.size, 1)), (
        "%s: norm-relative error %.3g > rtol %g" % (name, err / max(ref, 1e-300), rtol))
    bad = np.abs(a - e) > atol + rtol * np.abs(e)
    if bad.any():
        i = int(np.argmax(np.abs(a - e) - rtol * np.abs(e)))
        raise AssertionError("%s: %d of %d elements differ beyond atol %g + rtol %g; worst: %r vs %r"
                             % (name, int(bad.sum()), bad.size, atol, rtol, a[i], e[i]))
