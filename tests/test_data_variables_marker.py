"""The check that keeps the ``data_variables`` marker complete (tests/support/data_variables.py):
in a run with the data, a test that reads ``KCCA_DATA_DIR`` through the library, or starts a
``kcca`` process that inherits it, fails without the marker and passes with it; a test that
reads nothing, starts another program (Java) from the library, sets its own value, or is
skipped without the data passes unmarked.

Each case runs in a fresh pytest process whose conftest installs the check as
``tests/conftest.py`` does (a read counts when this project's code, here the library, makes
it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.optional_tools import skip_unless

REPO = Path(__file__).resolve().parents[1]

CONFTEST = '''
import pytest
from tests.support import data_variables
from tests.support.data_variables import pytest_runtest_makereport, pytest_runtest_setup
data_variables.install()


@pytest.fixture
def data_dir():
    return "stands in for tests/conftest.py's fixture, which skips without the data"
'''

CASES = {
    "reads_through_the_library": ("from kcca.data._paths import resolve_data_dir\n"
                                  "    resolve_data_dir()", False),
    "starts_kcca": ("import subprocess, sys\n"
                    "    subprocess.run([sys.executable, '-m', 'kcca', '--version'], check=True)",
                    False),
    "reads_nothing": ("assert 1 + 1 == 2", True),
    "sets_its_own_value": ("import os\n    os.environ['KCCA_DATA_DIR'] = os.getcwd()\n"
                           "    from kcca.data._paths import resolve_data_dir\n"
                           "    resolve_data_dir()", True),
}


def run_case(tmp_path: Path, body: str, marked: bool, fixture: str = "") -> str:
    """pytest's summary line, then its whole output, for one test with ``body`` (marked or
    not) in a fresh process."""
    folder = tmp_path / f"probe-{'marked' if marked else 'unmarked'}"
    folder.mkdir()
    (folder / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    mark = "@pytest.mark.data_variables\n" if marked else ""
    (folder / "test_probe.py").write_text(
        f"import pytest\n\n\n{mark}def test_probe({fixture}):\n    {body}\n", encoding="utf-8")
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    env = os.environ.copy()  # a copy reads no variable (tests/support/data_variables.py)
    env.update(KCCA_DATA_DIR=str(data), PYTHONPATH=str(REPO))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "--rootdir", str(folder), "-c", os.devnull, str(folder / "test_probe.py")],
        cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    return done.stdout.strip().splitlines()[-1] + "\n" + done.stdout + done.stderr


def assert_passed_without_error(summary: str) -> None:
    """The case's pytest summary line (first line of :func:`run_case`) says it passed, with
    no error from the check."""
    first = summary.split("\n")[0]
    assert "1 passed" in first and "error" not in first, summary


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_a_read_without_the_marker_fails_and_with_it_passes(tmp_path, case):
    body, fine_unmarked = CASES[case]
    unmarked = run_case(tmp_path, body, marked=False)
    if fine_unmarked:
        assert "1 passed" in unmarked and "error" not in unmarked.split("\n")[0], unmarked
    else:
        assert "1 error" in unmarked and "without the marker 'data_variables'" in unmarked, (
            unmarked)
    assert "1 passed" in run_case(tmp_path, body, marked=True).split("\n")[0]


def test_a_test_skipped_without_the_data_needs_no_marker(tmp_path):
    summary = run_case(tmp_path, CASES["reads_through_the_library"][0], marked=False,
                       fixture="data_dir")
    assert_passed_without_error(summary)


def test_a_test_whose_library_code_starts_java_needs_no_marker(tmp_path):
    """The library starting another program (METEOR's jar, inheriting the environment) is no
    read: before, looking at the process's environment counted as one, and such tests ran in
    both passes for nothing."""
    from kcca.captions._meteor import meteor_available

    available, reason = meteor_available("java")
    skip_unless(available, reason)
    body = ("from kcca.captions._meteor import Meteor\n"
            "    Meteor(engine='java').score_tokens([[['a', 'dog']]], [['a', 'dog']])")
    summary = run_case(tmp_path, body, marked=False)
    assert_passed_without_error(summary)
