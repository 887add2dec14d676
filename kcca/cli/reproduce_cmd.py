"""``kcca reproduce``: run the paper's systems on Flickr 8K and write every table beside the paper.

Each system is an experiment file of ``experiments/hodosh2013`` (:mod:`kcca.systems.spec`), run
by :func:`kcca.systems.run_system` (every stage cached, so an interrupted run resumes), locally
one after the other, on ``--jobs`` local worker processes (joblib), or, with ``--scheduler
ADDRESS``, as independent tasks on a Dask cluster (:mod:`kcca.systems.distributed`). Each
system's rankings file goes to ``--rankings-dir`` (default ``<out>/rankings``, read by ``kcca
evaluate``) and its run details are merged into ``details.json`` there.

The tables are then rebuilt from *every* rankings file of that folder
(:mod:`kcca.systems.paper_report`), so they fill in as more systems finish;
``--tables-only`` does just that, without running anything. For each table (1-12) the command
writes ``table<N>.md`` (a header with the command, data, date, commit, machine, relevance
rule, the p and d chosen on dev per system and the systems not run; ``ours (paper)`` per cell
with significance markers computed from our per-query results by the paper's test) and
``table<N>.csv`` (tidy: ``table,system,task,metric,ours,paper,ours_sig,paper_sig,p_value,
test``), plus PNG plots: R@k curves, the distribution of the original item's rank, and a
Table 6 heat map.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import json
import logging
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

from kcca.cli.common import (add_backend_argument, backend_from_args, cache_from_args,
                              data_dir_from_args, subparser)
from kcca.errors import DataError

log = logging.getLogger(__name__)

HELP = "run the paper's systems and write every table beside the paper's numbers"
DEFAULT_EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments" / "hodosh2013"


def add_parser(sub) -> argparse.ArgumentParser:
    p = subparser(sub, "reproduce", HELP, run)
    p.add_argument("--tables", default="all",
                   help="tables to write: 'all' (default) or comma-separated numbers 1-12")
    p.add_argument("--tables-only", action="store_true",
                   help="run no system: rebuild the tables and plots from the rankings files "
                        "already in --rankings-dir")
    p.add_argument("--systems", nargs="+", default=None,
                   help="systems to run (paper or short names; default: every system the "
                        "tables need)")
    p.add_argument("--experiments", default=str(DEFAULT_EXPERIMENTS),
                   help="folder of experiment files (default experiments/hodosh2013)")
    p.add_argument("--splits", default=None,
                   help="folder with Flickr_8k.{train,dev,test}Images.txt replacing the "
                        "released splits")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="Dask scheduler address (tcp://host:port): image features on the "
                        "cluster, then every system as its own task there (workers must see "
                        "the data and cache folders at the same paths)")
    p.add_argument("--out", default="results/hodosh2013", help="output folder")
    p.add_argument("--rankings-dir", default=None,
                   help="where rankings files go and are read from (default <out>/rankings)")
    p.add_argument("--relevance", default="paper", choices=("paper", "two-thirds", "majority"),
                   help="crowd relevance rule for S@k and R-precision (default paper: fraction "
                        "yes >= 1/2, which reproduces the paper's counts)")
    p.add_argument("--samples", type=int, default=100_000,
                   help="randomisation-test samples for the significance markers (default "
                        "100,000, as the paper)")
    p.add_argument("--no-plots", action="store_true", help="write the tables only")
    p.add_argument("--force", action="store_true",
                   help="rewrite the tables of an --out folder that already holds some, by a "
                        "run of systems or by --tables-only without the data (refused "
                        "without it)")
    p.add_argument("--p", type=float, nargs="+", default=None,
                   help="override every system's p grid (recorded in the header)")
    p.add_argument("--d", type=float, nargs="+", default=None,
                   help="override every system's d grid (recorded in the header)")
    p.add_argument("--image-config", default=None,
                   help="JSON of ImageFeatureConfig fields for quick runs, e.g. "
                        "'{\"vocabulary\": {\"color\": 32, \"texture\": 64, \"sift\": 64}}' "
                        "(default: the paper's codebooks; recorded in the header)")
    p.add_argument("--search-rank", type=int, default=None,
                   help="search p and d on dev with factors truncated to this rank, then "
                        "refit only the chosen pair at full precision (overrides the "
                        "experiment files' grid.search_rank, unset in experiments/hodosh2013: "
                        "full precision; 0: full precision; recorded per system)")
    add_backend_argument(p, "the kernels and the KCCA solver")
    p.add_argument("--precision", type=float, default=None,
                   help="incomplete-Cholesky precision of the solver (default its own)")
    return p


def load_with_splits(data_dir: Path, splits_dir: str | None, *, images: bool = True):
    """:func:`kcca.data.flickr8k.load_flickr8k_with_splits` (the corpus of ``--splits``)."""
    from kcca.data.flickr8k import load_flickr8k_with_splits

    return load_flickr8k_with_splits(data_dir, splits_dir, images=images)


def git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, cwd=Path(__file__).resolve().parents[2], timeout=10)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10,
                               cwd=Path(__file__).resolve().parents[2]).stdout.strip()
        return out.stdout.strip() + (" (with local changes)" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def machine() -> str:
    import os

    return (f"{platform.node()} {platform.machine()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}, {platform.platform(terse=True)}")


def _with_grid(spec, p, d):
    if p is None and d is None:
        return spec
    grid = dataclasses.replace(spec.grid, **({"p": tuple(p)} if p else {}),
                               **({"d": tuple(d)} if d else {}))
    return dataclasses.replace(spec, grid=grid)


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name)


def _summary(label: str, chosen: str, table: dict, seconds: float | None = None) -> str:
    parts = [f"{label}: {chosen}"]
    for task in ("annotation", "search"):
        m = table.get(task, {})
        if all(f"R@{k}" in m for k in (1, 5, 10)):
            parts.append(f"{task} R@1/5/10 " + "/".join(f"{m[f'R@{k}']:.1f}" for k in (1, 5, 10)))
    return "; ".join(parts) + (f" ({seconds:.0f}s)" if seconds is not None else "")


def _image_config(args: argparse.Namespace):
    if not args.image_config:
        return None
    from features.image_features import ImageFeatureConfig

    try:
        return ImageFeatureConfig(**{"seed": args.seed, **json.loads(args.image_config)})
    except (json.JSONDecodeError, TypeError) as exc:
        raise DataError(f"--image-config: {exc}") from None


def _run_locally(specs, corpus, ws, rank_dir: Path, args) -> list[str]:
    from tqdm.auto import tqdm

    from kcca.systems import run_system
    from kcca.systems.eta import RemainingTime
    from kcca.systems.paper_report import chosen_text, merge_details

    start = time.perf_counter()
    eta = RemainingTime(len(specs))
    stages: dict[str, float] = {}
    bar = tqdm(specs, desc="systems", unit="system", disable=args.quiet)
    for spec in bar:
        bar.set_postfix_str(spec.label)
        res = run_system(corpus, spec, workspace=ws, precision=args.precision,
                         search_rank=args.search_rank)
        ws.release_text_blocks()  # one system's text kernel in memory at a time
        res.write_rankings(rank_dir / f"{_slug(spec.name)}.json", corpus)
        merge_details(rank_dir, [{**res.to_json(), "command": _command(), "date": _now()}])
        for stage, secs in res.timings.items():
            stages[stage] = stages.get(stage, 0.0) + secs
        eta.done(sum(res.timings.values()))
        print(_summary(spec.label, chosen_text(res.chosen), res.table(), sum(res.timings.values()))
              + f" [{_stages_text(res.timings)}]; {eta.text()}",
              file=sys.stderr if args.quiet else sys.stdout)
    if specs:
        print(f"stage timings over {len(specs)} system(s): {_stages_text(stages)}; "
              f"total {time.perf_counter() - start:.0f}s",
              file=sys.stderr if args.quiet else sys.stdout)
    return []


def _stages_text(timings: dict[str, float]) -> str:
    """``image kernel 3s, text kernel 40s, ...`` (stages of :func:`kcca.systems.run_system`)."""
    return ", ".join(f"{k} {v:.0f}s" for k, v in timings.items())


def _run_in_parallel(specs, corpus, ws, rank_dir: Path, args, data_dir: Path) -> list[str]:
    """Systems on ``--jobs`` local worker processes (joblib/loky), the BLAS threads of the
    machine split between them: one system's eigendecompositions use two cores poorly, two
    systems side by side use them well. Same numbers as the sequential run."""
    import os

    from joblib import delayed, effective_n_jobs

    from kcca.workers import worker_parallel
    from tqdm.auto import tqdm

    from kcca.systems.distributed import TaskConfig
    from kcca.systems.eta import RemainingTime
    from kcca.systems.paper_report import chosen_text

    workers = min(effective_n_jobs(args.jobs), len(specs))
    threads = max(1, (os.cpu_count() or 1) // workers)
    _shared_image_blocks(specs, ws, args.precision)
    cfg = TaskConfig(str(data_dir), args.splits, str(ws.cache.root), seed=args.seed, n_jobs=1,
                     image_config=ws.image_config, precision=args.precision,
                     search_rank=args.search_rank, backend=ws.backend)
    print(f"running {len(specs)} systems on {workers} worker processes, {threads} BLAS "
          f"thread(s) each", file=sys.stderr if args.quiet else sys.stdout)
    start = time.perf_counter()
    eta = RemainingTime(len(specs))
    stages: dict[str, float] = {}
    failed: list[str] = []
    jobs = (delayed(_system_task)(spec, cfg, threads) for spec in specs)
    bar = tqdm(total=len(specs), desc="systems", unit="system", disable=args.quiet)
    for spec, res, err in worker_parallel(n_jobs=workers, backend="loky",
                                          return_as="generator_unordered")(jobs):
        bar.update(1)
        eta.done(0.0 if err is not None else
                 sum(res["details"].get("timings", {}).values()))
        if err is not None:
            print(f"{spec.label}: failed: {err}", file=sys.stderr)
            failed.append(spec.name)
            continue
        _record_task_result(spec, res, corpus, rank_dir)
        timings = res["details"].get("timings", {})
        for stage, secs in timings.items():
            stages[stage] = stages.get(stage, 0.0) + secs
        print(_summary(spec.label, chosen_text(res["details"].get("chosen")), res["table"],
                       sum(timings.values()))
              + f" [{_stages_text(timings)}]; {eta.text()}",
              file=sys.stderr if args.quiet else sys.stdout)
    bar.close()
    print(f"stage timings over {len(specs)} system(s), summed over workers: "
          f"{_stages_text(stages)}; wall {time.perf_counter() - start:.0f}s",
          file=sys.stderr if args.quiet else sys.stdout)
    return failed


def _shared_image_blocks(specs, ws, precision: float | None = None) -> None:
    """The image features and kernel blocks the systems share, computed once (and cached)
    before the systems go to workers, so they do not all compute them at once; likewise the
    KCCA factor of an image kernel for each p that two or more KCCA systems use."""
    seen, uses = {}, {}
    for spec in specs:
        name = json.dumps(spec.image_kernel.as_dict(), sort_keys=True)
        seen.setdefault(name, spec.image_kernel)
        if spec.model == "kcca":
            for p in spec.grid.p:
                uses[(name, float(p))] = uses.get((name, float(p)), 0) + 1
    for kernel in seen.values():
        ws.image_blocks(kernel)
    if not ws.cache.enabled:
        return
    for (name, p), count in uses.items():
        if count > 1:
            ws.image_factor(seen[name], p, precision)


def _record_task_result(spec, res: dict, corpus, rank_dir: Path, **extra) -> None:
    """Write a worker's rankings file and merge its run details (plus ``extra``)."""
    from kcca.evaluate.rankings_io import write_rankings
    from kcca.systems.paper_report import merge_details

    write_rankings(rank_dir / f"{_slug(spec.name)}.json", corpus.pool("test"),
                   res["rankings"], system=spec.name, corpus=corpus.name, split="test")
    merge_details(rank_dir, [{**res["details"], "command": _command(), "date": _now(),
                              **extra}])


def _system_task(spec, cfg, threads: int):
    """One system in a worker process with ``threads`` BLAS threads: (spec, result, error)."""
    from threadpoolctl import threadpool_limits

    from kcca.systems.distributed import run_system_task

    try:
        with threadpool_limits(limits=threads):
            return spec, run_system_task(spec, cfg), None
    except Exception as exc:  # noqa: BLE001 - report every system's failure, go on
        return spec, None, f"{type(exc).__name__}: {exc}"


def _run_on_cluster(specs, corpus, ws, rank_dir: Path, args, data_dir: Path) -> list[str]:
    from kcca.systems.distributed import TaskConfig, run_systems_on_cluster
    from kcca.systems.paper_report import chosen_text

    if ws.cache.enabled:  # shared image features / blocks first, extraction on the cluster
        _shared_image_blocks(specs, ws, args.precision)
    cfg = TaskConfig(str(data_dir), args.splits,
                     str(ws.cache.root) if ws.cache.enabled else None, seed=args.seed,
                     n_jobs=args.jobs, image_config=ws.image_config, precision=args.precision,
                     search_rank=args.search_rank, backend=ws.backend)

    def done(spec, res: dict) -> None:
        _record_task_result(spec, res, corpus, rank_dir, scheduler=args.scheduler)
        print(_summary(spec.label, chosen_text(res["details"].get("chosen")), res["table"]),
              file=sys.stderr if args.quiet else sys.stdout)

    _, errors = run_systems_on_cluster(args.scheduler, specs, cfg, on_done=done)
    for name, err in errors.items():
        print(f"{name}: failed on the cluster: {err}", file=sys.stderr)
    return list(errors)


def _parallel_workers(args: argparse.Namespace, ws) -> int:
    """Worker processes for the systems: ``--jobs`` (-1: every core); 1 without a cache, since
    the workers share the image features and kernel blocks through it."""
    from joblib import effective_n_jobs

    if not ws.cache.enabled:
        if args.jobs not in (None, 1):
            log.info("--no-cache: systems run one after another (workers share work through "
                     "the cache)")
        return 1
    return effective_n_jobs(args.jobs or 1)


def _command() -> str:
    return f"kcca {' '.join(map(shlex.quote, sys.argv[1:]))}"


def _now() -> str:
    return _dt.datetime.now().isoformat(timespec="seconds")


def _optional_data_dir(args: argparse.Namespace) -> Path | None:
    """The data folder for ``--tables-only``: given or configured ones must exist; none at all
    means the tables come from the compact results files alone."""
    import os

    from kcca.data.paths import DATA_DIR_ENV

    if args.data_dir is None and not os.environ.get(DATA_DIR_ENV):
        return None
    return data_dir_from_args(args)


def _refuse_overwrite(out: Path, args: argparse.Namespace,
                      why: str = "this run would rewrite them from the rankings files there",
                      elsewhere: str = "`--out DIR` (e.g. `--out kcca-reproduce-out`)"
                      ) -> None:
    """A run never silently rewrites tables it did not make: refuse an ``--out`` that already
    holds tables unless ``--force`` is given."""
    tables = sorted(p.name for p in out.glob("table*.md")) if out.is_dir() else []
    if tables and not args.force:
        shown = ", ".join(tables[:3]) + (", ..." if len(tables) > 3 else "")
        raise DataError(
            f"--out {out} already holds tables ({shown}); {why}",
            fix=f"write elsewhere with {elsewhere}, or add `--force` to rewrite the tables of "
                f"{out}")


def run(args: argparse.Namespace) -> int:
    from kcca.systems.paper_report import describe, write_report
    from kcca.systems.tables import parse_tables, table_systems

    try:
        tables = parse_tables(args.tables)
    except ValueError as exc:
        raise DataError(str(exc)) from None
    out = Path(args.out)
    rank_dir = Path(args.rankings_dir) if args.rankings_dir else out / "rankings"
    if not args.tables_only:  # a backend the machine lacks is named before any data is read
        backend = backend_from_args(args)
    start = time.perf_counter()
    failed: list[str] = []
    if args.tables_only:
        if not rank_dir.is_dir():
            raise DataError(f"--tables-only: no rankings folder {rank_dir}",
                            fix="run systems first (`kcca reproduce --systems BoW5 --out "
                                f"{shlex.quote(str(out))}`), or give the folder of the results "
                                "with --rankings-dir DIR")
        data_dir = _optional_data_dir(args)
        if data_dir is None:
            _refuse_overwrite(out, args, "without the data Tables 8-10 and the Random row's "
                                         "judged columns would be left empty",
                              f"`--rankings-dir {shlex.quote(str(rank_dir))} --out DIR`")
        corpus = (load_with_splits(data_dir, args.splits, images=False)
                  if data_dir is not None else None)
        run_lines = ["mode: --tables-only (tables rebuilt from the rankings files; each "
                     "system's run settings are in details.json beside them)"]
        if corpus is None:
            run_lines.append("no corpus data at hand: tables rebuilt from the compact results "
                             "files (*.ranks.npz); Tables 8-10 and the Random row's judged "
                             "columns need the data (--data-dir or KCCA_DATA_DIR)")
    else:
        from kcca.systems import Workspace, load_specs, select_specs

        data_dir = data_dir_from_args(args)
        specs = load_specs(args.experiments)
        needed = args.systems or [s for s in dict.fromkeys(
            n for t in tables for n in table_systems(t)) if s != "Random"]
        chosen_specs = [_with_grid(s, args.p, args.d) for s in select_specs(specs, needed)]
        _refuse_overwrite(out, args)
        corpus = load_with_splits(data_dir, args.splits)
        image_config = _image_config(args)
        ws = Workspace(corpus, cache_from_args(args), n_jobs=args.jobs, seed=args.seed,
                       progress=not args.quiet, scheduler=args.scheduler,
                       image_config=image_config, backend=backend)
        rank_dir.mkdir(parents=True, exist_ok=True)
        if args.scheduler:
            failed = _run_on_cluster(chosen_specs, corpus, ws, rank_dir, args, data_dir)
        elif _parallel_workers(args, ws) > 1 and len(chosen_specs) > 1:
            failed = _run_in_parallel(chosen_specs, corpus, ws, rank_dir, args, data_dir)
        else:
            failed = _run_locally(chosen_specs, corpus, ws, rank_dir, args)
        from kcca.backend import describe_backend

        grid_note = (f"; grid overridden: p={args.p or 'file'}, d={args.d or 'file'}"
                     if args.p or args.d else "")
        run_lines = [
            f"seed: {args.seed}{grid_note}; array backend: {describe_backend(ws.backend)}"
            + (f"; image features: {args.image_config}" if args.image_config else ""),
            f"this run: {', '.join(s.label for s in chosen_specs)}"
            + (f" on the Dask cluster {args.scheduler}" if args.scheduler else "")
            + f", {(time.perf_counter() - start) / 60:.1f} min"
            + (f"; FAILED: {', '.join(failed)}" if failed else ""),
        ]
    header = [
        f"command: `{_command()}`",
        (f"data: {corpus.name} ("
         f"{', '.join(f'{s} {len(corpus.split(s))}' for s in ('train', 'dev', 'test'))}"
         f"{', splits from ' + args.splits if args.splits else ''})") if corpus is not None
        else "data: none at hand (compact results files only)",
        f"date: {_now()}",
        f"commit: {git_commit()}",
        f"machine: {machine()}",
        *run_lines,
    ]
    report = write_report(corpus, rank_dir, out, tables, header, relevance=args.relevance,
                          n_samples=args.samples, seed=args.seed, plots=not args.no_plots,
                          progress=not args.quiet)
    print(describe(report))
    print(f"wrote {len(report.files)} files to {out}")
    return 1 if failed else 0
