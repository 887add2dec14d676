"""Shared, vectorised n-gram counting: sentences -> sparse count matrix (for BLEU and CIDEr).

Every distinct 1..N-gram of a set of sentences becomes a column; row s holds the counts
h_k(s) of sentence s (Chen et al. 2015's notation). Tokens are mapped to integers 1..V and an
n-gram (t_1, ..., t_n) to the integer sum_k t_k * B^(n-k) with B = V + 1, so that n-grams of
different orders never collide (an n-gram's key is >= B^(n-1) > every (n-1)-gram's key) and
the columns come from one ``numpy.unique``. A 0 between sentences stops n-grams crossing
them. When B^N would overflow 64-bit integers the keys fall back to a Python dictionary.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING, Sequence

import numpy as np

if TYPE_CHECKING:  # SciPy is imported when a score is computed, not at import
    import scipy.sparse as sp


@dataclass
class NgramCounts:
    """Counts of all 1..max_n-grams of a list of sentences.

    Attributes:
        counts: CSR matrix (n_sentences, n_ngrams), raw counts.
        order: (n_ngrams,) the n of each column (1..max_n).
        lengths: (n_sentences,) token counts.
        max_n: highest order.
    """

    counts: sp.csr_matrix
    order: np.ndarray
    lengths: np.ndarray
    max_n: int

    def order_indicator(self) -> sp.csr_matrix:
        """(n_ngrams, max_n) 0/1 matrix: column k marks the (k+1)-grams (sums by order)."""
        import scipy.sparse as sp

        g = len(self.order)
        return sp.csr_matrix((np.ones(g), (np.arange(g), self.order - 1)), shape=(g, self.max_n))

    def per_order(self, matrix: sp.spmatrix) -> np.ndarray:
        """Row sums of ``matrix`` (same columns) split by n-gram order: (rows, max_n)."""
        return np.asarray((matrix @ self.order_indicator()).todense())


def count_ngrams(sentences: Sequence[Sequence[str]], max_n: int = 4) -> NgramCounts:
    """Count the 1..max_n-grams of every sentence (see module docstring)."""
    import scipy.sparse as sp

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
    starts = ends - lengths - 1
    sent_of = np.repeat(np.arange(n_sent), lengths + 1)
    mask = np.ones(total, dtype=bool)
    mask[ends - 1] = False
    flat[mask] = np.asarray(flat_tokens, dtype=np.int64)
    del starts
    if float(base) ** max_n < 2.0**62:
        keys_list, rows_list = [], []
        key: np.ndarray = flat.copy()
        valid = flat != 0
        for n in range(1, max_n + 1):
            if n > 1:
                key = key[:-1] * base + flat[n - 1 :]
                valid = valid[:-1] & (flat[n - 1 :] != 0)
            keys_list.append(key[valid])
            rows_list.append(sent_of[: len(valid)][valid])
        keys = np.concatenate(keys_list)
        rows = np.concatenate(rows_list)
        uniq, cols = np.unique(keys, return_inverse=True)
        # an n-gram's key has n digits in base B: its order is where it falls among B^k
        order = 1 + np.searchsorted(base ** np.arange(1, max_n, dtype=np.int64), uniq, "right")
    else:  # pragma: no cover - only for vocabularies above ~55,000 words (max_n = 4)
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
    counts = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_sent, len(order)))
    counts.sum_duplicates()
    return NgramCounts(
        counts=counts, order=np.asarray(order, dtype=np.int64), lengths=lengths, max_n=max_n
    )


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
):
    """Counts of candidates (rows 0..n-1) and references (rows n..) in one column space.

    Returns ``(ngrams, cand_rows, ref_rows, owner)``: CSR blocks of candidates and
    references, and the item index of every reference row.
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
    out = (ng, ng.counts[:n], ng.counts[n:], owner)
    if cacheable:  # tuples (of tuples) cannot change: safe to reuse for the next metric
        _LAST[:] = [references, candidates, max_n, out]
    return out


# The last counts of immutable (tuple) inputs: evaluate_captions passes the same tuples to
# BLEU and CIDEr, which then count the n-grams once.
_LAST: list = []
