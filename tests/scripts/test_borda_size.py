"""scripts/borda_size.py: its dev criterion is the runner's for the paper's 15 models."""

from __future__ import annotations

import numpy as np
import pytest

from tests.scripts.load import load_script


@pytest.fixture(scope="module")
def script():
    return load_script("borda_size")


def _blocks(seed: int = 0):
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(110, 3))
    X = np.c_[latent, rng.normal(size=(110, 2))]
    Y = np.c_[latent + 0.5 * rng.normal(size=(110, 3)), rng.normal(size=(110, 2))]

    def rbf(A, B):
        return np.exp(-0.2 * ((A[:, None] - B[None]) ** 2).sum(-1))

    tr, dev = slice(0, 80), slice(80, 110)
    return rbf(X[tr], X[tr]), rbf(Y[tr], Y[tr]), rbf(X[dev], X[tr]), rbf(Y[dev], Y[tr])


def test_paper_size_row_is_the_runners_dev_criterion(script):
    from kcca.systems.grid import dev_outcome, fit_grid

    Kx, Ky, Kx_dev, Ky_dev = _blocks()
    grid = fit_grid(Kx, Ky, p=2, d=1, kappas=(0.5, 5.0), n_values=[2, 4, 8, 16, 32])
    rows = {size: (crit, f) for size, crit, f in script.dev_table(grid, Kx_dev, Ky_dev,
                                                                    [1, 2, 5])}
    runner = dev_outcome(grid, Kx_dev, Ky_dev, p=2, d=1, per_criterion=5)
    assert rows[5][0] == pytest.approx(runner.criterion)
    assert rows[1][1]["annotation"][4] == 3 and rows[2][1]["search"][4] == 6
    assert rows[5][1]["annotation"][4] == 10  # 10 models in the grid: every one
    assert all(0 <= crit <= 600 for crit, _ in rows.values())


def test_counts_below_one_are_refused(script):
    with pytest.raises(SystemExit):
        script.main(["--per-criterion", "0"])


def test_dev_check_figures_and_cells():
    from kcca.systems.dev_check import criterion_of, figure_cells, recall_figures

    ranks = np.array([1, 3, 7, 12, 40])          # R@1 20, R@5 40, R@10 60, median 7
    figures = {"annotation": recall_figures(ranks), "search": [10.0, 20.0, 30.0, 52.5]}
    assert figures["annotation"] == [20.0, 40.0, 60.0, 7.0]
    assert criterion_of(figures) == pytest.approx(180.0)
    assert figure_cells(figures) == ["20.0/40.0/60.0, 7", "10.0/20.0/30.0, 52.5"]
