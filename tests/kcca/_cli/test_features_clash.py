"""Another package named ``features`` (there is one on PyPI) imported in place of kcca's makes
``import kcca`` fail at once, naming the clash and the fix, instead of a puzzling error later."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def import_kcca(first_on_path: Path) -> subprocess.CompletedProcess:
    rest = os.environ.get("PYTHONPATH")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(first_on_path)] + ([rest] if rest
                                                                                else [])))
    return subprocess.run([sys.executable, "-c", "import kcca"], env=env, cwd=first_on_path,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.data_variables
@pytest.mark.parametrize("where", ["somewhere", "lib/python3/site-packages"])
def test_a_foreign_features_package_is_named_with_the_fix(tmp_path, where):
    fake = tmp_path / where / "features"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text('"""An unrelated package called features."""\n')
    done = import_kcca(fake.parent)
    assert done.returncode != 0
    assert "ImportError" in done.stderr, done.stderr
    assert f"error: the package `features` imported from {fake} is not kcca's" in done.stderr
    fix = "-m pip uninstall -y features" if "site-packages" in where else "from PYTHONPATH"
    assert "\nfix: " in done.stderr and fix in done.stderr, done.stderr


def test_kccas_own_features_package_carries_the_marker():
    import features

    import kcca  # noqa: F401

    assert features.KCCA_FEATURES is True


@pytest.mark.data_variables
def test_the_kcca_command_names_the_clash_without_a_traceback(tmp_path):
    """The console script prints the error and fix lines and exits with status 2."""
    import shutil

    script = shutil.which("kcca")
    if script is None:
        pytest.skip("the kcca command is not installed (pip install -e .)")
    fake = tmp_path / "features"
    fake.mkdir()
    (fake / "__init__.py").write_text('"""An unrelated package called features."""\n')
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    done = subprocess.run([script, "--version"], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("error: the package `features` imported from"), done.stderr
    assert "\nfix: " in done.stderr
