"""Compact results files: the same numbers as the full rankings, with and without the data."""

import json
import shutil

import numpy as np
import pytest

from kcca._cli import main
from kcca.data._errors import DataError
from kcca._evaluate.compact import (DEPTH, from_rankings, judgments_digest, read_compact,
                                   write_compact)
from kcca._evaluate.system import EvaluationContext, evaluate_compact, evaluate_system
from kcca._evaluate.formatting import jsonable
from kcca._paper.report import write_report
from tests.support.demo_systems import demo_test_pool, write_systems

TABLES = [str(t) for t in range(1, 13)]


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    """Two systems' rankings of the demo test pool: a noisy good one and a random one."""
    corpus, pool = demo_test_pool()
    n = len(pool)
    rng = np.random.default_rng(1)
    folder = tmp_path_factory.mktemp("run") / "rankings"
    scores = rng.normal(size=(n, n)) + 3 * np.eye(n)
    good = np.argsort(-scores, axis=1)
    rand = np.argsort(rng.random((n, n)), axis=1)
    write_systems(folder, pool, {"BoW5": (good, np.argsort(-scores.T, axis=1)),
                                 "TRI5": (rand, rand)})
    return corpus, folder


def _compact_of(corpus, rankings, ctx):
    ev = evaluate_system(rankings, ctx)
    return ev, from_rankings(rankings, corpus.pool("test"), corpus="demo", evaluation=ev,
                             relevance="paper", judgments=judgments_digest(corpus))


def test_round_trip_and_same_numbers_with_and_without_the_data(demo_run, tmp_path):
    corpus, folder = demo_run
    from kcca._evaluate.rankings_io import read_rankings

    r = read_rankings(folder / "BoW5.json", corpus.pool("test"))
    ctx = EvaluationContext(corpus, "test", "paper", with_bleu_rouge=False)
    full, compact = _compact_of(corpus, r, ctx)
    path = write_compact(tmp_path / "BoW5.ranks.npz", compact)
    back = read_compact(path)
    assert back.depth == DEPTH and back.system == "BoW5"
    for task in r.tasks:
        assert np.array_equal(back.top[task], r.tasks[task][:, :DEPTH])
    for label, cx in (("data", ctx), ("no data", EvaluationContext(None, "test", "paper"))):
        ev = evaluate_compact(back, cx)
        assert ev.table() == full.table(), label
        for task, metrics in full.metrics.items():
            for name, pq in metrics.items():
                assert np.array_equal(ev.metrics[task][name].values, pq.values,
                                      equal_nan=True), (label, task, name)
        assert json.dumps(ev.coverage, sort_keys=True) == json.dumps(full.coverage,
                                                                     sort_keys=True)


def test_another_relevance_rule_names_what_needs_the_full_ranking(demo_run, tmp_path):
    corpus, folder = demo_run
    from kcca._evaluate.rankings_io import read_rankings

    r = read_rankings(folder / "BoW5.json", corpus.pool("test"))
    ctx = EvaluationContext(corpus, "test", "paper", with_bleu_rouge=False)
    full, compact = _compact_of(corpus, r, ctx)
    ev = evaluate_compact(read_compact(write_compact(tmp_path / "a.ranks.npz", compact)),
                          EvaluationContext(corpus, "test", "majority", with_bleu_rouge=False))
    assert "S@1 condensed" not in ev.metrics["annotation"]
    assert "S@1" in ev.metrics["annotation"] and "R-precision" in ev.metrics["search"]
    assert any("condensed" in note for note in ev.notes)


@pytest.mark.parametrize("damage", ["truncated", "tampered top", "not npz"])
def test_damaged_compact_file_is_named(demo_run, tmp_path, damage):
    corpus, folder = demo_run
    from kcca._evaluate.rankings_io import read_rankings

    r = read_rankings(folder / "BoW5.json", corpus.pool("test"))
    path = write_compact(tmp_path / "x.ranks.npz",
                         from_rankings(r, corpus.pool("test"), corpus="demo"))
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[:200])
    elif damage == "tampered top":
        z = dict(np.load(path))
        z["annotation/top"] = z["annotation/top"][:, ::-1].copy()
        np.savez(path, **z)
    else:
        path.write_text("hello")
    with pytest.raises(DataError, match="x.ranks.npz"):
        read_compact(path)


@pytest.mark.slow
def test_tables_without_the_data_equal_the_tables_with_it(demo_run, tmp_path):
    corpus, folder = demo_run
    run = tmp_path / "rankings"
    shutil.copytree(folder, run)
    write_report(corpus, run, tmp_path / "with", TABLES, ["h"], n_samples=500)
    compact_only = tmp_path / "compact"
    compact_only.mkdir()
    for f in run.glob("*.ranks.npz"):
        shutil.copy(f, compact_only)
    assert len(list(compact_only.iterdir())) == 2
    report = write_report(None, compact_only, tmp_path / "without", TABLES, ["h"],
                          n_samples=500)
    assert report.systems == ["BoW5", "TRI5"] and not report.skipped
    for t in TABLES:
        a = (tmp_path / "with" / f"table{t}.csv").read_text().splitlines()
        b = (tmp_path / "without" / f"table{t}.csv").read_text().splitlines()
        # only the Random baseline's judged cells need the data (Tables 1-2)
        assert [x for x in a if x not in b and ",Random," not in x] == [], t
        assert [x for x in b if x not in a and ",Random," not in x] == [], t


def test_evaluate_reads_compact_files_without_the_data(demo_run, tmp_path, capsys,
                                                       monkeypatch):
    corpus, folder = demo_run
    from kcca._evaluate.rankings_io import read_rankings

    r = read_rankings(folder / "BoW5.json", corpus.pool("test"))
    ctx = EvaluationContext(corpus, "test", "paper", with_bleu_rouge=False)
    full, compact = _compact_of(corpus, r, ctx)
    compact = type(compact)(**{**compact.__dict__, "corpus": "flickr8k"})
    path = write_compact(tmp_path / "BoW5.ranks.npz", compact)
    monkeypatch.setenv("KCCA_DATA_DIR", "")
    assert main(["evaluate", str(path), "-o", str(tmp_path / "e.json")]) == 0
    res = json.loads((tmp_path / "e.json").read_text())
    assert res["systems"][0]["aggregates"] == jsonable(full.table())  # numbers without noise
    assert "compact results" in " ".join(capsys.readouterr().out.split())  # notes are wrapped


def test_evaluate_finds_the_demo_corpus_from_the_files(demo_run, capsys):
    _, folder = demo_run
    assert main(["evaluate", str(folder / "BoW5.json"), "--no-bleu-rouge"]) == 0
    assert "annotation" in capsys.readouterr().out


def test_rankings_of_another_pool_are_refused(demo_run, tmp_path):
    corpus, folder = demo_run
    from kcca._evaluate.rankings_io import read_rankings

    r = read_rankings(folder / "BoW5.json", corpus.pool("test"))
    compact = from_rankings(r, corpus.pool("test"), corpus="demo")
    ids = dict(compact.query_ids)
    ids["annotation"] = list(reversed(ids["annotation"]))
    other = type(compact)(**{**compact.__dict__, "query_ids": ids})
    with pytest.raises(DataError, match="pool"):
        evaluate_compact(other, EvaluationContext(corpus, "test", "paper",
                                                  with_bleu_rouge=False))



def test_a_run_never_rewrites_tables_it_did_not_make(tmp_path, capsys):
    out = tmp_path / "results"
    out.mkdir()
    (out / "table3.md").write_text("committed\n")
    assert main(["reproduce", "--systems", "BoW5", "--tables", "3", "--out", str(out),
                 "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"--out {out} already holds tables (table3.md)" in err and "--force" in err
    assert (out / "table3.md").read_text() == "committed\n"


def test_tables_only_without_data_refuses_to_empty_committed_tables(demo_run, tmp_path,
                                                                    capsys, monkeypatch):
    corpus, folder = demo_run
    run = tmp_path / "rankings"
    shutil.copytree(folder, run)
    write_report(corpus, run, tmp_path / "with", ["3"], ["h"], n_samples=100)
    for f in run.glob("*.json"):
        f.unlink()
    monkeypatch.setenv("KCCA_DATA_DIR", "")
    out = tmp_path / "with"
    assert main(["reproduce", "--tables-only", "--tables", "3", "--rankings-dir", str(run),
                 "--out", str(out), "--no-plots"]) == 2
    assert "would be left empty" in capsys.readouterr().err
    fresh = tmp_path / "fresh"
    assert main(["reproduce", "--tables-only", "--tables", "3", "--rankings-dir", str(run),
                 "--out", str(fresh), "--no-plots", "--samples", "100"]) == 0
    assert (fresh / "table3.csv").read_text().splitlines()[1:] == \
        (out / "table3.csv").read_text().splitlines()[1:]


def test_the_tables_only_refusal_fix_runs_as_printed(demo_run, tmp_path, capsys, monkeypatch):
    """The fix names the results folder the refused run read (its default ``OUT/rankings``)."""
    import re
    import shlex

    corpus, folder = demo_run
    out = tmp_path / "run"
    shutil.copytree(folder, out / "rankings")
    write_report(corpus, out / "rankings", out, ["3"], ["h"], n_samples=100)
    for f in (out / "rankings").glob("*.json"):
        f.unlink()
    monkeypatch.setenv("KCCA_DATA_DIR", "")
    base = ["reproduce", "--tables-only", "--tables", "3", "--no-plots", "--samples", "100"]
    assert main(base + ["--out", str(out)]) == 2
    fix = re.search(r"fix: write elsewhere with `([^`]+)`", capsys.readouterr().err)
    assert fix, "no runnable alternative in the fix line"
    fresh = tmp_path / "fresh"
    assert main(base + shlex.split(fix.group(1).replace("DIR", str(fresh)))) == 0
    assert (fresh / "table3.csv").read_text().splitlines()[1:] == \
        (out / "table3.csv").read_text().splitlines()[1:]


def test_tables_only_without_the_data_refuses_splits(demo_run, tmp_path, monkeypatch, capsys):
    """Without the data --splits would only reach the header: it is refused, with a fix."""
    _, folder = demo_run
    monkeypatch.setenv("KCCA_DATA_DIR", "")
    base = ["reproduce", "--tables-only", "--tables", "3", "--no-plots", "--samples", "100",
            "--rankings-dir", str(folder), "--out", str(tmp_path / "out")]
    assert main(base + ["--splits", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "error: --splits names Flickr 8K split files" in err
    assert "or drop --splits" in err
    assert main(base) == 0  # the fix's second branch, as printed
