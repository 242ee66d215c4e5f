"""Models exported by torch.onnx.export, imported by mx.onnx.import_model and
run in mxc with ONNX Runtime's outputs (1e-4 relative): ResNet-18 and
MobileNet-v2 (the torchvision architectures, written out here because
torchvision is not installed), a small CNN, an embedding model, and small
recurrent models (LSTM, a stacked bidirectional LSTM, GRU, RNN with relu:
ONNX LSTM / GRU / RNN nodes into MXNet's fused RNN).

Skips without torch (it is not in requirements-dev). Where a venv has torch
but no pytest (.venv-bench), run it as a script:

    PYTHONPATH=build/python_packages .venv-bench/bin/python test/python/onnx/test_torch_export.py
"""
import os
import sys
import tempfile

import numpy as np

try:
    import pytest
except ImportError:   # run as a script in a venv without pytest
    pytest = None
if pytest is not None:
    torch = pytest.importorskip("torch", reason="torch is not installed (not in requirements-dev)")
else:
    import torch
nn = torch.nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import mxc as mx  # noqa: E402
from onnx_util import assert_close, cli_run, mxc_run, ort_run  # noqa: E402


# -- ResNet-18 (He et al. 2015, torchvision's layout: BasicBlock x [2, 2, 2, 2]) --------------
class _Basic(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + (x if self.down is None else self.down(x)))


class ResNet18(nn.Module):
    def __init__(self, classes=1000):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64),
                                  nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        layers, cin = [], 64
        for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            layers += [_Basic(cin, cout, stride), _Basic(cout, cout, 1)]
            cin = cout
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


# -- MobileNet-v2 (Sandler et al. 2018): inverted residuals, ReLU6, width 1.0 --------------
def _conv_bn(cin, cout, k, stride, groups=1, act=True):
    layers = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
              nn.BatchNorm2d(cout)]
    if act:
        layers.append(nn.ReLU6())
    return layers


class _Inverted(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        layers = [] if expand == 1 else _conv_bn(cin, hidden, 1, 1)
        layers += _conv_bn(hidden, hidden, 3, stride, groups=hidden)
        layers += _conv_bn(hidden, cout, 1, 1, act=False)
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        return x + self.body(x) if self.residual else self.body(x)


class MobileNetV2(nn.Module):
    SETTINGS = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                (6, 160, 3, 2), (6, 320, 1, 1))

    def __init__(self, classes=1000):
        super().__init__()
        layers, cin = _conv_bn(3, 32, 3, 2), 32
        for t, c, n, s in self.SETTINGS:
            for i in range(n):
                layers.append(_Inverted(cin, c, s if i == 0 else 1, t))
                cin = c
        layers += _conv_bn(cin, 1280, 1, 1)
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, classes))

    def forward(self, x):
        x = nn.functional.adaptive_avg_pool2d(self.features(x), 1)
        return self.classifier(torch.flatten(x, 1))


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, stride=2, padding=1, groups=2), nn.BatchNorm2d(16),
            nn.Hardswish(), nn.AvgPool2d(2, ceil_mode=True), nn.LeakyReLU(0.1))
        self.fc = nn.Linear(16 * 2 * 2, 10)

    def forward(self, x):
        return torch.softmax(self.fc(torch.flatten(self.features(x), 1)), dim=1)


class Embedder(nn.Module):
    """A bag-of-embeddings text classifier: Gather with tensor indices."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 8)
        self.fc = nn.Linear(8, 3)

    def forward(self, tokens):
        return self.fc(self.emb(tokens).mean(dim=1))


class SmallLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, batch_first=True)
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.fc(y[:, -1])


class StackedBiLSTM(nn.Module):
    """Two bidirectional layers (one ONNX LSTM each), time-major."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 10, num_layers=2, bidirectional=True)
        self.fc = nn.Linear(20, 3)

    def forward(self, x):
        y, (h, c) = self.lstm(x)
        return self.fc(y[-1]) + h.sum(0).sum(1, keepdim=True) + c.mean()


class SmallGRU(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(8, 12, batch_first=True)
        self.fc = nn.Linear(12, 4)

    def forward(self, x):
        y, h = self.gru(x)
        return self.fc(y.mean(1)) + h[0].sum(1, keepdim=True)


class SmallRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(8, 12, nonlinearity="relu", bidirectional=True, batch_first=True)
        self.fc = nn.Linear(24, 4)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


RECURRENT = {"lstm": (SmallLSTM, (2, 5, 8)), "bilstm2": (StackedBiLSTM, (7, 3, 6)),
             "gru": (SmallGRU, (2, 5, 8)), "rnn_relu": (SmallRNN, (3, 4, 8))}


def _randomize_bn(net, seed=0):
    g = torch.Generator().manual_seed(seed)
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.rand(m.running_mean.shape, generator=g) * 0.4 - 0.2)
            m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) + 0.5)
            m.weight.data.copy_(torch.rand(m.weight.shape, generator=g) + 0.5)
            m.bias.data.copy_(torch.rand(m.bias.shape, generator=g) * 0.2 - 0.1)


def _export(net, x, path, opset):
    torch.onnx.export(net, (x,), path, input_names=["x"], output_names=["y"],
                      opset_version=opset, dynamo=False)


NETS = {"resnet18": (ResNet18, (1, 3, 224, 224)), "mobilenet_v2": (MobileNetV2, (1, 3, 224, 224)),
        "small_cnn": (SmallCNN, (2, 3, 16, 16))}


def check_net(name, opset, tmp_dir):
    torch.manual_seed(0)
    cls, shape = NETS[name]
    net = cls().eval()
    _randomize_bn(net)
    x = torch.randn(*shape)
    path = os.path.join(tmp_dir, "%s_%d.onnx" % (name, opset))
    with torch.no_grad():
        _export(net, x, path, opset)
        want_torch = net(x).numpy()
    (ref,), _, _ = ort_run(path, {"x": x.numpy()})
    sym, arg_params, aux_params = mx.onnx.import_model(path)
    (got,) = mxc_run(sym, arg_params, aux_params, {"x": x.numpy()})
    scale = float(np.abs(ref).max())
    # 1e-4 relative to the output's scale: logits near zero have no meaningful elementwise error
    assert_close(got, ref, rtol=1e-4, atol=1e-4 * scale, what="%s vs ONNX Runtime" % name)
    assert_close(got, want_torch, rtol=1e-3, atol=1e-3 * scale, what="%s vs torch" % name)
    # the CLI: mxc run model.onnx
    (cli,) = cli_run(path, {"x": x.numpy()}, ["y"], tmp_dir)
    assert_close(cli, ref, rtol=1e-4, atol=1e-4 * scale, what="mxc run %s vs ONNX Runtime" % name)
    return float(np.abs(got - ref).max() / scale)


def check_embedder(tmp_dir):
    torch.manual_seed(0)
    net = Embedder().eval()
    tokens = torch.randint(0, 50, (4, 7))
    path = os.path.join(tmp_dir, "embedder.onnx")
    with torch.no_grad():
        torch.onnx.export(net, (tokens,), path, input_names=["tokens"], output_names=["y"],
                          opset_version=17, dynamo=False)
        want = net(tokens).numpy()
    feed = {"tokens": tokens.numpy()}
    (ref,), _, _ = ort_run(path, feed)
    sym, arg_params, aux_params = mx.onnx.import_model(path)
    (got,) = mxc_run(sym, arg_params, aux_params, feed)
    assert_close(got, ref)
    assert_close(got, want, rtol=1e-3, atol=1e-5)
    return float(np.abs(got - ref).max())


def check_recurrent(name, tmp_dir):
    """A torch LSTM / GRU / RNN model through ONNX (one LSTM, GRU or RNN node
    per layer) into MXNet's fused RNN: ONNX Runtime's outputs to 1e-4."""
    torch.manual_seed(0)
    cls, shape = RECURRENT[name]
    net = cls().eval()
    x = torch.randn(*shape)
    path = os.path.join(tmp_dir, "%s.onnx" % name)
    with torch.no_grad():
        _export(net, x, path, 17)
        want = net(x).numpy()
    feed = {"x": x.numpy()}
    (ref,), _, _ = ort_run(path, feed)
    sym, arg_params, aux_params = mx.onnx.import_model(path)
    assert '"RNN"' in sym.tojson()
    (got,) = mxc_run(sym, arg_params, aux_params, feed)
    scale = float(np.abs(ref).max())
    assert_close(got, ref, rtol=1e-4, atol=1e-4 * scale, what="%s vs ONNX Runtime" % name)
    assert_close(got, want, rtol=1e-3, atol=1e-4 * scale, what="%s vs torch" % name)
    (cli,) = cli_run(path, feed, ["y"], tmp_dir)
    assert_close(cli, ref, rtol=1e-4, atol=1e-4 * scale, what="mxc run %s vs ONNX Runtime" % name)
    return float(np.abs(got - ref).max() / scale)


if pytest is not None:
    @pytest.mark.parametrize("opset", [13, 17])
    @pytest.mark.parametrize("name", sorted(NETS))
    def test_torch_exported_network(name, opset, tmp_path):
        check_net(name, opset, str(tmp_path))

    def test_torch_embedding_model(tmp_path):
        check_embedder(str(tmp_path))

    @pytest.mark.parametrize("name", sorted(RECURRENT))
    def test_torch_recurrent_model(name, tmp_path):
        check_recurrent(name, str(tmp_path))


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as d:
        for name in sorted(NETS):
            for opset in (13, 17):
                print("%-14s opset %d: max |mxc - ORT| / max |ORT| = %.2g"
                      % (name, opset, check_net(name, opset, d)), flush=True)
        print("embedder: max |mxc - ORT| = %.2g" % check_embedder(d))
        for name in sorted(RECURRENT):
            print("%-14s: max |mxc - ORT| / max |ORT| = %.2g" % (name, check_recurrent(name, d)))
