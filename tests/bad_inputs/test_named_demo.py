"""A results file cannot make ``kcca evaluate`` or ``kcca report`` build a huge demo corpus.

Both rebuild the demo corpus a rankings file names (``demo-TRAIN-DEV-TEST-SIZEpx-sSEED``):
a 2 KB file naming 2,000,000 images cost 10 CPU-minutes. A name over the
``MAX_NAMED_DEMO_*`` limits is now an error naming the file, before any image is made
(``make_demo_corpus`` fails the test if it is called for such a name).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import kcca.data._demo as demo
from kcca._cli import main
from kcca.data._demo import (MAX_NAMED_DEMO_IMAGE_SIZE, MAX_NAMED_DEMO_IMAGES,
                            MAX_NAMED_DEMO_TEST, demo_corpus_from_name)
from kcca.data._errors import DataError
from tests.support.named_errors import one_error

#: names over a limit: all images, test images, image side
TOO_LARGE = [
    f"demo-{MAX_NAMED_DEMO_IMAGES - 10}-0-11-64px-s0",
    "demo-2000000-100-100-64px-s0",
    f"demo-10-5-{MAX_NAMED_DEMO_TEST + 1}-64px-s0",
    f"demo-10-5-5-{MAX_NAMED_DEMO_IMAGE_SIZE + 1}px-s0",
]


@pytest.fixture
def no_demo(monkeypatch):
    """``make_demo_corpus`` records its calls instead of drawing a corpus."""
    calls: list[dict] = []

    def record(**kwargs):
        calls.append(kwargs)
        raise AssertionError(f"a demo corpus was built: {kwargs}")

    monkeypatch.setattr(demo, "make_demo_corpus", record)
    return calls


def _rankings_file(path: Path, corpus: str) -> Path:
    """A small rankings file that names ``corpus``."""
    doc = {"format": "kcca-rankings", "version": 1, "system": "BoW5", "corpus": corpus,
           "split": "test", "tasks": {"annotation": {"rankings": {}}}}
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("name", TOO_LARGE)
def test_a_demo_name_over_the_limits_is_refused(no_demo, name):
    with pytest.raises(DataError, match=rf"demo corpus {re.escape(name)}: [\d,]+ images .*more "
                                        r"than a demo corpus rebuilt from its name may have"):
        demo_corpus_from_name(name)
    assert no_demo == []
    # at the limits the corpus is built as before
    with pytest.raises(AssertionError, match="a demo corpus was built"):
        demo_corpus_from_name(f"demo-{MAX_NAMED_DEMO_IMAGES - MAX_NAMED_DEMO_TEST}-0-"
                              f"{MAX_NAMED_DEMO_TEST}-{MAX_NAMED_DEMO_IMAGE_SIZE}px-s0")


@pytest.mark.parametrize("name", TOO_LARGE[1:2])
def test_kcca_evaluate_refuses_a_file_naming_a_huge_demo(tmp_path, capsys, no_demo, name):
    path = _rankings_file(tmp_path / "BoW5.json", name)
    assert path.stat().st_size < 2048
    assert main(["evaluate", str(path)]) == 2
    error, fix = one_error(capsys.readouterr().err)
    assert error.startswith(f"{path}: demo corpus {name}: 2,000,200 images"), error
    assert 'check the file\'s "corpus" field' in fix
    assert no_demo == []


def test_kcca_report_refuses_a_run_naming_a_huge_demo(tmp_path, capsys, no_demo):
    run = tmp_path / "run"
    run.mkdir()
    path = _rankings_file(run / "BoW5.json", TOO_LARGE[1])
    assert main(["report", str(run), "-o", str(tmp_path / "page")]) == 2
    error, _ = one_error(capsys.readouterr().err)
    assert error.startswith(f"{path}: demo corpus {TOO_LARGE[1]}: 2,000,200 images"), error
    assert no_demo == []
