"""The layout the code keeps: import-linter's contracts (``[tool.importlinter]`` in
pyproject.toml: the library never imports the CLI, ``features`` below the pipeline and above
the base modules, no import circle between sibling modules), ruff's checks and layout
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
