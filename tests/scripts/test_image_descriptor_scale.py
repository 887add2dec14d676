"""The half-scale descriptor variants of scripts/image_descriptor_scale.py."""

from __future__ import annotations

import numpy as np

from tests.scripts.load import load_script


def _module():
    return load_script("image_descriptor_scale")


def test_half_scale_variants_cover_the_image_like_the_standard_ones():
    from features.sift import sift_descriptors
    from features.texture import texture_descriptors

    mod = _module()
    rng = np.random.default_rng(0)
    image = rng.integers(0, 256, size=(40, 48, 3), dtype=np.uint8)
    half, full = mod.sift_half(image), sift_descriptors(image)
    assert half.values.shape[1] == 128 and half.values.shape[0] > 3 * full.values.shape[0]
    assert half.rows.max() < 40 and half.cols.max() < 48
    tex = mod.texture_half(image)
    assert tex.values.shape == texture_descriptors(image).values.shape == (40 * 48, 8)
    # one row per pixel of the original image, in row-major order
    np.testing.assert_array_equal(tex.rows, np.repeat(np.arange(40), 48))
    np.testing.assert_array_equal(tex.cols, np.tile(np.arange(48), 40))
    assert np.isfinite(tex.values).all() and not np.allclose(tex.values, texture_descriptors(image).values)
