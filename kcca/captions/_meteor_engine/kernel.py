"""Meteor's matcher, aligner and score (:mod:`.stats`) compiled with numba, for many items
at once.

:func:`score_items` does for every item what ``segment_stats`` of the test oracle
``tests/support/meteor_oracle.py`` (the jar transcribed in plain Python, which the kernel is
tested equal to) does: the candidate matches of the four stages in the jar's order, the score
bound of each reference, the beam search (with the jar's tie-breaks and its distance quirk)
for the references whose bound can win, and the statistics of the best one. Each step below
computes what the oracle's function of the same name computes. Segments of any length are
aligned: a set of words is a bit set of ``ceil(n / 64)`` ``int64`` words (:func:`_words`).

Segments arrive as flat arrays (:class:`.arrays.SegmentArrays`); a match is one row
``(ref start, ref length, test start, test length, module)`` of an ``int64`` array.
Compiled on first use (about 12 s) and kept in numba's cache: ``__pycache__`` beside this
module, where Python keeps the module's own bytecode (so the compiled code is exactly as
trusted as the ``.pyc`` files Python runs from there), or numba's per-user cache folder when
that folder is read-only; later processes load it in well under a second. Calls between the
compiled functions pass no literal constants (numba would compile one version per literal
value). :func:`ngram_occurrences` (the paraphrase-trie walk of :mod:`.arrays`) is compiled
and cached the same way.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from kcca.captions._meteor_engine.stats import N_STATS
from kcca.captions._meteor_engine.params import (
    ALPHA,
    BEAM_SIZE,
    BETA,
    DELTA,
    GAMMA,
    MODULE_WEIGHTS,
)

#: how far below the best score a reference's bound must lie for it to be skipped
BOUND_MARGIN = 1e-9

_W0, _W1, _W2, _W3 = MODULE_WEIGHTS
#: compiled on first call and cached beside the module's bytecode (see the module docstring),
#: IEEE division (no ZeroDivisionError)
_jit = numba.njit(nogil=True, cache=True, error_model="numpy")
#: the same, inlined into its callers at numba's IR level (the steps the per-pair and
#: per-item loops are split into cost no call)
_jit_inline = numba.njit(nogil=True, cache=True, error_model="numpy", inline="always")


@_jit_inline
def _copy_into(dst, src):  # pragma: no cover - compiled
    """``dst[:] = src`` for two 1-D arrays of one length, element by element (numba's slice
    assignment from an array carries a shape-mismatch message whose string formatting
    takes seconds to compile)."""
    for k in range(src.shape[0]):
        dst[k] = src[k]


@_jit_inline
def _words(n):  # pragma: no cover - compiled
    """How many ``int64`` words a bit set of ``n`` positions takes (at least one)."""
    return max((n + 63) >> 6, 1)


@_jit_inline
def _has(bits, k):  # pragma: no cover - compiled
    """Whether position ``k`` is in the bit set ``bits``."""
    return (bits[k >> 6] >> (k & 63)) & 1 == 1


@_jit_inline
def _any_in(bits, start, length):  # pragma: no cover - compiled
    """Whether any of the positions ``start .. start + length - 1`` is in ``bits``."""
    for k in range(start, start + length):
        if (bits[k >> 6] >> (k & 63)) & 1:
            return True
    return False


@_jit_inline
def _add_range(bits, start, length):  # pragma: no cover - compiled
    """Add the positions ``start .. start + length - 1`` to ``bits``."""
    for k in range(start, start + length):
        bits[k >> 6] |= np.int64(1) << (k & 63)


@_jit
def mark_synsets(synset_row, t0, n1, vids, syn_off, syn_ids):  # pragma: no cover
    """The synsets of the hypothesis at ``t0``: gives each a row (``synset_row[id]``, -1 for
    the others) of the returned table, the bit set of the hypothesis words that have it (one
    hypothesis at a time: :func:`clear_synsets` afterwards)."""
    n_rows = 0
    for i in range(n1):
        v = vids[t0 + i]
        n_rows += syn_off[v + 1] - syn_off[v]
    words = np.zeros((max(n_rows, 1), _words(n1)), np.int64)
    n_rows = 0
    for i in range(n1):
        v = vids[t0 + i]
        for q in range(syn_off[v], syn_off[v + 1]):
            row = synset_row[syn_ids[q]]
            if row < 0:
                row = n_rows
                synset_row[syn_ids[q]] = row
                n_rows += 1
            words[row, i >> 6] |= np.int64(1) << (i & 63)
    return words


@_jit
def clear_synsets(synset_row, t0, n1, vids, syn_off, syn_ids):  # pragma: no cover
    """Undo :func:`mark_synsets`."""
    for i in range(n1):
        v = vids[t0 + i]
        for q in range(syn_off[v], syn_off[v + 1]):
            synset_row[syn_ids[q]] = -1


@_jit
def _paraphrased(
    src,
    tgt,
    ph_off,
    ph_start,
    ph_len,
    ph_row,
    tab_off,
    tab_para,
    tab_len,
    oc_off,
    oc_node,
    oc_pos,
):  # pragma: no cover - compiled
    """The oracle's ``_paraphrased``: the phrases of segment ``src`` paraphrased in ``tgt``, in
    the jar's loop order, as rows ``(start, length)`` in ``src``, ``(start, length)`` in
    ``tgt``."""
    lo, hi = oc_off[tgt], oc_off[tgt + 1]
    found = np.empty((0, 4), np.int64)
    if lo == hi:
        return found
    for write in range(2):  # count, then fill
        n = 0
        for p in range(ph_off[src], ph_off[src + 1]):
            for e in range(tab_off[ph_row[p]], tab_off[ph_row[p] + 1]):
                node = tab_para[e]
                a, b = lo, hi  # first occurrence of the node (sorted by node, position)
                while a < b:
                    mid = (a + b) >> 1
                    if oc_node[mid] < node:
                        a = mid + 1
                    else:
                        b = mid
                while a < hi and oc_node[a] == node:
                    if write:
                        found[n, 0] = ph_start[p]
                        found[n, 1] = ph_len[p]
                        found[n, 2] = oc_pos[a]
                        found[n, 3] = tab_len[e]
                    n += 1
                    a += 1
        if not write:
            found = np.empty((n, 4), np.int64)
    return found


@_jit
def candidate_matches(
    t,
    r,
    starts,
    lengths,
    keys,
    stems,
    vids,
    syn_off,
    syn_ids,
    ph_off,
    ph_start,
    ph_len,
    ph_row,
    tab_off,
    tab_para,
    tab_len,
    oc_off,
    oc_node,
    oc_pos,
    synset_row,
    synset_words,
):  # pragma: no cover - compiled
    """The oracle's ``find_candidates`` (``candidate_matches``) of hypothesis segment
    ``t`` and reference segment ``r``: ``(match rows, count, test coverage, reference
    coverage)``, rows in the jar's order (stage, then its loop order).

    ``synset_words[synset_row[id]]``: the bit set of the hypothesis words that have synset
    ``id`` (:func:`mark_synsets`)."""
    t0, n1 = starts[t], lengths[t]
    r0, n2 = starts[r], lengths[r]
    identical = _same_words(keys, t0, n1, r0, n2)
    if identical:  # only the exact stage
        from_ref = np.empty((0, 4), np.int64)
        from_test = from_ref
    else:  # paraphrases: reference phrases in the hypothesis, then the other way round
        from_ref = _paraphrased(
            r,
            t,
            ph_off,
            ph_start,
            ph_len,
            ph_row,
            tab_off,
            tab_para,
            tab_len,
            oc_off,
            oc_node,
            oc_pos,
        )
        from_test = _paraphrased(
            t,
            r,
            ph_off,
            ph_start,
            ph_len,
            ph_row,
            tab_off,
            tab_para,
            tab_len,
            oc_off,
            oc_node,
            oc_pos,
        )
    # rows for one match per word pair (there may be two: exact, or stem and synonym), grown
    # when full, then the paraphrases
    m = np.empty((n1 + n2 + 1, 5), np.int64)
    n_stages = 1 if identical else 3
    m, count = _word_matches(
        m, n_stages, keys, stems, vids, t0, n1, r0, n2, syn_off, syn_ids, synset_row, synset_words
    )
    m = _room(m, count, from_ref.shape[0] + from_test.shape[0])
    count = _paraphrase_rows(m, count, from_ref, from_test)
    cov1, cov2 = _coverage_counts(m, count, n1, n2)
    return m, count, cov1, cov2


@_jit_inline
def _same_words(keys, t0, n1, r0, n2):  # pragma: no cover - compiled
    """Whether the hypothesis at ``t0`` and the reference at ``r0`` have the same words."""
    if n1 != n2:
        return False
    for k in range(n1):
        if keys[t0 + k] != keys[r0 + k]:
            return False
    return True


@_jit_inline
def _room(m, count, more):  # pragma: no cover - compiled
    """``m`` with room for ``more`` rows after row ``count`` (a copy twice as large, or
    larger, when it has not)."""
    if count + more <= m.shape[0]:
        return m
    grown = np.empty((max(2 * m.shape[0], count + more), m.shape[1]), m.dtype)
    for r in range(count):
        _copy_into(grown[r], m[r])
    return grown


@_jit_inline
def _word_matches(
    m, n_stages, keys, stems, vids, t0, n1, r0, n2, syn_off, syn_ids, synset_row, synset_words
):  # pragma: no cover - compiled
    """The one-word matches of the first ``n_stages`` stages (exact, stem, synonym) written
    as rows of ``m`` (grown as needed) in the jar's order; returns ``(m, their count)``."""
    count = 0
    sharing = np.zeros(synset_words.shape[1], np.int64)
    for stage in range(n_stages):
        for j in range(n2):
            kj, sj, vj = keys[r0 + j], stems[r0 + j], vids[r0 + j]
            if stage == 2:  # the hypothesis words sharing a synset with j
                sharing[:] = 0
                shared = False
                for q in range(syn_off[vj], syn_off[vj + 1]):
                    row = synset_row[syn_ids[q]]
                    if row >= 0:
                        shared = True
                        for w in range(sharing.shape[0]):
                            sharing[w] |= synset_words[row, w]
                if not shared:
                    continue
            for i in range(n1):
                ki = keys[t0 + i]
                if stage == 0:  # exact: equal word keys
                    hit = ki == kj
                elif stage == 1:  # stem: different words, equal stems
                    hit = ki != kj and stems[t0 + i] == sj
                else:  # synonym: different words sharing a synset
                    hit = ki != kj and _has(sharing, i)
                if hit:
                    m = _room(m, count, 1)
                    m[count, 0] = j
                    m[count, 1] = 1
                    m[count, 2] = i
                    m[count, 3] = 1
                    m[count, 4] = stage
                    count += 1
    return m, count


@_jit_inline
def _paraphrase_rows(m, count, from_ref, from_test):  # pragma: no cover - compiled
    """Append the paraphrase matches (module 3) after row ``count`` of ``m``: the reference's
    phrases found in the hypothesis, then the hypothesis's in the reference; the new count."""
    for k in range(from_ref.shape[0]):
        m[count, 0] = from_ref[k, 0]
        m[count, 1] = from_ref[k, 1]
        m[count, 2] = from_ref[k, 2]
        m[count, 3] = from_ref[k, 3]
        m[count, 4] = 3
        count += 1
    for k in range(from_test.shape[0]):
        m[count, 0] = from_test[k, 2]
        m[count, 1] = from_test[k, 3]
        m[count, 2] = from_test[k, 0]
        m[count, 3] = from_test[k, 1]
        m[count, 4] = 3
        count += 1
    return count


@_jit_inline
def _coverage_counts(m, count, n1, n2):  # pragma: no cover - compiled
    """How many of the ``count`` matches cover each hypothesis and each reference word."""
    cov1 = np.zeros(n1, np.int64)
    cov2 = np.zeros(n2, np.int64)
    for k in range(count):
        for q in range(m[k, 2], m[k, 2] + m[k, 3]):
            cov1[q] += 1
        for q in range(m[k, 0], m[k, 0] + m[k, 1]):
            cov2[q] += 1
    return cov1, cov2


@_jit
def _coverage(func, start, n, cov):  # pragma: no cover - compiled
    """The oracle's ``_coverage``: weighted covered words, weighted length, covered words."""
    matchable = 0.0
    length = 0.0
    covered = 0
    for k in range(n):
        w = (1.0 - DELTA) if func[start + k] else DELTA
        length += w
        if cov[k]:
            matchable += w
            covered += 1
    return matchable, length, covered


@_jit
def score_bound(func, t0, n1, cov1, r0, n2, cov2):  # pragma: no cover - compiled
    """The oracle's ``_score_bound`` (``score_upper_bound``) of one pair."""
    m1, l1, c1 = _coverage(func, t0, n1, cov1)
    m2, l2, c2 = _coverage(func, r0, n2, cov2)
    if m1 <= 0.0 or m2 <= 0.0:
        return 0.0
    precision, recall = m1 / l1, m2 / l2
    fmean = precision * recall / (ALPHA * precision + (1.0 - ALPHA) * recall)
    if c1 == n1 and c2 == n2:
        return fmean
    return fmean * (1.0 - GAMMA * math.pow(1.0 / ((c1 + c2) / 2), BETA))


@_jit
def _bit_length(x):  # pragma: no cover - compiled
    n = 0
    while x > 0:
        x >>= 1
        n += 1
    return n


@_jit_inline
def _rank_order(rank, dist, n):  # pragma: no cover - compiled
    """The stable order of the first ``n`` paths by ``(rank, dist)``."""
    order = np.argsort(dist[:n], kind="mergesort")
    return order[np.argsort(rank[order], kind="mergesort")]


@_jit
def resolve(m, by_ref, first, fixed, used1, used2, n2, beam):  # pragma: no cover - compiled
    """The oracle's ``resolve``: the beam search; returns the best path's chosen matches as a
    linked list ``(node_match, node_prev, head)`` (``-1`` ends it).

    ``by_ref[first[j]:first[j + 1]]`` are the rows of the matches starting at reference
    word ``j`` in the jar's order, ``fixed[j]`` the row fixed in advance there (or -1),
    ``used1``/``used2`` the bit sets of the words those cover. Paths are parallel arrays.
    The comparator's keys (-weighted matches, chunks, distance) are two numbers: ``rank =
    -weighted * s + chunks`` (``s`` above any chunk count) and ``dist``; ordering paths by
    ``(rank, dist)`` is ordering them by the oracle's packed integer, whatever the lengths.

    Long by design: a numba loop over two generations of paths held in parallel arrays that
    every step reads and swaps; split, each step would take and return all of them for
    every reference word of every aligned pair.
    """
    n_match = first[n2]
    s = np.int64(1) << _bit_length(n2 + 2)
    widest = 0
    for j in range(n2):
        widest = max(widest, first[j + 1] - first[j])
    cap = beam * (widest + 1) + 1
    w1, w2 = used1.shape[0], used2.shape[0]
    # two generations of paths: rank, distance, next reference position, end of the last
    # match in the hypothesis (-1 after a gap), used words of each side, head of the list
    rank = np.empty(cap, np.int64)
    dist = np.empty(cap, np.int64)
    idx = np.empty(cap, np.int64)
    last = np.empty(cap, np.int64)
    u1 = np.empty((cap, w1), np.int64)
    u2 = np.empty((cap, w2), np.int64)
    head = np.empty(cap, np.int64)
    n_rank = np.empty(cap, np.int64)
    n_dist = np.empty(cap, np.int64)
    n_idx = np.empty(cap, np.int64)
    n_last = np.empty(cap, np.int64)
    n_u1 = np.empty((cap, w1), np.int64)
    n_u2 = np.empty((cap, w2), np.int64)
    n_head = np.empty(cap, np.int64)
    node_match = np.empty(beam * n_match + 1, np.int64)
    node_prev = np.empty(beam * n_match + 1, np.int64)
    n_nodes = 0
    rank[0], dist[0], idx[0], last[0], head[0] = 0, 0, 0, -1, -1
    _copy_into(u1[0], used1)
    _copy_into(u2[0], used2)
    n_paths = 1
    for current in range(n2 + 1):
        if n_paths > 1:  # stable sort (Collections.sort), keep the beam
            order = _rank_order(rank, dist, n_paths)
            n_paths = min(n_paths, beam)
            for q in range(n_paths):
                o = order[q]
                n_rank[q], n_dist[q], n_idx[q] = rank[o], dist[o], idx[o]
                n_last[q], n_head[q] = last[o], head[o]
                _copy_into(n_u1[q], u1[o])
                _copy_into(n_u2[q], u2[o])
            rank, n_rank = n_rank, rank
            dist, n_dist = n_dist, dist
            idx, n_idx = n_idx, idx
            last, n_last = n_last, last
            u1, n_u1 = n_u1, u1
            u2, n_u2 = n_u2, u2
            head, n_head = n_head, head
        if current == n2:
            break
        out = 0
        for p in range(n_paths):
            if _has(u2[p], current):  # word already used
                if current < idx[p]:  # inside a match taken earlier
                    n_rank[out], n_dist[out], n_idx[out] = rank[p], dist[p], idx[p]
                    n_last[out], n_head[out] = last[p], head[p]
                    _copy_into(n_u1[out], u1[p])
                    _copy_into(n_u2[out], u2[p])
                    out += 1
                    continue
                f = fixed[idx[p]]
                if f >= 0:  # a match fixed in advance starts here
                    weighted = m[f, 1] + m[f, 3] if m[f, 4] == 0 else m[f, 1] // 2 + m[f, 3] // 2
                    r = rank[p] - weighted * s
                    if last[p] != -1 and m[f, 2] != last[p]:
                        r += 1  # a new chunk
                    n_rank[out], n_dist[out] = r, dist[p] + abs(m[f, 0] - m[f, 2])
                    n_idx[out], n_last[out] = m[f, 0] + m[f, 1], m[f, 2] + m[f, 3]
                    n_head[out] = head[p]
                    _copy_into(n_u1[out], u1[p])
                    _copy_into(n_u2[out], u2[p])
                    out += 1
                continue
            last_end = last[p]
            for q in range(first[current], first[current + 1]):
                c = by_ref[q]
                if _any_in(u2[p], m[c, 0], m[c, 1]) or _any_in(u1[p], m[c, 2], m[c, 3]):
                    continue
                weighted = m[c, 1] + m[c, 3] if m[c, 4] == 0 else m[c, 1] // 2 + m[c, 3] // 2
                r = rank[p] - weighted * s
                if last_end != -1 and m[c, 2] != last_end:
                    r += 1
                node_match[n_nodes] = c
                node_prev[n_nodes] = head[p]
                n_rank[out], n_dist[out], n_idx[out] = r, dist[p], m[c, 0] + m[c, 1]
                n_last[out], n_head[out] = m[c, 2] + m[c, 3], n_nodes
                _copy_into(n_u1[out], u1[p])
                _copy_into(n_u2[out], u2[p])
                _add_range(n_u1[out], m[c, 2], m[c, 3])
                _add_range(n_u2[out], m[c, 0], m[c, 1])
                n_nodes += 1
                out += 1
                dist[p] += abs(m[c, 0] - m[c, 2])  # sic: the jar adds it to the parent
            r, lp = rank[p], last_end
            if last_end != -1:  # skip this word: a gap ends the chunk
                r += 1
                lp = -1
            n_rank[out], n_dist[out], n_idx[out] = r, dist[p], idx[p] + 1
            n_last[out], n_head[out] = lp, head[p]
            _copy_into(n_u1[out], u1[p])
            _copy_into(n_u2[out], u2[p])
            out += 1
        if out == 0:  # the jar warns and keeps the best path
            n_rank[0], n_dist[0], n_idx[0] = rank[0], dist[0], idx[0]
            n_last[0], n_head[0] = last[0], head[0]
            _copy_into(n_u1[0], u1[0])
            _copy_into(n_u2[0], u2[0])
            out = 1
        rank, n_rank = n_rank, rank
        dist, n_dist = n_dist, dist
        idx, n_idx = n_idx, idx
        last, n_last = n_last, last
        u1, n_u1 = n_u1, u1
        u2, n_u2 = n_u2, u2
        head, n_head = n_head, head
        n_paths = out
    best = 0
    best_rank = 0
    best_dist = 0
    for p in range(n_paths):  # close the last chunk; the first of the smallest ranks
        r = rank[p] + 1 if last[p] != -1 else rank[p]
        if p == 0 or r < best_rank or (r == best_rank and dist[p] < best_dist):
            best, best_rank, best_dist = p, r, dist[p]
    return node_match, node_prev, head[best]


@_jit
def align_stats(m, count, cov1, cov2, func, t0, n1, r0, n2, stats):  # pragma: no cover
    """The oracle's ``align`` and the statistics of its ``segment_stats``, written into
    ``stats`` (the 23 numbers of :data:`.stats.STATISTICS`)."""
    first, by_ref = _by_reference(m, count, n2)
    # matches fixed in advance: alone at their start, covering words nothing else covers
    fixed = np.full(n2 + 1, -1, np.int64)
    used1 = np.zeros(_words(n1), np.int64)
    used2 = np.zeros(_words(n2), np.int64)
    search = False
    for j in range(n2):
        if first[j + 1] - first[j] != 1:
            if first[j + 1] > first[j]:
                search = True
            continue
        c = by_ref[first[j]]
        unique = True
        for q in range(m[c, 0], m[c, 0] + m[c, 1]):
            if cov2[q] != 1:
                unique = False
        for q in range(m[c, 2], m[c, 2] + m[c, 3]):
            if cov1[q] != 1:
                unique = False
        if unique:
            fixed[j] = c
            _add_range(used2, m[c, 0], m[c, 1])
            _add_range(used1, m[c, 2], m[c, 3])
        else:
            search = True
    chosen = fixed[:n2].copy()
    if search:
        node_match, node_prev, node = resolve(m, by_ref, first, fixed, used1, used2, n2, BEAM_SIZE)
        while node >= 0:
            c = node_match[node]
            chosen[m[c, 0]] = c
            node = node_prev[node]
    stats[:] = 0
    stats[0], stats[1] = n1, n2
    for k in range(n1):
        stats[2] += func[t0 + k]
    for k in range(n2):
        stats[3] += func[r0 + k]
    for j in range(n2):
        c = chosen[j]
        if c < 0:
            continue
        base = 4 + 4 * m[c, 4]
        for k in range(m[c, 2], m[c, 2] + m[c, 3]):
            stats[base + (2 if func[t0 + k] else 0)] += 1
        for k in range(m[c, 0], m[c, 0] + m[c, 1]):
            stats[base + (3 if func[r0 + k] else 1)] += 1
    stats[20], stats[21], stats[22] = _count_chunks(m, chosen, n2)


@_jit_inline
def _by_reference(m, count, n2):  # pragma: no cover - compiled
    """The matches grouped by reference start, in order (a stable counting sort): the rows
    starting at reference word ``j`` are ``by_ref[first[j]:first[j + 1]]``."""
    first = np.zeros(n2 + 1, np.int64)
    for k in range(count):
        first[m[k, 0] + 1] += 1
    for j in range(n2):
        first[j + 1] += first[j]
    fill = first[:n2].copy()
    by_ref = np.empty(count, np.int64)
    for k in range(count):
        by_ref[fill[m[k, 0]]] = k
        fill[m[k, 0]] += 1
    return first, by_ref


@_jit_inline
def _count_chunks(m, chosen, n2):  # pragma: no cover - compiled
    """The oracle's ``count_chunks``: chunks of the chosen matches (``chosen[j]``: the row
    starting at reference word ``j``, or -1) and the words they cover in the hypothesis and
    the reference."""
    m1 = m2 = chunks = 0
    j = 0
    last_end = -1
    while j < n2:
        c = chosen[j]
        if c < 0:
            if last_end != -1:
                chunks += 1
                last_end = -1
            j += 1
        else:
            m1 += m[c, 3]
            m2 += m[c, 1]
            if last_end != -1 and m[c, 2] != last_end:
                chunks += 1
            j = m[c, 0] + m[c, 1]
            last_end = m[c, 2] + m[c, 3]
    if last_end != -1:
        chunks += 1
    return chunks, m1, m2


@_jit
def _div(a, b):  # pragma: no cover - compiled
    """Java's ``a / b`` on doubles."""
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


@_jit
def score(s):  # pragma: no cover - compiled
    """``MeteorScorer.computeMetrics``: the METEOR score of the 23 statistics ``s`` (of a
    segment, or summed over segments), with the jar's operations in the jar's order and
    Java's floating-point semantics (so the same double): a division by zero gives an
    infinity or NaN (:func:`_div`), a NaN score is 0, and a segment matched perfectly in one
    chunk has no fragmentation penalty. Formula and weights: :mod:`.params`."""
    tl, rl, tf, rf = float(s[0]), float(s[1]), float(s[2]), float(s[3])
    test_wlen = (DELTA * (tl - tf)) + ((1.0 - DELTA) * tf)
    ref_wlen = (DELTA * (rl - rf)) + ((1.0 - DELTA) * rf)
    test_w = 0.0
    ref_w = 0.0
    test_w += float(s[4]) * _W0 * DELTA
    test_w += float(s[8]) * _W1 * DELTA
    test_w += float(s[12]) * _W2 * DELTA
    test_w += float(s[16]) * _W3 * DELTA
    ref_w += float(s[5]) * _W0 * DELTA
    ref_w += float(s[9]) * _W1 * DELTA
    ref_w += float(s[13]) * _W2 * DELTA
    ref_w += float(s[17]) * _W3 * DELTA
    test_w += float(s[6]) * _W0 * (1.0 - DELTA)
    test_w += float(s[10]) * _W1 * (1.0 - DELTA)
    test_w += float(s[14]) * _W2 * (1.0 - DELTA)
    test_w += float(s[18]) * _W3 * (1.0 - DELTA)
    ref_w += float(s[7]) * _W0 * (1.0 - DELTA)
    ref_w += float(s[11]) * _W1 * (1.0 - DELTA)
    ref_w += float(s[15]) * _W2 * (1.0 - DELTA)
    ref_w += float(s[19]) * _W3 * (1.0 - DELTA)
    precision = _div(test_w, test_wlen)
    recall = _div(ref_w, ref_wlen)
    fmean = _div(1.0, _div(1.0 - ALPHA, precision) + _div(ALPHA, recall))
    test_total = s[4] + s[6] + s[8] + s[10] + s[12] + s[14] + s[16] + s[18]
    ref_total = s[5] + s[7] + s[9] + s[11] + s[13] + s[15] + s[17] + s[19]
    if s[20] == 1 and test_total == s[0] and ref_total == s[1]:
        frag = 0.0
    else:
        frag = _div(float(s[20]), (float(s[21]) + float(s[22])) / 2)
    penalty = GAMMA * (math.nan if math.isnan(frag) else math.pow(frag, BETA))
    value = fmean * (1.0 - penalty)
    if math.isnan(value):
        return 0.0
    if value < 0.0:
        value = 0.0
    return value + 0.0


@_jit
def score_items(
    hyp,
    ref_off,
    ref_seg,
    starts,
    lengths,
    keys,
    stems,
    func,
    vids,
    syn_off,
    syn_ids,
    ph_off,
    ph_start,
    ph_len,
    ph_row,
    tab_off,
    tab_para,
    tab_len,
    oc_off,
    oc_node,
    oc_pos,
):  # pragma: no cover - compiled
    """The oracle's ``segment_stats`` of every item: hypothesis segment ``hyp[k]``, references
    ``ref_seg[ref_off[k]:ref_off[k + 1]]``. Returns the best reference's statistics per
    item (``int64[n, 23]``; every item has at least one reference) and their scores
    (``float64[n]``, :func:`score` of each row)."""
    n_items = hyp.shape[0]
    out = np.zeros((n_items, N_STATS), np.int64)
    scores = np.empty(n_items, np.float64)
    tmp = np.zeros(N_STATS, np.int64)
    synset_row = np.full(syn_ids.max() + 1 if syn_ids.size else 1, -1, np.int64)
    for it in range(n_items):
        t = hyp[it]
        a, b = ref_off[it], ref_off[it + 1]
        t0, n1 = starts[t], lengths[t]
        synset_words = mark_synsets(synset_row, t0, n1, vids, syn_off, syn_ids)
        bounds = np.empty(b - a, np.float64)
        found = []  # each reference's candidate matches and coverage, for the alignment
        for q in range(a, b):
            r = ref_seg[q]
            m, count, cov1, cov2 = candidate_matches(
                t,
                r,
                starts,
                lengths,
                keys,
                stems,
                vids,
                syn_off,
                syn_ids,
                ph_off,
                ph_start,
                ph_len,
                ph_row,
                tab_off,
                tab_para,
                tab_len,
                oc_off,
                oc_node,
                oc_pos,
                synset_row,
                synset_words,
            )
            bounds[q - a] = score_bound(func, t0, n1, cov1, starts[r], lengths[r], cov2)
            found.append((m, count, cov1, cov2))
        scores[it] = _best_alignment(
            found, bounds, ref_seg[a:b], starts, lengths, func, t0, n1, tmp, out[it]
        )
        clear_synsets(synset_row, t0, n1, vids, syn_off, syn_ids)
    return out, scores


@_jit_inline
def _decreasing_order(values):  # pragma: no cover - compiled
    """The indices of ``values`` by decreasing value, equal values in index order (an
    insertion sort: an item has few references; ``np.argsort(-values, kind="mergesort")``
    without compiling numpy's merge sort for floats)."""
    order = np.empty(values.shape[0], np.int64)
    for i in range(values.shape[0]):
        j = i
        while j > 0 and values[order[j - 1]] < values[i]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i
    return order


@_jit_inline
def _best_alignment(
    found, bounds, refs, starts, lengths, func, t0, n1, tmp, best
):  # pragma: no cover - compiled
    """The statistics of the best-scoring reference into ``best``, and its score: references
    in decreasing order of their bound (stable), skipping those whose bound cannot win; ties
    go to the first reference."""
    best_score = -1.0
    best_k = -1
    for k in _decreasing_order(bounds):
        if bounds[k] < best_score - BOUND_MARGIN:
            continue
        r = refs[k]
        m, count, cov1, cov2 = found[k]
        align_stats(m, count, cov1, cov2, func, t0, n1, starts[r], lengths[r], tmp)
        s = score(tmp)
        if s > best_score or (s == best_score and k < best_k):
            _copy_into(best, tmp)
            best_score, best_k = s, k
    return best_score


@_jit
def _find(sorted_keys, lo, hi, key):  # pragma: no cover - compiled
    """Position of ``key`` in ``sorted_keys[lo:hi]`` (ascending), or -1."""
    end = hi
    while lo < hi:
        mid = (lo + hi) >> 1
        if sorted_keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    if lo < end and sorted_keys[lo] == key:
        return lo
    return -1


@_jit
def ngram_occurrences(
    ids, start, stop, level_offsets, level_keys, n_words, word_nodes, child_off, phrase_row
):  # pragma: no cover - compiled
    """The oracle's ``ngram_nodes`` as a list: every n-gram ``ids[p:p + d]``,
    ``start <= p < stop``, that is a node of the paraphrase trie (a word id -1 ends every
    n-gram), slot-major and shortest first, as ``(slot p, length d, node, phrase_row[node])``.

    ``word_nodes[w]``: the one-word node of word ``w`` (or -1); ``child_off``: where the
    children of each one-word node start among the two-word nodes
    (:attr:`.paraphrase.ParaphraseIndex.first_levels`)."""
    n = ids.shape[0]
    depth = level_offsets.shape[0] - 2
    width = np.uint64(n_words)
    nodes = np.empty((stop - start, max(depth, 1)), np.int64)
    found = np.zeros(stop - start, np.int64)
    for p in range(start, stop):
        i = p - start
        w = ids[p]
        if w < 0 or depth < 1 or word_nodes[w] < 0:
            continue
        node = word_nodes[w]
        nodes[i, 0] = node
        k = 1
        for d in range(2, min(depth, n - p) + 1):
            w = ids[p + d - 1]
            if w < 0:
                break
            key = np.uint64(node) * width + np.uint64(w)
            if d == 2:  # among the children of the one-word node
                lo = level_offsets[2] + child_off[node - 1]
                hi = level_offsets[2] + child_off[node]
            else:
                lo, hi = level_offsets[d], level_offsets[d + 1]
            node = _find(level_keys, lo, hi, key)
            if node < 0:
                break
            nodes[i, k] = node
            k += 1
        found[i] = k
    total = found.sum()
    slot = np.empty(total, np.int64)
    length = np.empty(total, np.int64)
    node_of = np.empty(total, np.int64)
    row = np.empty(total, np.int64)
    q = 0
    for i in range(stop - start):
        for k in range(found[i]):
            slot[q] = start + i
            length[q] = k + 1
            node_of[q] = nodes[i, k]
            row[q] = phrase_row[nodes[i, k]]
            q += 1
    return slot, length, node_of, row
