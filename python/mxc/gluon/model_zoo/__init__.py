"""gluon.model_zoo: MXNet 1.9.1's vision networks (`model_zoo.vision`),
written for mxc; `model_store` says why pretrained weights are not fetched
(docs/gluon.md, "Model zoo")."""
from . import model_store
from . import vision
