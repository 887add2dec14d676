"""Array backend selection."""

import numpy as np
import pytest

from kcca._backend import get_xp, gpu_available, to_numpy


def test_numpy_and_strict_namespaces():
    xp = get_xp("numpy")
    assert to_numpy(xp.asarray([1.0, 2.0])).tolist() == [1.0, 2.0]
    strict = get_xp("array_api_strict")
    a = strict.asarray([[1.0, 2.0]])
    assert isinstance(to_numpy(a), np.ndarray) and to_numpy(a).shape == (1, 2)


def test_env_default_and_unknown(monkeypatch):
    monkeypatch.setenv("KCCA_BACKEND", "numpy")
    assert get_xp() is get_xp("numpy")
    with pytest.raises(ValueError, match="unknown array backend"):
        get_xp("tpu")


@pytest.mark.skipif(gpu_available(), reason="checks the error without a GPU")
def test_cupy_without_gpu_says_how_to_install():
    from kcca.errors import BackendUnavailableError

    with pytest.raises(BackendUnavailableError, match=r"no CUDA device") as info:
        get_xp("cupy")
    assert isinstance(info.value, RuntimeError) and "install the GPU extra" in info.value.fix
