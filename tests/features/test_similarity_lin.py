"""Lin similarity (eq. 22-23) against literal implementations and NLTK's lin_similarity."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest

SENTS = [
    ["dog", "run", "beach", "poodle"],
    ["dog", "catch", "ball", "quickly"],
    ["cat", "sleep", "sofa", "dog"],
    ["poodle", "dachshund", "beach"],
    ["man", "ride", "horse", "beach", "dog"],
    ["woman", "ride", "bicycle", "cyclist", "rider"],
    ["rider", "horse", "jockey", "dog"],
]


@pytest.fixture(scope="module")
def wn(nltk_data_dir):
    from features.text._resources import wordnet

    return wordnet()


def ancestors(s):
    return set(s.closure(lambda x: x.hypernyms() + x.instance_hypernyms()))


def literal_probability(sentences, wn):
    """P(s) by brute force: for each synset, the fraction of tokens whose first noun sense is it
    or one of its descendants (eq. 22's P)."""
    tokens = [w for s in sentences for w in s]
    sense = {w: (wn.synsets(w, "n") or [None])[0] for w in set(tokens)}
    universe = set()
    for s in sense.values():
        if s is not None:
            universe |= {s} | ancestors(s)
    p = {}
    for syn in universe:
        hits = sum(1 for w in tokens if sense[w] is not None
                   and (sense[w] == syn or syn in ancestors(sense[w])))
        p[syn] = hits / len(tokens)
    return sense, p


def literal_vectors(words, sense, p):
    """Eq. 23 as dictionaries over synsets."""
    vecs = {}
    for w in words:
        s = sense.get(w)
        v = {}
        if s is not None and p.get(s, 0) > 0:
            v[s] = 1.0
            for h in ancestors(s):
                v[h] = 2 * math.log(p[h]) / (math.log(p[s]) + math.log(p[h]))
        vecs[w] = v
    return vecs


def dict_cosine(a, b):
    na = math.sqrt(sum(x * x for x in a.values()))
    nb = math.sqrt(sum(x * x for x in b.values()))
    if na == 0 or nb == 0:
        return 0.0
    return sum(a[k] * b.get(k, 0.0) for k in a) / (na * nb)


def test_vectors_and_kernel_match_literal_eq23(wn):
    from features.text._similarity_lin import LinSimilarity

    lin = LinSimilarity(min_count=1).fit(SENTS)
    sense, p = literal_probability(SENTS, wn)
    for s, prob in p.items():
        assert lin.probability_[s.name()] == pytest.approx(prob, rel=1e-12)
    vecs = literal_vectors(lin.vocabulary_, sense, p)
    dense = lin.vectors_.toarray()
    col = {name: j for j, name in enumerate(lin.synsets_)}
    for i, w in enumerate(lin.vocabulary_):
        expected = np.zeros(len(col))
        for s, v in vecs[w].items():
            if v != 0:
                expected[col[s.name()]] = v
        np.testing.assert_allclose(dense[i], expected, atol=1e-12)
    k = lin.word_kernel()
    for a in lin.vocabulary_:
        for b in lin.vocabulary_:
            want = 1.0 if a == b else dict_cosine(vecs[a], vecs[b])
            assert k.similarity(a, b) == pytest.approx(want, abs=1e-10), (a, b)


def test_components_are_nltk_lin_similarity_and_at_most_one(wn):
    """An ancestor is its own LCS with s_w, so eq. 23's component equals NLTK's Lin similarity
    computed with the same counts (probabilities, not raw counts: all values <= 1)."""
    from features.text._similarity_lin import LinSimilarity

    lin = LinSimilarity(min_count=1).fit(SENTS)
    total = sum(map(len, SENTS))
    ic = {"n": defaultdict(float), "v": defaultdict(float)}
    ic["n"][0] = ic["v"][0] = float(total)
    for name, prob in lin.probability_.items():
        ic["n"][wn.synset(name).offset()] = prob * total
    dense = lin.vectors_.toarray()
    assert dense.max() <= 1.0 + 1e-12
    checked = 0
    for i, w in enumerate(lin.vocabulary_):
        sw = lin.sense_[w]
        if sw is None:
            continue
        for j in np.flatnonzero(dense[i]):
            si = lin.synsets_[j]
            want = wn.synset(sw).lin_similarity(wn.synset(si), ic)
            assert dense[i, j] == pytest.approx(want, abs=1e-9), (w, si)
            checked += 1
    assert checked > 20
    # eq. 22 between two words (LCS not one of them) also agrees with NLTK
    for a, b in [("dog", "cat"), ("poodle", "dachshund"), ("rider", "cyclist"), ("man", "horse")]:
        want = wn.synset(lin.word_sense_[a]).lin_similarity(wn.synset(lin.word_sense_[b]), ic)
        assert lin.similarity(a, b) == pytest.approx(want, abs=1e-9)


def test_identity_without_noun_sense_or_count(wn):
    from features.text._similarity_lin import LinSimilarity

    lin = LinSimilarity(vocabulary=["dog", "quickly", "poodle", "zebra"]).fit(SENTS)
    k = lin.word_kernel()
    assert lin.sense_["quickly"] is None          # no noun sense
    assert k.similarity("quickly", "dog") == 0.0 and k.similarity("quickly", "quickly") == 1.0
    assert k.similarity("zebra", "dog") == 0.0    # has a noun sense but count 0 in training
    assert k.similarity("dog", "poodle") > 0.5
    assert lin.vectors_[lin.vocabulary_.index("zebra")].nnz == 0


def test_kernel_psd_and_total_option(wn):
    from features.text._similarity_lin import LinSimilarity

    for total in ("tokens", "mapped"):
        k = LinSimilarity(min_count=1, total=total).fit(SENTS).word_kernel()
        assert np.linalg.eigvalsh(k.matrix).min() > -1e-9
    with pytest.raises(ValueError, match="total"):
        LinSimilarity(total="counts").fit(SENTS)
