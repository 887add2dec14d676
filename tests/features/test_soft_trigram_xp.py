"""The array-API soft trigram engine (dense matrix products) against numba and the literal sum,
and the dispatcher that chooses between them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from features.text._sequences import item_spans
from features.text._soft_trigram import SoftSequenceSet, WordIds, compile_item, soft_block, \
    soft_block_xp
from features.text._text_items import EmptyCaptionWarning
from features.text._trigram_kernel import TrigramKernel
from features.text._word_kernel import WordKernel
from kcca._backend import gpu_available
from tests.support.soft_trigram_literal import VOCAB, fit_beside_literal, random_word_kernel


def _random_set(seed, n=23, n_words=12, n_vocab=9):
    """Random items with repeated words, one-word and empty captions, out-of-vocabulary words."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(n_words)]
    kappa = random_word_kernel(seed + 1, tuple(words[:n_vocab]))
    ids = WordIds(kappa.vocabulary)
    raw = []
    for _ in range(n):
        caps = [[words[int(i)] for i in rng.integers(0, n_words, int(rng.integers(0, 8)))]
                for _ in range(int(rng.integers(1, 4)))]
        raw.append(caps)
    raw[0] = [["w1"]]
    raw[1] = [[]]
    raw[2] = [["w3", "w3", "w3", "w3"], ["w3"]]
    raw[3] = [["w10", "w11", "w10"]]  # only words outside the word kernel
    s = SoftSequenceSet.pack([compile_item(item_spans(c), ids) for c in raw])
    return s, kappa, ids


@pytest.mark.parametrize("backend", ["numpy", "array_api_strict"])
@pytest.mark.parametrize("symmetric", [False, True])
def test_xp_block_equals_numba(backend, symmetric):
    s, kappa, ids = _random_set(4)
    want = soft_block(s, s, kappa.matrix, ids.n_kernel, n_jobs=1, progress=False)
    # small tiles and sequence chunks: many tile pairs, partial tiles, chunked contractions
    got = soft_block_xp(s, s, kappa.matrix, ids.n_kernel, backend=backend, symmetric=symmetric,
                        tile=5, seq_chunk=11)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-10)
    cols = s.take([3, 1, 17, 3])
    got_c = soft_block_xp(s, cols, kappa.matrix, ids.n_kernel, backend=backend, tile=4,
                          seq_chunk=7)
    np.testing.assert_allclose(got_c, want[:, [3, 1, 17, 3]], rtol=1e-12, atol=1e-10)


def test_xp_identity_word_kernel():
    s, kappa, ids = _random_set(8)
    eye = np.eye(len(kappa.vocabulary))
    want = soft_block(s, s, eye, ids.n_kernel, n_jobs=1, progress=False)
    got = soft_block_xp(s, s, eye, ids.n_kernel, backend="array_api_strict", tile=6,
                        seq_chunk=16)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-10)


def test_xp_empty_sets():
    s, kappa, ids = _random_set(1, n=5)
    empty = SoftSequenceSet.pack([])
    assert soft_block_xp(s, empty, kappa.matrix, ids.n_kernel,
                         backend="array_api_strict").shape == (5, 0)
    assert soft_block_xp(empty, s, kappa.matrix, ids.n_kernel,
                         backend="array_api_strict").shape == (0, 5)


@pytest.mark.parametrize("weighting", [None, "sqrt-idf"])
def test_kernel_backend_equals_literal_and_numba(items, weighting):
    train, test = items
    ref, _, _ = fit_beside_literal(items, weighting)
    k, want, want_t = fit_beside_literal(items, weighting, backend="array_api_strict",
                                         engine="array-api")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyCaptionWarning)
        got = k.gram(train)
        np.testing.assert_allclose(got, want, atol=1e-10)
        np.testing.assert_allclose(got, ref.gram(train), atol=1e-10)
        got_t = k.gram(test)
        np.testing.assert_allclose(got_t, want_t, atol=1e-10)
        np.testing.assert_allclose(got_t, ref.gram(test), atol=1e-10)
    np.testing.assert_allclose(k.gram_columns([5, 1]), got[:, [5, 1]], atol=1e-10)
    np.testing.assert_array_equal(got_t[3], 0.0)


def test_kernel_backend_identity_is_exact_tri(items):
    train, test = items
    ident = WordKernel("id", VOCAB, np.eye(len(VOCAB)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyCaptionWarning)
        soft = TrigramKernel(word_kernel=ident, progress=False,
                             backend="array_api_strict", engine="array-api").fit(train)
        exact = TrigramKernel().fit(train)
        np.testing.assert_allclose(soft.gram(train), exact.gram(train), atol=1e-10)
        np.testing.assert_allclose(soft.gram(test), exact.gram(test), atol=1e-10)


def test_backend_checked():
    with pytest.raises(ValueError, match="backend"):
        TrigramKernel(word_kernel=random_word_kernel(0), backend="tpu").fit([["dog"]])
    with pytest.raises(ValueError, match="engine must be one of numba, array-api"):
        TrigramKernel(word_kernel=random_word_kernel(0), engine="gpu").fit([["dog"]])
    s, kappa, ids = _random_set(1, n=5)
    with pytest.raises(ValueError, match="engine"):
        soft_block(s, s, kappa.matrix, ids.n_kernel, engine="gpu")


def test_the_backend_alone_keeps_the_numba_engine(items, monkeypatch):
    """A kernel on an array backend (``"cupy"`` in a GPU run) still computes its soft blocks
    with numba, the faster engine everywhere it was timed; ``engine="array-api"`` asks for
    the other one."""
    import features.text._soft_trigram as st

    calls = []
    monkeypatch.setattr(st, "soft_block_xp", lambda *a, **k: calls.append(k) or
                        pytest.fail("array-API engine used"))
    train, _ = items
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyCaptionWarning)
        numba_k = TrigramKernel(word_kernel=random_word_kernel(0), progress=False,
                                backend="array_api_strict").fit(train)
        numba_k.gram(train)
        monkeypatch.undo()
        xp_k = TrigramKernel(word_kernel=random_word_kernel(0), progress=False,
                             backend="array_api_strict", engine="array-api").fit(train)
        np.testing.assert_allclose(xp_k.gram(train), numba_k.gram(train), atol=1e-10)
    assert not calls


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_available(), reason="needs cupy and a CUDA device")
def test_cupy_equals_numba():
    s, kappa, ids = _random_set(6, n=40)
    want = soft_block(s, s, kappa.matrix, ids.n_kernel, n_jobs=1, progress=False)
    for symmetric in (False, True):
        got = soft_block_xp(s, s, kappa.matrix, ids.n_kernel, backend="cupy",
                            symmetric=symmetric, tile=8, seq_chunk=32)
        assert isinstance(got, np.ndarray)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-10)


def test_the_engine_is_an_execution_parameter_outside_cache_keys():
    """Both engines give the same numbers, so the engine (like the backend and the thread
    count) does not enter the system stages' cache keys."""
    from features.kernels._base import numeric_params

    kappa = random_word_kernel(0)
    numba_k = TrigramKernel(word_kernel=kappa, n_jobs=2, engine="numba")
    xp_k = TrigramKernel(word_kernel=kappa, n_jobs=1, engine="array-api", backend="cupy")
    assert numeric_params(numba_k) == numeric_params(xp_k)
    assert "engine" not in numeric_params(numba_k)
