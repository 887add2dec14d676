"""``kcca evaluate``: score rankings files (Section 4), or reproduce the judgment-only tables.

    kcca evaluate RUN1.json [RUN2.json ...] [--relevance paper|two-thirds|majority]
                  [--judgments DIR] [--compare] [--output OUT.json] [--format text|json|csv]
    kcca evaluate --paper-tables [--output OUT.json]

The rankings file format is documented in :mod:`kcca._evaluate.rankings_io`. ``--judgments``
is a folder holding ``ExpertAnnotations.txt`` and ``CrowdFlowerAnnotations.txt`` (default:
the Flickr 8K text folder under ``--data-dir``). ``--compare`` tests every system against
the first one (McNemar / randomisation, seeded by ``--seed``). What is printed, and in which
``--format``, is :mod:`kcca._evaluate.formatting`'s.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import Callable

from kcca._cli.common import add_protocol_argument, add_relevance_argument, subparser

FORMATS = ("text", "json", "csv")  # of kcca._evaluate.formatting
SAMPLES = 100_000  # randomisation test samples of --compare
FORMAT_HELP = (
    "what is printed for the rankings files: text (default; one block per task, metrics as "
    "rows, systems as columns, at most 100 characters wide), json (one object with every "
    "number: the document --output writes) or csv (a header, then one row per system, task, "
    "kind (metric or coverage) and name, with the value and p_vs_first, the --compare "
    "p-value). With json and csv, notes and messages go to stderr; csv does not cover "
    "--paper-tables"
)


def add_parser(sub) -> argparse.ArgumentParser:
    p = subparser(
        sub,
        "evaluate",
        "Evaluate rankings files (R@k, median rank, S@k, "
        "R-precision, expert, BLEU/ROUGE), or print the judgment-only tables "
        "beside the paper's values.",
        run,
    )
    p.add_argument(
        "rankings",
        nargs="*",
        help="rankings files (JSON, as kcca reproduce writes them under OUT/rankings/); "
        "the first is the reference for --compare",
    )
    p.add_argument(
        "--judgments",
        default=None,
        help="folder with ExpertAnnotations.txt and CrowdFlowerAnnotations.txt "
        "(default: the corpus's own judgment files)",
    )
    add_relevance_argument(
        p,
        "crowd relevance rule (default paper: fraction yes >= 1/2, which "
        "reproduces the paper's counts)",
    )
    p.add_argument(
        "--corpus",
        default=None,
        choices=("flickr8k", "demo"),
        help="flickr8k (from --data-dir) or demo (the demo corpus the rankings "
        "files name, e.g. that of a `kcca demo --n-test ...` run); default: "
        "the corpus the files record",
    )
    p.add_argument("--split", default="test", help="pool the rankings rank (default test)")
    p.add_argument(
        "--ties",
        default="last",
        choices=("last", "first", "mean"),
        help="place of the original item among candidates with its score, for R@k "
        "and median rank: last (default, every table's rule: ties never favour "
        "it), first or mean (how much a system owes to ties; NN systems tie "
        "massively; needs rankings that record ties)",
    )
    p.add_argument(
        "--compare", action="store_true", help="significance of each system against the first"
    )
    p.add_argument(
        "--samples",
        type=int,
        default=None,
        help=f"randomisation test samples of --compare (default {SAMPLES:,})",
    )
    p.add_argument(
        "--no-bleu-rouge", action="store_true", help="skip top-1 BLEU/ROUGE (needs NLTK stop words)"
    )
    p.add_argument(
        "--paper-tables",
        action="store_true",
        help="print Tables 7-10, the BLEU_pre filter statistics and relevance "
        "counts beside the paper's values (needs no rankings)",
    )
    add_protocol_argument(p, ranking=False)
    p.add_argument("--format", default="text", choices=FORMATS, help=FORMAT_HELP)
    p.add_argument("--output", "-o", default=None, help="write the results as JSON here")
    p.add_argument(
        "--no-per-query", action="store_true", help="leave per-query values out of the JSON"
    )
    return p


def _recorded_corpus(path: str) -> str | None:
    """The corpus name a rankings or compact results file records (None when unreadable:
    reading it later gives the clear error)."""
    from kcca.data._errors import DataError
    from kcca._evaluate.compact import is_compact, read_compact

    if is_compact(path):
        try:
            return read_compact(path).corpus
        except DataError:
            return None
    from kcca.data._documents import read_json

    try:
        doc = read_json(path)
    except (OSError, DataError):
        return None
    return doc.get("corpus") if isinstance(doc, dict) else None


def _demo_corpus(rankings: list[str], seed: int):
    """The demo corpus the rankings files were made on (``kcca demo --n-test ...``: the sizes
    and seed are in the corpus name they record); without rankings, the default one."""
    from kcca.data import load_corpus
    from kcca.data._demo import demo_corpus_from_name
    from kcca.data._errors import DataError

    recorded = {
        path: n
        for path, n in zip(rankings, map(_recorded_corpus, rankings))
        if isinstance(n, str) and n.startswith("demo-")
    }
    names = set(recorded.values())
    if len(names) > 1:
        raise DataError(
            f"the rankings files come from different demo corpora: "
            f"{', '.join(sorted(names))}; evaluate one corpus at a time"
        )
    if not names:
        return load_corpus("demo", seed=seed)
    return demo_corpus_from_name(names.pop(), source=next(iter(recorded)))


def corpus_name(args: argparse.Namespace) -> str:
    """``--corpus``, else ``demo`` when every file records a demo corpus, else ``flickr8k``."""
    if args.corpus:
        return args.corpus
    names = [_recorded_corpus(p) for p in args.rankings or []]
    return (
        "demo"
        if names
        and all(isinstance(n, str) and (n == "demo" or n.startswith("demo-")) for n in names)
        else "flickr8k"
    )


def needs_no_data(args: argparse.Namespace) -> bool:
    """Only compact results files of Flickr 8K, and no data folder configured: they are
    evaluated on what they hold (:func:`kcca._evaluate.system.evaluate_compact`)."""
    from kcca.data._paths import DATA_DIR_ENV
    from kcca._evaluate.compact import is_compact

    return (
        corpus_name(args) == "flickr8k"
        and not args.paper_tables
        and bool(args.rankings)
        and all(map(is_compact, args.rankings))
        and args.data_dir is None
        and not os.environ.get(DATA_DIR_ENV)
    )


def load_with_judgments(args: argparse.Namespace):
    """The corpus (no images), with judgments from ``--judgments`` when given."""
    from kcca.data import load_corpus
    from kcca.data._errors import DataError

    args.corpus = corpus_name(args)
    if args.corpus == "demo":
        corpus = _demo_corpus(args.rankings or [], args.seed)
    elif args.corpus == "flickr8k":
        corpus = load_corpus(
            "flickr8k", args.data_dir, images=False, judgments=args.judgments is None, lemmas=False
        )
    else:
        raise DataError(f"unknown corpus {args.corpus!r} for evaluate: use flickr8k or demo")
    if args.judgments is not None:
        from kcca.data._flickr8k import (
            CROWD_FILE,
            EXPERT_FILE,
            read_crowd_judgments,
            read_expert_judgments,
        )

        folder = Path(args.judgments)
        captions = dict(corpus.captions)
        corpus = dataclasses.replace(
            corpus,
            expert=read_expert_judgments(folder / EXPERT_FILE, captions),
            crowd=read_crowd_judgments(folder / CROWD_FILE, captions),
        )
    return corpus


def _refuse_ignored_flags(args: argparse.Namespace) -> None:
    """Refuse a flag that this combination of arguments would ignore (never drop it)."""
    from kcca.errors import DataError

    if not args.rankings:
        given = [
            flag
            for flag, on in (
                ("--compare", args.compare),
                ("--samples", args.samples is not None),
                ("--ties", args.ties != "last"),
                ("--relevance", args.relevance != "paper"),
                ("--no-bleu-rouge", args.no_bleu_rouge),
                ("--no-per-query", args.no_per_query),
            )
            if on
        ]
        if given:
            raise DataError(
                f"{', '.join(given)} apply to rankings files, and --paper-tables alone reads none",
                fix=f"drop {', '.join(given)}, or give the rankings files to evaluate",
            )
    if args.compare and len(args.rankings) < 2:
        raise DataError(
            "--compare tests every rankings file against the first, and there is one file",
            fix="give two or more rankings files (the first is the reference), or drop --compare",
        )
    if args.samples is not None and not args.compare:
        raise DataError(
            "--samples sets the randomisation test of --compare, which is not asked for",
            fix="add --compare (with two or more rankings files), or drop --samples",
        )
    if args.no_per_query and not (args.output or args.format == "json"):
        raise DataError(
            "--no-per-query trims the JSON document, which is neither printed nor written",
            fix="add --output OUT.json or --format json, or drop --no-per-query",
        )


def _refuse_data_flags(args: argparse.Namespace, compacts: dict) -> None:
    """Without the data, compact results files (``compacts``: path -> file read) are evaluated
    on what they hold: refuse ``--judgments`` (needs the captions) and a ``--split`` other
    than the files' pool."""
    from kcca.errors import DataError

    if args.judgments is not None:
        raise DataError(
            "--judgments needs the corpus's captions, and no data folder is set (the compact "
            "results files would be evaluated without the judgments)",
            fix="set the data folder with --data-dir DIR (or KCCA_DATA_DIR), or drop --judgments",
        )
    for path, compact in compacts.items():
        split = compact.split
        if split != args.split:
            raise DataError(
                f"{path} ranks the {split} pool, not that of --split {args.split}",
                fix=f"give --split {split}, or leave --split out for the test pool",
            )


def _stored_rule(args: argparse.Namespace, compacts: dict) -> str | None:
    """The relevance rule of the judged metrics that compact results files read without the
    data hold (None when some file holds none under ``--relevance``)."""
    from kcca._evaluate.compact import stored_metrics_usable
    from kcca._evaluate.relevance import get_rule

    if compacts and all(stored_metrics_usable(c, args.relevance, None) for c in compacts.values()):
        return get_rule(args.relevance).describe()
    return None


def _check_arguments(args: argparse.Namespace) -> None:
    """Refuse a command line with nothing to evaluate, flags that would be ignored and an
    output that cannot be written (before any data is loaded)."""
    from kcca._cli.environment_faults import check_outputs
    from kcca.data._errors import DataError

    if not args.paper_tables and not args.rankings:
        raise DataError("give one or more rankings files, or --paper-tables")
    if args.format == "csv" and args.paper_tables:
        raise DataError(
            "--format csv covers rankings files, not --paper-tables",
            fix="use --format json (or text) with --paper-tables",
        )
    _refuse_ignored_flags(args)
    check_outputs(args, ("--output", args.output, False), cache=False)


def _note_to(text: bool) -> Callable[[str], None]:
    """How notes are printed: on stdout beside the text, on stderr beside json / csv."""
    from kcca._line_width import WIDTH, wrap

    def note(message: str) -> None:
        print(wrap(message, WIDTH), file=sys.stdout if text else sys.stderr)

    return note


def _paper_tables(args: argparse.Namespace, corpus, text: bool) -> dict:
    """The judgment-only tables (Tables 7-10, the relevance counts, expert agreement),
    printed as text when ``text``; returns them for the JSON document."""
    from kcca._evaluate.formatting import jsonable
    from kcca._paper import agreement
    from kcca._paper.judgment_tables import paper_tables_text

    rep = {
        "relevance_counts": agreement.relevance_counts(corpus, args.split),
        "bleu_pre_filter": agreement.bleu_pre_filter(corpus, args.split),
        "table7": agreement.table7_from_paper(),
        "tables8_9": agreement.tables8_9(corpus, args.split),
        "table10": agreement.table10(corpus),
        "random_bleu_rouge": agreement.random_bleu_rouge(corpus, args.split),
        "expert_alpha": agreement.expert_alpha(corpus),
    }
    if text:
        print(paper_tables_text(rep))
    return jsonable(rep)


def _evaluation_context(args: argparse.Namespace, corpus, note: Callable[[str], None]):
    """What the rankings are evaluated with; top-1 BLEU/ROUGE are left out (with a note)
    when NLTK's stop words are missing."""
    from kcca._evaluate.system import EvaluationContext

    ctx = EvaluationContext(
        corpus,
        args.split,
        args.relevance,
        with_bleu_rouge=not args.no_bleu_rouge and corpus is not None,
    )
    if ctx.with_bleu_rouge:
        from features.text._resources import MissingResourceError

        try:
            ctx.score_matrix("bleu")
            ctx.score_matrix("rouge")
        except (LookupError, MissingResourceError) as exc:  # no NLTK stop words: go on
            ctx.with_bleu_rouge = False
            note(f"note: top-1 BLEU/ROUGE not computed: {exc}")
    return ctx


def _evaluations(args: argparse.Namespace, corpus, compacts: dict, ctx, note) -> list:
    """The evaluation of each rankings file (compact results files without the corpus),
    with the notes they carry."""
    from kcca._evaluate.compact import is_compact, read_compact
    from kcca._evaluate.rankings_io import read_rankings
    from kcca._evaluate.system import evaluate_compact, evaluate_system

    # without a corpus every file is compact (needs_no_data)
    evals = [
        evaluate_compact(
            compacts[path] if path in compacts else read_compact(path), ctx, ties=args.ties
        )
        if is_compact(path)
        else evaluate_system(
            read_rankings(path, corpus.pool(args.split)),
            ctx,
            ties=args.ties,
        )
        for path in args.rankings
    ]
    if args.ties != "last":
        note(
            f"note: R@k and median rank with the original item {args.ties} among "
            "candidates of equal score (the tables put it last)"
        )
    for path, e in zip(args.rankings, evals):
        for message in e.notes if is_compact(path) else []:
            note(f"note: {e.system}: {message}")
    return evals


def _significance(args: argparse.Namespace, evals: list) -> dict | None:
    """``--compare``: each system against the first (randomisation test), else None."""
    from kcca._evaluate.system import compare_systems

    if not (args.compare and len(evals) > 1):
        return None
    return {
        e.system: compare_systems(
            e,
            evals[0],
            n_samples=SAMPLES if args.samples is None else args.samples,
            seed=args.seed,
        )
        for e in evals[1:]
    }


def _relevance_rule(args: argparse.Namespace, corpus, compacts: dict, ctx, note) -> str | None:
    """The relevance rule of the judged metrics (the corpus's, or the one stored in the
    compact files), with a note saying it."""
    rel = ctx.relevance
    rule = rel.rule.describe() if rel is not None else _stored_rule(args, compacts)
    if rel is not None:
        assert corpus is not None  # a relevance matrix comes only with a corpus
        note(
            f"relevance rule {rule}: {rel.n_added} pairs added to the "
            f"{len(corpus.pool(args.split))} originals; unjudged pairs count as "
            "not relevant"
        )
    elif rule is not None:
        note(f"relevance rule {rule} (that of the judged metrics stored in the files)")
    return rule


def _rankings_report(args: argparse.Namespace, corpus, compacts: dict, text: bool) -> dict:
    """Evaluate the rankings files, print them (text or csv) and return their part of the
    JSON document."""
    from kcca._evaluate.formatting import evaluation_document, systems_csv, systems_text

    note = _note_to(text)
    note(
        "protocol: the paper's (a pool of one caption per test image, Section 4.1.1; "
        "--protocol all-captions for the later literature's)"
    )
    ctx = _evaluation_context(args, corpus, note)
    evals = _evaluations(args, corpus, compacts, ctx, note)
    significance = _significance(args, evals)
    rule = _relevance_rule(args, corpus, compacts, ctx, note)
    if text:
        print(("\n" if rule is not None else "") + systems_text(evals, significance))
    elif args.format == "csv":
        print(systems_csv(evals, significance))
    return evaluation_document(evals, significance, rule, per_query=not args.no_per_query)


#: flags of the paper's protocol that the all-captions ranks do not use
PAPER_PROTOCOL_FLAGS = (
    ("--paper-tables", "paper_tables", False),
    ("--compare", "compare", False),
    ("--samples", "samples", None),
    ("--ties", "ties", "last"),
    ("--relevance", "relevance", "paper"),
    ("--judgments", "judgments", None),
    ("--corpus", "corpus", None),
    ("--split", "split", "test"),
    ("--no-bleu-rouge", "no_bleu_rouge", False),
    ("--no-per-query", "no_per_query", False),
)


def _all_captions_report(args: argparse.Namespace) -> int:
    """``--protocol all-captions``: the literature's table of each system's all-captions ranks
    file (beside its rankings file, or named itself); needs no data."""
    from kcca._cache import write_text_atomic
    from kcca._cli.environment_faults import check_outputs
    from kcca.errors import DataError
    from kcca._evaluate.protocol_agreement import check_agreement, results_beside
    from kcca._evaluate.protocol_ranks import (
        protocol_ranks_path,
        read_protocol_ranks,
        rerun_with_protocol,
    )
    from kcca._evaluate.protocol_table import protocol_csv, protocol_rows, protocol_text

    given = [flag for flag, name, default in PAPER_PROTOCOL_FLAGS if getattr(args, name) != default]
    if given:
        raise DataError(
            f"{', '.join(given)} belong to the paper's protocol; the all-captions ranks hold "
            "each query's rank and nothing else",
            fix=f"drop {', '.join(given)}, or evaluate the paper's protocol (leave out --protocol)",
        )
    if not args.rankings:
        raise DataError(
            "give the rankings files of a run with --protocol all-captions (or their "
            "<SYSTEM>.all-captions.json files)"
        )
    check_outputs(args, ("--output", args.output, False), cache=False)
    ranked = []
    for name in args.rankings:
        path = protocol_ranks_path(name)
        if not path.is_file():
            raise DataError(
                f"no all-captions ranks beside {name}: {path} does not exist",
                fix=rerun_with_protocol(name),
            )
        ranks = read_protocol_ranks(path)
        named = Path(name)
        results = named if named != path and named.is_file() else results_beside(path)
        if results is not None:
            check_agreement(ranks, path, results)
        ranked.append((ranks.system, ranks))
    rows = protocol_rows(ranked)
    if args.format == "text":
        print(protocol_text(rows))
    elif args.format == "csv":
        print(protocol_csv(rows), end="")
    document = {"protocol": "all-captions", "systems": rows}
    if args.format == "json":
        print(json.dumps(document, indent=1))
    if args.output:
        write_text_atomic(args.output, json.dumps(document, indent=1))
        _note_to(args.format == "text")(f"wrote {args.output}")
    return 0


def run(args: argparse.Namespace) -> int:
    from kcca._cache import write_text_atomic

    if args.protocol == "all-captions":
        return _all_captions_report(args)
    _check_arguments(args)
    text = args.format == "text"
    compacts: dict = {}  # path -> compact results file, each read once
    if needs_no_data(args):
        from kcca._evaluate.compact import read_compact

        compacts = {path: read_compact(path) for path in args.rankings}
        _refuse_data_flags(args, compacts)
        corpus = None
    else:
        corpus = load_with_judgments(args)
    result: dict = {}
    if args.paper_tables:
        assert corpus is not None  # needs_no_data is False with --paper-tables
        result["paper_tables"] = _paper_tables(args, corpus, text)
    if args.rankings:
        result.update(_rankings_report(args, corpus, compacts, text))
    if args.format == "json":
        print(json.dumps(result, indent=1))
    if args.output:
        write_text_atomic(args.output, json.dumps(result, indent=1))
        _note_to(text)(f"wrote {args.output}")
    return 0
