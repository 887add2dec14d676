"""``kcca caption-analysis``: the companion papers' caption analyses on the real data.

    kcca caption-analysis content-selection [--split test] [--kind lemma|synset] [--ks 1-10]
    kcca caption-analysis bast [--flickr-st DIR]
    kcca caption-analysis keywords [--split test] [--image-kernel BLOCK.npz] [--neighbours 5]

* ``content-selection``: Wang & Gaizauskas (2015) eq. 1-3 in the caption-only adaptation on
  Flickr 8K (concepts = noun lemmas or WordNet synsets): the leave-one-out upper bound and the
  random / unigram / greedy-bigram / bigram+unigram-fusion baselines for each k
  (:mod:`kcca.captions._content_selection`).
* ``bast``: Ellebracht et al. (2015) BAST P/R/F1 of the two released systems' manual tuples
  against the Flickr-ST gold (:mod:`kcca.captions._bast`).
* ``keywords``: Mason & Charniak (2012) keyword metrics on Flickr 8K: leave-one-out upper bound,
  baselines over the captions of the nearest training images under a precomputed image-kernel
  block (``--image-kernel``: an ``.npz`` with ``K`` (test x train), ``row_ids``, ``col_ids``),
  and over seeded random training images (a floor), plus the mode-count diagnostic
  (:mod:`kcca.captions._keywords`).
"""

from __future__ import annotations

import argparse
import logging
import math
import shlex
from pathlib import Path

from kcca._cli.common import (
    add_common_options,
    cache_from_args,
    check_count,
    data_dir_from_args,
    subparser,
)
from kcca._cli.environment_faults import check_outputs
from kcca._cli.lines import wrap
from kcca.errors import DataError

log = logging.getLogger(__name__)


def _ks(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    if not out or min(out) < 1:
        raise argparse.ArgumentTypeError(f"bad k list {text!r}: use e.g. 1-10 or 1,3,5")
    return out


def add_parser(sub) -> argparse.ArgumentParser:
    p = subparser(
        sub,
        "caption-analysis",
        "Companion-paper caption analyses: content selection (Wang & Gaizauskas "
        "2015), BAST (Ellebracht et al. 2015), keywords (Mason & Charniak 2012).",
        # p refers to itself here: mypy cannot tell its type yet
        lambda args: (p.print_help(), 0)[1],  # type: ignore[has-type]
    )
    inner = p.add_subparsers(dest="analysis", metavar="ANALYSIS")

    cs = inner.add_parser("content-selection", help="content-selection P/R/F on Flickr 8K")
    add_common_options(cs)
    cs.set_defaults(func=run_content_selection)
    cs.add_argument("--split", default="test", choices=("train", "dev", "test"))
    cs.add_argument(
        "--kind",
        default="lemma",
        choices=("lemma", "synset"),
        help="concepts: noun lemmas or first WordNet noun synsets",
    )
    cs.add_argument(
        "--tagger",
        default="ngram",
        choices=("ngram", "perceptron"),
        help="POS tagger finding the nouns (default ngram: trains in seconds)",
    )
    cs.add_argument("--ks", type=_ks, default=list(range(1, 11)), help="k values (default 1-10)")
    cs.add_argument("--max-images", type=int, help="only the first N images of the split")

    b = inner.add_parser("bast", help="BAST of the two released systems' manual tuples")
    add_common_options(b)
    b.set_defaults(func=run_bast)
    b.add_argument("--flickr-st", help="Flickr-ST folder (default: DATA_DIR/flickr-st)")

    k = inner.add_parser("keywords", help="keyword metrics and baselines on Flickr 8K")
    add_common_options(k)
    k.set_defaults(func=run_keywords)
    k.add_argument("--split", default="test", choices=("dev", "test"))
    k.add_argument(
        "--image-kernel",
        metavar="BLOCK.npz",
        help="precomputed image-kernel block: arrays K (split x train), row_ids, "
        "col_ids; documents = captions of the nearest training images",
    )
    k.add_argument(
        "--neighbours",
        type=int,
        default=5,
        help="training images per document (default 5, i.e. 25 captions)",
    )
    k.add_argument(
        "--alpha",
        type=float,
        default=0.01,
        help="smoothing of the caption distribution in sentence extraction",
    )
    k.add_argument("--max-images", type=int, help="only the first N images of the split")
    return p


def say(text: str) -> None:
    """Print ``text`` wrapped to 100 columns, each line of it on its own (blank lines kept)."""
    print("\n".join(wrap(line) if line else "" for line in text.split("\n")))


def _table(title: str, header: list[str], rows: list[list]) -> None:
    say(title)
    widths = [max(len(str(h)), *(len(_fmt(r[i])) for r in rows)) for i, h in enumerate(header)]
    print("  " + "  ".join(str(h).ljust(w) for h, w in zip(header, widths)))
    for r in rows:
        print("  " + "  ".join(_fmt(v).ljust(w) for v, w in zip(r, widths)))
    print()


def _fmt(v) -> str:
    if isinstance(v, float):
        return "nan" if math.isnan(v) else f"{v:.3f}"
    return str(v)


def _corpus(args):
    """Flickr 8K without images; a ``--max-images`` below 1 is refused first (0 meant every
    image, and -N all but the last N)."""
    from kcca.data._flickr8k import load_flickr8k

    check_count(
        "--max-images",
        args.max_images,
        "give --max-images 1 or more, or leave it out for every image of the split",
    )
    return load_flickr8k(data_dir_from_args(args), images=False, judgments=False)


# ------------------------------------------------------------ content selection
def run_content_selection(args) -> int:
    import numpy as np

    from features.text._postag import TaggerConfig, load_tagger, tag_tokens
    from kcca.captions._content_selection import (
        CaptionConcepts,
        evaluate_caption_baselines,
        upper_bound,
    )

    check_outputs(args)
    corpus = _corpus(args)
    ids = list(corpus.split(args.split))[: args.max_images]
    model = load_tagger(
        TaggerConfig(kind=args.tagger, seed=args.seed),
        cache=cache_from_args(args),
        progress=not args.quiet,
    )
    cc = CaptionConcepts(kind=args.kind, tagger=lambda toks: tag_tokens(model, toks))
    gold = {i: [cc(c, f"{i}#{m}") for m, c in enumerate(corpus.captions[i])] for i in ids}
    train = [
        cc(c, f"{i}#{m}") for i in corpus.split("train") for m, c in enumerate(corpus.captions[i])
    ]
    n_desc = sum(len(v) for v in gold.values())
    n_empty = sum(1 for v in gold.values() for c in v if not c)
    say(
        f"Content selection, caption-only adaptation (Wang & Gaizauskas 2015, eq. 1-3): "
        f"Flickr 8K {args.split}, {len(ids)} images, {n_desc} captions "
        f"({n_empty} without a {args.kind} concept), concepts = noun {args.kind}s "
        f"(tagger {args.tagger}); priors from {len(train)} training captions."
    )
    say(
        f"Mean unique concepts per caption: "
        f"{np.mean([len(c) for v in gold.values() for c in v]):.2f} "
        f"(paper, boxes: 2.89 per description); mean pool size per image: "
        f"{np.mean([len(set().union(*map(set, v))) for v in gold.values()]):.2f}\n"
    )
    ub = upper_bound({i: [set(c) for c in v] for i, v in gold.items()})
    (p, r, f), (sp, sr, sf) = ub.mean(), ub.std()
    _table(
        "Upper bound (each caption vs the other four):",
        ["", "P", "R", "F"],
        [
            ["ours", f"{p:.2f} ± {sp:.2f}", f"{r:.2f} ± {sr:.2f}", f"{f:.2f} ± {sf:.2f}"],
            ["paper (boxes)", "0.77 ± 0.11", "0.77 ± 0.11", "0.74 ± 0.12"],
        ],
    )
    res = evaluate_caption_baselines(gold, train, ks=args.ks, seed=args.seed)
    rows = []
    for name, results in res.items():
        for k, rr in zip(args.ks, results):
            (p, r, f), (sp, sr, sf) = rr.mean(), rr.std()
            rows.append(
                [name, k, f"{p:.2f} ± {sp:.2f}", f"{r:.2f} ± {sr:.2f}", f"{f:.2f} ± {sf:.2f}"]
            )
    _table(
        "Baselines (pool = union of the image's caption concepts; random seeded):",
        ["system", "k", "P", "R", "F"],
        rows,
    )
    say(
        "Note: the pool holds only mentioned concepts (no unmentioned boxes), so these are not "
        "comparable with the paper's Table 1 on ImageCLEF boxes."
    )
    return 0


# ------------------------------------------------------------------------ BAST
def run_bast(args) -> int:
    from kcca.captions._bast import COMPONENTS, PAPER_FIGURE5_TEXT, gold_counts, score_flickr_st
    from kcca.captions._flickr_st import load_flickr_st

    if args.flickr_st and args.data_dir is not None:
        raise DataError(
            "--data-dir is not read when --flickr-st names the Flickr-ST folder "
            "(BAST reads nothing else)",
            fix=f"kcca caption-analysis bast --flickr-st {shlex.quote(args.flickr_st)}",
        )
    folder = Path(args.flickr_st) if args.flickr_st else data_dir_from_args(args) / "flickr-st"
    data = load_flickr_st(folder)
    s = data.summary()
    n_tacit = sum(t.predicate_tacit for ts in data.gold.values() for t in ts)
    say(
        f"BAST (Ellebracht et al. 2015) on Flickr-ST gold {folder}: {s['images']} images, "
        f"{s['captions']} captions, {s['tuples']} tuples ({n_tacit} with a tacit predicate, "
        f"treated as null); systems: "
        + ", ".join(
            f"{n} {sum(map(len, v.values()))} tuples on {len(v)} images"
            for n, v in data.systems.items()
        )
        + "\n"
    )
    sizes = gold_counts(data)
    res = score_flickr_st(data)
    rows = []
    for c in COMPONENTS:
        row = [c, f"{sizes[c]:.2f}"]
        for name, r in res.items():
            p, rc, f = r.mean("precision")[c], r.mean("recall")[c], r.mean("f1")[c]
            row += [f"{p:.3f}", f"{rc:.3f}", f"{f:.3f}"]
        rows.append(row)
    header = ["component", "gold/img"]
    for name in res:
        header += [f"{name} P", f"{name} R", f"{name} F1"]
    _table(
        "Manual tuples of the generated captions vs the gold (mean over images with gold "
        "tuples; P = 1 without predictions, R = 1 without gold):",
        header,
        rows,
    )
    say("Paper: " + PAPER_FIGURE5_TEXT)
    return 0


# -------------------------------------------------------------------- keywords
def _keyword_report(title: str, results) -> None:
    """One table of keyword baselines: P/R/F1 at 10 and the SemEval best / oot scores."""
    rows = []
    for name, ev in results.items():
        t, s = ev.topk, ev.semeval
        rows.append(
            [
                name,
                100 * t.mean_precision,
                100 * t.mean_recall,
                100 * t.f1,
                100 * s.best_normal[0],
                100 * s.best_mode[0],
                100 * s.oot_normal[0],
                100 * s.oot_mode[0],
                s.n_mode_items,
            ]
        )
    _table(
        title,
        ["baseline", "P@10", "R@10", "F1", "best", "best-mode", "oot", "oot-mode", "mode items"],
        [[r[0], *[float(x) for x in r[1:-1]], r[-1]] for r in rows],
    )


def _keyword_tokens(args, corpus):
    """The evaluated image ids, the training ids, the fitted preprocessor and the content-word
    lemmas of every caption of both (image id -> token lists)."""
    from features.text._pipeline import CaptionPreprocessor

    ids = list(corpus.split(args.split))[: args.max_images]
    train_ids = list(corpus.split("train"))
    pre = CaptionPreprocessor.paper_flickr8k()
    pre.fit([c for i in train_ids for c in corpus.lemmas[i]])
    tok = {
        i: pre.transform(list(corpus.lemmas[i]), [f"{i}#{m}" for m in range(len(corpus.lemmas[i]))])
        for i in (*train_ids, *ids)
    }
    return ids, train_ids, pre, tok


def _kernel_documents(args, corpus, ids, pre, tok) -> dict:
    """Documents of the captions of the ``--neighbours`` nearest training images by the
    precomputed image-kernel block ``--image-kernel`` (test x train); ``tok`` gains the
    training images the block names."""
    import numpy as np

    from kcca.captions._keywords import documents_from_kernel

    z = np.load(args.image_kernel, allow_pickle=False)
    for key in ("K", "row_ids", "col_ids"):
        if key not in z:
            raise DataError(f"{args.image_kernel}: missing array {key!r}")
    rows, cols = [str(x) for x in z["row_ids"]], [str(x) for x in z["col_ids"]]
    unknown = [r for r in ids if r not in set(rows)]
    if unknown:
        raise DataError(f"{args.image_kernel}: no kernel row for image {unknown[0]!r}")
    bad = [c for c in cols if c not in tok and c not in corpus.captions]
    if bad:
        raise DataError(f"{args.image_kernel}: unknown training image {bad[0]!r}")
    for c in cols:
        if c not in tok:
            tok[c] = pre.transform(list(corpus.lemmas[c]))
    return documents_from_kernel(z["K"], rows, cols, tok, args.neighbours)


def run_keywords(args) -> int:
    from kcca.captions._keywords import (
        gold_from_annotators,
        leave_one_out,
        make_baselines,
        mode_diagnostic,
        random_documents,
        run_baselines,
    )

    check_count(
        "--neighbours",
        args.neighbours,
        "give --neighbours 5 (the default: 25 captions per document) or another count",
    )
    corpus = _corpus(args)
    if corpus.lemmas is None:
        raise DataError("keywords needs the released lemma file (Flickr8k.lemma.token.txt)")
    ids, train_ids, pre, tok = _keyword_tokens(args, corpus)
    gold = {i: gold_from_annotators(tok[i], i) for i in ids}
    baselines = make_baselines([tok[i] for i in train_ids], alpha=args.alpha)
    say(
        f"Keywords (Mason & Charniak 2012) on Flickr 8K {args.split}: {len(ids)} images; gold "
        f"= content-word lemmas (released lemma file, NLTK stop words removed) of the five "
        f"captions as five annotators; idf / corpus frequency from {len(train_ids)} training "
        f"images. 'Document title' does not apply (no title or co-occurring text).\n"
    )
    n, n_mode, modes = mode_diagnostic(gold)
    say(
        f"Mode diagnostic: {n_mode} of {n} images have a single most frequent keyword; "
        f"most common modes: " + ", ".join(f"{w} ({c})" for w, c in modes.most_common(8)) + "\n"
    )
    loo, skipped = leave_one_out({i: tok[i] for i in ids}, baselines)
    _keyword_report(
        f"Leave-one-out upper bound (4 captions = document, 5th = gold; "
        f"{skipped} held-out captions without keywords skipped), precision in %:",
        loo,
    )
    if args.image_kernel:
        docs = _kernel_documents(args, corpus, ids, pre, tok)
        _keyword_report(
            f"Documents = captions of the {args.neighbours} nearest training images by the "
            f"image kernel ({args.image_kernel}):",
            run_baselines(gold, {i: docs[i] for i in ids}, baselines),
        )
    else:
        say(
            "No --image-kernel block given: the nearest-training-image documents need a "
            "precomputed image-kernel block (test x train); only the random floor is run.\n"
        )
    docs = random_documents(ids, train_ids, tok, args.neighbours, seed=args.seed)
    _keyword_report(
        f"Floor: documents = captions of {args.neighbours} random training images "
        f"(seed {args.seed}):",
        run_baselines(gold, docs, baselines),
    )
    return 0


def run(args) -> int:  # pragma: no cover - the nested parsers set their own func
    return 0
