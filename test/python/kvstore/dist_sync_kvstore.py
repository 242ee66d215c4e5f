"""MXNet 1.9.1's tests/nightly/dist_sync_kvstore.py semantics on mxc (dense
keys): run by test_dist.py under mpirun with 4 ranks. Each worker pushes
ones * (rank + 1) under the 'test' optimizer (weight += rescale_grad * grad);
after round i every worker pulls exactly (n + 1) * n / 2 * rate * i + 1, for a
small key and a key above MXNET_KVSTORE_BIGARRAY_BOUND, float32 and float16.
Also: pushpull / broadcast, several keys in one call, the errors naming the key."""
import sys

import numpy as np

import mxc as mx

shape = (2, 3)
big_shape = (1200, 1200)  # bigger than MXNET_KVSTORE_BIGARRAY_BOUND (1e6)
keys_shape = ["3", "5", "7"]
keys_big_shape = ["99"]
fp16_keys_shape = ["4", "6", "8"]
fp16_keys_big_shape = ["100"]
keys_shapes = [(k, shape) for k in keys_shape] + [(k, big_shape) for k in keys_big_shape]
fp16_keys_shapes = [(k, shape) for k in fp16_keys_shape] + \
    [(k, big_shape) for k in fp16_keys_big_shape]
rate = 2

kv = mx.kv.create(sys.argv[1] if len(sys.argv) > 1 else "dist_sync")
my_rank = kv.rank
nworker = kv.num_workers


def check_diff(a, x):
    assert np.sum(np.abs(a.asnumpy().astype(np.float64) - x)) == 0, (my_rank, a.asnumpy(), x)


kv.init(keys_shape, [mx.nd.ones(shape)] * len(keys_shape))
kv.init(keys_big_shape, [mx.nd.ones(big_shape)] * len(keys_big_shape))
kv.init(fp16_keys_shape, [mx.nd.ones(shape, dtype="float16")] * len(keys_shape))
kv.init(fp16_keys_big_shape, [mx.nd.ones(big_shape, dtype="float16")] * len(keys_big_shape))
kv.set_optimizer(mx.optimizer.create("test", rescale_grad=rate))

nrepeat = 3
for dtype, ks in (("float32", keys_shapes), ("float16", fp16_keys_shapes)):
    for k, s in ks:
        for i in range(nrepeat):
            kv.push(k, mx.nd.ones(s, dtype=dtype) * (my_rank + 1))
            num = (nworker + 1) * nworker * rate / 2 * (i + 1) + 1
            val = mx.nd.zeros(s, dtype=dtype)
            kv.pull(k, out=val)
            check_diff(val, num)

# Several keys in one call, and pushpull.
kv2 = mx.kv.create(sys.argv[1] if len(sys.argv) > 1 else "dist_sync")
kv2.init([10, 11], [mx.nd.zeros(shape), mx.nd.zeros(big_shape)])
outs = [mx.nd.zeros(shape), mx.nd.zeros(big_shape)]
kv2.pushpull([10, 11], [mx.nd.ones(shape) * (my_rank + 1), mx.nd.ones(big_shape)], out=outs)
check_diff(outs[0], nworker * (nworker + 1) / 2)  # no updater: the round's sum
check_diff(outs[1], nworker)
# broadcast: rank 0's value everywhere.
b = mx.nd.zeros(shape)
kv2.broadcast(12, mx.nd.ones(shape) * (my_rank + 7), out=b)
check_diff(b, 7)

# Bad input: MXNetError naming the key.
for bad, what in ((lambda: kv.push("3", mx.nd.ones((4, 4))), "'3'"),
                  (lambda: kv.push("3", mx.nd.ones(shape, dtype="float64")), "'3'"),
                  (lambda: kv.pull("nokey", out=mx.nd.zeros(shape)), "'nokey'")):
    try:
        bad()
    except mx.MXNetError as e:
        assert what in str(e), str(e)
    else:
        raise AssertionError("no MXNetError for " + what)
kv.barrier()
print("rank %d of %d: dist_sync_kvstore passed" % (my_rank, nworker))
