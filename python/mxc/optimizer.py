"""mx.optimizer: MXNet 1.x's optimizers and update rules.

SGD's and Adam's updates are MXNet's `sgd_update`, `sgd_mom_update` and
`adam_update` (NAG's, RMSProp's, Signum's, Ftrl's, FTML's and LAMB's their
update operators, _update_ops.COMPILED; the others ndarray._build_update
graphs of their rules): on runtime arrays, compiled fused kernels pushed on
the engine with the weight and the states as written variables (reductions
too: LAMB's and LARS's norms, GroupAdaGrad's row means); on
numpy-backed arrays, the same arithmetic in numpy (with rescale_grad,
clip_gradient, wd), learning rates from an lr_scheduler, per-parameter
lr_mult/wd_mult (from the symbol's __lr_mult__/__wd_mult__ attributes and,
as MXNet, wd_mult 0 for parameters whose names do not end in _weight or
_gamma), and the update counts MXNet keeps.
"""
import math
import pickle

import numpy as np

from . import _update_ops as _uo
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
    dt = arrays[0]._sig[1]  # (GPU arrays have no numpy view)
    return dt in (np.float32, np.float64) and all(a._sig[1] == dt for a in arrays)


def _compiled_update(opt, weight, grad):
    """Whether the compiled kernels of the class whose update() `opt` runs
    take the update: that class says so (_compiled, in its own body: not a
    subclass's update in numpy), runtime arrays, a float32 / float64 weight
    (those of _compiled where it lists dtypes) with a gradient of its dtype,
    or a float16 weight with a float32 master copy (multi_precision)."""
    owner = next(c for c in type(opt).__mro__ if "update" in vars(c))
    compiled = vars(owner).get("_compiled", False)
    if not compiled or weight._rt is None or not isinstance(grad, NDArray) or \
            grad._rt is None:
        return False
    if compiled is not True:  # (the dtypes its states allow)
        return weight._sig[1] in compiled and grad._sig[1] == weight._sig[1]
    if opt._use_master_copy(weight):
        return True
    return weight._sig[1] in (np.float32, np.float64) and grad._sig[1] == weight._sig[1]


class Optimizer:
    """Base class of the optimizers (MXNet 1.x's arguments)."""

    opt_registry = {}

    def __init__(self, rescale_grad=1.0, param_idx2name=None, wd=0.0, clip_gradient=None,
                 learning_rate=None, lr_scheduler=None, sym=None, begin_num_update=0,
                 multi_precision=False, param_dict=None):
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        # As MXNet 1.9.1: a scheduler keeps its base_lr unless learning_rate
        # is given (then learning_rate wins).
        if lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        if lr_scheduler is not None and learning_rate is not None:
            self.lr_scheduler.base_lr = learning_rate
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

    def _use_master_copy(self, weight):
        return self.multi_precision and np.dtype(weight.dtype) == np.float16

    def create_state_multi_precision(self, index, weight):
        """MXNet's mixed precision: for a float16 weight with
        multi_precision, (a float32 master copy, the state for it); else
        create_state's."""
        if self._use_master_copy(weight):
            master = weight.astype(np.float32)
            return (master, self.create_state(index, master))
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        raise NotImplementedError()

    # Set in the body of a class whose update() pushes compiled kernels on
    # runtime arrays: True, or the weight dtypes it compiles for.
    _compiled = False

    def _updates_on_device(self, weight, grad):
        """Whether update_multi_precision runs on a GPU weight's device
        (compiled kernels: _compiled_update); if not, Updater runs it on host
        copies: those of no compiled kernel (AdaGrad / AdaDelta on float64
        weights, a subclass whose update() is numpy)."""
        return _compiled_update(self, weight, grad)

    def update_multi_precision(self, index, weight, grad, state):
        """update(); for a float16 weight with multi_precision, on the
        float32 master copy (with a float32 gradient), then the weight is the
        master copy cast to float16. Lists of indices, weights, gradients
        and states (MXNet's aggregated form, multi_lamb / multi_sgd): one
        update a tensor, in order."""
        if _each(self.update_multi_precision, index, weight, grad, state):
            return
        if self._use_master_copy(weight):
            master, inner = state
            self.update(index, master, grad.astype(np.float32), inner)
            weight[:] = master.astype(weight.dtype)
            return
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

    @staticmethod
    def _decays(name):
        """Whether weight decay applies to a parameter by default (MXNet:
        '*_weight' and '*_gamma'; LARS: '*_weight' only)."""
        return name.endswith(("_weight", "_gamma"))

    def set_wd_mult(self, args_wd_mult):
        self.wd_mult = {}
        for n in self.idx2name.values():
            if not self._decays(n):
                self.wd_mult[n] = 0.0
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                a = attr.get(name, {})
                if "__wd_mult__" in a:
                    self.wd_mult[name] = float(a["__wd_mult__"])
        self.wd_mult.update(args_wd_mult)

    def _update_count(self, index):
        if isinstance(index, (list, tuple)):  # aggregated updates
            for i in index:
                self._update_count(i)
            return
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
        """rescale_grad * grad, clipped as MXNet's Python asks its kernels
        to (only where clip_gradient is truthy: 0 does not clip)."""
        g = _np(grad).astype(dtype, copy=True) * dtype.type(self.rescale_grad)
        return _clip(g, _kernel_clip(self.clip_gradient))

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


def _each(update, index, weight, grad, state):
    """MXNet's aggregated update (lists of indices, weights, gradients and
    states): `update` on each tensor in turn; False for one tensor."""
    if not isinstance(index, (list, tuple)):
        return False
    if not len(index) == len(weight) == len(grad) == len(state):
        raise MXNetError("aggregated update: %d indices, %d weights, %d gradients, %d states"
                         % (len(index), len(weight), len(grad), len(state)))
    for i, w, g, s in zip(index, weight, grad, state):
        update(i, w, g, s)
    return True


class _StateThenMasterCopy:
    """SGD's and NAG's multi-precision state order, as MXNet's: (the state
    for the float32 master copy, the master copy) for a float16 weight."""

    def create_state_multi_precision(self, index, weight):
        """As MXNet's SGD / NAG: (the state for the float32 master copy, the
        master copy) for a float16 weight with multi_precision."""
        if self._use_master_copy(weight):
            master = weight.astype(np.float32)
            return (self.create_state(index, master), master)
        return self.create_state(index, weight)

    def update_multi_precision(self, index, weight, grad, state):
        if _each(self.update_multi_precision, index, weight, grad, state):
            return
        if self._use_master_copy(weight):
            inner, master = state
            self.update(index, master, grad.astype(np.float32), inner)
            weight[:] = master.astype(weight.dtype)
            return
        self.update(index, weight, grad, state)


@register
class SGD(_StateThenMasterCopy, Optimizer):
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
        return nd._zeros_any(weight.shape, weight.context, dtype=weight.dtype)

    _compiled = True

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr = self._get_lr(index)
        wd = self._get_wd(index)
        if _on_engine(weight, grad, state):
            from . import ndarray as nd
            clip = _kernel_clip(self.clip_gradient)
            if state is not None:
                nd.sgd_mom_update(weight, grad, state, lr,
                                  momentum=_kernel_momentum(self.momentum), wd=wd,
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
            mom *= t(_kernel_momentum(self.momentum))
            mom -= t(lr) * (g + t(wd) * w)
            w += mom
        else:
            w -= t(lr) * (g + t(wd) * w)


@register
class LARS(_StateThenMasterCopy, Optimizer):
    """Layer-wise adaptive rate scaling (You et al., 2017; MXNet's LARS):
    SGD (with momentum) whose lr is scaled per parameter by the trust ratio

        lr_i = lr * eta * ||w|| / (rescale_grad * ||grad|| + wd * ||w|| + eps)

    (lr itself where a norm is 0, and for names ending in gamma, beta or
    bias). Only '*_weight' parameters decay. With momentum_correction the
    momentum is scaled by lr / previous lr when a schedule changes lr.
    On runtime arrays the two norms are float32 reductions on the weight's
    device (mx.nd.norm) and the trust ratio and the step one compiled kernel
    pushed on the engine; numpy on numpy-backed ones. Per parameter (MXNet
    aggregates several parameters into multi_lars /
    preloaded_multi_sgd_mom_update calls; the same arithmetic)."""

    def __init__(self, momentum=0.0, lazy_update=True, eta=0.001, eps=0,
                 momentum_correction=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.momentum_correction = momentum_correction
        self.lazy_update = lazy_update
        self.eta = eta
        self.eps = eps
        self.last_lr = None
        self.cur_lr = None

    @staticmethod
    def _decays(name):
        return name.endswith("_weight")

    def create_state(self, index, weight):
        if self.momentum == 0.0:
            return None
        from . import ndarray as nd
        return nd._zeros_any(weight.shape, weight.context, dtype=weight.dtype)

    def _lars_lr(self, index):
        # cur_lr / last_lr move once per step (num_update), so that every
        # parameter of a step gets the same momentum correction
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        if getattr(self, "_lr_step", None) != self.num_update:
            self._lr_step = self.num_update
            self.last_lr = lr if self.cur_lr is None else self.cur_lr
            self.cur_lr = lr
        return lr * self._mult(index, self.lr_mult, "lr_mult")

    _compiled = True

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr = self._lars_lr(index)
        wd = self._get_wd(index)
        name = self.idx2name.get(index, str(index))
        trust = not name.endswith(("gamma", "beta", "bias"))
        momentum = _kernel_momentum(self.momentum)
        if momentum > 0 and self.momentum_correction and self.last_lr:
            momentum = momentum * (self.cur_lr / self.last_lr)
        if _on_engine(weight, grad, state):
            # the norms in float32 on the weight's device (MXNet's
            # multi_sum_sq), the trust ratio and the step one kernel
            from . import ndarray as nd
            norms = {}
            if trust:
                for key, a in (("w_norm", weight), ("g_norm", grad)):
                    a = a if a.dtype == np.float32 else a.astype(np.float32)
                    norms[key] = nd.norm(a).reshape((1,) * weight.ndim)
            _pushed("lars" if state is None else "lars_mom", weight, grad, [state], lr,
                    dict(trust=trust, eta=self.eta, eps=self.eps, wd=wd,
                         rescale_grad=self.rescale_grad,
                         clip_gradient=_clip_param(self.clip_gradient)),
                    None if state is None else dict(momentum=momentum), inputs=norms)
            return
        f = np.float32
        w = _np(weight)
        g = _np(grad)
        if trust:
            w_norm = f(np.sqrt(np.sum(np.square(w.astype(f)), dtype=f)))
            g_norm = f(np.sqrt(np.sum(np.square(g.astype(f)), dtype=f))) * f(self.rescale_grad)
            if w_norm > 0 and g_norm > 0:
                lr = lr * f(self.eta) * w_norm / (g_norm + f(wd) * w_norm + f(self.eps))
        t = w.dtype.type
        gr = g.astype(w.dtype, copy=True) * t(self.rescale_grad)
        if self.clip_gradient is not None and self.clip_gradient >= 0:
            np.clip(gr, -self.clip_gradient, self.clip_gradient, out=gr)
        step = t(momentum) * _np(state) if state is not None else t(0)
        step = step - t(lr) * t(wd) * w - t(lr) * gr
        if state is not None:
            _np(state)[...] = step
        w += step.astype(w.dtype)


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
        z = lambda: nd._zeros_any(weight.shape, weight.context, dtype=weight.dtype)
        return (z(), z())

    _compiled = True

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr = self._get_lr(index)
        wd = self._get_wd(index)
        t = self._index_update_count[index]
        lr *= math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)
        if _on_engine(weight, grad, *state):
            from . import ndarray as nd
            clip = _kernel_clip(self.clip_gradient)
            nd.adam_update(weight, grad, state[0], state[1], lr, beta1=self.beta1,
                           beta2=self.beta2, epsilon=self.epsilon, wd=wd,
                           rescale_grad=self.rescale_grad, clip_gradient=clip, out=weight)
            return
        w = _np(weight)
        ty = w.dtype.type
        g = _clip(_np(grad).astype(w.dtype, copy=True) * ty(self.rescale_grad) + ty(wd) * w,
                  _kernel_clip(self.clip_gradient))
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
            # A weight on a GPU that the optimizer updates in numpy: the
            # update runs on the host (its states kept there), the weight
            # copied there and back.
            host = isinstance(w, NDArray) and w._on_gpu() and \
                not self.optimizer._updates_on_device(w, g)
            if i not in self.states:
                self.states[i] = self.optimizer.create_state_multi_precision(
                    i, w.copyto(_host_ctx()) if host else w)
                self.states_synced[i] = True
            elif not self.states_synced.get(i, True):
                # states loaded by set_states live on the host: to the
                # weight's device (MXNet's sync_state_context), runtime
                # arrays for a runtime weight (the compiled updates take
                # them; numpy-backed ones would send it to the numpy rule)
                self.states[i] = _to_context(self.states[i], _host_ctx() if host else w.context,
                                             not host and isinstance(w, NDArray) and
                                             w._rt is not None)
                self.states_synced[i] = True
            if host:
                hw = w.copyto(_host_ctx())
                self.optimizer.update_multi_precision(i, hw, g.copyto(_host_ctx()),
                                                      self.states[i])
                hw.copyto(w)
            else:
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


def _host_ctx():
    from .context import cpu
    return cpu()


def _to_context(v, ctx, runtime=False):
    """State `v` on `ctx` (`runtime`: as runtime arrays)."""
    if isinstance(v, NDArray):
        if runtime and v._rt is None:
            from . import ndarray as nd
            return nd.array(v._data, ctx=ctx, dtype=v.dtype)
        return v.as_in_context(ctx) if v.context != ctx else v
    if isinstance(v, (list, tuple)):
        return type(v)(_to_context(x, ctx, runtime) for x in v)
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

    def _updates_on_device(self, weight, grad):
        return True  # NDArray operators: compiled for the weight's device

    def update(self, index, weight, grad, state):
        weight[:] += grad * self.rescale_grad
        state[:] = weight


# -- the rest of MXNet 1.9.1's optimizers ----------------------------------------------
#
# Each update is MXNet 1.9.1's rule in numpy, in the weight's dtype, on the
# arrays' data after the engine's pending work on them (NDArray._data), written
# in place, for numpy-backed arrays; on runtime arrays (_compiled) compiled
# kernels pushed on the engine do the same (mx.nd.<op>_update,
# _update_ops.COMPILED, or _pushed's ndarray._build_update graphs): the
# fused-kernel ones (nag_mom_update, rmsprop_update,
# rmspropalex_update, ftrl_update, signsgd_update, signum_update,
# lamb_update_phase1/2) follow the kernels of src/operator/optimizer_op-inl.h,
# the others MXNet's Python arithmetic (python/mxnet/optimizer/optimizer.py).
# As there, the fused ones clip only when clip_gradient is truthy, the Python
# ones whenever it is not None.

def _pushed(kind, weight, grad, states, lr, params, scalars=None, dtypes=None, inputs=None):
    """The update as a compiled kernel pushed on the engine (ndarray's
    _build_update `kind`, the numpy rule below operation for operation),
    where the arrays allow (_on_engine; `dtypes`: the weight dtypes it takes);
    False otherwise (then the numpy rule runs). `inputs`: arrays the update
    reads besides the weight, the gradient and the states ({name: array};
    runtime arrays of any dtype: LARS's float32 norms)."""
    from . import ndarray as nd
    inputs = inputs or {}
    if not _on_engine(weight, grad, *states) or \
            not all(a._rt is not None for a in inputs.values()) or \
            (dtypes is not None and weight._sig[1] not in dtypes):
        return False
    names = nd._UPDATE_WRITES[kind][1:]
    arrays = dict(zip(names, [s for s in states if s is not None]), weight=weight, grad=grad,
                  **inputs)
    nd._push_update(kind, arrays, lr, {k: float(v) for k, v in params.items()}, weight,
                    scalars)
    return True


def _clip_param(clip_gradient):
    """MXNet's Python rules clip whenever clip_gradient is not None."""
    return -1.0 if clip_gradient is None else float(clip_gradient)


def _zeros_like(weight):
    from . import ndarray as nd
    return nd._zeros_any(weight.shape, weight.context, dtype=weight.dtype)


def _kernel_momentum(momentum):
    """The momentum a kernel gets from MXNet's Python: passed only when
    positive, so a negative one is the op's default 0 (the state still
    exists and is written)."""
    return momentum if momentum > 0 else 0.0


def _kernel_clip(clip_gradient):
    """The clip_gradient a fused kernel gets from MXNet's Python (-1: none)."""
    return clip_gradient if clip_gradient else -1.0


def _clip(x, bound):
    if bound is not None and bound >= 0:
        np.clip(x, -bound, bound, out=x)
    return x


def _grad(grad, w, rescale_grad):
    """rescale_grad * grad in the weight's dtype (a new array)."""
    return _np(grad).astype(w.dtype, copy=True) * w.dtype.type(rescale_grad)


@register
class NAG(_StateThenMasterCopy, Optimizer):
    """Nesterov accelerated gradient (MXNet's nag_mom_update; sgd_update
    without momentum):

        g = clip(rescale_grad * grad, clip_gradient) + wd * weight
        mom = momentum * mom
        weight = weight - mom + (momentum + 1) * (mom - lr * g)
        mom = mom - lr * g   (g's wd term with the new weight: MXNet's kernel
                              runs in place)
    """

    def __init__(self, momentum=0.0, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    _compiled = True

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        from . import ndarray as nd
        clip = _kernel_clip(self.clip_gradient)
        if state is None:
            # (sgd_update's formula; compiled on runtime arrays, else numpy)
            if _on_engine(weight, grad):
                nd.sgd_update(weight, grad, lr, wd=wd, rescale_grad=self.rescale_grad,
                              clip_gradient=clip, out=weight)
                return
            w = _np(weight)
            t = w.dtype.type
            g = _clip(_grad(grad, w, self.rescale_grad), clip)
            w -= t(lr) * (g + t(wd) * w)
            return
        nd.nag_mom_update(weight, grad, state, lr, momentum=_kernel_momentum(self.momentum),
                          wd=wd, rescale_grad=self.rescale_grad, clip_gradient=clip, out=weight)


@register
class RMSProp(Optimizer):
    """RMSProp: Tieleman & Hinton (centered=False, MXNet's rmsprop_update) or
    Graves (centered=True, rmspropalex_update):

        g = clip(rescale_grad * grad + wd * weight, clip_gradient)
        n = (1 - gamma1) * g^2 + gamma1 * n
        not centered: weight -= lr * g / sqrt(n + epsilon)
        centered:     s = (1 - gamma1) * g + gamma1 * s
                      delta = gamma2 * delta - lr * g / sqrt(n - s^2 + epsilon)
                      weight += delta
        then weight = clip(weight, clip_weights) when clip_weights is given.
    """

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8,
                 centered=False, clip_weights=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1 = gamma1
        self.gamma2 = gamma2
        self.centered = centered
        self.epsilon = epsilon
        self.clip_weights = clip_weights

    def create_state(self, index, weight):
        if self.centered:
            return (_zeros_like(weight), _zeros_like(weight), _zeros_like(weight))
        return (_zeros_like(weight),)

    _compiled = True

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        from . import ndarray as nd
        kw = dict(gamma1=self.gamma1, epsilon=self.epsilon, wd=wd,
                  rescale_grad=self.rescale_grad,
                  clip_gradient=_kernel_clip(self.clip_gradient),
                  clip_weights=_kernel_clip(self.clip_weights), out=weight)
        # (compiled kernels on runtime arrays, else numpy: _update_ops)
        if not self.centered:
            nd.rmsprop_update(weight, grad, state[0], lr, **kw)
        else:
            nd.rmspropalex_update(weight, grad, state[0], state[1], state[2], lr,
                                  gamma2=self.gamma2, **kw)


@register
class AdaGrad(Optimizer):
    """AdaGrad (MXNet's Python rule):

        g = clip(rescale_grad * grad, clip_gradient)
        history += g^2
        weight += (g / sqrt(history + eps) + wd * weight) * -lr
    """

    def __init__(self, eps=1e-7, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        from . import ndarray as nd
        return nd._zeros_any(weight.shape, weight.context)   # float32, as MXNet

    _compiled = (np.float32,)  # (the history is)

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        if _pushed("adagrad", weight, grad, [state], -lr, dict(
                rescale_grad=self.rescale_grad, clip_gradient=_clip_param(self.clip_gradient),
                eps=self.float_stable_eps, wd=wd), dtypes=(np.float32,)):
            return
        w = _np(weight)
        t = w.dtype.type
        g = _clip(_grad(grad, w, self.rescale_grad), self.clip_gradient)
        history = _np(state)
        history += np.square(g)
        div = g / np.sqrt(history + t(self.float_stable_eps))
        w += (div + w * t(wd)) * t(-lr)


@register
class AdaDelta(Optimizer):
    """AdaDelta (MXNet's Python rule; the learning rate is not used):

        g = clip(rescale_grad * grad, clip_gradient)
        acc_g = rho * acc_g + (1 - rho) * g^2
        delta = sqrt(acc_delta + epsilon) / sqrt(acc_g + epsilon) * g
        acc_delta = rho * acc_delta + (1 - rho) * delta^2
        weight -= delta + wd * weight

    (MXNet also multiplies the caller's gradient by rescale_grad in place;
    here the gradient is left as it is.)
    """

    def __init__(self, rho=0.90, epsilon=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def create_state(self, index, weight):
        from . import ndarray as nd
        return (nd._zeros_any(weight.shape, weight.context), nd._zeros_any(weight.shape, weight.context))

    _compiled = (np.float32,)  # (the accumulators are)

    def update(self, index, weight, grad, state):
        wd = self._get_wd(index)
        self._update_count(index)
        if _pushed("adadelta", weight, grad, list(state), 0.0, dict(
                rescale_grad=self.rescale_grad, clip_gradient=_clip_param(self.clip_gradient),
                rho=self.rho, epsilon=self.epsilon, wd=wd), dtypes=(np.float32,)):
            return
        w = _np(weight)
        t = w.dtype.type
        g = _clip(_grad(grad, w, self.rescale_grad), self.clip_gradient)
        acc_g, acc_delta = _np(state[0]), _np(state[1])
        rho = t(self.rho)
        acc_g *= rho
        acc_g += (t(1) - rho) * g * g
        delta = np.sqrt(acc_delta + t(self.epsilon)) / np.sqrt(acc_g + t(self.epsilon)) * g
        acc_delta *= rho
        acc_delta += (t(1) - rho) * delta * delta
        w -= delta + t(wd) * w


@register
class Ftrl(Optimizer):
    """FTRL-Proximal (MXNet's ftrl_update):

        g = clip(rescale_grad * grad, clip_gradient)
        z += g - (sqrt(n + g^2) - sqrt(n)) * weight / lr
        n += g^2
        weight = (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd) * (|z| > lamda1)
    """

    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, **kwargs):
        super().__init__(**kwargs)
        self.lamda1 = lamda1
        self.beta = beta
        self.lr = learning_rate

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))   # z, n

    _compiled = True

    def update(self, index, weight, grad, state):
        self._update_count(index)
        wd, lr = self._get_wd(index), self._get_lr(index)
        from . import ndarray as nd
        nd.ftrl_update(weight, grad, state[0], state[1], lr, lamda1=self.lamda1,
                       beta=self.beta, wd=wd, rescale_grad=self.rescale_grad,
                       clip_gradient=_kernel_clip(self.clip_gradient), out=weight)


@register
class Adamax(Optimizer):
    """AdaMax (MXNet's Python rule):

        lr_t = lr / (1 - beta1^t)
        g = clip(rescale_grad * grad + wd * weight, clip_gradient)
        m = beta1 * m + (1 - beta1) * g
        u = maximum(beta2 * u, |g|)
        weight -= lr_t * m / u
    """

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))

    _compiled = True

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t_ = self._index_update_count[index]
        lr /= (1. - self.beta1 ** t_)
        if _pushed("adamax", weight, grad, list(state), lr, dict(
                rescale_grad=self.rescale_grad, clip_gradient=_clip_param(self.clip_gradient),
                beta1=self.beta1, beta2=self.beta2, wd=wd)):
            return
        w = _np(weight)
        t = w.dtype.type
        g = _clip(_grad(grad, w, self.rescale_grad) + t(wd) * w, self.clip_gradient)
        m, u = _np(state[0]), _np(state[1])
        m *= t(self.beta1)
        m += t(1. - self.beta1) * g
        u[...] = np.maximum(t(self.beta2) * u, np.abs(g))
        w -= t(lr) * m / u


@register
class Nadam(Optimizer):
    """Nesterov Adam (MXNet's Python rule, with its momentum schedule
    beta1 * (1 - 0.5 * 0.96^(t * schedule_decay)))."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 schedule_decay=0.004, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.schedule_decay = schedule_decay
        self.m_schedule = 1.

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))

    _compiled = True

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t_ = self._index_update_count[index]
        momentum_t = self.beta1 * (1. - 0.5 * (pow(0.96, t_ * self.schedule_decay)))
        momentum_t_1 = self.beta1 * (1. - 0.5 * (pow(0.96, (t_ + 1) * self.schedule_decay)))
        self.m_schedule = self.m_schedule * momentum_t
        m_schedule_next = self.m_schedule * momentum_t_1
        if _pushed("nadam", weight, grad, list(state), lr, dict(
                rescale_grad=self.rescale_grad, clip_gradient=_clip_param(self.clip_gradient),
                beta1=self.beta1, beta2=self.beta2, epsilon=self.epsilon, wd=wd),
                dict(c_g=1. - self.m_schedule, c_m=1. - m_schedule_next,
                     c_v=1. - pow(self.beta2, t_), c_gm=1. - momentum_t, c_mm=momentum_t_1)):
            return
        w = _np(weight)
        t = w.dtype.type
        g = _clip(_grad(grad, w, self.rescale_grad) + t(wd) * w, self.clip_gradient)
        m, v = _np(state[0]), _np(state[1])
        m *= t(self.beta1)
        m += t(1. - self.beta1) * g
        v *= t(self.beta2)
        v += t(1. - self.beta2) * g * g
        grad_prime = g / t(1. - self.m_schedule)
        m_prime = m / t(1. - m_schedule_next)
        v_prime = v / t(1. - pow(self.beta2, t_))
        m_bar = t(1. - momentum_t) * grad_prime + t(momentum_t_1) * m_prime
        w -= t(lr) * m_bar / (np.sqrt(v_prime) + t(self.epsilon))


@register
class Signum(Optimizer):
    """signSGD (momentum 0, MXNet's signsgd_update) and Signum (signum_update):

        signsgd: weight = (1 - lr * wd) * weight - lr * sign(grad)
        signum:  mom = momentum * mom - (1 - momentum) * (wd * weight
                       + clip(rescale_grad * grad, clip_gradient))
                 weight = (1 - lr * wd_lh) * weight + lr * sign(mom)
    """

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum
        self.wd_lh = wd_lh

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    _compiled = True

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        from . import ndarray as nd
        if state is None:
            nd.signsgd_update(weight, grad, lr, wd=wd, out=weight)
            return
        nd.signum_update(weight, grad, state, lr,
                         momentum=_kernel_momentum(self.momentum), wd=wd,
                         rescale_grad=self.rescale_grad,
                         clip_gradient=_kernel_clip(self.clip_gradient),
                         wd_lh=self.wd_lh or 0.0, out=weight)


@register
class LAMB(Optimizer):
    """LAMB (MXNet's lamb_update_phase1 + lamb_update_phase2):

        g = clip(rescale_grad * grad, clip_gradient)
        mean = beta1 * mean + (1 - beta1) * g;  var = beta2 * var + (1 - beta2) * g^2
        r = mean / (sqrt(var) + epsilon) + wd * weight    (bias-corrected mean/var
            when bias_correction)
        r1 = clip(||weight||, lower_bound, upper_bound);  r2 = ||r||
        weight -= lr * (r1 / r2 if r1 != 0 and r2 != 0 else 1) * r
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 lower_bound=None, upper_bound=None, bias_correction=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.bias_correction = bias_correction

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))

    _compiled = True

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        step = self._index_update_count[index]
        bounds = dict(lower_bound=self.lower_bound if self.lower_bound else -1.0,
                      upper_bound=self.upper_bound if self.upper_bound else -1.0)
        if _on_engine(weight, grad, *state):
            # MXNet's Python LAMB: phase 1, the norms (weight.norm(), g.norm():
            # in the weight's dtype, reductions on its device), phase 2; each
            # pushed on the engine
            from . import ndarray as nd
            g = nd.lamb_update_phase1(weight, grad, state[0], state[1], t=step,
                                      beta1=self.beta1, beta2=self.beta2, epsilon=self.epsilon,
                                      bias_correction=self.bias_correction, wd=wd,
                                      rescale_grad=self.rescale_grad,
                                      clip_gradient=_kernel_clip(self.clip_gradient))
            nd.lamb_update_phase2(weight, g, nd.norm(weight), nd.norm(g), lr=lr, out=weight,
                                  **bounds)
            return
        w = _np(weight)
        r = _uo.lamb_phase1(w, _np(grad), _np(state[0]), _np(state[1]), step,
                            beta1=self.beta1, beta2=self.beta2, epsilon=self.epsilon,
                            bias_correction=self.bias_correction, wd=wd,
                            rescale_grad=self.rescale_grad,
                            clip_gradient=_kernel_clip(self.clip_gradient))
        w[...] = _uo.lamb_phase2(w, r, _uo.l2_norm(w), _uo.l2_norm(r), lr, **bounds)


@register
class FTML(Optimizer):
    """FTML, Follow the Moving Leader (MXNet's ftml_update):

        g = clip(rescale_grad * grad + wd * weight, clip_gradient)
        v = beta2 * v + (1 - beta2) * g^2
        d_t = (1 - beta1^t) / lr * (sqrt(v / (1 - beta2^t)) + epsilon)
        z = beta1 * z + (1 - beta1) * g - (d_t - beta1 * d) * weight;  d = d_t
        weight = -z / d_t
    """

    def __init__(self, beta1=0.6, beta2=0.999, epsilon=1e-8, **kwargs):
        super().__init__(**kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight), _zeros_like(weight))  # d, v, z

    _compiled = True

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t = self._index_update_count[index]
        from . import ndarray as nd
        nd.ftml_update(weight, grad, state[0], state[1], state[2], lr, t=t, beta1=self.beta1,
                       beta2=self.beta2, epsilon=self.epsilon, wd=wd,
                       rescale_grad=self.rescale_grad,
                       clip_grad=_kernel_clip(self.clip_gradient), out=weight)


@register
class SGLD(Optimizer):
    """Stochastic Gradient Langevin Dynamics (MXNet's Python rule):

        g = clip(rescale_grad * grad, clip_gradient)
        weight += -lr / 2 * (g + wd * weight) + normal(0, sqrt(lr))

    The noise comes from mx.random (mxc's generator: the same seed gives
    other numbers than MXNet's).
    """

    def create_state(self, index, weight):
        return None

    _compiled = True

    def update(self, index, weight, grad, state):
        from . import random as _random
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        # (drawn on the host by mx.random's generator, as for the rule below,
        # then on the weight's device)
        noise = _random.normal(0, math.sqrt(lr), shape=weight.shape, dtype=weight.dtype,
                               ctx=weight.context)
        if _pushed("sgld", weight, grad, [], -lr / 2,
                   dict(wd=wd, rescale_grad=self.rescale_grad,
                        clip_gradient=_clip_param(self.clip_gradient)), inputs=dict(noise=noise)):
            return
        w = _np(weight)
        t = w.dtype.type
        g = _clip(_grad(grad, w, self.rescale_grad), self.clip_gradient)
        w += t(-lr / 2) * (g + t(wd) * w)
        w += _np(noise)


@register
class DCASGD(Optimizer):
    """Delay-compensated asynchronous SGD (Zheng et al., 2016; MXNet's
    DCASGD): the gradient is corrected for the weight having moved since it
    was computed, with the previous weight kept in the state:

        g = clip(rescale_grad * grad, clip_gradient)
        step = -lr * (g + wd * w + lamda * g * g * (w - w_prev))
        mom = momentum * mom + step (or step without momentum)
        w_prev = w;  w += mom
    """

    def __init__(self, momentum=0.0, lamda=0.04, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.weight_previous = {}
        self.lamda = lamda

    def create_state(self, index, weight):
        from . import ndarray as nd
        mom = None if self.momentum == 0.0 else \
            nd._zeros_any(weight.shape, weight.context, dtype=weight.dtype)
        return (mom, weight.copy())

    _compiled = True

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        mom, previous = state
        if _pushed("dcasgd_mom" if mom is not None else "dcasgd", weight, grad, [mom, previous],
                   -lr, dict(rescale_grad=self.rescale_grad,
                             clip_gradient=_clip_param(self.clip_gradient), wd=wd,
                             lamda=self.lamda, momentum=self.momentum)):
            return
        w = _np(weight)
        t = w.dtype.type
        g = _clip(_grad(grad, w, self.rescale_grad), self.clip_gradient)
        prev = _np(previous)
        step = t(-lr) * (g + t(wd) * w + t(self.lamda) * g * g * (w - prev))
        if mom is not None:
            m = _np(mom)
            m *= t(self.momentum)
            m += step
            step = m
        prev[...] = w
        w += step


@register
class ccSGD(SGD):
    """MXNet's deprecated ccSGD: the same as SGD."""


@register
class GroupAdaGrad(Optimizer):
    """MXNet's contrib GroupAdaGrad (optimizer/contrib.py and the
    group_adagrad_update operator): AdaGrad with one history value per row
    of a 2-D weight,

        g = clip(rescale_grad * grad, clip_gradient)
        history += mean(g^2, axis=1, keepdims=True)
        weight -= lr * g / sqrt(history + eps)

    Weight decay is not supported (an error, as MXNet's assertion)."""

    def __init__(self, eps=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        from . import ndarray as nd
        if len(weight.shape) != 2:
            raise MXNetError("GroupAdaGrad: the weight must be 2-D, got shape %s"
                             % (weight.shape,))
        return nd.zeros((weight.shape[0], 1), weight.context, dtype=weight.dtype)

    _compiled = True

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        if wd != 0:
            raise MXNetError("GroupAdaGrad: weight decay is not supported (wd=%s)" % wd)
        if _pushed("group_adagrad", weight, grad, [state], lr,
                   dict(rescale_grad=self.rescale_grad,
                        clip_gradient=_clip_param(self.clip_gradient),
                        eps=self.float_stable_eps)):
            return
        w = _np(weight)
        t = w.dtype.type
        g = _clip(_grad(grad, w, self.rescale_grad), self.clip_gradient)
        history = _np(state)
        history += np.mean(np.square(g), axis=1, keepdims=True).astype(history.dtype)
        w -= t(lr) * g / np.sqrt(history + t(self.float_stable_eps))


class contrib:
    """mx.optimizer.contrib: MXNet's contributed optimizers."""
    GroupAdaGrad = GroupAdaGrad
