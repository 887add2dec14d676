"""Shared fixtures: the real data folder (skipped cleanly when absent) and NLTK data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support import data_variables
from tests.support.data_variables import (  # noqa: F401 - hooks of this conftest
    pytest_runtest_makereport,
    pytest_runtest_setup,
)

_SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
if "KCCA_DATA_DIR" not in os.environ and _SHARED.is_dir():
    os.environ["KCCA_DATA_DIR"] = str(_SHARED)
if "NLTK_DATA" not in os.environ and (_SHARED / "nltk_data").is_dir():
    os.environ["NLTK_DATA"] = str(_SHARED / "nltk_data")


# captured once, at collection: a test that monkeypatches these variables must not decide
# for the whole session (the session fixtures below would cache its skip)
_DATA_DIR_AT_START = os.environ.get("KCCA_DATA_DIR")
_NLTK_DATA_AT_START = os.environ.get("NLTK_DATA")
data_variables.install()


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The real data folder (``$KCCA_DATA_DIR``); tests using it skip when it is absent."""
    value = _DATA_DIR_AT_START
    if not value or not (Path(value) / "flickr8k").is_dir():
        pytest.skip("real data absent: set KCCA_DATA_DIR to a folder holding flickr8k/")
    return Path(value)


@pytest.fixture(scope="session")
def nltk_data_dir() -> Path:
    """The NLTK data folder (``$NLTK_DATA``); tests using it skip when it is absent."""
    value = _NLTK_DATA_AT_START
    if not value or not Path(value).is_dir():
        pytest.skip("NLTK data absent: set NLTK_DATA (see data/README.md)")
    return Path(value)


@pytest.fixture(scope="session")
def pycocoevalcap_meteor():
    """One pycocoevalcap ``Meteor()`` (the Meteor 1.5 jar's process) for every test of a
    worker that compares against it: the jar answers each ``SCORE`` and ``EVAL`` line on
    its own, so an item's score does not depend on what it scored before, and each test is
    spared a JVM start and a paraphrase table load (seconds of two cores). Skips without
    Java or pycocoevalcap."""
    from tests.support.java_ptb import java_jar
    from tests.support.optional_tools import skip_unless

    skip_unless(java_jar() is not None, "Java or pycocoevalcap (extra 'coco') absent")
    from pycocoevalcap.meteor.meteor import Meteor

    meteor = Meteor()
    yield meteor
    del meteor  # pycocoevalcap's __del__ ends the jar's process


@pytest.fixture(scope="session")
def flickr8k(data_dir):
    """The real Flickr 8K corpus with judgments (images read lazily)."""
    from kcca.data._flickr8k import load_flickr8k

    return load_flickr8k(data_dir)


@pytest.fixture(autouse=True)
def _fix_lines_name_existing_options(monkeypatch):
    """Every ``fix:`` line any test makes the CLI print names only options that the command
    it belongs to takes (:func:`tests.support.fix_lines.unknown_fix_options`)."""
    import kcca._cli as cli
    from tests.support.fix_lines import unknown_fix_options

    report = cli._report

    def checked(args, message, fix):
        report(args, message, fix)
        if fix:
            bad = unknown_fix_options(fix, getattr(args, "command", None))
            assert not bad, f"fix line names options its command lacks: {bad}: {fix}"

    monkeypatch.setattr(cli, "_report", checked)
