"""CIDEr-D exactly as the COCO code computes it, and plain CIDEr (Vedantam et al. 2015).

Notation of Chen et al. (2015), Section 3.6: h_k(s) is the count of n-gram w_k in sentence s,
I the set of evaluated images (the images that have a candidate).

IDF (both metrics). The document frequency of an n-gram is the number of evaluated images
for which it occurs in at least one reference (eq. 16's denominator); the weight is
``log(|I|) - log(max(1, df))``, so an n-gram absent from every reference gets log |I| (the
``max(1, .)`` guard of pycocoevalcap, which avoids eq. 16's division by zero).

CIDEr-D (:class:`CiderD`, eq. 19-20; pycocoevalcap 1.2's ``Cider``, which it calls "CIDEr"):

    g_k(s) = h_k(s) * idf_k                      (raw counts, *not* eq. 16's normalised tf)
    CIDEr-D_n(c, S) = 10/m sum_j exp(-(l(c) - l(s_j))^2 / (2 sigma^2))
                      * sum_k min(g_k(c), g_k(s_j)) g_k(s_j) / (||g^n(c)|| ||g^n(s_j)||)   (19)
    CIDEr-D(c, S)   = (1/N) sum_n CIDEr-D_n,  N = 4, sigma = 6                           (20)

with the code's details: the division by the norms is skipped when either norm is zero
(the numerator is then zero too), and the length l(s) in the penalty is the sentence's
*bigram* count (``max(0, len - 1)``: the reference code adds term frequencies of the n = 2
vectors), which equals the word-length difference except for one-word sentences. The corpus
score is the mean of the per-item scores.

Plain CIDEr (:class:`Cider`, Vedantam et al. 2015, eq. 2-4 = Chen et al. eq. 16-18):

    g_k(s) = h_k(s) / sum_l h_l(s) * idf_k                                               (16)
    CIDEr_n(c, S) = 1/m sum_j cos(g^n(c), g^n(s_j))                                      (17)
    CIDEr(c, S) = sum_n w_n CIDEr_n,  w_n = 1/N                                          (18)

No clipping and no length penalty. Scale: the equations give values in [0, 1]; the original
CIDEr code (``pyciderevalcap/cider`` of Vedantam et al.'s release, like CIDEr-D's) multiplies
every per-image score by 10, and :class:`Cider` does too by default (``scale=10``), so that
its numbers are that code's and on CIDEr-D's scale; ``scale=1`` gives the equations' range.
The tf normalisation of eq. 16 cancels in the cosine (the original code uses raw counts); it
is kept for fidelity to the equation.
"""

from __future__ import annotations

import math

import numpy as np

from kcca.captions._ngrams import Entries, count_items, first_of_each_item

from kcca.captions._scorer import CaptionScorer
from kcca.errors import SettingError


def _inverse_row_totals(entries: Entries, n_rows: int) -> np.ndarray:
    """1 / (a row's n-gram count, at least 1): eq. 16's term-frequency normaliser."""
    return 1.0 / np.maximum(1.0, np.bincount(entries.rows, entries.values, minlength=n_rows))


class _CiderBase(CaptionScorer):
    """What CIDEr and CIDEr-D share: tf-idf weighting of n-grams (eq. 16) and the mean of
    the per-image scores each defines in :meth:`_image_scores`."""

    #: whether term frequencies are divided by the caption's n-gram count (plain CIDEr)
    _normalise_tf = False

    def __init__(self, n: int = 4):
        if n < 1:
            raise SettingError(f"CIDEr order n must be >= 1, got {n}")
        self.n = n

    def _weighted(self, references, candidates):
        """tf-idf entries of candidates and references, their per-order norms, owners."""
        ng, cand, ref, owner = count_items(references, candidates, self.n)
        n_items = len(candidates)
        # document frequency: images whose references contain the n-gram (eq. 16)
        df = np.bincount(ref.cols[first_of_each_item(ref, owner)], minlength=ng.n_ngrams)
        idf = math.log(float(n_items)) - np.log(np.maximum(1.0, df))
        cand_values, ref_values = cand.values, ref.values
        if self._normalise_tf:
            cand_values = _inverse_row_totals(cand, n_items)[cand.rows] * cand_values
            ref_values = _inverse_row_totals(ref, len(owner))[ref.rows] * ref_values
        cw = cand.with_values(cand_values * idf[cand.cols])
        rw = ref.with_values(ref_values * idf[ref.cols])
        norm_c = np.sqrt(ng.per_order(cw.with_values(cw.values * cw.values), n_items))
        norm_r = np.sqrt(ng.per_order(rw.with_values(rw.values * rw.values), len(owner)))
        return ng, cw, rw, norm_c, norm_r, owner

    def score_tokens(self, references, candidates):
        n_items = len(candidates)
        scores = self._image_scores(n_items, *self._weighted(references, candidates))
        return float(np.mean(scores)), scores

    def _image_scores(self, n_items, ng, cw, rw, norm_c, norm_r, owner) -> np.ndarray:
        """Per-image scores from the tf-idf matrices and norms of :meth:`_weighted`."""
        raise NotImplementedError


class CiderD(_CiderBase):
    """CIDEr-D of the COCO evaluation (pycocoevalcap's "CIDEr"), eq. 19-20.

    The IDF comes from the references of the images scored together, so an item's score
    depends on the other items of the call.

    Parameters
    ----------
    n : int, default=4
        Highest n-gram order.
    sigma : float, default=6.0
        Standard deviation of the Gaussian length penalty.

    See Also
    --------
    Cider : plain CIDEr (Vedantam et al. 2015).
    kcca.coco.cider.cider.Cider : the same numbers with pycocoevalcap's signature.

    Examples
    --------
    >>> from kcca.captions import CiderD
    >>> references = {1: ["a dog runs on the grass", "a brown dog is running"],
    ...               2: ["a red car on a road", "a car drives down the street"]}
    >>> candidates = {1: ["a brown dog runs on the grass"], 2: ["a red car on the street"]}
    >>> corpus, per_item = CiderD().compute_score(references, candidates)
    >>> round(corpus, 3), per_item.round(3)
    (4.241, array([4.886, 3.597]))
    """

    name = "cider_d"
    labels = ("CIDEr-D",)

    def __init__(self, n: int = 4, sigma: float = 6.0):
        super().__init__(n)
        if sigma <= 0:
            raise SettingError(f"CIDEr-D sigma must be positive, got {sigma}")
        self.sigma = sigma

    @property
    def params(self) -> dict:
        return {"n": self.n, "sigma": self.sigma}

    def _image_scores(self, n_items, ng, cw, rw, norm_c, norm_r, owner) -> np.ndarray:
        cand_at_ref = cw.values_at(owner[rw.rows], rw.cols, n_items)
        clipped = ng.per_order(  # (n_refs, n)
            rw.with_values(np.minimum(cand_at_ref, rw.values) * rw.values), len(owner)
        )
        denom = norm_c[owner] * norm_r
        val = np.where(denom != 0, clipped / np.where(denom != 0, denom, 1.0), clipped)
        lengths = ng.lengths
        if self.n > 1:  # the reference code's length: the bigram count
            bigrams = np.maximum(0, lengths - 1)
        else:
            bigrams = np.zeros_like(lengths)
        delta = (bigrams[:n_items][owner] - bigrams[n_items:]).astype(float)
        penalty = np.e ** (-(delta**2) / (2.0 * self.sigma**2))
        per_ref = (val * penalty[:, None]).sum(axis=1)
        m = np.bincount(owner, minlength=n_items)
        return np.bincount(owner, weights=per_ref, minlength=n_items) / self.n / m * 10.0


class Cider(_CiderBase):
    """Plain CIDEr of Vedantam et al. (2015), eq. 16-18 (labelled "CIDEr", not CIDEr-D).

    Parameters
    ----------
    n : int, default=4
        Highest n-gram order.
    scale : float, default=10.0
        Factor applied to every score: 10 as the original CIDEr code, 1 for the range of
        eq. 16-18.

    See Also
    --------
    CiderD : CIDEr-D, pycocoevalcap's "CIDEr".

    Examples
    --------
    >>> from kcca.captions import Cider
    >>> references = {1: ["a dog runs on the grass", "a brown dog is running"],
    ...               2: ["a red car on a road", "a car drives down the street"]}
    >>> candidates = {1: ["a brown dog runs on the grass"], 2: ["a red car on the street"]}
    >>> corpus, per_item = Cider().compute_score(references, candidates)
    >>> round(corpus, 3), per_item.round(3)
    (4.305, array([5.014, 3.597]))
    >>> print(Cider(scale=1).compute_score(references, candidates)[1].round(3))
    [0.501 0.36 ]
    """

    name = "cider"
    labels = ("CIDEr",)

    def __init__(self, n: int = 4, scale: float = 10.0):
        super().__init__(n)
        self.scale = scale

    @property
    def params(self) -> dict:
        return {"n": self.n, "scale": self.scale}

    _normalise_tf = True

    def _image_scores(self, n_items, ng, cw, rw, norm_c, norm_r, owner) -> np.ndarray:
        cand_at_ref = cw.values_at(owner[rw.rows], rw.cols, n_items)
        dots = ng.per_order(rw.with_values(cand_at_ref * rw.values), len(owner))
        denom = norm_c[owner] * norm_r
        cos = np.where(denom != 0, dots / np.where(denom != 0, denom, 1.0), 0.0)
        m = np.bincount(owner, minlength=n_items)
        return (
            self.scale * np.bincount(owner, weights=cos.sum(axis=1), minlength=n_items) / self.n / m
        )
