"""Writes the golden files of test_frontend_symbol.py with MXNet 1.9.1 itself:

    cd /tmp && /work/main/.venv-mxnet/bin/python \
        /work/main/test/python/frontend/golden/make_golden.py

(.venv-mxnet: mxnet==1.9.1, see test/Inputs/mxnet-params/README.md.) The
graphs are built exactly as the tests build them with mxc.
"""
import os

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, text):
    with open(os.path.join(HERE, name), "w") as f:
        f.write(text)


with mx.name.NameManager():
    a = mx.sym.var("a")
    b = mx.sym.var("b")
    fc = mx.sym.FullyConnected(a, num_hidden=10)
    bn = mx.sym.BatchNorm(fc, fix_gamma=False, name="bn")
    c = mx.sym.Concat(a, b, dim=1)
    write("group.mxnet-1.9.1.json", mx.sym.Group([bn, c]).tojson())

with mx.name.NameManager():
    a = mx.sym.var("a")
    b = mx.sym.var("b")
    e = ((a + b) * 2 - a / 3.5 + (-a) + (2 - a) + (1 / a) + (a ** 2) + (a < 1)
         + (2 ** a) + abs(a))
    write("arith.mxnet-1.9.1.json", e.tojson())

import json
import sys

sys.path.insert(0, HERE)
from control_flow_graphs import build  # noqa: E402

write("control_flow.mxnet-1.9.1.json",
      json.dumps({k: v.tojson() for k, v in build(mx).items()}, indent=1, sort_keys=True))
