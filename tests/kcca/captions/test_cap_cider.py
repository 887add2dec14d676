"""CIDEr-D and plain CIDEr: hand-worked values, clipping, length penalty, vectorised vs loops."""

import math
import random

import numpy as np
import pytest

from kcca.captions import Cider, CiderD
from tests.support.caption_oracles import cider_d_reference, cider_reference


def test_hand_worked_unigram_cider_d():
    # two images; every n-gram has df 1 (or 0 for "f": guarded to 1) -> idf = log 2 = L.
    # A: cand (a, b): ref "a b" cosine 1, ref "a c" 0.5 -> 10 * (1 + 0.5) / 2 = 7.5
    # B: cand (d, f) vs "d e": 0.5 -> 5.0
    refs = {"A": ["a b", "a c"], "B": ["d e"]}
    cands = {"A": "a b", "B": "d f"}
    corpus, per_item = CiderD(n=1).compute_score(refs, cands)
    np.testing.assert_allclose(per_item, [7.5, 5.0], rtol=1e-12)
    assert corpus == pytest.approx(6.25)


def test_clipping_of_repeated_words():
    # cand (a, a, b) vs ref (a, b): clipped numerator min(2L, L) L + L L = 2 L^2, norms
    # sqrt(5) L and sqrt(2) L -> 10 * 2 / sqrt(10); without clipping it would be 3 / sqrt(10)
    _, per_item = CiderD(n=1).compute_score({1: ["a b"], 2: ["c d"]}, {1: "a a b", 2: "c d"})
    assert per_item[0] == pytest.approx(10 * 2 / math.sqrt(10), rel=1e-12)


def test_gaussian_length_penalty_sigma_6():
    refs = {1: ["a b c d e"], 2: ["x y"]}
    cands = {1: "a b c", 2: "x y"}
    _, with_penalty = CiderD().compute_score(refs, cands)
    _, no_penalty = CiderD(sigma=1e9).compute_score(refs, cands)
    # 3 words vs 5 words: delta 2 -> exp(-4 / (2 * 36))
    assert with_penalty[0] / no_penalty[0] == pytest.approx(math.exp(-4 / 72), rel=1e-12)
    # a two-word caption has no 3- and 4-grams: those orders add 0, (1 + 1 + 0 + 0) / 4 * 10
    assert with_penalty[1] == pytest.approx(5.0)


def test_identical_captions_give_10_as_the_original_code_and_1_on_the_equations_scale():
    refs = {1: ["a b c d"], 2: ["e f g h"]}
    cands = {1: "a b c d", 2: "e f g h"}
    np.testing.assert_allclose(CiderD().compute_score(refs, cands)[1], [10, 10], rtol=1e-12)
    np.testing.assert_allclose(Cider().compute_score(refs, cands)[1], [10, 10], rtol=1e-12)
    np.testing.assert_allclose(Cider(scale=1).compute_score(refs, cands)[1], [1, 1], rtol=1e-12)


def test_ngram_in_every_image_has_zero_idf():
    # "a" is in the references of both images: idf 0, it adds nothing
    refs = {1: ["a b"], 2: ["a c"]}
    _, per_item = CiderD(n=1).compute_score(refs, {1: "a", 2: "a"})
    assert per_item.tolist() == [0.0, 0.0]


def _random_inputs(seed, n_items=50):
    rng = random.Random(seed)
    vocab = "a b c d e f g".split()
    refs = [[[rng.choice(vocab) for _ in range(rng.randint(0, 10))]
             for _ in range(rng.randint(1, 5))] for _ in range(n_items)]
    cands = [[rng.choice(vocab) for _ in range(rng.randint(0, 10))] for _ in range(n_items)]
    return refs, cands


@pytest.mark.parametrize("seed", [0, 1])
def test_vectorised_equals_loops(seed):
    refs, cands = _random_inputs(seed)
    np.testing.assert_allclose(CiderD().score_tokens(refs, cands)[1],
                               cider_d_reference(refs, cands), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(Cider(scale=1).score_tokens(refs, cands)[1],
                               cider_reference(refs, cands), rtol=1e-10, atol=1e-12)
