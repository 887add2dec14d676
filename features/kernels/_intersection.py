"""Fast histogram-intersection blocks: ``K[i, j] = sum_k min(A[i, k], B[j, k])`` (eq. 5, 7).

Every image kernel of Section 3.3 reduces to this one operation: because
``min(w a, w b) = w min(a, b)`` for ``w > 0``, the pyramid kernel of eq. 8 averaged over the
three feature types (eq. 6, before the power ``p``) is a single intersection over a weighted,
concatenated vector (see :mod:`features.kernels._image`).

Two implementations give the same numbers (to float rounding; the tests also compare them
with a plain NumPy broadcast):

* :func:`intersection_numba`: the CPU path. A numba-compiled kernel on tiles of rows, four
  output entries at a time (register blocking), float32 ``min`` accumulated in float32 over
  short runs of columns and in float64 across runs. Tiles run in parallel threads through
  joblib (the compiled code releases the GIL), so memory stays bounded by the output.
* :func:`intersection_xp`: the array-API path (``xp.minimum`` on broadcast tiles, summed in
  float64), which runs on CuPy when installed and is tested with ``array_api_strict``.

:func:`intersection_block` picks the path from ``backend`` (``"numpy"``, ``"cupy"``, ``"auto"``,
``"array_api_strict"``; see :func:`kcca._backend.get_xp`).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from joblib import Parallel, delayed
from tqdm.auto import tqdm

from kcca._backend import get_xp, to_numpy, to_real_numpy

#: columns summed in float32 before the running float64 sum (bounds rounding error; a run of
#: a tile's rows stays in cache)
_RUN = 1024


@numba.njit(nogil=True, fastmath=True, cache=True)
def _block(a: np.ndarray, b: np.ndarray, out: np.ndarray, sym: bool, offset: int, run: int) -> None:
    """``out[i, j] = sum_k min(a[i, k], b[j, k])``; float32 inputs, float64 output.

    The columns are processed in runs of ``run`` (outer loop); inside a run, two rows of ``a``
    meet two rows of ``b`` at once (four float32 sums, vectorised by LLVM); runs are added in
    float64. ``sym``: the tile lies on the diagonal of a symmetric Gram, ``a``'s row ``i``
    being row ``offset + i`` relative to ``b``'s first row; at least every entry with
    ``j <= offset + i`` is computed, some above the diagonal may be too (the caller mirrors
    the lower triangle over them).
    """
    na, d = a.shape
    nb = b.shape[0]
    for i in range(na):
        for j in range(nb):
            out[i, j] = 0.0
    for k0 in range(0, d, run):
        k1 = min(d, k0 + run)
        n = k1 - k0
        for i in range(0, na, 2):
            i1 = min(i + 1, na - 1)  # odd last row: computed twice, written once
            a0 = a[i, k0:k1]
            a1 = a[i1, k0:k1]
            jmax = nb
            if sym:
                jmax = max(0, min(nb, offset + i1 + 1))
            for j in range(0, jmax, 2):
                j1 = min(j + 1, jmax - 1)
                b0 = b[j, k0:k1]
                b1 = b[j1, k0:k1]
                s00 = np.float32(0.0)
                s01 = np.float32(0.0)
                s10 = np.float32(0.0)
                s11 = np.float32(0.0)
                for k in range(n):
                    x0 = a0[k]
                    x1 = a1[k]
                    y0 = b0[k]
                    y1 = b1[k]
                    s00 += min(x0, y0)
                    s01 += min(x0, y1)
                    s10 += min(x1, y0)
                    s11 += min(x1, y1)
                out[i, j] += s00
                if j1 != j:
                    out[i, j1] += s01
                if i1 != i:
                    out[i1, j] += s10
                    if j1 != j:
                        out[i1, j1] += s11


def _as_histograms(x: Any, name: str) -> np.ndarray:
    arr = np.ascontiguousarray(np.asarray(to_real_numpy(x, name), dtype=np.float32))
    if arr.ndim != 2:
        one_item = "; Reshape your data with .reshape(1, -1) if it is one item's histogram"
        raise ValueError(
            f"{name} must be a 2-D (items, bins) array, got shape {arr.shape}"
            f"{one_item if arr.ndim == 1 else ''}"
        )
    if arr.size and not np.isfinite(arr).all():
        raise ValueError(
            f"{name} contains non-finite values (NaN or inf): histograms must be finite"
        )
    if arr.size and arr.min() < 0:
        raise ValueError(
            f"{name} has negative entries: Negative values in data are refused, intersection "
            "needs histograms >= 0"
        )
    return arr


def _check_pair(a: np.ndarray, b: np.ndarray) -> None:
    if a.shape[1] != b.shape[1]:
        raise ValueError(
            f"histogram widths differ: {a.shape[1]} vs {b.shape[1]} bins (were the items built "
            "with the same codebooks and pyramid levels?)"
        )


def _tiles(n: int, size: int) -> list[tuple[int, int]]:
    return [(s, min(n, s + size)) for s in range(0, n, size)]


def intersection_numba(
    a: np.ndarray,
    b: np.ndarray | None = None,
    *,
    tile_rows: int = 128,
    tile_cols: int = 256,
    n_jobs: int = 1,
    progress: bool = False,
) -> np.ndarray:
    """CPU histogram intersection of every row of ``a`` with every row of ``b`` (float64).

    ``b=None`` computes the symmetric Gram of ``a`` (each pair once). Work is split into
    ``tile_rows x tile_cols`` tiles run on ``n_jobs`` threads; results do not depend on the
    tiling (each entry is summed in the same order).
    """
    a = _as_histograms(a, "a")
    symmetric = b is None
    b = a if symmetric else _as_histograms(b, "b")
    _check_pair(a, b)
    na, nb = a.shape[0], b.shape[0]
    out = np.zeros((na, nb), dtype=np.float64)
    if na == 0 or nb == 0:
        return out
    if a.shape[1] == 0:
        return out
    tasks = []
    for r0, r1 in _tiles(na, max(1, int(tile_rows))):
        for c0, c1 in _tiles(nb, max(1, int(tile_cols))):
            if symmetric and c0 > r1 - 1:
                continue  # strictly above the diagonal: mirrored later
            tasks.append((r0, r1, c0, c1))

    def run(r0: int, r1: int, c0: int, c1: int) -> None:
        straddles = symmetric and c1 - 1 > r0  # some entries above the diagonal
        _block(a[r0:r1], b[c0:c1], out[r0:r1, c0:c1], straddles, r0 - c0, _RUN)

    bar = tqdm(total=len(tasks), desc="intersection", unit="tile", disable=not progress)
    try:
        if n_jobs == 1:
            for t in tasks:
                run(*t)
                bar.update()
        else:
            gen = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator_unordered")(
                delayed(run)(*t) for t in tasks
            )
            for _ in gen:
                bar.update()
    finally:
        bar.close()
    if symmetric:
        _mirror_lower(out, max(1, int(tile_rows)))
    return out


def _mirror_lower(out: np.ndarray, step: int) -> None:
    """Copy the lower triangle onto the upper one in place, a band of rows at a time."""
    n = out.shape[0]
    for r0, r1 in _tiles(n, step):
        diag = out[r0:r1, r0:r1]
        diag[...] = np.tril(diag) + np.tril(diag, -1).T
        out[r0:r1, r1:] = out[r1:, r0:r1].T


def intersection_xp(
    a: Any,
    b: Any | None = None,
    *,
    xp: Any = None,
    tile_bytes: int = 64 * 2**20,
    progress: bool = False,
) -> Any:
    """Array-API histogram intersection (``xp.minimum`` on broadcast tiles, summed in float64).

    Runs on any array-API namespace (NumPy, CuPy, ``array_api_strict``); ``a`` and ``b`` are
    arrays of that namespace (``xp`` defaults to ``a``'s). Temporary memory per tile is at
    most about ``tile_bytes``. Returns an array of the same namespace.
    """
    if xp is None:
        from array_api_compat import array_namespace

        xp = array_namespace(a)
    symmetric = b is None
    if symmetric:
        b = a
    na, d = a.shape
    assert b is not None  # ``a`` itself when symmetric
    nb, d2 = b.shape
    if d != d2:
        raise ValueError(f"histogram widths differ: {d} vs {d2} bins")
    out = xp.zeros((na, nb), dtype=xp.float64)
    if na == 0 or nb == 0 or d == 0:
        return out
    # tile sizes: rows x cols x run <= tile_bytes / 4
    budget = max(1, tile_bytes // 4)
    run = min(d, 2048)
    side = max(1, int((budget / run) ** 0.5))
    tr, tc = min(na, side), min(nb, side)
    tiles = [
        (r0, r1, c0, c1)
        for r0, r1 in _tiles(na, tr)
        for c0, c1 in _tiles(nb, tc)
        if not (symmetric and c0 >= r1)
    ]
    for r0, r1, c0, c1 in tqdm(tiles, desc="intersection", unit="tile", disable=not progress):
        acc = xp.zeros((r1 - r0, c1 - c0), dtype=xp.float64)
        for k0 in range(0, d, run):
            k1 = min(d, k0 + run)
            m = xp.minimum(
                xp.expand_dims(a[r0:r1, k0:k1], axis=1), xp.expand_dims(b[c0:c1, k0:k1], axis=0)
            )
            acc = acc + xp.sum(m, axis=2, dtype=xp.float64)
        out[r0:r1, c0:c1] = acc
    if symmetric:
        lower = xp.tril(out)
        out = lower + xp.matrix_transpose(xp.tril(out, k=-1))
    return out


def intersection_block(
    a: Any,
    b: Any | None = None,
    *,
    backend: str | None = "numpy",
    n_jobs: int = 1,
    tile_rows: int = 128,
    tile_cols: int = 256,
    tile_bytes: int = 256 * 2**20,
    progress: bool = False,
) -> np.ndarray:
    """Histogram-intersection block as a NumPy float64 array, on the chosen backend.

    ``backend="numpy"`` uses the numba CPU path (threads = ``n_jobs``); ``"cupy"`` (or
    ``"auto"`` with a GPU) and ``"array_api_strict"`` use the array-API path. ``b=None``:
    symmetric Gram of ``a``.
    """
    xp = get_xp(backend)
    if xp.__name__.endswith("numpy"):
        return intersection_numba(
            a, b, tile_rows=tile_rows, tile_cols=tile_cols, n_jobs=n_jobs, progress=progress
        )
    a_np = _as_histograms(to_numpy(a) if not isinstance(a, np.ndarray) else a, "a")
    b_np = (
        None
        if b is None
        else _as_histograms(to_numpy(b) if not isinstance(b, np.ndarray) else b, "b")
    )
    if b_np is not None:
        _check_pair(a_np, b_np)
    a_x = xp.asarray(a_np)
    b_x = None if b_np is None else xp.asarray(b_np)
    out = intersection_xp(a_x, b_x, xp=xp, tile_bytes=tile_bytes, progress=progress)
    return np.asarray(to_numpy(out), dtype=np.float64)
