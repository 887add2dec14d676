"""Dev-set model selection (Section 4.1.3): 15 different models per kernel pair and task.

On the dev pool (caption #2 of each dev image), every (kappa, n) setting gets R@1, R@5, R@10 and the
median rank of the original item. The 5 best settings by R@1 are taken, then the 5 best by R@5 among
the settings not yet taken, then the 5 best by R@10 among the rest, so the 15 models are different
(docs/paper-notes.md#dev-selection-and-borda-count). Ties are broken by the other recalls (in the
order R@1, R@5, R@10, skipping the criterion itself; higher first), then the median rank (lower
first), then the setting itself (ascending ``(kappa, n)``). With fewer than 15 settings, every
setting is taken.

Beyond the paper, :func:`dev_order` ranks every setting by one dev score, R@1 + R@5 + R@10 (the
sum that chooses p and d, :mod:`kcca._systems.grid`), so that the dev split can choose how many
of the best models to combine (``combine = "dev"`` of an experiment file, :data:`COMBINE_SIZES`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Hashable, Mapping, Sequence, TypeVar

import numpy as np
from tqdm.auto import tqdm

from kcca._backend import to_numpy
from kcca._evaluate.original import median_rank, original_ranks_from_scores, recall_at_k
from kcca._names import TASKS
from kcca._scoring import prefix_cosine_scores
from kcca.errors import SettingError

_Setting = TypeVar("_Setting", bound=Hashable)  # a model setting, e.g. (kappa, n)

#: the numbers of best dev models whose Borda count ``combine = "dev"`` chooses between
#: (1: one model alone); sizes above the number of settings are dropped
COMBINE_SIZES = (1, 3, 5, 15)


@dataclass(frozen=True)
class DevSummary:
    """Dev-set figures of one setting: ``recalls[k]`` = R@k, and the median rank."""

    setting: Hashable
    recalls: dict[int, float]
    median_rank: float


@dataclass(frozen=True)
class SelectedModel:
    """A chosen setting, the criterion that chose it (``k`` of R@k) and its dev figures."""

    setting: Hashable
    criterion: int
    summary: DevSummary


def summarise(setting: Hashable, ranks: Any, ks: Sequence[int] = (1, 5, 10)) -> DevSummary:
    """R@k for each ``k`` and the median rank of one setting's dev ranks (1-based)."""
    return DevSummary(
        setting, {int(k): recall_at_k(ranks, k).aggregate for k in ks}, median_rank(ranks).aggregate
    )


def _key(s: DevSummary, k: int, ks: Sequence[int]) -> tuple:
    others = tuple(-s.recalls[j] for j in ks if j != k)
    return (-s.recalls[k], *others, s.median_rank, s.setting)


def select_models(
    dev_ranks: Mapping[_Setting, Any], *, per_criterion: int = 5, ks: Sequence[int] = (1, 5, 10)
) -> list[SelectedModel]:
    """The ``per_criterion`` best settings by each R@k in turn, all different (Section 4.1.3).

    ``dev_ranks`` maps a setting (e.g. ``(kappa, n)``) to its per-query dev ranks of the
    original item. Returns the selected settings in selection order.
    """
    if not dev_ranks:
        raise ValueError("dev_ranks is empty: give the dev ranks of at least one setting")
    if isinstance(per_criterion, bool) or int(per_criterion) != per_criterion or per_criterion < 1:
        raise SettingError(f"per_criterion must be a positive integer, got {per_criterion!r}")
    ks = tuple(int(k) for k in ks)
    summaries = [summarise(setting, r, ks) for setting, r in dev_ranks.items()]
    chosen: list[SelectedModel] = []
    taken: set = set()
    for k in ks:
        pool = sorted(
            (s for s in summaries if s.setting not in taken), key=lambda s: _key(s, k, ks)
        )
        for s in pool[:per_criterion]:
            chosen.append(SelectedModel(s.setting, k, s))
            taken.add(s.setting)
    return chosen


def dev_score(summary: DevSummary) -> float:
    """The dev score of :func:`dev_order`: the sum of the setting's R@k (percent)."""
    return float(sum(summary.recalls.values()))


def dev_order(
    dev_ranks: Mapping[_Setting, Any], ks: Sequence[int] = (1, 5, 10)
) -> list[DevSummary]:
    """Every setting's dev figures, best first: by the sum of its R@k (higher first), then
    the median rank (lower first), then the setting itself (ascending)."""
    if not dev_ranks:
        raise ValueError("dev_ranks is empty: give the dev ranks of at least one setting")
    ks = tuple(int(k) for k in ks)
    summaries = [summarise(setting, r, ks) for setting, r in dev_ranks.items()]
    return sorted(summaries, key=lambda s: (-dev_score(s), s.median_rank, s.setting))


def combine_sizes(n_settings: int, sizes: Sequence[int] = COMBINE_SIZES) -> list[int]:
    """The numbers of best models tried for ``n_settings`` settings: ``sizes`` up to
    ``n_settings`` (``[1]`` at least)."""
    return [k for k in sizes if k <= n_settings] or [1]


def grid_dev_ranks(
    grid: Any, Kx_dev: Any, Ky_dev: Any, task: str, *, gold: Any = None, progress: bool = False
) -> dict[tuple[float, int], np.ndarray]:
    """Dev ranks of every (kappa, n) model of a fitted :class:`kcca._solver.KCCAGrid`.

    ``Kx_dev`` (dev images x train) and ``Ky_dev`` (dev captions x train) are the dev-by-train
    blocks; ``task`` is ``"annotation"`` (image queries) or ``"search"`` (caption queries).
    Prefix sums make all n of one kappa cost one product over the largest n.
    """
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    zx, zy = grid.transform_x(Kx_dev), grid.transform_y(Ky_dev)
    out: dict[tuple[float, int], np.ndarray] = {}
    for i in tqdm(
        range(len(grid.kappas_)), desc=f"dev ranks ({task})", disable=not progress, leave=False
    ):
        q, c = (zx[i], zy[i]) if task == "annotation" else (zy[i], zx[i])
        for n, scores in prefix_cosine_scores(q, c, grid.n_components_.tolist()):
            out[(grid.kappas_[i], n)] = original_ranks_from_scores(to_numpy(scores), gold)
    return out
