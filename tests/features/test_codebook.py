"""Visual-word codebooks: seeded sampling, deterministic k-means, nearest-centre quantisation."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from features._codebook import Codebook, nearest_centre
from tests.support.image_oracles import nearest_centre_reference


def _images(seed=0, n=12, rows=400, dim=5):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(rows, dim)).astype(np.float32) + (i % 3) for i in range(n)]


def test_same_seed_same_codebook_different_seed_differs():
    imgs = _images()
    a = Codebook(8, points_per_image=50, seed=3).fit(imgs)
    b = Codebook(8, points_per_image=50, seed=3).fit(imgs)
    c = Codebook(8, points_per_image=50, seed=4).fit(imgs)
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)
    assert not np.array_equal(a.cluster_centers_, c.cluster_centers_)
    assert a.cluster_centers_.shape == (8, 5) and a.cluster_centers_.dtype == np.float32
    assert a.n_samples_fit_ == 12 * 50 and a.n_features_in_ == 5


def test_minibatch_is_deterministic_too():
    imgs = _images()
    a = Codebook(6, points_per_image=60, algorithm="minibatch", seed=1).fit(imgs)
    b = Codebook(6, points_per_image=60, algorithm="minibatch", seed=1).fit(imgs)
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)


def test_choose_images_and_sample():
    ids = [f"img{i:03d}.jpg" for i in range(50)]
    cb = Codebook(4, points_per_image=10, n_images=7, seed=5)
    chosen = cb.choose_images(ids)
    assert len(chosen) == 7 and len(set(chosen)) == 7
    assert chosen == sorted(chosen, key=ids.index)  # input order kept
    assert chosen == Codebook(4, n_images=7, seed=5).choose_images(ids)
    assert chosen != Codebook(4, n_images=7, seed=6).choose_images(ids)
    assert cb.choose_images(ids[:5]) == ids[:5]  # fewer than n_images: all of them
    with pytest.raises(ValueError, match="duplicates"):
        cb.choose_images(["a", "a"])
    v = np.arange(200, dtype=np.float32).reshape(100, 2)
    s = cb.sample(v, index=3)
    assert s.shape == (10, 2)
    np.testing.assert_array_equal(s, cb.sample(v, index=3))  # seeded by (seed, index)
    assert not np.array_equal(s, cb.sample(v, index=4))
    np.testing.assert_array_equal(cb.sample(s, index=3), s)  # idempotent: fit(pre-sampled) same
    a = Codebook(4, points_per_image=10, seed=5).fit([v, v + 1000])
    b = Codebook(4, points_per_image=10, seed=5).fit([cb.sample(v, 0), cb.sample(v + 1000, 1)])
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)


def test_predict_is_nearest_centre():
    rng = np.random.default_rng(0)
    cb = Codebook(16, points_per_image=200, seed=0).fit(_images(dim=7))
    x = rng.normal(size=(3000, 7)).astype(np.float32)
    got = cb.predict(x)
    assert got.dtype == np.int32 and got.shape == (3000,)
    # brute force: explicit distances to every centre
    c = cb.cluster_centers_.astype(np.float64)
    d = ((x[:, None, :].astype(np.float64) - c[None]) ** 2).sum(-1)
    np.testing.assert_array_equal(got, d.argmin(1))
    np.testing.assert_array_equal(got, nearest_centre_reference(x, cb.cluster_centers_))
    np.testing.assert_array_equal(nearest_centre(x[::-1], cb.cluster_centers_), got[::-1])
    assert cb.predict(np.zeros((0, 7), np.float32)).shape == (0,)


def test_errors_are_clear():
    with pytest.raises(RuntimeError, match="not fitted"):
        Codebook(4).predict(np.zeros((2, 3)))
    cb = Codebook(4, points_per_image=10).fit(_images(dim=3))
    with pytest.raises(ValueError, match="fitted on 3"):
        cb.predict(np.zeros((2, 4)))
    with pytest.raises(ValueError, match="at least 50 sample rows"):
        Codebook(50, points_per_image=10).fit(_images(n=2, dim=3))
    with pytest.raises(ValueError, match="unknown k-means"):
        Codebook(2, algorithm="nope").fit(_images(n=2))
    with pytest.raises(ValueError, match="2-D"):
        Codebook(2).fit([np.zeros(5)])
    flat = [np.tile(np.eye(3, dtype=np.float32), (40, 1))]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Codebook(5, points_per_image=100).fit(flat)
    assert any("only 3 distinct" in str(w.message) for w in caught)


@pytest.mark.parametrize("dim", [1, 3, 16, 17, 128])
def test_nearest_centre_both_paths_match_brute_force(dim):
    rng = np.random.default_rng(dim)
    x = rng.normal(size=(500, dim)).astype(np.float32)
    c = rng.normal(size=(37, dim)).astype(np.float32)
    d = ((x[:, None, :].astype(np.float64) - c[None].astype(np.float64)) ** 2).sum(-1)
    np.testing.assert_array_equal(nearest_centre(x, c), d.argmin(1))


def test_centres_do_not_depend_on_the_thread_count():
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    imgs = [rng.normal(size=(3000, 16)).astype(np.float32) for _ in range(8)]
    with threadpool_limits(limits=1):
        a = Codebook(32, points_per_image=3000, seed=0).fit(imgs)
    with threadpool_limits(limits=2):
        b = Codebook(32, points_per_image=3000, seed=0).fit(imgs)
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)
