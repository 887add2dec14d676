"""Every table and plot of the paper from the results files of a folder (``kcca reproduce``).

:func:`write_report` reads each system's results file of ``rankings_dir`` (rankings files,
:mod:`kcca._evaluate.rankings_io`, or compact results files, :mod:`kcca._evaluate.compact`; the
``system`` field names the system, as in ``kcca._paper.numbers.SYSTEMS``), evaluates it on the
corpus's test pool (:mod:`kcca._paper.evaluated_systems`: R@k, median rank; S@k and
R-precision from the crowd judgments under the chosen relevance rule; expert metrics, BLEU and
ROUGE of the first caption), adds the Random baseline of Tables 1-2
(:mod:`kcca._paper.random_baseline`), builds the tables with their significance tests and the
judgment-only Tables 8-10 (:mod:`kcca._paper.table_building`), and writes ``table<N>.md`` /
``table<N>.csv`` (:mod:`kcca._paper.tables`), the figures (:mod:`kcca._paper.figures`) and the
fidelity checks (:mod:`kcca._paper.fidelity`). Each table's header says how the systems were
run (:mod:`kcca._paper.runs_header`, from ``details.json``). Systems without a results file are
left empty and listed.

The same code serves a full ``kcca reproduce`` run (after its systems have written their
rankings) and ``kcca tables`` (no system is run).
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from kcca._cache import write_text_atomic
from kcca.data._corpus import Corpus
from kcca.data._errors import DataError
from kcca._evaluate.formatting import clean_numbers
from kcca._evaluate.paper_systems import paper_name
from kcca._evaluate.results_files import chosen_text, read_details
from kcca._evaluate.system import EvaluationContext
from kcca._paper import tables as T
from kcca._paper.evaluated_systems import SystemData, load_systems, results_by_system
from kcca._paper.figures import draw_figures, figures_of
from kcca._paper.random_baseline import random_system
from kcca._paper.runs_header import header_runs
from kcca._paper.table_building import build_tables, values_of


@dataclass
class Report:
    """What :func:`write_report` produced."""

    tables: dict[str, T.TableResult]
    files: list[Path] = field(default_factory=list)
    systems: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    #: rows of the all-captions protocol's table (0: no system was run with it)
    all_captions_rows: int = 0


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
    """Evaluate every results file of ``rankings_dir`` and write the tables (and plots).

    ``systems``: only the results of these systems (paper names; None: every results file of
    the folder); ``required``: systems whose results must be there (a :class:`DataError`
    naming the folder's systems otherwise).

    Without the corpus (``corpus=None``: no data at hand) only compact results files are read,
    and the tables hold what they stored (:mod:`kcca._evaluate.compact`); the judgment-only
    Tables 8-10 and the Random baseline's judged columns need the data and are left empty."""
    out = Path(out)
    files = _results_files(rankings_dir, systems, required)
    out.mkdir(parents=True, exist_ok=True)
    ctx, notes = _evaluation_context(corpus, split, relevance, tables, bleu_rouge)
    data, skipped = load_systems(files, ctx, progress)
    n = _pool_size(corpus, split, data)
    random = random_system(n, seed, ctx) if {"1", "2"} & set(tables) and n else None
    results = build_tables(
        tables, data, corpus, split=split, n_samples=n_samples, seed=seed, random=random
    )
    details = read_details(rankings_dir)
    chosen = _chosen_settings(data, details, extra_chosen)
    head = [
        *header,
        _relevance_line(ctx, relevance, corpus, n),
        f"rankings: {Path(rankings_dir)} ({len(data)} system(s): "
        f"{', '.join(T.short_name(s) for s in data) or 'none'})",
        *header_runs({s: details.get(s, {}) for s in chosen}, chosen),
        f"significance: {n_samples:,} randomisation samples, seed {seed}",
    ]
    if skipped:
        head.append("skipped rankings files: " + "; ".join(skipped))
    head += notes
    values = values_of(data)
    plot_files = _draw(out, data, values, tables, head) if plots and data else []
    written: list[Path] = []
    if "11" in tables and data:
        written += _write_fidelity(out, values, head)
    written += _write_tables(out, tables, results, head, chosen, {p.name for p in plot_files})
    loaded = {s: files[s] for s in data if s in files}
    pool = list(corpus.split(split)) if corpus is not None else None
    protocol_files, protocol_rows = _write_all_captions(out, loaded, head, pool)
    return Report(
        results, written + protocol_files + plot_files, list(data), skipped, protocol_rows
    )


def _results_files(
    rankings_dir: str | Path, systems: Sequence[str] | None, required: Sequence[str]
) -> dict[str, Path]:
    """System (paper name) -> results file of the folder, of ``systems`` (None: every one);
    a :class:`DataError` when a ``required`` system has none."""
    files = results_by_system(rankings_dir)
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
    return files


def _evaluation_context(
    corpus: Corpus | None, split: str, relevance: str, tables: Sequence[str], bleu_rouge: bool
) -> tuple[EvaluationContext, list[str]]:
    """The judgments of the pool, shared by every system; BLEU / ROUGE of every pool pair
    only for Table 2 and with the corpus (the header's note says why when they fail)."""
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
    return ctx, notes


def _pool_size(corpus: Corpus | None, split: str, data: dict[str, SystemData]) -> int:
    """Items in the pool: the corpus's, else the results' (0 when neither is at hand)."""
    if corpus is not None:
        return len(corpus.pool(split))
    return next((len(d.ranks[t]) for d in data.values() for t in d.ranks), 0)


def _chosen_settings(
    data: dict[str, SystemData], details: dict[str, dict], extra: dict[str, str] | None
) -> dict[str, str]:
    """System -> its settings chosen on dev (``details.json``, then ``extra``), when known."""
    chosen = {s: chosen_text(details.get(s, {}).get("chosen")) for s in data}
    chosen.update(extra or {})
    return {s: c for s, c in chosen.items() if c}


def _relevance_line(ctx: EvaluationContext, relevance: str, corpus: Corpus | None, n: int) -> str:
    """The header's relevance rule (Section 4.3.3) and how many pairs it adds."""
    rel = ctx.relevance
    return "relevance rule: " + (
        f"{rel.rule.describe()} ({rel.n_added:,} pairs added to "
        f"the {n:,} originals; unjudged "
        "pairs count as not relevant)"
        if rel is not None
        else f"{relevance} (the corpus has no crowd judgments)"
        if corpus is not None
        else f"{relevance}, as stored in the compact results files (no corpus data at hand)"
    )


def _draw(
    out: Path, data: dict[str, SystemData], values: dict, tables: Sequence[str], head: list[str]
) -> list[Path]:
    """The figures of the tables; without matplotlib none, and the header says so."""
    try:
        return draw_figures(out, data, values, tables)
    except ImportError as exc:
        head.append(f"plots not drawn ({exc})")
        return []


def _write_tables(
    out: Path,
    tables: Sequence[str],
    results: dict[str, T.TableResult],
    head: list[str],
    chosen: dict[str, str],
    drawn: set[str],
) -> list[Path]:
    """``table<N>.csv`` and ``table<N>.md`` of each table, the latter with the header, the
    settings chosen per system, the table's notes and its figures among those ``drawn``."""
    short_chosen = dict(chosen)
    short_chosen.update({T.short_name(s): c for s, c in chosen.items()})
    written: list[Path] = []
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
            [p for p in figures_of(t) if p in drawn],
        )
        write_text_atomic(out / f"table{t}.md", md)
        written += [out / f"table{t}.md", out / f"table{t}.csv"]
    return written


def _write_fidelity(out: Path, values: dict, head: list[str]) -> list[Path]:
    """``fidelity.md`` / ``fidelity.json``: the reproduction's targets, checked
    (:mod:`kcca._paper.fidelity`); nothing when no system of the paper was run."""
    from kcca._paper import fidelity as F

    systems = F.present_systems(values)
    if not systems:
        return []
    checks = F.fidelity_checks(values)
    md, js = out / "fidelity.md", out / "fidelity.json"
    write_text_atomic(md, F.to_markdown(checks, head, systems))
    write_text_atomic(js, json.dumps(clean_numbers(F.to_json(checks)), indent=1))
    return [md, js]


def _write_all_captions(
    out: Path, files: dict[str, Path], head: list[str], image_ids: list[str] | None
) -> tuple[list[Path], int]:
    """``all-captions.md`` / ``all-captions.csv``: the literature's protocol for the systems
    run with it (:mod:`kcca._evaluate.protocol_table`; each ranks file must rank the pool's
    ``image_ids`` when they are known), and their rows. When none was, the pair an earlier
    run wrote to ``out`` is removed (only files that read as this table), so no table of
    another run stays beside these."""
    from kcca._evaluate.protocol_table import (
        is_protocol_table,
        protocol_csv,
        protocol_markdown,
        protocol_rows,
        ranks_beside,
    )

    md, csv = out / "all-captions.md", out / "all-captions.csv"
    ranked = ranks_beside(files, image_ids)
    if not ranked:
        for path in (md, csv):
            if is_protocol_table(path):
                path.unlink()
        return [], 0
    rows = protocol_rows([(T.short_name(s), r) for s, r in ranked])
    write_text_atomic(md, protocol_markdown(rows, head))
    write_text_atomic(csv, protocol_csv(rows))
    return [md, csv], len(rows)


def ran_paper_system(res: T.TableResult) -> bool:
    """Whether a table holds a row of one of the paper's systems (Random aside): only then
    does the count of its systems not run say something (a run of systems of one's own runs
    none of the paper's)."""
    paper = {T.display_name(s, res.table) for s in T.table_systems(res.table) if s != T.RANDOM}
    return any(r.system in paper for r in res.rows)


def describe(report: Report) -> str:
    """One line per table for the console; the count of the paper's systems not run only where
    some of them were (:func:`ran_paper_system`)."""
    lines = []
    for t, res in report.tables.items():
        filled = len({r.system for r in res.rows})
        not_run = res.missing and ran_paper_system(res)
        lines.append(
            f"table {t}: {len(res.rows)} cells, {filled} row group(s)"
            + (f", {len(res.missing)} system(s) not run" if not_run else "")
        )
    if report.all_captions_rows:
        lines.append(f"all-captions protocol: {report.all_captions_rows} row(s) in all-captions.md")
    return "\n".join(lines)
