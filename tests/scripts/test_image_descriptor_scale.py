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


def test_half_resolution_variant_extracts_the_standard_descriptors_of_the_shrunk_image():
    from features.color import color_descriptors
    from features.descriptors import feature_types
    from features.sift import sift_descriptors
    from features.texture import texture_descriptors

    mod = _module()
    rng = np.random.default_rng(1)
    image = rng.integers(0, 256, size=(64, 80, 3), dtype=np.uint8)
    small = mod.half_resolution(image)
    assert small.shape == (32, 40, 3) and small.dtype == np.uint8
    # area averaging: each pixel is the mean of its 2 x 2 block
    np.testing.assert_allclose(small[3, 5], image[6:8, 10:12].reshape(4, 3).mean(axis=0), atol=1)
    variant = mod.VARIANTS["resolution-half"]
    assert set(variant) == set(feature_types())  # every feature type is replaced
    for name, standard in (("color", color_descriptors), ("texture", texture_descriptors),
                           ("sift", sift_descriptors)):
        got, want = variant[name](image), standard(small)
        assert (got.height, got.width) == (32, 40)
        np.testing.assert_array_equal(got.values, want.values)
        np.testing.assert_array_equal(got.rows, want.rows)
    assert color_descriptors(image).values.shape[0] == 4 * variant["color"](image).values.shape[0]
