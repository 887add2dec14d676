"""Significance and agreement statistics used by the paper (Sections 4.2-4.3, Appendix A).

* :func:`mcnemar`: McNemar's test for paired binary outcomes (Tables 1, 3, 4; Dietterich
  1998). Exact two-sided binomial test on the discordant pairs when they are few
  (``b + c < exact_below``, default 25), else the continuity-corrected chi-squared test; the
  result says which was used. Always two-sided.
* :func:`randomization_test`: Fisher's paired randomisation test (Table 2, median rank,
  R-precision; Smucker et al. 2007). Each sample swaps the two systems' scores on a random
  subset of queries; the statistic is the difference of means (or of medians, for median
  rank); two-sided p = (#samples with |stat| >= |observed| + 1) / (samples + 1). 100,000
  samples by default, seeded, vectorised in chunks; with few queries (2^n <= samples) all
  2^n swap patterns are enumerated and p is exact.
* :func:`cohen_kappa`: Cohen's (1960) kappa between two labelings (binarised scores;
  scikit-learn's).
* :func:`krippendorff_alpha`: Krippendorff's alpha for any number of coders, missing values
  allowed; nominal, ordinal or interval distance (the paper reports 0.81 for the experts).
* :func:`spearman_rho`, :func:`kendall_tau_b`: rank correlations of system scores (Table 7;
  scipy's ranks and tau-b).

The ones written here (McNemar's rule, the randomisation test, alpha, the Pearson step of
rho) are checked against statsmodels, ``scipy.stats.permutation_test``, the ``krippendorff``
package and ``scipy.stats.spearmanr`` in tests/kcca/_evaluate/test_eval_statistics_parity.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
from scipy import stats as _st

from kcca.data._errors import DataError


# ----------------------------------------------------------------------------- McNemar
@dataclass(frozen=True)
class McNemarResult:
    b: int  # A succeeds, B fails
    c: int  # B succeeds, A fails
    statistic: float  # chi-squared value, or min(b, c) for the exact test
    p_value: float
    method: str  # "exact binomial" or "chi-squared (continuity corrected)"
    two_sided: bool = True


def _paired_bool(a, b) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(a), np.asarray(b)
    if x.shape != y.shape or x.ndim != 1:
        raise DataError(
            f"paired outcomes must be 1-d arrays of one length, got {x.shape} and {y.shape}"
        )
    for name, v in (("a", x), ("b", y)):
        if v.dtype != bool and not np.isin(v, (0, 1)).all():
            raise DataError(f"outcome array {name} must be boolean / 0-1 (per-query hits)")
    return x.astype(bool), y.astype(bool)


def mcnemar(
    a: Sequence[bool] | np.ndarray,
    b: Sequence[bool] | np.ndarray,
    method: str = "auto",
    exact_below: int = 25,
) -> McNemarResult:
    """Two-sided McNemar test of paired per-query successes of systems A and B.

    ``method``: ``"exact"`` (binomial, p = min(1, 2 P[X <= min(b, c)]), X ~ Bin(b + c, 1/2)),
    ``"chi2"`` ((|b - c| - 1)^2 / (b + c) against chi-squared with 1 dof), or ``"auto"``:
    exact when ``b + c < exact_below``.

    ``statsmodels.stats.contingency_tables.mcnemar`` gives the same numbers (``exact=True``;
    ``exact=False, correction=True``) except where the corrected ``|b - c| - 1`` would go
    below zero: for ``b = c`` the statistic here is 0 (p = 1), not statsmodels' 1 / (b + c),
    and with no discordant pair p = 1, not its 1 / 0 (p = 0). It has no ``"auto"``.
    """
    x, y = _paired_bool(a, b)
    nb = int((x & ~y).sum())
    nc = int((~x & y).sum())
    n = nb + nc
    if method == "auto":
        method = "exact" if n < exact_below else "chi2"
    if method == "exact":
        p = 1.0 if n == 0 else min(1.0, 2.0 * float(_st.binom.cdf(min(nb, nc), n, 0.5)))
        return McNemarResult(nb, nc, float(min(nb, nc)), p, "exact binomial")
    if method == "chi2":
        if n == 0:
            return McNemarResult(nb, nc, 0.0, 1.0, "chi-squared (continuity corrected)")
        stat = (abs(nb - nc) - 1.0) ** 2 / n if abs(nb - nc) >= 1 else 0.0
        return McNemarResult(
            nb, nc, stat, float(_st.chi2.sf(stat, 1)), "chi-squared (continuity corrected)"
        )
    raise DataError(f"unknown McNemar method {method!r}: use 'auto', 'exact' or 'chi2'")


# ------------------------------------------------------------------ randomisation test
@dataclass(frozen=True)
class RandomizationResult:
    observed: float  # statistic(A) - statistic(B)
    p_value: float
    n_samples: int  # samples drawn, or 2^n when exact
    exact: bool
    statistic: str  # "mean" or "median"


def _paired_float(a, b, nan_policy: str) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise DataError(
            f"paired scores must be 1-d arrays of one length, got {x.shape} and {y.shape}"
        )
    bad = np.isnan(x) | np.isnan(y)
    if bad.any():
        if nan_policy == "omit":
            x, y = x[~bad], y[~bad]
        else:
            raise DataError(
                f"query {int(np.flatnonzero(bad)[0])}: NaN score (unjudged?); pass "
                "nan_policy='omit' to test only queries scored for both systems"
            )
    if x.size == 0:
        raise DataError("no paired scores to test")
    return x, y


def _swap_statistic(
    x: np.ndarray, y: np.ndarray, statistic: str
) -> Callable[[np.ndarray], np.ndarray]:
    """The statistic of A' - B' for each row of a block of swap patterns, as a function of
    the block: patterns packed 8 queries to a byte as ``np.packbits`` packs them (a set bit:
    exchange the query's scores). What depends on the scores alone is computed here, once
    per test, not once per block; the per-row loops are compiled
    (:mod:`kcca._evaluate.swap_loops`).

    * mean: ``mean(where(swap, -d, d)) = (sum(d) - 2 * sum(d over the swapped queries)) / n``
      with ``d = x - y``, the swapped sums read from a table of every byte value's partial
      sum per byte position;
    * median: ``median(where(swap, y, x)) - median(where(swap, x, y))`` by per-row histograms
      over value codes instead of a partition per row: values become their index among the
      sorted distinct values of x and y, each row's histogram of A' (B' is the rest of the
      2n values) is counted, and the two middle order statistics of both are read off one
      walk over the cumulative counts. O(rows * (n + distinct values)).
    """
    from kcca._evaluate import swap_loops  # numba: on demand

    n = x.size
    if statistic == "mean":
        d = x - y
        total = d.sum()
        table = swap_loops.byte_sums(d)
        return lambda swap_bytes: (total - 2.0 * swap_loops.swapped_sums(table, swap_bytes)) / n
    values, codes = np.unique(np.concatenate([x, y]), return_inverse=True)
    codes = codes.astype(np.int64, copy=False)
    cx, cy = codes[:n], codes[n:]
    values = values.astype(np.float64, copy=False)
    counts_all = np.bincount(codes, minlength=values.size)

    def medians(swap_bytes: np.ndarray) -> np.ndarray:
        swap = np.unpackbits(swap_bytes, axis=1, count=n).view(bool)  # 0s and 1s: a view
        return swap_loops.median_differences_of_codes(cx, cy, swap, values, counts_all)

    return medians


def randomization_test(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    statistic: str = "mean",
    n_samples: int = 100_000,
    seed: int = 0,
    nan_policy: str = "raise",
    chunk: int = 4096,
) -> RandomizationResult:
    """Fisher's paired randomisation test of per-query scores ``a`` vs ``b`` (two-sided).

    ``scipy.stats.permutation_test`` with ``permutation_type="samples"`` and the difference of
    means (medians) tests the same; with every swap pattern enumerated its p-value is this one.
    This one is vectorised for the paired sign-swap case and much faster.
    """
    if statistic not in ("mean", "median"):
        raise DataError(f"unknown statistic {statistic!r}: use 'mean' or 'median'")
    if n_samples < 1:
        raise DataError(f"n_samples must be >= 1, got {n_samples}")
    x, y = _paired_float(a, b, nan_policy)
    n = x.size
    agg = np.mean if statistic == "mean" else np.median
    observed = float(agg(x) - agg(y))
    tol = 1e-12 * max(1.0, abs(observed))
    stat_of_swaps = _swap_statistic(x, y, statistic)
    if n < 63 and 2**n <= n_samples:  # enumerate every swap pattern: exact
        total = 2**n
        hits = 0
        for start in range(0, total, chunk):
            codes = np.arange(start, min(start + chunk, total), dtype=np.int64)
            swap = np.packbits(((codes[:, None] >> np.arange(n)) & 1).astype(bool), axis=1)
            hits += int((np.abs(stat_of_swaps(swap)) >= abs(observed) - tol).sum())
        return RandomizationResult(observed, hits / total, total, True, statistic)
    rng = np.random.default_rng(seed)
    hits = 0
    done = 0
    while done < n_samples:
        m = min(chunk, n_samples - done)
        swap = rng.integers(0, 256, size=(m, (n + 7) // 8), dtype=np.uint8)  # 8 per byte
        hits += int((np.abs(stat_of_swaps(swap)) >= abs(observed) - tol).sum())
        done += m
    return RandomizationResult(observed, (hits + 1) / (n_samples + 1), n_samples, False, statistic)


# ------------------------------------------------------------------------------ kappa
def cohen_kappa(a: Sequence | np.ndarray, b: Sequence | np.ndarray) -> float:
    """Cohen's kappa of two labelings of the same items: (p_o - p_e) / (1 - p_e).

    ``sklearn.metrics.cohen_kappa_score`` of the labels' codes (any labels: booleans, numbers,
    strings), except that it returns 1.0 when both labelings are constant and identical
    (p_e = 1, where scikit-learn gives NaN); NaN never.
    """
    from sklearn.metrics import cohen_kappa_score  # scikit-learn's metrics: 0.6 s to import

    x, y = np.asarray(a), np.asarray(b)
    if x.shape != y.shape or x.ndim != 1 or x.size == 0:
        raise DataError(
            f"kappa needs two non-empty 1-d labelings of one length, got {x.shape} and {y.shape}"
        )
    labels, codes = np.unique(np.concatenate([x, y]), return_inverse=True)
    if labels.size == 1:  # both constant and identical: p_o = p_e = 1
        return 1.0
    return float(cohen_kappa_score(codes[: x.size], codes[x.size :]))


# ---------------------------------------------------------------- Krippendorff's alpha
def krippendorff_alpha(data: np.ndarray, level: str = "interval") -> float:
    """Krippendorff's alpha; ``data`` is (n_coders, n_units), NaN for a missing value.

    Coincidence-matrix form (Krippendorff 2004/2011): units with fewer than two values are
    not pairable and are ignored. ``level``: ``nominal``, ``ordinal`` or ``interval``.
    Equals ``krippendorff.alpha`` (PyPI ``krippendorff``) except when the pairable values are
    all one value: 1.0 here, where that package gives NaN or refuses the data.
    """
    d = np.asarray(data, dtype=float)
    if d.ndim != 2:
        raise DataError(f"reliability data must be (coders, units), got shape {d.shape}")
    values = np.unique(d[~np.isnan(d)])
    if values.size == 0:
        raise DataError("reliability data has no values")
    counts = np.stack([(d == v).sum(axis=0) for v in values], axis=1).astype(float)  # units x V
    m = counts.sum(axis=1)
    keep = m >= 2
    counts, m = counts[keep], m[keep]
    if counts.shape[0] == 0:
        raise DataError("no unit has two or more values: alpha is undefined")
    weighted = counts / (m - 1)[:, None]
    o = weighted.T @ counts - np.diag(weighted.sum(axis=0))  # coincidences
    n_c = o.sum(axis=1)
    n = n_c.sum()
    if level == "nominal":
        delta = 1.0 - np.eye(values.size)
    elif level == "interval":
        delta = (values[:, None] - values[None, :]) ** 2
    elif level == "ordinal":
        cum = np.cumsum(n_c)
        # sum_{g=c..k} n_g - (n_c + n_k) / 2, for c <= k
        lo = np.minimum.outer(np.arange(values.size), np.arange(values.size))
        hi = np.maximum.outer(np.arange(values.size), np.arange(values.size))
        between = cum[hi] - np.where(lo > 0, cum[lo - 1], 0.0)
        delta = (between - (n_c[:, None] + n_c[None, :]) / 2.0) ** 2
    else:
        raise DataError(f"unknown level {level!r}: use nominal, ordinal or interval")
    d_o = float((o * delta).sum())
    d_e = float((np.outer(n_c, n_c) * delta).sum()) / (n - 1.0)
    if d_e == 0:
        return 1.0 if d_o == 0 else float("nan")
    return 1.0 - d_o / d_e


# -------------------------------------------------------------- rank correlations
def _pair(a, b) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or x.size < 2:
        raise DataError(
            f"rank correlation needs two 1-d arrays of one length >= 2, got {x.shape} and {y.shape}"
        )
    if np.isnan(x).any() or np.isnan(y).any():
        raise DataError("rank correlation: NaN in the system scores")
    return x, y


def spearman_rho(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rho: Pearson correlation of average ranks (ties share their mean rank).

    Ranks by ``scipy.stats.rankdata``; NaN when one side is constant. The Pearson step is
    written out rather than ``scipy.stats.spearmanr``: the two agree to an ulp, but spearmanr
    rounds some exact correlations down (0.8 to 0.7999999999999999 for some orderings of 4 or
    5 systems), and :mod:`kcca._paper.fidelity` compares rho with 0.8 and 0.5.
    """
    x, y = _pair(a, b)
    rx, ry = _st.rankdata(x), _st.rankdata(y)
    rx -= rx.mean()
    ry -= ry.mean()
    den = np.sqrt((rx @ rx) * (ry @ ry))
    return float(rx @ ry / den) if den else float("nan")


def kendall_tau_b(a: Sequence[float], b: Sequence[float]) -> float:
    """Kendall's tau-b, ``scipy.stats.kendalltau``: (C - D) / sqrt((n0 - n1)(n0 - n2)), ties
    counted per variable; NaN when one side is constant."""
    x, y = _pair(a, b)
    return float(_st.kendalltau(x, y).statistic)
