"""Names of a package imported on first use (PEP 562), so that importing it stays cheap."""

from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping


def lazy_exports(
    package: str, exports: Mapping[str, str], names: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a package whose names load on first use.

    Parameters
    ----------
    package : str
        The package's name, for the error of an unknown attribute.
    exports : Mapping[str, str]
        Each lazily loaded name -> the module that defines it.
    names : dict
        The package's ``globals()``: ``__dir__`` lists them beside the lazy names.

    Returns
    -------
    tuple
        ``(__getattr__, __dir__)``, to assign in the package's ``__init__``.

    Examples
    --------
    >>> getattr_, dir_ = lazy_exports("pkg", {"sqrt": "math"}, {})
    >>> getattr_("sqrt")(4.0)
    2.0
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    def __dir__() -> list[str]:
        return sorted(set(names) | set(exports))

    return __getattr__, __dir__
