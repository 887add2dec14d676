"""How close a reproduction is to the paper: its fidelity targets, checked and written down.

From our test figures (``system -> task -> metric -> value``, :func:`kcca._paper.
table_building.values_of`) and the paper's Tables 11-12 (:mod:`kcca._paper.numbers`):

* Table 11: R@1/5/10 within 3 points, median rank within 25 %, per system and task;
* Table 12: S@1/5/10 within 3 points (our S@k counts unjudged pairs as not relevant; the
  condensed estimate is reported beside it, and whether the paper's value falls between the
  two; so are the estimate under the paper's judging protocol and that protocol's upper
  bound, :mod:`kcca._evaluate.judging_protocol`);
* Spearman's rho between our and the paper's ordering of the systems by R@10 and by median rank,
  all systems (target 0.8) and the KCCA systems alone (target 0.5);
* every NN system below every KCCA system on R@10, in both tasks;
* TRI5SEM best, or within 1 point (median: 1 rank) of the best, where the paper's is best
  (Table 11: annotation R@1/5/10 and median, search R@10; Table 12: annotation S@5, S@10 and
  R-precision, search S@10 and R-precision);
* beyond the paper: TRI5SEM at or above the paper's own TRI5SEM on R@1/5/10, at or below its
  median rank.

Only systems present in both our figures and the paper's tables count; a check with too few
systems says so instead of passing.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Mapping

from kcca._evaluate.statistics import spearman_rho
from kcca._names import TASKS
from kcca._paper.numbers import SECTION4_NAMES, SYSTEMS, TABLE11, TABLE12

Values = Mapping[str, Mapping[str, Mapping[str, float]]]
RECALLS = ("R@1", "R@5", "R@10")
SUCCESS = ("S@1", "S@5", "S@10")
TRI5SEM = SECTION4_NAMES["TRI5SEM"]
#: (table, task, metric) where the paper's TRI5SEM is the best system
TRI5SEM_BEST = (
    ("11", "annotation", "R@1"),
    ("11", "annotation", "R@5"),
    ("11", "annotation", "R@10"),
    ("11", "annotation", "median rank"),
    ("11", "search", "R@10"),
    ("12", "annotation", "S@5"),
    ("12", "annotation", "S@10"),
    ("12", "annotation", "R-precision"),
    ("12", "search", "S@10"),
    ("12", "search", "R-precision"),
)
#: Table 12's S@1/5/10 within 3 points, on each of our variants: (suffix of our metric, check name)
S_AT_K_VARIANTS = (
    ("", "Table 12 S@1/5/10 (unjudged = not relevant)"),
    (" condensed", "Table 12 S@1/5/10 on condensed lists (judged pairs only; information)"),
    (
        " imputed",
        "Table 12 S@1/5/10 under the paper's judging protocol "
        "(unjudged top-10 pairs passing BLEU_pre >= 0.25 imputed; information)",
    ),
)


@dataclass
class Check:
    """One fidelity target: what it asks, what we measured, whether it holds (None: not
    enough systems to tell), and the cells that miss it."""

    name: str
    target: str
    measured: str
    passed: bool | None
    misses: list[str] = field(default_factory=list)


def is_nn(system: str) -> bool:
    return system.startswith("NN5_")


def _get(values: Values, system: str, task: str, metric: str) -> float | None:
    v = values.get(system, {}).get(task, {}).get(metric)
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def _paper(table: str, system: str, task: str, metric: str) -> float | None:
    src = TABLE11 if table == "11" else TABLE12
    v = src.get(system, {}).get(task, {}).get(metric)
    return None if v is None else float(v)


def present_systems(values: Values) -> list[str]:
    """The paper's systems we have figures for, in the paper's order."""
    return [s for s in SYSTEMS if s in values]


def _counted(
    name: str, target: str, hits: int, total: int, misses: list[str], label: str = "cells"
) -> Check:
    """A check counted over cells: ``hits`` of ``total`` met it (passed: all of them; None: no
    cells to tell)."""
    return Check(
        name, target, f"{hits} of {total} {label}", (hits == total) if total else None, misses
    )


def _within(
    values: Values,
    systems: list[str],
    table: str,
    metrics: tuple[str, ...],
    ok,
    label: str,
    target: str,
    name: str,
    ours_suffix: str = "",
) -> Check:
    """Cells where ``ok(ours, paper)``; ours read as ``metric + ours_suffix`` (the condensed
    variants are compared with the paper's plain metric)."""
    hits = total = 0
    misses = []
    for s in systems:
        for task in TASKS:
            for m in metrics:
                ours = _get(values, s, task, m + ours_suffix)
                paper = _paper(table, s, task, m)
                if ours is None or paper is None:
                    continue
                total += 1
                if ok(ours, paper):
                    hits += 1
                else:
                    misses.append(f"{s} {task} {m}{ours_suffix} {ours:g} ({paper:g})")
    return _counted(name, target, hits, total, misses, label)


def _spearman(values: Values, systems: list[str], metric: str, target: float, who: str) -> Check:
    parts: list[str] = []
    ok: list[bool | None] = []
    for task in TASKS:
        raw = [(_get(values, s, task, metric), _paper("11", s, task, metric)) for s in systems]
        pairs = [(a, b) for a, b in raw if a is not None and b is not None]
        if len(pairs) < 3:
            parts.append(f"{task}: {len(pairs)} systems (need 3)")
            ok.append(None)
            continue
        rho = spearman_rho([a for a, _ in pairs], [b for _, b in pairs])
        parts.append(f"{task} {rho:.2f} (n={len(pairs)})")
        ok.append(rho >= target)
    passed = None if None in ok else all(ok)
    return Check(f"Spearman rho by {metric}, {who}", f">= {target}", "; ".join(parts), passed)


def _nn_below_kcca(values: Values, systems: list[str]) -> Check:
    parts: list[str] = []
    ok: list[bool | None] = []
    misses: list[str] = []
    for task in TASKS:
        nn_raw = {s: _get(values, s, task, "R@10") for s in systems if is_nn(s)}
        kc_raw = {s: _get(values, s, task, "R@10") for s in systems if not is_nn(s)}
        nn = {s: v for s, v in nn_raw.items() if v is not None}
        kc = {s: v for s, v in kc_raw.items() if v is not None}
        if not nn or not kc:
            parts.append(f"{task}: needs NN and KCCA systems")
            ok.append(None)
            continue
        # every key is present, so get never gives None
        top_nn, low_kc = max(nn, key=nn.get), min(kc, key=kc.get)  # type: ignore[arg-type]
        parts.append(
            f"{task}: best NN {top_nn} {nn[top_nn]:g} vs worst KCCA {low_kc} {kc[low_kc]:g}"
        )
        ok.append(nn[top_nn] < kc[low_kc])
        if nn[top_nn] >= kc[low_kc]:
            misses.append(f"{task}: {top_nn} {nn[top_nn]:g} >= {low_kc} {kc[low_kc]:g}")
    return Check(
        "every NN system below every KCCA system on R@10",
        "both tasks",
        "; ".join(parts),
        None if None in ok else all(ok),
        misses,
    )


def _tri5sem_best(values: Values, systems: list[str]) -> Check:
    if TRI5SEM not in values:
        return Check(
            "TRI5SEM best or within 1 of the best where the paper's is best",
            "10 cells",
            "TRI5SEM not run",
            None,
        )
    hits, misses, total = 0, [], 0
    for table, task, metric in TRI5SEM_BEST:
        raw = {s: _get(values, s, task, metric) for s in systems}
        scores = {s: v for s, v in raw.items() if v is not None}
        if TRI5SEM not in scores:
            continue
        total += 1
        lower = metric == "median rank"
        # every key is present, so get never gives None
        best = (min if lower else max)(scores, key=scores.get)  # type: ignore[arg-type]
        gap = (scores[TRI5SEM] - scores[best]) if lower else (scores[best] - scores[TRI5SEM])
        if gap <= 1.0 + 1e-9:
            hits += 1
        else:
            misses.append(
                f"Table {table} {task} {metric}: TRI5SEM {scores[TRI5SEM]:g}, best "
                f"{best} {scores[best]:g}"
            )
    return _counted(
        "TRI5SEM best or within 1 of the best where the paper's is best",
        f"{len(TRI5SEM_BEST)} cells",
        hits,
        total,
        misses,
    )


def _beyond(values: Values) -> Check:
    if TRI5SEM not in values:
        return Check(
            "beyond the paper: TRI5SEM at or above the paper's TRI5SEM",
            "R@1/5/10 >=, median <=",
            "TRI5SEM not run",
            None,
        )
    hits, misses, total = 0, [], 0
    for task in TASKS:
        for m in RECALLS + ("median rank",):
            ours, paper = _get(values, TRI5SEM, task, m), _paper("11", TRI5SEM, task, m)
            if ours is None or paper is None:
                continue
            total += 1
            good = ours <= paper if m == "median rank" else ours >= paper
            hits += good
            if not good:
                misses.append(f"{task} {m} {ours:g} ({paper:g})")
    return _counted(
        "beyond the paper: TRI5SEM at or above the paper's TRI5SEM",
        "R@1/5/10 >=, median <=",
        hits,
        total,
        misses,
    )


def within_3(ours: float, paper: float) -> bool:
    """The recall / success target: at most 3 points from the paper."""
    return abs(ours - paper) <= 3.0 + 1e-9


def _within_3(
    values: Values,
    systems: list[str],
    table: str,
    metrics: tuple[str, ...],
    name: str,
    ours_suffix: str = "",
) -> Check:
    """:func:`_within` with the 3-point target of R@k and S@k."""
    return _within(
        values,
        systems,
        table,
        metrics,
        within_3,
        "cells within 3 points",
        "|ours - paper| <= 3",
        name,
        ours_suffix,
    )


def fidelity_checks(values: Values) -> list[Check]:
    """Every fidelity target of the reproduction, checked on ``values`` (see the module doc)."""
    systems = present_systems(values)
    kcca = [s for s in systems if not is_nn(s)]
    return [
        _within_3(values, systems, "11", RECALLS, "Table 11 R@1/5/10"),
        _within(
            values,
            systems,
            "11",
            ("median rank",),
            lambda a, b: abs(a - b) <= 0.25 * b + 1e-9,
            "cells within 25 %",
            "|ours - paper| <= 25 % of paper",
            "Table 11 median rank",
        ),
        *(
            _within_3(values, systems, "12", SUCCESS, name, ours_suffix=suffix)
            for suffix, name in S_AT_K_VARIANTS
        ),
        # a cell above our bound misses whatever the crowd would say about our unjudged pairs
        _within(
            values,
            systems,
            "12",
            SUCCESS,
            lambda ours, paper: paper <= ours + 3.0 + 1e-9,
            "cells",
            "every cell",
            "Table 12 paper's S@k at most our judging-protocol "
            "bound + 3 (information: cells above it miss whatever our unjudged pairs are)",
            ours_suffix=" bound",
        ),
        _bracket(values, systems),
        *(
            _spearman(values, among, metric, target, who)
            for among, target, who in ((systems, 0.8, "all systems"), (kcca, 0.5, "KCCA systems"))
            for metric in ("R@10", "median rank")
        ),
        _nn_below_kcca(values, systems),
        _tri5sem_best(values, systems),
        _beyond(values),
    ]


def _bracket(values: Values, systems: list[str]) -> Check:
    """Is the paper's S@k / R-precision between our lower bound (unjudged = not relevant) and
    our condensed estimate, give or take 3 points? (Information: with unjudged pairs, that
    interval is what our figures can say.)"""
    hits = total = 0
    misses = []
    for s in systems:
        for task in TASKS:
            for m in SUCCESS + ("R-precision",):
                lo, hi = _get(values, s, task, m), _get(values, s, task, f"{m} condensed")
                paper = _paper("12", s, task, m)
                if lo is None or hi is None or paper is None:
                    continue
                total += 1
                if lo - 3.0 - 1e-9 <= paper <= hi + 3.0 + 1e-9:
                    hits += 1
                else:
                    misses.append(f"{s} {task} {m} [{lo:g}, {hi:g}] ({paper:g})")
    return _counted(
        "Table 12 paper's S@k / R-precision inside [ours, ours condensed] +- 3 (information)",
        "every cell",
        hits,
        total,
        misses,
    )


def to_markdown(checks: list[Check], header: list[str], systems: list[str]) -> str:
    """``fidelity.md``: the header, one row per target, then the misses of each."""
    mark = {True: "met", False: "**missed**", None: "n/a"}
    lines = ["# Fidelity of this reproduction to Hodosh et al. (2013)", ""]
    lines += [f"- {h}" for h in header]
    lines += [f"- systems compared ({len(systems)} of the paper's 30): {', '.join(systems)}", ""]
    lines += ["| target | asks | measured | |", "|---|---|---|---|"]
    lines += [f"| {c.name} | {c.target} | {c.measured} | {mark[c.passed]} |" for c in checks]
    for c in checks:
        if c.misses:
            lines += ["", f"## {c.name}: {len(c.misses)} miss(es)", "", "ours (paper):", ""]
            lines += [f"- {m}" for m in c.misses]
    return "\n".join(lines) + "\n"


def to_json(checks: list[Check]) -> list[dict]:
    return [asdict(c) for c in checks]
