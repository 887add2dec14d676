"""TRI with a word kernel (eq. 19-21) against a literal double sum over sequence pairs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from features.text._soft_trigram import SoftSequenceSet, WordIds, compile_item, soft_block
from features.text._text_items import EmptyCaptionWarning
from features.text._trigram_kernel import TrigramKernel
from features.text._word_kernel import WordKernel, maximum
from tests.support.soft_trigram_literal import (VOCAB, fit_beside_literal, literal_grams,
                                                random_word_kernel)


@pytest.mark.parametrize("weighting", [None, "sqrt-idf"])
def test_equals_literal(items, weighting):
    train, test = items
    k, want, want_t = fit_beside_literal(items, weighting)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyCaptionWarning)
        got = k.gram(train)
        np.testing.assert_allclose(got, want, atol=1e-12)
        got_t = k.gram(test)
        np.testing.assert_allclose(got_t, want_t, atol=1e-12)
    np.testing.assert_allclose(np.diag(got), 1.0)
    assert np.linalg.eigvalsh(got).min() > -1e-10  # PSD word kernel, no threshold: PSD
    np.testing.assert_allclose(k.gram_columns([5, 1]), got[:, [5, 1]], atol=1e-12)
    np.testing.assert_array_equal(got_t[3], 0.0)  # empty test caption


def test_thresholded_max_combined_kernel_equals_literal(items):
    """Eq. 27 on thresholded kernels (not PSD: no PSD check, footnote 4)."""
    train, _ = items
    train = train[:5]
    kappa = maximum([random_word_kernel(1).thresholded(0.3), random_word_kernel(2)])
    k = TrigramKernel(word_kernel=kappa, weighting="sqrt-idf", progress=False).fit(train)
    want, _ = literal_grams(train, [], kappa, "sqrt-idf")
    np.testing.assert_allclose(k.gram(train), want, atol=1e-12)


def test_identity_word_kernel_is_exact_tri(items):
    train, test = items
    ident = WordKernel("id", VOCAB, np.eye(len(VOCAB)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyCaptionWarning)
        for weighting in (None, "sqrt-idf"):
            soft = TrigramKernel(word_kernel=ident, weighting=weighting, progress=False).fit(train)
            exact = TrigramKernel(weighting=weighting).fit(train)
            np.testing.assert_allclose(soft.gram(train), exact.gram(train), atol=1e-12)
            np.testing.assert_allclose(soft.gram(test), exact.gram(test), atol=1e-12)


def test_block_paths_agree():
    """Symmetric (lower triangle + mirror), full rectangular and threaded runs agree."""
    rng = np.random.default_rng(5)
    words = [f"w{i}" for i in range(12)]
    kappa = random_word_kernel(3, tuple(words[:9]))
    ids = WordIds(kappa.vocabulary)
    from features.text._sequences import item_spans

    items = []
    for _ in range(40):
        caps = [[words[int(i)] for i in rng.integers(0, 12, int(rng.integers(0, 8)))]
                for _ in range(int(rng.integers(1, 4)))]
        items.append(compile_item(item_spans(caps), ids))
    s = SoftSequenceSet.pack(items)
    full = soft_block(s, s, kappa.matrix, ids.n_kernel, symmetric=False, n_jobs=1, progress=False)
    sym = soft_block(s, s, kappa.matrix, ids.n_kernel, symmetric=True, n_jobs=2, n_chunks=7,
                     progress=False)
    np.testing.assert_allclose(sym, full, atol=1e-12)
    np.testing.assert_allclose(full, full.T, atol=1e-12)
    cols = soft_block(s, s.take([3, 17, 3]), kappa.matrix, ids.n_kernel, progress=False)
    np.testing.assert_allclose(cols, full[:, [3, 17, 3]], atol=1e-12)


def test_word_kernel_type_checked():
    with pytest.raises(TypeError, match="WordKernel"):
        TrigramKernel(word_kernel=np.eye(3)).fit([["dog"]])
