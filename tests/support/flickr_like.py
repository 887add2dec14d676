"""A small Flickr 8K-shaped folder made from the demo corpus, and the experiment file, grid and
image-feature settings of the small ``kcca reproduce`` runs on it."""

from __future__ import annotations

import json
from pathlib import Path

import cv2

from kcca.data._demo import make_demo_corpus

SPEC = """
name = "{name}"
short_name = "{short}"
model = "{model}"
preprocessing = "demo"
[image_kernel]
name = "pyramid"
[text_kernel]
name = "{text}"
{params}
{grid}
"""
GRID = "[grid]\np = [2]\nd = [1, 3]\nkappas = [1.0]\nn = [5, 10, 20, 39]"
IMAGES = json.dumps({"n_images": 10, "points_per_image": 100, "max_iter": 10,
                     "vocabulary": {"color": 8, "texture": 8, "sift": 8}})


def write_flickr_like(root: Path) -> None:
    """The demo corpus as a Flickr 8K folder (text files and JPEG images)."""
    c = make_demo_corpus(n_train=40, n_dev=12, n_test=12, image_size=48, seed=1, judgments=False)
    text, images = root / "flickr8k" / "text", root / "flickr8k" / "images"
    text.mkdir(parents=True)
    images.mkdir()
    ids = [i for s in ("train", "dev", "test") for i in c.split(s)]
    names = {i: i.replace(".png", ".jpg") for i in ids}
    lines = [f"{names[i]}#{n}\t{t}" for i in ids for n, t in enumerate(c.captions[i])]
    (text / "Flickr8k.token.txt").write_text("\n".join(lines) + "\n")
    (text / "Flickr8k.lemma.token.txt").write_text("\n".join(lines) + "\n")
    for s in ("train", "dev", "test"):
        (text / f"Flickr_8k.{s}Images.txt").write_text("\n".join(names[i] for i in c.split(s)))
    t0 = names[c.split("test")[0]]
    (text / "ExpertAnnotations.txt").write_text(f"{t0}\t{t0}#2\t4\t4\t3\n")
    (text / "CrowdFlowerAnnotations.txt").write_text(f"{t0}\t{t0}#2\t1\t3\t0\n")
    for i in ids:
        cv2.imwrite(str(images / names[i]), cv2.cvtColor(c.load_image(i), cv2.COLOR_RGB2BGR),
                    [cv2.IMWRITE_JPEG_QUALITY, 95])
