"""One data-parallel training step traced (run by test_dist.py under mpirun):
each rank writes OUTDIR/trace<rank>.json with the plan's steps and the
KVStore's operations. A network whose backward pass is long enough for the
pushes of the late layers to run while the early layers' gradients are
still being computed."""
import os
import sys

import numpy as np

import mxc as mx

outdir = sys.argv[1]
kv = mx.kv.create("dist_sync")
data = mx.sym.var("data")
net = data
for i, c in enumerate((16, 32, 32)):
    net = mx.sym.Convolution(net, num_filter=c, kernel=(3, 3), pad=(1, 1), name="conv%d" % i)
    net = mx.sym.Activation(net, act_type="relu", name="relu%d" % i)
net = mx.sym.Pooling(net, kernel=(4, 4), stride=(4, 4), pool_type="avg", name="pool")
net = mx.sym.FullyConnected(mx.sym.flatten(net), num_hidden=64, name="fc1")
net = mx.sym.FullyConnected(mx.sym.Activation(net, act_type="relu"), num_hidden=10, name="fc2")
net = mx.sym.SoftmaxOutput(net, name="softmax")
batch = 16
mod = mx.mod.Module(net, context=mx.cpu())
mod.bind(data_shapes=[("data", (batch, 3, 32, 32))], label_shapes=[("softmax_label", (batch,))])
mod.init_params(mx.init.Xavier())
mod.init_optimizer(kvstore=kv, optimizer="sgd", optimizer_params=(("learning_rate", 0.01),))
rng = np.random.RandomState(kv.rank)
b = mx.io.DataBatch(data=[mx.nd.array(rng.randn(batch, 3, 32, 32))],
                    label=[mx.nd.array(rng.randint(0, 10, batch))])
mod.forward_backward(b)  # warm-up: compiles
mod.update()
mx.nd.waitall()
kv.barrier()
mx.profiler.set_config(profile_all=True, filename=os.path.join(outdir, "trace%d.json" % kv.rank))
mx.profiler.set_state("run")
mod.forward_backward(b)
mod.update()
mx.nd.waitall()
mx.profiler.set_state("stop")
mx.profiler.dump()
print("rank %d: traced" % kv.rank)
