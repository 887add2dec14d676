"""One kernel pair's KCCA grid on dev, the choice of p and d, and Borda-aggregated rankings.

Section 4.1.3: for a kernel pair, KCCA is trained for every kappa in
{0.1, 0.5, 1, 5} and 46 values of n; on dev, per task, the 5 best settings by R@1, by R@5
and by R@10 (15 different models, :func:`kcca._selection.select_models`) are kept, and their
test rankings are combined by Borda count (:mod:`kcca._borda`). The image-kernel power p
(eq. 6) and the text-diagonal factor d are "fixed in advance" per kernel pair: the paper does
not say how, so here they are chosen on dev and frozen (docs/paper-notes.md#p-and-d):

**p/d criterion.** For each (p, d), each task's 15 selected models are Borda-aggregated on
the dev pool; the criterion is the sum over both tasks of that dev ranking's
R@1 + R@5 + R@10 (percent). The largest wins; ties go to the lower sum of dev median ranks,
then the smaller p, then the smaller d. Test data is never looked at.

**Combination chosen on dev** (``combine = "dev"``, beyond the paper: the default of systems on
``vectors`` kernels, :attr:`kcca._systems.spec.SystemSpec.combination`). Per task, the grid's
models are ordered by their own dev R@1 + R@5 + R@10 (:func:`kcca._selection.dev_order`); the
Borda count of the best k, for each k of :data:`kcca._selection.COMBINE_SIZES` (k = 1: the best
model alone), ranks the dev pool, and the k whose ranking has the largest dev R@1 + R@5 + R@10
is kept (ties: the lower dev median rank, then the smaller k). The p/d criterion then reads
the kept rankings, as it reads the 15 models' Borda count under the paper's protocol.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence, cast

import numpy as np

from kcca._backend import to_numpy
from kcca._borda import borda_from_scores
from kcca._evaluate.original import median_rank, original_ranks, recall_at_k
from kcca._names import KS, TASKS
from kcca._scoring import cosine_scores
from kcca._selection import combine_sizes, dev_order, grid_dev_ranks, select_models
from kcca._solver import FactorCache, KCCAGrid


@dataclass
class DevOutcome:
    """Dev results of one (p, d): per task the grid's dev ranks, the 15 selected settings,
    and the dev ranks of their Borda aggregate; ``criterion`` as in the module docstring.
    ``combination`` (``combine = "dev"`` only, else None): per task the number of models
    kept and the dev figures of every number tried (:func:`combination_on_dev`)."""

    p: float
    d: float
    dev_ranks: dict[str, dict[tuple[float, int], np.ndarray]]
    selected: dict[str, list[tuple[float, int]]]
    borda_dev_ranks: dict[str, np.ndarray]
    n_directions: int
    combination: dict[str, dict[str, Any]] | None = None

    @property
    def criterion(self) -> float:
        return float(
            sum(recall_at_k(r, k).aggregate for r in self.borda_dev_ranks.values() for k in KS)
        )

    @property
    def median_sum(self) -> float:
        return float(sum(median_rank(r).aggregate for r in self.borda_dev_ranks.values()))

    def sort_key(self) -> tuple:
        return (-self.criterion, self.median_sum, self.p, self.d)

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "p": self.p,
            "d": self.d,
            "criterion": round(self.criterion, 3),
            "n_directions": self.n_directions,
        }
        for task, r in self.borda_dev_ranks.items():
            out[task] = {
                **{f"R@{k}": round(recall_at_k(r, k).aggregate, 2) for k in KS},
                "median rank": median_rank(r).aggregate,
                "models": [list(s) for s in self.selected[task]],
            }
            if self.combination:
                out[task]["combination"] = self.combination[task]
        return out


def fit_grid(
    Kx: np.ndarray,
    Ky: np.ndarray,
    *,
    p: float,
    d: float,
    kappas: Sequence[float],
    n_values: Sequence[int] | np.ndarray,
    precision: float | None = None,
    progress: bool = False,
    factor_cache: FactorCache | None = None,
    rank: int | None = None,
    backend: str = "numpy",
    indefinite: str = "raise",
) -> KCCAGrid:
    """The whole kappa x n grid for one (p, d) (``KCCAGrid``, one factorisation per kernel)
    on the array ``backend`` (``"numpy"``, ``"cupy"``, ``"auto"``; :mod:`kcca._backend`).

    Pass one ``factor_cache`` to the fits of every (p, d) on the same blocks: the image factor
    is computed once per p and a constant-diagonal text factor once for every d (same numbers).
    ``indefinite="psd-part"`` for kernels not PSD in theory (:func:`indefinite_rule`).
    """
    kw: dict[str, Any] = {} if precision is None else {"precision": precision}
    return KCCAGrid(
        kappas=tuple(kappas),
        n_components=list(n_values),
        power_x=p,
        diag_y=d,
        progress=progress,
        factor_cache=factor_cache,
        rank=rank,
        backend=backend,
        indefinite=indefinite,
        **kw,
    ).fit(Kx, Ky)


def indefinite_rule(*blocks: Any) -> str:
    """``KCCAGrid(indefinite=...)`` for a system's kernel blocks: ``"psd-part"`` when one of
    them comes from a kernel that is not positive semi-definite in theory (``Blocks.psd``),
    else ``"raise"`` (a PSD kernel whose training Gram matrix is not PSD is an error)."""
    return "raise" if all(getattr(b, "psd", True) for b in blocks) else "psd-part"


def model_scores(
    grid: KCCAGrid,
    Kx_new: np.ndarray,
    Ky_new: np.ndarray,
    task: str,
    settings: Sequence[tuple[float, int]],
    queries: slice = slice(None),
) -> list[np.ndarray]:
    """Cosine scores (eq. 4) of each (kappa, n) setting: (n_queries, n_candidates) each, for
    the ``queries`` rows (default all)."""
    zx, zy = grid.transform_x(Kx_new), grid.transform_y(Ky_new)
    out = []
    for kappa, n in settings:
        i = grid.kappas_.index(kappa)
        x, y = to_numpy(zx[i][:, :n]), to_numpy(zy[i][:, :n])
        out.append(
            cosine_scores(x[queries], y) if task == "annotation" else cosine_scores(y[queries], x)
        )
    return out


#: score cells (models x queries x candidates) one Borda step holds; a larger pool (COCO's
#: 5,000 dev and test images) is ranked in blocks of queries, each query's ranking its own
BORDA_CELLS = 1 << 27


def borda_rankings(
    grid: KCCAGrid,
    Kx_new: np.ndarray,
    Ky_new: np.ndarray,
    task: str,
    settings: Sequence[tuple[float, int]],
) -> np.ndarray:
    """Borda aggregate (Sec. 4.1.3) of the rankings of ``settings`` on a pool: (nq, nc) indices.

    Pools of more than :data:`BORDA_CELLS` score cells are ranked in blocks of queries (the
    scores, the rankings and Borda's statistics of one block at a time: a 5,000-query pool
    of 15 models would need about 20 GB at once)."""
    zx, zy = grid.transform_x(Kx_new), grid.transform_y(Ky_new)
    n_queries = (zx if task == "annotation" else zy)[0].shape[0]
    n_candidates = (zy if task == "annotation" else zx)[0].shape[0]
    step = max(1, BORDA_CELLS // max(1, len(settings) * n_candidates))
    if step >= n_queries:
        return borda_from_scores(model_scores(grid, Kx_new, Ky_new, task, settings)).ranking
    out = np.empty((n_queries, n_candidates), dtype=np.int64)
    for start in range(0, n_queries, step):
        rows = slice(start, min(start + step, n_queries))
        scores = model_scores(grid, Kx_new, Ky_new, task, settings, rows)
        out[rows] = borda_from_scores(scores).ranking
    return out


def dev_score(ranks: np.ndarray) -> float:
    """R@1 + R@5 + R@10 (percent) of one task's dev ranks of the original item."""
    return float(sum(recall_at_k(ranks, k).aggregate for k in KS))


def combination_on_dev(
    grid: KCCAGrid,
    Kx_dev: np.ndarray,
    Ky_dev: np.ndarray,
    task: str,
    ranks: dict[tuple[float, int], np.ndarray],
) -> tuple[list[tuple[float, int]], np.ndarray, dict[str, Any]]:
    """The number of best dev models whose Borda count ranks ``task``'s dev pool best (module
    docstring): the kept settings, their dev ranks, and the record of the choice (``models``:
    the number kept, ``by``: the score, ``candidates``: each number's dev score and median
    rank)."""
    order = cast("list[tuple[float, int]]", [s.setting for s in dev_order(ranks, KS)])
    tried = []
    for k in combine_sizes(len(order)):
        r = original_ranks(borda_rankings(grid, Kx_dev, Ky_dev, task, order[:k]))
        tried.append((k, r, dev_score(r), float(median_rank(r).aggregate)))
    k, kept, _, _ = min(tried, key=lambda t: (-t[2], t[3], t[0]))
    record = {
        "models": k,
        "by": "dev R@1+R@5+R@10",
        "candidates": [
            {"models": n, "dev R@1+R@5+R@10": round(score, 2), "dev median rank": med}
            for n, _, score, med in tried
        ],
    }
    return order[:k], kept, record


def dev_outcome(
    grid: KCCAGrid,
    Kx_dev: np.ndarray,
    Ky_dev: np.ndarray,
    *,
    p: float,
    d: float,
    per_criterion: int = 5,
    combine: str = "paper",
    tasks: Sequence[str] = TASKS,
    progress: bool = False,
) -> DevOutcome:
    """Dev ranks of every grid model, the selected models and their dev Borda ranks:
    ``combine="paper"`` selects ``per_criterion`` models by each R@k (Section 4.1.3),
    ``"dev"`` the number of best models chosen on dev (:func:`combination_on_dev`)."""
    dev_ranks, selected, borda, combination = {}, {}, {}, {}
    for task in tasks:
        ranks = grid_dev_ranks(grid, Kx_dev, Ky_dev, task, progress=progress)
        if combine == "dev":
            chosen, borda[task], combination[task] = combination_on_dev(
                grid, Kx_dev, Ky_dev, task, ranks
            )
        else:
            chosen = cast(
                "list[tuple[float, int]]",  # the settings are the keys of ranks
                [m.setting for m in select_models(ranks, per_criterion=per_criterion, ks=KS)],
            )
            borda[task] = original_ranks(borda_rankings(grid, Kx_dev, Ky_dev, task, chosen))
        dev_ranks[task] = {k: v.astype(np.int32) for k, v in ranks.items()}
        selected[task] = chosen
    return DevOutcome(
        p, d, dev_ranks, selected, borda, int(grid.n_directions_), combination or None
    )


def choose(outcomes: Sequence[DevOutcome]) -> DevOutcome:
    """The (p, d) with the best dev criterion (module docstring)."""
    if not outcomes:
        raise ValueError("no (p, d) outcomes to choose from")
    return min(outcomes, key=DevOutcome.sort_key)
