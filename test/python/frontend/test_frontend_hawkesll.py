"""mx.nd.contrib.hawkesll (composed of mxc's operators) against a loop
written from MXNet's kernel (hawkes_ll-inl.h), and its gradients against
finite differences."""
import numpy as np

import mxc as mx


def reference(mu, alpha, beta, state, lags, marks, valid, max_time):
    n, k = mu.shape
    ll, st = np.zeros(n), state.astype(np.float64).copy()
    for i in range(n):
        last, t = np.zeros(k), 0.0
        for j in range(int(valid[i])):
            c = marks[i, j]
            t += lags[i, j]
            d = t - last[c]
            ed = np.exp(-beta[c] * d)
            lda = mu[i, c] + alpha[c] * beta[c] * st[i, c] * ed
            ll[i] += np.log(lda) - (mu[i, c] * d + alpha[c] * st[i, c] * (1 - ed))
            st[i, c] = 1 + st[i, c] * ed
            last[c] = t
        d = max_time[i] - last
        ed = np.exp(-beta * d)
        ll[i] -= np.sum(mu[i] * d + alpha * st[i] * (1 - ed))
        st[i] = ed * st[i]
    return ll, st


R = np.random.default_rng(11)
N, K, T = 3, 2, 6
MU = R.uniform(0.5, 2.0, (N, K))
ALPHA, BETA = R.uniform(0.1, 0.5, K), R.uniform(0.5, 2.0, K)
STATE = R.uniform(0, 1, (N, K))
LAGS = R.uniform(0.1, 2.0, (N, T))
MARKS = R.integers(0, K, (N, T)).astype(np.int32)
VALID = np.array([6, 3, 0], np.float64)
MAX_TIME = np.array([15.0, 12.0, 4.0])


def run(mu, alpha, beta, dtype="float64"):
    a = lambda x, d=dtype: mx.nd.array(x, dtype=d)
    return mx.nd.contrib.hawkesll(a(mu), a(alpha), a(beta), a(STATE), a(LAGS),
                                  a(MARKS, "int32"), a(VALID), a(MAX_TIME))


def test_forward_matches_kernel_loop():
    ll, st = run(MU, ALPHA, BETA)
    want_ll, want_st = reference(MU, ALPHA, BETA, STATE, LAGS, MARKS, VALID, MAX_TIME)
    np.testing.assert_allclose(ll.asnumpy(), want_ll, rtol=1e-10)
    np.testing.assert_allclose(st.asnumpy(), want_st, rtol=1e-10)


def test_gradients_by_finite_differences():
    mu, alpha, beta = (mx.nd.array(x, dtype="float64") for x in (MU, ALPHA, BETA))
    for x in (mu, alpha, beta):
        x.attach_grad()
    with mx.autograd.record():
        ll, _ = mx.nd.contrib.hawkesll(mu, alpha, beta, mx.nd.array(STATE, dtype="float64"),
                                       mx.nd.array(LAGS, dtype="float64"),
                                       mx.nd.array(MARKS, dtype="int32"),
                                       mx.nd.array(VALID, dtype="float64"),
                                       mx.nd.array(MAX_TIME, dtype="float64"))
    ll.backward()
    f = lambda m, a, b: reference(m, a, b, STATE, LAGS, MARKS, VALID, MAX_TIME)[0].sum()
    eps = 1e-6
    for idx, (x, base) in enumerate(((mu, MU), (alpha, ALPHA), (beta, BETA))):
        num = np.zeros_like(base)
        for pos in np.ndindex(base.shape):
            args = [MU.copy(), ALPHA.copy(), BETA.copy()]
            args[idx][pos] += eps
            up = f(*args)
            args[idx][pos] -= 2 * eps
            num[pos] = (up - f(*args)) / (2 * eps)
        np.testing.assert_allclose(x.grad.asnumpy(), num, rtol=1e-5, atol=1e-7)


def test_marks_out_of_range_is_an_error():
    import pytest
    bad = MARKS.copy()
    bad[1, 2] = K
    a = lambda x, d="float64": mx.nd.array(x, dtype=d)
    with pytest.raises(mx.MXNetError, match=r"marks must be in \[0, 2\)"):
        mx.nd.contrib.hawkesll(a(MU), a(ALPHA), a(BETA), a(STATE), a(LAGS), a(bad, "int32"),
                               a(VALID), a(MAX_TIME))
