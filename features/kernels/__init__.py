"""Kernels following the contract of DESIGN.md, and the registry that names them."""

from features.kernels.base import Kernel, available_kernels, make_kernel, register_kernel

__all__ = ["Kernel", "available_kernels", "make_kernel", "register_kernel"]
