"""The paper's judging protocol applied to unjudged pairs (kcca._evaluate.judging_protocol)."""

import itertools

import numpy as np
import pytest

from kcca.data._errors import DataError
from kcca._evaluate.judged_metrics import r_precision, success_at_k
from kcca._evaluate.judging_protocol import (fit_relevance_model, protocol_metrics,
                                            protocol_pairs)


def _pool(n: int = 4):
    """Originals on the diagonal, judged and relevant; everything else unjudged."""
    rel = np.eye(n, dtype=bool)
    jud = np.eye(n, dtype=bool)
    pre = np.zeros((n, n))
    return rel, jud, pre


def _model_pool():
    """A pool whose judged off-diagonal pairs make the isotonic fit 0 below 0.5, 1 from 0.5."""
    n = 6
    rel, jud, pre = _pool(n)
    pre[np.eye(n, dtype=bool)] = 0.9  # originals: excluded from the fit whatever their score
    for (i, j), (score, verdict) in {(0, 1): (0.3, False), (1, 0): (0.4, False),
                                     (2, 3): (0.5, True), (3, 2): (0.7, True),
                                     (4, 5): (0.1, True)}.items():
        pre[i, j] = score
        jud[i, j] = True
        rel[i, j] = verdict
    return rel, jud, pre


def test_model_is_zero_below_the_filter_and_isotonic_above():
    rel, jud, pre = _model_pool()
    model = fit_relevance_model(rel, jud, pre, threshold=0.25)
    # (4, 5) is relevant but below the filter: not part of the fit, and 0 anyway
    assert model.n_fitted == 4
    got = model.probability(np.array([0.1, 0.24, 0.3, 0.45, 0.6, 0.99]))
    np.testing.assert_allclose(got[:2], 0.0)
    assert got[2] == 0.0 and got[4] == 1.0 and got[5] == 1.0
    assert 0.0 <= got[3] <= 1.0
    assert np.all(np.diff(got) >= 0)


def test_model_needs_judged_pairs_that_pass_the_filter():
    rel, jud, pre = _pool()
    pre[:] = 0.9  # only the originals are judged, and they are excluded
    with pytest.raises(DataError, match="no judged pair besides the originals"):
        fit_relevance_model(rel, jud, pre)


@pytest.mark.parametrize("bad", ["shape", "nan", "unjudged-relevant"])
def test_bad_matrices_are_named(bad):
    rel, jud, pre = _model_pool()
    if bad == "shape":
        pre = pre[:, :-1]
        match = "same"
    elif bad == "nan":
        pre[2, 4] = np.nan
        match = r"image 2, caption 4"
    else:
        rel[1, 4] = True
        match = r"relevant but not judged"
    with pytest.raises(DataError, match=match):
        fit_relevance_model(rel, jud, pre)


def test_pairs_are_the_unjudged_top_pairs_passing_the_filter_of_either_task():
    rel, jud, pre = _pool(3)
    pre[:] = 0.3
    pre[0, 2] = 0.1          # removed by the filter
    jud[1, 0] = True         # already judged
    ann = np.array([[2, 1, 0], [0, 1, 2], [2, 0, 1]])   # image -> captions
    srch = np.array([[1, 0, 2], [1, 0, 2], [0, 2, 1]])  # caption -> images
    mask = protocol_pairs({"annotation": ann, "search": srch}, jud, pre, depth=1)
    # annotation top 1: (0,2) filtered, (1,0) judged, (2,2) original
    # search top 1: caption 0 -> image 1 (judged), caption 1 -> image 1 (1,1) original,
    # caption 2 -> image 0: (0, 2) filtered
    assert not mask.any()
    mask = protocol_pairs({"annotation": ann, "search": srch}, jud, pre, depth=2)
    expect = np.zeros((3, 3), dtype=bool)
    expect[0, 1] = True      # annotation of image 0, rank 2
    expect[2, 0] = True      # annotation of image 2, rank 2
    assert np.array_equal(mask, expect)


def test_fully_judged_rankings_score_as_the_plain_metrics():
    """The paper's own systems (top 10 judged) score the same under the protocol."""
    rng = np.random.default_rng(3)
    n = 8
    rel = np.eye(n, dtype=bool) | (rng.random((n, n)) < 0.2)
    jud = np.ones((n, n), dtype=bool)
    pre = rng.random((n, n))
    model = fit_relevance_model(rel, jud, pre)
    ranks = {"annotation": np.argsort(rng.random((n, n)), axis=1),
             "search": np.argsort(rng.random((n, n)), axis=1)}
    out = protocol_metrics(ranks, rel, jud, pre, model, ks=(1, 3), n_draws=5)
    for task, r in ranks.items():
        relq = rel if task == "annotation" else rel.T
        for k in (1, 3):
            plain = success_at_k(r, relq, k)
            np.testing.assert_allclose(out[task][f"S@{k} imputed"].values, plain.values)
            np.testing.assert_allclose(out[task][f"S@{k} bound"].values, plain.values)
        np.testing.assert_allclose(out[task]["R-precision imputed"].values,
                                   r_precision(r, relq).values)


def _small_case():
    """Image 0's ranking holds two unjudged pairs passing the filter, one removed by it."""
    n = 4
    rel, jud, pre = _model_pool_small(n)
    ann = np.array([[1, 0, 2, 3], [1, 0, 2, 3], [2, 0, 1, 3], [3, 0, 1, 2]])
    return rel, jud, pre, ann


def _model_pool_small(n):
    rel, jud, pre = _pool(n)
    pre[0, 1], pre[0, 2], pre[0, 3] = 0.6, 0.1, 0.3
    return rel, jud, pre


class _Fixed:
    """A relevance model with fixed probabilities per BLEU_pre value (threshold 0.25)."""

    threshold = 0.25

    def __init__(self, table):
        self.table = table

    def probability(self, pre):
        return np.array([self.table[round(float(x), 3)] for x in np.asarray(pre).ravel()])


def test_success_is_the_exact_expectation_and_bound_counts_every_passing_pair():
    rel, jud, pre, ann = _small_case()
    model = _Fixed({0.6: 0.5, 0.3: 0.2})
    out = protocol_metrics({"annotation": ann}, rel, jud, pre, model, ks=(1, 2, 4),
                           n_draws=10)["annotation"]
    # image 0: rank 1 caption 1 (p 0.5), rank 2 caption 0 (original)
    assert out["S@1 imputed"].values[0] == pytest.approx(0.5)
    assert out["S@1 bound"].values[0] == 1.0
    assert out["S@2 imputed"].values[0] == pytest.approx(1.0)
    # image 3: caption 3 first (original) -> 1 everywhere
    assert out["S@1 imputed"].values[3] == 1.0
    # image 1: caption 1 is its original; image 2: caption 2 original
    assert out["S@1 imputed"].aggregate == pytest.approx(100 * (0.5 + 1 + 1 + 1) / 4)


def test_r_precision_matches_the_enumerated_expectation():
    rel, jud, pre, ann = _small_case()
    # image 0's ranking: [1 (p .5), 0 (orig), 2 (filtered), 3 (p .2)]
    model = _Fixed({0.6: 0.5, 0.3: 0.2})
    out = protocol_metrics({"annotation": ann}, rel, jud, pre, model, ks=(1,),
                           n_draws=20000, seed=1)["annotation"]
    exact = 0.0
    for a, b in itertools.product((0, 1), repeat=2):
        weight = 0.5 * (0.2 if b else 0.8)
        ordered = np.array([[a, 1, 0, b]], dtype=bool)
        exact += weight * r_precision(np.arange(4)[None, :], ordered).values[0]
    assert out["R-precision imputed"].values[0] == pytest.approx(exact, abs=0.01)
    # untouched queries keep their plain R-precision
    assert out["R-precision imputed"].values[1:].tolist() == [1.0, 1.0, 1.0]


def test_same_seed_same_numbers_and_draw_count_is_checked():
    rel, jud, pre, ann = _small_case()
    model = _Fixed({0.6: 0.5, 0.3: 0.2})
    a = protocol_metrics({"annotation": ann}, rel, jud, pre, model, n_draws=7, seed=4)
    b = protocol_metrics({"annotation": ann}, rel, jud, pre, model, n_draws=7, seed=4)
    assert a["annotation"]["R-precision imputed"].aggregate == \
        b["annotation"]["R-precision imputed"].aggregate
    with pytest.raises(DataError, match="n_draws"):
        protocol_metrics({"annotation": ann}, rel, jud, pre, model, n_draws=0)


def test_search_uses_the_transposed_pool():
    rel, jud, pre, _ = _small_case()
    model = _Fixed({0.6: 0.5, 0.3: 0.2})
    # caption 1's search ranking puts image 0 first: pair (0, 1), p = 0.5
    srch = np.array([[0, 1, 2, 3], [0, 1, 2, 3], [2, 0, 1, 3], [3, 0, 1, 2]])
    out = protocol_metrics({"search": srch}, rel, jud, pre, model, ks=(1,))["search"]
    assert out["S@1 imputed"].values.tolist() == [1.0, 0.5, 1.0, 1.0]
    with pytest.raises(DataError, match="shape"):
        protocol_metrics({"search": srch[:3]}, rel, jud, pre, model)


@pytest.mark.real_data
def test_evaluate_system_reports_the_protocol_on_flickr8k(flickr8k, nltk_data_dir):
    """Near-random rankings of the real test pool: counted <= imputed <= bound, and the imputed
    expectation is compared with the randomisation test, not McNemar."""
    from kcca._evaluate.rankings_io import Rankings
    from kcca._evaluate.system import EvaluationContext, compare_systems, evaluate_system

    n = len(flickr8k.pool("test"))
    rng = np.random.default_rng(0)
    ctx = EvaluationContext(flickr8k, "test", with_bleu_rouge=False)
    evals = []
    for name in ("a", "b"):
        # the original item first for half the queries (so every metric has judged items)
        scores = rng.random((n, n)) + np.diag(rng.random(n) < 0.5)
        tasks = {t: np.argsort(-scores, axis=1) for t in ("annotation", "search")}
        evals.append(evaluate_system(Rankings(name, "test", tasks), ctx))
    assert ctx.protocol_model is not None and ctx.protocol_model.n_fitted > 30_000
    for task in ("annotation", "search"):
        agg = evals[0].table()[task]
        assert agg["S@10"] <= agg["S@10 imputed"] < agg["S@10 bound"]
        # R grows with the imputed items, so R-precision may move either way, but not far
        assert 0 < abs(agg["R-precision imputed"] - agg["R-precision"]) < 5
    sig = compare_systems(*evals, n_samples=200)["annotation"]
    assert sig["S@10 imputed"]["test"].startswith("randomisation")
    assert sig["S@10 bound"]["test"].startswith("McNemar")
