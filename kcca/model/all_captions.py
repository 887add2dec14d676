"""A fitted system under the all-captions retrieval protocol (kcca.evaluate.retrieval_protocol).

``run_system`` ranks the paper's test pool, one caption per image (Section 4.1.1), so its
rankings cannot give the later literature's figures, which rank all five captions of every
test image. A saved model (:class:`kcca.model.FittedSystem`) holds what they need: the test
images' projections and each test image's captions (``image_pool.captions``). Here every
caption is projected as a query sentence is, and each fold's pool is ranked as the system
ranks any pool: per task the cosine scores (eq. 4) of its dev-selected models, aggregated by
Borda count (Section 4.1.3). A candidate's score for the protocol is ``N - position`` in that
Borda ranking, so the protocol's ranks are the system's own positions (Borda leaves no ties).

Borda points depend on the pool, so with folds (COCO 1K) each fold is ranked as a pool of its
own, never cut out of the 5K ranking.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from kcca.borda import borda_from_scores
from kcca.data.corpus import caption_id
from kcca.errors import DataError
from kcca.evaluate.retrieval_protocol import (
    CAPTIONS_PER_IMAGE,
    RetrievalProtocolResult,
    annotation_ranks,
    fold_slices,
    metrics_over_folds,
    search_ranks,
    standard_caption_images,
)

#: score cells (models x query rows x candidates) the Borda step holds at once
_BLOCK_CELLS = 1 << 23


def fitted_system_retrieval(
    model: Any,
    *,
    captions_per_image: int = CAPTIONS_PER_IMAGE,
    n_folds: int = 1,
) -> RetrievalProtocolResult:
    """The all-captions protocol of a fitted KCCA system on its test images.

    ``model`` is a :class:`kcca.model.FittedSystem` (``fit_system`` or ``load_model``). The
    first ``captions_per_image`` captions of each test image form the caption pool (the
    literature keeps COCO's first five); ``n_folds`` as in
    :func:`kcca.evaluate.retrieval_protocol.retrieval_protocol` (COCO 1K: 5).

    The captions are preprocessed as query sentences (``model.info["query_preprocessing"]``):
    for a system trained on the captions this is the training preprocessing; for one trained on
    the released lemma file it is the model's own lemmatiser, so the figures can differ a little
    from those of a pipeline run on the lemma file.

    Raises:
        DataError: a model without the test images' captions, an image with fewer than
            ``captions_per_image`` captions, folds that do not divide the test images.
    """
    ranks = fitted_system_ranks(model, captions_per_image=captions_per_image, n_folds=n_folds)
    n_images = len(model.image_pool)
    return metrics_over_folds(ranks, n_images=n_images, n_captions=n_images * captions_per_image)


def fitted_system_ranks(
    model: Any,
    *,
    captions_per_image: int = CAPTIONS_PER_IMAGE,
    n_folds: int = 1,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per fold, the 1-based ``(annotation ranks, search ranks)`` of
    :func:`fitted_system_retrieval`: one per test image of the fold (the best of its captions),
    one per caption (``captions_per_image`` consecutive captions per image, in pool order)."""
    images = model.image_pool
    folds = fold_slices(len(images), n_folds)
    captions = model.caption_pool_from_texts(
        *_pool_captions(images, captions_per_image), name=f"{images.name}, all captions"
    )
    gold = standard_caption_images(len(images) // n_folds, captions_per_image)
    out = []
    for fold in folds:
        cap = slice(fold.start * captions_per_image, fold.stop * captions_per_image)
        x = {k: v[fold] for k, v in images.projections.items()}
        y = {k: v[cap] for k, v in captions.projections.items()}
        annotation = _borda_scores(model, "annotation", x, y)
        search = _borda_scores(model, "search", y, x)
        out.append((annotation_ranks(annotation, gold), search_ranks(search, gold)))
    return out


def _pool_captions(images: Any, captions_per_image: int) -> tuple[list[str], list[str]]:
    """(texts, caption ids) of the first ``captions_per_image`` captions of each pool image."""
    if images.captions is None:
        raise DataError(
            f"the model's test pool {images.name!r} keeps no captions of its images",
            fix="refit the model with kcca fit-model (models fitted on a corpus keep them)",
        )
    texts: list[str] = []
    ids: list[str] = []
    for image_id, own in zip(images.ids, images.captions):
        if len(own) < captions_per_image:
            raise DataError(
                f"test image {image_id!r} has {len(own)} captions, fewer than the "
                f"{captions_per_image} of the protocol",
                fix="pass captions_per_image no larger than the fewest captions of a test image",
            )
        texts += own[:captions_per_image]
        ids += [caption_id(image_id, n) for n in range(captions_per_image)]
    return texts, ids


def _borda_scores(
    model: Any,
    task: str,
    queries: Mapping[float, np.ndarray],
    candidates: Mapping[float, np.ndarray],
) -> np.ndarray:
    """``N - position`` of each candidate in the system's Borda ranking of each query
    (Section 4.1.3), ranked in blocks of queries (each query's ranking is its own)."""
    n_queries = len(next(iter(queries.values())))
    n_candidates = len(next(iter(candidates.values())))
    n_models = len(model.projections.selected[task])
    step = max(1, _BLOCK_CELLS // (n_models * n_candidates))
    # float32 holds every position exactly (pools up to 2**24 candidates) in half the memory
    out = np.empty((n_queries, n_candidates), dtype=np.float32)
    points = np.arange(n_candidates, 0, -1, dtype=np.float32)
    for start in range(0, n_queries, step):
        rows = slice(start, min(start + step, n_queries))
        block = {k: v[rows] for k, v in queries.items()}
        ranking = borda_from_scores(model.projections.scores(task, block, candidates)).ranking
        np.put_along_axis(out[rows], ranking, np.broadcast_to(points, ranking.shape), axis=1)
    return out
