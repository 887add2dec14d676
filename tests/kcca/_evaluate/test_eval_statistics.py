"""McNemar, randomisation test, kappa, Krippendorff's alpha, rank correlations."""

import numpy as np
import pytest
from scipy import stats

from kcca.data._errors import DataError
from kcca._evaluate.statistics import (
    cohen_kappa,
    kendall_tau_b,
    krippendorff_alpha,
    mcnemar,
    randomization_test,
    spearman_rho,
)


def _outcomes(b, c, both=5, neither=7):
    a = [1] * b + [0] * c + [1] * both + [0] * neither
    bb = [0] * b + [1] * c + [1] * both + [0] * neither
    return np.array(a, bool), np.array(bb, bool)


def test_mcnemar_textbook_values():
    a, b = _outcomes(10, 2)
    exact = mcnemar(a, b)
    assert exact.method == "exact binomial" and exact.two_sided
    assert (exact.b, exact.c) == (10, 2)
    # 2 * P(X <= 2), X ~ Bin(12, 1/2) = 2 * (1 + 12 + 66) / 4096
    assert exact.p_value == pytest.approx(158 / 4096)
    chi = mcnemar(a, b, method="chi2")
    assert chi.statistic == pytest.approx(49 / 12)  # (|10 - 2| - 1)^2 / 12
    assert chi.p_value == pytest.approx(stats.chi2.sf(49 / 12, 1))
    big = mcnemar(*_outcomes(30, 12))
    assert big.method.startswith("chi-squared")
    assert mcnemar(*_outcomes(0, 0)).p_value == 1.0
    assert mcnemar(*_outcomes(5, 5)).p_value == 1.0


def test_mcnemar_matches_scipy_binomtest():
    a, b = _outcomes(3, 11)
    assert mcnemar(a, b).p_value == pytest.approx(stats.binomtest(3, 14, 0.5).pvalue)


def test_kappa_against_sklearn_and_hand():
    from sklearn.metrics import cohen_kappa_score

    # hand: 2x2 table [[20, 5], [10, 15]] -> p_o = 0.7, p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5
    a = np.array([1] * 20 + [1] * 5 + [0] * 10 + [0] * 15, bool)
    b = np.array([1] * 20 + [0] * 5 + [1] * 10 + [0] * 15, bool)
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    rng = np.random.default_rng(0)
    x = rng.random(300) < 0.3
    y = x ^ (rng.random(300) < 0.2)
    assert cohen_kappa(x, y) == pytest.approx(cohen_kappa_score(x, y))
    assert cohen_kappa(np.ones(5, bool), np.ones(5, bool)) == 1.0


def test_randomization_exact_enumeration_matches_scipy():
    rng = np.random.default_rng(1)
    a = rng.normal(size=10)
    b = a + rng.normal(0.4, 1, size=10)
    ours = randomization_test(a, b)  # 2^10 <= 100,000: exact
    assert ours.exact and ours.n_samples == 1024
    ref = stats.permutation_test((a, b), lambda x, y, axis: np.mean(x - y, axis=axis),
                                 permutation_type="samples", n_resamples=np.inf)
    assert ours.p_value == pytest.approx(ref.pvalue)


def test_randomization_sampled_agrees_with_scipy_within_mc_error():
    rng = np.random.default_rng(2)
    a = rng.normal(size=400)
    b = a + rng.normal(0.12, 1, size=400)
    ours = randomization_test(a, b, n_samples=100_000, seed=7)
    ref = stats.permutation_test((a, b), lambda x, y, axis: np.mean(x - y, axis=axis),
                                 permutation_type="samples", n_resamples=20_000,
                                 vectorized=True, random_state=3)
    se = np.sqrt(ref.pvalue * (1 - ref.pvalue) / 20_000) + 1e-4
    assert 0 < ours.p_value < 1
    assert abs(ours.p_value - ref.pvalue) < 4 * se
    again = randomization_test(a, b, n_samples=100_000, seed=7)
    assert again.p_value == ours.p_value  # seeded


def test_randomization_median_matches_brute_force():
    rng = np.random.default_rng(4)
    a = rng.integers(1, 200, size=9).astype(float)
    b = rng.integers(1, 200, size=9).astype(float)
    ours = randomization_test(a, b, statistic="median")
    obs = np.median(a) - np.median(b)
    hits = 0
    for code in range(2 ** 9):
        s = np.array([(code >> i) & 1 for i in range(9)], bool)
        d = np.median(np.where(s, b, a)) - np.median(np.where(s, a, b))
        hits += abs(d) >= abs(obs) - 1e-12
    assert ours.exact and ours.p_value == pytest.approx(hits / 512)
    # sampled path on even n: the median is the mean of the two middle values
    x = rng.integers(1, 1000, size=1000).astype(float)
    y = x - rng.integers(-5, 40, size=1000)
    res = randomization_test(x, y, statistic="median", n_samples=20_000, seed=1)
    assert res.observed == pytest.approx(np.median(x) - np.median(y))
    assert 0 < res.p_value <= 1


def test_randomization_identical_systems_and_nan():
    a = np.arange(50.0)
    assert randomization_test(a, a, n_samples=1000).p_value == 1.0
    with pytest.raises(DataError, match="query 3: NaN"):
        randomization_test([1, 2, 3, np.nan], [1, 2, 3, 4])
    r = randomization_test([1, 2, 3, np.nan], [1, 2, 3, 4], nan_policy="omit")
    assert r.n_samples == 8


def test_krippendorff_textbook_example():
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", 4 coders x 12 units
    n = np.nan
    data = np.array([
        [1, 2, 3, 3, 2, 1, 4, 1, 2, n, n, n],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, n, 3],
        [n, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, n],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, n],
    ])
    assert krippendorff_alpha(data, "nominal") == pytest.approx(0.743, abs=5e-4)
    assert krippendorff_alpha(data, "ordinal") == pytest.approx(0.815, abs=5e-4)
    assert krippendorff_alpha(data, "interval") == pytest.approx(0.849, abs=5e-4)


def test_krippendorff_against_pairwise_definition():
    # alpha = 1 - D_o / D_e with D_o over within-unit pairs, D_e over all pairable pairs
    rng = np.random.default_rng(0)
    data = rng.integers(1, 5, size=(3, 40)).astype(float)
    data[0, :5] = np.nan
    vals_by_unit = [u[~np.isnan(u)] for u in data.T if (~np.isnan(u)).sum() >= 2]
    num = sum(sum((x - y) ** 2 for i, x in enumerate(u) for j, y in enumerate(u) if i != j)
              / (len(u) - 1) for u in vals_by_unit)
    pooled = np.concatenate(vals_by_unit)
    n = pooled.size
    den = sum((x - y) ** 2 for x in pooled for y in pooled) / (n - 1)
    assert krippendorff_alpha(data, "interval") == pytest.approx(1 - num / den)


def test_rank_correlations_match_scipy_with_ties():
    rng = np.random.default_rng(6)
    x = rng.integers(0, 8, size=30).astype(float)
    y = x + rng.integers(-3, 4, size=30)
    assert spearman_rho(x, y) == pytest.approx(stats.spearmanr(x, y).statistic)
    assert kendall_tau_b(x, y) == pytest.approx(stats.kendalltau(x, y).statistic)
    assert spearman_rho([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    # hand: (1,1),(2,3),(3,2): C = 2, D = 1 -> tau = 1/3
    assert kendall_tau_b([1, 2, 3], [1, 3, 2]) == pytest.approx(1 / 3)
