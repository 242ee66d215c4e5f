"""Data-parallel training with Module and a dist KVStore (run by test_dist.py).

    mpirun -np 4 python dist_train.py OUTDIR dist_sync   # each rank: its slice of every global batch
    python dist_train.py OUTDIR none                      # one process, the whole global batch

After every step each process writes its parameters to OUTDIR/<mode>-rank<r>-step<s>.npz;
the test compares the ranks bit for bit and the ranks with the single process
(1e-6 relative)."""
import os
import sys

import numpy as np

import mxc as mx

outdir, mode = sys.argv[1], sys.argv[2]
steps = int(os.environ.get("STEPS", "5"))
global_batch = 32

data = mx.sym.var("data")
net = mx.sym.Convolution(data, num_filter=4, kernel=(3, 3), name="conv1")
net = mx.sym.Activation(net, act_type="relu", name="relu1")
net = mx.sym.Pooling(net, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
net = mx.sym.flatten(net, name="flat")
net = mx.sym.FullyConnected(net, num_hidden=16, name="fc1")
net = mx.sym.Activation(net, act_type="tanh", name="tanh1")
net = mx.sym.FullyConnected(net, num_hidden=5, name="fc2")
net = mx.sym.SoftmaxOutput(net, name="softmax")

rng = np.random.RandomState(42)
X = rng.randn(steps * global_batch, 1, 8, 8).astype(np.float32)
Y = rng.randint(0, 5, size=steps * global_batch).astype(np.float32)

if mode == "none":
    kv, rank, nworker = None, 0, 1
else:
    kv = mx.kv.create(mode)
    rank, nworker = kv.rank, kv.num_workers
local = global_batch // nworker

mod = mx.mod.Module(net, context=mx.cpu())
mod.bind(data_shapes=[("data", (local, 1, 8, 8))], label_shapes=[("softmax_label", (local,))])
# Different initial weights on every rank: the store must broadcast rank 0's.
mx.random.seed(7 + rank)
mod.init_params(mx.init.Xavier(rnd_type="gaussian", magnitude=2))
if rank == 0:
    # the same start as the single process (which also draws with seed 7)
    pass
mod.init_optimizer(kvstore=kv, optimizer="sgd",
                   optimizer_params=(("learning_rate", 0.1), ("momentum", 0.9), ("wd", 1e-3)))
for step in range(steps):
    lo = step * global_batch + rank * local
    batch = mx.io.DataBatch(data=[mx.nd.array(X[lo:lo + local])],
                            label=[mx.nd.array(Y[lo:lo + local])])
    mod.forward_backward(batch)
    mod.update()
    args, _ = mod.get_params()
    np.savez(os.path.join(outdir, "%s-rank%d-step%d.npz" % (mode, rank, step)),
             **{k: v.asnumpy() for k, v in args.items()})
print("rank %d of %d: %d steps of %s done" % (rank, nworker, steps, mode))
