"""The text, CSV and JSON layouts of ``kcca evaluate`` (:mod:`kcca._evaluate.formatting`)."""

import csv
import io
import json

import numpy as np

from kcca._evaluate.formatting import (evaluation_document, systems_csv, systems_records,
                                      systems_text)
from kcca._evaluate.original import PerQuery
from kcca._evaluate.system import SystemEvaluation

METRICS = ("R@1", "R@5", "R@10", "median rank", "S@1", "R-precision condensed", "expert mean")


def _evaluation(name: str, offset: float) -> SystemEvaluation:
    metrics = {task: {m: PerQuery(m, np.zeros(3), offset + i) for i, m in enumerate(METRICS)}
               for task in ("annotation", "search")}
    metrics["search"]["R@1"] = PerQuery("R@1", np.zeros(3), float("nan"))
    coverage = {"annotation": {"top-1 judged": 0.5, "R-precision max depth": 7},
                "R-precision total (Table 5)": 12.25}
    return SystemEvaluation(name, metrics, coverage)


def test_many_long_named_systems_fit_and_keep_every_number():
    evals = [_evaluation(f"a-rather-long-system-name-{i}", 10.0 * i) for i in range(16)]
    text = systems_text(evals, width=100)
    lines = text.splitlines()
    assert all(len(line) <= 100 for line in lines)
    assert "  S16 = a-rather-long-system-name-15" in lines  # key of the short headers
    assert sum(line.startswith("annotation") for line in lines) >= 2  # systems continue below
    for e in evals:
        for i, m in enumerate(METRICS):
            value = e.metrics["annotation"][m].aggregate
            assert f"{value:.{2 if m == 'expert mean' else 1}f}" in text
    assert "n/a" in text and "50.0%" in text


def test_records_csv_and_json_agree():
    evals = [_evaluation("one", 0.0), _evaluation("two", 1.0)]
    sig = {"two": {"annotation": {"R@1": {"test": "McNemar", "p": 0.03}}}}
    records = systems_records(evals, sig)
    rows = list(csv.DictReader(io.StringIO(systems_csv(evals, sig))))
    assert len(rows) == len(records) == 2 * (2 * len(METRICS) + 2 + 1)
    two_r1 = next(r for r in rows if r["system"] == "two" and r["name"] == "R@1"
                  and r["task"] == "annotation")
    assert two_r1["p_vs_first"] == "0.03" and two_r1["value"] == "1.0"
    assert next(r for r in rows if r["task"] == "search" and r["name"] == "R@1")["value"] == ""
    doc = json.loads(json.dumps(evaluation_document(evals, sig, "paper", per_query=False)))
    assert doc["systems"][1]["aggregates"]["annotation"]["R@1"] == 1.0
    assert doc["systems"][0]["aggregates"]["search"]["R@1"] is None  # NaN: strict JSON null
    assert "**" in systems_text(evals, sig)


def test_long_lines_fold_at_100_columns_under_their_indent():
    from kcca._paper.judgment_tables import wrap_line

    line = "  " + " ".join(f"word{i}" for i in range(40))
    folded = wrap_line(line).splitlines()
    assert len(folded) > 1 and all(len(x) <= 100 for x in folded)
    assert folded[0].startswith("  word0") and folded[1].startswith("      word")
    assert " ".join(x.strip() for x in folded) == line.strip()
    assert wrap_line("short") == "short"


def test_paper_tables_fit_a_100_column_terminal(data_dir, nltk_data_dir, capsys):
    from kcca._cli import main

    assert main(["--data-dir", str(data_dir), "evaluate", "--paper-tables"]) == 0
    out = capsys.readouterr().out
    assert "Table 10(a)" in out and "Krippendorff" in out
    wide = [line for line in out.splitlines() if len(line) > 100]
    assert not wide, wide
