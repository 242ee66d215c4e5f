"""Graphs with MXNet's control-flow operators, built the same way by MXNet
1.9.1 (make_golden.py writes control_flow.mxnet-1.9.1.json) and by mxc
(test_symbol_control_flow.py compares its tojson() with that file)."""
from collections import defaultdict


def build(mx):
    """name -> Symbol, with fresh name counters (node and subgraph names)."""
    mx.attribute.AttrScope._subgraph_names = defaultdict(int)
    out = {}
    with mx.name.NameManager():
        data = mx.sym.var("data")
        w = mx.sym.var("w")
        fc = mx.sym.FullyConnected(data, num_hidden=2, name="fc")

        def body(x, states):
            # a free variable (w), an operator made outside the body (fc),
            # a state that is also an output
            return [x + states[0] * w, fc], [states[0] * 2 + x, states[1]]

        outs, states = mx.sym.contrib.foreach(body, data, [mx.sym.var("s0"), mx.sym.var("s1")])
        out["foreach"] = mx.sym.Group(outs + states)

        i, s = mx.sym.var("i"), mx.sym.var("s")
        outs, final = mx.sym.contrib.while_loop(
            lambda i, s: (i + w) <= 5, lambda i, s: ([i + s], [i + 1, s + i * w]),
            (i, s), max_iterations=7)
        out["while_loop"] = mx.sym.Group(outs + final)

        a, b = mx.sym.var("a"), mx.sym.var("b")
        out["cond"] = mx.sym.contrib.cond(mx.sym.sum(a * b) < 5, lambda: (a + 5) * (b + fc),
                                          lambda: [(a - 5) * (b - 5)], name="my_cond")[0]

        def outer(x, states):
            inner, st = mx.sym.contrib.foreach(lambda y, t: (y * t[0], [t[0] + y]), x, states)
            return inner, st

        outs, states = mx.sym.contrib.foreach(outer, data, [mx.sym.var("t0")])
        out["nested"] = mx.sym.Group([outs] + states)
    return out
