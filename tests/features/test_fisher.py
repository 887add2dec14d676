"""Fisher vectors (features._fisher), the ``fisher`` kernel and the ``mix`` kernel."""

from __future__ import annotations

import numpy as np
import pytest

from features._descriptors import Descriptors
from features._fisher import FisherVectorEncoder, root_sift, strip_masks
from features.kernels._base import make_kernel
from features.kernels._fisher import FisherKernel
from features.kernels._mixture import MixtureKernel, check_parts


def _sample(n=600, d=12, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(3, d)) * 3
    return np.abs(centres[rng.integers(0, 3, n)] + rng.normal(size=(n, d))).astype(np.float32)


@pytest.fixture(scope="module")
def encoder():
    return FisherVectorEncoder(n_gaussians=3, pca_dim=4, strips=3, seed=0).fit(
        root_sift(_sample()))


def _direct_fv(enc, Z):
    """The improved FV straight from its definition (per descriptor, per Gaussian)."""
    mu, sig, w = enc.gmm_.means_, np.sqrt(enc.gmm_.covariances_), enc.gmm_.weights_
    g = enc.gmm_.predict_proba(Z)
    n, u, v = len(Z), [], []
    for k in range(len(w)):
        z = (Z - mu[k]) / sig[k]
        u.append((g[:, k, None] * z).sum(0) / (n * np.sqrt(w[k])))
        v.append((g[:, k, None] * (z ** 2 - 1)).sum(0) / (n * np.sqrt(2 * w[k])))
    f = np.concatenate([np.ravel(u), np.ravel(v)])
    f = np.sign(f) * np.sqrt(np.abs(f))
    return f / np.linalg.norm(f)


def test_root_sift_is_sqrt_of_l1_normalised_rows():
    x = np.array([[1.0, 3.0, 0.0], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(root_sift(x), [[0.5, np.sqrt(0.75), 0.0], [0, 0, 0]], atol=1e-7)


def test_fisher_vector_matches_its_definition(encoder):
    Z = encoder.project(root_sift(_sample(80, seed=5)))
    np.testing.assert_allclose(encoder.fisher_vector(Z), _direct_fv(encoder, Z.astype(float)),
                               atol=2e-5)


def test_encode_concatenates_whole_image_and_strips_with_unit_norm(encoder):
    vals = _sample(90, seed=3)
    rows = np.repeat(np.arange(9, dtype=np.float32) * 10 + 5, 10)   # 90 px tall, 9 rows
    d = Descriptors(vals, rows, np.zeros(90, np.float32), 90, 90)
    f = encoder.encode(d)
    assert f.shape == (encoder.dim,) == (4 * 2 * 3 * 4,)
    assert np.linalg.norm(f) == pytest.approx(1.0, abs=1e-5)
    Z = encoder.project(root_sift(vals))
    top = encoder.fisher_vector(Z[rows < 30]) / 2
    np.testing.assert_allclose(f[encoder.region_dim:2 * encoder.region_dim], top, atol=1e-6)


def test_strip_masks_partition_the_rows():
    masks = strip_masks(np.array([0, 10, 33, 34, 66, 99.9]), 100, 3)
    assert masks[0].all()
    assert sum(m.astype(int) for m in masks[1:]).tolist() == [1] * 6
    assert masks[1].tolist() == [True, True, True, False, False, False]   # rows < 100/3


def test_encoder_fit_is_seeded_and_checks_its_sample():
    a = FisherVectorEncoder(3, 4, seed=1).fit(_sample())
    b = FisherVectorEncoder(3, 4, seed=1).fit(_sample())
    np.testing.assert_array_equal(a.means_, b.means_)
    with pytest.raises(ValueError, match="at least"):
        FisherVectorEncoder(64, 4).fit(_sample(100))
    with pytest.raises(RuntimeError, match="not fitted"):
        FisherVectorEncoder().encode(Descriptors(np.zeros((1, 4), np.float32),
                                                 np.zeros(1, np.float32),
                                                 np.zeros(1, np.float32), 1, 1))


def _images(n, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        im = np.zeros((48, 48, 3), np.uint8)
        im[:, : 8 + 4 * (i % 8)] = rng.integers(0, 255, 3)
        out.append(np.clip(im + rng.integers(0, 40, im.shape), 0, 255).astype(np.uint8))
    return out


@pytest.fixture(scope="module")
def fisher_kernel():
    return FisherKernel(n_gaussians=2, pca_dim=4, sample_images=6, per_image=40,
                        seed=0).fit(_images(8))


def test_fisher_kernel_gram_is_the_dot_product_of_unit_fisher_vectors(fisher_kernel):
    K = fisher_kernel.gram(fisher_kernel.train_items_)
    assert K.shape == (8, 8)
    np.testing.assert_allclose(np.diag(K), 1.0, atol=1e-5)
    np.testing.assert_allclose(K, K.T, atol=1e-6)
    assert np.linalg.eigvalsh(K).min() > -1e-6
    new = _images(3, seed=9)
    V = fisher_kernel.encode(new)
    np.testing.assert_allclose(fisher_kernel.gram(new), V @ fisher_kernel.train_vectors_.T,
                               atol=1e-6)
    np.testing.assert_allclose(fisher_kernel.diag(new), 1.0, atol=1e-5)


def test_fisher_kernel_power_is_entrywise_and_refuses_fractional_p_on_negatives(fisher_kernel):
    K1 = fisher_kernel.gram(fisher_kernel.train_items_)
    k2 = fisher_kernel.set_params(p=2)
    try:
        np.testing.assert_allclose(k2.gram(k2.train_items_), K1 ** 2, atol=1e-9)
        if (K1 < 0).any():
            with pytest.raises(ValueError, match="integer p"):
                k2.set_params(p=1.5).gram(k2.train_items_)
    finally:
        fisher_kernel.set_params(p=1.0)


def test_fisher_kernel_is_registered_with_pixel_items():
    k = make_kernel("fisher", n_gaussians=8)
    assert isinstance(k, FisherKernel) and k.item_type == "image-pixels"
    assert "n_jobs" not in k.params


def test_mix_combines_weighted_blocks_then_applies_p():
    a, b = np.full((2, 3), 0.5), np.full((2, 3), 0.2)
    k = MixtureKernel(parts=[{"name": "pyramid", "weight": 3}, {"name": "fisher"}], p=2)
    np.testing.assert_allclose(k.weights(), [0.75, 0.25])
    np.testing.assert_allclose(k.combine([a, b]), (0.75 * 0.5 + 0.25 * 0.2) ** 2)
    with pytest.raises(ValueError, match="differ in shape"):
        k.combine([a, b[:1]])
    with pytest.raises(ValueError, match="2 parts"):
        k.combine([a])


@pytest.mark.parametrize("parts, match", [
    ([], "non-empty list"), ("pyramid", "non-empty list"), ([{"weight": 1}], "no kernel name"),
    ([{"name": "pyramid", "weight": 0}], "positive number"),
    ([{"name": "pyramid", "wieght": 1}], "unknown keys"),
    ([{"name": "mix"}], "itself a mix"), ([{"name": "fisher", "params": 3}], "table"),
])
def test_mix_parts_are_checked(parts, match):
    with pytest.raises(ValueError, match=match):
        check_parts(parts)


def test_mix_fit_and_gram_take_one_item_list_per_part(fisher_kernel):
    params = dict(n_gaussians=2, pca_dim=4, sample_images=6, per_image=40, seed=0)
    parts = [{"name": "fisher", "params": params, "weight": 1},
             {"name": "fisher", "params": {**params, "seed": 3}, "weight": 2}]
    train, new = _images(8), _images(3, seed=9)
    mix = MixtureKernel(parts=parts).fit([train, train])
    other = FisherKernel(**{**params, "seed": 3}).fit(train)
    expected = (fisher_kernel.gram(new) + 2 * other.gram(new)) / 3
    np.testing.assert_allclose(mix.gram([new, new]), expected, atol=1e-6)
    np.testing.assert_allclose(mix.diag([new, new]), 1.0, atol=1e-5)


def test_fisher_kernel_pools_descriptors_of_every_bin_size():
    from features.kernels._fisher import _descriptors
    from features._sift import sift_descriptors

    image = _images(1)[0]
    pooled = _descriptors(image, 4, (4, 8))
    one, two = sift_descriptors(image, step=4, bin_size=4), sift_descriptors(image, step=4,
                                                                             bin_size=8)
    assert pooled.values.shape[0] == one.values.shape[0] + two.values.shape[0]
    np.testing.assert_array_equal(pooled.values[: one.values.shape[0]], one.values)
    k = FisherKernel(n_gaussians=2, pca_dim=4, sample_images=6, per_image=40, bin_sizes=[4, 8])
    K = k.fit(_images(8)).gram(k.train_items_)
    np.testing.assert_allclose(np.diag(K), 1.0, atol=1e-5)
    with pytest.raises(ValueError, match="bin_sizes"):
        FisherKernel(bin_sizes=[4, 0]).fit(_images(8))


def test_colour_fisher_kernel_is_a_unit_diagonal_psd_kernel_of_colour_fvs(fisher_kernel):
    k = FisherKernel(n_gaussians=2, pca_dim=4, sample_images=6, per_image=40, descriptor="color")
    K = k.fit(_images(8)).gram(k.train_items_)
    np.testing.assert_allclose(np.diag(K), 1.0, atol=1e-5)
    assert np.linalg.eigvalsh(K).min() > -1e-6
    assert k.encoder_.root is False and k.params["descriptor"] == "color"
    sift = fisher_kernel            # the same settings with the default descriptor
    assert sift.encoder_.root is True and sift.params["descriptor"] == "sift"
    assert not np.allclose(K, sift.gram(sift.train_items_))


def test_unknown_descriptor_is_refused():
    with pytest.raises(ValueError, match="descriptor must be one of"):
        FisherKernel(descriptor="hog").fit(_images(8))
