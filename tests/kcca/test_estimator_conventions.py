"""KCCA and KCCAGrid follow scikit-learn's estimator conventions on two kernels.

scikit-learn's own ``check_estimator`` checks that apply run in ``tests/test_conformance.py``:
on the estimators themselves (the checks that do not fit) and through a one-kernel adapter
(those that fit on one matrix ``X``). Here, the same conventions where ``fit`` takes its two
train x train kernels ``Kx`` and ``Ky``: only trailing-underscore attributes set by ``fit``,
``NotFittedError`` from every method before ``fit``, clone and ``repr``, determinism, pickling
and joblib with the backend's arrays, ``transform`` / ``fit_transform`` / ``score`` of either
view, and the grid's per-kappa projections.
"""

from __future__ import annotations

import pickle

import joblib
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

import kcca
from kcca._lowrank import CallableColumns
from kcca._solver import KCCA, FactorCache, KCCAGrid
from tests.support.rbf_kernel import rbf


def correlated(n: int, seed: int, noise: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """Two views sharing a 2-d latent signal, each with its own nuisance dimensions."""
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(n, 2))
    X = np.c_[L, rng.normal(size=(n, 3))]
    Y = np.c_[L + noise * rng.normal(size=(n, 2)), rng.normal(size=(n, 2))]
    return X, Y


def split_kernels(X: np.ndarray, Y: np.ndarray, n_train: int):
    """Train x train kernels and test-by-train blocks of both views."""
    Xtr, Xte, Ytr, Yte = X[:n_train], X[n_train:], Y[:n_train], Y[n_train:]
    g = 0.2
    return rbf(Xtr, gamma=g), rbf(Ytr, gamma=g), rbf(Xte, Xtr, gamma=g), rbf(Yte, Ytr, gamma=g)


@pytest.fixture(scope="module")
def problem():
    X, Y = correlated(260, seed=0)
    return split_kernels(X, Y, 100)  # 100 training pairs, 160 held-out pairs


def kcca_model(**kw) -> KCCA:
    return KCCA(**{"kappa": 0.5, "n_components": 3, **kw})


def grid_model(**kw) -> KCCAGrid:
    return KCCAGrid(**{"kappas": [0.1, 1.0], "n_components": [1, 3], **kw})


ESTIMATORS = [kcca_model, grid_model]
IDS = ["KCCA", "KCCAGrid"]


def fitted_arrays(est, Kx_te, Ky_te) -> list[np.ndarray]:
    """Everything a fitted estimator computes from test blocks, as NumPy arrays."""
    zx, zy = est.transform(Kx_te, Ky_te)
    if isinstance(est, KCCAGrid):
        out = [*zx, *zy, est.correlations_]
    else:
        out = [zx, zy, est.correlations_, est.x_weights_, est.y_weights_]
    return [np.asarray(a) for a in out]


# ------------------------------------------------------------------ parameters and fitted state

@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
def test_fit_sets_only_trailing_underscore_attributes_and_keeps_params(make, problem):
    Kx, Ky, _, _ = problem
    est = make()
    before = dict(vars(est))
    hashes = {k: joblib.hash(v) for k, v in est.get_params().items()}
    est.fit(Kx, Ky)
    added = set(vars(est)) - set(before)
    assert added and all(k.endswith("_") and not k.startswith("_") for k in added), added
    assert all(vars(est)[k] is v for k, v in before.items())
    assert {k: joblib.hash(v) for k, v in est.get_params().items()} == hashes


@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
def test_check_is_fitted_before_and_after_fit(make, problem):
    Kx, Ky, _, _ = problem
    est = make()
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
    check_is_fitted(est.fit(Kx, Ky))


@pytest.mark.parametrize("call", [
    lambda m, K: m.transform(K, K),
    lambda m, K: m.transform(K),
    lambda m, K: m.transform_x(K),
    lambda m, K: m.transform_y(K),
    lambda m, K: m.score(K, K),
], ids=["transform", "transform-x-only", "transform_x", "transform_y", "score"])
def test_kcca_methods_before_fit_raise_not_fitted(call):
    with pytest.raises(NotFittedError, match="not fitted"):
        call(kcca_model(), np.ones((3, 50)))


@pytest.mark.parametrize("call", [
    lambda g, K: g.transform(K, K),
    lambda g, K: g.transform_x(K),
    lambda g, K: g.transform_y(K),
    lambda g, K: g.projections(K, K),
    lambda g, K: g.iter_models(),
    lambda g, K: g.model(0.1, 1),
], ids=["transform", "transform_x", "transform_y", "projections", "iter_models", "model"])
def test_grid_methods_before_fit_raise_not_fitted(call):
    with pytest.raises(NotFittedError, match="not fitted"):
        call(grid_model(), np.ones((3, 50)))


@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
def test_clone_gives_same_params_unfitted(make, problem):
    Kx, Ky, _, _ = problem
    est = make(precision=1e-6, diag_y=2.0).fit(Kx, Ky)
    copy = clone(est)
    assert copy.get_params() == est.get_params()
    with pytest.raises(NotFittedError):
        check_is_fitted(copy)
    assert copy.set_params(precision=0.0) is copy and copy.precision == 0.0
    assert est.precision == 1e-6


def test_repr_shows_the_parameters_set():
    assert repr(KCCA()) == "KCCA()"
    assert repr(KCCA(kappa=0.5, n_components=3, diag_y=2.0)) == \
        "KCCA(diag_y=2.0, kappa=0.5, n_components=3)"
    assert repr(KCCAGrid(kappas=[0.1], n_components=[5])) == \
        "KCCAGrid(kappas=[0.1], n_components=[5])"


def test_kcca_transform_leaves_the_estimator_unchanged(problem):
    Kx, Ky, Kx_te, Ky_te = problem
    est = kcca_model().fit(Kx, Ky)
    before = dict(vars(est))
    est.transform(Kx_te, Ky_te)
    est.score(Kx_te, Ky_te)
    assert vars(est).keys() == before.keys()
    assert all(vars(est)[k] is v for k, v in before.items())


@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
def test_fitting_is_deterministic(make, problem):
    Kx, Ky, Kx_te, Ky_te = problem
    a = fitted_arrays(make().fit(Kx, Ky), Kx_te, Ky_te)
    b = fitted_arrays(make().fit(Kx.copy(), Ky.copy()), Kx_te.copy(), Ky_te.copy())
    assert all(np.array_equal(u, v) for u, v in zip(a, b))


def test_package_exports_the_estimators():
    assert {"KCCA", "KCCAGrid"} <= set(kcca.__all__)
    assert {"KCCA", "KCCAGrid", "__version__"} <= set(dir(kcca))
    assert kcca.KCCA is KCCA and kcca.KCCAGrid is KCCAGrid


# ------------------------------------------------------------------ pickling

@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
def test_pickle_round_trip_gives_identical_projections(make, problem):
    Kx, Ky, Kx_te, Ky_te = problem
    est = make().fit(Kx, Ky)
    expected = fitted_arrays(est, Kx_te, Ky_te)
    loaded = pickle.loads(pickle.dumps(est))
    assert type(loaded) is type(est) and loaded.get_params() == est.get_params()
    assert loaded.backend_ == est.backend_ == "numpy"
    got = fitted_arrays(loaded, Kx_te, Ky_te)
    assert all(np.array_equal(u, v) for u, v in zip(expected, got))


@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
def test_joblib_dump_and_load(make, problem, tmp_path):
    Kx, Ky, Kx_te, Ky_te = problem
    est = make().fit(Kx, Ky)
    est.transform(Kx_te, Ky_te)  # a grid's projection memo is not saved
    path = tmp_path / "model.joblib"
    joblib.dump(est, path)
    loaded = joblib.load(path)
    assert "_last_projection" not in vars(loaded)
    for u, v in zip(fitted_arrays(est, Kx_te, Ky_te), fitted_arrays(loaded, Kx_te, Ky_te)):
        assert np.array_equal(u, v)
    if isinstance(est, KCCA):
        assert loaded.score(Kx_te, Ky_te) == est.score(Kx_te, Ky_te)
    else:
        a, b = est.model(1.0, 3), loaded.model(1.0, 3)
        assert np.array_equal(a.transform_x(Kx_te), b.transform_x(Kx_te))


@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
def test_unfitted_estimator_pickles(make):
    est = make(diag_y=3.0)
    loaded = pickle.loads(pickle.dumps(est))
    assert loaded.get_params() == est.get_params()
    with pytest.raises(NotFittedError):
        check_is_fitted(loaded)


@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
def test_pickle_holds_host_arrays_and_the_backend_name(make, problem):
    """Fitted on another array backend: the pickle holds NumPy arrays and the backend's name,
    and loading puts the arrays back on that backend with the same projections."""
    strict = pytest.importorskip("array_api_strict")
    Kx, Ky, Kx_te, Ky_te = problem
    est = make(backend="array_api_strict").fit(Kx, Ky)
    data = pickle.dumps(est)
    assert b"array_api_strict._array_object" not in data
    assert b"array_api_compat" not in data
    loaded = pickle.loads(data)
    assert loaded.backend_ == "array_api_strict"
    zx = loaded.transform(Kx_te, None)[0]
    zx = zx[0] if isinstance(est, KCCAGrid) else zx
    assert zx.__array_namespace__() is strict  # not a NumPy array
    one = loaded.model(1.0, 3) if isinstance(est, KCCAGrid) else loaded
    assert isinstance(one.correlations_, np.ndarray)  # on the host, as after fit
    for u, v in zip(fitted_arrays(est, Kx_te, Ky_te), fitted_arrays(loaded, Kx_te, Ky_te)):
        assert np.array_equal(u, v)


@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
def test_model_of_a_missing_backend_loads_as_numpy(make, problem, monkeypatch):
    """A model fitted with cupy loads on a machine without a GPU: NumPy arrays, a warning."""
    import kcca._backend

    Kx, Ky, Kx_te, Ky_te = problem
    est = make().fit(Kx, Ky)
    state = est.__getstate__()
    state["backend_"] = "cupy"  # as pickled by a fit on the GPU
    monkeypatch.setattr(kcca._backend, "gpu_available", lambda: False)
    loaded = type(est).__new__(type(est))
    with pytest.warns(RuntimeWarning, match="backend 'cupy', which is not available here"):
        loaded.__setstate__(state)
    assert loaded.backend_ == "numpy"
    for u, v in zip(fitted_arrays(est, Kx_te, Ky_te), fitted_arrays(loaded, Kx_te, Ky_te)):
        assert np.array_equal(u, v)


def test_factor_cache_is_shared_by_clone_and_pickled_empty(problem):
    Kx, Ky, _, _ = problem
    cache = FactorCache(max_sides=4)
    grid = grid_model(factor_cache=cache).fit(Kx, Ky)
    assert len(cache) == 2
    assert clone(grid).factor_cache is cache
    loaded = pickle.loads(pickle.dumps(grid))
    assert len(loaded.factor_cache) == 0 and loaded.factor_cache.max_sides == 4
    assert np.array_equal(loaded.correlations_, grid.correlations_)


# ------------------------------------------------------------------ transform, fit_transform, score

def same_up_to_blas(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal but for the last bits: BLAS may block a product of 7 rows differently from one of
    160 (OpenBLAS on AVX-512 does), so a row's projection is not bitwise stable across shapes."""
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-10, atol=1e-13)


def test_transform_returns_both_views_or_the_one_given(problem):
    Kx, Ky, Kx_te, Ky_te = problem
    est = kcca_model().fit(Kx, Ky)
    zx, zy = est.transform(Kx_te, Ky_te)
    assert zx.shape == zy.shape == (Kx_te.shape[0], 3)
    assert np.array_equal(zx, est.transform_x(Kx_te)) and np.array_equal(zy, est.transform_y(Ky_te))
    only_x, none_y = est.transform(Kx_te[:7])
    assert none_y is None and same_up_to_blas(only_x, zx[:7])
    none_x, only_y = est.transform(None, Ky_te[:5])
    assert none_x is None and same_up_to_blas(only_y, zy[:5])
    with pytest.raises(ValueError, match="at least one view"):
        est.transform(None, None)


@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
def test_fit_transform_equals_fit_then_transform(make, problem):
    Kx, Ky, _, _ = problem
    zx, zy = make(diag_y=2.0).fit_transform(Kx, Ky)
    ex, ey = make(diag_y=2.0).fit(Kx, Ky).transform(Kx, Ky)
    if isinstance(zx, list):
        assert len(zx) == len(ex) == 2
        zx, zy, ex, ey = np.hstack(zx), np.hstack(zy), np.hstack(ex), np.hstack(ey)
    assert np.array_equal(zx, ex) and np.array_equal(zy, ey)


def test_fit_transform_of_column_sources_projects_the_training_kernels(problem):
    Kx, Ky, _, _ = problem
    sx = CallableColumns(lambda i: Kx[:, i], np.diagonal(Kx), "Kx")
    sy = CallableColumns(lambda i: Ky[:, i], np.diagonal(Ky), "Ky")
    est = kcca_model(precision=1e-8)
    zx, zy = est.fit_transform(sx, sy)
    ex, ey = est.transform(Kx, Ky)
    assert same_up_to_blas(zx, ex) and same_up_to_blas(zy, ey)


def test_score_is_the_mean_held_out_canonical_correlation(problem):
    Kx, Ky, Kx_te, Ky_te = problem
    est = kcca_model().fit(Kx, Ky)
    zx, zy = est.transform(Kx_te, Ky_te)
    per_component = [np.corrcoef(zx[:, j], zy[:, j])[0, 1] for j in range(3)]
    assert est.score(Kx_te, Ky_te) == pytest.approx(np.mean(per_component), abs=1e-12)


def test_score_is_high_on_correlated_views_and_near_zero_on_independent_ones(problem):
    Kx, Ky, Kx_te, Ky_te = problem
    assert kcca_model().fit(Kx, Ky).score(Kx_te, Ky_te) > 0.5
    rng = np.random.default_rng(7)
    X = correlated(260, seed=0)[0]
    Z = rng.normal(size=(260, 4))  # a view independent of X
    Kx, Kz, Kx_te, Kz_te = split_kernels(X, Z, 100)
    assert abs(kcca_model().fit(Kx, Kz).score(Kx_te, Kz_te)) < 0.2


def test_score_refuses_unpaired_or_missing_views(problem):
    Kx, Ky, Kx_te, Ky_te = problem
    est = kcca_model().fit(Kx, Ky)
    with pytest.raises(ValueError, match="paired"):
        est.score(Kx_te, Ky_te[:-1])
    with pytest.raises(ValueError, match="both views"):
        est.score(Kx_te, None)
    with pytest.raises(ValueError, match="at least 2"):
        est.score(Kx_te[:1], Ky_te[:1])


def test_grid_transform_is_per_kappa_and_matches_its_models(problem):
    Kx, Ky, Kx_te, Ky_te = problem
    grid = grid_model().fit(Kx, Ky)
    zx, zy = grid.transform(Kx_te, Ky_te)
    assert len(zx) == len(zy) == 2
    one = grid.model(1.0, 3)
    mx, my = one.transform(Kx_te, Ky_te)
    np.testing.assert_allclose(zx[1][:, :3], mx, atol=1e-10)
    np.testing.assert_allclose(zy[1][:, :3], my, atol=1e-10)
    assert grid.transform(None, Ky_te)[0] is None


def test_grid_refit_forgets_the_projections_of_the_previous_fit(problem):
    Kx, Ky, Kx_te, _ = problem
    grid = grid_model().fit(Kx, Ky)
    grid.transform_x(Kx_te)  # remembered for this block
    refit = grid.set_params(kappas=[5.0]).fit(Kx, Ky)
    fresh = grid_model(kappas=[5.0]).fit(Kx, Ky)
    assert len(refit.transform_x(Kx_te)) == 1
    assert np.array_equal(refit.transform_x(Kx_te)[0], fresh.transform_x(Kx_te)[0])
