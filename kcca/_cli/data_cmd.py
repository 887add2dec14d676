"""``kcca data``: load a corpus, validate it, and print its counts.

Every image file of the corpus is checked with ``stat`` (present, a non-empty readable
regular file). ``--check-images`` also decodes each one with the reader the experiments use
and reports every unreadable file (exit status 2), and warns about images whose bottom rows
look lost in decoding (:func:`kcca.data._images.damaged_band`; warnings alone exit 0).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from kcca._cli.common import subparser

if TYPE_CHECKING:  # the corpus module imports NumPy: not at `kcca --help`
    from kcca.data._corpus import Corpus

CHUNK = 64


def add_parser(sub) -> argparse.ArgumentParser:
    p = subparser(
        sub,
        "data",
        "Load and validate a corpus and print its counts (captions, splits, pools, judgments).",
        run,
    )
    p.add_argument(
        "--corpus",
        default="flickr8k",
        help="flickr8k (from --data-dir), demo, or a JSON split file",
    )
    p.add_argument("--images-dir", default=None, help="image folder for a JSON split file")
    p.add_argument(
        "--check-images",
        action="store_true",
        help="decode every image file (--jobs workers), list every unreadable one "
        "(exit status 2) and warn about images with a damaged band of bottom "
        "rows (default: stat checks only)",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    return p


def run(args: argparse.Namespace) -> int:
    from kcca.data import load_corpus
    from kcca.data._errors import ImageFilesError

    kwargs = {}
    if args.corpus.endswith(".json"):
        kwargs["images_dir"] = args.images_dir
    elif args.images_dir:
        from kcca.errors import DataError

        raise DataError(
            f"--images-dir is the image folder of a JSON split file; --corpus {args.corpus} "
            "finds its own images",
            fix="drop --images-dir, or give --corpus a JSON split file (SPLITS.json)",
        )
    problems: dict[str, str] = {}
    corpus: Corpus | None
    try:
        corpus = load_corpus(args.corpus, args.data_dir, seed=args.seed, **kwargs)
    except ImageFilesError as exc:
        if not args.check_images:
            raise
        corpus, paths, problems = None, exc.paths, dict(exc.problems)
    else:
        paths = dict(corpus.image_paths or {})
    summary = {}
    if corpus is not None:
        summary = corpus.summary()
        summary["notes"] = list(corpus.notes)
        summary["image_files"] = len(paths)
    errors: dict[str, str] = {}
    warnings: dict[str, str] = {}
    if args.check_images:
        errors, warnings = check_images(
            sorted(paths.values()), jobs=args.jobs, progress=not args.quiet
        )
        errors.update(problems)
        summary["image_check"] = {
            "files": len(paths) + len(problems),
            "unreadable": dict(sorted(errors.items())),
            "damaged_band": dict(sorted(warnings.items())),
        }
    if args.json:
        print(json.dumps(summary, indent=1))
    elif corpus is not None:
        _print(summary, corpus.notes, args.check_images)
    return _report(args, errors, warnings, len(paths) + len(problems))


def check_images(
    paths: list[str], *, jobs: int = 1, progress: bool = True
) -> tuple[dict[str, str], dict[str, str]]:
    """Decode every file: ``(unreadable: path -> reason, damaged band: path -> why)``."""
    from tqdm.auto import tqdm

    chunks = [paths[i : i + CHUNK] for i in range(0, len(paths), CHUNK)]
    bar = tqdm(total=len(paths), desc="checking images", unit="img", disable=not progress)
    errors: dict[str, str] = {}
    warnings: dict[str, str] = {}
    try:
        if jobs == 1 or len(chunks) <= 1:
            results = map(_check_chunk, chunks)
        else:
            from joblib import Parallel, delayed

            results = Parallel(n_jobs=jobs, return_as="generator_unordered")(
                delayed(_check_chunk)(c) for c in chunks
            )
        for res in results:
            for path, error, warning in res:
                if error:
                    errors[path] = error
                if warning:
                    warnings[path] = warning
            bar.update(len(res))
    finally:
        bar.close()
    return errors, warnings


def _check_chunk(paths: list[str]) -> list[tuple[str, str | None, str | None]]:
    from kcca.data._images import inspect_image

    return [(p, *inspect_image(p)) for p in paths]


def _print(summary: dict, notes, checked: bool) -> None:
    print(
        f"corpus {summary['name']}: {summary['captions']} captions of "
        f"{summary['images_with_captions']} images"
    )
    for split, n in summary["splits"].items():
        print(f"  {split:5s} {n:6d} images")
    print(f"  pools use caption #{summary['pool_caption_index']} of each dev/test image")
    for key in ("expert_pairs", "crowd_pairs"):
        if key in summary:
            print(f"  {key.replace('_', ' ')}: {summary[key]}")
    if summary["image_files"] and not checked:
        print(
            f"  image files: {summary['image_files']} present, non-empty and readable "
            "(--check-images decodes them)"
        )
    for note in notes:
        print(f"  note: {note}")


def _report(
    args: argparse.Namespace, errors: dict[str, str], warnings: dict[str, str], n_files: int
) -> int:
    """The check's findings on stderr (counts on stdout); 2 when a file is unreadable."""
    if not args.check_images:
        return 0
    for path, why in sorted(warnings.items()):
        print(f"warning: {path}: possibly damaged: {why}", file=sys.stderr)
    if warnings:
        print(
            f"warning: {len(warnings)} image(s) may be damaged (a heuristic): look at them "
            "and replace any that are",
            file=sys.stderr,
        )
    decoded = n_files - len(errors)
    if not args.json and not n_files:
        print("  image files: none to check (this corpus has no image files)")
    elif not args.json:
        print(
            f"  image files: {n_files} checked, {decoded} decoded cleanly, {len(errors)} "
            f"unreadable, {len(warnings)} with a possibly damaged band"
        )
    if not errors:
        return 0
    for path, why in sorted(errors.items()):
        print(f"error: cannot read image {path}: {why}", file=sys.stderr)
    print(f"error: {len(errors)} of {n_files} image file(s) cannot be read", file=sys.stderr)
    print(
        f"fix: replace the files named above with valid copies (see data/README.md), "
        f"then check again: {_check_command(args)}",
        file=sys.stderr,
    )
    return 2


def _check_command(args: argparse.Namespace) -> str:
    """This check's command line, with absolute paths so that it runs from any folder."""
    if args.corpus.endswith(".json"):
        cmd = ["kcca", "data", "--corpus", str(Path(args.corpus).resolve())]
        if args.images_dir:
            cmd += ["--images-dir", str(Path(args.images_dir).resolve())]
        return shlex.join(cmd + ["--check-images"])
    from kcca.data._errors import check_images_command
    from kcca.data._paths import resolve_data_dir

    return check_images_command(resolve_data_dir(args.data_dir))
