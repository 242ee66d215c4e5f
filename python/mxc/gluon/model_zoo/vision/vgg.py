"""VGG 11/13/16/19 (Simonyan & Zisserman 2014, "Very Deep Convolutional
Networks for Large-Scale Image Recognition"), with or without BatchNorm after
each convolution, as MXNet 1.9.1's zoo builds them (`vgg0_conv0_weight`,
`vgg0_batchnorm0_gamma`, `vgg0_dense0_weight`; the classifier is
`vgg0_dense2_`)."""
from ....base import MXNetError
from ....context import cpu
from ....initializer import Xavier
from ... import nn
from ._common import Classifier, check_pretrained, register, relu

__all__ = ["VGG", "get_vgg", "vgg11", "vgg13", "vgg16", "vgg19",
           "vgg11_bn", "vgg13_bn", "vgg16_bn", "vgg19_bn"]

# depth -> convolutions in each of the five blocks (each block ends in a
# 2x2 max-pool); the blocks' widths are the same for every depth.
_BLOCKS = {11: (1, 1, 2, 2, 2), 13: (2, 2, 2, 2, 2), 16: (2, 2, 3, 3, 3), 19: (2, 2, 4, 4, 4)}
_WIDTHS = (64, 128, 256, 512, 512)


class VGG(Classifier):
    """3x3 convolutions (+ BatchNorm) + relu in blocks separated by max-pools,
    then Dense(4096) + relu + Dropout(0.5) twice and Dense(classes)."""

    def __init__(self, layers, filters, classes=1000, batch_norm=False, **kwargs):
        super().__init__(**kwargs)
        if len(layers) != len(filters):
            raise MXNetError("VGG: layers and filters need one entry per block, got %d and %d"
                             % (len(layers), len(filters)))
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            for count, width in zip(layers, filters):
                for _ in range(count):
                    self.features.add(nn.Conv2D(
                        width, kernel_size=3, padding=1, bias_initializer="zeros",
                        weight_initializer=Xavier(rnd_type="gaussian", factor_type="out",
                                                  magnitude=2)))
                    if batch_norm:
                        self.features.add(nn.BatchNorm())
                    self.features.add(relu())
                self.features.add(nn.MaxPool2D(strides=2))
            for _ in range(2):
                self.features.add(nn.Dense(4096, activation="relu", weight_initializer="normal",
                                           bias_initializer="zeros"))
                self.features.add(nn.Dropout(rate=0.5))
            self.output = nn.Dense(classes, weight_initializer="normal",
                                   bias_initializer="zeros")


def get_vgg(num_layers, pretrained=False, ctx=cpu(), root=None, **kwargs):
    """VGG with `num_layers` (11, 13, 16, 19); batch_norm=True for the _bn nets."""
    if num_layers not in _BLOCKS:
        raise MXNetError("VGG: no %r-layer network; the depths are %s"
                         % (num_layers, sorted(_BLOCKS)))
    check_pretrained("vgg%d%s" % (num_layers, "_bn" if kwargs.get("batch_norm") else ""),
                     pretrained, root)
    return VGG(_BLOCKS[num_layers], _WIDTHS, **kwargs)


def _with_bn(depth):
    def build(**kwargs):
        kwargs["batch_norm"] = True
        return get_vgg(depth, **kwargs)
    return build


vgg11 = register("vgg11", "vgg11", get_vgg, 11, summary="VGG-11")
vgg13 = register("vgg13", "vgg13", get_vgg, 13, summary="VGG-13")
vgg16 = register("vgg16", "vgg16", get_vgg, 16, summary="VGG-16")
vgg19 = register("vgg19", "vgg19", get_vgg, 19, summary="VGG-19")
vgg11_bn = register("vgg11_bn", "vgg11_bn", _with_bn(11), summary="VGG-11 with BatchNorm")
vgg13_bn = register("vgg13_bn", "vgg13_bn", _with_bn(13), summary="VGG-13 with BatchNorm")
vgg16_bn = register("vgg16_bn", "vgg16_bn", _with_bn(16), summary="VGG-16 with BatchNorm")
vgg19_bn = register("vgg19_bn", "vgg19_bn", _with_bn(19), summary="VGG-19 with BatchNorm")
