"""A rank fails mid-training (run by test_dist.py): FAULT=kill makes rank
FAULT_RANK kill -9 itself after step 3, FAULT=raise makes it raise. The
other ranks are inside a dist_sync all-reduce or about to be: the job must
end within seconds, every rank non-zero, naming the lost rank. Each rank
writes OUTDIR/alive<rank> with a timestamp before each step."""
import os
import signal
import sys
import time

import numpy as np

import mxc as mx

outdir = sys.argv[1]
fault, fault_rank = os.environ.get("FAULT", "kill"), int(os.environ.get("FAULT_RANK", "1"))
kv = mx.kv.create("dist_sync")
rank = kv.rank
kv.init("w", mx.nd.zeros((256, 256)))
kv.set_optimizer(mx.optimizer.create("sgd", learning_rate=0.1))
w = mx.nd.zeros((256, 256))
for step in range(10000):
    with open(os.path.join(outdir, "alive%d" % rank), "w") as f:
        f.write("%d %.6f\n" % (step, time.time()))
    if rank == fault_rank and step == 3:
        with open(os.path.join(outdir, "fault"), "w") as f:
            f.write("%.6f\n" % time.time())
        if fault == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        raise ValueError("rank %d: a bug in the training script" % rank)
    kv.push("w", mx.nd.array(np.full((256, 256), 0.01, np.float32)))
    kv.pull("w", out=w)
    w.wait_to_read()
print("rank %d: unreachable" % rank)
