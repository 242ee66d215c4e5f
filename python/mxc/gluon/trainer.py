"""gluon.Trainer (MXNet 1.9.1's API).

step(batch_size) = allreduce_grads() + update(): the gradients are scaled by
rescale_grad / batch_size and each parameter is updated by the optimizer
(mx.optimizer, by name or instance; lr_mult / wd_mult from the Parameter).
With parameters on several contexts the gradients are summed across them
by an mx.kv store ('device' by default, as MXNet; kvstore=None: an
in-process sum), the first context's copy is updated with the sum and the
other copies get its values (what MXNet's store gives with
update_on_kvstore=False). update_on_kvstore=True and the dist_* stores are
not supported by the Trainer yet (docs/gluon.md).
"""
import os
import pickle

import numpy as np

from ..base import MXNetError
from .. import optimizer as opt
from .parameter import Parameter, ParameterDict
from ..base import atomic_write_bytes


class Trainer:
    """Applies an optimizer to a set of Parameters."""

    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device",
                 compression_params=None, update_on_kvstore=None):
        if isinstance(params, (dict, ParameterDict)):
            params = list(params.values())
        if not isinstance(params, (list, tuple)):
            raise MXNetError("First argument must be a list or dict of Parameters, got %s."
                             % type(params))
        self._params = []
        self._param2idx = {}
        for i, param in enumerate(params):
            if not isinstance(param, Parameter):
                raise MXNetError("First argument must be a list or dict of Parameters, got "
                                 "list of %s." % type(param))
            if param.name in self._param2idx:
                raise MXNetError("Trainer: Parameter '%s' appears twice" % param.name)
            self._param2idx[param.name] = i
            self._params.append(param)
        if update_on_kvstore:
            raise MXNetError("Trainer: update_on_kvstore=True is not supported: gluon.Trainer "
                             "reduces gradients with mx.kv and updates locally (docs/gluon.md)")
        self._compression_params = compression_params
        self._kvstore_params = {"kvstore": kvstore, "update_on_kvstore": update_on_kvstore}
        self._kvstore = None
        self._kv_initialized = False
        self._update_on_kvstore = False
        self._contexts = self._check_contexts()
        self._init_optimizer(optimizer, optimizer_params or {})
        self._scale = self._optimizer.rescale_grad

    def _check_contexts(self):
        contexts = None
        for param in self._params:
            try:
                ctx = param.list_ctx()
            except MXNetError:
                ctx = None  # not initialised yet: checked again at step()
            if ctx is None:
                continue
            if contexts is not None and contexts != ctx:
                raise MXNetError("All Parameters must be initialized on the same set of "
                                 "contexts, but Parameter %s is initialized on %s while previous "
                                 "Parameters are initialized on %s."
                                 % (param.name, str(ctx), str(contexts)))
            contexts = ctx
        return contexts or [None]

    def _init_optimizer(self, optimizer, optimizer_params):
        param_dict = {i: param for i, param in enumerate(self._params)}
        if isinstance(optimizer, opt.Optimizer):
            if optimizer_params:
                raise MXNetError("optimizer_params must be None if optimizer is an instance of "
                                 "Optimizer instead of str")
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict, **optimizer_params)
        self._updaters = [opt.get_updater(self._optimizer) for _ in self._contexts]

    @property
    def learning_rate(self):
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning("Optimizer has to be defined before its learning rate can be "
                              "accessed.")
        return self._optimizer.learning_rate

    @property
    def optimizer(self):
        if isinstance(self._optimizer, opt.Optimizer):
            return self._optimizer
        raise UserWarning("Optimizer has not been initialized yet")

    def set_learning_rate(self, lr):
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning("Optimizer has to be defined before its learning rate is mutated.")
        self._optimizer.set_learning_rate(lr)

    def _ready(self):
        if self._contexts == [None]:
            self._contexts = self._check_contexts()
            if self._contexts == [None]:
                raise MXNetError("Trainer: no Parameter is initialized")
            self._updaters = [opt.get_updater(self._optimizer) for _ in self._contexts]
        for param in self._params:
            if param._deferred_init:
                raise MXNetError("Trainer: Parameter '%s' has not been initialized yet (its "
                                 "initialization was deferred: run a forward pass first)"
                                 % param.name)

    def step(self, batch_size, ignore_stale_grad=False):
        """One update with gradients scaled by 1 / batch_size (call after
        backward(), outside record())."""
        self._optimizer.rescale_grad = self._scale / batch_size
        self._ready()
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        """Sums each parameter's gradients across its contexts (every copy
        gets the sum); a no-op on one context."""
        self._ready()
        self._allreduce_grads()

    def _init_kvstore(self):
        """MXNet's choice: no store on one context; on several, mx.kv.create
        of the `kvstore` name ('device', 'local') or the given KVStore, which
        sums the gradients (push of every context's copy, pull into all)."""
        if self._kv_initialized:
            return
        self._kv_initialized = True
        kv = self._kvstore_params["kvstore"]
        if len(self._contexts) <= 1 or kv is None:
            return
        from .. import kvstore as _kv
        if isinstance(kv, str):
            if kv.startswith("dist"):
                raise MXNetError("Trainer: kvstore '%s': distributed training through "
                                 "gluon.Trainer is not supported yet (docs/gluon.md)" % kv)
            kv = _kv.create(kv)
        elif not isinstance(kv, _kv.KVStore):
            raise MXNetError("Trainer: kvstore must be a name or an mx.kv KVStore, got %r"
                             % (kv,))
        for i, param in enumerate(self._params):
            if param.grad_req != "null":
                kv.init(i, param.list_grad()[0])
        self._kvstore = kv

    def _allreduce_grads(self):
        if len(self._contexts) <= 1:
            return
        self._init_kvstore()
        if self._kvstore is not None:
            for i, param in enumerate(self._params):
                if param.grad_req != "null":
                    grads = param.list_grad()
                    self._kvstore.push(i, grads, priority=-i)
                    self._kvstore.pull(i, out=grads, priority=-i)
            return
        for param in self._params:
            if param.grad_req == "null":
                continue
            grads = param.list_grad()
            total = grads[0].asnumpy().copy()
            for g in grads[1:]:
                total += g.asnumpy()
            for g in grads:
                g[:] = total

    def update(self, batch_size, ignore_stale_grad=False):
        """The optimizer step alone (after allreduce_grads())."""
        self._optimizer.rescale_grad = self._scale / batch_size
        self._ready()
        self._update(ignore_stale_grad)

    def _update(self, ignore_stale_grad=False):
        # Every context has the same (summed) gradient: the first context's
        # copy is updated, the others receive it (one update count per step,
        # as MXNet's per-device counts give, so lr schedules step alike).
        for i, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            data = param.list_data()
            self._updaters[0](i, param.list_grad()[0], data[0])
            for d in data[1:]:
                d[:] = data[0]

    def save_states(self, fname):
        """The optimizer and its states (momenta, ...) as a pickle, written
        atomically."""
        if self._optimizer is None:
            raise MXNetError("Trainer.save_states: no optimizer")
        atomic_write_bytes(fname, self._updaters[0].get_states(dump_optimizer=True))

    def load_states(self, fname):
        if not os.path.isfile(fname):
            raise MXNetError("Trainer.load_states: no file '%s'" % fname)
        with open(fname, "rb") as f:
            states = f.read()
        for updater in self._updaters:
            updater.set_states(states)
            updater.optimizer = self._updaters[0].optimizer
        self._optimizer = self._updaters[0].optimizer
        self._optimizer.param_dict = {i: param for i, param in enumerate(self._params)}
