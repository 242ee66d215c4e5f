"""AlexNet in the single-tower form of Krizhevsky 2014 ("One weird trick
for parallelizing convolutional neural networks"), as MXNet 1.9.1's zoo
builds it: every layer in one `features` sequence, names `alexnet0_conv0_`
... `alexnet0_dense1_`, and the classifier `alexnet0_dense2_`."""
from ....context import cpu
from ... import nn
from ._common import Classifier, check_pretrained, register

__all__ = ["AlexNet", "alexnet"]

# (kind, arguments) in order; conv = (channels, kernel, stride, padding),
# each conv and the two hidden Dense layers end in relu.
_LAYERS = (
    ("conv", (64, 11, 4, 2)), ("pool", ()),
    ("conv", (192, 5, 1, 2)), ("pool", ()),
    ("conv", (384, 3, 1, 1)), ("conv", (256, 3, 1, 1)), ("conv", (256, 3, 1, 1)), ("pool", ()),
    ("flatten", ()),
    ("dense", (4096,)), ("dropout", ()),
    ("dense", (4096,)), ("dropout", ()),
)


def _layer(kind, args):
    if kind == "conv":
        channels, kernel, stride, pad = args
        return nn.Conv2D(channels, kernel_size=kernel, strides=stride, padding=pad,
                         activation="relu")
    if kind == "pool":
        return nn.MaxPool2D(pool_size=3, strides=2)
    if kind == "dense":
        return nn.Dense(args[0], activation="relu")
    if kind == "dropout":
        return nn.Dropout(0.5)
    return nn.Flatten()


class AlexNet(Classifier):
    """Five convolutions (three max-pools), two Dense(4096) with Dropout 0.5,
    Dense(classes)."""

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            for kind, args in _LAYERS:
                self.features.add(_layer(kind, args))
            self.output = nn.Dense(classes)


def alexnet(pretrained=False, ctx=cpu(), root=None, **kwargs):
    """AlexNet (get_model('alexnet')); pretrained=True raises (no downloads)."""
    check_pretrained("alexnet", pretrained, root)
    return AlexNet(**kwargs)


register("alexnet", "alexnet", alexnet)
