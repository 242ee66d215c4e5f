"""mx.sym.random.*: samplers compiled into graphs, drawn from
the graph's rng_seed (mx-decompose), which executors set from mx.random's
state, so that mx.random.seed makes them reproducible as in MXNet."""
import math

import numpy as np
import pytest

import mxc as mx


def _bind(sym, shape, dtype="float32"):
    x = mx.nd.zeros(shape, dtype=dtype)
    g = mx.nd.zeros(shape, dtype=dtype)
    return sym.bind(mx.cpu(), {"X": x}, {"X": g}), g


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_uniform_follows_the_seed(dtype):
    # MXNet's test_parallel_random_seed_setting: the same seed gives the same
    # numbers in training and inference forwards, and in a graph built again
    shape = (60, 50)
    runs = []
    for _ in range(2):
        y = mx.sym.random.uniform(low=-1.5, high=3.0, shape=shape, dtype=dtype) + \
            mx.sym.Variable("X")
        e, g = _bind(y, shape, dtype)
        mx.random.seed(1234)
        e.forward(is_train=True)
        e.backward(e.outputs[0])
        train = e.outputs[0].asnumpy()
        assert train.dtype == np.dtype(dtype)
        assert (g.asnumpy() == train).all()  # d(u + X)/dX * out_grad
        mx.random.seed(1234)
        infer = e.forward()[0].asnumpy()
        assert (infer == train).all()
        mx.random.seed(1235)
        assert (e.forward()[0].asnumpy() != train).mean() > 0.99
        runs.append(train)
    assert (runs[0] == runs[1]).all()
    u = runs[0].astype(np.float64)
    assert u.min() >= -1.5 and u.max() <= 3.0 and abs(u.mean() - 0.75) < 0.05


def test_samplers_in_one_graph_are_independent():
    y = mx.sym.Group([mx.sym.random.uniform(shape=(1000,)), mx.sym.random.uniform(shape=(1000,)),
                      mx.sym.random.normal(shape=(1000,))])
    a, b, c = [o.asnumpy() for o in y.bind(mx.cpu(), {}).forward()]
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.1 and abs(np.corrcoef(a, c)[0, 1]) < 0.1


def test_normal_moments():
    n = mx.sym.random.normal(1.0, 2.0, shape=(200000,))
    o = n.bind(mx.cpu(), {}).forward()[0].asnumpy().astype(np.float64)
    assert abs(o.mean() - 1.0) < 0.03 and abs(o.std() - 2.0) < 0.03
    # Box-Muller's tails: about 4.6% beyond two standard deviations
    assert 0.04 < (np.abs(o - 1.0) > 4.0).mean() < 0.052


def test_sampler_errors():
    # MXNet's checks (sample_op.h), named by the node, at bind
    with pytest.raises(mx.base.MXNetError, match="scale parameter in gaussian has to be positive"):
        mx.sym.random.normal(0, -1, (2, 2), name="bad").bind(mx.cpu(), {}).forward()
    with pytest.raises(mx.base.MXNetError, match="low must be less or equal to high"):
        mx.sym.random.uniform(2, 1, (2, 2)).bind(mx.cpu(), {}).forward()
    with pytest.raises(mx.base.MXNetError, match="must all have the same type"):
        mx.sym.random.uniform(mx.sym.Variable("lo"), 1.0, (2,))
    with pytest.raises(mx.base.MXNetError,
                       match="alpha parameter in gamma distribution has to be positive"):
        mx.sym.random.gamma(0.0, 1.0, shape=(2,)).bind(mx.cpu(), {}).forward()
    with pytest.raises(mx.base.MXNetError,
                       match="lambda parameter in poisson distribution has to be non-negative"):
        mx.sym.random.poisson_like(mx.sym.Variable("x"), lam=-1.0).bind(
            mx.cpu(), {"x": mx.nd.ones((2,))}).forward()
    with pytest.raises(mx.base.MXNetError, match="the parameters' shapes differ"):
        mx.sym.random.normal(mx.sym.Variable("m"), mx.sym.Variable("s"), shape=(3,)).bind(
            mx.cpu(), {"m": mx.nd.ones((2,)), "s": mx.nd.ones((3,))}).forward()
    with pytest.raises(AttributeError, match="mx.sym.random.randint is not in mxc"):
        mx.sym.random.randint(0, 5)


def test_module_forward_draws_from_the_seed():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=3, name="fc") + \
        mx.sym.random.normal(shape=(4, 3), scale=0.1)
    mod = mx.mod.Module(net, data_names=["data"], label_names=None)
    mod.bind(data_shapes=[("data", (4, 5))], for_training=False)
    mod.init_params()
    batch = mx.io.DataBatch([mx.nd.ones((4, 5))])
    outs = []
    for s in (7, 7, 8):
        mx.random.seed(s)
        mod.forward(batch, is_train=False)
        outs.append(mod.get_outputs()[0].asnumpy())
    assert (outs[0] == outs[1]).all() and not (outs[0] == outs[2]).all()


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_multinomial_follows_the_seed(dtype):
    # MXNet's test_random_seed_setting_for_context: the same seed draws the
    # same indices; the frequencies follow the probabilities.
    probs = [0.125, 0.25, 0.25, 0.0625, 0.125, 0.1875]
    p = mx.sym.Variable("P")
    exe = mx.sym.random.multinomial(data=p, shape=20000).bind(
        mx.cpu(), {"P": mx.nd.array(probs, dtype=dtype)})
    mx.random.seed(1234)
    a = exe.forward()[0].asnumpy()
    mx.random.seed(1234)
    b = exe.forward()[0].asnumpy()
    c = exe.forward()[0].asnumpy()
    assert a.dtype == np.int32 and a.shape == (20000,)
    assert np.array_equal(a, b) and not np.array_equal(b, c)
    np.testing.assert_allclose(np.bincount(a, minlength=6) / 20000.0, probs, atol=0.015)


def test_multinomial_log_prob_gradient():
    # get_prob: log p[index] per draw; its gradient reaches p (MXNet's
    # _backward_sample_multinomial: the head gradient over p at each draw).
    p = mx.sym.Variable("p")
    probs = np.array([[0.1, 0.9], [0.5, 0.5], [0.3, 0.7]], np.float32)
    exe = mx.sym.random.multinomial(p, shape=(4,), get_prob=True).bind(
        mx.cpu(), {"p": mx.nd.array(probs)}, args_grad={"p": mx.nd.zeros((3, 2))})
    idx, logp = [o.asnumpy() for o in exe.forward(is_train=True)]
    np.testing.assert_allclose(logp, np.log(np.take_along_axis(probs, idx, axis=1)), rtol=1e-6)
    head = np.random.default_rng(0).uniform(0.5, 2.0, size=(3, 4)).astype(np.float32)
    exe.backward([mx.nd.zeros((3, 4)), mx.nd.array(head)])
    want = np.zeros_like(probs)
    for r in range(3):
        for j in range(4):
            want[r, idx[r, j]] += head[r, j] / probs[r, idx[r, j]]
    np.testing.assert_allclose(exe.grad_dict["p"].asnumpy(), want, rtol=1e-5)


def test_shuffle_in_a_graph():
    # MXNet's test_shuffle (symbol part): two shuffles then a sort give the
    # data back; a shuffle keeps each row whole.
    a = mx.sym.Variable("a")
    c = mx.sym.random.shuffle(data=mx.sym.random.shuffle(a), name="c")
    data = mx.nd.arange(0, 30).reshape((10, 3))
    assert (mx.sym.sort(c, axis=0).eval(a=data, ctx=mx.cpu())[0] == data).asnumpy().all()
    seen = set()
    for seed in range(5):
        mx.random.seed(seed)
        out = c.eval(a=data, ctx=mx.cpu())[0].asnumpy()
        assert np.array_equal(out[:, 1:] - out[:, :1], np.tile([1.0, 2.0], (10, 1)))
        seen.add(tuple(out[:, 0]))
    assert len(seen) > 1


def _draw(sym, **args):
    return sym.bind(mx.cpu(), {k: mx.nd.array(v, dtype=np.asarray(v).dtype)
                               for k, v in args.items()}).forward()[0].asnumpy()


def _poisson_pmf(lam, k):
    return np.exp(-lam + k * np.log(lam) - np.array([math.lgamma(x + 1) for x in k])) \
        if lam > 0 else (k == 0).astype(np.float64)


@pytest.mark.parametrize("lam", [0.0, 0.5, 4.0, 9.9, 10.0, 25.0, 300.0])
def test_poisson_frequencies(lam):
    # both of the sampler's methods (CDF inversion below 10, PTRS from 10 on)
    # and the boundary: each value's frequency within 5 binomial deviations
    # of the probability
    n = 40000
    x = _draw(mx.sym.random.poisson(mx.sym.Variable("lam"), shape=(n,), dtype="float64"),
              lam=np.array([lam]))[0]
    assert (x == np.round(x)).all() and x.min() >= 0
    k = np.arange(int(lam + 6 * np.sqrt(lam) + 8))
    p = _poisson_pmf(lam, k)
    freq = np.bincount(x.astype(np.int64), minlength=k.size)[:k.size] / n
    assert (np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-4).all(), (lam, freq, p)
    assert abs(x.mean() - lam) < 5 * np.sqrt(max(lam, 1e-3) / n) + 1e-9


@pytest.mark.parametrize("alpha,beta", [(0.1, 1.0), (0.9, 2.0), (1.0, 1.0), (2.5, 0.5),
                                        (9.0, 0.3)])
def test_gamma_distribution(alpha, beta):
    # Kolmogorov distance to numpy's gamma sampler (a large sample of it)
    n = 40000
    x = _draw(mx.sym.random.gamma(alpha=alpha, beta=beta, shape=(n,), dtype="float64"))
    ref = np.sort(np.random.default_rng(0).gamma(alpha, beta, size=400000))
    xs = np.sort(x)
    cdf_ref = np.searchsorted(ref, xs, side="right") / ref.size
    cdf_x = np.arange(1, n + 1) / n
    assert np.abs(cdf_x - cdf_ref).max() < 0.012, (alpha, beta)
    assert x.min() >= 0


def test_negative_binomial_frequencies():
    k, p, n = 3, 0.4, 40000
    x = _draw(mx.sym.random.negative_binomial(k=k, p=p, shape=(n,)))
    v = np.arange(30)
    pmf = np.exp(np.array([math.lgamma(k + j) - math.lgamma(j + 1) - math.lgamma(k)
                           for j in v]) + k * np.log(p) + v * np.log(1 - p))
    freq = np.bincount(x.astype(np.int64), minlength=v.size)[:v.size] / n
    assert (np.abs(freq - pmf) <= 5 * np.sqrt(pmf * (1 - pmf) / n) + 1e-4).all()


def test_generalized_negative_binomial_moments():
    # alpha 0 is Poisson(mu); otherwise mean mu, variance mu + alpha mu^2
    x = _draw(mx.sym.random.generalized_negative_binomial(
        mx.sym.Variable("mu"), mx.sym.Variable("alpha"), shape=(40000,), dtype="float64"),
        mu=np.array([2.0, 3.0]), alpha=np.array([0.5, 0.0]))
    assert abs(x[0].mean() - 2.0) < 0.05 and abs(x[0].var() - 4.0) < 0.25
    assert abs(x[1].mean() - 3.0) < 0.05 and abs(x[1].var() - 3.0) < 0.15


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_like_and_sample_forms_follow_the_seed(dtype):
    # MXNet's test_random (symbolic part): the same seed gives the same
    # numbers in training and inference forwards; no gradient reaches the
    # parameters of _sample_* (MXNet's zero gradient); _like takes data's
    # shape and type
    x = mx.sym.Variable("X")
    lam = mx.sym.Variable("lam")
    y = mx.sym.Group([mx.sym.random.gamma_like(mx.sym.ones((30, 20), dtype=dtype), alpha=2.0)
                      + x, mx.sym.broadcast_mul(mx.sym.random.poisson(lam, shape=(20,), dtype=dtype),
                                           mx.sym.reshape(lam, (2, 1)))])
    args = {"X": mx.nd.zeros((30, 20), dtype=dtype), "lam": mx.nd.array([3.0, 40.0], dtype=dtype)}
    grads = {"X": mx.nd.zeros((30, 20), dtype=dtype), "lam": mx.nd.ones((2,), dtype=dtype)}
    e = y.bind(mx.cpu(), args, grads)
    mx.random.seed(5)
    train = [o.asnumpy() for o in e.forward(is_train=True)]
    e.backward([mx.nd.ones((30, 20), dtype=dtype), mx.nd.ones((2, 20), dtype=dtype)])
    mx.random.seed(5)
    infer = [o.asnumpy() for o in e.forward()]
    assert all((a == b).all() for a, b in zip(train, infer))
    assert train[0].dtype == np.dtype(dtype) and train[0].shape == (30, 20)
    assert train[1].shape == (2, 20)
    # d(sample * lam)/dlam = sample summed over the draws: the sampler
    # itself contributes nothing
    s = train[1].astype(np.float64) / np.array([[3.0], [40.0]])
    np.testing.assert_allclose(grads["lam"].asnumpy(), s.sum(axis=1), rtol=5e-3)


def test_randn_and_exponential_forms():
    # randn's data keyword gives the shape (MXNet infers it from the
    # consumer); exponential's scale is the mean (the operator's lam = 1 / scale)
    n = mx.sym.random.randn(loc=10.0, scale=0.5, data=mx.sym.ones((200, 100)))
    x = n.bind(mx.cpu(), {}).forward()[0].asnumpy()
    assert x.shape == (200, 100) and abs(x.mean() - 10.0) < 0.02 and abs(x.std() - 0.5) < 0.02
    e = mx.sym.random.exponential(mx.sym.Variable("scale"), shape=(20000,))
    x = _draw(e, scale=np.array([0.5, 4.0], np.float32))
    np.testing.assert_allclose(x.mean(axis=1), [0.5, 4.0], rtol=0.04)
    assert '"_sample_exponential"' in e.tojson() and '"_rdiv_scalar"' in e.tojson()


def test_positional_shape_and_dtype():
    # MXNet's order: the distribution's parameters, then shape, then dtype
    s = mx.sym.random.poisson(4.0, (5,), "float64")
    x = s.bind(mx.cpu(), {}).forward()[0]
    assert x.shape == (5,) and x.dtype == np.float64
    assert mx.sym.random.uniform(0, 1, (2, 3)).infer_shape()[1] == [(2, 3)]
    with pytest.raises(TypeError, match="too many positional arguments"):
        mx.sym.random.gamma(1.0, 1.0, (2,), "float32", 7)
