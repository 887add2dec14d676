"""A synthetic corpus in Karpathy's JSON format with image and caption vectors, to try the
retrieval-baseline path (docs/retrieval-baseline.md) without data.

    python scripts/synthetic_karpathy.py --out synthetic [--layout coco|flickr30k]
        [--train N] [--seed S]

writes into ``--out``:

* ``dataset_synthetic.json``: images with ``filepath``, ``filename``, ``split`` (``train``,
  ``restval``, ``val``, ``test``) and five ``sentences`` each, as ``dataset_coco.json``;
* ``experiments/images.npz`` / ``experiments/captions.npz``: one vector per image id and per
  caption id (``IMAGE#N``), the files the ``vectors`` kernel reads (``np.savez(path, ids=...,
  vectors=...)``), inside the experiments folder as the files an experiment names must be;
* ``experiments/VEC.toml``: a KCCA system with the ``vectors`` kernel on both sides (its
  paths relative to its folder);
* ``new-images.npz`` / ``new-captions.npz``: the vectors of three test images and of one
  caption of each, under new ids (``new-image-N``, ``new-caption-N``), the kind of file a
  model saved with ``kcca fit-model`` ranks (``kcca annotate --vectors``, ``kcca query
  --vectors``),

and prints the two commands that run it under both protocols and print the literature's table
(in lines of at most 100 columns, continued with `` \\``: they run as printed).

The vectors carry a planted shared structure: each image has a hidden vector ``z``; its image
vector is ``A z`` plus noise, each of its captions ``B z`` plus independent noise, so an image
and its captions are close under KCCA and recall is far above chance. ``--layout coco`` makes
COCO's 5,000 validation and 5,000 test images (the all-captions table then has "5K" and "1K
(mean of 5 folds)"), ``flickr30k`` 1,000 of each.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from kcca._cli.lines import command, with_path

#: dev and test images per layout (COCO's and Flickr30K's Karpathy splits)
LAYOUTS = {"coco": (5000, 5000), "flickr30k": (1000, 1000)}
CAPTIONS = 5
#: test images (and one caption of each) written as new items' vectors
NEW_ITEMS = 3
WORDS = ("a", "dog", "runs", "on", "the", "grass", "two", "people", "sit", "near", "water")

EXPERIMENT = """# A KCCA system on vectors files (scripts/synthetic_karpathy.py)
name = "VEC"
short_name = "VEC"
model = "kcca"
description = "KCCA, linear kernels over image and caption vectors"

[image_kernel]
name = "vectors"
params = {{path = "{images}", function = "linear"}}

[text_kernel]
name = "vectors"
params = {{path = "{captions}", function = "cosine", normalise = true}}

[grid]
p = [1]
d = [1]
kappas = [0.1, 1.0]
n = [4, 8, 12, 16, 20, 24, 32, 48, 64]
"""


def planted_vectors(
    n_images: int, rng: np.random.Generator, dims: tuple[int, int, int], noise: float
) -> tuple[np.ndarray, np.ndarray]:
    """Image vectors ``(n, image_dim)`` and caption vectors ``(5 n, text_dim)`` (image ``i``
    owns captions ``5 i .. 5 i + 4``) of one shared latent per image."""
    image_dim, text_dim, latent = dims
    a = rng.normal(size=(image_dim, latent)) / np.sqrt(latent)
    b = rng.normal(size=(text_dim, latent)) / np.sqrt(latent)
    z = rng.normal(size=(n_images, latent))
    images = z @ a.T + noise * rng.normal(size=(n_images, image_dim))
    captions = np.repeat(z @ b.T, CAPTIONS, axis=0)
    captions += noise * rng.normal(size=captions.shape)
    return images.astype(np.float32), captions.astype(np.float32)


def split_labels(n_train: int, n_dev: int, n_test: int) -> list[str]:
    """Each image's split, in file order: a fifth of the training images as ``restval``."""
    train = ["restval" if i % 5 == 4 else "train" for i in range(n_train)]
    return train + ["val"] * n_dev + ["test"] * n_test


def write_example(out: Path, layout: str, n_train: int, seed: int, noise: float) -> list[list[str]]:
    """Write the corpus, the vectors files and the experiment folder; return the commands
    (their words)."""
    n_dev, n_test = LAYOUTS[layout]
    labels = split_labels(n_train, n_dev, n_test)
    rng = np.random.default_rng(seed)
    images, captions = planted_vectors(len(labels), rng, (64, 48, 16), noise)
    out.mkdir(parents=True, exist_ok=True)
    ids = [f"synthetic2014/img{i:06d}.jpg" for i in range(len(labels))]
    entries = []
    for i, (image_id, split) in enumerate(zip(ids, labels)):
        words = rng.choice(WORDS, size=(CAPTIONS, 6))
        sentences = [{"raw": " ".join(w), "tokens": list(w)} for w in words]
        folder, _, name = image_id.partition("/")
        entries.append(
            {
                "filepath": folder,
                "filename": name,
                "imgid": i,
                "split": split,
                "sentences": sentences,
            }
        )
    corpus = out / "dataset_synthetic.json"
    corpus.write_text(json.dumps({"dataset": "synthetic", "images": entries}), encoding="utf-8")
    caption_ids = [f"{i}#{n}" for i in ids for n in range(CAPTIONS)]
    experiments = out / "experiments"
    experiments.mkdir(exist_ok=True)
    np.savez(experiments / "images.npz", ids=np.array(ids), vectors=images)
    np.savez(experiments / "captions.npz", ids=np.array(caption_ids), vectors=captions)
    (experiments / "VEC.toml").write_text(
        EXPERIMENT.format(images="images.npz", captions="captions.npz"), encoding="utf-8"
    )
    test = [i for i, split in enumerate(labels) if split == "test"][:NEW_ITEMS]
    np.savez(
        out / "new-images.npz",
        ids=np.array([f"new-image-{n + 1}" for n in range(len(test))]),
        vectors=images[test],
    )
    np.savez(
        out / "new-captions.npz",
        ids=np.array([f"new-caption-{n + 1}" for n in range(len(test))]),
        vectors=captions[[CAPTIONS * i for i in test]],
    )
    run = out / "run"
    return [
        ["kcca", "reproduce", "--corpus", str(corpus), "--experiments", str(experiments)]
        + ["--systems", "VEC", "--tables", "11", "--protocol", "all-captions", "--no-plots"]
        + ["--out", str(run)],
        ["kcca", "evaluate", "--protocol", "all-captions", str(run / "rankings" / "VEC.json")],
    ]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="folder to write into")
    p.add_argument(
        "--layout",
        choices=sorted(LAYOUTS),
        default="coco",
        help="dev and test sizes: coco (5,000 + 5,000, default) or flickr30k",
    )
    p.add_argument("--train", type=int, default=5000, help="training images (default 5,000)")
    p.add_argument(
        "--noise",
        type=float,
        default=1.0,
        help="noise of each vector around its image's latent (default 1.0)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of every random draw")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    commands = write_example(Path(args.out), args.layout, args.train, args.seed, args.noise)
    print(
        with_path(
            "wrote ",
            args.out,
            ": dataset_synthetic.json, experiments/ (VEC.toml, images.npz, captions.npz), "
            "new-images.npz, new-captions.npz",
        )
    )
    print("next, run the system under both protocols and print the all-captions table:")
    for argv in commands:  # split into lines of 100 columns that run as printed
        print(command(argv, "  "))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
