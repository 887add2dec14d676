"""Tests for the CIELAB colour descriptors (features/_color.py)."""

from __future__ import annotations

import numpy as np
import pytest

from features._color import check_rgb_image, color_descriptors, config, rgb_to_lab

# Published CIELAB (D65, 2 degree observer) values of sRGB primaries.
REFERENCE = {
    (255, 255, 255): (100.0, 0.0, 0.0),
    (0, 0, 0): (0.0, 0.0, 0.0),
    (255, 0, 0): (53.24, 80.09, 67.20),
    (0, 255, 0): (87.73, -86.18, 83.18),
    (0, 0, 255): (32.30, 79.19, -107.86),
    (255, 255, 0): (97.14, -21.55, 94.48),
    (128, 128, 128): (53.59, 0.0, 0.0),
}


def _slow_lab(rgb: np.ndarray) -> np.ndarray:
    """Textbook sRGB -> XYZ (D65) -> CIELAB, one pixel at a time."""
    out = []
    for r, g, b in rgb.reshape(-1, 3) / 255.0:
        lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
        x = 0.4124564 * lin[0] + 0.3575761 * lin[1] + 0.1804375 * lin[2]
        y = 0.2126729 * lin[0] + 0.7151522 * lin[1] + 0.0721750 * lin[2]
        z = 0.0193339 * lin[0] + 0.1191920 * lin[1] + 0.9503041 * lin[2]
        xn, yn, zn = 0.950456, 1.0, 1.088754

        def f(t: float) -> float:
            return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

        fx, fy, fz = f(x / xn), f(y / yn), f(z / zn)
        out.append((116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)))
    return np.array(out)


def test_reference_colours_match_published_cielab():
    pixels = np.array([list(REFERENCE)], dtype=np.uint8)
    lab = rgb_to_lab(pixels)[0]
    expected = np.array(list(REFERENCE.values()))
    np.testing.assert_allclose(lab, expected, atol=0.5)


def test_random_colours_match_textbook_formula():
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, size=(7, 9, 3), dtype=np.uint8)
    lab = rgb_to_lab(img).reshape(-1, 3)
    np.testing.assert_allclose(lab, _slow_lab(img), atol=0.3)


def test_descriptor_layout_row_major_with_positions():
    rng = np.random.default_rng(1)
    img = rng.integers(0, 256, size=(5, 7, 3), dtype=np.uint8)
    d = color_descriptors(img)
    assert d.values.shape == (35, 3) and d.values.dtype == np.float32
    assert d.rows.dtype == np.float32 and d.cols.dtype == np.float32
    assert (d.height, d.width) == (5, 7)
    k = 3 * 7 + 4  # pixel (3, 4)
    assert (d.rows[k], d.cols[k]) == (3.0, 4.0)
    np.testing.assert_allclose(d.values[k], rgb_to_lab(img[3:4, 4:5])[0, 0], atol=1e-5)
    assert np.isfinite(d.values).all()


@pytest.mark.parametrize("shape", [(1, 1, 3), (3, 1, 3), (1, 5, 3), (13, 17, 3)])
def test_odd_and_tiny_sizes(shape):
    img = np.full(shape, 200, dtype=np.uint8)
    d = color_descriptors(img)
    assert d.values.shape == (shape[0] * shape[1], 3)


def test_grey_image_expanded_to_three_channels_has_zero_chroma():
    grey = np.arange(0, 250, 10, dtype=np.uint8).reshape(5, 5)
    img = np.repeat(grey[:, :, None], 3, axis=2)
    d = color_descriptors(img)
    np.testing.assert_allclose(d.values[:, 1:], 0.0, atol=0.2)  # cv2 float Lab: ~0.13 error
    assert np.all(np.diff(d.values[:, 0]) > 0)


@pytest.mark.parametrize(
    "bad",
    [
        np.zeros((4, 4), np.uint8),
        np.zeros((4, 4, 4), np.uint8),
        np.zeros((4, 4, 3), np.float32),
        np.zeros((0, 4, 3), np.uint8),
        [[1, 2, 3]],
    ],
)
def test_bad_input_raises_naming_the_shape(bad):
    with pytest.raises(ValueError) as info:
        color_descriptors(bad)
    if isinstance(bad, np.ndarray):
        assert str(bad.shape) in str(info.value)


def test_check_rgb_image_passes_good_input_through():
    img = np.zeros((2, 3, 3), np.uint8)
    assert check_rgb_image(img).shape == (2, 3, 3)


def test_config_is_stable_and_rejects_unknown_parameters():
    assert config() == {"kind": "color", "version": 1}
    with pytest.raises(TypeError):
        config(bins=3)


@pytest.mark.real_data
def test_real_image(data_dir):
    from kcca.data._images import read_image

    path = sorted((data_dir / "flickr8k" / "images").glob("*.jpg"))[0]
    d = color_descriptors(read_image(path))
    assert d.values.shape == (d.height * d.width, 3)
    assert (d.values[:, 0] >= -1e-3).all() and (d.values[:, 0] <= 100 + 1e-3).all()
    assert (np.abs(d.values[:, 1:]) <= 128.5).all()
