"""A tiny run folder for the report tests: a small demo corpus, rankings files of made-up
systems on its test pool, and one plot."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from kcca.data._demo import make_demo_corpus
from kcca._evaluate.original import rankings_from_scores
from kcca._evaluate.rankings_io import write_rankings


def tiny_corpus(**kw):
    args = dict(n_train=4, n_dev=2, n_test=12, image_size=48, seed=1)
    args.update(kw)
    return make_demo_corpus(**args)


def write_run(folder: Path, corpus, systems=("BoW5", "TRI5"), *, sub: str = "",
              seed: int = 0) -> Path:
    """Rankings files of noisy-diagonal scores (gold often near the top) and a PNG plot."""
    rng = np.random.default_rng(seed)
    pool = corpus.pool("test")
    n = len(pool)
    target = folder / sub if sub else folder
    target.mkdir(parents=True, exist_ok=True)
    for name in systems:
        scores = rng.normal(size=(n, n)) + 2.0 * np.eye(n)
        tasks = {"annotation": rankings_from_scores(scores),
                 "search": rankings_from_scores(scores.T)}
        slug = "".join(c if c.isalnum() else "_" for c in name)
        fname = f"{slug}.json" if sub else f"rankings_{slug}.json"
        write_rankings(target / fname, pool, tasks, system=name, corpus=corpus.name)
    plot = np.full((60, 90, 3), 200, np.uint8)
    cv2.circle(plot, (45, 30), 20, (30, 90, 200), -1)
    cv2.imwrite(str(folder / "recall_at_k.png"), plot)
    return folder
