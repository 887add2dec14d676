"""How much do the visual-word codebooks alone move a system? (dev criterion per codebook)

    python scripts/codebook_seed.py --data-dir D [--system TRI5SEM] [--seeds 0 1 2] [--n-images 200]

The paper's colour, texture and SIFT words come from k-means on 1,000 points of each of 200
images (Section 3.3.1); which 200 images and points, and the k-means start, are random. This script
rebuilds the image features and K^PY with the codebooks of other seeds (and optionally other
sample sizes; everything else as in the paper), fits the system's KCCA grid at p = 2, d = 1
(full precision, the paper's kappas and n) and prints the dev criterion of
``kcca._systems.grid`` (dev R@1+R@5+R@10 of the 15-model Borda, both tasks) for each: the spread
is how far a reproduction can drift from the paper through its codebooks alone. Features of
each codebook are cached under their own keys (about 10 min per new codebook on 2 cores).
With ``--average`` it scores, instead of each seed, the mean of the seeds' image kernels (one
K^PY per codebook, averaged before the power p): whether bagging the codebooks removes their
noise, a step beyond the paper. Dev only: the test split is never read.
"""

from __future__ import annotations

import argparse
import sys
import time

from kcca._systems.dev_check import OpenSystem, add_system_arguments, describe, dev_check


def codebook_workspace(corpus, cache, seed: int, n_images: int = 200, jobs: int = 2):
    """A :class:`~kcca._systems.blocks.Workspace` whose image features use the codebooks of
    ``seed`` drawn from ``n_images`` images (seed 0 and 200 images: the default workspace's)."""
    from features._image_features import ImageFeatureConfig
    from kcca._systems.blocks import Workspace

    return Workspace(corpus, cache, n_jobs=jobs, progress=True,
                     image_config=ImageFeatureConfig(seed=seed, n_images=n_images))


def mean_blocks(blocks: list) -> tuple:
    """(train, dev) means of image blocks of several codebooks (objects with ``.train`` and
    ``.dev`` arrays of one shape)."""
    import numpy as np

    if not blocks:
        raise ValueError("no image blocks to average")
    shapes = {(np.shape(b.train), np.shape(b.dev)) for b in blocks}
    if len(shapes) != 1:
        raise ValueError(f"image blocks of different shapes cannot be averaged: {sorted(shapes)}")
    return (sum(np.asarray(b.train) for b in blocks) / len(blocks),
            sum(np.asarray(b.dev) for b in blocks) / len(blocks))


def main(argv: list[str] | None = None) -> int:
    from pathlib import Path

    from kcca._systems.dev_check import open_workspace_from
    from kcca._systems.spec import load_specs, select_specs

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2],
                        help="codebook seeds (0 is the experiment files')")
    parser.add_argument("--n-images", type=int, default=200,
                        help="images the codebook sample comes from (the paper: 200)")
    parser.add_argument("--average", action="store_true",
                        help="score the mean of the seeds' image kernels instead of each")
    add_system_arguments(parser)
    args = parser.parse_args(argv)
    if args.n_images < 1:
        parser.error(f"--n-images must be positive, got {args.n_images}")

    base = open_workspace_from(args)
    (spec,) = select_specs(load_specs(Path(args.experiments)), [args.system])
    text = None
    kept = []
    for seed in args.seeds:
        t = time.perf_counter()
        ws = codebook_workspace(base.corpus, base.cache, seed, args.n_images, args.jobs)
        if text is None:
            text = ws.text_blocks(spec.text_kernel, spec.preprocessing, spec.word_kernel)
        image = ws.image_blocks(spec.image_kernel)
        if args.average:
            kept.append(image)
            continue
        outcome = dev_check(OpenSystem(ws, spec, text), image.train, image.dev, p=2, d=1)
        print(f"{spec.name}, codebooks of seed {seed} from {args.n_images} images: "
              f"{describe(outcome)} ({time.perf_counter() - t:.0f} s)", flush=True)
    if args.average:
        t = time.perf_counter()
        train, dev = mean_blocks(kept)
        del kept
        outcome = dev_check(OpenSystem(base, spec, text), train, dev, p=2, d=1)
        print(f"{spec.name}, mean of the image kernels of seeds {args.seeds}: "
              f"{describe(outcome)} ({time.perf_counter() - t:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
