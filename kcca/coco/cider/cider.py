"""pycocoevalcap's ``Cider``, which is CIDEr-D (Chen et al. 2015, eq. 19-20)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from kcca.captions._cider import CiderD
from kcca.coco.cider.cider_scorer import CiderScorer
from kcca.coco._compat import score


__all__ = ["Cider", "CiderScorer"]  # pycocoevalcap's module imports CiderScorer too


class Cider:
    """``Cider().compute_score(gts, res) -> (mean, numpy array of per-item scores)``: CIDEr-D
    with n-grams up to ``n`` and length penalty ``sigma``, idf from the references of the
    scored images, items in ``gts``'s order. (Plain CIDEr is :class:`kcca.captions.Cider`.)

    A drop-in for pycocoevalcap's ``pycocoevalcap.cider.cider.Cider`` (see its documentation
    for the interface).

    Parameters
    ----------
    test, refs : ignored, default=None
        pycocoevalcap's unused arguments.
    n : int, default=4
        Highest n-gram order.
    sigma : float, default=6.0
        Standard deviation of the Gaussian length penalty.

    See Also
    --------
    kcca.captions.CiderD : the scorer behind it.

    Examples
    --------
    >>> from kcca.coco.cider.cider import Cider
    >>> gts = {1: ["a dog runs on the grass", "a brown dog is running"],
    ...        2: ["a red car on a road", "a car drives down the street"]}
    >>> res = {1: ["a brown dog runs on the grass"], 2: ["a red car on the street"]}
    >>> score, scores = Cider().compute_score(gts, res)
    >>> print(round(score, 3), scores.round(3), Cider().method())
    4.241 [4.886 3.597] CIDEr
    """

    def __init__(self, test=None, refs=None, n: int = 4, sigma: float = 6.0):
        self._n = n
        self._sigma = sigma

    def compute_score(self, gts: Mapping, res: Mapping) -> tuple[np.float64, np.ndarray]:
        _, per_item = score(CiderD(self._n, self._sigma), gts, res)
        per_item = np.asarray(per_item, dtype=float)
        return np.mean(per_item), per_item

    def method(self) -> str:
        return "CIDEr"
