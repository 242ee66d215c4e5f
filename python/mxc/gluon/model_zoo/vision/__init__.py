"""gluon.model_zoo.vision: the image-classification networks of MXNet
1.9.1's zoo, with its names, layers, parameter names and shapes
(docs/gluon.md, "Model zoo"). `get_model('resnet18_v1', classes=10)` or the
constructor functions (`resnet18_v1()`, `squeezenet1_1()`, ...)."""
from ._common import MODELS as _MODELS
from .alexnet import *
from .densenet import *
from .inception import *
from .mobilenet import *
from .resnet import *
from .squeezenet import *
from .vgg import *


def get_model(name, **kwargs):
    """The network called `name` (see `list_models()`), built with `kwargs`
    (classes, pretrained, ctx, root and the network's own options)."""
    key = name.lower()
    if key not in _MODELS:
        raise ValueError("get_model: no network called %r in the zoo; the names are %s"
                         % (name, ", ".join(sorted(_MODELS))))
    return _MODELS[key](**kwargs)


def list_models():
    """The names get_model knows, sorted."""
    return sorted(_MODELS)
