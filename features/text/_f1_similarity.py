"""The F1 text similarities of the nearest-neighbour baselines (Section 3.1), as the ``nn-f1``
kernel: a block of similarities between captions and training texts for
:mod:`kcca.nn`'s eq. 2.

Text similarities (Section 3.1): NN5_F1 is the F1 measure over bags of words (multisets);
NN5_F1^idf weights each token by ``lambda_w = log(|D_train| / (|D_train(w)| + 1))``, where
``D_train(w)`` is the set of training images in whose captions ``w`` appears. For weighted
multisets ``F1 = 2 sum_w lambda_w min(a_w, b_w) / (sum_w lambda_w a_w + sum_w lambda_w b_w)``
(the harmonic mean of precision and recall). A word in every training image would get a
slightly negative lambda; weights are clipped at 0 so F1 stays in [0, 1].
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from features.kernels._base import Kernel, register_kernel


def _tokens(item: Any) -> list[str]:
    """A caption (token list) or a multi-caption item (list of token lists) as one token list."""
    if isinstance(item, str):
        raise ValueError(
            f"an item must be a list of tokens (or of token lists), got the string {item!r:.40}"
        )
    out: list[str] = []
    for x in item:
        if isinstance(x, str):
            out.append(x)
        else:
            out.extend(_tokens(x))
    return out


def idf_weights(train_items: Sequence[Any]) -> dict[str, float]:
    """``lambda_w = max(0, log(N / (df_w + 1)))`` over the N training items (Section 3.1)."""
    N = len(train_items)
    if N == 0:
        raise ValueError("train_items is empty: IDF needs training items")
    df: Counter = Counter()
    for item in train_items:
        df.update(set(_tokens(item)))
    return {w: max(0.0, float(np.log(N / (c + 1)))) for w, c in df.items()}


def f1_block(
    items_a: Sequence[Any],
    items_b: Sequence[Any],
    weights: Mapping[str, float] | None = None,
    default_weight: float = 1.0,
) -> np.ndarray:
    """``F[i, j]`` = (weighted) multiset F1 of ``items_a[i]`` and ``items_b[j]``.

    ``weights=None`` is plain F1; otherwise a word missing from ``weights`` gets
    ``default_weight`` (for IDF: ``log(N)``, a word in no training image).
    """
    bags_a = [Counter(_tokens(x)) for x in items_a]
    bags_b = [Counter(_tokens(x)) for x in items_b]
    vocab: dict[str, int] = {}
    for bag in bags_a + bags_b:
        for w in bag:
            vocab.setdefault(w, len(vocab))
    lam = np.ones(len(vocab))
    if weights is not None:
        for w, i in vocab.items():
            lam[i] = weights.get(w, default_weight)

    def matrix(bags: list[Counter]) -> sp.csc_matrix:
        rows = np.repeat(np.arange(len(bags)), [len(b) for b in bags])
        cols = np.fromiter((vocab[w] for b in bags for w in b), dtype=np.intp, count=len(rows))
        vals = np.fromiter((c for b in bags for c in b.values()), dtype=float, count=len(rows))
        return sp.csr_matrix((vals, (rows, cols)), shape=(len(bags), len(vocab))).tocsc()

    B = matrix(bags_b)
    size_a = np.array([sum(lam[vocab[w]] * c for w, c in bag.items()) for bag in bags_a])
    size_b = np.asarray(B @ lam).ravel()
    out = np.zeros((len(bags_a), len(bags_b)))
    for i, bag in enumerate(bags_a):
        if not bag:
            continue
        cols = np.array([vocab[w] for w in bag])
        counts = np.array(list(bag.values()), dtype=float)
        sub = B[:, cols]
        which = np.repeat(np.arange(len(cols)), np.diff(sub.indptr))
        vals = np.minimum(sub.data, counts[which]) * lam[cols][which]
        overlap = np.bincount(sub.indices, weights=vals, minlength=len(bags_b))
        denom = size_a[i] + size_b
        out[i] = np.where(denom > 0, 2.0 * overlap / np.where(denom > 0, denom, 1.0), 0.0)
    return out


@register_kernel("nn-f1")
class F1Similarity(Kernel):
    """F1 over bags of words (``idf=False``, NN5_F1) or IDF-weighted (``idf=True``, NN5_F1^idf).

    Follows the kernel contract: ``fit(train_items)`` (multi-caption items: the five captions
    of a training image), ``gram(items_a, items_b=None)``, ``diag``. IDF is learned in ``fit``.

    Parameters
    ----------
    idf : bool, default=False
        Weight each token by ``lambda_w`` (module docstring).

    Attributes
    ----------
    idf_ : dict of str to float or None
        The IDF weights (None without ``idf``).
    train_items_ : list
        The training items.

    Examples
    --------
    >>> from features.text._f1_similarity import F1Similarity
    >>> train = [[["a", "dog", "runs"], ["dog", "running"]],
    ...          [["a", "red", "car"], ["car", "on", "road"]]]
    >>> F1Similarity().fit(train).gram([["dog", "runs"], ["red", "car"]]).round(3)
    array([[0.571, 0.   ],
           [0.   , 0.5  ]])
    """

    name = "nn-f1"

    def __init__(self, idf: bool = False):
        self.idf = idf

    def fit(self, train_items: Sequence[Any]) -> "F1Similarity":
        self.train_items_ = list(train_items)
        self.idf_ = idf_weights(self.train_items_) if self.idf else None
        self.default_weight_ = float(np.log(len(self.train_items_))) if self.idf else 1.0
        return self

    def _gram(self, items_a: Sequence[Any], items_b: Sequence[Any]) -> np.ndarray:
        if self.idf and not hasattr(self, "idf_"):
            raise RuntimeError("F1Similarity(idf=True) is not fitted: call fit(train_items) first")
        return f1_block(
            items_a, items_b, getattr(self, "idf_", None), getattr(self, "default_weight_", 1.0)
        )

    def diag(self, items: Iterable[Any]) -> np.ndarray:
        return np.array([self._gram([x], [x])[0, 0] for x in items])
