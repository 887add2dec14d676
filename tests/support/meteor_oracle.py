"""Meteor 1.5 in plain Python: the test oracle of the compiled engine
(:mod:`kcca.captions._meteor_engine.kernel`, which computes the same, function by function).

A transcription of the jar's matcher (``edu.cmu.meteor.aligner``), aligner and statistics,
with Python integers for every word set and search rank (no limit on a segment's length):

* the four matching stages (:func:`candidate_matches`, Denkowski & Lavie 2014, Section 2),
  the paraphrase look-ups of a scoring call (:func:`prepare_paraphrases`);
* the beam search (:func:`resolve`, :func:`align`, with the jar's tie-breaks and its distance
  quirk);
* the statistics, the score formula with Java's floating-point semantics and the corpus
  aggregate (:class:`Stats`, :func:`score`, :func:`aggregate`);
* the best reference of an item (:func:`segment_stats`, with the score bound that lets it skip
  references, :func:`score_upper_bound`), and :func:`score_lines`, the whole scoring call.

The tokenisation and the resources are the library's
(:class:`kcca.captions._meteor_engine.MeteorEngine`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Iterable, Iterator, NamedTuple, Sequence

import numpy as np

from kcca.captions._meteor_engine import MeteorEngine
from kcca.captions._meteor_engine.arrays import java_hash
from kcca.captions._meteor_engine.paraphrase import ParaphraseIndex, _offsets, concatenated_ranges
from kcca.captions._meteor_engine.params import (
    ALPHA,
    BEAM_SIZE,
    BETA,
    DELTA,
    GAMMA,
    MODULE_WEIGHTS,
    SEARCH_WEIGHTS,
)
from kcca.captions._meteor_engine.stats import N_MODULES
from kcca.captions._meteor_engine.stemmer import stem

#: the matching stages (modules), in the jar's order
EXACT, STEM, SYNONYM, PARAPHRASE = range(4)
#: how far below the best score a reference's bound must lie for it to be skipped
BOUND_MARGIN = 1e-9
_FUNCTION_WEIGHT = 1.0 - DELTA


@dataclass
class SegmentParaphrases:
    """The paraphrase look-ups of one segment (word positions are token indices).

    ``starts[j]``: ``(length, phrase row)`` for each phrase of the table starting at word
    ``j`` (shortest first) that has a paraphrase occurring in the scored segments;
    ``positions``: paraphrase node -> start positions (ascending) where it occurs here.
    """

    starts: dict[int, list[tuple[int, int]]]
    positions: dict[int, tuple[int, ...]]


def ngram_nodes(self: ParaphraseIndex, ids: np.ndarray) -> np.ndarray:
    """``out[p, d - 1]``: the trie node of the ``d`` words ``ids[p:p + d]``, or -1 (a
    word unknown to the table (id -1), or no phrase of the table starts that way)."""
    n, depth = ids.size, self.max_depth
    out = np.full((n, depth), -1, np.int64)
    n_words = np.uint64(len(self.vocab))
    prev = np.zeros(n, np.int64)
    alive = ids >= 0
    for d in range(1, depth + 1):
        lo, hi = self.level_offsets[d], self.level_offsets[d + 1]
        level = self.level_keys[lo:hi]
        rows = np.flatnonzero(alive[: n - d + 1]) if d > 1 else np.flatnonzero(alive)
        if rows.size == 0:
            break
        words = ids[rows + d - 1]
        ok = words >= 0
        rows, words = rows[ok], words[ok]
        key = prev[rows].astype(np.uint64) * n_words + words.astype(np.uint64)
        pos = np.searchsorted(level, key)
        found = pos < level.size
        found[found] = level[pos[found]] == key[found]
        alive[:] = False
        rows, pos = rows[found], pos[found]
        alive[rows] = True
        prev[rows] = lo + pos
        out[rows, d - 1] = lo + pos
    return out


def prepare_paraphrases(
    self: ParaphraseIndex,
    segments: Sequence[Sequence[str]],
    partners: Sequence[Sequence[int]] | None = None,
) -> tuple[list[SegmentParaphrases], dict[int, list[tuple[int, int]]]]:
    """Look up every n-gram of ``segments`` (token lists) at once.

    ``partners[s]``: the segments that segment ``s`` is aligned with (its references,
    or the hypotheses it is a reference of); default: every segment. A phrase of ``s``
    is kept only if one of its paraphrases occurs in a partner, and a paraphrase
    occurrence only if it can be matched so: the others can never produce a match.

    Returns the per-segment look-ups and ``row -> [(paraphrase node, its length), ...]``
    (file order) for the entries whose phrase and paraphrase both occur somewhere.
    """
    flat, seg_arr, pos_arr = _flat_word_ids(self, segments)
    out = [SegmentParaphrases({}, {}) for _ in segments]
    if not flat.size or self.phrase_nodes.size == 0:
        return out, {}
    nodes = ngram_nodes(self, flat)
    found = nodes >= 0
    # the table's phrases that occur, and their entries whose paraphrase occurs too
    row = np.searchsorted(self.phrase_nodes, nodes)
    row[row >= self.phrase_nodes.size] = 0
    is_phrase = found & (self.phrase_nodes[row] == nodes)
    owner, para = _entries_that_occur(self, np.unique(row[is_phrase]), np.unique(nodes[found]))
    if owner.size == 0:
        return out, {}
    # filtered entries as CSR by row (owner is sorted: rows ascending)
    t_rows, t_start = np.unique(owner, return_index=True)
    t_end = np.append(t_start[1:], owner.size)
    # phrase occurrences: (position, depth) row-major = by position, then length
    p_idx, d_idx = np.nonzero(is_phrase)
    h_row = row[p_idx, d_idx]
    h_t = np.searchsorted(t_rows, h_row)
    h_t[h_t >= t_rows.size] = 0
    has_entries = t_rows[h_t] == h_row
    p_idx, d_idx, h_row, h_t = (
        p_idx[has_entries],
        d_idx[has_entries],
        h_row[has_entries],
        h_t[has_entries],
    )
    h_seg = seg_arr[p_idx]
    n_nodes = np.int64(self.level_offsets[-1])
    # every n-gram occurrence as (segment, node) keys
    q_idx, e_idx = np.nonzero(found)
    q_node = nodes[q_idx, e_idx]
    q_key = seg_arr[q_idx] * n_nodes + q_node
    if partners is not None:
        keep_hit, wanted = _matchable_with_partners(
            partners, h_seg, (t_start[h_t], t_end[h_t]), para, q_key, n_nodes
        )
    else:
        keep_hit, wanted = np.ones(h_row.size, bool), None
    table: dict[int, list[tuple[int, int]]] = {}
    para_len = self.node_depth(para)
    for r, p, n in zip(owner.tolist(), para.tolist(), para_len.tolist()):
        table.setdefault(r, []).append((p, n))
    for s, j, d, r in zip(
        h_seg[keep_hit].tolist(),
        pos_arr[p_idx[keep_hit]].tolist(),
        d_idx[keep_hit].tolist(),
        h_row[keep_hit].tolist(),
    ):
        out[s].starts.setdefault(j, []).append((d + 1, r))
    # paraphrase occurrences worth recording
    if wanted is not None:
        at = np.searchsorted(wanted, q_key)
        at[at >= wanted.size] = 0
        sel = wanted[at] == q_key if wanted.size else np.zeros(q_key.size, bool)
    else:
        sel = np.isin(q_node, np.unique(para))
    for s, j, node in zip(
        seg_arr[q_idx[sel]].tolist(), pos_arr[q_idx[sel]].tolist(), q_node[sel].tolist()
    ):
        positions = out[s].positions
        positions[node] = positions.get(node, ()) + (j,)
    return out, table


def _flat_word_ids(
    self: ParaphraseIndex, segments: Sequence[Sequence[str]]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every segment's word ids (-1: not in the table) in one array, a -1 after each
    segment (no n-gram crosses segments), with the segment and position of each."""
    get = self.word_id.get
    flat: list[int] = []
    seg_of: list[int] = []
    pos_of: list[int] = []
    for s, words in enumerate(segments):
        flat.extend([get(w, -1) for w in words])
        flat.append(-1)  # separator: no n-gram crosses segments
        seg_of.extend([s] * (len(words) + 1))
        pos_of.extend(range(len(words) + 1))
    return (
        np.asarray(flat, np.int64),
        np.asarray(seg_of, np.int64),
        np.asarray(pos_of, np.int64),
    )


def _entries_that_occur(
    self: ParaphraseIndex, rows: np.ndarray, present: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The entries of phrase ``rows`` whose paraphrase node is ``present`` in the
    segments: ``(owner row, paraphrase node)`` of each, rows ascending, file order."""
    counts = self.entry_offsets[rows + 1] - self.entry_offsets[rows]
    owner = np.repeat(rows, counts)
    para = self.entry_para[
        concatenated_ranges(self.entry_offsets[rows], self.entry_offsets[rows + 1])
    ].astype(np.int64)
    keep = np.isin(para, present)
    return owner[keep], para[keep]


def _matchable_with_partners(
    partners: Sequence[Sequence[int]],
    h_seg: np.ndarray,
    entry_ranges: tuple[np.ndarray, np.ndarray],
    para: np.ndarray,
    q_key: np.ndarray,
    n_nodes: np.int64,
) -> tuple[np.ndarray, np.ndarray]:
    """Which phrase occurrences (segments ``h_seg``, entries ``entry_ranges`` of ``para``)
    have a paraphrase occurring in one of their segment's partners (n-gram occurrences
    ``q_key`` = segment * n_nodes + node), and the sorted ``(segment, paraphrase node)``
    keys worth locating."""
    # (occurrence, entry) pairs, then (occurrence, entry, partner) triples
    e_counts = entry_ranges[1] - entry_ranges[0]
    pair_hit = np.repeat(np.arange(h_seg.size), e_counts)
    pair_para = para[concatenated_ranges(*entry_ranges)]
    part_off = _offsets(np.fromiter((len(p) for p in partners), np.int64, len(partners)))
    part_flat = np.fromiter((q for p in partners for q in p), np.int64, int(part_off[-1]))
    seg_of_pair = h_seg[pair_hit]
    p_counts = part_off[seg_of_pair + 1] - part_off[seg_of_pair]
    tri_pair = np.repeat(np.arange(pair_hit.size), p_counts)
    tri_partner = part_flat[concatenated_ranges(part_off[seg_of_pair], part_off[seg_of_pair + 1])]
    tri_key = tri_partner * n_nodes + pair_para[tri_pair]
    seg_nodes = np.unique(q_key)
    at = np.searchsorted(seg_nodes, tri_key)
    at[at >= seg_nodes.size] = 0
    useful = seg_nodes[at] == tri_key
    useful_pairs = np.unique(tri_pair[useful])
    keep_hit = np.zeros(h_seg.size, bool)
    keep_hit[pair_hit[useful_pairs]] = True
    return keep_hit, np.unique(tri_key[useful])  # (segment, paraphrase node) worth locating


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


# A partial alignment (the jar's ``PartialAlignment``, reduced to what the search uses) is a
# list ``[rank, idx, last_end, used1, used2, chosen]``, indexed with literals in the loop:
#   rank      the comparator's three keys packed into one integer (see ``resolve``)
#   idx       next reference position to process
#   last_end  end of the last match in the hypothesis, -1 after a gap (``lastMatchEnd``)
#   used1/2   bit sets of the used hypothesis / reference words
#   chosen    the matches chosen by the search, a linked list ``(match, rest)`` or None
_RANK = itemgetter(0)


class SearchResult(NamedTuple):
    weighted_matches: int  #: the jar's truncated, weighted match total (both sides)
    chunks: int
    distance: int
    chosen: tuple | None  #: linked list of the matches chosen by the search


def _step(m: Match, s2: int) -> tuple[int, int, int, int, int]:
    """What the search needs of a match it takes: its packed weight (``weighted * s2``), its
    start in the hypothesis, its ends in the reference and the hypothesis, its distance."""
    return (
        m.weighted * s2,
        m.test_start,
        m.start + m.length,
        m.test_start + m.test_length,
        m.distance,
    )


def resolve(
    matches: list[list[Match]],
    fixed: list[Match | None],
    used1: int,
    used2: int,
    beam: int = BEAM_SIZE,
) -> SearchResult:
    """``Aligner.resolve``: the beam search of the module docstring (steps 2 and 3).

    ``fixed[j]`` is the match fixed in advance at reference position ``j`` (step 1) and
    ``used1``/``used2`` the words they cover.

    The comparator ``PARTIAL_COMPARE_TOTAL`` orders by (-weighted matches, chunks,
    distance). The three are packed into one integer ``-weighted * s2 + chunks * s1 +
    distance`` with ``s1`` above any reachable distance (a path's distance never exceeds the
    sum of all candidates' distances) and ``s2 > (chunks + 1) * s1`` (chunks <= n + 1), so
    that comparing the integers compares the tuples and a stable sort on them is the jar's
    ``Collections.sort``.
    """
    bound = sum(m.distance for ms in matches for m in ms) + sum(
        m.distance for m in fixed if m is not None
    )
    s1 = 1 << (bound.bit_length() + 1)
    s2 = s1 << (len(matches) + 2).bit_length()
    steps = [[(m.ref_mask, m.test_mask, *_step(m, s2), m) for m in ms] for ms in matches]
    fixed_steps = [None if m is None else _step(m, s2) for m in fixed]
    paths: list[list[Any]] = [[0, 0, -1, used1, used2, None]]
    for current, candidates in enumerate(steps):
        if len(paths) > 1:
            paths.sort(key=_RANK)  # stable, as Java's Collections.sort
            del paths[beam:]
        nxt: list[list[Any]] = []
        for path in paths:
            _advance(path, current, candidates, fixed_steps, s1, nxt)
        if not nxt:  # the jar warns and keeps the best path
            nxt.append(paths[0])
        paths = nxt
    # complete paths: close the last chunk of the best ones, then pick the best
    if len(paths) > 1:
        paths.sort(key=_RANK)
        del paths[beam:]
    for path in paths:
        if path[2] != -1:
            path[0] += s1
    paths.sort(key=_RANK)
    best = paths[0]
    neg_weighted, rest = divmod(best[0], s2)
    chunks, distance = divmod(rest, s1)
    return SearchResult(-neg_weighted, chunks, distance, best[5])


def _advance(
    path: list[Any], current: int, candidates: list, fixed_steps: list, s1: int, nxt: list
) -> None:
    """One path ``[rank, next position, end of the last match or -1, used1, used2, chosen]``
    at reference word ``current``: its extensions by each candidate match there (or the
    match fixed there), then itself skipping the word, appended to ``nxt``."""
    if path[4] & (1 << current):  # word already used
        if current < path[1]:  # inside a match taken earlier
            nxt.append(path)
            return
        f = fixed_steps[path[1]]
        if f is not None:  # a match fixed in advance starts here
            weighted, test_start, end, test_end, distance = f
            rank = path[0] - weighted + distance
            if path[2] != -1 and test_start != path[2]:
                rank += s1  # a new chunk
            path[0] = rank
            path[1] = end
            path[2] = test_end
            nxt.append(path)
        return
    last_end = path[2]
    if candidates:
        u1, u2, chosen = path[3], path[4], path[5]
        for ref_mask, test_mask, weighted, test_start, end, test_end, distance, m in candidates:
            if u2 & ref_mask or u1 & test_mask:
                continue
            rank = path[0] - weighted
            if last_end != -1 and test_start != last_end:
                rank += s1
            nxt.append([rank, end, test_end, u1 | test_mask, u2 | ref_mask, (m, chosen)])
            path[0] += distance  # sic: the jar adds it to the parent
    if last_end != -1:  # skip this word: a gap ends the chunk
        path[0] += s1
        path[2] = -1
    path[1] += 1
    nxt.append(path)


class Alignment(NamedTuple):
    """The chosen matches and the counts the statistics need."""

    matches: tuple[Match | None, ...]  #: by reference start position
    #: per stage: (test content, reference content, test function, reference function)
    stage_matches: tuple[tuple[int, ...], ...]  # four values each
    test_matches: int
    ref_matches: int
    chunks: int


def count_chunks(matches: Sequence[Match | None]) -> tuple[int, int, int]:
    """``Aligner.getCountAndChunks``: matched words of each side and the number of chunks
    (runs of matches contiguous in both segments)."""
    m1 = m2 = chunks = 0
    idx = 0
    last_end = -1
    n = len(matches)
    while idx < n:
        m = matches[idx]
        if m is None:
            if last_end != -1:
                chunks += 1
                last_end = -1
            idx += 1
        else:
            m1 += m.test_length
            m2 += m.length
            if last_end != -1 and m.test_start != last_end:
                chunks += 1
            idx = m.start + m.length
            last_end = m.test_start + m.test_length
    if last_end != -1:
        chunks += 1
    return m1, m2, chunks


def find_candidates(
    test: Segment, ref: Segment, paraphrase_table: dict, n_modules: int = 4
) -> tuple[list[list[Match]], list[int], list[int]]:
    """The candidate matches ``Aligner.align`` starts from (only the exact stage when the
    two segments are identical word for word, by hash code)."""
    n_stages = 1 if (len(test.words) == len(ref.words) and test.keys == ref.keys) else n_modules
    return candidate_matches(test, ref, n_stages, paraphrase_table)


def align(
    test: Segment,
    ref: Segment,
    paraphrase_table: dict,
    n_modules: int = 4,
    beam: int = BEAM_SIZE,
    candidates: tuple[list[list[Match]], list[int], list[int]] | None = None,
) -> Alignment:
    """``Aligner.align``: candidate matches (``candidates``, when already found by
    :func:`find_candidates`), fixed matches, beam search, per-stage counts."""
    if candidates is None:
        candidates = find_candidates(test, ref, paraphrase_table, n_modules)
    matches, cov1, cov2 = candidates
    fixed: list[Match | None] = [None] * len(ref.words)
    used1 = used2 = 0
    m: Match | None
    for i, ms in enumerate(matches):
        if len(ms) != 1:
            continue
        m = ms[0]
        if m.length == 1 == m.test_length:
            unique = cov2[i] == 1 and cov1[m.test_start] == 1
        else:
            unique = all(cov2[i + k] == 1 for k in range(m.length)) and all(
                cov1[m.test_start + k] == 1 for k in range(m.test_length)
            )
        if unique:
            fixed[i] = m
            used2 |= m.ref_mask
            used1 |= m.test_mask
    chosen = fixed.copy()
    # when every match is fixed the search has one path, which takes them all
    search = any(ms and fixed[j] is None for j, ms in enumerate(matches))
    node = resolve(matches, fixed, used1, used2, beam).chosen if search else None
    while node is not None:
        chosen[node[0].start] = node[0]
        node = node[1]
    counts = [[0, 0, 0, 0] for _ in range(n_modules)]
    f1, f2 = test.function, ref.function
    for m in chosen:
        if m is None:
            continue
        c = counts[m.module]
        for k in range(m.test_start, m.test_start + m.test_length):
            c[2 if f1[k] else 0] += 1
        for k in range(m.start, m.start + m.length):
            c[3 if f2[k] else 1] += 1
    m1, m2, chunks = count_chunks(chosen)
    return Alignment(tuple(chosen), tuple(tuple(c) for c in counts), m1, m2, chunks)


# ------------------------------------------------------------- statistics and score
# ``MeteorStats`` and ``MeteorScorer.computeMetrics`` in plain Python: what the engine's
# rows (kcca.captions._meteor_engine.stats) and compiled ``score`` compute.




class Stats(NamedTuple):
    """``MeteorStats``. The jar keeps these counts as doubles; they are whole numbers far
    below 2**53, so Python ints (exact) give the same arithmetic in :func:`score`."""

    test_length: float
    reference_length: float
    test_function_words: float
    reference_function_words: float
    #: per stage: (test content, reference content, test function, reference function)
    stage_matches: tuple[tuple[float, ...], ...]  # four values each
    chunks: float
    test_word_matches: float
    reference_word_matches: float

    def _total(self, content: int, function: int) -> float:
        """Matches of one side over the stages, summed in the jar's order (content, then
        function words, stage by stage: float sums depend on the order)."""
        t = 0.0
        for stage in self.stage_matches:
            t += stage[content]
            t += stage[function]
        return t

    @property
    def test_total_matches(self) -> float:
        return self._total(0, 2)

    @property
    def reference_total_matches(self) -> float:
        return self._total(1, 3)

    def is_perfect(self) -> bool:
        """Every word of both sides matched, in one chunk (no fragmentation)."""
        return (
            self.chunks == 1
            and self.test_total_matches == self.test_length
            and self.reference_total_matches == self.reference_length
        )

    def as_row(self) -> list[float]:
        """The 23 numbers in the jar's order (``MeteorStats.toString``), a row of the engine's
        statistics."""
        quads = [v for quad in self.stage_matches for v in quad]
        head = [self.test_length, self.reference_length]
        head += [self.test_function_words, self.reference_function_words]
        return head + quads + [self.chunks, self.test_word_matches, self.reference_word_matches]

    @classmethod
    def from_line(cls, line: str) -> "Stats":
        """The statistics of a jar's ``SCORE`` output line."""
        return cls.from_row([float(x) for x in line.split()])

    @classmethod
    def from_row(cls, v: Sequence[float]) -> "Stats":
        """The statistics of 23 numbers in the jar's order."""
        stages = tuple(tuple(v[4 + 4 * i : 8 + 4 * i]) for i in range(N_MODULES))
        return cls(v[0], v[1], v[2], v[3], stages, v[20], v[21], v[22])


def _div(a: float, b: float) -> float:
    """Java's ``a / b`` on doubles (no exception on a zero divisor)."""
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def score(
    s: Stats,
    weights: Sequence[float] = MODULE_WEIGHTS,
    alpha: float = ALPHA,
    beta: float = BETA,
    gamma: float = GAMMA,
    delta: float = DELTA,
) -> float:
    """``MeteorScorer.computeMetrics``: the METEOR score of (segment or summed) statistics."""
    test_wlen = (delta * (s.test_length - s.test_function_words)) + (
        (1.0 - delta) * s.test_function_words
    )
    ref_wlen = (delta * (s.reference_length - s.reference_function_words)) + (
        (1.0 - delta) * s.reference_function_words
    )
    # the jar's order of additions: content words of every stage, then function words
    test_w = ref_w = 0.0
    stages = s.stage_matches
    for i, w in enumerate(weights):
        test_w += stages[i][0] * w * delta
    for i, w in enumerate(weights):
        ref_w += stages[i][1] * w * delta
    for i, w in enumerate(weights):
        test_w += stages[i][2] * w * (1.0 - delta)
    for i, w in enumerate(weights):
        ref_w += stages[i][3] * w * (1.0 - delta)
    precision = _div(test_w, test_wlen)
    recall = _div(ref_w, ref_wlen)
    fmean = _div(1.0, _div(1.0 - alpha, precision) + _div(alpha, recall))
    if s.is_perfect():
        frag = 0.0
    else:
        frag = _div(s.chunks, (s.test_word_matches + s.reference_word_matches) / 2)
    penalty = gamma * (math.nan if math.isnan(frag) else math.pow(frag, beta))
    value = fmean * (1.0 - penalty)
    if math.isnan(value):
        return 0.0
    return max(value, 0.0) + 0.0  # + 0.0: Math.max(-0.0, 0.0) is 0.0


def aggregate(stats: Iterable[Stats]) -> Stats:
    """``MeteorStats.addStats`` over segments (the jar's ``EVAL`` line)."""
    tl = rl = tf = rf = ch = tw = rw = 0.0
    stages = [[0.0, 0.0, 0.0, 0.0] for _ in range(N_MODULES)]
    for s in stats:
        tl += s.test_length
        rl += s.reference_length
        tf += s.test_function_words
        rf += s.reference_function_words
        for acc, quad in zip(stages, s.stage_matches):
            for k in range(4):
                acc[k] += quad[k]
        if not s.is_perfect():
            ch += s.chunks
        tw += s.test_word_matches
        rw += s.reference_word_matches
    return Stats(tl, rl, tf, rf, tuple(tuple(q) for q in stages), ch, tw, rw)


def score_upper_bound(
    test_matchable: float,
    test_length: float,
    ref_matchable: float,
    ref_length: float,
    mean_covered: float | None,
    alpha: float = ALPHA,
    beta: float = BETA,
    gamma: float = GAMMA,
) -> float:
    """An upper bound of :func:`score` for one pair of segments, before their alignment.

    ``*_matchable``: the side's words that some candidate match covers, each counted at the
    largest weight a match can give it (module weight at most 1, times ``delta`` for content
    and ``1 - delta`` for function words); ``*_length``: the side's weighted length. An
    alignment matches each word at most once, so precision and recall are at most
    ``matchable / length``, and Fmean grows with both. Unless every word of both sides is
    covered (``mean_covered`` None: a perfect alignment, without penalty, is possible), at
    least one chunk is left over at most ``mean_covered`` matches (the mean of the two sides'
    covered words), so the penalty is at least ``gamma * (1 / mean_covered) ** beta``. Used
    to skip aligning references that cannot beat the best one already scored.
    """
    if test_matchable <= 0.0 or ref_matchable <= 0.0:
        return 0.0
    precision, recall = test_matchable / test_length, ref_matchable / ref_length
    fmean = precision * recall / (alpha * precision + (1.0 - alpha) * recall)
    if mean_covered is None:
        return fmean
    return fmean * (1.0 - gamma * math.pow(1.0 / mean_covered, beta))


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


def segment_stats(test: Segment, refs: Sequence[Segment], table: dict) -> Stats:
    """Statistics of the best reference (``getMeteorStats(test, references)``: the
    highest score, the first reference on ties).

    References are aligned in decreasing order of an upper bound of their score
    (:func:`~kcca.captions._meteor_engine.stats.score_upper_bound`, from the candidate
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


def segments(
    engine: MeteorEngine,
    texts: dict[str, tuple[str, ...]],
    references: Sequence[Sequence[str]],
    hypotheses: Sequence[str],
) -> tuple[dict[str, Segment], dict]:
    """Matcher features of every distinct text (words looked up once), and the paraphrase
    table of the call."""
    res = engine.resources
    distinct = list(dict.fromkeys(texts.values()))
    index = {words: k for k, words in enumerate(distinct)}
    partners: list[set[int]] = [set() for _ in distinct]
    for refs, h in zip(references, hypotheses):
        hk = index[texts[h]]
        for r in refs:
            rk = index[texts[r]]
            partners[hk].add(rk)
            partners[rk].add(hk)
    para, table = prepare_paraphrases(res.paraphrases, distinct, [sorted(p) for p in partners])
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
    return {t: features[words] for t, words in texts.items()}, table


def score_lines(
    engine: MeteorEngine, references: Sequence[Sequence[str]], hypotheses: Sequence[str]
) -> tuple[float, list[float], list[Stats]]:
    """What :meth:`MeteorEngine.score_lines` returns, computed here: ``(corpus score,
    per-item scores, per-item statistics)``."""
    every = [*hypotheses, *(r for rs in references for r in rs)]
    texts = {t: tuple(engine.tokens(t)) for t in every}
    found, table = segments(engine, texts, references, hypotheses)
    stats = [
        segment_stats(found[h], [found[r] for r in refs], table)
        for refs, h in zip(references, hypotheses)
    ]
    return score(aggregate(stats)), [score(s) for s in stats], stats


def engine_result(result: tuple[float, np.ndarray, np.ndarray]) -> tuple[float, list, list]:
    """:meth:`MeteorEngine.score_lines`'s result in the form of :func:`score_lines`'s, to
    compare them with ``==``."""
    corpus, per_item, rows = result
    return corpus, per_item.tolist(), [Stats.from_row(row) for row in rows.tolist()]
