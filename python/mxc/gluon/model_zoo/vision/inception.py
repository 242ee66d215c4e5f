"""Inception v3 (Szegedy et al. 2015, "Rethinking the Inception
Architecture for Computer Vision") for 299x299 inputs, as MXNet 1.9.1's zoo
builds it: a stem of conv-BN-relu units counted in the network's scope
(`inception30_conv0_weight`), then the mixed blocks A1_, A2_, A3_, B_,
C1_..C4_, D_, E1_, E2_ (`inception30_A1_conv0_weight`), each a set of
branches concatenated along channels, described as data below."""
from ....context import cpu
from ... import nn
from ...contrib.nn import HybridConcurrent
from ._common import Classifier, chain, check_pretrained, register, relu

__all__ = ["Inception3", "inception_v3"]


def _branch(pool, *convs):
    """A branch: an optional pool ('avg' 3x3/1 pad 1, 'max' 3x3/2) then
    conv units, each (channels, kernel[, stride[, padding]])."""
    return ("branch", (pool, convs))


def _then(*parts):
    """Parts applied one after the other."""
    return ("then", parts)


def _split(*parts):
    """Parts applied to the same input, concatenated along channels."""
    return ("split", parts)


def _block_a(pool_features):
    return [_branch(None, (64, 1)),
            _branch(None, (48, 1), (64, 5, 1, 2)),
            _branch(None, (64, 1), (96, 3, 1, 1), (96, 3, 1, 1)),
            _branch("avg", (pool_features, 1))]


def _block_b():
    return [_branch(None, (384, 3, 2)),
            _branch(None, (64, 1), (96, 3, 1, 1), (96, 3, 2)),
            _branch("max")]


def _block_c(c7):
    return [_branch(None, (192, 1)),
            _branch(None, (c7, 1), (c7, (1, 7), 1, (0, 3)), (192, (7, 1), 1, (3, 0))),
            _branch(None, (c7, 1), (c7, (7, 1), 1, (3, 0)), (c7, (1, 7), 1, (0, 3)),
                    (c7, (7, 1), 1, (3, 0)), (192, (1, 7), 1, (0, 3))),
            _branch("avg", (192, 1))]


def _block_d():
    return [_branch(None, (192, 1), (320, 3, 2)),
            _branch(None, (192, 1), (192, (1, 7), 1, (0, 3)), (192, (7, 1), 1, (3, 0)),
                    (192, 3, 2)),
            _branch("max")]


def _block_e():
    def fan_out():
        return _split(_branch(None, (384, (1, 3), 1, (0, 1))),
                      _branch(None, (384, (3, 1), 1, (1, 0))))
    return [_branch(None, (320, 1)),
            _then(_branch(None, (384, 1)), fan_out()),
            _then(_branch(None, (448, 1), (384, 3, 1, 1)), fan_out()),
            _branch("avg", (192, 1))]


# the mixed blocks in order: (prefix, branches)
_MIXED = (("A1_", _block_a(32)), ("A2_", _block_a(64)), ("A3_", _block_a(64)),
          ("B_", _block_b()),
          ("C1_", _block_c(128)), ("C2_", _block_c(160)), ("C3_", _block_c(160)),
          ("C4_", _block_c(192)),
          ("D_", _block_d()), ("E1_", _block_e()), ("E2_", _block_e()))


def _unit(channels, kernel, stride=1, pad=0):
    """Conv2D (no bias) + BatchNorm (epsilon 1e-3) + relu."""
    return chain(nn.Conv2D(channels, kernel, strides=stride, padding=pad, use_bias=False),
                 nn.BatchNorm(epsilon=0.001), relu())


def _build(node):
    """The block for one node of a mixed block's description, its layers made
    depth first in the order they are listed."""
    kind, payload = node
    if kind == "branch":
        pool, convs = payload
        layers = []
        if pool == "avg":
            layers.append(nn.AvgPool2D(pool_size=3, strides=1, padding=1))
        elif pool == "max":
            layers.append(nn.MaxPool2D(pool_size=3, strides=2))
        return chain(*(layers + [_unit(*conv) for conv in convs]))
    if kind == "then":
        container = nn.HybridSequential(prefix="")
    else:
        container = HybridConcurrent(axis=1, prefix="")
    for part in payload:
        container.add(_build(part))
    return container


def _mixed(prefix, branches):
    block = HybridConcurrent(axis=1, prefix=prefix)
    with block.name_scope():
        for branch in branches:
            block.add(_build(branch))
    return block


class Inception3(Classifier):
    """Stem (five conv units, two max-pools), eleven mixed blocks, avg-pool
    8x8, Dropout(0.5), Dense(classes)."""

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(_unit(32, 3, 2), _unit(32, 3), _unit(64, 3, 1, 1),
                              nn.MaxPool2D(pool_size=3, strides=2),
                              _unit(80, 1), _unit(192, 3),
                              nn.MaxPool2D(pool_size=3, strides=2))
            for prefix, branches in _MIXED:
                self.features.add(_mixed(prefix, branches))
            self.features.add(nn.AvgPool2D(pool_size=8), nn.Dropout(0.5))
            self.output = nn.Dense(classes)


def inception_v3(pretrained=False, ctx=cpu(), root=None, **kwargs):
    """Inception v3 (get_model('inceptionv3')); pretrained=True raises."""
    check_pretrained("inceptionv3", pretrained, root)
    return Inception3(**kwargs)


register("inceptionv3", "inception_v3", inception_v3)
