"""Meteor's aligner: choose one set of non-overlapping matches by beam search.

Denkowski & Lavie (2014, Section 2; Lavie & Denkowski 2009): the final alignment is the
largest subset of candidate matches in which every word is matched at most once, with the
fewest chunks among those, then the smallest summed distance between matched positions. The
jar (``edu.cmu.meteor.aligner.Aligner``) finds it as follows, and so does this module:

1. Matches that are the only match starting at their reference word and whose words are
   covered by no other match are fixed in advance.
2. The reference is walked left to right; at each word every partial alignment either
   takes one of the matches starting there whose words are still free, or skips the word.
   Before each step the partial alignments are sorted (stably) by
   ``PARTIAL_COMPARE_TOTAL``: most matched words first, weighting each match by 1.0 (exact)
   or 0.5 (other stages) and *truncating each running total to an integer*, as the jar's
   ``int`` fields do; then fewest chunks; then smallest distance. Only the best 40 (the beam)
   are extended.
3. The jar updates the distance of the partial alignment being extended instead of the new
   one (``path.distance += ...``), so an alignment's "distance" is the sum of the distances of
   matches its ancestors *did not* take at the step where it branched off. This quirk decides
   ties, and is reproduced here.

When the two segments are identical word for word (by hash code) only the exact stage runs.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, NamedTuple, Sequence

from kcca.captions.meteor_engine.matcher import Match, Segment, candidate_matches
from kcca.captions.meteor_engine.params import BEAM_SIZE


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
