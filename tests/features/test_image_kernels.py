"""Image kernels K^HISTO (eq. 5-6) and K^PY (eq. 7-8), and the intersection block paths."""

from __future__ import annotations

import numpy as np
import pytest

from features._image_features import ImageFeatures
from features.kernels._base import make_kernel
from features.kernels._image import HistogramKernel, PyramidKernel, weighted_matrix
from features.kernels._intersection import intersection_block, intersection_numba, intersection_xp
from features._pyramid import pyramid_histogram
from kcca._backend import gpu_available
from tests.support.image_oracles import intersection_reference

VOCAB = {"color": 5, "texture": 7, "sift": 6}


def random_items(n, seed=0, levels=2, sizes=None):
    """Images with random word maps turned into normalised pyramids (the real record type)."""
    rng = np.random.default_rng(seed)
    items = []
    for k in range(n):
        h, w = (sizes[k] if sizes else (int(rng.integers(8, 30)), int(rng.integers(8, 30))))
        pyr, counts = {}, {}
        for f, v in VOCAB.items():
            m = int(rng.integers(20, 200))
            words = rng.integers(0, v, m)
            # skew some images to few words so that there are many zero bins
            if k % 3 == 0:
                words = words % 2
            rows, cols = rng.uniform(0, h, m), rng.uniform(0, w, m)
            pyr[f] = pyramid_histogram(words, rows, cols, h, w, v, levels)
            counts[f] = m
        items.append(ImageFeatures(f"img{k}", pyr, counts, h, w, levels))
    return items


# ---------------------------------------------------------------- literal equations
def literal_histo(x, y, p):
    """Eq. 5 per type, eq. 6 average and power, written out with loops."""
    total = 0.0
    for f in VOCAB:
        hx, hy = x.pyramids[f][0], y.pyramids[f][0]
        k = 0.0
        for v in range(len(hx)):
            k += min(float(hx[v]), float(hy[v]))
        total += k
    return (total / 3) ** p


def literal_pyramid(x, y, p, L=2):
    """Eq. 7 (sum over cells and words per level) and the FIRST line of eq. 8, per type."""
    total = 0.0
    for f in VOCAB:
        I = []
        start = 0
        for l in range(L + 1):
            s = 0.0
            for c in range(4**l):
                hx, hy = x.pyramids[f][start + c], y.pyramids[f][start + c]
                for v in range(len(hx)):
                    s += min(float(hx[v]), float(hy[v]))
            I.append(s)
            start += 4**l
        k = I[L] + sum((I[l] - I[l + 1]) / 2 ** (L - l) for l in range(L))
        total += k
    return (total / 3) ** p


@pytest.mark.parametrize("p", [1, 2, 3.5])
def test_pyramid_kernel_equals_literal_eq_7_8(p):
    a, b = random_items(9, seed=1), random_items(6, seed=2)
    K = PyramidKernel(p=p).fit(b).gram(a)
    ref = np.array([[literal_pyramid(x, y, p) for y in b] for x in a])
    np.testing.assert_allclose(K, ref, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("L", [0, 1])
def test_pyramid_fewer_levels_uses_the_coarse_cells(L):
    a = random_items(5, seed=3)
    K = PyramidKernel(p=1, levels=L).fit(a).gram(a)
    ref = np.array([[literal_pyramid(x, y, 1, L) for y in a] for x in a])
    np.testing.assert_allclose(K, ref, rtol=1e-5, atol=1e-7)
    if L == 0:
        np.testing.assert_allclose(K, HistogramKernel(p=1).fit(a).gram(a), rtol=1e-6)


@pytest.mark.parametrize("p", [1, 2])
def test_histogram_kernel_equals_literal_eq_5_6(p):
    a, b = random_items(7, seed=4), random_items(5, seed=5)
    K = HistogramKernel(p=p).fit(b).gram(a)
    ref = np.array([[literal_histo(x, y, p) for y in b] for x in a])
    np.testing.assert_allclose(K, ref, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("cls", [HistogramKernel, PyramidKernel])
def test_gram_properties(cls):
    items = random_items(40, seed=6)
    kern = cls(p=2).fit(items)
    K = kern.gram(items)
    np.testing.assert_array_equal(K, K.T)  # symmetric exactly (mirrored)
    np.testing.assert_allclose(np.diag(K), 1.0, atol=1e-6)
    np.testing.assert_allclose(kern.diag(items), 1.0, atol=1e-6)
    assert K.min() >= 0 and K.max() <= 1 + 1e-6
    assert np.linalg.eigvalsh(K).min() >= -1e-8 * len(items)
    # the symmetric fast path equals the general path on a copy of the items
    np.testing.assert_allclose(kern.gram(list(items)), K, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(kern.gram(items, list(items)), K, rtol=1e-6, atol=1e-7)


def test_pyramid_level_nesting_I_l_ge_I_l_plus_1():
    a = random_items(8, seed=7)
    for f in VOCAB:
        for x in a:
            for y in a:
                I = [np.minimum(x.pyramids[f][s], y.pyramids[f][s]).sum()
                     for s in (slice(0, 1), slice(1, 5), slice(5, 21))]
                assert I[0] + 1e-6 >= I[1] and I[1] + 1e-6 >= I[2]


def test_registry_params_and_errors():
    k = make_kernel("pyramid", p=3)
    assert isinstance(k, PyramidKernel) and k.name == "pyramid"
    assert k.params == {"p": 3, "levels": 2, "feature_types": ("color", "texture", "sift")}
    assert isinstance(make_kernel("histogram"), HistogramKernel)
    items = random_items(3)
    with pytest.raises(RuntimeError, match="not fitted"):
        PyramidKernel().gram(items)
    with pytest.raises(ValueError, match="positive"):
        PyramidKernel(p=0).fit(items)
    with pytest.raises(ValueError, match="needs 85 cells"):
        PyramidKernel(levels=3).fit(items)
    with pytest.raises(ValueError, match="no 'depth' histograms"):
        PyramidKernel(feature_types=("depth",)).fit(items)
    other = random_items(2)
    other[1] = ImageFeatures("odd", {**other[1].pyramids, "sift": np.ones((21, 9), np.float32)},
                             other[1].n_samples, 9, 9, 2)
    with pytest.raises(ValueError, match="odd.*same codebooks"):
        PyramidKernel().fit(items).gram(other[:1] + other[1:])


def test_weighted_matrix_shape_and_weights():
    items = random_items(3, seed=8)
    m = weighted_matrix(items, ("color", "texture", "sift"), 2)
    assert m.shape == (3, 21 * 18) and m.dtype == np.float32
    np.testing.assert_allclose(m.sum(axis=1), 1.0, atol=1e-6)  # (1/3) * sum_l w_l * 1
    np.testing.assert_allclose(m[0, :5], items[0].pyramids["color"][0] * 0.25 / 3, rtol=1e-6)


# ----------------------------------------------------------------- block paths
def _hists(n, d, seed, zeros=0.6):
    rng = np.random.default_rng(seed)
    x = rng.random((n, d)).astype(np.float32)
    x[x < zeros] = 0
    return x


@pytest.mark.parametrize("shape", [(13, 9, 50), (1, 1, 3), (8, 11, 1500), (5, 4, 0)])
def test_numba_equals_reference_and_array_api(shape):
    import array_api_strict as xps

    na, nb, d = shape
    a, b = _hists(na, d, 1), _hists(nb, d, 2)
    ref = intersection_reference(a, b)
    np.testing.assert_allclose(intersection_numba(a, b), ref, rtol=1e-6, atol=1e-6)
    got = intersection_xp(xps.asarray(a), xps.asarray(b), tile_bytes=4096)
    assert isinstance(got, type(xps.asarray(0.0)))  # stayed in the strict namespace
    np.testing.assert_allclose(np.asarray(got), ref, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(intersection_block(a, b, backend="array_api_strict"), ref,
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(intersection_block(a, b, backend="numpy"), ref, rtol=1e-6, atol=1e-6)


def test_symmetric_paths_agree():
    import array_api_strict as xps

    a = _hists(23, 700, 3)
    ref = intersection_reference(a)
    np.testing.assert_allclose(intersection_numba(a), ref, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(intersection_xp(xps.asarray(a), tile_bytes=9000)), ref,
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("sym", [True, False])
def test_tiling_does_not_change_the_numbers(sym):
    a, b = _hists(37, 2100, 4), _hists(29, 2100, 5)
    other = None if sym else b
    base = intersection_numba(a, other, tile_rows=128, tile_cols=256)
    for tr, tc in [(1, 1), (2, 3), (5, 7), (16, 4), (37, 29), (64, 1)]:
        for jobs in (1, 2):
            got = intersection_numba(a, other, tile_rows=tr, tile_cols=tc, n_jobs=jobs)
            np.testing.assert_array_equal(got, base)  # identical, not just close
    if sym:
        np.testing.assert_array_equal(base, base.T)


def test_intersection_input_errors():
    with pytest.raises(ValueError, match="negative"):
        intersection_numba(-np.ones((2, 3)))
    with pytest.raises(ValueError, match="widths differ"):
        intersection_numba(np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="2-D"):
        intersection_numba(np.ones(3))
    with pytest.raises(ValueError, match="non-finite"):
        intersection_numba(np.array([[np.nan, 1.0]]))
    with pytest.raises(ValueError, match="unknown array backend"):
        intersection_block(np.ones((2, 3)), backend="tpu")


def test_kernel_on_array_api_backend_equals_numba():
    items = random_items(12, seed=9)
    K1 = PyramidKernel(p=2).fit(items).gram(items)
    K2 = PyramidKernel(p=2, backend="array_api_strict").fit(items).gram(items)
    np.testing.assert_allclose(K1, K2, rtol=1e-6, atol=1e-7)


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_available(), reason="needs cupy and a CUDA device")
def test_cupy_path_equals_numba():
    a, b = _hists(70, 3000, 6), _hists(50, 3000, 7)
    np.testing.assert_allclose(intersection_block(a, b, backend="cupy"), intersection_numba(a, b),
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(intersection_block(a, backend="cupy"), intersection_numba(a),
                               rtol=1e-6, atol=1e-6)
