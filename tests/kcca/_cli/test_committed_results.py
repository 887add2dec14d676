"""Committed results stay as committed: ``kcca report`` writes into them only when told
(``--allow-committed``), ``kcca reproduce`` refuses to write tables there from code with local
changes (``--allow-dirty``), and the header's commit line names those changes."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

from kcca import _provenance as provenance
from kcca._cli import main

REPO = Path(__file__).resolve().parents[3]


def git(cwd: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=cwd, check=True, capture_output=True,
    ).stdout


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A git checkout with a committed run folder ``results/run`` and a module ``code.py``."""
    root = tmp_path / "clone"
    (root / "results" / "run" / "rankings").mkdir(parents=True)
    (root / "results" / "run" / "table3.md").write_text("# Table 3\n")
    (root / "code.py").write_text("x = 1\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "results")
    return root


@pytest.fixture
def reports(monkeypatch) -> list[Path]:
    """The folders ``kcca report`` writes to (no report is built)."""
    import kcca._report

    written: list[Path] = []

    def fake_build_report(run_dir, out_dir=None, **kwargs):
        written.append(Path(out_dir) if out_dir is not None else Path(run_dir) / "report")
        return written[-1] / "index.html"

    monkeypatch.setattr(kcca._report, "build_report", fake_build_report)
    return written


def test_project_results_folder_counts_as_committed(tmp_path):
    assert provenance.committed_results(REPO / "results" / "hodosh2013" / "report")
    assert provenance.committed_results(tmp_path / "my-run" / "report") is None


def test_report_of_committed_results_goes_outside_them(checkout, reports, tmp_path,
                                                      monkeypatch, capsys):
    here = tmp_path / "elsewhere"
    here.mkdir()
    monkeypatch.chdir(here)
    assert main(["report", str(checkout / "results" / "run")]) == 0
    assert [p.resolve() for p in reports] == [here / "run-report"]
    out = capsys.readouterr().out
    assert "holds committed results" in out and "run-report" in out


def test_report_into_committed_results_only_when_told(checkout, reports, capsys):
    run = checkout / "results" / "run"
    assert main(["report", str(run), "-o", str(run / "report")]) == 2
    err = capsys.readouterr().err
    assert "error:" in err and "committed results" in err
    assert f"fix: write elsewhere: `kcca report {run} -o run-report`" in err
    assert not reports
    assert main(["report", str(run), "-o", str(run / "report"), "--allow-committed"]) == 0
    assert reports == [run / "report"]


def test_report_of_an_uncommitted_run_goes_into_it(tmp_path, reports):
    assert main(["report", str(tmp_path / "my-run")]) == 0
    assert reports == [tmp_path / "my-run" / "report"]


def test_commit_line_names_the_local_changes(checkout, monkeypatch):
    monkeypatch.setattr(provenance, "_SOURCE_TREE", checkout)
    head = git(checkout, "rev-parse", "--short", "HEAD").decode().strip()
    assert provenance.git_commit() == head
    (checkout / "code.py").write_text("x = 2\n")
    digest = hashlib.sha256(git(checkout, "diff", "HEAD", "--binary")).hexdigest()
    line = provenance.git_commit()
    assert line.startswith(head) and "code.py" in line and digest[:12] in line, line
    (checkout / "kcca").mkdir()  # a new file of the code counts too, with its content
    (checkout / "kcca" / "new.py").write_text("y = 1\n")
    line = provenance.git_commit()
    assert "new: kcca/new.py" in line and digest[:12] not in line, line


def test_reproduce_into_committed_results_refuses_a_dirty_tree(checkout, tmp_path,
                                                               monkeypatch, capsys):
    monkeypatch.setattr(provenance, "_SOURCE_TREE", checkout)
    monkeypatch.setenv("KCCA_DATA_DIR", "")
    (checkout / "code.py").write_text("x = 2\n")
    args = ["reproduce", "--tables-only", "--rankings-dir", str(tmp_path / "none"),
            "--out", str(checkout / "results" / "run")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "local changes" in err and "code.py" in err, err
    assert "fix: commit the changes first" in err and "`--allow-dirty`" in err
    assert main([*args, "--allow-dirty"]) == 2  # on to the next check: the missing rankings
    assert "no rankings folder" in capsys.readouterr().err
    git(checkout, "commit", "-q", "-am", "clean")
    assert main(args) == 2
    assert "no rankings folder" in capsys.readouterr().err
