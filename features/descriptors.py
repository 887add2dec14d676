"""Dense local descriptors of an image (Sec. 3.3); the three feature types that produce them are
registered in :mod:`features.feature_types`.

Each feature type maps an RGB ``uint8`` image to a :class:`Descriptors` record: one row per
sample (every pixel for colour and texture; every grid point for dense SIFT) with its pixel
position, so that codebooks can quantise the rows into visual words and the spatial pyramid
can bin the words into cells.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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


def descriptor_config(
    kind: str, version: int, defaults: dict[str, Any], params: dict[str, Any]
) -> dict[str, Any]:
    """The full config of a descriptor extractor for cache keys: kind, version, parameters.

    ``params`` override ``defaults``; unknown names raise ``TypeError``.
    """
    unknown = set(params) - set(defaults)
    if unknown:
        raise TypeError(f"{kind}_descriptors has no parameter(s) {sorted(unknown)}")
    return {"kind": kind, "version": version, **defaults, **params}
