"""``kcca evaluate`` end to end on the demo corpus, and ``--paper-tables`` on real data."""

import json
import re

import numpy as np
import pytest

from kcca._cli import main


@pytest.fixture(scope="module")
def demo_files(tmp_path_factory):
    from tests.support.demo_systems import demo_test_pool, write_systems

    _, pool = demo_test_pool()
    n = len(pool)
    rng = np.random.default_rng(0)
    folder = tmp_path_factory.mktemp("rankings")
    perfect = np.array([[q] + [c for c in range(n) if c != q] for q in range(n)])
    rand = np.argsort(rng.random((n, n)), axis=1)
    a, b = write_systems(folder, pool, {"perfect": (perfect, perfect), "random": (rand, rand)})
    return a, b, folder


def test_evaluate_demo_rankings(demo_files, capsys):
    a, b, folder = demo_files
    out = folder / "result.json"
    rc = main(["evaluate", str(a), str(b), "--corpus", "demo", "--no-bleu-rouge", "--compare",
               "--samples", "2000", "-o", str(out)])
    assert rc == 0
    text = capsys.readouterr().out
    assert "annotation" in text and "perfect" in text and "***" in text
    res = json.loads(out.read_text())
    perfect, rand = res["systems"]
    agg = perfect["aggregates"]["annotation"]
    assert agg["R@1"] == 100.0 and agg["median rank"] == 1.0 and agg["S@1"] == 100.0
    assert len(perfect["per_query"]["search"]["R@1"]) == 200
    assert rand["aggregates"]["search"]["median rank"] > 20
    sig = res["significance_vs_first"]["random"]["annotation"]
    assert sig["R@1"]["test"].startswith("McNemar")
    assert sig["median rank"]["p"] < 0.01
    assert "top-10 judged" in perfect["coverage"]["annotation"]


def test_evaluate_bad_rankings_names_query(demo_files, tmp_path, capsys):
    a, _, _ = demo_files
    doc = json.loads(a.read_text())
    first = next(iter(doc["tasks"]["search"]["rankings"]))
    doc["tasks"]["search"]["rankings"].pop(first)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    rc = main(["evaluate", str(bad), "--corpus", "demo", "--no-bleu-rouge"])
    assert rc == 2
    assert f"search query {first!r} has no ranking" in capsys.readouterr().err


def _perfect_file(corpus, path):
    from kcca._evaluate.rankings_io import write_rankings

    n = len(corpus.pool("test"))
    perfect = np.array([[q] + [c for c in range(n) if c != q] for q in range(n)])
    return write_rankings(path, corpus.pool("test"), {"annotation": perfect, "search": perfect},
                          system="perfect", corpus=corpus.name)


def test_evaluate_rebuilds_the_demo_corpus_the_rankings_name(tmp_path, capsys):
    """Rankings of a `kcca demo --n-test 12 ...` run are evaluated on that corpus (its sizes
    and seed are in the corpus name the file records), not on the default demo corpus."""
    from kcca.data._demo import make_demo_corpus

    corpus = make_demo_corpus(n_train=10, n_dev=6, n_test=12, image_size=32, seed=4)
    path = _perfect_file(corpus, tmp_path / "small.json")
    out = tmp_path / "result.json"
    assert main(["evaluate", str(path), "--corpus", "demo", "--no-bleu-rouge", "-o",
                 str(out)]) == 0
    perfect = json.loads(out.read_text())["systems"][0]
    assert perfect["aggregates"]["search"]["R@1"] == 100.0
    assert len(perfect["per_query"]["search"]["R@1"]) == 12
    other = _perfect_file(make_demo_corpus(n_train=10, n_dev=6, n_test=12, image_size=32,
                                           seed=5), tmp_path / "other.json")
    capsys.readouterr()
    assert main(["evaluate", str(path), str(other), "--corpus", "demo", "--no-bleu-rouge"]) == 2
    assert "different demo corpora" in capsys.readouterr().err


def test_demo_corpus_name_round_trip():
    from kcca.data._demo import demo_corpus_from_name, make_demo_corpus
    from kcca.data._errors import DataError

    c = make_demo_corpus(n_train=5, n_dev=3, n_test=4, image_size=40, seed=7)
    again = demo_corpus_from_name(c.name)
    assert again.name == c.name and again.captions == c.captions
    with pytest.raises(DataError, match="not a demo corpus name"):
        demo_corpus_from_name("demo-5-3")


def test_evaluate_needs_input(capsys):
    assert main(["evaluate", "--corpus", "demo"]) == 2
    assert "rankings files, or --paper-tables" in capsys.readouterr().err


@pytest.mark.real_data
def test_paper_tables_cli(data_dir, nltk_data_dir, tmp_path, capsys):
    out = tmp_path / "pt.json"
    assert main(["evaluate", "--paper-tables", "--data-dir", str(data_dir), "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert re.search(r"paper: fraction yes >= 1/2 +2031 ", text)  # the rule's row: added 2031
    assert "Table 10(a)" in text and "BLEU_pre >= 0.25" in text
    res = json.loads(out.read_text())["paper_tables"]
    assert res["relevance_counts"]["paper"]["added"] == 2031


def _table_cells(text: str, n_systems: int) -> dict[tuple[str, str], list[str]]:
    """(block title, row label) -> cells of the systems, from ``kcca evaluate``'s text."""
    cells, title = {}, None
    for line in text.splitlines():
        if not line.strip():
            title = None
        elif title is None:
            title = line.rsplit(maxsplit=n_systems)[0]
        else:
            parts = line.rsplit(maxsplit=n_systems)
            if len(parts) == n_systems + 1:
                cells[(title, parts[0])] = parts[1:]
    return cells


def test_evaluate_text_fits_100_columns(demo_files, capsys):
    a, b, _ = demo_files
    assert main(["evaluate", str(a), str(b), "--corpus", "demo", "--compare",
                 "--samples", "2000"]) == 0
    text = capsys.readouterr().out
    assert all(len(line) <= 100 for line in text.splitlines()), \
        max(text.splitlines(), key=len)
    rows = _table_cells(text, 2)
    assert rows[("annotation", "R@1")] == ["100.0", "0.5***"]
    assert rows[("search", "  R-precision max depth")][0].isdigit()
    assert ("both tasks", "R-precision total (Table 5)") in rows


@pytest.mark.slow
def test_evaluate_json_and_csv_hold_the_numbers_of_the_text(demo_files, capsys):
    import csv
    import io

    from kcca._evaluate.formatting import format_coverage, format_metric

    a, b, _ = demo_files
    common = ["evaluate", str(a), str(b), "--corpus", "demo", "--no-bleu-rouge", "--compare",
              "--samples", "2000"]
    assert main(common) == 0
    rows = _table_cells(capsys.readouterr().out, 2)
    assert main(common + ["--format", "json", "--no-per-query"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert "relevance rule" in captured.err
    systems = doc["systems"]
    assert [s["system"] for s in systems] == ["perfect", "random"]
    n_numbers = 0
    for i, s in enumerate(systems):
        for task, metrics in s["aggregates"].items():
            for name, value in metrics.items():
                assert rows[(task, name)][i].rstrip("*") == format_metric(name, value)
                n_numbers += 1
            for name, value in s["coverage"].get(task, {}).items():
                assert rows[(task, f"  {name}")][i] == format_coverage(value)
                n_numbers += 1
    sig = doc["significance_vs_first"]["random"]["annotation"]["R@1"]["p"]
    assert sig <= 0.01 and rows[("annotation", "R@1")][1].endswith("***")

    assert main(common + ["--format", "csv"]) == 0
    records = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert set(records[0]) == {"system", "task", "kind", "name", "value", "p_vs_first"}
    per_task = [r for r in records if r["task"] != "both tasks"]
    assert len(per_task) == n_numbers
    for r in per_task:
        s = systems[["perfect", "random"].index(r["system"])]
        where = s["aggregates"] if r["kind"] == "metric" else s["coverage"]
        assert float(r["value"]) == pytest.approx(where[r["task"]][r["name"]])
    r1 = next(r for r in records if r["system"] == "random" and r["name"] == "R@1")
    assert float(r1["p_vs_first"]) == pytest.approx(sig)


def test_evaluate_csv_does_not_cover_paper_tables(demo_files, capsys):
    a, _, _ = demo_files
    assert main(["evaluate", str(a), "--corpus", "demo", "--paper-tables",
                 "--format", "csv"]) == 2
    assert "--format csv" in capsys.readouterr().err
