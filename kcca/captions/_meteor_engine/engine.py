"""The Meteor 1.5 engine without Java: what ``meteor-1.5.jar - - -stdio -l en -norm`` computes.

For each item the jar receives ``SCORE ||| ref 1 ||| ... ||| ref n ||| hypothesis``
(pycocoevalcap's format), splits it on ``|||``, trims the fields, normalises and lower-cases
them, aligns the hypothesis with every reference and keeps the statistics of the reference
with the highest score (the first one on ties: ``MeteorScorer.getMeteorStats``). One ``EVAL``
line then gives each segment's score and the corpus score of the summed statistics.
:class:`MeteorEngine` does the same in one call; segments, stems, synonym sets and paraphrase
look-ups are computed once per distinct text.

Items go through the compiled :mod:`.kernel` (segments as the flat arrays of
:mod:`.arrays`), whatever their length; its Python transcription, the reference it is tested
equal to, is the test oracle ``tests/support/meteor_oracle.py``. The kernel releases the
GIL: the items are scored in slices on one thread per CPU.
"""

from __future__ import annotations

from itertools import chain
from typing import Sequence

import numpy as np

from kcca.captions._meteor_engine.arrays import WordFeatures, segment_arrays
from kcca.captions._meteor_engine.normalize import (
    PLAIN_LINE,
    java_tokens,
    java_trim,
    normalize_line,
)
from kcca.captions._meteor_engine.resources import MeteorResources
from kcca.captions._meteor_engine.slices import in_threads
from kcca.captions._meteor_engine.stats import corpus_statistics

#: fewest items a thread of :func:`_score_items` gets
ITEMS_PER_THREAD = 500


def corpus_score(stats: np.ndarray) -> float:
    """The jar's ``EVAL`` answer for segments with statistics ``stats`` ``(n, 23)``: the
    score (:func:`.kernel.score`) of their :func:`.stats.corpus_statistics`."""
    from kcca.captions._meteor_engine.kernel import score

    return float(score(corpus_statistics(stats)))


def _score_items(
    hyp: np.ndarray, ref_off: np.ndarray, ref_seg: np.ndarray, args: tuple[np.ndarray, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`.kernel.score_items` of all items, in slices run by threads (items are
    independent, so the result is the same)."""
    from kcca.captions._meteor_engine.kernel import score_items

    def run(a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        return score_items(hyp[a:b], ref_off[a : b + 1], ref_seg, *args)

    rows, scores = in_threads(run, hyp.size, ITEMS_PER_THREAD)
    return rows, scores


def split_score_line(line: str) -> tuple[list[str], str]:
    """``(references, hypothesis)`` of a ``SCORE ||| r1 ||| ... ||| hyp`` line, as the jar
    splits it (``String.split`` drops trailing empty fields; fields are trimmed)."""
    parts = line.split("|||")
    while parts and parts[-1] == "":
        parts.pop()
    if len(parts) < 3:
        raise ValueError("a SCORE line needs a hypothesis and at least one reference")
    return [java_trim(p) for p in parts[1:-1]], java_trim(parts[-1])


class MeteorEngine:
    """Meteor 1.5 (``-l en -norm``, default task) without Java.

    Args:
        resources: the jar's resources and the paraphrase index
            (:class:`~kcca.captions._meteor_engine.resources.MeteorResources`).
    """

    def __init__(self, resources: MeteorResources):
        self.resources = resources
        self._words = WordFeatures.shared(resources)

    def tokens(self, text: str) -> list[str]:
        """The words Meteor aligns: normalised (``-norm``), lower-cased, split."""
        if PLAIN_LINE.fullmatch(text):  # what normalising leaves as it is, split the same way
            return text.split()
        norm = normalize_line(java_trim(text), self.resources.nonbreaking_prefixes)
        return java_tokens(norm.lower())

    def score_lines(
        self, references: Sequence[Sequence[str]], hypotheses: Sequence[str]
    ) -> tuple[float, np.ndarray, np.ndarray]:
        """Score raw segments (each field as the jar would receive it after splitting a
        ``SCORE`` line: no ``|||`` inside; :class:`kcca.captions.Meteor` removes them).

        Returns ``(corpus score, per-item scores (n,), per-item statistics (n, 23))``, the
        statistics as :mod:`.stats` lays them out.
        """
        if any(len(refs) == 0 for refs in references):
            raise ValueError("every hypothesis needs at least one reference")
        stats, per_item = self._kernel_stats(references, hypotheses)
        with self._words.lock:
            self._words.save()
        return corpus_score(stats), per_item, stats

    def _kernel_stats(
        self, references: Sequence[Sequence[str]], hypotheses: Sequence[str]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The statistics and the score of every item (:func:`.kernel.score_items`).

        Texts with the same words are one segment: segment ``k`` holds the words
        ``words[sum(lengths[:k]):][:lengths[k]]``. Every container here maps strings to
        integers or holds strings (no object per text), which keeps the collector's work small.
        """
        segment_of_text: dict[str, int] = {}
        segment_of_words: dict[str, int] = {}  # the words joined by spaces (none inside)
        words: list[str] = []
        lengths: list[int] = []
        for text in chain(hypotheses, chain.from_iterable(references)):
            if text in segment_of_text:
                continue
            tokens = self.tokens(text)
            key = " ".join(tokens)
            k = segment_of_words.get(key)
            if k is None:
                k = segment_of_words[key] = len(lengths)
                words.extend(tokens)
                lengths.append(len(tokens))
            segment_of_text[text] = k
        arrays = segment_arrays(words, lengths, self._words)
        seg = segment_of_text.__getitem__
        hyp = np.fromiter(map(seg, hypotheses), np.int64, len(hypotheses))
        n_refs = [len(refs) for refs in references]
        ref_seg = np.fromiter(map(seg, chain.from_iterable(references)), np.int64, sum(n_refs))
        ref_off = np.zeros(len(n_refs) + 1, np.int64)
        np.cumsum(n_refs, out=ref_off[1:])
        return _score_items(hyp, ref_off, ref_seg, arrays.kernel_args())
