"""gluon.Parameter, Constant and ParameterDict (MXNet 1.9.1's names and rules).

A Parameter holds one NDArray per context (and one gradient per context
unless grad_req is 'null'). A shape with unknown dimensions (0 or None) is
filled in at the first forward (deferred initialisation): initialize() then
only records the initializer, and data() raises DeferredInitializationError
until the block has seen its input.
"""
import re
import warnings
from collections import OrderedDict

import numpy as np

from ..base import MXNetError, dtype_name
from .. import initializer as _init
from .. import ndarray as nd
from .. import util
from ..context import Context, check_context, cpu, current_context
from ..ndarray import NDArray


class DeferredInitializationError(MXNetError):
    """A parameter's data was asked for before its shape was known."""


def _shape_known(shape):
    return shape is not None and all(d is not None and d > 0 for d in shape)


def _unknown(d):
    """An unknown dimension: 0 (MXNet's legacy spelling), -1 (NumPy shape
    semantics) or None."""
    return d is None or d <= 0


def _any_ctx_list(ctx):
    if ctx is None:
        return [current_context()]
    if isinstance(ctx, Context):
        return [ctx]
    if isinstance(ctx, str):
        return [Context(ctx)]
    ctx = list(ctx)
    if not ctx or not all(isinstance(c, Context) for c in ctx):
        raise MXNetError("ctx: expected a Context or a non-empty list of Contexts, got %r" % (ctx,))
    return ctx


def _ctx_list(ctx):
    """The contexts of `ctx` (GPUs checked to exist: a copy of the
    parameter on each; the Trainer's store sums their gradients)."""
    ctx = _any_ctx_list(ctx)
    for c in ctx:
        if c.device_type == "gpu":
            check_context(c, True)
    return ctx


class Parameter:
    """A weight of a Block (MXNet's gluon.Parameter)."""

    def __init__(self, name, grad_req="write", shape=None, dtype=np.float32,
                 lr_mult=1.0, wd_mult=1.0, init=None, allow_deferred_init=False,
                 differentiable=True, stype="default", grad_stype="default"):
        self._var = None
        self._data = None
        self._grad = None
        self._trainer = None  # weakref of the Trainer that updates it
        self._ctx_list = None
        self._ctx_map = None
        self._deferred_init = ()
        self._differentiable = differentiable
        self._allow_deferred_init = allow_deferred_init
        self._grad_req = None
        if isinstance(shape, int):
            shape = (shape,)
        self._shape = None if shape is None else tuple(shape)
        self.name = name
        self._dtype = np.dtype(dtype_name(dtype)).type
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.grad_req = grad_req
        self.init = init
        for what, st in (("stype", stype), ("grad_stype", grad_stype)):
            if st != "default":
                raise MXNetError("Parameter '%s': %s '%s': sparse storage is not supported "
                                 "by mxc" % (name, what, st))
        self._stype = stype
        self._grad_stype = grad_stype

    def __repr__(self):
        return "Parameter %s (shape=%s, dtype=%s)" % (self.name, self.shape, np.dtype(self.dtype).name)

    # -- properties -----------------------------------------------------------------
    @property
    def grad_req(self):
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req):
        if req not in ("write", "add", "null"):
            raise MXNetError("Parameter '%s': grad_req must be one of 'write', 'add', or "
                             "'null', but got '%s'" % (self.name, req))
        if not self._differentiable:
            req = "null"
        if self._grad_req == req:
            return
        self._grad_req = req
        if req == "null" and self._grad is not None:
            self._grad = None
            if self._data is not None:
                for d in self._data:
                    d._grad, d._grad_req = None, "null"
        elif self._data is not None:
            self._init_grad()

    @property
    def dtype(self):
        return self._dtype

    @dtype.setter
    def dtype(self, dtype):
        self.cast(dtype)

    @property
    def shape(self):
        """The shape; an unknown dimension is 0, or -1 with NumPy shape
        semantics on (mx.np_shape)."""
        if self._shape is None or not util.is_np_shape():
            return self._shape
        return tuple(-1 if d == 0 else d for d in self._shape)

    @shape.setter
    def shape(self, new_shape):
        new_shape = None if new_shape is None else tuple(new_shape)
        if self._shape is None or new_shape is None:
            self._shape = new_shape
            return
        if len(self._shape) != len(new_shape) or not all(
                _unknown(i) or i == j for i, j in zip(self._shape, new_shape)):
            raise MXNetError("Expected shape %s is incompatible with given shape %s for "
                             "Parameter '%s'." % (new_shape, self._shape, self.name))
        self._shape = new_shape

    @property
    def stype(self):
        return self._stype

    # -- initialisation ---------------------------------------------------------------
    def initialize(self, init=None, ctx=None, default_init=_init.Uniform(), force_reinit=False):
        """Creates the data (and gradient) arrays on `ctx`, filled by `init`
        (else the parameter's own init, else default_init). An unknown shape
        defers this to the first forward when allow_deferred_init."""
        if self._data is not None and not force_reinit:
            warnings.warn("Parameter '%s' is already initialized, ignoring. Set "
                          "force_reinit=True to re-initialize." % self.name, stacklevel=2)
            return
        self._data = self._grad = None
        ctx = _ctx_list(ctx)
        if init is None:
            init = default_init if self.init is None else self.init
        if not _shape_known(self.shape):
            if self._allow_deferred_init:
                self._deferred_init = (init, ctx, default_init, None)
                return
            raise MXNetError("Cannot initialize Parameter '%s' because it has invalid shape: "
                             "%s." % (self.name, self.shape))
        self._deferred_init = (init, ctx, default_init, None)
        self._finish_deferred_init()

    def _finish_deferred_init(self):
        if not self._deferred_init:
            return
        init, ctx, default_init, data = self._deferred_init
        self._deferred_init = ()
        if not _shape_known(self.shape):
            raise MXNetError("Cannot initialize Parameter '%s' because it has invalid shape: "
                             "%s. Please specify in_units, in_channels, etc for `Block`s."
                             % (self.name, self.shape))
        if data is None:
            data = nd._zeros_any(self.shape, dtype=self.dtype)
            _init.create(default_init)(_init.InitDesc(self.name, {"__init__": init}), data)
        self._init_impl(data, ctx)

    def _init_impl(self, data, ctx_list):
        self._ctx_list = list(ctx_list)
        self._ctx_map = {c: i for i, c in enumerate(self._ctx_list)}
        src = data.asnumpy() if isinstance(data, NDArray) else np.asarray(data)
        self._data = [nd.array(src, ctx=c, dtype=self.dtype) for c in self._ctx_list]
        self._init_grad()

    def _init_grad(self):
        if self.grad_req == "null":
            self._grad = None
            return
        self._grad = [nd._zeros_any(d.shape, ctx=d.context, dtype=d.dtype) for d in self._data]
        for d, g in zip(self._data, self._grad):
            d._grad, d._grad_req, d._ag = g, self.grad_req, None

    def _check_and_get(self, arr_list, ctx):
        if arr_list is not None:
            if ctx is list:
                return arr_list
            if ctx is None:
                if len(arr_list) == 1:
                    return arr_list[0]
                ctx = current_context()
            idx = self._ctx_map.get(ctx) if self._ctx_map else None
            if idx is not None:
                return arr_list[idx]
            raise MXNetError("Parameter '%s' was not initialized on context %s. It was only "
                             "initialized on %s." % (self.name, ctx, self._ctx_list))
        if self._deferred_init:
            raise DeferredInitializationError(
                "Parameter '%s' has not been initialized yet because initialization was "
                "deferred. Actual initialization happens during the first forward pass. "
                "Please pass one batch of data through the network before accessing "
                "Parameters." % self.name)
        raise MXNetError("Parameter '%s' has not been initialized. Note that you should "
                         "initialize parameters and create Trainer with Block.collect_params() "
                         "instead of Block.params because the later does not include "
                         "Parameters of nested child Blocks" % self.name)

    def data(self, ctx=None):
        """The parameter's array on `ctx` (the only one when ctx is None)."""
        return self._check_and_get(self._data, ctx)

    def list_data(self):
        return self._check_and_get(self._data, list)

    def grad(self, ctx=None):
        if self._data is not None and self._grad is None:
            raise MXNetError("Cannot get gradient array for Parameter '%s' because "
                             "grad_req='null'" % self.name)
        return self._check_and_get(self._grad, ctx)

    def list_grad(self):
        if self._data is not None and self._grad is None:
            raise MXNetError("Cannot get gradient array for Parameter '%s' because "
                             "grad_req='null'" % self.name)
        return self._check_and_get(self._grad, list)

    def list_ctx(self):
        if self._data is None:
            if self._deferred_init:
                return self._deferred_init[1]
            raise MXNetError("Parameter '%s' has not been initialized" % self.name)
        return list(self._ctx_list)

    def zero_grad(self):
        if self._grad is None:
            return
        for g in self._grad:
            g[:] = 0

    def set_data(self, data):
        """Replaces the values (on every context); before deferred
        initialisation, the values become the initial data."""
        src = data.asnumpy() if isinstance(data, NDArray) else np.asarray(data)
        self.shape = src.shape
        if self._data is None:
            if self._deferred_init:
                self._deferred_init = self._deferred_init[:3] + (src,)
                return
            raise MXNetError("Parameter '%s' has not been initialized" % self.name)
        # a store that updates the weights holds a copy of them: new values
        # make the trainer set up its store again (MXNet's _reset_kvstore)
        trainer = self._trainer() if self._trainer is not None else None
        if trainer is not None and trainer._kv_initialized and trainer._update_on_kvstore:
            trainer._reset_kvstore()
        for d in self._data:
            if d.shape != src.shape:
                raise MXNetError("Parameter '%s': set_data with shape %s, the parameter has %s"
                                 % (self.name, src.shape, d.shape))
            d[:] = src.astype(d.dtype, copy=False)

    def _set_trainer(self, trainer):
        import weakref
        self._trainer = weakref.ref(trainer) if trainer is not None else None

    def reset_ctx(self, ctx):
        ctx = _ctx_list(ctx)
        if self._data is not None:
            self._init_impl(self._data[0].asnumpy(), ctx)
        elif self._deferred_init:
            init, _, default_init, data = self._deferred_init
            self._deferred_init = (init, ctx, default_init, data)
        else:
            raise MXNetError("Cannot reset context for Parameter '%s' because it has not "
                             "been initialized." % self.name)

    def _load_init(self, data, ctx, cast_dtype=False, dtype_source="current"):
        src = data.asnumpy() if isinstance(data, NDArray) else np.asarray(data)
        if cast_dtype:
            if dtype_source == "saved":
                self._dtype = src.dtype.type
            src = src.astype(self.dtype)
        elif np.dtype(self.dtype) != src.dtype:
            raise MXNetError("Failed loading Parameter '%s' from saved params: dtype "
                             "incompatible expected %s vs saved %s. Set cast_dtype=True to "
                             "cast the dtype of saved params."
                             % (self.name, np.dtype(self.dtype).name, src.dtype.name))
        if self.shape:
            if len(self.shape) != src.ndim or not all(
                    _unknown(s) or s == d for s, d in zip(self.shape, src.shape)):
                raise MXNetError("Failed loading Parameter '%s' from saved params: shape "
                                 "incompatible expected %s vs saved %s"
                                 % (self.name, self.shape, src.shape))
        self._shape = tuple(src.shape)
        if self._data is None:
            if self._deferred_init:
                ctx = self._deferred_init[1] if ctx is None else _ctx_list(ctx)
            self._deferred_init = ()
            self._init_impl(src, _ctx_list(ctx))
        else:
            self.set_data(src)

    def _reduce(self):
        """The mean of the parameter's copies (what save_parameters writes)."""
        data = self.list_data()
        if len(data) == 1:
            return NDArray(data[0].asnumpy())
        return NDArray(np.mean([d.asnumpy() for d in data], axis=0).astype(data[0].dtype))

    def var(self):
        """The Symbol variable of this parameter."""
        from .. import symbol
        if self._var is None:
            shape = None if self._shape is None else tuple(
                0 if d is not None and d < 0 else d for d in self._shape)
            self._var = symbol.Variable(self.name, shape=shape, dtype=self.dtype,
                                        lr_mult=self.lr_mult, wd_mult=self.wd_mult,
                                        init=self.init if isinstance(self.init, str) or
                                        self.init is None else self.init.dumps(),
                                        __storage_type__=0)
        return self._var

    def cast(self, dtype):
        """Converts the data and gradient to `dtype`."""
        self._dtype = np.dtype(dtype_name(dtype)).type
        self._var = None
        if self._data is None:
            return
        self._data = [nd.array(d.asnumpy(), ctx=d.context, dtype=self._dtype) for d in self._data]
        self._init_grad()


class Constant(Parameter):
    """A Parameter that is not learned (grad_req 'null'), initialised to `value`."""

    def __init__(self, name, value):
        if not isinstance(value, NDArray):
            value = nd.array(value)
        self.value = value

        class _Init(_init.Initializer):
            def _init_weight(self, _, arr):
                arr[:] = value.asnumpy().astype(arr.dtype)

            def dumps(self):
                return _init.Constant(value.asnumpy().tolist()).dumps()
        super().__init__(name, grad_req="null", shape=value.shape, dtype=value.dtype,
                         init=_Init())

    def __repr__(self):
        return "Constant %s (shape=%s, dtype=%s)" % (self.name, self.shape, np.dtype(self.dtype).name)

    @property
    def grad_req(self):
        return "null"

    @grad_req.setter
    def grad_req(self, req):
        if req != "null":
            warnings.warn("Constant parameter '%s' does not support grad_req other than "
                          "'null', and new value '%s' is ignored." % (self.name, req))
        self._grad_req = "null"


class ParameterDict:
    """Parameters by full name, with a shared prefix (MXNet's ParameterDict)."""

    def __init__(self, prefix="", shared=None):
        self._prefix = prefix
        self._params = OrderedDict()
        self._shared = shared

    def __repr__(self):
        body = "\n".join("  " + repr(v) for v in self.values())
        return "%s(\n%s\n)" % ((self._prefix + " ") if self._prefix else "", body)

    def __getitem__(self, key):
        return self._params[key]

    def __iter__(self):
        return iter(self._params)

    def __len__(self):
        return len(self._params)

    def __contains__(self, key):
        return key in self._params

    def items(self):
        return self._params.items()

    def keys(self):
        return self._params.keys()

    def values(self):
        return self._params.values()

    @property
    def prefix(self):
        return self._prefix

    def _get_impl(self, name):
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._shared._params[name]
        return None

    def get(self, name, **kwargs):
        """The parameter prefix+name, created with kwargs if absent; an
        existing one must agree with the keyword values given."""
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            param = Parameter(name, **kwargs)
            self._params[name] = param
            return param
        for k, v in kwargs.items():
            if not hasattr(param, k) or getattr(param, k) is None:
                setattr(param, k, v)
                continue
            existing = getattr(param, k)
            if k == "shape" and v is not None:
                v = (v,) if isinstance(v, int) else tuple(v)
                if len(v) == len(existing) and all(
                        a in (0, None) or b in (0, None) or a == b for a, b in zip(v, existing)):
                    param.shape = tuple(a if _unknown(b) else b for a, b in zip(existing, v))
                    continue
            elif k == "dtype":
                if np.dtype(v) == np.dtype(existing):
                    continue
            elif k == "init" or existing == v:
                continue
            raise MXNetError("Cannot retrieve Parameter '%s' because desired attribute does "
                             "not match with stored for attribute '%s': desired '%s' vs "
                             "stored '%s'." % (name, k, v, existing))
        return param

    def get_constant(self, name, value=None):
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            if value is None:
                raise MXNetError("No constant named '%s'. Please specify value if you want "
                                 "to create a new constant." % name)
            param = Constant(name, value)
            self._params[name] = param
        elif value is not None:
            if not isinstance(param, Constant):
                raise MXNetError("Parameter '%s' already exists but it is not a constant." % name)
        return param

    def update(self, other):
        for k, v in other.items():
            if k in self._params and self._params[k] is not v:
                raise MXNetError("Cannot update self with other because they have different "
                                 "Parameters with the same name '%s'" % k)
        for k, v in other.items():
            self._params[k] = v

    def initialize(self, init=_init.Uniform(), ctx=None, verbose=False, force_reinit=False):
        if verbose:
            init.set_verbosity(verbose=verbose)
        for v in self.values():
            v.initialize(None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self):
        for v in self.values():
            v.zero_grad()

    def reset_ctx(self, ctx):
        for v in self.values():
            v.reset_ctx(ctx)

    def list_ctx(self):
        s = []
        for v in self.values():
            for c in v.list_ctx():
                if c not in s:
                    s.append(c)
        return s

    def setattr(self, name, value):
        for v in self.values():
            setattr(v, name, value)

    def select(self, select):
        """The parameters whose names match the regular expression."""
        pattern = re.compile(select)
        ret = ParameterDict(self.prefix)
        ret._params.update((k, v) for k, v in self.items() if pattern.match(k))
        return ret

    def save(self, filename, strip_prefix=""):
        arg_dict = {}
        for param in self.values():
            weight = param._reduce()
            if not param.name.startswith(strip_prefix):
                raise MXNetError("Prefix '%s' is to be striped before saving, but Parameter's "
                                 "name '%s' does not start with '%s'."
                                 % (strip_prefix, param.name, strip_prefix))
            arg_dict[param.name[len(strip_prefix):]] = weight
        nd.save(filename, arg_dict)

    def load(self, filename, ctx=None, allow_missing=False, ignore_extra=False,
             restore_prefix="", cast_dtype=False, dtype_source="current"):
        if restore_prefix:
            for name in self.keys():
                if not name.startswith(restore_prefix):
                    raise MXNetError("restore_prefix is '%s' but Parameter's name '%s' does "
                                     "not start with it" % (restore_prefix, name))
        ndarray_load = nd.load(filename)
        if not isinstance(ndarray_load, dict):
            raise MXNetError("%s: the file has no parameter names" % filename)
        arg_dict = {restore_prefix + (k[4:] if k.startswith(("arg:", "aux:")) else k): v
                    for k, v in ndarray_load.items()}
        if not allow_missing:
            for name in self.keys():
                if name not in arg_dict:
                    raise MXNetError("Parameter '%s' is missing in file '%s'"
                                     % (name[len(restore_prefix):], filename))
        for name, v in arg_dict.items():
            if name not in self._params:
                if not ignore_extra:
                    raise MXNetError("Parameter '%s' loaded from file '%s' is not present in "
                                     "ParameterDict" % (name[len(restore_prefix):], filename))
                continue
            self[name]._load_init(v, ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)
