"""TRI with a word kernel (eq. 19-21) against a literal double sum over sequence pairs."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

from features.text.soft_trigram import SoftSequenceSet, WordIds, compile_item, soft_block
from features.text.text_items import EmptyCaptionWarning
from features.text.trigram_kernel import TrigramKernel
from features.text.word_kernel import WordKernel, maximum

VOCAB = ("dog", "puppy", "run", "sprint", "beach", "sand", "ball")


def literal_sequences(s, max_length=3):
    """m_{s,w} of eq. 12 by brute force over spans and subsequences."""
    out = {}
    n = len(s)
    for k in range(1, max_length + 1):
        seen = set()
        for i in range(n):
            for j in range(i + k - 1, n):
                if k == 1:
                    if i == j:
                        out[(s[i],)] = out.get((s[i],), 0) + 1
                    continue
                for mid in itertools.combinations(range(i + 1, j), k - 2):
                    w = (s[i], *[s[m] for m in mid], s[j])
                    if (i, j, w) not in seen:  # a span counts once per sequence
                        seen.add((i, j, w))
                        out[w] = out.get(w, 0) + 1
    return out


def literal_idf(train, word):
    df = sum(1 for item in train if any(word in c for c in item))
    return max(0.0, math.log(len(train) / (df + 1)))


def literal_soft(s, t, kappa, lam_m=0.5, idf=None):
    """Eq. 20 (eq. 21 with ``idf``): sum over w in s, w' in t of equal length."""
    ms, mt = literal_sequences(s), literal_sequences(t)
    total = 0.0
    for w, a in ms.items():
        for v, b in mt.items():
            if len(w) != len(v):
                continue
            sigma = math.prod(kappa.similarity(x, y) for x, y in zip(w, v))  # eq. 19
            lw = 1.0 if idf is None else math.sqrt(math.prod(map(idf, w)) * math.prod(map(idf, v)))
            total += lw * a * b * lam_m ** (2 * len(w)) * sigma
    return total


def literal_item(a, b, kappa, **kw):
    ab = sum(literal_soft(s, t, kappa, **kw) for s in a for t in b)
    aa = sum(literal_soft(s, t, kappa, **kw) for s in a for t in a)
    bb = sum(literal_soft(s, t, kappa, **kw) for s in b for t in b)
    return 0.0 if aa == 0 or bb == 0 else ab / math.sqrt(aa * bb)


def literal_grams(train, test, kappa, weighting=None):
    """The literal grams of eq. 20 (eq. 21 with ``weighting="sqrt-idf"``, the idf of ``train``):
    train x train with the unit diagonal the kernel gives every item, and test caption x train."""
    idf = None if weighting is None else (lambda w: literal_idf(train, w))
    want = np.array([[literal_item(a, b, kappa, idf=idf) for b in train] for a in train])
    np.fill_diagonal(want, 1.0)
    want_t = np.array([[literal_item([a], b, kappa, idf=idf) for b in train] for a in test])
    return want, want_t


def random_word_kernel(seed, vocab=VOCAB[:-1]):
    """A PSD word kernel: cosine of random non-negative vectors ('ball' stays outside)."""
    rng = np.random.default_rng(seed)
    vectors = rng.random((len(vocab), 4)) ** 3
    return WordKernel.from_vectors("rand", vocab, vectors)


@pytest.fixture
def items():
    rng = np.random.default_rng(11)
    caps = []
    for _ in range(14):
        n = int(rng.integers(1, 6))
        caps.append([VOCAB[int(i)] for i in rng.integers(0, len(VOCAB), n)])
    caps[0] = ["dog"]
    caps[1] = ["dog", "dog", "run", "dog", "beach"]
    train = [caps[i:i + 2] for i in range(0, 12, 2)]  # six two-caption items
    train[5] = [["zebra", "run"], []]  # word unknown to the word kernel, empty caption
    test = [["puppy", "sprint", "sand"], ["ball", "ball"], ["zebra"], []]
    return train, test


def fit_beside_literal(items, weighting, **params):
    """A trigram kernel on random word kernel 0 fitted to ``items``' training part, with the
    literal eq. 25-26 Gram matrices it must match (training, test)."""
    train, test = items
    kappa = random_word_kernel(0)
    want, want_t = literal_grams(train, test, kappa, weighting)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyCaptionWarning)
        k = TrigramKernel(word_kernel=kappa, weighting=weighting, progress=False, **params)
        return k.fit(train), want, want_t


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
    from features.text.sequences import item_spans

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
