"""scikit-learn's complete ``check_estimator`` over both KCCA estimators and every registered
kernel (built-in, ``nn-f1`` and plug-ins found through entry points), as cca-zoo's
``test_common.py`` runs its estimators: each check either passes or is named in an explicit
dict of expected failures with its reason (strict: an expected failure that passes fails).

The checks fit on one feature matrix ``X`` (and a target ``y``), so each subject runs twice:

* as it is (``KCCA``, ``KCCAGrid``, each kernel class): every check that does not fit applies
  (clone, ``repr``, ``get_params`` / ``set_params``, nothing set in ``__init__``, tags,
  ``transform`` before ``fit`` refused); those that fit are expected to fail: ``fit`` takes two
  train x train kernels (the estimators) or the kernel's items (token lists, image records);
* through an adapter that gives it one input: :class:`OneKernel` (a precomputed kernel ``X``
  as view x, ``X ** 2`` as view y; the ``pairwise`` tag makes the checks pass kernels) and
  :class:`Histograms` (the image kernels' intersection on rows of ``X`` as weighted
  histograms, their input before items are made into it), on NumPy and on
  ``array_api_strict``. Here only what follows from what KCCA is may fail.

Also here: the unfitted pickle round trip and the kernel contract's declared parameters
(``execution_params``, ``run_inputs``). Fitted behaviour on two kernels is checked in
``tests/kcca/test_estimator_conventions.py``, the kernels' numbers in ``tests/features/``.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import parametrize_with_checks
from sklearn.utils.validation import check_is_fitted

from features.kernels.base import available_kernels, kernel_class, numeric_params
from features.kernels.image import HistogramKernel, PyramidKernel
from kcca.backend import to_numpy
from kcca.solver import KCCA, KCCAGrid


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
    ``X`` are weighted histograms (what :func:`features.kernels.image.weighted_matrix` makes of
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


# ------------------------------------------------------------------ expected failures

#: the checks that fit on a feature matrix X and a target y
FIT_ON_X_AND_Y = (
    "check_complex_data check_dict_unchanged check_dont_overwrite_parameters "
    "check_dtype_object check_estimator_sparse_array check_estimator_sparse_matrix "
    "check_estimator_sparse_tag check_estimators_dtypes check_estimators_empty_data_messages "
    "check_estimators_fit_returns_self check_estimators_nan_inf check_estimators_overwrite_params "
    "check_estimators_pickle check_f_contiguous_array_estimator check_fit2d_1feature "
    "check_fit2d_1sample check_fit2d_predict1d check_fit_check_is_fitted check_fit_idempotent "
    "check_fit_score_takes_y check_methods_sample_order_invariance "
    "check_methods_subset_invariance check_n_features_in check_n_features_in_after_fitting "
    "check_pipeline_consistency check_positive_only_tag_during_fit check_readonly_memmap_input "
    "check_requires_y_none check_transformer_data_not_an_array check_transformer_general "
    "check_transformer_preserve_dtypes"
).split()

TRANSFORMER_CHECKS = (
    "check_transformer_data_not_an_array",
    "check_transformer_general",
    "check_transformer_preserve_dtypes",
)
#: a kernel is no transformer (those checks are not run) and its fit takes no target; a 1-D
#: X is a list of items to it
KERNEL_FIT_CHECKS = sorted(
    {*FIT_ON_X_AND_Y, "check_fit1d"} - {*TRANSFORMER_CHECKS, "check_requires_y_none"}
)

TWO_VIEWS = (
    "fit takes two train x train kernels (Kx, Ky); the check fits on one matrix and a 1-D "
    "target (the fitted behaviour is checked through OneKernel)"
)
ITEMS = (
    "a kernel fits on its items (token lists or image records, its item_type), not on a "
    "feature matrix (its numbers: tests/features/; the image kernels' through Histograms)"
)
#: BowKernel's token check refuses a sparse matrix as items with a TypeError that names it
#: ("Sparse"), which is what these checks ask of an estimator without the sparse tag
KERNEL_PASSES = {
    "bow": {
        "check_estimator_sparse_array",
        "check_estimator_sparse_matrix",
        "check_estimator_sparse_tag",
    }
}


def _wording(ours: str, theirs: str) -> str:
    return (
        f"refused with a ValueError of the project's own wording ({ours}), which the check's "
        f"pattern ({theirs}) does not match"
    )


#: through an adapter: each follows from what the subject is, or is the project's wording of
#: an error it does raise (a DataError / KernelError naming the input, a ValueError)
ADAPTED = {
    "check_dtype_object": (
        "an element that is not a number is refused with the project's DataError / "
        "KernelError naming the input and index (a ValueError, as all bad input), not the "
        "TypeError of numpy.asarray the check matches"
    ),
    "check_n_features_in": "no n_features_in_: see check_n_features_in_after_fitting",
    "check_estimators_nan_inf": _wording(
        "'has a non-finite entry nan at index (i, j)'", "'NaN' or 'inf'"
    ),
    "check_fit2d_predict1d": _wording(
        "'must be a 2-D (items, bins) array' / '(n_new, n_train) new-by-train block'",
        "'Reshape your data'",
    ),
}
ONE_KERNEL = {
    **ADAPTED,
    "check_n_features_in_after_fitting": (
        "a kernel's columns are training items, not features: the estimator records n_train_ "
        "and its shape error names n_train"
    ),
    "check_positive_only_tag_during_fit": (
        "the check shifts the linear kernel by a constant: view x stays positive "
        "semi-definite after centring, but the adapter's view y, its entry-wise square, does "
        "not, and KCCA refuses an indefinite kernel (eq. 3) with a KernelError"
    ),
    "check_estimators_dtypes": (
        "the float32 linear kernel's rounding makes it indefinite beyond the float64 "
        "round-off tolerance: KCCA refuses it with a KernelError that names float32 and its "
        "rounding (eq. 3 needs positive semi-definite kernels)"
    ),
    "check_complex_data": _wording(
        "'Kx is complex with a nonzero imaginary part'", "'Complex data not supported'"
    ),
    "check_estimators_empty_data_messages": _wording(
        "'Kx must be a square (n, n) kernel matrix, got shape (12, 0)'", "'0 feature(s)'"
    ),
    "check_fit2d_1sample": _wording("'Kx needs at least 2 training items'", "'1 sample'"),
}
ONE_KERNEL_KCCA = {
    **ONE_KERNEL,
    "check_fit2d_1feature": (
        "a linear kernel of one feature has rank 1, below n_components=2: KCCA refuses "
        "n_components above the rank (KCCAGrid drops those values)"
    ),
}
HISTOGRAMS = {
    **ADAPTED,
    "check_n_features_in_after_fitting": _wording(
        "'histogram widths differ: 3 vs 4 bins'", "'X has 3 features, ... expecting 4'"
    ),
    "check_positive_only_tag_during_fit": _wording(
        "'a has negative entries: intersection needs histograms >= 0'", "'Negative values in data'"
    ),
    "check_estimators_empty_data_messages": (
        "the intersection of zero items or of zero bins is a defined, empty or all-zero "
        "block (tiles of a large Gram may be empty), not an error"
    ),
}


def expected_failures(est: Any) -> dict[str, str]:
    """The checks ``est`` is expected to fail, with the reason of each."""
    if isinstance(est, OneKernel):
        return ONE_KERNEL_KCCA if isinstance(est.estimator, KCCA) else ONE_KERNEL
    if isinstance(est, Histograms):
        return HISTOGRAMS
    if isinstance(est, (KCCA, KCCAGrid)):
        return {name: TWO_VIEWS for name in FIT_ON_X_AND_Y}
    passes = KERNEL_PASSES.get(est.name, set())
    return {name: ITEMS for name in KERNEL_FIT_CHECKS if name not in passes}


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


@parametrize_with_checks(
    [cls() for _, cls in SUBJECTS] + _adapted(),
    expected_failed_checks=expected_failures,
    xfail_strict=True,
)
def test_sklearn_check_estimator(estimator, check):
    check(estimator)


# ------------------------------------------------------------------ beyond check_estimator


def test_every_registered_kernel_and_both_estimators_are_covered():
    names = {name for name, _ in SUBJECTS}
    assert {"KCCA", "KCCAGrid", "kernel:pyramid", "kernel:trigram", "kernel:bow"} <= names


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
