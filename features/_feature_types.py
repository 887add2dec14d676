"""The registry of the paper's three feature types (Sec. 3.3): colour, texture and dense SIFT
descriptors with the size of each one's visual-word codebook."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from features._color import color_descriptors
from features._descriptors import Descriptors
from features._sift import sift_descriptors
from features._texture import texture_descriptors


@dataclass(frozen=True)
class FeatureType:
    """A named descriptor extractor with the codebook size the paper uses for it."""

    name: str
    extract: Callable[[np.ndarray], Descriptors]
    vocabulary_size: int


def feature_types() -> dict[str, FeatureType]:
    """The paper's three feature types: 128 colour, 256 texture and 256 SIFT words."""
    return {
        "color": FeatureType("color", color_descriptors, 128),
        "texture": FeatureType("texture", texture_descriptors, 256),
        "sift": FeatureType("sift", sift_descriptors, 256),
    }
