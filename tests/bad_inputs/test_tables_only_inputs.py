"""``kcca reproduce --tables-only`` stops on a damaged compact results file.

A ``.ranks.npz`` that cannot be read (cut short, not a zip, pickled object arrays, or values
that contradict its header) was left out of the tables as "not run", with exit status 0. It
is now an error naming the file (exit status 2), and no table is written. No data is needed:
the folder holds copies of committed compact files.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from kcca._cli import main
from tests.support.named_errors import one_error

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "results" / "hodosh2013" / "rankings"


def _cut(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:5000])


def _not_a_zip(path: Path) -> None:
    path.write_text("these are not rankings\n")


def _pickled(path: Path) -> None:
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["search/query_ids"] = np.array(list(arrays["search/query_ids"]), dtype=object)
    np.savez(path, **arrays)


def _edited_aggregate(path: Path) -> None:
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    header = json.loads(str(arrays["header"]))
    header["aggregates"]["annotation"]["R@1"] = 99.0
    arrays["header"] = np.array(json.dumps(header, sort_keys=True))
    np.savez_compressed(path, **arrays)


DAMAGE = {"cut short": (_cut, "not a readable compact results file"),
          "not a zip": (_not_a_zip, "not a readable compact results file"),
          "pickled": (_pickled, "Object arrays cannot be loaded"),
          "edited aggregate": (_edited_aggregate, "the header gives R@1 = 99.0")}


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A rankings folder of two committed compact files; no data folder."""
    monkeypatch.delenv("KCCA_DATA_DIR", raising=False)
    rankings = tmp_path / "rankings"
    rankings.mkdir()
    for name in ("BoW5", "TRI5"):
        shutil.copy(COMMITTED / f"{name}.ranks.npz", rankings)
    return rankings


def _tables_only(rankings: Path) -> list[str]:
    return ["reproduce", "--tables-only", "--rankings-dir", str(rankings), "--out",
            str(rankings.parent / "out"), "--tables", "3", "--no-plots", "-q"]


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_compact_file_is_an_error(folder, capsys, damage):
    bad = folder / "TRI5.ranks.npz"
    spoil, reason = DAMAGE[damage]
    spoil(bad)
    assert main(_tables_only(folder)) == 2
    error, fix = one_error(capsys.readouterr().err)
    assert error.startswith(f"{bad}: ") and reason in error, error
    assert fix.startswith(f"restore {bad} from where it came"), fix
    assert not list((folder.parent / "out").glob("table*"))  # nothing written


def test_the_fix_runs_as_printed(folder, capsys):
    bad = folder / "TRI5.ranks.npz"
    _cut(bad)
    assert main(_tables_only(folder)) == 2
    _, fix = one_error(capsys.readouterr().err)
    assert "or delete it to leave its system out of the tables" in fix
    bad.unlink()  # the second remedy
    assert main(_tables_only(folder)) == 0
    table = (folder.parent / "out" / "table3.md").read_text()
    assert "rankings: " in table and "(1 system(s): BoW5)" in table
    assert "skipped rankings files" not in table
