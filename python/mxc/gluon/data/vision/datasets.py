"""gluon.data.vision.datasets: MNIST and FashionMNIST read from the standard
idx files (gzip-compressed or not) in a local `root`. mxc never downloads:
a missing file is an MXNetError naming it. FashionMNIST's default root falls
back to Debian's dataset-fashion-mnist path (/usr/share/datasets/fashion-mnist)
when ~/.mxnet/datasets/fashion-mnist lacks the files."""
import gzip
import os
import struct

import numpy as np

from ....base import MXNetError
from .... import ndarray as nd
from ..dataset import Dataset


def _read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise MXNetError("%s: not an idx file (too short)" % path)
    zero, dtype_code, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or dtype_code != 0x08:
        raise MXNetError("%s: not an unsigned-byte idx file (magic %08x)"
                         % (path, struct.unpack(">I", data[:4])[0]))
    dims = struct.unpack(">%dI" % ndim, data[4:4 + 4 * ndim])
    body = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim)
    if body.size != int(np.prod(dims)):
        raise MXNetError("%s: %d bytes of data for dimensions %s" % (path, body.size, dims))
    return body.reshape(dims)


class _DownloadedDataset(Dataset):
    """Samples (image NDArray HWC uint8, label int32) with an optional
    transform(data, label)."""

    def __init__(self, root, transform):
        self._root = os.path.expanduser(root)
        self._transform = transform
        self._data = None
        self._label = None
        self._get_data()

    def __getitem__(self, idx):
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)

    def _get_data(self):
        raise NotImplementedError


class MNIST(_DownloadedDataset):
    """The MNIST digits: 60,000 training / 10,000 test images, 28x28x1."""

    _train = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte")
    _test = ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")
    _fallback_roots = ()

    def __init__(self, root=os.path.join("~", ".mxnet", "datasets", "mnist"), train=True,
                 transform=None):
        self._train_set = train
        self._default_root = root == self.__init__.__defaults__[0]
        super().__init__(root, transform)

    def _find(self, name):
        roots = [self._root] + (list(self._fallback_roots) if self._default_root else [])
        for r in roots:
            for suffix in (".gz", ""):
                p = os.path.join(r, name + suffix)
                if os.path.isfile(p):
                    return p
        raise MXNetError("%s: no file %s(.gz) in %s (mxc does not download datasets: put the "
                         "idx files there or pass root=)" % (type(self).__name__, name,
                                                              " or ".join(roots)))

    def _get_data(self):
        images, labels = self._train if self._train_set else self._test
        label = _read_idx(self._find(labels)).astype(np.int32)
        data = _read_idx(self._find(images))
        if data.shape[0] != label.shape[0]:
            raise MXNetError("%s: %d images for %d labels" % (type(self).__name__,
                                                             data.shape[0], label.shape[0]))
        data = data.reshape(data.shape[0], data.shape[1], data.shape[2], 1)
        self._data = nd.array(data, dtype=data.dtype)
        self._label = label


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST: the MNIST layout, 10 clothing classes."""

    _fallback_roots = ("/usr/share/datasets/fashion-mnist",)

    def __init__(self, root=os.path.join("~", ".mxnet", "datasets", "fashion-mnist"),
                 train=True, transform=None):
        self._train_set = train
        self._default_root = root == os.path.join("~", ".mxnet", "datasets", "fashion-mnist")
        _DownloadedDataset.__init__(self, root, transform)
