"""``kcca similar-words``: the nearest words of a word under one lexical similarity (Figure 3).

Prints the ``k`` most similar words with their word-kernel values (the cosine of eq. 17-18, raw,
before Section 3.5.1's thresholds, which never change the top of a list) and, for *rider* and
*swim*, the paper's Figure 3 values beside them. ``--values similarity`` prints the underlying
similarity instead: eq. 22 between first noun senses for Lin (Figure 3's Lin column shows these),
the PPMI of eq. 24 for the distributional ones, the eq. 25 component for alignment.
"""

from __future__ import annotations

import argparse

from kcca._cli.common import check_count, subparser
from kcca._cli.lines import command, wrap
from kcca._names import WORD_KERNELS

SIMILARITIES = WORD_KERNELS

#: Figure 3 of the paper: similarity -> word -> [(neighbour, value)]
FIGURE3 = {
    "align": {
        "rider": [
            ("biker", 0.86),
            ("bicyclist", 0.82),
            ("cyclist", 0.79),
            ("bmx", 0.75),
            ("bicycler", 0.73),
        ],
        "swim": [
            ("retrieve", 0.56),
            ("paddle", 0.54),
            ("dive", 0.52),
            ("come", 0.38),
            ("wade", 0.31),
        ],
    },
    "dist-ic": {
        "rider": [
            ("bike", 0.41),
            ("dirt", 0.35),
            ("motocross", 0.33),
            ("motorcycle", 0.33),
            ("ride", 0.33),
        ],
        "swim": [
            ("pool", 0.53),
            ("trunk", 0.35),
            ("water", 0.34),
            ("dive", 0.30),
            ("goggles", 0.29),
        ],
    },
    "dist-ext": {
        "rider": [
            ("ride", 0.21),
            ("horse", 0.20),
            ("race", 0.19),
            ("bike", 0.17),
            ("jockey", 0.16),
        ],
        "swim": [("fish", 0.21), ("water", 0.18), ("sea", 0.18), ("pool", 0.18), ("beach", 0.17)],
    },
    "lin": {
        "rider": [
            ("traveler", 0.94),
            ("cyclist", 0.89),
            ("bicyclist", 0.89),
            ("horseman", 0.84),
            ("jockey", 0.84),
        ],
        "swim": [
            ("bathe", 0.85),
            ("sport", 0.85),
            ("football", 0.77),
            ("activity", 0.75),
            ("soccer", 0.73),
        ],
    },
}
FIGURE3_NOTE = {
    "dist-ext": "paper: D_BNC (British National Corpus); here D_ext (NLTK corpora)",
}
#: what Figure 3's column of a similarity shows where it is not word-kernel values
FIGURE3_KIND = {"lin": "eq. 22 similarities"}
#: what --values similarity prints for each similarity
VALUE_KINDS = {
    "lin": "eq. 22 similarities",
    "dist-ic": "PPMI values (eq. 24)",
    "dist-ext": "PPMI values (eq. 24)",
    "align": "eq. 25 components",
}


def add_parser(sub) -> argparse.ArgumentParser:
    p = subparser(
        sub,
        "similar-words",
        "Print the nearest words of WORD under a lexical "
        "similarity (word-kernel values, as in Figure 3).",
        run,
    )
    p.add_argument("word", metavar="WORD", help="a (lemmatised, lower-case) word, e.g. rider")
    p.add_argument(
        "--similarity",
        "-s",
        choices=SIMILARITIES,
        default="align",
        help="which word kernel (default: align)",
    )
    p.add_argument("-k", type=int, default=5, help="how many neighbours (default 5)")
    p.add_argument(
        "--values",
        choices=("kernel", "similarity"),
        default="kernel",
        help="kernel: cosine word-kernel values (default); similarity: the underlying "
        "similarity (eq. 22 for lin, PPMI for dist-ic/dist-ext, eq. 25 for align)",
    )
    p.add_argument("--corpus", default="flickr8k", help="flickr8k (default) or demo")
    return p


def _similarity_neighbours(builder, name: str, word: str, k: int) -> list[tuple[str, float]]:
    import numpy as np

    if name == "lin":
        return builder.similarity("lin").nearest_similar(word, k)
    est = builder.similarity(name)
    rows = est.rows_ if name != "align" else est.vocabulary_
    cols = est.columns_ if name != "align" else est.vocabulary_
    if word not in rows:
        return []
    row = est.vectors_[rows.index(word)]
    row = np.asarray(row.todense()).ravel() if hasattr(row, "todense") else np.asarray(row)
    order = [j for j in np.lexsort((np.array(cols), -row)) if cols[j] != word][:k]
    return [(cols[j], float(row[j])) for j in order if row[j] > 0]


#: the word kernels whose underlying similarity values --values similarity can show
SIMILARITY_VALUES = ("lin", "dist-ic", "dist-ext", "align")


def _check_arguments(args: argparse.Namespace) -> None:
    """``-k`` and ``--values similarity`` checked before the corpus is read."""
    from kcca.errors import DataError

    check_count("-k", args.k, "give -k 5 (the default) or another count")
    if args.values == "similarity" and args.similarity not in SIMILARITY_VALUES:
        raise DataError(
            f"--values similarity shows the values of {', '.join(SIMILARITY_VALUES)}; "
            f"{args.similarity} has none of its own",
            fix=f"use --values kernel with {args.similarity}, or --similarity one of "
            f"{', '.join(SIMILARITY_VALUES)}",
        )


def run(args: argparse.Namespace) -> int:
    from kcca._cli.common import cache_from_args
    from kcca._cli.environment_faults import check_outputs
    from kcca.data import load_corpus
    from features.text._word_kernels import WordKernelBuilder, WordKernelConfig

    _check_arguments(args)
    check_outputs(args)
    corpus = load_corpus(args.corpus, args.data_dir, seed=args.seed, images=False)
    builder = WordKernelBuilder(
        corpus, WordKernelConfig(seed=args.seed), cache_from_args(args), progress=not args.quiet
    )
    word = args.word.lower()
    if args.values == "kernel":
        kernel = builder.kernel(args.similarity, threshold=False)
        found = word in kernel.index
        neighbours = kernel.nearest(word, args.k)
    else:
        neighbours = _similarity_neighbours(builder, args.similarity, word, args.k)
        found = bool(neighbours)
    paper = FIGURE3.get(args.similarity, {}).get(word, [])
    print(f"{args.similarity} ({args.values}) neighbours of {word!r}:")
    if not found:
        print(
            f"  {word!r} is not in the {args.similarity} vocabulary: it is similar only to itself"
        )
    ours_kind = "word-kernel values" if args.values == "kernel" else VALUE_KINDS[args.similarity]
    theirs_kind = FIGURE3_KIND.get(args.similarity, "word-kernel values")
    rows = max(len(neighbours), len(paper) if args.k >= len(paper) else 0)
    if paper:
        same = ours_kind == theirs_kind
        print(
            wrap(
                f"  ours: {ours_kind}; Figure 3: {theirs_kind}"
                + ("" if same else " (different quantities: not comparable)"),
                continuation="    ",
            )
        )
        if not same:
            values = "similarity" if args.values == "kernel" else "kernel"
            other = [
                "kcca", "similar-words", word, "--similarity", args.similarity,
                "--values", values,
            ]  # fmt: skip
            print(command(other, "  ours of Figure 3's kind: `", "`"))
        print(f"  {'ours':<24s}  Figure 3")
    for i in range(rows):
        ours = f"{neighbours[i][0]:<16s} {neighbours[i][1]:.2f}" if i < len(neighbours) else ""
        theirs = f"{paper[i][0]:<14s} {paper[i][1]:.2f}" if i < len(paper) else ""
        print(f"  {ours:<24s}  {theirs}".rstrip())
    if paper and args.similarity in FIGURE3_NOTE:
        print(f"  note: {FIGURE3_NOTE[args.similarity]}")
    return 0
