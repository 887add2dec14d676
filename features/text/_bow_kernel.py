"""The bag-of-words kernel BoW (Section 3.4.1): cosine of term-frequency vectors.

BoW5 merges the five captions of a training image into one document (the default); BoW1
(``single_caption=True``) keeps one caption per training image, drawn with ``random_state``.
``weighting``: ``None``, ``"idf"`` (each frequency times ``lambda_w``) or ``"sqrt-idf"`` (times
``sqrt(lambda_w)``, BoW5^sqrt-idf), with ``lambda_w`` from :mod:`features.text._idf` fitted on
the training images. Exact matching: a sparse matrix product (see :mod:`.sequences`).

The training representation (BoW1's reduction) is used when ``gram``'s first argument is the
very list given to ``fit`` (or ``None`` as second argument); :meth:`gram_train` and
:meth:`gram_columns` give the train x train kernel and selected columns of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import scipy.sparse as sp

from features.kernels._base import Kernel, register_kernel
from features.text._idf import Idf, weighting_power
from features.text._sequences import (
    ColumnIndex,
    feature_matrix,
    geometric_normalize,
    item_spans,
    self_products,
    sparse_gram,
    with_columns,
)
from features.text._text_items import as_items, one_caption_each


class SparseSequenceKernel(Kernel):
    """Shared machinery: sparse span features, fitted columns, normalised sparse products."""

    _max_length = 1

    def _length(self) -> int:
        return self._max_length

    def _lambda_g(self) -> float:
        return 1.0

    def _lambda_m(self) -> float:
        return 1.0

    def _seq_weight(self):
        power = weighting_power(self.weighting)
        lm = self._lambda_m()
        idf = self.idf_
        if power == 0.0:
            if lm == 1.0:
                return None
            return lambda key: lm ** len(key)
        return lambda key: lm ** len(key) * idf.sequence_weight(key, power)

    def _features(self, items, columns: ColumnIndex) -> sp.csr_matrix:
        feats = [item_spans(it, self._length(), self._lambda_g()) for it in items]
        return feature_matrix(feats, columns, self._seq_weight())

    def fit(self, train_items: Sequence[Any]) -> "SparseSequenceKernel":
        items = as_items(train_items, "training items")
        self._check_params()
        self.idf_ = Idf().fit(items)
        used = one_caption_each(items, self.random_state) if self.single_caption else items
        columns = ColumnIndex()
        self.train_features_ = self._features(used, columns)
        self.columns_ = columns.frozen()
        self.train_self_ = self_products(self.train_features_)
        self.train_items_ = train_items
        return self

    def _check_params(self) -> None:
        weighting_power(self.weighting)

    def _side(self, items, columns: ColumnIndex) -> tuple[sp.csr_matrix, np.ndarray]:
        if items is self.train_items_:
            return self.train_features_, self.train_self_
        x = self._features(as_items(items), columns)
        return x, self_products(x)

    def _gram(self, items_a: Sequence[Any], items_b: Sequence[Any]) -> np.ndarray:
        self._check_fitted()
        columns = ColumnIndex(self.columns_)
        xa, da = self._side(items_a, columns)
        same = items_a is items_b
        xb, db = (xa, da) if same else self._side(items_b, columns)
        n = len(columns)
        k = sparse_gram(with_columns(xa, n), with_columns(xb, n))
        return geometric_normalize(k, da, db, out=k, same=same)

    def diag(self, items: Sequence[Any]) -> np.ndarray:
        """Normalised kernels have a unit diagonal (empty items included, see sequences)."""
        self._check_fitted()
        return np.ones(len(as_items(items, warn=False)))

    def gram_columns(self, indices: Sequence[int]) -> np.ndarray:
        """Columns ``indices`` of the train x train kernel: shape (n_train, len(indices))."""
        self._check_fitted()
        idx = np.asarray(indices, dtype=np.int64)
        x = self.train_features_
        if idx.size and (idx.min() < 0 or idx.max() >= x.shape[0]):
            raise IndexError(
                f"column indices must lie in [0, {x.shape[0]}); got {idx.min()}..{idx.max()}"
            )
        k = sparse_gram(x, x[idx])
        k = geometric_normalize(k, self.train_self_, self.train_self_[idx], out=k)
        zero = self.train_self_[idx] <= 0  # the unit diagonal of the train x train kernel
        k[idx[zero], np.flatnonzero(zero)] = 1.0
        return k


@register_kernel("bow")
@dataclass(eq=False, repr=False)
class BowKernel(SparseSequenceKernel):
    """BoW kernel: ``K(x, y) = cos(tf_x, tf_y)`` (Section 3.4.1), optionally (sqrt-)idf weighted.

    Items are token lists; a training item is the captions of one image (a list of token
    lists, merged into one document: BoW5).

    Parameters
    ----------
    weighting : {None, "idf", "sqrt-idf"}, default=None
        Term weights: none, ``lambda_w`` or ``sqrt(lambda_w)`` (BoW5^sqrt-idf).
    single_caption : bool, default=False
        BoW1: one caption per training item, drawn with ``random_state``.
    random_state : int or None, default=0
        Seed of the BoW1 draw.

    Attributes
    ----------
    idf_ : Idf
        The IDF weights of the training images (:mod:`features.text._idf`).
    train_features_ : scipy.sparse.csr_matrix
        The training items' (weighted) term frequencies.
    train_items_ : sequence
        The training items.

    Examples
    --------
    >>> from features.text._bow_kernel import BowKernel
    >>> train = [[["a", "dog", "runs"], ["dog", "running"]],
    ...          [["a", "red", "car"], ["car", "on", "road"]]]
    >>> kernel = BowKernel().fit(train)
    >>> kernel.gram([["dog", "runs"], ["red", "car"]]).round(3)
    array([[0.802, 0.   ],
           [0.   , 0.75 ]])
    >>> kernel.gram_train().round(3)
    array([[1.   , 0.134],
           [0.134, 1.   ]])
    """

    weighting: str | None = None
    single_caption: bool = False
    random_state: int | None = 0
