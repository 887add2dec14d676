"""Tables 3 and 11 of the paper (R@1/5/10, median rank) beside our numbers: CSV and Markdown.

Table 11 lists all 30 systems (``kcca.evaluate.paper_tables.SYSTEMS``); Table 3 the six
systems of Section 4 (``SECTION4_NAMES``: NN, BoW1, BoW5, TAGRANK, TRI5, TRI5SEM), whose
numbers are the same rows of Table 11. The tidy CSV has one row per
(table, system, task, metric) with columns ``table,system,task,metric,ours,paper``.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Sequence

from kcca.evaluate.paper_tables import SECTION4_NAMES, SYSTEMS, TABLE11

TABLES = ("3", "11")
METRICS = ("R@1", "R@5", "R@10", "median rank")
TASKS = ("annotation", "search")
CSV_COLUMNS = ("table", "system", "task", "metric", "ours", "paper")


@dataclass(frozen=True)
class Row:
    table: str
    system: str
    task: str
    metric: str
    ours: float | None
    paper: float | None


def table_systems(table: str) -> list[str]:
    """The paper's system names of a table, in its row order."""
    if table == "11":
        return list(SYSTEMS)
    if table == "3":
        return list(SECTION4_NAMES.values())
    raise ValueError(f"table {table!r} is not reproduced here; use one of {TABLES}")


def display_name(system: str, table: str) -> str:
    """Table 3 uses Section 4's short names."""
    if table == "3":
        return next(k for k, v in SECTION4_NAMES.items() if v == system)
    return system


def rows(table: str, results: dict[str, dict[str, dict[str, float]]]) -> list[Row]:
    """Rows of ``table`` for the systems in ``results`` (paper name -> task -> metric -> value)."""
    out = []
    for system in table_systems(table):
        if system not in results:
            continue
        for task in TASKS:
            for metric in METRICS:
                ours = results[system].get(task, {}).get(metric)
                paper = TABLE11.get(system, {}).get(task, {}).get(metric)
                out.append(Row(table, display_name(system, table), task, metric, ours, paper))
    return out


def to_csv(table_rows: Sequence[Row]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in table_rows:
        w.writerow([r.table, r.system, r.task, r.metric,
                    "" if r.ours is None else f"{r.ours:.2f}",
                    "" if r.paper is None else f"{r.paper:g}"])
    return buf.getvalue()


def _cell(ours: float | None, paper: float | None) -> str:
    o = "-" if ours is None else f"{ours:.1f}"
    p = "-" if paper is None else f"{paper:g}"
    return f"{o} ({p})"


def to_markdown(table: str, table_rows: Sequence[Row], header: Sequence[str],
                chosen: dict[str, str]) -> str:
    """A Markdown page: header lines, then one table per task, ``ours (paper)`` per cell."""
    title = {"3": "Table 3: the Section 4 systems, rank of the original item (test)",
             "11": "Table 11: all systems, rank of the original item (test)"}[table]
    lines = [f"# Hodosh et al. (2013) {title}", ""]
    lines += [f"- {h}" for h in header]
    lines += ["", "Cells: ours (paper). R@k in percent (higher is better); median rank "
              "(lower is better).", ""]
    systems = list(dict.fromkeys(r.system for r in table_rows))
    for task in TASKS:
        lines += [f"## Image {task}", "",
                  "| system | " + " | ".join(METRICS) + " | p, d (dev) |",
                  "|---|" + "---|" * (len(METRICS) + 1)]
        for s in systems:
            cells = {r.metric: _cell(r.ours, r.paper) for r in table_rows
                     if r.system == s and r.task == task}
            lines.append(f"| {s} | " + " | ".join(cells.get(m, "-") for m in METRICS)
                         + f" | {chosen.get(s, '')} |")
        lines.append("")
    return "\n".join(lines)
