"""Model files and cache entries name their classes by module path (``module:qualname``);
files written before a module became private (docs/design.md#public-api) hold its old path,
which reads as the path now (``OLD_MODULES``): such a file loads and ranks as before."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kcca._cache_entry import CACHE_CLASSES
from kcca._data_tree import OLD_MODULES, ClassTable
from kcca._model.file_format import CLASSES, REBUILT


def _old_names(name: str) -> Iterator[str]:
    """Every spelling of the class name ``name`` under an old module path."""
    module, _, attr = name.partition(":")
    for old, new in OLD_MODULES.items():
        if module == new or module.startswith(new + "."):
            yield f"{old}{module[len(new):]}:{attr}"


def _private(name: str) -> bool:
    return any(part.startswith("_") for part in name.partition(":")[0].split("."))


@pytest.mark.parametrize("table", [CLASSES, CACHE_CLASSES], ids=["model file", "cache entry"])
def test_every_class_a_file_may_hold_reads_under_its_old_module_path(table: ClassTable) -> None:
    names = sorted(table.allowed | set(table.moved))
    lacking = [n for n in names if _private(n) and not list(_old_names(n))]
    assert lacking == [], f"classes in a private module with no old path: {lacking}"
    for name in names:
        for old in _old_names(name):
            assert table.current(old) == table.current(name), old
            assert table.resolve(old) is table.resolve(name), old


def test_rebuilt_state_is_found_under_the_old_module_path() -> None:
    for name in REBUILT:
        for old in _old_names(name):
            assert CLASSES.current(old) == name
