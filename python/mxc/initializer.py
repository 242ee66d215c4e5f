"""mx.init / mx.initializer: parameter initializers (MXNet 1.x).

An initializer is called as `init(desc, arr)` where `desc` is an InitDesc
(the parameter's name and its symbol attributes) and `arr` the NDArray to
fill. As in MXNet, the name picks the rule: a variable's `__init__` attribute
(e.g. BatchNorm's moving statistics, or Variable(init=...)) wins; otherwise
names ending in `weight` get the initializer's own distribution, `bias`,
`beta`, `moving_mean`, `moving_inv_var`, `moving_avg` and `min` zeros,
`gamma`, `moving_var` and `max` ones. Random numbers come from mx.random's
generator (mx.random.seed makes them reproducible).
"""
import json
import math
import re

import numpy as np

from .base import MXNetError
from .ndarray import NDArray, _store

_REGISTRY = {}


def register(klass):
    """Registers an Initializer subclass under its lower-case name (what
    dumps() writes and create() reads)."""
    _REGISTRY[klass.__name__.lower()] = klass
    return klass


def _rng():
    from . import random as _random
    return _random._generator


def _fill(arr, values):
    if not isinstance(arr, NDArray):
        raise MXNetError("initializer: expected an NDArray, got %s" % type(arr).__name__)
    _store(arr, np.asarray(values))  # (a GPU array's by a copy to the device)


class InitDesc(str):
    """A parameter's name with its attributes (`attrs`, the symbol's
    attributes of that variable) and the global initializer."""

    def __new__(cls, name, attrs=None, global_init=None):
        ret = super().__new__(cls, name)
        ret.attrs = attrs or {}
        ret.global_init = global_init
        return ret


class Initializer:
    """Base class: dispatches on the parameter's name as MXNet does."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._verbose = False
        self._print_func = None

    def set_verbosity(self, verbose=False, print_func=None):
        self._verbose = verbose
        self._print_func = print_func
        return self

    def dumps(self):
        """JSON as MXNet writes it into `__init__`: `["name", {kwargs}]`."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __eq__(self, other):
        # As MXNet: the same class with the same arguments.
        if not isinstance(other, Initializer):
            return NotImplemented
        return self.__class__ is other.__class__ and self._kwargs == other._kwargs

    __hash__ = object.__hash__

    def __repr__(self):
        return "%s(%s)" % (self.__class__.__name__,
                           ", ".join("%s=%r" % kv for kv in self._kwargs.items()))

    def __call__(self, desc, arr):
        if not isinstance(desc, InitDesc):
            desc = InitDesc(str(desc))
        if desc.global_init is None:
            desc.global_init = self
        init = desc.attrs.get("__init__", "")
        if init:
            create(init)._init_weight(desc, arr)
            return
        name = str(desc)
        if name.endswith("weight"):
            self._init_weight(desc, arr)
        elif name.endswith("bias"):
            self._init_bias(desc, arr)
        elif name.endswith("gamma"):
            self._init_gamma(desc, arr)
        elif name.endswith("beta"):
            self._init_beta(desc, arr)
        elif name.endswith("moving_mean") or name.endswith("moving_inv_var") or \
                name.endswith("moving_avg") or name.endswith("min"):
            self._init_zero(desc, arr)
        elif name.endswith("moving_var") or name.endswith("max"):
            self._init_one(desc, arr)
        else:
            self._init_default(desc, arr)

    def _init_zero(self, _, arr):
        _fill(arr, 0.0)

    def _init_one(self, _, arr):
        _fill(arr, 1.0)

    def _init_bias(self, _, arr):
        _fill(arr, 0.0)

    def _init_gamma(self, _, arr):
        _fill(arr, 1.0)

    def _init_beta(self, _, arr):
        _fill(arr, 0.0)

    def _init_weight(self, name, arr):
        raise NotImplementedError("Must override it")

    def _init_default(self, name, _):
        raise MXNetError(
            "Unknown initialization pattern for %s. Default initialization is now limited to "
            '"weight", "bias", "gamma" (1.0), and "beta" (0.0). Please use mx.sym.Variable('
            "init=mx.init.*) to set initialization pattern" % name)


@register
class Zero(Initializer):
    """Fills with 0."""

    def _init_weight(self, _, arr):
        _fill(arr, 0.0)


@register
class One(Initializer):
    """Fills with 1."""

    def _init_weight(self, _, arr):
        _fill(arr, 1.0)


@register
class Constant(Initializer):
    """Fills with `value` (a scalar or an array broadcast to the shape)."""

    def __init__(self, value):
        if isinstance(value, NDArray):
            value = value.asnumpy().tolist()
        elif isinstance(value, np.ndarray):
            value = value.tolist()
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, _, arr):
        _fill(arr, np.broadcast_to(np.asarray(self.value), arr.shape))


@register
class Uniform(Initializer):
    """Uniform on [-scale, scale]."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _, arr):
        _fill(arr, _rng().uniform(-self.scale, self.scale, arr.shape))


@register
class Normal(Initializer):
    """Normal with mean 0 and standard deviation `sigma`."""

    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, _, arr):
        _fill(arr, _rng().normal(0.0, self.sigma, arr.shape))


@register
class Xavier(Initializer):
    """Xavier/Glorot: scale = sqrt(magnitude / factor) with factor the
    average of fan-in and fan-out ('avg'), the fan-in ('in') or the fan-out
    ('out'); fans count the kernel's spatial size. rnd_type 'uniform' draws
    from [-scale, scale], 'gaussian' from N(0, scale)."""

    def __init__(self, rnd_type="uniform", factor_type="avg", magnitude=3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def _init_weight(self, name, arr):
        shape = arr.shape
        hw_scale = 1.0
        if len(shape) < 2:
            raise MXNetError("Xavier initializer cannot be applied to vector %s. It requires at "
                             "least 2D." % name)
        if len(shape) > 2:
            hw_scale = float(np.prod(shape[2:]))
        fan_in, fan_out = shape[1] * hw_scale, shape[0] * hw_scale
        if self.factor_type == "avg":
            factor = (fan_in + fan_out) / 2.0
        elif self.factor_type == "in":
            factor = fan_in
        elif self.factor_type == "out":
            factor = fan_out
        else:
            raise MXNetError("Incorrect factor type")
        scale = math.sqrt(self.magnitude / factor)
        if self.rnd_type == "uniform":
            _fill(arr, _rng().uniform(-scale, scale, shape))
        elif self.rnd_type == "gaussian":
            _fill(arr, _rng().normal(0.0, scale, shape))
        else:
            raise MXNetError("Unknown random type")


@register
class MSRAPrelu(Xavier):
    """He initialisation: Xavier gaussian with magnitude 2 / (1 + slope^2)."""

    def __init__(self, factor_type="avg", slope=0.25):
        magnitude = 2.0 / (1 + slope ** 2)
        super().__init__("gaussian", factor_type, magnitude)
        self._kwargs = {"factor_type": factor_type, "slope": slope}


@register
class Bilinear(Initializer):
    """Bilinear-upsampling weights for a 4-d (Deconvolution) kernel, MXNet
    1.9.1's formula: w[.., y, x] = (1 - |x / f - c|) * (1 - |y / f - c|),
    f = ceil(width / 2), c = (2f - 1 - f % 2) / (2f)."""

    def _init_weight(self, _, arr):
        shape = arr.shape
        f = np.ceil(shape[3] / 2.)
        c = (2 * f - 1 - f % 2) / (2. * f)
        x = np.arange(shape[3], dtype=np.float64)
        y = np.arange(shape[2], dtype=np.float64)
        plane = np.outer(1 - np.abs(y / f - c), 1 - np.abs(x / f - c)).astype(np.float32)
        _fill(arr, np.broadcast_to(plane, shape))


@register
class LSTMBias(Initializer):
    """Biases of an LSTM cell: 0, except forget_bias for the forget gate
    (the second of the four gates), as MXNet 1.9.1."""

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name, arr):
        num_hidden = int(arr.shape[0] / 4)
        values = np.zeros(arr.shape, dtype=np.float32)
        values[num_hidden:2 * num_hidden] = self.forget_bias
        _fill(arr, values)


@register
class FusedRNN(Initializer):
    """The parameter vector of a fused RNN (mx.rnn.FusedRNNCell): each
    weight and bias in it initialized by `init` (the global initializer when
    None), the LSTM forget gates' biases at forget_bias."""

    def __init__(self, init, num_hidden, num_layers, mode, bidirectional=False,
                 forget_bias=1.0):
        if isinstance(init, str):
            init = create(init)
        super().__init__(init=init.dumps() if init is not None else None,
                         num_hidden=num_hidden, num_layers=num_layers, mode=mode,
                         bidirectional=bidirectional, forget_bias=forget_bias)
        self._init = init
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._forget_bias = forget_bias

    def _init_weight(self, desc, arr):
        from .rnn import rnn_cell
        cell = rnn_cell.FusedRNNCell(self._num_hidden, self._num_layers, self._mode,
                                     self._bidirectional, forget_bias=self._forget_bias,
                                     prefix="")
        args = cell.unpack_weights({"parameters": arr})
        for name in args:
            arg_desc = InitDesc(name, global_init=getattr(desc, "global_init", None))
            if self._mode == "lstm" and name.endswith("_f_bias"):
                args[name][:] = self._forget_bias
            elif self._init is None:
                if arg_desc.global_init is None:
                    raise MXNetError("FusedRNN: no initializer for %s" % name)
                arg_desc.global_init(arg_desc, args[name])
            else:
                self._init(arg_desc, args[name])
        arr[:] = cell.pack_weights(args)["parameters"]


@register
class Mixed(Initializer):
    """The first initializer whose regular expression matches the name."""

    def __init__(self, patterns, initializers):
        super().__init__()
        if len(patterns) != len(initializers):
            raise MXNetError("Mixed: %d patterns for %d initializers"
                             % (len(patterns), len(initializers)))
        self.map = list(zip([re.compile(p) for p in patterns], initializers))

    def __call__(self, desc, arr):
        for prog, init in self.map:
            if prog.match(str(desc)):
                init(desc, arr)
                return
        raise MXNetError("Parameter name %s did not match any pattern. Consider adding a "
                         '".*" pattern at the end with a default Initializer.' % desc)


def create(init, **kwargs):
    """An initializer from an instance, a registered name ('xavier',
    'uniform', ...) or MXNet's JSON `["name", {kwargs}]`."""
    if isinstance(init, Initializer):
        return init
    if not isinstance(init, str):
        raise MXNetError("initializer: expected an Initializer or a name, got %r" % (init,))
    if init.startswith("["):
        name, kw = json.loads(init)
        kw.update(kwargs)
    else:
        name, kw = init, kwargs
    klass = _REGISTRY.get(name.lower())
    if klass is None:
        # MXNet writes "zero"/"one" for BatchNorm's statistics; "zeros"/"ones" too.
        klass = {"zeros": Zero, "ones": One}.get(name.lower())
    if klass is None:
        raise MXNetError("unknown initializer '%s' (known: %s)" % (name, ", ".join(sorted(_REGISTRY))))
    return klass(**kw)
