"""Fixtures of the report tests: a tiny demo corpus and a run folder of two systems and one plot
(made by :mod:`tests.support.report_runs`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.report_runs import tiny_corpus, write_run


@pytest.fixture(scope="module")
def corpus():
    return tiny_corpus()


@pytest.fixture()
def run_dir(tmp_path, corpus) -> Path:
    return write_run(tmp_path / "run", corpus)
