#!/usr/bin/env python3
"""Write real MXNet `.params` fixtures with MXNet 1.9.1 itself.

Run with a Python that has mxnet==1.9.1 (see docs/model-zoo.md):

    .venv-mxnet/bin/python tools/zoo/make_mxnet_params.py test/Inputs/mxnet-params

Writes into the directory (see its README.md for the contents):
  mlp-symbol.json, mlp-0000.params      mx.model.save_checkpoint, float32, seeded Xavier init
                                        (biases: seeded uniform)
  lenet-symbol.json, lenet-0000.params  mx.model.save_checkpoint, same init cast to float16
  tinybn-symbol.json, tinybn-0000.params  conv+BatchNorm net: arg: and aux: entries
  dtypes.params     mx.nd.save of a dict: one array per dtype, bfloat16 included
  list.params       mx.nd.save of a list (no names)
  sparse.params     mx.nd.save of a csr and a row_sparse array
  npx.params        mx.npx.save (numpy semantics): a 0-d and a zero-size array
  expected.json     what each file holds: names, dtypes, shapes, values (or checksums)
The symbol JSON files come from tools/zoo/mxnet_zoo.py (loaded by MXNet and
written back by save_checkpoint; the script checks they are unchanged).
"""

import json
import os
import sys

import numpy as np
import mxnet as mx
from mxnet.contrib.amp.amp import bfloat16

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mxnet_zoo  # noqa: E402

SEED = 20261101


def tinybn_symbol():
    b = mxnet_zoo.Builder()
    x = b.Variable("data")
    x = b.Convolution(data=x, kernel=(3, 3), pad=(1, 1), num_filter=4, name="conv")
    x = b.BatchNorm(data=x, fix_gamma=False, eps=2e-5, momentum=0.9, name="bn")
    x = b.Activation(data=x, act_type="relu", name="relu")
    x = b.Pooling(data=x, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool")
    x = b.Flatten(data=x, name="flatten")
    x = b.FullyConnected(data=x, num_hidden=3, name="fc")
    return mxnet_zoo.dumps(mxnet_zoo.to_graph(b.SoftmaxOutput(data=x, name="softmax")))


def init_params(sym_json, data_shape):
    sym = mx.sym.load_json(sym_json)
    assert sym.tojson() == sym_json, "MXNet rewrote our JSON"
    mod = mx.mod.Module(sym, data_names=["data"], label_names=["softmax_label"], context=mx.cpu())
    mod.bind(data_shapes=[("data", data_shape)], label_shapes=[("softmax_label", data_shape[:1])],
             for_training=False)
    mod.init_params(initializer=mx.init.Xavier(rnd_type="gaussian", factor_type="in", magnitude=2))
    arg, aux = mod.get_params()
    # Xavier leaves biases at 0 and gammas at 1: give them seeded values so a
    # reader that mixes arrays up is caught.
    for k in sorted(arg):
        if k.endswith("_bias") or k.endswith("_beta"):
            arg[k] = mx.nd.array(np.random.uniform(-0.1, 0.1, arg[k].shape).astype(np.float32))
        elif k.endswith("_gamma"):
            arg[k] = mx.nd.array(np.random.uniform(0.5, 1.5, arg[k].shape).astype(np.float32))
    return sym, arg, aux


def describe(arr):
    """JSON-able summary of one NDArray: dtype, shape, storage, values."""
    stype = getattr(arr, "stype", "default")
    if stype != "default":
        dense = arr.tostype("default")
        d = describe(dense)
        d["stype"] = stype
        if stype == "csr":
            d["indptr"] = arr.indptr.asnumpy().tolist()
            d["indices"] = arr.indices.asnumpy().tolist()
            d["data"] = arr.data.asnumpy().tolist()
        else:
            d["indices"] = arr.indices.asnumpy().tolist()
        return d
    if arr.dtype == bfloat16:
        name = "bfloat16"
        vals = mx.nd.amp_cast(arr, dtype="float32").asnumpy()
        raw = arr.asnumpy().view(np.uint16)
    else:
        name = np.dtype(arr.dtype).name
        vals = arr.asnumpy()
        raw = None
    d = {"dtype": name, "shape": list(arr.shape), "stype": "default"}
    flat = vals.reshape(-1)
    if flat.size <= 64:
        d["values"] = flat.tolist()
        if raw is not None:
            d["bits"] = [int(v) for v in raw.reshape(-1)]
    else:
        d["first"] = flat[:8].astype(np.float64).tolist()
        d["sum"] = float(flat.astype(np.float64).sum())
        d["sum_abs"] = float(np.abs(flat.astype(np.float64)).sum())
    return d


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "test", "Inputs", "mxnet-params")
    os.makedirs(out, exist_ok=True)
    mx.random.seed(SEED)
    np.random.seed(SEED)
    expected = {"mxnet": mx.__version__, "numpy": np.__version__,
                "python": sys.version.split()[0], "seed": SEED, "files": {}}

    def record(fname):
        loaded = mx.nd.load(os.path.join(out, fname))
        if isinstance(loaded, dict):
            expected["files"][fname] = {"kind": "dict",
                                        "arrays": {k: describe(v) for k, v in sorted(loaded.items())},
                                        "order": list(loaded.keys())}
        else:
            expected["files"][fname] = {"kind": "list", "arrays": [describe(v) for v in loaded]}

    # Checkpoints of zoo networks (and a small BatchNorm net for aux: entries).
    nets = [("mlp", mxnet_zoo.symbol_json("mlp"), (1, 1, 28, 28), None),
            ("lenet", mxnet_zoo.symbol_json("lenet"), (1, 1, 28, 28), "float16"),
            ("tinybn", tinybn_symbol(), (1, 1, 6, 6), None)]
    for name, text, shape, cast in nets:
        sym, arg, aux = init_params(text, shape)
        if name == "tinybn":  # non-trivial running statistics
            aux = {"bn_moving_mean": mx.nd.array(np.random.uniform(-1, 1, 4).astype(np.float32)),
                   "bn_moving_var": mx.nd.array(np.random.uniform(0.5, 2, 4).astype(np.float32))}
        if cast:
            arg = {k: v.astype(cast) for k, v in arg.items()}
            aux = {k: v.astype(cast) for k, v in aux.items()}
        prefix = os.path.join(out, name)
        mx.model.save_checkpoint(prefix, 0, sym, arg, aux)
        with open(prefix + "-symbol.json") as f:
            assert f.read() == text, "%s: saved symbol differs from mxnet_zoo's" % name
        record(name + "-0000.params")

    # One array of each dtype MXNet 1.9.1 can save.
    base = np.array([[0, 1, 2], [-3, 4, 127]], dtype=np.float64)
    arrays = {
        "f32": mx.nd.array(np.array([[0.5, -1.25, 3.0], [1e-3, -7.0, 65504.0]]), dtype="float32"),
        "f64": mx.nd.array(np.array([np.pi, -np.e, 1e-300, 1e300]), dtype="float64"),
        "f16": mx.nd.array(np.array([[1.0, -2.0], [0.333251953125, 65504.0]]), dtype="float16"),
        "u8": mx.nd.array(np.array([0, 1, 128, 255]), dtype="uint8"),
        "i8": mx.nd.array(base, dtype="int8"),
        "i32": mx.nd.array(np.array([-2147483648, -1, 0, 2147483647]), dtype="int32"),
        "i64": mx.nd.array(np.array([[-(2 ** 40), 7], [2 ** 62, -1]]), dtype="int64"),
        "bool": mx.nd.array(np.array([True, False, False, True, True]), dtype="bool"),
        "bf16": mx.nd.amp_cast(mx.nd.array(np.array([[0.0, 1.0, -2.5], [3.140625, 1000.0, -0.0078125]]),
                                           dtype="float32"), dtype=bfloat16),
        "f32_4d": mx.nd.array(np.arange(2 * 3 * 2 * 2).reshape(2, 3, 2, 2) * 0.5, dtype="float32"),
    }
    if arrays["i64"].asnumpy()[1, 0] != 2 ** 62:  # mx.nd.array goes through float32 on some paths
        arrays["i64"] = mx.nd.array(np.array([[-(2 ** 40), 7], [2 ** 62, -1]], dtype=np.int64), dtype="int64")
    mx.nd.save(os.path.join(out, "dtypes.params"), arrays)
    record("dtypes.params")

    mx.nd.save(os.path.join(out, "list.params"),
               [mx.nd.array([1.5, 2.5, 3.5], dtype="float32"), mx.nd.array([[7, 8], [9, 10]], dtype="int32")])
    record("list.params")

    csr = mx.nd.sparse.csr_matrix((np.array([1.0, 2.0, 3.0], dtype=np.float32), np.array([0, 2, 1]),
                                   np.array([0, 2, 2, 3])), shape=(3, 4))
    rsp = mx.nd.sparse.row_sparse_array((np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32),
                                         np.array([1, 3])), shape=(5, 2))
    mx.nd.save(os.path.join(out, "sparse.params"), {"csr": csr, "rsp": rsp})
    record("sparse.params")

    mx.npx.set_np()
    try:
        mx.npx.save(os.path.join(out, "npx.params"),
                    {"scalar": mx.np.array(3.5, dtype="float32"), "empty": mx.np.zeros((0, 3), dtype="float32"),
                     "m": mx.np.array([[1.0, 2.0], [3.0, 4.0]], dtype="float32")})
        loaded = mx.npx.load(os.path.join(out, "npx.params"))
        expected["files"]["npx.params"] = {
            "kind": "dict", "order": list(loaded.keys()), "semantics": "numpy (mx.npx.save)",
            "arrays": {k: {"dtype": np.dtype(v.dtype).name, "shape": list(v.shape), "stype": "default",
                           "values": v.asnumpy().reshape(-1).tolist()} for k, v in sorted(loaded.items())}}
    finally:
        mx.npx.reset_np()

    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out))
    print("wrote %s (%d bytes)" % (out, total))


if __name__ == "__main__":
    main()
