"""pycocoevalcap's ``cider_scorer`` module (``CiderScorer``: CIDEr-D, Chen et al. 2015,
eq. 19-20), computed by :class:`kcca.captions.CiderD`.

``CiderScorer`` keeps the captions it is given and computes every item at once when a score
is asked for; ``crefs`` and ``ctest`` cook them as pycocoevalcap's do when they are read.
Not provided: ``compute_doc_freq``, ``compute_cider``, ``document_frequency`` and
``ref_len``, the steps and state inside pycocoevalcap's ``compute_score``
(:class:`kcca.captions.CiderD` computes the idf weights and scores of all items in one
pass). pycocoevalcap counts the document frequencies again at each ``compute_score`` on
the same scorer (a second call gives other numbers); here every call gives the first
call's.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from typing import Any

import numpy as np

from kcca.captions._cider import CiderD
from kcca.captions._scorer import split_tokens
from kcca.coco._compat import CocoTypeError, ordered_inputs

from kcca.captions._bleu import ngram_counts

__all__ = ["CiderScorer", "cook_refs", "cook_test", "precook"]


def precook(s: str, n: int = 4, out: bool = False) -> defaultdict:
    """Counts of every 1..n-gram of a tokenised sentence."""
    return defaultdict(int, ngram_counts(s.split(), n))


def cook_refs(refs: list[str], n: int = 4) -> list[defaultdict]:
    """The n-gram counts of each reference."""
    return [precook(ref, n) for ref in refs]


def cook_test(test: str, n: int = 4) -> defaultdict:
    """The n-gram counts of the candidate."""
    return precook(test, n, True)


class CiderScorer:
    """pycocoevalcap's ``CiderScorer``: ``scorer += (candidate, references)`` per item, then
    ``compute_score() -> (mean, numpy array of per-item CIDEr-D)``, idf from the references
    of the items added.

    Parameters
    ----------
    test : str or None, default=None
        A first item's tokenised candidate.
    refs : list of str or None, default=None
        Its tokenised references.
    n : int, default=4
        Highest n-gram order.
    sigma : float, default=6.0
        Standard deviation of the Gaussian length penalty.

    Examples
    --------
    >>> from kcca.coco.cider.cider_scorer import CiderScorer
    >>> scorer = CiderScorer(n=4, sigma=6.0)
    >>> scorer += ("a brown dog runs on the grass", ["a dog runs on the grass", "a brown dog"])
    >>> scorer += ("a red car on the street", ["a red car on a road", "a car in the street"])
    >>> score, scores = scorer.compute_score()
    >>> print(round(score, 3), scores.round(3), scorer.size())
    2.986 [3.047 2.925] 2
    """

    def __init__(
        self, test: str | None = None, refs: list[str] | None = None, n: int = 4, sigma: float = 6.0
    ):
        self.n = n
        self.sigma = sigma
        self._tests: list[str | None] = []
        self._refs: list[list[str]] = []
        self.cook_append(test, refs)

    @property
    def crefs(self) -> list[list[defaultdict]]:
        """The references' n-gram counts, as pycocoevalcap's (:func:`cook_refs`)."""
        return [cook_refs(refs) for refs in self._refs]

    @property
    def ctest(self) -> list[defaultdict | None]:
        """The candidates' n-gram counts, as pycocoevalcap's (:func:`cook_test`)."""
        return [None if test is None else cook_test(test) for test in self._tests]

    def copy(self) -> CiderScorer:
        new = CiderScorer(n=self.n)
        new._tests = copy.copy(self._tests)
        new._refs = copy.copy(self._refs)
        return new

    def cook_append(self, test: str | None, refs: list[str] | None) -> None:
        if refs is not None:
            self._refs.append(refs)
            self._tests.append(test)

    def size(self) -> int:
        return len(self._refs)

    def __iadd__(self, other: Any) -> CiderScorer:
        if type(other) is tuple:
            self.cook_append(other[0], other[1])
        else:
            self._tests.extend(other._tests)
            self._refs.extend(other._refs)
        return self

    def compute_score(self, option: Any = None, verbose: int = 0) -> tuple[Any, np.ndarray]:
        missing = [k for k, test in enumerate(self._tests) if test is None]
        if missing:
            raise CocoTypeError(
                f"item {missing[0]} has references but no candidate (CiderScorer += "
                "(None, refs)); give every item a candidate"
            )
        keys = range(len(self._refs))
        tests: list[str] = [t for t in self._tests if t is not None]  # every one, as checked
        _, refs, cands = ordered_inputs(
            dict(zip(keys, self._refs)), {k: [t] for k, t in zip(keys, tests)}
        )
        ref_tokens = [[split_tokens(r) for r in rs] for rs in refs]
        _, per_item = CiderD(self.n, self.sigma).score_tokens(
            ref_tokens, [split_tokens(c) for c in cands]
        )
        scores = np.asarray(per_item, dtype=float)
        return np.mean(scores), scores
