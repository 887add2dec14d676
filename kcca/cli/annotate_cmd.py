"""``kcca annotate``: rank captions for any image with a saved model (image annotation, eq. 1).

The image is resized to the training images' size, described with the model's saved codebooks
(Section 3.3), its image-kernel row against the training images is projected by each
dev-selected KCCA model, the caption pool is ranked by cosine (eq. 4) and the rankings are
Borda-aggregated (Section 4.1.3). The pool is the model's test pool captions, or ``--captions
FILE`` (one caption per line, or ``ID<TAB>caption``).
"""

from __future__ import annotations

import argparse
import textwrap

from kcca.cli.common import subparser
from kcca.cli.query_cmd import add_model_option, load_model_from_args, print_ranking_head

HELP = "rank captions for an image with a saved model (image annotation)"


def add_parser(sub) -> argparse.ArgumentParser:
    p = subparser(sub, "annotate", HELP, run)
    p.add_argument("image", help="the image file (JPEG, PNG, ...)")
    add_model_option(p)
    p.add_argument(
        "--captions",
        default=None,
        help="rank the captions of this file (one per line, or ID<TAB>caption) "
        "instead of the model's test pool captions",
    )
    return p


def run(args: argparse.Namespace) -> int:
    from kcca.data.images import read_image
    from kcca.file_kinds import check_regular_file

    model = load_model_from_args(args)
    pool = model.caption_pool
    if args.captions:  # a FIFO or a device would be read for ever: named instead
        check_regular_file(
            args.captions,
            "--captions: captions file",
            fix="give --captions a text file (one caption per line, or ID<TAB>caption)",
        )
        pool = model.caption_pool_from_file(args.captions)
    check_regular_file(args.image, "image", fix="give the path of an image file (JPEG, PNG, ...)")
    image = read_image(args.image)
    ranking = model.rank_captions(image, pool=pool, top=args.top)
    ranking.query = str(args.image)
    print(f"image: {args.image} ({image.shape[1]}x{image.shape[0]} pixels)")
    head = f"{'rank':>4}  {'caption id':<28} {'Borda':>6} {'cosine':>7}  caption"
    print_ranking_head(model, ranking, pool, "annotation", "captions", head)
    index = {c: k for k, c in enumerate(pool.ids)}
    for r, (cid, pts, cos) in enumerate(zip(ranking.ids, ranking.points, ranking.cosine), 1):
        text = textwrap.shorten(pool.texts[index[cid]], width=80, placeholder="...")
        print(f"{r:>4}  {cid:<28} {int(pts):>6} {cos:>7.3f}  {text}")
    if args.html:
        from kcca.model import html

        path = html.write(args.html, html.annotation_page(model, ranking, pool, image))
        print(f"wrote {path}")
    return 0
