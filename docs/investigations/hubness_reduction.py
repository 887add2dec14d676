"""Does hubness reduction of the cosine scores help a system? (dev criterion, one system)

    python scripts/hubness_reduction.py --data-dir D [--system TRI5SEM+FV --experiments experiments/beyond]

In a shared space some candidates ("hubs") are near many queries and crowd the top of every
ranking. CSLS (Conneau et al. 2018) scores ``cos(q, c) - beta * r(c)``, where ``r(c)`` is the
mean cosine of candidate ``c`` to its ``k`` nearest items of a bank of the query modality; here
the bank is the training set's own projections (training images for annotation, training
captions for search), so nothing of the dev or test pools enters a score but the pair itself.

The script fits the system's KCCA grid (paper's kappas and n, full precision) at one (p, d),
selects its 15 models per task on dev with plain cosines (eq. 4) as the runner does, and prints
the dev criterion of ``kcca._systems.grid`` (dev R@1+R@5+R@10 of the 15-model Borda, both tasks)
for every (k, beta), k = 0 being the plain cosine. Dev only: the test split is never read.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

from kcca._scoring import cosine_scores
from kcca._systems.dev_check import (add_system_arguments, criterion_of, figure_cells,
                                    open_system_from, recall_figures, system_grid)


def hub_penalty(candidates: Any, bank: Any, k: int) -> np.ndarray:
    """``r(c)``: mean cosine of each candidate row to its ``k`` nearest bank rows."""
    if not 1 <= k <= len(bank):
        raise ValueError(f"k must lie in [1, {len(bank)}] (the bank's size), got {k}")
    sims = cosine_scores(np.asarray(candidates, dtype=float), np.asarray(bank, dtype=float))
    return -np.partition(-sims, k - 1, axis=1)[:, :k].mean(axis=1)


def csls_scores(queries: Any, candidates: Any, bank: Any, k: int, beta: float) -> np.ndarray:
    """``cos(q, c) - beta * r(c)`` (:func:`hub_penalty`); ``k = 0``: the plain cosine (eq. 4)."""
    scores = cosine_scores(np.asarray(queries, dtype=float),
                           np.asarray(candidates, dtype=float))
    return scores if k == 0 else scores - beta * hub_penalty(candidates, bank, k)[None, :]


def dev_table(system: Any, image: Any, p: float, d: float, ks: list[int], betas: list[float]
              ) -> list[tuple[int, float, float, dict]]:
    """(k, beta, dev criterion, task -> [R@1, R@5, R@10, median]) for every setting, with the
    system's text blocks and these image blocks."""
    from kcca._borda import borda_from_scores
    from kcca._evaluate.original import original_ranks
    from kcca._systems.grid import dev_outcome

    text = system.text
    grid = system_grid(system, image.train, p=p, d=d)
    chosen = dev_outcome(grid, image.dev, text.dev, p=p, d=d,
                         per_criterion=system.spec.per_criterion).selected
    train = (grid.transform_x(image.train), grid.transform_y(text.train))
    dev = (grid.transform_x(image.dev), grid.transform_y(text.dev))
    rows = []
    for k in ks:
        for beta in (betas if k else [0.0]):
            figures = {}
            for task, (q, c) in (("annotation", (0, 1)), ("search", (1, 0))):
                scores = []
                for kappa, n in chosen[task]:
                    i = grid.kappas_.index(kappa)
                    scores.append(csls_scores(dev[q][i][:, :n], dev[c][i][:, :n],
                                              train[q][i][:, :n], k, beta))
                figures[task] = recall_figures(original_ranks(borda_from_scores(scores).ranking))
            rows.append((k, beta, criterion_of(figures), figures))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_system_arguments(parser, grid_point=True)
    parser.add_argument("--ks", type=int, nargs="+", default=[0, 1, 5, 10, 25, 50])
    parser.add_argument("--betas", type=float, nargs="+", default=[0.5, 1.0])
    args = parser.parse_args(argv)
    if any(k < 0 for k in args.ks):
        parser.error("--ks: neighbour counts must be >= 0 (0 = plain cosine)")

    system = open_system_from(args)
    image = system.ws.image_blocks(system.spec.image_kernel)
    print(f"{system.spec.name}, p = {args.p:g}, d = {args.d:g}: dev criterion (R@1+R@5+R@10, "
          "both tasks) with CSLS scores; k = 0 is the plain cosine")
    print("| k | beta | dev criterion | annotation R@1/5/10, median | search R@1/5/10, median |")
    print("|---|---|---|---|---|")
    for k, beta, criterion, f in dev_table(system, image, args.p, args.d, args.ks,
                                                args.betas):
        cells = figure_cells(f)
        print(f"| {k} | {beta:g} | {criterion:.1f} | {cells[0]} | {cells[1]} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
