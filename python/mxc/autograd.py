"""mx.autograd: imperative gradients (MXNet 1.x's autograd API).

Inside `record()`, every operator whose inputs depend on an array with
`attach_grad()` is appended to a tape. `backward()` turns the part of the
tape that leads to the heads into one MXNet graph (variables for the
inputs, one node per recorded call) and compiles it with mx-autodiff
(`PipelineOptions.train`): the gradients of the attached arrays come out of
the same pass that trains symbols.

Training mode (`record(train_mode=True)`, the default): BatchNorm uses the
batch statistics (and updates its moving ones) and Dropout drops, both in the
forward call and in the graph the backward compiles. Dropout's mask is a pure
function of the recording's seed and the node's name, so the backward
multiplies by exactly the mask the forward used.

Arrays read by recorded operators must not be modified in place before
backward() (the tape keeps references, not copies).
"""
import threading

import numpy as np

from . import _mxc

from .base import MXNetError
from . import ndarray as _ndarray_module
from .ndarray import NDArray  # (also MXNet's autograd's: `from mxnet.autograd import *`)

_state = threading.local()
# mx.nd's dispatch fast path (C++) reads `recording` from this state.
_ndarray_module._init_fast_dispatch(_state)


def _st():
    if not hasattr(_state, "recording"):
        _state.recording = False
        _state.training = False
        _state.seed = None
        _state.counter = 0
    return _state


def is_recording():
    return _st().recording


def is_training():
    return _st().training


def set_recording(is_recording):
    st = _st()
    old = st.recording
    st.recording = bool(is_recording)
    if st.recording and st.seed is None:
        st.seed = fresh_seed()
    return old


def set_training(train_mode):
    st = _st()
    old = st.training
    st.training = bool(train_mode)
    return old


class _Scope:
    def __init__(self, recording, training):
        self._rec, self._train = recording, training
        self._old = None

    def __enter__(self):
        st = _st()
        self._old = (st.recording, st.training)
        if self._rec and not st.recording:
            # A new recording: node names restart (so that the same loop body
            # gives the same graph, a cache hit), Dropout gets a new seed.
            st.counter = 0
            st.seed = fresh_seed()
        if self._rec is not None:
            set_recording(self._rec)
        if self._train is not None:
            set_training(self._train)
        return self

    def __exit__(self, *exc):
        st = _st()
        st.recording, st.training = self._old


def record(train_mode=True):
    """Records operators for backward(); train_mode selects BatchNorm's and
    Dropout's training behaviour."""
    return _Scope(True, train_mode)


def pause(train_mode=False):
    return _Scope(False, train_mode)


def train_mode():
    return _Scope(None, True)


def predict_mode():
    return _Scope(None, False)


class _Entry:
    """One recorded call: operator, attributes, node name, input arrays (and
    the numpy buffers they held), outputs."""

    __slots__ = ["spec", "attrs", "name", "inputs", "datas", "num_outputs", "training", "seed",
                 "function", "seq", "out_shapes", "subgraph"]

    def __init__(self, spec, attrs, name, inputs, datas, num_outputs, training, seed,
                 function=None):
        self.spec, self.attrs, self.name = spec, attrs, name
        self.inputs, self.datas = inputs, datas
        self.num_outputs, self.training, self.seed = num_outputs, training, seed
        self.function = function  # an autograd.Function call (its outputs' entry)
        self.seq = next(_sequence)
        self.out_shapes = None
        self.subgraph = None  # a _CachedOp's (Symbol, input names): get_symbol


_sequence = __import__("itertools").count()


def _tracked(a):
    return a._ag is not None or (a._grad is not None and a._grad_req != "null")


def node_name(spec):
    """A fresh node name for a recorded call (Dropout's mask stream)."""
    st = _st()
    st.counter += 1
    return "%s_ag%d" % (spec.name.lower(), st.counter)


def seed():
    """The seed of Dropout masks in recorded calls (one per thread, drawn from
    mx.random when recording first starts after mx.random.seed)."""
    st = _st()
    if st.seed is None:
        st.seed = fresh_seed()
    return st.seed


def fresh_seed():
    from . import random as _random
    return int(_random._generator.integers(0, 2 ** 62))


class _Link:
    """A recorded call's input that an earlier recorded operator computed
    (or an intermediate value of a hybridized graph's node tape):
    the tape keeps its (entry, output index), not the array or its data
    (backward computes the forward again inside its gradient graph, from the
    tape's variables), so an intermediate result nobody else holds is freed
    as recording goes on (MXNet frees what no gradient reads; its
    test_autograd_save_memory). As in MXNet, the tape is what was recorded:
    attach_grad() on the array after recording does not cut it."""

    __slots__ = ["_ag", "_grad", "_grad_req"]

    def __init__(self, ag):
        self._ag, self._grad, self._grad_req = ag, None, "null"


def _linked(a, data):
    """(input, data) as an entry keeps them: see _Link."""
    if isinstance(a, NDArray) and a._ag is not None and a._ag[0].function is None:
        return _Link(a._ag), None
    return a, data


def record_call(spec, attrs, name, inputs, datas, outputs, training):
    kept = [_linked(a, d) for a, d in zip(inputs, datas)]
    e = _Entry(spec, attrs, name, [a for a, _ in kept], [d for _, d in kept], len(outputs),
               training, seed())
    for i, o in enumerate(outputs):
        o._ag = (e, i)


# Compiled gradient graphs by (graph, shapes, dtypes, grad_req): a training
# loop records the same graph every step.
_compiled = {}


def mark_variables(variables, gradients, grad_reqs="write"):
    if isinstance(variables, NDArray):
        variables, gradients = [variables], [gradients]
    if isinstance(grad_reqs, str):
        grad_reqs = [grad_reqs] * len(variables)
    for v, g, r in zip(variables, gradients, grad_reqs):
        v._grad, v._grad_req, v._ag = g, r, None
        _set_fresh(v, False)


# NDArray._fresh_grad: whether backward() wrote the array's gradient since it
# was last cleared (by id; the entry goes with the array).
_fresh = __import__("weakref").WeakValueDictionary()


def _is_fresh(a):
    return _fresh.get(id(a)) is a


def _set_fresh(a, value):
    if value:
        _fresh[id(a)] = a
    else:
        _fresh.pop(id(a), None)


NDArray._fresh_grad = property(_is_fresh, _set_fresh,
                               doc="Whether backward() wrote .grad since it was cleared "
                                   "(MXNet's fresh-gradient flag).")


class Function:
    """MXNet's autograd.Function: an operation with a Python forward and
    backward. forward() runs outside recording; under record(), backward()
    gets the gradients of the outputs and returns those of the inputs, and
    the gradients flow on into the operations that made the inputs."""

    def __init__(self):
        self._used = False
        self.saved_tensors = ()

    def save_for_backward(self, *args):
        self.saved_tensors = args

    def forward(self, *inputs):
        raise NotImplementedError

    def backward(self, *output_grads):
        raise NotImplementedError

    def __call__(self, *inputs):
        if self._used:
            raise MXNetError("Each Function instance can only be called once. "
                             "Please create another instance.")
        self._used = True
        recording, training = is_recording(), is_training()
        with pause(train_mode=training):
            outputs = self.forward(*inputs)
        single = isinstance(outputs, NDArray)
        outs = [outputs] if single else list(outputs)
        if recording:
            # outputs that are inputs are copied: each output is its own node
            # (not recorded: the copy is the Function's output node)
            with pause(train_mode=training):
                outs = [o.copy() if any(o is a for a in inputs) else o for o in outs]
            e = _Entry(None, {}, "function", [a for a in inputs], [], len(outs), training,
                       None, function=self)
            e.out_shapes = [(o.shape, o._sig[1]) for o in outs]
            for i, o in enumerate(outs):
                o._ag = (e, i)
        return outs[0] if single else tuple(outs)


class _CrossDeviceCopy(Function):
    """x.copyto(ctx) under record() (NDArray.copyto): the copy forward, the
    output's gradient copied back to x's device."""

    def __init__(self, ctx):
        super().__init__()
        self._to = ctx

    def forward(self, x):
        self._from = x.context
        return x.copyto(self._to)

    def backward(self, dy):
        return dy.copyto(self._from)


def get_symbol(x):
    """The recorded computation of `x` as a Symbol: the arrays it was
    computed from are its variables (var0, var1, ...)."""
    import json
    from . import symbol as _symbol
    if x._ag is None:
        raise MXNetError("get_symbol: the array was not computed inside autograd.record()")
    graph, feeds, _, order, funcs = _tape_graph([x], None, set(), expand="symbol")
    graph.pop("graph_seed")
    if funcs:
        raise MXNetError("get_symbol: the computation has autograd.Function calls")
    names = {}
    for n in graph["nodes"]:
        if n["op"] == "null":
            names[n["name"]] = "var%d" % len(names)
            n["name"] = names[n["name"]]
    return _symbol.load_json(json.dumps(graph),
                             {e.name: e.subgraph for e in order if e.subgraph is not None})


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):
    """Gradients of `heads` (an NDArray or a list) into the .grad of every
    attached array they depend on; head_grads default to ones."""
    _backward(heads, head_grads, retain_graph)


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False,
         train_mode=True):
    """MXNet's autograd.grad: the gradients of `heads` with respect to
    `variables` (NDArrays computed from or marked inside record()), returned
    as new NDArrays; no .grad buffer is touched. A variable the heads do not
    depend on gets zeros. With create_graph=True the gradients are computed
    by recorded operators (see _grad_create_graph), so that they can be
    differentiated again. As MXNet 1.9.1's, the result is a list also for a
    single variable, and retain_graph defaults to create_graph."""
    from .ndarray import NDArray
    if isinstance(variables, NDArray):
        variables = [variables]
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        out = _grad_create_graph(heads, variables, head_grads, train_mode)
        if not retain_graph:
            for h in ([heads] if isinstance(heads, NDArray) else heads):
                h._ag = None
        return out
    got = _backward(heads, head_grads, bool(retain_graph), variables=variables)
    from .ndarray import _zeros_any

    def gradient(v):  # (numpy from the CPU's stages, an NDArray from a GPU's)
        if id(v) not in got:
            return _zeros_any(v.shape, v._ctx, v._sig[1])
        g = got[id(v)]
        return g if isinstance(g, NDArray) else NDArray(g, v._ctx)
    return [gradient(v) for v in variables]


def _checked_heads(heads, head_grads):
    """heads and head_grads as lists, checked: the same count, every head
    recorded."""
    if isinstance(heads, NDArray):
        heads = [heads]
    if head_grads is not None and isinstance(head_grads, NDArray):
        head_grads = [head_grads]
    if head_grads is not None and len(head_grads) != len(heads):
        raise MXNetError("backward: %d head_grads for %d heads" % (len(head_grads), len(heads)))
    for h in heads:
        if h._ag is None:
            raise MXNetError("backward: the head was not computed inside autograd.record() "
                             "from an array with attach_grad()")
    return heads, head_grads


def _backward(heads, head_grads, retain_graph, variables=None):
    """backward() and grad(): with `variables`, the gradients of exactly
    those arrays (req write) are returned as {id(array): numpy array}.

    The tape is compiled up to the autograd.Function calls it meets; their
    backward() runs after every later operation's gradients are in (the
    latest call first), and the gradients go on from their inputs."""
    heads, head_grads = _checked_heads(heads, head_grads)
    written = set()      # ids of leaves written in this call (later parts add)
    result = {}          # grad(): id(variable) -> numpy gradient
    pending = {}         # id(Function entry) -> (entry, [numpy gradient or None])

    def add_leaf(a, d):
        if isinstance(d, NDArray):  # a gradient on a GPU (pushed, not waited for)
            if variables is not None:
                result[id(a)] = result[id(a)] + d if id(a) in result else d
                return
            if a._grad_req == "add" or id(a) in written:
                d = a._grad + d.astype(a._grad.dtype, copy=False)
            d.copyto(a._grad)
            written.add(id(a))
            _set_fresh(a, True)
            return
        if variables is not None:
            if id(a) in result:
                result[id(a)] = result[id(a)] + d
            else:
                result[id(a)] = np.array(d, copy=True)
            return
        g = a._grad._data
        if a._grad_req == "add" or id(a) in written:
            g += d.astype(g.dtype, copy=False)
        else:
            np.copyto(g, d, casting="unsafe")
        written.add(id(a))
        _set_fresh(a, True)

    def is_leaf(a):
        if variables is not None:
            return any(a is v for v in variables)
        return a._grad is not None and a._grad_req != "null"

    def stage(hs, hgs):
        direct, rest, rest_g = [], [], []
        for k, h in enumerate(hs):
            g = None if hgs is None else hgs[k]
            if h._ag[0].function is not None:
                direct.append((h, g))
            else:
                rest.append(h)
                rest_g.append(g)
        for h, g in direct:
            e, i = h._ag
            if h._ctx.device_type == "gpu":  # the gradient stays on the device
                from .ndarray import _device_copy
                d = _device_copy(1, h._ctx, h._sig[1], h.shape) if g is None else \
                    _device_copy(g, h._ctx, h._sig[1])
            else:
                d = np.ones(h.shape, h._sig[1]) if g is None else np.asarray(
                    g._host_data() if isinstance(g, NDArray) else g)
            slot = pending.setdefault(id(e), (e, [None] * e.num_outputs))[1]
            slot[i] = d if slot[i] is None else slot[i] + d
        # One stage a GPU (a compiled stage runs on one device; no operator
        # mixes devices, so the heads of two GPUs share no recorded call:
        # autograd.backward([loss on gpu(0), loss on gpu(1)]), as MXNet
        # takes it); the host's heads together.
        groups = {}
        for h, g in zip(rest, rest_g):
            hs, gs = groups.setdefault(h._ctx if h._ctx.device_type == "gpu" else None, ([], []))
            hs.append(h)
            gs.append(g)
        for hs, gs in groups.values():
            got, fouts = _run_stage(hs, None if hgs is None else gs, variables, written)
            for a, d in got:
                add_leaf(a, d)
            for (e, i), d in fouts:
                slot = pending.setdefault(id(e), (e, [None] * e.num_outputs))[1]
                slot[i] = d if slot[i] is None else slot[i] + d

    stage(heads, head_grads)
    while pending:
        key = max(pending, key=lambda k: pending[k][0].seq)
        e, grads = pending.pop(key)
        gpu = next((a._ctx for a in e.inputs
                    if isinstance(a, NDArray) and a._ctx.device_type == "gpu"), None)
        if gpu is not None:  # on the device: NDArrays there
            from .ndarray import _zeros_any, _device_copy
            # (numpy: the gradient of an output on the host, a copy across
            # devices, NDArray.copyto under record())
            ogs = [_zeros_any(shape, gpu, dt) if d is None else
                   _device_copy(d, gpu, dt) if not isinstance(d, NDArray) else
                   d if d._sig[1] == dt else d.astype(dt)
                   for d, (shape, dt) in zip(grads, e.out_shapes)]
        else:
            ogs = [NDArray(np.zeros(shape, dt) if d is None else
                           np.ascontiguousarray(d, dtype=dt))
                   for d, (shape, dt) in zip(grads, e.out_shapes)]
        direct = None
        if getattr(e.function, "writes_into", False):
            # a hybridized block's backward writes a leaf's gradient straight
            # into its .grad (grad_req 'write', not yet written here)
            # (an array passed twice gets the sum of its gradients: not direct)
            seen = [id(a) for a in e.inputs]
            direct = [a._grad if variables is None and isinstance(a, NDArray) and
                      a._ag is None and is_leaf(a) and a._grad_req == "write" and
                      id(a) not in written and seen.count(id(a)) == 1 else None
                      for a in e.inputs]
        with pause(train_mode=e.training):
            if direct is not None:
                igs = e.function.backward(*ogs, out=direct)
            else:
                igs = e.function.backward(*ogs)
        igs = [igs] if isinstance(igs, NDArray) else list(igs)
        if len(igs) != len(e.inputs):
            raise MXNetError("autograd.Function: backward returned %d gradients for %d inputs"
                             % (len(igs), len(e.inputs)))
        more, more_g = [], []
        for j, (a, g) in enumerate(zip(e.inputs, igs)):
            if not isinstance(a, NDArray) or g is None:
                continue
            if direct is not None and direct[j] is not None and g is direct[j]:
                written.add(id(a))
                _set_fresh(a, True)
                continue
            if a._ag is not None:
                more.append(a)
                more_g.append(g)
            elif is_leaf(a):
                add_leaf(a, g if isinstance(g, NDArray) and g._on_gpu() else
                         np.asarray(g._host_data() if isinstance(g, NDArray) else g))
        if more:
            stage(more, more_g)
    if not retain_graph:
        for h in heads:
            h._ag = None
    if variables is not None:
        return result


def _grad_create_graph(heads, variables, head_grads, train_mode):
    """grad(create_graph=True): the compiler's training graph of the tape
    (forward + backward, written back as MXNet operators by
    _mxc.gradient_graph) is run operator by operator through mx.nd while
    recording, so the gradients are NDArrays on the tape like any other
    result and a later backward() / grad() differentiates them (the forward
    part is computed again from the tape's inputs). Gradients through an
    autograd.Function, a random operator (Dropout in training) or an
    operator whose gradient is a library kernel (Convolution, Pooling, LRN)
    raise MXNetError."""
    import json
    from .base import dtype_name
    from .ndarray import NDArray, _invoke_slow, _new
    heads, head_grads = _checked_heads(heads, head_grads)
    arrays = {}
    graph, feeds, leaves, order, fouts = _tape_graph(heads, variables, set(), arrays,
                                                    expand=True)
    graph.pop("graph_seed")
    if fouts:
        raise MXNetError("autograd.grad: create_graph=True through an autograd.Function "
                         "is not supported")
    shapes = {n: list(d.shape) for n, d in feeds.items()}
    dtypes = {n: dtype_name(d.dtype) for n, d in feeds.items()}
    text, ins, outs = _mxc.gradient_graph(json.dumps(graph), shapes, dtypes, sorted(leaves))
    g = json.loads(text)
    kinds = {name: kind for name, kind, _, _ in ins}
    head_grad_names = [name for name, kind, _, _ in ins if kind == "head_grad"]
    env = {}
    st = _st()
    saved = (st.recording, st.training)
    # recording without _Scope's new-recording reset: the node names go on
    # from the tape's (the replayed nodes and the forward ones share a graph)
    if st.seed is None:
        st.seed = fresh_seed()
    st.recording, st.training = True, bool(train_mode)
    try:
        for i, n in enumerate(g["nodes"]):
            if n["op"] == "null":
                name, kind = n["name"], kinds.get(n["name"])
                if kind == "head_grad":
                    k = head_grad_names.index(name)
                    hg = None if head_grads is None else head_grads[k]
                    # (runtime arrays, on the head's device: a GPU's operators
                    # take nothing else)
                    if hg is None:
                        hg = _new(np.ones(heads[k].shape, heads[k].dtype), heads[k]._ctx)
                    elif not isinstance(hg, NDArray):
                        hg = _new(np.asarray(hg, heads[k].dtype), heads[k]._ctx)
                    env[i] = [hg]
                elif kind == "rng_seed":
                    raise MXNetError("autograd.grad: create_graph=True through a random "
                                     "operator (Dropout or rrelu in training) is not supported")
                else:
                    env[i] = [arrays[name]]
                continue
            ins_ = []
            for src, idx, *_ in n["inputs"]:
                if idx >= len(env[src]):
                    raise MXNetError("autograd.grad: create_graph=True: node '%s' reads a "
                                     "hidden output of '%s'" % (n["name"], g["nodes"][src]["name"]))
                ins_.append(env[src][idx])
            attrs = {k: v for k, v in n.get("attrs", {}).items() if not k.startswith("__")}
            r = _invoke_slow(n["op"], ins_, attrs)
            env[i] = r if isinstance(r, list) else [r]
    finally:
        st.recording, st.training = saved
    got = {}
    for (oname, kind, _, _), (src, idx, *_) in zip(outs, g["heads"]):
        if kind == "grad":
            got[oname[:-len("_grad")]] = env[src][idx]
    by_array = {id(a): got[name] for name, a in leaves.items() if name in got}
    return [by_array[id(v)] if id(v) in by_array else
            _new(np.zeros(v.shape, v.dtype), v._ctx) for v in variables]


def predict_form(op, attrs):
    """A node as a predict-mode recording runs it: BatchNorm on the moving
    statistics, Dropout the identity (`_copy`); other nodes as they are."""
    if op == "BatchNorm":
        return op, dict(attrs, use_global_stats="True")
    if op == "Dropout":
        return "_copy", {}
    return op, dict(attrs)


def _tape_graph(heads, variables, written, arrays=None, expand=False):
    """The MXNet graph of the tape from `heads` back to the arrays they were
    computed from (variables), stopping at autograd.Function outputs (also
    variables). Returns (graph, feeds, leaves, order, function outputs);
    leaves: variable name -> array with a gradient (or one of
    `variables`); function outputs: variable name -> (entry, index).
    expand: a hybridized Gluon block's call (one entry, see
    gluon.block._RecordedCall) goes in as the graph's operators; with
    expand="symbol" (get_symbol) as MXNet shows it: its operators up to
    the block's inline_limit, else one _CachedOp node."""
    def ag(a):
        r = a._ag
        if expand and r is not None and hasattr(r[0].function, "expand"):
            r = r[0].function.expand(r[1], inline=expand != "symbol")
        return r

    # Entries reachable from the heads, inputs first.
    order, seen = [], set()
    stack = [(ag(h)[0], False) for h in heads]
    while stack:
        e, done = stack.pop()
        if done:
            order.append(e)
            continue
        if id(e) in seen:
            continue
        seen.add(id(e))
        stack.append((e, True))
        for a in e.inputs:
            r = ag(a)
            if r is not None and id(r[0]) not in seen and r[0].function is None:
                stack.append((r[0], False))

    nodes, index = [], {}       # index: id(entry) -> node index
    var_of = {}                 # id(NDArray) -> node index of its variable
    feeds = {}                  # variable name -> numpy buffer
    leaves = {}                 # variable name -> NDArray with a gradient
    fouts = {}                  # variable name -> (Function entry, output index)

    def variable(a, data):
        k = var_of.get(id(a))
        if k is None:
            name = "v%d" % len(var_of)
            k = len(nodes)
            nodes.append({"op": "null", "name": name, "inputs": []})
            var_of[id(a)] = k
            feeds[name] = data
            if arrays is not None:
                arrays[name] = a
            r = ag(a)
            if r is not None and r[0].function is not None:
                fouts[name] = r
            elif variables is not None:
                if any(a is v for v in variables):
                    leaves[name] = a
            elif a._grad is not None and a._grad_req != "null":
                leaves[name] = a
        return k

    for e in order:
        ins = []
        for j, (a, data) in enumerate(zip(e.inputs, e.datas)):
            r = ag(a)
            if r is not None and r[0].function is not None:
                data = a.detach() if a._on_gpu() else a._np
            if r is not None and id(r[0]) in index:
                ins.append([index[id(r[0])], r[1], 0])
            else:
                ins.append([variable(a, data), 0, 1 if j in e.spec.aux_inputs else 0])
        op, attrs = e.spec.name, dict(e.attrs)
        if not e.training:  # recorded in predict mode
            op, attrs = predict_form(op, attrs)
        node = {"op": op, "name": e.name, "inputs": ins}
        if attrs:
            node["attrs"] = attrs
        index[id(e)] = len(nodes)
        nodes.append(node)
    graph = {"nodes": nodes,
             "arg_nodes": [i for i, n in enumerate(nodes) if n["op"] == "null"],
             "heads": [[index[id(ag(h)[0])], ag(h)[1], 0] for h in heads],
             "attrs": {"mxnet_version": ["int", 10901]}}
    seeds = {e.seed for e in order if e.spec.name == "Dropout" and e.training}
    if len(seeds) > 1:
        raise MXNetError("backward: the heads depend on Dropout calls of different "
                         "autograd.record() scopes")
    graph["graph_seed"] = seeds.pop() if seeds else 0
    return graph, feeds, leaves, order, fouts


def _push_stage(compiled, ctx, head_grads, graph_seed, feeds, leaves, fouts):
    """_run_stage on a GPU: the gradient graph pushed on device arrays; the
    gradients are new device arrays (NDArrays, not waited for)."""
    from .ndarray import _device_copy, _new_rt
    from .base import np_dtype
    ins, k = [], 0
    for name, kind, shape, dt in compiled.inputs:
        dtype = np_dtype(dt)
        if kind == "head_grad":
            g = None if head_grads is None else head_grads[k]
            k += 1
            if g is not None and tuple(np.shape(g)) != tuple(shape):
                raise MXNetError("backward: head_grads[%d] has shape %s, the head %s"
                                 % (k - 1, tuple(np.shape(g)), tuple(shape)))
            a = _device_copy(1 if g is None else g, ctx, dtype, shape)
        elif kind == "rng_seed":
            a = _device_copy(graph_seed, ctx, dtype, shape)
        else:
            a = feeds[name]
        ins.append(a._rt)
    outs, grads = [], []
    for name, kind, shape, dt in compiled.outputs:
        o = _new_rt(tuple(shape), np_dtype(dt), ctx)
        outs.append(o._rt)
        if kind == "grad":
            grads.append((name[:-len("_grad")], o))
    compiled.push(ins, outs)  # ordered after the recorded calls by the arrays' variables
    got = [(leaves[name], d) for name, d in grads if name in leaves]
    return got, [(fouts[name], d) for name, d in grads if name in fouts]


def _run_stage(heads, head_grads, variables, written):
    """One compiled part of _backward: [(leaf, gradient)] and
    [((Function entry, output index), gradient)] (numpy)."""
    import json
    from .base import compile_graph, dtype_name, np_dtype
    graph, feeds, leaves, order, fouts = _tape_graph(heads, variables, written)
    graph_seed = graph.pop("graph_seed")
    shapes = {n: list(d.shape) for n, d in feeds.items()}
    dtypes = {n: dtype_name(d.dtype) for n, d in feeds.items()}
    # A tape of GPU arrays (each recorded call's arrays are on one device,
    # and copies between devices are not recorded: a stage is on one).
    gpu = next((d._ctx for d in feeds.values() if isinstance(d, NDArray)), None)
    wrt = sorted(list(leaves) + list(fouts))
    # (a leaf written by an earlier part of this backward adds: done by the
    # caller; here every gradient is computed on its own)
    reqs = ["%s=write" % n for n in wrt]
    text = json.dumps(graph)
    key = (text, tuple(sorted((n, tuple(v)) for n, v in shapes.items())),
           tuple(sorted(dtypes.items())), tuple(reqs), str(gpu))
    compiled = _compiled.get(key)
    if compiled is None:
        options = {}
        if gpu is not None:
            from .ndarray import _cuda_arch
            options["cuda_arch"] = _cuda_arch(gpu)
        compiled = compile_graph(text, shapes, dtypes,
                                 "gradient of %d recorded operators" % len(order),
                                 train=True, wrt=wrt, grad_req=reqs or ["null"], **options)
        _compiled[key] = compiled
    if gpu is not None:
        return _push_stage(compiled, gpu, head_grads, graph_seed, feeds, leaves, fouts)
    ins, k = [], 0
    for name, kind, shape, dt in compiled.inputs:
        if kind == "head_grad":
            g = None if head_grads is None else head_grads[k]
            k += 1
            d = np.ones(tuple(shape), np_dtype(dt)) if g is None else \
                np.ascontiguousarray(g._host_data() if isinstance(g, NDArray) else g,
                                     dtype=np_dtype(dt))
        elif kind == "rng_seed":
            d = np.array([graph_seed], dtype=np_dtype(dt))
        else:
            d = feeds[name]
        ins.append(d if d.flags.c_contiguous else np.ascontiguousarray(d))
    outs, grads = [], []
    for name, kind, shape, dt in compiled.outputs:
        d = np.empty(tuple(shape), dtype=np_dtype(dt))
        outs.append(d)
        if kind == "grad":
            grads.append((name[:-len("_grad")], d))
    # The recorded inputs are numpy views of runtime arrays that engine
    # operations may still be writing: a barrier first.
    _mxc.engine_wait_all()
    compiled.run(ins, outs)
    got = [(leaves[name], d) for name, d in grads if name in leaves]
    return got, [(fouts[name], d) for name, d in grads if name in fouts]
