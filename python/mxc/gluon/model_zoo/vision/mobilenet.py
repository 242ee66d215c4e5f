"""MobileNet v1 (Howard et al. 2017, "MobileNets: Efficient Convolutional
Neural Networks for Mobile Vision Applications") and v2 (Sandler et al.
2018, "Inverted Residuals and Linear Bottlenecks"), width multipliers 1.0,
0.75, 0.5 and 0.25, as MXNet 1.9.1's zoo builds them (`mobilenet0_conv0_`,
`mobilenetv20_features_linearbottleneck3_conv1_weight`,
`mobilenetv20_output_pred_weight`)."""
from ....context import cpu
from ...block import HybridBlock
from ... import nn
from ._common import Classifier, check_pretrained, register, relu

__all__ = ["MobileNet", "MobileNetV2", "LinearBottleneck", "RELU6", "get_mobilenet",
           "get_mobilenet_v2",
           "mobilenet1_0", "mobilenet0_75", "mobilenet0_5", "mobilenet0_25",
           "mobilenet_v2_1_0", "mobilenet_v2_0_75", "mobilenet_v2_0_5", "mobilenet_v2_0_25"]

# v1 after its first conv (32 wide, stride 2): (output width, stride) of each
# depthwise-separable pair; the depthwise conv keeps the incoming width.
_V1_PAIRS = ((64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2),
             (512, 1), (512, 1), (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1))

# v2 after its first conv (32 wide, stride 2), the paper's table: (expansion
# t, output width c, units n, stride s of the first unit).
_V2_GROUPS = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
              (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1))


class RELU6(HybridBlock):
    """min(max(x, 0), 6)."""

    def hybrid_forward(self, F, x):
        return F.clip(x, a_min=0, a_max=6, name="relu6")


def _conv_bn(seq, channels, kernel=1, stride=1, pad=0, groups=1, act="relu"):
    """Adds Conv2D (no bias) + BatchNorm (+ relu or RELU6 unless act is None) to seq."""
    seq.add(nn.Conv2D(channels, kernel, stride, pad, groups=groups, use_bias=False))
    seq.add(nn.BatchNorm(scale=True))
    if act == "relu6":
        seq.add(RELU6())
    elif act:
        seq.add(relu())


class LinearBottleneck(HybridBlock):
    """Inverted residual: 1x1 expansion by t + RELU6, 3x3 depthwise (stride)
    + RELU6, linear 1x1 projection; x is added back when the shapes agree."""

    def __init__(self, in_channels, channels, t, stride, **kwargs):
        super().__init__(**kwargs)
        self.use_shortcut = stride == 1 and in_channels == channels
        wide = in_channels * t
        with self.name_scope():
            self.out = nn.HybridSequential()
            _conv_bn(self.out, wide, act="relu6")
            _conv_bn(self.out, wide, 3, stride, 1, groups=wide, act="relu6")
            _conv_bn(self.out, channels, act=None)

    def hybrid_forward(self, F, x):
        y = self.out(x)
        return F.elemwise_add(y, x) if self.use_shortcut else y


class MobileNet(Classifier):
    """Conv 3x3/2, 13 depthwise-separable pairs (3x3 depthwise + BN + relu,
    1x1 + BN + relu), global average pool, Dense(classes); every width times
    `multiplier`."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                width = int(32 * multiplier)
                _conv_bn(self.features, width, 3, 2, 1)
                for out, stride in _V1_PAIRS:
                    _conv_bn(self.features, width, 3, stride, 1, groups=width)
                    width = int(out * multiplier)
                    _conv_bn(self.features, width)
                self.features.add(nn.GlobalAvgPool2D(), nn.Flatten())
            self.output = nn.Dense(classes)


class MobileNetV2(Classifier):
    """Conv 3x3/2 + RELU6, 17 LinearBottleneck units, conv 1x1 to 1280 (or
    1280 x multiplier above 1) + RELU6, global average pool (`features_`);
    the head `output_` is a 1x1 conv to `classes` ('pred_') and Flatten."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="features_")
            with self.features.name_scope():
                width = int(32 * multiplier)
                _conv_bn(self.features, width, 3, 2, 1, act="relu6")
                for t, c, n, s in _V2_GROUPS:
                    for i in range(n):
                        out = int(c * multiplier)
                        self.features.add(LinearBottleneck(width, out, t, s if i == 0 else 1))
                        width = out
                last = int(1280 * multiplier) if multiplier > 1.0 else 1280
                _conv_bn(self.features, last, act="relu6")
                self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.HybridSequential(prefix="output_")
            with self.output.name_scope():
                self.output.add(nn.Conv2D(classes, 1, use_bias=False, prefix="pred_"),
                                nn.Flatten())


def _suffix(multiplier):
    """MXNet's spelling of a multiplier in zoo names: 1.0, 0.75, 0.5, 0.25."""
    text = "%.2f" % multiplier
    return text[:-1] if text in ("1.00", "0.50") else text


def get_mobilenet(multiplier, pretrained=False, ctx=cpu(), root=None, **kwargs):
    """MobileNet v1 with width `multiplier`."""
    check_pretrained("mobilenet" + _suffix(multiplier), pretrained, root)
    return MobileNet(multiplier, **kwargs)


def get_mobilenet_v2(multiplier, pretrained=False, ctx=cpu(), root=None, **kwargs):
    """MobileNet v2 with width `multiplier`."""
    check_pretrained("mobilenetv2_" + _suffix(multiplier), pretrained, root)
    return MobileNetV2(multiplier, **kwargs)


def _public(version, multiplier):
    tag = _suffix(multiplier)
    if version == 1:
        return register("mobilenet" + tag, "mobilenet" + tag.replace(".", "_"), get_mobilenet,
                        multiplier, summary="MobileNet v1, width x%s" % tag)
    return register("mobilenetv2_" + tag, "mobilenet_v2_" + tag.replace(".", "_"),
                    get_mobilenet_v2, multiplier, summary="MobileNet v2, width x%s" % tag)


mobilenet1_0 = _public(1, 1.0)
mobilenet0_75 = _public(1, 0.75)
mobilenet0_5 = _public(1, 0.5)
mobilenet0_25 = _public(1, 0.25)
mobilenet_v2_1_0 = _public(2, 1.0)
mobilenet_v2_0_75 = _public(2, 0.75)
mobilenet_v2_0_5 = _public(2, 0.5)
mobilenet_v2_0_25 = _public(2, 0.25)
