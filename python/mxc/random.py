"""mx.random / mx.nd.random: seeded random arrays.

Numbers come from numpy's PCG64 generator seeded by mx.random.seed(s): the
same seed gives the same sequence in mxc, but not MXNet's numbers.
"""
import numpy as np

from .base import MXNetError, dtype_name, np_dtype
from .ndarray import NDArray, _new

_generator = np.random.Generator(np.random.PCG64(0))


def seed(seed_state, ctx="all"):
    """Seeds the generator of every context (mxc has one)."""
    global _generator
    if not isinstance(seed_state, (int, np.integer)):
        raise MXNetError("seed: expected an integer, got %r" % (seed_state,))
    # MXNet takes any int (a negative one too): its 64-bit two's complement here
    _generator = np.random.Generator(np.random.PCG64(int(seed_state) % (1 << 64)))
    from . import autograd
    autograd._st().seed = None  # recorded Dropout masks follow the new seed


def _param(v):
    return v._data if isinstance(v, NDArray) else v


def _fill(values, shape, dtype, ctx, out):
    dt = np_dtype(dtype_name(dtype if dtype is not None else "float32"))
    values = values.astype(dt)
    if out is not None:
        out._data[...] = values.reshape(out.shape)
        return out
    return _new(values, ctx)


def _out_shape(shape, out, *params):
    if out is not None:
        return out.shape
    base = np.broadcast_shapes(*[np.shape(p) for p in params])
    if shape is None or shape == ():
        return base if base else (1,)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    return tuple(base) + shape if base else shape


def uniform(low=0, high=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Uniform in [low, high)."""
    low, high = _param(low), _param(high)
    s = _out_shape(shape, out, low, high)
    if np.ndim(low) or np.ndim(high):
        low = np.reshape(low, np.shape(low) + (1,) * (len(s) - np.ndim(low)))
        high = np.reshape(high, np.shape(high) + (1,) * (len(s) - np.ndim(high)))
    return _fill(_generator.uniform(low, high, size=s), s, dtype, ctx, out)


def normal(loc=0, scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Normal with mean `loc` and standard deviation `scale`."""
    loc, scale = _param(loc), _param(scale)
    s = _out_shape(shape, out, loc, scale)
    if np.ndim(loc) or np.ndim(scale):
        loc = np.reshape(loc, np.shape(loc) + (1,) * (len(s) - np.ndim(loc)))
        scale = np.reshape(scale, np.shape(scale) + (1,) * (len(s) - np.ndim(scale)))
    return _fill(_generator.normal(loc, scale, size=s), s, dtype, ctx, out)


def randn(*shape, **kwargs):
    loc = kwargs.pop("loc", 0)
    scale = kwargs.pop("scale", 1)
    return normal(loc, scale, shape, **kwargs)


def randint(low, high, shape=None, dtype="int32", ctx=None, out=None, **kwargs):
    s = _out_shape(shape, out)
    return _fill(_generator.integers(low, high, size=s), s, dtype, ctx, out)


def shuffle(data, **kwargs):
    d = data._data.copy()
    _generator.shuffle(d, axis=0)
    return NDArray(d, data.context)
