"""mx.sym: symbolic graphs, MXNet 1.x's Symbol API.

A Symbol is a list of outputs of graph nodes. Every operator of the mx
dialect is a function here with MXNet's keyword attributes; inputs left out
become variables named '<node>_<input>' (fc1_weight), as MXNet creates them.
tojson() writes MXNet 1.9.1's layout byte for byte (the compiler's Graph
writer), and the argument / output lists and shape inference come from the
compiler, so they are what the compiler will compile.
"""
import json
import math as _math
import builtins as _builtins

import numpy as np

from . import _mxc
from . import _ops
from .attribute import AttrScope
from .base import MXNetError, NameManager, NotImplementedForSymbol, dtype_name, np_dtype

__all__ = ["Symbol", "Variable", "var", "Group", "load", "load_json"]

# MXNet's numeric dtype flags, as Variable(dtype=) stores them in __dtype__.
_DTYPE_FLAG = {"float32": 0, "float64": 1, "float16": 2, "uint8": 3, "int32": 4,
               "int8": 5, "int64": 6, "bool": 7}
_FLAG_DTYPE = {str(v): k for k, v in _DTYPE_FLAG.items()}


# MXNet's hidden keys: stored as __key__, also shown as key (c_api_symbolic.cc).
_HIDDEN_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage",
                "profiler_scope")


def _shown_attrs(attrs):
    out = dict(attrs)
    for k in _HIDDEN_KEYS:
        if "__%s__" % k in attrs:
            out[k] = attrs["__%s__" % k]
    return out


def _hidden(attrs):
    """attr= / AttrScope strings as MXNet stores them (MXSymbolSetAttr):
    a bare hidden key (lr_mult) becomes __lr_mult__, the rest stay."""
    return {("__%s__" % k if k in _HIDDEN_KEYS else k): str(v) for k, v in attrs.items()}


class _Node:
    """A graph node: op ('null' for a variable), name, MXNet attribute
    strings, inputs as (node, output index, version) and the output count."""

    __slots__ = ["op", "name", "attrs", "inputs", "num_outputs", "subgraph", "subgraphs"]

    def __init__(self, op, name, attrs=None, inputs=(), num_outputs=1, subgraph=None,
                 subgraphs=None):
        self.op = op
        self.name = name
        self.attrs = dict(attrs or {})
        self.inputs = list(inputs)
        self.num_outputs = num_outputs
        # a _CachedOp node (autograd.get_symbol of a hybridized block's call
        # above its inline_limit): (the block's Symbol, the names of its
        # variables in the order of the node's inputs)
        self.subgraph = subgraph
        # a control-flow node's graphs (_foreach: its body; _while_loop: cond,
        # func; _cond: cond, then, else), as Symbols; the compiler unrolls them
        self.subgraphs = list(subgraphs) if subgraphs else []

    def copy(self, inputs, name=None, attrs=None):
        """This node on other inputs (and with another name / attributes):
        every other field, its graphs included, the same."""
        return _Node(self.op, self.name if name is None else name,
                     self.attrs if attrs is None else attrs, inputs, self.num_outputs,
                     self.subgraph, self.subgraphs)

    def visible_outputs(self):
        if self.op == "null":
            return 1
        spec = _ops.OP_NAMES.get(self.op)
        if spec is None:
            return self.num_outputs
        return spec.visible_outputs(self.attrs)


def _amp_multicast_types(types, attrs):
    """amp_multicast's output types for its input types (MXNet's
    AMPMultiCastType; the compiler's rule is AmpMulticastOp's)."""
    low = ("float32", "float16", "bfloat16")
    narrow = str(attrs.get("cast_narrow", "False")).lower() in ("true", "1")
    common = "float32" if narrow else types[0]
    for t in types:
        if (not narrow and t == "float32") or (narrow and t in ("float16", "bfloat16")):
            common = t
    return [common if t in low else t for t in types]


def _post_order(heads, follow=None):
    """Nodes reached from `heads`, inputs first (nnvm's DFSVisit order);
    with `follow`, only nodes for which it holds are visited (and
    followed)."""
    order, seen = [], set()
    for head, _ in heads:
        if id(head) in seen or (follow is not None and not follow(head)):
            continue
        stack = [(head, 0)]
        seen.add(id(head))
        while stack:
            node, i = stack.pop()
            if i < len(node.inputs):
                stack.append((node, i + 1))
                child = node.inputs[i][0]
                if id(child) not in seen and (follow is None or follow(child)):
                    seen.add(id(child))
                    stack.append((child, 0))
            else:
                order.append(node)
    return order


def _inline_cached_ops(heads):
    """`heads` with every _CachedOp node that has its graph replaced by a
    copy of that graph's operators (named '<node>_<operator>') on the
    node's inputs; the same list when there is none."""
    nodes = _post_order(heads)
    if not any(n.subgraph is not None for n in nodes):
        return heads
    new = {}  # id(node) -> its copy, or a _CachedOp's output entries

    def entry(src, i):
        got = new[id(src)]
        return got[i] if isinstance(got, list) else (got, i)

    for n in nodes:
        if n.op == "null":
            new[id(n)] = n
            continue
        ins = [entry(src, i) + (v,) for src, i, v in n.inputs]
        if n.subgraph is None:
            new[id(n)] = n.copy(ins)
            continue
        sym, names = n.subgraph
        by_name = dict(zip(names, ins))
        inner = {}
        for m in _post_order(_inline_cached_ops(sym._outputs)):
            if m.op == "null":
                inner[id(m)] = by_name[m.name]
                continue
            m_ins = []
            for src, i, v in m.inputs:
                if src.op == "null":
                    m_ins.append(inner[id(src)])
                else:
                    m_ins.append((inner[id(src)], i, v))
            inner[id(m)] = m.copy(m_ins, name="%s_%s" % (n.name, m.name))
        new[id(n)] = [inner[id(m)][:2] if m.op == "null" else (inner[id(m)], i)
                      for m, i in sym._outputs]
    return [entry(n, i) for n, i in heads]


def _graph_dict(heads, cached_ops=False):
    """nnvm's graph object (nodes, arg_nodes, node_row_ptr, heads) of the
    graph that `heads` reach; a control-flow node's graphs are written as its
    "subgraphs", as nnvm writes them."""
    heads = heads if cached_ops else _inline_cached_ops(heads)
    nodes = _post_order(heads)
    index = {id(n): i for i, n in enumerate(nodes)}
    out, row = [], [0]
    for n in nodes:
        d = {"op": n.op, "name": n.name}
        if n.attrs:
            d["attrs"] = n.attrs
        d["inputs"] = [[index[id(src)], i, v] for src, i, v in n.inputs]
        if n.subgraphs:
            d["subgraphs"] = [_graph_dict(g._outputs, cached_ops) for g in n.subgraphs]
        out.append(d)
        row.append(row[-1] + n.num_outputs)
    return {
        "nodes": out,
        "arg_nodes": [i for i, n in enumerate(nodes) if n.op == "null"],
        "node_row_ptr": row,
        "heads": [[index[id(n)], i, 0] for n, i in heads],
    }


class Symbol:
    """One or more outputs of a graph (MXNet 1.x mx.sym.Symbol)."""

    # numpy defers binary operators with a Symbol on the right to us.
    __array_priority__ = 1000.0

    def __init__(self, outputs):
        self._outputs = list(outputs)  # [(node, index)]

    # -- graph text ---------------------------------------------------------
    def _raw_json(self, cached_ops=False):
        """The graph as symbol JSON; _CachedOp nodes inlined (their blocks'
        operators, as the compiler and the graph layer take the graph)
        unless cached_ops (tojson: as MXNet writes them, without their
        graph)."""
        graph = _graph_dict(self._outputs, cached_ops)
        graph["attrs"] = _graph_attrs()
        return json.dumps(graph)

    def tojson(self):
        """The graph as MXNet 1.9.1's symbol JSON (byte-identical to what
        MXNet writes for the same graph)."""
        return _mxc.normalize_json(self._raw_json(cached_ops=True))

    def save(self, fname, remove_amp_cast=True):
        from .base import atomic_write_bytes
        atomic_write_bytes(fname, self.tojson(), mode="w")

    def _lists(self):
        lists = _mxc.graph_lists(self._raw_json())
        if not _has_custom(self._outputs):
            return lists
        # The compiler does not know a Python custom operator: its auxiliary
        # states and output names come from its CustomOpProp.
        aux_vars, out_names = set(), {}
        for n in _post_order(self._outputs):
            if n.op != "Custom":
                continue
            prop = _custom_prop(n)
            n_args = len(prop.list_arguments())
            for src, _, _ in n.inputs[n_args:]:
                if src.op == "null":
                    aux_vars.add(src.name)
            out_names[id(n)] = ["%s_%s" % (n.name, o) for o in prop.list_outputs()]
        lists = dict(lists)
        args = list(lists["arguments"])
        lists["arguments"] = [a for a in args if a not in aux_vars]
        lists["auxiliary_states"] = list(lists["auxiliary_states"]) + \
            [a for a in args if a in aux_vars]
        lists["outputs"] = [out_names[id(n)][i] if id(n) in out_names else o
                            for (n, i), o in zip(self._outputs, lists["outputs"])]
        return lists

    # -- introspection --------------------------------------------------------
    @property
    def name(self):
        if len(self._outputs) != 1:
            return None
        return self._outputs[0][0].name

    def list_arguments(self):
        return list(self._lists()["arguments"])

    def list_outputs(self):
        return list(self._lists()["outputs"])

    def list_auxiliary_states(self):
        return list(self._lists()["auxiliary_states"])

    def list_inputs(self):
        return [n.name for n in _post_order(self._outputs) if n.op == "null"]

    def attr(self, key):
        """The node's attribute `key` (hidden keys such as lr_mult also by
        their bare name, as MXNet answers)."""
        if len(self._outputs) != 1:
            return None
        attrs = self._outputs[0][0].attrs
        if key in attrs:
            return attrs[key]
        if key in _HIDDEN_KEYS:
            return attrs.get("__%s__" % key)
        return None

    def list_attr(self, recursive=False):
        """The node's attributes; hidden keys MXNet knows (lr_mult, wd_mult,
        ctx_group, ...) are listed under their bare name too, as MXNet does."""
        if recursive:
            raise MXNetError("list_attr(recursive=True) is deprecated; use attr_dict()")
        return _shown_attrs(self._outputs[0][0].attrs)

    def attr_dict(self):
        return {n.name: _shown_attrs(n.attrs) for n in _post_order(self._outputs) if n.attrs}

    def get_internals(self):
        """Every output of every node (visible outputs), in graph order."""
        outs = []
        for n in _post_order(self._outputs):
            outs.extend((n, i) for i in range(n.visible_outputs()))
        return Symbol(outs)

    def _gen_atomic_symbol(self):
        """MXNet's MXGenAtomicSymbolFromSymbol: a symbol of the head node's
        operator with its attributes and no inputs (composed later)."""
        node = _single(self if len(self._outputs) == 1 else Symbol(self._outputs[:1]),
                       "_gen_atomic_symbol")[0]
        if node.op == "null":
            raise MXNetError("_gen_atomic_symbol: '%s' is a variable, not an operator" % node.name)
        atom = _Node(node.op, node.name, node.attrs, (), node.num_outputs)
        return Symbol([(atom, i) for i in range(atom.visible_outputs())])

    def get_children(self):
        """The inputs of the symbol's output nodes (each node once, in output
        order), as nnvm's Symbol::GetChildren; None for variables."""
        ins, seen = [], set()
        for node, _ in self._outputs:
            if id(node) in seen:
                continue
            seen.add(id(node))
            ins.extend((src, i) for src, i, _ in node.inputs)
        return Symbol(ins) if ins else None

    def __call__(self, *args, **kwargs):
        """A copy of the symbol composed with other symbols: its variables
        replaced by `args` (in list_inputs order) or by name (`kwargs`);
        name= renames the head, as MXNet's compose."""
        s = self.__copy__()
        s._compose(*args, **kwargs)
        return s

    def _compose(self, *args, **kwargs):
        """In place: MXNet's Symbol._compose (see __call__)."""
        name = kwargs.pop("name", None)
        if args and kwargs:
            raise TypeError("compose only accept input Symbols either as positional or "
                            "keyword arguments, not both")
        for what, v in list(enumerate(args)) + list(kwargs.items()):
            if not isinstance(v, Symbol):
                raise TypeError("compose expects Symbols, got %s for %r" % (type(v), what))
            if len(v._outputs) != 1:
                raise MXNetError("compose: argument %r has %d outputs, a single one is "
                                 "required" % (what, len(v._outputs)))
        nodes = _post_order(self._outputs)
        variables = [n for n in nodes if n.op == "null"]
        if len(args) > len(variables):
            raise MXNetError("compose: %d arguments for %d inputs" % (len(args), len(variables)))
        by_id = {id(v): a._outputs[0] for v, a in zip(variables, args)}
        names = {v.name for v in variables}
        for k in kwargs:
            if k not in names:
                raise MXNetError("compose: keyword argument name %s not found (inputs: %s)"
                                 % (k, ", ".join(sorted(names))))
        for v in variables:
            if v.name in kwargs:
                by_id[id(v)] = kwargs[v.name]._outputs[0]
        copies = {}
        for n in nodes:  # inputs first: copy every operator node
            if n.op == "null":
                continue
            c = n.copy([])
            for src, i, ver in n.inputs:
                if id(src) in by_id:
                    src, i = by_id[id(src)]
                elif id(src) in copies:
                    src = copies[id(src)]
                c.inputs.append((src, i, ver))
            copies[id(n)] = c
        outs = []
        for n, i in self._outputs:
            if id(n) in by_id:
                outs.append(by_id[id(n)])
            else:
                outs.append((copies.get(id(n), n), i))
        if name:
            head = outs[0][0]
            if id(head) not in {id(c) for c in copies.values()}:
                head = head.copy(head.inputs)
                outs[0] = (head, outs[0][1])
            head.name = name
        self._outputs = outs

    def __len__(self):
        return len(self._outputs)

    def __bool__(self):
        # As MXNet: a symbol has no truth value (only NDArrays do).
        raise NotImplementedForSymbol(self.__bool__, "bool")

    def __iter__(self):
        return (Symbol([o]) for o in self._outputs)

    def __getitem__(self, index):
        if isinstance(index, str):
            names = self.list_outputs()
            matches = [i for i, n in enumerate(names) if n == index]
            if not matches:
                raise MXNetError("no output named '%s' (outputs: %s)" % (index, ", ".join(names)))
            if len(matches) > 1:
                raise MXNetError("more than one output is named '%s'" % index)
            index = matches[0]
        if isinstance(index, _builtins.slice):
            return Symbol(self._outputs[index])
        if not -len(self._outputs) <= index < len(self._outputs):
            raise IndexError("output index %d out of range (%d outputs)" % (index, len(self._outputs)))
        return Symbol([self._outputs[index]])

    def __repr__(self):
        if len(self._outputs) == 1:
            return "<Symbol %s>" % self.name
        return "<Symbol group [%s]>" % ", ".join(n.name for n, _ in self._outputs)

    def __copy__(self):
        return Symbol(self._outputs)

    def __deepcopy__(self, memo):
        return load_json(self.tojson())

    def __reduce__(self):
        return (load_json, (self.tojson(),))

    # -- shape and type inference ---------------------------------------------
    def _variables(self):
        return {n.name: n for n in _post_order(self._outputs) if n.op == "null"}

    def _infer(self, shapes, dtypes):
        variables = self._variables()
        for name in list(shapes) + list(dtypes):
            if name not in variables:
                raise MXNetError("'%s' is not an input of the symbol (inputs: %s)"
                                 % (name, ", ".join(variables)))
        if _has_custom(self._outputs):
            return self._infer_custom(shapes, dtypes)
        dt = {n: _FLAG_DTYPE[v.attrs["__dtype__"]] for n, v in variables.items()
              if v.attrs.get("__dtype__") in _FLAG_DTYPE}
        dt.update(dtypes)
        sym = self._with_creation_shapes(shapes)
        try:
            ins, outs = _mxc.infer(sym._raw_json(), shapes, dt)
        except MXNetError as e:
            # Extents the compiler's forward inference cannot reach (a
            # variable known only from what it feeds, a 0 extent given):
            # MXNet's partial inference completes them, then the compiler
            # checks the whole graph again.
            more = self._completed_shapes(shapes, e)
            if more is None:
                raise
            ins, outs = _mxc.infer(self._with_creation_shapes(more)._raw_json(), more, dt)
        by_name = {name: (tuple(shape), dtype) for name, _, shape, dtype in ins}
        return by_name, [(tuple(s), d) for _, s, d in outs]

    def _with_creation_shapes(self, shapes):
        """This symbol, or a copy whose creation operators with unknown
        extents (mx.sym.ones(shape=(2, -1))) have the shapes partial
        inference gives them from what they feed (the compiler needs them
        whole)."""
        heads = _inline_cached_ops(self._outputs)
        done = _complete_creation_shapes(heads, shapes)
        return self if done is heads else Symbol(done)

    def _infer_custom(self, shapes, dtypes):
        """_infer for a graph with Python custom operators, which the
        compiler cannot see into: MXNet's partial shape inference (the
        custom operators' own infer_shape) and the Python type rules
        (their infer_type)."""
        variables, heads = _partial_shapes(_inline_cached_ops(self._outputs),
                                           {k: tuple(v) for k, v in shapes.items()})
        missing = [n for n, v in variables.items() if not _complete(v)]
        if missing or not all(_complete(h) for h in heads):
            raise MXNetError("cannot infer the shape of %s: shape inference is incomplete "
                             "(give its shape)" % (", ".join(missing) or "an output"))
        arg_t, out_t, aux_t = self._infer_type((), dict(dtypes), partial=True)
        names = self.list_arguments() + self.list_auxiliary_states()
        types = {n: dtype_name(t) if t is not None else "float32"
                 for n, t in zip(names, list(arg_t) + list(aux_t))}
        by_name = {n: (tuple(v), types.get(n, "float32")) for n, v in variables.items()}
        outs = [(tuple(h), dtype_name(t) if t is not None else "float32")
                for h, t in zip(heads, out_t)]
        return by_name, outs

    def _completed_shapes(self, shapes, error):
        """`shapes` with every variable shape partial inference completes,
        when that is more than `shapes` gave; else None."""
        if not _incomplete(error):
            return None
        try:
            variables, _ = _partial_shapes(_inline_cached_ops(self._outputs), shapes)
        except MXNetError:
            return None
        more = {n: list(v) for n, v in variables.items() if _complete(v)}
        if any(n not in more for n in shapes) or \
                all(list(shapes.get(n, ())) == v for n, v in more.items()):
            return None  # a given shape left partial, or nothing new
        return more

    def _shape_kwargs(self, args, kwargs):
        shapes = {}
        if args:
            names = self.list_arguments()
            for n, s in zip(names, args):
                if s is not None:
                    shapes[n] = s
        for k, v in kwargs.items():
            # as MXNet's infer_shape / simple_bind: only tuple (and list)
            # values are shapes; others (simple_bind(..., axis=1), or
            # args_grad=[arrays], which MXNet 1.x's simple_bind ignores) are
            # not
            if isinstance(v, (tuple, list, np.ndarray)) and (
                    isinstance(v, tuple) or len(v)) and all(
                    isinstance(d, (int, np.integer)) for d in v):
                shapes[k] = v
        return {k: [int(d) for d in v] for k, v in shapes.items()}

    def _infer_shapes(self, shapes):
        """_infer for shapes alone. MXNet's infer_shape does not look at
        types: a variable whose type only what it feeds determines (float64
        beside a float64 constant) must not fail it as float32, so on a type
        conflict the variables take the types infer_type_partial gives."""
        try:
            return self._infer(shapes, {})
        except MXNetError as e:
            if "element type" not in str(e):
                raise
            arg_t, _, aux_t = self.infer_type_partial()
            names = self.list_arguments() + self.list_auxiliary_states()
            types = {n: dtype_name(t) for n, t in zip(names, list(arg_t) + list(aux_t))
                     if t is not None}
            if not types:
                raise
            return self._infer(shapes, types)

    def infer_shape(self, *args, **kwargs):
        """(arg_shapes, out_shapes, aux_shapes) in list_arguments /
        list_outputs / list_auxiliary_states order; (None, None, None) when
        the shapes given do not determine every argument."""
        for k, v in kwargs.items():
            if not isinstance(v, (tuple, list)):
                raise TypeError("Arguments need to be shapes (tuple), but '%s' is %s."
                                % (k, type(v)))
        shapes = self._shape_kwargs(args, kwargs)
        try:
            by_name, outs = self._infer_shapes(shapes)
        except MXNetError as e:
            if _incomplete(e):
                return None, None, None
            raise
        return ([by_name[n][0] for n in self.list_arguments()],
                [s for s, _ in outs],
                [by_name[n][0] for n in self.list_auxiliary_states()])

    def infer_shape_partial(self, *args, **kwargs):
        """infer_shape where the given shapes may be partial (0, or -1 under
        mx.np_shape(), for an unknown extent) and the result may be: an
        unknown extent is 0 (-1), an unknown shape () (None)."""
        from .util import is_np_shape
        np_mode = is_np_shape()
        shapes = self._shape_kwargs(args, kwargs)
        if np_mode:
            shapes = {k: [0 if d < 0 else d for d in v] for k, v in shapes.items()}
        try:
            by_name, outs = self._infer_shapes(shapes)
            return ([by_name[n][0] for n in self.list_arguments()],
                    [s for s, _ in outs],
                    [by_name[n][0] for n in self.list_auxiliary_states()])
        except MXNetError as e:
            if not _incomplete(e):
                raise
        variables, heads = _partial_shapes(_inline_cached_ops(self._outputs), shapes)

        def show(shape):
            if shape is None:
                return None if np_mode else ()
            return tuple(-1 if np_mode and d == 0 else d for d in shape)

        return ([show(variables.get(n)) for n in self.list_arguments()],
                [show(v) for v in heads],
                [show(variables.get(n)) for n in self.list_auxiliary_states()])

    def infer_type_partial(self, *args, **kwargs):
        """infer_type, with None for the types the given ones do not
        determine (instead of (None, None, None))."""
        return self._infer_type(args, kwargs, partial=True)

    def infer_type(self, *args, **kwargs):
        return self._infer_type(args, kwargs, partial=False)

    def _infer_type(self, args, kwargs, partial):
        """(arg_types, out_types, aux_types) as numpy types. Types propagate
        through the graph as MXNet's rules do for the wave-1 operators: an
        operator's inputs and outputs share one type, except Cast and
        one_hot (their dtype attribute) and argmax (float32 for float
        inputs)."""
        types = {}
        if args:
            for n, t in zip(self.list_arguments(), args):
                if t is not None:
                    types[n] = dtype_name(t)
        for k, t in kwargs.items():
            if t is not None:
                types[k] = dtype_name(t)
        known = {}
        nodes = _post_order(self._outputs)
        for n in nodes:
            if n.op == "null":
                if n.name in types:
                    known[(id(n), 0)] = types[n.name]
                elif n.attrs.get("__dtype__") in _FLAG_DTYPE:
                    known[(id(n), 0)] = _FLAG_DTYPE[n.attrs["__dtype__"]]
        for _ in range(2):  # forward, then again after back-filled variables
            for n in nodes:
                if n.op == "null":
                    continue
                ins = [known.get((id(s), i)) for s, i, _ in n.inputs]
                t = next((x for x in ins if x is not None), None)
                if n.op == "where" and len(ins) == 3:
                    t = ins[1] or ins[2]
                if n.op == "Custom":  # the operator's own infer_type
                    prop = _custom_prop(n)
                    n_args = len(prop.list_arguments())
                    if all(x is not None for x in ins[:n_args]):
                        got = prop.infer_type([np_dtype(x) for x in ins[:n_args]])
                        for k, x in enumerate(got[1]):
                            known[(id(n), k)] = dtype_name(x)
                        for (src, i, _), x in zip(n.inputs, list(got[0]) + list(
                                got[2] if len(got) > 2 else [])):
                            known.setdefault((id(src), i), dtype_name(x))
                    continue
                spec = _ops.OP_NAMES.get(n.op)
                if spec is not None and not spec.inputs and "dtype" in spec.attrs:
                    # a creation operator: its dtype attribute (or the default)
                    known[(id(n), 0)] = n.attrs.get("dtype", spec.attrs["dtype"]["default"])
                    continue
                if spec is not None and spec.name == "BatchNorm" and ins and ins[0] in (
                        "float16", "bfloat16"):
                    # BatchNormType: the parameters, moving statistics and the
                    # mean / var outputs of float16 data are float32 (AccReal)
                    for s_, i, _ in n.inputs[1:]:
                        if s_.op == "null":
                            known.setdefault((id(s_), i), "float32")
                    known[(id(n), 0)] = ins[0]
                    for k in range(1, n.num_outputs):
                        known[(id(n), k)] = "float32"
                    continue
                if n.op == "amp_multicast":  # a type an output (AMPMultiCastType)
                    if all(x is not None for x in ins):
                        for k, x in enumerate(_amp_multicast_types(ins, n.attrs)):
                            known[(id(n), k)] = x
                    continue
                if t is None:
                    if n.op == "Cast":  # its type does not depend on the input's
                        for k in range(n.num_outputs):
                            known[(id(n), k)] = n.attrs["dtype"]
                    continue
                for s, i, _ in n.inputs:
                    if s.op == "null" and (id(s), i) not in known and n.op != "where":
                        known[(id(s), i)] = t
                out = t
                if n.op == "Cast":
                    out = n.attrs["dtype"]
                elif n.op == "amp_cast" and t in ("float32", "float16", "bfloat16"):
                    out = n.attrs["dtype"]  # AMPCastType: other types pass through
                elif n.op == "one_hot":
                    out = n.attrs.get("dtype", "float32")
                for k in range(n.num_outputs):
                    known[(id(n), k)] = out
        variables = {n.name: n for n in nodes if n.op == "null"}

        def get(name):
            t = known.get((id(variables[name]), 0))
            return None if t is None else np_dtype(t).type

        outs = [known.get((id(n), i)) for n, i in self._outputs]
        if any(t is None for t in outs) and not partial:
            return None, None, None
        return ([get(n) for n in self.list_arguments()],
                [None if t is None else np_dtype(t).type for t in outs],
                [get(n) for n in self.list_auxiliary_states()])

    # -- binding -----------------------------------------------------------------
    def simple_bind(self, ctx, grad_req="write", type_dict=None, stype_dict=None,
                    group2ctx=None, shared_arg_names=None, shared_exec=None,
                    shared_buffer=None, **kwargs):
        """An Executor with arrays allocated (zeros) for the shapes given as
        keywords and the ones inferred from them. group2ctx ({ctx_group:
        Context}, MXNet's model parallelism) places the nodes made under
        mx.AttrScope(ctx_group=...) and their variables' arrays on that
        group's context: over GPUs the graph runs in stages, one a device
        (mxc._model_parallel); over CPUs (one host memory) as one."""
        from .executor import Executor
        return Executor._simple_bind(self, ctx, grad_req, type_dict or {}, kwargs,
                                     group2ctx)

    def bind(self, ctx, args, args_grad=None, grad_req="write", aux_states=None,
             group2ctx=None, shared_exec=None):
        """An Executor on the given arrays (list in list_arguments order, or
        dict by name); the executor reads them at each forward(). group2ctx
        is not taken here: the graph runs on ctx (simple_bind places it)."""
        from .executor import Executor
        return Executor._bind(self, ctx, args, args_grad, grad_req, aux_states)

    def eval(self, ctx=None, **kwargs):
        from .context import cpu
        exe = self.bind(ctx or cpu(), kwargs)
        return exe.forward()

    # -- operators -----------------------------------------------------------------
    def _binary(self, other, sym_op, sym_hint, scalar_op, scalar_hint):
        if isinstance(other, Symbol):
            return _create(sym_op, [self, other], {}, None, sym_hint)
        if isinstance(other, (int, float, bool, np.number, np.bool_)):
            return _create(scalar_op, [self], {"scalar": other}, None, scalar_hint)
        return NotImplemented

    def _rscalar(self, other, scalar_op, scalar_hint):
        if isinstance(other, (int, float, bool, np.number, np.bool_)):
            return _create(scalar_op, [self], {"scalar": other}, None, scalar_hint)
        return NotImplemented

    def __add__(self, o):
        return self._binary(o, "elemwise_add", "_plus", "_plus_scalar", "_plusscalar")

    def __radd__(self, o):
        return self._rscalar(o, "_plus_scalar", "_plusscalar")

    def __sub__(self, o):
        return self._binary(o, "elemwise_sub", "_minus", "_minus_scalar", "_minusscalar")

    def __rsub__(self, o):
        return self._rscalar(o, "_rminus_scalar", "_rminusscalar")

    def __mul__(self, o):
        return self._binary(o, "elemwise_mul", "_mul", "_mul_scalar", "_mulscalar")

    def __rmul__(self, o):
        return self._rscalar(o, "_mul_scalar", "_mulscalar")

    def __truediv__(self, o):
        return self._binary(o, "elemwise_div", "_div", "_div_scalar", "_divscalar")

    def __rtruediv__(self, o):
        return self._rscalar(o, "_rdiv_scalar", "_rdivscalar")

    __div__ = __truediv__
    __rdiv__ = __rtruediv__

    def __pow__(self, o):
        # MXNet writes _power for Symbol ** Symbol; the mx dialect has
        # broadcast_power (same values for equal shapes).
        return self._binary(o, "broadcast_power", "_power", "_power_scalar", "_powerscalar")

    def __rpow__(self, o):
        return self._rscalar(o, "_rpower_scalar", "_rpower_scalar")

    def astype(self, dtype, name=None, attr=None, **kwargs):
        """MXNet's fluent astype: a Cast node."""
        return _create("Cast", [self], {"dtype": dtype_name(dtype)}, name, "cast", attr=attr)

    def __mod__(self, o):
        return self._binary(o, "_mod", "_mod", "_mod_scalar", "_modscalar")

    def __rmod__(self, o):
        return self._rscalar(o, "_rmod_scalar", "_rmodscalar")

    def __neg__(self):
        return self.__mul__(-1.0)

    def __abs__(self):
        return _create("abs", [self], {}, None, "abs")

    # Symbol (op) Symbol comparisons: MXNet writes _equal, _greater, ...;
    # the mx dialect has their broadcast_ forms.
    def __eq__(self, o):
        return self._binary(o, "broadcast_equal", "_equal", "_equal_scalar", "_equal_scalar")

    def __ne__(self, o):
        return self._binary(o, "broadcast_not_equal", "_not_equal",
                            "_not_equal_scalar", "_not_equal_scalar")

    def __gt__(self, o):
        return self._binary(o, "broadcast_greater", "_greater",
                            "_greater_scalar", "_greater_scalar")

    def __ge__(self, o):
        return self._binary(o, "broadcast_greater_equal", "_greater_equal",
                            "_greater_equal_scalar", "_greater_equal_scalar")

    def __lt__(self, o):
        return self._binary(o, "broadcast_lesser", "_lesser",
                            "_lesser_scalar", "_lesser_scalar")

    def __le__(self, o):
        return self._binary(o, "broadcast_lesser_equal", "_lesser_equal",
                            "_lesser_equal_scalar", "_lesser_equal_scalar")

    __hash__ = object.__hash__


# -- construction ----------------------------------------------------------------

def Variable(name, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None,
             init=None, stype=None, **kwargs):
    """A variable (graph input). shape, dtype, lr_mult, wd_mult, init and
    extra keywords are stored as MXNet's hidden attributes (__shape__, ...)."""
    if not isinstance(name, str):
        raise MXNetError("Variable: the name must be a string")
    attrs = _hidden(AttrScope.current.get(attr))
    if shape is not None:
        attrs["__shape__"] = str(tuple(shape))
    if lr_mult is not None:
        attrs["__lr_mult__"] = str(lr_mult)
    if wd_mult is not None:
        attrs["__wd_mult__"] = str(wd_mult)
    if dtype is not None:
        attrs["__dtype__"] = str(_DTYPE_FLAG[dtype_name(dtype)])
    if init is not None:
        attrs["__init__"] = init if isinstance(init, str) else init.dumps()
    if stype is not None and stype != "default":
        raise MXNetError("Variable '%s': sparse storage (stype='%s') is not supported by mxc; "
                         "arrays are dense (stype='default')" % (name, stype))
    for k, v in kwargs.items():
        if k.startswith("__") and k.endswith("__"):
            attrs[k] = str(v)
        else:
            raise MXNetError("Variable '%s': attribute %s must be spelled __%s__" % (name, k, k))
    return Symbol([(_Node("null", name, attrs), 0)])


var = Variable


def Group(symbols):
    """One symbol with the outputs of all of `symbols`."""
    outs = []
    for s in symbols:
        if not isinstance(s, Symbol):
            raise MXNetError("Group: expected Symbols, got %s" % type(s).__name__)
        outs.extend(s._outputs)
    return Symbol(outs)


# BatchNorm sets __init__ on its auxiliary-state variables when composed.
_AUX_INIT = {("BatchNorm", 3): '["zero", {}]', ("BatchNorm", 4): '["one", {}]'}
# MXNet's FSetInputVarAttrOnCompose of other inputs: PReLU's gamma starts at 0.25.
_INPUT_INIT = {("LeakyReLU", 1): '["Constant", {"value": 0.25}]'}


def _graph_attrs():
    """The graph attributes MXNet 1.9.1 writes: its version, and
    is_np_shape when saved under mx.np_shape()."""
    from .util import is_np_shape
    attrs = {"mxnet_version": ["int", 10901]}
    if is_np_shape():
        attrs["is_np_shape"] = ["int", 1]
    return attrs


def _single(sym, what):
    if not isinstance(sym, Symbol):
        raise MXNetError("%s: expected a Symbol, got %s" % (what, type(sym).__name__))
    if len(sym._outputs) != 1:
        raise MXNetError("%s: a symbol with %d outputs cannot be an input"
                         % (what, len(sym._outputs)))
    return sym._outputs[0]


def _create(op_name, inputs, kwargs, name, hint, named_inputs=None, attr=None):
    spec = _ops.OP_NAMES[op_name]
    attrs = spec.format_attrs(kwargs)
    if spec.variadic and "num_args" in spec.attrs and "num_args" not in attrs:
        attrs["num_args"] = str(len(inputs))
    name = NameManager.current.get(name, hint)
    node_attrs = dict(attrs)
    node_attrs.update(_hidden(AttrScope.current.get(attr)))
    entries = []
    if spec.variadic and not inputs and "num_args" in kwargs:
        # MXNet composes the inputs it is not given as variables named after
        # the operator's argument names: arg0, arg1, ... of a variadic op
        # (Concat(name='concat', num_args=2): concat_arg0, concat_arg1);
        # UpSampling's bilinear form takes data and weight
        if spec.name == "UpSampling" and attrs.get("sample_type") == "bilinear":
            arg_names = ["data", "weight"]
        else:
            arg_names = ["arg%d" % i for i in range(int(attrs["num_args"]))]
        entries = [(_Node("null", "%s_%s" % (name, a), dict(node_attrs)), 0) for a in arg_names]
    elif spec.variadic:
        entries = [_single(s, "%s '%s'" % (spec.name, name)) for s in inputs]
    else:
        names = spec.input_names(attrs)
        named_inputs = dict(named_inputs or {})
        if len(inputs) > len(names):
            raise MXNetError("%s '%s': takes at most %d inputs (%s), got %d" % (
                spec.name, name, len(names), ", ".join(names), len(inputs)))
        for k in named_inputs:
            if k not in names:
                raise MXNetError("%s '%s': no input named '%s' (inputs: %s)" % (
                    spec.name, name, k, ", ".join(names)))
        for i, input_name in enumerate(names):
            if i < len(inputs):
                if input_name in named_inputs:
                    raise MXNetError("%s '%s': input '%s' given twice" % (spec.name, name, input_name))
                entries.append(_single(inputs[i], "%s '%s'" % (spec.name, name)))
            elif input_name in named_inputs:
                entries.append(_single(named_inputs[input_name], "%s '%s'" % (spec.name, name)))
            else:
                # MXNet creates the variable with a copy of the operator's
                # attributes (its parameters and the attr= / AttrScope ones).
                entries.append((_Node("null", "%s_%s" % (name, input_name), dict(node_attrs)), 0))
    node_inputs = []
    for i, (node, idx) in enumerate(entries):
        version = 0
        if i in spec.aux_inputs:
            version = 1
            init = _AUX_INIT.get((spec.name, i))
        else:
            init = _INPUT_INIT.get((spec.name, i))
        if init and node.op == "null" and "__init__" not in node.attrs:
            node.attrs["__init__"] = init  # (MXNet keeps an __init__ already set)
        node_inputs.append((node, idx, version))
    node = _Node(spec.name, name, node_attrs, node_inputs, spec.all_outputs(attrs))
    return Symbol([(node, i) for i in range(spec.visible_outputs(attrs))])


def _make_op_function(py_name, spec):
    hint = py_name.lower()

    def op_function(*args, **kwargs):
        name = kwargs.pop("name", None)
        attr = kwargs.pop("attr", None)
        _ops.drop_absent_inputs(spec, kwargs)
        named = {k: v for k, v in kwargs.items() if isinstance(v, Symbol)}
        attrs = {k: v for k, v in kwargs.items() if not isinstance(v, Symbol)}
        # MXNet's hidden keys (lr_mult=, ctx_group=, ...) and __dunder__
        # keywords are node attributes, not operator parameters.
        extra = {k: attrs.pop(k) for k in list(attrs)
                 if k in _HIDDEN_KEYS or (k.startswith("__") and k.endswith("__"))}
        if extra:
            attr = dict(extra, **(attr or {}))
        inputs = list(args)
        if spec.variadic and len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
            inputs = list(inputs[0])
        if not spec.variadic:
            # As MXNet: the inputs first, then attributes positionally in the
            # operator's order (mx.sym.clip(x, 0, 1)).
            inputs = _ops.take_positional_attrs(
                spec, inputs, lambda a: isinstance(a, Symbol), attrs)
        if spec.variadic:
            inputs = _ops.variadic_inputs(spec, inputs, named, attrs)
            named = {}
        return _create(spec.name, inputs, attrs, name, hint, named, attr)

    op_function.__name__ = py_name
    op_function.__qualname__ = py_name
    op_function.__doc__ = "MXNet operator %s (symbolic): inputs %s; attributes %s." % (
        spec.name, ", ".join(spec.inputs) or "variadic", ", ".join(spec.attrs) or "none")
    return op_function


class _Namespace:
    def __init__(self, functions):
        self.__dict__.update(functions)


_functions = {py: _make_op_function(py, spec) for py, spec in _ops.public_names()}
globals().update(_functions)


# MXNet's fluent methods (sym.sum(axis=1), sym.flatten(), ...) for the
# operators mxc has: each calls the operator with the symbol as its first input.
_FLUENT = ("reshape", "reshape_like", "zeros_like", "ones_like", "broadcast_axes", "repeat", "pad",
           "swapaxes", "split", "slice", "slice_axis", "slice_like", "take", "one_hot", "pick",
           "sort", "topk", "argsort", "argmax", "argmax_channel", "argmin", "clip", "abs", "sign",
           "flatten", "expand_dims", "squeeze", "broadcast_to", "broadcast_like", "tile", "transpose", "flip",
           "diag", "sum", "nansum", "prod", "nanprod", "mean", "max", "min", "norm", "round",
           "rint", "fix", "floor", "ceil", "trunc", "sin", "cos", "tan", "arcsin", "arccos",
           "arctan", "degrees", "radians", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
           "exp", "expm1", "log", "log10", "log2", "log1p", "sqrt", "rsqrt", "cbrt", "rcbrt",
           "square", "reciprocal", "relu", "sigmoid", "softmax", "log_softmax", "softmin",
           "shape_array", "size_array")


def _fluent(fname):
    f = _functions[fname]

    def method(self, *args, **kwargs):
        return f(self, *args, **kwargs)

    method.__name__ = fname
    method.__doc__ = "Fluent form of mx.sym.%s (MXNet's Symbol.%s)." % (fname, fname)
    return method


for _f in _FLUENT:
    if _f in _functions and not hasattr(Symbol, _f):
        setattr(Symbol, _f, _fluent(_f))


def _symbol_binary(name, array_op, scalar_op, rscalar_op, py_fn):
    numbers = (int, float, np.number)

    def f(left, right):
        g = globals()
        if isinstance(left, Symbol) and isinstance(right, Symbol):
            return g[array_op](left, right)
        if isinstance(left, Symbol) and isinstance(right, numbers):
            return g[scalar_op](left, scalar=right)
        if isinstance(left, numbers) and isinstance(right, Symbol):
            return g[rscalar_op](right, scalar=left)
        if isinstance(left, numbers) and isinstance(right, numbers):
            return py_fn(left, right)
        raise TypeError("types (%s, %s) not supported" % (type(left), type(right)))
    f.__name__ = name
    f.__doc__ = ("MXNet's mx.sym.%s(left, right) for symbols and numbers. Two symbols write "
                 "%s (MXNet writes the elementwise operator; the same values for equal "
                 "shapes)." % (name, array_op))
    return f


pow = _symbol_binary("pow", "broadcast_power", "_power_scalar", "_rpower_scalar",
                     lambda a, b: a ** b)
power = pow
maximum = _symbol_binary("maximum", "broadcast_maximum", "_maximum_scalar", "_maximum_scalar",
                         lambda a, b: a if a > b else b)
minimum = _symbol_binary("minimum", "broadcast_minimum", "_minimum_scalar", "_minimum_scalar",
                         lambda a, b: a if a < b else b)
# MXNet's modulo: the remainder with the divisor's sign (Python's %)
modulo = _symbol_binary("modulo", "broadcast_mod", "_mod_scalar", "_rmod_scalar",
                        lambda a, b: a % b)
# MXNet writes _Hypot (the elementwise _hypot) for two symbols
hypot = _symbol_binary("hypot", "_hypot", "_hypot_scalar", "_hypot_scalar", _math.hypot)




def softmin(data=None, axis=-1, temperature=None, dtype=None, use_length=False, name=None,
            attr=None, **kwargs):
    """MXNet's softmin: softmax of the negated data (composed; the softmax
    node named `name`; without `data`, a variable NAME_data as MXNet's
    operators make)."""
    if use_length:
        raise MXNetError("softmin: use_length is not supported by mxc's composed softmin")
    name = NameManager.current.get(name, "softmin")
    if data is None:
        data = var(name + "_data")
    neg = _create("negative", [data], {}, None, "negative")
    kw = {"axis": axis}
    if temperature is not None:
        kw["temperature"] = temperature
    if dtype is not None:
        kw["dtype"] = dtype
    kw.update(kwargs)
    return _create("softmax", [neg], kw, name, "softmin", attr=attr)


def argmin(data=None, axis=None, keepdims=False, name=None, attr=None, **kwargs):
    """MXNet's argmin for symbols: argmax of the negated data (the first
    smallest element's index, as mx.nd.argmin); the argmax node is named
    `name`."""
    name = NameManager.current.get(name, "argmin")
    if data is None:
        data = var(name + "_data")
    neg = _create("negative", [data], {}, None, "negative")
    kw = {"keepdims": keepdims}
    if axis is not None:
        kw["axis"] = axis
    kw.update(kwargs)
    return _create("argmax", [neg], kw, name, "argmin", attr=attr)


def norm(data, ord=2, axis=None, out_dtype=None, keepdims=False, name=None, attr=None,
         **kwargs):
    """MXNet's norm for ord 1 and 2, composed as mx.nd.norm is: sum(abs(x))
    or sqrt(sum(square(x))) over `axis` (all axes: shape (1,)); the last
    node is named `name`. Without MXNet's scaling against overflow.
    `out_dtype`: the data is cast to it first (the norm accumulates and
    returns in that type)."""
    if ord not in (1, 2):
        raise MXNetError("norm: ord must be 1 or 2 (got %r)" % (ord,))
    if out_dtype is not None:
        data = _create("Cast", [data], {"dtype": out_dtype}, None, "cast")
    kw = {"keepdims": keepdims}
    if axis is not None:
        kw["axis"] = axis
    name = NameManager.current.get(name, "norm")
    if ord == 1:
        a = _create("abs", [data], {}, None, "abs")
        return _create("sum", [a], kw, name, "norm", attr=attr)
    sq = _create("square", [data], {}, None, "square")
    total = _create("sum", [sq], kw, None, "sum")
    return _create("sqrt", [total], {}, name, "norm", attr=attr)


Symbol.norm = lambda self, *args, **kwargs: norm(self, *args, **kwargs)


def logical_not(data, name=None, attr=None, **kwargs):
    """MXNet's logical_not: 1 where data is 0, else 0 (data's dtype), as
    _equal_scalar(data, 0)."""
    return _create("_equal_scalar", [data], {"scalar": 0.0},
                   NameManager.current.get(name, "logical_not"), "logical_not", attr=attr)


def make_loss(data, grad_scale=1.0, valid_thresh=0.0, normalization="null", name=None,
              attr=None, **kwargs):
    """MXNet's make_loss / MakeLoss: `data` as a loss output (its value
    unchanged; backward() without out_grads starts from it with gradient
    grad_scale), composed of operators mxc has: an identity node named as
    MXNet's (makeloss<N>), and for grad_scale != 1 the extra
    x * (grad_scale - 1) - BlockGrad(x * (grad_scale - 1)) term, zero in the
    forward, grad_scale - 1 in the gradient.

    What differs from MXNet's operator: out_grads given to backward() are
    applied (MXNet's MakeLoss ignores them), and normalization 'batch' /
    'valid' (which need the batch size or the count of valid elements at
    backward) are not supported: an MXNetError."""
    if kwargs:
        raise MXNetError("make_loss: unexpected arguments %s" % ", ".join(kwargs))
    if normalization not in ("null", None):
        raise MXNetError("make_loss: normalization=%r is not supported by mxc's composed "
                         "make_loss (only 'null')" % (normalization,))
    name = NameManager.current.get(name, "makeloss")
    g = float(grad_scale)
    if g == 1.0:
        return _create("_copy", [data], {}, name, "makeloss", attr=attr)
    extra = _create("_mul_scalar", [data], {"scalar": g - 1.0}, "%s_scaled" % name,
                    "_mul_scalar")
    frozen = _create("BlockGrad", [extra], {}, "%s_frozen" % name, "blockgrad")
    zero = _create("elemwise_sub", [extra, frozen], {}, "%s_zero" % name, "elemwise_sub")
    return _create("elemwise_add", [data, zero], {}, name, "makeloss", attr=attr)


MakeLoss = make_loss


def stack(*data, **kwargs):
    """MXNet's stack for symbols: each input gets the new axis (expand_dims)
    and they are concatenated on it (Concat, named `name`; MXNet has one
    node)."""
    axis = int(kwargs.pop("axis", 0))
    num_args = kwargs.pop("num_args", None)
    name = kwargs.pop("name", None)
    attr = kwargs.pop("attr", None)
    if kwargs:
        raise MXNetError("stack: unexpected arguments %s" % ", ".join(kwargs))
    if len(data) == 1 and isinstance(data[0], (list, tuple)):
        data = tuple(data[0])
    name = NameManager.current.get(name, "stack")
    if not data and num_args:
        # (as MXNet composes them: variables name_arg0, name_arg1, ...)
        data = [Variable("%s_arg%d" % (name, i)) for i in range(int(num_args))]
    if not data:
        raise MXNetError("stack: no inputs")
    parts = [_create("expand_dims", [d], {"axis": axis}, "%s_in%d" % (name, i), "expand_dims")
             for i, d in enumerate(data)]
    return _create("Concat", parts, {"dim": axis}, name, "concat", attr=attr)


for _f, _fn in (("softmin", softmin), ("argmin", argmin)):
    if not hasattr(Symbol, _f):
        setattr(Symbol, _f, _fn)


# MXNet's distributions: (name, its parameters with defaults, _sample_<d>'s
# input names)
_DISTRIBUTIONS = {
    "uniform": ((("low", 0.0), ("high", 1.0)), ("low", "high")),
    "normal": ((("loc", 0.0), ("scale", 1.0)), ("mu", "sigma")),
    "gamma": ((("alpha", 1.0), ("beta", 1.0)), ("alpha", "beta")),
    "exponential": ((("lam", 1.0),), ("lam",)),
    "poisson": ((("lam", 1.0),), ("lam",)),
    "negative_binomial": ((("k", 1), ("p", 1.0)), ("k", "p")),
    "generalized_negative_binomial": ((("mu", 1.0), ("alpha", 1.0)), ("mu", "alpha")),
}


def _random_symbol(dist, values, shape, dtype, name, attr, kwargs):
    """MXNet's _random_helper (python/mxnet/symbol/random.py): numbers give
    one _random_<dist> node (scalar parameters), Symbols one _sample_<dist>
    node (one distribution per element of the parameters, `shape` samples
    each, appended to their shape); the parameters are all numbers or all
    Symbols."""
    kwargs.pop("ctx", None)
    attrs = {}
    if shape is not None and shape != ():
        attrs["shape"] = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if dtype is not None:
        attrs["dtype"] = dtype
    names = _DISTRIBUTIONS[dist][0]
    if isinstance(values[0], Symbol):
        for v in values[1:]:
            if not isinstance(v, Symbol):
                raise MXNetError("Distribution parameters must all have the same type, but "
                                 "got both %s and %s." % (type(values[0]), type(v)))
        attrs.update(kwargs)
        op = "_sample_" + dist
        return _create(op, list(values), attrs, name, op, attr=attr)
    for v in values[1:]:
        if isinstance(v, Symbol):
            raise MXNetError("Distribution parameters must all have the same type, but got "
                             "both %s and %s." % (type(values[0]), type(v)))
    attrs.update({n: v for (n, _), v in zip(names, values)})
    attrs.update(kwargs)
    op = "_random_" + dist
    return _create(op, [], attrs, name, op, attr=attr)


def _distribution(dist, doc):
    params = _DISTRIBUTIONS[dist][0]

    def sample(*args, shape=None, dtype=None, name=None, attr=None, **kwargs):
        # MXNet's order: the parameters, then shape, then dtype
        values = list(args[:len(params)])
        rest = list(args[len(params):])
        if rest and shape is None:
            shape = rest.pop(0)
        if rest and dtype is None:
            dtype = rest.pop(0)
        if rest:
            raise TypeError("mx.sym.random.%s: too many positional arguments" % dist)
        for n, d in params[len(values):]:
            values.append(kwargs.pop(n, d))
        return _random_symbol(dist, values, shape, dtype, name, attr, kwargs)
    sample.__name__ = dist
    sample.__doc__ = doc
    return sample


def _distribution_like(dist, params=None):
    params = params or _DISTRIBUTIONS[dist][0]

    def like(data=None, *args, name=None, attr=None, **kwargs):
        values = dict(zip([n for n, _ in params], args))
        for n, d in params:
            values.setdefault(n, kwargs.pop(n, d))
        kwargs.pop("ctx", None)
        values.update(kwargs)
        op = "_random_%s_like" % dist
        return _create(op, [data], values, name, op, attr=attr)
    like.__name__ = dist + "_like"
    like.__doc__ = ("mx.sym.random.%s_like: numbers of data's shape and type drawn from the "
                    "%s distribution (_random_%s_like)." % (dist, dist, dist))
    return like


class _RandomNamespace:
    """mx.sym.random: MXNet's samplers as graph nodes (_random_<d> for number
    parameters, _sample_<d> for Symbol ones, _random_<d>_like), multinomial
    and shuffle, drawn by mx-decompose from the graph's rng_seed, which
    executors set from mx.random's state at each forward. randint is not a
    graph sampler in mxc (mx.nd.random.randint is)."""

    uniform = staticmethod(_distribution("uniform", "Uniform in [low, high)."))
    normal = staticmethod(_distribution("normal", "Normal with mean loc and deviation scale."))
    gamma = staticmethod(_distribution("gamma", "Gamma with shape alpha and scale beta."))
    poisson = staticmethod(_distribution("poisson", "Poisson with rate lam."))
    negative_binomial = staticmethod(_distribution(
        "negative_binomial", "Failures before k successes of probability p."))
    generalized_negative_binomial = staticmethod(_distribution(
        "generalized_negative_binomial", "Mean mu, dispersion alpha."))
    uniform_like = staticmethod(_distribution_like("uniform"))
    normal_like = staticmethod(_distribution_like("normal"))
    gamma_like = staticmethod(_distribution_like("gamma"))
    exponential_like = staticmethod(_distribution_like("exponential"))
    poisson_like = staticmethod(_distribution_like("poisson"))
    negative_binomial_like = staticmethod(_distribution_like("negative_binomial"))
    generalized_negative_binomial_like = staticmethod(
        _distribution_like("generalized_negative_binomial"))

    @staticmethod
    def exponential(scale=1.0, shape=None, dtype=None, name=None, attr=None, **kwargs):
        """Exponential with mean `scale`: the operators' rate lam = 1 / scale
        (a Symbol scale gives the node 1 / scale)."""
        lam = 1.0 / scale
        return _random_symbol("exponential", [lam], shape, dtype, name, attr, kwargs)

    @staticmethod
    def randn(*shape, **kwargs):
        """MXNet's randn: normal(loc, scale) of `shape`. MXNet passes a `data`
        keyword on to _random_normal, which has no input, and then infers the
        node's empty shape from its consumer; mxc infers no shape backward,
        so a `data` Symbol gives the numbers data's shape
        (_random_normal_like of data cast to dtype) instead."""
        loc = kwargs.pop("loc", 0.0)
        scale = kwargs.pop("scale", 1.0)
        dtype = kwargs.pop("dtype", None)
        name = kwargs.pop("name", None)
        attr = kwargs.pop("attr", None)
        data = kwargs.pop("data", None)
        if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
            shape = tuple(shape[0])
        if isinstance(data, Symbol) and not shape and not isinstance(loc, Symbol):
            kwargs.pop("ctx", None)
            if dtype is not None:  # the numbers in dtype (data's values are not read)
                data = _create("Cast", [data], {"dtype": dtype}, None, "cast")
            return _create("_random_normal_like", [data], dict(loc=loc, scale=scale, **kwargs),
                           name, "_random_normal_like", attr=attr)
        return _random_symbol("normal", [loc, scale], shape or None, dtype, name, attr, kwargs)

    @staticmethod
    def multinomial(data, shape=None, get_prob=False, out=None, dtype="int32", name=None,
                    attr=None, **kwargs):
        """_sample_multinomial: `shape` draws from each distribution in the
        last axis of `data` (and their log-probabilities with get_prob)."""
        kwargs.pop("ctx", None)
        attrs = {"get_prob": get_prob, "dtype": dtype}
        if shape is not None and shape != ():
            attrs["shape"] = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        attrs.update(kwargs)
        return _create("_sample_multinomial", [data], attrs, name, "sample_multinomial",
                       attr=attr)

    @staticmethod
    def shuffle(data, name=None, attr=None, **kwargs):
        """_shuffle: data with its first axis randomly permuted."""
        kwargs.pop("ctx", None)
        return _create("_shuffle", [data], kwargs, name, "shuffle", attr=attr)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError("mx.sym.random.%s is not in mxc: graphs have uniform, normal, "
                             "gamma, exponential, poisson, the negative binomials (and their "
                             "_like forms), multinomial and shuffle (mx.nd.random also has "
                             "randint)" % name)


random = _RandomNamespace()
for _alias, _fn in (("uniform", random.uniform), ("random_uniform", random.uniform),
                    ("normal", random.normal), ("random_normal", random.normal)):
    globals().setdefault(_alias, _fn)


def histogram(a, bins=10, range=None, **kwargs):  # noqa: A002
    """MXNet's sym.histogram: `bins` equal-width bins over `range`, or the
    edges given as a Symbol: the counts and the edges (_histogram)."""
    if isinstance(bins, Symbol):
        return _internal._histogram(data=a, bins=bins, **kwargs)
    if isinstance(bins, (int, np.integer)):
        if range is None:
            raise ValueError("histogram: a symbol needs range with an integer bins")
        return _internal._histogram(data=a, bin_cnt=int(bins), range=tuple(range), **kwargs)
    raise ValueError("bins argument should be either an integer or an NDArray")


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False, name=None):
    """MXNet's split_v2 for symbols: a group of slice_axis nodes, one per
    part (MXNet has one _split_v2 node). Equal sections need the axis's
    extent: give split points (or use split / SliceChannel) for a symbol
    whose shape is not known yet."""
    name = NameManager.current.get(name, "split_v2")
    if isinstance(indices_or_sections, (int, np.integer)):
        return _functions["split"](ary, num_outputs=int(indices_or_sections), axis=axis,
                                   squeeze_axis=squeeze_axis, name=name)
    points = [int(i) for i in indices_or_sections]
    bounds = list(zip([0] + points, points + [None]))
    parts = []
    for k, (b, e) in enumerate(bounds):
        part = _create("slice_axis", [ary], {"axis": axis, "begin": b, "end": e},
                       "%s_%d" % (name, k), "slice_axis")
        if squeeze_axis:
            part = _create("squeeze", [part], {"axis": (axis,)}, "%s_sq%d" % (name, k),
                           "squeeze")
        parts.append(part)
    return Group(parts)


if not hasattr(Symbol, "split_v2"):
    Symbol.split_v2 = split_v2


def add_n(*args, **kwargs):
    """MXNet's add_n / ElementWiseSum for symbols: elemwise_add nodes left to
    right (the last one named `name`; MXNet has one node), as mx.nd.add_n."""
    name = kwargs.pop("name", None)
    attr = kwargs.pop("attr", None)
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    num_args = kwargs.pop("num_args", None)
    name = NameManager.current.get(name, "elementwisesum")
    if not args and num_args:
        # (as MXNet composes them: variables name_arg0, name_arg1, ...)
        args = [Variable("%s_arg%d" % (name, i)) for i in range(int(num_args))]
    if not args:
        raise MXNetError("add_n: no inputs")
    if len(args) == 1:
        return _create("_copy", [args[0]], {}, name, "_copy", attr=attr)
    result = args[0]
    for k, a in enumerate(args[1:]):
        last = k == len(args) - 2
        result = _create("elemwise_add", [result, a], {},
                         name if last else "%s_part%d" % (name, k), "elemwise_add",
                         attr=attr)
    return result


ElementWiseSum = add_n


def _eliminate_common_expr(sym):
    """MXNet's common-subexpression elimination (MXNET_ELIMINATE_COMMON_EXPR):
    operator nodes with the same operator, attributes and inputs become
    one; nodes that hold state or draw random numbers (Dropout, operators
    with auxiliary states, the samplers) are kept apart; a head repeated by
    the merge is given its own _copy, as MXNet isolates outputs. The
    variables and their order stay."""
    canon, seen = {}, {}
    for node in _post_order(sym._outputs):
        if node.op == "null":
            canon[id(node)] = node
            continue
        ins = [(canon[id(src)], i, v) for src, i, v in node.inputs]
        spec = _ops.OP_NAMES.get(node.op)
        mergeable = spec is not None and not spec.aux_inputs and node.op != "Dropout" and \
            not node.op.startswith(("_random", "_sample", "random_", "sample_"))
        key = (node.op, tuple(sorted(node.attrs.items())),
               tuple((id(src), i) for src, i, _ in ins)) if mergeable else None
        if key is not None and key in seen:
            canon[id(node)] = seen[key]
            continue
        new = node.copy(ins)
        canon[id(node)] = new
        if key is not None:
            seen[key] = new
    outs, used = [], set()
    for node, i in sym._outputs:
        entry = (canon[id(node)], i)
        if (id(entry[0]), i) in used:
            copy = _Node("_copy", "%s_copy%d" % (entry[0].name, len(outs)), {},
                         [(entry[0], i, 0)])
            entry = (copy, 0)
        used.add((id(entry[0]), entry[1]))
        outs.append(entry)
    return Symbol(outs)


def _sparse_namespace():
    from .ndarray import _SparseNamespace
    return _SparseNamespace("mx.sym.sparse")


sparse = _sparse_namespace()


class _ContribNamespace(_ops.ContribNamespace):
    """mx.sym.contrib: the table's _contrib_* operators and MXNet's Python
    composites (rand_zipfian)."""

    @staticmethod
    def foreach(body, data, init_states, name="foreach"):
        """MXNet's _foreach in a graph (mxc/_control_flow.py)."""
        from ._control_flow import foreach
        return foreach(body, data, init_states, name=name)

    @staticmethod
    def while_loop(cond, func, loop_vars, max_iterations=None, name="while_loop"):
        """MXNet's _while_loop in a graph (mxc/_control_flow.py)."""
        from ._control_flow import while_loop
        return while_loop(cond, func, loop_vars, max_iterations=max_iterations, name=name)

    @staticmethod
    def cond(pred, then_func, else_func, name="cond"):
        """MXNet's _cond in a graph (mxc/_control_flow.py)."""
        from ._control_flow import cond
        return cond(pred, then_func, else_func, name=name)

    @staticmethod
    def boolean_mask(data=None, index=None, axis=0, name=None, **kwargs):
        """MXNet's contrib.boolean_mask has a data-dependent output shape,
        which a compiled graph cannot have: a DynamicShapeError (a hybridized
        Gluon block then runs imperatively; mx.nd.contrib.boolean_mask works)."""
        from .base import DynamicShapeError
        raise DynamicShapeError("boolean_mask: its output shape depends on the index values; "
                                "mxc's graphs have static shapes (mx.nd.contrib.boolean_mask "
                                "works on NDArrays, and a hybridized block using it runs "
                                "imperatively)")

    @staticmethod
    def rand_zipfian(true_classes, num_sampled, range_max):
        """MXNet's contrib.rand_zipfian (mxc._candidate_sampling)."""
        import sys
        from . import _candidate_sampling
        return _candidate_sampling.rand_zipfian(sys.modules[__name__], true_classes,
                                                num_sampled, range_max)


contrib = _ContribNamespace("mx.sym.contrib", _make_op_function)
# mx.sym.linalg: the table's _linalg_* operators (gemm, gemm2)
linalg = _ops.ContribNamespace("mx.sym.linalg", _make_op_function, prefix="_linalg_")
# mx.sym.image: the table's _image_* operators (to_tensor, normalize, ...)
image = _ops.ContribNamespace("mx.sym.image", _make_op_function, prefix="_image_")


def zeros(shape, dtype=None, **kwargs):
    """MXNet's mx.sym.zeros: the _zeros operator (float32 by default)."""
    return _internal._zeros(shape=shape, dtype="float32" if dtype is None else dtype, **kwargs)


def ones(shape, dtype=None, **kwargs):
    """MXNet's mx.sym.ones: the _ones operator (float32 by default)."""
    return _internal._ones(shape=shape, dtype="float32" if dtype is None else dtype, **kwargs)


def full(shape, val, dtype=None, **kwargs):
    """MXNet's mx.sym.full: the _full operator (float32 by default)."""
    return _internal._full(shape=shape, dtype="float32" if dtype is None else dtype,
                           value=float(val), **kwargs)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, name=None, dtype=None):
    """MXNet's mx.sym.arange: the _arange operator (float32 by default;
    infer_range=True is an error when the graph is compiled: mxc has no
    backward shape inference)."""
    return _internal._arange(start=start, stop=stop, step=step, repeat=repeat,
                             infer_range=infer_range, name=name,
                             dtype="float32" if dtype is None else dtype)


def eye(N, M=0, k=0, dtype=None, **kwargs):
    """MXNet's mx.sym.eye: the _eye operator (float32 by default)."""
    return _internal._eye(N=N, M=M, k=k, dtype="float32" if dtype is None else dtype,
                          **kwargs)
_internal = _Namespace({k: v for k, v in _functions.items() if k.startswith("_")})
op = _Namespace(_functions)


# -- files -------------------------------------------------------------------------

def load_json(json_str, subgraphs=None):
    """A Symbol from MXNet symbol JSON (any version MXNet wrote; older files
    get MXNet's upgrade on load). subgraphs: _CachedOp node name ->
    (Symbol, input names), for autograd.get_symbol."""
    return _from_graph_dict(json.loads(_mxc.normalize_json(json_str)), subgraphs or {})


def _from_graph_dict(g, subgraphs):
    rows = g.get("node_row_ptr")
    nodes = []
    for i, d in enumerate(g["nodes"]):
        sub = subgraphs.get(d["name"]) if d["op"] == "_CachedOp" else None
        n_out = len(sub[0]._outputs) if sub else rows[i + 1] - rows[i] if rows else 1
        inputs = [(nodes[src], idx, ver) for src, idx, ver in d["inputs"]]
        graphs = [_from_graph_dict(x, {}) for x in d.get("subgraphs", ())]
        nodes.append(_Node(d["op"], d["name"], d.get("attrs", {}), inputs, n_out, sub, graphs))
    return Symbol([(nodes[h[0]], h[1]) for h in g["heads"]])


def load(fname):
    with open(fname) as f:
        return load_json(f.read())


def fromjson(json_str):
    return load_json(json_str)


# -- partial shape inference (MXNet's infer_shape_partial) ---------------------
# (max, min, sum, abs and round are operators in this module: _builtins.*.)
# A partial shape is a tuple with 0 for an extent not known yet, or None for a
# shape whose rank is not known either. Each operator's own rule is the
# compiler's (_mxc.infer on a graph of that node alone): an unknown extent is
# given as a sentinel, twice with two different sentinels, and an extent of
# the rule's answer that comes out the same both times is known, one that
# moves with the sentinel is not. What a rule cannot say, extents flowing from
# a result back to its inputs, comes from the op table's shape family ("same",
# "elemwise") and from the back-inference MXNet's own rules do (the batch of
# FullyConnected / Convolution, a stride-1 convolution's spatial extents,
# Concat, SliceChannel). Repeated until nothing changes, as nnvm's
# InferShape pass is.

_SENTINELS = (7919, 104729)  # two primes no real extent is likely to be


def _complete(shape):
    return shape is not None and all(d > 0 for d in shape)


def _incomplete(error):
    """Whether a compiler error says that shapes are missing or partial."""
    text = str(error)
    return "cannot infer the shape" in text or "non-positive dimension" in text


def _merge(old, new, node, what):
    """`old` refined by `new` (partial shapes); MXNetError on a conflict."""
    if new is None:
        return old
    new = tuple(int(d) for d in new)
    if old is None:
        return new
    if len(old) != len(new) or any(a and b and a != b for a, b in zip(old, new)):
        raise MXNetError("node '%s': %s has shape %s, but %s is inferred"
                         % (node.name, what, _fmt(old), _fmt(new)))
    return tuple(a or b for a, b in zip(old, new))


def _fmt(shape):
    return "(" + ", ".join(str(d) for d in shape) + (",)" if len(shape) == 1 else ")")


def _shape_attr(node):
    text = node.attrs.get("__shape__")
    if not text:
        return None
    try:
        return tuple(_builtins.max(int(d), 0) for d in json.loads(text.replace("(", "[").replace(")", "]")
                                                           .replace(",]", "]").replace("L", "")))
    except ValueError:
        return None


def _rule(node, ins, cache):
    """What the operator's own shape rule says of (inputs, outputs) given the
    partial input shapes `ins`; None where it cannot run."""
    if node.op == "Custom":
        prop = _custom_prop(node)
        n_args = len(prop.list_arguments())
        if any(not _complete(x) for x in ins[:n_args]):
            return None
        from .operator import _InOperator
        with _InOperator(node.attrs.get("op_type"), "infer_shape"):
            got = prop.infer_shape([list(x) for x in ins[:n_args]])
        arg_s, out_s = got[0], got[1]
        aux_s = got[2] if len(got) > 2 else []
        return ([tuple(int(d) for d in x) for x in list(arg_s) + list(aux_s)],
                [tuple(int(d) for d in x) for x in out_s])
    if node.op == "_foreach" and ins and all(s for s in ins[:_foreach_num_data(node)]):
        # The step shapes do not depend on the number of steps: the rule runs
        # on one step (not on a sentinel's thousands of unrolled ones), and
        # the stacked outputs take the data's leading extent.
        nd = _foreach_num_data(node)
        one = [(1,) + tuple(s[1:]) if i < nd else s for i, s in enumerate(ins)]
        got = _rule_run(node, one, cache)
        if got is None:
            return None
        lead = ins[0][0]
        n_out = int(node.attrs.get("num_out_data", 0))
        got_ins = [(s[0],) + tuple(g[1:]) if i < nd and g is not None else g
                   for i, (s, g) in enumerate(zip(ins, got[0]))]
        got_outs = [(lead,) + tuple(g[1:]) if k < n_out and g is not None else g
                    for k, g in enumerate(got[1])]
        return got_ins, got_outs
    return _rule_run(node, ins, cache)


def _foreach_num_data(node):
    return len(_attr_list(node.attrs.get("in_data_locs", "")))


def _rule_run(node, ins, cache):
    key = (id(node), tuple(ins))
    if key in cache:
        return cache[key]
    names = ["__partial_in%d" % i for i in range(len(node.inputs))]
    variables = [_Node("null", n) for n in names]
    alone = node.copy([(v, 0, 0) for v in variables])
    text = Symbol([(alone, k) for k in range(node.num_outputs)])._raw_json()
    unknown = any(s is not None and not _complete(s) for s in ins)
    runs = []
    for sentinel in (_SENTINELS if unknown else _SENTINELS[:1]):
        shapes = {n: [d if d > 0 else sentinel for d in s]
                  for n, s in zip(names, ins) if s is not None}
        try:
            got_ins, got_outs = _mxc.infer(text, shapes, {})
        except MXNetError:
            cache[key] = None
            return None
        by_name = {name: tuple(shape) for name, _, shape, _ in got_ins}
        runs.append(([by_name.get(n) for n in names], [tuple(s) for _, s, _ in got_outs]))

    def same(a, b):
        if a is None or b is None or len(a) != len(b):
            return None
        return tuple(x if x == y else 0 for x, y in zip(a, b))

    first = runs[0]
    if len(runs) == 1:
        result = first
    else:
        second = runs[1]
        result = ([same(a, b) for a, b in zip(first[0], second[0])],
                  [same(a, b) for a, b in zip(first[1], second[1])])
    cache[key] = result
    return result


def _back_rule(node, ins, outs):
    """Input extents that MXNet's rules take from known results (beyond the
    shape families): per input, a partial shape or None."""
    op = _ops.OP_NAMES.get(node.op)
    name = op.name if op is not None else node.op
    out = outs[0] if outs else None
    back = [None] * len(ins)
    if out is None or not ins or ins[0] is None:
        return back
    data = list(ins[0])
    if name == "FullyConnected":
        if node.attrs.get("flatten", "True") in ("False", "false", "0"):
            if len(data) == len(out):
                back[0] = tuple(out[:-1]) + (data[-1],)
        elif data:
            data[0] = out[0]
            back[0] = tuple(data)
    elif name == "Convolution" and len(data) == len(out) == 4 \
            and node.attrs.get("layout", "NCHW") in ("NCHW", "None"):
        data[0] = out[0]
        kernel = _attr_tuple(node.attrs.get("kernel"), 2, 1)
        stride = _attr_tuple(node.attrs.get("stride"), 2, 1)
        pad = _attr_tuple(node.attrs.get("pad"), 2, 0)
        dilate = _attr_tuple(node.attrs.get("dilate"), 2, 1)
        for k in range(2):  # MXNet's ConvolutionOp::InferShape, stride 1 only
            if out[2 + k] and stride[k] == 1:
                data[2 + k] = out[2 + k] + (kernel[k] - 1) * dilate[k] - 2 * pad[k]
        back[0] = tuple(data)
    elif name == "Reshape":
        # MXNet's ReshapeShape: a complete result and one unknown extent of
        # the data give it (the sizes agree)
        unknown = [d for d, v in enumerate(data) if not v]
        if _complete(out) and len(unknown) == 1:
            known = int(np.prod([v for v in data if v]))
            total = int(np.prod(out))
            if known and total % known == 0:
                data[unknown[0]] = total // known
                back[0] = tuple(data)
    elif name == "Concat":
        axis = int(node.attrs.get("dim", 1))
        rank = len(out)
        axis += rank if axis < 0 else 0
        for i, s in enumerate(ins):
            if s is not None and len(s) == rank:
                back[i] = tuple(out[d] if d != axis else s[d] for d in range(rank))
        sizes = [s[axis] if s is not None and len(s) == rank else 0 for s in ins]
        missing = [i for i, d in enumerate(sizes) if not d]
        if out[axis] and len(missing) == 1:
            i = missing[0]
            if back[i] is not None:
                back[i] = tuple(out[axis] - _builtins.sum(sizes) if d == axis else back[i][d]
                                for d in range(rank))
    elif name == "transpose" and len(out) == len(data):
        # MXNet's TransposeShape runs both ways: input axis axes[i] is
        # output axis i
        axes = [int(v) for v in _attr_list(node.attrs.get("axes", ""))]
        rank = len(out)
        axes = axes or list(range(rank - 1, -1, -1))
        if sorted(a % rank for a in axes) == list(range(rank)):
            for i, a in enumerate(axes):
                data[a % rank] = data[a % rank] or out[i]
            back[0] = tuple(data)
    elif name == "SliceChannel":
        n = int(node.attrs.get("num_outputs", 1))
        axis = int(node.attrs.get("axis", 1))
        squeeze = node.attrs.get("squeeze_axis", "False") in ("True", "true", "1")
        rank = len(data)
        axis += rank if axis < 0 else 0
        merged = list(data)
        for o in outs:
            if o is None:
                continue
            full = list(o[:axis]) + [0] + list(o[axis:]) if squeeze else list(o)
            if len(full) != rank:
                continue
            for d in range(rank):
                if d == axis:
                    if not squeeze and full[d]:
                        merged[d] = merged[d] or full[d] * n
                    elif squeeze:
                        merged[d] = merged[d] or n
                else:
                    merged[d] = merged[d] or full[d]
        back[0] = tuple(merged)
    return back


def _attr_tuple(text, n, default):
    if not text or text == "None":
        return (default,) * n
    vals = [int(v) for v in text.strip("()[] ").split(",") if v.strip()]
    return tuple(vals) if len(vals) == n else (default,) * n


def _forward_fixups(node, ins, outs):
    """Where MXNet's rule leaves a result unknown although a sentinel run
    gives it extents: `where` with an incomplete condition, a slice of an
    unknown axis."""
    op = _ops.OP_NAMES.get(node.op)
    name = op.name if op is not None else node.op
    if name == "where" and not _complete(ins[0]):
        return [None] * len(outs)
    if name in ("slice_axis", "slice") and ins[0] is not None and outs and outs[0] is not None:
        data, out = ins[0], list(outs[0])
        if name == "slice_axis":
            axes = [int(node.attrs.get("axis", 0))]
        else:
            axes = range(len(_attr_list(node.attrs.get("begin"))))
        for a in axes:
            a += len(data) if a < 0 else 0
            if 0 <= a < len(data) and not data[a] and a < len(out):
                out[a] = 0
        return [tuple(out)] + list(outs[1:])
    return outs


def _attr_list(text):
    if not text or text == "None":
        return []
    return [v for v in text.strip("()[] ").split(",") if v.strip()]


_CREATION_OPS = ("_zeros", "_ones", "_full", "_empty", "_zeros_without_dtype")


def _creation_partial(node):
    """A creation operator's shape attribute with unknown extents (-1 or 0,
    MXNet's "unknown") as a partial shape; None when it is complete or the
    node is not one."""
    if node.op not in _CREATION_OPS or node.inputs:
        return None
    dims = [int(v) for v in _attr_list(node.attrs.get("shape", ""))]
    if not dims or all(d > 0 for d in dims):
        return None
    return tuple(d if d > 0 else 0 for d in dims)


def _complete_creation_shapes(heads, given):
    """`heads` with each creation operator whose shape has unknown extents
    given the shape MXNet's partial inference finds for it (from what it
    feeds: ones((-1, -1)) + a (2, 3) array is ones((2, 3))); the same heads
    when there is none, or when inference cannot complete one."""
    nodes = _post_order(heads)
    entries = [(n, 0) for n in nodes if _creation_partial(n) is not None]
    if not entries:
        return heads
    _, found = _partial_shapes(list(heads) + entries, {k: tuple(v) for k, v in given.items()})
    done = {id(n): s for (n, _), s in zip(entries, found[len(heads):]) if _complete(s)}
    if not done:
        return heads
    new = {}
    for n in nodes:
        if n.op == "null":
            new[id(n)] = n
            continue
        attrs = dict(n.attrs)
        if id(n) in done:
            attrs["shape"] = "(%s)" % ", ".join(str(d) for d in done[id(n)])
        new[id(n)] = n.copy([(new[id(src)], i, v) for src, i, v in n.inputs], attrs=attrs)
    return [(new[id(n)], i) for n, i in heads]


def _partial_shapes(heads, given):
    """(variable name -> partial shape, head partial shapes) from the given
    partial shapes (name -> tuple, 0 = unknown) and variables' __shape__."""
    nodes = _post_order(heads)
    shape = {}  # (id(node), output index) -> partial shape
    for n in nodes:
        if n.op == "null":
            s = given.get(n.name, _shape_attr(n))
            if s is not None:
                shape[(id(n), 0)] = tuple(int(d) for d in s)
    for n in nodes:  # a creation operator with unknown extents (shape=(2, -1))
        partial = _creation_partial(n)
        if partial is not None:
            shape[(id(n), 0)] = partial
    cache = {}
    for _ in range(2 * len(nodes) + 2):
        changed = False
        for n in nodes:
            if n.op == "null":
                continue
            keys_in = [(id(src), i) for src, i, _ in n.inputs]
            keys_out = [(id(n), k) for k in range(n.num_outputs)]
            ins = [shape.get(k) for k in keys_in]
            outs = [shape.get(k) for k in keys_out]
            op = _ops.OP_NAMES.get(n.op)
            family = op.shape_family if op is not None else None
            if family == "elemwise" or (family == "same" and ins):
                tied = list(range(len(ins))) if family == "elemwise" else [0]
                s = outs[0] if outs else None
                for i in tied:
                    s = _merge(s, ins[i], n, "an input")
                for i in tied:
                    ins[i] = _merge(ins[i], s, n, "input %d" % i)
                if outs:
                    outs[0] = _merge(outs[0], s, n, "the output")
            got = _rule(n, ins, cache)
            if got is not None:
                new_outs = _forward_fixups(n, ins, got[1])
                for i, s in enumerate(got[0]):
                    ins[i] = _merge(ins[i], s, n, "input %d" % i)
                for k, s in enumerate(new_outs[:len(outs)]):
                    outs[k] = _merge(outs[k], s, n, "output %d" % k)
            for i, s in enumerate(_back_rule(n, ins, outs)):
                ins[i] = _merge(ins[i], s, n, "input %d" % i)
            for k, s in zip(keys_in + keys_out, ins + outs):
                if s is not None and shape.get(k) != s:
                    shape[k] = s
                    changed = True
        if not changed:
            break
    variables = {n.name: shape.get((id(n), 0)) for n in nodes if n.op == "null"}
    return variables, [shape.get((id(n), i)) for n, i in heads]


def Custom(*data, op_type=None, name=None, attr=None, **kwargs):
    """MXNet's Custom operator in a graph: a Python custom operator
    (mx.operator.register) as a 'Custom' node, its inputs the operator's
    arguments then its auxiliary states (by position or name; the missing
    ones become variables '<name>_<input>'), its outputs list_outputs().
    The compiler cannot call back into Python: an Executor (and so Module)
    whose graph has one runs the graph operator by operator (docs/python.md,
    "Custom operators in graphs")."""
    if op_type is None:
        raise MXNetError("Custom: op_type (the registered name) is required")
    named = {k: v for k, v in kwargs.items() if isinstance(v, Symbol)}
    params = {k: str(v) for k, v in kwargs.items() if not isinstance(v, Symbol)}
    prop = _custom_prop_of(op_type, params)
    arg_names = list(prop.list_arguments())
    aux_names = list(prop.list_auxiliary_states())
    n_out = len(prop.list_outputs())
    names = arg_names + aux_names
    if len(data) > len(names):
        raise MXNetError("Custom '%s': %d inputs given, it takes %d (arguments %s, auxiliary "
                         "states %s)" % (op_type, len(data), len(names), arg_names, aux_names))
    unknown = sorted(set(named) - set(names))
    if unknown:
        raise MXNetError("Custom '%s': no input named %s (arguments %s, auxiliary states %s)"
                         % (op_type, ", ".join(unknown), arg_names, aux_names))
    name = NameManager.current.get(name, "custom")
    node_attrs = dict(params, op_type=op_type)
    node_attrs.update(_hidden(AttrScope.current.get(attr)))
    inputs = []
    for i, n in enumerate(names):
        if i < len(data):
            if n in named:
                raise MXNetError("Custom '%s': input '%s' given twice" % (op_type, n))
            entry = _single(data[i], "Custom '%s'" % name)
        elif n in named:
            entry = _single(named[n], "Custom '%s'" % name)
        else:
            entry = (_Node("null", "%s_%s" % (name, n), dict(node_attrs)), 0)
        inputs.append(entry + (1 if i >= len(arg_names) else 0,))
    node = _Node("Custom", name, node_attrs, inputs, n_out)
    return Symbol([(node, i) for i in range(n_out)])


def _custom_prop_of(op_type, params):
    """The registered CustomOpProp of `op_type`, made with `params`."""
    from .operator import _REGISTRY, _InOperator
    prop_cls = _REGISTRY.get(op_type)
    if prop_cls is None:
        raise MXNetError("Custom: no custom operator registered as '%s' (registered: %s)"
                         % (op_type, ", ".join(sorted(_REGISTRY)) or "none"))
    with _InOperator(op_type, "properties"):
        return prop_cls(**params)


def _custom_prop(node):
    """A Custom node's CustomOpProp (from its op_type and parameters)."""
    params = {k: v for k, v in node.attrs.items()
              if k != "op_type" and not (k.startswith("__") and k.endswith("__"))}
    return _custom_prop_of(node.attrs.get("op_type"), params)


def _has_custom(heads):
    return any(n.op == "Custom" for n in _post_order(heads))
