"""Local colour statistics of dense patches (features._color_patches); the colour Fisher kernel
is tested with the other Fisher-kernel tests (test_fisher.py)."""

from __future__ import annotations

import numpy as np
import pytest

from features._color import color_descriptors
from features._color_patches import channels, color_patch_descriptors


def _slow(image, y0, x0, b, rgb=None):
    """Mean and std of R, G, B in each 4 x 4 cell of the patch at (y0, x0), straight from pixels
    (or of the channels ``rgb`` when given)."""
    rgb = image.astype(np.float64) / 255.0 if rgb is None else rgb
    out = []
    for a in range(4):
        for c in range(4):
            cell = rgb[y0 + a * b:y0 + (a + 1) * b, x0 + c * b:x0 + (c + 1) * b].reshape(-1, 3)
            out.append(np.concatenate([cell.mean(axis=0), cell.std(axis=0)]))
    return np.concatenate(out)


@pytest.mark.parametrize("step, b", [(4, 4), (3, 5), (2, 2)])
def test_every_patch_matches_the_cell_statistics_of_its_pixels(step, b):
    image = np.random.default_rng(b).integers(0, 256, (37, 41, 3), dtype=np.uint8)
    d = color_patch_descriptors(image, step=step, bin_size=b)
    y0s, x0s = range(0, 37 - 4 * b + 1, step), range(0, 41 - 4 * b + 1, step)
    assert d.values.shape == (len(y0s) * len(x0s), 96) and d.values.dtype == np.float32
    assert (d.height, d.width) == (37, 41)
    for i, y0 in enumerate(y0s):
        for j, x0 in enumerate(x0s):
            row = i * len(x0s) + j
            np.testing.assert_allclose(d.values[row], _slow(image, y0, x0, b), atol=1e-5)
            assert (d.rows[row], d.cols[row]) == (y0 + 2 * b, x0 + 2 * b)


def test_small_images_give_no_patches_and_bad_arguments_are_refused():
    tiny = np.zeros((10, 10, 3), np.uint8)
    assert color_patch_descriptors(tiny, bin_size=4).values.shape == (0, 96)
    with pytest.raises(ValueError, match="positive integers"):
        color_patch_descriptors(tiny, step=0)
    with pytest.raises(ValueError, match="RGB"):
        color_patch_descriptors(tiny[..., 0])


def test_lab_statistics_are_those_of_the_papers_cielab_pixels():
    image = np.random.default_rng(7).integers(0, 256, (30, 34, 3), dtype=np.uint8)
    lab = channels(image, "lab").astype(np.float64)
    # the same CIELAB as the paper's colour words (features._color), rescaled by 100, 128, 128
    pixels = color_descriptors(image).values.reshape(30, 34, 3)
    np.testing.assert_allclose(lab * [100.0, 128.0, 128.0], pixels, atol=1e-4)
    d = color_patch_descriptors(image, step=5, bin_size=3, color_space="lab")
    x0s = range(0, 34 - 12 + 1, 5)
    for row, (y0, x0) in enumerate((y, x) for y in range(0, 30 - 12 + 1, 5) for x in x0s):
        np.testing.assert_allclose(d.values[row], _slow(image, y0, x0, 3, rgb=lab), atol=1e-4)
    rgb = color_patch_descriptors(image, step=5, bin_size=3)
    assert not np.allclose(rgb.values, d.values)
    with pytest.raises(ValueError, match="color_space"):
        color_patch_descriptors(image, color_space="hsv")
