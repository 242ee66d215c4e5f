"""What every network of the vision zoo shares: the table of names that
`get_model` looks up, the constructor functions made from it, the refusal of
pretrained weights, and the few layer groups several families build.

Parameter names come from the order in which layers are created and the name
scopes they are created in (gluon's prefixes, as MXNet's `_BlockScope`):
a container made with `prefix=''` opens no scope of its own, so the layers
in it are counted in the enclosing network's scope (`resnetv10_conv0_`,
`resnetv10_batchnorm0_`, ...), while a container with a prefix
(`stage1_`, `A1_`, `features_`) counts its own. The builders below create
layers in exactly the order MXNet 1.9.1's definitions do, which is what makes
the names, and so MXNet's `.params` files, interchangeable.
"""
from ...block import HybridBlock
from ... import nn
from ..model_store import get_model_file

# zoo name ('resnet18_v1', 'squeezenet1.1', ...) -> constructor function
MODELS = {}


def check_pretrained(zoo_name, pretrained, root):
    """Raises (MXNetError) when weights are asked for: mxc has none to give."""
    if pretrained:
        get_model_file(zoo_name, root=root)


def register(zoo_name, public_name, family, *args, summary=""):
    """The public constructor `public_name(**kwargs)` for `family(*args,
    **kwargs)` (e.g. resnet18_v1 = get_resnet(1, 18, ...)), entered in
    MODELS under `zoo_name`."""

    def constructor(**kwargs):
        return family(*args, **kwargs)

    constructor.__name__ = constructor.__qualname__ = public_name
    constructor.__doc__ = (
        "%s (get_model(%r)).\n\nKeyword arguments: classes (default 1000), pretrained "
        "(default False; True raises: mxc downloads no weights, load a local file with "
        "load_parameters), ctx and root (accepted as MXNet's), and the network's own "
        "options (prefix, params, ...)." % (summary or zoo_name, zoo_name))
    MODELS[zoo_name] = constructor
    return constructor


class Classifier(HybridBlock):
    """A network of the zoo: `features` (a HybridSequential the subclass
    fills) followed by `output`, the classification head."""

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def chain(*layers):
    """A HybridSequential with an empty prefix holding `layers` in order: it
    adds nothing to their names, so they may be made before it."""
    seq = nn.HybridSequential(prefix="")
    seq.add(*layers)
    return seq


def relu():
    return nn.Activation("relu")


def conv_relu(channels, kernel, stride=1, pad=0):
    """Conv2D (with bias) then relu, as one HybridSequential."""
    return chain(nn.Conv2D(channels, kernel, strides=stride, padding=pad), relu())
