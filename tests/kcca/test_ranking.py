"""Rankings, ranks of the original item, R@k and median rank on hand-worked examples."""

from __future__ import annotations

import numpy as np
import pytest

from kcca.ranking import (
    median_rank,
    original_ranks,
    rank_candidates,
    ranks_from_rankings,
    recall_at_k,
)
from kcca.scoring import annotation_scores, cosine_scores, prefix_cosine_scores, search_scores


def test_rank_candidates_breaks_ties_by_index():
    scores = np.array([[0.5, 0.9, 0.5, 0.1], [0.0, 0.0, 0.0, 1.0]])
    np.testing.assert_array_equal(rank_candidates(scores), [[1, 0, 2, 3], [3, 0, 1, 2]])


def test_original_ranks_hand_worked():
    scores = np.array([[0.5, 0.9, 0.5, 0.1],
                       [0.2, 0.3, 0.4, 0.1],
                       [0.3, 0.3, 0.3, 0.3],
                       [0.0, 0.1, 0.2, 0.05]])
    # gold = diagonal: q0 -> cand 0 (behind 1): 2; q1 -> cand 1 (behind 2): 2; q2 -> cand 2 of a
    # four-way tie, after 0 and 1: 3; q3 -> cand 3 (behind 2 and 1): 3
    np.testing.assert_array_equal(original_ranks(scores), [2, 2, 3, 3])
    np.testing.assert_array_equal(original_ranks(scores, gold=np.array([2, 0, 0, 0])), [3, 3, 1, 4])
    np.testing.assert_array_equal(ranks_from_rankings(rank_candidates(scores)), original_ranks(scores))


def test_recall_and_median():
    ranks = np.array([1, 2, 3, 10])
    r1, r5 = recall_at_k(ranks, 1), recall_at_k(ranks, 5)
    assert r1.value == 0.25 and r5.value == 0.75
    np.testing.assert_array_equal(r5.per_query, [1, 1, 1, 0])
    med = median_rank(ranks)
    assert med.value == 2.5  # mean of the two middle values
    np.testing.assert_array_equal(med.per_query, ranks)


def test_bad_input():
    with pytest.raises(ValueError, match="NaN"):
        original_ranks(np.array([[np.nan, 1.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="square"):
        original_ranks(np.ones((2, 3)))
    with pytest.raises(ValueError, match="gold"):
        original_ranks(np.ones((2, 3)), gold=np.array([0, 3]))
    with pytest.raises(ValueError, match="k must"):
        recall_at_k([1, 2], 0)
    with pytest.raises(ValueError, match="ranks"):
        median_rank([0, 1])


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
