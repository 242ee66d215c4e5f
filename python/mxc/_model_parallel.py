"""simple_bind(group2ctx=...) over devices that do not share memory (a GPU
among them): MXNet's model parallelism.

MXNet's graph executor places every node on a device (a node made under
mx.AttrScope(ctx_group=g) on group2ctx[g]; another variable on the
executor's context; another operator on its first input's device, one
without inputs on its consumer's: _placement), inserts a copy on each edge
between devices and runs the one graph. Here the graph is cut into stages instead, each a run of
nodes on one device in an order that keeps every stage's inputs before it,
each stage bound as an Executor of its own (compiled for its device), and
the values crossing devices copied between them at each forward; backward
runs the stages in reverse, each with the gradients of its outputs that
the later stages (and the head gradients) give it. The results are those
of the graph on one device; placement is MXNet's, the executor's arrays
lie on their variables' devices.

What it costs: a stage whose outputs later stages read runs its training
step as two halves (mx-split-training: the forward half at forward, keeping
the values the backward half reads; the backward half with its outputs'
gradients), which is not fused across the halves as one step is; the stages
run one after the other on the engine (their copies and kernels overlap only
as the engine's dependencies allow).
"""
import numpy as np

from . import ndarray as nd
from .base import MXNetError
from .context import check_context
from .executor import Executor
from .ndarray import NDArray
from .symbol import Symbol, _Node, _post_order


def _ctx_key(ctx):
    return (ctx.device_type, ctx.device_id)


def _placement(symbol, ctx, group2ctx):
    """id(node) -> Context for every node of `symbol`, as MXNet 1.9.1
    places them: a node of a ctx_group on that group's context (a group
    group2ctx does not name is an error, as nnvm's PlaceDevice), another
    variable on `ctx`, another operator on its first placed input's device
    (in graph order), one without placed inputs on its last consumer's
    (else ctx)."""
    nodes = _post_order(symbol._outputs)
    place = {}
    for n in nodes:
        g = n.attrs.get("__ctx_group__")
        if g is not None:
            if g not in group2ctx:
                raise MXNetError("simple_bind: node '%s' is in ctx_group '%s', which group2ctx "
                                 "does not name (it names %s)"
                                 % (n.name, g, ", ".join(sorted(group2ctx))))
            place[id(n)] = check_context(group2ctx[g], True)
        elif n.op == "null":
            place[id(n)] = ctx
        else:  # its first placed input's (one without inputs: placed below)
            where = next((place[id(src)] for src, _, _ in n.inputs if id(src) in place), None)
            if where is not None:
                place[id(n)] = where
    last_consumer = {}
    for n in nodes:
        for src, _, _ in n.inputs:
            last_consumer[id(src)] = n
    for n in reversed(nodes):
        if id(n) not in place:
            c = last_consumer.get(id(n))
            place[id(n)] = place.get(id(c), ctx) if c is not None else ctx
    return nodes, place


def stages_for(symbol, ctx, group2ctx):
    """simple_bind(ctx, group2ctx)'s stages and its variables' placement
    (name -> Context), or None where the graph runs as one: no node is placed
    off `ctx`, or no GPU is among the contexts (every CPU context is one host
    memory). A group group2ctx does not name is an error either way."""
    nodes, place = _placement(symbol, ctx, group2ctx)
    ctxs = {_ctx_key(check_context(c, True)) for c in group2ctx.values()}
    ctxs.add(_ctx_key(ctx))
    if len(ctxs) < 2 or not any(t == "gpu" for t, _ in ctxs) or \
            all(_ctx_key(c) == _ctx_key(ctx) for c in place.values()):
        return None
    return _build_stages(symbol, nodes, place)


def _stage_order(nodes, place):
    """The operator nodes in an order that keeps every node after its
    inputs and runs of one device as long as it can (Kahn's algorithm,
    preferring the device of the last node), cut where the device changes:
    [(Context, [node, ...])]."""
    ops = [n for n in nodes if n.op != "null"]
    ids = {id(n) for n in ops}
    waiting = {id(n): sum(1 for s, _, _ in n.inputs if id(s) in ids) for n in ops}
    users = {}
    for n in ops:
        for s, _, _ in n.inputs:
            if id(s) in ids:
                users.setdefault(id(s), []).append(n)
    ready = [n for n in ops if waiting[id(n)] == 0]
    stages, current = [], None
    while ready:
        pick = 0
        if current is not None:
            for i, n in enumerate(ready):
                if _ctx_key(place[id(n)]) == _ctx_key(current[0]):
                    pick = i
                    break
        n = ready.pop(pick)
        where = place[id(n)]
        if current is None or _ctx_key(where) != _ctx_key(current[0]):
            current = (where, [])
            stages.append(current)
        current[1].append(n)
        for u in users.get(id(n), []):
            waiting[id(u)] -= 1
            if waiting[id(u)] == 0:
                ready.append(u)
    return stages


class _Stage:
    """One device's run of nodes: its Symbol, its inputs (variables and
    other stages' outputs, as entries (id(node), index)) and outputs."""

    def __init__(self, ctx, nodes):
        self.ctx = ctx
        self.nodes = nodes
        self.inputs = []     # [(entry, source node, placeholder name)], placeholders' order
        self.outputs = []    # [entry] in the order of the stage symbol's outputs
        self.symbol = None
        self.exec = None
        self.own = []        # the stage executor's own array for each input (copies land there)


def _build_stages(symbol, nodes, place):
    """The stages of `symbol` under placement `place`, their symbols built;
    and the placement of its variables (name -> Context)."""
    groups = _stage_order(nodes, place)
    stage_of = {}
    stages = []
    for k, (where, members) in enumerate(groups):
        st = _Stage(where, members)
        for n in members:
            stage_of[id(n)] = k
        stages.append(st)
    heads = [(id(n), i) for n, i in symbol._outputs]
    # Which entries each stage hands on: consumed by another stage, or a head.
    needed = {}
    for k, st in enumerate(stages):
        for n in st.nodes:
            for src, i, _ in n.inputs:
                if src.op != "null" and stage_of[id(src)] != k:
                    needed.setdefault(stage_of[id(src)], []).append((id(src), i))
    for e in heads:
        if e[0] in stage_of:
            needed.setdefault(stage_of[e[0]], []).append(e)
        else:
            raise MXNetError("simple_bind with group2ctx: the output '%s' is a variable; "
                             "bind a graph whose outputs are operators" %
                             next(n.name for n in nodes if id(n) == e[0]))
    for k, st in enumerate(stages):
        copies = {}
        placeholders = {}  # entry -> new null node

        def entry_node(src, i):
            key = (id(src), i)
            if key not in placeholders:
                if src.op == "null":
                    node = _Node("null", src.name, src.attrs)
                else:
                    node = _Node("null", "%s_output%d_to_%s_%d" % (src.name, i, st.ctx.device_type,
                                                                  st.ctx.device_id), {})
                placeholders[key] = node
                st.inputs.append((key, src, node.name))
            return placeholders[key]

        for n in st.nodes:
            ins = []
            for src, i, ver in n.inputs:
                if id(src) in copies:
                    ins.append((copies[id(src)], i, ver))
                else:
                    ins.append((entry_node(src, i), 0, 0))
            copies[id(n)] = n.copy(ins)
        outs = []
        for e in needed.get(k, []):
            if e not in outs:
                outs.append(e)
        st.outputs = outs
        st.symbol = Symbol([(copies[e[0]], e[1]) for e in outs])
    var_ctx = {n.name: place[id(n)] for n in nodes if n.op == "null"}
    return stages, var_ctx


def _sum_on(arrays, ctx):
    """The sum of `arrays` (of one shape) as a new array on `ctx`."""
    total = arrays[0].copyto(ctx)
    for a in arrays[1:]:
        total += a.as_in_context(ctx)
    return total


class StagedExecutor(Executor):
    """An executor of a graph placed over several devices (group2ctx): the
    arrays of the whole graph (on their variables' devices), and an
    Executor a stage doing the work."""

    def __init__(self, symbol, ctx, args, grads, aux, reqs, stages):
        super().__init__(symbol, ctx, args, grads, aux, reqs)
        self._gpu = True  # arrays go between devices by copies (_copy_kwargs, copy_params_from)
        self._stages = stages
        self._direct = set()  # variables bound in their one consuming stage (gradients too)
        uses = {}
        for st in stages:
            for key, src, _ in st.inputs:
                if src.op == "null":
                    uses[src.name] = uses.get(src.name, 0) + 1
        self._produced = {}  # entry -> (stage, output position)
        for k, st in enumerate(stages):
            shapes, types, reqs_k, direct = {}, {}, {}, set()
            for key, src, name in st.inputs:
                arr = self._source(key, src)
                if src.op == "null":
                    req = reqs.get(src.name, "null")
                    if req in ("write", "add") and uses[src.name] == 1 and \
                            arr.context == st.ctx:
                        direct.add(src.name)
                        reqs_k[name] = req
                    else:
                        reqs_k[name] = "null" if req == "null" else "write"
                else:
                    reqs_k[name] = "write" if np.issubdtype(arr.dtype, np.floating) else "null"
                shapes[name], types[name] = tuple(arr.shape), arr.dtype
            st.exec = Executor._simple_bind(st.symbol, st.ctx, reqs_k, types, shapes)
            ex = st.exec
            st.own = []
            for key, src, name in st.inputs:
                if name in ex._aux_names:
                    j = ex._aux_names.index(name)
                    st.own.append(ex.aux_arrays[j])
                    a = self._source(key, src)
                    if src.op != "null" or a.context != st.ctx:
                        raise MXNetError(
                            "simple_bind with group2ctx: the auxiliary state '%s' is placed on "
                            "%s, its operator on %s; put them in one ctx_group"
                            % (name, a.context, st.ctx))
                    ex.aux_arrays[j] = a
                    continue
                j = ex._arg_names.index(name)
                st.own.append(ex.arg_arrays[j])
                if src.op == "null" and src.name in direct:
                    ex.grad_arrays[j] = self.grad_arrays[self._arg_names.index(src.name)]
            self._direct |= direct
            for pos, e in enumerate(st.outputs):
                self._produced[e] = (k, pos)
        self._heads = [(id(n), i) for n, i in symbol._outputs]
        # A stage whose outputs later stages read (or are not heads) is given
        # their gradients at backward: it runs its training step as two halves
        # (the forward half at forward, keeping what the backward half reads).
        read = {key for st in stages for key, src, _ in st.inputs if src.op != "null"}
        for st in stages:
            if not all(e in self._heads and e not in read for e in st.outputs):
                st.exec._split_train = True

    @property
    def outputs(self):
        return [self._stages[k].exec.outputs[pos]
                for k, pos in (self._produced[e] for e in self._heads)]

    @outputs.setter
    def outputs(self, value):
        raise MXNetError("an executor with group2ctx over several devices has the outputs of "
                         "its stages")

    def _source(self, key, src):
        """The array an input of a stage reads: a variable's (as bound now)
        or another stage's output."""
        if src.op == "null":
            names = self._arg_names if src.name in self._arg_names else self._aux_names
            arrays = self.arg_arrays if names is self._arg_names else self.aux_arrays
            return arrays[names.index(src.name)]
        k, pos = self._produced[key]
        return self._stages[k].exec.outputs[pos]

    def _feed(self, st):
        """Binds a stage's inputs as the executor's arrays are now (a Module
        may have rebound them): same-device arrays in place, others copied."""
        ex = st.exec
        for (key, src, name), own in zip(st.inputs, st.own):
            a = self._source(key, src)
            if name in ex._aux_names:  # (on the stage's device: checked at bind)
                if a.context != st.ctx:
                    raise MXNetError("forward: the auxiliary state '%s' is now on %s, its "
                                     "operator on %s" % (name, a.context, st.ctx))
                ex.aux_arrays[ex._aux_names.index(name)] = a
                continue
            j = ex._arg_names.index(name)
            if src.op == "null" and src.name in self._direct:
                ex.grad_arrays[j] = self.grad_arrays[self._arg_names.index(src.name)]
            if a.context == st.ctx and a._sig == own._sig:
                ex.arg_arrays[j] = a  # the same device: read in place
            else:
                a.copyto(own)  # an engine copy between the devices
                ex.arg_arrays[j] = own

    def forward(self, is_train=False, **kwargs):
        self._copy_kwargs(kwargs)
        self._last_forward = "train" if is_train else "infer"
        for st in self._stages:
            self._feed(st)
            st.exec.forward(is_train=is_train)
        return self.outputs

    def backward(self, out_grads=None, is_train=True):
        if out_grads is not None and isinstance(out_grads, (NDArray, np.ndarray)):
            out_grads = [out_grads]
        if out_grads is not None and len(out_grads) < len(self._heads):
            raise MXNetError("backward: %d out_grads for %d outputs"
                             % (len(out_grads), len(self._heads)))
        grads = {}  # entry -> gradients from its consumers and the heads
        if out_grads is not None:
            for e, g in zip(self._heads, out_grads):
                g = g if isinstance(g, NDArray) else nd.array(np.asarray(g))
                grads.setdefault(e, []).append(g)
        heads = set(self._heads)
        for st in reversed(self._stages):
            ex = st.exec
            if out_grads is None and all(e in heads and e not in grads for e in st.outputs):
                ex.backward()  # the heads' default (ones; losses ignore it)
            else:
                ogs = []
                for e, out in zip(st.outputs, ex.outputs):
                    parts = list(grads.get(e, []))
                    if e in heads and out_grads is None:  # the default head gradient too
                        parts.append(nd.ones(out.shape, st.ctx, dtype=out.dtype))
                    ogs.append(_sum_on(parts, st.ctx) if parts else
                               nd.zeros(out.shape, st.ctx, dtype=out.dtype))
                ex.backward(ogs)
            for key, src, name in st.inputs:
                if name in ex._aux_names or (src.op == "null" and src.name in self._direct):
                    continue
                g = ex.grad_arrays[ex._arg_names.index(name)]
                if g is not None:
                    grads.setdefault(key, []).append(g)
        for i, name in enumerate(self._arg_names):
            req = self._grad_req.get(name, "null")
            dst = self.grad_arrays[i]
            if req == "null" or dst is None or name in self._direct:
                continue
            key = next((k for st in self._stages for k, src, _ in st.inputs
                        if src.op == "null" and src.name == name), None)
            if key is None or key not in grads:
                if req == "write":
                    dst[:] = 0  # no path from it to an output
                continue
            total = _sum_on(grads[key], dst.context)
            if req == "add":
                dst += total
            else:
                total.copyto(dst)

    def _grad_ready_order(self):
        return None

    def reshape(self, partial_shaping=False, allow_up_sizing=False, **kwargs):
        raise MXNetError("reshape: an executor with group2ctx over several devices is bound "
                         "for its shapes; bind it again (simple_bind) for others")

    def set_monitor_callback(self, callback, monitor_all=False):
        raise MXNetError("set_monitor_callback: not supported for an executor with group2ctx "
                         "over several devices")
