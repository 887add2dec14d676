"""Checked arrays of indices: one integer per row, each inside ``0..bound - 1``."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from kcca.errors import DataError


def checked_index_array(
    values: Sequence[int] | np.ndarray,
    count: int,
    bound: int,
    *,
    name: str,
    meaning: str,
    row: str,
    index: str,
) -> np.ndarray:
    """``values`` as ``count`` int64 indices in ``0..bound - 1``, or a :class:`DataError`.

    ``name`` and ``meaning`` word the shape error (``"{name} must be {count} {meaning}"``);
    ``row`` and ``index`` word the range error (``"{row} 3: {index} 7 is outside 0..4"``).
    """
    g = np.asarray(values)
    if g.shape != (count,) or not np.issubdtype(g.dtype, np.integer):
        raise DataError(f"{name} must be {count} {meaning}, got shape {g.shape} dtype {g.dtype}")
    bad = np.flatnonzero((g < 0) | (g >= bound))
    if bad.size:
        r = int(bad[0])
        raise DataError(f"{row} {r}: {index} {int(g[r])} is outside 0..{bound - 1}")
    return g.astype(np.int64, copy=False)
