"""A newcomer's first hour on a fresh clone without the data, command by command, as printed.

In a fresh temporary folder holding only what a clone gives (``results/hodosh2013`` and
``docs/examples``), with no data folder, no NLTK data and an empty cache: ``kcca demo``, every
next-step command it prints, ``kcca report`` on its folder, and every command of the README's
fenced blocks that needs no real data (the committed results browsed, evaluated and their tables
rebuilt), each through the installed ``kcca`` script and a shell, exactly as printed. A README
command that needs the real data is listed in :data:`NEEDS_DATA` with the reason; any other is
run, so the README cannot drift from the code.
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "results" / "hodosh2013"

#: README commands that need the Flickr 8K data (or Java-free set-up already done by CI)
NEEDS_DATA = {
    'pip install -e ".[dev]"': "the install itself (CI runs it)",
    "python -m pytest -q -n auto": "the test suite itself",
    "export KCCA_DATA_DIR=/path/to/data": "names the data folder",
    "export NLTK_DATA=$KCCA_DATA_DIR/nltk_data": "names the data folder",
    "kcca data": "validates the data folder",
    "kcca data --check-images -j 2": "decodes the data's images",
    "kcca preprocess --corpus flickr8k": "reads the Flickr 8K captions",
    "kcca features --corpus flickr8k --jobs 2": "reads the Flickr 8K images",
    "kcca reproduce --systems BoW5 --tables 3,11 --out my-run": "runs a system on Flickr 8K",
    "kcca reproduce -j 2 --out results/hodosh2013 --force": "runs every system on Flickr 8K",
    "kcca reproduce -j 2 --p 2 --d 1 --out my-run-p2": "runs every system on Flickr 8K",
    "kcca tables --out my-run": "reads my-run, made by a run with the data",
    "kcca reproduce --backend cupy --out my-run-gpu": "runs every system on Flickr 8K",
    "kcca reproduce --experiments experiments/beyond --systems TRI5SEM+FV BoW5+FV "
    "TRI5SEM+FV+CFV BoW5+FV+CFV --tables 3,11,12 --out results/beyond --force -j 2":
        "runs systems on Flickr 8K",
    "kcca evaluate my-run/rankings/BoW5.json": "reads my-run, made by a run with the data",
    "kcca evaluate --paper-tables": "reads the judgment files",
    "kcca similar-words rider --similarity align": "fits word kernels on the Flickr 8K captions",
    "kcca caption-analysis bast": "reads the Flickr-ST tuples",
    "kcca fit-model --system BoW5 --p 2 --d 1 -j 2 --out bow5.kcca.npz":
        "fits a system on Flickr 8K",
    'kcca query "a dog runs on the beach" --model bow5.kcca.npz --top 10 --html dog.html':
        "uses the Flickr 8K model fitted above",
    'kcca query "children play in the snow" --model bow5.kcca.npz --images my_photos/':
        "uses the Flickr 8K model and a folder of photos",
    "kcca annotate photo.jpg --model bow5.kcca.npz [--captions captions.txt] --html photo.html":
        "a usage pattern (a photo of yours, optional arguments in brackets)",
}

#: README commands run by the walk; the files each must leave behind (relative to the folder)
EXPECTED_FILES = {
    "kcca demo": ["kcca-demo-out/report/index.html", "kcca-demo-out/rankings_TRI5.json",
                  "kcca-demo-out/recall_at_k.png"],
    "kcca report results/hodosh2013 -o report/": ["report/index.html"],
    "kcca tables --rankings-dir results/hodosh2013/rankings --out tables-check":
        ["tables-check/table3.csv", "tables-check/table11.csv", "tables-check/table12.csv"],
    "kcca score-captions --references docs/examples/references.json --candidates "
    "docs/examples/candidates.json --per-item scores.json": ["scores.json"],
}


def readme_commands() -> list[str]:
    """Every command line of the README's fenced ``bash`` blocks, its ``# comment`` removed."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.splitlines():
            command = re.sub(r"\s+#.*$", "", line).strip()
            if command and not command.startswith("#"):
                out.append(command)
    return out


@pytest.fixture(scope="module")
def walk(tmp_path_factory):
    """The fresh folder and the environment of a machine without the data."""
    if not (RESULTS / "rankings").is_dir():
        pytest.fail(f"{RESULTS}/rankings is not in the repository: the committed results "
                    "must be browsable on a fresh clone")
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "kcca").exists():
        pytest.fail(f"no kcca script beside {sys.executable}: install the project "
                    "(pip install -e .) before the tests")
    root = tmp_path_factory.mktemp("newcomer")
    shutil.copytree(RESULTS, root / "results" / "hodosh2013")
    shutil.copytree(REPO / "docs" / "examples", root / "docs" / "examples")
    env = os.environ.copy()  # a copy reads no data variable (tests/support/data_variables.py)
    env.update(KCCA_DATA_DIR="", NLTK_DATA="", MPLBACKEND="Agg",
               KCCA_CACHE_DIR=str(root / ".cache"), PATH=f"{bin_dir}{os.pathsep}"
               f"{os.environ.get('PATH', '')}")
    return root, env


def run(command: str, walk) -> subprocess.CompletedProcess:
    root, env = walk
    done = subprocess.run(["bash", "-c", command], cwd=root, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, (f"`{command}` exited {done.returncode}\n{done.stdout[-3000:]}"
                                  f"\n{done.stderr[-3000:]}")
    return done


def test_every_readme_command_is_run_or_needs_the_data():
    commands = readme_commands()
    assert "kcca demo" in commands
    unknown = [c for c in commands if c not in NEEDS_DATA and c not in EXPECTED_FILES
               and c not in RUN_WITHOUT_FILES]
    assert not unknown, ("README commands neither run by this walk nor listed as needing the "
                         f"data: {unknown}")
    stale = [c for c in list(NEEDS_DATA) + list(EXPECTED_FILES) + list(RUN_WITHOUT_FILES)
             if c not in commands]
    assert not stale, f"commands no longer in the README: {stale}"


#: README commands run by the walk that leave no file (they print)
RUN_WITHOUT_FILES = {
    'kcca query "a red circle" --model demo',
    "kcca evaluate results/hodosh2013/rankings/BoW5.ranks.npz",
}


@pytest.mark.slow
def test_demo_then_every_next_step_it_prints(walk):
    root, _ = walk
    done = run("kcca demo", walk)
    for path in EXPECTED_FILES["kcca demo"]:
        assert (root / path).is_file(), path
    steps = re.findall(r"next: `(kcca [^`]+)`", done.stdout)
    assert steps, done.stdout
    for step in steps:
        run(step, walk)
    run("kcca report kcca-demo-out -o demo-report", walk)
    assert (root / "demo-report" / "index.html").is_file()


#: the README's command that rebuilds the committed tables (run once: it takes the longest)
TABLES_COMMAND = "kcca tables --rankings-dir results/hodosh2013/rankings --out tables-check"


@pytest.fixture(scope="module")
def readme_tables(walk) -> subprocess.CompletedProcess:
    """:data:`TABLES_COMMAND` run once, as printed, for the tests that read what it wrote."""
    return run(TABLES_COMMAND, walk)


@pytest.mark.slow
@pytest.mark.parametrize("command", [c for c in readme_commands()
                                     if c not in NEEDS_DATA and c != "kcca demo"])
def test_readme_command_runs_as_printed_without_the_data(walk, command, request):
    root, _ = walk
    if command == TABLES_COMMAND:
        request.getfixturevalue("readme_tables")
    else:
        run(command, walk)
    for path in EXPECTED_FILES.get(command, []):
        assert (root / path).is_file(), path


@pytest.mark.slow
def test_committed_tables_come_back_from_the_committed_results_without_the_data(
    walk, readme_tables
):
    """The README's ``kcca tables`` on the compact results rebuilds every cell of the committed
    tables but those it names as needing the data (Tables 8-10, the Random row's judged cells).
    (``kcca reproduce --tables-only`` writes the same files: tests/kcca/_cli/test_tables_cmd.py.)"""
    root, _ = walk
    rebuilt = root / "tables-check"
    done = readme_tables
    assert "need the data" in " ".join((done.stdout + done.stderr).split())
    compared = 0
    for committed in sorted(RESULTS.glob("table*.csv")):
        with committed.open(newline="", encoding="utf-8") as fh:
            want = list(csv.reader(fh))
        path = rebuilt / committed.name
        got = []
        if path.is_file():
            with path.open(newline="", encoding="utf-8") as fh:
                got = list(csv.reader(fh))
        needs_data = committed.name in ("table8.csv", "table9.csv", "table10.csv")
        missing = [r for r in want if r not in got and not needs_data and "Random" not in r]
        extra = [r for r in got if r not in want and "Random" not in r]
        assert not missing and not extra, (committed.name, missing[:5], extra[:5])
        compared += len(got)
    assert compared > 300
