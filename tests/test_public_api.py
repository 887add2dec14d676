"""The public API is stated once (docs/design.md#public-api): the public modules below, each
with an ``__all__`` that lists exactly the names the API reference (docs/api/) documents for
it; every other module of ``kcca`` and ``features`` lies under a package or module whose name
begins with an underscore."""

from __future__ import annotations

import importlib
import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
API_DOCS = ROOT / "docs" / "api"

#: every public module; the pycocoevalcap drop-ins keep pycocoevalcap's module paths
PUBLIC_MODULES = (
    "kcca",
    "kcca.nn",
    "kcca.data",
    "kcca.captions",
    "kcca.errors",
    "kcca.limits",
    "kcca.coco",
    "kcca.coco.eval",
    "kcca.coco.bleu",
    "kcca.coco.bleu.bleu",
    "kcca.coco.bleu.bleu_scorer",
    "kcca.coco.cider",
    "kcca.coco.cider.cider",
    "kcca.coco.cider.cider_scorer",
    "kcca.coco.meteor",
    "kcca.coco.meteor.meteor",
    "kcca.coco.rouge",
    "kcca.coco.rouge.rouge",
    "kcca.coco.spice",
    "kcca.coco.spice.spice",
    "kcca.coco.tokenizer",
    "kcca.coco.tokenizer.ptbtokenizer",
    "features",
    "features.kernels",
    "features.text",
)

#: a directive of the API reference that documents one name (``.. autoclass:: kcca.KCCA``)
DIRECTIVE = re.compile(
    r"^\.\. (?:auto|py:)(?:class|function|exception|data|attribute)::\s+(\S+)\s*$", re.M
)


def _module_paths() -> list[str]:
    """Every module of ``kcca`` and ``features``, as a dotted path, from the source files."""
    paths = []
    for package in ("kcca", "features"):
        for file in sorted((ROOT / package).rglob("*.py")):
            parts = file.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            paths.append(".".join(parts))
    return paths


def _documented() -> dict[str, set[str]]:
    """Public module -> the names the API reference documents for it."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(API_DOCS.glob("*.rst")))
    found: dict[str, set[str]] = defaultdict(set)
    for path in DIRECTIVE.findall(text):
        module, _, name = path.rpartition(".")
        found[module].add(name)
    return found


def test_the_public_modules_exist() -> None:
    modules = set(_module_paths())
    assert [m for m in PUBLIC_MODULES if m not in modules] == []


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_public_module_states_its_names(module_name: str) -> None:
    """``__all__`` is there, each of its names exists, and it equals what docs/api documents."""
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    assert names is not None, f"{module_name} has no __all__"
    assert len(set(names)) == len(names), f"{module_name}.__all__ repeats a name"
    absent = [n for n in names if not hasattr(module, n)]
    assert absent == [], f"{module_name}.__all__ names what it lacks: {absent}"
    documented = _documented().get(module_name, set())
    assert sorted(documented - set(names)) == [], f"docs/api documents beyond {module_name}.__all__"
    assert sorted(set(names) - documented) == [], f"docs/api leaves out of {module_name}'s names"


def test_the_api_reference_documents_only_public_modules() -> None:
    outside = sorted(m for m in _documented() if m not in PUBLIC_MODULES)
    assert outside == [], f"docs/api documents names of modules that are not public: {outside}"


def test_every_other_module_is_private() -> None:
    """A module not in :data:`PUBLIC_MODULES` has a part of its path that begins with ``_``."""
    public = [
        m
        for m in _module_paths()
        if m not in PUBLIC_MODULES and not any(p.startswith("_") for p in m.split("."))
    ]
    assert public == [], f"{len(public)} modules are public by name but not by decision: {public}"
