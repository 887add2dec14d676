"""Rankings files of made-up systems on the demo corpus's test pool, for evaluation tests."""

from pathlib import Path

import numpy as np

from kcca.data import load_corpus
from kcca._evaluate.rankings_io import write_rankings


def demo_test_pool():
    """The demo corpus (seed 0) and its test pool."""
    corpus = load_corpus("demo", seed=0)
    return corpus, corpus.pool("test")


def write_systems(folder: Path, pool, systems: dict[str, tuple[np.ndarray, np.ndarray]]):
    """One rankings file ``<name>.json`` per system from its (annotation, search) rankings."""
    return [write_rankings(folder / f"{name}.json", pool, {"annotation": a, "search": s},
                           system=name, corpus="demo")
            for name, (a, s) in systems.items()]
