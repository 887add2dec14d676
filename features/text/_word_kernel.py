"""Word kernels: the lexical similarity matrices that soften the trigram kernel (Sec. 3.5).

A :class:`WordKernel` is kappa(w, w') of eq. 17-18 over a vocabulary: symmetric, unit
diagonal, the cosine of the words' similarity vectors. Words outside the vocabulary are
similar only to themselves (the identity). Thresholding (entries strictly below a floor
are zeroed, Section 3.5.1) and the combinations of eq. 26 (average) and eq. 27 (maximum) live here
so every similarity source (Lin, distributional, alignment) shares them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence, cast

import numpy as np


@dataclass(frozen=True)
class WordKernel:
    """kappa over ``vocabulary``: ``matrix[i, j]`` = similarity of words i and j.

    Parameters
    ----------
    name : str
        Short name for reports and cache keys (e.g. ``"dist-ic"``, ``"align"``).
    vocabulary : tuple of str
        The words with similarity vectors, in matrix order.
    matrix : ndarray of shape (V, V)
        Float64, symmetric, unit diagonal, entries in [0, 1].

    Attributes
    ----------
    index : dict of str to int
        Each word's row in ``matrix``.

    Examples
    --------
    >>> import numpy as np
    >>> from features.text._word_kernel import WordKernel
    >>> kappa = WordKernel("toy", ("dog", "puppy"), np.array([[1.0, 0.8], [0.8, 1.0]]))
    >>> kappa.similarity("dog", "puppy"), kappa.similarity("dog", "cat")
    (0.8, 0.0)
    >>> kappa.thresholded(0.9).similarity("dog", "puppy")
    0.0
    """

    name: str
    vocabulary: tuple[str, ...]
    matrix: np.ndarray
    index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        m = np.asarray(self.matrix, dtype=np.float64)
        v = len(self.vocabulary)
        if m.shape != (v, v):
            raise ValueError(
                f"word kernel {self.name!r}: matrix shape {m.shape} does not "
                f"match its vocabulary of {v} words"
            )
        if not np.isfinite(m).all():
            raise ValueError(f"word kernel {self.name!r} has non-finite entries")
        if len(set(self.vocabulary)) != v:
            raise ValueError(f"word kernel {self.name!r}: duplicate words in the vocabulary")
        object.__setattr__(self, "matrix", m)
        object.__setattr__(self, "index", {w: i for i, w in enumerate(self.vocabulary)})

    @classmethod
    def from_vectors(cls, name: str, vocabulary: Sequence[str], vectors) -> "WordKernel":
        """Eq. 17: the cosine of similarity vectors (rows of a dense or sparse matrix).

        A word whose vector is all zero is similar only to itself.
        """
        import scipy.sparse as sp

        x = sp.csr_matrix(vectors, dtype=np.float64)
        norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
        inv = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        xn = sp.diags(inv) @ x
        m = np.asarray((xn @ xn.T).todense())
        np.clip(m, 0.0, 1.0, out=m)
        np.fill_diagonal(m, 1.0)
        return cls(name, tuple(vocabulary), m)

    def similarity(self, a: str, b: str) -> float:
        """kappa(a, b); identity outside the vocabulary (eq. 18)."""
        if a == b:
            return 1.0
        i, j = self.index.get(a), self.index.get(b)
        if i is None or j is None:
            return 0.0
        return float(self.matrix[i, j])

    def thresholded(self, floor: float) -> "WordKernel":
        """Zero every off-diagonal entry strictly below ``floor`` (Section 3.5.1)."""
        m = np.where(self.matrix < floor, 0.0, self.matrix)
        np.fill_diagonal(m, 1.0)
        return WordKernel(f"{self.name}>={floor:g}", self.vocabulary, m)

    def on(self, vocabulary: Sequence[str]) -> np.ndarray:
        """The kernel restricted/extended to ``vocabulary`` (identity for unknown words)."""
        idx = np.array([self.index.get(w, -1) for w in vocabulary])
        known = idx >= 0
        out = np.eye(len(vocabulary))
        sub = np.ix_(np.flatnonzero(known), np.flatnonzero(known))
        out[sub] = self.matrix[np.ix_(idx[known], idx[known])]
        np.fill_diagonal(out, 1.0)
        return out

    def nearest(self, word: str, k: int = 5) -> list[tuple[str, float]]:
        """The ``k`` most similar other words with their kernel values (Figure 3)."""
        i = self.index.get(word)
        if i is None:
            return []
        row = self.matrix[i].copy()
        row[i] = -np.inf
        order = np.lexsort((np.array(self.vocabulary), -row))[:k]
        return [(self.vocabulary[j], float(row[j])) for j in order if np.isfinite(row[j])]


def union_vocabulary(kernels: Iterable[WordKernel]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for k in kernels:
        seen.update(dict.fromkeys(k.vocabulary))
    return tuple(seen)


def average(kernels: Sequence[WordKernel], name: str = "avg") -> WordKernel:
    """Eq. 26: the mean of several word kernels over the union of their vocabularies."""
    vocab = union_vocabulary(kernels)
    m = cast(np.ndarray, sum(k.on(vocab) for k in kernels) / len(kernels))
    return WordKernel(name, vocab, m)


def maximum(kernels: Sequence[WordKernel], name: str = "max") -> WordKernel:
    """Eq. 27: the element-wise maximum of word kernels over the union vocabulary."""
    vocab = union_vocabulary(kernels)
    m = np.maximum.reduce([k.on(vocab) for k in kernels])
    return WordKernel(name, vocab, m)
