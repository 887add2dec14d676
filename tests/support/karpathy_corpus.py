"""A small corpus in Karpathy's JSON format (``dataset_coco.json``'s fields), for the tests of
``kcca reproduce --corpus FILE.json`` and of the report on such a run."""

from __future__ import annotations

import json
from pathlib import Path

from kcca.data._demo import make_demo_corpus

#: test images (five folds of five, as COCO's 5,000 in five folds of 1,000)
N_TEST = 25
FOLD = 5


def karpathy_json(path: Path) -> Path:
    """A captions JSON in Karpathy's format (``dataset_coco.json``'s fields) of a small demo
    corpus: ``val`` is the dev split, part of the training images are ``restval``."""
    corpus = make_demo_corpus(
        n_train=60, n_dev=15, n_test=N_TEST, image_size=32, seed=1, judgments=False
    )
    images = []
    for split, name in (("train", "train"), ("dev", "val"), ("test", "test")):
        for n, image_id in enumerate(corpus.split(split)):
            label = "restval" if split == "train" and n % 4 == 0 else name
            sentences = [
                {"raw": t, "tokens": t.lower().split(), "imgid": len(images)}
                for t in corpus.captions[image_id]
            ]
            entry = {"filepath": "val2014", "filename": image_id, "imgid": len(images)}
            images.append({**entry, "split": label, "sentences": sentences})
    path.write_text(json.dumps({"dataset": "coco", "images": images}), encoding="utf-8")
    return path
