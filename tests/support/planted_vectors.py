"""Planted vectors for a corpus, in the files the ``vectors`` kernel reads: a hidden vector
per image, its image vector and each of its captions' vectors that vector plus noise (so an
image and its captions are close, other images' far)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kcca.data._corpus import SPLITS, caption_id

DIM = 8


def plant_vectors(corpus, folder: Path, seed: int = 3) -> tuple[Path, Path]:
    """``folder/images.npy`` (with ``images.ids.txt``: one vector per image id) and
    ``folder/captions.npz`` (one vector per caption id ``IMAGE#N``); returns their paths."""
    rng = np.random.default_rng(seed)
    ids = [i for s in SPLITS for i in corpus.split(s)]
    hidden = {i: rng.normal(size=DIM) for i in ids}
    images = np.stack([hidden[i] + 0.2 * rng.normal(size=DIM) for i in ids])
    np.save(folder / "images.npy", images.astype(np.float32))
    (folder / "images.ids.txt").write_text("\n".join(ids) + "\n", encoding="utf-8")
    cids = [caption_id(i, n) for i in ids for n in range(len(corpus.captions[i]))]
    captions = np.stack([hidden[c.rpartition("#")[0]] + 0.4 * rng.normal(size=DIM) for c in cids])
    np.savez(folder / "captions.npz", ids=np.array(cids), vectors=captions.astype(np.float32))
    return folder / "images.npy", folder / "captions.npz"


def vectors_experiment(images: Path | str, captions: Path | str, n: str) -> str:
    """An experiment file ``VEC`` with the ``vectors`` kernel on both sides (RBF over the image
    vectors, cosine over the normalised caption vectors) and the grid value ``n`` (TOML)."""
    return f"""name = "VEC"
preprocessing = "demo"

[image_kernel]
name = "vectors"
params = {{path = "{images}", function = "rbf"}}

[text_kernel]
name = "vectors"
params = {{path = "{captions}", function = "cosine", normalise = true}}

[grid]
p = [1]
d = [1, 3]
kappas = [0.1, 1.0]
n = {n}
"""
