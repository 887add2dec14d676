"""Distributional similarity sigma_D (Section 3.5.3, eq. 24): positive PMI over sentences.

The vector of word w has one component per context word w_i::

    w_D(i) = max(0, log2 P(w, w_i) / (P(w) P(w_i)))                          (eq. 24)

where P(w) is the fraction of the corpus's sentences containing w and P(w, w_i) the fraction
containing both. Two variants (Section 3.5.3): D_ic on the training captions (rows = columns = the
words seen at least 5 times, 1,928 in the paper) and D_ext on general English (the paper's D_BNC):
rows = caption words seen at least 5 times in both corpora, columns = the external corpus's own
words seen at least 5 times. The word kernel is the cosine of these vectors (eq. 17-18).

Co-occurrence counts are a sparse product of binary sentence-by-word matrices (scipy.sparse).
Whether a word's component for itself (PMI = -log2 P(w)) is kept is a parameter (``self_pmi``);
eq. 24 does not exclude it, but Figure 3 decides: without it the D_ic neighbours of "rider" and
"swim" come out in the paper's order with values within 0.01 of the printed ones.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from features.text._word_kernel import WordKernel


def token_counts(sentences: Iterable[Sequence[str]]) -> Counter:
    """Token -> occurrences (works on lists of tokens or a ``TokenizedCorpus``)."""
    if hasattr(sentences, "counts") and hasattr(sentences, "ids"):
        return Counter(sentences.counts())
    counts: Counter = Counter()
    for s in sentences:
        if isinstance(s, str):
            raise TypeError("expected sentences as token lists, got a string")
        counts.update(s)
    return counts


def frequent_words(sentences: Iterable[Sequence[str]], min_count: int = 5) -> list[str]:
    """Words seen at least ``min_count`` times, sorted."""
    return sorted(w for w, c in token_counts(sentences).items() if c >= min_count)


def sentence_word_matrix(sentences, vocabulary: Sequence[str]) -> sp.csr_matrix:
    """Binary (n_sentences, len(vocabulary)) matrix: does sentence k contain word j?

    Words outside ``vocabulary`` are ignored (sentences still count towards n_sentences).
    """
    index = {w: j for j, w in enumerate(vocabulary)}
    if hasattr(sentences, "indptr") and hasattr(sentences, "ids"):  # TokenizedCorpus
        col_of_type = np.array([index.get(t, -1) for t in sentences.types], dtype=np.int64)
        cols = col_of_type[sentences.ids] if len(sentences.ids) else np.zeros(0, np.int64)
        rows = np.repeat(np.arange(len(sentences)), np.diff(sentences.indptr))
        n = len(sentences)
    else:
        rows_l: list[int] = []
        cols_l: list[int] = []
        n = 0
        for k, s in enumerate(sentences):
            n = k + 1
            for w in s:
                j = index.get(w)
                if j is not None:
                    rows_l.append(k)
                    cols_l.append(j)
        rows = np.asarray(rows_l, dtype=np.int64)
        cols = np.asarray(cols_l, dtype=np.int64)
    keep = cols >= 0
    m = sp.csr_matrix(
        (np.ones(int(keep.sum())), (rows[keep], cols[keep])), shape=(n, len(vocabulary))
    )
    m.sum_duplicates()
    m.data[:] = 1.0
    return m


def ppmi(
    sentences, rows: Sequence[str], columns: Sequence[str] | None = None, *, self_pmi: bool = True
) -> sp.csr_matrix:
    """Eq. 24: positive PMI (log2) of each row word with each column word, sparse.

    ``columns`` defaults to ``rows``. With ``self_pmi=False`` a word's component for itself is 0.
    """
    columns = rows if columns is None else columns
    both = list(dict.fromkeys(list(rows) + list(columns)))
    x = sentence_word_matrix(sentences, both)
    n = x.shape[0]
    if n == 0:
        raise ValueError("no sentences: cannot estimate P(w)")
    pos = {w: j for j, w in enumerate(both)}
    r = np.array([pos[w] for w in rows], dtype=np.int64)
    c = np.array([pos[w] for w in columns], dtype=np.int64)
    xr = x[:, r].tocsc()
    xc = x[:, c].tocsc()
    co = (xr.T @ xc).tocoo()  # sentence co-occurrence counts
    df = np.asarray(x.sum(axis=0)).ravel()
    dr, dc = df[r], df[c]
    with np.errstate(divide="ignore"):
        vals = np.log2(co.data * n / (dr[co.row] * dc[co.col]))
    keep = vals > 0
    if not self_pmi:
        keep &= np.asarray(rows, dtype=object)[co.row] != np.asarray(columns, dtype=object)[co.col]
    return sp.csr_matrix(
        (vals[keep], (co.row[keep], co.col[keep])), shape=(len(rows), len(columns))
    )


@dataclass(eq=False, repr=False)
class DistributionalSimilarity(BaseEstimator):
    """PPMI vectors (eq. 24) fitted on a corpus of sentences; word kernel = cosine (eq. 18).

    Args:
        min_count: rows/columns are words seen at least this often (Section 3.5.3: 5).
        rows: fixed row words (e.g. the caption vocabulary); None: the corpus's frequent words.
        row_min_count: with ``rows`` given, keep only those seen at least this often in the
            fitted corpus too (D_ext: "at least 5 times in both corpora"); 0 keeps all.
        self_pmi: keep each word's component for itself (off by default: without it the D_ic
            neighbours of Figure 3 come out within 0.01 of the paper's values, with it up to 0.07
            higher and in a different order).
        name: the word kernel's name.

    Attributes:
        rows_, columns_: the row and column words. vectors_: sparse (rows, columns) PPMI.
    """

    min_count: int = 5
    rows: Sequence[str] | None = None
    row_min_count: int = 0
    self_pmi: bool = False
    name: str = "dist"

    def fit(self, sentences) -> "DistributionalSimilarity":
        counts = token_counts(sentences)
        columns = sorted(w for w, c in counts.items() if c >= self.min_count)
        if self.rows is None:
            rows = columns
        else:
            rows = [w for w in self.rows if counts.get(w, 0) >= max(self.row_min_count, 1)]
        self.rows_ = tuple(rows)
        self.columns_ = tuple(columns)
        self.vectors_ = ppmi(sentences, self.rows_, self.columns_, self_pmi=self.self_pmi)
        return self

    def word_kernel(self) -> WordKernel:
        """The cosine word kernel over ``rows_`` (eq. 17-18)."""
        return WordKernel.from_vectors(self.name, self.rows_, self.vectors_)
