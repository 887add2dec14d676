"""The pure-Python Meteor 1.5 engine: what ``meteor-1.5.jar - - -stdio -l en -norm`` computes.

For each item the jar receives ``SCORE ||| ref 1 ||| ... ||| ref n ||| hypothesis``
(pycocoevalcap's format), splits it on ``|||``, trims the fields, normalises and lower-cases
them, aligns the hypothesis with every reference and keeps the statistics of the reference
with the highest score (the first one on ties: ``MeteorScorer.getMeteorStats``). One ``EVAL``
line then gives each segment's score and the corpus score of the summed statistics.
:class:`MeteorEngine` does the same in one call; segments, stems, synonym sets and paraphrase
look-ups are computed once per distinct text.

Items go through the compiled :mod:`.kernel` (segments as the flat arrays of
:mod:`.arrays`); :meth:`MeteorEngine.segment_stats` is the same computation in Python,
used for the items with a segment longer than :data:`.kernel.MAX_WORDS` words and kept as
the reference the kernel transcribes. The kernel releases the GIL: the items are scored in
slices on one thread per CPU.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from kcca.captions.meteor_engine.aligner import align, find_candidates
from kcca.captions.meteor_engine.arrays import WordFeatures, segment_arrays
from kcca.captions.meteor_engine.matcher import Segment, java_hash
from kcca.captions.meteor_engine.normalize import (
    PLAIN_LINE,
    java_tokens,
    java_trim,
    normalize_line,
)
from kcca.captions.meteor_engine.params import DELTA
from kcca.captions.meteor_engine.resources import MeteorResources
from kcca.captions.meteor_engine.slices import in_threads
from kcca.captions.meteor_engine.stats import (
    N_MODULES,
    Stats,
    aggregate,
    score,
    score_upper_bound,
)
from kcca.captions.meteor_engine.stemmer import stem

#: how far below the best score a reference's bound must lie for it to be skipped (far above
#: the rounding of either computation, far below any difference between two scores)
BOUND_MARGIN = 1e-9
#: fewest items a thread of :func:`_score_items` gets
ITEMS_PER_THREAD = 500
_FUNCTION_WEIGHT = 1.0 - DELTA


def _coverage(function: Sequence[bool], coverage: Sequence[int]) -> tuple[float, float, int]:
    """``(weighted covered words, weighted length, covered words)`` of one side, each word
    weighted ``delta`` (content) or ``1 - delta`` (function word) at module weight 1."""
    matchable = length = 0.0
    covered = 0
    for f, c in zip(function, coverage):
        w = _FUNCTION_WEIGHT if f else DELTA
        length += w
        if c:
            matchable += w
            covered += 1
    return matchable, length, covered


def _score_bound(test: Segment, ref: Segment, coverage1: list[int], coverage2: list[int]) -> float:
    """:func:`score_upper_bound` of one pair from its candidate matches' coverage."""
    m1, l1, c1 = _coverage(test.function, coverage1)
    m2, l2, c2 = _coverage(ref.function, coverage2)
    perfect = c1 == len(coverage1) and c2 == len(coverage2)
    return score_upper_bound(m1, l1, m2, l2, None if perfect else (c1 + c2) / 2)


def _stats(row: list[int]) -> Stats:
    """:class:`Stats` of the kernel's 23 numbers (ints, as the Python path's)."""
    stages = tuple(tuple(row[4 + 4 * i : 8 + 4 * i]) for i in range(N_MODULES))
    return Stats(row[0], row[1], row[2], row[3], stages, row[20], row[21], row[22])


def _score_items(
    hyp: np.ndarray, ref_off: np.ndarray, ref_seg: np.ndarray, args: tuple[np.ndarray, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`.kernel.score_items` of all items, in slices run by threads (items are
    independent, so the result is the same)."""
    from kcca.captions.meteor_engine.kernel import score_items

    def run(a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        return score_items(hyp[a:b], ref_off[a : b + 1], ref_seg, *args)

    rows, done = in_threads(run, hyp.size, ITEMS_PER_THREAD)
    return rows, done


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
    """Meteor 1.5 (``-l en -norm``, default task) in Python.

    Args:
        resources: the jar's resources and the paraphrase index
            (:class:`~kcca.captions.meteor_engine.resources.MeteorResources`).
    """

    def __init__(self, resources: MeteorResources):
        self.resources = resources
        self._words = WordFeatures.shared(resources)

    def tokens(self, text: str) -> tuple[str, ...]:
        """The words Meteor aligns: normalised (``-norm``), lower-cased, split."""
        if PLAIN_LINE.fullmatch(text):  # what normalising leaves as it is, split the same way
            return tuple(text.split())
        norm = normalize_line(java_trim(text), self.resources.nonbreaking_prefixes)
        return tuple(java_tokens(norm.lower()))

    def segment_stats(self, test: Segment, refs: Sequence[Segment], table: dict) -> Stats:
        """Statistics of the best reference (``getMeteorStats(test, references)``: the
        highest score, the first reference on ties).

        References are aligned in decreasing order of an upper bound of their score
        (:func:`~kcca.captions.meteor_engine.stats.score_upper_bound`, from the candidate
        matches), and one whose bound is below the best score found is not aligned: it
        cannot be the best. The chosen statistics are the jar's.
        """
        n1, f1 = len(test.words), sum(test.function)
        found = [find_candidates(test, ref, table, N_MODULES) for ref in refs]
        bounds = [_score_bound(test, ref, c[1], c[2]) for ref, c in zip(refs, found)]
        best, best_score, best_k = None, -1.0, -1
        for k in sorted(range(len(refs)), key=bounds.__getitem__, reverse=True):
            if bounds[k] < best_score - BOUND_MARGIN:
                continue
            ref = refs[k]
            a = align(test, ref, table, N_MODULES, candidates=found[k])
            # integer counts: every sum and product below is the jar's double arithmetic
            st = Stats(
                n1,
                len(ref.words),
                f1,
                sum(ref.function),
                a.stage_matches,
                a.chunks,
                a.test_matches,
                a.ref_matches,
            )
            s = score(st)
            if s > best_score or (s == best_score and k < best_k):
                best, best_score, best_k = st, s, k
        # None only for no references at all, which the scorer's input checks refuse
        return best  # type: ignore[return-value]

    def score_lines(
        self, references: Sequence[Sequence[str]], hypotheses: Sequence[str]
    ) -> tuple[float, list[float], list[Stats]]:
        """Score raw segments (each field as the jar would receive it after splitting a
        ``SCORE`` line: no ``|||`` inside; :class:`kcca.captions.Meteor` removes them).

        Returns ``(corpus score, per-item scores, per-item statistics)``.
        """
        texts: dict[str, tuple[str, ...]] = {}
        for t in hypotheses:
            if t not in texts:
                texts[t] = self.tokens(t)
        for refs in references:
            for t in refs:
                if t not in texts:
                    texts[t] = self.tokens(t)
        found = self._kernel_stats(texts, references, hypotheses)
        with self._words.lock:
            self._words.save()
        left = [k for k, st in enumerate(found) if st is None]
        if left:  # long segments: the Python path
            refs_left = [references[k] for k in left]
            hyps_left = [hypotheses[k] for k in left]
            needed = {t: texts[t] for t in [*hyps_left, *(r for rs in refs_left for r in rs)]}
            segments = self._segments(needed, refs_left, hyps_left)
            for k, refs, h in zip(left, refs_left, hyps_left):
                found[k] = self.segment_stats(segments[h], [segments[r] for r in refs], self._table)
        stats = [st for st in found if st is not None]  # all of them by now
        per_item = [score(s) for s in stats]
        return score(aggregate(stats)), per_item, stats

    def _kernel_stats(
        self,
        texts: dict[str, tuple[str, ...]],
        references: Sequence[Sequence[str]],
        hypotheses: Sequence[str],
    ) -> list[Stats | None]:
        """The statistics of every item that :func:`.kernel.score_items` can score (None
        for the others)."""
        distinct = list(dict.fromkeys(texts.values()))
        number = {words: k for k, words in enumerate(distinct)}
        seg = {t: number[words] for t, words in texts.items()}
        arrays = segment_arrays(distinct, self._words)
        hyp = np.fromiter(map(seg.__getitem__, hypotheses), np.int64, len(hypotheses))
        ref_seg = np.fromiter(
            (seg[r] for refs in references for r in refs),
            np.int64,
            sum(len(refs) for refs in references),
        )
        ref_off = np.concatenate(([0], np.cumsum([len(refs) for refs in references])))
        rows, done = _score_items(hyp, ref_off.astype(np.int64), ref_seg, arrays.kernel_args())
        return [_stats(row) if ok else None for row, ok in zip(rows.tolist(), done.tolist())]

    def _segments(
        self,
        texts: dict[str, tuple[str, ...]],
        references: Sequence[Sequence[str]],
        hypotheses: Sequence[str],
    ) -> dict[str, Segment]:
        """Matcher features of every distinct text (words looked up once)."""
        res = self.resources
        distinct = list(dict.fromkeys(texts.values()))
        index = {words: k for k, words in enumerate(distinct)}
        partners: list[set[int]] = [set() for _ in distinct]
        for refs, h in zip(references, hypotheses):
            hk = index[texts[h]]
            for r in refs:
                rk = index[texts[r]]
                partners[hk].add(rk)
                partners[rk].add(hk)
        para, self._table = res.paraphrases.prepare(distinct, [sorted(p) for p in partners])
        by_words = dict(zip(distinct, para))
        fw = res.function_words
        syn = res.synonyms
        vocab = {w for words in distinct for w in words}
        keys = {w: java_hash(w) for w in vocab}
        known = res.vocabulary_stems
        stem_keys = {w: java_hash(known[w] if w in known else stem(w)) for w in vocab}
        is_fw = {w: w.lower() in fw for w in vocab}
        vocab_list = list(vocab)
        synsets = dict(zip(vocab_list, syn.all_synsets_many(vocab_list)))
        features = {
            words: Segment(
                words,
                tuple(map(keys.__getitem__, words)),
                tuple(map(stem_keys.__getitem__, words)),
                tuple(map(is_fw.__getitem__, words)),
                tuple(map(synsets.__getitem__, words)),
                by_words[words],
            )
            for words in distinct
        }
        return {t: features[words] for t, words in texts.items()}
