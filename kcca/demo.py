"""The demo's settings and systems: what ``kcca demo`` runs on the embedded demo corpus
(:mod:`kcca.data.demo`), and the demo model that ``kcca fit-model --demo`` and ``kcca query``
use. The grid follows Section 4.1.3 at the demo's sizes: the paper's four kappas, ``n`` on a
geometric scale from 5 to the training size, and p and d searched on dev.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

#: image features at the demo's scale: small codebooks fitted on a sample of the images
DEMO_IMAGE_CONFIG: dict[str, Any] = dict(
    n_images=50,
    points_per_image=200,
    max_iter=30,
    vocabulary={"color": 32, "texture": 64, "sift": 64},
)


def demo_image_config(seed: int = 0) -> Any:
    """The demo's :class:`features.image_features.ImageFeatureConfig`
    (:data:`DEMO_IMAGE_CONFIG` with ``seed``), for ``kcca demo`` and the demo model alike."""
    from features.image_features import ImageFeatureConfig

    return ImageFeatureConfig(seed=seed, **DEMO_IMAGE_CONFIG)


@dataclass(frozen=True)
class DemoSettings:
    """The demo's sizes and grid (``kcca demo``'s defaults; its options override them)."""

    n_train: int = 400
    n_dev: int = 100
    n_test: int = 100
    image_size: int = 64  #: side of the square images in pixels
    p: Sequence[float] = (2, 3)  #: image kernel powers searched on dev
    d: Sequence[float] = (1, 3, 8)  #: text diagonal factors searched on dev
    kappas: Sequence[float] = (0.1, 0.5, 1.0, 5.0)
    n_count: int = 30  #: values of n, geometric from 5 to the training size
    seed: int = 0


def demo_systems(settings: Any, n_train: int) -> list:
    """TRI5 (pyramid x trigram) and BoW5 (pyramid x bag of words) with the demo grid;
    ``settings``: a :class:`DemoSettings` or anything with its ``p``, ``d``, ``kappas`` and
    ``n_count``."""
    import numpy as np

    from kcca.systems.spec import GridSpec, KernelSpec, SystemSpec

    n = tuple(int(v) for v in np.unique(np.round(np.geomspace(5, n_train, settings.n_count))))
    grid = GridSpec(p=tuple(settings.p), d=tuple(settings.d), kappas=tuple(settings.kappas), n=n)
    image = KernelSpec("pyramid")
    return [
        SystemSpec("TRI5", image, KernelSpec("trigram"), preprocessing="demo", grid=grid),
        SystemSpec("BoW5", image, KernelSpec("bow"), preprocessing="demo", grid=grid),
    ]
