"""``kcca report`` from compact results files: the committed results of a fresh clone, no data."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from kcca._cli import main
from kcca.data import load_corpus
from kcca.errors import DataError, DataFolderNotGiven
from kcca._evaluate.compact import from_rankings, judgments_digest, write_compact
from kcca._evaluate.rankings_io import read_rankings, write_rankings
from kcca._evaluate.system import EvaluationContext, evaluate_system
from kcca._report import build_report

DATA_RE = re.compile(r'<script type="application/json" id="report-data">(.*?)</script>', re.S)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """A results folder as a fresh clone has it: tables and ``rankings/*.ranks.npz`` only,
    made on the demo corpus but named ``flickr8k`` (so that rebuilding it needs the data)."""
    corpus = load_corpus("demo", seed=0)
    pool = corpus.pool("test")
    n = len(pool)
    rng = np.random.default_rng(3)
    root = tmp_path_factory.mktemp("results")
    full = root / "full"
    committed = root / "committed"
    (committed / "rankings").mkdir(parents=True)
    (committed / "table3.md").write_text("# Table 3\n\n- command: kcca reproduce\n\n## x\n")
    ctx = EvaluationContext(corpus, "test", "paper", with_bleu_rouge=False)
    evaluations = {}
    for system, noise in (("BoW5", 0.5), ("TRI5", 2.0)):
        scores = rng.normal(size=(n, n)) * noise + np.eye(n)
        path = write_rankings(full / f"{system}.json", pool,
                              {"annotation": np.argsort(-scores, axis=1),
                               "search": np.argsort(-scores.T, axis=1)},
                              system=system, corpus="demo")
        rk = read_rankings(path, pool)
        ev = evaluate_system(rk, ctx)
        compact = from_rankings(rk, pool, corpus="flickr8k", evaluation=ev, relevance="paper",
                                judgments=judgments_digest(corpus))
        write_compact(committed / "rankings" / f"{system}.ranks.npz", compact)
        evaluations[system] = (rk, ev)
    return corpus, committed, evaluations


def page_json(path) -> dict:
    return json.loads(DATA_RE.search(path.read_text(encoding="utf-8")).group(1))


def test_report_without_the_data_shows_ids_and_the_stored_metrics(results, tmp_path,
                                                                 monkeypatch, capsys):
    corpus, committed, evaluations = results
    monkeypatch.setenv("KCCA_DATA_DIR", "")
    assert main(["report", str(committed), "-o", str(tmp_path / "page")]) == 0
    err = capsys.readouterr().err
    assert "no data folder" in err and "data/README.md" in err
    page = tmp_path / "page" / "index.html"
    data = page_json(page)
    pool = corpus.pool("test")
    assert data["images"] == [p[0] for p in pool]
    assert data["captions"] == data["captionIds"] == [p[1] for p in pool]
    assert data["thumbs"] == [""] * len(pool) and not (tmp_path / "page" / "thumbs").exists()
    assert data["judgments"] == {}
    for s in data["systems"]:
        rk, _ = evaluations[s["name"]]
        for task, r in rk.tasks.items():
            assert s[task]["top"] == r[:, :10].tolist()
    html = page.read_text(encoding="utf-8")
    assert "made without the data" in html and "--data-dir DATA_DIR" in html
    # the summary holds the stored judged metrics, as evaluated with the data
    table = evaluations["BoW5"][1].table()
    row = re.search(r'<table class="summary" id="summary-annotation">.*?'
                    r'<tr data-system="BoW5">(.*?)</tr>', html, re.S).group(1)
    cells = re.findall(r'<span class="ours">([^<]*)</span>', row)
    assert cells[0] == f"{table['annotation']['R@1']:.1f}"
    assert f"{table['annotation']['S@1']:.1f}" in cells


def test_report_with_the_corpus_reads_compact_files_in_full(results, tmp_path):
    corpus, committed, evaluations = results
    page = build_report(committed, tmp_path / "page", corpus=corpus, thumb_size=16)
    data = page_json(page)
    pool = corpus.pool("test")
    assert data["captions"] == [p[2] for p in pool]
    assert all(t.startswith("thumbs/") for t in data["thumbs"])
    assert data["judgments"], "the corpus's crowd judgments mark the shown pairs"


def test_full_rankings_without_the_data_or_a_compact_file_name_the_data_folder(
        results, tmp_path, monkeypatch):
    corpus, _, evaluations = results
    run = tmp_path / "run"
    rk, _ = evaluations["BoW5"]
    write_rankings(run / "BoW5.json", corpus.pool("test"), rk.tasks, system="BoW5",
                   corpus="flickr8k")
    monkeypatch.setenv("KCCA_DATA_DIR", "")
    with pytest.raises(DataFolderNotGiven):
        build_report(run)


def test_a_mistyped_data_folder_is_an_error_not_a_fallback(results, tmp_path, monkeypatch):
    _, committed, _ = results
    monkeypatch.setenv("KCCA_DATA_DIR", "")
    with pytest.raises(DataError, match="does not exist"):
        build_report(committed, tmp_path / "page", data_dir=tmp_path / "no-such-folder")
