"""The one place where the array backend (NumPy, or CuPy on a GPU) is chosen.

Array code is written once against the array API (``array_api_compat``); tests also run it
with ``array_api_strict`` arrays so the GPU path stays correct on machines without a GPU.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np
from array_api_compat import array_namespace, is_cupy_array, to_device  # noqa: F401

from kcca.errors import SettingError

BACKEND_ENV = "KCCA_BACKEND"


def gpu_available() -> bool:
    """True when cupy imports and sees at least one CUDA device."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def resolve_backend(backend: str | None = None) -> str:
    """The concrete backend ``backend`` stands for: ``"auto"`` becomes ``"cupy"`` when a GPU is
    available, else ``"numpy"``; ``None`` reads ``$KCCA_BACKEND`` (default ``"numpy"``)."""
    name = (backend or os.environ.get(BACKEND_ENV, "numpy")).lower()
    if name == "auto":
        return "cupy" if gpu_available() else "numpy"
    if name not in ("numpy", "cupy", "array_api_strict"):
        raise SettingError(f"unknown array backend {backend!r}: use numpy, cupy, auto")
    return name


def describe_backend(backend: str) -> str:
    """``backend`` in words for run headers: ``"cupy (NVIDIA H100 80GB HBM3)"`` or the name."""
    if backend != "cupy":
        return backend
    try:
        import cupy

        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        name = props["name"]
        return f"cupy ({name.decode() if isinstance(name, bytes) else name})"
    except Exception:  # noqa: BLE001 - a header line, never an error
        return "cupy"


def get_xp(backend: str | None = None) -> Any:
    """Array namespace for ``backend``: ``"numpy"``, ``"cupy"`` or ``"auto"``.

    ``None`` reads ``$KCCA_BACKEND`` (default ``"numpy"``). ``"auto"`` picks cupy when a GPU is
    available. Asking for ``"cupy"`` without one is a
    :class:`~kcca.errors.BackendUnavailableError` that says how to install it.
    """
    backend = resolve_backend(backend)
    xp: Any  # one of three modules
    if backend == "numpy":
        import array_api_compat.numpy as xp

        return xp
    if backend == "cupy":
        if not gpu_available():
            from kcca.errors import BackendUnavailableError

            raise BackendUnavailableError(
                "backend 'cupy' requested but no CUDA device or cupy found here"
            )
        import array_api_compat.cupy as xp

        return xp
    if backend == "array_api_strict":
        import array_api_strict as xp

        return xp
    raise AssertionError(backend)  # resolve_backend admits no other name


#: dtype kinds of numbers: bool, signed and unsigned integers, floats, complex
_NUMBER_KINDS = "biufc"


def to_numpy(x: Any, argument: str = "the array") -> np.ndarray:
    """Bring any array-API array back to a NumPy array on the host.

    Other array-likes (nested lists, objects with ``__array__``) are converted by
    ``numpy.asarray`` as scikit-learn's ``check_array`` does, a scipy.sparse matrix is made
    dense (as :func:`kcca._lowrank.as_kernel_array` does), and an object array of numbers
    becomes float64 (``None`` as NaN, as ``check_array`` has it). What does not hold numbers
    (strings, a dict, ragged rows) is a :class:`~kcca.errors.DataError` (a ValueError)
    naming ``argument``.
    """
    if isinstance(x, np.ndarray) and x.dtype.kind in _NUMBER_KINDS:
        return x
    if is_cupy_array(x):
        return x.get()
    if not isinstance(x, np.ndarray) and hasattr(x, "__dlpack__"):
        return np.from_dlpack(x)  # array_api_strict and other DLPack producers
    sparse = sys.modules.get("scipy.sparse")  # imported wherever a sparse matrix exists
    if sparse is not None and sparse.issparse(x):
        x = x.toarray()
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as exc:  # rows of different lengths
        raise _not_numbers(f"{argument} is not a rectangular array of numbers: {exc}") from None
    if arr.dtype.kind in _NUMBER_KINDS:
        return arr
    if arr.dtype == object:
        return _object_numbers(arr, argument)
    raise _not_numbers(f"{argument} holds dtype {arr.dtype}, not numbers")


def to_real_numpy(x: Any, argument: str = "the array") -> np.ndarray:
    """:func:`to_numpy`, then real: a complex array with an all-zero imaginary part gives its
    real part; one with a nonzero imaginary part is a :class:`~kcca.errors.DataError` (histograms
    and kernel blocks are real, and a cast to float would drop it silently)."""
    arr = to_numpy(x, argument)
    if arr.dtype.kind != "c":
        return arr
    if np.any(arr.imag != 0):
        raise _not_numbers(
            f"Complex data not supported: {argument} has a nonzero imaginary part (dtype "
            f"{arr.dtype}); histograms and kernel blocks are real"
        )
    return arr.real


def _object_numbers(arr: np.ndarray, argument: str) -> np.ndarray:
    """An object array of numbers as float64; the first element that is not a number is a
    :class:`~kcca.errors.DataError` naming its index."""
    try:
        return arr.astype(np.float64)
    except (ValueError, TypeError):
        pass
    for index, value in np.ndenumerate(arr):
        try:
            float(value)
        except (ValueError, TypeError):
            where = tuple(int(i) for i in index)
            raise _not_numbers(
                f"{argument} holds {value!r} ({type(value).__name__}, not a number) "
                f"at index {where}"
            ) from None
    raise _not_numbers(f"{argument} holds elements that are not numbers")  # pragma: no cover


def _not_numbers(message: str) -> Exception:
    from kcca.errors import DataError

    return DataError(message, fix="pass an array of numbers (a NumPy array or nested lists)")
