"""Dense local descriptors of an image (Sec. 3.3); the three feature types that produce them are
registered in :mod:`features._feature_types`.

Each feature type maps an RGB ``uint8`` image to a :class:`Descriptors` record: one row per
sample (every pixel for colour and texture; every grid point for dense SIFT) with its pixel
position, so that codebooks can quantise the rows into visual words and the spatial pyramid
can bin the words into cells.
"""

from __future__ import annotations

import inspect
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


def config_function(
    kind: str, version: int, extractor: Callable[..., Descriptors]
) -> Callable[..., dict[str, Any]]:
    """The ``config(**params)`` of the module that defines ``extractor``
    (``<kind>_descriptors(image, ...)``): its full config for cache keys (kind, version,
    parameters), with the defaults read from the extractor's signature; keyword arguments
    override them (unknown names raise ``TypeError``)."""
    defaults = {
        name: p.default
        for name, p in inspect.signature(extractor).parameters.items()
        if name != "image"
    }

    def config(**params: Any) -> dict[str, Any]:
        return descriptor_config(kind, version, defaults, params)

    config.__doc__ = (
        f"The full config of :func:`{kind}_descriptors` for cache keys: kind, version, "
        "parameters. ``config()`` gives the defaults; keyword arguments override them."
    )
    return config
