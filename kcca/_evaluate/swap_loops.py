"""The compiled per-row loops of the randomisation test (Table 2's significance marks;
:func:`kcca._evaluate.statistics.randomization_test`): one statistic per swap pattern, for
thousands of patterns at a time, without a (patterns x queries) array of floats.

numba, compiled on first use and cached beside this module's bytecode; imported only when a
statistic is sampled, so that importing the statistics imports no numba.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(nogil=True, cache=True)
def median_differences_of_codes(cx, cy, swap, values, counts_all):  # pragma: no cover
    """``median(A') - median(B')`` per row of ``swap``, where A' takes ``cy[j]`` where the row
    swaps query ``j`` and ``cx[j]`` elsewhere, and B' is the rest of the 2n values.

    ``cx``, ``cy``: each query's value codes (indices into the sorted distinct ``values``);
    ``counts_all``: how often each code occurs in both. Each row's histogram of A' is counted,
    and the two middle order statistics of A' and of B' are read off one walk over the
    cumulative counts: O(rows * (n + distinct values)).
    """
    m, n = swap.shape
    u = values.size
    k_lo, k_hi = (n - 1) // 2, n // 2  # 0-based middle order statistics
    out = np.empty(m)
    counts = np.empty(u, np.int64)
    for r in range(m):
        counts[:] = 0
        for j in range(n):
            if swap[r, j]:
                counts[cy[j]] += 1
            else:
                counts[cx[j]] += 1
        # the first value whose cumulative count exceeds k is order statistic k
        a_lo = a_hi = b_lo = b_hi = -1
        cum_a = cum_b = 0
        for c in range(u):
            cum_a += counts[c]
            cum_b += counts_all[c] - counts[c]
            if a_lo < 0 and cum_a > k_lo:
                a_lo = c
            if a_hi < 0 and cum_a > k_hi:
                a_hi = c
            if b_lo < 0 and cum_b > k_lo:
                b_lo = c
            if b_hi < 0 and cum_b > k_hi:
                b_hi = c
            if a_hi >= 0 and b_hi >= 0:
                break
        out[r] = (values[a_lo] + values[a_hi]) / 2.0 - (values[b_lo] + values[b_hi]) / 2.0
    return out


@numba.njit(nogil=True, cache=True)
def byte_sums(d):  # pragma: no cover
    """``table[j, b]``: the sum of ``d`` over the queries whose bits are set in byte value
    ``b`` at byte position ``j`` of a packed swap pattern (query ``8 j + t`` is bit ``7 - t``,
    as ``np.packbits`` packs them; queries past ``d.size`` add nothing)."""
    n_bytes = (d.size + 7) // 8
    table = np.zeros((n_bytes, 256))
    for j in range(n_bytes):
        for b in range(256):
            s = 0.0
            for t in range(8):
                q = 8 * j + t
                if q < d.size and (b >> (7 - t)) & 1:
                    s += d[q]
            table[j, b] = s
    return table


@numba.njit(nogil=True, cache=True)
def swapped_sums(table, swap_bytes):  # pragma: no cover
    """Per row of ``swap_bytes`` (swap patterns packed 8 queries to a byte): the sum of the
    differences over the queries the row swaps, one look-up per byte in :func:`byte_sums`'s
    table."""
    m, n_bytes = swap_bytes.shape
    out = np.empty(m)
    for r in range(m):
        s = 0.0
        for j in range(n_bytes):
            s += table[j, swap_bytes[r, j]]
        out[r] = s
    return out
