"""Pivoted incomplete Cholesky: closed-form factors, stopping rules, on-demand columns."""

from __future__ import annotations

import numpy as np
import pytest

from kcca._backend import to_numpy
from kcca._lowrank import (
    CallableColumns,
    DenseColumns,
    KernelColumns,
    TransformedColumns,
    pivoted_cholesky,
)
from features.kernels._base import Kernel


def rbf(Z: np.ndarray, gamma: float = 0.5) -> np.ndarray:
    d = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    return np.exp(-gamma * d)


def test_hand_worked_two_by_two():
    # K = [[4, 2], [2, 3]]: pivot 0 (largest diagonal), G[:,0] = [2, 1];
    # residual diag [0, 2] -> pivot 1, G[:,1] = [0, sqrt 2]
    K = np.array([[4.0, 2.0], [2.0, 3.0]])
    f = pivoted_cholesky(K, precision=0)
    assert f.pivots.tolist() == [0, 1]
    np.testing.assert_allclose(f.factor, [[2.0, 0.0], [1.0, np.sqrt(2.0)]], atol=1e-15)
    assert f.trace == 7.0 and f.residual_trace == pytest.approx(0.0, abs=1e-14)


def test_pivot_order_follows_largest_residual():
    K = np.diag([1.0, 5.0, 3.0])
    f = pivoted_cholesky(K, precision=0)
    assert f.pivots.tolist() == [1, 2, 0]


def test_linear_kernel_stops_at_numerical_rank():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 7))
    K = X @ X.T
    f = pivoted_cholesky(K, precision=0)
    assert f.rank == 7
    np.testing.assert_allclose(f.factor @ f.factor.T, K, atol=1e-9)


@pytest.mark.parametrize("precision", [1e-2, 1e-4, 1e-6])
def test_precision_bounds_residual_trace(precision):
    rng = np.random.default_rng(2)
    K = rbf(rng.normal(size=(300, 3)))
    f = pivoted_cholesky(K, precision=precision)
    G = f.factor
    resid = K - G @ G.T
    assert np.trace(resid) <= precision * np.trace(K) + 1e-10
    assert np.trace(resid) == pytest.approx(f.residual_trace, rel=1e-6, abs=1e-10)
    # the residual of a pivoted Cholesky is PSD: every diagonal entry >= 0
    assert np.diag(resid).min() > -1e-10


def test_max_rank_caps_and_ranks_grow_with_precision():
    rng = np.random.default_rng(3)
    K = rbf(rng.normal(size=(300, 3)))
    assert pivoted_cholesky(K, precision=0, max_rank=25).rank == 25
    ranks = [pivoted_cholesky(K, precision=p).rank for p in (1e-2, 1e-4, 1e-6)]
    assert ranks[0] < ranks[1] < ranks[2]


def test_on_demand_columns_match_dense_and_fetch_few_columns():
    rng = np.random.default_rng(4)
    Z = rng.normal(size=(150, 3))
    K = rbf(Z)
    fetched: list[int] = []

    def cols(index):
        fetched.extend(index.tolist())
        return K[:, index]

    src = CallableColumns(cols, np.ones(150))
    a = pivoted_cholesky(src, precision=1e-4, block_size=8)
    b = pivoted_cholesky(K, precision=1e-4, block_size=8)
    assert a.pivots.tolist() == b.pivots.tolist()
    assert set(a.pivots.tolist()) <= set(fetched) and len(fetched) < 150
    np.testing.assert_allclose(a.factor, b.factor, atol=1e-12)


def test_block_size_one_is_the_classic_greedy_order():
    rng = np.random.default_rng(7)
    K = rbf(rng.normal(size=(120, 3)))
    f = pivoted_cholesky(K, precision=1e-6, block_size=1)
    resid = np.diag(K).copy()
    G = f.factor
    for j, piv in enumerate(f.pivots):  # each pivot is the largest residual diagonal entry
        assert resid[piv] == pytest.approx(resid.max(), rel=1e-9)
        resid -= G[:, j] ** 2
    blocked = pivoted_cholesky(K, precision=1e-6, block_size=64)
    assert abs(blocked.rank - f.rank) <= 0.1 * f.rank


class _Linear(Kernel):
    name = "test-linear"

    def _gram(self, a, b):
        return np.asarray(a) @ np.asarray(b).T

    def diag(self, items):
        return (np.asarray(items) ** 2).sum(1)


def test_kernel_contract_columns():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 4))
    kern = _Linear().fit(list(X))
    f = pivoted_cholesky(KernelColumns(kern), precision=0)
    assert f.rank == 4
    np.testing.assert_allclose(f.factor @ f.factor.T, X @ X.T, atol=1e-9)


def test_transformed_columns_power_and_diagonal():
    K = np.array([[1.0, 0.5, 0.2], [0.5, 1.0, 0.4], [0.2, 0.4, 1.0]])
    t = TransformedColumns(DenseColumns(K), power=2, diag_scale=3.0)
    expected = K ** 2 + 2.0 * np.eye(3)
    np.testing.assert_allclose(t.columns([2, 0]), expected[:, [2, 0]])
    np.testing.assert_allclose(t.diag(), [3.0, 3.0, 3.0])
    np.testing.assert_allclose(K, [[1.0, 0.5, 0.2], [0.5, 1.0, 0.4], [0.2, 0.4, 1.0]])  # untouched


def test_array_api_strict_backend_same_numbers():
    rng = np.random.default_rng(6)
    K = rbf(rng.normal(size=(80, 3)))
    a = pivoted_cholesky(K, precision=1e-6, backend="array_api_strict")
    b = pivoted_cholesky(K, precision=1e-6)
    assert type(a.factor).__module__.startswith("array_api_strict")
    np.testing.assert_allclose(to_numpy(a.factor), b.factor, atol=1e-12)


@pytest.mark.parametrize(
    "K, message",
    [
        (np.ones((3, 4)), "square"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), "non-finite"),
        (np.array([[1.0, 0.2], [0.3, 1.0]]), "not symmetric"),
        (np.array([[-1.0, 0.0], [0.0, 1.0]]), "positive semi-definite"),
    ],
)
def test_bad_kernels_raise_naming_argument(K, message):
    with pytest.raises(ValueError, match=message) as err:
        pivoted_cholesky(K, argument="Kx")
    assert "Kx" in str(err.value)


def test_bad_parameters_raise():
    K = np.eye(3)
    with pytest.raises(ValueError, match="precision"):
        pivoted_cholesky(K, precision=1.5)
    with pytest.raises(ValueError, match="max_rank"):
        pivoted_cholesky(K, max_rank=0)
    with pytest.raises(ValueError, match="non-finite"):
        pivoted_cholesky(CallableColumns(lambda i: np.full((3, len(i)), np.inf), np.ones(3)))
