"""mx.image without OpenCV: geometry helpers, imrotate (affine grid +
BilinearSampler), crops, imresize's argument checks, and the decoder
errors (MXNet's test_image.py runs the rest against scipy: docs)."""
import os

import numpy as np
import pytest

import mxc as mx

R = np.random.default_rng(7)


def test_scale_down():
    assert mx.image.scale_down((640, 480), (720, 120)) == (640, 106)
    assert mx.image.scale_down((360, 1000), (480, 500)) == (360, 375)
    assert mx.image.scale_down((300, 400), (0, 0)) == (0, 0)


def test_color_normalize():
    src = R.uniform(0, 255, (5, 6, 3)).astype(np.float32)
    mean, std = np.array([10.0, 20.0, 30.0], np.float32), np.array([2.0, 3.0, 4.0], np.float32)
    a = mx.nd.array(src)
    got = mx.image.color_normalize(a, mx.nd.array(mean), mx.nd.array(std))
    np.testing.assert_allclose(got.asnumpy(), (src - mean) / std, rtol=1e-6)
    np.testing.assert_allclose(a.asnumpy(), (src - mean) / std, rtol=1e-6)   # in place


def test_imrotate_quarter_turns_and_identity():
    img = R.uniform(0, 1, (2, 7, 7)).astype(np.float32)
    x = mx.nd.array(img)
    np.testing.assert_allclose(mx.image.imrotate(x, 0).asnumpy(), img, atol=1e-6)
    # counter-clockwise by 90 degrees: numpy's rot90 of each channel
    np.testing.assert_allclose(mx.image.imrotate(x, 90).asnumpy(),
                               np.rot90(img, 1, axes=(1, 2)), atol=1e-5)
    batch = mx.nd.array(np.stack([img, img]))
    out = mx.image.imrotate(batch, mx.nd.array([90.0, -90.0]))
    np.testing.assert_allclose(out.asnumpy()[1], np.rot90(img, -1, axes=(1, 2)), atol=1e-5)
    for kw in ({"zoom_in": True}, {"zoom_out": True}):
        assert mx.image.imrotate(batch, 30, **kw).shape == (2, 2, 7, 7)
        # a half turn of a square image needs no zoom: it stays a half turn
        np.testing.assert_allclose(mx.image.imrotate(x, 180, **kw).asnumpy(),
                                   np.rot90(img, 2, axes=(1, 2)), atol=1e-5)
    with pytest.raises(ValueError):
        mx.image.imrotate(x, 5, zoom_in=True, zoom_out=True)
    with pytest.raises(TypeError):
        mx.image.imrotate(mx.nd.array(img, dtype="float64"), 5)


def test_crops():
    src = mx.nd.array(R.uniform(0, 255, (40, 60, 3)).astype(np.float32))
    out, (x0, y0, w, h) = mx.image.center_crop(src, (30, 40))
    assert (x0, y0, w, h) == (15, 0, 30, 40) and out.shape == (40, 30, 3)
    np.testing.assert_array_equal(out.asnumpy(), src.asnumpy()[0:40, 15:45])
    out, (x0, y0, w, h) = mx.image.random_size_crop(src, (20, 20), 0.3, (0.75, 1.33))
    assert out.shape == (20, 20, 3) and 0 <= x0 <= 60 - w and 0 <= y0 <= 40 - h
    assert mx.image.imresize(src, 25, 12).shape == (12, 25, 3)
    with pytest.raises(mx.MXNetError, match="interp"):
        mx.image.imresize(src, 32, 32, interp=-1)


def test_decoder_errors(tmp_path):
    with pytest.raises(mx.MXNetError, match="empty"):
        mx.image.imdecode(b"")
    with pytest.raises(mx.MXNetError):
        mx.image.imdecode(b"clearly not image content")
    with pytest.raises(mx.MXNetError, match="no such file"):
        mx.img.image.imread(os.path.join(str(tmp_path), "missing.jpg"))
