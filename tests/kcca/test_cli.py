"""The ``kcca`` command: help for every subcommand, common options, clear data errors."""

import json
import subprocess
import sys

import pytest

from kcca._cli import build_parser, main
from tests.support.fake_flickr8k import write_fake_flickr8k


def _subcommands():
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return sorted(action.choices)


def test_help_for_every_subcommand(capsys):
    names = _subcommands()
    assert "data" in names
    for name in names:
        with pytest.raises(SystemExit) as exc:
            main([name, "--help"])
        assert exc.value.code == 0
        out = capsys.readouterr().out
        for opt in ("--data-dir", "--cache-dir", "--seed", "--jobs", "--quiet"):
            assert opt in out, (name, opt)


def test_common_options_before_or_after_subcommand(tmp_path, capsys):
    write_fake_flickr8k(tmp_path)
    assert main(["--data-dir", str(tmp_path), "data", "--json"]) == 0
    before = json.loads(capsys.readouterr().out)
    assert main(["data", "--json", "--data-dir", str(tmp_path), "--seed", "3"]) == 0
    after = json.loads(capsys.readouterr().out)
    assert before == after and before["splits"] == {"train": 2, "dev": 1, "test": 1}


def test_data_error_is_a_clean_message(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("KCCA_DATA_DIR", raising=False)
    assert main(["data"]) == 2
    assert "pass --data-dir or set KCCA_DATA_DIR" in capsys.readouterr().err
    assert main(["data", "--data-dir", str(tmp_path / "none")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_console_script_runs():
    out = subprocess.run([sys.executable, "-m", "kcca._cli", "--help"], capture_output=True,
                         text=True, check=True).stdout
    assert "usage: kcca" in out
