"""Figures written beside the tables by ``kcca reproduce`` (matplotlib, Agg backend, PNG).

* :func:`recall_curves`: R@k for k = 1..100 per system and task, with the paper's R@1/5/10
  (Table 11) as markers and the chance line k / n;
* :func:`gold_rank_distribution`: the rank of the original item per system and task, as a
  histogram over logarithmic bins and as a cumulative distribution;
* :func:`table6_heatmap`: Table 6's 4 x 4 ablation grid of R-precision, ours and the paper's;
* :func:`ours_vs_paper`: Table 11 cell by cell, ours against the paper's, with the fidelity
  bands (3 points for R@k, 25 % for the median rank).

Inputs are plain arrays: ``ranks[label][task]`` holds 1-based ranks of the original item, one
per query (:func:`kcca._evaluate.original.original_ranks`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import numpy as np

from kcca._cache import atomic_write
from kcca._names import TASKS


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _colors(n: int):
    plt = _pyplot()
    cmap = plt.get_cmap("tab10" if n <= 10 else "tab20")
    return [cmap(i % cmap.N) for i in range(n)]


def recall_curves(
    ranks: Mapping[str, Mapping[str, np.ndarray]],
    path: str | Path,
    *,
    paper: Mapping[str, Mapping[str, Mapping[str, float]]] | None = None,
    k_max: int = 100,
) -> Path:
    """R@k (percent) for k = 1..``k_max``, one panel per task; paper R@1/5/10 as markers."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    colors = _colors(max(1, len(ranks)))
    k = np.arange(1, k_max + 1)
    for ax, task in zip(axes, TASKS):
        n = None
        for color, (label, per_task) in zip(colors, ranks.items()):
            r = per_task.get(task)
            if r is None:
                continue
            r = np.asarray(r)
            n = r.size
            # R@k for every k at once: cumulative histogram of the ranks
            counts = np.bincount(np.minimum(r, k_max + 1), minlength=k_max + 2)[1 : k_max + 1]
            ax.plot(k, 100.0 * np.cumsum(counts) / r.size, color=color, label=label)
            pv = (paper or {}).get(label, {}).get(task, {})
            pts = [(kk, pv[f"R@{kk}"]) for kk in (1, 5, 10) if pv.get(f"R@{kk}") is not None]
            if pts:
                ax.plot(*zip(*pts), "o", color=color, markerfacecolor="none", markersize=6)
        if n:
            ax.plot(k, 100.0 * k / n, ":", color="grey", label=f"chance (k/{n})")
        ax.set_title(f"Image {task}")
        ax.set_xlabel("k")
        ax.set_xscale("log")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("R@k (% of queries with the original item in the top k)")
    handles, labels = axes[0].get_legend_handles_labels()
    if handles:
        axes[1].legend(handles, labels, fontsize=8, loc="upper left")
    fig.suptitle("R@k on the test pool (lines: ours; circles: the paper's R@1/5/10)")
    fig.tight_layout()
    return _save(fig, path)


def gold_rank_distribution(ranks: Mapping[str, Mapping[str, np.ndarray]], path: str | Path) -> Path:
    """Histogram (log bins) and CDF of the original item's rank per system and task."""
    plt = _pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    colors = _colors(max(1, len(ranks)))
    n_max = max((np.asarray(r).max() for pt in ranks.values() for r in pt.values()), default=1)
    bins = np.unique(np.round(np.geomspace(1, max(2, n_max) + 1, 25)).astype(int))
    for col, task in enumerate(TASKS):
        h_ax, c_ax = axes[0, col], axes[1, col]
        for color, (label, per_task) in zip(colors, ranks.items()):
            r = per_task.get(task)
            if r is None:
                continue
            r = np.sort(np.asarray(r))
            counts, edges = np.histogram(r, bins=bins)
            h_ax.stairs(
                100.0 * counts / r.size,
                edges,
                color=color,
                label=f"{label} (median {np.median(r):g})",
            )
            c_ax.plot(r, 100.0 * np.arange(1, r.size + 1) / r.size, color=color, label=label)
        for ax in (h_ax, c_ax):
            ax.set_xscale("log")
            ax.grid(True, alpha=0.3)
        h_ax.set_title(f"Image {task}: rank of the original item")
        h_ax.set_ylabel("% of queries per bin")
        h_ax.legend(fontsize=7)
        c_ax.axhline(50, color="grey", lw=0.8, ls=":")
        c_ax.set_xlabel("rank of the original item (1 = first)")
        c_ax.set_ylabel("% of queries with rank <= x")
    fig.tight_layout()
    return _save(fig, path)


def table6_heatmap(
    ours: np.ndarray,
    paper: np.ndarray,
    path: str | Path,
    *,
    rows: tuple[str, ...],
    columns: tuple[str, ...],
) -> Path:
    """Heat maps of Table 6: ``ours`` / ``paper`` are (2 tasks, rows, columns), NaN = absent."""
    plt = _pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    finite = np.concatenate([ours[np.isfinite(ours)], paper[np.isfinite(paper)]])
    vmin, vmax = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    cmap = plt.get_cmap("viridis").with_extremes(bad="lightgrey")
    for t, task in enumerate(TASKS):
        for which, (grid, name) in enumerate(((ours, "ours"), (paper, "paper"))):
            ax = axes[t, which]
            im = ax.imshow(np.ma.masked_invalid(grid[t]), cmap=cmap, vmin=vmin, vmax=vmax)
            for i in range(len(rows)):
                for j in range(len(columns)):
                    v = grid[t, i, j]
                    ax.text(
                        j,
                        i,
                        "not run" if np.isnan(v) else f"{v:.1f}",
                        ha="center",
                        va="center",
                        fontsize=9,
                        color="black" if np.isnan(v) or v > (vmin + vmax) / 2 else "white",
                    )
            ax.set_xticks(range(len(columns)), columns)
            ax.set_yticks(range(len(rows)), rows)
            ax.set_title(f"{name}: image {task}, R-precision")
            fig.colorbar(im, ax=ax, shrink=0.8)
    fig.suptitle("Table 6: trigram kernel + IDF / alignment / distributional similarities")
    fig.tight_layout()
    return _save(fig, path)


#: each task's marker and colour in :func:`ours_vs_paper`
_TASK_STYLE = {"annotation": ("o", "tab:blue"), "search": ("s", "tab:orange")}


def ours_vs_paper(
    cells: Mapping[str, Mapping[str, Mapping[str, tuple[float, ...]]]],
    path: str | Path,
    *,
    nn: set[str] | frozenset[str] = frozenset(),
    metrics: tuple[str, ...] = ("R@1", "R@5", "R@10", "median rank"),
    title: str = "Table 11, ours against the paper's (one point per system and task)",
) -> Path:
    """Scatter of ours (y) against the paper's (x), one panel per metric (default Table 11's
    R@1, R@5, R@10 and median rank), both tasks; the diagonal and the fidelity band (+-3
    points, +-25 % for the median rank) are drawn; NN systems are hollow markers.

    ``cells[system][task][metric] = (ours, paper)``, or ``(ours, paper, low, high)`` to draw
    the range our figure is known to lie in (Table 12: counted S@k to the protocol's bound).
    """
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(metrics), figsize=(4 * len(metrics), 4.2), squeeze=False)
    axes = axes[0]
    for ax, metric in zip(axes, metrics):
        _ours_vs_paper_panel(ax, cells, metric, nn)
    axes[0].legend(fontsize=7, loc="upper left")
    fig.suptitle(title)
    fig.tight_layout()
    return _save(fig, path)


def _ours_vs_paper_panel(ax, cells, metric: str, nn) -> None:
    """One panel of :func:`ours_vs_paper`: (paper, ours) points of ``metric``, the known
    ranges, the diagonal and the fidelity band; hidden when no system has the metric."""
    pts = [
        (v[metric][1], v[metric][0], s, task)
        for s, tasks in cells.items()
        for task, v in tasks.items()
        if metric in v
    ]
    if not pts:
        ax.set_visible(False)
        return
    spans = [
        (v[metric][1], *v[metric][2:4], task)
        for s, tasks in cells.items()
        for task, v in tasks.items()
        if metric in v and len(v[metric]) == 4
    ]
    lo = min(min(p[0], p[1]) for p in pts)
    hi = max(max(p[0], p[1]) for p in pts)
    pad = 0.08 * (hi - lo or 1.0)
    x = np.linspace(min(lo - pad, 0.8 * lo), max(hi + pad, 1.25 * hi), 200)
    if metric == "median rank":
        ax.fill_between(x, 0.75 * x, 1.25 * x, color="0.9", label="within 25 %")
    else:
        ax.fill_between(x, x - 3, x + 3, color="0.9", label="within 3 points")
    ax.plot(x, x, color="0.5", lw=0.8)
    _draw_points(ax, pts, spans, nn)
    if metric == "median rank":  # NN medians sit far from the KCCA ones
        lim = (0.8 * lo, 1.25 * hi)
        _log_rank_axes(ax, lim)
    else:
        lim = (lo - pad, hi + pad)
    ax.set_xlim(*lim)
    ax.set_ylim(*lim)
    ax.set_xlabel(f"paper {metric}")
    ax.set_ylabel(f"ours {metric}")
    ax.set_title(metric)


def _draw_points(ax, pts, spans, nn) -> None:
    """The known ranges (vertical lines), then the points per task, NN systems hollow."""
    for task, (_, color) in _TASK_STYLE.items():
        sel = [p for p in spans if p[3] == task]
        if sel:
            ax.vlines(
                [p[0] for p in sel],
                [p[1] for p in sel],
                [p[2] for p in sel],
                color=color,
                alpha=0.35,
                lw=1.5,
            )
    for task, (marker, color) in _TASK_STYLE.items():
        for hollow in (False, True):
            sel = [p for p in pts if p[3] == task and (p[2] in nn) == hollow]
            if sel:
                ax.scatter(
                    [p[0] for p in sel],
                    [p[1] for p in sel],
                    marker=marker,
                    s=28,
                    facecolors="none" if hollow else color,
                    edgecolors=color,
                    label=f"{task}{' (NN)' if hollow else ''}",
                )


def _log_rank_axes(ax, lim: tuple[float, float]) -> None:
    """Log axes with round rank ticks within ``lim`` (median ranks)."""
    from matplotlib.ticker import FixedLocator, NullFormatter, ScalarFormatter

    ticks = [t for t in (10, 20, 30, 50, 100, 200, 300, 500, 1000) if lim[0] <= t <= lim[1]]
    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(FixedLocator(ticks))
        axis.set_major_formatter(ScalarFormatter())
        axis.set_minor_formatter(NullFormatter())


def _save(fig, path: str | Path) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(p, lambda tmp: fig.savefig(tmp, dpi=110, format=p.suffix[1:] or "png"))
    _pyplot().close(fig)
    return p
