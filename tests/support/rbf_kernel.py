"""The Gaussian (RBF) kernel of feature rows: the positive definite kernels of the solver tests."""

from __future__ import annotations

import numpy as np


def rbf(A: np.ndarray, B: np.ndarray | None = None, gamma: float = 0.3) -> np.ndarray:
    B = A if B is None else B
    d = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-gamma * d)
