"""Image reading: grey-scale, odd sizes, and clear errors for bad files."""

import cv2
import numpy as np
import pytest

from kcca.data._errors import ImageReadError
from kcca.data._images import ImageFiles, read_image


def _jpeg(tmp_path, name="x.jpg", shape=(31, 17, 3)):
    p = tmp_path / name
    rng = np.random.default_rng(1)
    assert cv2.imwrite(str(p), rng.integers(0, 255, shape, dtype=np.uint8))
    return p


def test_rgb_order_and_odd_size(tmp_path):
    bgr = np.zeros((9, 13, 3), np.uint8)
    bgr[..., 2] = 200  # red in OpenCV's BGR order
    p = tmp_path / "red.png"
    cv2.imwrite(str(p), bgr)
    rgb = read_image(p)
    assert rgb.shape == (9, 13, 3) and rgb.dtype == np.uint8
    assert (rgb[..., 0] == 200).all() and (rgb[..., 2] == 0).all()


def test_grey_image_expanded(tmp_path):
    p = tmp_path / "g.png"
    cv2.imwrite(str(p), np.arange(35, dtype=np.uint8).reshape(5, 7))
    rgb = read_image(p)
    assert rgb.shape == (5, 7, 3) and (rgb[..., 0] == rgb[..., 2]).all()


def test_missing_empty_truncated_corrupt(tmp_path):
    with pytest.raises(ImageReadError, match=r"nope\.jpg: file not found"):
        read_image(tmp_path / "nope.jpg")
    (tmp_path / "empty.jpg").write_bytes(b"")
    with pytest.raises(ImageReadError, match=r"empty\.jpg: file is empty"):
        read_image(tmp_path / "empty.jpg")
    data = _jpeg(tmp_path).read_bytes()
    (tmp_path / "trunc.jpg").write_bytes(data[: len(data) // 2])
    with pytest.raises(ImageReadError, match=r"trunc\.jpg: truncated JPEG"):
        read_image(tmp_path / "trunc.jpg")
    (tmp_path / "junk.jpg").write_bytes(b"this is not an image at all")
    with pytest.raises(ImageReadError, match=r"junk\.jpg: not a decodable image"):
        read_image(tmp_path / "junk.jpg")


def test_image_files_unknown_id(tmp_path):
    files = ImageFiles({"x.jpg": str(_jpeg(tmp_path))})
    assert files("x.jpg").shape == (31, 17, 3)
    with pytest.raises(ImageReadError, match="unknown image id"):
        files("y.jpg")
