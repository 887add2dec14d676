"""TRI (eq. 12-16): worked values, a literal span-enumerating implementation, options."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

from features.kernels._base import make_kernel
from features.text._bow_kernel import BowKernel
from features.text._text_items import EmptyCaptionWarning
from features.text._trigram_kernel import TrigramKernel

# --------------------------------------------------------------------- literal reference


def literal_matches(s, w):
    """|M_{s,w}| of eq. 12: spans (i, j) with s_i = w_1, s_j = w_k, w a subsequence of s_i..s_j."""
    k = len(w)
    count = 0
    for i in range(len(s)):
        for j in range(i + k - 1, len(s)):
            if s[i] != w[0] or s[j] != w[-1]:
                continue
            if k == 1:
                count += i == j
                continue
            inner = s[i + 1:j]
            if any(tuple(c) == tuple(w[1:-1]) for c in itertools.combinations(inner, k - 2)):
                count += 1
    return count


def literal_idf(train, word):
    n = len(train)
    df = sum(1 for item in train if any(word in c for c in item))
    return max(0.0, math.log(n / (df + 1)))


def literal_tri(s, t, lam_m=0.5, idf=None, max_length=3):
    """Eq. 15 (eq. 16 when ``idf`` gives lambda_w), unnormalised, one caption pair."""
    words = sorted(set(s) & set(t))  # a sequence with any other word matches one side 0 times
    total = 0.0
    for k in range(1, max_length + 1):
        for w in itertools.product(words, repeat=k):
            m1, m2 = literal_matches(s, w), literal_matches(t, w)
            if m1 and m2:
                lw = 1.0 if idf is None else math.prod(idf(x) for x in w)
                total += lw * m1 * m2 * lam_m ** (2 * k)
    return total


def literal_item_kernel(a, b, **kw):
    """Multi-caption items: sum over the cross product, normalised by the self-sums (Sec. 3.4.3)."""
    ab = sum(literal_tri(s, t, **kw) for s in a for t in b)
    aa = sum(literal_tri(s, t, **kw) for s in a for t in a)
    bb = sum(literal_tri(s, t, **kw) for s in b for t in b)
    if aa == 0 or bb == 0:
        return 0.0
    return ab / math.sqrt(aa * bb)


def random_captions(rng, n, vocab=("dog", "run", "beach", "ball", "man"), max_len=6):
    out = []
    for _ in range(n):
        length = int(rng.integers(0, max_len + 1))
        out.append([vocab[int(i)] for i in rng.integers(0, len(vocab), size=length)])
    return out


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    caps = random_captions(rng, 16)
    caps[0] = ["dog"]  # one-word caption
    caps[1] = []  # empty caption
    caps[2] = ["dog", "dog", "run", "dog", "beach"]  # repeats
    train = [caps[i:i + 3] for i in range(0, 15, 3)]  # five 3-caption items
    test = [["dog", "run", "beach"], ["ball", "zebra", "ball"], [], ["beach"]]
    return train, test


def as_multi(items):
    return [it if it and isinstance(it[0], list) else [it] for it in items]


# --------------------------------------------------------------------- tests


def test_worked_values():
    a, b = ["dog", "run", "beach"], ["dog", "catch", "ball", "beach"]
    assert literal_tri(a, b) == pytest.approx(0.5625)
    assert literal_tri(a, a) == pytest.approx(3 / 4 + 3 / 16 + 1 / 64)
    k = TrigramKernel().fit([a, b])
    raw = (k.train_features_ @ k.train_features_.T).toarray()
    np.testing.assert_allclose(raw, [[3 / 4 + 3 / 16 + 1 / 64, 0.5625],
                                     [0.5625, literal_tri(b, b)]])
    assert k.gram([a], [b])[0, 0] == pytest.approx(0.5625 / math.sqrt(raw[0, 0] * raw[1, 1]))


def test_span_counted_once_and_tf_for_unigrams():
    s = ["dog", "run", "run", "beach"]
    # (dog, run, beach) fits in span (0, 3) twice over its middle, but the span counts once
    assert literal_matches(s, ("dog", "run", "beach")) == 1
    assert literal_matches(s, ("run",)) == 2
    k = TrigramKernel(lambda_m=1.0).fit([[s]])
    col = k.columns_
    f = k.train_features_.toarray()[0]
    assert f[col[("dog", "run", "beach")]] == 1 and f[col[("run",)]] == 2
    assert f[col[("dog", "run")]] == 2 and f[col[("run", "run")]] == 1


@pytest.mark.parametrize("weighting", [None, "sqrt-idf"])
def test_equals_literal_multi_caption(data, weighting):
    train, test = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyCaptionWarning)
        k = TrigramKernel(weighting=weighting).fit(train)
        idf = None if weighting is None else (lambda w: literal_idf(train, w))
        got = k.gram(train)
        want = np.array([[literal_item_kernel(a, b, idf=idf) for b in train] for a in train])
        np.fill_diagonal(want, 1.0)  # also for items whose features are all zero
        np.testing.assert_allclose(got, want, atol=1e-12)
        got_t = k.gram(test)
        want_t = np.array([[literal_item_kernel(a, b, idf=idf) for b in train]
                           for a in as_multi(test)])
        np.testing.assert_allclose(got_t, want_t, atol=1e-12)
    np.testing.assert_allclose(np.diag(got), 1.0)
    assert np.linalg.eigvalsh(got).min() > -1e-10
    np.testing.assert_allclose(k.gram_columns([4, 0, 2]), got[:, [4, 0, 2]], atol=1e-12)


def test_tri1_uses_one_seeded_caption(data):
    train, _ = data
    train = [it for it in train if all(it)]  # keep items without empty captions
    k = TrigramKernel(single_caption=True, random_state=7).fit(train)
    rng = np.random.default_rng(7)
    chosen = [[it[int(rng.integers(len(it)))]] for it in train]
    want = np.array([[literal_item_kernel(a, b) for b in chosen] for a in chosen])
    np.testing.assert_allclose(k.gram(train), want, atol=1e-12)
    test = [["dog", "beach"]]
    np.testing.assert_allclose(k.gram(test), [[literal_item_kernel(test, b) for b in chosen]])


def test_unigram_trigram_is_bow(data):
    train, test = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyCaptionWarning)
        tri = TrigramKernel(max_length=1).fit(train)
        bow = BowKernel().fit(train)
        np.testing.assert_allclose(tri.gram(train), bow.gram(train), atol=1e-12)
        np.testing.assert_allclose(tri.gram(test), bow.gram(test), atol=1e-12)


def test_empty_captions_defined_and_warned():
    train = [[["dog", "run"]], [[]], [["beach"]], [[], []]]
    with pytest.warns(EmptyCaptionWarning, match="3 of 5 captions"):
        k = TrigramKernel().fit(train)
    g = k.gram(train)
    np.testing.assert_allclose(np.diag(g), 1.0)
    assert g[1, 3] == 0 and g[1, 0] == 0 and g[3, 2] == 0
    with pytest.warns(EmptyCaptionWarning):
        t = k.gram([[], ["dog"]])
    np.testing.assert_array_equal(t[0], 0.0)
    np.testing.assert_allclose(k.diag(train), 1.0)
    # a stop-word-only caption becomes empty after preprocessing: same rule, no exception


def test_unknown_words_and_bad_input():
    k = TrigramKernel().fit([["dog", "run"], ["cat"]])
    g = k.gram([["zebra", "zebra"], ["zebra", "dog"]], [["zebra"], ["dog"]])
    assert g[0, 0] == pytest.approx(literal_item_kernel([["zebra", "zebra"]], [["zebra"]]))
    assert g[1, 1] == pytest.approx(literal_item_kernel([["zebra", "dog"]], [["dog"]]))
    with pytest.raises(TypeError, match="token lists"):
        k.gram(["a dog runs"])
    with pytest.raises(TypeError, match="tokens must be str"):
        k.gram([[["dog", 3]]])
    with pytest.raises(TypeError, match="mixes tokens and captions"):
        k.gram([["dog", ["run"]]])
    with pytest.raises(ValueError, match="max_length"):
        TrigramKernel(max_length=4).fit([["dog"]])
    with pytest.raises(ValueError, match="weighting"):
        TrigramKernel(weighting="tfidf").fit([["dog"]])
    with pytest.raises(RuntimeError, match="not fitted"):
        TrigramKernel().gram([["dog"]])


def test_lambda_g_weights_gaps():
    s, t = ["a", "x", "b"], ["a", "b"]
    k = TrigramKernel(lambda_m=1.0, lambda_g=0.5).fit([[s], [t]])
    raw = (k.train_features_ @ k.train_features_.T).toarray()
    # shared: a, b (1 each), pair (a, b) with one gap in s (0.5) and none in t (1)
    assert raw[0, 1] == pytest.approx(1 + 1 + 0.5 * 1)


def test_registry():
    k = make_kernel("trigram", weighting="sqrt-idf")
    assert isinstance(k, TrigramKernel) and k.params["weighting"] == "sqrt-idf"
    assert TrigramKernel().get_params()["lambda_m"] == 0.5


@pytest.mark.real_data
def test_real_captions_equal_literal(flickr8k):
    from nltk.corpus import stopwords

    stop = set(stopwords.words("english"))

    def prep(text):
        toks = [t.lower() for t in text.split()]
        return [t for t in toks if any(c.isalnum() for c in t) and t not in stop]

    ids = flickr8k.split("train")[:6]
    train = [[prep(c) for c in flickr8k.lemmas[i]] for i in ids]
    k = TrigramKernel(weighting="sqrt-idf").fit(train)
    idf = lambda w: literal_idf(train, w)  # noqa: E731
    want = np.array([[literal_item_kernel(a, b, idf=idf) for b in train[:3]] for a in train])
    np.testing.assert_allclose(k.gram_columns([0, 1, 2]), want, atol=1e-10)
