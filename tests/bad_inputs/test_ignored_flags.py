"""A flag that the command would ignore in the combination given is refused, never dropped:
exit status 2, one ``error:`` line naming the flag, one ``fix:`` line saying what to do.

Every case runs where a flag let through costs seconds at most (no data folder, the committed
compact results files, tiny inputs), so that the old behaviour fails the test quickly.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kcca.cli import main
from tests.bad_inputs.test_named_errors import one_error

RANKINGS = Path(__file__).resolve().parents[2] / "results" / "hodosh2013" / "rankings"
BOW5 = str(RANKINGS / "BoW5.ranks.npz")


@pytest.fixture
def no_data(tmp_path, monkeypatch):
    """No data folder: $KCCA_DATA_DIR unset (compact files are evaluated on what they hold)."""
    monkeypatch.delenv("KCCA_DATA_DIR", raising=False)
    return tmp_path


def refused(capsys, argv: list[str]) -> tuple[str, str]:
    """Run ``kcca ARGV``; it must exit 2 with one error and one fix, returned."""
    code = main(argv)
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2, (error, fix)
    return error, fix


# ----------------------------------------------------------------------------- evaluate
EVALUATE_CASES = [
    (["--paper-tables", "--ties", "first"], "--ties", "give the rankings files"),
    (["--paper-tables", "--relevance", "majority", "--no-bleu-rouge"],
     "--relevance, --no-bleu-rouge", "give the rankings files"),
    ([BOW5, "--compare"], "--compare", "two or more rankings files"),
    ([BOW5, "--samples", "50"], "--samples", "add --compare"),
    ([BOW5, "--no-per-query"], "--no-per-query", "--output OUT.json or --format json"),
    ([BOW5, "--judgments", "somewhere"], "--judgments", "--data-dir DIR"),
    ([BOW5, "--split", "dev"], "--split dev", "give --split test"),
]


@pytest.mark.parametrize("extra, named, fix_text", EVALUATE_CASES,
                         ids=[c[1] for c in EVALUATE_CASES])
def test_evaluate_refuses_a_flag_it_would_ignore(no_data, capsys, extra, named, fix_text):
    error, fix = refused(capsys, ["evaluate", *extra])
    assert named in error, error
    assert fix_text in fix, fix
