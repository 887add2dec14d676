"""Handing a configuration's settings to the estimator they parameterise, so that each
setting is named once: in the estimator, whose default the configuration reuses."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from sklearn.base import BaseEstimator


def shared_params(estimator: type[BaseEstimator], config: Any) -> dict[str, Any]:
    """The values of ``config``'s dataclass fields that are also constructor parameters of
    the scikit-learn ``estimator`` (same name, same meaning), as keyword arguments."""
    accepted = set(estimator._get_param_names())
    return {f.name: getattr(config, f.name) for f in fields(config) if f.name in accepted}
