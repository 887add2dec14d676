"""A kernel block filled by chunks of rows in threads (the numba loops release the GIL)."""

from __future__ import annotations

from typing import Callable

import numpy as np
from joblib import Parallel, delayed
from tqdm.auto import tqdm


def row_chunks(n: int, n_chunks: int, lower: bool) -> list[tuple[int, int]]:
    """At most ``n_chunks`` non-empty row ranges ``(r0, r1)`` covering ``range(n)``, of about
    equal numbers of rows, or with ``lower`` of about equal numbers of lower-triangle entries."""
    if lower:
        edges = np.unique(np.round(n * np.sqrt(np.linspace(0, 1, n_chunks + 1))).astype(int))
    else:
        edges = np.unique(np.linspace(0, n, n_chunks + 1).round().astype(int))
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:]) if b > a]


def fill_by_row_chunks(
    out: np.ndarray,
    fill: Callable[[int, int], None],
    n_chunks: int,
    *,
    lower: bool,
    n_jobs: int | None,
    desc: str,
    progress: bool,
) -> np.ndarray:
    """Run ``fill(r0, r1)`` (it writes rows ``r0:r1`` of ``out``) over :func:`row_chunks` in
    ``n_jobs`` threads (``None`` or 0: all cores), with a tqdm bar over the chunks.

    With ``lower`` (``fill`` writes the lower triangle only) the block is mirrored: returns the
    symmetric block, else ``out``.
    """
    chunks = row_chunks(out.shape[0], n_chunks, lower)
    tasks = (delayed(fill)(r0, r1) for r0, r1 in chunks)
    with tqdm(total=len(chunks), desc=desc, disable=not progress, leave=False) as bar:
        for _ in Parallel(n_jobs=n_jobs or -1, prefer="threads", return_as="generator")(tasks):
            bar.update(1)
    if lower:
        out = np.tril(out) + np.tril(out, -1).T
    return out
