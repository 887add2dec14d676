"""Run one system end to end: kernels -> KCCA grid on dev -> 15 models -> Borda -> test metrics.

:func:`run_system` follows Section 4.1 of the paper for a :class:`~kcca._systems.spec.SystemSpec`:

1. image features of train/dev/test and the image-kernel blocks (Section 3.3; p = 1, the
   solver applies p);
2. preprocessed captions (4.1.1) and the text-kernel blocks: training items are the five
   captions of a training image, the dev/test pools caption #2 (4.1.2);
3. KCCA (``model = "kcca"``): for each (p, d) of the spec, the kappa x n grid in one fit and the
   dev ranks of every model; p and d chosen on dev (:mod:`kcca._systems.grid`), frozen;
   per task the 15 dev-selected models rank the test pool and are Borda-aggregated (Sec. 4.1.3);
   NN (``model = "nn"``): eq. 2 with one nearest neighbour; with several candidate text
   kernels (NN5_TRI(best)) the best on dev is used;
4. metrics of the test rankings (:func:`kcca._evaluate.system.evaluate_system`): R@k and median
   rank (Tables 3, 11), and S@k / R-precision when the corpus has crowd judgments (Table 12).

Every stage is cached by config (:class:`kcca._cache.Cache`), so an interrupted run resumes:
kernel blocks (:mod:`kcca._systems.blocks`), each (p, d)'s dev outcome (``system-dev``) and the
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

from kcca._cache import Cache
from kcca.data._corpus import Corpus
from kcca._evaluate.original import gold_ties_from_scores, rankings_from_scores
from kcca._evaluate.protocol_ranks import PoolRanks, pool_fold_counts
from kcca._evaluate.rankings_io import Rankings, write_rankings
from kcca._evaluate.retrieval_protocol import CAPTIONS_PER_IMAGE
from kcca._evaluate.system import EvaluationContext, SystemEvaluation, evaluate_system
from kcca._names import KS, TASKS
from kcca._systems.all_captions import borda_protocol_ranks, score_protocol_ranks
from kcca._systems.blocks import Blocks, Workspace, all_caption_ids, workspace_for
from kcca._systems.config import RunConfig
from kcca._systems.fitted import Projections
from kcca._systems.grid import (
    DevOutcome,
    borda_rankings,
    choose,
    dev_outcome,
    fit_grid,
    indefinite_rule,
)
from kcca._systems.spec import KernelSpec, SystemSpec

log = logging.getLogger(__name__)

DEV_STAGE = "system-dev"
SEARCH_STAGE = "system-dev-search"
TEST_STAGE = "system-test"
ALL_CAPTIONS_STAGE = "system-test-all-captions"
#: captions per test image in the all-captions pools (the literature keeps COCO's first five)
CAPTIONS = CAPTIONS_PER_IMAGE
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
        systems; zero for Borda rankings, ordered by Borda's rules), written to the rankings;
        protocol_ranks: with the run's protocol ``"all-captions"``, per pool (fold count) the
        ranks of each fold (:mod:`kcca._evaluate.protocol_ranks`), else None.
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
    protocol_ranks: PoolRanks | None = None

    def table(self) -> dict[str, dict[str, float]]:
        """task -> metric -> aggregate (R@k in percent, median rank, S@k, R-precision)."""
        return self.evaluation.table()

    def write_rankings(self, path: str | Path, corpus: Corpus, split: str = "test") -> Path:
        """The rankings file read by ``kcca evaluate`` (:mod:`kcca._evaluate.rankings_io`)."""
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
    carries the run's :class:`~kcca._systems.config.RunConfig`; without one, a workspace is made
    from ``config`` (default settings) and ``cache`` (none). The configuration's
    ``precision`` is the factor truncation of the solver (None: its default); its
    ``search_rank`` overrides the spec's ``grid.search_rank`` (the (p, d) search with
    rank-capped factors, :class:`kcca._systems.spec.GridSpec`); 0 searches at full precision;
    ``keep_models`` keeps the directions of the chosen models (``SystemResult.models``, what
    :func:`kcca._model.fit_system` saves; a KCCA grid whose test rankings came from the cache
    is fitted again for them, with the run's factor cache and backend).
    """
    ws = workspace_for(corpus, workspace, config, cache)
    if ws.config.settings.protocol == "all-captions":  # a test image without five captions
        all_caption_ids(corpus, "test", CAPTIONS)  # is named before any work
    timings: dict[str, float] = {}
    t = time.perf_counter()
    image = ws.image_blocks(spec.image_kernel)
    timings["image kernel"] = time.perf_counter() - t
    if spec.model == "nn":
        run = _run_nn(ws, spec, image, timings)
    else:
        run = _run_kcca(
            ws,
            spec,
            image,
            timings,
            ws.config.settings.precision,
            _search_rank(spec, ws.config.settings.search_rank),
            keep_models=keep_models,
        )
    rankings = run.rankings
    gold_ties = run.gold_ties or {
        task: np.zeros(len(r), dtype=np.int64) for task, r in rankings.items()
    }
    t = time.perf_counter()
    ctx = EvaluationContext(corpus, "test", with_bleu_rouge=with_bleu_rouge)
    evaluation = evaluate_system(
        Rankings(spec.name, "test", rankings, gold_ties=gold_ties), ctx, KS
    )
    timings["evaluation"] = time.perf_counter() - t
    return SystemResult(
        spec,
        corpus.name,
        rankings,
        evaluation,
        run.chosen,
        run.dev,
        timings,
        run.models,
        gold_ties,
        run.protocol_ranks,
    )


def _search_rank(spec: SystemSpec, override: int | None) -> int | None:
    """The rank of the (p, d) search: the run's override (0: full precision, None) or the
    spec's own."""
    return spec.grid.search_rank if override is None else (override or None)


# --------------------------------------------------------------------------- KCCA


@dataclass
class _ModelRun:
    """What a model's steps hand to :func:`run_system`: the test rankings (task ->
    candidate indices), the frozen settings, the dev figures of every setting tried, the
    chosen models' directions (KCCA with ``keep_models``), the original items' ties (NN) and
    the all-captions ranks (the run's protocol ``"all-captions"``)."""

    rankings: dict[str, np.ndarray]
    chosen: dict[str, Any]
    dev: list[dict[str, Any]]
    models: Projections | None = None
    gold_ties: dict[str, np.ndarray] | None = None
    protocol_ranks: PoolRanks | None = None


@dataclass
class _KccaGrids:
    """One KCCA system's kernel blocks and grid settings, shared by its steps: the dev search,
    the refit of the chosen (p, d) and the test rankings. ``fitted`` keeps the full-precision
    grid of the best (p, d) so far, so the chosen one is not fitted twice."""

    ws: Workspace
    spec: SystemSpec
    image: Blocks
    text: Blocks
    precision: float | None
    n_values: np.ndarray
    indefinite: str
    fitted: dict[tuple[float, float], Any] = field(default_factory=dict)

    @property
    def base_key(self) -> dict[str, Any]:
        """The cache key every stage of this system starts from."""
        return {
            "version": VERSION,
            "image": self.image.key,
            "text": self.text.key,
            "kappas": list(self.spec.grid.kappas),
            "n": self.n_values,
            "precision": self.precision,
            "per_criterion": self.spec.per_criterion,
            # the paper's combination keeps the keys it had before combine existed
            **({"combine": "dev"} if self.spec.combination == "dev" else {}),
        }

    @property
    def inputs(self) -> list:
        return [*self.image.inputs, *self.text.inputs]

    def fit(self, p: float, d: float, rank: int | None = None) -> Any:
        """The kappa x n grid of (p, d) on the training blocks; one image factor per p and one
        text factor for every d come from the run's factor cache. With the run's progress on,
        the factorisations and the solve of each kappa show bars below the grid's."""
        return fit_grid(
            self.image.train,
            self.text.train,
            p=p,
            d=d,
            kappas=self.spec.grid.kappas,
            n_values=self.n_values,
            precision=self.precision,
            factor_cache=self.ws.factor_cache,
            rank=rank,
            backend=self.ws.backend,
            indefinite=self.indefinite,
            progress=self.ws.progress,
        )

    def dev_fit(self, p: float, d: float, rank: int | None) -> DevOutcome:
        """Fit (p, d) (factors capped at ``rank``, None: full precision) and rank the dev pool
        with every model (a bar per task over the kappas with the run's progress on); a
        full-precision grid is kept for the test rankings."""
        grid = self.fit(p, d, rank)
        if rank is None:
            self.fitted[(p, d)] = grid
        return dev_outcome(
            grid,
            self.image.dev,
            self.text.dev,
            p=p,
            d=d,
            per_criterion=self.spec.per_criterion,
            combine=self.spec.combination,
            progress=self.ws.progress,
        )

    def keep_only(self, p: float, d: float) -> None:
        """Drop the fitted grids other than (p, d)'s (memory: one grid at a time)."""
        for pd in [pd for pd in self.fitted if pd != (p, d)]:
            del self.fitted[pd]

    def grid_of(self, best: DevOutcome) -> Any:
        """The full-precision grid of the chosen (p, d), fitted again if not kept."""
        if (best.p, best.d) not in self.fitted:
            self.fitted[(best.p, best.d)] = self.fit(best.p, best.d)
        return self.fitted[(best.p, best.d)]


def _run_kcca(
    ws: Workspace,
    spec: SystemSpec,
    image: Blocks,
    timings: dict,
    precision: float | None,
    search_rank: int | None = None,
    keep_models: bool = False,
) -> _ModelRun:
    """Section 4.1.3 for one KCCA system: (p, d) chosen on dev, then the test pool ranked by
    the Borda count of the 15 dev-selected models (``combine = "dev"``: the number of best
    models chosen on dev); ``timings`` gets each step's seconds."""
    t = time.perf_counter()
    text = ws.text_blocks(spec.text_kernel, spec.preprocessing, spec.word_kernel)
    timings["text kernel"] = time.perf_counter() - t
    grids = _KccaGrids(
        ws,
        spec,
        image,
        text,
        precision,
        spec.grid.n_values(image.n_train),
        indefinite_rule(image, text),
    )
    combos = [(p, d) for p in spec.grid.p for d in spec.grid.d]
    search = search_rank if search_rank is not None and len(combos) > 1 else None
    t = time.perf_counter()
    outcomes = _dev_outcomes(grids, combos, search)
    best = _chosen_on_dev(grids, outcomes, search)
    timings["dev grid"] = time.perf_counter() - t
    t = time.perf_counter()
    rankings = _test_rankings(grids, best)
    timings["test rankings"] = time.perf_counter() - t
    protocol_ranks = None
    if ws.config.settings.protocol == "all-captions":
        t = time.perf_counter()
        protocol_ranks = _kcca_all_captions(grids, best)
        timings["all-captions ranks"] = time.perf_counter() - t
    models = None
    if keep_models:
        t = time.perf_counter()
        models = Projections.from_grid(grids.grid_of(best), best.selected)
        timings["chosen models"] = time.perf_counter() - t
    grids.fitted.clear()
    return _ModelRun(
        {k: np.asarray(v, dtype=np.int64) for k, v in rankings.items()},
        _chosen_settings(best, search),
        [o.summary() for o in sorted(outcomes, key=DevOutcome.sort_key)],
        models,
        protocol_ranks=protocol_ranks,
    )


def _dev_outcomes(
    grids: _KccaGrids, combos: list[tuple[float, float]], search_rank: int | None
) -> list[DevOutcome]:
    """The dev outcome of every (p, d), cached: at full precision, or with factors capped at
    ``search_rank`` (the search stage) when it is set."""
    spec = grids.spec
    stage, extra = (
        (SEARCH_STAGE, {"search_rank": int(search_rank)})
        if search_rank is not None
        else (DEV_STAGE, {})
    )
    bar = tqdm(
        combos,
        desc=f"{spec.label}: KCCA grid (p, d)"
        + (f", rank {search_rank}" if search_rank is not None else ""),
        unit="fit",
        disable=not grids.ws.progress,
    )
    outcomes: list[DevOutcome] = []
    for p, d in bar:
        bar.set_postfix(p=p, d=d)
        outcomes.append(
            grids.ws.cache.get_or_compute(
                stage,
                {**grids.base_key, **extra, "p": p, "d": d},
                # mypy cannot type a lambda with a default argument
                lambda p=p, d=d: grids.dev_fit(p, d, search_rank),  # type: ignore[misc]
                grids.inputs,
                expect=DevOutcome,
            )
        )
        lead = min(outcomes, key=DevOutcome.sort_key)
        grids.keep_only(lead.p, lead.d)
    return outcomes


def _chosen_on_dev(
    grids: _KccaGrids, outcomes: list[DevOutcome], search_rank: int | None
) -> DevOutcome:
    """The (p, d) chosen on dev; after a rank-capped search, its outcome at full precision
    (whose 15 models are then selected on dev)."""
    spec = grids.spec
    best = choose(outcomes)
    if search_rank is not None:
        log.info(
            "%s: chose p=%g d=%g on dev with rank-%d factors (criterion %.1f)",
            spec.label,
            best.p,
            best.d,
            search_rank,
            best.criterion,
        )
        best = grids.ws.cache.get_or_compute(
            DEV_STAGE,
            {**grids.base_key, "p": best.p, "d": best.d},
            lambda: grids.dev_fit(best.p, best.d, None),
            grids.inputs,
            expect=DevOutcome,
        )
    log.info(
        "%s: chose p=%g d=%g on dev (criterion %.1f)", spec.label, best.p, best.d, best.criterion
    )
    return best


def _selected(best: DevOutcome) -> dict[str, list[list]]:
    """task -> the dev-selected models, as lists (cache keys, run details)."""
    return {k: [list(s) for s in v] for k, v in best.selected.items()}


def _test_rankings(grids: _KccaGrids, best: DevOutcome) -> dict[str, np.ndarray]:
    """Per task, the Borda count of the selected models' test rankings (cached)."""

    def rank_test_pool() -> dict[str, np.ndarray]:
        grid = grids.grid_of(best)
        return {
            task: borda_rankings(
                grid, grids.image.test, grids.text.test, task, best.selected[task]
            ).astype(np.int32)
            for task in TASKS
        }

    key = {**grids.base_key, "p": best.p, "d": best.d, "selected": _selected(best)}
    return grids.ws.cache.get_or_compute(TEST_STAGE, key, rank_test_pool, grids.inputs, expect=dict)


def _kcca_all_captions(grids: _KccaGrids, best: DevOutcome) -> PoolRanks:
    """The all-captions ranks of the chosen models' Borda rankings, every pool the literature
    reports on this test set (cached; :mod:`kcca._systems.all_captions`). The captions'
    text-kernel rows are projected block by block, never held whole."""
    spec = grids.spec
    captions = grids.ws.all_caption_rows(
        spec.text_kernel, spec.preprocessing, spec.word_kernel, captions_per_image=CAPTIONS
    )
    n_images = grids.image.test.shape[0]
    pools = pool_fold_counts(n_images)

    def rank_pools() -> PoolRanks:
        models = Projections.from_grid(grids.grid_of(best), best.selected)
        y = Projections.project_blocks(models.project_y, captions.rows)
        x = Projections.project_blocks(models.project_x, grids.image.test)
        queries = (1 + CAPTIONS) * n_images  # per pool: every image and every caption
        with tqdm(
            total=queries * len(pools),
            desc=f"{spec.label}: all-captions pools",
            unit="query",
            disable=not grids.ws.progress,
        ) as bar:
            return {
                n: borda_protocol_ranks(
                    models, x, y, captions_per_image=CAPTIONS, n_folds=n, advance=bar.update
                )
                for n in pools
            }

    key = {
        **grids.base_key,
        "p": best.p,
        "d": best.d,
        "selected": _selected(best),
        "captions": captions.key,
        "pools": list(pools),
    }
    inputs = [*grids.inputs, *captions.inputs]
    return grids.ws.cache.get_or_compute(ALL_CAPTIONS_STAGE, key, rank_pools, inputs, expect=dict)


def _chosen_settings(best: DevOutcome, search_rank: int | None) -> dict[str, Any]:
    """The frozen settings of the run details: p, d, the dev criterion, the search rank
    (when searched), the selected models and, when the dev split chose how many models to
    combine (``combine = "dev"``), per task that choice and the dev figures behind it."""
    return {
        "p": best.p,
        "d": best.d,
        "criterion": round(best.criterion, 3),
        **({"search_rank": int(search_rank)} if search_rank is not None else {}),
        "selected": _selected(best),
        **({"combination": best.combination} if best.combination else {}),
    }


# --------------------------------------------------------------------------- NN


def _nn_scores(image: Blocks, text: Blocks, split: str) -> dict[str, np.ndarray]:
    """Eq. 2 with one neighbour: task -> (n_queries, n_candidates) scores."""
    from kcca.nn import nn_annotation_scores, nn_search_scores

    return {
        "annotation": nn_annotation_scores(image[split], text[split]),
        "search": nn_search_scores(image[split], text[split]),
    }


def _nn_rankings(image: Blocks, text: Blocks, split: str) -> dict[str, np.ndarray]:
    """Eq. 2 rankings; ties never favour the original (kcca._evaluate.original)."""
    return {task: rankings_from_scores(s) for task, s in _nn_scores(image, text, split).items()}


def _criterion(rankings: dict[str, np.ndarray]) -> float:
    from kcca._evaluate.original import original_item_metrics, original_ranks

    return float(
        sum(
            original_item_metrics(original_ranks(r))[f"R@{k}"].aggregate
            for r in rankings.values()
            for k in KS
        )
    )


def _run_nn(ws: Workspace, spec: SystemSpec, image: Blocks, timings: dict) -> _ModelRun:
    """Eq. 2 with one nearest neighbour; with several candidate text kernels the best on dev
    (NN5_TRI(best)); ``timings`` gets each step's seconds."""
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
    protocol_ranks = None
    if ws.config.settings.protocol == "all-captions":
        t = time.perf_counter()
        protocol_ranks = _nn_all_captions(ws, spec, best, image)
        timings["all-captions ranks"] = time.perf_counter() - t
    return _ModelRun(
        rankings,
        {"text_kernel": best.as_dict()},
        dev,
        gold_ties=gold_ties,
        protocol_ranks=protocol_ranks,
    )


def _nn_all_captions(ws: Workspace, spec: SystemSpec, text_kernel: Any, image: Blocks) -> PoolRanks:
    """Eq. 2's all-captions ranks with the chosen text kernel (scores do not depend on the
    pool, so the folds are cut out of one score matrix)."""
    params = dict(text_kernel.params)
    word_kernel = params.pop("word_kernel", None) or spec.word_kernel
    captions = ws.all_caption_rows(
        KernelSpec(text_kernel.name, params),
        spec.preprocessing,
        word_kernel,
        captions_per_image=CAPTIONS,
    )
    pools = pool_fold_counts(image.test.shape[0])

    def rank_pools() -> PoolRanks:
        from kcca.nn import nn_annotation_scores, nn_search_scores

        text = np.asarray(captions.rows)
        annotation = nn_annotation_scores(image.test, text)
        search = nn_search_scores(image.test, text)
        return {
            n: score_protocol_ranks(annotation, search, captions_per_image=CAPTIONS, n_folds=n)
            for n in pools
        }

    key = {"version": VERSION, "nn": image.key, "captions": captions.key, "pools": list(pools)}
    inputs = [*image.inputs, *captions.inputs]
    return ws.cache.get_or_compute(ALL_CAPTIONS_STAGE, key, rank_pools, inputs, expect=dict)
