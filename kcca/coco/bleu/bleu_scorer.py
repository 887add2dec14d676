"""pycocoevalcap's ``bleu_scorer`` module (David Chiang's ``BleuScorer``, as the COCO caption
evaluation uses it: Chen et al. 2015, eq. 1-3), computed by :mod:`kcca.captions._bleu`.

``BleuScorer`` keeps the captions it is given and counts their n-grams when a score is asked
for (:func:`kcca.captions._bleu.corpus_stats`, all items at once); ``crefs`` and ``ctest``
cook them as pycocoevalcap's do when they are read. The module functions ``precook``,
``cook_refs`` and ``cook_test`` return pycocoevalcap's cooked forms. Not provided:
``ratio``, ``score_ratio`` and ``score_ratio_str``, which raise ``AttributeError`` in
pycocoevalcap 1.2 (``compute_score`` never sets ``_ratio``; ``fscore`` is not defined).
"""

from __future__ import annotations

import copy
from collections import defaultdict
from typing import Any

import numpy as np

from kcca.captions._bleu import (
    bleu_from_stats,
    bleu_matrix,
    closest_ref_length,
    corpus_stats,
    ngram_counts,
)
from kcca.captions._scorer import split_tokens
from kcca.coco._compat import CocoAttributeError, CocoInputError, CocoTypeError

__all__ = ["BleuScorer", "cook_refs", "cook_test", "precook"]


def precook(s: str, n: int = 4, out: bool = False) -> tuple[int, defaultdict]:
    """``(number of words, counts of every 1..n-gram)`` of a tokenised sentence."""
    words = s.split()
    return len(words), defaultdict(int, ngram_counts(words, n))


def cook_refs(refs: list[str], eff: str | None = None, n: int = 4) -> tuple[Any, dict]:
    """``(reference lengths, highest count of each n-gram over the references)``; with
    ``eff`` ``"shortest"`` or ``"average"`` the lengths become one number."""
    reflen = []
    maxcounts: dict = {}
    for ref in refs:
        rl, counts = precook(ref, n)
        reflen.append(rl)
        for ngram, count in counts.items():
            maxcounts[ngram] = max(maxcounts.get(ngram, 0), count)
    if eff == "shortest":
        return min(reflen), maxcounts
    if eff == "average":
        return float(sum(reflen)) / len(reflen), maxcounts
    return reflen, maxcounts


def cook_test(test: str, refs: tuple[Any, dict], eff: str | None = None, n: int = 4) -> dict:
    """``{"reflen", "testlen", "guess", "correct"}`` of a tokenised candidate against cooked
    references (:func:`cook_refs`)."""
    reflen, refmaxcounts = refs
    testlen, counts = precook(test, n, True)
    correct = [0] * n
    for ngram, count in counts.items():
        correct[len(ngram) - 1] += min(refmaxcounts.get(ngram, 0), count)
    return {
        "reflen": closest_ref_length(reflen, testlen) if eff == "closest" else reflen,
        "testlen": testlen,
        "guess": [max(0, testlen - k + 1) for k in range(1, n + 1)],
        "correct": correct,
    }


def _single_reflen(reflens: list[int], option: str | None, testlen: int) -> float:
    """The effective reference length of one item under ``option``."""
    if option == "shortest":
        return min(reflens)
    if option == "average":
        return float(sum(reflens)) / len(reflens)
    if option == "closest":
        return closest_ref_length(reflens, testlen)
    raise CocoInputError(f"unsupported reflen option {option}")


def _print_totals(totals: dict, ratio: float) -> None:
    """What pycocoevalcap's BLEU prints with ``verbose > 0``."""
    print(totals)
    print("ratio:", ratio)


class BleuScorer:
    """pycocoevalcap's ``BleuScorer``: ``scorer += (candidate, references)`` per item, then
    ``compute_score(option=None, verbose=0) -> ([BLEU-1..n], [[per item] * n])``.

    ``option`` is the effective reference length: ``"closest"`` (the COCO evaluation's),
    ``"average"`` or ``"shortest"``; None is ``"average"`` for one item, ``"closest"``
    otherwise. As pycocoevalcap's, a second call without new items returns the corpus list
    alone, and captions are cooked with 4-grams (``n`` above 4 is not supported there).

    Parameters
    ----------
    test : str or None, default=None
        A first item's tokenised candidate.
    refs : list of str or None, default=None
        Its tokenised references.
    n : int, default=4
        Highest n-gram order.
    special_reflen : float or None, default=None
        One reference length for every item.

    Examples
    --------
    >>> from kcca.coco.bleu.bleu_scorer import BleuScorer
    >>> scorer = BleuScorer(n=2)
    >>> scorer += ("a brown dog runs", ["a dog runs on the grass", "a brown dog"])
    >>> score, scores = scorer.compute_score(option="closest")
    >>> [round(s, 3) for s in score], scorer.size()
    ([0.75, 0.5], 1)
    """

    def __init__(
        self,
        test: str | None = None,
        refs: list[str] | None = None,
        n: int = 4,
        special_reflen: float | None = None,
    ):
        self.n = n
        self._tests: list[str | None] = []
        self._refs: list[list[str]] = []
        self._score: Any = None
        self._testlen: Any = None
        self._reflen: Any = None
        self.cook_append(test, refs)
        self.special_reflen = special_reflen

    @property
    def crefs(self) -> list[tuple[Any, dict]]:
        """The references, cooked as pycocoevalcap's (:func:`cook_refs`)."""
        return [cook_refs(refs) for refs in self._refs]

    @property
    def ctest(self) -> list[dict | None]:
        """The candidates, cooked as pycocoevalcap's (:func:`cook_test`)."""
        return [
            None if test is None else cook_test(test, cook_refs(refs))
            for test, refs in zip(self._tests, self._refs)
        ]

    def copy(self) -> BleuScorer:
        new = BleuScorer(n=self.n)
        new._tests = copy.copy(self._tests)
        new._refs = copy.copy(self._refs)
        return new

    def cook_append(self, test: str | None, refs: list[str] | None) -> None:
        if refs is not None:
            item = len(self._refs)
            _check_item(item, test, refs)
            self._refs.append(refs)
            self._tests.append(test)
        self._score = None

    def retest(self, new_test: str | list[str]) -> BleuScorer:
        if type(new_test) is str:
            new_test = [new_test]
        if len(new_test) != len(self._refs):
            raise CocoInputError(
                f"retest got {len(new_test)} candidate(s) for {len(self._refs)} item(s)"
            )
        for item, (test, refs) in enumerate(zip(new_test, self._refs)):
            _check_item(item, test, refs)
        self._tests = list(new_test)
        self._score = None
        return self

    def rescore(self, new_test: str | list[str]) -> Any:
        return self.retest(new_test).compute_score()

    def size(self) -> int:
        return len(self._refs)

    def __iadd__(self, other: Any) -> BleuScorer:
        if type(other) is tuple:
            self.cook_append(other[0], other[1])
        else:
            if not self.compatible(other):
                raise CocoInputError("incompatible BLEUs.")
            self._tests.extend(other._tests)
            self._refs.extend(other._refs)
            self._score = None
        return self

    def compatible(self, other: Any) -> bool:
        return isinstance(other, BleuScorer) and self.n == other.n

    def single_reflen(self, option: str = "average") -> float:
        return _single_reflen([len(split_tokens(r)) for r in self._refs[0]], option, 0)

    def reflen(self, option: str | None = None) -> Any:
        self.compute_score(option=option)
        return self._reflen

    def testlen(self, option: str | None = None) -> Any:
        self.compute_score(option=option)
        return self._testlen

    def recompute_score(self, option: str | None = None, verbose: int = 0) -> Any:
        self._score = None
        return self.compute_score(option, verbose)

    def compute_score(self, option: str | None = None, verbose: int = 0) -> Any:
        if self._score is not None:
            return self._score
        if option is None:
            option = "average" if len(self._refs) == 1 else "closest"
        missing = [k for k, test in enumerate(self._tests) if test is None]
        if missing:
            raise CocoTypeError(
                f"item {missing[0]} has references but no candidate (BleuScorer += "
                "(None, refs)); give every item a candidate, or retest(candidates)"
            )
        tests: list[str] = [t for t in self._tests if t is not None]  # every one, as checked
        ref_tokens = [[split_tokens(r) for r in refs] for refs in self._refs]
        cand_tokens = [split_tokens(t) for t in tests]
        testlen, closest, guess, correct = corpus_stats(ref_tokens, cand_tokens, self.n)
        if self.special_reflen is not None:
            reflen = [self.special_reflen] * len(cand_tokens)
        elif option == "closest":
            reflen = closest.tolist()
        else:
            reflen = [
                _single_reflen([len(r) for r in refs], option, len(cand))
                for refs, cand in zip(ref_tokens, cand_tokens)
            ]
        per_item = bleu_matrix(testlen, np.asarray(reflen, dtype=float), guess, correct)
        if verbose > 1:
            for test, refs, length in zip(tests, self._refs, reflen):
                print(cook_test(test, cook_refs(refs)), length)
        self._testlen = int(testlen.sum())
        self._reflen = sum(reflen, 0)
        totals = _comps(self._testlen, self._reflen, guess.sum(axis=0), correct.sum(axis=0))
        score = bleu_from_stats(self._testlen, self._reflen, totals["guess"], totals["correct"])
        if verbose > 0:
            _print_totals(totals, (self._testlen + 1e-15) / (self._reflen + 1e-9))
        self._score = [float(s) for s in score]
        return self._score, per_item.tolist()


def _comps(testlen: Any, reflen: Any, guess: Any, correct: Any) -> dict:
    """pycocoevalcap's dict of counts, in its key order, with Python numbers."""
    return {
        "testlen": int(testlen),
        "reflen": reflen,
        "guess": [int(g) for g in guess],
        "correct": [int(c) for c in correct],
    }


def _check_item(item: int, test: Any, refs: Any) -> None:
    """Refuse, naming the item, what pycocoevalcap's cooking fails on."""
    if test is not None and not isinstance(test, str):
        raise CocoAttributeError(
            f"the candidate of item {item} is a {type(test).__name__}, not a string: {test!r:.60}"
        )
    if not isinstance(refs, (list, tuple)) or not all(isinstance(r, str) for r in refs):
        raise CocoAttributeError(
            f"the references of item {item} must be a list of strings, not {refs!r:.60}"
        )
