"""Tests for dense upright SIFT (features/_sift.py) against a slow loop and against OpenCV."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from features._sift import (
    DESCRIPTOR_SIZE,
    config,
    grid_positions,
    normalize_sift,
    opencv_keypoint_size,
    opencv_sift_descriptors,
    sift_descriptors,
)
from tests.support.image_checks import assert_rejects_naming_the_shape


def _rgb(grey: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(np.repeat(grey[:, :, None], 3, axis=2))


def _smooth_random(shape, seed=0, sigma=2.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    g = cv2.GaussianBlur(rng.random(shape).astype(np.float32), (0, 0), sigma)
    g = (g - g.min()) / max(float(g.max() - g.min()), 1e-6)
    return _rgb((g * 255).astype(np.uint8))


def _pearson_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ca = a - a.mean(axis=1, keepdims=True)
    cb = b - b.mean(axis=1, keepdims=True)
    return (ca * cb).sum(1) / np.sqrt((ca**2).sum(1) * (cb**2).sum(1))


def _slow_sift(grey: np.ndarray, y: int, x: int, b: int) -> np.ndarray:
    """One descriptor, pixel by pixel, following Lowe / OpenCV's calcSIFTDescriptor."""
    img = grey.astype(np.float64)
    h, w = img.shape
    d, n = 4, 8
    hist = np.zeros((d, d, n))
    radius = int(round(b * math.sqrt(2) * (d + 1) * 0.5))
    for i in range(-radius, radius + 1):
        for j in range(-radius, radius + 1):
            rbin, cbin = i / b + d / 2 - 0.5, j / b + d / 2 - 0.5
            r, c = y + i, x + j
            if not (-1 < rbin < d and -1 < cbin < d and 0 < r < h - 1 and 0 < c < w - 1):
                continue
            dx = img[r, c + 1] - img[r, c - 1]
            dy = img[r - 1, c] - img[r + 1, c]
            mag = math.hypot(dx, dy) * math.exp(-((i / b) ** 2 + (j / b) ** 2) / (d * d * 0.5))
            obin = (math.atan2(dy, dx) % (2 * math.pi)) * n / (2 * math.pi)
            r0, c0, o0 = math.floor(rbin), math.floor(cbin), math.floor(obin)
            fr, fc, fo = rbin - r0, cbin - c0, obin - o0
            for rr, wr in ((r0, 1 - fr), (r0 + 1, fr)):
                for cc, wc in ((c0, 1 - fc), (c0 + 1, fc)):
                    for oo, wo in ((o0, 1 - fo), (o0 + 1, fo)):
                        if 0 <= rr < d and 0 <= cc < d:
                            hist[rr, cc, oo % n] += mag * wr * wc * wo
    v = hist.ravel()
    v = v / max(np.linalg.norm(v), 1e-12)
    v = np.minimum(v, 0.2)
    return v / max(np.linalg.norm(v), 1e-12)


def test_matches_slow_loop_exactly_without_presmoothing():
    img = _smooth_random((30, 33), seed=3, sigma=1.5)
    grey = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
    d = sift_descriptors(img, presmooth=0)
    assert d.values.shape == (20, DESCRIPTOR_SIZE)  # 4 x 5 grid points
    for k in (0, 7, 19):
        ref = _slow_sift(grey, int(d.rows[k]), int(d.cols[k]), 4)
        np.testing.assert_allclose(d.values[k], ref, atol=2e-5)


def test_matches_slow_loop_with_other_bin_size_and_step():
    img = _smooth_random((40, 36), seed=4, sigma=1.0)
    grey = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
    d = sift_descriptors(img, step=5, bin_size=6, presmooth=0)
    for k in range(len(d.values)):
        ref = _slow_sift(grey, int(d.rows[k]), int(d.cols[k]), 6)
        np.testing.assert_allclose(d.values[k], ref, atol=2e-5)


def test_grid_on_224_has_2704_points_inside_the_image():
    img = _smooth_random((224, 224), seed=1)
    d = sift_descriptors(img)
    assert d.values.shape == (2704, 128) and d.values.dtype == np.float32
    assert d.rows.min() - 8 >= 0 and d.rows.max() + 8 <= 223
    assert set(np.diff(np.unique(d.cols))) == {4.0}
    assert (d.height, d.width) == (224, 224)


@pytest.mark.parametrize(
    "length, step, margin, expected",
    [
        (224, 4, 8, list(range(9, 214, 4))),
        (17, 4, 8, [8]),
        (16, 4, 8, [7]),  # patch does not fit: the middle pixel
        (1, 4, 8, [0]),
        (21, 4, 8, [8, 12]),
        (22, 4, 8, [8, 12]),
        (25, 4, 8, [8, 12, 16]),
    ],
)
def test_grid_positions(length, step, margin, expected):
    assert grid_positions(length, step, margin).tolist() == expected


def test_orientation_convention_and_bin_layout():
    """Intensity rising to the right -> orientation bin 0; rising upwards -> bin 2 (90 deg)."""
    ramp = np.tile(np.arange(0, 200, 5, dtype=np.uint8), (40, 1))  # (40, 40), d/dx > 0
    right = sift_descriptors(_rgb(ramp), presmooth=0).values.reshape(-1, 4, 4, 8)
    interior = right[len(right) // 2]
    assert np.allclose(interior[:, :, 1:], 0, atol=1e-6) and interior[:, :, 0].min() > 0
    up = sift_descriptors(_rgb(np.ascontiguousarray(ramp.T[::-1])), presmooth=0).values
    up = up.reshape(-1, 4, 4, 8)[len(up) // 2]
    assert np.allclose(np.delete(up, 2, axis=2), 0, atol=1e-6) and up[:, :, 2].min() > 0


def test_spatial_bin_order_is_row_then_column():
    """An edge only in the top-right part of the patch fills row bin 0, column bin 3."""
    grey = np.zeros((17, 17), np.uint8)
    grey[:4, 14:] = 255  # bright block at the top right corner
    d = sift_descriptors(_rgb(grey), presmooth=0)
    assert (d.rows[0], d.cols[0]) == (8.0, 8.0)
    energy = d.values[0].reshape(4, 4, 8).sum(axis=2)
    assert np.unravel_index(np.argmax(energy), (4, 4)) == (0, 3)


def test_normalize_sift_hand_worked():
    v = np.array([[3.0, 4.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]], np.float32)
    out = normalize_sift(v, clamp=0.7)
    # unit: (0.6, 0.8) -> clamp 0.8 to 0.7 -> renormalise (0.6, 0.7) / sqrt(0.85)
    np.testing.assert_allclose(out[0, :2], np.array([0.6, 0.7]) / math.sqrt(0.85), rtol=1e-6)
    assert (out[1] == 0).all()


def test_normalize_sift_matches_row_by_row_formula():
    rng = np.random.default_rng(7)
    raw = rng.random((50, 128)).astype(np.float32) ** 8  # heavy-tailed: many rows clamp
    out = normalize_sift(raw)
    for row, got in zip(raw, out):
        u = row / np.linalg.norm(row)
        c = np.minimum(u, 0.2)
        np.testing.assert_allclose(got, c / np.linalg.norm(c), rtol=1e-5, atol=1e-7)
    assert (out.max(axis=1) > 0.2).any()  # renormalisation can lift entries above 0.2
    plain = raw / np.linalg.norm(raw, axis=1, keepdims=True)
    np.testing.assert_allclose(normalize_sift(raw, clamp=1.0), plain, rtol=1e-5)


def test_descriptors_are_unit_norm_and_non_negative():
    img = _smooth_random((64, 48), seed=2)
    v = sift_descriptors(img).values
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, rtol=1e-5)
    assert (v >= 0).all()


@pytest.mark.parametrize("shape", [(1, 1), (2, 3), (5, 7), (17, 3), (16, 16), (31, 45)])
def test_tiny_and_odd_images(shape):
    d = sift_descriptors(_smooth_random(shape, seed=5, sigma=0.7))
    assert d.values.shape[1] == 128 and len(d.values) >= 1
    assert np.isfinite(d.values).all()
    norms = np.linalg.norm(d.values, axis=1)
    assert np.all(np.isclose(norms, 1.0, rtol=1e-5) | (norms == 0))


def test_constant_image_gives_zero_descriptors():
    d = sift_descriptors(np.full((40, 40, 3), 90, np.uint8))
    assert (d.values == 0).all()


def test_matches_opencv_on_synthetic_images_of_odd_sizes():
    for seed, shape in enumerate([(15, 15), (37, 23), (8, 40), (101, 77)]):
        img = _smooth_random(shape, seed=seed)
        a, b = sift_descriptors(img), opencv_sift_descriptors(img)
        np.testing.assert_array_equal(a.rows, b.rows)
        np.testing.assert_array_equal(a.cols, b.cols)
        assert _pearson_rows(a.values, b.values).mean() >= 0.99
        assert np.abs(a.values - b.values).max() < 0.02  # OpenCV rounds to 1/512 steps


def test_opencv_keypoint_size_relation():
    assert opencv_keypoint_size(4) == pytest.approx(8 / 3)
    assert 3 * opencv_keypoint_size(6) / 2 == pytest.approx(6)


@pytest.mark.parametrize(
    "bad",
    [np.zeros((8, 8), np.uint8), np.zeros((8, 8, 3), np.int16), np.zeros((8, 8, 2), np.uint8)],
)
def test_bad_input_raises_naming_the_shape(bad):
    assert_rejects_naming_the_shape(sift_descriptors, bad)


def test_bad_parameters_raise():
    img = np.zeros((20, 20, 3), np.uint8)
    with pytest.raises(ValueError):
        sift_descriptors(img, step=0)
    with pytest.raises(ValueError):
        sift_descriptors(img, bin_size=2.5)


def test_config_defaults_and_overrides():
    c = config()
    assert c["kind"] == "sift" and c["step"] == 4 and c["bin_size"] == 4 and c["window"] is True
    assert config(step=8)["step"] == 8
    with pytest.raises(TypeError):
        config(stride=3)


def test_deterministic():
    img = _smooth_random((50, 60), seed=9)
    np.testing.assert_array_equal(sift_descriptors(img).values, sift_descriptors(img).values)


@pytest.mark.real_data
def test_matches_opencv_on_real_flickr8k_images(data_dir):
    from kcca.data._images import read_image

    paths = sorted((data_dir / "flickr8k" / "images").glob("*.jpg"))[:3]
    assert paths, "no Flickr 8K images found"
    for path in paths:
        img = read_image(path)
        a, b = sift_descriptors(img), opencv_sift_descriptors(img)
        assert a.values.shape == b.values.shape
        both = (np.linalg.norm(a.values, axis=1) > 0) & (np.linalg.norm(b.values, axis=1) > 0)
        corr = _pearson_rows(a.values[both], b.values[both])
        # measured: mean 1.0000, min >= 0.996 on the first 5 images
        assert corr.mean() >= 0.99, path.name
        assert np.percentile(corr, 1) >= 0.95, path.name
