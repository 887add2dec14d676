"""Expert metrics of the first caption (Section 4.2.1, Tables 1-2)."""

from fractions import Fraction

import numpy as np
import pytest

from kcca.data._corpus import ExpertJudgment
from kcca.data._errors import DataError
from kcca._evaluate.expert import (
    TABLE1_THRESHOLDS,
    expert_matrix,
    expert_metrics,
    threshold_label,
)


def _setup():
    pool = [(f"i{k}.jpg", f"i{k}.jpg#2", "t") for k in range(4)]
    expert = {
        ("i0.jpg", "i0.jpg#2"): ExpertJudgment("i0.jpg", "i0.jpg#2", (4, 4, 4)),   # 4
        ("i1.jpg", "i2.jpg#2"): ExpertJudgment("i1.jpg", "i2.jpg#2", (4, 4, 3)),   # 11/3
        ("i2.jpg", "i0.jpg#2"): ExpertJudgment("i2.jpg", "i0.jpg#2", (3, 3, 2)),   # 8/3
        ("i9.jpg", "i0.jpg#2"): ExpertJudgment("i9.jpg", "i0.jpg#2", (1, 1, 1)),   # not in pool
    }
    return expert_matrix(pool, expert)


def test_cumulative_distribution_exact_thirds():
    m = _setup()
    assert m.n_outside_pool == 1
    res = expert_metrics(np.array([0, 2, 0, 1]), m)  # image 3's first caption is unjudged
    cum = {k: v.aggregate for k, v in res.cumulative.items()}
    assert list(cum) == ["=4.0", ">=3.66", ">=3.33", ">=3.0", ">=2.66", ">=2.33", ">=2.0"]
    assert cum["=4.0"] == 25.0
    assert cum[">=3.66"] == 50.0     # 11/3 passes exactly
    assert cum[">=3.0"] == 50.0
    assert cum[">=2.66"] == 75.0     # 8/3 passes exactly; unjudged counts below
    assert res.coverage == 0.75 and res.n_judged == 3
    assert res.mean.aggregate == pytest.approx((4 + 11 / 3 + 8 / 3) / 3)
    assert np.isnan(res.scores[3])


def test_labels_and_errors():
    assert [threshold_label(t) for t in TABLE1_THRESHOLDS][1] == ">=3.66"
    m = _setup()
    assert m.at_least(Fraction(11, 3))[1, 2] and not m.at_least(Fraction(4))[1, 2]
    with pytest.raises(DataError, match="query 1: caption index 7"):
        expert_metrics(np.array([0, 7, 0, 0]), m)
