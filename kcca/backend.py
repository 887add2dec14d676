"""The one place where the array backend (NumPy, or CuPy on a GPU) is chosen.

Array code is written once against the array API (``array_api_compat``); tests also run it
with ``array_api_strict`` arrays so the GPU path stays correct on machines without a GPU.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from array_api_compat import array_namespace, is_cupy_array, to_device  # noqa: F401

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
        raise ValueError(f"unknown array backend {backend!r}: use numpy, cupy, auto")
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


def to_numpy(x: Any) -> np.ndarray:
    """Bring any array-API array back to a NumPy array on the host."""
    if isinstance(x, np.ndarray):
        return x
    if is_cupy_array(x):
        return x.get()
    return np.from_dlpack(x)  # array_api_strict and other DLPack producers
