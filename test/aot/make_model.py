#!/usr/bin/env python3
"""Writes a model-zoo graph with seeded weights, as MXNet would save it.

    make_model.py NAME OUTDIR [--batch N] [--seed S]

writes OUTDIR/NAME-symbol.json (tools/zoo/mxnet_zoo.py), OUTDIR/NAME-0000.params
(MXNet V2 .params, "arg:"/"aux:" names; weights uniform in +-sqrt(3/fan_in),
biases +-0.5, BatchNorm moving variances in [0.5, 1.5), means in +-0.1) and
OUTDIR/data.npy (one input batch, uniform in [-1, 1)), and prints the --shape
argument ("data=1,1,28,28"). Used by test/mxc/compile*.test, test_aot.py and
scripts/run-main.sh.
"""
import argparse
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "zoo"))
sys.path.insert(0, os.path.join(ROOT, "test", "python"))
import mxnet_zoo  # noqa: E402
from mxc_testing import write_params  # noqa: E402


def make_model(name, outdir, batch=1, seed=20261129, arrays=None):
    """Returns (symbol path, params path, data path, --shape value); fills the
    dict `arrays` (if given) with the parameter arrays by bare name."""
    builder, shape, _ = mxnet_zoo.ALL_NETWORKS[name]
    g = mxnet_zoo.to_graph(builder())
    os.makedirs(outdir, exist_ok=True)
    sym = os.path.join(outdir, name + "-symbol.json")
    with open(sym, "w") as f:
        f.write(mxnet_zoo.dumps(g))
    data_shape = (batch,) + tuple(shape)
    args, aux, _ = mxnet_zoo.infer_shapes(g, data_shape)
    rng = np.random.default_rng(seed)
    all_arrays = {}
    for n, s in args:
        if n in ("data", "softmax_label"):
            continue
        a = np.sqrt(3.0 / np.prod(s[1:])) if len(s) > 1 else 0.5
        all_arrays["arg:" + n] = rng.uniform(-a, a, s).astype(np.float32)
    for n, s in aux:
        lo, hi = (0.5, 1.5) if n.endswith("var") else (-0.1, 0.1)
        all_arrays["aux:" + n] = rng.uniform(lo, hi, s).astype(np.float32)
    params = os.path.join(outdir, name + "-0000.params")
    write_params(params, all_arrays)
    if arrays is not None:
        arrays.update({k.split(":", 1)[1]: v for k, v in all_arrays.items()})
    data = os.path.join(outdir, "data.npy")
    np.save(data, rng.uniform(-1, 1, data_shape).astype(np.float32))
    return sym, params, data, "data=" + ",".join(map(str, data_shape))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("name", choices=sorted(mxnet_zoo.NETWORKS))
    p.add_argument("outdir")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--seed", type=int, default=20261129)
    a = p.parse_args()
    print(make_model(a.name, a.outdir, a.batch, a.seed)[3])


if __name__ == "__main__":
    main()
