"""Word sequences of a caption and their span counts (eq. 12-15), as sparse features.

A caption ``s`` matches a sequence ``w = w_1..w_k`` on a span ``(i, j)`` when ``s_i = w_1``,
``s_j = w_k`` and ``w`` is a subsequence of ``s_i..s_j`` (eq. 12). A span counts once however
many middle words fit (for ``k = 3``: every distinct word strictly inside the span gives one
sequence); for ``k = 1`` the count is the term frequency; gaps are unbounded. With
``lambda_g != 1`` each span is weighted by ``lambda_g ** (gaps)`` (eq. 14), which keeps the
kernel an inner product of explicit features.

The exact sequence kernels (BoW, TRI, TRI^sqrt-idf) are then sparse matrix products: an item's
feature vector is the sum of its captions' vectors (so the sum of the kernel over the cross
product of two items' captions is one dot product), and :func:`geometric_normalize` divides by
the geometric mean of the self-products (Section 3.4.3).
"""

from __future__ import annotations

from typing import Callable, Iterable, Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from kcca.errors import SettingError

Key = tuple[str, ...]


def caption_spans(
    tokens: Sequence[str], max_length: int = 3, lambda_g: float = 1.0
) -> dict[Key, float]:
    """``m_{s,w}`` for every sequence ``w`` of length ``<= max_length`` (1, 2 or 3) in ``tokens``.

    With ``lambda_g = 1`` the values are the span counts of eq. 15; otherwise each span adds
    ``lambda_g ** ((j - i + 1) - k)`` (the gap part of eq. 14).

    The keys come in the order in which the spans ``(i, j)`` first meet them, ``i`` then ``j``
    ascending (for ``k = 3`` then the middle word's first position after ``i``). With
    ``lambda_g = 1`` the time is linear in the length for a given number of distinct words
    ``V`` (at most ``n V`` steps for pairs, ``n V^2`` for triples); otherwise every span is
    added in that order (``n^2`` steps for pairs, up to ``n^2 V`` for triples).
    """
    if max_length not in (1, 2, 3):
        raise SettingError(f"max_length must be 1, 2 or 3 (the trigram kernel), got {max_length}")
    out: dict[Key, float] = {}
    key: Key
    for t in tokens:
        key = (t,)
        out[key] = out.get(key, 0.0) + 1.0
    if max_length == 1:
        return out
    if lambda_g != 1.0:
        _weighted_spans(tokens, max_length, lambda_g, out)
        return out
    # A sequence starting with word ``a`` first appears on a span from ``a``'s first position
    # ``f`` (every later ``a`` matches a subset of what the first one does), so its key is
    # made there, in the order of the span loop; its count sums, over each end ``j``, the
    # ``a``s before the last middle word in front of ``j``: #a in [0, last_b(j)).
    first: dict[str, int] = {}
    for f, a in enumerate(tokens):
        first.setdefault(a, f)
    for a, f in first.items():
        seen = 1.0  # the ``a``s before ``c``
        for c in tokens[f + 1 :]:
            key = (a, c)
            out[key] = out.get(key, 0.0) + seen
            if c == a:
                seen += 1.0
    if max_length == 3:
        for a, f in first.items():
            seen = 1.0
            # each word b met after f -> the ``a``s before its last position so far, in order
            # of its first position after f (a set's order would follow the string hashing)
            before: dict[str, float] = {}
            for c in tokens[f + 1 :]:
                for b, v in before.items():
                    key = (a, b, c)
                    out[key] = out.get(key, 0.0) + v
                before[c] = seen
                if c == a:
                    seen += 1.0
    return out


def _weighted_spans(
    tokens: Sequence[str], max_length: int, lambda_g: float, out: dict[Key, float]
) -> None:
    """Add every span's ``lambda_g ** gaps`` to ``out`` one by one, spans in order."""
    n = len(tokens)
    key: Key
    for i in range(n):
        a = tokens[i]
        for j in range(i + 1, n):
            key = (a, tokens[j])
            out[key] = out.get(key, 0.0) + lambda_g ** (j - i - 1)
    if max_length >= 3:
        for i in range(n - 2):
            a = tokens[i]
            # distinct words strictly inside (i, j), in first-seen order
            middle: dict[str, None] = {}
            for j in range(i + 2, n):
                middle[tokens[j - 1]] = None
                c = tokens[j]
                w = lambda_g ** (j - i - 2)
                for b in middle:
                    key = (a, b, c)
                    out[key] = out.get(key, 0.0) + w


def item_spans(
    item: Iterable[Sequence[str]], max_length: int = 3, lambda_g: float = 1.0
) -> dict[Key, float]:
    """The item's feature: span counts summed over its captions."""
    total: dict[Key, float] = {}
    for caption in item:
        for key, v in caption_spans(caption, max_length, lambda_g).items():
            total[key] = total.get(key, 0.0) + v
    return total


class ColumnIndex:
    """Sequence -> column: the fitted (training) columns, plus columns for unseen sequences.

    The training part is frozen at fit time; each kernel evaluation extends a fresh
    :meth:`extended` copy, so unseen sequences never raise and never change the fitted state.
    """

    def __init__(self, base: Mapping[Key, int] | None = None) -> None:
        self.base: Mapping[Key, int] = base if base is not None else {}
        self.extra: dict[Key, int] = {}

    def __len__(self) -> int:
        return len(self.base) + len(self.extra)

    def __call__(self, key: Key) -> int:
        col = self.base.get(key)
        if col is None:
            col = self.extra.get(key)
            if col is None:
                col = len(self.base) + len(self.extra)
                self.extra[key] = col
        return col

    def extended(self) -> "ColumnIndex":
        return ColumnIndex(self.base)

    def frozen(self) -> dict[Key, int]:
        out = dict(self.base)
        out.update(self.extra)
        return out


def feature_matrix(
    features: Sequence[Mapping[Key, float]],
    columns: ColumnIndex,
    weight: Callable[[Key], float] | None = None,
) -> sp.csr_matrix:
    """Rows = items, columns from ``columns`` (grown for new keys); value ``m * weight(key)``."""
    indptr = [0]
    indices: list[int] = []
    data: list[float] = []
    cache: dict[Key, float] = {}
    for feat in features:
        for key, v in feat.items():
            indices.append(columns(key))
            if weight is None:
                data.append(v)
            else:
                wk = cache.get(key)
                if wk is None:
                    wk = cache[key] = weight(key)
                data.append(v * wk)
        indptr.append(len(indices))
    return sp.csr_matrix(
        (
            np.asarray(data, dtype=np.float64),
            np.asarray(indices, dtype=np.int64),
            np.asarray(indptr, dtype=np.int64),
        ),
        shape=(len(features), max(len(columns), 1)),
    )


def with_columns(x: sp.csr_matrix, n_columns: int) -> sp.csr_matrix:
    """``x`` with ``n_columns`` columns (new columns are zero)."""
    if x.shape[1] == n_columns:
        return x
    return sp.csr_matrix((x.data, x.indices, x.indptr), shape=(x.shape[0], n_columns))


def self_products(x: sp.csr_matrix) -> np.ndarray:
    """``<x_i, x_i>`` for each row."""
    return np.asarray(x.multiply(x).sum(axis=1), dtype=np.float64).ravel()


def sparse_gram(xa: sp.csr_matrix, xb: sp.csr_matrix, block_rows: int = 2048) -> np.ndarray:
    """Dense ``xa @ xb.T`` computed in row blocks (bounded temporary memory)."""
    n = max(xa.shape[1], xb.shape[1])
    xa, xb = with_columns(xa, n), with_columns(xb, n)
    xbt = xb.T.tocsr()
    out = np.empty((xa.shape[0], xb.shape[0]), dtype=np.float64)
    for r0 in range(0, xa.shape[0], block_rows):
        r1 = min(xa.shape[0], r0 + block_rows)
        out[r0:r1] = (xa[r0:r1] @ xbt).toarray()
    return out


def geometric_normalize(
    k: np.ndarray,
    diag_a: np.ndarray,
    diag_b: np.ndarray,
    out: np.ndarray | None = None,
    same: bool = False,
) -> np.ndarray:
    """``k[i, j] / sqrt(diag_a[i] diag_b[j])`` (Section 3.4.3, normalisation).

    An item with a zero self-product (only empty captions, or only zero-weighted words) has
    zero features: its normalised kernel is 0 against every item, except on the diagonal of a
    block of items against themselves (``same=True``), which is 1, so the training Gram keeps
    a unit diagonal (and stays PSD: the identity on those items).
    """
    da = np.asarray(diag_a, dtype=np.float64)
    db = np.asarray(diag_b, dtype=np.float64)
    ia = np.divide(1.0, np.sqrt(da), out=np.zeros_like(da), where=da > 0)
    ib = np.divide(1.0, np.sqrt(db), out=np.zeros_like(db), where=db > 0)
    out = np.multiply(k, ia[:, None], out=out)
    out *= ib[None, :]
    if same:
        if out.shape[0] != out.shape[1]:
            raise ValueError("same=True needs a square block of items against themselves")
        zero = np.flatnonzero(da <= 0)
        out[zero, zero] = 1.0
    return out
