"""Kernel matrices of every kind the Python API is handed: what converts exactly to float64 is
fitted as its float64 copy (bit for bit), what cannot is a ``KernelError`` naming the view.

Both estimators (``KCCA``, ``KCCAGrid``), both views (``Kx``, ``Ky``) and the new-by-train
blocks of ``transform`` go through the same conversion (``kcca._lowrank.as_kernel_array``):
float16 / float32, bool, integers, complex with a zero imaginary part, scipy.sparse, nested
lists and object arrays of numbers convert; a nonzero imaginary part, strings, None, ragged
lists and integers beyond 2**53 are refused, and so is a kernel whose scale is outside
``KERNEL_SCALE_RANGE`` (the solve would overflow or underflow into a model projecting to 0).
"""

from __future__ import annotations

import decimal

import numpy as np
import pytest
import scipy.sparse as sp

from features.kernels._image import HistogramKernel
from kcca.errors import DataError, KernelError
from kcca._lowrank import KERNEL_SCALE_RANGE
from kcca._solver import KCCA, KCCAGrid

ESTIMATORS = [
    lambda **kw: KCCA(kappa=0.5, n_components=2, **kw),
    lambda **kw: KCCAGrid(kappas=[0.1, 1.0], n_components=[1, 2], **kw),
]
EST_IDS = ["KCCA", "KCCAGrid"]


def kernels(n: int = 40, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two correlated linear kernels with small integer entries (exact in float16)."""
    rng = np.random.default_rng(seed)
    L = rng.integers(0, 3, size=(n, 2))
    X = np.c_[L, rng.integers(0, 3, size=(n, 3))]
    Y = np.c_[L + rng.integers(0, 2, size=(n, 2)), rng.integers(0, 3, size=(n, 2))]
    return (X @ X.T).astype(float), (Y @ Y.T).astype(float)


def results(est, Kx_new, Ky_new, weights: bool = True) -> list[np.ndarray]:
    """Everything a fitted estimator computes (the weights of a KCCA unless ``weights`` is
    False), as NumPy arrays."""
    zx, zy = est.transform(Kx_new, Ky_new)
    if isinstance(est, KCCAGrid):
        return [np.asarray(z) for z in (*zx, *zy, est.correlations_)]
    out = [zx, zy, est.correlations_]
    if weights:
        out += [est.x_weights_, est.y_weights_]
    return [np.asarray(a) for a in out]


def assert_same(a: list[np.ndarray], b: list[np.ndarray]) -> None:
    assert len(a) == len(b)
    for u, v in zip(a, b):
        assert u.dtype == v.dtype == np.float64
        np.testing.assert_array_equal(u, v)


def fit_both_ways(make, convert, Kx, Ky, **kw):
    """Results of a fit on ``convert``-ed kernels and blocks, and on the float64 originals."""
    got = results(make(**kw).fit(convert(Kx), convert(Ky)), convert(Kx[:6]), convert(Ky[:6]))
    want = results(make(**kw).fit(Kx, Ky), Kx[:6], Ky[:6])
    return got, want


def refused(call, argument: str) -> KernelError:
    with pytest.raises(DataError) as err:
        call()
    assert type(err.value) is KernelError, repr(err.value)
    assert str(err.value).startswith(argument), str(err.value)
    assert err.value.fix
    return err.value


# ----------------------------------------------------------------------- exact conversions
@pytest.mark.filterwarnings("error")  # no ComplexWarning: nothing is dropped
@pytest.mark.parametrize("make", ESTIMATORS, ids=EST_IDS)
def test_complex_kernel_with_zero_imaginary_part_is_fitted_as_its_real_part(make):
    Kx, Ky = kernels()
    for dtype in (np.complex128, np.complex64):
        got, want = fit_both_ways(make, lambda K: K.astype(dtype), Kx, Ky)
        assert_same(got, want)


@pytest.mark.parametrize("make", ESTIMATORS, ids=EST_IDS)
def test_bool_and_integer_kernels_are_fitted_as_their_float64_copy(make):
    Kx, Ky = kernels()
    for dtype in (np.int8, np.uint16, np.int64):
        got, want = fit_both_ways(make, lambda K: K.astype(dtype), Kx, Ky)
        assert_same(got, want)
    # a same-class indicator (one-hot classes Z: Z Z') is a PSD kernel; bool means 0 / 1
    classes = np.arange(40) % 4
    same = classes[:, None] == classes[None, :]
    est = make().fit(same, Ky)
    assert_same(results(est, same[:6], Ky[:6]),
                results(make().fit(same.astype(float), Ky), same[:6].astype(float), Ky[:6]))


@pytest.mark.parametrize("make", ESTIMATORS, ids=EST_IDS)
def test_float16_and_float32_kernels_are_fitted_as_their_float64_copy(make):
    Kx, Ky = kernels()  # small integers: exact in float16
    for dtype in (np.float16, np.float32):
        got, want = fit_both_ways(make, lambda K: K.astype(dtype), Kx, Ky)
        assert_same(got, want)
    # rounding an RBF kernel to float16 makes it indefinite: refused as its float64 copy is,
    # with the float16 rounding named
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3))
    rbf16 = np.exp(-0.2 * ((X[:, None] - X[None]) ** 2).sum(-1)).astype(np.float16)
    Ky = X @ X.T
    copy = refused(lambda: make().fit(rbf16.astype(np.float64), Ky), "Kx is not positive")
    error = refused(lambda: make().fit(rbf16, Ky), "Kx is not positive")
    assert str(error).startswith(str(copy)), (str(error), str(copy))
    assert "given as float16" in str(error) and "float16" not in str(copy)
    assert "float64" in error.fix and "indefinite='psd-part'" in error.fix
    # the positive part of the float16 kernel is the float64 copy's
    assert_same(results(make(indefinite="psd-part").fit(rbf16, Ky), rbf16[:6], Ky[:6]),
                results(make(indefinite="psd-part").fit(rbf16.astype(float), Ky),
                        rbf16[:6].astype(float), Ky[:6]))


@pytest.mark.parametrize("make", ESTIMATORS, ids=EST_IDS)
def test_sparse_kernels_are_fitted_as_their_dense_copy(make):
    Kx, Ky = kernels()
    for convert in (sp.csr_matrix, sp.csc_array, lambda K: sp.coo_matrix(K.astype(np.int32))):
        got, want = fit_both_ways(make, convert, Kx, Ky)
        assert_same(got, want)


@pytest.mark.parametrize("make", ESTIMATORS, ids=EST_IDS)
def test_nested_lists_and_object_arrays_of_numbers_are_fitted_as_float64(make):
    Kx, Ky = kernels()
    got, want = fit_both_ways(make, lambda K: K.tolist(), Kx, Ky)
    assert_same(got, want)
    got, want = fit_both_ways(make, lambda K: K.astype(object), Kx, Ky)
    assert_same(got, want)

    def mixed(K):  # Python ints, NumPy float32 and int16 scalars, Python floats
        out = K.astype(int).astype(object)
        out[::3] = [[np.float32(v) for v in row] for row in K[::3]]
        out[1::3] = [[np.int16(v) for v in row] for row in K[1::3]]
        return out

    got, want = fit_both_ways(make, mixed, Kx, Ky)
    assert_same(got, want)


def test_new_blocks_of_another_backend_are_converted_the_same_way():
    array_api_strict = pytest.importorskip("array_api_strict")
    Kx, Ky = kernels()
    est = KCCA(kappa=0.5, n_components=2, backend="array_api_strict").fit(Kx, Ky)
    want = np.asarray(est.transform_x(array_api_strict.asarray(Kx[:6])))
    for block in (Kx[:6].astype(np.float32), Kx[:6].astype(np.int64), Kx[:6] + 0j):
        got = est.transform_x(array_api_strict.asarray(block))
        np.testing.assert_array_equal(np.asarray(got), want)
    bad = Kx[:6] + 0j
    bad[2, 5] += 0.5j
    error = refused(lambda: est.transform_x(array_api_strict.asarray(bad)), "Kx_new is complex")
    assert "(2, 5)" in str(error)


# ----------------------------------------------------------------------- refusals
@pytest.mark.parametrize("make", ESTIMATORS, ids=EST_IDS)
@pytest.mark.parametrize("view", ["Kx", "Ky"])
def test_complex_kernel_with_an_imaginary_part_is_refused_naming_the_view(make, view):
    Kx, Ky = kernels()
    for sign in (1, -1):  # a symmetric imaginary part, and a Hermitian one
        bad = (Kx if view == "Kx" else Ky) + 0j
        bad[3, 7] += 1e-3j
        bad[7, 3] += sign * 1e-3j
        args = (bad, Ky) if view == "Kx" else (Kx, bad)
        error = refused(lambda: make().fit(*args), f"{view} is complex with a nonzero imaginary")
        assert "0.001 at index (3, 7)" in str(error) and "K.real" in error.fix
    est = make().fit(Kx, Ky)
    call = est.transform_x if view == "Kx" else est.transform_y
    refused(lambda: call(bad[:6]), f"{view}_new is complex")


@pytest.mark.parametrize("make", ESTIMATORS, ids=EST_IDS)
@pytest.mark.parametrize("view", ["Kx", "Ky"])
def test_kernel_scale_outside_the_range_is_refused_and_at_its_edges_eq3_is_unchanged(make, view):
    """At 1e300 the old solve's ``s (s + kappa)`` overflowed and at 1e-300 its projection
    norms underflowed: "fitted" models whose projections were all 0."""
    Kx, Ky = kernels()
    Kx, Ky = Kx / Kx.diagonal().max(), Ky / Ky.diagonal().max()  # largest diagonal entry 1
    low, high = KERNEL_SCALE_RANGE
    assert (low, high) == (1e-100, 1e100)

    def scaled(c):
        return (Kx * c, Ky) if view == "Kx" else (Kx, Ky * c)

    for c in (1e300, 1e120, 1e-120, 1e-300):
        error = refused(lambda: make().fit(*scaled(c)), f"{view} is out of scale")
        assert f"largest diagonal entry is {c:.3g}" in str(error), str(error)
        assert "[1e-100, 1e+100]" in str(error)
        assert "divide it by its largest diagonal entry" in error.fix and "kappa" in error.fix
    # the power is part of the kernel as used: (1e60) ** 2 = 1e120
    refused(lambda: make(**{f"power_{view[1]}": 2}).fit(*scaled(1e60)), f"{view} ** 2 is out")
    # inside the range (rescale="trace" divides kappa by the same factor) the correlations and
    # projections do not change (the dual weights scale by 1 / c)
    want = results(make(rescale="trace").fit(Kx, Ky), Kx[:6], Ky[:6], weights=False)
    for c in (high, low):
        Kx_c, Ky_c = scaled(c)
        got = results(make(rescale="trace").fit(Kx_c, Ky_c), Kx_c[:6], Ky_c[:6], weights=False)
        for u, v in zip(got, want):
            np.testing.assert_allclose(u, v, rtol=0, atol=1e-12)


#: (what is passed, the start of the message)
NOT_NUMBERS = [
    (None, "is None"),
    (lambda K: K.astype(str), "holds strings (dtype <U"),
    (lambda K: K.astype(str).tolist(), "holds strings"),
    (lambda K: [row[: 1 + i % 3] for i, row in enumerate(K.tolist())],
     "is not a rectangular array of numbers"),
    (lambda K: np.where(np.eye(len(K), dtype=bool), None, K.astype(object)),
     "holds None (NoneType, not a number) at index (0, 0)"),
    (lambda K: np.where(np.eye(len(K), dtype=bool), decimal.Decimal("0.1"), K.astype(object)),
     "holds Decimal('0.1') (Decimal, not a number)"),
    (lambda K: np.where(np.eye(len(K), dtype=bool), 2**53 + 1, K.astype(object)),
     "holds 9007199254740993 (int, not exact in float64)"),
    (lambda K: np.where(np.eye(len(K), dtype=bool), 2**53 + 1, K.astype(np.int64)),
     "has integer entries beyond 2**53"),
    (lambda K: K.astype(np.int64).astype("datetime64[s]"), "holds dates"),
]


@pytest.mark.parametrize("convert, message", NOT_NUMBERS,
                         ids=["None", "str-array", "str-lists", "ragged", "object-None",
                              "object-Decimal", "object-big-int", "int64-big", "datetime"])
@pytest.mark.parametrize("make", ESTIMATORS, ids=EST_IDS)
def test_what_is_not_an_array_of_numbers_is_refused_naming_the_view(make, convert, message):
    Kx, Ky = kernels()

    def bad(K):
        return None if convert is None else convert(K)

    refused(lambda: make().fit(bad(Kx), Ky), f"Kx {message}")
    refused(lambda: make().fit(Kx, bad(Ky)), f"Ky {message}")
    est = make().fit(Kx, Ky)
    if convert is not None:  # transform(None) is "view not given"
        refused(lambda: est.transform_x(bad(Kx)[:6]), f"Kx_new {message}")
        refused(lambda: est.transform_y(bad(Ky)[:6]), f"Ky_new {message}")


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.parametrize("make", ESTIMATORS, ids=EST_IDS)
def test_new_block_whose_power_overflows_is_refused_naming_the_view(make):
    Kx, Ky = kernels()
    est = make(power_x=3).fit(Kx, Ky)
    error = refused(lambda: est.transform_x(Kx[:6] * 1e120), "Kx_new ** 3 has a non-finite")
    assert "normalise" in error.fix


# ----------------------------------------------------------------------- scikit-learn's words
@pytest.mark.parametrize("make", ESTIMATORS, ids=EST_IDS)
def test_refusals_carry_the_words_scikit_learn_checks_look_for(make):
    """The project's message, with the fragment scikit-learn's estimator checks match
    (tests/test_conformance.py): complex data, one sample, one item's row given 1-D."""
    Kx, Ky = kernels()
    bad = Kx + 0j
    bad[3, 7] += 1e-3j
    with pytest.raises(KernelError, match=r"^Kx is complex .*Complex data not supported"):
        make().fit(bad, Ky)
    with pytest.raises(ValueError, match=r"^Kx needs at least 2 training items, got 1 sample"):
        make().fit(Kx[:1, :1], Ky[:1, :1])
    est = make().fit(Kx, Ky)
    with pytest.raises(ValueError, match=r"^Kx_new must be .* got shape \(40,\); Reshape your "):
        est.transform_x(Kx[0])
    with pytest.raises(ValueError, match=r"got shape \(6, 39\)$"):  # 2-D: no reshape hint
        est.transform_x(Kx[:6, :39])


def test_histogram_refusals_carry_the_words_scikit_learn_checks_look_for():
    kernel = HistogramKernel()
    with pytest.raises(ValueError, match=r"^a must be a 2-D .* got shape \(3,\); Reshape your "):
        kernel.gram_matrix(np.ones(3))
    with pytest.raises(ValueError, match=r"^a contains non-finite values \(NaN or inf\)"):
        kernel.gram_matrix(np.array([[1.0, np.inf]]))
    with pytest.raises(ValueError, match=r"^a has negative entries: Negative values in data"):
        kernel.gram_matrix(np.array([[1.0, -1.0]]))
