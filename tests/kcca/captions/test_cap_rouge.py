"""ROUGE-L: hand-worked value with maxima taken separately, bit-parallel LCS vs the DP."""

import random

import pytest

from kcca.captions import RougeL
from kcca.captions._rouge import lcs_length_bits, match_masks
from tests.support.caption_oracles import lcs_length_dp


def test_lcs_bit_parallel_equals_dynamic_programming():
    rng = random.Random(0)
    for _ in range(500):
        a = [rng.choice("abcd") for _ in range(rng.randint(0, 70))]
        b = [rng.choice("abcde") for _ in range(rng.randint(0, 70))]
        assert lcs_length_bits(match_masks(a), len(a), b) == lcs_length_dp(a, b)
    assert lcs_length_dp("abcbdab", "bdcaba") == 4


def test_hand_worked_precision_and_recall_maxima_from_different_references():
    # LCS with "a b x d e" = 3 (a b d): P = 3/4, R = 3/5; with "b c" = 2: P = 2/4, R = 2/2.
    # P_max = 3/4 and R_max = 1 come from different references (eq. 5-6).
    corpus, per_item = RougeL().compute_score({7: ["a b x d e", "b c"]}, {7: "a b c d"})
    p, r, b2 = 0.75, 1.0, 1.2 ** 2
    assert per_item[0] == pytest.approx((1 + b2) * p * r / (r + b2 * p), rel=1e-12)
    assert corpus == pytest.approx(per_item[0])


def test_no_overlap_scores_zero_and_corpus_is_the_mean():
    corpus, per_item = RougeL().compute_score({1: ["x y"], 2: ["a b"]}, {1: "a b", 2: "a b"})
    assert per_item.tolist() == [0.0, 1.0]
    assert corpus == 0.5


def test_beta_must_be_positive():
    with pytest.raises(ValueError):
        RougeL(beta=0)
