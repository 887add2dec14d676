"""The version lives in one place, ``kcca.__version__`` (``kcca/__init__.py``).

``pyproject.toml`` declares it dynamic and setuptools reads that assignment without importing
``kcca``, so a wheel, an editable install and a plain checkout on ``sys.path`` all report the
same version.
"""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

import pytest

import kcca

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTION = "kcca-image-description"

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_pyproject_takes_the_version_from_kcca():
    """``[project]`` names no version of its own; setuptools takes ``kcca.__version__``."""
    config = _pyproject()
    assert "version" not in config["project"]
    assert "version" in config["project"]["dynamic"]
    assert config["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "kcca.__version__"}


def test_setuptools_reads_the_version_kcca_reports():
    """The reader a build uses gives the checkout's ``kcca.__version__``."""
    expand = pytest.importorskip("setuptools.config.expand")
    assert expand.read_attr("kcca.__version__", {}, str(ROOT)) == kcca.__version__


def test_the_installed_distribution_reports_the_same_version():
    """An installed ``kcca-image-description`` (editable or a wheel) has that version."""
    try:
        installed = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"{DISTRIBUTION} is not installed (a plain checkout on sys.path)")
    assert installed == kcca.__version__
