"""gluon.data.vision.transforms (MXNet 1.9.1's names and arguments).

The transforms are Blocks that compute with numpy on the sample (the
compiler has no image operators): ToTensor, Normalize, Cast, Resize,
CenterCrop, RandomFlipLeftRight, RandomFlipTopBottom; Compose chains them.
Resize / CenterCrop interpolate bilinearly with half-pixel centres
(interpolation=1, OpenCV's INTER_LINEAR convention) or take the nearest
pixel (interpolation=0); OpenCV's fixed-point rounding for uint8 is not
reproduced bit for bit. Random flips draw from mx.random's generator.
"""
import numpy as np

from ....base import MXNetError
from .... import ndarray as nd
from ....ndarray import NDArray
from ...block import Block
from ...nn import Sequential


def _np(x):
    return x.asnumpy() if isinstance(x, NDArray) else np.asarray(x)


def _rng():
    from .... import random as _random
    return _random._generator


class Compose(Sequential):
    """Applies the transforms in order."""

    def __init__(self, transforms):
        super().__init__()
        for t in transforms:
            self.add(t)


class Cast(Block):
    def __init__(self, dtype="float32"):
        super().__init__()
        self._dtype = dtype

    def forward(self, x):
        return nd.array(_np(x), dtype=self._dtype)


class ToTensor(Block):
    """(H, W, C) or (N, H, W, C) values in [0, 255] -> (C, H, W) / (N, C, H, W)
    float32 in [0, 1]."""

    def forward(self, x):
        a = _np(x)
        if a.ndim == 3:
            a = a.transpose(2, 0, 1)
        elif a.ndim == 4:
            a = a.transpose(0, 3, 1, 2)
        else:
            raise MXNetError("ToTensor: expected (H, W, C) or (N, H, W, C), got shape %s"
                             % (a.shape,))
        return nd.array(a.astype(np.float32) / np.float32(255.0))


class Normalize(Block):
    """(x - mean) / std per channel of (C, H, W) or (N, C, H, W) float data."""

    def __init__(self, mean=0.0, std=1.0):
        super().__init__()
        self._mean = mean
        self._std = std

    def forward(self, x):
        a = _np(x)
        if a.ndim not in (3, 4):
            raise MXNetError("Normalize: expected (C, H, W) or (N, C, H, W), got shape %s"
                             % (a.shape,))
        c = a.shape[-3]
        mean = np.broadcast_to(np.asarray(self._mean, np.float32).reshape(-1), (c,))
        std = np.broadcast_to(np.asarray(self._std, np.float32).reshape(-1), (c,))
        return nd.array((a - mean.reshape(c, 1, 1)) / std.reshape(c, 1, 1), dtype=a.dtype)


def _resize(a, w, h, interpolation):
    """(H, W, C) array resized to (h, w)."""
    H, W = a.shape[0], a.shape[1]
    if (H, W) == (h, w):
        return a.copy()
    if interpolation == 0:
        ys = np.minimum((np.arange(h) * (H / h)).astype(np.int64), H - 1)
        xs = np.minimum((np.arange(w) * (W / w)).astype(np.int64), W - 1)
        return a[ys][:, xs]
    if interpolation != 1:
        raise MXNetError("Resize: interpolation %d is not supported (0 nearest, 1 bilinear)"
                         % interpolation)
    fy = np.clip((np.arange(h) + 0.5) * (H / h) - 0.5, 0, H - 1)
    fx = np.clip((np.arange(w) + 0.5) * (W / w) - 0.5, 0, W - 1)
    y0 = np.floor(fy).astype(np.int64)
    x0 = np.floor(fx).astype(np.int64)
    y1 = np.minimum(y0 + 1, H - 1)
    x1 = np.minimum(x0 + 1, W - 1)
    wy = (fy - y0)[:, None, None]
    wx = (fx - x0)[None, :, None]
    f = a.astype(np.float64)
    top = f[y0][:, x0] * (1 - wx) + f[y0][:, x1] * wx
    bot = f[y1][:, x0] * (1 - wx) + f[y1][:, x1] * wx
    out = top * (1 - wy) + bot * wy
    if np.issubdtype(a.dtype, np.integer):
        info = np.iinfo(a.dtype)
        out = np.clip(np.rint(out), info.min, info.max)
    return out.astype(a.dtype)


def _size(size, what):
    if isinstance(size, int):
        return size, size
    size = tuple(size)
    if len(size) != 2:
        raise MXNetError("%s: size must be an int or (width, height), got %s" % (what, (size,)))
    return size


class Resize(Block):
    """Resizes (H, W, C) or (N, H, W, C) images to size (width, height);
    keep_ratio with an int size scales the shorter side to it."""

    def __init__(self, size, keep_ratio=False, interpolation=1):
        super().__init__()
        self._size = size
        self._keep = keep_ratio
        self._interpolation = interpolation

    def forward(self, x):
        a = _np(x)
        single = a.ndim == 3
        if a.ndim not in (3, 4):
            raise MXNetError("Resize: expected (H, W, C) or (N, H, W, C), got shape %s"
                             % (a.shape,))
        H, W = a.shape[-3], a.shape[-2]
        if isinstance(self._size, int) and self._keep:
            if H > W:
                w, h = self._size, int(H * self._size / W)
            else:
                w, h = int(W * self._size / H), self._size
        else:
            w, h = _size(self._size, "Resize")
        imgs = [a] if single else list(a)
        out = [_resize(i, w, h, self._interpolation) for i in imgs]
        return nd.array(out[0] if single else np.stack(out), dtype=a.dtype)


class CenterCrop(Block):
    """Crops the centre (width, height) of (H, W, C) / (N, H, W, C) images
    (resized up first when smaller)."""

    def __init__(self, size, interpolation=1):
        super().__init__()
        self._size = _size(size, "CenterCrop")
        self._interpolation = interpolation

    def forward(self, x):
        a = _np(x)
        single = a.ndim == 3
        if a.ndim not in (3, 4):
            raise MXNetError("CenterCrop: expected (H, W, C) or (N, H, W, C), got shape %s"
                             % (a.shape,))
        w, h = self._size
        out = []
        for img in ([a] if single else list(a)):
            H, W = img.shape[0], img.shape[1]
            if H < h or W < w:
                s = max(h / H, w / W)
                img = _resize(img, max(w, int(round(W * s))), max(h, int(round(H * s))),
                              self._interpolation)
                H, W = img.shape[0], img.shape[1]
            y0, x0 = (H - h) // 2, (W - w) // 2
            out.append(img[y0:y0 + h, x0:x0 + w])
        return nd.array(out[0] if single else np.stack(out), dtype=a.dtype)


class RandomFlipLeftRight(Block):
    """Flips (H, W, C) images left-right with probability 0.5."""

    def forward(self, x):
        a = _np(x)
        if _rng().random() < 0.5:
            a = a[..., ::-1, :]
        return nd.array(np.ascontiguousarray(a), dtype=a.dtype)


class RandomFlipTopBottom(Block):
    """Flips (H, W, C) images top-bottom with probability 0.5."""

    def forward(self, x):
        a = _np(x)
        if _rng().random() < 0.5:
            a = a[..., ::-1, :, :]
        return nd.array(np.ascontiguousarray(a), dtype=a.dtype)
