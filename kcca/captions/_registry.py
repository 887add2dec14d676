"""The caption metrics by name: the built-in scorers and any a plugin registers."""

from __future__ import annotations

from typing import Any, Callable

from kcca.captions._bleu import Bleu
from kcca.captions._cider import Cider, CiderD
from kcca.captions._meteor import Meteor
from kcca.captions._rouge import RougeL
from kcca.captions._scorer import CaptionInputError, CaptionScorer

_REGISTRY: dict[str, Callable[..., CaptionScorer]] = {
    "bleu": Bleu,
    "rouge_l": RougeL,
    "cider_d": CiderD,
    "cider": Cider,
    "meteor": Meteor,
}


def register_scorer(key: str, factory: Callable[..., CaptionScorer]) -> None:
    """Register a scorer factory under a name (lower case, e.g. ``"cider_d"``)."""
    key = key.lower()
    if key in _REGISTRY and _REGISTRY[key] is not factory:
        raise ValueError(f"a caption scorer is already registered as {key!r}")
    _REGISTRY[key] = factory


def get_scorer(key: str, **params: Any) -> CaptionScorer:
    """Build the scorer registered as ``key`` with ``params``."""
    try:
        factory = _REGISTRY[key.lower()]
    except KeyError:
        raise CaptionInputError(
            f"unknown caption metric {key!r}; available: {', '.join(available_scorers())}"
        ) from None
    return factory(**params)


def available_scorers() -> list[str]:
    """Names of the registered scorers."""
    return sorted(_REGISTRY)
