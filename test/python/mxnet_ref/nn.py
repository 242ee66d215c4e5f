"""numpy references for MXNet's layer operators (forward, inference mode).

FullyConnected, dot, batch_dot, Convolution, Pooling, BatchNorm, LRN, written
from MXNet 1.9.1's CPU kernels (src/operator/nn/{fully_connected-inl.h,
convolution-inl.h, pool.h, batch_norm.cc, lrn-inl.h},
src/operator/tensor/dot-inl.h) with plain loops where MXNet's arithmetic
order matters, and independently of mxc's lowering. Inputs of f16 / bf16
types are computed in float32 (MXNet's AccType) and cast back.
"""
import ast
import itertools

import numpy as np

from . import attr_bool, attr_float, attr_int, attr_str, attr_tuple, register


def _acc(x):
    return x.astype(np.float32) if x.dtype.itemsize < 4 else x


@register("FullyConnected", "_npx_fully_connected")
def fully_connected(inputs, attrs):
    data, weight = inputs[0], inputs[1]
    no_bias = attr_bool(attrs, "no_bias", False)
    flatten = attr_bool(attrs, "flatten", True)
    num_hidden = attr_int(attrs, "num_hidden")
    if flatten:
        x = data.reshape(data.shape[0], -1)
        out_shape = (data.shape[0], num_hidden)
    else:
        x = data.reshape(-1, data.shape[-1])
        out_shape = data.shape[:-1] + (num_hidden,)
    y = _acc(x) @ _acc(weight).T
    if not no_bias:
        y = y + _acc(inputs[2]).reshape(1, num_hidden)
    return [y.reshape(out_shape).astype(data.dtype)]


@register("dot", "_sparse_dot")
def dot(inputs, attrs):
    lhs, rhs = inputs
    ta = attr_bool(attrs, "transpose_a", False)
    tb = attr_bool(attrs, "transpose_b", False)
    if lhs.ndim == 1 and rhs.ndim == 1:
        return [np.array([np.dot(_acc(lhs), _acc(rhs))]).astype(lhs.dtype)]
    # MXNet's 2-D views (DotForward_): lhs (rest, last) or transposed
    # (first, rest); rhs (first, rest) or transposed (rest, last).
    if ta:
        a = lhs.reshape(lhs.shape[0], -1).T
        lrest = lhs.shape[1:]
    else:
        a = lhs.reshape(-1, lhs.shape[-1])
        lrest = lhs.shape[:-1]
    if tb:
        b = rhs.reshape(-1, rhs.shape[-1]).T
        rrest = rhs.shape[:-1]
    else:
        b = rhs.reshape(rhs.shape[0], -1)
        rrest = rhs.shape[1:]
    y = _acc(a) @ _acc(b)
    return [y.reshape(tuple(lrest) + tuple(rrest)).astype(lhs.dtype)]


@register("batch_dot", "_npx_batch_dot")
def batch_dot(inputs, attrs):
    lhs, rhs = inputs
    a, b = _acc(lhs), _acc(rhs)
    if attr_bool(attrs, "transpose_a", False):
        a = np.swapaxes(a, -1, -2)
    if attr_bool(attrs, "transpose_b", False):
        b = np.swapaxes(b, -1, -2)
    return [np.matmul(a, b).astype(lhs.dtype)]


def _spatial(attrs, key, n, default):
    v = attr_tuple(attrs, key)
    return tuple(v) if v else (default,) * n


@register("Convolution", "_npx_convolution")
def convolution(inputs, attrs):
    layout = attr_str(attrs, "layout")
    if layout not in (None, "None", "NCW", "NCHW", "NCDHW"):
        raise NotImplementedError(f"Convolution layout {layout}")
    data, weight = _acc(inputs[0]), _acc(inputs[1])
    kernel = attr_tuple(attrs, "kernel")
    d = len(kernel)
    stride = _spatial(attrs, "stride", d, 1)
    dilate = _spatial(attrs, "dilate", d, 1)
    pad = _spatial(attrs, "pad", d, 0)
    num_filter = attr_int(attrs, "num_filter")
    groups = attr_int(attrs, "num_group", 1)
    no_bias = attr_bool(attrs, "no_bias", False)
    n, c = data.shape[:2]
    spatial_in = data.shape[2:]
    out_sp = tuple((spatial_in[i] + 2 * pad[i] - (1 + (kernel[i] - 1) * dilate[i])) // stride[i] + 1
                   for i in range(d))
    x = np.pad(data, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    cg, fg = c // groups, num_filter // groups
    out = np.zeros((n, num_filter) + out_sp, dtype=data.dtype)
    for g in range(groups):
        xg = x[:, g * cg:(g + 1) * cg]
        wg = weight[g * fg:(g + 1) * fg]
        for koff in itertools.product(*[range(k) for k in kernel]):
            sl = tuple(slice(koff[i] * dilate[i],
                             koff[i] * dilate[i] + (out_sp[i] - 1) * stride[i] + 1,
                             stride[i]) for i in range(d))
            patch = xg[(slice(None), slice(None)) + sl]          # (n, cg, *out)
            w = wg[(slice(None), slice(None)) + koff]             # (fg, cg)
            out[:, g * fg:(g + 1) * fg] += np.einsum("nc...,fc->nf...", patch, w)
    if not no_bias:
        out += _acc(inputs[2]).reshape((1, num_filter) + (1,) * d)
    return [out.astype(inputs[0].dtype)]


@register("Deconvolution", "_npx_deconvolution")
def deconvolution(inputs, attrs):
    """A direct scatter: each input element adds weight * itself at output
    position s*i + d*k - pad (MXNet's deconvolution-inl.h, InferPad)."""
    layout = attr_str(attrs, "layout")
    if layout not in (None, "None", "NCW", "NCHW", "NCDHW"):
        raise NotImplementedError(f"Deconvolution layout {layout}")
    data, weight = _acc(inputs[0]), _acc(inputs[1])
    kernel = attr_tuple(attrs, "kernel")
    d = len(kernel)
    stride = _spatial(attrs, "stride", d, 1)
    dilate = _spatial(attrs, "dilate", d, 1)
    pad = list(_spatial(attrs, "pad", d, 0))
    adj = list(_spatial(attrs, "adj", d, 0))
    target = attr_tuple(attrs, "target_shape") or ()
    num_filter = attr_int(attrs, "num_filter")
    groups = attr_int(attrs, "num_group", 1)
    no_bias = attr_bool(attrs, "no_bias", True)
    n, c = data.shape[:2]
    sp = data.shape[2:]
    if any(target):
        for i in range(d):
            total = stride[i] * (sp[i] - 1) + 1 + (kernel[i] - 1) * dilate[i] - target[i]
            adj[i], pad[i] = total % 2, (total + 1) // 2
    out_sp = tuple(stride[i] * (sp[i] - 1) + 1 + (kernel[i] - 1) * dilate[i] - 2 * pad[i] + adj[i]
                   for i in range(d))
    full = np.zeros((n, num_filter) + tuple(out_sp[i] + 2 * pad[i] + stride[i] for i in range(d)),
                    dtype=data.dtype)
    cg, fg = c // groups, num_filter // groups
    for g in range(groups):
        xg = data[:, g * cg:(g + 1) * cg]
        wg = weight[g * cg:(g + 1) * cg]                          # (cg, fg, k...)
        for koff in itertools.product(*[range(k) for k in kernel]):
            contrib = np.einsum("nc...,cf->nf...", xg, wg[(slice(None), slice(None)) + koff])
            sl = tuple(slice(koff[i] * dilate[i], koff[i] * dilate[i] + (sp[i] - 1) * stride[i] + 1,
                             stride[i]) for i in range(d))
            full[(slice(None), slice(g * fg, (g + 1) * fg)) + sl] += contrib
    out = full[(slice(None), slice(None)) + tuple(slice(pad[i], pad[i] + out_sp[i])
                                                  for i in range(d))]
    if not no_bias:
        out = out + _acc(inputs[2]).reshape((1, num_filter) + (1,) * d)
    return [out.astype(inputs[0].dtype)]


def _pool_pow(x, p):
    return x if p == 1 else x * x if p == 2 else x * x * x if p == 3 else np.power(x, p)


def _pool_root(x, p):
    return x if p == 1 else np.sqrt(x) if p == 2 else np.cbrt(x) if p == 3 else np.power(x, 1.0 / p)


@register("Pooling", "_npx_pooling")
def pooling(inputs, attrs):
    layout = attr_str(attrs, "layout")
    if layout not in (None, "None", "NCW", "NCHW", "NCDHW"):
        raise NotImplementedError(f"Pooling layout {layout}")
    data = inputs[0]
    x = _acc(data)
    d = data.ndim - 2
    in_sp = data.shape[2:]
    pool_type = attr_str(attrs, "pool_type", "max")
    convention = attr_str(attrs, "pooling_convention", "valid")
    p = attr_int(attrs, "p_value", 1) if pool_type == "lp" else 1
    count_include_pad = attr_bool(attrs, "count_include_pad", True)
    if attr_bool(attrs, "global_pool", False):
        kernel, stride, pad = in_sp, (1,) * d, (0,) * d
        out_sp = (1,) * d
    else:
        kernel = attr_tuple(attrs, "kernel")
        stride = _spatial(attrs, "stride", d, 1)
        pad = _spatial(attrs, "pad", d, 0)
        out_sp = []
        for i in range(d):
            padded = in_sp[i] + 2 * pad[i]
            if convention == "valid":
                out_sp.append(1 + (padded - kernel[i]) // stride[i])
            elif convention == "full":
                out_sp.append(1 + int(np.ceil((padded - kernel[i]) / stride[i])))
            else:  # same
                out_sp.append(int(np.ceil(padded / stride[i])))
    out = np.zeros(data.shape[:2] + tuple(out_sp), dtype=x.dtype)
    for o in itertools.product(*[range(v) for v in out_sp]):
        start = [o[i] * stride[i] - pad[i] for i in range(d)]
        if pool_type == "max":
            # pool_max_*_cpu: the window clipped to the data, initial value
            # the lowest finite number.
            end = [min(start[i] + kernel[i], in_sp[i]) for i in range(d)]
            start = [max(s, 0) for s in start]
            win = x[(Ellipsis,) + tuple(slice(start[i], end[i]) for i in range(d))]
            lowest = np.finfo(x.dtype).min
            if win.size == 0 or min(win.shape[2:], default=1) == 0:
                out[(Ellipsis,) + o] = lowest
            else:
                out[(Ellipsis,) + o] = np.maximum(win.max(axis=tuple(range(2, 2 + d))), lowest)
            continue
        # pool_sum_*_cpu: avg divides every element by pool_size.
        end = [min(start[i] + kernel[i], in_sp[i] + pad[i]) for i in range(d)]
        pool_size = int(np.prod([end[i] - start[i] for i in range(d)])) if pool_type == "avg" else 1
        start = [max(s, 0) for s in start]
        end = [min(e, in_sp[i]) for i, e in enumerate(end)]
        if pool_type == "avg" and not count_include_pad:
            pool_size = int(np.prod([end[i] - start[i] for i in range(d)]))
        win = x[(Ellipsis,) + tuple(slice(start[i], end[i]) for i in range(d))]
        s = (_pool_pow(win, p) / x.dtype.type(pool_size)).sum(axis=tuple(range(2, 2 + d)))
        out[(Ellipsis,) + o] = _pool_root(s, p)
    return [out.astype(data.dtype)]


@register("BatchNorm", "_npx_batch_norm")
def batch_norm(inputs, attrs):
    # Inference (is_train false): the moving statistics, whatever
    # use_global_stats says; var output is MXNet's saved invstd.
    data, gamma, beta, mmean, mvar = inputs
    x = _acc(data)
    eps = attr_float(attrs, "eps", 1e-3)
    axis = attr_int(attrs, "axis", 1)
    if axis < 0:
        axis += data.ndim
    fix_gamma = attr_bool(attrs, "fix_gamma", True)
    pt = mvar.dtype
    invstd = (1.0 / np.sqrt(mvar.astype(np.float64) + np.float64(pt.type(eps)))).astype(pt)
    shape = [1] * data.ndim
    shape[axis] = data.shape[axis]
    r = lambda v: v.reshape(shape)  # noqa: E731
    y = (x - r(mmean)) * r(invstd)
    if not fix_gamma:
        y = y * r(gamma)
    y = y + r(beta)
    return [y.astype(data.dtype), mmean.copy(), invstd]


@register("LRN")
def lrn(inputs, attrs):
    data = inputs[0]
    x = _acc(data)
    nsize = attr_int(attrs, "nsize")
    if nsize % 2 != 1:
        raise ValueError("chpool: if no pad is specified, local size must be odd")
    alpha = np.float32(attr_float(attrs, "alpha", 1e-4))
    beta = np.float32(attr_float(attrs, "beta", 0.75))
    knorm = np.float32(attr_float(attrs, "knorm", 2.0))
    salpha = np.float32(alpha / np.float32(nsize))
    c = data.shape[1]
    half = nsize // 2
    sq = x * x
    sums = np.zeros_like(x)
    for ch in range(c):
        lo, hi = max(ch - half, 0), min(ch + half + 1, c)
        sums[:, ch] = sq[:, lo:hi].sum(axis=1)
    norm = sums * salpha + knorm
    out = x * np.power(norm, -beta)
    return [out.astype(data.dtype), norm.astype(data.dtype)]


def _norm_ref(x, axes, eps):
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps), mean, var


@register("LayerNorm", "_npx_layer_norm")
def layer_norm(inputs, attrs):
    x, gamma, beta = (_acc(a).astype(np.float64) for a in inputs)
    axis = attr_int(attrs, "axis", -1) % x.ndim
    eps = attr_float(attrs, "eps", 1e-5)
    xhat, mean, var = _norm_ref(x, (axis,), eps)
    shape = [1] * x.ndim
    shape[axis] = -1
    out = xhat * gamma.reshape(shape) + beta.reshape(shape)
    dt = inputs[0].dtype
    return [out.astype(dt), mean.astype(dt), np.sqrt(var + eps).astype(dt)]


@register("InstanceNorm")
def instance_norm(inputs, attrs):
    x, gamma, beta = (_acc(a).astype(np.float64) for a in inputs)
    eps = attr_float(attrs, "eps", 1e-3)
    xhat, mean, var = _norm_ref(x, tuple(range(2, x.ndim)), eps)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    out = xhat * gamma.reshape(shape) + beta.reshape(shape)
    dt = inputs[0].dtype
    nc = x.shape[:2]
    return [out.astype(dt), mean.reshape(nc).astype(dt), var.reshape(nc).astype(dt)]


@register("GroupNorm")
def group_norm(inputs, attrs):
    x, gamma, beta = (_acc(a).astype(np.float64) for a in inputs)
    groups = attr_int(attrs, "num_groups", 1)
    eps = attr_float(attrs, "eps", 1e-5)
    xg = x.reshape(x.shape[0], groups, -1)
    xhat, mean, var = _norm_ref(xg, (2,), eps)
    out = (xhat * gamma.reshape(1, -1, 1) + beta.reshape(1, -1, 1)).reshape(x.shape)
    dt = inputs[0].dtype
    ng = (x.shape[0], groups)
    return [out.astype(dt), mean.reshape(ng).astype(dt), np.sqrt(var + eps).reshape(ng).astype(dt)]


@register("L2Normalization")
def l2_normalization(inputs, attrs):
    x = _acc(inputs[0]).astype(np.float64)
    eps = attr_float(attrs, "eps", 1e-10)
    mode = attr_str(attrs, "mode", "instance")
    if mode == "instance":
        norm = np.sqrt((x.reshape(x.shape[0], -1) ** 2).sum(axis=1) + eps)
        out = x / norm.reshape((-1,) + (1,) * (x.ndim - 1))
    elif mode == "channel":
        norm = np.sqrt((x ** 2).sum(axis=1, keepdims=True) + eps)
        out = x / norm
    else:
        norm = np.sqrt((x ** 2).sum(axis=tuple(range(2, x.ndim))) + eps)
        out = x / norm.reshape(norm.shape + (1,) * (x.ndim - 2))
    dt = inputs[0].dtype
    return [out.astype(dt), norm.astype(dt)]



@register("UpSampling")
def upsampling(inputs, attrs):
    """nearest: each NCHW input repeated to the first's size times `scale`,
    joined along the channels (concat) or summed; bilinear: MXNet's
    grouped Deconvolution (kernel 2s - s % 2, stride s, pad ceil((s-1)/2))."""
    s = attr_int(attrs, "scale")
    if attr_str(attrs, "sample_type", "nearest") == "bilinear":
        x, w = inputs
        k, p = 2 * s - s % 2, (s - 1 + 1) // 2
        n, c, h, wd = x.shape
        full = np.zeros((n, c, (h - 1) * s + k, (wd - 1) * s + k), x.dtype)
        for i in range(h):
            for j in range(wd):
                full[:, :, i * s:i * s + k, j * s:j * s + k] += \
                    x[:, :, i:i + 1, j:j + 1] * w[None, :, 0]
        return [full[:, :, p:p + h * s, p:p + wd * s]]
    oh, ow = inputs[0].shape[2] * s, inputs[0].shape[3] * s
    parts = [np.repeat(np.repeat(x, oh // x.shape[2], axis=2), ow // x.shape[3], axis=3)
             for x in inputs]
    if attr_str(attrs, "multi_input_mode", "concat") == "sum":
        return [np.sum(parts, axis=0)]
    return [np.concatenate(parts, axis=1)]


@register("RNN")
def rnn(inputs, attrs):
    """MXNet's fused RNN (src/operator/rnn_impl.h), step by step in numpy:
    `parameters` holds every (layer, direction)'s input then recurrent
    weights, then all the biases in that order; lstm gates i, f, g, o; gru
    r, z, n with n = tanh(x_n + r * (h_n + b_hn)). Results: output, the last
    hidden states, for lstm the last cell states (all of them, whatever
    state_outputs says)."""
    x, params, h0 = inputs[0], inputs[1], inputs[2]
    mode = attr_str(attrs, "mode")
    lstm = mode == "lstm"
    c0 = inputs[3] if lstm else None
    H, L = attr_int(attrs, "state_size"), attr_int(attrs, "num_layers")
    D = 2 if attr_bool(attrs, "bidirectional") else 1
    G = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}[mode]
    T, N, _ = x.shape
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    off = 0

    def take(n, shape):
        nonlocal off
        v = params[off:off + n].reshape(shape)
        off += n
        return v

    weights = []
    size = x.shape[2]
    for _ in range(L):
        for _ in range(D):
            weights.append((take(G * H * size, (G * H, size)), take(G * H * H, (G * H, H))))
        size = D * H
    biases = [(take(G * H, (G * H,)), take(G * H, (G * H,))) for _ in range(L * D)]
    layer_in, hs, cs = x, [], []
    for l in range(L):
        outs = []
        for d in range(D):
            k = l * D + d
            (wx, wh), (bx, bh) = weights[k], biases[k]
            h, c = h0[k], (c0[k] if lstm else None)
            y = np.zeros((T, N, H), x.dtype)
            for i in range(T):
                t = T - 1 - i if d else i
                gx = layer_in[t] @ wx.T + bx
                gh = h @ wh.T + bh
                if lstm:
                    s = gx + gh
                    ig, fg = sig(s[:, :H]), sig(s[:, H:2 * H])
                    gg, og = np.tanh(s[:, 2 * H:3 * H]), sig(s[:, 3 * H:])
                    c = fg * c + ig * gg
                    h = og * np.tanh(c)
                elif mode == "gru":
                    r = sig(gx[:, :H] + gh[:, :H])
                    z = sig(gx[:, H:2 * H] + gh[:, H:2 * H])
                    n = np.tanh(gx[:, 2 * H:] + r * gh[:, 2 * H:])
                    h = (1 - z) * n + z * h
                else:
                    s = gx + gh
                    h = np.tanh(s) if mode == "rnn_tanh" else np.maximum(s, 0)
                y[t] = h
            outs.append(y)
            hs.append(h)
            cs.append(c)
        layer_in = np.concatenate(outs, axis=2)
    res = [layer_in.astype(x.dtype), np.stack(hs).astype(x.dtype)]
    if lstm:
        res.append(np.stack(cs).astype(x.dtype))
    return res


@register("CTCLoss", "ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss")
def ctc_loss(inputs, attrs):
    """MXNet's CTCLoss (src/operator/nn/ctc_loss-inl.h): softmax over the
    classes, the alpha recursion of Graves et al. per sequence in float64
    with explicit sums (no logs of the recursion), the label ending at its
    first padding value (0 with blank 'first', -1 with 'last') unless
    label_lengths is given."""
    data, label = np.asarray(inputs[0], np.float64), np.asarray(inputs[1])
    k = 2
    dlen = llen = None
    if attr_bool(attrs, "use_data_lengths"):
        dlen = np.asarray(inputs[k]).astype(int)
        k += 1
    if attr_bool(attrs, "use_label_lengths"):
        llen = np.asarray(inputs[k]).astype(int)
    T, N, A = data.shape
    first = attr_str(attrs, "blank_label", "first") == "first"
    blank, pad = (0, 0) if first else (A - 1, -1)
    e = np.exp(data - data.max(axis=2, keepdims=True))
    prob = e / e.sum(axis=2, keepdims=True)
    out = np.zeros(N)
    for n in range(N):
        row = [int(v) for v in label[n]]
        L = llen[n] if llen is not None else (row.index(pad) if pad in row else len(row))
        ext = [blank]
        for c in row[:L]:
            ext += [c, blank]
        S, Tn = len(ext), (dlen[n] if dlen is not None else T)
        alpha = np.zeros(S)
        alpha[0] = prob[0, n, ext[0]]
        if S > 1:
            alpha[1] = prob[0, n, ext[1]]
        for t in range(1, Tn):
            new = np.zeros(S)
            for s in range(S):
                a = alpha[s] + (alpha[s - 1] if s >= 1 else 0.0)
                if s >= 2 and ext[s] != blank and ext[s] != ext[s - 2]:
                    a += alpha[s - 2]
                new[s] = a * prob[t, n, ext[s]]
            alpha = new
        out[n] = -np.log(alpha[S - 1] + (alpha[S - 2] if S > 1 else 0.0))
    return [out.astype(inputs[0].dtype)]


def _sequence_args(inputs, attrs):
    data = np.asarray(inputs[0])
    axis = attr_int(attrs, "axis", 0)
    steps, batch = data.shape[axis], data.shape[1 - axis]
    if attr_bool(attrs, "use_sequence_length"):
        lengths = np.asarray(inputs[1]).astype(int)
    else:
        lengths = np.full(batch, steps)
    return data, axis, steps, lengths


@register("SequenceMask")
def sequence_mask(inputs, attrs):
    """MXNet's SequenceMask (src/operator/sequence_mask-inl.h): steps at or
    past sequence_length[n] set to `value`, by explicit loops."""
    data, axis, steps, lengths = _sequence_args(inputs, attrs)
    out = data.copy()
    value = attr_float(attrs, "value", 0.0)
    for n, length in enumerate(lengths):
        for t in range(max(length, 0), steps):
            if axis == 0:
                out[t, n] = value
            else:
                out[n, t] = value
    return [out]


@register("SequenceReverse")
def sequence_reverse(inputs, attrs):
    """MXNet's SequenceReverse (src/operator/sequence_reverse-inl.h, axis 0
    only): the first sequence_length[n] steps of sequence n reversed, the
    rest copied, by explicit loops."""
    data, axis, steps, lengths = _sequence_args(inputs, attrs)
    assert axis == 0
    out = data.copy()
    for n, length in enumerate(lengths):
        length = min(max(length, 0), steps)
        for t in range(length):
            out[t, n] = data[length - 1 - t, n]
    return [out]


@register("SequenceLast")
def sequence_last(inputs, attrs):
    """MXNet's SequenceLast (src/operator/sequence_last-inl.h): step
    sequence_length[n] - 1 of each sequence (mxc clips it into [0, T - 1])."""
    data, axis, steps, lengths = _sequence_args(inputs, attrs)
    rows = []
    for n, length in enumerate(lengths):
        t = min(max(length - 1, 0), steps - 1)
        rows.append(data[t, n] if axis == 0 else data[n, t])
    return [np.stack(rows).astype(data.dtype)]


@register("_contrib_AdaptiveAvgPooling2D")
def adaptive_avg_pooling2d(inputs, attrs):
    """MXNet's contrib.AdaptiveAvgPooling2D (adaptive_avg_pooling.cc): the
    mean of rows [floor(i H / OH), ceil((i + 1) H / OH)) x the columns
    likewise, by explicit loops over the windows."""
    (x,) = inputs
    size = attr_tuple(attrs, "output_size")
    oh, ow = (size * 2)[:2] if len(size) in (1, 2) else (1, 1)
    n, c, h, w = x.shape
    out = np.zeros((n, c, oh, ow), x.dtype)
    for i in range(oh):
        r0, r1 = (i * h) // oh, -((-(i + 1) * h) // oh)
        for j in range(ow):
            c0, c1 = (j * w) // ow, -((-(j + 1) * w) // ow)
            out[:, :, i, j] = x[:, :, r0:r1, c0:c1].mean(axis=(2, 3))
    return [out]


@register("_contrib_BilinearResize2D")
def bilinear_resize2d(inputs, attrs):
    """MXNet's contrib.BilinearResize2D (bilinear_resize.cc, CPU kernel):
    each output pixel from its four source pixels, per pixel, in float64
    (the output size: mode size / like only, the cases the tests use)."""
    x = inputs[0].astype(np.float64)
    n, c, h, w = x.shape
    if attr_str(attrs, "mode", "size") == "like":
        oh, ow = inputs[1].shape[2:]
    elif attr_float(attrs, "scale_height") is not None:
        oh = int(np.float32(attr_float(attrs, "scale_height")) * np.float32(h))
        ow = int(np.float32(attr_float(attrs, "scale_width")) * np.float32(w))
    else:
        oh, ow = attr_int(attrs, "height", 1), attr_int(attrs, "width", 1)
    align = attr_bool(attrs, "align_corners", True)

    def taps(o, i):
        scale = ((i - 1) / (o - 1) if align else i / o) if o > 1 else 0.0
        out = []
        for k in range(o):
            src = scale * k if align else max(scale * (k + 0.5) - 0.5, 0.0)
            lo = int(src)
            hi = lo + 1 if lo < i - 1 else lo
            out.append((lo, hi, src - lo))
        return out
    y = np.zeros((n, c, oh, ow))
    for a, (h0, h1, lh) in enumerate(taps(oh, h)):
        for b, (w0, w1, lw) in enumerate(taps(ow, w)):
            y[:, :, a, b] = ((1 - lh) * ((1 - lw) * x[:, :, h0, w0] + lw * x[:, :, h0, w1]) +
                             lh * ((1 - lw) * x[:, :, h1, w0] + lw * x[:, :, h1, w1]))
    return [y.astype(inputs[0].dtype)]


def _box_corners(b, center):
    if not center:
        return b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return (b[..., 0] - b[..., 2] / 2, b[..., 1] - b[..., 3] / 2,
            b[..., 0] + b[..., 2] / 2, b[..., 1] + b[..., 3] / 2)


@register("_contrib_box_iou")
def box_iou(inputs, attrs):
    """MXNet's contrib.box_iou (bounding_box-inl.h compute_overlap), by
    explicit loops over the pairs."""
    lhs, rhs = inputs
    center = attr_str(attrs, "format", "corner") == "center"
    a = lhs.reshape(-1, 4).astype(np.float64)
    b = rhs.reshape(-1, 4).astype(np.float64)
    out = np.zeros((len(a), len(b)))

    def area(box):
        w, h = (box[2], box[3]) if center else (box[2] - box[0], box[3] - box[1])
        return 0.0 if w < 0 or h < 0 else w * h
    for i, p in enumerate(a):
        pl, pt, pr, pb = _box_corners(p, center)
        for j, q in enumerate(b):
            ql, qt, qr, qb = _box_corners(q, center)
            inter = max(min(pr, qr) - max(pl, ql), 0) * max(min(pb, qb) - max(pt, qt), 0)
            if inter > 0:
                out[i, j] = inter / (area(p) + area(q) - inter)
    return [out.reshape(lhs.shape[:-1] + rhs.shape[:-1]).astype(lhs.dtype)]


@register("_contrib_box_decode")
def box_decode(inputs, attrs):
    """MXNet's contrib.box_decode (bounding_box-inl.h box_decode)."""
    x, anchors = (v.astype(np.float64) for v in inputs)
    std = [attr_float(attrs, "std%d" % k, 1.0) for k in range(4)]
    clip = attr_float(attrs, "clip", -1.0)
    a = anchors[0]
    if attr_str(attrs, "format", "center") == "corner":
        w, h = a[:, 2] - a[:, 0], a[:, 3] - a[:, 1]
        a = np.stack([a[:, 0] + w / 2, a[:, 1] + h / 2, w, h], axis=-1)
    ox = x[..., 0] * std[0] * a[:, 2] + a[:, 0]
    oy = x[..., 1] * std[1] * a[:, 3] + a[:, 1]
    dw, dh = x[..., 2] * std[2], x[..., 3] * std[3]
    if clip > 0:
        dw, dh = np.minimum(dw, clip), np.minimum(dh, clip)
    ow, oh = np.exp(dw) * a[:, 2] / 2, np.exp(dh) * a[:, 3] / 2
    return [np.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1).astype(inputs[0].dtype)]


@register("_contrib_box_encode")
def box_encode(inputs, attrs):
    """MXNet's contrib.box_encode (bounding_box-inl.h box_encode), by loops."""
    samples, matches, anchors, refs, means, stds = (v.astype(np.float64) for v in inputs)
    t = np.zeros(anchors.shape)
    mask = np.zeros(anchors.shape)

    def center(b):
        w, h = b[2] - b[0], b[3] - b[1]
        return b[0] + w / 2, b[1] + h / 2, w, h
    for j in range(anchors.shape[0]):
        for i in range(anchors.shape[1]):
            if samples[j, i] <= 0.5:
                continue
            rx, ry, rw, rh = center(refs[j, int(matches[j, i])])
            ax, ay, aw, ah = center(anchors[j, i])
            mask[j, i] = 1
            t[j, i] = [((rx - ax) / aw - means[0]) / stds[0], ((ry - ay) / ah - means[1]) / stds[1],
                       (np.log(rw / aw) - means[2]) / stds[2],
                       (np.log(rh / ah) - means[3]) / stds[3]]
    dt = inputs[2].dtype
    return [t.astype(dt), mask.astype(dt)]


@register("_contrib_gradientmultiplier")
def gradient_multiplier(inputs, attrs):
    """Forward: the identity."""
    return [inputs[0].copy()]


@register("_contrib_MultiBoxPrior", "_npx_multibox_prior")
def multibox_prior(inputs, attrs):
    """MXNet's contrib.MultiBoxPrior (multibox_prior.cc), by loops in
    float32 as its kernel."""
    import ast
    f32 = np.float32

    def floats(key, default):
        v = attrs.get(key)
        return [f32(t) for t in (ast.literal_eval(v) if v not in (None, "None") else default)]
    sizes, ratios = floats("sizes", (1.0,)), floats("ratios", (1.0,))
    steps, offsets = floats("steps", (-1.0, -1.0)), floats("offsets", (0.5, 0.5))
    _, _, h, w = inputs[0].shape
    if steps[0] <= 0 or steps[1] <= 0:
        steps = [f32(1) / f32(h), f32(1) / f32(w)]
    shapes = [(s, np.sqrt(ratios[0])) for s in sizes] + \
        [(sizes[0], np.sqrt(r)) for r in ratios[1:]]
    out = []
    for r in range(h):
        cy = (f32(r) + offsets[0]) * steps[0]
        for c in range(w):
            cx = (f32(c) + offsets[1]) * steps[1]
            for size, ratio in shapes:
                hw = size * f32(h) / f32(w) * ratio / f32(2)
                hh = size / ratio / f32(2)
                out.append([cx - hw, cy - hh, cx + hw, cy + hh])
    out = np.array(out, np.float32).reshape(1, -1, 4)
    if attr_bool(attrs, "clip", False):
        out = np.clip(out, 0, 1)
    return [out.astype(inputs[0].dtype)]


@register("ROIPooling")
def roi_pooling(inputs, attrs):
    """MXNet's ROIPooling (roi_pooling.cc ROIPoolForward), by its loops:
    the output and the hidden maxidx."""
    import math
    data, rois = inputs
    ph, pw = attr_tuple(attrs, "pooled_size")
    scale = attr_float(attrs, "spatial_scale")
    n, c, h, w = data.shape
    out = np.zeros((len(rois), c, ph, pw), data.dtype)
    idx = np.full((len(rois), c, ph, pw), -1, np.int32)

    def rnd(v):  # std::round: half away from zero
        return int(math.floor(abs(v) + 0.5)) * (1 if v >= 0 else -1)
    for r, roi in enumerate(rois):
        b = int(roi[0])
        x1, y1, x2, y2 = (rnd(float(v) * scale) for v in roi[1:])
        rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        bh, bw = np.float32(rh) / np.float32(ph), np.float32(rw) / np.float32(pw)
        if b < 0 or b >= n:
            continue
        for i in range(ph):
            hs = min(max(int(math.floor(np.float32(i) * bh)) + y1, 0), h)
            he = min(max(int(math.ceil(np.float32(i + 1) * bh)) + y1, 0), h)
            for j in range(pw):
                ws = min(max(int(math.floor(np.float32(j) * bw)) + x1, 0), w)
                we = min(max(int(math.ceil(np.float32(j + 1) * bw)) + x1, 0), w)
                if he <= hs or we <= ws:
                    continue
                win = data[b, :, hs:he, ws:we].reshape(c, -1)
                k = win.argmax(axis=1)
                out[r, :, i, j] = win.max(axis=1)
                idx[r, :, i, j] = (b * c * h * w + np.arange(c) * h * w +
                                   (hs + k // (we - ws)) * w + ws + k % (we - ws))
    return [out, idx]


def _bilinear_clamped(plane, y, x, T):
    """The bilinear read of MXNet's roi_align.cc bilinear_interpolate and
    deformable_im2col.h im2col_bilinear_cpu (after their range checks): a
    coordinate at or past the last row / column reads that row / column."""
    import math
    h, w = plane.shape
    yl, xl = int(math.floor(y)), int(math.floor(x))
    if yl >= h - 1:
        yh = yl = h - 1
        y = T(yl)
    else:
        yh = yl + 1
    if xl >= w - 1:
        xh = xl = w - 1
        x = T(xl)
    else:
        xh = xl + 1
    ly, lx = y - T(yl), x - T(xl)
    hy, hx = T(1) - ly, T(1) - lx
    return (hy * hx * plane[yl, xl] + hy * lx * plane[yl, xh] + ly * hx * plane[yh, xl] +
            ly * lx * plane[yh, xh])


@register("_contrib_ROIAlign")
def contrib_roi_align(inputs, attrs):
    """MXNet's ROIAlign (contrib/roi_align.cc ROIAlignForward and
    bilinear_interpolate), by its loops, in the data's precision."""
    import math
    data, rois = inputs
    T = data.dtype.type
    ph, pw = attr_tuple(attrs, "pooled_size")
    scale = T(attr_float(attrs, "spatial_scale"))
    ratio = attr_int(attrs, "sample_ratio", -1)
    ps = attr_bool(attrs, "position_sensitive", False)
    aligned = attr_bool(attrs, "aligned", False)
    n, c, h, w = data.shape
    cout = c // (ph * pw) if ps else c
    out = np.zeros((len(rois), cout, ph, pw), data.dtype)

    def interp(plane, y, x):
        if y < -1.0 or y > h or x < -1.0 or x > w:
            return T(0)
        return _bilinear_clamped(plane, max(y, T(0)), max(x, T(0)), T)
    off = T(0.5) if aligned else T(0)
    for r, roi in enumerate(rois):
        b = int(roi[0])
        if b < 0:
            continue
        sw, sh, ew, eh = (T(v) * scale - off for v in roi[1:])
        rw, rh = ew - sw, eh - sh
        if not aligned:
            rw, rh = max(rw, T(1)), max(rh, T(1))
        bh, bw = rh / T(ph), rw / T(pw)
        # (an adaptive grid of at least one sample, as mxc: MXNet's is 0 for an
        # inverted region with aligned, and then divides by 0)
        gh = ratio if ratio > 0 else max(int(math.ceil(rh / T(ph))), 1)
        gw = ratio if ratio > 0 else max(int(math.ceil(rw / T(pw))), 1)
        count = T(max(gh * gw, 1))
        for cc in range(cout):
            for i in range(ph):
                for j in range(pw):
                    cin = cc * ph * pw + i * pw + j if ps else cc
                    acc = T(0)
                    for iy in range(gh):
                        y = sh + T(i) * bh + (T(iy) + T(0.5)) * bh / T(gh)
                        for ix in range(gw):
                            x = sw + T(j) * bw + (T(ix) + T(0.5)) * bw / T(gw)
                            acc += interp(data[b, cin], y, x)
                    out[r, cc, i, j] = acc / count
    return [out]


def _deformable(inputs, attrs, modulated):
    """MXNet's deformable convolutions by their CPU kernels' loops
    (deformable_im2col_cpu / im2col_bilinear_cpu; modulated_deformable_im2col
    and dmcn_im2col_bilinear_cpu), then the grouped GEMM and the bias."""
    import math
    data, offset = inputs[0], inputs[1]
    mask = inputs[2] if modulated else None
    weight = inputs[3 if modulated else 2]
    no_bias = attr_bool(attrs, "no_bias", False)
    bias = None if no_bias else inputs[4 if modulated else 3]
    kh, kw = attr_tuple(attrs, "kernel")
    sh, sw = attr_tuple(attrs, "stride", ()) or (1, 1)
    dh, dw = attr_tuple(attrs, "dilate", ()) or (1, 1)
    ph, pw = attr_tuple(attrs, "pad", ()) or (0, 0)
    f, groups = attr_int(attrs, "num_filter"), attr_int(attrs, "num_group", 1)
    dg = attr_int(attrs, "num_deformable_group", 1)
    n, c, h, w = data.shape
    ho = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    wo = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    T = data.dtype.type
    cols = np.zeros((n, c, kh * kw, ho, wo), data.dtype)

    def corner(plane, y, x):
        if modulated:
            yl, xl = math.floor(y), math.floor(x)
            yh, xh = yl + 1, xl + 1
            ly, lx = y - T(yl), x - T(xl)
            v = lambda r, q, ok: plane[r, q] if ok else T(0)
            return ((T(1) - ly) * (T(1) - lx) * v(yl, xl, yl >= 0 and xl >= 0) +
                    (T(1) - ly) * lx * v(yl, xh, yl >= 0 and xh <= w - 1) +
                    ly * (T(1) - lx) * v(yh, xl, yh <= h - 1 and xl >= 0) +
                    ly * lx * v(yh, xh, yh <= h - 1 and xh <= w - 1))
        return _bilinear_clamped(plane, y, x, T)
    for b in range(n):
        for ch in range(c):
            g = ch // (c // dg)
            for i in range(kh):
                for j in range(kw):
                    k = i * kw + j
                    for oy in range(ho):
                        for ox in range(wo):
                            y = T(oy * sh - ph + i * dh) + offset[b, g * 2 * kh * kw + 2 * k, oy, ox]
                            x = T(ox * sw - pw + j * dw) + offset[b, g * 2 * kh * kw + 2 * k + 1, oy, ox]
                            inside = (-1 < y < h and -1 < x < w) if modulated else \
                                (0 <= y < h and 0 <= x < w)
                            v = corner(data[b, ch], y, x) if inside else T(0)
                            if modulated:
                                v = v * mask[b, g * kh * kw + k, oy, ox]
                            cols[b, ch, k, oy, ox] = v
    out = np.zeros((n, f, ho, wo), data.dtype)
    cp, fp = c // groups, f // groups
    for gi in range(groups):
        wm = weight[gi * fp:(gi + 1) * fp].reshape(fp, cp * kh * kw)
        cm = cols[:, gi * cp:(gi + 1) * cp].reshape(n, cp * kh * kw, ho * wo)
        out[:, gi * fp:(gi + 1) * fp] = np.einsum("fk,nkl->nfl", wm, cm).reshape(n, fp, ho, wo)
    if bias is not None:
        out += bias.reshape(1, f, 1, 1)
    return [out]


@register("_contrib_DeformableConvolution")
def contrib_deformable_convolution(inputs, attrs):
    return _deformable(inputs, attrs, False)


@register("_contrib_ModulatedDeformableConvolution")
def contrib_modulated_deformable_convolution(inputs, attrs):
    return _deformable(inputs, attrs, True)


@register("_contrib_RROIAlign")
def contrib_rroi_align(inputs, attrs):
    """MXNet's RROIAlign (contrib/rroi_align.cc RROIAlignForward and
    pre_calc_for_bilinear_interpolate), by its loops, in the data's
    precision; a batch index outside [0, N) gives 0 (mxc's rule)."""
    import math
    data, rois = inputs
    T = data.dtype.type
    ph, pw = attr_tuple(attrs, "pooled_size")
    scale = T(np.float32(attr_float(attrs, "spatial_scale")))
    ratio = attr_int(attrs, "sampling_ratio", -1)
    n, c, h, w = data.shape
    out = np.zeros((len(rois), c, ph, pw), data.dtype)
    for r, roi in enumerate(rois):
        if not np.all(np.isfinite(roi)) or not (-1 < roi[0] < n):
            continue
        b = int(roi[0])
        cw, chh, rw, rh = (T(v) * scale for v in roi[1:5])
        theta = T(roi[5] * np.pi / 180.0)
        rw, rh = max(rw, T(1)), max(rh, T(1))
        sh, sw = T(-rh / 2.0), T(-rw / 2.0)
        bh, bw = rh / T(ph), rw / T(pw)
        gh = ratio if ratio > 0 else int(math.ceil(rh / T(ph)))
        gw = ratio if ratio > 0 else int(math.ceil(rw / T(pw)))
        cos_t, sin_t = T(np.cos(theta)), T(np.sin(theta))
        for y in range(ph):
            for x in range(pw):
                val = np.zeros(c, data.dtype)
                for iy in range(gh):
                    yy = sh + T(y) * bh + T(iy + 0.5) * bh / T(gh)
                    for ix in range(gw):
                        xx = sw + T(x) * bw + T(ix + 0.5) * bw / T(gw)
                        px = xx * cos_t + yy * sin_t + cw
                        py = yy * cos_t - xx * sin_t + chh
                        if py < -1.0 or py > h or px < -1.0 or px > w:
                            continue
                        for ci in range(c):
                            val[ci] += _bilinear_clamped(data[b, ci], max(py, T(0)),
                                                         max(px, T(0)), T)
                out[r, :, y, x] = val / T(gh * gw)
    return [out]


def _proposal_anchors(stride, ratios, scales):
    """MXNet's GenerateAnchors (proposal-inl.h), in float32."""
    f = np.float32
    out = []
    for ratio in ratios:
        for scale in scales:
            ratio, scale = f(ratio), f(scale)
            w = h = f(stride - 1.0) + f(1)
            ctr = f(f(0) + 0.5 * (w - f(1)))
            size_ratios = np.floor(w * h / ratio)
            nw = f(np.floor(np.sqrt(size_ratios) + f(0.5)) * scale)
            nh = f(np.floor(nw / scale * ratio + f(0.5)) * scale)
            out.append([ctr - f(0.5) * (nw - f(1)), ctr - f(0.5) * (nh - f(1)),
                        ctr + f(0.5) * (nw - f(1)), ctr + f(0.5) * (nh - f(1))])
    return np.array(out, np.float32)


@register("_contrib_MultiProposal", "_contrib_Proposal")
def contrib_multi_proposal(inputs, attrs):
    """MXNet's MultiProposal (contrib/multi_proposal.cc Forward: anchors,
    BBoxTransformInv / IoUTransformInv, FilterBox, a stable sort, greedy
    NMS, the kept rows repeated) in float32; Proposal is the same for one
    image. Returns [rois, scores]."""
    cls_prob, bbox_pred, im_info = (x.astype(np.float32) for x in inputs)
    f = np.float32
    ratios = ast.literal_eval(attr_str(attrs, "ratios", "(0.5, 1.0, 2.0)"))
    scales = ast.literal_eval(attr_str(attrs, "scales", "(4.0, 8.0, 16.0, 32.0)"))
    ratios = ratios if isinstance(ratios, tuple) else (ratios,)
    scales = scales if isinstance(scales, tuple) else (scales,)
    stride = attr_int(attrs, "feature_stride", 16)
    pre_n = attr_int(attrs, "rpn_pre_nms_top_n", 6000)
    post_n = attr_int(attrs, "rpn_post_nms_top_n", 300)
    thresh = f(attr_float(attrs, "threshold", 0.7))
    min_size = attr_int(attrs, "rpn_min_size", 16)
    iou_loss = attr_bool(attrs, "iou_loss", False)
    nb, a2, hh, ww = cls_prob.shape
    na = a2 // 2
    count = na * hh * ww
    pre = min(pre_n if pre_n > 0 else count, count)
    post = min(post_n, pre)
    base = _proposal_anchors(stride, ratios, scales)
    # (h, w, a) order
    jj, kk, ii = np.meshgrid(np.arange(hh), np.arange(ww), np.arange(na), indexing="ij")
    jj, kk, ii = jj.ravel(), kk.ravel(), ii.ravel()
    shift = np.stack([kk, jj, kk, jj], 1).astype(np.float32) * f(stride)
    anchors = base[ii] + shift
    rois = np.zeros((nb * post_n, 5), np.float32)
    scores = np.zeros((nb * post_n, 1), np.float32)
    for b in range(nb):
        boxes = anchors.copy()
        score = cls_prob[b, na + ii, jj, kk].copy()
        d = bbox_pred[b].reshape(na, 4, hh, ww)[ii, :, jj, kk]
        if iou_loss:
            x1, y1, x2, y2 = (boxes[:, i] + d[:, i] for i in range(4))
        else:
            width = (boxes[:, 2] - boxes[:, 0] + 1.0).astype(f)
            height = (boxes[:, 3] - boxes[:, 1] + 1.0).astype(f)
            cx = (boxes[:, 0] + 0.5 * (width - 1.0)).astype(f)
            cy = (boxes[:, 1] + 0.5 * (height - 1.0)).astype(f)
            pcx, pcy = d[:, 0] * width + cx, d[:, 1] * height + cy
            pw_, ph_ = np.exp(d[:, 2]) * width, np.exp(d[:, 3]) * height
            x1 = (pcx - 0.5 * (pw_ - 1.0)).astype(f)
            y1 = (pcy - 0.5 * (ph_ - 1.0)).astype(f)
            x2 = (pcx + 0.5 * (pw_ - 1.0)).astype(f)
            y2 = (pcy + 0.5 * (ph_ - 1.0)).astype(f)
        imh, imw = im_info[b, 0], im_info[b, 1]
        boxes = np.stack([np.clip(x1, 0, imw - f(1)), np.clip(y1, 0, imh - f(1)),
                          np.clip(x2, 0, imw - f(1)), np.clip(y2, 0, imh - f(1))], 1).astype(f)
        rh, rw = int(im_info[b, 0] / f(stride)), int(im_info[b, 1] / f(stride))
        score[(jj >= rh) | (kk >= rw)] = -1
        ms = f(min_size * im_info[b, 2])
        small = ((boxes[:, 2] - boxes[:, 0] + f(1)) < ms) | ((boxes[:, 3] - boxes[:, 1] + f(1)) < ms)
        boxes[small, :2] -= ms / f(2)
        boxes[small, 2:] += ms / f(2)
        score[small] = -1
        order = np.argsort(-score, kind="stable")[:pre]
        dets, dsc = boxes[order], score[order]
        area = (dets[:, 2] - dets[:, 0] + f(1)) * (dets[:, 3] - dets[:, 1] + f(1))
        suppressed = np.zeros(pre, bool)
        keep = []
        for i in range(pre):
            if len(keep) >= post:
                break
            if suppressed[i]:
                continue
            keep.append(i)
            xx1 = np.maximum(dets[i, 0], dets[i + 1:, 0])
            yy1 = np.maximum(dets[i, 1], dets[i + 1:, 1])
            xx2 = np.minimum(dets[i, 2], dets[i + 1:, 2])
            yy2 = np.minimum(dets[i, 3], dets[i + 1:, 3])
            inter = np.maximum(f(0), xx2 - xx1 + f(1)) * np.maximum(f(0), yy2 - yy1 + f(1))
            ovr = inter / (area[i] + area[i + 1:] - inter)
            suppressed[i + 1:] |= ovr > thresh
        for i in range(post_n):
            k = keep[i % len(keep)]
            rois[b * post_n + i] = [b, *dets[k]]
            scores[b * post_n + i, 0] = dsc[k]
    return [rois, scores]


def _float_tuple(attrs, key, default):
    v = ast.literal_eval(attr_str(attrs, key, default))
    return tuple(float(e) for e in (v if isinstance(v, (tuple, list)) else (v,)))


@register("_image_to_tensor")
def image_to_tensor(inputs, attrs):
    """MXNet's ToTensor (image_random-inl.h): HWC -> CHW, / 255.0f."""
    x = inputs[0]
    x = x.transpose((2, 0, 1) if x.ndim == 3 else (0, 3, 1, 2))
    x = x if x.dtype == np.float64 else x.astype(np.float32)
    return [(x / x.dtype.type(255.0)).astype(np.float32)]


@register("_image_normalize")
def image_normalize(inputs, attrs):
    """MXNet's Normalize: (x - mean[c]) / std[c] in the data's type."""
    x = inputs[0]
    T = x.dtype.type
    mean = _float_tuple(attrs, "mean", "(0.0, 0.0, 0.0, 0.0)")
    std = _float_tuple(attrs, "std", "(1.0, 1.0, 1.0, 1.0)")
    axis = 0 if x.ndim == 3 else 1
    out = np.empty_like(x)
    for c in range(x.shape[axis]):
        m = T(np.float32(mean[0 if len(mean) == 1 else c]))
        sd = T(np.float32(std[0 if len(std) == 1 else c]))
        idx = (slice(None),) * axis + (c,)
        out[idx] = (x[idx] - m) / sd
    return [out]


@register("_image_flip_left_right")
def image_flip_left_right(inputs, attrs):
    return [inputs[0][:, ::-1].copy()]


@register("_image_flip_top_bottom")
def image_flip_top_bottom(inputs, attrs):
    return [inputs[0][::-1].copy()]


@register("_image_crop")
def image_crop(inputs, attrs):
    x = inputs[0]
    x0, y0 = attr_int(attrs, "x"), attr_int(attrs, "y")
    w, h = attr_int(attrs, "width"), attr_int(attrs, "height")
    return [x[..., y0:y0 + h, x0:x0 + w, :].copy()]


@register("_image_adjust_lighting")
def image_adjust_lighting(inputs, attrs):
    """MXNet's AdjustLightingImpl: + eig . alpha per RGB channel in float32,
    uint8 clamped to [0, 255] (saturate_cast)."""
    x = inputs[0]
    if x.shape[2] == 1:
        return [x.copy()]
    f = np.float32
    eig = np.array([[55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
                    [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
                    [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203]]).astype(f)
    a = np.array(_float_tuple(attrs, "alpha", "()"), f)
    pca = [f(f(eig[i, 0] * a[0]) + f(eig[i, 1] * a[1])) + f(eig[i, 2] * a[2]) for i in range(3)]
    out = x.astype(f) + np.array(pca, f)
    if x.dtype == np.uint8:
        out = np.clip(out, 0, 255)
    return [out.astype(x.dtype)]


@register("_contrib_PSROIPooling")
def contrib_psroi_pooling(inputs, attrs):
    """MXNet's PSROIPooling (contrib/psroi_pooling.cc PSROIPoolForwardCPU),
    by its loops."""
    import math
    data, rois = inputs
    T = data.dtype.type
    scale = T(attr_float(attrs, "spatial_scale"))
    dim, p = attr_int(attrs, "output_dim"), attr_int(attrs, "pooled_size")
    group = attr_int(attrs, "group_size", 0) or p
    n, c, h, w = data.shape
    out = np.zeros((len(rois), dim, p, p), data.dtype)

    def rnd(v):  # round(): half away from zero
        return math.floor(abs(v) + 0.5) * (1 if v >= 0 else -1)
    for r, roi in enumerate(rois):
        b = int(roi[0])
        sw, sh = T(rnd(float(roi[1]))) * scale, T(rnd(float(roi[2]))) * scale
        ew, eh = T(rnd(float(roi[3])) + 1.0) * scale, T(rnd(float(roi[4])) + 1.0) * scale
        rw, rh = max(ew - sw, T(0.1)), max(eh - sh, T(0.1))
        bh, bw = rh / T(p), rw / T(p)
        for ct in range(dim):
            for i in range(p):
                for j in range(p):
                    hs = min(max(int(math.floor(T(i) * bh + sh)), 0), h)
                    ws = min(max(int(math.floor(T(j) * bw + sw)), 0), w)
                    he = min(max(int(math.ceil(T(i + 1) * bh + sh)), 0), h)
                    we = min(max(int(math.ceil(T(j + 1) * bw + sw)), 0), w)
                    if he <= hs or we <= ws:
                        continue
                    gw = min(max(int(math.floor(T(j) * group / p)), 0), group - 1)
                    gh = min(max(int(math.floor(T(i) * group / p)), 0), group - 1)
                    ch = (ct * group + gh) * group + gw
                    out[r, ct, i, j] = data[b, ch, hs:he, ws:we].sum() / T((he - hs) * (we - ws))
    return [out]


@register("_contrib_box_nms", "_contrib_box_non_maximum_suppression")
def contrib_box_nms(inputs, attrs):
    """MXNet's box_nms written as the plain greedy algorithm: per batch the
    valid records by descending score (ties by position), the first topk,
    each kept one suppressing later ones of its class (all classes with
    force_suppress) with IoU > overlap_thresh; kept records first, -1 rows
    after; the record of source positions over all batches."""
    (data,) = inputs
    ov = np.float32(attr_float(attrs, "overlap_thresh", 0.5))
    vt = attr_float(attrs, "valid_thresh", 0.0)
    topk = attr_int(attrs, "topk", -1)
    cs, si = attr_int(attrs, "coord_start", 2), attr_int(attrs, "score_index", 1)
    ii, bg = attr_int(attrs, "id_index", -1), attr_int(attrs, "background_id", -1)
    force = attr_bool(attrs, "force_suppress", False)
    inc = attr_str(attrs, "in_format", "corner") == "corner"
    outc = attr_str(attrs, "out_format", "corner") == "corner"
    shape = data.shape
    num, width = shape[-2], shape[-1]
    x = data.reshape(-1, num, width)
    out = -np.ones_like(x)
    rec = -np.ones(x.shape[:2] + (1,), data.dtype)
    k = num if topk < 0 else min(num, topk)
    if k < 1:
        return [data.copy(), np.arange(x.shape[0] * num, dtype=data.dtype).reshape(
            shape[:-1] + (1,))]

    def corners(b):
        if inc:
            return b
        return np.array([b[0] - b[2] / 2, b[1] - b[3] / 2, b[0] + b[2] / 2, b[1] + b[3] / 2])

    def area(b):
        w, h = b[2] - b[0], b[3] - b[1]
        return 0.0 if w < 0 or h < 0 else w * h

    for bi in range(x.shape[0]):
        rows = [i for i in range(num) if x[bi, i, si] > np.float32(vt) and
                (ii < 0 or x[bi, i, ii] != bg)]
        rows = sorted(rows, key=lambda i: -x[bi, i, si])[:k]  # stable
        kept = []
        for i in rows:
            bx = corners(x[bi, i, cs:cs + 4])
            ok = True
            for j in kept:
                if not force and ii >= 0 and int(x[bi, i, ii]) != int(x[bi, j, ii]):
                    continue
                by = corners(x[bi, j, cs:cs + 4])
                iw = max(min(bx[2], by[2]) - max(bx[0], by[0]), 0)
                ih = max(min(bx[3], by[3]) - max(bx[1], by[1]), 0)
                inter = iw * ih
                if inter / (area(bx) + area(by) - inter) > ov:
                    ok = False
                    break
            if ok:
                kept.append(i)
        for c, i in enumerate(kept):
            row = x[bi, i].copy()
            b = row[cs:cs + 4].copy()
            if inc != outc and not b[0] < 0:
                row[cs:cs + 4] = corners(b) if outc else [
                    (b[0] + b[2]) / 2, (b[1] + b[3]) / 2, b[2] - b[0], b[3] - b[1]]
            out[bi, c] = row
            rec[bi, c, 0] = bi * num + i
    return [out.reshape(shape), rec.reshape(shape[:-1] + (1,))]


@register("_contrib_bipartite_matching")
def contrib_bipartite_matching(inputs, attrs):
    """Greedy matching by score, as MXNet's CPU loop: pairs in stable score
    order, both ends free, the first failing score ends the batch, more
    than topk (> 0) matches end it too."""
    (data,) = inputs
    thr = np.float32(attr_float(attrs, "threshold"))
    asc = attr_bool(attrs, "is_ascend", False)
    topk = attr_int(attrs, "topk", -1)
    n, m = data.shape[-2:]
    x = data.reshape(-1, n * m)
    rows = -np.ones((x.shape[0], n), data.dtype)
    cols = -np.ones((x.shape[0], m), data.dtype)
    for b in range(x.shape[0]):
        order = np.argsort(x[b] if asc else -x[b], kind="stable")
        count = 0
        for idx in order:
            r, c = divmod(int(idx), m)
            if rows[b, r] != -1 or cols[b, c] != -1:
                continue
            if not (x[b, idx] < thr if asc else x[b, idx] > thr):
                break
            rows[b, r], cols[b, c] = c, r
            count += 1
            if topk > 0 and count > topk:
                break
    return [rows.reshape(data.shape[:-1]), cols.reshape(data.shape[:-2] + (m,))]


@register("_contrib_MultiBoxTarget")
def contrib_multibox_target(inputs, attrs):
    """SSD targets as MXNet's CPU loop (multibox_target.cc): greedy best
    anchor per ground truth, then best ground truth per anchor above the
    threshold, negatives all others or mined by lowest background softmax."""
    anchor, label, pred = [np.asarray(x, np.float64) for x in inputs]
    thr = np.float32(attr_float(attrs, "overlap_threshold", 0.5))
    ignore = attr_float(attrs, "ignore_label", -1.0)
    ratio = attr_float(attrs, "negative_mining_ratio", -1.0)
    mthr = np.float32(attr_float(attrs, "negative_mining_thresh", 0.5))
    var = [float(v) for v in ast.literal_eval(attrs.get("variances", "(0.1, 0.1, 0.2, 0.2)"))]
    a = anchor[0]
    n_a, (b_n, n_l, _) = a.shape[0], label.shape
    loc = np.zeros((b_n, n_a, 4))
    mask = np.zeros((b_n, n_a, 4))
    cls = np.full((b_n, n_a), ignore)
    for b in range(b_n):
        g = label[b]
        valid = next((i for i in range(n_l) if g[i, 0] == -1), n_l)
        if valid == 0:
            continue
        iw = np.maximum(0, np.minimum(a[:, None, 2], g[None, :, 3]) -
                        np.maximum(a[:, None, 0], g[None, :, 1]))
        ih = np.maximum(0, np.minimum(a[:, None, 3], g[None, :, 4]) -
                        np.maximum(a[:, None, 1], g[None, :, 2]))
        inter = iw * ih
        union = ((a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1]))[:, None] + \
            ((g[:, 3] - g[:, 1]) * (g[:, 4] - g[:, 2]))[None, :] - inter
        iou = np.where(union == 0, 0, inter / np.where(union == 0, 1, union)).astype(np.float32)
        iou = iou[:, :valid]
        flags = np.full(n_a, -1)
        match = [(-1.0, -1)] * n_a
        gt_done = np.zeros(valid, bool)
        pos = 0
        while not gt_done.all():
            m = np.where((flags[:, None] == 1) | gt_done[None, :], -np.inf, iou)
            j, k = np.unravel_index(np.argmax(m), m.shape)  # first maximum, row-major
            if not m[j, k] > np.float32(1e-6):
                break
            match[j], gt_done[k], flags[j] = (m[j, k], k), True, 1
            pos += 1
        best = [(iou[j].max(), int(np.argmax(iou[j]))) for j in range(n_a)]
        if thr > 0:
            for j in range(n_a):
                if flags[j] != 1:
                    match[j] = best[j]
                    if best[j][0] > thr:
                        pos, gt_done[best[j][1]], flags[j] = pos + 1, True, 1
        if ratio > 0:
            neg = min(int(pos * np.float32(ratio)), n_a - pos)
            if neg > 0:
                cand = []
                for j in range(n_a):
                    if flags[j] == 1:
                        continue
                    if match[j][0] < 0:
                        match[j] = best[j]
                    if match[j][0] < mthr and flags[j] == -1:
                        p = pred[b, :, j]
                        e = np.exp(p - p.max())
                        cand.append((-(e[0] / e.sum()), j))
                for _, j in sorted(cand, key=lambda c: -c[0])[:neg]:  # stable
                    flags[j] = 0
        else:
            flags[flags != 1] = 0
        for j in range(n_a):
            if flags[j] == 1:
                gt = g[match[j][1]]
                cls[b, j] = gt[0] + 1
                mask[b, j] = 1
                aw, ah = a[j, 2] - a[j, 0], a[j, 3] - a[j, 1]
                gw, gh = gt[3] - gt[1], gt[4] - gt[2]
                loc[b, j] = [((gt[1] + gt[3]) / 2 - (a[j, 0] + a[j, 2]) / 2) / aw / var[0],
                             ((gt[2] + gt[4]) / 2 - (a[j, 1] + a[j, 3]) / 2) / ah / var[1],
                             np.log(gw / aw) / var[2], np.log(gh / ah) / var[3]]
            elif flags[j] == 0:
                cls[b, j] = 0
    dt = inputs[0].dtype
    return [loc.reshape(b_n, -1).astype(dt), mask.reshape(b_n, -1).astype(dt), cls.astype(dt)]


@register("_contrib_MultiBoxDetection", "_npx_multibox_detection")
def contrib_multibox_detection(inputs, attrs):
    """SSD detections as MXNet's CPU loop: best non-background class per
    anchor, decoded (clipped) boxes, detections compacted, then stable score
    order, nms_topk, greedy per-class suppression at IoU >= nms_threshold."""
    prob, loc, anchor = [np.asarray(x, np.float64) for x in inputs]
    clip = attr_bool(attrs, "clip", True)
    thr = np.float32(attr_float(attrs, "threshold", 0.01))
    nms = np.float32(attr_float(attrs, "nms_threshold", 0.5))
    force = attr_bool(attrs, "force_suppress", False)
    topk = attr_int(attrs, "nms_topk", -1)
    var = [float(v) for v in ast.literal_eval(attrs.get("variances", "(0.1, 0.1, 0.2, 0.2)"))]
    b_n, _, n_a = prob.shape
    a = anchor[0]
    out = -np.ones((b_n, n_a, 6))
    for b in range(b_n):
        rows = []
        for i in range(n_a):
            s = prob[b, 1:, i]
            cid = int(np.argmax(s)) + 1
            score = s[cid - 1]
            if score < thr:
                cid = 0
            aw, ah = a[i, 2] - a[i, 0], a[i, 3] - a[i, 1]
            ax, ay = (a[i, 0] + a[i, 2]) / 2, (a[i, 1] + a[i, 3]) / 2
            p = loc[b, 4 * i:4 * i + 4]
            ox, oy = p[0] * var[0] * aw + ax, p[1] * var[1] * ah + ay
            ow, oh = np.exp(p[2] * var[2]) * aw / 2, np.exp(p[3] * var[3]) * ah / 2
            box = np.array([ox - ow, oy - oh, ox + ow, oy + oh])
            if clip:
                box = np.clip(box, 0, 1)
            if cid > 0:
                rows.append([cid - 1, score, *box])
        for i, r in enumerate(rows):
            out[b, i] = r
        if not rows or nms <= 0 or nms > 1:
            continue
        order = sorted(range(len(rows)), key=lambda i: -rows[i][1])  # stable
        keep = len(rows) if topk <= 0 or topk >= len(rows) else topk
        out[b, keep:len(rows), 0] = -1
        for i in range(keep):
            out[b, i] = rows[order[i]]
        for i in range(keep):
            if out[b, i, 0] < 0:
                continue
            for j in range(i + 1, keep):
                if out[b, j, 0] < 0 or not (force or out[b, i, 0] == out[b, j, 0]):
                    continue
                x, y = out[b, i, 2:], out[b, j, 2:]
                w = max(0, min(x[2], y[2]) - max(x[0], y[0]))
                h = max(0, min(x[3], y[3]) - max(x[1], y[1]))
                u = (x[2] - x[0]) * (x[3] - x[1]) + (y[2] - y[0]) * (y[3] - y[1]) - w * h
                if (0 if u <= 0 else w * h / u) >= nms:
                    out[b, j, 0] = -1
    return [out.astype(inputs[0].dtype)]


@register("Correlation")
def correlation(inputs, attrs):
    """MXNet's test_correlation loop (correlation_forward) with MXNet's
    ceil for the output extent; the padded inputs as (N, Hp, Wp, C)."""
    d1, d2 = [np.asarray(x, np.float64) for x in inputs]
    k, md = attr_int(attrs, "kernel_size", 1), attr_int(attrs, "max_displacement", 1)
    s1, s2 = attr_int(attrs, "stride1", 1), attr_int(attrs, "stride2", 1)
    pad, mult = attr_int(attrs, "pad_size", 0), attr_bool(attrs, "is_multiply", True)
    n, c, h, w = d1.shape
    p1 = np.pad(d1, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    p2 = np.pad(d2, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    border = md + (k - 1) // 2
    th = -(-(h + 2 * pad - 2 * border) // s1)
    tw = -(-(w + 2 * pad - 2 * border) // s1)
    r = md // s2
    gw = 2 * r + 1
    out = np.zeros((n, gw * gw, th, tw))
    for i in range(th):
        for j in range(tw):
            y1, x1 = i * s1 + md, j * s1 + md
            for t in range(gw * gw):
                y2, x2 = y1 + (t // gw - r) * s2, x1 + (t % gw - r) * s2
                a = p1[:, :, y1:y1 + k, x1:x1 + k]
                b = p2[:, :, y2:y2 + k, x2:x2 + k]
                out[:, t, i, j] = (a * b if mult else np.abs(a - b)).sum(axis=(1, 2, 3))
    dt = inputs[0].dtype
    return [(out / (k * k * c)).astype(dt), p1.transpose(0, 2, 3, 1).astype(dt),
            p2.transpose(0, 2, 3, 1).astype(dt)]


def _sliding(attrs, spatial):
    """im2col's kernel, stride, dilate, pad (empty: 1, 1, 0) and the blocks
    per spatial dimension of an image of extents `spatial`."""
    kernel = attr_tuple(attrs, "kernel")
    k = len(kernel)
    stride = attr_tuple(attrs, "stride") or (1,) * k
    dilate = attr_tuple(attrs, "dilate") or (1,) * k
    pad = attr_tuple(attrs, "pad") or (0,) * k
    blocks = [(spatial[i] + 2 * pad[i] - (1 + (kernel[i] - 1) * dilate[i])) // stride[i] + 1
              for i in range(k)]
    return kernel, stride, dilate, pad, blocks


def _offset_window(offset, stride, dilate, blocks):
    """The padded image's positions kernel offset `offset` meets, per block."""
    return tuple(slice(o * d, o * d + (b - 1) * s + 1, s)
                 for o, s, d, b in zip(offset, stride, dilate, blocks))


@register("im2col")
def im2col(inputs, attrs):
    """MXNet's im2col (im2col.h): row c * K + k holds, per block, the
    zero-padded input at kernel offset k (row-major)."""
    x = np.asarray(inputs[0], np.float64)
    n, c = x.shape[:2]
    kernel, stride, dilate, pad, blocks = _sliding(attrs, x.shape[2:])
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    rows = [xp[(slice(None), slice(None)) + _offset_window(off, stride, dilate, blocks)]
            for off in itertools.product(*[range(k) for k in kernel])]
    col = np.stack(rows, axis=2).reshape(n, c * len(rows), int(np.prod(blocks)))
    return [col.astype(inputs[0].dtype)]


@register("col2im")
def col2im(inputs, attrs):
    """MXNet's col2im: every column element added at the image position of
    its kernel offset and block; positions in the padding dropped."""
    col = np.asarray(inputs[0], np.float64)
    size = attr_tuple(attrs, "output_size")
    kernel, stride, dilate, pad, blocks = _sliding(attrs, size)
    n, ck = col.shape[:2]
    kk = int(np.prod(kernel))
    c = ck // kk
    cols = col.reshape((n, c, kk) + tuple(blocks))
    im = np.zeros((n, c) + tuple(s + 2 * p for s, p in zip(size, pad)))
    for i, off in enumerate(itertools.product(*[range(k) for k in kernel])):
        im[(slice(None), slice(None)) + _offset_window(off, stride, dilate, blocks)] += \
            cols[:, :, i]
    crop = tuple(slice(p, p + s) for s, p in zip(size, pad))
    return [im[(slice(None), slice(None)) + crop].astype(inputs[0].dtype)]


def _heads(proj, heads, parts, part):
    """Part `part` of every head of a (S, B, parts * E) projection as
    (B * heads, S, D) (transformer.cc's strided views)."""
    s, b, e = proj.shape
    d = e // (parts * heads)
    return np.asarray(proj, np.float64).reshape(s, b * heads, parts, d)[:, :, part].transpose(1, 0, 2)


def _scores(q, k):
    return q @ k.transpose(0, 2, 1) / np.sqrt(np.float32(q.shape[2]))


def _weighted(att, v, shape):
    return (np.asarray(att, np.float64) @ v).transpose(1, 0, 2).reshape(shape)


@register("_contrib_interleaved_matmul_selfatt_qk")
def interleaved_selfatt_qk(inputs, attrs):
    qkv, h = inputs[0], attr_int(attrs, "heads")
    return [_scores(_heads(qkv, h, 3, 0), _heads(qkv, h, 3, 1)).astype(qkv.dtype)]


@register("_contrib_interleaved_matmul_selfatt_valatt")
def interleaved_selfatt_valatt(inputs, attrs):
    qkv, att, h = inputs[0], inputs[1], attr_int(attrs, "heads")
    s, b, e = qkv.shape
    return [_weighted(att, _heads(qkv, h, 3, 2), (s, b, e // 3)).astype(qkv.dtype)]


@register("_contrib_interleaved_matmul_encdec_qk")
def interleaved_encdec_qk(inputs, attrs):
    q, kv, h = inputs[0], inputs[1], attr_int(attrs, "heads")
    return [_scores(_heads(q, h, 1, 0), _heads(kv, h, 2, 0)).astype(q.dtype)]


@register("_contrib_interleaved_matmul_encdec_valatt")
def interleaved_encdec_valatt(inputs, attrs):
    kv, att, h = inputs[0], inputs[1], attr_int(attrs, "heads")
    s, b, e = kv.shape
    return [_weighted(att, _heads(kv, h, 2, 1), (att.shape[1], b, e // 2)).astype(kv.dtype)]


@register("GridGenerator")
def grid_generator(inputs, attrs):
    """grid_generator-inl.h: normalised target grid (x, y, 1) times each
    2 x 3 matrix (affine), or flow + pixel position normalised (warp); the
    grid as the hidden output."""
    data = np.asarray(inputs[0], np.float64)
    if attr_str(attrs, "transform_type") == "affine":
        h, w = attr_tuple(attrs, "target_shape")
        i, j = np.divmod(np.arange(h * w), w)
        grid = np.stack([-1 + j * 2.0 / (w - 1), -1 + i * 2.0 / (h - 1), np.ones(h * w)])
        out = (data.reshape(-1, 2, 3) @ grid).reshape(-1, 2, h, w)
    else:
        h, w = data.shape[2:]
        grid = np.stack(np.meshgrid(np.arange(w), np.arange(h))).astype(np.float64)
        out = (data + grid) / np.array([(w - 1) / 2.0, (h - 1) / 2.0]).reshape(1, 2, 1, 1) - 1
    dt = inputs[0].dtype
    return [out.astype(dt), grid.astype(dt)]


def _bilinear_sample(data, grid):
    """BilinearSamplingForward: data (N, C, H, W) at grid (N, 2, Ho, Wo) of
    normalised x, y; pixels outside the image count 0."""
    n, c, h, w = data.shape
    xr = (grid[:, 0] + 1) * (w - 1) / 2.0
    yr = (grid[:, 1] + 1) * (h - 1) / 2.0
    x0, y0 = np.floor(xr).astype(np.int64), np.floor(yr).astype(np.int64)
    wx, wy = xr - x0, yr - y0
    out = np.zeros((n, c) + grid.shape[2:])
    for dy, dx, weight in [(0, 0, (1 - wy) * (1 - wx)), (0, 1, (1 - wy) * wx),
                           (1, 0, wy * (1 - wx)), (1, 1, wy * wx)]:
        yy, xx = y0 + dy, x0 + dx
        inside = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
        for b in range(n):
            v = data[b][:, np.clip(yy[b], 0, h - 1), np.clip(xx[b], 0, w - 1)]
            out[b] += v * (weight[b] * inside[b])[None]
    return out


@register("BilinearSampler")
def bilinear_sampler(inputs, attrs):
    data, grid = [np.asarray(x, np.float64) for x in inputs]
    dt = inputs[0].dtype
    return [_bilinear_sample(data, grid).astype(dt), grid.transpose(0, 2, 3, 1).astype(dt)]


@register("SpatialTransformer")
def spatial_transformer(inputs, attrs):
    """GridGenerator's affine grid, then bilinear sampling; the target and
    the sampling grids as hidden outputs."""
    data, loc = [np.asarray(x, np.float64) for x in inputs]
    h, w = attr_tuple(attrs, "target_shape")
    i, j = np.divmod(np.arange(h * w), w)
    dst = np.stack([-1 + j * 2.0 / (w - 1), -1 + i * 2.0 / (h - 1), np.ones(h * w)])
    src = loc.reshape(-1, 2, 3) @ dst
    out = _bilinear_sample(data, src.reshape(-1, 2, h, w))
    dt = inputs[0].dtype
    return [out.astype(dt), dst.astype(dt), src.astype(dt)]


@register("_contrib_quantize")
def contrib_quantize(inputs, attrs):
    """MXNet 1.9.1's PyPI build (MKLDNNQuantizeComputeKer): x * 127 (255) /
    max(|min|, |max|) in float32, rounded to nearest even, saturated."""
    x = np.asarray(inputs[0], np.float32)
    lo, hi = np.float32(inputs[1][0]), np.float32(inputs[2][0])
    r = max(abs(lo), abs(hi))
    if attr_str(attrs, "out_type", "uint8") == "int8":
        q = np.clip(np.rint(x * (np.float32(127) / r)), -128, 127)
        return [q.astype(np.int8), np.array([-r], np.float32), np.array([r], np.float32)]
    q = np.clip(np.rint(x * (np.float32(255) / r)), 0, 255)
    return [q.astype(np.uint8), np.array([lo], np.float32), np.array([hi], np.float32)]


@register("_contrib_dequantize")
def contrib_dequantize(inputs, attrs):
    """The PyPI build's oneDNN dequantize: q * max(|min|, |max|) / 127.5
    (int8) or / 255.5 (uint8)."""
    q = np.asarray(inputs[0]).astype(np.float32)
    r = max(abs(np.float32(inputs[1][0])), abs(np.float32(inputs[2][0])))
    return [q * (r / np.float32(255.5 if inputs[0].dtype == np.uint8 else 127.5))]


@register("_contrib_fft")
def contrib_fft(inputs, attrs):
    # interleaved (real, imaginary) of numpy's FFT along the last axis
    x = inputs[0]
    f = np.fft.fft(x.astype(np.float64), axis=-1)
    return [np.stack([f.real, f.imag], axis=-1).reshape(x.shape[:-1] + (2 * x.shape[-1],))
            .astype(x.dtype)]


@register("_contrib_ifft")
def contrib_ifft(inputs, attrs):
    # the real part of the unnormalised inverse (numpy's ifft times d)
    z = inputs[0].astype(np.float64)
    c = z[..., 0::2] + 1j * z[..., 1::2]
    return [(np.fft.ifft(c, axis=-1) * c.shape[-1]).real.astype(inputs[0].dtype)]


@register("_contrib_count_sketch")
def contrib_count_sketch(inputs, attrs):
    x, h, s = inputs
    k = attr_int(attrs, "out_dim")
    out = np.zeros(x.shape[:-1] + (k,), np.float64)
    for i in range(x.shape[-1]):
        out[..., int(h[0, i])] += s[0, i] * x[..., i].astype(np.float64)
    return [out.astype(x.dtype)]
