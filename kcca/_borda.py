"""Borda-count aggregation of rankings (Section 4.1.3; van Erp & Schomaker 2000).

With ``N`` candidates, each model gives ``N - r`` points to the candidate it ranks at position
``r = 0 .. N-1``; candidates are ordered by total points. Ties are broken by the median of the
candidate's positions across models (lower first), then the mean position, then the candidate
index (docs/paper-notes.md#dev-selection-and-borda-count). (Equal points imply an equal sum,
hence an equal mean, of positions, so the mean-position rule never decides; it is kept as
stated.)
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import numpy as np

from kcca._evaluate.original import rank_candidates


class BordaResult(NamedTuple):
    """``ranking`` (nq, N) aggregated candidate order; ``points`` total Borda points per
    candidate (nq, N); ``median_position`` and ``mean_position`` (0-based) per candidate."""

    ranking: np.ndarray
    points: np.ndarray
    median_position: np.ndarray
    mean_position: np.ndarray


def _stack(rankings: Sequence[Any] | np.ndarray) -> np.ndarray:
    r = (
        np.asarray([np.asarray(x) for x in rankings])
        if not isinstance(rankings, np.ndarray)
        else rankings
    )
    if r.ndim == 2:
        r = r[:, None, :]  # models x candidates, a single query
    if r.ndim != 3 or r.shape[0] == 0 or r.shape[2] == 0:
        raise ValueError(
            f"rankings must be (n_models, n_queries, N) candidate indices, got shape {r.shape}"
        )
    if not np.issubdtype(r.dtype, np.integer):
        raise ValueError(f"rankings must hold integer candidate indices, got dtype {r.dtype}")
    return r


def _positions(r: np.ndarray) -> np.ndarray:
    """``pos[m, q, c]``: the 0-based position of candidate ``c`` in model ``m``'s ranking of
    query ``q``; a ranking that is not a permutation of ``0..N-1`` is an error naming it."""
    M, Q, N = r.shape
    pos = np.full(r.shape, -1, dtype=np.int64)
    bad = ~((r >= 0) & (r < N)).all(axis=2)
    if not bad.any():
        np.put_along_axis(
            pos, r.astype(np.intp, copy=False), np.broadcast_to(np.arange(N), r.shape), axis=2
        )
        # every position written once iff the row is a permutation (a repeat leaves a hole)
        bad = (pos < 0).any(axis=2)
    if bad.any():
        m, q = np.argwhere(bad)[0]
        raise ValueError(f"rankings of model {m}, query {q} is not a permutation of 0..{N - 1}")
    return pos


def borda_aggregate(rankings: Sequence[Any] | np.ndarray) -> BordaResult:
    """Aggregate ``rankings`` ``(n_models, n_queries, N)`` (or ``(n_models, N)``) by Borda count."""
    r = _stack(rankings)
    M, Q, N = r.shape
    pos = _positions(r)
    total = pos.sum(axis=0)  # points = M N - total: fewer total, more points
    points = M * N - total
    med = np.median(pos, axis=0)
    mean = pos.mean(axis=0)
    cand = np.broadcast_to(np.arange(N), (Q, N))
    if M * N * 2 * N * N < 2**62:
        # one integer key per candidate, unique within a query: (total, 2 median, index);
        # the mean position is total / M, so it never decides (module docstring)
        key = (total * (2 * N) + np.rint(2 * med).astype(np.int64)) * N + cand
        order = np.argsort(key, axis=-1)
    else:
        order = np.lexsort((cand, mean, med, -points), axis=-1)
    return BordaResult(order, points, med, mean)


def borda_from_scores(score_matrices: Sequence[Any]) -> BordaResult:
    """Rank each model's ``(n_queries, N)`` scores (ties by index), then aggregate by Borda."""
    if len(score_matrices) == 0:
        raise ValueError("score_matrices must hold at least one model's scores")
    return borda_aggregate(np.stack([rank_candidates(s) for s in score_matrices]))
