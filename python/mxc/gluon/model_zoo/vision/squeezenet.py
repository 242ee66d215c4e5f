"""SqueezeNet 1.0 and 1.1 (Iandola et al. 2016, "SqueezeNet: AlexNet-level
accuracy with 50x fewer parameters and <0.5MB model size"), as MXNet 1.9.1's
zoo builds them (`squeezenet0_conv0_weight` ... ; the classifier is a 1x1
convolution, `squeezenet0_conv25_` in 1.0 and 1.1)."""
from ....base import MXNetError
from ....context import cpu
from ... import nn
from ...contrib.nn import HybridConcurrent
from ._common import Classifier, chain, check_pretrained, conv_relu, register, relu

__all__ = ["SqueezeNet", "squeezenet1_0", "squeezenet1_1"]

# The feature layers of each version: ("conv", channels, kernel, stride),
# "pool" (max 3x3/2, ceil mode) or ("fire", squeeze, expand 1x1, expand 3x3).
_FEATURES = {
    "1.0": (("conv", 96, 7, 2), "pool",
            ("fire", 16, 64, 64), ("fire", 16, 64, 64), ("fire", 32, 128, 128), "pool",
            ("fire", 32, 128, 128), ("fire", 48, 192, 192), ("fire", 48, 192, 192),
            ("fire", 64, 256, 256), "pool",
            ("fire", 64, 256, 256)),
    "1.1": (("conv", 64, 3, 2), "pool",
            ("fire", 16, 64, 64), ("fire", 16, 64, 64), "pool",
            ("fire", 32, 128, 128), ("fire", 32, 128, 128), "pool",
            ("fire", 48, 192, 192), ("fire", 48, 192, 192),
            ("fire", 64, 256, 256), ("fire", 64, 256, 256)),
}


def _fire(squeeze, expand1, expand3):
    """Fire module: squeeze 1x1 + relu, then 1x1 and 3x3 expansions (+ relu)
    side by side, concatenated along channels."""
    squeeze_conv = conv_relu(squeeze, 1)
    expand = HybridConcurrent(axis=1, prefix="")
    expand.add(conv_relu(expand1, 1), conv_relu(expand3, 3, pad=1))
    return chain(squeeze_conv, expand)


def _feature(spec):
    """The layers of one row of _FEATURES."""
    if spec == "pool":
        return [nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True)]
    if spec[0] == "conv":
        _, channels, kernel, stride = spec
        return [nn.Conv2D(channels, kernel_size=kernel, strides=stride), relu()]
    return [_fire(*spec[1:])]


class SqueezeNet(Classifier):
    """Conv + max-pools + fire modules, Dropout(0.5); the head is a 1x1
    conv to `classes` + relu, avg-pool 13x13, Flatten."""

    def __init__(self, version, classes=1000, **kwargs):
        super().__init__(**kwargs)
        if version not in _FEATURES:
            raise MXNetError("SqueezeNet: version %r; the versions are '1.0' and '1.1'"
                             % (version,))
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            for spec in _FEATURES[version]:
                self.features.add(*_feature(spec))
            self.features.add(nn.Dropout(0.5))
            self.output = chain(nn.Conv2D(classes, kernel_size=1), relu(),
                                nn.AvgPool2D(13), nn.Flatten())


def get_squeezenet(version, pretrained=False, ctx=cpu(), root=None, **kwargs):
    """SqueezeNet `version` ('1.0' or '1.1')."""
    check_pretrained("squeezenet%s" % version, pretrained, root)
    return SqueezeNet(version, **kwargs)


squeezenet1_0 = register("squeezenet1.0", "squeezenet1_0", get_squeezenet, "1.0",
                         summary="SqueezeNet 1.0")
squeezenet1_1 = register("squeezenet1.1", "squeezenet1_1", get_squeezenet, "1.1",
                         summary="SqueezeNet 1.1")
