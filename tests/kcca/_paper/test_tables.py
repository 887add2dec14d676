"""Every table's rows beside the paper's values, significance markers, tidy CSV, Markdown."""

from __future__ import annotations

import csv
import io

import pytest

from kcca._paper import printed as PP
from kcca._paper import numbers as P
from kcca._paper import tables as T
from kcca._paper.tables import rows, table_systems, to_csv, to_markdown

SEM = "TRI5^sqrtidf_A,D(BNC+ic)"
OURS = {"BoW5": {"annotation": {"R@1": 5.0, "R@5": 15.0, "R@10": 22.5, "median rank": 70.0},
                 "search": {"R@1": 4.0, "R@5": 14.0, "R@10": 21.0, "median rank": 72.5}},
        SEM: {t: {"R@1": 1.0, "R@5": 2.0, "R@10": 3.0, "median rank": 4.0}
              for t in ("annotation", "search")}}


def test_table_3_uses_short_names_and_paper_values():
    assert table_systems("3") == ["NN5_F1^idf", "BoW1", "BoW5", "TAGRANK", "TRI5", SEM]
    r = rows("3", OURS)
    assert len(r) == 16 and [x.system for x in r[::8]] == ["BoW5", "TRI5SEM"]
    sem = {(x.task, x.metric): (x.ours, x.paper) for x in r if x.system == "TRI5SEM"}
    assert sem["annotation", "R@1"] == (1.0, 8.3) and sem["search", "median rank"] == (4.0, 38.0)
    bow = {(x.task, x.metric): x for x in r if x.system == "BoW5"}
    assert bow["annotation", "R@1"].paper_sig == "**"       # as printed in Table 3
    assert bow["search", "R@5"].paper_sig == "***"
    with pytest.raises(ValueError):
        table_systems("13")
    assert T.parse_tables("all") == [str(i) for i in range(1, 13)]
    assert T.parse_tables("3, 11") == ["3", "11"]
    with pytest.raises(ValueError, match="table '13'"):
        T.parse_tables("3,13")


def test_typed_in_tables_agree_with_the_appendix():
    """Tables 3-6 repeat cells of Tables 11-12: the typed-in copies must agree."""
    for short, per_task in PP.TABLE3.items():
        for task, cells in per_task.items():
            for metric, (value, _) in cells.items():
                assert P.TABLE11[P.SECTION4_NAMES[short]][task][metric] == value, (short, metric)
    for short, per_task in PP.TABLE4.items():
        for task, cells in per_task.items():
            for metric, (value, _) in cells.items():
                assert P.TABLE12[P.SECTION4_NAMES[short]][task][metric] == value, (short, metric)
    for short, (ann, search, total) in P.TABLE5.items():
        t12 = P.TABLE12[P.SECTION4_NAMES[short]]
        assert (t12["annotation"]["R-precision"], t12["search"]["R-precision"]) == (ann, search)
        assert abs((ann + search) / 2 - total) <= 0.051
    for r, row in enumerate(PP.TABLE6_SYSTEMS):
        for c, system in enumerate(row):
            for task in ("annotation", "search"):
                value, _ = PP.table6_paper(r, c, task)
                assert P.TABLE12[system][task]["R-precision"] == value, (system, task)
    assert set(PP.TABLE1_MARKERS) == set(P.TABLE1) == set(PP.TABLE2_MARKERS)
    assert len({s for row in PP.TABLE6_SYSTEMS for s in row}) == 16


def test_markers_against_tri5sem_and_missing_systems():
    values = {"BoW5": OURS["BoW5"], SEM: OURS[SEM]}
    needed = T.needed_comparisons("3", list(values))
    assert ("BoW5", SEM, "annotation", "R@1") in needed and len(needed) == 8
    assert all(a != SEM for a, *_ in needed)
    assert T.needed_comparisons("3", ["BoW5"]) == []          # no reference, no markers
    pvalues = {("BoW5", SEM, "annotation", "R@1"): (0.004, "McNemar, exact binomial"),
               ("BoW5", SEM, "annotation", "R@5"): (0.03, "McNemar"),
               ("BoW5", SEM, "annotation", "R@10"): (0.07, "McNemar"),
               ("BoW5", SEM, "annotation", "median rank"): (0.5, "randomisation")}
    res = T.system_table("3", values, pvalues)
    sig = {(r.system, r.task, r.metric): (r.ours_sig, r.p_value) for r in res.rows}
    assert sig["BoW5", "annotation", "R@1"] == ("***", "0.004")
    assert sig["BoW5", "annotation", "R@5"][0] == "**"
    assert sig["BoW5", "annotation", "R@10"][0] == "*"
    assert sig["BoW5", "annotation", "median rank"] == ("", "0.5")
    assert sig["TRI5SEM", "annotation", "R@1"] == ("", "")
    assert res.missing == ["NN", "BoW1", "TAGRANK", "TRI5"]
    assert T.stars(0.1) == "*" and T.stars(0.1001) == "" and T.stars(None) == ""


def test_tables_1_2_4_5_layout_and_coverage():
    v = {"Random": {"annotation": {"expert =4.0": 0.1, T.COVERAGE["expert"]: 0.6,
                                   "expert mean": 1.5}},
         "BoW5": {"annotation": {"S@1": 11.0, "R-precision": 9.0, T.COVERAGE["top-1"]: 52.0},
                  "search": {"S@1": 10.0, "R-precision": 8.0},
                  "total": {"R-precision": 8.5}}}
    t1 = {(r.system, r.metric): r for r in T.system_table("1", v).rows}
    rnd = t1["Random", "expert =4.0"]
    assert rnd.paper == 0.5 and rnd.paper_sig == "***"
    assert t1["Random", T.COVERAGE["expert"]].ours == 0.6
    assert t1["Random", T.COVERAGE["expert"]].paper is None
    t2 = {(r.system, r.metric): r for r in T.system_table("2", v).rows}
    assert t2["Random", "expert mean"].paper == 1.22
    assert t2["BoW5", "top-1 BLEU"].paper == 0.46 and t2["BoW5", "top-1 BLEU"].paper_sig == "*"
    t4 = {(r.system, r.task, r.metric): r for r in T.system_table("4", v).rows}
    assert t4["BoW5", "annotation", "S@1"].paper == 15.0
    assert t4["BoW5", "annotation", "S@5"].paper_sig == "**"
    t5 = {(r.task, r.metric): r for r in T.system_table("5", v).rows}
    assert t5["total", "R-precision"].ours == 8.5 and t5["total", "R-precision"].paper == 10.8
    assert t5["annotation", "R-precision"].paper_sig == "***"
    t12 = {(r.task, r.metric): r for r in T.system_table("12", v).rows}
    assert t12["search", "R-precision"].paper == 10.5


def test_table6_letter_markers():
    base, idf, aln = "TRI5", "TRI5^sqrtidf", "TRI5_A"
    dist = "TRI5_D(BNC)"
    v = {base: {"annotation": {"R-precision": 11.0}, "search": {"R-precision": 11.0}},
         idf: {"annotation": {"R-precision": 12.5}, "search": {"R-precision": 11.1}},
         aln: {"annotation": {"R-precision": 10.0}, "search": {"R-precision": 12.0}},
         dist: {"annotation": {"R-precision": 12.7}, "search": {"R-precision": 12.1}}}
    need = set(T.needed_comparisons("6", list(v)))
    assert (idf, base, "annotation", "R-precision") in need
    assert (dist, base, "search", "R-precision") in need
    assert (aln, base, "search", "R-precision") in need
    p = {(idf, base, "annotation", "R-precision"): (0.04, "randomisation"),
         (idf, base, "search", "R-precision"): (0.6, "randomisation"),
         (aln, base, "annotation", "R-precision"): (0.005, "randomisation"),
         (aln, base, "search", "R-precision"): (0.08, "randomisation"),
         (dist, base, "annotation", "R-precision"): (0.001, "randomisation")}
    res = T.table6(v, p)
    got = {(r.system, r.task): r for r in res.rows}
    assert got[idf, "annotation"].ours_sig == "ii" and got[idf, "annotation"].paper_sig == "ii"
    assert got[idf, "search"].ours_sig == "" and got[idf, "search"].p_value == "i 0.6"
    assert got[aln, "annotation"].ours_sig == "-aaa"          # a significant decrease
    assert got[aln, "search"].ours_sig == "a"
    assert got[dist, "annotation"].ours_sig == "ddd"
    assert got[base, "annotation"].paper == 11.6
    assert len(res.missing) == 12
    # the last column's search cells: value from Table 12, superscript unknown
    assert PP.table6_paper(0, 3, "search") == (13.2, None)
    assert PP.table6_paper(3, 3, "search") == (13.4, None)
    md = to_markdown("6", res.rows, ["command: x"], {}, res.notes, res.missing)
    assert "| TRI5 | 11.0 (11.6) | 12.5<sup>ii</sup> (12.5<sup>ii</sup>) |" in md
    assert "13.2<sup>?</sup>" in md


def test_table7_needs_three_systems():
    names = ["BoW1", "BoW5", "TAGRANK", "TRI5"]
    v = {s: {t: {"S@1": i, "S@5": i, "S@10": i, "R@1": i, "R@5": i, "R@10": i,
                 "R-precision": i, "median rank": 10 - i} for t in ("annotation", "search")}
         for i, s in enumerate(names)}
    res = T.table7(v)
    cells = {(r.system, r.task, r.metric): r for r in res.rows}
    assert cells["ours (n=4)", "annotation", "rho S@1 vs R@1"].ours == pytest.approx(1.0)
    tau = cells["ours (n=4)", "search", "tau R-precision vs median rank"]
    assert tau.ours == pytest.approx(-1.0)
    assert cells["ours (n=4)", "annotation", "rho S@1 vs R@1"].paper == 0.86
    short = T.table7({s: v[s] for s in names[:2]})
    assert all(r.ours is None for r in short.rows)
    assert any("at least 3" in n for n in short.notes)


def test_tables_8_to_10_from_agreement_results():
    cols = (("bleu", 0.9), ("rouge", 0.4))
    t89 = {"R5": {"columns": cols, "rows": ("=4.0", ">=3.6"), "kappa": [[0.7, 0.5], [0.6, 0.4]],
                  "paper": ((0.72, 0.54), (0.71, 0.54)), "n_pairs": 10},
           "R4": {"columns": cols, "rows": ("=4.0", ">=3.6"), "kappa": [[0.5, 0.4], [0.5, 0.4]],
                  "paper": ((0.5, 0.44), (0.51, 0.43)), "n_pairs": 10}}
    out = T.tables8_9(t89)
    assert {r.system for r in out["8"].rows} == {"R5"}
    assert {r.system for r in out["9"].rows} == {"R4"}
    r = out["8"].rows[0]
    assert (r.task, r.metric, r.ours, r.paper) == ("expert =4.0", "BLEU>=0.9", 0.7, 0.72)
    t10 = T.table10({"rows": ("=4.0", ">=3.6", ">=2.6"), "columns": ("=1.0",),
                     "kappa": [[0.7], [0.7], [0.6]], "paper": ((0.75,), (0.78,), (0.45,)),
                     "prf": [(0.5, 0.96, 0.7), (0.6, 0.92, 0.7), (0.95, 0.5, 0.65)],
                     "lay_threshold_b": "2/3", "n_pairs": 10, "n_crowd_judged": 5})
    b = {(r.task, r.metric): r for r in t10.rows if r.system.startswith("(b)")}
    assert b["expert =4.0", "recall"].paper == 0.986 and b["expert =4.0", "precision"].paper is None
    assert b["expert >=2.6", "precision"].paper == 0.947
    md = to_markdown("10", t10.rows, [], {}, t10.notes)
    assert "## (a) kappa" in md and "| expert =4.0 | 0.700 (0.75) |" in md


def test_csv_and_markdown():
    r = rows("11", OURS)
    text = to_csv(r)
    lines = text.splitlines()
    assert lines[0] == "table,system,task,metric,ours,paper,ours_sig,paper_sig,p_value,test"
    assert lines[1].startswith("11,BoW5,annotation,R@1,5.00,6.2,")
    parsed = list(csv.DictReader(io.StringIO(text)))
    assert list(parsed[0])[:6] == ["table", "system", "task", "metric", "ours", "paper"]
    assert {"system": "BoW5", "task": "search", "metric": "median rank", "ours": "72.50",
            "paper": "60"}.items() <= parsed[7].items()
    md = to_markdown("11", r, ["command: `kcca reproduce`"], {"BoW5": "p=2, d=3"},
                     missing=["TRI5"])
    assert "- command: `kcca reproduce`" in md and "- not run (empty): TRI5" in md
    assert "| BoW5 | 5.0 (6.2) | 15.0 (17.1) | 22.5 (24.3) | 70.0 (58) | p=2, d=3 |" in md
    md3 = to_markdown("3", rows("3", OURS), [], {"BoW5": "p=2, d=3"})
    assert "| BoW5 | 5.0 (6.2\\*\\*) | 15.0 (17.1\\*\\*\\*) |" in md3
    # unknown paper superscripts are '?' in the CSV
    t6 = T.table6({"TRI5^sqrtidf_A": {"annotation": {"R-precision": 1.0},
                                      "search": {"R-precision": 2.0}}})
    row = next(csv.DictReader(io.StringIO(to_csv(t6.rows).splitlines()[0] + "\n"
                                          + to_csv(t6.rows).splitlines()[2] + "\n")))
    assert row["paper"] == "13.2" and row["paper_sig"] == "?"


def test_table12_sections_hold_the_protocol_estimates_beside_the_papers_value():
    v = {"BoW5": {t: {"S@1": 11.0, "S@1 imputed": 11.2, "S@1 bound": 13.5,
                      "R-precision imputed": 9.1, "S@1 condensed": 16.0} for t in T.TASKS}}
    res = T.system_table("12", v)
    by = {(r.task, r.metric): r for r in res.rows}
    assert by["annotation", "S@1 imputed"].paper == 15.0
    assert by["annotation", "S@1 bound"].paper == 15.0
    assert by["search", "R-precision imputed"].paper == 10.5
    md = to_markdown("12", res.rows, [], {})
    titles = [line for line in md.splitlines() if line.startswith("## ")]
    assert titles == ["## Image annotation", "## Image annotation: the paper's judging "
                      "protocol (estimates)", "## Image annotation: condensed lists",
                      "## Image search", "## Image search: the paper's judging protocol "
                      "(estimates)", "## Image search: condensed lists"]
    protocol = md.split("## Image annotation: the paper's judging protocol (estimates)")[1]
    protocol = protocol.split("## ")[0]
    assert "| BoW5 | 11.2 (15) |" in protocol and "13.5 (15)" in protocol
    assert "condensed" not in protocol and "16.0" not in protocol
