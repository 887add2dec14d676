"""``kcca report``'s all-captions section: the literature's protocol, computed from the run's
``<SYSTEM>.all-captions.json`` files, shown only when the run has them."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import numpy as np
import pytest

from kcca._cli import main
from kcca.data._errors import DataError
from kcca._evaluate.protocol_ranks import (
    ProtocolRanks,
    protocol_ranks_path,
    read_protocol_ranks,
    write_protocol_ranks,
)
from kcca._evaluate.compact import from_rankings, judgments_digest, write_compact
from kcca._evaluate.original import original_ranks
from kcca._evaluate.protocol_table import COLUMNS, protocol_rows
from kcca._evaluate.rankings_io import read_rankings
from kcca._evaluate.system import EvaluationContext, evaluate_system
from kcca._report import build_report
from tests.support.report_runs import tiny_corpus, write_run

SECTION_RE = re.compile(r'<section id="all-captions">(.*?)</section>', re.S)


def write_ranks(rankings_file: Path, corpus, system: str, fold_counts=(1,), seed=0) -> Path:
    """An all-captions ranks file of random ranks beside ``rankings_file``; where that
    rankings file ranks ``corpus``'s pool, each pool caption's image search rank in the whole
    pool is the file's, as in a run's files."""
    rng = np.random.default_rng(seed)
    images = tuple(corpus.split("test"))
    pools = {}
    for n_folds in fold_counts:
        size = len(images) // n_folds
        pools[n_folds] = [
            (rng.integers(1, 5 * size + 1, size), rng.integers(1, size + 1, 5 * size))
            for _ in range(n_folds)
        ]
    if 1 in pools and rankings_file.is_file():
        try:
            search = read_rankings(rankings_file, corpus.pool("test")).tasks["search"]
        except DataError:  # the rankings of another pool: nothing to agree with
            search = None
        if search is not None:
            for i, ((_, caption, _), rank) in enumerate(
                zip(corpus.pool("test"), original_ranks(search))
            ):
                pools[1][0][1][5 * i + int(caption.rpartition("#")[2])] = rank
    ranks = ProtocolRanks(system, corpus.name, "test", images, 5, "reversed-argsort", pools)
    return write_protocol_ranks(protocol_ranks_path(rankings_file), ranks)


def table_rows(html: str) -> list[list[str]]:
    """The cells of each body row of the page's all-captions table."""
    section = SECTION_RE.search(html).group(1)
    body = re.search(r"<tbody>(.*?)</tbody>", section, re.S).group(1)
    return [
        [unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
        for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    ]


def expected_cells(rows) -> list[list[str]]:
    return [
        [row["system"], row["protocol"], *(f"{row[c]:.1f}" for c in COLUMNS[2:])] for row in rows
    ]


@pytest.fixture()
def reproduce_run(tmp_path, corpus) -> Path:
    """A ``kcca reproduce`` layout of BoW5 and TRI5; BoW5 ranked under the all-captions
    protocol (the whole pool of 12 images and three folds of four), TRI5 not."""
    run = write_run(tmp_path / "run", corpus, sub="rankings")
    write_ranks(run / "rankings" / "BoW5.json", corpus, "BoW5", fold_counts=(1, 3))
    return run


def test_the_section_shows_the_rows_of_the_ranks_files(reproduce_run, corpus, tmp_path):
    html = build_report(reproduce_run, tmp_path / "o", corpus=corpus, thumb_size=32).read_text()
    ranks = read_protocol_ranks(reproduce_run / "rankings" / "BoW5.all-captions.json")
    rows = protocol_rows([("BoW5", ranks)])
    assert [r["protocol"] for r in rows] == [
        "all-captions 12 images",
        "all-captions 4 images (mean of 3 folds)",
    ]
    assert table_rows(html) == expected_cells(rows)
    section = unescape(SECTION_RE.search(html).group(1))
    assert "<h2>All-captions retrieval protocol</h2>" in section
    assert "every one of its captions" in section and "best-ranked own caption" in section
    assert "every caption is a query" in section and "sum of the six recalls" in section
    for column in ("R@1", "R@5", "R@10", "med r", "mean r", "rsum"):
        assert f">{column}</th>" in section
    assert '<a href="#all-captions">' in html
    # after the summary, before the plots
    assert html.index('id="summary"') < html.index('id="all-captions"') < html.index('id="plots"')


def test_systems_in_the_reports_order_with_the_names_it_shows(tmp_path, corpus):
    run = write_run(tmp_path / "run", corpus, systems=("TRI5", "BoW5", "<b>x</b>"))
    for n, system in enumerate(("TRI5", "BoW5")):
        write_ranks(run / f"rankings_{system}.json", corpus, system, seed=n)
    write_ranks(run / "rankings__b_x__b_.json", corpus, "<b>x</b>", seed=2)
    html = build_report(run, tmp_path / "o", corpus=corpus, thumb_size=32).read_text()
    assert [r[0] for r in table_rows(html)] == ["BoW5", "TRI5", "<b>x</b>"]
    section = SECTION_RE.search(html).group(1)
    assert "<b>" not in section and "&lt;b&gt;x&lt;/b&gt;" in section


def test_no_section_without_ranks_files(run_dir, corpus, tmp_path):
    html = build_report(run_dir, tmp_path / "o", corpus=corpus, thumb_size=32).read_text()
    assert "all-captions" not in html.lower()
    assert '<nav><a href="#summary">Summary</a><a href="#plots">Plots</a>\n' in html
    assert '</section>\n<section id="plots">' in html


def test_an_unreadable_ranks_file_is_an_error_naming_it(reproduce_run, corpus, tmp_path, capsys):
    bad = reproduce_run / "rankings" / "BoW5.all-captions.json"
    bad.write_text('{"format": "kcca-all-captions-ranks", "version": 1, "system": "BoW5"')
    with pytest.raises(DataError, match=re.escape(str(bad))):
        build_report(reproduce_run, tmp_path / "o", corpus=corpus, thumb_size=32)
    assert not (tmp_path / "o" / "index.html").exists()
    assert main(["report", str(reproduce_run), "-o", str(tmp_path / "cli"), "--quiet"]) == 2
    assert str(bad) in capsys.readouterr().err


def test_ranks_of_another_system_are_an_error(reproduce_run, corpus, tmp_path):
    write_ranks(reproduce_run / "rankings" / "TRI5.json", corpus, "BoW5")
    with pytest.raises(DataError, match="not of 'TRI5'"):
        build_report(reproduce_run, tmp_path / "o", corpus=corpus, thumb_size=32)


def test_ranks_of_other_images_are_an_error(reproduce_run, tmp_path):
    other = tiny_corpus(seed=2)
    bad = write_ranks(reproduce_run / "rankings" / "TRI5.json", other, "TRI5")
    with pytest.raises(DataError, match=re.escape(f"{bad}: ranks other test images")) as exc:
        build_report(reproduce_run, tmp_path / "o", corpus=tiny_corpus(), thumb_size=32)
    assert "--systems TRI5 --protocol all-captions" in exc.value.fix
    assert str(bad.parent) in exc.value.fix


def test_without_the_data_the_section_comes_from_the_ranks_files(
    reproduce_run, corpus, tmp_path, monkeypatch
):
    """Committed results (compact files, a corpus that needs the data folder): the ranks
    files need no data, so the section is there as with it."""
    rankings = reproduce_run / "rankings"
    pool = corpus.pool("test")
    ctx = EvaluationContext(corpus, "test", "paper", with_bleu_rouge=False)
    for system in ("BoW5", "TRI5"):
        rk = read_rankings(rankings / f"{system}.json", pool)
        compact = from_rankings(
            rk,
            pool,
            corpus="flickr8k",
            evaluation=evaluate_system(rk, ctx),
            relevance="paper",
            judgments=judgments_digest(corpus),
        )
        write_compact(rankings / f"{system}.ranks.npz", compact)
        (rankings / f"{system}.json").unlink()
    monkeypatch.setenv("KCCA_DATA_DIR", "")
    html = build_report(reproduce_run, tmp_path / "o", thumb_size=32).read_text()
    assert "made without the data" in html
    ranks = read_protocol_ranks(rankings / "BoW5.all-captions.json")
    assert table_rows(html) == expected_cells(protocol_rows([("BoW5", ranks)]))
