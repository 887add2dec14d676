"""Tables 3 and 11: rows beside the paper's values, tidy CSV, Markdown."""

from __future__ import annotations

import pytest

from kcca.systems.tables import rows, table_systems, to_csv, to_markdown

OURS = {"BoW5": {"annotation": {"R@1": 5.0, "R@5": 15.0, "R@10": 22.5, "median rank": 70.0},
                 "search": {"R@1": 4.0, "R@5": 14.0, "R@10": 21.0, "median rank": 72.5}},
        "TRI5^sqrtidf_A,D(BNC+ic)": {t: {"R@1": 1.0, "R@5": 2.0, "R@10": 3.0,
                                         "median rank": 4.0} for t in ("annotation", "search")}}


def test_table_3_uses_short_names_and_paper_values():
    assert table_systems("3") == ["NN5_F1^idf", "BoW1", "BoW5", "TAGRANK", "TRI5",
                                  "TRI5^sqrtidf_A,D(BNC+ic)"]
    r = rows("3", OURS)
    assert len(r) == 16 and [x.system for x in r[::8]] == ["BoW5", "TRI5SEM"]
    sem = {(x.task, x.metric): (x.ours, x.paper) for x in r if x.system == "TRI5SEM"}
    assert sem["annotation", "R@1"] == (1.0, 8.3) and sem["search", "median rank"] == (4.0, 38.0)
    with pytest.raises(ValueError):
        table_systems("12")


def test_csv_and_markdown():
    r = rows("11", OURS)
    text = to_csv(r).splitlines()
    assert text[0] == "table,system,task,metric,ours,paper"
    assert text[1] == "11,BoW5,annotation,R@1,5.00,6.2"
    assert "11,BoW5,search,median rank,72.50,60" in text
    md = to_markdown("11", r, ["command: `kcca reproduce`"], {"BoW5": "p=2, d=3"})
    assert "- command: `kcca reproduce`" in md
    assert "| BoW5 | 5.0 (6.2) | 15.0 (17.1) | 22.5 (24.3) | 70.0 (58) | p=2, d=3 |" in md
