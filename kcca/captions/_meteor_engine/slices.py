"""A compiled kernel over slices of its input, in threads (the kernels release the GIL)."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

#: most threads :func:`in_threads` uses
MAX_THREADS = 8


def thread_count(n: int, per_thread: int) -> int:
    """One thread per available CPU (at most :data:`MAX_THREADS`), each with at least
    ``per_thread`` of the ``n`` units of work."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_THREADS, n // per_thread))


def in_threads(
    run: Callable[[int, int], tuple[np.ndarray, ...]], n: int, per_thread: int
) -> tuple[np.ndarray, ...]:
    """``run(lo, hi)`` over consecutive slices of ``range(n)`` (four per thread, for balance),
    its arrays concatenated in slice order: the same arrays as ``run(0, n)`` when every unit
    of work is independent of the others."""
    threads = thread_count(n, per_thread)
    if threads == 1:
        return run(0, n)
    cuts = np.linspace(0, n, 4 * threads + 1).astype(np.int64).tolist()
    with ThreadPoolExecutor(threads) as pool:
        parts = list(pool.map(run, cuts[:-1], cuts[1:]))
    return tuple(np.concatenate(arrays) for arrays in zip(*parts))
