"""DenseNet-121/161/169/201 (Huang et al. 2016, "Densely Connected
Convolutional Networks"), as MXNet 1.9.1's zoo builds them: the dense blocks
are `stage1_` ... `stage4_` (`densenet0_stage1_conv0_weight`), the stem,
transitions and final BatchNorm are counted in the network's own scope
(`densenet0_conv0_`, `densenet0_batchnorm4_`)."""
from ....base import MXNetError
from ....context import cpu
from ... import nn
from ...contrib.nn import HybridConcurrent, Identity
from ._common import Classifier, chain, check_pretrained, register, relu

__all__ = ["DenseNet", "get_densenet", "densenet121", "densenet161", "densenet169",
           "densenet201"]

# depth -> (stem width, growth rate, layers in each dense block)
_DEPTHS = {121: (64, 32, (6, 12, 24, 16)),
           161: (96, 48, (6, 12, 36, 24)),
           169: (64, 32, (6, 12, 32, 32)),
           201: (64, 32, (6, 12, 48, 32))}


def _norm_relu_conv(channels, kernel, pad=0):
    """The pre-activation triple BatchNorm, relu, Conv2D (no bias) of DenseNet."""
    return [nn.BatchNorm(), relu(),
            nn.Conv2D(channels, kernel_size=kernel, padding=pad, use_bias=False)]


def _dense_layer(growth_rate, bn_size, dropout):
    """x -> concat(x, f(x)) along channels, f = BN-relu-conv1x1 (bn_size *
    growth_rate), BN-relu-conv3x3 (growth_rate), optional Dropout."""
    new = _norm_relu_conv(bn_size * growth_rate, 1) + _norm_relu_conv(growth_rate, 3, 1)
    if dropout:
        new.append(nn.Dropout(dropout))
    branch = chain(*new)
    both = HybridConcurrent(axis=1, prefix="")
    both.add(Identity(), branch)
    return both


def _dense_block(index, count, growth_rate, bn_size, dropout):
    block = nn.HybridSequential(prefix="stage%d_" % index)
    with block.name_scope():
        for _ in range(count):
            block.add(_dense_layer(growth_rate, bn_size, dropout))
    return block


class DenseNet(Classifier):
    """Stem conv 7x7/2 + BN + relu + max-pool; dense blocks joined by
    transitions (BN-relu-conv1x1 halving the width, avg-pool 2x2);
    BN + relu + avg-pool 7x7, Dense(classes)."""

    def __init__(self, num_init_features, growth_rate, block_config, bn_size=4, dropout=0,
                 classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.Conv2D(num_init_features, kernel_size=7, strides=2, padding=3,
                                        use_bias=False),
                              nn.BatchNorm(), relu(),
                              nn.MaxPool2D(pool_size=3, strides=2, padding=1))
            width = num_init_features
            for index, count in enumerate(block_config, 1):
                self.features.add(_dense_block(index, count, growth_rate, bn_size, dropout))
                width += count * growth_rate
                if index < len(block_config):
                    width //= 2
                    self.features.add(chain(*_norm_relu_conv(width, 1),
                                            nn.AvgPool2D(pool_size=2, strides=2)))
            self.features.add(nn.BatchNorm(), relu(), nn.AvgPool2D(pool_size=7), nn.Flatten())
            self.output = nn.Dense(classes)


def get_densenet(num_layers, pretrained=False, ctx=cpu(), root=None, **kwargs):
    """DenseNet with `num_layers` (121, 161, 169, 201)."""
    if num_layers not in _DEPTHS:
        raise MXNetError("DenseNet: no %r-layer network; the depths are %s"
                         % (num_layers, sorted(_DEPTHS)))
    check_pretrained("densenet%d" % num_layers, pretrained, root)
    stem, growth, blocks = _DEPTHS[num_layers]
    return DenseNet(stem, growth, blocks, **kwargs)


densenet121 = register("densenet121", "densenet121", get_densenet, 121, summary="DenseNet-121")
densenet161 = register("densenet161", "densenet161", get_densenet, 161, summary="DenseNet-161")
densenet169 = register("densenet169", "densenet169", get_densenet, 169, summary="DenseNet-169")
densenet201 = register("densenet201", "densenet201", get_densenet, 201, summary="DenseNet-201")
