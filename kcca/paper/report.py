"""Every table and plot of the paper from the rankings files of a folder (``kcca reproduce``).

:func:`write_report` reads each ``*.json`` rankings file of ``rankings_dir``
(:mod:`kcca.evaluate.rankings_io`; the ``system`` field names the system, as in
``kcca.paper.numbers.SYSTEMS``), evaluates it on the corpus's test pool with
:func:`kcca.evaluate.system.evaluate_system` (R@k, median rank; S@k and R-precision from the
crowd judgments under the chosen relevance rule; expert metrics, BLEU and ROUGE of the first
caption), adds the Random baseline of Tables 1-2 (a seeded random permutation per query),
computes the significance tests each table's markers need
(:func:`kcca.paper.tables.needed_comparisons`, :func:`kcca.evaluate.system.compare_systems`),
the judgment-only Tables 8-10 (:mod:`kcca.paper.agreement`), and writes
``table<N>.md`` / ``table<N>.csv`` (:mod:`kcca.paper.tables`) and the PNG plots
(:mod:`kcca.paper.plots`). Systems without a rankings file are left empty and listed.

The same code serves a full ``kcca reproduce`` run (after its systems have written their
rankings) and ``kcca reproduce --tables-only`` (no system is run).
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from kcca.cache import write_text_atomic
from kcca.data.corpus import Corpus
from kcca.data.documents import read_json
from kcca.data.errors import DataError
from kcca.evaluate.formatting import clean_numbers
from kcca.evaluate.original import original_ranks
from kcca.evaluate.rankings_io import Rankings, read_rankings
from kcca.evaluate.results_files import find_results
from kcca.evaluate.system import (
    EvaluationContext,
    SystemEvaluation,
    compare_systems,
    evaluate_system,
)
from kcca.paper import tables as T
from kcca.paper.numbers import SECTION4_NAMES, SYSTEMS, TABLE11, TABLE12

log = logging.getLogger(__name__)

PLOTS = {
    "recall": "recall_at_k.png",
    "ranks": "gold_rank_distribution.png",
    "table6": "table6_heatmap.png",
    "fidelity": "ours_vs_paper.png",
    "table12": "table12_ours_vs_paper.png",
}


@dataclass
class SystemData:
    """One system's test evaluation and the rank of the original item per query and task."""

    name: str
    evaluation: SystemEvaluation
    ranks: dict[str, np.ndarray]
    source: str = ""


@dataclass
class Report:
    """What :func:`write_report` produced."""

    tables: dict[str, T.TableResult]
    files: list[Path] = field(default_factory=list)
    systems: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------ the folder
def paper_name(system: str) -> str:
    """A rankings file's system name as the paper's (Section 4 short names mapped)."""
    return SECTION4_NAMES.get(system, system)


def find_rankings(rankings_dir: str | Path) -> dict[str, Path]:
    """System (paper name) -> results file, for every rankings file of the folder (the newer
    of two for one system), and every compact results file (``*.ranks.npz``,
    :mod:`kcca.evaluate.compact`) of a system without a rankings file there."""
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


def read_details(rankings_dir: str | Path) -> dict[str, dict]:
    """Per system, the run details written beside the rankings (``details.json``)."""
    path = Path(rankings_dir) / "details.json"
    out: dict[str, dict] = {}
    if path.is_file():
        try:
            data = read_json(path)
        except (OSError, DataError) as exc:
            log.warning("%s: %s", path, exc)
            return out
        for d in data if isinstance(data, list) else []:
            if isinstance(d, dict) and "system" in d:
                out[paper_name(str(d["system"]))] = d
    return out


def merge_details(rankings_dir: str | Path, new: Sequence[dict]) -> Path:
    """Add (or replace, by system) entries of ``details.json``; written atomically."""
    path = Path(rankings_dir) / "details.json"
    with _exclusive(path.with_name(path.name + ".lock")):
        merged = read_details(rankings_dir)
        for d in new:
            merged[paper_name(str(d["system"]))] = d
        order = {s: i for i, s in enumerate(SYSTEMS)}
        data = sorted(
            merged.values(),
            key=lambda d: (order.get(paper_name(d["system"]), 99), str(d["system"])),
        )
        write_text_atomic(path, json.dumps(clean_numbers(data), indent=1, default=str))
    return path


@contextlib.contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``lock_path``, so that concurrent ``kcca reproduce``
    processes sharing a rankings folder do not lose each other's ``details.json`` entries."""
    try:
        import fcntl
    except ImportError:  # no POSIX locks (Windows): one process per rankings folder
        yield
        return
    with open(lock_path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def chosen_text(chosen: dict | None) -> str:
    """``p=2, d=3`` for KCCA; the text kernel for NN; '' when unknown."""
    if not chosen:
        return ""
    if "p" in chosen:
        return f"p={chosen['p']:g}, d={chosen['d']:g}"
    tk = chosen.get("text_kernel", {})
    params = tk.get("params") or ""
    return f"NN, text kernel {tk.get('name')} {params}".strip()


def run_text(entry: dict) -> str:
    """The header's account of one system's run: chosen settings, the grid searched, and the
    command and date when recorded."""
    text = chosen_text(entry.get("chosen"))
    grid = (entry.get("spec") or {}).get("grid") or {}
    extra = []
    if "p" in (entry.get("chosen") or {}) and grid.get("p") and grid.get("d"):
        extra.append(
            "searched p in {"
            + ", ".join(f"{v:g}" for v in grid["p"])
            + "}, d in {"
            + ", ".join(f"{v:g}" for v in grid["d"])
            + "}"
        )
    if entry.get("command"):
        extra.append(
            f"run by `{entry['command']}`" + (f" on {entry['date']}" if entry.get("date") else "")
        )
    return text + (f" ({'; '.join(extra)})" if extra and text else "")


def header_runs(entries: dict[str, dict], chosen: dict[str, str]) -> list[str]:
    """The header's two lines on how the systems were run, systems grouped: by the settings
    chosen on dev (and the grid searched), and by the command that ran them (with dates)."""
    settings: dict[str, list[str]] = {}
    commands: dict[str, list[str]] = {}
    dates: dict[str, list[str]] = {}
    for s, c in chosen.items():
        e = entries.get(s) or {}
        text = run_text({k: v for k, v in e.items() if k not in ("command", "date")}) or c
        settings.setdefault(text, []).append(T.short_name(s))
        if e.get("command"):
            commands.setdefault(e["command"], []).append(T.short_name(s))
            if e.get("date"):
                dates.setdefault(e["command"], []).append(str(e["date"]))
    lines = [
        "chosen on dev (frozen): "
        + ("; ".join(f"{k}: {', '.join(v)}" for k, v in settings.items()) or "n/a")
    ]
    if commands:

        def when(cmd: str) -> str:
            d = sorted(dates.get(cmd, []))
            return "" if not d else f" on {d[0]}" if d[0] == d[-1] else f" {d[0]} to {d[-1]}"

        lines.append(
            "run by: "
            + "; ".join(
                f"`{cmd}`{when(cmd)} ({len(v)}): {', '.join(v)}" for cmd, v in commands.items()
            )
        )
    return lines


# ------------------------------------------------------------------------ evaluation
def _system_data(
    name: str, rankings: dict[str, np.ndarray], ctx: EvaluationContext, source: str = ""
) -> SystemData:
    ev = evaluate_system(Rankings(name, ctx.split, rankings), ctx)
    ranks = {t: original_ranks(r) for t, r in rankings.items()}
    return SystemData(name, ev, ranks, source)


def random_rankings(n: int, seed: int) -> dict[str, np.ndarray]:
    """The Random baseline: an independent uniform permutation per query and task (seeded)."""
    rng = np.random.default_rng([seed, 2013])
    return {t: rng.permuted(np.tile(np.arange(n), (n, 1)), axis=1) for t in T.TASKS}


def load_systems(
    files: dict[str, Path], ctx: EvaluationContext, progress: bool = False
) -> tuple[dict[str, SystemData], list[str]]:
    """Read and evaluate each results file (rankings JSON or compact ``.ranks.npz``).

    A compact file that cannot be read (damaged, pickled, inconsistent) is a
    :class:`DataError` naming it; rankings files that cannot be read, and results of another
    pool than the corpus's, are skipped with a reason. With the corpus at hand, the compact
    form of each rankings file is written beside it (:func:`write_compact_beside`)."""
    from kcca.evaluate.compact import is_compact, read_compact
    from kcca.evaluate.system import evaluate_compact

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
        out[name] = _system_data(name, dict(r.tasks), ctx, str(path))
        write_compact_beside(path, r, out[name].evaluation, ctx)
    return out, skipped


def write_compact_beside(
    path: Path, rankings: Rankings, evaluation: SystemEvaluation, ctx: EvaluationContext
) -> Path | None:
    """Write ``<SYSTEM>.ranks.npz`` beside a rankings file, unless one made from the same
    rankings file (by content) under the same relevance rule and judgments is there."""
    from kcca.evaluate.compact import (
        compact_path,
        from_rankings,
        judgments_digest,
        read_compact,
        write_compact,
    )
    from kcca.fingerprints import file_digest

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


def values_of(data: dict[str, SystemData]) -> dict[str, dict[str, dict[str, float]]]:
    """``system -> task -> metric -> aggregate``, judged coverage (percent) and Table 5's total."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for name, d in data.items():
        v = {t: dict(m) for t, m in d.evaluation.table().items()}
        cov = d.evaluation.coverage
        for task in T.TASKS:
            c = cov.get(task, {})
            tv = v.setdefault(task, {})
            for k in (1, 5, 10):
                if f"top-{k} judged" in c:
                    tv[T.COVERAGE[f"top-{k}"]] = 100.0 * c[f"top-{k} judged"]
            if "R-precision judged" in c:
                tv[T.COVERAGE["R-precision"]] = 100.0 * c["R-precision judged"]
            if "top-1 expert judged" in c:
                tv[T.COVERAGE["expert"]] = 100.0 * c["top-1 expert judged"]
        if cov.get("R-precision total (Table 5)") is not None:
            v["total"] = {"R-precision": float(cov["R-precision total (Table 5)"])}
        out[name] = v
    return out


def pvalues_for(
    data: dict[str, SystemData],
    comparisons: Sequence[tuple[str, str, str, str]],
    *,
    n_samples: int,
    seed: int,
) -> dict[tuple[str, str, str, str], tuple[float, str]]:
    """p-values of the pairs, with the paper's test per metric (``compare_systems``)."""
    out = {}
    for key in dict.fromkeys(comparisons):
        a, b, task, metric = key
        pa = data[a].evaluation.metrics.get(task, {}).get(metric)
        pb = data[b].evaluation.metrics.get(task, {}).get(metric)
        if pa is None or pb is None:
            continue
        ea = SystemEvaluation(a, {task: {metric: pa}}, {})
        eb = SystemEvaluation(b, {task: {metric: pb}}, {})
        try:
            res = compare_systems(ea, eb, n_samples=n_samples, seed=seed)[task][metric]
        except DataError as exc:  # e.g. no query judged for both (expert mean)
            log.warning("%s vs %s, %s %s: %s", a, b, task, metric, exc)
            continue
        if res["p"] is not None and not math.isnan(res["p"]):
            out[key] = (float(res["p"]), res["test"])
    return out


# ---------------------------------------------------------------------------- tables
def build_tables(
    tables: Sequence[str],
    data: dict[str, SystemData],
    corpus: Corpus | None,
    *,
    split: str = "test",
    n_samples: int = 100_000,
    seed: int = 0,
    random: SystemData | None = None,
) -> dict[str, T.TableResult]:
    """Every requested table from evaluated systems (and the corpus's judgments for 8-10)."""
    from kcca.paper import agreement

    values = values_of(data)
    all_data = dict(data)
    if random is not None:
        all_data[T.RANDOM] = random
        values.update(values_of({T.RANDOM: random}))
    present = list(all_data)
    comparisons = [c for t in tables for c in T.needed_comparisons(t, present)]
    pvalues = pvalues_for(all_data, comparisons, n_samples=n_samples, seed=seed)
    out: dict[str, T.TableResult] = {}
    cache: dict = {}
    expert = corpus is not None and corpus.expert is not None
    crowd = corpus is not None and corpus.crowd is not None
    for t in tables:
        if t in ("1", "2", "3", "4", "5", "11", "12"):
            vals = values if t in ("1", "2") else {k: v for k, v in values.items() if k != T.RANDOM}
            res = T.system_table(t, vals, pvalues)
        elif t == "6":
            res = T.table6(values, pvalues)
        elif t == "7":
            res = T.table7(
                {k: v for k, v in values.items() if k != T.RANDOM}, agreement.table7_from_paper()
            )
        elif t in ("8", "9", "10"):
            res = _judgment_table(t, corpus, split, expert, crowd, cache)
        else:
            raise ValueError(f"unknown table {t!r}")
        need = T.NEEDS.get(t, "")
        if corpus is None and t in ("8", "9", "10"):
            res.notes = [
                f"needs the {need or 'judgment'} files of the corpus (no data at hand: "
                "set --data-dir or KCCA_DATA_DIR)"
            ]
        elif corpus is None and need:
            res.notes.append(
                f"no corpus data at hand: the {need} columns hold what the "
                "compact results files stored"
                + ("; the Random row's need the data" if t in ("1", "2") else "")
            )
        elif ("expert" in need and not expert) or ("crowd" in need and not crowd):
            res.notes.append(f"the corpus has no {need} judgments: those columns are empty")
        if t in ("1", "2") and random is not None:
            res.notes.append(
                "Random: one uniform random permutation per query (seeded); its "
                "first captions are mostly unjudged by the experts (see the "
                "coverage column), so its expert numbers are lower bounds and "
                "its mean is over the few judged pairs"
            )
        if t in ("1", "2"):
            res.notes.append(
                "expert judgments (ExpertAnnotations.txt) cover the pairs the "
                "paper's systems returned; our first captions that were not "
                "judged count as below every threshold (Table 1) and are left out "
                "of the mean (Table 2): compare with the coverage column"
            )
        out[t] = res
    return out


def _judgment_table(
    t: str, corpus: Corpus | None, split: str, expert: bool, crowd: bool, cache: dict
) -> T.TableResult:
    """Tables 8-10 from the judgment files alone (``kcca.paper.agreement``)."""
    from kcca.paper import agreement

    if not expert or (t == "10" and not crowd):
        need = "expert" if t != "10" else "crowd and expert"
        return T.TableResult(t, [], notes=[f"no {need} judgments: not computed"])
    assert corpus is not None  # expert judgments come with a corpus (build_tables)
    try:
        if t == "10":
            return T.table10(agreement.table10(corpus))
        if "8_9" not in cache:
            cache["8_9"] = T.tables8_9(agreement.tables8_9(corpus, split))
        return cache["8_9"][t]
    except (LookupError, OSError, DataError) as exc:  # e.g. NLTK stop words missing
        return T.TableResult(t, [], notes=[f"not computed: {exc}"])


def _plots(
    out: Path, data: dict[str, SystemData], values: dict, tables: Sequence[str]
) -> list[Path]:
    from kcca.paper import printed as PP
    from kcca.paper import plots

    files = []
    paper: Any  # the paper's figures: by system (Table 11), by metric (12), an array (6)
    cells: dict
    nn = {T.short_name(s) for s in SYSTEMS if s.startswith("NN5_")}  # hollow markers
    t3 = [SECTION4_NAMES[s] for s in PP.TABLE3_SYSTEMS]
    chosen = [s for s in t3 if s in data] or [s for s in SYSTEMS if s in data]
    if chosen and ("3" in tables or "11" in tables):
        ranks = {T.short_name(s): data[s].ranks for s in chosen}
        paper = {T.short_name(s): TABLE11[s] for s in chosen if s in TABLE11}
        files.append(plots.recall_curves(ranks, out / PLOTS["recall"], paper=paper))
        every = {
            T.short_name(s): data[s].ranks
            for s in [*[s for s in SYSTEMS if s in data], *[s for s in data if s not in SYSTEMS]]
        }
        files.append(plots.gold_rank_distribution(every, out / PLOTS["ranks"]))
    if "11" in tables:
        cells = {
            T.short_name(s): {
                task: {
                    m: (values[s][task][m], TABLE11[s][task][m])
                    for m in T.METRICS
                    if m in values[s].get(task, {}) and m in TABLE11[s].get(task, {})
                }
                for task in T.TASKS
            }
            for s in SYSTEMS
            if s in values and s in TABLE11
        }
        if cells:
            files.append(plots.ours_vs_paper(cells, out / PLOTS["fidelity"], nn=nn))
    if "12" in tables:
        # judging-protocol S@k against the paper's; bars from counted S@k to the bound
        cells = {}
        for s in SYSTEMS:
            for task in T.TASKS:
                v, paper = values.get(s, {}).get(task, {}), TABLE12.get(s, {}).get(task, {})
                for m in T.S_METRICS:
                    if m in paper and all(k in v for k in (m, f"{m} imputed", f"{m} bound")):
                        cells.setdefault(T.short_name(s), {}).setdefault(task, {})[m] = (
                            v[f"{m} imputed"],
                            paper[m],
                            v[m],
                            v[f"{m} bound"],
                        )
        if cells:
            files.append(
                plots.ours_vs_paper(
                    cells,
                    out / PLOTS["table12"],
                    nn=nn,
                    metrics=T.S_METRICS,
                    title="Table 12 under the paper's judging protocol: imputed S@k against the "
                    "paper's (bars: counted S@k to the protocol's bound)",
                )
            )
    if "6" in tables:
        shape = (2, len(PP.TABLE6_ROWS), len(PP.TABLE6_COLUMNS))
        ours, paper = np.full(shape, np.nan), np.full(shape, np.nan)
        for ti, task in enumerate(T.TASKS):
            for r, row in enumerate(PP.TABLE6_SYSTEMS):
                for c, s in enumerate(row):
                    v = values.get(s, {}).get(task, {}).get("R-precision")
                    if v is not None:
                        ours[ti, r, c] = v
                    paper[ti, r, c] = PP.table6_paper(r, c, task)[0]
        files.append(
            plots.table6_heatmap(
                ours, paper, out / PLOTS["table6"], rows=PP.TABLE6_ROWS, columns=PP.TABLE6_COLUMNS
            )
        )
    return files


def _plots_of(table: str) -> list[str]:
    if table == "3":
        return [PLOTS["recall"], PLOTS["ranks"]]
    if table == "11":
        return [PLOTS["recall"], PLOTS["ranks"], PLOTS["fidelity"]]
    if table == "6":
        return [PLOTS["table6"]]
    if table == "12":
        return [PLOTS["table12"]]
    return []


def write_report(
    corpus: Corpus | None,
    rankings_dir: str | Path,
    out: str | Path,
    tables: Sequence[str],
    header: Sequence[str],
    *,
    relevance: str = "paper",
    split: str = "test",
    n_samples: int = 100_000,
    seed: int = 0,
    plots: bool = True,
    bleu_rouge: bool = True,
    progress: bool = False,
    extra_chosen: dict[str, str] | None = None,
    systems: Sequence[str] | None = None,
    required: Sequence[str] = (),
) -> Report:
    """Evaluate every rankings file of ``rankings_dir`` and write the tables (and plots).

    ``systems``: only the results of these systems (paper names; None: every results file of
    the folder); ``required``: systems whose results must be there (a :class:`DataError`
    naming the folder's systems otherwise).

    Without the corpus (``corpus=None``: no data at hand) only compact results files are read,
    and the tables hold what they stored (:mod:`kcca.evaluate.compact`); the judgment-only
    Tables 8-10 and the Random baseline's judged columns need the data and are left empty."""
    out = Path(out)
    files = find_rankings(rankings_dir)
    missing = [s for s in map(paper_name, required) if s not in files]
    if missing:
        names = " ".join(map(shlex.quote, missing))
        raise DataError(
            f"{rankings_dir} holds no results of {', '.join(missing)} "
            f"(it holds {', '.join(files) or 'none'})",
            fix=f"run them first (`kcca reproduce --systems {names} --rankings-dir "
            f"{shlex.quote(str(rankings_dir))} --out DIR`), or leave them out",
        )
    if systems is not None:
        wanted = set(map(paper_name, systems))
        files = {s: p for s, p in files.items() if s in wanted}
    out.mkdir(parents=True, exist_ok=True)
    with_br = bleu_rouge and "2" in tables and corpus is not None
    ctx = EvaluationContext(corpus, split, relevance, with_bleu_rouge=with_br)
    notes: list[str] = []
    if with_br:
        try:
            ctx.score_matrix("bleu")
            ctx.score_matrix("rouge")
        except (LookupError, OSError, DataError) as exc:
            ctx.with_bleu_rouge = False
            notes.append(f"BLEU/ROUGE not computed ({exc})")
    data, skipped = load_systems(files, ctx, progress)
    random = None
    n = (
        len(corpus.pool(split))
        if corpus is not None
        else next((len(d.ranks[t]) for d in data.values() for t in d.ranks), 0)
    )
    if {"1", "2"} & set(tables) and n:
        random = _system_data(T.RANDOM, random_rankings(n, seed), ctx, f"seed {seed}")
    results = build_tables(
        tables, data, corpus, split=split, n_samples=n_samples, seed=seed, random=random
    )
    details = read_details(rankings_dir)
    chosen = {s: chosen_text(details.get(s, {}).get("chosen")) for s in data}
    chosen.update(extra_chosen or {})
    chosen = {s: c for s, c in chosen.items() if c}
    rel = ctx.relevance
    head = list(header)
    head.append(
        "relevance rule: "
        + (
            f"{rel.rule.describe()} ({rel.n_added:,} pairs added to "
            f"the {n:,} originals; unjudged "
            "pairs count as not relevant)"
            if rel is not None
            else f"{relevance} (the corpus has no crowd judgments)"
            if corpus is not None
            else f"{relevance}, as stored in the compact results files (no corpus data at hand)"
        )
    )
    head.append(
        f"rankings: {Path(rankings_dir)} ({len(data)} system(s): "
        f"{', '.join(T.short_name(s) for s in data) or 'none'})"
    )
    head += header_runs({s: details.get(s, {}) for s in chosen}, chosen)
    head.append(f"significance: {n_samples:,} randomisation samples, seed {seed}")
    if skipped:
        head.append("skipped rankings files: " + "; ".join(skipped))
    head += notes
    written: list[Path] = []
    values = values_of(data)
    plot_files: list[Path] = []
    if plots and data:
        try:
            plot_files = _plots(out, data, values, tables)
        except ImportError as exc:
            head.append(f"plots not drawn ({exc})")
    drawn = {p.name for p in plot_files}
    short_chosen = dict(chosen)
    short_chosen.update({T.short_name(s): c for s, c in chosen.items()})
    if "11" in tables and data:
        written += _write_fidelity(out, values, head)
    for t in tables:
        res = results[t]
        write_text_atomic(out / f"table{t}.csv", T.to_csv(res.rows))
        md = T.to_markdown(
            t,
            res.rows,
            head,
            short_chosen,
            res.notes,
            res.missing,
            [p for p in _plots_of(t) if p in drawn],
        )
        write_text_atomic(out / f"table{t}.md", md)
        written += [out / f"table{t}.md", out / f"table{t}.csv"]
    return Report(results, written + plot_files, list(data), skipped)


def _write_fidelity(out: Path, values: dict, head: list[str]) -> list[Path]:
    """``fidelity.md`` / ``fidelity.json``: the reproduction's targets, checked
    (:mod:`kcca.paper.fidelity`); nothing when no system of the paper was run."""
    from kcca.paper import fidelity as F

    systems = F.present_systems(values)
    if not systems:
        return []
    checks = F.fidelity_checks(values)
    md, js = out / "fidelity.md", out / "fidelity.json"
    write_text_atomic(md, F.to_markdown(checks, head, systems))
    write_text_atomic(js, json.dumps(clean_numbers(F.to_json(checks)), indent=1))
    return [md, js]


def describe(report: Report) -> str:
    """One line per table for the console."""
    lines = []
    for t, res in report.tables.items():
        filled = len({r.system for r in res.rows})
        lines.append(
            f"table {t}: {len(res.rows)} cells, {filled} row group(s)"
            + (f", {len(res.missing)} system(s) not run" if res.missing else "")
        )
    return "\n".join(lines)
