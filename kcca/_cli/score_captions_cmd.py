"""``kcca score-captions``: COCO caption metrics for a result file, or human agreement.

    kcca score-captions --references R.json --candidates C.json [--per-item OUT.json]
    kcca score-captions --human-agreement [--data-dir DIR] [--split test] [--plot F.png]

The first form reads a COCO annotation file and a COCO result file, prints one line per
metric (BLEU-1..4, ROUGE-L, CIDEr-D, CIDEr, and METEOR wherever pycocoevalcap's Meteor 1.5
jar and data are installed, Java or not: ``--meteor-engine python``, the default, computes the
jar's numbers in Python; ``java`` runs the jar; otherwise the line says what is missing), and
with ``--per-item OUT.json`` writes corpus and per-item scores as JSON there (no file without
it, as pycocoevalcap's ``COCOEvalCap`` prints and writes nothing).
The second runs Chen et al. (2015) Section 4's human-agreement analysis on Flickr 8K.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Hashable, Sequence

from kcca._cli.common import subparser

METRIC_CHOICES = ("bleu", "rouge_l", "cider_d", "cider", "meteor")
#: --human-agreement's defaults (the flags default to None, so that a given one is seen)
AGREEMENT_SPLIT = "test"
VOCABULARY_SIZE = 1000


def add_parser(sub) -> argparse.ArgumentParser:
    p = subparser(
        sub,
        "score-captions",
        "Score candidate captions with the COCO metrics (BLEU-1..4, ROUGE-L, "
        "CIDEr-D, CIDEr, METEOR if pycocoevalcap's Meteor data is installed), or run "
        "the human-agreement analysis on Flickr 8K.",
        run,
    )
    p.add_argument("--references", "-r", help="COCO annotation JSON (reference captions)")
    p.add_argument("--candidates", "-c", help="COCO result JSON: [{image_id, caption}, ...]")
    p.add_argument(
        "--metrics",
        default=",".join(METRIC_CHOICES),
        help="comma-separated subset of "
        + ", ".join(METRIC_CHOICES)
        + " (default: all; METEOR is reported as unavailable without the Meteor "
        "1.5 jar and data of pycocoevalcap 1.2)",
    )
    p.add_argument("--no-meteor", action="store_true", help="do not try METEOR")
    p.add_argument(
        "--meteor-engine",
        choices=("python", "java"),
        default="python",
        help="METEOR engine: python (default; the jar's numbers without Java, its "
        "paraphrase index cached on first use) or java (runs meteor-1.5.jar as "
        "pycocoevalcap does; needs Java)",
    )
    p.add_argument(
        "--no-tokenize",
        action="store_true",
        help="captions are already tokenised (skip the PTB-style tokeniser)",
    )
    p.add_argument(
        "--tokenize-per-caption",
        action="store_true",
        help="tokenise each caption on its own; by default captions are tokenised as "
        "pycocoevalcap does, all references in one batch and all candidates in another, "
        "where the lexer's lookahead reaches the next caption (a final 'Wii U.' loses its "
        "period before a caption starting 'A ...')",
    )
    p.add_argument(
        "--allow-empty",
        action="store_true",
        help='score captions with no words after tokenisation ("", "...") as '
        "pycocoevalcap does (an empty candidate scores 0), printing a warning for "
        "each; by default they are an error listing them",
    )
    p.add_argument(
        "--per-item",
        metavar="OUT.json",
        help="write corpus and per-item scores as JSON here (default: print the corpus "
        "scores, write no file)",
    )
    p.add_argument("--json", action="store_true", help="print the corpus scores as JSON")
    g = p.add_argument_group("human agreement (Chen et al. 2015, Section 4)")
    g.add_argument(
        "--human-agreement",
        action="store_true",
        help="leave-one-out metric upper bound and word-level human precision / "
        "recall on Flickr 8K (from --data-dir)",
    )
    g.add_argument(
        "--split",
        default=None,
        choices=("train", "dev", "test", "all"),
        help=f"Flickr 8K images to use (default: {AGREEMENT_SPLIT})",
    )
    g.add_argument(
        "--vocabulary-size",
        type=int,
        default=None,
        help=f"words for the word-level analysis (default {VOCABULARY_SIZE})",
    )
    g.add_argument("--plot", metavar="FILE.png", help="precision-recall plot (PNG)")
    g.add_argument("--out", metavar="FILE.json", help="write the full report as JSON")
    return p


def _metrics(args: argparse.Namespace) -> list[str]:
    """The metrics of ``--metrics`` (normalised names); an unknown or missing name is a
    :class:`~kcca.errors.UnknownNameError` / :class:`~kcca.errors.DataError` naming it."""
    from kcca.errors import DataError, unknown_name

    fix = (
        f"give --metrics a comma-separated subset of {','.join(METRIC_CHOICES)} "
        "(e.g. --metrics bleu,cider), or leave it out for all"
    )
    names = [m.strip().lower().replace("-", "_") for m in args.metrics.split(",") if m.strip()]
    if not names:
        raise DataError(f"--metrics names no metric: {args.metrics!r}", fix=fix)
    bad = [m for m in names if m not in METRIC_CHOICES]
    if bad:
        raise unknown_name("metric", bad[0], METRIC_CHOICES, where="--metrics", fix=fix)
    if args.no_meteor:
        names = [m for m in names if m != "meteor"]
    if args.meteor_engine != "python" and "meteor" not in names:
        raise DataError(
            f"--meteor-engine {args.meteor_engine} chooses how METEOR is scored, and METEOR is "
            "not among the metrics" + (" (--no-meteor)" if args.no_meteor else ""),
            fix="drop --meteor-engine, or score METEOR (add meteor to --metrics, no --no-meteor)",
        )
    return names


#: (dest, flag) of the flags only scoring a result file reads, and only --human-agreement reads
SCORING_FLAGS = (
    ("references", "--references"),
    ("candidates", "--candidates"),
    ("per_item", "--per-item"),
    ("json", "--json"),
    ("no_tokenize", "--no-tokenize"),
    ("tokenize_per_caption", "--tokenize-per-caption"),
    ("allow_empty", "--allow-empty"),
)
AGREEMENT_FLAGS = (
    ("split", "--split"),
    ("vocabulary_size", "--vocabulary-size"),
    ("plot", "--plot"),
    ("out", "--out"),
)


def _refuse_other_form_flags(args: argparse.Namespace) -> None:
    """Refuse a flag of the form not run (never drop it silently)."""
    from kcca.errors import DataError

    if args.human_agreement:
        given = [flag for dest, flag in SCORING_FLAGS if getattr(args, dest)]
        if given:
            raise DataError(
                f"--human-agreement scores Flickr 8K's own captions, so {', '.join(given)} "
                "would change nothing",
                fix=f"drop {', '.join(given)}, or score a result file (--references and "
                "--candidates without --human-agreement)",
            )
        return
    if args.no_tokenize and args.tokenize_per_caption:
        raise DataError(
            "--tokenize-per-caption chooses how captions are tokenised, and --no-tokenize "
            "says they already are",
            fix="drop one of --no-tokenize and --tokenize-per-caption",
        )
    given = [flag for dest, flag in AGREEMENT_FLAGS if getattr(args, dest) is not None]
    if given:
        raise DataError(
            f"{', '.join(given)} belong to --human-agreement, which is not asked for",
            fix=f"add --human-agreement, or drop {', '.join(given)}",
        )


def _metric_params(args: argparse.Namespace) -> dict:
    """Constructor arguments per metric: the METEOR engine, the cache of its paraphrase
    index (``--cache-dir``; ``--no-cache``: built in memory, nothing stored), and whether it
    says when it builds that index (not with ``--quiet``)."""
    cache_dir = None if args.no_cache else (args.cache_dir or "default")
    return {
        "meteor": {
            "engine": getattr(args, "meteor_engine", "python"),
            "cache_dir": cache_dir,
            "progress": not args.quiet,
        }
    }


def run(args: argparse.Namespace) -> int:
    _metrics(args)  # refuse a bad --metrics before reading any file
    _refuse_other_form_flags(args)
    if args.human_agreement:
        return _run_human_agreement(args)
    if not args.references or not args.candidates:
        from kcca.errors import DataError

        missing = [
            f
            for f, v in (("--references", args.references), ("--candidates", args.candidates))
            if not v
        ]
        raise DataError(
            f"{' and '.join(missing)} not given: score-captions scores a result file "
            "against its references",
            fix="give --references (COCO annotations) and --candidates (COCO results), or "
            "--human-agreement to score Flickr 8K's own captions",
        )
    from kcca.captions._coco_io import check_id_types

    from kcca._cli.environment_faults import check_outputs

    check_outputs(args, ("--per-item", args.per_item, False), cache=False)
    refs, cands = _read_captions(args)
    check_id_types(refs, cands, args.references, args.candidates)
    ev = _evaluate(args, refs, cands)
    # the scores are printed before the per-item file is written: a failed write keeps them
    if args.json:
        print(json.dumps({"corpus": ev.corpus, "unavailable": ev.unavailable}, indent=1))
    else:
        print(
            f"{len(ev.ids)} images scored"
            + (
                f"; {len(ev.unscored_reference_ids)} reference images have no candidate "
                "and were not scored"
                if ev.unscored_reference_ids
                else ""
            )
        )
        print(ev.table())
    sys.stdout.flush()
    if args.per_item:
        _write_per_item(args, ev)
    return 0


def _write_per_item(args: argparse.Namespace, ev) -> None:
    """The corpus and per-item scores of ``ev`` as JSON in ``--per-item``'s file, with what was
    scored and how; its path printed after it (not with ``--json``)."""
    from kcca.captions._coco_io import write_per_item_json

    write_per_item_json(
        args.per_item,
        ev.per_item_records(),
        ev.corpus,
        {
            "references": str(args.references),
            "candidates": str(args.candidates),
            "n_images": len(ev.ids),
            "unscored_reference_images": len(ev.unscored_reference_ids),
            "unavailable": ev.unavailable,
            "tokenized": ev.tokenized,
            "tokenizer_context": ev.tokenizer_context if ev.tokenized else None,
            "empty_candidates": ev.empty_candidate_ids,
            "empty_references": [list(k) for k in ev.empty_reference_ids],
            "metric_notes": {
                "CIDEr-D": "pycocoevalcap's 'CIDEr' (CIDEr-D)",
                "CIDEr": "plain CIDEr, Vedantam et al. 2015 eq. 16-18, times 10 as the "
                "original CIDEr code",
            },
        },
    )
    if not args.json:
        print(f"per-item scores: {args.per_item}")


def _read_captions(args: argparse.Namespace) -> tuple[dict, dict]:
    """The references and candidates of the command's files; an empty caption is named with
    its file and the fix --allow-empty."""
    from kcca.captions._coco_io import load_coco_references, load_coco_results
    from kcca.captions._scorer import EmptyCaptionError

    try:
        refs = load_coco_references(args.references, allow_empty=args.allow_empty)
        cands = load_coco_results(args.candidates, allow_empty=args.allow_empty)
    except EmptyCaptionError as exc:
        raise EmptyCaptionError(str(exc), fix=EMPTY_FIX) from None
    return refs, cands


#: the fix of an empty caption: words, or --allow-empty
EMPTY_FIX = (
    'give those captions words (a result file with "..." or "" captions usually means a '
    "generation bug), or add --allow-empty to score them as pycocoevalcap does: an empty "
    "candidate scores 0 in every metric"
)


def _evaluate(args, refs: dict, cands: dict):
    """``evaluate_captions`` for the command: empty captions are an error naming their file,
    or (``--allow-empty``) a ``warning:`` line each."""
    from kcca.captions._evaluate import evaluate_captions
    from kcca.captions._scorer import EmptyCaptionError

    try:
        ev = evaluate_captions(
            refs,
            cands,
            _metrics(args),
            tokenize=not args.no_tokenize,
            metric_params=_metric_params(args),
            allow_empty=args.allow_empty,
            tokenizer_context="caption" if args.tokenize_per_caption else "batch",
        )
    except EmptyCaptionError as exc:
        files = ([args.candidates] if exc.candidate_ids else []) + (
            [args.references] if exc.reference_ids else []
        )
        raise EmptyCaptionError(
            f"{' and '.join(map(str, files))}: {exc}",
            candidate_ids=exc.candidate_ids,
            reference_ids=exc.reference_ids,
            fix=EMPTY_FIX,
        ) from None
    after = " after tokenisation" if ev.tokenized else ""
    for i in ev.empty_candidate_ids:
        print(
            f"warning: {args.candidates}: candidate caption of image id {i!r} "
            f"({cands[i]!r:.40}) has no words{after}; scored 0",
            file=sys.stderr,
        )
    for i, j in ev.empty_reference_ids:
        print(
            f"warning: {args.references}: reference caption {j} of image id {i!r} "
            f"({refs[i][j]!r:.40}) has no words{after}; kept as an empty reference",
            file=sys.stderr,
        )
    _warn_line_breaks(args, ev, refs, cands)
    return ev


def _warn_line_breaks(args, ev, refs: dict, cands: dict, shown: int = 10) -> None:
    """A ``warning:`` line for each caption (up to ``shown`` of each file) holding a line
    break other than \\n, where pycocoevalcap's scores would belong to other images."""
    found = [
        (args.candidates, f"candidate caption of image id {i!r}", cands[i])
        for i in ev.line_break_candidate_ids
    ] + [
        (args.references, f"reference caption {j} of image id {i!r}", refs[i][j])
        for i, j in ev.line_break_reference_ids
    ]
    for path, what, text in found[:shown]:
        print(
            f"warning: {path}: {what} ({text!r:.40}) holds a line break other than \\n; "
            "pycocoevalcap would give it and every later caption of its batch the tokens of "
            "another line (scored here with its own tokens)",
            file=sys.stderr,
        )
    if len(found) > shown:
        print(f"warning: and {len(found) - shown} more captions with line breaks", file=sys.stderr)


def _run_human_agreement(args) -> int:
    from kcca.captions._human_agreement import CHEN_TABLE_I, human_agreement_report
    from kcca._cli.common import data_dir_from_args
    from kcca._cli.environment_faults import check_outputs
    from kcca.data._flickr8k import load_flickr8k

    check_outputs(args, ("--plot", args.plot, False), ("--out", args.out, False), cache=False)
    corpus = load_flickr8k(data_dir_from_args(args), images=False, judgments=False, lemmas=False)
    split = args.split or AGREEMENT_SPLIT
    ids = (
        [i for s in ("train", "dev", "test") for i in corpus.split(s)]
        if split == "all"
        else list(corpus.split(split))
    )
    captions: dict[Hashable, Sequence[str]] = {i: corpus.captions[i] for i in ids}
    rep = human_agreement_report(
        captions,
        _metrics(args),
        VOCABULARY_SIZE if args.vocabulary_size is None else args.vocabulary_size,
        args.plot,
        _metric_params(args),
    )
    print(f"Human agreement on Flickr 8K {split} ({rep['n_images']} images)")
    print(f"NOTE: {rep['note']}")
    print(
        f"{'metric':8s}  {'LOO mean':>8s}  {'min..max over 5 rotations':>26s}  "
        f"{'Chen c5':>7s}  {'Chen c40':>8s}"
    )
    for label, v in rep["leave_one_out"].items():
        if "unavailable" in v:
            print(f"{label:8s}  n/a ({v['unavailable']})")
            continue
        chen = CHEN_TABLE_I.get(label)
        chen_txt = f"{chen[0]:7.3f}  {chen[1]:8.3f}" if chen else f"{'-':>7s}  {'-':>8s}"
        print(
            f"{label:8s}  {v['mean']:8.3f}  {min(v['per_rotation']):12.3f}.."
            f"{max(v['per_rotation']):.3f}  {chen_txt}"
        )
    w = rep["word_agreement"]
    print(
        f"\nWord-level human agreement ({w['vocabulary_size']} most frequent words; "
        "weighted precision / recall, references averaged over all k-subsets):"
    )
    for k, pr in w["per_k_all_words"].items():
        print(f"  k = {k}: precision {pr['precision']:.3f}  recall {pr['recall']:.3f}")
    print(
        f"  model p/k curve (k = {w['model_fit_k']}): mean |model - empirical| precision "
        f"over words = {w['model_mean_abs_precision_error']:.3f}"
    )
    print(
        f"  precision at human recall (PHR) of the model, all words: "
        f"{w['phr_model_all_words']:.3f} (empirical human precision "
        f"{w['human_precision_all_words']:.3f} at recall {w['human_recall_all_words']:.3f})"
    )
    print("  most frequent words (recall = p, precision, model precision at that recall):")
    for row in w["words"][:12]:
        print(
            f"    {row['word']:10s} R {row['recall']:.3f}  P {row['precision']:.3f}  "
            f"model {row['model_precision_at_human_recall']:.3f}"
        )
    if args.plot:
        print(f"plot: {args.plot}")
    if args.out:  # written after the report is printed: a failed write keeps it
        from kcca._cache import write_text_atomic

        sys.stdout.flush()
        write_text_atomic(args.out, json.dumps(rep, indent=1))
        print(f"report: {args.out}")
    return 0
