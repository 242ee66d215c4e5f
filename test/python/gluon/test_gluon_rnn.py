"""gluon.rnn: the fused layers (RNN, LSTM, GRU on MXNet's RNN operator) and
the cells, against MXNet 1.9.1 itself (the same script, the same weights:
outputs, input and parameter gradients, hybridized and not; skipped without
.venv-mxnet) and on their own (export / import, states, errors)."""
import numpy as np
import pytest

import mxc as mx
from mxc import autograd, gluon

from mxnet_side import needs_mxnet, run_mxnet, run_mxc

SCRIPT = r'''
import sys, importlib, numpy as np
mx = importlib.import_module(sys.argv[1])
gluon, autograd = mx.gluon, mx.autograd
out = {}
x = np.random.RandomState(1).randn(3, 4, 5).astype(np.float32)   # (N, T, C)
layers = [("lstm", lambda: gluon.rnn.LSTM(6, num_layers=2, layout="NTC", bidirectional=True)),
          ("gru", lambda: gluon.rnn.GRU(6, layout="NTC", num_layers=2)),
          ("rnn_tanh", lambda: gluon.rnn.RNN(6, activation="tanh", bidirectional=True)),
          ("rnn_relu", lambda: gluon.rnn.RNN(4, layout="NTC"))]
for name, make in layers:
    for hyb in (0, 1):
        net = make()
        net.initialize()
        xx = mx.nd.array(x)
        net(xx)
        prng = np.random.RandomState(7)
        keys = sorted(net.collect_params())
        for k in keys:
            p = net.collect_params()[k]
            p.set_data(mx.nd.array(prng.randn(*p.shape).astype(np.float32) * 0.3))
        if hyb:
            net.hybridize()
        xx.attach_grad()
        states = net.begin_state(x.shape[1] if net._layout == "TNC" else x.shape[0])
        with autograd.record():
            o, st = net(xx, states)
            loss = (o * o).sum() + sum((s * s).sum() for s in st)
        loss.backward()
        out["%s_%d_out" % (name, hyb)] = o.asnumpy()
        for i, s in enumerate(st):
            out["%s_%d_state%d" % (name, hyb, i)] = s.asnumpy()
        out["%s_%d_dx" % (name, hyb)] = xx.grad.asnumpy()
        for k in keys:
            out["%s_%d_%s" % (name, hyb, k.split("_", 1)[1])] = \
                net.collect_params()[k].grad().asnumpy()
prng = np.random.RandomState(3)

def fill(block):
    for k in sorted(block.collect_params()):
        p = block.collect_params()[k]
        p.set_data(mx.nd.array(prng.randn(*p.shape).astype(np.float32) * 0.3))

cell = gluon.rnn.LSTMCell(5, input_size=5)
cell.initialize(); fill(cell)
outs, st = cell.unroll(4, mx.nd.array(x), layout="NTC", merge_outputs=True)
out["lstmcell"] = outs.asnumpy(); out["lstmcell_c"] = st[1].asnumpy()
seq = gluon.rnn.SequentialRNNCell()
with seq.name_scope():
    seq.add(gluon.rnn.GRUCell(5, input_size=5))
    seq.add(gluon.rnn.ResidualCell(gluon.rnn.RNNCell(5, input_size=5, activation="relu")))
seq.initialize(); fill(seq)
outs, st = seq.unroll(4, mx.nd.array(x), layout="NTC", merge_outputs=False)
for i, o in enumerate(outs):
    out["seq_%d" % i] = o.asnumpy()
bi = gluon.rnn.BidirectionalCell(gluon.rnn.GRUCell(3, input_size=5, prefix="l_"),
                                 gluon.rnn.GRUCell(3, input_size=5, prefix="r_"))
bi.initialize(); fill(bi)
outs, st = bi.unroll(4, mx.nd.array(x), layout="NTC", merge_outputs=True)
out["bi"] = outs.asnumpy(); out["bi_state"] = st[1].asnumpy()
np.savez(sys.argv[2], **out)
'''


@needs_mxnet
def test_rnn_layers_and_cells_match_mxnet(tmp_path):
    run_mxnet(SCRIPT, "mxnet", tmp_path / "mxnet.npz")
    run_mxc(SCRIPT, "mxc", tmp_path / "mxc.npz")
    want, got = np.load(tmp_path / "mxnet.npz"), np.load(tmp_path / "mxc.npz")
    assert sorted(want.files) == sorted(got.files)
    for k in want.files:
        assert got[k].shape == want[k].shape, k
        np.testing.assert_allclose(got[k], want[k], rtol=1e-4, atol=1e-5, err_msg=k)


def test_lstm_layer_states_export_and_import(tmp_path):
    net = gluon.rnn.LSTM(4, num_layers=2, input_size=3)
    net.initialize(mx.init.Xavier())
    assert sorted(net.collect_params()) == sorted(
        "%s%s%d_%s_%s" % (net.prefix, d, l, g, t) for d in "l" for l in range(2)
        for g in ("i2h", "h2h") for t in ("weight", "bias"))
    x = mx.nd.array(np.random.RandomState(0).randn(5, 2, 3))
    y = net(x)                                  # no states given: outputs only
    assert y.shape == (5, 2, 4)
    states = net.begin_state(2)
    assert [s.shape for s in states] == [(2, 2, 4), (2, 2, 4)]
    y2, (h, c) = net(x, states)
    np.testing.assert_allclose(y2.asnumpy(), y.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(h.asnumpy()[1], y.asnumpy()[-1], rtol=1e-6)
    net.hybridize()
    y3, _ = net(x, states)
    np.testing.assert_allclose(y3.asnumpy(), y.asnumpy(), rtol=1e-5, atol=1e-6)
    net.export(str(tmp_path / "lstm"))
    back = gluon.SymbolBlock.imports(str(tmp_path / "lstm-symbol.json"),
                                     ["data0", "data1", "data2"],
                                     str(tmp_path / "lstm-0000.params"))
    got = back(x, *states)
    np.testing.assert_allclose(got[0].asnumpy(), y.asnumpy(), rtol=1e-5, atol=1e-6)
    net.hybridize(False)
    with pytest.raises(mx.MXNetError, match="Invalid recurrent state shape"):
        net(x, net.begin_state(3))


def test_rnn_inside_hybridized_network_trains():
    """Embedding -> LSTM -> Dense hybridized (the LSTM traced without states:
    its zero states come from the input) trains with a Trainer."""
    net = gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(gluon.nn.Embedding(10, 6), gluon.rnn.GRU(5, layout="NTC"),
                gluon.nn.Dense(2, flatten=False))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    tr = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.05})
    rng = np.random.RandomState(0)
    x = mx.nd.array(rng.randint(0, 10, (8, 4)))
    y = mx.nd.array((x.asnumpy() % 2))
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    losses = []
    for _ in range(30):
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        tr.step(8)
        losses.append(float(loss.mean().asscalar()))
    assert losses[-1] < 0.5 * losses[0], losses


def test_rnn_unsupported_options_raise():
    with pytest.raises(mx.MXNetError, match="projection_size"):
        gluon.rnn.LSTM(4, projection_size=2)
    with pytest.raises(mx.MXNetError, match="use_sequence_length"):
        gluon.rnn.GRU(4, use_sequence_length=True)
    cell = gluon.rnn.GRUCell(3, input_size=2)
    cell.initialize()
    with pytest.raises(mx.MXNetError, match="valid_length"):
        cell.unroll(2, mx.nd.ones((1, 2, 2)), valid_length=mx.nd.ones((1,)))
    with pytest.raises(NotImplementedError, match="unroll"):
        gluon.rnn.BidirectionalCell(gluon.rnn.GRUCell(3), gluon.rnn.GRUCell(3))(
            mx.nd.ones((1, 2)), [])
