"""Every kernel the registry can reach, loaded, for suites that run over all of them."""

from __future__ import annotations

from features.kernels._base import available_kernels, kernel_class


def load_every_kernel() -> None:
    """Import every built-in kernel and every plug-in entry point not yet registered, so that
    the registry holds them all (through the public look-up: a broken plug-in fails here)."""
    for name in available_kernels():
        kernel_class(name)
