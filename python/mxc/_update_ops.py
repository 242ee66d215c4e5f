"""MXNet 1.9.1's optimizer update operators that mxc has no compiled kernel
for, in numpy: signsgd_update, signum_update, nag_mom_update, ftml_update,
ftrl_update, rmsprop_update, rmspropalex_update, lamb_update_phase1 and
lamb_update_phase2 (the formulas of src/operator/optimizer_op-inl.h, in the
weight's dtype).

mx.nd.<name> takes MXNet's arguments: the weight is written only through
out= (out=weight updates it in place, as the optimizers call them), the
states (mom, n, z, ...) are always updated in place. They run on the host
after the arrays' pending engine work (NDArray._data), synchronously; the
compiled, engine-pushed updates are sgd_update, sgd_mom_update, adam_update.
"""
import numpy as np

from .base import MXNetError


def _clip(x, bound):
    if bound is not None and bound >= 0:
        np.clip(x, -bound, bound, out=x)
    return x


def _scaled(grad, dtype, rescale_grad, clip_gradient=-1.0):
    """clip(rescale_grad * grad, clip_gradient) in `dtype` (a new array)."""
    return _clip(grad.astype(dtype, copy=True) * dtype.type(rescale_grad), clip_gradient)


def signsgd(w, g, lr, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0):
    """(1 - lr * wd) * w - lr * sign(g); rescale_grad and clip_gradient have no
    effect (as MXNet's kernel)."""
    t = w.dtype.type
    return (t(1) - t(lr) * t(wd)) * w - t(lr) * np.sign(g).astype(w.dtype)


def signum(w, g, mom, lr, momentum=0.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0,
           wd_lh=0.0):
    t = w.dtype.type
    gr = _scaled(g, w.dtype, rescale_grad, clip_gradient)
    mo = t(momentum)
    mom[...] = mo * mom - (t(1) - mo) * t(wd) * w - (t(1) - mo) * gr
    return (t(1) - t(lr) * t(wd_lh)) * w + t(lr) * np.sign(mom).astype(w.dtype)


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
    return (np.sign(z) * t(lamda1) - z) / ((t(beta) + np.sqrt(n)) / t(lr) + t(wd)) * \
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
    """||x|| in float32 (the r1 / r2 of LAMB; MXNet computes them with norm())."""
    return np.float32(np.sqrt(np.sum(np.square(x, dtype=np.float32), dtype=np.float32)))


# -- mx.nd functions with MXNet's signatures ------------------------------------------

def _nd_function(name, kernel, n_states, defaults, positional=("lr",)):
    """mx.nd.<name>(weight, grad, *states, <hyper-parameters>, out=None)."""

    def update(weight, grad, *args, out=None, name=None, **kwargs):
        from .ndarray import NDArray, array
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
        w = weight._data
        st = [s._data for s in states]
        if kernel is nag_mom:
            params["inplace"] = out is weight
        new = kernel(w, grad._data, *st, **params)
        if out is None:
            return array(new.astype(w.dtype), ctx=weight.context)
        out._data[...] = new
        return out

    update.__name__ = name
    update.__qualname__ = name
    update.__doc__ = "MXNet's %s (numpy on the host; see mxc._update_ops). " \
        "Arguments: weight, grad, %d state array(s), %s." % (
            name, n_states, ", ".join("%s=%r" % kv for kv in defaults.items()))
    return update


_REQUIRED = object()

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


def _check_nd(name, arrays):
    from .ndarray import NDArray
    for a in arrays:
        if not isinstance(a, NDArray):
            raise MXNetError("%s: expected NDArrays, got %s" % (name, type(a).__name__))


def adamw_update(weight, grad, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999,
                 epsilon=1e-8, wd=0.0, clip_gradient=-1.0, out=None, name=None, **kwargs):
    """MXNet's contrib.adamw_update: mean / var updated in place, the new
    weight into out (a new array when out is None)."""
    from .ndarray import array
    _check_nd("adamw_update", (weight, grad, mean, var))
    rescale = _rescale_scalar(rescale_grad)
    if not np.isfinite(rescale) or rescale == 0:
        return out if out is not None else weight.copy()
    new = _adamw_step(weight._data, grad._data, mean._data, var._data, lr, eta, wd, beta1,
                      beta2, epsilon, rescale, clip_gradient, multi=False)
    if out is None:
        return array(new.astype(weight.dtype), ctx=weight.context)
    out._data[...] = new
    return out


def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, lr, eta, beta1=0.9,
                    beta2=0.999, epsilon=1e-8, wd=0.0, clip_gradient=-1.0, out=None, name=None,
                    **kwargs):
    """MXNet's contrib.mp_adamw_update: the step on the float32 master
    weight32 (updated in place), its value in weight's type into out."""
    from .ndarray import array
    _check_nd("mp_adamw_update", (weight, grad, mean, var, weight32))
    rescale = _rescale_scalar(rescale_grad)
    if not np.isfinite(rescale) or rescale == 0:
        return out if out is not None else weight.copy()
    w32 = weight32._data
    w32[...] = _adamw_step(w32, grad._data, mean._data, var._data, lr, eta, wd, beta1, beta2,
                           epsilon, rescale, clip_gradient, multi=False)
    if out is None:
        return array(w32.astype(weight.dtype), ctx=weight.context)
    out._data[...] = w32
    return out


def _multi_adamw(name, weights, grads, mean, var, weights32, rescale_grad, lrs, wds, etas,
                 beta1, beta2, epsilon, clip_gradient, out):
    n = len(weights)
    lists = [grads, mean, var] + ([weights32] if weights32 is not None else [])
    if any(len(x) != n for x in lists) or len(lrs) != n or len(wds) != n or len(etas) != n:
        raise MXNetError("%s: weights, grads, mean, var%s, lrs, wds and etas must have one entry "
                         "per weight (%d)" % (name, ", weights32" if weights32 is not None else "",
                                              n))
    _check_nd(name, list(weights) + [a for x in lists for a in x])
    if out is None:    # new arrays; the weights themselves are left as they are (MXNet's)
        outs = [w.copy() for w in weights]
    else:
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        if len(outs) != n:
            raise MXNetError("%s: out has %d arrays for %d weights" % (name, len(outs), n))
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


CONTRIB_FUNCTIONS = {f.__name__: f for f in (adamw_update, mp_adamw_update, multi_adamw_update,
                                             multi_mp_adamw_update)}
