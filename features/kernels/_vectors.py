"""``vectors``: a kernel on per-item vectors read from a file (beyond the paper).

Users' own embeddings (a CNN's or CLIP's image vectors, a sentence encoder's caption
vectors) take the place of the paper's image kernels (Section 3.3) or text kernels (Sections
3.4-3.5). The same name serves both sides of a system: the items are ids (``item_type =
"ids"``), image ids for ``[image_kernel]`` and caption ids ``IMAGE#N`` for ``[text_kernel]``,
each looked up in the file (:mod:`features._vectors_file`: ``.npy`` with an ids file,
``.npz``, Parquet).

A training item of a text kernel is the five captions of one image (a multi-caption item,
as the bag of words of BoW5 counts the words of all five): its vector is the mean of its
captions' vectors (each L2-normalised first when ``normalise`` is set). For the linear
kernel this is the mean of the 25 caption-pair values; for every function it keeps one
vector per item, so the Gram matrix is the function's on vectors (positive semi-definite,
as KCCA's eq. 3 needs) and costs one row per image, not five.

The function (``linear``, ``cosine``, ``rbf``, ``polynomial``) is computed in float64 row
blocks with scikit-learn's numbers (:mod:`features.kernels._vector_functions`; RBF's gamma by
the median heuristic unless given); ``intersection`` and ``linear-float32`` give the numbers
of the built-in ``pyramid`` / ``histogram`` and ``fisher`` kernels on the vectors ``kcca
features --export`` writes. The files' content is part of every cache key of the
kernel's blocks (:meth:`VectorsKernel.input_files`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
from sklearn.preprocessing import normalize as l2_normalize

from features.kernels._base import Kernel, check_kernel_block, register_kernel
from features.kernels._vector_functions import (
    check_function,
    median_gamma,
    prepare,
    vector_block,
    vector_diag,
)
from features._vectors_file import ItemVectors, default_ids_path, input_files, read_item_vectors
from kcca.errors import DataError

#: items whose vectors are read and combined at a time
ITEMS_AT_ONCE = 4096


@register_kernel("vectors")
@dataclass(eq=False, repr=False)
class VectorsKernel(Kernel):
    """A kernel function on vectors of items read from a file (module docstring).

    Items are ids: an image id or a caption id (one vector), or a sequence of ids (a
    training image's captions: the mean of their vectors).

    Parameters
    ----------
    path : str
        The vectors file (``.npy``, ``.npz``, ``.parquet``; :mod:`features._vectors_file`).
    ids_path : str or None, default=None
        The ids file of a ``.npy`` array, one id a line (None: ``NAME.ids.txt`` beside
        ``NAME.npy``).
    function : str, default="linear"
        ``"linear"``, ``"cosine"``, ``"rbf"``, ``"polynomial"``, ``"intersection"`` or
        ``"linear-float32"``:
        ``x . y``; ``x . y / (|x| |y|)``; ``exp(-gamma |x - y|^2)``;
        ``(gamma x . y + coef0)^degree``; ``sum_k min(x_k, y_k)`` (non-negative vectors:
        the pyramid kernel's histogram intersection, eq. 5 and 7); ``x . y`` computed in
        float32 (the ``fisher`` kernel's numbers on its exported vectors).
    normalise : bool, default=False
        L2-normalise each vector as read (each caption's before a training item's mean).
    gamma : float or None, default=None
        RBF and polynomial; None: the median heuristic on the training vectors (RBF,
        :func:`~features.kernels._vector_functions.median_gamma`) or ``1 / dim``
        (polynomial, scikit-learn's default).
    degree : int, default=3
        Polynomial degree (a whole number >= 1).
    coef0 : float, default=1.0
        Polynomial constant (>= 0).
    folder : str or None, default=None
        The folder a relative ``path`` and ``ids_path`` are read from (None: the current
        folder). An experiment file sets it to its own folder
        (:class:`kcca._systems.spec.KernelSpec`); cache keys leave it out, as they hold the
        content of the files read.

    Attributes
    ----------
    vectors_ : ItemVectors
        The file's checked content (memory-mapped where the format allows).
    train_vectors_ : ndarray of shape (n_train, dim)
        The training items' vectors as the function sees them (float64).
    gamma_ : float or None
        The gamma used (given, or the default above; None for linear and cosine).

    Examples
    --------
    >>> import numpy as np, tempfile, pathlib
    >>> from features.kernels._vectors import VectorsKernel
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> np.savez(folder / "v.npz", ids=np.array(["a#0", "a#1", "b#0"]),
    ...          vectors=np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]]))
    >>> kernel = VectorsKernel(path=str(folder / "v.npz")).fit([("a#0", "a#1")])
    >>> kernel.gram(["b#0"])  # b#0 . mean(a#0, a#1)
    array([[2.]])
    """

    path: str | None = None
    ids_path: str | None = None
    function: str = "linear"
    normalise: bool = False
    gamma: float | None = None
    degree: int = 3
    coef0: float = 1.0
    folder: str | None = None

    item_type = "ids"
    execution_params = ("folder",)
    path_params = ("path", "ids_path")

    def input_files(self) -> dict[str, str]:
        """The files read, by role (``vectors``, and ``ids`` for ``.npy``): their content is
        part of every cache key of this kernel's blocks."""
        if self.path is None:
            return {}
        return input_files(*self._files(self.path))

    @classmethod
    def named_files(cls, params: Mapping[str, Any]) -> dict[str, str]:
        """``path`` and ``ids_path`` when given; for a ``.npy`` array without ``ids_path``,
        its default ids file too (``NAME.ids.txt``)."""
        out = super().named_files(params)
        if "ids_path" not in out and out.get("path", "").lower().endswith(".npy"):
            out["ids_path"] = str(default_ids_path(out["path"]))
        return out

    def _files(self, path: str) -> tuple[str, str | None]:
        """``path`` and ``ids_path``, each read from :attr:`folder` when relative."""
        if self.folder is None:
            return path, self.ids_path
        ids = None if self.ids_path is None else str(Path(self.folder) / self.ids_path)
        return str(Path(self.folder) / path), ids

    def fit(self, train_items: Sequence[Any]) -> "VectorsKernel":
        """Read the file, and the training items' vectors; set the gamma used."""
        check_function(self.function, self.gamma, self.degree, self.coef0)
        if self.path is None:
            raise DataError(
                "the vectors kernel needs the file of the items' vectors",
                fix='give it in the experiment file: params = {path = "vectors.npy"}',
            )
        self.vectors_: ItemVectors = read_item_vectors(*self._files(self.path))
        self.train_items_ = train_items
        self.train_vectors_ = self._matrix(train_items)
        self.gamma_ = self.gamma
        if self.gamma is None and self.function == "rbf":
            self.gamma_ = median_gamma(self.train_vectors_)
        elif self.gamma is None and self.function == "polynomial":
            self.gamma_ = 1.0 / max(self.vectors_.dim, 1)
        return self

    def gram(self, items_a: Sequence[Any], items_b: Sequence[Any] | None = None) -> np.ndarray:
        """``K[i, j]`` between ``items_a`` and ``items_b`` (None: the training items); the
        training items against themselves give the symmetric training Gram."""
        self._check_fitted()
        if items_b is None:
            items_b = self.train_items_
        b = self.train_vectors_ if items_b is self.train_items_ else self._matrix(items_b)
        if items_a is items_b:
            out = self._block(b, None)
        else:
            a = self.train_vectors_ if items_a is self.train_items_ else self._matrix(items_a)
            out = self._block(a, b)
        check_kernel_block(out, (len(items_a), len(items_b)), self.name)
        return out

    def _gram(self, items_a: Sequence[Any], items_b: Sequence[Any]) -> np.ndarray:
        return self.gram(items_a, items_b)

    def diag(self, items: Sequence[Any]) -> np.ndarray:
        """``k(x, x)`` for each item."""
        self._check_fitted()
        return vector_diag(
            self._matrix(items), self.function, self.gamma_, int(self.degree), self.coef0
        )

    def _block(self, a: np.ndarray, b: np.ndarray | None) -> np.ndarray:
        return vector_block(a, b, self.function, self.gamma_, int(self.degree), self.coef0)

    def _matrix(self, items: Sequence[Any]) -> np.ndarray:
        """The items' vectors as the function sees them (:func:`item_matrix`)."""
        return item_matrix(self.vectors_, items, self.normalise, self.function)


def item_matrix(
    vectors: ItemVectors, items: Sequence[Any], normalise: bool, function: str
) -> np.ndarray:
    """``items``' vectors as ``function`` sees them: a multi-id item's mean (of the
    normalised vectors when ``normalise``), then normalised for ``cosine``. Read
    :data:`ITEMS_AT_ONCE` items at a time, so the captions of every training image are
    never in memory at once. A saved model computes new items' vectors with it too
    (:mod:`kcca._model.vectors`), so they are the numbers of a run's test items."""
    ids, owners = _flatten(items)
    rows = vectors.rows(ids)  # every id has a row, or a named error
    starts = np.searchsorted(owners, np.arange(len(items)))
    ends = np.append(starts[1:], len(ids)).astype(np.int64)
    out = np.empty((len(items), vectors.dim))
    for first in range(0, len(items), ITEMS_AT_ONCE):
        last = min(first + ITEMS_AT_ONCE, len(items))
        low, high = starts[first], ends[last - 1]
        block = vectors.read(rows[low:high])
        if normalise:
            block = l2_normalize(block, copy=False)
        sums = np.add.reduceat(block, starts[first:last] - low, axis=0)
        out[first:last] = sums / (ends - starts)[first:last, None]
    return prepare(out, function)


def _flatten(items: Sequence[Any]) -> tuple[list[str], np.ndarray]:
    """Every id of ``items`` and the position of the item each belongs to; an item is an id
    or a non-empty sequence of ids, anything else a :class:`~kcca.errors.DataError`."""
    ids: list[str] = []
    owners: list[int] = []
    for position, item in enumerate(items):
        group = [item] if isinstance(item, str) else item
        if (
            isinstance(group, (str, bytes))
            or not isinstance(group, Sequence)
            or not group
            or not all(isinstance(i, str) for i in group)
        ):
            raise DataError(
                f"vectors kernel: item {position} is {type(item).__name__} "
                f"{str(item)[:60]!r}, not an id or a list of ids",
                fix="the vectors kernel takes image ids or caption ids, as a system passes "
                'them ([image_kernel] or [text_kernel] name = "vectors"); it cannot encode '
                "images or token lists itself: a saved model (kcca fit-model) of a vectors "
                "system ranks vectors files (kcca query --vectors, kcca annotate --vectors)",
            )
        ids.extend(group)
        owners.extend([position] * len(group))
    return ids, np.asarray(owners, dtype=np.int64)
