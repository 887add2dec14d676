"""Run one system end to end: kernels -> KCCA grid on dev -> 15 models -> Borda -> test metrics.

:func:`run_system` follows Section 4.1 of the paper for a :class:`~kcca.systems.spec.SystemSpec`:

1. image features of train/dev/test and the image-kernel blocks (Section 3.3; p = 1, the
   solver applies p);
2. preprocessed captions (4.1.1) and the text-kernel blocks: training items are the five
   captions of a training image, the dev/test pools caption #2 (4.1.2);
3. KCCA (``model = "kcca"``): for each (p, d) of the spec, the kappa x n grid in one fit and the
   dev ranks of every model; p and d chosen on dev (:mod:`kcca.systems.grid`), frozen;
   per task the 15 dev-selected models rank the test pool and are Borda-aggregated (Sec. 4.1.3);
   NN (``model = "nn"``): eq. 2 with one nearest neighbour; with several candidate text
   kernels (NN5_TRI(best)) the best on dev is used;
4. metrics of the test rankings (:func:`kcca.evaluate.system.evaluate_system`): R@k and median
   rank (Tables 3, 11), and S@k / R-precision when the corpus has crowd judgments (Table 12).

Every stage is cached by config (:class:`kcca.cache.Cache`), so an interrupted run resumes:
kernel blocks (:mod:`kcca.systems.blocks`), each (p, d)'s dev outcome (``system-dev``) and the
test rankings (``system-test``).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from kcca.cache import Cache
from kcca.data.corpus import Corpus
from kcca.evaluate.original import gold_ties_from_scores, rankings_from_scores
from kcca.evaluate.rankings_io import Rankings, write_rankings
from kcca.evaluate.system import EvaluationContext, SystemEvaluation, evaluate_system
from kcca.names import KS, TASKS
from kcca.systems.blocks import Blocks, Workspace, workspace_for
from kcca.systems.config import RunConfig
from kcca.systems.fitted import Projections
from kcca.systems.grid import (
    DevOutcome,
    borda_rankings,
    choose,
    dev_outcome,
    fit_grid,
    indefinite_rule,
)
from kcca.systems.spec import SystemSpec

log = logging.getLogger(__name__)

DEV_STAGE = "system-dev"
SEARCH_STAGE = "system-dev-search"
TEST_STAGE = "system-test"
VERSION = 3  # 2: dev ranks use the evaluation tie rule (ties never favour gold); 3: eigen factors


@dataclass
class SystemResult:
    """What one system produced on the test pool.

    Attributes:
        spec: the system; rankings: task -> (n_queries, n_candidates) candidate indices, rows
        in pool order; evaluation: every metric per query and aggregated; chosen: the frozen
        settings (``p``, ``d`` for KCCA; ``text_kernel`` for NN); dev: the dev figures of every
        (p, d) or candidate tried; timings: seconds per stage; models: the chosen models'
        directions that ranked the test pool (KCCA systems run with ``keep_models=True``);
        gold_ties: per task, the other candidates sharing the original item's score (NN
        systems; zero for Borda rankings, ordered by Borda's rules), written to the rankings.
    """

    spec: SystemSpec
    corpus: str
    rankings: dict[str, np.ndarray]
    evaluation: SystemEvaluation
    chosen: dict[str, Any]
    dev: list[dict[str, Any]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    models: Projections | None = None
    gold_ties: dict[str, np.ndarray] = field(default_factory=dict)

    def table(self) -> dict[str, dict[str, float]]:
        """task -> metric -> aggregate (R@k in percent, median rank, S@k, R-precision)."""
        return self.evaluation.table()

    def write_rankings(self, path: str | Path, corpus: Corpus, split: str = "test") -> Path:
        """The rankings file read by ``kcca evaluate`` (:mod:`kcca.evaluate.rankings_io`)."""
        return write_rankings(
            path,
            corpus.pool(split),
            self.rankings,
            system=self.spec.name,
            corpus=corpus.name,
            split=split,
            gold_ties=self.gold_ties,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "system": self.spec.name,
            "short_name": self.spec.short_name,
            "corpus": self.corpus,
            "chosen": self.chosen,
            "metrics": self.table(),
            "coverage": self.evaluation.coverage,
            "dev": self.dev,
            "timings": {k: round(v, 2) for k, v in self.timings.items()},
            "spec": self.spec.as_dict(),
        }


def run_system(
    corpus: Corpus,
    spec: SystemSpec,
    *,
    workspace: Workspace | None = None,
    config: RunConfig | None = None,
    cache: Cache | None = None,
    with_bleu_rouge: bool = False,
    keep_models: bool = False,
) -> SystemResult:
    """Run ``spec`` on ``corpus`` (see the module docstring); returns a :class:`SystemResult`.

    ``workspace`` shares features, tokens and kernel blocks between systems of one run and
    carries the run's :class:`~kcca.systems.config.RunConfig`; without one, a workspace is made
    from ``config`` (default settings) and ``cache`` (none). The configuration's
    ``precision`` is the factor truncation of the solver (None: its default); its
    ``search_rank`` overrides the spec's ``grid.search_rank`` (the (p, d) search with
    rank-capped factors, :class:`kcca.systems.spec.GridSpec`); 0 searches at full precision;
    ``keep_models`` keeps the directions of the chosen models (``SystemResult.models``, what
    :func:`kcca.model.fit_system` saves; a KCCA grid whose test rankings came from the cache
    is fitted again for them, with the run's factor cache and backend).
    """
    ws = workspace_for(corpus, workspace, config, cache)
    timings: dict[str, float] = {}
    t = time.perf_counter()
    image = ws.image_blocks(spec.image_kernel)
    timings["image kernel"] = time.perf_counter() - t
    models = None
    if spec.model == "nn":
        rankings, chosen, dev, gold_ties = _run_nn(ws, spec, image, timings)
    else:
        rankings, chosen, dev, models = _run_kcca(
            ws,
            spec,
            image,
            timings,
            ws.config.settings.precision,
            _search_rank(spec, ws.config.settings.search_rank),
            keep_models=keep_models,
        )
        gold_ties = {task: np.zeros(len(r), dtype=np.int64) for task, r in rankings.items()}
    t = time.perf_counter()
    ctx = EvaluationContext(corpus, "test", with_bleu_rouge=with_bleu_rouge)
    evaluation = evaluate_system(
        Rankings(spec.name, "test", rankings, gold_ties=gold_ties), ctx, KS
    )
    timings["evaluation"] = time.perf_counter() - t
    return SystemResult(
        spec, corpus.name, rankings, evaluation, chosen, dev, timings, models, gold_ties
    )


def _search_rank(spec: SystemSpec, override: int | None) -> int | None:
    """The rank of the (p, d) search: the run's override (0: full precision, None) or the
    spec's own."""
    return spec.grid.search_rank if override is None else (override or None)


# --------------------------------------------------------------------------- KCCA


def _run_kcca(
    ws: Workspace,
    spec: SystemSpec,
    image: Blocks,
    timings: dict,
    precision: float | None,
    search_rank: int | None = None,
    keep_models: bool = False,
) -> tuple[dict, dict, list, Projections | None]:
    t = time.perf_counter()
    text = ws.text_blocks(spec.text_kernel, spec.preprocessing, spec.word_kernel)
    timings["text kernel"] = time.perf_counter() - t
    g = spec.grid
    n_values = g.n_values(image.train.shape[0])
    base = {
        "version": VERSION,
        "image": image.key,
        "text": text.key,
        "kappas": list(g.kappas),
        "n": n_values,
        "precision": precision,
        "per_criterion": spec.per_criterion,
    }
    inputs = [*image.inputs, *text.inputs]
    t = time.perf_counter()
    combos = [(p, d) for p in g.p for d in g.d]
    indefinite = indefinite_rule(image, text)
    # one image factor per p (shared by the run's systems), one text factor for every d
    factors = ws.factor_cache
    search = search_rank is not None and len(combos) > 1

    fitted: dict[tuple[float, float], Any] = {}  # the full-precision grid of the best so far

    def dev_fit(p: float, d: float, rank: int | None) -> DevOutcome:
        grid = fit_grid(
            image.train,
            text.train,
            p=p,
            d=d,
            kappas=g.kappas,
            n_values=n_values,
            precision=precision,
            factor_cache=factors,
            rank=rank,
            backend=ws.backend,
            indefinite=indefinite,
        )
        if rank is None:
            fitted[(p, d)] = grid
        return dev_outcome(grid, image.dev, text.dev, p=p, d=d, per_criterion=spec.per_criterion)

    def keep_best() -> None:
        lead = min(outcomes, key=DevOutcome.sort_key)
        for pd in [pd for pd in fitted if pd != (lead.p, lead.d)]:
            del fitted[pd]

    outcomes: list[DevOutcome] = []
    # search implies search_rank is not None (also below)
    stage, extra = (
        (SEARCH_STAGE, {"search_rank": int(search_rank)})  # type: ignore[arg-type]
        if search
        else (DEV_STAGE, {})
    )
    bar = tqdm(
        combos,
        desc=f"{spec.label}: KCCA grid (p, d)" + (f", rank {search_rank}" if search else ""),
        unit="fit",
        disable=not ws.progress,
    )
    for p, d in bar:
        bar.set_postfix(p=p, d=d)
        outcomes.append(
            ws.cache.get_or_compute(
                stage,
                {**base, **extra, "p": p, "d": d},
                # mypy cannot type a lambda with a default argument
                lambda p=p, d=d: dev_fit(p, d, search_rank if search else None),  # type: ignore[misc]
                inputs,
            )
        )
        keep_best()
    best = choose(outcomes)
    if search:  # the chosen (p, d) at full precision: its 15 models are selected on dev
        log.info(
            "%s: chose p=%g d=%g on dev with rank-%d factors (criterion %.1f)",
            spec.label,
            best.p,
            best.d,
            search_rank,
            best.criterion,
        )
        best = ws.cache.get_or_compute(
            DEV_STAGE,
            {**base, "p": best.p, "d": best.d},
            lambda: dev_fit(best.p, best.d, None),
            inputs,
        )
    timings["dev grid"] = time.perf_counter() - t
    log.info(
        "%s: chose p=%g d=%g on dev (criterion %.1f)", spec.label, best.p, best.d, best.criterion
    )
    t = time.perf_counter()

    def chosen_grid() -> Any:
        if (best.p, best.d) not in fitted:
            fitted[(best.p, best.d)] = fit_grid(
                image.train,
                text.train,
                p=best.p,
                d=best.d,
                kappas=g.kappas,
                n_values=n_values,
                precision=precision,
                factor_cache=factors,
                backend=ws.backend,
                indefinite=indefinite,
            )
        return fitted[(best.p, best.d)]

    def test_rankings() -> dict[str, np.ndarray]:
        grid = chosen_grid()
        return {
            task: borda_rankings(grid, image.test, text.test, task, best.selected[task]).astype(
                np.int32
            )
            for task in TASKS
        }

    key = {
        **base,
        "p": best.p,
        "d": best.d,
        "selected": {k: [list(s) for s in v] for k, v in best.selected.items()},
    }
    rankings = ws.cache.get_or_compute(TEST_STAGE, key, test_rankings, inputs)
    timings["test rankings"] = time.perf_counter() - t
    models = None
    if keep_models:
        t = time.perf_counter()
        models = Projections.from_grid(chosen_grid(), best.selected)
        timings["chosen models"] = time.perf_counter() - t
    fitted.clear()
    chosen = {
        "p": best.p,
        "d": best.d,
        "criterion": round(best.criterion, 3),
        **({"search_rank": int(search_rank)} if search else {}),  # type: ignore[arg-type]
        "selected": {k: [list(s) for s in v] for k, v in best.selected.items()},
    }
    return (
        {k: np.asarray(v, dtype=np.int64) for k, v in rankings.items()},
        chosen,
        [o.summary() for o in sorted(outcomes, key=DevOutcome.sort_key)],
        models,
    )


# --------------------------------------------------------------------------- NN


def _nn_scores(image: Blocks, text: Blocks, split: str) -> dict[str, np.ndarray]:
    """Eq. 2 with one neighbour: task -> (n_queries, n_candidates) scores."""
    from kcca.nn import nn_annotation_scores, nn_search_scores

    return {
        "annotation": nn_annotation_scores(image[split], text[split]),
        "search": nn_search_scores(image[split], text[split]),
    }


def _nn_rankings(image: Blocks, text: Blocks, split: str) -> dict[str, np.ndarray]:
    """Eq. 2 rankings; ties never favour the original (kcca.evaluate.original)."""
    return {task: rankings_from_scores(s) for task, s in _nn_scores(image, text, split).items()}


def _criterion(rankings: dict[str, np.ndarray]) -> float:
    from kcca.evaluate.original import original_item_metrics, original_ranks

    return float(
        sum(
            original_item_metrics(original_ranks(r))[f"R@{k}"].aggregate
            for r in rankings.values()
            for k in KS
        )
    )


def _run_nn(
    ws: Workspace, spec: SystemSpec, image: Blocks, timings: dict
) -> tuple[dict, dict, list, dict]:
    t = time.perf_counter()
    candidates = spec.candidate_text_kernels
    dev, scored = [], []
    for i, ks in enumerate(candidates):
        text = ws.nn_text_blocks(spec, ks)
        crit = _criterion(_nn_rankings(image, text, "dev")) if len(candidates) > 1 else 0.0
        dev.append({"text_kernel": ks.as_dict(), "criterion": round(crit, 3)})
        scored.append((-crit, i, text, ks))
    _, _, text, best = min(scored, key=lambda s: (s[0], s[1]))
    timings["text kernel"] = time.perf_counter() - t
    t = time.perf_counter()
    scores = _nn_scores(image, text, "test")
    rankings = {task: rankings_from_scores(s) for task, s in scores.items()}
    gold_ties = {task: gold_ties_from_scores(s) for task, s in scores.items()}
    timings["test rankings"] = time.perf_counter() - t
    return rankings, {"text_kernel": best.as_dict()}, dev, gold_ties
