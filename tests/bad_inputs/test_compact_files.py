"""A hand-edited compact results file (``<SYSTEM>.ranks.npz``) is refused, not printed.

The tables and ``kcca evaluate`` print the header's aggregates as they are; the reader now
recomputes them from the per-query arrays, and refuses NaN or out-of-range per-query values,
non-integer ranks, a candidate twice in a top list, and a gold rank the top list contradicts.
Each case edits a copy of a committed file (no data needed) and expects a ``DataError``
naming the file, and ``kcca evaluate`` on it exits 2 with one ``error:`` line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from kcca._cli import main
from kcca.data._errors import DataError
from kcca._evaluate.compact import read_compact
from tests.support.named_errors import one_error

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "results" / "hodosh2013" / "rankings" / "BoW5.ranks.npz"

Edit = Callable[[dict, dict], None]


def _set_aggregate(task: str, name: str, value: float) -> Edit:
    def edit(arrays: dict, header: dict) -> None:
        header["aggregates"][task][name] = value
    return edit


def _set_value(key: str, row: int, value: float) -> Edit:
    def edit(arrays: dict, header: dict) -> None:
        arrays[key] = arrays[key].copy()
        arrays[key][row] = value
    return edit


def _gold_as_float_with_nan(arrays: dict, header: dict) -> None:
    gold = arrays["search/gold"].astype(float)
    gold[3] = np.nan
    arrays["search/gold"] = gold


def _duplicate_in_top(arrays: dict, header: dict) -> None:
    top = arrays["annotation/top"].copy()
    row = int(np.flatnonzero(arrays["annotation/gold"] > 25)[0])  # the gold rank stays true
    top[row, 7] = top[row, 3]
    arrays["annotation/top"] = top


def _gold_moved_past_the_top(arrays: dict, header: dict) -> None:
    gold = arrays["annotation/gold"].copy()
    row = int(np.flatnonzero(gold == 1)[0])
    gold[row] = 60  # but the top list still has the original item first
    arrays["annotation/gold"] = gold


def _drop_aggregate(arrays: dict, header: dict) -> None:
    del header["aggregates"]["search"]["S@5 bound"]


def _unknown_metric(arrays: dict, header: dict) -> None:
    arrays["search/metric/S@1 lucky"] = arrays["search/metric/S@1"]
    header["aggregates"]["search"]["S@1 lucky"] = header["aggregates"]["search"]["S@1"]


def _set_coverage(task: str, name: str, value: float) -> Edit:
    def edit(arrays: dict, header: dict) -> None:
        header["coverage"][task][name] = value
    return edit


def _set_total(arrays: dict, header: dict) -> None:
    header["coverage"]["R-precision total (Table 5)"] = 50.0


#: (case, edit, what the message must say)
CASES = [
    ("R@1 aggregate", _set_aggregate("annotation", "R@1", 44.0),
     r"task annotation: the header gives R@1 = 44\.0, but the per-query values give 4\.39"),
    ("median rank aggregate", _set_aggregate("search", "median rank", 3.0),
     r"task search: the header gives median rank = 3\.0, but the per-query values give 52\.0"),
    ("S@1 aggregate", _set_aggregate("annotation", "S@1", 90.0),
     r"the header gives S@1 = 90\.0, but the per-query values give 10\.8"),
    ("expert mean aggregate", _set_aggregate("annotation", "expert mean", 3.9),
     r"the header gives expert mean = 3\.9"),
    ("aggregate not a number", _set_aggregate("annotation", "top-1 BLEU", "high"),
     r"the header gives top-1 BLEU = 'high'"),
    ("Table 5 total", _set_total, r"R-precision total \(Table 5\) = 50\.0, not the mean"),
    ("missing aggregate", _drop_aggregate,
     r"task search: no aggregate in the header for S@5 bound"),
    ("unknown metric", _unknown_metric, r"task search: unknown stored metric 'S@1 lucky'"),
    ("NaN S@1", _set_value("annotation/metric/S@1", 5, np.nan),
     r"task annotation: S@1 of query \S+ is nan, not 0 or 1"),
    ("S@5 of 2", _set_value("search/metric/S@5", 0, 2.0), r"S@5 of query \S+ is 2\.0, not 0 or 1"),
    ("R-precision of 1.5", _set_value("search/metric/R-precision", 9, 1.5),
     r"R-precision of query \S+ is 1\.5, not in 0\.\.1"),
    ("negative imputed", _set_value("annotation/metric/S@10 imputed", 2, -0.25),
     r"S@10 imputed of query \S+ is -0\.25, not in 0\.\.1"),
    ("expert mean of 7", _set_value("annotation/metric/expert mean", 1, 7.0),
     r"expert mean of query \S+ is 7\.0, not in 1\.\.4 or NaN"),
    ("NaN BLEU", _set_value("annotation/metric/top-1 BLEU", 4, np.nan),
     r"top-1 BLEU of query \S+ is nan, not in 0\.\.1"),
    ("NaN gold rank", _gold_as_float_with_nan,
     r"task search: gold ranks \(float64\) and top lists \(int32\) must be integers"),
    ("duplicate in top", _duplicate_in_top,
     r"task annotation: query \S+ has a candidate twice in its top 25"),
    ("gold past the top", _gold_moved_past_the_top,
     r"task annotation: the top lists disagree with the gold ranks"),
    ("coverage over 1", _set_coverage("search", "top-5 judged", 1.5),
     r"task search: coverage top-5 judged = 1\.5 is not a fraction in 0\.\.1"),
]


def _edited(tmp_path: Path, edit: Edit) -> Path:
    with np.load(COMMITTED, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    header = json.loads(str(arrays["header"]))
    edit(arrays, header)
    arrays["header"] = np.array(json.dumps(header, sort_keys=True))
    path = tmp_path / "BoW5.ranks.npz"
    np.savez_compressed(path, **arrays)
    return path


@pytest.mark.parametrize("case, edit, message", CASES, ids=[c[0] for c in CASES])
def test_an_edited_compact_file_is_refused(tmp_path, case, edit, message):
    path = _edited(tmp_path, edit)
    with pytest.raises(DataError) as info:
        read_compact(path)
    assert str(info.value).startswith(f"{path}: "), str(info.value)
    assert re.search(message, str(info.value)), str(info.value)
    assert info.value.fix.startswith(f"restore {path} from where it came (`git checkout -- ")


@pytest.mark.parametrize("case, edit, message", CASES[:3] + CASES[8:9] + CASES[15:16],
                         ids=[c[0] for c in CASES[:3] + CASES[8:9] + CASES[15:16]])
def test_kcca_evaluate_names_the_edited_file(tmp_path, capsys, monkeypatch, case, edit,
                                             message):
    monkeypatch.delenv("KCCA_DATA_DIR", raising=False)
    path = _edited(tmp_path, edit)
    assert main(["evaluate", str(path)]) == 2
    error, fix = one_error(capsys.readouterr().err)
    assert error.startswith(f"{path}: ") and re.search(message, error), error


def _with_header_text(tmp_path: Path, text: str) -> Path:
    """A copy of the committed file whose header member holds ``text`` as it is."""
    with np.load(COMMITTED, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["header"] = np.array(text)
    path = tmp_path / "BoW5.ranks.npz"
    np.savez_compressed(path, **arrays)
    return path


def _header_with_tasks(tasks: object) -> str:
    header = json.loads(str(np.load(COMMITTED, allow_pickle=False)["header"]))
    header["tasks"] = tasks
    return json.dumps(header)


#: (case, the header's text, what the message must say)
HEADER_CASES = [
    ("a list", lambda: json.dumps(["format", "version"]), r"header is array, not a table"),
    ("a number", lambda: "3", r"header is integer, not a table"),
    ("tasks a number", lambda: _header_with_tasks(3), r"tasks are not a list of task names"),
    ("tasks a table", lambda: _header_with_tasks({"search": 1}), r"tasks are not a list"),
    ("nested 200,000 deep", lambda: "[" * 200_000 + "]" * 200_000,
     r"JSON nested too deeply to read"),
]


@pytest.mark.parametrize("case, text, message", HEADER_CASES, ids=[c[0] for c in HEADER_CASES])
def test_a_header_of_the_wrong_shape_is_named(tmp_path, capsys, monkeypatch, case, text,
                                              message):
    """A header that is JSON but not a table, or whose tasks are not a list of names, or
    nested past what the parser follows: named with the file, exit 2 (was an unexpected
    AttributeError, TypeError or RecursionError, exit 1)."""
    monkeypatch.delenv("KCCA_DATA_DIR", raising=False)
    path = _with_header_text(tmp_path, text())
    with pytest.raises(DataError, match=message) as err:
        read_compact(path)
    assert str(path) in str(err.value)
    assert main(["evaluate", str(path)]) == 2
    error, fix = one_error(capsys.readouterr().err)
    assert error.startswith(f"{path}") and re.search(message, error), error
