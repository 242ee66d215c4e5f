"""The operators added for issue 15 against MXNet 1.9.1 itself: the same
script (random inputs from a fixed seed) runs under MXNet (.venv-mxnet) and
under mxc, imperatively under autograd.record, and the outputs and every
input gradient must agree. Skipped without .venv-mxnet (CI)."""
import os

import numpy as np
import pytest

from mxnet_side import needs_mxnet, run_mxnet, run_mxc

SCRIPT = r'''
import sys, importlib, numpy as np
mx = importlib.import_module(sys.argv[1])
rng = np.random.RandomState(0)
cases = [
    ("Deconvolution", [(2, 3, 5, 5), (3, 4, 3, 3), (4,)], dict(kernel=(3, 3), num_filter=4, no_bias=False)),
    ("Deconvolution", [(2, 4, 5, 6), (4, 3, 3, 3), (6,)],
     dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), adj=(1, 1), num_group=2, num_filter=6, no_bias=False)),
    ("Deconvolution", [(1, 2, 5, 5), (2, 2, 3, 3)], dict(kernel=(3, 3), stride=(3, 2), pad=(2, 1), adj=(2, 0), num_filter=2)),
    ("Deconvolution", [(2, 3, 7), (3, 4, 3), (4,)], dict(kernel=(3,), stride=(2,), pad=(1,), num_filter=4, no_bias=False)),
    ("LayerNorm", [(3, 4, 5), (4,), (4,)], dict(axis=1, eps=1e-3)),
    ("InstanceNorm", [(2, 3, 4, 2), (3,), (3,)], dict(eps=1e-2)),
    ("GroupNorm", [(2, 6, 3), (3,), (3,)], dict(num_groups=3)),
    ("L2Normalization", [(2, 3, 4)], dict(mode="instance")),
    ("L2Normalization", [(2, 3, 4)], dict(mode="channel")),
    ("L2Normalization", [(2, 3, 4, 2)], dict(mode="spatial")),
    ("softsign", [(3, 4)], {}),
    ("SwapAxis", [(2, 3, 4)], dict(dim1=0, dim2=2)),
    ("slice", [(5, 4, 6)], dict(begin=(1, None, -1), end=(None, 3, 0), step=(2, None, -2))),
    ("repeat", [(2, 3)], dict(repeats=2, axis=1)),
    ("tile", [(2, 3)], dict(reps=(2, 1, 2))),
    ("split", [(2, 6, 3)], dict(num_outputs=3, axis=1)),
    ("SliceChannel", [(2, 3, 4)], dict(num_outputs=4, axis=-1, squeeze_axis=True)),
    ("RNN", [(5, 2, 4), (480,), (4, 2, 3), (4, 2, 3)],
     dict(mode="lstm", state_size=3, num_layers=2, bidirectional=True)),
    ("RNN", [(5, 2, 4), (81,), (1, 2, 3)], dict(mode="gru", state_size=3, num_layers=1)),
    ("RNN", [(5, 2, 4), (27,), (1, 2, 3)], dict(mode="rnn_relu", state_size=3, num_layers=1)),
    ("UpSampling", [(2, 3, 2, 3)], dict(scale=3, sample_type="nearest", num_args=1)),
    ("UpSampling", [(1, 2, 2, 3), (1, 3, 4, 6)], dict(scale=2, sample_type="nearest", num_args=2)),
    ("UpSampling", [(1, 2, 1, 3), (1, 2, 3, 9)], dict(scale=3, sample_type="nearest", num_args=2,
                                                      multi_input_mode="sum")),
    ("UpSampling", [(2, 3, 3, 4), (3, 1, 4, 4)], dict(scale=2, sample_type="bilinear", num_filter=3,
                                                      num_args=2)),
    ("UpSampling", [(1, 2, 3, 3), (2, 1, 5, 5)], dict(scale=3, sample_type="bilinear", num_filter=2,
                                                      num_args=2)),
]
out = {}
for k, (op, shapes, attrs) in enumerate(cases):
    args = [mx.nd.array(rng.randn(*s)) for s in shapes]
    for a in args:
        a.attach_grad()
    head = rng.randn(5000)
    with mx.autograd.record():
        y = getattr(mx.nd, op)(*args, **attrs)
        if isinstance(y, (list, tuple)):
            y = y[0] * 2 + y[-1]
        h = mx.nd.array(head[:y.size].reshape(y.shape))
        loss = (y * h).sum()
    loss.backward()
    out["%d_out" % k] = y.asnumpy()
    for i, a in enumerate(args):
        out["%d_grad%d" % (k, i)] = a.grad.asnumpy()
for axes, keep in [((1,), False), ((0, 2), True)]:
    m, v = mx.nd.moments(mx.nd.array(rng.randn(3, 4, 5)), axes=axes, keepdims=keep)
    out["moments_%s_%s" % (axes, keep)] = np.stack([m.asnumpy(), v.asnumpy()])
# creation operators as symbols (bound with no arguments). Not float16
# arange: MXNet 1.9.1's gives all zeros on CPU (its half_t range kernel).
a = mx.sym.var("a")
created = [mx.sym.zeros((2, 3), dtype="int32"), mx.sym.ones(4, dtype="float16"),
           mx.sym.full((2, 2), -2.7, dtype="int8"), mx.sym.full((3,), 7.9, dtype="uint8"),
           mx.sym.full((2,), 0.5, dtype="float64"),
           mx.sym.arange(1.3, 45.6, 1.3), mx.sym.arange(50, -50, -2, dtype="int32"),
           mx.sym.arange(1.3, 456.6, 1.3, dtype="int32"),
           mx.sym.arange(2, 200, 2.5, dtype="uint8"), mx.sym.arange(0.3, 1000.1, 0.1, dtype="float32"),
           mx.sym.arange(0, 10, 3, repeat=3, dtype="float64"), mx.sym.arange(7),
           mx.sym.eye(3, 5, k=2), mx.sym.eye(4, k=-1, dtype="int64"),
           mx.sym.contrib.arange_like(a, start=2.0, step=0.5, repeat=2),
           mx.sym.contrib.arange_like(a, axis=-1)]
for k, s in enumerate(created):
    e = s.bind(mx.cpu(), args={"a": mx.nd.ones((3, 4))} if "a" in s.list_arguments() else {})
    e.forward()
    r = e.outputs[0].asnumpy()
    out["created_%d" % k] = r
    out["created_%d_dtype" % k] = np.array(str(r.dtype))
for k, (args, kw) in enumerate([((1.3, 456.6, 1.3), dict(dtype="int32")),
                                 ((0.3, 1000.1, 0.1), {}),
                                 ((5,), dict(repeat=2, dtype="int64"))]):
    out["nd_arange_%d" % k] = mx.nd.arange(*args, **kw).asnumpy()
# CTCLoss: integer labels (padding 0 with blank first, -1 with last), lengths
for k, (blank, lab, extra) in enumerate([
        ("first", [[1, 2, 2], [3, 0, 0], [4, 1, 0]], {}),
        ("last", [[0, 2, 2], [3, -1, -1], [1, 0, -1]], {}),
        ("last", [[0, 2, 2], [3, 1, 1], [1, 0, 2]],
         dict(data_lengths=[6, 4, 5], label_lengths=[3, 1, 2]))]):
    x = mx.nd.array(rng.randn(6, 3, 5))
    x.attach_grad()
    args = [x, mx.nd.array(lab)] + [mx.nd.array(v) for v in extra.values()]
    with mx.autograd.record():
        y = mx.nd.CTCLoss(*args, blank_label=blank, use_data_lengths=bool(extra),
                          use_label_lengths=bool(extra))
        loss = (y * mx.nd.array(rng.randn(3))).sum()
    loss.backward()
    out["ctc_%d_out" % k] = y.asnumpy()
    out["ctc_%d_grad" % k] = x.grad.asnumpy()
# SequenceMask / SequenceLast with lengths, both time axes
for k, (op, shape, axis, lengths) in enumerate([
        ("SequenceMask", (5, 3, 2), 0, [2, 5, 1]), ("SequenceMask", (3, 5, 2), 1, [4, 1, 3]),
        ("SequenceLast", (5, 3, 2), 0, [2, 5, 1]), ("SequenceLast", (3, 5), 1, [4, 1, 3])]):
    x = mx.nd.array(rng.randn(*shape))
    x.attach_grad()
    kw = dict(use_sequence_length=True, axis=axis)
    if op == "SequenceMask":
        kw["value"] = 0.5
    with mx.autograd.record():
        y = getattr(mx.nd, op)(x, mx.nd.array(lengths), **kw)
        loss = (y * mx.nd.array(rng.randn(*y.shape))).sum()
    loss.backward()
    out["seq_%d_out" % k] = y.asnumpy()
    out["seq_%d_grad" % k] = x.grad.asnumpy()
np.savez(sys.argv[2], **out)
'''


@needs_mxnet
def test_operators_match_mxnet(tmp_path):
    run_mxnet(SCRIPT, "mxnet", tmp_path / "mxnet.npz")
    run_mxc(SCRIPT, "mxc", tmp_path / "mxc.npz")
    want, got = np.load(tmp_path / "mxnet.npz"), np.load(tmp_path / "mxc.npz")
    assert sorted(want.files) == sorted(got.files)
    for k in want.files:
        assert got[k].shape == want[k].shape, k
        if got[k].dtype.kind == "U":
            assert got[k] == want[k], k
            continue
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-5, err_msg=k)
