"""Dev-set selection (Section 4.1.3): 15 different models from a fabricated grid, with every
tie-break."""

from __future__ import annotations

import numpy as np
import pytest

from kcca._evaluate.original import original_ranks_from_scores as original_ranks
from kcca._scoring import cosine_scores
from kcca._selection import grid_dev_ranks, select_models
from kcca._solver import KCCAGrid


def make_ranks(r1: int, r5: int, r10: int, mid5: int = 3, mid10: int = 7,
               n: int = 10) -> np.ndarray:
    """``r1`` queries at rank 1, ``r5 - r1`` at ``mid5``, ``r10 - r5`` at ``mid10``, rest at 50."""
    return np.array([1] * r1 + [mid5] * (r5 - r1) + [mid10] * (r10 - r5) + [50] * (n - r10))


TABLE = {  # setting: (r1, r5, r10) out of 10 queries
    (0.1, 10): (5, 6, 7),   # A
    (0.1, 20): (5, 6, 8),   # B: ties A on R@1 and R@5, wins on R@10
    (0.1, 30): (4, 9, 9),   # C
    (0.1, 40): (4, 5, 5),   # D
    (0.1, 50): (3, 3, 10),  # E
    (0.5, 10): (6, 6, 6),   # F
    (0.5, 20): (2, 8, 8),   # G: identical to H, the lower setting comes first
    (0.5, 30): (2, 8, 8),   # H
    (0.5, 40): (1, 7, 9),   # I
    (0.5, 50): (1, 2, 9),   # J
    (1.0, 10): (0, 1, 9),   # K
    (1.0, 30): (0, 0, 8),   # M (median 6 < L's 10: chosen before L)
    (1.0, 40): (0, 4, 4),   # N
    (1.0, 50): (0, 6, 6),   # O
    (5.0, 10): (1, 1, 1),   # P
    (5.0, 20): (0, 0, 0),   # Q
}


def fabricated() -> dict:
    ranks = {s: make_ranks(*v) for s, v in TABLE.items()}
    ranks[(1.0, 20)] = make_ranks(0, 0, 8, mid10=10)  # L
    ranks[(1.0, 30)] = make_ranks(0, 0, 8, mid10=6)   # M
    return ranks


def test_selects_the_expected_15_models():
    chosen = select_models(fabricated())
    settings = [c.setting for c in chosen]
    assert settings == [
        (0.5, 10), (0.1, 20), (0.1, 10), (0.1, 30), (0.1, 40),   # by R@1: F B A C D
        (0.5, 20), (0.5, 30), (0.5, 40), (1.0, 50), (1.0, 40),   # by R@5: G H I O N
        (0.1, 50), (0.5, 50), (1.0, 10), (1.0, 30), (1.0, 20),   # by R@10: E J K M L
    ]
    assert [c.criterion for c in chosen] == [1] * 5 + [5] * 5 + [10] * 5
    assert len(set(settings)) == 15
    assert chosen[13].summary.median_rank == 6.0 and chosen[14].summary.median_rank == 10.0


def test_fewer_settings_than_fifteen_takes_all():
    ranks = {s: make_ranks(*v) for s, v in list(TABLE.items())[:4]}
    assert len(select_models(ranks)) == 4


def test_bad_input():
    with pytest.raises(ValueError, match="dev_ranks is empty"):
        select_models({})
    with pytest.raises(ValueError, match="per_criterion"):
        select_models(fabricated(), per_criterion=0)


def two_view_kernels(seed: int, n: int, m: int, noise: float) -> tuple[np.ndarray, ...]:
    """RBF kernels of two views sharing a 2-d latent (y: latent + ``noise``; x: latent and two
    noise columns): ``Kx``, ``Ky`` over ``n`` training items and ``Kx_dev``, ``Ky_dev`` of ``m``
    dev items against them."""
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(n + m, 2))
    X = np.c_[L, rng.normal(size=(n + m, 2))]
    Y = L + noise * rng.normal(size=L.shape)

    def rbf(A, B):
        return np.exp(-0.3 * ((A[:, None] - B[None]) ** 2).sum(-1))

    return rbf(X[:n], X[:n]), rbf(Y[:n], Y[:n]), rbf(X[n:], X[:n]), rbf(Y[n:], Y[:n])


def test_grid_dev_ranks_match_per_model_computation():
    Kx, Ky, Kx_dev, Ky_dev = two_view_kernels(seed=0, n=120, m=15, noise=0.5)
    grid = KCCAGrid(kappas=(0.1, 1.0), n_components=[1, 3, 8]).fit(Kx, Ky)
    for task in ("annotation", "search"):
        ranks = grid_dev_ranks(grid, Kx_dev, Ky_dev, task)
        assert sorted(ranks) == sorted(grid.models_)
        for kappa, k in grid.models_:
            model = grid.model(kappa, k)
            zx, zy = model.transform_x(Kx_dev), model.transform_y(Ky_dev)
            s = cosine_scores(zx, zy) if task == "annotation" else cosine_scores(zy, zx)
            np.testing.assert_array_equal(ranks[(kappa, k)], original_ranks(s))
    with pytest.raises(ValueError, match="task"):
        grid_dev_ranks(grid, Kx_dev, Ky_dev, "retrieval")

