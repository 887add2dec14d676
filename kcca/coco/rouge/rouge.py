"""pycocoevalcap's ``Rouge``: ROUGE-L with beta 1.2 (Chen et al. 2015, eq. 5-7)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from kcca.captions.rouge import RougeL
from kcca.coco._compat import score


class Rouge:
    """``Rouge().compute_score(gts, res) -> (mean, numpy array of per-item scores)``, items
    in ``gts``'s order; captions split at spaces only, as pycocoevalcap splits them.

    A drop-in for pycocoevalcap's ``pycocoevalcap.rouge.rouge.Rouge`` (see its documentation
    for the interface), ROUGE-L with beta 1.2.

    See Also
    --------
    kcca.captions.RougeL : the scorer behind it.

    Examples
    --------
    >>> from kcca.coco.rouge.rouge import Rouge
    >>> gts = {1: ["a dog runs on the grass", "a brown dog is running"]}
    >>> score, scores = Rouge().compute_score(gts, {1: ["a brown dog runs on the grass"]})
    >>> print(round(score, 3), scores.round(3), Rouge().method())
    0.936 [0.936] Rouge
    """

    def __init__(self):
        self.beta = 1.2

    def compute_score(self, gts: Mapping, res: Mapping) -> tuple[np.float64, np.ndarray]:
        _, per_item = score(RougeL(self.beta), gts, res)
        per_item = np.asarray(per_item, dtype=float)
        return np.mean(per_item), per_item

    def method(self) -> str:
        return "Rouge"
