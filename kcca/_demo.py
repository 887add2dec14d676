"""The demo's settings and systems: what ``kcca demo`` runs on the embedded demo corpus
(:mod:`kcca.data._demo`), and the demo model that ``kcca fit-model --demo`` and ``kcca query``
use. The systems and the image feature settings are the experiment files of
``experiments/demo`` (:func:`demo_experiments_dir`); their grid follows Section 4.1.3 at the
demo's sizes: the paper's four kappas, ``n`` on a geometric scale from 5 to the training size,
and p and d searched on dev.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

#: the folder name of the demo's experiment files (``experiments/demo``)
DEMO_EXPERIMENTS = "demo"


def demo_experiments_dir() -> Path:
    """``experiments/demo``: of the source tree, or the copy an installed package carries."""
    from kcca._systems.spec import default_experiments_dir

    return default_experiments_dir(DEMO_EXPERIMENTS)


def demo_run_table(folder: str | Path | None = None) -> dict[str, Any]:
    """The ``[run]`` table of the demo's ``run.toml`` (:func:`kcca._systems.config.load_run_table`):
    its seed and image feature settings (small codebooks for the small demo images)."""
    from kcca._systems.config import load_run_table

    return load_run_table(folder or demo_experiments_dir())


def demo_image_config(seed: int | None = None, folder: str | Path | None = None) -> Any:
    """The demo's :class:`features._image_features.ImageFeatureConfig` (its ``run.toml``'s
    ``[run.image_features]``, seeded by ``seed``; None: the ``[run]`` table's seed), for
    ``kcca demo`` and the demo model alike."""
    table = demo_run_table(folder)
    seed = table.get("seed", 0) if seed is None else seed
    return dataclasses.replace(table["image_config"], seed=seed)


@dataclass(frozen=True)
class DemoSettings:
    """The demo corpus's sizes and seed (``kcca demo``'s defaults; its options override them;
    ``seed`` None: the seed of the demo's ``run.toml``, as ``kcca demo`` takes it)."""

    n_train: int = 400
    n_dev: int = 100
    n_test: int = 100
    image_size: int = 64  #: side of the square images in pixels
    seed: int | None = None


def demo_systems(
    n_train: int,
    *,
    p: Sequence[float] | None = None,
    d: Sequence[float] | None = None,
    kappas: Sequence[float] | None = None,
    n_count: int | None = None,
    folder: str | Path | None = None,
) -> list:
    """The demo's systems (TRI5 and BoW5, pyramid image kernel) from its experiment files,
    their grid written out for ``n_train`` training images; ``p``, ``d``, ``kappas`` and
    ``n_count`` (values of n on the files' geometric scale), when given, replace the files'."""
    from kcca._systems.spec import geometric_n, load_specs

    out = []
    for spec in load_specs(folder or demo_experiments_dir()):
        n = None
        if n_count is not None:
            rule = spec.grid.n
            start = geometric_n(rule)[0] if isinstance(rule, str) and rule != "paper" else 5
            n = f"geometric:{start}:{n_count}"
        spec = spec.with_grid(p=p, d=d, kappas=kappas, n=n)
        out.append(spec.for_training_size(n_train))
    return out
