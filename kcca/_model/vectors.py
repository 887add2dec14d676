"""The side of a saved model whose kernel is ``vectors``: new items given as vectors.

A system whose image or text kernel is ``vectors`` (:mod:`features.kernels._vectors`) ranks
new items given by their vectors, read from files in the formats that kernel reads
(:mod:`features._vectors_file`: ``.npy`` with an ids file, ``.npz``, Parquet) with the same
checks, and the model's dimension besides. What the model keeps depends on the kernel's
function:

* ``linear`` and ``cosine`` (on the image side only with p = 1): the kernel is the dot product
  of the items' prepared vectors (normalised for ``cosine``), so a new item's projection
  ``k(x, X) W = x (X^T W)``. The model keeps the primal directions ``X^T W`` (dimension x n
  for each kappa) in place of the dual ones (training items x n) and no training vector: its
  size grows with the vectors' dimension, not with the training set (:func:`fold`).
* ``rbf``, ``polynomial``, ``intersection``, ``linear-float32`` (and ``linear`` or ``cosine``
  under p != 1): the kernel row of a new item needs every training vector; the model keeps
  them as the function sees them (training items x dimension, float64), with the dual
  directions. ``linear-float32`` stays unfolded so that its rows keep the float32 numbers of
  the ``fisher`` kernel it stands for.

A new item's vector is prepared by the kernel's own code (:func:`~features.kernels._vectors.
item_matrix`), so the vectors of a test item give the numbers its run gave it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from features.kernels._vector_functions import vector_block
from features.kernels._vectors import item_matrix
from features._vectors_file import ItemVectors, VectorsFileError, read_item_vectors

#: the functions whose kernel is a dot product of the prepared vectors (folded)
FOLDED_FUNCTIONS = ("linear", "cosine")
#: the side of :class:`~kcca._systems.fitted.Projections` of each side of a system
SIDES = {"image": "x", "text": "y"}


@dataclass
class VectorsEncoder:
    """New items' vectors -> what the model's directions of one side take (module docstring).

    Attributes: ``side`` (``image`` or ``text``), the kernel's ``function``, ``normalise``,
    ``gamma`` (the fitted gamma, None for linear and cosine), ``degree``, ``coef0``; ``dim``
    the vectors' dimension; ``n_train`` the training items; ``train_vectors`` the training
    items' vectors as the function sees them (None when folded: the directions are primal);
    ``source`` the vectors file the model was fitted on (named in errors).
    """

    side: str
    function: str
    normalise: bool
    gamma: float | None
    degree: int
    coef0: float
    dim: int
    n_train: int
    train_vectors: np.ndarray | None
    source: str = ""

    @property
    def folded(self) -> bool:
        """Whether the side's directions are primal (``X^T W``): no training vector kept."""
        return self.train_vectors is None

    @property
    def rows(self) -> int:
        """The rows of this side's directions: the dimension when folded, else the
        training items."""
        return self.dim if self.folded else self.n_train

    def read(self, path: str | Path, ids_path: str | Path | None = None) -> ItemVectors:
        """Read and check a vectors file of new items (:func:`~features._vectors_file.
        read_item_vectors`), and its dimension against the model's."""
        vectors = read_item_vectors(path, ids_path)
        if vectors.dim != self.dim:
            raise VectorsFileError(
                f"{path}: vectors of dimension {vectors.dim}, but the model's {self.side} "
                f"kernel was fitted on vectors of dimension {self.dim} ({self.source})",
                fix=f"give {self.side} vectors computed as those of {Path(self.source).name} "
                f"(dimension {self.dim}), one row per item",
            )
        if not vectors.ids:
            raise VectorsFileError(
                f"{path}: the file holds no vector",
                fix=f"give a file with at least one {self.side} vector (one row per item)",
            )
        return vectors

    def block(self, vectors: ItemVectors, ids: Sequence[str] | None = None) -> np.ndarray:
        """The rows of ``ids`` (None: every row of the file) that the directions take: the
        prepared vectors (folded), else the kernel block against the training vectors."""
        items = list(vectors.ids if ids is None else ids)
        prepared = item_matrix(vectors, items, self.normalise, self.function)
        if self.folded:
            return prepared
        return vector_block(
            prepared, self.train_vectors, self.function, self.gamma, self.degree, self.coef0
        )


def vectors_encoder(side: str, kernel: Any, fold: bool) -> VectorsEncoder:
    """The encoder of a fitted :class:`~features.kernels._vectors.VectorsKernel` of ``side``;
    ``fold``: keep no training vector (the directions are folded, :func:`fold`)."""
    return VectorsEncoder(
        side=side,
        function=str(kernel.function),
        normalise=bool(kernel.normalise),
        gamma=None if kernel.gamma_ is None else float(kernel.gamma_),
        degree=int(kernel.degree),
        coef0=float(kernel.coef0),
        dim=int(kernel.vectors_.dim),
        n_train=len(kernel.train_items_),
        train_vectors=None if fold else np.ascontiguousarray(kernel.train_vectors_),
        source=str(kernel.vectors_.files["vectors"]),
    )


def can_fold(function: str, side: str, p: float) -> bool:
    """Whether a side's directions can be folded into primal ones: a dot-product function,
    and (image side) no power p of the kernel."""
    return function in FOLDED_FUNCTIONS and (side == "text" or p == 1)


def fold(projections: Any, side: str, train_vectors: np.ndarray) -> Any:
    """``projections`` with ``side``'s dual directions ``W`` (training items x n) replaced by
    the primal ones ``X^T W`` (dimension x n; ``X`` the prepared training vectors). Every
    other field is kept as the run chose it."""
    name = f"{SIDES[side]}_weights"
    weights = {
        k: np.ascontiguousarray(train_vectors.T @ w) for k, w in getattr(projections, name).items()
    }
    return dataclasses.replace(projections, **{name: weights})


def vectors_fix(side: str) -> str:
    """The fix of a query the model's ``side`` cannot encode: give it as vectors."""
    if side == "text":
        return (
            "this model's text kernel reads vectors: give the captions' vectors with "
            "kcca query --vectors FILE (.npz of ids and vectors, .npy with NAME.ids.txt, "
            ".parquet)"
        )
    return (
        "this model's image kernel reads vectors: give the images' vectors with "
        "kcca annotate --vectors FILE (.npz of ids and vectors, .npy with NAME.ids.txt, "
        ".parquet)"
    )
