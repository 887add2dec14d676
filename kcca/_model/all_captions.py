"""A saved model under the all-captions retrieval protocol (kcca._evaluate.retrieval_protocol).

A run with ``--protocol all-captions`` ranks the protocol's pools itself
(:mod:`kcca._systems.all_captions`); a saved model (:class:`kcca._model.FittedSystem`) holds what
they need too: the test images' projections and each test image's captions
(``image_pool.captions``). Here every caption is projected as a query sentence is, and each
fold's pool is ranked as the system ranks any pool (Section 4.1.3; Borda points depend on the
pool, so each fold of COCO's 1K is ranked on its own)."""

from __future__ import annotations

from typing import Any

import numpy as np

from kcca.data._corpus import caption_id
from kcca.errors import DataError
from kcca._evaluate.retrieval_protocol import (
    CAPTIONS_PER_IMAGE,
    RetrievalProtocolResult,
    metrics_over_folds,
)
from kcca._systems.all_captions import borda_protocol_ranks


def fitted_system_retrieval(
    model: Any,
    *,
    captions_per_image: int = CAPTIONS_PER_IMAGE,
    n_folds: int = 1,
) -> RetrievalProtocolResult:
    """The all-captions protocol of a fitted KCCA system on its test images.

    ``model`` is a :class:`kcca._model.FittedSystem` (``fit_system`` or ``load_model``). The
    first ``captions_per_image`` captions of each test image form the caption pool (the
    literature keeps COCO's first five); ``n_folds`` as in
    :func:`kcca._evaluate.retrieval_protocol.retrieval_protocol` (COCO 1K: 5).

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
    captions = model.caption_pool_from_texts(
        *_pool_captions(images, captions_per_image), name=f"{images.name}, all captions"
    )
    return borda_protocol_ranks(
        model.projections,
        images.projections,
        captions.projections,
        captions_per_image=captions_per_image,
        n_folds=n_folds,
    )


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
