"""The ``data_variables`` marker and the check that keeps it complete.

A test whose outcome can depend on whether the real data is there reads ``KCCA_DATA_DIR`` or
``NLTK_DATA``: itself, through the library, or by starting a process that inherits them.
``.ci/run``'s second pass (both variables empty, as on a machine without the data) runs only
the tests marked ``data_variables``; every other test behaves the same in both passes and
runs once.

The check, in a run with the data (CI's first pass; nothing is recorded when the variables
are unset or empty): while a test runs (set-up and tear-down included), reads of the two
variables from ``os.environ`` by this project's code (library, tests, scripts; not a library
copying the whole environment) that give the value the session started with are recorded (a
test that set its own value does not depend on the data), and so is every Python or ``kcca``
process started with that value in its environment (inherited or passed); a test that did
either without the marker fails, naming what it read. Mark the whole module (``pytestmark``) when a
module-scoped fixture reads them, since its result then depends on them for every test that
uses it.
"""

from __future__ import annotations

import _collections_abc
import os
import subprocess
import sys
from pathlib import Path

import pytest

import features
import kcca

MARKER = "data_variables"
VARIABLES = ("KCCA_DATA_DIR", "NLTK_DATA")

_reads: set[str] = set()
#: the variables' values when the session started, where set and not empty
_outside: dict[str, str] = {}
#: the folders of this project's code (the checkout, or the installed packages)
_OURS = tuple(
    str(Path(module.__file__).resolve().parent) + os.sep for module in (kcca, features)
) + (str(Path(__file__).resolve().parents[2]) + os.sep,)
#: modules between a read and its reader: the mapping protocol, ``os.getenv``, this module
_BETWEEN = {_collections_abc.__file__, os.__file__, __file__, "<frozen _collections_abc>",
            "<frozen os>"}


#: the mapping methods that copy the whole environment rather than ask for one variable
_COPYING = {"__iter__", "copy", "items", "values"}


def environment_without_data(**extra: str) -> dict[str, str]:
    """A copy of this process's environment without the data variables, with ``extra`` set:
    for a process whose outcome must not depend on the data (its test then needs no marker
    and runs in one pass only)."""
    env = os.environ.copy()
    for name in VARIABLES:
        env.pop(name, None)
    env.update(extra)
    return env


def _read_by_project_code() -> bool:
    """Whether this project's code (the library, its tests and scripts) asked for the
    variable by name, rather than a copy of the whole environment being made."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename in _BETWEEN:
        if frame.f_code.co_name in _COPYING:
            return False
        frame = frame.f_back
    return frame is not None and frame.f_code.co_filename.startswith(_OURS)


def _record_getitem(getitem):
    def __getitem__(self, key):
        value = getitem(self, key)
        if (self is os.environ and key in _outside and value == _outside[key]
                and _read_by_project_code()):
            _reads.add(key)
        return value

    return __getitem__


def _runs_this_project(args) -> bool:
    """Whether a command line runs this project's code: ``kcca``, or Python given code, a
    script or ``-m kcca`` (not ``setup.py``, ``-m pip``, ``-m venv`` and other tools)."""
    argv = [os.fspath(args)] if isinstance(args, (str, os.PathLike)) else [
        os.fspath(a) if isinstance(a, os.PathLike) else str(a) for a in args]
    program = os.path.basename(argv[0].split()[0]) if argv and argv[0] else ""
    if program.startswith("kcca"):
        return True
    if not program.startswith("python"):
        return False
    rest = argv[1:] if len(argv) > 1 else argv[0].split()[1:]
    if rest and os.path.basename(rest[0]) == "setup.py":  # the build, not the library
        return False
    options = [a for a in rest if a.startswith("-")]
    return "-m" not in options or rest[rest.index("-m") + 1] == "kcca"


def _record_popen(init):
    def __init__(self, args, *rest, **kwargs):
        env = kwargs.get("env", rest[9] if len(rest) > 9 else None)  # Popen(args, ..., cwd, env)
        # a copy, so that looking at the variables here is not recorded as the caller's read
        given = os.environ.copy() if env is None else env
        passed = [key for key in _outside if given.get(key) == _outside[key]]
        if passed and _runs_this_project(args):
            _reads.add(f"{' and '.join(passed)} passed to a process ({args!r:.60})")
        return init(self, args, *rest, **kwargs)

    return __init__


def install() -> None:
    """Start recording (once per test process)."""
    if getattr(os._Environ.__getitem__, "_records_data_reads", False):
        return
    _outside.update((key, os.environ[key]) for key in VARIABLES if os.environ.get(key))
    os._Environ.__getitem__ = _record_getitem(os._Environ.__getitem__)
    os._Environ.__getitem__._records_data_reads = True
    subprocess.Popen.__init__ = _record_popen(subprocess.Popen.__init__)


#: fixtures that skip the test when the data is absent (tests/conftest.py)
SKIPPING_FIXTURES = frozenset({"data_dir", "nltk_data_dir"})


def _skips_without_the_data(item: pytest.Item) -> bool:
    """Whether the test is skipped without the data (it needs, directly or through another
    fixture, a fixture that skips): the pass without the data has nothing to run there."""
    return bool(SKIPPING_FIXTURES & set(getattr(item, "fixturenames", ())))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _reads.clear()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if (report.when == "teardown" and _reads and item.get_closest_marker(MARKER) is None
            and not _skips_without_the_data(item)):
        read = ", ".join(sorted(_reads))
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} read {read} without the marker {MARKER!r}: its outcome can depend "
            f"on the data being there, so .ci/run's pass without the data must run it; add "
            f"@pytest.mark.{MARKER} (or pytestmark = pytest.mark.{MARKER} for the module)"
        )
    return report
