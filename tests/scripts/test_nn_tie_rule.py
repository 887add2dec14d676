"""scripts/nn_tie_rule.py: the figures of one score matrix under the three tie rules."""

from __future__ import annotations

import numpy as np

from tests.scripts.load import load_script


def test_figures_move_with_the_tie_rule_only_where_gold_ties():
    mod = load_script("nn_tie_rule")
    # query 0: gold (diagonal) ties with every candidate; query 1: gold strictly best
    scores = np.array([[0.0] * 12, [0.0] + [1.0] + [0.0] * 10] + [[0.5] * 12] * 10)
    scores[1, 1] = 2.0
    last, first = mod.figures(scores, "last"), mod.figures(scores, "first")
    assert last["R@1"] < first["R@1"] and last["median rank"] == 12.0
    assert first["median rank"] == 1.0 and first["R@10"] == 100.0
    assert mod.figures(scores, "mean")["median rank"] == 6.5
