"""A system's test ranks under the all-captions protocol (:mod:`kcca._evaluate.protocol_ranks`).

The pool holds every test image and the first ``captions_per_image`` captions of each, in pool
order (image ``i`` owns captions ``i * c .. (i + 1) * c - 1``). A KCCA system ranks it as it
ranks the paper's pool (Section 4.1.3): per task, the cosine scores (eq. 4) of its
dev-selected models, aggregated by Borda count; a candidate's protocol score is
``N - position`` in that ranking, so the protocol's ranks are the system's own positions
(Borda leaves no ties). An NN system (eq. 2) is scored directly. Borda points depend on the
pool, so each fold is ranked as a pool of its own, never cut out of a larger ranking.
"""

from __future__ import annotations

from typing import Callable, Mapping

import numpy as np

from kcca._borda import borda_from_scores
from kcca._evaluate.protocol_ranks import FoldRanks
from kcca._evaluate.retrieval_protocol import (
    annotation_ranks,
    fold_slices,
    search_ranks,
    standard_caption_images,
)
from kcca._systems.fitted import Projections

#: score cells (models x query rows x candidates) the Borda step holds at once
_BLOCK_CELLS = 1 << 23


def _caption_rows(images: slice, captions_per_image: int) -> slice:
    return slice(images.start * captions_per_image, images.stop * captions_per_image)


def borda_protocol_ranks(
    projections: Projections,
    images: Mapping[float, np.ndarray],
    captions: Mapping[float, np.ndarray],
    *,
    captions_per_image: int,
    n_folds: int = 1,
    advance: Callable[[int], object] | None = None,
) -> list[FoldRanks]:
    """Per fold, the 1-based (annotation, search) ranks of a KCCA system's Borda rankings.

    ``images`` and ``captions`` are the projections (kappa -> rows) of the test images and of
    their captions, ``captions_per_image`` consecutive captions per image
    (:meth:`Projections.project_x` / :meth:`Projections.project_y`); ``advance(n)`` is called
    as each block of ``n`` queries is ranked (a progress bar's ``update``)."""
    n_images = len(next(iter(images.values())))
    out = []
    for fold in fold_slices(n_images, n_folds):
        cap = _caption_rows(fold, captions_per_image)
        x = {k: v[fold] for k, v in images.items()}
        y = {k: v[cap] for k, v in captions.items()}
        gold = standard_caption_images(fold.stop - fold.start, captions_per_image)
        annotation = _borda_scores(projections, "annotation", x, y, advance)
        search = _borda_scores(projections, "search", y, x, advance)
        out.append((annotation_ranks(annotation, gold), search_ranks(search, gold)))
    return out


def score_protocol_ranks(
    annotation_scores: np.ndarray,
    search_scores: np.ndarray,
    *,
    captions_per_image: int,
    n_folds: int = 1,
) -> list[FoldRanks]:
    """Per fold, the 1-based (annotation, search) ranks of scores that do not depend on the
    pool (NN, eq. 2): ``annotation_scores`` (n_images, n_captions), ``search_scores``
    (n_captions, n_images); ties in the literature's order
    (:mod:`kcca._evaluate.retrieval_protocol`)."""
    out = []
    for fold in fold_slices(annotation_scores.shape[0], n_folds):
        cap = _caption_rows(fold, captions_per_image)
        gold = standard_caption_images(fold.stop - fold.start, captions_per_image)
        out.append(
            (
                annotation_ranks(annotation_scores[fold, cap], gold),
                search_ranks(search_scores[cap, fold], gold),
            )
        )
    return out


def _borda_scores(
    projections: Projections,
    task: str,
    queries: Mapping[float, np.ndarray],
    candidates: Mapping[float, np.ndarray],
    advance: Callable[[int], object] | None = None,
) -> np.ndarray:
    """``N - position`` of each candidate in the system's Borda ranking of each query
    (Section 4.1.3), ranked in blocks of queries (each query's ranking is its own)."""
    n_queries = len(next(iter(queries.values())))
    n_candidates = len(next(iter(candidates.values())))
    n_models = len(projections.selected[task])
    step = max(1, _BLOCK_CELLS // (n_models * n_candidates))
    # float32 holds every position exactly (pools up to 2**24 candidates) in half the memory
    out = np.empty((n_queries, n_candidates), dtype=np.float32)
    points = np.arange(n_candidates, 0, -1, dtype=np.float32)
    for start in range(0, n_queries, step):
        rows = slice(start, min(start + step, n_queries))
        block = {k: v[rows] for k, v in queries.items()}
        ranking = borda_from_scores(projections.scores(task, block, candidates)).ranking
        np.put_along_axis(out[rows], ranking, np.broadcast_to(points, ranking.shape), axis=1)
        if advance is not None:
            advance(rows.stop - rows.start)
    return out
