"""Slow, obviously correct image-side oracles for the tests of :mod:`features`.

* :func:`intersection_reference`: the histogram intersection of eq. 5 and 7 as a plain NumPy
  broadcast, the peer of :func:`features.kernels._intersection.intersection_block`'s paths;
* :func:`nearest_centre_reference`: scikit-learn's nearest cluster centre, the peer of
  :func:`features._codebook.nearest_centre` (visual-word assignment, Section 3.3).
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics import pairwise_distances_argmin


def intersection_reference(a: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
    """Slow, obviously correct NumPy broadcast: ``min(a[:, None, :], b[None, :, :]).sum(-1)``."""
    a = np.asarray(a, dtype=np.float64)
    b = a if b is None else np.asarray(b, dtype=np.float64)
    return np.minimum(a[:, None, :], b[None, :, :]).sum(axis=2)


def nearest_centre_reference(values: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """scikit-learn's ``pairwise_distances_argmin`` (a peer for tests)."""
    return pairwise_distances_argmin(
        np.asarray(values, np.float64), np.asarray(centres, np.float64)
    ).astype(np.int32)
