"""Spatial pyramid histograms (Section 3.3.2): cells, whole-image normalisation, eq. 8 weights."""

from __future__ import annotations

import numpy as np
import pytest

from features._pyramid import cell_weights, level_slices, level_weights, n_cells, pyramid_histogram


def slow_pyramid(words, rows, cols, height, width, n_words, levels):
    """Literal version: for every level, cell and sample, test membership by bounds."""
    n = len(words)
    out = []
    for l in range(levels + 1):
        g = 2**l
        for cr in range(g):
            for cc in range(g):
                h = np.zeros(n_words)
                for w, r, c in zip(words, rows, cols):
                    last_r, last_c = cr == g - 1 and r >= height, cc == g - 1 and c >= width
                    in_r = cr * height / g <= r < (cr + 1) * height / g or last_r
                    in_c = cc * width / g <= c < (cc + 1) * width / g or last_c
                    if in_r and in_c:
                        h[w] += 1
                out.append(h / n)
    return np.array(out)


def test_counts_and_weights():
    assert [n_cells(l) for l in range(4)] == [1, 5, 21, 85]
    assert level_slices(2) == [slice(0, 1), slice(1, 5), slice(5, 21)]
    np.testing.assert_allclose(level_weights(2), [0.25, 0.25, 0.5])
    np.testing.assert_allclose(level_weights(0), [1.0])
    np.testing.assert_allclose(level_weights(3), [1 / 8, 1 / 8, 1 / 4, 1 / 2])
    for L in range(5):
        assert level_weights(L).sum() == pytest.approx(1.0)
    cw = cell_weights(2)
    assert cw.shape == (21,) and cw[0] == 0.25 and (cw[1:5] == 0.25).all() and (cw[5:] == 0.5).all()


@pytest.mark.parametrize("shape", [(224, 224), (37, 91), (5, 3)])
def test_matches_literal_binning(shape):
    rng = np.random.default_rng(1)
    h, w = shape
    n = 300
    words = rng.integers(0, 7, n)
    rows = rng.uniform(0, h, n)
    cols = rng.uniform(0, w, n)
    rows[:5] = [0, h - 1e-9, h / 2, h / 4, 3 * h / 4]  # cell borders
    got = pyramid_histogram(words, rows, cols, h, w, 7, levels=2)
    assert got.dtype == np.float32 and got.shape == (21, 7)
    np.testing.assert_allclose(got, slow_pyramid(words, rows, cols, h, w, 7, 2), atol=1e-7)


def test_whole_image_normalisation_and_nesting():
    rng = np.random.default_rng(2)
    n = 1000
    words = rng.integers(0, 16, n)
    rows, cols = rng.uniform(0, 64, n), rng.uniform(0, 48, n)
    pyr = pyramid_histogram(words, rows, cols, 64, 48, 16, levels=2).astype(np.float64)
    for sl in level_slices(2):
        assert pyr[sl].sum() == pytest.approx(1.0, abs=1e-6)  # each level sums to 1
    # the four level-2 cells inside a level-1 cell add up to that cell (nesting)
    l1 = pyr[1:5].reshape(2, 2, 16)
    l2 = pyr[5:21].reshape(4, 4, 16)
    nested = l2.reshape(2, 2, 2, 2, 16).sum(axis=(1, 3))
    np.testing.assert_allclose(nested, l1, atol=1e-6)
    np.testing.assert_allclose(l1.sum(axis=(0, 1)), pyr[0], atol=1e-6)


def test_pixel_grid_every_pixel_counted_once():
    h, w = 7, 9
    r, c = np.meshgrid(np.arange(h) + 0.5, np.arange(w) + 0.5, indexing="ij")
    words = np.zeros(h * w, dtype=int)
    pyr = pyramid_histogram(words, r.ravel(), c.ravel(), h, w, 1, levels=2)
    assert pyr[0, 0] == pytest.approx(1.0)
    assert pyr[5:].sum() == pytest.approx(1.0)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="no samples"):
        pyramid_histogram(np.zeros(0, int), np.zeros(0), np.zeros(0), 4, 4, 3)
    with pytest.raises(ValueError, match=r"\[0, 3\)"):
        pyramid_histogram(np.array([3]), np.array([0.0]), np.array([0.0]), 4, 4, 3)
    with pytest.raises(ValueError, match="integers"):
        pyramid_histogram(np.array([0.5]), np.array([0.0]), np.array([0.0]), 4, 4, 3)
    with pytest.raises(ValueError, match="equal-length"):
        pyramid_histogram(np.array([0, 1]), np.array([0.0]), np.array([0.0]), 4, 4, 3)
    with pytest.raises(ValueError, match="positive"):
        pyramid_histogram(np.array([0]), np.array([0.0]), np.array([0.0]), 0, 4, 3)
