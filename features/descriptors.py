"""Dense local descriptors of an image, and the registry of the three feature types (Sec. 3.3).

Each feature type maps an RGB ``uint8`` image to a :class:`Descriptors` record: one row per
sample (every pixel for colour and texture; every grid point for dense SIFT) with its pixel
position, so that codebooks can quantise the rows into visual words and the spatial pyramid
can bin the words into cells.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np


@dataclass(frozen=True)
class Descriptors:
    """Local descriptors of one image.

    Attributes:
        values: (n, d) float32 descriptor rows.
        rows, cols: (n,) float32 pixel coordinates (y, x) of each row's centre.
        height, width: size of the image they came from (for the pyramid's cells).
    """

    values: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    height: int
    width: int

    def __post_init__(self) -> None:
        n = self.values.shape[0]
        if self.values.ndim != 2 or self.rows.shape != (n,) or self.cols.shape != (n,):
            raise ValueError(
                f"descriptor arrays disagree: values {self.values.shape}, rows "
                f"{self.rows.shape}, cols {self.cols.shape}"
            )


def descriptor_config(kind: str, version: int, defaults: dict[str, Any],
                      params: dict[str, Any]) -> dict[str, Any]:
    """The full config of a descriptor extractor for cache keys: kind, version, parameters.

    ``params`` override ``defaults``; unknown names raise ``TypeError``.
    """
    unknown = set(params) - set(defaults)
    if unknown:
        raise TypeError(f"{kind}_descriptors has no parameter(s) {sorted(unknown)}")
    return {"kind": kind, "version": version, **defaults, **params}


@dataclass(frozen=True)
class FeatureType:
    """A named descriptor extractor with the codebook size the paper uses for it."""

    name: str
    extract: Callable[[np.ndarray], Descriptors]
    vocabulary_size: int


def feature_types() -> dict[str, FeatureType]:
    """The paper's three feature types: 128 colour, 256 texture and 256 SIFT words."""
    from features.color import color_descriptors
    from features.sift import sift_descriptors
    from features.texture import texture_descriptors

    return {
        "color": FeatureType("color", color_descriptors, 128),
        "texture": FeatureType("texture", texture_descriptors, 256),
        "sift": FeatureType("sift", sift_descriptors, 256),
    }
