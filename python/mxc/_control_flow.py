"""mx.sym.contrib.foreach / while_loop / cond: MXNet 1.9.1's control-flow
operators in graphs.

As MXNet's symbol/contrib.py: the Python body runs once on placeholder
variables under AttrScope(__subgraph_name__=...), the operators it created
become the node's subgraph (an edge from an operator made outside the body is
cut: the subgraph gets a variable named after that output, and the outer
output becomes an input of the node), and the node (_foreach, _while_loop,
_cond) carries MXNet's attributes (in_data_locs, cond_input_locs, ...), so
tojson() writes what MXNet writes and MXNet's files load. The compiler unrolls
the node once its inputs' shapes are known (lib/Compiler/Import.cpp):
foreach step by step, while_loop to max_iterations with every step's results
selected by "still running", cond by computing both branches and selecting.
"""
from collections import defaultdict

from .attribute import AttrScope
from .base import MXNetError, NameManager
from .symbol import Symbol, _Node, _hidden, _post_order, var

__all__ = ["foreach", "while_loop", "cond"]

if not hasattr(AttrScope, "_subgraph_names"):
    AttrScope._subgraph_names = defaultdict(int)


def _flatten(args, what):
    """A Symbol or nested lists of Symbols -> (flat list of single-output
    Symbols, format), as MXNet's _flatten (a multi-output Symbol is a list)."""
    if isinstance(args, Symbol):
        n = len(args._outputs)
        if n > 1:
            return [Symbol([o]) for o in args._outputs], n
        return [args], 0
    if not isinstance(args, (list, tuple)):
        raise ValueError("%s must be (nested) list of Symbol, but got %s of type %s"
                         % (what, args, type(args)))
    flat, fmts = [], []
    for a in args:
        f, fmt = _flatten(a, what)
        flat.extend(f)
        fmts.append(fmt)
    return flat, fmts


def _regroup(args, fmt):
    if isinstance(fmt, int):
        if fmt == 0:
            return args[0], args[1:]
        return list(args[:fmt]), args[fmt:]
    ret = []
    for f in fmt:
        res, args = _regroup(args, f)
        ret.append(res)
    return ret, args


def _unique_subgraph_name(name):
    """MXNet's _get_unique_subgraph_name: nested loops are 'outer$inner', and
    a counter per name (AttrScope._subgraph_names)."""
    outer = AttrScope.current._attr.get("__subgraph_name__", "")
    if outer:
        name = outer + "$" + name
    AttrScope._subgraph_names[name] += 1
    return name + str(AttrScope._subgraph_names[name] - 1)


def _uniq_name(sym):
    """MXNet's _get_sym_uniq_name: '<name>-<output index>' ('data-0')."""
    node, index = sym._outputs[0]
    return "%s-%d" % (node.name, index)


def _identity(sym):
    from . import symbol as _sym
    return _sym.identity(sym)


def _cut(outputs, sg_name, placeholders=()):
    """The subgraph made of `outputs` (single-output Symbols the body created
    under AttrScope(__subgraph_name__=sg_name)).

    Returns (graph, inputs): graph a Symbol over new nodes, and for each of
    its inputs in list_inputs() order (name, outer), where outer is the outer
    entry (node, index) feeding it: the variable itself for any other
    variable (made outside the body or in it, as a cell's weights), the cut
    output for an operator made outside the body, None for one of
    `placeholders` (the variables the body was called with)."""
    placeholders = {id(p._outputs[0][0]) for p in placeholders}
    def in_graph(n):
        return n.op != "null" and n.attrs.get("__subgraph_name__") == sg_name

    heads = [s._outputs[0] for s in outputs]
    new = {}       # id(old node) -> new node
    binding = {}   # id(new variable) -> outer entry, or None for a placeholder
    cut = {}       # (id(node), index) -> new variable

    def leaf(node, index):
        if node.op == "null":
            if id(node) not in new:
                if id(node) in placeholders:
                    new[id(node)] = node  # a placeholder: only in this subgraph
                    binding[id(node)] = None
                else:
                    v = _Node("null", node.name, dict(node.attrs))
                    new[id(node)] = v
                    binding[id(v)] = (node, 0)
            return new[id(node)], 0
        key = (id(node), index)
        if key not in cut:
            # named as list_outputs() names the output ('fc_output')
            v = _Node("null", Symbol([(node, index)]).list_outputs()[0])
            cut[key] = v
            binding[id(v)] = (node, index)
        return cut[key], 0

    # The body's operators, inputs first; an edge leaving the body ends at a
    # leaf.
    for node in _post_order(heads, follow=in_graph):
        ins = []
        for src, i, v in node.inputs:
            if in_graph(src):
                ins.append((new[id(src)], i, v))
            else:
                ins.append(leaf(src, i) + (v,))
        new[id(node)] = node.copy(ins)
    graph_heads = []
    for node, i in heads:
        graph_heads.append((new[id(node)], i) if in_graph(node) else leaf(node, i))
    graph = Symbol(graph_heads)
    variables = [n for n in _post_order(graph._outputs) if n.op == "null"]
    names = [v.name for v in variables]
    if len(set(names)) != len(names):
        raise MXNetError("The inputs of the subgraph don't have unique names: %s" % names)
    return graph, [(v.name, binding[id(v)]) for v in variables]


def _wrap_outputs(outputs, sg_name, avoid_names=()):
    """MXNet's rule: an output that is a variable, a value made outside the
    body, or (for loop states) also a data output, goes through identity, so
    that every head of the subgraph is an operator of its own."""
    all_inputs = {n.name for s in outputs for n in _post_order(s._outputs) if n.op == "null"}
    out = []
    for s in outputs:
        node, _ = s._outputs[0]
        if node.op == "null" or node.name in all_inputs or node.name in avoid_names or \
                node.attrs.get("__subgraph_name__") != sg_name:
            s = _identity(s)
        out.append(s)
    return out


def _node(op, inputs, attrs, graphs):
    """The control-flow node `op` (named as MXNet names it: _foreach0) on
    `inputs` with MXNet's attributes; its outputs as Symbols."""
    attrs = {k: str(v) for k, v in attrs.items()}
    attrs.update(_hidden(AttrScope.current.get(None)))
    num_outputs = int(attrs["num_outputs"])
    node = _Node(op, NameManager.current.get(None, op), attrs, [e + (0,) for e in inputs],
                 num_outputs, subgraphs=graphs)
    return [Symbol([(node, i)]) for i in range(num_outputs)]


def _check(flat, what):
    for s in flat:
        if not isinstance(s, Symbol):
            raise ValueError(what)


def foreach(body, data, init_states, name="foreach"):
    """MXNet's mx.sym.contrib.foreach: `body(data_slice, states) -> (outputs,
    new_states)` over axis 0 of `data`; (stacked outputs, final states)."""
    flat_data, data_fmt = _flatten(data, "foreach input")
    _check(flat_data, "data should be a symbol or a nested list of symbols")
    flat_states, state_fmt = _flatten(init_states, "foreach states")
    _check(flat_states, "init_states should be a symbol or a nested list of symbols")
    sg_name = _unique_subgraph_name(name)
    with AttrScope(__subgraph_name__=sg_name):
        in_eles = [var(_uniq_name(s)) for s in flat_data]
        states = [var(_uniq_name(s)) for s in flat_states]
        placeholders = in_eles + states
        in_eles, _ = _regroup(in_eles, data_fmt)
        states, _ = _regroup(states, state_fmt)
        sym_out, sym_states = body(in_eles, states)
        sym_out, out_fmt = _flatten(sym_out if sym_out is not None else [], "foreach output")
        sym_states, new_state_fmt = _flatten(sym_states if sym_states is not None else [],
                                             "foreach loop_vars")
        if new_state_fmt != state_fmt:
            raise ValueError("The input and output loop_vars have different format")
        _check(sym_out, "the output should be an NDArray or a nested list of NDArrays")
        _check(sym_states, "the output states should be an NDArray or a nested list of NDArrays")
        outs = _wrap_outputs(sym_out, sg_name)
        sts = _wrap_outputs(sym_states, sg_name, {s._outputs[0][0].name for s in sym_out})
        graph, inputs = _cut(outs + sts, sg_name, placeholders)
    names = [n for n, _ in inputs]
    data_names = [_uniq_name(s) for s in flat_data]
    state_names = [_uniq_name(s) for s in flat_states]
    for n in data_names:
        if n not in names:
            raise AssertionError("the data arrays have to be used in the loop body")
    for n in state_names:
        if n not in names:
            raise AssertionError("the state arrays have to be used in the loop body")
    ordered = [s._outputs[0] for s in flat_data] + [s._outputs[0] for s in flat_states]
    remain = []
    for i, (n, outer) in enumerate(inputs):
        if n not in data_names and n not in state_names:
            ordered.append(outer)
            remain.append(i)
    num_out_data, num_states = len(sym_out), len(sym_states)
    ret = _node("_foreach", ordered, {
        "in_data_locs": [names.index(n) for n in data_names],
        "in_state_locs": [names.index(n) for n in state_names],
        "num_args": len(ordered) + 1,
        "num_out_data": num_out_data,
        "num_outputs": num_out_data + num_states,
        "remain_locs": remain}, [graph])
    outs, _ = _regroup(ret[:num_out_data], out_fmt)
    states, _ = _regroup(ret[num_out_data:], state_fmt)
    return outs, states


def _union_inputs(graphs, loop_vars=None):
    """The inputs of several subgraphs made one list, and each graph's
    locations in it, as MXNet's _union_inputs: a loop variable is one input
    for all the graphs (while_loop), and so is a variable of the same name
    (cond); every other input is the graph's own, even where two graphs cut
    the same outer output."""
    inputs, where, locs = [], {}, []
    by_name = {_uniq_name(s): j for j, s in enumerate(loop_vars or [])}
    for _, graph_inputs in graphs:
        mine = []
        for n, outer in graph_inputs:
            if outer is None:
                key = ("loop var", by_name[n])
                outer = loop_vars[by_name[n]]._outputs[0]
            elif loop_vars is None and outer[0].op == "null":
                key = ("variable", outer[0].name)
            else:
                key = ("own", len(inputs))
            if key not in where:
                where[key] = len(inputs)
                inputs.append(outer)
            mine.append(where[key])
        locs.append(mine)
    return inputs, locs


def while_loop(cond, func, loop_vars, max_iterations=None, name="while_loop"):
    """MXNet's mx.sym.contrib.while_loop: step outputs stacked to
    max_iterations rows (rows after the loop stopped are zeros: MXNet leaves
    them unwritten), and the final loop variables."""
    flat_vars, var_fmt = _flatten(loop_vars, "while loop_vars")
    _check(flat_vars, "loop_vars should be a symbol or a nested list of symbols")
    if max_iterations is None:
        raise ValueError("max_iterations should be specified")
    if hasattr(max_iterations, "asscalar"):
        max_iterations = max_iterations.asscalar()
    try:
        max_iterations = int(max_iterations)
    except (TypeError, ValueError):
        raise ValueError("Cannot convert max_iteration to python int")
    if len(flat_vars) == 0:
        raise ValueError("loop_vars should contain at least one element")

    def subgraph(body, sg_name):
        sg_name = _unique_subgraph_name(sg_name)
        with AttrScope(__subgraph_name__=sg_name):
            placeholders = [var(_uniq_name(s)) for s in flat_vars]
            new_vars, _ = _regroup(placeholders, var_fmt)
            outputs, final, out_fmt = body(new_vars)
            wrapped = _wrap_outputs(outputs + final, sg_name)
            graph, inputs = _cut(wrapped, sg_name, placeholders)
        return (graph, inputs), len(outputs), len(outputs) + len(final), out_fmt

    def cond_body(vs):
        result = cond(*vs)
        if not isinstance(result, Symbol):
            raise ValueError("Return of cond must be a Symbol")
        return [], [result], None

    def func_body(vs):
        step_output, new_vars = func(*vs)
        step_output = [] if step_output is None else step_output
        new_vars = [] if new_vars is None else new_vars
        step_output, out_fmt = _flatten(list(step_output) if isinstance(step_output, tuple)
                                        else step_output, "while output")
        new_vars, _ = _flatten(list(new_vars) if isinstance(new_vars, tuple) else new_vars,
                               "while loop_vars")
        if len(new_vars) != len(flat_vars):
            raise ValueError("The number of loop_vars should be consistent during the loop")
        return step_output, new_vars, out_fmt

    cond_g, _, n_cond, _ = subgraph(cond_body, name + "_cond")
    if n_cond != 1:
        raise ValueError("cond must return one Symbol")
    func_g, num_out_data, num_outputs, out_fmt = subgraph(func_body, name + "_func")
    inputs, (cond_locs, func_locs) = _union_inputs([cond_g, func_g], flat_vars)
    func_names = [n for n, _ in func_g[1]]
    var_locs = []
    for i, s in enumerate(flat_vars, 1):
        n = _uniq_name(s)
        if n not in func_names:
            raise ValueError("The %d-th loop_var doesn't involve into the computation" % i)
        var_locs.append(func_names.index(n))
    ret = _node("_while_loop", inputs, {
        "cond_input_locs": cond_locs,
        "func_input_locs": func_locs,
        "func_var_locs": var_locs,
        "max_iterations": max_iterations,
        "num_args": len(inputs) + 2,
        "num_out_data": num_out_data,
        "num_outputs": num_outputs}, [cond_g[0], func_g[0]])
    outputs, _ = _regroup(ret[:num_out_data], out_fmt) if out_fmt is not None else ([], None)
    final, _ = _regroup(ret[num_out_data:], var_fmt)
    return outputs, final


def cond(pred, then_func, else_func, name="cond"):
    """MXNet's mx.sym.contrib.cond: then_func() where pred (one value) is
    non-zero, else else_func(); both branches are computed and the result
    selected."""
    def subgraph(body, sg_name):
        sg_name = _unique_subgraph_name(sg_name)
        with AttrScope(__subgraph_name__=sg_name):
            outputs, fmt = _flatten(body(), "cond outputs")
            wrapped = _wrap_outputs(outputs, sg_name)
            graph, inputs = _cut(wrapped, sg_name)
        return (graph, inputs), len(outputs), fmt

    cond_g, n_pred, _ = subgraph(lambda: pred, name + "_pred")
    if n_pred != 1:
        raise ValueError("pred should always be a single output")
    then_g, n_then, then_fmt = subgraph(then_func, name + "_then")
    else_g, n_else, _ = subgraph(else_func, name + "_else")
    if n_then != n_else:
        raise ValueError("Number of outputs differs between then-branch and else-branch")
    inputs, (cond_locs, then_locs, else_locs) = _union_inputs([cond_g, then_g, else_g])
    ret = _node("_cond", inputs, {
        "cond_input_locs": cond_locs,
        "else_input_locs": else_locs,
        "num_args": len(inputs) + 3,
        "num_outputs": n_then,
        "then_input_locs": then_locs}, [cond_g[0], then_g[0], else_g[0]])
    outputs, _ = _regroup(ret, then_fmt)
    return outputs
