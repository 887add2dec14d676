"""Fake pictures for the tests of bad images: a photo-like array, its JPEG bytes, and the fake
Flickr 8K folder with JPEG images beside the names of extra (bad) files."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tests.support.fake_flickr8k import write_fake_flickr8k


def _photo(seed: int = 0, size: int = 224) -> np.ndarray:
    """A photo-like BGR image: smooth colour waves, edges and noise."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:size, 0:size].astype(np.float32)
    img = np.stack([128 + 70 * np.sin(x / (11 + 5 * c) + c) * np.cos(y / (17 - 3 * c) - c)
                    for c in range(3)], axis=-1)
    img[size // 3: size // 2, size // 4: size // 2] = (30, 200, 90)
    img += rng.normal(0, 10, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def _jpeg(img: np.ndarray, *params: int) -> bytes:
    ok, buf = cv2.imencode(".jpg", img, list(params))
    assert ok
    return buf.tobytes()


def _fake_corpus(root: Path, extra: list[str]) -> Path:
    """The fake Flickr 8K folder with ``extra`` image ids added to the training split."""
    text = write_fake_flickr8k(root)
    ids = ["a.jpg", "b.jpg", "c.jpg", "d.jpg"] + extra
    lines = [f"{i}#{n}\tA dog number {n} runs on {i} ." for i in ids for n in range(5)]
    for name in ("Flickr8k.token.txt", "Flickr8k.lemma.token.txt"):
        (text / name).write_text("\n".join(lines) + "\n")
    (text / "Flickr_8k.trainImages.txt").write_text("\n".join(["a.jpg", "b.jpg"] + extra) + "\n")
    images = root / "flickr8k" / "images"
    for i in ("a.jpg", "b.jpg", "c.jpg", "d.jpg"):
        (images / i).write_bytes(_jpeg(_photo(ord(i[0]), 64)))
    return images
