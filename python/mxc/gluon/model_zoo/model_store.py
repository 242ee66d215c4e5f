"""gluon.model_zoo.model_store: mxc has no download; pretrained weights are
an error that says what to do instead."""
import os

from ...base import MXNetError


def get_model_file(name, root=os.path.join("~", ".mxnet", "models")):
    """The local file of `name`'s pretrained weights: MXNetError, because
    mxc cannot download them."""
    raise MXNetError("pretrained=True: the pretrained weights of '%s' cannot be downloaded by "
                     "mxc (no network access, no model store). Build the network with "
                     "pretrained=False and load a local MXNet .params file with "
                     "net.load_parameters(path)" % name)


def purge(root=os.path.join("~", ".mxnet", "models")):
    """Removes downloaded model files (there are none with mxc)."""
    root = os.path.expanduser(root)
    if os.path.isdir(root):
        for f in os.listdir(root):
            if f.endswith(".params"):
                os.remove(os.path.join(root, f))
