"""gluon.nn basic layers (MXNet 1.9.1's names, arguments and parameter names).

LayerNorm, InstanceNorm, GroupNorm and Embedding run MXNet's operators of
those names (the compiler decomposes the normalizations into mean /
broadcast operators, mx-decompose), so exports hold MXNet's nodes.
"""
import numpy as np

from ...base import MXNetError
from ..block import Block, HybridBlock, _flatten
from ..utils import _indent


class Sequential(Block):
    """Blocks run one after the other (imperatively)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def add(self, *blocks):
        for block in blocks:
            self.register_child(block)

    def forward(self, x):
        for block in self._children.values():
            x = block(x)
        return x

    def __repr__(self):
        s = "{name}(\n{modstr}\n)"
        modstr = "\n".join(["  ({key}): {block}".format(key=key, block=_indent(repr(block), 2))
                            for key, block in self._children.items()])
        return s.format(name=self.__class__.__name__, modstr=modstr)

    def __getitem__(self, key):
        layers = list(self._children.values())[key]
        if isinstance(layers, list):
            net = type(self)(prefix=self._prefix)
            with net.name_scope():
                net.add(*layers)
            return net
        return layers

    def __len__(self):
        return len(self._children)

    def hybridize(self, active=True, **kwargs):
        if self._children and all(isinstance(c, HybridBlock) for c in self._children.values()):
            import warnings
            warnings.warn("All children of this Sequential layer '%s' are HybridBlocks. Consider "
                          "using HybridSequential for the best performance." % self.prefix,
                          stacklevel=2)
        super().hybridize(active, **kwargs)


class HybridSequential(HybridBlock):
    """HybridBlocks run one after the other (one graph when hybridized)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def add(self, *blocks):
        for block in blocks:
            self.register_child(block)

    def hybrid_forward(self, F, x):
        for block in self._children.values():
            x = block(x)
        return x

    __repr__ = Sequential.__repr__
    __getitem__ = Sequential.__getitem__
    __len__ = Sequential.__len__


class Dense(HybridBlock):
    """Fully connected layer: activation(dot(x, weight.T) + bias); weight
    (units, in_units), bias (units,). in_units=0: inferred at first use."""

    def __init__(self, units, activation=None, use_bias=True, flatten=True,
                 dtype="float32", weight_initializer=None, bias_initializer="zeros",
                 in_units=0, **kwargs):
        super().__init__(**kwargs)
        self._flatten = flatten
        with self.name_scope():
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get("weight", shape=(units, in_units),
                                          init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get("bias", shape=(units,), init=bias_initializer,
                                            dtype=dtype, allow_deferred_init=True)
            else:
                self.bias = None
            if activation is not None:
                self.act = Activation(activation, prefix=activation + "_")
            else:
                self.act = None

    def hybrid_forward(self, F, x, weight, bias=None):
        if bias is None:
            act = F.FullyConnected(x, weight, no_bias=True, num_hidden=self._units,
                                   flatten=self._flatten, name="fwd")
        else:
            act = F.FullyConnected(x, weight, bias, no_bias=False, num_hidden=self._units,
                                   flatten=self._flatten, name="fwd")
        if self.act is not None:
            act = self.act(act)
        return act

    def __repr__(self):
        s = "{name}({layout}, {act})"
        shape = self.weight.shape
        return s.format(name=self.__class__.__name__,
                        act=self.act if self.act else "linear",
                        layout="{0} -> {1}".format(shape[1] if shape[1] else None, shape[0]))


class Activation(HybridBlock):
    """An activation function: 'relu', 'sigmoid', 'tanh', 'softrelu', 'softsign'."""

    def __init__(self, activation, **kwargs):
        self._act_type = activation
        super().__init__(**kwargs)

    def _alias(self):
        return self._act_type

    def hybrid_forward(self, F, x):
        return F.Activation(x, act_type=self._act_type, name="fwd")

    def __repr__(self):
        return "{name}({_act_type})".format(name=self.__class__.__name__, **self.__dict__)


class Dropout(HybridBlock):
    """Drops elements with probability `rate` in training (autograd.record /
    train_mode); the identity otherwise."""

    def __init__(self, rate, axes=(), **kwargs):
        super().__init__(**kwargs)
        self._rate = rate
        self._axes = axes

    def hybrid_forward(self, F, x):
        if self._rate > 0:
            return F.Dropout(x, p=self._rate, axes=self._axes, name="fwd", cudnn_off=False)
        return F.identity(x)

    def __repr__(self):
        return "{name}(p = {_rate}, axes={_axes})".format(name=self.__class__.__name__,
                                                          **self.__dict__)


class BatchNorm(HybridBlock):
    """Batch normalisation; parameters gamma, beta, running_mean, running_var."""

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True,
                 use_global_stats=False, beta_initializer="zeros", gamma_initializer="ones",
                 running_mean_initializer="zeros", running_variance_initializer="ones",
                 in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"axis": axis, "eps": epsilon, "momentum": momentum,
                        "fix_gamma": not scale, "use_global_stats": use_global_stats}
        self._axis = axis
        if in_channels != 0:
            self.in_channels = in_channels
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null",
                                     shape=(in_channels,), init=gamma_initializer,
                                     allow_deferred_init=True, differentiable=scale)
        self.beta = self.params.get("beta", grad_req="write" if center else "null",
                                    shape=(in_channels,), init=beta_initializer,
                                    allow_deferred_init=True, differentiable=center)
        self.running_mean = self.params.get("running_mean", grad_req="null",
                                            shape=(in_channels,),
                                            init=running_mean_initializer,
                                            allow_deferred_init=True, differentiable=False)
        self.running_var = self.params.get("running_var", grad_req="null",
                                           shape=(in_channels,),
                                           init=running_variance_initializer,
                                           allow_deferred_init=True, differentiable=False)

    def cast(self, dtype):
        if np.dtype(dtype).name == "float16":
            dtype = "float32"
        super().cast(dtype)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.BatchNorm(x, gamma, beta, running_mean, running_var, name="fwd", **self._kwargs)

    def __repr__(self):
        s = "{name}({content}"
        in_channels = self.gamma.shape[0]
        s += ", in_channels={0}".format(in_channels if in_channels else None)
        s += ")"
        return s.format(name=self.__class__.__name__,
                        content=", ".join(["=".join([k, v.__repr__()])
                                           for k, v in self._kwargs.items()]))


class Embedding(HybridBlock):
    """Turns indices into dense vectors: weight (input_dim, output_dim), the
    Embedding operator (a gather of weight rows; out-of-range indices are
    clipped, as MXNet's)."""

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None,
                 sparse_grad=False, **kwargs):
        super().__init__(**kwargs)
        if sparse_grad:
            raise MXNetError("Embedding: sparse_grad=True (row_sparse gradients) is not "
                             "supported by mxc")
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim,
                        "dtype": dtype, "sparse_grad": sparse_grad}
        self.weight = self.params.get("weight", shape=(input_dim, output_dim),
                                      init=weight_initializer, dtype=dtype,
                                      allow_deferred_init=True)

    def hybrid_forward(self, F, x, weight):
        return F.Embedding(x, weight, input_dim=self._kwargs["input_dim"],
                           output_dim=self._kwargs["output_dim"], dtype=self._kwargs["dtype"],
                           name="fwd")

    def __repr__(self):
        s = "{block_name}({input_dim} -> {output_dim}, {dtype})"
        return s.format(block_name=self.__class__.__name__, **self._kwargs)


class Flatten(HybridBlock):
    """Flattens to (batch, -1)."""

    def hybrid_forward(self, F, x):
        return F.Flatten(x)

    def __repr__(self):
        return self.__class__.__name__


class _Norm(HybridBlock):
    def _param_shape(self, x_shape):
        raise NotImplementedError

    def _deferred_infer_shape(self, x, *args):
        c = x.shape[self._axis]
        for p in (self.gamma, self.beta):
            p.shape = (c,)


class LayerNorm(_Norm):
    """Layer normalisation over `axis` (default the last); gamma, beta of
    the axis' size (MXNet's LayerNorm operator)."""

    def __init__(self, axis=-1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", in_channels=0,
                 prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._kwargs = {"eps": epsilon, "axis": axis, "center": center, "scale": scale}
        self._axis, self._epsilon, self._center, self._scale = axis, epsilon, center, scale
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null",
                                     shape=(in_channels,), init=gamma_initializer,
                                     allow_deferred_init=True)
        self.beta = self.params.get("beta", grad_req="write" if center else "null",
                                    shape=(in_channels,), init=beta_initializer,
                                    allow_deferred_init=True)

    def hybrid_forward(self, F, data, gamma, beta):
        # MXNet's LayerNorm operator (gamma and beta applied whatever center /
        # scale say: they stay ones / zeros with grad_req null)
        return F.LayerNorm(data, gamma=gamma, beta=beta, axis=self._axis, eps=self._epsilon)

    def __repr__(self):
        s = "{name}({content}"
        in_channels = self.gamma.shape[0]
        s += ", in_channels={0}".format(in_channels)
        s += ")"
        return s.format(name=self.__class__.__name__,
                        content=", ".join(["=".join([k, v.__repr__()])
                                           for k, v in self._kwargs.items()]))


class InstanceNorm(_Norm):
    """Instance normalisation: per sample and channel (`axis`), over the
    other axes; gamma, beta of the channel count."""

    def __init__(self, axis=1, epsilon=1e-5, center=True, scale=False,
                 beta_initializer="zeros", gamma_initializer="ones", in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"eps": epsilon, "axis": axis, "center": center, "scale": scale}
        self._axis, self._epsilon, self._center, self._scale = axis, epsilon, center, scale
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null",
                                     shape=(in_channels,), init=gamma_initializer,
                                     allow_deferred_init=True)
        self.beta = self.params.get("beta", grad_req="write" if center else "null",
                                    shape=(in_channels,), init=beta_initializer,
                                    allow_deferred_init=True)

    def hybrid_forward(self, F, x, gamma, beta):
        # MXNet's InstanceNorm operator on channel axis 1 (another axis is
        # swapped there and back, as MXNet's Gluon layer does); gamma is
        # applied whatever `scale` says.
        if self._axis == 1:
            return F.InstanceNorm(x, gamma, beta, name="fwd", eps=self._epsilon)
        x = x.swapaxes(1, self._axis)
        return F.InstanceNorm(x, gamma, beta, name="fwd",
                              eps=self._epsilon).swapaxes(1, self._axis)

    __repr__ = LayerNorm.__repr__


class GroupNorm(HybridBlock):
    """Group normalisation (MXNet 1.9.1): the channels in num_groups groups,
    each normalised over its channels and positions; gamma, beta of shape
    (num_groups,), one per group (MXNet's GroupNorm operator)."""

    def __init__(self, num_groups=1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._kwargs = {"eps": epsilon, "num_groups": num_groups, "center": center,
                        "scale": scale}
        self._num_groups = num_groups
        self._epsilon = epsilon
        self._center = center
        self._scale = scale
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null",
                                     shape=(num_groups,), init=gamma_initializer,
                                     allow_deferred_init=True)
        self.beta = self.params.get("beta", grad_req="write" if center else "null",
                                    shape=(num_groups,), init=beta_initializer,
                                    allow_deferred_init=True)

    def hybrid_forward(self, F, data, gamma, beta):
        return F.GroupNorm(data, gamma=gamma, beta=beta, num_groups=self._num_groups,
                           eps=self._epsilon)

    def __repr__(self):
        s = "{name}({content})"
        return s.format(name=self.__class__.__name__,
                        content=", ".join(["=".join([k, v.__repr__()])
                                           for k, v in self._kwargs.items()]))


class Lambda(Block):
    """A Block from a function of NDArrays, or the name of an mx.nd operator."""

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        from ... import ndarray as nd
        if isinstance(function, str):
            if not hasattr(nd, function):
                raise MXNetError("Function name %s is not found in ndarray." % function)
            self._func_impl = getattr(nd, function)
        elif callable(function):
            self._func_impl = function
        else:
            raise MXNetError("Unrecognized function in lambda: {} of type {}".format(
                function, type(function)))

    def forward(self, *args):
        return self._func_impl(*args)

    def __repr__(self):
        return "{name}({function})".format(name=self.__class__.__name__,
                                           function=self._func_impl.__name__)


class HybridLambda(HybridBlock):
    """A HybridBlock from a function (F, x, ...) or the name of an operator
    that both mx.nd and mx.sym have."""

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        from ... import ndarray as nd, symbol as sym
        if isinstance(function, str):
            if not (hasattr(nd, function) and hasattr(sym, function)):
                raise MXNetError("Function name %s is not found in symbol/ndarray." % function)
            func_dict = {sym: getattr(sym, function), nd: getattr(nd, function)}
            self._func = lambda F, *args: func_dict[F](*args)
            self._func_name = function
        elif callable(function):
            self._func = function
            self._func_name = function.__name__
        else:
            raise MXNetError("Unrecognized function in lambda: {} of type {}".format(
                function, type(function)))

    def hybrid_forward(self, F, x, *args):
        return self._func(F, x, *args)

    def __repr__(self):
        return "{name}({function})".format(name=self.__class__.__name__,
                                           function=self._func_name)


class Identity(HybridBlock):
    """Returns its input (MXNet's contrib Identity)."""

    def hybrid_forward(self, F, x):
        return x


class Concatenate(Sequential):
    """Runs every child on the input and concatenates along `axis`."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        from ... import ndarray as nd
        return nd.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class HybridConcatenate(HybridSequential):
    """Runs every child on the input and concatenates along `axis`."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        return F.concat(*[block(x) for block in self._children.values()], dim=self.axis)
