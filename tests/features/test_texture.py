"""Tests for the MR8 texture descriptors (features/_texture.py)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from features._texture import (
    config,
    filter_responses,
    grey_float,
    max_responses,
    mr8_filter_bank,
    mr8_responses,
    normalize_contrast,
    texture_descriptors,
)
from tests.support.image_checks import assert_rejects_naming_the_shape

EDGES = slice(0, 18)
BARS = slice(18, 36)
GAUSS, LOG = 36, 37


def _rgb(grey: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(np.repeat(grey[:, :, None], 3, axis=2))


def _xy(size: int) -> tuple[np.ndarray, np.ndarray]:
    h = size // 2
    i, j = np.mgrid[0:size, 0:size]
    return (j - h).astype(float), (h - i).astype(float)


def test_bank_shape_zero_mean_and_l1_norm():
    bank = mr8_filter_bank()
    assert bank.shape == (38, 49, 49)
    flat = bank.reshape(38, -1)
    np.testing.assert_allclose(np.abs(flat).sum(axis=1), 1.0, rtol=1e-12)
    zero_mean = np.r_[np.arange(36), LOG]
    np.testing.assert_allclose(flat[zero_mean].sum(axis=1), 0.0, atol=1e-12)
    assert (bank[GAUSS] > 0).all() and bank[GAUSS].argmax() == 24 * 49 + 24
    assert bank[LOG][24, 24] < 0  # negative centre, like MATLAB's fspecial('log')


def test_edge_filters_are_odd_and_bars_even():
    bank = mr8_filter_bank()
    flipped = bank[:, ::-1, ::-1]
    np.testing.assert_allclose(flipped[EDGES], -bank[EDGES], atol=1e-15)
    np.testing.assert_allclose(flipped[BARS], bank[BARS], atol=1e-15)


def test_one_filter_against_the_formula_tap_by_tap():
    """Bar filter, scale 2 (sigmas 6 along, 2 across), orientation 1 (30 degrees)."""
    f = np.zeros((49, 49))
    theta = math.pi / 6
    for i in range(49):
        for j in range(49):
            x, y = j - 24, 24 - i
            rx = math.cos(theta) * x - math.sin(theta) * y
            ry = math.sin(theta) * x + math.cos(theta) * y
            along = math.exp(-rx * rx / (2 * 36))
            across = math.exp(-ry * ry / (2 * 4)) * (ry * ry - 4) / 16
            f[i, j] = along * across
    f -= f.mean()
    f /= np.abs(f).sum()
    np.testing.assert_allclose(mr8_filter_bank()[18 + 6 + 1], f, atol=1e-12)


@pytest.mark.parametrize("shape", [(40, 50), (10, 7), (1, 1), (3, 60)])
def test_responses_equal_cv2_filter2d_with_reflected_borders(shape):
    rng = np.random.default_rng(0)
    grey = rng.random(shape).astype(np.float32)
    got = filter_responses(grey)
    assert got.shape == (38, *shape)
    for k in (0, 7, 20, 35, GAUSS, LOG):
        ref = cv2.filter2D(grey, -1, mr8_filter_bank()[k].astype(np.float32),
                           borderType=cv2.BORDER_REFLECT)
        np.testing.assert_allclose(got[k], ref, atol=1e-5)


@pytest.mark.parametrize("k", range(6))
@pytest.mark.parametrize("scale_index", range(3))
def test_max_over_orientations_picks_the_edge_and_bar_orientation(k, scale_index):
    """Filter k differentiates along (sin t_k, cos t_k); a step / line across it wins."""
    theta = math.pi * k / 6
    x, y = _xy(97)
    u = math.sin(theta) * x + math.cos(theta) * y
    width = 2 ** scale_index  # bar as wide as the filter's cross sigma
    for image, part in (((u > 0).astype(np.float32), EDGES),
                        ((np.abs(u) <= width).astype(np.float32), BARS)):
        r = filter_responses(image)[part, 48, 48]
        per_scale = np.abs(r.reshape(3, 6))[scale_index]
        assert per_scale.argmax() == k, (part, per_scale)


def test_mr8_commutes_with_rotation_by_90_degrees():
    rng = np.random.default_rng(3)
    grey = cv2.GaussianBlur(rng.random((65, 65)).astype(np.float32), (0, 0), 1.5)
    img = _rgb((grey / grey.max() * 255).astype(np.uint8))
    base = mr8_responses(img)
    rotated = mr8_responses(np.ascontiguousarray(np.rot90(img)))
    np.testing.assert_allclose(rotated, np.rot90(base, axes=(1, 2)), atol=1e-4)
    # and the centre pixel keeps its 8 responses
    np.testing.assert_allclose(rotated[:, 32, 32], base[:, 32, 32], atol=1e-4)


def test_constant_image_gives_zero_derivative_responses():
    grey = np.full((30, 41), 0.7, np.float32)
    r = filter_responses(grey)
    np.testing.assert_allclose(r[np.r_[0:36, LOG]], 0.0, atol=1e-5)
    np.testing.assert_allclose(r[GAUSS], 0.7, atol=1e-5)
    d = texture_descriptors(np.full((30, 41, 3), 128, np.uint8))
    assert np.abs(d.values).max() < 1e-5


def test_max_responses_takes_absolute_max_per_scale():
    r = np.zeros((38, 1, 1), np.float32)
    r[3, 0, 0] = -5.0  # edge, scale 0, orientation 3
    r[1, 0, 0] = 2.0
    r[18 + 12 + 4, 0, 0] = 7.0  # bar, scale 2
    r[GAUSS], r[LOG] = 0.5, -0.25
    out = max_responses(r)[:, 0, 0]
    np.testing.assert_allclose(out, [5, 0, 0, 0, 0, 7, 0.5, -0.25])


def test_contrast_normalisation_hand_worked():
    f = np.zeros((8, 1, 2), np.float32)
    f[0, 0, 0], f[1, 0, 0] = 3.0, 4.0  # L = 5
    out = normalize_contrast(f, 0.03)
    factor = math.log(1 + 5 / 0.03) / 5
    np.testing.assert_allclose(out[:2, 0, 0], [3 * factor, 4 * factor], rtol=1e-6)
    assert (out[:, 0, 1] == 0).all()  # L = 0 stays 0


def test_intensity_normalisation():
    rng = np.random.default_rng(1)
    img = rng.integers(0, 256, (20, 30, 3), dtype=np.uint8)
    g = grey_float(img)
    assert abs(g.mean()) < 1e-5 and abs(g.std() - 1) < 1e-4
    raw = grey_float(img, normalize_intensity=False)
    assert raw.min() >= 0 and raw.max() <= 1


@pytest.mark.parametrize("shape", [(1, 1), (2, 5), (13, 7), (48, 49)])
def test_tiny_and_odd_sizes(shape):
    rng = np.random.default_rng(2)
    d = texture_descriptors(rng.integers(0, 256, (*shape, 3), dtype=np.uint8))
    assert d.values.shape == (shape[0] * shape[1], 8) and d.values.dtype == np.float32
    assert np.isfinite(d.values).all()
    assert (d.height, d.width) == shape


def test_descriptor_rows_are_pixels_in_row_major_order():
    rng = np.random.default_rng(4)
    img = rng.integers(0, 256, (9, 11, 3), dtype=np.uint8)
    d = texture_descriptors(img)
    mr8 = mr8_responses(img)
    k = 4 * 11 + 6
    assert (d.rows[k], d.cols[k]) == (4.0, 6.0)
    np.testing.assert_array_equal(d.values[k], mr8[:, 4, 6])


@pytest.mark.parametrize(
    "bad",
    [np.zeros((8, 8), np.uint8), np.zeros((8, 8, 3), np.float64), np.zeros((8, 0, 3), np.uint8)],
)
def test_bad_input_raises_naming_the_shape(bad):
    assert_rejects_naming_the_shape(texture_descriptors, bad)


def test_config():
    assert config() == {"kind": "texture", "version": 1, "normalize_intensity": True,
                        "contrast_normalize": True, "contrast_scale": 0.03}
    with pytest.raises(TypeError):
        config(scales=(1, 2))


@pytest.mark.real_data
def test_real_image(data_dir):
    from kcca.data._images import read_image

    path = sorted((data_dir / "flickr8k" / "images").glob("*.jpg"))[1]
    img = read_image(path)
    d = texture_descriptors(img)
    assert d.values.shape == (img.shape[0] * img.shape[1], 8)
    assert np.isfinite(d.values).all()
    assert (d.values[:, :6] >= 0).all()  # absolute maxima after a positive rescaling
    np.testing.assert_array_equal(d.values, texture_descriptors(img).values)
