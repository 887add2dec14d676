"""One conformance suite over both KCCA estimators and every registered kernel (built-in,
``nn-f1`` and plug-ins found through entry points), as cca-zoo runs its estimators through
scikit-learn's ``check_estimator``: the checks that apply to any scikit-learn estimator
without a fit on feature matrices (clone, ``repr``, ``get_params`` / ``set_params``, nothing
set in ``__init__``, default-constructible parameters), a pickle round trip, and the kernel
contract's declared parameters (``execution_params``, ``run_inputs``). The fitted behaviour of
each is checked where its inputs can be made: the estimators in
``tests/kcca/test_estimator_conventions.py``, the kernels in ``tests/features/``.
"""

from __future__ import annotations

import pickle

import pytest
from sklearn.base import clone
from sklearn.utils import estimator_checks as checks

from features.kernels.base import _REGISTRY, numeric_params
from kcca.solver import KCCA, KCCAGrid
from tests.support.kernels import load_every_kernel


def _subjects() -> list[tuple[str, type]]:
    load_every_kernel()
    kernels = [(f"kernel:{name}", cls) for name, cls in sorted(_REGISTRY.items())]
    return [("KCCA", KCCA), ("KCCAGrid", KCCAGrid), *kernels]


SUBJECTS = _subjects()
IDS = [name for name, _ in SUBJECTS]

CHECKS = [
    checks.check_estimator_cloneable,
    checks.check_estimator_repr,
    checks.check_no_attributes_set_in_init,
    checks.check_get_params_invariance,
    checks.check_set_params,
    checks.check_parameters_default_constructible,
    checks.check_do_not_raise_errors_in_init_or_set_params,
]


def test_every_registered_kernel_and_both_estimators_are_covered():
    names = {name for name, _ in SUBJECTS}
    assert {"KCCA", "KCCAGrid", "kernel:pyramid", "kernel:trigram", "kernel:bow"} <= names


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("name,cls", SUBJECTS, ids=IDS)
def test_sklearn_checks(name, cls, check):
    check(cls.__name__, cls())


@pytest.mark.parametrize("name,cls", SUBJECTS, ids=IDS)
def test_unfitted_pickle_and_clone_keep_the_parameters(name, cls):
    subject = cls()
    for copy in (pickle.loads(pickle.dumps(subject)), clone(subject)):
        assert type(copy) is cls
        assert repr(copy.get_params(deep=False)) == repr(subject.get_params(deep=False))


@pytest.mark.parametrize("name,cls", [s for s in SUBJECTS if s[0].startswith("kernel:")],
                         ids=[n for n in IDS if n.startswith("kernel:")])
def test_kernel_contract_declarations(name, cls):
    kernel = cls()
    params = kernel.get_params(deep=False)
    assert cls.name == name.split(":", 1)[1]
    declared = set(cls.execution_params) | set(cls.run_inputs)
    assert declared <= set(params)
    assert set(numeric_params(kernel)) == set(params) - declared
    assert kernel.params == numeric_params(kernel)
