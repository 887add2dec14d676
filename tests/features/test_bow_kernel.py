"""BoW (Section 3.4.1): cosine of (idf-weighted) term frequencies, BoW5 and BoW1, IDF."""

from __future__ import annotations

import math
import warnings
from collections import Counter

import numpy as np
import pytest

from features.kernels._base import make_kernel
from features.text._bow_kernel import BowKernel
from features.text._idf import Idf
from features.text._text_items import EmptyCaptionWarning


def literal_idf(train, word):
    """lambda_w = ln(|D| / (|D(w)| + 1)), D = training images, clamped at 0."""
    df = sum(1 for item in train if any(word in cap for cap in item))
    return max(0.0, math.log(len(train) / (df + 1)))


def literal_bow(a, b, train=None, power=0.0):
    """Cosine of merged term-frequency vectors, each frequency times lambda_w ** power."""
    def vec(item):
        tf = Counter(w for cap in item for w in cap)
        return {w: c * (literal_idf(train, w) ** power if power else 1.0) for w, c in tf.items()}

    va, vb = vec(a), vec(b)
    dot = sum(v * vb.get(w, 0.0) for w, v in va.items())
    na = math.sqrt(sum(v * v for v in va.values()))
    nb = math.sqrt(sum(v * v for v in vb.values()))
    return 0.0 if na == 0 or nb == 0 else dot / (na * nb)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    vocab = ["dog", "run", "beach", "ball", "man", "red", "grass", "water"]
    train = []
    for i in range(9):
        caps = []
        for _ in range(int(rng.integers(1, 5))):
            caps.append([vocab[int(j)] for j in rng.integers(0, 8, int(rng.integers(0, 6)))])
        train.append(caps)
    train[0] = [["dog"], ["dog", "dog"], []]  # repeats, one-word caption, empty caption
    test = [["dog", "water", "water"], ["unicorn"], [], ["grass"]]
    return train, test


@pytest.mark.parametrize("weighting,power", [(None, 0.0), ("idf", 1.0), ("sqrt-idf", 0.5)])
def test_equals_literal(data, weighting, power):
    train, test = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyCaptionWarning)
        k = BowKernel(weighting=weighting).fit(train)
        got = k.gram(train)
        want = np.array([[literal_bow(a, b, train, power) for b in train] for a in train])
        np.fill_diagonal(want, 1.0)
        np.testing.assert_allclose(got, want, atol=1e-12)
        got_t = k.gram(test)
        want_t = np.array([[literal_bow([a], b, train, power) for b in train] for a in test])
        np.testing.assert_allclose(got_t, want_t, atol=1e-12)
    np.testing.assert_allclose(np.diag(got), 1.0)
    assert np.linalg.eigvalsh(got).min() > -1e-10
    np.testing.assert_allclose(k.gram_columns([8, 0]), got[:, [8, 0]], atol=1e-12)
    np.testing.assert_array_equal(got_t[2], 0.0)  # empty test caption: 0 against all


def test_idf_definition():
    train = [[["dog", "run"], ["dog"]], [["dog"]], [["cat"]], [["bird"]]]
    idf = Idf().fit(train)
    assert idf.weight("dog") == pytest.approx(math.log(4 / 3))  # in 2 of 4 images
    assert idf.weight("run") == pytest.approx(math.log(4 / 2))
    assert idf.weight("never-seen") == pytest.approx(math.log(4))
    assert Idf().fit([[["a"]], [["a"]]]).weight("a") == 0.0  # clamped at 0
    assert idf.sequence_weight(("run", "cat"), 0.5) == pytest.approx(math.log(2))


def test_bow1_one_seeded_caption(data):
    train, _ = data
    k = BowKernel(single_caption=True, random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyCaptionWarning)
        g = k.fit(train).gram(train)
        again = BowKernel(single_caption=True, random_state=3).fit(train)
    rng = np.random.default_rng(3)
    chosen = [[it[int(rng.integers(len(it)))]] for it in train]
    want = np.array([[literal_bow(a, b) for b in chosen] for a in chosen])
    np.fill_diagonal(want, 1.0)
    np.testing.assert_allclose(g, want, atol=1e-12)
    np.testing.assert_allclose(k.gram_train(), g)
    # a second fit with the same seed draws the same captions
    np.testing.assert_array_equal(again.train_features_.toarray(), k.train_features_.toarray())


def test_empty_items_warn_and_unit_diagonal():
    train = [[["dog"]], [[]], [[], []]]
    with pytest.warns(EmptyCaptionWarning, match="3 of 4 captions"):
        k = BowKernel().fit(train)
    g = k.gram(train)
    np.testing.assert_array_equal(g, np.eye(3))
    np.testing.assert_array_equal(k.diag(train), 1.0)


def test_bad_input_and_registry():
    with pytest.raises(ValueError, match="weighting"):
        BowKernel(weighting="bm25").fit([["dog"]])
    with pytest.raises(TypeError, match="token lists"):
        BowKernel().fit(["a dog"])
    k = BowKernel().fit([["dog"], ["cat"]])
    with pytest.raises(IndexError, match="column indices"):
        k.gram_columns([2])
    assert isinstance(make_kernel("bow", weighting="sqrt-idf"), BowKernel)
