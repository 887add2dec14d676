"""Every table of the paper beside our numbers: rows, significance markers, CSV and Markdown.

Assembly only: the numbers come in as plain dictionaries (computed by
:mod:`kcca._paper.report` from rankings files and judgment files), so every table can be
built and tested from synthetic values.

* Tables 1-5 (Section 4's systems; Random in 1-2 only), 11 and 12 (all 30 systems): ``values``
  maps a system's paper name (``kcca._paper.numbers.SYSTEMS``, or ``"Random"``) to
  ``task -> metric -> aggregate``, metric names as :func:`kcca._evaluate.system.evaluate_system`
  gives them (``R@1``, ``median rank``, ``S@5``, ``R-precision``, ``expert >=3.0``,
  ``expert mean``, ``top-1 BLEU``, ...) plus judged-coverage entries (``COVERAGE``).
  Significance markers of Tables 1-5 compare each system with TRI5SEM by the paper's test
  (McNemar for R@k, S@k and the expert thresholds; Fisher's randomisation test for median rank,
  R-precision, mean expert score, BLEU and ROUGE): :func:`needed_comparisons` lists the pairs,
  ``pvalues[(system, reference, task, metric)] = (p, test)`` brings the results back.
* Table 6 (trigram ablation, R-precision): letter markers ``i`` / ``a`` / ``d`` for the
  feature added (:func:`kcca._paper.printed.table6_comparisons`), one letter per
  significance level; a leading ``-`` when the addition made the score significantly *worse*.
* Table 7: Spearman rho / Kendall tau-b between our systems' human metrics (S@k, R-precision)
  and automatic ones (R@k, median rank), over the systems run (at least 3), and recomputed from
  the paper's own Tables 11-12 (``kcca._paper.agreement.table7_from_paper``).
* Tables 8-10 (judgments only): the outputs of :func:`kcca._paper.agreement.tables8_9` and
  :func:`~kcca._paper.agreement.table10`; there ``system`` holds the reference set (8-9) or
  the sub-table (10), ``task`` the expert threshold and ``metric`` the column.

The tidy CSV has columns ``table,system,task,metric,ours,paper`` and then ``ours_sig``,
``paper_sig`` (markers; ``?`` where the paper's is missing from its text), ``p_value`` and
``test``.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from kcca._names import TASKS
from kcca._paper import printed as PP
from kcca._paper import numbers as P
from kcca._paper.numbers import SECTION4_NAMES, SYSTEMS, TABLE11, TABLE12
from kcca.errors import SettingError

TABLES = tuple(str(i) for i in range(1, 13))
METRICS = ("R@1", "R@5", "R@10", "median rank")
S_METRICS = ("S@1", "S@5", "S@10")
#: Table 12's judged-only estimates (condensed lists, :mod:`kcca._evaluate.judged_metrics`),
#: printed beside the paper's S@k / R-precision: ours lies between the plain (lower bound) and
#: the condensed figure when unjudged pairs are less often relevant than judged ones
CONDENSED = tuple(f"{m} condensed" for m in S_METRICS + ("R-precision",))
#: Table 12 under the paper's judging protocol (:mod:`kcca._evaluate.judging_protocol`): the
#: unjudged pairs of our top 10 that pass the BLEU_pre filter imputed (expectation), and S@k
#: with all of them relevant (the protocol's upper bound)
IMPUTED = tuple(f"{m} imputed" for m in S_METRICS + ("R-precision",))
BOUND = tuple(f"{m} bound" for m in S_METRICS)
#: suffixes of the Table 12 estimates, compared with the paper's plain metric
ESTIMATE_SUFFIXES = (" condensed", " imputed", " bound")
CSV_COLUMNS = (
    "table",
    "system",
    "task",
    "metric",
    "ours",
    "paper",
    "ours_sig",
    "paper_sig",
    "p_value",
    "test",
)
EXPERT_METRICS = tuple(f"expert {c}" for c in P.TABLE1_COLUMNS)
TABLE2_METRICS = ("expert mean", "top-1 BLEU", "top-1 ROUGE")
RANDOM = "Random"
REFERENCE = SECTION4_NAMES["TRI5SEM"]
#: judged-coverage entries of ``values`` (percent), shown beside the metrics they qualify
COVERAGE = {
    "expert": "expert-judged top-1 (%)",
    "top-1": "judged top-1 (%)",
    "top-5": "judged top-5 (%)",
    "top-10": "judged top-10 (%)",
    "R-precision": "judged to depth R (%)",
}
TABLE7_PAIRS = tuple(P.TABLE7)

TITLES = {
    "1": "Table 1: cumulative distribution of expert scores of the first caption (annotation)",
    "2": "Table 2: mean expert score, BLEU and ROUGE of the first caption (annotation, R5)",
    "3": "Table 3: the Section 4 systems, rank of the original item (test)",
    "4": "Table 4: rate of success S@k, crowd relevance (test)",
    "5": "Table 5: R-precision, crowd relevance (test)",
    "6": "Table 6: R-precision of the trigram ablation (IDF, alignment, distributional)",
    "7": "Table 7: rank correlation of systems, human (S@k, R-precision) vs automatic metrics",
    "8": "Table 8: Cohen's kappa, expert vs BLEU/ROUGE, candidates among the references",
    "9": "Table 9: Cohen's kappa, expert vs BLEU/ROUGE, candidates not among the references",
    "10": "Table 10: crowd vs expert judgments, (a) Cohen's kappa, (b) precision / recall / F1",
    "11": "Table 11: all systems, rank of the original item (test)",
    "12": "Table 12: all systems, S@k and R-precision, crowd relevance (test)",
}
TESTS = {
    "1": "McNemar (two-sided) against TRI5SEM",
    "2": "Fisher's randomisation test (difference of means, two-sided) against TRI5SEM",
    "3": "McNemar for R@k, randomisation test (difference of medians) for the median rank, "
    "against TRI5SEM",
    "4": "McNemar (two-sided) against TRI5SEM",
    "5": "Fisher's randomisation test (difference of means) against TRI5SEM; the Total column "
    "has no test",
    "6": "Fisher's randomisation test (difference of means) between the model with and without "
    "the added feature",
}
NEEDS = {
    "1": "expert",
    "2": "expert",
    "4": "crowd",
    "5": "crowd",
    "6": "crowd",
    "7": "crowd",
    "8": "expert",
    "9": "expert",
    "10": "crowd+expert",
    "12": "crowd",
}


@dataclass(frozen=True)
class Row:
    table: str
    system: str
    task: str
    metric: str
    ours: float | None
    paper: float | None
    ours_sig: str = ""
    paper_sig: str | None = ""
    p_value: str = ""
    test: str = ""


@dataclass
class TableResult:
    """A table's rows, the systems it lists that were not run, and notes for its page."""

    table: str
    rows: list[Row]
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------------ systems
def table_systems(table: str) -> list[str]:
    """The paper's system names of a table, in its row order (``Random`` in Tables 1-2)."""
    if table in ("11", "12", "7"):
        return list(SYSTEMS)
    if table in ("1", "2"):
        return [RANDOM] + [SECTION4_NAMES[s] for s in PP.TABLE1_SYSTEMS[1:]]
    if table in ("3", "4", "5"):
        return [SECTION4_NAMES[s] for s in PP.TABLE3_SYSTEMS]
    if table == "6":
        return [s for row in PP.TABLE6_SYSTEMS for s in row]
    if table in ("8", "9", "10"):
        return []
    raise SettingError(f"table {table!r} is not in the paper; use one of {TABLES}")


def short_name(system: str) -> str:
    """Section 4's name of a system (``NN``, ``TRI5SEM``, ...), else its paper name."""
    return next((k for k, v in SECTION4_NAMES.items() if v == system), system)


def display_name(system: str, table: str) -> str:
    """Tables 1-5 use Section 4's short names."""
    if table in ("1", "2", "3", "4", "5"):
        return short_name(system)
    return system


def parse_tables(text: str) -> list[str]:
    """``"all"`` or a comma-separated list of table numbers (validated)."""
    if text.strip().lower() in ("all", ""):
        return list(TABLES)
    tables = [t.strip() for t in text.split(",") if t.strip()]
    for t in tables:
        if t not in TABLES:
            raise SettingError(
                f"table {t!r} is not in the paper; use one of {', '.join(TABLES)} or 'all'",
                fix=f"give --tables all or table numbers separated by commas (--tables 1,2,11) "
                f"of {', '.join(TABLES)}",
            )
    return tables


# ------------------------------------------------------------------------ paper values
def paper_value(table: str, system: str, task: str, metric: str) -> tuple[float | None, str | None]:
    """(value, superscript) printed by the paper for a cell; (None, "") when not printed."""
    s = short_name(system)
    i: int | None
    if table in ("1", "2") and s in PP.TABLE1_MARKERS:
        if task != "annotation":
            return None, ""
        if metric in EXPERT_METRICS and table == "1":
            i = EXPERT_METRICS.index(metric)
            return P.TABLE1[s][i], PP.TABLE1_MARKERS[s][i]
        if metric in TABLE2_METRICS and table == "2":
            i = TABLE2_METRICS.index(metric)
            return P.TABLE2[s][i], PP.TABLE2_MARKERS[s][i]
        return None, ""
    if table == "3" and s in PP.TABLE3:
        return PP.TABLE3[s].get(task, {}).get(metric, (None, ""))
    if table == "4" and s in PP.TABLE4:
        return PP.TABLE4[s].get(task, {}).get(metric, (None, ""))
    if table == "5" and s in P.TABLE5 and metric == "R-precision":
        i = {"annotation": 0, "search": 1, "total": 2}.get(task)
        return (None, "") if i is None else (P.TABLE5[s][i], PP.TABLE5_MARKERS[s][i])
    if table == "6" and metric == "R-precision":
        for r, row in enumerate(PP.TABLE6_SYSTEMS):
            if system in row:
                return PP.table6_paper(r, row.index(system), task)
        return None, ""
    if table == "11":
        return TABLE11.get(system, {}).get(task, {}).get(metric), ""
    if table == "12":
        for suffix in ESTIMATE_SUFFIXES:
            metric = metric.removesuffix(suffix)
        return TABLE12.get(system, {}).get(task, {}).get(metric), ""
    return None, ""


# ------------------------------------------------------------------- table definitions
def table_layout(table: str) -> tuple[list[str], list[tuple[str, str]]]:
    """(systems, columns as (task, metric)) of Tables 1-5, 11 and 12; coverage included."""
    systems = table_systems(table)
    if table == "1":
        cols = [("annotation", m) for m in EXPERT_METRICS]
        cols.append(("annotation", COVERAGE["expert"]))
    elif table == "2":
        cols = [("annotation", m) for m in TABLE2_METRICS]
        cols.append(("annotation", COVERAGE["expert"]))
    elif table in ("3", "11"):
        cols = [(t, m) for t in TASKS for m in METRICS]
    elif table == "4":
        cols = [
            (t, m)
            for t in TASKS
            for m in S_METRICS + tuple(COVERAGE[f"top-{k}"] for k in (1, 5, 10))
        ]
    elif table == "5":
        cols = [
            ("annotation", "R-precision"),
            ("search", "R-precision"),
            ("total", "R-precision"),
        ] + [(t, COVERAGE["R-precision"]) for t in TASKS]
    elif table == "12":
        cols = [
            (t, m)
            for t in TASKS
            for m in S_METRICS
            + ("R-precision", COVERAGE["R-precision"])
            + IMPUTED
            + BOUND
            + CONDENSED
        ]
    else:
        raise ValueError(f"table {table} has no system x metric layout")
    return systems, cols


def _is_coverage(metric: str) -> bool:
    return metric in COVERAGE.values()


def needed_comparisons(table: str, present: Sequence[str]) -> list[tuple[str, str, str, str]]:
    """(system, other, task, metric) pairs whose p-values the table's markers need.

    Tables 1-5: every present system against TRI5SEM (when TRI5SEM is present); Table 6: each
    cell against the cells it adds one feature to.
    """
    have = set(present)
    out: list[tuple[str, str, str, str]] = []
    if table in ("1", "2", "3", "4", "5"):
        if REFERENCE not in have:
            return []
        systems, cols = table_layout(table)
        for s in systems:
            if s == REFERENCE or s not in have:
                continue
            out += [(s, REFERENCE, t, m) for t, m in cols if t in TASKS and not _is_coverage(m)]
    elif table == "6":
        for r, row in enumerate(PP.TABLE6_SYSTEMS):
            for c, s in enumerate(row):
                for _, r2, c2 in PP.table6_comparisons(r, c):
                    other = PP.TABLE6_SYSTEMS[r2][c2]
                    if s in have and other in have:
                        out += [(s, other, t, "R-precision") for t in TASKS]
    return out


def stars(p: float | None) -> str:
    """The paper's superscripts: * p <= 0.1, ** p <= 0.05, *** p <= 0.01."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return ""
    return "***" if p <= 0.01 else "**" if p <= 0.05 else "*" if p <= 0.1 else ""


def _fmt_p(p: float) -> str:
    return f"{p:.3g}"


Values = Mapping[str, Mapping[str, Mapping[str, float]]]
PValues = Mapping[tuple[str, str, str, str], tuple[float, str]]


def _get(values: Values, system: str, task: str, metric: str) -> float | None:
    v = values.get(system, {}).get(task, {}).get(metric)
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return float(v)


def system_table(table: str, values: Values, pvalues: PValues | None = None) -> TableResult:
    """Tables 1-5, 11 and 12: one row per (present system, task, metric)."""
    pvalues = pvalues or {}
    systems, cols = table_layout(table)
    if table in ("11", "12"):  # systems outside the paper (plug-ins) after its 30
        systems += [s for s in values if s not in systems and s != RANDOM]
    rows: list[Row] = []
    for s in systems:
        if s not in values:
            continue
        for task, metric in cols:
            ours = _get(values, s, task, metric)
            paper, paper_sig = paper_value(table, s, task, metric)
            sig, pv, test = "", "", ""
            # the paper prints no markers in Tables 11 and 12
            hit = None if table in ("11", "12") else pvalues.get((s, REFERENCE, task, metric))
            if hit is not None:
                sig, pv, test = stars(hit[0]), _fmt_p(hit[0]), hit[1]
            rows.append(
                Row(
                    table,
                    display_name(s, table),
                    task,
                    metric,
                    ours,
                    paper,
                    sig,
                    paper_sig,
                    pv,
                    test,
                )
            )
    missing = [display_name(s, table) for s in systems if s not in values]
    notes = []
    if table in TESTS:
        if REFERENCE in values:
            notes.append(f"significance (ours): {TESTS[table]}")
        else:
            notes.append(
                "significance (ours): none, TRI5SEM (the reference of every marker "
                "in this table) has not been run"
            )
    return TableResult(table, rows, missing, notes)


def table6(values: Values, pvalues: PValues | None = None) -> TableResult:
    """Table 6: R-precision of the 16 ablation systems, letter markers per added feature."""
    pvalues = pvalues or {}
    rows: list[Row] = []
    for r, row in enumerate(PP.TABLE6_SYSTEMS):
        for c, s in enumerate(row):
            if s not in values:
                continue
            for task in TASKS:
                ours = _get(values, s, task, "R-precision")
                paper, paper_sig = PP.table6_paper(r, c, task)
                marks, ps, tests = [], [], set()
                for letter, r2, c2 in PP.table6_comparisons(r, c):
                    other = PP.TABLE6_SYSTEMS[r2][c2]
                    hit = pvalues.get((s, other, task, "R-precision"))
                    if hit is None:
                        continue
                    ps.append(f"{letter} {_fmt_p(hit[0])}")
                    tests.add(hit[1])
                    level = len(stars(hit[0]))
                    if level:
                        base = _get(values, other, task, "R-precision")
                        worse = ours is not None and base is not None and ours < base
                        marks.append(("-" if worse else "") + letter * level)
                rows.append(
                    Row(
                        "6",
                        s,
                        task,
                        "R-precision",
                        ours,
                        paper,
                        " ".join(marks),
                        paper_sig,
                        "; ".join(ps),
                        "; ".join(sorted(tests)),
                    )
                )
    missing = [s for row in PP.TABLE6_SYSTEMS for s in row if s not in values]
    notes = [
        f"significance (ours): {TESTS['6']}; markers: i = +IDF, a = +alignment, "
        "d = +distributional (one letter p <= 0.1, two p <= 0.05, three p <= 0.01); a "
        "leading '-' marks a significant decrease",
        "paper: the +Align&IDF search cells are missing from the paper's text except "
        "TRI5SEM's; their values are Table 12's (same systems), their superscripts unknown "
        "('?'); the text of Section 4.3.4 swaps annotation and search for TRI5SEM and "
        "TRI5^sqrtidf",
    ]
    return TableResult("6", rows, missing, notes)


def table7(values: Values, from_paper: Mapping | None = None, min_systems: int = 3) -> TableResult:
    """Table 7 over the systems run (>= ``min_systems`` with both metrics), and, when given,
    recomputed from the paper's Tables 11-12 (``agreement.table7_from_paper()``)."""
    from kcca._evaluate.statistics import kendall_tau_b, spearman_rho

    rows: list[Row] = []
    notes: list[str] = []
    present = [s for s in SYSTEMS if s in values]
    for human, auto in TABLE7_PAIRS:
        for task in TASKS:
            sys_ok = [
                s
                for s in present
                if _get(values, s, task, human) is not None
                and _get(values, s, task, auto) is not None
            ]
            rho = tau = None
            if len(sys_ok) >= min_systems:
                h = [_get(values, s, task, human) for s in sys_ok]
                a = [_get(values, s, task, auto) for s in sys_ok]
                # sys_ok keeps the systems with both values: no None in h or a
                rho, tau = spearman_rho(h, a), kendall_tau_b(h, a)  # type: ignore[arg-type]
                rho = None if math.isnan(rho) else rho
                tau = None if math.isnan(tau) else tau
            prho, ptau = P.TABLE7[(human, auto)][task]
            label = f"ours (n={len(sys_ok)})"
            rows.append(Row("7", label, task, f"rho {human} vs {auto}", rho, prho))
            rows.append(Row("7", label, task, f"tau {human} vs {auto}", tau, ptau))
            if from_paper is not None:
                frho, ftau = from_paper[(human, auto)][task]
                rows.append(
                    Row(
                        "7",
                        "paper's Tables 11-12 (n=30)",
                        task,
                        f"rho {human} vs {auto}",
                        frho,
                        prho,
                    )
                )
                rows.append(
                    Row(
                        "7",
                        "paper's Tables 11-12 (n=30)",
                        task,
                        f"tau {human} vs {auto}",
                        ftau,
                        ptau,
                    )
                )
    if len(present) < min_systems:
        notes.append(
            f"ours: {len(present)} system(s) run; correlations need at least "
            f"{min_systems} (the paper's use all 30)"
        )
    notes.append(
        "Spearman rho and Kendall tau-b of the systems' scores (ties share ranks); "
        "'paper's Tables 11-12' recomputes the correlations from the paper's own "
        "printed numbers, a check of the statistics code"
    )
    missing = [s for s in SYSTEMS if s not in values]
    return TableResult("7", rows, missing, notes)


def tables8_9(result: Mapping) -> dict[str, TableResult]:
    """Tables 8 and 9 from :func:`kcca._paper.agreement.tables8_9`."""
    out = {"8": TableResult("8", []), "9": TableResult("9", [])}
    for refs, t in result.items():
        table = "8" if refs in ("R5", "R1-gold") else "9"
        for i, label in enumerate(t["rows"]):
            for j, (metric, th) in enumerate(t["columns"]):
                out[table].rows.append(
                    Row(
                        table,
                        refs,
                        f"expert {label}",
                        f"{metric.upper()}>={th:g}",
                        float(t["kappa"][i][j]),
                        float(t["paper"][i][j]),
                    )
                )
        out[table].notes.append(
            f"{refs}: {t['n_pairs']} expert-judged test pairs; Cohen's "
            "kappa of the binarised scores"
        )
    return out


def table10(result: Mapping) -> TableResult:
    """Table 10 from :func:`kcca._paper.agreement.table10`."""
    rows: list[Row] = []
    for i, label in enumerate(result["rows"]):
        for j, col in enumerate(result["columns"]):
            rows.append(
                Row(
                    "10",
                    "(a) kappa",
                    f"expert {label}",
                    f"crowd {col}",
                    float(result["kappa"][i][j]),
                    float(result["paper"][i][j]),
                )
            )
    for i, label in enumerate(result["rows"]):
        for k, name in enumerate(("precision", "recall", "F1")):
            paper = PP.TABLE10B_QUOTED.get((label, name))
            rows.append(
                Row(
                    "10",
                    f"(b) crowd >= {result['lay_threshold_b']}",
                    f"expert {label}",
                    name,
                    float(result["prf"][i][k]),
                    paper,
                )
            )
    notes = [
        f"{result['n_pairs']} expert pairs, {result['n_crowd_judged']} of them judged by "
        "the crowd; the others count as not relevant (this reproduces the printed kappas)",
        "(b): the paper's cells are not in its text; the three quoted in Section 4.3.2 are "
        "given (precision at >=2.6 is printed as 'at least 94.7%')",
    ]
    return TableResult("10", rows, [], notes)


# --------------------------------------------------------------------------- compat
def rows(table: str, results: Values) -> list[Row]:
    """Rows of Table 3 or 11 from aggregates only (paper name -> task -> metric -> value)."""
    if table not in ("3", "11"):
        raise ValueError(f"rows() builds Tables 3 and 11 only, not {table!r}")
    return system_table(table, results).rows


# ----------------------------------------------------------------------------- output
def _num(x: float | None, digits: int) -> str:
    return "" if x is None else f"{x:.{digits}f}"


def csv_digits(table: str, metric: str) -> int:
    if table in ("7", "8", "9", "10") or metric in TABLE2_METRICS:
        return 3
    return 2


def to_csv(table_rows: Sequence[Row]) -> str:
    """The tidy CSV (``CSV_COLUMNS``)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in table_rows:
        w.writerow(
            [
                r.table,
                r.system,
                r.task,
                r.metric,
                _num(r.ours, csv_digits(r.table, r.metric)),
                "" if r.paper is None else f"{r.paper:g}",
                r.ours_sig,
                "?" if r.paper_sig is None else r.paper_sig,
                r.p_value,
                r.test,
            ]
        )
    return buf.getvalue()


def _marker_md(m: str | None) -> str:
    if m is None:
        return "<sup>?</sup>"
    if not m:
        return ""
    if set(m) == {"*"}:
        return "\\*" * len(m)
    return f"<sup>{m}</sup>"


def _digits_md(table: str, metric: str) -> int:
    if table in ("7", "8", "9", "10"):
        return 3
    return 2 if metric in TABLE2_METRICS else 1


def _cell(
    ours: float | None,
    paper: float | None,
    digits: int = 1,
    ours_sig: str = "",
    paper_sig: str | None = "",
) -> str:
    o = "-" if ours is None else f"{ours:.{digits}f}{_marker_md(ours_sig)}"
    if paper is None:
        return o
    return f"{o} ({paper:g}{_marker_md(paper_sig)})"


def _row_cell(r: Row | None) -> str:
    if r is None:
        return "-"
    if _is_coverage(r.metric):
        return "-" if r.ours is None else f"{r.ours:.1f}"
    return _cell(r.ours, r.paper, _digits_md(r.table, r.metric), r.ours_sig, r.paper_sig)


def _grid(
    row_keys: Sequence[str],
    col_keys: Sequence[str],
    headers: Sequence[str],
    cell: Callable[[str, str], str],
    first: str = "system",
    extra: Callable[[str], str] | None = None,
    extra_header: str = "",
) -> list[str]:
    head = [first, *headers] + ([extra_header] if extra else [])
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for rk in row_keys:
        cells = [cell(rk, ck) for ck in col_keys]
        if extra:
            cells.append(extra(rk))
        out.append(f"| {rk} | " + " | ".join(cells) + " |")
    return out


_HEADERS = {"expert mean": "expert", "top-1 BLEU": "BLEU", "top-1 ROUGE": "ROUGE"}


def _short_metric(m: str) -> str:
    """Column head: ``expert >=3.0`` -> ``>=3.0``, ``top-1 BLEU`` -> ``BLEU``, ..."""
    if m in _HEADERS:
        return _HEADERS[m]
    if m in EXPERT_METRICS:
        return m[len("expert ") :]
    return m.replace(" (%)", " %")


def _sections(table: str, cols: list[tuple[str, str]]) -> list[tuple[str, list[tuple[str, str]]]]:
    """Markdown sections (title, columns): one per task; Table 12 splits each task's columns
    into the judged figures, the judging-protocol estimates and the condensed lists."""
    if table not in ("3", "4", "11", "12"):
        return [("", cols)]
    if table != "12":
        return [(f"Image {t}", [c for c in cols if c[0] == t]) for t in TASKS]
    groups = (
        ("", lambda m: not m.endswith(ESTIMATE_SUFFIXES)),
        (
            ": the paper's judging protocol (estimates)",
            lambda m: m.endswith((" imputed", " bound")),
        ),
        (": condensed lists", lambda m: m.endswith(" condensed")),
    )
    return [
        (f"Image {t}{title}", [c for c in cols if c[0] == t and keep(c[1])])
        for t in TASKS
        for title, keep in groups
    ]


def to_markdown(
    table: str,
    table_rows: Sequence[Row],
    header: Sequence[str],
    chosen: Mapping[str, str],
    notes: Sequence[str] = (),
    missing: Sequence[str] = (),
    plots: Sequence[str] = (),
) -> str:
    """A Markdown page: the header lines, notes, then the table(s); ``ours (paper)`` cells."""
    lines = [f"# Hodosh et al. (2013) {TITLES[table]}", ""]
    lines += [f"- {h}" for h in header]
    if missing:
        lines.append(f"- not run (empty): {', '.join(missing)}")
    lines += [f"- {n}" for n in notes]
    lines += ["", _legend(table), ""]
    by: dict[tuple[str, ...], Row] = {(r.system, r.task, r.metric): r for r in table_rows}
    systems = list(dict.fromkeys(r.system for r in table_rows))
    if table in ("1", "2", "3", "4", "5", "11", "12"):
        lines += _system_tables_md(table, by, systems, chosen)
    elif table == "6":
        lines += _table6_md(by)
    elif table == "7":
        lines += _table7_md(by, systems)
    else:  # 8, 9, 10
        lines += _agreement_tables_md(table_rows, by, systems)
    for p in plots:
        lines += [f"![{p}]({p})", ""]
    return "\n".join(lines).rstrip() + "\n"


def _system_tables_md(
    table: str, by: Mapping[tuple[str, ...], Row], systems: list[str], chosen: Mapping[str, str]
) -> list[str]:
    """Tables 1-5, 11 and 12: one row per system, a section per task (and metric group)."""
    lines: list[str] = []
    _, cols = table_layout(table)
    pd = (lambda s: chosen.get(s, "")) if table in ("3", "11") else None
    for title, sec in _sections(table, cols):
        if title:
            lines += [f"## {title}", ""]
        if table == "5":
            headers = [t if not _is_coverage(m) else f"{t} {_short_metric(m)}" for t, m in sec]
        else:
            headers = [_short_metric(m) for _, m in sec]
        lines += _grid(
            systems,
            [f"{t}\x00{m}" for t, m in sec],
            headers,
            lambda s, ck: _row_cell(by.get((s, *ck.split("\x00")))),
            extra=pd,
            extra_header="p, d (dev)",
        )
        lines.append("")
    return lines


def _table6_md(by: Mapping[tuple[str, ...], Row]) -> list[str]:
    """Table 6: R-precision of the trigram kernel variants, per task; the paper's value
    alone where a system was not run."""
    lines: list[str] = []
    for task in TASKS:
        lines += [f"## Image {task}: R-precision", ""]

        def cell6(rname: str, cname: str, task=task) -> str:
            r_i, c_i = PP.TABLE6_ROWS.index(rname), PP.TABLE6_COLUMNS.index(cname)
            s = PP.TABLE6_SYSTEMS[r_i][c_i]
            r = by.get((s, task, "R-precision"))
            if r is None:
                paper, mark = PP.table6_paper(r_i, c_i, task)
                return f"- ({paper:g}{_marker_md(mark)})"
            return _row_cell(r)

        lines += _grid(PP.TABLE6_ROWS, PP.TABLE6_COLUMNS, PP.TABLE6_COLUMNS, cell6, first="")
        lines.append("")
    return lines


def _table7_md(by: Mapping[tuple[str, ...], Row], systems: list[str]) -> list[str]:
    """Table 7: rank correlations (rho, tau) of human against automatic metrics."""
    lines: list[str] = []
    for s in systems:
        lines += [f"## {s}", ""]
        pairs = [f"{h} vs {a}" for h, a in TABLE7_PAIRS]
        cols = [f"{st}\x00{t}" for t in TASKS for st in ("rho", "tau")]
        lines += _grid(
            pairs,
            cols,
            [f"{t} {st}" for t in TASKS for st in ("rho", "tau")],
            # mypy cannot type a lambda with a default argument
            lambda pr, ck, s=s: _row_cell(
                by.get(  # type: ignore[misc]
                    (s, ck.split("\x00")[1], f"{ck.split(chr(0))[0]} {pr}")
                )
            ),
            first="human vs automatic",
        )
        lines.append("")
    return lines


def _agreement_tables_md(
    table_rows: Sequence[Row], by: Mapping[tuple[str, ...], Row], systems: list[str]
) -> list[str]:
    """Tables 8-10: one grid per system of its rows (tasks) by its metrics."""
    lines: list[str] = []
    for s in systems:
        lines += [f"## {s}", ""]
        sub = [r for r in table_rows if r.system == s]
        rks = list(dict.fromkeys(r.task for r in sub))
        cks = list(dict.fromkeys(r.metric for r in sub))
        lines += _grid(
            rks,
            cks,
            cks,
            lambda rk, ck, s=s: _row_cell(by.get((s, rk, ck))),  # type: ignore[misc]
            first="",
        )
        lines.append("")
    return lines


def _legend(table: str) -> str:
    if table in ("1", "2", "3", "4", "5", "11", "12"):
        base = (
            "Cells: ours (paper). R@k, S@k, expert thresholds and R-precision in percent "
            "(higher is better); median rank (lower is better); 'judged' columns: the "
            "percentage of our returned pairs that have a judgment (unjudged pairs count as "
            "not relevant / below every threshold, so our numbers are lower bounds)."
        )
        if table == "12":
            base += (
                " 'imputed' / 'bound' columns: the paper's judging protocol applied to our "
                "rankings (it judged each system's top 10, only the pairs with BLEU_pre >= "
                "0.25, the others counting as not relevant): our unjudged top-10 pairs that "
                "pass the filter are imputed from the judged pairs of the same BLEU_pre "
                "(expected S@k and R-precision), or all counted relevant (bound: the most "
                "the protocol could give our rankings). 'condensed' columns: the same "
                "metric with the unjudged pairs removed from each ranking (Sakai 2007), an "
                "estimate from the judged pairs alone. The paper's value is repeated beside "
                "each."
            )
        if table in ("1", "2", "3", "4", "5"):
            base += (
                " Superscripts: difference to TRI5SEM, \\* p <= 0.1, \\*\\* p <= 0.05, "
                "\\*\\*\\* p <= 0.01."
            )
        return base
    if table == "6":
        return "Cells: ours<sup>markers</sup> (paper<sup>markers</sup>); R-precision in percent."
    if table == "7":
        return "Cells: ours (paper)."
    return "Cells: ours (paper); Cohen's kappa, or precision / recall / F1 as fractions."
