"""ROUGE-L (Lin 2004) as the COCO caption evaluation computes it.

Chen et al. (2015), eq. 5-7, with l(c, s) the length of the longest common subsequence:

    R_l = max_j l(c_i, s_ij) / |s_ij|                                              (5)
    P_l = max_j l(c_i, s_ij) / |c_i|                                               (6)
    ROUGE_L = (1 + beta^2) R_l P_l / (R_l + beta^2 P_l),   beta = 1.2              (7)

The two maxima are taken *separately* over the references (they may come from different
references), and the score is 0 when either is 0; the corpus score is the mean over items
(pycocoevalcap 1.2, ``rouge.py``). pycocoevalcap splits on single spaces, so an empty caption
counts as one empty token: lengths here are ``max(1, len)``, which gives the same scores.

The LCS length uses the bit-parallel algorithm of Allison & Dix (1986) / Crochemore et al.
(2001): one machine-word update per token of the other sentence instead of a dynamic-
programming row (equal results; the tests hold the textbook recurrence as its reference).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from kcca.captions._scorer import CaptionScorer, split_at_spaces, Tokens
from kcca.errors import SettingError


def match_masks(a: Sequence[str]) -> dict[str, int]:
    """Bit masks of ``a``: bit i of ``masks[w]`` is set when ``a[i] == w``."""
    masks: dict[str, int] = {}
    for i, w in enumerate(a):
        masks[w] = masks.get(w, 0) | (1 << i)
    return masks


def lcs_length_bits(masks: dict[str, int], len_a: int, b: Sequence[str]) -> int:
    """LCS length of ``a`` (given by :func:`match_masks`) and ``b``, bit-parallel.

    V starts all ones; per token y of b: U = V & M[y]; V = (V + U) | (V - U). The LCS length is
    the number of zero bits of V among the low ``len_a`` bits.
    """
    full = (1 << len_a) - 1
    v = full
    for y in b:
        u = v & masks.get(y, 0)
        if u:
            v = ((v + u) | (v - u)) & full
    return len_a - v.bit_count()


def rouge_l_item(references: Sequence[Tokens], candidate: Tokens, beta: float = 1.2) -> float:
    """ROUGE-L of one candidate against its references (eq. 5-7)."""
    masks = match_masks(candidate)
    len_c = len(candidate)
    prec_max = rec_max = 0.0
    for ref in references:
        lcs = lcs_length_bits(masks, len_c, ref) if len_c else 0
        p = lcs / max(1, len_c)
        r = lcs / max(1, len(ref))
        if p > prec_max:
            prec_max = p
        if r > rec_max:
            rec_max = r
    if prec_max != 0 and rec_max != 0:
        b2 = beta * beta
        return ((1 + b2) * prec_max * rec_max) / float(rec_max + b2 * prec_max)
    return 0.0


class RougeL(CaptionScorer):
    """ROUGE-L with ``beta`` (1.2 in the COCO code): mean over items and per-item scores.

    Captions are tokenised text, split at spaces only, as pycocoevalcap's ROUGE-L splits them.

    Parameters
    ----------
    beta : float, default=1.2
        Weight of recall against precision (eq. 7).

    See Also
    --------
    kcca.coco.rouge.rouge.Rouge : the same numbers with pycocoevalcap's signature.

    Examples
    --------
    >>> from kcca.captions import RougeL
    >>> references = {1: ["a dog runs on the grass", "a brown dog is running"],
    ...               2: ["a red car on a road", "a car drives down the street"]}
    >>> candidates = {1: ["a brown dog runs on the grass"], 2: ["a red car on the street"]}
    >>> corpus, per_item = RougeL().compute_score(references, candidates)
    >>> round(corpus, 3), per_item.round(3)
    (0.801, array([0.936, 0.667]))
    """

    name = "rouge_l"
    labels = ("ROUGE-L",)

    split = staticmethod(split_at_spaces)

    def __init__(self, beta: float = 1.2):
        if beta <= 0:
            raise SettingError(f"ROUGE-L beta must be positive, got {beta}")
        self.beta = beta

    @property
    def params(self) -> dict:
        return {"beta": self.beta}

    def score_tokens(self, references, candidates):
        scores = np.array(
            [rouge_l_item(r, c, self.beta) for r, c in zip(references, candidates)], dtype=float
        )
        return float(np.mean(scores)), scores
