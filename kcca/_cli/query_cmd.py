"""``kcca query``: rank images for any sentence with a saved model (image search, eq. 1).

The sentence is preprocessed as the model's training captions were (Section 4.1.1), its
text-kernel row against the training items is projected by each dev-selected KCCA model, the
pool images are ranked by cosine (eq. 4) and the 15 rankings are Borda-aggregated
(Section 4.1.3). The pool is the model's test pool, or ``--images DIR`` (every image file of a
folder, described with the model's saved codebooks). ``--model demo`` fits and caches the demo
model on first use. A model whose text kernel reads vectors (``vectors``) takes captions as
vectors instead: ``--vectors FILE`` ranks the pool for each row of the file (the formats of
the ``vectors`` kernel, :mod:`features._vectors_file`, with its checks and the model's
dimension).
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


#: the query of the README and of a model with no test captions
DEFAULT_QUERY = "a dog runs on the beach"


def example_sentence(model) -> str:
    """A query the model knows: the first test-pool caption whose every word (after the
    model's preprocessing) occurs in its training captions, else its first test-pool caption
    (:data:`DEFAULT_QUERY` without one)."""
    texts = [t.rstrip(" .") for t in model.caption_pool.texts]
    for text in texts:
        tokens = model.text.tokens(text)
        if tokens and all(t in model.text.vocabulary for t in tokens):
            return text
    return texts[0] if texts else DEFAULT_QUERY


def example_query(model, path: str) -> str:
    """The command of a query of the model file ``path`` that runs (:func:`example_sentence`),
    on one line."""
    return command(
        ["kcca", "query", example_sentence(model), "--model", path], "`", "`", width=10**6
    )


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
    p.add_argument("sentence", nargs="*", help="the query sentence (quote it, or give words)")
    add_model_option(p)
    add_vectors_option(p, "captions", "rank the pool's images for each caption vector of FILE")
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


def add_vectors_option(p: argparse.ArgumentParser, items: str, what: str) -> None:
    """``--vectors FILE``: the queries as vectors (``items``: whose), for models whose kernel
    of that side reads vectors files."""
    p.add_argument(
        "--vectors",
        default=None,
        metavar="FILE",
        help=f"{what} (the {items}' vectors, for a model whose kernel of them is vectors: "
        ".npz of ids and vectors, .npy with NAME.ids.txt, or .parquet)",
    )


def check_vectors_args(args: argparse.Namespace, given: bool, what: str, pool: str | None) -> None:
    """``--vectors`` or the query ``what`` (``given``: whether it was given), not both; with
    ``--vectors`` no ``--html`` and no other pool (``pool``: that flag, when given)."""
    from kcca.errors import DataError

    if args.vectors and given:
        raise DataError(
            f"--vectors gives the queries as vectors; {what} is a query too",
            fix=f"give either {what} or --vectors FILE, not both",
        )
    if not args.vectors and not given:
        raise DataError(
            f"no query: give {what}, or --vectors FILE for a model whose kernel reads vectors",
            fix=f"give {what}, or --vectors FILE",
        )
    if args.vectors and args.html:
        raise DataError(
            "--html shows one query's ranking; --vectors ranks for every row of its file",
            fix="drop --html (the rankings are printed)",
        )
    if args.vectors and pool:
        raise DataError(
            f"--vectors ranks the model's test pool; {pool} gives another pool",
            fix=f"drop {pool}",
        )
    if args.vectors:
        from kcca._file_kinds import check_regular_file

        check_regular_file(
            args.vectors,
            "--vectors: vectors file",
            fix="give --vectors a file of vectors: .npz of ids and vectors, .npy with "
            "NAME.ids.txt, or .parquet",
        )


def vector_rankings(model, args: argparse.Namespace, side: str) -> list:
    """The rankings of the model's pool for each row of ``--vectors`` (``side``: whose
    vectors, ``text`` or ``image``)."""
    if side == "text":
        return model.rank_images_for_vectors(args.vectors, top=args.top)
    return model.rank_captions_for_vectors(args.vectors, top=args.top)


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
    check_vectors_args(args, bool(args.sentence), "a sentence", "--images" if args.images else None)
    if args.vectors:
        model = load_model_from_args(args)
        for ranking in vector_rankings(model, args, "text"):
            print(with_path("query: ", args.vectors, f": caption {ranking.query}"))
            print_search(model, ranking, model.image_pool)
        return 0
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
            if "fix" in vars(exc):  # the model cannot encode images: its own fix
                raise
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
        if "fix" in vars(exc):  # the model cannot encode sentences: its own fix
            raise
        example = example_query(model, args.model)
        raise with_fix(exc, f"use words of the model's training captions, e.g. {example}") from exc
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
    print_search(model, ranking, pool)
    if args.html:
        from kcca._model import html

        path = html.write(args.html, html.search_page(model, ranking, pool))
        print(with_path("wrote ", path))
    return 0


def print_search(model, ranking, pool) -> None:
    """The table of an image-search ranking of ``pool``: rank, image, Borda points, cosine
    and the image's first caption when the pool has captions."""
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
