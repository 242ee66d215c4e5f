"""Runs the onnx package's backend node tests (onnx/backend/test/case/node,
the generators of onnx/backend/test/data/node shipped in the wheel) through
mx.onnx.import_model's translation and mxc, for every test whose operators
import_model maps.

    PYTHONPATH=build/python_packages .venv/bin/python test/python/onnx/node_tests.py [-v] [PATTERN]

prints one line per test (passed / failed: reason) and the pass rate. The
suite's test_node_tests.py runs the same function.

A test whose outputs all come out as import-time constants (its inputs
are all in constant positions: Range, ConstantOfShape, Shape) is "folded"
and not counted. A test "passes" when every output equals the test's expected output within
its rtol/atol (onnx's defaults: rtol 1e-3, atol 1e-7; float outputs also get
atol 1e-5 as ONNX Runtime's own runner allows). A test whose model the
importer rejects with MXNetError (an attribute or dtype it does not map)
counts as failed with that reason; any other exception is a crash, which
the suite's test fails on.
"""
import os
import re
import sys
import time
import warnings

import numpy as np


def _cases():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from onnx.backend.test.case import node
        return node.collect_testcases(None)


def _opset(model):
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx"):
            return imp.version
    return None


def selected_cases(pattern=None):
    """(case, opset) for every node test whose operators are all mapped."""
    import mxc as mx
    mapped = set(mx.onnx.get_import_support())
    out = []
    for case in _cases():
        if pattern and not re.search(pattern, case.name):
            continue
        ops = {n.op_type for n in case.model.graph.node}
        if not ops or not ops <= mapped:
            continue
        if any(n.domain not in ("", "ai.onnx") for n in case.model.graph.node):
            continue
        out.append((case, _opset(case.model)))
    return out


def _array(v):
    """A data set's value as numpy (some tests give TensorProtos)."""
    import onnx
    if isinstance(v, onnx.TensorProto):
        try:
            return onnx.numpy_helper.to_array(v)
        except Exception:
            return v
    return v


def _dtype_ok(a):
    return a.dtype.kind in "fiub" and a.dtype.itemsize <= 8


#: (op type, input index) of inputs import_model reads as constants
#: (shapes, axes, pads, bounds): mxc compiles for fixed shapes, so the
#: runner makes the test's values of these graph inputs initializers.
_CONSTANT_INPUTS = {"Reshape": {1}, "Unsqueeze": {1}, "Squeeze": {1}, "Slice": {1, 2, 3, 4},
                    "Pad": {1, 2, 3}, "ReduceSum": {1}, "ReduceMean": {1}, "ReduceMax": {1},
                    "ReduceMin": {1}, "ReduceSumSquare": {1}, "ReduceL1": {1}, "ReduceL2": {1},
                    "ReduceLogSum": {1}, "ReduceLogSumExp": {1}, "Expand": {1},
                    "ConstantOfShape": {0}, "Range": {0, 1, 2},
                    "Dropout": {1, 2}, "Split": {1}, "Tile": {1}, "Resize": {1, 2, 3},
                    "Upsample": {1}, "TopK": {1}}


def _freeze(case):
    """The test's model with its constant-position inputs made initializers,
    and the names of the inputs left."""
    import onnx
    model = onnx.ModelProto()
    model.CopyFrom(case.model)
    graph = model.graph
    inits = {i.name for i in graph.initializer}
    in_names = [i.name for i in graph.input if i.name not in inits]
    frozen = set()
    for n in graph.node:
        for k in _CONSTANT_INPUTS.get(n.op_type, ()):
            if k < len(n.input) and n.input[k] in in_names:
                frozen.add(n.input[k])
    if not frozen:
        return model, in_names, {}
    values = {}
    for ds in case.data_sets:
        values = dict(zip(in_names, ds[0]))
        break
    for name in frozen:
        graph.initializer.append(onnx.numpy_helper.from_array(np.asarray(values[name]), name))
    return model, in_names, {n: i for i, n in enumerate(in_names) if n in frozen}


def run_case(case):
    """('passed' | 'failed' | 'crashed', reason)."""
    import mxc as mx
    from mxc.onnx._import import model_from_proto
    model, in_names, frozen = _freeze(case)
    out_names = [o.name for o in model.graph.output]
    try:
        sym, arg_params, aux_params = model_from_proto(model)
    except mx.MXNetError as e:
        return "failed", "import: " + str(e).splitlines()[0]
    except Exception as e:  # a bug of the importer
        return "crashed", "import: %s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    live = set(in_names) - set(frozen)
    if not live & (set(sym.list_arguments()) | set(sym.list_auxiliary_states())):
        # every output was computed at import time (constant inputs): mxc ran
        # nothing, so the test says nothing about it
        return "folded", "outputs are import-time constants"
    for ds in case.data_sets:
        inputs, expected = ds
        inputs, expected = [_array(v) for v in inputs], [_array(v) for v in expected]
        if any(not isinstance(v, (np.ndarray, np.generic)) for v in list(inputs) + list(expected)):
            return "failed", "non-tensor inputs or outputs (sequences / optionals)"
        inputs = [np.asarray(v) for v in inputs]
        expected = [np.asarray(v) for v in expected]
        if not all(_dtype_ok(np.asarray(v)) for v in list(inputs) + list(expected)):
            return "failed", "dtype not in mxc (%s)" % ", ".join(
                sorted({np.asarray(v).dtype.name for v in list(inputs) + list(expected)}))
        feed = dict(zip(in_names, inputs))
        try:
            arg_names = sym.list_arguments()
            aux_names = sym.list_auxiliary_states()
            args = {}
            for n in arg_names:
                if n in feed:
                    args[n] = mx.nd.array(feed[n], dtype=feed[n].dtype)
                elif n in arg_params:
                    args[n] = arg_params[n]
                else:
                    return "crashed", "argument %s has no value" % n
            aux = {}
            for n in aux_names:
                aux[n] = mx.nd.array(feed[n], dtype=feed[n].dtype) if n in feed else aux_params[n]
            exe = sym.bind(mx.cpu(), args, aux_states=aux, grad_req="null")
            outs = [o.asnumpy() for o in exe.forward(is_train=False)]
        except mx.MXNetError as e:
            return "failed", "run: " + str(e).splitlines()[0]
        except Exception as e:
            return "crashed", "run: %s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
        if len(outs) != len(expected):
            return "failed", "%d outputs, expected %d" % (len(outs), len(expected))
        for name, got, want in zip(out_names, outs, expected):
            want = np.asarray(want)
            if want.shape == () and got.shape == (1,):
                got = got.reshape(())   # a scalar is (1,) in mxc, as in MXNet 1.x
            if got.shape != want.shape:
                return "failed", "output %s: shape %s, expected %s" % (name, got.shape, want.shape)
            if want.dtype.kind == "b" or want.dtype.kind in "iu":
                if not np.array_equal(got.astype(want.dtype), want):
                    return "failed", "output %s: values differ" % name
                if got.dtype != want.dtype:
                    return "failed", "output %s: dtype %s, expected %s" % (name, got.dtype, want.dtype)
                continue
            rtol = getattr(case, "rtol", 1e-3) or 1e-3
            atol = max(getattr(case, "atol", 1e-7) or 1e-7, 1e-5)
            if not np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol,
                               atol=atol, equal_nan=True):
                err = np.nanmax(np.abs(got.astype(np.float64) - want.astype(np.float64)))
                return "failed", "output %s: max abs error %.3g" % (name, err)
    return "passed", ""


def run_all(pattern=None, verbose=False, out=sys.stdout):
    """{name: (status, reason, opset)} for the selected node tests."""
    results = {}
    for case, opset in selected_cases(pattern):
        t = time.time()
        status, reason = run_case(case)
        results[case.name] = (status, reason, opset)
        if verbose:
            print("%-60s %-7s %5.2fs %s" % (case.name, status, time.time() - t, reason), file=out)
            out.flush()
    return results


def summary(results):
    folded = sum(1 for s, _, _ in results.values() if s == "folded")
    results = {k: v for k, v in results.items() if v[0] != "folded"}
    n = len(results)
    passed = sum(1 for s, _, _ in results.values() if s == "passed")
    in_range = {k: v for k, v in results.items() if v[2] is not None and 11 <= v[2] <= 21}
    passed_in_range = sum(1 for s, _, _ in in_range.values() if s == "passed")
    return ("%d of %d node tests of mapped operators passed (%.1f%%); opsets 11-21: %d of %d; "
            "crashed: %d; not counted (outputs constant at import): %d"
            % (passed, n, 100.0 * passed / max(n, 1), passed_in_range, len(in_range),
               sum(1 for s, _, _ in results.values() if s == "crashed"), folded))


def main(argv):
    verbose = "-v" in argv
    args = [a for a in argv if a != "-v"]
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    packages = os.path.join(os.environ.get("MXC_BUILD_DIR") or os.path.join(root, "build"),
                            "python_packages")
    if os.path.isdir(os.path.join(packages, "mxc")) and packages not in sys.path:
        sys.path.insert(0, packages)
    results = run_all(args[0] if args else None, verbose=True if verbose else False)
    if not verbose:
        for name, (status, reason, opset) in sorted(results.items()):
            print("%-60s %-7s opset %s %s" % (name, status, opset, reason))
    print(summary(results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
