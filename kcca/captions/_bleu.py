"""BLEU-1..4 (Papineni et al. 2002) as the COCO caption evaluation computes it.

Chen et al. (2015), eq. 1-3: clipped n-gram precision summed over the corpus

    CP_n(C, S) = sum_i sum_k min(h_k(c_i), max_j h_k(s_ij)) / sum_i sum_k h_k(c_i)      (1)

brevity penalty b = 1 if l_C > l_S else exp(1 - l_S / l_C)                              (2)
with l_S the sum over items of the *closest* reference length (ties go to the shorter
reference), and BLEU_N = b * exp(sum_n (1/N) log CP_n)                                    (3).

pycocoevalcap 1.2 (``bleu_scorer.py``, David Chiang's code) adds constants we reproduce
exactly: every precision is ``(correct + tiny) / (guess + small)`` with ``tiny = 1e-15`` and
``small = 1e-9``, the length ratio is ``(testlen + tiny) / (reflen + small)``, and the penalty
applies when that ratio is below 1. Per-item scores are the same formula on one item's counts
(cumulative BLEU-N of the sentence, with its own brevity penalty); note that per-item BLEU
differs between pycocoevalcap versions: this is 1.2's.

Smoothing (``smoothing="nist"``) is NIST geometric smoothing, method 3 of Chen & Cherry
(2014): a zero precision p_n = 0 / l_n is replaced by 1 / (2^k l_n), k = 1, 2, ... counting
the zero precisions from n = 1 upwards; no tiny/small constants. With it and lower-cased
text whose final "." is removed, Ellebracht et al. (2015)'s Figure 1 values come out.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Sequence

import numpy as np

from kcca.captions._ngrams import Entries, count_items, first_of_each_item, run_starts

from kcca.captions._scorer import CaptionScorer, Tokens
from kcca.errors import SettingError

TINY = 1e-15
SMALL = 1e-9
SMOOTHING = ("none", "nist")


def ngram_counts(tokens: Sequence[str], max_n: int = 4) -> Counter:
    """Counts of all 1..max_n-grams of a token list (keys are token tuples)."""
    counts: Counter = Counter()
    for n in range(1, max_n + 1):
        if len(tokens) >= n:
            counts.update(zip(*(tokens[i:] for i in range(n))))
    return counts


def closest_ref_length(ref_lengths: Sequence[int], test_length: int) -> int:
    """The reference length closest to ``test_length``; ties go to the shorter one."""
    return min((abs(r - test_length), r) for r in ref_lengths)[1]


def sentence_stats(
    references: Sequence[Tokens], candidate: Tokens, max_n: int = 4
) -> tuple[int, int, list[int], list[int]]:
    """``(testlen, reflen, guess, correct)`` of one item, reflen the closest length.

    ``correct[n-1]`` is the clipped n-gram match count (eq. 1's numerator for one item),
    ``guess[n-1] = max(0, testlen - n + 1)`` the candidate's n-gram count.
    """
    maxcounts: dict = {}
    for ref in references:
        for g, c in ngram_counts(ref, max_n).items():
            if c > maxcounts.get(g, 0):
                maxcounts[g] = c
    testlen = len(candidate)
    correct = [0] * max_n
    for g, c in ngram_counts(candidate, max_n).items():
        m = maxcounts.get(g)
        if m:
            correct[len(g) - 1] += c if c < m else m
    guess = [max(0, testlen - k + 1) for k in range(1, max_n + 1)]
    reflen = closest_ref_length([len(r) for r in references], testlen)
    return testlen, reflen, guess, correct


def bleu_from_stats(
    testlen: float,
    reflen: float,
    guess: Sequence[float],
    correct: Sequence[float],
    smoothing: str = "none",
) -> list[float]:
    """Cumulative BLEU-1..N from counts (eq. 3), pycocoevalcap's constants or NIST smoothing."""
    max_n = len(guess)
    out = []
    if smoothing == "none":
        prod = 1.0
        for k in range(max_n):
            prod *= (float(correct[k]) + TINY) / (float(guess[k]) + SMALL)
            out.append(prod ** (1.0 / (k + 1)))
        ratio = (testlen + TINY) / (reflen + SMALL)
        if ratio < 1:
            bp = math.exp(1 - 1 / ratio)
            out = [b * bp for b in out]
        return out
    if smoothing != "nist":
        raise SettingError(f"unknown BLEU smoothing {smoothing!r}; use one of {SMOOTHING}")
    if testlen == 0:
        return [0.0] * max_n
    log_sum = 0.0
    zeros = 0
    for k in range(max_n):
        denom = max(1.0, float(guess[k]))
        if correct[k] > 0:
            p = correct[k] / denom
        else:
            zeros += 1
            p = 1.0 / (2.0**zeros * denom)
        log_sum += math.log(p)
        out.append(math.exp(log_sum / (k + 1)))
    if testlen < reflen:
        bp = math.exp(1 - reflen / testlen)
        out = [b * bp for b in out]
    return out


class Bleu(CaptionScorer):
    """BLEU-1..``n``: corpus scores (list of n floats) and per-item scores ``(n, n_items)``.

    Captions are tokenised text (tokens separated by spaces), split by ``str.split()`` as
    pycocoevalcap's BLEU splits them.

    Parameters
    ----------
    n : int, default=4
        Highest n-gram order (4 for the COCO metrics).
    smoothing : {"none", "nist"}, default="none"
        ``"none"`` is pycocoevalcap 1.2; ``"nist"`` is Chen & Cherry's method 3, as used for
        Ellebracht et al.'s Figure 1.

    See Also
    --------
    kcca.coco.bleu.bleu.Bleu : the same numbers with pycocoevalcap's signature.

    Examples
    --------
    >>> from kcca.captions import Bleu
    >>> references = {1: ["a dog runs on the grass", "a brown dog is running"],
    ...               2: ["a red car on a road", "a car drives down the street"]}
    >>> candidates = {1: ["a brown dog runs on the grass"], 2: ["a red car on the street"]}
    >>> corpus, per_item = Bleu(4).compute_score(references, candidates)
    >>> [round(score, 3) for score in corpus]  # BLEU-1 .. BLEU-4
    [1.0, 0.953, 0.846, 0.714]
    >>> per_item.round(3)  # row k: BLEU-(k+1) of each item
    array([[1.   , 1.   ],
           [1.   , 0.894],
           [0.928, 0.737],
           [0.795, 0.604]])
    """

    name = "bleu"

    def __init__(self, n: int = 4, smoothing: str = "none"):
        if smoothing not in SMOOTHING:
            raise SettingError(f"unknown BLEU smoothing {smoothing!r}; use one of {SMOOTHING}")
        if n < 1:
            raise SettingError(f"BLEU order n must be >= 1, got {n}")
        self.n = n
        self.smoothing = smoothing
        self.labels = tuple(f"BLEU-{k}" for k in range(1, n + 1))

    @property
    def params(self) -> dict:
        return {"n": self.n, "smoothing": self.smoothing}

    def score_tokens(self, references, candidates):
        n = self.n
        testlen, reflen, guess, correct = corpus_stats(references, candidates, n)
        if self.smoothing == "none":
            per_item = bleu_matrix(testlen, reflen, guess, correct)
        else:
            per_item = np.array(
                [
                    bleu_from_stats(t, r, g, c, self.smoothing)
                    for t, r, g, c in zip(testlen, reflen, guess, correct)
                ]
            ).T
        corpus = bleu_from_stats(
            int(testlen.sum()),
            int(reflen.sum()),
            guess.sum(axis=0),
            correct.sum(axis=0),
            self.smoothing,
        )
        return corpus, per_item.reshape(n, len(candidates))


def corpus_stats(
    references: Sequence[Sequence[Tokens]], candidates: Sequence[Tokens], max_n: int = 4
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Vectorised :func:`sentence_stats` of every item: testlen, reflen (n,), guess, correct
    (n, max_n). Clipping counts use the per-item maximum count over references (eq. 1)."""
    ng, cand, ref, owner = count_items(references, candidates, max_n)
    n_items = len(candidates)
    # max count of every n-gram over each item's references, in (n-gram, item) order
    starts = first_of_each_item(ref, owner)
    most = np.maximum.reduceat(ref.values, starts) if len(starts) else ref.values
    refmax = Entries(owner[ref.rows[starts]], ref.cols[starts], most)
    clipped = np.minimum(cand.values, refmax.values_at(cand.rows, cand.cols, n_items))
    correct = np.rint(ng.per_order(cand.with_values(clipped), n_items)).astype(np.int64)
    testlen = ng.lengths[:n_items]
    ref_lengths = ng.lengths[n_items:]
    # closest reference length, ties to the shorter: order by (item, |diff|, length)
    diff = np.abs(ref_lengths - testlen[owner])
    order = np.lexsort((ref_lengths, diff, owner))
    firsts = run_starts(owner[order])
    reflen = np.empty(n_items, dtype=np.int64)
    reflen[owner[order][firsts]] = ref_lengths[order][firsts]
    guess = np.maximum(0, testlen[:, None] - np.arange(max_n)[None, :])
    return testlen, reflen, guess, correct


def bleu_matrix(
    testlen: np.ndarray, reflen: np.ndarray, guess: np.ndarray, correct: np.ndarray
) -> np.ndarray:
    """Per-item BLEU-1..N (N = guess.shape[1]) with pycocoevalcap's constants: (N, n_items)."""
    ratios = (correct.astype(float) + TINY) / (guess.astype(float) + SMALL)
    prod = np.cumprod(ratios, axis=1)
    out = prod ** (1.0 / np.arange(1, guess.shape[1] + 1))[None, :]
    ratio = (testlen + TINY) / (reflen + SMALL)
    short = ratio < 1
    out[short] *= np.exp(1 - 1 / ratio[short])[:, None]
    return out.T


def sentence_bleu(
    references: Sequence[Tokens], candidate: Tokens, n: int = 4, smoothing: str = "nist"
) -> list[float]:
    """Sentence-level cumulative BLEU-1..n of one tokenised candidate (NIST smoothing default).

    Parameters
    ----------
    references : sequence of sequence of str
        The references' tokens.
    candidate : sequence of str
        The candidate's tokens.
    n : int, default=4
        Highest n-gram order.
    smoothing : {"nist", "none"}, default="nist"
        As :class:`Bleu`.

    Returns
    -------
    list of float
        BLEU-1 .. BLEU-n.

    Examples
    --------
    >>> from kcca.captions import sentence_bleu
    >>> scores = sentence_bleu(["a dog runs on the grass".split()], "a dog runs on grass".split())
    >>> [round(s, 3) for s in scores]
    [0.819, 0.709, 0.65, 0.579]
    """
    testlen, reflen, guess, correct = sentence_stats(references, candidate, n)
    return bleu_from_stats(testlen, reflen, guess, correct, smoothing)
