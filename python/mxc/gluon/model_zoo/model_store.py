"""Where MXNet's model zoo keeps downloaded weights. mxc downloads nothing:
asking for a pretrained network is an error that says how to use a
`.params` file one already has."""
import glob
import os

from ...base import MXNetError, data_dir


def default_root():
    """MXNet's default folder for model files: $MXNET_HOME/models."""
    return os.path.join(data_dir(), "models")


def get_model_file(name, root=None):
    """Always raises: mxc has no model store to fetch `name`'s weights from."""
    root = os.path.expanduser(root if root is not None else default_root())
    raise MXNetError(
        "pretrained=True: mxc cannot download the pretrained weights of '%s' (it has no "
        "model store and never reaches the network; root=%r is not searched). Build the "
        "network with pretrained=False and load a local MXNet .params file into it: "
        "net = vision.get_model('%s'); net.load_parameters('/path/to/%s.params', ctx=ctx)"
        % (name, root, name, name))


def purge(root=None):
    """Deletes the .params files in `root` (as MXNet's model_store.purge)."""
    root = os.path.expanduser(root if root is not None else default_root())
    for path in glob.glob(os.path.join(root, "*.params")):
        os.remove(path)
