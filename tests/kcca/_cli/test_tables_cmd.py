"""``kcca tables``: the tables and plots rebuilt from existing rankings files, by the code path
of ``kcca reproduce --tables-only`` (an alias that says so), with only the table flags."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kcca._cli import main

REPO = Path(__file__).resolve().parents[3]
COMPACT = REPO / "results" / "hodosh2013" / "rankings"
#: the header lines that name how and when the tables were made, not what they hold
PROVENANCE = ("- command:", "- date:", "- commit:")
#: the flags of ``kcca tables`` beside the common options
TABLE_FLAGS = {"--tables", "--systems", "--experiments", "--splits", "--corpus", "--out",
               "--rankings-dir", "--relevance", "--samples", "--no-plots", "--force",
               "--allow-dirty"}
#: the flags that only change how systems run
RUN_FLAGS = {"--tables-only", "--images-dir", "--scheduler", "--p", "--d", "--image-config",
             "--search-rank", "--protocol", "--backend", "--precision"}


def _content(path: Path) -> bytes:
    """A file's bytes without the header lines of :data:`PROVENANCE`."""
    lines = path.read_bytes().splitlines(keepends=True)
    return b"".join(x for x in lines if not x.startswith(tuple(p.encode() for p in PROVENANCE)))


def _help_flags(argv: list[str], capsys) -> set[str]:
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 0
    return set(re.findall(r"(?m)^  (--[a-z-]+)", capsys.readouterr().out))


@pytest.fixture
def no_data(monkeypatch):
    monkeypatch.delenv("KCCA_DATA_DIR", raising=False)


@pytest.mark.slow
def test_tables_writes_what_reproduce_tables_only_writes(tmp_path, no_data, capsys):
    """Tables 3 and 11 from the committed compact results: the same files, byte for byte but
    for the header's command, date and commit lines; only the alias prints its note."""
    flags = ["--rankings-dir", str(COMPACT), "--tables", "3,11", "--samples", "200", "--quiet"]
    assert main(["tables", *flags, "--out", str(tmp_path / "new")]) == 0
    new_err = capsys.readouterr().err
    assert main(["reproduce", "--tables-only", *flags, "--out", str(tmp_path / "old")]) == 0
    old_err = capsys.readouterr().err
    names = sorted(p.name for p in (tmp_path / "new").iterdir())
    assert {"table3.md", "table3.csv", "table11.md", "table11.csv"} <= set(names), names
    assert names == sorted(p.name for p in (tmp_path / "old").iterdir())
    for name in names:
        assert _content(tmp_path / "new" / name) == _content(tmp_path / "old" / name), name
    note = "note: `kcca tables` is the command now for `kcca reproduce --tables-only`"
    assert [line for line in old_err.splitlines() if "kcca tables" in line] == [
        line for line in old_err.splitlines() if line.startswith(note)
    ] and note in old_err
    assert "kcca tables" not in new_err


def test_tables_help_lists_only_table_flags(capsys):
    from kcca._cli.common import COMMON_OPTIONS

    common = {flags[0] for flags, _ in COMMON_OPTIONS}
    assert _help_flags(["tables", "--help"], capsys) == TABLE_FLAGS | common


def test_tables_takes_no_run_flag():
    """A flag that changes how systems run is not an option of ``kcca tables``."""
    from tests.support.fix_lines import option_strings

    from kcca._cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command").choices
    assert not option_strings(sub["tables"]) & RUN_FLAGS
    assert RUN_FLAGS <= option_strings(sub["reproduce"])


def test_reproduce_help_leaves_out_the_settings_of_run_toml(capsys):
    """``--image-config``, ``--precision`` and ``--search-rank`` (run.toml's
    ``[run.image_features]``, ``precision``, ``search_rank``) and the ``--tables-only`` alias
    are accepted but not listed; the help names run.toml and ``kcca tables``."""
    from kcca._cli import build_parser

    shown = _help_flags(["reproduce", "--help"], capsys)
    hidden = {"--image-config", "--precision", "--search-rank", "--tables-only"}
    assert not shown & hidden and TABLE_FLAGS <= shown
    with pytest.raises(SystemExit):
        main(["reproduce", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "run.toml" in text and "kcca tables" in text
    args = build_parser().parse_args(["reproduce", "--image-config", "{}", "--precision", "1e-3",
                                      "--search-rank", "0", "--tables-only"])
    assert (args.image_config, args.precision, args.search_rank, args.tables_only) == (
        "{}", 1e-3, 0, True)
