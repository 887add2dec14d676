"""The vectors behind an image kernel, for the ``vectors`` kernel (``kcca features --export``).

Two of the built-in image kernels are a function of one vector per image, so writing those
vectors to a file (:mod:`features._vectors_writer`) and naming the file in a ``vectors``
kernel gives the built-in kernel's numbers (:data:`MATCHING_FUNCTION`):

* ``pyramid`` and ``histogram`` (Section 3.3, eq. 5-8): the intersection of each image's
  weighted, concatenated histograms (:func:`features.kernels._image.weighted_matrix`; eq. 6's
  ``1/3`` and eq. 8's level weights are in the vector), function ``intersection``;
* ``fisher`` (beyond the paper): the dot product of unit-norm improved Fisher vectors
  (:mod:`features._fisher`), computed in float32 by the kernel, function ``linear-float32``
  (``linear`` computes it in float64 and differs by float32 rounding, about 1e-7).

Both are taken before the power ``p`` of eq. 6, as systems fit image kernels (the solver
applies ``p``). The Fisher-vector encoder is fitted on the corpus's training images as a
system fits it (:class:`~kcca._systems.blocks.ImagePixels`, the kernel's seeded sample), so
the vectors are the ones a system's ``fisher`` blocks are made of.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from features._image_features import ExtractionResult
from features.kernels._base import make_kernel
from kcca.data._corpus import Corpus
from kcca.errors import DataError

#: exportable image kernel -> the ``vectors`` kernel function that gives its numbers
MATCHING_FUNCTION = {
    "pyramid": "intersection",
    "histogram": "intersection",
    "fisher": "linear-float32",
}


@dataclass(frozen=True)
class ImageVectors:
    """``vectors[r]`` is image ``ids[r]``'s vector under ``kernel`` (with ``params``);
    ``function`` is the ``vectors`` kernel function that gives that kernel's numbers."""

    kernel: str
    params: Mapping[str, Any]
    ids: list[str]
    vectors: np.ndarray
    function: str


def image_kernel_vectors(
    corpus: Corpus,
    kernel: str,
    params: Mapping[str, Any],
    ids: Sequence[str],
    features: ExtractionResult | None = None,
    n_jobs: int = 1,
    progress: bool = False,
) -> ImageVectors:
    """The vectors of images ``ids`` under the image kernel ``kernel`` with ``params`` (as an
    experiment file's ``[image_kernel]`` gives them; module docstring).

    ``features`` holds the images' pyramid histograms (``pyramid``, ``histogram``); the
    ``fisher`` kernel reads the corpus's pixels, and is fitted on its training images.
    """
    built = build_exportable_kernel(kernel, params)
    if kernel == "fisher":
        vectors = _fisher_vectors(corpus, built, ids, n_jobs, progress)
    else:
        from features.kernels._image import weighted_matrix

        if features is None:
            raise ValueError(f"the {kernel} kernel's vectors need the images' features")
        levels = getattr(built, "levels", None)  # None: the histogram kernel's whole images
        vectors = weighted_matrix(features.items(ids), tuple(built.feature_types), levels)
    return ImageVectors(kernel, dict(params), list(ids), vectors, MATCHING_FUNCTION[kernel])


def build_exportable_kernel(kernel: str, params: Mapping[str, Any]) -> Any:
    """The kernel ``kernel`` with ``params`` and ``p = 1``; a
    :class:`~kcca.errors.DataError` for a kernel that is not exportable, a ``p`` (the power
    is no part of the vectors) or a parameter the kernel does not take."""
    if kernel not in MATCHING_FUNCTION:
        raise DataError(
            f"the {kernel!r} kernel cannot be exported as vectors",
            fix=f"export one of {', '.join(MATCHING_FUNCTION)}",
        )
    if "p" in params:
        raise DataError(
            f"the {kernel} kernel's vectors are taken before the power p, so p is not a "
            "parameter of the export",
            fix="leave p out; a system applies p to the vectors kernel's blocks ([grid] p)",
        )
    try:
        built = make_kernel(kernel, **params)
    except TypeError as exc:
        raise DataError(
            f"the {kernel} kernel does not take these parameters: {exc}",
            fix=f"give only parameters of the {kernel} kernel, as in an experiment file's "
            f"[image_kernel] params: {', '.join(sorted(make_kernel(kernel).get_params()))}",
        ) from None
    built.set_params(p=1)
    return built


def _fisher_vectors(
    corpus: Corpus, kernel: Any, ids: Sequence[str], n_jobs: int, progress: bool
) -> np.ndarray:
    """Fisher vectors of ``ids``: the kernel fitted on the training images as a system fits
    it; training images reuse the fit's vectors, the others are encoded."""
    from kcca._systems.blocks import ImagePixels

    kernel.set_params(n_jobs=n_jobs, progress=progress)
    train = list(corpus.split("train"))
    kernel.fit(ImagePixels(corpus, train))
    row = {image_id: r for r, image_id in enumerate(train)}
    others = [i for i in ids if i not in row]
    encoded = kernel.encode(ImagePixels(corpus, others))
    other_row = {image_id: r for r, image_id in enumerate(others)}
    out = np.empty((len(ids), kernel.train_vectors_.shape[1]), dtype=np.float32)
    for r, image_id in enumerate(ids):
        out[r] = (
            kernel.train_vectors_[row[image_id]]
            if image_id in row
            else encoded[other_row[image_id]]
        )
    return out
