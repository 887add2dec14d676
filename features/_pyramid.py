"""Spatial-pyramid word histograms of one image (Section 3.3.2, eq. 7; Lazebnik et al. 2009).

Level ``l`` cuts the image into a ``2^l x 2^l`` grid (``C_l = 4^l`` cells). The pyramid of
an image and feature type is one ``(n_cells, V)`` array whose rows are the whole image
(level 0), then the 4 cells of level 1, then the 16 cells of level 2, each level's cells in
row-major order (21 rows for ``L = 2``).

Every cell histogram is divided by the WHOLE image's number of samples, not the cell's
(docs/paper-notes.md#pyramid-histograms): ``H_ic(v)`` is the fraction of the image's pixels
(or descriptors) that fall in cell ``c`` and have word ``v``. Each level then sums to 1,
coarser levels dominate finer ones (``I^l >= I^(l+1)``, Section 3.3.2, before eq. 8) and
every kernel of an image with itself is 1.
"""

from __future__ import annotations

import numpy as np


def n_cells(levels: int) -> int:
    """Cells of a pyramid with levels ``0..levels``: ``sum_l 4^l`` (21 for ``levels=2``)."""
    if levels < 0:
        raise ValueError(f"pyramid levels must be >= 0, got {levels}")
    return sum(4**l for l in range(levels + 1))


def level_slices(levels: int) -> list[slice]:
    """Row ranges of each level inside a pyramid array: ``[0:1], [1:5], [5:21], ...``."""
    out, start = [], 0
    for l in range(levels + 1):
        out.append(slice(start, start + 4**l))
        start += 4**l
    return out


def level_weights(levels: int) -> np.ndarray:
    """Eq. 8's weight of each level: ``1/2^L`` for ``l = 0``, ``1/2^(L-l+1)`` for ``l >= 1``.

    For ``L = 2``: ``[1/4, 1/4, 1/2]``; the weights sum to 1.
    """
    L = levels
    if L < 0:
        raise ValueError(f"pyramid levels must be >= 0, got {levels}")
    w = [1.0 / 2**L] + [1.0 / 2 ** (L - l + 1) for l in range(1, L + 1)]
    return np.asarray(w, dtype=np.float64)


def cell_weights(levels: int) -> np.ndarray:
    """Eq. 8's weight of every pyramid row (each cell gets its level's weight), shape (n_cells,)."""
    w = level_weights(levels)
    return np.concatenate([np.full(4**l, w[l]) for l in range(levels + 1)])


def pyramid_histogram(
    words: np.ndarray,
    rows: np.ndarray,
    cols: np.ndarray,
    height: int,
    width: int,
    n_words: int,
    levels: int = 2,
) -> np.ndarray:
    """Word histograms of the whole image and every pyramid cell, shape ``(n_cells, n_words)``.

    Args:
        words: (n,) integer word id of each sample, in ``[0, n_words)``.
        rows, cols: (n,) pixel coordinates of each sample (may be fractional centres).
        height, width: image size; a sample at row ``r`` is in grid row
            ``floor(r * 2^l / height)`` of level ``l`` (clipped to the grid).
        n_words: vocabulary size ``V``.
        levels: the finest level ``L``.

    Returns float32 fractions of the image's ``n`` samples (each level sums to 1).
    Raises ``ValueError`` when there are no samples (the histogram would be 0/0).
    """
    words = np.asarray(words)
    rows = np.asarray(rows, dtype=np.float64)
    cols = np.asarray(cols, dtype=np.float64)
    n = words.shape[0]
    if words.ndim != 1 or rows.shape != (n,) or cols.shape != (n,):
        raise ValueError(
            f"words {words.shape}, rows {rows.shape} and cols {cols.shape} must be equal-length 1-D"
        )
    if n == 0:
        raise ValueError("no samples: cannot normalise a pyramid histogram of an empty image")
    if height <= 0 or width <= 0:
        raise ValueError(f"image size must be positive, got {height}x{width}")
    if not np.issubdtype(words.dtype, np.integer):
        raise ValueError(f"word ids must be integers, got dtype {words.dtype}")
    if words.min() < 0 or words.max() >= n_words:
        raise ValueError(
            f"word ids must lie in [0, {n_words}); got range [{words.min()}, {words.max()}]"
        )
    total = n_cells(levels)
    flat = np.empty(n * (levels + 1), dtype=np.int64)
    base = 0
    for l in range(levels + 1):
        g = 2**l
        r = np.clip(np.floor(rows * g / height), 0, g - 1).astype(np.int64)
        c = np.clip(np.floor(cols * g / width), 0, g - 1).astype(np.int64)
        cell = base + r * g + c
        flat[l * n : (l + 1) * n] = cell * n_words + words
        base += g * g
    counts = np.bincount(flat, minlength=total * n_words).reshape(total, n_words)
    return (counts / np.float64(n)).astype(np.float32)
