"""The layout the code keeps: import-linter's contracts (``[tool.importlinter]`` in
pyproject.toml: the library never imports the CLI, ``features`` below the pipeline and above
the base modules, the runner never imports the paper's report, no import circle between
sibling modules; imports made for type hints count), ruff's checks and layout
(``[tool.ruff]``, ``ruff format``) and mypy's (``[tool.mypy]``) over ``kcca/`` and
``features/``. The tools come with the ``dev`` extra."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from tests.optional_tools import skip_unless

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_are_kept():
    skip_unless(importlib.util.find_spec("importlinter") is not None,
                "import-linter is not installed (pip install -e '.[dev]')")
    # in a subprocess: import-linter reconfigures logging, which other tests capture
    done = subprocess.run([sys.executable, "-c",
                           "from importlinter.cli import lint_imports_command as c; c()",
                           "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_import_contracts_count_type_checking_imports():
    """An import made only for type hints is an import: no contract may hold only because
    import-linter leaves those out. The runner (kcca.systems) never imports the paper's
    report, and the layers are one contract."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    linter = config["tool"]["importlinter"]
    assert linter.get("exclude_type_checking_imports", False) is False
    forbidden = {(tuple(c["source_modules"]), tuple(c["forbidden_modules"]))
                 for c in linter["contracts"] if c["type"] == "forbidden"}
    assert (("kcca.systems",), ("kcca.paper",)) in forbidden
    layers = [c["layers"] for c in linter["contracts"] if c["type"] == "layers"]
    assert any(ls[0] == "kcca.cli" and "features" in ls for ls in layers)


def test_ruff_finds_nothing():
    skip_unless(importlib.util.find_spec("ruff") is not None,
                "ruff is not installed (pip install -e '.[dev]')")
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "kcca", "features"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_ruff_format_leaves_every_file_as_it_is():
    """``ruff format --check``: the code is in the formatter's layout (the formatter's version
    is pinned in the dev extra, since its layout changes between releases)."""
    skip_unless(importlib.util.find_spec("ruff") is not None,
                "ruff is not installed (pip install -e '.[dev]')")
    done = subprocess.run([sys.executable, "-m", "ruff", "format", "--check", "kcca", "features"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_mypy_finds_nothing():
    skip_unless(importlib.util.find_spec("mypy") is not None,
                "mypy is not installed (pip install -e '.[dev]')")
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
