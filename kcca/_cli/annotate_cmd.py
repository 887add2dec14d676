"""``kcca annotate``: rank captions for any image with a saved model (image annotation, eq. 1).

The image is resized to the training images' size, described with the model's saved codebooks
(Section 3.3), its image-kernel row against the training images is projected by each
dev-selected KCCA model, the caption pool is ranked by cosine (eq. 4) and the rankings are
Borda-aggregated (Section 4.1.3). The pool is the model's test pool captions, or ``--captions
FILE`` (one caption per line, or ``ID<TAB>caption``). A model whose image kernel reads vectors
(``vectors``) takes images as vectors instead: ``--vectors FILE`` ranks the pool for each row
of the file (the formats of the ``vectors`` kernel, :mod:`features._vectors_file`, with its
checks and the model's dimension).
"""

from __future__ import annotations

import argparse

from kcca._cli.common import subparser
from kcca._cli.lines import WIDTH, with_path
from kcca._cli.query_cmd import (
    add_model_option,
    add_vectors_option,
    check_model_args,
    check_vectors_args,
    clip,
    load_model_from_args,
    print_ranking_head,
    vector_rankings,
    with_fix,
)

HELP = "rank captions for an image with a saved model (image annotation)"


def add_parser(sub) -> argparse.ArgumentParser:
    p = subparser(sub, "annotate", HELP, run)
    p.add_argument("image", nargs="?", help="the image file (JPEG, PNG, ...)")
    add_model_option(p)
    add_vectors_option(p, "images", "rank the pool's captions for each image vector of FILE")
    p.add_argument(
        "--captions",
        default=None,
        help="rank the captions of this file (one per line, or ID<TAB>caption) "
        "instead of the model's test pool captions",
    )
    return p


def run(args: argparse.Namespace) -> int:
    from kcca.data._images import read_image
    from kcca._file_kinds import check_regular_file
    from kcca._model import QueryError
    from kcca._model.saved import read_caption_file

    # the flags, the captions file and the image before the model loads (the slow part)
    check_model_args(args)
    check_vectors_args(
        args, args.image is not None, "an image file", "--captions" if args.captions else None
    )
    if args.vectors:
        model = load_model_from_args(args)
        for ranking in vector_rankings(model, args, "image"):
            print(with_path("image: ", args.vectors, f": image {ranking.query}"))
            print_annotation(model, ranking, model.caption_pool)
        return 0
    captions_fix = (
        "give --captions a text file of captions (one per line, or ID<TAB>caption), or drop "
        "--captions to rank the model's test captions"
    )
    captions = None
    if args.captions:  # a FIFO or a device would be read for ever: named instead
        check_regular_file(args.captions, "--captions: captions file", fix=captions_fix)
        try:
            captions = read_caption_file(args.captions)
        except QueryError as exc:  # a fault of the text (not UTF-8, a BOM) keeps its own fix
            raise (exc if "fix" in vars(exc) else with_fix(exc, captions_fix)) from exc
    check_regular_file(args.image, "image", fix="give the path of an image file (JPEG, PNG, ...)")
    image = read_image(args.image)
    model = load_model_from_args(args)
    pool = model.caption_pool
    if captions is not None:
        ids, texts = captions
        try:
            pool = model.caption_pool_from_texts(texts, ids, name=str(args.captions))
        except QueryError as exc:
            raise (exc if "fix" in vars(exc) else with_fix(exc, captions_fix)) from exc
    ranking = model.rank_captions(image, pool=pool, top=args.top)
    ranking.query = str(args.image)
    print(with_path("image: ", args.image, f" ({image.shape[1]}x{image.shape[0]} pixels)"))
    print_annotation(model, ranking, pool)
    if args.html:
        from kcca._model import html

        path = html.write(args.html, html.annotation_page(model, ranking, pool, image))
        print(with_path("wrote ", path))
    return 0


def print_annotation(model, ranking, pool) -> None:
    """The table of an annotation ranking of ``pool``: rank, caption id, Borda points,
    cosine and the caption."""
    w = max([len("caption id"), *map(len, ranking.ids)])
    head = f"{'rank':>4}  {'caption id':<{w}} {'Borda':>6} {'cosine':>7}  caption"
    print_ranking_head(model, ranking, pool, "annotation", "captions", head)
    index = {c: k for k, c in enumerate(pool.ids)}
    for r, (cid, pts, cos) in enumerate(zip(ranking.ids, ranking.points, ranking.cosine), 1):
        line = f"{r:>4}  {cid:<{w}} {int(pts):>6} {cos:>7.3f}"
        print(f"{line}  {clip(pool.texts[index[cid]], WIDTH - len(line) - 2)}")
