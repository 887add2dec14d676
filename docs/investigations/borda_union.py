"""Does one Borda count over several kernel pairs beat each pair's own? (dev criterion)

    python scripts/borda_union.py --data-dir D --systems TRI5SEM+FV+CFV TRI5SEM+FV [--p 2 --d 1]

The paper combines the 15 dev-selected models of one kernel pair by Borda count (Section 4.1.3).
This script fits the KCCA grid (paper's kappas and n, full precision, one (p, d)) of each named
system (looked up in experiments/hodosh2013 and experiments/beyond, or ``--experiments``),
selects each system's 15 models per task as the runner does, and prints the dev criterion of
``kcca._systems.grid`` (dev R@1+R@5+R@10 of the Borda count, both tasks) for each system alone
and for one Borda count over the union of their selected models. Dev only: the test split is
never read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENTS = [ROOT / "experiments" / "hodosh2013", ROOT / "experiments" / "beyond"]


def selected_rankings(grid: Any, image_dev: Any, text_dev: Any, per_criterion: int = 5
                      ) -> dict[str, np.ndarray]:
    """Per task, the dev rankings (models, queries, candidates) of the models the runner
    selects from a fitted grid (``per_criterion`` best by each of R@1, R@5, R@10)."""
    from kcca._evaluate.original import rank_candidates
    from kcca._selection import TASKS, grid_dev_ranks, select_models
    from kcca._systems.grid import KS, model_scores

    out = {}
    for task in TASKS:
        ranks = grid_dev_ranks(grid, image_dev, text_dev, task)
        chosen = [m.setting for m in select_models(ranks, per_criterion=per_criterion, ks=KS)]
        scores = model_scores(grid, image_dev, text_dev, task, chosen)
        out[task] = np.stack([rank_candidates(s) for s in scores])
    return out


def figures_of(rankings: dict[str, np.ndarray]) -> dict[str, list[float]]:
    """Per task ``[R@1, R@5, R@10, median]`` of the Borda count of the given model rankings."""
    from kcca._borda import borda_aggregate
    from kcca._evaluate.original import original_ranks
    from kcca._systems.dev_check import recall_figures

    return {task: recall_figures(original_ranks(borda_aggregate(r).ranking))
            for task, r in rankings.items()}


def main(argv: list[str] | None = None) -> int:
    from kcca._systems.dev_check import (OpenSystem, add_workspace_arguments, criterion_of,
                                        figure_cells, open_workspace_from, system_grid)
    from kcca._systems.spec import load_specs, select_specs

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", nargs="+", required=True,
                        help="two or more systems (paper or short names)")
    parser.add_argument("--experiments", nargs="+", default=[str(e) for e in EXPERIMENTS],
                        help="folders of experiment files holding the systems")
    parser.add_argument("--p", type=float, default=2.0, help="image kernel power (default 2)")
    parser.add_argument("--d", type=float, default=1.0, help="text diagonal factor (default 1)")
    add_workspace_arguments(parser)
    args = parser.parse_args(argv)
    if len(args.systems) < 2:
        parser.error("--systems: name at least two systems to combine")

    specs = [s for folder in args.experiments for s in load_specs(Path(folder))]
    chosen = select_specs(specs, args.systems)
    ws = open_workspace_from(args)
    print(f"p = {args.p:g}, d = {args.d:g}: dev criterion (R@1+R@5+R@10, both tasks) of the "
          "Borda count of each system's dev-selected models, then of their union")
    print("| models of | dev criterion | annotation R@1/5/10, median | search R@1/5/10, median |")
    print("|---|---|---|---|")
    union: dict[str, list[np.ndarray]] = {}
    for spec in chosen:
        system = OpenSystem(ws, spec, ws.text_blocks(spec.text_kernel, spec.preprocessing,
                                                     spec.word_kernel))
        image = ws.image_blocks(spec.image_kernel)
        grid = system_grid(system, image.train, p=args.p, d=args.d)
        rankings = selected_rankings(grid, image.dev, system.text.dev, spec.per_criterion)
        del grid
        ws.factor_cache.clear_view("Ky")
        for task, r in rankings.items():
            union.setdefault(task, []).append(r)
        f = figures_of(rankings)
        cells = figure_cells(f)
        print(f"| {spec.name} | {criterion_of(f):.1f} | {cells[0]} | {cells[1]} |", flush=True)
    f = figures_of({task: np.concatenate(r) for task, r in union.items()})
    cells = figure_cells(f)
    print(f"| union of the {len(chosen)} | {criterion_of(f):.1f} | {cells[0]} | {cells[1]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
