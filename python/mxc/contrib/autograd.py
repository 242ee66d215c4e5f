"""mx.contrib.autograd: MXNet 1.x's older autograd API (train_section,
compute_gradient, grad_and_loss, ...), on mx.autograd."""
import functools

from .. import autograd as _ag
from ..ndarray import NDArray, zeros_like

__all__ = ["set_is_training", "TrainingStateScope", "train_section", "test_section",
           "mark_variables", "backward", "compute_gradient", "grad_and_loss", "grad"]


def set_is_training(is_train):
    """Turns training mode and recording on or off together; returns the
    previous training mode."""
    prev = _ag.set_training(is_train)
    _ag.set_recording(is_train)
    return bool(prev)


class TrainingStateScope:
    """A with-scope in which set_is_training(enter_state) holds."""

    def __init__(self, enter_state):
        self._enter_state = enter_state
        self._prev = None

    def __enter__(self):
        self._prev = set_is_training(self._enter_state)

    def __exit__(self, ptype, value, trace):
        if self._prev != self._enter_state:
            set_is_training(self._prev)


def train_section():
    """Recording and training mode inside the scope."""
    return TrainingStateScope(True)


def test_section():
    """Neither recording nor training mode inside the scope."""
    return TrainingStateScope(False)


def mark_variables(variables, gradients, grad_reqs="write"):
    """Arrays whose gradients backward() writes into `gradients`."""
    _ag.mark_variables(variables, gradients, grad_reqs)


def backward(outputs, out_grads=None, retain_graph=False):
    """The gradients of `outputs` (a list) into the marked variables."""
    if not isinstance(outputs, (list, tuple)):
        raise AssertionError("outputs must be a list or tuple of NDArrays")
    if out_grads is not None and len(out_grads) != len(outputs):
        raise AssertionError("outputs and out_grads must have the same length")
    _ag.backward(list(outputs), None if out_grads is None else list(out_grads),
                 retain_graph=retain_graph)


def compute_gradient(outputs):
    """backward(outputs) (MXNet's deprecated name)."""
    backward(outputs)


def grad_and_loss(func, argnum=None):
    """A function returning (gradients of the arguments `argnum` (all by
    default), func's value)."""
    @functools.wraps(func)
    def wrapped(*args):
        variables = args
        if argnum is not None:
            nums = argnum if isinstance(argnum, list) else [argnum]
            variables = [args[i] for i in nums]
        for x in variables:
            if not isinstance(x, NDArray):
                raise AssertionError("type of autograd input should NDArray.")
        grads = [zeros_like(x) for x in variables]
        mark_variables(variables, grads)
        with train_section():
            outputs = func(*args)
        compute_gradient([outputs] if isinstance(outputs, NDArray) else outputs)
        return grads, outputs
    return wrapped


def grad(func, argnum=None):
    """A function returning the gradients of func's arguments `argnum`."""
    with_loss = grad_and_loss(func, argnum)

    @functools.wraps(with_loss)
    def wrapped(*args):
        return with_loss(*args)[0]
    return wrapped
