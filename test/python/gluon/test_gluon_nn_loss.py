"""gluon.nn layers and gluon.loss against numpy formulas, imperative and
hybridized (tiny shapes)."""
import numpy as np
import pytest

import mxc as mx
from mxc import autograd, gluon
from mxc.gluon import nn

RNG = np.random.RandomState(7)


def _both(block, *inputs):
    """The block's output imperatively and hybridized (must agree)."""
    block.initialize()
    a = block(*inputs)
    block.hybridize()
    b = block(*inputs)
    a, b = a.asnumpy(), b.asnumpy()
    np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    return a


def _nd(a):
    return mx.nd.array(a, dtype=a.dtype)


def test_dense_flatten_false_and_activation():
    x = RNG.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    d = nn.Dense(5, activation="relu", flatten=False)
    out = _both(d, _nd(x))
    w, b = d.weight.data().asnumpy(), d.bias.data().asnumpy()
    np.testing.assert_allclose(out, np.maximum(x @ w.T + b, 0), rtol=1e-5, atol=1e-6)
    assert d.weight.shape == (5, 4)


def test_conv_pool_layers_shapes():
    x = _nd(RNG.uniform(-1, 1, (1, 2, 9, 9)).astype(np.float32))
    assert _both(nn.Conv2D(3, (3, 2), strides=2, padding=1, groups=1), x).shape == (1, 3, 5, 5)
    assert _both(nn.MaxPool2D(3, 2, ceil_mode=True), x).shape == (1, 2, 4, 4)
    assert _both(nn.AvgPool2D(2), x).shape == (1, 2, 4, 4)
    g = _both(nn.GlobalAvgPool2D(), x)
    np.testing.assert_allclose(g[:, :, 0, 0], x.asnumpy().mean(axis=(2, 3)), rtol=1e-5)
    x1 = _nd(RNG.uniform(-1, 1, (2, 3, 10)).astype(np.float32))
    assert _both(nn.Conv1D(4, 3), x1).shape == (2, 4, 8)
    assert _both(nn.MaxPool1D(2), x1).shape == (2, 3, 5)
    m = _both(nn.GlobalMaxPool1D(), x1)
    np.testing.assert_allclose(m[:, :, 0], x1.asnumpy().max(axis=2))



def test_conv_transpose_layers():
    """Conv{1,2,3}DTranspose: MXNet's Deconvolution with output_padding as
    adj, weight (in_channels, channels / groups, *kernel) inferred at the
    first call; imperative = hybridized = mx.nd.Deconvolution; gradients
    reach the weight and bias."""
    x2 = _nd(RNG.uniform(-1, 1, (2, 4, 5, 5)).astype(np.float32))
    layer = nn.Conv2DTranspose(6, 3, strides=2, padding=1, output_padding=1, groups=2)
    y = _both(layer, x2)
    assert y.shape == (2, 6, 10, 10)
    assert layer.weight.shape == (4, 3, 3, 3) and layer.bias.shape == (6,)
    want = mx.nd.Deconvolution(x2, layer.weight.data(), layer.bias.data(), kernel=(3, 3),
                               stride=(2, 2), pad=(1, 1), adj=(1, 1), num_filter=6,
                               num_group=2, no_bias=False)
    np.testing.assert_allclose(y, want.asnumpy(), rtol=1e-5, atol=1e-6)
    with mx.autograd.record():
        loss = (layer(x2) ** 2).sum()
    loss.backward()
    assert float(np.abs(layer.weight.grad().asnumpy()).sum()) > 0
    assert layer.bias.grad().shape == (6,)
    x1 = _nd(RNG.uniform(-1, 1, (2, 3, 6)).astype(np.float32))
    assert _both(nn.Conv1DTranspose(2, 3, strides=2, use_bias=False), x1).shape == (2, 2, 13)
    x3 = _nd(RNG.uniform(-1, 1, (1, 2, 3, 3, 3)).astype(np.float32))
    assert _both(nn.Conv3DTranspose(2, 2, strides=2), x3).shape == (1, 2, 6, 6, 6)
    with pytest.raises(mx.MXNetError, match="NHWC"):
        nn.Conv2DTranspose(2, 3, layout="NHWC")


def test_activations():
    x = RNG.uniform(-2, 2, (3, 4)).astype(np.float32)
    np.testing.assert_allclose(_both(nn.LeakyReLU(0.1), _nd(x)), np.where(x > 0, x, 0.1 * x),
                               rtol=1e-6)
    np.testing.assert_allclose(_both(nn.ELU(0.5), _nd(x)),
                               np.where(x > 0, x, 0.5 * (np.exp(x) - 1)), rtol=1e-5, atol=1e-6)
    s = 1.0507009873554805
    a = 1.6732632423543772
    np.testing.assert_allclose(_both(nn.SELU(), _nd(x)),
                               s * np.where(x > 0, x, a * (np.exp(x) - 1)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_both(nn.Swish(2.0), _nd(x)), x / (1 + np.exp(-2 * x)),
                               rtol=1e-5, atol=1e-6)
    p = nn.PReLU()
    np.testing.assert_allclose(_both(p, _nd(x)), np.where(x > 0, x, 0.25 * x), rtol=1e-6)


def test_layernorm_instancenorm_embedding():
    x = RNG.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    ln = nn.LayerNorm()
    out = _both(ln, _nd(x))
    ref = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    assert ln.gamma.shape == (4,)
    inorm = nn.InstanceNorm()
    out = _both(inorm, _nd(x))
    ref = (x - x.mean(2, keepdims=True)) / np.sqrt(x.var(2, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    x4 = RNG.uniform(-1, 1, (2, 4, 3, 3)).astype(np.float32)
    gn = nn.GroupNorm(num_groups=2)
    out = _both(gn, _nd(x4))
    g = x4.reshape(2, 2, -1)
    ref = ((g - g.mean(2, keepdims=True)) / np.sqrt(g.var(2, keepdims=True) + 1e-5))
    np.testing.assert_allclose(out, ref.reshape(x4.shape), rtol=1e-4, atol=1e-5)
    emb = nn.Embedding(6, 3)
    idx = np.array([[0, 5], [2, 2]], np.float32)
    out = _both(emb, _nd(idx))
    np.testing.assert_allclose(out, emb.weight.data().asnumpy()[idx.astype(int)], rtol=1e-6)
    # Inside a hybridized network, the deferred shapes come from one
    # imperative pass.
    net = nn.HybridSequential()
    net.add(nn.Dense(5, flatten=False), nn.LayerNorm())
    net.initialize()
    net.hybridize()
    assert net(_nd(x)).shape == (2, 3, 5)
    assert net[1].gamma.shape == (5,)


def test_batchnorm_training_updates_running_stats():
    x = RNG.uniform(-1, 1, (4, 2, 3, 3)).astype(np.float32)
    bn = nn.BatchNorm(momentum=0.5)
    bn.initialize()
    bn.hybridize()
    with autograd.record():
        y = bn(_nd(x))
    mean = x.mean(axis=(0, 2, 3))
    np.testing.assert_allclose(bn.running_mean.data().asnumpy(), 0.5 * mean, rtol=1e-5,
                               atol=1e-6)
    ref = (x - mean.reshape(1, 2, 1, 1)) / np.sqrt(x.var(axis=(0, 2, 3)).reshape(1, 2, 1, 1)
                                                  + 1e-5)
    np.testing.assert_allclose(y.asnumpy(), ref, rtol=1e-4, atol=1e-5)


def _loss(loss, *args):
    """The loss imperatively and hybridized (must agree)."""
    a = loss(*[_nd(x) for x in args]).asnumpy()
    loss.hybridize()
    b = loss(*[_nd(x) for x in args]).asnumpy()
    np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    return a


def test_losses_against_numpy():
    pred = RNG.uniform(-2, 2, (4, 3)).astype(np.float32)
    label = RNG.uniform(-2, 2, (4, 3)).astype(np.float32)
    w = RNG.uniform(0, 1, (4, 1)).astype(np.float32)
    np.testing.assert_allclose(_loss(gluon.loss.L2Loss(), pred, label),
                               (0.5 * (pred - label) ** 2).mean(1), rtol=1e-5)
    np.testing.assert_allclose(_loss(gluon.loss.L1Loss(weight=2.0), pred, label, w),
                               (2 * w * np.abs(pred - label)).mean(1), rtol=1e-5)
    err = np.abs(pred - label)
    np.testing.assert_allclose(_loss(gluon.loss.HuberLoss(rho=0.5), pred, label),
                               np.where(err > 0.5, err - 0.25, err ** 2).mean(1), rtol=1e-5)
    lsm = pred - np.log(np.exp(pred).sum(1, keepdims=True))
    cls = np.array([0, 2, 1, 2], np.float32)
    np.testing.assert_allclose(_loss(gluon.loss.SoftmaxCrossEntropyLoss(), pred, cls),
                               -lsm[np.arange(4), cls.astype(int)], rtol=1e-5)
    dense = np.eye(3, dtype=np.float32)[cls.astype(int)]
    np.testing.assert_allclose(
        _loss(gluon.loss.SoftmaxCrossEntropyLoss(sparse_label=False), pred, dense),
        -(lsm * dense).sum(1), rtol=1e-5)
    np.testing.assert_allclose(
        _loss(gluon.loss.SoftmaxCrossEntropyLoss(from_logits=True), lsm, cls),
        -lsm[np.arange(4), cls.astype(int)], rtol=1e-5)
    # batch_axis=1: one loss per column.
    np.testing.assert_allclose(_loss(gluon.loss.L2Loss(batch_axis=1), pred, label),
                               (0.5 * (pred - label) ** 2).mean(0), rtol=1e-5)
    z = (label > 0).astype(np.float32)
    bce = np.maximum(pred, 0) - pred * z + np.log1p(np.exp(-np.abs(pred)))
    np.testing.assert_allclose(_loss(gluon.loss.SigmoidBinaryCrossEntropyLoss(), pred, z),
                               bce.mean(1), rtol=1e-5)
    sig = 1 / (1 + np.exp(-pred))
    np.testing.assert_allclose(
        _loss(gluon.loss.SigmoidBCELoss(from_sigmoid=True), sig, z),
        (-(np.log(sig + 1e-12) * z + np.log(1 - sig + 1e-12) * (1 - z))).mean(1), rtol=1e-4)
    p = np.exp(lsm)
    np.testing.assert_allclose(_loss(gluon.loss.KLDivLoss(), lsm, p),
                               (p * (np.log(p + 1e-12) - lsm)).mean(1), rtol=1e-4, atol=1e-7)
    np.testing.assert_allclose(_loss(gluon.loss.KLDivLoss(from_logits=False), pred, p),
                               (p * (np.log(p + 1e-12) - lsm)).mean(1), rtol=1e-4, atol=1e-7)
    sign = np.where(label > 0, 1, -1).astype(np.float32)
    np.testing.assert_allclose(_loss(gluon.loss.HingeLoss(), pred, sign),
                               np.maximum(0, 1 - pred * sign).mean(1), rtol=1e-5)


@pytest.mark.parametrize("hybridize", [False, True])
def test_cosine_embedding_loss_against_numpy(hybridize):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((4, 3)).astype(np.float32)
    b = rng.standard_normal((4, 3)).astype(np.float32)
    b[3] = 0  # zero norm: the denominator is 1e-12, cos 0
    label = np.array([1, -1, -1, 1], np.float32)
    loss = gluon.loss.CosineEmbeddingLoss(margin=0.1)
    if hybridize:
        loss.hybridize()
    got = loss(mx.nd.array(a), mx.nd.array(b), mx.nd.array(label)).asnumpy().ravel()
    cos = (a * b).sum(-1) / np.maximum(np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1),
                                       1e-12)
    want = np.where(label == 1, 1 - cos, np.maximum(0, cos - 0.1))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    # the symbolic form (MXNet's loss(sym.var(...)) style) infers its shapes
    s = loss(mx.sym.var("x1"), mx.sym.var("x2"), mx.sym.var("y"))
    assert s.infer_shape(x1=(4, 3), x2=(4, 3), y=(4,))[1] == [(4, 1)]


def test_sdml_loss_against_numpy():
    rng = np.random.default_rng(6)
    x1 = rng.standard_normal((4, 3)).astype(np.float32)
    x2 = rng.standard_normal((4, 3)).astype(np.float32)
    got = gluon.loss.SDMLLoss(smoothing_parameter=0.3)(mx.nd.array(x1), mx.nd.array(x2))
    d = ((x1[:, None, :] - x2[None, :, :]) ** 2).sum(-1)
    z = -d - (-d).max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    labels = np.eye(4) * 0.7 + (1 - np.eye(4)) * 0.3 / 3
    want = (labels * (np.log(labels + 1e-12) - logp)).mean(axis=1)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    with pytest.raises(mx.MXNetError, match="must both be"):
        gluon.loss.SDMLLoss()(mx.nd.ones((4, 3)), mx.nd.ones((3, 3)))


@pytest.mark.parametrize("hybridize", [False, True])
def test_softmax_ce_loss_takes_a_keepdims_shaped_label(hybridize):
    # MXNet's pick takes an index of data's shape less the axis or with it
    # as extent 1: a (N, 1) label gives the (N,) label's loss.
    rng = np.random.default_rng(7)
    pred = mx.nd.array(rng.standard_normal((5, 3)).astype(np.float32))
    label = np.array([0, 2, 1, 1, 0], np.float32)
    loss = gluon.loss.SoftmaxCELoss()
    if hybridize:
        loss.hybridize()
    flat = loss(pred, mx.nd.array(label)).asnumpy()
    col = loss(pred, mx.nd.array(label.reshape(5, 1))).asnumpy()
    logp = pred.asnumpy() - np.log(np.exp(pred.asnumpy()).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(flat, -logp[np.arange(5), label.astype(int)], rtol=1e-5)
    np.testing.assert_allclose(col, flat, rtol=1e-6)


def test_loss_gradient_matches_formula():
    pred = _nd(RNG.uniform(-1, 1, (3, 4)).astype(np.float32))
    label = _nd(np.array([1, 0, 3], np.float32))
    pred.attach_grad()
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    loss.hybridize()
    with autograd.record():
        out = loss(pred, label)
    out.backward()
    p = pred.asnumpy()
    sm = np.exp(p) / np.exp(p).sum(1, keepdims=True)
    np.testing.assert_allclose(pred.grad.asnumpy(), sm - np.eye(4)[[1, 0, 3]], rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("padding", [3, (0, 0, 0, 0, 1, 2, 0, 3)])
def test_reflection_pad2d_against_numpy(padding):
    rng = np.random.RandomState(0)
    x = mx.nd.array(rng.uniform(-1, 1, (2, 3, 6, 5)))
    sides = (padding,) * 4 if isinstance(padding, int) else padding[4:]
    widths = ((0, 0), (0, 0), sides[:2], sides[2:])
    ref = np.pad(x.asnumpy(), widths, mode="reflect")
    # each input element's gradient (head of ones) counts its copies in the output
    index = np.pad(np.arange(x.size).reshape(x.shape), widths, mode="reflect")
    copies = np.bincount(index.reshape(-1), minlength=x.size).reshape(x.shape)
    layer = nn.ReflectionPad2D(padding)
    layer.initialize()
    for hybrid in (False, True):
        layer.hybridize(hybrid)
        x.attach_grad()
        with autograd.record():
            y = layer(x)
        y.backward(mx.nd.ones(ref.shape))
        np.testing.assert_array_equal(y.asnumpy(), ref)
        np.testing.assert_array_equal(x.grad.asnumpy(), copies)
    with pytest.raises(mx.MXNetError, match="padding"):
        nn.ReflectionPad2D((1, 0, 0, 0, 1, 1, 1, 1))


def test_channel_last_conv_and_pool_layers():
    """NHWC / NWC / NDHWC Conv and Pool layers (channel-last: the compiler runs
    the channel-first operator between transposes, mx-decompose) equal the
    channel-first layers on transposed data, forward and gradients; the
    weight is (channels, *kernel, in_channels)."""
    x = RNG.uniform(-1, 1, (2, 5, 6, 3)).astype(np.float32)     # NHWC
    last = nn.Conv2D(4, (3, 2), padding=1, strides=(2, 1), layout="NHWC", in_channels=3)
    first = nn.Conv2D(4, (3, 2), padding=1, strides=(2, 1), in_channels=3)
    last.initialize()
    first.initialize()
    assert last.weight.shape == (4, 3, 2, 3)
    first.weight.set_data(mx.nd.array(last.weight.data().asnumpy().transpose(0, 3, 1, 2)))
    first.bias.set_data(last.bias.data())
    for block in (last, first):
        block.hybridize()
    xl, xf = _nd(x), _nd(x.transpose(0, 3, 1, 2))
    xl.attach_grad()
    xf.attach_grad()
    with mx.autograd.record():
        yl = last(xl)
        yf = first(xf)
        (yl * yl).sum().backward()
    with mx.autograd.record():
        yf = first(xf)
        (yf * yf).sum().backward()
    np.testing.assert_allclose(yl.asnumpy(), yf.asnumpy().transpose(0, 2, 3, 1), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(xl.grad.asnumpy(), xf.grad.asnumpy().transpose(0, 2, 3, 1),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(last.weight.grad().asnumpy(),
                               first.weight.grad().asnumpy().transpose(0, 2, 3, 1),
                               rtol=1e-4, atol=1e-4)
    x1 = RNG.uniform(-1, 1, (2, 7, 3)).astype(np.float32)       # NWC
    for pool in (nn.MaxPool1D(2, layout="NWC"), nn.AvgPool1D(3, 2, 1, layout="NWC"),
                 nn.GlobalAvgPool1D(layout="NWC")):
        ref = {nn.MaxPool1D: nn.MaxPool1D(2), nn.AvgPool1D: nn.AvgPool1D(3, 2, 1),
               nn.GlobalAvgPool1D: nn.GlobalAvgPool1D()}[type(pool)]
        got = _both(pool, _nd(x1))
        want = _both(ref, _nd(x1.transpose(0, 2, 1)))
        np.testing.assert_allclose(got, want.transpose(0, 2, 1), rtol=1e-6, atol=1e-6)
    x3 = RNG.uniform(-1, 1, (1, 4, 4, 4, 2)).astype(np.float32)  # NDHWC
    assert _both(nn.MaxPool3D(2, layout="NDHWC"), _nd(x3)).shape == (1, 2, 2, 2, 2)


def test_ctc_loss_layouts_and_lengths():
    """gluon.loss.CTCLoss on MXNet's CTCLoss operator (blank = the last class,
    padding -1): MXNet 1.9.1's values for its own unit test's inputs, in every
    layout and with the lengths given instead of the padding."""
    want = np.array([18.82820702, 16.50581741])
    label = mx.nd.array([[1, 0, -1, -1], [2, 1, 1, -1]])
    cases = [(gluon.loss.CTCLoss(), (mx.nd.ones((2, 20, 4)), label)),
             (gluon.loss.CTCLoss(layout="TNC"), (mx.nd.ones((20, 2, 4)), label)),
             (gluon.loss.CTCLoss(layout="TNC", label_layout="TN"),
              (mx.nd.ones((20, 2, 4)), label.T)),
             (gluon.loss.CTCLoss(), (mx.nd.ones((2, 20, 4)), mx.nd.array([[2, 1, 2, 2],
                                                                          [3, 2, 2, 2]]),
                                     None, mx.nd.array([2, 3]))),
             (gluon.loss.CTCLoss(), (mx.nd.ones((2, 25, 4)), mx.nd.array([[2, 1, 3, 3],
                                                                          [3, 2, 2, 3]]),
                                     mx.nd.array([20, 20]), mx.nd.array([2, 3])))]
    for loss, args in cases:
        np.testing.assert_allclose(loss(*args).asnumpy(), want, rtol=1e-5)
    with pytest.raises(mx.MXNetError, match="layouts for pred"):
        gluon.loss.CTCLoss(layout="NCT")


def test_ctc_loss_ignores_steps_past_data_lengths():
    """Steps past a sequence's data_lengths are not read: NaN there changes
    neither the loss nor the (zero) gradient there (MXNet masks them);
    keyword inputs by MXNet's names."""
    rng = np.random.default_rng(10)
    data = rng.uniform(-1, 1, (6, 2, 4)).astype(np.float32)
    label = np.array([[1, 2], [3, 3]], np.float32)
    lengths = np.array([4, 6], np.float32)
    from mxnet_ref import REF
    want = REF["CTCLoss"]([data, label, lengths], {"use_data_lengths": "True"})[0]
    poisoned = data.copy()
    poisoned[4:, 0] = np.nan
    x = mx.nd.array(poisoned)
    x.attach_grad()
    with mx.autograd.record():
        loss = mx.nd.ctc_loss(data=x, label=mx.nd.array(label),
                              data_lengths=mx.nd.array(lengths), use_data_lengths=True)
    loss.backward()
    np.testing.assert_allclose(loss.asnumpy(), want, rtol=1e-5, atol=1e-6)
    g = x.grad.asnumpy()
    assert np.isfinite(g).all() and (g[4:, 0] == 0).all()
