"""Nearest-neighbour baselines (Section 3.1, eq. 2).

Eq. 2 with one nearest neighbour: for image annotation, find the training pair whose image
is most similar to the query image (``f_I``), then score each candidate caption by its text
similarity to that pair's text (``f_S``); image search is the mirror image. Both functions
work on precomputed blocks, so any kernel of the contract (pyramid image kernel; BoW5 or
trigram text kernels for NN5_BoW5 and NN5_TRI) or a similarity below plugs in:

* ``image_block[i, t] = f_I(image i, training image t)``, shape ``(n_images, n_train)``;
* ``text_block[s, t] = f_S(caption s, training text t)``, shape ``(n_captions, n_train)``,
  where a training text is the five captions of training image t merged into one document.

Ties in the nearest neighbour go to the lower training index.

The F1 text similarities of NN5_F1 and NN5_F1^idf (Section 3.1) are the ``nn-f1`` kernel of
:mod:`features.text._f1_similarity`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kcca._backend import to_real_numpy

__all__ = ["nn_annotation_scores", "nn_search_scores"]


def _block(block: Any, argument: str) -> np.ndarray:
    arr = np.asarray(to_real_numpy(block, argument), dtype=float)
    if arr.ndim != 2 or 0 in arr.shape:
        raise ValueError(
            f"{argument} must be a non-empty (n_items, n_train) block, got shape {arr.shape}"
        )
    if not np.isfinite(arr).all():
        i, j = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(f"{argument} has a non-finite entry at ({i}, {j})")
    return arr


def _pair(
    query_block: Any, candidate_block: Any, qname: str, cname: str
) -> tuple[np.ndarray, np.ndarray]:
    q, c = _block(query_block, qname), _block(candidate_block, cname)
    if q.shape[1] != c.shape[1]:
        raise ValueError(
            f"{qname} and {cname} must have the same training items (columns): "
            f"{q.shape[1]} vs {c.shape[1]}"
        )
    return q, c


def nn_annotation_scores(image_block: Any, text_block: Any) -> np.ndarray:
    """Eq. 2, annotation: ``scores[i, s] = f_S(s, text of NN(i))``, ``(n_images, n_captions)``."""
    img, txt = _pair(image_block, text_block, "image_block", "text_block")
    nn = np.argmax(img, axis=1)
    return txt[:, nn].T.copy()


def nn_search_scores(image_block: Any, text_block: Any) -> np.ndarray:
    """Eq. 2, search: ``scores[s, i] = f_I(i, image of NN(s))``, ``(n_captions, n_images)``."""
    txt, img = _pair(text_block, image_block, "text_block", "image_block")
    nn = np.argmax(txt, axis=1)
    return img[:, nn].T.copy()
