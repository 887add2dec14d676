"""The paper's judging protocol (Section 4.3.2) applied to a system it never judged.

The paper collected crowd judgments for the top 10 results of its own systems, and only for
the pairs that pass a filter, BLEU_pre >= 0.25 (unigram BLEU, stemmed, stop words removed,
against the image's five captions); the pairs it removed count as not relevant (of 10,374
removed pairs it judged anyway, all judges rejected 98.3 %). Our systems' top 10 holds pairs
nobody judged. Under the paper's own protocol these fall in two groups:

* removed by the filter: not relevant, exactly as the paper counts them;
* passing the filter: the paper would have judged them. Their probability of being relevant
  is estimated from the judged pairs with the same BLEU_pre (isotonic regression of the
  relevance rule's verdict on BLEU_pre, fitted on the judged pairs that pass the filter).

:func:`protocol_metrics` reports, per task, the expectation of S@k and R-precision under that
estimate (``"S@k imputed"``, ``"R-precision imputed"``) and S@k with every such pair relevant
(``"S@k bound"``): a model-free upper bound of what the paper's protocol could give our
rankings. The plain S@k (unjudged = not relevant) is the lower bound; R-precision has no such
bounds (an imputed relevant item raises R as well as the hits). Judged pairs keep their
verdict; the originals are relevant. Pairs are shared by the two tasks, as in the paper: a pair
in the top 10 of either task's ranking is one the protocol would have judged, for both tasks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
from sklearn.isotonic import IsotonicRegression

from kcca.data._errors import DataError
from kcca._evaluate.original import DEFAULT_KS, PerQuery, validate_rankings

#: the paper's filter: pairs with BLEU_pre below this were not judged (Section 4.3.2)
FILTER_THRESHOLD = 0.25
#: how deep the paper judged each system's rankings (Section 4.3.2: the top 10)
JUDGED_DEPTH = 10


@dataclass
class RelevanceModel:
    """P(relevant | BLEU_pre) of an unjudged pair: 0 below the filter, isotonic above it."""

    threshold: float
    isotonic: IsotonicRegression
    n_fitted: int
    base_rate: float

    def probability(self, bleu_pre: np.ndarray) -> np.ndarray:
        """Probability that an unjudged pair with these BLEU_pre values would be judged relevant."""
        b = np.asarray(bleu_pre, dtype=float)
        out = np.zeros(b.shape)
        passing = b >= self.threshold - 1e-12
        if passing.any():
            out[passing] = self.isotonic.predict(b[passing])
        return out


def _check_matrices(
    relevant: np.ndarray, judged: np.ndarray, bleu_pre: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rel = np.asarray(relevant, dtype=bool)
    jud = np.asarray(judged, dtype=bool)
    pre = np.asarray(bleu_pre, dtype=float)
    if not (rel.shape == jud.shape == pre.shape) or rel.ndim != 2:
        raise DataError(
            f"relevance {rel.shape}, judged {jud.shape} and BLEU_pre {pre.shape} "
            "must be the same (images x captions) matrix shape"
        )
    bad = np.argwhere(~np.isfinite(pre))
    if bad.size:
        i, j = bad[0]
        raise DataError(
            f"BLEU_pre of pool pair (image {i}, caption {j}) is {pre[i, j]}: "
            "recompute the score matrix (kcca._evaluate.bleu_rouge.pool_score_matrix)"
        )
    if (rel & ~jud).any():
        i, j = np.argwhere(rel & ~jud)[0]
        raise DataError(
            f"pool pair (image {i}, caption {j}) is relevant but not judged: "
            "pass the judged matrix of the same RelevanceMatrix"
        )
    return rel, jud, pre


def fit_relevance_model(
    relevant: np.ndarray,
    judged: np.ndarray,
    bleu_pre: np.ndarray,
    threshold: float = FILTER_THRESHOLD,
) -> RelevanceModel:
    """Isotonic P(relevant | BLEU_pre) from the judged non-original pairs passing the filter.

    ``relevant`` and ``judged`` are the pool's image x caption matrices (originals on the
    diagonal, excluded from the fit), ``bleu_pre`` their BLEU_pre scores.
    """
    rel, jud, pre = _check_matrices(relevant, judged, bleu_pre)
    fit = jud & (pre >= threshold - 1e-12)
    n = min(rel.shape)
    fit[np.arange(n), np.arange(n)] = False
    if not fit.any():
        raise DataError(
            f"no judged pair besides the originals has BLEU_pre >= {threshold}: "
            "the relevance model needs crowd judgments (load them with the corpus)"
        )
    x, y = pre[fit], rel[fit].astype(float)
    iso = IsotonicRegression(y_min=0.0, y_max=1.0, increasing=True, out_of_bounds="clip")
    iso.fit(x, y)
    return RelevanceModel(float(threshold), iso, int(fit.sum()), float(y.mean()))


def _query_view(matrix: np.ndarray, task: str) -> np.ndarray:
    if task == "annotation":
        return matrix
    if task == "search":
        return matrix.T
    raise DataError(f"unknown task {task!r}: use 'annotation' or 'search'")


def protocol_pairs(
    rankings: Mapping[str, np.ndarray],
    judged: np.ndarray,
    bleu_pre: np.ndarray,
    depth: int = JUDGED_DEPTH,
    threshold: float = FILTER_THRESHOLD,
) -> np.ndarray:
    """Boolean image x caption mask: unjudged pairs in some task's top ``depth`` that pass the
    filter, i.e. the pairs the paper's protocol would have judged for these rankings."""
    jud = np.asarray(judged, dtype=bool)
    if depth < 1:
        raise DataError(f"the judged depth must be >= 1, got {depth}")
    top = np.zeros(jud.shape, dtype=bool)
    for task, r in rankings.items():
        r = validate_rankings(r)
        view = _query_view(top, task)
        if r.shape != view.shape:
            raise DataError(f"{task} rankings have shape {r.shape}, the pool is {view.shape}")
        rows = np.repeat(np.arange(r.shape[0]), min(depth, r.shape[1]))
        view[rows, r[:, :depth].ravel()] = True
    return top & ~jud & (np.asarray(bleu_pre) >= threshold - 1e-12)


def _ordered(matrix: np.ndarray, r: np.ndarray, task: str) -> np.ndarray:
    return np.take_along_axis(_query_view(matrix, task), r, axis=1)


def _r_precision_values(ordered_rel: np.ndarray) -> np.ndarray:
    r_i = ordered_rel.sum(axis=1)
    cum = np.cumsum(ordered_rel, axis=1)
    return cum[np.arange(len(r_i)), r_i - 1] / r_i


def protocol_metrics(
    rankings: Mapping[str, np.ndarray],
    relevant: np.ndarray,
    judged: np.ndarray,
    bleu_pre: np.ndarray,
    model: RelevanceModel,
    *,
    ks: Sequence[int] = DEFAULT_KS,
    depth: int = JUDGED_DEPTH,
    n_draws: int = 200,
    seed: int = 0,
) -> dict[str, dict[str, PerQuery]]:
    """S@k and R-precision of ``rankings`` (task -> ``(n_queries, n_candidates)``) under the
    paper's judging protocol: task -> metric -> :class:`PerQuery`.

    ``"S@k imputed"`` is the exact expectation (pairs independent), ``"R-precision imputed"``
    the mean over ``n_draws`` seeded draws of the unjudged pairs that pass the filter (R
    itself depends on the draw); ``"S@k bound"`` counts every such pair relevant.
    """
    rel, jud, pre = _check_matrices(relevant, judged, bleu_pre)
    if n_draws < 1:
        raise DataError(f"n_draws must be >= 1, got {n_draws}")
    todo = protocol_pairs(rankings, jud, pre, depth, model.threshold)
    prob = np.zeros(rel.shape)
    prob[todo] = model.probability(pre[todo])
    rows, cols = np.nonzero(todo)
    p_flat = prob[rows, cols]
    rng = np.random.default_rng(seed)
    draws = rng.random((n_draws, rows.size)) < p_flat
    out: dict[str, dict[str, PerQuery]] = {}
    for task, r in rankings.items():
        r = validate_rankings(r)
        base = _ordered(rel, r, task)
        p_ord = _ordered(prob, r, task)
        maybe = _ordered(todo, r, task)
        m: dict[str, PerQuery] = {}
        for k in ks:
            if k < 1:
                raise DataError(f"k must be >= 1, got {k}")
            miss = np.prod(1.0 - np.maximum(base[:, :k], p_ord[:, :k]), axis=1)
            m[f"S@{k} imputed"] = PerQuery(
                f"S@{k} imputed", 1.0 - miss, 100.0 * float((1.0 - miss).mean())
            )
            hit = (base[:, :k] | maybe[:, :k]).any(axis=1).astype(float)
            m[f"S@{k} bound"] = PerQuery(f"S@{k} bound", hit, 100.0 * float(hit.mean()))
        # R-precision: only the queries touching a drawn pair change between draws
        q_rows = rows if task == "annotation" else cols
        touched, local = np.unique(q_rows, return_inverse=True)
        values = _r_precision_values(base)
        if touched.size:
            items = cols if task == "annotation" else rows
            inverse = np.argsort(r[touched], axis=1)  # candidate -> rank position per query
            where = inverse[local, items]
            base_touched = base[touched]
            acc = np.zeros(touched.size)
            for d in range(n_draws):
                sub = base_touched.copy()
                sub[local, where] = draws[d]
                acc += _r_precision_values(sub)
            values = values.copy()
            values[touched] = acc / n_draws
        m["R-precision imputed"] = PerQuery(
            "R-precision imputed", values, 100.0 * float(values.mean())
        )
        out[task] = m
    return out
