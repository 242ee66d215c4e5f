"""mx.optimizer: SGD and Adam with MXNet 1.x's update rules.

The updates are MXNet's `sgd_update`, `sgd_mom_update` and `adam_update`:
on runtime arrays, compiled fused kernels pushed on the engine with the
weight and the states as written variables (mx.nd.sgd_update etc.); on
numpy-backed arrays, the same arithmetic in numpy (with rescale_grad,
clip_gradient, wd), learning rates from an lr_scheduler, per-parameter
lr_mult/wd_mult (from the symbol's __lr_mult__/__wd_mult__ attributes and,
as MXNet, wd_mult 0 for parameters whose names do not end in _weight or
_gamma), and the update counts MXNet keeps.
"""
import math
import pickle

import numpy as np

from .base import MXNetError
from .ndarray import NDArray


def _np(a):
    return a._data if isinstance(a, NDArray) else a


def _on_engine(*arrays):
    """True when the update can be a compiled kernel pushed on the engine:
    runtime float32/float64 arrays of one dtype (None states are ignored)."""
    arrays = [a for a in arrays if a is not None]
    if not all(isinstance(a, NDArray) and a._rt is not None for a in arrays):
        return False
    dt = arrays[0]._np.dtype
    return dt in (np.float32, np.float64) and all(a._np.dtype == dt for a in arrays)


class Optimizer:
    """Base class of the optimizers (MXNet 1.x's arguments)."""

    opt_registry = {}

    def __init__(self, rescale_grad=1.0, param_idx2name=None, wd=0.0, clip_gradient=None,
                 learning_rate=None, lr_scheduler=None, sym=None, begin_num_update=0,
                 multi_precision=False, param_dict=None):
        self.rescale_grad = rescale_grad
        self.lr = learning_rate if learning_rate is not None else 0.01
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is not None:
            self.lr_scheduler.base_lr = self.lr
        self.wd = wd
        self.lr_mult = {}
        self.wd_mult = {}
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        self._index_update_count = {}
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        self.aggregate_num = 0
        if param_idx2name is None:
            param_idx2name = {}
        if not isinstance(param_idx2name, dict):
            raise MXNetError("param_idx2name should be a dict of param indexes to names.")
        self.idx2name = dict(param_idx2name)
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = param_dict if param_dict else {}
        self.set_lr_mult({})
        self.set_wd_mult({})

    # -- registry ---------------------------------------------------------------------
    @staticmethod
    def register(klass):
        name = klass.__name__.lower()
        Optimizer.opt_registry[name] = klass
        return klass

    @staticmethod
    def create_optimizer(name, **kwargs):
        """An optimizer by (case-insensitive) name: 'sgd', 'adam'."""
        if isinstance(name, Optimizer):
            return name
        klass = Optimizer.opt_registry.get(str(name).lower())
        if klass is None:
            raise MXNetError("Cannot find optimizer %s (known: %s)"
                             % (name, ", ".join(sorted(Optimizer.opt_registry))))
        return klass(**kwargs)

    # -- states -----------------------------------------------------------------------
    def create_state(self, index, weight):
        return None

    def create_state_multi_precision(self, index, weight):
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        raise NotImplementedError()

    def update_multi_precision(self, index, weight, grad, state):
        self.update(index, weight, grad, state)

    # -- learning rate and weight decay ----------------------------------------------
    @property
    def learning_rate(self):
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr):
        if self.lr_scheduler is not None:
            raise UserWarning("LRScheduler of the optimizer has already been defined. "
                              "Note that set_learning_rate can mutate the value of the "
                              "learning rate of the optimizer only when the LRScheduler "
                              "of the optimizer is undefined.")
        self.lr = lr

    def set_lr_mult(self, args_lr_mult):
        self.lr_mult = {}
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                a = attr.get(name, {})
                if "__lr_mult__" in a:
                    self.lr_mult[name] = float(a["__lr_mult__"])
        self.lr_mult.update(args_lr_mult)

    def set_wd_mult(self, args_wd_mult):
        self.wd_mult = {}
        for n in self.idx2name.values():
            if not (n.endswith("_weight") or n.endswith("_gamma")):
                self.wd_mult[n] = 0.0
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                a = attr.get(name, {})
                if "__wd_mult__" in a:
                    self.wd_mult[name] = float(a["__wd_mult__"])
        self.wd_mult.update(args_wd_mult)

    def _update_count(self, index):
        if index not in self._index_update_count:
            self._index_update_count[index] = self.begin_num_update
        self._index_update_count[index] += 1
        self.num_update = max(self._index_update_count[index], self.num_update)

    def _mult(self, index, table, attr):
        if index in self.param_dict:
            return getattr(self.param_dict[index], attr)
        if index in table:
            return table[index]
        if index in self.idx2name:
            return table.get(self.idx2name[index], 1.0)
        return 1.0

    def _get_lr(self, index):
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        return lr * self._mult(index, self.lr_mult, "lr_mult")

    def _get_wd(self, index):
        return self.wd * self._mult(index, self.wd_mult, "wd_mult")

    def _prepare_grad(self, grad, dtype):
        g = _np(grad).astype(dtype, copy=True) * dtype.type(self.rescale_grad)
        if self.clip_gradient is not None and self.clip_gradient >= 0:
            np.clip(g, -self.clip_gradient, self.clip_gradient, out=g)
        return g

    def __getstate__(self):
        # As MXNet: the parameters (param_dict, gluon's Parameters) are not
        # part of the state; the Trainer sets them again after loading.
        ret = self.__dict__.copy()
        ret.pop("sym_info", None)
        ret.pop("param_dict", None)
        return ret

    def __setstate__(self, state):
        self.__dict__ = state
        self.sym_info = ()
        self.param_dict = {}


register = Optimizer.register
create = Optimizer.create_optimizer


@register
class SGD(Optimizer):
    """SGD, optionally with momentum (MXNet's sgd_update / sgd_mom_update):

        g = clip(rescale_grad * grad, clip_gradient)
        mom = momentum * mom - lr * (g + wd * weight);  weight += mom
        (without momentum: weight -= lr * (g + wd * weight))
    """

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        if self.momentum == 0.0:
            return None
        from . import ndarray as nd
        return nd.zeros(weight.shape, weight.context, dtype=weight.dtype)

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr = self._get_lr(index)
        wd = self._get_wd(index)
        if _on_engine(weight, grad, state):
            from . import ndarray as nd
            clip = self.clip_gradient if self.clip_gradient is not None else -1.0
            if state is not None:
                nd.sgd_mom_update(weight, grad, state, lr, momentum=self.momentum, wd=wd,
                                  rescale_grad=self.rescale_grad, clip_gradient=clip,
                                  out=weight)
            else:
                nd.sgd_update(weight, grad, lr, wd=wd, rescale_grad=self.rescale_grad,
                              clip_gradient=clip, out=weight)
            return
        w = _np(weight)
        t = w.dtype.type
        g = self._prepare_grad(grad, w.dtype)
        if state is not None:
            mom = _np(state)
            mom *= t(self.momentum)
            mom -= t(lr) * (g + t(wd) * w)
            w += mom
        else:
            w -= t(lr) * (g + t(wd) * w)


@register
class Adam(Optimizer):
    """Adam (MXNet's adam_update, with the bias correction folded into lr):

        lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)
        g = clip(rescale_grad * grad + wd * weight, clip_gradient)
        mean = beta1 * mean + (1 - beta1) * g
        var = beta2 * var + (1 - beta2) * g^2
        weight -= lr_t * mean / (sqrt(var) + epsilon)
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        from . import ndarray as nd
        z = lambda: nd.zeros(weight.shape, weight.context, dtype=weight.dtype)
        return (z(), z())

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr = self._get_lr(index)
        wd = self._get_wd(index)
        t = self._index_update_count[index]
        lr *= math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)
        if _on_engine(weight, grad, *state):
            from . import ndarray as nd
            clip = self.clip_gradient if self.clip_gradient is not None else -1.0
            nd.adam_update(weight, grad, state[0], state[1], lr, beta1=self.beta1,
                           beta2=self.beta2, epsilon=self.epsilon, wd=wd,
                           rescale_grad=self.rescale_grad, clip_gradient=clip, out=weight)
            return
        w = _np(weight)
        ty = w.dtype.type
        g = _np(grad).astype(w.dtype, copy=True) * ty(self.rescale_grad) + ty(wd) * w
        if self.clip_gradient is not None and self.clip_gradient >= 0:
            np.clip(g, -self.clip_gradient, self.clip_gradient, out=g)
        mean, var = _np(state[0]), _np(state[1])
        mean *= ty(self.beta1)
        mean += ty(1.0 - self.beta1) * g
        var *= ty(self.beta2)
        var += ty(1.0 - self.beta2) * g * g
        w -= ty(lr) * mean / (np.sqrt(var) + ty(self.epsilon))


class Updater:
    """Applies an optimizer to (index, grad, weight), keeping one state per
    index (what Module and kvstore-less training use)."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}
        self.states_synced = {}

    def __call__(self, index, grad, weight):
        if not isinstance(index, (list, tuple)):
            index, grad, weight = [index], [grad], [weight]
        for i, g, w in zip(index, grad, weight):
            if i not in self.states:
                self.states[i] = self.optimizer.create_state_multi_precision(i, w)
                self.states_synced[i] = True
            self.optimizer.update_multi_precision(i, w, g, self.states[i])

    def set_states(self, states):
        states = pickle.loads(states)
        if isinstance(states, tuple) and len(states) == 2:
            self.states, self.optimizer = states
        else:
            self.states = states
        self.states = {k: _restore(v) for k, v in self.states.items()}
        self.states_synced = dict.fromkeys(self.states.keys(), False)

    def get_states(self, dump_optimizer=False):
        states = {k: _numpy_state(v) for k, v in self.states.items()}
        return pickle.dumps((states, self.optimizer) if dump_optimizer else states)


def _numpy_state(v):
    if isinstance(v, NDArray):
        return ("__nd__", v.asnumpy())
    if isinstance(v, (list, tuple)):
        return type(v)(_numpy_state(x) for x in v)
    return v


def _restore(v):
    if isinstance(v, tuple) and len(v) == 2 and v[0] == "__nd__":
        return NDArray(np.array(v[1]))
    if isinstance(v, (list, tuple)):
        return type(v)(_restore(x) for x in v)
    return v


def get_updater(optimizer):
    return Updater(optimizer)


@register
class Test(Optimizer):
    """MXNet's Test optimizer (what its KVStore tests use): weight +=
    rescale_grad * grad; the state holds a copy of the weight."""

    def create_state(self, index, weight):
        from .ndarray import zeros
        return zeros(weight.shape, weight.context, dtype=weight.dtype)

    def update(self, index, weight, grad, state):
        weight[:] += grad * self.rescale_grad
        state[:] = weight
