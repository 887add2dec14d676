"""Shared, vectorised n-gram counting: sentences -> sparse counts (for BLEU and CIDEr).

Every distinct 1..N-gram of a set of sentences becomes a column; row s holds the counts
h_k(s) of sentence s (Chen et al. 2015's notation), kept as the nonzero entries of that
matrix in column-major order (:class:`Entries`, plain NumPy arrays: the metrics need no
sparse matrix library). Tokens are mapped to integers 1..V and an n-gram (t_1, ..., t_n) to
the integer sum_k t_k * B^(n-k) with B = V + 1, so that n-grams of different orders never
collide (an n-gram's key is >= B^(n-1) > every (n-1)-gram's key), and a stable sort of each
order's keys gives the columns (n-grams in key order) and the counts. A 0 between sentences
stops n-grams crossing them. When B^N would overflow 64-bit integers the keys fall back to
a Python dictionary.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import Sequence

import numpy as np


@dataclass
class Entries:
    """The nonzero entries of a (rows x n-grams) matrix, sorted by column, then row (so
    that a sum over a row's entries in array order adds them in column order).

    Attributes:
        rows, cols: (nnz,) row and n-gram column of each entry.
        values: (nnz,) the entries.
    """

    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray

    def with_values(self, values: np.ndarray) -> Entries:
        """The same positions holding ``values``."""
        return Entries(self.rows, self.cols, values)

    def values_at(self, rows: np.ndarray, cols: np.ndarray, n_rows: int) -> np.ndarray:
        """The entries at positions ``(rows, cols)`` (rows below ``n_rows``), 0.0 where
        there is none."""
        if len(self.rows) == 0:
            return np.zeros(len(rows))
        keys = self.cols * n_rows + self.rows  # ascending: sorted by column, then row
        wanted = cols * n_rows + rows
        pos = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
        return np.where(keys[pos] == wanted, self.values[pos], 0.0)


@dataclass
class NgramCounts:
    """Counts of all 1..max_n-grams of a list of sentences.

    Attributes:
        counts: the raw counts (float) as :class:`Entries`, one row per sentence.
        order: (n_ngrams,) the n of each column (1..max_n).
        lengths: (n_sentences,) token counts.
        max_n: highest order.
    """

    counts: Entries
    order: np.ndarray
    lengths: np.ndarray
    max_n: int

    @property
    def n_ngrams(self) -> int:
        """The number of columns: distinct n-grams of all orders."""
        return len(self.order)

    def per_order(self, entries: Entries, n_rows: int) -> np.ndarray:
        """Row sums of ``entries`` (columns of these n-grams) split by n-gram order:
        (n_rows, max_n), each sum taken in column order."""
        slot = entries.rows * self.max_n + (self.order[entries.cols] - 1)
        sums = np.bincount(slot, weights=entries.values, minlength=n_rows * self.max_n)
        return sums.reshape(n_rows, self.max_n)


def run_starts(*arrays: np.ndarray) -> np.ndarray:
    """Where a run of equal elements starts in arrays of one length read side by side: True
    at 0 and wherever an element differs from the one before in any of the arrays."""
    starts = np.ones(len(arrays[0]), dtype=bool)
    starts[1:] = np.logical_or.reduce([a[1:] != a[:-1] for a in arrays])
    return starts


def count_ngrams(sentences: Sequence[Sequence[str]], max_n: int = 4) -> NgramCounts:
    """Count the 1..max_n-grams of every sentence (see module docstring)."""
    lengths = np.fromiter((len(s) for s in sentences), dtype=np.int64, count=len(sentences))
    all_tokens = list(chain.from_iterable(sentences))
    vocab = {t: i for i, t in enumerate(dict.fromkeys(all_tokens), 1)}
    flat_tokens = list(map(vocab.__getitem__, all_tokens))
    n_sent = len(sentences)
    base = len(vocab) + 1
    # flat token ids with a 0 after each sentence
    total = int(lengths.sum()) + n_sent
    flat = np.zeros(total, dtype=np.int64)
    ends = np.cumsum(lengths + 1)  # index one past each separator
    sent_of = np.repeat(np.arange(n_sent), lengths + 1)
    mask = np.ones(total, dtype=bool)
    mask[ends - 1] = False
    flat[mask] = np.asarray(flat_tokens, dtype=np.int64)
    if float(base) ** max_n < 2.0**62:
        row_parts, col_parts, order_parts = [], [], []
        key: np.ndarray = flat.copy()
        valid = flat != 0
        n_cols = 0
        for n in range(1, max_n + 1):
            if n > 1:
                key = key[:-1] * base + flat[n - 1 :]
                valid = valid[:-1] & (flat[n - 1 :] != 0)
            keys, rows = key[valid], sent_of[: len(valid)][valid]
            # a stable sort of each order's keys: equal n-grams together, each one's sentences
            # ascending (token ids, n = 1, sort by radix as 16-bit integers when they fit)
            small = n == 1 and base <= 1 << 16
            perm = np.argsort(keys.astype(np.uint16) if small else keys, kind="stable")
            keys, rows = keys[perm], rows[perm]
            new_ngram = run_starts(keys)
            n_new = int(new_ngram.sum())
            row_parts.append(rows)
            col_parts.append(n_cols + np.cumsum(new_ngram) - 1)
            order_parts.append(np.full(n_new, n, dtype=np.int64))
            n_cols += n_new
        # columns: n-grams by order, then key (an n-gram's key is below every longer one's)
        rows = np.concatenate(row_parts)
        cols = np.concatenate(col_parts)
        order = np.concatenate(order_parts)
    else:  # vocabularies above ~55,000 words (max_n = 4), or high orders
        index: dict[tuple, int] = {}
        rows_l, cols_l, order_l = [], [], []
        for s_i, s in enumerate(sentences):
            for n in range(1, max_n + 1):
                for g in zip(*(s[k:] for k in range(n))):
                    c = index.get(g)
                    if c is None:
                        c = index[g] = len(index)
                        order_l.append(n)
                    rows_l.append(s_i)
                    cols_l.append(c)
        rows = np.asarray(rows_l, dtype=np.int64)
        cols = np.asarray(cols_l, dtype=np.int64)
        order = np.asarray(order_l, dtype=np.int64)
        # the fallback's occurrences in (n-gram, sentence) order, as the sort gives them
        perm = np.lexsort((rows, cols))
        rows, cols = rows[perm], cols[perm]
    # one entry per (n-gram, sentence) with its count: runs of equal occurrences
    first = np.flatnonzero(run_starts(rows, cols))
    counts = np.diff(np.append(first, len(rows))).astype(float)
    entries = Entries(rows[first], cols[first], counts)
    return NgramCounts(
        counts=entries, order=np.asarray(order, dtype=np.int64), lengths=lengths, max_n=max_n
    )


def first_of_each_item(ref: Entries, owner: np.ndarray) -> np.ndarray:
    """Positions in ``ref`` (references' entries) of the first entry of every (n-gram, item)
    pair: the entries of an n-gram come in row order, and ``owner`` (the item of each
    reference row) never decreases, so the pairs come in runs."""
    return np.flatnonzero(run_starts(ref.cols, owner[ref.rows]))


def flatten_references(
    references: Sequence[Sequence[Sequence[str]]],
) -> tuple[list[Sequence[str]], np.ndarray]:
    """All reference sentences in one list and the item index (owner) of each."""
    flat: list[Sequence[str]] = []
    owner: list[int] = []
    for i, refs in enumerate(references):
        flat.extend(refs)
        owner.extend([i] * len(refs))
    return flat, np.asarray(owner, dtype=np.int64)


def count_items(
    references: Sequence[Sequence[Sequence[str]]],
    candidates: Sequence[Sequence[str]],
    max_n: int = 4,
) -> tuple[NgramCounts, Entries, Entries, np.ndarray]:
    """Counts of candidates (rows 0..n-1) and references (rows n..) in one column space.

    Returns ``(ngrams, cand, ref, owner)``: the entries of the candidates (row i: item i) and
    of the references (row j: the j-th reference of all items, in order), and the item index
    of every reference row.
    """
    cacheable = isinstance(references, tuple) and isinstance(candidates, tuple)
    if (
        cacheable
        and _LAST
        and _LAST[0] is references
        and _LAST[1] is candidates
        and _LAST[2] == max_n
    ):
        return _LAST[3]
    flat_refs, owner = flatten_references(references)
    ng = count_ngrams(list(candidates) + flat_refs, max_n)
    n = len(candidates)
    every = ng.counts
    is_cand = every.rows < n
    cand = Entries(every.rows[is_cand], every.cols[is_cand], every.values[is_cand])
    is_ref = ~is_cand
    ref = Entries(every.rows[is_ref] - n, every.cols[is_ref], every.values[is_ref])
    out = (ng, cand, ref, owner)
    if cacheable:  # tuples (of tuples) cannot change: safe to reuse for the next metric
        _LAST[:] = [references, candidates, max_n, out]
    return out


# The last counts of immutable (tuple) inputs: evaluate_captions passes the same tuples to
# BLEU and CIDEr, which then count the n-grams once.
_LAST: list = []
