"""mx.image (mx.img): MXNet's image helpers on NDArrays, the part that needs
no OpenCV.

Here: scale_down, color_normalize, imread / imdecode (with Pillow, else
OpenCV's cv2, when installed; without an image decoder they raise
MXNetError, and an empty or undecodable buffer always does), imresize (bilinear through
contrib.BilinearResize2D; MXNet's wheel resizes with OpenCV, whose
half-pixel sampling differs, so resized pixels differ from MXNet's),
fixed_crop, center_crop, random_crop, random_size_crop, imrotate and
random_rotate (an affine grid and BilinearSampler, zero outside the image).
Not here: the augmenter classes, ImageIter / ImageDetIter, copyMakeBorder,
resize_short.
"""
import math
import os
import random as _pyrandom
import types
from numbers import Number

import numpy as np

from . import ndarray as nd
from .base import MXNetError
from .ndarray import NDArray


def _decoder():
    try:
        from PIL import Image  # noqa: F401
        return "pil"
    except ImportError:
        pass
    try:
        import cv2  # noqa: F401
        return "cv2"
    except ImportError:
        return None


def imdecode(buf, flag=1, to_rgb=True, out=None):
    """An encoded image (bytes) as an HWC uint8 NDArray: 3 channels (RGB, or
    BGR with to_rgb=False) for flag 1, one for flag 0."""
    if isinstance(buf, NDArray):
        buf = buf.asnumpy().tobytes()
    buf = bytes(buf)
    if not buf:
        raise MXNetError("imdecode: the buffer is empty")
    kind = _decoder()
    if kind is None:
        raise MXNetError("imdecode: no image decoder in this environment (install Pillow or "
                         "OpenCV's cv2)")
    if kind == "pil":
        import io
        from PIL import Image
        try:
            img = Image.open(io.BytesIO(buf))
            img = np.asarray(img.convert("RGB" if flag else "L"))
        except Exception as e:  # PIL raises several types for bad data
            raise MXNetError("imdecode: cannot decode the image (%d bytes): %s" % (len(buf), e))
        if flag and not to_rgb:
            img = img[:, :, ::-1]
    else:
        import cv2
        img = cv2.imdecode(np.frombuffer(buf, np.uint8), 1 if flag else 0)
        if img is None:
            raise MXNetError("imdecode: cannot decode the image (%d bytes)" % len(buf))
        if flag and to_rgb:
            img = img[:, :, ::-1]
    if img.ndim == 2:
        img = img[:, :, None]
    result = nd.array(np.ascontiguousarray(img), dtype="uint8")
    if out is not None:
        out[:] = result
        return out
    return result


def imread(filename, flag=1, to_rgb=True, out=None):
    """The image file `filename` decoded (imdecode)."""
    if not os.path.isfile(filename):
        raise MXNetError("imread: cannot open '%s': no such file" % filename)
    with open(filename, "rb") as f:
        return imdecode(f.read(), flag, to_rgb, out)


def scale_down(src_size, size):
    """`size` (w, h) shrunk, keeping its aspect ratio, to fit in src_size."""
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def color_normalize(src, mean, std=None):
    """(src - mean) / std (std optional), broadcasting over the channels,
    in place (src is changed and returned, as MXNet's)."""
    if mean is not None:
        src -= mean
    if std is not None:
        src /= std
    return src


def imresize(src, w, h, interp=1, out=None):
    """An HWC image resized to (h, w) by bilinear interpolation
    (contrib.BilinearResize2D). `interp` must be one of MXNet's codes (0
    nearest, 1 bilinear, 2 area, 3 bicubic, 4 Lanczos, 9 auto, 10 random);
    every one of them resizes bilinearly here."""
    if interp not in (0, 1, 2, 3, 4, 9, 10):
        raise MXNetError("imresize: interp must be 0, 1, 2, 3, 4, 9 or 10 (MXNet's "
                         "interpolation codes), got %r" % (interp,))
    if int(w) <= 0 or int(h) <= 0:
        raise MXNetError("imresize: the size must be positive, got (%s, %s)" % (w, h))
    x = src.astype("float32").transpose((2, 0, 1)).expand_dims(axis=0)
    y = nd.contrib.BilinearResize2D(x, height=int(h), width=int(w))
    y = y.reshape(y.shape[1:]).transpose((1, 2, 0))
    if src.dtype == np.uint8:
        y = nd.clip(nd.round(y), 0, 255)
    y = y.astype(src.dtype)
    if out is not None:
        out[:] = y
        return out
    return y


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """The (w, h) window at (x0, y0) of an HWC image, resized to `size`
    when given and different."""
    out = src[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != tuple(size):
        out = imresize(out, size[0], size[1], interp)
    return out


def center_crop(src, size, interp=2):
    """The centered window of `size`'s aspect ratio (scale_down), resized
    to size; returns (image, (x0, y0, w, h))."""
    h, w = src.shape[0], src.shape[1]
    new_w, new_h = scale_down((w, h), size)
    x0, y0 = (w - new_w) // 2, (h - new_h) // 2
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def random_crop(src, size, interp=2):
    """A window of `size`'s aspect ratio at a random place, resized to size;
    returns (image, (x0, y0, w, h))."""
    h, w = src.shape[0], src.shape[1]
    new_w, new_h = scale_down((w, h), size)
    x0 = _pyrandom.randint(0, w - new_w)
    y0 = _pyrandom.randint(0, h - new_h)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def random_size_crop(src, size, area, ratio, interp=2, **kwargs):
    """Inception-style crop: a window of a random fraction `area` (a number:
    [area, 1]) of the image and an aspect ratio drawn log-uniformly from
    `ratio`, resized to size (ten tries, then center_crop); returns
    (image, (x0, y0, w, h))."""
    h, w = src.shape[0], src.shape[1]
    if "min_area" in kwargs:     # MXNet's deprecated spelling of area
        area = kwargs.pop("min_area")
    if kwargs:
        raise TypeError("random_size_crop: unexpected arguments %s" % ", ".join(kwargs))
    lo, hi = (area, 1.0) if isinstance(area, Number) else area
    for _ in range(10):
        target = _pyrandom.uniform(lo, hi) * w * h
        log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
        aspect = math.exp(_pyrandom.uniform(*log_ratio))
        new_w = int(round(math.sqrt(target * aspect)))
        new_h = int(round(math.sqrt(target / aspect)))
        if 0 < new_w <= w and 0 < new_h <= h:
            x0 = _pyrandom.randint(0, w - new_w)
            y0 = _pyrandom.randint(0, h - new_h)
            return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)
    return center_crop(src, size, interp)


def imrotate(src, rotation_degrees, zoom_in=False, zoom_out=False):
    """CHW (or NCHW) float32 image(s) rotated by `rotation_degrees`
    (counter-clockwise; a number, or one per image) about the center,
    bilinear, zero where the source lies outside. zoom_in scales so that no
    zero corner shows, zoom_out so that the whole source fits."""
    if zoom_in and zoom_out:
        raise ValueError("imrotate: zoom_in and zoom_out cannot both be True")
    if src.dtype != np.float32:
        raise TypeError("imrotate: only float32 images are supported, got %s" % src.dtype)
    single = src.ndim == 3
    if single:
        if not isinstance(rotation_degrees, Number):
            raise TypeError("imrotate: one image takes one (scalar) angle")
        src = src.expand_dims(axis=0)
    elif src.ndim != 4:
        raise ValueError("imrotate: the image must be CHW or NCHW, got %d dimensions" % src.ndim)
    n, _, h, w = src.shape
    if isinstance(rotation_degrees, Number):
        angles = np.full(n, float(rotation_degrees))
    else:
        angles = np.asarray(rotation_degrees.asnumpy() if isinstance(rotation_degrees, NDArray)
                            else rotation_degrees, dtype=np.float64).reshape(-1)
    if len(angles) != n:
        raise ValueError("imrotate: %d images and %d angles" % (n, len(angles)))
    rad = np.deg2rad(angles)[:, None, None]
    hs, ws = (h - 1) / 2.0, (w - 1) / 2.0
    yy, xx = np.meshgrid(np.arange(h) - hs, np.arange(w) - ws, indexing="ij")
    # the source of each output pixel: the output position rotated back
    xs = xx * np.cos(rad) - yy * np.sin(rad)
    ys = xx * np.sin(rad) + yy * np.cos(rad)
    if zoom_in or zoom_out:
        c_, s_ = np.abs(np.cos(rad)), np.abs(np.sin(rad))
        ext_w = w * c_ + h * s_                  # the rotated image's extents
        ext_h = w * s_ + h * c_
        scale = np.maximum(ext_w / w, ext_h / h) if zoom_out else \
            np.minimum(w / ext_w, h / ext_h)
        xs, ys = xs * scale, ys * scale
    grid = np.stack([xs / max(ws, 1e-12), ys / max(hs, 1e-12)], axis=1).astype(np.float32)
    out = nd.BilinearSampler(src, nd.array(grid, ctx=src.context))
    return out.reshape(out.shape[1:]) if single else out


def random_rotate(src, angle_limits, zoom_in=False, zoom_out=False):
    """imrotate by angles drawn uniformly from angle_limits (one per image)."""
    lo, hi = angle_limits
    if src.ndim == 3:
        return imrotate(src, _pyrandom.uniform(lo, hi), zoom_in, zoom_out)
    angles = nd.array(np.random.uniform(lo, hi, size=src.shape[0]), ctx=src.context)
    return imrotate(src, angles, zoom_in, zoom_out)


# MXNet's mx.img.image.<fn> spelling
image = types.SimpleNamespace(**{n: globals()[n] for n in (
    "imdecode", "imread", "scale_down", "color_normalize", "imresize", "fixed_crop",
    "center_crop", "random_crop", "random_size_crop", "imrotate", "random_rotate")})
