"""dist_async on mxc, run by test_dist.py under mpirun (the last
MXC_KV_NUM_SERVERS ranks are servers; they serve inside mx.kv.create and
exit). 1. MXNet's push semantics under the 'test' optimizer: after every
worker pushed ones * (rank + 1) nrepeat times and a barrier, a pull reads
exactly 1 + rate * nrepeat * n (n + 1) / 2, for a small key and one above the
sharding bound (split across the servers). 2. A convex problem (least
squares, each worker its own rows, SGD on the servers) converges."""
import sys

import numpy as np

import mxc as mx

kv = mx.kv.create("dist_async")  # servers never return from here
rank, nworker = kv.rank, kv.num_workers
rate = 2
shape, big_shape = (2, 3), (1200, 1200)
kv.init(["3", "99"], [mx.nd.ones(shape), mx.nd.ones(big_shape)])
kv.set_optimizer(mx.optimizer.create("test", rescale_grad=rate))
nrepeat = 3
for _ in range(nrepeat):
    kv.push(["3", "99"], [mx.nd.ones(shape) * (rank + 1), mx.nd.ones(big_shape) * (rank + 1)])
kv.barrier()
expect = 1 + rate * nrepeat * nworker * (nworker + 1) / 2
for k, s in (("3", shape), ("99", big_shape)):
    out = mx.nd.zeros(s)
    kv.pull(k, out=out)
    got = out.asnumpy()
    assert np.all(got == expect), (rank, k, got.min(), got.max(), expect)

# A pull of higher priority than the push before it still reads it (the
# lane runs the highest priority first, but a key's pull follows its push).
kv3 = mx.kv.create("dist_async")
mine = "r%d" % rank
kv3.init(["r%d" % r for r in range(nworker)], [mx.nd.ones(shape)] * nworker)
kv3.set_optimizer(mx.optimizer.create("test", rescale_grad=rate))
for i in range(4):
    kv3.push(mine, mx.nd.ones(shape) * (rank + 1), priority=-5)
    out = mx.nd.zeros(shape)
    kv3.pull(mine, out=out, priority=10)
    assert np.all(out.asnumpy() == 1 + rate * (rank + 1) * (i + 1)), (rank, i, out.asnumpy())

# Least squares: every worker holds its own rows of one problem.
kv2 = mx.kv.create("dist_async")
rng = np.random.RandomState(0)
d = 8
w_true = rng.randn(d).astype(np.float32)
X = rng.randn(64 * nworker, d).astype(np.float32)
y = X @ w_true
Xl, yl = X[rank::nworker], y[rank::nworker]
kv2.init(0, mx.nd.zeros(d))
kv2.set_optimizer(mx.optimizer.create("sgd", learning_rate=0.05))
w = mx.nd.zeros(d)
for step in range(300):
    kv2.pull(0, out=w)
    wn = w.asnumpy()
    grad = Xl.T @ (Xl @ wn - yl) / len(yl)
    kv2.push(0, mx.nd.array(grad))
kv2.barrier()
kv2.pull(0, out=w)
err = float(np.linalg.norm(w.asnumpy() - w_true) / np.linalg.norm(w_true))
assert err < 1e-3, (rank, err)
try:
    mx.kv.create("dist_async").push(0, mx.nd.ones(1))
except mx.MXNetError as e:
    assert "'0'" in str(e), str(e)  # not initialised (and no optimizer)
else:
    raise AssertionError("push to an empty store did not raise")
print("rank %d of %d workers: dist_async passed (relative error %.2e)" % (rank, nworker, err))
