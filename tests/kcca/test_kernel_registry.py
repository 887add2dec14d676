"""The kernel contract and registry (docs/design.md#kernel-contract)."""

import numpy as np
import pytest

from features.kernels._base import (
    _REGISTRY,
    Kernel,
    available_kernels,
    make_kernel,
    register_kernel,
)


class LinearKernel(Kernel):
    def __init__(self, scale: float = 1.0):
        self.scale = scale

    def _gram(self, a, b):
        return self.scale * np.asarray(a, float) @ np.asarray(b, float).T


@pytest.fixture(autouse=True)
def linear_kernel():
    """``LinearKernel`` registered as ``test-linear`` for one test and removed after it:
    registered at import, it would join every suite parametrised over the registry
    (tests/test_conformance.py) that is collected after this file."""
    register_kernel("test-linear")(LinearKernel)
    yield LinearKernel
    del _REGISTRY["test-linear"]


def test_registry_and_contract():
    assert "test-linear" in available_kernels()
    k = make_kernel("test-linear", scale=2.0).fit([[1, 0], [0, 1]])
    assert k.name == "test-linear" and k.params == {"scale": 2.0}
    np.testing.assert_array_equal(k.gram([[1, 2]]), [[2.0, 4.0]])
    np.testing.assert_array_equal(k.diag([[1, 2], [3, 0]]), [10.0, 18.0])


def test_errors():
    with pytest.raises(KeyError, match="unknown kernel 'nope'"):
        make_kernel("nope")
    with pytest.raises(RuntimeError, match="not fitted"):
        make_kernel("test-linear").gram([[1, 0]])
    with pytest.raises(ValueError, match="already registered"):
        register_kernel("test-linear")(type("Other", (Kernel,), {}))


def test_non_finite_block_rejected():
    k = make_kernel("test-linear", scale=float("nan")).fit([[1.0]])
    with pytest.raises(ValueError, match=r"non-finite value at \(0, 0\)"):
        k.gram([[1.0]])

