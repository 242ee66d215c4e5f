"""gluon.Block, HybridBlock and SymbolBlock (MXNet 1.9.1).

hybridize() is mxc's JIT: the first call of a hybridized block runs
hybrid_forward with F = mx.sym to trace one Symbol (inputs 'data' or
'data0', 'data1', ...; parameters by their full names), and every call
then runs that graph compiled by mxc (one compile per input shapes and
dtypes and mode, cached by the block):

- outside autograd.record(): the inference graph (BatchNorm with the moving
  statistics, Dropout the identity); inside autograd.train_mode(): MXNet's
  training forward (batch statistics, moving statistics updated, Dropout
  masks);
- inside autograd.record(): the training (or predict-mode) forward, and the
  graph's nodes are put on autograd's tape under the names and Dropout seed
  the forward used, so that backward() compiles the block's graph together
  with whatever was recorded around it into one gradient graph (mx-autodiff)
  whose Dropout masks are the forward's.
"""
import copy
import itertools
import json
import re
import threading
import warnings
from collections import OrderedDict, defaultdict

import numpy as np

from .. import autograd
from .. import ndarray as nd
from .. import symbol as _sym
from .. import _ops
from ..base import (DynamicShapeError, MXNetAssertionError, MXNetError, NameManager, Prefix,
                    compile_graph, dtype_name, np_dtype)
from ..context import current_context
from ..executor import OpMonitor
from ..ndarray import NDArray
from ..symbol import Symbol
from .parameter import Parameter, ParameterDict, DeferredInitializationError
from .utils import _TraceShapes, _ValueError


class _TypeError(MXNetError, TypeError):
    """An MXNetError that is also the TypeError MXNet raises."""


class _BlockScope:
    """The name scope of a Block: prefixes of children and of symbols made
    inside it (MXNet's _BlockScope)."""

    _current = threading.local()

    def __init__(self, block):
        self._block = block
        self._counter = {}
        self._old_scope = None
        self._name_scope = None

    @staticmethod
    def create(prefix, params, hint):
        current = getattr(_BlockScope._current, "value", None)
        if current is None:
            if prefix is None:
                prefix = NameManager.current().get(None, hint) + "_"
            if params is None:
                params = ParameterDict(prefix)
            else:
                params = ParameterDict(params.prefix, params)
            return prefix, params
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = "%s%d_" % (hint, count)
            current._counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        self._old_scope = getattr(_BlockScope._current, "value", None)
        _BlockScope._current.value = self
        self._name_scope = Prefix(self._block.prefix)
        self._name_scope.__enter__()
        return self

    def __exit__(self, *exc):
        if self._block._empty_prefix:
            return
        self._name_scope.__exit__(*exc)
        self._name_scope = None
        _BlockScope._current.value = self._old_scope


def _flatten(args, inout_str):
    if isinstance(args, (NDArray, Symbol)):
        if isinstance(args, Symbol):
            length = len(args.list_outputs())
            length = length if length > 1 else 0
            return [args], int(length)
        return [args], int(0)
    if args is None:
        return [None], int(-1)
    if not isinstance(args, (list, tuple)):
        raise _ValueError("HybridBlock %s must be (nested) list of Symbol or NDArray, but got "
                         "%s of type %s" % (inout_str, str(args), str(type(args))))
    flat, fmts = [], []
    for i in args:
        arg, fmt = _flatten(i, inout_str)
        flat.extend(arg)
        fmts.append(fmt)
    return flat, fmts


def _trailing_none_match(fmt, stored):
    """The formats differ only by trailing None arguments (defaults), which
    MXNet accepts."""
    if isinstance(fmt, int) or isinstance(stored, int):
        return False
    short, long_ = (fmt, stored) if len(fmt) < len(stored) else (stored, fmt)
    return len(short) != len(long_) and list(long_[:len(short)]) == list(short) and \
        all(f == -1 for f in long_[len(short):])


def _flatten_any(args):
    """Every leaf of nested lists / tuples (for type checks)."""
    out = []
    for a in args:
        if isinstance(a, (list, tuple)):
            out.extend(_flatten_any(a))
        else:
            out.append(a)
    return out


def _regroup(args, fmt):
    if isinstance(fmt, int):
        if fmt == 0:
            return args[0], args[1:]
        if fmt == -1:
            if args[0] is not None:
                raise MXNetError("Not consistent with original input: expected None")
            return None, args[1:]
        return args[:fmt], args[fmt:]
    if not isinstance(args, (list, tuple)):
        raise MXNetError("HybridBlock output must be (nested) list of Symbol or NDArray")
    ret = []
    for i in fmt:
        res, args = _regroup(args, i)
        ret.append(res)
    return ret, args


class _HookHandle:
    def __init__(self, hooks, key):
        self._hooks, self._key = hooks, key

    def detach(self):
        self._hooks.pop(self._key, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.detach()


def _common_prefix(names):
    if not names:
        return ""
    prefix = names[0]
    for name in names:
        i = 0
        while i < len(prefix) and i < len(name) and prefix[i] == name[i]:
            i += 1
        prefix = prefix[:i]
    return prefix


class Block:
    """Base class of layers and models (imperative forward)."""

    def __init__(self, prefix=None, params=None):
        self._empty_prefix = prefix == ""
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith("_") else self._prefix
        self._scope = _BlockScope(self)
        self._children = OrderedDict()
        self._reg_params = {}
        self._forward_hooks = OrderedDict()
        self._forward_pre_hooks = OrderedDict()
        self._hook_id = 0

    def __repr__(self):
        s = "{name}(\n{modstr}\n)"
        modstr = "\n".join(["  ({key}): {block}".format(
            key=key, block=_indent(repr(block), 2)) for key, block in self._children.items()])
        return s.format(name=self.__class__.__name__, modstr=modstr)

    def __setattr__(self, name, value):
        if hasattr(self, name):
            existing = getattr(self, name)
            if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
                raise _TypeError("Changing attribute type for {name} from {type1} to {type2} "
                                 "is not allowed.".format(name=name, type1=type(existing),
                                                          type2=type(value)))
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            if name in self._reg_params:
                raise MXNetError("Overriding Parameter attribute %s is not allowed. If you want "
                                 "to share parameters between blocks, please set 'params' at "
                                 "Block construction instead." % name)
            self._reg_params[name] = value
        super().__setattr__(name, value)

    def _check_container_with_block(self):
        children = set(self._children.values())

        def _find(data):
            if isinstance(data, (list, tuple)):
                for ele in data:
                    if _find(ele):
                        return True
            elif isinstance(data, dict):
                for v in data.values():
                    if _find(v):
                        return True
            elif isinstance(data, Block):
                return data not in children
            return False

        for k, v in self.__dict__.items():
            if isinstance(v, (list, tuple, dict)) and not (k.startswith("__") or k == "_children"):
                if _find(v):
                    warnings.warn('"{name}" is an unregistered container with Blocks. Note that '
                                  'Blocks inside the list, tuple or dict will not be registered '
                                  'automatically. Make sure to register them using '
                                  'register_child() or switching to nn.Sequential/'
                                  'nn.HybridSequential instead. '.format(
                                      name=self.__class__.__name__ + "." + k), stacklevel=3)

    def _alias(self):
        return self.__class__.__name__.lower()

    @property
    def prefix(self):
        return self._prefix

    @property
    def name(self):
        return self._name

    def name_scope(self):
        """Names of child blocks and parameters created inside get this
        block's prefix."""
        return self._scope

    @property
    def params(self):
        """This block's own parameters (not its children's)."""
        return self._params

    def collect_params(self, select=None):
        """A ParameterDict of this block's and its children's parameters;
        `select`: a regular expression the names must match."""
        self._check_container_with_block()
        ret = ParameterDict(self._params.prefix)
        if not select:
            ret.update(self.params)
        else:
            pattern = re.compile(select)
            ret.update({name: value for name, value in self.params.items() if pattern.match(name)})
        for cld in self._children.values():
            ret.update(cld.collect_params(select=select))
        return ret

    def _collect_params_with_prefix(self, prefix=""):
        if prefix:
            prefix += "."
        ret = {prefix + key: val for key, val in self._reg_params.items()}
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    def save_parameters(self, filename, deduplicate=False):
        """Writes the parameters by structural name ('features.0.weight') as an
        MXNet .params file (atomically: a crash leaves the old file)."""
        params = self._collect_params_with_prefix()
        if deduplicate:
            reverse = {v: k for k, v in params.items()}
            params = {v: k for k, v in reverse.items()}
        arg_dict = {key: val._reduce() for key, val in params.items()}
        nd.save(filename, arg_dict)

    def save_params(self, filename):
        warnings.warn("save_params is deprecated. Please use save_parameters. Note that if you "
                      "want load from SymbolBlock later, please use export instead.")
        self.collect_params().save(filename, strip_prefix=self.prefix)

    def load_parameters(self, filename, ctx=None, allow_missing=False, ignore_extra=False,
                        cast_dtype=False, dtype_source="current"):
        """Reads a file of save_parameters (structural names) or of the older
        save_params / export (full names, 'arg:'/'aux:' accepted)."""
        loaded = nd.load(filename)
        if isinstance(loaded, list):
            raise MXNetError("load_parameters: '%s' has arrays without names" % filename)
        params = self._collect_params_with_prefix()
        if not loaded and not params:
            return
        if not any("." in i for i in loaded.keys()):
            self.collect_params().load(filename, ctx, allow_missing, ignore_extra, self.prefix,
                                       cast_dtype=cast_dtype, dtype_source=dtype_source)
            return
        if not allow_missing:
            params_inv = defaultdict(list)
            for k, v in params.items():
                params_inv[v].append(k)
            for name, param in params.items():
                if not any(p in loaded for p in params_inv[param]):
                    raise MXNetError(
                        "Parameter '%s' is missing in file '%s', which contains parameters: "
                        "%s. Set allow_missing=True to ignore missing parameters."
                        % (name, filename, _brief_print_list(loaded.keys())))
        for name in loaded:
            if not ignore_extra and name not in params:
                raise MXNetError(
                    "Parameter '%s' loaded from file '%s' is not present in ParameterDict, "
                    "which contains parameters %s. Set ignore_extra=True to ignore. "
                    % (name, filename, _brief_print_list(self._params.keys())))
            if name in params:
                params[name]._load_init(loaded[name], ctx, cast_dtype=cast_dtype,
                                        dtype_source=dtype_source)

    def load_params(self, filename, ctx=None, allow_missing=False, ignore_extra=False):
        warnings.warn("load_params is deprecated. Please use load_parameters.")
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    def register_child(self, block, name=None):
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_op_hook(self, callback, monitor_all=False):
        """MXNet's op hook: callback(name, operator name, array) for every
        operator output (with monitor_all also every input) of the
        hybridized blocks below this one, at each call."""
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    def register_forward_pre_hook(self, hook):
        self._hook_id += 1
        self._forward_pre_hooks[self._hook_id] = hook
        return _HookHandle(self._forward_pre_hooks, self._hook_id)

    def register_forward_hook(self, hook):
        self._hook_id += 1
        self._forward_hooks[self._hook_id] = hook
        return _HookHandle(self._forward_hooks, self._hook_id)

    def apply(self, fn):
        for cld in self._children.values():
            cld.apply(fn)
        fn(self)
        return self

    def initialize(self, init=None, ctx=None, verbose=False, force_reinit=False):
        """Initialises every parameter of the block and its children
        (default initializer: Uniform(0.07), as MXNet)."""
        from .. import initializer
        if init is None:
            init = initializer.Uniform()
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def hybridize(self, active=True, **kwargs):
        for cld in self._children.values():
            cld.hybridize(active, **kwargs)

    def cast(self, dtype):
        """Converts the parameters (and later inputs' expectations) to `dtype`."""
        for child in self._children.values():
            child.cast(dtype)
        for _, param in self.params.items():
            param.cast(dtype)

    def zero_grad(self):
        self.collect_params().zero_grad()

    def reset_ctx(self, ctx):
        self.collect_params().reset_ctx(ctx)

    def __call__(self, *args):
        for hook in list(self._forward_pre_hooks.values()):
            hook(self, args)
        out = self.forward(*args)
        for hook in list(self._forward_hooks.values()):
            hook(self, args, out)
        return out

    def forward(self, *args):
        raise NotImplementedError

    def summary(self, *inputs):
        """Prints each layer's output shape and parameter count for `inputs`
        (the block must be initialised and not hybridized), as MXNet."""
        summary = OrderedDict()
        seen = set()
        hooks = []

        def shape_str(args):
            def flatten(a):
                if not isinstance(a, (list, tuple)):
                    return [a], 0
                flat, fmts = [], []
                for i in a:
                    x, f = flatten(i)
                    flat.extend(x)
                    fmts.append(f)
                return flat, fmts

            def regroup(a, fmt):
                if isinstance(fmt, int):
                    if fmt == 0:
                        return a[0], a[1:]
                    return a[:fmt], a[fmt:]
                ret = []
                for i in fmt:
                    res, a = regroup(a, i)
                    ret.append(res)
                return ret, a

            flat, fmts = flatten(args)
            shapes = regroup([x.shape if isinstance(x, NDArray) else x for x in flat], fmts)[0]
            s = str(shapes)[1:-1] if isinstance(shapes, list) else str(shapes)
            return s.replace("L", "")

        def register(block):
            if isinstance(block, HybridBlock) and block._active:
                raise MXNetAssertionError('"{}" must not be hybridized to print summary.'
                                      .format(block.name))

            def hook(block, _, outputs):
                key = "%s-%i" % (block.__class__.__name__, len(summary))
                entry = summary[key] = OrderedDict()
                entry["output_shape"] = shape_str(outputs)
                n = trainable = shared = 0
                for p in block.params.values():
                    size = p.data().size
                    n += size
                    trainable += 0 if p.grad_req == "null" else size
                    if p in seen:
                        shared += size
                    else:
                        seen.add(p)
                entry["n_params"], entry["trainable"], entry["shared"] = n, trainable, shared

            from .nn.basic_layers import Sequential, HybridSequential
            if not isinstance(block, (Sequential, HybridSequential)):
                hooks.append(block.register_forward_hook(hook))

        summary["Input"] = OrderedDict(output_shape=shape_str(inputs), n_params=0,
                                       trainable=0, shared=0)
        try:
            self.apply(register)
            self(*inputs)
            fmt = "{:>20}  {:>42} {:>15}"
            print("-" * 80)
            print(fmt.format("Layer (type)", "Output Shape", "Param #"))
            print("=" * 80)
            total = trainable = shared = 0
            for layer, e in summary.items():
                print(fmt.format(layer, str(e["output_shape"]), e["n_params"]))
                total += e["n_params"]
                trainable += e["trainable"]
                shared += e["shared"]
            print("=" * 80)
            print("Parameters in forward computation graph, duplicate included")
            print("   Total params: " + str(total))
            print("   Trainable params: " + str(trainable))
            print("   Non-trainable params: " + str(total - trainable))
            print("Shared params in forward computation graph: " + str(shared))
            print("Unique parameters in model: " + str(total - shared))
            print("-" * 80)
        finally:
            for h in hooks:
                h.detach()


def _indent(s_, num_spaces):
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [first] + [(num_spaces * " ") + line for line in s]
    return "\n".join(s)


def _brief_print_list(lst, limit=7):
    lst = list(lst)
    if len(lst) > limit:
        return _brief_print_list(lst[:limit // 2], limit) + ", ..., " + \
            _brief_print_list(lst[-limit // 2:], limit)
    return ", ".join(["'%s'" % str(i) for i in lst])


def _is_train_op(op):
    return op in ("BatchNorm", "Dropout")


class _CachedGraph:
    """A traced Symbol, its inputs and parameters, and its compiled forms by
    (graph text, input signature, mode): what hybridize() runs."""

    def __init__(self, inputs, out, params, what, inline_limit=2):
        self.input_names = [i.name for i in inputs]
        # MXNet's CachedOp flag: autograd.get_symbol shows the graph's
        # operators when it has at most this many, else one _CachedOp node
        self.inline_limit = int(inline_limit)
        self.out = out
        self.params = params            # variable name -> Parameter
        self.what = what
        self.text = out._raw_json()
        self.graph = json.loads(self.text)
        self.arg_names = out.list_arguments()
        self.aux_names = out.list_auxiliary_states()
        self._variables = set(self.arg_names) | set(self.aux_names)
        self._compiled = {}
        self.num_compiles = 0
        self._monitor = None
        missing = [n for n in self.arg_names + self.aux_names
                   if n not in self.params and n not in self.input_names]
        if missing:
            raise MXNetError("%s: the graph's inputs %s are neither inputs of the block nor "
                             "its parameters" % (what, missing))

    def _renamed(self):
        """The graph with its operator nodes named as autograd names recorded
        calls (and the tape entries' specs and names)."""
        g = copy.deepcopy(self.graph)
        names = []
        for node in g["nodes"]:
            if node["op"] == "null":
                names.append(None)
                continue
            spec = _ops.OP_NAMES[node["op"]]
            node["name"] = autograd.node_name(spec)
            names.append(node["name"])
        return g, names

    def _compile(self, text, arrays, train, wrt=(), part=""):
        """The compiled form for these arrays: the inference graph, MXNet's
        training forward (train, no gradients), or with `part` one half of
        the training step for the gradients of `wrt` (mx-split-training)."""
        sig = tuple((n, a.shape, a._sig[1].str) for n, a in sorted(arrays.items()))
        # (on a GPU: compiled for it, the device in the signature; the
        # block's arrays are on one device)
        gpu = next((a._ctx for a in arrays.values() if a._ctx.device_type == "gpu"), None)
        if gpu is not None:
            sig += (("", str(gpu)),)
        key = (text, sig, tuple(wrt), part) if part else (text, sig, train)
        c = self._compiled.get(key)
        if c is None:
            shapes = {n: list(a.shape) for n, a in arrays.items()}
            dtypes = {n: dtype_name(a._sig[1]) for n, a in arrays.items()}
            options = {}
            if train:
                options = dict(train=True, wrt=[],
                               grad_req=["null"] + ["%s=write" % n for n in wrt])
            if gpu is not None:
                for n, a in arrays.items():
                    if a._ctx != gpu:
                        raise MXNetError("%s: '%s' is on %s, other arrays on %s (as_in_context)"
                                         % (self.what, n, a._ctx, gpu))
                options["cuda_arch"] = nd._cuda_arch(gpu)
            if part:
                options["train_part"] = part
            c = compile_graph(text, shapes, dtypes,
                              "%s (%s)" % (self.what, part) if part else self.what, **options)
            self._compiled[key] = c
            self.num_compiles += 1
        return c

    def _execute(self, compiled, arrays, seed, ctx):
        """Runs a forward form on the arrays (pushed when they are runtime
        arrays); the updated auxiliary states go back into their arrays.
        Returns every output."""
        lazy = all(a._rt is not None for a in arrays.values())
        ins = []
        for name, kind, shape, dt in compiled.inputs:
            if kind == "head_grad":
                d = NDArray(np.zeros(tuple(shape), np_dtype(dt)))
            elif kind == "rng_seed":
                d = NDArray(np.array([seed], dtype=np_dtype(dt)))
            elif kind in ("grad_in", "residual"):
                raise MXNetError("%s: unexpected input %s of a forward" % (self.what, name))
            else:
                d = arrays[name]
            ins.append(d)
        outs = [nd._new_rt(tuple(shape), np_dtype(dt), ctx)
                for _, _, shape, dt in compiled.outputs]
        aux = [(name, o) for (name, kind, _, _), o in zip(compiled.outputs, outs)
               if kind == "aux_out"]
        if lazy:
            rts = [a._rt if a._rt is not None else nd._new(a._np, ctx)._rt for a in ins]
            compiled.push(rts, [o._rt for o in outs])
            for name, o in aux:
                o._rt.copy_to(arrays[name]._rt)
        else:
            datas = [np.ascontiguousarray(a._data) for a in ins]
            compiled.run(datas, [o._data for o in outs])
            for name, o in aux:
                np.copyto(arrays[name]._data, o._data)
        return outs

    def _run(self, text, arrays, train, seed, ctx):
        compiled = self._compile(text, arrays, train)
        outs = self._execute(compiled, arrays, seed, ctx)
        return [o for (_, kind, _, _), o in zip(compiled.outputs, outs) if kind == ""]

    def _arrays(self, args, ctx):
        """Variable name -> array: the block's inputs and its parameters."""
        if len(args) != len(self.input_names):
            raise MXNetError("%s: expected %d inputs (%s), got %d" % (
                self.what, len(self.input_names), ", ".join(self.input_names), len(args)))
        arrays = {}
        for name, a in zip(self.input_names, args):
            if not isinstance(a, NDArray):
                raise MXNetError("%s: input '%s' must be an NDArray, got %s"
                                 % (self.what, name, type(a).__name__))
            if name in self._variables:  # an input the graph does not use (MXNet warns) is left out
                arrays[name] = a
        for name in self.arg_names + self.aux_names:
            if name not in arrays:
                arrays[name] = self.params[name].data(ctx)
        return arrays

    def monitor(self, args, ctx, callback, monitor_all):
        """MXNet's op hook of a CachedOp: callback(name, operator, array) for
        each operator's outputs (and inputs with monitor_all), by
        executor.OpMonitor (an inference pass over the graph's internals)."""
        if self._monitor is None:
            self._monitor = OpMonitor(self.out, ctx)
        arrays = self._arrays(args, ctx)
        aux = {n: arrays.pop(n) for n in self.aux_names}
        for name, op, value in self._monitor.walk(arrays, aux, monitor_all, cached_op=True):
            callback(name, op, value)

    def __call__(self, args, ctx):
        arrays = self._arrays(args, ctx)
        training = autograd.is_training()
        train = training and any(_is_train_op(n["op"]) for n in self.graph["nodes"])
        recording = autograd.is_recording() and any(autograd._tracked(a) for a in arrays.values())
        if not recording:
            return self._run(self.text, arrays, train, autograd.fresh_seed() if train else 0, ctx)
        return self._record(arrays, training, ctx)

    # -- under autograd.record(): MXNet's CachedOp ---------------------------------
    def _recorded_text(self, training):
        """The graph as the recorded call runs it: in predict mode (recording
        outside train_mode) each node in autograd's predict form (BatchNorm on
        the moving statistics, Dropout the identity)."""
        if training:
            return self.text
        g = copy.deepcopy(self.graph)
        for node in g["nodes"]:
            if node["op"] != "null":
                node["op"], node["attrs"] = autograd.predict_form(node["op"],
                                                                  node.get("attrs", {}))
        return json.dumps(g)

    def _record(self, arrays, training, ctx):
        """The block's call inside autograd.record(), as MXNet's CachedOp:
        the forward half of the graph's training step runs now and keeps the
        intermediates the backward needs (mx-split-training's residuals);
        one tape entry for the whole call runs the backward half when
        backward() reaches it. (Before, the graph's nodes went on the tape and
        backward() computed the forward a second time.)"""
        wrt = [n for n in sorted(arrays)
               if autograd._tracked(arrays[n]) and arrays[n]._sig[1].kind == "f"]
        if not wrt:
            return self._run(self.text, arrays, False, 0, ctx)
        text = self._recorded_text(training)
        seed = autograd.fresh_seed()
        fwd = self._compile(text, arrays, True, wrt, "forward")
        outs = self._execute(fwd, arrays, seed, ctx)
        heads = [o for (_, kind, _, _), o in zip(fwd.outputs, outs) if kind == ""]
        # (the call keeps its own wrappers of the outputs: the heads point at
        # the call's tape entry, which must not point back at them)
        kept = [nd._wrap_rt(o._rt, o._sig[1], ctx) for o in outs]
        call = _RecordedCall(self, text, arrays, wrt, seed, kept, training)
        entry = autograd._Entry(None, {}, self.what, [arrays[n] for n in wrt], [], len(heads),
                                training, None, function=call)
        entry.out_shapes = [(h.shape, h._sig[1]) for h in heads]
        nodes = self.graph["nodes"]
        out = []
        for k, ((i, _, _), h) in enumerate(zip(self.graph["heads"], heads)):
            if nodes[i]["op"] == "null":
                out.append(arrays[nodes[i]["name"]])
            else:
                h._ag = (entry, k)
                out.append(h)
        return out

    def _node_tape(self, arrays, training, seed):
        """The graph's nodes as autograd tape entries (for what needs the
        recorded operators one by one: grad(create_graph=True), get_symbol):
        [(entry, output index)] of the heads."""
        g, names = self._renamed()
        nodes = g["nodes"]
        entries = {}
        values = {}

        def value(i, k):
            node = nodes[i]
            if node["op"] == "null":
                return arrays[node["name"]]
            v = values.get((i, k))
            if v is None:
                v = values[(i, k)] = autograd._Link((entries[i], k))
            return v

        for i, node in enumerate(nodes):
            if node["op"] == "null":
                continue
            spec = _ops.OP_NAMES[node["op"]]
            attrs = dict(node.get("attrs", {}))
            entries[i] = autograd._Entry(spec, attrs, names[i], [], [], spec.all_outputs(attrs),
                                         training and _is_train_op(node["op"]), seed)
        for i, node in enumerate(nodes):
            if node["op"] == "null":
                continue
            e = entries[i]
            for src, k, _ in node["inputs"]:
                a = value(src, k)
                e.inputs.append(a)
                e.datas.append(nd._tape_data(a) if isinstance(a, NDArray) else None)
        return [(entries[i], k) if nodes[i]["op"] != "null" else None
                for (i, k, _) in g["heads"]]


class _RecordedCall:
    """A hybridized block's call on autograd's tape (the `function` of its
    entry): backward() runs the backward half of the block's training step
    on the residuals its forward half kept."""

    writes_into = True  # backward(out=...): see autograd._backward

    def __init__(self, graph, text, arrays, wrt, seed, fwd_outs, training):
        self.graph, self.text, self.arrays = graph, text, arrays
        self.wrt, self.seed, self.fwd_outs, self.training = wrt, seed, fwd_outs, training
        self._nodes = None
        self._cached_op = None

    def backward(self, *out_grads, out=None):
        """The gradients of the block's tracked inputs (self.wrt order) for
        the gradients of its heads. out: per input, an array to write that
        gradient into (autograd passes a leaf's .grad with grad_req 'write'
        not yet written by this backward) or None; the result holds that
        array then. Pushed onto the engine (it returns at once) when the
        runtime has the dtypes."""
        g = self.graph
        bwd = g._compile(self.text, self.arrays, True, self.wrt, "backward")
        ins, k = [], 0
        for name, kind, shape, dt in bwd.inputs:
            if kind == "residual":
                a = self.fwd_outs[int(name[len("fwd"):])]
            elif kind == "head_grad":
                a = out_grads[k]
                k += 1
            elif kind == "rng_seed":
                a = NDArray(np.array([self.seed], dtype=np_dtype(dt)))
            elif kind == "grad_in":
                raise MXNetError("%s: unexpected gradient input %s" % (g.what, name))
            else:
                a = self.arrays[name]
            if a._sig[1] != np_dtype(dt) or a.shape != tuple(shape):
                raise MXNetError("%s: backward input %s: expected %s %s, got %s %s" % (
                    g.what, name, tuple(shape), dt, a.shape, a._sig[1]))
            ins.append(a)
        dest = dict(zip(self.wrt, out)) if out is not None else {}
        ctx = self.fwd_outs[0]._ctx
        outs, got = [], {}
        for name, kind, shape, dt in bwd.outputs:
            d = dest.get(name[:-len("_grad")]) if kind == "grad" else None
            if d is None or d._rt is None or d.shape != tuple(shape) or \
                    d._sig[1] != np_dtype(dt):
                d = nd._new_rt(tuple(shape), np_dtype(dt), ctx)
            outs.append(d)
            if kind == "grad":
                got[name[:-len("_grad")]] = d
        # (numpy-backed inputs, such as autograd's head gradients, are copied
        # into runtime arrays)
        ins = [a if a._rt is not None else nd._new(a._data, ctx) for a in ins]
        if all(a._rt is not None for a in ins + outs):
            bwd.push([a._rt for a in ins], [o._rt for o in outs])
        else:  # a dtype the runtime lacks: numpy buffers, run here
            from .. import _mxc
            _mxc.engine_wait_all()
            bwd.run([np.ascontiguousarray(a._data) for a in ins], [o._data for o in outs])
        return [got.get(n) for n in self.wrt]

    def expand(self, k, inline=True):
        """The tape entry (and output index) of head k as the graph's
        operators, or None for a head that is an input. inline=False (what
        autograd.get_symbol shows): as MXNet's CachedOp records itself, the
        operators only up to the block's inline_limit, else one _CachedOp
        entry on all the block's inputs and parameters."""
        g = self.graph
        if not inline and sum(n["op"] != "null" for n in g.graph["nodes"]) > g.inline_limit:
            if self._cached_op is None:
                sym = _sym.load_json(self.text)
                names = sym.list_inputs()
                aux = set(sym.list_auxiliary_states())
                spec = _CachedOpSpec({j for j, n in enumerate(names) if n in aux})
                e = autograd._Entry(spec, {}, "cachedop%d" % next(_cached_op_names),
                                    [self.arrays[n] for n in names],
                                    [nd._tape_data(self.arrays[n]) for n in names],
                                    len(sym._outputs), True, self.seed)
                e.subgraph = (sym, names)
                self._cached_op = e
            heads = g.graph["heads"]
            node = g.graph["nodes"][heads[k][0]]
            return None if node["op"] == "null" else (self._cached_op, k)
        if self._nodes is None:
            self._nodes = g._node_tape(self.arrays, self.training, autograd.seed())
        return self._nodes[k]


class _CachedOpSpec:
    """What autograd's tape asks of an entry's operator, for a _CachedOp."""
    name = "_CachedOp"

    def __init__(self, aux_inputs):
        self.aux_inputs = aux_inputs


_cached_op_names = itertools.count()


class HybridBlock(Block):
    """A Block whose hybrid_forward(F, x, ...) works with F = mx.nd and
    F = mx.sym; hybridize() makes its calls run one compiled graph."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._cached_graph = ()
        self._cached_op = None
        self._out_format = None
        self._in_format = None
        self._active = False
        self._flags = []
        self._callback = None
        self._traced_shapes = None

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if isinstance(value, HybridBlock):
            self._clear_cached_op()

    def register_child(self, block, name=None):
        if not isinstance(block, HybridBlock):
            raise MXNetError(
                "Children of HybridBlock must also be HybridBlock, but %s has type %s. If you "
                "are using Sequential, please try HybridSequential instead."
                % (str(block), str(type(block))))
        super().register_child(block, name)
        self._clear_cached_op()

    def hybridize(self, active=True, static_alloc=False, static_shape=False, **kwargs):
        """Traces and compiles at the next call (static_alloc / static_shape
        are accepted: mxc always plans memory once per compiled shape)."""
        self._active = active
        self._dynamic_shape = False  # (traced again: a new graph may have static shapes)
        self._flags = list(kwargs.items()) + [("static_alloc", static_alloc),
                                              ("static_shape", static_shape)]
        self._clear_cached_op()
        if active and (self._forward_hooks or self._forward_pre_hooks):
            warnings.warn('"{block}" is being hybridized while still having forward hook/'
                          'pre-hook. If "{block}" is a child of HybridBlock, the hooks will '
                          'not take effect.'.format(block=self))
        super().hybridize(active, **kwargs)

    def register_op_hook(self, callback, monitor_all=False):
        """As MXNet: this block's calls (when hybridized) and its children's
        report to callback(name, operator name, array); the names are
        MXNet's ('dense0_fwd_output', with monitor_all also
        'dense0_fwd_data', 'relu0_fwd_input0'). mxc compiles the graph
        whole, so the values come from an inference pass over its internals
        on the same arrays (not the training forward's own values)."""
        self._callback = (callback, bool(monitor_all))
        for child in self._children.values():
            child._callback = self._callback

    def cast(self, dtype):
        self._clear_cached_op()
        super().cast(dtype)

    def _clear_cached_op(self):
        self._cached_graph = ()
        self._cached_op = None

    def _get_graph(self, *args):
        if not self._cached_graph:
            args, self._in_format = _flatten(args, "input")
            flatten_inputs, symbol_inputs = [], []
            real = sum(a is not None for a in args)
            if real == 0:
                raise MXNetError("There must at least one none-None input.")
            cnt = 0
            for a in args:
                if a is not None:
                    s = _sym.var("data%d" % cnt if real > 1 else "data")
                    cnt += 1
                    flatten_inputs.append(s)
                    symbol_inputs.append(s)
                else:
                    flatten_inputs.append(None)
            grouped = _regroup(flatten_inputs, self._in_format)[0]
            params = {i: j.var() for i, j in self._reg_params.items()}
            shapes = {s.name: a.shape for s, a in zip(symbol_inputs, [a for a in args if a is not None])
                      if isinstance(a, NDArray)}
            with self.name_scope(), _TraceShapes(shapes) as trace:
                out = self.hybrid_forward(_sym, *grouped, **params)
            out, self._out_format = _flatten(out, "output")
            self._cached_graph = symbol_inputs, _sym.Group(out)
            self._traced_shapes = shapes if trace.used else None
        return self._cached_graph

    def _infer_attrs(self, infer_fn, attr, *args):
        inputs, out = self._get_graph(*args)
        args, _ = _flatten(args, "input")
        args = [a for a in args if a is not None]
        if infer_fn == "infer_shape":
            # (with the inputs' dtypes: a float64 input meets float64 weights)
            by_name, _ = out._infer({i.name: list(j.shape) for i, j in zip(inputs, args)},
                                    {i.name: dtype_name(j.dtype) for i, j in zip(inputs, args)})
            arg_attrs = [by_name[n][0] for n in out.list_arguments()]
            aux_attrs = [by_name[n][0] for n in out.list_auxiliary_states()]
        else:
            arg_attrs, _, aux_attrs = out.infer_type(
                **{i.name: j.dtype for i, j in zip(inputs, args)})
        if arg_attrs is None:
            raise MXNetError("%s: cannot infer the %ss of the parameters from inputs %s"
                             % (self.name, attr, [getattr(j, attr) for j in args]))
        sdict = dict(zip(out.list_arguments(), arg_attrs))
        sdict.update(zip(out.list_auxiliary_states(), aux_attrs))
        for i in self.collect_params().values():
            if i.name in sdict and sdict[i.name] is not None:
                setattr(i, attr, sdict[i.name])

    def infer_shape(self, *args):
        self._infer_attrs("infer_shape", "shape", *args)

    def infer_type(self, *args):
        self._infer_attrs("infer_type", "dtype", *args)

    def _deferred_infer_shape(self, *args):
        try:
            self.infer_shape(*args)
        except MXNetError as e:
            raise MXNetError("Deferred initialization failed because shape cannot be inferred. "
                             "%s" % e) from e

    def _deferred_init_params(self, *args):
        """Shapes of deferred parameters: from the traced graph, else (a layer
        whose parameter shapes the graph cannot give, as LayerNorm's) by one
        imperative forward of the un-hybridized blocks, outside recording."""
        params = self.collect_params().values()
        try:
            self._deferred_infer_shape(*args)
        except MXNetError:
            active = []

            def off(b):
                if isinstance(b, HybridBlock) and b._active:
                    active.append(b)
                    b._active = False
            self.apply(off)
            try:
                with autograd.pause():
                    self.forward(*args)
            finally:
                for b in active:
                    b._active = True
        for p in params:
            p._finish_deferred_init()

    def _build_cache(self, *args):
        inputs, out = self._get_graph(*args)
        from ..symbol import _has_custom
        if _has_custom(out._outputs):
            # a Python custom operator cannot be called from compiled code:
            # the block runs imperatively (mx.nd.Custom), as for other
            # graphs without a static compiled form
            from ..base import CustomOpInGraphError
            raise CustomOpInGraphError("%s calls a Python custom operator (F.Custom)"
                                       % self.name)
        params = {p.name: p for p in self.collect_params().values()}
        self._cached_op = _CachedGraph(inputs, out, params, "hybridized block %s" % self.name,
                                       dict(self._flags).get("inline_limit", 2))

    def _call_cached_op(self, *args):
        flat, fmt = _flatten(args, "input")
        flat = [a for a in flat if a is not None]
        if self._traced_shapes is not None and self._cached_graph and \
                [a.shape for a in flat] != list(self._traced_shapes.values()):
            self._clear_cached_op()   # a graph specialised to other input shapes
        if self._cached_op is None:
            params = self.collect_params().values()
            if any(p._deferred_init for p in params):
                self._deferred_init_params(*args)
            self._build_cache(*args)
        if fmt != self._in_format and not _trailing_none_match(fmt, self._in_format):
            raise _ValueError("%s: invalid input format: the block was traced with %s"
                             % (self.name, self._in_format))
        if any(p._deferred_init for p in self._cached_op.params.values()):
            self._deferred_init_params(*args)
        ctx = flat[0].context if flat else current_context()
        out = self._cached_op(flat, ctx)
        if self._callback is not None:
            self._cached_op.monitor(flat, ctx, *self._callback)
        return _regroup(out, self._out_format)[0]

    def forward(self, x, *args):
        flat = [a for a in _flatten_any([x] + list(args)) if a is not None]
        has_nd = any(isinstance(a, NDArray) for a in flat)
        has_sym = any(isinstance(a, Symbol) for a in flat)
        if has_nd and has_sym:
            raise _ValueError("HybridBlock %s: mixed NDArray and Symbol inputs" % self.name)
        if not has_nd and not has_sym:
            raise _ValueError("HybridBlock %s: there must be one NDArray or one Symbol in the "
                             "input, got %s" % (self.name, type(x).__name__))
        if has_nd:
            ctx = next(a for a in flat if isinstance(a, NDArray)).context
            if self._active and not getattr(self, "_dynamic_shape", False):
                # (cpu_pinned memory is the CPU's: it mixes with cpu)
                ctxs = {("cpu" if a.context.device_type == "cpu_pinned" else
                         a.context.device_type, a.context.device_id)
                        for a in flat if isinstance(a, NDArray)}
                if len(ctxs) > 1:
                    raise _ValueError("HybridBlock %s: a hybridized block takes inputs on one "
                                      "context, got %s" % (self.name, sorted(ctxs)))
                try:
                    return self._call_cached_op(x, *args)
                except DynamicShapeError:
                    # an operator with a data-dependent shape (boolean_mask):
                    # no static graph; run imperatively from now on (MXNet's
                    # CachedOp runs such graphs dynamically)
                    self._dynamic_shape = True
                    self._clear_cached_op()
            try:
                params = {k: v.data(ctx) for k, v in self._reg_params.items()}
            except DeferredInitializationError:
                self._deferred_infer_shape(x, *args)
                for _, v in self.params.items():
                    v._finish_deferred_init()
                params = {k: v.data(ctx) for k, v in self._reg_params.items()}
            return self.hybrid_forward(nd, x, *args, **params)
        params = {i: j.var() for i, j in self._reg_params.items()}
        with self.name_scope():
            return self.hybrid_forward(_sym, x, *args, **params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError

    def export(self, path, epoch=0, remove_amp_cast=True):
        """Writes path-symbol.json and path-%04d.params (arg:/aux: names) as
        MXNet does; the block must have been hybridized and called once."""
        if not self._cached_graph:
            raise MXNetError("Please first call block.hybridize() and then run forward with "
                             "this block at least once before calling export.")
        sym = self._cached_graph[1]
        sym_filename = "%s-symbol.json" % path
        sym.save(sym_filename, remove_amp_cast=remove_amp_cast)
        arg_names = set(sym.list_arguments())
        aux_names = set(sym.list_auxiliary_states())
        arg_dict = {}
        for name, param in self.collect_params().items():
            if name in arg_names:
                arg_dict["arg:%s" % name] = param._reduce()
            elif name in aux_names:
                arg_dict["aux:%s" % name] = param._reduce()
        params_filename = "%s-%04d.params" % (path, epoch)
        nd.save(params_filename, arg_dict)
        return sym_filename, params_filename


def _substitute(out, inputs):
    """`out` with its variables named in `inputs` (name -> one-output Symbol)
    replaced (MXNet's Symbol composition)."""
    memo = {}

    def clone(node):
        got = memo.get(id(node))
        if got is not None:
            return got
        if node.op == "null" and node.name in inputs:
            got = memo[id(node)] = inputs[node.name]._outputs[0]
            return got
        if node.op == "null":
            memo[id(node)] = (node, 0)
            return memo[id(node)]
        new = copy.copy(node)
        new.attrs = dict(node.attrs)
        new.inputs = []
        for src, idx, ver in node.inputs:
            s, base = clone(src)
            new.inputs.append((s, base + idx, ver))
        memo[id(node)] = (new, 0)
        return memo[id(node)]

    outs = []
    for node, idx in out._outputs:
        n, base = clone(node)
        outs.append((n, base + idx))
    return Symbol(outs)


class SymbolBlock(HybridBlock):
    """A HybridBlock made from a Symbol (and its inputs): what imports()
    returns for exported or MXNet-written models."""

    @staticmethod
    def imports(symbol_file, input_names, param_file=None, ctx=None, allow_missing=False,
                ignore_extra=False):
        sym = _sym.load(symbol_file)
        if isinstance(input_names, str):
            input_names = [input_names]
        if param_file is None:
            inputs = [_sym.var(i, dtype="float32") for i in input_names]
        else:
            inputs = [_sym.var(i) for i in input_names]
        ret = SymbolBlock(sym, inputs)
        if param_file is not None:
            ret.collect_params().load(param_file, ctx, allow_missing, ignore_extra,
                                      cast_dtype=True, dtype_source="saved")
        return ret

    def __repr__(self):
        s = "{name}(\n{modstr}\n)"
        modstr = "\n".join(["  {block} : {numinputs} -> {numoutputs}".format(
            block=self._cached_graph[1], numinputs=len(self._cached_graph[0]),
            numoutputs=len(self._cached_graph[1].list_outputs()))])
        return s.format(name=self.__class__.__name__, modstr=modstr)

    def __init__(self, outputs, inputs, params=None):
        super().__init__(prefix=None, params=None)
        self._prefix = ""
        self._params = ParameterDict("", params)
        if isinstance(inputs, Symbol) and len(inputs.list_outputs()) == 1:
            inputs = [inputs]
        if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
            outputs = outputs[0]
        syms, self._in_format = _flatten(inputs, "input")
        out, self._out_format = _flatten(outputs, "output")
        out = _sym.Group(out)
        input_names = set()
        for i in syms:
            if not isinstance(i, Symbol) or len(i._outputs) != 1 or i._outputs[0][0].op != "null":
                raise MXNetError("SymbolBlock: input %s is not a variable; inputs must be "
                                 "variables (mx.sym.var)" % (i,))
            input_names.add(i.name)
        for i in out.list_arguments():
            if i not in input_names:
                self.params.get(i, allow_deferred_init=True)
        for i in out.list_auxiliary_states():
            if i not in input_names:
                self.params.get(i, grad_req="null", allow_deferred_init=True)
        self._cached_graph = syms, out
        len_prefix = len(_common_prefix(list(self._params.keys())))
        self._reg_params = {key[len_prefix:]: val for key, val in self._params.items()}

    def forward(self, x, *args):
        if isinstance(x, NDArray):
            return self._call_cached_op(x, *args)
        if not isinstance(x, Symbol):
            raise MXNetError("SymbolBlock: the input must be an NDArray or a Symbol, got %s"
                             % type(x).__name__)
        args, in_fmt = _flatten([x] + list(args), "input")
        if in_fmt != self._in_format:
            raise MXNetError("SymbolBlock: invalid input format")
        ret = _substitute(self._cached_graph[1],
                          {i.name: j for i, j in zip(self._cached_graph[0], args)})
        outs = [ret[i] for i in range(len(ret.list_outputs()))]
        return _regroup(outs, self._out_format)[0]

    def _clear_cached_op(self):
        tmp = self._cached_graph
        super()._clear_cached_op()
        self._cached_graph = tmp

    def cast(self, dtype):
        self._clear_cached_op()
        super().cast(dtype)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError
