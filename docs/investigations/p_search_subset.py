"""Can the image power p be chosen on a subset of the training items? (dev criterion)

    python scripts/p_search_subset.py --data-dir D [--systems BoW5^HISTO TRI5SEM ...] [--subset 3000]
        [--details results/hodosh2013/rankings/details.json]

The experiment files search p in {2, 3} (d = 1) with the whole kappa x n grid at full precision on
all 6,000 training items, which doubles a run's KCCA time. Capping the factors' rank instead
(``kcca reproduce --search-rank``) is biased against p = 3 (docs/reproduction.md). This script
fits the same search at full precision on a seeded subset of ``--subset`` training items (the
same items for every system and p; the n grid is capped at the subset's rank) and prints each
p's dev criterion of ``kcca._systems.grid`` (dev R@1+R@5+R@10 of the 15-model Borda count, both
tasks: the dev pool and its queries are the full ones), the p it would choose, and, from
``--details`` (the runner's record of a full search), the p and criteria the full search gave.
Dev only: the test split is never read.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def subset_outcomes(image: Any, text: Any, subset: np.ndarray, *, powers=(2.0, 3.0),
                    kappas, n_values, per_criterion: int = 5) -> list:
    """Dev outcomes (:class:`kcca._systems.grid.DevOutcome`) of each p with d = 1, fitted on
    the training items ``subset`` only; the dev blocks keep every dev item."""
    from kcca._solver import FactorCache
    from kcca._systems.grid import dev_outcome, fit_grid

    ix = np.ix_(subset, subset)
    Kx, Ky = image.train[ix], text.train[ix]
    Kx_dev, Ky_dev = image.dev[:, subset], text.dev[:, subset]
    factors = FactorCache(max_sides=3, max_pairs=1)
    n_values = [int(n) for n in n_values if n < len(subset)] or [len(subset) - 1]
    out = []
    for p in powers:
        grid = fit_grid(Kx, Ky, p=p, d=1.0, kappas=kappas, n_values=n_values,
                        factor_cache=factors)
        out.append(dev_outcome(grid, Kx_dev, Ky_dev, p=p, d=1.0, per_criterion=per_criterion))
    return out


def full_search(details: Path | None) -> dict[str, dict[float, float]]:
    """system name -> {p: dev criterion} of the runner's full search, from details.json."""
    if details is None or not details.exists():
        return {}
    return {s["system"]: {float(o["p"]): float(o["criterion"]) for o in s.get("dev") or []
                          if "p" in o}
            for s in json.loads(details.read_text())}


def main(argv: list[str] | None = None) -> int:
    from kcca._systems.dev_check import add_workspace_arguments, open_workspace_from
    from kcca._systems.grid import choose
    from kcca._systems.spec import load_specs, select_specs

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", nargs="*", default=None,
                        help="KCCA systems (default: every KCCA system of the experiment files)")
    parser.add_argument("--experiments", default=str(ROOT / "experiments" / "hodosh2013"))
    parser.add_argument("--subset", type=int, default=3000, help="training items (default 3000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the subset (default 0)")
    parser.add_argument("--details", default=str(ROOT / "results" / "hodosh2013" / "rankings"
                                                 / "details.json"),
                        help="the runner's details.json holding the full search, to compare")
    add_workspace_arguments(parser)
    args = parser.parse_args(argv)

    specs = [s for s in load_specs(Path(args.experiments)) if s.model == "kcca"]
    if args.systems:
        specs = select_specs(specs, args.systems)
    ws = open_workspace_from(args, progress=False)
    n_train = len(ws.corpus.split("train"))
    if not 10 < args.subset <= n_train:
        parser.error(f"--subset must lie in (10, {n_train}], got {args.subset}")
    subset = np.sort(np.random.default_rng(args.seed).choice(n_train, args.subset, replace=False))
    full = full_search(Path(args.details) if args.details else None)
    print(f"p chosen on dev with {args.subset} of {n_train} training items (seed {args.seed}), "
          "full precision, d = 1; dev criterion per p; the full search's from its details.json")
    print("| system | subset: p = 2 | p = 3 | chooses | full: p = 2 | p = 3 | chooses | same | s |")
    print("|---|---|---|---|---|---|---|---|---|")
    agree = 0
    for spec in specs:
        t = time.perf_counter()
        image = ws.image_blocks(spec.image_kernel)
        text = ws.text_blocks(spec.text_kernel, spec.preprocessing, spec.word_kernel)
        outcomes = subset_outcomes(image, text, subset, kappas=spec.grid.kappas,
                                   n_values=spec.grid.n_values(),
                                   per_criterion=spec.per_criterion)
        crit = {o.p: o.criterion for o in outcomes}
        pick = choose(outcomes).p
        ref = full.get(spec.name, {})
        ref_pick = max(ref, key=lambda p: (ref[p], -p)) if ref else None
        same = "" if ref_pick is None else ("yes" if ref_pick == pick else "**no**")
        agree += same == "yes"
        cells = " | ".join(f"{ref[p]:.1f}" if p in ref else "-" for p in (2.0, 3.0))
        print(f"| {spec.name} | {crit[2.0]:.1f} | {crit[3.0]:.1f} | {pick:g} | {cells} | "
              f"{'-' if ref_pick is None else f'{ref_pick:g}'} | {same} | "
              f"{time.perf_counter() - t:.0f} |", flush=True)
    print(f"same choice as the full search: {agree} of {len(specs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
