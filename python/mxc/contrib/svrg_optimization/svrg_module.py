"""SVRGModule: Module trained with stochastic variance-reduced gradients
(MXNet 1.9.1's mx.contrib.svrg_optimization.svrg_module).

Every `update_freq` epochs the module takes a snapshot w~ of its weights and
the full gradient mu = (1/n) sum_i grad f_i(w~) over the whole training set
(update_full_grads). Each step then applies, instead of the batch gradient
grad f_b(w), the variance-reduced  grad f_b(w) - grad f_b(w~) + mu;
grad f_b(w~) comes from a second Module (`_mod_aux`) that holds the snapshot
and sees the same batches."""
import logging

from ... import ndarray as nd
from ...base import MXNetError
from ...context import cpu
from ...module import Module, _create_kvstore
from .svrg_optimizer import _SVRGOptimizer


class SVRGModule(Module):
    """A Module with an auxiliary Module for the snapshot weights; the
    arguments are Module's plus `update_freq` (epochs between full-gradient
    computations, a positive int)."""

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",),
                 logger=logging, context=None, work_load_list=None, fixed_param_names=None,
                 state_names=None, group2ctxs=None, compression_params=None, update_freq=None):
        context = cpu() if context is None else context
        super().__init__(symbol, data_names=data_names, label_names=label_names, logger=logger,
                         context=context, work_load_list=work_load_list,
                         fixed_param_names=fixed_param_names, state_names=state_names,
                         group2ctxs=group2ctxs, compression_params=compression_params)
        if not isinstance(update_freq, int) or isinstance(update_freq, bool):
            raise TypeError("update_freq in SVRGModule must be an integer to represent the "
                            "frequency for calculating full gradients")
        if update_freq <= 0:
            raise ValueError("update_freq in SVRGModule must be a positive integer to represent "
                             "the frequency for calculating full gradients")
        self.update_freq = update_freq
        self._mod_aux = Module(symbol, data_names, label_names, logger, context, work_load_list,
                               fixed_param_names, state_names, group2ctxs, compression_params)
        self._param_dict = None   # per context: parameter name -> full gradient
        self._ctx_len = len(self._contexts)

    # -- the auxiliary module follows the main one -----------------------------------------
    def reshape(self, data_shapes, label_shapes=None):
        super().reshape(data_shapes, label_shapes=label_shapes)
        if self._mod_aux.binded:
            self._mod_aux.reshape(data_shapes, label_shapes=label_shapes)

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        super().bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind,
                     shared_module, grad_req)
        if for_training:
            self._mod_aux.bind(data_shapes, label_shapes, for_training, inputs_need_grad,
                               force_rebind, shared_module, grad_req)

    def forward(self, data_batch, is_train=None):
        super().forward(data_batch, is_train)
        if is_train:
            self._mod_aux.forward(data_batch, is_train)

    def backward(self, out_grads=None):
        super().backward(out_grads)
        if self._mod_aux.binded:
            self._mod_aux.backward(out_grads)

    def prepare(self, data_batch, sparse_row_id_fn=None):
        prepare = getattr(super(), "prepare", None)
        if prepare is not None:
            prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)

    # -- optimizer ---------------------------------------------------------------------------
    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        """Module.init_optimizer with an _SVRGOptimizer around `optimizer`;
        with a KVStore, also the '<param>_full' keys the full gradients are
        averaged over devices in."""
        self._param_dict = [{name: nd.zeros(value.shape, ctx=self._contexts[i])
                             for name, value in self.get_params()[0].items()}
                            for i in range(self._ctx_len)]
        svrg = self._create_optimizer(optimizer, kvstore, optimizer_params)
        super().init_optimizer(kvstore=kvstore, optimizer=svrg,
                               optimizer_params=optimizer_params, force_init=force_init)
        if self._kvstore is not None:
            for name in self._param_names:
                self._kvstore.init(name + "_full", nd.zeros(self._arg_params[name].shape))

    def _create_optimizer(self, default_opt, kvstore, optimizer_params):
        kv, update_on_kvstore = _create_kvstore(kvstore, self._arg_params, self._ctx_len)
        first = self._data_shapes[0]
        batch_size = first.shape[0]
        if kv is not None and "dist" in kv.type and "_sync" in kv.type:
            batch_size *= kv.num_workers
        if update_on_kvstore:
            idx2name = dict(enumerate(self._param_names))
        else:
            idx2name = {i * self._ctx_len + k: n for k in range(self._ctx_len)
                        for i, n in enumerate(self._param_names)}
        for name in self._param_dict[0]:
            idx2name[max(idx2name) + 1 if idx2name else 0] = name + "_full"
        params = dict(optimizer_params)
        params.setdefault("rescale_grad", 1.0 / batch_size)
        params["param_idx2name"] = idx2name
        return _SVRGOptimizer(default_optimizer=default_opt, sym=self._symbol, **params)

    def update(self):
        """Replaces each gradient with its variance-reduced form, then
        Module.update."""
        self._update_svrg_gradients()
        super().update()

    # -- SVRG --------------------------------------------------------------------------------
    def _grad(self, module, ctx, name):
        return module._execs[ctx].grad_dict[name]

    def update_full_grads(self, train_data):
        """Takes the snapshot (the auxiliary module gets the current
        weights) and the mean gradient over all of `train_data` at it."""
        if self._param_dict is None:
            raise MXNetError("update_full_grads: call init_optimizer() first")
        arg, aux = self.get_params()
        self._mod_aux.set_params(arg_params=arg, aux_params=aux)
        for ctx in range(self._ctx_len):
            for name in self._param_names:
                self._param_dict[ctx][name][:] = 0
        train_data.reset()
        nbatch, padding = 0, 0
        for batch in train_data:
            self._mod_aux.forward(batch, is_train=True)
            self._mod_aux.backward()
            nbatch += 1
            for ctx in range(self._ctx_len):
                for name in self._param_names:
                    self._param_dict[ctx][name] += self._grad(self._mod_aux, ctx, name)
            padding = batch.pad or 0
        if nbatch == 0:
            raise MXNetError("update_full_grads: the training data gave no batch")
        # a padded last batch counts for the part that is data
        true_num_batch = nbatch - padding / float(train_data.batch_size)
        for name in self._param_names:
            grads = []
            for ctx in range(self._ctx_len):
                self._param_dict[ctx][name] /= true_num_batch
                grads.append(self._param_dict[ctx][name])
            if self._kvstore is not None:
                self._accumulate_kvstore(name, grads)

    def _accumulate_kvstore(self, key, value):
        """Sums the devices' (and workers') full gradients of `key` in the
        store and gives each device the mean over its devices."""
        self._kvstore.push(key + "_full", value)
        self._kvstore._barrier()
        self._kvstore.pull(key + "_full", value)
        for i in range(self._ctx_len):
            self._param_dict[i][key] = value[i] / self._ctx_len

    def _svrg_grads_update_rule(self, g_curr_batch_curr_weight, g_curr_batch_special_weight,
                                g_special_weight_all_batch):
        """g(w) - g(w~) + mu, in place in the first list's arrays."""
        for i, grad in enumerate(g_curr_batch_curr_weight):
            grad -= g_curr_batch_special_weight[i]
            grad += g_special_weight_all_batch[i]
        return g_curr_batch_curr_weight

    def _update_svrg_gradients(self):
        if self._param_dict is None or not self._mod_aux.binded:
            return
        for ctx in range(self._ctx_len):
            for name in self._param_names:
                g = self._grad(self, ctx, name)
                if g is None:
                    continue
                self._svrg_grads_update_rule([g], [self._grad(self._mod_aux, ctx, name)],
                                             [self._param_dict[ctx][name]])

    def _fit_epoch_begin(self, epoch, train_data):
        """Module.fit's hook: the full gradient every update_freq epochs."""
        if epoch % self.update_freq == 0:
            self.update_full_grads(train_data)
            train_data.reset()
