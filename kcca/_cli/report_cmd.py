"""``kcca report``: a static HTML report of a run folder (summary, plots, query browser).

    kcca report RUN_DIR [-o OUT] [--corpus NAME|FILE.json] [--images-dir DIR] [--top-k 10]
                        [--thumb-size 128] [--embed] [--allow-committed]

RUN_DIR is the ``--out`` folder of ``kcca demo`` or ``kcca reproduce``. The corpus is the one
the rankings files name (a demo corpus is regenerated from its sizes and seed; Flickr 8K is
read from ``--data-dir`` / ``$KCCA_DATA_DIR``). A run of ``kcca reproduce --corpus FILE.json``
reads that captions JSON again (``--corpus``, else the file its recorded command names) and
its images from ``--images-dir`` (images are read only from the folder named there, not from
the one the run records); without images the page shows image
ids where thumbnails would be. Without a data folder, a folder whose systems
all have compact results files (``rankings/*.ranks.npz``, as committed in
``results/hodosh2013``) still gets its page: ids for captions and images, the stored metrics,
no judgment marks. The page (``OUT/index.html``) needs no server and loads nothing from the
network.

Without ``-o`` the report goes to ``RUN_DIR/report``, or, for a folder of committed results
(:func:`kcca._provenance.committed_results`: the checkout's ``results`` folder, files tracked by
git), to ``<name of RUN_DIR>-report`` in the current folder, said on the first line. A report is
written into committed results only with ``--allow-committed``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from kcca._cli.common import add_relevance_argument, subparser

HELP = "write a static HTML report of a run folder (metrics beside the paper, plots, queries)"


def add_parser(sub) -> argparse.ArgumentParser:
    p = subparser(sub, "report", HELP, run)
    p.add_argument(
        "run_dir",
        metavar="RUN_DIR",
        help="output folder of `kcca demo --out` or `kcca reproduce --out`",
    )
    p.add_argument(
        "--output",
        "-o",
        default=None,
        help="folder for index.html, thumbs/ and plots/ (default RUN_DIR/report, or "
        "NAME-report in the current folder when RUN_DIR holds committed results)",
    )
    p.add_argument(
        "--allow-committed",
        action="store_true",
        help="write the report into a folder of committed results (the checkout's results "
        "folder, or files tracked by git; refused without it)",
    )
    p.add_argument(
        "--corpus",
        default=None,
        help="corpus of the rankings: flickr8k, demo, demo-TRAIN-DEV-TEST-SIZEpx-"
        "sSEED or the captions JSON given to `kcca reproduce --corpus` (default: the "
        "JSON file the run's recorded command names, else the name in the rankings files)",
    )
    p.add_argument(
        "--images-dir",
        default=None,
        help="image folder of a captions JSON, for thumbnails (without one the page shows "
        "image ids; a note names the --images-dir the run was made with)",
    )
    p.add_argument(
        "--splits",
        default=None,
        help="split files folder, for rankings made with `kcca reproduce --splits`",
    )
    p.add_argument("--top-k", type=int, default=10, help="candidates shown per query (default 10)")
    p.add_argument(
        "--thumb-size",
        type=int,
        default=128,
        help="longer side of the JPEG thumbnails in pixels (default 128)",
    )
    p.add_argument(
        "--embed",
        action="store_true",
        help="inline thumbnails and plots as data URIs (one self-contained file)",
    )
    add_relevance_argument(
        p, "crowd relevance rule for S@k, R-precision and the marks (default paper)"
    )
    return p


def run(args: argparse.Namespace) -> int:
    from kcca.data._errors import DataError
    from kcca._report import build_report

    if args.top_k < 1:
        raise DataError(f"--top-k must be at least 1, got {args.top_k}")
    if args.thumb_size < 16:
        raise DataError(f"--thumb-size must be at least 16 pixels, got {args.thumb_size}")
    from kcca._cli.environment_faults import check_outputs

    output = report_folder(args)
    check_outputs(args, ("--output", output, True), cache=False)
    path = build_report(
        args.run_dir,
        output,
        corpus_name=args.corpus,
        images_dir=args.images_dir,
        data_dir=args.data_dir,
        splits_dir=args.splits,
        seed=args.seed,
        top_k=args.top_k,
        thumb_size=args.thumb_size,
        embed=args.embed,
        relevance=args.relevance,
        progress=not args.quiet,
    )
    print(f"wrote report to {path}")
    return 0


def report_folder(args: argparse.Namespace) -> Path:
    """Where the report goes: ``-o``, else ``RUN_DIR/report``, else (RUN_DIR holds committed
    results) ``NAME-report`` here. A folder of committed results needs ``--allow-committed``."""
    import shlex

    from kcca.errors import DataError
    from kcca._provenance import committed_results

    run_dir = Path(args.run_dir)
    if args.output or args.allow_committed:
        output = Path(args.output) if args.output else run_dir / "report"
        why = None if args.allow_committed else committed_results(output)
        if why is None:
            return output
        raise DataError(
            f"-o {output} is a folder of committed results ({why}); a report is written "
            "there only when asked",
            fix=f"write elsewhere: `kcca report {shlex.quote(args.run_dir)} -o "
            f"{shlex.quote(_elsewhere(run_dir))}`, or add `--allow-committed`",
        )
    output = run_dir / "report"
    why = committed_results(run_dir) or committed_results(output)
    if why is None:
        return output
    elsewhere = Path(_elsewhere(run_dir))
    if committed_results(elsewhere) is not None:
        raise DataError(
            f"{run_dir} holds committed results ({why}), and so does the current folder, "
            "so the report has no default place",
            fix=f"name its folder: `kcca report {shlex.quote(args.run_dir)} -o "
            f"/tmp/{shlex.quote(elsewhere.name)}`",
        )
    print(
        f"note: {run_dir} holds committed results ({why}), so the report goes to "
        f"{elsewhere} (choose with -o DIR; --allow-committed writes it to {output})"
    )
    return elsewhere


def _elsewhere(run_dir: Path) -> str:
    """``NAME-report`` in the current folder, for a run folder named NAME."""
    return f"{run_dir.resolve().name or 'run'}-report"
