"""MXNet's image-classification networks (tools/zoo/mxnet_zoo.py, the graphs
test_zoo.py checks against MXNet 1.9.1's JSON) exported to ONNX with random
parameters: ONNX Runtime gives mxc's outputs (1e-4 relative), and the ONNX
file imported back by import_model runs in mxc with ONNX Runtime's outputs."""
import os
import sys

import numpy as np
import pytest

import mxc as mx

from onnx_util import assert_close, mxc_run, ort_run, random_params

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "tools", "zoo"))
import mxnet_zoo  # noqa: E402

# vgg11 / vgg16 (133M / 138M parameters) are left out for time; their layers
# (Convolution, Pooling, FullyConnected, Dropout) are all in alexnet.
NETS = ["lenet", "mlp", "alexnet", "googlenet", "inception-bn", "resnet18", "resnet50"]


@pytest.mark.parametrize("name", NETS)
def test_zoo_network_round_trip(name, tmp_path):
    import onnx
    net = mx.sym.load_json(mxnet_zoo.symbol_json(name))
    shape = (1,) + tuple(mxnet_zoo.NETWORKS[name][1])
    args, aux = random_params(net, {"data": shape}, seed=7, skip=("softmax_label",))
    params = {"arg:" + k: mx.nd.array(v) for k, v in args.items()}
    params.update({"aux:" + k: mx.nd.array(v) for k, v in aux.items()})
    path = str(tmp_path / (name + ".onnx"))
    mx.onnx.export_model(net, params, [shape], np.float32, path)
    onnx.checker.check_model(path)

    x = np.random.default_rng(11).standard_normal(shape).astype(np.float32)
    (ref,), out_names, in_names = ort_run(path, {"data": x})
    assert in_names == ["data"]
    label_shape = net.infer_shape(data=shape)[0][net.list_arguments().index("softmax_label")]
    mx_args = {k: mx.nd.array(v) for k, v in args.items()}
    mx_args["softmax_label"] = mx.nd.zeros(label_shape)
    (got,) = mxc_run(net, mx_args, {k: mx.nd.array(v) for k, v in aux.items()}, {"data": x})
    assert_close(ref, got, what=name + " ONNX Runtime vs mxc")

    sym, arg_params, aux_params = mx.onnx.import_model(path)
    assert sym.list_arguments()[0] == "data"
    assert set(aux_params) == set(aux)          # BatchNorm statistics are aux_params
    # weights keep their names (a fix_gamma BatchNorm's gamma is exported as ones)
    assert {k for k in args if not k.endswith("gamma")} <= set(arg_params)
    (back,) = mxc_run(sym, arg_params, aux_params, {"data": x})
    assert_close(back, ref, what=name + " imported back")
