"""TAGRANK (eq. 9-11) against a literal implementation; Omega; multi-caption averaging."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from features.kernels._base import make_kernel
from features.text._tagrank_kernel import TagRankKernel
from features.text._text_items import EmptyCaptionWarning


def literal_vectors(caption, train_captions):
    """(r, a) of eq. 10 and eq. 9 as dicts, from the training position counts n_ik."""
    a, r = {}, {}
    for w in set(caption):
        positions = [k + 1 for k, x in enumerate(caption) if x == w]
        p = sum(positions) / len(positions)
        a[w] = 1 / math.log2(1 + p)
        n_ik = [k + 1 for cap in train_captions for k, x in enumerate(cap) if x == w]
        r[w] = 0.0 if not n_ik else 1 - sum(1 for k in n_ik if k <= p) / len(n_ik)
    return r, a


def literal_chi2(x, y):
    total = 0.0
    for k in set(x) | set(y):
        xi, yi = x.get(k, 0.0), y.get(k, 0.0)
        if xi + yi > 0:  # 0/0 terms are 0
            total += (xi - yi) ** 2 / (xi + yi)
    return total


def literal_sentence_kernel(s, t, train_captions, omega, omega_p):
    rs, as_ = literal_vectors(s, train_captions)
    rt, at = literal_vectors(t, train_captions)
    return 0.5 * (math.exp(-literal_chi2(rs, rt) / (2 * omega))
                  + math.exp(-literal_chi2(as_, at) / (2 * omega_p)))


def literal_item_kernel(a, b, train_captions, omega, omega_p):
    """Multi-caption items: mean of the sentence-pair kernel over the cross product (Sec. 3.4.2)."""
    vals = [literal_sentence_kernel(s, t, train_captions, omega, omega_p) for s in a for t in b]
    return sum(vals) / len(vals)


@pytest.fixture
def data():
    rng = np.random.default_rng(2)
    vocab = ["dog", "run", "beach", "ball", "man", "red"]
    train = []
    for _ in range(7):
        caps = [[vocab[int(j)] for j in rng.integers(0, 6, int(rng.integers(1, 7)))]
                for _ in range(int(rng.integers(1, 5)))]
        train.append(caps)
    train[0] = [["dog", "run", "dog", "dog"], ["dog"], []]
    test = [["run", "dog"], ["zebra", "dog"], [], ["beach", "beach", "beach"]]
    return train, test


def test_equals_literal(data):
    train, test = data
    caps = [c for it in train for c in it]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyCaptionWarning)
        k = TagRankKernel(progress=False).fit(train)
        om, omp = k.omega_, k.omega_prime_
        got = k.gram(train)
        want = np.array([[literal_item_kernel(a, b, caps, om, omp) for b in train]
                         for a in train])
        np.testing.assert_allclose(got, want, atol=1e-12)
        got_t = k.gram(test)
        want_t = np.array([[literal_item_kernel([a], b, caps, om, omp) for b in train]
                           for a in test])
        np.testing.assert_allclose(got_t, want_t, atol=1e-12)
        np.testing.assert_allclose(k.diag(train), np.diag(want), atol=1e-12)
        np.testing.assert_allclose(k.gram_columns([6, 0]), want[:, [6, 0]], atol=1e-12)
        tt = k.gram(test, test)
    assert np.linalg.eigvalsh(got).min() > -1e-10
    assert np.linalg.eigvalsh(tt).min() > -1e-10
    np.testing.assert_allclose(np.diag(tt), 1.0)  # one-caption items
    assert np.diag(got)[0] < 1  # a multi-caption item's self-kernel is below 1


def test_omega_is_mean_chi2_of_training_pairs():
    """Two training sentences: every sampled pair is (s0, s1), so Omega = chi2(s0, s1)."""
    s0, s1 = ["dog", "run", "beach"], ["run", "dog"]
    k = TagRankKernel(n_pairs=50, progress=False).fit([[s0], [s1]])
    r0, a0 = literal_vectors(s0, [s0, s1])
    r1, a1 = literal_vectors(s1, [s0, s1])
    assert k.omega_ == pytest.approx(literal_chi2(r0, r1))
    assert k.omega_prime_ == pytest.approx(literal_chi2(a0, a1))


def test_omega_sample_is_seeded(data):
    train, _ = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyCaptionWarning)
        a = TagRankKernel(n_pairs=30, random_state=1, progress=False).fit(train)
        b = TagRankKernel(n_pairs=30, random_state=1, progress=False).fit(train)
        c = TagRankKernel(n_pairs=30, random_state=2, progress=False).fit(train)
    assert (a.omega_, a.omega_prime_) == (b.omega_, b.omega_prime_)
    assert (a.omega_, a.omega_prime_) != (c.omega_, c.omega_prime_)


def test_rank_vectors_worked_example():
    train = [[["dog", "run"], ["run", "dog"], ["dog", "beach", "dog"]]]
    k = TagRankKernel(progress=False).fit(train)
    r, a = k.rank_vectors(["dog", "run", "dog"])
    assert a["dog"] == pytest.approx(1 / math.log2(1 + 2))  # mean position (1 + 3) / 2
    assert a["run"] == pytest.approx(1 / math.log2(3))
    # dog stands at positions 1, 2, 1, 3 in training: 3 of 4 occurrences at <= 2
    assert r["dog"] == pytest.approx(1 - 3 / 4)
    assert r["run"] == pytest.approx(1 - 2 / 2)
    assert k.rank_vectors(["zebra"])[0] == {"zebra": 0.0}  # unseen: no evidence


def test_empty_caption_literal_value_and_registry(data):
    train, _ = data
    with pytest.warns(EmptyCaptionWarning):
        k = TagRankKernel(progress=False).fit(train)
    with pytest.warns(EmptyCaptionWarning):
        g = k.gram([[], []], [[], ["dog"]])
    assert g[0, 0] == 1.0 and g[1, 0] == 1.0  # two zero vectors: chi2 = 0
    r, a = k.rank_vectors(["dog"])
    want = 0.5 * (math.exp(-sum(r.values()) / (2 * k.omega_))
                  + math.exp(-sum(a.values()) / (2 * k.omega_prime_)))
    assert g[0, 1] == pytest.approx(want)
    assert isinstance(make_kernel("tagrank"), TagRankKernel)
    with pytest.raises(ValueError, match="two training captions"):
        TagRankKernel().fit([[["dog"]]])
