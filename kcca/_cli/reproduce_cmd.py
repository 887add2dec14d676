"""``kcca reproduce``: run the paper's systems on Flickr 8K and write every table beside the paper.

Each system is an experiment file of ``experiments/hodosh2013`` (:mod:`kcca._systems.spec`), run
by :func:`kcca._systems.run_system` (every stage cached, so an interrupted run resumes), locally
one after the other, on ``--jobs`` local worker processes (joblib), or, with ``--scheduler
ADDRESS``, as independent tasks on a Dask cluster (:mod:`kcca._systems.distributed`). Each
system's rankings file goes to ``--rankings-dir`` (default ``<out>/rankings``, read by ``kcca
evaluate``) and its run details are merged into ``details.json`` there.

The tables are then rebuilt from *every* rankings file of that folder
(:mod:`kcca._paper.report`), so they fill in as more systems finish; ``kcca tables``
(:mod:`kcca._cli.tables_cmd`, :func:`build_tables`) does just that, without running anything
(``--tables-only`` is the same, and says so). For each table (1-12) the command
writes ``table<N>.md`` (a header with the command, data, date, commit, machine, relevance
rule, the p and d chosen on dev per system and the systems not run; ``ours (paper)`` per cell
with significance markers computed from our per-query results by the paper's test) and
``table<N>.csv`` (tidy: ``table,system,task,metric,ours,paper,ours_sig,paper_sig,p_value,
test``), plus PNG plots: R@k curves, the distribution of the original item's rank, and a
Table 6 heat map.

A run into a folder of committed results (``--out results/hodosh2013``,
:func:`kcca._provenance.committed_results`) is refused while the code has local changes, unless
``--allow-dirty`` is given; the header's commit line then names the changed files and the
hash of their ``git diff HEAD``.

Rarer settings (``image_features``, ``precision``, ``search_rank``) are set in the ``[run]``
table of the experiment folder's ``run.toml`` (:func:`kcca._systems.config.load_run_table`);
their flags (``--image-config``, ``--precision``, ``--search-rank``) are still accepted, but
left out of ``--help``.
"""

from __future__ import annotations

import argparse
import logging
import shlex
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from kcca._cli.common import (
    add_backend_argument,
    add_experiments_arguments,
    add_grid_arguments,
    add_precision_argument,
    add_protocol_argument,
    add_relevance_argument,
    add_scheduler_argument,
    backend_from_args,
    cache_from_args,
    check_grid_flags,
    data_dir_from_args,
    run_config_from_args,
    subparser,
)
from kcca._cli.environment_faults import check_outputs
from kcca._cli.lines import with_path, wrap
from kcca.errors import DataError

if TYPE_CHECKING:
    from kcca._systems.config import Execution

log = logging.getLogger(__name__)

HELP = "run the paper's systems and write every table beside the paper's numbers"


def add_parser(sub) -> argparse.ArgumentParser:
    p = subparser(sub, "reproduce", HELP, run)
    p.epilog = (
        "Rarer settings (the image features' codebooks, the solver's precision, the search "
        "rank) go in the [run] table of run.toml in --experiments (docs/reproduction.md). "
        "`kcca tables` rebuilds the tables from existing rankings files (formerly "
        "`kcca reproduce --tables-only`, still accepted)."
    )
    # `kcca tables` under its former name: it says so, then does the same
    p.add_argument("--tables-only", action="store_true", help=argparse.SUPPRESS)
    add_table_arguments(
        p,
        systems="systems to run (paper or short names; default: every system the tables need)",
        force="rewrite the tables of an --out folder that already holds some (refused without it)",
    )
    p.add_argument(
        "--images-dir",
        default=None,
        help="image folder of a --corpus JSON file (leave it out for systems whose image "
        "kernel reads vectors files only)",
    )
    add_scheduler_argument(
        p,
        "image features on the cluster, then every system as its own task there (workers "
        "must see the data and cache folders at the same paths)",
    )
    add_grid_arguments(p, "every system's", "recorded in the header")
    # set in run.toml's [run] table (image_features, search_rank, precision); the flags stay
    # for the commands written in the docs and experiment files, hidden from --help
    p.add_argument("--image-config", default=None, help=argparse.SUPPRESS)
    p.add_argument("--search-rank", type=int, default=None, help=argparse.SUPPRESS)
    add_protocol_argument(p)
    add_backend_argument(p, "the kernels and the KCCA solver")
    add_precision_argument(p, hidden=True)
    return p


def add_table_arguments(p: argparse.ArgumentParser, systems: str, force: str) -> None:
    """The flags of table building, which ``kcca reproduce`` and ``kcca tables`` share:
    ``--tables``, ``--systems`` (``systems``: its help), ``--experiments``, ``--splits``,
    ``--corpus``, ``--out``, ``--rankings-dir``, ``--relevance``,
    ``--samples``, ``--no-plots``, ``--force`` (``force``: its help), ``--allow-dirty``."""
    p.add_argument(
        "--tables",
        default="all",
        help="tables to write: 'all' (default) or comma-separated numbers 1-12",
    )
    p.add_argument("--systems", nargs="+", default=None, help=systems)
    add_experiments_arguments(p, "folder of experiment files")
    add_corpus_argument(p)
    p.add_argument("--out", default="results/hodosh2013", help="output folder")
    p.add_argument(
        "--rankings-dir",
        default=None,
        help="where rankings files go and are read from (default <out>/rankings)",
    )
    add_relevance_argument(
        p,
        "crowd relevance rule for S@k and R-precision (default paper: fraction "
        "yes >= 1/2, which reproduces the paper's counts)",
    )
    p.add_argument(
        "--samples",
        type=int,
        default=100_000,
        help="randomisation-test samples for the significance markers (default "
        "100,000, as the paper)",
    )
    p.add_argument("--no-plots", action="store_true", help="write the tables only")
    p.add_argument("--force", action="store_true", help=force)
    p.add_argument(
        "--allow-dirty",
        action="store_true",
        help="write into a folder of committed results (such as results/hodosh2013) although "
        "the code has local changes (refused without it; the header names the changed files "
        "and the hash of their diff)",
    )


def add_corpus_argument(p: argparse.ArgumentParser) -> None:
    """``--corpus``: Flickr 8K, or a corpus in the JSON split format."""
    p.add_argument(
        "--corpus",
        default="flickr8k",
        help="flickr8k (default, from the data folder) or a JSON split file in Karpathy's "
        "format (dataset_flickr30k.json, dataset_coco.json: 'val' is the dev split, 'restval' "
        "joins train); the paper's judged tables need Flickr 8K's judgments",
    )


def load_with_splits(data_dir: Path, splits_dir: str | None, *, images: bool = True):
    """:func:`kcca.data._flickr8k.load_flickr8k_with_splits` (the corpus of ``--splits``)."""
    from kcca.data._flickr8k import load_flickr8k_with_splits

    return load_flickr8k_with_splits(data_dir, splits_dir, images=images)


def json_corpus_file(args: argparse.Namespace) -> str | None:
    """``--corpus FILE.json`` (None: Flickr 8K); ``--splits`` and ``--images-dir`` are
    checked against it."""
    if args.corpus == "flickr8k":
        if args.images_dir:
            raise DataError(
                "--images-dir names the image folder of a JSON split file given with --corpus; "
                "Flickr 8K's images are read from the data folder",
                fix="drop --images-dir, or add --corpus FILE.json",
            )
        return None
    if not args.corpus.endswith(".json"):
        raise DataError(
            f"--corpus {args.corpus}: use flickr8k or a JSON split file (Karpathy's "
            "dataset_flickr30k.json, dataset_coco.json: kcca.data._json_splits)",
            fix="give --corpus flickr8k or the path of a .json split file",
        )
    if args.splits:
        raise DataError(
            "--splits replaces Flickr 8K's split files; a JSON split file carries its own splits",
            fix="drop --splits, or edit the 'split' of each image in the JSON file",
        )
    return args.corpus


def load_run_corpus(args: argparse.Namespace, data_dir: Path | None, *, images: bool = True):
    """The corpus of the run: ``--corpus FILE.json`` (with ``--images-dir``), else Flickr 8K
    from ``data_dir`` with ``--splits``."""
    corpus_file = json_corpus_file(args)
    if corpus_file is not None:
        from kcca.data._json_splits import load_json_splits

        return load_json_splits(
            corpus_file, args.images_dir if images else None, require_splits=True
        )
    assert data_dir is not None  # Flickr 8K is read from the data folder
    return load_with_splits(data_dir, args.splits, images=images)


def _executor(execution: Execution, cache_enabled: bool, n_specs: int) -> str:
    """``"dask"`` with a scheduler (``--scheduler``, or ``executor = "dask"`` and its
    ``scheduler`` in ``run.toml``); ``"processes"`` for several systems on several workers
    (``--jobs``, -1: every core) sharing a cache; else ``"serial"`` (without a cache the
    workers could not share the image features and kernel blocks)."""
    from joblib import effective_n_jobs

    jobs = execution.jobs
    if execution.scheduler:
        return "dask"
    if not cache_enabled:
        if jobs not in (None, 1):
            log.info(
                "--no-cache: systems run one after another (workers share work through the cache)"
            )
        return "serial"
    return "processes" if effective_n_jobs(jobs or 1) > 1 and n_specs > 1 else "serial"


def _scheduler(args: argparse.Namespace, experiments: Path, run_table: dict) -> str | None:
    """The address of the Dask scheduler that answers there: ``--scheduler``, else the
    ``scheduler`` of ``experiments/run.toml`` where it chooses ``executor = "dask"``; None
    for a run on this machine. A file's missing or unreachable address is named with it."""
    from kcca._systems.config import RUN_FILE
    from kcca._workers import check_scheduler

    if args.scheduler:
        check_scheduler(args.scheduler)
        return args.scheduler
    if run_table.get("executor") != "dask":
        return None
    path = experiments / RUN_FILE
    fix = (
        f'write scheduler = "tcp://HOST:8786" (the address `dask scheduler` prints, the '
        f"scheduler started first) in the [run] table of {path}, or pass --scheduler ADDRESS"
    )
    address = run_table.get("scheduler")
    if not isinstance(address, str) or not address.strip():
        raise DataError(
            f'{path}: [run] executor = "dask" needs the scheduler\'s address, got '
            f"scheduler = {address!r}",
            fix=fix,
        )
    try:
        check_scheduler(address)
    except DataError as exc:
        raise DataError(f"{path}: [run] {exc}", fix=fix) from None
    return address


def _command() -> str:
    return f"kcca {' '.join(map(shlex.quote, sys.argv[1:]))}"


def optional_data_dir(args: argparse.Namespace) -> Path | None:
    """The data folder for ``kcca tables``: given or configured ones must exist; none at all
    means the tables come from the compact results files alone."""
    import os

    from kcca.data._paths import DATA_DIR_ENV

    if args.data_dir is None and not os.environ.get(DATA_DIR_ENV):
        return None
    return data_dir_from_args(args)


def _refuse_overwrite(
    out: Path,
    args: argparse.Namespace,
    why: str = "this run would rewrite them from the rankings files there",
    elsewhere: str = "`--out DIR` (e.g. `--out kcca-reproduce-out`)",
) -> None:
    """A run never silently rewrites tables it did not make: refuse an ``--out`` that already
    holds tables unless ``--force`` is given."""
    tables = sorted(p.name for p in out.glob("table*.md")) if out.is_dir() else []
    if tables and not args.force:
        shown = ", ".join(tables[:3]) + (", ..." if len(tables) > 3 else "")
        raise DataError(
            f"--out {out} already holds tables ({shown}); {why}",
            fix=f"write elsewhere with {elsewhere}, or add `--force` to rewrite the tables of "
            f"{out}",
        )


def _refuse_dirty_tree(out: Path, args: argparse.Namespace) -> None:
    """Tables meant for committing come from committed code: an ``--out`` of committed results
    is refused while tracked files have local changes, unless ``--allow-dirty`` is given."""
    from kcca._provenance import committed_results, source_state, source_tree

    why = committed_results(out)
    if why is None or args.allow_dirty:
        return
    state = source_state()
    if not state.dirty:
        return
    shown = ", ".join(state.files[:5]) + (", ..." if len(state.files) > 5 else "")
    raise DataError(
        f"--out {out} holds committed results ({why}), but the code has local changes "
        f"({len(state.files)} file(s): {shown}), so its tables would name no commit that "
        "made them",
        fix=f"commit the changes first (`git -C {shlex.quote(str(source_tree()))} status` "
        "lists them), write elsewhere with "
        "`--out kcca-reproduce-out`, or add `--allow-dirty` (the header then names the "
        "changed files and the hash of their diff)",
    )


#: flags that change how systems run, which --tables-only (no system runs) would ignore
RUN_ONLY_FLAGS = ("p", "d", "image_config", "search_rank", "precision", "scheduler")


def _refuse_run_flags(args: argparse.Namespace) -> None:
    """``--tables-only`` runs no system: a flag that only changes a run is refused, not dropped."""
    given = [f"--{name.replace('_', '-')}" for name in RUN_ONLY_FLAGS if getattr(args, name)]
    if args.backend != "auto":
        given.append("--backend")
    if args.protocol != "paper":
        given.append("--protocol")
    if given:
        raise DataError(
            f"--tables-only runs no system, so {', '.join(given)} would change nothing",
            fix=f"drop {', '.join(given)}, or run the systems (leave out --tables-only)",
        )


def _tables_only_systems(args: argparse.Namespace) -> list[str] | None:
    """The systems whose results ``kcca tables`` reads: those of ``--systems`` (paper or
    short names, looked up in ``--experiments``' files; each must have results), else the
    systems of ``--experiments`` that have results, else (None: neither given) every results
    file."""
    if not (args.systems or args.experiments):
        return None
    from kcca._systems import load_specs, select_specs
    from kcca._systems.spec import default_experiments_dir

    specs = load_specs(args.experiments or default_experiments_dir())
    return [s.name for s in select_specs(specs, args.systems)]


def _tables_only_inputs(args: argparse.Namespace, out: Path, rank_dir: Path):
    """``kcca tables``: the corpus (None without the data: the tables come from the compact
    results files) and the header lines saying how the tables were rebuilt."""
    from kcca._paper.header import rebuild_lines

    if not rank_dir.is_dir():
        raise DataError(
            f"no rankings folder {rank_dir} to build the tables from",
            fix="run systems first (`kcca reproduce --systems BoW5 --out "
            f"{shlex.quote(str(out))}`), or give the folder of the results "
            "with --rankings-dir DIR",
        )
    data_dir = optional_data_dir(args)
    if data_dir is None and args.splits:
        raise DataError(
            "--splits names Flickr 8K split files, but without the data the tables are "
            "rebuilt from the compact results files alone, so the split files would be "
            "neither read nor checked",
            fix="give the data folder (--data-dir DIR or KCCA_DATA_DIR) with --splits, "
            "or drop --splits",
        )
    if data_dir is None:
        _refuse_overwrite(
            out,
            args,
            "without the data Tables 8-10 and the Random row's judged columns would be left empty",
            f"`--rankings-dir {shlex.quote(str(rank_dir))} --out DIR`",
        )
    check_outputs(args, ("--out", out, True), cache=False)
    corpus = (
        load_run_corpus(args, data_dir, images=False)
        if data_dir is not None or json_corpus_file(args)
        else None
    )
    if corpus is None:
        print(
            wrap(
                "note: no corpus data at hand, so the tables are rebuilt from the compact "
                "results files; Tables 8-10 and the Random row's judged columns need the "
                "data (--data-dir or KCCA_DATA_DIR) and are left empty"
            )
        )
    return corpus, rebuild_lines(with_corpus=corpus is not None)


def _run_experiments(
    args: argparse.Namespace, out: Path, rank_dir: Path, tables, backend: str, start: float
):
    """Run the systems the tables (or ``--systems``) need: every experiment file and flag is
    checked before the data is read. Returns the corpus, the header lines of the run and
    the systems that failed."""
    from kcca._paper.header import run_lines as lines_of_run
    from kcca._paper.tables import table_systems
    from kcca._systems import Workspace, load_specs, select_specs
    from kcca._systems.config import load_run_table
    from kcca._systems.run import run_systems
    from kcca._systems.spec import default_experiments_dir

    corpus_file = json_corpus_file(args)
    # a JSON corpus reads no data folder (but its NLTK data, when there is one)
    data_dir = optional_data_dir(args) if corpus_file else data_dir_from_args(args)
    experiments = args.experiments or default_experiments_dir()
    specs = load_specs(experiments)
    run_table = load_run_table(experiments)  # every file of the folder checked before data
    needed = args.systems or [
        s for s in dict.fromkeys(n for t in tables for n in table_systems(t)) if s != "Random"
    ]
    check_grid_flags(args)
    chosen_specs = [s.with_grid(p=args.p, d=args.d) for s in select_specs(specs, needed)]
    _refuse_overwrite(out, args)
    check_outputs(args, ("--out", out, True), ("--rankings-dir", rank_dir, True))
    scheduler = _scheduler(args, Path(experiments), run_table)
    corpus = load_run_corpus(args, data_dir)
    cache = cache_from_args(args)
    config = run_config_from_args(
        args,
        run_table,
        backend=backend,
        scheduler=scheduler,
        data_dir=str(data_dir) if data_dir is not None else None,
        splits=args.splits,
        corpus_file=str(Path(corpus_file).resolve()) if corpus_file else None,
        images_dir=str(Path(args.images_dir).resolve()) if args.images_dir else None,
    )
    config = config.replace(executor=_executor(config.execution, cache.enabled, len(chosen_specs)))
    ws = Workspace(corpus, cache, config)
    stream = sys.stderr if args.quiet else sys.stdout
    failed = run_systems(
        chosen_specs,
        corpus,
        ws,
        rank_dir,
        command=_command(),
        on_result=lambda line: print(wrap(line, continuation="    "), file=stream),
        on_failure=lambda line: print(wrap(line, continuation="    "), file=sys.stderr),
    )
    run_lines = lines_of_run(
        config,
        [s.label for s in chosen_specs],
        (time.perf_counter() - start) / 60,
        failed=failed,
        grid={"p": args.p, "d": args.d},
    )
    return corpus, run_lines, failed


#: the note ``kcca reproduce --tables-only`` prints on standard error
TABLES_ONLY_NOTE = (
    "note: `kcca tables` is the command now for `kcca reproduce --tables-only` "
    "(the same table flags)"
)


def run(args: argparse.Namespace) -> int:
    if args.tables_only:
        print(TABLES_ONLY_NOTE, file=sys.stderr)
        _refuse_run_flags(args)
        return build_tables(args)
    from kcca._paper.tables import parse_tables

    tables = parse_tables(args.tables)
    out = Path(args.out)
    rank_dir = Path(args.rankings_dir) if args.rankings_dir else out / "rankings"
    _refuse_dirty_tree(out, args)
    backend = backend_from_args(args)  # a backend the machine lacks is named before any data
    start = time.perf_counter()
    corpus, run_lines, failed = _run_experiments(args, out, rank_dir, tables, backend, start)
    _write_tables(args, out, rank_dir, tables, corpus, run_lines)
    return 1 if failed else 0


def build_tables(args: argparse.Namespace) -> int:
    """Rebuild the tables and plots from the rankings files in ``--rankings-dir``, running no
    system (``kcca tables``, and ``kcca reproduce --tables-only``)."""
    from kcca._paper.tables import parse_tables

    tables = parse_tables(args.tables)
    out = Path(args.out)
    rank_dir = Path(args.rankings_dir) if args.rankings_dir else out / "rankings"
    _refuse_dirty_tree(out, args)
    selected = _tables_only_systems(args)  # the experiment files checked before the data
    required = (selected or []) if args.systems else []
    corpus, run_lines = _tables_only_inputs(args, out, rank_dir)
    _write_tables(args, out, rank_dir, tables, corpus, run_lines, selected, required)
    return 0


def _write_tables(
    args: argparse.Namespace,
    out: Path,
    rank_dir: Path,
    tables,
    corpus,
    run_lines: list[str],
    selected: list[str] | None = None,
    required: list[str] | None = None,
) -> None:
    """Write the tables and plots of every results file of ``rank_dir`` (``selected``: those
    systems only; ``required``: systems whose results must be there) into ``out``."""
    from kcca._paper.header import table_header
    from kcca._paper.report import describe, write_report

    header = table_header(_command(), corpus, run_lines, splits=args.splits)
    report = write_report(
        corpus,
        rank_dir,
        out,
        tables,
        header,
        relevance=args.relevance,
        n_samples=args.samples,
        seed=args.seed,
        plots=not args.no_plots,
        progress=not args.quiet,
        systems=selected,
        required=required or [],
    )
    print(describe(report))
    print(with_path(f"wrote {len(report.files)} files to ", out))
