"""scripts/judging_protocol_check.py: the relevance model's out-of-fold check."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.script_loader import load_script


def _synthetic(n: int = 60, seed: int = 0):
    """Every pair judged; relevant with probability equal to its BLEU_pre above 0.25."""
    rng = np.random.default_rng(seed)
    pre = rng.random((n, n))
    rel = (rng.random((n, n)) < np.where(pre >= 0.25, pre, 0.0)) | np.eye(n, dtype=bool)
    return rel, np.ones((n, n), dtype=bool), pre


def test_out_of_fold_predicts_every_passing_pair_once_and_beats_the_base_rate():
    mod = load_script("judging_protocol_check")
    rel, jud, pre = _synthetic()
    pred, y, base = mod.out_of_fold(rel, jud, pre, folds=4, seed=1)
    passing = (pre >= 0.25) & ~np.eye(*pre.shape, dtype=bool)
    assert pred.size == y.size == passing.sum()
    assert base == pytest.approx(y.mean())
    assert np.mean((pred - y) ** 2) < np.mean((base - y) ** 2)
    rows = mod.reliability(pred, y)
    assert sum(r["pairs"] for r in rows) == pred.size


@pytest.mark.real_data
def test_real_relevance_model_is_calibrated_out_of_fold(flickr8k, nltk_data_dir):
    """The model of the judged Flickr 8K pairs: predicted and observed relevance agree within
    1.5 points in every probability bin (held-out folds), better than the base rate."""
    from kcca._evaluate.bleu_rouge import ROUGE_STYLE, pool_score_matrix
    from kcca._evaluate.relevance import corpus_relevance

    mod = load_script("judging_protocol_check")
    rel = corpus_relevance(flickr8k, "test")
    pre = pool_score_matrix(flickr8k, "test", "bleu", "R5", ROUGE_STYLE)
    pred, y, base = mod.out_of_fold(rel.relevant, rel.judged, pre)
    assert y.size > 30_000 and 0.04 < base < 0.07
    assert np.mean((pred - y) ** 2) < 0.9 * np.mean((base - y) ** 2)
    for row in mod.reliability(pred, y):
        assert abs(row["predicted %"] - row["observed %"]) <= 1.5, row


def test_compact_files_give_the_full_rankings_top_ten(tmp_path):
    """A compact file's top lists, padded into rankings, agree with the full rankings on every
    place the protocol reads (the first 10)."""
    from kcca._evaluate.compact import from_rankings, write_compact
    from kcca._evaluate.rankings_io import Rankings

    mod = load_script("judging_protocol_check")
    n = 40
    pool = [(f"img{i}.jpg", f"img{i}.jpg#2", f"caption {i}") for i in range(n)]
    full = np.argsort(np.random.default_rng(3).random((n, n)), axis=1)
    compact = from_rankings(Rankings("S", "test", {"search": full, "annotation": full}), pool,
                            corpus="flickr8k")
    path = write_compact(tmp_path / "S.ranks.npz", compact)
    system, tasks = mod.compact_tasks(path, pool)
    assert system == "S"
    for r in tasks.values():
        assert (np.sort(r, axis=1) == np.arange(n)).all()  # whole permutations
        np.testing.assert_array_equal(r[:, :25], full[:, :25])
