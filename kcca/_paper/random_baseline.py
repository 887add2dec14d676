"""The Random row of Tables 1-2: an independent uniform random permutation of the pool per
query and task (seeded), evaluated like any system."""

from __future__ import annotations

import numpy as np

from kcca._evaluate.system import EvaluationContext
from kcca._names import TASKS
from kcca._paper.evaluated_systems import SystemData, evaluate_rankings
from kcca._paper.tables import RANDOM

#: what the Random row is, beside Tables 1 and 2
NOTE = (
    "Random: one uniform random permutation per query (seeded); its "
    "first captions are mostly unjudged by the experts (see the "
    "coverage column), so its expert numbers are lower bounds and "
    "its mean is over the few judged pairs"
)


def random_rankings(n: int, seed: int) -> dict[str, np.ndarray]:
    """The Random baseline: an independent uniform permutation per query and task (seeded)."""
    rng = np.random.default_rng([seed, 2013])
    return {t: rng.permuted(np.tile(np.arange(n), (n, 1)), axis=1) for t in TASKS}


def random_system(n: int, seed: int, ctx: EvaluationContext) -> SystemData:
    """The Random baseline over a pool of ``n`` items, evaluated on ``ctx``'s pool."""
    return evaluate_rankings(RANDOM, random_rankings(n, seed), ctx, f"seed {seed}")
