"""One system's evaluation: per task, each metric's per-query values and aggregate, with the
judged coverage and the expert scores of the first caption (Section 4.2-4.3).

:func:`kcca._evaluate.system.evaluate_system` and :func:`~kcca._evaluate.system.evaluate_compact`
make it; :mod:`kcca._evaluate.compact` stores it beside the compact rankings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kcca._evaluate.expert import ExpertResult
from kcca._evaluate.original import PerQuery


@dataclass
class SystemEvaluation:
    """A system's metrics (``task -> metric ->`` :class:`PerQuery`), judged coverage, expert
    result and notes."""

    system: str
    metrics: dict[str, dict[str, PerQuery]]
    coverage: dict[str, Any]  # task -> coverage entries; the Table 5 total -> float
    expert: ExpertResult | None = None
    notes: list[str] = field(default_factory=list)

    def table(self) -> dict[str, dict[str, float]]:
        """task -> metric -> aggregate."""
        return {t: {k: v.aggregate for k, v in m.items()} for t, m in self.metrics.items()}

    def to_json(self, per_query: bool = True) -> dict:
        out: dict = {
            "system": self.system,
            "aggregates": self.table(),
            "coverage": self.coverage,
            "notes": self.notes,
        }
        if self.expert is not None:
            out["expert"] = self.expert.as_dict()
        if per_query:
            # an object array: NaN -> None (JSON null); the stubs take no None here
            out["per_query"] = {
                t: {
                    k: np.where(  # type: ignore[call-overload]
                        np.isnan(v.values), None, v.values
                    ).tolist()
                    for k, v in m.items()
                }
                for t, m in self.metrics.items()
            }
        return out
