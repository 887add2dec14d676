"""Every limit is declared once, in :mod:`kcca.limits`: the docs' table is generated from it,
and no other module gives a limit a value or reads a limit's environment variable itself."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from kcca import limits
from kcca.errors import DataError

ROOT = Path(__file__).resolve().parents[2]
DOCS_TABLE = ROOT / "docs" / "limits.md"


def _library_files() -> list[Path]:
    """Every Python file of ``kcca/`` and ``features/`` but :mod:`kcca.limits` itself."""
    files = sorted((ROOT / "kcca").rglob("*.py")) + sorted((ROOT / "features").rglob("*.py"))
    return [f for f in files if f != ROOT / "kcca" / "limits.py"]


def test_docs_table_is_the_generated_one():
    """``docs/limits.md`` is what ``python -m kcca.limits`` prints (regenerate it with
    ``python -m kcca.limits > docs/limits.md``)."""
    printed = subprocess.run(
        [sys.executable, "-m", "kcca.limits"], cwd=ROOT, capture_output=True, text=True,
        check=True,
    ).stdout
    assert printed == limits.markdown_table()
    assert DOCS_TABLE.read_text(encoding="utf-8") == printed, (
        "docs/limits.md is out of date: python -m kcca.limits > docs/limits.md"
    )


def test_no_module_outside_limits_declares_a_limit():
    """No library module names a limit's environment variable in a string of its own (so it
    cannot read it with a default of its own), names any ``KCCA_MAX_`` variable, or assigns a
    value to a limit's name: they import both from :mod:`kcca.limits`."""
    envs = "|".join(re.escape(limit.env) for limit in limits.LIMITS if limit.env)
    env_literal = re.compile(rf"""["'](?:{envs}|KCCA_MAX_\w*)["']""")
    names = "|".join(re.escape(limit.name) for limit in limits.LIMITS)
    assignment = re.compile(rf"^\s*_?(?:{names})\s*(?::[^=]*)?=[^=]", re.MULTILINE)
    found = []
    for path in _library_files():
        text = path.read_text(encoding="utf-8")
        for match in [*env_literal.finditer(text), *assignment.finditer(text)]:
            found.append(f"{path.relative_to(ROOT)}: {match.group(0).strip()}")
    assert not found, "limits declared outside kcca/limits.py:\n" + "\n".join(found)


def test_every_limit_has_its_constant_and_a_unique_name():
    """A fixed limit is the module's constant of its name, a limit the environment may raise
    has ``NAME_ENV``, its variable; the defaults are those the modules had before they were
    gathered here."""
    assert len({limit.name for limit in limits.LIMITS}) == len(limits.LIMITS)
    for limit in limits.LIMITS:
        if limit.env:
            assert getattr(limits, limit.name + "_ENV") == limit.env, limit.name
        else:
            assert getattr(limits, limit.name) == limit.default, limit.name
    defaults = {limit.name: limit.default for limit in limits.LIMITS}
    assert defaults == {
        "MAX_METEOR_CHARACTERS": 10_000, "MAX_IMAGE_PIXELS": 100_000_000,
        "MAX_MODEL_BYTES": 16 << 30, "MAX_IDS_BYTES": 256 << 20, "MAX_VECTOR_BYTES": 8 << 30,
        "MAX_MODEL_HEADER_BYTES": 1 << 24, "MAX_INFLATION": 200.0,
        "MAX_CACHE_HEADER_BYTES": 1 << 26, "MAX_SCHEDULER_GREETING": 1 << 24,
        "MAX_DEMO_IMAGE_SIZE": 1_024, "MAX_NAMED_DEMO_IMAGES": 20_000,
        "MAX_NAMED_DEMO_TEST": 2_000, "MAX_TAGGER_ITER": 50, "DENSE_TRAIN_LIMIT": 15_000,
    }


@pytest.mark.parametrize(
    "limit", [lim for lim in limits.LIMITS if lim.env], ids=lambda lim: str(lim.env)
)
def test_each_variable_sets_its_limit_and_a_malformed_one_is_named(limit, monkeypatch):
    """Unset or empty: the default; a positive whole number: that; anything else: a
    :class:`DataError` naming the variable, with the default in its fix."""
    monkeypatch.delenv(limit.env, raising=False)
    assert limits.current_limit(limit.env) == limit.default
    monkeypatch.setenv(limit.env, " ")
    assert limits.current_limit(limit.env) == limit.default
    monkeypatch.setenv(limit.env, "12")
    assert limits.current_limit(limit.env) == 12
    for bad in ("0", "-3", "1e6", "lots"):
        monkeypatch.setenv(limit.env, bad)
        with pytest.raises(DataError, match=rf"^\${limit.env}='{bad}' is not a positive whole "
                                            rf"number of {limit.unit}$") as info:
            limits.current_limit(limit.env)
        assert info.value.fix == (
            f"export {limit.env}={limit.default} (the default), or unset {limit.env}"
        )


def test_a_fixed_limit_is_its_default_whatever_the_environment(monkeypatch):
    monkeypatch.setenv("KCCA_MAX_MODEL_HEADER_BYTES", "5")
    fixed = [limit for limit in limits.LIMITS if limit.env is None]
    assert fixed and all(limit.current() == limit.default for limit in fixed)
