"""mx.onnx.export_model: mxc graphs written as ONNX run in ONNX Runtime with
the outputs mxc gives (1e-4 relative)."""
import os

import numpy as np
import pytest

import mxc as mx
from mxc import gluon
from mxc.gluon import nn

from onnx_util import assert_close, mxc_run, ort_run, random_params

sym = mx.sym


def _check_symbol(net, data_shapes, tmp_path, seed=0, opset=None, feed=None, rtol=1e-4,
                  atol=1e-5):
    """Exports `net` with random parameters; ORT's outputs == mxc's."""
    args, aux = random_params(net, data_shapes, seed=seed, skip=("softmax_label",))
    rng = np.random.default_rng(seed + 1)
    if feed is None:
        feed = {k: rng.standard_normal(s).astype(np.float32) for k, s in data_shapes.items()}
    params = {"arg:" + k: mx.nd.array(v) for k, v in args.items()}
    params.update({"aux:" + k: mx.nd.array(v) for k, v in aux.items()})
    path = str(tmp_path / "model.onnx")
    # export_model's inputs: the graph's non-parameter variables in graph order
    order = [n for n in net.list_arguments() if n in data_shapes]
    mx.onnx.export_model(net, params, [feed[k].shape for k in order],
                         [feed[k].dtype for k in order], path, opset_version=opset)
    ref, _, in_names = ort_run(path, {k: feed[k] for k in order})
    assert in_names == order
    mx_args = {k: mx.nd.array(v) for k, v in args.items()}
    if "softmax_label" in net.list_arguments():
        mx_args["softmax_label"] = mx.nd.zeros(net.infer_shape(**data_shapes)[0][
            net.list_arguments().index("softmax_label")])
    got = mxc_run(net, mx_args, {k: mx.nd.array(v) for k, v in aux.items()}, feed)
    assert len(got) == len(ref)
    for i, (g, r) in enumerate(zip(got, ref)):
        assert_close(r, g, rtol=rtol, atol=atol, what="output %d" % i)
    return path


def test_contrib_alias():
    assert mx.contrib.onnx is mx.onnx
    assert mx.contrib.onnx.export_model is mx.onnx.export_model
    assert mx.contrib.onnx.import_model is mx.onnx.import_model


def test_gluon_cnn_exported_runs_in_onnxruntime(tmp_path):
    net = nn.HybridSequential()
    net.add(nn.Conv2D(8, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
            nn.MaxPool2D(2), nn.Conv2D(16, 3, strides=2, padding=1, use_bias=False),
            nn.BatchNorm(), nn.LeakyReLU(0.1), nn.AvgPool2D(2), nn.Conv2D(16, 1),
            nn.GlobalAvgPool2D(), nn.Flatten(), nn.Dense(32, activation="tanh"),
            nn.Dropout(0.5), nn.Dense(10))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 32, 32)).astype(np.float32)
    net(mx.nd.array(x))  # shapes of the deferred parameters
    for name, p in net.collect_params().items():
        if name.endswith("running_var"):
            p.set_data(mx.nd.array(rng.uniform(0.5, 1.5, p.shape).astype(np.float32)))
        elif name.endswith("running_mean") or name.endswith("beta"):
            p.set_data(mx.nd.array(rng.uniform(-0.3, 0.3, p.shape).astype(np.float32)))
    want = net(mx.nd.array(x)).asnumpy()
    prefix = str(tmp_path / "gluon_cnn")
    sym_file, params_file = net.export(prefix)
    path = mx.onnx.export_model(sym_file, params_file, [(2, 3, 32, 32)], np.float32,
                                str(tmp_path / "gluon_cnn.onnx"))
    assert path == str(tmp_path / "gluon_cnn.onnx")
    (got,), _, _ = ort_run(path, {"data": x})
    assert_close(got, want)
    # and back: the ONNX file imported runs in mxc with the same outputs
    s, a, x_params = mx.onnx.import_model(path)
    assert_close(mxc_run(s, a, x_params, {"data": x})[0], want)


def _conv_net():
    d = sym.var("data")
    a = sym.Convolution(d, kernel=(3, 3), num_filter=6, pad=(1, 1), name="c1")
    b = sym.Convolution(d, kernel=(3, 3), num_filter=6, pad=(2, 2), dilate=(2, 2), no_bias=True,
                        name="c2")
    x = sym.Concat(a, b, dim=1, name="cat")
    x = sym.Convolution(x, kernel=(1, 1), num_filter=12, num_group=3, name="grouped")
    x = sym.BatchNorm(x, fix_gamma=False, eps=1e-4, name="bn")
    x = sym.LRN(x, nsize=3, alpha=1e-3, beta=0.7, knorm=1.5, name="lrn")
    x = sym.Pooling(x, kernel=(3, 3), stride=(2, 2), pool_type="max",
                    pooling_convention="full", name="pool_full")
    y = sym.Pooling(x, kernel=(2, 2), stride=(1, 1), pad=(1, 1), pool_type="avg", name="pool_avg")
    z = sym.Pooling(x, kernel=(2, 2), stride=(1, 1), pad=(1, 1), pool_type="avg",
                    count_include_pad=False, name="pool_avg_excl")
    w = sym.Pooling(x, kernel=(2, 2), stride=(1, 1), pad=(1, 1), pool_type="sum", name="pool_sum")
    g = sym.Pooling(x, kernel=(1, 1), global_pool=True, pool_type="max", name="gmax")
    return sym.Group([y + z, w, g]), {"data": (2, 3, 11, 11)}


def _activations():
    d = sym.var("data")
    outs = [sym.Activation(d, act_type=t, name="act_" + t)
            for t in ("relu", "sigmoid", "tanh", "softrelu", "softsign")]
    outs += [sym.LeakyReLU(d, act_type="leaky", slope=0.2, name="leaky"),
             sym.LeakyReLU(d, act_type="elu", slope=0.7, name="elu"),
             sym.LeakyReLU(d, act_type="selu", name="selu"),
             sym.LeakyReLU(d, act_type="gelu", name="gelu"),
             sym.LeakyReLU(d, act_type="prelu", name="prelu"),
             sym.relu(d, name="r"), sym.sigmoid(d, name="s"), sym.tanh(d, name="t"),
             sym.clip(d, a_min=-0.5, a_max=0.7, name="clip")]
    return sym.Group(outs), {"data": (2, 4, 3, 3)}


def _elementwise():
    a, b, c = sym.var("a"), sym.var("b"), sym.var("c")
    outs = [sym.elemwise_add(a, b), sym.elemwise_sub(a, b), sym.elemwise_mul(a, b),
            sym.elemwise_div(a, sym.abs(b) + 1.0), sym.broadcast_add(a, c),
            sym.broadcast_sub(a, c), sym.broadcast_mul(a, c),
            sym.broadcast_div(a, sym.abs(c) + 2), sym.broadcast_maximum(a, c),
            sym.broadcast_minimum(a, c), sym.broadcast_power(sym.abs(a) + 0.5, c),
            a + 1.5, a - 2, 3 - a, a * 0.5, a / 4, 2 / (sym.abs(a) + 1), (sym.abs(a) + 0.1) ** 1.5,
            2 ** a, sym.maximum(a, 0.2) if hasattr(sym, "maximum") else a,
            sym.broadcast_equal(a, b), sym.broadcast_not_equal(a, b), sym.broadcast_greater(a, c),
            sym.broadcast_greater_equal(a, c), sym.broadcast_lesser(a, c),
            sym.broadcast_lesser_equal(a, c), a > 0.1, a >= 0.1, a < 0.1, a <= 0.1, a == 0.0,
            a != 0.0, sym.negative(a), sym.abs(a), sym.exp(a), sym.log(sym.abs(a) + 1),
            sym.sqrt(sym.abs(a)), sym.square(a), sym.where(a > 0, a, b),
            sym.zeros_like(a), sym.ones_like(a), sym.Cast(a, dtype="float64"),
            sym.amp_cast(a, dtype="float16"),  # f32 -> f16
            sym.amp_cast(sym.Cast(a, dtype="float64"), dtype="float16"),  # f64 passes through
            # f16 and f32 -> both f32
            sym.amp_multicast(sym.Cast(a, dtype="float16"), b, num_outputs=2)[0],
            sym.amp_multicast(sym.Cast(a, dtype="float16"), b, num_outputs=2)[1],
            sym.BlockGrad(a), sym._copy(a) if hasattr(sym, "_copy") else a,
            sym.Dropout(a, p=0.3)]
    return sym.Group(outs), {"a": (2, 3, 4), "b": (2, 3, 4), "c": (3, 1)}


def _shapes_and_reductions():
    a = sym.var("a")
    outs = [sym.Reshape(a, shape=(0, -1)), sym.Reshape(a, shape=(-3, -2)),
            sym.Reshape(a, shape=(2, 3, 2, -1)), sym.Flatten(a),
            sym.transpose(a), sym.transpose(a, axes=(0, 2, 3, 1)), sym.expand_dims(a, axis=1),
            sym.slice_axis(a, axis=2, begin=1, end=3), sym.slice_axis(a, axis=3, begin=-2, end=None),
            sym.sum(a), sym.sum(a, axis=(1, 3), keepdims=True), sym.mean(a, axis=2),
            sym.max(a, axis=1, exclude=True), sym.min(a, axis=-1),
            sym.argmax(a, axis=2), sym.argmax(a, axis=1, keepdims=True),
            sym.softmax(a, axis=1), sym.softmax(a, temperature=2.0), sym.log_softmax(a, axis=2)]
    return sym.Group(outs), {"a": (2, 3, 4, 5)}


def _dense_and_products():
    x, y = sym.var("x"), sym.var("y")
    u, v = sym.var("u"), sym.var("v")
    outs = [sym.FullyConnected(x, num_hidden=7, name="fc"),
            sym.FullyConnected(x, num_hidden=5, flatten=False, name="fc_nf"),
            sym.FullyConnected(x, num_hidden=3, no_bias=True, name="fc_nb"),
            sym.dot(u, v), sym.dot(u, v, transpose_a=True, transpose_b=True) if False else
            sym.dot(u, u, transpose_b=True),
            sym.batch_dot(x, y), sym.batch_dot(x, x, transpose_b=True),
            sym.dot(x, v)]
    return sym.Group(outs), {"x": (2, 3, 4), "y": (2, 4, 5), "u": (3, 4), "v": (4, 6)}


def _softmax_outputs():
    d = sym.var("data")
    fc = sym.FullyConnected(d, num_hidden=6, name="fc")
    return sym.SoftmaxOutput(fc, name="softmax"), {"data": (3, 2, 4)}


def _softmax_output_multi():
    d = sym.var("data")
    c = sym.Convolution(d, kernel=(1, 1), num_filter=4, name="conv")
    return sym.SoftmaxOutput(c, multi_output=True, name="softmax"), {"data": (2, 3, 5, 5)}


def _one_hot():
    i = sym.var("indices")
    return sym.Group([sym.one_hot(i, depth=5, on_value=2.0, off_value=-1.0),
                      sym.Convolution(sym.var("data"), kernel=(3,), num_filter=2, stride=(2,),
                                      name="conv1d")]), {"indices": (2, 3), "data": (1, 2, 9)}


def _unary_more():
    a, b, c, i = sym.var("a"), sym.var("b"), sym.var("c"), sym.var("i")
    pos = sym.abs(a) + 0.1
    outs = [sym.sign(a), sym.round(a * 3), sym.rint(a * 3), sym.floor(a * 3), sym.ceil(a * 3),
            sym.trunc(a * 3), sym.fix(a * 3), sym.reciprocal(pos), sym.rsqrt(pos),
            sym.log1p(pos), sym.expm1(a), sym.log2(pos), sym.log10(pos), sym.sin(a), sym.cos(a),
            sym.squeeze(b), sym.squeeze(b, axis=1), sym.broadcast_to(b, shape=(2, 1, 3, 4)),
            sym.broadcast_to(b, shape=(0, 0, 3, 0)), sym.reshape_like(a, c),
            sym.reshape_like(a, c, lhs_begin=1, rhs_begin=-1),
            sym.pick(a, i * 3, axis=1), sym.pick(a, i * 3, axis=1, mode="wrap", keepdims=True)]
    return sym.Group(outs), {"a": (2, 3, 4), "b": (2, 1, 1, 4), "c": (2, 12), "i": (2, 4)}


def _trig_pow_more():
    a, b = sym.var("a"), sym.var("b")
    unit = sym.tanh(a) * 0.9            # in (-0.9, 0.9)
    pos = sym.abs(a) + 0.1
    outs = [sym.tan(unit), sym.arcsin(unit), sym.arccos(unit), sym.arctan(a), sym.sinh(a),
            sym.cosh(a), sym.arcsinh(a), sym.arccosh(pos + 1.0), sym.arctanh(unit),
            sym.degrees(a), sym.radians(a), sym.cbrt(a), sym.rcbrt(pos), sym.softsign(a),
            sym.hard_sigmoid(a, alpha=0.3, beta=0.4), sym.smooth_l1(a, scalar=1.5),
            sym.hypot(a, a * 2), sym.broadcast_hypot(a, b), sym.hypot(a, 0.5)]
    return sym.Group(outs), {"a": (2, 3, 4), "b": (3, 1)}


def _gather():
    a, i, w = sym.var("a"), sym.var("i"), sym.var("w")
    outs = [sym.take(a, i), sym.take(a, i, axis=1, mode="wrap"),
            sym.take(a, i, axis=-1, mode="clip"),
            sym.Embedding(i, w, input_dim=5, output_dim=3),
            sym.reverse(a, axis=(0, 2)), sym.flip(a, axis=1),
            sym.broadcast_axis(sym.sum(a, axis=1, keepdims=True), axis=1, size=3),
            sym.broadcast_like(sym.sum(a, axis=0, keepdims=True), a),
            sym.prod(sym.abs(a) + 0.5, axis=1), sym.nansum(a, axis=(0, 2)),
            sym.nanprod(sym.abs(a) + 0.5), sym.slice_like(a, w, axes=(1,)),
            sym.depth_to_space(sym.Reshape(a, shape=(1, 24, 1, 5)), block_size=2),
            sym.space_to_depth(sym.Reshape(a, shape=(1, 2, 6, 10)), block_size=2),
            sym.Pad(sym.Reshape(a, shape=(1, 4, 5, 6)), mode="constant", constant_value=2.0,
                    pad_width=(0, 0, 0, 0, 1, 2, 0, 3)),
            sym.Pad(sym.Reshape(a, shape=(1, 4, 5, 6)), mode="edge",
                    pad_width=(0, 0, 0, 0, 2, 1, 3, 0)),
            sym.Pad(sym.Reshape(a, shape=(1, 4, 5, 6)), mode="reflect",
                    pad_width=(0, 0, 0, 0, 1, 2, 4, 1))]
    return sym.Group(outs), {"a": (4, 5, 6), "i": (2, 3), "w": (5, 3)}


def _deconv_net():
    d = sym.var("data")
    a = sym.Deconvolution(d, kernel=(4, 4), stride=(2, 2), pad=(1, 1), num_filter=4,
                          no_bias=False, name="up")
    b = sym.Deconvolution(d, kernel=(3, 3), stride=(2, 2), pad=(1, 1), adj=(1, 1),
                          num_filter=4, num_group=2, name="up_adj")
    c = sym.Deconvolution(d, kernel=(3, 3), stride=(2, 2), target_shape=(9, 8), num_filter=2,
                          dilate=(1, 1), name="up_target")
    e = sym.Deconvolution(sym.var("seq"), kernel=(3,), stride=(3,), num_filter=2, name="up1d")
    return sym.Group([a + b, c, e]), {"data": (2, 2, 4, 4), "seq": (1, 3, 5)}


def _slices():
    a = sym.var("a")
    outs = [sym.slice(a, begin=(1, None), end=(None, -1), step=(2, 1)),
            sym.slice(a, begin=(None, -1, 4), end=(None, None, None), step=(-1, -2, -3)),
            sym.slice(a, begin=(0,), end=(1,)), sym.SwapAxis(a, dim1=0, dim2=2),
            sym._internal._slice_assign(a, sym.var("b"), begin=(1, 0), end=(None, 3), step=(2, 2)),
            sym._internal._slice_assign_scalar(a, scalar=3.5, begin=(None, None, -1),
                                               end=(None, None, 0), step=(-1, 1, -2))]
    return sym.Group(outs), {"a": (4, 5, 6), "b": (2, 2, 6)}


def _norms():
    d, g3, b3 = sym.var("data"), sym.var("g3"), sym.var("b3")
    outs = [sym.LayerNorm(d, sym.var("g4"), sym.var("b4"), eps=1e-3),
            sym.LayerNorm(d, g3, b3, axis=1),
            sym.InstanceNorm(d, g3, b3),
            sym.GroupNorm(sym.var("x"), sym.var("gg"), sym.var("bg"), num_groups=2),
            sym.L2Normalization(d, mode="spatial"), sym.L2Normalization(d),
            sym.argmax_channel(d), sym.repeat(d, repeats=2, axis=1), sym.repeat(d, repeats=2),
            sym.tile(d, reps=(2, 1, 1, 2)), sym.batch_take(sym.var("bt"), sym.var("bi"))] + \
        list(sym.moments(d, axes=(0, 2)))
    return sym.Group(outs), {"data": (2, 3, 4), "g4": (4,), "b4": (4,), "g3": (3,), "b3": (3,),
                             "x": (2, 4, 3), "gg": (2,), "bg": (2,), "bt": (3, 4), "bi": (3,)}


def _creation():
    a = sym.var("a")
    outs = [a + sym.zeros((2, 3)), a * sym.ones((2, 3), dtype="float32"),
            sym.full((2, 3), -2.5, dtype="int32"), sym.full((3,), 0.5, dtype="bool"),
            sym.arange(1.3, 9.0, 1.3, repeat=2), sym.arange(5, dtype="int64"),
            sym.arange(10, 0, -3, dtype="uint8"),
            sym.eye(3, 4, k=1), sym.contrib.arange_like(a, start=1.0, step=0.5),
            sym.contrib.arange_like(a, axis=1)] + \
        list(sym.SliceChannel(a, num_outputs=3, axis=-1)) + \
        list(sym.split(sym.var("b"), num_outputs=2, axis=0, squeeze_axis=True))
    u0, u1 = sym.var("u0"), sym.var("u1")
    outs += [sym.UpSampling(u0, scale=2, sample_type="nearest"),
             sym.UpSampling(u0, u1, scale=2, sample_type="nearest"),
             sym.UpSampling(u0, sym.var("u2"), scale=3, sample_type="nearest",
                            multi_input_mode="sum"),
             sym.UpSampling(u0, sym.var("uw"), scale=2, sample_type="bilinear", num_filter=3,
                            num_args=2)]
    return sym.Group(outs), {"a": (2, 3), "b": (2, 4), "u0": (1, 3, 2, 3), "u1": (1, 3, 4, 6),
                             "u2": (1, 3, 2, 3)}


def _resample():
    x, like = sym.var("x"), sym.var("like")
    outs = [sym.contrib.AdaptiveAvgPooling2D(x, output_size=(3, 2)),
            sym.contrib.AdaptiveAvgPooling2D(x, output_size=9),
            sym.contrib.AdaptiveAvgPooling2D(x),
            sym.contrib.BilinearResize2D(x, height=11, width=3),
            sym.contrib.BilinearResize2D(x, height=4, width=10, align_corners=False),
            sym.contrib.BilinearResize2D(x, height=1, width=1, align_corners=False),
            sym.contrib.BilinearResize2D(x, like, mode="like")]
    return sym.Group(outs), {"x": (2, 3, 7, 5), "like": (1, 1, 6, 8)}


def _rnns():
    x = sym.var("x")
    lstm = sym.RNN(x, sym.var("p1"), sym.var("h1"), sym.var("c1"), mode="lstm", state_size=3,
                   num_layers=2, bidirectional=True, state_outputs=True, name="lstm")
    gru = sym.RNN(x, sym.var("p2"), sym.var("h2"), mode="gru", state_size=4, num_layers=2,
                  state_outputs=True, name="gru")
    relu = sym.RNN(x, sym.var("p3"), sym.var("h3"), mode="rnn_relu", state_size=2,
                   num_layers=1, bidirectional=True, name="relu")
    tanh = sym.RNN(x, sym.var("p4"), sym.var("h4"), mode="rnn_tanh", state_size=2,
                   num_layers=1, name="tanh")
    return sym.Group(list(lstm) + list(gru) + [relu, tanh]), \
        {"x": (4, 2, 5), "h1": (4, 2, 3), "c1": (4, 2, 3), "h2": (2, 2, 4), "h3": (2, 2, 2),
         "h4": (1, 2, 2)}


GRAPHS = {"rnns": _rnns, "conv": _conv_net, "deconv": _deconv_net, "slices": _slices, "norms": _norms, "unary_more": _unary_more, "trig_pow_more": _trig_pow_more,
          "gather": _gather, "activations": _activations, "elementwise": _elementwise,
          "shapes_reductions": _shapes_and_reductions, "dense_products": _dense_and_products,
          "softmax_output": _softmax_outputs, "softmax_output_multi": _softmax_output_multi,
          "one_hot_conv1d": _one_hot, "creation": _creation, "resample": _resample}


@pytest.mark.parametrize("opset", [11, 13, 17, 21])
@pytest.mark.parametrize("graph", sorted(GRAPHS))
def test_symbol_graph_exported_runs_in_onnxruntime(graph, opset, tmp_path):
    net, shapes = GRAPHS[graph]()
    feed = None
    if graph == "one_hot_conv1d":
        rng = np.random.default_rng(3)
        feed = {"indices": rng.integers(0, 5, shapes["indices"]).astype(np.float32),
                "data": rng.standard_normal(shapes["data"]).astype(np.float32)}
    if graph == "gather":   # in range, out of range both ways, fractional
        rng = np.random.default_rng(4)
        feed = {"a": rng.standard_normal(shapes["a"]).astype(np.float32),
                "i": (rng.integers(-8, 12, shapes["i"]) + 0.5).astype(np.float32),
                "w": rng.standard_normal(shapes["w"]).astype(np.float32)}
    _check_symbol(net, shapes, tmp_path, opset=opset, feed=feed)


def test_exported_model_is_checked_and_names_follow_the_graph(tmp_path):
    import onnx
    net, shapes = _conv_net()
    path = _check_symbol(net, shapes, tmp_path)
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    # graph outputs are named after the nodes (MXNet's "<node>_output" less the suffix)
    want = [o[:-len("_output")] for o in net.list_outputs()]
    assert [o.name for o in model.graph.output] == want
    assert want[1:] == ["pool_sum", "gmax"]
    inits = {i.name for i in model.graph.initializer}
    assert {"c1_weight", "c1_bias", "c2_weight", "bn_moving_mean", "bn_moving_var"} <= inits
    assert model.opset_import[0].version == 17
    assert model.producer_name == "mxc"


def test_dynamic_batch(tmp_path):
    d = sym.var("data")
    net = sym.FullyConnected(sym.Activation(sym.Convolution(d, kernel=(3, 3), num_filter=4,
                                                            name="c"), act_type="relu"),
                             num_hidden=5, name="fc")
    net = sym.Reshape(net, shape=(-1, 5, 1))
    args, _ = random_params(net, {"data": (1, 2, 6, 6)})
    path = str(tmp_path / "dyn.onnx")
    mx.onnx.export_model(net, {k: mx.nd.array(v) for k, v in args.items()}, [(1, 2, 6, 6)],
                         np.float32, path, dynamic=True, dynamic_input_shapes=[(None, 2, 6, 6)])
    x = np.random.default_rng(1).standard_normal((4, 2, 6, 6)).astype(np.float32)
    (got,), _, _ = ort_run(path, {"data": x})
    want = mxc_run(net, {k: mx.nd.array(v) for k, v in args.items()}, {}, {"data": x})[0]
    assert_close(got, want)
    # imported back, the symbolic batch dimension is bound when the symbol is
    s, a, aux = mx.onnx.import_model(path)
    for batch in (4, 3):
        xb = x[:batch]
        assert_close(mxc_run(s, a, aux, {"data": xb})[0], want[:batch])


def test_params_forms(tmp_path):
    net, shapes = _softmax_outputs()
    args, aux = random_params(net, shapes, skip=("softmax_label",))
    nd_args = {k: mx.nd.array(v) for k, v in args.items()}
    x = np.random.default_rng(5).standard_normal(shapes["data"]).astype(np.float32)
    want = None
    mx.nd.save(str(tmp_path / "p.params"), {"arg:" + k: v for k, v in nd_args.items()})
    net.save(str(tmp_path / "net-symbol.json"))
    forms = [nd_args, {k: v for k, v in args.items()}, [nd_args, {}],
             str(tmp_path / "p.params")]
    for i, params in enumerate(forms):
        s = str(tmp_path / "net-symbol.json") if i == 3 else net
        path = mx.onnx.export_model(s, params, [shapes["data"]], np.float32,
                                    str(tmp_path / ("m%d.onnx" % i)))
        (got,), _, _ = ort_run(path, {"data": x})
        if want is None:
            want = got
        np.testing.assert_array_equal(got, want)


def test_input_count_mismatch_is_one_line_error(tmp_path):
    net, shapes = _dense_and_products()
    args, _ = random_params(net, shapes)
    with pytest.raises(mx.MXNetError) as e:
        mx.onnx.export_model(net, args, [(2, 3, 4)], np.float32, str(tmp_path / "x.onnx"))
    msg = str(e.value)
    assert "\n" not in msg
    assert "the graph has 4 inputs (x, u, v, y)" in msg and "in_shapes has 1" in msg
    # without parameters every variable is an input
    with pytest.raises(mx.MXNetError) as e:
        mx.onnx.export_model(net, {}, [(2, 3, 4)], np.float32, str(tmp_path / "x.onnx"))
    assert "the graph has 9 inputs (x, fc_weight," in str(e.value)


def test_unmapped_operator_names_node_and_op(tmp_path, monkeypatch):
    from mxc.onnx import _export
    monkeypatch.delitem(_export._EXPORTERS, "LRN")
    d = sym.var("data")
    net = sym.LRN(sym.Activation(d, act_type="relu", name="r"), nsize=3, name="my_lrn")
    with pytest.raises(mx.MXNetError) as e:
        mx.onnx.export_model(net, {}, [(1, 3, 4, 4)], np.float32, str(tmp_path / "x.onnx"))
    msg = str(e.value)
    assert "\n" not in msg
    assert "'my_lrn'" in msg and "'LRN'" in msg and "no ONNX mapping" in msg
    assert not os.path.exists(str(tmp_path / "x.onnx"))


def test_full_pooling_window_in_the_padding_is_refused(tmp_path):
    d = sym.var("data")
    net = sym.Pooling(d, kernel=(2, 2), stride=(2, 2), pad=(1, 1), pool_type="avg",
                      pooling_convention="full", name="pool_full")
    with pytest.raises(mx.MXNetError) as e:
        mx.onnx.export_model(net, {}, [(1, 1, 5, 5)], np.float32, str(tmp_path / "x.onnx"))
    assert "'pool_full'" in str(e.value) and "starts in the padding" in str(e.value)
    # the same layer on 4x4 has no such window, and matches ONNX Runtime
    _check_symbol(net, {"data": (1, 1, 4, 4)}, tmp_path)
    # max pooling writes MXNet's windows exactly (wider right pads), on 5x5 too
    for size in (4, 5, 6, 7):
        _check_symbol(sym.Pooling(d, kernel=(2, 2), stride=(2, 2), pad=(1, 1), pool_type="max",
                                  pooling_convention="full"), {"data": (1, 1, size, size)},
                      tmp_path)


def test_opset_out_of_range(tmp_path):
    net, shapes = _softmax_outputs()
    args, _ = random_params(net, shapes, skip=("softmax_label",))
    for opset in (9, 99):
        with pytest.raises(mx.MXNetError, match="opset %d is not supported" % opset):
            mx.onnx.export_model(net, args, [shapes["data"]], np.float32,
                                 str(tmp_path / "x.onnx"), opset_version=opset)


def test_unexportable_attribute_is_one_line_error(tmp_path):
    d = sym.var("data")
    net = sym.BatchNorm(d, axis=3, name="bn_last")
    args, aux = random_params(net, {"data": (1, 2, 2, 3)})
    params = dict(args, **aux)
    with pytest.raises(mx.MXNetError) as e:
        mx.onnx.export_model(net, params, [(1, 2, 2, 3)], np.float32, str(tmp_path / "x.onnx"))
    assert "\n" not in str(e.value) and "'bn_last'" in str(e.value) and "axis" in str(e.value)


#: the operators of the image-classification zoo and the Gluon layers above
#: (design.md, "Operators (wave 1)") and the elementwise core
WAVE1 = {"Convolution", "Activation", "Pooling", "FullyConnected", "Flatten", "SoftmaxOutput",
         "Cast", "LRN", "Dropout", "BatchNorm", "Concat", "elemwise_add", "_copy",
         "elemwise_sub", "elemwise_mul", "elemwise_div", "broadcast_add", "broadcast_sub",
         "broadcast_mul", "broadcast_div", "negative", "abs", "square", "sqrt", "exp", "log",
         "relu", "sigmoid", "tanh", "sum", "mean", "max", "min", "argmax", "dot", "batch_dot",
         "Reshape", "transpose", "expand_dims", "slice_axis", "softmax", "log_softmax",
         "LeakyReLU", "clip", "where", "zeros_like", "ones_like", "one_hot", "BlockGrad",
         "_plus_scalar", "_mul_scalar", "_rdiv_scalar", "broadcast_power", "broadcast_equal"}


def test_wave1_operators_have_export_mappings():
    from mxc import _ops
    supported = set(mx.onnx.get_operator_support())
    assert WAVE1 <= supported, sorted(WAVE1 - supported)
    # each mapping names an operator of the table (no typo'd dead entries)
    assert supported <= set(_ops.OPS), sorted(supported - set(_ops.OPS))


GLUON_LAYERS = {
    "layernorm": (lambda: nn.LayerNorm(), (2, 3, 4)),
    "instancenorm": (lambda: nn.InstanceNorm(), (2, 3, 4, 4)),
    "groupnorm": (lambda: nn.GroupNorm(num_groups=2), (2, 4, 3, 3)),
    "prelu": (lambda: nn.PReLU(), (2, 3, 4, 4)),
    "elu": (lambda: nn.ELU(), (2, 3)),
    "selu": (lambda: nn.SELU(), (2, 3)),
    "gelu": (lambda: nn.GELU(), (2, 3)),
    "swish": (lambda: nn.Swish(), (2, 3)),
    "conv1d": (lambda: nn.Conv1D(4, 3), (2, 3, 8)),
    "globalmaxpool1d": (lambda: nn.GlobalMaxPool1D(), (2, 3, 8)),
    "conv3d": (lambda: nn.Conv3D(2, 3), (1, 2, 5, 5, 5)),
    "conv2dtranspose": (lambda: nn.Conv2DTranspose(3, 4, strides=2, padding=1,
                                                   output_padding=1), (2, 2, 3, 3)),
    "maxpool3d": (lambda: nn.MaxPool3D(), (1, 2, 4, 4, 4)),
    "dense_no_flatten": (lambda: nn.Dense(5, flatten=False), (2, 3, 4)),
    "embedding": (lambda: nn.Embedding(10, 4), (2, 3)),
}


@pytest.mark.parametrize("layer", sorted(GLUON_LAYERS))
def test_gluon_layer_exported(layer, tmp_path):
    """Each Gluon layer, hybridized and saved by export(), runs in ONNX
    Runtime with the block's outputs (a block without parameters too)."""
    make, shape = GLUON_LAYERS[layer]
    net = nn.HybridSequential()
    net.add(make())
    net.initialize(mx.init.Xavier())
    net.hybridize()
    rng = np.random.default_rng(2)
    if layer == "embedding":
        x = rng.integers(0, 10, shape).astype(np.float32)
    else:
        x = rng.standard_normal(shape).astype(np.float32)
    want = net(mx.nd.array(x)).asnumpy()
    sym_file, params_file = net.export(str(tmp_path / layer))
    path = mx.onnx.export_model(sym_file, params_file, [shape], np.float32,
                                str(tmp_path / (layer + ".onnx")))
    (got,), _, _ = ort_run(path, {"data": x})
    assert_close(got, want)


@pytest.mark.parametrize("name", ["resnet18_v1", "mobilenetv2_1.0", "squeezenet1.1"])
def test_gluon_model_zoo_network_round_trip(name, tmp_path):
    """A gluon.model_zoo.vision network (random weights) exported by
    export_model runs in ONNX Runtime with the block's outputs, and imported
    back runs in mxc likewise."""
    vision = pytest.importorskip("mxc.gluon.model_zoo.vision")
    net = vision.get_model(name)
    net.initialize(mx.init.Xavier())
    net.hybridize()
    x = np.random.default_rng(4).standard_normal((1, 3, 224, 224)).astype(np.float32)
    want = net(mx.nd.array(x)).asnumpy()
    sym_file, params_file = net.export(str(tmp_path / name))
    path = mx.onnx.export_model(sym_file, params_file, [x.shape], np.float32,
                                str(tmp_path / (name + ".onnx")))
    (got,), _, _ = ort_run(path, {"data": x})
    scale = float(np.abs(want).max())
    assert_close(got, want, atol=1e-4 * scale)
    s, a, aux = mx.onnx.import_model(path)
    assert_close(mxc_run(s, a, aux, {"data": x})[0], want, atol=1e-4 * scale)
