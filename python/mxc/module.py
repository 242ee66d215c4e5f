"""mx.mod.BaseModule and mx.mod.Module: MXNet 1.x's modules.

bind() makes an Executor (Symbol.simple_bind) for the data and label
shapes (one per context for a list of contexts: the batch is split along
each input's batch axis, its layout's 'N', by work_load_list as MXNet's
executor group does; the executors share the parameter arrays, their
gradients are summed before the update, outputs are concatenated); forward(is_train=True) runs the compiled training step of
mx-autodiff (forward and gradients at once), backward() stores the
gradients, update() applies the optimizer (mx.optimizer, numpy, in place on
the executor's parameter arrays). fit() is MXNet's training loop, with a
tqdm progress bar per epoch (throughput and the training metric; none when
tqdm is missing, MXC_QUIET=1 or MXC_PROGRESS=0).
"""
import logging
import os
import time

import numpy as np

from . import initializer as _init
from . import metric as _metric
from . import optimizer as _opt
from .base import MXNetError, MXNetValueError
from .context import cpu
from .io import DataDesc
from .model import BatchEndParam, load_checkpoint, save_checkpoint
from .ndarray import NDArray
from . import ndarray as nd


def _as_list(obj):
    if obj is None:
        return []
    if isinstance(obj, (list, tuple)):
        return list(obj)
    return [obj]


def _descs(shapes):
    out = []
    for s in shapes or []:
        d = s if isinstance(s, DataDesc) else DataDesc(s[0], s[1])
        if not isinstance(d.shape, (tuple, list)) or \
                not all(isinstance(x, (int, np.integer)) for x in d.shape):
            raise TypeError("'%s': a shape is a tuple of ints, got %r" % (d.name, d.shape))
        out.append(d)
    return out


def _split_input_slice(batch_size, work_load_list):
    """MXNet's split of a batch over devices: slice i gets
    round(work_load_i * batch_size / total) samples, the last one the rest."""
    total = float(sum(work_load_list))
    sizes = [int(round(w * batch_size / total)) for w in work_load_list]
    if sum(sizes) < batch_size:
        sizes[-1] += batch_size - sum(sizes)
    slices, end = [], 0
    for n in sizes:
        begin = min(end, batch_size)
        end = min(begin + n, batch_size)
        if begin >= end:
            raise ValueError("Too many slices. Some splits are empty.")
        slices.append(slice(begin, end))
    return slices


def _take(arr, axis, slc, ctx):
    """arr[..., slc, ...] on `axis`, for the executor on `ctx` to copy: a
    view; for a GPU a runtime array on the host (its copy to the device is
    an engine operation: a numpy view's would first wait for all pending
    work, the other devices' steps included)."""
    d = arr._host_data() if isinstance(arr, NDArray) else np.asarray(arr)
    key = (slice(None),) * axis + (slc,)
    if ctx.device_type == "gpu":
        return nd._new(d[key], cpu())
    return NDArray(d[key])


def _merge(arrays, axis):
    """MXNet's merge_multi_context: the devices' arrays concatenated on the
    batch axis (the array itself for one device or no batch axis)."""
    if len(arrays) == 1 or axis < 0:
        return arrays[0]
    return nd.array(np.concatenate([a._host_data() for a in arrays], axis=axis),
                    ctx=arrays[0].context, dtype=arrays[0].dtype)


def _shares_params(ctx, first):
    """Whether the executor on `ctx` binds the first executor's parameter
    arrays (CPUs: one memory) or holds copies of its own on its device
    (GPUs other than the first's), which Module._sync_params refreshes."""
    return ctx == first or (ctx.device_type != "gpu" and first.device_type != "gpu")


class BaseModule:
    """MXNet's BaseModule: the high-level methods (fit, score, predict,
    iter_predict, forward_backward) written on the low-level ones a module
    defines (bind, init_params, init_optimizer, forward, backward, update,
    update_metric, get_outputs, get_params)."""

    def __init__(self, logger=logging):
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol = None

    def _abstract(self, what):
        raise NotImplementedError("%s.%s" % (type(self).__name__, what))

    def bind(self, *args, **kwargs):
        self._abstract("bind")

    def init_params(self, *args, **kwargs):
        self._abstract("init_params")

    def init_optimizer(self, *args, **kwargs):
        self._abstract("init_optimizer")

    def forward(self, data_batch, is_train=None):
        self._abstract("forward")

    def backward(self, out_grads=None):
        self._abstract("backward")

    def update(self):
        self._abstract("update")

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        self._abstract("update_metric")

    def get_outputs(self, merge_multi_context=True):
        self._abstract("get_outputs")

    def get_params(self):
        self._abstract("get_params")

    @property
    def symbol(self):
        return self._symbol

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init,
                         allow_extra=allow_extra)

    def save_params(self, fname):
        arg_params, aux_params = self.get_params()
        save_dict = {("arg:%s" % k): v for k, v in arg_params.items()}
        save_dict.update({("aux:%s" % k): v for k, v in aux_params.items()})
        nd.save(fname, save_dict)

    def load_params(self, fname):
        save_dict = nd.load(fname)
        arg_params, aux_params = {}, {}
        for k, value in save_dict.items():
            arg_type, _, name = k.partition(":")
            if arg_type == "arg":
                arg_params[name] = value
            elif arg_type == "aux":
                aux_params[name] = value
            else:
                raise MXNetError("Invalid param file " + fname)
        self.set_params(arg_params, aux_params)

    def forward_backward(self, data_batch):
        self.forward(data_batch, is_train=True)
        self.backward()

    # -- high level -----------------------------------------------------------------------
    def _fit_epoch_begin(self, epoch, train_data):
        """fit()'s hook before each epoch's batches (SVRGModule's full
        gradient); nothing here."""

    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None,
              score_end_callback=None, reset=True, epoch=0, sparse_row_id_fn=None):
        """Runs the module on eval_data and returns the metric's
        [(name, value)]."""
        if not (self.binded and self.params_initialized):
            raise MXNetError("score: bind and initialize the parameters first")
        if reset:
            eval_data.reset()
        eval_metric = _metric.create(eval_metric)
        eval_metric.reset()
        actual_num_batch = 0
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.forward(eval_batch, is_train=False)
            self.update_metric(eval_metric, eval_batch.label)
            if batch_end_callback is not None:
                params = BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                                       locals=locals())
                for cb in _as_list(batch_end_callback):
                    cb(params)
            actual_num_batch += 1
        if score_end_callback:
            params = BatchEndParam(epoch=epoch, nbatch=actual_num_batch,
                                   eval_metric=eval_metric, locals=locals())
            for cb in _as_list(score_end_callback):
                cb(params)
        return eval_metric.get_name_value()

    def iter_predict(self, eval_data, num_batch=None, reset=True, sparse_row_id_fn=None):
        if reset:
            eval_data.reset()
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.forward(eval_batch, is_train=False)
            pad = eval_batch.pad or 0
            outputs = [NDArray(o._host_data()[0:o.shape[0] - pad].copy())
                       for o in self.get_outputs()]
            yield (outputs, nbatch, eval_batch)

    def predict(self, eval_data, num_batch=None, merge_batches=True, reset=True,
                always_output_list=False, sparse_row_id_fn=None):
        """The outputs on eval_data (the padding of the last batch removed),
        concatenated over the batches."""
        if not (self.binded and self.params_initialized):
            raise MXNetError("predict: bind and initialize the parameters first")
        if isinstance(eval_data, (np.ndarray, NDArray)):
            from .io import NDArrayIter
            a = eval_data._host_data() if isinstance(eval_data, NDArray) else eval_data
            eval_data = NDArrayIter(a, batch_size=self._data_shapes[0].shape[0],
                                    last_batch_handle="pad")
        output_list = [outs for outs, _, _ in self.iter_predict(eval_data, num_batch, reset)]
        if not output_list:
            return output_list
        if merge_batches:
            num_outputs = len(output_list[0])
            merged = [NDArray(np.concatenate([o[i]._host_data() for o in output_list], axis=0))
                      for i in range(num_outputs)]
            if num_outputs == 1 and not always_output_list:
                return merged[0]
            return merged
        return output_list

    def fit(self, train_data, eval_data=None, eval_metric="acc", epoch_end_callback=None,
            batch_end_callback=None, kvstore="local", optimizer="sgd",
            optimizer_params=(("learning_rate", 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=None, arg_params=None, aux_params=None,
            allow_missing=False, force_rebind=False, force_init=False, begin_epoch=0,
            num_epoch=None, validation_metric=None, monitor=None, sparse_row_id_fn=None):
        """MXNet's training loop: per epoch, forward/backward/update over
        train_data (metric updated, batch_end_callback called), then
        epoch_end_callback(epoch, symbol, arg_params, aux_params) and, with
        eval_data, the validation score."""
        if num_epoch is None:
            raise MXNetError("fit: please specify number of epochs")
        if initializer is None:
            initializer = _init.Uniform(0.01)
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label,
                  for_training=True, force_rebind=force_rebind)
        self.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                            optimizer_params=optimizer_params)
        if validation_metric is None:
            validation_metric = eval_metric
        if not isinstance(eval_metric, _metric.EvalMetric):
            eval_metric = _metric.create(eval_metric)
        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            self._fit_epoch_begin(epoch, train_data)
            nbatch = 0
            samples = 0
            bar = _progress_bar(train_data, epoch, num_epoch)
            for data_batch in train_data:
                self.forward_backward(data_batch)
                self.update()
                self.update_metric(eval_metric, data_batch.label)
                data = getattr(data_batch, "data", None)
                samples += data[0].shape[0] if data else 0
                if bar is not None:
                    elapsed = max(time.time() - tic, 1e-9)
                    post = {"samples/s": "%.0f" % (samples / elapsed)}
                    for name, value in eval_metric.get_global_name_value():
                        post[name] = "%.4f" % value
                    bar.set_postfix(post, refresh=False)
                    bar.update(1)
                if batch_end_callback is not None:
                    params = BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                                           locals=locals())
                    for cb in _as_list(batch_end_callback):
                        cb(params)
                nbatch += 1
            if bar is not None:
                bar.close()
            for name, val in eval_metric.get_global_name_value():
                self.logger.info("Epoch[%d] Train-%s=%f", epoch, name, val)
            toc = time.time()
            self.logger.info("Epoch[%d] Time cost=%.3f", epoch, toc - tic)
            arg_params_, aux_params_ = self.get_params()
            if epoch_end_callback is not None:
                for cb in _as_list(epoch_end_callback):
                    cb(epoch, self._symbol, arg_params_, aux_params_)
            if eval_data is not None:
                res = self.score(eval_data, validation_metric,
                                 score_end_callback=eval_end_callback,
                                 batch_end_callback=eval_batch_end_callback, epoch=epoch)
                for name, val in res:
                    self.logger.info("Epoch[%d] Validation-%s=%f", epoch, name, val)
            train_data.reset()


def _prepare_group2ctxs(group2ctxs, ctx_len):
    """One {ctx_group: Context} per context from Module's group2ctxs (MXNet's
    executor_group._prepare_group2ctxs): None, a list of dicts (one per
    context), or a dict whose values are a Context or a list of one or of
    ctx_len Contexts."""
    from .context import Context
    if group2ctxs is None:
        return [None] * ctx_len
    if isinstance(group2ctxs, list):
        if len(group2ctxs) != ctx_len:
            raise MXNetError("Module: group2ctxs has %d entries for %d contexts"
                             % (len(group2ctxs), ctx_len))
        return group2ctxs
    if not isinstance(group2ctxs, dict):
        raise MXNetError("Module: group2ctxs must be a dict or a list of dicts, not %s"
                         % type(group2ctxs).__name__)
    ret = [{} for _ in range(ctx_len)]
    for k, v in group2ctxs.items():
        if isinstance(v, Context):
            ctxs = [v] * ctx_len
        elif len(v) == 1:
            ctxs = list(v) * ctx_len
        elif len(v) == ctx_len:
            ctxs = list(v)
        else:
            raise MXNetError("Module: group2ctxs['%s'] has %d contexts; want 1 or %d"
                             % (k, len(v), ctx_len))
        for i in range(ctx_len):
            ret[i][k] = ctxs[i]
    return ret


class Module(BaseModule):
    """A Symbol with its data/label names, bound to a context (or a list of
    them: data parallelism over the batch)."""

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",),
                 logger=logging, context=None, work_load_list=None, fixed_param_names=None,
                 state_names=None, group2ctxs=None, compression_params=None):
        BaseModule.__init__(self, logger)
        ctxs = _as_list(context) or [cpu()]
        self._contexts = ctxs
        self._context = ctxs[0]
        self._group2ctxs = _prepare_group2ctxs(group2ctxs, len(ctxs))
        self._work_load_list = list(work_load_list) if work_load_list else [1] * len(ctxs)
        if len(self._work_load_list) != len(ctxs):
            raise MXNetError("Module: %d work loads for %d contexts"
                             % (len(self._work_load_list), len(ctxs)))
        self._symbol = symbol
        arg_names = symbol.list_arguments()
        self._data_names = list(data_names or [])
        for n in self._data_names:
            if n not in arg_names:
                raise MXNetError("Module: data name '%s' is not an argument of the symbol "
                                 "(arguments: %s)" % (n, ", ".join(arg_names)))
        # label names the symbol does not have are dropped (MXNet warns)
        self._label_names = [n for n in (label_names or []) if n in arg_names]
        self._state_names = list(state_names or [])
        self._fixed_param_names = list(fixed_param_names or [])
        inputs = set(self._data_names + self._label_names + self._state_names)
        self._param_names = [n for n in arg_names if n not in inputs]
        self._aux_names = symbol.list_auxiliary_states()
        self._output_names = symbol.list_outputs()
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._exec = None
        self._execs = []  # one per context; _exec is the first
        # every executor holds parameters of its own (kvstore=None over
        # several devices, init_optimizer), even CPUs that would share
        self._separate_params = False
        self._slices = None
        self._arg_params = None
        self._aux_params = None
        self._optimizer = None
        self._updater = None
        self._kvstore = None
        self._update_on_kvstore = False
        self._preload_opt_states = None
        self._data_shapes = None
        self._label_shapes = None

    # -- loading ------------------------------------------------------------------------
    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs):
        """A Module from a checkpoint (prefix-symbol.json, prefix-%04d.params;
        prefix-%04d.states with load_optimizer_states)."""
        sym, args, auxs = load_checkpoint(prefix, epoch)
        mod = Module(symbol=sym, **kwargs)
        mod._arg_params = args
        mod._aux_params = auxs
        mod.params_initialized = True
        if load_optimizer_states:
            mod._preload_opt_states = "%s-%04d.states" % (prefix, epoch)
        return mod

    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False, remove_amp_cast=True):
        """prefix-symbol.json and prefix-%04d.params (and prefix-%04d.states)."""
        self._symbol.save("%s-symbol.json" % prefix, remove_amp_cast=remove_amp_cast)
        param_name = "%s-%04d.params" % (prefix, epoch)
        self.save_params(param_name)
        self.logger.info('Saved checkpoint to "%s"', param_name)
        if save_optimizer_states:
            self.save_optimizer_states("%s-%04d.states" % (prefix, epoch))

    # -- properties ---------------------------------------------------------------------
    @property
    def symbol(self):
        return self._symbol

    @property
    def data_names(self):
        return self._data_names

    @property
    def label_names(self):
        return self._label_names

    @property
    def output_names(self):
        return self._output_names

    @property
    def data_shapes(self):
        self._check_binded()
        return self._data_shapes

    @property
    def label_shapes(self):
        self._check_binded()
        return self._label_shapes

    @property
    def output_shapes(self):
        self._check_binded()
        _, out_shapes, _ = self._symbol.infer_shape(**self._input_shapes())
        return list(zip(self._output_names, out_shapes))

    def _check_binded(self):
        if not self.binded:
            raise MXNetError("Module: call bind() first")

    def _input_shapes(self):
        return {d.name: d.shape for d in self._data_shapes + (self._label_shapes or [])}

    # -- parameters ---------------------------------------------------------------------
    def get_params(self):
        """(arg_params, aux_params): copies of the parameters."""
        if not self.params_initialized:
            raise MXNetError("Module: parameters are not initialized")
        # (on the host, as MXNet's: parameters on a GPU are copied back)
        def host(v):
            return v.copyto(cpu()) if v._on_gpu() else v.copy()
        aux = {k: host(v) for k, v in self._aux_params.items()}
        args = {k: host(v) for k, v in self._arg_params.items()}
        if len(self._execs) > 1:
            # As MXNet: the devices' auxiliary states averaged, and their
            # parameters where they hold copies of their own (equal unless
            # trained without a store, _update_each_device).
            def mean(arrays, dtype):
                total = sum(a._host_data().astype(np.float64) for a in arrays)
                return nd.array(total / len(arrays), dtype=dtype)
            for k in aux:
                aux[k] = mean([ex.aux_dict[k] for ex in self._execs], aux[k].dtype)
            if any(self._holds_own_params(ex) for ex in self._execs):
                for k in args:
                    args[k] = mean([ex.arg_dict[k] for ex in self._execs], args[k].dtype)
        return (args, aux)

    def init_params(self, initializer=None, arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Initializes the parameters: from arg_params/aux_params where given,
        else with `initializer` (default Uniform(0.01), as MXNet), by name."""
        if self.params_initialized and not force_init:
            return
        self._check_binded()
        if initializer is None and arg_params is None and aux_params is None:
            initializer = _init.Uniform(0.01)
        attrs = self._symbol.attr_dict()
        groups = ((arg_params, self._param_names, self._exec.arg_dict),
                  (aux_params, self._aux_names, self._exec.aux_dict))
        # As MXNet: a missing parameter is an MXNetError (a RuntimeError),
        # checked first; an extra one a ValueError (its set_params).
        for given, names, _ in groups:
            if given is None:
                continue
            if not allow_missing:
                for name in names:
                    if name not in given:
                        raise MXNetError("%s is not presented" % name)
            if not allow_extra:
                extra = [k for k in given if k not in names]
                if extra:
                    raise MXNetValueError("init_params: %s are not parameters of the module "
                                          "(allow_extra=True ignores them)" % extra)
        for given, names, table in groups:
            for name in names:
                arr = table[name]
                if given is not None and name in given:
                    src = given[name]
                    src = src._host_data() if isinstance(src, NDArray) else np.asarray(src)
                    if tuple(src.shape) != arr.shape:
                        raise MXNetError("init_params: '%s' has shape %s, the module's %s"
                                         % (name, tuple(src.shape), arr.shape))
                    nd._store(arr, src)  # (a GPU array's by a copy to the device)
                elif initializer is not None:
                    # (initializers are numpy code: on the host, then copied)
                    target = arr if not arr._on_gpu() else nd._zeros_any(arr.shape,
                                                                         dtype=arr.dtype)
                    _init.create(initializer)(_init.InitDesc(name, attrs.get(name, {})), target)
                    if target is not arr:
                        target.copyto(arr)
        self._arg_params = {n: self._exec.arg_dict[n] for n in self._param_names}
        self._aux_params = dict(self._exec.aux_dict)
        for ex in self._execs[1:]:  # the parameters are shared (or copied); aux states copied
            for n, a in self._exec.aux_dict.items():
                ex.aux_dict[n][:] = a
        self._sync_params()
        self.params_initialized = True

    def _sync_params(self):
        """Copies the first executor's parameters to the executors on other
        GPUs (each holds its own, _shares_params): after they are set and
        after each update (the first's are the ones updated; MXNet updates
        every device's copy with the same summed gradient instead, to the
        same values)."""
        first = self._exec.arg_dict
        for ex in self._execs[1:]:
            if self._holds_own_params(ex):
                for n in self._param_names:
                    first[n].copyto(ex.arg_dict[n])

    def _holds_own_params(self, ex):
        """Whether executor `ex` binds parameter arrays of its own (not the
        first executor's)."""
        return ex is not self._exec and not self._shares_first(ex._ctx, self._exec._ctx)

    def _shares_first(self, ctx, first):
        """Whether the executor on `ctx` binds the first executor's (on
        `first`) parameter arrays: _shares_params, unless every device
        trains a copy of its own (kvstore=None, init_optimizer)."""
        return not self._separate_params and _shares_params(ctx, first)

    def _share_params(self, ex, other):
        """Binds executor `ex` to executor `other`'s parameter arrays (by
        name, where the shapes agree)."""
        for i, n in enumerate(ex._arg_names):
            if n in self._param_names and n in other.arg_dict and \
                    other.arg_dict[n].shape == ex.arg_arrays[i].shape:
                ex.arg_arrays[i] = other.arg_dict[n]

    # -- binding ------------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Allocates the executor for these input shapes (a list of DataDesc or
        (name, shape) pairs)."""
        if force_rebind:
            self.binded = False
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if shared_module is not None and not (shared_module.binded and
                                              shared_module.params_initialized):
            raise MXNetError("bind: shared_module must be bound and initialized")
        if shared_module is not None and len(shared_module._execs) != len(self._contexts):
            raise MXNetError("bind: shared_module runs on %d contexts, this module on %d"
                             % (len(shared_module._execs), len(self._contexts)))
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._data_shapes = _descs(data_shapes)
        self._label_shapes = _descs(label_shapes) if label_shapes else None
        names = [d.name for d in self._data_shapes]
        if sorted(names) != sorted(self._data_names):
            raise MXNetError("bind: data shapes for %s, the module's data names are %s"
                             % (names, self._data_names))
        if self._label_shapes:
            for d in self._label_shapes:
                if d.name not in self._label_names:
                    raise MXNetError("bind: '%s' is not a label of the module (labels: %s)"
                                     % (d.name, self._label_names))
        # MXNet's DataParallelExecutorGroup: a string for every argument by
        # its role, a list / tuple per argument in order, a dict over the
        # role defaults ('write' for trained ones)
        arg_names = self._symbol.list_arguments()
        if not for_training:
            grad_req = "null"
        if isinstance(grad_req, (list, tuple)):
            if len(grad_req) != len(arg_names):
                raise MXNetError("bind: grad_req has %d entries for %d arguments"
                                 % (len(grad_req), len(arg_names)))
            reqs = dict(zip(arg_names, grad_req))
        elif isinstance(grad_req, (str, dict)):
            default = grad_req if isinstance(grad_req, str) else "write"
            reqs = {}
            for n in arg_names:
                if n in self._param_names:
                    reqs[n] = "null" if n in self._fixed_param_names else default
                elif n in self._data_names:
                    reqs[n] = default if inputs_need_grad else "null"
                else:
                    reqs[n] = "null"
            if isinstance(grad_req, dict):
                reqs.update(grad_req)
        else:
            raise ValueError("grad_req must be one of str, list, tuple, or dict.")
        type_dict = {d.name: d.dtype for d in self._data_shapes + (self._label_shapes or [])
                     if getattr(d, "dtype", None) is not None}
        old_args, old_aux = self._arg_params, self._aux_params
        self._grad_reqs = reqs  # per argument
        self._grad_req = grad_req  # as given (MXNet keeps it)
        self._type_dict = type_dict
        self._execs = self._bind_execs(self._input_shapes())
        self._exec = self._execs[0]
        self.binded = True
        if shared_module is not None:
            # As MXNet: the parameters, auxiliary states and gradients of the
            # same name and shape are shared_module's arrays.
            for ex, other in zip(self._execs, shared_module._execs):
                for i, n in enumerate(ex._arg_names):
                    if n in self._param_names and n in other.arg_dict and \
                            other.arg_dict[n].shape == ex.arg_arrays[i].shape:
                        ex.arg_arrays[i] = other.arg_dict[n]
                        g = other.grad_dict.get(n)
                        if g is not None and ex.grad_arrays[i] is not None and \
                                g.shape == ex.grad_arrays[i].shape:
                            ex.grad_arrays[i] = g
                for i, n in enumerate(ex._aux_names):
                    if n in other.aux_dict and other.aux_dict[n].shape == ex.aux_arrays[i].shape:
                        ex.aux_arrays[i] = other.aux_dict[n]
            self._arg_params = {n: self._exec.arg_dict[n] for n in self._param_names}
            self._aux_params = dict(self._exec.aux_dict)
            self.params_initialized = True
            if shared_module.optimizer_initialized:  # as MXNet's bind
                self.borrow_optimizer(shared_module)
            return
        if self.params_initialized and old_args is not None:
            # parameters held before binding (Module.load, set_params, a rebind)
            self.params_initialized = False
            self.init_params(initializer=None, arg_params=old_args, aux_params=old_aux,
                             allow_missing=False, force_init=True, allow_extra=True)
        if self._preload_opt_states is not None and self.optimizer_initialized:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    def _input_axes(self):
        """name -> batch axis of each data and label input (-1: none)."""
        return {d.name: DataDesc.get_batch_axis(getattr(d, "layout", None))
                for d in self._data_shapes + (self._label_shapes or [])}

    def _device_shapes(self, shapes):
        """Per context: the input shapes of its slice of the batch."""
        if len(self._contexts) == 1:
            self._slices = None
            return [shapes]
        axes = self._input_axes()
        first = self._data_shapes[0]
        batch = first.shape[max(axes[first.name], 0)]
        self._slices = _split_input_slice(batch, self._work_load_list)
        out = []
        for slc in self._slices:
            dev = {}
            for name, shape in shapes.items():
                shape = list(shape)
                ax = axes.get(name, 0)
                if ax >= 0:
                    shape[ax] = slc.stop - slc.start
                dev[name] = tuple(shape)
            out.append(dev)
        return out

    def _bind_execs(self, shapes):
        execs = []
        for ctx, dev, g2c in zip(self._contexts, self._device_shapes(shapes),
                                 self._group2ctxs):
            # (the batch is sliced on the host)
            ex = self._symbol.simple_bind(ctx, grad_req=self._grad_reqs,
                                          type_dict=self._type_dict, group2ctx=g2c, **dev)
            # one set of parameters: the first executor's arrays (on other
            # GPUs copies, _sync_params)
            if execs and self._shares_first(ctx, execs[0]._ctx):
                self._share_params(ex, execs[0])
            execs.append(ex)
        return execs

    @property
    def _exec_group(self):
        """MXNet's executor-group view: the executors, names and slices."""
        from types import SimpleNamespace
        return SimpleNamespace(execs=list(self._execs), param_names=list(self._param_names),
                               aux_names=list(self._aux_names),
                               arg_names=self._symbol.list_arguments(),
                               data_names=list(self._data_names),
                               label_names=list(self._label_names), slices=self._slices,
                               contexts=list(self._contexts),
                               data_shapes=self._data_shapes, label_shapes=self._label_shapes)

    def reshape(self, data_shapes, label_shapes=None):
        """New input shapes for the bound module (parameters are kept)."""
        self._check_binded()
        self._data_shapes = _descs(data_shapes)
        self._label_shapes = _descs(label_shapes) if label_shapes else None
        if len(self._execs) == 1:
            self._execs = [self._exec.reshape(**self._input_shapes())]
        else:
            olds = self._execs
            self._execs = [old.reshape(**dev) for old, dev in
                           zip(olds, self._device_shapes(self._input_shapes()))]
            for ex in self._execs[1:]:
                if self._shares_first(ex._ctx, self._execs[0]._ctx):
                    self._share_params(ex, self._execs[0])  # (its own copies: kept by reshape)
        self._exec = self._execs[0]
        if self.params_initialized:
            self._arg_params = {n: self._exec.arg_dict[n] for n in self._param_names}
            self._aux_params = dict(self._exec.aux_dict)

    # -- optimizer ----------------------------------------------------------------------
    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        """Creates the optimizer (rescale_grad = 1 / batch size unless given)
        and its updater."""
        if not (self.binded and self.params_initialized):
            raise MXNetError("init_optimizer: bind and initialize the parameters first")
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring...")
            return
        kv, update_on_kvstore = _create_kvstore(kvstore, self._arg_params,
                                                len(self._contexts))
        first = self._data_shapes[0]
        batch_size = first.shape[max(DataDesc.get_batch_axis(getattr(first, "layout", None)), 0)]
        if kv is not None and "dist" in kv.type and "_sync" in kv.type:
            batch_size *= kv.num_workers  # the gradients are summed over the workers
        rescale_grad = 1.0 / batch_size
        idx2name = dict(enumerate(self._param_names))
        if kv is None and len(self._execs) > 1:  # a device's index: i * num_device + k
            num = len(self._execs)
            idx2name = {i * num + k: n for i, n in enumerate(self._param_names)
                        for k in range(num)}
        if isinstance(optimizer, str):
            optimizer_params = dict(optimizer_params)
            if "rescale_grad" not in optimizer_params:
                optimizer_params["rescale_grad"] = rescale_grad
            optimizer = _opt.create(optimizer, sym=self._symbol, param_idx2name=idx2name,
                                    **optimizer_params)
        elif isinstance(optimizer, _opt.Optimizer):
            if optimizer.rescale_grad != rescale_grad:
                self.logger.warning(
                    "Optimizer created manually outside Module but rescale_grad is not "
                    "normalized to 1.0/batch_size (%s vs. %s). Is this intended?",
                    optimizer.rescale_grad, rescale_grad)
            if not optimizer.idx2name:
                optimizer.idx2name = idx2name.copy()
                optimizer.set_wd_mult({})
        else:
            raise MXNetError("init_optimizer: expected an optimizer name or an Optimizer")
        self._optimizer = optimizer
        self._kvstore = kv
        self._update_on_kvstore = update_on_kvstore
        self._updater = None
        if kv is None and len(self._execs) > 1 and not self._separate_params:
            # Without a store each device trains its own copy (MXNet's
            # _update_params): executors that bound the first's parameters
            # (CPUs) get copies of their own.
            self._separate_params = True
            for ex in self._execs[1:]:
                for i, n in enumerate(ex._arg_names):
                    if n in self._param_names and \
                            ex.arg_arrays[i] is self._exec.arg_arrays[i]:
                        ex.arg_arrays[i] = ex.arg_arrays[i].copyto(ex._ctx)
        if kv is not None:
            # Every worker starts from rank 0's parameters (MXNet broadcasts
            # them with update_on_kvstore; mxc also without, so that dist
            # workers hold the same bits from the first step).
            args = self._exec.arg_dict
            for idx, name in enumerate(self._param_names):
                if update_on_kvstore or "dist" in kv.type:
                    kv.broadcast(name, args[name], out=args[name], priority=-idx)
                else:
                    kv.init(name, args[name])
            self._sync_params()  # rank 0's values on every device
        if update_on_kvstore:
            kv.set_optimizer(optimizer)
        else:
            self._updater = _opt.get_updater(optimizer)
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    def borrow_optimizer(self, shared_module):
        """Uses shared_module's optimizer, updater and store (as MXNet)."""
        if not shared_module.optimizer_initialized:
            raise MXNetError("borrow_optimizer: the shared module has no optimizer")
        self._optimizer = shared_module._optimizer
        self._kvstore = shared_module._kvstore
        self._update_on_kvstore = shared_module._update_on_kvstore
        self._updater = shared_module._updater
        if shared_module._separate_params and not self._separate_params:
            # Its devices train copies of their own (kvstore=None): this
            # module's executors read the same copies, device by device (a
            # module bound with shared_module before the split still points
            # every device at the first's).
            self._separate_params = True
            for ex, other in zip(self._execs[1:], shared_module._execs[1:]):
                self._share_params(ex, other)
        self.optimizer_initialized = True

    def save_optimizer_states(self, fname):
        if self._update_on_kvstore:
            self._kvstore.save_optimizer_states(fname)
            return
        from .base import atomic_write_bytes
        atomic_write_bytes(fname, self._updater.get_states())  # a crash leaves the old file

    def load_optimizer_states(self, fname):
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            return
        with open(fname, "rb") as f:
            self._updater.set_states(f.read())

    # -- computation --------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Copies the batch into the executor (reshaping it when the batch's
        shapes differ from the bound ones) and runs it."""
        self._check_binded()
        if not self.params_initialized:
            raise MXNetError("forward: call init_params() first")
        if is_train is None:
            is_train = self.for_training
        if is_train and not self.for_training:
            raise MXNetError("forward(is_train=True): the module was bound with "
                             "for_training=False")
        data = _as_list(data_batch.data)
        label = getattr(data_batch, "label", None)  # (a namedtuple batch may have none)
        label = _as_list(label) if label is not None else []
        if len(data) != len(self._data_names):
            raise MXNetError("forward: %d data arrays for data names %s"
                             % (len(data), self._data_names))
        cur = [d.shape for d in self._data_shapes]
        new = [tuple(a.shape) for a in data]
        if cur != new:
            new_data = [DataDesc(d.name, s, d.dtype) for d, s in zip(self._data_shapes, new)]
            new_label = None
            if self._label_shapes:
                if label:
                    new_label = [DataDesc(d.name, tuple(a.shape), d.dtype)
                                 for d, a in zip(self._label_shapes, label)]
                else:
                    new_label = [DataDesc(d.name, (new[0][0],) + tuple(d.shape[1:]), d.dtype)
                                 for d in self._label_shapes]
            self.reshape(new_data, new_label)
        arrays = dict(zip(self._data_names, data))
        if label and self._label_names:
            arrays.update(zip(self._label_names, label))
        if len(self._execs) == 1:
            self._exec.forward(is_train=is_train, **arrays)
            return
        axes = self._input_axes()
        for ex, slc in zip(self._execs, self._slices):
            ex.forward(is_train=is_train, **{
                n: (_take(a, axes.get(n, 0), slc, ex._ctx) if axes.get(n, 0) >= 0 else a)
                for n, a in arrays.items()})

    def _output_axes(self):
        """Batch axis of each output: its layout attribute's 'N' (0 without)."""
        axes = []
        for i in range(len(self._output_names)):
            layout = self._symbol[i].attr("__layout__")
            axes.append(DataDesc.get_batch_axis(layout))
        return axes

    def backward(self, out_grads=None):
        if not self.for_training:
            raise MXNetError("backward: the module was bound with for_training=False")
        if len(self._execs) == 1:
            self._exec.backward(out_grads=out_grads)
            return
        grads = _as_list(out_grads) if out_grads is not None else None
        axes = self._output_axes()
        for ex, slc in zip(self._execs, self._slices):
            ex.backward(out_grads=None if grads is None else [
                _take(g, ax, slc, ex._ctx) if ax >= 0 else g for g, ax in zip(grads, axes)])

    def update(self):
        """Applies the optimizer to every parameter with a gradient."""
        if not (self.binded and self.params_initialized and self.optimizer_initialized):
            raise MXNetError("update: bind, init_params and init_optimizer first")
        grads = {n: g for n, g in self._exec.grad_dict.items() if g is not None}
        args = self._exec.arg_dict
        kv = self._kvstore
        if len(self._execs) > 1:
            # each key's gradients over the devices (the store sums them)
            grads = {n: [ex.grad_dict[n] for ex in self._execs] for n in grads}
        if kv is None:
            if len(self._execs) == 1:
                for i, name in enumerate(self._param_names):
                    if name in grads:
                        self._updater(i, grads[name], args[name])
                return
            self._update_each_device(grads)
            return
        # MXNet's _update_params(_on_kvstore), with priority -index (the first
        # layer's first). Pushed in the order the training step's plan writes
        # the gradients (the backward pass: last layer first), which is also
        # the order dist_sync's collectives run in on every rank, so the
        # all-reduce of late layers runs while the earlier layers' gradients
        # are still being computed.
        index = {n: i for i, n in enumerate(self._param_names)}
        ready = self._exec._grad_ready_order() or list(reversed(self._param_names))
        order = [index[n] for n in ready if n in index and n in grads]
        order += [i for i in reversed(range(len(self._param_names)))
                  if self._param_names[i] in grads and i not in order]
        for i in order:
            name = self._param_names[i]
            if self._update_on_kvstore:
                kv.push(name, grads[name], priority=-i)
                kv.pull(name, out=args[name], priority=-i)
            else:
                kv.pushpull(name, grads[name], priority=-i)  # summed in place
        if not self._update_on_kvstore:
            for i, name in enumerate(self._param_names):
                if name in grads:
                    g = grads[name][0] if isinstance(grads[name], list) else grads[name]
                    self._updater(i, g, args[name])
        self._sync_params()

    def _update_each_device(self, grads):
        """MXNet's _update_params without a store, over several devices:
        each device's parameters (its own copies: init_optimizer) updated
        with its own gradient (updater index i * num_device + k), nothing
        summed or copied between them, so the devices' parameters drift apart
        and get_params averages them, as MXNet's."""
        num = len(self._execs)
        for i, name in enumerate(self._param_names):
            if name in grads:
                for k, ex in enumerate(self._execs):
                    self._updater(i * num + k, grads[name][k], ex.arg_dict[name])

    def get_outputs(self, merge_multi_context=True):
        """The outputs: per output, the devices' parts concatenated
        (merge_multi_context) or a list of them."""
        self._check_binded()
        if len(self._execs) == 1:
            outs = list(self._exec.outputs)
            return outs if merge_multi_context else [[o] for o in outs]
        per = [[ex.outputs[i] for ex in self._execs] for i in range(len(self._output_names))]
        if not merge_multi_context:
            return per
        return [_merge(parts, ax) for parts, ax in zip(per, self._output_axes())]

    def get_states(self, merge_multi_context=True):
        """The state arrays (state_names): per state, the devices' arrays
        concatenated along the batch axis (merge_multi_context) or a list."""
        self._check_binded()
        per = [[ex.arg_dict[n] for ex in self._execs] for n in self._state_names]
        if not merge_multi_context:
            return per
        axes = self._input_axes()
        return [_merge(parts, axes.get(n, 0)) for parts, n in zip(per, self._state_names)]

    def set_states(self, states=None, value=None):
        """Sets the state arrays: from `states` (per state, one array per
        device, as get_states(merge_multi_context=False) or
        get_outputs(merge_multi_context=False) give them; or one array per
        state, sliced over the devices) or to the scalar `value`."""
        self._check_binded()
        if (states is None) == (value is None):
            raise MXNetError("set_states: give exactly one of states and value")
        if value is not None:
            for n in self._state_names:
                for ex in self._execs:
                    ex.arg_dict[n][:] = value
            return
        if len(states) != len(self._state_names):
            raise MXNetError("set_states: %d states given for %d state names (%s)"
                             % (len(states), len(self._state_names),
                                ", ".join(self._state_names)))
        for n, src in zip(self._state_names, states):
            dsts = [ex.arg_dict[n] for ex in self._execs]
            parts = list(src) if isinstance(src, (list, tuple)) else None
            if parts is None:  # one array: the devices' slices of its batch axis
                if len(dsts) == 1:
                    parts = [src]
                else:
                    parts = [src[sl] for sl in self._slices]
            if len(parts) != len(dsts):
                raise MXNetError("set_states: state '%s' has %d parts for %d devices"
                                 % (n, len(parts), len(dsts)))
            for dst, part in zip(dsts, parts):
                if tuple(part.shape) != tuple(dst.shape):
                    raise MXNetError("set_states: state '%s' of shape %s, expected %s"
                                     % (n, tuple(part.shape), tuple(dst.shape)))
                dst[:] = part

    def get_input_grads(self, merge_multi_context=True):
        if not self.inputs_need_grad:
            raise MXNetError("get_input_grads: bind with inputs_need_grad=True")
        # (an input bound with grad_req 'null' has no gradient: None, as MXNet)
        per = [[ex.grad_dict.get(n) for ex in self._execs] for n in self._data_names]
        if not merge_multi_context:
            return per
        axes = self._input_axes()
        return [None if any(p is None for p in parts) else _merge(parts, axes.get(n, 0))
                for parts, n in zip(per, self._data_names)]

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        labels = _as_list(labels)
        if len(self._execs) == 1:
            eval_metric.update_dict(dict(zip(self._label_names, labels)),
                                    dict(zip(self._output_names, self._exec.outputs)))
            return
        axes = self._input_axes()
        for k, (ex, slc) in enumerate(zip(self._execs, self._slices)):
            if pre_sliced:
                dev_labels = _as_list(labels[k])
            else:
                dev_labels = [_take(lab, max(axes.get(n, 0), 0), slc, cpu())
                              for n, lab in zip(self._label_names, labels)]
            eval_metric.update_dict(dict(zip(self._label_names, dev_labels)),
                                    dict(zip(self._output_names, ex.outputs)))

    @property
    def _total_exec_bytes(self):
        """MXNet's count of the bound executors' memory: the sum of each
        executor's "Total N MB allocated" (debug_str: the compiled plan's
        arena, so reading it compiles the graph); 0 before bind."""
        if not self.binded:
            return 0
        return sum(int(ex.debug_str().split("\n")[-3].split()[1]) for ex in self._execs)

    def install_monitor(self, mon):
        """Installs the monitor on every executor (mx.mon.Monitor)."""
        self._check_binded()
        for ex in self._execs:
            mon.install(ex)


class BucketingModule(BaseModule):
    """MXNet's BucketingModule: one Module per bucket key (sym_gen(key) gives
    its symbol, data names and label names), all sharing the default
    bucket's parameters, gradients and optimizer; forward switches to the
    batch's bucket_key."""

    def __init__(self, sym_gen, default_bucket_key=None, logger=logging, context=None,
                 work_load_list=None, fixed_param_names=None, state_names=None,
                 group2ctxs=None, compression_params=None):
        BaseModule.__init__(self, logger)
        if default_bucket_key is None:
            raise MXNetError("BucketingModule: default_bucket_key is required")
        self._sym_gen = sym_gen
        self._default_bucket_key = default_bucket_key
        self._context = context if context is not None else cpu()
        self._work_load_list = work_load_list
        self._fixed_param_names = fixed_param_names
        self._state_names = state_names
        self._group2ctxs = group2ctxs
        self._compression_params = compression_params
        symbol, data_names, label_names = self._call_sym_gen(default_bucket_key)
        self._symbol = symbol
        self._data_names_default = list(data_names or [])
        self._label_names_default = list(label_names or [])
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None
        self._params_dirty = False
        self._monitor = None
        self._grad_req = None

    def _call_sym_gen(self, key):
        from .name import NameManager
        with NameManager():  # as MXNet: each bucket's names start from 0
            return self._sym_gen(key)

    def _new_module(self, key):
        symbol, data_names, label_names = self._call_sym_gen(key)
        symbol = getattr(self, "_saved_symbols", {}).get(key, symbol)  # (load)
        return Module(symbol, data_names, label_names, logger=self.logger,
                      context=self._context, work_load_list=self._work_load_list,
                      fixed_param_names=self._fixed_param_names,
                      state_names=self._state_names, group2ctxs=self._group2ctxs,
                      compression_params=self._compression_params)

    # -- properties
    @property
    def default_bucket_key(self):
        return self._default_bucket_key

    @property
    def data_names(self):
        return self._curr_module.data_names if self.binded else self._data_names_default

    @property
    def label_names(self):
        return self._curr_module.label_names if self.binded else self._label_names_default

    @property
    def output_names(self):
        if self.binded:
            return self._curr_module.output_names
        return self._symbol.list_outputs()

    @property
    def data_shapes(self):
        self._check_binded()
        return self._curr_module.data_shapes

    @property
    def label_shapes(self):
        self._check_binded()
        return self._curr_module.label_shapes

    @property
    def output_shapes(self):
        self._check_binded()
        return self._curr_module.output_shapes

    @property
    def symbol(self):
        self._check_binded()
        return self._curr_module.symbol

    def _check_binded(self):
        if not self.binded:
            raise MXNetError("BucketingModule: call bind() first")

    # -- parameters
    def get_params(self):
        if not self.params_initialized:
            raise MXNetError("BucketingModule: parameters are not initialized")
        self._params_dirty = False
        return self._curr_module.get_params()

    def init_params(self, initializer=None, arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        if self.params_initialized and not force_init:
            return
        self._check_binded()
        self._curr_module.init_params(initializer=initializer, arg_params=arg_params,
                                      aux_params=aux_params, allow_missing=allow_missing,
                                      force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = False
        self.params_initialized = True

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=allow_missing, force_init=force_init,
                             allow_extra=allow_extra)
            return
        if self.params_initialized and not force_init:
            return
        self._curr_module.set_params(arg_params, aux_params, allow_missing=allow_missing,
                                     force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = True
        self.params_initialized = True

    # -- binding
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Binds the default bucket's module (the others bind on
        switch_bucket, sharing its arrays)."""
        if self.params_initialized:
            arg_params, aux_params = self.get_params()
        if force_rebind:
            self.binded = False
            self._buckets = {}
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if shared_module is not None:
            raise MXNetError("BucketingModule.bind: shared_module is not supported")
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        module = self._new_module(self._default_bucket_key)
        module.bind(data_shapes, label_shapes, for_training, inputs_need_grad,
                    force_rebind=False, shared_module=None, grad_req=grad_req)
        self._curr_module = module
        self._curr_bucket_key = self._default_bucket_key
        self._buckets[self._default_bucket_key] = module
        self.binded = True
        if self.params_initialized:
            self.set_params(arg_params, aux_params)

    def switch_bucket(self, bucket_key, data_shapes, label_shapes=None):
        """Makes `bucket_key`'s module current (binding it, with the default
        bucket's arrays, the first time)."""
        self._check_binded()
        if bucket_key not in self._buckets:
            module = self._new_module(bucket_key)
            module.bind(data_shapes, label_shapes, self._curr_module.for_training,
                        self._curr_module.inputs_need_grad, force_rebind=False,
                        shared_module=self._buckets[self._default_bucket_key],
                        grad_req=self._grad_req)
            if self._monitor is not None:
                module.install_monitor(self._monitor)
            self._buckets[bucket_key] = module
        else:
            module = self._buckets[bucket_key]
            cur = [tuple(d.shape) for d in module.data_shapes]
            new = [tuple(d.shape) for d in _descs(data_shapes)]
            if cur != new:
                module.reshape(data_shapes, label_shapes)
        self._curr_module = module
        self._curr_bucket_key = bucket_key

    # -- optimizer
    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        if not (self.binded and self.params_initialized):
            raise MXNetError("init_optimizer: bind and initialize the parameters first")
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring.")
            return
        self._curr_module.init_optimizer(kvstore, optimizer, optimizer_params,
                                         force_init=force_init)
        for mod in self._buckets.values():
            if mod is not self._curr_module:
                mod.borrow_optimizer(self._curr_module)
        self.optimizer_initialized = True

    # -- computation
    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Binds the batch's bucket if it is new (the current one stays)."""
        original = self._curr_bucket_key
        data_shapes = self._curr_module.data_shapes
        label_shapes = self._curr_module.label_shapes
        self.switch_bucket(data_batch.bucket_key, data_batch.provide_data,
                           data_batch.provide_label)
        self.switch_bucket(original, data_shapes, label_shapes)

    def forward(self, data_batch, is_train=None):
        if not (self.binded and self.params_initialized):
            raise MXNetError("forward: bind and initialize the parameters first")
        key = getattr(data_batch, "bucket_key", None)
        if key is None:
            key = self._default_bucket_key
        provide_data = getattr(data_batch, "provide_data", None) or [
            DataDesc(n, tuple(a.shape)) for n, a in zip(self.data_names,
                                                      _as_list(data_batch.data))]
        provide_label = getattr(data_batch, "provide_label", None)
        if provide_label is None and getattr(data_batch, "label", None) is not None:
            provide_label = [DataDesc(n, tuple(a.shape)) for n, a in
                             zip(self.label_names, _as_list(data_batch.label))]
        self.switch_bucket(key, provide_data, provide_label)
        if self.optimizer_initialized and not self._curr_module.optimizer_initialized:
            self._curr_module.borrow_optimizer(self._buckets[self._default_bucket_key])
        self._curr_module.forward(data_batch, is_train=is_train)

    def backward(self, out_grads=None):
        self._check_binded()
        self._curr_module.backward(out_grads=out_grads)

    def update(self):
        if not (self.binded and self.params_initialized and self.optimizer_initialized):
            raise MXNetError("update: bind, init_params and init_optimizer first")
        self._params_dirty = True
        self._curr_module.update()

    def get_outputs(self, merge_multi_context=True):
        self._check_binded()
        return self._curr_module.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        self._check_binded()
        return self._curr_module.get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        self._check_binded()
        self._curr_module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        self._check_binded()
        self._monitor = mon
        for mod in self._buckets.values():
            mod.install_monitor(mon)

    def save_checkpoint(self, prefix, epoch, remove_amp_cast=False):
        """As MXNet: the shared parameters (prefix-%04d.params), each bound
        bucket's symbol (prefix-<key>-symbol.json) and the keys
        (prefix.buckets, an int32 NDArray)."""
        if not self._buckets:
            raise MXNetError("Empty BucketingModule cannot be saved")
        self.save_params("%s-%04d.params" % (prefix, epoch))
        for key in self._buckets:
            symbol, _, _ = self._call_sym_gen(key)
            symbol.save("%s-%s-symbol.json" % (prefix, key), remove_amp_cast=remove_amp_cast)
        nd.save("%s.buckets" % prefix, nd.array(list(self._buckets), dtype=np.int32))

    @staticmethod
    def load(prefix, epoch, sym_gen=None, default_bucket_key=None, **kwargs):
        """A BucketingModule from save_checkpoint's files: the buckets' saved
        symbols (with sym_gen's data and label names) and the parameters,
        which bind() gives the default bucket's module."""
        from .model import load_params
        from .symbol import load as _load_symbol
        if sym_gen is None:
            raise MXNetError("sym_gen is required for loading BucketingModule")
        if default_bucket_key is None:
            raise MXNetError("default_bucket_key is required for loading BucketingModule")
        keys = [int(k) for k in nd.load("%s.buckets" % prefix)[0].asnumpy().astype(np.int32)]
        mod = BucketingModule(sym_gen, default_bucket_key, **kwargs)
        mod._saved_symbols = {k: _load_symbol("%s-%s-symbol.json" % (prefix, k)) for k in keys}
        arg_params, aux_params = load_params(prefix, epoch)
        default = mod._new_module(default_bucket_key)
        default._arg_params = arg_params
        default._aux_params = aux_params
        default.params_initialized = True
        mod._curr_module = default   # unbound: bind() takes its parameters
        mod.params_initialized = True
        return mod


def _create_kvstore(kvstore, arg_params, num_device=1):
    """MXNet's model._create_kvstore (Module; gluon.Trainer with
    num_device = its contexts): (store or None, update_on_kvstore). A 'local'/'device' name makes no store for one
    device (nothing to merge); a dist name always does.
    MXNET_UPDATE_ON_KVSTORE=0 runs the optimizer on the workers."""
    from . import kvstore as _kvs
    update_on_kvstore = bool(int(os.getenv("MXNET_UPDATE_ON_KVSTORE", "1")))
    if kvstore is None:
        kv = None
    elif isinstance(kvstore, _kvs.KVStoreBase):
        kv = kvstore
    elif isinstance(kvstore, str):
        # (MXNet: no store for one device outside dist; several devices
        # sum their gradients in one)
        kv = _kvs.create(kvstore) if "dist" in kvstore or num_device > 1 else None
    else:
        raise TypeError("kvstore must be KVStore, str or None")
    if kv is None:
        update_on_kvstore = False
    else:
        if kv.type == "local" and arg_params and \
                max(int(np.prod(p.shape)) for p in arg_params.values()) > 1024 * 1024 * 16:
            update_on_kvstore = False
        # (a KVStoreBase such as 'teststore' may run no optimizer)
        update_on_kvstore = update_on_kvstore and kv.is_capable(_kvs.KVStoreBase.OPTIMIZER)
    return kv, update_on_kvstore


def _progress_bar(train_data, epoch, num_epoch):
    if os.environ.get("MXC_QUIET", "") not in ("", "0") or \
            os.environ.get("MXC_PROGRESS", "1") == "0":
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    try:
        total = len(train_data)
    except TypeError:
        total = None
    return tqdm(total=total, desc="Epoch %d/%d" % (epoch + 1, num_epoch), unit="batch",
                leave=True, dynamic_ncols=True)


# mx.mod.save_checkpoint spelled as in mx.model
__all__ = ["BaseModule", "Module", "BucketingModule", "save_checkpoint"]
