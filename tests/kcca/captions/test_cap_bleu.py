"""BLEU: hand-worked values (pycocoevalcap 1.2 constants), closest-length ties, the
vectorised counts against the obvious loops, and Ellebracht et al. (2015) Figure 1."""

import math
import random

import numpy as np
import pytest

from kcca.captions import Bleu, sentence_bleu
from kcca.captions._bleu import bleu_from_stats, corpus_stats, sentence_stats

REFS = ["the cat sat on the mat", "a cat is on the mat"]
CAND = "the cat on the mat"


def test_hand_worked_sentence():
    # unigram 5/5, bigram 3/4 (the cat, on the, the mat), trigram 1/3 (on the mat), 4-gram 0/2;
    # closest reference length 6 > 5 words: brevity penalty exp(1 - 6/5)
    corpus, per_item = Bleu().compute_score({1: REFS}, {1: [CAND]})
    bp = math.exp(1 - 6 / 5)
    expected = [bp * 1.0, bp * math.sqrt(0.75), bp * (0.75 / 3) ** (1 / 3),
                bp * (0.75 / 3 * 1e-15 / 2) ** 0.25]  # tiny = 1e-15 keeps BLEU-4 above 0
    assert per_item.shape == (4, 1)
    np.testing.assert_allclose(per_item[:, 0], expected, rtol=1e-8)
    np.testing.assert_allclose(corpus, expected, rtol=1e-8)
    assert 0 < per_item[3, 0] < 1e-3


def test_closest_reference_length_ties_go_to_shorter():
    # lengths 4 and 6 are both 1 away from 5: the shorter (4) is used, so no penalty
    corpus, per_item = Bleu(n=1).compute_score({"x": ["a b c d", "a b c d e f"]},
                                               {"x": "a b c d x"})
    assert per_item[0, 0] == pytest.approx(0.8, rel=1e-8)
    # with only the longer reference the penalty applies
    _, p2 = Bleu(n=1).compute_score({"x": ["a b c d e f"]}, {"x": "a b c d x"})
    assert p2[0, 0] == pytest.approx(0.8 * math.exp(1 - 6 / 5), rel=1e-8)


def test_corpus_level_pools_counts_before_the_geometric_mean():
    refs = {1: ["a b c d"], 2: ["e f g h"]}
    cands = {1: "a b c d", 2: "e x g y"}
    corpus, per_item = Bleu(n=2).compute_score(refs, cands)
    # pooled: unigrams 4 + 2 of 8, bigrams 3 + 0 of 6, equal lengths (no penalty)
    assert corpus[0] == pytest.approx(6 / 8, rel=1e-8)
    assert corpus[1] == pytest.approx(math.sqrt(6 / 8 * 3 / 6), rel=1e-8)
    assert per_item[0, 0] == pytest.approx(1.0, rel=1e-8)
    assert per_item[0, 1] == pytest.approx(0.5, rel=1e-8)


@pytest.mark.parametrize("n", [4, 24])  # 7^24 > 2^62: n-gram keys of a Python dictionary
def test_vectorised_counts_equal_the_loops(n):
    rng = random.Random(3)
    vocab = "a b c d e f".split()
    refs = [
        [[rng.choice(vocab) for _ in range(rng.randint(0, 9))] for _ in range(rng.randint(1, 5))]
        for _ in range(60)
    ]
    cands = [[rng.choice(vocab) for _ in range(rng.randint(0, 9))] for _ in range(60)]
    testlen, reflen, guess, correct = corpus_stats(refs, cands, n)
    for i in range(60):
        t, r, g, c = sentence_stats(refs[i], cands[i], n)
        assert (t, r, list(g), list(c)) == (testlen[i], reflen[i], list(guess[i]), list(correct[i]))
    _, per_item = Bleu(n).score_tokens(refs, cands)
    slow = np.array([bleu_from_stats(*sentence_stats(r, c, n)) for r, c in zip(refs, cands)]).T
    np.testing.assert_allclose(per_item, slow, rtol=1e-12, atol=1e-300)


def _prep(s):
    s = s.lower()
    return (s[:-1] if s.endswith(".") else s).split()


def test_ellebracht_figure_1_with_nist_smoothing():
    ref = [_prep("A man sliding down a huge sand dune on a sunny day")]
    sa = sentence_bleu(ref, _prep("A man slides during the day on a dune."), smoothing="nist")
    sb = sentence_bleu(ref, _prep("A dinosaur eats huge sand and remembers a sunny day."),
                       smoothing="nist")
    np.testing.assert_allclose(sa, [0.47, 0.29, 0.16, 0.11], atol=0.01)
    np.testing.assert_allclose(sb, [0.49, 0.36, 0.23, 0.17], atol=0.01)
    # by hand for SA: BP = exp(1 - 12/9), p = 6/9, 2/8, then 1/(2*7), 1/(4*6) (zero counts)
    bp = math.exp(1 - 12 / 9)
    assert sa[3] == pytest.approx(bp * (6 / 9 * 2 / 8 / 14 / 24) ** 0.25, rel=1e-12)
    # without smoothing the 3- and 4-gram scores collapse: the smoothing is what matters
    plain = sentence_bleu(ref, _prep("A man slides during the day on a dune."), smoothing="none")
    assert plain[2] < 1e-3 and plain[3] < 1e-3
    # the scorer offers the same option
    _, per_item = Bleu(smoothing="nist").compute_score(
        {0: [" ".join(ref[0])]}, {0: "a man slides during the day on a dune"})
    np.testing.assert_allclose(per_item[:, 0], sa, rtol=1e-12)


def test_bad_options():
    with pytest.raises(ValueError, match="smoothing"):
        Bleu(smoothing="add-one")
    with pytest.raises(ValueError):
        Bleu(n=0)
