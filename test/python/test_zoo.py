"""Checks of tools/zoo/mxnet_zoo.py (standard library + pytest only).

Reference figures below were measured with real MXNet 1.9.1 (PyPI wheel,
Python 3.11, oneDNN build) running apache/mxnet 1.9.1's
example/image-classification/symbols/*.py under a fresh NameManager, via
tools/zoo/compare_with_mxnet.py: the SHA-256 of the JSON `Symbol.save` wrote
and `infer_shape`'s parameter counts.  Where a published figure exists for the
same architecture it is noted next to the MXNet one.
"""

import hashlib
import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "zoo"))
import mxnet_zoo  # noqa: E402

# name: (learnable parameters, auxiliary states, classes, sha256 of MXNet 1.9.1's JSON)
REFERENCE = {
    # LeNet of lenet.py, 28x28x1 input, 10 classes: 20*25+20 + 50*20*25+50 + 800*500+500 + 500*10+10.
    "lenet": (431080, 0, 10, "807f076a01d30947a9c1b07044f0fae3c7457f378b76ad495af0a9d2a3ff3b45"),
    # mlp.py: 784-128-64-10.
    "mlp": (109386, 0, 10, "f31da42eb404654e070b40913c4730ae845f5e485f48a2f3095cc75da4db4816"),
    # MXNet's AlexNet: one tower, no conv1 padding, so 224x224 ends at 5x5x256 (6400 inputs to fc1),
    # hence 50.8M, not the ~61M of the paper / torchvision (which end at 6x6). MXNet figure.
    "alexnet": (50844008, 0, 1000, "daba23d93357c9f9013ed9c85a402caff97be5fb10238ecbd39fac1537a3b8a7"),
    # VGG-11 / VGG-16: MXNet figure; equal to torchvision vgg11 (132,863,336) and
    # vgg16 / the paper's "138M" (138,357,544).
    "vgg11": (132863336, 0, 1000, "c52af260238a3b49b0083851a8d2927624ab5c943ca0ae50fff1bff9d2c1934f"),
    "vgg16": (138357544, 0, 1000, "2f07d30fe4dc772eb696ef49d9d2983a8375a90fad5df9ce47846fd95f55c81a"),
    # GoogLeNet without auxiliary classifiers and without BN: MXNet figure (paper: "about 6.8M";
    # torchvision's BN variant 6,624,904).
    "googlenet": (6998552, 0, 1000, "c706b49ff601d0c856ab07e9167429c9768635d323031049fe7e3bad7e350ce6"),
    # Inception-BN: MXNet figure.
    "inception-bn": (11295240, 20032, 1000, "d25a18e627c8c88c2fa3cbd3116998f0d293d1d378b4c5ead65b2cc0e905aa74"),
    # Pre-activation ResNets with a data BatchNorm: MXNet figures (published "11.69M" / "25.6M";
    # torchvision's v1 resnet18 11,689,512, resnet50 25,557,032 differ in the BN layout only).
    "resnet18": (11691950, 7942, 1000, "0a40640af9ab4c82ba390b414d0fb8d7ed6d824136348ec6ba4181c8b269434f"),
    "resnet50": (25549486, 45574, 1000, "7d962358c81992a5e33b6bafdeafccdf63670dd8bfbedf8a8990b762d5fb6e3d"),
}

NAMES = sorted(mxnet_zoo.NETWORKS)


def test_all_networks_listed():
    assert set(NAMES) == set(REFERENCE)


@pytest.fixture(scope="module", params=NAMES)
def net(request):
    text = mxnet_zoo.symbol_json(request.param)
    return request.param, text, json.loads(text)


def test_json_structure(net):
    name, text, g = net
    assert set(g) == {"nodes", "arg_nodes", "node_row_ptr", "heads", "attrs"}
    assert g["attrs"] == {"mxnet_version": ["int", 10901]}
    nodes, row = g["nodes"], g["node_row_ptr"]
    assert len(row) == len(nodes) + 1 and row[0] == 0
    assert all(b > a for a, b in zip(row, row[1:]))
    names = [n["name"] for n in nodes]
    assert len(names) == len(set(names)), "node names are not unique"
    for i, n in enumerate(nodes):
        assert set(n) <= {"op", "name", "attrs", "inputs"}
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in n.get("attrs", {}).items())
        if n["op"] == "null":
            assert n["inputs"] == []
        for src, idx, version in n["inputs"]:
            assert 0 <= src < i, "%s reads a later node" % n["name"]
            assert 0 <= idx < row[src + 1] - row[src]
            assert version in (0, 1)
    assert g["arg_nodes"] == [i for i, n in enumerate(nodes) if n["op"] == "null"]
    assert len(g["heads"]) == 1 and g["heads"][0][0] == len(nodes) - 1
    assert nodes[-1]["op"] == "SoftmaxOutput" and nodes[-1]["name"] == "softmax"
    assert nodes[0]["name"] == "data"
    # every node is reachable from the head (nothing dangling)
    reach, todo = set(), [len(nodes) - 1]
    while todo:
        i = todo.pop()
        if i not in reach:
            reach.add(i)
            todo.extend(e[0] for e in nodes[i]["inputs"])
    assert reach == set(range(len(nodes)))


def test_identical_to_mxnet(net):
    name, text, _ = net
    assert hashlib.sha256(text.encode()).hexdigest() == REFERENCE[name][3]


def test_parameter_counts_and_outputs(net):
    name, _, g = net
    params, aux, classes, _ = REFERENCE[name]
    shape = mxnet_zoo.NETWORKS[name][1]
    for batch in (1, 64):
        assert mxnet_zoo.count_parameters(g, (batch,) + shape) == (params, aux)
        assert mxnet_zoo.infer_shapes(g, (batch,) + shape)[2] == [(batch, classes)]


def test_mxnet_written_checkpoints_match():
    """lenet/mlp symbol files in test/Inputs/mxnet-params were written by MXNet's save_checkpoint."""
    d = os.path.join(ROOT, "test", "Inputs", "mxnet-params")
    for name in ("lenet", "mlp"):
        with open(os.path.join(d, name + "-symbol.json")) as f:
            assert f.read() == mxnet_zoo.symbol_json(name)


def test_naming_rules():
    b = mxnet_zoo.Builder()
    x = b.Variable("data")
    c = b.Convolution(data=x, kernel=(3, 3), num_filter=8, no_bias=True)
    n = b.BatchNorm(data=c, eps=2e-5, fix_gamma=False)
    y = b.Activation(data=n, act_type="relu") + b.Activation(data=n, act_type="relu")
    y = b.Concat(y, y) + y
    g = mxnet_zoo.to_graph(b.SoftmaxOutput(data=b.Flatten(data=y), name="softmax"))
    by_name = {nd["name"]: nd for nd in g["nodes"]}
    assert [nd["name"] for nd in g["nodes"]][:9] == [
        "data", "convolution0_weight", "convolution0", "batchnorm0_gamma", "batchnorm0_beta",
        "batchnorm0_moving_mean", "batchnorm0_moving_var", "batchnorm0", "activation0"]
    assert by_name["convolution0_weight"]["attrs"] == {"kernel": "(3, 3)", "no_bias": "True", "num_filter": "8"}
    assert by_name["batchnorm0_moving_var"]["attrs"]["__init__"] == '["one", {}]'
    assert by_name["batchnorm0"]["attrs"] == {"eps": "2e-05", "fix_gamma": "False"}
    assert [e[2] for e in by_name["batchnorm0"]["inputs"]] == [0, 0, 0, 1, 1]
    assert by_name["_plus0"]["op"] == "elemwise_add" and by_name["_plus1"]["op"] == "elemwise_add"
    assert by_name["concat0"]["attrs"] == {"num_args": "2"}
    assert "softmax_label" in by_name
    args, aux, _ = mxnet_zoo.infer_shapes(g, (2, 3, 10, 10))
    assert [a for a, _ in aux] == ["batchnorm0_moving_mean", "batchnorm0_moving_var"]
    assert dict(args)["convolution0_weight"] == (8, 3, 3, 3)
    # node_row_ptr: BatchNorm 3 outputs
    i = [nd["name"] for nd in g["nodes"]].index("batchnorm0")
    assert g["node_row_ptr"][i + 1] - g["node_row_ptr"][i] == 3


def test_cli(tmp_path):
    assert mxnet_zoo.main(["--all", str(tmp_path)]) == 0
    assert sorted(os.listdir(str(tmp_path))) == sorted(n + "-symbol.json" for n in NAMES)
    out = tmp_path / "one.json"
    assert mxnet_zoo.main(["resnet18", "-o", str(out)]) == 0
    assert out.read_text() == mxnet_zoo.symbol_json("resnet18")
