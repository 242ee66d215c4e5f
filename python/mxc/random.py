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
    return v._host_data() if isinstance(v, NDArray) else v


def _fill(values, shape, dtype, ctx, out):
    dt = np_dtype(dtype_name(dtype if dtype is not None else "float32"))
    values = values.astype(dt)
    if out is not None:
        # (drawn on the host, as every sampler here: a GPU array's by a copy)
        out[:] = values.reshape(out.shape)
        return out
    return _new(values, ctx)


def _failed(op, message, shape, dtype, ctx, out):
    """MXNet checks a sampler's parameters inside the operator, so a bad one
    (`normal(0, -1)`) raises at the next wait on the result (`asnumpy`,
    `wait_to_read`, `waitall`, or a wait on anything computed from it), not at
    the call: the result here is an array whose writing operation, named
    after MXNet's operator, fails with `message`."""
    from .ndarray import _new_rt
    dt = np_dtype(dtype_name(dtype if dtype is not None else "float32"))
    arr = out if out is not None else _new_rt(shape, dt, ctx)
    if arr._rt is None:  # a numpy-backed array: no engine variable to fail
        raise MXNetError("%s: %s" % (op, message))
    arr._rt.push_failure(op, message)
    return arr


def _check(op, *conds):
    """The first failed check's message among (ok, message) pairs, or None."""
    for ok, message in conds:
        if not np.all(ok):
            return "%s: %s" % (op, message)
    return None


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
    bad = _check("uniform", (np.less_equal(low, high),
                                     "low must be less or equal to high in uniform distribution"))
    if bad:
        return _failed("_random_uniform", bad, s, dtype, ctx, out)
    if np.ndim(low) or np.ndim(high):
        low = np.reshape(low, np.shape(low) + (1,) * (len(s) - np.ndim(low)))
        high = np.reshape(high, np.shape(high) + (1,) * (len(s) - np.ndim(high)))
    return _fill(_generator.uniform(low, high, size=s), s, dtype, ctx, out)


def normal(loc=0, scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Normal with mean `loc` and standard deviation `scale`."""
    loc, scale = _param(loc), _param(scale)
    s = _out_shape(shape, out, loc, scale)
    bad = _check("normal", (np.greater(scale, 0),
                                    "scale parameter in gaussian has to be positive"))
    if bad:
        return _failed("_random_normal", bad, s, dtype, ctx, out)
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
    d = data._host_data().copy()
    _generator.shuffle(d, axis=0)
    return _new(d, data.context)


def _sampler(name, draw, doc):
    """A sampler of MXNet's mx.nd.random: `draw(params..., size)` on the
    broadcast parameters, shape appended to theirs (NDArray parameters) or
    alone (numbers)."""
    def sample(*args, shape=None, dtype=None, ctx=None, out=None, **kwargs):
        names, defaults = zip(*draw.params)
        values = list(args[:len(names)])
        rest = list(args[len(names):])
        if rest and shape is None:
            shape = rest.pop(0)
        for n, d in list(zip(names, defaults))[len(values):]:
            values.append(kwargs.pop(n, d))
        kwargs.pop("name", None)
        if kwargs:
            raise TypeError("%s: unexpected arguments %s" % (name, ", ".join(kwargs)))
        values = [_param(v) for v in values]
        s = _out_shape(shape, out, *values)
        bad = _check(name, *[(test(v), message) for v, (test, message)
                             in zip(values, draw.checks) if test is not None])
        if bad:
            return _failed("_random_" + name, bad, s, dtype, ctx, out)
        if any(np.ndim(v) for v in values):
            values = [np.reshape(v, np.shape(v) + (1,) * (len(s) - np.ndim(v))) for v in values]
        return _fill(np.asarray(draw(*values, size=s)), s, dtype, ctx, out)
    sample.__name__ = name
    sample.__doc__ = doc
    return sample


def _draws(params, checks=None):
    """params: (name, default) pairs; checks: per parameter, (test, message)
    as MXNet's sampler checks it (test None: unchecked)."""
    def deco(fn):
        fn.params = params
        fn.checks = checks or [(None, None)] * len(params)
        return fn
    return deco


# MXNet's messages (src/operator/random/sample_op.h)
def _positive(what):
    return (lambda v: np.greater(v, 0), "%s has to be positive" % what)


def _non_negative(what):
    return (lambda v: np.greater_equal(v, 0), "%s has to be non-negative" % what)


@_draws((("lam", 1.0),), [_positive("lambda parameter in exponential distribution")])
def _exponential(lam, size):
    return _generator.exponential(1.0 / np.asarray(lam, dtype=np.float64), size=size)


@_draws((("alpha", 1.0), ("beta", 1.0)), [_positive("alpha parameter in gamma distribution"),
         _positive("beta parameter in gamma distribution")])
def _gamma(alpha, beta, size):
    return _generator.gamma(alpha, beta, size=size)


@_draws((("lam", 1.0),), [_non_negative("lambda parameter in poisson distribution")])
def _poisson(lam, size):
    return _generator.poisson(lam, size=size)


@_draws((("k", 1), ("p", 1.0)),
        [_non_negative("k parameter in negative binomial distribution"),
         _non_negative("p parameter in negative binomial distribution")])
def _negative_binomial(k, p, size):
    return _generator.negative_binomial(k, p, size=size)


@_draws((("mu", 1.0), ("alpha", 1.0)), 
        [_non_negative("mu parameter in generalized negative binomial distribution"),
         _non_negative("alpha parameter in generalized negative binomial distribution")])
def _generalized_negative_binomial(mu, alpha, size):
    mu = np.broadcast_to(np.asarray(mu, dtype=np.float64), size)
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), size)
    lam = np.where(alpha > 0, _generator.gamma(np.where(alpha > 0, 1.0 / np.maximum(alpha, 1e-300),
                                                        1.0), mu * alpha, size=size), mu)
    return _generator.poisson(lam)


exponential_lam = _sampler("exponential", _exponential,
                           "Exponential with rate `lam` (mean 1 / lam): MXNet's operator "
                           "_random_exponential / _sample_exponential.")


def exponential(scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """MXNet's mx.nd.random.exponential: mean `scale`, i.e. the operator's
    rate lam = 1 / scale (python/mxnet/ndarray/random.py)."""
    lam = 1.0 / scale if isinstance(scale, NDArray) else 1.0 / np.asarray(scale, np.float64)
    if np.ndim(lam) == 0 and not isinstance(lam, NDArray):
        lam = float(lam)
    return exponential_lam(lam, shape=shape, dtype=dtype, ctx=ctx, out=out, **kwargs)
gamma = _sampler("gamma", _gamma, "Gamma with shape `alpha` and scale `beta`.")
poisson = _sampler("poisson", _poisson, "Poisson with rate `lam` (as the dtype, float32).")
negative_binomial = _sampler("negative_binomial", _negative_binomial,
                             "Negative binomial: failures before `k` successes of "
                             "probability `p`.")
generalized_negative_binomial = _sampler(
    "generalized_negative_binomial", _generalized_negative_binomial,
    "Generalized negative binomial with mean `mu` and dispersion `alpha` (a Poisson whose "
    "rate is gamma(1 / alpha, mu * alpha); alpha 0: Poisson(mu)).")

# the largest index each output dtype holds exactly (MXNet's bound check)
_MULTINOMIAL_MAX = {"uint8": 2 ** 8 - 1, "int8": 2 ** 7 - 1, "int32": 2 ** 31 - 1,
                    "int64": 2 ** 63 - 1, "float16": 2 ** 11, "float32": 2 ** 24,
                    "float64": 2 ** 53}


def multinomial(data, shape=None, get_prob=False, out=None, dtype="int32", **kwargs):
    """MXNet's sample_multinomial: indices drawn from the distributions in
    the last axis of `data` (shape samples per distribution, appended to
    data.shape[:-1]); get_prob also returns the log-probability of each
    drawn index, log(data[index]), computed by operators (one_hot, where,
    sum, log) so that autograd differentiates it (MXNet's gradient of the
    probabilities)."""
    from . import ndarray as nd
    dt = dtype_name(dtype)
    probs = np.asarray(data._host_data() if isinstance(data, NDArray) else data,
                       dtype=np.float64)
    k = probs.shape[-1]
    if k - 1 > _MULTINOMIAL_MAX.get(dt, 2 ** 31 - 1):
        raise MXNetError("multinomial: %d categories do not fit the output dtype %s"
                         % (k, dt))
    if shape is None or shape == ():
        n, extra = 1, ()
    else:
        extra = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        n = int(np.prod(extra))
    batch = probs.reshape(-1, k)
    total = batch.sum(axis=1, keepdims=True)
    if np.any(total <= 0):
        raise MXNetError("multinomial: a distribution sums to %s" % total.min())
    cdf = np.cumsum(batch / total, axis=1)
    u = _generator.random((batch.shape[0], n))
    idx = np.minimum((u[:, :, None] > cdf[:, None, :]).sum(axis=2), k - 1)
    out_shape = probs.shape[:-1] + extra if extra else (probs.shape[:-1] or (1,))
    idx = idx.reshape(out_shape)
    ctx = data.context if isinstance(data, NDArray) else None
    samples = _fill(idx, out_shape, dt, ctx, out)
    if not get_prob:
        return samples
    x = data if isinstance(data, NDArray) else nd.array(probs)
    lead = x.shape[:-1]
    sel = nd.one_hot(nd.array(idx.reshape(lead + (-1,)) if lead else idx.reshape(-1),
                              dtype=x.dtype), depth=k, dtype=dtype_name(x.dtype))
    xb = nd.broadcast_to(nd.expand_dims(x, axis=x.ndim - 1), shape=sel.shape)
    picked = nd.sum(nd.where(sel, xb, nd.zeros_like(xb)), axis=-1)
    logp = nd.log(picked).reshape(out_shape)
    return [samples, logp]


def _sample_unique_zipfian(range_max, shape=None, ctx=None, **kwargs):
    """MXNet's _sample_unique_zipfian (unique_sample_op.h), on the host: per
    row of `shape` (batch, num_sampled), classes lround(exp(u log(range_max)))
    - 1 drawn until num_sampled distinct ones came (kept in draw order), and
    the number of draws it took. Returns (classes, num_tries), both int64."""
    if shape is None or len(tuple(shape)) != 2:
        raise MXNetError("_sample_unique_zipfian: shape must be (batch, num_sampled), got %r"
                         % (shape,))
    batch, num_sampled = (int(d) for d in shape)
    if num_sampled > range_max:
        raise MXNetError("_sample_unique_zipfian: Number of samples cannot exceed the number "
                         "of possible classes (%d > %d)" % (num_sampled, range_max))
    log_range = np.log(range_max)
    classes = np.empty((batch, num_sampled), np.int64)
    tries = np.empty(batch, np.int64)
    for row in range(batch):
        seen, out, n = set(), classes[row], 0
        while len(seen) < num_sampled:
            # lround of a positive number: floor(x + 0.5)
            chunk = np.floor(np.exp(_generator.random(num_sampled) * log_range) + 0.5).astype(
                np.int64) - 1
            for v in chunk.tolist():
                n += 1
                if v not in seen:
                    out[len(seen)] = v
                    seen.add(v)
                    if len(seen) == num_sampled:
                        break
        tries[row] = n
    return _fill(classes, classes.shape, "int64", ctx, None), \
        _fill(tries, tries.shape, "int64", ctx, None)


def _like(dist, sampler, params):
    """MXNet's mx.nd.random.<dist>_like (_random_<dist>_like): numbers of
    data's shape, type and context."""
    def like(data=None, *args, out=None, **kwargs):
        values = dict(zip([n for n, _ in params], args))
        for n, d in params:
            values.setdefault(n, kwargs.pop(n, d))
        kwargs.pop("name", None)
        kwargs.pop("ctx", None)
        if kwargs:
            raise TypeError("%s_like: unexpected arguments %s" % (dist, ", ".join(kwargs)))
        if not isinstance(data, NDArray):
            raise MXNetError("%s_like: data must be an NDArray, got %r" % (dist, type(data)))
        return sampler(*[values[n] for n, _ in params], shape=data.shape,
                       dtype=dtype_name(data.dtype), ctx=data.context, out=out)
    like.__name__ = dist + "_like"
    like.__doc__ = ("MXNet's %s_like: numbers of data's shape and type from the %s "
                    "distribution." % (dist, dist))
    return like


uniform_like = _like("uniform", uniform, (("low", 0.0), ("high", 1.0)))
normal_like = _like("normal", normal, (("loc", 0.0), ("scale", 1.0)))
gamma_like = _like("gamma", gamma, (("alpha", 1.0), ("beta", 1.0)))
exponential_like = _like("exponential", exponential_lam, (("lam", 1.0),))
poisson_like = _like("poisson", poisson, (("lam", 1.0),))
negative_binomial_like = _like("negative_binomial", negative_binomial, (("k", 1), ("p", 1.0)))
generalized_negative_binomial_like = _like(
    "generalized_negative_binomial", generalized_negative_binomial, (("mu", 1.0), ("alpha", 1.0)))
