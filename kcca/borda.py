"""Borda-count aggregation of rankings (Section 4.1.3, L360; van Erp & Schomaker 2000).

With ``N`` candidates, each model gives ``N - r`` points to the candidate it ranks at position
``r = 0 .. N-1``; candidates are ordered by total points. Ties are broken by the median of the
candidate's positions across models (lower first), then the mean position, then the candidate
index (PAPER-NOTES). (Equal points imply an equal sum, hence an equal mean, of positions, so
the mean-position rule never decides; it is kept as stated.)
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import numpy as np

from kcca.evaluate.original import rank_candidates


class BordaResult(NamedTuple):
    """``ranking`` (nq, N) aggregated candidate order; ``points`` total Borda points per
    candidate (nq, N); ``median_position`` and ``mean_position`` (0-based) per candidate."""

    ranking: np.ndarray
    points: np.ndarray
    median_position: np.ndarray
    mean_position: np.ndarray


def _stack(rankings: Sequence[Any] | np.ndarray) -> np.ndarray:
    r = np.asarray([np.asarray(x) for x in rankings]) if not isinstance(rankings, np.ndarray) else rankings
    if r.ndim == 2:
        r = r[:, None, :]  # models x candidates, a single query
    if r.ndim != 3 or r.shape[0] == 0 or r.shape[2] == 0:
        raise ValueError(f"rankings must be (n_models, n_queries, N) candidate indices, got shape {r.shape}")
    if not np.issubdtype(r.dtype, np.integer):
        raise ValueError(f"rankings must hold integer candidate indices, got dtype {r.dtype}")
    N = r.shape[2]
    check = np.sort(r, axis=2)
    if not (check == np.arange(N)).all():
        m, q = np.argwhere((check != np.arange(N)).any(axis=2))[0]
        raise ValueError(f"rankings of model {m}, query {q} is not a permutation of 0..{N - 1}")
    return r


def borda_aggregate(rankings: Sequence[Any] | np.ndarray) -> BordaResult:
    """Aggregate ``rankings`` ``(n_models, n_queries, N)`` (or ``(n_models, N)``) by Borda count."""
    r = _stack(rankings)
    M, Q, N = r.shape
    pos = np.empty_like(r)
    m_idx, q_idx = np.meshgrid(np.arange(M), np.arange(Q), indexing="ij")
    pos[m_idx[..., None], q_idx[..., None], r] = np.arange(N)  # pos[m, q, c] = position of c
    points = (N - pos).sum(axis=0)
    med = np.median(pos, axis=0)
    mean = pos.mean(axis=0)
    cand = np.broadcast_to(np.arange(N), (Q, N))
    order = np.lexsort((cand, mean, med, -points), axis=-1)
    return BordaResult(order, points, med, mean)


def borda_from_scores(score_matrices: Sequence[Any]) -> BordaResult:
    """Rank each model's ``(n_queries, N)`` scores (ties by index), then aggregate by Borda."""
    if len(score_matrices) == 0:
        raise ValueError("score_matrices must hold at least one model's scores")
    return borda_aggregate(np.stack([rank_candidates(s) for s in score_matrices]))
