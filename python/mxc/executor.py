"""Executor: a bound Symbol (MXNet 1.x mx.executor.Executor).

forward() compiles the graph for the bound shapes and dtypes once (the JIT
caches it in memory and on disk) and runs it on the bound arrays: the
arguments and auxiliary states are passed without copies when they are
C-contiguous, and the outputs are written into `outputs` in place.

The bound arrays are runtime arrays. forward(is_train=True) *pushes* the
training step's plan onto the engine (heads, gradients and the updated
auxiliary states written straight into outputs / grad_arrays / aux_arrays)
and returns at once: each gradient is ready when the plan's step that
writes it has run, so a KVStore push or an optimizer update of one
parameter starts while the backward pass of earlier layers still runs.
"""

import os

import numpy as np

from . import _ops
from .base import MXNetError, compile_graph, dtype_name, np_dtype
from .context import check_context
from . import ndarray as nd
from .ndarray import NDArray, _engine_copy, _store, zeros as _nd_zeros


def _zeros(shape, dtype, ctx):
    """A zero-filled runtime array (numpy-backed for a dtype the runtime lacks)."""
    return _nd_zeros(shape, ctx, dtype=dtype)


def _next_seed():
    """A seed for Dropout's masks, drawn from mx.random's generator (so that
    mx.random.seed makes training reproducible)."""
    from . import random as _random
    return int(_random._generator.integers(0, 2 ** 62))




class Executor:
    """Arrays bound to a Symbol, and the compiled graph that runs on them."""

    def __init__(self, symbol, ctx, arg_arrays, grad_arrays, aux_arrays, grad_req):
        self._symbol = symbol
        # As MXNet (MXNET_ELIMINATE_COMMON_EXPR, default 1): the graph that
        # runs has its common subexpressions merged (get_optimized_symbol).
        self._run_symbol = symbol
        if os.environ.get("MXNET_ELIMINATE_COMMON_EXPR", "1") != "0":
            from .symbol import _eliminate_common_expr
            opt = _eliminate_common_expr(symbol)
            if opt.list_arguments() == symbol.list_arguments() and \
                    opt.list_auxiliary_states() == symbol.list_auxiliary_states():
                self._run_symbol = opt
        self._ctx = ctx
        self._arg_names = symbol.list_arguments()
        self._aux_names = symbol.list_auxiliary_states()
        self._out_names = symbol.list_outputs()
        self.arg_arrays = arg_arrays
        self.grad_arrays = grad_arrays
        self.aux_arrays = aux_arrays
        self._grad_req = grad_req
        self._compiled = {}  # is_train or (True, half) -> (compiled, signature)
        self._pending = None  # forward(is_train=True)'s results for backward()
        # The training step as two halves (mx-split-training): forward(is_train
        # =True) runs the forward half, keeping what the backward reads, and
        # backward(out_grads) the backward half, instead of the whole step at
        # forward and again at backward with the given head gradients. Set for
        # executors whose backward is given head gradients (a group2ctx stage
        # that later stages feed; after the first backward(out_grads) that had
        # to run the step again).
        self._split_train = False
        self._staging = {}  # runtime arrays the pushed training step reuses
        self._outputs = []
        self._last_forward = None  # None, "infer" or "train"
        self._monitor = None  # (callback, monitor_all)
        self._monitor_exec = None
        # A graph with a Python custom operator runs operator by operator
        # (_interpret); the outputs autograd recorded for backward().
        from .symbol import _has_custom
        self._interpreted = _has_custom(symbol._outputs)
        self._interp_heads = None
        # On a GPU the graph is compiled for the device and every run is
        # pushed on device arrays (no numpy path); one with a custom operator
        # runs operator by operator there too (each compiled for the device,
        # the custom operator on the device's arrays).
        self._gpu = ctx.device_type == "gpu"

    @property
    def outputs(self):
        """The output arrays; as in MXNet they exist from binding on (zeros
        until forward), in the inferred shapes and dtypes."""
        if not self._outputs:
            self._outputs = self._bound_outputs()
        return self._outputs

    @outputs.setter
    def outputs(self, value):
        self._outputs = value

    def _bound_outputs(self):
        arrays = list(zip(self._arg_names, self.arg_arrays)) + \
            list(zip(self._aux_names, self.aux_arrays))
        if any(a is None for _, a in arrays):
            return []
        try:
            _, outs = self._symbol._infer(
                {n: [int(d) for d in a.shape] for n, a in arrays},
                {n: dtype_name(a._sig[1]) for n, a in arrays})
        except MXNetError:
            return []  # forward says why
        return [_zeros(tuple(shape), np_dtype(dt), self._ctx) for shape, dt in outs]

    # -- construction -------------------------------------------------------------
    @staticmethod
    def _simple_bind(symbol, ctx, grad_req, type_dict, shapes, group2ctx=None):
        ctx = check_context(ctx, True)
        staged = None  # devices that do not share memory: the graph in stages
        if group2ctx:
            from . import _model_parallel
            staged = _model_parallel.stages_for(symbol, ctx, group2ctx)
        types = {k: dtype_name(v) for k, v in type_dict.items()}
        if types:
            # The other arguments' types follow, as MXNet infers them
            # (a float64 data input makes float64 weights).
            arg_t, _, aux_t = symbol.infer_type(**types)
            if arg_t is not None:
                names = symbol.list_arguments() + symbol.list_auxiliary_states()
                for n, t in zip(names, list(arg_t) + list(aux_t)):
                    if t is not None:
                        types.setdefault(n, dtype_name(t))
        shape_args = symbol._shape_kwargs((), shapes)
        by_name, _ = symbol._infer(shape_args, types)
        arg_names = symbol.list_arguments()
        aux_names = symbol.list_auxiliary_states()

        attrs = symbol.attr_dict() if group2ctx else {}

        def alloc(name):
            shape, dt = by_name[name]
            if staged is not None:  # placed as MXNet's PlaceDevice
                where = staged[1][name]
            else:  # (CPUs: one host memory; arrays labelled by their group)
                group = attrs.get(name, {}).get("__ctx_group__")
                where = check_context(group2ctx[group], True) if group in (group2ctx or {}) \
                    else ctx
            return _zeros(shape, np_dtype(dt), where)

        args = [alloc(n) for n in arg_names]
        aux = [alloc(n) for n in aux_names]
        reqs = _grad_reqs(grad_req, arg_names)
        grads = [alloc(n) if reqs[n] != "null" else None for n in arg_names]
        if staged is not None:
            return _model_parallel.StagedExecutor(symbol, ctx, args, grads, aux, reqs, staged[0])
        return Executor(symbol, ctx, args, grads, aux, reqs)

    @staticmethod
    def _bind(symbol, ctx, args, args_grad, grad_req, aux_states):
        ctx = check_context(ctx, True)
        arg_names = symbol.list_arguments()
        aux_names = symbol.list_auxiliary_states()
        arg_arrays = _arrays_in_order(args, arg_names, "args")
        aux_arrays = _arrays_in_order(aux_states or [], aux_names, "aux_states")
        reqs = _grad_reqs(grad_req, arg_names)
        if args_grad is None:
            grads = [None] * len(arg_names)
        else:
            grads = _arrays_in_order(args_grad, arg_names, "args_grad", allow_missing=True)
        if ctx.device_type == "gpu":
            for n, a in zip(arg_names + arg_names + aux_names, arg_arrays + grads + aux_arrays):
                if a is not None and a.context != ctx:
                    raise MXNetError("bind: '%s' is on %s, the executor on %s (as_in_context)"
                                     % (n, a.context, ctx))
        return Executor(symbol, ctx, arg_arrays, grads, aux_arrays, reqs)

    # -- dictionaries ----------------------------------------------------------------
    @property
    def arg_dict(self):
        return dict(zip(self._arg_names, self.arg_arrays))

    @property
    def grad_dict(self):
        # every argument, None for one without a gradient (grad_req 'null'), as
        # MXNet's Executor._get_dict(list_arguments(), grad_arrays)
        return dict(zip(self._arg_names, self.grad_arrays))

    @property
    def aux_dict(self):
        return dict(zip(self._aux_names, self.aux_arrays))

    @property
    def output_dict(self):
        return dict(zip(self._out_names, self.outputs))

    # -- running -----------------------------------------------------------------------
    def _signature_now(self):
        # (._np: the dtype needs no wait for the engine's work on the array)
        return tuple((a.shape, a._sig[1].str) for a in self.arg_arrays + self.aux_arrays)

    def _compile(self, train, part=""):
        """The inference graph, the training step, or with `part`
        ('forward' / 'backward') one half of the training step."""
        sig = self._signature_now()
        key = (True, part) if part else train
        entry = self._compiled.get(key)
        if entry is not None and entry[1] == sig:
            return entry[0]
        shapes = {n: list(a.shape) for n, a in zip(self._arg_names, self.arg_arrays)}
        shapes.update({n: list(a.shape) for n, a in zip(self._aux_names, self.aux_arrays)})
        dtypes = {n: dtype_name(a._sig[1]) for n, a in
                  zip(self._arg_names + self._aux_names, self.arg_arrays + self.aux_arrays)}
        raw = self._run_symbol._with_creation_shapes(
            {n: s for n, s in shapes.items()})._raw_json()
        what = "graph %s (%d nodes%s)" % (
            ", ".join(n.name for n, _ in self._symbol._outputs[:3]), raw.count('"op"'),
            (", %s half of the training step" % part) if part else
            ", forward + backward" if train else "")
        options = {}
        if self._gpu:
            options["cuda_arch"] = nd._cuda_arch(self._ctx)
        if train:
            wrt = [n for n in self._arg_names if self._grad_req.get(n, "null") != "null"]
            reqs = ["%s=%s" % (n, "write" if self._grad_req[n] == "inplace" else self._grad_req[n])
                    for n in wrt]
            # (an empty wrt would mean "every parameter" to mx-autodiff)
            options.update(train=True, wrt=wrt, grad_req=reqs or ["null"])
            if part:
                options["train_part"] = part
        compiled = compile_graph(raw, shapes, dtypes, what, **options)
        bound = set(self._arg_names) | set(self._aux_names)
        missing = [name for name, kind, _, _ in compiled.inputs
                   if kind in ("data", "param", "aux") and name not in bound]
        if missing:
            raise MXNetError("the compiled graph has inputs %s that are not bound" % missing)
        heads = [o for o in compiled.outputs if o[1] == ""]
        if part != "backward" and (not self.outputs or [o.shape for o in self.outputs] !=
                                   [tuple(s) for _, _, s, _ in heads]):
            self.outputs = [_zeros(tuple(s), np_dtype(d), self._ctx)
                            for _, _, s, d in heads]
        self._compiled[key] = (compiled, sig)
        return compiled

    def _copy_kwargs(self, kwargs):
        arg_dict = self.arg_dict
        for k, v in kwargs.items():
            if k not in arg_dict:
                raise MXNetError("forward: '%s' is not an argument (arguments: %s)"
                                 % (k, ", ".join(self._arg_names)))
            dst = arg_dict[k]
            if isinstance(v, NDArray) and v.shape == dst.shape and _engine_copy(v, dst):
                continue  # an engine copy: no wait
            if self._gpu or (isinstance(v, NDArray) and v._on_gpu()):
                src = v if isinstance(v, NDArray) else nd.array(np.asarray(v), dtype=dst.dtype)
                if src.shape != dst.shape:
                    raise MXNetError("forward: '%s' has shape %s, the executor was bound with %s"
                                     % (k, src.shape, dst.shape))
                src.copyto(dst)  # through the host or a cast where it must
                continue
            src = v._data if isinstance(v, NDArray) else np.asarray(v)
            if tuple(src.shape) != dst.shape:
                raise MXNetError("forward: '%s' has shape %s, the executor was bound with %s"
                                 % (k, tuple(src.shape), dst.shape))
            np.copyto(dst._data, src, casting="unsafe")

    def forward(self, is_train=False, **kwargs):
        """Runs the graph. Keyword arrays are copied into the bound arguments
        of that name first (as MXNet does). Returns `outputs`.

        is_train=True runs MXNet's training forward (BatchNorm with batch
        statistics, updating the moving ones in aux_dict; Dropout masks) as
        the compiled training step of mx-autodiff, which also computes the
        gradients for head gradients of ones, into buffers of the executor:
        as in MXNet, forward never touches grad_arrays. backward() makes
        those buffers the gradients' storage (grad_arrays keep their
        identity; their old storage becomes the next step's buffer), or
        reruns the step with the given out_grads. After such a rerun the
        executor runs the step's halves instead (_split_train): the forward
        half here, keeping the values its backward half reads (heads among
        them: as in MXNet, an output written in place before backward() is
        what the gradient reads), the backward half at backward()."""
        self._copy_kwargs(kwargs)
        self._pending = None
        self._last_forward = "train" if is_train else "infer"
        if self._monitor is not None:
            self._run_monitor()
        if self._interpreted:
            return self._forward_interpreted(is_train)
        if not is_train:
            compiled = self._compile(False)
            # a graph with samplers (mx.sym.random.*) reads a seed drawn
            # from mx.random's generator, as the training step does
            seed = _next_seed() if any(k == "rng_seed" for _, k, _, _ in compiled.inputs) \
                else None
            if self._gpu:  # pushed on the device arrays
                args = dict(zip(self._arg_names + self._aux_names,
                                self.arg_arrays + self.aux_arrays))
                ins = [nd._device_copy(seed, self._ctx, np_dtype(dt), (1,)) if kind == "rng_seed"
                       else args[name] for name, kind, _, dt in compiled.inputs]
                compiled.push([a._rt for a in ins], [o._rt for o in self.outputs])
                return self.outputs
            ins = self._inputs(compiled, None, None, seed)
            compiled.run(ins, [o._data for o in self.outputs])
            return self.outputs
        seed = _next_seed()
        if self._split_train and self._can_split():
            # the forward half now; backward() runs the other on what it kept
            try:
                halves = self._compile(True, "forward"), self._compile(True, "backward")
            except MXNetError:  # (a graph mx-split-training does not take: the whole step)
                self._split_train = False
                halves = None
            if halves is not None:
                aux_before = self._stage_aux()
                kept = []
                self._push_train(halves[0], None, aux_before, seed, results=kept)
                self._pending = (None, aux_before, seed, ("split", kept))
                return self.outputs
        compiled = self._compile(True)
        if self._can_push():
            aux_before = self._stage_aux()
            held = self._push_train(compiled, None, aux_before, seed, publish=False)
            self._pending = (compiled, aux_before, seed, ("held", held))
            return self.outputs
        aux_before = [np.array(a._data, copy=True) for a in self.aux_arrays]
        results = self._run_train(compiled, None, aux_before, seed)
        self._pending = (compiled, aux_before, seed, results)
        return self.outputs

    def _grad_ready_order(self):
        """The arguments with gradients, in the order the training step's
        plan writes their gradients (its last writing step first to last):
        the order a KVStore should push them in (Module.update). The same
        on every process that compiled the same graph. (The backward half's
        plan where the executor runs the step's halves.)"""
        entry = self._compiled.get((True, "backward")) if self._split_train else None
        entry = entry or self._compiled.get(True)
        if entry is None:
            return None
        compiled = entry[0]
        order = []
        for (name, kind, _, _), step in zip(compiled.outputs, compiled.output_steps):
            if kind == "grad":
                order.append((step, name[:-len("_grad")]))
        return [n for _, n in sorted(order, key=lambda p: p[0])]

    # -- the pushed training step ----------------------------------------------------
    def _can_push(self):
        # grad_req 'add': the pushed step would add into the gradients at
        # forward time, and every forward(is_train=True) without a backward
        # (check_numeric_gradient's) would add again; MXNet's forward never
        # touches gradients. Such executors run the step at forward and
        # publish its gradients at backward() (the other path).
        if "add" in self._grad_req.values() and not self._gpu:
            # (on a GPU the pushed step is the only path: its gradients are
            # held back until backward(), so forward alone adds nothing)
            return False
        return self._all_runtime()

    def _all_runtime(self):
        arrays = self.arg_arrays + self.aux_arrays + self.outputs + \
            [g for g in self.grad_arrays if g is not None]
        return all(a._rt is not None for a in arrays)

    def _staged(self, key, shape, dtype, fill=None):
        a = self._staging.get(key)
        if a is None or a.shape != tuple(shape) or a._sig[1] != dtype:
            if fill is not None:
                a = nd._device_copy(fill, self._ctx, dtype, shape)
            else:
                a = _zeros(tuple(shape), dtype, self._ctx)
            self._staging[key] = a
        return a

    def _stage_aux(self):
        """The auxiliary states as the step reads them (engine copies: the
        step writes the updated ones into aux_arrays; backward(out_grads)
        reruns it from these)."""
        out = []
        for name, a in zip(self._aux_names, self.aux_arrays):
            b = self._staged(("aux_in", name), a.shape, a._sig[1])
            _engine_copy(a, b)
            out.append(b)
        return out

    def _can_split(self):
        """Whether the training step can run as its two halves here: some
        argument wants a gradient, pushed (runtime arrays; grad_req 'add'
        too, the forward half writes no gradient), compiled (no custom
        operator), no monitor."""
        return not self._interpreted and self._monitor is None and \
            any(self._grad_req.get(n, "null") != "null" for n in self._arg_names) and \
            self._all_runtime()

    def _push_train(self, compiled, head_grads, aux_before, seed, publish=True, keep=False,
                    residuals=None, results=None):
        """Pushes the training step. publish=False (forward): the gradients
        go into staging buffers instead of grad_arrays; returns the
        (buffer, grad array) pairs that backward() swaps in. keep: the heads
        and the updated auxiliary states go to staging buffers (backward
        after an inference forward leaves them as they are). A half of the
        step: `residuals`, the forward half's results (the backward half's
        `fwd<j>` inputs: result j); `results`, a list the arrays the forward
        half writes are appended to, in its results' order."""
        args = dict(zip(self._arg_names, self.arg_arrays))
        args.update(zip(self._aux_names, aux_before))
        grads = self.grad_dict
        ins, k = [], 0
        grad_in = set()
        unused = set(compiled.unused_inputs)
        for i, (name, kind, shape, dt) in enumerate(compiled.inputs):
            dtype = np_dtype(dt)
            if kind == "head_grad":
                g = None if head_grads is None else head_grads[k]
                k += 1
                if g is not None and i in unused:
                    # an output no gradient flows back from (argmax,
                    # shape_array): MXNet's backward does not read its
                    # out_grad, whatever its shape
                    g = None
                if g is None:
                    a = self._staged(("ones", tuple(shape), dt), shape, dtype, fill=1)
                else:
                    if tuple(np.shape(g)) != tuple(shape):
                        raise MXNetError("backward: out_grads[%d] has shape %s, the output %s"
                                         % (k - 1, tuple(np.shape(g)), tuple(shape)))
                    a = nd._device_copy(g, self._ctx, dtype)  # (between devices, a cast)
            elif kind == "grad_in":
                a = grads[name[:-len("_grad")]]
                grad_in.add(name)
            elif kind == "rng_seed":
                a = nd._device_copy(seed, self._ctx, dtype, shape)
            elif kind == "residual":
                a = residuals[int(name[len("fwd"):])]
            else:
                a = args[name]
            ins.append(a._rt)
        outs, copies, heads = [], [], iter(self.outputs)
        aux_dict = self.aux_dict
        written = []  # the arrays the step writes, in its results' order
        for name, kind, shape, dt in compiled.outputs:
            if kind == "":
                h = next(heads)
                written.append(self._staged(("head", name), shape, np_dtype(dt)) if keep else h)
                outs.append(written[-1]._rt)
                continue
            if (keep and kind == "aux_out") or kind == "residual":
                # (the forward half's residuals: read by the backward half;
                # the next forward writes them after it, as the engine orders)
                written.append(self._staged(("out", name), shape, np_dtype(dt)))
                outs.append(written[-1]._rt)
                continue
            target = None
            if kind == "grad":
                target = grads.get(name[:-len("_grad")])
            elif kind == "aux_out":
                target = aux_dict.get(name)
            if target is not None and name not in grad_in and (publish or kind != "grad") \
                    and target._sig[1] == np_dtype(dt):
                written.append(target)
            else:  # read by the step too (grad_req add), held back, or not bound
                tmp = self._staged(("out", name), shape, np_dtype(dt))
                written.append(tmp)
                if target is not None:
                    copies.append((tmp, target, kind))
            outs.append(written[-1]._rt)
        compiled.push(ins, outs)
        if results is not None:
            results.extend(written)
        held = []
        for src, dst, kind in copies:
            if not publish and kind == "grad":
                held.append((src, dst))
            else:
                _copy_cast(src, dst)
        return held

    def _inputs(self, compiled, head_grads, aux_values, seed):
        # (_host_data: an array bound on another device, a GPU's, is copied here)
        by_name = dict(zip(self._arg_names, [a._host_data() for a in self.arg_arrays]))
        aux = aux_values if aux_values is not None else [a._host_data() for a in self.aux_arrays]
        by_name.update(zip(self._aux_names, aux))
        grads = self.grad_dict
        ins, k = [], 0
        unused = set(compiled.unused_inputs)
        for i, (name, kind, shape, dt) in enumerate(compiled.inputs):
            if kind == "head_grad":
                g = None if head_grads is None else head_grads[k]
                k += 1
                if i in unused:  # as in _push_train
                    g = None
                d = np.ones(tuple(shape), np_dtype(dt)) if g is None else \
                    np.asarray(g._host_data() if isinstance(g, NDArray) else g, dtype=np_dtype(dt))
                if d.shape != tuple(shape):
                    raise MXNetError("backward: out_grads[%d] has shape %s, the output %s"
                                     % (k - 1, d.shape, tuple(shape)))
            elif kind == "grad_in":
                d = grads[name[:-len("_grad")]]._host_data()
            elif kind == "rng_seed":
                d = np.array([seed], dtype=np_dtype(dt))
            else:
                d = by_name[name]
            ins.append(d if d.flags.c_contiguous else np.ascontiguousarray(d))
        return ins

    def _run_train(self, compiled, head_grads, aux_values, seed, keep=False):
        """One training step: heads into `outputs`, gradients and updated
        auxiliary states returned (name -> array). keep: the heads and the
        auxiliary states are left as they are (backward after an inference
        forward)."""
        ins = self._inputs(compiled, head_grads, aux_values, seed)
        outs, results, heads = [], [], iter(self.outputs)
        for name, kind, shape, dt in compiled.outputs:
            if kind == "" and keep:
                next(heads)
                outs.append(np.empty(tuple(shape), dtype=np_dtype(dt)))
            elif kind == "aux_out" and keep:
                outs.append(np.empty(tuple(shape), dtype=np_dtype(dt)))
            elif kind == "":
                outs.append(next(heads)._data)
            else:
                d = np.empty(tuple(shape), dtype=np_dtype(dt))
                outs.append(d)
                results.append((kind, name, d))
        compiled.run(ins, outs)
        aux_dict = self.aux_dict
        for kind, name, d in results:
            if kind == "aux_out":
                _store(aux_dict[name], d)
        return [(kind, name, d) for kind, name, d in results if kind == "grad"]

    def backward(self, out_grads=None, is_train=True):
        """Gradients of the last forward(is_train=True) into grad_arrays
        (grad_req write: replaced, add: accumulated). `out_grads`: head
        gradients (NDArray or list, one per output); ones when omitted, as
        for MXNet's loss outputs."""
        if self._monitor is not None and any(r != "null" for r in self._grad_req.values()):
            # (MXNet builds no backward nodes when no argument wants a
            # gradient: nothing to report then)
            heads = out_grads
            self._backward(out_grads, is_train)
            self._run_monitor_backward(heads)
            return
        self._backward(out_grads, is_train)

    def _backward(self, out_grads, is_train):
        if self._interpreted:
            return self._backward_interpreted(out_grads)
        if self._gpu and self._pending is None and self._last_forward in ("infer", None):
            # As on the CPU below: the training step on the bound arrays as
            # they are, heads and auxiliary states kept; pushed.
            if out_grads is not None and isinstance(out_grads, (NDArray, np.ndarray)):
                out_grads = [out_grads]
            self._push_train(self._compile(True), _head_grads(out_grads, len(self.outputs)),
                             list(self.aux_arrays), _next_seed(), publish=True, keep=True)
            return
        if self._pending is None and self._last_forward in ("infer", None):
            # As MXNet: the gradients of the last forward's graph, here the
            # training step run again on the same inputs (heads and
            # auxiliary states unchanged; BatchNorm uses batch statistics
            # and Dropout masks in it, as a training forward would). With
            # no forward yet, MXNet's backward reads the bound arrays as
            # they are; so does this training step.
            self._pending = (self._compile(True), None, _next_seed(), "rerun")
        if self._pending is None:
            raise MXNetError("backward: call forward(is_train=True) first")
        compiled, aux_before, seed, grads = self._pending
        if isinstance(grads, str):  # "rerun"
            if out_grads is not None and isinstance(out_grads, (NDArray, np.ndarray)):
                out_grads = [out_grads]
            out_grads = _head_grads(out_grads, len(self.outputs))
            grads = self._run_train(compiled, out_grads, None, seed, keep=True)
            out_grads = None
        if out_grads is not None:
            if isinstance(out_grads, (NDArray, np.ndarray)):
                out_grads = [out_grads]
            out_grads = _head_grads(out_grads, len(self.outputs))
        if isinstance(grads, tuple) and grads[0] == "split":
            # the backward half on the forward half's results, with these
            # head gradients (ones where None) into grad_arrays
            self._push_train(self._compile(True, "backward"), out_grads, aux_before, seed,
                             residuals=grads[1])
            self._pending = None
            return
        if isinstance(grads, tuple):  # the pushed step: ("held", gradient buffers)
            if out_grads is not None:
                # From the next step on, the halves: this step's backward
                # computes the forward again.
                self._split_train = self._split_train or self._can_split()
                # The same step again (same Dropout masks, same auxiliary
                # inputs) with these head gradients, into grad_arrays.
                self._push_train(compiled, list(out_grads), aux_before, seed)
            else:
                for src, dst in grads[1]:
                    if src._sig == dst._sig:
                        # The buffer's storage becomes the gradient's and the
                        # other way round (no copy: the next forward's step
                        # writes the old storage after every pushed reader of
                        # it, the engine orders that). Another array that is
                        # a view of the old gradient no longer shares it.
                        src._rt, dst._rt = dst._rt, src._rt
                        src._npv = dst._npv = None
                    else:
                        _copy_cast(src, dst)
            self._pending = None
            return
        if out_grads is not None:
            grads = self._run_train(compiled, out_grads, aux_before, seed)
            self._split_train = self._split_train or self._can_split()  # (as above)
        grad_dict = self.grad_dict
        for _, name, d in grads:
            arg = name[:-len("_grad")]
            if grad_dict.get(arg) is not None:
                _store(grad_dict[arg], d)
        self._pending = None

    # -- graphs with Python custom operators: run operator by operator ---------------
    def _interp_wrt(self):
        """(argument, gradient array, grad_req) of the arguments that want a
        gradient ('inplace' as 'write')."""
        return [(a, g, "write" if self._grad_req.get(n) == "inplace" else self._grad_req.get(n))
                for n, a, g in zip(self._arg_names, self.arg_arrays, self.grad_arrays)
                if g is not None and self._grad_req.get(n, "null") != "null"]

    def _forward_interpreted(self, is_train):
        """A graph with a Python custom operator, which compiled code cannot
        call: operator by operator (each a cached compiled kernel, the custom
        operator in Python), recorded by autograd for backward()."""
        from . import autograd
        variables = dict(zip(self._arg_names, self.arg_arrays))
        variables.update(zip(self._aux_names, self.aux_arrays))
        wrt = self._interp_wrt()
        record = bool(is_train and wrt)
        if record:
            autograd.mark_variables([a for a, _, _ in wrt], [g for _, g, _ in wrt],
                                    [r for _, _, r in wrt])
        scope = autograd.record(train_mode=is_train) if record else \
            (autograd.train_mode() if is_train else autograd.predict_mode())
        with scope:
            outs = _interpret(self._run_symbol, variables)
        self._interp_heads = outs if record else None
        if not self._outputs or [o.shape for o in self._outputs] != [o.shape for o in outs] \
                or [o.dtype for o in self._outputs] != [o.dtype for o in outs]:
            self._outputs = [_zeros(o.shape, o.dtype, self._ctx) for o in outs]
        for dst, src in zip(self._outputs, outs):
            src.copyto(dst)
        return self._outputs

    def _backward_interpreted(self, out_grads):
        from . import autograd
        if not self._interp_wrt():
            return  # no argument wants a gradient
        if self._interp_heads is None:
            # as MXNet: the gradients of the last forward's graph, on the
            # bound arrays as they are
            self._forward_interpreted(True)
        heads = self._interp_heads
        if out_grads is not None:
            if isinstance(out_grads, (NDArray, np.ndarray)):
                out_grads = [out_grads]
            out_grads = [g if isinstance(g, NDArray) else nd.array(g, ctx=self._ctx)
                         for g in _head_grads(out_grads, len(heads))]
        autograd.backward(heads, head_grads=out_grads, retain_graph=True)

    def copy_params_from(self, arg_params, aux_params=None, allow_extra_params=False):
        """Copies arrays by name into the bound arguments and auxiliary
        states; a name the executor lacks is an error unless
        allow_extra_params."""
        for params, names in ((arg_params, self.arg_dict), (aux_params or {}, self.aux_dict)):
            for name, array in params.items():
                if name in names and (self._gpu or (isinstance(array, NDArray) and
                                                    array._on_gpu())):
                    src = array if isinstance(array, NDArray) else nd.array(np.asarray(array))
                    if src.shape != names[name].shape:
                        raise MXNetError("copy_params_from: '%s' has shape %s, the executor's %s"
                                         % (name, src.shape, names[name].shape))
                    src.copyto(names[name])
                elif name in names:
                    src = array._data if isinstance(array, NDArray) else np.asarray(array)
                    if tuple(src.shape) != names[name].shape:
                        raise MXNetError("copy_params_from: '%s' has shape %s, the executor's %s"
                                         % (name, tuple(src.shape), names[name].shape))
                    np.copyto(names[name]._data, src, casting="unsafe")
                elif not allow_extra_params:
                    raise MXNetError("copy_params_from: '%s' is not a parameter of the "
                                     "executor (allow_extra_params=True ignores it)" % name)

    def reshape(self, partial_shaping=False, allow_up_sizing=False, **kwargs):
        """A new executor for new input shapes (parameters are shared when
        their shapes stay the same)."""
        new = Executor._simple_bind(self._symbol, self._ctx, dict(
            (n, r) for n, r in self._grad_req.items()),
            {n: a._sig[1] for n, a in self.arg_dict.items()}, kwargs)
        def view(old, like):
            # As MXNet's memory sharing: an array no larger than the old one
            # is a view of its memory.
            if like.size <= old.size and like._sig[1] == old._sig[1] and \
                    not self._gpu and old._np.flags.c_contiguous:
                return NDArray(old._np.reshape(-1)[:like.size].reshape(like.shape), self._ctx)
            return like
        for name, a in self.arg_dict.items():
            i = new._arg_names.index(name)
            if name not in kwargs and new.arg_dict[name].shape == a.shape:
                new.arg_arrays[i] = a
            else:
                new.arg_arrays[i] = view(a, new.arg_arrays[i])
            g = self.grad_arrays[self._arg_names.index(name)]
            if g is not None and new.grad_arrays[i] is not None:
                new.grad_arrays[i] = g if g.shape == new.grad_arrays[i].shape else \
                    view(g, new.grad_arrays[i])
        for name, a in self.aux_dict.items():
            if new.aux_dict[name].shape == a.shape:
                new.aux_arrays[new._aux_names.index(name)] = a
        new.outputs = [view(old, out) for old, out in zip(self.outputs, new.outputs)]
        # as MXNet's GraphExecutor::Reshape: the monitor callback stays
        new._monitor = self._monitor
        new._split_train = self._split_train
        return new

    def set_monitor_callback(self, callback, monitor_all=False):
        """MXNet's monitor: at each forward, callback(name, array) for every
        operator output ('<node>_output', ...), in graph order; with
        monitor_all also every variable and every operator input
        ('<node>_<input name>', '<node>_input0' where MXNet registers no
        input names). The values are those of an inference pass over the
        symbol's internals on the bound arrays (the graph that runs is
        compiled whole: its intermediate values are not kept), made before
        the forward itself."""
        self._monitor = (callback, bool(monitor_all))
        self._monitor_exec = None

    def _monitor_walker(self):
        if self._monitor_exec is None:
            self._monitor_exec = OpMonitor(self._symbol, self._ctx)
        return self._monitor_exec

    def _run_monitor(self):
        callback, monitor_all = self._monitor
        for name, _, value in self._monitor_walker().walk(self.arg_dict, self.aux_dict,
                                                          monitor_all, cached_op=False):
            callback(name, value)

    def _run_monitor_backward(self, out_grads):
        callback, _ = self._monitor
        if out_grads is not None and not isinstance(out_grads, (list, tuple)):
            out_grads = [out_grads]
        for name, value in self._monitor_walker().walk_backward(self.arg_dict, self.aux_dict,
                                                                out_grads):
            callback(name, value)

    def get_optimized_symbol(self):
        """The symbol the executor runs (common subexpressions merged unless
        MXNET_ELIMINATE_COMMON_EXPR=0 at binding)."""
        return self._run_symbol

    def debug_str(self):
        """MXNet's executor printout: the outputs, each variable and
        operator in execution order with its inputs, then the memory the
        compiled plan's arena takes (forward and backward when any argument
        has a gradient) as MXNet's "Total N MB allocated"."""
        import json
        train = any(r != "null" for r in self._grad_req.values())
        compiled = self._compile(train)
        graph = json.loads(self._symbol.tojson())
        nodes = graph["nodes"]

        def entry(e):
            return "%s(%d)" % (nodes[e[0]]["name"], e[1])
        lines = ["Symbol Outputs:"]
        lines += ["\toutput[%d]=%s" % (i, entry(h)) for i, h in enumerate(graph["heads"])]
        for n in nodes:
            if n["op"] == "null":
                lines.append("Variable:%s" % n["name"])
                continue
            lines += ["--------------------", "Op:%s, Name=%s" % (n["op"], n["name"]), "Inputs:"]
            lines += ["\targ[%d]=%s" % (i, entry(e)) for i, e in enumerate(n["inputs"])]
            if n.get("attrs"):
                lines.append("Attrs:")
                lines += ["\t%s=%s" % kv for kv in sorted(n["attrs"].items())]
        lines.append("Total %d MB allocated" % (compiled.arena_bytes >> 20))
        lines.append("Total %d steps in the compiled plan" % compiled.num_steps)
        return "\n".join(lines) + "\n"


class OpMonitor:
    """MXNet's monitor callbacks (Executor.set_monitor_callback and
    HybridBlock.register_op_hook) over a graph that runs compiled whole: the
    values of each operator's inputs and outputs come from one inference pass
    over the symbol's internals on the same arrays (its own executor, bound
    again when a shape or dtype changes)."""

    def __init__(self, symbol, ctx):
        self._symbol = symbol
        self._internals = symbol.get_internals()
        self._ctx = ctx
        self._exe = None

    def _forward_values(self, args, aux):
        sig = tuple((n, a.shape, a._sig[1].str) for n, a in
                    list(args.items()) + list(aux.items()))
        exe = self._exe
        if exe is None or self._sig != sig:
            exe = self._internals.bind(self._ctx, args=dict(args), aux_states=dict(aux),
                                       grad_req="null")
            exe._monitor = None
            self._exe, self._sig = exe, sig
        else:
            exe.arg_arrays = [args[n] for n in exe._arg_names]
            exe.aux_arrays = [aux[n] for n in exe._aux_names]
        return exe.forward(is_train=False)

    def walk_backward(self, args, aux, out_grads):
        """(name, value) of MXNet's backward nodes' outputs (monitor_all or
        not): per operator, in reverse graph order, '<node>_backward_<j>'
        the gradient its backward passes to input j. Computed operator by
        operator (each run imperatively under autograd on the forward
        values of an inference pass, with the total gradient of its
        outputs), not taken from the compiled backward pass; the inputs of
        the backward nodes (monitor_all) are not reported."""
        from . import autograd
        from . import ndarray as nd
        from .symbol import _post_order
        sym = self._symbol
        variables = dict(args, **aux)
        values = {(id(node), i): v for (node, i), v in
                  zip(self._internals._outputs, self._forward_values(args, aux))}
        total = {}
        for k, (node, i) in enumerate(sym._outputs):
            head = out_grads[k] if out_grads is not None and k < len(out_grads) else None
            value = values.get((id(node), i)) if node.op != "null" else variables.get(node.name)
            if value is not None:
                total[(id(node), i)] = head if head is not None else nd.ones_like(value)
        for node in reversed(_post_order(sym._outputs)):
            if node.op == "null":
                continue
            xs = []
            for src, k, _ in node.inputs:
                v = variables.get(src.name) if src.op == "null" else values.get((id(src), k))
                x = nd.array(v.asnumpy(), ctx=v.context, dtype=v.dtype)
                x.attach_grad()
                xs.append(x)
            with autograd.record(train_mode=True):
                outs = nd._invoke(node.op, xs, dict(node.attrs))
            outs = outs if isinstance(outs, (list, tuple)) else [outs]
            heads = [total.get((id(node), i)) for i in range(len(outs))]
            heads = [h if h is not None else nd.zeros_like(o) for h, o in zip(heads, outs)]
            autograd.backward(list(outs), head_grads=heads)
            for j, ((src, k, _), x) in enumerate(zip(node.inputs, xs)):
                g = x.grad
                yield "%s_backward_%d" % (node.name, j), g
                key = (id(src), k)
                total[key] = g if key not in total else total[key] + g

    def walk(self, args, aux, monitor_all, cached_op):
        """(name, operator, value) in MXNet's order: per operator, with
        monitor_all each input ('<node>_<input name>'; the GraphExecutor
        first names a variable input by itself), then its outputs (the
        executor by list_outputs names, a CachedOp by FListOutputNames or
        index: '<node>_output', '<node>_0'; a CachedOp skips outputs that
        nothing reads)."""
        from .symbol import _post_order
        values = self._forward_values(args, aux)
        by_entry = {(id(n), i): v for (n, i), v in zip(self._internals._outputs, values)}
        names = dict(zip(((id(n), i) for n, i in self._internals._outputs),
                         self._internals.list_outputs()))
        variables = dict(args, **aux)
        nodes = _post_order(self._symbol._outputs)
        # a CachedOp allocates no array for an output nothing reads
        used = {(id(n), i) for n, i in self._symbol._outputs}
        used.update((id(src), k) for node in nodes for src, k, _ in node.inputs)
        for node in nodes:
            if node.op == "null":
                continue
            spec = _ops.OP_NAMES.get(node.op)
            if monitor_all:
                labels = spec.monitor_input_names(node.attrs, len(node.inputs)) if spec else \
                    ["input%d" % j for j in range(len(node.inputs))]
                for (src, k, _), label in zip(node.inputs, labels):
                    if src.op == "null":
                        value = variables.get(src.name)
                        if not cached_op:
                            yield src.name, node.op, value
                    else:
                        value = by_entry.get((id(src), k))
                    yield "%s_%s" % (node.name, label), node.op, value
            n_out = node.visible_outputs()
            if cached_op and spec is not None:
                labels = ["%s_%s" % (node.name, o) for o in spec.monitor_output_names(node.attrs)]
            else:
                labels = [names.get((id(node), i)) for i in range(n_out)]
            for i, label in zip(range(n_out), labels):
                if cached_op and (id(node), i) not in used:
                    continue
                if (id(node), i) in by_entry and label is not None:
                    yield label, node.op, by_entry[(id(node), i)]


def _interpret(symbol, variables):
    """The outputs of `symbol` computed operator by operator on NDArrays
    (mx.nd's kernels, the Python custom operators through mx.nd.Custom), so
    that autograd records them when recording."""
    from . import ndarray as nd
    from .operator import _custom_nd
    from .symbol import _inline_cached_ops, _post_order
    heads = _inline_cached_ops(symbol._outputs)
    values = {}
    for node in _post_order(heads):
        if node.op == "null":
            if node.name not in variables:
                raise MXNetError("'%s' is not bound" % node.name)
            values[(id(node), 0)] = variables[node.name]
            continue
        if node.subgraphs:
            raise MXNetError("node '%s': a %s node in a graph with Python custom operators "
                             "(which runs operator by operator) is not supported"
                             % (node.name, node.op))
        xs = [values[(id(src), k)] for src, k, _ in node.inputs]
        attrs = {k: v for k, v in node.attrs.items()
                 if not (k.startswith("__") and k.endswith("__"))}
        if node.op == "Custom":
            outs = _custom_nd(*xs, **attrs)
        else:
            outs = nd._invoke(node.op, xs, attrs)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        for i, o in enumerate(outs):
            values[(id(node), i)] = o
    return [values[(id(n), i)] for n, i in heads]


def _copy_cast(src, dst):
    """dst[:] = src, converting the type where a bound array's dtype differs
    from the compiled graph's (MXNet's executor writes a float16 gradient
    into a float64 grad array)."""
    if not _engine_copy(src, dst):
        dst[:] = src if src.dtype == dst.dtype else src.astype(dst.dtype)


def _head_grads(out_grads, num_outputs):
    """The out_grads backward reads: one per output; extras are ignored (as
    MXNet's GraphExecutor, which reads one per output), too few is an
    error."""
    if out_grads is None:
        return None
    if len(out_grads) < num_outputs:
        raise MXNetError("backward: %d out_grads for %d outputs" % (len(out_grads), num_outputs))
    return list(out_grads)[:num_outputs]


def _grad_reqs(grad_req, names):
    if isinstance(grad_req, str):
        reqs = {n: grad_req for n in names}
    elif isinstance(grad_req, (list, tuple)):
        reqs = dict(zip(names, grad_req))
    elif isinstance(grad_req, dict):
        reqs = {n: grad_req.get(n, "null") for n in names}
    else:
        raise MXNetError("grad_req: expected a string, list or dict")
    for n, r in reqs.items():
        if r not in ("write", "add", "null", "inplace"):
            raise MXNetError("grad_req '%s' for '%s': expected write, add or null" % (r, n))
    return reqs


def _arrays_in_order(arrays, names, what, allow_missing=False):
    if isinstance(arrays, dict):
        # (as MXNet: names the symbol does not have are ignored)
        out = []
        for n in names:
            if n not in arrays and not allow_missing:
                raise MXNetError("%s: no array for '%s'" % (what, n))
            out.append(_as_ndarray(arrays.get(n), n, what))
        return out
    arrays = list(arrays)
    if len(arrays) != len(names):
        raise MXNetError("%s: %d arrays for %d names (%s)" % (what, len(arrays), len(names), names))
    return [_as_ndarray(a, n, what) for a, n in zip(arrays, names)]


def _as_ndarray(a, name, what):
    if a is None or isinstance(a, NDArray):
        return a
    raise MXNetError("%s: '%s' must be an NDArray, got %s" % (what, name, type(a).__name__))
