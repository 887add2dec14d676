"""Borda count (Section 4.1.3) and its tie-breaks on hand-worked examples."""

from __future__ import annotations

import numpy as np
import pytest

from kcca._borda import borda_aggregate, borda_from_scores


def test_hand_worked_points():
    # N = 4; points N - r. c0: 4+3+2 = 9, c1: 3+4+3 = 10, c2: 2+1+4 = 7, c3: 1+2+1 = 4
    rankings = [[0, 1, 2, 3], [1, 0, 3, 2], [2, 1, 0, 3]]
    res = borda_aggregate(rankings)
    np.testing.assert_array_equal(res.points, [[9, 10, 7, 4]])
    np.testing.assert_array_equal(res.ranking, [[1, 0, 2, 3]])


def test_tie_broken_by_median_position_before_index():
    # c1 positions (0, 0, 2): 7 points, median 0; c0 positions (1, 1, 0): 7 points, median 1
    rankings = [[1, 0, 2], [1, 0, 2], [0, 2, 1]]
    res = borda_aggregate(rankings)
    np.testing.assert_array_equal(res.points, [[7, 7, 4]])
    np.testing.assert_array_equal(res.median_position, [[1, 0, 2]])  # c2: (2, 2, 1)
    np.testing.assert_array_equal(res.ranking, [[1, 0, 2]])


def test_full_tie_broken_by_index():
    # a Latin square: every candidate at every position once -> same points, median, mean
    rankings = [[2, 0, 1], [1, 2, 0], [0, 1, 2]]
    np.testing.assert_array_equal(borda_aggregate(rankings).ranking, [[0, 1, 2]])


def test_many_queries_and_single_model_identity():
    rng = np.random.default_rng(0)
    r = np.stack([rng.permutation(6) for _ in range(4)])  # one model, 4 queries
    np.testing.assert_array_equal(borda_aggregate(r[None]).ranking, r)
    scores = [np.array([[0.9, 0.1, 0.5]]), np.array([[0.2, 0.8, 0.3]]), np.array([[0.7, 0.6, 0.1]])]
    # rankings [0,2,1], [1,2,0], [0,1,2]: points c0 3+1+3 = 7, c1 1+3+2 = 6, c2 2+2+1 = 5
    np.testing.assert_array_equal(borda_from_scores(scores).ranking, [[0, 1, 2]])


def test_bad_rankings():
    with pytest.raises(ValueError, match="not a permutation"):
        borda_aggregate([[0, 0, 1]])
    with pytest.raises(ValueError, match="integer"):
        borda_aggregate([[0.0, 1.0]])
    with pytest.raises(ValueError, match="model 1, query 0 is not a permutation of 0..2"):
        borda_aggregate([[0, 1, 2], [0, 1, 3]])
    with pytest.raises(ValueError, match="model 0, query 1"):
        borda_aggregate([[[0, 1, 2], [2, -1, 0]]])


def _lexsort_reference(r: np.ndarray) -> np.ndarray:
    """The tie rules read literally: points, then median, then mean position, then index."""
    M, Q, N = r.shape
    pos = np.argsort(r, axis=2)  # the inverse permutation: position of each candidate
    points = (N - pos).sum(0)
    cand = np.broadcast_to(np.arange(N), (Q, N))
    return np.lexsort((cand, pos.mean(0), np.median(pos, 0), -points), axis=-1)


@pytest.mark.parametrize("seed", range(5))
def test_tie_heavy_scores_match_the_literal_rules(seed):
    """Scores from {0, 1, 2}: many equal scores (stable ranks by index) and many equal points
    (median, then index) at once; both faster paths give the literal rules' order."""
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 3, size=(int(rng.integers(1, 16)), 7, 6)).astype(float)
    ranks = np.stack([np.argsort(-s, axis=1, kind="stable") for s in scores])
    res = borda_from_scores(list(scores))
    np.testing.assert_array_equal(res.ranking, _lexsort_reference(ranks))
    np.testing.assert_array_equal(borda_aggregate(ranks).ranking, res.ranking)
