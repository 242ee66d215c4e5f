"""Gluon against MXNet 1.9.1 itself (skipped where .venv-mxnet is absent):
one script, run by MXNet and by mxc, ends with the same weights; export
files load both ways with the same outputs."""
import os
import textwrap

import numpy as np
import pytest

from mxnet_side import needs_mxnet, run_mxnet, run_mxc

pytestmark = needs_mxnet

# The same source for both: `mx` is mxnet or mxc. A small CNN with BatchNorm
# (Dropout off: rate 0), weights from numpy by structural name, SGD with
# momentum and weight decay, 20 steps on fixed batches.
TRAIN = textwrap.dedent("""
    import sys, importlib, numpy as np
    mx = importlib.import_module(sys.argv[1])
    from_dir, hybrid = sys.argv[2], sys.argv[3] == '1'
    gluon, nn, autograd = mx.gluon, mx.gluon.nn, mx.autograd

    class Net(gluon.HybridBlock):
        def __init__(self, **kw):
            super(Net, self).__init__(**kw)
            with self.name_scope():
                self.conv1 = nn.Conv2D(4, 3, padding=1, in_channels=1)
                self.bn1 = nn.BatchNorm(in_channels=4)
                self.pool = nn.MaxPool2D(2)
                self.conv2 = nn.Conv2D(6, 3, in_channels=4, use_bias=False)
                self.drop = nn.Dropout(0.0)
                self.fc = nn.Dense(5, in_units=6 * 2 * 2)
        def hybrid_forward(self, F, x):
            x = self.pool(F.relu(self.bn1(self.conv1(x))))
            x = F.tanh(self.conv2(x))
            return self.fc(self.drop(F.flatten(x)))

    net = Net()
    net.initialize()
    rng = np.random.RandomState(0)
    params = net._collect_params_with_prefix()
    for name in sorted(params):
        p = params[name]
        if name.endswith('running_var'):
            p.set_data(mx.nd.array(rng.uniform(0.5, 1.5, p.shape)))
        else:
            p.set_data(mx.nd.array(rng.normal(0, 0.3, p.shape)))
    if hybrid:
        net.hybridize()
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), 'sgd',
                            {'learning_rate': 0.05, 'momentum': 0.9, 'wd': 1e-3})
    losses = []
    for step in range(20):
        x = mx.nd.array(rng.normal(0, 1, (4, 1, 8, 8)))
        y = mx.nd.array(rng.randint(0, 5, (4,)))
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(4)
        losses.append(float(loss.mean().asscalar()))
    out = {k: v.data().asnumpy() for k, v in net._collect_params_with_prefix().items()}
    out['__losses__'] = np.array(losses)
    out['__eval__'] = net(mx.nd.array(np.ones((2, 1, 8, 8)))).asnumpy()
    np.savez(from_dir + '/' + sys.argv[1] + ('_h' if hybrid else '') + '.npz', **out)
""")


@pytest.mark.parametrize("hybrid", ["0", "1"])
def test_trainer_sgd_momentum_wd_matches_mxnet(tmp_path, hybrid):
    d = str(tmp_path)
    run_mxnet(TRAIN, "mxnet", d, hybrid)
    run_mxc(TRAIN, "mxc", d, hybrid)
    suffix = "_h" if hybrid == "1" else ""
    ref = np.load(os.path.join(d, "mxnet%s.npz" % suffix))
    got = np.load(os.path.join(d, "mxc%s.npz" % suffix))
    assert sorted(ref.files) == sorted(got.files)
    for k in ref.files:
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-4, atol=1e-5, err_msg=k)
    # Training moved the weights (the comparison is not of initial values).
    assert abs(ref["__losses__"][0] - ref["__losses__"][-1]) > 1e-3


# Exports by one, SymbolBlock.imports by the other.
EXPORT = textwrap.dedent("""
    import sys, importlib, numpy as np
    mx = importlib.import_module(sys.argv[1])
    d, mode = sys.argv[2], sys.argv[3]
    nn = mx.gluon.nn
    x = mx.nd.array(np.random.RandomState(5).uniform(-1, 1, (2, 3, 10, 10)))
    if mode == 'export':
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(nn.Conv2D(8, 3, padding=1), nn.BatchNorm(), nn.Activation('relu'),
                    nn.AvgPool2D(2), nn.Conv2D(4, 1, use_bias=False), nn.LeakyReLU(0.1),
                    nn.GlobalMaxPool2D(), nn.Flatten(), nn.Dense(6, activation='tanh'),
                    nn.Dense(3))
        net.initialize(mx.init.Xavier())
        rng = np.random.RandomState(9)
        for p in net.collect_params().values():
            if p.name.endswith('running_var'):
                net(x)
        for k, p in sorted(net.collect_params().items()):
            if k.endswith('running_var'):
                p.set_data(mx.nd.array(rng.uniform(0.5, 1.5, p.shape)))
            elif k.endswith(('running_mean', 'beta', 'bias')):
                p.set_data(mx.nd.array(rng.normal(0, 0.2, p.shape)))
        net.hybridize()
        out = net(x)
        net.export(d + '/' + sys.argv[1], epoch=3)
        np.save(d + '/' + sys.argv[1] + '-out.npy', out.asnumpy())
    else:
        other = sys.argv[4]
        blk = mx.gluon.SymbolBlock.imports(d + '/' + other + '-symbol.json', ['data'],
                                           d + '/' + other + '-0003.params')
        np.save(d + '/' + other + '-imported-by-' + sys.argv[1] + '.npy', blk(x).asnumpy())
        blk.hybridize()
        np.save(d + '/' + other + '-imported-h-by-' + sys.argv[1] + '.npy', blk(x).asnumpy())
""")


def test_export_loads_both_ways(tmp_path):
    d = str(tmp_path)
    run_mxc(EXPORT, "mxc", d, "export")
    run_mxnet(EXPORT, "mxnet", d, "export")
    run_mxnet(EXPORT, "mxnet", d, "import", "mxc")
    run_mxc(EXPORT, "mxc", d, "import", "mxnet")
    for who, by in (("mxc", "mxnet"), ("mxnet", "mxc")):
        ref = np.load(os.path.join(d, who + "-out.npy"))
        for kind in ("imported", "imported-h"):
            got = np.load(os.path.join(d, "%s-%s-by-%s.npy" % (who, kind, by)))
            np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6, err_msg=who + kind)
    # The symbol files are MXNet's: the same graph text from the same code.
    with open(os.path.join(d, "mxc-symbol.json")) as f, \
            open(os.path.join(d, "mxnet-symbol.json")) as g:
        import json
        a, b = json.load(f), json.load(g)
    # (but for the inputs' version numbers: MXNet counts how often a
    # variable was composed, and its Gluon traces a block twice;
    # nor node_row_ptr: the oneDNN build of MXNet gives max pooling a
    # hidden workspace output)
    for g in (a, b):
        del g["node_row_ptr"]
        for n in g["nodes"]:
            n["inputs"] = [i[:2] for i in n["inputs"]]
    assert a == b
