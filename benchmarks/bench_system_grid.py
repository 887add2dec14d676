"""Benchmark: the KCCA stages of one paper system, at Flickr 8K's sizes, on a backend.

What ``kcca reproduce`` does for one KCCA system once its kernel blocks are cached
(:mod:`kcca._systems.runner`), with the same functions: for each (p, d) of the paper's search
grid (p in {2, 3}, d in {1, 2, 3, 5, 8, 10, 15}) the whole 4 kappa x 46 n grid is fitted
(:func:`kcca._systems.grid.fit_grid`, one shared :class:`kcca._solver.FactorCache`) and scored on
the dev pool (:func:`kcca._systems.grid.dev_outcome`: dev ranks of all 184 models, 15 selected
per task, their Borda); the best (p, d) then ranks the test pool (Borda of its 15 models).

Kernels: the synthetic ones of ``bench_kcca.py`` (histogram intersection of topic histograms
for images, cosine of bags of words for captions; unit diagonal) with 6,000 training items and
1,000 dev and 1,000 test items, so every stage has the real shapes.

``--backend cupy`` runs kernels-to-rankings on the GPU; ``--pairs N`` stops after the first N
(p, d) pairs (a CPU peer at 2 threads takes minutes per pair); ``--threads`` limits BLAS.
Prints a table and writes ``benchmarks/results/system_grid.json`` (or ``--out``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from _results import write_result

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

P_GRID = (2.0, 3.0)
D_GRID = (1.0, 2.0, 3.0, 5.0, 8.0, 10.0, 15.0)


def synthetic_blocks(n_train: int, n_dev: int, n_test: int, seed: int) -> tuple[dict, dict]:
    """Image and text blocks ``{train, dev, test}`` (new items by training items)."""
    from bench_kcca import _latent, image_features, intersection, text_features

    theta, rng = _latent(n_train + n_dev + n_test, seed=seed)
    img, txt = image_features(theta, rng), text_features(theta, rng).tocsr()
    cut = {"train": slice(0, n_train), "dev": slice(n_train, n_train + n_dev),
           "test": slice(n_train + n_dev, n_train + n_dev + n_test)}
    tr_img, tr_txt = np.ascontiguousarray(img[cut["train"]]), txt[cut["train"]]
    image = {s: intersection(np.ascontiguousarray(img[c]), tr_img) for s, c in cut.items()}
    text = {s: (txt[c] @ tr_txt.T).toarray() for s, c in cut.items()}
    return image, text


def run(image: dict, text: dict, backend: str, pairs: int | None) -> dict:
    from kcca._evaluate.original import original_ranks, recall_at_k
    from kcca._solver import PAPER_KAPPAS, FactorCache, paper_n_grid
    from kcca._systems.grid import borda_rankings, choose, dev_outcome, fit_grid

    n_values = [int(v) for v in paper_n_grid()]
    factors = FactorCache(max_sides=3, max_pairs=1)
    combos = [(p, d) for p in P_GRID for d in D_GRID][:pairs]
    fit_s = dev_s = 0.0
    outcomes, grids = [], {}
    for p, d in combos:
        t = time.perf_counter()
        grid = fit_grid(image["train"], text["train"], p=p, d=d, kappas=PAPER_KAPPAS,
                        n_values=n_values, factor_cache=factors, backend=backend)
        t1 = time.perf_counter()
        outcomes.append(dev_outcome(grid, image["dev"], text["dev"], p=p, d=d))
        t2 = time.perf_counter()
        fit_s, dev_s = fit_s + t1 - t, dev_s + t2 - t1
        grids[(p, d)] = grid
        print(f"  p={p:g} d={d:g}: fit {t1 - t:.1f}s, dev selection {t2 - t1:.1f}s "
              f"(criterion {outcomes[-1].criterion:.1f})", flush=True)
    best = choose(outcomes)
    t = time.perf_counter()
    ranked = {task: borda_rankings(grids[(best.p, best.d)], image["test"], text["test"], task,
                                   best.selected[task]) for task in ("annotation", "search")}
    test_s = time.perf_counter() - t
    r10 = recall_at_k(original_ranks(ranked["search"]), 10).aggregate
    return {"backend": backend, "pairs": len(combos), "fit_seconds": fit_s,
            "dev_selection_seconds": dev_s, "test_borda_seconds": test_s,
            "total_seconds": fit_s + dev_s + test_s,
            "per_pair_seconds": (fit_s + dev_s) / len(combos),
            "chosen": {"p": best.p, "d": best.d, "criterion": round(best.criterion, 3)},
            "test_search_R@10": r10}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="numpy", choices=("numpy", "cupy"))
    ap.add_argument("--pairs", type=int, default=None, help="first N (p, d) pairs (default 14)")
    ap.add_argument("--threads", type=int, default=0, help="BLAS threads (0: all cores)")
    ap.add_argument("--n-train", type=int, default=6000)
    ap.add_argument("--n-pool", type=int, default=1000, help="dev and test items")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(HERE / "results" / "system_grid.json"))
    args = ap.parse_args()
    if args.threads:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=args.threads)
    t = time.perf_counter()
    image, text = synthetic_blocks(args.n_train, args.n_pool, args.n_pool, args.seed)
    kernel_s = time.perf_counter() - t
    if args.backend == "cupy":
        from bench_kcca import _warm_up_gpu

        _warm_up_gpu()
    res = run(image, text, args.backend, args.pairs)
    from kcca._backend import describe_backend

    env = {"cores": os.cpu_count(), "blas_threads": args.threads or "all",
           "device": describe_backend(args.backend), "n_train": args.n_train,
           "n_pool": args.n_pool, "kernel_seconds (not timed below)": round(kernel_s, 1)}
    estimate = res["per_pair_seconds"] * len(P_GRID) * len(D_GRID) + res["test_borda_seconds"]
    print(f"\n{'backend':<10} {'pairs':>5} {'fit s':>8} {'dev s':>8} {'test s':>7} "
          f"{'per pair s':>10} {'14 pairs est. s':>15}")
    print(f"{res['backend']:<10} {res['pairs']:>5} {res['fit_seconds']:>8.1f} "
          f"{res['dev_selection_seconds']:>8.1f} {res['test_borda_seconds']:>7.1f} "
          f"{res['per_pair_seconds']:>10.1f} "
          f"{estimate:>15.0f}")
    print(f"chosen p={res['chosen']['p']:g} d={res['chosen']['d']:g}; test search R@10 "
          f"{res['test_search_R@10']:.1f} ({env['device']}, BLAS threads {env['blas_threads']})")
    out = Path(args.out)
    write_result(out, {"environment": env, "result": res}, indent=1)


if __name__ == "__main__":
    main()
