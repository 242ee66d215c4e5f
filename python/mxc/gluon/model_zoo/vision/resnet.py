"""ResNet v1 (He et al. 2015, "Deep Residual Learning for Image
Recognition") and v2 (He et al. 2016, "Identity Mappings in Deep Residual
Networks"), 18 to 152 layers, laid out as MXNet 1.9.1's zoo lays them out
(names `resnetv10_stage1_conv0_weight`, `resnetv20_stage2_batchnorm3_gamma`).

A residual unit is described by a table of its convolutions; the v1 units
keep them in one `body` sequence (conv, BatchNorm, relu between), the v2
units as pre-activated pairs `bn1`/`conv1`, `bn2`/`conv2`, ...
"""
from ....base import MXNetError
from ....context import cpu
from ...block import HybridBlock
from ... import nn
from ._common import Classifier, check_pretrained, register, relu

__all__ = ["ResNetV1", "ResNetV2", "BasicBlockV1", "BasicBlockV2", "BottleneckV1",
           "BottleneckV2", "get_resnet",
           "resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1",
           "resnet18_v2", "resnet34_v2", "resnet50_v2", "resnet101_v2", "resnet152_v2"]

# depth -> (unit kind, units per stage, width of the stem then of each stage)
_DEPTHS = {
    18: ("basic", (2, 2, 2, 2), (64, 64, 128, 256, 512)),
    34: ("basic", (3, 4, 6, 3), (64, 64, 128, 256, 512)),
    50: ("bottleneck", (3, 4, 6, 3), (64, 256, 512, 1024, 2048)),
    101: ("bottleneck", (3, 4, 23, 3), (64, 256, 512, 1024, 2048)),
    152: ("bottleneck", (3, 8, 36, 3), (64, 256, 512, 1024, 2048)),
}

# A unit's convolutions, one row each: (its width is the unit's width divided
# by, kernel, carries the unit's stride, has a bias, in_channels given as).
# in_channels: "unit" = the unit's input width, "own" = this conv's width,
# None = left for shape inference.
_CONVS = {
    (1, "basic"): ((1, 3, True, False, "unit"), (1, 3, False, False, "own")),
    (1, "bottleneck"): ((4, 1, True, True, None), (4, 3, False, False, "own"),
                        (1, 1, False, True, None)),
    (2, "basic"): ((1, 3, True, False, "unit"), (1, 3, False, False, "own")),
    (2, "bottleneck"): ((4, 1, False, False, None), (4, 3, True, False, "own"),
                        (1, 1, False, False, None)),
}


def _conv(row, channels, stride, in_channels):
    """The Conv2D of one row of a unit's table."""
    divisor, kernel, strided, bias, known = row
    width = channels // divisor
    given = {"unit": in_channels, "own": width, None: 0}[known]
    return nn.Conv2D(width, kernel, strides=stride if strided else 1, padding=kernel // 2,
                     use_bias=bias, in_channels=given)


class _UnitV1(HybridBlock):
    """relu(body(x) + shortcut(x)); the shortcut is a strided 1x1 conv and a
    BatchNorm when the unit changes width or resolution."""
    _table = None

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix="")
        for i, row in enumerate(self._table):
            if i:
                self.body.add(relu())
            self.body.add(_conv(row, channels, stride, in_channels))
            self.body.add(nn.BatchNorm())
        self.downsample = _projection(channels, stride, in_channels, True) if downsample else None

    def hybrid_forward(self, F, x):
        out = self.body(x)
        shortcut = x if self.downsample is None else self.downsample(x)
        return F.Activation(out + shortcut, act_type="relu")


class _UnitV2(HybridBlock):
    """Pre-activation unit: each conv_i is applied to relu(bn_i(.)); the
    projection shortcut (a strided 1x1 conv) reads relu(bn1(x))."""
    _table = None

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._depth = len(self._table)
        for i, row in enumerate(self._table, 1):
            setattr(self, "bn%d" % i, nn.BatchNorm())
            setattr(self, "conv%d" % i, _conv(row, channels, stride, in_channels))
        self.downsample = _projection(channels, stride, in_channels, False) if downsample else None

    def hybrid_forward(self, F, x):
        shortcut = x
        for i in range(1, self._depth + 1):
            x = F.Activation(getattr(self, "bn%d" % i)(x), act_type="relu")
            if i == 1 and self.downsample is not None:
                shortcut = self.downsample(x)
            x = getattr(self, "conv%d" % i)(x)
        return x + shortcut


def _projection(channels, stride, in_channels, with_norm):
    """The shortcut of a unit that changes width or resolution: a strided 1x1
    conv, followed by a BatchNorm in v1 (then both in an unnamed sequence)."""
    conv = nn.Conv2D(channels, 1, strides=stride, use_bias=False, in_channels=in_channels)
    if not with_norm:
        return conv
    seq = nn.HybridSequential(prefix="")
    seq.add(conv, nn.BatchNorm())
    return seq


class BasicBlockV1(_UnitV1):
    """Two 3x3 convolutions (ResNet-18/34 v1)."""
    _table = _CONVS[(1, "basic")]


class BottleneckV1(_UnitV1):
    """1x1 (stride here), 3x3, 1x1 to 4x the bottleneck width (ResNet-50+ v1)."""
    _table = _CONVS[(1, "bottleneck")]


class BasicBlockV2(_UnitV2):
    """Two pre-activated 3x3 convolutions (ResNet-18/34 v2)."""
    _table = _CONVS[(2, "basic")]


class BottleneckV2(_UnitV2):
    """Pre-activated 1x1, 3x3 (stride here), 1x1 (ResNet-50+ v2)."""
    _table = _CONVS[(2, "bottleneck")]


class _ResNet(Classifier):
    _version = None

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        if len(channels) != len(layers) + 1:
            raise MXNetError("ResNet: channels needs one width more than layers (the stem's), "
                             "got %d layers and %d channels" % (len(layers), len(channels)))
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            if self._version == 2:
                # normalises the input image (no learned scale or shift)
                self.features.add(nn.BatchNorm(scale=False, center=False))
            if thumbnail:
                self.features.add(nn.Conv2D(channels[0], 3, padding=1, use_bias=False))
            else:
                self.features.add(nn.Conv2D(channels[0], 7, 2, 3, use_bias=False),
                                  nn.BatchNorm(), relu(), nn.MaxPool2D(3, 2, 1))
            for index, count in enumerate(layers, 1):
                self.features.add(_stage(block, index, count, channels[index - 1],
                                         channels[index]))
            if self._version == 2:
                self.features.add(nn.BatchNorm(), relu())
            self.features.add(nn.GlobalAvgPool2D())
            if self._version == 2:
                self.features.add(nn.Flatten())
            self.output = nn.Dense(classes, in_units=channels[-1])


def _stage(unit, index, count, in_channels, channels):
    """Stage `index` (prefix stage<index>_): `count` units, the first one
    striding (but in stage 1) and projecting when the width changes."""
    stage = nn.HybridSequential(prefix="stage%d_" % index)
    with stage.name_scope():
        for j in range(count):
            first = j == 0
            stage.add(unit(channels, 2 if first and index > 1 else 1,
                           first and channels != in_channels,
                           in_channels=in_channels if first else channels, prefix=""))
    return stage


class ResNetV1(_ResNet):
    """ResNet v1: conv 7x7/2, max-pool, four stages of BasicBlockV1 or
    BottleneckV1 units, global average pool, Dense(classes)."""
    _version = 1


class ResNetV2(_ResNet):
    """ResNet v2: an input BatchNorm, the v1 stem, four stages of
    pre-activation units, BatchNorm + relu, global average pool, Dense."""
    _version = 2


_UNITS = {(1, "basic"): BasicBlockV1, (1, "bottleneck"): BottleneckV1,
          (2, "basic"): BasicBlockV2, (2, "bottleneck"): BottleneckV2}


def get_resnet(version, num_layers, pretrained=False, ctx=cpu(), root=None, **kwargs):
    """ResNet `version` (1 or 2) with `num_layers` (18, 34, 50, 101, 152)."""
    if num_layers not in _DEPTHS:
        raise MXNetError("ResNet: no %r-layer network; the depths are %s"
                         % (num_layers, sorted(_DEPTHS)))
    if version not in (1, 2):
        raise MXNetError("ResNet: version %r; the versions are 1 and 2" % (version,))
    check_pretrained("resnet%d_v%d" % (num_layers, version), pretrained, root)
    kind, layers, channels = _DEPTHS[num_layers]
    net_class = ResNetV1 if version == 1 else ResNetV2
    return net_class(_UNITS[(version, kind)], layers, channels, **kwargs)


def _public(depth, version):
    return register("resnet%d_v%d" % (depth, version), "resnet%d_v%d" % (depth, version),
                    get_resnet, version, depth,
                    summary="ResNet-%d v%d" % (depth, version))


resnet18_v1 = _public(18, 1)
resnet34_v1 = _public(34, 1)
resnet50_v1 = _public(50, 1)
resnet101_v1 = _public(101, 1)
resnet152_v1 = _public(152, 1)
resnet18_v2 = _public(18, 2)
resnet34_v2 = _public(34, 2)
resnet50_v2 = _public(50, 2)
resnet101_v2 = _public(101, 2)
resnet152_v2 = _public(152, 2)
