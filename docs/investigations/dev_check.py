"""Dev-only comparisons of one system's image kernel (the scripts behind docs/reproduction.md).

:func:`open_system` loads Flickr 8K, the cached workspace of ``kcca reproduce`` and one system of
``experiments/hodosh2013`` with its text blocks; :func:`dev_check` fits that system's KCCA grid
(Section 4.1.3: the paper's kappas and n, full precision) on a given image kernel at one (p, d)
and returns the :class:`~kcca._systems.grid.DevOutcome` whose criterion (dev R@1+R@5+R@10 of the
15-model Borda, both tasks) decides; :func:`describe` prints it. The test split is never read.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from kcca._solver import KCCAGrid
from kcca._systems.blocks import Blocks, Workspace
from kcca._systems.grid import DevOutcome, dev_outcome, fit_grid, indefinite_rule
from kcca._systems.spec import SystemSpec

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments" / "hodosh2013"


@dataclass
class OpenSystem:
    """A system ready for dev checks: its workspace, spec and text blocks."""

    ws: Workspace
    spec: SystemSpec
    text: Blocks


def add_workspace_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of :func:`open_workspace_from`: --data-dir, --cache-dir, --jobs."""
    parser.add_argument("--data-dir", default=None,
                        help="folder holding flickr8k/ ($KCCA_DATA_DIR)")
    parser.add_argument("--cache-dir", default=None,
                        help="cache of kcca reproduce (default its own)")
    parser.add_argument("--jobs", type=int, default=2)


def add_system_arguments(parser: argparse.ArgumentParser, *, grid_point: bool = False) -> None:
    """The options of a dev-check script: --system, --experiments, --data-dir, --cache-dir,
    --jobs; with ``grid_point`` also --p and --d (the one (p, d) the script fits)."""
    parser.add_argument("--system", default="TRI5SEM",
                        help="paper or short name (default TRI5SEM)")
    parser.add_argument("--experiments", default=str(EXPERIMENTS),
                        help="folder of experiment files holding the system "
                             "(default experiments/hodosh2013)")
    add_workspace_arguments(parser)
    if grid_point:
        parser.add_argument("--p", type=float, default=2.0, help="image kernel power (default 2)")
        parser.add_argument("--d", type=float, default=1.0, help="text diagonal factor (default 1)")


def open_system_from(args: argparse.Namespace) -> "OpenSystem":
    """:func:`open_system` with the options of :func:`add_system_arguments`."""
    return open_system(args.system, args.data_dir, args.cache_dir, args.jobs, args.experiments)


def open_workspace_from(args: argparse.Namespace, progress: bool = True) -> Workspace:
    """:func:`open_workspace` with the options of :func:`add_workspace_arguments`."""
    return open_workspace(args.data_dir, args.cache_dir, args.jobs, progress)


def open_workspace(data_dir: str | None = None, cache_dir: str | None = None, jobs: int = 2,
                   progress: bool = True) -> Workspace:
    """Flickr 8K from ``data_dir`` (or ``$KCCA_DATA_DIR``) in a workspace on the cache of
    ``kcca reproduce`` (``cache_dir``, default its own), so dev checks reuse its blocks."""
    from kcca._cache import Cache, default_cache_dir
    from kcca.data._flickr8k import load_flickr8k
    from kcca.data._paths import resolve_data_dir

    corpus = load_flickr8k(resolve_data_dir(data_dir))
    return Workspace(corpus, Cache(cache_dir or default_cache_dir()), n_jobs=jobs,
                     progress=progress)


def open_system(system: str, data_dir: str | None = None, cache_dir: str | None = None,
                jobs: int = 2, experiments: str | Path = EXPERIMENTS) -> OpenSystem:
    """:func:`open_workspace` and one system of the experiment files in ``experiments``."""
    from kcca._systems.spec import load_specs, select_specs

    ws = open_workspace(data_dir, cache_dir, jobs)
    (spec,) = select_specs(load_specs(Path(experiments)), [system])
    return OpenSystem(ws, spec, ws.text_blocks(spec.text_kernel, spec.preprocessing,
                                               spec.word_kernel))


def system_grid(system: OpenSystem, image_train: Any, *, p: float = 2.0,
                d: float = 1.0, kappas: Sequence[float] | None = None) -> KCCAGrid:
    """The system's whole kappa x n grid (full precision) on this image block at one (p, d);
    ``kappas`` replaces the experiment file's (the paper's) regularisation values."""
    g = system.spec.grid
    return fit_grid(image_train, system.text.train, p=p, d=d,
                    kappas=g.kappas if kappas is None else tuple(kappas),
                    n_values=g.n_values(), factor_cache=system.ws.factor_cache,
                    indefinite=indefinite_rule(system.text))


def dev_check(system: OpenSystem, image_train: Any, image_dev: Any, *, p: float = 2.0,
              d: float = 1.0, kappas: Sequence[float] | None = None) -> DevOutcome:
    """:func:`system_grid` on these image blocks at one (p, d), scored on dev."""
    return dev_outcome(system_grid(system, image_train, p=p, d=d, kappas=kappas), image_dev,
                       system.text.dev, p=p, d=d, per_criterion=system.spec.per_criterion)


def describe(outcome: DevOutcome) -> str:
    """``dev criterion C; annotation R@1/5/10 a/b/c; search R@1/5/10 d/e/f``."""
    summary = outcome.summary()
    recalls = "; ".join(
        f"{task} R@1/5/10 " + "/".join(f"{summary[task][f'R@{k}']:.1f}" for k in (1, 5, 10))
        for task in ("annotation", "search"))
    return f"dev criterion {outcome.criterion:.1f}; {recalls}"


def recall_figures(ranks: Any) -> list[float]:
    """``[R@1, R@5, R@10, median rank]`` of per-query ranks of the original item."""
    from kcca._evaluate.original import median_rank, recall_at_k

    return [recall_at_k(ranks, k).aggregate for k in (1, 5, 10)] + [median_rank(ranks).aggregate]


def criterion_of(figures: dict[str, list[float]]) -> float:
    """The dev criterion (R@1+R@5+R@10, both tasks) of :func:`recall_figures` per task."""
    return sum(sum(f[:3]) for f in figures.values())


def figure_cells(figures: dict[str, list[float]]) -> list[str]:
    """Markdown cells ``R@1/R@5/R@10, median`` for annotation and search."""
    return ["/".join(f"{v:.1f}" for v in figures[t][:3]) + f", {figures[t][3]:g}"
            for t in ("annotation", "search")]

