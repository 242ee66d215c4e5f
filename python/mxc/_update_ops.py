"""MXNet 1.9.1's optimizer update operators signsgd_update, signum_update,
nag_mom_update, ftml_update, ftrl_update, rmsprop_update, rmspropalex_update,
lamb_update_phase1 and lamb_update_phase2 (the formulas of
src/operator/optimizer_op-inl.h, in the weight's dtype), in numpy.

mx.nd.<name> takes MXNet's arguments: the weight is written only through
out= (out=weight updates it in place, as the optimizers call them), the
states (mom, n, z, ...) are always updated in place. signsgd, signum,
nag_mom, ftrl, ftml, rmsprop, rmspropalex and lamb_update_phase1 / 2 on
runtime arrays of one float dtype (float32 / float64, on any device; phase 2's
r1 and r2 one value each) are compiled, fused kernels pushed on the engine
(ndarray._push_update, the same formulas operation for operation, as
sgd_update / sgd_mom_update / adam_update); otherwise they run here on the
host after the arrays' pending engine work (NDArray._data), synchronously;
GPU arrays there through host copies (_host_staged).
"""
import functools

import numpy as np

from .base import MXNetError


def _clip(x, bound):
    if bound is not None and bound >= 0:
        np.clip(x, -bound, bound, out=x)
    return x


def _scaled(grad, dtype, rescale_grad, clip_gradient=-1.0):
    """clip(rescale_grad * grad, clip_gradient) in `dtype` (a new array)."""
    return _clip(grad.astype(dtype, copy=True) * dtype.type(rescale_grad), clip_gradient)


def _sign(x, dtype):
    """MXNet's sign (mshadow_op::sign, and the compiled `sign`): -1, 0 or 1;
    0 for NaN (np.sign gives NaN)."""
    return (x > 0).astype(dtype) - (x < 0).astype(dtype)


def signsgd(w, g, lr, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0):
    """(1 - lr * wd) * w - lr * sign(g); rescale_grad and clip_gradient have no
    effect (as MXNet's kernel)."""
    t = w.dtype.type
    return (t(1) - t(lr) * t(wd)) * w - t(lr) * _sign(g, w.dtype)


def signum(w, g, mom, lr, momentum=0.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0,
           wd_lh=0.0):
    t = w.dtype.type
    gr = _scaled(g, w.dtype, rescale_grad, clip_gradient)
    mo = t(momentum)
    mom[...] = mo * mom - (t(1) - mo) * t(wd) * w - (t(1) - mo) * gr
    return (t(1) - t(lr) * t(wd_lh)) * w + t(lr) * _sign(mom, w.dtype)


def nag_mom(w, g, mom, lr, momentum=0.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0,
            inplace=True):
    """MXNet's kernel; with out = weight (inplace) the momentum's decay term
    reads the weight the kernel has just written, as MXNet's does."""
    t = w.dtype.type
    gr = _scaled(g, w.dtype, rescale_grad, clip_gradient)
    mom *= t(momentum)
    new = w - mom + t(momentum + 1) * (mom - t(lr) * (gr + t(wd) * w))
    mom -= t(lr) * (gr + t(wd) * (new if inplace else w))
    return new


def ftml(w, g, d, v, z, lr, t, beta1=0.6, beta2=0.999, epsilon=1e-8, wd=0.0,
         rescale_grad=1.0, clip_grad=-1.0):
    ty = w.dtype.type
    gi = g.astype(w.dtype, copy=True) * ty(rescale_grad) + ty(wd) * w
    _clip(gi, clip_grad)
    v[...] = ty(beta2) * v + (ty(1) - ty(beta2)) * gi * gi
    d_t = (ty(1) - ty(beta1) ** ty(t)) / ty(lr) * \
        (np.sqrt(v / (ty(1) - ty(beta2) ** ty(t))) + ty(epsilon))
    z[...] = ty(beta1) * z + (ty(1) - ty(beta1)) * gi - (d_t - ty(beta1) * d) * w
    d[...] = d_t
    return -z / d_t


def ftrl(w, g, z, n, lr, lamda1=0.01, beta=1.0, wd=0.0, rescale_grad=1.0,
         clip_gradient=-1.0):
    t = w.dtype.type
    gr = _scaled(g, w.dtype, rescale_grad, clip_gradient)
    z += gr - (np.sqrt(n + gr * gr) - np.sqrt(n)) * w / t(lr)
    n += gr * gr
    return (_sign(z, w.dtype) * t(lamda1) - z) / ((t(beta) + np.sqrt(n)) / t(lr) + t(wd)) * \
        (np.abs(z) > t(lamda1)).astype(w.dtype)


def rmsprop(w, g, n, lr, gamma1=0.95, epsilon=1e-8, wd=0.0, rescale_grad=1.0,
            clip_gradient=-1.0, clip_weights=-1.0):
    t = w.dtype.type
    gr = _clip(g.astype(w.dtype, copy=True) * t(rescale_grad) + t(wd) * w, clip_gradient)
    n[...] = (t(1) - t(gamma1)) * (gr * gr) + t(gamma1) * n
    return _clip(w - t(lr) * (gr / np.sqrt(n + t(epsilon))), clip_weights)


def rmspropalex(w, g, n, gs, delta, lr, gamma1=0.95, gamma2=0.9, epsilon=1e-8, wd=0.0,
                rescale_grad=1.0, clip_gradient=-1.0, clip_weights=-1.0):
    t = w.dtype.type
    gr = _clip(g.astype(w.dtype, copy=True) * t(rescale_grad) + t(wd) * w, clip_gradient)
    g1 = t(gamma1)
    n[...] = (t(1) - g1) * gr * gr + g1 * n
    gs[...] = (t(1) - g1) * gr + g1 * gs
    delta[...] = t(gamma2) * delta - t(lr) * gr / np.sqrt(n - gs * gs + t(epsilon))
    return _clip(w + delta, clip_weights)


def lamb_phase1(w, g, mean, var, t, beta1=0.9, beta2=0.999, epsilon=1e-6,
                bias_correction=True, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0):
    ty = w.dtype.type
    gr = _scaled(g, w.dtype, rescale_grad, clip_gradient)
    b1, b2 = ty(beta1), ty(beta2)
    mean[...] = b1 * mean + (ty(1) - b1) * gr
    var[...] = b2 * var + (ty(1) - b2) * gr * gr
    if bias_correction:
        # as the kernel: beta^t in the dtype, mean / (1. - beta1^t) in double
        b1t, b2t = ty(beta1) ** ty(t), ty(beta2) ** ty(t)
        m_hat = (mean.astype(np.float64) / (1.0 - np.float64(b1t))).astype(w.dtype)
        v_hat = var / (ty(1) - b2t)
        return m_hat / (np.sqrt(v_hat) + ty(epsilon)) + ty(wd) * w
    return mean / (np.sqrt(var) + ty(epsilon)) + ty(wd) * w


def lamb_phase2(w, g, r1, r2, lr, lower_bound=-1.0, upper_bound=-1.0):
    ty = w.dtype.type
    r1 = ty(np.asarray(r1).reshape(-1)[0])
    r2 = ty(np.asarray(r2).reshape(-1)[0])
    if lower_bound is not None and lower_bound >= 0:
        r1 = max(r1, ty(lower_bound))
    if upper_bound is not None and upper_bound >= 0:
        r1 = min(r1, ty(upper_bound))
    ratio = ty(1) if (r1 == 0 or r2 == 0) else r1 / r2
    return w - ty(lr) * ratio * g


def l2_norm(x):
    """||x|| in x's dtype, float32 at least (the r1 / r2 of LAMB; MXNet
    computes them with norm(), whose result has the array's dtype)."""
    dt = np.float64 if x.dtype == np.float64 else np.float32
    return dt(np.sqrt(np.sum(np.square(x, dtype=dt), dtype=dt)))


# -- mx.nd functions with MXNet's signatures ------------------------------------------

def _nd_function(name, kernel, n_states, defaults, positional=("lr",)):
    """mx.nd.<name>(weight, grad, *states, <hyper-parameters>, out=None)."""

    def update(weight, grad, *args, out=None, name=None, **kwargs):
        from .ndarray import NDArray
        states, rest = args[:n_states], list(args[n_states:])
        if len(states) != n_states:
            raise MXNetError("%s: expects %d state arrays" % (update.__name__, n_states))
        params = dict(defaults)
        for key in positional:
            if rest:
                params[key] = rest.pop(0)
        if rest:
            raise MXNetError("%s: too many positional arguments" % update.__name__)
        for k, v in kwargs.items():
            if k not in params:
                raise MXNetError("%s: no argument %s (arguments: %s)"
                                 % (update.__name__, k, ", ".join(sorted(params))))
            params[k] = v
        missing = [k for k, v in params.items() if v is _REQUIRED]
        if missing:
            raise MXNetError("%s: required argument(s) %s missing" % (update.__name__,
                                                                       ", ".join(missing)))
        for a in (weight, grad) + tuple(states):
            if not isinstance(a, NDArray):
                raise MXNetError("%s: expected NDArrays" % update.__name__)
        compiled = COMPILED.get(update.__name__)
        if kernel is lamb_phase2 and all(s.size == 1 for s in states):
            # (r1, r2: one value each, shaped as the learning rate input)
            states = [s.reshape((1,) * weight.ndim) for s in states]
        if compiled is not None and _compilable(weight, grad, states, out,
                                                2 if kernel is lamb_phase2 else 0):
            from .ndarray import _push_update
            from .ndarray import _UPDATE_WRITES as writes
            if kernel is nag_mom:
                params["inplace"] = out is weight
            lr = params.pop("lr", None)
            scalars = None
            if kernel is lamb_phase1:
                t = params.pop("t")
                if params.pop("bias_correction"):  # (as lamb_phase1's)
                    ty = weight._sig[1].type
                    scalars = dict(c_m=1.0 - np.float64(ty(params["beta1"]) ** ty(t)),
                                   c_v=ty(1) - ty(params["beta2"]) ** ty(t))
                else:
                    compiled = "lamb_phase1_nbc"
            if kernel is ftml:  # the step's constants as inputs (a new t does not recompile)
                ty = weight._sig[1].type
                t = params.pop("t")
                scalars = dict(c_d=(ty(1) - ty(params["beta1"]) ** ty(t)) / ty(lr),
                               c_v=ty(1) - ty(params["beta2"]) ** ty(t))
                params["clip_gradient"] = params.pop("clip_grad")
            # (floats for the cache key; a clip of None: -1, no clipping)
            params = {k: v if isinstance(v, bool) else
                      -1.0 if v is None and k.startswith(("clip", "lower", "upper")) else
                      float(v)
                      for k, v in params.items()}
            names = ["r1", "r2"] if kernel is lamb_phase2 else writes[compiled][1:]
            arrays = dict(zip(names, states), weight=weight, grad=grad)
            return _push_update(compiled, arrays, lr, params, out, scalars)
        return _host_staged(_numpy_update)(weight, grad, states, out, params)

    def _numpy_update(weight, grad, states, out, params):
        w = weight._data
        st = [s._data for s in states]
        if kernel is nag_mom:
            params["inplace"] = out is weight
        return _result(weight, kernel(w, grad._data, *st, **params), out)

    update.__name__ = name
    update.__qualname__ = name
    update.__doc__ = "MXNet's %s (numpy on the host; see mxc._update_ops). " \
        "Arguments: weight, grad, %d state array(s), %s." % (
            name, n_states, ", ".join("%s=%r" % kv for kv in defaults.items()))
    return update


_REQUIRED = object()

# The updates with a compiled kernel: mx.nd name -> ndarray._build_update's.
COMPILED = {"signsgd_update": "signsgd", "signum_update": "signum",
            "nag_mom_update": "nag_mom", "rmsprop_update": "rmsprop",
            "rmspropalex_update": "rmspropalex", "ftrl_update": "ftrl",
            "ftml_update": "ftml", "lamb_update_phase1": "lamb_phase1",
            "lamb_update_phase2": "lamb_phase2"}


def _compilable(weight, grad, states, out, one_value=0):
    """Runtime arrays (any device) of one float32 / float64 dtype, shape and
    device (the last `one_value` states: one value each); out, where given, a
    runtime array of that dtype and shape (on another device: the new weight
    is copied there)."""
    arrays = [weight, grad] + list(states) + ([out] if out is not None else [])
    if not all(a._rt is not None for a in arrays):
        return False
    dt = weight._sig[1]
    return dt in (np.float32, np.float64) and \
        all(a._sig[1] == dt and (a.shape == weight.shape or a.size == 1 and a is not out and
                                 any(a is s for s in states[len(states) - one_value:]))
            for a in arrays) and \
        all(a._ctx == weight._ctx for a in arrays if a is not out)

FUNCTIONS = {
    "signsgd_update": _nd_function("signsgd_update", signsgd, 0, dict(
        lr=_REQUIRED, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0)),
    "signum_update": _nd_function("signum_update", signum, 1, dict(
        lr=_REQUIRED, momentum=0.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0, wd_lh=0.0)),
    "nag_mom_update": _nd_function("nag_mom_update", nag_mom, 1, dict(
        lr=_REQUIRED, momentum=0.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0)),
    "ftml_update": _nd_function("ftml_update", ftml, 3, dict(
        lr=_REQUIRED, t=_REQUIRED, beta1=0.6, beta2=0.999, epsilon=1e-8, wd=0.0,
        rescale_grad=1.0, clip_grad=-1.0)),
    "ftrl_update": _nd_function("ftrl_update", ftrl, 2, dict(
        lr=_REQUIRED, lamda1=0.01, beta=1.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0)),
    "rmsprop_update": _nd_function("rmsprop_update", rmsprop, 1, dict(
        lr=_REQUIRED, gamma1=0.95, epsilon=1e-8, wd=0.0, rescale_grad=1.0,
        clip_gradient=-1.0, clip_weights=-1.0)),
    "rmspropalex_update": _nd_function("rmspropalex_update", rmspropalex, 3, dict(
        lr=_REQUIRED, gamma1=0.95, gamma2=0.9, epsilon=1e-8, wd=0.0, rescale_grad=1.0,
        clip_gradient=-1.0, clip_weights=-1.0)),
    "lamb_update_phase1": _nd_function("lamb_update_phase1", lamb_phase1, 2, dict(
        t=_REQUIRED, beta1=0.9, beta2=0.999, epsilon=1e-6, bias_correction=True, wd=_REQUIRED,
        rescale_grad=1.0, clip_gradient=-1.0), positional=()),
    "lamb_update_phase2": _nd_function("lamb_update_phase2", lamb_phase2, 2, dict(
        lr=_REQUIRED, lower_bound=-1.0, upper_bound=-1.0)),
}


# -- AdamW (src/operator/contrib/adamw-inl.h): mx.nd.contrib.adamw_update,
# mp_adamw_update, multi_adamw_update, multi_mp_adamw_update. rescale_grad
# is an array (or a number); a non-finite or zero one skips the update
# (nothing is written), as MXNet's PrepareInputBlobs.

def _rescale_scalar(rescale_grad):
    from .ndarray import NDArray
    if isinstance(rescale_grad, NDArray):
        return float(np.asarray(rescale_grad._data, dtype=np.float32).reshape(-1)[0])
    return float(np.float32(rescale_grad))


def _adamw_step(w, g, mean, var, lr, eta, wd, beta1, beta2, epsilon, rescale, clip_gradient,
                multi):
    """One AdamW step in float32 (the weight `w` is float32 or the weight's
    type); mean / var in place. `multi`: the multi-tensor kernel's
    beta * (m - g) + g form."""
    f = np.float32
    t = w.dtype.type
    sg = f(rescale) * g.astype(np.float32) if w.dtype == np.float32 else \
        t(rescale) * g.astype(w.dtype)
    if clip_gradient is not None and clip_gradient >= 0:
        sg = np.clip(sg, -clip_gradient, clip_gradient).astype(sg.dtype)
    b1, b2 = sg.dtype.type(beta1), sg.dtype.type(beta2)
    one = sg.dtype.type(1)
    if multi:
        mean[...] = b1 * (mean - sg) + sg
        var[...] = b2 * (var - sg * sg) + sg * sg
    else:
        mean[...] = b1 * mean + (one - b1) * sg
        var[...] = b2 * var + (one - b2) * sg * sg
    return w - t(eta) * (t(lr) * mean.astype(w.dtype) /
                         (np.sqrt(var.astype(w.dtype)) + t(epsilon)) + t(wd) * w)


def _host_staged(fn):
    """`fn` (numpy code that reads NDArrays' data and updates some in place)
    on GPU arrays: each NDArray argument on a GPU (in lists too) is copied to
    the host, `fn` runs on the copies, and every copy is written back (the
    states, weights and out= it updated; an argument it only read gets its
    own values), as the optimizers' host path does; a new array it returns
    goes to the first GPU argument's device. Without GPU arrays, `fn` itself."""
    @functools.wraps(fn)
    def staged(*args, **kwargs):
        from .ndarray import NDArray
        from .context import Context
        pairs = []  # (GPU array, host copy)

        def to_host(v):
            if isinstance(v, NDArray) and v.context.device_type == "gpu":
                for g, h in pairs:  # (one copy for one storage: w and w.detach())
                    if g is v or (g.shape == v.shape and g.dtype == v.dtype and
                                  g._rt.data_ptr == v._rt.data_ptr):
                        return h
                pairs.append((v, v.copyto(Context("cpu", 0))))
                return pairs[-1][1]
            if isinstance(v, (list, tuple)):
                return type(v)(to_host(x) for x in v)
            return v
        hargs = [to_host(a) for a in args]
        hkwargs = {k: to_host(v) for k, v in kwargs.items()}
        if not pairs:
            return fn(*args, **kwargs)
        result = fn(*hargs, **hkwargs)
        for g, h in pairs:
            h.copyto(g)
        ctx = pairs[0][0].context

        def back(r):
            if isinstance(r, NDArray):
                for g, h in pairs:
                    if h is r:
                        return g
                return r.copyto(ctx)
            if isinstance(r, (list, tuple)):
                return type(r)(back(x) for x in r)
            return r
        return back(result)
    return staged


def _result(weight, new, out):
    """An update's new weight values: into out, else a new array in the
    weight's type."""
    from .ndarray import array
    if out is None:
        return array(new, ctx=weight.context, dtype=weight.dtype)
    out._data[...] = new
    return out


def _outs(name, weights, out):
    """A multi-weight update's output arrays: out (one per weight), else
    copies of the weights (MXNet's leave the weights as they are)."""
    if out is None:
        return [w.copy() for w in weights]
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    if len(outs) != len(weights):
        raise MXNetError("%s: out has %d arrays for %d weights" % (name, len(outs), len(weights)))
    return outs


def _check_nd(name, arrays):
    from .ndarray import NDArray
    for a in arrays:
        if not isinstance(a, NDArray):
            raise MXNetError("%s: expected NDArrays, got %s" % (name, type(a).__name__))


def adamw_update(weight, grad, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999,
                 epsilon=1e-8, wd=0.0, clip_gradient=-1.0, out=None, name=None, **kwargs):
    """MXNet's contrib.adamw_update: mean / var updated in place, the new
    weight into out (a new array when out is None)."""
    _check_nd("adamw_update", (weight, grad, mean, var))
    rescale = _rescale_scalar(rescale_grad)
    if not np.isfinite(rescale) or rescale == 0:
        return out if out is not None else weight.copy()
    new = _adamw_step(weight._data, grad._data, mean._data, var._data, lr, eta, wd, beta1,
                      beta2, epsilon, rescale, clip_gradient, multi=False)
    return _result(weight, new, out)


def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, lr, eta, beta1=0.9,
                    beta2=0.999, epsilon=1e-8, wd=0.0, clip_gradient=-1.0, out=None, name=None,
                    **kwargs):
    """MXNet's contrib.mp_adamw_update: the step on the float32 master
    weight32 (updated in place), its value in weight's type into out."""
    _check_nd("mp_adamw_update", (weight, grad, mean, var, weight32))
    rescale = _rescale_scalar(rescale_grad)
    if not np.isfinite(rescale) or rescale == 0:
        return out if out is not None else weight.copy()
    w32 = weight32._data
    w32[...] = _adamw_step(w32, grad._data, mean._data, var._data, lr, eta, wd, beta1, beta2,
                           epsilon, rescale, clip_gradient, multi=False)
    return _result(weight, w32, out)


def _multi_adamw(name, weights, grads, mean, var, weights32, rescale_grad, lrs, wds, etas,
                 beta1, beta2, epsilon, clip_gradient, out):
    n = len(weights)
    lists = [grads, mean, var] + ([weights32] if weights32 is not None else [])
    if any(len(x) != n for x in lists) or len(lrs) != n or len(wds) != n or len(etas) != n:
        raise MXNetError("%s: weights, grads, mean, var%s, lrs, wds and etas must have one entry "
                         "per weight (%d)" % (name, ", weights32" if weights32 is not None else "",
                                              n))
    _check_nd(name, list(weights) + [a for x in lists for a in x])
    outs = _outs(name, weights, out)
    rescale = _rescale_scalar(rescale_grad)
    if not np.isfinite(rescale) or rescale == 0:
        return outs
    for i in range(n):
        master = weights32[i]._data if weights32 is not None else weights[i]._data
        new = _adamw_step(master, grads[i]._data, mean[i]._data, var[i]._data, lrs[i], etas[i],
                          wds[i], beta1, beta2, epsilon, rescale, clip_gradient, multi=True)
        if weights32 is not None:
            master[...] = new
        outs[i]._data[...] = new
    return outs


def multi_adamw_update(weights, grads, mean, var, rescale_grad, lrs, wds, etas, beta1=0.9,
                       beta2=0.999, epsilon=1e-8, clip_gradient=-1.0, out=None, name=None,
                       size=0, **kwargs):
    """MXNet's contrib.multi_adamw_update: adamw_update of each weight (its
    own lr / wd / eta) with one rescale_grad; out (a list) receives them (new
    arrays when out is None)."""
    return _multi_adamw("multi_adamw_update", weights, grads, mean, var, None, rescale_grad,
                        lrs, wds, etas, beta1, beta2, epsilon, clip_gradient, out)


def multi_mp_adamw_update(weights, grads, mean, var, weights32, rescale_grad, lrs, wds, etas,
                          beta1=0.9, beta2=0.999, epsilon=1e-8, clip_gradient=-1.0, out=None,
                          name=None, size=0, **kwargs):
    """MXNet's contrib.multi_mp_adamw_update: mp_adamw_update of each weight."""
    return _multi_adamw("multi_mp_adamw_update", weights, grads, mean, var, weights32,
                        rescale_grad, lrs, wds, etas, beta1, beta2, epsilon, clip_gradient, out)


CONTRIB_FUNCTIONS = {f.__name__: _host_staged(f) for f in (adamw_update, mp_adamw_update,
                                                          multi_adamw_update,
                                                          multi_mp_adamw_update)}


# -- multi-precision and multi-tensor SGD / NAG / LAMB (optimizer_op-inl.h's
# MP_SGDKernel, MP_SGDMomKernel, MP_NAGMomKernel, MultiSGDKernel,
# MPLambUpdatePhaseOne / Two; multi_sum_sq, multi_lars). The float32 master
# weight (weight32) and momentum are updated in place, the result (in the
# weight's type) goes to out (new arrays when out is None).

def _sgd_step(w32, g, mom, lr, momentum, wd, rescale_grad, clip_gradient):
    """MultiSGDKernel / MP_SGD(Mom)Kernel on `w32`, in its type: the float32
    master weight of the mp forms, the weight itself otherwise (in place)."""
    f = w32.dtype.type
    if clip_gradient is not None and clip_gradient >= 0:
        step = f(lr) * _scaled(g, w32.dtype, rescale_grad, clip_gradient)
    else:
        step = (f(lr) * f(rescale_grad)) * g.astype(w32.dtype)
    m = f(momentum) * mom if mom is not None else f(0)
    m = m - f(lr) * f(wd) * w32 - step
    if mom is not None:
        mom[...] = m
    w32[...] = w32 + m
    return w32


def mp_sgd_update(weight, grad, weight32, lr, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0,
                  lazy_update=True, out=None, name=None):
    """MXNet's mp_sgd_update: SGD on the float32 master copy weight32."""
    _check_nd("mp_sgd_update", (weight, grad, weight32))
    w32 = weight32._data
    new = _sgd_step(w32, grad._data, None, lr, 0.0, wd, rescale_grad, clip_gradient)
    return _result(weight, new, out)


def mp_sgd_mom_update(weight, grad, mom, weight32, lr, momentum=0.0, wd=0.0, rescale_grad=1.0,
                      clip_gradient=-1.0, lazy_update=True, out=None, name=None):
    """MXNet's mp_sgd_mom_update: mom = momentum mom - lr wd w32 - lr g;
    w32 += mom (float32 mom and master copy)."""
    _check_nd("mp_sgd_mom_update", (weight, grad, mom, weight32))
    new = _sgd_step(weight32._data, grad._data, mom._data, lr, momentum, wd, rescale_grad,
                      clip_gradient)
    return _result(weight, new, out)


def mp_nag_mom_update(weight, grad, mom, weight32, lr, momentum=0.0, wd=0.0, rescale_grad=1.0,
                      clip_gradient=-1.0, out=None, name=None):
    """MXNet's mp_nag_mom_update (MP_NAGMomKernel: the momentum's decay term
    reads the master weight just written, as the kernel does)."""
    _check_nd("mp_nag_mom_update", (weight, grad, mom, weight32))
    w = weight32._data
    w[...] = nag_mom(w, grad._data, mom._data, lr, momentum, wd, rescale_grad, clip_gradient,
                     inplace=True)
    return _result(weight, w, out)


def _multi_sgd(name, data, stride, lrs, wds, momentum, rescale_grad, clip_gradient, num_weights,
               out):
    """multi_(mp_)sgd(_mom)_update: data is (weight, grad[, mom][, weight32])
    per weight."""
    n = int(num_weights)
    if len(data) != n * stride:
        raise MXNetError("%s: %d arrays for num_weights=%d (expected %d: %s per weight)"
                         % (name, len(data), n, n * stride,
                            {2: "weight, grad", 3: "weight, grad, mom or weight32",
                             4: "weight, grad, mom, weight32"}[stride]))
    lrs, wds = [float(x) for x in lrs], [float(x) for x in wds]
    if len(lrs) != n or len(wds) != n:
        raise MXNetError("%s: lrs and wds must have num_weights (%d) entries" % (name, n))
    _check_nd(name, data)
    weights = [data[i * stride] for i in range(n)]
    outs = _outs(name, weights, out)
    has_mom = "mom" in name
    mp = "_mp_" in name
    for i in range(n):
        w, g = data[i * stride], data[i * stride + 1]
        mom = data[i * stride + 2]._data if has_mom else None
        master = data[i * stride + stride - 1]._data if mp else w._data.copy()
        new = _sgd_step(master, g._data, mom, lrs[i], momentum, wds[i], rescale_grad,
                          clip_gradient)
        outs[i]._data[...] = new
    return outs


def _multi(name, stride, preloaded):
    def update(*data, lrs=None, wds=None, momentum=0.0, rescale_grad=1.0, clip_gradient=-1.0,
               num_weights=1, out=None, name=None):
        data = list(data)
        if preloaded:  # lrs and wds: the last two arrays
            if len(data) < 2:
                raise MXNetError("%s: the last two inputs must be the lrs and wds arrays" % fn)
            lrs = data[-2].asnumpy().reshape(-1)
            wds = data[-1].asnumpy().reshape(-1)
            data = data[:-2]
        elif lrs is None or wds is None:
            raise MXNetError("%s: lrs and wds are required" % fn)
        return _multi_sgd(fn, data, stride, lrs, wds, momentum, rescale_grad, clip_gradient,
                          num_weights, out)
    fn = ("preloaded_" if preloaded else "") + name
    update.__name__ = update.__qualname__ = fn
    update.__doc__ = "MXNet's %s (numpy on the host; see mxc._update_ops)." % fn
    return update


def multi_sum_sq(*data, num_arrays=1, out=None, name=None):
    """MXNet's multi_sum_sq: the sum of squares of each array, in float32
    (shape (num_arrays,))."""
    from .ndarray import array
    if len(data) != int(num_arrays):
        raise MXNetError("multi_sum_sq: %d arrays for num_arrays=%d" % (len(data), num_arrays))
    _check_nd("multi_sum_sq", data)
    sums = np.array([np.sum(np.square(a._data.astype(np.float32)), dtype=np.float32)
                     for a in data], np.float32)
    if out is None:
        return array(sums, dtype=np.float32)
    out._data[...] = sums
    return out


def multi_lars(lrs, weights_sum_sq, grads_sum_sq, wds, eta, eps, rescale_grad=1.0, out=None,
               name=None):
    """MXNet's multi_lars: lr * eta ||w|| / (||g|| + wd ||w|| + eps) with
    ||g|| = sqrt(grads_sum_sq) * rescale_grad; lr itself where a norm is 0."""
    from .ndarray import array
    _check_nd("multi_lars", (lrs, weights_sum_sq, grads_sum_sq, wds))
    f = np.float32
    lr = lrs._data.astype(np.float32)
    w = np.sqrt(weights_sum_sq._data.astype(np.float32))
    g = np.sqrt(grads_sum_sq._data.astype(np.float32)) * f(rescale_grad)
    wd = wds._data.astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        lars = f(eta) * w / (g + wd * w + f(eps))
    new = np.where((w > 0) & (g > 0), lr * lars, lr).astype(np.float32)
    if out is None:
        return array(new, dtype=np.float32)
    out._data[...] = new
    return out


def mp_lamb_update_phase1(weight, grad, mean, var, weight32, t, wd, beta1=0.9, beta2=0.999,
                          epsilon=1e-6, bias_correction=True, rescale_grad=1.0,
                          clip_gradient=-1.0, out=None, name=None):
    """MXNet's mp_lamb_update_phase1: LAMB's phase 1 on the float32 master
    copy (the result is float32)."""
    from .ndarray import array
    _check_nd("mp_lamb_update_phase1", (weight, grad, mean, var, weight32))
    g = lamb_phase1(weight32._data, grad._data.astype(np.float32), mean._data, var._data, t,
                    beta1, beta2, epsilon, bias_correction, wd, rescale_grad, clip_gradient)
    if out is None:
        return array(g.astype(np.float32), dtype=np.float32)
    out._data[...] = g
    return out


def mp_lamb_update_phase2(weight, g, r1, r2, weight32, lr, lower_bound=-1.0, upper_bound=-1.0,
                          out=None, name=None):
    """MXNet's mp_lamb_update_phase2: weight32 - lr * ratio * g, in weight's
    type, into out; as MXNet's kernel (MPLambUpdatePhaseTwoKernel), weight32
    itself is read, not written."""
    _check_nd("mp_lamb_update_phase2", (weight, g, r1, r2, weight32))
    new = lamb_phase2(weight32._data, g._data.astype(np.float32), r1._data, r2._data, lr,
                      lower_bound, upper_bound)
    return _result(weight, new, out)


for _f in (mp_sgd_update, mp_sgd_mom_update, mp_nag_mom_update, multi_sum_sq, multi_lars,
           mp_lamb_update_phase1, mp_lamb_update_phase2):
    FUNCTIONS[_f.__name__] = _host_staged(_f)
for _name, _stride in (("multi_sgd_update", 2), ("multi_sgd_mom_update", 3),
                       ("multi_mp_sgd_update", 3), ("multi_mp_sgd_mom_update", 4)):
    for _pre in (False, True):
        _u = _host_staged(_multi(_name, _stride, _pre))
        FUNCTIONS[_u.__name__] = _u
