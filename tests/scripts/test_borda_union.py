"""scripts/borda_union.py: one system alone gives the runner's dev criterion; a union Borda
counts every model of every system."""

from __future__ import annotations

import numpy as np
import pytest

from tests.scripts.load import load_script
from tests.scripts.test_borda_size import _blocks


@pytest.fixture(scope="module")
def script():
    return load_script("borda_union")


def test_one_system_is_the_runners_dev_criterion_and_unions_count_every_model(script):
    from kcca.systems.dev_check import criterion_of
    from kcca.systems.grid import dev_outcome, fit_grid

    Kx, Ky, Kx_dev, Ky_dev = _blocks()
    grid = fit_grid(Kx, Ky, p=2, d=1, kappas=(0.5, 5.0), n_values=[2, 4, 8, 16, 32])
    alone = script.selected_rankings(grid, Kx_dev, Ky_dev, per_criterion=2)
    assert alone["annotation"].shape == (6, 30, 30)
    runner = dev_outcome(grid, Kx_dev, Ky_dev, p=2, d=1, per_criterion=2)
    assert criterion_of(script.figures_of(alone)) == pytest.approx(runner.criterion)
    # the same models twice: the same Borda ranking
    twice = {t: np.concatenate([r, r]) for t, r in alone.items()}
    assert script.figures_of(twice) == script.figures_of(alone)
    # another system's models change the count (a weaker, differently regularised grid)
    other = fit_grid(Kx ** 2, Ky, p=1, d=3, kappas=(5.0,), n_values=[1, 2])
    union = {t: np.concatenate([r, script.selected_rankings(other, Kx_dev ** 2, Ky_dev, 1)[t]])
             for t, r in alone.items()}
    assert union["search"].shape[0] == 6 + 2
    assert script.figures_of(union) != script.figures_of(alone)


def test_one_system_is_refused(script):
    with pytest.raises(SystemExit):
        script.main(["--systems", "TRI5SEM"])
