"""The report's figures, each beside the tables it illustrates: the R@k curves and gold-rank
distribution (Tables 3 and 11), ours against the paper's R@k and median rank (Table 11) and
S@k under the judging protocol (Table 12), and the Table 6 heat map. :mod:`kcca._paper.plots`
draws them; this module gives each its data and its file name."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from kcca._paper import plots
from kcca._paper import printed as PP
from kcca._paper import tables as T
from kcca._paper.evaluated_systems import SystemData
from kcca._paper.numbers import SECTION4_NAMES, SYSTEMS, TABLE11, TABLE12

#: file names of the figures, by what they show
PLOTS = {
    "recall": "recall_at_k.png",
    "ranks": "gold_rank_distribution.png",
    "table6": "table6_heatmap.png",
    "fidelity": "ours_vs_paper.png",
    "table12": "table12_ours_vs_paper.png",
}


def draw_figures(
    out: Path, data: dict[str, SystemData], values: dict, tables: Sequence[str]
) -> list[Path]:
    """Every figure the requested ``tables`` have, written into ``out`` (``values``: system ->
    task -> metric -> aggregate, :func:`kcca._paper.table_building.values_of`)."""
    nn = {T.short_name(s) for s in SYSTEMS if s.startswith("NN5_")}  # hollow markers
    files = []
    if "3" in tables or "11" in tables:
        files += _rank_figures(out, data)
    if "11" in tables:
        files += _table11_figure(out, values, nn)
    if "12" in tables:
        files += _table12_figure(out, values, nn)
    if "6" in tables:
        files.append(_table6_figure(out, values))
    return files


def figures_of(table: str) -> list[str]:
    """The figures shown beside ``table`` (file names)."""
    if table == "3":
        return [PLOTS["recall"], PLOTS["ranks"]]
    if table == "11":
        return [PLOTS["recall"], PLOTS["ranks"], PLOTS["fidelity"]]
    if table == "6":
        return [PLOTS["table6"]]
    if table == "12":
        return [PLOTS["table12"]]
    return []


def _rank_figures(out: Path, data: dict[str, SystemData]) -> list[Path]:
    """R@k curves of Table 3's systems (beside the paper's Table 11 figures), and the
    gold-rank distribution of every system; nothing without a system."""
    t3 = [SECTION4_NAMES[s] for s in PP.TABLE3_SYSTEMS]
    chosen = [s for s in t3 if s in data] or [s for s in SYSTEMS if s in data]
    if not chosen:
        return []
    ranks = {T.short_name(s): data[s].ranks for s in chosen}
    paper = {T.short_name(s): TABLE11[s] for s in chosen if s in TABLE11}
    every = {
        T.short_name(s): data[s].ranks
        for s in [*[s for s in SYSTEMS if s in data], *[s for s in data if s not in SYSTEMS]]
    }
    return [
        plots.recall_curves(ranks, out / PLOTS["recall"], paper=paper),
        plots.gold_rank_distribution(every, out / PLOTS["ranks"]),
    ]


def _table11_figure(out: Path, values: dict, nn: set[str]) -> list[Path]:
    """Our R@k and median rank against Table 11's, per system, task and metric."""
    cells = {
        T.short_name(s): {
            task: {
                m: (values[s][task][m], TABLE11[s][task][m])
                for m in T.METRICS
                if m in values[s].get(task, {}) and m in TABLE11[s].get(task, {})
            }
            for task in T.TASKS
        }
        for s in SYSTEMS
        if s in values and s in TABLE11
    }
    if not cells:
        return []
    return [plots.ours_vs_paper(cells, out / PLOTS["fidelity"], nn=nn)]


def _table12_figure(out: Path, values: dict, nn: set[str]) -> list[Path]:
    """The judging protocol's imputed S@k against Table 12's, with bars from counted S@k to
    the protocol's bound."""
    cells: dict = {}
    for s in SYSTEMS:
        for task in T.TASKS:
            v, paper = values.get(s, {}).get(task, {}), TABLE12.get(s, {}).get(task, {})
            for m in T.S_METRICS:
                if m in paper and all(k in v for k in (m, f"{m} imputed", f"{m} bound")):
                    cells.setdefault(T.short_name(s), {}).setdefault(task, {})[m] = (
                        v[f"{m} imputed"],
                        paper[m],
                        v[m],
                        v[f"{m} bound"],
                    )
    if not cells:
        return []
    return [
        plots.ours_vs_paper(
            cells,
            out / PLOTS["table12"],
            nn=nn,
            metrics=T.S_METRICS,
            title="Table 12 under the paper's judging protocol: imputed S@k against the "
            "paper's (bars: counted S@k to the protocol's bound)",
        )
    ]


def _table6_figure(out: Path, values: dict) -> Path:
    """Table 6's R-precision grid, ours beside the paper's, as a heat map."""
    shape = (2, len(PP.TABLE6_ROWS), len(PP.TABLE6_COLUMNS))
    ours, paper = np.full(shape, np.nan), np.full(shape, np.nan)
    for ti, task in enumerate(T.TASKS):
        for r, row in enumerate(PP.TABLE6_SYSTEMS):
            for c, s in enumerate(row):
                v = values.get(s, {}).get(task, {}).get("R-precision")
                if v is not None:
                    ours[ti, r, c] = v
                paper[ti, r, c] = PP.table6_paper(r, c, task)[0]
    return plots.table6_heatmap(
        ours, paper, out / PLOTS["table6"], rows=PP.TABLE6_ROWS, columns=PP.TABLE6_COLUMNS
    )
