"""The models a system chose on dev, as dense KCCA directions: what its rankings come from.

:class:`Projections` holds, for the frozen (p, d), the per-task 15 dev-selected (kappa, n)
models of Section 4.1.3 as dense dual directions (eq. 3), one block per kappa. It is built
from the fitted grid that ranked the test pool (:meth:`Projections.from_grid`), returned by
:func:`kcca._systems.run_system` when asked (``keep_models=True``) and saved inside a model file
(:mod:`kcca._model`), so a saved model ranks with the run's own directions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np


@dataclass
class Projections:
    """The chosen models' KCCA directions (eq. 3), dense, one block per kappa.

    For each kappa used by a selected model: ``x_weights[kappa]`` (n_train, m) dual image
    directions for ``K_I ** p`` and ``x_offset[kappa]`` (m,) the training mean of the
    projection; likewise ``y_*`` for the text kernel (``d`` only scales the training diagonal,
    so new rows are used as they are). ``m`` is the largest n selected with that kappa; the
    model (kappa, n) uses the first n columns (the solver's grid property). ``selected``: task ->
    the (kappa, n) of its models, in dev-selection order; ``n_directions`` the rank of the
    fitted grid's factorisation. A saved model may hold one side's directions folded into
    primal ones (one row per dimension of the items' vectors, :mod:`kcca._model.vectors`): that
    side is then projected from the items' vectors, not from kernel rows (:meth:`rows`).
    """

    p: float
    d: float
    selected: dict[str, list[tuple[float, int]]]
    x_weights: dict[float, np.ndarray]
    x_offset: dict[float, np.ndarray]
    y_weights: dict[float, np.ndarray]
    y_offset: dict[float, np.ndarray]
    n_directions: int | None = None

    @classmethod
    def from_grid(cls, grid: Any, selected: Mapping[str, list[tuple[float, int]]]) -> "Projections":
        """The ``selected`` models (task -> (kappa, n)) of a fitted
        :class:`kcca._solver.KCCAGrid`, as dense directions on the host (same numbers)."""
        from kcca._backend import to_numpy

        def host(a: Any) -> np.ndarray:
            return np.ascontiguousarray(np.asarray(to_numpy(a), dtype=np.float64))

        chosen = {
            task: [(float(k), int(n)) for k, n in models] for task, models in selected.items()
        }
        kappas = sorted({k for models in chosen.values() for k, _ in models})
        xw, xo, yw, yo = {}, {}, {}, {}
        for k in kappas:
            width = max(n for models in chosen.values() for kk, n in models if kk == k)
            est = grid.model(k, width)
            xw[k], xo[k] = host(est.x_weights_), host(est.x_offset_)
            yw[k], yo[k] = host(est.y_weights_), host(est.y_offset_)
        return cls(
            float(grid.power_x), float(grid.diag_y), chosen, xw, xo, yw, yo, int(grid.n_directions_)
        )

    @property
    def n_train(self) -> int:
        """The rows of the image side's directions (the training items unless folded)."""
        return self.rows("x")

    def rows(self, side: str) -> int:
        """The rows of side ``x`` or ``y``'s directions: the columns of the blocks it takes."""
        return int(next(iter(getattr(self, f"{side}_weights").values())).shape[0])

    @staticmethod
    def project_blocks(project: Any, block: Any) -> dict[float, np.ndarray]:
        """``project(block)`` (:meth:`project_x` or :meth:`project_y`), block by block for rows
        on demand (:class:`kcca._lowrank.KernelRows`)."""
        from kcca._lowrank import KernelRows

        if not isinstance(block, KernelRows):
            return project(block)
        parts = [project(rows) for _, rows in block.blocks()]
        return {k: np.concatenate([part[k] for part in parts]) for k in parts[0]}

    def project_x(self, K: np.ndarray) -> dict[float, np.ndarray]:
        """Image projections of a raw (n_new, n_train) image-kernel block (``p`` applied here)."""
        K = self._check(K, "x", "image")
        if self.p != 1:
            K = K**self.p
        return {k: K @ W - self.x_offset[k] for k, W in self.x_weights.items()}

    def project_y(self, K: np.ndarray) -> dict[float, np.ndarray]:
        """Text projections of a (n_new, n_train) text-kernel block."""
        K = self._check(K, "y", "text")
        return {k: K @ W - self.y_offset[k] for k, W in self.y_weights.items()}

    def _check(self, K: np.ndarray, side: str, what: str) -> np.ndarray:
        K = np.asarray(K, dtype=np.float64)
        rows = self.rows(side)
        if K.ndim != 2 or K.shape[1] != rows:
            raise ValueError(f"{what}-kernel block must be (n_new, {rows}), got {K.shape}")
        return K

    def scores(
        self, task: str, queries: Mapping[float, np.ndarray], candidates: Mapping[float, np.ndarray]
    ) -> list[np.ndarray]:
        """Cosine scores (eq. 4) of each selected model of ``task``: (n_queries, n_candidates)."""
        from kcca._scoring import cosine_scores

        return [
            cosine_scores(queries[k][:, :n], candidates[k][:, :n]) for k, n in self.selected[task]
        ]
