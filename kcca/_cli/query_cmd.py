"""``kcca query``: rank images for any sentence with a saved model (image search, eq. 1).

The sentence is preprocessed as the model's training captions were (Section 4.1.1), its
text-kernel row against the training items is projected by each dev-selected KCCA model, the
pool images are ranked by cosine (eq. 4) and the 15 rankings are Borda-aggregated
(Section 4.1.3). The pool is the model's test pool, or ``--images DIR`` (every image file of a
folder, described with the model's saved codebooks). ``--model demo`` fits and caches the demo
model on first use.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
import time

from kcca._cli.common import cache_from_args, check_count, seed_if_given, subparser
from kcca._cli.environment_faults import check_outputs
from kcca._cli.lines import WIDTH, command, with_path, wrap

HELP = "rank images for a sentence with a saved model (image search)"


def add_model_option(p: argparse.ArgumentParser) -> None:
    """``--model``, ``--top``, ``--html`` shared by ``kcca query`` and ``kcca annotate``."""
    p.add_argument(
        "--model",
        required=True,
        help="model file written by `kcca fit-model`, or 'demo' (the demo model, "
        "fitted and cached on first use)",
    )
    p.add_argument("--top", type=int, default=10, help="rows to print (default 10)")
    p.add_argument(
        "--html", default=None, help="also write a self-contained HTML page (embedded thumbnails)"
    )


def check_model_args(args: argparse.Namespace) -> None:
    """The flags of ``query`` and ``annotate`` that need no file read: ``--top`` of 1 or
    more, a writable ``--html``, a ``--model`` path that is a file (or ``demo``)."""
    check_count("--top", args.top, "give --top 1 or more (the rows printed; default 10)")
    check_outputs(args, ("--html", args.html, False))
    if args.model != "demo":
        check_model_path(args.model)


def load_model_from_args(args: argparse.Namespace):
    """The model named by ``--model`` (``demo`` uses the cache folder), after
    :func:`check_model_args`."""
    from kcca._model import resolve_model

    check_model_args(args)
    t = time.perf_counter()
    model = resolve_model(
        args.model,
        cache=cache_from_args(args),
        n_jobs=args.jobs,
        seed=seed_if_given(args),
        progress=not args.quiet,
    ).warm_up()
    if not args.quiet:
        print(
            wrap(f"model: {model.describe()} (loaded in {time.perf_counter() - t:.1f}s)"),
            file=sys.stderr,
        )
    if args.html:
        pool_thumbnails_inside_data_dir(model, args)
    return model


def pool_thumbnails_inside_data_dir(model, args: argparse.Namespace) -> None:
    """The page's thumbnails of the model's own pool are read only from image files inside
    the data folder named (``--data-dir`` / ``$KCCA_DATA_DIR``): a model file naming files
    elsewhere gets a warning naming the first of them, and no thumbnails of them."""
    import os

    from kcca.data._paths import DATA_DIR_ENV

    folder = args.data_dir or os.environ.get(DATA_DIR_ENV) or None
    left_out = model.image_pool.keep_files_inside(folder)
    if left_out:
        image_id, path = next(iter(left_out.items()))
        where = (
            f"the data folder {folder}"
            if folder
            else f"a data folder (--data-dir or ${DATA_DIR_ENV})"
        )
        print(
            wrap(
                f"warning: {args.model}: {len(left_out)} image file(s) of the model's pool are "
                f"not inside {where} (image {image_id!r}: {path}); the page shows no "
                "thumbnails of them (give --data-dir the folder that holds them)"
            ),
            file=sys.stderr,
        )


def with_fix(exc: Exception, fix: str) -> Exception:
    """``exc`` (a :class:`kcca._model.QueryError`) with the ``fix`` of this command."""
    exc.fix = fix  # type: ignore[attr-defined]
    return exc


def example_query(model, args: argparse.Namespace) -> str:
    """A query of this model that runs: the first test-pool caption, as a command."""
    texts = model.caption_pool.texts
    sentence = texts[0].rstrip(" .") if texts else "a dog runs on the beach"
    return command(["kcca", "query", sentence, "--model", args.model], "`", "`", width=10**6)


def check_model_path(path: str) -> None:
    """``--model PATH`` must be a regular file (:func:`kcca._file_kinds.check_regular_file`):
    a folder, a FIFO, a device or a broken link is named before anything is read."""
    import shlex

    from kcca._file_kinds import check_regular_file, path_kind

    fit = (
        f"`kcca fit-model --system BoW5 --out {shlex.quote(path)}`"
        if path_kind(path) == "missing"
        else "`kcca fit-model --system BoW5 --out FILE.kcca.npz`"
    )
    check_regular_file(
        path,
        "--model: model file",
        fix=f"give --model the file a fit wrote (fit one with {fit}), or use the demo model: "
        "--model demo",
    )


def print_ranking_head(model, ranking, pool, task: str, items: str, head: str) -> None:
    """How ``ranking`` was made (its ``items`` of ``pool``, by the Borda count of the models
    ``model`` chose for ``task``), then the table header ``head``, underlined."""
    print(
        wrap(
            f"ranked {ranking.pool_size} {items} of {pool.name} with the Borda count of "
            f"{len(model.projections.selected[task])} models in "
            f"{ranking.seconds * 1000:.1f} ms"
        )
    )
    print(head)
    print("-" * len(head))


def add_parser(sub) -> argparse.ArgumentParser:
    p = subparser(sub, "query", HELP, run)
    p.add_argument("sentence", nargs="+", help="the query sentence (quote it, or give words)")
    add_model_option(p)
    p.add_argument(
        "--images",
        default=None,
        help="rank the image files of this folder instead of the model's test pool",
    )
    p.add_argument(
        "--skip-bad-images",
        action="store_true",
        help="with --images: leave unreadable images out (listed) instead of failing",
    )
    return p


def clip(text: str, width: int) -> str:
    """``text`` shortened at a space to ``width`` characters (at least 20)."""
    return textwrap.shorten(text, width=max(20, width), placeholder="...")


def run(args: argparse.Namespace) -> int:
    if args.skip_bad_images and not args.images:
        from kcca.errors import DataError

        raise DataError(
            "--skip-bad-images leaves unreadable files of --images out, and the model's test "
            "pool is ranked",
            fix="add --images DIR, or drop --skip-bad-images",
        )
    from kcca._model import QueryError

    sentence = " ".join(args.sentence)
    model = load_model_from_args(args)
    pool = model.image_pool
    if args.images:
        t = time.perf_counter()
        try:
            pool = model.image_pool_from_folder(
                args.images,
                n_jobs=args.jobs,
                skip_bad=args.skip_bad_images,
                progress=not args.quiet,
                cache=cache_from_args(args),
            )
        except QueryError as exc:
            raise with_fix(
                exc,
                "give --images a folder of readable image files (.jpg, .png, ...), add "
                "--skip-bad-images to leave unreadable ones out, or drop --images to rank the "
                "model's test images",
            ) from exc
        print(
            with_path(
                "described ", args.images, f": {len(pool)} images in {time.perf_counter() - t:.1f}s"
            )
        )
        if pool.skipped:
            print(wrap(f"  {len(pool.skipped)} skipped: {', '.join(pool.skipped)}"))
    try:
        ranking = model.rank_images(sentence, pool=pool, top=args.top)
    except QueryError as exc:
        raise with_fix(
            exc, f"use words of the model's training captions, e.g. {example_query(model, args)}"
        ) from exc
    print(
        wrap(
            f"query: {sentence!r} -> tokens {' '.join(ranking.tokens)}"
            + (
                f" (not in training, ignored: {' '.join(ranking.unknown)})"
                if ranking.unknown
                else ""
            )
        )
    )
    w = max([len("image"), *map(len, ranking.ids)])
    head = f"{'rank':>4}  {'image':<{w}} {'Borda':>6} {'cosine':>7}"
    if pool.captions is not None:
        head += "  caption"
    print_ranking_head(model, ranking, pool, "search", "images", head)
    index = {i: k for k, i in enumerate(pool.ids)}
    for r, (image_id, pts, cos) in enumerate(zip(ranking.ids, ranking.points, ranking.cosine), 1):
        line = f"{r:>4}  {image_id:<{w}} {int(pts):>6} {cos:>7.3f}"
        if pool.captions is not None:
            line += "  " + clip(pool.captions[index[image_id]][0], WIDTH - len(line) - 2)
        print(line)
    if args.html:
        from kcca._model import html

        path = html.write(args.html, html.search_page(model, ranking, pool))
        print(with_path("wrote ", path))
    return 0
