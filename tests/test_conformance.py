"""scikit-learn's ``check_estimator`` checks over both KCCA estimators and every registered
kernel (built-in, ``nn-f1`` and plug-ins found through entry points): for each subject the
checks that apply, selected by name, as cca-zoo's ``test_sklearn_compat.py`` selects its own.
Each runs and passes, or is an expected failure naming the exception it raises and why
(strict: an expected failure that passes fails).

Most checks fit on one feature matrix ``X`` (and a target ``y``), so each subject runs twice:

* as it is (``KCCA``, ``KCCAGrid``, each kernel class): the checks that do not fit (clone,
  ``repr``, ``get_params`` / ``set_params``, nothing set in ``__init__``, tags, ``transform``
  before ``fit`` refused, a non-square or 1-D ``X`` refused); those that fit are left out,
  each family with its reason in :data:`LEFT_OUT`: ``fit`` takes two train x train kernels (the
  estimators) or the kernel's items (token lists, image records);
* through an adapter that gives it one input: :class:`OneKernel` (a precomputed kernel ``X``
  as view x, ``X ** 2`` as view y; the ``pairwise`` tag makes the checks pass kernels) and
  :class:`Histograms` (the image kernels' intersection on rows of ``X`` as weighted
  histograms, their input before items are made into it), on NumPy and on
  ``array_api_strict``. Here every check runs; only what follows from what KCCA is may fail.

Also here: the unfitted pickle round trip, the kernel contract's declared parameters
(``execution_params``, ``run_inputs``) and that the subjects are the registry of a fresh
process (a kernel registered by a test module at import would make the items depend on which
files were collected). Fitted behaviour on two kernels is checked in
``tests/kcca/test_estimator_conventions.py``, the kernels' numbers in ``tests/features/``.
"""

from __future__ import annotations

import pickle
import re
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import estimator_checks_generator
from sklearn.utils.validation import check_is_fitted

from features.kernels._base import available_kernels, kernel_class, numeric_params
from features.kernels._image import HistogramKernel, PyramidKernel
from kcca._backend import to_numpy
from kcca.errors import DataError, KernelError
from kcca._solver import KCCA, KCCAGrid

ROOT = Path(__file__).resolve().parents[1]


def _subjects() -> list[tuple[str, type]]:
    kernels = [(f"kernel:{name}", kernel_class(name)) for name in available_kernels()]
    return [("KCCA", KCCA), ("KCCAGrid", KCCAGrid), *kernels]


SUBJECTS = _subjects()
IDS = [name for name, _ in SUBJECTS]


# ------------------------------------------------------------------ adapters: one input X


class OneKernel(TransformerMixin, BaseEstimator):
    """:class:`KCCA` or :class:`KCCAGrid` as a one-input transformer: ``X`` is a precomputed
    kernel (``pairwise`` tag) used as view x, view y is ``X ** 2`` (``power_y=2``), and
    ``transform`` puts both views' projections side by side (a grid's, per kappa). ``X`` is
    handed to the estimator as given, so the checks exercise its own input handling."""

    def __init__(self, estimator: Any = None):
        self.estimator = estimator

    def fit(self, X: Any, y: Any = None) -> "OneKernel":
        self.estimator_ = clone(self.estimator).set_params(power_y=2).fit(X, X)
        return self

    def transform(self, X: Any) -> np.ndarray:
        check_is_fitted(self)
        zx, zy = self.estimator_.transform(X, X)
        blocks = [*zx, *zy] if isinstance(zx, list) else [zx, zy]
        return np.hstack([to_numpy(b) for b in blocks])

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags = get_tags(self.estimator).input_tags  # pairwise, sparse
        return tags


class Histograms(TransformerMixin, BaseEstimator):
    """An image kernel (``histogram``, ``pyramid``) as a one-input transformer: the rows of
    ``X`` are weighted histograms (what :func:`features.kernels._image.weighted_matrix` makes of
    image items), ``fit`` computes their Gram and ``transform(X)`` the block against them,
    both by the kernel's own ``gram_matrix`` on ``X`` as given."""

    def __init__(self, kernel: Any = None):
        self.kernel = kernel

    def fit(self, X: Any, y: Any = None) -> "Histograms":
        self.kernel_ = clone(self.kernel)
        self.gram_ = self.kernel_.gram_matrix(X)
        self.histograms_ = X
        return self

    def transform(self, X: Any) -> np.ndarray:
        check_is_fitted(self)
        return self.kernel_.gram_matrix(X, self.histograms_)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True  # histograms
        tags.input_tags.sparse = True  # made dense
        return tags


# ------------------------------------------------------------------ checks left out

#: checks that fit on ``X`` and then look at the fitted estimator: results, refits, pickles,
#: pipelines, invariance to the order and subsets of the samples, ``n_features_in_``
FITTED = (
    "check_dict_unchanged check_dont_overwrite_parameters check_estimators_fit_returns_self "
    "check_estimators_overwrite_params check_estimators_pickle check_f_contiguous_array_estimator "
    "check_fit_check_is_fitted check_fit_idempotent check_fit_score_takes_y "
    "check_methods_sample_order_invariance check_methods_subset_invariance check_n_features_in "
    "check_n_features_in_after_fitting check_pipeline_consistency check_readonly_memmap_input"
).split()
#: checks of how ``fit`` (and ``transform``) convert or refuse an ``X`` of each kind: dtypes,
#: complex, objects, sparse, empty, NaN / inf, negative, one sample or feature, 1-D rows,
#: array API namespaces
INPUTS = (
    "check_array_api_input check_complex_data check_dtype_object check_estimator_sparse_array "
    "check_estimator_sparse_matrix check_estimator_sparse_tag check_estimators_dtypes "
    "check_estimators_empty_data_messages check_estimators_nan_inf check_fit2d_1feature "
    "check_fit2d_1sample check_fit2d_predict1d check_positive_only_tag_during_fit"
).split()
#: a transformer's fit_transform / transform on ``X``
TRANSFORMER = (
    "check_transformer_data_not_an_array",
    "check_transformer_general",
    "check_transformer_preserve_dtypes",
)

TWO_VIEWS = (
    "fit takes two train x train kernels (Kx, Ky), not one matrix X and a target y: "
    "checked through OneKernel"
)
ITEMS = (
    "a kernel fits on its items (token lists or image records, its item_type), not on a "
    "feature matrix: its numbers in tests/features/, the image kernels' through Histograms"
)

#: the checks each kind of subject is run without, by family, each with why it cannot apply
LEFT_OUT: dict[str, dict[str, tuple[str, ...]]] = {
    "estimator": {
        f"fitted behaviour on X: {TWO_VIEWS}": tuple(FITTED),
        f"inputs X refused or converted: {TWO_VIEWS} (and tests/bad_inputs/"
        "test_kernel_inputs.py)": tuple(INPUTS),
        f"transformer checks on X: {TWO_VIEWS}": TRANSFORMER,
        "fit without y: fit's second argument is view y's kernel Ky, which it needs": (
            "check_requires_y_none",
        ),
    },
    "kernel": {
        f"fitted behaviour on X: {ITEMS}": tuple(FITTED),
        f"inputs X refused or converted: {ITEMS} (its item checks: tests/features/)": tuple(
            INPUTS
        ),
        "a 1-D X refused: a 1-D X is a list of items to a kernel, which it fits": (
            "check_fit1d",
        ),
    },
}
#: BowKernel's token check refuses a sparse matrix as items with a TypeError that names it
#: ("Sparse"), which is what these checks ask of an estimator without the sparse tag: they run
KERNEL_RUNS = {
    "bow": {
        "check_estimator_sparse_array",
        "check_estimator_sparse_matrix",
        "check_estimator_sparse_tag",
    }
}


def left_out(est: Any) -> dict[str, str]:
    """The checks ``est`` is run without, each with its family's reason."""
    if isinstance(est, (OneKernel, Histograms)):
        return {}
    kind = "estimator" if isinstance(est, (KCCA, KCCAGrid)) else "kernel"
    runs = KERNEL_RUNS.get(getattr(est, "name", ""), set())
    return {
        check: reason
        for reason, checks in LEFT_OUT[kind].items()
        for check in checks
        if check not in runs
    }


# ------------------------------------------------------------------ expected failures


def _wording(ours: str, theirs: str) -> str:
    return (
        f"refused with a ValueError of the project's own wording ({ours}), which the check's "
        f"pattern ({theirs}) does not match: the check raises AssertionError"
    )


N_FEATURES_IN = (
    AssertionError,
    "no n_features_in_: a kernel's columns are training items, not features (the estimator "
    "records n_train_; the image kernels take any number of bins)",
)
#: through an adapter: each follows from what the subject is, or is the project's wording of
#: an error it does raise; (the exception the check raises, why)
ADAPTED: dict[str, tuple[type[BaseException], str]] = {
    "check_n_features_in": N_FEATURES_IN,
    "check_n_features_in_after_fitting": N_FEATURES_IN,
}
ONE_KERNEL: dict[str, tuple[type[BaseException], str]] = {
    **ADAPTED,
    "check_dtype_object": (
        KernelError,
        "an element that is not a number is refused with the project's KernelError naming the "
        "view and index (a ValueError, as all bad input), not the TypeError the check matches",
    ),
    "check_estimators_nan_inf": (
        AssertionError,
        "the check fits on a (10, 3) X despite the pairwise tag: refused as not square "
        "('Kx must be a square (n, n) kernel matrix') before its NaN is looked at",
    ),
    "check_positive_only_tag_during_fit": (
        AssertionError,
        "the check shifts the linear kernel by a constant: view x stays positive "
        "semi-definite after centring, but the adapter's view y, its entry-wise square, does "
        "not, and KCCA refuses an indefinite kernel (eq. 3) with a KernelError, which the "
        "check turns into an AssertionError",
    ),
    "check_estimators_dtypes": (
        KernelError,
        "the float32 linear kernel's rounding makes it indefinite beyond the float64 "
        "round-off tolerance: KCCA refuses it with a KernelError that names float32 and its "
        "rounding (eq. 3 needs positive semi-definite kernels)",
    ),
    "check_estimators_empty_data_messages": (
        AssertionError,
        _wording(
            "'Kx must be a square (n, n) kernel matrix, got shape (12, 0)': its columns are "
            "training items, not features",
            "'0 feature(s)'",
        ),
    ),
}
ONE_KERNEL_KCCA: dict[str, tuple[type[BaseException], str]] = {
    **ONE_KERNEL,
    "check_fit2d_1feature": (
        AssertionError,
        _wording(
            "'n_components=2 exceeds the rank of the problem': a linear kernel of one "
            "feature has rank 1, and KCCA refuses n_components above the rank (KCCAGrid "
            "drops those values)",
            "'1 feature(s)'",
        ),
    ),
}
HISTOGRAMS: dict[str, tuple[type[BaseException], str]] = {
    **ADAPTED,
    "check_dtype_object": (
        DataError,
        "an element that is not a number is refused with the project's DataError naming the "
        "input and index (a ValueError, as all bad input), not the TypeError the check matches",
    ),
    "check_estimators_empty_data_messages": (
        AssertionError,
        "the intersection of zero items or of zero bins is a defined, empty or all-zero "
        "block (tiles of a large Gram may be empty), not an error",
    ),
}


def expected_failures(est: Any) -> dict[str, tuple[type[BaseException], str]]:
    """The checks ``est`` is expected to fail: the exception each raises, and why."""
    if isinstance(est, OneKernel):
        return ONE_KERNEL_KCCA if isinstance(est.estimator, KCCA) else ONE_KERNEL
    if isinstance(est, Histograms):
        return HISTOGRAMS
    return {}


def _adapted() -> list[BaseEstimator]:
    out: list[BaseEstimator] = []
    for backend in ("numpy", "array_api_strict"):
        out += [
            OneKernel(KCCA(kappa=0.5, n_components=2, precision=0.0, backend=backend)),
            OneKernel(
                KCCAGrid(kappas=[0.1, 1.0], n_components=[1, 2], precision=0.0, backend=backend)
            ),
            Histograms(HistogramKernel(backend=backend)),
            Histograms(PyramidKernel(backend=backend)),
        ]
    return out


ESTIMATORS = [cls() for _, cls in SUBJECTS] + _adapted()


def _check_name(check: partial) -> str:
    return check.func.__name__


def _check_id(check: partial) -> str:
    """scikit-learn's id of a check: its name and keyword arguments."""
    if not check.keywords:
        return _check_name(check)
    return f"{_check_name(check)}({','.join(f'{k}={v}' for k, v in check.keywords.items())})"


def _generated(est: Any) -> Iterator[tuple[Any, partial]]:
    """Every check scikit-learn yields for ``est`` (its legacy checks included)."""
    return estimator_checks_generator(est, legacy=True)


def _cases() -> Iterator[Any]:
    """``(estimator, check)`` for the checks that apply, expected failures marked."""
    for subject in ESTIMATORS:
        skip, failing = left_out(subject), expected_failures(subject)
        for est, check in _generated(subject):
            name = _check_name(check)
            if name in skip:
                continue
            marks = []
            if name in failing:
                raises, reason = failing[name]
                marks = [pytest.mark.xfail(raises=raises, reason=reason, strict=True)]
            est_id = re.sub(r"\s", "", repr(est))
            yield pytest.param(est, check, marks=marks, id=f"{est_id}-{_check_id(check)}")


@pytest.mark.parametrize("estimator, check", list(_cases()))
def test_sklearn_check_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: re.sub(r"\s", "", repr(e)))
def test_left_out_and_expected_failures_name_checks_scikit_learn_runs(estimator):
    """A name here that scikit-learn no longer yields (renamed, removed) is an error, not a
    silent no-op."""
    generated = {_check_name(check) for _, check in _generated(estimator)}
    assert set(left_out(estimator)) <= generated
    assert set(expected_failures(estimator)) <= generated
    assert not set(left_out(estimator)) & set(expected_failures(estimator))


# ------------------------------------------------------------------ beyond check_estimator


def test_every_registered_kernel_and_both_estimators_are_covered():
    names = {name for name, _ in SUBJECTS}
    assert {"KCCA", "KCCAGrid", "kernel:pyramid", "kernel:trigram", "kernel:bow"} <= names


@pytest.mark.data_variables
def test_subjects_are_the_kernels_a_fresh_process_registers():
    """The kernels parametrised here do not depend on which test files were collected before
    this one: tests register their own kernels in fixtures, not at import."""
    code = "from features.kernels._base import available_kernels; print(*available_kernels())"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert IDS[2:] == [f"kernel:{name}" for name in done.stdout.split()]


@pytest.mark.parametrize("name,cls", SUBJECTS, ids=IDS)
def test_unfitted_pickle_and_clone_keep_the_parameters(name, cls):
    subject = cls()
    for copy in (pickle.loads(pickle.dumps(subject)), clone(subject)):
        assert type(copy) is cls
        assert repr(copy.get_params(deep=False)) == repr(subject.get_params(deep=False))


@pytest.mark.parametrize(
    "name,cls",
    [s for s in SUBJECTS if s[0].startswith("kernel:")],
    ids=[n for n in IDS if n.startswith("kernel:")],
)
def test_kernel_contract_declarations(name, cls):
    kernel = cls()
    params = kernel.get_params(deep=False)
    assert cls.name == name.split(":", 1)[1]
    declared = set(cls.execution_params) | set(cls.run_inputs)
    assert declared <= set(params)
    assert set(numeric_params(kernel)) == set(params) - declared
    assert kernel.params == numeric_params(kernel)
