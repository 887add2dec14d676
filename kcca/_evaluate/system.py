"""Everything the paper measures for one system's rankings, and paired comparisons.

:func:`evaluate_system` computes, per task, R@k and median rank (4.3.1), S@k and R-precision
with judged coverage (4.3.3), and for annotation the expert metrics of the first caption and
its mean BLEU / ROUGE against the five reference captions (4.2, Tables 1-2).
:func:`compare_systems` pairs two evaluations query by query: McNemar for the binary
metrics (R@k, S@k, expert thresholds), Fisher's randomisation test for the rest (difference
of medians for median rank, of means otherwise), as in the paper.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from kcca.data._corpus import Corpus
from kcca.data._errors import DataError
from kcca._evaluate.expert import ExpertMatrix, ExpertResult, corpus_expert, expert_metrics
from kcca._evaluate.judged_metrics import judged_metrics, total_r_precision
from kcca._evaluate.judging_protocol import RelevanceModel, fit_relevance_model, protocol_metrics
from kcca._evaluate.original import (
    DEFAULT_KS,
    PerQuery,
    original_item_metrics,
    original_ranks,
    ranks_under_tie_rule,
)
from kcca._evaluate.rankings_io import Rankings
from kcca._evaluate.relevance import RelevanceMatrix, RelevanceRule, corpus_relevance
from kcca._evaluate.statistics import (
    McNemarResult,
    RandomizationResult,
    mcnemar,
    randomization_test,
)
from kcca._evaluate.system_evaluation import SystemEvaluation

if TYPE_CHECKING:
    from kcca._evaluate.compact import CompactRankings


@dataclass
class EvaluationContext:
    """Judgment matrices of one pool, built once and shared by every system evaluated."""

    corpus: Corpus | None
    split: str = "test"
    rule: str | RelevanceRule = "paper"
    with_bleu_rouge: bool = True
    with_protocol: bool = True
    _relevance: RelevanceMatrix | None = field(default=None, repr=False)
    _expert: ExpertMatrix | None = field(default=None, repr=False)
    _scores: dict = field(default_factory=dict, repr=False)
    _protocol: tuple | None = field(default=None, repr=False)

    @property
    def relevance(self) -> RelevanceMatrix | None:
        if self._relevance is None and self.corpus is not None and self.corpus.crowd is not None:
            self._relevance = corpus_relevance(self.corpus, self.split, self.rule)
        return self._relevance

    @property
    def expert(self) -> ExpertMatrix | None:
        if self._expert is None and self.corpus is not None and self.corpus.expert is not None:
            self._expert = corpus_expert(self.corpus, self.split)
        return self._expert

    def score_matrix(self, metric: str) -> np.ndarray:
        """BLEU (plain), ROUGE (stemmed, no stop words) or ``"bleu_pre"`` (BLEU preprocessed as
        ROUGE, the paper's filter) of every pool pair, R5 references."""
        if metric not in self._scores:
            from kcca._evaluate.bleu_rouge import ROUGE_STYLE, pool_score_matrix

            if metric == "bleu_pre":
                self._scores[metric] = pool_score_matrix(
                    self.corpus, self.split, "bleu", "R5", ROUGE_STYLE
                )
            else:
                self._scores[metric] = pool_score_matrix(self.corpus, self.split, metric, "R5")
        return self._scores[metric]

    @property
    def protocol_model(self) -> RelevanceModel | None:
        """P(relevant | BLEU_pre) for the paper's judging protocol (None, with the reason in
        :attr:`protocol_note`, when there are no crowd judgments or none pass the filter)."""
        if self._protocol is None:
            rel = self.relevance
            if rel is None or not self.with_protocol:
                self._protocol = (
                    None,
                    "S@k / R-precision under the judging protocol not "
                    "computed (no crowd judgments, or switched off)",
                )
            else:
                try:
                    model = fit_relevance_model(
                        rel.relevant, rel.judged, self.score_matrix("bleu_pre")
                    )
                    self._protocol = (model, "")
                except DataError as e:
                    self._protocol = (None, f"judging protocol not estimated: {e}")
        return self._protocol[0]

    @property
    def protocol_note(self) -> str:
        # protocol_model has set _protocol
        return "" if self.protocol_model is not None else self._protocol[1]  # type: ignore[index]


def first_caption_metrics(
    top1: np.ndarray, ctx: EvaluationContext, metrics: dict[str, PerQuery], coverage: dict[str, Any]
) -> ExpertResult | None:
    """Annotation metrics of the caption ranked first for each image (``top1``, pool indices):
    the expert scores (Tables 1-2, with their coverage) when the corpus has expert judgments,
    and top-1 BLEU / ROUGE when ``ctx.with_bleu_rouge``; added to ``metrics``."""
    expert_result = None
    if ctx.expert is not None:
        expert_result = expert_metrics(top1, ctx.expert)
        for name, pq in expert_result.cumulative.items():
            metrics[f"expert {name}"] = pq
        metrics["expert mean"] = expert_result.mean
        coverage.setdefault("annotation", {})["top-1 expert judged"] = expert_result.coverage
    if ctx.with_bleu_rouge:
        rows = np.arange(len(top1))
        for metric in ("bleu", "rouge"):
            vals = ctx.score_matrix(metric)[rows, top1]
            metrics[f"top-1 {metric.upper()}"] = PerQuery(
                f"top-1 {metric.upper()}", vals, float(vals.mean())
            )
    return expert_result


def gold_ranks(
    ranks: np.ndarray,
    gold_ties: Mapping[str, np.ndarray],
    task: str,
    source: str,
    ties: str = "last",
) -> np.ndarray:
    """The original items' ranks under tie rule ``ties`` (``kcca._evaluate.original``), from
    ranks stored under ``"last"`` and the recorded ``gold_ties``; another rule without a
    record of ties is an error naming the file."""
    if ties == "last":
        return ranks
    if task not in gold_ties:
        raise DataError(
            f"{source}: its {task} rankings hold no record of score ties, so the "
            f"original item cannot be moved to the {ties} place of its tie",
            fix="leave out --ties (the tables' rule: ties never favour the original "
            "item), or write the rankings again with `kcca reproduce`, which "
            "records the ties",
        )
    return ranks_under_tie_rule(ranks, gold_ties[task], ties)


def evaluate_system(
    rankings: Rankings, ctx: EvaluationContext, ks: Sequence[int] = DEFAULT_KS, ties: str = "last"
) -> SystemEvaluation:
    """All metrics of one system over ``ctx``'s pool (rankings from ``read_rankings``);
    ``ties`` the place of the original item among equal scores for R@k and median rank
    (``"last"``, the tables' rule; ``"first"`` or ``"mean"`` need recorded ties)."""
    metrics: dict[str, dict[str, PerQuery]] = {}
    coverage: dict[str, Any] = {}
    notes: list[str] = []
    expert_result = None
    rel = ctx.relevance
    if rel is None:
        notes.append("no crowd judgments: S@k and R-precision not computed")
    for task, r in rankings.tasks.items():
        m = dict(
            original_item_metrics(
                gold_ranks(original_ranks(r), rankings.gold_ties, task, rankings.source, ties), ks
            )
        )
        if rel is not None:
            relevant, judged = rel.for_task(task)
            jm, cov = judged_metrics(r, relevant, judged, ks)
            m.update(jm)
            coverage[task] = cov
        if task == "annotation":
            expert_result = first_caption_metrics(r[:, 0], ctx, m, coverage)
            if ctx.expert is None:
                notes.append("no expert judgments: Table 1-2 metrics not computed")
        metrics[task] = m
    if rel is not None:
        model = ctx.protocol_model
        if model is None:
            notes.append(ctx.protocol_note)
        else:
            est = protocol_metrics(
                rankings.tasks, rel.relevant, rel.judged, ctx.score_matrix("bleu_pre"), model, ks=ks
            )
            for task, extra in est.items():
                metrics[task].update(extra)
    if rel is not None and {"annotation", "search"} <= set(metrics):
        total = (
            metrics["annotation"]["R-precision"].aggregate
            + metrics["search"]["R-precision"].aggregate
        ) / 2.0
        coverage["R-precision total (Table 5)"] = total
    return SystemEvaluation(rankings.system, metrics, coverage, expert_result, notes)


def evaluate_compact(
    compact: "CompactRankings",
    ctx: EvaluationContext,
    ks: Sequence[int] = DEFAULT_KS,
    ties: str = "last",
) -> SystemEvaluation:
    """What :func:`evaluate_system` computes, from compact results
    (:mod:`kcca._evaluate.compact`): R@k and median rank from the stored gold ranks; with the
    corpus's judgments (``ctx.corpus`` not None) S@k for k up to the depth kept, R-precision
    when the depth covers every query's relevant items, the expert scores and BLEU/ROUGE of
    the first caption. The metrics that need the whole ranking are listed in the notes."""
    from kcca._evaluate.compact import check_pool, stored_metrics_usable

    metrics: dict[str, dict[str, PerQuery]] = {}
    coverage: dict[str, Any] = {}
    expert_result = None
    counts: dict[str, np.ndarray] = {}
    if ctx.corpus is not None:
        check_pool(compact, ctx.corpus.pool(ctx.split))
    rel = ctx.relevance
    rule = ctx.rule if isinstance(ctx.rule, str) else ""
    stored = stored_metrics_usable(compact, rule, ctx.corpus)
    for task, gold in compact.gold.items():
        top = compact.top[task]
        m = dict(
            original_item_metrics(
                gold_ranks(gold, compact.gold_ties, task, compact.source, ties), ks
            )
        )
        if rel is not None:
            relevant, judged = rel.for_task(task)
            coverage[task], counts[task] = _judged_from_top(top, relevant, judged, ks, m)
        if task == "annotation" and ctx.corpus is not None:
            expert_result = first_caption_metrics(top[:, 0], ctx, m, coverage)
        if stored:  # what the top of the ranking cannot give (all judged metrics without data)
            _add_stored_metrics(compact, task, m, with_corpus=ctx.corpus is not None)
        metrics[task] = m
    if all("R-precision" in metrics.get(t, {}) for t in ("annotation", "search")):
        coverage["R-precision total (Table 5)"] = total_r_precision(
            metrics["annotation"]["R-precision"], metrics["search"]["R-precision"]
        )
    if ctx.corpus is None and stored:
        coverage = {
            k: (dict(sorted(v.items(), key=_coverage_order)) if isinstance(v, dict) else v)
            for k, v in compact.meta.get("coverage", {}).items()
        }
    notes = _compact_notes(compact, metrics, counts, stored, with_corpus=ctx.corpus is not None)
    return SystemEvaluation(compact.system, metrics, coverage, expert_result, notes)


def _judged_from_top(
    top: np.ndarray,
    relevant: np.ndarray,
    judged: np.ndarray,
    ks: Sequence[int],
    metrics: dict[str, PerQuery],
) -> tuple[dict, np.ndarray]:
    """S@k for k up to the depth kept, and R-precision when the depth covers every query's
    relevant items (Section 4.3.3), added to ``metrics``; returns their judged coverage and
    each query's number of relevant items."""
    rows = np.arange(top.shape[0])
    ordered = np.take_along_axis(np.asarray(relevant, bool), top, axis=1)
    seen = np.take_along_axis(np.asarray(judged, bool), top, axis=1)
    cov: dict = {}
    for k in ks:
        if k <= top.shape[1]:
            hits = ordered[:, :k].any(axis=1).astype(float)
            metrics[f"S@{k}"] = PerQuery(f"S@{k}", hits, 100.0 * float(hits.mean()))
            cov[f"top-{k} judged"] = float(seen[:, :k].mean())
    r_i = np.asarray(relevant, bool).sum(axis=1)
    if r_i.size and r_i.min() > 0 and r_i.max() <= top.shape[1]:
        values = np.cumsum(ordered, axis=1)[rows, r_i - 1] / r_i
        metrics["R-precision"] = PerQuery("R-precision", values, 100.0 * float(values.mean()))
        mask = np.arange(top.shape[1])[None, :] < r_i[:, None]
        cov["R-precision judged"] = float(seen[mask].mean())
        cov["R-precision max depth"] = int(r_i.max())
    return cov, r_i


def _add_stored_metrics(
    compact: "CompactRankings", task: str, metrics: dict[str, PerQuery], *, with_corpus: bool
) -> None:
    """The per-query metrics the compact file stored that ``metrics`` lacks: with the corpus,
    only those that need the whole ranking; without it, every judged metric."""
    from kcca._evaluate.compact import FULL_RANKING_SUFFIXES

    aggregates = compact.meta.get("aggregates", {}).get(task, {})
    metrics.update(
        {
            k: PerQuery(k, v, float(aggregates.get(k, np.nan)))
            for k, v in compact.full_metrics.get(task, {}).items()
            if k not in metrics and (not with_corpus or k.endswith(FULL_RANKING_SUFFIXES))
        }
    )


def _compact_notes(
    compact: "CompactRankings",
    metrics: dict[str, dict[str, PerQuery]],
    counts: dict[str, np.ndarray],
    stored: bool,
    *,
    with_corpus: bool,
) -> list[str]:
    """What an evaluation of compact results rests on, and what it could not compute."""
    from kcca._evaluate.compact import missing_metrics

    with_bleu = "top-1 BLEU" in metrics.get("annotation", {})
    kept = (
        f"; the judged metrics{' and top-1 BLEU/ROUGE' if with_bleu else ''} as stored when it "
        "was written"
        if not with_corpus
        else "; the full-ranking metrics as stored when it was written"
    )
    notes = [
        f"{compact.source}: compact results (gold ranks and the top {compact.depth} per "
        "query" + (kept if stored else "") + ")"
    ]
    missing = missing_metrics(compact, counts, stored_usable=stored)
    if missing:
        notes.append("not computable from the compact results: " + "; ".join(missing))
    if not with_corpus and not stored:
        notes.append(
            "no corpus data: S@k, R-precision, expert and BLEU/ROUGE need the "
            "judgments and captions (set --data-dir or KCCA_DATA_DIR)"
        )
    elif not with_corpus:
        absent = [
            k for k in ("top-1 BLEU", "top-1 ROUGE") if k not in metrics.get("annotation", {})
        ]
        if absent:
            notes.append(
                f"no corpus data: {' and '.join(absent)} need the captions (set --data-dir "
                "or KCCA_DATA_DIR)"
            )
    return notes


def _coverage_order(item: tuple[str, object]) -> tuple[int, int, str]:
    """Judged-coverage entries as :func:`evaluate_system` lists them: top-k judged by k, then
    R-precision's, then the expert's (a stored file's keys come back sorted by name)."""
    import re

    key = item[0]
    m = re.fullmatch(r"top-(\d+) judged", key)
    if m:
        return (0, int(m.group(1)), key)
    return (1 if key.startswith("R-precision") else 2, 0, key)


#: per-query 0/1 metrics (McNemar); "S@k imputed" is an expectation in [0, 1] (randomisation)
BINARY_PREFIXES = ("R@", "S@", "expert =", "expert >=")


def compare_systems(
    a: SystemEvaluation, b: SystemEvaluation, *, n_samples: int = 100_000, seed: int = 0
) -> dict:
    """Paired significance of every shared metric: task -> metric -> {test, p, ...}."""
    out: dict = {}
    for task in a.metrics:
        if task not in b.metrics:
            continue
        out[task] = {}
        for name, pa in a.metrics[task].items():
            pb = b.metrics[task].get(name)
            if pb is None:
                continue
            if pa.values.shape != pb.values.shape:
                raise DataError(
                    f"{task} {name}: {a.system} has {pa.values.size} queries, "
                    f"{b.system} {pb.values.size}"
                )
            res: McNemarResult | RandomizationResult
            if name.startswith(BINARY_PREFIXES) and not name.endswith(" imputed"):
                res = mcnemar(pa.values.astype(bool), pb.values.astype(bool))
                out[task][name] = {
                    "test": f"McNemar, {res.method}, two-sided",
                    "p": res.p_value,
                    "b": res.b,
                    "c": res.c,
                }
            else:
                stat = "median" if name == "median rank" else "mean"
                res = randomization_test(
                    pa.values,
                    pb.values,
                    statistic=stat,
                    n_samples=n_samples,
                    seed=seed,
                    nan_policy="omit",
                )
                out[task][name] = {
                    "test": f"randomisation ({stat} difference, "
                    f"{'exact' if res.exact else res.n_samples}"
                    " samples, two-sided)",
                    "p": res.p_value,
                    "observed": res.observed,
                }
    return out


def stars(p: float) -> str:
    """The paper's superscripts: * p <= 0.1, ** p <= 0.05, *** p <= 0.01."""
    return "***" if p <= 0.01 else "**" if p <= 0.05 else "*" if p <= 0.1 else ""
