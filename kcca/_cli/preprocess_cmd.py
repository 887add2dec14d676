"""``kcca preprocess``: run the caption preprocessing of Section 4.1.1 on a corpus.

Fits the pipeline on the training captions, preprocesses every caption, caches the result
(keyed by the preprocessor's config), and prints vocabulary statistics and the logs of spelling
corrections and compound merges.
"""

from __future__ import annotations

import argparse
import json

from kcca._cli.common import cache_from_args, subparser
from kcca._cli.lines import wrap


def add_parser(sub) -> argparse.ArgumentParser:
    from features.text._presets import PRESETS

    p = subparser(
        sub,
        "preprocess",
        "Preprocess captions (tokenise, compounds, spelling, "
        "stop words, lemmas; Section 4.1.1) and print vocabulary statistics.",
        run,
    )
    p.add_argument(
        "--corpus",
        default="flickr8k",
        help="flickr8k (from --data-dir), demo, or a JSON split file",
    )
    p.add_argument(
        "--split",
        default="train",
        help="split whose statistics are printed (the fit is always on train)",
    )
    p.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        default=None,
        help="named configuration (default: the corpus's reproduction preset, "
        "flickr8k-lemma for Flickr 8K)",
    )
    p.add_argument(
        "--source",
        choices=["captions", "lemmas"],
        default=None,
        help="override the preset's caption source",
    )
    for step in ("spelling", "compounds", "lemmatize"):
        g = p.add_mutually_exclusive_group()
        g.add_argument(
            f"--{step}", dest=step, action="store_true", default=None, help=f"switch {step} on"
        )
        g.add_argument(f"--no-{step}", dest=step, action="store_false", help=f"switch {step} off")
    p.add_argument("--no-stop-words", action="store_true", help="keep stop words")
    p.add_argument(
        "--split-hyphens",
        action="store_true",
        default=None,
        help="break hyphenated tokens (BLEU/ROUGE pipeline)",
    )
    p.add_argument(
        "--tagger",
        choices=["perceptron", "ngram", "none"],
        default=None,
        help="POS tagger for lemmatisation",
    )
    p.add_argument("--min-count", type=int, default=5, help="vocabulary threshold (default 5)")
    p.add_argument(
        "--show",
        type=int,
        default=20,
        metavar="N",
        help="show N entries of each log and of the most frequent words (-1: all)",
    )
    p.add_argument("--json", action="store_true", help="print the statistics as JSON")
    return p


def preset_used(args: argparse.Namespace, corpus_name: str) -> str:
    """``--preset``, else the corpus's reproduction preset (``flickr8k-lemma`` for Flickr 8K)."""
    from features.text._presets import default_preset

    return args.preset or default_preset(corpus_name)


def preset_text(args: argparse.Namespace, corpus_name: str) -> str:
    """``preset NAME``, saying whether it is the corpus's default and which flags change it."""
    preset = preset_used(args, corpus_name)
    given = [
        f"--{name.replace('_', '-')}" if value else f"--no-{name}"
        for name in ("spelling", "compounds", "lemmatize")
        if (value := getattr(args, name)) is not None
    ]
    given += [
        flag
        for flag, on in (
            (f"--source {args.source}", args.source is not None),
            ("--no-stop-words", args.no_stop_words),
            ("--split-hyphens", args.split_hyphens),
            (f"--tagger {args.tagger}", args.tagger is not None),
        )
        if on
    ]
    origin = "given" if args.preset else f"the default for {corpus_name}"
    return f"preset {preset} ({origin}" + (f"; changed by {' '.join(given)})" if given else ")")


def _preprocessor(args: argparse.Namespace, corpus_name: str):
    from features.text._pipeline import CaptionPreprocessor

    overrides = {}
    for name in ("source", "spelling", "compounds", "lemmatize", "split_hyphens"):
        value = getattr(args, name)
        if value is not None:
            overrides[name] = value
    if args.no_stop_words:
        overrides["stop_words"] = None
    if args.tagger is not None:
        overrides["tagger"] = None if args.tagger == "none" else args.tagger
    overrides["seed"] = args.seed
    preset = preset_used(args, corpus_name)
    pre = CaptionPreprocessor.from_preset(preset, **overrides)
    if args.tagger is not None and not pre.lemmatize:
        from kcca.errors import DataError

        raise DataError(
            f"--tagger tags the words for the lemmatiser, which is off (preset {preset}"
            + (", --no-lemmatize)" if args.lemmatize is False else ")"),
            fix="add --lemmatize, or drop --tagger",
        )
    return pre


def run(args: argparse.Namespace) -> int:
    from features.text._corpus_tokens import preprocess_corpus
    from features.text._vocabulary import token_counts, vocabulary_stats
    from kcca._cli.environment_faults import check_outputs
    from kcca.data import load_corpus

    check_outputs(args)
    corpus = load_corpus(args.corpus, args.data_dir, seed=args.seed, images=False)
    pre = _preprocessor(args, corpus.name)
    preset = preset_used(args, corpus.name)
    result = preprocess_corpus(corpus, pre, cache=cache_from_args(args), progress=not args.quiet)
    tokens = result.split_tokens(corpus, args.split)
    stats = vocabulary_stats(tokens, args.min_count)
    counts = token_counts(tokens)
    n = None if args.show < 0 else args.show
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
    if args.json:
        print(
            json.dumps(
                {
                    "corpus": corpus.name,
                    "preset": preset,
                    "split": args.split,
                    "params": result.params,
                    "stats": stats,
                    "top_words": top,
                    "corrections": result.corrections[:n],
                    "merges": result.merges[:n],
                    "n_corrections": len(result.corrections),
                    "n_merges": len(result.merges),
                },
                indent=1,
                default=list,
            )
        )
        return 0
    print(wrap(f"corpus {corpus.name}, {preset_text(args, corpus.name)}"))
    print(f"fitted on train, statistics of {args.split}")
    print(wrap("config: " + ", ".join(f"{k}={v!r}" for k, v in sorted(result.params.items()))))
    print(
        f"  captions {stats['captions']}, tokens {stats['tokens']}, types {stats['types']}, "
        f"mean length {stats['mean_length']:.2f}, empty captions {stats['empty_captions']}"
    )
    print(f"  vocabulary (seen >= {args.min_count} times): {stats['vocabulary']} words")
    print(wrap("  most frequent: " + ", ".join(f"{w} {c}" for w, c in top), continuation="    "))
    steps = (
        ("spelling", "spelling corrections", result.corrections, "token types", "tokens"),
        ("compounds", "compound merges", result.merges, "variants", "occurrences"),
    )
    for step, what, log, kinds, units in steps:
        if not result.params.get(step):
            why = f"--no-{step}" if getattr(args, step) is False else f"preset {preset}"
            print(f"{what}: off ({why}; --{step} switches them on)")
            continue
        print(
            f"{what} on the training captions: {len(log)} {kinds} "
            f"({sum(c for _, _, c in log)} {units})"
        )
        for before, after, c in log[:n]:
            print(f"  {before} -> {after}  ({c})")
    return 0
