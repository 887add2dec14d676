"""Kernel functions on vectors (linear, cosine, RBF, polynomial, intersection), in row blocks.

The numbers are scikit-learn's (:mod:`sklearn.metrics.pairwise`): ``linear_kernel``,
``cosine_similarity`` (computed as the linear kernel of L2-normalised rows, which is how
scikit-learn computes it, so the rows are normalised once, not per block), ``rbf_kernel``
and ``polynomial_kernel``. A block is computed a slab of rows at a time (about
:data:`BLOCK_BYTES` of output each); the square block of a set of vectors with itself is
computed once per pair and mirrored, so it is exactly symmetric.

RBF's ``gamma`` defaults to the median heuristic (:func:`median_gamma`): one over the median
squared Euclidean distance between distinct training vectors, on a seeded sample of
:data:`MEDIAN_SAMPLE` of them when there are more. The polynomial kernel's defaults are
scikit-learn's (``gamma = 1 / dim``, ``coef0 = 1``, ``degree = 3``).

Two functions reproduce built-in kernels on the vectors ``kcca features --export`` writes:
``intersection``, the histogram intersection ``sum_k min(x_k, y_k)`` of eq. 5 and 7 computed
by the pyramid kernel's own code (:func:`features.kernels._intersection.intersection_numba`,
float32 sums), for the ``pyramid`` and ``histogram`` kernels; and ``linear-float32``, the
linear function as one float32 matrix product, as the ``fisher`` kernel computes its dot
products (the float64 ``linear`` differs from it by float32 rounding, about 1e-7).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from sklearn.metrics.pairwise import (
    euclidean_distances,
    linear_kernel,
    polynomial_kernel,
    rbf_kernel,
)
from sklearn.preprocessing import normalize

from kcca.errors import DataError

FUNCTIONS = ("linear", "cosine", "rbf", "polynomial", "intersection", "linear-float32")
#: training vectors the median heuristic looks at (a seeded sample when there are more)
MEDIAN_SAMPLE = 2000
#: the seed of that sample
MEDIAN_SEED = 0
#: output bytes of one slab of rows
BLOCK_BYTES = 1 << 27


def check_function(function: str, gamma: float | None, degree: int, coef0: float) -> None:
    """Refuse an unknown function and parameters that make the kernel not positive
    semi-definite (KCCA, eq. 3, needs PSD kernels): ``gamma <= 0``, a polynomial degree that
    is not a positive whole number, or ``coef0 < 0``."""
    if function not in FUNCTIONS:
        raise DataError(
            f"vectors kernel: unknown function {function!r}",
            fix=f"use one of {', '.join(FUNCTIONS)}",
        )
    if gamma is not None and not (np.isfinite(gamma) and gamma > 0):
        raise DataError(
            f"vectors kernel: gamma {gamma!r} is not a positive number",
            fix="give a positive gamma, or leave it out for the default",
        )
    if function == "polynomial":
        if isinstance(degree, bool) or int(degree) != degree or degree < 1:
            raise DataError(
                f"vectors kernel: polynomial degree {degree!r} is not a whole number >= 1",
                fix="give degree = 1, 2, 3, ... (a positive semi-definite kernel needs it)",
            )
        if not (np.isfinite(coef0) and coef0 >= 0):
            raise DataError(
                f"vectors kernel: polynomial coef0 {coef0!r} is negative or not a number",
                fix="give coef0 >= 0 (a positive semi-definite kernel needs it)",
            )


def prepare(vectors: np.ndarray, function: str) -> np.ndarray:
    """The rows a function is applied to: L2-normalised for ``cosine`` (in place), else as
    they are."""
    return normalize(vectors, copy=False) if function == "cosine" else vectors


def median_gamma(vectors: np.ndarray) -> float:
    """``1 / median ||x_i - x_j||^2`` over distinct pairs of rows (``i < j``), on a sample
    of :data:`MEDIAN_SAMPLE` rows drawn with seed :data:`MEDIAN_SEED` when there are more.
    Rows that are all equal leave no scale: a :class:`~kcca.errors.DataError`."""
    n = vectors.shape[0]
    if n > MEDIAN_SAMPLE:
        take = np.random.default_rng(MEDIAN_SEED).choice(n, MEDIAN_SAMPLE, replace=False)
        vectors = vectors[np.sort(take)]
        n = MEDIAN_SAMPLE
    if n < 2:
        raise DataError(
            "vectors kernel: the RBF median heuristic needs two or more training vectors",
            fix="give gamma",
        )
    squared = euclidean_distances(vectors, squared=True)
    median = float(np.median(squared[np.triu_indices(n, 1)]))
    if not median > 0:
        raise DataError(
            "vectors kernel: the median squared distance between training vectors is 0 "
            "(most of them are equal), so the RBF median heuristic has no scale",
            fix="give gamma, or check that the vectors differ between items",
        )
    return 1.0 / median


def vector_block(
    a: np.ndarray,
    b: np.ndarray | None,
    function: str,
    gamma: float | None = None,
    degree: int = 3,
    coef0: float = 1.0,
) -> np.ndarray:
    """``K[i, j] = k(a[i], b[j])`` in float64 (``b=None``: ``a`` with itself, symmetric).

    ``a`` and ``b`` are rows as :func:`prepare` leaves them; ``gamma`` is the one to use
    (RBF, polynomial; None: scikit-learn's default). ``intersection`` and ``linear-float32``
    are computed whole, as the built-in kernels they reproduce compute them (module
    docstring).
    """
    if function == "intersection":
        return _intersection(a, b)
    if function == "linear-float32":
        a32 = np.asarray(a, dtype=np.float32)
        b32 = a32 if b is None else np.asarray(b, dtype=np.float32)
        return (a32 @ b32.T).astype(np.float64)
    f = _pairwise(function, gamma, degree, coef0)
    a = np.asarray(a, dtype=np.float64)
    if b is None:
        return _symmetric(a, f)
    b = np.asarray(b, dtype=np.float64)
    out = np.empty((a.shape[0], b.shape[0]))
    step = _slab(b.shape[0])
    for start in range(0, a.shape[0], step):
        out[start : start + step] = f(a[start : start + step], b)
    return out


def vector_diag(
    a: np.ndarray, function: str, gamma: float | None = None, degree: int = 3, coef0: float = 1.0
) -> np.ndarray:
    """``k(a[i], a[i])`` for each row, without the square block."""
    a = np.asarray(a, dtype=np.float64)
    norms = np.einsum("ij,ij->i", a, a)
    if function == "rbf":
        return np.ones(a.shape[0])
    if function == "polynomial":
        g = 1.0 / a.shape[1] if gamma is None else gamma
        return (g * norms + coef0) ** degree
    if function == "intersection":
        return a.sum(axis=1)
    return norms


def _intersection(a: np.ndarray, b: np.ndarray | None) -> np.ndarray:
    """The histogram intersection block (eq. 5, 7) of non-negative rows."""
    from features.kernels._intersection import intersection_numba

    for rows in (a, b):
        if rows is not None and rows.size and np.min(rows) < 0:
            raise DataError(
                "vectors kernel: function 'intersection' needs vectors with no negative entry "
                f"(histograms); the smallest is {np.min(rows)}",
                fix="give it histograms (kcca features --export with a pyramid or histogram "
                "kernel), or use another function",
            )
    return intersection_numba(a, b)


def _pairwise(
    function: str, gamma: float | None, degree: int, coef0: float
) -> Callable[[np.ndarray, np.ndarray | None], np.ndarray]:
    if function in ("linear", "cosine"):
        return linear_kernel
    if function == "rbf":
        return lambda x, y: rbf_kernel(x, y, gamma=gamma)
    return lambda x, y: polynomial_kernel(x, y, degree=degree, gamma=gamma, coef0=coef0)


def _slab(columns: int) -> int:
    return max(1, BLOCK_BYTES // (8 * max(columns, 1)))


def _symmetric(
    a: np.ndarray, f: Callable[[np.ndarray, np.ndarray | None], np.ndarray]
) -> np.ndarray:
    """The square block of ``a`` with itself: each slab's diagonal square (by ``f(x, None)``,
    which scikit-learn computes with exact zero self-distances) and what lies right of it;
    the part left of it is the mirror of slabs above."""
    n = a.shape[0]
    out = np.empty((n, n))
    step = _slab(n)
    for start in range(0, n, step):
        stop = min(start + step, n)
        rows = a[start:stop]
        square = f(rows, None)
        out[start:stop, start:stop] = (square + square.T) / 2
        if stop < n:
            out[start:stop, stop:] = f(rows, a[stop:])
        out[start:stop, :start] = out[:start, start:stop].T
    return out
