"""pycocoevalcap's ``Rouge``: ROUGE-L with beta 1.2 (Chen et al. 2015, eq. 5-7)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from kcca.captions._rouge import RougeL, lcs_length_bits, match_masks, rouge_l_item
from kcca.coco._compat import CocoInputError, ordered_inputs

__all__ = ["Rouge", "my_lcs"]


def my_lcs(string: list[str], sub: list[str]) -> int:
    """Length of the longest common subsequence of two token lists (pycocoevalcap's name).

    Examples
    --------
    >>> from kcca.coco.rouge.rouge import my_lcs
    >>> my_lcs("a dog runs on grass".split(), "a dog on the grass".split())
    4
    """
    return lcs_length_bits(match_masks(sub), len(sub), string) if sub else 0


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

    def calc_score(self, candidate: Sequence[str], refs: Sequence[str]) -> float:
        """ROUGE-L of one image: ``candidate`` a list holding one tokenised caption,
        ``refs`` its tokenised references (pycocoevalcap's checks and splitting)."""
        if len(candidate) != 1:
            raise CocoInputError(
                f"candidate must be a list holding one caption, not {candidate!r:.80}"
            )
        if len(refs) == 0:
            raise CocoInputError("refs must hold at least one reference caption")
        split = RougeL.split
        return rouge_l_item([split(r) for r in refs], split(candidate[0]), self.beta)

    def compute_score(self, gts: Mapping, res: Mapping) -> tuple[np.float64, np.ndarray]:
        _, references, candidates = ordered_inputs(gts, res)
        # item by item, as pycocoevalcap: no item's tokens are kept for the whole set
        per_item = np.array(
            [self.calc_score([cand], refs) for refs, cand in zip(references, candidates)],
            dtype=float,
        )
        return np.mean(per_item), per_item

    def method(self) -> str:
        return "Rouge"
