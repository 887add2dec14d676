"""Alignment similarity (eq. 25): vectorised IBM Model 1-2 EM against slow literal EM and NLTK."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from features.text._similarity_alignment import (AlignmentSimilarity, IBMAligner, PosStatistics,
                                                caption_pairs)

# word ids 0..5: 0 biker 1 cyclist 2 bike 3 road 4 dog 5 ball
PAIRS = [([0, 2], [1, 2]), ([1, 2], [0, 2]), ([0, 3], [1, 3, 2]), ([4, 5], [4, 5]),
         ([4], [4, 5]), ([1, 3, 2], [0, 2]), ([2, 2, 3], [3]), ([5, 4, 0], [4, 1])]
V = 6


def literal_em(pairs, n_words, it1, it2):
    """IBM Model 1 then 2 by the textbook loops (source position 0 is NULL)."""
    t = defaultdict(lambda: 1.0 / n_words)  # t[(f, e)], e = None for NULL
    a = {}
    for it in range(it1 + it2):
        model2 = it >= it1
        if model2 and not a:
            for s, f_sent in pairs:
                l, m = len(s), len(f_sent)
                for j in range(1, m + 1):
                    for i in range(l + 1):
                        a[(i, j, l, m)] = 1.0 / (l + 1)
        count = defaultdict(float)
        total = defaultdict(float)
        ca = defaultdict(float)
        ta = defaultdict(float)
        for s, f_sent in pairs:
            e_sent = [None] + list(s)
            l, m = len(s), len(f_sent)
            for j, f in enumerate(f_sent, start=1):
                ws = [t[(f, e)] * (a[(i, j, l, m)] if model2 else 1.0)
                      for i, e in enumerate(e_sent)]
                z = sum(ws)
                for i, (e, w) in enumerate(zip(e_sent, ws)):
                    count[(f, e)] += w / z
                    total[e] += w / z
                    ca[(i, j, l, m)] += w / z
                    ta[(j, l, m)] += w / z
        t = defaultdict(float, {(f, e): c / total[e] for (f, e), c in count.items()})
        if model2:
            a = {(i, j, l, m): c / ta[(j, l, m)] for (i, j, l, m), c in ca.items()}
    table = np.zeros((n_words + 1, n_words))
    for (f, e), v in t.items():
        table[0 if e is None else e + 1, f] = v
    return table, a


@pytest.mark.parametrize("it1,it2", [(1, 0), (5, 0), (3, 4), (5, 5)])
def test_vectorised_em_matches_literal(it1, it2):
    got = IBMAligner(it1, it2).fit(PAIRS, V)
    want, a = literal_em(PAIRS, V, it1, it2)
    np.testing.assert_allclose(got.translation_, want, atol=1e-12)
    np.testing.assert_allclose(got.translation_.sum(axis=1), 1.0)
    if it2:
        L1 = got.max_len_ + 1
        for (i, j, l, m), v in a.items():
            assert got.alignment_[((l * L1 + m) * L1 + j) * L1 + i] == pytest.approx(v, abs=1e-12)


def test_model1_matches_nltk():
    from nltk.translate import AlignedSent, IBMModel1

    names = ["biker", "cyclist", "bike", "road", "dog", "ball"]
    bitext = [AlignedSent([names[k] for k in tgt], [names[k] for k in src]) for src, tgt in PAIRS]
    ref = IBMModel1(bitext, 4)
    got = IBMAligner(4, 0).fit(PAIRS, V)
    # NLTK leaves never co-occurring pairs at their initial value: compare the others
    seen = {(f, e) for src, tgt in PAIRS for f in tgt for e in src}
    assert len(seen) > 15
    for f, e in seen:
        want = ref.translation_table[names[f]][names[e]]
        assert got.translation_[e + 1, f] == pytest.approx(want, abs=1e-9), (names[f], names[e])
    for f in range(V):
        assert got.translation_[0, f] == pytest.approx(ref.translation_table[names[f]][None],
                                                       abs=1e-9)
        assert all(got.translation_[e + 1, f] == 0 for e in range(V) if (f, e) not in seen)


def test_log_likelihood_never_decreases():
    rng = np.random.default_rng(1)
    def sentence():
        return list(rng.integers(0, 12, rng.integers(1, 6)))

    pairs = [(sentence(), sentence()) for _ in range(200)]
    ll = IBMAligner(6, 6).fit(pairs, 12).log_likelihood_
    assert len(ll) == 12
    assert all(b >= a - 1e-6 for a, b in zip(ll[:6], ll[1:6]))      # Model 1
    assert all(b >= a - 1e-6 for a, b in zip(ll[7:], ll[8:]))        # Model 2


def test_caption_pairs_are_ordered_and_skip_empty():
    five = [[1], [2], [3], [4], [5]]
    assert len(caption_pairs([five])) == 20
    pairs = caption_pairs([[[1], [], [3]], [[7, 8]]])
    assert pairs == [([1], [3]), ([3], [1])]


def test_pos_vocabulary_thresholds():
    caps = ([[("dog", "NOUN")]] * 5 + [[("run", "VERB")]] * 25 + [[("run", "NOUN")]] * 60
            + [[("cat", "NOUN")]] * 4 + [[("surf", "NOUN")]] * 5 + [[("surf", "VERB")]] * 6)
    st = PosStatistics.count(caps)
    assert st.nouns() == ["dog", "run"]         # run: 60 of 85 nouns; surf: 5 of 11 < 50%; cat: 4
    assert st.verbs() == ["run"]                # run: 25 verbs, 29% >= 25%; surf: only 6
    assert st.fraction("run", "VERB") == pytest.approx(25 / 85)
    assert st.fraction("run", "NOUN") == pytest.approx(60 / 85)
    assert st.fraction("unseen", "NOUN") == 0.0


def synthetic_groups(seed=0):
    """Images described with interchangeable words: biker/cyclist, dog/puppy; ride/pedal."""
    rng = np.random.default_rng(seed)
    groups = []
    for _ in range(120):
        kind = rng.integers(2)
        caps = []
        for _ in range(5):
            if kind == 0:
                who = ["biker", "cyclist"][rng.integers(2)]
                verb = ["ride", "pedal"][rng.integers(2)]
                caps.append([(who, "NOUN"), (verb, "VERB"), ("road", "NOUN")])
            else:
                who = ["dog", "puppy"][rng.integers(2)]
                caps.append([(who, "NOUN"), ("run", "VERB"), ("grass", "NOUN")])
        groups.append(caps)
    return groups


def test_alignment_vectors_are_eq25():
    groups = synthetic_groups()
    sim = AlignmentSimilarity(verb_min_count=5).fit(groups)
    assert set(sim.nouns_) == {"biker", "cyclist", "road", "dog", "puppy", "grass"}
    assert set(sim.verbs_) == {"ride", "pedal", "run"}
    vocab = sim.vocabulary_
    tn = sim.noun_aligner_.translation_matrix()
    tv = sim.verb_aligner_.translation_matrix()
    for a, w in enumerate(vocab):
        pn, pv = sim.stats_.fraction(w, "NOUN"), sim.stats_.fraction(w, "VERB")
        for b, _ in enumerate(vocab):
            want = ((tn[a, b] * pn if w in sim.nouns_ else 0.0)
                    + (tv[a, b] * pv if w in sim.verbs_ else 0.0))
            assert sim.vectors_[a, b] == pytest.approx(want, abs=1e-12)
    k = sim.word_kernel()
    assert k.similarity("biker", "cyclist") > 0.9
    assert k.similarity("ride", "pedal") > 0.9
    assert k.similarity("biker", "dog") < 0.1
    assert k.similarity("biker", "ride") == 0.0   # nouns and verbs never align
    assert np.linalg.eigvalsh(k.matrix).min() > -1e-9
