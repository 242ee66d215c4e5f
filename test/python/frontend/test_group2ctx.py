"""MXNet's model-parallel placement: simple_bind(group2ctx=...) and
Module(group2ctxs=...) put the arrays of variables made under
mx.AttrScope(ctx_group=...) on that group's context; the results are those
of the graph bound on one context."""
import numpy as np
import pytest

import mxc as mx
from mxc.base import MXNetError


def _two_stage():
    with mx.AttrScope(ctx_group="stage1"):
        data = mx.sym.Variable("data")
        fc1 = mx.sym.FullyConnected(data, name="fc1", num_hidden=8)
        act1 = mx.sym.Activation(fc1, name="relu1", act_type="relu")
    with mx.AttrScope(ctx_group="stage2"):
        fc2 = mx.sym.FullyConnected(act1, name="fc2", num_hidden=4)
        out = mx.sym.SoftmaxOutput(fc2, name="softmax")
    return out


def test_simple_bind_places_arrays_by_group():
    net = _two_stage()
    g2c = {"stage1": mx.cpu(1), "stage2": mx.cpu(2)}
    ex = net.simple_bind(mx.cpu(0), group2ctx=g2c, data=(3, 5))
    ref = net.simple_bind(mx.cpu(0), data=(3, 5))
    want = {"data": 1, "fc1_weight": 1, "fc1_bias": 1, "fc2_weight": 2, "fc2_bias": 2,
            "softmax_label": 2}
    for name, arr in ex.arg_dict.items():
        assert arr.context == mx.cpu(want[name]), name
    assert ex.grad_dict["fc2_weight"].context == mx.cpu(2)
    rng = np.random.default_rng(0)
    for name in ex.arg_dict:
        v = rng.uniform(-1, 1, ex.arg_dict[name].shape)
        ex.arg_dict[name][:] = v
        ref.arg_dict[name][:] = v
    ex.arg_dict["softmax_label"][:] = [0, 1, 3]
    ref.arg_dict["softmax_label"][:] = [0, 1, 3]
    for e in (ex, ref):
        e.forward(is_train=True)
        e.backward()
    np.testing.assert_array_equal(ex.outputs[0].asnumpy(), ref.outputs[0].asnumpy())
    np.testing.assert_array_equal(ex.grad_dict["fc1_weight"].asnumpy(),
                                  ref.grad_dict["fc1_weight"].asnumpy())


def test_module_group2ctxs_forms():
    net = _two_stage()
    mod = mx.mod.Module(net, context=[mx.cpu(0)],
                        group2ctxs={"stage1": mx.cpu(1), "stage2": [mx.cpu(2)]})
    mod.bind(data_shapes=[("data", (3, 5))], label_shapes=[("softmax_label", (3,))])
    mod.init_params()
    ex = mod._exec_group.execs[0]
    assert ex.arg_dict["fc1_weight"].context == mx.cpu(1)
    assert ex.arg_dict["fc2_weight"].context == mx.cpu(2)
    # one dict per context
    mod2 = mx.mod.Module(net, context=[mx.cpu(0), mx.cpu(1)],
                         group2ctxs=[{"stage1": mx.cpu(2), "stage2": mx.cpu(3)},
                                     {"stage1": mx.cpu(4), "stage2": mx.cpu(5)}])
    mod2.bind(data_shapes=[("data", (4, 5))], label_shapes=[("softmax_label", (4,))])
    assert mod2._exec_group.execs[1].arg_dict["data"].context == mx.cpu(4)
    with pytest.raises(MXNetError, match="group2ctxs\\['stage1'\\] has 3 contexts; want 1 or 2"):
        mx.mod.Module(net, context=[mx.cpu(0), mx.cpu(1)],
                      group2ctxs={"stage1": [mx.cpu(1)] * 3})


def test_a_group_group2ctx_does_not_name_is_an_error():
    # as nnvm's PlaceDevice ("The device assignment not found for group")
    with pytest.raises(MXNetError, match="node 'data' is in ctx_group 'stage1', which "
                                         "group2ctx does not name \\(it names other\\)"):
        _two_stage().simple_bind(mx.cpu(0), group2ctx={"other": mx.cpu(1)}, data=(3, 5))
