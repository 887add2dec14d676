"""Borda count (L360) and its tie-breaks on hand-worked examples."""

from __future__ import annotations

import numpy as np
import pytest

from kcca.borda import borda_aggregate, borda_from_scores


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
