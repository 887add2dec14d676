"""What ``kcca evaluate`` prints for rankings files: text, JSON or CSV.

* text (:func:`systems_text`): one block per task (annotation, search) with the metrics and the
  judged coverage as rows and the systems as columns, so that it fits a terminal of ``width``
  columns however many metrics there are; systems that do not fit side by side continue in
  further blocks, and long system names are shown as ``S1``, ``S2``, ... with a key.
  Stars mark the significance of the difference to the first system (``--compare``).
* JSON (:func:`evaluation_document`): one object holding every number, the same document
  ``--output`` writes.
* CSV (:func:`systems_csv`): one tidy row per (system, task, kind, name), ``kind`` being
  ``metric`` or ``coverage``, with the value and the p-value against the first system.
"""

from __future__ import annotations

import csv
import io
import math
import textwrap
from typing import Any, Sequence

import numpy as np

from kcca._evaluate.system import SystemEvaluation, stars
from kcca._line_width import WIDTH
from kcca._names import TASKS


#: the per-system quantity that spans both tasks (stored with the coverage)
TOTAL_KEY = "R-precision total (Table 5)"
TOTAL_TASK = "both tasks"
#: metrics printed with two decimals (scores in [0, 1] or on the expert scale); others one
TWO_DIGITS = ("expert mean", "top-1 BLEU", "top-1 ROUGE")
CSV_FIELDS = ("system", "task", "kind", "name", "value", "p_vs_first")
STARS_NOTE = (
    "stars: difference to the first system (* p<=0.1, ** p<=0.05, *** p<=0.01); "
    "McNemar for R@k/S@k/expert thresholds, randomisation test otherwise"
)
_MAX_NAME = 14  # longest system name shown as a column header; longer ones get a key


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def format_metric(name: str, value: float | None) -> str:
    """An aggregate as the text shows it (``n/a`` for a missing or NaN value)."""
    if _missing(value):
        return "n/a"
    return f"{value:.{2 if name in TWO_DIGITS else 1}f}"


def format_coverage(value: Any) -> str:
    """A coverage entry: a fraction as a percentage, a count as it is."""
    if isinstance(value, float) and value <= 1:
        return f"{value:.1%}"
    return str(value)


def p_value(significance: dict | None, system: str, task: str, name: str) -> float | None:
    """The p-value of ``system``'s difference to the first system (None when not tested)."""
    if not significance:
        return None
    return significance.get(system, {}).get(task, {}).get(name, {}).get("p")


def _metric_names(evals: Sequence[SystemEvaluation], task: str) -> list[str]:
    names: list[str] = []
    for e in evals:
        names += [k for k in e.metrics.get(task, {}) if k not in names]
    return names


def _coverage_names(evals: Sequence[SystemEvaluation], task: str) -> list[str]:
    names: list[str] = []
    for e in evals:
        cov = e.coverage.get(task)
        names += [k for k in (cov if isinstance(cov, dict) else {}) if k not in names]
    return names


def _task_rows(
    evals: Sequence[SystemEvaluation], task: str, significance: dict | None
) -> list[tuple[str, list[str]]]:
    """(label, one cell per system) for the metrics, then the judged coverage, of ``task``."""
    rows = []
    for name in _metric_names(evals, task):
        cells = []
        for idx, e in enumerate(evals):
            pq = e.metrics.get(task, {}).get(name)
            if pq is None:
                cells.append("")
                continue
            cell = format_metric(name, pq.aggregate)
            p = p_value(significance, e.system, task, name) if idx > 0 else None
            cells.append(cell + (stars(p) if p is not None else ""))
        rows.append((name, cells))
    coverage = _coverage_names(evals, task)
    if coverage:
        rows.append(("judged coverage", [""] * len(evals)))
        for name in coverage:
            cells = []
            for e in evals:
                cov = e.coverage.get(task)
                value = cov.get(name) if isinstance(cov, dict) else None
                cells.append("" if value is None else format_coverage(value))
            rows.append((f"  {name}", cells))
    return rows


def _total_rows(evals: Sequence[SystemEvaluation]) -> list[tuple[str, list[str]]]:
    totals = [e.coverage.get(TOTAL_KEY) for e in evals]
    if all(t is None for t in totals):
        return []
    return [(TOTAL_KEY, ["" if t is None else format_metric(TOTAL_KEY, t) for t in totals])]


def _headers(evals: Sequence[SystemEvaluation]) -> tuple[list[str], list[str]]:
    """Column headers (the names, or ``S1``... when one is too long) and the key lines."""
    names = [e.system for e in evals]
    if all(len(n) <= _MAX_NAME for n in names):
        return names, []
    short = [f"S{i}" for i in range(1, len(names) + 1)]
    key = ["systems:"] + [f"  {s} = {n}" for s, n in zip(short, names)]
    return short, key


def _blocks(
    sections: list[tuple[str, list[tuple[str, list[str]]]]], headers: list[str], width: int
) -> list[str]:
    """Each (title, rows) section as a table, the sections aligned alike, at most ``width``
    characters wide: as many systems side by side as fit, the others in a further table."""
    every = [row for _, rows in sections for row in rows]
    label_w = max(*(len(t) for t, _ in sections), *(len(label) for label, _ in every))
    col_w = [max(len(h), *(len(cells[j]) for _, cells in every)) for j, h in enumerate(headers)]
    groups: list[list[int]] = [[]]
    used = label_w
    for j, w in enumerate(col_w):
        if groups[-1] and used + 2 + w > width:
            groups.append([])
            used = label_w
        groups[-1].append(j)
        used += 2 + w
    out: list[str] = []
    for title, rows in sections:
        for group in groups:
            out.append(
                (
                    f"{title:<{label_w}}" + "".join(f"  {headers[j]:>{col_w[j]}}" for j in group)
                ).rstrip()
            )
            for label, cells in rows:
                out.append(
                    (
                        f"{label:<{label_w}}" + "".join(f"  {cells[j]:>{col_w[j]}}" for j in group)
                    ).rstrip()
                )
            out.append("")
    return out


def systems_text(
    evals: Sequence[SystemEvaluation], significance: dict | None = None, width: int = WIDTH
) -> str:
    """The metrics of every system, one block per task, in at most ``width`` columns."""
    headers, key = _headers(evals)
    sections = [
        (task, _task_rows(evals, task, significance))
        for task in TASKS
        if any(task in e.metrics for e in evals)
    ]
    total = _total_rows(evals)
    if total:
        sections.append((TOTAL_TASK, total))
    lines: list[str] = [*key, ""] if key else []
    if sections:
        lines += _blocks(sections, headers, width)
    if significance:
        lines += textwrap.wrap(STARS_NOTE, width, subsequent_indent="  ")
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def systems_records(
    evals: Sequence[SystemEvaluation], significance: dict | None = None
) -> list[dict[str, Any]]:
    """One tidy record per (system, task, kind, name) of :data:`CSV_FIELDS`; the value is the
    number itself (None when missing), ``p_vs_first`` the p-value against the first system."""
    records: list[dict[str, Any]] = []
    for idx, e in enumerate(evals):
        for task in [t for t in TASKS if t in e.metrics] + [t for t in e.metrics if t not in TASKS]:
            for name, pq in e.metrics[task].items():
                p = p_value(significance, e.system, task, name) if idx > 0 else None
                value = None if _missing(pq.aggregate) else float(pq.aggregate)
                records.append(
                    {
                        "system": e.system,
                        "task": task,
                        "kind": "metric",
                        "name": name,
                        "value": value,
                        "p_vs_first": p,
                    }
                )
            cov = e.coverage.get(task)
            for name, value in (cov if isinstance(cov, dict) else {}).items():
                records.append(
                    {
                        "system": e.system,
                        "task": task,
                        "kind": "coverage",
                        "name": name,
                        "value": value,
                        "p_vs_first": None,
                    }
                )
        total = e.coverage.get(TOTAL_KEY)
        if total is not None:
            records.append(
                {
                    "system": e.system,
                    "task": TOTAL_TASK,
                    "kind": "metric",
                    "name": TOTAL_KEY,
                    "value": None if _missing(total) else total,
                    "p_vs_first": None,
                }
            )
    return records


def systems_csv(evals: Sequence[SystemEvaluation], significance: dict | None = None) -> str:
    """:func:`systems_records` as CSV with a header row (missing values empty)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for record in systems_records(evals, significance):
        writer.writerow(
            {
                k: ("" if v is None else clean_float(v) if isinstance(v, float) else v)
                for k, v in record.items()
            }
        )
    return buf.getvalue().rstrip("\n")


def evaluation_document(
    evals: Sequence[SystemEvaluation],
    significance: dict | None,
    relevance_rule: str | None,
    per_query: bool = True,
) -> dict[str, Any]:
    """The JSON document of an evaluation: the relevance rule, each system's aggregates,
    coverage, notes (and per-query values), and the significance against the first system."""
    doc: dict[str, Any] = {
        "relevance_rule": relevance_rule,
        "systems": [e.to_json(per_query=per_query) for e in evals],
    }
    if significance:
        doc["significance_vs_first"] = significance
    return jsonable(doc)


#: significant digits a number keeps in JSON and CSV: the float noise of arithmetic below them
#: is dropped (``100 * 0.044`` is written 4.4, not 4.3999999999999995)
SIGNIFICANT_DIGITS = 12


def clean_float(x: float | np.floating) -> float:
    """``x`` rounded to :data:`SIGNIFICANT_DIGITS` significant digits (NaN and inf as they are);
    Python writes it in the shortest form that reads back the same."""
    x = float(x)
    return float(f"{x:.{SIGNIFICANT_DIGITS}g}") if math.isfinite(x) else x


def clean_numbers(x: Any) -> Any:
    """``x`` with every float (NumPy's too) inside dicts, lists and tuples through
    :func:`clean_float`; everything else as it is."""
    if isinstance(x, dict):
        return {k: clean_numbers(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [clean_numbers(v) for v in x]
    if isinstance(x, (float, np.floating)):
        return clean_float(x)
    return x


def jsonable(x: Any) -> Any:
    """Tuples as lists, tuple keys as 'a vs b' strings, NumPy values as Python numbers, floats
    without noise (:func:`clean_float`), NaN as None (JSON has no NaN)."""
    if isinstance(x, dict):
        return {
            (" vs ".join(map(str, k)) if isinstance(k, tuple) else str(k)): jsonable(v)
            for k, v in x.items()
        }
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if hasattr(x, "tolist") and type(x).__module__ == "numpy":  # NumPy scalar or array
        return jsonable(x.tolist())
    if isinstance(x, float):
        return None if math.isnan(x) else clean_float(x)
    return x
