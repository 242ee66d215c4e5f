"""gluon.Trainer (MXNet 1.9.1's API).

step(batch_size) = allreduce_grads() + update(): the gradients are scaled by
rescale_grad / batch_size and each parameter is updated by the optimizer
(mx.optimizer, by name or instance; lr_mult / wd_mult from the Parameter).
With parameters on several contexts an mx.kv store ('device' by default,
as MXNet; or a KVStoreBase such as 'teststore'; kvstore=None: an in-process
sum) does MXNet's work: with update_on_kvstore (MXNet's default where the
store can run an optimizer: $MXNET_UPDATE_ON_KVSTORE, default 1, and not a
'local' store of a parameter over 16M elements) the gradients are pushed,
the store's optimizer updates its copy of the weights and every context
pulls them; otherwise the gradients are summed (pushpull) and the first
context's copy is updated with the sum, the other copies getting its
values. The dist_* stores are not supported by the Trainer yet
(docs/gluon.md).
"""
import os
import pickle

import numpy as np

from ..base import MXNetAssertionError, MXNetError, MXNetValueError
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
            param._set_trainer(self)
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
        self._init_kvstore()
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        """Sums each parameter's gradients across its contexts (every copy
        gets the sum); a no-op on one context. Not with update_on_kvstore
        (the store sums and updates in one), as MXNet."""
        self._ready()
        self._init_kvstore()
        if self._update_on_kvstore:
            raise MXNetAssertionError("allreduce_grads() when parameters are updated on kvstore is not "
                             "supported. Try setting `update_on_kvstore` to False when "
                             "creating trainer.")
        self._allreduce_grads()

    def _init_kvstore(self):
        """MXNet 1.9.1's choice: no store on one context (unless a store object
        is given); on several, mx.kv.create of the `kvstore` name or the given
        KVStoreBase. update_on_kvstore: the argument if given, else
        $MXNET_UPDATE_ON_KVSTORE (default 1) unless a 'local' store holds a
        parameter over 16M elements; a store that cannot run an optimizer
        gets False (True asked of it is a ValueError)."""
        if self._kv_initialized:
            return
        kv = self._kvstore_params["kvstore"]
        asked = self._kvstore_params["update_on_kvstore"]
        from .. import kvstore as _kv
        from ..module import _create_kvstore
        if isinstance(kv, str) and kv.startswith("dist"):
            raise MXNetError("Trainer: kvstore '%s': distributed training through "
                             "gluon.Trainer is not supported yet (docs/gluon.md)" % kv)
        if kv is not None and not isinstance(kv, (str, _kv.KVStoreBase)):
            raise MXNetError("Trainer: kvstore must be a name or an mx.kv KVStore, got %r"
                             % (kv,))
        store, update = _create_kvstore(kv, {p.name: p for p in self._params},
                                        len(self._contexts))
        if store is not None:
            if asked is not None:
                update = bool(asked)
            if update and not store.is_capable(_kv.KVStoreBase.OPTIMIZER):
                raise MXNetValueError("Please set update_on_kvstore=False when training with "
                                      "%s" % type(store))
        self._kv_initialized = True
        self._kvstore = store
        self._update_on_kvstore = update if store is not None else None  # True only with a store
        if store is None:
            return
        if update:
            store.set_optimizer(self._optimizer)
        for i, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            data = param.list_data()
            if isinstance(store, _kv.KVStore):
                store.init(i, data[0])
                if update:
                    store.pull(i, out=data, priority=-i)
            else:
                store.broadcast(i, data[0], out=data, priority=-i)

    def _reset_kvstore(self):
        """Drops the store (a parameter got new values that the store's copy
        lacks); the next step sets it up again from the parameters."""
        if self._kvstore is not None and "dist" in self._kvstore.type:
            raise MXNetError("Cannot reset distributed KVStore.")
        self._kv_initialized = False
        self._kvstore = None
        self._update_on_kvstore = None

    def _allreduce_grads(self):
        if len(self._contexts) <= 1 and self._kvstore is None:
            return
        if self._kvstore is not None:
            for i, param in enumerate(self._params):
                if param.grad_req != "null":
                    grads = param.list_grad()
                    if self._update_on_kvstore:
                        self._kvstore.push(i, grads, priority=-i)
                    else:
                        self._kvstore.pushpull(i, grads, out=grads, priority=-i)
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
        """The optimizer step alone (after allreduce_grads()); not with
        update_on_kvstore, as MXNet."""
        self._optimizer.rescale_grad = self._scale / batch_size
        self._ready()
        self._init_kvstore()
        if self._update_on_kvstore:
            raise MXNetAssertionError("update() when parameters are updated on kvstore is not supported. "
                             "Try setting `update_on_kvstore` to False when creating trainer.")
        self._update(ignore_stale_grad)

    def _update(self, ignore_stale_grad=False):
        if self._update_on_kvstore:
            # the store updated its weights at the push: every context pulls
            for i, param in enumerate(self._params):
                if param.grad_req != "null":
                    self._kvstore.pull(i, out=param.list_data(), priority=-i)
            return
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
        atomically (from the store when it runs the optimizer)."""
        if self._optimizer is None:
            raise MXNetError("Trainer.save_states: no optimizer")
        self._init_kvstore()
        if self._update_on_kvstore:
            self._kvstore.save_optimizer_states(fname, dump_optimizer=True)
        else:
            atomic_write_bytes(fname, self._updaters[0].get_states(dump_optimizer=True))

    def load_states(self, fname):
        if not os.path.isfile(fname):
            raise MXNetError("Trainer.load_states: no file '%s'" % fname)
        self._init_kvstore()
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            self._optimizer = self._kvstore._updater.optimizer
        else:
            with open(fname, "rb") as f:
                states = f.read()
            for updater in self._updaters:
                updater.set_states(states)
                updater.optimizer = self._updaters[0].optimizer
            self._optimizer = self._updaters[0].optimizer
        self._optimizer.param_dict = {i: param for i, param in enumerate(self._params)}
