"""The optimizers SVRGModule trains with (MXNet 1.9.1's
mx.contrib.svrg_optimization.svrg_optimizer).

_SVRGOptimizer holds two optimizers and picks one per parameter name: keys
named '<param>_full' (where SVRGModule keeps the full-data gradient in the
KVStore) are assigned (_AssignmentOptimizer: weight := grad); every other
parameter is updated by the optimizer the user asked for."""
from ... import optimizer as _opt
from ...base import MXNetError


@_opt.register
class _AssignmentOptimizer(_opt.Optimizer):
    """weight := grad: how a '<param>_full' key receives the full gradient."""

    def update(self, index, weight, grad, state):
        weight[:] = grad


# The keyword arguments of Optimizer itself: passed to the wrapper as well as
# to the optimizer it wraps; the rest only to the wrapped optimizer.
_BASE_PARAMS = ("rescale_grad", "param_idx2name", "wd", "clip_gradient", "learning_rate",
                "lr_scheduler", "sym", "begin_num_update", "multi_precision", "param_dict")


@_opt.register
class _SVRGOptimizer(_opt.Optimizer):
    """`default_optimizer` (a name or an Optimizer) for the parameters,
    _AssignmentOptimizer for their '_full' keys."""

    def __init__(self, default_optimizer, **kwargs):
        super().__init__(**{k: v for k, v in kwargs.items() if k in _BASE_PARAMS})
        if isinstance(default_optimizer, str):
            self.default_opt = _opt.create(default_optimizer, **kwargs)
        elif isinstance(default_optimizer, _opt.Optimizer):
            self.default_opt = default_optimizer
        else:
            raise MXNetError("_SVRGOptimizer: default_optimizer must be an optimizer name or "
                             "an Optimizer, got %s" % type(default_optimizer).__name__)
        self.aux_opt = _opt.create(_AssignmentOptimizer.__name__)

    def _name(self, index):
        """The parameter name of an index (or of a KVStore key, which may
        already be the name)."""
        if index in self.idx2name.values():
            return index
        if index not in self.idx2name:
            raise MXNetError("_SVRGOptimizer: no parameter name for index %r (param_idx2name "
                             "has %s)" % (index, sorted(self.idx2name)))
        return self.idx2name[index]

    def _pick(self, index):
        return self.aux_opt if str(self._name(index)).endswith("_full") else self.default_opt

    def update(self, index, weight, grad, state):
        self._pick(index).update(index, weight, grad, state)

    def create_state(self, index, weight):
        return self._pick(index).create_state(index, weight)
