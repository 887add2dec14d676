"""Kernels following the contract of docs/design.md#kernel-contract, and their registry."""

from features.kernels.base import Kernel, available_kernels, make_kernel, register_kernel

__all__ = ["Kernel", "available_kernels", "make_kernel", "register_kernel"]
