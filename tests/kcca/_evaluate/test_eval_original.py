"""R@k, median rank and the tie rule (Section 4.3.1), on hand-worked examples."""

import numpy as np
import pytest

from kcca.data._errors import DataError
from kcca._evaluate.original import (
    median_rank,
    original_item_metrics,
    original_ranks,
    original_ranks_from_scores,
    rankings_from_scores,
    recall_at_k,
    validate_rankings,
)


def test_ranks_hand_worked():
    # query 0: gold 0 scored best -> rank 1; query 1: gold 1 third -> rank 3;
    # query 2: gold 2 second -> rank 2
    scores = np.array([[0.9, 0.1, 0.5],
                       [0.8, 0.2, 0.7],
                       [0.1, 0.6, 0.9]])
    # query 2: 0.9 (cand 2) is the gold; cand 1 0.6 lower -> rank 1
    assert original_ranks_from_scores(scores).tolist() == [1, 3, 1]
    r = rankings_from_scores(scores)
    assert r.tolist() == [[0, 2, 1], [0, 2, 1], [2, 1, 0]]
    assert original_ranks(r).tolist() == [1, 3, 1]


def test_other_tie_rules_for_measuring_what_ties_are_worth():
    # gold 0.5 ties two others, one candidate scores higher: last 4, first 2, mean 3
    s = np.array([[0.5, 0.5, 0.9, 0.1, 0.5], [0.3, 0.2, 0.1, 0.0, 0.9]])
    assert original_ranks_from_scores(s, gold=[0, 0]).tolist() == [4, 2]
    assert original_ranks_from_scores(s, gold=[0, 0], ties="first").tolist() == [2, 2]
    assert original_ranks_from_scores(s, gold=[0, 0], ties="mean").tolist() == [3.0, 2.0]
    with pytest.raises(ValueError, match="ties must be one of"):
        original_ranks_from_scores(s, gold=[0, 0], ties="random")


def test_ties_never_favour_gold():
    # every candidate ties: the gold item goes behind all of them
    scores = np.zeros((3, 3))
    assert original_ranks_from_scores(scores).tolist() == [3, 3, 3]
    r = rankings_from_scores(scores)
    assert original_ranks(r).tolist() == [3, 3, 3]
    # partial tie: gold 0.5 ties one other candidate and one scores higher
    s = np.array([[0.5, 0.5, 0.9, 0.1]])
    assert original_ranks_from_scores(s, gold=[0]).tolist() == [3]
    assert rankings_from_scores(s, gold=[0]).tolist() == [[2, 1, 0, 3]]
    # non-gold ties keep index order
    s = np.array([[0.2, 0.7, 0.7, 0.9]])
    assert rankings_from_scores(s, gold=[0]).tolist() == [[3, 1, 2, 0]]


def test_rankings_agree_with_score_ranks_random_ties():
    rng = np.random.default_rng(3)
    scores = rng.integers(0, 4, size=(50, 30)).astype(float)  # many ties
    gold = rng.integers(0, 30, size=50)
    assert np.array_equal(original_ranks(rankings_from_scores(scores, gold), gold),
                          original_ranks_from_scores(scores, gold))


def test_recall_and_median_even_count():
    ranks = np.array([1, 2, 5, 11, 20, 700])
    assert recall_at_k(ranks, 1).aggregate == pytest.approx(100 / 6)
    assert recall_at_k(ranks, 5).values.tolist() == [1, 1, 1, 0, 0, 0]
    assert recall_at_k(ranks, 10).aggregate == pytest.approx(50.0)
    # six values: mean of the 3rd and 4th smallest
    assert median_rank(ranks).aggregate == 8.0
    m = original_item_metrics(ranks)
    assert list(m) == ["R@1", "R@5", "R@10", "median rank"]


def test_chance_levels_of_uniform_gold_positions():
    # gold of query q at position q: every position once (a 'perfectly random' ranking)
    n = 1000
    r = np.empty((n, n), dtype=np.int64)
    for q in range(n):
        others = [c for c in range(n) if c != q]
        r[q] = others[:q] + [q] + others[q:]
    ranks = original_ranks(r)
    assert sorted(ranks.tolist()) == list(range(1, n + 1))
    m = original_item_metrics(ranks)
    assert m["R@10"].aggregate == pytest.approx(1.0)
    assert m["median rank"].aggregate == 500.5


def test_seeded_random_ranking_near_chance():
    rng = np.random.default_rng(0)
    r = np.argsort(rng.random((1000, 1000)), axis=1)
    m = original_item_metrics(original_ranks(r))
    assert abs(m["R@10"].aggregate - 1.0) < 1.0   # sd ~0.31 points
    assert abs(m["median rank"].aggregate - 500.5) < 60


@pytest.mark.parametrize("bad, message", [
    (np.array([[0, 1, 1]]), "query 0: candidate index 1 appears more than once"),
    (np.array([[0, 1, 3]]), "query 0: candidate index 3 at position 3 is outside 0..2"),
    (np.array([[0, 1, -1]]), "outside"),
])
def test_bad_rankings(bad, message):
    with pytest.raises(DataError, match=message):
        validate_rankings(bad)


def test_bad_scores():
    with pytest.raises(DataError, match="query 1: scores contain NaN"):
        original_ranks_from_scores(np.array([[1.0, 0.0], [np.nan, 1.0]]))
    with pytest.raises(DataError, match="gold index 5"):
        original_ranks_from_scores(np.zeros((2, 3)), gold=[0, 5])
    with pytest.raises(DataError, match="square"):
        original_ranks_from_scores(np.zeros((2, 3)))
