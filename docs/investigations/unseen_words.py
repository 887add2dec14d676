"""Do words never seen in training distort the trigram kernels of new captions? (dev criterion)

    python scripts/unseen_words.py --data-dir D [--systems 'TRI5^sqrtidf' TRI5] [--cache-dir C]

About 9 % of the dev and test pool captions hold a word that no training caption has (after
our preprocessing). Such a word matches nothing, but it still enters the caption's self-kernel,
the normaliser of eq. 15: with sqrt-IDF it gets the largest weight there is, ``ln |D_train|``
(the paper's formula with ``|D_train(w)| = 0``), and every pair and triple containing it is
multiplied by it (eq. 16), so it can carry most of the caption's self-kernel and shrink the
caption's whole kernel row. After centring (with the training statistics) a shrunk row no
longer scales the projection uniformly, so it moves the caption's direction, in annotation,
where captions are the ranked items. This script scores each system on dev twice: as the
experiment file defines it, and with every sequence of a new (dev) caption that contains a
word unseen in training dropped (weight 0), i.e. new captions in the training vocabulary's
feature space. Same KCCA grid (p = 2, d = 1, full precision, the paper's kappas and n) and dev
criterion as ``kcca._systems.grid``. Dev only: the test split is never read.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from kcca._systems.dev_check import (OpenSystem, add_workspace_arguments, describe, dev_check,
                                    open_workspace_from)


def drop_unseen(kernel, seen) -> None:
    """Make ``kernel`` (a fitted trigram / BoW kernel) weight every sequence holding a word not
    in ``seen`` by 0 for the items it compiles from now on (training items are compiled)."""
    base = kernel._seq_weight()

    def weight(key) -> float:
        if any(w not in seen for w in key):
            return 0.0
        return 1.0 if base is None else base(key)

    kernel._seq_weight = lambda: weight


def training_vocabulary(items) -> set[str]:
    """Every word of the training items (each a list of captions, each a list of tokens)."""
    return {w for item in items for caption in item for w in caption}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", nargs="+", default=["TRI5^sqrtidf", "TRI5"])
    parser.add_argument("--experiments", default=str(Path(__file__).resolve().parents[1]
                                                     / "experiments" / "hodosh2013"))
    parser.add_argument("--variant-only", action="store_true",
                        help="skip the experiment file's own kernel (its dev score is known)")
    add_workspace_arguments(parser)
    args = parser.parse_args(argv)

    from kcca._systems.blocks import Blocks
    from kcca._systems.spec import load_specs, select_specs

    ws = open_workspace_from(args)
    for spec in select_specs(load_specs(Path(args.experiments)), args.systems):
        text = ws.text_blocks(spec.text_kernel, spec.preprocessing, spec.word_kernel)
        image = ws.image_blocks(spec.image_kernel)
        if not args.variant_only:
            t = time.perf_counter()
            outcome = dev_check(OpenSystem(ws, spec, text), image.train, image.dev)
            print(f"{spec.name} as defined: {describe(outcome)} "
                  f"({time.perf_counter() - t:.0f} s)", flush=True)
        t = time.perf_counter()
        items = ws.text_items(spec.preprocessing)
        kernel = ws.text_kernel(spec.text_kernel, spec.word_kernel).fit(items["train"])
        drop_unseen(kernel, training_vocabulary(items["train"]))
        dev = kernel.gram(items["dev"])
        variant = Blocks(text.train, dev, text.test, {**text.key, "variant": "drop-unseen"})
        outcome = dev_check(OpenSystem(ws, spec, variant), image.train, image.dev)
        print(f"{spec.name}, unseen words dropped from dev captions: {describe(outcome)} "
              f"({time.perf_counter() - t:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
