"""Write a tiny Flickr 8K-shaped folder for validation tests."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

TRAIN = ["a.jpg", "b.jpg"]
DEV = ["c.jpg"]
TEST = ["d.jpg"]


def write_fake_flickr8k(root: Path, images: bool = True) -> Path:
    text = root / "flickr8k" / "text"
    text.mkdir(parents=True)
    ids = TRAIN + DEV + TEST
    lines = [f"{i}#{n}\tA dog number {n} runs on {i} ." for i in ids for n in range(5)]
    (text / "Flickr8k.token.txt").write_text("\n".join(lines) + "\n")
    (text / "Flickr8k.lemma.token.txt").write_text("\n".join(lines) + "\n")
    for split, members in (("train", TRAIN), ("dev", DEV), ("test", TEST)):
        (text / f"Flickr_8k.{split}Images.txt").write_text("\n".join(members) + "\n")
    (text / "ExpertAnnotations.txt").write_text("d.jpg\td.jpg#2\t4\t4\t3\n"
                                                "d.jpg\tc.jpg#2\t1\t2\t1\n")
    (text / "CrowdFlowerAnnotations.txt").write_text("d.jpg\td.jpg#2\t1\t3\t0\n"
                                                     "d.jpg\ta.jpg#2\t0.5\t2\t2\n")
    if images:
        img_dir = root / "flickr8k" / "images"
        img_dir.mkdir()
        rng = np.random.default_rng(0)
        for i in ids:
            cv2.imwrite(str(img_dir / i), rng.integers(0, 255, (20, 30, 3), dtype=np.uint8))
    return text
