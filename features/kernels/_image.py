"""The image kernels of Section 3.3: K^HISTO (eq. 5-6) and the spatial pyramid K^PY (eq. 7-8).

Items are :class:`~features._image_features.ImageFeatures` records (one per image). For each
feature type F (colour, texture, SIFT) the per-type kernel is computed, the three are
averaged and the mean is raised to ``p`` (eq. 6; that order:
docs/paper-notes.md#combining-the-feature-types).

Because ``min(w a, w b) = w min(a, b)`` for ``w > 0``, the whole pre-power kernel is ONE
histogram intersection (:mod:`features.kernels._intersection`) over a weighted concatenation:

* K^HISTO: the whole-image histograms of the three types, each times ``1/3``
  (128 + 256 + 256 = 640 dims);
* K^PY: every cell histogram of every level and type, times ``w_l / 3`` with eq. 8's level
  weights ``w = (1/4, 1/4, 1/2)`` for ``L = 2`` (21 x 640 = 13,440 dims).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from features.kernels._base import Kernel, check_kernel_block, register_kernel
from features.kernels._intersection import intersection_block
from features._pyramid import cell_weights, n_cells
from kcca.errors import SettingError

DEFAULT_FEATURES = ("color", "texture", "sift")


def weighted_matrix(
    items: Sequence[Any], feature_types: Sequence[str], levels: int | None
) -> np.ndarray:
    """Rows = items, columns = the weighted concatenation whose intersection is the kernel.

    ``levels=None``: whole-image histograms only (K^HISTO), weight ``1/3`` per type (for
    ``T`` types, ``1/T``). ``levels=L``: pyramid cells ``0..L``, weight ``w_l / T`` (eq. 8).
    Float32, C-contiguous.
    """
    if not feature_types:
        raise ValueError("no feature types to build the image kernel from")
    n = len(items)
    widths = _widths(items, feature_types)
    cells = 1 if levels is None else n_cells(levels)
    cw = np.ones(1) if levels is None else cell_weights(levels)
    cw = (cw / len(feature_types)).astype(np.float32)
    out = np.empty((n, cells * sum(widths.values())), dtype=np.float32)
    for r, item in enumerate(items):
        col = 0
        for f in feature_types:
            pyr = item.pyramids[f]
            if pyr.shape[0] < cells:
                raise ValueError(
                    f"image {item.image_id!r} has a {pyr.shape[0]}-cell pyramid for {f!r}; "
                    f"the kernel needs {cells} cells (levels={levels}): re-extract with more levels"
                )
            block = pyr[:cells] * cw[:, None]
            out[r, col : col + block.size] = block.ravel()
            col += block.size
    return out


def _widths(items: Sequence[Any], feature_types: Sequence[str]) -> dict[str, int]:
    widths: dict[str, int] = {}
    for item in items:
        for f in feature_types:
            pyr = item.pyramids.get(f) if hasattr(item, "pyramids") else None
            if pyr is None:
                raise ValueError(
                    f"image item {getattr(item, 'image_id', item)!r} has no {f!r} histograms: "
                    "pass ImageFeatures records made with every feature type of the kernel"
                )
            v = widths.setdefault(f, pyr.shape[1])
            if pyr.shape[1] != v:
                raise ValueError(
                    f"image {item.image_id!r} has {pyr.shape[1]} {f} words, others have {v}: "
                    "all items must be quantised with the same codebooks"
                )
    return widths


class _IntersectionKernel(Kernel):
    """Shared machinery: build the weighted matrix, intersect, raise to ``p``."""

    execution_params = ("backend", "n_jobs", "progress")

    def _matrix(self, items: Sequence[Any]) -> np.ndarray:
        return weighted_matrix(items, tuple(self.feature_types), self._pyramid_levels())

    def _pyramid_levels(self) -> int | None:
        return None

    def _check_p(self) -> float:
        p = float(self.p)
        if not np.isfinite(p) or p <= 0:
            raise SettingError(f"kernel exponent p must be a positive number, got {self.p!r}")
        return p

    def fit(self, train_items: Sequence[Any]) -> "_IntersectionKernel":
        """Store the training items and their weighted matrix (``train_matrix_``)."""
        self._check_p()
        self.train_items_ = train_items
        self.train_matrix_ = self._matrix(train_items)
        return self

    def gram(self, items_a: Sequence[Any], items_b: Sequence[Any] | None = None) -> np.ndarray:
        """``K[i, j]`` between ``items_a`` and ``items_b`` (None: the training items).

        ``gram(train_items)`` after ``fit(train_items)`` (the same object) computes the
        symmetric training Gram, each pair once.
        """
        if items_b is None:
            self._check_fitted()
            b = self.train_matrix_
            a = b if items_a is self.train_items_ else self._matrix(items_a)
            sym = items_a is self.train_items_
            nb = len(self.train_items_)
        else:
            a = self._matrix(items_a)
            sym = items_b is items_a
            b = a if sym else self._matrix(items_b)
            nb = len(items_b)
        if a.shape[0] and b.shape[0] and a.shape[1] != b.shape[1]:
            raise ValueError(
                f"items have {a.shape[1]} weighted bins but the other side has {b.shape[1]}: "
                "they were quantised with different codebooks"
            )
        out = self.gram_matrix(a, None if sym else b)
        check_kernel_block(out, (len(items_a), nb), self.name)
        return out

    def gram_matrix(self, a: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
        """The kernel on weighted matrices (:func:`weighted_matrix`): intersection, then ``^p``."""
        p = self._check_p()
        out = intersection_block(
            a, b, backend=self.backend, n_jobs=self.n_jobs, progress=self.progress
        )
        np.clip(out, 0.0, None, out=out)
        if p != 1.0:
            np.power(out, p, out=out)
        return out

    def _gram(self, items_a: Sequence[Any], items_b: Sequence[Any]) -> np.ndarray:
        return self.gram(items_a, items_b)

    def diag(self, items: Sequence[Any]) -> np.ndarray:
        """``k(x, x) = (sum of x's weighted vector)^p``: 1 for normalised histograms."""
        p = self._check_p()
        m = self._matrix(items)
        return np.power(m.sum(axis=1, dtype=np.float64), p)


@register_kernel("histogram")
@dataclass(eq=False, repr=False)
class HistogramKernel(_IntersectionKernel):
    """K^HISTO (eq. 5-6): ``[1/3 sum_F sum_v min(H_iF(v), H_jF(v))]^p`` over whole-image histograms.

    Items are :class:`~features._image_features.ImageFeatures` records, one per image.

    Parameters
    ----------
    p : float, default=2
        Exponent of eq. 6 (systems fit with 1 and let the solver apply the grid's p).
    feature_types : sequence of str, default=("color", "texture", "sift")
        The feature types averaged (eq. 6).
    backend : {"numpy", "cupy", "auto", "array_api_strict"}, default="numpy"
        Array backend of the intersection (``"numpy"``: the numba CPU path).
    n_jobs : int, default=1
        Threads of the CPU path.
    progress : bool, default=False
        Show a tqdm bar.

    Attributes
    ----------
    train_items_ : sequence of ImageFeatures
        The training images.
    train_matrix_ : ndarray of shape (n_train, n_bins)
        Their weighted histograms (:func:`weighted_matrix`).

    Examples
    --------
    Two images described by one-cell colour histograms of three words:

    >>> import numpy as np
    >>> from features._image_features import ImageFeatures
    >>> from features.kernels._image import HistogramKernel
    >>> def image(name, histogram):
    ...     pyramid = {"color": np.array([histogram], dtype=np.float32)}
    ...     return ImageFeatures(name, pyramid, {"color": 4}, height=8, width=8, levels=0)
    >>> images = [image("a", [0.5, 0.5, 0.0]), image("b", [0.0, 0.25, 0.75])]
    >>> kernel = HistogramKernel(p=1, feature_types=["color"]).fit(images)
    >>> kernel.gram(images)
    array([[1.  , 0.25],
           [0.25, 1.  ]])
    >>> HistogramKernel(p=2, feature_types=["color"]).fit(images).gram(images)
    array([[1.    , 0.0625],
           [0.0625, 1.    ]])
    """

    p: float = 2
    feature_types: Sequence[str] = DEFAULT_FEATURES
    backend: str = "numpy"
    n_jobs: int = 1
    progress: bool = False


@register_kernel("pyramid")
@dataclass(eq=False, repr=False)
class PyramidKernel(_IntersectionKernel):
    """K^PY (eq. 7-8, combined as eq. 6): ``[1/3 sum_F sum_l w_l I^l_F]^p``.

    Level weights of eq. 8 with ``L = 2``: ``w = (1/4, 1/4, 1/2)``. Items are
    :class:`~features._image_features.ImageFeatures` records, one per image.

    Parameters
    ----------
    p : float, default=2
        Exponent of eq. 6.
    levels : int, default=2
        Eq. 8's ``L`` (the items' pyramids must have at least that many levels).
    feature_types : sequence of str, default=("color", "texture", "sift")
        The feature types averaged (eq. 6).
    backend : {"numpy", "cupy", "auto", "array_api_strict"}, default="numpy"
        As :class:`HistogramKernel`.
    n_jobs : int, default=1
        Threads of the CPU path.
    progress : bool, default=False
        Show a tqdm bar.

    Attributes
    ----------
    train_items_ : sequence of ImageFeatures
        The training images.
    train_matrix_ : ndarray of shape (n_train, n_cells * n_bins)
        Their weighted cell histograms (:func:`weighted_matrix`).

    Examples
    --------
    A one-level pyramid (the whole image, then its four quadrants) of two words: the same
    whole-image histogram, the words in different places:

    >>> import numpy as np
    >>> from features._image_features import ImageFeatures
    >>> from features.kernels._image import PyramidKernel
    >>> def image(name, rows):
    ...     pyramid = {"color": np.array(rows, dtype=np.float32)}
    ...     return ImageFeatures(name, pyramid, {"color": 4}, height=8, width=8, levels=1)
    >>> spread = image("a", [[0.5, 0.5]] + [[0.125, 0.125]] * 4)
    >>> sorted_ = image("b", [[0.5, 0.5], [0.25, 0], [0.25, 0], [0, 0.25], [0, 0.25]])
    >>> kernel = PyramidKernel(p=1, levels=1, feature_types=["color"]).fit([spread, sorted_])
    >>> kernel.gram([spread, sorted_])
    array([[1.  , 0.75],
           [0.75, 1.  ]])
    """

    p: float = 2
    levels: int = 2
    feature_types: Sequence[str] = DEFAULT_FEATURES
    backend: str = "numpy"
    n_jobs: int = 1
    progress: bool = False

    def _pyramid_levels(self) -> int | None:
        return int(self.levels)
