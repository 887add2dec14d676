"""S@k, R-precision and judged coverage (Section 4.3.3) on hand-worked examples."""

import numpy as np
import pytest

from kcca.data._errors import DataError
from kcca._evaluate.judged_metrics import (
    condensed_r_precision,
    condensed_success_at_k,
    judged_coverage,
    judged_metrics,
    r_precision,
    success_at_k,
    total_r_precision,
)


def _example():
    # 3 queries x 5 candidates
    relevant = np.array([
        [1, 0, 0, 0, 0],   # one relevant item (the original)
        [1, 1, 1, 0, 0],   # three relevant items
        [0, 0, 0, 0, 1],   # one, ranked last
    ], dtype=bool)
    rankings = np.array([
        [0, 1, 2, 3, 4],   # relevant at rank 1
        [3, 1, 4, 0, 2],   # relevant at ranks 2, 4, 5
        [0, 1, 2, 3, 4],   # relevant at rank 5
    ])
    return relevant, rankings


def test_success_at_k_hand_worked():
    rel, r = _example()
    assert success_at_k(r, rel, 1).values.tolist() == [1, 0, 0]
    assert success_at_k(r, rel, 2).values.tolist() == [1, 1, 0]
    assert success_at_k(r, rel, 5).aggregate == pytest.approx(100.0)


def test_r_precision_hand_worked():
    rel, r = _example()
    # q0: r=1, top-1 relevant -> 1; q1: r=3, top-3 = [3, 1, 4] -> 1 relevant -> 1/3; q2: 0
    rp = r_precision(r, rel)
    assert rp.values == pytest.approx([1.0, 1 / 3, 0.0])
    assert rp.aggregate == pytest.approx(100 * (4 / 3) / 3)
    assert total_r_precision(rp, rp) == pytest.approx(rp.aggregate)


def test_coverage_and_bundle():
    rel, r = _example()
    judged = rel.copy()
    judged[1, 3] = True
    assert judged_coverage(r, judged, 1) == pytest.approx(2 / 3)  # q0 c0, q1 c3 judged
    m, cov = judged_metrics(r, rel, judged, ks=(1, 2))
    assert list(m) == ["S@1", "S@2", "R-precision", "S@1 condensed", "S@2 condensed",
                       "R-precision condensed"]
    assert cov["top-2 judged"] == pytest.approx(3 / 6)  # q0 c0; q1 c3, c1
    assert cov["R-precision max depth"] == 3


def test_condensed_lists_hand_worked():
    """Unjudged items are removed before scoring (Sakai 2007); relevant items count as judged."""
    rel, r = _example()
    judged = np.zeros_like(rel)
    judged[1, 3] = True   # q1: item 3 judged not relevant, item 4 unjudged
    # condensed lists: q0 [0]; q1 [3, 1, 0, 2]; q2 [4]
    assert condensed_success_at_k(r, rel, judged, 1).values.tolist() == [1, 0, 1]
    assert condensed_success_at_k(r, rel, judged, 2).values.tolist() == [1, 1, 1]
    rp = condensed_r_precision(r, rel, judged)
    assert rp.name == "R-precision condensed"
    assert rp.values == pytest.approx([1.0, 2 / 3, 1.0])
    # every item judged: condensed equals plain
    everything = np.ones_like(rel)
    assert condensed_r_precision(r, rel, everything).values == pytest.approx(
        r_precision(r, rel).values)
    for k in (1, 2, 5):
        assert (condensed_success_at_k(r, rel, everything, k).values.tolist()
                == success_at_k(r, rel, k).values.tolist())


def test_errors():
    rel, r = _example()
    with pytest.raises(DataError, match="query 2 has no relevant item"):
        r_precision(r, np.array([[1, 0, 0, 0, 0], [1, 0, 0, 0, 0], [0, 0, 0, 0, 0]], bool))
    with pytest.raises(DataError, match="shape"):
        success_at_k(r, rel[:2], 1)


def test_random_ranking_chance_s_at_10():
    # with 1 relevant item S@10 of a random ranking is 1%; with 3 it is 1 - C(997,10)/C(1000,10)
    rng = np.random.default_rng(5)
    n = 1000
    rel = np.eye(n, dtype=bool)
    rel[np.arange(n), (np.arange(n) + 1) % n] = rng.random(n) < 0.5
    r_i = rel.sum(axis=1)
    expected = np.mean(1 - np.prod([(n - r_i - j) / (n - j) for j in range(10)], axis=0))
    vals = [success_at_k(np.argsort(rng.random((n, n)), axis=1), rel, 10).aggregate
            for _ in range(3)]
    assert np.mean(vals) == pytest.approx(100 * expected, abs=0.6)
