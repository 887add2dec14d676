"""Two experiment files whose systems would write the same rankings file are refused.

``kcca reproduce`` ran both, and the second system's rankings (``<name>.json``, the name with
every character but letters and digits as ``_``) overwrote the first's. Loading the folder is
now an error naming both files, before any data is read.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from kcca._cli import main
from kcca._systems.run import slug
from kcca._systems.spec import ExperimentFileError, load_specs
from tests.support.named_errors import one_error

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENTS = ROOT / "experiments" / "hodosh2013"


def _named(text: str, name: str, short_name: str) -> str:
    text = re.sub(r'(?m)^name = "BoW5"$', f'name = "{name}"', text)
    return re.sub(r"(?m)^short_name = .*$", f'short_name = "{short_name}"', text)


def _folder(tmp_path: Path, first_name: str | None, second_name: str | None
            ) -> tuple[Path, Path, Path]:
    """Experiment files 08-BoW5.toml and 13-TRI5.toml, and a copy of the first as
    99-copy.toml; the two copies named ``first_name`` and ``second_name`` (BoW5 when None)."""
    folder = tmp_path / "experiments"
    folder.mkdir()
    first = folder / "08-BoW5.toml"
    text = (EXPERIMENTS / "08-BoW5.toml").read_text()
    first.write_text(text if first_name is None else _named(text, first_name, "one"))
    shutil.copy(EXPERIMENTS / "13-TRI5.toml", folder / "13-TRI5.toml")
    second = folder / "99-copy.toml"
    second.write_text(text if second_name is None else _named(text, second_name, "two"))
    return folder, first, second


@pytest.mark.parametrize("first_name, second_name, names", [
    (None, None, "system 'BoW5'"),  # a copied file
    ("BoW5", "BoW5", "system 'BoW5'"),  # another short name, the same name
    ("BoW5^x", "BoW5,x", "systems 'BoW5^x' and 'BoW5,x'"),  # the same file name
])
def test_two_files_writing_one_rankings_file_are_refused(tmp_path, first_name, second_name,
                                                         names):
    folder, first, second = _folder(tmp_path, first_name, second_name)
    with pytest.raises(ExperimentFileError) as info:
        load_specs(folder)
    stem = slug(second_name or "BoW5")
    assert str(info.value) == (f"{first} and {second} both define {names}: each run would "
                               f"write its rankings to {stem}.json over the other's")
    assert f"move {second} out of {folder}" in info.value.fix


def test_kcca_reproduce_refuses_them_before_reading_data(tmp_path, capsys):
    folder, first, second = _folder(tmp_path, None, None)
    argv = ["reproduce", "--experiments", str(folder), "--systems", "BoW5", "--data-dir",
            str(tmp_path / "no-data-here"), "--out", str(tmp_path / "out")]
    (tmp_path / "no-data-here").mkdir()
    assert main(argv) == 2
    error, fix = one_error(capsys.readouterr().err)
    assert error.startswith(f"{first} and {second} both define system 'BoW5'"), error
    second.unlink()  # the fix's second remedy, then the same command gets past the files
    assert main(argv) == 2
    error, _ = one_error(capsys.readouterr().err)
    assert "both define" not in error, error
