"""Everything the HTML report shows, as plain data: metrics beside the paper, per-query top-k.

:func:`gather` reads and validates every rankings file of a run folder against the corpus
pool, evaluates each system (:func:`kcca._evaluate.system.evaluate_system`: R@k, median rank,
and S@k / R-precision when the corpus has crowd judgments), looks up the paper's numbers
(Tables 11 and 12, and Table 2's expert mean; only for the Flickr 8K test pool), and keeps,
per system and task, the top-k candidates of each query, the gold item's rank, and the crowd
and expert judgments of every pair shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kcca.data._corpus import Corpus
from kcca._evaluate.original import original_ranks
from kcca._evaluate.results_files import chosen_text
from kcca._evaluate.relevance import get_rule
from kcca._names import KS, TASKS
from kcca._paper.numbers import SECTION4_NAMES, SYSTEMS, TABLE2, TABLE11, TABLE12
from kcca._report.rundir import RunFolder, read_table_csv, table_header_lines

#: Summary columns in order; "higher" says which direction is better.
METRICS: tuple[tuple[str, bool], ...] = (
    ("R@1", True),
    ("R@5", True),
    ("R@10", True),
    ("median rank", False),
    ("S@1", True),
    ("S@5", True),
    ("S@10", True),
    ("R-precision", True),
    ("expert mean", True),
)
HIGHER_IS_BETTER = dict(METRICS)


@dataclass
class SystemData:
    """One system: aggregates per task, the paper's numbers, and per-query top-k."""

    name: str
    source: str
    paper_name: str | None
    metrics: dict[str, dict[str, float]]
    paper: dict[str, dict[str, float]]
    top: dict[str, np.ndarray]  # task -> (n_queries, k) candidate indices
    gold_rank: dict[str, np.ndarray]  # task -> (n_queries,) 1-based rank of the original
    chosen: str = ""
    coverage: dict[str, Any] = field(default_factory=dict)


@dataclass
class ReportData:
    """What :mod:`kcca._report.render` turns into a page."""

    run_dir: Path
    corpus_name: str
    split: str
    image_ids: list[str]
    caption_ids: list[str]
    captions: list[str]
    systems: list[SystemData]
    top_k: int
    chance: dict[str, float]
    judgments: dict[tuple[int, int], dict[str, Any]]
    relevance_rule: str | None
    has_paper: bool
    notes: list[str] = field(default_factory=list)
    run_notes: list[str] = field(default_factory=list)
    plots: list[Path] = field(default_factory=list)
    judgment_source: str = ""  # where the judgments come from (:mod:`kcca._report.legend`)
    synthetic_judgments: bool = False
    with_data: bool = True  # False: made from compact results, ids for captions
    #: the all-captions protocol's rows (:mod:`kcca._report.all_captions`); none: no section
    all_captions: list[dict[str, Any]] = field(default_factory=list)


def paper_name(system: str) -> str | None:
    """The paper's name of a system (Table 11 names, or Section 4's NN / TRI5SEM ...)."""
    if system in TABLE11:
        return system
    return SECTION4_NAMES.get(system)


def _paper_order(entry) -> tuple[int, str]:
    """Rankings files in the order of the paper's Table 11, other systems after, by name."""
    name = paper_name(entry.system)
    return (SYSTEMS.index(name) if name in SYSTEMS else len(SYSTEMS), entry.system)


def paper_numbers(system: str) -> dict[str, dict[str, float]]:
    """Table 11 (R@k, median rank), Table 12 (S@k, R-precision) and Table 2 (expert mean)."""
    name = paper_name(system)
    out: dict[str, dict[str, float]] = {t: {} for t in TASKS}
    if name is None:
        return out
    for table in (TABLE11, TABLE12):
        for task in TASKS:
            out[task].update(table.get(name, {}).get(task, {}))
    short = next((k for k, v in SECTION4_NAMES.items() if v == name), None)
    if short in TABLE2:
        out["annotation"]["expert mean"] = TABLE2[short][0]
    return out


def chance_levels(n: int, ks=KS) -> dict[str, float]:
    """Expected R@k (percent) and median rank of a random ranking of ``n`` candidates."""
    out = {f"R@{k}": 100.0 * min(k, n) / n for k in ks}
    out["median rank"] = (n + 1) / 2
    return out


def _chosen_text(details: list[dict], system: str) -> str:
    for d in details:
        if d.get("system") == system or d.get("short_name") == system:
            c = d.get("chosen") or {}
            if "p" in c and "d" in c:
                return chosen_text(c)
            tk = c.get("text_kernel")
            if isinstance(tk, dict):
                return f"NN, {tk.get('name')}"
    return ""


def _unique(name: str, taken: set[str]) -> str:
    out, n = name, 2
    while out in taken:
        out, n = f"{name} ({n})", n + 1
    taken.add(out)
    return out


def judgments_for(
    corpus: Corpus,
    image_ids: list[str],
    caption_ids: list[str],
    pairs: set[tuple[int, int]],
    rule: str,
) -> dict[tuple[int, int], dict]:
    """Crowd votes (relevant under ``rule``) and expert scores of pool pairs ``(i, j)``."""
    rel_rule = get_rule(rule)
    out: dict[tuple[int, int], dict] = {}
    for i, j in pairs:
        key = (image_ids[i], caption_ids[j])
        entry: dict[str, Any] = {}
        crowd = corpus.crowd.get(key) if corpus.crowd is not None else None
        if crowd is not None:
            entry["crowd"] = (crowd.yes, crowd.no, bool(rel_rule.relevant(crowd.yes, crowd.no)))
        expert = corpus.expert.get(key) if corpus.expert is not None else None
        if expert is not None:
            entry["expert"] = tuple(expert.scores)
        if entry:
            out[(i, j)] = entry
    return out


def _coverage_notes(s: SystemData) -> list[str]:
    """How much of what a system returned was judged (unjudged counts as not relevant)."""
    out = []
    for task in TASKS:
        cov = s.coverage.get(task) or {}
        values = [
            (k, cov[f"top-{k} judged"])
            for k in KS
            if isinstance(cov.get(f"top-{k} judged"), (int, float))
        ]
        judged = [f"top-{k} {100 * v:.0f} %" for k, v in values]
        if judged and any(v < 1 for _, v in values):
            imputed = [s.metrics.get(task, {}).get(f"S@{k} imputed") for k in KS]
            protocol = (
                "; under the paper's judging protocol (BLEU_pre filter, the rest "
                "imputed) S@1/5/10 would be " + " / ".join(f"{v:.1f}" for v in imputed)
                if all(isinstance(v, (int, float)) for v in imputed)
                else ""
            )
            out.append(
                f"{s.name}, {task}: crowd-judged pairs among the results: "
                + ", ".join(judged)
                + " (S@k and R-precision count unjudged pairs as "
                f"not relevant{protocol})"
            )
        expert = cov.get("top-1 expert judged")
        if isinstance(expert, (int, float)) and expert < 1:
            out.append(
                f"{s.name}: the expert mean is over the {100 * expert:.0f} % of top-1 "
                "captions that the experts judged"
            )
    return out


def _table_notes(run: RunFolder, systems: list[SystemData]) -> list[str]:
    """Cells of ``table*.csv`` that disagree with the numbers recomputed from the rankings."""
    notes = []
    ours = {s.name: s.metrics for s in systems}
    for s in systems:
        if s.paper_name:
            ours.setdefault(s.paper_name, s.metrics)
    for path in run.tables_csv:
        try:
            rows = read_table_csv(path)
        except (OSError, ValueError):
            continue
        for row in rows:
            m = ours.get(row.get("system", ""), {}).get(row.get("task", ""), {})
            value, written = m.get(row.get("metric", "")), row.get("ours", "")
            if value is None or not written:
                continue
            try:
                if abs(float(written) - value) > 0.051:
                    notes.append(
                        f"{path.name}: {row['system']} {row['task']} {row['metric']} "
                        f"is {written} there but {value:.2f} from the rankings file"
                    )
            except ValueError:
                continue
    return notes


def _pool_ids(run: RunFolder, compacts) -> tuple[list[str], list[str]]:
    """Image and caption ids of the pool, from the first compact results file (no data)."""
    from kcca.data._errors import DataError

    for c in compacts:
        if "annotation" in c.query_ids:
            return list(c.query_ids["annotation"]), list(c.candidate_ids["annotation"])
        return list(c.candidate_ids["search"]), list(c.query_ids["search"])
    raise DataError(
        f"{run.root}: the rankings files need the corpus they rank (set --data-dir "
        "or KCCA_DATA_DIR); without it a report reads compact results files "
        "(*.ranks.npz, written by kcca reproduce), and there are none"
    )


@dataclass
class _ReadSystem:
    """One system as read for the report: its name, evaluation, the top ``k`` of each
    ranking and the original items' ranks (task -> array)."""

    system: str
    evaluation: Any
    tops: dict[str, np.ndarray]
    golds: dict[str, np.ndarray]


def _read_from_rankings(entry, pool, ctx, k: int) -> _ReadSystem:
    """A system from its rankings file, evaluated against the corpus."""
    from kcca._evaluate.rankings_io import read_rankings
    from kcca._evaluate.system import evaluate_system

    rk = read_rankings(entry.path, pool)
    return _ReadSystem(
        rk.system,
        evaluate_system(rk, ctx),
        {task: r[:, :k] for task, r in rk.tasks.items()},
        {task: original_ranks(r) for task, r in rk.tasks.items()},
    )


def _read_from_compact(
    entry, run: RunFolder, compacts, pool, ids: tuple[list[str], list[str]], ctx, k: int
) -> _ReadSystem:
    """A system from its compact results file; its pool is checked against the corpus's
    (``pool``) or, without the corpus, against the pool ``ids`` of the first file."""
    from kcca.data._errors import DataError
    from kcca._evaluate.compact import check_pool
    from kcca._evaluate.system import evaluate_compact

    ck = compacts.get(entry.path)
    if ck is None:
        raise DataError(
            f"{entry.path}: without the corpus's data a report reads the "
            "compact results file beside it, and there is none",
            fix=f"kcca report {run.root} --data-dir DATA_DIR",
        )
    if pool is None:
        for task in ck.gold:
            queries = ids[0] if task == "annotation" else ids[1]
            if list(ck.query_ids[task]) != queries:
                raise DataError(
                    f"{entry.compact}: its pool differs from that of "
                    f"{run.rankings[0].compact} (other ids or order)",
                    fix="keep the results of one pool in one folder",
                )
    else:
        check_pool(ck, pool)
    return _ReadSystem(
        ck.system,
        evaluate_compact(ck, ctx),
        {task: t[:, :k] for task, t in ck.top.items()},
        dict(ck.gold),
    )


def _system_data(
    read: _ReadSystem, entry, run: RunFolder, name: str, has_paper: bool, pairs: set
) -> SystemData:
    """The report's record of one system; the (image, caption) pairs it shows join ``pairs``
    (whose judgments the page marks)."""
    table = read.evaluation.table()
    # the summary's metrics, and the judging-protocol S@k its coverage note quotes
    metrics = {
        t: {
            m: float(v)
            for m, v in table.get(t, {}).items()
            if m in HIGHER_IS_BETTER or m.endswith(" imputed")
        }
        for t in TASKS
        if t in table
    }
    top, gold = {}, {}
    for task in read.tops:
        top[task] = np.ascontiguousarray(read.tops[task])
        gold[task] = np.asarray(read.golds[task])
        for q, row in enumerate(top[task].tolist()):
            pairs.update((q, j) if task == "annotation" else (j, q) for j in row)
    return SystemData(
        name=name,
        source=str(entry.path),
        paper_name=paper_name(read.system),
        metrics=metrics,
        paper=paper_numbers(read.system) if has_paper else {},
        top=top,
        gold_rank=gold,
        chosen=_chosen_text(run.details, read.system),
        coverage=read.evaluation.coverage,
    )


def _report_notes(
    run: RunFolder,
    corpus: Corpus | None,
    ctx,
    corpus_name: str,
    has_paper: bool,
    systems: list[SystemData],
) -> list[str]:
    """The notes above the report: how it was made, what it cannot show, coverage and
    disagreements with the run's tables."""
    notes = []
    if corpus is None:
        notes.append(
            "made without the data: captions are shown by id, images by name, with "
            "no judgment marks; the metrics are those stored in the compact results "
            "files. With the data folder (data/README.md), `kcca report "
            f"{run.root} --data-dir DATA_DIR` shows captions, thumbnails and marks"
        )
    elif ctx.relevance is None:
        notes.append("no crowd judgments for this corpus: S@k and R-precision are not shown")
    if corpus is not None and corpus.images is None:
        notes.append(_without_images_note(run, corpus))
    if not has_paper:
        notes.append(
            f"the paper's numbers are for the Flickr 8K test pool; this run ranks "
            f"the {run.split} pool of corpus {corpus_name!r}, so they are not shown"
        )
    for s in systems:
        notes.extend(_coverage_notes(s))
    notes.extend(_table_notes(run, systems))
    return notes


def _without_images_note(run: RunFolder, corpus: Corpus) -> str:
    """What the page shows for images when the corpus was read without them, and how to
    get thumbnails."""
    import shlex

    captions = (corpus.source_files or {}).get("captions", "FILE.json")
    return (
        "the corpus was read without its images, so images are shown by id; `kcca report "
        f"{shlex.quote(str(run.root))} --corpus {shlex.quote(captions)} --images-dir DIR` "
        "(the folder its image ids are relative to) shows thumbnails"
    )


def _relevance_rule(corpus: Corpus | None, ctx, compacts, relevance: str) -> str | None:
    """The crowd relevance rule the page describes: the corpus's, or without the corpus the
    rule of the judged metrics stored in the compact files."""
    rel = ctx.relevance
    rule = rel.rule.describe() if rel is not None else None
    if corpus is None and any(
        c.full_metrics and c.meta.get("relevance") == relevance for c in compacts.values()
    ):
        rule = get_rule(relevance).describe()  # the stored judged metrics' rule
    return rule


def gather(
    run: RunFolder,
    corpus: Corpus | None,
    *,
    top_k: int = 10,
    relevance: str = "paper",
    progress: bool = False,
) -> ReportData:
    """Read, validate and evaluate every rankings file of ``run`` against ``corpus``.

    ``corpus=None`` (no data): every system is read from its compact results file (gold
    ranks, top of each ranking, stored judged metrics); the page shows ids for captions and
    no judgment marks. A system with only a compact file is read from it with the corpus too.
    """
    from kcca._evaluate.compact import read_compact
    from kcca._evaluate.system import EvaluationContext
    from kcca._report.all_captions import all_captions_rows
    from kcca._report.legend import judgment_source

    split = run.split
    # the compact results files this report reads (each read once): every system's without
    # the corpus, those of systems without a rankings file with it
    compacts = {
        e.path: read_compact(e.compact)
        for e in run.rankings
        if e.compact is not None and (corpus is None or e.is_compact)
    }
    pool = corpus.pool(split) if corpus is not None else None
    if pool is not None:
        image_ids = [p[0] for p in pool]
        caption_ids = [p[1] for p in pool]
        captions = [p[2] for p in pool]
    else:
        image_ids, caption_ids = _pool_ids(run, compacts.values())
        captions = list(caption_ids)
    n = len(image_ids)
    k = max(1, min(top_k, n))
    ctx = EvaluationContext(corpus, split, relevance, with_bleu_rouge=False)
    corpus_name = corpus.name if corpus is not None else run.corpus_name
    has_paper = corpus_name == "flickr8k" and split == "test"
    systems: list[SystemData] = []
    taken: set[str] = set()
    pairs: set[tuple[int, int]] = {(i, i) for i in range(n)}
    ranked: list[tuple[str, str, Path]] = []  # shown name, system, results file
    for entry in sorted(run.rankings, key=_paper_order):
        if progress:
            print(f"report: reading {entry.compact if corpus is None else entry.path}")
        if corpus is not None and not entry.is_compact:
            read = _read_from_rankings(entry, pool, ctx, k)
        else:
            read = _read_from_compact(entry, run, compacts, pool, (image_ids, caption_ids), ctx, k)
        name = _unique(read.system, taken)
        systems.append(_system_data(read, entry, run, name, has_paper, pairs))
        ranked.append((name, read.system, entry.path))
    source, synthetic = judgment_source(corpus) if corpus is not None else ("", False)
    return ReportData(
        run_dir=run.root,
        corpus_name=corpus_name,
        split=split,
        image_ids=image_ids,
        caption_ids=caption_ids,
        captions=captions,
        systems=systems,
        top_k=k,
        chance=chance_levels(n),
        relevance_rule=_relevance_rule(corpus, ctx, compacts, relevance),
        judgments=(
            judgments_for(corpus, image_ids, caption_ids, pairs, relevance)
            if corpus is not None
            else {}
        ),
        has_paper=has_paper,
        notes=_report_notes(run, corpus, ctx, corpus_name, has_paper, systems),
        run_notes=table_header_lines(run.tables_md[0]) if run.tables_md else [],
        plots=list(run.plots),
        judgment_source=source,
        synthetic_judgments=synthetic,
        with_data=corpus is not None,
        all_captions=all_captions_rows(ranked, image_ids),
    )
