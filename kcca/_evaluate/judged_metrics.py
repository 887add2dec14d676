"""Metrics over binary relevance judgments: S@k and R-precision (Section 4.3.3, Tables 4-5, 12).

* S@k ("rate of success"): per query 1 if at least one relevant item is among the top k;
  reported as a percentage of queries.
* R-precision: query ``i`` with ``r_i`` relevant items (the original included) scores the
  fraction of relevant items among its top ``r_i`` results; averaged over queries (percentage).
* Table 5's "Total" is the mean of the annotation and search R-precision.

Unjudged pairs count as not relevant. :func:`judged_coverage` reports, for the top k of every
query, the fraction of pairs that were judged (the originals count as judged), since
R-precision reaches beyond the judged top 10 (up to rank 23 on Flickr 8K).

A system other than the paper's returns pairs nobody judged, so its S@k and R-precision are
lower bounds. The ``condensed`` variants (Sakai 2007, "Alternatives to Bpref", SIGIR) drop the
unjudged items from each ranking before scoring: an estimate from the judged pairs alone, an
upper bound when unjudged pairs are less often relevant than judged ones. The paper's systems,
whose top 10 were all judged, score the same either way.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from kcca.data._errors import DataError
from kcca._evaluate.original import DEFAULT_KS, PerQuery, validate_rankings


def _check(rankings: np.ndarray, relevant: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r = validate_rankings(rankings)
    rel = np.asarray(relevant, dtype=bool)
    if rel.shape != r.shape:
        raise DataError(
            f"rankings have shape {r.shape} but the relevance matrix (queries as "
            f"rows) has shape {rel.shape}"
        )
    return r, rel


def relevant_in_order(rankings: np.ndarray, relevant: np.ndarray) -> np.ndarray:
    """Boolean ``(n_queries, n_candidates)``: is the item at each rank position relevant."""
    r, rel = _check(rankings, relevant)
    return np.take_along_axis(rel, r, axis=1)


def success_at_k(rankings: np.ndarray, relevant: np.ndarray, k: int) -> PerQuery:
    """S@k: per query 1.0 if a relevant item is in the top k; aggregate in percent."""
    if k < 1:
        raise DataError(f"k must be >= 1, got {k}")
    hits = relevant_in_order(rankings, relevant)[:, :k].any(axis=1).astype(float)
    return PerQuery(f"S@{k}", hits, 100.0 * float(hits.mean()))


def _relevant_counts(ordered: np.ndarray) -> np.ndarray:
    """r_i, the number of relevant items of each query (R-precision's depth); a query with
    none is an error."""
    r_i = ordered.sum(axis=1)
    empty = np.flatnonzero(r_i == 0)
    if empty.size:
        raise DataError(
            f"query {int(empty[0])} has no relevant item: R-precision is undefined "
            "(the original item should always be relevant)"
        )
    return r_i


def r_precision(rankings: np.ndarray, relevant: np.ndarray) -> PerQuery:
    """R-precision: per query precision at rank r_i (number of relevant items); in percent.

    A query with no relevant item at all is an error (every query has its original).
    """
    ordered = relevant_in_order(rankings, relevant)
    r_i = _relevant_counts(ordered)
    cum = np.cumsum(ordered, axis=1)
    hits_at_r = cum[np.arange(len(r_i)), r_i - 1]
    values = hits_at_r / r_i
    return PerQuery("R-precision", values, 100.0 * float(values.mean()))


def condensed_success_at_k(
    rankings: np.ndarray, relevant: np.ndarray, judged: np.ndarray, k: int
) -> PerQuery:
    """S@k on condensed lists: a relevant item among the first k *judged* items."""
    if k < 1:
        raise DataError(f"k must be >= 1, got {k}")
    rel, seen = _condensed(rankings, relevant, judged)
    hits = (rel & (seen <= k)).any(axis=1).astype(float)
    return PerQuery(f"S@{k} condensed", hits, 100.0 * float(hits.mean()))


def condensed_r_precision(
    rankings: np.ndarray, relevant: np.ndarray, judged: np.ndarray
) -> PerQuery:
    """R-precision on condensed lists: relevant items among the first r_i judged items."""
    rel, seen = _condensed(rankings, relevant, judged)
    r_i = _relevant_counts(rel)
    values = (rel & (seen <= r_i[:, None])).sum(axis=1) / r_i
    return PerQuery("R-precision condensed", values, 100.0 * float(values.mean()))


def _condensed(
    rankings: np.ndarray, relevant: np.ndarray, judged: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Relevance in rank order and, per position, how many judged items are at or above it
    (a relevant pair counts as judged)."""
    rel = relevant_in_order(rankings, relevant)
    jud = relevant_in_order(rankings, judged) | rel
    return rel, np.cumsum(jud, axis=1)


def judged_coverage(rankings: np.ndarray, judged: np.ndarray, k: int) -> float:
    """Fraction of the (query, top-k item) pairs that were judged."""
    return float(relevant_in_order(rankings, judged)[:, :k].mean())


def r_precision_coverage(
    rankings: np.ndarray, relevant: np.ndarray, judged: np.ndarray
) -> tuple[float, int]:
    """Fraction judged of the pairs R-precision looks at, and the deepest rank it reaches."""
    r_i = np.asarray(relevant, dtype=bool).sum(axis=1)
    j = relevant_in_order(rankings, judged)
    mask = np.arange(j.shape[1])[None, :] < r_i[:, None]
    return float(j[mask].mean()), int(r_i.max())


def judged_metrics(
    rankings: np.ndarray, relevant: np.ndarray, judged: np.ndarray, ks: Sequence[int] = DEFAULT_KS
) -> tuple[dict[str, PerQuery], dict]:
    """S@k for each k and R-precision, their condensed variants (``"S@k condensed"``, ``"R-precision
    condensed"``), plus coverage: ``{"top-k judged": ..., ...}``."""
    out = {f"S@{k}": success_at_k(rankings, relevant, k) for k in ks}
    out["R-precision"] = r_precision(rankings, relevant)
    for k in ks:
        out[f"S@{k} condensed"] = condensed_success_at_k(rankings, relevant, judged, k)
    out["R-precision condensed"] = condensed_r_precision(rankings, relevant, judged)
    coverage = {f"top-{k} judged": judged_coverage(rankings, judged, k) for k in ks}
    cov, depth = r_precision_coverage(rankings, relevant, judged)
    coverage["R-precision judged"] = cov
    coverage["R-precision max depth"] = depth
    return out, coverage


def total_r_precision(annotation: PerQuery, search: PerQuery) -> float:
    """Table 5's "Total": the mean of annotation and search R-precision."""
    return (annotation.aggregate + search.aggregate) / 2.0
