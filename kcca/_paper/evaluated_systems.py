"""The systems a report reads: one results file per system of a rankings folder, read and
evaluated on the corpus's test pool (Section 4.3).

:func:`results_by_system` chooses each system's file among those
:func:`kcca._evaluate.results_files.find_results` finds; :func:`load_systems` evaluates them
(:func:`kcca._evaluate.system.evaluate_system` for rankings files,
:func:`~kcca._evaluate.system.evaluate_compact` for compact results files) and writes the
compact form of each rankings file beside it (:func:`write_compact_beside`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kcca.data._errors import DataError
from kcca._evaluate.compact import (
    compact_path,
    from_rankings,
    is_compact,
    judgments_digest,
    read_compact,
    write_compact,
)
from kcca._evaluate.original import original_ranks
from kcca._evaluate.paper_systems import paper_name
from kcca._evaluate.rankings_io import Rankings, read_rankings
from kcca._evaluate.results_files import find_results
from kcca._evaluate.system import (
    EvaluationContext,
    SystemEvaluation,
    evaluate_compact,
    evaluate_system,
)
from kcca._fingerprints import file_digest

log = logging.getLogger(__name__)


@dataclass
class SystemData:
    """One system's test evaluation and the rank of the original item per query and task."""

    name: str
    evaluation: SystemEvaluation
    ranks: dict[str, np.ndarray]
    source: str = ""


def results_by_system(rankings_dir: str | Path) -> dict[str, Path]:
    """System (paper name) -> results file, for every rankings file of the folder (the newer
    of two for one system), and every compact results file (``*.ranks.npz``,
    :mod:`kcca._evaluate.compact`) of a system without a rankings file there."""
    out: dict[str, Path] = {}
    files = find_results(rankings_dir, tolerant=True)
    for f in (f for f in files if not f.is_compact):
        name = paper_name(f.system)
        if name in out:
            log.warning("%s and %s both hold %s; using the newer", out[name], f.path, name)
            if f.path.stat().st_mtime < out[name].stat().st_mtime:
                continue
        out[name] = f.path
    for f in (f for f in files if f.is_compact):
        out.setdefault(paper_name(f.system), f.path)
    return out


def evaluate_rankings(
    name: str, rankings: dict[str, np.ndarray], ctx: EvaluationContext, source: str = ""
) -> SystemData:
    """A system's full rankings (task -> queries x pool) evaluated on ``ctx``'s pool."""
    ev = evaluate_system(Rankings(name, ctx.split, rankings), ctx)
    ranks = {t: original_ranks(r) for t, r in rankings.items()}
    return SystemData(name, ev, ranks, source)


def load_systems(
    files: dict[str, Path], ctx: EvaluationContext, progress: bool = False
) -> tuple[dict[str, SystemData], list[str]]:
    """Read and evaluate each results file (rankings JSON or compact ``.ranks.npz``).

    A compact file that cannot be read (damaged, pickled, inconsistent) is a
    :class:`DataError` naming it; rankings files that cannot be read, and results of another
    pool than the corpus's, are skipped with a reason. With the corpus at hand, the compact
    form of each rankings file is written beside it (:func:`write_compact_beside`)."""
    out: dict[str, SystemData] = {}
    skipped: list[str] = []
    for name, path in files.items():
        if progress:
            print(f"evaluating {name} ({path.name})", flush=True)
        if is_compact(path):
            compact = read_compact(path)  # a damaged file is an error naming it, not "not run"
            try:
                ev = evaluate_compact(compact, ctx)
            except DataError as exc:  # made on another pool
                skipped.append(f"{path.name}: {exc}")
                continue
            out[name] = SystemData(name, ev, dict(compact.gold), str(path))
            continue
        if ctx.corpus is None:
            skipped.append(f"{path.name}: a rankings file needs the corpus data")
            continue
        try:
            r = read_rankings(path, ctx.corpus.pool(ctx.split))
        except DataError as exc:
            skipped.append(f"{path.name}: {exc}")
            continue
        out[name] = evaluate_rankings(name, dict(r.tasks), ctx, str(path))
        write_compact_beside(path, r, out[name].evaluation, ctx)
    return out, skipped


def write_compact_beside(
    path: Path, rankings: Rankings, evaluation: SystemEvaluation, ctx: EvaluationContext
) -> Path | None:
    """Write ``<SYSTEM>.ranks.npz`` beside a rankings file, unless one made from the same
    rankings file (by content) under the same relevance rule and judgments is there."""
    assert ctx.corpus is not None  # load_systems calls this only with the corpus at hand
    target = compact_path(path)
    digest = file_digest(path)[:16]
    judgments = judgments_digest(ctx.corpus)
    rule = ctx.rule if isinstance(ctx.rule, str) else ""
    if target.is_file():
        try:
            old = read_compact(target)
        except DataError:  # damaged: written anew
            old = None
        stored = old.meta.get("aggregates", {}) if old is not None else {}
        if (
            old is not None
            and (
                old.meta.get("source_digest"),
                old.meta.get("relevance"),
                old.meta.get("judgments"),
            )
            == (digest, rule, judgments)
            and all(
                set(metrics) <= set(stored.get(task, ()))
                for task, metrics in evaluation.table().items()
            )
        ):
            return None
    compact = from_rankings(
        Rankings(
            rankings.system, rankings.split, rankings.tasks, str(path), gold_ties=rankings.gold_ties
        ),
        ctx.corpus.pool(ctx.split),
        corpus=ctx.corpus.name,
        evaluation=evaluation,
        relevance=rule,
        judgments=judgments,
    )
    compact.meta["source_digest"] = digest
    return write_compact(target, compact)
