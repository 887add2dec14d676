"""Rankings for Borda, ranks of the original item as model selection reads them, cosine scores.

Model selection and evaluation share one implementation (``kcca._evaluate.original``), so the
dev ranks that pick models follow the evaluation's tie rule: a tie never favours the gold item.
"""

from __future__ import annotations

import numpy as np
import pytest

from kcca._evaluate.original import median_rank
from kcca._evaluate.original import original_ranks as ranks_from_rankings
from kcca._evaluate.original import original_ranks_from_scores as original_ranks
from kcca._evaluate.original import rank_candidates, rankings_from_scores, recall_at_k
from kcca._scoring import annotation_scores, cosine_scores, prefix_cosine_scores, search_scores


def test_rank_candidates_breaks_ties_by_index():
    scores = np.array([[0.5, 0.9, 0.5, 0.1], [0.0, 0.0, 0.0, 1.0]])
    np.testing.assert_array_equal(rank_candidates(scores), [[1, 0, 2, 3], [3, 0, 1, 2]])


def test_original_ranks_hand_worked():
    scores = np.array([[0.5, 0.9, 0.5, 0.1],
                       [0.2, 0.3, 0.4, 0.1],
                       [0.3, 0.3, 0.3, 0.3],
                       [0.0, 0.1, 0.2, 0.05]])
    # gold = diagonal: q0 -> cand 0 (behind 1, tied with 2, which goes ahead): 3; q1 -> cand 1
    # (behind 2): 2; q2 -> cand 2 of a four-way tie, all others ahead: 4; q3 -> cand 3: 3
    np.testing.assert_array_equal(original_ranks(scores), [3, 2, 4, 3])
    np.testing.assert_array_equal(original_ranks(scores, gold=np.array([2, 0, 0, 0])), [3, 3, 4, 4])
    np.testing.assert_array_equal(ranks_from_rankings(rankings_from_scores(scores)),
                                  original_ranks(scores))


def test_recall_and_median():
    ranks = np.array([1, 2, 3, 10])
    r1, r5 = recall_at_k(ranks, 1), recall_at_k(ranks, 5)
    assert r1.aggregate == 25.0 and r5.aggregate == 75.0  # percent, as the paper prints
    np.testing.assert_array_equal(r5.values, [1, 1, 1, 0])
    med = median_rank(ranks)
    assert med.aggregate == 2.5  # mean of the two middle values
    np.testing.assert_array_equal(med.values, ranks)


def test_bad_input():
    with pytest.raises(ValueError, match="NaN"):
        original_ranks(np.array([[np.nan, 1.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="square"):
        original_ranks(np.ones((2, 3)))
    with pytest.raises(ValueError, match="gold"):
        original_ranks(np.ones((2, 3)), gold=np.array([0, 3]))
    with pytest.raises(ValueError, match="k must"):
        recall_at_k(np.array([1, 2]), 0)
    with pytest.raises(ValueError, match="zero queries"):
        median_rank(np.array([]))


def test_cosine_scores_eq4_and_zero_vectors():
    img = np.array([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]])
    cap = np.array([[3.0, 3.0], [0.0, -1.0]])
    s = 1 / np.sqrt(2)
    expected = np.array([[s, 0.0], [s, -1.0], [0.0, 0.0]])
    np.testing.assert_allclose(annotation_scores(img, cap), expected)
    np.testing.assert_allclose(search_scores(img, cap), expected.T)
    with pytest.raises(ValueError, match="same number of components"):
        cosine_scores(img, np.ones((2, 3)))


def test_prefix_cosine_equals_truncated_cosine():
    rng = np.random.default_rng(0)
    q, c = rng.normal(size=(7, 12)), rng.normal(size=(5, 12))
    for n, scores in prefix_cosine_scores(q, c, [12, 3, 1, 7]):
        np.testing.assert_allclose(scores, cosine_scores(q[:, :n], c[:, :n]), atol=1e-12)
