"""kcca._evaluate.statistics against the libraries that define each statistic.

Spearman's rho, Kendall's tau-b, average ranks and Cohen's kappa against scipy / scikit-learn
(equal to an ulp or two: 2 eps); McNemar against statsmodels, Krippendorff's alpha against the
``krippendorff`` package, the randomisation test against ``scipy.stats.permutation_test``.
Each documented departure from a library is pinned by a test of its own.
"""

from __future__ import annotations

import importlib.util
import itertools
import warnings
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from kcca.data._errors import DataError
from kcca._evaluate.statistics import (
    cohen_kappa,
    kendall_tau_b,
    krippendorff_alpha,
    mcnemar,
    randomization_test,
    spearman_rho,
)
from tests.support.optional_tools import skip_unless

EPS = np.finfo(float).eps
ULPS = 2 * EPS  # the libraries round differently: at most an ulp or two apart
KAPPA_ULPS = 4 * EPS  # (p_o - p_e) / (1 - p_e) cancels: a few ulps of 1 apart


def _tied(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    return rng.integers(0, k, size=n).astype(float)


def _pairs(seed: int):
    """(x, y) pairs: heavily tied, lightly tied, continuous, and mixed; seeded."""
    rng = np.random.default_rng(seed)
    for _ in range(60):
        n = int(rng.integers(2, 45))
        k = int(rng.integers(2, 9))
        yield _tied(rng, n, k), _tied(rng, n, k)
        yield _tied(rng, n, 3 * n), _tied(rng, n, 3 * n)
        x = rng.normal(size=n)
        yield x, x + rng.normal(scale=0.7, size=n)
        yield _tied(rng, n, k), rng.normal(size=n)


def _library(module: str):
    skip_unless(importlib.util.find_spec(module) is not None,
                f"{module} absent (extra 'dev')")
    return importlib.import_module(module)


# ------------------------------------------------------------------ rank correlations
def _pearson_of_rankdata(x, y) -> float:
    rx, ry = stats.rankdata(x), stats.rankdata(y)
    rx -= rx.mean()
    ry -= ry.mean()
    return float(rx @ ry / np.sqrt((rx @ rx) * (ry @ ry)))


def test_spearman_is_pearson_of_rankdata_average_ranks_bit_for_bit():
    for x, y in _pairs(0):
        if np.ptp(x) and np.ptp(y):
            assert spearman_rho(x, y) == _pearson_of_rankdata(x, y)


@pytest.mark.parametrize("seed", [1, 2])
def test_rank_correlations_equal_scipy_on_tied_and_random_data(seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.ConstantInputWarning)
        for x, y in _pairs(seed):
            rho, ref_rho = spearman_rho(x, y), stats.spearmanr(x, y).statistic
            tau, ref_tau = kendall_tau_b(x, y), stats.kendalltau(x, y).statistic
            if np.isnan(ref_rho):  # a constant side
                assert np.isnan(rho) and np.isnan(tau) and np.isnan(ref_tau)
                continue
            assert abs(rho - ref_rho) <= ULPS, (x, y)
            assert abs(tau - ref_tau) <= ULPS, (x, y)


def test_rank_correlation_edge_cases_equal_scipy():
    cases = [
        ([1, 2], [2, 1]),
        ([1, 2], [1, 2]),
        ([3, 3, 1, 2], [5, 5, 5, 1]),
        ([-1e9, 0, 1e9, 1e9], [1e-9, 2e-9, 2e-9, 3e-9]),
        (np.arange(40.0), np.arange(40.0)[::-1]),
        (np.arange(40.0) // 4, np.arange(40.0) // 5),
    ]
    for x, y in cases:
        assert spearman_rho(x, y) == pytest.approx(stats.spearmanr(x, y).statistic,
                                                   rel=0, abs=ULPS)
        assert kendall_tau_b(x, y) == pytest.approx(stats.kendalltau(x, y).statistic,
                                                    rel=0, abs=ULPS)
    assert spearman_rho(np.arange(40.0), np.arange(40.0)) == 1.0
    assert spearman_rho(np.arange(40.0), -np.arange(40.0)) == -1.0


def test_rank_correlations_of_a_constant_side_are_nan_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(spearman_rho([1, 1, 1], [1, 2, 3]))
        assert np.isnan(kendall_tau_b([1, 2, 3], [4, 4, 4]))


def test_spearman_is_exact_where_fidelity_compares_it_with_a_target():
    """``fidelity`` checks ``rho >= 0.8`` (and 0.5) over a handful of systems; a rank
    correlation of exactly 0.8 must not come out 0.7999999999999999 (spearmanr's rounding
    does for some orderings of 4 and 5 systems)."""
    spearmanr_below = 0
    for n in (4, 5):
        x = np.arange(n, dtype=float)
        for order in itertools.permutations(range(n)):
            d2 = sum((i - j) ** 2 for i, j in enumerate(order))
            exact = 1 - Fraction(6 * d2, n**3 - n)
            if exact in (Fraction(4, 5), Fraction(1, 2)):
                y = np.array(order, dtype=float)
                assert spearman_rho(x, y) == float(exact), order
                spearmanr_below += stats.spearmanr(x, y).statistic < float(exact)
    assert spearmanr_below > 0  # the reason spearman_rho keeps its own Pearson step


def test_rank_correlations_refuse_nan_and_bad_shapes_with_data_errors():
    for f in (spearman_rho, kendall_tau_b):
        with pytest.raises(DataError, match="rank correlation: NaN in the system scores") as e:
            f([1.0, np.nan, 3.0], [1.0, 2.0, 3.0])
        assert e.value.fix  # printed as "fix: ..." by the CLI
        with pytest.raises(DataError, match="one length >= 2"):
            f([1.0, 2.0], [1.0, 2.0, 3.0])
        with pytest.raises(DataError, match="one length >= 2"):
            f([1.0], [1.0])


# ------------------------------------------------------------------------------ kappa
@pytest.mark.parametrize("seed", [0, 1])
def test_kappa_equals_sklearn_on_random_labelings(seed):
    rng = np.random.default_rng(seed)
    for _ in range(150):
        n = int(rng.integers(1, 80))
        k = int(rng.integers(2, 6))
        a = rng.integers(0, k, n)
        b = np.where(rng.random(n) < 0.6, a, rng.integers(0, k, n))
        for x, y in ((a, b), (a > 0, b > 0)):  # several labels; binarised (Tables 8-10)
            if np.unique(np.concatenate([x, y])).size == 1:
                continue  # the documented rule: see the next test but one
            assert cohen_kappa(x, y) == pytest.approx(cohen_kappa_score(x, y), rel=0,
                                                             abs=KAPPA_ULPS)


def test_kappa_edge_cases_equal_sklearn():
    cases = [
        (np.ones(6, bool), np.zeros(6, bool)),  # two different constants: p_e = 0
        (np.array([1, 1, 1, 0]), np.array([1, 1, 1, 1])),  # one constant side
        (np.array(["cat", "dog", "dog"]), np.array(["dog", "dog", "cat"])),
        (np.array([True, False]), np.array([False, True])),
    ]
    for a, b in cases:
        assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b), rel=0, abs=KAPPA_ULPS)


def test_kappa_of_two_identical_constant_labelings_is_one_where_sklearn_gives_nan():
    a = np.ones(5, bool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns that kappa is undefined
        assert np.isnan(cohen_kappa_score(a, a))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cohen_kappa(a, a) == 1.0
        assert cohen_kappa(["x"] * 3, ["x"] * 3) == 1.0


def test_kappa_takes_any_labels_and_refuses_bad_shapes():
    # float labels (scikit-learn calls them continuous and refuses them) are labels too
    a, b = np.array([0.5, 1.5, 1.5, 2.5]), np.array([0.5, 1.5, 2.5, 2.5])
    ref = cohen_kappa_score(a.astype(str), b.astype(str))
    assert cohen_kappa(a, b) == pytest.approx(ref, rel=0, abs=KAPPA_ULPS)
    for x, y in (([], []), ([1, 0], [1]), ([[1, 0]], [[1, 0]])):
        with pytest.raises(DataError, match="kappa needs two non-empty 1-d labelings"):
            cohen_kappa(x, y)


# ---------------------------------------------------------------------------- McNemar
def _table(b: int, c: int, both: int = 7, neither: int = 4) -> np.ndarray:
    return np.array([[both, b], [c, neither]])


def _outcomes(b: int, c: int, both: int = 7, neither: int = 4):
    a = np.array([1] * b + [0] * c + [1] * both + [0] * neither, bool)
    bb = np.array([0] * b + [1] * c + [1] * both + [0] * neither, bool)
    return a, bb


def test_mcnemar_exact_equals_statsmodels_exact():
    sm = _library("statsmodels.stats.contingency_tables")
    for b, c in itertools.product(range(30), repeat=2):
        if b + c == 0:
            continue
        ours = mcnemar(*_outcomes(b, c), method="exact")
        ref = sm.mcnemar(_table(b, c), exact=True)
        assert (ours.b, ours.c) == (b, c)
        assert ours.statistic == ref.statistic
        assert ours.p_value == ref.pvalue


def test_mcnemar_chi2_equals_statsmodels_corrected_chi2_when_b_differs_from_c():
    sm = _library("statsmodels.stats.contingency_tables")
    for b, c in itertools.product(range(60), repeat=2):
        if b == c:
            continue
        ours = mcnemar(*_outcomes(b, c), method="chi2")
        ref = sm.mcnemar(_table(b, c), exact=False, correction=True)
        assert ours.statistic == pytest.approx(ref.statistic, rel=1e-15)
        assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-12)


def test_mcnemar_departs_from_statsmodels_where_its_docstring_says():
    sm = _library("statsmodels.stats.contingency_tables")
    # b = c: the corrected |b - c| - 1 stops at zero here; statsmodels squares -1 (1 / (b + c))
    for b in (1, 15, 40):
        ours = mcnemar(*_outcomes(b, b), method="chi2")
        ref = sm.mcnemar(_table(b, b), exact=False, correction=True)
        assert (ours.statistic, ours.p_value) == (0.0, 1.0)
        assert ref.statistic == pytest.approx(1 / (2 * b)) and ref.pvalue < 1.0
    # no discordant pair: p = 1 for both methods; statsmodels' chi-squared is (0 - 1)^2 / 0
    assert mcnemar(*_outcomes(0, 0), method="chi2").p_value == 1.0
    assert mcnemar(*_outcomes(0, 0), method="exact").p_value == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ref = sm.mcnemar(_table(0, 0), exact=False, correction=True)
    assert ref.statistic == np.inf and ref.pvalue == 0.0


def test_mcnemar_auto_is_exact_below_25_discordant_pairs_else_corrected_chi2():
    """The rule behind the significance markers of Tables 1, 3 and 4: statsmodels'
    default (exact) and the uncorrected chi-squared would mark other cells."""
    sm = _library("statsmodels.stats.contingency_tables")
    for b, c in ((3, 11), (10, 14), (12, 12)):  # b + c < 25: exact binomial
        auto = mcnemar(*_outcomes(b, c))
        assert auto.method == "exact binomial"
        assert auto.p_value == sm.mcnemar(_table(b, c), exact=True).pvalue
    auto = mcnemar(*_outcomes(8, 18))  # b + c = 26: continuity-corrected chi-squared
    assert auto.method == "chi-squared (continuity corrected)"
    corrected = sm.mcnemar(_table(8, 18), exact=False, correction=True).pvalue
    uncorrected = sm.mcnemar(_table(8, 18), exact=False, correction=False).pvalue
    assert auto.p_value == pytest.approx(corrected, rel=1e-12)
    assert auto.p_value > 0.05 > uncorrected  # the correction decides the marker here
    assert sm.mcnemar(_table(8, 18), exact=True).pvalue != pytest.approx(auto.p_value)


# ------------------------------------------------------------------ Krippendorff's alpha
LEVELS = ("nominal", "ordinal", "interval")


def _expert_like(rng: np.random.Generator, units: int, missing: float) -> np.ndarray:
    """Three judges' 1-4 scores per unit (the expert judgments' shape), some missing."""
    truth = rng.integers(1, 5, size=units)
    noise = rng.integers(-1, 2, size=(3, units)) * (rng.random((3, units)) < 0.4)
    data = np.clip(truth + noise, 1, 4).astype(float)
    data[rng.random((3, units)) < missing] = np.nan
    return data


@pytest.mark.parametrize("level", LEVELS)
def test_krippendorff_alpha_equals_the_krippendorff_package(level):
    kr = _library("krippendorff")
    rng = np.random.default_rng(5)
    datasets = [_expert_like(rng, 2000, 0.0), _expert_like(rng, 300, 0.15)]
    for _ in range(60):
        coders, units, k = (int(v) for v in rng.integers((2, 3, 2), (6, 60, 7)))
        data = rng.integers(1, k + 1, size=(coders, units)).astype(float)
        data[rng.random(data.shape) < 0.2] = np.nan
        datasets.append(data)
    n = np.nan  # Krippendorff (2011), 4 coders x 12 units
    datasets.append(np.array([
        [1, 2, 3, 3, 2, 1, 4, 1, 2, n, n, n],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, n, 3],
        [n, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, n],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, n],
    ]))
    for data in datasets:
        if not ((~np.isnan(data)).sum(axis=0) >= 2).any():
            continue
        ref = kr.alpha(reliability_data=data, level_of_measurement=level)
        assert krippendorff_alpha(data, level) == pytest.approx(ref, rel=1e-12, abs=1e-14)


def test_krippendorff_alpha_departs_from_the_package_where_its_docstring_says():
    kr = _library("krippendorff")
    n = np.nan
    # one value among the pairable units (the unpaired 2 does not count): perfect agreement
    agreeing = np.array([[1, 1, 1, 2], [1, 1, 1, n]])
    for level in LEVELS:
        assert krippendorff_alpha(agreeing, level) == 1.0
        assert krippendorff_alpha(np.full((3, 5), 2.0), level) == 1.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            assert np.isnan(kr.alpha(reliability_data=agreeing, level_of_measurement=level))
        with pytest.raises(ValueError, match="more than one value"):
            kr.alpha(reliability_data=np.full((3, 5), 2.0), level_of_measurement=level)
        with pytest.raises(DataError, match="no unit has two or more values"):
            krippendorff_alpha(np.array([[1, n, 2], [n, 1, n]]), level)


# ------------------------------------------------------------------ randomisation test
def _difference(statistic: str):
    agg = np.mean if statistic == "mean" else np.median
    return lambda x, y, axis: agg(x, axis=axis) - agg(y, axis=axis)


@pytest.mark.parametrize("statistic", ["mean", "median"])
def test_randomization_exact_equals_exhaustive_permutation_test(statistic):
    rng = np.random.default_rng(11)
    for n in (2, 4, 9, 12):
        a = rng.integers(0, 20, size=n).astype(float)  # ties: |stat| = |observed| often
        b = a + rng.integers(-3, 6, size=n)
        ours = randomization_test(a, b, statistic=statistic)
        ref = stats.permutation_test((a, b), _difference(statistic), vectorized=True,
                                     permutation_type="samples", n_resamples=np.inf)
        assert ours.exact and ours.n_samples == 2**n
        assert ours.observed == pytest.approx(ref.statistic, rel=0, abs=1e-12)
        assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-12)


@pytest.mark.parametrize("statistic", ["mean", "median"])
def test_randomization_sampled_agrees_with_permutation_test_within_monte_carlo_error(statistic):
    rng = np.random.default_rng(12)
    a = rng.normal(size=300)
    b = a + rng.normal(0.1, 1, size=300)
    if statistic == "median":
        a, b = np.round(a * 50), np.round(b * 50)  # median ranks are integers
    ours = randomization_test(a, b, statistic=statistic, n_samples=20_000, seed=3)
    ref = stats.permutation_test((a, b), _difference(statistic), vectorized=True,
                                 permutation_type="samples", n_resamples=20_000,
                                 random_state=4)
    p = ref.pvalue
    se = np.sqrt(p * (1 - p) * (1 / 20_000 + 1 / 20_000)) + 2e-4
    assert 0.0 < p < 1.0
    assert abs(ours.p_value - p) < 4 * se
    assert randomization_test(a, b, statistic=statistic, n_samples=20_000, seed=3) == ours


def test_median_differences_equal_numpys_medians_row_by_row():
    """The compiled histogram walk of the median statistic against ``np.median`` of each swap
    pattern: odd and even numbers of queries, many ties, equal systems, real values."""
    from kcca._evaluate.statistics import _swap_statistic

    rng = np.random.default_rng(5)
    for n in (1, 2, 3, 4, 11, 300, 1000):
        for kind in ("ties", "equal", "real"):
            x = rng.integers(1, 60, size=n).astype(float)
            y = x.copy() if kind == "equal" else rng.integers(1, 60, size=n).astype(float)
            if kind == "real":
                x = rng.normal(size=n)
            swap = rng.random((97, n)) < 0.5
            oracle = (np.median(np.where(swap, y, x), axis=1)
                      - np.median(np.where(swap, x, y), axis=1))
            got = _swap_statistic(x, y, "median")(np.packbits(swap, axis=1))
            np.testing.assert_allclose(got, oracle, rtol=0,
                                       atol=1e-12, err_msg=f"n={n} {kind}")


def test_mean_differences_equal_numpys_means_row_by_row():
    """The compiled byte-table sums of the mean statistic against ``np.mean`` of each swap
    pattern: numbers of queries that do and do not fill the last byte (its spare bits set),
    real and tied values."""
    from kcca._evaluate.statistics import _swap_statistic

    rng = np.random.default_rng(6)
    for n in (1, 7, 8, 9, 300, 1000):
        for kind in ("ties", "real"):
            x = rng.integers(1, 60, size=n).astype(float)
            y = rng.integers(1, 60, size=n).astype(float)
            if kind == "real":
                x, y = rng.normal(size=n), rng.normal(size=n)
            packed = rng.integers(0, 256, size=(97, (n + 7) // 8), dtype=np.uint8)
            packed[:, -1] |= 0xFF >> (n % 8) if n % 8 else 0  # bits past n set: ignored
            swap = np.unpackbits(packed, axis=1, count=n).astype(bool)
            oracle = np.where(swap, y, x).mean(axis=1) - np.where(swap, x, y).mean(axis=1)
            got = _swap_statistic(x, y, "mean")(packed)
            np.testing.assert_allclose(got, oracle, rtol=0,
                                       atol=1e-12, err_msg=f"n={n} {kind}")
