"""``kcca data``: load a corpus, validate it, and print its counts."""

from __future__ import annotations

import argparse
import json

from kcca.cli.common import subparser


def add_parser(sub) -> argparse.ArgumentParser:
    p = subparser(sub, "data", "Load and validate a corpus and print its counts "
                  "(captions, splits, pools, judgments).", run)
    p.add_argument("--corpus", default="flickr8k",
                   help="flickr8k (from --data-dir), demo, or a JSON split file")
    p.add_argument("--images-dir", default=None, help="image folder for a JSON split file")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    return p


def run(args: argparse.Namespace) -> int:
    from kcca.data import load_corpus

    kwargs = {}
    if args.corpus.endswith(".json"):
        kwargs["images_dir"] = args.images_dir
    corpus = load_corpus(args.corpus, args.data_dir, seed=args.seed, **kwargs)
    summary = corpus.summary()
    summary["notes"] = list(corpus.notes)
    if args.json:
        print(json.dumps(summary, indent=1))
        return 0
    print(f"corpus {summary['name']}: {summary['captions']} captions of "
          f"{summary['images_with_captions']} images")
    for split, n in summary["splits"].items():
        print(f"  {split:5s} {n:6d} images")
    print(f"  pools use caption #{summary['pool_caption_index']} of each dev/test image")
    for key in ("expert_pairs", "crowd_pairs"):
        if key in summary:
            print(f"  {key.replace('_', ' ')}: {summary[key]}")
    for note in corpus.notes:
        print(f"  note: {note}")
    return 0
