"""Meteor's four matching stages: every candidate match between two segments.

Denkowski & Lavie (2014, Section 2): "exact" matches identical words, "stem" different words
with the same Snowball stem, "synonym" different words sharing a WordNet synset, and
"paraphrase" a phrase of one segment with one of its listed paraphrases in the other (in both
directions). The stages do not exclude each other: every stage adds its matches to one pool
(``Stage.matches``, indexed by the reference position where a match starts), and the aligner
(:mod:`kcca.captions.meteor_engine.aligner`) chooses among them. This module reproduces the
jar's matchers, including the order in which matches are listed (it decides ties in the
aligner's search) and one detail: words are compared by Java's 32-bit ``String.hashCode``
(``Stage.wordsToKeys``), so two different words with equal hash codes count as equal.
"""

from __future__ import annotations

from typing import Iterator, NamedTuple

from kcca.captions.meteor_engine.paraphrase import SegmentParaphrases
from kcca.captions.meteor_engine.params import EXACT, PARAPHRASE, SEARCH_WEIGHTS, STEM, SYNONYM

_JAVA_HASHES: dict[str, int] = {}


def java_hash(word: str) -> int:
    """``String.hashCode()`` of ``word`` (UTF-16 code units, 32-bit signed)."""
    got = _JAVA_HASHES.get(word)
    if got is None:
        h = 0
        if word.isascii():
            for c in word.encode("ascii"):
                h = (31 * h + c) & 0xFFFFFFFF
        else:
            data = word.encode("utf-16-be")
            for k in range(0, len(data), 2):
                h = (31 * h + (data[k] << 8 | data[k + 1])) & 0xFFFFFFFF
        got = h - (1 << 32) if h & 0x80000000 else h
        if len(_JAVA_HASHES) < 1_000_000:
            _JAVA_HASHES[word] = got
    return got


class Segment:
    """One normalised, lower-cased segment and what the matchers need of it."""

    __slots__ = ("words", "keys", "stem_keys", "function", "synsets", "paraphrases", "_as_test")

    def __init__(
        self,
        words: tuple[str, ...],
        keys: tuple[int, ...],
        stem_keys: tuple[int, ...],
        function: tuple[bool, ...],
        synsets: tuple[frozenset, ...],
        paraphrases: SegmentParaphrases,
    ):
        self.words = words  #: the tokens
        self.keys = keys  #: java_hash of each word
        self.stem_keys = stem_keys  #: java_hash of each word's stem
        self.function = function  #: function word (``function/english.words``)?
        self.synsets = synsets  #: WordNet synsets of each word and of its base forms
        self.paraphrases = paraphrases
        self._as_test: tuple[dict, dict, tuple, frozenset] | None = None

    def as_test(self) -> tuple[dict, dict, tuple, frozenset]:
        """Look-up tables of the segment in the hypothesis role (built once): word key ->
        positions, stem key -> positions, ``(position, key, synsets)`` of the words that
        have synsets, and the union of those synsets."""
        if self._as_test is None:
            syn_words = tuple(
                (i, k, syn) for i, (k, syn) in enumerate(zip(self.keys, self.synsets)) if syn
            )
            union = frozenset().union(*(syn for _, _, syn in syn_words))
            self._as_test = (_positions(self.keys), _positions(self.stem_keys), syn_words, union)
        return self._as_test


class Match(NamedTuple):
    """``edu.cmu.meteor.aligner.Match``: ``length`` reference words from ``start`` aligned
    to ``test_length`` hypothesis words from ``test_start`` by stage ``module``, with what
    the aligner's search needs precomputed."""

    start: int
    length: int
    test_start: int
    test_length: int
    module: int
    ref_mask: int  #: bit set of the reference words it covers
    test_mask: int  #: bit set of the hypothesis words it covers
    #: what it adds to a partial alignment's weighted match count: the jar adds
    #: ``length * weight`` to each side's ``int`` total, truncating (1.0 exact, else 0.5)
    weighted: int
    distance: int  #: ``|start - test_start|``


_new = tuple.__new__


def _match(start: int, length: int, test_start: int, test_length: int, module: int) -> Match:
    w = SEARCH_WEIGHTS[module]
    # the jar's running totals are ints: total = (int)(total + length * w). With w = 1 or
    # 1/2 every sum is exact in binary, so this equals adding the truncated products.
    weighted = int(length * w) + int(test_length * w)
    return _new(
        Match,
        (
            start,
            length,
            test_start,
            test_length,
            module,
            ((1 << length) - 1) << start,
            ((1 << test_length) - 1) << test_start,
            weighted,
            abs(start - test_start),
        ),
    )


_SINGLES: dict[tuple[int, int, int], Match] = {}


def _single(j: int, i: int, module: int) -> Match:
    """The one-word match reference ``j`` - hypothesis ``i`` (shared, immutable; those of
    the first 64 positions are kept)."""
    key = (j, i, module)
    m = _SINGLES.get(key)
    if m is None:
        m = _match(j, 1, i, 1, module)
        if j < 64 and i < 64:
            _SINGLES[key] = m
    return m


def _positions(keys: tuple) -> dict:
    out: dict = {}
    for i, k in enumerate(keys):
        out.setdefault(k, []).append(i)
    return out


def candidate_matches(
    test: Segment, ref: Segment, n_stages: int, paraphrase_table: dict[int, list[tuple[int, int]]]
) -> tuple[list[list[Match]], list[int], list[int]]:
    """All matches of the first ``n_stages`` stages, as the jar lists them.

    Returns ``(matches, test_coverage, ref_coverage)``: ``matches[j]`` are the matches
    starting at reference word ``j`` (stage order, then the jar's loop order), and the
    coverages count the matches covering each word.
    """
    n1, n2 = len(test.words), len(ref.words)
    matches: list[list[Match]] = [[] for _ in range(n2)]
    cov1 = [0] * n1
    cov2 = [0] * n2
    keys1, keys2 = test.keys, ref.keys
    pos1, stem_pos1, syn1, syn_union1 = test.as_test()
    # exact: equal word keys; for each reference word j, the hypothesis words i in order
    for j in range(n2):
        for i in pos1.get(keys2[j], ()):
            matches[j].append(_single(j, i, EXACT))
            cov1[i] += 1
            cov2[j] += 1
    if n_stages > STEM:  # different words, equal stem keys
        stem2 = ref.stem_keys
        for j in range(n2):
            for i in stem_pos1.get(stem2[j], ()):
                if keys1[i] != keys2[j]:
                    matches[j].append(_single(j, i, STEM))
                    cov1[i] += 1
                    cov2[j] += 1
    if n_stages > SYNONYM and syn1:  # different words sharing a synset
        syn2 = ref.synsets
        for j in range(n2):
            s2 = syn2[j]
            if not s2 or s2.isdisjoint(syn_union1):
                continue
            k2 = keys2[j]
            for i in [i for i, k1, s1 in syn1 if k1 != k2 and not s2.isdisjoint(s1)]:
                matches[j].append(_single(j, i, SYNONYM))
                cov1[i] += 1
                cov2[j] += 1
    if n_stages > PARAPHRASE:
        _paraphrase_matches(
            test.paraphrases, ref.paraphrases, paraphrase_table, matches, cov1, cov2
        )
    return matches, cov1, cov2


def _paraphrase_matches(
    p1: SegmentParaphrases,
    p2: SegmentParaphrases,
    table: dict[int, list[tuple[int, int]]],
    matches: list[list[Match]],
    cov1: list[int],
    cov2: list[int],
) -> None:
    """``ParaphraseMatcher``: phrases of the reference paraphrased in the hypothesis, then
    phrases of the hypothesis paraphrased in the reference."""
    found: list[tuple[int, int, int, int]] = []  # (ref start, length, test start, length)
    if p1.positions:
        found += _paraphrased(p2, p1, table)
    if p2.positions:
        found += ((j, n2, i, n1) for i, n1, j, n2 in _paraphrased(p1, p2, table))
    for j, ref_length, i, test_length in found:
        matches[j].append(_match(j, ref_length, i, test_length, PARAPHRASE))
        for k in range(test_length):
            cov1[i + k] += 1
        for k in range(ref_length):
            cov2[j + k] += 1


def _paraphrased(
    source: SegmentParaphrases,
    target: SegmentParaphrases,
    table: dict[int, list[tuple[int, int]]],
) -> Iterator[tuple[int, int, int, int]]:
    """The phrases of ``source`` paraphrased in ``target``, in the jar's loop order:
    (start, length) in ``source``, then (start, length) in ``target``."""
    for start in sorted(source.starts):
        for length, row in source.starts[start]:
            for para, para_len in table.get(row, ()):
                for at in target.positions.get(para, ()):
                    yield start, length, at, para_len
