"""Rank and recall of the original item (Hodosh et al. 2013, Section 4.3.1, Tables 3 and 11).

Each test query has exactly one *original* (gold) item among the candidates: for annotation
(captions ranked per image) the caption written for the query image, for search (images ranked
per caption) the image the caption was written for. In the Flickr 8K test pools, query ``i``'s
original is candidate ``i`` (``Corpus.pool`` pairs image ``i`` with caption ``i``).

Conventions (docs/paper-notes.md#original-item-ranks):

* ranks are 1-based: the first result has rank 1;
* the median rank of an even number of queries is the mean of the two middle ranks (for 1,000
  queries the mean of the 500th and 501st smallest);
* **tie rule**: a raw score tie never favours the gold item. From a score matrix, the rank of the
  gold item is ``1 + #(candidates scoring higher) + #(other candidates scoring equal)``.
  :func:`rankings_from_scores` orders tied candidates so that the gold item comes last among
  them, so ranks read from its rankings agree with :func:`original_ranks_from_scores`.

Every metric returns per-query values and the aggregate (:class:`PerQuery`), so significance
tests (``kcca._evaluate.statistics``) can pair two systems query by query.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from kcca.data._errors import DataError
from kcca._evaluate.index_arrays import checked_index_array
from kcca.errors import SettingError

DEFAULT_KS = (1, 5, 10)


@dataclass(frozen=True)
class PerQuery:
    """A metric's per-query values (plain array, pool query order) and its aggregate."""

    name: str
    values: np.ndarray
    aggregate: float

    def as_dict(self) -> dict:
        return {"name": self.name, "aggregate": self.aggregate, "values": self.values.tolist()}


def _gold(n_queries: int, n_candidates: int, gold: Sequence[int] | np.ndarray | None) -> np.ndarray:
    if gold is None:
        if n_queries != n_candidates:
            raise DataError(
                f"{n_queries} queries and {n_candidates} candidates: give the gold "
                "index of each query explicitly (the default gold[i] = i needs a "
                "square pool)"
            )
        return np.arange(n_queries)
    return checked_index_array(
        gold,
        n_queries,
        n_candidates,
        name="gold",
        meaning="integer candidate indices",
        row="query",
        index="gold index",
    )


#: where the gold item goes among candidates with its score (:func:`original_ranks_from_scores`)
TIE_RULES = ("last", "first", "mean")


def original_ranks_from_scores(
    scores: np.ndarray, gold: Sequence[int] | None = None, *, ties: str = "last"
) -> np.ndarray:
    """1-based rank of each query's gold item.

    ``scores`` is ``(n_queries, n_candidates)``, higher is better. NaN scores are an error.
    ``ties``: ``"last"`` (the default and the rule of every table: ties never favour the gold
    item), ``"first"`` (rank = 1 + candidates scoring strictly higher) or ``"mean"`` (the
    average of the two, a float); the last two measure how much a system's figures owe to
    ties (``kcca evaluate --ties``, from the tie counts of :func:`gold_ties_from_scores`).
    """
    if ties not in TIE_RULES:
        raise SettingError(f"ties must be one of {TIE_RULES}, got {ties!r}")
    s, gold_score = _scores_and_gold(scores, gold)
    # every candidate scoring >= gold, the gold item itself included, is at or ahead of it
    last = (s >= gold_score).sum(axis=1).astype(np.int64)
    if ties == "last":
        return last
    return ranks_under_tie_rule(last, _tie_counts(s, gold_score), ties)


def _scores_and_gold(
    scores: np.ndarray, gold: Sequence[int] | None
) -> tuple[np.ndarray, np.ndarray]:
    """``scores`` as a checked float array (2-d, no NaN) and each query's gold score as a
    column."""
    s = np.asarray(scores, dtype=float)
    if s.ndim != 2:
        raise DataError(f"scores must be a (n_queries, n_candidates) array, got shape {s.shape}")
    nan_rows = np.flatnonzero(np.isnan(s).any(axis=1))
    if nan_rows.size:
        raise DataError(f"query {int(nan_rows[0])}: scores contain NaN")
    g = _gold(s.shape[0], s.shape[1], gold)
    return s, s[np.arange(s.shape[0]), g][:, None]


def _tie_counts(s: np.ndarray, gold_score: np.ndarray) -> np.ndarray:
    """Per query, the other candidates scoring exactly the gold score."""
    return (s == gold_score).sum(axis=1).astype(np.int64) - 1


def gold_ties_from_scores(scores: np.ndarray, gold: Sequence[int] | None = None) -> np.ndarray:
    """Per query, how many other candidates share the gold item's score: under the tie rule of
    every table they are all ranked ahead of it (:func:`rankings_from_scores`), so the gold
    item's rank with ``ties="first"`` is its stored rank minus this count."""
    return _tie_counts(*_scores_and_gold(scores, gold))


def ranks_under_tie_rule(ranks: np.ndarray, gold_ties: np.ndarray, ties: str) -> np.ndarray:
    """Gold ranks stored under ``ties="last"`` moved to another rule of :data:`TIE_RULES`:
    ``first`` = rank - ties, ``mean`` = rank - ties / 2 (:func:`original_ranks_from_scores` too)."""
    if ties not in TIE_RULES:
        raise SettingError(f"ties must be one of {TIE_RULES}, got {ties!r}")
    r, t = np.asarray(ranks), np.asarray(gold_ties)
    if r.shape != t.shape:
        raise DataError(f"{t.shape[0] if t.ndim else 0} tie counts for {r.shape[0]} queries")
    if ties == "last":
        return r
    return r - t if ties == "first" else r - t / 2.0


def rank_candidates(scores: np.ndarray) -> np.ndarray:
    """Candidate indices by decreasing score per query, ties by lower index (stable sort).

    For rankings that know nothing of a gold item (Borda inputs); evaluation reads ranks of
    the gold item with :func:`original_ranks_from_scores`, whose tie rule never favours it.
    """
    s = np.asarray(scores, dtype=float)
    if s.ndim != 2 or 0 in s.shape:
        raise DataError(
            f"scores must be a non-empty (n_queries, n_candidates) array, got shape {s.shape}"
        )
    order = np.argsort(-s, axis=1)  # unstable (about twice as fast); ties fixed below
    ranked = np.take_along_axis(s, order, axis=1)
    tied = np.flatnonzero((ranked[:, 1:] == ranked[:, :-1]).any(axis=1))
    if tied.size:  # rows with equal scores: the stable sort, so ties go by lower index
        order[tied] = np.argsort(-s[tied], axis=1, kind="stable")
    return order


def rankings_from_scores(scores: np.ndarray, gold: Sequence[int] | None = None) -> np.ndarray:
    """Rankings (candidate indices, best first) from scores; stable, gold last among ties.

    Ties between non-gold candidates keep candidate-index order. ``gold=None`` with a square
    matrix means gold[i] = i (the Flickr 8K test pools).
    """
    s = np.asarray(scores, dtype=float)
    if s.ndim != 2:
        raise DataError(f"scores must be a (n_queries, n_candidates) array, got shape {s.shape}")
    g = _gold(s.shape[0], s.shape[1], gold)
    is_gold = np.zeros(s.shape, dtype=np.int8)
    is_gold[np.arange(s.shape[0]), g] = 1
    idx = np.broadcast_to(np.arange(s.shape[1]), s.shape)
    # lexsort: last key is primary; sort by -score, then gold flag (gold after), then index
    return np.lexsort((idx, is_gold, -s), axis=1).astype(np.int64)


def validate_rankings(rankings: np.ndarray) -> np.ndarray:
    """Check that each row is a permutation of ``0..n_candidates-1``; errors name query and id."""
    r = np.asarray(rankings)
    if r.ndim != 2 or not np.issubdtype(r.dtype, np.integer):
        raise DataError(
            f"rankings must be a 2-d integer array, got shape {r.shape} dtype {r.dtype}"
        )
    n = r.shape[1]
    bad = (r < 0) | (r >= n)
    if bad.any():
        q, j = map(int, np.argwhere(bad)[0])
        raise DataError(
            f"query {q}: candidate index {int(r[q, j])} at position {j + 1} is outside 0..{n - 1}"
        )
    srt = np.sort(r, axis=1)
    dup = srt[:, 1:] == srt[:, :-1]
    if dup.any():
        q, j = map(int, np.argwhere(dup)[0])
        raise DataError(f"query {q}: candidate index {int(srt[q, j])} appears more than once")
    return r.astype(np.int64, copy=False)


def original_ranks(rankings: np.ndarray, gold: Sequence[int] | None = None) -> np.ndarray:
    """1-based position of each query's gold item in its ranking (full permutations)."""
    r = validate_rankings(rankings)
    g = _gold(r.shape[0], r.shape[1], gold)
    hit = r == g[:, None]
    return (np.argmax(hit, axis=1) + 1).astype(np.int64)


def recall_at_k(ranks: np.ndarray, k: int) -> PerQuery:
    """R@k (Section 4.3.1): per query 1.0 if the original is in the top k, and the percentage."""
    if k < 1:
        raise DataError(f"k must be >= 1, got {k}")
    hits = (np.asarray(ranks) <= k).astype(float)
    return PerQuery(f"R@{k}", hits, 100.0 * float(hits.mean()))


def median_rank(ranks: np.ndarray) -> PerQuery:
    """Median rank of the original item; an even count takes the mean of the two middle ranks."""
    r = np.asarray(ranks, dtype=float)
    if r.size == 0:
        raise DataError("median rank of zero queries is undefined")
    return PerQuery("median rank", r, float(np.median(r)))


def original_item_metrics(ranks: np.ndarray, ks: Sequence[int] = DEFAULT_KS) -> dict[str, PerQuery]:
    """R@k for each k and the median rank, keyed by metric name (Tables 3 and 11)."""
    out = {f"R@{k}": recall_at_k(ranks, k) for k in ks}
    out["median rank"] = median_rank(ranks)
    return out
