"""Kernels following the contract of docs/design.md#kernel-contract, and their registry.

The contract (:class:`Kernel`), the registry a plug-in kernel joins (:func:`register_kernel`,
:func:`make_kernel`, :func:`available_kernels`) and the image kernels of Section 3.3, which
load on first use. The text kernels are in :mod:`features.text`.
"""

from kcca._lazy import lazy_exports
from features.kernels._base import Kernel, available_kernels, make_kernel, register_kernel

__all__ = [
    "FisherKernel",
    "HistogramKernel",
    "Kernel",
    "MixtureKernel",
    "PyramidKernel",
    "available_kernels",
    "make_kernel",
    "register_kernel",
]

#: the public names that load on first use: name -> the module defining it
_LAZY = {
    "FisherKernel": "features.kernels._fisher",
    "HistogramKernel": "features.kernels._image",
    "MixtureKernel": "features.kernels._mixture",
    "PyramidKernel": "features.kernels._image",
}
__getattr__, __dir__ = lazy_exports("features.kernels", _LAZY, globals())
