"""Inputs of scripts/gpu-check.sh's training graphs, made where they are used.

A training graph's inputs (data, labels, weights) are drawn from a spec, not
carried: ResNet-18's weights alone (47 MB) do not fit the device tool's
transfer beside the rest. The draw needs only numpy and is integer
arithmetic (a SplitMix64 hash of each element's index), so the device machine
makes the same arrays, bit for bit, as test/gpu/models.py makes here for the
CPU reference, whatever numpy either has.

    python3 test/gpu/inputs.py SPEC.json OUTDIR    writes OUTDIR/<input>.npy

SPEC.json: {"<input>": {"shape": [...], "kind": KIND, "seed": S}, ...} with
KIND one of
  "uniform"        U[-1, 1)
  "weight"         U[-1, 1) * sqrt(3 / fan_in) (fan_in: the product of the
                   dimensions after the first), as an initializer would
  "small"          U[-1, 1) * 0.1                         (biases, beta)
  "gamma"          1 + U[-1, 1) * 0.1
  "label:N"        class labels 0 .. N-1 as float32 (MXNet's labels)
  "range:LO:HI"    U[LO, HI) (an op's input domain)
  "int:LO:HI"      whole numbers LO .. HI-1 as float32 (comparisons: ties)
  "nonzero:LO:HI"  U[LO, HI) with |x| < 0.2 moved to 0.5 (divisors)
and an optional "dtype" (default "float32"): the float32 draw widened, as
"float64" (a float64 graph's inputs).
"""
import json
import os
import sys

import numpy as np

_M64 = (1 << 64) - 1


def uniform(n, seed):
    """n float32 values in [-1, 1): 24 bits of SplitMix64(index + seed)."""
    with np.errstate(over="ignore"):
        z = np.arange(n, dtype=np.uint64) + np.uint64((seed * 0x9E3779B97F4A7C15) & _M64)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    top = (z >> np.uint64(40)).astype(np.float64)  # 24 bits: exact in float32
    return (top / float(1 << 23) - 1.0).astype(np.float32)


def draw(spec):
    shape, kind, seed = tuple(spec["shape"]), spec["kind"], int(spec["seed"])
    n = int(np.prod(shape)) if shape else 1
    u = uniform(n, seed).reshape(shape)
    if kind == "uniform":
        return u
    if kind == "weight":
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        return (u * np.float32(np.sqrt(3.0 / fan_in))).astype(np.float32)
    if kind == "small":
        return (u * np.float32(0.1)).astype(np.float32)
    if kind == "gamma":
        return (np.float32(1) + u * np.float32(0.1)).astype(np.float32)
    if kind.startswith(("range:", "nonzero:")):
        lo, hi = (float(v) for v in kind.split(":")[1:3])
        x = (np.float64(lo) + (u.astype(np.float64) + 1) / 2 * (hi - lo)).astype(np.float32)
        if kind.startswith("nonzero:"):
            x = np.where(np.abs(x) < 0.2, np.float32(0.5), x).astype(np.float32)
        return x
    if kind.startswith("int:"):
        lo, hi = (int(v) for v in kind.split(":")[1:3])
        return np.floor(lo + (u.astype(np.float64) + 1) / 2 * (hi - lo)).clip(lo, hi - 1) \
            .astype(np.float32)
    if kind.startswith("label:"):
        classes = int(kind.split(":")[1])
        return np.floor((u.astype(np.float64) + 1) / 2 * classes).clip(0, classes - 1) \
            .astype(np.float32)
    raise ValueError("unknown input kind %r" % kind)


def generate(specs):
    """{name: array} for a spec dict."""
    return {name: draw(s).astype(s.get("dtype", "float32")) for name, s in specs.items()}


def main(spec_path, outdir):
    with open(spec_path) as f:
        specs = json.load(f)
    os.makedirs(outdir, exist_ok=True)
    for name, a in generate(specs).items():
        np.save(os.path.join(outdir, name + ".npy"), a)


if __name__ == "__main__":
    main(*sys.argv[1:3])
