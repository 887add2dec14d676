"""``kcca reproduce``: run the paper's systems on Flickr 8K and write Tables 3 and 11 beside the paper.

Each system is an experiment file of ``experiments/hodosh2013`` (:mod:`kcca.systems.spec`), run
by :func:`kcca.systems.run_system` (every stage cached, so an interrupted run resumes). For each
table the command writes ``table<N>.md`` (Markdown: a header with the command, data, date,
commit, machine and the p and d chosen on dev per system; ``ours (paper)`` per cell) and
``table<N>.csv`` (tidy: ``table,system,task,metric,ours,paper``), plus one rankings file per
system under ``--rankings-dir`` (default ``<out>/rankings``, read by ``kcca evaluate``).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import json
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

from kcca.cli.common import cache_from_args, data_dir_from_args, subparser
from kcca.data.errors import DataError

HELP = "run the paper's systems and write Tables 3 and 11 beside the paper's numbers"
DEFAULT_EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments" / "hodosh2013"


def add_parser(sub) -> argparse.ArgumentParser:
    p = subparser(sub, "reproduce", HELP, run)
    p.add_argument("--tables", default="3,11", help="tables to write, comma-separated (3, 11)")
    p.add_argument("--systems", nargs="+", default=None,
                   help="systems to run (paper or short names; default: every system the "
                        "tables need)")
    p.add_argument("--experiments", default=str(DEFAULT_EXPERIMENTS),
                   help="folder of experiment files (default experiments/hodosh2013)")
    p.add_argument("--splits", default=None,
                   help="folder with Flickr_8k.{train,dev,test}Images.txt replacing the "
                        "released splits")
    p.add_argument("--scheduler", default=None,
                   help="Dask scheduler address for image features (tcp://host:port)")
    p.add_argument("--out", default="results/hodosh2013", help="output folder")
    p.add_argument("--rankings-dir", default=None,
                   help="where rankings files go (default <out>/rankings)")
    p.add_argument("--p", type=float, nargs="+", default=None,
                   help="override every system's p grid (recorded in the header)")
    p.add_argument("--d", type=float, nargs="+", default=None,
                   help="override every system's d grid (recorded in the header)")
    p.add_argument("--image-config", default=None,
                   help="JSON of ImageFeatureConfig fields for quick runs, e.g. "
                        "'{\"vocabulary\": {\"color\": 32, \"texture\": 64, \"sift\": 64}}' "
                        "(default: the paper's codebooks; recorded in the header)")
    p.add_argument("--precision", type=float, default=None,
                   help="incomplete-Cholesky precision of the solver (default its own)")
    return p


def load_with_splits(data_dir: Path, splits_dir: str | None):
    """Flickr 8K, with the three split files of ``splits_dir`` when given."""
    from kcca.data.flickr8k import SPLIT_FILES, load_flickr8k, read_split_file

    corpus = load_flickr8k(data_dir)
    if splits_dir is None:
        return corpus
    folder = Path(splits_dir)
    splits = {s: read_split_file(folder / name, dict(corpus.captions))
              for s, name in SPLIT_FILES.items()}
    return dataclasses.replace(corpus, splits=splits,
                               name=f"{corpus.name}-splits-{folder.name}")


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


def _chosen(res) -> str:
    c = res.chosen
    if "p" in c:
        return f"p={c['p']:g}, d={c['d']:g}"
    tk = c.get("text_kernel", {})
    return f"NN, text kernel {tk.get('name')} {tk.get('params') or ''}".strip()


def run(args: argparse.Namespace) -> int:
    from tqdm.auto import tqdm

    from kcca.systems import Workspace, load_specs, run_system, select_specs
    from kcca.systems.tables import TABLES, rows, table_systems, to_csv, to_markdown

    tables = [t.strip() for t in args.tables.split(",") if t.strip()]
    for t in tables:
        if t not in TABLES:
            raise DataError(f"table {t!r} is not reproduced by this command; use {TABLES}")
    specs = load_specs(args.experiments)
    needed = args.systems or list(dict.fromkeys(s for t in tables for s in table_systems(t)))
    chosen_specs = [_with_grid(s, args.p, args.d) for s in select_specs(specs, needed)]
    corpus = load_with_splits(data_dir_from_args(args), args.splits)
    image_config = None
    if args.image_config:
        from features.image_features import ImageFeatureConfig

        try:
            image_config = ImageFeatureConfig(**{"seed": args.seed,
                                                 **json.loads(args.image_config)})
        except (json.JSONDecodeError, TypeError) as exc:
            raise DataError(f"--image-config: {exc}") from None
    ws = Workspace(corpus, cache_from_args(args), n_jobs=args.jobs, seed=args.seed,
                   progress=not args.quiet, scheduler=args.scheduler, image_config=image_config)
    out = Path(args.out)
    rank_dir = Path(args.rankings_dir) if args.rankings_dir else out / "rankings"
    rank_dir.mkdir(parents=True, exist_ok=True)
    results, chosen, details = {}, {}, []
    start = time.perf_counter()
    bar = tqdm(chosen_specs, desc="systems", unit="system", disable=args.quiet)
    for spec in bar:
        bar.set_postfix_str(spec.label)
        res = run_system(corpus, spec, workspace=ws, precision=args.precision)
        results[spec.name] = res.table()
        chosen[spec.name] = _chosen(res)
        for t in tables:
            if t == "3" and spec.short_name:
                chosen[spec.short_name] = chosen[spec.name]
        slug = "".join(ch if ch.isalnum() else "_" for ch in spec.name)
        res.write_rankings(rank_dir / f"{slug}.json", corpus)
        details.append(res.to_json())
        done = bar.n + 1
        left = (time.perf_counter() - start) / done * (len(chosen_specs) - done)
        print(f"{spec.label}: {chosen[spec.name]}; annotation R@1/5/10 "
              + "/".join(f"{res.table()['annotation'][f'R@{k}']:.1f}" for k in (1, 5, 10))
              + f", search "
              + "/".join(f"{res.table()['search'][f'R@{k}']:.1f}" for k in (1, 5, 10))
              + f" ({sum(res.timings.values()):.0f}s; about {left / 60:.0f} min left)",
              file=sys.stderr if args.quiet else sys.stdout)
    grid_note = ""
    if args.p or args.d:
        grid_note = f"; grid overridden: p={args.p or 'file'}, d={args.d or 'file'}"
    header = [
        f"command: `kcca {' '.join(map(shlex.quote, sys.argv[1:]))}`",
        f"data: {corpus.name} ({', '.join(f'{s} {len(corpus.split(s))}' for s in ('train', 'dev', 'test'))}"
        f"{', splits from ' + args.splits if args.splits else ''})",
        f"date: {_dt.datetime.now().isoformat(timespec='seconds')}",
        f"commit: {git_commit()}",
        f"machine: {machine()}",
        f"seed: {args.seed}{grid_note}"
        + (f"; image features: {args.image_config}" if args.image_config else ""),
        "chosen on dev (frozen): " + "; ".join(f"{k}: {v}" for k, v in chosen.items()
                                                 if k in results),
        f"time: {(time.perf_counter() - start) / 60:.1f} min",
    ]
    out.mkdir(parents=True, exist_ok=True)
    for t in tables:
        table_rows = rows(t, results)
        if not table_rows:
            print(f"table {t}: none of its systems was run; nothing written")
            continue
        (out / f"table{t}.csv").write_text(to_csv(table_rows))
        (out / f"table{t}.md").write_text(to_markdown(t, table_rows, header, chosen) + "\n")
        print(f"wrote {out / f'table{t}.md'} and {out / f'table{t}.csv'}")
    (rank_dir / "details.json").write_text(json.dumps(details, indent=1, default=str))
    return 0
