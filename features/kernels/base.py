"""The kernel contract (DESIGN.md) and the registry through which kernels are named.

A kernel is fitted on training items, then evaluates blocks:
``fit(train_items) -> self``; ``gram(items_a, items_b=None)`` (``None`` = the training
items); ``diag(items)``. It has a stable ``name`` and ``params`` (for cache keys and
reports). A multi-caption item (five captions of one training image) is one item.

New kernels plug in by ``@register_kernel("name")`` or through the entry-point group
``kcca.kernels`` of an installed package; experiment files then refer to them by name.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any, Callable, Sequence, TypeVar

import numpy as np
from sklearn.base import BaseEstimator

ENTRY_POINT_GROUP = "kcca.kernels"

_REGISTRY: dict[str, type["Kernel"]] = {}

K = TypeVar("K", bound=type)


class Kernel(BaseEstimator):
    """Base class: subclasses set ``name`` and implement ``fit``, ``_gram`` and ``diag``.

    Parameters are constructor arguments stored unchanged (scikit-learn convention), so
    ``params`` (= ``get_params()``) identifies the kernel for caches and reports.
    """

    name: str = "kernel"

    def fit(self, train_items: Sequence[Any]) -> "Kernel":
        self.train_items_ = train_items
        return self

    def gram(self, items_a: Sequence[Any], items_b: Sequence[Any] | None = None) -> np.ndarray:
        """Kernel block ``K[i, j] = k(items_a[i], items_b[j])``; ``items_b=None``: training items."""
        if items_b is None:
            self._check_fitted()
            items_b = self.train_items_
        out = self._gram(items_a, items_b)
        check_kernel_block(out, (len(items_a), len(items_b)), self.name)
        return out

    def _gram(self, items_a: Sequence[Any], items_b: Sequence[Any]) -> np.ndarray:
        raise NotImplementedError

    def gram_train(self) -> np.ndarray:
        """The train x train kernel, from the fitted training representation."""
        self._check_fitted()
        return self.gram(self.train_items_)

    def diag(self, items: Sequence[Any]) -> np.ndarray:
        """``k(x, x)`` for each item (default: the diagonal of the square block)."""
        return np.diag(self._gram(items, items)).copy()

    @property
    def params(self) -> dict[str, Any]:
        return self.get_params(deep=False)

    def _check_fitted(self) -> None:
        if not hasattr(self, "train_items_"):
            raise RuntimeError(f"kernel {self.name!r} is not fitted: call fit(train_items) first")


def check_kernel_block(block: Any, shape: tuple[int, int], name: str) -> None:
    """Validate a computed kernel block: right shape, finite values."""
    if tuple(block.shape) != tuple(shape):
        raise ValueError(f"kernel {name!r} returned a block of shape {block.shape}, expected {shape}")
    arr = np.asarray(block) if isinstance(block, np.ndarray) else None
    if arr is not None and not np.isfinite(arr).all():
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(
            f"kernel {name!r} produced a non-finite value at ({bad[0]}, {bad[1]}): check the "
            "input features of those items (empty captions or images with no descriptors?)"
        )


def register_kernel(name: str) -> Callable[[K], K]:
    """Class decorator: make a kernel available to ``make_kernel(name)`` and experiment files."""

    def deco(cls: K) -> K:
        if name in _REGISTRY and _REGISTRY[name] is not cls:
            raise ValueError(f"a kernel named {name!r} is already registered ({_REGISTRY[name]})")
        _REGISTRY[name] = cls
        cls.name = name
        return cls

    return deco


# Modules whose import registers the built-in kernels (image and text).
BUILTIN_MODULES = (
    "features.kernels.image",
    "features.text.bow_kernel",
    "features.text.tagrank_kernel",
    "features.text.trigram_kernel",
    "kcca.nn",
)


def _load_builtins() -> None:
    import importlib

    for module in BUILTIN_MODULES:
        importlib.import_module(module)


def _load_entry_points() -> None:
    _load_builtins()
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name not in _REGISTRY:
            cls = ep.load()
            _REGISTRY[ep.name] = cls


def available_kernels() -> list[str]:
    """Names of every registered kernel (built-in and from installed plug-ins)."""
    _load_entry_points()
    return sorted(_REGISTRY)


def make_kernel(name: str, **params: Any) -> Kernel:
    """Instantiate a registered kernel by name with its parameters."""
    if name not in _REGISTRY:
        _load_entry_points()
    try:
        cls = _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown kernel {name!r}; registered kernels: {available_kernels()}") from None
    return cls(**params)
