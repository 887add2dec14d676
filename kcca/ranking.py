"""Rankings from score matrices, ranks of the original item, R@k and median rank.

Scores are ``(n_queries, n_candidates)``; a ranking is the candidate indices in decreasing
score, ties broken by the lower candidate index (a stable sort), so every ranking is
deterministic. Ranks are 1-based (PAPER-NOTES). Every metric returns the aggregate and the
per-query values (:class:`Metric`), so significance tests can pair them.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from kcca.backend import to_numpy


class Metric(NamedTuple):
    """An aggregate ``value`` and the ``per_query`` values it summarises."""

    value: float
    per_query: np.ndarray


def _scores(scores: Any) -> np.ndarray:
    arr = np.asarray(to_numpy(scores) if not isinstance(scores, np.ndarray) else scores, dtype=float)
    if arr.ndim != 2 or 0 in arr.shape:
        raise ValueError(f"scores must be a non-empty (n_queries, n_candidates) array, got shape {arr.shape}")
    if np.isnan(arr).any():
        q, c = np.argwhere(np.isnan(arr))[0]
        raise ValueError(f"scores has a NaN at query {q}, candidate {c}")
    return arr


def _gold(gold: Any, n_queries: int, n_candidates: int) -> np.ndarray:
    if gold is None:
        if n_queries != n_candidates:
            raise ValueError(
                f"gold=None means query i's original is candidate i, which needs a square score "
                f"matrix, got {n_queries} queries x {n_candidates} candidates"
            )
        return np.arange(n_queries)
    g = np.asarray(gold)
    if g.shape != (n_queries,) or not np.issubdtype(g.dtype, np.integer):
        raise ValueError(f"gold must be {n_queries} integer candidate indices, got {g.dtype} array of shape {g.shape}")
    if g.min() < 0 or g.max() >= n_candidates:
        raise ValueError(f"gold has an index outside [0, {n_candidates}): {g.min()}..{g.max()}")
    return g


def rank_candidates(scores: Any) -> np.ndarray:
    """Candidate indices by decreasing score per query; ties by lower index. ``(nq, nc)`` int."""
    return np.argsort(-_scores(scores), axis=1, kind="stable")


def original_ranks(scores: Any, gold: Any = None) -> np.ndarray:
    """1-based rank of each query's original item (``gold[q]``, default ``q``) in its ranking.

    Equals the position in :func:`rank_candidates`: ``1 + #higher + #equal with lower index``.
    """
    s = _scores(scores)
    g = _gold(gold, *s.shape)
    mine = s[np.arange(s.shape[0]), g][:, None]
    idx = np.arange(s.shape[1])[None, :]
    ahead = (s > mine) | ((s == mine) & (idx < g[:, None]))
    return 1 + ahead.sum(axis=1)


def ranks_from_rankings(rankings: Any, gold: Any = None) -> np.ndarray:
    """1-based rank of each query's original item in given rankings ``(nq, nc)``."""
    r = np.asarray(rankings)
    if r.ndim != 2:
        raise ValueError(f"rankings must be a (n_queries, n_candidates) array, got shape {r.shape}")
    g = _gold(gold, *r.shape)
    hit = r == g[:, None]
    if not hit.any(axis=1).all():
        q = int(np.argmin(hit.any(axis=1)))
        raise ValueError(f"rankings row {q} does not contain its original item {g[q]}")
    return 1 + np.argmax(hit, axis=1)


def _ranks(ranks: Any) -> np.ndarray:
    r = np.asarray(ranks)
    if r.ndim != 1 or r.size == 0 or (r < 1).any():
        raise ValueError(f"ranks must be a non-empty 1-D array of 1-based ranks, got {r!r:.80}")
    return r


def recall_at_k(ranks: Any, k: int) -> Metric:
    """R@k: the fraction of queries whose original item is among the first ``k``."""
    if isinstance(k, bool) or int(k) != k or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    hits = (_ranks(ranks) <= k).astype(float)
    return Metric(float(hits.mean()), hits)


def median_rank(ranks: Any) -> Metric:
    """Median rank of the original item (mean of the two middle values for an even count)."""
    r = _ranks(ranks).astype(float)
    return Metric(float(np.median(r)), r)
