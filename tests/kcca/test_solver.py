"""KCCA (eq. 3): closed-form CCA, exact dense eq. 3, low-rank agreement, invariances, errors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from sklearn.exceptions import NotFittedError

from kcca._backend import gpu_available, to_numpy
from kcca._lowrank import CallableColumns
from kcca._solver import KCCA, KCCAGrid, paper_n_grid
from tests.support.rbf_kernel import rbf


def paired(n: int, seed: int, extra: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(n, 2))
    X = np.c_[L, rng.normal(size=(n, extra))]
    Y = np.c_[L + 0.4 * rng.normal(size=(n, 2)), rng.normal(size=(n, extra - 1))]
    return X, Y


def centring(n: int) -> np.ndarray:
    return np.eye(n) - np.full((n, n), 1.0 / n)


def exact_eq3(Kx: np.ndarray, Ky: np.ndarray, kappa: float):
    """Dense eq. 3: singular values of Ux Dx Ux' Uy Dy Uy' on the centred kernels, and the
    directions alpha, beta with unit-norm training projections."""
    n = Kx.shape[0]
    H = centring(n)
    out = []
    for K in (Kx, Ky):
        s, U = np.linalg.eigh(H @ K @ H)
        keep = s > 1e-10 * s.max()
        out.append((s[keep], U[:, keep]))
    (sx, Ux), (sy, Uy) = out
    M = (np.sqrt(sx / (sx + kappa))[:, None] * (Ux.T @ Uy)) * np.sqrt(sy / (sy + kappa))[None, :]
    P, lam, Qt = np.linalg.svd(M, full_matrices=False)
    alpha = Ux @ (P / np.sqrt(sx * (sx + kappa))[:, None])
    beta = Uy @ (Qt.T / np.sqrt(sy * (sy + kappa))[:, None])
    alpha /= np.linalg.norm(H @ Kx @ H @ alpha, axis=0)
    beta /= np.linalg.norm(H @ Ky @ H @ beta, axis=0)
    return lam, alpha, beta


def linear_cca(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    Qx, _ = np.linalg.qr(X - X.mean(0))
    Qy, _ = np.linalg.qr(Y - Y.mean(0))
    return np.linalg.svd(Qx.T @ Qy, compute_uv=False)


def same_up_to_sign(A: np.ndarray, B: np.ndarray, atol: float) -> None:
    signs = np.sign((A * B).sum(0))
    np.testing.assert_allclose(A, B * signs, atol=atol)


# ---------------------------------------------------------------------- closed forms


@pytest.mark.parametrize("shift", [0.0, 3.0])
def test_linear_kernels_tiny_kappa_equal_linear_cca(shift):
    rng = np.random.default_rng(0)
    X, Y = paired(400, 1)
    X, Y = X + shift * rng.normal(size=X.shape[1]), Y + shift  # uncentred when shift > 0
    model = KCCA(kappa=1e-9, n_components=4).fit(X @ X.T, Y @ Y.T)
    np.testing.assert_allclose(model.correlations_, linear_cca(X, Y)[:4], atol=1e-6)
    assert model.rank_x_ == X.shape[1] and model.rank_y_ == Y.shape[1]


def test_rbf_kappa_half_equals_exact_eq3_and_projections_match():
    X, Y = paired(250, 2)
    Kx, Ky = rbf(X), rbf(Y)
    lam, alpha, beta = exact_eq3(Kx, Ky, 0.5)
    model = KCCA(kappa=0.5, n_components=20, precision=0).fit(Kx, Ky)
    np.testing.assert_allclose(model.correlations_, lam[:20], atol=1e-10)
    H = centring(250)
    Xn, Yn = paired(40, 3)
    Kx_new, Ky_new = rbf(Xn, X), rbf(Yn, Y)
    Kx_new_c = (Kx_new - Kx.mean(0)) - (Kx_new.mean(1, keepdims=True) - Kx.mean())
    Ky_new_c = (Ky_new - Ky.mean(0)) - (Ky_new.mean(1, keepdims=True) - Ky.mean())
    k = 5
    assert np.diff(lam[: k + 1]).min() < -1e-4  # distinct correlations: directions are unique
    same_up_to_sign(model.transform_x(Kx)[:, :k], H @ Kx @ H @ alpha[:, :k], 1e-8)
    same_up_to_sign(model.transform_y(Ky)[:, :k], H @ Ky @ H @ beta[:, :k], 1e-8)
    same_up_to_sign(model.transform_x(Kx_new)[:, :k], Kx_new_c @ alpha[:, :k], 1e-8)
    same_up_to_sign(model.transform_y(Ky_new)[:, :k], Ky_new_c @ beta[:, :k], 1e-8)


def test_directions_attain_eq3_and_have_unit_training_projections():
    X, Y = paired(200, 4)
    Kx, Ky = rbf(X), rbf(Y)
    kappa = 0.1
    m = KCCA(kappa=kappa, n_components=6, precision=0).fit(Kx, Ky)
    H = centring(200)
    Kxc, Kyc = H @ Kx @ H, H @ Ky @ H
    a, b = m.x_weights_, m.y_weights_
    num = np.einsum("ik,ik->k", a, Kxc @ Kyc @ b)
    den = np.sqrt((np.einsum("ik,ik->k", Kxc @ a, Kxc @ a)
                   + kappa * np.einsum("ik,ik->k", a, Kxc @ a))
                  * (np.einsum("ik,ik->k", Kyc @ b, Kyc @ b)
                     + kappa * np.einsum("ik,ik->k", b, Kyc @ b)))
    np.testing.assert_allclose(num / den, m.correlations_, atol=1e-10)
    np.testing.assert_allclose(np.linalg.norm(m.transform_x(Kx), axis=0), 1.0, atol=1e-10)
    np.testing.assert_allclose(np.linalg.norm(m.transform_y(Ky), axis=0), 1.0, atol=1e-10)
    np.testing.assert_allclose(m.transform_x(Kx).mean(0), 0.0, atol=1e-12)


def test_text_diagonal_factor_equals_dense_scaled_kernel():
    X, Y = paired(200, 5)
    Kx, Ky = rbf(X) ** 2, rbf(Y)
    d = 3.0
    lam, alpha, beta = exact_eq3(Kx, Ky + (d - 1) * np.eye(200), 1.0)
    m = KCCA(kappa=1.0, n_components=8, precision=0, power_x=2, diag_y=d).fit(rbf(X), Ky)
    np.testing.assert_allclose(m.correlations_, lam[:8], atol=1e-9)
    Yn = paired(30, 6)[1]
    Ky_new = rbf(Yn, Y)  # new-by-train blocks are not touched by d
    Kyd = Ky + (d - 1) * np.eye(200)
    Ky_new_c = (Ky_new - Kyd.mean(0)) - (Ky_new.mean(1, keepdims=True) - Kyd.mean())
    same_up_to_sign(m.transform_y(Ky_new)[:, :4], Ky_new_c @ beta[:, :4], 1e-7)
    # the x view may carry d instead (the views swap internally)
    m2 = KCCA(kappa=1.0, n_components=8, precision=0, power_y=2, diag_x=d).fit(Ky, rbf(X))
    np.testing.assert_allclose(m2.correlations_, lam[:8], atol=1e-9)


def test_non_constant_diagonal_scaling_is_factorised_exactly():
    X, Y = paired(120, 7)
    Ky = rbf(Y) * np.outer(np.linspace(1, 2, 120), np.linspace(1, 2, 120))
    lam, _, _ = exact_eq3(rbf(X), Ky + np.diag(np.diag(Ky)), 0.5)
    m = KCCA(kappa=0.5, n_components=5, precision=0, diag_y=2.0).fit(rbf(X), Ky)
    np.testing.assert_allclose(m.correlations_, lam[:5], atol=1e-8)


# ---------------------------------------------------------------------- low rank


def exact_correlations(Kx: np.ndarray, Ky: np.ndarray, kappa: float) -> np.ndarray:
    """Eq. 3's correlations only (dense, O(n^2) centring, LAPACK divide and conquer)."""
    out = []
    for K in (Kx, Ky):
        Kc = K - K.mean(0) - K.mean(1, keepdims=True) + K.mean()
        s, U = scipy.linalg.eigh(Kc, driver="evd")
        keep = s > 1e-10 * s.max()
        out.append((s[keep], U[:, keep]))
    (sx, Ux), (sy, Uy) = out
    M = (np.sqrt(sx / (sx + kappa))[:, None] * (Ux.T @ Uy)) * np.sqrt(sy / (sy + kappa))[None, :]
    ev = scipy.linalg.eigh(M @ M.T, eigvals_only=True, driver="evd")[::-1]
    return np.sqrt(np.clip(ev, 0.0, None))


@pytest.mark.slow
def test_low_rank_default_precision_agrees_with_exact_at_n_2000():
    X, Y = paired(2000, 8)
    Kx, Ky = rbf(X, gamma=0.2), rbf(Y, gamma=0.2)
    lam = exact_correlations(Kx, Ky, 0.1)
    m = KCCA(kappa=0.1, n_components=20).fit(Kx, Ky)
    assert max(m.rank_x_, m.rank_y_) < 1500
    np.testing.assert_allclose(m.correlations_, lam[:20], atol=1e-4)


@pytest.mark.slow
def test_low_rank_converges_to_exact_as_rank_grows():
    X, Y = paired(500, 8)
    Kx, Ky = rbf(X, gamma=0.5), rbf(Y, gamma=0.5)
    lam = exact_correlations(Kx, Ky, 0.1)
    errors = [np.abs(KCCA(kappa=0.1, n_components=20, rank=r, precision=0).fit(Kx, Ky)
                     .correlations_ - lam[:20]).max() for r in (25, 50, 100, 200, 500)]
    assert all(b < a for a, b in zip(errors, errors[1:])), errors
    assert errors[0] > 0.1 and errors[-1] < 1e-10


def test_permuting_training_items_changes_nothing():
    X, Y = paired(150, 9)
    Xn, Yn = paired(20, 10)
    perm = np.random.default_rng(11).permutation(150)
    a = KCCA(kappa=0.5, n_components=6, precision=0).fit(rbf(X), rbf(Y))
    b = KCCA(kappa=0.5, n_components=6, precision=0).fit(rbf(X[perm]), rbf(Y[perm]))
    np.testing.assert_allclose(a.correlations_, b.correlations_, atol=1e-10)
    same_up_to_sign(a.transform_x(rbf(Xn, X)), b.transform_x(rbf(Xn, X[perm])), 1e-8)
    same_up_to_sign(a.transform_y(rbf(Yn, Y)), b.transform_y(rbf(Yn, Y[perm])), 1e-8)


def test_column_source_input_matches_dense():
    X, Y = paired(200, 12)
    Kx, Ky = rbf(X), rbf(Y)
    src_x = CallableColumns(lambda i: rbf(X, X[i]), np.ones(200))
    src_y = CallableColumns(lambda i: rbf(Y, Y[i]), np.ones(200))
    a = KCCA(kappa=0.5, n_components=5, precision=1e-6, factorisation="cholesky").fit(Kx, Ky)
    b = KCCA(kappa=0.5, n_components=5, precision=1e-6).fit(src_x, src_y)  # auto: cholesky
    np.testing.assert_allclose(a.correlations_, b.correlations_, atol=1e-12)
    with pytest.raises(ValueError, match="factorisation='eigen' needs dense"):
        KCCA(factorisation="eigen").fit(src_x, src_y)


@pytest.mark.parametrize("power_x,diag_y", [(1, 1.0), (2, 3.0)])
def test_eigen_and_cholesky_factorisations_agree(power_x, diag_y):
    X, Y = paired(150, 13)
    Xn, Yn = paired(12, 14)
    Kx, Ky = rbf(X), rbf(Y)
    kw = dict(kappas=(0.1, 1.0), n_components=[2, 8], precision=0, power_x=power_x,
              diag_y=diag_y)
    e = KCCAGrid(factorisation="eigen", **kw).fit(Kx, Ky)
    c = KCCAGrid(factorisation="cholesky", **kw).fit(Kx, Ky)
    assert e.core_.p.method == "eigen" and c.core_.p.method == "cholesky"
    np.testing.assert_allclose(e.correlations_, c.correlations_, atol=1e-8)
    for a, b in zip(e.transform_x(rbf(Xn, X)) + e.transform_y(rbf(Yn, Y)),
                    c.transform_x(rbf(Xn, X)) + c.transform_y(rbf(Yn, Y))):
        same_up_to_sign(to_numpy(a), to_numpy(b), 1e-6)


def test_eigen_precision_drops_the_smallest_eigenvalues():
    X, Y = paired(300, 15)
    Kx, Ky = rbf(X, gamma=0.05), rbf(Y, gamma=0.05)
    m = KCCA(kappa=0.5, n_components=3, precision=1e-3).fit(Kx, Ky)
    Kc = Kx - Kx.mean(0) - Kx.mean(1, keepdims=True) + Kx.mean()
    w = np.sort(np.linalg.eigvalsh(Kc))[::-1]
    dropped = w[m.rank_x_:].clip(0).sum()
    assert dropped <= 1e-3 * np.trace(Kx) < dropped + w[m.rank_x_ - 1]
    with pytest.raises(ValueError, match="factorisation must be one of"):
        KCCA(factorisation="svd").fit(Kx, Ky)


# ---------------------------------------------------------------------- grid


def test_paper_grid_has_46_values():
    g = paper_n_grid()
    assert len(g) == 46 and g[0] == 10 and g[-1] == 6000


def test_grid_equals_individual_models_and_caps_n_at_rank():
    X, Y = paired(300, 13)
    Kx, Ky = rbf(X), rbf(Y)
    Xn, Yn = paired(25, 14)
    grid = KCCAGrid(kappas=(0.1, 1.0), n_components=[2, 5, 10, 100000], precision=1e-8).fit(Kx, Ky)
    assert grid.n_components_.tolist() == [2, 5, 10]
    assert len(grid.models_) == 6
    proj = grid.projections(rbf(Xn, X), rbf(Yn, Y))
    for kappa in (0.1, 1.0):
        single = KCCA(kappa=kappa, n_components=5, precision=1e-8).fit(Kx, Ky)
        np.testing.assert_allclose(grid.correlations_[grid.kappas_.index(kappa), :5],
                                   single.correlations_, atol=1e-12)
        zx, zy = proj[(kappa, 5)]
        np.testing.assert_allclose(zx, single.transform_x(rbf(Xn, X)), atol=1e-10)
        np.testing.assert_allclose(zy, single.transform_y(rbf(Yn, Y)), atol=1e-10)
        materialised = grid.model(kappa, 5)
        np.testing.assert_allclose(materialised.transform_x(rbf(Xn, X)), zx, atol=1e-10)


def test_rescale_trace_is_kappa_times_trace():
    X, Y = paired(120, 15)
    Kx, Ky = 2.0 * rbf(X), rbf(Y)
    a = KCCA(kappa=1e-3, n_components=4, precision=0, rescale="trace").fit(Kx, Ky)
    lam, _, _ = exact_eq3(Kx / np.trace(Kx), Ky / np.trace(Ky), 1e-3)
    np.testing.assert_allclose(a.correlations_, lam[:4], atol=1e-9)


# ---------------------------------------------------------------------- backends


def test_array_api_strict_backend_same_numbers():
    X, Y = paired(100, 16)
    Xn = paired(10, 17)[0]
    a = KCCA(kappa=0.5, n_components=5, diag_y=2.0, backend="array_api_strict").fit(rbf(X), rbf(Y))
    b = KCCA(kappa=0.5, n_components=5, diag_y=2.0).fit(rbf(X), rbf(Y))
    za = a.transform_x(rbf(Xn, X))
    assert type(za).__module__.startswith("array_api_strict")
    np.testing.assert_allclose(a.correlations_, b.correlations_, atol=1e-12)
    np.testing.assert_allclose(to_numpy(za), b.transform_x(rbf(Xn, X)), atol=1e-10)
    g = KCCAGrid(kappas=(0.5,), n_components=[5], diag_y=2.0,
                 backend="array_api_strict").fit(rbf(X), rbf(Y))
    np.testing.assert_allclose(to_numpy(g.transform_x(rbf(Xn, X))[0]), to_numpy(za), atol=1e-10)


@pytest.mark.parametrize("factorisation", ["eigen", "cholesky"])
def test_directions_do_not_depend_on_the_eigensolvers_sign_choices(monkeypatch, factorisation):
    """LAPACK and cuSOLVER return eigenvectors with different signs: an eigensolver that flips
    half the columns (as another backend may) gives the same directions and projections."""
    import array_api_compat.numpy as xp_numpy

    X, Y = paired(120, 21)
    ref = KCCAGrid(kappas=(0.5,), n_components=[8], factorisation=factorisation).fit(rbf(X), rbf(Y))
    eigh = xp_numpy.linalg.eigh

    def flipping_eigh(a):
        w, V = eigh(a)
        return w, V * np.where(np.arange(V.shape[1]) % 2 == 0, -1.0, 1.0)

    monkeypatch.setattr(xp_numpy.linalg, "eigh", flipping_eigh)
    got = KCCAGrid(kappas=(0.5,), n_components=[8], factorisation=factorisation).fit(rbf(X), rbf(Y))
    np.testing.assert_allclose(got.correlations_, ref.correlations_, atol=1e-12)
    for view, K in (("x", rbf(X)), ("y", rbf(Y))):
        a = getattr(got, f"transform_{view}")(K)[0]
        b = getattr(ref, f"transform_{view}")(K)[0]
        np.testing.assert_allclose(a, b, atol=1e-9)


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_available(), reason="needs cupy and a CUDA device")
def test_cupy_backend_same_numbers():
    X, Y = paired(300, 18)
    a = KCCA(kappa=0.5, n_components=10, backend="cupy").fit(rbf(X), rbf(Y))
    b = KCCA(kappa=0.5, n_components=10).fit(rbf(X), rbf(Y))
    np.testing.assert_allclose(a.correlations_, b.correlations_, atol=1e-8)
    np.testing.assert_allclose(to_numpy(a.transform_x(rbf(X))), b.transform_x(rbf(X)), atol=1e-6)


# ---------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "Kx, Ky, kwargs, message",
    [
        (np.eye(4), np.eye(5), {}, "Kx has n=4, Ky has n=5"),
        (np.ones((4, 3)), np.eye(4), {}, "Kx must be a square"),
        (np.eye(4), np.where(np.eye(4) > 0, np.nan, 0.0), {}, "Ky has a non-finite"),
        (np.eye(4), np.eye(4) + np.triu(np.ones((4, 4)), 1) * 0.1, {}, "Ky is not symmetric"),
        (np.eye(4), np.eye(4), {"kappa": 0.0}, "kappa must be a finite number > 0, got 0.0"),
        (np.eye(4), np.eye(4), {"kappa": -1}, "kappa"),
        (np.eye(4), np.eye(4), {"n_components": 9}, "n_components=9 exceeds the rank"),
        (np.eye(4), np.eye(4), {"diag_x": 2.0, "diag_y": 2.0}, "only one view"),
        (np.eye(4), np.eye(4), {"power_x": 0}, "power_x"),
        (np.eye(4), np.eye(4), {"diag_y": 0.5}, "diag_y"),
    ],
)
def test_bad_input_raises_naming_argument(Kx, Ky, kwargs, message):
    params = {"n_components": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        KCCA(**params).fit(Kx, Ky)


def test_bad_new_blocks_raise():
    X, Y = paired(50, 19)
    m = KCCA(kappa=0.5, n_components=2).fit(rbf(X), rbf(Y))
    with pytest.raises(ValueError, match="Kx_new must be a"):
        m.transform_x(np.ones((3, 49)))
    with pytest.raises(ValueError, match="Ky_new has a non-finite"):
        m.transform_y(np.full((3, 50), np.inf))
    with pytest.raises(NotFittedError, match="not fitted"):
        KCCA().transform_x(np.ones((3, 50)))


@pytest.mark.parametrize("factorisation", ["eigen", "cholesky"])
def test_fractional_power_of_a_signed_kernel_is_refused_naming_the_entry(factorisation):
    X, Y = paired(40, 21)
    Kx = X @ X.T  # a linear kernel: PSD with negative entries (as Fisher-vector kernels)
    with pytest.raises(ValueError, match=r"Kx has a negative entry .* power 1.5 .* integer power"):
        KCCA(n_components=2, power_x=1.5, factorisation=factorisation).fit(Kx, rbf(Y))
    m = KCCA(n_components=2, power_x=1.5).fit(rbf(X), rbf(Y))  # nonnegative: fine
    assert np.isfinite(m.x_weights_).all()
    with pytest.raises(ValueError, match=r"Kx_new has a negative entry -0.5 at index \(0, 2\)"):
        m.transform_x(np.where(np.arange(40) == 2, -0.5, 0.3)[None, :].repeat(3, 0))
    # integer powers stay allowed (the paper's p = 2, 3)
    assert np.isfinite(KCCA(n_components=2, power_x=2).fit(Kx, rbf(Y)).x_weights_).all()


def test_rank_deficient_kernels_give_finite_answers():
    rng = np.random.default_rng(20)
    X = rng.normal(size=(100, 3))
    K = X @ X.T  # rank 3: no jitter, the factorisation stops at the rank
    m = KCCA(kappa=0.1, n_components=3).fit(K, K)
    assert m.rank_x_ == 3
    # identical views: eq. 3 gives lambda = s / (s + kappa) for each centred eigenvalue s
    Kc = K - K.mean(0) - K.mean(1, keepdims=True) + K.mean()
    s = np.sort(np.linalg.eigvalsh(Kc))[::-1][:3]
    np.testing.assert_allclose(m.correlations_, s / (s + 0.1), atol=1e-10)
    assert np.isfinite(m.transform_x(K)).all()


# ---------------------------------------------------------------------- shared factors


def _grid_arrays(grid: KCCAGrid, Kxn: np.ndarray, Kyn: np.ndarray) -> list[np.ndarray]:
    zx, zy = grid.transform_x(Kxn), grid.transform_y(Kyn)
    return [grid.correlations_, *map(to_numpy, zx), *map(to_numpy, zy)]


@pytest.mark.slow
@pytest.mark.parametrize("image_diag", ["unit", "varying"])
def test_factor_cache_gives_identical_numbers_and_one_factor_per_p(image_diag):
    from kcca._solver import FactorCache

    X, Y = paired(120, 21)
    Xn, Yn = paired(15, 22)
    Kx, Ky = rbf(X), rbf(Y)  # text kernel: constant (unit) diagonal, d in closed form
    Kxn = rbf(Xn, X)
    if image_diag == "varying":  # a non-constant image diagonal
        w = np.linspace(0.5, 1.5, len(X))
        Kx = Kx * np.sqrt(w)[:, None] * np.sqrt(w)[None, :]
        Kxn = Kxn * np.sqrt(w)[None, :]
    Kyn = rbf(Yn, Y)
    params = dict(kappas=(0.1, 0.5, 1.0, 5.0), n_components=[1, 3, 10, 40])
    cache = FactorCache()
    combos = [(p, d) for p in (2, 3) for d in (1, 2, 5)]
    for p, d in combos:
        fresh = KCCAGrid(power_x=p, diag_y=d, **params).fit(Kx, Ky)
        shared = KCCAGrid(power_x=p, diag_y=d, factor_cache=cache, **params).fit(Kx, Ky)
        assert shared.n_components_.tolist() == fresh.n_components_.tolist()
        for a, b in zip(_grid_arrays(fresh, Kxn, Kyn), _grid_arrays(shared, Kxn, Kyn)):
            np.testing.assert_array_equal(a, b)  # bit for bit
        assert shared.core_.p.rank == fresh.core_.p.rank
        assert shared.core_.q.trace == fresh.core_.q.trace
    # one image factor per p, one text factor for every d
    assert cache.misses == 3 and cache.hits == 2 * len(combos) - 3


def test_persisted_factors_are_loaded_by_another_process_cache(tmp_path):
    """A persisted kernel's factors go to the disk cache once; a fresh FactorCache (another
    worker, a later run) given the same name loads them: same numbers bit for bit."""
    from kcca._cache import Cache
    from kcca._solver import FactorCache
    from kcca._systems.blocks import FACTOR_STAGE, factor_store

    X, Y = paired(80, 31)
    Kx, Ky = rbf(X), rbf(Y)
    Kxn, Kyn = rbf(paired(10, 32)[0], X), rbf(paired(10, 32)[1], Y)
    params = dict(kappas=(0.1, 1.0), n_components=[2, 5, 20], power_x=2)
    store = Cache(tmp_path)

    def fit(cache):
        return KCCAGrid(factor_cache=cache, **params).fit(Kx, Ky)

    first = FactorCache()
    first.persist(Kx, factor_store(store, {"kernel": "image-gram-1"}))
    reference = _grid_arrays(fit(first), Kxn, Kyn)
    assert store.stats[FACTOR_STAGE] == {"computed": 1, "loaded": 0}  # Kx only: Ky not named
    second = FactorCache()
    second.persist(Kx, factor_store(store, {"kernel": "image-gram-1"}))
    for a, b in zip(reference, _grid_arrays(fit(second), Kxn, Kyn)):
        np.testing.assert_array_equal(a, b)
    assert store.stats[FACTOR_STAGE] == {"computed": 1, "loaded": 1}
    # another p, another name or no store: factorised, never confused with the stored one
    KCCAGrid(factor_cache=second, **{**params, "power_x": 3}).fit(Kx, Ky)
    third = FactorCache()
    third.persist(Kx, factor_store(store, {"kernel": "image-gram-2"}))
    fit(third)
    assert store.stats[FACTOR_STAGE] == {"computed": 3, "loaded": 1}
    quiet = FactorCache()
    quiet.persist(Kx, factor_store(Cache(None), {"kernel": "image-gram-1"}))  # disabled: ignored
    fit(quiet)
    assert store.stats[FACTOR_STAGE]["loaded"] == 1


def test_prefactor_is_the_factor_a_fit_uses():
    from kcca._solver import FactorCache

    X, Y = paired(60, 33)
    Kx, Ky = rbf(X), rbf(Y)
    cache = FactorCache()
    cache.prefactor(Kx, view="Kx", power=2)
    assert cache.misses == 1
    shared = KCCAGrid(kappas=(0.5,), n_components=[3], power_x=2, factor_cache=cache).fit(Kx, Ky)
    assert cache.misses == 2 and cache.hits == 1  # Ky factorised, Kx taken from prefactor
    fresh = KCCAGrid(kappas=(0.5,), n_components=[3], power_x=2).fit(Kx, Ky)
    np.testing.assert_array_equal(shared.correlations_, fresh.correlations_)
    with pytest.raises(ValueError, match="view"):
        cache.prefactor(Kx, view="image")


def test_factor_cache_lru_bound_and_separate_kernels():
    from kcca._solver import FactorCache

    X, Y = paired(60, 23)
    Kx, Ky = rbf(X), rbf(Y)
    cache = FactorCache(max_sides=2, max_pairs=1)
    for p in (2, 3):
        for d in (1, 4):
            KCCAGrid(kappas=(0.5,), n_components=[2], power_x=p, diag_y=d,
                     factor_cache=cache).fit(Kx, Ky)
    assert cache.misses == 3 and len(cache) == 2
    # a different kernel object (same values) is a different entry, never confused
    KCCAGrid(kappas=(0.5,), n_components=[2], power_x=3, factor_cache=cache).fit(Kx.copy(), Ky)
    assert cache.misses == 4
    # a diagonal scale on a kernel with a varying diagonal is factorised, not shared
    w = np.linspace(0.5, 1.5, len(X))
    Kyv = Ky * np.sqrt(w)[:, None] * np.sqrt(w)[None, :]
    before = cache.misses
    a = KCCAGrid(kappas=(0.5,), n_components=[2], diag_y=3, factor_cache=cache).fit(Kx, Kyv)
    b = KCCAGrid(kappas=(0.5,), n_components=[2], diag_y=3).fit(Kx, Kyv)
    np.testing.assert_array_equal(a.correlations_, b.correlations_)
    c = KCCAGrid(kappas=(0.5,), n_components=[2], diag_y=2, factor_cache=cache).fit(Kx, Kyv)
    d = KCCAGrid(kappas=(0.5,), n_components=[2], diag_y=2).fit(Kx, Kyv)
    np.testing.assert_array_equal(c.correlations_, d.correlations_)
    assert cache.misses == before + 3  # Kx (p = 1) once, Kyv once per d
    cache.clear()
    assert len(cache) == 0
    with pytest.raises(ValueError, match="max_sides"):
        FactorCache(max_sides=0)
