"""Compact test results: per query the rank of the original item and the top of the ranking.

A full rankings file (:mod:`kcca._evaluate.rankings_io`) lists every candidate for every query
(about 25 MB per system on Flickr 8K). The compact form keeps what the tables and the report
read, small enough to commit beside the tables (``<SYSTEM>.ranks.npz``, about 60 KB):

* per task, ``gold``: the 1-based rank of each query's original item (R@k and median rank,
  Section 4.3.1, and their significance tests);
* per task, ``top``: the first :data:`DEPTH` candidates of each query, as pool indices (S@k
  for k up to the depth, R-precision when every query has at most ``DEPTH`` relevant items,
  the expert scores and BLEU/ROUGE of the first caption: Sections 4.2 and 4.3.3; the report's
  query browser);
* the pool's query and candidate ids, and the header of the rankings file it came from;
* per task, ``gold_ties`` when the rankings record them: the other candidates sharing the
  original item's score (``kcca evaluate --ties``).

When the file is written with the judgments at hand, the per-query values of every judged
metric are stored too, with the relevance rule and the judgment files' digest: without the data
they give the judged columns of the tables; with it, they give only what needs the whole ranking
(the condensed S@k / R-precision variants and the judging-protocol estimates), and only under
that rule and those judgments. :func:`missing_metrics` names what is absent.

The file is a NumPy ``.npz`` read with ``allow_pickle=False`` (data only, never code).
:func:`read_compact` checks what it holds against itself: integer ranks and candidate indices
in range, no candidate twice in a top list, the original item at its gold rank or outside the
top, each stored metric's values in their range (:data:`METRIC_RULES`), and the header's
aggregates and Table 5 total equal to what the per-query values give.
"""

from __future__ import annotations

import json
import math
import re
import shlex
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from kcca._cache import atomic_write
from kcca.data._documents import parse_json
from kcca.data._errors import DataError
from kcca._evaluate.rankings_io import Rankings, pool_ids
from kcca.errors import type_name
from kcca._names import TASKS

if TYPE_CHECKING:
    from kcca.data._corpus import Corpus
    from kcca._evaluate.system_evaluation import SystemEvaluation

FORMAT = "kcca-compact-rankings"
VERSION = 1
SUFFIX = ".ranks.npz"
#: candidates kept per query: covers S@1/5/10 and R-precision on Flickr 8K (at most 23
#: relevant items per test query)
DEPTH = 25

#: metrics of :func:`kcca._evaluate.system.evaluate_system` that need the whole ranking (stored
#: as per-query values when the file is written with the judgments at hand)
FULL_RANKING_SUFFIXES = (" condensed", " imputed", " bound")

#: stored per-query metrics by name: (pattern, lowest value, highest value, only 0 or 1, may
#: be NaN, factor of the aggregate); the aggregate is ``factor * mean`` (``nanmean`` for the
#: metric that may be NaN: an unjudged first caption's expert score)
METRIC_RULES: tuple[tuple[str, float, float, bool, bool, float], ...] = (
    (r"S@\d+( condensed| bound)?", 0.0, 1.0, True, False, 100.0),
    (r"S@\d+ imputed", 0.0, 1.0, False, False, 100.0),
    (r"R-precision( condensed| imputed)?", 0.0, 1.0, False, False, 100.0),
    (r"expert >?=\d+(\.\d+)?", 0.0, 1.0, True, False, 100.0),
    (r"expert mean", 1.0, 4.0, False, True, 1.0),
    (r"top-1 (BLEU|ROUGE)", 0.0, 1.0, False, False, 1.0),
)
#: relative difference allowed between a header's aggregate and the one recomputed
AGGREGATE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class CompactRankings:
    """A system's compact test results: ``gold[task]`` (n_queries,) 1-based ranks of the
    original items; ``top[task]`` (n_queries, depth) pool candidate indices, best first."""

    system: str
    corpus: str
    split: str
    gold: Mapping[str, np.ndarray]
    top: Mapping[str, np.ndarray]
    query_ids: Mapping[str, list[str]]
    candidate_ids: Mapping[str, list[str]]
    source: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    #: per task, metric -> per-query values of every judged metric (all but R@k and median
    #: rank), computed when the file was written (under ``meta["relevance"]`` and the judgment
    #: files of digest ``meta["judgments"]``): the tables without the data, and the metrics
    #: that need the whole ranking with it
    full_metrics: Mapping[str, Mapping[str, np.ndarray]] = field(default_factory=dict)
    #: per task with a record, the other candidates sharing the original item's score
    gold_ties: Mapping[str, np.ndarray] = field(default_factory=dict)

    @property
    def depth(self) -> int:
        return min((int(t.shape[1]) for t in self.top.values()), default=0)

    @property
    def n_candidates(self) -> int:
        return len(next(iter(self.candidate_ids.values()), []))


def compact_path(rankings_path: str | Path) -> Path:
    """``rankings/BoW5.json`` -> ``rankings/BoW5.ranks.npz``."""
    p = Path(rankings_path)
    return p.with_name(p.name[: -len(p.suffix)] + SUFFIX if p.suffix else p.name + SUFFIX)


def from_rankings(
    rankings: Rankings,
    pool: Sequence[tuple[str, str, str]],
    *,
    corpus: str,
    depth: int = DEPTH,
    evaluation: "SystemEvaluation | None" = None,
    relevance: str = "",
    judgments: str = "",
) -> CompactRankings:
    """The compact form of full rankings over ``pool`` (``Corpus.pool(split)``).

    ``evaluation`` (of the same rankings, by :func:`kcca._evaluate.system.evaluate_system`)
    adds the per-query values of the metrics that need the whole ranking, with the relevance
    rule and the judgment files' digest they were computed under."""
    from kcca._evaluate.original import original_ranks

    gold, top, qids, cids = {}, {}, {}, {}
    for task, r in rankings.tasks.items():
        r = np.asarray(r)
        gold[task] = original_ranks(r).astype(np.int32)
        top[task] = np.ascontiguousarray(r[:, : min(depth, r.shape[1])]).astype(np.int32)
        qids[task], cids[task] = pool_ids(list(pool), task)
    full: dict[str, dict[str, np.ndarray]] = {}
    if evaluation is not None:
        for task, metrics in evaluation.metrics.items():
            full[task] = {
                k: np.asarray(v.values, dtype=float)
                for k, v in metrics.items()
                if not k.startswith("R@") and k != "median rank"
            }
    # ``full`` is non-empty only when ``evaluation`` is given
    meta = (
        {
            "relevance": relevance,
            "judgments": judgments,
            "aggregates": evaluation.table(),  # type: ignore[union-attr]
            "coverage": evaluation.coverage,  # type: ignore[union-attr]
        }
        if full
        else {}
    )
    return CompactRankings(
        rankings.system,
        corpus,
        rankings.split,
        gold,
        top,
        qids,
        cids,
        source=rankings.source,
        meta=meta,
        full_metrics=full,
        gold_ties={t: np.asarray(v, dtype=np.int32) for t, v in rankings.gold_ties.items()},
    )


def write_compact(path: str | Path, compact: CompactRankings) -> Path:
    """Write ``compact`` as a data-only ``.npz`` (deflated) through a temporary file."""
    path = Path(path)
    header: dict = {
        "format": FORMAT,
        "version": VERSION,
        "system": compact.system,
        "corpus": compact.corpus,
        "split": compact.split,
        "tasks": sorted(compact.gold),
        "depth": compact.depth,
        "source": Path(compact.source).name if compact.source else "",
        "relevance": compact.meta.get("relevance", ""),
        "judgments": compact.meta.get("judgments", ""),
        "aggregates": compact.meta.get("aggregates", {}),
        "coverage": compact.meta.get("coverage", {}),
        "source_digest": compact.meta.get("source_digest", ""),
    }
    arrays: dict[str, np.ndarray] = {"header": np.array(json.dumps(header, sort_keys=True))}
    for task in compact.gold:
        arrays[f"{task}/gold"] = np.asarray(compact.gold[task], dtype=np.int32)
        arrays[f"{task}/top"] = np.asarray(compact.top[task], dtype=np.int32)
        arrays[f"{task}/query_ids"] = np.array(compact.query_ids[task], dtype=str)
        arrays[f"{task}/candidate_ids"] = np.array(compact.candidate_ids[task], dtype=str)
        for name, values in compact.full_metrics.get(task, {}).items():
            arrays[f"{task}/metric/{name}"] = np.asarray(values, dtype=float)
        if task in compact.gold_ties:
            arrays[f"{task}/gold_ties"] = np.asarray(compact.gold_ties[task], dtype=np.int32)

    def write(tmp: str) -> None:
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, **arrays)  # type: ignore[arg-type]  # no key is allow_pickle

    return atomic_write(path, write)


def is_compact(path: str | Path) -> bool:
    return str(path).endswith(SUFFIX)


def read_compact(path: str | Path) -> CompactRankings:
    """Read and validate a compact results file; every problem is a :class:`DataError`
    naming the file."""
    path = Path(path)
    fix = _rebuild_fix(path)
    arrays = _load_arrays(path, fix)
    header = _read_header(path, arrays, fix)
    gold, top, qids, cids, ties = {}, {}, {}, {}, {}
    full: dict[str, dict[str, np.ndarray]] = {}
    for task in header.get("tasks", []):
        if task not in TASKS:
            raise DataError(f"{path}: unknown task {task!r}", fix=fix)
        g, t, qids[task], cids[task] = _read_task_arrays(path, task, arrays, fix)
        gold[task], top[task] = g.astype(np.int64), t.astype(np.int64)
        if f"{task}/gold_ties" in arrays:
            ties[task] = _read_gold_ties(path, task, arrays[f"{task}/gold_ties"], g, fix)
        metrics = _read_stored_metrics(path, task, arrays, qids[task], fix)
        if metrics:
            full[task] = metrics
    if not gold:
        raise DataError(f"{path}: no task in the file", fix=fix)
    _check_aggregates(path, header, gold, full, fix)
    return CompactRankings(
        str(header.get("system") or path.name[: -len(SUFFIX)]),
        str(header.get("corpus", "")),
        str(header.get("split", "test")),
        gold,
        top,
        qids,
        cids,
        source=str(path),
        meta=header,
        full_metrics=full,
        gold_ties=ties,
    )


def _load_arrays(path: Path, fix: str) -> dict[str, np.ndarray]:
    """Every array of the ``.npz``, read without pickles."""
    if not path.is_file():
        raise DataError(f"compact results file {path} does not exist")
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise DataError(f"{path}: not a readable compact results file ({exc})", fix=fix) from None


def _read_header(path: Path, arrays: dict[str, np.ndarray], fix: str) -> dict:
    """The JSON header (taken out of ``arrays``), of this format and version."""
    if "header" not in arrays:
        raise DataError(f"{path}: no compact results header", fix=fix)
    try:
        header = parse_json(str(arrays.pop("header")), f"{path} (its header)")
    except DataError as exc:  # not JSON, nested too deeply, ...
        raise DataError(str(exc), fix=fix) from None
    if not isinstance(header, dict):
        raise DataError(
            f"{path}: the compact results header is {type_name(header)}, not a table", fix=fix
        )
    tasks = header.get("tasks", [])
    if not isinstance(tasks, list) or not all(isinstance(t, str) for t in tasks):
        raise DataError(f"{path}: the header's tasks are not a list of task names", fix=fix)
    if header.get("format") != FORMAT:
        raise DataError(f"{path}: format {header.get('format')!r}, expected {FORMAT!r}", fix=fix)
    if header.get("version") != VERSION:
        raise DataError(
            f"{path}: compact results version {header.get('version')!r}; this "
            f"kcca reads version {VERSION}",
            fix=fix,
        )
    return header


def _read_task_arrays(
    path: Path, task: str, arrays: Mapping[str, np.ndarray], fix: str
) -> tuple[np.ndarray, np.ndarray, list[str], list[str]]:
    """A task's gold ranks, top lists, query ids and candidate ids, checked against each
    other: integer ranks and indices in range, no duplicate id, no candidate twice in a top
    list, the original item at its gold rank or outside the top."""
    try:
        g, t = arrays[f"{task}/gold"], arrays[f"{task}/top"]
        q = [str(x) for x in arrays[f"{task}/query_ids"]]
        c = [str(x) for x in arrays[f"{task}/candidate_ids"]]
    except KeyError as exc:
        raise DataError(f"{path}: task {task} lacks the array {exc}", fix=fix) from None
    n, m = len(q), len(c)
    if g.dtype.kind not in "iu" or t.dtype.kind not in "iu":
        raise DataError(
            f"{path}: task {task}: gold ranks ({g.dtype}) and top lists ({t.dtype}) must "
            "be integers",
            fix=fix,
        )
    if g.shape != (n,) or t.ndim != 2 or t.shape[0] != n or not 0 < t.shape[1] <= m:
        raise DataError(
            f"{path}: task {task}: shapes gold {g.shape}, top {t.shape} do not "
            f"fit {n} queries and {m} candidates",
            fix=fix,
        )
    if g.size and (g.min() < 1 or g.max() > m):
        raise DataError(f"{path}: task {task}: a gold rank outside 1..{m}", fix=fix)
    if t.size and (t.min() < 0 or t.max() >= m):
        raise DataError(f"{path}: task {task}: a candidate index outside 0..{m - 1}", fix=fix)
    if len(set(q)) != n or len(set(c)) != m:
        raise DataError(f"{path}: task {task}: duplicate query or candidate ids", fix=fix)
    repeated = np.flatnonzero((np.diff(np.sort(t, axis=1), axis=1) == 0).any(axis=1))
    if repeated.size:
        raise DataError(
            f"{path}: task {task}: query {q[repeated[0]]} has a candidate twice in its top "
            f"{t.shape[1]}",
            fix=fix,
        )
    rows = np.arange(n)
    in_top = g <= t.shape[1]
    if not np.all(t[rows[in_top], g[in_top] - 1] == rows[in_top]) or np.any(
        t[~in_top] == rows[~in_top, None]
    ):
        raise DataError(f"{path}: task {task}: the top lists disagree with the gold ranks", fix=fix)
    return g, t, q, c


def _read_gold_ties(
    path: Path, task: str, tied: np.ndarray, gold: np.ndarray, fix: str
) -> np.ndarray:
    """A task's recorded ties: per query, a count below the original item's rank."""
    n = len(gold)
    if (
        tied.shape != (n,)
        or tied.dtype.kind not in "iu"
        or (n and (tied.min() < 0 or np.any(tied >= gold)))
    ):
        raise DataError(
            f"{path}: task {task}: gold_ties must be {n} counts, each "
            "below the original item's rank",
            fix=fix,
        )
    return tied.astype(np.int64)


def _read_stored_metrics(
    path: Path, task: str, arrays: Mapping[str, np.ndarray], queries: list[str], fix: str
) -> dict[str, np.ndarray]:
    """A task's stored per-query metrics, each of one value per query and in its range."""
    n = len(queries)
    prefix = f"{task}/metric/"
    out: dict[str, np.ndarray] = {}
    for key in [k for k in arrays if k.startswith(prefix)]:
        values = arrays[key]
        if values.shape != (n,) or values.dtype.kind != "f":
            raise DataError(f"{path}: {key} has shape {values.shape}, expected ({n},)", fix=fix)
        _check_metric_values(path, task, key[len(prefix) :], values, queries, fix)
        out[key[len(prefix) :]] = values
    return out


def _rebuild_fix(path: Path) -> str:
    """How to replace a bad compact file: from its rankings file when one is beside it (with
    the data at hand), else from where it came."""
    rankings = path.with_name(path.name[: -len(SUFFIX)] + ".json") if is_compact(path) else None
    if rankings is not None and rankings.is_file():
        return (
            f"write it again from {rankings.name} beside it, with the data at hand "
            f"($KCCA_DATA_DIR): `kcca tables --rankings-dir "
            f"{shlex.quote(str(path.parent))} --out {shlex.quote(str(path.parent.parent))}`"
        )
    return (
        f"restore {path} from where it came (`git checkout -- {shlex.quote(str(path))}` for a "
        "committed file), or delete it to leave its system out of the tables"
    )


def _metric_rule(name: str) -> tuple[str, float, float, bool, bool, float] | None:
    return next((rule for rule in METRIC_RULES if re.fullmatch(rule[0], name)), None)


def _check_metric_values(
    path: Path, task: str, name: str, values: np.ndarray, queries: list[str], fix: str
) -> None:
    """Refuse an unknown stored metric, or a value out of its range (NaN where none may be)."""
    rule = _metric_rule(name)
    if rule is None:
        raise DataError(f"{path}: task {task}: unknown stored metric {name!r}", fix=fix)
    _, low, high, binary, nan_ok, _ = rule
    nan = np.isnan(values)
    bad = (nan & (not nan_ok)) | (~nan & ((values < low) | (values > high)))
    if binary:
        bad |= ~nan & (values != 0) & (values != 1)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        allowed = "0 or 1" if binary else f"in {low:g}..{high:g}" + (" or NaN" if nan_ok else "")
        raise DataError(
            f"{path}: task {task}: {name} of query {queries[k]} is {float(values[k])!r}, "
            f"not {allowed}",
            fix=fix,
        )


def _aggregate(name: str, gold: np.ndarray, full: Mapping[str, np.ndarray]) -> float | None:
    """A metric's aggregate from the per-query values, as :mod:`kcca._evaluate.system` makes it
    (``None``: no per-query values of that name)."""
    recall = re.fullmatch(r"R@(\d+)", name)
    if recall:
        return 100.0 * float((gold <= int(recall.group(1))).astype(float).mean())
    if name == "median rank":
        return float(np.median(gold.astype(float)))
    values = full.get(name)
    rule = _metric_rule(name)
    if values is None or rule is None:
        return None
    if rule[4]:
        judged = ~np.isnan(values)
        return rule[5] * float(np.nanmean(values)) if judged.any() else math.nan
    return rule[5] * float(values.mean())


def _same(stored: object, computed: float) -> bool:
    if not isinstance(stored, (int, float)) or isinstance(stored, bool):
        return False
    if math.isnan(computed) or math.isnan(stored):
        return math.isnan(computed) and math.isnan(stored)
    return math.isclose(stored, computed, rel_tol=AGGREGATE_TOLERANCE, abs_tol=AGGREGATE_TOLERANCE)


def _check_aggregates(
    path: Path,
    header: dict,
    gold: Mapping[str, np.ndarray],
    full: Mapping[str, Mapping[str, np.ndarray]],
    fix: str,
) -> None:
    """The header's aggregates (and Table 5's total) must be what the per-query values give,
    and every stored metric must have its aggregate."""
    aggregates = header.get("aggregates", {})
    if not isinstance(aggregates, dict) or not all(
        isinstance(v, dict) for v in aggregates.values()
    ):
        raise DataError(f"{path}: the header's aggregates are not a table per task", fix=fix)
    for task, table in aggregates.items():
        if task not in gold:
            raise DataError(f"{path}: aggregates of task {task!r}, which the file lacks", fix=fix)
        for name, stored in table.items():
            computed = _aggregate(name, gold[task], full.get(task, {}))
            if computed is None:
                raise DataError(
                    f"{path}: task {task}: an aggregate of {name!r} without its per-query values",
                    fix=fix,
                )
            if not _same(stored, computed):
                raise DataError(
                    f"{path}: task {task}: the header gives {name} = {stored!r}, but the "
                    f"per-query values give {computed!r}",
                    fix=fix,
                )
    for task, metrics in full.items():
        lacking = sorted(set(metrics) - set(aggregates.get(task, {})))
        if lacking:
            raise DataError(
                f"{path}: task {task}: no aggregate in the header for {', '.join(lacking)}",
                fix=fix,
            )
    coverage = header.get("coverage", {})
    if not isinstance(coverage, dict):
        raise DataError(f"{path}: the header's coverage is not a table", fix=fix)
    total = coverage.get("R-precision total (Table 5)")
    if total is not None:
        parts = [aggregates.get(t, {}).get("R-precision") for t in ("annotation", "search")]
        if None in parts or not _same(total, (parts[0] + parts[1]) / 2.0):
            raise DataError(
                f"{path}: the header gives R-precision total (Table 5) = {total!r}, not the "
                "mean of the annotation and search R-precision",
                fix=fix,
            )
    for task, entries in coverage.items():
        if task == "R-precision total (Table 5)":
            continue
        if task not in gold or not isinstance(entries, dict):
            raise DataError(f"{path}: coverage of task {task!r}, which the file lacks", fix=fix)
        for name, value in entries.items():
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            ok = ok and math.isfinite(value) and value >= 0
            if ok and name.endswith(" judged"):
                ok = value <= 1
            if not ok:
                raise DataError(
                    f"{path}: task {task}: coverage {name} = {value!r} is not "
                    + ("a fraction in 0..1" if name.endswith(" judged") else "a count"),
                    fix=fix,
                )


def check_pool(compact: CompactRankings, pool: Sequence[tuple[str, str, str]]) -> None:
    """Refuse a compact file made on another pool than ``pool`` (ids compared in order)."""
    for task in compact.gold:
        queries, candidates = pool_ids(list(pool), task)
        if queries != list(compact.query_ids[task]) or candidates != list(
            compact.candidate_ids[task]
        ):
            raise DataError(
                f"{compact.source}: its {task} pool is not the corpus's "
                f"{compact.split} pool (other ids or order)",
                fix="evaluate it on the corpus and splits it was made on",
            )


def judgments_digest(corpus: "Corpus") -> str:
    """The digest of a corpus's judgment files (expert and crowd; a generated corpus, such as
    the demo's, by its name), recorded with the stored full-ranking metrics."""
    from kcca._fingerprints import files_digest

    files = {
        role: path
        for role, path in (corpus.source_files or {}).items()
        if role in ("expert", "crowd")
    }
    return files_digest(files)[:16] if files else f"generated:{corpus.name}"


def stored_metrics_usable(compact: CompactRankings, rule: str, corpus: "Corpus | None") -> bool:
    """Whether the stored full-ranking metrics hold for relevance ``rule`` and ``corpus``'s
    judgments (without the corpus, the judgments they were computed with are taken as is)."""
    if not compact.full_metrics or compact.meta.get("relevance") != rule:
        return False
    return corpus is None or compact.meta.get("judgments") == judgments_digest(corpus)


def missing_metrics(
    compact: CompactRankings,
    relevant_counts: Mapping[str, np.ndarray] | None = None,
    *,
    stored_usable: bool = False,
) -> list[str]:
    """What the compact file cannot give: the full-ranking metrics (unless stored and usable),
    and R-precision when some query has more relevant items than the depth kept."""
    out = (
        []
        if stored_usable
        else [
            "S@k / R-precision condensed",
            "S@k / R-precision imputed and bound (judging protocol)",
        ]
    )
    for task, counts in (relevant_counts or {}).items():
        if task in compact.top and int(np.max(counts)) > compact.top[task].shape[1]:
            out.append(
                f"{task} R-precision (a query has {int(np.max(counts))} relevant "
                f"items, more than the {compact.top[task].shape[1]} kept)"
            )
    return out
