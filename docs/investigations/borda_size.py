"""How many models should the Borda count combine? (dev criterion, one system)

    python scripts/borda_size.py --data-dir D [--system TRI5SEM+FV+CFV --experiments experiments/beyond]

The paper combines 15 models per task: the 5 best (kappa, n) settings on dev by R@1, the 5 best
by R@5 and the 5 best by R@10 (Section 4.1.3). This script fits the system's KCCA grid (paper's
kappas and n, full precision) at one (p, d), computes the dev ranks of every model once, and for
each number of models per criterion (``--per-criterion``, 5 = the paper) selects the models as
the runner does (:func:`kcca._selection.select_models`) and prints the dev criterion of
``kcca._systems.grid`` (dev R@1+R@5+R@10 of the Borda count, both tasks). The selection and the
Borda count are scored on the same dev pool, as the runner's criterion is. Dev only: the test
split is never read.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from kcca._systems.dev_check import (add_system_arguments, criterion_of, figure_cells,
                                    open_system_from, recall_figures, system_grid)


def dev_table(grid: Any, image_dev: Any, text_dev: Any, sizes: list[int]
              ) -> list[tuple[int, float, dict]]:
    """(models per criterion, dev criterion, task -> [R@1, R@5, R@10, median, models])."""
    from kcca._evaluate.original import original_ranks
    from kcca._selection import TASKS, grid_dev_ranks, select_models
    from kcca._systems.grid import KS, borda_rankings

    ranks = {task: grid_dev_ranks(grid, image_dev, text_dev, task) for task in TASKS}
    rows = []
    for size in sizes:
        figures = {}
        for task in TASKS:
            chosen = [m.setting for m in select_models(ranks[task], per_criterion=size, ks=KS)]
            borda = original_ranks(borda_rankings(grid, image_dev, text_dev, task, chosen))
            figures[task] = recall_figures(borda) + [len(chosen)]
        rows.append((size, criterion_of(figures), figures))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_system_arguments(parser, grid_point=True)
    parser.add_argument("--per-criterion", type=int, nargs="+", default=[1, 2, 3, 5, 8, 12],
                        help="models per recall criterion to try (5 = the paper's 15 models)")
    args = parser.parse_args(argv)
    if any(s < 1 for s in args.per_criterion):
        parser.error("--per-criterion: model counts must be >= 1")

    system = open_system_from(args)
    image = system.ws.image_blocks(system.spec.image_kernel)
    grid = system_grid(system, image.train, p=args.p, d=args.d)
    print(f"{system.spec.name}, p = {args.p:g}, d = {args.d:g}: dev criterion (R@1+R@5+R@10, "
          "both tasks) of the Borda count of the models chosen on dev")
    print("| per criterion | models (annotation/search) | dev criterion | "
          "annotation R@1/5/10, median | search R@1/5/10, median |")
    print("|---|---|---|---|---|")
    for size, criterion, f in dev_table(grid, image.dev, system.text.dev, args.per_criterion):
        cells = figure_cells(f)
        print(f"| {size} | {f['annotation'][4]}/{f['search'][4]} | {criterion:.1f} | "
              f"{cells[0]} | {cells[1]} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
